"""The engine's legality checks of strategies' answers: for every decision, each way an answer can be
illegal raises ``IllegalDecision`` with the decision and its reason, and the boundary answer just inside is legal."""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, fund, give, seat_office

import strategies
from sim import ledger
from sim.agents import IllegalDecision, StrategyError
from sim.phases.accounts import dividends
from sim.phases.appointments import appoint_office, elect_chairman
from sim.phases.family import family_actions
from sim.phases.london import retirement_roll
from sim.phases.military import apply_military_moves, deploy, military_affairs, settle_commanders
from sim.phases.operations import (
    apply_director_moves,
    chairman,
    director_of_trade,
    governors,
    presidents,
    shipping_manager,
)
from sim.phases.setup import collect_bids
from sim.state import new_state


def raises(decision: str, reason: str):
    return pytest.raises(IllegalDecision, match=f"'{decision}' in game 0: {reason}")


# ----------------------------------------------------------------------------------------------------- setup
@pytest.mark.parametrize("which", [0, 1, 2])
@pytest.mark.parametrize("value", [-1, 10_001, 2**32])  # 2**32 would wrap to 0 in the int32 bid total
def test_bids_steps_and_caps_must_lie_within_0_and_10000(which, value):
    r, s = blank(1, 4)
    n_lots = len(r.d.lot_names)

    def bid(obs, legal, value=value):
        out = [np.zeros((obs.n, n_lots), dtype=np.int64) for _ in range(3)]
        out[which][:, 5] = value
        return tuple(out)

    with raises("bid", "bids, steps and caps must be integers 0..10,000"):
        collect_bids(s, r, agents(r, s, Scripted(bid=bid)))
    for edge in (0, 10_000):  # both ends are legal
        collect_bids(s, r, agents(r, s, Scripted(bid=const(*([np.full(n_lots, edge)] * 3)))))


# --------------------------------------------------------------------------------------------- family actions
ACTION = "action not affordable or not allowed"


def family(s, r, answer, **kw):
    strat = Scripted(family_action=const(*answer), extra_clerk=const(-1), **kw)
    family_actions(s, r, dice(), agents(r, s, strat))


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param((-1, False, [0, 0]), id="negative-action"),
        pytest.param((L.N_ACTIONS, False, [0, 0]), id="action-past-the-last"),
        pytest.param((L.A_LUXURY, False, [0, 0]), id="not-affordable"),
        pytest.param((L.A_OFFICER, True, [0, 0]), id="twice-not-last-rounds-action"),
        pytest.param((L.A_CLERK, False, [-1, 0]), id="clerk-to-presidency-minus-1"),
        pytest.param((L.A_CLERK, False, [3, 0]), id="clerk-to-presidency-3"),
    ],
)
def test_illegal_family_actions(answer):
    r, s = blank(1, 4)
    with raises("family_action", ACTION):
        family(s, r, answer)


def test_a_second_clerk_needs_a_real_presidency_only_when_sent_twice():
    r, s = blank(1, 4)
    s.last_action[0] = L.A_CLERK
    with raises("family_action", ACTION):
        family(s, r, (L.A_CLERK, True, [0, 3]))
    family(s, r, (L.A_CLERK, False, [2, 7]))  # once: the second presidency is ignored
    assert s.clerks[0, :, 2].tolist() == [1, 1, 1, 1]
    family(s, r, (L.A_CLERK, True, [0, 2]))  # twice: both presidencies
    assert s.clerks[0, :, 0].tolist() == [1, 1, 1, 1] and s.clerks[0, :, 2].tolist() == [2, 2, 2, 2]


def test_the_last_action_is_legal_when_affordable():
    """Shares (the last action code) with exactly the cheapest position's price."""
    r, s = blank(1, 4)
    fund(s, 0, 2)

    def answer(obs, legal):
        return np.where(obs.seat == 0, L.A_SHARES, L.A_PASS), np.zeros(obs.n, bool), np.zeros((obs.n, 2), int)

    family_actions(s, r, dice(), agents(r, s, Scripted(family_action=answer, extra_clerk=const(-1))))
    assert s.exchange[0].tolist() == [0, -1, -1, -1, -1] and s.money[0, 0] == 0


