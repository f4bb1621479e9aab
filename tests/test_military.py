"""Phase 6 military: R-MILITARY (academy, moves), R-COMMANDER, R-DEPLOY (targets, mercenaries, death on a 6,
conquest, trophies, loot, defeat)."""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, give, seat_office

from sim import ledger
from sim.agents import IllegalDecision
from sim.phases.military import (
    apply_military_moves,
    deploy,
    deploy_targets,
    deployments,
    military_affairs,
    settle_commanders,
    share_loot,
)
from sim.state import FLOW, TALLY

# each rule played on both engine paths, the numpy reference and the compiled kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")


def army(s, officers: dict[int, int], a=0, commander=None):
    for seat, k in officers.items():
        give(s, "officers", seat, k, col=a)
    if commander is not None:
        s.commander[:, a] = commander


def test_commander_is_the_family_with_most_officers_and_a_tie_keeps_him():
    r, s = blank(1, 4)
    army(s, {1: 2, 2: 2}, commander=2)
    settle_commanders(s, r, dice(), agents(r, s), np.arange(1))
    assert s.commander[0, 0] == 2  # tied, the sitting commander stays
    give(s, "officers", 1, 1, col=0)
    settle_commanders(s, r, dice(), agents(r, s), np.arange(1))
    assert s.commander[0, 0] == 1  # a strict majority takes over


def test_tie_without_a_sitting_commander_military_affairs_picks():
    r, s = blank(1, 4)
    army(s, {0: 1, 3: 1}, a=2)
    seat_office(s, L.MILITARY, 1)
    strat = Scripted(pick_commander=const(3))
    settle_commanders(s, r, dice(), agents(r, s, strat), np.arange(1))
    assert s.commander[0, 2] == 3 and strat.asked("pick_commander") == [([0], [1])]


def test_military_affairs_sends_every_cadet_and_moves():
    r, s = blank(1, 4)
    seat_office(s, L.MILITARY, 0)
    give(s, "academy", 2, 2)
    army(s, {1: 2}, a=0, commander=1)
    assign = np.zeros((4, 3), dtype=int)
    assign[2] = [0, 1, 1]
    moves = const([L.MOVE_OFFICERS, L.MOVE_REGIMENTS], [1, 0], [0, 1], [2, 0], [1, 1])
    strat = Scripted(assign_academy=const(assign), military_moves=moves)
    military_affairs(s, r, dice(), agents(r, s, strat))
    assert s.academy[0].sum() == 0 and s.officers[0, 2].tolist() == [0, 1, 1]
    assert s.officers[0, 1].tolist() == [1, 0, 1] and s.regiments[0].tolist() == [2, 0, 1]
    assert s.commander[0].tolist() == [1, 2, 1]  # army 2: seats 1 and 2 tie without a commander ...
    assert strat.asked("pick_commander") == [([0], [0])]  # ... so Military Affairs (seat 0) picked
    assert (s.relatives() == 12).all()


def test_military_affairs_must_send_all_cadets():
    r, s = blank(1, 4)
    seat_office(s, L.MILITARY, 0)
    give(s, "academy", 2, 2)
    assign = np.zeros((4, 3), dtype=int)
    assign[2] = [1, 0, 0]
    with pytest.raises(IllegalDecision, match="assign_academy"):
        military_affairs(s, r, dice(), agents(r, s, Scripted(assign_academy=const(assign))))


def test_targets_home_first_then_regions_next_to_own():
    r, s = blank(1, 4)
    names = r.d.regions
    assert [names[i] for i in np.flatnonzero(deploy_targets(s, r, 0)[0])] == ["Bombay"]
    s.owner[0, names.index("Bombay")] = 0
    s.owner[0, names.index("Mysore")] = 1  # Company (Madras) region: not a target for Bombay
    got = {names[i] for i in np.flatnonzero(deploy_targets(s, r, 0)[0])}
    assert got == {"Bombay", "Punjab", "Delhi", "Maratha", "Hyderabad"}


