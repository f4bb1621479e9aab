"""How a competent family runs the Company's offices: the Chairman's loans, budget and dividends, the
Director of Trade's checks and moves, the Shipping Manager's purchases, the Presidents' trade.

The plan every office shares (``plan``): each presidency with a President wants one ship per reachable order worth
at least the strategy's ``min_order`` and the dice that maximise the expected value of those orders; the Director
wants a check when opening an order would add reachable value; the Shipping Manager wants the missing ships. The
Chairman borrows what the plan lacks, within his debt limit (loans the families waiting on the exchange will turn
into shares next round cost one round's interest only), hands the budget out to the plan, and pays the dividends
that lift stability towards his target while the profit covers the public expectation (L203-L208). Each function
takes the strategy (for its parameters), the observation and the legal options, and decides each game from its
own rows only.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from sim import kernels
from sim import layout as L
from sim.agents import Observation
from sim.board import reach_table, regions_outside_home
from sim.reduce import any_last, sum_last

from . import politics
from . import values as V

T_PRES = list(L.T_PRESIDENCY)


class Plan(NamedTuple):
    """What the Company's offices want this round (arrays over the observed games)."""

    reach: np.ndarray  # bool[G', P, O] orders each presidency can fill
    gap: np.ndarray  # int[G', P] ships wanted minus ships sailing (negative: spare)
    ships_after: np.ndarray  # int[G', P] ships sailing once the gap is filled
    worth: np.ndarray  # float[G', P] value of the orders those ships would fill
    regions: np.ndarray  # int[G', P] regions outside home those orders lie in
    dice: np.ndarray  # int[G', P] dice each President wants
    open_worth: np.ndarray  # float[G'] what the Director's next success would add (over the rounds left)
    need: np.ndarray  # float[G', 5] £ each treasury should hold (Director, Shipping, 3 presidencies)


def ship_price(obs: Observation, count: np.ndarray, free_yards: np.ndarray, yard_cost) -> np.ndarray:
    """int[G']: £ for ``count`` ships: at free family yards first, then Company ships (leased ones in the last two
    rounds, when a Company ship does not pay for itself)."""
    sh = obs.rules.shipping
    at_yards = np.minimum(count, free_yards)
    rest = count - at_yards
    other = np.where(V.rounds_left(obs) <= 2, sh.leased_cost, sh.company_cost)
    return at_yards * yard_cost + rest * other


def fleet(strategy, obs: Observation) -> tuple[np.ndarray, np.ndarray]:
    """(reach bool[G', P, O], gap int[G', P]): the orders each presidency can fill and the ships its sea lacks for
    those worth at least ``min_order`` (negative: spare ships)."""
    reach = V.trade_reach(obs)
    return reach, V.cached(obs, ("gap", strategy.min_order), lambda: V.ship_gap(obs, strategy.min_order, reach))


def plan(strategy, obs: Observation) -> Plan:
    """The Company's plan for this round (cached on the observation: several offices read it)."""
    store = obs.__dict__.setdefault("_company_plan", {})
    key = (strategy.min_order, strategy.trade_cost)
    if key in store:
        return store[key]
    r = obs.rules
    if kernels.use(obs.n) and reach_table(r) is not None and _whole_values(r.d.order_value):
        out = store[key] = _plan_compiled(strategy, obs)  # (orders as bits of an int64, values as indices)
        return out
    reach, gap = fleet(strategy, obs)
    ships = V.sea_ships(obs)[:, : L.PRESIDENCIES]
    after = ships + np.maximum(gap, 0)
    president = obs.office[:, list(L.PRESIDENT)] >= 0
    worth, regions = V.trade_worth(obs, reach, after)
    if kernels.use(obs.n):  # every presidency in one call (each (game, presidency) on its own, as below)
        dice = V.best_dice(r, worth.ravel(), np.full(worth.size, 8), strategy.trade_cost).reshape(worth.shape)
    else:
        dice = np.zeros((obs.n, L.PRESIDENCIES), dtype=np.int64)
        for p in range(L.PRESIDENCIES):
            dice[:, p] = V.best_dice(r, worth[:, p], np.full(obs.n, 8), strategy.trade_cost)
    dice = np.where(president & (worth > 0), dice, 0)
    gains = V.opening_gain(obs)
    gain = gains.max(axis=1)
    open_worth = 0.5 * np.minimum(gain, 12.0) * V.rounds_left(obs)
    open_dice = np.where(obs.office[:, L.DIRECTOR] >= 0, V.best_dice(r, open_worth, np.full(obs.n, 4)), 0)
    checks = np.minimum(sum_last(gains >= strategy.open_min), strategy.director_checks)
    checks = np.maximum(checks, (gain > 0).astype(np.int64))
    need = np.zeros((obs.n, L.N_TREASURIES))
    need[:, L.T_DIRECTOR] = open_dice * checks * (obs.round > strategy.director_from)
    free = sum_last(np.maximum(obs.shipyards - _yard_use(obs), 0))
    yard_cost = np.maximum(r.shipping.yard_cost + _modifier(obs, "yard_cost"), 0)
    need[:, L.T_SHIPPING] = np.where(
        obs.office[:, L.SHIPPING] >= 0, ship_price(obs, sum_last(np.maximum(gap, 0)), free, yard_cost), 0
    )
    need[:, T_PRES] = np.where(dice > 0, dice + regions, 0)
    need = np.maximum(need - obs.treasury, 0)
    out = Plan(reach, gap, after, worth, regions, dice, open_worth, need)
    store[key] = out
    return out


