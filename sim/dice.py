"""Randomness: per-game counter-based streams, and the game's named chance functions.

Every draw of game g is ``splitmix64(key[stream, g] + counter * golden)`` where the key depends only on
``(seed, global game index, stream)`` and the counter only on how many numbers that game has drawn from that
stream. So a game's dice do not depend on which other games share its batch, on the batch size or on the worker:
game 150 of a run plays the same whether it is simulated alone, in a shard starting at 100 or among 4,096 others.
Arms of an experiment that use the same seed see the same dice for game g (common random numbers).

The master seed goes through ``numpy.random.SeedSequence``; nothing here touches numpy's global RNG.
Stream 0 is chance (the engine's dice); stream 1 + s belongs to the strategy in seat s.
"""

from __future__ import annotations

import numpy as np

from . import kernels, trace

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_S30, _S27, _S31, _S32, _S11 = (np.uint64(k) for k in (30, 27, 31, 32, 11))
_TO_UNIT = 2.0**-53


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser over a uint64 array (wrapping arithmetic). The auction's compiled kernel draws with the
    same steps (``phases.setup._pick``; ``tests/test_kernels.py`` checks both leave every stream alike)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


class Streams:
    """Independent counter-based streams for a batch of games: ``streams x games`` counters."""

    def __init__(self, seed: int, game_ids: np.ndarray, n_streams: int):
        base = np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]
        ids = np.asarray(game_ids, dtype=np.uint64)
        stream = np.arange(n_streams, dtype=np.uint64)[:, None]
        self.keys = _mix(_mix(ids[None, :] * _GOLDEN + base) ^ _mix(stream + np.uint64(0x5851F42D4C957F2D)))
        self.counters = np.zeros((n_streams, len(ids)), dtype=np.uint64)

    @classmethod
    def derived(cls, seed: int, game_ids: np.ndarray, n_streams: int, *tags: int | np.ndarray) -> Streams:
        """Streams for copies of games ``game_ids`` (one per entry, a game may repeat), keyed by (seed, game, *tags)
        and starting at their first draw: a fork's own randomness (``sim.lookahead``: the tags are the round, the
        searching seat and the rollout), never a game's (a game's keys hash (seed, game) alone), the same whatever
        else is forked beside it."""
        base = np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]
        ids = np.asarray(game_ids, dtype=np.uint64)
        z = _mix(ids * _GOLDEN + base)
        for i, tag in enumerate(tags):  # each tag hashed apart (its place in the list salts it)
            salt = np.uint64((0xD1B54A32D192ED03 * (i + 1)) & 0xFFFFFFFFFFFFFFFF)
            z = _mix(z ^ _mix(np.broadcast_to(np.asarray(tag, dtype=np.int64), ids.shape).astype(np.uint64) + salt))
        stream = np.arange(n_streams, dtype=np.uint64)[:, None]
        made = object.__new__(cls)
        made.keys = _mix(z[None, :] ^ _mix(stream + np.uint64(0x5851F42D4C957F2D)))
        made.counters = np.zeros((n_streams, len(ids)), dtype=np.uint64)
        return made

    @property
    def n_games(self) -> int:
        return self.counters.shape[1]

    def bits(self, stream: int | np.ndarray, idx: np.ndarray, n: int, used: np.ndarray | None = None) -> np.ndarray:
        """uint64[len(idx), n] raw draws of ``stream`` (or of each row's ``stream[i]``) in games ``idx``; each game's
        counter advances by ``used`` (default n)."""
        if self._compiled(idx):
            return self._draw(stream, idx, n, used, np.empty((len(idx), n), dtype=np.uint64))
        start = self.counters[stream, idx]
        steps = start[:, None] + np.arange(n, dtype=np.uint64)[None, :]
        out = _mix(self.keys[stream, idx][:, None] + steps * _GOLDEN)
        self.counters[stream, idx] = start + (np.uint64(n) if used is None else np.asarray(used, dtype=np.uint64))
        return out

    def uniform(self, stream: int | np.ndarray, idx: np.ndarray, n: int) -> np.ndarray:
        """float64[len(idx), n] in [0, 1): the top 53 bits of each draw of ``bits``."""
        if self._compiled(idx):
            return self._draw(stream, idx, n, None, np.empty((len(idx), n), dtype=np.float64))
        return (self.bits(stream, idx, n) >> _S11).astype(np.float64) * _TO_UNIT

    @staticmethod
    def _compiled(idx: np.ndarray) -> bool:
        """Whether the draws at ``idx`` (an int64 index array) run the kernel."""
        return isinstance(idx, np.ndarray) and idx.dtype == np.int64 and idx.ndim == 1 and kernels.use(idx.size)

    def _draw(self, stream, idx: np.ndarray, n: int, used, out: np.ndarray) -> np.ndarray:
        """``bits`` (``out`` uint64) or ``uniform`` (``out`` float64) by ``_draw_kernel``."""
        # every argument a C-ordered, writeable array of one dtype: one compiled signature for bits, one for uniform
        stream = np.require(np.broadcast_to(np.asarray(stream, dtype=np.int64), idx.shape), requirements="CW")
        step = np.asarray(n if used is None else used, dtype=np.uint64)
        step = np.require(np.broadcast_to(step, idx.shape), requirements="CW")
        _draw_kernel(self.keys, self.counters, stream, np.ascontiguousarray(idx), step, out.dtype == np.float64, out)
        return out

    def take(self, idx: np.ndarray) -> Streams:
        """The streams of games ``idx`` only (positions in this batch), drawing on from where they are."""
        part = object.__new__(Streams)
        part.keys = np.ascontiguousarray(self.keys[:, idx])  # C order, as made: the kernels see one layout
        part.counters = np.ascontiguousarray(self.counters[:, idx])
        return part

    def put(self, idx: np.ndarray, part: Streams) -> None:
        """Take back the counters of ``part`` (made by ``take(idx)``) after its games drew from it."""
        self.counters[:, idx] = part.counters


