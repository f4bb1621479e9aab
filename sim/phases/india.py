"""Phase 8, India lives its own life (R-INDIA, R-STORM, D-EVENTS; seed 000 L210-L220; MAP.md, John Company 2e's India).

First the storm die (L214-L220, D-STORM-TABLE ``india.storm_table``): its face names the seas whose family-yard ships
roll for damage and the number of events. Then that many event tiles are drawn from the game's own shuffled stack
(``state.event_stack``, hidden; reshuffled when spent), each hitting the region on the back of the next tile or its
own (D-EVENT-REGION ``india.event_region``), and each is resolved by the handler of its kind:

- Turmoil: the hit region's northernmost open order closes, or the region cascades (``sim.india.cascade``,
  D-CASCADE ``india.cascade``);
- Windfall: ``india.windfall`` £ per clerk of every presidency present in the hit region and its neighbours
  (D-WINDFALL ``india.windfall_clerks``);
- Leader: a sovereign region grows, a dominated one rebels against its capital, a Company region rebels against
  the Company (strength = modifier + unrest);
- Peace: where the crisis marker stands on a border, the orders across it open and the non-Company regions on
  both sides grow; inside a region, all its orders open and its unrest goes; then the marker marches;
- Shuffle: the marker marches and the stack is reshuffled (D-SHUFFLE ``india.shuffle``);
- Crisis: the marker's tail attacks its head: a dominated tail rebels against its capital, a sovereign tail
  invades (its empire's strength + modifier against the defender's empire; D-EMPIRES ``india.max_empires``), a
  Company head is invaded (+ its unrest); a marker turned inward into a Company region: a rebellion there; then the
  marker marches;
- Foreign Invasion: the storm die names the target(s) (a face without seas: the hit region), each attacked at
  1d6 (+ unrest on a Company region); a sovereign region taken loses its orders and keeps
  ``india.invasion_keep`` of the attack (D-INVASION-KEEP). War Against France! failed (phase 9, ``sim/laws.py``)
  lands one too (``french_landing``).

The attacks these events make on Company regions, and the revolt wave after each event with one, are R-ATTACK's
(``attacks.py``).
"""

from __future__ import annotations

import numpy as np

from .. import firms as firm_rules
from .. import kernels, ledger
from .. import layout as L
from ..agents import Agents
from ..dice import Chance
from ..india import batter_ships, close_northernmost, crisis_fights, leader_rises, march, open_orders, overrun
from ..rules import Rules
from ..state import TALLY, State
from .attacks import Event, P, attack_company, revolt_wave


