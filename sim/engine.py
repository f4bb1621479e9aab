"""Play whole games: a batch advances in lockstep through setup, the rounds' phases and the end of the game."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any

import numpy as np

from . import kernels, trace
from . import layout as L
from .agents import Agents
from .dice import Dice, Streams
from .lookahead import Planner
from .memory import keep_freed_memory
from .phases import ROUND
from .phases.deregulation import start_of_round
from .phases.end import end_game
from .phases.setup import setup
from .results import BatchRows, Recorder, Results
from .rules import Rules
from .state import State, new_state

DEFAULT_BATCH = 4096
# Compaction: once this share of the games a batch is playing has finished (the Company crashed), the remaining rounds
# play the running games only (every phase costs per game, finished or not). A game plays the same either way: its
# state, dice streams, seating and decision counts move with it. COMPACT = False plays every round over the whole
# batch. Taking the running games out (and putting the finished ones back) costs 2-3 % of one round's work at batch
# 4,096, so a tenth of the games finished pays for it within the next round. Measured: 0.92x the CPU time for the
# archetype mix, even within noise for `balanced` (few of its games crash, and late).
COMPACT = True
COMPACT_AT = 0.1


class PlayError(ValueError):
    """A bad argument to ``play`` (player count, strategies, game range)."""


def strategy_registry() -> Callable[[Any], Any]:
    """The function that makes a strategy from a name, a class or an instance: the ``eastindia.strategies`` entry
    point (the ``strategies`` package declares ``strategies:make``), so the engine imports none of its plug-ins."""
    found = importlib.metadata.entry_points(group="eastindia.strategies")
    if not found:
        raise PlayError("no strategy registry is installed: install the project (pip install -e .)")
    return next(iter(found)).load()


def resolve_strategies(rules: Rules, strategies: Any) -> list:
    """One strategy instance per seat from a name, a Strategy, or a sequence of them (one per seat)."""
    n = rules.players
    if isinstance(strategies, str | type) or not isinstance(strategies, Sequence):
        strategies = [strategies] * n
    if len(strategies) != n:
        raise PlayError(f"{len(strategies)} strategies given for {n} players")
    make = strategy_registry()
    made: dict[Any, Any] = {}
    out = []
    for spec in strategies:
        key = spec if isinstance(spec, str | type) else id(spec)
        if key not in made:  # seats naming the same strategy share one instance (one call per decision)
            made[key] = make(spec)
        out.append(made[key])
    return out


# Per-round scratch: the counters and flags a round starts from nothing (``begin_round``, phase 3's sealed choices and
# fills). A finished game keeps the values of the last round the engine played it in, so a game that ended early
# holds them as it was when the engine set it aside (``COMPACT``): two plays of one game agree on everything else.
SCRATCH = frozenset(
    {"tally", "law_passed", "card_taken", "card_played_now", "order_filled", "taxed", "firm_filled", "firm_port",
     "firm_bid", "firm_successes"}
)  # fmt: skip


def same_games(a: State, b: State) -> np.ndarray:
    """bool[G]: where two plays of the same games (``a`` and ``b``, row for row) ended alike: every field equal, the
    per-round scratch (``SCRATCH``) aside where the Company crashed (a game that ends before the last round)."""
    early = a.crashed & b.crashed
    same = np.ones(a.n_games, dtype=bool)
    for f in fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        equal = (x == y) | ((x != x) & (y != y)) if x.dtype.kind == "f" else x == y
        equal = equal.reshape(a.n_games, -1).all(axis=1) if x.ndim > 1 else equal
        same &= equal | early if f.name in SCRATCH else equal
    return same


def begin_round(state: State) -> None:
    """Per-round counters start at zero; nothing has been filled or taxed yet this round."""
    state.tally[:] = 0
    state.law_passed[:] = state.card_taken[:] = state.card_played_now[:] = False
    state.order_filled[:] = False
    state.taxed[:] = 0
    live = ~state.done  # a finished game keeps what blame situation 5 counts: its governors deposed
    state.deposed[live] = 0
    state.used_officers[live] = 0  # phase 6 deployments exhaust troops until phase 8
    state.used_regiments[live] = 0


def end_round(state: State, rules: Rules) -> None:
    """Leased ships have sailed their one round; running games move on to the next round."""
    live = ~state.done
    state.ships[live, :, L.LEASED] = 0
    state.round[live] += 1


class Table:
    """A batch of games between two steps of play: the engine's forward model.

    ``setup()`` plays the auction, ``play_round()`` the next round (R-ROUND's eleven phases) while ``playing``, and
    ``finish()`` ends every game and returns its rows. Between two steps ``fork`` copies running games (their state,
    random streams and seating) into a table of their own, which plays on by itself: with the games' own streams it
    plays exactly what they would have played (``eastindia audit``); with fresh ones (and the hidden cards redealt,
    ``sim.forward``) it is a continuation a searching player may look at (``sim.lookahead``).

    ``strategies`` are the strategy objects at the table and ``seating[G, N]`` picks one per game and seat (default:
    seat s plays strategies[s] everywhere); ``Agents.reseat`` changes the seating between two steps. ``record``: keep
    the frames' rows (a fork made for a search keeps none). ``planner``: called as ``planner(table)`` before setup and
    before every round (``sim.lookahead.Planner``: the seats that search pick what they play)."""

    def __init__(
        self,
        rules: Rules,
        strategies: list,
        seed: int,
        game_ids: np.ndarray,
        seating: np.ndarray | None = None,
        record: bool = True,
        planner: Callable[[Table], None] | None = None,
    ):
        keep_freed_memory()  # the batch's temporaries reuse freed heap blocks instead of fresh pages (sim/memory.py)
        if seating is None:
            seating = np.tile(np.arange(len(strategies)), (len(game_ids), 1))
        self.rules, self.seed, self.strategies, self.planner = rules, seed, list(strategies), planner
        streams = Streams(seed, game_ids, 1 + rules.players)
        agents = Agents(self.strategies, rules, streams, seating)
        self.whole = self.part = (new_state(rules, game_ids), streams, agents)
        self.rows = np.arange(len(game_ids))  # the positions in ``whole`` of the games ``part`` plays
        self.seating = np.asarray(seating)  # int[G, N]: the strategy seated at each seat of the table
        names = np.array([s.label for s in self.strategies])[seating]
        self.recorder = Recorder(rules, seed, names) if record else None
        self.next_round = 0  # 0: setup comes next; then the round to play; rounds + 1: over (``finish``)

    @property
    def state(self) -> State:
        """The state of the games this step plays (``part``: the running games once finished ones are set aside)."""
        return self.part[0]

    @property
    def streams(self) -> Streams:
        return self.part[1]

    @property
    def agents(self) -> Agents:
        return self.part[2]

    def seats(self) -> np.ndarray:
        """int[G', N]: the index in ``strategies`` of the strategy seated at each seat of the games this step plays
        (a searching seat's own, whatever plan it plays)."""
        return self.seating[self.rows]

    @property
    def playing(self) -> bool:
        """Whether a round is left to play: setup is done, rounds remain and some game is running."""
        return 1 <= self.next_round <= self.rules.game.rounds and not self.part[0].done.all()

    def setup(self) -> None:
        """Setup (the auction, the lots and the starting capital); round 1 comes next."""
        if self.next_round != 0:
            raise PlayError("setup is played once, first")
        state, streams, agents = self.part
        if trace.recorder is not None and self.recorder is not None:
            trace.recorder.start(state, self.rules)
        if self.planner is not None:
            self.planner(self)
        setup(state, self.rules, Dice(streams), agents)
        self._traced("setup")
        self.next_round = 1

    def play_round(self) -> None:
        """Play the next round in every running game (finished games are set aside first, ``COMPACT``)."""
        if not self.playing:
            raise PlayError("no round is left to play")
        rnd, rules = self.next_round, self.rules
        self._compact()
        if self.planner is not None:
            self.planner(self)
        state, streams, agents = self.part
        played = ~state.done
        dice = Dice(streams)
        begin_round(state)
        start_of_round(state, rules)  # deregulation.forced_round
        self._traced("start_of_round")
        for _, name, phase, _ in ROUND:
            phase(state, rules, dice, agents)
            self._traced(name)
        if self.recorder is not None:
            self.recorder.round(state, rnd, played, agents.labels(state.n_games))
        end_round(state, rules)
        self.next_round = rnd + 1

    def finish(self) -> tuple[State, BatchRows | None]:
        """End every game (final scoring, R-END); the final state and its rows (None without records)."""
        _put_back(self.whole, self.part, self.rows)
        self.part, self.rows = self.whole, np.arange(self.whole[0].n_games)
        self.next_round = self.rules.game.rounds + 1
        if self.planner is not None:
            self.planner(self)
        state, streams, agents = self.whole
        end_game(state, self.rules, Dice(streams), agents)
        self._traced("end")
        return state, (None if self.recorder is None else self.recorder.finish(state, agents.asks))

    def fork(
        self, rows: np.ndarray, streams: Streams | None = None, planner: Callable[[Table], None] | None = None
    ) -> Table:
        """A table of its own holding a copy of each game ``rows`` (positions in ``state``; a game may be copied many
        times), at this point of play and with their seating, keeping no records. ``streams``: the copies' random
        streams (over ``len(rows)`` games); None keeps the games' own, drawing on from where they are, so that the
        copies play exactly what the games would. ``planner``: the copies' (None: nobody searches there; this
        table's, for copies whose searching seats must search on as they did)."""
        rows = np.asarray(rows, dtype=np.int64)
        state, own, agents = self.part
        streams = own.take(rows) if streams is None else streams
        copy = object.__new__(Table)
        copy.rules, copy.seed, copy.strategies, copy.planner = self.rules, self.seed, self.strategies, planner
        copy.whole = copy.part = (state.take(rows), streams, agents.take(rows, streams))
        copy.rows = np.arange(rows.size)
        copy.seating = self.seats()[rows]
        copy.recorder = None
        copy.next_round = self.next_round
        copy.agents.trace = copy.agents.override = None  # a fork is no replay's game, and nothing is forced in it yet
        return copy

    def _compact(self) -> None:
        """Set the finished games aside once a tenth of those playing has finished (``COMPACT_AT``)."""
        played = ~self.part[0].done
        if COMPACT and trace.recorder is None and played.sum() <= (1 - COMPACT_AT) * played.size:
            ended = np.flatnonzero(~played)  # only the games that finished go back to the batch now
            _put_back(self.whole, _take(self.part, ended), self.rows[ended])
            self.rows, self.part = self.rows[played], _take(self.part, np.flatnonzero(played))

    def _traced(self, name: str) -> None:
        if trace.recorder is not None and self.recorder is not None:
            trace.recorder.phase(self.part[0], name)


def play_batch(
    rules: Rules, strategies: list, seed: int, game_ids: np.ndarray, seating: np.ndarray | None = None
) -> tuple[State, BatchRows]:
    """Play games ``game_ids`` (global indices) to the end in lockstep. Returns the final state and its rows.

    ``seating[G, N]`` picks from ``strategies`` per game and seat (seat rotation); by default seat s plays
    strategies[s] in every game. A seat whose strategy searches (``sim.lookahead``) picks what it plays before
    setup and every round."""
    if seating is None:
        seating = np.tile(np.arange(len(strategies)), (len(game_ids), 1))
    planner = Planner.seated(rules, strategies, seed)
    table = Table(rules, planner.strategies if planner else strategies, seed, game_ids, seating, planner=planner)
    table.setup()
    while table.playing:
        table.play_round()
    state, rows = table.finish()
    kernels.played(len(game_ids))
    return state, rows


def _take(batch: tuple[State, Streams, Agents], rows: np.ndarray) -> tuple[State, Streams, Agents]:
    """Games ``rows`` of the batch (or of a part of it): their state, their random streams and the strategies
    seated in them."""
    state, streams, agents = batch
    streams = streams.take(rows)
    return state.take(rows), streams, agents.take(rows, streams)


def _put_back(batch: tuple[State, Streams, Agents], part: tuple[State, Streams, Agents], rows: np.ndarray) -> None:
    """Write the games ``part`` played (``_take(batch, rows)``) back into the batch."""
    if part is not batch:
        for whole, piece in zip(batch, part, strict=True):
            whole.put(rows, piece)


def play(
    rules: Rules,
    strategies: Any,
    n_games: int,
    seed: int,
    batch_size: int | None = None,
    first_game: int = 0,
) -> Results:
    """Play games ``first_game .. first_game + n_games - 1`` with ``strategies`` (a name or Strategy, or one
    per seat). Each game's dice depend only on (seed, game index): any batch size or shard split gives the same
    rows for the same games."""
    if n_games < 0 or first_game < 0:
        raise PlayError("n_games and first_game must be >= 0")
    batch_size = batch_size or min(max(n_games, 1), DEFAULT_BATCH)
    if batch_size < 1:
        raise PlayError("batch_size must be >= 1")
    seats = resolve_strategies(rules, strategies)
    kernels.engage(n_games)  # enough games to pay for the kernels: they run in batches of any size
    batches = []
    for start in range(first_game, first_game + n_games, batch_size):
        ids = np.arange(start, min(start + batch_size, first_game + n_games), dtype=np.int64)
        batches.append(play_batch(rules, seats, seed, ids)[1])
    meta = {"seed": seed, "strategies": [s.label for s in seats], "rules_digest": rules.digest()}
    return Results.from_batches(batches, meta)
