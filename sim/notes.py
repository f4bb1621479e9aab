"""Promissory notes and deals (R-NOTE, D-DEALS; seed 000 L47-L56, the deal protocol of seed 001).

Every family holds one note of each kind, issued in its own name (``state.note_holder[G, issuer, kind]`` is the
seat holding it; the issuer itself while the note is not out). A holder may use a note at any time (seed 000 L53)
and pass it on freely, to a third family too (seed 000 L54):

1. ``MONEY``: take up to ``notes.money_max`` £ from the issuer (what he has, if less) — ``use_money_notes``;
2. ``NEPOTISM``: the issuer's consent to nepotism in phase 5 — ``consent_by_note`` (called by ``choose``);
3. ``POSITION``: the issuer's pick of a position in the London season — ``redeem_position_pick`` (phase 1 calls it);
4. ``VOTES``: the issuer's property votes in a vote — used in ``phases.parliament.hold_vote``;
5. ``BONUS``: the issuer's committee-head bonus (the flows ``notes.bonus_flows``) — ``pay_bonus``.

A used note goes back to its issuer (``notes.after_use = "return"``) or is gone (``"spent"``: holder -1).

Deals (D-DEALS) follow the Here I Stand diplomacy segment, seed 001 L81-L87: at fixed moments
(``notes.deal_moments``) every family makes sealed offers at once — each note it holds offered to one family for a
price — then every family offered something accepts or refuses each offer (again sealed, at once); every accepted
deal is executed together, notes against money, and is never revoked. An offer is unconditional (seed 001 L87: no
deal may depend on what others do later). Seed 001 L85 asks each deal to be possible on its own when made; the
engine is stricter (D-OFFER-LIMIT): a family's offers together must fit what it holds, and it accepts no more than
it can pay from the money it had before the exchange. Other promises are not binding (seed 000 L55) and are not
modelled. Selling a note and its money are transfers inside the game (no ledger flow).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import kernels, ledger, trace
from .firms import free_yards
from .reduce import any_last, sum_last
from .state import TALLY, State

if TYPE_CHECKING:
    from .agents import Agents
    from .dice import Chance
    from .rules import Rules

MONEY, NEPOTISM, POSITION, VOTES, BONUS = range(5)


def used(state: State, rules: Rules, mask: np.ndarray) -> None:
    """Notes ``mask[G, issuer, kind]`` were used: back to the issuer (or gone, ``after_use = "spent"``)."""
    if not mask.any():
        return
    n, k = state.note_holder.shape[1:]
    back = np.broadcast_to(np.arange(n, dtype=np.int8)[None, :, None], state.note_holder.shape)
    after = back if rules.notes.after_use == "return" else np.int8(-1)
    state.note_holder[...] = np.where(mask, after, state.note_holder)
    state.tally[:, TALLY["notes_used"]] += sum_last(mask.reshape(len(mask), -1)).astype(np.int32)


def out_with(state: State, kind: int) -> np.ndarray:
    """int[G, N] the seat holding each issuer's note of ``kind`` when someone else holds it, else -1."""
    holder = state.note_holder[:, :, kind].astype(np.int64)
    mine = holder == np.arange(state.n_players)[None, :]
    return np.where(mine, -1, holder)


