"""The ``random`` strategy: every decision picks uniformly among legal options.

Where an answer is composite (a budget split, a set of orders, moves) it draws a random legal answer; its purpose is
to exercise every rule and every corner of the legal space in the invariant tests, not to play well.
"""

from __future__ import annotations

import numpy as np

from sim import layout as L
from sim.agents import Observation
from sim.board import regions_outside_home
from sim.dice import pick_with

from . import firms as firm_play
from .base import Strategy, place_clerks
from .registry import register


def coin(obs: Observation) -> np.ndarray:
    return obs.rng.uniform(1)[:, 0] < 0.5


def random_split(obs: Observation, total: np.ndarray, k: int, allowed: np.ndarray | None = None) -> np.ndarray:
    """A random composition of total[G'] into k non-negative parts (only into ``allowed`` bool[G', k] parts)."""
    allowed = np.ones((obs.n, k), dtype=bool) if allowed is None else allowed
    w = -np.log(np.maximum(obs.rng.uniform(k), 1e-12)) * allowed  # exponential weights: uniform on the simplex
    share = np.floor(total[:, None] * w / np.maximum(w.sum(axis=1, keepdims=True), 1e-300)).astype(np.int64)
    rest = total - share.sum(axis=1)
    share[np.arange(obs.n), np.maximum(obs.rng.choice(allowed), 0)] += rest
    return share


def random_moves(obs: Observation, stock: list[np.ndarray], locs: list[np.ndarray], m: int) -> tuple[np.ndarray, ...]:
    """Up to m random legal moves. ``stock[kind-1]`` is int[G', N, PLACES] of what can move per family and place
    (kinds without a family use family 0's row); ``locs[kind-1]`` int[G'] is how many places that kind may use.
    Later moves see the effect of earlier ones."""
    stock = [s.astype(np.int64).copy() for s in stock]
    kinds, families, srcs, dsts, counts = (np.zeros((obs.n, m), dtype=np.int64) for _ in range(5))
    rows = np.arange(obs.n)
    _, n, places = stock[0].shape
    for j in range(m):
        options = np.concatenate([(s > 0).reshape(obs.n, -1) for s in stock], axis=1)  # [G', kinds*N*PLACES]
        options &= (coin(obs) | (j == 0))[:, None]
        pick = obs.rng.choice(options)
        go = pick >= 0
        pick = np.maximum(pick, 0)
        kind, fam, src = pick // (n * places), (pick // places) % n, pick % places
        avail = np.zeros(obs.n, dtype=np.int64)
        n_locs = np.zeros(obs.n, dtype=np.int64)
        for k, (s_k, l_k) in enumerate(zip(stock, locs, strict=True)):
            sel = kind == k
            avail[sel] = s_k[rows[sel], fam[sel], src[sel]]
            n_locs[sel] = l_k[sel]
        go &= n_locs > 1
        shift = obs.rng.integers(np.ones(obs.n, dtype=np.int64), np.maximum(n_locs - 1, 1))
        dst = (src + shift) % np.maximum(n_locs, 1)
        count = obs.rng.integers(np.ones(obs.n, dtype=np.int64), np.maximum(avail, 1))
        kinds[:, j] = np.where(go, kind + 1, L.MOVE_NONE)
        families[:, j], srcs[:, j], dsts[:, j], counts[:, j] = fam, src, dst, count
        for k, s_k in enumerate(stock):
            sel = go & (kind == k)
            s_k[rows[sel], fam[sel], src[sel]] -= count[sel]
            s_k[rows[sel], fam[sel], dst[sel]] += count[sel]
    return kinds, families, srcs, dsts, counts


