"""Chance and the engine's plumbing: the dice's distributions and keys, the chance functions, the
strategies' random streams, the test double itself, the engine's loop helpers and the capital-formula registry."""

import dataclasses
import subprocess
import sys

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, dice, give, seat_office

import sim
from sim import capital
from sim.agents import StrategyRandom
from sim.board import committee_vacancies, company_ships, vacate, vacate_governor
from sim.dice import Dice, ScriptedDice, Streams, pick_with
from sim.engine import PlayError, begin_round, end_round, play_batch, resolve_strategies
from sim.rules import Rules
from sim.state import TALLY

# each rule played on both engine paths, the numpy reference and the compiled kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")


# ------------------------------------------------------------------------------------------------------ dice
def test_d6_is_uniform_on_one_to_six():
    faces = Dice(Streams(1, np.arange(20000), 1)).d6(np.arange(20000), 3)
    counts = np.bincount(faces.ravel(), minlength=8)
    assert counts[0] == 0 and counts[7] == 0
    assert np.allclose(counts[1:7] / faces.size, 1 / 6, atol=0.006)


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_lowest_of_k_dice_has_the_exact_distribution(k):
    """D-CHECK: P(lowest = f) = ((7 - f)^k - (6 - f)^k) / 6^k."""
    n = 60000
    got = Dice(Streams(2, np.arange(n), 1)).lowest(np.arange(n), np.full(n, k))
    freq = np.bincount(got, minlength=7)[1:] / n
    want = np.array([((7 - f) ** k - (6 - f) ** k) / 6**k for f in range(1, 7)])
    assert np.allclose(freq, want, atol=0.006) and got.min() >= 1 and got.max() <= 6


def test_lowest_draws_one_number_per_game_whatever_k():
    d = Dice(Streams(3, np.arange(4), 1))
    d.lowest(np.arange(4), np.array([1, 5, 2, 9]))
    assert d.streams.counters[0].tolist() == [1, 1, 1, 1]


def test_streams_depend_on_the_seed_the_game_and_the_stream():
    a = Streams(1, np.arange(3), 2)
    assert not np.array_equal(a.uniform(0, np.arange(3), 4), Streams(2, np.arange(3), 2).uniform(0, np.arange(3), 4))
    b = Streams(1, np.arange(3), 2)
    u0, u1 = b.uniform(0, np.arange(3), 4), b.uniform(1, np.arange(3), 4)
    assert not np.array_equal(u0, u1) and not np.array_equal(u0[0], u0[1])
    assert ((u0 >= 0) & (u0 < 1)).all() and b.counters.tolist() == [[4, 4, 4], [4, 4, 4]]
    # drawing in two steps gives the same numbers as in one
    c = Streams(1, np.arange(3), 2)
    assert np.array_equal(np.concatenate([c.uniform(0, np.arange(3), 1), c.uniform(0, np.arange(3), 3)], 1), u0)


def test_a_forks_streams_are_keyed_by_the_game_and_its_tags_alone():
    """``Streams.derived``: a copy's streams depend on (seed, game, tags) — never equal to the game's own, the same
    for a game copied many times or alone, another for another tag."""
    ids = np.array([4, 4, 9])
    own = Streams(1, ids, 2).uniform(0, np.arange(3), 3)
    a = Streams.derived(1, ids, 2, 3, np.array([0, 0, 1])).uniform(0, np.arange(3), 3)
    assert np.array_equal(a[0], a[1]) and not np.array_equal(a[0], own[0])
    alone = Streams.derived(1, np.array([9]), 2, 3, 1).uniform(0, np.arange(1), 3)
    assert np.array_equal(alone[0], a[2])  # whatever else is copied beside it
    for other in ((2, ids, 2, 3, 0), (1, ids, 2, 4, 0), (1, ids, 2, 3, 1)):  # another seed, another first tag, ...
        assert not np.array_equal(Streams.derived(*other).uniform(0, np.arange(3), 3)[0], a[0])
    b = Streams.derived(1, ids, 2, 3, 0)
    assert not np.array_equal(b.uniform(0, np.arange(3), 3), b.uniform(1, np.arange(3), 3))  # its streams differ
    assert Streams.derived(1, ids, 2, 3, 0).counters.tolist() == [[0, 0, 0], [0, 0, 0]]  # from their first draw


