"""Tests for the surviving mutants of the sampled mutation run in sim.laws, sim.india, sim.phases.india and
sim.phases.parliament (issue 15; README "Development: mutation testing"). Each test names the mutant it kills
(``mutmut show NAME``) and the wrong reading it rules out."""

from __future__ import annotations

import copy
from types import SimpleNamespace

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, give, seat_office
from test_india import BOMBAY, DELHI, MYSORE, PEACE_MADRAS, PUNJAB, company, order, tally
from test_laws import law, passes

from sim import india, laws
from sim.agents import IllegalDecision
from sim.phases.india import Event, peace
from sim.rules import Rules
from sim.state import TALLY


def with_effects(r: Rules, **on_pass: list[dict]) -> Rules:
    """The rules with the named laws' ``on_pass`` effects replaced (a rules file may give any law any effect,
    D-LAWS; amounts are validated to -100..100)."""
    raw = copy.deepcopy(r.raw)
    for spec in raw["parliament"]["laws"]:
        if spec["name"] in on_pass:
            spec["on_pass"] = on_pass.pop(spec["name"])
    assert not on_pass, on_pass
    return Rules.from_dict(raw, source="test")


# ------------------------------------------------------------------------------------------------ sim.india
def test_closing_an_order_counts_it_only_if_it_was_open():
    """india._close's contract (R-TURMOIL's tally ``orders_closed``): it closes one order per game and counts the
    ones that were open. Game 0's order is open (closed, counted 1), game 1's closed already (stays closed, counted
    0), game 2 closes nothing (-1). Counting every closing row, open or not, counts game 1 too (kills
    sim.india.x__close__mutmut_5, ``was = None``). The engine's callers pass only open orders (northernmost_open),
    so this is the helper's documented contract, not yet a reachable rule outcome."""
    r, s = blank(3, 4)
    o = order(r, "Bombay1")
    s.order_open[1, o] = False
    india._close(s, np.arange(3), np.array([o, o, -1]))
    assert not s.order_open[:2, o].any() and s.order_open[2, o]
    assert s.tally[:, TALLY["orders_closed"]].tolist() == [1, 0, 0]


# ------------------------------------------------------------------------------------------------- sim.laws
def test_royal_protection_uses_stay_within_0_and_100():
    """Royal Protection (MAP.md's 2e law; ``company.royal_protection`` is validated to 0..100, the int8 store):
    passing it at 100 uses keeps 100, not 101 (kills sim.laws.x__royal_protection__mutmut_7, no upper bound); a
    rules file's law taking a use away (amount -1) leaves 0 uses at 0, not -1, and takes game 1's only use (kills
    sim.laws.x__royal_protection__mutmut_6, no lower bound)."""
    r, s = blank(2, 4)
    s.royal_protection[:] = [100, 7]
    passes(r, s, "Royal Protection")
    assert s.royal_protection.tolist() == [100, 8]
    r = with_effects(r, **{"Royal Protection": [{"effect": "royal_protection", "amount": -1}]})
    s.royal_protection[:] = [0, 1]
    passes(r, s, "Royal Protection")
    assert s.royal_protection.tolist() == [0, 0]


