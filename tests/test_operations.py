"""Phase 6 Company operations on hand-built positions with injected dice: R-CHAIRMAN, R-DIRECTOR (D-CHECK),
R-SHIPPING, R-GOVERNORS (D-ADMIN), R-TRADE, R-CHINA."""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, fund, give, seat_office

from sim import ledger
from sim.agents import IllegalDecision
from sim.phases.operations import (
    apply_director_moves,
    chairman,
    china_trade,
    director_of_trade,
    governors,
    openable,
    presidents,
    shipping_manager,
)
from sim.rules import Rules, RulesError
from sim.state import FLOW, TALLY

# each rule played on both engine paths, the numpy reference and the compiled kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")


def company_cash(state, amount):
    ledger.company(state, "trade", np.full(state.n_games, amount))


def test_loans_past_the_free_three_by_share_weighted_vote_per_game():
    """R-CHAIRMAN (L129–L133): game 0: the Chairman (seat 0, 1 vote) and seat 1 (1 share) -- 1 of 2 votes (50 %) is no
    majority: only the 3 free loans. Game 1: seat 1 holds 2 shares and votes yes with the chair: 5 loans. Game 2 has
    ended: nothing. The loans tally adds to the round's."""
    r, s = blank(3, 4)
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.DIRECTOR, 2)  # the budget goes only to committees whose office is held (L132)
    give(s, "shares", 1, 1)
    give(s, "shares", 1, 1, games=1)
    s.done[2] = True
    s.tally[:, TALLY["loans_taken"]] = 1

    def approve(obs, legal):
        return (obs.seat == 0) | (obs.games == 1)

    def to_director(obs, legal):
        out = np.zeros((obs.n, 5), dtype=np.int64)
        out[:, 0] = legal.budget
        return out

    strat = Scripted(take_loans=const(5), approve_loans=approve, allocate_budget=to_director)
    chairman(s, r, dice(), agents(r, s, strat))
    assert s.loans.tolist() == [3, 5, 0] and s.tally[:, TALLY["loans_taken"]].tolist() == [4, 6, 1]
    assert s.ledger[:, FLOW["loans"]].tolist() == [15, 25, 0]
    assert s.treasury[:, L.T_DIRECTOR].tolist() == [18, 28, 3] and s.balance.tolist() == [0, 0, 0]


# ---------------------------------------------------------------------------------------------------- Chairman
def committees(s, seat=1):
    for office in (L.DIRECTOR, L.SHIPPING, *L.PRESIDENT):
        seat_office(s, office, seat)


def test_chairman_takes_free_loans_and_hands_out_the_whole_budget():
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    committees(s)
    company_cash(s, 3)
    strat = Scripted(take_loans=const(2), allocate_budget=const([1, 2, 3, 4, 3]))
    chairman(s, r, dice(), agents(r, s, strat))
    assert s.loans[0] == 2 and s.ledger[0, FLOW["loans"]] == 10
    assert s.balance[0] == 0 and s.treasury[0].tolist() == [4, 5, 6, 7, 6]  # 3 £ each at the start + budget
    assert ledger.balanced(s).all()


def test_more_than_three_loans_need_a_board_majority():
    r, s = blank(2, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "shares", 1, 3)  # seat 1 holds 3 of the 4 board votes (the chair counts as one)
    approve = lambda obs, legal: np.array([g == 0 for g in obs.games])  # noqa: E731 - yes in game 0 only
    strat = Scripted(take_loans=const(5), approve_loans=approve)
    chairman(s, r, dice(), agents(r, s, strat))
    assert s.loans.tolist() == [5, 3]


def test_loans_never_pass_the_maximum():
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    s.loans[0] = 7
    with pytest.raises(IllegalDecision, match="take_loans"):
        chairman(s, r, dice(), agents(r, s, Scripted(take_loans=const(2))))


def test_budget_must_be_handed_out_whole():
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    committees(s)
    company_cash(s, 6)
    with pytest.raises(IllegalDecision, match="allocate_budget"):
        chairman(s, r, dice(), agents(r, s, Scripted(take_loans=const(0), allocate_budget=const([1, 1, 1, 1, 1]))))


def test_director_stops_when_he_rolls_no_dice_or_runs_out_of_money():
    """R-DIRECTOR (L135–L139), D-CHECK: game 0 stops at once (0 dice). Game 1 rolls 2 dice (no success), then 1 die with
    his last £ (no success): his treasury is empty, he is not asked again. The checks tally counts both."""
    r, s = blank(2, 4)
    seat_office(s, L.DIRECTOR, 1)
    s.treasury[:, L.T_DIRECTOR] = [5, 3]
    ks = {0: iter([0]), 1: iter([2, 1])}
    strat = Scripted(trade_check=lambda obs, legal: np.array([next(ks[int(g)]) for g in obs.games]))
    d = dice({1: [3, 4, 4]})
    director_of_trade(s, r, d, agents(r, s, strat))
    d.assert_spent()
    assert [g for g, _ in strat.asked("trade_check")] == [[0, 1], [1]]
    assert s.treasury[:, L.T_DIRECTOR].tolist() == [5, 0] and s.tally[:, TALLY["checks"]].tolist() == [0, 2]


