"""R-CAPITAL: formulas, the 0.7 rounding, leftover coins (D-S0, D-LEFTOVER-NEG, D-LEFTOVER-TIE), each game of a batch
settled on its own."""

import numpy as np
import pytest
from helpers import blank, dice

from sim import capital
from sim.phases.setup import starting_capital
from sim.rules import Rules


def seed_example():
    return np.array([[50, 35, 20, 0, 0]])


def test_seed_worked_example_inverse_share():
    """L23-L45: bids 50/35/20/0/0, B=30 -> 3.9/5.0/6.1/7.5/7.5 -> 4/5/6/7/7 and one coin left over."""
    r = Rules.default(5)
    exact = capital.exact_capital(seed_example(), r)
    assert np.allclose(exact, [[30 * 55 / 420, 30 * 70 / 420, 30 * 85 / 420, 7.5, 7.5]])
    rounded = capital.round_capital(exact, r)
    assert rounded.tolist() == [[4, 5, 6, 7, 7]]
    assert r.budget - rounded.sum() == 1
    # the coin goes to the family that took the two lowest-priced lots ...
    money, received, case = capital.settle(exact, rounded, np.array([[3, 3]]), r)
    assert money.tolist() == [[4, 5, 6, 8, 7]] and received.tolist() == [[0, 0, 0, 1, 0]]
    assert case.tolist() == [capital.TWO_LOWEST]
    # ... or, when two families took them, to the one that took the single lowest
    money, received, case = capital.settle(exact, rounded, np.array([[4, 3]]), r)
    assert money.tolist() == [[4, 5, 6, 7, 8]] and case.tolist() == [capital.LOWEST]


def test_rounding_threshold_is_point_seven():
    r = Rules.default()
    x = np.array([[3.69, 3.7, 3.71, 5.0, 0.99999999]])
    assert capital.round_capital(x, r).tolist() == [[3, 4, 4, 5, 1]]
    r2 = r.with_overrides({"capital.round_up_from": 0.5})
    assert capital.round_capital(np.array([[3.5, 3.49]]), r2).tolist() == [[4, 3]]


def test_nobody_bid_gives_everyone_b_over_n():
    """D-S0: S = 0 -> B/N each (30/5 = 6 exactly)."""
    r = Rules.default(5)
    exact = capital.exact_capital(np.zeros((1, 5)), r)
    assert np.allclose(exact, 6.0)
    r4 = Rules.default(4).with_overrides({"capital.budget_per_player": 5})  # B = 20 -> 5 each
    assert np.allclose(capital.exact_capital(np.zeros((2, 4)), r4), 5.0)


def test_flat_and_linear_formulas():
    r = Rules.default(5)
    flat = capital.exact_capital(seed_example(), r.with_overrides({"capital.formula": "flat"}))
    assert np.allclose(flat, 6.0)
    lin = capital.exact_capital(seed_example(), r.with_overrides({"capital.formula": "linear"}))
    # B/N - 0.1 * (s_i - mean 21): 3.1, 4.6, 6.1, 8.1, 8.1 (sum 30, none below 0)
    assert np.allclose(lin, [[3.1, 4.6, 6.1, 8.1, 8.1]])
    # a steep rate drives two families below 0: floored at 0 and the rest rescaled to B. Unfloored, the raw values
    # 6 - (s_i - 21) = -23, -8, 7, 27, 27 already sum to 30, so a formula without the floor returns them unchanged.
    steep_rules = r.with_overrides({"capital.formula": "linear", "capital.linear_rate": 1.0})
    steep = capital.exact_capital(seed_example(), steep_rules)
    assert np.allclose(steep, [[0.0, 0.0, 7 * 30 / 61, 27 * 30 / 61, 27 * 30 / 61]])


@pytest.mark.parametrize("formula", sorted(capital.FORMULAS))
def test_every_formula_shares_out_exactly_b(formula):
    r = Rules.default(6).with_overrides({"capital.formula": formula})
    bids = np.random.default_rng(1).integers(0, 60, size=(500, 6))
    exact = capital.exact_capital(bids, r)
    assert np.allclose(exact.sum(axis=1), 36.0) and (exact >= 0).all()


def test_excess_taken_back_from_the_largest_round_ups():
    """D-LEFTOVER-NEG: 4.7 x 5 rounds to 25 > B=24 ... build a case by hand: exact sums to B but rounds above."""
    r = Rules.default(4)  # B = 24
    exact = np.array([[5.7, 5.8, 5.75, 6.75]])  # sum 24.0, rounds to 6, 6, 6, 7 = 25
    rounded = capital.round_capital(exact, r)
    assert rounded.sum() == 25
    money, received, case = capital.settle(exact, rounded, np.array([[0, 0]]), r)
    assert money.sum() == 24 and case.tolist() == [capital.TAKEN_BACK]
    # the largest round-up was 5.7 -> 6 (+0.3): that family gives the coin back
    assert received.tolist() == [[-1, 0, 0, 0]]
    kept = r.with_overrides({"capital.excess": "keep"})
    money, received, case = capital.settle(exact, rounded, np.array([[0, 0]]), kept)
    assert money.sum() == 25 and case.tolist() == [capital.KEPT] and (received == 0).all()