def test_share_buyers_must_be_ranked_as_an_ordering_of_the_seats():
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 3)
    for seat in range(4):
        fund(s, seat, 5)
    with raises("rank_share_buyers", "not an ordering of the seats"):
        family(s, r, (L.A_SHARES, False, [0, 0]), rank_share_buyers=const([0, 0, 1, 2]))


@pytest.mark.parametrize("target, ok", [(-2, False), (-1, True), (0, True), (2, True), (3, False)])
def test_extra_clerk_presidency(target, ok):
    r, s = blank(1, 4)  # every office vacant: the extra clerk is offered
    strat = Scripted(family_action=const(L.A_PASS, False, [0, 0]), extra_clerk=const(target))
    if ok:
        family_actions(s, r, dice(), agents(r, s, strat))
        assert s.clerks[0].sum() == (4 if target >= 0 else 0)
    else:
        with raises("extra_clerk", r"presidency must be 0..2, or -1 for none"):
            family_actions(s, r, dice(), agents(r, s, strat))


# ------------------------------------------------------------------------------------------------ appointments
@pytest.mark.parametrize("vote", [-1, 2, 4, 7])
def test_votes_go_to_a_board_members_family(vote):
    r, s = blank(1, 4)
    give(s, "shares", 0, 1)
    give(s, "shares", 1, 1)
    with raises("vote_chairman", "not a board member's family"):
        elect_chairman(s, r, dice(), agents(r, s, Scripted(vote_chairman=const(vote))))


def test_the_former_chair_picks_a_board_members_family():
    r, s = blank(1, 4)
    give(s, "shares", 0, 1)
    give(s, "shares", 1, 1)
    s.last_chair[0] = 3
    strat = Scripted(vote_chairman=lambda obs, legal: obs.seat, choose_chairman=const(3))
    with raises("choose_chairman", "not a board member's family"):
        elect_chairman(s, r, dice(), agents(r, s, strat))


@pytest.mark.parametrize(
    "family_, source",
    [(-1, 0), (4, 0), (1, -1), (1, L.n_sources(8)), (1, 1), (2, 0)],
    ids=["family-1", "family-4", "source-1", "source-past-the-last", "not-his-source", "no-candidate"],
)
def test_appointments_must_name_a_candidate(family_, source):
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "clerks", 1, 1, col=0)
    with raises("appoint", "not one of the candidates"):
        appoint_office(s, r, dice(), agents(r, s, Scripted(appoint=const(family_, source))), L.SHIPPING)
    appoint_office(s, r, dice(), agents(r, s, Scripted(appoint=const(1, 0))), L.SHIPPING)
    assert s.office[0, L.SHIPPING] == 1


# ---------------------------------------------------------------------------------------------- retirement
@pytest.mark.parametrize(
    "tier, money, ok", [(-2, 20, False), (-1, 0, True), (5, 50, False), (2, 8, True), (2, 7, False)]
)
def test_retirement_tier(tier, money, ok):
    """Tiers 0..4 (costs 2, 4, 8, 14, 20) or -1 (sent home); exactly the price is affordable."""
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 0)
    fund(s, 0, money)
    run = lambda: retirement_roll(s, r, dice({0: [6]}), agents(r, s, Scripted(retire=const(tier))), np.arange(1))  # noqa: E731
    if ok:
        run()
        assert s.retired[0, 0].sum() == (tier >= 0) and s.money[0, 0] == money - (8 if tier == 2 else 0)
    else:
        with raises("retire", "tier not affordable"):
            run()


# ------------------------------------------------------------------------------------------------ military
@pytest.mark.parametrize("pick", [-1, 4, 0])
def test_military_affairs_picks_a_tied_family(pick):
    r, s = blank(1, 4)
    give(s, "officers", 1, 1, col=0)
    give(s, "officers", 2, 1, col=0)
    seat_office(s, L.MILITARY, 3)
    with raises("pick_commander", "not a tied family"):
        settle_commanders(s, r, dice(), agents(r, s, Scripted(pick_commander=const(pick))), np.arange(1), [0])


