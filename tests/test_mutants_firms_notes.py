"""Tests for surviving mutants of the sampled mutation run in sim.firms, sim.phases.firms, sim.notes, sim.positions,
sim.phases.london and sim.phases.end (issue 15; README "Development: mutation testing"). Each test names the mutant it
kills (``mutmut show NAME``) and the wrong reading it rules out, on a hand-built position whose values make the wrong
code give a different answer.

A refusal's reason is matched whole, anchored after "in game g: " and at the end of the message: mutmut's message
mutants wrap the text ("XX...XX"), which a plain search for the words would still find."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, fund, seat_office
from test_firms import ON, firm_rules, make_firm, per_seat, relatives_ok

from sim import firms as fr
from sim import laws
from sim import positions as pos
from sim.agents import IllegalDecision
from sim.phases.end import end_game
from sim.phases.firms import dividends, firm_accounts, manager_step
from sim.phases.london import special_retirements
from sim.state import FLOW


# --------------------------------------------------------------------------------------------------------- sim.firms
def test_an_invested_share_is_an_older_one_first():
    """R-FIRMS (L102; house: no ban on fresh shares, seed 002 "禁投資股份" is jc2e's): seat 1 holds 3 Company shares,
    2 of them issued since the last firm phase (``firm_fresh``, public), and invests 2: the older share goes first,
    so it still holds 1 share and that one is fresh -- not 2 fresh shares of 1 held (kills
    sim.firms.x__take_assets__mutmut_31, the fresh count not capped at the shares left)."""
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 1})
    s.shares[0, 1] = 3
    s.supply[0, 1] -= 3
    s.firm_fresh[0, 1] = 2
    assert fr.share_assets(s, r)[0, 1] == 3  # house: every share may be invested
    made = fr.invest(s, r, np.array([0]), np.array([0]), np.array([1]), np.array([0]), np.array([2]))
    assert made.tolist() == [2] and s.firm_shares[0, 0, 1] == 2
    assert s.shares[0, 1] == 1 and s.firm_fresh[0, 1] == 1
    relatives_ok(r, s)


def test_a_firm_pays_its_costs_from_london_then_only_the_rest_from_india():
    """R-FIRMS phase 7.1 (L193; jc2e's two treasuries, ``firms.pay_costs``): costs 5 £ with 2 £ in London and 10 £
    in India: London pays 2, India the other 3 and keeps 7; nothing is unpaid. Taking ``due + from_cash`` = 7 from
    India would leave 3 and report -2 unpaid (kills sim.firms.x_pay_costs__mutmut_14)."""
    r, s = firm_rules("jc2e")
    make_firm(s, 0, 0, {0: 1}, cash=2, india=10)
    unpaid = fr.pay_costs(s, np.array([0]), np.array([0]), np.array([5]))
    assert unpaid.tolist() == [0]
    assert s.firm_cash[0, 0] == 0 and s.firm_india[0, 0] == 7 and s.ledger[0, FLOW["firm_costs"]] == -5
    relatives_ok(r, s)


# -------------------------------------------------------------------------------------------------- sim.phases.firms
def test_taking_over_a_free_firm_slot_is_refused():
    """L103 (2e hostile takeover; decision ``take_over_firm``): a family managing no firm may name only an open firm
    another family manages. Slot 0 is free, slot 1 is seat 2's firm: seat 0 naming slot 0 is refused, the check
    covering firm 0 too (kills sim.phases.firms.x__firm_choice__mutmut_22, ``t >= 1``: firm 0 never checked)."""
    r, s = firm_rules("house")
    make_firm(s, 1, 2, {2: 1})
    strat = Scripted(take_over_firm=per_seat({0: 0}, default=-1))
    with pytest.raises(IllegalDecision, match=r"'take_over_firm' in game 0: not a firm another family manages$"):
        manager_step(s, r, agents(r, s, strat), ON)


def test_a_family_is_asked_to_take_over_a_firm_only_where_one_is_open():
    """L103: in game 0 seat 0 manages the only firm, so seats 1-3 are asked; game 1 has no firm at all, so nobody is
    asked there (a game's questions, and a random strategy's draws, must not depend on the other games of its
    batch; kills sim.phases.firms.x_manager_step__mutmut_32, ``targets.any(axis=None)`` over the whole batch)."""
    r, s = firm_rules("house", games=2)
    make_firm(s, 0, 0, {0: 1}, games=0)
    strat = Scripted(take_over_firm=const(-1))
    manager_step(s, r, agents(r, s, strat), np.ones(2, dtype=bool))
    assert strat.asked("take_over_firm") == [([0], [1]), ([0], [2]), ([0], [3])]


def test_an_emergency_investment_is_told_the_whole_pounds_the_firm_is_short():
    """L194 (phase 7.1): costs 1 ship + max(2 shares, value 3) = 4 £ with 1 £ in the treasury: the families asked
    to invest (the manager first, clockwise) are told the shortfall, 3 £, as whole pounds (int, as every £ amount
    of a decision: royal protection's and the rescue's shortfall are int64, and a strategy dividing it into a count
    of investments must get an integer; kills sim.phases.firms.x_emergency__mutmut_6, a float64 shortfall)."""
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 1, 1: 1}, value=3, cash=1, ships={0: 1})
    s.factories[0, :2] = 1
    told = []

    def invest(obs, legal):
        told.append((obs.seat.tolist(), legal.shortfall.tolist(), legal.shortfall.dtype.kind))
        return np.zeros(obs.n, dtype=np.int64)

    firm_accounts(s, r, dice(), agents(r, s, Scripted(emergency_invest=invest)))
    assert told == [([0], [3], "i"), ([1], [3], "i")]
    assert s.firm_manager[0, 0] == -1  # nobody invested: bankrupt


def test_waiving_more_dividend_shares_than_held_is_refused():
    """L196 (2e "選擇性股利"; decision ``waive_dividends``): a family may waive at most the shares it holds. Seat 1
    holds 1 share of a paying firm and waives 2: refused with the reason (kills
    sim.phases.firms.x_dividends__mutmut_38, the check dropped)."""
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 1, 1: 1}, cash=6)
    s.firm_port[0, 0] = 0

    def waive(obs, legal):
        w = np.zeros(legal.shares.shape, dtype=np.int64)
        w[:, 0] = np.where(obs.seat == 1, 2, 0)
        return w, np.zeros(legal.manager.shape, dtype=bool)

    strat = Scripted(waive_dividends=waive)
    why = "waives more shares than it holds, or a manager's portion it does not have"
    with pytest.raises(IllegalDecision, match=rf"'waive_dividends' in game 0: {why}$"):
        dividends(s, r, agents(r, s, strat), ON)


# ------------------------------------------------------------------------------------------------- sim.phases.london
def test_a_special_retirement_costing_all_the_familys_money_is_allowed():
    """L197 (2e "特殊退休"): seat 1 holds a share of a firm with dividend level 2 and has exactly 2 £, the cheapest
    tier's cost: it may retire a relative from home into it (game 0) and is left with 0 £; with 1 £ (game 1) it is not
    asked (kills sim.phases.london.x_special_retirements__mutmut_35, ``money > cheapest``)."""
    r, s = firm_rules("house", games=2)
    make_firm(s, 0, 0, {1: 1}, cash=0)
    s.firm_dividend[:, 0] = 2
    fund(s, 1, 2, games=0)
    fund(s, 1, 1, games=1)
    assert int(r.d.tier_cost.min()) == 2
    strat = Scripted(retire=const(0))
    spent = np.zeros(s.money.shape, dtype=np.int64)
    taken = special_retirements(s, r, agents(r, s, strat), np.arange(2), spent, spent.copy(), final=False)
    assert strat.asked("retire") == [([0], [1])]
    assert taken[:, 1].tolist() == [1, 0] and s.retired[:, 1, 0].tolist() == [1, 0]
    assert s.money[:, 1].tolist() == [0, 1] and s.supply[:, 1].tolist() == [10, 11]
    relatives_ok(r, s)


# ---------------------------------------------------------------------------------------------------- sim.phases.end
def test_the_firms_final_retirement_roll_is_final_and_not_phase_1s_tenure_limits():
    """L257 with ``firms.final_retirement = "roll"``: on a crash seat 1, a shareholder of a firm with dividend level
    4, rolls for its Chairman as the final retirement of L256: no position is offered (one is on display) and Tenure
    Limits (a phase-1 modifier) does not retire a Chairman whose roll is 1 + 1 = 2 (game 0); rolling 4 + 1 (game 1) he
    retires, his family told ``final`` and no pick (kills sim.phases.end.x_firm_final_retirements__mutmut_51, the
    roll not told ``final``; as tests/test_end.py's test does for the successful game's roll)."""
    r, s = firm_rules("house", games=2, **{"firms.final_retirement": "roll"})
    make_firm(s, 0, 0, {1: 1}, cash=0)
    s.firm_dividend[:, 0] = 4
    seat_office(s, L.CHAIRMAN, 1)
    s.law_pile[:, r.d.law_names.index("Tenure Limits")] = laws.IN_FORCE
    s.market[:, 0] = 0  # a position card on display
    s.crashed[:], s.done[:], s.stability[:] = True, True, 0
    told = []
    strat = Scripted(
        retire=lambda obs, legal: told.append((legal.final.tolist(), legal.pick.tolist())) or const(-1)(obs, legal)
    )
    d = dice({0: [1], 1: [4]}, uniforms={0: [0.0, 0.0], 1: [0.0, 0.0]})  # the rolls; blame and the winner's tie-break
    end_game(s, r, d, agents(r, s, strat))
    d.assert_spent()
    assert s.office[:, L.CHAIRMAN].tolist() == [1, -1]
    assert told == [([True], [False])]  # only game 1's family was asked


# ----------------------------------------------------------------------------------------------------- sim.positions
def test_only_families_tied_on_pounds_and_wealth_go_to_the_pms_ranking():
    """L72-L74 (D-POSITIONS): position takers go by £ spent, then wealth; the PM (seat 0) orders only families still
    tied. Game 0: seats 1 and 2 spent 4 £, seat 3 spent 8: the PM is told only seats 1 and 2 are tied and puts 2
    first; game 1 (3 and 8 £) has no tie: the PM is not asked (kills sim.positions.x_pick_order__mutmut_15, the ties
    summed over the whole batch, which sends every eligible family of every game to the PM)."""
    r, s = blank(2, 4)
    s.prime_minister[:] = 0
    eligible = np.array([[False, True, True, True], [False, True, True, False]])
    spent = np.array([[0, 4, 4, 8], [0, 3, 8, 0]])
    told = []

    def rank(obs, legal):
        told.append(legal.tied.tolist())
        return np.repeat(np.array([[0, 2, 1, 3]]), obs.n, axis=0)

    strat = Scripted(rank_position_takers=rank)
    order = pos.pick_order(s, r, dice(), agents(r, s, strat), eligible, spent)
    assert order.tolist() == [[3, 2, 1, -1], [2, 1, -1, -1]]
    assert strat.asked("rank_position_takers") == [([0], [0])]
    assert told == [[[False, True, True, False]]]


def test_taking_a_slot_past_the_display_is_refused():
    """L72 (D-POSITIONS; decision ``take_position``): the answer is a display slot 0..M-1 holding a card, or -1; slot
    M is refused with the reason, not an IndexError (kills sim.positions.x_take_positions__mutmut_44, the index
    clipped to M + 1)."""
    r, s = blank(1, 4)
    pos.refill_market(s, r, ON)
    m = s.market.shape[1]
    assert (s.market[0] >= 0).all()
    strat = Scripted(take_position=const(m))
    with pytest.raises(IllegalDecision, match=r"'take_position' in game 0: not a card on display$"):
        pos.take_positions(s, r, agents(r, s, strat), np.array([[1]]))
