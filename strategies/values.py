"""Shared valuations for the strategies: the odds of a check, what an order, a ship, a share, a lot or the
Company's survival is worth to a family, from public state only.

Every function takes an ``Observation`` (or anything with the same public fields) and returns arrays over its games,
so a strategy decides each game from that game's rows only. Worth is in £-like points; ``VP_WORTH`` converts VP.
The strategies (``balanced`` in ``base.py``, its Company play in ``company.py``, the archetypes in
``archetypes.py``) read these instead of keeping their own copies.
"""

from __future__ import annotations

import functools

import numpy as np

from sim import firms as fr
from sim import kernels
from sim import layout as L
from sim.agents import PUBLIC
from sim.board import order_bits, reach_table, reachable, regions_of
from sim.reduce import sum_last

from . import calibration

# What the balanced family reckons a VP worth in £ mid-game (a luxury: 4 £ -> 2 VP and 1 wealth, and money still
# buys income).
VP_WORTH = 2.5


def yard_use(obs) -> np.ndarray:
    """int[G', N]: ``sim.firms.yard_use`` (ships occupying each family's yards), once per decision."""
    return per_game(obs, "yard_use", fr.yard_use)


def cached(obs, key, make):
    """A value derived from the observation, computed once per decision (kept on the observation; an object
    without a ``__dict__`` gets it fresh)."""
    store = getattr(obs, "__dict__", None)
    if store is None:
        return make()
    store = store.setdefault("_values", {})
    if key not in store:
        store[key] = make()
    return store[key]


def per_game(obs, key, make):
    """``cached`` for a value of the game alone, the same whichever seat decides: ``make(o)`` of an observation
    ``o``, computed once per game when the observation has a row for each of several seats of a game (a
    simultaneous decision, ``Agents.ask_seats``) and handed to each of the game's rows."""
    return cached(obs, key, lambda: on_games(obs, make))


def on_games(obs, make, *rows: np.ndarray) -> np.ndarray:
    """``make(o, *rows)``, an array of a value of the game alone (rows first), for the observation's rows: computed
    on one row per game when a game has several (``per_game``), the game's row then handed to each of its rows.
    ``rows`` are arrays over the observation's rows that are the same in every row of a game (e.g. the law a vote
    is about), handed to ``make`` at the rows it computes on."""
    games = _games(obs)
    if games is None:
        return make(obs, *rows)
    view, back = games
    return make(view, *(a.take(view._first, axis=0) for a in rows)).take(back, axis=0)


def game_rows(obs):
    """(one row per game, int[G'] each of the observation's rows' row there): the observation itself and its rows
    in order when no game has several rows, else the game's first rows (as ``on_games`` computes on them). A
    compiled valuation reads a value of the game alone there and each row's seat values at ``obs``."""
    games = _games(obs)
    if games is None:
        return obs, np.arange(obs.n)
    return games


class _GameRows:
    """The observation's fields at one row per game (the first of its rows): what does not depend on the
    deciding seat. ``per_game`` computes on it; the deciding seat and its random stream are not there."""

    def __init__(self, obs, first: np.ndarray):
        self._obs, self._first = obs, first
        self.rules, self.players, self.n = obs.rules, obs.players, first.size

    def __getattr__(self, name: str):
        if name.startswith("_") or name in ("seat", "rng", "mine", "is_me"):
            raise AttributeError(f"a game's rows have no field {name!r}")
        obs = self._obs
        at = getattr(obs, "_field_at", None)
        if at is not None and name in PUBLIC:  # a field of the game: gathered at these rows only
            value = at(name, self._first)
        else:
            value = getattr(obs, name)
            if isinstance(value, np.ndarray) and value.ndim and value.shape[0] == obs.n:
                value = value.take(self._first, axis=0)
        self.__dict__[name] = value
        return value