def deployment(target, officers, regiments=1, mercs=(False, False, False)):
    return const(target, officers, regiments, list(mercs))


def test_conquest_trophies_loot_and_the_commanders_death():
    """3 dice (4 force - strength 1): success. Death rolls 6, 2 | 3: the commander (seat 1's first die) dies.
    Bombay: 1 trophy; loot 4 * 1 + first-loot 4 = 8 over 4 slots (2 officers, seat 1 named, 1 regiment): 2 each."""
    r, s = blank(1, 4)
    army(s, {1: 2, 2: 1}, commander=1)
    seat_office(s, L.MILITARY, 3)
    bombay = r.d.regions.index("Bombay")
    strat = Scripted(deploy=deployment(bombay, [0, 2, 1, 0]), pick_commander=const(2))
    d = dice({0: [1, 4, 5, 6, 2, 3]})
    deploy(s, r, d, agents(r, s, strat), 0)
    assert d.log == [("lowest", 0, 3), ("d6", 0, 3)]  # the check, then one death die per officer
    assert s.owner[0, bombay] == 0 and s.strength[0, bombay] == 0 and s.looted[0, bombay]
    assert s.trophies[0, 1] == 1
    assert s.officers[0, :, 0].tolist() == [0, 1, 1, 0] and s.supply[0, 1] == 11
    assert s.money[0].tolist() == [0, 4, 2, 0] and s.ledger[0, FLOW["loot"]] == 6  # the regiment's 2 £ never paid
    assert s.commander[0, 0] == 2  # his command fell vacant: tie 1-1, Military Affairs picked seat 2
    assert ledger.balanced(s).all() and (s.relatives() == 12).all()


def test_defeat_kills_the_commander_and_halves_his_trophies_rounded_up():
    r, s = blank(1, 4)
    army(s, {1: 2}, commander=1)
    s.trophies[0, 1] = 3
    bombay = r.d.regions.index("Bombay")
    d = dice({0: [5, 6, 1, 1]})  # 2 officers + 1 regiment - strength 1 = 2 dice
    deploy(s, r, d, agents(r, s, Scripted(deploy=deployment(bombay, [0, 2, 0, 0]))), 0)
    assert d.rolls("lowest") == [2]
    assert s.trophies[0, 1] == 1 and s.officers[0, 1, 0] == 1 and s.owner[0, bombay] == -1
    assert s.commander[0, 0] == 1  # his remaining officer commands


def test_small_loot_still_pays_each_surviving_officer_one_pound():
    """L171: 4 £ of loot for 5 surviving officers: each gets 1 £."""
    r, s = blank(1, 4)
    army(s, {1: 3, 2: 2}, commander=1)
    s.regiments[0, 0] = 0
    bombay = r.d.regions.index("Bombay")
    s.looted[0, bombay] = True
    strat = Scripted(deploy=deployment(bombay, [0, 3, 2, 0], regiments=0))
    d = dice({0: [2, 3, 4, 5, 1, 1, 1, 1, 1]})
    deploy(s, r, d, agents(r, s, strat), 0)
    assert d.log == [("lowest", 0, 4), ("d6", 0, 5)]
    assert s.money[0].tolist() == [0, 3, 2, 0]


def test_mercenaries_paid_from_the_presidency_when_the_president_agrees():
    r, s = blank(2, 4)
    army(s, {1: 1}, commander=1)
    seat_office(s, L.PRESIDENT[0], 3)
    bombay = r.d.regions.index("Bombay")
    fund = lambda obs, legal: obs.games == 0  # noqa: E731 - funded in game 0 only
    strat = Scripted(
        deploy=deployment(bombay, [0, 1, 0, 0], regiments=0, mercs=(False, True, False)), fund_mercenaries=fund
    )
    # game 0: force 1 + Sikhs 2 = 3 -> 2 dice; game 1: refused, force 1 - strength 1 = 0 dice: no battle
    d = dice({0: [3, 4, 1]})
    deploy(s, r, d, agents(r, s, strat), 0)
    assert d.log == [("lowest", 0, 2), ("d6", 0, 1)]  # no battle in game 1
    assert s.treasury[:, L.T_PRESIDENCY[0]].tolist() == [0, 3]
    assert s.ledger[:, FLOW["mercenaries"]].tolist() == [-3, 0]
    assert s.owner[:, bombay].tolist() == [-1, -1]