def _plan_compiled(strategy, obs: Observation) -> Plan:
    """``plan`` game by game in one compiled pass (``_plan_kernel``) from the valuations it reads."""
    r, n = obs.rules, obs.n
    d, sh = r.d, r.shipping
    office = obs.office
    held = np.stack([office[:, L.DIRECTOR] >= 0, office[:, L.SHIPPING] >= 0], axis=1)
    free = sum_last(np.maximum(obs.shipyards - _yard_use(obs), 0))
    yard_cost = np.maximum(r.shipping.yard_cost + _modifier(obs, "yard_cost"), 0)
    ints = np.stack([V.rounds_left(obs), obs.round.astype(np.int64), free, yard_cost.astype(np.int64)], axis=1)
    odds = V.check_odds(r, np.arange(9)[None, :])[0][0]  # the odds best_dice weighs (8 dice at most)
    reach = np.empty((n, L.PRESIDENCIES, len(d.orders)), dtype=bool)
    gap, after = np.empty((n, L.PRESIDENCIES), dtype=np.int64), np.empty((n, L.PRESIDENCIES), dtype=np.int64)
    worth, regions = np.empty((n, L.PRESIDENCIES)), np.empty((n, L.PRESIDENCIES), dtype=np.int64)
    dice, open_worth = np.empty((n, L.PRESIDENCIES), dtype=np.int64), np.empty(n)
    need = np.empty((n, L.N_TREASURIES))
    costs = np.array([sh.leased_cost, sh.company_cost, strategy.director_checks, strategy.director_from], np.int64)
    weights = np.array([strategy.min_order, strategy.trade_cost, strategy.open_min], dtype=float)
    masks = _order_masks(d.order_value.tobytes(), d.order_value.dtype.str, d.order_region.tobytes(),
                         d.order_region.dtype.str, float(strategy.min_order))  # fmt: skip
    map_ = (reach_table(r), d.order_value, V._by_value(d.order_value), d.home, *masks)
    valued = (obs.order_open, obs.order_filled, V.sea_ships(obs), office, _PRESIDENTS, _TREASURY, held, obs.treasury)
    _plan_kernel(*valued, V.opening_gain(obs), ints, *map_, odds, costs, weights, reach, gap, after, worth, regions,
                 dice, open_worth, need)  # fmt: skip
    return Plan(reach, gap, after, worth, regions, dice, open_worth, need)


def _whole_values(value: np.ndarray) -> bool:
    """Whether the order values are whole numbers from 0 (``_plan_kernel`` indexes masks with them)."""
    return value.dtype.kind in "iu" and (value.size == 0 or value.min() >= 0)


@functools.lru_cache(maxsize=32)
def _order_masks(values: bytes, value_type: str, regions: bytes, region_type: str, min_order: float):
    """The orders as bit masks (order o = bit o): (those worth at least ``min_order``, 1 where an order not reached
    (worth 0 then) counts too, int64[V + 1] those worth at least each whole value v, int64[R] those in each
    region), for ``_plan_kernel``."""
    value = np.frombuffer(values, dtype=value_type)
    region = np.frombuffer(regions, dtype=region_type)
    bit = np.int64(1) << np.arange(value.size, dtype=np.int64)
    wanted = np.int64(bit[value >= min_order].sum())
    at_least = np.array([bit[value >= v].sum() for v in range(int(value.max(initial=0)) + 1)], dtype=np.int64)
    in_region = np.array([bit[region == r].sum() for r in range(int(region.max(initial=-1)) + 1)], dtype=np.int64)
    return wanted, int(min_order <= 0), at_least, in_region


_PRESIDENTS = np.array(L.PRESIDENT, dtype=np.int64)
_TREASURY = np.array([L.T_DIRECTOR, L.T_SHIPPING, *L.T_PRESIDENCY], dtype=np.int64)  # the plan's treasuries


