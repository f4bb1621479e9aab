"""Tests for the firms modules' surviving mutants of the sampled mutation run (issue 15b; README "Development:
mutation testing"). Each test names the mutant it kills (``mutmut show NAME``) and the wrong reading it rules out."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import Scripted, agents, blank, const, dice
from test_firms import NO_ORDERS, firm_rules, make_firm, no_fill, per_seat, relatives_ok, two_firms_at_bombay

from sim import firms
from sim.phases.firms import firm_accounts, trade_in_turn
from sim.state import FLOW, TALLY


def test_a_merged_firm_keeps_its_own_sea_even_when_it_is_sea_0():
    """L104 (2e "合併"): the survivor keeps its ships' sea; only a survivor with no sea (-1) takes the absorbed firm's.
    Game 0: the survivor sails sea 0 (Bombay's), the absorbed one sea 2: it stays 0 -- a `sea < 1` reading of "no
    sea" would take 2 (kills sim.firms.x_merge__mutmut_14). Game 1: the survivor has no sea: it takes 2."""
    r, s = blank(2, 4)
    s.firm_manager[:, :2] = [0, 2]
    s.firm_sea[:, 0] = 2
    s.firm_sea[:, 1] = [0, -1]
    firms.merge(s, np.arange(2), np.array([1, 1]), np.array([0, 0]), np.zeros((2, 4), dtype=np.int64))
    assert s.firm_sea[:, 1].tolist() == [0, 2]
    assert s.firm_sea[:, 0].tolist() == [-1, -1] and s.firm_manager[:, 0].tolist() == [-1, -1]


def test_a_cleared_slot_is_a_fresh_one():
    """A firm slot emptied (bankruptcy, merger, dissolution) must look like a slot nobody ever used, so a firm later
    opened there starts clean: every firm field equals the new game's (kills sim.firms.x_clear_slot__mutmut_23, a
    bid of 1 left behind)."""
    r, s = blank(1, 4)
    per_slot = [k for k in vars(s) if k.startswith("firm_") and k not in ("firm_filled", "firm_fresh")]  # [G, F, ...]
    assert len(per_slot) == 13
    fresh = {k: getattr(s, k)[0, 0].copy() for k in per_slot}
    for k in fresh:
        getattr(s, k)[0, 0] = 3
    firms.clear_slot(s, np.array([0]), np.array([0]))
    for k, v in fresh.items():
        assert (getattr(s, k)[0, 0] == v).all(), k


def test_without_a_prime_minister_firms_tied_settle_clockwise_from_seat_0():
    """Phase 7.1's order (2e "順序依照順位值"): initiative, then the manager's wealth, then clockwise from the PM's
    seat; where nobody is PM (a setup without the PM's lot), from seat 0. Managers 3 (slot 0) and 0 (slot 1), both
    without a trade and without wealth: seat 0's firm first; from a PM in seat 2, seat 3's. Counting from seat 1
    would put seat 3 first without a PM (kills sim.firms.x_accounts_order__mutmut_51)."""
    r, s = blank(1, 4)
    s.firm_manager[0, :2] = [3, 0]
    s.prime_minister[0] = -1
    assert firms.accounts_order(s, r)[0, :2].tolist() == [1, 0]
    s.prime_minister[0] = 2
    assert firms.accounts_order(s, r)[0, :2].tolist() == [0, 1]


@pytest.mark.parametrize("variant", ["house", "jc2e"])
def test_an_emergency_investment_needs_the_managers_consent_but_not_his_own(variant):
    """L194 (phase 7.1): costs 1 ship + max(2 shares, value 3) = 4 with 1 £ in the treasury. Seat 1 offers a factory
    and the manager refuses: nothing is invested and the firm cannot pay (bankrupt, its 2 shareholders to prison).
    The manager offering his own factory needs nobody's consent (the refusal answer is not even asked): 5 £ in, 4
    pay the costs, value 3 -> 2. A reading with the consent test inverted invests the refused factory and skips the
    manager's (kills sim.phases.firms.x_emergency__mutmut_202)."""
    r, s = firm_rules(variant)
    make_firm(s, 0, 0, {0: 1, 1: 1}, value=3, cash=1, ships={0: 1})
    s.factories[0, :2] = 1
    offered = {}

    def refuse(obs, legal):
        offered.update(factories=legal.factories.copy(), shares=legal.shares.copy())
        return np.zeros((obs.n, obs.players), dtype=bool)

    strat = Scripted(emergency_invest=per_seat({1: firms.FACTORY}), consent_investment=refuse)
    firm_accounts(s, r, dice(), agents(r, s, strat))
    assert offered["factories"].tolist() == [[0, 1, 0, 0]] and offered["shares"].tolist() == [[0, 0, 0, 0]]
    # the documented int[G', N] (strategies/base.py consent_investment; kills x_emergency__mutmut_161, float64)
    assert offered["factories"].dtype.kind == offered["shares"].dtype.kind == "i"
    assert s.factories[0].tolist() == [1, 1, 0, 0] and s.firm_manager[0, 0] == -1
    assert s.ledger[0, FLOW["firm_emergency"]] == 0 and s.prisoners[0, :2].tolist() == [1, 1]

    r, s = firm_rules(variant)
    make_firm(s, 0, 0, {0: 1, 1: 1}, value=3, cash=1, ships={0: 1})
    s.factories[0, :2] = 1
    strat = Scripted(emergency_invest=per_seat({0: firms.FACTORY}), consent_investment=const([False] * 4))
    firm_accounts(s, r, dice(), agents(r, s, strat))
    assert strat.asked("consent_investment") == []
    assert s.firm_manager[0, 0] == 0 and s.firm_value[0, 0] == 2 and s.firm_shares[0, 0].tolist() == [2, 1, 0, 0]
    assert s.factories[0].tolist() == [0, 1, 0, 0] and s.ledger[0, FLOW["firm_emergency"]] == 5
    relatives_ok(r, s)


def test_a_firms_trade_decision_is_told_which_firm_trades():
    """L181 (phase 7, decision ``firm_trade``): each firm's manager is told the firm (slot) whose turn it is; ships -
    successes puts firm 0 (-1) before firm 1 (2). Without the key a strategy managing two firms could not tell them
    apart (kills sim.phases.firms.x_firm_fill__mutmut_43)."""
    r, s = two_firms_at_bombay("ships_minus_successes")
    seen = []

    def trade(obs, legal):
        seen.append((int(obs.seat[0]), int(legal.firm[0])))
        return np.zeros((obs.n, len(r.d.orders)), dtype=bool)

    go = agents(r, s, Scripted(firm_trade=trade))
    trade_in_turn(s, r, go, 0, np.zeros(1, bool), np.zeros(1, int), NO_ORDERS(r), no_fill)
    assert seen == [(0, 0), (1, 1)]


def test_firm_ships_damaged_in_a_storm_add_to_the_rounds_tally():
    """R-STORM for firm ships (2e: they are family-yard ships): a face 3-4 damages a ship. The firms' ships roll after
    the Company's, whose damage this storm already counted 2: the round's ``ships_damaged`` becomes 3, not 1 (kills
    sim.firms.x_batter_ships__mutmut_90, `=` for `+=`)."""
    r, s = blank(1, 4)
    make_firm(s, 0, 0, {0: 1}, ships={0: 1})
    s.firm_sea[0, 0] = 0
    s.tally[0, TALLY["ships_damaged"]] = 2
    d = dice({0: [3]})
    firms.batter_ships(s, r, d, np.array([0]), np.array([[True, False, False]]))
    d.assert_spent()
    assert s.firm_damaged[0, 0].tolist() == [1, 0, 0, 0] and s.firm_ships[0, 0].tolist() == [1, 0, 0, 0]
    assert s.tally[0, TALLY["ships_damaged"]] == 3 and s.tally[0, TALLY["ships_sunk"]] == 0