def test_academy_officers_are_never_negative():
    r, s = blank(1, 4)
    seat_office(s, L.MILITARY, 0)
    give(s, "academy", 1, 1)
    assign = np.zeros((4, 3), dtype=int)
    assign[1] = [2, -1, 0]  # sums to his 1 cadet, but with a negative army
    with raises("assign_academy", "must send every academy officer"):
        military_affairs(s, r, dice(), agents(r, s, Scripted(assign_academy=const(assign))))


def moves(*rows):
    """(kind, family, src, dst, count) per move -> the five int[1, M] arrays."""
    return tuple(np.array([[m[i] for m in rows]]) for i in range(5))


@pytest.mark.parametrize(
    "move",
    [
        (-1, 0, 0, 1, 1),
        (3, 0, 0, 1, 1),
        (L.MOVE_OFFICERS, 0, -1, 1, 1),
        (L.MOVE_OFFICERS, 0, 3, 1, 1),
        (L.MOVE_OFFICERS, 0, 0, -1, 1),
        (L.MOVE_OFFICERS, 0, 0, 3, 1),
        (L.MOVE_OFFICERS, 0, 0, 0, 1),
        (L.MOVE_OFFICERS, 0, 0, 1, 0),
        (L.MOVE_OFFICERS, -1, 0, 1, 1),
        (L.MOVE_OFFICERS, 2, 0, 1, 1),
        (L.MOVE_OFFICERS, 0, 0, 1, 3),
        (L.MOVE_REGIMENTS, 0, 1, 2, 2),
        (L.MOVE_OFFICERS, 0, 2, 3, 1),
    ],
    ids=[
        "kind-1",
        "kind-3",
        "src-1",
        "src-3",
        "dst-1",
        "dst-3",
        "same-army",
        "count-0",
        "family-1",
        "family-past-the-last",
        "more-officers-than-he-has",
        "more-regiments-than-there-are",
        "dst-3-from-an-army-with-officers",
    ],
)
def test_illegal_military_moves(move):
    officers = np.array([[[2, 1, 1], [1, 0, 0]]])  # 2 families; every army has officers (a clipped index finds some)
    regiments = np.array([[1, 1, 0]])
    assert apply_military_moves(officers.copy(), regiments.copy(), moves(move)).tolist() == [True]


def test_military_moves_apply_in_order_and_none_is_ignored():
    officers = np.array([[[2, 0, 0], [0, 1, 0]]])
    regiments = np.array([[1, 1, 0]])
    m = moves((L.MOVE_OFFICERS, 0, 0, 1, 2), (L.MOVE_OFFICERS, 0, 1, 2, 2), (L.MOVE_NONE, -5, 9, 9, 0))
    assert apply_military_moves(officers, regiments, m).tolist() == [False]
    assert officers[0].tolist() == [[0, 0, 2], [0, 1, 0]]
    m = moves((L.MOVE_REGIMENTS, 1, 0, 2, 1), (L.MOVE_REGIMENTS, 3, 2, 1, 1))  # regiments ignore the family
    assert apply_military_moves(officers, regiments, m).tolist() == [False]
    assert regiments[0].tolist() == [0, 2, 0]


DEPLOY = "deployment outside the legal regions"


def deploy_case(s, r, answer, treasury=3):
    give(s, "officers", 1, 2, col=0)
    give(s, "officers", 2, 1, col=0)
    s.commander[0, 0] = 1
    seat_office(s, L.PRESIDENT[0], 3)
    s.treasury[0, L.T_PRESIDENCY[0]] = treasury
    deploy(s, r, dice({0: [3] * 8 + [1] * 8}), agents(r, s, Scripted(deploy=const(*answer))), 0)


