"""Details of the rules that the mutation runs found untested, grouped by module. Each test names the
wrong reading it rules out."""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, chained_bombay_map, const, dice, fund, give, seat_office

import sim
from sim import capital, ledger
from sim import positions as pos
from sim.agents import Agents, IllegalDecision, Observation, StrategyRandom
from sim.board import reachable, vacate
from sim.dice import Dice, ScriptedDice, Streams
from sim.engine import play_batch, resolve_strategies
from sim.phases.accounts import accounts, company_costs, dividends, family_income, stability_gain
from sim.phases.appointments import appoint_governor, appoint_office, appointments, candidates, elect_chairman
from sim.phases.end import V, end_game, ranking_vp, score
from sim.phases.family import family_actions, legal_actions
from sim.phases.london import retirement_roll
from sim.phases.military import (
    apply_military_moves,
    deploy,
    deploy_targets,
    military_affairs,
    settle_commanders,
    share_loot,
)
from sim.phases.operations import chairman, china_trade, director_of_trade, governors, shipping_manager
from sim.phases.setup import apply_lots, collect_bids, run_auction, setup, starting_capital
from sim.phases.shares import issue_shares
from sim.positions import held_count
from sim.rules import Rules
from sim.state import FLOW, TALLY, new_state


# ---------------------------------------------------------------------------------------------- ledger / board
def test_presidency_tax_enters_the_ledger_per_game_and_a_seat_0_governor_can_be_fired():
    """Governors of Bombay: game 0 taxes for the presidency (+2 £ to its treasury, +2 on the tax flow: not -2, not
    the batch's total), game 1's governor is seat 0 and suffers a mishap: he is fired (seat 0 is a holder too), the
    round's fired tally adds to the one already counted."""
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


# ------------------------------------------------------------------------------------------------------- state
def test_relatives_count_every_place_once():
    """D-FAMILY: a relative in each place (supply, clerk, academy, officer, share, retired, debtors' prison, exchange,
    office, governor) is counted exactly once."""
    r, s = blank(1, 4)
    for field, col in (("clerks", 1), ("academy", None), ("officers", 2), ("shares", None), ("retired", 3)):
        give(s, field, 1, 1, col=col)
    give(s, "prisoners", 1, 2)
    s.exchange[0, 1] = 1
    s.office[0, L.DIRECTOR] = 1
    s.governor[0, 4] = 1
    s.supply[0, 1] -= 3
    assert s.supply[0, 1] == 12 - 10
    assert s.relatives()[0].tolist() == [12, 12, 12, 12]
    s.prisoners[0, 1] += 1
    s.governor[0, 5] = 1
    assert s.relatives()[0].tolist() == [12, 14, 12, 12]


# -------------------------------------------------------------------------------------------- dice and agents
def test_strategy_random_draws_one_number_per_choice_and_integer():
    streams = Streams(8, np.arange(2), 2)
    rng = StrategyRandom(streams, np.arange(2), np.zeros(2, dtype=np.int64))
    rng.choice(np.ones((2, 3), bool))
    rng.integers(np.zeros(2, dtype=np.int64), np.full(2, 5))
    assert streams.counters[1].tolist() == [2, 2] and streams.counters[0].tolist() == [0, 0]


def test_scripted_dice_defaults():
    d = ScriptedDice({0: [2]})
    assert d.uniform(np.array([0, 1])).tolist() == [[0.0], [0.0]]
    d.lowest(np.array([0]), 1)
    assert d.rolls() == [1] and d.rolls(game=0) == [1] and d.rolls("uniform") == [1, 1]


# ---------------------------------------------------------------------------------------------------- military
def deploy_to(region_name):
    def answer(obs, legal):
        target = np.full(obs.n, obs.rules.d.regions.index(region_name))
        return (
            target,
            legal.officers.astype(np.int64),
            legal.regiments.astype(np.int64),
            np.zeros_like(legal.mercenaries),
        )

    return answer


def test_death_dice_go_commanders_family_first_each_game_its_own_count():
    """R-DEPLOY: every officer rolls for death, the commander's family first (his own die the very first).
    Game 0: commander seat 2 (2 officers) and seat 1 (1): dice 1, 1 | 6 -> seat 1's officer dies (read in seat order,
    seat 2 would lose one). Game 1: commander seat 1 and seat 3 (1 each): 6 | 1 -> the commander dies, seat 3 takes
    the command. Each game rolls only its own officers' dice (3 and 2)."""
    r, s = blank(2, 4)
    give(s, "officers", 2, 2, col=0, games=0)
    give(s, "officers", 1, 1, col=0, games=0)
    give(s, "officers", 1, 1, col=0, games=1)
    give(s, "officers", 3, 1, col=0, games=1)
    s.commander[:, 0] = [2, 1]
    s.tally[:, TALLY["officers_killed"]] = [1, 0]
    d = dice({0: [3, 3, 3, 1, 1, 6], 1: [4, 4, 6, 1]})
    deploy(s, r, d, agents(r, s, Scripted(deploy=deploy_to("Bombay"))), 0)
    d.assert_spent()
    assert d.log == [("lowest", 0, 3), ("lowest", 1, 2), ("d6", 0, 3), ("d6", 1, 2)]
    assert s.officers[0, :, 0].tolist() == [0, 0, 2, 0] and s.officers[1, :, 0].tolist() == [0, 0, 0, 1]
    assert s.commander[:, 0].tolist() == [2, 3]
    assert s.tally[:, TALLY["officers_killed"]].tolist() == [2, 1] and (s.relatives() == 12).all()


def test_a_defeated_commander_is_lost_besides_his_familys_dead():
    """A mishap costs the commander (disgraced) on top of the officers the dice kill: his family had 3 officers, his
    own die spares him, his family's second die kills one: 2 lost (not 1)."""
    r, s = blank(1, 4)
    give(s, "officers", 1, 3, col=0)
    s.commander[0, 0] = 1
    s.trophies[0, 1] = 4
    d = dice({0: [5, 6, 5, 1, 6, 1]})  # 3 officers + 1 regiment - 1: 3 dice, lowest 5: mishap
    deploy(s, r, d, agents(r, s, Scripted(deploy=deploy_to("Bombay"))), 0)
    d.assert_spent()
    assert s.officers[0, 1, 0] == 1 and s.supply[0, 1] == 11 and s.trophies[0, 1] == 2
    assert s.commander[0, 0] == 1 and s.owner[0, r.d.regions.index("Bombay")] == -1


def test_success_in_a_company_region_clears_unrest_only():
    """Game 0: Bombay already the presidency's, unrest 2: a success clears the unrest (to 0, not 1); no conquest, no
    trophy, no loot. Game 1: sovereign Bombay (strength 1) taken by a commander who already has 2 trophies: 3."""
    r, s = blank(2, 4)
    bombay = r.d.regions.index("Bombay")
    s.owner[0, bombay] = 0
    s.unrest[0, bombay] = 2
    give(s, "officers", 1, 1, col=0)
    s.commander[:, 0] = 1
    s.trophies[:, 1] = 2
    strat = Scripted(deploy=deploy_to("Bombay"), share_loot=const([False] * 4))
    d = dice({0: [1, 6, 1], 1: [1, 1]})  # game 0: strength 0 -> 2 dice; game 1: 1 die
    deploy(s, r, d, agents(r, s, strat), 0)
    d.assert_spent()
    assert s.unrest[:, bombay].tolist() == [0, 0] and s.owner[:, bombay].tolist() == [0, 0]
    assert s.trophies[:, 1].tolist() == [2, 3] and s.looted[:, bombay].tolist() == [False, True]
    assert s.money[:, 1].tolist() == [0, 4] and s.tally[:, TALLY["conquests"]].tolist() == [0, 1]
    assert [g for g, _ in strat.asked("share_loot")] == [[1]]


