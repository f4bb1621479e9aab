"""Phase 2 family actions (R-ACTIONS) and phase 4 share issue (R-SHARES), on hand-built positions."""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, fund, give, seat_office

from sim import ledger
from sim.agents import IllegalDecision
from sim.phases.family import family_actions, legal_actions
from sim.phases.shares import issue_shares
from sim.rules import Rules
from sim.state import FLOW

# each rule played on both engine paths, the numpy reference and the compiled kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")

PASS = (L.A_PASS, False, [0, 0])


def actions(per_seat: dict[int, tuple]):
    """A strategy answering family_action per seat (others pass)."""

    def answer(obs, legal):
        rows = [per_seat.get(int(s), PASS) for s in obs.seat]
        return (
            np.array([r[0] for r in rows]),
            np.array([r[1] for r in rows]),
            np.array([r[2] for r in rows]),
        )

    return Scripted(family_action=answer, extra_clerk=const(-1))


def run(rules, state, strategy, **dice_kw):
    family_actions(state, rules, dice(**dice_kw), agents(rules, state, strategy))


def test_luxury_shipyard_factory_costs_and_effects():
    r, s = blank(1, 4)
    for seat in range(4):
        fund(s, seat, 10)
    run(
        r,
        s,
        actions({0: (L.A_LUXURY, False, [0, 0]), 1: (L.A_SHIPYARD, False, [0, 0]), 2: (L.A_FACTORY, False, [0, 0])}),
    )
    assert s.money[0].tolist() == [6, 8, 5, 10]
    assert s.luxuries[0, 0] == 1 and s.wealth[0, 0] == 1  # 2 VP at the end, 1 conspicuous wealth
    assert s.shipyards[0, 1] == 1 and s.factories[0, 2] == 1
    assert s.last_action[0].tolist() == [L.A_LUXURY, L.A_SHIPYARD, L.A_FACTORY, L.A_PASS]
    assert ledger.balanced(s).all()
    assert s.ledger[0, FLOW["luxury"]] == -4 and s.ledger[0, FLOW["factory"]] == -5


def test_same_action_as_last_round_may_be_done_twice():
    r, s = blank(1, 4)
    s.money[0, 0] = 9
    s.last_action[0, 0] = L.A_LUXURY
    run(r, s, actions({0: (L.A_LUXURY, True, [0, 0])}))
    assert s.luxuries[0, 0] == 2 and s.money[0, 0] == 1


def test_twice_needs_the_same_action_last_round():
    r, s = blank(1, 4)
    s.money[0, 0] = 20
    s.last_action[0, 0] = L.A_FACTORY
    with pytest.raises(IllegalDecision, match="family_action"):
        run(r, s, actions({0: (L.A_LUXURY, True, [0, 0])}))


def test_unaffordable_action_is_illegal():
    r, s = blank(1, 4)
    s.money[0, 1] = 4
    with pytest.raises(IllegalDecision, match=r"\(seat 1\).*'family_action' in game 0"):
        run(r, s, actions({1: (L.A_FACTORY, False, [0, 0])}))


def test_clerks_twice_to_two_presidencies_and_officer_to_academy():
    r, s = blank(1, 4)
    s.last_action[0, 0] = L.A_CLERK
    run(r, s, actions({0: (L.A_CLERK, True, [0, 2]), 3: (L.A_OFFICER, False, [0, 0])}))
    assert s.clerks[0, 0].tolist() == [1, 0, 1] and s.supply[0, 0] == 10
    assert s.academy[0, 3] == 1 and s.supply[0, 3] == 11
    assert (s.relatives() == 12).all()


def test_exchange_positions_go_in_the_chairmans_order():
    """Three buyers at once: the Chairman (seat 3) ranks them 2, 0, 1 -> they pay 2, 3, 3 (positions 0, 1, 2)."""
    r, s = blank(1, 4)
    for seat in range(4):
        fund(s, seat, 10)
    seat_office(s, L.CHAIRMAN, 3)
    strat = actions({0: (L.A_SHARES, False, [0, 0]), 1: (L.A_SHARES, False, [0, 0]), 2: (L.A_SHARES, False, [0, 0])})
    strat.rank_share_buyers = lambda obs, legal: np.array([[2, 0, 1, 3]] * obs.n)
    run(r, s, strat)
    assert s.exchange[0].tolist() == [2, 0, 1, -1, -1]
    assert s.money[0].tolist() == [7, 7, 8, 10]
    assert ledger.balanced(s).all()