BOMBAY = 3  # region index of Bombay (strength 1) in the default map


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param((8, [0, 2, 0, 0], 0, [False] * 3), id="region-past-the-last"),
        pytest.param((0, [0, 2, 0, 0], 0, [False] * 3), id="not-a-target"),
        pytest.param((BOMBAY, [0, 2, -1, 0], 1, [False] * 3), id="negative-officers"),
        pytest.param((BOMBAY, [0, 3, 0, 0], 0, [False] * 3), id="more-officers-than-there-are"),
        pytest.param((BOMBAY, [0, 2, 0, 0], -1, [False] * 3), id="negative-regiments"),
        pytest.param((BOMBAY, [0, 2, 0, 0], 2, [False] * 3), id="more-regiments-than-there-are"),
        pytest.param((BOMBAY, [0, 2, 0, 0], 0, [False, False, True]), id="a-mercenary-bombay-has-not"),
        pytest.param((BOMBAY, [0, 0, 1, 0], 1, [False] * 3), id="without-the-commander"),
        pytest.param((BOMBAY, [0, 1, 0, 0], 0, [True, False, False]), id="mercenaries-beyond-the-treasury"),
        pytest.param((BOMBAY, [0, 1, 0, 0], 0, [False] * 3), id="no-dice"),
        pytest.param((-1, [0, 1, 0, 0], 0, [False] * 3), id="troops-without-a-target"),
        pytest.param((-1, [0, 0, 0, 0], 0, [False, True, False]), id="mercenaries-without-a-target"),
        pytest.param((-1, [0, 0, 0, 0], 1, [False] * 3), id="regiments-without-a-target"),
    ],
)
def test_illegal_deployments(answer):
    r, s = blank(1, 4)
    with raises("deploy", DEPLOY):
        deploy_case(s, r, answer)


def test_deployment_boundaries_are_legal():
    """One die (force 2 - strength 1), Sikhs (3 £) with exactly 3 £ in the treasury, or no deployment at all."""
    r, s = blank(1, 4)
    deploy_case(s, r, (BOMBAY, [0, 1, 0, 0], 1, [False] * 3))
    r, s = blank(1, 4)
    deploy_case(s, r, (BOMBAY, [0, 1, 0, 0], 0, [False, True, False]), treasury=3)
    r, s = blank(1, 4)
    deploy_case(s, r, (-1, [0, 0, 0, 0], 0, [False] * 3))


# -------------------------------------------------------------------------------------------------- Chairman
@pytest.mark.parametrize("loans, ok", [(-1, False), (0, True), (8, True), (9, False)])
def test_loans_between_zero_and_the_room_left(loans, ok):
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    strat = Scripted(take_loans=const(loans), approve_loans=const(True))
    if ok:
        chairman(s, r, dice(), agents(r, s, strat))
        assert s.loans[0] == loans
    else:
        with raises("take_loans", "more loans than the Company may take"):
            chairman(s, r, dice(), agents(r, s, strat))


def test_budget_shares_are_never_negative():
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.DIRECTOR, 1)
    seat_office(s, L.SHIPPING, 2)  # both committees held: only the negative share is wrong
    ledger.company(s, "trade", np.array([2]))
    with raises("allocate_budget", "the whole budget must be handed out"):
        chairman(s, r, dice(), agents(r, s, Scripted(take_loans=const(0), allocate_budget=const([3, -1, 0, 0, 0]))))


# ------------------------------------------------------------------------------------------ Director of Trade
@pytest.mark.parametrize("k", [-1, 3])
def test_director_rolls_between_zero_and_his_treasury(k):
    r, s = blank(1, 4)
    seat_office(s, L.DIRECTOR, 1)
    s.treasury[0, L.T_DIRECTOR] = 2
    with raises("trade_check", "cannot roll more dice than the £ in his treasury"):
        director_of_trade(s, r, dice(), agents(r, s, Scripted(trade_check=const(k))))


@pytest.mark.parametrize("pick", [-1, 18, 0])
def test_director_opens_only_what_is_openable(pick):
    """Orders 0..16 and China (17): -1, past China, or an order already open (Delhi1 is open at the start)."""
    r, s = blank(1, 4)
    seat_office(s, L.DIRECTOR, 1)
    s.treasury[0, L.T_DIRECTOR] = 1
    pick = r.d.orders.index("Delhi1") if pick == 0 else pick
    with raises("open_order", "not openable"):
        director_of_trade(s, r, dice({0: [1]}), agents(r, s, Scripted(trade_check=const(1), open_order=const(pick))))


def director_move(*rows, china=False):
    clerks = np.array([[[2, 0, 0], [0, 0, 0]]])
    ships = np.zeros((1, 4, 2), dtype=int)
    ships[0, 0] = [1, 1]
    yard = np.zeros((1, 2, 4), dtype=int)
    yard[0, 1, 0] = 1
    bad = apply_director_moves(clerks, ships, yard, np.array([china]), moves(*rows))
    return bad.tolist()[0], clerks, ships, yard