@kernels.kernel
def _draw_kernel(keys, counters, stream, idx, step, unit, out):
    """``Streams.bits`` row by row into ``out`` (uint64), or ``Streams.uniform`` (``unit``: float64 ``out``): each
    row's draws from the counters as they were before any row drew (a game listed twice draws the same numbers, as
    numpy's gather does), then the counters advanced row after row (the last row of a game sets it, as numpy's
    scatter)."""
    rows, n = out.shape
    start = np.empty(rows, dtype=np.uint64)
    for r in range(rows):
        start[r] = counters[stream[r], idx[r]]
    for r in range(rows):
        key = keys[stream[r], idx[r]]
        for j in range(n):
            z = key + (start[r] + np.uint64(j)) * _GOLDEN
            z = (z ^ (z >> _S30)) * _M1
            z = (z ^ (z >> _S27)) * _M2
            z = z ^ (z >> _S31)
            if unit:
                out[r, j] = np.float64(z >> _S11) * _TO_UNIT
            else:
                out[r, j] = z
    for r in range(rows):
        counters[stream[r], idx[r]] = start[r] + step[r]


class Chance:
    """Chance functions built on ``uniform``; shared by the real and the scripted dice."""

    def uniform(self, idx: np.ndarray, n: int = 1) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def pick(self, idx: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """A uniformly random True column of each row of ``mask`` (-1 for a row with none)."""
        return pick_with(self.uniform(idx, 1)[:, 0], mask)

    def weighted(self, idx: np.ndarray, p: np.ndarray) -> np.ndarray:
        """An index drawn with probabilities ``p`` (the same for every game)."""
        u = self.uniform(idx, 1)[:, 0]
        return np.minimum(np.searchsorted(np.cumsum(p), u, side="right"), len(p) - 1)


class Dice(Chance):
    """The engine's chance functions, all over a subset ``idx`` of the batch's games (positions in the batch)."""

    def __init__(self, streams: Streams, stream: int = 0):
        self.streams = streams
        self.stream = stream

    def d6(self, idx: np.ndarray, n: int = 1, used: np.ndarray | None = None) -> np.ndarray:
        """int8[len(idx), n] d6 rolls; with ``used`` each game consumes only its first used[i] rolls."""
        x = self.streams.bits(self.stream, idx, n, used)
        faces = (((x >> _S32) * np.uint64(6)) >> _S32).astype(np.int8) + np.int8(1)
        if trace.recorder is not None:
            trace.recorder.roll("d6", idx, faces, used)
        return faces

    def lowest(self, idx: np.ndarray, k: np.ndarray) -> np.ndarray:
        """The lowest of k d6 per game (D-CHECK), drawn exactly from one uniform; k >= 1."""
        u = self.streams.uniform(self.stream, idx, 1)[:, 0]
        k = np.asarray(k, dtype=np.float64)
        out = np.ones(len(idx), dtype=np.int8)
        for face in range(2, 7):  # P(lowest >= face) = ((7 - face) / 6) ** k
            out += u < ((7 - face) / 6.0) ** k
        if trace.recorder is not None:
            trace.recorder.roll("lowest", idx, out, k)
        return out

    def uniform(self, idx: np.ndarray, n: int = 1) -> np.ndarray:
        u = self.streams.uniform(self.stream, idx, n)
        if trace.recorder is not None:
            trace.recorder.roll("uniform", idx, u, None)
        return u


def pick_with(u: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Column of the floor(u * count)-th True entry per row; -1 where a row has no True entry."""
    if mask.dtype == bool and mask.ndim == 2 and u.dtype == np.float64 and kernels.use(len(mask)):
        out = np.empty(len(mask), dtype=np.int64)
        _pick_kernel(u, mask, out)
        return out
    count = mask.sum(axis=1)
    k = np.minimum((u * count).astype(np.int64), np.maximum(count - 1, 0))
    rank = np.cumsum(mask, axis=1) - 1
    hit = mask & (rank == k[:, None])
    return np.where(count > 0, hit.argmax(axis=1), -1)


@kernels.kernel
def _pick_kernel(u, mask, out):
    """``pick_with`` row by row."""
    for r in range(mask.shape[0]):
        count = 0
        for c in range(mask.shape[1]):
            count += mask[r, c]
        k = min(np.int64(u[r] * count), max(count - 1, 0))
        out[r] = -1
        for c in range(mask.shape[1]):
            if mask[r, c]:
                if k == 0:
                    out[r] = c
                    break
                k -= 1


class ScriptedDice(Chance):
    """Dice for hand-built test positions: per game (batch position) a queue of d6 faces and of uniforms.

    Every die is scripted: ``lowest(idx, k)`` takes k[i] faces from game i's queue and returns their minimum, so a
    check rolled with the wrong number of dice either runs out of faces or leaves some unused. Running out is an
    error (the test notices a roll it did not expect); ``assert_spent()`` fails when scripted faces are left.
    Uniforms default to 0.0 (the first legal option) when not scripted. Every request is logged in ``log`` as
    ``(kind, batch position, count)`` with kind ``"lowest"`` (count = dice), ``"d6"`` or ``"uniform"``, in the order
    the engine asked, so a test can assert how many dice were rolled, for whom and in which order.
    """

    def __init__(self, faces: dict[int, list[int]] | None = None, uniforms: dict[int, list[float]] | None = None):
        self.faces = {g: list(v) for g, v in (faces or {}).items()}
        self.uniforms = {g: list(v) for g, v in (uniforms or {}).items()}
        self.log: list[tuple[str, int, int]] = []

    def _face(self, g: int) -> int:
        queue = self.faces.get(int(g))
        if not queue:
            raise AssertionError(f"game {g}: a die was rolled that the test did not script")
        return queue.pop(0)

    def d6(self, idx: np.ndarray, n: int = 1, used: np.ndarray | None = None) -> np.ndarray:
        out = np.ones((len(idx), n), dtype=np.int8)
        for i, g in enumerate(idx):
            take = n if used is None else int(used[i])
            self.log.append(("d6", int(g), take))
            for j in range(take):
                out[i, j] = self._face(g)
        return out

    def lowest(self, idx: np.ndarray, k: np.ndarray) -> np.ndarray:
        k = np.broadcast_to(np.asarray(k, dtype=np.int64), (len(idx),))
        out = np.zeros(len(idx), dtype=np.int8)
        for i, g in enumerate(idx):
            if k[i] < 1:
                raise AssertionError(f"game {g}: a check with {k[i]} dice")
            self.log.append(("lowest", int(g), int(k[i])))
            out[i] = min(self._face(g) for _ in range(k[i]))
        return out

    def uniform(self, idx: np.ndarray, n: int = 1) -> np.ndarray:
        out = np.zeros((len(idx), n))
        for i, g in enumerate(idx):
            self.log.append(("uniform", int(g), n))
            queue = self.uniforms.get(int(g), [])
            for j in range(n):
                out[i, j] = queue.pop(0) if queue else 0.0
        return out

    def rolls(self, kind: str = "lowest", game: int | None = None) -> list[int]:
        """The counts logged for ``kind`` (in order), for one game or all."""
        return [c for k, g, c in self.log if k == kind and (game is None or g == game)]

    def unused(self) -> dict[int, list[int]]:
        return {g: q for g, q in self.faces.items() if q}

    def assert_spent(self) -> None:
        """Every scripted face was rolled."""
        left = self.unused()
        if left:
            raise AssertionError(f"scripted faces never rolled: {left}")