def test_deploy_needs_the_commander_and_a_die():
    r, s = blank(1, 4)
    army(s, {1: 1, 2: 1}, commander=1)
    s.regiments[0, 0] = 0
    bombay = r.d.regions.index("Bombay")
    with pytest.raises(IllegalDecision, match="deploy"):  # without the commander
        deploy(s, r, dice(), agents(r, s, Scripted(deploy=deployment(bombay, [0, 0, 1, 0], regiments=0))), 0)
    with pytest.raises(IllegalDecision, match="deploy"):  # force 1 against strength 1: no dice
        deploy(s, r, dice(), agents(r, s, Scripted(deploy=deployment(bombay, [0, 1, 0, 0], regiments=0))), 0)


def test_conquering_a_capital_shatters_its_empire():
    r, s = blank(1, 4)
    names = r.d.regions
    delhi = names.index("Delhi")
    s.owner[0, names.index("Bombay")] = 0
    army(s, {1: 3}, commander=1)
    d = dice({0: [1, 3, 4, 2, 2, 2]})
    deploy(s, r, d, agents(r, s, Scripted(deploy=deployment(delhi, [0, 3, 0, 0]))), 0)
    d.assert_spent()
    assert s.owner[0, delhi] == 0
    assert s.capital[0, names.index("Punjab")] == names.index("Punjab")
    assert s.capital[0, names.index("Maratha")] == names.index("Maratha")
    assert s.trophies[0, 1] == 1  # Delhi's strength


def deploy_home(obs, legal):
    """Every army attacks its home region with everything it has."""
    home = obs.rules.d.home[legal.army]
    return home, legal.officers.astype(np.int64), legal.regiments.astype(np.int64), np.zeros_like(legal.mercenaries)


def test_armies_deploy_bombay_then_madras_then_bengal():
    """R-DEPLOY: commanders deploy in turn Bombay, Madras, Bengal: the dice are asked in that order (each check, then
    its officers' death dice). Forces 2, 3, 4 officers + 1 regiment against strength 1: 2, 3 and 4 dice."""
    r, s = blank(1, 4)
    for a, (seat, k) in enumerate([(0, 2), (1, 3), (2, 4)]):
        give(s, "officers", seat, k, col=a)
        s.commander[0, a] = seat
    d = dice({0: [3] * 2 + [1] * 2 + [4] * 3 + [1] * 3 + [3] * 4 + [1] * 4})
    deployments(s, r, d, agents(r, s, Scripted(deploy=deploy_home)))
    assert d.log == [
        ("lowest", 0, 2),
        ("d6", 0, 2),
        ("lowest", 0, 3),
        ("d6", 0, 3),
        ("lowest", 0, 4),
        ("d6", 0, 4),
    ]
    d.assert_spent()
    assert s.tally[0, TALLY["battles"]] == 3 and (s.owner[0] < 0).all()


def test_an_earlier_army_conquers_first():
    """R-DEPLOY: Bombay's army takes its home region first; the order is also what a later army sees (Madras then
    attacks its own home). Bombay 2 officers + 1 regiment vs 1: 2 dice, success."""
    r, s = blank(1, 4)
    give(s, "officers", 0, 2, col=0)
    s.commander[0, 0] = 0
    give(s, "officers", 1, 1, col=1)
    s.commander[0, 1] = 1
    d = dice({0: [1, 6, 2, 2, 3, 1]})
    deployments(s, r, d, agents(r, s, Scripted(deploy=deploy_home, share_loot=const([False] * 4))))
    bombay = r.d.regions.index("Bombay")
    assert s.owner[0, bombay] == 0 and s.trophies[0].tolist() == [1, 0, 0, 0]
    assert d.log[0] == ("lowest", 0, 2) and d.log[2] == ("lowest", 0, 1)