def _games(obs) -> tuple[_GameRows, np.ndarray] | None:
    """(one row per game, int[G'] each row's game there) when some game has several rows (a game's rows follow
    one another), else None."""

    def make():
        games = getattr(obs, "batch_rows", None) if not isinstance(obs, _GameRows) else None
        if games is None or obs.n < 2:
            return None
        new = np.empty(obs.n, dtype=bool)
        new[0] = True
        np.not_equal(games[1:], games[:-1], out=new[1:])
        if new.all():
            return None
        return _GameRows(obs, np.flatnonzero(new)), np.cumsum(new) - 1

    return cached(obs, "game_rows", make)


# ------------------------------------------------------------------------------------------------ the dice
def check_odds(rules, k) -> tuple[np.ndarray, np.ndarray]:
    """(P(success), P(mishap)) of a D-CHECK with ``k`` dice (the lowest die decides; k <= 0: no check)."""
    k = np.asarray(k, dtype=float)
    c = rules.check
    fail = (6 - c.success_max) / 6.0  # one die above the success band
    mishap = (7 - c.mishap_min) / 6.0  # one die in the mishap band
    ok = k >= 1
    kk = np.maximum(k, 0)
    return np.where(ok, 1.0 - fail**kk, 0.0), np.where(ok, mishap**kk, 0.0)


def best_dice(rules, worth: np.ndarray, most: np.ndarray, cost_per_die: float = 1.0, cap: int = 8) -> np.ndarray:
    """int[G']: the dice 0..min(most, cap) that maximise P(success) * worth - cost_per_die * dice."""
    k = np.arange(cap + 1)[None, :]
    p, _ = check_odds(rules, k)
    worth = np.asarray(worth, dtype=float)
    most = np.broadcast_to(np.asarray(most), worth.shape)
    if kernels.use(worth.size) and most.dtype.kind in "iuf":
        out = np.empty(worth.shape, dtype=np.int64)
        _best_dice_kernel(p[0], worth, most, float(cost_per_die), out)
        return out
    gain = p * worth[:, None] - cost_per_die * k
    gain = np.where(k <= most[:, None], gain, -np.inf)
    return gain.argmax(axis=1)


@kernels.kernel
def _best_dice_kernel(p, worth, most, cost_per_die, out):
    """``best_dice`` row by row: the first k <= most of the highest p[k] * worth - cost_per_die * k (0 when no k
    is allowed, as numpy's argmax of a row of -inf)."""
    for g in range(worth.shape[0]):
        best, arg = -np.inf, 0
        for k in range(p.shape[0]):
            if k <= most[g]:
                gain = p[k] * worth[g] - cost_per_die * k
                if gain > best:
                    best, arg = gain, k
        out[g] = arg


# ------------------------------------------------------------------------------------------------ the game
def clockwise(obs) -> np.ndarray:
    """int[G', N]: the seats from the deciding one clockwise (itself first): the order a family favours when it
    ranks others, so that no seat number is favoured over another (a rotated table plays every seat alike)."""
    return (obs.seat[:, None] + np.arange(obs.players)[None, :]) % obs.players


def rounds_left(obs) -> np.ndarray:
    """int[G']: rounds still to play, this one included."""
    return per_game(obs, "rounds_left", lambda o: o.rules.game.rounds - o.round.astype(np.int64) + 1)


def expectation(obs, stability: np.ndarray | None = None) -> np.ndarray:
    """int[G']: the public expectation E(s) = 2s + 2 at ``stability`` (default the Company's), L203."""
    s = obs.stability if stability is None else stability
    return obs.rules.d.expect[np.clip(np.asarray(s, dtype=np.int64), 0, obs.rules.company.max_stability)]


def chair_shares(obs) -> np.ndarray:
    """int[G', N] Company shares per family, the chair counted as one (R-CHAIRMAN, L130)."""
    chair = obs.office[:, L.CHAIRMAN][:, None] == np.arange(obs.players)[None, :]
    return obs.shares + chair


