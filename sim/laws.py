"""Laws and policies of phase 9 (R-PARLIAMENT, D-POLICY, D-LAWS; seed 000 L222-L241; MAP.md's John Company 2e laws).

Everything here is table-driven from the rules data (``rules.parliament``, ``rules.d.law_*``, ``rules.d.policy_*``):

- the **policy track** (a cycle of policies, each a kind — power, tax or bonus — on one asset) and what applying
  a policy does (``apply_policy``): power moves the asset up the influence ladder, a tax takes 1 £ per asset (and
  per conspicuous wealth where named) out of the game, a bonus pays 1 £ per asset into it (D-POLICY);
- **effects** (``EFFECTS``): what a law does once, when it passes (``on_pass``) or fails (``on_fail``);
- **modifiers** (``MODIFIERS``): what a law changes elsewhere while it is in force. The phase where a modifier
  applies asks ``modifier(state, rules, name)`` (int[G], summed over the laws in force) or ``flag(...)`` at the
  one place the rule is computed; the small helpers at the end of this module are those places;
- the **law deck**, a per-game shuffled stack drawn through the engine's dice; its order (``state.law_rank``) is
  hidden, where each law is (``state.law_pile``: deck, discard, in force, drawn) is public.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from . import kernels, ledger
from . import layout as L
from .board import board_votes, vacate
from .india import clamp_to_holdings, close_northernmost
from .reduce import any_last, sum_last
from .rules.vocabulary import EFFECTS, MODIFIERS
from .state import TALLY, State

if TYPE_CHECKING:
    from .agents import Agents
    from .dice import Chance
    from .rules import Rules
    from .rules.schema import LawEffect

# Policy kinds (rules.parliament.policies[i].kind, ``POLICY_KINDS``) and assets (rules.ASSETS order).
POWER, TAX, BONUS = range(3)
LUXURIES, SHARES, SHIPYARDS, FACTORIES = range(4)

# Where a law is (state.law_pile).
DECK, DISCARD, IN_FORCE, DRAWN = range(4)
PILES = ("deck", "discard", "in_force", "drawn")

# Phase 11 outcomes and who tabled Deregulation (tallies "deregulation" and "deregulation_by").
DEREGULATION = ("none", "passed", "rejected")
DEREGULATION_BY = ("none", "pm", "public", "forced_round")

MOD = {name: i for i, name in enumerate(MODIFIERS)}


_BIG = np.int64(1) << 62
COMMANDER_OFFICE0 = 100  # ``office`` passed to the appoint decision for the commander of army a (Military Oversight)


# ----------------------------------------------------------------------------------------------- laws in force
def in_force(state: State) -> np.ndarray:
    """bool[G, LAWS]: laws that passed and are in force."""
    return state.law_pile == IN_FORCE


def modifier(state: State, rules: Rules, name: str, rows: np.ndarray | None = None) -> np.ndarray:
    """int[G] (int[m] for games ``rows``): the modifier ``name`` summed over the laws in force in each game."""
    col = rules.d.law_mod[:, MOD[name]]
    pile = state.law_pile if rows is None else state.law_pile[rows]
    out = np.zeros(pile.shape[0], dtype=np.int64)
    for law in np.flatnonzero(col):  # few laws carry a given modifier
        out += np.where(pile[:, law] == IN_FORCE, col[law], 0)
    return out


def flag(state: State, rules: Rules, name: str) -> np.ndarray:
    """bool[G]: some law in force carries modifier ``name``."""
    return modifier(state, rules, name) > 0


# ------------------------------------------------------------------------------------------------- the deck
def reshuffle(state: State, dice: Chance, rows: np.ndarray, add: np.ndarray) -> None:
    """Put the laws ``add`` (bool[G, LAWS]) of games ``rows`` (bool[G]) into the deck and shuffle the whole deck:
    every deck law gets a fresh random rank (one uniform per law and game, whatever the batch)."""
    idx = np.flatnonzero(rows)
    if idx.size == 0:
        return
    pile = state.law_pile[idx]
    pile = np.where(add[idx], DECK, pile).astype(np.int8)
    state.law_pile[idx] = pile
    u = dice.uniform(idx, pile.shape[1])
    state.law_rank[idx] = np.where(pile == DECK, u, -1.0)


def draw(state: State, dice: Chance, rows: np.ndarray) -> np.ndarray:
    """Draw the top law of the deck in games ``rows`` (bool[G]); an empty deck first takes the discard pile back,
    shuffled; the first draw of a game shuffles the deck. Returns int[G] the law drawn (-1 none), now DRAWN."""
    top = np.full(state.n_games, -1, dtype=np.int64)
    idx = np.flatnonzero(rows)  # the games drawing: the rest is left as it is
    if idx.size == 0:
        return top
    if kernels.use(idx.size):
        shuffle = np.empty(idx.size, dtype=bool)
        _draw_unless_shuffled(state.law_pile, state.law_rank, idx, top, shuffle)
        if shuffle.any():  # the games shuffling first draw after their shuffle (each game's own dice)
            _shuffle_before_draw(state, dice, idx[shuffle])
            _draw_top(state.law_pile, state.law_rank, idx[shuffle], top)
        return top
    pile = state.law_pile[idx]
    deck = pile == DECK
    fresh = any_last(deck & (state.law_rank[idx] < 0))
    empty = ~any_last(deck) & any_last(pile == DISCARD)
    if (fresh | empty).any():
        _shuffle_before_draw(state, dice, idx[fresh | empty])
        pile = state.law_pile[idx]
        deck = pile == DECK
    has = any_last(deck)
    first = np.where(deck, state.law_rank[idx], np.inf).argmin(axis=1)
    hit = idx[has]
    top[hit] = first[has]
    state.law_pile[hit, top[hit]] = DRAWN
    return top


def _shuffle_before_draw(state: State, dice: Chance, idx: np.ndarray) -> None:
    """Games ``idx`` shuffle their deck before drawing: the first draw of a game (a deck never ranked), or an empty
    deck, which first takes the discard pile back."""
    pile = state.law_pile[idx]
    empty = ~any_last(pile == DECK)
    shuffled = np.zeros(state.n_games, dtype=bool)
    shuffled[idx] = True
    add = np.zeros(state.law_pile.shape, dtype=bool)
    add[idx[empty]] = pile[empty] == DISCARD
    reshuffle(state, dice, shuffled, add)


@kernels.kernel
def _draw_unless_shuffled(pile, rank, idx, top, shuffle):
    """``draw`` game by game of ``idx``: ``shuffle[i]`` whether game ``idx[i]`` shuffles before drawing (a deck law
    never ranked, or no deck law and a discard pile); the others draw at once, as ``_draw_top``."""
    for i in range(idx.size):
        g = idx[i]
        deck, fresh, discard = False, False, False
        best, low = -1, np.inf
        for j in range(pile.shape[1]):
            if pile[g, j] == DECK:
                deck = True
                if rank[g, j] < 0:
                    fresh = True
                if rank[g, j] < low:
                    best, low = j, rank[g, j]
            elif pile[g, j] == DISCARD:
                discard = True
        shuffle[i] = fresh or (discard and not deck)
        if not shuffle[i] and best >= 0:
            top[g] = best
            pile[g, best] = DRAWN


@kernels.kernel
def _draw_top(pile, rank, idx, top):
    """``draw``'s draw, game by game of ``idx``: the deck law of lowest rank (the first of equal ranks) is DRAWN
    and its index written to ``top[idx[i]]`` (left as it is without a deck law)."""
    for i in range(idx.size):
        g = idx[i]
        best, low = -1, np.inf
        for j in range(pile.shape[1]):
            if pile[g, j] == DECK and rank[g, j] < low:
                best, low = j, rank[g, j]
        if best >= 0:
            top[g] = best
            pile[g, best] = DRAWN


# --------------------------------------------------------------------------------------------- the policy track
def policy_options(rules: Rules, position: np.ndarray, law: np.ndarray) -> np.ndarray:
    """int[G, 2]: the nearest policy of ``law``'s type stepping down (column 0) and up (column 1) the cycle from
    ``position``, not counting the position itself until a full turn (L224: "luxury from 0: 12 or 3"); -1 where
    the law names no policy (or ``law`` is -1). Read from the table ``rules.d.law_options``."""
    law = np.asarray(law)
    out = rules.d.law_options[np.asarray(position, dtype=np.int64), np.maximum(law, 0)]
    return np.where((law >= 0)[:, None], out, -1)


def all_policy_options(rules: Rules, position: np.ndarray) -> np.ndarray:
    """int[G, LAWS, 2]: ``policy_options`` for every law of the deck."""
    return rules.d.law_options[np.asarray(position, dtype=np.int64)]


def neighbours(rules: Rules, policy: np.ndarray) -> np.ndarray:
    """int[G, 2]: the policies just below and just above ``policy`` on the cycle (L241: 12 -> 11 or 13, 13 -> 12
    or 0)."""
    n_pol = len(rules.parliament.policies)
    p = np.asarray(policy, dtype=np.int64)
    return np.stack([(p - 1) % n_pol, (p + 1) % n_pol], axis=1)


def asset_counts(state: State) -> np.ndarray:
    """int[G, N, 4] each family's assets in rules.ASSETS order; Company shares count the chair (L130)."""
    return np.stack([state.luxuries, board_votes(state), state.shipyards, state.factories], axis=2)


