"""Phase 7 income and accounts (R-ACCOUNTS): income, costs, royal protection, emergency loans, dividends,
stability (D-EXPECT) and the crash."""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, give, seat_office

from sim import ledger
from sim.phases.accounts import accounts, costs_due, stability_gain
from sim.rules import Rules
from sim.state import FLOW, TALLY


def cash(s, amount):
    ledger.company(s, "trade", np.broadcast_to(amount, (s.n_games,)))


def test_income_from_factories_and_sailing_yard_ships():
    r, s = blank(1, 4)
    s.factories[0] = [2, 0, 1, 0]
    s.shipyards[0, 3] = 2
    s.yard_ships[0, 3, 1] = 1  # one of his two yards has a ship at sea
    s.regiments[:] = 0
    s.stability[0] = 7
    accounts(s, r, dice(), agents(r, s))
    assert s.money[0].tolist() == [2, 0, 1, 1]
    assert s.ledger[0, FLOW["factory_income"]] == 3 and s.ledger[0, FLOW["yard_income"]] == 1


def test_costs_per_ship_regiment_officer_and_loan():
    r, s = blank(1, 4)
    s.ships[0, 0] = [1, 2]  # leased + Company
    s.yard_ships[0, 1, 2] = 1
    s.half_ships[0, 0] = 1  # half-built: free
    s.regiments[0] = [1, 1, 2]
    give(s, "officers", 2, 3, col=1)
    s.loans[0] = 2
    assert costs_due(s, r).tolist() == [4 + 4 + 3 + 2]


def test_emergency_loans_cover_the_shortfall_and_the_rest_burns():
    """Costs 13 with 6 £: 7 short -> 2 emergency loans (10 £), 3 £ burn; 2 emergency loans cost 1 stability."""
    r, s = blank(1, 4)
    cash(s, 6)
    s.loans[0] = 2
    s.regiments[0] = [4, 4, 3]  # 11 + 2 interest = 13
    s.stability[0] = 5
    accounts(s, r, dice(), agents(r, s, Scripted(pay_dividends=const(0))))
    assert s.loans[0] == 4 and s.balance[0] == 0
    assert s.ledger[0, FLOW["emergency_loans"]] == 10 and s.ledger[0, FLOW["emergency_burned"]] == -3
    assert s.tally[0, TALLY["emergency_loans"]] == 2
    assert s.stability[0] == 5 - 1 - 1  # -1 for two emergency loans, -1 for no dividends
    assert ledger.balanced(s).all()


def test_royal_protection_cancels_the_unpaid_costs_once_per_game():
    r, s = blank(2, 4)
    seat_office(s, L.CHAIRMAN, 0)
    cash(s, 2)
    s.regiments[:] = [3, 3, 3]
    s.royal_protection[1] = 0  # already used in game 1
    strat = Scripted(royal_protection=const(True), pay_dividends=const(0))
    accounts(s, r, dice(), agents(r, s, strat))
    assert strat.asked("royal_protection") == [([0], [0])]
    assert s.loans.tolist() == [0, 2] and s.royal_protection.tolist() == [0, 0]
    assert s.ledger[:, FLOW["company_costs"]].tolist() == [-2, -9]


def test_dividends_one_payout_per_share_including_the_chair():
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "shares", 1, 2)
    give(s, "shares", 2, 1)
    cash(s, 20)
    s.regiments[:] = 0
    s.stability[0] = 3  # E(3) = 8
    strat = Scripted(pay_dividends=const(2))
    accounts(s, r, dice(), agents(r, s, strat))
    assert s.money[0].tolist() == [2, 4, 2, 0] and s.balance[0] == 12
    assert s.stability[0] == 4  # 8 paid covers E(3) = 8 exactly: +1


def test_dividends_cannot_exceed_the_balance():
    from sim.agents import IllegalDecision

    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "shares", 1, 2)
    cash(s, 8)
    s.regiments[:] = 0
    with pytest.raises(IllegalDecision, match="pay_dividends"):
        accounts(s, r, dice(), agents(r, s, Scripted(pay_dividends=const(3))))