def india(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Phase 8: the storm, then the events its face draws, one at a time in every game still running."""
    live = np.flatnonzero(~state.done)
    if live.size == 0:
        return
    deal(state, rules, dice, live[state.event_cursor[live] < 0])
    face = storm(state, rules, dice, live)
    n_events = rules.d.storm_events[face - 1]
    for i in range(int(n_events.max(initial=0))):
        rows = live[(i < n_events) & ~state.done[live]]  # a crash in this phase ends the game's events
        if rows.size == 0:
            break
        resolve(state, rules, dice, agents, draw(state, rules, dice, rows))


# ------------------------------------------------------------------------------------------------- the storm
def storm(state: State, rules: Rules, dice: Chance, rows: np.ndarray) -> np.ndarray:
    """R-INDIA, R-STORM: roll the storm die (L214-L220 or 2e's faces, ``india.storm_table``); the family-yard ships in
    the seas its face names roll for damage. Returns int[m] faces (tally ``storm``)."""
    face = dice.d6(rows, 1)[:, 0].astype(np.int64)
    state.tally[rows, TALLY["storm"]] = face
    seas = rules.d.storm_seas[face - 1]
    batter_ships(state, rules, dice, rows, seas)
    firm_rules.batter_ships(state, rules, dice, rows, seas)  # firms' ships
    return face


# -------------------------------------------------------------------------------------------- the tile stack
def deal(state: State, rules: Rules, dice: Chance, rows: np.ndarray) -> None:
    """Shuffle every tile into a new stack for games ``rows`` (at their first India phase, and when spent)."""
    if rows.size == 0:
        return
    reorder(state, rules, rows, dice.uniform(rows, len(rules.d.tile_kind)))
    state.event_block[rows] = 0


def reorder(state: State, rules: Rules, rows: np.ndarray, u: np.ndarray) -> None:
    """Put the stack of games ``rows`` in the order of the keys ``u[m, K]`` (ties in stack order) and draw from its
    top: the next tile's back shows (``deal``, ``restack``)."""
    if kernels.use(state.n_games):
        stack, cursor, nxt = state.event_stack, state.event_cursor, state.event_next
        _reorder_kernel(stack, cursor, nxt, np.asarray(rows, dtype=np.int64), u, rules.d.tile_region)
        return
    order = np.argsort(u, axis=1, kind="stable")
    state.event_stack[rows] = state.event_stack[rows[:, None], order]
    state.event_cursor[rows] = 0
    state.event_next[rows] = rules.d.tile_region[state.event_stack[rows, 0]]


@kernels.kernel
def _reorder_kernel(event_stack, event_cursor, event_next, rows, u, tile_region):
    """``reorder`` game by game: a stable sort of each game's keys."""
    for i in range(rows.shape[0]):
        g = rows[i]
        order = np.argsort(u[i], kind="mergesort")
        stack = event_stack[g].copy()
        for j in range(order.shape[0]):
            event_stack[g, j] = stack[order[j]]
        event_cursor[g] = 0
        event_next[g] = tile_region[event_stack[g, 0]]


def draw(state: State, rules: Rules, dice: Chance, rows: np.ndarray) -> Event:
    """R-TILES: draw the next tile in games ``rows`` (a spent stack is reshuffled). The region it hits is the one on the
    back of the next tile (2e) or its own (``india.event_region``); ``event_next`` shows the next tile's back."""
    d = rules.d
    if kernels.use(state.n_games):
        rows = np.asarray(rows, dtype=np.int64)
        tile, spent = np.zeros(rows.size, np.int64), np.zeros(rows.size, bool)
        _draw_kernel(state.event_stack, state.event_cursor, rows, tile, spent)
        deal(state, rules, dice, rows[spent])
        ev = Event.blank(state, rows)
        _show_kernel(
            state.event_stack, state.event_cursor, state.event_next, rows, tile, d.tile_region, d.tile_modifier,
            d.tile_shape, rules.india.event_region == "next_tile", ev.tile, ev.region, ev.modifier, ev.shape,
        )  # fmt: skip
        return ev
    cur = state.event_cursor[rows].astype(np.int64)
    tile = state.event_stack[rows, cur].astype(np.int64)
    cur += 1
    spent = cur >= len(d.tile_kind)
    state.event_cursor[rows] = np.where(spent, 0, cur)
    deal(state, rules, dice, rows[spent])
    nxt = d.tile_region[state.event_stack[rows, state.event_cursor[rows]]]
    state.event_next[rows] = nxt
    ev = Event.blank(state, rows)
    ev.tile[rows] = tile
    ev.region[rows] = nxt if rules.india.event_region == "next_tile" else d.tile_region[tile]
    ev.modifier[rows] = d.tile_modifier[tile]
    ev.shape[rows] = d.tile_shape[tile]
    return ev


@kernels.kernel
def _draw_kernel(event_stack, event_cursor, rows, tile, spent):
    """``draw`` game by game up to the reshuffle of spent stacks: the tile on top is drawn (``tile``), the cursor moves
    on, back to 0 where the stack is ``spent``."""
    k = event_stack.shape[1]
    for i in range(rows.shape[0]):
        g = rows[i]
        cur = np.int64(event_cursor[g])
        tile[i] = event_stack[g, cur]
        cur += 1
        spent[i] = cur >= k
        event_cursor[g] = 0 if spent[i] else cur


@kernels.kernel
def _show_kernel(
    event_stack, event_cursor, event_next, rows, tile, tile_region, tile_modifier, tile_shape, next_tile, ev_tile,
    ev_region, ev_modifier, ev_shape,
):  # fmt: skip
    """``draw`` game by game after the reshuffle: the next tile's back shows; the event's tile, region (the next
    tile's back, or with ``next_tile`` False its own), modifier and shape."""
    for i in range(rows.shape[0]):
        g, t = rows[i], tile[i]
        nxt = tile_region[event_stack[g, event_cursor[g]]]
        event_next[g] = nxt
        ev_tile[g] = t
        ev_region[g] = nxt if next_tile else tile_region[t]
        ev_modifier[g] = tile_modifier[t]
        ev_shape[g] = tile_shape[t]


def restack(state: State, rules: Rules, dice: Chance, rows: np.ndarray) -> None:
    """The Shuffle tile's reshuffle (``india.shuffle``): "all" shuffles every tile; "discard_on_top" (2e as
    reported) shuffles the tiles drawn since the last reshuffle onto the top and the rest, the Shuffle tile among
    them, below."""
    if rows.size == 0:
        return
    k = len(rules.d.tile_kind)
    u = dice.uniform(rows, k)
    drawn = np.zeros(rows.size, dtype=np.int64)
    if rules.india.shuffle == "discard_on_top":
        drawn = np.maximum(state.event_cursor[rows].astype(np.int64) - 1, 0)  # the Shuffle tile was the last
        u = u + (np.arange(k)[None, :] >= drawn[:, None])
    reorder(state, rules, rows, u)
    state.event_block[rows] = drawn  # the drawn tiles above, the rest below


# ------------------------------------------------------------------------------------------------ the events
def french_landing(state: State, rules: Rules, dice: Chance, agents: Agents, rows: np.ndarray) -> None:
    """War Against France! failed (2e, the law deck): a Foreign Invasion of the home regions the storm die
    names (a face without seas: no landing), then the revolt wave, as the Foreign Invasion tile does here."""
    ev = Event.blank(state, rows)
    ev.region[:] = -1
    foreign_invasion(state, rules, dice, agents, ev)
    revolt_wave(state, rules, dice, agents, ev)


def resolve(state: State, rules: Rules, dice: Chance, agents: Agents, ev: Event) -> None:
    """Resolve the drawn tiles by kind, then the revolt wave of every game where a Company region was attacked."""
    kind = rules.d.tile_kind[ev.tile[ev.rows]]
    count_events(state, ev.rows, kind)  # each game's own, before its handler
    by_kind = ev.rows[np.argsort(kind, kind="stable")]  # the games of each kind together, in order
    ends = np.cumsum(np.bincount(kind, minlength=len(L.EVENT_KINDS)))
    start = 0
    for k in range(len(L.EVENT_KINDS)):
        end = int(ends[k])
        if end > start:
            HANDLERS[k](state, rules, dice, agents, ev.at(by_kind[start:end].copy()))
        start = end
    revolt_wave(state, rules, dice, agents, ev)


EVENT_TALLY = np.array([TALLY[f"events_{name}"] for name in L.EVENT_KINDS], dtype=np.int64)  # per event kind


def count_events(state: State, rows: np.ndarray, kind: np.ndarray) -> None:
    """Count an event of kind ``kind[m]`` (``layout.EVENT_KINDS``) in each of the distinct games ``rows``."""
    if kernels.use(state.n_games):
        _count_events(state.tally, np.asarray(rows, dtype=np.int64), kind, TALLY["events"], EVENT_TALLY)
        return
    state.tally[rows, TALLY["events"]] += 1
    for k in range(len(L.EVENT_KINDS)):
        sel = kind == k
        if sel.any():
            state.tally[rows[sel], EVENT_TALLY[k]] += 1


@kernels.kernel
def _count_events(tally, rows, kind, col, kind_col):
    """``count_events`` game by game: an event, and one of its kind (``kind_col[kind]``)."""
    for i in range(rows.shape[0]):
        tally[rows[i], col] += 1
        tally[rows[i], kind_col[kind[i]]] += 1


def turmoil(state: State, rules: Rules, dice: Chance, agents: Agents, ev: Event) -> None:
    """R-TURMOIL: the hit region's northernmost open order closes; with none open, the region cascades."""
    close_northernmost(state, rules, ev.rows, ev.region[ev.rows])


def windfall(state: State, rules: Rules, dice: Chance, agents: Agents, ev: Event) -> None:
    """R-WINDFALL: every family earns ``india.windfall`` £ per clerk it has in a presidency present in the area (the
    hit region and its neighbours): its home region lies there, or (``presidency_in_area``) one of its regions."""
    d = rules.d
    rows, x = ev.rows, ev.region[ev.rows]
    amounts = np.zeros(state.money.shape, dtype=np.int64)
    in_area = rules.india.windfall_clerks == "presidency_in_area"
    if kernels.use(state.n_games):
        _windfall_kernel(state.owner, state.clerks, rows, x, d.adjacent, d.home, in_area, rules.india.windfall, amounts)
    else:
        area = d.adjacent[x] | (np.arange(len(d.regions))[None, :] == x[:, None])  # [m, R]
        present = area[:, d.home]  # [m, P]
        if in_area:
            owned = state.owner[rows][:, :, None] == np.arange(P)[None, None, :]  # [m, R, P]
            present |= (owned & area[:, :, None]).any(axis=1)
        amounts[rows] = rules.india.windfall * (state.clerks[rows] * present[:, None, :]).sum(axis=2)
    ledger.families(state, "windfall", amounts)


@kernels.kernel
def _windfall_kernel(owner, clerks, rows, region, adjacent, home, in_area, per_clerk, amounts):
    """R-WINDFALL: ``windfall``'s amounts game by game (rows are distinct games): a presidency is present when its
    home region (or, ``in_area``, one of its regions) is the hit region or a neighbour."""
    for i in range(rows.shape[0]):
        g, x = rows[i], region[i]
        for p in range(home.shape[0]):
            present = adjacent[x, home[p]] or home[p] == x
            for r in range(owner.shape[1]):
                if in_area and not present and owner[g, r] == p and (adjacent[x, r] or r == x):
                    present = True
            if present:
                for s in range(clerks.shape[1]):
                    amounts[g, s] += per_clerk * clerks[g, s, p]


def leader(state: State, rules: Rules, dice: Chance, agents: Agents, ev: Event) -> None:
    """R-LEADER: a sovereign region gains 1 strength; a dominated one rebels against its capital (strength +
    modifier); a Company region rebels against the Company (modifier + unrest)."""
    rows, x = ev.rows, ev.region[ev.rows]
    company = leader_rises(state, rules, rows, x, ev.modifier[rows])
    c = ev.only(company)
    attack_company(state, rules, dice, agents, c, x[company], ev.modifier[c.rows])


def peace(state: State, rules: Rules, dice: Chance, agents: Agents, ev: Event) -> None:
    """R-PEACE where the crisis marker stands: on a border, every order on a link across it opens and the
    non-Company regions on both sides gain 1 strength; inside a region, all its orders open and its unrest goes.
    Then the marker marches."""
    d = rules.d
    rows = ev.rows
    if kernels.use(state.n_games):
        _peace_kernel(
            state.order_open, state.tally, state.unrest, state.strength, state.owner, state.elephant_at,
            state.elephant_facing, rows, d.order_in_region, d.border_orders, TALLY["orders_reopened"],
        )  # fmt: skip
    else:
        a, b = state.elephant_at[rows].astype(np.int64), state.elephant_facing[rows].astype(np.int64)
        inside = b < 0
        orders = np.where(inside[:, None], d.order_in_region.T[a], d.border_orders[a, np.maximum(b, 0)])
        open_orders(state, rows, orders)
        state.unrest[rows[inside], a[inside]] = 0
        border = np.flatnonzero(~inside)
        for side in (a[border], b[border]):
            grow = state.owner[rows[border], side] < 0
            state.strength[rows[border][grow], side[grow]] += 1
    march(state, rules, rows, ev.region[rows], ev.shape[rows])


@kernels.kernel
def _peace_kernel(
    order_open, tally, unrest, strength, owner, elephant_at, elephant_facing, rows, order_in_region, border_orders, col
):
    """R-PEACE: ``peace`` game by game before the march (rows are distinct games): the orders where the marker
    stands open (counted), then inside a region its unrest goes, on a border the non-Company sides gain 1."""
    for i in range(rows.shape[0]):
        g = rows[i]
        a, b = elephant_at[g], elephant_facing[g]
        for o in range(order_open.shape[1]):
            if (order_in_region[o, a] if b < 0 else border_orders[a, b, o]) and not order_open[g, o]:
                order_open[g, o] = True
                tally[g, col] += 1
        if b < 0:
            unrest[g, a] = 0
        else:
            for side in (a, b):
                if owner[g, side] < 0:
                    strength[g, side] += 1


def shuffle(state: State, rules: Rules, dice: Chance, agents: Agents, ev: Event) -> None:
    """R-SHUFFLE: the crisis marker marches, then the stack is reshuffled (``india.shuffle``)."""
    march(state, rules, ev.rows, ev.region[ev.rows], ev.shape[ev.rows])
    restack(state, rules, dice, ev.rows)


def crisis(state: State, rules: Rules, dice: Chance, agents: Agents, ev: Event) -> None:
    """R-CRISIS where the crisis marker stands (MAP.md): its tail attacks its head. A dominated tail rebels against
    its capital; a sovereign tail invades a sovereign head (empire against empire) or a Company head (its empire's
    strength + modifier + the head's unrest). Turned inward into a Company region (or with a Company tail), the
    region rebels against the Company (modifier + unrest). A head in the tail's own empire: no fight. Then the
    marker marches: from the tail after a won invasion (2e), else from the hit region."""
    rows = ev.rows
    hit, region, strength, attacker, marched_from = crisis_fights(
        state, rules, rows, ev.region[rows], ev.modifier[rows]
    )
    # attacks on the Company: its region with the marker's tail (or the marker inside), or its head (a game has
    # one or the other: one attack)
    attack_company(state, rules, dice, agents, ev.only(hit), region[hit], strength[hit], attacker[hit])
    going = ~state.done[rows]
    march(state, rules, rows[going], marched_from[going], ev.shape[rows[going]])


def foreign_invasion(state: State, rules: Rules, dice: Chance, agents: Agents, ev: Event) -> None:
    """R-INVASION: a roll of the storm die names the targets (the home regions of the seas its face hits,
    Bombay, Madras, Bengal in turn; a face without seas: the hit region); each is attacked at 1d6. A Company target
    is defended (+ its unrest; lost: ``india.lost_region_strength``). A sovereign target falls to an attack above
    its empire's strength: its orders close (cascading if none was open), a capital's empire shatters, a dominated
    region breaks free, and it keeps ``india.invasion_keep`` of the attack as strength (rounded down)."""
    rows = ev.rows
    targets, count = invasion_targets(state, rules, dice.d6(rows, 1)[:, 0], ev.region[rows])
    for k in range(int(count.max(initial=0))):  # games do not meet: the k-th target of every game at once
        sel = np.flatnonzero((k < count) & ~state.done[rows])
        if sel.size == 0:
            continue
        rr, t = rows[sel], targets[sel, k]
        attack = dice.d6(rr, 1)[:, 0].astype(np.int64)
        company = state.owner[rr, t] >= 0
        c = ev.at(rr[company])
        attack_company(state, rules, dice, agents, c, t[company], attack[company])
        s = np.flatnonzero(~company)
        overrun(state, rules, rr[s], t[s], attack[s])


def invasion_targets(state: State, rules: Rules, face: np.ndarray, region: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R-INVASION's targets for the storm die's ``face[m]``: the home regions of the seas it hits (Bombay, Madras,
    Bengal in turn), or without seas the hit region ``region[m]`` (-1: none). Returns (targets int[m, P + 1], each
    game's in order from column 0, count int[m])."""
    d = rules.d
    if kernels.use(state.n_games):
        targets, count = np.zeros((face.size, P + 1), dtype=np.int64), np.zeros(face.size, dtype=np.int64)
        _invasion_targets(
            np.asarray(face, np.int64), np.asarray(region, np.int64), d.storm_seas, d.home, targets, count
        )
        return targets, count
    seas = d.storm_seas[face.astype(np.int64) - 1]  # [m, P]
    hit = np.concatenate([seas, (~seas.any(axis=1) & (region >= 0))[:, None]], axis=1)  # region -1: none
    targets = np.concatenate([np.broadcast_to(d.home[:P], (face.size, P)), region[:, None]], axis=1)
    turn = np.sort(np.where(hit, np.arange(P + 1), P + 1), axis=1)  # each game's targets in order
    return np.take_along_axis(targets, np.minimum(turn, P), axis=1).astype(np.int64), hit.sum(axis=1)


@kernels.kernel
def _invasion_targets(face, region, storm_seas, home, targets, count):
    """``invasion_targets`` row by row."""
    for i in range(face.shape[0]):
        seas = storm_seas[face[i] - 1]
        for p in range(seas.shape[0]):
            if seas[p]:
                targets[i, count[i]] = home[p]
                count[i] += 1
        if count[i] == 0 and region[i] >= 0:
            targets[i, 0] = region[i]
            count[i] = 1


HANDLERS = {
    L.E_CRISIS: crisis,
    L.E_LEADER: leader,
    L.E_TURMOIL: turmoil,
    L.E_WINDFALL: windfall,
    L.E_PEACE: peace,
    L.E_SHUFFLE: shuffle,
    L.E_INVASION: foreign_invasion,
}
