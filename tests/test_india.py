"""Phase 8, India (R-INDIA, D-EVENTS; seed L210-L220; MAP.md): the storm die and the ships it batters, the event
tile stack, every tile kind, the Turmoil cascade, empires forming and shattering, rebellions, foreign invasions,
attacks and revolts on Company regions (held and lost), the crisis marker's march and its effect on deployments.

Regions: 0 Punjab, 1 Delhi, 2 Bengal, 3 Bombay, 4 Maratha, 5 Hyderabad, 6 Mysore, 7 Madras. At the 1710 start
Delhi (strength 1) rules Maratha (2) and Punjab (0); the crisis marker points from Maratha at Delhi.
Tiles (default.toml): 0 Crisis Delhi +0 triangle, 2 Crisis Maratha +3 circle, 4 Crisis Bengal +1 triangle,
6 Leader Hyderabad +4, 8 Leader Punjab +3 circle, 9 Leader Bombay +2 square, 10 Turmoil Delhi, 13 Turmoil Bombay,
14 Windfall Hyderabad, 16 Peace Mysore square, 17 Peace Madras triangle, 18 Shuffle Madras circle, 19 Invasion.
"""

import re
from types import SimpleNamespace

import numpy as np
import polars as pl
import pytest
from helpers import L, Scripted, agents, blank, const, dice, give, passes

import sim
from sim import laws, ledger
from sim.agents import IllegalDecision
from sim.india import (
    _close,
    batter_ships,
    cascade,
    close_northernmost,
    empire_strength,
    invade,
    march,
    rebel,
    settle_damage,
    turn_inward,
)
from sim.phases.accounts import family_income
from sim.phases.attacks import Event, attack_company, revolt_wave
from sim.phases.india import (
    crisis,
    deal,
    draw,
    foreign_invasion,
    india,
    leader,
    peace,
    resolve,
    restack,
    shuffle,
    turmoil,
    windfall,
)
from sim.phases.military import deploy
from sim.rules import Rules, RulesError
from sim.state import FLOW, TALLY

# each rule played on both engine paths, the numpy reference and the compiled kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")

PUNJAB, DELHI, BENGAL, BOMBAY, MARATHA, HYDERABAD, MYSORE, MADRAS = range(8)
CRISIS_DELHI, CRISIS_MARATHA, CRISIS_BENGAL = 0, 2, 4
LEADER_HYDERABAD, LEADER_PUNJAB, LEADER_BOMBAY = 6, 8, 9
TURMOIL_DELHI, TURMOIL_BOMBAY = 10, 13
WINDFALL, PEACE_MYSORE, PEACE_MADRAS, SHUFFLE, INVASION = 14, 16, 17, 18, 19
TRIANGLE, CIRCLE, SQUARE = range(3)


def order(r, name):
    return r.d.orders.index(name)


def opened(r, s, g=0):
    return [r.d.orders[o] for o in np.flatnonzero(s.order_open[g])]


def tally(s, name, g=0):
    return int(s.tally[g, TALLY[name]])


def company(s, region, army, g=slice(None)):
    """Make ``region`` the Company's (presidency ``army``), as a conquest would."""
    s.owner[g, region] = army
    s.strength[g, region] = 0
    s.capital[g, region] = region


def windfall_rules(games=1, **overrides):
    """Rules whose every tile is a Windfall (events with no dice), for the storm tests."""
    tiles = [{"kind": "windfall", "region": "Madras"}] * 20
    return blank(games, 4, **{"map.events": tiles, **overrides})


# ------------------------------------------------------------------------------------------------------ storms
@pytest.mark.parametrize(
    "table, seas, events",
    [
        ("seed", [[], [0], [0, 1, 2], [2], [1], []], [4, 2, 1, 2, 3, 4]),  # L215-L220
        ("jc2e", [[0, 1, 2], [2], [0], [1], [], []], [1, 2, 2, 3, 4, 4]),  # 1-All, 2-East, 2-West, 3-South, 4, 4
    ],
)
def test_every_storm_face_hits_its_seas_and_draws_its_events(table, seas, events):
    """Game f-1 rolls face f. Seat 0 has a sound yard ship in each sea; each ship hit rolls a 3 (damaged)."""
    r, s = windfall_rules(6, **{"india.storm_table": table})
    s.shipyards[:, 0] = 3
    s.yard_ships[:, 0, :3] = 1
    d = dice({g: [g + 1] + [3] * len(seas[g]) for g in range(6)})
    india(s, r, d, agents(r, s))
    d.assert_spent()
    for g in range(6):
        assert d.rolls("d6", g)[:2] == ([1, len(seas[g])] if seas[g] else [1])  # the face, then one die per ship
        assert s.yard_damaged[g, 0, :3].tolist() == [int(p in seas[g]) for p in range(3)]
        assert tally(s, "storm", g) == g + 1 and tally(s, "events", g) == events[g] == tally(s, "events_windfall", g)
        assert s.event_cursor[g] == events[g]  # exactly that many tiles left the stack
    assert (s.yard_ships[:, 0, :3] == 1).all()


def test_storm_faces_band_edges_damage_and_sinking():
    """Sound ships rolling 2, 3, 4, 5 (L216): nothing, damaged, damaged, sunk. Five yards, four ships at sea."""
    r, s = windfall_rules()
    s.shipyards[0, 1] = 5
    s.yard_ships[0, 1, 0] = 4  # all in Bombay's sea; face 2 storms it
    d = dice({0: [2, 2, 3, 4, 5]})
    india(s, r, d, agents(r, s))
    assert s.yard_ships[0, 1, 0] == 3 and s.yard_damaged[0, 1, 0] == 2
    assert tally(s, "ships_damaged") == 2 and tally(s, "ships_sunk") == 1
    assert s.shipyards[0, 1] - s.yard_ships[0, 1].sum() == 2  # the sunk ship's yard is free again


def test_a_damaged_ship_damaged_again_sinks_and_its_yard_stops_paying():
    """Round 1: the sound ship rolls 4, damaged. Round 2: a 3 sinks it. Phase 7 then pays its owner nothing."""
    r, s = windfall_rules()
    s.shipyards[0, 2] = 1
    s.yard_ships[0, 2, 2] = 1  # Bengal's sea: face 4 storms it
    india(s, r, dice({0: [4, 4]}), agents(r, s))
    assert s.yard_ships[0, 2, 2] == 1 and s.yard_damaged[0, 2, 2] == 1
    s.tally[:] = 0
    india(s, r, dice({0: [4, 3]}), agents(r, s))
    assert s.yard_ships[0, 2].sum() == 0 and s.yard_damaged[0, 2].sum() == 0
    assert tally(s, "ships_sunk") == 1 and tally(s, "ships_damaged") == 0
    family_income(s, r)
    assert s.ledger[0, FLOW["yard_income"]] == 0 and s.money[0, 2] == 0


