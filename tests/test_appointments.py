"""Phase 5 appointments (R-APPOINT): the Chairman's election, nepotism, candidates per office."""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, give, seat_office

from sim.phases.appointments import appoint_governor, appoint_office, candidates, elect_chairman

# each rule played on both engine paths, the numpy reference and the compiled kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")


def vote_for(table: dict[int, int]):
    return lambda obs, legal: np.array([table[int(s)] for s in obs.seat])


def test_chairman_elected_with_51_percent_of_share_votes():
    r, s = blank(1, 4)
    give(s, "shares", 0, 3)
    give(s, "shares", 1, 2)
    s.last_chair[0] = 2
    strat = Scripted(vote_chairman=vote_for({0: 0, 1: 1}))
    elect_chairman(s, r, dice(), agents(r, s, strat))
    assert s.office[0, L.CHAIRMAN] == 0  # 3 of 5 votes = 60 %
    assert s.shares[0].tolist() == [2, 2, 0, 0]  # the board member moved to the chair
    assert s.last_chair[0] == 0
    assert (s.relatives() == 12).all()


def test_no_majority_the_former_chairs_family_picks_a_board_member():
    r, s = blank(1, 4)
    give(s, "shares", 0, 2)
    give(s, "shares", 1, 2)
    give(s, "shares", 2, 1)
    s.last_chair[0] = 3
    strat = Scripted(vote_chairman=vote_for({0: 0, 1: 1, 2: 2}), choose_chairman=const(2))
    elect_chairman(s, r, dice(), agents(r, s, strat))
    assert strat.asked("choose_chairman") == [([0], [3])]  # the family that held the chair was asked
    assert s.office[0, L.CHAIRMAN] == 2 and s.shares[0, 2] == 0


def test_empty_board_a_free_relative_of_the_former_chair_family():
    r, s = blank(2, 4)
    s.last_chair[:] = [1, 3]
    s.supply[1, 3] = 0
    s.academy[1, 3] = 12  # game 1: that family has nobody free: the chair stays vacant
    elect_chairman(s, r, dice(), agents(r, s))
    assert s.office[0, L.CHAIRMAN] == 1 and s.supply[0, 1] == 11
    assert s.office[1, L.CHAIRMAN] == -1


def test_nepotism_refused_forces_another_candidate():
    """The Chairman (seat 0) picks his own clerk for Shipping Manager; seat 1, with a candidate, refuses."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "clerks", 0, 1, col=0)
    give(s, "clerks", 1, 1, col=2)
    strat = Scripted(consent=const(False))
    appoint_office(s, r, dice(), agents(r, s, strat), L.SHIPPING)
    assert strat.asked("consent") == [([0], [1])]
    assert s.office[0, L.SHIPPING] == 1 and s.clerks[0, 1, 2] == 0 and s.clerks[0, 0, 0] == 1
    assert (s.relatives() == 12).all()


def test_nepotism_refused_by_a_table_that_passes_consent_is_counted_as_asked(monkeypatch):
    """R-APPOINT at a table whose strategies all pass ``consent`` (``Strategy``, which always refuses): the engine
    skips the question, yet counts each family with a candidate as asked, and the appointment is the one asking
    them gives (seats 1 and 2 refuse: seat 1's clerk gets the office)."""
    from sim.agents import Agents

    offices, counts = [], []
    for skip in (True, False):
        if not skip:
            monkeypatch.setattr(Agents, "all_pass", lambda self, decision, asked: False)
        r, s = blank(2, 4)
        seat_office(s, L.CHAIRMAN, 0)
        give(s, "clerks", 0, 1, col=0)
        give(s, "clerks", 1, 1, col=2)
        give(s, "clerks", 2, 1, col=1)
        s.done[1] = True
        table = agents(r, s)
        appoint_office(s, r, dice(), table, L.SHIPPING)
        offices.append(s.office[:, L.SHIPPING].tolist())
        counts.append(table.asks["consent"].tolist())
    assert offices == [[1, -1], [1, -1]]
    assert counts == [[2, 0], [2, 0]]


def test_nepotism_with_consent_appoints_his_own():
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "clerks", 0, 1, col=0)
    give(s, "clerks", 1, 1, col=2)
    give(s, "clerks", 2, 1, col=1)
    strat = Scripted(consent=const(True))
    appoint_office(s, r, dice(), agents(r, s, strat), L.SHIPPING)
    assert sorted(seat for _, seats in strat.asked("consent") for seat in seats) == [1, 2]
    assert s.office[0, L.SHIPPING] == 0 and s.clerks[0, 0, 0] == 0