def test_pick_with_takes_the_floor_u_count_th_true_entry():
    mask = np.array([[False, True, True, False, True], [False] * 5, [True] * 5, [True, False, False, False, False]])
    u = np.array([0.5, 0.3, 0.999999, 0.99])
    assert pick_with(u, mask).tolist() == [2, -1, 4, 0]
    assert pick_with(np.array([0.0, 0.34, 0.67]), np.ones((3, 3), bool)).tolist() == [0, 1, 2]


def test_weighted_draws_by_cumulative_probability():
    d = ScriptedDice(uniforms={0: [0.0], 1: [0.2499], 2: [0.25], 3: [0.9999], 4: [0.5]})
    got = d.weighted(np.arange(5), np.array([0.25, 0.25, 0.0, 0.5]))
    assert got.tolist() == [0, 0, 1, 3, 3]  # the zero-probability outcome is never drawn
    big = Dice(Streams(4, np.arange(30000), 1)).weighted(np.arange(30000), np.array([0.1, 0.6, 0.3]))
    assert np.allclose(np.bincount(big, minlength=3) / 30000, [0.1, 0.6, 0.3], atol=0.01)


def test_scripted_dice_the_test_double():
    d = ScriptedDice({0: [3, 5, 2], 1: [6]}, {1: [0.7]})
    assert d.lowest(np.array([0, 1]), np.array([2, 1])).tolist() == [3, 6]
    assert d.d6(np.array([0]), 2, used=np.array([1])).tolist() == [[2, 1]]
    assert d.uniform(np.array([1, 0]), 2).tolist() == [[0.7, 0.0], [0.0, 0.0]]
    assert d.log == [("lowest", 0, 2), ("lowest", 1, 1), ("d6", 0, 1), ("uniform", 1, 2), ("uniform", 0, 2)]
    assert d.rolls("lowest") == [2, 1] and d.rolls("lowest", 1) == [1] and d.rolls("uniform", 0) == [2]
    d.assert_spent()
    with pytest.raises(AssertionError, match="game 1: a die was rolled that the test did not script"):
        d.d6(np.array([1]))
    with pytest.raises(AssertionError, match="a check with 0 dice"):
        ScriptedDice({0: [1]}).lowest(np.array([0]), np.array([0]))
    left = ScriptedDice({0: [1, 4]})
    assert left.lowest(np.array([0]), 1).tolist() == [1] and left.unused() == {0: [4]}
    with pytest.raises(AssertionError, match=r"scripted faces never rolled: \{0: \[4\]\}"):
        left.assert_spent()


def test_scripted_dice_defaults():
    """The test double's defaults: a game without scripted uniforms draws 0.0, one die per call, and ``rolls`` lists the
    ``lowest`` checks of every game unless told a kind or a game."""
    d = ScriptedDice({0: [2]})
    assert d.uniform(np.array([0, 1])).tolist() == [[0.0], [0.0]]
    d.lowest(np.array([0]), 1)
    assert d.rolls() == [1] and d.rolls(game=0) == [1] and d.rolls("uniform") == [1, 1]


def test_the_dice_streams_are_pinned():
    """Golden values: a seed's dice are part of every published result (the guide: the same seed gives the same rows),
    so any change to the streams' keys or mixing must be deliberate and show here."""
    s = Streams(1, np.array([0, 7]), 2)
    assert s.keys.tolist() == [[7050277875871801770, 7449172787555378880], [16629767566454913622, 927777648138443623]]
    assert s.bits(1, np.array([0, 1]), 2).tolist() == [
        [8576454416156487779, 5419247533661785162],
        [13738912750531703486, 2545726564404770220],
    ]
    d = Dice(Streams(2, np.array([3, 9]), 1))
    assert d.d6(np.array([0, 1]), 4).tolist() == [[4, 5, 1, 6], [3, 4, 3, 3]]
    assert d.lowest(np.array([0, 1]), np.array([2, 3])).tolist() == [1, 1]
    assert np.allclose(d.uniform(np.array([0, 1]), 2), [[0.44843187180306476, 0.9665522972684779],
                                                        [0.9203768819656786, 0.2742786643937438]])  # fmt: skip


