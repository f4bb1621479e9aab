"""The forward model (``sim.engine.Table``): a batch that steps and forks; what a fork may know (``sim.forward``).

A fork with the games' own streams plays exactly what the games play straight through; a fork made for a search
redeals every hidden pile (``sim.agents.HIDDEN``) and nothing else, keeps what is public about them, and deals the
same whatever the hidden order it replaces."""

from dataclasses import fields

import numpy as np
import pytest

import strategies
from sim import engine
from sim.agents import HIDDEN, PUBLIC, RECORDS, SEALED
from sim.dice import Streams
from sim.forward import redeal
from sim.laws import DECK
from sim.rules import Rules
from sim.state import State
from tests.helpers import games

MIX = ["bid_low", "buy_shares", "run_firm", "go_military", "balanced"]
SCRATCH = engine.SCRATCH


def table(rules: Rules, n: int, seed: int = 11, names=MIX) -> engine.Table:
    made = [strategies.make(x) for x in names]
    ids = np.arange(100, 100 + n, dtype=np.int64)
    seating = (np.arange(rules.players)[None, :] + ids[:, None]) % len(made)
    return engine.Table(rules, made, seed, ids, seating)


def play_to(t: engine.Table, step: int) -> engine.Table:
    """``t`` played up to the start of ``step`` (0: before setup)."""
    if step >= 1:
        t.setup()
    while t.playing and t.next_round < step:
        t.play_round()
    return t


def play_out(t: engine.Table) -> State:
    if t.next_round == 0:
        t.setup()
    while t.playing:
        t.play_round()
    return t.finish()[0]


def differing(a: State, b: State) -> dict[str, np.ndarray]:
    """Field -> bool[G] of the games where it differs."""
    out = {}
    for f in fields(State):
        x, y = getattr(a, f.name), getattr(b, f.name)
        diff = (x != y).reshape(x.shape[0], -1).any(axis=1) if x.ndim > 1 else x != y
        if diff.any():
            out[f.name] = diff
    return out


@pytest.mark.parametrize("step", [0, 1, 3, 6])
def test_a_fork_with_the_games_own_streams_plays_as_the_games_play_on(step):
    rules = Rules.default(5)
    n = games(160, 40)
    straight = play_out(table(rules, n))
    t = play_to(table(rules, n), step)
    live = np.flatnonzero(~t.state.done)
    assert live.size > n // 3  # most games still run: the fork plays something
    rows = np.repeat(live, 2)  # two copies of each running game
    fork = t.fork(rows)
    forked = play_out(fork)
    whole = t.rows[rows]  # the games' positions in the batch played straight through
    for copy in (0, 1):
        mine = forked.take(np.arange(copy, rows.size, 2))
        theirs = straight.take(whole[copy::2])
        diff = differing(mine, theirs)
        assert set(diff) <= SCRATCH, sorted(diff)
        for name, where in diff.items():  # per-round scratch differs only in games that ended before the last round
            assert (theirs.done[where] & (theirs.end_round[where] < rules.game.rounds)).all(), name
        assert engine.same_games(mine, theirs).all()
    assert straight.crashed[whole].any() and (straight.winner[whole] >= 0).all()


def test_a_table_steps_as_play_batch_plays():
    rules = Rules.default(4)
    t = table(rules, games(60, 20), names=["random", "balanced", "run_firm", "go_military"])
    ids, seating, made = t.whole[0].game.copy(), t.seating, t.strategies
    stepped = play_out(t)
    direct, _ = engine.play_batch(rules, made, 11, ids, seating)
    assert not differing(stepped, direct)
    with pytest.raises(engine.PlayError, match="no round is left"):
        t.play_round()


def test_every_state_field_is_public_hidden_sealed_or_a_record():
    names = {f.name for f in fields(State)}
    groups = [PUBLIC, HIDDEN, SEALED, RECORDS]
    assert set().union(*groups) == names
    assert sum(len(g) for g in groups) == len(names)  # each in one group only