@pytest.mark.parametrize(
    "move",
    [
        (-1, 0, 0, 1, 1),
        (5, 0, 0, 1, 1),
        (L.MOVE_CLERKS, 0, -1, 1, 1),
        (L.MOVE_CLERKS, 0, 0, 3, 1),
        (L.MOVE_LEASED, 0, 0, 3, 1),
        (L.MOVE_LEASED, 0, 0, -1, 1),
        (L.MOVE_LEASED, 0, 0, 0, 1),
        (L.MOVE_LEASED, 0, 0, 1, 0),
        (L.MOVE_CLERKS, -1, 0, 1, 1),
        (L.MOVE_YARD_SHIPS, 2, 0, 1, 1),
        (L.MOVE_CLERKS, 0, 0, 1, 3),
        (L.MOVE_LEASED, 0, 0, 1, 2),
        (L.MOVE_COMPANY_SHIPS, 0, 1, 0, 1),
        (L.MOVE_YARD_SHIPS, 0, 0, 1, 1),
    ],
    ids=[
        "kind-1",
        "kind-5",
        "src-1",
        "clerks-to-china",
        "ships-to-closed-china",
        "dst-1",
        "same-place",
        "count-0",
        "clerks-family-1",
        "yard-family-past-the-last",
        "more-clerks-than-he-has",
        "more-leased-ships-than-there-are",
        "company-ship-from-an-empty-sea",
        "another-familys-yard-ship",
    ],
)
def test_illegal_director_moves(move):
    assert director_move(move)[0]


def test_director_moves_apply_in_order_china_only_when_open():
    bad, clerks, ships, yard = director_move(
        (L.MOVE_CLERKS, 0, 0, 2, 2), (L.MOVE_LEASED, 1, 0, 3, 1), (L.MOVE_YARD_SHIPS, 1, 0, 3, 1), china=True
    )
    assert not bad and clerks[0, 0].tolist() == [0, 0, 2]
    assert ships[0, 3].tolist() == [1, 0] and ships[0, 0].tolist() == [0, 1] and yard[0, 1].tolist() == [0, 0, 0, 1]
    bad, *_ = director_move((L.MOVE_COMPANY_SHIPS, 1, 0, 2, 1), (L.MOVE_COMPANY_SHIPS, 1, 2, 1, 1))
    assert not bad


# ------------------------------------------------------------------------------------------ Shipping Manager
def purchase(leased, company, yard):
    def answer(obs, legal):
        return np.array([leased]), np.array([company]), np.array([yard])

    return answer


@pytest.mark.parametrize(
    "leased, company, yard",
    [
        ([-1, 2, 0], [0, 0, 0], np.zeros((4, 3), int)),
        ([0, 0, 0], [-1, 0, 0], np.zeros((4, 3), int)),
        ([0, 0, 0], [0, 0, 0], np.array([[0, 0, 0], [0, 0, 0], [2, -1, 0], [0, 0, 0]])),
        ([1, 0, 0], [0, 0, 0], np.array([[0, 0, 0], [0, 0, 0], [2, 0, 0], [0, 0, 0]])),
        ([0, 0, 0], [0, 0, 0], np.array([[0, 0, 0], [1, 0, 0], [0, 0, 0], [0, 0, 0]])),
    ],
    ids=["negative-leased", "negative-company", "negative-yard", "more-than-his-free-yards", "a-family-without-yard"],
)
def test_illegal_ship_purchases(leased, company, yard):
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 0)
    s.treasury[0, L.T_SHIPPING] = 7
    s.shipyards[0, 2] = 1
    with raises("buy_ships", "purchase over budget"):
        shipping_manager(s, r, dice(), agents(r, s, Scripted(buy_ships=purchase(leased, company, yard))))