# ------------------------------------------------------------------------------------------- Director of Trade
def test_director_checks_open_orders_until_fired():
    """D-CHECK: 3 dice (lowest 2) opens Delhi2; 2 dice (lowest 4) nothing; 1 die (6) fires him."""
    r, s = blank(1, 4)
    seat_office(s, L.DIRECTOR, 1)
    s.treasury[0, L.T_DIRECTOR] = 6
    delhi2 = r.d.orders.index("Delhi2")
    ks = iter([3, 2, 1])
    strat = Scripted(trade_check=lambda obs, legal: np.array([next(ks)]), open_order=const(delhi2))
    d = dice({0: [5, 2, 6, 4, 6, 6]})  # dice: 3 (lowest 2), 2 (lowest 4), 1 (a 6)
    director_of_trade(s, r, d, agents(r, s, strat))
    assert d.rolls("lowest") == [3, 2, 1]
    d.assert_spent()
    assert s.order_open[0, delhi2]
    assert s.treasury[0, L.T_DIRECTOR] == 0 and s.ledger[0, FLOW["director_checks"]] == -6
    assert s.office[0, L.DIRECTOR] == -1 and s.supply[0, 1] == 12  # fired without pension: back home
    assert s.tally[0, TALLY["checks"]] == 3 and s.tally[0, TALLY["orders_opened"]] == 1


def test_director_opens_the_route_to_china():
    r, s = blank(1, 4)
    seat_office(s, L.DIRECTOR, 1)
    s.treasury[0, L.T_DIRECTOR] = 1
    strat = Scripted(trade_check=const(1), open_order=const(len(r.d.orders)))
    director_of_trade(s, r, dice({0: [1]}), agents(r, s, strat))
    assert s.china_open[0]


def test_no_check_when_nothing_can_be_opened():
    """L137: all orders open (or in Company regions) and China open: the Director is not asked."""
    r, s = blank(1, 4)
    seat_office(s, L.DIRECTOR, 1)
    s.china_open[0] = True
    s.order_open[0] = True
    s.order_open[0, r.d.orders.index("Punjab")] = False
    s.owner[0, r.d.regions.index("Punjab")] = 0  # its only closed order lies in a Company region
    assert not openable(s, r)[0].any()
    strat = Scripted()
    director_of_trade(s, r, dice(), agents(r, s, strat))
    assert strat.asked("trade_check") == []


def test_director_moves_clerks_and_ships():
    r, s = blank(1, 4)
    seat_office(s, L.DIRECTOR, 1)
    give(s, "clerks", 2, 3, col=0)
    s.ships[0, 1, L.LEASED] = 2
    s.china_open[0] = True
    moves = const([L.MOVE_CLERKS, L.MOVE_LEASED], [2, 0], [0, 1], [2, L.CHINA_LOC], [2, 1])
    director_of_trade(s, r, dice(), agents(r, s, Scripted(trade_check=const(0), director_moves=moves)))
    assert s.clerks[0, 2].tolist() == [1, 0, 2]
    assert s.ships[0, :, L.LEASED].tolist() == [0, 1, 0, 1]


def test_ships_go_to_china_only_when_it_is_open():
    r, s = blank(1, 4)
    seat_office(s, L.DIRECTOR, 1)
    s.ships[0, 0, L.COMPANY_SHIP] = 1
    moves = const([L.MOVE_COMPANY_SHIPS, 0], [0, 0], [0, 0], [L.CHINA_LOC, 0], [1, 0])
    with pytest.raises(IllegalDecision, match="director_moves"):
        director_of_trade(s, r, dice(), agents(r, s, Scripted(trade_check=const(0), director_moves=moves)))


def test_shipping_yard_ships_go_to_their_owners_and_are_tallied():
    """R-SHIPPING (L141–L149): 7 £: a yard ship at seat 2's yard in Madras (3 £) and two leased (4 £); ships tallied,
    owner's yard full."""
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 0)
    s.treasury[0, L.T_SHIPPING] = 7
    s.shipyards[0, 2] = 1
    yard = np.zeros((4, 3), int)
    yard[2, 1] = 1
    strat = Scripted(buy_ships=const([1, 0, 1], [0, 0, 0], yard))
    shipping_manager(s, r, dice(), agents(r, s, strat))
    assert s.yard_ships[0, 2].tolist() == [0, 1, 0, 0] and s.ships[0, :, L.LEASED].tolist() == [1, 0, 1, 0]
    assert s.tally[0, TALLY["ships_bought"]] == 3 and s.treasury[0, L.T_SHIPPING] == 0


