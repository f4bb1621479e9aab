"""India's map mechanics for phase 8 (R-INDIA, D-EVENTS; seed 000 L210-L220; MAP.md, John Company 2e's India).

Small vectorised functions over a subset of games ``rows`` (int[m], positions in the batch) with one region per
row, so the event handlers of ``phases/india.py`` and the tests can call them on hand-built positions:

- orders: ``close_northernmost`` (Turmoil) and ``close_all`` (rebellions, invasions), both with 2e's cascade when
  a region has nothing left to close; ``open_orders`` (Peace);
- empires: ``empire_strength``, ``rebel`` (a dominated region against its capital), ``invade`` (between sovereign
  empires: conquest, a new empire, a capital's empire shattered), ``shatter``;
- the crisis marker ("elephant"): ``march`` by a tile's shape and ``turn_inward`` (L170, from a deployment);
- storms: ``batter_ships`` (damage and sinking of family-yard ships) and ``settle_damage`` (damage follows ships
  the Director of Trade moves);
- ``record_deployment``: the troops a deployment used this round, which cannot defend in phase 8.

The closings, ``empire_strength``, ``rebel``, ``invade``, ``march`` and the storm's counting also run as compiled
kernels, game by game (``sim.kernels``; the rows of a call are distinct games), beside the numpy reference.

Encodings (``state.py``): a region is sovereign when ``owner < 0``; it is an empire's capital or independent when
``capital == itself``, otherwise dominated by ``capital``. An empire is a capital with at least one dominated
region. The crisis marker stands on the border between ``elephant_at`` (its tail, the region it points from) and
``elephant_facing`` (its head), or inside ``elephant_at`` when ``elephant_facing == -1`` ("turned inward").
"""

from __future__ import annotations

import numpy as np

from . import kernels
from . import layout as L
from .reduce import any_last
from .rules import Rules
from .state import TALLY, State

P = L.PRESIDENCIES


# ----------------------------------------------------------------------------------------------------- orders
def _close(state: State, rows: np.ndarray, orders: np.ndarray) -> None:
    """Close orders ``orders[m]`` (one per row, -1 none) and count the ones that were open."""
    ok = orders >= 0
    rows, orders = rows[ok], orders[ok]
    was = state.order_open[rows, orders]
    state.order_open[rows, orders] = False
    state.tally[rows[was], TALLY["orders_closed"]] += 1  # rows are distinct games


def northernmost_open(state: State, rules: Rules, rows: np.ndarray, region: np.ndarray) -> np.ndarray:
    """int[m]: the first open order of ``region`` in the map's north-to-south listing, -1 if all are closed."""
    inside = rules.d.order_in_region.T[region]  # [m, O]
    open_ = inside & state.order_open.take(rows, axis=0)
    return np.where(any_last(open_), open_.argmax(axis=1), -1)


def close_northernmost(state: State, rules: Rules, rows: np.ndarray, region: np.ndarray) -> None:
    """R-TURMOIL (MAP.md): close the region's northernmost open order; if every order there is closed already,
    the region cascades (``cascade``)."""
    if rows.size == 0:
        return
    d = rules.d
    if kernels.use(state.n_games):
        _close_kernel(
            state.order_open, state.tally, rows.astype(np.int64), region.astype(np.int64), d.order_in_region,
            TALLY["orders_closed"], True, CASCADES.index(rules.india.cascade), d.cross_links, d.cross_count,
            d.order_region,
        )  # fmt: skip
        return
    first = northernmost_open(state, rules, rows, region)
    _close(state, rows, first)
    none = first < 0
    cascade(state, rules, rows[none], region[none])


def close_all(state: State, rules: Rules, rows: np.ndarray, region: np.ndarray, cascading: bool = True) -> None:
    """Close every open order of the region; with ``cascading``, a region with none open cascades (2e)."""
    if rows.size == 0:
        return
    d = rules.d
    if kernels.use(state.n_games):
        mode = CASCADES.index(rules.india.cascade) if cascading else 0
        _close_kernel(
            state.order_open, state.tally, rows.astype(np.int64), region.astype(np.int64), d.order_in_region,
            TALLY["orders_closed"], False, mode, d.cross_links, d.cross_count, d.order_region,
        )  # fmt: skip
        return
    inside = d.order_in_region.T[region]  # [m, O]
    was_open = inside & state.order_open.take(rows, axis=0)
    any_open = any_last(was_open)
    r_idx, o_idx = np.nonzero(was_open)
    state.order_open[rows[r_idx], o_idx] = False
    state.tally[rows, TALLY["orders_closed"]] += was_open.sum(axis=1).astype(np.int32)
    if cascading:
        cascade(state, rules, rows[~any_open], region[~any_open])


CASCADES = ("none", "step", "chain")  # india.cascade, as the closing kernel takes it


