"""Small run folders for the reports tests, written exactly per ``experiments/runfolder.py``.

Plays real games with ``sim.play`` for each arm (common random numbers: every arm uses the same seed and game
ids), rotates the strategies over the seats in blocks of games, adds the run-folder columns and writes
run.json, experiment.toml and the four Parquet frames.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import polars as pl

import sim
from experiments.runfolder import EXPERIMENT, FRAMES, META, SORT_KEYS, file_sha256, frame_path

STRATEGIES = ["balanced", "random", "balanced", "random", "balanced"]


def arm_name(params: dict[str, Any]) -> str:
    return ", ".join(f"{key}={value}" for key, value in params.items())


def grid(**values: list[Any]) -> list[dict[str, Any]]:
    """Every combination of the dotted keys' values (keys given with ``__`` for ``.``), first key slowest."""
    keys = [key.replace("__", ".") for key in values]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*values.values())]


def play_arm(
    params: dict[str, Any], strategies: list[str], games: int, seed: int, rotations: int
) -> list[tuple[int, sim.Results]]:
    """One arm's games in ``rotations`` contiguous blocks; block r seats strategy ``strategies[(s + r) % N]``."""
    rules = sim.Rules.default(len(strategies)).with_overrides(params)
    bounds = [games * r // rotations for r in range(rotations + 1)]
    parts = []
    for r in range(rotations):
        seats = strategies[r:] + strategies[:r]
        res = sim.play(rules, seats, bounds[r + 1] - bounds[r], seed, first_game=bounds[r])
        parts.append((r, res))
    return parts


def make_run(
    run_dir: Path,
    arms: list[dict[str, Any]],
    games: int = 200,
    seed: int = 11,
    strategies: list[str] | None = None,
    rotate: bool = True,
    rotations: int | None = None,
    name: str = "reports-test",
) -> Path:
    """Write a complete run folder with one arm per params dict and return its path. With ``rotate``, the games
    are split into ``rotations`` blocks (default: one per seat), block r seating the strategies shifted by r."""
    strategies = list(strategies or STRATEGIES)
    players = len(strategies)
    rotations = (rotations or players) if rotate else 1
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    param_keys = list(dict.fromkeys(key for params in arms for key in params))
    frames: dict[str, list[pl.DataFrame]] = {frame: [] for frame in FRAMES}
    meta_arms = []
    for index, params in enumerate(arms):
        name_ = arm_name(params) or f"arm {index}"
        extra = [pl.lit(name_).alias("arm"), pl.lit(index, pl.Int32).alias("arm_index")]
        extra += [pl.lit(params.get(key)).alias(key) for key in param_keys]
        for rotation, res in play_arm(params, strategies, games, seed, rotations):
            for frame in FRAMES:
                df = getattr(res, frame).with_columns(*extra, pl.lit(rotation, pl.Int32).alias("rotation"))
                frames[frame].append(df)
        meta_arms.append(
            {
                "arm": name_,
                "index": index,
                "params": params,
                "overrides": dict(params),
                "rules_file": None,
                "rules_digest": sim.Rules.default(players).with_overrides(params).digest(),
                "strategies": strategies,
                "rotate": rotate,
                "rotations": rotations,
            }
        )
    for frame in FRAMES:
        pl.concat(frames[frame]).sort(SORT_KEYS[frame]).write_parquet(frame_path(run_dir, frame))
    meta = {
        "name": name,
        "command": f"eastindia run {name}.toml",
        "seed": seed,
        "players": players,
        "games_per_arm": games,
        "shard_size": games,
        "status": "complete",
        "started": "2026-01-01T00:00:00",
        "finished": "2026-01-01T00:00:05",
        "wall_time_s": 5.0,
        "games_per_s": games * len(arms) / 5.0,
        "versions": {"python": "3", "eastindia": "0.1.0"},
        "experiment_digest": "test",
        "param_keys": param_keys,
        "arms": meta_arms,
    }
    (run_dir / META).write_text(json.dumps(meta, indent=2), encoding="utf-8")
    sweep = "\n".join(f'"{key}" = {json.dumps(sorted({a[key] for a in arms}))}' for key in param_keys)
    (run_dir / EXPERIMENT).write_text(
        f'name = "{name}"\nseed = {seed}\nplayers = {players}\ngames_per_arm = {games}\n'
        f"strategies = {json.dumps(strategies)}\nrotate = {str(rotate).lower()}\n\n[sweep]\n{sweep}\n",
        encoding="utf-8",
    )
    return run_dir


def record_checksums(run_dir: Path) -> Path:
    """Record each frame's rows, size and SHA-256 in run.json, as a finished ``eastindia run`` does."""
    meta = json.loads((run_dir / META).read_text(encoding="utf-8"))
    meta["frames"] = {}
    for frame in FRAMES:
        size, digest = file_sha256(frame_path(run_dir, frame))
        rows = pl.scan_parquet(frame_path(run_dir, frame)).select(pl.len()).collect().item()
        meta["frames"][frame] = {"rows": rows, "bytes": size, "sha256": digest}
    (run_dir / META).write_text(json.dumps(meta, indent=2), encoding="utf-8")
    return run_dir


def change_one_value(run_dir: Path, frame: str = "games", column: str = "end_round") -> None:
    """Rewrite a frame with one value of ``column`` changed (in its first row): still valid Parquet, read without
    complaint, but no longer the file the run wrote."""
    path = frame_path(run_dir, frame)
    df = pl.read_parquet(path)
    first = pl.int_range(pl.len()) == 0
    df.with_columns(pl.when(first).then(pl.col(column) + 1).otherwise(pl.col(column)).alias(column)).write_parquet(path)