def test_share_loot_asks_only_the_looting_commanders_with_army_and_loot():
    r, s = blank(3, 4)
    seen = []

    def named(obs, legal):
        seen.append((obs.games.tolist(), obs.seat.tolist(), legal.army.tolist(), legal.loot.tolist()))
        return np.zeros((obs.n, 4), bool)

    survivors = np.array([[1, 0, 0, 0], [0, 2, 1, 0]])
    share_loot(s, agents(r, s, Scripted(share_loot=named)), 2, np.array([0, 2]), np.array([0, 1]), np.array([5, 7]),
               survivors, np.array([1, 0]))  # fmt: skip
    assert seen == [([0, 2], [0, 1], [2, 2], [5, 7])]
    # game 0: 5 over 2 slots (1 officer, 1 regiment) -> 2 + the remainder 1 = 3 to seat 0; game 2: 7 over 3 officers
    assert s.money[0].tolist() == [3, 0, 0, 0] and s.money[2].tolist() == [0, 5, 2, 0] and s.money[1].sum() == 0


def test_loot_named_families_per_game_and_the_tally():
    """Game 0: 9 £ over 1 officer (seat 0, commander) and named seats 1 and 3: 3 each. Game 1: 6 £ over 2 officers
    of seat 2 (commander) and named seats 0 and 3: 1 each, the 2 £ remainder to the officers. Game 2: 5 £ for one
    officer alone: all 5. The loot tally adds to what the round already looted."""
    r, s = blank(3, 4)
    s.tally[:, TALLY["loot"]] = 1
    names = {0: [False, True, False, True], 1: [True, False, False, True], 2: [False] * 4}

    def named(obs, legal):
        return np.array([names[int(g)] for g in obs.games])

    survivors = np.array([[1, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 1]])
    share_loot(s, agents(r, s, Scripted(share_loot=named)), 1, np.arange(3), np.array([0, 2, 3]), np.array([9, 6, 5]),
               survivors, np.array([0, 0, 0]))  # fmt: skip
    assert s.money.tolist() == [[3, 3, 0, 3], [1, 0, 4, 1], [0, 0, 0, 5]]
    assert s.tally[:, TALLY["loot"]].tolist() == [10, 7, 6]


def test_loot_remainder_reaches_named_families_in_seat_order_one_pound_each():
    """5 £ over 1 officer and named seats 1 and 3 (3 slots): 1 each, remainder 2: the officer, then seat 1 -- not
    seat 3, and 1 £ each, never 2 to one family."""
    r, s = blank(2, 4)
    strat = Scripted(share_loot=const([False, True, False, True]))
    share_loot(s, agents(r, s, strat), 0, np.array([0, 1]), np.array([0, 0]), np.array([5, 8]),
               np.array([[1, 0, 0, 0], [1, 0, 0, 0]]), np.array([0, 0]))  # fmt: skip
    assert s.money[0].tolist() == [2, 2, 0, 1]
    assert s.money[1].tolist() == [3, 3, 0, 2]  # 8 over 3 slots: 2 each, remainder 2: the officer and seat 1


def test_loot_with_nobody_to_take_it_is_lost():
    r, s = blank(1, 4)
    share_loot(s, agents(r, s, Scripted(share_loot=const([False] * 4))), 0, np.array([0]), np.array([0]),
               np.array([7]), np.array([[0, 0, 0, 0]]), np.array([0]))  # fmt: skip
    assert s.money.sum() == 0 and s.ledger[0, FLOW["loot"]] == 0


def test_mercenaries_take_their_share_of_the_loot():
    """A conquest with a mercenary band: loot 4 + 4 = 8 over the commander's officer, his own family named, the
    regiment and the band: 2 each, the family gets 4 (the troops' 4 are never paid out)."""
    r, s = blank(1, 4)
    give(s, "officers", 1, 1, col=0)
    s.commander[0, 0] = 1
    seat_office(s, L.PRESIDENT[0], 2)
    s.treasury[0, L.T_PRESIDENCY[0]] = 5
    bombay = r.d.regions.index("Bombay")

    def deploy_with_sikhs(obs, legal):
        return (
            np.array([bombay]),
            legal.officers.astype(np.int64),
            legal.regiments.astype(np.int64),
            np.array([[False, True, False]]),
        )

    strat = Scripted(deploy=deploy_with_sikhs, fund_mercenaries=const(True))
    d = dice({0: [1, 6, 6, 1]})  # 1 + 1 + Sikhs 2 - 1 = 3 dice, success; his death die 1
    deploy(s, r, d, agents(r, s, strat), 0)
    d.assert_spent()
    assert s.money[0].tolist() == [0, 4, 0, 0] and s.treasury[0, L.T_PRESIDENCY[0]] == 2


def test_a_tie_for_command_after_a_battle_without_military_affairs_goes_to_chance():
    """The commander dies; two families are left with one officer each and nobody heads Military Affairs: chance
    picks among the tied (uniform 0.9 -> the second of them)."""
    r, s = blank(1, 4)
    for seat in (1, 2, 3):
        give(s, "officers", seat, 1, col=0)
    s.commander[0, 0] = 1
    d = dice({0: [3, 3, 3, 6, 1, 1]}, uniforms={0: [0.9]})
    deploy(s, r, d, agents(r, s, Scripted(deploy=deploy_to("Bombay"))), 0)
    d.assert_spent()
    assert s.officers[0, :, 0].tolist() == [0, 0, 1, 1] and s.commander[0, 0] == 3


# --------------------------------------------------------------------------------------------------------- end
def test_score_retirements_prisoners_and_the_ladder_weights():
    """R-END: retired relatives score their tier's VP; debtors' prison -1 each (nothing under blame 6); the influence
    ladder weighs every asset by its rules value (shipyards and factories weigh 0 by default: set 3 and 5 here)."""
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
    """Game 0 survived round 7: its Chairman rolls the final retirement (6 + 1: retires, sent home). Game 1 crashed in
    round 3: no retirement roll, a blame situation drawn (uniform 0.55 with six equal weights -> the fourth,
    parliament)."""
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


# ---------------------------------------------------------------------------------------------------- accounts
def test_accounts_leave_a_finished_game_alone_and_tally_the_round():
    """Game 0 runs: a factory pays 1 £, costs 3 (regiments) from 5 £, profit 2, no dividends (-1 stability, tallied).
    Game 1 has ended: no income, no costs, no decision, no change."""
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
    """Game 0: short 7 £ but no Chairman: emergency loans. Game 1: costs covered: not asked. Game 2: short, asked,
    declines: emergency loans; the shortfall offered is what the balance lacks."""
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
    """E(s) = 2s + 2. From 5: 12 -> +1, 12 + 14 = 26 -> +2 (to the top, 7), more buys nothing more; from 7 only 0 or
    -1; from 2: 6 + 8 + 10 = 24 -> +3, 23 -> +2."""
    r = Rules.default()
    got = stability_gain(r, np.array([5, 5, 5, 5, 7, 7, 2, 2]), np.array([11, 12, 26, 99, 16, 15, 24, 23]))
    assert got.tolist() == [-1, 1, 2, 2, 0, -1, 3, 2]


def test_ledger_family_pays_seats_including_seat_0_and_skips_nobody():
    """ledger.family without a mask: seat -1 games get nothing; a scalar amount is paid to every seat given."""
    r, s = blank(3, 4)
    ledger.family(s, "lot_money", np.array([0, -1, 2]), np.int64(3))
    assert s.money.tolist() == [[3, 0, 0, 0], [0, 0, 0, 0], [0, 0, 3, 0]]
    ledger.family(s, "lot_money", np.array([0, 1, 2]), np.array([1, 2, 3]), where=np.array([False, True, True]))
    assert s.money.tolist() == [[3, 0, 0, 0], [0, 2, 0, 0], [0, 0, 6, 0]]
    assert s.ledger[:, FLOW["lot_money"]].tolist() == [3, 2, 6] and ledger.balanced(s).all()


