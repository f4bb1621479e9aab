"""Play whole games: a batch advances in lockstep through setup, the rounds' phases and the end of the game."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import layout as L
from . import trace
from .agents import Agents
from .dice import Dice, Streams
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


def play_batch(
    rules: Rules, strategies: list, seed: int, game_ids: np.ndarray, seating: np.ndarray | None = None
) -> tuple[State, BatchRows]:
    """Play games ``game_ids`` (global indices) to the end in lockstep. Returns the final state and its rows.

    ``seating[G, N]`` picks from ``strategies`` per game and seat (seat rotation); by default seat s plays
    strategies[s] in every game."""
    keep_freed_memory()  # the batch's temporaries reuse freed heap blocks instead of fresh pages (sim/memory.py)
    if seating is None:
        seating = np.tile(np.arange(len(strategies)), (len(game_ids), 1))
    names = np.array([s.label for s in strategies])[seating]
    streams = Streams(seed, game_ids, 1 + rules.players)
    agents = Agents(strategies, rules, streams, seating)
    state = new_state(rules, game_ids)
    recorder = Recorder(rules, seed, names)
    if trace.recorder is not None:
        trace.recorder.start(state, rules)
    setup(state, rules, Dice(streams), agents)
    if trace.recorder is not None:
        trace.recorder.phase(state, "setup")
    batch = part = (state, streams, agents)
    rows = np.arange(len(game_ids))  # the batch positions of the games ``part`` plays
    for rnd in range(1, rules.game.rounds + 1):
        played = ~part[0].done
        if not played.any():
            break
        if COMPACT and trace.recorder is None and played.sum() <= (1 - COMPACT_AT) * played.size:
            ended = np.flatnonzero(~played)  # only the games that finished go back to the batch now
            _put_back(batch, _take(part, ended), rows[ended])
            rows, part = rows[played], _take(part, np.flatnonzero(played))
            played = played[played]
        state, streams, agents = part
        dice = Dice(streams)
        begin_round(state)
        start_of_round(state, rules)  # deregulation.forced_round
        if trace.recorder is not None:
            trace.recorder.phase(state, "start_of_round")
        for _, name, phase, _ in ROUND:
            phase(state, rules, dice, agents)
            if trace.recorder is not None:
                trace.recorder.phase(state, name)
        recorder.round(state, rnd, played)
        end_round(state, rules)
    _put_back(batch, part, rows)
    state, streams, agents = batch
    end_game(state, rules, Dice(streams), agents)
    if trace.recorder is not None:
        trace.recorder.phase(state, "end")
    return state, recorder.finish(state, agents.asks)


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
    batches = []
    for start in range(first_game, first_game + n_games, batch_size):
        ids = np.arange(start, min(start + batch_size, first_game + n_games), dtype=np.int64)
        batches.append(play_batch(rules, seats, seed, ids)[1])
    meta = {"seed": seed, "strategies": [s.label for s in seats], "rules_digest": rules.digest()}
    return Results.from_batches(batches, meta)