def powered(ladder: np.ndarray, asset: np.ndarray) -> np.ndarray:
    """int[G, 4]: the ladder after power on ``asset[G]`` (L225): the asset swaps its influence with the asset on
    the next higher rung (the first such asset in rules.ASSETS order); the top asset stays."""
    lad = ladder.astype(np.int64)
    a = np.asarray(asset, dtype=np.int64)
    cols = [lad[:, k] for k in range(lad.shape[1])]  # explicit ops over the 4 assets, no trailing-axis reductions
    v = np.choose(a, cols)
    nxt = np.full(lad.shape[0], _BIG, dtype=np.int64)  # the next higher rung
    for c in cols:
        nxt = np.where(c > v, np.minimum(nxt, c), nxt)
    go = np.flatnonzero(nxt < _BIG)
    target = (lad == nxt[:, None]).argmax(axis=1)  # the first asset on that rung
    out = lad.copy()
    flat, k = out.reshape(-1), lad.shape[1]  # a view: flat indices are fast, [rows, cols] pairs are not
    flat[go * k + a[go]] = nxt[go]
    flat[go * k + target[go]] = v[go]
    return out


def power(state: State, rows: np.ndarray, asset: np.ndarray) -> None:
    """Power policy in games ``rows``: ``powered`` on the game's ladder."""
    idx = np.flatnonzero(rows)
    if idx.size:
        state.ladder[idx] = powered(state.ladder[idx], np.asarray(asset)[idx]).astype(np.int8)


