"""Phase 6 military: R-MILITARY (academy, moves), R-COMMANDER, R-DEPLOY (targets, mercenaries, death on a 6,
conquest, trophies, loot, defeat)."""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, give, seat_office

from sim import ledger
from sim.agents import IllegalDecision
from sim.phases.military import deploy, deploy_targets, military_affairs, settle_commanders
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