@kernels.kernel
def _close_kernel(
    order_open, tally, rows, region, order_in_region, col, first_only, mode, cross_links, cross_count, order_region
):
    """``close_all`` (or with ``first_only`` ``close_northernmost``) game by game (rows are distinct games): the
    region's open orders (its first open one) close and are counted; with none open the region cascades (``mode``:
    the index in ``CASCADES``, 0 also without ``cascading``)."""
    for i in range(rows.shape[0]):
        g, x = rows[i], region[i]
        closed = 0
        for o in range(order_open.shape[1]):
            if order_in_region[o, x] and order_open[g, o]:
                order_open[g, o] = False
                closed += 1
                if first_only:
                    break
        tally[g, col] += closed
        if closed == 0 and mode > 0:
            _cascade_kernel(
                order_open, tally, rows[i : i + 1], region[i : i + 1], cross_links, cross_count, order_region,
                order_in_region, col, mode == 2,
            )  # fmt: skip


def cascade(state: State, rules: Rules, rows: np.ndarray, region: np.ndarray) -> None:
    """2e's cascade (india.cascade): every order linked to the region from next door closes; where that order is
    closed already, its region closes its northernmost open order instead, and with none open it cascades in turn
    (``chain``; each region at most once per closing). The fan implementation recurses depth first; here the
    waiting region with the lowest map index cascades next, its links taken in the map file's order. ``step``:
    only the first region cascades; ``none``: no cascade at all."""
    mode = rules.india.cascade
    if mode == "none" or rows.size == 0:
        return
    d = rules.d
    if kernels.use(state.n_games):
        _cascade_kernel(
            state.order_open, state.tally, rows.astype(np.int64), region.astype(np.int64), d.cross_links,
            d.cross_count, d.order_region, d.order_in_region, TALLY["orders_closed"], mode == "chain",
        )  # fmt: skip
        return
    m = rows.size
    pending = np.zeros((m, len(d.regions)), dtype=bool)
    pending[np.arange(m), region] = True
    seen = np.zeros_like(pending)
    col = TALLY["orders_closed"]
    while True:
        idx = np.flatnonzero(pending.any(axis=1))
        if idx.size == 0:
            break
        r = pending[idx].argmax(axis=1)  # each game's next cascading region
        pending[idx, r] = False
        seen[idx, r] = True
        rr = rows[idx]
        for j in range(int(d.cross_count[r].max())):
            o2 = d.cross_links[r, j]
            has = o2 >= 0
            o2 = np.maximum(o2, 0)
            is_open = has & state.order_open[rr, o2]
            state.order_open[rr[is_open], o2[is_open]] = False
            state.tally[rr[is_open], col] += 1
            closed = np.flatnonzero(has & ~is_open)
            if closed.size == 0:
                continue
            r2 = d.order_region[o2[closed]]
            first = northernmost_open(state, rules, rr[closed], r2)
            _close(state, rr[closed], first)
            if mode == "chain":
                again = closed[first < 0]
                r2 = r2[first < 0]
                fresh = ~seen[idx[again], r2]
                pending[idx[again][fresh], r2[fresh]] = True


@kernels.kernel
def _cascade_kernel(
    order_open, tally, rows, region, cross_links, cross_count, order_region, order_in_region, col, chain
):
    """``cascade`` game by game (rows are distinct games, so the games' order does not matter): the same regions
    in the same order, the same orders closed and counted."""
    n_r = cross_count.shape[0]
    pending = np.zeros(n_r, dtype=np.bool_)
    seen = np.zeros(n_r, dtype=np.bool_)
    for i in range(rows.shape[0]):
        g = rows[i]
        pending[:] = False
        seen[:] = False
        pending[region[i]] = True
        while True:
            r = -1
            for k in range(n_r):  # the waiting region with the lowest map index
                if pending[k]:
                    r = k
                    break
            if r < 0:
                break
            pending[r] = False
            seen[r] = True
            for j in range(cross_count[r]):
                o2 = cross_links[r, j]
                if o2 < 0:
                    continue
                if order_open[g, o2]:
                    order_open[g, o2] = False
                    tally[g, col] += 1
                    continue
                r2 = order_region[o2]
                first = -1
                for o in range(order_open.shape[1]):  # northernmost_open
                    if order_in_region[o, r2] and order_open[g, o]:
                        first = o
                        break
                if first >= 0:
                    order_open[g, first] = False
                    tally[g, col] += 1
                elif chain and not seen[r2]:
                    pending[r2] = True


def open_orders(state: State, rows: np.ndarray, orders: np.ndarray) -> None:
    """Open the orders of bool[m, O] ``orders`` and count the ones that were closed (tally ``orders_reopened``)."""
    newly = orders & ~state.order_open[rows]
    state.order_open[rows] |= orders
    state.tally[rows, TALLY["orders_reopened"]] += newly.sum(axis=1).astype(np.int32)


