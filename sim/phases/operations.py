"""Phase 6, Company operations (R-OPERATIONS, L129-L189), in the rules' order:

Chairman (loans, budget) -> Director of Trade (checks, moves) -> Shipping Manager (ships) -> Military Affairs ->
firms' trade initiative -> governors -> army commanders -> presidents' trade -> China trade.
"""

from __future__ import annotations

import numpy as np

from .. import firms as firm_rules
from .. import kernels, laws, ledger, notes, trace
from .. import layout as L
from ..agents import Agents, full_batch
from ..board import (
    board_votes,
    company_ships,
    govern_effect,
    reachable,
    regions_outside_home,
    roll_check,
    vacate,
    vacate_governor,
)
from ..dice import Chance
from ..governor_general import governor_general
from ..india import settle_damage
from ..reduce import any_last, sum_last
from ..rules import Rules
from ..state import TALLY, State
from .firm_trade import president_check, trade_in_turn, trade_initiative, traders_at
from .military import deployments, military_affairs


def company_operations(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    chairman(state, rules, dice, agents)
    director_of_trade(state, rules, dice, agents)
    shipping_manager(state, rules, dice, agents)
    military_affairs(state, rules, dice, agents)
    laws.military_oversight(state, rules, dice, agents)  # Military Oversight
    trade_initiative(state, rules, dice, agents)
    governors(state, rules, dice, agents)
    governor_general(state, rules, dice, agents)  # the Governor-General, after the governors
    deployments(state, rules, dice, agents)
    presidents(state, rules, dice, agents)
    china_trade(state, rules, dice, agents)
    laws.board_of_control(state, rules, dice, agents)  # Board of Control, every office has acted


# ------------------------------------------------------------------------------------------------- Chairman
def chairman(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """R-CHAIRMAN (L129-L133): up to ``free_loans`` loans (more with a board majority, never past ``max_loans``),
    then the whole budget (loans + carried balance) handed out to the committees whose office is held (L132
    "доступные комитеты": the Director of Trade, the Shipping Manager, the presidencies); with none held it stays."""
    g, n = state.n_games, state.n_players
    co = rules.company
    chair = np.where(~state.done, state.office[:, L.CHAIRMAN], -1)
    if not (chair >= 0).any():
        return
    room = np.maximum(co.max_loans - state.loans, 0)
    free = np.minimum(co.free_loans, room)
    loans = np.zeros(g, dtype=np.int64)

    def check_loans(k, legal, obs):
        return (k < 0) | (k > legal.max_loans), "more loans than the Company may take"

    agents.ask("take_loans", state, chair, {"max_loans": room, "free_loans": free}, (loans,), check_loans)
    beyond = loans > free
    if beyond.any():  # more than free_loans needs the board's consent, share-weighted (the chair counts as one)
        votes = board_votes(state)
        voter = beyond[:, None] & (votes > 0)  # [G, N] the board members asked, all at once
        ok = np.zeros((g, n), dtype=bool)
        agents.ask_seats("approve_loans", state, voter, {"loans": loans, "chairman": chair}, {}, (ok,))
        yes = sum_last(np.where(ok & voter, votes, 0))
        approved = yes >= co.chairman_vote * votes.sum(axis=1) - 1e-9
        loans = np.where(beyond & ~approved, free, loans)
    state.loans[...] += loans.astype(np.int32)
    ledger.company(state, "loans", loans * co.loan_value)
    state.tally[:, TALLY["loans_taken"]] += loans.astype(np.int32)

    committees = state.office[:, [L.DIRECTOR, L.SHIPPING, *L.PRESIDENT]] >= 0  # [G, 5] in treasury order
    budget = np.where((chair >= 0) & committees.any(axis=1), state.balance, 0)
    alloc = np.zeros((g, L.N_TREASURIES), dtype=np.int64)

    def check_budget(a, legal, obs):
        bad = (a < 0).any(axis=1) | (a.sum(axis=1) != legal.budget) | ((a > 0) & ~legal.open).any(axis=1)
        return bad, "the whole budget must be handed out, and only to committees whose office is held"

    legal = {"budget": budget, "open": committees}
    agents.ask("allocate_budget", state, np.where(budget > 0, chair, -1), legal, (alloc,), check_budget)
    handed = np.where((budget > 0)[:, None], alloc, 0)
    state.balance[...] -= handed.sum(axis=1).astype(np.int32)
    state.treasury[...] += handed.astype(np.int32)
    if trace.recorder is not None:
        trace.recorder.transfer(state, "budget", ("company", -handed.sum(axis=1)), ("treasury", handed))


# ---------------------------------------------------------------------------------------- Director of Trade
def openable(
    state: State, rules: Rules, rows: np.ndarray | None = None, free_region: np.ndarray | None = None
) -> np.ndarray:
    """bool[G', O+1] at games ``rows`` (default every game): closed orders in regions the Company does not control,
    and (last column) the closed route to China: what a Director of Trade success may open (L136-L137).
    ``free_region`` bool[G', O]: the orders' regions the Company does not control, when the caller has them."""
    rows = slice(None) if rows is None else rows
    if free_region is None:
        free_region = state.owner[rows][:, rules.d.order_region] < 0
    return np.concatenate([~state.order_open[rows] & free_region, ~state.china_open[rows, None]], axis=1)


def director_of_trade(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """R-DIRECTOR (L135-L139): repeated checks (k £ for k dice) while not fired and a success could open
    something; then moves."""
    g = state.n_games
    t = L.T_DIRECTOR
    n_orders = len(rules.d.orders)
    rows = np.flatnonzero(~state.done & (state.office[:, L.DIRECTOR] >= 0))  # the games where he may go on
    free_region = state.owner[rows][:, rules.d.order_region] < 0  # (no region changes hands while he checks)
    while True:
        can = openable(state, rules, rows, free_region)
        go_on = any_last(can) & (state.treasury[rows, t] >= 1) & (state.office[rows, L.DIRECTOR] >= 0)
        rows, can, free_region = rows[go_on], can[go_on], free_region[go_on]
        if rows.size == 0:
            break
        can_open = full_batch(g, rows, can, False, bool)
        director = full_batch(g, rows, state.office[rows, L.DIRECTOR], -1)
        k = np.zeros(g, dtype=np.int64)

        def check_k(k, legal, obs):
            return (k < 0) | (k > legal.treasury), "cannot roll more dice than the £ in his treasury"

        agents.ask(
            "trade_check",
            state,
            director,
            {"treasury": state.treasury[:, t], "openable": can_open},
            (k,),
            check_k,
        )
        rolls = k[rows] > 0
        rows, free_region = rows[rolls], free_region[rolls]
        if rows.size == 0:
            break
        ledger.treasury(state, "director_checks", t, -full_batch(g, rows, k[rows], 0))
        state.tally[rows, TALLY["checks"]] += 1
        won, fired = roll_check(rules, dice, rows, k[rows], g)
        pick = np.full(g, -1, dtype=np.int64)

        def check_pick(i, legal, obs):
            ic = np.clip(i, 0, legal.openable.shape[1] - 1)
            return (i < 0) | (i >= legal.openable.shape[1]) | ~legal.openable[np.arange(obs.n), ic], "not openable"

        agents.ask("open_order", state, np.where(won, director, -1), {"openable": can_open}, (pick,), check_pick)
        opened = rows[won[rows]]
        orders = opened[pick[opened] < n_orders]
        state.order_open[orders, pick[orders]] = True
        state.china_open[opened[pick[opened] == n_orders]] = True
        state.tally[opened, TALLY["orders_opened"]] += 1
        vacate(state, fired, L.DIRECTOR)
        stays = np.ones(g, dtype=bool)
        stays[fired] = False
        rows, free_region = rows[stays[rows]], free_region[stays[rows]]
    director_moves(state, rules, agents)


def director_moves(state: State, rules: Rules, agents: Agents) -> None:
    """Up to ``director.moves`` moves of clerks or ships between presidencies (ships also to China if open)."""
    g, m = state.n_games, rules.director.moves
    director = np.where(~state.done, state.office[:, L.DIRECTOR], -1)
    if m == 0 or not (director >= 0).any():
        return
    moves = tuple(np.zeros((g, m), dtype=np.int64) for _ in range(5))
    legal = {
        "clerks": state.clerks,
        "ships": state.ships,
        "yard_ships": state.yard_ships,
        "china_open": state.china_open,
    }

    def check(answer, lg, obs):
        return apply_director_moves(lg.clerks.copy(), lg.ships.copy(), lg.yard_ships.copy(), lg.china_open, answer), (
            "illegal move of clerks or ships"
        )

    agents.ask("director_moves", state, director, legal, moves, check)
    moved = np.flatnonzero(any_last(moves[0] != L.MOVE_NONE))  # the games where he moves something (asked ones)
    if moved.size:
        clerks, ships, yard = state.clerks[moved], state.ships[moved], state.yard_ships[moved]
        apply_director_moves(clerks, ships, yard, state.china_open[moved], tuple(x[moved] for x in moves))
        state.clerks[moved], state.ships[moved], state.yard_ships[moved] = clerks, ships, yard
    over = (state.yard_damaged > state.yard_ships).reshape(g, -1)
    rows = np.flatnonzero(any_last(over) & (director >= 0))  # damage left over its ships (elsewhere nothing moves)
    if rows.size == 0:
        return
    damaged, yard = state.yard_damaged[rows], state.yard_ships[rows]
    settle_damage(yard, damaged)  # storm damage goes with the moved ships (phase 8)
    state.yard_damaged[rows] = damaged


def apply_director_moves(
    clerks: np.ndarray, ships: np.ndarray, yard: np.ndarray, china_open: np.ndarray, moves: tuple
) -> np.ndarray:
    """Apply (kind, family, src, dst, count)[G', M] moves in order, in place; returns bool[G'] illegal games (a
    game's moves stop at its first illegal one)."""
    kind, family, src, dst, count = moves
    g, n = clerks.shape[:2]
    if kernels.use(g) and all(isinstance(x, np.ndarray) and x.dtype == np.int64 and x.ndim == 2 for x in moves):
        bad = np.zeros(g, dtype=bool)
        _apply_moves_kernel(clerks, ships, yard, china_open, kind, family, src, dst, count, _MOVE_CODES, bad)
        return bad
    r = np.arange(g)
    bad = np.zeros(g, dtype=bool)
    for j in range(kind.shape[1]):
        k, f, s, d, c = kind[:, j], family[:, j], src[:, j], dst[:, j], count[:, j]
        move = k != L.MOVE_NONE
        clerk = k == L.MOVE_CLERKS
        n_locs = np.where(clerk, L.PRESIDENCIES, np.where(china_open, L.N_SHIP_LOCS, L.PRESIDENCIES))
        bad |= move & ((k < 0) | (k > L.MOVE_YARD_SHIPS) | (s < 0) | (s >= n_locs) | (d < 0) | (d >= n_locs))
        bad |= move & ((s == d) | (c < 1))
        bad |= (clerk | (k == L.MOVE_YARD_SHIPS)) & ((f < 0) | (f >= n))
        s, d, f = np.clip(s, 0, L.N_SHIP_LOCS - 1), np.clip(d, 0, L.N_SHIP_LOCS - 1), np.clip(f, 0, n - 1)
        sp, dp = np.minimum(s, L.PRESIDENCIES - 1), np.minimum(d, L.PRESIDENCIES - 1)
        ok = move & ~bad
        bad |= ok & clerk & (clerks[r, f, sp] < c)
        for kind_code, ship_kind in ((L.MOVE_LEASED, L.LEASED), (L.MOVE_COMPANY_SHIPS, L.COMPANY_SHIP)):
            bad |= ok & (k == kind_code) & (ships[r, s, ship_kind] < c)
        bad |= ok & (k == L.MOVE_YARD_SHIPS) & (yard[r, f, s] < c)
        ok &= ~bad
        sel = ok & clerk
        clerks[r[sel], f[sel], sp[sel]] -= c[sel]
        clerks[r[sel], f[sel], dp[sel]] += c[sel]
        for kind_code, ship_kind in ((L.MOVE_LEASED, L.LEASED), (L.MOVE_COMPANY_SHIPS, L.COMPANY_SHIP)):
            sel = ok & (k == kind_code)
            ships[r[sel], s[sel], ship_kind] -= c[sel]
            ships[r[sel], d[sel], ship_kind] += c[sel]
        sel = ok & (k == L.MOVE_YARD_SHIPS)
        yard[r[sel], f[sel], s[sel]] -= c[sel]
        yard[r[sel], f[sel], d[sel]] += c[sel]
    return bad


# the move kinds (none, clerks, leased, Company and yard ships), the seas and the locations with China
_MOVE_CODES = np.array(
    [L.MOVE_NONE, L.MOVE_CLERKS, L.MOVE_LEASED, L.MOVE_COMPANY_SHIPS, L.MOVE_YARD_SHIPS, L.PRESIDENCIES, L.N_SHIP_LOCS]
    + [L.LEASED, L.COMPANY_SHIP],
    dtype=np.int64,
)


@kernels.kernel
def _apply_moves_kernel(clerks, ships, yard, china_open, kind, family, src, dst, count, codes, bad):
    """``apply_director_moves`` game by game, move by move (``codes``: ``_MOVE_CODES``)."""
    move_none, move_clerks, move_leased, move_yard = codes[0], codes[1], codes[2], codes[4]  # else Company ships
    seas, locs, leased, company = codes[5], codes[6], codes[7], codes[8]
    n = clerks.shape[1]
    for g in range(kind.shape[0]):
        for j in range(kind.shape[1]):
            k, f, s, d, c = kind[g, j], family[g, j], src[g, j], dst[g, j], count[g, j]
            if k == move_none:
                continue
            clerk = k == move_clerks
            n_locs = locs if china_open[g] and not clerk else seas
            where = s < 0 or s >= n_locs or d < 0 or d >= n_locs or s == d
            who = (clerk or k == move_yard) and (f < 0 or f >= n)
            if k < 0 or k > move_yard or where or c < 1 or who:
                bad[g] = True
            elif clerk:
                if clerks[g, f, s] < c:
                    bad[g] = True
                else:
                    clerks[g, f, s] -= c
                    clerks[g, f, d] += c
            elif k == move_yard:
                if yard[g, f, s] < c:
                    bad[g] = True
                else:
                    yard[g, f, s] -= c
                    yard[g, f, d] += c
            else:
                kind_at = leased if k == move_leased else company
                if ships[g, s, kind_at] < c:
                    bad[g] = True
                else:
                    ships[g, s, kind_at] -= c
                    ships[g, d, kind_at] += c
            if bad[g]:
                break


# ------------------------------------------------------------------------------------------ Shipping Manager
def shipping_manager(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """R-SHIPPING (seed 000 L141-L149): with >= must_buy_from £ he must buy ships until less remains or nothing is
    affordable: leased, built at a free family shipyard, or Company ships (only as ``shipping.company_ships`` allows,
    D-COMPANY-SHIPS); he places them in the seas."""
    g, n = state.n_games, state.n_players
    sh = rules.shipping
    t = L.T_SHIPPING
    money = state.treasury[:, t]
    manager = np.where(~state.done & (money >= sh.must_buy_from), state.office[:, L.SHIPPING], -1)
    if not (manager >= 0).any():
        return
    free_yards = firm_rules.free_yards(state)  # firm ships hold yards too
    yard_held = sum_last(firm_rules.yard_use(state))  # int[G]: ships standing on family yards, the firms' included
    yard_cost = laws.yard_cost(state, rules)  # int[G] (Ship Subsidy)
    leased = np.zeros((g, L.PRESIDENCIES), dtype=np.int64)
    company = np.zeros_like(leased)
    yard = np.zeros((g, n, L.PRESIDENCIES), dtype=np.int64)

    def check(answer, legal, obs):
        ls, cs, ys = answer
        per_owner = sum_last(ys)
        built = sum_last(per_owner)
        yards_left = sum_last(legal.free_yards) - built
        n_company = sum_last(cs)
        cost = sh.leased_cost * sum_last(ls) + legal.yard_cost * built + sh.company_cost * n_company
        rest = legal.money - cost
        company_ok = company_ships_allowed(sh.company_ships, yards_left, legal.yard_held + built)
        yard_ok = (yards_left > 0) & ((n_company == 0) | (sh.company_ships == "no_free_yard"))
        cheapest = np.where(yard_ok, np.minimum(sh.leased_cost, legal.yard_cost), sh.leased_cost)
        cheapest = np.where(company_ok, np.minimum(cheapest, sh.company_cost), cheapest)
        bad = any_last(ls < 0) | any_last(cs < 0) | any_last((ys < 0).reshape(len(ys), -1))
        bad |= any_last(per_owner > legal.free_yards) | (rest < 0)
        bad |= (n_company > 0) & ~company_ok
        bad |= (rest >= sh.must_buy_from) & (rest >= cheapest)
        why = "a family yard is free" if sh.company_ships == "no_free_yard" else "a ship stands on a family yard"
        return bad, f"purchase over budget, Company ships while {why}, or >= 3 £ left unspent"

    legal = {"money": money, "free_yards": free_yards, "yard_held": yard_held, "yard_cost": yard_cost}
    agents.ask("buy_ships", state, manager, legal, (leased, company, yard), check)
    asked = (manager >= 0)[:, None]
    leased, company = np.where(asked, leased, 0), np.where(asked, company, 0)
    yard = np.where(asked[:, :, None], yard, 0)
    n_leased, n_company, n_yard = sum_last(leased), sum_last(company), sum_last(yard.reshape(g, -1))
    cost = sh.leased_cost * n_leased + sh.company_cost * n_company + yard_cost * n_yard
    ledger.treasury(state, "ships", t, -cost)
    state.ships[:, : L.PRESIDENCIES, L.LEASED] += leased.astype(np.int32)
    state.ships[:, : L.PRESIDENCIES, L.COMPANY_SHIP] += company.astype(np.int32)
    state.yard_ships[:, :, : L.PRESIDENCIES] += yard.astype(np.int32)
    state.tally[:, TALLY["ships_bought"]] += (n_leased + n_company + n_yard).astype(np.int32)


def company_ships_allowed(reading: str, yards_left: np.ndarray, held: np.ndarray) -> np.ndarray:
    """bool[...]: whether the Shipping Manager may buy Company ships, judged on the family shipyards as his purchase
    leaves them (D-COMPANY-SHIPS, seed 000 L148 "Корабли Компании менеджер имеет право приобрести только при условии,
    что на верфях семей нет ни одного корабля"). ``yards_left``: free family yards after his yard ships; ``held``:
    ships standing on family yards after them (the firms' included). "no_free_yard": no family yard is left free;
    "no_yard_ship" (the seed's words): no family yard holds a ship."""
    if reading == "no_yard_ship":
        return np.asarray(held) <= 0
    return np.asarray(yards_left) <= 0


# ------------------------------------------------------------------------------------------------- governors
def governors(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """R-GOVERNORS (L156-L161, D-ADMIN): each governor may act repeatedly, action i rolling admin_dice - (i - 1)
    dice; region by region in each game, in map order.

    Games do not meet, so each ask serves every game at its own next action: the governor of the region it has
    reached (``legal.region`` per game). A game's asks, dice and effects come in the order of the region-by-region
    loop; a region is done when its governor declines, runs out of dice or is fired."""
    g, n_r = state.n_games, len(rules.d.regions)
    gv = rules.governors
    ruled = ~state.done[:, None] & (state.owner >= 0) & (state.governor >= 0)  # [G, R] (no owner changes here)
    if not ruled.any():
        return
    extra_dice = laws.modifier(state, rules, "governor_dice")  # Zamindar (no law changes while the governors act)
    fail_unrest = 1 + laws.modifier(state, rules, "governor_fail_unrest")  # Zamindar Taxes
    starts = ruled & (rules.d.admin_dice[None, :] + extra_dice[:, None] >= 1)  # a first action to ask about
    later = np.arange(n_r)[None, :]
    games = np.arange(g)
    region = np.full(g, n_r, dtype=np.int64)  # the region each game's governor acts in (n_r: done)
    dice_left = np.zeros(g, dtype=np.int64)
    failed = np.zeros(g, dtype=bool)
    moving = ruled.any(axis=1)

    def check(e, legal, obs):
        return (e < 0) | (e >= L.N_GOV_EFFECTS), "unknown effect"

    while True:
        if moving.any():  # on to each game's next region with a governor and dice (from region + 1)
            rows = np.flatnonzero(moving)
            ahead = starts[rows] & (later > np.where(region[rows] < n_r, region[rows], -1)[:, None])
            nxt = np.where(ahead.any(axis=1), ahead.argmax(axis=1), n_r)
            region[rows] = nxt
            on = nxt < n_r
            dice_left[rows[on]] = rules.d.admin_dice[nxt[on]] + extra_dice[rows[on]]
            failed[rows] = False
        live = region < n_r
        if not live.any():
            break
        at = np.minimum(region, n_r - 1)
        gov = np.where(live, state.governor[games, at], -1)
        act = np.zeros(g, dtype=bool)
        agents.ask("govern", state, gov, {"region": at, "dice": dice_left, "failed": failed}, (act,))
        rows = np.flatnonzero(live & act)
        if rows.size:
            won, fired = roll_check(rules, dice, rows, dice_left[rows], g)
            income = np.where(failed, gv.income_after_failure, gv.income)
            ledger.family(state, "governor_income", gov, income, where=won)
            effect = np.zeros(g, dtype=np.int64)
            agents.ask("govern_effect", state, np.where(won, gov, -1), {"region": at}, (effect,), check)
            half = state.half_ships[games, at]
            govern_effect(state, rules, won, at, effect, half)
            built = np.flatnonzero(won)
            state.half_ships[built, at[built]] = half[built]
            failed[won] = False
            spared = np.ones(g, dtype=bool)
            spared[fired] = False
            nothing = rows[~won[rows] & spared[rows]]
            state.unrest[nothing, at[nothing]] += fail_unrest[nothing].astype(np.int32)
            failed[nothing] = True
            state.unrest[fired, at[fired]] += fail_unrest[fired].astype(np.int32)
            vacate_governor(state, fired, at[fired], keep_half_ship=gv.half_ship_inherited)
            dice_left[rows] -= 1
        moving = live & (~act | (dice_left < 1) | (state.governor[games, at] < 0))


# ------------------------------------------------------------------------------------------------ presidents
def presidents(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """R-TRADE (L175-L182): each President in turn may trade once: spend £ for dice (minus one per region outside
    home), fill open
    orders linked to his port, one ship each; the Company gets the values, he 1 £ per order, placed clerks 1 £.
    firms trading from his port fill in initiative order with him (``firm_trade.trade_in_turn``); his check then
    counts its successes for his initiative; an order a firm filled first pays the Company its half value."""
    g, n = state.n_games, state.n_players
    d, tr = rules.d, rules.trade
    for p in range(L.PRESIDENCIES):
        t = L.T_PRESIDENCY[p]
        blocked = state.order_filled | (state.firm_filled if rules.firms.company_refill == "never" else False)
        reach = reachable(rules, state.order_open, blocked, presidency=p)
        ships = company_ships(state, p)
        president = state.office[:, L.PRESIDENT[p]]
        asked = ~state.done & (president >= 0) & reach.any(axis=1) & (ships >= 1) & (state.treasury[:, t] >= 1)
        firms_here = traders_at(state, p).any(axis=1)
        if not (asked.any() or firms_here.any()):
            continue
        spend = np.zeros(g, dtype=np.int64)
        orders = np.zeros((g, len(d.orders)), dtype=bool)
        clerk_pay = np.zeros((g, n), dtype=np.int64)
        legal = {
            "presidency": np.full(g, p),
            "orders": reach,
            "ships": ships,
            "treasury": state.treasury[:, t],
            "clerks": state.clerks[:, :, p],
        }

        def check(answer, lg, obs, p=p):
            sp, od, cp = answer
            count = sum_last(od)
            trading = count > 0
            k = sp - regions_outside_home(rules, od, p)
            bad = any_last(od & ~lg.orders) | (count > lg.ships) | (sp < 0) | (sp > lg.treasury)
            bad |= trading & (k < 1)
            bad |= ~trading & (sp != 0)
            bad |= any_last(cp < 0) | any_last(cp > lg.clerks)
            bad |= sum_last(cp) != np.minimum(count, sum_last(lg.clerks))
            return bad, "orders not reachable, more orders than ships, no dice left, or clerks misplaced"

        if asked.any():
            agents.ask("trade", state, np.where(asked, president, -1), legal, (spend, orders, clerk_pay), check)
        trading = asked & any_last(orders)
        spend = np.where(trading, spend, 0)
        ledger.treasury(state, "trade_spend", t, -spend)
        rows = np.flatnonzero(trading)
        k = spend[rows] - regions_outside_home(rules, orders[rows], p)
        won, fired, successes = president_check(rules, dice, rows, k, g, firms_here[rows])

        def fill(sel, firm_filled, orders=orders, clerk_pay=clerk_pay, president=president):
            filled = orders & sel[:, None]
            if rules.firms.company_refill == "never":  # a firm filled it first
                filled &= ~firm_filled
            count = sum_last(filled)
            revenue = sum_last(filled * firm_rules.company_order_values(rules, firm_filled))
            state.order_filled[...] |= filled
            ledger.company(state, "trade", revenue)
            laws.pay_president_bonus(state, rules, agents, president, tr.president_bonus * count, sel)
            laws.pay_clerks(state, rules, clerk_pay, sel)  # Writer Privileges / Writer Graft Reform
            state.tally[:, TALLY["trade_revenue"]] += revenue.astype(np.int32)
            state.tally[:, TALLY["orders_filled"]] += count.astype(np.int32)

        trade_in_turn(state, rules, agents, p, won, successes, orders, fill)
        vacate(state, fired, L.PRESIDENT[p])


# ------------------------------------------------------------------------------------------------------ China
def china_trade(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """R-CHINA (L184-L189): one check with a die per ship in the China committee; success pays per
    Company-controlled opium icon."""
    g = state.n_games
    ch = rules.china
    ships = company_ships(state, L.CHINA_LOC)
    manager = np.where(~state.done & state.china_open & (ships >= 1), state.office[:, L.CHINA], -1)
    if not (manager >= 0).any():
        return
    opium = ((state.owner >= 0) * rules.d.opium).sum(axis=1)
    go = np.zeros(g, dtype=bool)
    agents.ask("china_trade", state, manager, {"ships": ships, "opium": opium}, (go,))
    go &= manager >= 0
    rows = np.flatnonzero(go)
    if rows.size == 0:
        return
    won, fired = roll_check(rules, dice, rows, ships[rows], g)
    per_opium = ch.revenue_per_opium + laws.modifier(state, rules, "china_per_opium")  # Envoy to China
    revenue = np.where(won, per_opium * opium, 0)
    ledger.company(state, "china", revenue)
    notes.pay_bonus(state, rules, agents, "china_manager", manager, ch.manager_per_opium * opium, won)  # kind 5
    state.tally[:, TALLY["china_revenue"]] += revenue.astype(np.int32)
    vacate(state, fired, L.CHINA)