def test_each_chance_function_draws_one_number_per_game_by_default():
    """``d6``, ``uniform``, ``pick``, ``weighted`` and ``lowest`` (of 4 dice) each draw one number per game from the
    engine's stream by default: 5 in all."""
    d = Dice(Streams(3, np.arange(2), 1))
    assert d.d6(np.arange(2)).shape == (2, 1) and d.uniform(np.arange(2)).shape == (2, 1)
    d.pick(np.arange(2), np.ones((2, 3), bool))
    d.weighted(np.arange(2), np.array([0.5, 0.5]))
    d.lowest(np.arange(2), 4)
    assert d.streams.counters[0].tolist() == [5, 5]


def test_weighted_never_passes_the_last_outcome():
    """Probabilities whose float sum falls short of 1 and a uniform above it still give the last outcome."""
    d = ScriptedDice(uniforms={0: [0.99999999]})
    assert d.weighted(np.array([0]), np.array([0.5, 0.49999])).tolist() == [1]


# ------------------------------------------------------------------------------------------ strategies' streams
def test_strategy_random_streams_belong_to_the_deciding_seat():
    streams = Streams(5, np.arange(3), 4)
    rng = StrategyRandom(streams, np.array([0, 2]), np.array([1, 2]))
    u = rng.uniform(2)
    check = Streams(5, np.arange(3), 4)
    assert u[0].tolist() == check.uniform(2, np.array([0]), 2)[0].tolist()  # seat 1 -> stream 2
    assert u[1].tolist() == check.uniform(3, np.array([2]), 2)[0].tolist()  # seat 2 -> stream 3


def test_strategy_integers_are_inclusive_and_choice_picks_true_columns():
    n = 6000
    rng = StrategyRandom(Streams(6, np.arange(n), 2), np.arange(n), np.zeros(n, dtype=np.int64))
    x = rng.integers(np.full(n, -1), np.full(n, 2))
    assert set(np.unique(x).tolist()) == {-1, 0, 1, 2}
    assert np.allclose(np.bincount(x + 1) / n, 0.25, atol=0.03)
    mask = np.zeros((n, 4), bool)
    mask[:, [1, 3]] = True
    c = rng.choice(mask)
    assert set(np.unique(c).tolist()) == {1, 3} and abs((c == 1).mean() - 0.5) < 0.03


def test_strategy_random_draws_one_number_per_choice_and_integer():
    """A strategy's random stream draws one number per game for ``choice`` and one for ``integers``, from the deciding
    seat's stream (seat 0: stream 1), never from the engine's dice (stream 0)."""
    streams = Streams(8, np.arange(2), 2)
    rng = StrategyRandom(streams, np.arange(2), np.zeros(2, dtype=np.int64))
    rng.choice(np.ones((2, 3), bool))
    rng.integers(np.zeros(2, dtype=np.int64), np.full(2, 5))
    assert streams.counters[1].tolist() == [2, 2] and streams.counters[0].tolist() == [0, 0]


# ------------------------------------------------------------------------------------------------- the engine
def test_begin_and_end_round():
    r, s = blank(2, 4)
    s.tally[:] = 3
    s.order_filled[:] = True
    s.taxed[:] = 2
    s.deposed[:] = 1
    s.used_officers[:] = 2
    s.used_regiments[:] = 2
    begin_round(s)
    assert (s.tally == 0).all() and not s.order_filled.any() and (s.taxed == 0).all() and (s.deposed == 0).all()
    assert (s.used_officers == 0).all() and (s.used_regiments == 0).all()  # every troop may defend again
    s.ships[:, 0] = [2, 1]
    s.done[1] = True
    end_round(s, r)
    assert s.ships[:, 0].tolist() == [[0, 1], [2, 1]]  # leased ships sailed their round; a finished game is frozen
    assert s.round.tolist() == [2, 1]


def test_play_arguments():
    r = Rules.default(4)
    with pytest.raises(PlayError, match="^n_games and first_game must be >= 0$"):
        sim.play(r, "random", -1, seed=1)
    with pytest.raises(PlayError, match="^n_games and first_game must be >= 0$"):
        sim.play(r, "random", 1, seed=1, first_game=-1)
    with pytest.raises(PlayError, match="^batch_size must be >= 1$"):
        sim.play(r, "random", 1, seed=1, batch_size=-2)
    res = sim.play(r, "random", 5, seed=1, batch_size=2, first_game=7)
    assert res.games["game"].to_list() == [7, 8, 9, 10, 11] and res.meta["seed"] == 1
    assert res.meta["strategies"] == ["random"] * 4 and res.meta["rules_digest"] == r.digest()
    assert sim.play(r, "random", 0, seed=1).games.height == 0


