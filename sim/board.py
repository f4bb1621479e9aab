"""Questions about the board that several phases (and strategies) ask: counts, reachability, vacancies."""

from __future__ import annotations

import functools

import numpy as np

from . import kernels, ledger, trace
from . import layout as L
from .rules import Rules
from .state import TALLY, State


def seat_counts(holder: np.ndarray, n: int, weights: np.ndarray | None = None) -> np.ndarray:
    """int[G, N]: how many entries of an int8[G, K] holder array (-1 = nobody) each seat holds; with ``weights``
    int[K] (or [G, K]), the entries' weights summed instead."""
    g = holder.shape[0]
    if kernels.use(g) and holder.ndim == 2 and (weights is None or np.asarray(weights).dtype.kind in "bi"):
        each = np.asarray(1 if weights is None else weights, dtype=np.int64)  # one layout, one compiled signature:
        each = np.ascontiguousarray(np.broadcast_to(each, holder.shape))
        return _seat_counts(np.require(holder, requirements="CW"), n, each)
    held = (holder >= 0) & (holder < n)
    flat = holder.astype(np.int64) + (np.arange(g, dtype=np.int64) * n)[:, None]  # game g, seat s -> g * n + s
    if weights is None:
        return np.bincount(flat[held], minlength=g * n).reshape(g, n)
    weight = np.broadcast_to(weights, holder.shape)[held]
    return np.bincount(flat[held], weight, minlength=g * n).astype(np.int64).reshape(g, n)


@kernels.kernel
def _seat_counts(holder: np.ndarray, n: int, weights: np.ndarray) -> np.ndarray:
    """``seat_counts`` in one pass over the entries (``weights`` int64[G, K], broadcast)."""
    g, k = holder.shape
    out = np.zeros((g, n), dtype=np.int64)
    for i in range(g):
        for j in range(k):
            h = holder[i, j]
            if 0 <= h < n:
                out[i, h] += weights[i, j]
    return out


def board_votes(state: State) -> np.ndarray:
    """int[G, N] shares per family with the Chairman's seat counted as one share (R-CHAIRMAN, L130)."""
    votes = state.shares.copy()
    chair = state.office[:, L.CHAIRMAN]
    rows = np.flatnonzero(chair >= 0)
    votes[rows, chair[rows]] += 1
    return votes