def test_exchange_buyer_who_cannot_pay_his_turns_price_buys_nothing():
    r, s = blank(1, 4)
    s.money[0] = [2, 2, 0, 0]
    run(r, s, actions({0: (L.A_SHARES, False, [0, 0]), 1: (L.A_SHARES, False, [0, 0])}))
    # seat 0 first (no Chairman: seat order) pays 2; seat 1 would pay 3 with 2 £: nothing happens
    assert s.exchange[0].tolist() == [0, -1, -1, -1, -1] and s.money[0, :2].tolist() == [0, 2]
    assert s.supply[0, 1] == 12


def test_extra_clerk_when_four_committee_heads_are_vacant():
    r, s = blank(2, 4)
    for office in (L.CHAIRMAN, L.DIRECTOR, L.SHIPPING, L.MILITARY, L.PRESIDENT[0]):
        seat_office(s, office, 0, games=1)  # game 1: only 2 of 7 heads vacant
    seat_office(s, L.CHAIRMAN, 0, games=0)
    seat_office(s, L.DIRECTOR, 1, games=0)
    seat_office(s, L.SHIPPING, 2, games=0)  # game 0: 4 vacant (Military, 3 presidents)
    strat = actions({})
    strat.extra_clerk = lambda obs, legal: np.full(obs.n, 1)
    run(r, s, strat)
    assert s.clerks[0, :, 1].tolist() == [1, 1, 1, 1]
    assert s.clerks[1].sum() == 0


def test_shares_issue_one_per_loan_from_the_most_expensive_position():
    """R-SHARES: exchange [A, B, C] and 2 loans: C joins the board, then B; A moves up two positions."""
    r, s = blank(1, 4)
    s.exchange[0, :3] = [0, 1, 2]
    s.loans[0] = 2
    issue_shares(s, r, dice(), agents(r, s))
    assert s.shares[0].tolist() == [0, 1, 1, 0]
    assert s.loans[0] == 0
    assert s.exchange[0].tolist() == [-1, -1, 0, -1, -1]


def test_shares_stop_when_nobody_waits():
    r, s = blank(2, 4)
    s.exchange[0, :2] = [3, 3]
    s.loans[:] = [5, 0]
    s.exchange[1, 0] = 1
    issue_shares(s, r, dice(), agents(r, s))
    assert s.shares[0, 3] == 2 and s.loans[0] == 3 and (s.exchange[0] < 0).all()
    assert s.firm_fresh[0].tolist() == [0, 0, 0, 2]  # both new shares are fresh until the next firm phase
    assert s.shares[1].sum() == 0 and s.exchange[1, 0] == 1  # no loans, no issue


def per_seat(answers: dict):
    """family_action answering per (game, seat); others pass."""

    def answer(obs, legal):
        rows = [
            answers.get((int(g), int(s)), (L.A_PASS, False, [0, 0])) for g, s in zip(obs.games, obs.seat, strict=True)
        ]
        return np.array([a[0] for a in rows]), np.array([a[1] for a in rows]), np.array([a[2] for a in rows])

    return answer


def test_shares_issue_to_seat_0_and_move_the_queue_per_game():
    """R-SHARES (L108) in two games at once: game 0 [0, 1, 2] with 1 loan -> seat 2 joins, [-, 0, 1]; game 1 [0, 0] with
    3 loans -> both of seat 0's relatives join the board."""
    r, s = blank(2, 4)
    s.exchange[0, :3] = [0, 1, 2]
    s.exchange[1, :2] = [0, 0]
    s.loans[:] = [1, 3]
    issue_shares(s, r, dice(), agents(r, s))
    assert s.exchange.tolist() == [[-1, 0, 1, -1, -1], [-1, -1, -1, -1, -1]]
    assert s.shares.tolist() == [[0, 0, 1, 0], [2, 0, 0, 0]] and s.loans.tolist() == [0, 1]