def test_resolve_strategies_shares_instances_per_name():
    r = Rules.default(4)
    seats = resolve_strategies(r, ["random", "balanced", "random", "balanced"])
    assert seats[0] is seats[2] and seats[1] is seats[3] and seats[0] is not seats[1]
    mine = Scripted()
    seats = resolve_strategies(r, mine)
    assert all(x is mine for x in seats)
    from strategies import RandomStrategy, Strategy

    twice = ["random", "".join(["ran", "dom"]), "balanced", "balanced"]  # equal names, two string objects
    assert twice[0] is not twice[1]
    seats = resolve_strategies(r, twice)
    assert seats[0] is seats[1]  # a name is matched by its value, not by which string object carries it

    @dataclasses.dataclass
    class Equal(Strategy):  # a dataclass: equal instances compare ==, and it is unhashable
        name = "equal"

    a, b = Equal(), Equal()
    seats = resolve_strategies(r, [a, b, a, b])
    assert seats[0] is a and seats[1] is b and seats[2] is a and seats[3] is b  # instances by identity

    seats = resolve_strategies(r, [RandomStrategy, RandomStrategy, "random", mine])
    assert seats[0] is seats[1] and seats[2] is not seats[0] and seats[3] is mine


def test_the_engine_imports_none_of_its_plug_ins():
    """sim/ is the core: it resolves strategy names through the ``eastindia.strategies`` entry point, and playing
    objects (or benchmarking) never imports the ``strategies`` package by itself."""
    code = (
        "import sys, sim, sim.engine, sim.bench, sim.__main__\n"
        "assert not [m for m in sys.modules if m.split('.')[0] == 'strategies'], 'the engine imported strategies'\n"
        "r = sim.Rules.default(4)\n"
        "assert sim.play(r, 'random', 3, seed=1).games.height == 3  # a name: now the registry is loaded\n"
        "assert 'strategies' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_without_the_strategy_registry_a_name_is_refused_saying_how_to_install_it(monkeypatch):
    import sim.engine

    monkeypatch.setattr(sim.engine.importlib.metadata, "entry_points", lambda group: [])
    told = r"^no strategy registry is installed: install the project \(pip install -e \.\)$"
    with pytest.raises(PlayError, match=told):
        resolve_strategies(Rules.default(4), "random")


def test_play_numbers_games_from_zero_and_repeats_a_seed():
    """``sim.play`` numbers a run's games from 0; the same seed plays the same games again, another seed other games."""
    r = Rules.default(4)
    a = sim.play(r, "random", 3, seed=4)
    assert a.games["game"].to_list() == [0, 1, 2]
    assert a.games.equals(sim.play(r, "random", 3, seed=4).games)
    assert not a.seats.equals(sim.play(r, "random", 3, seed=5).seats)


def test_distinct_strategy_objects_keep_their_seats_and_seating_rotates_them():
    """Strategy objects given per seat keep their seats, and a batch's seating puts each object at the seats it names
    per game (game 0: ``two`` at seat 0, ``one`` elsewhere; game 1 the other way round): each object is asked only at
    its own seats."""
    r = Rules.default(4)
    one, two = Scripted(), Scripted()
    seats = resolve_strategies(r, [one, two, one, two])
    assert seats[0] is one and seats[1] is two and seats[2] is one
    one.name, two.name = "one", "two"
    seating = np.array([[1, 0, 0, 0], [0, 1, 1, 1]])
    _, rows = play_batch(r, [one, two], 2, np.arange(2), seating)
    assert rows.seats["strategy"].tolist() == ["two", "one", "one", "one", "one", "two", "two", "two"]
    bids = {(g, s) for games, seats_ in one.asked("bid") for g, s in zip(games, seats_, strict=True)}
    assert bids == {(0, 1), (0, 2), (0, 3), (1, 0)}


# ------------------------------------------------------------------------------------------------------ board
def test_money_in_game_counts_every_firm_treasury():
    """Families, the Company's balance and office treasuries, firms' cash and (jc2e) their India treasuries."""
    r, s = blank(1, 4)
    before = int(s.money_in_game()[0])
    s.firm_cash[0, 1] = 2
    s.firm_india[0, 0] = 7
    assert int(s.money_in_game()[0]) == before + 9


def test_committee_vacancies_count_only_offices_that_exist():
    r, s = blank(2, 4)
    s.china_open[1] = True
    assert committee_vacancies(s, r).tolist() == [7, 8]  # China counts when open; never the Governor-General
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.CHINA, 1, games=1)
    assert committee_vacancies(s, r).tolist() == [6, 6]