# -------------------------------------------------------------------------------------------- Shipping Manager
def buy(leased, company, yard):
    return const(leased, company, yard)


def test_shipping_manager_spends_down_below_three():
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 0)
    s.treasury[0, L.T_SHIPPING] = 7
    s.shipyards[0, 2] = 1
    yard = np.zeros((4, 3), dtype=int)
    yard[2, 1] = 1
    shipping_manager(s, r, dice(), agents(r, s, Scripted(buy_ships=buy([2, 0, 0], [0, 0, 0], yard))))
    assert s.treasury[0, L.T_SHIPPING] == 0 and s.ships[0, 0, L.LEASED] == 2 and s.yard_ships[0, 2, 1] == 1
    assert s.ledger[0, FLOW["ships"]] == -7


@pytest.mark.parametrize(
    "leased, company",
    [
        pytest.param([1, 0, 0], [0, 0, 0], id="5-pounds-left-must-buy-more"),
        pytest.param([0, 0, 0], [1, 0, 0], id="company-ship-while-a-family-yard-is-free"),
        pytest.param([4, 0, 0], [0, 0, 0], id="over-budget"),
    ],
)
def test_shipping_manager_illegal_purchases(leased, company):
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 0)
    s.treasury[0, L.T_SHIPPING] = 7
    s.shipyards[0, 2] = 1
    with pytest.raises(IllegalDecision, match="buy_ships"):
        shipping_manager(s, r, dice(), agents(r, s, Scripted(buy_ships=buy(leased, company, np.zeros((4, 3), int)))))


def test_company_ships_when_no_family_yard_is_free():
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 0)
    s.treasury[0, L.T_SHIPPING] = 7
    shipping_manager(s, r, dice(), agents(r, s, Scripted(buy_ships=buy([1, 0, 0], [0, 0, 1], np.zeros((4, 3), int)))))
    assert s.ships[0, 2, L.COMPANY_SHIP] == 1 and s.treasury[0, L.T_SHIPPING] == 0


def test_two_pounds_may_stay():
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 0)
    s.treasury[0, L.T_SHIPPING] = 2
    strat = Scripted()
    shipping_manager(s, r, dice(), agents(r, s, strat))
    assert strat.asked("buy_ships") == [] and s.treasury[0, L.T_SHIPPING] == 2


def yards_position(reading, money, held, **overrides):
    """D-COMPANY-SHIPS: a Shipping Manager (seat 0) with ``money`` £ and one family shipyard (seat 2's) holding
    ``held`` ships; ``shipping.company_ships`` = ``reading``."""
    r, s = blank(1, 4, **{"shipping.company_ships": reading, **overrides})
    seat_office(s, L.SHIPPING, 0)
    s.treasury[0, L.T_SHIPPING] = money
    s.shipyards[0, 2] = 1
    s.yard_ships[0, 2, 0] = held  # the ship on the yard sails in Bombay's sea
    return r, s


@pytest.mark.parametrize(
    "reading, money, held, build, legal",
    [
        pytest.param("no_free_yard", 7, 1, 0, True, id="yard-full-default-buys"),
        pytest.param("no_yard_ship", 7, 1, 0, False, id="yard-full-literal-refuses"),
        pytest.param("no_free_yard", 7, 0, 0, False, id="yard-empty-default-refuses"),
        pytest.param("no_yard_ship", 7, 0, 0, True, id="yard-empty-literal-buys"),
        pytest.param("no_free_yard", 8, 0, 1, True, id="own-yard-ship-default-buys"),
        pytest.param("no_yard_ship", 8, 0, 1, False, id="own-yard-ship-literal-refuses"),
    ],
)
def test_company_ships_follow_the_reading_of_the_family_yards(reading, money, held, build, legal):
    """D-COMPANY-SHIPS (seed 000 L148: Company ships only "when no ship stands on the families' yards"). One family
    yard; the manager buys a Company ship (5 £) with a leased one (2 £) or, with 8 £, a yard ship there (3 £).
    "no_free_yard" (default) allows it when the yard holds a ship, his own included, and refuses it while the yard is
    free; "no_yard_ship" (the seed's words) the other way round: a ship on the yard, his own new one included,
    forbids it, an empty yard allows it. Every purchase spends the budget exactly, so only the Company ship can make
    it illegal."""
    r, s = yards_position(reading, money, held)
    yard = np.zeros((4, L.PRESIDENCIES), dtype=int)
    yard[2, 1] = build
    strat = Scripted(buy_ships=buy([1 - build, 0, 0], [0, 0, 1], yard))
    if not legal:
        with pytest.raises(IllegalDecision, match="Company ships while a (family yard is free|ship stands on)"):
            shipping_manager(s, r, dice(), agents(r, s, strat))
        return
    shipping_manager(s, r, dice(), agents(r, s, strat))
    assert s.ships[0, 2, L.COMPANY_SHIP] == 1 and s.treasury[0, L.T_SHIPPING] == 0
    assert s.yard_ships[0, 2, : L.PRESIDENCIES].tolist() == [held, build, 0]


