"""Boundary and asymmetry tests: every rule with an order, a tie-break, a band or a rounding, tested with
values where the plausible wrong reading gives a different answer. Each test names the misreading it rules out.
"""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, fund, give, seat_office

from sim import ledger
from sim.board import check_outcome
from sim.phases.accounts import accounts
from sim.phases.end import influence, pick_winner, ranking_vp
from sim.phases.family import legal_actions
from sim.phases.london import retirement_roll
from sim.phases.military import deployments, share_loot
from sim.phases.operations import governors
from sim.phases.setup import apply_lots
from sim.rules import Rules
from sim.state import FLOW, TALLY


# ------------------------------------------------------------------------------------------------------ D-CHECK
def test_check_bands_success_up_to_2_mishap_from_5():
    """D-CHECK: lowest die 1-2 succeeds, 3-4 does nothing, 5-6 is a mishap (not < 2, not > 5)."""
    success, mishap = check_outcome(Rules.default(), np.arange(1, 7))
    assert success.tolist() == [True, True, False, False, False, False]
    assert mishap.tolist() == [False, False, False, False, True, True]


# ---------------------------------------------------------------------------------------------------- R-END
@pytest.mark.parametrize("end_round, first, second", [(1, 3, 1), (3, 3, 1), (4, 5, 2), (6, 5, 2), (7, 8, 4)])
def test_influence_vp_band_edges(end_round, first, second):
    """influence_vp bands end at rounds 3 and 6 inclusive: a game ending in round 3 is in the first band, round 4
    in the second, round 6 still the second, round 7 the third (a band read as exclusive shifts rounds 3 and 6)."""
    got = ranking_vp(Rules.default(4), np.array([[5, 9, 2, 0]]), np.array([end_round]))
    assert got.tolist() == [[second, first, 0, 0]]


