"""Tests for surviving mutants of the second (validation) sample of the mutation run in sim.agents, sim.board,
sim.laws, sim.phases.deregulation and sim.phases.end (issue 15; README "Development: mutation testing"). Each test
names the mutant it kills (``mutmut show NAME``) and the wrong reading it rules out, on a hand-built position whose
values make the wrong code give a different answer. The sample's equivalent survivors are explained in the report,
not here."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from helpers import Scripted, agents, blank, const, dice, fund
from test_details import chained_bombay_map
from test_firms import firm_rules, make_firm
from test_parliament import votes

from sim import laws, ledger
from sim.board import order_bits, reach_bits, reachable
from sim.phases.deregulation import deregulation
from sim.phases.end import end_game
from sim.rules import Rules


# -------------------------------------------------------------------------------------------------- sim.agents
def test_a_raising_strategy_without_a_name_is_named_by_its_class():
    """Issue 12 (Agents._raised): a strategy object is any object with the decision methods; one without a
    ``name`` attribute that raises is reported as a StrategyError naming its class, not as an AttributeError from
    the error report itself (kills sim.agents.xǁAgentsǁ_raised__mutmut_29, the class-name default dropped)."""
    from sim.agents import StrategyError
    from sim.state import new_state

    class Nameless:  # duck-typed: no Strategy base, so no ``name``
        def retire(self, obs, legal):
            raise KeyError("tier")

    r = blank(1, 4)[0]
    s = new_state(r, np.array([5, 6]))
    legal = {"affordable": np.ones((2, r.d.tier_cost.size), dtype=bool)}
    with pytest.raises(StrategyError) as caught:
        agents(r, s, Nameless()).ask("retire", s, np.array([2, -1]), legal, (np.zeros(2, dtype=np.int64),))
    assert str(caught.value) == "strategy 'Nameless' (seat 2) raised KeyError: 'tier' in 'retire' at game 5"


# --------------------------------------------------------------------------------------------------- sim.board
def test_a_map_of_exactly_twenty_orders_still_answers_by_the_lookup_table():
    """R-TRADE reachability (board.reach_bits, issue 11): the bit-mask answer is given for maps of up to 20 orders
    (None only past 20): three more Bombay orders chained to Bombay3 make a 20-order map, and reach_bits agrees
    with ``reachable`` -- the chain is reached from Bombay's port up to a closed link (kills
    sim.board.x_reach_bits__mutmut_3, ``>=`` for ``>``: None at exactly 20)."""
    r = chained_bombay_map(3)
    assert len(r.d.orders) == 20
    usable = np.ones((2, 20), dtype=bool)
    usable[1, r.d.orders.index("Extra2")] = False
    bits = reach_bits(r, order_bits(usable))
    assert bits is not None
    reach = reachable(r, usable)  # bool[G, P, O]
    assert np.array_equal(bits, order_bits(reach).T)
    extra = [r.d.orders.index(f"Extra{i}") for i in range(1, 4)]
    assert reach[0, 0, extra].all() and reach[1, 0, extra].tolist() == [True, False, False]


# ---------------------------------------------------------------------------------------------------- sim.laws
def test_a_levy_of_one_pound_per_pound_takes_the_whole_balance():
    """Calico Acts' ``company_levy_per`` (laws.company_levy; 2e: the Company -1 £ per N £ of balance until
    Deregulation) in a rules file setting N = 1: the Company loses 1 £ for every pound, its whole balance of 5 £
    (kills sim.laws.x_company_levy__mutmut_14, laws with N = 1 skipped: ``col > 1`` for ``col > 0``)."""
    raw = copy.deepcopy(Rules.default(4).raw)
    calico = next(x for x in raw["parliament"]["laws"] if x["name"] == "Calico Acts")
    calico["modifiers"] = {"company_levy_per": 1}
    r, s = blank(1, 4, rules=Rules.from_dict(raw))
    s.law_pile[:, r.d.law_names.index("Calico Acts")] = laws.IN_FORCE
    ledger.company(s, "trade", np.array([5]))
    laws.company_levy(s, r)
    assert s.balance.tolist() == [0]
    assert ledger.balanced(s).all()


# ----------------------------------------------------------------------------------------- sim.phases.deregulation
def test_the_deregulation_vote_shows_no_law_and_no_policy_as_minus_one():
    """Phase 11 (L245-L246): the vote on Deregulation is asked with the tabled-law vote's fields; it has no law
    and no policy, which docs/strategies.md (``vote``: ``law``, ``policy`` int[G'] (-1 none)) documents as -1
    (kills sim.phases.deregulation.x_deregulation__mutmut_100, "none" sent as -2)."""
    r, s = blank(1, 4)
    s.stability[:] = 1  # the public tables it
    s.prime_minister[0] = 0
    seen = []

    def vote(obs, legal):
        seen.append((legal.law.tolist(), legal.policy.tolist(), legal.deregulation.tolist()))
        return votes({})(obs, legal)

    deregulation(s, r, dice(), agents(r, s, Scripted(vote=vote)))
    assert seen == [([-1], [-1], [True])] * 4  # every family, seat by seat


# --------------------------------------------------------------------------------------------- sim.phases.end
def test_the_firms_final_special_retirement_is_final_and_wins_no_position():
    """L257 (2e "最後計分時的商行", ``firms.final_retirement = "special"``): at the end seat 1, a shareholder of a
    firm with dividend level 14, retires a relative from home; its family is told ``final`` and that paying wins no
    position pick though a card is on display (L72 is the London season's, not the end's) (kills
    sim.phases.end.x_firm_final_retirements__mutmut_33, the special retirement not told ``final``)."""
    r, s = firm_rules("house")
    s.round[:] = 7
    make_firm(s, 0, 0, {1: 1}, cash=0)
    s.firm_dividend[0, 0] = 14
    fund(s, 1, 20)
    s.market[:, 0] = 0  # a position card on display
    told = []

    def retire(obs, legal):
        told.append((obs.seat.tolist(), legal.special.tolist(), legal.final.tolist(), legal.pick.tolist()))
        return const(3)(obs, legal)

    d = dice(uniforms={0: [0.99, 0.0]})  # blame situation (last) and the winner's tie-break
    end_game(s, r, d, agents(r, s, Scripted(retire=retire)))
    assert told == [([1], [True], [True], [False])]
    assert s.retired[0, 1, 3] == 1