# ---------------------------------------------------------------------------------------------------- empires
def empire_strength(state: State, rows: np.ndarray, region: np.ndarray) -> np.ndarray:
    """int[m]: the strength of the region's whole empire (its capital and every region the capital dominates);
    an independent region's own strength. Company regions (strength 0) never count."""
    if kernels.use(state.n_games):
        out = np.zeros(rows.size, dtype=np.int64)
        _empire_strength(
            state.capital, state.owner, state.strength, rows.astype(np.int64), region.astype(np.int64), out
        )
        return out
    cap = state.capital[rows, region].astype(np.int64)
    member = (state.capital[rows] == cap[:, None]) & (state.owner[rows] < 0)
    return (state.strength[rows] * member).sum(axis=1)


@kernels.kernel
def _empire_strength(capital, owner, strength, rows, region, out):
    """R-EMPIRES: ``empire_strength`` row by row."""
    for i in range(rows.shape[0]):
        g = rows[i]
        cap = capital[g, region[i]]
        for r in range(capital.shape[1]):
            if capital[g, r] == cap and owner[g, r] < 0:
                out[i] += strength[g, r]


def empires(state: State, rows: np.ndarray) -> np.ndarray:
    """int[m]: empires standing (capitals with at least one dominated region)."""
    n_r = state.capital.shape[1]
    cap = state.capital[rows].astype(np.int64)
    dominated = cap != np.arange(n_r)[None, :]
    ruled = np.zeros((rows.size, n_r), dtype=bool)
    r_idx, c_idx = np.divmod(np.flatnonzero(dominated), n_r)
    ruled[r_idx, cap[r_idx, c_idx]] = True
    return ruled.sum(axis=1)


def shatter(state: State, rows: np.ndarray, region: np.ndarray) -> None:
    """The empire ruled from ``region`` falls apart: every region it dominated becomes sovereign."""
    if rows.size == 0:
        return
    capital = state.capital[rows]
    own = np.arange(capital.shape[1], dtype=capital.dtype)[None, :]
    state.capital[rows] = np.where(capital == region[:, None].astype(capital.dtype), own, capital)


def weaken(state: State, rows: np.ndarray, region: np.ndarray, by: int = 1) -> None:
    """A region loses strength, never below 0 (2e's tower)."""
    state.strength[rows, region] = np.maximum(state.strength[rows, region] - by, 0)


def rebel(state: State, rules: Rules, rows: np.ndarray, region: np.ndarray, modifier: np.ndarray) -> np.ndarray:
    """R-EMPIRES: a dominated region rises against its capital (Leader; Crisis with a dominated tail; MAP.md): its
    strength plus the tile's modifier against the capital's own strength, ties to the capital. Won: the region is
    sovereign and every order in it closes (cascading if none was open). Lost: the capital loses 1 strength. Returns
    bool[m] won."""
    if kernels.use(state.n_games):
        d, won = rules.d, np.zeros(rows.size, dtype=bool)
        _rebel_kernel(
            state.capital, state.strength, state.order_open, state.tally, rows.astype(np.int64),
            region.astype(np.int64), np.asarray(modifier, dtype=np.int64), won, d.order_in_region,
            TALLY["orders_closed"], CASCADES.index(rules.india.cascade), d.cross_links, d.cross_count, d.order_region,
        )  # fmt: skip
        return won
    cap = state.capital[rows, region].astype(np.int64)
    attack = state.strength[rows, region] + modifier
    won = attack > state.strength[rows, cap]
    w = np.flatnonzero(won)
    state.capital[rows[w], region[w]] = region[w]
    close_all(state, rules, rows[w], region[w])
    lost = np.flatnonzero(~won)
    weaken(state, rows[lost], cap[lost])
    return won


def invade(
    state: State, rules: Rules, rows: np.ndarray, attacker: np.ndarray, defender: np.ndarray, modifier: np.ndarray
) -> np.ndarray:
    """R-CRISIS, R-EMPIRES: a Crisis between sovereign regions (MAP.md): the attacker's whole empire strength plus the
    modifier against the defender's whole empire, ties to the defender. Won: a defending capital's empire shatters; the
    defender joins the attacker's empire (the attacker founds one if it has none and fewer than ``india.max_empires``
    stand; otherwise the defender stands alone). Lost: the attacker loses 1 strength. Returns bool[m] won."""
    if kernels.use(state.n_games):
        won = np.zeros(rows.size, dtype=bool)
        _invade_kernel(
            state.capital, state.owner, state.strength, rows.astype(np.int64), attacker.astype(np.int64),
            defender.astype(np.int64), np.asarray(modifier, dtype=np.int64), rules.india.max_empires, won,
        )  # fmt: skip
        return won
    attack = empire_strength(state, rows, attacker) + modifier
    won = attack > empire_strength(state, rows, defender)
    w = np.flatnonzero(won)
    wr, a, b = rows[w], attacker[w], defender[w]
    shatter(state, wr, b)
    has_empire = (state.capital[wr] == a[:, None].astype(state.capital.dtype)).sum(axis=1) > 1
    can = has_empire | (empires(state, wr) < rules.india.max_empires)
    state.capital[wr, b] = np.where(can, a, b)
    lost = np.flatnonzero(~won)
    weaken(state, rows[lost], attacker[lost])
    return won