def test_damaged_ships_roll_before_sound_ones():
    """One damaged and one sound ship in a storm, dice 3 then 1: the damaged ship rolls first and sinks; the sound
    one is untouched (the other order would leave two damaged ships)."""
    r, s = windfall_rules()
    s.shipyards[0, 0] = 2
    s.yard_ships[0, 0, 1] = 2
    s.yard_damaged[0, 0, 1] = 1
    india(s, r, dice({0: [5, 3, 1]}), agents(r, s))  # face 5: Madras' sea
    assert s.yard_ships[0, 0, 1] == 1 and s.yard_damaged[0, 0, 1] == 0


def test_damage_follows_the_ships_the_director_moves():
    yard = np.array([[[0, 2, 0, 0]]])  # after a move: both ships of seat 0 sail in Madras' sea ...
    damaged = np.array([[[1, 0, 0, 0]]])  # ... the damaged one used to be in Bombay's
    settle_damage(yard, damaged)
    assert damaged.tolist() == [[[0, 1, 0, 0]]]
    yard, damaged = np.array([[[1, 1, 0, 0]]]), np.array([[[1, 0, 0, 0]]])
    settle_damage(yard, damaged)  # a ship stayed in Bombay: the damage stays with it
    assert damaged.tolist() == [[[1, 0, 0, 0]]]


# --------------------------------------------------------------------------------------------------- the stack
def test_the_stack_is_dealt_once_drawn_in_order_and_reshuffled_when_spent():
    r, s = blank(2, 4)
    deal(s, r, dice(uniforms={1: list(np.linspace(1, 0, 20, endpoint=False))}), np.arange(2))
    assert s.event_stack[0].tolist() == list(range(20)) and s.event_stack[1].tolist() == list(range(19, -1, -1))
    assert s.event_next.tolist() == [r.d.tile_region[0], r.d.tile_region[19]]
    s.event_cursor[:] = 19
    ev = draw(s, r, dice(uniforms={0: list(np.linspace(1, 0, 20, endpoint=False))}), np.arange(2))
    assert ev.tile.tolist() == [19, 0]
    assert s.event_cursor.tolist() == [0, 0]  # spent: a new stack (game 1's uniforms keep its order)
    assert s.event_stack.tolist() == [list(range(19, -1, -1))] * 2
    # 2e: the event hits the region on the back of the next tile (the new stack's first)
    assert ev.region.tolist() == [r.d.tile_region[19]] * 2 == s.event_next.tolist()


def test_the_event_region_is_the_next_tiles_or_its_own():
    for mode, expect in (("next_tile", MADRAS), ("own_tile", DELHI)):
        r, s = blank(1, 4, **{"india.event_region": mode})
        s.event_cursor[0] = 0
        s.event_stack[0, :2] = [TURMOIL_DELHI, WINDFALL + 1]  # Turmoil Delhi, then Windfall Madras
        s.event_stack[0, 2:] = [t for t in range(20) if t not in (TURMOIL_DELHI, WINDFALL + 1)]
        ev = draw(s, r, dice(), np.arange(1))
        assert ev.tile[0] == TURMOIL_DELHI and ev.region[0] == expect and s.event_next[0] == MADRAS


def test_the_stack_order_is_hidden_from_strategies_but_the_next_back_is_public():
    seen = {}

    def look(obs, legal):
        with pytest.raises(AttributeError):
            obs.event_stack  # noqa: B018
        with pytest.raises(AttributeError):
            obs.event_cursor  # noqa: B018
        seen["next"] = obs.event_next.copy()
        return np.zeros(obs.n, dtype=bool)

    r, s = blank(1, 4)
    s.event_next[0] = MADRAS
    s.office[0, L.CHAIRMAN] = 0
    a = agents(r, s, Scripted(royal_protection=look))
    a.ask("royal_protection", s, np.zeros(1, dtype=int), {"shortfall": np.ones(1)}, (np.zeros(1, dtype=bool),))
    assert seen["next"].tolist() == [MADRAS]


def test_games_shuffle_their_own_stacks():
    res = sim.play(sim.Rules.default(), "balanced", 30, seed=3)
    kinds = res.rounds.filter(res.rounds["round"] == 1).select([f"events_{k}" for k in L.EVENT_KINDS]).to_numpy()
    assert len({tuple(row) for row in kinds}) > 3  # different games draw different tiles


# ----------------------------------------------------------------------------------------------------- Turmoil
@pytest.mark.parametrize(
    "mode, closed",
    [
        ("chain", ["Maratha1", "Bombay1", "Bombay3"]),  # Punjab (all closed) cascades in turn: Bombay3 closes
        ("step", ["Maratha1", "Bombay1"]),
        ("none", []),
    ],
)
def test_turmoil_closes_the_northernmost_open_order_then_cascades(mode, closed):
    """Delhi: Delhi1 open (Delhi2, Delhi3 closed). The first Turmoil closes Delhi1. The second finds Delhi all
    closed and cascades along Delhi's links next door: Punjab (closed: Punjab has nothing open, so it cascades in
    turn), Maratha1 (open: closes), Bombay1 (open: closes); Punjab's cascade reaches Bombay1 (closed now), so
    Bombay closes its northernmost open order, Bombay3."""
    r, s = blank(1, 4, **{"india.cascade": mode})
    ev = Event.of(s, r, [0], TURMOIL_DELHI, DELHI)
    turmoil(s, r, dice(), agents(r, s), ev)
    assert not s.order_open[0, order(r, "Delhi1")] and tally(s, "orders_closed") == 1
    before = set(opened(r, s))
    turmoil(s, r, dice(), agents(r, s), ev)
    assert sorted(before - set(opened(r, s))) == sorted(closed)
    assert tally(s, "orders_closed") == 1 + len(closed)


def test_a_cascade_reaches_each_region_once():
    """Every order closed: cascades from Bombay reach every neighbour, none twice, and nothing is left to close."""
    r, s = blank(1, 4)
    s.order_open[:] = False
    cascade(s, r, np.arange(1), np.array([BOMBAY]))
    assert not s.order_open.any() and tally(s, "orders_closed") == 0
    s.order_open[0, order(r, "Madras1")] = True  # Bombay -> Mysore (cascades) -> Madras2 closed -> Madras1
    close_northernmost(s, r, np.arange(1), np.array([BOMBAY]))
    assert not s.order_open.any() and tally(s, "orders_closed") == 1


# ---------------------------------------------------------------------------------------------------- Windfall
@pytest.mark.parametrize("mode, pay", [("presidency_in_area", [3, 3]), ("home_in_area", [1, 3])])
def test_windfall_pays_clerks_of_presidencies_in_the_area(mode, pay):
    """Windfall Hyderabad: the area is Hyderabad, Madras, Mysore, Bombay, Maratha. Bombay's and Madras' homes lie
    there; Bengal holds Maratha. Seat 0: 1 clerk in Bombay, 2 in Bengal; seat 1: 3 in Madras."""
    r, s = blank(1, 4, **{"india.windfall_clerks": mode})
    give(s, "clerks", 0, 1, col=0)
    give(s, "clerks", 0, 2, col=2)
    give(s, "clerks", 1, 3, col=1)
    company(s, MARATHA, 2)
    windfall(s, r, dice(), agents(r, s), Event.of(s, r, [0], WINDFALL, HYDERABAD))
    assert s.money[0, :2].tolist() == pay and s.ledger[0, FLOW["windfall"]] == sum(pay)
    assert ledger.balanced(s).all()


