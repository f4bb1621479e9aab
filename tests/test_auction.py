"""R-AUCTION with programmable bids (L3-L10), D-ALLOC, D-EXTRA, D-LOTS, D-BIDSUM, and the whole setup."""

import numpy as np
import pytest
from helpers import Scripted, agents, blank, dice

from sim import capital
from sim import layout as L
from sim.dice import Dice, Streams
from sim.phases.setup import run_auction, setup, starting_capital
from sim.rules import Rules

# each rule played on both engine paths, the numpy reference and the compiled kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")


def empty_bids(rules, games=1):
    shape = (games, rules.players, len(rules.d.lot_names))
    return np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64)


def auction(rules, base, step, cap, uniforms=None):
    g = base.shape[0]
    return run_auction(base, step, cap, rules, dice(uniforms=uniforms), np.arange(g))


def test_tie_settled_by_programs_l5_l6():
    """L5 'bid 5, on a tie raise to 10 in steps of 1' beats L6 'bid 5, on a tie pass at once': he pays 6."""
    r = Rules.default(4)
    base, step, cap = empty_bids(r)
    base[0, 0, 0], step[0, 0, 0], cap[0, 0, 0] = 5, 1, 10
    base[0, 1, 0], step[0, 1, 0], cap[0, 1, 0] = 5, 0, 0
    winner, price, final = auction(r, base, step, cap)
    assert winner[0, 0] == 0 and price[0, 0] == 6
    assert final[0, 0, 0] == 6 and final[0, 1, 0] == 5


def test_tie_settled_by_programs_l7():
    """L7 'bid 5, raise by 10 up to 25' (15, then 25) against 'raise to 10 by 1': the first wins at 15."""
    r = Rules.default(4)
    base, step, cap = empty_bids(r)
    base[0, 2, 3], step[0, 2, 3], cap[0, 2, 3] = 5, 10, 25
    base[0, 3, 3], step[0, 3, 3], cap[0, 3, 3] = 5, 1, 10
    winner, price, final = auction(r, base, step, cap)
    assert winner[0, 3] == 2 and price[0, 3] == 15
    assert final[0, 3, 3] == 10  # the loser raised all the way to his cap


def test_unresolved_tie_is_random():
    r = Rules.default(4)
    base, step, cap = empty_bids(r)
    base[:, 1, 0] = base[:, 3, 0] = 7  # same bid, both pass at once
    # greedy tie on lot 0 between seats 1 and 3: the scripted uniform picks the first (0.0) or the second (0.9)
    first, _, _ = auction(r, base, step, cap, uniforms={0: [0.0] * 5 + [0.0]})
    second, _, _ = auction(r, base, step, cap, uniforms={0: [0.0] * 5 + [0.9]})
    assert first[0, 0] == 1 and second[0, 0] == 3


def test_greedy_skips_families_that_have_four_lots():
    """D-ALLOC: seat 0 bids highest on every lot but can take only four; the next highest bids win the rest."""
    r = Rules.default(4)
    base, step, cap = empty_bids(r)
    n_lots = base.shape[2]
    base[0, 0, :] = 50 + np.arange(n_lots)  # strictly highest everywhere, higher on later lots
    base[0, 1, :] = 10
    winner, price, _ = auction(r, base, step, cap)
    won = [(winner[0] == s).sum() for s in range(4)]
    assert won == [4, 4, 4, 4]
    main = np.flatnonzero(~r.d.lot_extra)
    top4 = sorted(np.argsort(-np.where(winner[0] >= 0, base[0, 0], -1))[:4])
    assert (winner[0, top4] == 0).all()  # seat 0 took its four highest bids
    assert (price[0, top4] == base[0, 0, top4]).all()
    assert set(main) <= set(np.flatnonzero(winner[0] >= 0))


def test_extra_lots_with_the_highest_top_bids_are_played():
    """D-EXTRA: 4 players -> 5 additional lots offered, the 2 with the highest top bids played."""
    r = Rules.default(4)
    base, step, cap = empty_bids(r)
    extra = np.flatnonzero(r.d.lot_extra)
    base[0, 0, extra[1]] = 3
    base[0, 2, extra[4]] = 9
    base[0, 3, extra[0]] = 1
    winner, _, _ = auction(r, base, step, cap)
    played = np.flatnonzero(winner[0, extra] >= 0)
    assert played.tolist() == [1, 4]
    assert winner[0, extra[4]] == 2 and winner[0, extra[1]] == 0