def academy_in_two_games(second_game_answer):
    """Two games, Military Affairs (seat 0) in both, seat 2 with 2 academy officers in both; game 0 answers
    legally ([0, 1, 1] to the three armies), game 1 answers ``second_game_answer`` for seat 2."""
    r, s = blank(2, 4)
    seat_office(s, L.MILITARY, 0)
    give(s, "academy", 2, 2)

    def assign(obs, legal):
        out = np.zeros((obs.n, 4, L.PRESIDENCIES), dtype=np.int64)
        for row, game in enumerate(obs.games.tolist()):
            out[row, 2] = [0, 1, 1] if game == 0 else second_game_answer
        return out

    strat = Scripted(assign_academy=assign, military_moves=const([L.MOVE_NONE] * 2, [0, 0], [0, 0], [0, 0], [0, 0]))
    return r, s, agents(r, s, strat)


def test_a_negative_academy_assignment_is_illegal_in_its_own_game():
    """R-MILITARY (L151: Military Affairs sends every officer at the academy to an army): game 1 sends -1 / 2 / 1
    officers (the right total, 2, but a negative count); game 0 is legal. The error names game 1, the game of the
    illegal answer (one flag for the whole batch would mark every game bad and name game 0)."""
    r, s, ag = academy_in_two_games([-1, 2, 1])
    with pytest.raises(IllegalDecision, match=r"'assign_academy' in game 1: must send every academy officer"):
        military_affairs(s, r, dice(), ag)


def test_a_short_academy_assignment_is_illegal_in_its_own_game():
    """R-MILITARY (L151): game 1 sends only 1 of seat 2's 2 academy officers; game 0 sends both. The error names
    game 1 (one flag for the whole batch would name game 0, which answered legally)."""
    r, s, ag = academy_in_two_games([1, 0, 0])
    with pytest.raises(IllegalDecision, match=r"'assign_academy' in game 1: must send every academy officer"):
        military_affairs(s, r, dice(), ag)


def test_legal_academy_assignments_in_both_games_are_applied():
    """The same two games answered legally in both: each game's officers reach the armies it named (the check
    flags no game), and the academy empties."""
    r, s, ag = academy_in_two_games([2, 0, 0])
    military_affairs(s, r, dice(), ag)
    assert s.officers[:, 2].tolist() == [[0, 1, 1], [2, 0, 0]]
    assert s.academy.sum() == 0 and (s.relatives() == 12).all()


def test_commanders_settle_once_per_game_whatever_the_order_of_the_rows():
    """R-COMMANDER: settle_commanders re-seats each army's commander in the games it is given, "distinct games in
    order" (its contract: callers may pass a game twice or out of order, as several lost regions of one game would).
    Rows [2, 0, 2]: game 0's army 0 has one family with most officers (seat 1: commander); game 2's army 0 ties seats
    0 and 3 with no sitting commander and nobody in Military Affairs, so the tie is drawn at random, once (one
    uniform, 0.9: the second tied family, seat 3); game 1 is not in the rows and keeps no commander although seat 2
    has officers there. Dropping the sorting of the rows crashes; settling game 2 twice would draw two uniforms."""
    r, s = blank(3, 4)
    give(s, "officers", 1, 2, col=0, games=0)
    give(s, "officers", 2, 1, col=0, games=0)
    give(s, "officers", 2, 1, col=0, games=1)
    give(s, "officers", 0, 1, col=0, games=2)
    give(s, "officers", 3, 1, col=0, games=2)
    d = dice(uniforms={2: [0.9]})
    strat = Scripted()
    settle_commanders(s, r, d, agents(r, s, strat), np.array([2, 0, 2]), [0])
    assert s.commander[:, 0].tolist() == [1, -1, 3]
    assert d.log == [("uniform", 2, 1)] and strat.asked("pick_commander") == []


