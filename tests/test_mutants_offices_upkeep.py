"""Tests for the surviving mutants of the sampled mutation run in sim.governor_general, sim.laws,
sim.phases.operations and sim.phases.upkeep (issue 15; README "Development: mutation testing"). Each test names the
mutant it kills (``mutmut show NAME``) and the wrong reading it rules out."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, fund, seat_office
from test_governor_general import company_regions
from test_upkeep import retire

from sim import laws
from sim.agents import IllegalDecision
from sim.governor_general import governor_general
from sim.phases.operations import director_of_trade
from sim.phases.upkeep import upkeep
from sim.state import FLOW, TALLY


# ------------------------------------------------------------------------------------- sim.governor_general
def test_a_seat_0_governor_general_governs():
    """The Governor-General's govern action (2e powers, D-CHECK): seat 0 holds the office, governs with 3 dice
    (lowest 2: success) and earns 1 £ per Company region (Bombay, Bengal: 2 £). Reading "somebody asked" as a seat
    >= 1 skips seat 0's roll: no dice, no bonus (kills sim.governor_general.x_governor_general__mutmut_91)."""
    r, s = blank(1, 4)
    company_regions(r, s, ["Bombay", "Bengal"], seat=0)
    d = dice({0: [5, 2, 6]})
    governor_general(s, r, d, agents(r, s, Scripted(general_govern=const(True))))
    assert d.rolls("lowest") == [3]
    d.assert_spent()
    assert s.money[0, 0] == 2 and s.ledger[0, FLOW["governor_general"]] == 2


def test_general_govern_shows_the_company_regions():
    """Decision ``general_govern`` (strategies/base.py: ``legal.regions`` the Company's regions, ``legal.dice``):
    a strategy that governs only where the Company holds 2 regions or more sees game 0's two regions (govern: 3
    dice rolled, 2 £ bonus) and game 1's one (no roll). A legal view without ``regions`` breaks that strategy with
    a StrategyError (kills sim.governor_general.x_governor_general__mutmut_80, the key renamed "REGIONS")."""
    r, s = blank(2, 4)
    bombay, bengal = company_regions(r, s, ["Bombay", "Bengal"], seat=2)
    s.owner[1, bengal] = -1
    seen = []

    def govern(obs, legal):
        seen.append((legal.regions.copy(), legal.dice.copy()))
        return legal.regions.sum(axis=1) >= 2

    d = dice({0: [5, 2, 6]})
    governor_general(s, r, d, agents(r, s, Scripted(general_govern=govern)))
    ((regions, n_dice),) = seen
    assert regions.tolist() == (s.owner >= 0).tolist() and n_dice.tolist() == [3, 3]
    assert d.rolls("lowest") == [3]
    d.assert_spent()
    assert s.money[:, 2].tolist() == [2, 0]


# ------------------------------------------------------------------------------------------------- sim.laws
def test_unpaid_shipyard_tax_costs_one_yard_per_pound_even_with_wealth_taxed():
    """D-POLICY lose_assets: policy 8 taxes shipyards and conspicuous wealth. A family with 4 shipyards, wealth 1
    and 1 £ owes 5, pays 1 and owes 4: a shipyard carries no wealth, so each lost yard covers 1 £ of the debt and
    it loses 4 yards (only a luxury covers its own wealth's tax too). Counting a yard as covering 1 + luxury_wealth
    = 2 £ (the luxury test inverted) loses only 2 (kills sim.laws.x_tax__mutmut_60)."""
    r, s = blank(1, 4)
    assert r.parliament.policies[8].asset == "shipyards" and r.parliament.policies[8].wealth
    s.shipyards[0, 1] = 4
    s.wealth[0, 1] = 1
    fund(s, 1, 1)
    laws.apply_policy(s, r, np.array([8]), np.ones(1, dtype=bool))
    assert s.money[0, 1] == 0 and s.shipyards[0, 1] == 0 and s.wealth[0, 1] == 1
    assert s.tally[0, TALLY["assets_taxed_away"]] == 4


# ------------------------------------------------------------------------------------ sim.phases.operations
def test_a_seat_0_director_of_trade_checks():
    """R-DIRECTOR (L135-L139): the Director is seat 0's relative, with 1 £ in his treasury and orders to open: he
    rolls 1 die (a 1: success) and opens Delhi2. Reading "the office is held" as a seat >= 1 in the repeated
    check's condition stops seat 0 before his first check (kills
    sim.phases.operations.x_director_of_trade__mutmut_22)."""
    r, s = blank(1, 4)
    seat_office(s, L.DIRECTOR, 0)
    s.treasury[0, L.T_DIRECTOR] = 1
    delhi2 = r.d.orders.index("Delhi2")
    strat = Scripted(trade_check=const(1), open_order=const(delhi2))
    d = dice({0: [1]})
    director_of_trade(s, r, d, agents(r, s, strat))
    d.assert_spent()
    assert s.order_open[0, delhi2] and s.treasury[0, L.T_DIRECTOR] == 0
    assert strat.asked("trade_check") == [([0], [0])]
    assert s.tally[0, TALLY["checks"]] == 1 and s.tally[0, TALLY["orders_opened"]] == 1


# ---------------------------------------------------------------------------------------- sim.phases.upkeep
def test_keeping_unpaid_retirees_is_refused_with_its_reason():
    """R-UPKEEP (L242-L243): a family with a tier-3 retiree (3 £ upkeep) and 2 £ cannot keep him; the refusal
    names the game and the reason in full (the BRIEFING's clear one-line error). A mangled reason fails the
    anchored match (kills sim.phases.upkeep.x_upkeep__mutmut_57)."""
    r, s = blank(1, 4)
    retire(s, 1, [0, 0, 0, 1, 0])
    fund(s, 1, 2)
    strat = Scripted(keep_retirees=lambda obs, legal: legal.retired)
    with pytest.raises(
        IllegalDecision,
        match=r"in game 0: keeps more retirees than it has or than its money pays for, "
        r"or lets go one its money still pays for$",
    ):
        upkeep(s, r, dice(), agents(r, s, strat))


def test_upkeep_defaults_add_to_the_rounds_tally():
    """Per-round counters (state.TALLIES; BRIEFING "Per-round counters ... reset each round") are reset only by
    engine.begin_round and every writer adds to them. Upkeep is phase 10's only writer of ``upkeep_defaults``, so
    this is the counter's contract rather than a position the engine's round reaches: with 2 defaults already
    counted this round (game 0) and 1 (game 1), upkeep dropping one tier-2 retiree in game 0 (1 £ cannot pay him) and
    none in game 1
    counts 3 and 1. Writing the tally instead of adding to it gives 1 and 0 (kills
    sim.phases.upkeep.x_upkeep__mutmut_137)."""
    r, s = blank(2, 4)
    retire(s, 1, [0, 0, 1, 0, 0])
    fund(s, 1, 1, games=0)
    fund(s, 1, 2, games=1)
    s.tally[:, TALLY["upkeep_defaults"]] = [2, 1]
    s.tally[:, TALLY["upkeep_paid"]] = [5, 0]
    keep = lambda obs, legal: np.where(obs.games[:, None] == 0, 0, legal.retired)  # noqa: E731
    upkeep(s, r, dice(), agents(r, s, Scripted(keep_retirees=keep)))
    assert s.retired[:, 1, 2].tolist() == [0, 1] and s.money[:, 1].tolist() == [1, 0]
    assert s.tally[:, TALLY["upkeep_defaults"]].tolist() == [3, 1]
    assert s.tally[:, TALLY["upkeep_paid"]].tolist() == [5, 2]