def test_under_the_literal_reading_a_company_ship_is_not_the_cheapest_ship_while_a_yard_holds_one():
    """D-COMPANY-SHIPS with R-SHIPPING's obligation to spend 3 £ or more while the cheapest ship he may buy is
    affordable: leased ships cost 6 £, the only family yard holds a ship, 5 £ in the treasury. "no_free_yard": a
    Company ship (5 £) is one he may buy, so buying nothing is illegal; "no_yard_ship": it is not, nothing else is
    affordable, and the 5 £ stay."""
    r, s = yards_position("no_free_yard", 5, 1, **{"shipping.leased_cost": 6})
    with pytest.raises(IllegalDecision, match="'buy_ships' in game 0: purchase over budget"):
        shipping_manager(s, r, dice(), agents(r, s, Scripted(buy_ships=NO_SHIPS)))
    r, s = yards_position("no_yard_ship", 5, 1, **{"shipping.leased_cost": 6})
    shipping_manager(s, r, dice(), agents(r, s, Scripted(buy_ships=NO_SHIPS)))
    assert s.treasury[0, L.T_SHIPPING] == 5 and s.ships[0, :, L.COMPANY_SHIP].sum() == 0


def test_company_ships_reading_is_checked_on_load():
    """D-COMPANY-SHIPS: ``shipping.company_ships`` takes one of its two readings; anything else fails on load with
    one line naming the key."""
    with pytest.raises(RulesError, match="shipping.company_ships") as err:
        Rules.default(4).with_overrides({"shipping.company_ships": "never"})
    assert "\n" not in str(err.value)


def test_presidency_tax_enters_the_ledger_per_game_and_a_seat_0_governor_can_be_fired():
    """R-GOVERNORS (L156–L161), D-CHECK: governors of Bombay: game 0 taxes for the presidency (+2 £ to its treasury, +2
    on the tax flow: not -2, not the batch's total), game 1's governor is seat 0 and suffers a mishap: he is fired (seat
    0 is a holder too), the round's fired tally adds to the one already counted."""
    r, s = blank(2, 4)
    i = r.d.regions.index("Bombay")
    s.owner[:, i] = 0
    s.governor[:, i] = [2, 0]
    s.supply[0, 2] -= 1
    s.supply[1, 0] -= 1
    s.tally[1, TALLY["fired"]] = 1
    strat = Scripted(govern=lambda obs, legal: obs.games == obs.games, govern_effect=const(L.G_TAX_PRESIDENCY))
    d = dice({0: [1, 6, 6, 3, 3, 4], 1: [5, 6, 6]})
    governors(s, r, d, agents(r, s, strat))
    assert s.treasury[:, L.T_PRESIDENCY[0]].tolist() == [5, 3] and s.ledger[:, FLOW["tax"]].tolist() == [2, 0]
    assert s.governor[:, i].tolist() == [2, -1] and s.supply[1, 0] == 12
    assert s.tally[:, TALLY["fired"]].tolist() == [0, 2] and ledger.balanced(s).all()


# ------------------------------------------------------------------------------------------------- governors
def governed(r, s, region="Bombay", seat=2):
    i = r.d.regions.index(region)
    s.owner[0, i] = 0
    s.governor[0, i] = seat
    s.supply[0, seat] -= 1
    return i


def test_governor_actions_shrink_and_pay_more_after_a_failure():
    """Admin 3: success (tax to Company, +1 £), nothing (+1 unrest), success (regiment, +2 £), then no dice left."""
    r, s = blank(1, 4)
    i = governed(r, s)
    effects = iter([L.G_TAX_COMPANY, L.G_REGIMENT])
    strat = Scripted(govern=const(True), govern_effect=lambda obs, legal: np.array([next(effects)]))
    d = dice({0: [6, 1, 3, 4, 6, 2]})  # lowest 1 of 3 dice, lowest 4 of 2, then 2 with 1 die
    governors(s, r, d, agents(r, s, strat))
    assert [g for g, _ in strat.asked("govern")] == [[0], [0], [0]]
    assert d.rolls("lowest") == [3, 2, 1]
    d.assert_spent()
    assert s.money[0, 2] == 3 and s.balance[0] == 2 and s.regiments[0, 0] == 2
    assert s.unrest[0, i] == 1 and s.ledger[0, FLOW["governor_income"]] == 3
    assert ledger.balanced(s).all()