def test_ship_purchase_boundaries():
    """8 £, one free yard: a yard ship (3) then a Company ship (5): legal, the yard is no longer free; two leased
    (4) leave 4 >= 3 (illegal); a leased and a yard ship leave exactly 3 (illegal); a yard and two leased ships (7)
    leave 1, three leased leave 2 (legal: less than 3 may stay)."""
    for leased, company, yard_seat, ok in (
        ([0, 0, 0], [1, 0, 0], 2, True),
        ([2, 0, 0], [0, 0, 0], -1, False),
        ([1, 0, 0], [0, 0, 0], 2, False),
        ([1, 1, 0], [0, 0, 0], 2, True),
        ([3, 0, 0], [0, 0, 0], -1, True),
    ):
        r, s = blank(1, 4)
        seat_office(s, L.SHIPPING, 0)
        s.treasury[0, L.T_SHIPPING] = 8
        s.shipyards[0, 2] = 1
        yard = np.zeros((4, 3), int)
        if yard_seat >= 0:
            yard[yard_seat, 0] = 1
        run = lambda: shipping_manager(s, r, dice(), agents(r, s, Scripted(buy_ships=purchase(leased, company, yard))))  # noqa: B023, E731
        if ok:
            run()
        else:
            with raises("buy_ships", "purchase over budget"):
                run()


# ------------------------------------------------------------------------------------------------- governors
@pytest.mark.parametrize("effect", [-1, L.N_GOV_EFFECTS])
def test_governor_effect_must_exist(effect):
    r, s = blank(1, 4)
    i = r.d.regions.index("Bombay")
    s.owner[0, i] = 0
    s.governor[0, i] = 2
    s.supply[0, 2] -= 1
    strat = Scripted(govern=const(True), govern_effect=const(effect))
    with raises("govern_effect", "unknown effect"):
        governors(s, r, dice({0: [1, 6, 6]}), agents(r, s, strat))


# ------------------------------------------------------------------------------------------------ presidents
def trader(s, ships=2, treasury=5):
    seat_office(s, L.PRESIDENT[0], 1)
    s.ships[:, 0, L.COMPANY_SHIP] = ships
    s.treasury[:, L.T_PRESIDENCY[0]] = treasury
    give(s, "clerks", 2, 1, col=0)


TRADE = "orders not reachable, more orders than ships, no dice left, or clerks misplaced"


@pytest.mark.parametrize(
    "spend, names, clerks",
    [
        (2, ["Bombay1"], [0, 0, 1, 0]),  # not reachable (Bombay1 links only through Bombay3 ... it is reachable)
        (2, ["Delhi2"], [0, 0, 1, 0]),
        (3, ["Bombay3", "Bombay1", "Mysore1"], [0, 0, 1, 0]),
        (-1, [], [0, 0, 0, 0]),
        (6, ["Bombay3"], [0, 0, 1, 0]),
        (1, ["Mysore1"], [0, 0, 1, 0]),
        (1, [], [0, 0, 0, 0]),
        (2, ["Bombay3"], [0, 0, -1, 0]),
        (2, ["Bombay3"], [0, 0, 2, 0]),
        (2, ["Bombay3"], [0, 0, 0, 0]),
        (2, ["Bombay3"], [0, 1, 0, 0]),
    ],
    ids=[
        "reachable-control",
        "not-reachable",
        "more-orders-than-ships",
        "negative-spend",
        "more-than-the-treasury",
        "no-die-after-a-region-outside-home",
        "spending-without-orders",
        "negative-clerks",
        "more-clerks-than-he-has",
        "clerks-not-placed",
        "another-familys-clerk-he-lacks",
    ],
)
def test_illegal_trades(spend, names, clerks, request):
    r, s = blank(1, 4)
    trader(s)
    orders = np.isin(r.d.orders, names)
    strat = Scripted(trade=const(spend, orders, clerks))
    if request.node.callspec.id == "reachable-control":
        presidents(s, r, dice({0: [3, 3]}), agents(r, s, strat))  # legal: 2 dice, nothing happens
        return
    with raises("trade", TRADE):
        presidents(s, r, dice({0: [3] * 6}), agents(r, s, strat))


def test_trade_boundaries_are_legal():
    """Spend exactly the treasury; two orders on two ships; clerks placed = min(orders, clerks)."""
    r, s = blank(1, 4)
    trader(s)
    orders = np.isin(r.d.orders, ["Bombay3", "Bombay1"])
    presidents(s, r, dice({0: [3] * 5}), agents(r, s, Scripted(trade=const(5, orders, [0, 0, 1, 0]))))
    assert s.treasury[0, L.T_PRESIDENCY[0]] == 0


