"""Phase 5 appointments (R-APPOINT): the Chairman's election, nepotism, candidates per office."""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, give, seat_office

from sim.agents import IllegalDecision
from sim.phases.appointments import (
    appoint_governor,
    appoint_office,
    appointments,
    candidates,
    elect_chairman,
)
from sim.rules import Rules

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


def test_appointments_round_per_game():
    """R-APPOINT (L110–L127): game 0: the Shipping Manager (1 stress marker) is the only other office holder, so he
    becomes Director and his marker goes with him; China is closed: no manager. Game 1: no Chairman and nobody else in
    office: chance fills the Director and the Shipping Manager from the clerks (uniforms 0.0: the first candidate, seat
    1's Bombay clerks); the new Director (seat 1) then appoints the Presidents (his own Bombay clerk, seat 3 for Madras,
    seat 2 for Bengal), and chance China's manager (open) from seat 3's second clerk. Game 2 has ended: nothing
    happens."""
    r, s = blank(3, 4)
    seat_office(s, L.CHAIRMAN, 0, games=0)
    seat_office(s, L.SHIPPING, 2, games=0)
    s.stress[0, L.SHIPPING] = 1
    give(s, "clerks", 1, 1, col=0, games=0)
    for g in (1, 2):
        give(s, "clerks", 1, 3, col=0, games=g)
        give(s, "clerks", 3, 2, col=1, games=g)
        give(s, "clerks", 2, 1, col=2, games=g)
    s.china_open[1:] = True
    s.done[2] = True
    strat = Scripted()
    appointments(s, r, dice(), agents(r, s, strat))
    assert s.office[0, L.DIRECTOR] == 2 and s.stress[0, L.DIRECTOR] == 1
    assert s.office[0, L.SHIPPING] == 1 and s.stress[0, L.SHIPPING] == 0 and s.office[0, L.CHINA] == -1
    offices = [L.DIRECTOR, L.SHIPPING, L.PRESIDENT[0], L.PRESIDENT[1], L.PRESIDENT[2], L.CHINA]
    assert s.office[1, offices].tolist() == [1, 1, 1, 3, 2, 3] and s.clerks[1].sum() == 0
    assert (s.office[2] == -1).all() and s.clerks[2].sum() == 6
    asked = [(g, seat) for games, seats in strat.asked("appoint") for g, seat in zip(games, seats, strict=True)]
    assert sorted(set(asked)) == [(0, 0), (1, 1)]  # game 0 has no clerk left for a President
    assert (s.relatives() == 12).all()