def test_governor_mishap_fires_him_and_raises_unrest():
    r, s = blank(1, 4)
    i = governed(r, s)
    d = dice({0: [6, 5, 5]})
    governors(s, r, d, agents(r, s, Scripted(govern=const(True))))
    assert d.rolls("lowest") == [3]
    assert s.governor[0, i] == -1 and s.unrest[0, i] == 1 and s.supply[0, 2] == 12


def test_second_tax_in_a_round_raises_unrest_and_two_halves_make_a_ship():
    r, s = blank(1, 4)
    i = governed(r, s)
    effects = iter([L.G_TAX_PRESIDENCY, L.G_TAX_PRESIDENCY, L.G_SHIP])
    strat = Scripted(govern=const(True), govern_effect=lambda obs, legal: np.array([next(effects)]))
    s.half_ships[0, i] = 1  # this governor's own half-built ship (per governor)
    d = dice({0: [1, 6, 6, 2, 3, 1]})
    governors(s, r, d, agents(r, s, strat))
    assert d.rolls("lowest") == [3, 2, 1]
    assert s.treasury[0, L.T_PRESIDENCY[0]] == 3 + 4 and s.unrest[0, i] == 1
    assert s.half_ships[0, i] == 0 and s.ships[0, 0, L.COMPANY_SHIP] == 1


def governed_game(r, s, region="Bombay", seat=2):
    """``governed`` in every game: seat governs the Company's region; its index."""
    i = r.d.regions.index(region)
    s.owner[:, i] = 0
    s.governor[:, i] = seat
    s.supply[:, seat] -= 1
    return i


def test_governor_income_after_a_failure_is_asymmetric():
    """R-GOVERNORS: income 1 £ per success, 2 £ for a success right after a failure of the same governor this round.
    Game 0: success x3 -> 1 + 1 + 1 = 3 (a swapped reading pays 6). Game 1: failure, success, success -> 2 + 1 = 3
    (a reading that never clears the failure pays 2 + 2 = 4)."""
    r, s = blank(2, 4)
    i = governed_game(r, s)
    strat = Scripted(govern=const(True), govern_effect=const(L.G_REGIMENT))
    d = dice({0: [1, 6, 6, 2, 6, 1], 1: [3, 4, 4, 2, 6, 1]})
    governors(s, r, d, agents(r, s, strat))
    d.assert_spent()
    assert d.rolls("lowest", 0) == [3, 2, 1] and d.rolls("lowest", 1) == [3, 2, 1]
    assert s.money[:, 2].tolist() == [3, 3]
    assert s.unrest[:, i].tolist() == [0, 1] and s.regiments[:, 0].tolist() == [4, 3]


# ------------------------------------------------------------------------------------------------ presidents
def bombay_trader(r, s, ships=2, treasury=5):
    seat_office(s, L.PRESIDENT[0], 1)
    s.ships[:, 0, L.COMPANY_SHIP] = ships
    ledger.treasury(s, "company_start", L.T_PRESIDENCY[0], np.full(s.n_games, treasury - 3))


def test_president_trade_pays_company_president_and_clerks():
    """Bombay3 (home, 4 £) and Mysore1 (3 £): one region outside home, so spending 4 £ rolls 3 dice."""
    r, s = blank(1, 4)
    bombay_trader(r, s)
    give(s, "clerks", 2, 1, col=0)
    give(s, "clerks", 3, 2, col=0)
    orders = np.isin(r.d.orders, ["Bombay3", "Mysore1"])
    strat = Scripted(trade=const(4, orders, [0, 0, 1, 1]))
    d = dice({0: [4, 2, 6]})
    presidents(s, r, d, agents(r, s, strat))
    assert d.rolls("lowest") == [3]  # 4 £ minus one region outside home
    d.assert_spent()
    assert s.balance[0] == 7 and s.money[0].tolist() == [0, 2, 1, 1]
    assert s.order_filled[0, orders].all() and s.treasury[0, L.T_PRESIDENCY[0]] == 1
    assert s.tally[0, TALLY["trade_revenue"]] == 7 and ledger.balanced(s).all()


def test_president_trade_failure_and_mishap():
    r, s = blank(2, 4)
    bombay_trader(r, s)
    orders = np.isin(r.d.orders, ["Bombay3"])
    strat = Scripted(trade=const(2, orders, [0, 0, 0, 0]))
    d = dice({0: [3, 4], 1: [6, 5]})
    presidents(s, r, d, agents(r, s, strat))
    assert d.rolls("lowest") == [2, 2]
    d.assert_spent()
    assert s.balance.tolist() == [0, 0] and (s.treasury[:, L.T_PRESIDENCY[0]] == 3).all()
    assert s.office[:, L.PRESIDENT[0]].tolist() == [1, -1]


