"""Phase 7 income and accounts (R-ACCOUNTS): income, costs, royal protection, emergency loans, dividends,
stability (D-EXPECT) and the crash."""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, give, seat_office

from sim import ledger
from sim.phases.accounts import accounts, company_costs, costs_due, dividends, family_income, stability_gain
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


def test_emergency_loan_stability_loss_rounds_down():
    """R-ACCOUNTS, D-EMERGENCY: -1 stability per 2 emergency loans: 3 loans cost 1 (not 2), 1 loan costs nothing. Costs
    11 and 5 with an empty treasury; no dividends (-1 each)."""
    r, s = blank(2, 4)
    s.regiments[0] = [3, 3, 5]  # 11 £: 3 emergency loans
    s.regiments[1] = [2, 2, 1]  # 5 £: 1 emergency loan
    s.stability[:] = 5
    accounts(s, r, dice(), agents(r, s, Scripted(pay_dividends=const(0))))
    assert s.tally[:, TALLY["emergency_loans"]].tolist() == [3, 1]
    assert s.ledger[:, FLOW["emergency_burned"]].tolist() == [-4, 0]
    assert s.stability.tolist() == [5 - 1 - 1, 5 - 0 - 1]


def test_emergency_loans_round_up_to_cover_the_shortfall():
    """R-ACCOUNTS: a shortfall of 6 £ needs 2 loans of 5 £ (ceil), 5 £ needs exactly 1."""
    r, s = blank(2, 4)
    s.regiments[0] = [2, 2, 2]
    s.regiments[1] = [2, 2, 1]
    s.stability[:] = 5
    accounts(s, r, dice(), agents(r, s, Scripted(pay_dividends=const(0))))
    assert s.loans.tolist() == [2, 1] and s.balance.tolist() == [0, 0]
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


def test_accounts_leave_a_finished_game_alone_and_tally_the_round():
    """R-ACCOUNTS (L191–L208): game 0 runs: a factory pays 1 £, costs 3 (regiments) from 5 £, profit 2, no dividends (-1
    stability, tallied). Game 1 has ended: no income, no costs, no decision, no change."""
    r, s = blank(2, 4)
    seat_office(s, L.CHAIRMAN, 1)
    give(s, "shares", 2, 1)
    s.factories[:, 0] = 1
    ledger.company(s, "trade", np.array([5, 5]))
    s.stability[:] = 4
    s.done[1] = True
    s.tally[:, TALLY["company_costs"]] = 1
    strat = Scripted(pay_dividends=const(0))
    accounts(s, r, dice(), agents(r, s, strat))
    assert s.money[:, 0].tolist() == [1, 0] and s.balance.tolist() == [2, 5]
    assert s.tally[:, TALLY["company_costs"]].tolist() == [4, 1] and s.tally[:, TALLY["profit"]].tolist() == [2, 0]
    assert s.stability.tolist() == [3, 4] and s.tally[:, TALLY["stability_change"]].tolist() == [-1, 0]
    assert strat.asked("pay_dividends") == [([0], [1])] and ledger.balanced(s).all()


def test_royal_protection_needs_a_chairman_and_a_shortfall():
    """R-ACCOUNTS, royal protection (L200): game 0: short 7 £ but no Chairman: emergency loans. Game 1: costs covered:
    not asked. Game 2: short, asked, declines: emergency loans; the shortfall offered is what the balance lacks."""
    r, s = blank(3, 4)
    seat_office(s, L.CHAIRMAN, 2, games=slice(1, 3))
    s.regiments[:] = [[3, 3, 1], [1, 0, 0], [3, 3, 1]]
    ledger.company(s, "trade", np.array([0, 4, 2]))
    seen = []

    def protect(obs, legal):
        seen.append((obs.games.tolist(), legal.shortfall.tolist()))
        return np.zeros(obs.n, bool)

    accounts(s, r, dice(), agents(r, s, Scripted(royal_protection=protect, pay_dividends=const(0))))
    assert seen == [([2], [5])]
    assert s.loans.tolist() == [2, 0, 1] and s.royal_protection.tolist() == [1, 1, 1]
    assert s.tally[:, TALLY["royal_protection"]].tolist() == [0, 0, 0]


