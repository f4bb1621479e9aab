"""End of game (R-END): share VP (D-SHAREVP), the six blame situations, influence ranking, the final retirement
(R-RETIRE), the winner."""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, fund, give, seat_office

from sim import laws
from sim.agents import IllegalDecision
from sim.phases.end import V, end_game, influence, pick_winner, ranking_vp, score
from sim.phases.london import retirement_roll
from sim.rules import Rules
from sim.state import TALLY

# each rule played on both engine paths, the numpy reference and the compiled kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")


def finished(s, crashed, end_round=7, blame=-1):
    s.done[:] = True
    s.crashed[:] = crashed
    s.end_round[:] = end_round
    s.blame[:] = blame


def test_share_vp_on_success_and_crash_chairman_included():
    r, s = blank(2, 4)
    seat_office(s, L.CHAIRMAN, 1)
    give(s, "shares", 1, 2)
    give(s, "shares", 2, 1)
    s.share_vp[:] = 2
    finished(s, crashed=np.array([False, True]), blame=np.array([-1, 0]))
    score(s, r)
    assert s.vp[0, :, V["company_shares"]].tolist() == [0, 6, 2, 0]
    assert s.vp[1, :, V["company_shares"]].tolist() == [0, -6, -2, 0]


def test_blame_board_impeccable_scores_shares_as_a_success():
    r, s = blank(1, 4)
    give(s, "shares", 3, 2)
    finished(s, crashed=True, end_round=4, blame=2)
    score(s, r)
    assert s.vp[0, 3, V["company_shares"]] == 2 and s.vp[0, 3, V["blame"]] == 0


@pytest.mark.parametrize(
    "blame, expected",
    [
        (0, [-2, 0, 0, -1]),  # military: half of trophies + officers (a commander is one of them), rounded down
        (1, [0, -2, 0, 0]),  # shipbuilders: -1 per shipyard
        (3, [-1, 0, -4, 0]),  # parliament: -1 per wreath, the PM -2 more
        (4, [0, 0, -2, -4]),  # despots: -2 per governor, -4 for the Governor-General
        (5, [0, 0, 0, 0]),  # industrialists: factories, prisons and firm shares score nothing
    ],
)
def test_blame_situations(blame, expected):
    r, s = blank(1, 4)
    s.trophies[0] = [3, 0, 0, 1]
    give(s, "officers", 0, 2, col=0)
    s.commander[0, 0] = 0  # seat 0: 3 trophies + 2 officers, his commander among them = 5 -> -2 (not 6 -> -3)
    give(s, "officers", 3, 1, col=1)
    s.commander[0, 1] = 3  # seat 3: 1 + 1 = 2 -> -1
    s.shipyards[0, 1] = 2
    s.wreaths[0] = [1, 0, 2, 0]
    s.prime_minister[0] = 2
    s.governor[0, 0] = 2
    s.supply[0, 2] -= 1
    seat_office(s, L.GOVERNOR_GENERAL, 3)
    s.factories[0, 0] = 2
    finished(s, crashed=True, end_round=5, blame=blame)
    score(s, r)
    assert s.vp[0, :, V["blame"]].tolist() == expected
    factories = s.vp[0, 0, V["factories"]]
    assert factories == (0 if blame == 5 else 2)  # a crash scores 1 VP per factory, except under blame 6


@pytest.mark.parametrize("invested_votes", [True, False])
def test_an_invested_factory_scores_no_crash_vp(invested_votes):
    """R-END, L79 and D-INVESTED-FACTORY: an invested factory (a firm's) stops giving its 1 VP on a crash, whether or
    not it still votes (``firms.invested_factory_votes``). Seat 1 holds 2 uninvested and 3 invested factories: 2 VP,
    not 5; seat 2 holds only invested ones: 0 VP."""
    r, s = blank(1, 4, **{"firms.invested_factory_votes": invested_votes})
    s.factories[0, 1] = 2
    s.invested_factories[0, 1] = 3
    s.invested_factories[0, 2] = 1
    finished(s, crashed=True, end_round=5, blame=0)
    score(s, r)
    assert s.vp[0, :, V["factories"]].tolist() == [0, 2, 0, 0]