def apply_policy(state: State, rules: Rules, policy: np.ndarray, rows: np.ndarray) -> None:
    """Apply ``policy[G]`` (-1: none) in games ``rows`` (D-POLICY): power, tax or bonus on its asset."""
    d = rules.d
    go = rows & (policy >= 0) & ~state.done
    if not go.any():
        return
    p = np.maximum(policy, 0)
    kind, asset = d.policy_kind[p], d.policy_asset[p]
    power(state, go & (kind == POWER), asset)
    paying = np.flatnonzero(go & ((kind == TAX) | (kind == BONUS)))  # the games counting the families' assets
    if paying.size == 0:
        return
    counts = asset_counts_at(state, paying, asset[paying])  # [m, N]
    taxed = kind[paying] == TAX
    if taxed.any():
        at = paying[taxed]
        wealth = d.policy_wealth[p[at]] & ~(modifier(state, rules, "no_wealth_tax", at) > 0)
        tax(state, rules, at, asset[at], wealth, counts[taxed])
    paid = kind[paying] == BONUS
    if paid.any():
        at = paying[paid]
        bonus = rules.parliament.bonus * counts[paid]
        amounts = np.zeros(state.money.shape, dtype=bonus.dtype)
        amounts[at] = bonus
        ledger.families(state, "policy_bonus", amounts)
        state.tally[at, TALLY["bonuses_paid"]] += bonus.sum(axis=1).astype(np.int32)