def test_stability_gain_stops_at_the_top_and_counts_levels_cumulatively():
    """D-EXPECT (L206–L207): E(s) = 2s + 2. From 5: 12 -> +1, 12 + 14 = 26 -> +2 (to the top, 7), more buys nothing
    more; from 7 only 0 or -1; from 2: 6 + 8 + 10 = 24 -> +3, 23 -> +2."""
    r = Rules.default()
    got = stability_gain(r, np.array([5, 5, 5, 5, 7, 7, 2, 2]), np.array([11, 12, 26, 99, 16, 15, 24, 23]))
    assert got.tolist() == [-1, 1, 2, 2, 0, -1, 3, 2]


def test_income_uses_the_rules_rates():
    """R-ACCOUNTS, family income (L191): a factory pays ``property.factory_income`` and a ship sailing from a family's
    yard ``property.yard_ship_income`` (2 and 3 here, not the default 1 and 1)."""
    r = Rules.default(4).with_overrides({"property.factory_income": 2, "property.yard_ship_income": 3})
    _, s = blank(1, 4, r)
    s.factories[0, 0] = 3
    s.shipyards[0, 1] = 1
    s.yard_ships[0, 1, 0] = 1
    family_income(s, r)
    assert s.money[0].tolist() == [6, 3, 0, 0]


def test_costs_exactly_covered_offer_no_protection_and_one_loan_burns_its_excess():
    """R-ACCOUNTS, Company costs (L200): game 0: costs 3 with 3 £: paid, no royal protection offered. Game 1: costs 3
    with 0 £: one emergency loan of 5 £, 2 £ burn. The round's tallies add to what they held."""
    r, s = blank(2, 4)
    seat_office(s, L.CHAIRMAN, 0)
    s.regiments[:] = [1, 1, 1]
    ledger.company(s, "trade", np.array([3, 0]))
    s.tally[:, TALLY["emergency_loans"]] = 1
    s.tally[:, TALLY["royal_protection"]] = 1
    strat = Scripted(royal_protection=const(False))
    emergency = company_costs(s, r, agents(r, s, strat))
    assert emergency.tolist() == [0, 1] and [g for g, _ in strat.asked("royal_protection")] == [[1]]
    assert s.ledger[:, FLOW["emergency_burned"]].tolist() == [0, -2] and s.balance.tolist() == [0, 0]
    assert s.tally[:, TALLY["emergency_loans"]].tolist() == [1, 2] and s.tally[
        :, TALLY["royal_protection"]
    ].tolist() == [1, 1]


def test_dividends_asked_only_when_one_payout_is_affordable():
    """R-ACCOUNTS, dividends (L201–L202): game 0: the chair alone (1 vote) and 5 £: up to 5 payouts of 1 £. Game 1: 3
    votes and 2 £: not asked. The dividends tally adds to the round's."""
    r, s = blank(2, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "shares", 1, 2, games=1)
    ledger.company(s, "trade", np.array([5, 2]))
    s.tally[:, TALLY["dividends"]] = 1
    strat = Scripted(pay_dividends=lambda obs, legal: legal.max_payouts)
    assert dividends(s, r, agents(r, s, strat)).tolist() == [5, 0]
    assert [g for g, _ in strat.asked("pay_dividends")] == [[0]]
    assert s.money[0, 0] == 5 and s.tally[:, TALLY["dividends"]].tolist() == [6, 1]


def test_stability_below_zero_is_a_crash_at_zero():
    """R-ACCOUNTS, stability (L203–L208), D-EMERGENCY: stability 1 and 4 emergency loans (-2): clipped to 0, the game
    crashes."""
    r, s = blank(1, 4)
    s.stability[0] = 1
    s.regiments[0] = [6, 6, 6]  # 18 £: 4 loans
    s.round[0] = 2
    accounts(s, r, dice(), agents(r, s, Scripted(pay_dividends=const(0))))
    assert s.loans[0] == 4 and s.stability[0] == 0 and s.crashed[0] and s.end_round[0] == 2
    assert s.tally[0, TALLY["stability_change"]] == -1