def test_influence_and_ranking_vp_by_end_round():
    r, s = blank(1, 4)
    s.prime_minister[0] = 0  # 2
    s.wreaths[0, 1] = 1  # 1
    s.trophies[0, 1] = 2  # 2
    s.luxuries[0, 2] = 1  # ladder: luxury 2
    give(s, "shares", 3, 1)  # ladder: share 1
    assert influence(s, r)[0].tolist() == [2, 3, 2, 1]
    assert ranking_vp(r, influence(s, r), np.array([7])).tolist() == [[4, 8, 4, 0]]
    assert ranking_vp(r, influence(s, r), np.array([2])).tolist() == [[1, 3, 1, 0]]
    assert ranking_vp(r, influence(s, r), np.array([5])).tolist() == [[2, 5, 2, 0]]


def test_a_tie_for_first_in_influence_gives_the_tied_second_place_vp():
    r = Rules.default(4)
    got = ranking_vp(r, np.array([[3, 3, 1, 0]]), np.array([7]))
    assert got.tolist() == [[4, 4, 0, 0]]


@pytest.mark.parametrize("end_round, first, second", [(1, 3, 1), (3, 3, 1), (4, 5, 2), (6, 5, 2), (7, 8, 4)])
def test_influence_vp_band_edges(end_round, first, second):
    """R-END: influence_vp bands end at rounds 3 and 6 inclusive: a game ending in round 3 is in the first band, round 4
    in the second, round 6 still the second, round 7 the third (a band read as exclusive shifts rounds 3 and 6)."""
    got = ranking_vp(Rules.default(4), np.array([[5, 9, 2, 0]]), np.array([end_round]))
    assert got.tolist() == [[second, first, 0, 0]]


def test_influence_counts_the_chair_as_a_share():
    """R-END, D-SHAREVP: the chair is a share on the influence ladder. Seat 0 holds only the chair, seat 1 one
    share: equal influence, so they tie for first (ignoring the chair would make seat 1 first alone)."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "shares", 1, 1)
    infl = influence(s, r)
    assert infl[0].tolist() == [1, 1, 0, 0]
    assert ranking_vp(r, infl, np.array([7])).tolist() == [[4, 4, 0, 0]]


def test_a_single_runner_up_gets_second_and_the_rest_nothing():
    """R-END: only the first and the second place score influence VP: families tied for second each get the second
    place's VP (game 0: seats 0 and 2, 4 each), a single runner-up gets it alone (game 1: seat 2), and the families
    below get nothing (no third place, no split of the second)."""
    r = Rules.default(4)
    assert ranking_vp(r, np.array([[2, 7, 2, 1]]), np.array([7])).tolist() == [[4, 8, 4, 0]]
    assert ranking_vp(r, np.array([[1, 7, 3, 1]]), np.array([5])).tolist() == [[0, 5, 2, 0]]


def test_final_retirement_buys_honourable_retirement():
    """R-RETIRE at the end of a success: the Chairman rolls 4 + 1 = 5 and retires; his family buys tier 3."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 2)
    seat_office(s, L.DIRECTOR, 1)
    fund(s, 2, 15)
    strat = Scripted(retire=const(3))
    # offices roll in order: Chairman 4 (+1) -> retires; Director 3 -> a stress marker
    retirement_roll(s, r, dice({0: [4, 3]}), agents(r, s, strat), np.arange(1))
    assert s.office[0, L.CHAIRMAN] == -1 and s.retired[0, 2, 3] == 1 and s.money[0, 2] == 1
    assert s.wealth[0, 2] == 3 and s.stress[0, L.DIRECTOR] == 1 and s.office[0, L.DIRECTOR] == 1
    assert (s.relatives() == 12).all()


def test_unaffordable_retirement_tier_is_illegal():

    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 0)
    fund(s, 0, 3)
    with pytest.raises(IllegalDecision, match="retire"):
        retirement_roll(s, r, dice({0: [6]}), agents(r, s, Scripted(retire=const(1))), np.arange(1))