def leader_rises(state: State, rules: Rules, rows: np.ndarray, region: np.ndarray, modifier: np.ndarray) -> np.ndarray:
    """R-LEADER in the distinct games ``rows`` (the tile hitting ``region[m]`` with ``modifier[m]``): a sovereign
    region gains 1 strength, a dominated one rebels against its capital (``rebel``). Returns bool[m]: the region is
    the Company's (its rebellion against the Company is the caller's)."""
    if kernels.use(state.n_games):
        d, company = rules.d, np.zeros(rows.size, dtype=bool)
        _leader_kernel(
            state.capital, state.owner, state.strength, state.order_open, state.tally, rows.astype(np.int64),
            np.asarray(region, dtype=np.int64), np.asarray(modifier, dtype=np.int64), d.order_in_region,
            TALLY["orders_closed"], CASCADES.index(rules.india.cascade), d.cross_links, d.cross_count, d.order_region,
            company,
        )  # fmt: skip
        return company
    company = state.owner[rows, region] >= 0
    dominated = ~company & (state.capital[rows, region] != region)
    sovereign = ~company & ~dominated
    state.strength[rows[sovereign], region[sovereign]] += 1
    rebel(state, rules, rows[dominated], region[dominated], modifier[dominated])
    return company


@kernels.kernel
def _leader_kernel(
    capital, owner, strength, order_open, tally, rows, region, modifier, order_in_region, col, mode, cross_links,
    cross_count, order_region, company,
):  # fmt: skip
    """R-LEADER: ``leader_rises`` game by game (rows are distinct games), the rebellions in one call."""
    n = rows.shape[0]
    rebels = np.empty(n, np.int64)
    n_rebels = 0
    for i in range(n):
        g, x = rows[i], region[i]
        if owner[g, x] >= 0:
            company[i] = True
        elif capital[g, x] != x:
            rebels[n_rebels] = i
            n_rebels += 1
        else:
            strength[g, x] += 1
    at = rebels[:n_rebels]
    won = np.zeros(n_rebels, dtype=np.bool_)
    _rebel_kernel(
        capital, strength, order_open, tally, rows[at], region[at], modifier[at], won, order_in_region, col, mode,
        cross_links, cross_count, order_region,
    )  # fmt: skip