# ------------------------------------------------------------------------------------------------------ Leader
def test_leader_strengthens_a_sovereign_region():
    r, s = blank(1, 4)
    leader(s, r, dice(), agents(r, s), Event.of(s, r, [0], LEADER_HYDERABAD, HYDERABAD))
    assert s.strength[0, HYDERABAD] == 2


def test_leader_raises_a_rebellion_in_a_dominated_region():
    """Game 0: Punjab 0 + 3 > Delhi 1: free, its (opened) order closes. Game 1: Delhi at 3 holds (0 + 3 is a tie,
    ties to the capital) and loses 1 strength."""
    r, s = blank(2, 4)
    s.order_open[:, order(r, "Punjab")] = True
    s.strength[1, DELHI] = 3
    leader(s, r, dice(), agents(r, s), Event.of(s, r, [0, 1], LEADER_PUNJAB, PUNJAB))
    assert s.capital[:, PUNJAB].tolist() == [PUNJAB, DELHI]
    assert s.order_open[:, order(r, "Punjab")].tolist() == [False, True]
    assert s.strength[:, DELHI].tolist() == [1, 2] and s.strength[:, PUNJAB].tolist() == [0, 0]


def test_leader_in_a_company_region_is_a_rebellion_against_the_company():
    """Leader Bombay +2 on Company Bombay with 1 unrest: strength 3 against 2 regiments: lost."""
    r, s = blank(1, 4)
    company(s, BOMBAY, 0)
    s.unrest[0, BOMBAY] = 1
    s.regiments[0, 0] = 2
    leader(s, r, dice(), agents(r, s), Event.of(s, r, [0], LEADER_BOMBAY, BOMBAY))
    assert s.owner[0, BOMBAY] == -1 and tally(s, "attacks") == 1 and tally(s, "regions_lost") == 1
    assert s.stability[0] == r.company.start_stability - 1


# ------------------------------------------------------------------------------------------------------- Peace
def test_peace_on_a_border_opens_the_orders_across_it_and_strengthens_both_sides():
    """The marker points from Maratha at Delhi: Delhi2 and Maratha1 (their link crosses the border) open;
    Maratha 2 -> 3, Delhi 1 -> 2. Then it marches: Peace Madras (triangle) hits Madras, sovereign: its triangle
    neighbour is Mysore."""
    r, s = blank(1, 4)
    s.order_open[0, order(r, "Maratha1")] = False
    peace(s, r, dice(), agents(r, s), Event.of(s, r, [0], PEACE_MADRAS, MADRAS))
    assert s.order_open[0, order(r, "Delhi2")] and s.order_open[0, order(r, "Maratha1")]
    assert tally(s, "orders_reopened") == 2
    assert s.strength[0, MARATHA] == 3 and s.strength[0, DELHI] == 2
    assert (s.elephant_at[0], s.elephant_facing[0]) == (MADRAS, MYSORE)


def test_peace_inside_a_company_region_opens_all_its_orders_and_ends_its_unrest():
    r, s = blank(1, 4)
    company(s, BOMBAY, 0)
    company(s, MADRAS, 1)
    s.unrest[0, BOMBAY] = 2
    s.elephant_at[0], s.elephant_facing[0] = BOMBAY, -1
    peace(s, r, dice(), agents(r, s), Event.of(s, r, [0], PEACE_MADRAS, MADRAS))
    assert {"Bombay1", "Bombay2", "Bombay3"} <= set(opened(r, s)) and s.unrest[0, BOMBAY] == 0
    assert s.strength[0, BOMBAY] == 0  # a Company region never grows
    assert (s.elephant_at[0], s.elephant_facing[0]) == (MADRAS, -1)  # marched into Company Madras: inward


# ----------------------------------------------------------------------------------------------------- Shuffle
def test_shuffle_marches_and_puts_the_drawn_tiles_back_on_top():
    """Five tiles were drawn, the Shuffle tile last (position 4). discard_on_top: positions 0-3 reshuffled on
    top, the Shuffle tile and the rest below; "all": one shuffle of every tile."""
    r, s = blank(2, 4, **{"india.shuffle": "discard_on_top"})
    stack = [3, 7, 11, 15, SHUFFLE] + [t for t in range(20) if t not in (3, 7, 11, 15, SHUFFLE)]
    s.event_stack[:] = stack
    s.event_cursor[:] = 5
    reverse = list(np.linspace(0.99, 0, 20))  # sorts the reverse of the stack within each group
    ev = Event.of(s, r, [0], SHUFFLE, BOMBAY)
    shuffle(s, r, dice(uniforms={0: reverse}), agents(r, s), ev)
    assert s.event_stack[0, :4].tolist() == [15, 11, 7, 3]
    assert s.event_stack[0, 4:].tolist() == stack[4:][::-1] and s.event_cursor[0] == 0
    assert (s.elephant_at[0], s.elephant_facing[0]) == (BOMBAY, MARATHA)  # Bombay's circle: Maratha
    r2 = r.with_overrides({"india.shuffle": "all"})
    restack(s, r2, dice(uniforms={1: reverse}), np.array([1]))
    assert s.event_stack[1].tolist() == stack[::-1]


# ------------------------------------------------------------------------------------------------------ Crisis
def test_crisis_dominated_tail_rebels_against_its_capital():
    """Maratha (2) + 0 > Delhi (1): Maratha is free and its open orders (Maratha1, Maratha3) close. Game 1:
    Delhi at 3 holds and drops to 2. The marker then marches from the hit region, Bombay: its triangle neighbour
    Punjab (not Bombay's)."""
    r, s = blank(2, 4)
    s.strength[1, DELHI] = 3
    crisis(s, r, dice(), agents(r, s), Event.of(s, r, [0, 1], CRISIS_DELHI, BOMBAY))
    assert s.capital[:, MARATHA].tolist() == [MARATHA, DELHI]
    assert s.order_open[:, order(r, "Maratha1")].tolist() == [False, True]
    assert s.order_open[:, order(r, "Maratha3")].tolist() == [False, True]
    assert s.strength[:, DELHI].tolist() == [1, 2]
    assert s.elephant_at.tolist() == [BOMBAY, BOMBAY] and s.elephant_facing.tolist() == [PUNJAB, PUNJAB]


def test_crisis_invasion_shatters_the_defending_empire_and_founds_a_new_one():
    """Bengal (1) + 3 against Delhi's empire (1 + 2 + 0 = 3): won. Delhi's empire shatters, Bengal founds one
    with Delhi; the marker marches from the winner, Bengal: its circle neighbour Maratha. Game 1, Crisis Bengal
    +1: 2 against 3, lost: Bengal drops to 0 and the marker marches from the hit region (Hyderabad, triangle:
    Maratha)."""
    r, s = blank(2, 4)
    s.elephant_at[:], s.elephant_facing[:] = BENGAL, DELHI
    assert empire_strength(s, np.arange(2), np.array([DELHI, MARATHA])).tolist() == [3, 3]
    crisis(s, r, dice(), agents(r, s), Event.of(s, r, [0], CRISIS_MARATHA, HYDERABAD))
    crisis(s, r, dice(), agents(r, s), Event.of(s, r, [1], CRISIS_BENGAL, HYDERABAD))
    assert s.capital[0].tolist() == [PUNJAB, BENGAL, BENGAL, BOMBAY, MARATHA, HYDERABAD, MYSORE, MADRAS]
    assert (s.elephant_at[0], s.elephant_facing[0]) == (BENGAL, MARATHA)
    assert s.capital[1].tolist() == [DELHI, DELHI, BENGAL, BOMBAY, DELHI, HYDERABAD, MYSORE, MADRAS]
    assert s.strength[1, BENGAL] == 0 and (s.elephant_at[1], s.elephant_facing[1]) == (HYDERABAD, MARATHA)


