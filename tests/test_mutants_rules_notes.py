"""Tests for the sampled surviving mutants of ``sim.rules`` (``Rules._validate``, ``_validate_politics``) in the
mutation run of issue 15 (README "Development: mutation testing"). Each test names the mutant it kills (``mutmut show
NAME``) and the wrong reading it rules out.

A rules error is matched whole and anchored (``test_rules_validation.fails``): mutmut's message mutants wrap the
section or the reason in "XX...XX", which a plain search for the words would still find.

The other sampled survivors of ``sim.rules`` (``_derive``, ``_derive_india``) and of ``sim.notes`` are equivalent
(no test can tell them from the engine); the reasons are in the lead's record (tools/mutation_survivors.toml)."""

from __future__ import annotations

import numpy as np
from helpers import blank, dice
from test_rules_validation import DEFAULT, fails

from sim.india import batter_ships
from sim.state import TALLY


# ------------------------------------------------------------------------------------------- sim.rules: _validate
def test_an_office_in_two_lots_names_the_auction_section():
    """R-AUCTION / D-LOTS: an office may be sold in one lot only; making lot 1 the Chairman's too (lot 0 already is)
    fails with the one-line error naming the ``auction`` section and the office (kills
    sim.rules.xǁRulesǁ_validate__mutmut_257, section "XXauctionXX")."""
    fails({"auction.main_lots.1.office": "chairman"}, "auction: office 'chairman' is in two lots")


def test_storm_sink_from_7_means_ships_never_sink():
    """R-STORM (L216) with the documented edge ``storm_sink_from = 7`` ("7: never", default.toml): the rules load and
    three sound ships in a storm rolling 6, 6, 6 are all damaged and none sinks; with ``storm_damage_from = 7`` too,
    the same rolls touch nothing. A ``< 7`` band would reject both files (kills
    sim.rules.xǁRulesǁ_validate__mutmut_615, ``<= 7`` -> ``< 7``)."""
    r, s = blank(1, 5, **{"india.storm_sink_from": 7})
    assert (r.india.storm_damage_from, r.india.storm_sink_from) == (3, 7)
    s.shipyards[0, 1] = 3
    s.yard_ships[0, 1, 0] = 3  # seat 1's three ships, all in Bombay's sea
    d = dice({0: [6, 6, 6]})
    batter_ships(s, r, d, np.array([0]), np.array([[True, False, False]]))
    d.assert_spent()
    assert s.yard_ships[0, 1, 0] == 3 and s.yard_damaged[0, 1, 0] == 3
    assert s.tally[0, TALLY["ships_damaged"]] == 3 and s.tally[0, TALLY["ships_sunk"]] == 0

    r, s = blank(1, 5, **{"india.storm_damage_from": 7, "india.storm_sink_from": 7})
    s.shipyards[0, 1] = 3
    s.yard_ships[0, 1, 0] = 3
    d = dice({0: [6, 6, 6]})
    batter_ships(s, r, d, np.array([0]), np.array([[True, False, False]]))
    d.assert_spent()
    assert s.yard_ships[0, 1, 0] == 3 and s.yard_damaged[0, 1, 0] == 0
    assert s.tally[0, TALLY["ships_damaged"]] == 0 and s.tally[0, TALLY["ships_sunk"]] == 0


def test_storm_bands_beyond_7_or_crossed_fail():
    """The band check's other edges: ``storm_sink_from = 8`` and a damage band above the sinking one fail with the
    one-line error naming ``india.storm_damage_from``; ``1 <= 1 <= 1`` (every ship sinks) loads."""
    msg = "india.storm_damage_from: need 1 <= storm_damage_from <= storm_sink_from <= 7 (7: never)"
    fails({"india.storm_sink_from": 8}, msg)
    fails({"india.storm_damage_from": 6}, msg)
    fails({"india.storm_damage_from": 0}, msg)
    DEFAULT.with_overrides({"india.storm_damage_from": 1, "india.storm_sink_from": 1})


# ---------------------------------------------------------------------------------- sim.rules: _validate_politics
def test_the_publics_deregulation_thresholds_must_lie_within_the_pms():
    """D-DEREG (seed 002): the public forces Deregulation at stability <= ``forced_stability`` or debt >=
    ``forced_debt``; whenever it is forced the PM must be able to table it (stability <= ``table_stability_max`` = 3,
    debt >= ``table_debt_min`` = 5). ``forced_stability = 4`` or ``forced_debt = 4`` fails with the whole one-line
    reason (kills sim.rules.xǁRulesǁ_validate_politics__mutmut_153, reason "XX...XX"); the edges 3 and 5 load."""
    msg = "deregulation: the public's thresholds must lie within the PM's (forced implies tablable)"
    fails({"deregulation.forced_stability": 4}, msg)
    fails({"deregulation.forced_debt": 4}, msg)
    r = DEFAULT.with_overrides({"deregulation.forced_stability": 3, "deregulation.forced_debt": 5})
    assert (r.deregulation.forced_stability, r.deregulation.forced_debt) == (3, 5)