def crisis_fights(
    state: State, rules: Rules, rows: np.ndarray, region: np.ndarray, modifier: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """R-CRISIS's fights between the regions where the crisis marker stands, in the distinct games ``rows`` (the tile
    hitting ``region[m]`` with ``modifier[m]``; MAP.md): a dominated tail rebels against its capital (``rebel``), a
    sovereign tail invades a sovereign head outside its empire (``invade``). Returns (hit bool[m]: the Company is
    attacked, its region int[m], the attack's strength int[m] before unrest, the sovereign attacker int[m] or -1,
    the region the marker marches from int[m]: the tail after a won invasion, else ``region``); the attacks on the
    Company (a Company tail, a marker inside a Company region, or a Company head, at the tail's empire strength +
    modifier) are the caller's."""
    if kernels.use(state.n_games):
        d, m = rules.d, rows.size
        hit, target, strength = np.zeros(m, dtype=bool), np.zeros(m, np.int64), np.zeros(m, np.int64)
        attacker, marched_from = np.full(m, -1, dtype=np.int64), np.asarray(region, dtype=np.int64).copy()
        tail, head = state.elephant_at[rows].astype(np.int64), state.elephant_facing[rows].astype(np.int64)
        _crisis_kernel(
            tail, head, state.capital, state.owner, state.strength, state.order_open,
            state.tally, rows.astype(np.int64), np.asarray(modifier, dtype=np.int64), d.order_in_region,
            TALLY["orders_closed"], CASCADES.index(rules.india.cascade), d.cross_links, d.cross_count, d.order_region,
            rules.india.max_empires, hit, target, strength, attacker, marched_from,
        )  # fmt: skip
        return hit, target, strength, attacker, marched_from
    mod = np.asarray(modifier, dtype=np.int64)
    a, b = state.elephant_at[rows].astype(np.int64), state.elephant_facing[rows].astype(np.int64)
    bc = np.maximum(b, 0)
    a_company = state.owner[rows, a] >= 0
    border = (b >= 0) & ~a_company
    dominated = border & (state.capital[rows, a] != a)
    b_company = border & ~dominated & (state.owner[rows, bc] >= 0)
    same = border & ~dominated & ~b_company & (state.capital[rows, bc] == a)
    invasion = border & ~dominated & ~b_company & ~same
    marched_from = np.asarray(region, dtype=np.int64).copy()
    rebel(state, rules, rows[dominated], a[dominated], mod[dominated])
    sel = np.flatnonzero(invasion)
    won = invade(state, rules, rows[sel], a[sel], b[sel], mod[sel])
    marched_from[sel[won]] = a[sel[won]]
    hit = a_company | b_company
    strength = np.where(hit, mod, 0)
    head = np.flatnonzero(b_company)
    strength[head] += empire_strength(state, rows[head], a[head])
    attacker = np.where(b_company, a, -1)
    return hit, np.where(a_company, a, np.where(b_company, b, 0)), strength, attacker, marched_from


@kernels.kernel
def _crisis_kernel(
    tail, head, capital, owner, strength, order_open, tally, rows, modifier, order_in_region, col, mode, cross_links,
    cross_count, order_region, max_empires, hit, target, force, attacker, marched_from,
):  # fmt: skip
    """R-CRISIS: ``crisis_fights``, the fights sorted game by game (rows are distinct games; ``tail``, ``head``: the
    crisis marker's regions there), then the rebellions, the invasions and the attacking empires' strength, each
    kind in one call."""
    n = rows.shape[0]
    rebels, invasions, heads = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64)
    n_rebels = n_invasions = n_heads = 0
    for i in range(n):
        g, a, b = rows[i], tail[i], head[i]
        if owner[g, a] >= 0:  # a Company tail, or the marker inside a Company region
            hit[i], target[i], force[i] = True, a, modifier[i]
        elif b < 0:
            continue
        elif capital[g, a] != a:  # a dominated tail rebels against its capital
            rebels[n_rebels] = i
            n_rebels += 1
        elif owner[g, b] >= 0:  # a sovereign tail invades a Company head: its empire's strength + the modifier
            hit[i], target[i], force[i], attacker[i] = True, b, modifier[i], a
            heads[n_heads] = i
            n_heads += 1
        elif capital[g, b] != a:  # a sovereign head outside the tail's empire is invaded
            invasions[n_invasions] = i
            n_invasions += 1
    at = rebels[:n_rebels]
    won = np.zeros(n_rebels, dtype=np.bool_)
    _rebel_kernel(
        capital, strength, order_open, tally, rows[at], tail[at], modifier[at], won, order_in_region, col, mode,
        cross_links, cross_count, order_region,
    )  # fmt: skip
    at = invasions[:n_invasions]
    won = np.zeros(n_invasions, dtype=np.bool_)
    _invade_kernel(capital, owner, strength, rows[at], tail[at], head[at], modifier[at], max_empires, won)
    for j in range(n_invasions):
        if won[j]:
            marched_from[at[j]] = tail[at[j]]
    at = heads[:n_heads]
    empire = np.zeros(n_heads, dtype=np.int64)
    _empire_strength(capital, owner, strength, rows[at], tail[at], empire)
    for j in range(n_heads):
        force[at[j]] += empire[j]


def overrun(state: State, rules: Rules, rows: np.ndarray, region: np.ndarray, attack: np.ndarray) -> None:
    """R-INVASION: a Foreign Invasion of ``attack[m]`` on sovereign region ``region[m]`` (rows are distinct games)
    takes it when above its empire's strength: its orders close (cascading if none was open), a capital's empire
    shatters, a dominated region breaks free, and it keeps ``india.invasion_keep`` of the attack as strength
    (rounded down)."""
    if rows.size == 0:
        return
    keep = rules.india.invasion_keep
    if kernels.use(state.n_games):
        d = rules.d
        _overrun_kernel(
            state.capital, state.owner, state.strength, state.order_open, state.tally, rows.astype(np.int64),
            region.astype(np.int64), np.asarray(attack, dtype=np.int64), float(keep), d.order_in_region,
            TALLY["orders_closed"], CASCADES.index(rules.india.cascade), d.cross_links, d.cross_count, d.order_region,
        )  # fmt: skip
        return
    falls = attack > empire_strength(state, rows, region)
    fr, ft, fa = rows[falls], region[falls], attack[falls]
    close_all(state, rules, fr, ft)
    shatter(state, fr, ft)
    state.capital[fr, ft] = ft
    state.strength[fr, ft] = np.floor(fa * keep).astype(np.int32)


@kernels.kernel
def _overrun_kernel(
    capital, owner, strength, order_open, tally, rows, region, attack, keep, order_in_region, col, mode,
    cross_links, cross_count, order_region,
):  # fmt: skip
    """R-INVASION: ``overrun`` game by game (rows are distinct games): the empires' strength, the regions taken's
    orders closed (one call each), then their empires shattered and their strength kept."""
    n = rows.shape[0]
    empire = np.zeros(n, dtype=np.int64)
    _empire_strength(capital, owner, strength, rows, region, empire)
    taken = np.empty(n, dtype=np.int64)
    n_taken = 0
    for i in range(n):
        if attack[i] > empire[i]:
            taken[n_taken] = i
            n_taken += 1
    at = taken[:n_taken]
    _close_kernel(
        order_open, tally, rows[at], region[at], order_in_region, col, False, mode, cross_links, cross_count,
        order_region,
    )  # fmt: skip
    for i in at:
        g, x = rows[i], region[i]
        for r in range(capital.shape[1]):
            if capital[g, r] == x:
                capital[g, r] = r
        capital[g, x] = x
        strength[g, x] = np.int32(np.floor(attack[i] * keep))


