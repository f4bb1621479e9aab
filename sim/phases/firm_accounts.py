"""Phase 7.1, the firms' accounts (R-FIRMS, D-DIVIDEND-LEVEL; seed 000 L191-L199; seed 002 "商行的開支與股息").

``firm_accounts`` (``accounts.accounts``, after family income, before the Company's costs): firms settle in
initiative order (``firms.accounts_order``): costs (``firms.ship_upkeep`` per ship + ``firms.share_upkeep`` per
share or value point, L193); short, emergency investments from any family clockwise from the manager
(``emergency_invest``, the manager's ``consent_investment``), -1 value each, the unused rest burns; jc2e: then an
emergency merger (``rescue_firm``, ``consent_merger``); still short: bankruptcy, shareholders to debtors' prison.
Then dividends: waivers (``waive_dividends``; jc2e: the manager's ``consent_waivers``), payouts of (shares + 1) £
(``firm_dividends``); the dividend level (special retirements, ``london.special_retirements``) becomes what was
paid, unless the firm did not trade (house L198) / chose Hobnob (jc2e, which then pays no dividend); jc2e: the
India treasury's rest moves to London. ``firms.variant`` = "jc2e" (D-FIRM-VARIANT) switches on the jc2e steps.
"""

from __future__ import annotations

import numpy as np

from .. import firms as fr
from .. import ledger, trace
from ..agents import Agents, full_batch
from ..dice import Chance
from ..reduce import any_last, sum_last
from ..rules import Rules
from ..state import State
from .firms import _clockwise, propose_and_merge


