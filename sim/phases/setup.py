"""Setup: the sealed auction for the starting lots (R-AUCTION, D-ALLOC, D-EXTRA, D-LOTS) and the starting
capital (R-CAPITAL, D-BIDSUM, D-S0, D-LEFTOVER-NEG).

Every family bids a program ``(base, step, cap)`` on every lot in play. A tie between bidders on one lot is
settled by their programs as an ascending auction: each can raise by ``step`` up to ``cap``; the highest reachable
bid wins and pays the first value of his ladder above every rival's reach (a rival's final value is his reach);
equal reaches are an unresolved tie, settled at random.
"""

from __future__ import annotations

import numpy as np

from .. import capital as cap_mod
from .. import kernels, ledger, trace
from .. import layout as L
from .. import positions as pos
from ..agents import Agents
from ..dice import _GOLDEN, _M1, _M2, _S11, _S27, _S30, _S31, _TO_UNIT, Chance, Dice
from ..rules import Rules
from ..state import State
from .military import settle_commanders

MAX_BID = 10_000  # a bid, step or cap (the capital calculator's bound on a bid total, rules.schema.NUMBER_MAX)


def setup(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Run the auction, hand out the lots and the starting capital, and seat the first army commanders."""
    base, step, cap = collect_bids(state, rules, agents)
    winner, price, final = run_auction(base, step, cap, rules, dice, np.arange(state.n_games))
    pos.shuffle_deck(state, rules, dice)  # D-POSITIONS: a lot's position card is drawn from the deck
    apply_lots(state, rules, winner)
    starting_capital(state, rules, dice, winner, price, final)
    state.last_chair[:] = state.office[:, L.CHAIRMAN]
    settle_commanders(state, rules, dice, agents, np.arange(state.n_games))


def collect_bids(state: State, rules: Rules, agents: Agents) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sealed bids: int[G, N, LOTS] base, step and cap from every seat's strategy (decision ``bid``), each
    0..``MAX_BID`` (a family's bid total, held in int32, then cannot wrap)."""
    g, n, n_lots = state.n_games, state.n_players, len(rules.d.lot_names)
    base, step, cap = (np.zeros((g, n, n_lots), dtype=np.int64) for _ in range(3))

    def check(answer, legal, obs):
        bad = np.zeros(obs.n, dtype=bool)
        for a in answer:
            bad |= ((a < 0) | (a > MAX_BID)).any(axis=1)
        return bad, f"bids, steps and caps must be integers 0..{MAX_BID:,}"

    # sealed: every seat at once (nothing changes before all have bid)
    agents.ask_seats("bid", state, np.ones((g, n), dtype=bool), {}, {}, (base, step, cap), check)
    return base, step, cap


def run_auction(
    base: np.ndarray, step: np.ndarray, cap: np.ndarray, rules: Rules, dice: Chance, idx: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Allocate the lots (D-ALLOC). Returns winner int[G, LOTS] (-1: additional lot not played), the price each
    lot went for int[G, LOTS] and every bid's final value int[G, N, LOTS]."""
    g, n, n_lots = base.shape
    d = rules.d
    per_family = rules.auction.lots_per_family
    reach = base + np.where(step > 0, (np.maximum(cap, base) - base) // np.maximum(step, 1), 0) * step

    # D-EXTRA: the additional lots with the highest top bids are played; equal top bids drawn at random
    played = np.ones((g, n_lots), dtype=bool)
    extra = np.flatnonzero(d.lot_extra)
    if extra.size:
        key = base[:, :, extra].max(axis=1) + 0.5 * dice.uniform(idx, extra.size)
        rank = np.argsort(np.argsort(-key, axis=1, kind="stable"), axis=1)
        played[:, extra] = rank < d.n_extra_played

    winner = np.full((g, n_lots), -1, dtype=np.int64)
    price = np.zeros((g, n_lots), dtype=np.int64)
    final = base.copy()
    won = np.zeros((g, n), dtype=np.int64)
    open_lot = played.copy()
    seats = np.arange(n)
    # equal top bids on different lots: catalogue order, or a random order of the lots drawn once per game
    if rules.auction.lot_ties == "random":
        lot_key = 0.5 * dice.uniform(idx, n_lots)
    else:
        lot_key = np.broadcast_to(0.5 - 0.5 * np.arange(n_lots) / n_lots, (g, n_lots))
    if kernels.use(g) and type(dice) is Dice and trace.recorder is None:  # the same draws, game by game
        streams, s = dice.streams, dice.stream
        counters = streams.counters[s, idx]
        _auction_kernel(
            base, step, reach, played, lot_key, per_family, streams.keys[s, idx], counters, winner, price, final
        )
        streams.counters[s, idx] = counters
        return winner, price, final
    # greedy: the highest (bid, lot) pair whose bidder still has < 4 lots; equal pairs on different lots go in
    # catalogue order, tied bidders on one lot settle by their programs
    # the bids still in play: open lots, families short of their lots (-1 once a lot or a family is done)
    value = np.where(open_lot[:, None, :] & (won < per_family)[:, :, None], base, -1)
    lot_best = value.max(axis=1)  # [G, LOTS]: the highest bid in play on each lot, kept up to date with value
    for _ in range(per_family * n):
        best = lot_best.max(axis=1)
        rows = np.flatnonzero(best > 0)
        if rows.size == 0:
            break
        b = best[rows]
        lot = np.where(lot_best.take(rows, axis=0) == b[:, None], lot_key[rows], -1.0).argmax(axis=1)
        tied = value[rows, :, lot] == b[:, None]
        r = np.where(tied, reach[rows, :, lot], -1)
        top = r.max(axis=1)
        w = dice.pick(idx[rows], r == top[:, None])
        rival = np.where(seats[None, :] == w[:, None], -1, r).max(axis=1)
        w_base, w_step = base[rows, w, lot], step[rows, w, lot]
        beat = w_base + w_step * ((rival - w_base) // np.maximum(w_step, 1) + 1)
        p = np.where(tied.sum(axis=1) == 1, b, np.where(rival >= top, top, beat))
        final[rows, :, lot] = np.where(tied, r, final[rows, :, lot])
        final[rows, w, lot] = p
        winner[rows, lot], price[rows, lot] = w, p
        won[rows, w] += 1
        open_lot[rows, lot] = False
        value[rows, :, lot] = -1
        lot_best[rows, lot] = -1
        full = won[rows, w] >= per_family
        if full.any():  # a family with all its lots bids no more: its games' lot maxima change
            value[rows[full], w[full], :] = -1
            lot_best[rows[full]] = value.take(rows[full], axis=0).max(axis=1)
    # lots nobody bid on go at random to families still short of their lots
    for lot in range(n_lots):
        rows = np.flatnonzero(open_lot[:, lot])
        if rows.size:
            w = dice.pick(idx[rows], won[rows] < per_family)
            winner[rows, lot] = w
            won[rows, w] += 1
    return winner, price, final


@kernels.kernel
def _auction_kernel(base, step, reach, played, lot_key, per_family, keys, counters, winner, price, final):
    """``run_auction``'s greedy allocation and its random lots, game by game: each game draws the uniforms the numpy
    loop draws for it (``dice.pick``: one per lot awarded, then one per lot nobody bid on), from its own stream
    (``keys``, ``counters``, advanced here), so the lots, prices and final bids are the numpy version's."""
    g, n, n_lots = base.shape
    value = np.empty((n, n_lots), dtype=np.int64)
    lot_best = np.empty(n_lots, dtype=np.int64)
    won = np.empty(n, dtype=np.int64)
    r = np.empty(n, dtype=np.int64)
    for i in range(g):
        won[:] = 0
        open_lot = played[i].copy()
        for lot in range(n_lots):
            best = np.int64(-1)
            for s in range(n):
                value[s, lot] = base[i, s, lot] if open_lot[lot] else -1
                best = max(best, value[s, lot])
            lot_best[lot] = best
        for _ in range(per_family * n):
            b = lot_best.max()
            if b <= 0:
                break
            lot, key = 0, -2.0
            for k in range(n_lots):  # the first lot of the highest key among those at the best bid
                kk = lot_key[i, k] if lot_best[k] == b else -1.0
                if kk > key:
                    lot, key = k, kk
            top, count = np.int64(-1), 0
            for s in range(n):
                r[s] = reach[i, s, lot] if value[s, lot] == b else -1
                count += value[s, lot] == b
                top = max(top, r[s])
            w = _pick(r, top, keys[i], counters, i)
            rival = np.int64(-1)
            for s in range(n):
                if s != w:
                    rival = max(rival, r[s])
            w_base, w_step = base[i, w, lot], step[i, w, lot]
            beat = w_base + w_step * ((rival - w_base) // max(w_step, 1) + 1)
            p = b if count == 1 else (top if rival >= top else beat)
            for s in range(n):
                if value[s, lot] == b:
                    final[i, s, lot] = r[s]
                value[s, lot] = -1
            final[i, w, lot] = p
            winner[i, lot], price[i, lot] = w, p
            won[w] += 1
            open_lot[lot] = False
            lot_best[lot] = -1
            if won[w] >= per_family:  # a family with all its lots bids no more
                for k in range(n_lots):
                    value[w, k] = -1
                    best = np.int64(-1)
                    for s in range(n):
                        best = max(best, value[s, k])
                    lot_best[k] = best
        for lot in range(n_lots):  # lots nobody bid on: at random to a family still short of its lots
            if open_lot[lot]:
                for s in range(n):
                    r[s] = 0 if won[s] < per_family else -1
                w = _pick(r, np.int64(0), keys[i], counters, i)
                winner[i, lot] = w
                won[w] += 1  # (w = -1, nobody short, counts on the last seat as numpy's index does)


@kernels.kernel
def _pick(r, top, key, counters, i):
    """``dice.pick`` of one game's seats with ``r == top``: the floor(u * count)-th of them (-1 with none), u the
    game's next uniform (``dice.Streams``: splitmix64 of key + counter * golden, its top 53 bits)."""
    z = key + counters[i] * _GOLDEN
    counters[i] += np.uint64(1)
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    z = z ^ (z >> _S31)
    u = np.float64(z >> _S11) * _TO_UNIT
    count = 0
    for s in range(r.shape[0]):
        count += r[s] == top
    k = min(np.int64(u * count), max(count - 1, 0))
    for s in range(r.shape[0]):
        if r[s] == top:
            if k == 0:
                return s
            k -= 1
    return -1


def apply_lots(state: State, rules: Rules, winner: np.ndarray) -> None:
    """Give every lot's contents to its winner (D-LOTS): offices, the PM, shares, property, relatives placed."""
    d = rules.d
    items = d.lot_items
    for lot in range(winner.shape[1]):
        rows = np.flatnonzero(winner[:, lot] >= 0)
        if rows.size == 0:
            continue
        w = winner[rows, lot]

        if d.lot_office[lot] >= 0:
            state.office[rows, d.lot_office[lot]] = w
            state.supply[rows, w] -= 1
        if d.lot_pm[lot]:
            state.prime_minister[rows] = w
        placed = [(state.shares, items["shares"][lot], None), (state.academy, items["academy"][lot], None)]
        for p in range(L.PRESIDENCIES):
            placed += [(state.clerks, items["clerks"][lot, p], p), (state.officers, items["officers"][lot, p], p)]
        for field, k, col in placed:  # relatives leave the supply for their places
            if k:
                if col is None:
                    field[rows, w] += k
                else:
                    field[rows, w, col] += k
                state.supply[rows, w] -= k
        state.shipyards[rows, w] += items["shipyards"][lot]
        state.factories[rows, w] += items["factories"][lot]
        state.luxuries[rows, w] += items["luxuries"][lot]
        state.wealth[rows, w] += items["luxuries"][lot] * rules.actions.luxury_wealth
        if items["positions"][lot]:
            pos.deal(state, rules, rows, w, int(items["positions"][lot]))
        if items["money"][lot]:
            ledger.family(state, "lot_money", winner[:, lot], np.full(state.n_games, items["money"][lot]))


def starting_capital(
    state: State, rules: Rules, dice: Chance, winner: np.ndarray, price: np.ndarray, final: np.ndarray
) -> None:
    """R-CAPITAL: the formula over bid totals, the 0.7 rounding, and the leftover / excess coins."""
    g, n = state.n_games, state.n_players
    if rules.capital.bid_sum == "all":  # D-BIDSUM
        totals = final.sum(axis=2)
    else:
        totals = np.zeros((g, n), dtype=np.int64)
        for lot in range(winner.shape[1]):
            rows = np.flatnonzero(winner[:, lot] >= 0)
            np.add.at(totals, (rows, winner[rows, lot]), price[rows, lot])
    exact = cap_mod.exact_capital(totals, rules)
    rounded = cap_mod.round_capital(exact, rules)
    # the lowest-priced lots: equal prices ordered at random or in catalogue order
    n_lots = winner.shape[1]
    if rules.capital.leftover_tiebreak == "random":
        tiebreak = dice.uniform(np.arange(g), n_lots)
    else:
        tiebreak = np.tile(np.arange(n_lots) / n_lots, (g, 1))
    key = np.where(winner >= 0, price + 0.5 * tiebreak, np.inf)
    lowest = np.argsort(key, axis=1, kind="stable")[:, :2]
    lowest_two = np.take_along_axis(winner, lowest, axis=1)
    money, received, case = cap_mod.settle(exact, rounded, lowest_two, rules)
    state.bid_total[:] = totals
    state.capital_exact[:] = exact
    state.capital_money[:] = money
    state.leftover[:] = received
    state.leftover_case[:] = case
    ledger.families(state, "starting_capital", money)
