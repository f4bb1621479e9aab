"""The run folder: what ``eastindia run`` writes and ``eastindia report`` reads.

::

    RUN_DIR/
      experiment.toml      the fully resolved experiment (every default spelled out)
      run.json             metadata (see ``RunMeta``): arms and their parameters, seed, versions, timings, status
      games.parquet        the engine's frames, all arms, one schema; extra columns:
      seats.parquet          arm (str), arm_index (int), rotation (int: which seat rotation the game used),
      rounds.parquet         and one column per swept/listed parameter, named by its dotted rules key
      seat_rounds.parquet    (e.g. "capital.formula"); rows sorted by arm_index, game (, round) (, seat)
      shards/              finished shards (one folder each) until the merge; kept for --resume
      charts/*.png, report.html, summary.md   written by reports/

``run.json`` keys: name, command, seed, players, games_per_arm, shard_size, status ("running" | "complete"),
started, finished, wall_time_s, games_per_s, versions{python, eastindia, numpy, polars, pyarrow, joblib},
experiment_digest, param_keys[list of dotted keys], arms[list of {arm, index, params{key: value},
overrides{dotted key: value} (every rules override of the arm, base + params; applied to
Rules.default(players) or to rules_file), rules_file (str | null), rules_digest, strategies[list], rotate (bool),
rotations (int)}].
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

FRAMES = ("games", "seats", "rounds", "seat_rounds")
SORT_KEYS = {
    "games": ["arm_index", "game"],
    "seats": ["arm_index", "game", "seat"],
    "rounds": ["arm_index", "game", "round"],
    "seat_rounds": ["arm_index", "game", "round", "seat"],
}
META = "run.json"
EXPERIMENT = "experiment.toml"


def frame_path(run_dir: Path, frame: str) -> Path:
    return Path(run_dir) / f"{frame}.parquet"


def read_meta(run_dir: Path) -> dict[str, Any]:
    return json.loads((Path(run_dir) / META).read_text(encoding="utf-8"))


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")  # keeps the params' order
    tmp.replace(path)


@dataclass
class Run:
    """A finished run folder: metadata and lazy frames."""

    path: Path
    meta: dict[str, Any]

    @classmethod
    def open(cls, run_dir: str | Path) -> Run:
        run_dir = Path(run_dir)
        if not (run_dir / META).exists():
            raise FileNotFoundError(f"{run_dir}: not a run folder (no {META})")
        return cls(run_dir, read_meta(run_dir))

    def scan(self, frame: str) -> pl.LazyFrame:
        return pl.scan_parquet(frame_path(self.path, frame))

    def frame(self, frame: str, columns: list[str] | None = None) -> pl.DataFrame:
        lf = self.scan(frame)
        return (lf.select(columns) if columns else lf).collect()

    @property
    def arms(self) -> list[dict[str, Any]]:
        return self.meta["arms"]

    @property
    def param_keys(self) -> list[str]:
        return self.meta.get("param_keys", [])
