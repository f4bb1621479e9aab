"""What a copy of a game may know: the hidden piles redealt for a fork made for a search.

A searching player (``sim.lookahead``) plays copies of its games on to the end to judge its options. The copies must
not know what the family does not: the order of the event tiles not drawn yet, of the law deck and of the position
cards not drawn yet (``sim.agents.HIDDEN``). ``redeal`` draws those orders afresh from a stream of the copy's own, as
a family would imagine them from what is public: the same tiles, laws and cards left, the next tile's back
(``event_next``, R-TILES) and, after a Shuffle tile's "discard_on_top" reshuffle, which tiles lie above and which
below (``event_block``). The future dice are the copy's own too (``Streams.derived``), so nothing a copy plays
depends on what its game will really draw.

A redeal keys every tile, law and card by its identity, never by its place in the pile: what it deals depends on
the stream and on what is public alone, not on the hidden order it replaces (a test checks this).
"""

from __future__ import annotations

import numpy as np

from .dice import Streams, pick_with
from .laws import DECK
from .rules import Rules
from .state import State


def redeal(state: State, rules: Rules, streams: Streams) -> None:
    """Redeal every game's hidden piles in place from ``streams`` (one stream over the games of ``state``)."""
    idx = np.arange(state.n_games)
    redeal_events(state, rules, streams.uniform(0, idx, 1 + state.event_stack.shape[1]))
    redeal_laws(state, streams.uniform(0, idx, state.law_rank.shape[1]))
    redeal_positions(state, streams.uniform(0, idx, state.deck.shape[1]))


def redeal_events(state: State, rules: Rules, u: np.ndarray) -> None:
    """The event tiles not drawn yet (stack positions from ``event_cursor`` on) in a new order, drawn with ``u``
    float[G, 1 + K]: the first column picks the next tile among those of its part of the stack whose back shows
    ``event_next``; the others key each tile (by its index) within its part (above ``event_block``, then below)."""
    stack, cursor = state.event_stack, state.event_cursor.astype(np.int64)
    g, k = stack.shape
    if k == 0:
        return
    dealt = cursor >= 0  # before the first India phase nothing is dealt: the first deal draws from the game's dice
    pos = np.arange(k)[None, :]
    top_end = np.where(cursor < state.event_block, state.event_block, k)[:, None]  # the part the next tile is in
    undrawn = dealt[:, None] & (pos >= cursor[:, None])
    first = undrawn & (pos < top_end)
    key_of_tile = u[:, 1:]  # by tile index
    key = np.take_along_axis(key_of_tile, stack.astype(np.int64), axis=1) + (~first)  # below: 1 + u
    region = rules.d.tile_region[stack]
    nxt = pick_with(u[:, 0], _by_tile(stack, first & (region == state.event_next[:, None])))  # a tile index
    key = np.where(stack == nxt[:, None], -0.5, key)  # the next tile comes first
    key = np.where(undrawn, key, pos - k - 1.0)  # the drawn tiles keep their places
    order = np.argsort(key, axis=1, kind="stable")
    stack[dealt] = np.take_along_axis(stack, order, axis=1)[dealt]


def _by_tile(stack: np.ndarray, at: np.ndarray) -> np.ndarray:
    """bool[G, K] indexed by tile: the tiles standing where ``at`` (indexed by stack position) is True."""
    out = np.zeros(at.shape, dtype=bool)
    np.put_along_axis(out, stack.astype(np.int64), at, axis=1)
    return out


def redeal_laws(state: State, u: np.ndarray) -> None:
    """The law deck in a new order: every law in the deck that has a rank (the deck was shuffled) a new one from
    ``u`` float[G, LAWS] (by law). A deck never shuffled yet is shuffled by its first draw, from the game's dice."""
    ranked = (state.law_pile == DECK) & (state.law_rank >= 0)
    state.law_rank[ranked] = u[ranked]


def redeal_positions(state: State, u: np.ndarray) -> None:
    """The position cards not drawn yet (``deck`` from ``deck_top`` on) in a new order, each keyed by ``u[card]``."""
    deck = state.deck
    d = deck.shape[1]
    if d == 0:
        return
    pos = np.arange(d)[None, :]
    key = np.take_along_axis(u, deck.astype(np.int64), axis=1)
    key = np.where(pos >= state.deck_top[:, None], key, pos - d - 1.0)
    deck[:] = np.take_along_axis(deck, np.argsort(key, axis=1, kind="stable"), axis=1)