def test_an_invasion_tie_goes_to_the_defender():
    """Bengal (1) + 2 against Delhi's empire (3): a tie, lost; Bengal drops to 0, no other region loses strength
    and nothing changes hands."""
    r, s = blank(1, 4)
    capital, strength = s.capital.copy(), s.strength.copy()
    assert invade(s, r, np.arange(1), np.array([BENGAL]), np.array([DELHI]), np.array([2])).tolist() == [False]
    strength[0, BENGAL] = 0
    assert (s.strength == strength).all() and (s.capital == capital).all()


@pytest.mark.parametrize("max_empires, joins", [(3, HYDERABAD), (1, MARATHA)])
def test_a_conquered_region_joins_the_winner_unless_no_empire_can_be_founded(max_empires, joins):
    """Hyderabad (1) + 3 takes Maratha from Delhi's empire (3). With Delhi's empire already standing and at most
    one empire, Hyderabad cannot found one: Maratha is merely free."""
    r, s = blank(1, 4, **{"india.max_empires": max_empires})
    won = invade(s, r, np.arange(1), np.array([HYDERABAD]), np.array([MARATHA]), np.array([3]))
    assert won.tolist() == [True] and s.capital[0, MARATHA] == joins and s.capital[0, PUNJAB] == DELHI


def test_rebellion_ties_go_to_the_capital():
    """Maratha 1 + 0 against Delhi 1: a tie, Delhi holds and drops to 0; the next rising (1 > 0) wins, and a
    won rising costs the capital nothing."""
    r, s = blank(1, 4)
    s.strength[0, MARATHA] = 1
    assert rebel(s, r, np.arange(1), np.array([MARATHA]), np.array([0])).tolist() == [False]
    assert s.strength[0, DELHI] == 0 and s.capital[0, MARATHA] == DELHI
    assert rebel(s, r, np.arange(1), np.array([MARATHA]), np.array([0])).tolist() == [True]
    assert s.strength[0, DELHI] == 0 and s.capital[0, MARATHA] == MARATHA


def test_crisis_against_a_company_head_adds_its_unrest_and_is_held():
    """Delhi's empire (3) + 0 + Bombay's unrest 1 = 4 against 2 regiments + 3 officers: held. The commander
    (balanced) commits exactly 4, regiments first; Delhi loses 1 strength, the commander's family gains a
    trophy."""
    r, s = blank(1, 4)
    company(s, BOMBAY, 0)
    s.unrest[0, BOMBAY] = 1
    s.elephant_at[0], s.elephant_facing[0] = DELHI, BOMBAY
    s.regiments[0, 0] = 2
    give(s, "officers", 1, 3, col=0)
    s.commander[0, 0] = 1
    strat = Scripted()
    crisis(s, r, dice(), agents(r, s, strat), Event.of(s, r, [0], CRISIS_DELHI, BOMBAY))
    assert strat.asked("defend") == [([0], [1])]
    assert s.used_regiments[0, 0] == 2 and s.used_officers[0, 1, 0] == 2
    assert s.strength[0, DELHI] == 0 and s.trophies[0, 1] == 1 and s.owner[0, BOMBAY] == 0
    assert tally(s, "attacks") == 1 and tally(s, "regions_held") == 1 and tally(s, "regions_lost") == 0


def test_crisis_inside_a_company_region_is_a_rebellion_there():
    """Turned inward into Company Madras (unrest 2): Crisis +3 (strength 5) against 5 free pieces: held."""
    r, s = blank(1, 4)
    company(s, MADRAS, 1)
    s.unrest[0, MADRAS] = 2
    s.elephant_at[0], s.elephant_facing[0] = MADRAS, -1
    s.regiments[0, 1] = 5
    strat = Scripted()
    crisis(s, r, dice(), agents(r, s, strat), Event.of(s, r, [0], CRISIS_MARATHA, MADRAS))
    assert s.used_regiments[0, 1] == 5 and s.owner[0, MADRAS] == 1 and tally(s, "regions_held") == 1
    assert strat.asked("defend") == []  # no commander, Military Affairs or Chairman: the least defence
    assert (s.elephant_at[0], s.elephant_facing[0]) == (MADRAS, -1)  # marched back into Company Madras


# ------------------------------------------------------------------------------------------- Foreign Invasion
def test_foreign_invasion_of_every_home_region():
    """Storm die 3 (all seas): Bombay, Madras, Bengal in turn, attacks 3, 1, 6. Bombay (1) falls: Bombay1 and
    Bombay3 close, strength 3 // 2 = 1; Madras (1) holds against 1; Bengal falls: Bengal1, Bengal2 close, 6 // 2."""
    r, s = blank(1, 4)
    d = dice({0: [3, 3, 1, 6]})
    foreign_invasion(s, r, d, agents(r, s), Event.of(s, r, [0], INVASION, MARATHA))
    d.assert_spent()
    assert s.strength[0, [BOMBAY, MADRAS, BENGAL]].tolist() == [1, 1, 3]
    assert not {"Bombay1", "Bombay3", "Bengal1", "Bengal2"} & set(opened(r, s)) and "Madras1" in opened(r, s)


def test_foreign_invasion_without_seas_hits_the_event_region_and_frees_it():
    """Face 1 (no seas): the hit region, Maratha (2, in Delhi's empire: 3), attacked at 4: it falls, leaves the
    empire and keeps 2."""
    r, s = blank(1, 4)
    foreign_invasion(s, r, dice({0: [1, 4]}), agents(r, s), Event.of(s, r, [0], INVASION, MARATHA))
    assert s.capital[0, MARATHA] == MARATHA and s.strength[0, MARATHA] == 2
    assert not {"Maratha1", "Maratha3"} & set(opened(r, s))


def test_foreign_invasion_of_a_capital_shatters_its_empire():
    r, s = blank(1, 4)
    foreign_invasion(s, r, dice({0: [1, 5]}), agents(r, s), Event.of(s, r, [0], INVASION, DELHI))
    assert s.capital[0].tolist() == list(range(8)) and s.strength[0, DELHI] == 2


def test_foreign_invasion_of_a_company_region_adds_its_unrest():
    """Storm die 2 (Bombay's sea): Company Bombay with 1 unrest attacked at 2 + 1 = 3 with 2 regiments: lost."""
    r, s = blank(1, 4)
    company(s, BOMBAY, 0)
    s.unrest[0, BOMBAY] = 1
    s.regiments[0, 0] = 2
    foreign_invasion(s, r, dice({0: [2, 2]}), agents(r, s), Event.of(s, r, [0], INVASION, MARATHA))
    assert s.owner[0, BOMBAY] == -1 and s.strength[0, BOMBAY] == r.india.lost_region_strength
    assert tally(s, "attacks") == 1 and tally(s, "regions_lost") == 1