def test_presidents_are_appointed_by_the_chairman_when_the_director_is_vacant():
    """R-APPOINT, Presidents (L121): with the Director of Trade vacant, the Chairman (seat 3) is asked and appoints
    Bombay's President from its clerks."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 3)
    give(s, "clerks", 1, 1, col=0)
    strat = Scripted()
    appoint_office(s, r, dice(), agents(r, s, strat), L.PRESIDENT[0])
    assert strat.asked("appoint") == [([0], [3])] and s.office[0, L.PRESIDENT[0]] == 1


def test_a_hung_board_without_a_former_chair_is_settled_by_chance():
    """R-CHAIRMAN election (L111–L112): two families with 1 share each and no former chair: no majority, nobody to pick,
    chance picks (uniform 0.9 -> the second board family). His share becomes the chair."""
    r, s = blank(1, 4)
    give(s, "shares", 1, 1)
    give(s, "shares", 3, 1)
    strat = Scripted(vote_chairman=lambda obs, legal: obs.seat)
    elect_chairman(s, r, dice(uniforms={0: [0.9]}), agents(r, s, strat))
    assert s.office[0, L.CHAIRMAN] == 3 and s.shares[0].tolist() == [0, 1, 0, 0] and s.last_chair[0] == 3
    assert strat.asked("choose_chairman") == []


def test_chairman_majority_boundary_and_vote_weights():
    """R-CHAIRMAN election (L111–L112): 51 % of share votes: 2 of 4 (50 %) is no majority, 3 of 5 is. Votes weigh by
    shares, not by families."""
    r, s = blank(2, 4)
    give(s, "shares", 0, 2)
    give(s, "shares", 1, 1)
    give(s, "shares", 2, 1)
    give(s, "shares", 3, 1, games=1)
    s.last_chair[:] = 2

    def vote(obs, legal):
        return np.where(obs.seat == 0, 0, np.where(obs.games == 1, 0, 1))

    strat = Scripted(vote_chairman=vote, choose_chairman=const(1))
    elect_chairman(s, r, dice(), agents(r, s, strat))
    # game 0: seat 0's 2 votes of 4 -> hung, seat 2 (former chair) picks seat 1; game 1: 2 + 1 + 1 of 5 for seat 0
    assert s.office[:, L.CHAIRMAN].tolist() == [1, 0] and strat.asked("choose_chairman") == [([0], [2])]


def test_chairman_elections_per_game_in_an_appointments_round():
    """R-CHAIRMAN election (L111–L112): game 0: a board of 2 + 2 shares voting for themselves, chairman_vote 0.5: seat
    0's 2 votes are exactly half (the first of the equal) -> elected; a batch-wide board (7) would make it no majority.
    Game 1: an empty board and no former chair: the chair stays vacant. Game 2: 1 + 1 + 1 shares, each votes for itself,
    the former chair is seat 0: no majority, seat 0 picks (not chance). Only board members of electing games vote."""
    r = Rules.default(4).with_overrides({"company.chairman_vote": 0.5})
    _, s = blank(3, 4, r)
    give(s, "shares", 0, 2, games=0)
    give(s, "shares", 1, 2, games=0)
    for seat in (1, 2, 3):
        give(s, "shares", seat, 1, games=2)
    s.last_chair[2] = 0
    s.last_chair[0] = 1  # asked only if game 0 were hung

    strat = Scripted(vote_chairman=lambda obs, legal: obs.seat, choose_chairman=const(3))
    appointments(s, r, dice(), agents(r, s, strat))
    assert s.office[:, L.CHAIRMAN].tolist() == [0, -1, 3]
    voters = sorted(
        (g, seat) for games, seats in strat.asked("vote_chairman") for g, seat in zip(games, seats, strict=True)
    )
    assert voters == [(0, 0), (0, 1), (2, 1), (2, 2), (2, 3)] and strat.asked("choose_chairman") == [([2], [0])]


@pytest.mark.parametrize("vote, ok", [(0, True), (4, False)])
def test_vote_boundaries(vote, ok):
    """R-CHAIRMAN election (L111–L112): candidates seats 0 and 3 (not 1): a vote for seat 0 is legal, a vote for seat 4
    (past the last) is not."""
    r, s = blank(1, 4)
    give(s, "shares", 0, 1)
    give(s, "shares", 3, 1)
    run = lambda: elect_chairman(s, r, dice(), agents(r, s, Scripted(vote_chairman=const(vote))))  # noqa: E731
    if ok:
        run()
        assert s.office[0, L.CHAIRMAN] == 0
    else:
        with pytest.raises(IllegalDecision, match="'vote_chairman' in game 0: not a board member's family"):
            run()


def test_governors_by_a_seat_0_president_or_by_chance_and_told_their_region():
    """D-GOV-APPOINT (L122–L123), R-COMMANDER: Bombay (region 3) owned by Bombay: game 0's President is seat 0 and
    appoints (asked with office -1 - 3); game 1 has neither President nor Chairman (nor an army commander): chance
    appoints, and taking seat 1's officer leaves seats 1 and 2 tied for Bombay's army with no Military Affairs: chance
    picks the commander too."""
    r, s = blank(2, 4)
    bombay = r.d.regions.index("Bombay")
    s.owner[:, bombay] = 0
    seat_office(s, L.PRESIDENT[0], 0, games=0)
    give(s, "officers", 1, 2, col=0)
    give(s, "officers", 2, 1, col=0)
    s.commander[:, 0] = [1, -1]
    seen = []

    def appoint(obs, legal):
        seen.append((obs.games.tolist(), obs.seat.tolist(), legal.office.tolist()))
        return np.full(obs.n, 2), np.full(obs.n, L.SRC_OFFICER[0])

    d = dice(uniforms={1: [0.0, 0.9]})
    appoint_governor(s, r, d, agents(r, s, Scripted(appoint=appoint)), bombay)
    assert seen == [([0], [0], [-1 - bombay])]
    assert s.governor[:, bombay].tolist() == [2, 1] and s.officers[:, 1:3, 0].tolist() == [[2, 0], [1, 1]]
    assert s.commander[:, 0].tolist() == [1, 2] and d.rolls("uniform") == [1, 1]


def test_an_appointments_round_falls_back_on_chance():
    """R-APPOINT (L110–L127): game 0: a hung board (1 + 1 shares) and no former chair: chance elects (uniform 0.9 ->
    seat 3). Game 1: no board, no Chairman, Bombay's region owned with no President: chance makes seat 2's commander
    Military Affairs, then its governor from his family's other officer."""
    r, s = blank(2, 4)
    give(s, "shares", 1, 1, games=0)
    give(s, "shares", 3, 1, games=0)
    bombay = r.d.regions.index("Bombay")
    s.owner[1, bombay] = 0
    give(s, "officers", 2, 2, col=0, games=1)
    s.commander[1, 0] = 2
    strat = Scripted(vote_chairman=lambda obs, legal: obs.seat)
    appointments(s, r, dice(uniforms={0: [0.9]}), agents(r, s, strat))
    assert s.office[:, L.CHAIRMAN].tolist() == [3, -1] and s.governor[1, bombay] == 2
    assert s.office[1, L.MILITARY] == 2 and s.officers[1, 2, 0] == 0