def test_trade_needs_a_die_after_the_regions_outside_home():
    r, s = blank(1, 4)
    bombay_trader(r, s)
    orders = np.isin(r.d.orders, ["Mysore1", "Mysore2"])
    with pytest.raises(IllegalDecision, match="trade"):
        presidents(s, r, dice(), agents(r, s, Scripted(trade=const(1, orders, [0, 0, 0, 0]))))


def test_one_ship_per_order_and_only_reachable_orders():
    r, s = blank(1, 4)
    bombay_trader(r, s, ships=1)
    two = np.isin(r.d.orders, ["Bombay3", "Bombay1"])
    with pytest.raises(IllegalDecision, match="more orders than ships"):
        presidents(s, r, dice(), agents(r, s, Scripted(trade=const(3, two, [0, 0, 0, 0]))))
    r, s = blank(1, 4)
    bombay_trader(r, s, ships=3)
    madras = np.isin(r.d.orders, ["Madras1"])  # another presidency's home region
    with pytest.raises(IllegalDecision, match="not reachable"):
        presidents(s, r, dice(), agents(r, s, Scripted(trade=const(3, madras, [0, 0, 0, 0]))))


def test_an_order_filled_by_one_president_is_not_reachable_for_the_next():
    r, s = blank(1, 4)
    bombay_trader(r, s, ships=3, treasury=9)
    seat_office(s, L.PRESIDENT[2], 2)
    s.ships[0, 2, L.COMPANY_SHIP] = 1
    s.treasury[0, L.T_PRESIDENCY[2]] = 9
    s.order_open[0, r.d.orders.index("Maratha2")] = True
    s.order_open[0, r.d.orders.index("Bombay2")] = True
    seen = {}

    bombay_orders = np.isin(r.d.orders, ["Bombay3", "Bombay2", "Maratha2"])

    def trade(obs, legal):
        p = int(legal.presidency[0])
        seen[p] = legal.orders[0].copy()
        if p == 0:  # one region (Maratha) outside home: 4 £ roll 3 dice
            return np.array([4]), bombay_orders[None, :], np.zeros((1, 4), dtype=int)
        return Scripted.trade(Scripted(), obs, legal)

    d = dice({0: [1, 6, 6, 1, 6, 6]})  # Bombay: 3 dice; Bengal (the base strategy): 3 dice on its port
    presidents(s, r, d, agents(r, s, Scripted(trade=trade)))
    assert d.rolls("lowest") == [3, 3]
    shared = r.d.orders.index("Maratha2")  # Bombay3 - Bombay2 - Maratha2 - Maratha3 - Bengal1 - Bengal2
    assert seen[0][shared] and s.order_filled[0, shared]
    assert not seen[2][shared]


# ------------------------------------------------------------------------------------------------------ China
def test_china_trade_pays_per_opium_of_company_regions():
    r, s = blank(1, 4)
    s.china_open[0] = True
    seat_office(s, L.CHINA, 3)
    s.ships[0, L.CHINA_LOC, L.LEASED] = 2
    s.owner[0, r.d.regions.index("Bengal")] = 2  # 2 opium
    s.owner[0, r.d.regions.index("Delhi")] = 0  # 1 opium
    strat = Scripted(china_trade=const(True))
    d = dice({0: [6, 2]})  # one die per ship in the China committee
    china_trade(s, r, d, agents(r, s, strat))
    assert d.rolls("lowest") == [2]
    assert s.balance[0] == 12 and s.money[0, 3] == 3
    fund(s, 0, 0)
    china_trade(s, r, dice({0: [5, 6]}), agents(r, s, strat))
    assert s.office[0, L.CHINA] == -1 and s.balance[0] == 12


def test_only_families_with_board_votes_are_asked_to_approve_extra_loans():
    """R-CHAIRMAN (L129-L130): loans beyond ``free_loans`` need a share-weighted board majority, the chair counting
    as one share; a family with no share (and not the chair) has no vote and is not consulted. Chair seat 0 (1
    vote), seat 1 with 3 shares; seats 2 and 3 hold nothing. Asking every family with ``votes >= 0``
    would ask seats 2 and 3 too; their answer would weigh 0 votes, so the test also checks the vote's outcome: seat 1's
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
    at the yard), and building there is legal. Counting yard ships only with more than one yard left makes the
    cheapest min(leased 4, Company 5) = 4 > 3 £, so buying nothing would pass."""
    rules = Rules.default(4).with_overrides({"shipping.leased_cost": 4})
    r, s = shipping_position(rules, 3)
    with pytest.raises(IllegalDecision, match="'buy_ships' in game 0: purchase over budget"):
        shipping_manager(s, r, dice(), agents(r, s, Scripted(buy_ships=NO_SHIPS)))
    r, s = shipping_position(rules, 3)
    yard = np.zeros((4, L.PRESIDENCIES), dtype=int)
    yard[2, 1] = 1
    shipping_manager(s, r, dice(), agents(r, s, Scripted(buy_ships=const([0, 0, 0], [0, 0, 0], yard))))
    assert s.yard_ships[0, 2, : L.PRESIDENCIES].tolist() == [0, 1, 0] and s.treasury[0, L.T_SHIPPING] == 0