# --------------------------------------------------------------------------------------------------- dividends
@pytest.mark.parametrize("k, ok", [(-1, False), (0, True), (2, True), (3, False)])
def test_dividend_payouts_between_zero_and_what_the_balance_covers(k, ok):
    """Balance 8, 3 board votes (the chair and two shares): at most 2 payouts of 3 £."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "shares", 1, 2)
    ledger.company(s, "trade", np.array([8]))
    strat = Scripted(pay_dividends=const(k))
    if ok:
        assert dividends(s, r, agents(r, s, strat)).tolist() == [3 * k]
        assert s.money[0].tolist() == [k, 2 * k, 0, 0] and s.balance[0] == 8 - 3 * k
    else:
        with raises("pay_dividends", "more payouts than the balance covers"):
            dividends(s, r, agents(r, s, strat))


# ----------------------------------------------------------------------------------------------- Agents.ask
class TwoValues(strategies.Strategy):
    name = "two-values"

    def pay_dividends(self, obs, legal):
        return legal.max_payouts * 0, legal.max_payouts * 0


class Fractional(strategies.Strategy):
    name = "fractional"

    def take_loans(self, obs, legal):
        return np.full(obs.n, 0.5)


def test_an_answer_with_the_wrong_number_of_values_or_a_fraction_is_illegal():
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    ledger.company(s, "trade", np.array([8]))
    with raises("pay_dividends", "returned 2 values, expected 1"):
        dividends(s, r, agents(r, s, TwoValues()))
    with raises("take_loans", "returned a fractional value"):
        chairman(s, r, dice(), agents(r, s, Fractional()))


def test_budget_goes_only_to_committees_whose_office_is_held():
    """L132 ("доступные комитеты"): with only the Director seated, a pound for the Shipping Manager is illegal."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.DIRECTOR, 1)
    ledger.company(s, "trade", np.array([2]))
    with raises("allocate_budget", "the whole budget must be handed out, and only to committees whose office is held"):
        chairman(s, r, dice(), agents(r, s, Scripted(take_loans=const(0), allocate_budget=const([1, 1, 0, 0, 0]))))


def test_answers_are_checked_per_row_and_name_the_game():
    """Answers are checked row by row and the message names the game of the first illegal row: a wrong shape (game 0), a
    fraction in game 1's row alone, a budget with a fractional share in game 1; floats with whole values (2.0 loans) are
    legal."""
    r, s = blank(2, 4)
    seat_office(s, L.CHAIRMAN, 0)
    for office in (L.DIRECTOR, L.SHIPPING, *L.PRESIDENT):  # the budget goes to held committees only (L132)
        seat_office(s, office, 1)

    def wrong_shape(obs, legal):
        return np.zeros((obs.n, 2), dtype=np.int64)

    def fractional_in_game_1(obs, legal):
        return np.where(obs.games == 1, 0.5, 1.0)

    def integral_floats(obs, legal):
        return np.full(obs.n, 2.0)

    with pytest.raises(IllegalDecision, match=r"'take_loans' in game 0: returned shape \(2, 2\), expected \(2,\)$"):
        chairman(s, r, dice(), agents(r, s, Scripted(take_loans=wrong_shape)))
    with pytest.raises(IllegalDecision, match=r"'take_loans' in game 1: returned a fractional value$"):
        chairman(s, r, dice(), agents(r, s, Scripted(take_loans=fractional_in_game_1)))
    budget = np.array([[1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.5, 0.5]])
    ledger.company(s, "trade", np.array([1, 1]))
    allocate = Scripted(take_loans=const(0), allocate_budget=lambda obs, legal: budget[obs.games])
    with pytest.raises(IllegalDecision, match=r"'allocate_budget' in game 1: returned a fractional value$"):
        chairman(s, r, dice(), agents(r, s, allocate))
    chairman(s, r, dice(), agents(r, s, Scripted(take_loans=integral_floats)))
    assert s.loans.tolist() == [2, 2]