def test_family_actions_per_game_and_a_finished_game_untouched():
    """R-ACTIONS (L76–L84): game 0: seat 0 buys two luxuries (twice: 8 £, wealth 2), seat 1 a shipyard twice, seat 2 two
    factories, seat 3 an officer twice. Game 1 has ended: nobody is asked and nothing changes."""
    r, s = blank(2, 4)
    for seat in range(4):
        fund(s, seat, 10)
    s.last_action[:] = [L.A_LUXURY, L.A_SHIPYARD, L.A_FACTORY, L.A_OFFICER]
    s.done[1] = True
    answers = {(0, 0): (L.A_LUXURY, True, [0, 0]), (0, 1): (L.A_SHIPYARD, True, [0, 0])}
    answers |= {(0, 2): (L.A_FACTORY, True, [0, 0]), (0, 3): (L.A_OFFICER, True, [0, 0])}
    strat = Scripted(family_action=per_seat(answers), extra_clerk=const(-1))
    family_actions(s, r, dice(), agents(r, s, strat))
    assert [g for g, _ in strat.asked("family_action")] == [[0]] * 4
    assert s.money.tolist() == [[2, 6, 0, 10], [10, 10, 10, 10]]
    assert s.luxuries[:, 0].tolist() == [2, 0] and s.wealth[:, 0].tolist() == [2, 0]
    assert s.shipyards[:, 1].tolist() == [2, 0] and s.factories[:, 2].tolist() == [2, 0]
    assert s.academy[:, 3].tolist() == [2, 0] and s.supply[:, 3].tolist() == [10, 12]
    assert s.ledger[0, FLOW["shipyard"]] == -4 and s.ledger[0, FLOW["factory"]] == -10
    assert s.last_action[1].tolist() == [L.A_LUXURY, L.A_SHIPYARD, L.A_FACTORY, L.A_OFFICER]
    assert ledger.balanced(s).all()


def test_no_twice_when_the_rule_is_off_and_none_for_a_single_exchange_position():
    """R-ACTIONS, twice (L84): with ``actions.repeat_twice`` off the last round's action may not be done twice; with an
    exchange of one position (``actions.exchange_prices`` [2]) shares may be bought once, not twice."""
    r = Rules.default(4).with_overrides({"actions.repeat_twice": False})
    _, s = blank(1, 4, r)
    fund(s, 0, 20)
    s.last_action[0, 0] = L.A_LUXURY
    once, twice = legal_actions(s, r, 0)
    assert once[0, L.A_LUXURY] and not twice.any()
    one = Rules.default(4).with_overrides({"actions.exchange_prices": [2]})
    _, s = blank(1, 4, one)
    fund(s, 0, 20)
    s.last_action[0, 0] = L.A_SHARES
    once, twice = legal_actions(s, one, 0)
    assert once[0, L.A_SHARES] and not twice[0, L.A_SHARES]


def test_contested_exchange_without_a_chairman_is_ranked_by_the_last_chair():
    """R-ACTIONS, exchange order (L83): two buyers, the chair vacant: the family that last held it ranks them (3 puts
    seat 1 first). One buyer alone: nobody is asked."""
    r, s = blank(2, 4)
    for seat in range(4):
        fund(s, seat, 5)
    s.last_chair[:] = 3
    answers = {(0, 0): (L.A_SHARES, False, [0, 0]), (0, 1): (L.A_SHARES, False, [0, 0])}
    answers |= {(1, 2): (L.A_SHARES, False, [0, 0])}
    strat = Scripted(family_action=per_seat(answers), extra_clerk=const(-1), rank_share_buyers=const([1, 0, 2, 3]))
    family_actions(s, r, dice(), agents(r, s, strat))
    assert strat.asked("rank_share_buyers") == [([0], [3])]
    assert s.exchange.tolist() == [[1, 0, -1, -1, -1], [2, -1, -1, -1, -1]]
    assert s.money.tolist() == [[2, 3, 5, 5], [5, 5, 3, 5]]


def test_the_extra_clerk_is_offered_only_to_families_with_someone_at_home():
    """R-ACTIONS, extra clerk (L81): with the committee heads vacant, each family with a relative at home is asked where
    to send an extra clerk (seat 2, all 12 in the academy, is not asked), and nobody in a finished game (game 1)."""
    r, s = blank(2, 4)
    s.supply[0, 2] = 0
    s.academy[0, 2] = 12
    s.done[1] = True
    strat = Scripted(family_action=const(L.A_PASS, False, [0, 0]), extra_clerk=const(1))
    family_actions(s, r, dice(), agents(r, s, strat))
    assert [(g, seats) for g, seats in strat.asked("extra_clerk")] == [([0], [0]), ([0], [1]), ([0], [3])]
    assert s.clerks[0, :, 1].tolist() == [1, 1, 0, 1] and s.clerks[1].sum() == 0