def test_stability_expectation_seed_example():
    """L207: at stability 1, 12 £ of dividends: +2 (4 for the first level, 6 for the second; not 8 more)."""
    r = Rules.default()
    got = stability_gain(r, np.array([1, 1, 1, 4, 4, 7, 6]), np.array([12, 3, 4, 9, 10, 40, 14]))
    assert got.tolist() == [2, -1, 1, -1, 1, 0, 1]


def test_crash_at_stability_zero_ends_the_game():
    r, s = blank(2, 4)
    s.stability[:] = [1, 2]
    s.regiments[:] = 0
    s.round[:] = 3
    accounts(s, r, dice(), agents(r, s))
    assert s.stability.tolist() == [0, 1]
    assert s.crashed.tolist() == [True, False] and s.done.tolist() == [True, False]
    assert s.end_round.tolist() == [3, 0]


def test_expectation_against_profit_instead_of_dividends():
    """D-EXPECT = profit: the balance left after costs is compared, dividends or not."""
    r = Rules.default(4).with_overrides({"stability.compared": "profit"})
    _, s = blank(1, 4, r)
    cash(s, 10)
    s.regiments[:] = 0
    s.stability[0] = 4  # E(4) = 10
    accounts(s, r, dice(), agents(r, s, Scripted(pay_dividends=const(0))))
    assert s.stability[0] == 5


def stability_after(compared, profit, payouts, stability=4, shares=1):
    r, s = blank(1, 4, **({"stability.compared": compared} if compared else {}))
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "shares", 1, shares)
    cash(s, profit)
    s.regiments[:] = 0
    s.stability[0] = stability
    accounts(s, r, dice(), agents(r, s, Scripted(pay_dividends=const(payouts))))
    return int(s.stability[0])


def test_split_is_the_default_profit_decides_the_loss_dividends_the_gain():
    """D-EXPECT "split" (L203-L208): E(4) = 10. Profit 10 kept, no dividends: no loss (the "dividends" reading
    loses 1). Profit 9: -1. Profit 20, 10 paid (5 payouts of 2): +1 (10 covers E(4)); 12 paid (not E(4) + E(5) = 22):
    still +1."""
    assert stability_after(None, 10, 0) == 4
    assert stability_after(None, 9, 0) == 3
    assert stability_after(None, 20, 5) == 5
    assert stability_after(None, 20, 6) == 5
    assert stability_after(None, 30, 11) == 6  # 22 paid covers E(4) + E(5) = 10 + 12


def test_the_dividends_and_the_profit_readings_of_the_expectation():
    """D-EXPECT's alternatives (``stability.compared``): "dividends" measures both the loss and the gain on the
    dividends paid, "profit" both on the profit before the dividends."""
    assert stability_after("dividends", 10, 0) == 3  # nothing paid: below E(4)
    assert stability_after("profit", 10, 0) == 5  # 10 left covers E(4)
    assert stability_after("profit", 20, 5) == 5  # the profit compared before the dividends: 20 covers E(4) only


@pytest.mark.parametrize("count, expected", [("per_round", [6, 5]), ("cumulative", [6, 4])])
def test_emergency_loans_counted_per_round_or_over_the_game(count, expected):
    """D-EMERGENCY: one emergency loan in each of two rounds (costs 1 £ then 2 £ with the loan's interest, no money).
    Per round 1 // 2 = 0 both times; over the game the second makes two: -1. Nothing is paid, so each round also loses 1
    to the expectation: 7 -> 6 -> 5, or 7 -> 6 -> 4."""
    r, s = blank(1, 4, **{"stability.emergency_count": count})
    s.regiments[:] = [1, 0, 0]
    s.stability[0] = 7
    seen = []
    for _ in range(2):
        s.tally[:] = 0
        accounts(s, r, dice(), agents(r, s, Scripted(royal_protection=const(False))))
        assert s.tally[0, TALLY["emergency_loans"]] == 1
        seen.append(int(s.stability[0]))
    assert seen == expected and s.emergency_total[0] == 2 and s.loans[0] == 2