def test_stability_gains_of_laws_add_up_per_game():
    """Issue 13's cause tally ``stability_gain_laws`` adds every law gain of the round, game by game. With rules
    where Royal Protection and Calico Acts each raise stability by 1, game 0 passes Royal Protection and game 1
    Calico Acts in the same phase 9 (apply_effects takes each law in deck order): game 0's gain must survive game
    1's later one, and a second gain in game 0 adds to its first (2). Writing the tally instead of adding to it
    leaves game 0 at 0 after Calico Acts' effect (kills sim.laws.x_change_stability__mutmut_38)."""
    r, s = blank(2, 4)
    gain = [{"effect": "stability", "amount": 1}]
    r = with_effects(r, **{"Royal Protection": gain, "Calico Acts": gain})
    s.stability[:] = 3
    law_of = np.array([law(r, "Royal Protection"), law(r, "Calico Acts")])
    ctx = SimpleNamespace(pm=np.full(2, -1), policy=np.full(2, -1), impeach=np.full(2, -1))
    laws.apply_effects(s, r, dice(), agents(r, s), law_of, np.ones(2, bool), "on_pass", ctx)
    assert s.stability.tolist() == [4, 4]
    assert s.tally[:, TALLY["stability_gain_laws"]].tolist() == [1, 1]
    laws.change_stability(s, r, np.array([True, False]), 1)
    assert s.stability.tolist() == [5, 4]
    assert s.tally[:, TALLY["stability_gain_laws"]].tolist() == [2, 1]
    assert s.tally[:, TALLY["stability_change"]].tolist() == [2, 1]


def test_war_losses_cannot_pick_an_empty_ship_box_0():
    """War Against France! passed (MAP.md, 2e "non-extra ships"): the PM must pick an available ship. The
    Company's only ship is at location 1; the PM names location 0, where there is none: an illegal answer (a check
    reading "a ship" as index >= 1 accepts it and removes a ship that is not there, leaving -1; kills
    sim.laws.x__war_losses__mutmut_88)."""
    r, s = blank(1, 4)
    s.prime_minister[0] = 0
    s.ships[0, 1, L.COMPANY_SHIP] = 1
    s.regiments[0] = [3, 3, 3]
    with pytest.raises(IllegalDecision, match="war_losses"):
        passes(r, s, "War Against France!", strat=Scripted(war_losses=const(0, 0)))
    assert s.ships[0, :, L.COMPANY_SHIP].tolist() == [0, 1, 0, 0]


def test_war_losses_remove_one_company_ship_per_pick():
    """War Against France! passed removes 3 ships one at a time (amount 3): the PM picks Company ships at location
    0 three times, 5 -> 2 (and a regiment of army 0 each time, 3 -> 0). Removing 2 per pick leaves -1 (kills
    sim.laws.x__war_losses__mutmut_175; with 1 or 2 ships there both readings end at 0, which is why the deck test
    does not tell them apart)."""
    r, s = blank(1, 4)
    s.prime_minister[0] = 0
    s.ships[0, 0, L.COMPANY_SHIP] = 5
    s.regiments[0] = [3, 3, 3]
    strat = Scripted(war_losses=const(0, 0))
    passes(r, s, "War Against France!", strat=strat)
    assert len(strat.asked("war_losses")) == 3
    assert s.ships[0, :, L.COMPANY_SHIP].tolist() == [2, 0, 0, 0] and s.regiments[0].tolist() == [0, 3, 3]


def test_board_of_control_rejects_a_far_out_of_range_answer_cleanly():
    """Board of Control (MAP.md's 2e law): the PM answers an office index or -1 (nobody). An answer of -10 is not
    an office: the engine's check reports it as an IllegalDecision naming the decision (the BRIEFING's "a clear
    error, never a traceback"). Clipping the index only from above reads legal.removable[-10] and fails with an
    IndexError instead (kills sim.laws.x_board_of_control__mutmut_50)."""
    r, s = blank(1, 4)
    s.law_pile[0, law(r, "Board of Control")] = laws.IN_FORCE
    s.prime_minister[0] = 2
    seat_office(s, L.SHIPPING, 1)
    assert L.N_OFFICES < 10
    with pytest.raises(IllegalDecision, match="remove_officeholder"):
        laws.board_of_control(s, r, dice(), agents(r, s, Scripted(remove_officeholder=const(-10))))
    assert s.office[0, L.SHIPPING] == 1