# ------------------------------------------------------------------------------------------------------ shares
def test_shares_issue_to_seat_0_and_move_the_queue_per_game():
    """R-SHARES in two games at once: game 0 [0, 1, 2] with 1 loan -> seat 2 joins, [-, 0, 1]; game 1 [0, 0] with
    3 loans -> both of seat 0's relatives join the board."""
    r, s = blank(2, 4)
    s.exchange[0, :3] = [0, 1, 2]
    s.exchange[1, :2] = [0, 0]
    s.loans[:] = [1, 3]
    issue_shares(s, r, dice(), agents(r, s))
    assert s.exchange.tolist() == [[-1, 0, 1, -1, -1], [-1, -1, -1, -1, -1]]
    assert s.shares.tolist() == [[0, 0, 1, 0], [2, 0, 0, 0]] and s.loans.tolist() == [0, 1]


# ----------------------------------------------------------------------------------------------------- capital
def test_capital_rows_are_settled_each_on_its_own():
    """A batch where one game had no bids (D-S0: B/N) and another bid; one game rounds to an excess of a coin and
    another to exactly B: only the first gives a coin back."""
    r = Rules.default(4)  # B = 24
    exact = capital.exact_capital(np.array([[0, 0, 0, 0], [10, 0, 0, 10]]), r)
    assert np.allclose(exact, [[6, 6, 6, 6], [4, 8, 8, 4]])
    exact = np.array([[5.7, 5.8, 5.75, 6.75], [6.0, 6.0, 6.0, 6.0]])
    rounded = capital.round_capital(exact, r)
    money, received, case = capital.settle(exact, rounded, np.array([[0, 0], [1, 1]]), r)
    assert money.tolist() == [[5, 6, 6, 7], [6, 6, 6, 6]] and received.tolist() == [[-1, 0, 0, 0], [0, 0, 0, 0]]
    assert case.tolist() == [capital.TAKEN_BACK, capital.EXACT]


# --------------------------------------------------------------------------------------------------------- end
def test_influence_ranking_per_game():
    """Each game ranks its own families: [9, 5, 5, 0] and [2, 2, 1, 0] in one batch (a batch-wide top or tie count
    would give the second game nothing)."""
    r = Rules.default(4)
    got = ranking_vp(r, np.array([[9, 5, 5, 0], [2, 2, 1, 0], [0, 3, 1, 1]]), np.array([7, 7, 7]))
    assert got.tolist() == [[8, 4, 4, 0], [4, 4, 0, 0], [0, 8, 4, 4]]


def test_despots_blame_counts_governors_lost_to_revolts():
    """Blame 5 (despots): -2 per governor, including those deposed this round, -4 for the Governor-General."""
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


# ------------------------------------------------------------------------------------------------------ family
def per_seat(answers: dict):
    """family_action answering per (game, seat); others pass."""

    def answer(obs, legal):
        rows = [
            answers.get((int(g), int(s)), (L.A_PASS, False, [0, 0])) for g, s in zip(obs.games, obs.seat, strict=True)
        ]
        return np.array([a[0] for a in rows]), np.array([a[1] for a in rows]), np.array([a[2] for a in rows])

    return answer


def test_family_actions_per_game_and_a_finished_game_untouched():
    """Game 0: seat 0 buys two luxuries (twice: 8 £, wealth 2), seat 1 a shipyard twice, seat 2 two factories,
    seat 3 an officer twice. Game 1 has ended: nobody is asked and nothing changes."""
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
    """Two buyers, the chair vacant: the family that last held it ranks them (3 puts seat 1 first). One buyer alone:
    nobody is asked."""
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
    r, s = blank(2, 4)
    s.supply[0, 2] = 0
    s.academy[0, 2] = 12
    s.done[1] = True
    strat = Scripted(family_action=const(L.A_PASS, False, [0, 0]), extra_clerk=const(1))
    family_actions(s, r, dice(), agents(r, s, strat))
    assert [(g, seats) for g, seats in strat.asked("extra_clerk")] == [([0], [0]), ([0], [1]), ([0], [3])]
    assert s.clerks[0, :, 1].tolist() == [1, 1, 0, 1] and s.clerks[1].sum() == 0


def test_income_uses_the_rules_rates():
    r = Rules.default(4).with_overrides({"property.factory_income": 2, "property.yard_ship_income": 3})
    _, s = blank(1, 4, r)
    s.factories[0, 0] = 3
    s.shipyards[0, 1] = 1
    s.yard_ships[0, 1, 0] = 1
    family_income(s, r)
    assert s.money[0].tolist() == [6, 3, 0, 0]


def test_costs_exactly_covered_offer_no_protection_and_one_loan_burns_its_excess():
    """Game 0: costs 3 with 3 £: paid, no royal protection offered. Game 1: costs 3 with 0 £: one emergency loan of
    5 £, 2 £ burn. The round's tallies add to what they held."""
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
    """Game 0: the chair alone (1 vote) and 5 £: up to 5 payouts of 1 £. Game 1: 3 votes and 2 £: not asked.
    The dividends tally adds to the round's."""
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
    """Stability 1 and 4 emergency loans (-2): clipped to 0, the game crashes."""
    r, s = blank(1, 4)
    s.stability[0] = 1
    s.regiments[0] = [6, 6, 6]  # 18 £: 4 loans
    s.round[0] = 2
    accounts(s, r, dice(), agents(r, s, Scripted(pay_dividends=const(0))))
    assert s.loans[0] == 4 and s.stability[0] == 0 and s.crashed[0] and s.end_round[0] == 2
    assert s.tally[0, TALLY["stability_change"]] == -1


# ------------------------------------------------------------------------------------------------------- board
def test_vacate_a_seat_0_holder_adds_to_the_fired_tally():
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 0)
    s.tally[0, TALLY["fired"]] = 2
    vacate(s, np.array([0]), L.SHIPPING)
    assert s.office[0, L.SHIPPING] == -1 and s.supply[0, 0] == 12 and s.tally[0, TALLY["fired"]] == 3


def test_a_map_with_more_orders_than_the_table_reaches_by_matrix_products():
    """Past 20 orders reachability falls back from the lookup table to matrix products: four more Bombay orders
    chained to Bombay3 are reached from Bombay's port, and nothing changes for the others."""
    r = chained_bombay_map(4)
    assert len(r.d.orders) == 21
    usable = np.ones((2, 21), dtype=bool)
    usable[1, r.d.orders.index("Extra2")] = False
    reach = reachable(r, usable)
    extra = [r.d.orders.index(f"Extra{i}") for i in range(1, 5)]
    assert reach[0, 0, extra].all() and reach[1, 0, extra].tolist() == [True, False, False, False]
    assert not reach[:, 1:, extra].any()
    small = Rules.default()
    assert np.array_equal(reach[:, :, :17], reachable(small, usable[:, :17]))  # the dead-end chain adds no route


# ------------------------------------------------------------------------------------------------------ london
def test_retirement_roll_only_in_the_games_given_and_pays_for_the_tier():
    """Games 0 and 2 roll, game 1 does not. Game 0: the Director (2 stress markers) rolls 3 + 2 = 5: retires to tier 4
    (20 £, wealth 4), his markers cleared. Game 2: the Director rolls 6 and is sent home. Returns the retirements."""
    r, s = blank(3, 4)
    seat_office(s, L.DIRECTOR, 1)
    s.stress[:, L.DIRECTOR] = [2, 2, 0]
    fund(s, 1, 20)
    seen = []

    def retire(obs, legal):
        seen.append((obs.games.tolist(), legal.office.tolist(), legal.affordable.tolist()))
        return np.where(obs.games == 0, 4, -1)

    d = dice({0: [3], 2: [6]})
    got = retirement_roll(s, r, d, agents(r, s, Scripted(retire=retire)), np.array([0, 2]))
    d.assert_spent()
    assert got.count.tolist() == [1, 0, 1]
    assert seen == [([0, 2], [L.DIRECTOR] * 2, [[True] * 5, [True] * 5])]
    assert s.office[:, L.DIRECTOR].tolist() == [-1, 1, -1] and s.stress[:, L.DIRECTOR].tolist() == [0, 2, 0]
    assert s.retired[0, 1].tolist() == [0, 0, 0, 0, 1] and s.wealth[:, 1].tolist() == [4, 0, 0]
    assert s.money[:, 1].tolist() == [0, 20, 20] and s.ledger[:, FLOW["retirement"]].tolist() == [-20, 0, 0]
    assert s.supply[:, 1].tolist() == [11, 11, 12] and (s.relatives() == 12).all()


