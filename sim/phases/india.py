"""Phase 8, India lives its own life (R-INDIA, D-EVENTS; seed 000 L210-L220; MAP.md, John Company 2e's India).

First the storm die (L214-L220, ``india.storm_table``): its face names the seas whose family-yard ships roll for
damage and the number of events. Then that many event tiles are drawn from the game's own shuffled stack
(``state.event_stack``, hidden; reshuffled when spent) and each is resolved by the handler of its kind:

- Turmoil: the hit region's northernmost open order closes, or the region cascades (``sim.india.cascade``);
- Windfall: 1 £ per clerk of every presidency present in the hit region and its neighbours;
- Leader: a sovereign region grows, a dominated one rebels against its capital, a Company region rebels against
  the Company (strength = modifier + unrest);
- Peace: where the crisis marker stands on a border, the orders across it open and the non-Company regions on
  both sides grow; inside a region, all its orders open and its unrest goes; then the marker marches;
- Shuffle: the marker marches and the stack is reshuffled (``india.shuffle``);
- Crisis: the marker's tail attacks its head: a dominated tail rebels against its capital, a sovereign tail
  invades (its empire's strength + modifier against the defender's empire), a Company head is invaded
  (+ its unrest); a marker turned inward into a Company region: a rebellion there; then the marker marches;
- Foreign Invasion: the storm die names the target(s) (a face without seas: the hit region), each attacked at
  1d6 (+ unrest on a Company region); a sovereign region taken loses its orders and keeps half the attack.

Attacks on Company regions (L211-L213): the army defends with the troops it did not use this round (the
commander's decision ``defend``: pieces worth at least the attack, ties to the Company); it holds or the region
is lost (commander and governor die, half the commander's trophies back, each officer dies on a 6, its orders
close, sovereign at strength 1, stability -1, which can crash the Company: the game then ends here). One attack
sets off a revolt in every other Company region with unrest, at strength = its unrest, Bombay's army first.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .. import firms as firm_rules
from .. import kernels, laws, ledger
from .. import layout as L
from ..agents import Agents
from ..board import vacate_governor
from ..dice import Chance
from ..india import (
    batter_ships,
    close_all,
    close_northernmost,
    crisis_fights,
    leader_rises,
    march,
    open_orders,
    overrun,
    weaken,
)
from ..reduce import any_last
from ..rules import Rules
from ..state import TALLY, State
from .accounts import crash
from .military import settle_army

P = L.PRESIDENCIES


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
@dataclass(frozen=True)
class Event:
    """One event in games ``rows``; the other arrays are full-batch (valid at ``rows``)."""

    rows: np.ndarray  # int[m] games the event happens in
    tile: np.ndarray  # int[G] the tile drawn (index into rules.map.events)
    region: np.ndarray  # int[G] the region it hits
    modifier: np.ndarray  # int[G] the tile's modifier
    shape: np.ndarray  # int[G] the tile's shape (layout.SHAPES index, NO_SHAPE)
    attacked: np.ndarray  # bool[G, R] Company regions this event attacked (their revolts are not set off again)

    @classmethod
    def blank(cls, state: State, rows: np.ndarray) -> Event:
        g, r = state.owner.shape

        def z():
            return np.zeros(g, dtype=np.int64)

        return cls(np.asarray(rows, dtype=np.int64), z(), z(), z(), np.full(g, L.NO_SHAPE), np.zeros((g, r), bool))

    @classmethod
    def of(cls, state: State, rules: Rules, rows, tile: int, region: int | None = None) -> Event:
        """Tile ``tile`` hitting ``region`` (default: its own) in games ``rows`` (for hand-built positions)."""
        d = rules.d
        ev = cls.blank(state, np.asarray(rows))
        ev.tile[ev.rows] = tile
        ev.region[ev.rows] = d.tile_region[tile] if region is None else region
        ev.modifier[ev.rows] = d.tile_modifier[tile]
        ev.shape[ev.rows] = d.tile_shape[tile]
        return ev

    def only(self, mask: np.ndarray) -> Event:
        return self.at(self.rows[mask])

    def at(self, rows: np.ndarray) -> Event:
        """The same event in games ``rows`` (the full-batch arrays shared)."""
        return Event(rows, self.tile, self.region, self.modifier, self.shape, self.attacked)


def attack_unrest(state: State, rules: Rules, rows: np.ndarray, region: np.ndarray) -> np.ndarray:
    """int[m]: what a Company region's unrest adds to an attack on it (L211): 1 per unrest marker, plus the laws'
    ``unrest_attack_bonus`` per marker while one is in force (Sepoy Recruitment)."""
    unrest = state.unrest[rows, region].astype(np.int64)
    if not unrest.any():  # nothing to add: the laws need not be read
        return unrest
    return unrest * (1 + laws.modifier(state, rules, "unrest_attack_bonus", rows))


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


# ------------------------------------------------------------------------------------- attacks on the Company
def attack_company(
    state: State,
    rules: Rules,
    dice: Chance,
    agents: Agents,
    ev: Event,
    region: np.ndarray,
    strength: np.ndarray,
    attacker: np.ndarray | None = None,
    tally: str = "attacks",
) -> None:
    """R-ATTACK: an attack of ``strength[m]`` on Company region ``region[m]`` in games ``ev.rows`` (R-INDIA, L211-L213).

    The army of the region's presidency defends with the officers and regiments it did not use this round: if
    they are worth at least the attack, its commander (else Military Affairs, else the Chairman) commits pieces
    worth at least the attack (decision ``defend``; they are used from then on) and the region holds: a sovereign
    ``attacker`` loses ``held_attacker_loss`` strength, the commander's family gains ``held_trophies``. Otherwise
    the region is lost (``lose_region``). The region's unrest adds to ``strength`` (``attack_unrest``; a revolt is
    an attack of strength 0 plus its unrest). An attack of strength 0 or less fizzles."""
    rows = ev.rows
    if rows.size == 0:
        return
    attacker = np.full(rows.size, -1) if attacker is None else attacker
    if kernels.use(state.n_games):  # the unrest added there
        region, strength = np.asarray(region, dtype=np.int64), np.asarray(strength, dtype=np.int64)
        _attack_by_kernels(state, rules, dice, agents, ev, region, strength, attacker, tally)
        return
    strength = np.asarray(strength, dtype=np.int64) + attack_unrest(state, rules, rows, region)
    ok = ~state.done[rows] & (state.owner[rows, region] >= 0) & (strength >= 1)
    rows, region, strength, attacker = rows[ok], region[ok], strength[ok], attacker[ok]
    if rows.size == 0:
        return
    g, n = state.n_games, state.n_players
    ind = rules.india
    seats = np.arange(n)[None, :]
    army = state.owner[rows, region].astype(np.int64)
    ev.attacked[rows, region] = True
    state.tally[rows, TALLY[tally]] += 1
    free_off = np.maximum(
        state.officers[rows[:, None], seats, army[:, None]] - state.used_officers[rows[:, None], seats, army[:, None]],
        0,
    )
    free_reg = np.maximum(state.regiments[rows, army] - state.used_regiments[rows, army], 0)
    holds = free_off.sum(axis=1) + free_reg >= strength

    # the defence: pieces worth at least the attack
    cmd = state.commander[rows, army].astype(np.int64)
    decider = np.where(cmd >= 0, cmd, state.office[rows, L.MILITARY])
    decider = np.where(decider >= 0, decider, state.office[rows, L.CHAIRMAN]).astype(np.int64)
    decider = np.where(holds, decider, -1)

    def full(values, shape=()):
        out = np.zeros((g, *shape), dtype=np.int64)
        out[rows] = values
        return out

    legal = {
        "army": full(army),
        "region": full(region),
        "attack": full(strength),
        "officers": full(free_off, shape=(n,)),
        "regiments": full(free_reg),
    }
    committed_off = np.zeros((g, n), dtype=np.int64)
    committed_reg = np.zeros(g, dtype=np.int64)
    asked = np.full(g, -1, dtype=np.int64)
    asked[rows] = decider
    agents.ask("defend", state, asked, legal, (committed_off, committed_reg), check_defence)
    auto = holds & (decider < 0)
    if auto.any():  # nobody to decide: the least defence, regiments first
        off, reg = minimal_defence(free_off[auto], free_reg[auto], strength[auto], np.full(int(auto.sum()), -1))
        committed_off[rows[auto]], committed_reg[rows[auto]] = off, reg
    h = np.flatnonzero(holds)
    hr, ha = rows[h], army[h]
    state.used_officers[hr[:, None], seats, ha[:, None]] += committed_off[hr].astype(np.int32)
    state.used_regiments[hr, ha] += committed_reg[hr].astype(np.int32)
    hit = attacker[h] >= 0
    weaken(state, hr[hit], attacker[h][hit], ind.held_attacker_loss)
    has_cmd = cmd[h] >= 0
    state.trophies[hr[has_cmd], cmd[h][has_cmd]] += ind.held_trophies
    state.tally[hr, TALLY["regions_held"]] += 1
    lost = np.flatnonzero(~holds)
    lose_region(state, rules, dice, agents, rows[lost], region[lost], army[lost], ev.shape[rows[lost]])


def check_defence(answer, lg, obs):
    """The decision ``defend``'s check: unused pieces, worth at least the attack."""
    off, reg = answer
    bad = (off < 0).any(axis=1) | (off > lg.officers).any(axis=1) | (reg < 0) | (reg > lg.regiments)
    bad |= off.sum(axis=1) + reg < lg.attack
    return bad, "the defence must commit unused officers and regiments worth at least the attack"