def firm_accounts(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Phase 7.1 (L192-L198): costs in initiative order (emergency investments, emergency mergers, bankruptcy),
    then dividends."""
    on = fr.active(state)
    open_ = on[:, None] & fr.is_open(state)
    if not open_.any():
        return
    g, f_n = open_.shape
    games = np.flatnonzero(any_last(open_))  # the games with a firm to settle
    sub = np.arange(games.size)
    order = np.tile(np.arange(f_n), (g, 1))  # the settling order, worked out where a firm settles
    order[games] = fr.accounts_order(state, rules, games)
    paid = np.zeros((g, f_n), dtype=bool)
    due = fr.costs_due(state, rules, games)  # assessed once: emergency shareholders do not add to this round's costs
    for r in range(f_n):
        slot = order[games, r]
        at = np.flatnonzero(fr.is_open(state)[games, slot] & ~paid[games, slot])
        if at.size:
            settle(state, rules, agents, games[at], slot[at], paid, order, due[sub[at], slot[at]])
    dividends(state, rules, agents, on)


def settle(
    state: State,
    rules: Rules,
    agents: Agents,
    rows: np.ndarray,
    slot: np.ndarray,
    paid: np.ndarray,
    order: np.ndarray,
    due: np.ndarray,
) -> None:
    """Firm ``slot[m]`` pays its costs ``due[m]`` (L193); short: emergency investments (L194), jc2e's emergency
    merger, else bankruptcy (L195)."""
    short = fr.pay_costs(state, rows, slot, due)
    paid[rows, slot] = True
    s = short > 0
    if not s.any():
        return
    rows, slot, short = rows[s], slot[s], short[s]
    short = emergency(state, rules, agents, rows, slot, short)
    s = short > 0
    if fr.jc2e(rules) and s.any():
        rescued = rescue(state, rules, agents, rows[s], slot[s], short[s], paid, order)
        s[np.flatnonzero(s)[rescued]] = False
    if s.any():
        fr.bankrupt(state, rows[s], slot[s])


def emergency(
    state: State, rules: Rules, agents: Agents, rows: np.ndarray, slot: np.ndarray, short: np.ndarray
) -> np.ndarray:
    """Emergency investments (seed 000 L194; 2e "緊急投資"): while the firm is short, any family may invest one factory
    or Company share at a time (clockwise from the manager, round after round while someone does; decision
    ``emergency_invest``) with the manager's consent (``consent_investment``): 5 £ each, -1 value each; what they raise
    pays the costs, the rest burns. Returns int[m] still unpaid."""
    g, n = state.n_games, state.n_players
    m = rows.size  # worked out at these games; the decisions see full-batch options
    need = short.astype(np.int64)
    f_full = full_batch(g, rows, slot, 0)
    manager = state.firm_manager[rows, slot].astype(np.int64)
    raised = np.zeros(m, dtype=bool)
    going = np.ones(m, dtype=bool)  # per game: still short, and someone invested in its previous pass

    def check(c, legal, obs):
        bad = (c < fr.NO_ASSET) | (c > fr.SHARE)
        bad |= ((c == fr.FACTORY) & ~legal.factory) | ((c == fr.SHARE) & ~legal.share)
        return bad, "0 (none), 1 (an uninvested factory) or 2 (a Company share) the family may invest"

    while True:
        progress = np.zeros(m, dtype=bool)
        for k in range(n):
            seat = np.where(manager >= 0, _clockwise(manager, k, n), 0)
            at = np.flatnonzero(going & (need > 0))
            fac = np.zeros(m, dtype=bool)
            sh = np.zeros(m, dtype=bool)
            fac[at] = fr.factory_assets(state, rows[at], seat[at]) > 0
            sh[at] = fr.share_assets(state, rules, rows[at], seat[at]) > 0
            ask = fac | sh
            if not ask.any():
                continue
            choice = np.zeros(g, dtype=np.int64)
            legal = {
                "firm": f_full,
                "shortfall": full_batch(g, rows, need, 0),
                "factory": full_batch(g, rows, fac, False, bool),
                "share": full_batch(g, rows, sh, False, bool),
            }
            decider = full_batch(g, rows, np.where(ask, seat, -1), -1)
            agents.ask("emergency_invest", state, decider, legal, (choice,), check)
            c = choice[rows]
            offered = ask & (c > 0)
            other = offered & (seat != manager)
            yes = np.zeros(m, dtype=bool)
            if other.any():
                offer_f = np.zeros((g, n), dtype=np.int64)
                offer_s = np.zeros((g, n), dtype=np.int64)
                offer_f[rows[other], seat[other]] = c[other] == fr.FACTORY
                offer_s[rows[other], seat[other]] = c[other] == fr.SHARE
                legal = {"firm": f_full, "factories": offer_f, "shares": offer_s, "emergency": np.ones(g, dtype=bool)}
                full_yes = np.zeros((g, n), dtype=bool)
                decider = full_batch(g, rows, np.where(other, manager, -1), -1)
                agents.ask("consent_investment", state, decider, legal, (full_yes,))
                yes = full_yes[rows, seat]
            r = np.flatnonzero(offered & ((seat == manager) | yes))
            if r.size == 0:
                continue
            progress[r] = True
            cr, rr = c[r], rows[r]
            fr.invest(state, rules, rr, slot[r], seat[r], (cr == fr.FACTORY).astype(np.int64),
                      (cr == fr.SHARE).astype(np.int64), emergency=True)  # fmt: skip
            raised[r] = True
            need[r] = fr.pay_costs(state, rr, slot[r], need[r])
        going &= progress & (need > 0)  # each game's passes end on its own: a pass where nobody invested
        if not going.any():
            break
    burn = np.flatnonzero(raised & (need == 0))
    ledger.firm(state, "firm_emergency_burned", rows[burn], slot[burn], -state.firm_cash[rows[burn], slot[burn]])
    return need


def rescue(
    state: State,
    rules: Rules,
    agents: Agents,
    rows: np.ndarray,
    slot: np.ndarray,
    short: np.ndarray,
    paid: np.ndarray,
    order: np.ndarray,
) -> np.ndarray:
    """jc2e's emergency merger (seed 002 "緊急合併"): another firm, asked in settling order (decision
    ``rescue_firm``), pays its own costs if it has not yet and the failing firm's shortfall, then the two merge by
    the merger rules if everyone involved consents. Returns bool[m]: rescued."""
    g = state.n_games
    f_n = state.firm_manager.shape[1]
    saved = np.zeros(rows.size, dtype=bool)
    for r in range(f_n):
        other = order[rows, r]
        opened = fr.is_open(state)[rows, other]
        own_due = np.where(paid[rows, other], 0, fr.costs_due(state, rules)[rows, other])
        need = own_due + short
        can = ~saved & opened & (other != slot) & (fr.funds(state)[rows, other] >= need)
        if not can.any():
            continue
        idx = np.flatnonzero(can)
        decider = np.full(g, -1, dtype=np.int64)
        decider[rows[idx]] = state.firm_manager[rows[idx], other[idx]]
        legal = {
            "firm": full_batch(g, rows, slot, -1),
            "own": full_batch(g, rows, other, -1),
            "shortfall": full_batch(g, rows, short, 0),
            "cost": full_batch(g, rows, need, 0),
        }
        yes = np.zeros(g, dtype=bool)
        agents.ask("rescue_firm", state, decider, legal, (yes,))
        idx = idx[yes[rows[idx]]]
        if idx.size == 0:
            continue
        merged = propose_and_merge(state, rules, agents, rows[idx], other[idx], slot[idx], rescue=True)
        idx = idx[merged]
        if idx.size == 0:
            continue
        rr = rows[idx]
        keep = np.where(fr.is_open(state)[rr, other[idx]], other[idx], slot[idx])  # the survivor's slot
        fr.pay_costs(state, rr, keep, need[idx])  # it holds the rescuer's funds, which cover ``need``
        paid[rr, other[idx]] = True
        paid[rr, slot[idx]] = True
        saved[idx] = True
    return saved


def dividends(state: State, rules: Rules, agents: Agents, on: np.ndarray) -> None:
    """Dividends (seed 000 L196-L198; 2e "商行股利", "選擇性股利"): waivers, then the manager's payouts of (shares not
    waived + 1 unless the manager waives) £; the dividend level; jc2e: India's rest to London. Worked out on the games
    with a firm (``games``, [m] arrays); the decisions see full-batch options, asked there."""
    g, n = state.n_games, state.n_players
    jc = fr.jc2e(rules)
    games = np.flatnonzero(on & any_last(fr.is_open(state)))
    if games.size == 0:
        return
    m = games.size
    open_ = fr.is_open(state)[games]  # [m, F]
    f_n = open_.shape[1]
    avail = (state.firm_india if jc else state.firm_cash)[games].astype(np.int64)
    hobnob = state.firm_port[games] < 0
    eligible = open_ & (avail > 0) & ~(jc & hobnob)
    shares = state.firm_shares[games]  # [m, F, N]
    manager = state.firm_manager[games]
    waived = np.zeros((m, f_n, n), dtype=np.int64)
    manager_waived = np.zeros((m, f_n), dtype=bool)
    if eligible.any():

        def check(answer, legal, obs):
            w, m = answer
            bad = any_last(w < 0) | any_last(w > legal.shares) | any_last(m & ~legal.manager)
            return bad, "waives more shares than it holds, or a manager's portion it does not have"

        full_eligible = np.zeros((g, f_n), dtype=bool)
        full_eligible[games] = eligible
        full_avail = np.zeros((g, f_n), dtype=np.int64)
        full_avail[games] = avail
        full_per_payout = np.ones((g, f_n), dtype=np.int64)
        full_per_payout[games] = fr.shareholders(state, games) + 1
        seats = np.arange(n)
        mine = shares.transpose(0, 2, 1)  # [m, N, F]
        is_mgr = manager[:, None, :] == seats[None, :, None]  # [m, N, F]
        ask_m = any_last(eligible[:, None, :] & ((mine > 0) | is_mgr))  # [m, N]
        full = np.zeros((g, n, f_n), dtype=state.firm_shares.dtype)
        full[games] = mine
        full_mgr = np.zeros((g, n, f_n), dtype=bool)
        full_mgr[games] = is_mgr
        legal = {"firms": full_eligible, "available": full_avail, "per_payout": full_per_payout}
        w = np.zeros((g, n, f_n), dtype=np.int64)
        mw = np.zeros((g, n, f_n), dtype=bool)
        asked = np.zeros((g, n), dtype=bool)
        asked[games] = ask_m
        # every shareholder and manager at once (nothing changes before all have waived)
        own = {"shares": full, "manager": full_mgr}
        agents.ask_seats("waive_dividends", state, asked, legal, own, (w, mw), check)
        waived = np.where(eligible[:, None, :] & ask_m[:, :, None], w[games], 0).transpose(0, 2, 1).copy()
        manager_waived = (eligible[:, None, :] & ask_m[:, :, None] & is_mgr & mw[games]).any(axis=1)
        if jc and waived.any():  # selective dividends need the manager's consent (2e)
            mgr = manager.astype(np.int64)  # [m, F]
            is_own = np.arange(n)[None, None, :] == mgr[:, :, None]  # [m, F, N]
            others = np.where(is_own, 0, waived)
            at, f = np.nonzero(eligible & any_last(others > 0))
            if at.size:  # every manager at once (a family manages one firm; nothing changes before all answer)
                rows, seat = games[at], mgr[at, f]
                asked = np.zeros((g, n), dtype=bool)
                asked[rows, seat] = True
                firm = np.full((g, n), -1, dtype=np.int64)
                firm[rows, seat] = f
                full_others = np.zeros((g, n, n), dtype=np.int64)
                full_others[rows, seat] = others[at, f]
                ok = np.zeros((g, n, n), dtype=bool)
                agents.ask_seats("consent_waivers", state, asked, {}, {"firm": firm, "waived": full_others}, (ok,))
                keep = ok[rows, seat] | is_own[at, f]
                waived[at, f] = np.where(keep, waived[at, f], 0)
    per_payout = sum_last(shares - waived) + ~manager_waived
    max_payouts = np.where(eligible & (per_payout > 0), avail // np.maximum(per_payout, 1), 0)
    slot = fr.slot_of(state)[games]  # [m, N]
    oc = np.maximum(slot, 0)
    payouts = np.zeros((m, f_n), dtype=np.int64)
    ask_any = max_payouts > 0

    def check_k(k, legal, obs):
        return (k < 0) | (k > legal.max_payouts), "more payouts than the firm's money covers"

    ask_m = (slot >= 0) & np.take_along_axis(ask_any, oc, axis=1)  # [m, N]
    if ask_m.any():  # every manager at once (the payouts are made after all have chosen)
        k = np.zeros((g, n), dtype=np.int64)
        seat_legal = {
            "firm": full_batch(g, games, slot, -1),
            "per_payout": full_batch(g, games, np.take_along_axis(per_payout, oc, axis=1), 0),
            "max_payouts": full_batch(g, games, np.take_along_axis(max_payouts, oc, axis=1), 0),
            "available": full_batch(g, games, np.take_along_axis(avail, oc, axis=1), 0),
        }
        asked = full_batch(g, games, ask_m, False, bool)
        agents.ask_seats("firm_dividends", state, asked, {}, seat_legal, (k,), check_k)
        at, seat = np.nonzero(ask_m)
        payouts[at, oc[at, seat]] = k[games[at], seat]
    total = np.zeros((m, f_n), dtype=np.int64)
    for f in range(f_n):
        at = np.flatnonzero(payouts[:, f] > 0)
        if at.size:
            ff = np.full(at.size, f)
            total[at, f] = fr.pay_dividends(state, rules, games[at], ff, payouts[at, f], waived[at, f],
                                            manager_waived[at, f])  # fmt: skip
    traded = state.firm_successes[games] >= 0
    level = state.firm_dividend[games]
    keep_level = ~traded & (total == 0) if not jc else hobnob
    level = np.where(open_ & ~keep_level, total, level)  # the £ paid out in all, not per share (D-DIVIDEND-LEVEL)
    state.firm_dividend[games] = level.astype(state.firm_dividend.dtype)
    if jc:
        move = np.where(open_, state.firm_india[games], 0)
        state.firm_cash[games] += move
        state.firm_india[games] -= move
        if trace.recorder is not None:
            trace.recorder.transfer(state, "india_to_london", ("firm_india", -move, games), ("firm", move, games))
