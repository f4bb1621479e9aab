"""Position cards (D-POSITIONS, seed 000 L58-L74): the deck, the display, the cards families hold, and the
small functions the phases call to use them.

The deck is data (``[positions]`` in the rules file; ``rules.d.card_*`` arrays, one entry per physical card). Per
game it is shuffled at setup through the engine's chance functions; its order (``state.deck``, ``state.deck_top``)
is hidden from strategies. Cards on display (``state.market``) and the cards each family holds (``state.card_owner``,
``state.card_played``) are public.

- A *permanent* card is property while held: its votes count in Parliament (``permanent_votes``), its influence at
  the end (``influence``) and its conspicuous wealth from the moment it is taken.
- A *closed* card is played once, at its moment (``layout.CARD_MOMENTS``), by its holder's choice (decision
  ``play_position``): money (flow ``positions``) and wealth at once; ``extra_action`` one more family action in
  phase 2; ``ignore_nepotism`` one appointment of the holder's own relative without the others' consent in phase 5;
  ``votes`` for one vote of phase 9.

Wiring for the merge with phase 9 and promissory notes (not built here): phase 9's vote adds
``permanent_votes(state, rules)`` and ``play_cards(state, rules, agents, "parliament").votes`` to each family's
votes; a note of kind 3 (R-NOTE, "the issuer's position pick") substitutes its holder for the issuer in the
``pickers`` array that ``pick_order`` returns before ``take_positions`` is called.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import layout as L
from . import ledger, notes
from .agents import Agents, full_batch
from .board import seat_counts
from .dice import Chance
from .reduce import any_last
from .rules import Rules
from .state import TALLY, State

MOMENT = {name: i for i, name in enumerate(L.CARD_MOMENTS)}


# -------------------------------------------------------------------------------------------- deck and display
def shuffle_deck(state: State, rules: Rules, dice: Chance) -> None:
    """Setup: a uniformly random draw order per game (one uniform per card; equal draws keep catalogue order)."""
    n_cards = state.deck.shape[1]
    if n_cards == 0:
        return
    u = dice.uniform(np.arange(state.n_games), n_cards)
    state.deck[:] = np.argsort(u, axis=1, kind="stable").astype(np.int8)
    state.deck_top[:] = 0


def draw(state: State, rows: np.ndarray) -> np.ndarray:
    """The next card of the deck in games ``rows`` (int[len(rows)], -1 where the deck is spent); it leaves the deck."""
    n_cards = state.deck.shape[1]
    top = state.deck_top[rows].astype(np.int64)
    left = top < n_cards
    card = np.full(rows.size, -1, dtype=np.int64)
    card[left] = state.deck[rows[left], top[left]]
    state.deck_top[rows[left]] += 1
    return card


def give(state: State, rules: Rules, rows: np.ndarray, seat: np.ndarray, card: np.ndarray) -> None:
    """Card ``card[i]`` goes to family ``seat[i]`` in game ``rows[i]`` (entries with card < 0 are skipped); a
    permanent card's conspicuous wealth counts from now on. The only place a card changes hands: dealt with a
    starting lot or taken from the display; no family hands one over (D-CARDS-KEPT)."""
    ok = card >= 0
    rows, seat, card = rows[ok], seat[ok].astype(np.int64), card[ok]
    state.card_owner[rows, card] = seat
    d = rules.d
    np.add.at(state.wealth, (rows, seat), (d.card_wealth[card] * d.card_permanent[card]).astype(state.wealth.dtype))


def deal(state: State, rules: Rules, rows: np.ndarray, seat: np.ndarray, k: int) -> None:
    """Setup (D-LOTS item ``positions``): ``k`` cards from the top of the deck to ``seat`` in games ``rows``."""
    for _ in range(k):
        give(state, rules, rows, seat, draw(state, rows))


def refill_market(state: State, rules: Rules, live: np.ndarray) -> None:
    """Fill the empty display slots from the deck (games where ``live``), slot by slot, while cards remain."""
    n_cards = state.deck.shape[1]
    for slot in range(state.market.shape[1]):
        rows = np.flatnonzero(live & (state.market[:, slot] < 0) & (state.deck_top < n_cards))
        if rows.size:
            state.market[rows, slot] = draw(state, rows)


# --------------------------------------------------------------------------------------------- what is held
def held_sum(state: State, per_card: np.ndarray | None = None) -> np.ndarray:
    """int[G, N]: ``per_card[D]`` summed over the cards each family holds and has not played (a count without
    ``per_card``), counted over the [G, D] owners (``board.seat_counts``), not a [G, N, D] mask."""
    if per_card is None:
        return seat_counts(np.where(state.card_played, -1, state.card_owner), state.n_players)
    cards = np.flatnonzero(per_card)  # the cards worth nothing add nothing
    owner = np.where(state.card_played[:, cards], -1, state.card_owner[:, cards])
    return seat_counts(owner, state.n_players, per_card[cards])


def held_count(state: State) -> np.ndarray:
    """int[G, N]: permanent cards plus unplayed closed cards each family holds (the frames' ``positions``)."""
    return held_sum(state)


def permanent_votes(state: State, rules: Rules) -> np.ndarray:
    """int[G, N] parliamentary votes of the permanent cards each family holds (for phase 9's vote)."""
    d = rules.d
    return held_sum(state, d.card_votes * d.card_permanent)


def influence(state: State, rules: Rules) -> np.ndarray:
    """int[G, N] influence of the permanent cards each family holds (end of game, R-END)."""
    d = rules.d
    return held_sum(state, d.card_influence * d.card_permanent)


def wealth(state: State, rules: Rules) -> np.ndarray:
    """int[G, N] conspicuous wealth the family has from cards: permanent cards held, closed cards played."""
    d = rules.d
    n = state.n_players
    owned = state.card_owner[:, None, :] == np.arange(n)[None, :, None]
    counts = owned & (d.card_permanent | state.card_played[:, None, :])
    return (counts * d.card_wealth).sum(axis=2)


# ----------------------------------------------------------------------------------------- taking positions
def pick_order(
    state: State, rules: Rules, dice: Chance, agents: Agents, eligible: np.ndarray, spent: np.ndarray
) -> np.ndarray:
    """int[G, N]: the seats that take a position this round, in order, -1 after the last (L72-L74).

    ``eligible[G, N]``: families that paid at least one honourable retirement this round; ``spent[G, N]``: £ each
    spent on them. Most £ first; ties by conspicuous wealth (the most first); families still tied are ordered by
    the Prime Minister's family (decision ``rank_position_takers``), by chance when nobody holds the PM. The work is
    done on the rows of the games with an eligible family only (the question is put in full-batch arrays)."""
    g, n = state.n_games, state.n_players
    out = np.full((g, n), -1, dtype=np.int64)
    rows = np.flatnonzero(any_last(eligible))
    if rows.size == 0:
        return out
    able, paid, wealth = eligible[rows], spent[rows], state.wealth[rows]
    key = paid.astype(np.int64) * (1 << 32) + wealth
    same = able[:, :, None] & able[:, None, :] & (key[:, :, None] == key[:, None, :])
    tied = able & (same.sum(axis=2) > 1)
    rank = np.tile(np.arange(n), (rows.size, 1))
    need = tied.any(axis=1)
    if need.any():
        pm = state.prime_minister[rows].astype(np.int64)
        perm = np.tile(np.arange(n), (g, 1))

        def check(p, legal, obs):
            return (np.sort(p, axis=1) != np.arange(obs.players)).any(axis=1), "not an ordering of the seats"

        asked = np.full(g, -1, dtype=np.int64)
        asked[rows] = np.where(need & (pm >= 0), pm, -1)
        tied_all = np.zeros((g, n), dtype=bool)
        tied_all[rows] = tied
        agents.ask("rank_position_takers", state, asked, {"eligible": eligible, "tied": tied_all}, (perm,), check)
        perm = perm[rows]
        blind = np.flatnonzero(need & (pm < 0))
        if blind.size:
            perm[blind] = np.argsort(dice.uniform(rows[blind], n), axis=1, kind="stable")
        np.put_along_axis(rank, perm, np.broadcast_to(np.arange(n), perm.shape).copy(), axis=1)
    order = np.lexsort((rank, -wealth, -paid, ~able), axis=1)
    out[rows] = np.where(np.take_along_axis(able, order, axis=1), order, -1)
    return out


def take_positions(state: State, rules: Rules, agents: Agents, pickers: np.ndarray) -> np.ndarray:
    """Each seat of ``pickers[G, K]`` in turn takes one card on display or passes (decision ``take_position``);
    the card goes to that seat, or to the holder of its position note who redeems it for this pick (R-NOTE kind 3,
    L50). Returns int[G] cards taken. The work is done on the rows of the games where a seat picks only."""
    g = state.n_games
    taken = np.zeros(g, dtype=np.int64)
    m = state.market.shape[1]
    for k in range(pickers.shape[1]):
        rows = np.flatnonzero(pickers[:, k] >= 0)
        rows = rows[~state.done[rows] & (state.market[rows] >= 0).any(axis=1)]
        if rows.size == 0:
            continue
        slot = np.full(g, -1, dtype=np.int64)

        def check(s, legal, obs):
            sc = np.clip(s, 0, m - 1)
            bad = (s < -1) | (s >= m)
            return bad | ((s >= 0) & (legal.cards[np.arange(obs.n), sc] < 0)), "not a card on display"

        picker = np.full(g, -1, dtype=np.int64)
        picker[rows] = pickers[rows, k]
        seat = notes.redeem_position_pick(state, rules, agents, picker)  # R-NOTE kind 3
        picker[rows] = seat[rows]
        agents.ask("take_position", state, picker, {"cards": state.market}, (slot,), check)
        slot = slot[rows]
        got = slot >= 0
        hit, slot = rows[got], slot[got]
        card = state.market[hit, slot].astype(np.int64)
        give(state, rules, hit, picker[hit], card)
        state.card_taken[hit, card] = True
        state.market[hit, slot] = -1
        taken[hit] += 1
    state.tally[:, TALLY["positions_taken"]] += taken.astype(np.int32)
    return taken


# ------------------------------------------------------------------------------------------ playing closed
@dataclass
class Played:
    """Effects of the closed cards played at one moment, int[G, N] per family."""

    money: np.ndarray
    votes: np.ndarray
    extra_action: np.ndarray
    ignore_nepotism: np.ndarray


def play_cards(
    state: State,
    rules: Rules,
    agents: Agents,
    moment: str,
    context: dict | None = None,
    allowed: np.ndarray | None = None,
) -> Played:
    """Ask every family holding closed cards of ``moment`` which to play (decision ``play_position``, the families
    of a game at once: nothing changes before all have answered); apply their money and wealth and return what was
    played. ``context`` adds entries to the decision's ``legal``; ``allowed[G, N]`` limits who may play."""
    g, n = state.n_games, state.n_players
    n_cards = state.card_owner.shape[1]
    cards = np.flatnonzero(rules.d.card_moment == MOMENT[moment])  # the closed cards of this moment
    # the holder of each unplayed closed card of this moment in the running games (-1: none); the games where
    # somebody holds one are the only ones asked (few: most cards are open or played)
    holder = np.where(state.card_played[:, cards] | state.done[:, None], -1, state.card_owner[:, cards])
    rows = np.flatnonzero(any_last(holder >= 0))
    mine = holder[rows, None, :] == np.arange(n)[None, :, None]  # [m, N, cards]: what each family may play
    if allowed is not None:
        mine &= allowed[rows, :, None]
    holds = any_last(mine)
    if not holds.any():
        return _apply(state, rules, *(np.zeros(0, dtype=np.int64) for _ in range(3)))
    playable = np.zeros((rows.size, n, n_cards), dtype=bool)
    playable[:, :, cards] = mine
    options = full_batch(g, rows, playable, False, bool)
    asked = np.zeros((g, n), dtype=bool)
    asked[rows] = holds
    answer = np.zeros(options.shape, dtype=bool)
    legal = {"moment": np.full(g, MOMENT[moment]), **(context or {})}
    agents.ask_seats("play_position", state, asked, legal, {"playable": options}, (answer,), _check_play(None))
    played = answer[rows][:, :, cards] & mine  # only the playable cards
    seat, at, card = np.nonzero(played.transpose(1, 0, 2))  # seat by seat, game by game
    return _apply(state, rules, rows[at], seat, cards[card])


def waive_nepotism(
    state: State, rules: Rules, agents: Agents, appointer: np.ndarray, need: np.ndarray, office: np.ndarray
) -> np.ndarray:
    """Phase 5: an appointer choosing his own relative where nepotism asks for consent (``need[G]``) may play one
    ``ignore_nepotism`` card instead (decision ``play_position`` at the "appointments" moment). Returns bool[G]."""
    g = state.n_games
    d = rules.d
    waived = np.zeros(g, dtype=bool)
    waivers = (d.card_moment == MOMENT["appointments"]) & (d.card_nepotism > 0)
    rows = np.flatnonzero(need & (appointer >= 0))
    if rows.size == 0 or not waivers.any():
        return waived
    mine = (state.card_owner[rows] == appointer[rows, None]) & ~state.card_played[rows] & waivers
    holds = any_last(mine)
    if not holds.any():
        return waived
    options = np.zeros(state.card_owner.shape, dtype=bool)  # in the games needing consent only
    options[rows] = mine
    decider = np.full(g, -1, dtype=np.int64)
    decider[rows[holds]] = appointer[rows[holds]]
    answer = np.zeros(options.shape, dtype=bool)
    legal = {"moment": np.full(g, MOMENT["appointments"]), "playable": options, "office": office}
    agents.ask("play_position", state, decider, legal, (answer,), _check_play(1))
    game, card = np.divmod(np.flatnonzero(answer & options), options.shape[1])
    _apply(state, rules, game, appointer[game].astype(np.int64), card)
    waived[game[d.card_nepotism[card] > 0]] = True
    return waived


def _check_play(limit: int | None):
    def check(answer, legal, obs):
        bad = (answer & ~legal.playable).any(axis=1)
        if limit is not None:
            bad |= answer.sum(axis=1) > limit
        return bad, "not a playable card of this moment" + ("" if limit is None else f", or more than {limit}")

    return check


def _apply(state: State, rules: Rules, game: np.ndarray, seat: np.ndarray, card: np.ndarray) -> Played:
    """Mark the cards ``card[i]`` played by family ``seat[i]`` in game ``game[i]`` spent; pay their money (flow
    ``positions``) and add their wealth."""
    d = rules.d
    g, n = state.n_games, state.n_players
    out = Played(*(np.zeros((g, n), dtype=np.int64) for _ in range(4)))
    if card.size == 0:
        return out
    state.card_played[game, card] = state.card_played_now[game, card] = True
    game_seat = game * n + seat

    def per_seat(per_card: np.ndarray) -> np.ndarray:  # int64[G, N]: the played cards' values summed per seat
        return np.bincount(game_seat, per_card[card], minlength=g * n).astype(np.int64).reshape(g, n)

    for field, per_card in (("money", d.card_money), ("votes", d.card_votes), ("extra_action", d.card_extra),
                            ("ignore_nepotism", d.card_nepotism)):  # fmt: skip
        if per_card[card].any():  # else none of the cards played carries it: 0 everywhere
            getattr(out, field)[...] = per_seat(per_card)
    if d.card_wealth[card].any():
        state.wealth[...] += per_seat(d.card_wealth).astype(state.wealth.dtype)
    if out.money.any():
        ledger.families(state, "positions", out.money)
    return out