@pytest.mark.parametrize("players", [4, 5, 6])
def test_every_family_ends_with_four_lots(players):
    r = Rules.default(players)
    g = 300
    rng = np.random.default_rng(players)
    shape = (g, players, len(r.d.lot_names))
    base = rng.integers(0, 6, size=shape) * (rng.random(shape) < 0.5)
    step = rng.integers(0, 3, size=shape)
    cap = base + rng.integers(0, 5, size=shape)
    winner, price, final = run_auction(base, step, cap, r, Dice(Streams(1, np.arange(g), 1)), np.arange(g))
    counts = np.stack([(winner == s).sum(axis=1) for s in range(players)], axis=1)
    assert (counts == 4).all()
    assert ((winner >= 0).sum(axis=1) == 4 * players).all()
    assert (final >= base).all() and (final <= np.maximum(cap, base)).all()
    # a won lot's price is the winner's final value
    rows, lots = np.nonzero(winner >= 0)
    assert (price[rows, lots] == final[rows, winner[rows, lots], lots]).all()


def test_bid_sum_all_versus_won():
    """D-BIDSUM: 'all' counts every final bid value, 'won' only the prices of lots won."""
    r = Rules.default(4)
    base, step, cap = empty_bids(r)
    base[0, 0, 0], base[0, 1, 0] = 9, 4  # seat 0 wins lot 0 at 9; seat 1's lost bid of 4 counts under 'all'
    winner, price, final = auction(r, base, step, cap)
    for mode, expected in (("all", [9, 4, 0, 0]), ("won", [9, 0, 0, 0])):
        rules = r.with_overrides({"capital.bid_sum": mode})
        _, state = blank(1, 4, rules)
        starting_capital(state, rules, dice(), winner, price, final)
        assert state.bid_total[0].tolist() == expected
        assert state.capital_money.sum() == rules.budget


def test_leftover_goes_to_the_family_with_the_two_cheapest_lots():
    """R-CAPITAL leftover, through the auction: seat 2 takes the cheapest lots; the others bid 20 elsewhere."""
    r = Rules.default(5)
    base, step, cap = empty_bids(r)
    base[0, :, 2:] = 20
    base[0, 2, :] = 0
    base[0, 2, 0] = base[0, 2, 1] = 1
    winner, price, final = auction(r, base, step, cap)
    assert winner[0, 0] == winner[0, 1] == 2 and price[0, 0] == price[0, 1] == 1
    assert (winner[0] == 2).sum() == 4 and price[0][winner[0] == 2].max() <= 1
    _, state = blank(1, 5, r)
    starting_capital(state, r, dice(), winner, price, final)
    short = r.budget - capital.round_capital(state.capital_exact, r).sum()
    assert short == 3 and state.leftover[0, 2] == 3 and state.leftover_case[0] == capital.TWO_LOWEST
    assert state.capital_money.sum() == r.budget


def test_setup_places_lots_and_relatives():
    """After setup every office of the catalogue is held, four lots per family, relatives conserved."""
    r, state = blank(50, 5)
    setup(state, r, Dice(Streams(3, state.game, 6)), agents(r, state))
    for office in (L.CHAIRMAN, L.DIRECTOR, L.SHIPPING, L.MILITARY, *L.PRESIDENT):
        assert (state.office[:, office] >= 0).all()
    assert (state.prime_minister >= 0).all()
    assert (state.relatives() == 12).all()
    assert (state.capital_money.sum(axis=1) == 30).all() and (state.money == state.capital_money).all()
    assert (state.last_chair == state.office[:, L.CHAIRMAN]).all()
    assert (state.shares.sum(axis=1) == 4).all()  # four share lots for 5 players


def test_bids_must_be_non_negative():
    r, state = blank(2, 4)
    bad = Scripted(bid=lambda obs, legal: tuple(-np.ones((obs.n, 19), dtype=int) for _ in range(3)))
    from sim.agents import IllegalDecision

    with pytest.raises(IllegalDecision, match=r"strategy 'scripted' \(seat 0\) made an illegal 'bid' in game 0"):
        setup(state, r, dice(), agents(r, state, bad))


def test_equal_bids_on_two_lots_go_in_catalogue_or_random_order():
    """D-ALLOC lot_ties: seat 0 has room for one more lot and bids 9 on lots 2 and 5."""
    r = Rules.default(4)
    base, step, cap = empty_bids(r)
    base[0, 0, [0, 1, 4]] = 20
    base[0, 0, [2, 5]] = 9
    # seat 0 wins lots 0, 1, 4 at 20, then one of lots 2 and 5 at 9
    winner, _, _ = auction(r, base, step, cap)
    assert winner[0, 2] == 0 and winner[0, 5] != 0
    rnd = r.with_overrides({"auction.lot_ties": "random"})
    # the random lot order draws one uniform per lot after the 5 for the additional lots: lot 5 first
    u = [0.0] * 5 + [0.1] * len(r.d.lot_names)
    u[5 + 5] = 0.9
    winner, _, _ = auction(rnd, base, step, cap, uniforms={0: u})
    assert winner[0, 5] == 0 and winner[0, 2] != 0