def test_end_game_vp_sum_and_winner_tiebreaks():
    r, s = blank(3, 4)
    s.luxuries[:, 0] = 2  # 4 VP
    s.luxuries[:, 1] = 2
    s.wealth[:, 0] = [1, 1, 0]  # game 0: seat 0 richer in wealth; game 1: equal wealth, seat 1 more money
    s.wealth[:, 1] = [0, 1, 0]
    fund(s, 1, 5, games=1)
    s.crashed[:] = False
    s.stability[:] = 3
    s2 = s.take(np.arange(3))
    end_game(s, r, dice(uniforms={2: [0.0]}), agents(r, s))
    assert np.allclose(s.vp.sum(axis=2)[:, :2], s.vp[:, :2, V["luxury"]] + s.vp[:, :2, V["influence"]])
    assert s.winner.tolist() == [0, 1, 0]  # wealth, then money, then chance (first of the tied)
    assert (s.end_round == 7).all() and s.done.all()
    end_game(s2, r, dice(uniforms={2: [0.9]}), agents(r, s2))
    assert s2.winner.tolist() == [0, 1, 1]  # chance picks the other tied seat


def test_winner_tie_break_wealth_before_money():
    """R-END: equal VP -> more conspicuous wealth wins, even against more money (money only breaks equal wealth)."""
    r, s = blank(2, 4)
    s.vp[:, 0, 0] = s.vp[:, 1, 0] = 4
    s.vp[:, 2, 0] = 3  # less VP: richest in everything, still loses
    s.wealth[0, :3] = [2, 1, 9]
    fund(s, 1, 9, games=0)
    fund(s, 2, 20)
    s.wealth[1, :3] = [1, 1, 9]  # game 1: equal wealth, then money decides
    fund(s, 1, 3, games=1)
    fund(s, 0, 2, games=1)
    d = dice()
    pick_winner(s, d)
    assert s.winner.tolist() == [0, 1]


def test_the_final_retirement_offers_no_position_and_is_not_phase_1s_tenure_limits():
    """L256 / RULES.md "a final retirement roll without positions": the retiree's family is told ``final`` and that
    it may not pick (a position card is on the market); Tenure Limits (a phase-1 modifier) does not retire a
    Chairman whose final roll is 1 + 1 = 2."""

    r, s = blank(2, 4)
    seat_office(s, L.CHAIRMAN, 0)
    s.law_pile[:, r.d.law_names.index("Tenure Limits")] = laws.IN_FORCE
    s.market[:, 0] = 0  # a position card on display
    told = []
    strat = Scripted(
        retire=lambda obs, legal: told.append((legal.final.tolist(), legal.pick.tolist())) or const(-1)(obs, legal)
    )
    end_game(s, r, dice({0: [1], 1: [4]}, uniforms={0: [0.0], 1: [0.0]}), agents(r, s, strat))
    assert s.office[:, L.CHAIRMAN].tolist() == [0, -1]  # game 0 keeps him; game 1 rolled 4 + 1 and he went home
    assert s.supply[:, 0].tolist() == [11, 12]
    assert told == [([True], [False])]  # only game 1's family was asked


def test_the_final_retirement_adds_its_sent_home_to_the_rounds_tally():
    """L64 and the final retirement (L256): the last round's London season already sent 2 home; the final retirement
    sends the Director of Trade home (a 6 retires him, no tier paid): the round's ``sent_home`` is 3
    (added), not 1 (written over)."""
    r, s = blank(1, 4)
    seat_office(s, L.DIRECTOR, 1)
    s.tally[0, TALLY["sent_home"]] = 2
    retirement_roll(s, r, dice({0: [6]}), agents(r, s, Scripted(retire=const(-1))), np.arange(1), final=True)
    assert s.supply[0, 1] == 12 and s.tally[0, TALLY["sent_home"]] == 3


