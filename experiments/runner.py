"""Run an experiment: shards of fixed game ranges, played by joblib workers, streamed to Parquet.

Each shard (arm, games first..last-1) is played and written to its own folder under ``RUN_DIR/shards`` atomically
(a temporary folder with a name unique to its writer, renamed into place), its ``manifest.json`` (every file's rows,
size and SHA-256, and the shard's key) written last, so an interrupted run keeps every finished shard and ``resume``
plays only the missing ones. A shard whose files do not match its manifest is played again, and the user is told.
When all shards exist they are merged, one shard at a time and verified as they are read, into one Parquet file
per frame with row groups of a fixed size: the merged bytes depend only on the rows, never on the number of jobs
or the shard size, and memory stays bounded by one shard plus one row group however many games the run has.
Shards are planned lazily (a generator), so a run of 10^12 games starts at once.

One run at a time owns a run folder (``runfolder.RunLock``, an OS lock released however the run ends); a second run into
it is refused at once naming the holder, and a folder whose entries are symbolic links is refused. Shards are played in
worker processes that die with the run and never write a shard after it (a run of this package's strategies alone on one
job without a timeout plays in its own process: ``Pool``); SIGINT and SIGTERM stop the run cleanly (``catch_signals``),
a worker that exits by itself or a shard that exceeds the timeout fails it. A folder whose run failed or was interrupted
is resumed when its finished shards are still shards of the experiment given (same key: seed, rules, strategies,
parameters, plugin code), restarted in place when it has none, and otherwise refused with the command that starts afresh
(``fresh``: the old folder is moved aside, never deleted).
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import hashlib
import importlib.metadata
import importlib.util
import io
import json
import os
import pickle
import platform
import re
import shlex
import shutil
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, closing, contextmanager, nullcontext, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import numpy as np
import polars as pl

import strategies as registry
from sim import kernels
from sim.agents import IllegalDecision, StrategyError
from sim.engine import DEFAULT_BATCH, PlayError, play_batch
from sim.results import Results
from sim.rules import RulesError
from strategies import calibration as calibrated

from . import calibration
from . import runfolder as rf
from .coverage import COVERAGE, write_coverage
from .spec import MAX_GAMES, Arm, Experiment, PluginError, load_plugin

if TYPE_CHECKING:
    import pyarrow as pa

ROW_GROUP = 65_536
SHARDS = rf.SHARDS
PACKAGES = ("eastindia", "numpy", "polars", "pyarrow", "joblib")
BACKENDS = ("loky", "dask", "ray")
MAX_JOBS = max(64, 4 * (os.cpu_count() or 1))
MERGE_ATTEMPTS = 3
# A worker process costs about 1.5-2 CPU-seconds before its first game (the interpreter, the engine's imports, the
# compiled kernels loaded from the cache): what a worker plays in 5,000-8,000 games. A loky run starts one worker per
# ``GAMES_PER_WORKER`` games it has left to play (its pilots included), up to ``--jobs``; where that comes to one and
# the run may play in its own process (``Pool``), it starts none: the README's 2,000 games play in the run's own
# process, a 9-arm study of 1,000 games per arm on two workers. The games are the same whatever the count. The
# environment variable ``EASTINDIA_GAMES_PER_WORKER`` sets another threshold (1: always ``--jobs`` workers).
GAMES_PER_WORKER = 8_000


class RunError(ValueError):
    """A user error about the run folder or the run's options (exit code 2)."""


class Interrupted(RuntimeError):
    """The run stopped early (a signal or a lost worker); finished shards are kept. ``code``: the exit code (128 +
    the signal's number, 3 for a lost worker; 0: decided by the command)."""

    def __init__(self, message: str, done: int, total: int, code: int = 0):
        super().__init__(message)
        self.done, self.total, self.code = done, total, code

    def __reduce__(self):
        return (type(self), (str(self), self.done, self.total, self.code))


class WorkerFailed(RuntimeError):
    """A shard did not finish in its worker: the worker ended the process itself (``os._exit``) or the shard exceeded
    ``--timeout`` (exit code 3; the run is failed, its finished shards kept)."""


class Signalled(KeyboardInterrupt):
    """SIGINT or SIGTERM reached the main process (raised there while ``catch_signals`` is active)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class ShardFailed(RuntimeError):
    """The engine failed while playing a shard (a bug, not a user error); ``details`` holds the traceback.
    Raised instead of the original exception so that any error crosses from a worker process intact."""

    def __init__(self, message: str, details: str = ""):
        super().__init__(message)
        self.details = details

    def __reduce__(self):
        return (type(self), (str(self), self.details))


class BadShard(Exception):
    """A finished shard whose files do not match its manifest (found while merging)."""

    def __init__(self, name: str, reason: str):
        super().__init__(f"{name}: {reason}")
        self.name, self.reason = name, reason


# Errors a worker raises that are the user's (a strategy, a plugin, the rules, the disk): passed through as they are.
USER_ERRORS = (StrategyError, IllegalDecision, RulesError, PluginError, RunError, PlayError, registry.UnknownStrategy)
WORKER_DEATHS = ("TerminatedWorkerError", "BrokenProcessPool", "CommClosedError", "KilledWorker")


class Progress(Protocol):
    """What the runner reports: games already on disk per arm, then each finished shard."""

    def start(self, done: dict[int, int]) -> None: ...

    def advance(self, arm: int, games: int) -> None: ...


@dataclass(frozen=True)
class Shard:
    arm: int
    first: int
    last: int  # exclusive

    @property
    def name(self) -> str:
        return f"arm{self.arm:04d}-{self.first:010d}-{self.last:010d}"

    @property
    def games(self) -> int:
        return self.last - self.first


def plan(exp: Experiment, shard_size: int | None = None, games: int | None = None) -> Iterator[Shard]:
    """The shards in (arm, game) order, lazily (a run of 10^12 games is never listed in memory); ``games``: only
    the first ones of each arm (a precision target reached early)."""
    size = shard_size or exp.shard_size
    games = exp.games if games is None else games
    for arm in exp.arms:
        for first in range(0, games, size):
            yield Shard(arm.index, first, min(first + size, games))


def n_shards(exp: Experiment, shard_size: int) -> int:
    return len(exp.arms) * -(-exp.games // shard_size)


# -------------------------------------------------------------------------------------------- parameter columns
def param_types(exp: Experiment) -> dict[str, pl.DataType]:
    """One Polars type per parameter key across all arms (mixed types become strings)."""
    out: dict[str, pl.DataType] = {}
    for key in exp.param_keys:
        kinds = {type(arm.params[key]) for arm in exp.arms if arm.params[key] is not None}
        if kinds == {bool}:
            out[key] = pl.Boolean
        elif kinds <= {int}:
            out[key] = pl.Int64
        elif kinds <= {int, float}:
            out[key] = pl.Float64
        else:
            out[key] = pl.Utf8
    return out


def _param_value(value: Any, dtype: pl.DataType) -> Any:
    return str(value) if dtype == pl.Utf8 and value is not None else value


ENGINE_PACKAGES = kernels.ENGINE_PACKAGES  # sim/ and strategies/


@functools.cache
def engine_digest() -> str:
    """The code that makes a run's rows: a hash of the engine's and the shipped strategies' files (``sim/`` and
    ``strategies/``, sources and default rules). Shards written by another version of it are never mixed in."""
    h = hashlib.sha256()
    for root in ENGINE_PACKAGES:
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".toml") and "__pycache__" not in path.parts:
                h.update(path.relative_to(root.parent).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def shard_key(exp: Experiment, arm: Arm, types: dict[str, pl.DataType]) -> str:
    """What determines the rows of a shard of ``arm`` besides its game range: the seed, the arm (name, index,
    parameters and their column types, rules content, strategies, rotation, players), the plugins' code, the
    engine's (``engine_digest``) and the arm's calibration key (``experiments.calibration``; none when it is not
    calibrated). A finished shard whose key the experiment still gives holds exactly the rows a fresh run would
    write."""
    meta = {k: v for k, v in arm.meta().items() if k != "rules_file"}  # the rules' content counts, not their path
    data = {
        "seed": exp.seed,
        "players": exp.players,
        "arm": meta,
        "types": {k: str(t) for k, t in types.items()},
        "plugins": exp.plugin_code,
        "engine": engine_digest(),
    }
    if (calibration_key := calibration.key(exp, arm, engine_digest())) is not None:
        data["calibration"] = calibration_key
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


# ------------------------------------------------------------------------------------------------- one shard
def play_shard(
    arm: Arm,
    shard: Shard,
    seed: int,
    plugins: tuple[str, ...],
    types: dict[str, pl.DataType],
    shards_dir: str,
    key: str = "",
    values: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Play one shard and write its four frames and manifest atomically (``play_shards`` of that shard alone)."""
    return play_shards((Part(arm, shard, key, values),), seed, plugins, types, shards_dir)[0]