def exchange_free(rules: Rules, exchange: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(int[G] free positions, int[G] the cheapest free position's price, int[G] the two cheapest free positions'
    prices summed) of an int8[G, E] share exchange (-1: free); a price is 1 << 30 where too few are free."""
    prices = tuple(int(p) for p in rules.d.exchange_prices)
    free = exchange < 0
    if len(prices) <= 8:  # looked up per set of free positions (a bit mask, position e = bit e)
        n_free, cheapest, two = _exchange_table(prices)
        bits = free.view(np.uint8) @ _BITS[: len(prices)]
        return n_free[bits], cheapest[bits], two[bits]
    n_free = free.sum(axis=1)
    price = np.sort(np.where(free, np.array(prices, dtype=np.int64), 1 << 30), axis=1)
    return n_free, price[:, 0], np.where(n_free >= 2, price[:, 0] + price[:, 1], 1 << 30)


_BITS = (1 << np.arange(8)).astype(np.uint8)


@functools.lru_cache(maxsize=8)
def _exchange_table(prices: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``exchange_free`` for every set of free positions (a bit mask): int64[2**E] each."""
    out = np.full((3, 1 << len(prices)), 1 << 30, dtype=np.int64)
    for mask in range(1 << len(prices)):
        free = sorted(p for e, p in enumerate(prices) if mask >> e & 1)
        out[0, mask] = len(free)
        if free:
            out[1, mask] = free[0]
        if len(free) >= 2:
            out[2, mask] = free[0] + free[1]
    out.setflags(write=False)
    return out[0], out[1], out[2]


def reachable(
    rules: Rules, order_open: np.ndarray, blocked: np.ndarray | None = None, presidency: int | None = None
) -> np.ndarray:
    """bool[G, P, O]: open orders each presidency reaches from its home port along links between open orders
    (bool[G, O] of ``presidency`` alone when given).

    Orders in another presidency's home region are never traded (R-TRADE, L180) and do not carry the route.
    ``blocked[G, O]`` removes further orders (e.g. already filled this round).
    """
    usable = order_open if blocked is None else order_open & ~blocked
    table = reach_table(rules)
    if table is None:
        reach = _reachable_iterative(rules, usable)
        return reach if presidency is None else reach[:, presidency]
    if presidency is not None:  # one row of the table
        return unpack_bits(table[presidency, order_bits(usable)], usable.shape[1])
    return unpack_bits(table[:, order_bits(usable)].T, usable.shape[1])


_TABLE_MAX_ORDERS = 20  # a table of 2**O entries per presidency; larger maps fall back to matrix products


def order_bits(mask: np.ndarray) -> np.ndarray:
    """int64[...]: a bool[..., O] set of orders (O <= 63) as a bit mask, order o = bit o (packed 8 at a time)."""
    packed = np.packbits(mask, axis=-1, bitorder="little")
    if packed.shape[-1] == 0:  # no orders
        return np.zeros(packed.shape[:-1], dtype=np.int64)
    out = packed[..., 0].astype(np.int64)
    for j in range(1, packed.shape[-1]):
        out |= packed[..., j].astype(np.int64) << (8 * j)
    return out


def unpack_bits(bits: np.ndarray, n: int) -> np.ndarray:
    """bool[..., n]: the low n bits of int64 bit masks (``order_bits`` undone)."""
    words = np.ascontiguousarray(bits, dtype="<i8")
    return np.unpackbits(words.view(np.uint8).reshape(*words.shape, 8), axis=-1, count=n, bitorder="little").view(bool)


def reach_table(rules: Rules) -> np.ndarray | None:
    """int64[P, 2**O] (read-only): for every set of usable orders (a bit mask, order o = bit o), the orders each
    presidency reaches, as a bit mask (``reachable`` without unpacking: ``reach_table(rules)[:, bits]``; the
    strategies value thousands of hypothetical openings this way). None for a map with more than 20 orders."""
    d = rules.d
    n_orders = len(d.orders)
    if n_orders > _TABLE_MAX_ORDERS:
        return None
    return _reach_table(d.links.tobytes(), n_orders, tuple(int(p) for p in d.port), _other_home(rules).tobytes())


def _other_home(rules: Rules) -> np.ndarray:
    """bool[P, O]: orders in another presidency's home region."""
    d = rules.d
    return _other_home_table(d.order_region.tobytes(), d.order_region.dtype.str, tuple(int(h) for h in d.home))


@functools.lru_cache(maxsize=8)
def _other_home_table(region_bytes: bytes, dtype: str, home: tuple[int, ...]) -> np.ndarray:
    """``_other_home`` computed once per map (reachability is asked thousands of times a batch)."""
    order_region = np.frombuffer(region_bytes, dtype=dtype)
    table = np.stack([np.isin(order_region, np.delete(np.array(home), p)) for p in range(L.PRESIDENCIES)])
    table.setflags(write=False)
    return table


@functools.lru_cache(maxsize=8)
def _reach_table(links_bytes: bytes, n_orders: int, ports: tuple[int, ...], other_bytes: bytes) -> np.ndarray:
    """int64[P, 2**O]: for every set of usable orders (a bit mask), the orders reachable from each port."""
    links = np.frombuffer(links_bytes, dtype=bool).reshape(n_orders, n_orders)
    other = np.frombuffer(other_bytes, dtype=bool).reshape(len(ports), n_orders)
    weight = np.int64(1) << np.arange(n_orders, dtype=np.int64)
    link_mask = (links * weight[None, :]).sum(axis=1)  # neighbours of each order as a bit mask
    masks = np.arange(1 << n_orders, dtype=np.int64)
    table = np.zeros((len(ports), masks.size), dtype=np.int64)
    for p, port in enumerate(ports):
        allowed = masks & ~(other[p] * weight).sum()
        reach = allowed & (np.int64(1) << port)
        for _ in range(n_orders):
            grown = reach.copy()
            for i in range(n_orders):
                grown |= np.where((reach >> i) & 1, link_mask[i], 0)
            grown &= allowed
            if np.array_equal(grown, reach):
                break
            reach = grown
        table[p] = reach
    table.setflags(write=False)
    return table


def _reachable_iterative(rules: Rules, usable: np.ndarray) -> np.ndarray:
    d = rules.d
    allowed = (usable[:, None, :] & ~_other_home(rules)[None, :, :]).astype(np.float32)
    reach = np.zeros_like(allowed)
    for p in range(L.PRESIDENCIES):
        reach[:, p, d.port[p]] = allowed[:, p, d.port[p]]
    links = d.links.astype(np.float32) + np.eye(len(d.orders), dtype=np.float32)
    for _ in range(len(d.orders)):
        grown = np.minimum(reach @ links, 1.0) * allowed
        if np.array_equal(grown, reach):
            break
        reach = grown
    return reach > 0


def committee_vacancies(state: State, rules: Rules) -> np.ndarray:
    """int[G] vacant committee-head offices (phase 2 extra clerk); closed China/GG offices do not count."""
    from . import laws  # late import: laws imports this module

    heads = rules.d.committee_heads
    vacant = (state.office < 0) & heads[None, :]
    exists = np.ones_like(vacant)
    exists[:, L.CHINA] = state.china_open
    exists[:, L.GOVERNOR_GENERAL] = laws.flag(state, rules, "governor_general")  # once its law is in force
    return (vacant & exists).sum(axis=1)


def vacate(state: State, rows: np.ndarray, office: int) -> None:
    """The holder of ``office`` leaves it in games ``rows`` (fired or killed): his relative returns home."""
    rows = rows[state.office[rows, office] >= 0]
    if rows.size:
        state.supply[rows, state.office[rows, office]] += 1
        state.office[rows, office] = -1
        state.stress[rows, office] = 0
        state.tally[rows, TALLY["fired"]] += 1


def vacate_governor(state: State, rows: np.ndarray, region: np.ndarray | int, keep_half_ship: bool = False) -> None:
    """The governors of ``region`` in games ``rows`` leave office (fired or killed); a governor's half-built ship
    is lost with him unless ``keep_half_ship`` (governors.half_ship_inherited)."""
    region = np.broadcast_to(region, rows.shape)
    held = state.governor[rows, region] >= 0
    rows, region = rows[held], region[held]
    if rows.size:
        state.supply[rows, state.governor[rows, region]] += 1
        state.governor[rows, region] = -1
        state.tally[rows, TALLY["fired"]] += 1
        if not keep_half_ship:
            state.half_ships[rows, region] = 0


def check_outcome(rules: Rules, lowest: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """D-CHECK: (success, mishap) masks from the lowest die of a check."""
    return lowest <= rules.check.success_max, lowest >= rules.check.mishap_min


def regions_outside_home(rules: Rules, orders: np.ndarray, presidency: int | np.ndarray) -> np.ndarray:
    """int[G]: distinct regions, other than the trading presidency's home, holding the chosen orders (L179).
    ``presidency`` is one index or one per game."""
    d = rules.d
    if orders.dtype == bool and orders.ndim == 2 and len(d.orders) <= _TABLE_MAX_ORDERS:  # looked up per set
        table = _regions_table(d.order_region.tobytes(), d.order_region.dtype.str, tuple(d.home.tolist()))
        return table[presidency, order_bits(orders)].astype(np.int64)
    regions = regions_of(rules, orders)  # [G, R]
    home = np.broadcast_to(rules.d.home[presidency], (orders.shape[0],))
    regions[np.arange(orders.shape[0]), home] = False
    return regions.sum(axis=1)


@functools.lru_cache(maxsize=8)
def _regions_table(region_bytes: bytes, dtype: str, home: tuple[int, ...]) -> np.ndarray:
    """int16[P, 2**O]: ``regions_outside_home`` of every set of orders (a bit mask, order o = bit o) and presidency,
    computed once per map."""
    order_region = np.frombuffer(region_bytes, dtype=dtype)
    masks = np.arange(1 << order_region.size, dtype=np.int64)
    table = np.zeros((len(home), masks.size), dtype=np.int16)
    for region in np.unique(order_region):
        held = (masks & (np.int64(1) << np.flatnonzero(order_region == region)).sum()) != 0
        for p, own in enumerate(home):
            if region != own:
                table[p] += held
    table.setflags(write=False)
    return table


def regions_of(rules: Rules, orders: np.ndarray) -> np.ndarray:
    """bool[..., R]: the regions holding some of ``orders[..., O]`` (each order lies in region ``order_region``).
    A loop over the orders: a float matmul would call BLAS, whose threads cost far more than this on a busy or
    pinned core."""
    out = np.zeros((*orders.shape[:-1], len(rules.d.regions)), dtype=bool)
    for o, region in enumerate(rules.d.order_region):
        out[..., region] |= orders[..., o]
    return out


def roll_check(rules: Rules, dice, rows: np.ndarray, k: np.ndarray, n_games: int) -> tuple[np.ndarray, np.ndarray]:
    """D-CHECK with k[i] dice in games ``rows``: bool[G] successes and the rows that suffered a mishap."""
    success, mishap = check_outcome(rules, dice.lowest(rows, k))
    won = np.zeros(n_games, dtype=bool)
    won[rows[success]] = True
    return won, rows[mishap]


def company_ships(state: State, location: int | None = None) -> np.ndarray:
    """int[G, 4] ships per location (3 seas, China) of every kind, family-yard ships included (works on an
    Observation too); int[G] at ``location`` alone when given."""
    ships, yard = state.ships, state.yard_ships
    if location is not None:
        ships, yard = ships[:, location], yard[:, :, location]
        out = ships[:, 0].astype(np.int64)
        for kind in range(1, ships.shape[1]):
            out += ships[:, kind]
        for seat in range(yard.shape[1]):
            out += yard[:, seat]
        return out
    out = ships[:, :, 0].astype(np.int64)  # explicit adds over the tiny kind and seat axes (VECTORISE.md)
    for kind in range(1, ships.shape[2]):
        out += ships[:, :, kind]
    for seat in range(yard.shape[1]):
        out += yard[:, seat]
    return out


def govern_effect(
    state: State, rules: Rules, sel: np.ndarray, region: int | np.ndarray, effect: np.ndarray, half: np.ndarray
) -> None:
    """R-GOVERNORS (L158-L161): a successful administrative action in ``region`` (one, or int[G] one per game) for
    games ``sel`` (bool[G]) does ``effect[G]`` (layout.G_*) for the presidency owning the region: raise a regiment in
    its army; half-build a Company ship (``half``, int[G], is the builder's half-built ship, updated in place: a
    governor's is his region's cell of ``state.half_ships``, L160 "two successful actions"; the second half launches
    the ship in the presidency's sea); or collect ``governors.tax`` £ for the Company or the presidency's treasury
    (a second collection in the region this round: ``extra_tax_unrest``). Shared by the governors and the
    Governor-General."""
    gv = rules.governors
    at = np.flatnonzero(sel)  # the games concerned only
    e = effect[at]
    x = np.broadcast_to(region, sel.shape)[at]  # each game's region
    p = np.maximum(state.owner[at, x], 0).astype(np.int64)
    reg = e == L.G_REGIMENT
    state.regiments[at[reg], p[reg]] += 1
    ship = e == L.G_SHIP
    builds = at[ship]
    half[builds] += 1
    launch = half[builds] >= 2
    launched = builds[launch]
    half[launched] -= 2
    state.ships[launched, p[ship][launch], L.COMPANY_SHIP] += 1
    to_company, to_presidency = e == L.G_TAX_COMPANY, e == L.G_TAX_PRESIDENCY
    tax_at = to_company | to_presidency
    taxed, tx = at[tax_at], x[tax_at]
    state.taxed[taxed, tx] += 1
    again = state.taxed[taxed, tx] > 1
    state.unrest[taxed[again], tx[again]] += gv.extra_tax_unrest
    if trace.recorder is not None or to_company.any():  # nothing to pay is no flow
        tax = np.zeros(state.n_games, dtype=np.int64)
        tax[at[to_company]] = gv.tax
        ledger.company(state, "tax", tax)
    if trace.recorder is not None or to_presidency.any():
        to_pres = np.zeros((state.n_games, L.N_TREASURIES), dtype=np.int64)
        to_pres[at[to_presidency], np.asarray(L.T_PRESIDENCY)[p[to_presidency]]] = gv.tax
        ledger.treasuries(state, "tax", to_pres)
    state.tally[taxed, TALLY["tax"]] += gv.tax
