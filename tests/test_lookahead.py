"""The ``lookahead`` seat (``strategies/lookahead.py``, ``sim/lookahead.py``): it picks what its copies of the game
say wins most, its copies never see its game's future, and a game with a searching seat plays the same in any batch."""

import numpy as np
import polars as pl
import pytest

import sim
import strategies
from sim import engine
from sim.dice import Streams
from sim.forward import redeal
from sim.lookahead import Planner, Search
from sim.results import Results
from sim.rules import Rules
from strategies.base import StrategyParameterError
from tests.helpers import games

SMALL = "lookahead:rollouts=2,portfolio=balanced+bid_low+go_military"


def rotated(rules: Rules, made: list, ids: np.ndarray) -> np.ndarray:
    """The searching strategy (index 0) in seat ``game % N``, the others elsewhere."""
    n = rules.players
    seating = np.ones((ids.size, n), dtype=np.int64)
    seating[np.arange(ids.size), ids % n] = 0
    return seating


def played(rules: Rules, spec: str, ids: np.ndarray, seed: int = 3) -> Results:
    made = [strategies.make(spec), strategies.make("balanced")]
    return Results.from_batches([engine.play_batch(rules, made, seed, ids, rotated(rules, made, ids))[1]], {})


def test_lookahead_parameters_and_its_search():
    la = strategies.make("lookahead:base=run_firm,portfolio=bid_low run_firm,rollouts=3,setup=false")
    search = la.lookahead
    assert isinstance(search, Search) and search.rollouts == 3 and not search.setup
    assert search.base.name == "run_firm" and [c.name for c in search.candidates] == ["bid_low", "run_firm"]
    assert la.label == "lookahead(base=run_firm, portfolio=bid_low run_firm, rollouts=3, setup=False)"
    tuned = strategies.make("lookahead:portfolio=bid_low:max_bid=3+balanced").lookahead.candidates
    assert [c.label for c in tuned] == ["bid_low(max_bid=3)", "balanced"]
    for spec, why in (
        ("lookahead:base=nobody", "parameter 'base': unknown strategy 'nobody'"),
        ("lookahead:portfolio=balanced lookahead", "'lookahead' searches itself"),
        ("lookahead:portfolio= ", "names no strategy"),
        ("lookahead:portfolio=bid_low:max_bid=-1", "parameter 'portfolio': strategy 'bid_low' parameter 'max_bid'"),
        ("lookahead:rollouts=0", "expected 1..4096"),
    ):
        with pytest.raises(StrategyParameterError, match=why):
            strategies.make(spec)


def test_the_frames_say_what_a_searching_seat_played_each_round():
    rules = Rules.default(5)
    ids = np.arange(10, dtype=np.int64)
    res = played(rules, SMALL, ids)
    rows = res.seat_rounds.join(res.seats.select("game", "seat", "strategy"), on=["game", "seat"])
    others = rows.filter(pl.col("strategy") == "balanced")
    assert (others["plan"] == "balanced").all()
    mine = rows.filter(pl.col("strategy") != "balanced")
    assert mine.height == res.rounds.height  # one searching seat a game, every round it played
    assert set(mine["plan"]) <= {"balanced", "bid_low", "go_military"} and mine["plan"].n_unique() >= 2


def test_a_searching_seat_plays_the_candidate_that_wins_most_then_by_margin():
    rules = Rules.default(4)
    planner = Planner(rules, [strategies.make("lookahead:portfolio=balanced bid_low run_firm")], 1)
    wins = np.array([[3, 5, 5], [2, 2, 2], [0, 0, 1], [4, 4, 0]])
    margin = np.array([[9.0, -1.0, 2.0], [1.0, 1.0, 0.5], [5.0, 5.0, -9.0], [0.0, 0.0, 0.0]])
    planner.outcomes = lambda *args: (wins, margin)
    assert planner.pick(None, 0, np.arange(4), np.zeros(4, dtype=np.int64)).tolist() == [2, 0, 2, 0]


def test_every_candidate_plays_the_same_continuations():
    """Common random numbers: two copies of one strategy in the portfolio win the same rollouts by the same margins,
    and a strategy that plays differently does not."""
    rules = Rules.default(5)
    spec = "lookahead:rollouts=3,portfolio=balanced go_military balanced"
    ids = np.arange(6, dtype=np.int64)
    made = [strategies.make(spec), strategies.make("balanced")]
    planner = Planner(rules, made, 9)
    t = engine.Table(rules, planner.strategies, 9, ids, rotated(rules, made, ids))
    t.setup()
    t.play_round()
    games_, seat = np.nonzero(t.seats() == 0)
    won, margin = planner.rollouts(t, 0, games_, seat)
    margin = margin.reshape(ids.size, 3, 3)
    assert np.array_equal(margin[:, 0], margin[:, 2])
    assert not np.array_equal(margin[:, 0], margin[:, 1])
    assert np.array_equal(won.reshape(ids.size, 3, 3)[:, 0], won.reshape(ids.size, 3, 3)[:, 2])


