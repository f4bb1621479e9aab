"""Phase 6, the firms' trade (R-FIRMS, D-INITIATIVE, D-REFILL; seed 000 L154, L175-L182; seed 002 "以商行身份滿足需求").

``trade_initiative`` (``operations.company_operations``, before the governors, L154) takes every bid to the bank
and rolls its dice: the successes (faces <= ``check.success_max``) count, a firm with none does not trade; its ships
sail to its port's sea. In each presidency's trade (``trade_in_turn``, called by ``operations.presidents``) the
firms of that port and its President (when his check succeeded: ``president_check`` then rolls every die and his
successes are his initiative, L181) fill orders in initiative order (D-INITIATIVE ``firms.initiative``; ties: the
President, else the Chairman, decision ``order_traders``); a firm (decision ``firm_trade``, ``firm_fill``) fills
open orders reachable from its port, one ship each (jc2e: ships + ``firms.jc2e_extra_orders``), half value where
anyone filled the order earlier this round; the Company likewise after firms (D-REFILL ``firms.company_refill``).
The firms' revenue raises their value (``sim/firms.py`` ``fill_orders``, ``firms.revenue_per_value``).
"""

from __future__ import annotations

import numpy as np

from .. import firms as fr
from .. import layout as L
from .. import ledger
from ..agents import Agents, full_batch
from ..board import check_outcome, company_ships, reachable
from ..dice import Chance
from ..reduce import any_last, sum_last
from ..rules import Rules
from ..state import State


