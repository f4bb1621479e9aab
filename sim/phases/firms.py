"""Phase 3, firms (R-FIRMS, D-FIRM-VARIANT, D-OPENING-HEALTH; seed 000 L86-L106; seed 002 "商行階段").

In games where Deregulation passed in an earlier round (``firms.active``) the families act on their firms, every act
at one moment of phase 3, in this order (2e's first step has no order: "players may act at any time"; the house rules
say "at any time" for manager changes and mergers). The rules themselves are small functions in ``sim/firms.py``;
here the families decide.

1. opening (decision ``open_firm``): a family managing no firm may open one with an uninvested factory or a
   Company share, its treasury ``firms.start_treasury`` £ (house: only while debt <= ``firms.open_max_debt`` and
   stability >= ``firms.open_min_stability``: every opening, or with ``firms.opening_requires_health`` = "share"
   one with a share only; jc2e: shares only while the stock is not weak, never shares issued since the last firm
   phase);
2. investing (``invest_in_firms``, the manager's ``consent_investment``; his own family needs none): applied per
   firm clockwise from its manager, factories before shares, ``firms.investment`` £ each; past
   ``firms.max_shareholders`` money only;
3. manager change (``take_over_firm``, the shareholders' ``approve_manager``): a family managing no firm takes a
   firm over when the holders of more than half its shares approve (house L103 "majority of the shareholders"; 2e's
   hostile takeover: the same rule); several candidates for one firm: the first clockwise from its manager;
4. mergers (``propose_merger``, everyone involved ``consent_merger``): proposals clockwise from the Prime Minister,
   each firm in one merger per phase, unanimity of every shareholder and both managers (L104); jc2e: a firm may
   be dissolved by its manager with every shareholder's consent (``dissolve_firm``, ``consent_dissolution``),
   as a bankrupt one;
5. ships (``firm_ships``, the yard owners' ``consent_yard``): ships at free family shipyards for ``firms.ship_cost``
   £ (L105); jc2e also buys the Company's family-yard ships back (``firms.buyback_sound`` £, damaged
   ``firms.buyback_damaged``); applied clockwise from the PM, as many as the yards still hold;
6. the sealed trade strategy (``firm_strategy``, L106): a home port (or none: jc2e's Hobnob) and a £ bid, written
   to the state only once every manager has chosen (hidden from strategies until the initiative roll).

Company shares issued from now to the next phase 3 are "fresh" (jc2e's ban). ``firms.variant`` = "jc2e"
(D-FIRM-VARIANT) switches on every jc2e step above. The firms trade in phase 6 (``firm_trade.py``) and settle in
7.1 (``firm_accounts.py``).
"""

from __future__ import annotations

import numpy as np

from .. import firms as fr
from .. import layout as L
from ..agents import Agents, full_batch
from ..dice import Chance
from ..reduce import any_last, sum_last
from ..rules import Rules
from ..state import State


def _clockwise(start: np.ndarray, k: int, n: int) -> np.ndarray:
    return (np.maximum(start, 0).astype(np.int64) + k) % n


def _pm_start(state: State) -> np.ndarray:
    return np.where(state.prime_minister >= 0, state.prime_minister, 0).astype(np.int64)


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