def test_family_action_boundaries():
    """R-ACTIONS (L76–L84): exactly the price buys once (luxury 4, shipyard 2, factory 5; one less does not); one
    relative at home is enough for a clerk, an officer or a share, none is not; a place taken by seat 0 is taken."""
    r, s = blank(2, 4)
    s.money[0] = [4, 2, 5, 0]
    s.money[1] = [2, 1, 4, 9]
    s.ledger[:, 0] = s.money.sum(axis=1)
    s.supply[0, 3] = 1
    s.academy[0, 3] = 11
    s.supply[1, 3] = 0
    s.academy[1, 3] = 12
    s.exchange[1, 0] = 0  # game 1: seat 0 waits on the cheapest position: the cheapest free one costs 3
    s.supply[1, 0] -= 1
    once = [legal_actions(s, r, seat)[0] for seat in range(4)]
    assert [once[0][:, L.A_LUXURY].tolist(), once[1][:, L.A_SHIPYARD].tolist(), once[2][:, L.A_FACTORY].tolist()] == [
        [True, False],
        [True, False],
        [True, False],
    ]
    assert once[3][:, L.A_CLERK].tolist() == once[3][:, L.A_OFFICER].tolist() == [True, False]
    assert once[3][:, L.A_SHARES].tolist() == [False, False]  # game 0: no money; game 1: nobody at home
    assert once[1][:, L.A_SHARES].tolist() == [True, False]  # 2 £ buy the cheapest place in game 0
    assert not once[0][1, L.A_SHARES]  # game 1: seat 0's own place is taken, 2 £ do not buy the next (3 £)


def test_actions_add_to_what_a_family_has_and_past_the_last_action_is_illegal():
    """R-ACTIONS (L76–L84): a luxury, a factory and an officer add to what the family has (luxuries 2 -> 3 and wealth
    3 -> 4, factories 1 -> 2, academy 1 -> 2); an action past the last is illegal."""
    r, s = blank(1, 4)
    for seat in range(4):
        fund(s, seat, 10)
    s.luxuries[0, 0], s.wealth[0, 0], s.factories[0, 2], s.academy[0, 3] = 2, 3, 1, 1
    s.supply[0, 3] -= 1
    answers = {(0, 0): (L.A_LUXURY, False, [0, 0]), (0, 2): (L.A_FACTORY, False, [0, 0])}
    answers |= {(0, 3): (L.A_OFFICER, False, [0, 0])}
    family_actions(s, r, dice(), agents(r, s, Scripted(family_action=per_seat(answers), extra_clerk=const(-1))))
    assert s.luxuries[0, 0] == 3 and s.wealth[0, 0] == 4 and s.factories[0, 2] == 2 and s.academy[0, 3] == 2
    with pytest.raises(IllegalDecision, match="'family_action' in game 0: action not affordable"):
        family_actions(s, r, dice(), agents(r, s, Scripted(family_action=const(L.N_ACTIONS, False, [0, 0]))))


def test_a_seat_0_chairman_ranks_the_buyers_who_are_named_to_him_per_game():
    """R-ACTIONS, exchange order (L83): a Chairman who is seat 0's relative ranks the buyers, told in each game who buys
    (seats 1 and 2); a ranking that is not an ordering of the seats (game 1 names seat 1 twice) is illegal and names its
    game."""
    r, s = blank(2, 4)
    seat_office(s, L.CHAIRMAN, 0)
    for seat in range(4):
        fund(s, seat, 5)
    answers = {(g, seat): (L.A_SHARES, False, [0, 0]) for g in (0, 1) for seat in (1, 2)}
    seen = []

    def rank(obs, legal):
        seen.append((obs.seat.tolist(), legal.buyers.tolist()))
        return np.where(obs.games[:, None] == 0, [[2, 1, 0, 3]], [[1, 1, 2, 3]])

    strat = Scripted(family_action=per_seat(answers), extra_clerk=const(-1), rank_share_buyers=rank)
    with pytest.raises(IllegalDecision, match="'rank_share_buyers' in game 1: not an ordering of the seats"):
        family_actions(s, r, dice(), agents(r, s, strat))
    assert seen == [([0, 0], [[False, True, True, False]] * 2)]


