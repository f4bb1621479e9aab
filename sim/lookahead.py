"""Seats that search: before setup and before every round the engine plays copies of the game on for them.

A strategy object whose ``lookahead`` attribute is a ``Search`` is a searching seat (the ``lookahead`` strategy,
``strategies/lookahead.py``). It answers no decision itself: before setup and before each round the engine tries
each of its ``candidates`` (strategy objects) for that step, then its ``base`` to the end, in ``rollouts`` copies of
the game per candidate, and seats the candidate that won most often (the mean VP margin over the best other family
breaks ties, then the candidate listed first) for the step. This is rollout policy improvement over a portfolio of
strategies (Tesauro & Galperin 1996; Churchill & Buro 2013).

What the copies know is what the family knows (``sim.forward``): each copy is a fork of the game at the step's start
(``engine.Table.fork``) with its hidden piles redealt and dice of its own, both drawn from streams keyed by (seed,
game, step, seat, rollout), never the game's own. Every candidate plays the same K continuations (common random
numbers), so their difference is the candidates', not the luck's. In a copy the other families play their own
strategies (another searching seat plays its base: no search inside a search). A game with a searching seat is
therefore still a function of (rules, strategies, seed, game index): the copies of a game depend on its state and
those keys alone, whichever games are searched beside it.

The copies of many games are played as one batch (games x candidates x rollouts rows), ``BATCH`` rows at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from . import trace
from .dice import Streams
from .forward import redeal

if TYPE_CHECKING:
    from .engine import Table
    from .rules import Rules

# Rows of copies played at once: whole sets of one searching seat's copies (candidates x rollouts) up to this many.
# Any size plays the same games; this bounds the memory (about 10 KiB a copy) and keeps the batch in the range where
# the engine's per-call costs are spread thin.
BATCH = 4096
# the tag of the redeal's stream among the fork's keys (the dice streams are numbered from 0)
REDEAL = 1 << 20


@dataclass(frozen=True)
class Search:
    """What a searching seat asks of the engine: its strategy object's ``lookahead`` attribute.

    ``candidates``: the strategy objects tried for each step (the auction with ``setup``, then each round);
    ``base``: what the seat plays after the candidate's step, and in another searching seat's copies;
    ``rollouts``: copies per candidate; ``setup``: search the auction's bids too (else ``base`` bids)."""

    base: Any
    candidates: tuple[Any, ...]
    rollouts: int
    setup: bool = True


def search_of(strategy: Any) -> Search | None:
    """The ``Search`` a strategy object asks for, or None for a seat that plays its own strategy."""
    found = getattr(strategy, "lookahead", None)
    return found if isinstance(found, Search) else None


@contextmanager
def untraced():
    """Copies are no replay's game: the trace recorder rests while they play."""
    saved, trace.recorder = trace.recorder, None
    try:
        yield
    finally:
        trace.recorder = saved