class Part(NamedTuple):
    """A shard to play with its arm, its key (``shard_key``) and the arm's calibrated values (None: fixed ones)."""

    arm: Arm
    shard: Shard
    key: str
    values: dict[str, Any] | None


def shard_names(parts: Iterable[Part]) -> str:
    """The shards a task plays, as an error names them."""
    return " and ".join(part.shard.name for part in parts)


# A task plays shards of different arms with the same rules together (``group_shards``), up to this many games in
# one batch: a game costs about half the CPU in a batch of 4,096 as in one of 1,000, a third of one of 500.
GROUP_GAMES = DEFAULT_BATCH


def play_shards(
    parts: tuple[Part, ...],
    seed: int,
    plugins: tuple[str, ...],
    types: dict[str, pl.DataType],
    shards_dir: str,
) -> list[dict[str, Any]]:
    """Play shards of arms with the same rules and calibrated values (``group_shards``) in one batch and write each
    one's four frames and manifest atomically, as if it had been played alone (a game's rows are a function of its
    rules, strategies, seed and index, whatever the games beside it). Runs in a worker process. Returns one result
    per shard.

    A user's error (a strategy's exception or illegal answer, bad rules, a disk that cannot take the shard) is
    raised as it is; anything else becomes ``ShardFailed`` (which, unlike some exceptions, crosses processes)."""
    start = time.perf_counter()
    _exit_if_orphaned()
    try:
        for spec in plugins:
            load_plugin(spec)
        rules = parts[0].arm.rules()  # the same rules as every other part's (``group_shards``)
        made: list[Any] = []
        ids, seatings, applied = [], [], []
        for arm, shard, _, values in parts:
            part_ids = np.arange(shard.first, shard.last, dtype=np.int64)
            names, seating = arm.seating(part_ids)
            own = [_make(arm, label) for label in names]
            seatings.append(np.asarray(seating) + len(made))
            ids.append(part_ids)
            applied.append((own, values))
            made += own
        with ExitStack() as stack:
            for own, values in applied:  # each arm's strategies take its values (equal for every part here)
                stack.enter_context(calibrated.applied(own, values))
            _, rows = play_batch(rules, made, seed, np.concatenate(ids), np.concatenate(seatings))
        for (arm, shard, key, _), part in zip(parts, rows.split([p.shard.games for p in parts]), strict=True):
            frames = Results.from_batches([part], {}).frames()
            extra = [
                pl.lit(arm.name, dtype=pl.Utf8).alias("arm"),
                pl.lit(arm.index, dtype=pl.Int32).alias("arm_index"),
                (pl.col("game") % arm.rotations).cast(pl.Int32).alias("rotation"),
                *(pl.lit(_param_value(arm.params[k], t), dtype=t).alias(k) for k, t in types.items()),
            ]
            # in the run folder's order (rf.SORT_KEYS) already: one arm, its games in order
            frames = {frame: df.with_columns(extra) for frame, df in frames.items()}
            write_shard(Path(shards_dir), shard, frames, key)
    except USER_ERRORS:
        raise
    except Exception as exc:
        details = "".join(traceback.format_exception(exc))
        why = f"shard {shard_names(parts)} failed: {type(exc).__name__}: {_one_line(exc)}"
        raise ShardFailed(why, details) from exc
    seconds, peak = time.perf_counter() - start, peak_mib()
    return [{"arm": p.arm.index, "games": p.shard.games, "seconds": seconds, "peak_mib": peak} for p in parts]


def group_shards(shards: Iterable[Part], together: dict[int, Any]) -> Iterator[tuple[Part, ...]]:
    """The shards in tasks of ``play_shards``, lazily: consecutive shards of different arms of equal
    ``together[arm index]`` (their rules' digest and calibrated values: the values are the process's while a batch
    plays, ``strategies.calibration.applied``) together, up to ``GROUP_GAMES`` games a task. Two shards of one arm
    never share a task: ``shard_size`` stays the unit of an arm's work (of ``--resume``, of a precision target's
    ranges)."""
    parts: list[Part] = []
    games = 0
    for part in shards:
        shard = part.shard
        if parts and (
            together[shard.arm] != together[parts[0].shard.arm]
            or games + shard.games > GROUP_GAMES
            or any(p.shard.arm == shard.arm for p in parts)
        ):
            yield tuple(parts)
            parts, games = [], 0
        parts.append(part)
        games += shard.games
    if parts:
        yield tuple(parts)


def peak_mib() -> float | None:
    """The peak resident memory of this process so far, in MiB, as its operating system counts it (``getrusage``'s
    ``ru_maxrss``: KiB on Linux, bytes on macOS); None where there is no ``resource`` module (Windows)."""
    try:
        import resource
    except ImportError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (2**20 if sys.platform == "darwin" else 2**10), 1)


def _values_key(values: dict[str, Any] | None) -> str:
    """Calibrated values as a key: equal for equal values (numbers and arrays compared exactly)."""
    return hashlib.sha256(pickle.dumps(sorted((values or {}).items()), protocol=5)).hexdigest()


def _make(arm: Arm, label: str) -> Any:
    """The strategy labelled ``label`` with its parameters."""
    name = arm.spec(label).name
    try:
        return arm.spec(label).make()
    except USER_ERRORS:
        raise
    except Exception as exc:
        raise StrategyError(
            f"strategy {name!r} raised {type(exc).__name__}: {_one_line(exc)} when created",
            "".join(traceback.format_exception(exc)),
        ) from exc


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or repr(exc)