def test_a_wrong_shape_names_the_expected_shape():
    """A budget of 4 shares where 5 committees are expected: the message gives the shape returned and the shape
    expected."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.DIRECTOR, 1)  # a committee to hand the budget to (L132)
    ledger.company(s, "trade", np.array([4]))
    strat = Scripted(take_loans=const(0), allocate_budget=lambda obs, legal: np.zeros((obs.n, 4), dtype=int))
    with pytest.raises(
        IllegalDecision, match=r"'allocate_budget' in game 0: returned shape \(1, 4\), expected \(1, 5\)$"
    ):
        chairman(s, r, dice(), agents(r, s, strat))


# ------------------------------------------------------------------------------ a strategy that raises
def _raising_in(game_id: int, exc: BaseException):
    """A ``retire`` answer that raises ``exc`` whenever it is asked about game ``game_id`` (alone or in a group)."""

    def retire(obs, legal):
        if (obs.games == game_id).any():
            raise exc
        return np.full(obs.n, -1)

    return retire


def _ask_retire(strat, game_ids=(10, 11, 12, 13)):
    from sim.state import new_state

    r = blank(1, 4)[0]
    s = new_state(r, np.asarray(game_ids))
    decider = np.array([3, 1, 0, 2])  # game id 12 (row 2) is decided by seat 0, not by row 0's seat 3
    legal = {"affordable": np.ones((4, r.d.tier_cost.size), dtype=bool)}
    return agents(r, s, strat).ask("retire", s, decider, legal, (np.zeros(4, dtype=np.int64),))


def test_a_strategys_exception_names_the_first_game_that_raises_alone_its_seat_and_its_own_message():
    """The strategy is asked about the four games at once and raises; the error names the game (its global id, not
    its row) and seat that raise when asked alone, the exception's type and message on one line, and keeps the
    strategy's own traceback in ``details``."""
    from sim.agents import StrategyError

    with pytest.raises(StrategyError) as caught:
        _ask_retire(Scripted(retire=_raising_in(12, ValueError("no tier\nfor him"))))
    assert str(caught.value) == (
        "strategy 'scripted' (seat 0) raised ValueError: no tier for him in 'retire' at game 12"
    )
    details = caught.value.details
    assert details.startswith("Traceback") and "in retire" in details and "ValueError: no tier" in details
    assert StrategyError("raised").details == ""  # an error made without a traceback has none


def test_a_strategys_exception_without_a_message_is_named_by_its_repr():
    from sim.agents import StrategyError

    with pytest.raises(StrategyError, match=r"raised RuntimeError: RuntimeError\(\) in 'retire' at game 11$"):
        _ask_retire(Scripted(retire=_raising_in(11, RuntimeError())))


def test_a_value_that_is_not_finite_is_illegal_in_the_game_of_its_row():
    """Agents._array: a NaN or an infinity anywhere in an answer is an illegal answer naming its row's game and
    seat (here game id 12, asked of seat 0), a one-dimensional answer too."""

    def retire(obs, legal):
        out = np.full(obs.n, -1.0)
        out[obs.games == 12] = np.nan
        return out

    with pytest.raises(
        IllegalDecision,
        match=r"^strategy 'scripted' \(seat 0\) made an illegal 'retire' in game 12: returned a value "
        r"that is not finite$",
    ):
        _ask_retire(Scripted(retire=retire))


def test_a_raising_strategy_without_a_name_is_named_by_its_class():
    """Agents._raised: a strategy object is any object with the decision methods; one without a
    ``name`` attribute that raises is reported as a StrategyError naming its class, not as an AttributeError from
    the error report itself."""

    class Nameless:  # duck-typed: no Strategy base, so no ``name``
        def retire(self, obs, legal):
            raise KeyError("tier")

    r = blank(1, 4)[0]
    s = new_state(r, np.array([5, 6]))
    legal = {"affordable": np.ones((2, r.d.tier_cost.size), dtype=bool)}
    with pytest.raises(StrategyError) as caught:
        agents(r, s, Nameless()).ask("retire", s, np.array([2, -1]), legal, (np.zeros(2, dtype=np.int64),))
    assert str(caught.value) == "strategy 'Nameless' (seat 2) raised KeyError: 'tier' in 'retire' at game 5"