def test_a_chairman_retiring_at_the_end_keeps_the_chairs_share_vp():
    """R-END, D-SHAREVP, L256: on a success the shareholders score, then the final retirement: the Chairman (seat 2, one
    share) rolls 5 + 1 and retires, yet scores 2 share VP (his share and the chair), not 1."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 2)
    give(s, "shares", 2, 1)
    give(s, "shares", 1, 1)
    end_game(s, r, dice({0: [5]}), agents(r, s, Scripted(retire=const(-1))))
    assert s.office[0, L.CHAIRMAN] == -1 and s.supply[0, 2] == 11  # he did retire (sent home)
    assert s.vp[0, :, V["company_shares"]].tolist() == [0, 1, 2, 0]


def test_military_blame_counts_a_commander_once():
    """R-END, L250: half of trophies + officers + commanders; the commander is one of the officers: 1 trophy + 2
    officers (one commands) = 3 -> -1, not 4 -> -2."""
    r, s = blank(1, 4)
    s.trophies[0, 1] = 1
    give(s, "officers", 1, 2, col=0)
    s.commander[0, 0] = 1
    s.done[:], s.crashed[:], s.end_round[:], s.blame[:] = True, True, 3, 0
    score(s, r)
    assert s.vp[0, 1, V["blame"]] == -1


def test_score_retirements_prisoners_and_the_ladder_weights():
    """R-END (L248–L261): retired relatives score their tier's VP; debtors' prison -1 each (nothing under blame 6); the
    influence ladder weighs every asset by its rules value (shipyards and factories weigh 0 by default: set 3 and 5
    here)."""
    r = Rules.default(4).with_overrides(
        {"end.influence_ladder": {"luxuries": 2, "shares": 1, "shipyards": 3, "factories": 5}}
    )
    _, s = blank(3, 4, r)
    s.retired[:, 1, 1] = 1  # tier 1: 2 VP
    s.retired[:, 1, 4] = 2  # tier 4: 12 VP each
    s.prisoners[:, 2] = 3
    s.supply[:, 1] -= 3
    s.supply[:, 2] -= 3
    s.shipyards[:, 0] = 1
    s.factories[:, 3] = 1
    s.done[:] = True
    s.end_round[:] = [7, 4, 4]
    s.crashed[:] = [False, True, True]
    s.blame[:] = [-1, 5, 1]  # industrialists, shipbuilders
    score(s, r)
    assert s.vp[:, 1, V["retirements"]].tolist() == [26, 26, 26]
    assert s.vp[:, 2, V["debtors_prison"]].tolist() == [-3, 0, -3]
    assert s.influence[0].tolist() == [3, 0, 0, 5]
    assert s.vp[:, 3, V["factories"]].tolist() == [0, 0, 1] and s.vp[:, 0, V["blame"]].tolist() == [0, 0, -1]
    assert (s.vp[:, :, V["firm_shares"]] == 0).all()


def test_end_game_ends_running_games_draws_blame_only_on_a_crash_and_retires_only_on_success():
    """R-END (L249–L256), R-RETIRE: game 0 survived round 7: its Chairman rolls the final retirement (6 + 1: retires,
    sent home). Game 1 crashed in round 3: no retirement roll, a blame situation drawn (uniform 0.55 with six equal
    weights -> the fourth, parliament)."""
    r, s = blank(2, 4)
    seat_office(s, L.CHAIRMAN, 1)
    s.crashed[1] = True
    s.done[1] = True
    s.end_round[1] = 3
    s.stability[1] = 0
    d = dice({0: [6]}, uniforms={1: [0.55]})
    end_game(s, r, d, agents(r, s, Scripted(retire=const(-1))))
    d.assert_spent()
    assert [k for k, g, _ in d.log if k == "d6"] == ["d6"] and d.rolls("d6", 0) == [1]
    assert s.end_round.tolist() == [7, 3] and s.done.all()
    assert s.office[:, L.CHAIRMAN].tolist() == [-1, 1] and s.blame.tolist() == [-1, 3]


def test_influence_ranking_per_game():
    """R-END, influence VP (L259–L261): each game ranks its own families: [9, 5, 5, 0] and [2, 2, 1, 0] in one batch (a
    batch-wide top or tie count would give the second game nothing)."""
    r = Rules.default(4)
    got = ranking_vp(r, np.array([[9, 5, 5, 0], [2, 2, 1, 0], [0, 3, 1, 1]]), np.array([7, 7, 7]))
    assert got.tolist() == [[8, 4, 4, 0], [4, 4, 0, 0], [0, 8, 4, 4]]


def test_despots_blame_counts_governors_lost_to_revolts():
    """R-END (L254): blame 5 (despots): -2 per governor, including those deposed this round, -4 for the
    Governor-General."""
    r, s = blank(1, 4)
    s.governor[0, 0] = 1
    s.supply[0, 1] -= 1
    s.deposed[0] = [0, 1, 2, 0]
    s.done[:] = True
    s.crashed[:] = True
    s.end_round[:] = 5
    s.blame[:] = 4
    score(s, r)
    assert s.vp[0, :, V["blame"]].tolist() == [0, -4, -4, 0]