def company_stake(obs) -> np.ndarray:
    """float[G', N]: VP each family gains if the Company survives instead of crashing: its shares (chair included)
    score +share VP instead of -share VP; its uninvested factories score only on a crash (R-END, L248-L256)."""
    e = obs.rules.property
    return 2.0 * chair_shares(obs) * obs.share_vp[:, None] - e.factory_crash_vp * obs.factories


# A logistic model of the Company's crash before the end of the game from what the table sees in a round:
# intercept, stability, loans, emergency loans so far, rounds left, and in a fit one offset per round.
# ``CRASH_LOGIT`` (no offsets) was fitted on 12,000 simulated games of competent tables under the default rules and
# is played outside a calibrated arm; a calibrated arm (the default) plays it moved by what the arm's rules change
# (``strategies.calibration``, quantity ``crash_logit``, ``calibration.ANCHORED``; ``calibration.FITTED``: the model
# fitted to the table's own pilot under its rules).
CRASH_LOGIT = calibration.CRASH_LOGIT


def crash_risk(obs) -> np.ndarray:
    """float[G'] the chance that the Company crashes before the end (the ``crash_logit`` coefficients in play on its
    stability, debt, emergency loans taken so far and the round). Calibrated as fitted (``calibration.FITTED``), at the
    start of round 1 it is the crash rate of the arm's pilot. With the fixed coefficients: about 1/3 at the 1710 start,
    above 0.9 at stability 1 with four rounds to go, near 0 at stability 6 in the last round."""

    def make(o):
        b = calibration.value("crash_logit")
        return calibration.crash_chance(b, o.stability, o.loans, o.emergency_total, o.round, o.rules.game.rounds)

    return per_game(obs, "crash_risk", make)


# ------------------------------------------------------------------------------------------------- trade
def sea_ships(obs) -> np.ndarray:
    """int[G', 4] ships per location (3 seas, China) of every kind, family-yard ships included
    (``board.company_ships`` with explicit adds over the tiny axes)."""

    def make(o):
        out = o.ships[:, :, 0] + o.ships[:, :, 1]
        for n in range(o.players):
            out = out + o.yard_ships[:, n]
        return out.astype(np.int64)

    return per_game(obs, "sea_ships", make)


def trade_reach(obs) -> np.ndarray:
    """bool[G', P, O]: open orders each presidency can still fill this round (not filled yet), R-TRADE."""
    return cached(obs, "trade_reach", lambda: reachable(obs.rules, obs.order_open, obs.order_filled))


def sorted_values(obs, reach: np.ndarray) -> np.ndarray:
    """float[G', P, O]: the values of each presidency's reachable orders, best first (0 beyond them)."""
    d = obs.rules.d
    if kernels.use(reach.shape[0]) and reach.dtype == bool:
        out = np.empty(reach.shape)
        _sorted_values_kernel(reach, d.order_value, _by_value(d.order_value), out)
        return out
    vals = np.where(reach, d.order_value[None, None, :].astype(float), 0.0)
    return -np.sort(-vals, axis=2)


def _by_value(order_value: np.ndarray) -> np.ndarray:
    """int64[O]: the orders by value, best first (the map's order among equals: any order of equal values gives
    the same sorted values)."""
    return _by_value_of(order_value.tobytes(), order_value.dtype.str)


@functools.lru_cache(maxsize=8)
def _by_value_of(values: bytes, dtype: str) -> np.ndarray:
    out = np.argsort(-np.frombuffer(values, dtype=dtype).astype(float), kind="stable").astype(np.int64)
    out.setflags(write=False)
    return out


@kernels.kernel
def _sorted_values_kernel(reach, order_value, by_value, out):
    """``sorted_values`` per game and presidency: the reached orders' values in the order of ``by_value`` (the
    orders best first), then zeros."""
    for g in range(reach.shape[0]):
        for p in range(reach.shape[1]):
            j = 0
            for o in by_value:
                if reach[g, p, o]:
                    out[g, p, j] = order_value[o]
                    j += 1
            out[g, p, j:] = 0.0