def round_start(rules: Rules, step: int, n: int) -> engine.Table:
    return play_to(table(rules, n, seed=5), step)


@pytest.mark.parametrize("shuffle", ["discard_on_top", "all"])
def test_a_redeal_changes_every_hidden_field_and_nothing_else(shuffle):
    rules = Rules.default(5).with_overrides({"india.shuffle": shuffle})
    t = round_start(rules, 5, games(200, 60))
    before = t.state.take(np.arange(t.state.n_games))
    after = t.state.take(np.arange(t.state.n_games))
    redeal(after, rules, Streams.derived(1, after.game, 1, 5, 0, 0))
    diff = differing(before, after)
    assert set(diff) == set(HIDDEN), sorted(diff)
    for name in HIDDEN:  # in most games: every pile with two or more hidden entries is reordered
        assert diff[name].mean() > 0.5, name
    # what is public about the piles stays: the drawn tiles and cards where they were, which are left, the next back
    k = before.event_stack.shape[1]
    pos = np.arange(k)[None, :]
    drawn = pos < before.event_cursor[:, None]
    assert (np.where(drawn, before.event_stack, -1) == np.where(drawn, after.event_stack, -1)).all()
    dealt = before.event_cursor >= 0
    top = after.event_stack[np.arange(after.n_games), np.maximum(after.event_cursor, 0)]
    assert (rules.d.tile_region[top][dealt] == after.event_next[dealt]).all()
    parts = np.where(pos < np.maximum(before.event_block, before.event_cursor)[:, None], 0, 1) + 2 * drawn
    for part in (0, 1):  # the tiles above the Shuffle tile's cut and below it stay on their side
        a = np.sort(np.where(parts == part, before.event_stack, 99), axis=1)
        b = np.sort(np.where(parts == part, after.event_stack, 99), axis=1)
        assert (a == b).all()
    if shuffle == "discard_on_top":
        assert (before.event_block > before.event_cursor).any()  # some game's next tiles come from the upper part
    deck = before.law_pile == DECK
    assert ((after.law_rank >= 0) == (before.law_rank >= 0)).all()
    assert (after.law_rank[~deck] == before.law_rank[~deck]).all()
    d = before.deck.shape[1]
    taken = np.arange(d)[None, :] < before.deck_top[:, None]
    assert (np.where(taken, before.deck, -1) == np.where(taken, after.deck, -1)).all()
    assert (np.sort(before.deck, axis=1) == np.sort(after.deck, axis=1)).all()


def test_a_redeal_deals_the_same_whatever_hidden_order_it_replaces():
    rules = Rules.default(5)
    t = round_start(rules, 4, games(120, 40))
    one = t.state.take(np.arange(t.state.n_games))
    other = t.state.take(np.arange(t.state.n_games))
    redeal(other, rules, Streams.derived(8, other.game, 1, 99))  # another hidden order, as public as the first
    assert differing(one, other).keys() == HIDDEN
    for s in (one, other):
        redeal(s, rules, Streams.derived(1, s.game, 1, 4, 2, 0))
    assert not differing(one, other)


def test_a_fork_keeps_the_seating_and_reseats_on_its_own():
    rules = Rules.default(5)
    t = round_start(rules, 2, games(30, 12))
    seated = [t.strategies[i].label for i in t.seats()[:4, 0]]
    assert t.agents.labels(t.state.n_games)[:4, 0].tolist() == seated
    fork = t.fork(np.arange(4))
    assert fork.agents.labels(4)[:, 0].tolist() == seated
    balanced = next(i for i, s in enumerate(t.strategies) if s.name == "balanced")
    fork.agents.reseat(np.arange(4), np.zeros(4, dtype=np.int64), np.full(4, balanced), 4)
    assert fork.agents.labels(4)[:, 0].tolist() == ["balanced"] * 4
    assert t.agents.labels(t.state.n_games)[:4, 0].tolist() == seated  # the table's seating is its own
    assert "balanced" not in seated