# ------------------------------------------------------------------------------------------------ appointments
def test_appointments_round_per_game():
    """Game 0: the Shipping Manager (1 stress marker) is the only other office holder, so he becomes Director and his
    marker goes with him; China is closed: no manager. Game 1: no Chairman and nobody else in office: chance fills
    the Director and the Shipping Manager from the clerks (uniforms 0.0: the first candidate, seat 1's Bombay clerks);
    the new Director (seat 1) then appoints the Presidents (his own Bombay clerk, seat 3 for Madras, seat 2 for
    Bengal), and chance China's manager (open) from seat 3's second clerk. Game 2 has ended: nothing happens."""
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
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 3)
    give(s, "clerks", 1, 1, col=0)
    strat = Scripted()
    appoint_office(s, r, dice(), agents(r, s, strat), L.PRESIDENT[0])
    assert strat.asked("appoint") == [([0], [3])] and s.office[0, L.PRESIDENT[0]] == 1


def test_a_hung_board_without_a_former_chair_is_settled_by_chance():
    """Two families with 1 share each and no former chair: no majority, nobody to pick, chance picks (uniform 0.9 ->
    the second board family). His share becomes the chair."""
    r, s = blank(1, 4)
    give(s, "shares", 1, 1)
    give(s, "shares", 3, 1)
    strat = Scripted(vote_chairman=lambda obs, legal: obs.seat)
    elect_chairman(s, r, dice(uniforms={0: [0.9]}), agents(r, s, strat))
    assert s.office[0, L.CHAIRMAN] == 3 and s.shares[0].tolist() == [0, 1, 0, 0] and s.last_chair[0] == 3
    assert strat.asked("choose_chairman") == []


def test_chairman_majority_boundary_and_vote_weights():
    """51 % of share votes: 2 of 4 (50 %) is no majority, 3 of 5 is. Votes weigh by shares, not by families."""
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


# -------------------------------------------------------------------------------------------------- operations
def test_loans_past_the_free_three_by_share_weighted_vote_per_game():
    """Game 0: the Chairman (seat 0, 1 vote) and seat 1 (1 share) -- 1 of 2 votes (50 %) is no majority: only the
    3 free loans. Game 1: seat 1 holds 2 shares and votes yes with the chair: 5 loans. Game 2 has ended: nothing.
    The loans tally adds to the round's."""
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


def test_director_stops_when_he_rolls_no_dice_or_runs_out_of_money():
    """Game 0 stops at once (0 dice). Game 1 rolls 2 dice (no success), then 1 die with his last £ (no success):
    his treasury is empty, he is not asked again. The checks tally counts both."""
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


def test_shipping_yard_ships_go_to_their_owners_and_are_tallied():
    """7 £: a yard ship at seat 2's yard in Madras (3 £) and two leased (4 £); ships tallied, owner's yard full."""
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


def test_china_trade_per_game_with_yard_ships_and_manager_pay():
    """Game 0: 2 ships in China (a leased and a yard ship), success: 4 £ and 1 £ per Company opium. Game 1: the
    manager declines. Game 2: no ship in China: not asked."""
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


# ------------------------------------------------------------------------------------------------------- state
def test_new_state_builds_every_field_with_its_documented_dtype_and_shape():
    """Every State field's comment in sim/state.py gives its dtype and shape (``int8[G,OFF]``): new_state must
    build exactly that (frames, Parquet shards and strategies rely on it)."""
    import re
    from dataclasses import fields
    from pathlib import Path

    import sim.state as state_mod

    r = Rules.default(5)
    s = state_mod.new_state(r, np.arange(3))
    dims = {"G": 3, "N": 5, "P": 3, "R": len(r.d.regions), "O": len(r.d.orders), "E": 5, "T": 5, "OFF": L.N_OFFICES}
    dims |= {"len(FLOWS)": len(state_mod.FLOWS), "len(TALLIES)": len(state_mod.TALLIES), "len(VP_SOURCES)": L.N_VP}
    dims |= {"K": len(r.map.events), "LAWS": len(r.parliament.laws), "D": len(r.positions.deck)}
    dims |= {"M": r.positions.revealed, "F": 5}  # the display; a firm slot per family
    source = Path(state_mod.__file__).read_text()
    documented = dict(re.findall(r"^    (\w+): np\.ndarray  # (\w+\[[^\]]+\])", source, flags=re.M))
    assert set(documented) == {f.name for f in fields(s)}
    for name, spec in documented.items():
        dtype, shape = re.match(r"(\w+)\[([^\]]+)\]", spec).groups()
        want = tuple(dims[d] if d in dims else int(d) for d in shape.split(","))
        got = getattr(s, name)
        assert (str(got.dtype), got.shape) == (dtype, want), name


def test_new_state_starts_the_company_and_the_families():
    r = Rules.default(4).with_overrides({"company.start_balance": 4, "company.start_loans": 2})
    s = new_state(r, np.arange(2))
    assert ledger.balanced(s).all() and s.ledger[:, FLOW["company_start"]].tolist() == [19, 19]
    assert s.balance.tolist() == [4, 4] and (s.treasury == 3).all()
    assert s.loans.tolist() == [2, 2] and s.round.tolist() == [1, 1] and (s.supply == 12).all()
    fund(s, 0, 20)
    assert not legal_actions(s, r, 0)[1].any()  # nothing was done last round: nothing may be done twice
    assert (s.last_action == -1).all() and (s.winner == -1).all() and (s.blame == -1).all()


# -------------------------------------------------------------------------------------------------------- dice
def test_the_dice_streams_are_pinned():
    """Golden values: a seed's dice are part of every published result (the guide: the same seed gives the same rows),
    so any change to the streams' keys or mixing must be deliberate and show here."""
    s = Streams(1, np.array([0, 7]), 2)
    assert s.keys.tolist() == [[7050277875871801770, 7449172787555378880], [16629767566454913622, 927777648138443623]]
    assert s.bits(1, np.array([0, 1]), 2).tolist() == [
        [8576454416156487779, 5419247533661785162],
        [13738912750531703486, 2545726564404770220],
    ]
    d = Dice(Streams(2, np.array([3, 9]), 1))
    assert d.d6(np.array([0, 1]), 4).tolist() == [[4, 5, 1, 6], [3, 4, 3, 3]]
    assert d.lowest(np.array([0, 1]), np.array([2, 3])).tolist() == [1, 1]
    assert np.allclose(d.uniform(np.array([0, 1]), 2), [[0.44843187180306476, 0.9665522972684779],
                                                        [0.9203768819656786, 0.2742786643937438]])  # fmt: skip


def test_each_chance_function_draws_one_number_per_game_by_default():
    d = Dice(Streams(3, np.arange(2), 1))
    assert d.d6(np.arange(2)).shape == (2, 1) and d.uniform(np.arange(2)).shape == (2, 1)
    d.pick(np.arange(2), np.ones((2, 3), bool))
    d.weighted(np.arange(2), np.array([0.5, 0.5]))
    d.lowest(np.arange(2), 4)
    assert d.streams.counters[0].tolist() == [5, 5]


def test_weighted_never_passes_the_last_outcome():
    """Probabilities whose float sum falls short of 1 and a uniform above it still give the last outcome."""
    d = ScriptedDice(uniforms={0: [0.99999999]})
    assert d.weighted(np.array([0]), np.array([0.5, 0.49999])).tolist() == [1]