# ----------------------------------------------------------------------------------------------------- deals
def deal(
    state: State,
    rules: Rules,
    dice: Chance,
    agents: Agents,
    moment: str,
    rows: np.ndarray | None = None,
    topic: dict | None = None,
) -> None:
    """D-DEALS at ``moment`` ("appointments" or "vote") in games ``rows`` (default: every running game): sealed
    offers (decision ``offer_notes``), sealed acceptances (``accept_notes``), all accepted deals executed together;
    then holders may use money notes (``use_money_notes``). ``topic`` describes the vote that follows (int[G] law
    and policy, -1 none; int[G] support; bool[G] deregulation), given to both decisions."""
    if moment not in rules.notes.deal_moments:
        return
    live = ~state.done if rows is None else rows & ~state.done
    if not live.any():
        return
    g, n, k = state.note_holder.shape
    holder = state.note_holder.astype(np.int64)
    none = np.full(g, -1, dtype=np.int64)
    about = {"law": none, "policy": none, "support": np.zeros(g, dtype=np.int64), "deregulation": np.zeros(g, bool)}
    about.update(topic or {})
    about["moment"] = np.full(g, moment)
    held, asked = seat_masks(state.note_holder, live)  # [G, seat, issuer, kind], [G, seat]

    def check(answer, legal, obs):
        bad = offer_faults(*answer, legal.held, obs.seat, obs.players)
        return bad, "offers only notes it holds, to another family, at a price >= 0"

    # sealed offers: every holder at once (nothing changes until all have offered)
    offer_to = np.full((g, n, n, k), -1, dtype=np.int8)  # a seat (checked where held: only those are read)
    ask_price = np.zeros((g, n, n, k), dtype=np.int64)
    agents.ask_seats("offer_notes", state, asked, about, {"held": held}, (offer_to, ask_price), check)
    if offer_to.max() >= 0:  # some offer made (else every answer was -1: nothing to read or accept)
        buyer, price = holders_offers(holder, live, offer_to, ask_price)  # held is empty where a seat was not asked
        if (buyer >= 0).any():
            accept(state, agents, holder, buyer, price, about)
    if rules.notes.exchanges:
        exchange(state, rules, agents, live, about)
    use_money_notes(state, rules, agents, live)


