"""the scoring and stability fixes against seed 000: each test fails on the code before the issue.

L256 share VP before the final retirement; L250 military blame counts each relative once; L203-L208 D-EXPECT
"split"; D-EMERGENCY per round or cumulative; L173 killed or disgraced; L171 the loot minimum counts the officers
who took part; L160 half-built ships per governor; L132 the budget only to occupied committees."""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, give, seat_office

from sim import ledger
from sim.agents import IllegalDecision
from sim.phases.accounts import accounts
from sim.phases.end import V, end_game, score
from sim.phases.military import deploy
from sim.phases.operations import chairman, governors
from sim.state import FLOW, TALLY


def cash(s, amount):
    ledger.company(s, "trade", np.broadcast_to(amount, (s.n_games,)))


# ------------------------------------------------------------------------------------------------- L256
def test_a_chairman_retiring_at_the_end_keeps_the_chairs_share_vp():
    """L256: on a success the shareholders score, then the final retirement: the Chairman (seat 2, one share)
    rolls 5 + 1 and retires, yet scores 2 share VP (his share and the chair), not 1."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 2)
    give(s, "shares", 2, 1)
    give(s, "shares", 1, 1)
    end_game(s, r, dice({0: [5]}), agents(r, s, Scripted(retire=const(-1))))
    assert s.office[0, L.CHAIRMAN] == -1 and s.supply[0, 2] == 11  # he did retire (sent home)
    assert s.vp[0, :, V["company_shares"]].tolist() == [0, 1, 2, 0]


# ------------------------------------------------------------------------------------------------- L250
def test_military_blame_counts_a_commander_once():
    """L250: half of trophies + officers + commanders; the commander is one of the officers: 1 trophy + 2 officers
    (one commands) = 3 -> -1, not 4 -> -2."""
    r, s = blank(1, 4)
    s.trophies[0, 1] = 1
    give(s, "officers", 1, 2, col=0)
    s.commander[0, 0] = 1
    s.done[:], s.crashed[:], s.end_round[:], s.blame[:] = True, True, 3, 0
    score(s, r)
    assert s.vp[0, 1, V["blame"]] == -1


# ------------------------------------------------------------------------------------------- L203-L208 D-EXPECT
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
    """E(4) = 10. Profit 10 kept, no dividends: no loss (today's "dividends" reading loses 1). Profit 9: -1.
    Profit 20, 10 paid (5 payouts of 2): +1 (10 covers E(4)); 12 paid (not E(4) + E(5) = 22): still +1."""
    assert stability_after(None, 10, 0) == 4
    assert stability_after(None, 9, 0) == 3
    assert stability_after(None, 20, 5) == 5
    assert stability_after(None, 20, 6) == 5
    assert stability_after(None, 30, 11) == 6  # 22 paid covers E(4) + E(5) = 10 + 12


def test_dividends_and_profit_readings_remain_as_keys():
    assert stability_after("dividends", 10, 0) == 3  # nothing paid: below E(4)
    assert stability_after("profit", 10, 0) == 5  # 10 left covers E(4)
    assert stability_after("profit", 20, 5) == 5  # the profit compared before the dividends: 20 covers E(4) only


# ------------------------------------------------------------------------------------------------- D-EMERGENCY
@pytest.mark.parametrize("count, expected", [("per_round", [6, 5]), ("cumulative", [6, 4])])
def test_emergency_loans_counted_per_round_or_over_the_game(count, expected):
    """One emergency loan in each of two rounds (costs 1 £ then 2 £ with the loan's interest, no money). Per round
    1 // 2 = 0 both times; over the game the second makes two: -1. Nothing is paid, so each round also loses 1 to
    the expectation: 7 -> 6 -> 5, or 7 -> 6 -> 4."""
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


# ----------------------------------------------------------------------------------------------------- L173
def army(s, counts, commander):
    for seat, k in counts.items():
        give(s, "officers", seat, k, col=0)
    s.commander[:, 0] = commander


@pytest.mark.parametrize("reading, killed, fired", [("killed", 1, 0), ("disgraced", 0, 1)])
def test_a_defeated_commander_is_killed_or_disgraced(reading, killed, fired):
    """L173: 5-6 -> the commander is killed or disgraced: either way he leaves the army for his family's supply and
    his family loses half its trophies (rounded up); the key says which counter records him."""
    r, s = blank(1, 4, **{"military.defeated_commander": reading})
    army(s, {1: 2}, commander=1)
    s.trophies[0, 1] = 3
    bombay = r.d.regions.index("Bombay")
    d = dice({0: [5, 6, 1, 1]})  # check lowest 5 (2 officers + 1 regiment - 1 = 2 dice); death dice 1, 1
    deploy(s, r, d, agents(r, s, Scripted(deploy=const(bombay, [0, 2, 0, 0], 1, [False, False, False]))), 0)
    d.assert_spent()
    assert s.officers[0, 1, 0] == 1 and s.supply[0, 1] == 11 and s.trophies[0, 1] == 1
    assert s.tally[0, TALLY["officers_killed"]] == killed and s.tally[0, TALLY["fired"]] == fired


# ----------------------------------------------------------------------------------------------------- L171
def test_the_loot_minimum_counts_the_officers_who_took_part():
    """L171: 5 officers take part (seat 1: 3 with the commander, seat 2: 2); two die, 3 survive; the loot is 4 £,
    less than the 5 who took part: each survivor gets 1 £ and nobody else (counting survivors, 4 >= 3, the
    round-robin would also pay the commander's named family a pound)."""
    r, s = blank(1, 4)
    army(s, {1: 3, 2: 2}, commander=1)
    s.regiments[0, 0] = 0
    bombay = r.d.regions.index("Bombay")
    s.looted[0, bombay] = True  # no first-loot bonus: 4 £ per strength 1
    strat = Scripted(deploy=const(bombay, [0, 3, 2, 0], 0, [False, False, False]))
    d = dice({0: [1, 3, 4, 5, 1, 6, 1, 6, 1]})  # 4 dice, success; death dice seat 1: 1 6 1, seat 2: 6 1
    deploy(s, r, d, agents(r, s, strat), 0)
    d.assert_spent()
    assert s.officers[0, :, 0].tolist() == [0, 2, 1, 0]
    assert s.money[0].tolist() == [0, 2, 1, 0] and s.ledger[0, FLOW["loot"]] == 3


# ----------------------------------------------------------------------------------------------------- L160
def two_governors(r, s):
    bombay, mysore = r.d.regions.index("Bombay"), r.d.regions.index("Mysore")
    for region, seat in ((bombay, 1), (mysore, 2)):
        s.owner[0, region] = 0
        s.governor[0, region] = seat
        s.supply[0, seat] -= 1
    return bombay, mysore


def test_half_built_ships_are_per_governor():
    """Two governors of Bombay's presidency each half-build a ship (one success each): no ship; each keeps his
    half (two halves of different governors pooled per presidency would make one)."""
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
    r, s = blank(1, 4, **{"governors.half_ship_inherited": inherited})
    bombay, _ = two_governors(r, s)
    s.governor[0, r.d.regions.index("Mysore")] = -1
    s.supply[0, 2] += 1
    s.half_ships[0, bombay] = 1
    governors(s, r, dice({0: [5, 6, 6]}), agents(r, s, Scripted(govern=const(True))))  # mishap: fired
    assert s.governor[0, bombay] == -1 and s.half_ships[0, bombay] == left


# ----------------------------------------------------------------------------------------------------- L132
def test_the_budget_goes_only_to_committees_whose_office_is_held():
    """L132 "доступные комитеты": with only the Director of Trade and the President of Bombay in office, handing
    3 £ to the vacant Shipping Manager's committee is illegal."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.DIRECTOR, 1)
    seat_office(s, L.PRESIDENT[0], 2)
    cash(s, 6)
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
    cash(s, 6)
    chairman(s, r, dice(), agents(r, s, Scripted(take_loans=const(0), allocate_budget=allocate)))
    assert seen["open"] == [[True, False, True, False, False]]
    assert s.treasury[0].tolist() == [5, 3, 7, 3, 3] and s.balance[0] == 0


def test_with_no_committee_held_the_budget_stays_in_the_balance():
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    cash(s, 6)
    strat = Scripted(take_loans=const(0))
    chairman(s, r, dice(), agents(r, s, strat))
    assert strat.asked("allocate_budget") == [] and s.balance[0] == 6 and s.treasury[0].tolist() == [3] * 5