def asset_counts_at(state: State, rows: np.ndarray, asset: np.ndarray) -> np.ndarray:
    """int[m, N]: ``asset_counts`` of asset ``asset[m]`` (an index of rules.ASSETS) in games ``rows``, each read
    from its asset's field alone."""
    fields = (state.luxuries, state.shares, state.shipyards, state.factories)
    out = np.empty((rows.size, state.n_players), dtype=np.result_type(*fields))
    for k, field in enumerate(fields):
        at = np.flatnonzero(asset == k)
        out[at] = field[rows[at]]
        if k == SHARES:  # the chair counts as a share (L130)
            out[at] += state.office[rows[at], L.CHAIRMAN][:, None] == np.arange(state.n_players)[None, :]
    return out


def tax(
    state: State, rules: Rules, rows: np.ndarray, asset: np.ndarray, wealth: np.ndarray, counts: np.ndarray
) -> None:
    """D-POLICY tax in games ``rows`` (int[m]) of asset ``asset[m]``, which the families hold ``counts[m, N]`` of:
    ``parliament.tax`` £ per asset (and per conspicuous wealth where ``wealth[m]``). A family pays what it can; with
    ``unpaid_tax = "lose_assets"`` it then loses one taxed asset per unpaid tax on one (a luxury also carries its own
    wealth's tax), while it has any; the rest is forgiven."""
    pa = rules.parliament
    due = pa.tax * (counts + np.where(wealth[:, None], state.wealth[rows], 0))
    paid = np.minimum(due, state.money[rows])
    amounts = np.zeros(state.money.shape, dtype=paid.dtype)
    amounts[rows] = -paid
    ledger.families(state, "policy_tax", amounts)
    state.tally[rows, TALLY["taxes_paid"]] += paid.sum(axis=1).astype(np.int32)
    if pa.unpaid_tax != "lose_assets" or pa.tax == 0:
        return
    unpaid = due - paid
    per = pa.tax * (1 + np.where(wealth & (asset == LUXURIES), rules.actions.luxury_wealth, 0))[:, None]
    losable = np.where((asset == SHARES)[:, None], state.shares[rows], counts)  # the chair is an office, never lost
    lost = np.minimum(-(-unpaid // per), losable)
    losing = any_last(lost != 0)
    if losing.any():
        lose_assets(state, rules, asset[losing], lost[losing], rows[losing])
        state.tally[rows, TALLY["assets_taxed_away"]] += lost.sum(axis=1).astype(np.int32)


def lose_assets(
    state: State, rules: Rules, asset: np.ndarray, lost: np.ndarray, rows: np.ndarray | None = None
) -> None:
    """Families lose ``lost[G, N]`` assets of kind ``asset[G]`` (with ``rows``: ``lost[m, N]`` and ``asset[m]`` in
    games ``rows``, distinct): a luxury takes its wealth along, a share's relative goes home, a shipyard sinks the
    ship it holds only when no other yard of the family is free for it."""
    at = slice(None) if rows is None else rows
    a = asset[:, None]
    lux = np.where(a == LUXURIES, lost, 0)
    state.luxuries[at] -= lux.astype(np.int32)
    state.wealth[at] -= (lux * rules.actions.luxury_wealth).astype(np.int32)
    shares = np.where(a == SHARES, lost, 0).astype(np.int32)
    state.shares[at] -= shares
    state.supply[at] += shares
    state.factories[at] -= np.where(a == FACTORIES, lost, 0).astype(np.int32)
    yards = np.where(a == SHIPYARDS, lost, 0).astype(np.int32)
    if yards.any():
        state.shipyards[at] -= yards
        excess = np.maximum(sum_last(state.yard_ships) - state.shipyards, 0)  # firm ships: below
        over = np.flatnonzero(any_last(excess != 0))  # elsewhere no ship sinks
        excess = excess[over]
        for loc in range(L.N_SHIP_LOCS):
            take = np.minimum(excess, state.yard_ships[over, :, loc])
            state.yard_ships[over, :, loc] -= take
            excess -= take
        clamp_to_holdings(state)
        from .firms import drop_excess_ships  # late import: firms import this module

        drop_excess_ships(state)  # then firm ships over the yards left


# ------------------------------------------------------------------------------------------ effects of a law
def apply_effects(
    state: State,
    rules: Rules,
    dice: Chance,
    agents: Agents,
    law: np.ndarray,
    rows: np.ndarray,
    when: str,
    ctx: SimpleNamespace,
) -> None:
    """Apply the ``when`` ("on_pass" / "on_fail") effects of law ``law[G]`` in games ``rows``. ``ctx`` carries
    pm[G], policy[G] (the policy applied) and impeach[G] (the office named before the vote)."""
    for i, spec in enumerate(rules.parliament.laws):
        effects = getattr(spec, when)
        if not effects:
            continue
        mask = rows & (law == i) & ~state.done
        if not mask.any():
            continue
        for eff in effects:
            EFFECT_FUNCS[eff.effect](state, rules, dice, agents, mask & ~state.done, eff, ctx)


def _money_per_asset(state, rules, dice, agents, rows, eff: LawEffect, ctx) -> None:
    k = ASSET_INDEX[eff.asset]
    counts = board_votes(state) if k == SHARES else (state.luxuries, None, state.shipyards, state.factories)[k]
    ledger.families(state, "law_payments", np.where(rows[:, None], eff.amount * counts, 0))


def _regiments(state, rules, dice, agents, rows, eff, ctx) -> None:
    state.regiments[rows] = np.maximum(state.regiments[rows] + eff.amount, 0)


def _open_china(state, rules, dice, agents, rows, eff, ctx) -> None:
    state.china_open[rows] = True


def _clear_debt(state, rules, dice, agents, rows, eff, ctx) -> None:
    state.loans[rows] = 0


def _share_vp(state, rules, dice, agents, rows, eff, ctx) -> None:
    co = rules.company
    vp = state.share_vp[rows].astype(np.int64) + eff.amount  # int8 state: add in int64, then bound
    state.share_vp[rows] = np.clip(vp, co.share_vp_min, co.share_vp_max)


def _royal_protection(state, rules, dice, agents, rows, eff, ctx) -> None:
    uses = state.royal_protection[rows].astype(np.int64) + eff.amount  # int8 state
    state.royal_protection[rows] = np.clip(uses, 0, 100)


def _stability(state, rules, dice, agents, rows, eff, ctx) -> None:
    change_stability(state, rules, rows, eff.amount)


def change_stability(state: State, rules: Rules, rows: np.ndarray, amount: int | np.ndarray) -> None:
    """Stability += amount in games ``rows`` (0..max); reaching 0 is the crash and ends the game (R-ACCOUNTS)."""
    before = state.stability.astype(np.int64)
    after = np.clip(before + amount, 0, rules.company.max_stability)
    after = np.where(rows, after, before)
    state.stability[:] = after.astype(np.int8)
    state.tally[:, TALLY["stability_change"]] += (after - before).astype(np.int32)
    state.tally[:, TALLY["stability_loss_laws"]] += np.minimum(after - before, 0).astype(np.int32)
    state.tally[:, TALLY["stability_gain_laws"]] += np.maximum(after - before, 0).astype(np.int32)
    crash = rows & (after == 0) & ~state.done
    state.crashed[crash] = True
    state.done[crash] = True
    state.end_round[crash] = state.round[crash]


def _unrest(state, rules, dice, agents, rows, eff, ctx) -> None:
    state.unrest[...] += np.where(rows[:, None] & (state.owner >= 0), eff.amount, 0).astype(np.int32)


def _turmoil_home(state, rules, dice, agents, rows, eff, ctx) -> None:
    """Turmoil in each presidency's home region (R-TURMOIL, phase 8's): its northernmost open order closes; a home
    region with every order closed already cascades (india.cascade), as 2e's Turmoil does."""
    d = rules.d
    idx = np.flatnonzero(rows)
    for p in range(L.PRESIDENCIES):
        close_northernmost(state, rules, idx, np.full(idx.size, d.home[p]))


def _impeach(state, rules, dice, agents, rows, eff, ctx) -> None:
    for office in range(L.N_OFFICES):
        vacate(state, np.flatnonzero(rows & (ctx.impeach == office)), office)


def _repeat_policy(state, rules, dice, agents, rows, eff, ctx) -> None:
    apply_policy(state, rules, ctx.policy, rows)


def _war_losses(state, rules, dice, agents, rows, eff, ctx) -> None:
    """The PM removes ``amount`` ships (Company or family-yard ships, not leased ones: 2e's "non-extra ships")
    and ``amount`` officers or regiments, one at a time (decision ``war_losses``)."""
    from .phases.military import settle_commanders  # late import: military imports this module

    g, n = state.n_games, state.n_players
    rowsi = np.arange(g)
    touched = np.zeros(g, dtype=bool)
    idx = np.flatnonzero(rows)  # the games at war: the question is worked out there only
    for _ in range(eff.amount):
        yards = (state.yard_ships[idx] > 0).reshape(idx.size, n * L.N_SHIP_LOCS)
        ship_at = np.concatenate([state.ships[idx, :, L.COMPANY_SHIP] > 0, yards], axis=1)
        officers = (state.officers[idx] > 0).reshape(idx.size, n * L.PRESIDENCIES)
        troop_at = np.concatenate([state.regiments[idx] > 0, officers], axis=1)
        asked = np.zeros(g, dtype=bool)
        asked[idx] = (any_last(ship_at) | any_last(troop_at)) & ~state.done[idx]
        if not asked.any():
            break
        ships = np.zeros((g, ship_at.shape[1]), dtype=bool)
        ships[idx] = ship_at
        troops = np.zeros((g, troop_at.shape[1]), dtype=bool)
        troops[idx] = troop_at
        ship = np.full(g, -1, dtype=np.int64)
        troop = np.full(g, -1, dtype=np.int64)

        def check(answer, legal, obs):
            s, t = answer
            r = np.arange(obs.n)
            bad = (s < -1) | (s >= legal.ships.shape[1]) | (t < -1) | (t >= legal.troops.shape[1])
            bad |= (s >= 0) & ~legal.ships[r, np.clip(s, 0, legal.ships.shape[1] - 1)]
            bad |= (t >= 0) & ~legal.troops[r, np.clip(t, 0, legal.troops.shape[1] - 1)]
            bad |= ((s < 0) & legal.ships.any(axis=1)) | ((t < 0) & legal.troops.any(axis=1))
            return bad, "must pick one available ship and one available officer or regiment"

        pm = np.where(asked, state.prime_minister, -1)
        agents.ask("war_losses", state, pm, {"ships": ships, "troops": troops}, (ship, troop), check)
        s = np.where(asked, ship, -1)
        company = s >= 0
        company &= s < L.N_SHIP_LOCS
        state.ships[rowsi[company], s[company], L.COMPANY_SHIP] -= 1
        yard = s >= L.N_SHIP_LOCS
        ys = s[yard] - L.N_SHIP_LOCS
        state.yard_ships[rowsi[yard], ys // L.N_SHIP_LOCS, ys % L.N_SHIP_LOCS] -= 1
        t = np.where(asked, troop, -1)
        reg = (t >= 0) & (t < L.PRESIDENCIES)
        state.regiments[rowsi[reg], t[reg]] -= 1
        off = t >= L.PRESIDENCIES
        ot = t[off] - L.PRESIDENCIES
        fam, army = ot // L.PRESIDENCIES, ot % L.PRESIDENCIES
        state.officers[rowsi[off], fam, army] -= 1
        state.supply[rowsi[off], fam] += 1
        touched |= off
    clamp_to_holdings(state)
    if touched.any():
        settle_commanders(state, rules, dice, agents, np.flatnonzero(touched))


def _foreign_invasion(state, rules, dice, agents, rows, eff, ctx) -> None:
    """Phase 8's Foreign Invasion, landing at the home regions the storm die names (R-INVASION)."""
    from .phases.india import french_landing  # late import: phase 8 imports this module

    french_landing(state, rules, dice, agents, np.flatnonzero(rows))


EFFECT_FUNCS = {
    "money_per_asset": _money_per_asset,
    "regiments": _regiments,
    "open_china": _open_china,
    "clear_debt": _clear_debt,
    "share_vp": _share_vp,
    "royal_protection": _royal_protection,
    "stability": _stability,
    "unrest": _unrest,
    "turmoil_home": _turmoil_home,
    "impeach": _impeach,
    "repeat_policy": _repeat_policy,
    "war_losses": _war_losses,
    "foreign_invasion": _foreign_invasion,
}
assert tuple(EFFECT_FUNCS) == EFFECTS
ASSET_INDEX = {"luxuries": LUXURIES, "shares": SHARES, "shipyards": SHIPYARDS, "factories": FACTORIES}


def enact(state: State, rules: Rules, law: np.ndarray, rows: np.ndarray) -> None:
    """Where law ``law[G]`` passed (``rows``): a lasting law goes into force (and discards the laws it names),
    any other goes to the discard pile."""
    d = rules.d
    idx = np.flatnonzero(rows & (law >= 0))
    if idx.size == 0:
        return
    lw = law[idx]
    state.law_pile[idx, lw] = np.where(d.law_lasting[lw], IN_FORCE, DISCARD)
    gone = d.law_discards[lw] & (state.law_pile[idx] == IN_FORCE)
    state.law_pile[idx] = np.where(gone, DISCARD, state.law_pile[idx])


def discard_on_deregulation(state: State, rules: Rules, rows: np.ndarray) -> None:
    """Laws that end when Deregulation passes (2e Industry Subsidy) leave force for the discard pile."""
    gone = rows[:, None] & rules.d.law_dereg_discard[None, :] & (state.law_pile == IN_FORCE)
    state.law_pile[gone] = DISCARD


# ------------------------------------------------------------------ modifiers applied in other phases
def factory_discount(state: State, rules: Rules, seat: int | None = None) -> np.ndarray:
    """int[G] £ added to a factory bought once by ``seat`` (int[G, N]: by each seat, when ``seat`` is None) in
    phase 2 when it did not buy one last round (Industry Subsidy; never below a cost of 0)."""
    mod = np.maximum(modifier(state, rules, "factory_cost_fresh"), -rules.actions.factory_cost)
    if seat is None:
        return np.where(state.last_action != L.A_FACTORY, mod[:, None], 0)
    return np.where(state.last_action[:, seat] != L.A_FACTORY, mod, 0)


def yard_cost(state: State, rules: Rules) -> np.ndarray:
    """int[G] £ per family-yard ship for the Shipping Manager (Ship Subsidy)."""
    return np.maximum(rules.shipping.yard_cost + modifier(state, rules, "yard_cost"), 0)


def company_levy(state: State, rules: Rules) -> None:
    """Phase 7 start (Calico Acts): the Company loses 1 £ per ``company_levy_per`` £ of balance until
    Deregulation passes (2e: "skip this penalty after deregulation")."""
    col = rules.d.law_mod[:, MOD["company_levy_per"]]
    if not col.any():
        return
    force = in_force(state)
    levy = np.zeros(state.n_games, dtype=np.int64)
    for i in np.flatnonzero(col > 0):
        levy += np.where(force[:, i], state.balance // col[i], 0)
    levy = np.where(~state.done & ~state.deregulated, np.minimum(levy, state.balance), 0)
    if levy.any():
        ledger.company(state, "company_levy", -levy)


def retiree_income(state: State, rules: Rules) -> None:
    """Phase 7 income (Inclosure Acts): each relative in honourable retirement earns his family the modifier."""
    per = modifier(state, rules, "retiree_income")
    if not per.any():
        return
    amounts = np.where((~state.done)[:, None], per[:, None] * state.retired.sum(axis=2), 0)
    ledger.families(state, "law_payments", amounts)


def pay_president_bonus(
    state: State, rules: Rules, agents: Agents, president: np.ndarray, amount: np.ndarray, where: np.ndarray
) -> None:
    """R-TRADE's 1 £ per order to the President's family, or to the Company under Trade Regulations; a held note
    of kind 5 takes it from the President's family (R-NOTE)."""
    from . import notes

    to_company = where & (president >= 0) & flag(state, rules, "president_bonus_to_company")
    ledger.company(state, "president_bonus", np.where(to_company, amount, 0))
    notes.pay_bonus(state, rules, agents, "president_bonus", president, amount, where & ~to_company)


def pay_clerks(state: State, rules: Rules, placed: np.ndarray, won: np.ndarray) -> None:
    """R-TRADE's pay per clerk placed on a filled order (``placed[G, N]`` clerks): +1 £ each under Writer
    Privileges; to the Company instead under Writer Graft Reform."""
    per = rules.trade.clerk_pay + modifier(state, rules, "clerk_pay")
    amounts = np.where(won[:, None], placed * per[:, None], 0)
    to_company = flag(state, rules, "clerk_pay_to_company")
    ledger.company(state, "clerk_pay", np.where(to_company, amounts.sum(axis=1), 0))
    ledger.families(state, "clerk_pay", np.where(to_company[:, None], 0, amounts))


def loot_to_company(state: State, rules: Rules, rows: np.ndarray, loot: np.ndarray) -> np.ndarray:
    """Treasure Reform: the loot of games ``rows`` (with amounts ``loot``) goes to the Company's balance. Returns
    bool[len(rows)]: which of them were paid so (the round-robin sharing skips them)."""
    to_company = flag(state, rules, "loot_to_company")[rows]
    paid = np.zeros(state.n_games, dtype=np.int64)
    paid[rows[to_company]] = loot[to_company]
    if paid.any():
        ledger.company(state, "loot", paid)
        state.tally[:, TALLY["loot"]] += paid.astype(np.int32)
    return to_company


def board_of_control(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Board of Control (2e: "once per turn, after any office except the Chairman has finished acting, the PM
    may remove its officeholder"): at the end of phase 6, when every office has acted, the PM may remove one
    officeholder but the Chairman (decision ``remove_officeholder``); the relative goes home."""
    pm = np.where(~state.done & flag(state, rules, "board_of_control"), state.prime_minister, -1)
    held = state.office >= 0
    held[:, L.CHAIRMAN] = False
    pm = np.where(held.any(axis=1), pm, -1)
    if not (pm >= 0).any():
        return
    office = np.full(state.n_games, -1, dtype=np.int64)

    def check(o, legal, obs):
        oc = np.clip(o, 0, L.N_OFFICES - 1)
        return (o < -1) | (o >= L.N_OFFICES) | ((o >= 0) & ~legal.removable[np.arange(obs.n), oc]), (
            "not an officeholder the PM may remove"
        )

    agents.ask("remove_officeholder", state, pm, {"removable": held}, (office,), check)
    for o in range(1, L.N_OFFICES):
        vacate(state, np.flatnonzero((pm >= 0) & (office == o)), o)


def military_oversight(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Military Oversight (2e: "immediately after Military Affairs acts, the PM may demote one commander and then
    appoint a commander from the officers in that army following the rules for hiring and nepotism"): decision
    ``oversee_army``; the appointment is R-APPOINT's ``choose`` with the PM as appointer (office code
    COMMANDER_OFFICE0 + army). The new commander leads until the army is re-seated by R-COMMANDER's majority."""
    from .phases.appointments import choose  # late import: appointments imports this module

    g = state.n_games
    pm = np.where(~state.done & flag(state, rules, "military_oversight"), state.prime_minister, -1)
    commanded = state.commander >= 0
    pm = np.where(commanded.any(axis=1), pm, -1)
    if not (pm >= 0).any():
        return
    army = np.full(g, -1, dtype=np.int64)

    def check(a, legal, obs):
        ac = np.clip(a, 0, L.PRESIDENCIES - 1)
        return (a < -1) | (a >= L.PRESIDENCIES) | ((a >= 0) & ~legal.armies[np.arange(obs.n), ac]), (
            "not an army with a commander"
        )

    agents.ask("oversee_army", state, pm, {"armies": commanded}, (army,), check)
    for a in range(L.PRESIDENCIES):
        rows = (pm >= 0) & (army == a)
        if not rows.any():
            continue
        state.commander[rows, a] = -1
        cand = np.zeros((g, state.n_players, L.n_sources(state.owner.shape[1])), dtype=bool)
        cand[:, :, L.SRC_OFFICER[a]] = state.officers[:, :, a] > 0
        family, _ = choose(state, rules, dice, agents, COMMANDER_OFFICE0 + a, rows, pm, cand)
        pick = rows & (family >= 0)
        state.commander[pick, a] = family[pick]


def extra_actions(state: State, rules: Rules) -> list[tuple[int, np.ndarray]]:
    """Phase 2, after the family actions: the laws in force that give an extra action (2e "after taking any family
    action(s), you may ..."). Returns (action, bool[G] games where a law grants it) per action kind granted somewhere;
    each family may take each granted kind once more, at its usual price (``family.take_actions`` with ``only``)."""
    d = rules.d
    if (d.law_extra < 0).all():
        return []
    force = in_force(state) & ~state.done[:, None]
    out = []
    for act in np.unique(d.law_extra[d.law_extra >= 0]):
        granted = force[:, d.law_extra == act].any(axis=1)
        if granted.any():
            out.append((int(act), granted))
    return out