def test_influence_counts_the_chair_as_a_share():
    """R-END, D-SHAREVP: the chair is a share on the influence ladder. Seat 0 holds only the chair, seat 1 one
    share: equal influence, so they tie for first (ignoring the chair would make seat 1 first alone)."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "shares", 1, 1)
    infl = influence(s, r)
    assert infl[0].tolist() == [1, 1, 0, 0]
    assert ranking_vp(r, infl, np.array([7])).tolist() == [[4, 4, 0, 0]]


def test_a_single_runner_up_gets_second_and_the_rest_nothing():
    r = Rules.default(4)
    assert ranking_vp(r, np.array([[2, 7, 2, 1]]), np.array([7])).tolist() == [[4, 8, 4, 0]]
    assert ranking_vp(r, np.array([[1, 7, 3, 1]]), np.array([5])).tolist() == [[0, 5, 2, 0]]


def test_winner_tie_break_wealth_before_money():
    """R-END: equal VP -> more conspicuous wealth wins, even against more money (money only breaks equal wealth)."""
    r, s = blank(2, 4)
    s.vp[:, 0, 0] = s.vp[:, 1, 0] = 4
    s.vp[:, 2, 0] = 3  # less VP: richest in everything, still loses
    s.wealth[0, :3] = [2, 1, 9]
    fund(s, 1, 9, games=0)
    fund(s, 2, 20)
    s.wealth[1, :3] = [1, 1, 9]  # game 1: equal wealth, then money decides
    fund(s, 1, 3, games=1)
    fund(s, 0, 2, games=1)
    d = dice()
    pick_winner(s, d)
    assert s.winner.tolist() == [0, 1]


# ------------------------------------------------------------------------------------------------- R-ACCOUNTS
def test_emergency_loan_stability_loss_rounds_down():
    """-1 stability per 2 emergency loans: 3 loans cost 1 (not 2), 1 loan costs nothing. Costs 11 and 5 with an
    empty treasury; no dividends (-1 each)."""
    r, s = blank(2, 4)
    s.regiments[0] = [3, 3, 5]  # 11 £: 3 emergency loans
    s.regiments[1] = [2, 2, 1]  # 5 £: 1 emergency loan
    s.stability[:] = 5
    accounts(s, r, dice(), agents(r, s, Scripted(pay_dividends=const(0))))
    assert s.tally[:, TALLY["emergency_loans"]].tolist() == [3, 1]
    assert s.ledger[:, FLOW["emergency_burned"]].tolist() == [-4, 0]
    assert s.stability.tolist() == [5 - 1 - 1, 5 - 0 - 1]


def test_emergency_loans_round_up_to_cover_the_shortfall():
    """A shortfall of 6 £ needs 2 loans of 5 £ (ceil), 5 £ needs exactly 1."""
    r, s = blank(2, 4)
    s.regiments[0] = [2, 2, 2]
    s.regiments[1] = [2, 2, 1]
    s.stability[:] = 5
    accounts(s, r, dice(), agents(r, s, Scripted(pay_dividends=const(0))))
    assert s.loans.tolist() == [2, 1] and s.balance.tolist() == [0, 0]
    assert ledger.balanced(s).all()


# ------------------------------------------------------------------------------------------------- R-ACTIONS
def test_shares_twice_needs_the_two_cheapest_free_positions():
    """Exchange prices 2, 3, 3, 4, 5. Twice costs the cheapest plus the second-cheapest *free* position: 5 with an
    empty exchange (not 2 x 2 = 4), 6 once position 0 is taken (not the positional 2 + 3)."""
    r, s = blank(2, 4)
    s.exchange[1, 0] = 3
    s.supply[1, 3] -= 1
    s.last_action[:, :2] = L.A_SHARES
    fund(s, 0, 4, games=0)
    fund(s, 1, 5, games=0)
    fund(s, 0, 5, games=1)
    fund(s, 1, 6, games=1)
    once0, twice0 = legal_actions(s, r, 0)
    once1, twice1 = legal_actions(s, r, 1)
    assert once0[:, L.A_SHARES].all() and once1[:, L.A_SHARES].all()
    assert twice0[:, L.A_SHARES].tolist() == [False, False]
    assert twice1[:, L.A_SHARES].tolist() == [True, True]


def test_shares_once_needs_the_cheapest_free_position():
    r, s = blank(1, 4)
    s.exchange[0, :2] = [3, 3]  # the two cheapest taken: cheapest free is 3
    s.supply[0, 3] -= 2
    fund(s, 0, 2)
    fund(s, 1, 3)
    assert not legal_actions(s, r, 0)[0][0, L.A_SHARES] and legal_actions(s, r, 1)[0][0, L.A_SHARES]


def test_twice_needs_twice_the_price_and_two_relatives():
    r, s = blank(1, 4)
    s.last_action[0] = [L.A_LUXURY, L.A_LUXURY, L.A_CLERK, L.A_CLERK]
    fund(s, 0, 7)  # luxury 4: once, not twice
    fund(s, 1, 8)
    s.supply[0, 2] = 1
    s.supply[0, 3] = 2
    assert [legal_actions(s, r, k)[1][0].tolist().count(True) for k in range(4)] == [0, 1, 0, 1]


# ------------------------------------------------------------------------------------------------------ setup
def test_a_starting_luxury_lot_gives_wealth_too():
    """D-LOTS: a luxury won at the auction carries its conspicuous wealth (1), like one bought in phase 2."""
    r, s = blank(1, 4)
    winner = np.full((1, len(r.d.lot_names)), -1)
    winner[0, r.d.lot_names.index("Luxury")] = 2
    winner[0, r.d.lot_names.index("Shipyard")] = 1
    apply_lots(s, r, winner)
    assert s.luxuries[0].tolist() == [0, 0, 1, 0] and s.wealth[0].tolist() == [0, 0, 1, 0]
    assert s.shipyards[0].tolist() == [0, 1, 0, 0]


# ------------------------------------------------------------------------------------------------- R-GOVERNORS
def governed_game(r, s, region="Bombay", seat=2):
    i = r.d.regions.index(region)
    s.owner[:, i] = 0
    s.governor[:, i] = seat
    s.supply[:, seat] -= 1
    return i


def test_governor_income_after_a_failure_is_asymmetric():
    """Income 1 £ per success, 2 £ for a success right after a failure of the same governor this round.
    Game 0: success x3 -> 1 + 1 + 1 = 3 (a swapped reading pays 6). Game 1: failure, success, success -> 2 + 1 = 3
    (a reading that never clears the failure pays 2 + 2 = 4)."""
    r, s = blank(2, 4)
    i = governed_game(r, s)
    strat = Scripted(govern=const(True), govern_effect=const(L.G_REGIMENT))
    d = dice({0: [1, 6, 6, 2, 6, 1], 1: [3, 4, 4, 2, 6, 1]})
    governors(s, r, d, agents(r, s, strat))
    d.assert_spent()
    assert d.rolls("lowest", 0) == [3, 2, 1] and d.rolls("lowest", 1) == [3, 2, 1]
    assert s.money[:, 2].tolist() == [3, 3]
    assert s.unrest[:, i].tolist() == [0, 1] and s.regiments[:, 0].tolist() == [4, 3]


# ------------------------------------------------------------------------------------------------- R-DEPLOY
def deploy_home(obs, legal):
    """Every army attacks its home region with everything it has."""
    home = obs.rules.d.home[legal.army]
    return home, legal.officers.astype(np.int64), legal.regiments.astype(np.int64), np.zeros_like(legal.mercenaries)


def test_armies_deploy_bombay_then_madras_then_bengal():
    """Commanders deploy in turn Bombay, Madras, Bengal: the dice are asked in that order (each check, then its
    officers' death dice). Forces 2, 3, 4 officers + 1 regiment against strength 1: 2, 3 and 4 dice."""
    r, s = blank(1, 4)
    for a, (seat, k) in enumerate([(0, 2), (1, 3), (2, 4)]):
        give(s, "officers", seat, k, col=a)
        s.commander[0, a] = seat
    d = dice({0: [3] * 2 + [1] * 2 + [4] * 3 + [1] * 3 + [3] * 4 + [1] * 4})
    deployments(s, r, d, agents(r, s, Scripted(deploy=deploy_home)))
    assert d.log == [
        ("lowest", 0, 2),
        ("d6", 0, 2),
        ("lowest", 0, 3),
        ("d6", 0, 3),
        ("lowest", 0, 4),
        ("d6", 0, 4),
    ]
    d.assert_spent()
    assert s.tally[0, TALLY["battles"]] == 3 and (s.owner[0] < 0).all()


def test_an_earlier_army_conquers_first():
    """Bombay's army takes its home region first; the order is also what a later army sees (Madras then attacks its
    own home). Bombay 2 officers + 1 regiment vs 1: 2 dice, success."""
    r, s = blank(1, 4)
    give(s, "officers", 0, 2, col=0)
    s.commander[0, 0] = 0
    give(s, "officers", 1, 1, col=1)
    s.commander[0, 1] = 1
    d = dice({0: [1, 6, 2, 2, 3, 1]})
    deployments(s, r, d, agents(r, s, Scripted(deploy=deploy_home, share_loot=const([False] * 4))))
    bombay = r.d.regions.index("Bombay")
    assert s.owner[0, bombay] == 0 and s.trophies[0].tolist() == [1, 0, 0, 0]
    assert d.log[0] == ("lowest", 0, 2) and d.log[2] == ("lowest", 0, 1)


def test_loot_remainder_goes_to_the_commanders_family_first_then_seat_order():
    """Loot 5 £ over 3 surviving officers (seats 0, 1, 2; commander seat 2): 1 £ each, and the 2 £ remainder to
    the commander's family first, then seat 0 (not seats 0 and 1 by seat order)."""
    r, s = blank(1, 4)
    share_loot(
        s, agents(r, s, Scripted(share_loot=const([False] * 4))), 0, np.array([0]), np.array([2]), np.array([5]),
        np.array([[1, 1, 1, 0]]), np.array([0]),
    )  # fmt: skip
    assert s.money[0].tolist() == [2, 1, 2, 0]


def test_loot_remainder_reaches_officers_before_named_families():
    """Loot 6 over 4 slots (officers of seats 1 (commander) and 2, seat 3 named, 1 regiment): 1 £ each, then the
    remainder 2 to the officers (1, 2) before the named family 3; the regiment's share is never paid out."""
    r, s = blank(1, 4)
    named = const([False, False, False, True])
    share_loot(
        s, agents(r, s, Scripted(share_loot=named)), 0, np.array([0]), np.array([1]), np.array([6]),
        np.array([[0, 1, 1, 0]]), np.array([1]),
    )  # fmt: skip
    assert s.money[0].tolist() == [0, 2, 2, 1] and s.ledger[0, FLOW["loot"]] == 5


def test_loot_equal_to_the_officers_pays_one_each():
    r, s = blank(1, 4)
    share_loot(
        s, agents(r, s, Scripted(share_loot=const([True] * 4))), 0, np.array([0]), np.array([0]), np.array([3]),
        np.array([[2, 1, 0, 0]]), np.array([0]),
    )  # fmt: skip
    assert s.money[0].tolist() == [2, 1, 0, 0]  # 3 £ over 3 officers + 4 named: officers first, nothing left


# --------------------------------------------------------------------------------------------------- R-RETIRE
def test_retirement_roll_bands_and_modifiers():
    """d6 + stress markers (+1 each) + 1 for the Chairman: 5+ retires, 3-4 a stress marker, 1-2 nothing.
    Chairman 3 -> 4: stress. Director 4 with a marker -> 5: retires. Shipping 4 -> stress. Military 2 -> nothing.
    Bombay's President 5 -> retires (sent home: his family cannot pay)."""
    r, s = blank(1, 4)
    for office, seat in ((L.CHAIRMAN, 0), (L.DIRECTOR, 1), (L.SHIPPING, 2), (L.MILITARY, 3), (L.PRESIDENT[0], 3)):
        seat_office(s, office, seat)
    s.stress[0, L.DIRECTOR] = 1
    fund(s, 1, 2)
    strat = Scripted(retire=const(-1))
    d = dice({0: [3, 4, 4, 2, 5]})
    retirement_roll(s, r, d, agents(r, s, strat), np.arange(1))
    d.assert_spent()
    assert s.office[0, : L.PRESIDENT[0] + 1].tolist() == [0, -1, 2, 3, -1]
    assert s.stress[0, : L.PRESIDENT[0] + 1].tolist() == [1, 0, 1, 0, 0]
    assert [seats for _, seats in strat.asked("retire")] == [[1], [3]]
    assert s.supply[0].tolist() == [11, 12, 11, 11] and (s.relatives() == 12).all()
