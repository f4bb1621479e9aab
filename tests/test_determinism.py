"""Same seed -> identical frames, whatever the batch size or the shard a game is played in."""

import numpy as np
import polars as pl
import pytest

import sim
import strategies
from sim.dice import Dice, Streams
from sim.engine import same_games
from sim.rules import Rules
from sim.state import State

MIXED = ["random", "balanced", "random", "balanced", "random"]


def same(a: sim.Results, b: sim.Results) -> bool:
    return all(a.frames()[k].equals(b.frames()[k]) for k in a.frames())


def test_same_seed_identical_frames():
    r = Rules.default()
    a = sim.play(r, MIXED, 200, seed=42)
    b = sim.play(r, MIXED, 200, seed=42)
    assert same(a, b)
    c = sim.play(r, MIXED, 200, seed=43)
    assert not a.games.equals(c.games)


def test_batch_size_does_not_change_any_row():
    r = Rules.default()
    small = sim.play(r, MIXED, 40, seed=7, batch_size=1)
    big = sim.play(r, MIXED, 40, seed=7, batch_size=512)
    odd = sim.play(r, MIXED, 40, seed=7, batch_size=13)
    assert same(small, big) and same(big, odd)


def test_a_shard_gives_the_rows_of_the_whole_run():
    r = Rules.default()
    whole = sim.play(r, MIXED, 300, seed=9)
    shard = sim.play(r, MIXED, 100, seed=9, first_game=100)
    for name, frame in whole.frames().items():
        inside = frame.filter(pl.col("game").is_between(100, 199))
        assert inside.equals(shard.frames()[name]), name


def test_a_game_sees_the_same_dice_in_any_batch():
    ids_a, ids_b = np.arange(0, 50), np.arange(40, 45)
    a = Dice(Streams(3, ids_a, 1)).d6(np.arange(50), 20)
    b = Dice(Streams(3, ids_b, 1)).d6(np.arange(5), 20)
    assert np.array_equal(a[40:45], b)
    # a game that draws less consumes less: its next draws are unaffected by the others
    dice = Dice(Streams(3, ids_b, 1))
    first = dice.d6(np.arange(5), 4, used=np.array([1, 4, 0, 2, 3]))
    nxt = dice.d6(np.arange(5), 1)[:, 0]
    assert nxt.tolist() == [first[0, 1], b[1, 4], b[2, 0], b[3, 2], b[4, 3]]


def test_rule_variants_share_dice_common_random_numbers():
    """Arms differing only in rules see the same dice for game g: the setup's capital draws line up."""
    r = Rules.default()
    a = sim.play(r, "balanced", 50, seed=4)
    b = sim.play(r.with_overrides({"capital.formula": "flat"}), "balanced", 50, seed=4)
    assert a.seats["bid_total"].equals(b.seats["bid_total"])  # same strategy streams -> same bids
    assert not a.seats["capital_exact"].equals(b.seats["capital_exact"])


@pytest.mark.parametrize("players", [4, 6])
def test_determinism_other_player_counts(players):
    r = Rules.default(players)
    assert same(sim.play(r, "random", 30, seed=1, batch_size=7), sim.play(r, "random", 30, seed=1))


# ------------------------------------------------------------------ a game is a function of its index alone
ARCHETYPES = ["bid_low", "buy_shares", "run_firm", "go_military", "balanced"]
TABLES = {  # name -> (players, strategies rotated over the seats, rules overrides)
    "mixed-5": (5, ["balanced", "random"], {}),
    "archetypes-5": (5, ARCHETYPES, {}),
    "random-4": (4, ["random"], {}),
    "archetypes-6": (6, ARCHETYPES, {}),
    "house-firms": (5, ["run_firm", "balanced", "random"], {"deregulation.forced_round": 1}),
    "jc2e-firms": (5, ["run_firm", "random", "buy_shares"], {"deregulation.forced_round": 1, "firms.variant": "jc2e"}),
}


def _rows(table: str, seed: int, ids: np.ndarray) -> tuple[dict[str, pl.DataFrame], State]:
    """The frames and the final state of games ``ids`` played together as one batch, seats rotated as the runner
    does (game i plays rotation i % k)."""
    players, names, overrides = TABLES[table]
    rules = Rules.default(players).with_overrides(overrides)
    seating = (np.arange(players)[None, :] + ids[:, None]) % len(names)
    state, rows = sim.play_batch(rules, [strategies.make(name) for name in names], seed, ids, seating)
    return sim.Results.from_batches([rows], {}).frames(), state


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("table", list(TABLES))
def test_a_game_plays_the_same_whatever_the_other_games_of_its_batch(table, seed):
    """Each game's play is a function of (rules, strategies, seed, game index) alone: games 0..299 played as one
    batch of 300 give the rows of the same games played in batches of 100 and 7, and alone (batch 1), and the
    first games where a firm is still managed at the end are among those checked alone."""
    ids = np.arange(300)
    whole, final = _rows(table, seed, ids)
    firm_games = whole["seats"].filter(pl.col("firms_managed") > 0)["game"].unique().sort().to_list()
    alone = sorted({0, 299, *firm_games[:3]})
    parts = [np.arange(100, 200), np.arange(150, 157), np.array([5, 42, 260]), *[np.array([g]) for g in alone]]
    for part in parts:
        got, state = _rows(table, seed, part)
        for name, frame in whole.items():
            inside = frame.filter(pl.col("game").is_in(part.tolist()))
            assert inside.equals(got[name]), f"{name}: games {part[:3].tolist()}… differ in a batch of {part.size}"
        # and every field of the final state, the per-round scratch of crashed games aside (engine.same_games)
        assert same_games(final.take(part), state).all(), f"games {part[:3].tolist()}… end otherwise"