def test_seat_0_is_a_candidate_from_every_place():
    """R-APPOINT, candidates (L115–L121): seat 0 holding Shipping is a Director candidate; commanding Bombay's army, a
    Military Affairs candidate; governing a Madras region, a candidate for Madras's President."""
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 0)
    assert candidates(s, r, L.DIRECTOR)[0, 0, L.SRC_OFFICE0 + L.SHIPPING]
    give(s, "officers", 0, 1, col=0)
    s.commander[0, 0] = 0
    give(s, "officers", 1, 1, col=2)  # Bengal's army has officers but no commander: not a candidate
    cand = candidates(s, r, L.MILITARY)
    assert cand[0, 0, L.SRC_OFFICER[0]] and cand[0].sum() == 1
    mysore = r.d.regions.index("Mysore")
    s.owner[0, mysore] = 1
    s.governor[0, mysore] = 0
    s.supply[0, 0] -= 1
    assert candidates(s, r, L.PRESIDENT[1])[0, 0, L.SRC_GOVERNOR0 + mysore]


def test_an_empty_board_seats_the_last_seat_0_chairs_one_free_relative():
    """R-CHAIRMAN election (L111–L112): an empty board seats a relative at home of the family that held the chair last,
    seat 0 too, and his last one at home is enough."""
    r, s = blank(1, 4)
    s.last_chair[0] = 0
    s.supply[0, 0] = 1
    s.academy[0, 0] = 11
    elect_chairman(s, r, dice(), agents(r, s))
    assert s.office[0, L.CHAIRMAN] == 0 and s.supply[0, 0] == 0