def test_a_seat_0_director_of_trade_checks():
    """R-DIRECTOR (L135-L139): the Director is seat 0's relative, with 1 £ in his treasury and orders to open: he
    rolls 1 die (a 1: success) and opens Delhi2. Reading "the office is held" as a seat >= 1 in the repeated
    check's condition stops seat 0 before his first check."""
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


def test_a_negative_leased_ship_count_is_refused_on_its_own():
    """R-SHIPPING (L139-L141): the Shipping Manager buys ship counts >= 0. Leased [-1, 4, 0] nets 3 ships for 6 £ of
    his 7 £, leaving 1 (< must_buy_from): only the negative count makes it illegal. A check needing a negative Company
    count as well lets it pass."""
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 0)
    s.treasury[0, L.T_SHIPPING] = 7

    def buy(obs, legal):
        return np.array([[-1, 4, 0]]), np.zeros((1, 3), int), np.zeros((1, 4, 3), int)

    with pytest.raises(IllegalDecision, match="buy_ships"):
        shipping_manager(s, r, dice(), agents(r, s, Scripted(buy_ships=buy)))


def test_a_governor_is_told_whether_his_last_action_failed():
    """R-GOVERNORS (L156-L161, D-ADMIN): after a failure the next success pays more (``income_after_failure``), so the
    governor is told ``legal.failed`` (a bool mask) before each action: Bombay (admin 3) succeeds, fails, then acts
    again with the failure known."""
    r, s = blank(1, 4)
    bombay = r.d.regions.index("Bombay")
    s.owner[0, bombay] = 0
    s.governor[0, bombay] = 2
    s.supply[0, 2] -= 1
    seen = []

    def govern(obs, legal):
        seen.append((legal.failed.dtype == bool, bool(legal.failed[0])))
        return np.ones(obs.n, dtype=bool)

    strat = Scripted(govern=govern, govern_effect=const(L.G_TAX_COMPANY))
    governors(s, r, dice({0: [6, 1, 3, 4, 6, 2]}), agents(r, s, strat))  # lowest 1 of 3, 4 of 2, 2 of 1
    assert seen == [(True, False), (True, False), (True, True)]


@pytest.mark.parametrize("china_open", [False, True])
def test_the_director_moves_ships_out_of_china_only_while_it_is_open(china_open):
    """R-DIRECTOR's moves (L130-L134; China only while open, L137): a leased ship stands at China (location 3); moving
    it to Bombay is illegal while China is closed -- location 3 is one past the last presidency, the edge a
    `src > n_locs` bound misses."""
    clerks = np.zeros((1, 2, 3), dtype=int)
    ships = np.zeros((1, 4, 2), dtype=int)
    ships[0, 3, L.LEASED] = 1
    yard = np.zeros((1, 2, 4), dtype=int)
    moves = tuple(np.array([[x]]) for x in (L.MOVE_LEASED, 0, 3, 0, 1))  # kind, family, src, dst, count
    bad = apply_director_moves(clerks, ships, yard, np.array([china_open]), moves)
    assert bad.tolist() == [not china_open]
    assert ships[0, :, L.LEASED].tolist() == ([1, 0, 0, 0] if china_open else [0, 0, 0, 1])


def two_governors(r, s):
    bombay, mysore = r.d.regions.index("Bombay"), r.d.regions.index("Mysore")
    for region, seat in ((bombay, 1), (mysore, 2)):
        s.owner[0, region] = 0
        s.governor[0, region] = seat
        s.supply[0, seat] -= 1
    return bombay, mysore


def test_half_built_ships_are_per_governor():
    """R-GOVERNORS, L160: two governors of Bombay's presidency each half-build a ship (one success each): no ship; each
    keeps his half (two halves of different governors pooled per presidency would make one)."""
    r, s = blank(1, 4)
    bombay, mysore = two_governors(r, s)
    acts = {bombay: iter([True, False]), mysore: iter([True, False])}
    strat = Scripted(govern=lambda obs, legal: np.array([next(acts[int(legal.region[0])])]),
                     govern_effect=const(L.G_SHIP))  # fmt: skip
    d = dice({0: [1, 1, 1, 1, 1, 1]})  # each governor: 3 dice, success
    governors(s, r, d, agents(r, s, strat))
    d.assert_spent()
    assert s.ships[0, :, L.COMPANY_SHIP].sum() == 0
    assert s.half_ships[0, bombay] == 1 and s.half_ships[0, mysore] == 1