def test_own_relative_needs_no_consent_when_nobody_else_is_a_candidate():
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "clerks", 0, 1, col=1)
    strat = Scripted(consent=const(False))
    appoint_office(s, r, dice(), agents(r, s, strat), L.SHIPPING)
    assert strat.asked("consent") == [] and s.office[0, L.SHIPPING] == 0


def test_director_of_trade_comes_from_other_offices_before_clerks():
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.SHIPPING, 2)
    give(s, "clerks", 1, 2, col=0)
    cand = candidates(s, r, L.DIRECTOR)
    assert cand[0].sum() == 1 and cand[0, 2, L.SRC_OFFICE0 + L.SHIPPING]
    appoint_office(s, r, dice(), agents(r, s), L.DIRECTOR)
    assert s.office[0, L.DIRECTOR] == 2 and s.office[0, L.SHIPPING] == -1  # his old office is vacant now
    # then the Shipping Manager is appointed from the clerks
    appoint_office(s, r, dice(), agents(r, s), L.SHIPPING)
    assert s.office[0, L.SHIPPING] == 1 and s.clerks[0, 1, 0] == 1
    assert (s.relatives() == 12).all()


def test_director_of_trade_from_any_clerk_when_no_office_holder():
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "clerks", 3, 1, col=2)
    cand = candidates(s, r, L.DIRECTOR)
    assert cand[0, 3, L.SRC_CLERK[2]] and cand[0].sum() == 1


def test_military_affairs_from_commanders_then_officers_then_academy():
    r, s = blank(1, 4)
    give(s, "officers", 1, 2, col=0)
    give(s, "officers", 2, 1, col=1)
    s.commander[0, 0] = 1
    give(s, "academy", 3, 1)
    cand = candidates(s, r, L.MILITARY)
    assert cand[0].sum() == 1 and cand[0, 1, L.SRC_OFFICER[0]]
    s.commander[0, 0] = -1
    cand = candidates(s, r, L.MILITARY)
    assert cand[0, 1, L.SRC_OFFICER[0]] and cand[0, 2, L.SRC_OFFICER[1]] and cand[0].sum() == 2
    s.officers[0] = 0
    cand = candidates(s, r, L.MILITARY)
    assert cand[0].sum() == 1 and cand[0, 3, L.SRC_ACADEMY]


def test_presidents_appointed_by_the_director_from_clerks_or_governors():
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.DIRECTOR, 3)
    give(s, "clerks", 1, 1, col=2)  # a Bengal clerk
    bombay_region = r.d.regions.index("Mysore")
    s.owner[0, bombay_region] = 2  # a Bengal-controlled region with a governor from seat 2
    s.governor[0, bombay_region] = 2
    s.supply[0, 2] -= 1
    cand = candidates(s, r, L.PRESIDENT[2])
    assert cand[0, 1, L.SRC_CLERK[2]] and cand[0, 2, L.SRC_GOVERNOR0 + bombay_region] and cand[0].sum() == 2
    strat = Scripted(appoint=const(2, L.SRC_GOVERNOR0 + bombay_region))
    appoint_office(s, r, dice(), agents(r, s, strat), L.PRESIDENT[2])
    assert strat.asked("appoint") == [([0], [3])]  # the Director of Trade appoints
    assert s.office[0, L.PRESIDENT[2]] == 2 and s.governor[0, bombay_region] == -1
    assert (s.relatives() == 12).all()


def test_governor_appointed_by_the_president_from_that_presidency():
    r, s = blank(1, 4)
    region = r.d.regions.index("Bombay")
    s.owner[0, region] = 0
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.PRESIDENT[0], 2)
    give(s, "officers", 1, 1, col=0)
    give(s, "clerks", 3, 1, col=1)  # a Madras clerk is no candidate for a Bombay region
    strat = Scripted()
    appoint_governor(s, r, dice(), agents(r, s, strat), region)
    assert strat.asked("appoint") == [([0], [2])]
    assert s.governor[0, region] == 1 and s.officers[0, 1, 0] == 0
    chairman_rules = r.with_overrides({"governors.appointer": "chairman"})
    s.governor[0, region] = -1
    give(s, "clerks", 3, 1, col=0)
    strat2 = Scripted()
    appoint_governor(s, chairman_rules, dice(), agents(chairman_rules, s, strat2), region)
    assert strat2.asked("appoint") == [([0], [0])]  # D-GOV-APPOINT = chairman