def test_a_searching_seat_never_sees_its_games_future():
    """What the search finds depends on the public position alone: changing the game's own dice to come and the
    hidden orders of its piles (the event tiles, the law deck, the position cards) changes none of its rollouts."""
    rules = Rules.default(5)
    ids = np.arange(8, dtype=np.int64)
    made = [strategies.make(SMALL), strategies.make("balanced")]
    planner = Planner(rules, made, 4)
    found = []
    for future in range(2):
        t = engine.Table(rules, planner.strategies, 4, ids, rotated(rules, made, ids))
        t.setup()
        t.play_round()
        t.play_round()
        if future:  # another future: the game's own streams rekeyed, its hidden piles in another order
            t.streams.keys[:] = Streams.derived(77, ids, t.streams.keys.shape[0], 1).keys
            before = t.state.take(np.arange(ids.size))
            redeal(t.state, rules, Streams.derived(77, ids, 1, 2))
            assert not np.array_equal(before.event_stack, t.state.event_stack)
            assert not np.array_equal(before.deck, t.state.deck)
        games_, seat = np.nonzero(t.seats() == 0)
        found.append(planner.rollouts(t, 0, games_, seat))
    assert np.array_equal(found[0][0], found[1][0]) and np.array_equal(found[0][1], found[1][1])


def test_a_game_with_a_searching_seat_plays_the_same_in_any_batch():
    rules = Rules.default(5)
    n = games(12, 6)
    whole = played(rules, SMALL, np.arange(n, dtype=np.int64))
    for size in (1, 5):
        parts = [
            engine.play_batch(
                rules,
                made := [strategies.make(SMALL), strategies.make("balanced")],
                3,
                ids := np.arange(lo, min(lo + size, n), dtype=np.int64),
                rotated(rules, made, ids),
            )[1]
            for lo in range(0, n, size)
        ]
        alone = Results.from_batches(parts, {})
        for name, frame in whole.frames().items():
            assert frame.equals(alone.frames()[name]), (size, name)


def test_sim_play_seats_a_searching_strategy_by_name():
    rules = Rules.default(4)
    res = sim.play(rules, [SMALL, "balanced", "balanced", "balanced"], 4, seed=2)
    assert res.seats.filter(pl.col("seat") == 0)["strategy"].unique().to_list() == [strategies.make(SMALL).label]


def test_a_run_with_a_searching_seat_gives_the_same_files_in_any_shards_or_jobs(tmp_path):
    """The runner's shards and workers: a run's frames are the same bytes with one job and shards of 7 games as with
    two jobs and one shard."""
    from experiments import runner, spec

    (tmp_path / "exp.toml").write_text(
        'name = "s"\ngames = 12\nseed = 4\nplayers = 4\n'
        'strategies = [{ name = "lookahead", rollouts = 2, portfolio = "balanced go_military" }, "balanced"]\n'
    )
    runner.run(spec.load(tmp_path / "exp.toml"), tmp_path / "a", jobs=1, shard_size=7)
    runner.run(spec.load(tmp_path / "exp.toml"), tmp_path / "b", jobs=2, shard_size=12)
    for frame in ("games", "seats", "rounds", "seat_rounds"):
        a, b = (tmp_path / x / f"{frame}.parquet" for x in "ab")
        assert a.read_bytes() == b.read_bytes(), frame
    plans = pl.read_parquet(tmp_path / "a" / "seat_rounds.parquet")["plan"].unique().to_list()
    assert {"balanced", "go_military"} & set(plans) and "lookahead" not in plans


def test_a_tune_may_search_the_searching_seats_parameters(tmp_path):
    from experiments import search, spec

    text = (
        'name = "t"\nplayers = 4\ngames = 20\nseed = 1\nstrategies = ["lookahead", "balanced"]\n\n'
        '[tune]\nobjective = "win_rate"\nstrategy = "lookahead"\ntarget = "max"\ntrials = 2\n\n[tune.params]\n'
        '"lookahead:rollouts" = { low = 1, high = 4, int = true }\n'
        '"lookahead:base" = { choices = ["balanced", "run_firm"] }\n'
    )
    (tmp_path / "t.toml").write_text(text)
    assert spec.check_file(tmp_path / "t.toml") == []
    bad = text.replace("high = 4", "high = 5000")
    (tmp_path / "bad.toml").write_text(bad)
    problems = spec.check_file(tmp_path / "bad.toml")
    assert len(problems) == 1 and "lookahead:rollouts" in problems[0] and "4096" in problems[0]
    assert search.is_strategy_key("lookahead:rollouts")