def one_line(text: str) -> str:
    """``text`` with every line break or other unprintable character escaped (a key may hold any of them)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


def write_shard(shards_dir: Path, shard: Shard, frames: dict[str, pl.DataFrame], key: str) -> None:
    """Write a shard's frames into a temporary folder unique to this writer, its manifest last, then rename it into
    place. If another writer finished the same shard first, a valid copy is kept and ours discarded."""
    final = shards_dir / shard.name
    tmp = rf.temp_name(final)
    manifest: dict[str, Any] = {"shard": shard.name, "arm": shard.arm, "first": shard.first, "last": shard.last}
    manifest.update({"key": key, "files": {}})
    try:
        rf.make_dir(shards_dir.parent, f"{shards_dir.name}/{tmp.name}")  # no link followed below the run folder
        for name, df in frames.items():
            buf = io.BytesIO()
            df.write_parquet(buf, compression="zstd", statistics=True)
            data = buf.getvalue()
            _write_synced(tmp / f"{name}.parquet", data)
            manifest["files"][f"{name}.parquet"] = rf.file_record(data, df.height)
        _write_synced(tmp / rf.MANIFEST, json.dumps(manifest, indent=1).encode())
        _exit_if_orphaned()  # the run that asked for this shard is gone: never put it into a folder it left
        try:
            tmp.rename(final)
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
            if verify_shard(final, shard) is None:
                return  # another writer finished the same shard first: its copy stays, ours is dropped
            shutil.rmtree(final, ignore_errors=True)  # a damaged copy: ours replaces it
            tmp.rename(final)
    except rf.LinkRefused as link:
        raise RunError(str(link)) from None
    except OSError as exc:
        raise RunError(
            f"cannot write shard {shard.name} in {shards_dir}: {exc.strerror or exc}; "
            "make room (or fix the folder) and run again with --resume: finished shards are kept"
        ) from None
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _write_synced(path: Path, data: bytes) -> None:
    with open(path, "xb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def read_manifest(path: Path) -> dict[str, Any] | None:
    try:
        manifest = json.loads((path / rf.MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) and isinstance(manifest.get("files"), dict) else None


def verify_shard(path: Path, shard: Shard | None = None) -> str | None:
    """Why the finished shard folder ``path`` cannot be used (None: every file matches its manifest)."""
    manifest = read_manifest(path)
    if manifest is None:
        return "its manifest is missing or unreadable"
    if manifest.get("shard") != path.name or (shard is not None and manifest.get("shard") != shard.name):
        return "its manifest names another shard"
    for frame in rf.FRAMES:
        name = f"{frame}.parquet"
        try:
            data = (path / name).read_bytes()
        except OSError:
            return f"{name} is missing"
        reason = rf.check_record(name, data, manifest["files"].get(name))
        if reason:
            return reason
    first, last = manifest.get("first"), manifest.get("last")
    if (
        not isinstance(first, int)
        or not isinstance(last, int)
        or manifest["files"]["games.parquet"]["rows"] != (last - first)
    ):
        return "its games do not match its range"
    return None


# ---------------------------------------------------------------------------------------------------- merging
def merge(run_dir: Path, shards: Callable[[], Iterable[Shard]] | list[Shard]) -> dict[str, dict[str, Any]]:
    """Concatenate the shards in (arm, game) order into one Parquet file per frame, fixed-size row groups.

    Every shard file is checked against its manifest as it is read (``BadShard`` if it does not match). Returns
    each merged frame's rows, size and SHA-256 (kept in run.json, verified when the folder is used again)."""
    import pyarrow as pa  # here, not with the module: a worker, which only plays shards, never loads it (30 MB)
    import pyarrow.parquet as pq

    listed = shards if callable(shards) else (lambda: shards)
    shards_dir = run_dir / SHARDS
    check_writes(run_dir)  # a link in the way is refused before any frame is written
    records: dict[str, dict[str, Any]] = {}
    for frame in rf.FRAMES:
        target = rf.frame_path(run_dir, frame)
        if next(iter(listed()), None) is None:
            continue
        try:
            with rf.open_write(run_dir, target.name) as fh:  # never through a link at the file (rf.open_write)
                writer: pq.ParquetWriter | None = None
                pending: list[pa.Table] = []
                rows = total = 0
                try:
                    for shard in listed():
                        table = _read_verified(shards_dir / shard.name, f"{frame}.parquet")
                        if writer is None:
                            writer = pq.ParquetWriter(fh, table.schema, compression="zstd", write_statistics=True)
                        pending.append(table)
                        rows += table.num_rows
                        total += table.num_rows
                        while rows >= ROW_GROUP:
                            joined = pa.concat_tables(pending)
                            writer.write_table(joined.slice(0, ROW_GROUP).combine_chunks(), row_group_size=ROW_GROUP)
                            rest = joined.slice(ROW_GROUP)
                            pending, rows = [rest], rest.num_rows
                    if writer is not None and rows:
                        writer.write_table(pa.concat_tables(pending).combine_chunks(), row_group_size=ROW_GROUP)
                finally:
                    if writer is not None:
                        writer.close()
                size, digest = rf.written_sha256(fh)
            records[frame] = {"rows": total, "bytes": size, "sha256": digest}
        except rf.LinkRefused as link:
            raise RunError(str(link)) from None
        except OSError as exc:
            raise RunError(
                f"cannot write {target}: {exc.strerror or exc}; make room and run again with --resume: "
                "the shards are kept"
            ) from None
    if "games" in records:
        records[COVERAGE] = _write_coverage(run_dir)
    return records


def _write_coverage(run_dir: Path) -> dict[str, Any]:
    """Write ``coverage.parquet`` from the merged frames (so it depends on the rows alone); its rows, size, SHA-256."""
    target = rf.frame_path(run_dir, COVERAGE)
    try:
        with rf.open_write(run_dir, target.name) as fh:  # never through a link at the file (rf.open_write)
            rows = write_coverage(run_dir, fh)
            size, digest = rf.written_sha256(fh)
    except rf.LinkRefused as link:
        raise RunError(str(link)) from None
    except OSError as exc:
        raise RunError(
            f"cannot write {target}: {exc.strerror or exc}; make room and run again with --resume: the shards are kept"
        ) from None
    return {"rows": rows, "bytes": size, "sha256": digest}


def written(run_dir: Path) -> list[str]:
    """What a run writes at the top of its folder, besides its shards and calibration/ (checked as they are made)."""
    return [rf.EXPERIMENT, rf.META, *(rf.frame_path(run_dir, f).name for f in (*rf.FRAMES, COVERAGE))]


def check_writes(run_dir: Path) -> None:
    """A ``RunError`` (one line) if a file the run writes at the top of its folder is a symbolic link or has other
    hard links (``runfolder.check_targets``): refused before the run writes anything, and again before the merge."""
    try:
        rf.check_targets(run_dir, written(run_dir))
    except rf.LinkRefused as link:
        raise RunError(str(link)) from None


def _read_verified(path: Path, name: str) -> pa.Table:
    import pyarrow as pa
    import pyarrow.parquet as pq

    manifest = read_manifest(path)
    try:
        data = (path / name).read_bytes()
    except OSError:
        raise BadShard(path.name, f"{name} is missing") from None
    reason = "its manifest is missing or unreadable" if manifest is None else None
    reason = reason or rf.check_record(name, data, manifest["files"].get(name))
    if reason:
        raise BadShard(path.name, reason)
    return pq.read_table(pa.BufferReader(data))