@kernels.kernel
def _popcount(x):
    """The set bits of a non-negative int64."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56 & 0xFF


@kernels.kernel
def _usable(order_open, order_filled, g):
    """The orders open and not filled in game ``g``, as the bits of a word (the index of ``board.reach_table``)."""
    usable = np.int64(0)
    for o in range(order_open.shape[1]):
        if order_open[g, o] and not order_filled[g, o]:
            usable |= np.int64(1) << o
    return usable


@kernels.kernel
def _plan_kernel(order_open, order_filled, sea, office, presidents, cols, held, treasury, gains, ints, table,
                 order_value, by_value, home, wanted_mask, unreached_count, at_least, in_region, odds, costs,
                 weights, reach, gap, after, worth, regions, dice, open_worth, need):  # fmt: skip
    """``plan`` game by game (``cols``: the treasuries of the Director, the Shipping Manager and the presidencies in
    ``need``): ``held`` the Director's and the Shipping Manager's offices held, ``ints`` the rounds left, the round,
    the free family yards and the £ a yard ship costs; ``costs`` a leased and a Company ship's price, the
    strategy's ``director_checks`` and ``director_from``; ``weights`` its ``min_order``, ``trade_cost`` and
    ``open_min``. The orders each presidency reaches are a bit mask (``board.reach_table``; the masks of
    ``_order_masks``), written out as ``reach``. Each step as ``fleet``, ``values.trade_worth`` and
    ``values.best_dice`` take it."""
    n_orders, n_pres = order_value.shape[0], presidents.shape[0]
    every = (np.int64(1) << n_orders) - 1
    leased_cost, company_cost, director_checks, director_from = costs[0], costs[1], costs[2], costs[3]
    trade_cost, open_min = weights[1], weights[2]
    for g in range(order_open.shape[0]):
        rounds_left, round_, free, yard_cost = ints[g, 0], ints[g, 1], ints[g, 2], ints[g, 3]
        usable = _usable(order_open, order_filled, g)
        wanted = 0  # ships the seas lack in all
        for p in range(n_pres):
            bits = table[p, usable]
            for o in range(n_orders):
                reach[g, p, o] = bits >> o & 1
            president = office[g, presidents[p]] >= 0
            want = 0  # ``values.ships_wanted``
            if president:
                want = _popcount(bits & wanted_mask) + unreached_count * _popcount(every & ~bits)
            gap[g, p] = want - sea[g, p]
            wanted += max(gap[g, p], 0)
            after[g, p] = sea[g, p] + max(gap[g, p], 0)
            k = min(after[g, p], n_orders)  # ``values.trade_worth``
            total, kth, j = 0.0, 0.0, 0
            for i in range(n_orders):
                if j == max(k, 1):
                    break
                o = by_value[i]
                if bits >> o & 1:
                    v = float(order_value[o])
                    if j < k:
                        total += v
                    kth = v
                    j += 1
            if j < max(k, 1):
                kth = 0.0
            worth[g, p] = total
            count = 0  # the regions outside home of the orders worth at least the worst one taken
            if k > 0:
                chosen = bits & at_least[int(kth)]
                for r in range(in_region.shape[0]):
                    if r != home[p] and chosen & in_region[r]:
                        count += 1
            regions[g, p] = count
            best, arg = -np.inf, 0  # ``values.best_dice`` of 8 dice at most
            for m in range(odds.shape[0]):
                value = odds[m] * total - trade_cost * m
                if value > best:
                    best, arg = value, m
            dice[g, p] = arg if president and total > 0 else 0
        gain, checks = gains[g, 0], 0
        for o in range(gains.shape[1]):
            gain = max(gain, gains[g, o])
            if gains[g, o] >= open_min:
                checks += 1
        open_worth[g] = 0.5 * min(gain, 12.0) * rounds_left
        open_dice = 0
        if held[g, 0]:  # ``values.best_dice`` of 4 dice at most, 1 £ a die
            best = -np.inf
            for m in range(min(odds.shape[0], 5)):
                value = odds[m] * open_worth[g] - 1.0 * m
                if value > best:
                    best, open_dice = value, m
        checks = max(min(checks, director_checks), 1 if gain > 0 else 0)
        need[g, cols[0]] = open_dice * checks * (1 if round_ > director_from else 0)
        price = 0  # ``ship_price``
        if held[g, 1]:
            at_yards = min(wanted, free)
            price = at_yards * yard_cost + (wanted - at_yards) * (leased_cost if rounds_left <= 2 else company_cost)
        need[g, cols[1]] = price
        for p in range(n_pres):
            need[g, cols[2 + p]] = dice[g, p] + regions[g, p] if dice[g, p] > 0 else 0
        for t in range(need.shape[1]):
            need[g, t] = max(need[g, t] - treasury[g, t], 0.0)


def _yard_use(obs: Observation) -> np.ndarray:
    return V.yard_use(obs)


def _modifier(obs: Observation, name: str) -> np.ndarray:
    return politics.in_force(obs, name)


# ------------------------------------------------------------------------------------------------ Chairman
def take_loans(strategy, obs: Observation, legal) -> np.ndarray:
    """Loans that cover what the plan lacks beyond the balance (more than ``free_loans`` go to the board): for the
    running needs (dice, the Director's checks) while the debt stays within ``max_debt``, for ships (capital that
    earns every round) within ``invest_debt`` while at least three rounds are left; both limits grow by
    ``waiting_loans`` for each relative waiting on the exchange, who turns a loan into a share in phase 4
    (R-SHARES)."""
    pl = plan(strategy, obs)
    value = obs.rules.company.loan_value
    ships = pl.need[:, L.T_SHIPPING]
    running = pl.need.sum(axis=1) - ships
    waiting = strategy.waiting_loans * sum_last(obs.exchange >= 0)
    run_short = np.maximum(running - obs.balance, 0)
    run_loans = np.ceil(run_short / value).astype(np.int64)
    run_loans = np.minimum(run_loans, np.maximum(strategy.max_debt + waiting - obs.loans, 0))
    left_over = np.maximum(obs.balance + run_loans * value - running, 0)
    ship_loans = np.ceil(np.maximum(ships - left_over, 0) / value).astype(np.int64)
    room = np.maximum(strategy.invest_debt + waiting - obs.loans - run_loans, 0)
    ship_loans = np.where(V.rounds_left(obs) >= 3, np.minimum(ship_loans, room), 0)
    return np.minimum(run_loans + ship_loans, legal.max_loans).astype(np.int64)


def approve_loans(strategy, obs: Observation, legal) -> np.ndarray:
    """The board approves loans past the free ones while the debt stays within ``invest_debt`` plus
    ``waiting_loans`` a waiting buyer; the Chairman's own family always does."""
    waiting = strategy.waiting_loans * sum_last(obs.exchange >= 0)
    return (legal.chairman == obs.seat) | (obs.loans + legal.loans <= strategy.invest_debt + waiting)