def test_vacate_sends_the_holder_home_and_counts_him_fired():
    r, s = blank(2, 4)
    seat_office(s, L.DIRECTOR, 2)
    s.stress[:, L.DIRECTOR] = 1
    vacate(s, np.array([1]), L.DIRECTOR)
    assert s.office[:, L.DIRECTOR].tolist() == [2, -1] and s.supply[:, 2].tolist() == [11, 12]
    assert s.stress[:, L.DIRECTOR].tolist() == [1, 0] and s.tally[:, TALLY["fired"]].tolist() == [0, 1]
    vacate(s, np.array([1]), L.DIRECTOR)  # nobody there: nothing happens
    assert s.tally[:, TALLY["fired"]].tolist() == [0, 1] and (s.relatives() == 12).all()
    s.governor[:, 3] = 1
    s.supply[:, 1] -= 1
    vacate_governor(s, np.array([0, 1]), np.array([3, 2]))
    assert s.governor[:, 3].tolist() == [-1, 1] and s.supply[:, 1].tolist() == [12, 11]
    assert s.tally[:, TALLY["fired"]].tolist() == [1, 1]


def test_company_ships_count_every_kind_per_location():
    r, s = blank(1, 4)
    s.ships[0, 1] = [2, 1]
    s.ships[0, 3, 1] = 1
    s.yard_ships[0, 2, 1] = 1
    s.yard_ships[0, 0, 3] = 2
    assert company_ships(s)[0].tolist() == [0, 4, 0, 3]


def test_vacate_a_seat_0_holder_adds_to_the_fired_tally():
    """``vacate`` sends a holder who is seat 0's relative home too, and adds him to the round's fired tally (2 -> 3)."""
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 0)
    s.tally[0, TALLY["fired"]] = 2
    vacate(s, np.array([0]), L.SHIPPING)
    assert s.office[0, L.SHIPPING] == -1 and s.supply[0, 0] == 12 and s.tally[0, TALLY["fired"]] == 3


# ------------------------------------------------------------------------------------------- capital registry
def test_a_registered_capital_formula_is_selectable_and_described():
    @capital.capital_formula("test-half")
    def half(bids, budget, rules):
        """First line describes it.

        More text."""
        return np.full(bids.shape, budget / bids.shape[1])

    @capital.capital_formula("test-undocumented")
    def bare(bids, budget, rules):
        return np.full(bids.shape, budget / bids.shape[1])

    try:
        assert capital.FORMULAS["test-half"] is half and capital.FORMULA_DOCS["test-half"] == "First line describes it."
        assert capital.FORMULA_DOCS["test-undocumented"] == ""
        r = Rules.default(4).with_overrides({"capital.formula": "test-half"})
        assert np.allclose(capital.exact_capital(np.array([[1, 2, 3, 4]]), r), 6.0)
    finally:
        for name in ("test-half", "test-undocumented"):
            capital.FORMULAS.pop(name)
            capital.FORMULA_DOCS.pop(name)


def test_observation_and_agents_helpers():
    r, s = blank(2, 4)
    give(s, "shares", 1, 2)
    seen = {}

    def take_loans(obs, legal):
        seen["is_me"] = obs.is_me(obs.office).tolist()
        seen["mine"] = obs.mine(obs.shares).tolist()
        seen["games"] = obs.games.tolist()
        return np.zeros(obs.n, dtype=np.int64)

    seat_office(s, L.CHAIRMAN, 1, games=0)
    seat_office(s, L.CHAIRMAN, 3, games=1)
    from sim.phases.operations import chairman

    chairman(s, r, dice(), agents(r, s, Scripted(take_loans=take_loans)))
    assert seen["games"] == [0, 1] and seen["mine"] == [2, 0]
    assert seen["is_me"][0][0] and seen["is_me"][1][0] and not any(seen["is_me"][0][1:])