def test_military_oversight_the_army_has_no_commander_while_the_pm_appoints():
    """Military Oversight (MAP.md's 2e law: "the PM may demote one commander and then appoint a commander"): once
    demoted, the army has no commander (state.py's encoding: -1 none) while the PM chooses, and every strategy
    asked then (the PM's appointment, the consent of a family with a candidate) sees -1 in ``obs.commander``. A
    demotion written as -2 shows an impossible seat (kills sim.laws.x_military_oversight__mutmut_96; the
    appointment always seats someone, R-COMMANDER's invariant gives an army with a commander officers, so only
    the observation tells)."""
    r, s = blank(1, 4)
    s.law_pile[0, law(r, "Military Oversight")] = laws.IN_FORCE
    s.prime_minister[0] = 2
    give(s, "officers", 0, 2, col=1)
    give(s, "officers", 2, 1, col=1)
    s.commander[0, 1] = 0
    seen = []

    def appoint(obs, legal):
        seen.append(("appoint", obs.commander.tolist()))
        return np.full(obs.n, 2), np.full(obs.n, L.SRC_OFFICER[1])

    def consent(obs, legal):
        seen.append(("consent", obs.commander.tolist()))
        return np.ones(obs.n, dtype=bool)

    strat = Scripted(oversee_army=const(1), appoint=appoint, consent=consent)
    laws.military_oversight(s, r, dice(), agents(r, s, strat))
    assert seen == [("appoint", [[-1, -1, -1]]), ("consent", [[-1, -1, -1]])]
    assert s.commander[0].tolist() == [-1, 2, -1]


# ------------------------------------------------------------------------------------------ sim.phases.india
def test_war_against_france_failed_sets_off_a_revolt_that_rolls_for_the_officers():
    """War Against France! failed (2e): a Foreign Invasion, then the revolt wave (R-ATTACK, L211-L212). Storm face
    2 (the seed's Bombay sea) lands at Company Bombay, undefended: the attack of 4 takes it. The attack sets off a
    revolt in Company Mysore (army 1, unrest 3): army 1's 2 free officers are worth less than 3, so Mysore is lost:
    its commander (seat 1) dies, seat 1's other officer rolls 6 and dies too (officer_death_on 6). The revolt's
    death roll comes from the engine's dice; a revolt wave handed no dice fails there (kills
    sim.phases.india.x_french_landing__mutmut_21)."""
    r, s = blank(1, 4)
    company(s, BOMBAY, 0)
    company(s, MYSORE, 1)
    s.regiments[0] = [0, 0, 3]
    s.unrest[0, MYSORE] = 3
    give(s, "officers", 1, 2, col=1)
    s.commander[0, 1] = 1
    d = dice({0: [2, 4, 6]})
    passes(r, s, "War Against France!", d=d, when="on_fail")
    d.assert_spent()
    assert s.owner[0, BOMBAY] == s.owner[0, MYSORE] == -1
    assert s.officers[0].sum() == 0 and s.commander[0].tolist() == [-1, -1, -1] and s.supply[0, 1] == 12
    assert tally(s, "attacks") == tally(s, "revolts") == 1 and tally(s, "regions_lost") == 2
    assert tally(s, "officers_killed") == 2 and s.stability[0] == 4 - 2


def test_peace_on_a_border_facing_punjab_opens_the_orders_across_it():
    """R-PEACE on a border: the marker points from Delhi at Punjab (region 0). The orders on links across that
    border (Punjab's and Delhi1) open and both sovereign sides gain 1 strength. Reading the facing region as at
    least 1 looks up Delhi's border with itself and opens nothing (kills sim.phases.india.x_peace__mutmut_20)."""
    r, s = blank(1, 4)
    across = [order(r, "Punjab"), order(r, "Delhi1")]
    s.order_open[0, across] = False
    s.elephant_at[0], s.elephant_facing[0] = DELHI, PUNJAB
    strength = s.strength[0, [PUNJAB, DELHI]].copy()
    peace(s, r, dice(), agents(r, s), Event.of(s, r, [0], PEACE_MADRAS))
    assert s.order_open[0, across].all() and tally(s, "orders_reopened") == 2
    assert s.strength[0, [PUNJAB, DELHI]].tolist() == (strength + 1).tolist()