def test_twice_and_extra_clerk_boundaries():
    """R-ACTIONS, twice (L84) and the extra clerk (L81): two relatives at home are enough to send two (clerks, officers,
    shares); two free places are enough to buy two; the extra clerk needs just one at home and adds to his clerks
    there."""
    r, s = blank(1, 4)
    s.supply[0] = [2, 2, 1, 12]
    s.academy[0] = [10, 10, 11, 0]
    s.exchange[0, :3] = 3
    s.supply[0, 3] -= 3
    s.last_action[0] = [L.A_SHARES, L.A_CLERK, L.A_CLERK, L.A_PASS]
    fund(s, 0, 9)
    assert legal_actions(s, r, 0)[1][0, L.A_SHARES] and legal_actions(s, r, 1)[1][0, L.A_CLERK]
    answers = {(0, 0): (L.A_SHARES, True, [0, 0])}
    give(s, "clerks", 2, 1, col=1)
    s.supply[0, 2] += 1  # seat 2: one clerk in Madras already, one relative at home
    strat = Scripted(family_action=per_seat(answers), extra_clerk=const(1))
    family_actions(s, r, dice(), agents(r, s, strat))
    assert s.exchange[0].tolist() == [3, 3, 3, 0, 0] and s.money[0, 0] == 0 and s.supply[0, 0] == 0
    assert [seats for _, seats in strat.asked("extra_clerk")] == [[1], [2], [3]]
    assert s.clerks[0, 2].tolist() == [0, 2, 0] and s.supply[0, 2] == 0 and s.supply[0, 1] == 1


def test_shares_twice_needs_the_two_cheapest_free_positions():
    """R-ACTIONS: exchange prices 2, 3, 3, 4, 5. Twice costs the cheapest plus the second-cheapest *free* position: 5
    with an empty exchange (not 2 x 2 = 4), 6 once position 0 is taken (not the positional 2 + 3)."""
    r, s = blank(2, 4)
    s.exchange[1, 0] = 3
    s.supply[1, 3] -= 1
    s.last_action[:, :2] = L.A_SHARES
    fund(s, 0, 4, games=0)
    fund(s, 1, 5, games=0)
    fund(s, 0, 5, games=1)
    fund(s, 1, 6, games=1)
    once0, twice0 = legal_actions(s, r, 0)
    once1, twice1 = legal_actions(s, r, 1)
    assert once0[:, L.A_SHARES].all() and once1[:, L.A_SHARES].all()
    assert twice0[:, L.A_SHARES].tolist() == [False, False]
    assert twice1[:, L.A_SHARES].tolist() == [True, True]


def test_shares_once_needs_the_cheapest_free_position():
    """R-ACTIONS: buying a share once needs the price of the cheapest *free* exchange position: with positions 0
    and 1 taken the cheapest free costs 3 £, so 2 £ is not enough (not position 0's 2 £) and 3 £ is."""
    r, s = blank(1, 4)
    s.exchange[0, :2] = [3, 3]  # the two cheapest taken: cheapest free is 3
    s.supply[0, 3] -= 2
    fund(s, 0, 2)
    fund(s, 1, 3)
    assert not legal_actions(s, r, 0)[0][0, L.A_SHARES] and legal_actions(s, r, 1)[0][0, L.A_SHARES]


def test_twice_needs_twice_the_price_and_two_relatives():
    """R-ACTIONS: an action taken twice needs twice what it needs once: a luxury (4 £) twice needs 8 £ (seat 0's
    7 £ buys one only, seat 1's 8 £ two); a clerk twice needs two relatives at home (seat 2's one is not enough,
    seat 3's two are)."""
    r, s = blank(1, 4)
    s.last_action[0] = [L.A_LUXURY, L.A_LUXURY, L.A_CLERK, L.A_CLERK]
    fund(s, 0, 7)  # luxury 4: once, not twice
    fund(s, 1, 8)
    s.supply[0, 2] = 1
    s.supply[0, 3] = 2
    assert [legal_actions(s, r, k)[1][0].tolist().count(True) for k in range(4)] == [0, 1, 0, 1]


def test_shares_legal_with_one_at_home_a_full_exchange_and_a_two_place_exchange():
    """R-ACTIONS, shares (L83): one relative at home is enough to buy once; a full exchange sells nothing; buying twice
    needs two at home and, on an exchange of two positions (2 and 3 £), the 5 £ for both."""
    r = Rules.default(4).with_overrides({"actions.exchange_prices": [2, 3]})
    _, s = blank(2, 4, r)
    s.exchange[1] = [2, 3]
    s.supply[1, 2] -= 1
    s.supply[1, 3] -= 1
    fund(s, 0, 5)
    s.supply[0, 0] = 1
    s.academy[0, 0] = 11
    s.last_action[:, 0] = L.A_SHARES
    once, twice = legal_actions(s, r, 0)
    assert once[:, L.A_SHARES].tolist() == [True, False]  # one at home is enough; game 1's exchange is full
    assert not twice[0, L.A_SHARES]  # ... but twice needs two at home
    s.supply[0, 0], s.academy[0, 0] = 2, 10
    assert legal_actions(s, r, 0)[1][:, L.A_SHARES].tolist() == [True, False]  # two places, 2 + 3 = 5 £
