"""Private firms after Deregulation (R-FIRMS, D-FIRM-VARIANT, D-INITIATIVE): phase 3 (seed 000 L86-L106; seed 002
"商行階段"), the firms' trade in phase 6 (seed 000 L154, L175-L182; 2e "以商行身份滿足需求") and their accounts in
phase 7.1 (seed 000 L191-L199; 2e "商行的開支與股息"). The rules themselves are small functions in ``sim/firms.py``;
here the families decide.

Phase 3, in games where Deregulation passed in an earlier round (``firms.active``), in this order (2e's first step
has no order: "players may act at any time"; the house rules say "at any time" for manager changes and mergers; the
simulator gives every act one moment of phase 3):
1. opening (decision ``open_firm``): a family managing no firm may open one with an uninvested factory or a
   Company share (house: only while debt <= 4 and stability >= 4; jc2e: shares only while the stock is not weak,
   never shares issued since the last firm phase);
2. investing (``invest_in_firms``, the manager's ``consent_investment``; his own family needs none): applied per
   firm clockwise from its manager, factories before shares; past 10 shareholders money only;
3. manager change (``take_over_firm``, the shareholders' ``approve_manager``): a family managing no firm takes a
   firm over when the holders of more than half its shares approve (house L103 "majority of the shareholders"; 2e's
   hostile takeover: the same rule); several candidates for one firm: the first clockwise from its manager;
4. mergers (``propose_merger``, everyone involved ``consent_merger``): proposals clockwise from the Prime Minister,
   each firm in one merger per phase, unanimity of every shareholder and both managers (L104); jc2e: a firm may
   be dissolved by its manager with every shareholder's consent (``dissolve_firm``, ``consent_dissolution``),
   as a bankrupt one;
5. ships (``firm_ships``, the yard owners' ``consent_yard``): ships at free family shipyards for ``ship_cost`` £
   (L105); jc2e also buys the Company's family-yard ships back (3 £, damaged 2 £); applied clockwise from the PM,
   as many as the yards still hold;
6. the sealed trade strategy (``firm_strategy``, L106): a home port (or none: jc2e's Hobnob) and a £ bid, written
   to the state only once every manager has chosen (hidden from strategies until the initiative roll).
Company shares issued from now to the next phase 3 are "fresh" (jc2e's ban).

Phase 6: ``trade_initiative`` (before the governors, L154) takes every bid to the bank and rolls its dice: the
successes (1-2) count, a firm with none does not trade; its ships sail to its port's sea. In each presidency's
trade (``trade_in_turn``, called by ``operations.presidents``) the firms of that port and its President (when his
check succeeded) fill orders in initiative order (D-INITIATIVE; ties: the President, else the Chairman, decision
``order_traders``); a firm (``firm_trade``) fills open orders reachable from its port, one ship each (jc2e: ships
+ 1), half value where anyone filled the order earlier this round; the Company likewise after firms
(``firms.company_refill``).

Phase 7.1 (``firm_accounts``, after family income, before the Company's costs): firms settle in initiative order
(``firms.accounts_order``): costs; short, emergency investments from any family clockwise from the manager
(``emergency_invest``, the manager's ``consent_investment``), -1 value each, the unused rest burns; jc2e: then an
emergency merger (``rescue_firm``, ``consent_merger``); still short: bankruptcy, shareholders to debtors' prison.
Then dividends: waivers (``waive_dividends``; jc2e: the manager's ``consent_waivers``), payouts of (shares + 1) £
(``firm_dividends``); the dividend level (special retirements, ``london.special_retirements``) becomes what was
paid, unless the firm did not trade (house L198) / chose Hobnob (jc2e, which then pays no dividend); jc2e: the
India treasury's rest moves to London.
"""

from __future__ import annotations

import numpy as np

from .. import firms as fr
from .. import layout as L
from .. import ledger, trace
from ..agents import Agents, full_batch
from ..board import check_outcome, company_ships, reachable
from ..dice import Chance
from ..reduce import any_last, sum_last
from ..rules import Rules
from ..state import State


def _clockwise(start: np.ndarray, k: int, n: int) -> np.ndarray:
    return (np.maximum(start, 0).astype(np.int64) + k) % n


def _pm_start(state: State) -> np.ndarray:
    return np.where(state.prime_minister >= 0, state.prime_minister, 0).astype(np.int64)