class Planner:
    """Plays the searching seats of a table: ``planner(table)`` before setup, every round and the end.

    ``strategies`` is the table's list followed by the strategy objects the searches need (bases and candidates;
    one object per label, the table's own where it already sits there): the engine seats them by index."""

    def __init__(self, rules: Rules, strategies: Sequence[Any], seed: int):
        self.rules, self.seed = rules, seed
        self.strategies = list(strategies)
        self.table_size = len(self.strategies)
        labelled = {(type(s), s.label): i for i, s in enumerate(self.strategies)}

        def index(strategy: Any) -> int:
            key = (type(strategy), strategy.label)
            if key not in labelled:
                labelled[key] = len(self.strategies)
                self.strategies.append(strategy)
            return labelled[key]

        self.copies = 0  # copies played so far, and the rounds they played (the search's work, sim.bench)
        self.round_plays = 0
        self.searches: dict[int, Search] = {}
        self.base: dict[int, int] = {}  # searching strategy -> its base's index
        self.candidates: dict[int, np.ndarray] = {}  # searching strategy -> its candidates' indices
        for i, strategy in enumerate(list(self.strategies[: self.table_size])):
            search = search_of(strategy)
            if search is not None:
                self.searches[i] = search
                self.base[i] = index(search.base)
                self.candidates[i] = np.array([index(c) for c in search.candidates], dtype=np.int64)

    @classmethod
    def seated(cls, rules: Rules, strategies: Sequence[Any], seed: int) -> Planner | None:
        """A planner when some strategy of ``strategies`` searches, else None."""
        if not any(search_of(s) is not None for s in strategies):
            return None
        return cls(rules, strategies, seed)

    # ---------------------------------------------------------------------------------------------- the table
    def __call__(self, table: Table) -> None:
        """Seat what each searching seat plays in the step ``table`` plays next: the candidate its search picks (in
        the running games), its base at the end of the game."""
        step = table.next_round
        seats = table.seats()  # int[G, N]: the table's strategy at each seat
        state = table.state
        for strategy, search in self.searches.items():
            games, seat = np.nonzero(seats == strategy)
            if step > self.rules.game.rounds:  # the end: the base plays the final retirements
                table.agents.reseat(games, seat, np.full(games.size, self.base[strategy]), state.n_games)
                continue
            live = ~state.done[games]
            games, seat = games[live], seat[live]
            if games.size == 0:
                continue
            if step == 0 and not search.setup:
                picked = np.full(games.size, self.base[strategy])
            else:
                picked = self.candidates[strategy][self.pick(table, strategy, games, seat)]
            table.agents.reseat(games, seat, picked, state.n_games)

    def pick(self, table: Table, strategy: int, games: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """int[len(games)]: the candidate (index into the search's candidates) seat ``seat[i]`` of game ``games[i]``
        plays this step: the most wins over the rollouts, then the highest mean VP margin, then the first listed."""
        wins, margin = self.outcomes(table, strategy, games, seat)
        best = wins.max(axis=1, keepdims=True)
        return np.where(wins == best, margin, -np.inf).argmax(axis=1)

    def outcomes(
        self, table: Table, strategy: int, games: np.ndarray, seat: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(wins int[P, C], mean VP margin float[P, C]) of each candidate over the rollouts, for the P searching
        (game, seat) pairs ``games``/``seat`` (positions in ``table.state``)."""
        search = self.searches[strategy]
        c, k = len(search.candidates), search.rollouts
        wins = np.zeros((games.size, c), dtype=np.int64)
        margin = np.zeros((games.size, c))
        per = max(1, BATCH // (c * k))  # searching pairs a batch of copies holds
        for lo in range(0, games.size, per):
            at = slice(lo, lo + per)
            won, by = self.rollouts(table, strategy, games[at], seat[at])
            wins[at] = won.reshape(-1, c, k).sum(axis=2)
            margin[at] = by.reshape(-1, c, k).mean(axis=2)
        return wins, margin

    def rollouts(
        self, table: Table, strategy: int, games: np.ndarray, seat: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(won bool[P*C*K], margin float[P*C*K]): each searching pair's copies, candidate by candidate, rollout by
        rollout, played to the end."""
        search = self.searches[strategy]
        c, k = len(search.candidates), search.rollouts
        step, rules = table.next_round, self.rules
        rows = np.repeat(games, c * k)
        seat = np.repeat(seat, c * k)
        candidate = np.tile(np.repeat(np.arange(c), k), games.size)
        rollout = np.tile(np.arange(k), games.size * c)
        game_ids = table.state.game[rows]
        keys = (step, seat, rollout)  # the same for every candidate: common random numbers
        fork = table.fork(rows, Streams.derived(self.seed, game_ids, 1 + rules.players, *keys))
        redeal(fork.state, rules, Streams.derived(self.seed, game_ids, 1, *keys, REDEAL))
        everyone = np.arange(rows.size)
        seats = fork.seats()
        for other in self.searches:  # no search inside a search
            at_g, at_s = np.nonzero(seats == other)
            fork.agents.reseat(at_g, at_s, np.full(at_g.size, self.base[other]), rows.size)
        fork.agents.reseat(everyone, seat, self.candidates[strategy][candidate], rows.size)
        with untraced():
            if step == 0:
                fork.setup()
            else:
                fork.play_round()
            fork.agents.reseat(
                np.arange(fork.rows.size), seat[fork.rows], np.full(fork.rows.size, self.base[strategy]), fork.rows.size
            )
            while fork.playing:
                fork.play_round()
            final, _ = fork.finish()
        self.copies += rows.size
        self.round_plays += int(final.end_round.sum()) - rows.size * max(step - 1, 0)
        vp = final.vp.sum(axis=2)
        mine = vp[everyone, seat]
        vp[everyone, seat] = -np.inf
        return final.winner == seat, mine - vp.max(axis=1)
