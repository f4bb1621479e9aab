"""Run an experiment: shards of fixed game ranges, played by joblib workers, streamed to Parquet.

Each shard (arm, games first..last-1) is played and written to its own folder under ``RUN_DIR/shards`` atomically
(a temporary folder renamed into place), so an interrupted run keeps every finished shard and ``resume`` plays only
the missing ones. When all shards exist they are merged, one shard at a time, into one Parquet file per frame with
row groups of a fixed size: the merged bytes depend only on the rows, never on the number of jobs or the shard
size, and memory stays bounded by one shard plus one row group however many games the run has.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import shutil
import time
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

import strategies as registry
from sim.engine import play_batch
from sim.results import Results

from . import runfolder as rf
from .spec import Arm, Experiment, load_plugin

ROW_GROUP = 65_536
SHARDS = "shards"
PACKAGES = ("eastindia", "numpy", "polars", "pyarrow", "joblib")


class RunError(ValueError):
    """A user error about the run folder (exit code 2)."""


class Interrupted(RuntimeError):
    """The run stopped early (Ctrl-C or a lost worker); finished shards are kept."""

    def __init__(self, message: str, done: int, total: int):
        super().__init__(message)
        self.done, self.total = done, total


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


def plan(exp: Experiment, shard_size: int | None = None) -> list[Shard]:
    size = shard_size or exp.shard_size
    return [
        Shard(arm.index, first, min(first + size, exp.games)) for arm in exp.arms for first in range(0, exp.games, size)
    ]


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


# ------------------------------------------------------------------------------------------------- one shard
def play_shard(
    arm: Arm, shard: Shard, seed: int, plugins: tuple[str, ...], types: dict[str, pl.DataType], shards_dir: str
) -> dict[str, Any]:
    """Play one shard and write its four frames atomically. Runs in a worker process."""
    for spec in plugins:
        load_plugin(spec)
    start = time.perf_counter()
    rules = arm.rules()
    ids = np.arange(shard.first, shard.last, dtype=np.int64)
    names, seating = arm.seating(ids)
    _, rows = play_batch(rules, [registry.make(name) for name in names], seed, ids, seating)
    frames = Results.from_batches([rows], {}).frames()
    extra = [
        pl.lit(arm.name, dtype=pl.Utf8).alias("arm"),
        pl.lit(arm.index, dtype=pl.Int32).alias("arm_index"),
        (pl.col("game") % arm.rotations).cast(pl.Int32).alias("rotation"),
        *(pl.lit(_param_value(arm.params[k], t), dtype=t).alias(k) for k, t in types.items()),
    ]
    final = Path(shards_dir) / shard.name
    tmp = Path(shards_dir) / f".{shard.name}.tmp-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    for name, df in frames.items():
        df = df.with_columns(extra).sort(rf.SORT_KEYS[name])
        df.write_parquet(tmp / f"{name}.parquet", compression="zstd", statistics=True)
    tmp.rename(final)
    return {"arm": arm.index, "games": shard.games, "seconds": time.perf_counter() - start}


# ---------------------------------------------------------------------------------------------------- merging
def merge(run_dir: Path, shards: list[Shard]) -> None:
    """Concatenate the shards in (arm, game) order into one Parquet file per frame, fixed-size row groups."""
    shards_dir = run_dir / SHARDS
    for frame in rf.FRAMES:
        target = rf.frame_path(run_dir, frame)
        tmp = target.with_name(f".{target.name}.tmp")
        writer: pq.ParquetWriter | None = None
        pending: list[pa.Table] = []
        rows = 0

        for shard in shards:
            table = pq.read_table(shards_dir / shard.name / f"{frame}.parquet")
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema, compression="zstd", write_statistics=True)
            pending.append(table)
            rows += table.num_rows
            while rows >= ROW_GROUP:
                joined = pa.concat_tables(pending)
                writer.write_table(joined.slice(0, ROW_GROUP).combine_chunks(), row_group_size=ROW_GROUP)
                rest = joined.slice(ROW_GROUP)
                pending, rows = [rest], rest.num_rows
        if writer is not None:
            if rows:
                writer.write_table(pa.concat_tables(pending).combine_chunks(), row_group_size=ROW_GROUP)
            writer.close()
            tmp.replace(target)


# ------------------------------------------------------------------------------------------------- the run
def versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def prepare(run_dir: Path, exp: Experiment, resume: bool) -> dict[str, Any] | None:
    """Check the output folder; returns the existing metadata of this experiment (None for a fresh folder)."""
    meta_path = run_dir / rf.META
    if meta_path.exists():
        meta = rf.read_meta(run_dir)
        if meta.get("experiment_digest") != exp.digest():
            raise RunError(
                f"{run_dir}: holds a different experiment ({meta.get('name')!r}, digest "
                f"{meta.get('experiment_digest')}); choose another --out"
            )
        if not resume and meta.get("status") != "complete":  # a finished run of the same experiment is reused
            raise RunError(f"{run_dir}: holds an unfinished run of this experiment; pass --resume to finish it")
        return meta
    if run_dir.exists() and any(run_dir.iterdir()):
        raise RunError(f"{run_dir}: exists, is not empty and is not a run folder; choose another --out")
    return None


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
) -> dict[str, Any]:
    """Play every missing shard, merge, and return the run's metadata (also written to run.json)."""
    run_dir = Path(run_dir)
    old = prepare(run_dir, exp, resume)
    shards_dir = run_dir / SHARDS
    shards_dir.mkdir(parents=True, exist_ok=True)
    for stale in shards_dir.glob(".*.tmp-*"):  # a shard a killed worker left half-written
        shutil.rmtree(stale, ignore_errors=True)
    shard_size = (old or {}).get("shard_size") or shard_size or exp.shard_size  # a resume keeps its shard plan
    shards = plan(exp, shard_size)
    meta = old or {
        "name": exp.name,
        "command": command,
        "seed": exp.seed,
        "players": exp.players,
        "games_per_arm": exp.games,
        "shard_size": shard_size,
        "experiment_digest": exp.digest(),
        "param_keys": list(exp.param_keys),
        "arms": [arm.meta() for arm in exp.arms],
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "status": "running",
    }
    if old is None:
        (run_dir / rf.EXPERIMENT).write_text(exp.resolved_toml(), encoding="utf-8")
        rf.write_json_atomic(run_dir / rf.META, meta)
    if meta.get("status") == "complete":
        return meta
    done = {p.name for p in _finished(shards_dir)}
    todo = [s for s in shards if s.name not in done]
    types = param_types(exp)
    start = time.perf_counter()
    total = sum(s.games for s in shards)
    if progress:
        on_disk: dict[int, int] = {}
        for s in shards:
            if s.name in done:
                on_disk[s.arm] = on_disk.get(s.arm, 0) + s.games
        progress.start(on_disk)
    tasks = [(exp.arms[s.arm], s, exp.seed, exp.plugins, types, str(shards_dir)) for s in todo]
    fresh = 0
    try:
        for result in _execute(tasks, jobs, backend, scheduler):
            fresh += result["games"]
            if progress:
                progress.advance(result["arm"], result["games"])
    except KeyboardInterrupt:
        finished = len(_finished(shards_dir))
        raise Interrupted(
            f"interrupted: {finished} of {len(shards)} shards are done and kept in {shards_dir}; "
            "run again with --resume to finish",
            finished,
            len(shards),
        ) from None
    except Exception as exc:  # a lost worker or cluster: keep what is done
        if type(exc).__name__ not in ("TerminatedWorkerError", "BrokenProcessPool", "CommClosedError", "KilledWorker"):
            raise
        finished = len(_finished(shards_dir))
        raise Interrupted(
            f"a worker died ({type(exc).__name__}): {finished} of {len(shards)} shards are done and kept; "
            "run again with --resume to finish",
            finished,
            len(shards),
        ) from None
    merge(run_dir, shards)
    shutil.rmtree(shards_dir)
    elapsed = time.perf_counter() - start
    meta.update(
        {
            "status": "complete",
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
            "wall_time_s": round(elapsed + (old or {}).get("wall_time_s", 0.0), 3),
            "games": total,
            "games_this_session": fresh,
            "games_per_s": round(fresh / elapsed, 1) if elapsed > 0 else None,
            "jobs": jobs or os.cpu_count(),
            "backend": backend,
            "versions": versions(),
        }
    )
    if command and not meta.get("command"):
        meta["command"] = command
    rf.write_json_atomic(run_dir / rf.META, meta)
    return meta