# ================================================================================================== phase 3
def firms(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Phase 3 (L86-L106): opening, investing, manager changes, mergers, ships, the sealed trade strategy."""
    state.firm_filled[~state.done] = False  # nothing is filled yet this round (phase 6 fills)
    on = fr.active(state)
    if on.any():
        state.firm_successes[on] = -1
        state.firm_port[on] = -1
        state.firm_bid[on] = 0
        open_step(state, rules, agents, on)
        invest_step(state, rules, agents, on)
        manager_step(state, rules, agents, on)
        merger_step(state, rules, agents, on)
        if fr.jc2e(rules):
            dissolve_step(state, rules, agents, on)
        ships_step(state, rules, agents, on)
        strategy_step(state, rules, agents, on)
    state.firm_fresh[~state.done] = 0  # jc2e: shares issued from now on are fresh until the next phase 3


def open_step(state: State, rules: Rules, agents: Agents, on: np.ndarray) -> None:
    """Families managing no firm may open one (L88; decision ``open_firm``: 0 no, 1 a factory, 2 a Company share)."""
    g, n = state.n_games, state.n_players
    with_factory, with_share = fr.may_open(state, rules)
    with_factory, with_share = on & with_factory, on & with_share
    if not (with_factory | with_share).any():
        return
    managing = fr.slot_of(state) >= 0
    for seat in range(n):
        fac = with_factory & (fr.factory_assets(state)[:, seat] > 0)
        sh = with_share & (fr.share_assets(state, rules)[:, seat] > 0)
        ask = ~managing[:, seat] & (fac | sh)
        if not ask.any():
            continue
        choice = np.zeros(g, dtype=np.int64)

        def check(c, legal, obs):
            bad = (c < fr.NO_ASSET) | (c > fr.SHARE)
            bad |= ((c == fr.FACTORY) & ~legal.factory) | ((c == fr.SHARE) & ~legal.share)
            return bad, "0 (none), 1 (an uninvested factory) or 2 (a Company share) the family may invest"

        agents.ask("open_firm", state, np.where(ask, seat, -1), {"factory": fac, "share": sh}, (choice,), check)
        rows = np.flatnonzero(ask & (choice > 0))
        if rows.size:
            fr.open_firm(state, rules, rows, np.full(rows.size, seat), choice[rows])


def invest_step(state: State, rules: Rules, agents: Agents, on: np.ndarray) -> None:
    """Investments with the manager's consent (L102): offers, consents, then per firm clockwise from its manager."""
    g, n = state.n_games, state.n_players
    open_ = on[:, None] & fr.is_open(state)
    if not open_.any():
        return
    f_n = open_.shape[1]
    fac_assets, sh_assets = fr.factory_assets(state), fr.share_assets(state, rules)
    room = np.maximum(rules.firms.max_shareholders - fr.shareholders(state), 0)

    def check(answer, legal, obs):
        fa, sa = answer
        bad = any_last(fa < 0) | any_last(sa < 0)  # the short-axis reductions
        bad |= any_last(((fa + sa) > 0) & ~legal.firms)
        bad |= (sum_last(fa) > legal.factories) | (sum_last(sa) > legal.shares)
        return bad, "investments only in open firms, at most the factories (with relatives at home) and shares held"

    asked = any_last(open_)[:, None] & ((fac_assets > 0) | (sh_assets > 0))  # [G, N]
    fa_all, sa_all = np.zeros((g, n, f_n), dtype=np.int64), np.zeros((g, n, f_n), dtype=np.int64)
    # sealed offers: every family at once (nothing changes before all have offered)
    own = {"factories": fac_assets, "shares": sh_assets}
    agents.ask_seats("invest_in_firms", state, asked, {"firms": open_, "room": room}, own, (fa_all, sa_all), check)
    offers = []  # (seat, the games where it offered, factories int[k, F], shares int[k, F])
    for seat in range(n):
        at = np.flatnonzero(asked[:, seat])
        fa, sa = fa_all[at, seat], sa_all[at, seat]
        some = any_last((fa + sa) > 0)
        offers.append((seat, at[some], fa[some], sa[some]))
    games = np.unique(np.concatenate([at for _, at, _, _ in offers])) if offers else np.zeros(0, dtype=np.int64)
    if games.size == 0:
        return
    m, seats, sub = games.size, np.arange(n), np.arange(games.size)
    offer_f = np.zeros((m, n, f_n), dtype=np.int64)  # the offers in the games with one
    offer_s = np.zeros((m, n, f_n), dtype=np.int64)
    for seat, at, fa, sa in offers:
        pos = np.searchsorted(games, at)
        offer_f[pos, seat] = fa
        offer_s[pos, seat] = sa
    for f in range(f_n):
        manager = state.firm_manager[games, f].astype(np.int64)
        of, os_ = offer_f[:, :, f], offer_s[:, :, f]  # [m, N]
        offered = (of + os_) > 0
        if not offered.any():  # no offer for this firm in any game
            continue
        own = seats[None, :] == manager[:, None]
        yes = np.zeros((m, n), dtype=bool)
        asked = any_last(offered & ~own)
        if asked.any():
            decider = np.full(g, -1, dtype=np.int64)
            decider[games[asked]] = manager[asked]
            full_f, full_s = np.zeros((g, n), dtype=np.int64), np.zeros((g, n), dtype=np.int64)
            full_f[games], full_s[games] = of, os_
            legal = {"firm": np.full(g, f), "factories": full_f, "shares": full_s, "emergency": np.zeros(g, dtype=bool)}
            full_yes = np.zeros((g, n), dtype=bool)
            agents.ask("consent_investment", state, decider, legal, (full_yes,))
            yes = full_yes[games]
        accepted = offered & (own | yes)
        for k in range(n if accepted.any() else 0):
            seat = _clockwise(manager, k, n)
            at = np.flatnonzero(accepted[sub, seat])
            if at.size:
                s = seat[at]
                fr.invest(state, rules, games[at], np.full(at.size, f), s, of[at, s], os_[at, s])


def _firm_choice(reason: str):
    """The check of a decision answering one firm of ``legal.firms`` bool[G', F], or -1 for none."""

    def check(t, legal, obs):
        tc = np.clip(t, 0, legal.firms.shape[1] - 1)
        bad = (t < -1) | (t >= legal.firms.shape[1])
        return bad | ((t >= 0) & ~legal.firms[np.arange(obs.n), tc]), reason

    return check


def manager_step(state: State, rules: Rules, agents: Agents, on: np.ndarray) -> None:
    """Manager change (L103; 2e's hostile takeover): a family managing no firm names one; the firm's shareholders
    vote with their shares; more than half approve."""
    g, n = state.n_games, state.n_players
    open_ = on[:, None] & fr.is_open(state)
    if not open_.any():
        return
    f_n = open_.shape[1]
    slot = fr.slot_of(state)
    wants = np.full((g, n), -1, dtype=np.int64)

    check = _firm_choice("not a firm another family manages")

    targets = open_[:, None, :] & (state.firm_manager[:, None, :] != np.arange(n)[None, :, None])  # [G, N, F]
    asked = on[:, None] & (slot < 0) & any_last(targets)
    agents.ask_seats("take_over_firm", state, asked, {}, {"firms": targets}, (wants,), check)  # every seat at once
    if not (wants >= 0).any():
        return
    rows_all = np.arange(g)
    candidate = np.full((g, f_n), -1, dtype=np.int64)
    for f in range(f_n):
        manager = state.firm_manager[:, f]
        for k in range(1, n):
            seat = _clockwise(manager, k, n)
            take = (candidate[:, f] < 0) & (wants[rows_all, seat] == f)
            candidate[take, f] = seat[take]
    shares = np.ascontiguousarray(state.firm_shares.transpose(0, 2, 1))  # [G, N, F]: each seat's shares per firm
    voting = (candidate >= 0)[:, None, :] & (shares > 0)
    ok = np.zeros((g, n, f_n), dtype=bool)  # every shareholder at once
    agents.ask_seats("approve_manager", state, any_last(voting), {"candidate": candidate}, {"shares": shares}, (ok,))
    yes = np.where(voting & ok, shares, 0).sum(axis=1)
    won = (candidate >= 0) & (2 * yes > fr.shareholders(state))
    for f in range(f_n):
        rows = np.flatnonzero(won[:, f])
        if rows.size:
            fr.change_manager(state, rows, np.full(rows.size, f), candidate[rows, f])


def merger_step(state: State, rules: Rules, agents: Agents, on: np.ndarray) -> None:
    """Mergers by unanimity (seed 000 L104; 2e "合併"): each manager may propose merging with one other firm; proposals
    are taken clockwise from the Prime Minister, a firm merges at most once per phase."""
    g, n = state.n_games, state.n_players
    open_ = on[:, None] & fr.is_open(state)
    many = open_.sum(axis=1) >= 2
    if not many.any():
        return
    f_n = open_.shape[1]
    slot = fr.slot_of(state)
    proposal = np.full((g, n), -1, dtype=np.int64)

    check = _firm_choice("not another open firm")

    asked = many[:, None] & (slot >= 0)  # [G, N]
    if asked.any():  # every manager at once (proposals are taken after all have proposed)
        others = open_[:, None, :] & (np.arange(f_n)[None, None, :] != slot[:, :, None])  # [G, N, F]
        agents.ask_seats("propose_merger", state, asked, {}, {"firm": slot, "firms": others}, (proposal,), check)
    if not (proposal >= 0).any():
        return
    merged = np.zeros((g, f_n), dtype=bool)
    pm = _pm_start(state)
    rows_all = np.arange(g)
    for k in range(n):
        seat = _clockwise(pm, k, n)
        a = fr.slot_of(state)[rows_all, seat]
        b = proposal[rows_all, seat]
        opened = fr.is_open(state)
        ok = (a >= 0) & (b >= 0)
        ac, bc = np.maximum(a, 0), np.maximum(b, 0)
        ok &= opened[rows_all, ac] & opened[rows_all, bc] & ~merged[rows_all, ac] & ~merged[rows_all, bc] & (a != b)
        rows = np.flatnonzero(ok)
        if rows.size == 0:
            continue
        done = propose_and_merge(state, rules, agents, rows, a[rows], b[rows], rescue=False)
        merged[rows[done], a[rows[done]]] = True
        merged[rows[done], b[rows[done]]] = True


def propose_and_merge(
    state: State, rules: Rules, agents: Agents, rows: np.ndarray, a: np.ndarray, b: np.ndarray, rescue: bool
) -> np.ndarray:
    """Merge firm ``a[m]`` (the proposer's) with ``b[m]`` in games ``rows`` if every family holding a share of
    either and both managers consent (decision ``consent_merger``, told the survivor and each family's shares
    lost). Returns bool[m]: merged."""
    g, n = state.n_games, state.n_players
    survivor, absorbed, lose = fr.merge_plan(state, rules, rows, a, b)
    involved = (state.firm_shares[rows, a] + state.firm_shares[rows, b]) > 0  # [m, N]
    for x in (a, b):
        involved[np.arange(rows.size), state.firm_manager[rows, x]] = True
    full_firms = np.full((g, 2), -1, dtype=np.int64)
    full_firms[rows] = np.stack([a, b], axis=1)
    full_survivor = np.full(g, -1, dtype=np.int64)
    full_survivor[rows] = survivor
    full_lose = np.zeros((g, n), dtype=np.int64)
    full_lose[rows] = lose
    legal = {"firms": full_firms, "survivor": full_survivor, "lose": full_lose, "rescue": np.full(g, rescue)}
    yes = np.zeros((g, n), dtype=bool)  # everyone involved at once (nothing changes before all have answered)
    agents.ask_seats("consent_merger", state, full_batch(g, rows, involved, False, bool), legal, {}, (yes,))
    agreed = (~involved | yes[rows]).all(axis=1)
    go = np.flatnonzero(agreed)
    if go.size:
        fr.merge(state, rows[go], survivor[go], absorbed[go], lose[go])
    return agreed


def dissolve_step(state: State, rules: Rules, agents: Agents, on: np.ndarray) -> None:
    """jc2e (seed 002 "解散商行"): a firm is dissolved when its manager proposes it (decision ``dissolve_firm``) and
    every shareholder consents (``consent_dissolution``), "by the dissolution rules below": as a bankrupt firm
    (``firms.bankrupt``: its shareholders to debtors' prison, its ships leave their yards, its money is lost)."""
    g, n = state.n_games, state.n_players
    slot = fr.slot_of(state)
    for seat in range(n):
        own = slot[:, seat]
        ask = on & (own >= 0)
        if not ask.any():
            continue
        yes = np.zeros(g, dtype=bool)
        agents.ask("dissolve_firm", state, np.where(ask, seat, -1), {"firm": own}, (yes,))
        rows = np.flatnonzero(ask & yes)
        if rows.size == 0:
            continue
        f = own[rows]
        holds = state.firm_shares[rows, f] > 0  # [k, N]: every shareholder at once
        ok = np.zeros((g, n), dtype=bool)
        legal = {"firm": full_batch(g, rows, f, -1)}
        agents.ask_seats("consent_dissolution", state, full_batch(g, rows, holds, False, bool), legal, {}, (ok,))
        agreed = (~holds | ok[rows]).all(axis=1)
        if agreed.any():
            fr.bankrupt(state, rows[agreed], f[agreed])


def ships_step(state: State, rules: Rules, agents: Agents, on: np.ndarray) -> None:
    """Ships for firms (seed 000 L105; 2e "以商行身份獲取船隻", "購回玩家所有的船隻"): each manager asks for ships at
    family shipyards (and, jc2e, Company yard ships to buy back); each yard owner consents per firm (his own
    family's firm needs no consent); applied clockwise from the Prime Minister while the yards and ships last."""
    g, n = state.n_games, state.n_players
    fi = rules.firms
    buyback = fr.jc2e(rules)
    firm_games = np.flatnonzero(on & any_last(fr.is_open(state)))
    if firm_games.size == 0:
        return
    free = np.zeros((g, n), dtype=np.int64)  # the legal option, at the games asked
    free[firm_games] = fr.free_yards(state, firm_games)
    can_build = any_last(free[firm_games] > 0)
    if buyback:
        can_build |= any_last(state.yard_ships[firm_games].reshape(firm_games.size, -1) != 0)
    games = firm_games[can_build]
    if games.size == 0:
        return
    f_n = state.firm_manager.shape[1]
    m = games.size
    cost = fr.ship_cost(state, rules)
    zeros = np.zeros((g, n, L.N_SHIP_LOCS), dtype=np.int64)
    sound = (state.yard_ships - state.yard_damaged).astype(np.int64) if buyback else zeros
    damaged = state.yard_damaged.astype(np.int64) if buyback else zeros
    cheapest = np.minimum(cost, fi.buyback_damaged) if buyback else cost
    slot = fr.slot_of(state)
    want_b = np.zeros((m, f_n, n), dtype=np.int64)  # per game of ``games``
    want_s = np.zeros((m, f_n, n, L.N_SHIP_LOCS), dtype=np.int64) if buyback else None
    want_d = np.zeros_like(want_s) if buyback else None
    price_s = np.full(g, fi.buyback_sound if buyback else 0)
    price_d = np.full(g, fi.buyback_damaged if buyback else 0)

    def check(answer, legal, obs):
        b, s, d = answer
        s, d = s.reshape(len(s), -1), d.reshape(len(d), -1)  # per row: yard owners by locations
        sound, damaged = legal.sound.reshape(len(s), -1), legal.damaged.reshape(len(d), -1)
        bad = any_last(b < 0) | any_last(s < 0) | any_last(d < 0)  # the short-axis reductions
        bad |= any_last(b > legal.free_yards)
        bad |= any_last(s > sound) | any_last(d > damaged)
        price = legal.cost * sum_last(b)
        price = price + legal.price_sound * sum_last(s) + legal.price_damaged * sum_last(d)
        return bad | (price > legal.cash), "more ships than free yards (or Company yard ships), or than it can pay"

    own = slot[games]  # [m, N]
    oc = np.maximum(own, 0)
    cash = full_batch(g, games, state.firm_cash[games[:, None], oc], 0, state.firm_cash.dtype)  # [G, N]
    asked = np.zeros((g, n), dtype=bool)
    asked[games] = (own >= 0) & (cash[games] >= cheapest[games, None])
    if asked.any():  # every manager at once (the ships are applied after all have asked)
        legal = {
            "free_yards": free,
            "cost": cost,
            "sound": sound,
            "damaged": damaged,
            "price_sound": price_s,
            "price_damaged": price_d,
            "buyback": np.full(g, buyback),
        }
        shape = (g, n, *sound.shape[1:])
        out = (np.zeros((g, n, n), dtype=np.int64), np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64))
        agents.ask_seats("firm_ships", state, asked, legal, {"firm": slot, "cash": cash}, out, check)
        at, seat = np.nonzero(asked[games])
        rows, f = games[at], oc[at, seat]
        want_b[at, f] = out[0][rows, seat]
        if buyback:
            want_s[at, f] = out[1][rows, seat]
            want_d[at, f] = out[2][rows, seat]
    buy_at = (want_s.sum(axis=3) + want_d.sum(axis=3)) if buyback else np.zeros_like(want_b)  # [m, F, N]
    asked_at = want_b + buy_at
    if not asked_at.any():
        return
    seats = np.arange(n)
    own_firm = state.firm_manager[games][:, None, :] == seats[None, :, None]  # [m, N (yard owner), F]
    need = (asked_at.transpose(0, 2, 1) > 0) & ~own_firm
    ok = np.zeros((g, n, f_n), dtype=bool)
    if need.any():  # every yard owner at once (nothing changes before all have answered)
        build = full_batch(g, games, want_b.transpose(0, 2, 1), 0)
        buy = full_batch(g, games, buy_at.transpose(0, 2, 1), 0)
        asked = full_batch(g, games, any_last(need), False, bool)
        agents.ask_seats("consent_yard", state, asked, {}, {"build": build, "buy": buy}, (ok,))
    consent = (own_firm | (ok[games] & need)).transpose(0, 2, 1)  # [m, F, N]
    pm = _pm_start(state)[games]
    sub_all = np.arange(m)
    for k in range(n):
        seat = _clockwise(pm, k, n)
        f = slot[games, seat]
        has = f >= 0
        sub, rows, f = sub_all[has], games[has], f[has]
        if rows.size == 0:
            continue
        yes = consent[sub, f]  # [m', N]
        b = np.minimum(np.where(yes, want_b[sub, f], 0), fr.free_yards(state, rows))
        if b.any():
            fr.build_ships(state, rules, rows, f, b)
        if buyback:
            s_now = (state.yard_ships - state.yard_damaged)[rows].astype(np.int64)
            s_ = np.minimum(np.where(yes[:, :, None], want_s[sub, f], 0), s_now)
            d_ = np.minimum(np.where(yes[:, :, None], want_d[sub, f], 0), state.yard_damaged[rows].astype(np.int64))
            if s_.any() or d_.any():
                fr.buy_back(state, rules, rows, f, s_, d_)