# ------------------------------------------------------------------------------------------------------ agents
def test_each_seat_is_asked_through_its_own_strategy():
    """Seat 0 and seat 1 play different strategies: seat 0's decision goes to seat 0's strategy."""
    r, s = blank(2, 4)
    seat_office(s, L.CHAIRMAN, 0, games=0)
    seat_office(s, L.CHAIRMAN, 1, games=1)
    first, other = Scripted(take_loans=const(1)), Scripted(take_loans=const(2))
    a = Agents([first, other, other, other], r, Streams(0, s.game, 5))
    chairman(s, r, dice(), a)
    assert first.asked("take_loans") == [([0], [0])] and other.asked("take_loans") == [([1], [1])]
    assert s.loans.tolist() == [1, 2]


def test_ask_slices_batch_arrays_and_passes_constants_whole():
    r, s = blank(3, 4)
    seen = {}

    def take_loans(obs, legal):
        seen.update(games=obs.games.tolist(), per_game=legal.per_game.tolist(), const=legal.const)
        seen.update(table=legal.table.tolist(), rng=obs.rng is not None)
        return np.zeros(obs.n, dtype=np.int64)

    a = Agents([Scripted(take_loans=take_loans)] * 4, r, None)
    legal = {"per_game": np.array([10, 11, 12]), "const": 7, "table": np.arange(4)}
    a.ask("take_loans", s, np.array([-1, 2, 0]), legal, (np.zeros(3, dtype=np.int64),))
    assert seen == {"games": [1, 2], "per_game": [11, 12], "const": 7, "table": [0, 1, 2, 3], "rng": False}


def test_answers_are_checked_per_row_and_name_the_game():
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


def test_observation_refuses_hidden_fields_by_name_and_defaults():
    r, s = blank(1, 4)
    obs = Observation(s, r, np.array([0]), np.array([2]), None)
    assert obs.rng is None and obs.seat.tolist() == [2]
    with pytest.raises(AttributeError, match="^observation has no field 'ledger'$"):
        obs.ledger  # noqa: B018
    rng = StrategyRandom(Streams(1, np.arange(2), 2), np.arange(2), np.zeros(2, dtype=np.int64))
    assert rng.uniform().shape == (2, 1)


# ------------------------------------------------------------------------------------------------------ engine
def test_play_numbers_games_from_zero_and_repeats_a_seed():
    r = Rules.default(4)
    a = sim.play(r, "random", 3, seed=4)
    assert a.games["game"].to_list() == [0, 1, 2]
    assert a.games.equals(sim.play(r, "random", 3, seed=4).games)
    assert not a.seats.equals(sim.play(r, "random", 3, seed=5).seats)


def test_distinct_strategy_objects_keep_their_seats_and_seating_rotates_them():
    r = Rules.default(4)
    one, two = Scripted(), Scripted()
    seats = resolve_strategies(r, [one, two, one, two])
    assert seats[0] is one and seats[1] is two and seats[2] is one
    one.name, two.name = "one", "two"
    seating = np.array([[1, 0, 0, 0], [0, 1, 1, 1]])
    _, rows = play_batch(r, [one, two], 2, np.arange(2), seating)
    assert rows.seats["strategy"].tolist() == ["two", "one", "one", "one", "one", "two", "two", "two"]
    bids = {(g, s) for games, seats_ in one.asked("bid") for g, s in zip(games, seats_, strict=True)}
    assert bids == {(0, 1), (0, 2), (0, 3), (1, 0)}


def test_the_cheapest_tier_and_adding_to_what_a_family_already_has():
    """Game 0: the Director retires to tier 0 (2 £ with 3 £ in hand, tier 1 unaffordable): honoured, not sent home;
    his family already had one relative there. Game 1: tier 1 adds 1 wealth to the 2 it had. Game 2: the Director
    with a marker rolls 2 + 1 = 3: a second marker."""
    r, s = blank(3, 4)
    seat_office(s, L.DIRECTOR, 1)
    s.retired[:, 1, 0] = 1
    s.supply[:, 1] -= 1
    s.wealth[:, 1] = 2
    fund(s, 1, 3, games=0)
    fund(s, 1, 4, games=1)
    s.stress[2, L.DIRECTOR] = 1
    strat = Scripted(retire=lambda obs, legal: np.where(obs.games == 0, 0, 1))
    retirement_roll(s, r, dice({0: [6], 1: [6], 2: [2]}), agents(r, s, strat), np.arange(3))
    assert s.retired[:, 1, 0].tolist() == [2, 1, 1] and s.retired[:, 1, 1].tolist() == [0, 1, 0]
    assert s.money[:, 1].tolist() == [1, 0, 0] and s.wealth[:, 1].tolist() == [2, 3, 2]
    assert s.supply[:, 1].tolist() == [10, 10, 10] and s.stress[:, L.DIRECTOR].tolist() == [0, 0, 2]


@pytest.mark.parametrize("tier, money", [(0, 1), (4, 15)])
def test_a_tier_just_out_of_reach_is_illegal(tier, money):
    """Tier 0 costs 2, tier 4 costs 20: 1 £ and 15 £ (enough for tier 3) are short."""
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 0)
    fund(s, 0, money)
    with pytest.raises(IllegalDecision, match="'retire' in game 0: tier not affordable"):
        retirement_roll(s, r, dice({0: [6]}), agents(r, s, Scripted(retire=const(tier))), np.arange(1))


def test_family_action_boundaries():
    """Exactly the price buys once (luxury 4, shipyard 2, factory 5; one less does not); one relative at home is
    enough for a clerk, an officer or a share, none is not; a place taken by seat 0 is taken."""
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
    """Two relatives at home are enough to send two (clerks, officers, shares); two free places are enough to buy
    two; the extra clerk needs just one at home and adds to his clerks there."""
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


# ------------------------------------------------------------------------------------------------------- setup
def test_every_item_of_a_lot_goes_to_its_winner_per_game():
    """D-LOTS: a lot holding every kind of item (the Luxury lot rewritten): each item reaches the winner of its
    game, the relatives leave his supply, money enters through the ledger; the Chairman's and the PM's lots too."""
    lot = {"name": "Everything", "luxuries": 1, "money": 3, "positions": 2, "academy": 1, "shares": 1,
           "clerks": [0, 1, 0], "officers": [0, 0, 2], "shipyards": 1, "factories": 1}  # fmt: skip
    r = Rules.default(4).with_overrides({"auction.main_lots.13": lot})
    _, s = blank(2, 4, r)
    winner = np.full((2, len(r.d.lot_names)), -1)
    everything, chair, pm = r.d.lot_names.index("Everything"), 0, r.d.lot_names.index("Prime Minister")
    winner[:, everything] = [1, 3]
    winner[:, chair] = [0, 2]
    winner[:, pm] = [3, 0]
    apply_lots(s, r, winner)
    for g, seat in ((0, 1), (1, 3)):
        assert s.luxuries[g, seat] == 1 and s.money[g, seat] == 3
        assert s.wealth[g, seat] == 1 + pos.wealth(s, r)[g, seat]  # the luxury's, and its permanent cards'
        assert held_count(s)[g, seat] == 2 and s.academy[g, seat] == 1 and s.shares[g, seat] == 1
        assert s.clerks[g, seat].tolist() == [0, 1, 0] and s.officers[g, seat].tolist() == [0, 0, 2]
        assert s.shipyards[g, seat] == 1 and s.factories[g, seat] == 1 and s.supply[g, seat] == 12 - 5
    assert s.office[:, L.CHAIRMAN].tolist() == [0, 2] and s.prime_minister.tolist() == [3, 0]
    assert s.money.sum() == 6 and s.ledger[:, FLOW["lot_money"]].tolist() == [3, 3] and ledger.balanced(s).all()
    assert (s.relatives() == 12).all()