def _finished(shards_dir: Path) -> list[Path]:
    return [p for p in shards_dir.iterdir() if p.is_dir() and not p.name.startswith(".")]


def _execute(tasks: list[tuple], jobs: int | None, backend: str, scheduler: str | None) -> Iterable[dict[str, Any]]:
    """Results of play_shard for every task, as they finish."""
    if not tasks:
        return
    from joblib import Parallel, delayed, parallel_config

    n_jobs = jobs or os.cpu_count() or 1
    if backend == "loky" and n_jobs == 1:
        for task in tasks:
            yield play_shard(*task)
        return
    client_ctx: Any = nullcontext()
    if backend == "dask":
        from dask.distributed import Client

        client_ctx = Client(scheduler) if scheduler else Client(processes=True, n_workers=n_jobs, threads_per_worker=1)
        n_jobs = -1
    elif backend == "ray":
        import ray
        from ray.util.joblib import register_ray

        register_ray()
        ray.init(address=scheduler or None, ignore_reinit_error=True)
    elif backend != "loky":
        raise RunError(f"unknown backend {backend!r} (known: loky, dask, ray)")
    with client_ctx, parallel_config(backend=backend, n_jobs=n_jobs):
        parallel = Parallel(return_as="generator_unordered")
        yield from parallel(delayed(play_shard)(*task) for task in tasks)


def default_out(exp: Experiment) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in exp.name) or "run"
    return Path("runs") / safe


__all__ = ["Interrupted", "RunError", "Shard", "default_out", "merge", "plan", "play_shard", "run"]