def trade_initiative(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Phase 6, before the governors (L154; 2e at each presidency's start): every firm with a port and a bid pays
    the bid to the bank and rolls that many dice; the successes (faces <= ``check.success_max``) are its
    initiative's, one is enough to trade (``firm_successes``; 0: no trade). Its ships sail to its port's sea."""
    games = np.flatnonzero(fr.active(state) & (state.firm_bid >= 1).any(axis=1))
    if games.size == 0:
        return
    rolling = fr.is_open(state)[games] & (state.firm_port[games] >= 0) & (state.firm_bid[games] >= 1)
    rolling &= fr.fleet(state)[games] >= 1
    bid = np.where(rolling, np.minimum(state.firm_bid[games], state.firm_cash[games]), 0).astype(np.int64)
    for f in range(bid.shape[1]):
        sub = np.flatnonzero(bid[:, f] > 0)
        ledger.firm(state, "firm_trade_spend", games[sub], np.full(sub.size, f), -bid[sub, f])
    state.firm_bid[games] = np.where(rolling, 0, state.firm_bid[games])
    total = bid.sum(axis=1)
    keep = total > 0
    rows, bid, total, rolling = games[keep], bid[keep], total[keep], rolling[keep]
    if rows.size == 0:
        return
    faces = dice.d6(rows, int(total.max()), used=total)
    valid = np.arange(faces.shape[1])[None, :] < total[:, None]
    success = valid & (faces <= rules.check.success_max)
    cum = np.concatenate([np.zeros((rows.size, 1), dtype=np.int64), np.cumsum(success, axis=1)], axis=1)
    ends = np.cumsum(bid, axis=1)
    succ = np.take_along_axis(cum, ends, axis=1) - np.take_along_axis(cum, ends - bid, axis=1)
    rolled = rolling & (bid > 0)
    state.firm_successes[rows] = np.where(rolled, succ, state.firm_successes[rows]).astype(np.int8)
    state.firm_sea[rows] = np.where(rolled, state.firm_port[rows], state.firm_sea[rows]).astype(np.int8)


def traders_at(state: State, presidency: int) -> np.ndarray:
    """bool[G, F]: firms trading from ``presidency``'s port this round (their initiative roll had a success)."""
    return fr.is_open(state) & (state.firm_port == presidency) & (state.firm_successes >= 1) & ~state.done[:, None]


def president_check(
    rules: Rules, dice: Chance, rows: np.ndarray, k: np.ndarray, g: int, counted: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The President's trade check (D-CHECK) in games ``rows`` with ``k[m]`` dice. Where firms trade at his port
    (``counted[m]``) every die is rolled so that its successes give his initiative too (L181 "the President also has
    an initiative"; 2e: "as a firm does"); elsewhere the lowest of the dice as always. Returns bool[G] success,
    int[m'] the rows with a mishap, int[G] successes."""
    won = np.zeros(g, dtype=bool)
    successes = np.zeros(g, dtype=np.int64)
    fired = []
    plain, many = rows[~counted], rows[counted]
    if plain.size:
        success, mishap = check_outcome(rules, dice.lowest(plain, k[~counted]))
        won[plain[success]] = True
        fired.append(plain[mishap])
    if many.size:
        kk = k[counted].astype(np.int64)
        faces = dice.d6(many, int(kk.max()), used=kk)
        valid = np.arange(faces.shape[1])[None, :] < kk[:, None]
        lowest = np.where(valid, faces, 7).min(axis=1)
        success, mishap = check_outcome(rules, lowest)
        won[many[success]] = True
        successes[many] = (valid & (faces <= rules.check.success_max)).sum(axis=1)
        fired.append(many[mishap])
    return won, np.concatenate(fired) if fired else rows[:0], successes


def trade_in_turn(
    state: State,
    rules: Rules,
    agents: Agents,
    presidency: int,
    president_won: np.ndarray,
    president_successes: np.ndarray,
    president_orders: np.ndarray,
    president_fill,
) -> None:
    """The fills of presidency ``presidency``'s trade: where no firm trades there, the President fills (his check
    succeeded: ``president_won``) as ever; otherwise the President and the firms of this port fill in initiative
    order (lower first; D-INITIATIVE, ``firms.initiative``), ties ordered by the President if he trades, else the
    Chairman (L154, decision ``order_traders``; neither: slot order, the Company last). At his turn the President's
    orders ``president_orders[G, O]`` are marked filled (later firms get half) and what firms filled before him is
    noted; ``president_fill(won bool[G], firm_filled_before bool[G, O])`` then pays for them all at once (value or
    half value; his bonus and clerks do not depend on the order)."""
    g = state.n_games
    here = traders_at(state, presidency)
    with_firms = any_last(here)
    before = state.firm_filled.copy()
    rows = np.flatnonzero(with_firms)
    if rows.size == 0:
        president_fill(president_won, before)
        return
    m, f_n = rows.size, here.shape[1]
    here = here[rows]
    init = np.full((m, f_n + 1), fr.BIG, dtype=np.int64)
    succ = np.maximum(state.firm_successes[rows], 0)
    init[:, :f_n] = np.where(here, fr.initiative(rules, fr.fleet(state, rows), succ), fr.BIG)
    company = president_won[rows]
    ships = company_ships(state, presidency)[rows]
    init[:, f_n] = np.where(company, fr.initiative(rules, ships, president_successes[rows]), fr.BIG)
    traders = init < fr.BIG
    srt = np.sort(np.where(traders, init, fr.BIG + np.arange(f_n + 1)[None, :]), axis=1)
    tied = (srt[:, 1:] == srt[:, :-1]).any(axis=1)
    priority = np.tile(np.arange(f_n + 1), (m, 1))
    if tied.any():
        president = state.office[rows, L.PRESIDENT[presidency]]
        decider = np.full(g, -1, dtype=np.int64)
        decider[rows] = np.where(tied, np.where(company, president, state.office[rows, L.CHAIRMAN]), -1)
        full_traders = np.zeros((g, f_n + 1), dtype=bool)
        full_traders[rows] = traders
        full_init = np.full((g, f_n + 1), fr.BIG, dtype=np.int64)
        full_init[rows] = init
        out = np.tile(np.arange(f_n + 1), (g, 1))

        def check(pr, legal, obs):
            return (np.sort(pr, axis=1) != np.arange(pr.shape[1])).any(axis=1), "not an ordering of the traders"

        legal = {"presidency": np.full(g, presidency), "traders": full_traders, "initiative": full_init}
        agents.ask("order_traders", state, decider, legal, (out,), check)
        priority = out[rows]
    order = np.lexsort((priority, init), axis=-1)  # [m, F+1]
    reach = None
    sub = np.arange(m)
    for r in range(f_n + 1):
        who = order[:, r]
        turn = traders[sub, who]
        pres = rows[turn & (who == f_n)]
        if pres.size:
            before[pres] = state.firm_filled[pres]
            mine = president_orders[pres]
            if rules.firms.company_refill == "never":
                mine = mine & ~before[pres]
            state.order_filled[pres] |= mine
        firm = turn & (who < f_n)
        if firm.any():
            if reach is None:  # firms route over every open order of their port (filled ones included)
                here_reach = reachable(rules, state.order_open[rows], presidency=presidency)
                reach = full_batch(g, rows, here_reach, False, bool)  # (the games with firms here)
            firm_fill(state, rules, agents, presidency, rows[firm], who[firm], reach)
    president_fill(president_won, before)


def firm_fill(
    state: State, rules: Rules, agents: Agents, presidency: int, rows: np.ndarray, slot: np.ndarray, reach: np.ndarray
) -> None:
    """The turn of firms ``slot[m]`` in games ``rows[m]`` (decision ``firm_trade``): open orders reachable from its
    port, at most ``order_limit``."""
    g = state.n_games
    limit = np.zeros(g, dtype=np.int64)
    extra = rules.firms.jc2e_extra_orders if fr.jc2e(rules) else 0
    limit[rows] = state.firm_ships[rows, slot].sum(axis=1) + extra  # ``firms.order_limit`` for these firms
    firm = np.full(g, -1, dtype=np.int64)
    firm[rows] = slot
    decider = np.full(g, -1, dtype=np.int64)
    decider[rows] = state.firm_manager[rows, slot]
    orders = np.zeros((g, reach.shape[1]), dtype=bool)
    legal = {
        "firm": firm,
        "presidency": np.full(g, presidency),
        "orders": reach,
        "half": state.order_filled | state.firm_filled,
        "limit": limit,
    }

    def check(o, legal, obs):
        bad = any_last(o & ~legal.orders) | (sum_last(o) > legal.limit)
        return bad, "orders not reachable from its port, or more than it may fill"

    agents.ask("firm_trade", state, decider, legal, (orders,), check)
    go = any_last(orders[rows])
    if go.any():
        fr.fill_orders(state, rules, rows[go], slot[go], orders[rows[go]])