def strategy_step(state: State, rules: Rules, agents: Agents, on: np.ndarray) -> None:
    """The sealed trade strategy (seed 000 L106; 2e "商行策略"): every manager picks a home port (-1: no trade this
    round, jc2e's Hobnob) and a £ bid (its dice), at least 1 £ and at most its (London) treasury, with at least one ship
    (a firm without a ship or money is not asked: it cannot trade). Written to the hidden ``firm_port`` / ``firm_bid``
    once every manager has chosen."""
    g, n = state.n_games, state.n_players
    slot = fr.slot_of(state)
    ports = np.full((g, n), -1, dtype=np.int64)
    bids = np.zeros((g, n), dtype=np.int64)
    games = np.flatnonzero(on & any_last(fr.is_open(state)))  # the games with a firm to ask about
    ships, due = fr.fleet(state, games), fr.costs_due(state, rules, games)  # [m, F]

    def check(answer, legal, obs):
        p, b = answer
        trade = p >= 0
        bad = (p < -1) | (p >= L.PRESIDENCIES) | (~trade & (b != 0))
        bad |= trade & ((legal.ships < 1) | (b < 1) | (b > legal.cash))
        return bad, "a port 0-2 with a bid of 1 £ up to the treasury (and a ship), or -1 with no bid"

    own = slot[games]  # [m, N]
    oc = np.maximum(own, 0)
    cash, n_ships = state.firm_cash[games[:, None], oc], np.take_along_axis(ships, oc, axis=1)
    ask_m = (own >= 0) & (n_ships >= 1) & (cash >= 1)  # else no trade
    if ask_m.any():
        asked = full_batch(g, games, ask_m, False, bool)
        seat_legal = {
            "firm": slot,
            "cash": full_batch(g, games, cash, 0, cash.dtype),
            "ships": full_batch(g, games, n_ships, 0),
            "due": full_batch(g, games, np.take_along_axis(due, oc, axis=1), 0),
        }
        # sealed: every manager at once (nothing changes before all have chosen)
        agents.ask_seats("firm_strategy", state, asked, {}, seat_legal, (ports, bids), check)
    rows, seats = np.nonzero(slot >= 0)
    state.firm_port[rows, slot[rows, seats]] = ports[rows, seats]
    state.firm_bid[rows, slot[rows, seats]] = bids[rows, seats]


# ================================================================================================== phase 6
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


# ================================================================================================ phase 7.1
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