# ---------------------------------------------------------------------------------------- the Company attacked
def lost_position(stability=2):
    """Company Bombay with a governor (seat 2), its army: commander seat 1 (2 officers, 3 trophies), seat 3 (1
    officer), no regiments. Its orders Bombay1 and Bombay3 are open."""
    r, s = blank(1, 4)
    company(s, BOMBAY, 0)
    s.governor[0, BOMBAY] = 2
    s.supply[0, 2] -= 1
    s.regiments[0, 0] = 0
    give(s, "officers", 1, 2, col=0)
    give(s, "officers", 3, 1, col=0)
    s.commander[0, 0] = 1
    s.trophies[0, 1] = 3
    s.unrest[0, BOMBAY] = 2
    s.stability[0] = stability
    return r, s


def test_a_lost_region():
    """Strength 4 against 3 free pieces: lost. The commander dies, his family returns ceil(3 / 2) = 2 trophies;
    the governor dies (deposed); the army's other officers roll 6 (seat 1's dies) and 5 (seat 3's lives); the
    region's orders close; it is sovereign at 1 without unrest; stability 2 -> 1."""
    r, s = lost_position()
    d = dice({0: [6, 5]})
    strat = Scripted()
    attack_company(
        s, r, d, agents(r, s, strat), Event.of(s, r, [0], LEADER_BOMBAY), np.array([BOMBAY]), np.array([2])
    )  # fmt: skip  (2 + Bombay's 2 unrest)
    d.assert_spent()
    assert d.log == [("d6", 0, 2)] and strat.asked("defend") == []  # too weak: nothing to decide
    assert s.trophies[0, 1] == 1 and s.officers[0, :, 0].tolist() == [0, 0, 0, 1]
    assert s.supply[0].tolist() == [12, 12, 12, 11]  # two of seat 1 and the governor came home
    assert s.governor[0, BOMBAY] == -1 and s.deposed[0].tolist() == [0, 0, 1, 0]
    assert s.commander[0, 0] == 3  # the survivor commands
    assert not {"Bombay1", "Bombay3"} & set(opened(r, s))
    assert (s.owner[0, BOMBAY], s.strength[0, BOMBAY], s.capital[0, BOMBAY], s.unrest[0, BOMBAY]) == (-1, 1, 3, 0)
    assert s.stability[0] == 1 and not s.done[0] and tally(s, "stability_change") == -1
    assert tally(s, "officers_killed") == 2 and (s.relatives() == 12).all()


def test_a_lost_region_can_crash_the_company_and_end_the_game_in_this_phase():
    """Stability 1: the lost region crashes the Company; the game's second event is never drawn."""
    r, s = lost_position(stability=1)
    s.round[0] = 4
    s.event_cursor[0] = 0
    s.event_stack[0, :2] = [LEADER_BOMBAY, TURMOIL_DELHI]
    s.event_stack[0, 2:] = [t for t in range(20) if t not in (LEADER_BOMBAY, TURMOIL_DELHI)]
    r = r.with_overrides({"india.event_region": "own_tile"})
    d = dice({0: [1, 1, 1]})  # storm face 1 (4 events), two officers' death rolls
    india(s, r, d, agents(r, s))
    d.assert_spent()
    assert s.crashed[0] and s.done[0] and s.end_round[0] == 4 and s.stability[0] == 0
    assert s.event_cursor[0] == 1 and tally(s, "events") == 1  # the phase stopped at the crash


def test_a_held_region_exhausts_what_defended_it():
    """Two attacks of 2 on Bombay (3 free pieces): the first is held (commander's trophy, the attacker Delhi
    loses 1), the second finds 1 free piece and the region is lost."""
    r, s = lost_position()
    s.unrest[0, BOMBAY] = 0
    a = agents(r, s)
    ev = Event.of(s, r, [0], CRISIS_DELHI)
    attack_company(s, r, dice(), a, ev, np.array([BOMBAY]), np.array([2]), attacker=np.array([DELHI]))
    assert s.owner[0, BOMBAY] == 0 and s.trophies[0, 1] == 4 and s.strength[0, DELHI] == 0
    assert s.used_officers[0, :, 0].tolist() == [0, 1, 0, 1]  # balanced: another family first, its own last
    attack_company(s, r, dice({0: [1, 1]}), a, ev, np.array([BOMBAY]), np.array([2]))
    assert s.owner[0, BOMBAY] == -1 and tally(s, "regions_held") == 1 and tally(s, "regions_lost") == 1


def test_the_defence_must_be_worth_the_attack():
    r, s = lost_position()
    bad = Scripted(defend=const([0, 1, 0, 0], 0))  # 1 piece against an attack of 2 (0 + Bombay's 2 unrest)
    with pytest.raises(IllegalDecision, match="defend"):
        attack_company(s, r, dice(), agents(r, s, bad), Event.of(s, r, [0], 0), np.array([BOMBAY]), np.array([0]))


def test_troops_used_in_this_rounds_deployment_cannot_defend():
    """Bombay's army (3 officers of seat 1, 1 regiment) conquers Mysore (strength 1: 3 dice, success, no deaths).
    Then Mysore is attacked at 1: every piece is used, so it is lost although the army has 4."""
    r, s = blank(1, 4)
    company(s, BOMBAY, 0)
    give(s, "officers", 1, 3, col=0)
    s.commander[0, 0] = 1
    strat = Scripted(deploy=const(MYSORE, [0, 3, 0, 0], 1, [False, False, False]))
    deploy(s, r, dice({0: [1, 3, 4, 2, 2, 2]}), agents(r, s, strat), 0)
    assert s.owner[0, MYSORE] == 0
    assert s.used_officers[0, :, 0].tolist() == [0, 3, 0, 0] and s.used_regiments[0, 0] == 1
    d = dice({0: [1, 1]})
    attack_company(s, r, d, agents(r, s), Event.of(s, r, [0], 0), np.array([MYSORE]), np.array([1]))
    assert s.owner[0, MYSORE] == -1


def test_one_attack_sets_off_revolts_bombays_army_first():
    """Bombay (army 0) is attacked through Crisis; Madras (army 1, unrest 2), Mysore (army 0, unrest 1) and
    Bengal (army 2, no unrest) are Company regions. The wave: Mysore (Bombay's army) first, then Madras; Bengal
    does not revolt. Each army has one commander (seats 1, 2) and enough regiments."""
    r, s = blank(1, 4)
    for region, army in ((BOMBAY, 0), (MYSORE, 0), (MADRAS, 1), (BENGAL, 2)):
        company(s, region, army)
    s.unrest[0, MYSORE], s.unrest[0, MADRAS] = 1, 2
    s.regiments[0] = [6, 6, 6]
    give(s, "officers", 1, 1, col=0)
    give(s, "officers", 2, 1, col=1)
    s.commander[0, :2] = [1, 2]
    s.elephant_at[0], s.elephant_facing[0] = DELHI, BOMBAY
    s.event_cursor[0] = 0
    s.event_stack[0, :2] = [CRISIS_DELHI, TURMOIL_DELHI]  # Crisis, then the back of Turmoil Delhi
    s.event_stack[0, 2:] = [t for t in range(20) if t not in (CRISIS_DELHI, TURMOIL_DELHI)]
    strat = Scripted()
    resolve(s, r, dice(), agents(r, s, strat), draw(s, r, dice(), np.arange(1)))
    assert strat.asked("defend") == [([0], [1]), ([0], [1]), ([0], [2])]  # Bombay, Mysore, then Madras
    assert tally(s, "attacks") == 1 and tally(s, "revolts") == 2 and tally(s, "regions_held") == 3
    assert s.used_regiments[0].tolist() == [4, 2, 0]  # Bombay's: 3 (Delhi's empire 3 + 0) + 1; Madras' 2
    assert s.trophies[0, 1] == 2 and s.trophies[0, 2] == 1


