"""Tests for sampled mutation survivors an earlier pass recorded as "accepted" (issue 15): each test fails with its
mutant (named in the docstring) and passes on the engine. Grouped by module: sim.phases.military,
sim.phases.operations, sim.rules, sim.rules.schema."""

import copy

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, give, seat_office

from sim.agents import IllegalDecision
from sim.india import turn_inward
from sim.phases.military import military_affairs
from sim.phases.operations import chairman, shipping_manager
from sim.rules import Rules
from sim.rules.schema import Elephant, build
from sim.state import new_state

DEFAULT = Rules.default()


# ------------------------------------------------------------------------------------------ sim.phases.military
def academy_in_two_games(second_game_answer):
    """Two games, Military Affairs (seat 0) in both, seat 2 with 2 academy officers in both; game 0 answers
    legally ([0, 1, 1] to the three armies), game 1 answers ``second_game_answer`` for seat 2."""
    r, s = blank(2, 4)
    seat_office(s, L.MILITARY, 0)
    give(s, "academy", 2, 2)

    def assign(obs, legal):
        out = np.zeros((obs.n, 4, L.PRESIDENCIES), dtype=np.int64)
        for row, game in enumerate(obs.games.tolist()):
            out[row, 2] = [0, 1, 1] if game == 0 else second_game_answer
        return out

    strat = Scripted(assign_academy=assign, military_moves=const([L.MOVE_NONE] * 2, [0, 0], [0, 0], [0, 0], [0, 0]))
    return r, s, agents(r, s, strat)


def test_a_negative_academy_assignment_is_illegal_in_its_own_game():
    """R-MILITARY (L151: Military Affairs sends every officer at the academy to an army): game 1 sends -1 / 2 / 1
    officers (the right total, 2, but a negative count); game 0 is legal. The error names game 1, the game of the
    illegal answer. Kills x_military_affairs__mutmut_38 (``(a < 0).any(axis=None)``: one flag for the whole batch, so
    every game is marked bad and the error names game 0)."""
    r, s, ag = academy_in_two_games([-1, 2, 1])
    with pytest.raises(IllegalDecision, match=r"'assign_academy' in game 1: must send every academy officer"):
        military_affairs(s, r, dice(), ag)


def test_a_short_academy_assignment_is_illegal_in_its_own_game():
    """R-MILITARY (L151): game 1 sends only 1 of seat 2's 2 academy officers; game 0 sends both. The error names
    game 1. Kills x_military_affairs__mutmut_43 (``(a.sum(axis=2) != legal.academy).any(axis=None)``: one flag for
    the whole batch, so the error names game 0, which answered legally)."""
    r, s, ag = academy_in_two_games([1, 0, 0])
    with pytest.raises(IllegalDecision, match=r"'assign_academy' in game 1: must send every academy officer"):
        military_affairs(s, r, dice(), ag)


def test_legal_academy_assignments_in_both_games_are_applied():
    """The same two games answered legally in both: each game's officers reach the armies it named (the check
    flags no game), and the academy empties."""
    r, s, ag = academy_in_two_games([2, 0, 0])
    military_affairs(s, r, dice(), ag)
    assert s.officers[:, 2].tolist() == [[0, 1, 1], [2, 0, 0]]
    assert s.academy.sum() == 0 and (s.relatives() == 12).all()