# ------------------------------------------------------------------------------------------------- the run
def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def check_options(
    jobs: int | None,
    shard_size: int | None,
    backend: str,
    scheduler: str | None,
    resume: bool,
    fresh: bool,
    timeout: float | None = None,
) -> None:
    """The run's options, before anything is touched (each a one-line RunError)."""
    if timeout is not None and not (isinstance(timeout, int | float) and 0 < timeout < float("inf")):
        raise RunError(f"--timeout: must be a positive number of seconds, got {timeout}")
    if jobs is not None and not (isinstance(jobs, int) and 1 <= jobs <= MAX_JOBS):
        raise RunError(f"--jobs: must be between 1 and {MAX_JOBS} worker processes, got {jobs}")
    if shard_size is not None and not (isinstance(shard_size, int) and 1 <= shard_size <= MAX_GAMES):
        raise RunError(f"--shard-size: must be between 1 and {MAX_GAMES:,} games, got {shard_size}")
    if resume and fresh:
        raise RunError("--resume and --fresh contradict each other: --resume finishes the run, --fresh starts over")
    if backend not in BACKENDS:
        raise RunError(f"--backend: unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    if scheduler and backend == "loky":
        raise RunError("--scheduler needs --backend dask or --backend ray")
    needs = {"dask": ("dask.distributed", 'pip install -e ".[cluster]"'), "ray": ("ray", 'pip install "ray[default]"')}
    if backend in needs:
        module, how = needs[backend]
        try:
            found = importlib.util.find_spec(module) is not None
        except ImportError:
            found = False
        if not found:
            raise RunError(f"--backend {backend} needs {module.split('.')[0]}, which is not installed ({how})")


def _commands(command: str) -> tuple[str, str]:
    """The user's command made into the one that resumes and the one that starts afresh."""
    if not command:
        return "run(..., resume=True)", "run(..., fresh=True)"
    words = [w for w in shlex.split(command) if w not in ("--resume", "--fresh")]
    base = " ".join(shlex.quote(w) for w in words)
    return f"{base} --resume", f"{base} --fresh"


def _stderr(message: str) -> None:
    print(f"eastindia: {one_line(message)}", file=sys.stderr, flush=True)


def claim(run_dir: Path) -> None:
    """Check that ``run_dir`` can be a run folder and create it; a folder holding something else is refused
    untouched."""
    if run_dir.exists() and not run_dir.is_dir():
        raise RunError(f"--out {run_dir}: is a file, not a folder; choose another --out")
    if run_dir.is_dir():
        _refuse_links(run_dir, deep=False)
    if run_dir.is_dir() and not (run_dir / rf.META).exists() and _foreign(run_dir):
        raise RunError(f"{run_dir}: exists, is not empty and is not a run folder; choose another --out")
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunError(f"--out {run_dir}: cannot write there: {exc.strerror or exc}") from None


def _foreign(run_dir: Path) -> bool:
    """Does the folder hold anything but what a run leaves before its run.json (its lock, an empty shards/, the
    experiment.toml it writes just before run.json, and their temporary files)? A second run that looks while the
    first is between those writes must find the folder busy, not foreign."""
    for p in run_dir.iterdir():
        if p.name in (rf.LOCK, rf.EXPERIMENT) or (p.name == SHARDS and p.is_dir() and not any(p.iterdir())):
            continue
        if p.name.startswith((f".{rf.EXPERIMENT}.tmp-", f".{rf.META}.tmp-")):
            continue
        return True
    return False


def _refuse_links(run_dir: Path, deep: bool = True) -> None:
    try:
        rf.refuse_links(run_dir, deep=deep)
    except rf.LinkRefused as link:
        raise RunError(str(link)) from None


def _lock(run_dir: Path) -> rf.RunLock:
    try:
        return rf.RunLock(run_dir).acquire()
    except rf.FolderBusy as busy:
        raise RunError(
            f"{run_dir}: in use by another run ({busy.holder}); wait for it to finish or choose another --out"
        ) from None
    except rf.LinkRefused as link:
        raise RunError(str(link)) from None
    except OSError as exc:
        raise RunError(f"--out {run_dir}: cannot lock it: {exc.strerror or exc}") from None


def set_reference(run_dir: Path, name: str) -> None:
    """Record ``name`` as the run's reference arm in run.json (a choice ``--reference`` made is kept: a later run of
    the finished folder does not undo it), under the folder's lock so that no run rewrites run.json meanwhile."""
    lock = _lock(run_dir)
    try:
        meta = rf.read_meta(run_dir)
        if meta.get("reference") != name:
            rf.write_json_atomic(run_dir / rf.META, {**meta, "reference": name})
    except (OSError, ValueError) as exc:
        raise RunError(f"{run_dir}: cannot record the reference arm in {rf.META}: {_one_line(exc)}") from None
    finally:
        lock.release()


def run(
    exp: Experiment,
    run_dir: str | Path,
    jobs: int | None = None,
    resume: bool = False,
    shard_size: int | None = None,
    backend: str = "loky",
    scheduler: str | None = None,
    command: str = "",
    progress: Progress | None = None,
    fresh: bool = False,
    notify: Callable[[str], None] | None = None,
    timeout: float | None = None,
    calibration_dir: str | Path | None = None,
) -> dict[str, Any]:
    """Play every missing shard, merge, and return the run's metadata (also written to run.json).

    ``resume`` finishes an unfinished run in ``run_dir``; ``fresh`` moves an existing run folder aside first.
    ``notify`` receives what the user should know that is not an error (a damaged shard played again, a folder
    moved aside); by default it goes to stderr. ``timeout``: the seconds a shard may take (None: no limit).
    ``calibration_dir``: where the arms' calibrations are cached (default ``run_dir/calibration``; a study shares
    one between its runs)."""
    run_dir = Path(run_dir)
    notify = notify or _stderr
    check_options(jobs, shard_size, backend, scheduler, resume, fresh, timeout)
    claim(run_dir)
    lock = _lock(run_dir)
    try:
        if fresh and (run_dir / rf.META).exists():
            if Path.cwd().resolve().is_relative_to(run_dir.resolve()):
                raise RunError(f"{run_dir}: --fresh cannot move the folder you are in aside; run from elsewhere")
            aside = rf.aside_path(run_dir)
            try:
                run_dir.rename(aside)
            except OSError as exc:
                raise RunError(f"{run_dir}: cannot move it aside to {aside}: {exc.strerror or exc}") from None
            lock.path = aside / rf.LOCK
            lock.release()
            notify(f"moved the old run folder {run_dir} aside to {aside}")
            claim(run_dir)
            lock = _lock(run_dir)
        _refuse_links(run_dir)  # again, now that the folder is ours
        cache = Path(calibration_dir) if calibration_dir is not None else run_dir / calibration.DIR
        return _run_locked(
            exp, run_dir, jobs, resume, shard_size, backend, scheduler, command, progress, notify, timeout, cache
        )
    finally:
        lock.release()


def _run_locked(
    exp: Experiment,
    run_dir: Path,
    jobs: int | None,
    resume: bool,
    shard_size: int | None,
    backend: str,
    scheduler: str | None,
    command: str,
    progress: Progress | None,
    notify: Callable[[str], None],
    timeout: float | None,
    cache: Path,
) -> dict[str, Any]:
    shards_dir = run_dir / SHARDS
    old, size, done = prepare(run_dir, exp, resume, shard_size or exp.shard_size, command, notify)
    if old is not None and old.get("status") == "complete":
        return old
    types = param_types(exp)
    keys = {arm.index: shard_key(exp, arm, types) for arm in exp.arms}
    meta = {
        "name": exp.name,
        "command": command or (old or {}).get("command", ""),
        "seed": exp.seed,
        "players": exp.players,
        "games_per_arm": exp.games,
        "shard_size": size,
        "experiment_digest": exp.digest(),
        "engine_digest": engine_digest(),  # the code that made the rows (a resume never mixes two)
        "param_keys": list(exp.param_keys),
        # the arm the report compares the others with: once recorded, changed only by --reference (run or report)
        "reference": (old or {}).get("reference") or exp.reference,
        "target_ci": exp.target_ci,  # 0 = every game of ``games_per_arm``
        "arms": [arm.meta() for arm in exp.arms],
        "started": (old or {}).get("started") or datetime.now(UTC).isoformat(timespec="seconds"),
        "status": "running",
    }
    if exp.plugin_files:  # each plugin file's SHA-256 as imported: replay and audit import only that file again
        meta["plugins"] = dict(exp.plugin_files)
    if old and old.get("wall_time_s"):
        meta["wall_time_s"] = old["wall_time_s"]
    check_writes(run_dir)  # before the first write: a link in the way leaves the folder as it was
    try:
        rf.make_dir(run_dir, SHARDS)
        for stale in [*shards_dir.glob(".*.tmp-*"), *run_dir.glob(".*.tmp-*")]:  # left by a killed writer
            shutil.rmtree(stale, ignore_errors=True) if stale.is_dir() else stale.unlink(missing_ok=True)
        rf.write_atomic(run_dir / rf.EXPERIMENT, exp.resolved_toml().encode())
        rf.write_json_atomic(run_dir / rf.META, meta)
    except OSError as exc:
        raise RunError(f"{run_dir}: cannot write: {exc.strerror or exc}") from None

    total_shards = n_shards(exp, size)

    def stopped(status: str, error: str, what: str, code: int, fix: str = "") -> Interrupted:
        """Mark the run ``status`` (``error``: why) and make the line the user sees (exit ``code``)."""
        _mark(run_dir, meta, status, error)
        finished = _count_finished(shards_dir)
        return Interrupted(
            f"{what}: {finished} of {total_shards} shards are done and kept in {shards_dir}; "
            f"{fix}run again with --resume to finish: {_commands(command)[0]}",
            finished,
            total_shards,
            code,
        )

    left = games_left(exp, done, cache)
    if backend == "loky":  # a cluster's workers are the cluster's: there --jobs is what it says
        jobs = worker_count(jobs, left)
    if left and min(size, exp.games) >= kernels.MIN_GAMES and (cold := kernels.cold_once()):
        notify(cold)
    start = time.perf_counter()
    fresh_games = 0
    play_peak: float | None = None  # the largest peak memory of a process that played this session's shards
    played = exp.games  # games per arm in the results (fewer when a precision target is reached early)
    precision: dict[str, Any] | None = None
    try:
        values = calibrate_arms(exp, run_dir, meta, cache, jobs, timeout)
        # the arms that may play in one batch: the same rules and the same calibrated values (``play_shards``)
        together = {a["index"]: (a["rules_digest"], _values_key(values[a["index"]])) for a in meta["arms"]}
        if progress:
            on_disk: dict[int, int] = {}
            for arm, games in done.values():
                on_disk[arm] = on_disk.get(arm, 0) + games
            progress.start(on_disk)
        for attempt in range(MERGE_ATTEMPTS + 1):
            finished = dict(done)

            def tasks_for(shards: Iterable[Shard], finished: dict = finished) -> Iterator[tuple]:
                left = (Part(exp.arms[s.arm], s, keys[s.arm], values[s.arm]) for s in shards if s.name not in finished)
                for parts in group_shards(left, together):
                    # absolute: a reused worker process may have another working folder
                    yield parts, exp.seed, exp.plugins, types, str(shards_dir.absolute())

            def on_result(result: dict[str, Any]) -> None:
                nonlocal fresh_games, play_peak
                fresh_games += result["games"]
                if result.get("peak_mib") is not None:
                    play_peak = max(play_peak or 0.0, result["peak_mib"])
                if progress:
                    progress.advance(result["arm"], result["games"])

            if exp.target_ci > 0:  # waves of shards until the headline intervals are narrow enough
                played, precision = play_to_target(
                    exp, size, shards_dir, tasks_for, on_result, jobs, backend, scheduler, timeout
                )
            else:
                with closing(_execute(tasks_for(plan(exp, size)), jobs, backend, scheduler, timeout)) as results:
                    for result in results:
                        on_result(result)
            try:
                kept = played
                records = merge(run_dir, lambda kept=kept: plan(exp, size, kept))
                break
            except BadShard as bad:
                if attempt == MERGE_ATTEMPTS:
                    raise RunError(
                        f"{run_dir}: shard {bad} again after {MERGE_ATTEMPTS} replays; check the disk"
                    ) from None
                notify(f"shard {bad.name} is damaged ({bad.reason}); playing it again")
                shutil.rmtree(shards_dir / bad.name, ignore_errors=True)
                done = _done_names(shards_dir)
    except KeyboardInterrupt as exc:
        signum = getattr(exc, "signum", signal.SIGINT)
        why = "Ctrl-C (SIGINT)" if signum == signal.SIGINT else signal.Signals(signum).name
        raise stopped("interrupted", why, f"interrupted by {why}", 128 + signum) from None
    except Exception as exc:
        if type(exc).__name__ not in WORKER_DEATHS:
            _mark(run_dir, meta, "failed", _one_line(exc))
            raise
        if _received:  # the signal that stopped the run reached a worker first
            why = signal.Signals(_received[-1]).name
            raise stopped("interrupted", why, f"interrupted by {why}", signal_code()) from None
        exited = re.search(r"EXIT\((-?\d+)\)", str(exc))
        if exited:  # the worker ended its own process: a strategy or plugin did, and would again
            why = f"a worker process exited by itself (exit code {exited[1]}) while playing a shard"
            raise stopped("failed", why, f"{why} (a strategy or plugin may call os._exit)", 3, "fix it and ") from None
        why = f"a worker died ({type(exc).__name__})"
        raise stopped("interrupted", why, why, 3) from None
    elapsed = time.perf_counter() - start
    meta.update(
        {
            "status": "complete",
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
            "wall_time_s": round(elapsed + meta.get("wall_time_s", 0.0), 3),
            "games_per_arm": played,
            "games": played * len(exp.arms),
            "games_this_session": fresh_games,
            "games_per_s": round(fresh_games / elapsed, 1) if elapsed > 0 else None,
            "play_peak_mib": play_peak,
            "jobs": jobs or os.cpu_count(),
            "backend": backend,
            "versions": versions(),
            "frames": records,
        }
    )
    meta.pop("error", None)
    if precision is not None:
        meta["precision"] = precision
        if played < exp.games:
            notify(
                f"precision target ±{exp.target_ci:g} reached after {played:,} of at most {exp.games:,} games per arm "
                f"(largest half-width {precision['reached']:.4g}: {precision['widest']})"
            )
    try:
        rf.write_json_atomic(run_dir / rf.META, meta)
    except OSError as exc:
        raise RunError(f"{run_dir}: cannot write {rf.META}: {exc.strerror or exc}; run again with --resume") from None
    shutil.rmtree(shards_dir, ignore_errors=True)
    return meta


def play_to_target(
    exp: Experiment,
    size: int,
    shards_dir: Path,
    tasks_for: Callable[[Iterable[Shard]], Iterator[tuple]],
    on_result: Callable[[dict[str, Any]], None],
    jobs: int | None,
    backend: str,
    scheduler: str | None,
    timeout: float | None = None,
) -> tuple[int, dict[str, Any]]:
    """Play ranges of ``size`` games (every arm's shard of the range) until every headline interval's half-width
    is within ``exp.target_ci`` (``stats.Precision``) or the ``games`` run out; returns the games per
    arm kept and the precision reached. The target is checked after each range in game order, so where the run
    stops depends only on the experiment and the shard size, never on --jobs; a wave plays several ranges at once
    (enough shards for the jobs), and shards past the stopping point are left out of the results."""
    from .stats import Precision, indicators

    ranges = -(-exp.games // size)
    labels = {arm.index: list(dict.fromkeys(arm.strategies)) for arm in exp.arms}
    names = {arm.index: arm.name for arm in exp.arms}
    reference = next(arm.index for arm in exp.arms if arm.name == exp.reference)
    tracker = Precision(names, labels, reference)
    every = list(dict.fromkeys(s for ss in labels.values() for s in ss))
    width = max(1, -(-(jobs or os.cpu_count() or 1) // len(exp.arms)))
    kept = 0
    reached, widest = np.nan, ""
    while kept < ranges:
        wave = range(kept, min(kept + width, ranges))
        shards = [Shard(arm.index, r * size, min((r + 1) * size, exp.games)) for r in wave for arm in exp.arms]
        with closing(_execute(tasks_for(shards), jobs, backend, scheduler, timeout)) as results:
            for result in results:
                on_result(result)
        for r in wave:
            first, last = r * size, min((r + 1) * size, exp.games)
            tables = {
                arm.index: pl.read_parquet(
                    shards_dir / Shard(arm.index, first, last).name / "games.parquet",
                    columns=["game", "crashed", "end_round", "winner_strategy"],
                ).select(indicators(every))
                for arm in exp.arms
            }
            tracker.add(tables)
            kept = r + 1
            reached, widest = tracker.reached()
            if reached <= exp.target_ci:
                break
        if reached <= exp.target_ci:
            break
    played = min(kept * size, exp.games)
    precision = {
        "target": exp.target_ci,
        "reached": round(float(reached), 6),
        "widest": widest,
        "games_per_arm": played,
        "max_games_per_arm": exp.games,
        "stopped": "target reached" if reached <= exp.target_ci else "games exhausted",
    }
    return played, precision


def calibrate_arms(
    exp: Experiment, run_dir: Path, meta: dict[str, Any], cache: Path, jobs: int | None, timeout: float | None
) -> dict[int, Any]:
    """Each arm's calibrated values (None: not calibrated), fitted once for all its shards (or read from ``cache``) and
    recorded in run.json as the arm's ``calibration``. The pilot is played where a shard is (``Pool``): a
    plugin's strategy that ends its process or hangs (``timeout``) fails the run, not the caller. The pilots not in
    the cache are all submitted at once (a sweep's arms and their reference play on every worker)."""
    engine = engine_digest()
    todo = {
        k: a for arm in exp.arms for k, a in calibration.needed(exp, arm, engine) if not calibration.cached(cache, k)
    }
    ahead = submit_pilots(exp, todo, jobs, timeout) if len(todo) > 1 else {}

    def play(exp: Experiment, arm: Arm) -> dict[str, Any]:
        return play_pilot(exp, arm, jobs, timeout, ahead.get(calibration.key(exp, arm, engine)))

    values: dict[int, Any] = {}
    for arm, arm_meta in zip(exp.arms, meta["arms"], strict=True):
        try:
            record = calibration.calibrate(exp, arm, cache, engine, play)
        except OSError as exc:
            raise RunError(f"cannot write the calibration in {cache}: {exc.strerror or exc}") from None
        values[arm.index] = None if record is None else record["coefficients"]
        if record is not None:
            arm_meta["calibration"] = record
    if any(v is not None for v in values.values()):
        rf.write_json_atomic(run_dir / rf.META, meta)
    return values


def submit_pilots(exp: Experiment, todo: dict[str, Arm], jobs: int | None, timeout: float | None) -> dict[str, Any]:
    """The pilots ``todo`` (key -> arm) submitted to the run's workers, if it has any: key -> future. On a cold
    kernel cache the first pilot plays alone, so that one worker compiles the kernels and the others load them."""
    from concurrent.futures import wait

    pool = Pool(jobs, exp.plugins, timeout)
    if not pool.workers:
        return {}
    ahead, todo = {}, dict(todo)
    marker = _cold_kernels(calibration.games(exp), pool.workers)
    if marker is not None and todo:
        key = next(iter(todo))
        first = ahead[key] = pool.submit(_pilot, exp, todo.pop(key))
        wait([first], timeout=timeout)  # a failure or a timeout is raised where the pilot's values are asked for
        if first.done() and first.exception() is None:
            _touch(marker)
    return ahead | {k: pool.submit(_pilot, exp, arm) for k, arm in todo.items()}


def play_pilot(
    exp: Experiment, arm: Arm, jobs: int | None, timeout: float | None, future: Any = None
) -> dict[str, Any]:
    """``calibration.pilot`` of ``arm`` on the run's ``Pool`` (``future``: already submitted to its workers)."""
    pool = Pool(jobs, exp.plugins, timeout)
    if pool.here:
        return _pilot(exp, arm)
    future = future or pool.submit(_pilot, exp, arm)
    try:
        return future.result(timeout=timeout)
    except TimeoutError:
        pool.kill()
        raise WorkerFailed(f"the calibration pilot of arm {arm.name!r} exceeded --timeout {timeout:g} s") from None


def _pilot(exp: Experiment, arm: Arm) -> dict[str, Any]:
    _exit_if_orphaned()
    for spec in exp.plugins:
        load_plugin(spec)
    return calibration.pilot(exp, arm)


def _mark(run_dir: Path, meta: dict[str, Any], status: str, error: str) -> None:
    """Record why the run stopped (best effort: the disk may be the reason)."""
    with suppress(OSError):
        rf.write_json_atomic(run_dir / rf.META, {**meta, "status": status, "error": error})


def prepare(
    run_dir: Path, exp: Experiment, resume: bool, shard_size: int, command: str, notify: Callable[[str], None]
) -> tuple[dict[str, Any] | None, int, dict[str, tuple[int, int]]]:
    """Decide what to do with the (locked) run folder: returns its metadata (None: start in place), the shard
    size to use and the verified finished shards (name -> (arm, games)). Refusals are RunErrors that name the
    command to use instead."""
    resume_cmd, fresh_cmd = _commands(command)
    afresh = f"start afresh with: {fresh_cmd} (moves this folder aside)"
    meta_path = run_dir / rf.META
    if not meta_path.exists():
        if _foreign(run_dir):
            raise RunError(f"{run_dir}: exists, is not empty and is not a run folder; choose another --out")
        return None, shard_size, {}
    try:
        meta = rf.read_meta(run_dir)
        if not isinstance(meta, dict):
            raise ValueError("not a table")
    except (OSError, ValueError) as exc:
        raise RunError(f"{run_dir}: {rf.META} is unreadable ({_one_line(exc)}); {afresh}") from None
    status = meta.get("status")
    if status == "complete":
        had = meta.get("games_per_arm")
        if meta.get("experiment_digest") != exp.digest() and isinstance(had, int) and _only_games_differ(exp, meta):
            if exp.games < had:
                raise RunError(
                    f"--games {exp.games:,}: {run_dir} holds a finished run of {had:,} games per arm; a run can be "
                    f"extended, not shortened (choose another --out for fewer games)"
                )
            if not resume:
                raise RunError(
                    f"{run_dir}: holds this experiment finished at {had:,} games per arm; pass --resume to extend it "
                    f"to {exp.games:,}: {resume_cmd}, or {afresh}"
                )
            return _extend(run_dir, exp, meta, afresh, notify)
        if meta.get("experiment_digest") != exp.digest():
            raise RunError(
                f"{run_dir}: holds a different experiment ({meta.get('name')!r}, digest "
                f"{meta.get('experiment_digest')}); choose another --out or {afresh}"
            )
        reason = rf.verify_frames(run_dir, meta)
        if reason:
            raise RunError(f"{run_dir}: the finished run is damaged ({reason}); {afresh}")
        if (run_dir / SHARDS).exists():  # the run stopped between writing run.json and removing its shards
            shutil.rmtree(run_dir / SHARDS, ignore_errors=True)
        if meta.get("engine_digest", engine_digest()) != engine_digest():
            notify(f"{run_dir}: these results were played by another version of the engine; {afresh} to replay")
        return meta, meta.get("shard_size") or shard_size, {}

    size = meta.get("shard_size")
    size = size if isinstance(size, int) and 1 <= size <= MAX_GAMES else shard_size
    done = _verified(run_dir / SHARDS, notify)
    stopped = f"{status}: {meta['error']}" if meta.get("error") else str(status)
    if not done:  # nothing computed is at stake: start again in place
        if meta.get("experiment_digest") != exp.digest():
            notify(f"{run_dir}: the previous run ({stopped}) finished no shard; starting again in this folder")
        return None, shard_size, {}
    total = n_shards(exp, size)
    if not resume:
        what = "this experiment" if meta.get("experiment_digest") == exp.digest() else "a changed experiment"
        raise RunError(
            f"{run_dir}: holds an unfinished run of {what} ({stopped}; {len(done)} of {total} shards done); "
            f"pass --resume to finish it: {resume_cmd}, or {afresh}"
        )
    if meta.get("engine_digest") != engine_digest():
        raise RunError(
            f"{run_dir}: its {len(done)} finished shards were played by another version of the engine (sim/ or "
            f"strategies/ changed since this run began: {meta.get('engine_digest') or 'unrecorded'}, now "
            f"{engine_digest()}) and cannot be mixed with this one's; {afresh}"
        )
    types = param_types(exp)
    keys = {arm.index: shard_key(exp, arm, types) for arm in exp.arms}
    stale = [name for name, m in done.items() if not _fits(m, keys, size, exp.games)]
    if stale:
        raise RunError(
            f"{run_dir}: the experiment changed since this run began and {len(stale)} of its {len(done)} finished "
            f"shards would differ (e.g. {sorted(stale)[0]}); {afresh}"
        )
    if meta.get("experiment_digest") != exp.digest():
        notify(
            f"{run_dir}: the experiment changed since this run began, but its {len(done)} finished shards are "
            f"unaffected: resuming ({total - len(done)} of {total} shards to play)"
        )
    return meta, size, {name: (m["arm"], m["last"] - m["first"]) for name, m in done.items()}


def _only_games_differ(exp: Experiment, meta: dict[str, Any]) -> bool:
    """Is the finished run in ``meta`` this experiment but for its number of games per arm (no precision target)?"""
    if exp.target_ci or meta.get("target_ci"):
        return False
    same = dataclasses.replace(exp, data={**exp.data, "games": meta["games_per_arm"]})
    return same.digest() == meta.get("experiment_digest")


def _extend(
    run_dir: Path, exp: Experiment, meta: dict[str, Any], afresh: str, notify: Callable[[str], None]
) -> tuple[dict[str, Any], int, dict[str, tuple[int, int]]]:
    """Turn a finished run into an unfinished one of ``exp.games`` games per arm: every whole shard of its games is
    written back from the merged frames (verified first) into ``shards/``, so that only the new games are played and
    the merge rewrites the frames and their checksums as a run of ``exp.games`` would. A last shard cut short by the
    old number of games is played again whole (the same games, the same rows)."""
    reason = rf.verify_frames(run_dir, meta)
    if reason:
        raise RunError(f"{run_dir}: the finished run is damaged ({reason}); {afresh}")
    if meta.get("engine_digest") != engine_digest():
        raise RunError(
            f"{run_dir}: was played by another version of the engine; its games cannot be mixed with new ones; {afresh}"
        )
    had, size = meta["games_per_arm"], meta.get("shard_size") or exp.shard_size
    pilot = exp.calibration_games
    fits = [arm.get("calibration") or {} for arm in meta["arms"]]
    piloted = any(fit.get("games") or fit.get("reference") for fit in fits)  # not only anchored defaults
    if exp.calibrate and piloted and min(pilot, had) != min(pilot, exp.games):  # capped by games: another fit
        raise RunError(
            f"{run_dir}: its calibration pilot played {min(pilot, had):,} games (calibration_games is capped by "
            f"games); at {exp.games:,} games it would play {min(pilot, exp.games):,} and fit other values, so its "
            f"games cannot be mixed with new ones: set calibration_games = {min(pilot, had)} in the experiment, or "
            f"{afresh}"
        )
    check_writes(run_dir)  # before its shards are written back
    types = param_types(exp)
    shards_dir = run_dir / SHARDS
    done: dict[str, tuple[int, int]] = {}
    try:
        rf.make_dir(run_dir, SHARDS)
        for arm in exp.arms:
            key = shard_key(exp, arm, types)
            for first in range(0, had - had % size, size):
                shard = Shard(arm.index, first, first + size)
                where = (pl.col("arm_index") == arm.index) & pl.col("game").is_between(first, shard.last - 1)
                frames = {f: pl.scan_parquet(rf.frame_path(run_dir, f)).filter(where).collect() for f in rf.FRAMES}
                write_shard(shards_dir, shard, frames, key)
                done[shard.name] = (arm.index, shard.games)
    except OSError as exc:
        raise RunError(f"{run_dir}: cannot write its shards back to extend it: {exc.strerror or exc}") from None
    notify(f"{run_dir}: extending the finished run from {had:,} to {exp.games:,} games per arm")
    return {**meta, "status": "extending"}, size, done


def _fits(manifest: dict[str, Any], keys: dict[int, str], size: int, games: int) -> bool:
    """Is this finished shard exactly a shard of the plan, with the key the experiment gives its arm?"""
    arm, first, last = manifest.get("arm"), manifest.get("first"), manifest.get("last")
    return (
        keys.get(arm) == manifest.get("key")
        and isinstance(first, int)
        and first % size == 0
        and first < games
        and last == min(first + size, games)
    )


def _verified(shards_dir: Path, notify: Callable[[str], None]) -> dict[str, dict[str, Any]]:
    """The finished shards whose files match their manifests; a damaged one is removed to be played again."""
    out: dict[str, dict[str, Any]] = {}
    damaged: list[tuple[str, str]] = []
    for path in _finished(shards_dir):
        reason = verify_shard(path)
        if reason:
            damaged.append((path.name, reason))
            shutil.rmtree(path, ignore_errors=True)
            continue
        out[path.name] = read_manifest(path)  # type: ignore[assignment]
    if len(damaged) > 3:
        name, reason = damaged[0]
        notify(f"{len(damaged)} shards are damaged (e.g. {name}: {reason}); they will be played again")
    else:
        for name, reason in damaged:
            notify(f"shard {name} is damaged ({reason}); it will be played again")
    return out


def _done_names(shards_dir: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for path in _finished(shards_dir):
        m = read_manifest(path)
        if m is not None:
            out[path.name] = (m["arm"], m["last"] - m["first"])
    return out


def worker_count(jobs: int | None, games: int) -> int:
    """The processes a loky run of ``games`` games left to play uses (one may be the run's own: ``Pool``): one per
    ``GAMES_PER_WORKER`` games (at least one), at most ``jobs`` (None: one per CPU)."""
    per_worker = int(os.environ.get("EASTINDIA_GAMES_PER_WORKER") or GAMES_PER_WORKER)
    return max(1, min(jobs or os.cpu_count() or 1, -(-games // max(per_worker, 1))))


def games_left(exp: Experiment, done: dict[str, tuple[int, int]], cache: Path) -> int:
    """The games a run has left to play: its arms' games not in a finished shard, and its pilots not cached."""
    engine = engine_digest()
    pilots = {
        k for arm in exp.arms for k, _ in calibration.needed(exp, arm, engine) if not calibration.cached(cache, k)
    }
    return exp.games * len(exp.arms) - sum(games for _, games in done.values()) + len(pilots) * calibration.games(exp)


def _finished(shards_dir: Path) -> list[Path]:
    if not shards_dir.is_dir():
        return []
    return sorted(p for p in shards_dir.iterdir() if p.is_dir() and not p.name.startswith("."))


def _count_finished(shards_dir: Path) -> int:
    return len(_finished(shards_dir))


def _execute(
    tasks: Iterable[tuple], jobs: int | None, backend: str, scheduler: str | None, timeout: float | None = None
) -> Iterable[dict[str, Any]]:
    """Results of every shard of the tasks (``play_shards``), as they finish (tasks are consumed lazily)."""
    tasks = iter(tasks)
    first = next(tasks, None)
    if first is None:
        return
    tasks = _chain(first, tasks)
    n_jobs = jobs or os.cpu_count() or 1
    if backend == "loky":
        for results in _execute_loky(tasks, n_jobs, timeout):
            yield from results
        return
    from joblib import Parallel, delayed, parallel_config

    client_ctx: Any = nullcontext()
    if backend == "dask":
        from dask.distributed import Client

        try:
            client_ctx = (
                Client(scheduler, timeout="20s")
                if scheduler
                else Client(processes=True, n_workers=n_jobs, threads_per_worker=1)
            )
        except (OSError, TimeoutError, ValueError) as exc:
            raise RunError(f"--scheduler {scheduler}: cannot reach the dask scheduler: {_one_line(exc)}") from None
        n_jobs = -1
    elif backend == "ray":
        import ray
        from ray.util.joblib import register_ray

        register_ray()
        try:
            ray.init(address=scheduler or None, ignore_reinit_error=True)
        except (ConnectionError, ValueError, RuntimeError) as exc:
            raise RunError(f"--scheduler {scheduler}: cannot reach Ray: {_one_line(exc)}") from None
    with client_ctx, parallel_config(backend=backend, n_jobs=n_jobs):
        parallel = Parallel(return_as="generator_unordered", timeout=timeout)
        try:
            for results in parallel(delayed(play_shards)(*task) for task in tasks):
                yield from results
        except TimeoutError:
            raise WorkerFailed(
                f"a shard exceeded --timeout {timeout:g} s (a strategy may hang); --resume retries it"
            ) from None


def _cold_kernels(games: int, n_jobs: int) -> Path | None:
    """The marker to write once a first shard or pilot of ``games`` games has played alone
    (``sim.kernels.warm_marker``) when several workers would each compile the kernels at once: the kernels are on,
    the task is large enough to run them (``kernels.MIN_GAMES``), no run of this engine's files has compiled them
    into the cache yet and compiling them is due (``kernels.due``). None: play as usual."""
    if n_jobs < 2 or not kernels.ENABLED or games < kernels.MIN_GAMES:
        return None
    marker = kernels.engine_marker()
    return None if marker.exists() or not kernels.due() else marker


def _touch(marker: Path) -> None:
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:  # an unwritable cache: the kernels were compiled in memory, and will be again
        pass


class Pool:
    """The processes that play a run's shards and pilots: ``jobs`` loky workers (None: one per CPU), or the run's own
    process (``here``) on one job when every strategy is this package's (no plugin, which could end or hang its
    process) and there is no timeout. A worker costs about 1.5-2 CPU-seconds before its first game (the interpreter,
    the engine's imports, the kernels loaded again), so a run that would start one starts none. A plugin's run plays
    in workers, even one: a strategy that ends its process (``os._exit``) or hangs then fails the run instead of
    ending or freezing it. The games are the same bytes wherever they are played. On two jobs or more the run's own
    process does not play beside the workers: measured, it saved no CPU time and cost a tenth of the wall time (the
    workers' next shards waited for its own)."""

    def __init__(self, jobs: int | None, plugins: tuple[str, ...], timeout: float | None):
        n_jobs = jobs or os.cpu_count() or 1
        self.here = n_jobs == 1 and not plugins and timeout is None
        self.workers = 0 if self.here else n_jobs

    def _executor(self) -> Any:
        """loky's reusable executor of the run's workers (the same one at every call: the same arguments)."""
        from joblib.externals.loky import get_reusable_executor

        return get_reusable_executor(
            max_workers=self.workers, timeout=300, initializer=_worker_init, initargs=(os.getpid(),)
        )

    def submit(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` submitted to the workers (started at the first submission)."""
        return self._executor().submit(fn, *args)

    def kill(self) -> None:
        """Kill the workers, whatever they are playing (none: nothing to do)."""
        if self.workers:
            self._executor().shutdown(wait=True, kill_workers=True)


def _execute_loky(tasks: Iterator[tuple], n_jobs: int, timeout: float | None) -> Iterator[list[dict[str, Any]]]:
    """Play the tasks (``play_shards``) on a ``Pool`` and yield each one's results: in this process one after the
    other, or at most one task per worker at a time (so each task's clock starts when a worker takes it). Whatever
    stops the run early (an error, a timeout, a signal, the caller closing the generator) kills the workers before it
    returns: no shard is written after the run has stopped."""
    from concurrent.futures import FIRST_COMPLETED, wait

    running: dict[Any, tuple[str, float]] = {}  # per task running: its shards' names and when it started
    finished = False
    first = next(tasks, None)
    pool = Pool(n_jobs, () if first is None else first[2], timeout)
    tasks = _chain(first, tasks) if first is not None else tasks
    if pool.here:
        for task in tasks:
            yield play_shards(*task)
        return
    try:
        marker = _cold_kernels(0 if first is None else sum(p.shard.games for p in first[0]), n_jobs)
        limit = 1 if marker is not None else n_jobs  # compiles once, in one worker: the others then load it
        if timeout is not None:  # the workers start (and import the engine) before any shard's clock starts
            wait([pool.submit(_exit_if_orphaned) for _ in range(n_jobs)])
        while True:
            while len(running) < limit and (task := next(tasks, None)) is not None:
                running[pool.submit(play_shards, *task)] = (shard_names(task[0]), time.monotonic())
            if not running:
                break
            left = None if timeout is None else min(t for _, t in running.values()) + timeout - time.monotonic()
            done, _ = wait(running, timeout=None if left is None else max(left, 0), return_when=FIRST_COMPLETED)
            for future in done:
                del running[future]
                result = future.result()
                if marker is not None:  # the first shard compiled the kernels into the cache: all workers now
                    _touch(marker)
                    marker, limit = None, n_jobs
                yield result
            late = [s for s, t in running.values() if timeout is not None and time.monotonic() - t > timeout]
            if late:
                raise WorkerFailed(
                    f"shard {late[0]} exceeded --timeout {timeout:g} s (a strategy may hang); --resume retries it"
                )
        finished = True
    finally:
        if not finished:
            pool.kill()


# ----------------------------------------------------------------------------------- signals, orphaned workers
_OWNER: int | None = None  # in a worker: the pid of the run that started it
_received: list[int] = []  # the signals caught by ``catch_signals`` (most recent last)


@contextmanager
def catch_signals() -> Iterator[None]:
    """While active (in the main thread), SIGINT and SIGTERM raise ``Signalled`` there, so a run stops cleanly:
    its workers killed, run.json marked interrupted, exit code 128 + the signal's number. SIGINT is caught even
    when the process started with it ignored (as a shell starts a background job). A second signal while the run
    cleans up has its default effect (ends the process at once)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        _received.append(signum)
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        raise Signalled(signum)

    _received.clear()
    old = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, action in old.items():
            signal.signal(sig, action)


def signal_code() -> int:
    """The exit code of a run stopped by a signal: 128 + the last one caught (SIGINT when none was)."""
    return 128 + (_received[-1] if _received else signal.SIGINT)


@contextmanager
def exits_refused() -> Iterator[None]:
    """While active, ``os._exit`` raises SystemExit instead of ending this process: a plugin that calls it when
    imported is then one error line (a PluginError) rather than a silent exit code 0. A process forked from this
    one exits as usual."""
    real, pid = os._exit, os.getpid()

    def refuse(code: int) -> None:
        if os.getpid() != pid:
            real(code)
        raise SystemExit(f"os._exit({code}) called; a plugin may not end the process")

    os._exit = refuse  # type: ignore[assignment]
    try:
        yield
    finally:
        os._exit = real


def _worker_init(owner: int) -> None:
    """Set up a loky worker of the run ``owner``: it leaves SIGINT to the run (which stops it), and it dies with
    the run — at once on Linux (``PR_SET_PDEATHSIG``), else within half a second (a watchdog thread) — and never
    renames a finished shard into place once the run is gone (``_exit_if_orphaned``)."""
    global _OWNER
    _OWNER = owner
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        with suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    threading.Thread(target=_watch_owner, daemon=True, name="eastindia-owner").start()
    _exit_if_orphaned()


def _watch_owner() -> None:
    while True:
        _exit_if_orphaned()
        time.sleep(0.5)


def _exit_if_orphaned() -> None:
    """In a worker whose run has died (its parent changed), end the worker at once, writing nothing more."""
    if _OWNER is not None and os.getppid() != _OWNER:
        os._exit(1)


def _chain(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest


def default_out(exp: Experiment) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in exp.name)
    safe = re.sub("_{2,}", "_", safe).strip("_").lstrip(".") or "run"
    return Path("runs") / safe


__all__ = ["Interrupted", "RunError", "Shard", "ShardFailed", "default_out", "merge", "plan", "play_shard", "run"]