def test_the_attacked_region_does_not_join_its_own_revolt_wave():
    """R-ATTACK (L211): the wave an attack sets off is a revolt in every *other* Company region with unrest. Company
    Bombay (army 0, unrest 1, 6 regiments) is attacked at 2 + 1 = 3 and holds; no other Company region has unrest, so
    the wave is empty: Bombay is not attacked again by its own unrest (that revolt would be asked, counted and use a
    fourth regiment)."""
    r, s = blank(1, 4)
    company(s, BOMBAY, 0)
    company(s, MADRAS, 1)
    s.unrest[0, BOMBAY] = 1
    s.regiments[0] = [6, 6, 0]
    give(s, "officers", 1, 1, col=0)
    s.commander[0, 0] = 1
    strat = Scripted()
    a = agents(r, s, strat)
    ev = Event.of(s, r, [0], CRISIS_DELHI, BOMBAY)
    attack_company(s, r, dice(), a, ev, np.array([BOMBAY]), np.array([2]), attacker=np.array([DELHI]))
    revolt_wave(s, r, dice(), a, ev)
    assert strat.asked("defend") == [([0], [1])]  # the attack only
    assert tally(s, "attacks") == 1 and tally(s, "revolts") == 0 and tally(s, "regions_held") == 1
    assert s.owner[0, BOMBAY] == 0 and s.used_regiments[0].tolist() == [3, 0, 0]


# ---------------------------------------------------------------------------------------- the crisis marker
def test_the_march():
    r, s = blank(6, 4)
    company(s, MADRAS, 1, g=0)
    s.capital[2, PUNJAB] = BOMBAY  # Bombay rules Punjab: its triangle neighbour, so the next clockwise: Delhi
    s.capital[3, [PUNJAB, DELHI]] = BOMBAY  # ... and Delhi too: the next, Maratha (Delhi's, not Bombay's)
    s.capital[4, [MYSORE, HYDERABAD]] = MADRAS  # Madras rules all its neighbours: from Mysore back at Madras
    region = np.array([MADRAS, MARATHA, BOMBAY, BOMBAY, MADRAS, MYSORE])
    shape = np.array([TRIANGLE, CIRCLE, TRIANGLE, TRIANGLE, TRIANGLE, L.NO_SHAPE])
    march(s, r, np.arange(6), region, shape)
    assert s.elephant_at.tolist() == [MADRAS, MARATHA, BOMBAY, BOMBAY, MYSORE, MYSORE]
    assert s.elephant_facing.tolist() == [-1, DELHI, DELHI, MARATHA, MADRAS, BOMBAY]  # no shape: first neighbour


@pytest.mark.parametrize(
    "mode, target, inward",
    [("tail", MARATHA, True), ("tail", DELHI, False), ("tail_or_head", DELHI, True)],
)
def test_a_successful_deployment_into_the_crisis_marker_turns_it_inward(mode, target, inward):
    """L170: the marker points from Maratha at Delhi. Bombay's army (Company Bombay borders both) conquers the
    target; only a deployment into the marker's region (its tail; either end with "tail_or_head") turns it."""
    r, s = blank(1, 4, **{"india.elephant_turns_on": mode})
    company(s, BOMBAY, 0)
    give(s, "officers", 1, 4, col=0)
    s.commander[0, 0] = 1
    s.regiments[0, 0] = 0
    strat = Scripted(deploy=const(target, [0, 4, 0, 0], 0, [False, False, False]))
    d = dice({0: [1] * 7})  # success; nobody dies
    deploy(s, r, d, agents(r, s, strat), 0)
    assert s.owner[0, target] == 0
    expect = (target, -1) if inward else (MARATHA, DELHI)
    assert (s.elephant_at[0], s.elephant_facing[0]) == expect


def test_a_failed_deployment_leaves_the_crisis_marker():
    r, s = blank(1, 4)
    company(s, BOMBAY, 0)
    give(s, "officers", 1, 4, col=0)
    s.commander[0, 0] = 1
    s.regiments[0, 0] = 0
    strat = Scripted(deploy=const(MARATHA, [0, 4, 0, 0], 0, [False, False, False]))
    deploy(s, r, dice({0: [3, 4, 1, 1, 1, 1]}), agents(r, s, strat), 0)
    assert (s.elephant_at[0], s.elephant_facing[0]) == (MARATHA, DELHI)
    turn_inward(s, r, np.arange(1), np.array([BOMBAY]))  # nor does a success elsewhere
    assert (s.elephant_at[0], s.elephant_facing[0]) == (MARATHA, DELHI)


def test_a_lost_region_holding_the_crisis_marker_sends_it_marching():
    """Inward in Bombay when Bombay falls (Leader Bombay, square): the marker marches from Bombay, now sovereign,
    to its square neighbour Hyderabad."""
    r, s = lost_position()
    s.elephant_at[0], s.elephant_facing[0] = BOMBAY, -1
    attack_company(s, r, dice({0: [1, 1]}), agents(r, s), Event.of(s, r, [0], LEADER_BOMBAY), np.array([BOMBAY]),
                   np.array([9]))  # fmt: skip
    assert (s.elephant_at[0], s.elephant_facing[0]) == (BOMBAY, HYDERABAD)


# ------------------------------------------------------------------------------------------- rules and frames
@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"india.storm_table": "both"}, "india.storm_table: expected one of 'seed', 'jc2e'"),
        ({"india.storm_damage_from": 6}, "india.storm_damage_from: need 1 <= storm_damage_from <= storm_sink_from"),
        ({"india.officer_death_on": 0}, "india.officer_death_on: must be a d6 face"),
        ({"india.storms_jc2e.0.face": 2}, "india.storms_jc2e: needs one entry for each face 1..6"),
        ({"map.regions.0.shapes": {"hexagon": "Delhi"}}, "map.regions[0].shapes: unknown shape 'hexagon'"),
        ({"map.regions.0.shapes": {"circle": "Madras"}}, "map.regions[0].shapes: circle marches to 'Madras', not a"),
        ({"map.events.0.shape": "star"}, "map.events[0].shape: expected one of"),
        ({"map.elephant.facing": "Maratha"}, "map.elephant.facing: the crisis marker cannot face the region"),
        ({"india.cascade": "all"}, "india.cascade: expected one of 'chain', 'step', 'none'"),
    ],
)
def test_bad_india_rules_fail_on_one_line(overrides, message):
    with pytest.raises(RulesError, match=re.escape(message)) as err:
        Rules.default().with_overrides(overrides)
    assert "\n" not in str(err.value)