@kernels.kernel
def _rebel_kernel(
    capital, strength, order_open, tally, rows, region, modifier, won, order_in_region, col, mode, cross_links,
    cross_count, order_region,
):  # fmt: skip
    """R-EMPIRES: ``rebel`` game by game (rows are distinct games), the orders of a region won closing as
    ``close_all`` closes them."""
    for i in range(rows.shape[0]):
        g, x = rows[i], region[i]
        cap = capital[g, x]
        if strength[g, x] + modifier[i] > strength[g, cap]:
            won[i] = True
            capital[g, x] = x
            _close_kernel(
                order_open, tally, rows[i : i + 1], region[i : i + 1], order_in_region, col, False, mode,
                cross_links, cross_count, order_region,
            )  # fmt: skip
        else:
            strength[g, cap] = max(strength[g, cap] - 1, 0)


@kernels.kernel
def _invade_kernel(capital, owner, strength, rows, attacker, defender, modifier, max_empires, won):
    """R-CRISIS, R-EMPIRES: ``invade`` game by game (rows are distinct games)."""
    n_r = capital.shape[1]
    games, sides, strengths = np.empty(2, np.int64), np.empty(2, np.int64), np.empty(2, np.int64)
    ruled = np.zeros(n_r, dtype=np.bool_)
    for i in range(rows.shape[0]):
        g, a, b = rows[i], attacker[i], defender[i]
        games[:], sides[0], sides[1], strengths[:] = g, a, b, 0
        _empire_strength(capital, owner, strength, games, sides, strengths)
        if strengths[0] + modifier[i] <= strengths[1]:
            strength[g, a] = max(strength[g, a] - 1, 0)
            continue
        won[i] = True
        members = 0
        ruled[:] = False
        for r in range(n_r):
            if capital[g, r] == b:  # the defender's empire shatters
                capital[g, r] = r
            members += capital[g, r] == a
            if capital[g, r] != r:
                ruled[capital[g, r]] = True
        capital[g, b] = a if members > 1 or ruled.sum() < max_empires else b


# -------------------------------------------------------------------------------------------- crisis marker
def march(state: State, rules: Rules, rows: np.ndarray, region: np.ndarray, shape: np.ndarray) -> None:
    """R-ELEPHANT: the crisis marker marches to ``region`` (2e as the BGA implementation reads it): into a Company
    region it stands inside it (turned inward); at a dominated region it points from there to its capital; at a
    sovereign region it points to the neighbour the tile's shape names (``map.regions[].shapes``) unless the region
    rules it, then to the next neighbour clockwise it does not rule; ruling every neighbour, the marker points from the
    shape's neighbour back at the region."""
    if rows.size == 0:
        return
    d = rules.d
    if kernels.use(state.n_games):
        _march_kernel(
            state.capital, state.owner, state.elephant_at, state.elephant_facing, rows.astype(np.int64),
            region.astype(np.int64), np.asarray(shape, dtype=np.int64), d.shape_target, d.cw_pos, d.clockwise,
            d.degree,
        )  # fmt: skip
        return
    x = region.astype(np.int64)
    cap = state.capital[rows, x].astype(np.int64)
    company = state.owner[rows, x] >= 0
    dominated = ~company & (cap != x)

    def ruled(z):  # z is dominated by x
        return (state.capital[rows, z] == x) & (z != x)

    y = d.shape_target[x, shape]
    face = y.copy()
    found = ~ruled(y)
    pos = d.cw_pos[x, y]
    for k in range(1, d.clockwise.shape[1]):
        z = d.clockwise[x, (pos + k) % np.maximum(d.degree[x], 1)]
        take = ~found & (k < d.degree[x]) & ~ruled(z)
        face = np.where(take, z, face)
        found |= take
    at = np.where(company | dominated | found, x, y)
    facing = np.where(company, -1, np.where(dominated, cap, np.where(found, face, x)))
    state.elephant_at[rows] = at
    state.elephant_facing[rows] = facing