# ---------------------------------------------------------------------------------------- sim.phases.operations
def test_only_families_with_board_votes_are_asked_to_approve_extra_loans():
    """R-CHAIRMAN (L129-L130): loans beyond ``free_loans`` need a share-weighted board majority, the chair counting
    as one share; a family with no share (and not the chair) has no vote and is not consulted. Chair seat 0 (1
    vote), seat 1 with 3 shares; seats 2 and 3 hold nothing. Kills x_chairman__mutmut_81 (``votes >= 0``: seats 2
    and 3 are asked too). Their answer would weigh 0 votes, so the test also checks the vote's outcome: seat 1's
    yes (3 of 4 votes) carries the 5 loans."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "shares", 1, 3)
    strat = Scripted(take_loans=const(5), approve_loans=lambda obs, legal: obs.seat == 1)
    chairman(s, r, dice(), agents(r, s, strat))
    assert strat.asked("approve_loans") == [([0], [0]), ([0], [1])]
    assert s.loans[0] == 5


def shipping_position(rules, treasury):
    r, s = blank(1, 4, rules=rules)
    seat_office(s, L.SHIPPING, 0)
    s.treasury[0, L.T_SHIPPING] = treasury
    s.shipyards[0, 2] = 1  # exactly one free family yard
    return r, s


NO_SHIPS = const([0, 0, 0], [0, 0, 0], np.zeros((4, L.PRESIDENCIES), dtype=int))


def test_with_one_free_yard_a_yard_ship_is_the_cheapest_ship():
    """R-SHIPPING (L141-L149): with >= ``must_buy_from`` £ the Shipping Manager must buy while the cheapest ship
    he may buy is affordable; with one family yard free, a yard ship is one he may buy. Rules where a leased ship
    (4 £) costs more than a yard ship (3 £): with 3 £ and one free yard, buying nothing is illegal (he can build
    at the yard), and building there is legal. Kills x_shipping_manager__mutmut_74 (``yards_left > 1``: with one
    yard left the cheapest becomes min(leased 4, Company 5) = 4 > 3 £, so buying nothing passes)."""
    rules = Rules.default(4).with_overrides({"shipping.leased_cost": 4})
    r, s = shipping_position(rules, 3)
    with pytest.raises(IllegalDecision, match="'buy_ships' in game 0: purchase over budget"):
        shipping_manager(s, r, dice(), agents(r, s, Scripted(buy_ships=NO_SHIPS)))
    r, s = shipping_position(rules, 3)
    yard = np.zeros((4, L.PRESIDENCIES), dtype=int)
    yard[2, 1] = 1
    shipping_manager(s, r, dice(), agents(r, s, Scripted(buy_ships=const([0, 0, 0], [0, 0, 0], yard))))
    assert s.yard_ships[0, 2, : L.PRESIDENCIES].tolist() == [0, 1, 0] and s.treasury[0, L.T_SHIPPING] == 0


# --------------------------------------------------------------------------------------------------- sim.rules
def test_a_marker_without_a_facing_starts_turned_inward_as_minus_one():
    """MAP.md / state.py (``elephant_facing``: "-1 = turned inward"): a map whose crisis marker has no ``facing``
    starts it inside its region, encoded -1 -- the same value a marker turned inward during the game holds (R-ELEPHANT,
    L170, ``india.turn_inward``), so strategies (``elephant_facing`` is public) see one encoding. Kills
    x__derive_india__mutmut_200 (-2 at the start)."""
    r = DEFAULT.with_overrides({"map.elephant.facing": ""})
    maratha = r.d.regions.index("Maratha")
    assert r.d.elephant0 == (maratha, -1)
    start = new_state(r, np.arange(2))
    assert start.elephant_at.tolist() == [maratha, maratha] and start.elephant_facing.tolist() == [-1, -1]
    turned = new_state(DEFAULT, np.arange(1))  # the default marker: Maratha facing Delhi, turned inward in play
    turn_inward(turned, DEFAULT, np.array([0]), np.array([maratha]))
    assert turned.elephant_facing.tolist() == [-1] == start.elephant_facing[:1].tolist()


def test_problems_lists_every_unknown_neighbour_of_a_region():
    """``Rules.problems`` collects every problem of a file: a region listing two unknown neighbours gets two lines,
    and a region listing itself after them is still found. Kills xǁRulesǁ_validate__mutmut_94 (``break`` after
    the first unknown neighbour: the rest of that region's list goes unchecked)."""
    raw = copy.deepcopy(DEFAULT.raw)
    region = raw["map"]["regions"][0]
    region["adjacent"] = ["Atlantis", "Lemuria", region["name"], *region["adjacent"]]
    assert Rules.problems(raw, source="f") == [
        "f: map.regions[0].adjacent: unknown region 'Atlantis'",
        "f: map.regions[0].adjacent: unknown region 'Lemuria'",
        "f: map.regions[0].adjacent: a region cannot be adjacent to itself",
    ]


# -------------------------------------------------------------------------------------------- sim.rules.schema
def test_build_at_the_root_names_keys_without_a_leading_dot():
    """``schema.build`` names each key by its dotted path from ``where``; at the root (``where = ""``) a key is
    its own name: an unknown key, a missing key and a wrong type are reported as ``f: trunk``, ``f: from``. (The
    loader always passes a section name; this is build's contract for any caller.) Kills x_build__mutmut_14
    (``if (where) or True``: ``.trunk`` / ``.from``)."""
    errors: list[str] = []
    assert build(Elephant, {"trunk": 1}, "", "f", errors) is None
    assert errors == ["f: trunk: unknown key (known: facing, from)", "f: from: missing key"]
    with pytest.raises(Exception, match="^f: from: expected a string, got 3$"):
        build(Elephant, {"from": 3}, "", "f")
    assert build(Elephant, {"from": "Maratha"}, "", "f") == Elephant(from_="Maratha")