def test_a_region_without_shapes_marches_to_its_first_neighbour():
    r, s = blank(1, 4, **{"map.regions.3.shapes": {}})
    march(s, r, np.arange(1), np.array([BOMBAY]), np.array([SQUARE]))
    assert (s.elephant_at[0], s.elephant_facing[0]) == (BOMBAY, PUNJAB)


def test_frames_report_the_phase():
    res = sim.play(sim.Rules.default(), ["balanced", "random", "balanced", "random", "balanced"], 300, seed=8)
    g, rounds = res.games, res.rounds
    counted = g["company_region_names"].map_elements(lambda x: len(x.split(",")) if x else 0, return_dtype=pl.Int64)
    assert (counted == g["company_regions"]).all() and (g["company_regions"] > 0).any()
    kinds = rounds.select(pl.sum_horizontal([f"events_{k}" for k in L.EVENT_KINDS])).to_series()
    assert (kinds == rounds["events"]).all() and rounds["storm"].is_between(0, 6).all()
    played = rounds.filter(pl.col("storm") > 0)
    table = np.array([4, 2, 1, 2, 3, 4])[played["storm"].to_numpy() - 1]
    survived = ~played["crashed"].to_numpy()
    assert (played["events"].to_numpy()[survived] == table[survived]).all()
    assert (rounds["regions_lost"] + rounds["regions_held"] <= rounds["attacks"] + rounds["revolts"]).all()


# ------------------------------------------------------------------------- phase 9's laws acting in phase 8
def test_sepoy_recruitment_makes_each_unrest_marker_add_two_to_an_attack():
    """Sepoy Recruitment in force (``unrest_attack_bonus`` 1): an attack of 0 on Bombay with 2 unrest is 4 against
    its 3 free pieces and the region is lost; without the law it is 2 and the army holds."""
    for in_force in (False, True):
        r, s = lost_position()
        if in_force:
            s.law_pile[0, r.d.law_names.index("Sepoy Recruitment")] = laws.IN_FORCE
        d = dice({0: [6, 5]} if in_force else {})  # a lost region: the army's other officers roll for death
        attack_company(s, r, d, agents(r, s), Event.of(s, r, [0], 0), np.array([BOMBAY]), np.array([0]))
        d.assert_spent()
        assert (s.owner[0, BOMBAY] < 0) == in_force


def test_war_against_france_failing_lands_a_foreign_invasion():
    """War Against France! failed (2e): the storm die names the targets. Face 2 (the seed's: Bombay's sea) lands at
    Bombay, sovereign at strength 1: an attack of 4 takes it, its orders close and it keeps 4 // 2 = 2. Face 1 (no
    sea) lands nowhere."""
    r, s = blank(2, 4)
    war = r.d.law_names.index("War Against France!")
    bombay_orders = np.asarray(r.d.order_region) == BOMBAY
    open_before = s.order_open[1].copy()
    d = dice({0: [2, 4], 1: [1]})
    laws.apply_effects(s, r, d, agents(r, s), np.full(2, war), np.array([True, True]), "on_fail", SimpleNamespace())
    d.assert_spent()
    assert not s.order_open[0, bombay_orders].any() and s.strength[0, BOMBAY] == 2
    assert (s.order_open[1] == open_before).all() and s.strength[1, BOMBAY] == 1


def test_war_against_france_failed_sets_off_a_revolt_that_rolls_for_the_officers():
    """War Against France! failed (2e): a Foreign Invasion, then the revolt wave (R-ATTACK, L211-L212). Storm face
    2 (the seed's Bombay sea) lands at Company Bombay, undefended: the attack of 4 takes it. The attack sets off a
    revolt in Company Mysore (army 1, unrest 3): army 1's 2 free officers are worth less than 3, so Mysore is lost:
    its commander (seat 1) dies, seat 1's other officer rolls 6 and dies too (officer_death_on 6). The revolt's
    death roll comes from the engine's dice; a revolt wave handed no dice fails there."""
    r, s = blank(1, 4)
    company(s, BOMBAY, 0)
    company(s, MYSORE, 1)
    s.regiments[0] = [0, 0, 3]
    s.unrest[0, MYSORE] = 3
    give(s, "officers", 1, 2, col=1)
    s.commander[0, 1] = 1
    d = dice({0: [2, 4, 6]})
    passes(r, s, "War Against France!", d=d, when="on_fail")
    d.assert_spent()
    assert s.owner[0, BOMBAY] == s.owner[0, MYSORE] == -1
    assert s.officers[0].sum() == 0 and s.commander[0].tolist() == [-1, -1, -1] and s.supply[0, 1] == 12
    assert tally(s, "attacks") == tally(s, "revolts") == 1 and tally(s, "regions_lost") == 2
    assert tally(s, "officers_killed") == 2 and s.stability[0] == 4 - 2


def test_closing_an_order_counts_it_only_if_it_was_open():
    """india._close's contract (R-TURMOIL's tally ``orders_closed``): it closes one order per game and counts the
    ones that were open. Game 0's order is open (closed, counted 1), game 1's closed already (stays closed, counted
    0), game 2 closes nothing (-1). Counting every closing row, open or not, counts game 1 too. The engine's callers
    pass only open orders (northernmost_open), so this is the helper's documented contract, not yet a reachable
    rule outcome."""
    r, s = blank(3, 4)
    o = order(r, "Bombay1")
    s.order_open[1, o] = False
    _close(s, np.arange(3), np.array([o, o, -1]))
    assert not s.order_open[:2, o].any() and s.order_open[2, o]
    assert s.tally[:, TALLY["orders_closed"]].tolist() == [1, 0, 0]


def test_peace_on_a_border_facing_punjab_opens_the_orders_across_it():
    """R-PEACE on a border: the marker points from Delhi at Punjab (region 0). The orders on links across that
    border (Punjab's and Delhi1) open and both sovereign sides gain 1 strength. Reading the facing region as at
    least 1 looks up Delhi's border with itself and opens nothing."""
    r, s = blank(1, 4)
    across = [order(r, "Punjab"), order(r, "Delhi1")]
    s.order_open[0, across] = False
    s.elephant_at[0], s.elephant_facing[0] = DELHI, PUNJAB
    strength = s.strength[0, [PUNJAB, DELHI]].copy()
    peace(s, r, dice(), agents(r, s), Event.of(s, r, [0], PEACE_MADRAS))
    assert s.order_open[0, across].all() and tally(s, "orders_reopened") == 2
    assert s.strength[0, [PUNJAB, DELHI]].tolist() == (strength + 1).tolist()