@pytest.mark.parametrize("reading, killed, fired", [("killed", 1, 0), ("disgraced", 0, 1)])
def test_a_defeated_commander_is_killed_or_disgraced(reading, killed, fired):
    """R-DEPLOY, L173: 5-6 -> the commander is killed or disgraced: either way he leaves the army for his family's
    supply and his family loses half its trophies (rounded up); the key says which counter records him."""
    r, s = blank(1, 4, **{"military.defeated_commander": reading})
    army(s, {1: 2}, commander=1)
    s.trophies[0, 1] = 3
    bombay = r.d.regions.index("Bombay")
    d = dice({0: [5, 6, 1, 1]})  # check lowest 5 (2 officers + 1 regiment - 1 = 2 dice); death dice 1, 1
    deploy(s, r, d, agents(r, s, Scripted(deploy=const(bombay, [0, 2, 0, 0], 1, [False, False, False]))), 0)
    d.assert_spent()
    assert s.officers[0, 1, 0] == 1 and s.supply[0, 1] == 11 and s.trophies[0, 1] == 1
    assert s.tally[0, TALLY["officers_killed"]] == killed and s.tally[0, TALLY["fired"]] == fired


def test_the_loot_minimum_counts_the_officers_who_took_part():
    """R-DEPLOY, L171: 5 officers take part (seat 1: 3 with the commander, seat 2: 2); two die, 3 survive; the loot is
    4 £, less than the 5 who took part: each survivor gets 1 £ and nobody else (counting survivors, 4 >= 3, the
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


def moves_of(*rows):
    """(kind, family, src, dst, count) per move -> the five int[1, M] arrays."""
    return tuple(np.array([[m[i] for m in rows]]) for i in range(5))


def test_death_dice_go_commanders_family_first_each_game_its_own_count():
    """R-DEPLOY (L169): every officer rolls for death, the commander's family first (his own die the very first). Game
    0: commander seat 2 (2 officers) and seat 1 (1): dice 1, 1 | 6 -> seat 1's officer dies (read in seat order, seat 2
    would lose one). Game 1: commander seat 1 and seat 3 (1 each): 6 | 1 -> the commander dies, seat 3 takes the
    command. Each game rolls only its own officers' dice (3 and 2)."""
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
    """R-DEPLOY (L169, L173), D-DEFEAT: a mishap costs the commander (disgraced) on top of the officers the dice kill:
    his family had 3 officers, his own die spares him, his family's second die kills one: 2 lost (not 1)."""
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
    """R-DEPLOY (L164–L173): game 0: Bombay already the presidency's, unrest 2: a success clears the unrest (to 0, not
    1); no conquest, no trophy, no loot. Game 1: sovereign Bombay (strength 1) taken by a commander who already has 2
    trophies: 3."""
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
    """R-DEPLOY, loot (L171): only the commanders who loot are asked whom to name (games 0 and 2, not game 1), each told
    his army and the loot; game 0's 5 £ go over an officer and a regiment, game 2's 7 £ over 3 officers, the remainder
    to the officers, the commander's family first."""
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
    """R-DEPLOY, loot (L171): game 0: 9 £ over 1 officer (seat 0, commander) and named seats 1 and 3: 3 each. Game 1:
    6 £ over 2 officers of seat 2 (commander) and named seats 0 and 3: 1 each, the 2 £ remainder to the officers. Game
    2: 5 £ for one officer alone: all 5. The loot tally adds to what the round already looted."""
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
    """R-DEPLOY, loot (L171): 5 £ over 1 officer and named seats 1 and 3 (3 slots): 1 each, remainder 2: the officer,
    then seat 1 -- not seat 3, and 1 £ each, never 2 to one family."""
    r, s = blank(2, 4)
    strat = Scripted(share_loot=const([False, True, False, True]))
    share_loot(s, agents(r, s, strat), 0, np.array([0, 1]), np.array([0, 0]), np.array([5, 8]),
               np.array([[1, 0, 0, 0], [1, 0, 0, 0]]), np.array([0, 0]))  # fmt: skip
    assert s.money[0].tolist() == [2, 2, 0, 1]
    assert s.money[1].tolist() == [3, 3, 0, 2]  # 8 over 3 slots: 2 each, remainder 2: the officer and seat 1