def test_excess_of_several_coins_comes_from_different_families():
    """With round_up_from = 0.5 six families can round up by 3 coins in all; each coin from another family."""
    r = Rules.default(6).with_overrides({"capital.round_up_from": 0.5})  # B = 36
    exact = np.array([[5.5, 5.5, 5.5, 5.5, 5.5, 8.5]])
    rounded = capital.round_capital(exact, r)
    assert rounded.tolist() == [[6, 6, 6, 6, 6, 9]] and rounded.sum() == 39
    money, received, _ = capital.settle(exact, rounded, np.array([[0, 0]]), r)
    assert money.sum() == 36
    assert sorted(received[0].tolist()) == [-1, -1, -1, 0, 0, 0]


def capital_of(r, winner, price, final, d=None):
    _, s = blank(winner.shape[0], r.players, r)
    starting_capital(s, r, d or dice(), winner, price, final)
    return s


def test_capital_rows_are_settled_each_on_its_own():
    """R-CAPITAL (L11–L45), D-LEFTOVER-NEG: a batch where one game had no bids (D-S0: B/N) and another bid; one game
    rounds to an excess of a coin and another to exactly B: only the first gives a coin back."""
    r = Rules.default(4)  # B = 24
    exact = capital.exact_capital(np.array([[0, 0, 0, 0], [10, 0, 0, 10]]), r)
    assert np.allclose(exact, [[6, 6, 6, 6], [4, 8, 8, 4]])
    exact = np.array([[5.7, 5.8, 5.75, 6.75], [6.0, 6.0, 6.0, 6.0]])
    rounded = capital.round_capital(exact, r)
    money, received, case = capital.settle(exact, rounded, np.array([[0, 0], [1, 1]]), r)
    assert money.tolist() == [[5, 6, 6, 7], [6, 6, 6, 6]] and received.tolist() == [[-1, 0, 0, 0], [0, 0, 0, 0]]
    assert case.tolist() == [capital.TAKEN_BACK, capital.EXACT]


def test_the_leftover_goes_by_the_lowest_prices_then_the_tie_break():
    """R-CAPITAL (L45), D-LEFTOVER-TIE: bid totals 2, 1, 0, 0: 2.67, 5.33, 8, 8 -> 2, 5, 8, 8: one coin short. The
    cheapest lot is seat 0's lot 4 at 0; the second cheapest (price 1) is lot 2 or lot 7 by the tie-break, and decides
    whether the two lowest are one family's (two_lowest) or not (lowest); the coin goes to the cheapest lot's family
    either way."""
    r = Rules.default(4).with_overrides({"capital.leftover_tiebreak": "catalogue"})
    n_lots = len(r.d.lot_names)
    winner = np.full((1, n_lots), 3)
    price = np.full((1, n_lots), 5)
    winner[0, [4, 2, 7]] = [0, 1, 2]
    price[0, [4, 2, 7]] = [0, 1, 1]
    final = np.zeros((1, 4, n_lots), int)
    final[0, :2, 0] = [2, 1]
    s = capital_of(r, winner, price, final)
    assert s.capital_money[0].tolist() == [3, 5, 8, 8] and s.leftover_case[0] == capital.LOWEST
    # seat 0 also won lot 2 at price 1: the two lowest are both his
    winner[0, 2] = 0
    s = capital_of(r, winner, price, final)
    assert s.leftover_case[0] == capital.TWO_LOWEST and s.leftover[0].tolist() == [1, 0, 0, 0]
    # the second-lowest decides the case: lots 2 (seat 1) and 7 (seat 0) at price 1, catalogue order takes lot 2
    winner[0, [2, 7]] = [1, 0]
    s = capital_of(r, winner, price, final)
    assert s.leftover_case[0] == capital.LOWEST
    rnd = r.with_overrides({"capital.leftover_tiebreak": "random"})
    u = [0.5] * n_lots
    u[7], u[2] = 0.1, 0.9  # lot 7 before lot 2
    s = capital_of(rnd, winner, price, final, dice(uniforms={0: u}))
    assert s.leftover_case[0] == capital.TWO_LOWEST
    # a 1 £ lot with a high tie-break still comes before a 2 £ lot with a low one
    price[0, 2], u[2], u[7] = 2, 0.0, 0.99
    s = capital_of(rnd, winner, price, final, dice(uniforms={0: u}))
    assert s.leftover_case[0] == capital.TWO_LOWEST


def test_an_excess_through_the_setup_takes_back_from_the_largest_round_up():
    """D-LEFTOVER-NEG (L45): linear formula, rate 0.25, bids 4, 4, 4, 0: 5.75 x 3 and 6.75 -> 6, 6, 6, 7 = 25 > 24: one
    coin back."""
    r = Rules.default(4).with_overrides({"capital.formula": "linear", "capital.linear_rate": 0.25})
    n_lots = len(r.d.lot_names)
    final = np.zeros((1, 4, n_lots), int)
    final[0, :3, 0] = 4
    s = capital_of(r, np.full((1, n_lots), 1), np.ones((1, n_lots), int), final)
    assert s.capital_money[0].sum() == 24 and s.leftover_case[0] == capital.TAKEN_BACK
    assert s.leftover[0].tolist() == [-1, 0, 0, 0]