@kernels.kernel
def _march_kernel(
    capital, owner, elephant_at, elephant_facing, rows, region, shape, shape_target, cw_pos, clockwise, degree
):
    """R-ELEPHANT: ``march`` row by row (rows are distinct games): the same tail and head."""
    for i in range(rows.shape[0]):
        g, x = rows[i], region[i]
        cap = capital[g, x]
        if owner[g, x] >= 0:  # a Company region: inside it
            at, facing = x, -1
        elif cap != x:  # dominated: facing its capital
            at, facing = x, cap
        else:
            y = shape_target[x, shape[i]]
            face = y
            found = not (capital[g, y] == x and y != x)
            pos = cw_pos[x, y]
            for k in range(1, min(degree[x], clockwise.shape[1])):  # the next neighbour clockwise it does not rule
                if found:
                    break
                z = clockwise[x, (pos + k) % degree[x]]
                if not (capital[g, z] == x and z != x):
                    face, found = z, True
            if found:
                at, facing = x, face
            else:
                at, facing = y, x
        elephant_at[g] = at
        elephant_facing[g] = facing


def turn_inward(state: State, rules: Rules, rows: np.ndarray, region: np.ndarray) -> None:
    """R-ELEPHANT, L170: a successful deployment into the region the crisis marker points from (its tail; with
    ``india.elephant_turns_on = "tail_or_head"`` also the one it faces) turns it inward: events may then only
    happen inside that region."""
    if rows.size == 0:
        return
    outward = state.elephant_facing[rows] >= 0
    hit = outward & (state.elephant_at[rows] == region)
    if rules.india.elephant_turns_on == "tail_or_head":
        hit |= outward & (state.elephant_facing[rows] == region)
    state.elephant_at[rows[hit]] = region[hit]
    state.elephant_facing[rows[hit]] = -1


# ------------------------------------------------------------------------------------------------------ storms
def batter_ships(state: State, rules: Rules, dice, rows: np.ndarray, hit: np.ndarray) -> None:
    """R-STORM: every family-yard ship in a hit sea (``hit`` bool[m, P]) rolls a d6 (L216): from ``storm_sink_from`` it
    sinks, from ``storm_damage_from`` it is damaged, and a damaged ship damaged again sinks. Dice go sea by sea,
    seat by seat, damaged ships before sound ones. A sunk ship leaves its yard free (``yard_ships`` falls), and
    its owner's yard income (phase 7) stops with it."""
    n = state.n_players
    compiled = kernels.use(state.n_games)
    if compiled:
        flat = np.zeros((rows.size, P * n * 2), dtype=np.int64)
        _yard_groups(state.yard_ships, state.yard_damaged, rows.astype(np.int64), hit, flat)
    else:
        yard = state.yard_ships[rows, :, :P]  # [m, N, P]
        damaged = state.yard_damaged[rows, :, :P]
        counts = np.stack([damaged, yard - damaged], axis=-1).transpose(0, 2, 1, 3)  # [m, P, N, 2]
        flat = (counts * hit[:, :, None, None]).reshape(rows.size, -1)
    sunk, hurt, roll = storm_rolls(rules, dice, rows, flat)
    if roll.size == 0:
        return
    rows = rows[roll]
    if compiled:
        _yard_losses(
            state.yard_ships, state.yard_damaged, state.tally, rows.astype(np.int64), sunk, hurt,
            TALLY["ships_damaged"], TALLY["ships_sunk"],
        )  # fmt: skip
        return
    sunk = sunk.reshape(roll.size, P, n, 2).transpose(0, 2, 1, 3)  # [m, N, P, 2]
    hurt = hurt.reshape(roll.size, P, n, 2).transpose(0, 2, 1, 3)
    lost_damaged = sunk[..., 0] + hurt[..., 0]
    newly = hurt[..., 1]
    lost = lost_damaged + sunk[..., 1]
    state.yard_ships[rows, :, :P] -= lost.astype(np.int32)
    state.yard_damaged[rows, :, :P] += (newly - lost_damaged).astype(np.int32)
    state.tally[rows, TALLY["ships_damaged"]] += newly.sum(axis=(1, 2)).astype(np.int32)
    state.tally[rows, TALLY["ships_sunk"]] += lost.sum(axis=(1, 2)).astype(np.int32)