@pytest.mark.parametrize("inherited, left", [(False, 0), (True, 1)])
def test_a_fired_governors_half_ship_is_lost_unless_inherited(inherited, left):
    """R-GOVERNORS, L160: a governor fired by a mishap leaves his half-built ship behind: lost, or kept for his
    successor when ``governors.half_ship_inherited`` says so."""
    r, s = blank(1, 4, **{"governors.half_ship_inherited": inherited})
    bombay, _ = two_governors(r, s)
    s.governor[0, r.d.regions.index("Mysore")] = -1
    s.supply[0, 2] += 1
    s.half_ships[0, bombay] = 1
    governors(s, r, dice({0: [5, 6, 6]}), agents(r, s, Scripted(govern=const(True))))  # mishap: fired
    assert s.governor[0, bombay] == -1 and s.half_ships[0, bombay] == left


def test_the_budget_goes_only_to_committees_whose_office_is_held():
    """R-CHAIRMAN, L132 "доступные комитеты": with only the Director of Trade and the President of Bombay in office,
    handing 3 £ to the vacant Shipping Manager's committee is illegal."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.DIRECTOR, 1)
    seat_office(s, L.PRESIDENT[0], 2)
    company_cash(s, 6)
    with pytest.raises(IllegalDecision, match="allocate_budget"):
        chairman(s, r, dice(), agents(r, s, Scripted(take_loans=const(0), allocate_budget=const([3, 3, 0, 0, 0]))))
    seen = {}

    def allocate(obs, legal):
        seen["open"] = legal.open.tolist()
        return np.array([[2, 0, 4, 0, 0]])

    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.DIRECTOR, 1)
    seat_office(s, L.PRESIDENT[0], 2)
    company_cash(s, 6)
    chairman(s, r, dice(), agents(r, s, Scripted(take_loans=const(0), allocate_budget=allocate)))
    assert seen["open"] == [[True, False, True, False, False]]
    assert s.treasury[0].tolist() == [5, 3, 7, 3, 3] and s.balance[0] == 0


def test_with_no_committee_held_the_budget_stays_in_the_balance():
    """R-CHAIRMAN, L132: with no committee's office held the Chairman is not asked to hand out the budget: it stays
    in the balance."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    company_cash(s, 6)
    strat = Scripted(take_loans=const(0))
    chairman(s, r, dice(), agents(r, s, strat))
    assert strat.asked("allocate_budget") == [] and s.balance[0] == 6 and s.treasury[0].tolist() == [3] * 5


def test_china_trade_per_game_with_yard_ships_and_manager_pay():
    """R-CHINA (L184–L189): game 0: 2 ships in China (a leased and a yard ship), success: 4 £ and 1 £ per Company opium.
    Game 1: the manager declines. Game 2: no ship in China: not asked."""
    r, s = blank(3, 4)
    s.china_open[:] = True
    seat_office(s, L.CHINA, 3)
    s.ships[:2, L.CHINA_LOC, L.LEASED] = 1
    s.yard_ships[:2, 1, L.CHINA_LOC] = 1
    s.owner[:, r.d.regions.index("Hyderabad")] = 1  # 1 opium
    strat = Scripted(china_trade=lambda obs, legal: obs.games == 0)
    d = dice({0: [6, 1]})
    china_trade(s, r, d, agents(r, s, strat))
    d.assert_spent()
    assert [g for g, _ in strat.asked("china_trade")] == [[0, 1]]
    assert s.balance.tolist() == [4, 0, 0] and s.money[:, 3].tolist() == [1, 0, 0]
    assert s.tally[:, TALLY["china_revenue"]].tolist() == [4, 0, 0]


def test_china_trade_with_one_ship_by_a_seat_0_manager_who_is_told_ships_and_opium():
    """R-CHINA (L184–L189): a China Trade Manager who is seat 0's relative, with one leased ship in China and 2 opium in
    Company regions, is asked and told 1 ship and 2 opium; his one die (a 2) succeeds: the Company 4 £ per opium (8),
    his family 1 £ each (2)."""
    r, s = blank(1, 4)
    s.china_open[0] = True
    seat_office(s, L.CHINA, 0)
    s.ships[0, L.CHINA_LOC, L.LEASED] = 1
    s.owner[0, r.d.regions.index("Bengal")] = 2  # 2 opium
    seen = []

    def go(obs, legal):
        seen.append((obs.seat.tolist(), legal.ships.tolist(), legal.opium.tolist()))
        return np.ones(obs.n, bool)

    d = dice({0: [2]})
    china_trade(s, r, d, agents(r, s, Scripted(china_trade=go)))
    d.assert_spent()
    assert seen == [([0], [1], [2])] and s.balance[0] == 8 and s.money[0, 0] == 2