def test_loot_with_nobody_to_take_it_is_lost():
    """R-DEPLOY, loot (L171): loot with no surviving officer, no troops and no family named goes to nobody: no family's
    money, nothing on the loot flow."""
    r, s = blank(1, 4)
    share_loot(s, agents(r, s, Scripted(share_loot=const([False] * 4))), 0, np.array([0]), np.array([0]),
               np.array([7]), np.array([[0, 0, 0, 0]]), np.array([0]))  # fmt: skip
    assert s.money.sum() == 0 and s.ledger[0, FLOW["loot"]] == 0


def test_mercenaries_take_their_share_of_the_loot():
    """R-DEPLOY, mercenaries and loot (L167–L171): a conquest with a mercenary band: loot 4 + 4 = 8 over the commander's
    officer, his own family named, the regiment and the band: 2 each, the family gets 4 (the troops' 4 are never paid
    out)."""
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


def test_loot_remainder_goes_to_the_commanders_family_first_then_seat_order():
    """R-DEPLOY (L171): loot 5 £ over 3 surviving officers (seats 0, 1, 2; commander seat 2): 1 £ each, and the 2 £
    remainder to the commander's family first, then seat 0 (not seats 0 and 1 by seat order)."""
    r, s = blank(1, 4)
    share_loot(
        s, agents(r, s, Scripted(share_loot=const([False] * 4))), 0, np.array([0]), np.array([2]), np.array([5]),
        np.array([[1, 1, 1, 0]]), np.array([0]),
    )  # fmt: skip
    assert s.money[0].tolist() == [2, 1, 2, 0]


def test_loot_remainder_reaches_officers_before_named_families():
    """R-DEPLOY (L171): loot 6 over 4 slots (officers of seats 1 (commander) and 2, seat 3 named, 1 regiment): 1 £ each,
    then the remainder 2 to the officers (1, 2) before the named family 3; the regiment's share is never paid out."""
    r, s = blank(1, 4)
    named = const([False, False, False, True])
    share_loot(
        s, agents(r, s, Scripted(share_loot=named)), 0, np.array([0]), np.array([1]), np.array([6]),
        np.array([[0, 1, 1, 0]]), np.array([1]),
    )  # fmt: skip
    assert s.money[0].tolist() == [0, 2, 2, 1] and s.ledger[0, FLOW["loot"]] == 5


def test_loot_equal_to_the_officers_pays_one_each():
    """R-DEPLOY (L171): loot equal to the surviving officers (3 £; two of seat 0, one of seat 1) with all four families
    named: 7 slots, so the 3 £ are all remainder and reach the officers first, 1 £ each; the named families get
    nothing (not 1 £ each to seats 0, 1, 2 in seat order)."""
    r, s = blank(1, 4)
    share_loot(
        s, agents(r, s, Scripted(share_loot=const([True] * 4))), 0, np.array([0]), np.array([0]), np.array([3]),
        np.array([[2, 1, 0, 0]]), np.array([0]),
    )  # fmt: skip
    assert s.money[0].tolist() == [2, 1, 0, 0]  # 3 £ over 3 officers + 4 named: officers first, nothing left


def test_a_tie_for_command_after_a_battle_without_military_affairs_goes_to_chance():
    """R-COMMANDER (L151–L152): the commander dies; two families are left with one officer each and nobody heads
    Military Affairs: chance picks among the tied (uniform 0.9 -> the second of them)."""
    r, s = blank(1, 4)
    for seat in (1, 2, 3):
        give(s, "officers", seat, 1, col=0)
    s.commander[0, 0] = 1
    d = dice({0: [3, 3, 3, 6, 1, 1]}, uniforms={0: [0.9]})
    deploy(s, r, d, agents(r, s, Scripted(deploy=deploy_to("Bombay"))), 0)
    d.assert_spent()
    assert s.officers[0, :, 0].tolist() == [0, 0, 1, 1] and s.commander[0, 0] == 3