def ships_wanted(obs, min_value: float = 3.0, reach: np.ndarray | None = None) -> np.ndarray:
    """int[G', P]: ships each presidency's sea could use this round: one per reachable order worth at least
    ``min_value`` (none where the presidency has no President to trade)."""
    reach = trade_reach(obs) if reach is None else reach
    value = obs.rules.d.order_value
    if min_value > 0:  # an order not reached (value 0 here) never counts
        want = sum_last(reach & (value >= min_value)[None, None, :])
    else:
        want = sum_last(np.where(reach, value[None, None, :], 0) >= min_value)
    president = obs.office[:, list(L.PRESIDENT)] >= 0
    return np.where(president, want, 0)


def ship_gap(obs, min_value: float = 3.0, reach: np.ndarray | None = None) -> np.ndarray:
    """int[G', P]: ships wanted in each sea minus the ships sailing there (negative: spare ships)."""
    return ships_wanted(obs, min_value, reach) - sea_ships(obs)[:, : L.PRESIDENCIES]


def trade_worth(obs, reach: np.ndarray, ships: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(worth float[G', P], regions int[G', P]): the value of the ``ships`` best reachable orders of each presidency
    and the regions outside its home they lie in (each costs a die, L179; orders tied with the worst one taken all
    count for the regions)."""
    d = obs.rules.d
    if kernels.use(obs.n) and obs.n and ships.min() >= 0 and len(d.regions) < 63:  # (regions as bits of an int64)
        worth, regions = np.empty(ships.shape), np.empty(ships.shape, dtype=np.int64)
        args = (d.order_value, _by_value(d.order_value), d.order_region, d.home)
        _trade_worth_kernel(reach, ships, *args, worth, regions)
        return worth, regions
    vals = sorted_values(obs, reach)  # best first
    k = np.minimum(ships, vals.shape[2])
    top = np.concatenate([np.zeros(vals.shape[:2] + (1,)), np.cumsum(vals, axis=2)], axis=2)
    worth = np.take_along_axis(top, k[:, :, None], axis=2)[:, :, 0]
    kth = np.take_along_axis(vals, np.maximum(k - 1, 0)[:, :, None], axis=2)  # the worst order taken
    chosen = reach & (d.order_value[None, None, :] >= kth) & (k > 0)[:, :, None]  # (ties: all tied orders)
    in_region = regions_of(obs.rules, chosen)  # [G', P, R]
    in_region[:, np.arange(L.PRESIDENCIES), d.home] = False
    return worth, in_region.sum(axis=2)


@kernels.kernel
def _best_first(value, reached, out):
    """``out``: ``value[o]`` of the orders ``reached`` (0.0 for the others), best first (an insertion sort)."""
    for o in range(value.shape[0]):
        v = float(value[o]) if reached[o] else 0.0
        j = o
        while j > 0 and out[j - 1] < v:
            out[j] = out[j - 1]
            j -= 1
        out[j] = v


def port_worth(rules, order_open: np.ndarray, value: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """float[G', P]: for each presidency's port, the ``limit[G']`` best of the open orders (``order_open``
    bool[G', O]) it reaches, valued ``value[G', O]`` (sums of whole or half order values: exact in any order)."""
    table = reach_table(rules)
    if kernels.use(len(order_open)) and table is not None:
        out = np.empty((len(order_open), table.shape[0]))
        _port_worth_kernel(order_bits(order_open), table, value, limit.astype(np.int64), out)
        return out
    reach = reachable(rules, order_open)  # [G', P, O]
    vals = np.sort(np.where(reach, value[:, None, :], 0.0), axis=2)[:, :, ::-1]  # best first
    return (vals * (np.arange(vals.shape[2])[None, None, :] < limit[:, None, None])).sum(axis=2)


@kernels.kernel
def _port_worth_kernel(open_bits, table, value, limit, out):
    """``port_worth`` game by game."""
    n_orders = value.shape[1]
    reached = np.empty(n_orders, dtype=np.bool_)
    vals = np.empty(n_orders)
    for g in range(open_bits.shape[0]):
        for p in range(table.shape[0]):
            bits = table[p, open_bits[g]]
            for o in range(n_orders):
                reached[o] = bits >> o & 1
            _best_first(value[g], reached, vals)
            total = 0.0
            for j in range(min(max(limit[g], 0), n_orders)):
                total += vals[j]
            out[g, p] = total


@kernels.kernel
def _trade_worth_kernel(reach, ships, order_value, by_value, order_region, home, worth, regions):
    """``trade_worth`` per game and presidency: the reachable values best first (the orders in ``by_value``'s
    order; 0 beyond them, as ``sorted_values``), the first ``ships`` summed in order, and the regions of the orders
    worth at least the worst one taken."""
    n_orders = order_value.shape[0]
    for g in range(reach.shape[0]):
        for p in range(reach.shape[1]):
            k = min(ships[g, p], n_orders)
            total, kth, j = 0.0, 0.0, 0  # kth: the k-th best value (0 when fewer are reached)
            for i in range(n_orders):
                if j == max(k, 1):
                    break
                o = by_value[i]
                if reach[g, p, o]:
                    v = float(order_value[o])
                    if j < k:
                        total += v
                    kth = v
                    j += 1
            if j < max(k, 1):
                kth = 0.0
            worth[g, p] = total
            count = 0  # the regions (bits of ``seen``) of the orders worth at least the worst one taken
            if k > 0:
                seen = np.int64(0)
                for o in range(n_orders):
                    if reach[g, p, o] and order_value[o] >= kth:
                        seen |= np.int64(1) << order_region[o]
                seen &= ~(np.int64(1) << home[p])
                while seen:
                    seen &= seen - 1
                    count += 1
            regions[g, p] = count


def opening_gain(obs) -> np.ndarray:
    """float[G', O+1]: the value a Director of Trade's success would add by opening each closed order (the orders it
    makes reachable for a presidency with a President: a closed port that cuts a presidency off adds all its
    orders) or, last column, the route to China (the Company's opium revenue). The value of orders already
    reachable does not count again."""
    return cached(obs, "opening_gain", lambda: _opening_gain(obs))


def _opening_gain(obs) -> np.ndarray:
    r = obs.rules
    d = r.d
    n_orders = len(d.orders)
    table = reach_table(r)
    values = None if table is None else _mask_values(tuple(d.order_value.tolist()))
    if table is not None and kernels.use(obs.n):
        gain = np.empty((obs.n, n_orders + 1))
        china = (obs.owner, d.opium, obs.china_open, float(r.china.revenue_per_opium))
        _opening_gain_kernel(obs.order_open, obs.office, _PRESIDENTS, table, values, *china, gain)
        return gain
    president = obs.office[:, list(L.PRESIDENT)] >= 0  # [G', P]
    if table is None:  # a large map: unpack every hypothetical opening
        return _opening_gain_unpacked(obs, president)
    open_bits = order_bits(obs.order_open)  # int[G']
    china = r.china.revenue_per_opium * ((obs.owner >= 0) * d.opium).sum(axis=1)
    china = np.where(obs.china_open, 0, china).astype(float)
    gain = np.zeros((obs.n, n_orders + 1))
    weight = np.int64(1) << np.arange(n_orders, dtype=np.int64)
    base = table[:, open_bits]

    def worth(reach: np.ndarray, pres: np.ndarray) -> np.ndarray:  # reach int64[P, K], pres bool[K, P]
        union = np.zeros(reach.shape[1], dtype=np.int64)
        for p in range(reach.shape[0]):
            union |= np.where(pres[:, p], reach[p], 0)
        return values[union]

    base_value = worth(base, president)
    rows, cand = np.divmod(np.flatnonzero(~obs.order_open), n_orders)  # every (game, closed order) pair, in one
    # table lookup (a flat index: np.nonzero of a 2-d array is several times slower)
    if rows.size:
        after = table[:, open_bits[rows] | weight[cand]]
        gain[rows, cand] = worth(after, president[rows]) - base_value[rows]
    gain[:, n_orders] = china
    return gain


_PRESIDENTS = np.array(L.PRESIDENT, dtype=np.int64)  # the Presidents' offices


@kernels.kernel
def _opening_gain_kernel(order_open, office, presidents, table, values, owner, opium, china_open, per_opium, gain):
    """``_opening_gain`` game by game: the value of the orders the presidencies with a President (``office`` at
    ``presidents``) reach once each closed order opens, less what they reach now (sums of whole order values: exact
    in any order); the route to China, while closed, ``per_opium`` a Company region's opium icon."""
    n_orders = gain.shape[1] - 1
    n_pres = presidents.shape[0]
    for g in range(order_open.shape[0]):
        bits = np.int64(0)
        for o in range(n_orders):
            if order_open[g, o]:
                bits |= np.int64(1) << o
        base = np.int64(0)
        for p in range(n_pres):
            if office[g, presidents[p]] >= 0:
                base |= table[p, bits]
        for o in range(n_orders):
            if bits >> o & 1:
                gain[g, o] = 0.0
                continue
            union = np.int64(0)
            for p in range(n_pres):
                if office[g, presidents[p]] >= 0:
                    union |= table[p, bits | np.int64(1) << o]
            gain[g, o] = values[union] - values[base]
        opium_held = 0
        for r in range(owner.shape[1]):
            if owner[g, r] >= 0:
                opium_held += opium[r]
        gain[g, n_orders] = 0.0 if china_open[g] else per_opium * float(opium_held)


@functools.lru_cache(maxsize=8)
def _mask_values(values: tuple[int, ...]) -> np.ndarray:
    """float[2**O]: the summed order values of every set of orders (a bit mask)."""
    masks = np.arange(1 << len(values), dtype=np.int64)
    out = np.zeros(masks.size)
    for o, v in enumerate(values):
        out += ((masks >> o) & 1) * float(v)
    out.setflags(write=False)
    return out


def _opening_gain_unpacked(obs, president: np.ndarray) -> np.ndarray:
    r = obs.rules
    d = r.d
    n_orders = len(d.orders)
    pres = president[:, :, None]
    base = (reachable(r, obs.order_open) & pres).any(axis=1)  # [G', O]
    base_value = (base * d.order_value[None, :]).sum(axis=1)
    gain = np.zeros((obs.n, n_orders + 1))
    rows, cand = np.nonzero(~obs.order_open)
    if rows.size:
        opened = obs.order_open[rows].copy()
        opened[np.arange(rows.size), cand] = True
        reach = (reachable(r, opened) & pres[rows]).any(axis=1)
        gain[rows, cand] = (reach * d.order_value[None, :]).sum(axis=1) - base_value[rows]
    china = r.china.revenue_per_opium * ((obs.owner >= 0) * d.opium).sum(axis=1)
    gain[:, n_orders] = np.where(obs.china_open, 0, china)
    return gain


# ------------------------------------------------------------------------------------------------- assets
def share_worth(obs) -> np.ndarray:
    """float[G']: what one more Company share is worth to the deciding family in £: its expected share VP (+share VP
    on a success, - on a crash), one influence point, the dividends it may draw in the rounds left, and the loan
    it retires (the Company's survival is its other shares' worth)."""
    left = rounds_left(obs).astype(float)
    risk = crash_risk(obs)
    vp = obs.share_vp * (1.0 - 2.0 * risk)
    dividends = 0.6 * np.maximum(left - 1, 0) * (1.0 - risk)
    refinance = np.where(left >= 2, 1.5, 0.0)  # the share retires a loan (R-SHARES): 1 £ interest a round less
    return VP_WORTH * vp + 1.0 + dividends + refinance