def allocate_budget(strategy, obs: Observation, legal) -> np.ndarray:
    """The whole budget to the committees whose office is held (L132): the plan's needs first, in order of urgency
    when the budget falls short (the Presidents' dice, then the ships, then the Director's checks), the rest to the
    presidencies that trade (their treasuries carry it to later rounds), else to the Director, else to any open
    committee; the Shipping Manager never gets more than his ships cost (with 3 £ or more he must buy,
    R-SHIPPING)."""
    pl = plan(strategy, obs)
    budget = legal.budget.astype(np.int64)
    if kernels.use(obs.n):
        out = np.empty((obs.n, L.N_TREASURIES), dtype=np.int64)
        held = obs.office[:, L.DIRECTOR] >= 0
        open_ = np.ascontiguousarray(legal.open)  # one layout: one compiled signature
        _allocate_kernel(budget, open_, pl.need, pl.worth, pl.open_worth, held, _TREASURY, out)
        return out
    need = np.ceil(np.where(legal.open, pl.need, 0.0)).astype(np.int64)
    first = np.zeros_like(need)
    rest = budget.copy()
    for group in (T_PRES, [L.T_SHIPPING], [L.T_DIRECTOR]):  # the Presidents' dice, then ships, then the Director
        want = need[:, group]
        total = want.sum(axis=1)
        give = np.where(total <= rest, total, rest)
        part = np.floor(want * (give / np.maximum(total, 1))[:, None]).astype(np.int64)
        part[np.arange(obs.n), want.argmax(axis=1)] += give - part.sum(axis=1)
        first[:, group] = part
        rest -= give
    weight = np.zeros((obs.n, L.N_TREASURIES))
    weight[:, T_PRES] = pl.worth + 0.01
    weight[:, L.T_DIRECTOR] = 0.3 * np.minimum(pl.open_worth, 10.0) * (obs.office[:, L.DIRECTOR] >= 0)
    weight = np.where(legal.open, weight, 0.0)
    weight[:, L.T_SHIPPING] = 0.0
    none = weight.sum(axis=1) <= 0
    weight = np.where(none[:, None] & legal.open, 1.0, weight)
    return first + _split(rest, weight)


