"""Invariants over thousands of random games, checked after every phase of every round."""

import numpy as np
import polars as pl
import pytest
from helpers import games as n_games

import sim
from sim import layout as L
from sim import ledger
from sim.agents import Agents
from sim.dice import Dice, Streams
from sim.engine import begin_round, end_round, resolve_strategies
from sim.phases import ROUND
from sim.phases.end import end_game
from sim.phases.setup import setup
from sim.rules import Rules
from sim.state import new_state


def check(state, rules, where):
    """Every invariant the issue lists, on every game of the batch."""
    assert (state.relatives() == rules.game.family_size).all(), f"relatives not conserved after {where}"
    assert (state.supply >= 0).all() and (state.clerks >= 0).all() and (state.officers >= 0).all(), where
    assert ledger.balanced(state).all(), f"ledger does not balance after {where}"
    assert (state.money >= 0).all(), f"negative family money after {where}"
    assert (state.treasury >= 0).all() and (state.balance >= 0).all(), f"negative Company money after {where}"
    assert ((state.stability >= 0) & (state.stability <= rules.company.max_stability)).all(), where
    assert (state.crashed == (state.stability == 0)).all(), f"crashed <=> stability 0 broken after {where}"
    assert (state.loans >= 0).all() and (state.regiments >= 0).all() and (state.ships >= 0).all(), where
    assert (state.yard_ships.sum(axis=2) <= state.shipyards).all(), f"more yard ships than yards after {where}"
    assert ((state.office >= -1) & (state.office < state.n_players)).all(), where
    # issue 15: the office-holder invariants that can fail (the old `held >= 0` was a count, always true)
    assert (state.office[:, L.GOVERNOR_GENERAL] < 0).all(), f"a Governor-General before his law, after {where}"
    assert (state.china_open | (state.office[:, L.CHINA] < 0)).all(), f"China manager while closed after {where}"
    assert ((state.governor < 0) | (state.owner >= 0)).all(), f"a governor of a sovereign region after {where}"
    for army in range(L.PRESIDENCIES):  # R-COMMANDER: the commander is a family with the most officers there
        off = state.officers[:, :, army]
        cmd = state.commander[:, army]
        top = off.max(axis=1)
        assert ((cmd >= 0) == (top > 0)).all(), f"army {army} without a commander (or one without officers) {where}"
        led = off[np.arange(state.n_games), np.maximum(cmd, 0)]
        assert ((cmd < 0) | (led == top)).all(), f"army {army} commanded by a family without the most officers {where}"


def play_checked(rules, strategy, n_games, seed):
    ids = np.arange(n_games)
    streams = Streams(seed, ids, 1 + rules.players)
    dice = Dice(streams)
    agents = Agents(resolve_strategies(rules, strategy), rules, streams)
    state = new_state(rules, ids)
    setup(state, rules, dice, agents)
    check(state, rules, "setup")
    assert (state.capital_money.sum(axis=1) == rules.budget).all(), "starting capital must sum to B"
    for rnd in range(1, rules.game.rounds + 1):
        begin_round(state)
        for _, name, phase, _ in ROUND:
            finished = np.flatnonzero(state.done)
            frozen = state.take(finished)
            phase(state, rules, dice, agents)
            check(state, rules, f"round {rnd} {name}")
            after = state.take(finished)
            for field in ("money", "stability", "office", "shares", "balance", "order_open"):
                assert np.array_equal(getattr(frozen, field), getattr(after, field)), f"{name} changed a done game"
        end_round(state, rules)
    end_game(state, rules, dice, agents)
    check(state, rules, "end")
    return state


@pytest.mark.parametrize("strategy", ["random", "balanced"])
def test_invariants_over_2000_games(strategy):
    rules = Rules.default(5)
    state = play_checked(rules, strategy, n_games(2000, 200), seed=11)
    assert state.done.all()
    assert ((state.end_round >= 1) & (state.end_round <= rules.game.rounds)).all()
    # games end by a crash or after round 7, and both happen
    assert (state.crashed | (state.end_round == rules.game.rounds)).all()
    if strategy == "balanced":
        assert 0 < state.crashed.mean() < 1


@pytest.mark.parametrize("players", [4, 6])
def test_invariants_other_player_counts(players):
    rules = Rules.default(players)
    for strategy in ("random", "balanced"):
        play_checked(rules, strategy, n_games(400, 60), seed=players)


def test_frames_hold_the_invariants():
    rules = Rules.default(5)
    n = n_games(1000, 150)
    res = sim.play(rules, ["random", "balanced", "random", "balanced", "balanced"], n, seed=5)
    seats, games, rounds, seat_rounds = res.seats, res.games, res.rounds, res.seat_rounds
    sources = [c for c in seats.columns if c.startswith("vp_")]
    assert len(sources) == 8
    assert (
        seats["vp"] - seats.select(pl.sum_horizontal(sources)).to_series()
    ).abs().max() < 1e-9  # vp == sum of sources
    assert seats.group_by("game").agg(pl.col("starting_capital").sum())["starting_capital"].eq(30).all()
    assert rounds["stability"].is_between(0, 7).all()
    # crashed <=> stability reached 0: a crashed game's last round is at 0 and no earlier round is
    last = rounds.group_by("game").agg(pl.col("stability").last(), pl.col("round").max())
    joined = games.join(last, on="game", suffix="_last")
    assert (joined["crashed"] == (joined["stability_last"] == 0)).all()
    assert (joined["end_round"] == joined["round"]).all()
    assert rounds.filter(pl.col("stability") == 0).height == games["crashed"].sum()
    people = ["supply", "clerks", "officers", "academy", "exchange", "retired", "shares", "offices", "governors"]
    assert seat_rounds.select(pl.sum_horizontal(people)).to_series().eq(12).all()
    assert (seat_rounds["money"] >= 0).all()
    assert games.height == n and seats.height == 5 * n
    assert (games["winner_seat"] >= 0).all()
