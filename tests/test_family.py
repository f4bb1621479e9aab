"""Phase 2 family actions (R-ACTIONS) and phase 4 share issue (R-SHARES), on hand-built positions."""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, fund, seat_office

from sim import ledger
from sim.agents import IllegalDecision
from sim.phases.family import family_actions
from sim.phases.shares import issue_shares
from sim.state import FLOW

# each rule played on both engine paths, the numpy reference and the compiled kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")

PASS = (L.A_PASS, False, [0, 0])


def actions(per_seat: dict[int, tuple]):
    """A strategy answering family_action per seat (others pass)."""

    def answer(obs, legal):
        rows = [per_seat.get(int(s), PASS) for s in obs.seat]
        return (
            np.array([r[0] for r in rows]),
            np.array([r[1] for r in rows]),
            np.array([r[2] for r in rows]),
        )

    return Scripted(family_action=answer, extra_clerk=const(-1))


def run(rules, state, strategy, **dice_kw):
    family_actions(state, rules, dice(**dice_kw), agents(rules, state, strategy))


def test_luxury_shipyard_factory_costs_and_effects():
    r, s = blank(1, 4)
    for seat in range(4):
        fund(s, seat, 10)
    run(
        r,
        s,
        actions({0: (L.A_LUXURY, False, [0, 0]), 1: (L.A_SHIPYARD, False, [0, 0]), 2: (L.A_FACTORY, False, [0, 0])}),
    )
    assert s.money[0].tolist() == [6, 8, 5, 10]
    assert s.luxuries[0, 0] == 1 and s.wealth[0, 0] == 1  # 2 VP at the end, 1 conspicuous wealth
    assert s.shipyards[0, 1] == 1 and s.factories[0, 2] == 1
    assert s.last_action[0].tolist() == [L.A_LUXURY, L.A_SHIPYARD, L.A_FACTORY, L.A_PASS]
    assert ledger.balanced(s).all()
    assert s.ledger[0, FLOW["luxury"]] == -4 and s.ledger[0, FLOW["factory"]] == -5


def test_same_action_as_last_round_may_be_done_twice():
    r, s = blank(1, 4)
    s.money[0, 0] = 9
    s.last_action[0, 0] = L.A_LUXURY
    run(r, s, actions({0: (L.A_LUXURY, True, [0, 0])}))
    assert s.luxuries[0, 0] == 2 and s.money[0, 0] == 1


def test_twice_needs_the_same_action_last_round():
    r, s = blank(1, 4)
    s.money[0, 0] = 20
    s.last_action[0, 0] = L.A_FACTORY
    with pytest.raises(IllegalDecision, match="family_action"):
        run(r, s, actions({0: (L.A_LUXURY, True, [0, 0])}))


def test_unaffordable_action_is_illegal():
    r, s = blank(1, 4)
    s.money[0, 1] = 4
    with pytest.raises(IllegalDecision, match=r"\(seat 1\).*'family_action' in game 0"):
        run(r, s, actions({1: (L.A_FACTORY, False, [0, 0])}))


def test_clerks_twice_to_two_presidencies_and_officer_to_academy():
    r, s = blank(1, 4)
    s.last_action[0, 0] = L.A_CLERK
    run(r, s, actions({0: (L.A_CLERK, True, [0, 2]), 3: (L.A_OFFICER, False, [0, 0])}))
    assert s.clerks[0, 0].tolist() == [1, 0, 1] and s.supply[0, 0] == 10
    assert s.academy[0, 3] == 1 and s.supply[0, 3] == 11
    assert (s.relatives() == 12).all()


def test_exchange_positions_go_in_the_chairmans_order():
    """Three buyers at once: the Chairman (seat 3) ranks them 2, 0, 1 -> they pay 2, 3, 3 (positions 0, 1, 2)."""
    r, s = blank(1, 4)
    for seat in range(4):
        fund(s, seat, 10)
    seat_office(s, L.CHAIRMAN, 3)
    strat = actions({0: (L.A_SHARES, False, [0, 0]), 1: (L.A_SHARES, False, [0, 0]), 2: (L.A_SHARES, False, [0, 0])})
    strat.rank_share_buyers = lambda obs, legal: np.array([[2, 0, 1, 3]] * obs.n)
    run(r, s, strat)
    assert s.exchange[0].tolist() == [2, 0, 1, -1, -1]
    assert s.money[0].tolist() == [7, 7, 8, 10]
    assert ledger.balanced(s).all()


def test_exchange_buyer_who_cannot_pay_his_turns_price_buys_nothing():
    r, s = blank(1, 4)
    s.money[0] = [2, 2, 0, 0]
    run(r, s, actions({0: (L.A_SHARES, False, [0, 0]), 1: (L.A_SHARES, False, [0, 0])}))
    # seat 0 first (no Chairman: seat order) pays 2; seat 1 would pay 3 with 2 £: nothing happens
    assert s.exchange[0].tolist() == [0, -1, -1, -1, -1] and s.money[0, :2].tolist() == [0, 2]
    assert s.supply[0, 1] == 12


def test_extra_clerk_when_four_committee_heads_are_vacant():
    r, s = blank(2, 4)
    for office in (L.CHAIRMAN, L.DIRECTOR, L.SHIPPING, L.MILITARY, L.PRESIDENT[0]):
        seat_office(s, office, 0, games=1)  # game 1: only 2 of 7 heads vacant
    seat_office(s, L.CHAIRMAN, 0, games=0)
    seat_office(s, L.DIRECTOR, 1, games=0)
    seat_office(s, L.SHIPPING, 2, games=0)  # game 0: 4 vacant (Military, 3 presidents)
    strat = actions({})
    strat.extra_clerk = lambda obs, legal: np.full(obs.n, 1)
    run(r, s, strat)
    assert s.clerks[0, :, 1].tolist() == [1, 1, 1, 1]
    assert s.clerks[1].sum() == 0


def test_shares_issue_one_per_loan_from_the_most_expensive_position():
    """R-SHARES: exchange [A, B, C] and 2 loans: C joins the board, then B; A moves up two positions."""
    r, s = blank(1, 4)
    s.exchange[0, :3] = [0, 1, 2]
    s.loans[0] = 2
    issue_shares(s, r, dice(), agents(r, s))
    assert s.shares[0].tolist() == [0, 1, 1, 0]
    assert s.loans[0] == 0
    assert s.exchange[0].tolist() == [-1, -1, 0, -1, -1]


def test_shares_stop_when_nobody_waits():
    r, s = blank(2, 4)
    s.exchange[0, :2] = [3, 3]
    s.loans[:] = [5, 0]
    s.exchange[1, 0] = 1
    issue_shares(s, r, dice(), agents(r, s))
    assert s.shares[0, 3] == 2 and s.loans[0] == 3 and (s.exchange[0] < 0).all()
    assert s.firm_fresh[0].tolist() == [0, 0, 0, 2]  # both new shares are fresh until the next firm phase
    assert s.shares[1].sum() == 0 and s.exchange[1, 0] == 1  # no loans, no issue