def _attack_by_kernels(
    state: State,
    rules: Rules,
    dice: Chance,
    agents: Agents,
    ev: Event,
    region: np.ndarray,
    strength: np.ndarray,
    attacker: np.ndarray,
    tally: str,
) -> None:
    """``attack_company``'s bookkeeping done by two kernels around the decision ``defend``."""
    g, n = state.n_games, state.n_players
    ind = rules.india
    legal = {k: np.zeros((g, n) if k == "officers" else g, dtype=np.int64) for k in DEFENCE_LEGAL}
    asked = np.full(g, -1, dtype=np.int64)
    rows = ev.rows.astype(np.int64)
    outcome = _attack_kernel(
        state.done, state.owner, state.officers, state.used_officers, state.regiments, state.used_regiments,
        state.commander, state.office, ev.attacked, state.tally, state.unrest, state.law_pile,
        rules.d.law_mod[:, laws.MOD["unrest_attack_bonus"]].astype(np.int64), laws.IN_FORCE, rows, region, strength,
        TALLY[tally], L.MILITARY, L.CHAIRMAN, legal["army"], legal["region"], legal["attack"], legal["officers"],
        legal["regiments"], asked,
    )  # fmt: skip
    if not outcome.any():  # every attack fizzled
        return
    committed_off = np.zeros((g, n), dtype=np.int64)
    committed_reg = np.zeros(g, dtype=np.int64)
    agents.ask("defend", state, asked, legal, (committed_off, committed_reg), check_defence)
    auto = rows[outcome == HELD_BY_RULE]
    if auto.size:  # nobody to decide: the least defence, regiments first
        off, reg = legal["officers"][auto], legal["regiments"][auto]
        committed_off[auto], committed_reg[auto] = minimal_defence(
            off, reg, legal["attack"][auto], np.full(auto.size, -1)
        )
    _held_kernel(
        state.used_officers, state.used_regiments, state.strength, state.trophies, state.commander, state.tally,
        rows, outcome, legal["army"], attacker.astype(np.int64), committed_off, committed_reg,
        ind.held_attacker_loss, ind.held_trophies, TALLY["regions_held"],
    )  # fmt: skip
    lost = outcome == LOST
    if lost.any():
        lr = rows[lost]
        lose_region(state, rules, dice, agents, lr, region[lost], legal["army"][lr], ev.shape[lr])


