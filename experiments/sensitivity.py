"""``eastindia sensitivity FILE``: which rules values move the crash rate and each strategy's win rate most.

An experiment file with a ``[sensitivity]`` section::

    [sensitivity]
    method = "morris"                      # Morris screening (default), or "sobol" (variance-based, more points)
    metrics = ["crash_rate", "win_rate"]   # win_rate: each strategy's; also "mean_end_round", "win_spread"
    samples = 10                           # Morris: trajectories (points = samples x (keys + 1));
                                           # Sobol: base samples, a power of 2 (points = samples x (keys + 2))
    levels = 4                             # Morris: grid levels (even)
    seed = 1                               # the design's seed (default: the experiment's)
    resamples = 1000                       # bootstrap resamples of the intervals

    [sensitivity.params]
    "company.start_stability" = { low = 2, high = 6 }
    "capital.linear_rate" = { low = 0.0, high = 0.5 }
    "capital.formula" = { choices = ["inverse_share", "flat", "linear"] }

SALib draws the design (``SALib.sample.morris`` or ``SALib.sample.sobol``, seeded) on continuous variables, one per
key (``Param.unit_bounds``: an integer key or a list of choices gives every value an equal share); each distinct
point is one arm of ``games`` games played by the runner in one run folder (``points/``), every arm on the same
games and dice (common random numbers: a key that changes nothing gives exactly the same games, so its effects are
exactly zero, not noise). Each metric is analysed with ``SALib.analyze.morris`` (μ*, the mean absolute elementary
effect, with its bootstrap interval; σ, their spread: interactions or a curved response) or ``SALib.analyze.sobol``
(total-order index ST and first-order S1 with bootstrap intervals), and the keys are ranked by μ* or ST.

For Morris the effects are reported in the metric's own units: μ* × Δ is the mean absolute change of the metric when
the key alone moves by Δ of its range (Δ = levels / (2 (levels − 1)), 2/3 with 4 levels). The folder gets
``points.parquet`` (each point's values and metrics), ``design.parquet`` (the design's rows and their point),
``sensitivity.parquet`` (``metric, key, range, rank, index, estimate, lo, hi`` and the method's other numbers) and
the report (``report.html``, ``summary.md``, ``charts/sensitivity.png``).
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from sim.rules.schema import shown

from . import runner, search, tomlw
from .runner import RunError
from .search import Param
from .spec import MAX_SEED, Experiment, ExperimentError

SECTION = "sensitivity"
KEYS: dict[str, Any] = {"method": str, "metrics": list, "samples": int, "levels": int, "seed": int, "resamples": int}
METHODS = ("morris", "sobol")
DEFAULT_SAMPLES = {"morris": 10, "sobol": 64}
MAX_POINTS = 100_000
POINTS_DIR = "points"
POINTS = "points.parquet"
DESIGN = "design.parquet"
INDICES = "sensitivity.parquet"


@dataclass(frozen=True)
class SensitivitySpec:
    exp: Experiment
    method: str
    metrics: tuple[str, ...]  # as given: crash_rate, win_rate, mean_end_round, win_spread
    samples: int
    levels: int
    seed: int
    resamples: int
    params: tuple[Param, ...]

    @property
    def name(self) -> str:
        return self.exp.name

    @property
    def games(self) -> int:
        return self.exp.games

    def outputs(self) -> list[tuple[str, str | None]]:
        """(metric, strategy) of every output analysed: ``win_rate`` is each strategy's."""
        labels = list(dict.fromkeys(self.exp.arms[0].strategies))
        out: list[tuple[str, str | None]] = []
        for m in self.metrics:
            out += [(m, s) for s in labels] if m == "win_rate" else [(m, None)]
        return out

    def problem(self) -> dict[str, Any]:
        return {
            "num_vars": len(self.params),
            "names": [p.key for p in self.params],
            "bounds": [p.unit_bounds() for p in self.params],
        }

    def design(self) -> np.ndarray:
        """The design's rows (continuous variables, ``Param.unit_bounds``)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if self.method == "morris":
                from SALib.sample import morris

                return morris.sample(self.problem(), N=self.samples, num_levels=self.levels, seed=self.seed)
            from SALib.sample import sobol

            return sobol.sample(self.problem(), self.samples, calc_second_order=False, scramble=True, seed=self.seed)

    def points_expected(self) -> int:
        k = len(self.params)
        return self.samples * (k + 1) if self.method == "morris" else self.samples * (k + 2)

    @property
    def delta(self) -> float:
        """Morris's step as a share of a key's range."""
        return self.levels / (2 * (self.levels - 1))

    def section(self) -> dict[str, Any]:
        out: dict[str, Any] = {"method": self.method, "metrics": list(self.metrics), "samples": self.samples}
        if self.method == "morris":
            out["levels"] = self.levels
        out.update({"seed": self.seed, "resamples": self.resamples})
        out["params"] = {p.key: p.resolved() for p in self.params}
        return out

    def resolved_toml(self) -> str:
        return tomlw.dumps({**self.exp.data, SECTION: self.section()})

    def study_digest(self) -> str:
        return search.digest({"experiment": self.exp.digest(), "sensitivity": self.section()})


def load(path: str | Path, **changes: Any) -> SensitivitySpec:
    """Read a sensitivity file (``changes``: ``samples`` and the experiment's top-level keys from the command line);
    every problem is reported at once (``ExperimentError``)."""
    samples_option = changes.pop("samples", None)
    exp, table, path, problems = search.load_study_file(path, SECTION, changes)
    where = f"{path}: {SECTION}"
    search.check_keys(table, KEYS, where, problems)

    def bad(key: str, msg: str) -> None:
        problems.append(
            f"--samples: {msg}" if key == "samples" and samples_option is not None else f"{where}.{key}: {msg}"
        )

    method = table.get("method", "morris")
    if method not in METHODS:
        bad("method", f"unknown method {shown(method)} (known: {', '.join(METHODS)})")
        method = "morris"
    labels = list(dict.fromkeys(exp.arms[0].strategies)) if exp is not None else []
    metrics = table.get("metrics", ["crash_rate", "win_rate"])
    if not isinstance(metrics, list) or not metrics:
        bad("metrics", f"expected a non-empty list of metrics ({', '.join(search.OBJECTIVES)})")
        metrics = []
    for i, m in enumerate(metrics):
        if m not in search.OBJECTIVES:
            bad(f"metrics[{i}]", f"unknown metric {shown(m)} (known: {', '.join(search.OBJECTIVES)})")
        elif m in metrics[:i]:
            bad(f"metrics[{i}]", f"{m} is listed twice")
        elif m in ("win_rate", "win_spread") and exp is not None and len(labels) < 2:
            bad(f"metrics[{i}]", f"{m} needs two strategies or more (the experiment plays {', '.join(labels)})")
    samples = samples_option if samples_option is not None else table.get("samples", DEFAULT_SAMPLES[method])
    levels = table.get("levels", 4)
    if "levels" in table and method != "morris":
        bad("levels", "only the Morris method has levels")
    seed = table.get("seed", exp.seed if exp is not None else 0)
    resamples = table.get("resamples", 1000)
    for key, v, low, high in (
        ("samples", samples, 2, MAX_POINTS),
        ("levels", levels, 2, 100),
        ("seed", seed, 0, MAX_SEED),
        ("resamples", resamples, 10, 1_000_000),
    ):
        if isinstance(v, int) and not isinstance(v, bool) and not low <= v <= high:  # wrong types: check_keys
            bad(key, f"must be between {low} and {high:,}, got {shown(v)}")
    if isinstance(levels, int) and levels % 2:
        bad("levels", f"must be even (Morris's step is half the levels), got {levels}")
    if method == "sobol" and isinstance(samples, int) and samples > 0 and samples & (samples - 1):
        lower = 1 << (samples.bit_length() - 1)
        bad("samples", f"Sobol's base samples must be a power of 2, got {samples} (try {lower} or {2 * lower})")
    rules = search.base_rules(exp)
    params: list[Param] = []
    if "params" not in table:
        problems.append(f"{where}.params: missing: [sensitivity.params] lists the rules keys to vary")
    else:
        params, trouble = search.parse_params(table["params"], f"{where}.params", rules)
        problems += trouble
        if not trouble and method == "morris" and len(params) < 2:
            problems.append(f"{where}.params: Morris screening compares keys: list two or more")
    if isinstance(samples, int) and params:
        k = len(params)
        points = samples * (k + 1 if method == "morris" else k + 2)
        if points > MAX_POINTS:
            bad("samples", f"{samples} samples of {k} keys make {points:,} points, more than {MAX_POINTS:,}")
    if problems:
        raise ExperimentError(problems)
    assert exp is not None
    return SensitivitySpec(exp, method, tuple(metrics), samples, levels, seed, resamples, tuple(params))


# ------------------------------------------------------------------------------------------------------- run
def points_of(ss: SensitivitySpec, design: np.ndarray) -> tuple[list[dict[str, Any]], np.ndarray]:
    """The distinct points of the design (each key's rules value) and, per design row, its point."""
    points: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    row_point = np.empty(len(design), dtype=np.int64)
    for i, row in enumerate(design):
        values = {p.key: p.value(float(x)) for p, x in zip(ss.params, row, strict=True)}
        key = json.dumps(values, sort_keys=True)
        if key not in seen:
            seen[key] = len(points)
            points.append(values)
        row_point[i] = seen[key]
    return points, row_point


def run(
    ss: SensitivitySpec,
    run_dir: str | Path,
    jobs: int | None = None,
    resume: bool = False,
    fresh: bool = False,
    shard_size: int | None = None,
    command: str = "",
    progress: Any = None,
    notify: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Play every point of the design into ``run_dir/points``, analyse and write the results (the command line
    writes the report: ``reports.sensitivity``)."""
    run_dir = Path(run_dir)
    notify = notify or runner._stderr
    runner.check_options(jobs, shard_size, "loky", None, resume, fresh)
    with search.Folder(run_dir, "sensitivity", command, notify) as folder:
        old = folder.open(ss.study_digest(), resume, fresh)
        if old is not None and old.get("status") == "complete":
            return old
        design = ss.design()
        points, row_point = points_of(ss, design)
        meta = {
            "kind": "sensitivity",
            "name": ss.name,
            "command": command or (old or {}).get("command", ""),
            "study_digest": ss.study_digest(),
            "experiment_digest": ss.exp.digest(),
            "method": ss.method,
            "metrics": list(ss.metrics),
            "outputs": [search.metric_names(m, s) for m, s in ss.outputs()],
            "samples": ss.samples,
            "levels": ss.levels if ss.method == "morris" else None,
            "delta": ss.delta if ss.method == "morris" else None,
            "design_seed": ss.seed,
            "resamples": ss.resamples,
            "seed": ss.exp.seed,
            "players": ss.exp.players,
            "games_per_point": ss.games,
            "strategies": list(dict.fromkeys(ss.exp.arms[0].strategies)),
            "params": [{"key": p.key, "kind": p.kind, "range": p.describe(), **p.resolved()} for p in ss.params],
            "design_rows": int(len(design)),
            "points": len(points),
            "started": (old or {}).get("started") or search.now(),
            "status": "running",
            "started_work": True,
        }
        for i, values in enumerate(points):
            why = search.arm_problem(ss.exp, values)
            if why is not None:
                shown_values = ", ".join(f"{k} = {v!r}" for k, v in values.items())
                raise RunError(
                    f"{ss.exp.source}: {SECTION}.params: point {i} of the design ({shown_values}) is refused by the "
                    f"rules: {why}; narrow the ranges"
                )
        exp = search.study_experiment(ss.exp, f"{ss.name} points", [(f"point {i}", v) for i, v in enumerate(points)])
        if progress:
            progress.points(len(points), ss.games * len(points))

        def work() -> None:
            play = {"jobs": jobs, "shard_size": shard_size, "progress": progress, "notify": notify}
            runner.run(exp, run_dir / POINTS_DIR, resume=True, command=command, **play)
            stats = search.arm_stats(run_dir / POINTS_DIR)
            point_frame, outputs = _points_frame(ss, points, stats)
            search.write_parquet(run_dir / POINTS, point_frame)
            search.write_parquet(run_dir / DESIGN, _design_frame(ss, design, row_point))
            indices = analyse(ss, design, {name: y[row_point] for name, y in outputs.items()})
            search.write_parquet(run_dir / INDICES, indices)

        def stopped() -> Exception:
            return search.shards_kept(run_dir / POINTS_DIR, command, len(points))

        elapsed = float((old or {}).get("wall_time_s") or 0)
        meta = search.play_study(folder, meta, ss.resolved_toml(), work, stopped, elapsed)
        return meta


def _points_frame(
    ss: SensitivitySpec, points: list[dict[str, Any]], stats: dict[int, search.ArmStats]
) -> tuple[pl.DataFrame, dict[str, np.ndarray]]:
    outputs = {search.metric_names(m, s): np.empty(len(points)) for m, s in ss.outputs()}
    rows = []
    for i, values in enumerate(points):
        s = stats[i]
        row: dict[str, Any] = {"point": i, **{k: (str(v) if isinstance(v, str) else v) for k, v in values.items()}}
        row["games"] = s.games
        for m, strat in ss.outputs():
            name = search.metric_names(m, strat)
            value, lo, hi = search.measure(s, m, strat)
            outputs[name][i] = value
            row.update({name: value, f"{name}::lo": lo, f"{name}::hi": hi})
        rows.append(row)
    return pl.DataFrame(rows), outputs


def _design_frame(ss: SensitivitySpec, design: np.ndarray, row_point: np.ndarray) -> pl.DataFrame:
    data: dict[str, Any] = {"row": np.arange(len(design)), "point": row_point}
    for j, p in enumerate(ss.params):
        data[f"x::{p.key}"] = design[:, j]
    return pl.DataFrame(data)


def analyse(ss: SensitivitySpec, design: np.ndarray, outputs: dict[str, np.ndarray]) -> pl.DataFrame:
    """Every key's index per output, ranked (1 = moves it most), with 95 % bootstrap intervals."""
    rows = []
    ranges = {p.key: p.describe() for p in ss.params}
    for name, y in outputs.items():
        y = np.asarray(y, dtype=float)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if ss.method == "morris":
                from SALib.analyze import morris

                si = morris.analyze(
                    ss.problem(),
                    design,
                    y,
                    num_resamples=ss.resamples,
                    conf_level=0.95,
                    num_levels=ss.levels,
                    seed=ss.seed,
                )
                d = ss.delta
                est = np.asarray(si["mu_star"], dtype=float) * d
                conf = np.asarray(si["mu_star_conf"], dtype=float) * d
                extra = {
                    "mu": np.asarray(si["mu"], dtype=float) * d,
                    "sigma": np.asarray(si["sigma"], dtype=float) * d,
                }
                index = "mu_star"
            else:
                from SALib.analyze import sobol

                if np.ptp(y) == 0:  # no variance: no key moves this output
                    k = len(ss.params)
                    si = {"ST": np.zeros(k), "ST_conf": np.zeros(k), "S1": np.zeros(k), "S1_conf": np.zeros(k)}
                else:
                    si = sobol.analyze(
                        ss.problem(),
                        y,
                        calc_second_order=False,
                        num_resamples=ss.resamples,
                        conf_level=0.95,
                        seed=ss.seed,
                    )
                est = np.asarray(si["ST"], dtype=float)
                conf = np.asarray(si["ST_conf"], dtype=float)
                s1 = np.asarray(si["S1"], dtype=float)
                s1c = np.asarray(si["S1_conf"], dtype=float)
                extra = {"s1": s1, "s1_lo": s1 - s1c, "s1_hi": s1 + s1c}
                index = "ST"
        order = sorted(range(len(ss.params)), key=lambda j: (-np.nan_to_num(est[j], nan=-np.inf), j))
        for r, j in enumerate(order):
            p = ss.params[j]
            row = {
                "metric": name,
                "key": p.key,
                "range": ranges[p.key],
                "rank": r + 1,
                "method": ss.method,
                "index": index,
                "estimate": float(est[j]),
                "lo": float(max(est[j] - conf[j], 0.0)) if math.isfinite(conf[j]) else math.nan,
                "hi": float(est[j] + conf[j]) if math.isfinite(conf[j]) else math.nan,
            }
            row.update({k: float(v[j]) for k, v in extra.items()})
            rows.append(row)
    schema = {
        "metric": pl.String,
        "key": pl.String,
        "range": pl.String,
        "rank": pl.Int64,
        "method": pl.String,
        "index": pl.String,
        "estimate": pl.Float64,
        "lo": pl.Float64,
        "hi": pl.Float64,
    }
    extra_cols = ["mu", "sigma"] if ss.method == "morris" else ["s1", "s1_lo", "s1_hi"]
    schema.update(dict.fromkeys(extra_cols, pl.Float64))
    return pl.DataFrame(rows, schema=schema)