def test_nepotism_asks_each_other_candidate_family_and_one_refusal_is_enough():
    """R-APPOINT, nepotism (L114): the Chairman (seat 0) names his own clerk for Shipping; seats 1 and 2 have
    candidates, seat 3 none: seat 1 refuses, seat 2 consents -- still refused (a later consent does not undo it). Each
    is told the office, the appointer and the candidates. Naming his own again is illegal."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    for seat in (0, 1, 2):
        give(s, "clerks", seat, 1, col=seat)
    seen = []

    def consent(obs, legal):
        seen.append((obs.seat.tolist(), legal.office.tolist(), legal.appointer.tolist(), legal.candidates.sum()))
        return obs.seat == 2

    picks = iter([(0, 0), (2, 2)])

    def appoint(obs, legal):
        seen.append(("appoint", legal.office.tolist(), legal.candidates[0, :, :3].sum(axis=1).tolist()))
        f, src = next(picks)
        return np.array([f]), np.array([src])

    strat = Scripted(consent=consent, appoint=appoint)
    appoint_office(s, r, dice(), agents(r, s, strat), L.SHIPPING)
    assert seen == [
        ("appoint", [L.SHIPPING], [1, 1, 1, 0]),
        ([1], [L.SHIPPING], [0], 3),
        ([2], [L.SHIPPING], [0], 3),
        ("appoint", [L.SHIPPING], [0, 1, 1, 0]),
    ]
    assert s.office[0, L.SHIPPING] == 2
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    for seat in (0, 1):
        give(s, "clerks", seat, 1, col=seat)
    again = Scripted(consent=const(False), appoint=const(0, 0))
    with pytest.raises(IllegalDecision, match="'appoint' in game 0: not one of the candidates"):
        appoint_office(s, r, dice(), agents(r, s, again), L.SHIPPING)


def test_nobody_is_asked_to_appoint_without_candidates_and_past_the_last_source_is_illegal():
    """R-APPOINT, candidates (L117, L121): game 0: Shipping vacant, no clerk anywhere: the Chairman is not asked. The
    last source (the governor of the last region) is the boundary: one past it is illegal."""
    r, s = blank(2, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "clerks", 1, 1, col=0, games=1)
    strat = Scripted()
    appoint_office(s, r, dice(), agents(r, s, strat), L.SHIPPING)
    assert strat.asked("appoint") == [([1], [0])]
    r, s = blank(1, 4)
    seat_office(s, L.DIRECTOR, 0)
    madras = r.d.regions.index("Madras")
    assert madras == len(r.d.regions) - 1
    s.owner[0, madras] = 1
    s.governor[0, madras] = 3
    s.supply[0, 3] -= 1
    last = L.SRC_GOVERNOR0 + madras
    with pytest.raises(IllegalDecision, match="'appoint' in game 0: not one of the candidates"):
        appoint_office(s, r, dice(), agents(r, s, Scripted(appoint=const(3, last + 1))), L.PRESIDENT[1])
    with pytest.raises(IllegalDecision, match="'appoint' in game 0: not one of the candidates"):
        appoint_office(s, r, dice(), agents(r, s, Scripted(appoint=const(4, last))), L.PRESIDENT[1])
    appoint_office(s, r, dice(), agents(r, s, Scripted(appoint=const(3, last))), L.PRESIDENT[1])
    assert s.office[0, L.PRESIDENT[1]] == 3 and s.governor[0, madras] == -1


def test_appointing_military_affairs_from_a_commander_settles_his_army_by_chance():
    """R-APPOINT, candidates (L119), R-COMMANDER, R-RETIRE: Military Affairs from Bombay's commander (seat 1, 2
    officers; seats 2 and 3 have 2 each): his family drops to 1, seats 2 and 3 tie with the office not yet filled, so
    chance picks the new commander (0.9 -> seat 3). A Director moved from Shipping takes his markers and leaves
    Shipping's at 0."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "officers", 1, 2, col=0)
    give(s, "officers", 2, 2, col=0)
    give(s, "officers", 3, 2, col=0)
    s.commander[0, 0] = 1
    d = dice(uniforms={0: [0.9]})
    appoint_office(s, r, d, agents(r, s, Scripted(appoint=const(1, L.SRC_OFFICER[0]))), L.MILITARY)
    assert s.office[0, L.MILITARY] == 1 and s.officers[0, :, 0].tolist() == [0, 1, 2, 2]
    assert s.commander[0, 0] == 3 and d.rolls("uniform") == [1]
    seat_office(s, L.SHIPPING, 3)
    s.stress[0, L.SHIPPING] = 2
    appoint_office(s, r, dice(), agents(r, s, Scripted(appoint=const(3, L.SRC_OFFICE0 + L.SHIPPING))), L.DIRECTOR)
    assert s.stress[0, L.DIRECTOR] == 2 and s.stress[0, L.SHIPPING] == 0 and s.office[0, L.SHIPPING] == -1


def test_consent_is_asked_only_in_games_that_need_it():
    """R-APPOINT, nepotism (L114): game 0: the Chairman names his own clerk: seat 1 (with a candidate) is asked. Game 1:
    he names seat 1's clerk: nobody is asked."""
    r, s = blank(2, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "clerks", 0, 1, col=0)
    give(s, "clerks", 1, 1, col=1)
    strat = Scripted(appoint=lambda obs, legal: (obs.games, np.where(obs.games == 0, 0, 1)), consent=const(True))
    appoint_office(s, r, dice(), agents(r, s, strat), L.SHIPPING)
    assert strat.asked("consent") == [([0], [1])] and s.office[:, L.SHIPPING].tolist() == [0, 1]