def storm_rolls(rules: Rules, dice, rows: np.ndarray, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """R-STORM's dice for ships in groups (``flat[m, K]`` ships per group, in roll order; a group is all damaged or
    all sound ships): one d6 per ship, in group order, for the rows holding any. Returns (sunk int[m', K], hurt
    int[m', K], roll int[m']) where ``roll`` indexes the rows that rolled: per group the ships that sink (from
    ``storm_sink_from``) and those damaged (from ``storm_damage_from``). Shared by the Company's family-yard ships
    and the firms' ships."""
    ind = rules.india
    compiled = kernels.use(rows.size)  # the batch's size is not known here: the games asked about stand in
    flat = flat.astype(np.int64)
    total = flat.sum(axis=1)
    roll = np.flatnonzero(total > 0)
    if roll.size == 0:
        return np.zeros((0, flat.shape[1]), np.int64), np.zeros((0, flat.shape[1]), np.int64), roll
    rows, flat, total = rows[roll], flat[roll], total[roll]
    m = rows.size
    width = int(total.max())
    faces = dice.d6(rows, width, used=total)
    if compiled:
        sunk, hurt = np.zeros_like(flat), np.zeros_like(flat)
        _storm_groups(faces, flat, ind.storm_sink_from, ind.storm_damage_from, sunk, hurt)
        return sunk, hurt, roll
    valid = np.arange(width)[None, :] < total[:, None]
    sinks = valid & (faces >= ind.storm_sink_from)
    hurts = valid & (faces >= ind.storm_damage_from) & (faces < ind.storm_sink_from)
    ends = np.cumsum(flat, axis=1)
    starts = ends - flat

    def per_group(mask):
        cum = np.concatenate([np.zeros((m, 1), dtype=np.int64), np.cumsum(mask, axis=1)], axis=1)
        return np.take_along_axis(cum, ends, axis=1) - np.take_along_axis(cum, starts, axis=1)

    return per_group(sinks), per_group(hurts), roll


@kernels.kernel
def _storm_groups(faces, flat, sink_from, damage_from, sunk, hurt):
    """R-STORM: ``storm_rolls``' count per group, row by row: each group's ships take the next dice in turn."""
    for i in range(flat.shape[0]):
        j = 0
        for k in range(flat.shape[1]):
            for _ in range(flat[i, k]):
                face = faces[i, j]
                j += 1
                if face >= sink_from:
                    sunk[i, k] += 1
                elif face >= damage_from:
                    hurt[i, k] += 1


@kernels.kernel
def _yard_groups(yard_ships, yard_damaged, rows, hit, flat):
    """R-STORM: ``batter_ships``' groups, row by row: per hit sea, seat by seat, its damaged then its sound
    yard ships."""
    n = yard_ships.shape[1]
    for i in range(rows.shape[0]):
        g = rows[i]
        for p in range(hit.shape[1]):
            if hit[i, p]:
                for s in range(n):
                    flat[i, 2 * (p * n + s)] = yard_damaged[g, s, p]
                    flat[i, 2 * (p * n + s) + 1] = yard_ships[g, s, p] - yard_damaged[g, s, p]


@kernels.kernel
def _yard_losses(yard_ships, yard_damaged, tally, rows, sunk, hurt, col_damaged, col_sunk):
    """R-STORM: ``batter_ships``' losses, row by row: a damaged ship sunk or hit again is lost, a sound one
    hit is damaged."""
    n = yard_ships.shape[1]
    for i in range(rows.shape[0]):
        g = rows[i]
        for p in range(sunk.shape[1] // (2 * n)):
            for s in range(n):
                k = 2 * (p * n + s)
                lost_damaged = sunk[i, k] + hurt[i, k]
                lost = lost_damaged + sunk[i, k + 1]
                yard_ships[g, s, p] -= lost
                yard_damaged[g, s, p] += hurt[i, k + 1] - lost_damaged
                tally[g, col_damaged] += hurt[i, k + 1]
                tally[g, col_sunk] += lost


def settle_damage(yard_ships: np.ndarray, yard_damaged: np.ndarray) -> None:
    """R-STORM: damage follows the ships the Director of Trade moves (in place, [G', N, 4]): which of an owner's ships
    moved is not recorded, so damage stays where ships remain and otherwise goes with the owner's ships to the
    other locations, in location order (sound ships are taken to move first)."""
    over = np.maximum(yard_damaged - yard_ships, 0)
    if not over.any():
        return
    yard_damaged -= over
    excess = over.sum(axis=2)  # [G', N]
    room = yard_ships - yard_damaged
    before = np.cumsum(room, axis=2) - room
    yard_damaged += np.clip(excess[:, :, None] - before, 0, room).astype(yard_damaged.dtype)


def clamp_to_holdings(state: State) -> None:
    """After ships or troops leave outside phase 8's own accounting (a shipyard taxed away, War Against France!'s
    losses), damage and "used this round" marks never exceed what remains: a lost yard ship is a damaged one first,
    a lost officer or regiment a used one first."""
    np.minimum(state.yard_damaged, state.yard_ships, out=state.yard_damaged)
    np.minimum(state.used_officers, state.officers, out=state.used_officers)
    np.minimum(state.used_regiments, state.regiments, out=state.used_regiments)


# ---------------------------------------------------------------------------------------------- deployments
def record_deployment(state: State, rows: np.ndarray, army: int, officers: np.ndarray, regiments: np.ndarray) -> None:
    """Troops that deployed this round (phase 6) are used: they cannot defend in phase 8 (R-INDIA, L211). Only
    survivors count (never more than the army still holds)."""
    used = state.used_officers[rows, :, army] + officers.astype(np.int32)
    state.used_officers[rows, :, army] = np.minimum(used, state.officers[rows, :, army])
    used_reg = state.used_regiments[rows, army] + regiments.astype(np.int32)
    state.used_regiments[rows, army] = np.minimum(used_reg, state.regiments[rows, army])