def test_zero_bids_are_no_bids_and_unbid_lots_go_at_random_to_families_short_of_lots():
    """A lot with only zero bids is not auctioned: it goes at random to a family with fewer than four lots."""
    r = Rules.default(4)
    shape = (1, 4, len(r.d.lot_names))
    base, step, cap = np.zeros(shape, int), np.zeros(shape, int), np.zeros(shape, int)
    winner, price, final = run_auction(base, step, cap, r, dice(), np.arange(1))
    assert (price == 0).all() and (final == 0).all()
    played = winner[0] >= 0
    assert played.sum() == 16 and np.bincount(winner[0][played], minlength=4).tolist() == [4, 4, 4, 4]


def test_a_cap_below_the_base_bid_reaches_only_the_base():
    """A program's cap below its base: its reach is the base (it never raises). Seat 0 bids 5 capped at 3, seat 1
    bids 5 raising by 1 to 6: seat 1 wins at 6."""
    r = Rules.default(4)
    shape = (1, 4, len(r.d.lot_names))
    base, step, cap = np.zeros(shape, int), np.zeros(shape, int), np.zeros(shape, int)
    base[0, :2, 0] = 5
    step[0, 0, 0], cap[0, 0, 0] = 2, 3
    step[0, 1, 0], cap[0, 1, 0] = 1, 6
    winner, price, final = run_auction(base, step, cap, r, dice(), np.arange(1))
    assert winner[0, 0] == 1 and price[0, 0] == 6 and final[0, :2, 0].tolist() == [5, 6]


# ------------------------------------------------------------------------------------------------------- firms
def test_ties_settled_by_programs_in_two_games_at_once():
    """Both games: two bidders tie at 5 on lot 0. Game 0: winner raises by 2 to 11, rival reaches 8: he pays the
    first value of his ladder above 8, 9. Game 1: winner raises by 1 to 11, rival reaches 8: 9 too. A batch-wide
    rival or a misread ladder (5 + 2 / 2, 5 + 1 * (3 // 2 + 1)) pays something else."""
    r = Rules.default(4)
    shape = (2, 4, len(r.d.lot_names))
    base, step, cap = np.zeros(shape, int), np.zeros(shape, int), np.zeros(shape, int)
    base[:, :2, 0] = 5
    step[0, 0, 0], cap[0, 0, 0] = 2, 11
    step[1, 0, 0], cap[1, 0, 0] = 1, 11
    step[:, 1, 0], cap[:, 1, 0] = 3, 8
    step[1, 1, 0], cap[1, 1, 0] = 1, 6  # game 1's rival reaches only 6: 7
    winner, price, final = run_auction(base, step, cap, r, dice(), np.arange(2))
    assert winner[:, 0].tolist() == [0, 0] and price[:, 0].tolist() == [9, 7]
    assert final[:, 1, 0].tolist() == [8, 6]


def test_the_additional_lots_played_are_the_highest_top_bids_ties_at_random():
    """D-EXTRA, 4 players: 5 additional lots offered, 2 played. Top bids 1 on the first and 0 elsewhere: the first is
    played, then the highest uniform among the rest (the third, 0.9; with a 1.5 weight 0.9 and 0.8 would pass the
    bid of 1)."""
    r = Rules.default(4)
    shape = (1, 4, len(r.d.lot_names))
    base, step, cap = np.zeros(shape, int), np.zeros(shape, int), np.zeros(shape, int)
    extra = np.flatnonzero(r.d.lot_extra)
    base[0, 2, extra[0]] = 1
    d = dice(uniforms={0: [0.0, 0.8, 0.9, 0.1, 0.3]})
    winner, _, _ = run_auction(base, step, cap, r, d, np.arange(1))
    assert (winner[0, extra] >= 0).tolist() == [True, False, True, False, False]


def test_two_lots_of_a_kind_add_up():
    lot = {"name": "Everything", "luxuries": 1, "positions": 1, "shipyards": 1, "factories": 1, "officers": [1, 0, 0]}
    r = Rules.default(4).with_overrides({"auction.main_lots.12": lot, "auction.main_lots.13": {**lot, "name": "Again"}})
    _, s = blank(1, 4, r)
    winner = np.full((1, len(r.d.lot_names)), -1)
    winner[0, [12, 13]] = 2
    apply_lots(s, r, winner)
    assert s.luxuries[0, 2] == held_count(s)[0, 2] == s.shipyards[0, 2] == s.factories[0, 2] == 2
    assert s.wealth[0, 2] == 2 + pos.wealth(s, r)[0, 2]  # luxuries' wealth, and any permanent card's
    assert s.officers[0, 2].tolist() == [2, 0, 0]


def capital_of(r, winner, price, final, d=None):
    _, s = blank(winner.shape[0], r.players, r)
    starting_capital(s, r, d or dice(), winner, price, final)
    return s


def test_the_leftover_goes_by_the_lowest_prices_then_the_tie_break():
    """Bid totals 2, 1, 0, 0: 2.67, 5.33, 8, 8 -> 2, 5, 8, 8: one coin short. The cheapest lot is seat 0's lot 4 at
    0; the second cheapest (price 1) is lot 2 or lot 7 by the tie-break, and decides whether the two lowest are one
    family's (two_lowest) or not (lowest); the coin goes to the cheapest lot's family either way."""
    r = Rules.default(4).with_overrides({"capital.leftover_tiebreak": "catalogue"})
    n_lots = len(r.d.lot_names)
    winner = np.full((1, n_lots), 3)
    price = np.full((1, n_lots), 5)
    winner[0, [4, 2, 7]] = [0, 1, 2]
    price[0, [4, 2, 7]] = [0, 1, 1]
    final = np.zeros((1, 4, n_lots), int)
    final[0, :2, 0] = [2, 1]
    s = capital_of(r, winner, price, final)
    assert s.capital_money[0].tolist() == [3, 5, 8, 8] and s.leftover_case[0] == capital.LOWEST
    # seat 0 also won lot 2 at price 1: the two lowest are both his
    winner[0, 2] = 0
    s = capital_of(r, winner, price, final)
    assert s.leftover_case[0] == capital.TWO_LOWEST and s.leftover[0].tolist() == [1, 0, 0, 0]
    # the second-lowest decides the case: lots 2 (seat 1) and 7 (seat 0) at price 1, catalogue order takes lot 2
    winner[0, [2, 7]] = [1, 0]
    s = capital_of(r, winner, price, final)
    assert s.leftover_case[0] == capital.LOWEST
    rnd = r.with_overrides({"capital.leftover_tiebreak": "random"})
    u = [0.5] * n_lots
    u[7], u[2] = 0.1, 0.9  # lot 7 before lot 2
    s = capital_of(rnd, winner, price, final, dice(uniforms={0: u}))
    assert s.leftover_case[0] == capital.TWO_LOWEST
    # a 1 £ lot with a high tie-break still comes before a 2 £ lot with a low one
    price[0, 2], u[2], u[7] = 2, 0.0, 0.99
    s = capital_of(rnd, winner, price, final, dice(uniforms={0: u}))
    assert s.leftover_case[0] == capital.TWO_LOWEST


def test_an_excess_through_the_setup_takes_back_from_the_largest_round_up():
    """Linear formula, rate 0.25, bids 4, 4, 4, 0: 5.75 x 3 and 6.75 -> 6, 6, 6, 7 = 25 > 24: one coin back."""
    r = Rules.default(4).with_overrides({"capital.formula": "linear", "capital.linear_rate": 0.25})
    n_lots = len(r.d.lot_names)
    final = np.zeros((1, 4, n_lots), int)
    final[0, :3, 0] = 4
    s = capital_of(r, np.full((1, n_lots), 1), np.ones((1, n_lots), int), final)
    assert s.capital_money[0].sum() == 24 and s.leftover_case[0] == capital.TAKEN_BACK
    assert s.leftover[0].tolist() == [-1, 0, 0, 0]