NOT_ATTACKED, LOST, HELD, HELD_BY_RULE = range(4)  # outcomes of an attack (``_attack_kernel``)
DEFENCE_LEGAL = ("army", "region", "attack", "officers", "regiments")  # the decision ``defend``'s legal arrays


@kernels.kernel
def _attack_kernel(
    done, owner, officers, used_officers, regiments, used_regiments, commander, office, attacked, tally, unrest,
    law_pile, unrest_bonus, in_force, rows, region, strength, col, military, chairman, army, at, attack,
    free_officers, free_regiments, asked
):  # fmt: skip
    """``attack_company`` game by game up to the decision (rows are distinct games): a running game's Company region
    attacked at strength 1 or more with its unrest (``attack_unrest``: the laws in force add ``unrest_bonus`` per
    marker) is marked attacked and counted; its army's unused pieces (``free_officers``, ``free_regiments``),
    army, region and attack go into the decision's full-batch arrays; a defence that holds is asked of the
    commander, else Military Affairs, else the Chairman (``asked``). Returns int[m] each attack's outcome:
    NOT_ATTACKED, LOST, HELD (asked) or HELD_BY_RULE (nobody to ask)."""
    outcome = np.zeros(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        g, x = rows[i], region[i]
        a, force = owner[g, x], strength[i]
        if unrest[g, x] > 0:
            per = 1
            for law in range(unrest_bonus.shape[0]):
                if unrest_bonus[law] != 0 and law_pile[g, law] == in_force:
                    per += unrest_bonus[law]
            force += unrest[g, x] * per
        if done[g] or a < 0 or force < 1:
            continue
        attacked[g, x] = True
        tally[g, col] += 1
        army[g], at[g], attack[g] = a, x, force
        free = 0
        for s in range(officers.shape[1]):
            free_officers[g, s] = max(officers[g, s, a] - used_officers[g, s, a], 0)
            free += free_officers[g, s]
        free_regiments[g] = max(regiments[g, a] - used_regiments[g, a], 0)
        if free + free_regiments[g] < force:
            outcome[i] = LOST
            continue
        decider = commander[g, a]
        if decider < 0:
            decider = office[g, military]
        if decider < 0:
            decider = office[g, chairman]
        asked[g] = decider
        outcome[i] = HELD if decider >= 0 else HELD_BY_RULE
    return outcome


@kernels.kernel
def _held_kernel(
    used_officers, used_regiments, strength, trophies, commander, tally, rows, outcome, army, attacker, committed_off,
    committed_reg, attacker_loss, held_trophies, col
):  # fmt: skip
    """``attack_company`` game by game after the decision (rows are distinct games): where the region holds (outcome
    HELD or HELD_BY_RULE), the pieces committed are used, a sovereign attacker loses ``attacker_loss`` strength (never
    below 0), the commander's family gains ``held_trophies`` and the region held is counted."""
    for i in range(rows.shape[0]):
        if outcome[i] != HELD and outcome[i] != HELD_BY_RULE:
            continue
        g = rows[i]
        a = army[g]
        for s in range(used_officers.shape[1]):
            used_officers[g, s, a] += committed_off[g, s]
        used_regiments[g, a] += committed_reg[g]
        if attacker[i] >= 0:
            strength[g, attacker[i]] = max(strength[g, attacker[i]] - attacker_loss, 0)
        if commander[g, a] >= 0:
            trophies[g, commander[g, a]] += held_trophies
        tally[g, col] += 1


def minimal_defence(
    officers: np.ndarray, regiments: np.ndarray, attack: np.ndarray, own: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The least defence worth ``attack[m]`` from free ``officers[m, N]`` and ``regiments[m]``: regiments first,
    then officers in seat order with family ``own[m]`` last. Returns (officers int[m, N], regiments int[m])."""
    arrays = [np.asarray(x) for x in (officers, regiments, attack, own)]
    if kernels.use(arrays[0].shape[0]) and all(x.dtype.kind == "i" for x in arrays):
        officers, regiments, attack, own = (np.ascontiguousarray(x, dtype=np.int64) for x in arrays)
        out, reg = np.empty_like(officers), np.empty_like(regiments)
        _defence_kernel(officers, regiments, attack, own, out, reg)
        return out, reg
    officers = officers.astype(np.int64)
    reg = np.minimum(regiments, np.maximum(attack, 0)).astype(np.int64)
    need = np.maximum(attack - reg, 0)
    last = np.arange(officers.shape[1])[None, :] == own[:, None]
    others = np.where(last, 0, officers)
    before = np.cumsum(others, axis=1) - others  # the officers committed ahead of each family's
    before = np.where(last, others.sum(axis=1)[:, None], before)
    return np.clip(need[:, None] - before, 0, officers), reg


@kernels.kernel
def _defence_kernel(officers, regiments, attack, own, out, reg):
    """``minimal_defence`` row by row: regiments first, then each family's officers in seat order, ``own`` last."""
    for i in range(officers.shape[0]):
        reg[i] = min(regiments[i], max(attack[i], 0))
        need = max(attack[i] - reg[i], 0)
        others = 0
        for s in range(officers.shape[1]):
            if s != own[i]:
                others += officers[i, s]
        before = 0
        for s in range(officers.shape[1]):
            ahead = others if s == own[i] else before
            out[i, s] = min(max(need - ahead, 0), officers[i, s])
            if s != own[i]:
                before += officers[i, s]


def lose_region(
    state: State,
    rules: Rules,
    dice: Chance,
    agents: Agents,
    rows: np.ndarray,
    region: np.ndarray,
    army: np.ndarray,
    shape: np.ndarray,
) -> None:
    """R-ATTACK: a Company region is lost (L212): the army's commander dies and his family returns ``lost_trophy_share``
    of its trophies (rounded up); the governor dies (``deposed``, blame situation 5); every other officer of the army
    rolls a d6 and dies from ``officer_death_on``; the region's orders close; it becomes sovereign at
    ``lost_region_strength`` without unrest; a crisis marker inside it marches on; stability -1, and at 0 the Company
    crashes and the game ends in this phase."""
    if rows.size == 0:
        return
    ind = rules.india
    if kernels.use(state.n_games):
        rows, region, army = (np.asarray(x, dtype=np.int64) for x in (rows, region, army))
        total = _commander_falls_kernel(
            state.commander, state.trophies, state.officers, state.supply, state.tally, state.governor,
            state.deposed, rows, region, army, ind.lost_trophy_share, TALLY["officers_killed"],
        )  # fmt: skip
        vacate_governor(state, rows, region)
        roll = np.flatnonzero(total > 0)
        faces = dice.d6(rows[roll], int(total.max()), used=total[roll]) if roll.size else np.zeros((0, 0), np.int8)
        at = np.full(rows.size, -1, dtype=np.int64)
        at[roll] = np.arange(roll.size)
        inside = _region_falls_kernel(
            state.officers, state.used_officers, state.supply, state.tally, state.owner, state.strength,
            state.capital, state.unrest, state.stability, state.elephant_at, state.elephant_facing, rows, region,
            army, faces, at, ind.officer_death_on, ind.lost_region_strength, TALLY["officers_killed"],
            TALLY["regions_lost"], TALLY["stability_change"], TALLY["stability_loss_regions"],
        )  # fmt: skip
        close_all(state, rules, rows, region, cascading=False)
        march(state, rules, rows[inside], region[inside], shape[inside])
        settle_army(state, rules, dice, agents, rows, army)
        live = np.zeros(state.n_games, dtype=bool)
        live[rows] = True
        crash(state, live)
        return
    n = state.n_players
    seats = np.arange(n)[None, :]
    cmd = state.commander[rows, army].astype(np.int64)
    c = np.flatnonzero(cmd >= 0)
    cr, cc, ca = rows[c], cmd[c], army[c]
    state.trophies[cr, cc] -= np.ceil(state.trophies[cr, cc] * ind.lost_trophy_share).astype(np.int32)
    state.officers[cr, cc, ca] -= 1
    state.supply[cr, cc] += 1
    state.commander[cr, ca] = -1
    state.tally[cr, TALLY["officers_killed"]] += 1
    gov = state.governor[rows, region].astype(np.int64)
    gv = np.flatnonzero(gov >= 0)
    state.deposed[rows[gv], gov[gv]] += 1
    vacate_governor(state, rows, region)
    # every remaining officer of the army rolls, seat by seat
    officers = state.officers[rows[:, None], seats, army[:, None]].astype(np.int64)  # [m, N]
    total = officers.sum(axis=1)
    roll = np.flatnonzero(total > 0)
    if roll.size:
        rr, off, tot = rows[roll], officers[roll], total[roll]
        width = int(tot.max())
        dead = (dice.d6(rr, width, used=tot) >= ind.officer_death_on) & (np.arange(width)[None, :] < tot[:, None])
        cum = np.concatenate([np.zeros((rr.size, 1), dtype=np.int64), np.cumsum(dead, axis=1)], axis=1)
        ends = np.cumsum(off, axis=1)
        deaths = np.take_along_axis(cum, ends, axis=1) - np.take_along_axis(cum, ends - off, axis=1)
        ra = army[roll]
        state.officers[rr[:, None], seats, ra[:, None]] -= deaths.astype(np.int32)
        state.supply[rr] += deaths.astype(np.int32)
        state.tally[rr, TALLY["officers_killed"]] += deaths.sum(axis=1).astype(np.int32)
    used = state.used_officers[rows[:, None], seats, army[:, None]]
    state.used_officers[rows[:, None], seats, army[:, None]] = np.minimum(
        used, state.officers[rows[:, None], seats, army[:, None]]
    )
    close_all(state, rules, rows, region, cascading=False)
    state.owner[rows, region] = -1
    state.strength[rows, region] = ind.lost_region_strength
    state.capital[rows, region] = region
    state.unrest[rows, region] = 0
    inside = (state.elephant_at[rows] == region) & (state.elephant_facing[rows] < 0)
    march(state, rules, rows[inside], region[inside], shape[inside])
    state.tally[rows, TALLY["regions_lost"]] += 1
    lowered = np.maximum(state.stability[rows] - 1, 0)
    lost = (lowered - state.stability[rows]).astype(np.int32)  # -1 (0 if it already stood at 0)
    state.stability[rows] = lowered
    state.tally[rows, TALLY["stability_change"]] += lost
    state.tally[rows, TALLY["stability_loss_regions"]] += lost
    settle_army(state, rules, dice, agents, rows, army)  # the next commander (also before a crash: its last state)
    live = np.zeros(state.n_games, dtype=bool)
    live[rows] = True
    crash(state, live)


@kernels.kernel
def _commander_falls_kernel(
    commander, trophies, officers, supply, tally, governor, deposed, rows, region, army, share, killed
):
    """``lose_region`` game by game up to the officers' rolls (rows are distinct games): the army's commander dies
    (his family returns ``share`` of its trophies, rounded up) and the governor counts as deposed. Returns int[m]
    the officers left in the army, who roll."""
    left = np.zeros(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        g, x, a = rows[i], region[i], army[i]
        c = commander[g, a]
        if c >= 0:
            trophies[g, c] -= np.int32(np.ceil(trophies[g, c] * share))
            officers[g, c, a] -= 1
            supply[g, c] += 1
            commander[g, a] = -1
            tally[g, killed] += 1
        if governor[g, x] >= 0:
            deposed[g, governor[g, x]] += 1
        for s in range(officers.shape[1]):
            left[i] += officers[g, s, a]
    return left


@kernels.kernel
def _region_falls_kernel(
    officers, used_officers, supply, tally, owner, strength, capital, unrest, stability, elephant_at,
    elephant_facing, rows, region, army, faces, at, death_on, lost_strength, killed, lost, change, loss_regions
):  # fmt: skip
    """``lose_region`` game by game from the officers' rolls (rows are distinct games; ``faces[at[i]]`` the dice of
    game ``rows[i]``, seat by seat, ``at[i]`` -1 without officers): the officers rolling ``death_on`` or more die,
    none stays used beyond those left, the region turns sovereign at ``lost_strength`` without unrest, stability
    -1. Returns bool[m]: the crisis marker stands inside the region."""
    inside = np.zeros(rows.shape[0], dtype=np.bool_)
    for i in range(rows.shape[0]):
        g, x, a = rows[i], region[i], army[i]
        if at[i] >= 0:
            die = 0
            for s in range(officers.shape[1]):
                dead = 0
                for _ in range(officers[g, s, a]):
                    if faces[at[i], die] >= death_on:
                        dead += 1
                    die += 1
                officers[g, s, a] -= dead
                supply[g, s] += dead
                tally[g, killed] += dead
        for s in range(officers.shape[1]):
            used_officers[g, s, a] = min(used_officers[g, s, a], officers[g, s, a])
        owner[g, x] = -1
        strength[g, x] = lost_strength
        capital[g, x] = x
        unrest[g, x] = 0
        inside[i] = elephant_at[g] == x and elephant_facing[g] < 0
        tally[g, lost] += 1
        if stability[g] > 0:
            stability[g] -= 1
            tally[g, change] -= 1
            tally[g, loss_regions] -= 1
    return inside


def revolt_wave(state: State, rules: Rules, dice: Chance, agents: Agents, ev: Event) -> None:
    """R-ATTACK: an attack on a Company region sets off a revolt in every other Company region with unrest, at strength
    = its unrest (L211; MAP.md), army by army from Bombay's, each army's regions in map order. Revolts set off no
    further wave."""
    rows = ev.rows[any_last(ev.attacked[ev.rows])]
    if rows.size == 0:
        return
    # A revolt changes only its own region's owner and unrest (and may end the game), so the regions that revolt
    # are known before the first one does; games do not meet, so the k-th revolt of every game is one attack.
    owner = state.owner[rows].astype(np.int64)
    restless = (state.unrest[rows] > 0) & ~ev.attacked[rows] & (owner >= 0)  # [m, R]
    count = restless.sum(axis=1)
    if not count.any():
        return
    n_r = owner.shape[1]
    turn = np.sort(np.where(restless, owner * n_r + np.arange(n_r), P * n_r), axis=1)  # army, then map order
    for k in range(int(count.max())):
        sel = (k < count) & ~state.done[rows]
        if not sel.any():
            continue
        rr = rows[sel]
        wave = replace(ev, rows=rr, attacked=ev.attacked.copy())
        attack_company(state, rules, dice, agents, wave, turn[sel, k] % n_r, np.zeros(rr.size), tally="revolts")