def test_military_moves_remember_an_earlier_illegal_move_and_the_phase_refuses_it():
    """R-MILITARY (L151–L152): moves apply in order, so moving officers an earlier move already took is illegal; the
    phase refuses game 1's illegal move naming game 1, and asks for academy assignments only where cadets wait."""
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
    """R-DEPLOY (L164–L166): two games deploy at once: game 0 legally, game 1 without dice (force 1 against strength 1):
    game 1 is named. Madras's army may target Madras, the last region; one past it is illegal."""
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
    """R-DEPLOY (L164–L173), D-MERCENARIES: Bombay's army, Bombay already the presidency's. Game 0 takes Maratha
    (strength 2, never looted): loot 4 x 2 + 3 = 11 over 3 officers and a regiment: 2 each, the remainder 3 to the
    officers (9 £). Game 1 takes Punjab (region 0, strength 0, looted before): no loot, still a conquest. Both add to
    the round's conquests tally. A seat-0 President makes mercenaries available in both."""
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
    """R-DEPLOY, loot (L171): game 0: 3 £ for 1 officer: he gets 3. Game 1: 5 £ for 3 officers: 1 each and the remainder
    2 to the first two. (Against the batch's 4 officers, game 0's 3 £ would look smaller than the officers.)"""
    r, s = blank(2, 4)
    share_loot(s, agents(r, s, Scripted(share_loot=const([False] * 4))), 0, np.arange(2), np.array([0, 1]),
               np.array([3, 5]), np.array([[1, 0, 0, 0], [0, 3, 0, 0]]), np.array([0, 0]))  # fmt: skip
    assert s.money.tolist() == [[3, 0, 0, 0], [0, 5, 0, 0]]


def test_military_affairs_leaves_a_finished_game_alone():
    """R-MILITARY (L151–L152): Military Affairs acts only in running games: game 1 has ended, so he is not asked there
    and its cadet stays in the academy."""
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
    """R-COMMANDER (L151–L152): game 0: seat 0 commands Madras's army tied 1-1 with seat 1: he keeps it. Game 1: tied
    1-1, no commander: Military Affairs (seat 3) is asked with the army and the tied families and picks seat 0. Game 2:
    nobody has officers there: no commander. A pick past the last seat is illegal."""
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
    """R-DEPLOY (L166): Bombay's army with Bombay owned by presidency 0: the sovereign neighbours are targets, a
    neighbour already the Company's (Madras presidency's Mysore) is not; a Company-owned home is a target as an own
    region."""
    r, s = blank(1, 4)
    names = r.d.regions
    s.owner[0, names.index("Bombay")] = 0
    s.owner[0, names.index("Mysore")] = 0  # now Bombay's own: a target as its own region
    s.owner[0, names.index("Hyderabad")] = 1
    got = {names[i] for i in np.flatnonzero(deploy_targets(s, r, 0)[0])}
    assert got == {"Bombay", "Mysore", "Punjab", "Delhi", "Maratha", "Madras"}


def test_regions_of_another_presidency_are_no_targets_even_home():
    """R-DEPLOY (L166): Madras's army: Madras's home held by Bombay's presidency (0) is not a target, nor Mysore
    (Bombay's) next to Madras's own Hyderabad."""
    r, s = blank(1, 4)
    names = r.d.regions
    s.owner[0, names.index("Madras")] = 0
    s.owner[0, names.index("Mysore")] = 0
    s.owner[0, names.index("Hyderabad")] = 1
    got = {names[i] for i in np.flatnonzero(deploy_targets(s, r, 1)[0])}
    assert got == {"Hyderabad", "Bombay", "Maratha"}