def seat_masks(who: np.ndarray, live: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(bool[G, seat, N, K] each seat's entries of ``who`` int[G, N, K] (a seat each, -1 none), bool[G, seat] whether
    it has any) in games ``live`` (default: every game): the notes each seat holds, or the offers made to it."""
    g, n, k = who.shape
    if kernels.use(g):
        mask, has = np.zeros((g, n, n, k), dtype=bool), np.zeros((g, n), dtype=bool)
        who = np.ascontiguousarray(who, dtype=np.int8)  # seats (-1: none) as int8: one compiled signature
        _seat_masks(who, np.ones(g, dtype=bool) if live is None else live, mask, has)
        return mask, has
    mask = who[:, None] == np.arange(n, dtype=who.dtype)[None, :, None, None]
    if live is not None:
        mask &= live[:, None, None, None]
    return mask, any_last(mask.reshape(g, n, -1))


@kernels.kernel
def _seat_masks(who, live, mask, has):
    """``seat_masks`` into ``mask`` and ``has`` (zeros)."""
    g, n, k = who.shape
    for j in range(g):
        if live[j]:
            for i in range(n):
                for kind in range(k):
                    s = who[j, i, kind]
                    if s >= 0 and s < n:
                        mask[j, s, i, kind] = True
                        has[j, s] = True


def offer_faults(buyer: np.ndarray, price: np.ndarray, held: np.ndarray, seat: np.ndarray, players: int) -> np.ndarray:
    """bool[R]: the rows of sealed offers (``buyer``, ``price`` [R, issuer, kind] from the seats ``seat[R]``, who
    hold the notes ``held``) that are illegal: a note offered that the seat does not hold, to a seat out of range
    or to itself, or at a negative price."""
    if buyer.size and not any(buyer.strides + price.strides) and buyer.flat[0] == -1 and price.flat[0] >= 0:
        return np.zeros(len(buyer), dtype=bool)  # "no offer" as one constant for every note (a read-only broadcast)
    if kernels.use(len(buyer)) and buyer.dtype in (np.int8, np.int64) and price.dtype in (np.int32, np.int64):
        contiguous = (np.ascontiguousarray(a) for a in (buyer, price, held))  # each row's notes as one run
        return _offer_faults(*contiguous, seat, players)
    wrong = np.where(held, (buyer < -1) | (buyer >= players) | (price < 0), buyer >= 0)  # not held: no buyer
    return any_last(wrong.reshape(len(buyer), -1)) | any_last((buyer == seat[:, None, None]).reshape(len(buyer), -1))


def holders_offers(
    holder: np.ndarray, live: np.ndarray, offer_to: np.ndarray, ask_price: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(buyer, price) int[G, issuer, kind] (``holder``'s dtype): each note's offer, its holder's (``offer_to``,
    ``ask_price`` [G, seat, issuer, kind]); -1 and 0 for a spent note or in a game not dealing (``live``)."""
    g, n, k = holder.shape
    if kernels.use(g):
        buyer, price = np.empty_like(holder), np.empty_like(holder)
        _holders_offers(holder, live, offer_to, ask_price, buyer, price)
        return buyer, price
    out = (holder < 0) | ~live[:, None, None]
    at = (np.arange(g)[:, None, None] * n + np.maximum(holder, 0)) * (n * k) + np.arange(n * k).reshape(1, n, k)
    buyer = np.where(out, -1, offer_to.reshape(-1).take(at).astype(holder.dtype))
    return buyer, np.where(out, 0, ask_price.reshape(-1).take(at))


@kernels.kernel
def _offer_faults(buyer, price, held, seat, players):
    """``offer_faults`` row by row."""
    rows, m = buyer.shape[0], buyer.shape[1] * buyer.shape[2]
    buyer, price, held = buyer.reshape(rows, m), price.reshape(rows, m), held.reshape(rows, m)  # a row's notes
    bad = np.empty(rows, dtype=np.bool_)
    for r in range(rows):
        s, wrong = seat[r], False
        for e in range(m):
            b = buyer[r, e]
            wrong |= ((b < -1) | (b >= players) | (b == s) | (price[r, e] < 0)) if held[r, e] else (b >= 0)
        bad[r] = wrong
    return bad


@kernels.kernel
def _holders_offers(holder, live, offer_to, ask_price, buyer, price):
    """``holders_offers`` game by game."""
    g, n, k = holder.shape
    for j in range(g):
        for i in range(n):
            for kind in range(k):
                h = holder[j, i, kind]
                if h < 0 or not live[j]:
                    buyer[j, i, kind], price[j, i, kind] = -1, 0
                else:
                    buyer[j, i, kind], price[j, i, kind] = offer_to[j, h, i, kind], ask_price[j, h, i, kind]


def accept(state: State, agents: Agents, holder: np.ndarray, buyer: np.ndarray, price: np.ndarray, about: dict) -> None:
    """D-DEALS, the second half: every family offered a note (``buyer[G, issuer, kind]`` at ``price``; ``holder``
    the seat selling it) accepts or refuses each offer, sealed and at once; the accepted deals are carried out
    together, notes against money."""
    g, n, k = holder.shape
    money0 = state.money.astype(np.int64)
    offered, asked = seat_masks(buyer)  # [G, seat, issuer, kind]: offers made to the seat

    def check(a, legal, obs):
        over = np.where(a, legal.price, 0).reshape(obs.n, -1).sum(axis=1) > legal.money
        stray = (a & ~legal.offered).reshape(obs.n, -1).any(axis=1)
        return stray | over, "accepts only offers made to it, within its money"

    # sealed acceptances: every family offered something, at once
    answer = np.zeros((g, n, n, k), dtype=bool)
    legal = dict(about, price=price, holder=holder)
    agents.ask_seats("accept_notes", state, asked, legal, {"offered": offered, "money": money0}, (answer,), check)
    accepted, net = deals_done(holder, buyer, price, answer, offered)
    if accepted.any():
        state.money[...] += net.astype(state.money.dtype)
        if trace.recorder is not None:
            trace.recorder.transfer(state, "notes_sold", ("seat", net))
        state.note_holder[...] = np.where(accepted, buyer, holder).astype(np.int8)
        state.tally[:, TALLY["notes_sold"]] += sum_last(accepted.reshape(g, -1)).astype(np.int32)


def deals_done(
    holder: np.ndarray, buyer: np.ndarray, price: np.ndarray, answer: np.ndarray, offered: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(bool[G, issuer, kind] the notes sold, int64[G, N] what each family received less what it paid): the offers
    (``buyer``, ``price`` [G, issuer, kind] from ``holder``; ``offered`` [G, seat, issuer, kind] those made to each
    seat) that their buyers accepted (``answer`` [G, seat, issuer, kind], read where offered only)."""
    g, n, k = holder.shape
    if kernels.use(g):
        accepted, net = np.zeros((g, n, k), dtype=bool), np.zeros((g, n), dtype=np.int64)
        _deals_done(holder, buyer, price, answer, accepted, net)
        return accepted, net
    accepted = (answer & offered).any(axis=1)  # offered is empty where the seat was not asked
    pay = np.where(accepted, price, 0).reshape(g, -1)
    base = (np.arange(g) * n)[:, None]
    seller = np.maximum(holder, 0).reshape(g, -1)  # a spent note (-1) is never sold: its pay is 0
    received = np.bincount((base + seller).ravel(), pay.ravel(), g * n).reshape(g, n)
    spent = np.bincount((base + np.maximum(buyer, 0).reshape(g, -1)).ravel(), pay.ravel(), g * n).reshape(g, n)
    return accepted, (received - spent).astype(np.int64)  # whole sums (each buyer pays at most its money): exact


@kernels.kernel
def _deals_done(holder, buyer, price, answer, accepted, net):
    """``deals_done`` into ``accepted`` and ``net`` (zeros), note by note."""
    g, n, k = holder.shape
    for j in range(g):
        for i in range(n):
            for kind in range(k):
                b = buyer[j, i, kind]
                if b >= 0 and answer[j, b, i, kind]:
                    accepted[j, i, kind] = True
                    net[j, max(holder[j, i, kind], 0)] += price[j, i, kind]
                    net[j, b] -= price[j, i, kind]


# ----------------------------------------------------------------------- money and property (seed 000 L56)
GOODS = ("money", "luxuries", "shipyards", "factories")


def goods(state: State) -> np.ndarray:
    """int[G, N, 4]: what each family may hand over (seed 000 L56, ``GOODS`` order): its money, luxuries, shipyards
    holding no ship and uninvested factories. Position cards are not goods (D-CARDS-KEPT)."""
    return np.stack([state.money, state.luxuries, free_yards(state), state.factories], axis=2).astype(np.int64)


def exchange(state: State, rules: Rules, agents: Agents, live: np.ndarray, about: dict) -> None:
    """Seed 000 L56, D-GIFTS: money and property handed over freely, as a deal (seed 001's protocol, as for notes):
    every family makes sealed offers at once (decision ``offer_exchange``: to each other family, goods it hands
    over and goods it asks in return; asking nothing makes a gift), then every family offered something accepts or
    refuses each offer at once (``accept_exchange``); the accepted ones are carried out together. Stricter than
    seed 001 L85's "each possible on its own" (D-OFFER-LIMIT): a family offers in all no more than it has, and
    accepts asks that, with everything it offered itself, it can still hand over. A luxury carries its conspicuous
    wealth with it; a shipyard moves only without a ship. A transfer inside the game (no ledger flow)."""
    g, n = state.n_games, state.n_players
    if agents.all_pass("offer_exchange", live * np.int32(n)):  # nobody would offer: each live seat's ask counted
        return
    have = goods(state)
    give = np.zeros((g, n, n, len(GOODS)), dtype=np.int64)  # [G, from, to, good]
    ask = np.zeros(give.shape, dtype=give.dtype)  # calloc: pages nobody writes cost nothing
    others = ~np.eye(n, dtype=bool)

    def check_offer(answer, legal, obs):
        gv, tk = answer
        to_self = ((gv + tk).sum(axis=2) > 0) & ~others[obs.seat]
        bad = (gv < 0).any(axis=(1, 2)) | (tk < 0).any(axis=(1, 2)) | to_self.any(axis=1)
        return bad | (gv.sum(axis=1) > legal.goods).any(axis=1), (
            "offers other families only what it has (money, luxuries, free shipyards, uninvested factories), "
            "asking >= 0 in return"
        )

    for seat in range(n):
        legal = dict(about, goods=have[:, seat])
        agents.ask("offer_exchange", state, np.where(live, seat, -1), legal, (give[:, seat], ask[:, seat]), check_offer)
    if not (give.any() or ask.any()):  # nobody offered anything (a strategy that passes is not even asked)
        return
    give[~live] = 0
    ask[~live] = 0
    offered = (give + ask).sum(axis=3) > 0  # [G, from, to]
    if not offered.any():
        return
    left = have - give.sum(axis=2)  # what each family has not offered away
    accepted = np.zeros((g, n, n), dtype=bool)

    def check_accept(a, legal, obs):
        stray = (a & ~legal.offered).any(axis=1)
        over = (np.where(a[:, :, None], legal.asked, 0).sum(axis=1) > legal.goods).any(axis=1)
        return stray | over, "accepts only offers made to it, whose asks it can hand over beside its own offers"

    for seat in range(n):
        to_me = offered[:, :, seat]
        decider = np.where(to_me.any(axis=1), seat, -1)
        if not (decider >= 0).any():
            continue
        answer = np.zeros((g, n), dtype=bool)
        legal = dict(about, offered=to_me, given=give[:, :, seat], asked=ask[:, :, seat], goods=left[:, seat])
        agents.ask("accept_exchange", state, decider, legal, (answer,), check_accept)
        accepted[:, :, seat] = answer & to_me
    if not accepted.any():
        return
    net = np.where(accepted[..., None], give - ask, 0)  # [G, from, to, good] from -> to
    delta = net.sum(axis=1) - net.sum(axis=2)  # [G, N, good] received - handed over
    state.money[...] += delta[..., 0].astype(state.money.dtype)
    if trace.recorder is not None:
        trace.recorder.transfer(state, "exchange", ("seat", delta[..., 0]))
    state.luxuries[...] += delta[..., 1].astype(state.luxuries.dtype)
    state.wealth[...] += (delta[..., 1] * rules.actions.luxury_wealth).astype(state.wealth.dtype)
    state.shipyards[...] += delta[..., 2].astype(state.shipyards.dtype)
    state.factories[...] += delta[..., 3].astype(state.factories.dtype)
    state.tally[:, TALLY["exchanges"]] += accepted.reshape(g, -1).sum(axis=1).astype(np.int32)


# ------------------------------------------------------------------------------------------------ note effects
def use_money_notes(state: State, rules: Rules, agents: Agents, rows: np.ndarray) -> None:
    """Kind 1 (seed 000 L48): each holder of other families' money notes may take up to ``money_max`` £ from each
    issuer (decision ``use_money_notes``: int[G', N] £ per issuer, 0 keeps the note). A transfer inside the game."""
    g, n = state.n_games, state.n_players
    cap_max = rules.notes.money_max
    holder = np.where(rows[:, None], out_with(state, MONEY), -1)  # a seat's use moves only the notes it held
    if not (holder >= 0).any():
        return
    for seat in range(n):
        mine = holder == seat
        if not mine.any():
            continue
        cap = np.where(mine, np.minimum(cap_max, state.money), 0)
        take = np.zeros((g, n), dtype=np.int64)

        def check(t, legal, obs):
            return ((t < 0) | (t > legal.cap)).any(axis=1), "takes 0 up to money_max £ (what the issuer has)"

        agents.ask(
            "use_money_notes", state, np.where(mine.any(axis=1), seat, -1), {"notes": mine, "cap": cap}, (take,), check
        )
        take = np.where(mine, take, 0)
        state.money[...] -= take.astype(state.money.dtype)
        state.money[:, seat] += take.sum(axis=1).astype(state.money.dtype)
        if trace.recorder is not None:
            trace.recorder.transfer(state, "money_notes", ("seat", -take), ("seat", take.sum(axis=1), None, seat))
        mask = np.zeros(state.note_holder.shape, dtype=bool)
        mask[:, :, MONEY] = take > 0
        used(state, rules, mask)


def consent_by_note(state: State, rules: Rules, appointer: np.ndarray, seat: int, need: np.ndarray) -> np.ndarray:
    """Kind 2 (seed 000 L49, L114): where the appointer holds ``seat``'s nepotism note, that family's consent is given
    (the note is used). Returns bool[G]."""
    holder = state.note_holder[:, seat, NEPOTISM]
    by_note = need & (appointer >= 0) & (appointer != seat) & (holder == appointer)
    if not by_note.any():
        return by_note
    mask = np.zeros(state.note_holder.shape, dtype=bool)
    mask[:, seat, NEPOTISM] = by_note
    used(state, rules, mask)
    return by_note


def redeem_position_pick(state: State, rules: Rules, agents: Agents, picker: np.ndarray) -> np.ndarray:
    """Kind 3 (seed 000 L50), for the London season (phase 1): where ``picker[G]`` is about to take a position and
    another family holds his position note, that holder may take the pick instead (decision ``use_position_note``); the
    note is then used. Returns int[G]: the seat that picks (``picker`` where nobody redeems; -1 stays -1)."""
    g = state.n_games
    picker = np.asarray(picker, dtype=np.int64)
    holder = np.full(g, -1, dtype=np.int64)
    ok = picker >= 0
    holder[ok] = out_with(state, POSITION)[np.flatnonzero(ok), picker[ok]]
    use = np.zeros(g, dtype=bool)
    agents.ask("use_position_note", state, np.where(holder >= 0, holder, -1), {"issuer": picker}, (use,))
    use &= holder >= 0
    mask = np.zeros(state.note_holder.shape, dtype=bool)
    mask[np.flatnonzero(use), picker[use], POSITION] = True
    used(state, rules, mask)
    return np.where(use, holder, picker)


def pay_bonus(
    state: State, rules: Rules, agents: Agents, flow: str, seat: np.ndarray, amount: np.ndarray, where: np.ndarray
) -> None:
    """Pay a committee head's bonus ``amount[G]`` (ledger flow ``flow``) to the family at ``seat[G]`` in games
    ``where``. Kind 5 (seed 000 L52): if ``flow`` is one of ``notes.bonus_flows`` and another family holds the issuer's
    bonus note, that holder may take this bonus instead (decision ``use_bonus_note``); the note is then used."""
    seat = np.asarray(seat, dtype=np.int64)
    amount = np.broadcast_to(np.asarray(amount), seat.shape)
    ok = where & (seat >= 0) & (amount != 0)
    to = seat
    if flow in rules.notes.bonus_flows and ok.any():
        holder = np.full(seat.shape, -1, dtype=np.int64)
        holder[ok] = out_with(state, BONUS)[np.flatnonzero(ok), seat[ok]]
        asked = np.where(ok & (holder >= 0), holder, -1)
        if (asked >= 0).any():
            take = np.zeros(seat.shape, dtype=bool)
            legal = {"issuer": seat, "amount": amount, "flow": np.full(seat.shape, flow)}
            agents.ask("use_bonus_note", state, asked, legal, (take,))
            take &= asked >= 0
            to = np.where(take, holder, seat)
            mask = np.zeros(state.note_holder.shape, dtype=bool)
            mask[np.flatnonzero(take), seat[take], BONUS] = True
            used(state, rules, mask)
    ledger.family(state, flow, to, amount, where=ok)