@register("random")
class RandomStrategy(Strategy):
    """Uniformly random legal choices at every decision (for testing the rules, not for playing)."""

    def bid(self, obs, legal):
        n_lots = len(obs.rules.d.lot_names)
        u = obs.rng.uniform(3 * n_lots)
        base = np.floor(u[:, :n_lots] * 11).astype(np.int64)
        step = np.floor(u[:, n_lots : 2 * n_lots] * 3).astype(np.int64)
        cap = base + np.floor(u[:, 2 * n_lots :] * 6).astype(np.int64)
        return base, step, cap

    def family_action(self, obs, legal):
        action = obs.rng.choice(legal.once)
        twice = legal.twice[np.arange(obs.n), action] & coin(obs)
        where = np.floor(obs.rng.uniform(2) * L.PRESIDENCIES).astype(np.int64)
        return action, twice, where

    def rank_share_buyers(self, obs, legal):
        return np.argsort(obs.rng.uniform(obs.players), axis=1)

    def extra_clerk(self, obs, legal):
        return obs.rng.integers(np.full(obs.n, -1), np.full(obs.n, L.PRESIDENCIES - 1))

    def vote_chairman(self, obs, legal):
        return obs.rng.choice(legal.candidates)

    def choose_chairman(self, obs, legal):
        return obs.rng.choice(legal.candidates)

    def appoint(self, obs, legal):
        s = legal.candidates.shape[2]
        flat = obs.rng.choice(legal.candidates.reshape(obs.n, -1))
        return flat // s, flat % s

    def consent(self, obs, legal):
        return coin(obs)

    def take_loans(self, obs, legal):
        return obs.rng.integers(np.zeros(obs.n, dtype=np.int64), legal.max_loans)

    def approve_loans(self, obs, legal):
        return coin(obs)

    def allocate_budget(self, obs, legal):
        return random_split(obs, legal.budget.astype(np.int64), L.N_TREASURIES, legal.open)

    def trade_check(self, obs, legal):
        return obs.rng.integers(np.zeros(obs.n, dtype=np.int64), legal.treasury.astype(np.int64))

    def open_order(self, obs, legal):
        return obs.rng.choice(legal.openable)

    def director_moves(self, obs, legal):
        g, n = legal.clerks.shape[:2]
        clerks = np.zeros((g, n, L.N_SHIP_LOCS), dtype=np.int64)
        clerks[:, :, : L.PRESIDENCIES] = legal.clerks
        leased = np.zeros((g, n, L.N_SHIP_LOCS), dtype=np.int64)
        leased[:, 0] = legal.ships[:, :, L.LEASED]
        company = np.zeros_like(leased)
        company[:, 0] = legal.ships[:, :, L.COMPANY_SHIP]
        ship_locs = np.where(legal.china_open, L.N_SHIP_LOCS, L.PRESIDENCIES)
        stock = [clerks, leased, company, legal.yard_ships.astype(np.int64)]
        locs = [np.full(g, L.PRESIDENCIES), ship_locs, ship_locs, ship_locs]
        return random_moves(obs, stock, locs, obs.rules.director.moves)

    def buy_ships(self, obs, legal):
        sh = obs.rules.shipping
        money = legal.money.astype(np.int64)
        free = legal.free_yards.astype(np.int64)
        total_free = free.sum(axis=1)
        yard_cost = legal.yard_cost.astype(np.int64)  # per game (Ship Subsidy)
        most = np.minimum(total_free, money // np.maximum(yard_cost, 1))
        n_yard = obs.rng.integers(np.zeros(obs.n, dtype=np.int64), most)
        rest = money - yard_cost * n_yard
        literal = sh.company_ships == "no_yard_ship"  # D-COMPANY-SHIPS: no ship may stand on a family yard
        company_ok = legal.yard_held + n_yard == 0 if literal else n_yard == total_free
        max_company = np.where(company_ok, rest // sh.company_cost, 0)
        n_company = obs.rng.integers(np.zeros(obs.n, dtype=np.int64), max_company)
        rest -= sh.company_cost * n_company
        # what is left must fall below must_buy_from (or below the cheapest ship): leased ships make it so
        yards_left = total_free - n_yard
        yard_ok = (yards_left > 0) & ((n_company == 0) | (not literal))
        cheapest = np.where(yard_ok, np.minimum(sh.leased_cost, yard_cost), sh.leased_cost)
        cheapest = np.where(company_ok, np.minimum(cheapest, sh.company_cost), cheapest)
        n_leased = np.where(
            (rest >= sh.must_buy_from) & (rest >= cheapest),
            -(-(rest - (sh.must_buy_from - 1)) // sh.leased_cost),
            0,
        )
        seas = np.floor(obs.rng.uniform(3) * L.PRESIDENCIES).astype(np.int64)
        rows = np.arange(obs.n)
        leased = np.zeros((obs.n, L.PRESIDENCIES), dtype=np.int64)
        company = np.zeros_like(leased)
        leased[rows, seas[:, 0]] = n_leased
        company[rows, seas[:, 1]] = n_company
        # yard ships at free yards, owners taken in a random order (a fixed number of draws per game)
        order = np.argsort(obs.rng.uniform(obs.players), axis=1)
        free_ordered = np.take_along_axis(free, order, axis=1)
        before = np.cumsum(free_ordered, axis=1) - free_ordered
        take = np.zeros_like(free)
        np.put_along_axis(take, order, np.clip(n_yard[:, None] - before, 0, free_ordered), axis=1)
        yard = np.zeros((obs.n, obs.players, L.PRESIDENCIES), dtype=np.int64)
        yard[rows, :, seas[:, 2]] = take
        return leased, company, yard

    def assign_academy(self, obs, legal):
        army = np.floor(obs.rng.uniform(obs.players) * L.PRESIDENCIES).astype(np.int64)
        out = np.zeros((obs.n, obs.players, L.PRESIDENCIES), dtype=np.int64)
        np.put_along_axis(out, army[:, :, None], legal.academy[:, :, None].astype(np.int64), axis=2)
        return out

    def military_moves(self, obs, legal):
        g, n = legal.officers.shape[:2]
        regiments = np.zeros((g, n, L.PRESIDENCIES), dtype=np.int64)
        regiments[:, 0] = legal.regiments
        stock = [legal.officers.astype(np.int64), regiments]
        return random_moves(obs, stock, [np.full(g, L.PRESIDENCIES)] * 2, obs.rules.military.moves)

    def pick_commander(self, obs, legal):
        return obs.rng.choice(legal.tied)

    def govern(self, obs, legal):
        return coin(obs)

    def govern_effect(self, obs, legal):
        return obs.rng.integers(np.zeros(obs.n, dtype=np.int64), np.full(obs.n, L.N_GOV_EFFECTS - 1))

    def deploy(self, obs, legal):
        d = obs.rules.d
        army = legal.army
        mercs = legal.mercenaries & (obs.rng.uniform(legal.mercenaries.shape[1]) < 0.3)
        cost = (mercs * d.merc_cost[army]).sum(axis=1)
        mercs &= (cost <= legal.treasury)[:, None]
        rows = np.arange(obs.n)
        leads = legal.officers[rows, obs.seat] >= 1
        force = legal.officers.sum(axis=1) + legal.regiments + (mercs * d.merc_strength[army]).sum(axis=1)
        ok = legal.targets & (force[:, None] - legal.strength >= 1) & leads[:, None]
        target = np.where(coin(obs), obs.rng.choice(ok), -1)
        go = target >= 0
        officers = np.where(go[:, None], legal.officers, 0).astype(np.int64)
        return target, officers, np.where(go, legal.regiments, 0), mercs & go[:, None]

    def fund_mercenaries(self, obs, legal):
        return coin(obs)

    def share_loot(self, obs, legal):
        return obs.rng.uniform(obs.players) < 0.5

    def trade(self, obs, legal):
        u = obs.rng.uniform(legal.orders.shape[1])
        orders = legal.orders & (u < 0.5)
        rank = np.argsort(np.argsort(np.where(orders, u, 2.0), axis=1), axis=1)
        orders &= rank < legal.ships[:, None]
        regions = regions_outside_home(obs.rules, orders, legal.presidency)
        trading = orders.any(axis=1) & (legal.treasury - regions >= 1)
        orders &= trading[:, None]
        spend = np.where(trading, obs.rng.integers(regions + 1, np.maximum(legal.treasury, regions + 1)), 0)
        return spend, orders, place_clerks(obs, legal.clerks, orders.sum(axis=1))

    def china_trade(self, obs, legal):
        return coin(obs)

    def royal_protection(self, obs, legal):
        return coin(obs)

    def pay_dividends(self, obs, legal):
        return obs.rng.integers(np.zeros(obs.n, dtype=np.int64), legal.max_payouts)

    def defend(self, obs, legal):
        """A random defence worth at least the attack: a random total, the families and the regiments filled in a
        random order (a fixed number of draws per game)."""
        n = obs.players
        free = np.concatenate([legal.regiments[:, None], legal.officers], axis=1).astype(np.int64)  # [G', 1+N]
        total = obs.rng.integers(legal.attack.astype(np.int64), free.sum(axis=1))
        order = np.argsort(obs.rng.uniform(n + 1), axis=1)
        ordered = np.take_along_axis(free, order, axis=1)
        before = np.cumsum(ordered, axis=1) - ordered
        take = np.zeros_like(free)
        np.put_along_axis(take, order, np.clip(total[:, None] - before, 0, ordered), axis=1)
        return take[:, 1:], take[:, 0]

    def retire(self, obs, legal):
        options = np.concatenate([np.ones((obs.n, 1), dtype=bool), legal.affordable], axis=1)
        return obs.rng.choice(options) - 1

    # ------------------------------------------------ politics: phases 9 and 11, notes, the Governor-General
    def table_law(self, obs, legal):
        options = np.concatenate([legal.can_draw[:, None], legal.candidates], axis=1)
        pick = obs.rng.choice(options) - 1
        return pick, coin(obs).astype(np.int64)

    def impeach(self, obs, legal):
        return obs.rng.choice(legal.held)

    def vote(self, obs, legal):
        side = obs.rng.integers(np.full(obs.n, -1), np.ones(obs.n, dtype=np.int64))
        side = np.where(legal.must_for, 1, side)
        money = obs.money[np.arange(obs.n), obs.seat].astype(np.int64)
        most = np.minimum(money // np.maximum(legal.vote_cost, 1), 6)
        bought = np.where(side != 0, obs.rng.integers(np.zeros(obs.n, dtype=np.int64), most), 0)
        use = legal.notes & (obs.rng.uniform(obs.players) < 0.5) & (side != 0)[:, None]
        return side, bought, use

    def choose_prime_minister(self, obs, legal):
        return obs.rng.choice(legal.tied)

    def choose_policy(self, obs, legal):
        return coin(obs).astype(np.int64)

    def war_losses(self, obs, legal):
        return obs.rng.choice(legal.ships), obs.rng.choice(legal.troops)

    def table_deregulation(self, obs, legal):
        return coin(obs)

    def offer_notes(self, obs, legal):
        shape = legal.held.shape
        k = shape[1] * shape[2]
        u = obs.rng.uniform(3 * k)
        offer = legal.held & (u[:, :k] < 0.3).reshape(shape)
        shift = 1 + np.floor(u[:, k : 2 * k] * (obs.players - 1)).astype(np.int64).reshape(shape)
        buyer = np.where(offer, (obs.seat[:, None, None] + shift) % obs.players, -1)
        price = np.floor(u[:, 2 * k :] * 4).astype(np.int64).reshape(shape)
        return buyer, price

    def accept_notes(self, obs, legal):
        n_flat = legal.offered[0].size
        want = legal.offered & (obs.rng.uniform(n_flat) < 0.5).reshape(legal.offered.shape)
        cost = np.where(want, legal.price, 0).reshape(obs.n, -1)
        affordable = np.cumsum(cost, axis=1) <= legal.money[:, None]
        return want & affordable.reshape(want.shape)

    def offer_exchange(self, obs, legal):
        """One time in ten, one unit of a good it has to a random other family, asking 1 £ back half the time."""
        n, k = obs.players, legal.goods.shape[1]
        u = obs.rng.uniform(4)
        to = (obs.seat + 1 + np.floor(u[:, 1] * (n - 1)).astype(np.int64)) % n
        good = pick_with(u[:, 2], legal.goods > 0)
        go = (u[:, 0] < 0.1) & (good >= 0)
        rows = np.flatnonzero(go)
        give = np.zeros((obs.n, n, k), dtype=np.int64)
        ask = np.zeros_like(give)
        give[rows, to[rows], good[rows]] = 1
        ask[rows, to[rows], 0] = u[rows, 3] < 0.5
        return give, ask

    def accept_exchange(self, obs, legal):
        want = legal.offered & (obs.rng.uniform(obs.players) < 0.5)
        owed = np.cumsum(np.where(want[:, :, None], legal.asked, 0), axis=1)  # accepted in seat order
        return want & (owed <= legal.goods[:, None, :]).all(axis=2)

    def use_money_notes(self, obs, legal):
        u = obs.rng.uniform(obs.players)
        return np.where(legal.notes, np.floor(u * (legal.cap + 1)).astype(np.int64), 0)

    def use_bonus_note(self, obs, legal):
        return coin(obs)

    def use_position_note(self, obs, legal):
        return coin(obs)

    def remove_officeholder(self, obs, legal):
        options = np.concatenate([np.ones((obs.n, 1), dtype=bool), legal.removable], axis=1)
        return obs.rng.choice(options) - 1

    def oversee_army(self, obs, legal):
        options = np.concatenate([np.ones((obs.n, 1), dtype=bool), legal.armies], axis=1)
        return obs.rng.choice(options) - 1

    def general_govern(self, obs, legal):
        return coin(obs)

    def general_effects(self, obs, legal):
        u = obs.rng.uniform(legal.regions.shape[1])
        return np.floor(u * L.N_GOV_EFFECTS).astype(np.int64)

    # positions and upkeep
    def rank_position_takers(self, obs, legal):
        return np.argsort(obs.rng.uniform(obs.players), axis=1)

    def take_position(self, obs, legal):
        options = np.concatenate([np.ones((obs.n, 1), dtype=bool), legal.cards >= 0], axis=1)
        return obs.rng.choice(options) - 1

    def play_position(self, obs, legal):
        play = legal.playable & (obs.rng.uniform(legal.playable.shape[1]) < 0.5)
        if (legal.moment == L.CARD_MOMENTS.index("appointments")).any():  # at most one card there
            first = play.argmax(axis=1)
            one = np.zeros(play.shape, dtype=bool)
            one[np.arange(obs.n), first] = play.any(axis=1)
            return one
        return play

    def keep_retirees(self, obs, legal):
        """Uniform counts per tier, cut back, dearest tier first, to what the money pays for, then topped up, cheapest
        tier first, with the retirees the money still pays for (L243: only those it cannot pay for may go)."""
        upkeep = obs.rules.d.tier_upkeep.astype(np.int64)
        retired = legal.retired.astype(np.int64)
        kept = np.floor(obs.rng.uniform(retired.shape[1]) * (retired + 1)).astype(np.int64)
        over = (kept * upkeep).sum(axis=1) - legal.money
        for t in np.argsort(-upkeep, kind="stable"):
            if upkeep[t] == 0:
                continue
            drop = np.minimum(kept[:, t], -(-np.maximum(over, 0) // upkeep[t]))
            kept[:, t] -= drop
            over -= drop * upkeep[t]
        for t in np.argsort(upkeep, kind="stable"):
            if upkeep[t] > 0:
                more = np.minimum(retired[:, t] - kept[:, t], np.maximum(-over, 0) // upkeep[t])
                kept[:, t] += more
                over += more * upkeep[t]
        return kept

    # private firms (strategies/firms.py)
    def open_firm(self, obs, legal):
        return firm_play.random_open_firm(obs, legal)

    def invest_in_firms(self, obs, legal):
        return firm_play.random_invest_in_firms(obs, legal)

    def consent_investment(self, obs, legal):
        return firm_play.random_consent_investment(obs, legal)

    def take_over_firm(self, obs, legal):
        return firm_play.random_take_over_firm(obs, legal)

    def approve_manager(self, obs, legal):
        return firm_play.random_approve_manager(obs, legal)

    def propose_merger(self, obs, legal):
        return firm_play.random_propose_merger(obs, legal)

    def consent_merger(self, obs, legal):
        return firm_play.random_consent_merger(obs, legal)

    def firm_ships(self, obs, legal):
        return firm_play.random_firm_ships(obs, legal)

    def consent_yard(self, obs, legal):
        return firm_play.random_consent_yard(obs, legal)

    def firm_strategy(self, obs, legal):
        return firm_play.random_firm_strategy(obs, legal)

    def order_traders(self, obs, legal):
        return firm_play.random_order_traders(obs, legal)

    def firm_trade(self, obs, legal):
        return firm_play.random_firm_trade(obs, legal)

    def emergency_invest(self, obs, legal):
        return firm_play.random_emergency_invest(obs, legal)

    def waive_dividends(self, obs, legal):
        return firm_play.random_waive_dividends(obs, legal)

    def consent_waivers(self, obs, legal):
        return firm_play.random_consent_waivers(obs, legal)

    def firm_dividends(self, obs, legal):
        return firm_play.random_firm_dividends(obs, legal)

    def rescue_firm(self, obs, legal):
        return firm_play.random_rescue_firm(obs, legal)

    def dissolve_firm(self, obs, legal):
        return firm_play.random_dissolve_firm(obs, legal)

    def consent_dissolution(self, obs, legal):
        return firm_play.random_consent_dissolution(obs, legal)