def test_negative_bids_are_refused_in_the_game_they_are_made():
    r, s = blank(2, 4)
    n_lots = len(r.d.lot_names)

    def bid(obs, legal):
        out = [np.zeros((obs.n, n_lots), dtype=int) for _ in range(3)]
        out[1][obs.games == 1, 3] = -1
        return tuple(out)

    with pytest.raises(IllegalDecision, match="'bid' in game 1: bids, steps and caps"):
        collect_bids(s, r, agents(r, s, Scripted(bid=bid)))


def test_a_tie_for_command_at_the_start_is_broken_by_military_affairs():
    """Two additional lots put an officer in Bombay (the Madras officer's lot rewritten): seats 1 and 2 win one each,
    seat 0 wins Military Affairs and picks seat 2 to command."""
    r = Rules.default(4).with_overrides(
        {"auction.extra_lots.4": {"name": "Officer in Bombay too", "officers": [1, 0, 0]}}
    )
    n_lots = len(r.d.lot_names)
    bombay_lots = [i for i, name in enumerate(r.d.lot_names) if name.startswith("Officer in Bombay")]

    def bid(obs, legal):
        base = np.zeros((obs.n, n_lots), dtype=np.int64)
        base[obs.seat == 0, r.d.lot_names.index("Military Affairs")] = 10
        base[obs.seat == 1, bombay_lots[0]] = 9
        base[obs.seat == 2, bombay_lots[1]] = 9
        return base, base * 0, base * 0

    _, s = blank(1, 4, r)
    strat = Scripted(bid=bid, pick_commander=const(2))
    setup(s, r, dice(), agents(r, s, strat))
    assert s.office[0, L.MILITARY] == 0 and s.officers[0, :, 0].tolist() == [0, 1, 1, 0]
    assert strat.asked("pick_commander") == [([0], [0])] and s.commander[0, 0] == 2


def test_chairman_elections_per_game_in_an_appointments_round():
    """Game 0: a board of 2 + 2 shares voting for themselves, chairman_vote 0.5: seat 0's 2 votes are exactly half
    (the first of the equal) -> elected; a batch-wide board (7) would make it no majority. Game 1: an
    empty board and no former chair: the chair stays vacant. Game 2: 1 + 1 + 1 shares, each votes for itself, the
    former chair is seat 0: no majority, seat 0 picks (not chance). Only board members of electing games vote."""
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
    """Candidates seats 0 and 3 (not 1): a vote for seat 0 is legal, a vote for seat 4 (past the last) is not."""
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
    """Bombay (region 3) owned by Bombay: game 0's President is seat 0 and appoints (asked with office -1 - 3);
    game 1 has neither President nor Chairman (nor an army commander): chance appoints, and taking seat 1's officer
    leaves seats 1 and 2 tied for Bombay's army with no Military Affairs: chance picks the commander too."""
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
    """Game 0: a hung board (1 + 1 shares) and no former chair: chance elects (uniform 0.9 -> seat 3). Game 1: no
    board, no Chairman, Bombay's region owned with no President: chance makes seat 2's commander Military Affairs,
    then its governor from his family's other officer."""
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
    """Seat 0 holding Shipping is a Director candidate; commanding Bombay's army, a Military Affairs candidate;
    governing a Madras region, a candidate for Madras's President."""
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
    r, s = blank(1, 4)
    s.last_chair[0] = 0
    s.supply[0, 0] = 1
    s.academy[0, 0] = 11
    elect_chairman(s, r, dice(), agents(r, s))
    assert s.office[0, L.CHAIRMAN] == 0 and s.supply[0, 0] == 0


def test_nepotism_asks_each_other_candidate_family_and_one_refusal_is_enough():
    """The Chairman (seat 0) names his own clerk for Shipping; seats 1 and 2 have candidates, seat 3 none: seat 1
    refuses, seat 2 consents -- still refused (a later consent does not undo it). Each is told the office, the
    appointer and the candidates. Naming his own again is illegal."""
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
    """Game 0: Shipping vacant, no clerk anywhere: the Chairman is not asked. The last source (the governor of the
    last region) is the boundary: one past it is illegal."""
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
    """Military Affairs from Bombay's commander (seat 1, 2 officers; seats 2 and 3 have 2 each): his family drops to
    1, seats 2 and 3 tie with the office not yet filled, so chance picks the new commander (0.9 -> seat 3). A
    Director moved from Shipping takes his markers and leaves Shipping's at 0."""
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
    """Game 0: the Chairman names his own clerk: seat 1 (with a candidate) is asked. Game 1: he names seat 1's clerk:
    nobody is asked."""
    r, s = blank(2, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "clerks", 0, 1, col=0)
    give(s, "clerks", 1, 1, col=1)
    strat = Scripted(appoint=lambda obs, legal: (obs.games, np.where(obs.games == 0, 0, 1)), consent=const(True))
    appoint_office(s, r, dice(), agents(r, s, strat), L.SHIPPING)
    assert strat.asked("consent") == [([0], [1])] and s.office[:, L.SHIPPING].tolist() == [0, 1]


def test_shares_legal_with_one_at_home_a_full_exchange_and_a_two_place_exchange():
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


def test_the_retirement_roll_counts_every_retirement_of_a_game():
    r, s = blank(1, 4)
    seat_office(s, L.DIRECTOR, 1)
    seat_office(s, L.SHIPPING, 2)
    got = retirement_roll(s, r, dice({0: [6, 5]}), agents(r, s, Scripted(retire=const(-1))), np.arange(1))
    assert got.count.tolist() == [2]


@pytest.mark.parametrize("which", [0, 2])
def test_negative_bases_and_caps_are_refused_in_their_game(which):
    r, s = blank(2, 4)
    n_lots = len(r.d.lot_names)

    def bid(obs, legal):
        out = [np.zeros((obs.n, n_lots), dtype=int) for _ in range(3)]
        out[which][obs.games == 1, 3] = -1
        return tuple(out)

    with pytest.raises(IllegalDecision, match="'bid' in game 1: bids, steps and caps"):
        collect_bids(s, r, agents(r, s, Scripted(bid=bid)))


def test_a_wrong_shape_names_the_expected_shape():
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.DIRECTOR, 1)  # a committee to hand the budget to (L132)
    ledger.company(s, "trade", np.array([4]))
    strat = Scripted(take_loans=const(0), allocate_budget=lambda obs, legal: np.zeros((obs.n, 4), dtype=int))
    with pytest.raises(
        IllegalDecision, match=r"'allocate_budget' in game 0: returned shape \(1, 4\), expected \(1, 5\)$"
    ):
        chairman(s, r, dice(), agents(r, s, strat))


def test_military_moves_remember_an_earlier_illegal_move_and_the_phase_refuses_it():
    officers = np.array([[[2, 0, 0]]])
    regiments = np.array([[1, 1, 0]])
    m = moves_of((L.MOVE_OFFICERS, 0, 0, 1, 0), (L.MOVE_OFFICERS, 0, 0, 1, 1))
    assert apply_military_moves(officers, regiments, m).tolist() == [True]
    r, s = blank(2, 4)
    seat_office(s, L.MILITARY, 0)
    give(s, "officers", 1, 1, col=0)
    give(s, "academy", 2, 1, games=1)

    def illegal_in_game_1(obs, legal):
        count = np.where(obs.games == 1, 5, 1)[:, None] * np.array([[1, 0]])
        return (np.array([[L.MOVE_OFFICERS, 0]] * obs.n), np.ones((obs.n, 2), int), np.zeros((obs.n, 2), int),
                np.ones((obs.n, 2), int), count)  # fmt: skip

    strat = Scripted(
        military_moves=illegal_in_game_1, assign_academy=const([[0, 0, 0]] * 2 + [[1, 0, 0]] + [[0, 0, 0]])
    )
    with pytest.raises(IllegalDecision, match="'military_moves' in game 1: illegal move of officers or regiments$"):
        military_affairs(s, r, dice(), agents(r, s, strat))
    assert [g for g, _ in strat.asked("assign_academy")] == [[1]]  # only where cadets wait