def test_a_held_region_gives_a_seat_0_commander_his_trophy():
    """R-ATTACK (L213): a held region gives the commander's family ``held_trophies`` (1). Bombay (army 0, no
    regiments) is attacked at 2 by Delhi; seat 0 commands with 2 officers, seat 3 has 1: 3 free pieces hold. The
    commander is seat 0, so his family gains the trophy and Delhi loses ``held_attacker_loss``; reading "has a
    commander" as seat >= 1 gives seat 0 nothing."""
    r, s = blank(1, 4)
    company(s, BOMBAY, 0)
    s.regiments[0, 0] = 0
    give(s, "officers", 0, 2, col=0)
    give(s, "officers", 3, 1, col=0)
    s.commander[0, 0] = 0
    s.strength[0, DELHI] = 2
    strat = Scripted()
    ev = Event.of(s, r, [0], 0)
    attack_company(s, r, dice(), agents(r, s, strat), ev, np.array([BOMBAY]), np.array([2]), attacker=np.array([DELHI]))
    assert strat.asked("defend") == [([0], [0])]  # the commander decides the defence
    assert s.owner[0, BOMBAY] == 0 and s.tally[0, TALLY["regions_held"]] == 1
    assert s.trophies[0].tolist() == [r.india.held_trophies, 0, 0, 0] == [1, 0, 0, 0]
    assert s.strength[0, DELHI] == 2 - r.india.held_attacker_loss


def test_an_attack_of_strength_0_fizzles():
    """R-ATTACK (L211-L213; ``attack_company``: an attack of strength 0 or less fizzles): Bombay (army 0), commanded
    by seat 0 with 2 officers and without unrest, is attacked at 0 by Delhi: nobody is asked to defend, nothing is
    committed, the region is neither held nor lost (no trophy, Delhi keeps its strength) and no attack is counted.
    An attack of 0 taken as an attack (``>= 0``) would be held and give seat 0 a trophy."""
    r, s = blank(1, 4)
    company(s, BOMBAY, 0)
    give(s, "officers", 0, 2, col=0)
    s.commander[0, 0] = 0
    s.strength[0, DELHI] = 2
    assert s.unrest[0, BOMBAY] == 0
    strat = Scripted()
    ev = Event.of(s, r, [0], 0)
    attack_company(s, r, dice(), agents(r, s, strat), ev, np.array([BOMBAY]), np.array([0]), attacker=np.array([DELHI]))
    assert strat.asked("defend") == []
    assert s.owner[0, BOMBAY] == 0 and s.trophies[0].tolist() == [0, 0, 0, 0] and s.strength[0, DELHI] == 2
    assert s.used_officers[0].sum() == 0 and s.used_regiments[0].sum() == 0 and not ev.attacked[0, BOMBAY]
    assert tally(s, "attacks") == tally(s, "regions_held") == tally(s, "regions_lost") == 0


def test_peace_on_a_border_with_presidency_0_strengthens_only_the_sovereign_side():
    """R-PEACE (MAP.md; seed L210-L220): on a border only the non-Company sides gain 1 strength. The Company side is
    held by presidency 0 (Bombay), whose owner number 0 a `owner <= 0` reading would take for sovereign."""
    r, s = blank(1, 4)
    company(s, BOMBAY, 0)
    s.elephant_at[0], s.elephant_facing[0] = MARATHA, BOMBAY
    before = s.strength[0].copy()
    peace(s, r, dice(), agents(r, s), Event.of(s, r, [0], PEACE_MADRAS, MADRAS))
    assert s.strength[0, MARATHA] == before[MARATHA] + 1
    assert s.strength[0, BOMBAY] == 0
    grown = np.flatnonzero(s.strength[0] != before)
    assert grown.tolist() == [MARATHA]


def test_crisis_against_punjab_the_region_numbered_0_is_an_invasion():
    """R-CRISIS (MAP.md; seed L210-L220): the marker's tail Bengal (1) + 3 invades its head Punjab, a region of
    Delhi's empire (1 + 2 + 0 = 3): won, Punjab joins Bengal and the marker marches from the winner, Bengal (circle:
    Maratha). Punjab is region 0: a `b >= 1` test of "the marker is on a border" would take it for a marker turned
    inward and nothing would happen."""
    r, s = blank(1, 4)
    s.elephant_at[:], s.elephant_facing[:] = BENGAL, PUNJAB
    assert s.capital[0, PUNJAB] == DELHI
    crisis(s, r, dice(), agents(r, s), Event.of(s, r, [0], CRISIS_MARATHA, HYDERABAD))
    assert s.capital[0].tolist() == [BENGAL, DELHI, BENGAL, BOMBAY, DELHI, HYDERABAD, MYSORE, MADRAS]
    assert (s.elephant_at[0], s.elephant_facing[0]) == (BENGAL, MARATHA)


def test_windfall_skips_a_presidency_whose_regions_all_lie_outside_the_area():
    """R-WINDFALL with `presidency_in_area`: Windfall Hyderabad's area is Hyderabad, Madras, Mysore, Bombay,
    Maratha. Bengal's home is not there and its one region, Delhi, is not either: its clerks earn nothing; Bombay's
    home is there. Seat 0: 1 clerk in Bombay, 2 in Bengal -> 1 x windfall. A reading that counts any region of the
    area for every presidency would pay Bengal's clerks too."""
    r, s = blank(1, 4, **{"india.windfall_clerks": "presidency_in_area"})
    give(s, "clerks", 0, 1, col=0)
    give(s, "clerks", 0, 2, col=2)
    company(s, DELHI, 2)
    windfall(s, r, dice(), agents(r, s), Event.of(s, r, [0], WINDFALL, HYDERABAD))
    assert r.india.windfall > 0
    assert s.money[0].tolist() == [r.india.windfall, 0, 0, 0]


def test_storm_sink_from_7_means_ships_never_sink():
    """R-STORM (L216) with the documented edge ``storm_sink_from = 7`` ("7: never", default.toml): the rules load and
    three sound ships in a storm rolling 6, 6, 6 are all damaged and none sinks; with ``storm_damage_from = 7`` too,
    the same rolls touch nothing. A ``< 7`` band would reject both files."""
    r, s = blank(1, 5, **{"india.storm_sink_from": 7})
    assert (r.india.storm_damage_from, r.india.storm_sink_from) == (3, 7)
    s.shipyards[0, 1] = 3
    s.yard_ships[0, 1, 0] = 3  # seat 1's three ships, all in Bombay's sea
    d = dice({0: [6, 6, 6]})
    batter_ships(s, r, d, np.array([0]), np.array([[True, False, False]]))
    d.assert_spent()
    assert s.yard_ships[0, 1, 0] == 3 and s.yard_damaged[0, 1, 0] == 3
    assert s.tally[0, TALLY["ships_damaged"]] == 3 and s.tally[0, TALLY["ships_sunk"]] == 0

    r, s = blank(1, 5, **{"india.storm_damage_from": 7, "india.storm_sink_from": 7})
    s.shipyards[0, 1] = 3
    s.yard_ships[0, 1, 0] = 3
    d = dice({0: [6, 6, 6]})
    batter_ships(s, r, d, np.array([0]), np.array([[True, False, False]]))
    d.assert_spent()
    assert s.yard_ships[0, 1, 0] == 3 and s.yard_damaged[0, 1, 0] == 0
    assert s.tally[0, TALLY["ships_damaged"]] == 0 and s.tally[0, TALLY["ships_sunk"]] == 0