def _split(total: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Integer split of ``total[G']`` proportional to ``weights[G', K]`` (remainder to the heaviest column)."""
    w = np.maximum(weights, 0).astype(float)
    w_sum = w.sum(axis=1, keepdims=True)
    w = np.where(w_sum > 0, w, 1.0)
    share = np.floor(total[:, None] * w / w.sum(axis=1, keepdims=True)).astype(np.int64)
    share[np.arange(len(total)), w.argmax(axis=1)] += total - share.sum(axis=1)
    return share


@kernels.kernel
def _allocate_kernel(budget, open_, need, worth, open_worth, held, cols, out):
    """``allocate_budget`` game by game (``cols``: the Director's, the Shipping Manager's and the presidencies'
    treasuries; ``held``: the Director's office held): the needs by urgency, then ``_split`` of the rest. The
    weights are summed one after the other, as numpy sums a row of five."""
    n_t = cols.shape[0]
    want = np.empty(n_t, dtype=np.int64)
    w = np.empty(n_t)
    for g in range(budget.shape[0]):
        for t in range(n_t):
            want[t] = np.int64(np.ceil(need[g, t] if open_[g, t] else 0.0))
            out[g, t] = 0
        rest = budget[g]
        for first, last in ((2, n_t), (1, 2), (0, 1)):  # the Presidents' dice, then ships, then the Director
            total, top = 0, first
            for i in range(first, last):
                total += want[cols[i]]
                if want[cols[i]] > want[cols[top]]:
                    top = i
            give = total if total <= rest else rest
            ratio = give / max(total, 1)
            handed = 0
            for i in range(first, last):
                part = np.int64(np.floor(want[cols[i]] * ratio))
                out[g, cols[i]] = part
                handed += part
            out[g, cols[top]] += give - handed
            rest -= give
        for t in range(n_t):
            w[t] = 0.0
        for p in range(worth.shape[1]):
            w[cols[2 + p]] = worth[g, p] + 0.01
        w[cols[0]] = 0.3 * min(open_worth[g], 10.0) * (1.0 if held[g] else 0.0)
        total_w = 0.0
        for t in range(n_t):
            if not open_[g, t] or t == cols[1]:
                w[t] = 0.0
            total_w += w[t]
        if total_w <= 0:
            for t in range(n_t):
                if open_[g, t]:
                    w[t] = 1.0
        total_w = 0.0  # ``_split``
        for t in range(n_t):
            w[t] = max(w[t], 0.0)
            total_w += w[t]
        if not total_w > 0:
            total_w = 0.0
            for t in range(n_t):
                w[t] = 1.0
                total_w += w[t]
        shared, top = 0, 0
        for t in range(n_t):
            share = np.int64(np.floor(rest * w[t] / total_w))
            out[g, t] += share
            shared += share
            if w[t] > w[top]:
                top = t
        out[g, top] += rest - shared


def pay_dividends(strategy, obs: Observation, legal) -> np.ndarray:
    """Payouts after the costs (the balance is this round's profit, L203-L208): where the profit covers E(s) the
    fewest payouts that cover it (+1 stability) while stability is below ``target_stability``, two levels when the
    profit allows and stability is two short; at or above the target nothing (the balance funds next round's
    budget instead of loans). In the last round everything goes out (money left in the Company scores nothing),
    and the levels it covers are a buffer against India; so it does when the Company looks doomed
    (``values.crash_risk`` at least ``cash_out_risk``): a crash would lose the balance anyway."""
    per = np.maximum(legal.per_payout, 1).astype(np.int64)
    most = legal.max_payouts.astype(np.int64)
    s = obs.stability.astype(np.int64)
    top = obs.rules.company.max_stability
    e1 = V.expectation(obs, s)
    e2 = e1 + V.expectation(obs, np.minimum(s + 1, top))
    one = -(-e1 // per)
    two = -(-e2 // per)
    below = s < strategy.target_stability
    k = np.where(below & (two <= most) & (s + 2 <= strategy.target_stability), two, np.where(below, one, 0))
    k = np.where(k <= most, k, 0)
    last = V.rounds_left(obs) <= 1
    doomed = V.crash_risk(obs) >= strategy.cash_out_risk  # the balance is lost on a crash: pay it to the shares
    return np.where(last | doomed, most, k).astype(np.int64)


def royal_protection(strategy, obs: Observation, legal) -> np.ndarray:
    """Invoke royal protection (once a game) when the shortfall would need two emergency loans (-1 stability,
    D-EMERGENCY) or is at least one loan late in the game."""
    value = obs.rules.company.loan_value
    per = obs.rules.stability.emergency_loans_per_loss
    loans_needed = -(-legal.shortfall // value)
    return (loans_needed >= per) | ((loans_needed >= 1) & (V.rounds_left(obs) <= 2))


# ---------------------------------------------------------------------------------------- Director of Trade
def trade_check(strategy, obs: Observation, legal) -> np.ndarray:
    """Dice for the next check: what maximises the chance of opening something worth ``open_worth`` against the
    dice's cost, from the Director's treasury (0 stops when nothing openable adds value)."""
    gains, treasury = V.opening_gain(obs), legal.treasury.astype(np.int64)
    if kernels.use(obs.n):
        out = np.empty(obs.n, dtype=np.int64)
        odds = V.check_odds(obs.rules, np.arange(6)[None, :])[0][0]  # the odds best_dice weighs (5 dice at most)
        _trade_check_kernel(gains, legal.openable, V.rounds_left(obs), treasury, odds, out)
        return out
    gain = np.where(legal.openable, gains, 0.0).max(axis=1)
    worth = 0.5 * np.minimum(gain, 12.0) * V.rounds_left(obs)
    k = V.best_dice(obs.rules, worth, treasury, 1.0, cap=5)
    return np.where(gain > 0, k, 0).astype(np.int64)


@kernels.kernel
def _trade_check_kernel(gains, openable, rounds_left, treasury, odds, out):
    """``trade_check`` game by game: the most an openable column adds, its worth over the rounds left, and
    ``values.best_dice`` of the treasury's dice at 1 £ a die (``odds``: of 0 to 5 dice)."""
    for g in range(gains.shape[0]):
        gain = 0.0 if not openable[g, 0] else gains[g, 0]
        for o in range(1, gains.shape[1]):
            gain = max(gain, gains[g, o] if openable[g, o] else 0.0)
        worth = 0.5 * min(gain, 12.0) * rounds_left[g]
        best, k = -np.inf, 0
        for m in range(odds.shape[0]):
            if m <= treasury[g]:
                value = odds[m] * worth - 1.0 * m
                if value > best:
                    best, k = value, m
        out[g] = k if gain > 0 else 0


def open_order(strategy, obs: Observation, legal) -> np.ndarray:
    """The closed order (or the route to China, last column) whose opening adds the most reachable value; ties to
    the order worth most."""
    d = obs.rules.d
    own = np.concatenate([d.order_value, [0]]).astype(float)
    if kernels.use(obs.n):
        out = np.empty(obs.n, dtype=np.int64)
        _open_order_kernel(V.opening_gain(obs), 0.01 * own, legal.openable, out)
        return out
    score = V.opening_gain(obs) + 0.01 * own[None, :]
    masked = np.where(legal.openable, score, -np.inf)
    return np.where(legal.openable.any(axis=1), masked.argmax(axis=1), -1)


@kernels.kernel
def _open_order_kernel(gains, bonus, openable, out):
    """``open_order`` game by game: the first openable column of the highest gain plus ``bonus``, -1 for none."""
    for g in range(gains.shape[0]):
        best, pick = -np.inf, -1
        for o in range(gains.shape[1]):
            if openable[g, o]:
                score = gains[g, o] + bonus[o]
                if pick < 0 or score > best:
                    best, pick = score, o
        out[g] = pick


def director_moves(strategy, obs: Observation, legal) -> tuple[np.ndarray, ...]:
    """Up to M moves of ships from seas with spare ships to the seas that lack them most (Company ships first,
    then a family's yard ships); with China open and opium to carry, up to two ships to the China committee."""
    m = obs.rules.director.moves
    out = tuple(np.zeros((obs.n, m), dtype=np.int64) for _ in range(5))
    if m == 0:
        return out
    kind, fam, src, dst, cnt = out
    d = obs.rules.d
    if kernels.use(obs.n) and reach_table(obs.rules) is not None and _whole_values(d.order_value):
        gap = np.empty((obs.n, L.N_SHIP_LOCS), dtype=np.int64)  # [G', 4] with China
        masks = _order_masks(d.order_value.tobytes(), d.order_value.dtype.str, d.order_region.tobytes(),
                             d.order_region.dtype.str, float(strategy.min_order))[:2]  # fmt: skip
        seas = (obs.order_open, obs.order_filled, obs.office, _PRESIDENTS, reach_table(obs.rules), *masks)
        _ship_gap_kernel(*seas, V.sea_ships(obs), gap)
    else:
        _, sea_gap = fleet(strategy, obs)
        gap = np.concatenate([sea_gap, np.zeros((obs.n, 1), dtype=np.int64)], axis=1)  # [G', 4] with China
    opium = ((obs.owner >= 0) * obs.rules.d.opium).sum(axis=1)
    china = obs.china_open & (opium > 0) & (obs.office[:, L.CHINA] >= 0)
    gap[:, L.CHINA_LOC] = np.where(china, 2 - V.sea_ships(obs)[:, L.CHINA_LOC], 0)
    company = legal.ships[:, :, L.COMPANY_SHIP].astype(np.int64).copy()  # [G', 4]
    yard = legal.yard_ships.astype(np.int64).copy()  # [G', N, 4]
    if kernels.use(obs.n):
        moves = np.array([L.MOVE_NONE, L.MOVE_COMPANY_SHIPS, L.MOVE_YARD_SHIPS, L.CHINA_LOC], dtype=np.int64)
        _director_moves_kernel(gap, company, yard, moves, *out)
        return out
    rows = np.arange(obs.n)
    for j in range(m):
        spare = np.where(gap < 0, -gap, 0)
        spare[:, L.CHINA_LOC] = 0
        movable = company + yard.sum(axis=1)
        spare = np.minimum(spare, movable)
        s = spare.argmax(axis=1)
        d = gap.argmax(axis=1)
        c = np.minimum(spare[rows, s], gap[rows, d])
        go = (c > 0) & (s != d)
        use_company = company[rows, s] > 0
        c = np.where(use_company, np.minimum(c, company[rows, s]), c)
        f = yard[rows, :, s].argmax(axis=1)
        c = np.where(use_company, c, np.minimum(c, yard[rows, f, s]))
        go &= c > 0
        kind[:, j] = np.where(go, np.where(use_company, L.MOVE_COMPANY_SHIPS, L.MOVE_YARD_SHIPS), L.MOVE_NONE)
        fam[:, j], src[:, j], dst[:, j], cnt[:, j] = np.where(use_company, 0, f), s, d, np.maximum(c, 1)
        moved = np.where(go, c, 0)
        company[rows, s] -= np.where(use_company, moved, 0)
        yard[rows, f, s] -= np.where(use_company, 0, moved)
        gap[rows, s] += moved
        gap[rows, d] -= moved
    return out


@kernels.kernel
def _ship_gap_kernel(order_open, order_filled, office, presidents, table, wanted_mask, unreached_count, sea, gap):
    """``fleet``'s ship gaps game by game (as ``_plan_kernel`` counts them), 0 in the last columns of ``gap``."""
    n_orders = order_open.shape[1]
    every = (np.int64(1) << n_orders) - 1
    for g in range(order_open.shape[0]):
        usable = _usable(order_open, order_filled, g)
        for p in range(presidents.shape[0]):
            want = 0
            if office[g, presidents[p]] >= 0:
                bits = table[p, usable]
                want = _popcount(bits & wanted_mask) + unreached_count * _popcount(every & ~bits)
            gap[g, p] = want - sea[g, p]
        for p in range(presidents.shape[0], gap.shape[1]):
            gap[g, p] = 0


@kernels.kernel
def _director_moves_kernel(gap, company, yard, moves, kind, fam, src, dst, cnt):
    """``director_moves`` game by game: each move from the sea with the most spare ships it can move (Company ships
    first, else the yard ships of the family with most there) to the location lacking most. ``moves``: the move
    kinds none, Company ships, yard ships, and the China location (which gives no spare ships)."""
    move_none, move_company, move_yard, china = moves[0], moves[1], moves[2], moves[3]
    n_loc, n_fam = gap.shape[1], yard.shape[1]
    for g in range(gap.shape[0]):
        for j in range(kind.shape[1]):
            s, d, most_spare, most_gap = 0, 0, -1, gap[g, 0]
            for loc in range(n_loc):
                movable = company[g, loc]
                for f in range(n_fam):
                    movable += yard[g, f, loc]
                spare = 0 if loc == china or gap[g, loc] >= 0 else min(-gap[g, loc], movable)
                if spare > most_spare:
                    s, most_spare = loc, spare
                if gap[g, loc] > most_gap:
                    d, most_gap = loc, gap[g, loc]
            c = min(most_spare, most_gap)
            go = c > 0 and s != d
            use_company = company[g, s] > 0
            f = 0
            for k in range(n_fam):
                if yard[g, k, s] > yard[g, f, s]:
                    f = k
            c = min(c, company[g, s]) if use_company else min(c, yard[g, f, s])
            go = go and c > 0
            kind[g, j] = (move_company if use_company else move_yard) if go else move_none
            fam[g, j], src[g, j], dst[g, j], cnt[g, j] = 0 if use_company else f, s, d, max(c, 1)
            moved = c if go else 0
            if use_company:
                company[g, s] -= moved
            else:
                yard[g, f, s] -= moved
            gap[g, s] += moved
            gap[g, d] -= moved


# ---------------------------------------------------------------------------------------- Shipping Manager
def buy_ships(strategy, obs: Observation, legal) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ships one at a time for the sea whose next unserved order is worth most (at least ``min_order``): at a free
    family yard (own first, then the others clockwise); else a Company ship while the rounds left pay for it, the
    money still leases a ship for every other order wanted and the rules allow one (D-COMPANY-SHIPS: no family yard
    free, or under "no_yard_ship" none holding a ship, ``legal.yard_held``), else a leased ship. Then, as the rules
    oblige (R-SHIPPING), the cheapest ships while 3 £ or more remain, to the sea whose next order is worth most."""
    sh = obs.rules.shipping
    rows = np.arange(obs.n)
    money = legal.money.astype(np.int64).copy()
    free = legal.free_yards.astype(np.int64).copy()
    literal = sh.company_ships == "no_yard_ship"
    held = legal.yard_held.astype(np.int64).copy() if literal else np.zeros(obs.n, dtype=np.int64)
    yard_cost = np.maximum(legal.yard_cost.astype(np.int64), 0)
    d = obs.rules.d
    if kernels.use(obs.n) and reach_table(obs.rules) is not None:
        sea_value = np.empty((obs.n, L.PRESIDENCIES, len(d.orders) + 1))
        seas = (obs.order_open, obs.order_filled, obs.office, _PRESIDENTS, reach_table(obs.rules))
        _sea_values_kernel(*seas, d.order_value, V._by_value(d.order_value), sea_value)
    else:
        president = obs.office[:, list(L.PRESIDENT)] >= 0
        sea_value = V.sorted_values(obs, V.trade_reach(obs)) * president[:, :, None]  # [G', P, O]
        sea_value = np.concatenate([sea_value, np.zeros((obs.n, L.PRESIDENCIES, 1))], axis=2)
    ships = V.sea_ships(obs)[:, : L.PRESIDENCIES].astype(np.int64)
    leased = np.zeros((obs.n, L.PRESIDENCIES), dtype=np.int64)
    company = np.zeros_like(leased)
    yard = np.zeros((obs.n, obs.players, L.PRESIDENCIES), dtype=np.int64)
    order = V.clockwise(obs)  # own yards first, then clockwise
    lasting = V.rounds_left(obs) >= 3
    wanted_by_sea = sum_last(sea_value >= strategy.min_order)
    last_slot = sea_value.shape[2] - 1
    if kernels.use(obs.n) and sh.leased_cost > 0:
        costs = np.array([sh.must_buy_from, sh.leased_cost, sh.company_cost, literal], dtype=np.int64)
        reserve = strategy.lease_reserve * sh.leased_cost  # (as the numpy loop groups it)
        args = (sea_value, ships, money, free, held, yard_cost, order, lasting, wanted_by_sea)
        args += (float(strategy.min_order),)
        _buy_ships_kernel(*args, costs, reserve, leased, company, yard)
        return leased, company, yard
    while True:  # each pass buys a ship in some game or stops; money falls, so it ends
        nxt = np.take_along_axis(sea_value, np.minimum(ships, last_slot)[:, :, None], 2)[:, :, 0]
        d = nxt.argmax(axis=1)
        wanted = nxt[rows, d] >= strategy.min_order
        forced = (money >= sh.must_buy_from) & ~wanted  # the rules oblige him to spend: the cheapest ship
        others = sum_last(np.maximum(wanted_by_sea - ships, 0)) - 1
        has_free = free.sum(axis=1) > 0
        to_yard = (wanted | forced) & has_free & (money >= yard_cost)
        to_yard &= ~forced | (yard_cost <= sh.leased_cost)
        rich = money >= sh.company_cost + strategy.lease_reserve * sh.leased_cost * np.maximum(others, 0)
        to_company = wanted & ~has_free & (held == 0) & lasting & rich & (money >= sh.company_cost)
        to_lease = (wanted | forced) & ~to_yard & ~to_company & (money >= sh.leased_cost)
        if not (to_yard | to_company | to_lease).any():
            break
        owner = np.take_along_axis(order, (np.take_along_axis(free, order, 1) > 0).argmax(axis=1)[:, None], 1)[:, 0]
        yard[rows[to_yard], owner[to_yard], d[to_yard]] += 1
        free[rows[to_yard], owner[to_yard]] -= 1
        held += to_yard & literal
        company[rows[to_company], d[to_company]] += 1
        # past the last order of every sea only the obligation is left: its leased ships in one step, not one a pass
        bulk = to_lease & (nxt[rows, d] <= 0)
        n = np.where(bulk, np.minimum((money - sh.must_buy_from) // sh.leased_cost + 1, money // sh.leased_cost), 1)
        n = np.where(to_lease, np.maximum(n, 1), 0)
        leased[rows, d] += n
        money -= np.where(to_yard, yard_cost, 0) + np.where(to_company, sh.company_cost, 0)
        money -= n * sh.leased_cost
        ships[rows, d] += (to_yard | to_company) + n
    return leased, company, yard


@kernels.kernel
def _sea_values_kernel(order_open, order_filled, office, presidents, table, order_value, by_value, out):
    """``buy_ships``' values of each sea's reachable orders best first (``values.sorted_values``, the orders in
    ``by_value``'s order), 0 beyond them, in the extra last column and where the presidency has no President."""
    n_orders = order_open.shape[1]
    for g in range(order_open.shape[0]):
        usable = _usable(order_open, order_filled, g)
        for p in range(presidents.shape[0]):
            j = 0
            if office[g, presidents[p]] >= 0:
                bits = table[p, usable]
                for i in range(n_orders):
                    o = by_value[i]
                    if bits >> o & 1:
                        out[g, p, j] = order_value[o]
                        j += 1
            for k in range(j, out.shape[2]):
                out[g, p, k] = 0.0


@kernels.kernel
def _buy_ships_kernel(sea_value, ships, money, free, held, yard_cost, order, lasting, wanted_by_sea, min_order,
                      costs, reserve, leased, company, yard):  # fmt: skip
    """``buy_ships``' passes game by game (a game that buys nothing in a pass buys nothing later): ``costs`` are
    the rules' must-buy threshold, leased and Company ship prices and 1 under D-COMPANY-SHIPS "no_yard_ship"
    (``held``: ships standing on family yards); ``reserve`` the strategy's lease reserve in £."""
    must_buy_from, leased_cost, company_cost, literal = costs[0], costs[1], costs[2], costs[3]
    n_seas, last_slot = ships.shape[1], sea_value.shape[2] - 1
    for g in range(ships.shape[0]):
        while True:
            d, best = 0, -np.inf
            for p in range(n_seas):
                v = sea_value[g, p, min(ships[g, p], last_slot)]
                if v > best:
                    d, best = p, v
            wanted = best >= min_order
            forced = money[g] >= must_buy_from and not wanted
            others = -1
            for p in range(n_seas):
                others += max(wanted_by_sea[g, p] - ships[g, p], 0)
            has_free = free[g].sum() > 0
            to_yard = (wanted or forced) and has_free and money[g] >= yard_cost[g]
            to_yard = to_yard and (not forced or yard_cost[g] <= leased_cost)
            rich = money[g] >= company_cost + reserve * max(others, 0)
            to_company = wanted and not has_free and held[g] == 0 and lasting[g] and rich and money[g] >= company_cost
            to_lease = (wanted or forced) and not to_yard and not to_company and money[g] >= leased_cost
            if not (to_yard or to_company or to_lease):
                break
            if to_yard:
                owner = order[g, 0]
                for j in range(order.shape[1]):  # own yards first, then clockwise
                    if free[g, order[g, j]] > 0:
                        owner = order[g, j]
                        break
                yard[g, owner, d] += 1
                free[g, owner] -= 1
                held[g] += literal
                money[g] -= yard_cost[g]
            if to_company:
                company[g, d] += 1
                money[g] -= company_cost
            n = 0
            if to_lease:  # past the last order of every sea only the obligation is left: its ships at once
                n = 1
                if best <= 0:
                    n = max(min((money[g] - must_buy_from) // leased_cost + 1, money[g] // leased_cost), 1)
            leased[g, d] += n
            money[g] -= n * leased_cost
            ships[g, d] += (1 if to_yard or to_company else 0) + n


# --------------------------------------------------------------------------------------------- Presidents
def trade(strategy, obs: Observation, legal, place_clerks) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The best reachable orders, one per ship, with the dice that maximise the expected revenue less their cost;
    orders outside home are dropped when the die each of their regions costs does not pay. In the last round the
    whole treasury is rolled (money left there scores nothing)."""
    r = obs.rules
    treasury = legal.treasury.astype(np.int64)
    last = V.rounds_left(obs) <= 1
    if kernels.use(obs.n) and len(r.d.regions) < 63:  # (regions as bits of an int64)
        chosen = _trade_options(strategy, obs, legal, treasury, last)
    else:
        chosen = [_trade_option(strategy, obs, legal, treasury, last, home) for home in (False, True)]
    options = []
    for orders, regions, k, worth in chosen:
        p, _ = V.check_odds(r, k)
        gain = np.where(k >= 1, p * worth - strategy.trade_cost * (k + regions), -np.inf)
        options.append((orders, regions, k, gain))
    (o1, r1, k1, g1), (o2, r2, k2, g2) = options
    use_home = g2 > g1
    orders = np.where(use_home[:, None], o2, o1)
    regions = np.where(use_home, r2, r1)
    k = np.where(use_home, k2, k1)
    go = (k >= 1) & any_last(orders) & (np.maximum(g1, g2) > -np.inf)
    orders &= go[:, None]
    spend = np.where(go, regions + k, 0)
    return spend, orders, place_clerks(obs, legal.clerks, orders.sum(axis=1))


def _trade_option(strategy, obs: Observation, legal, treasury, last, home_only: bool):
    """(orders bool[G', O], regions int[G'], dice int[G'], worth float[G']) of one way to trade: the ``legal.ships``
    best orders (ties to the first in the map's order), of the home region only with ``home_only``; the regions
    outside home they lie in, their worth and the dice that pay (every die left in the last round, at least one)."""
    r = obs.rules
    d = r.d
    value = np.where(legal.orders, d.order_value[None, :], -1).astype(float)
    if home_only:
        home = d.order_region[None, :] == d.home[legal.presidency][:, None]
        value = np.where(legal.orders & home, value, -1.0)
    rank = np.argsort(np.argsort(-value, axis=1, kind="stable"), axis=1)
    orders = legal.orders & (rank < legal.ships[:, None]) & (value >= 0)
    regions = regions_outside_home(r, orders, legal.presidency)
    worth = sum_last(orders * d.order_value[None, :]).astype(float)
    most = treasury - regions
    k = V.best_dice(r, worth, most, strategy.trade_cost)
    k = np.where(last, np.maximum(most, 0), k)
    k = np.where(orders.any(axis=1) & (most >= 1), np.maximum(k, 1), 0)
    return orders, regions, k, worth


def _trade_options(strategy, obs: Observation, legal, treasury, last):
    """``_trade_option`` both ways at once, game by game (``_trade_kernel``)."""
    r = obs.rules
    d = r.d
    n, n_orders = legal.orders.shape
    orders = np.empty((2, n, n_orders), dtype=bool)
    regions, k = np.empty((2, n), dtype=np.int64), np.empty((2, n), dtype=np.int64)
    worth = np.empty((2, n))
    p = V.check_odds(r, np.arange(9)[None, :])[0][0]  # the odds best_dice weighs (8 dice at most)
    args = (legal.orders, legal.ships.astype(np.int64), legal.presidency.astype(np.int64), treasury, last)
    _trade_kernel(*args, d.order_value, V._by_value(d.order_value), d.order_region, d.home, p,
                  float(strategy.trade_cost), orders, regions, k, worth)  # fmt: skip
    return [(orders[i], regions[i], k[i], worth[i]) for i in range(2)]


@kernels.kernel
def _trade_kernel(legal_orders, ships, presidency, treasury, last, order_value, by_value, order_region, home, p,
                  cost, orders, regions, dice, worth):  # fmt: skip
    """``_trade_option`` row by row, all orders (option 0) and the home region's only (option 1): the first
    ``ships`` legal ones in the order of ``by_value`` (best first, the earlier of equal values first: the rank
    ``_trade_option`` sorts by); their regions outside home counted as bits of a word."""
    n_orders = order_value.shape[0]
    for g in range(legal_orders.shape[0]):
        own = home[presidency[g]]
        for option in range(2):
            total, count, taken, seen, left = 0, 0, False, np.int64(0), ships[g]
            for o in range(n_orders):
                orders[option, g, o] = False
            for i in range(n_orders):
                if left <= 0:
                    break
                o = by_value[i]
                if legal_orders[g, o] and (option == 0 or order_region[o] == own):
                    orders[option, g, o] = True
                    left -= 1
                    taken = True
                    total += order_value[o]
                    bit = np.int64(1) << order_region[o]
                    if order_region[o] != own and not seen & bit:
                        seen |= bit
                        count += 1
            regions[option, g] = count
            worth[option, g] = total
            most = treasury[g] - count
            best, k = -np.inf, 0
            for j in range(p.shape[0]):  # best_dice
                if j <= most:
                    gain = p[j] * worth[option, g] - cost * j
                    if gain > best:
                        best, k = gain, j
            if last[g]:
                k = max(most, 0)
            dice[option, g] = max(k, 1) if taken and most >= 1 else 0