def test_deploy_per_game_checks_and_the_last_region():
    """Two games deploy at once: game 0 legally, game 1 without dice (force 1 against strength 1): game 1 is named.
    Madras's army may target Madras, the last region; one past it is illegal."""
    r, s = blank(2, 4)
    give(s, "officers", 1, 2, col=0, games=0)
    give(s, "officers", 1, 1, col=0, games=1)
    s.regiments[1, 0] = 0
    s.commander[:, 0] = 1
    bombay = r.d.regions.index("Bombay")
    with pytest.raises(IllegalDecision, match="'deploy' in game 1: deployment outside"):
        deploy(s, r, dice({0: [3, 3, 3, 1, 1]}), agents(r, s, Scripted(deploy=deploy_to("Bombay"))), 0)
    r, s = blank(1, 4)
    give(s, "officers", 2, 2, col=1)
    s.commander[0, 1] = 2
    madras = r.d.regions.index("Madras")
    assert madras == len(r.d.regions) - 1 and deploy_targets(s, r, 1)[0, madras]
    with pytest.raises(IllegalDecision, match="'deploy' in game 0: deployment outside"):
        deploy(s, r, dice(), agents(r, s, Scripted(deploy=const(madras + 1, [0, 0, 2, 0], 1, [False] * 3))), 1)
    assert bombay != madras


def test_conquests_loot_by_strength_first_loot_and_tally_per_game():
    """Bombay's army, Bombay already the presidency's. Game 0 takes Maratha (strength 2, never looted): loot
    4 x 2 + 3 = 11 over 3 officers and a regiment: 2 each, the remainder 3 to the officers (9 £). Game 1 takes
    Punjab (region 0, strength 0, looted before): no loot, still a conquest. Both add to the round's conquests tally.
    A seat-0 President makes mercenaries available in both."""
    r, s = blank(2, 4)
    names = r.d.regions
    s.owner[:, names.index("Bombay")] = 0
    give(s, "officers", 1, 3, col=0)
    s.commander[:, 0] = 1
    s.looted[1, names.index("Punjab")] = True
    s.tally[:, TALLY["conquests"]] = 1
    seat_office(s, L.PRESIDENT[0], 0)
    seen = []

    def go(obs, legal):
        seen.append(legal.mercenaries.any(axis=1).tolist())
        target = np.where(obs.games == 0, names.index("Maratha"), names.index("Punjab"))
        return (
            target,
            legal.officers.astype(np.int64),
            legal.regiments.astype(np.int64),
            np.zeros_like(legal.mercenaries),
        )

    strat = Scripted(deploy=go, share_loot=const([False] * 4))
    d = dice({0: [1, 6, 1, 1, 1], 1: [1, 6, 6, 6, 1, 1, 1]})  # 3 + 1 - 2 = 2 dice; 3 + 1 - 0 = 4 dice
    deploy(s, r, d, agents(r, s, strat), 0)
    d.assert_spent()
    assert seen == [[True, True]]
    assert s.owner[:, names.index("Maratha")].tolist() == [0, -1] and s.owner[:, 0].tolist() == [-1, 0]
    assert s.money[:, 1].tolist() == [9, 0] and s.tally[:, TALLY["conquests"]].tolist() == [2, 2]


def test_loot_smaller_than_the_officers_is_judged_per_game():
    """Game 0: 3 £ for 1 officer: he gets 3. Game 1: 5 £ for 3 officers: 1 each and the remainder 2 to the first two.
    (Against the batch's 4 officers, game 0's 3 £ would look smaller than the officers.)"""
    r, s = blank(2, 4)
    share_loot(s, agents(r, s, Scripted(share_loot=const([False] * 4))), 0, np.arange(2), np.array([0, 1]),
               np.array([3, 5]), np.array([[1, 0, 0, 0], [0, 3, 0, 0]]), np.array([0, 0]))  # fmt: skip
    assert s.money.tolist() == [[3, 0, 0, 0], [0, 5, 0, 0]]


def moves_of(*rows):
    """(kind, family, src, dst, count) per move -> the five int[1, M] arrays."""
    return tuple(np.array([[m[i] for m in rows]]) for i in range(5))


def test_military_affairs_leaves_a_finished_game_alone():
    r, s = blank(2, 4)
    seat_office(s, L.MILITARY, 0)
    give(s, "academy", 2, 1)
    s.done[1] = True
    strat = Scripted(assign_academy=const([[0, 0, 0], [0, 0, 0], [0, 1, 0], [0, 0, 0]]))
    military_affairs(s, r, dice(), agents(r, s, strat))
    assert [g for g, _ in strat.asked("assign_academy")] == [[0]] and [g for g, _ in strat.asked("military_moves")] == [
        [0]
    ]
    assert s.academy[:, 2].tolist() == [0, 1] and s.officers[:, 2, 1].tolist() == [1, 0]


def test_commanders_are_settled_per_game_with_seat_0_and_told_their_army():
    """Game 0: seat 0 commands Madras's army tied 1-1 with seat 1: he keeps it. Game 1: tied 1-1, no commander:
    Military Affairs (seat 3) is asked with the army and the tied families and picks seat 0. Game 2: nobody has
    officers there: no commander. A pick past the last seat is illegal."""
    r, s = blank(3, 4)
    for g in (0, 1):
        give(s, "officers", 0, 1, col=1, games=g)
        give(s, "officers", 1, 1, col=1, games=g)
    s.commander[:, 1] = [0, -1, -1]
    seat_office(s, L.MILITARY, 3)
    seen = []

    def pick(obs, legal):
        seen.append((obs.games.tolist(), legal.army.tolist(), legal.tied.tolist()))
        return np.zeros(obs.n, dtype=np.int64)

    settle_commanders(s, r, dice(), agents(r, s, Scripted(pick_commander=pick)), np.arange(3), [1])
    assert s.commander[:, 1].tolist() == [0, 0, -1]
    assert seen == [([1], [1], [[True, True, False, False]])]
    s.commander[1, 1] = -1
    with pytest.raises(IllegalDecision, match="'pick_commander' in game 1: not a tied family"):
        settle_commanders(s, r, dice(), agents(r, s, Scripted(pick_commander=const(4))), np.arange(3), [1])


def test_targets_next_to_a_seat_0_presidency_region_and_a_company_home():
    """Bombay's army with Bombay owned by presidency 0: the sovereign neighbours are targets, a neighbour already the
    Company's (Madras presidency's Mysore) is not; a Company-owned home is a target as an own region."""
    r, s = blank(1, 4)
    names = r.d.regions
    s.owner[0, names.index("Bombay")] = 0
    s.owner[0, names.index("Mysore")] = 0  # now Bombay's own: a target as its own region
    s.owner[0, names.index("Hyderabad")] = 1
    got = {names[i] for i in np.flatnonzero(deploy_targets(s, r, 0)[0])}
    assert got == {"Bombay", "Mysore", "Punjab", "Delhi", "Maratha", "Madras"}


def test_regions_of_another_presidency_are_no_targets_even_home():
    """Madras's army: Madras's home held by Bombay's presidency (0) is not a target, nor Mysore (Bombay's) next to
    Madras's own Hyderabad."""
    r, s = blank(1, 4)
    names = r.d.regions
    s.owner[0, names.index("Madras")] = 0
    s.owner[0, names.index("Mysore")] = 0
    s.owner[0, names.index("Hyderabad")] = 1
    got = {names[i] for i in np.flatnonzero(deploy_targets(s, r, 1)[0])}
    assert got == {"Hyderabad", "Bombay", "Maratha"}


def test_china_trade_with_one_ship_by_a_seat_0_manager_who_is_told_ships_and_opium():
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
