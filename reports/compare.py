"""Comparisons with a reference arm (issue 13): paired on the games the two arms share, each effect once.

Arms of a run play the same games with the same dice (common random numbers); so do two runs of the same seed
and player count (``eastindia compare``). A change between two arms is then estimated from per-game differences:

- proportions (``crash rate``; ``win rate`` of a strategy: the share of games a seat playing it won) with
  Newcombe's paired interval (``stats.paired_diff_ci``);
- means (``mean end round``; ``mean VP`` of a strategy: per game, the mean final VP of the seats playing it) with
  the Student-t interval of the per-game differences (``stats.paired_mean_ci``).

Games that are not shared (two runs of different seeds) are compared as independent samples (Newcombe's interval
for independent proportions, Welch's t). Each effect is listed once: every arm against the reference only, and
with exactly two strategies in both arms only the first one's win rate (the second's change is its mirror image).

The reading is chunked: per-game tables of a range of games (all arms at once) are built lazily from the Parquet
frames, reduced to sums (count, sums, sums of squares and cross products) and dropped, so memory is bounded by
one chunk however many games the run has.

``comparisons.parquet`` (in the run folder, written by ``write_report``) has the columns ``COLUMNS``: ``arm,
reference`` (arm names), ``metric``, ``strategy`` (null for whole-game metrics), ``estimate`` (arm − reference),
``lo, hi`` (95 %), ``method``, ``n`` (games paired, or the two sides' games summed when independent), then
``arm_value, reference_value``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from experiments.runfolder import Run

from .data import check_frames
from .stats import diff_ci, half_width, paired_diff_ci, paired_mean_ci, welch_ci, wilson

CRASH, END, WIN, VP = "crash rate", "mean end round", "win rate", "mean VP"
METRICS = (CRASH, WIN, END, VP)
PROPORTIONS = (CRASH, WIN)
METHODS = {
    ("prop", True): "paired Newcombe (method 10)",
    ("mean", True): "paired t",
    ("prop", False): "independent Newcombe (method 10)",
    ("mean", False): "Welch t",
}
COLUMNS = ["arm", "reference", "metric", "strategy", "estimate", "lo", "hi", "method", "n"]
SCHEMA = {
    "arm": pl.String,
    "reference": pl.String,
    "metric": pl.String,
    "strategy": pl.String,
    "estimate": pl.Float64,
    "lo": pl.Float64,
    "hi": pl.Float64,
    "method": pl.String,
    "n": pl.Int64,
    "arm_value": pl.Float64,
    "reference_value": pl.Float64,
}
ROWS_PER_CHUNK = 250_000  # seat rows read per range of games (all arms together): bounds the memory


@dataclass(frozen=True)
class Measure:
    """One metric of a game: ``column`` of the per-game table, a proportion (0/1) or a mean."""

    metric: str
    strategy: str | None
    column: str

    @property
    def kind(self) -> str:
        return "prop" if self.metric in PROPORTIONS else "mean"


def measures(strategies: list[str], proportions_only: bool = False) -> list[Measure]:
    """The metrics of a per-game table for these strategies, in report order."""
    out = [Measure(CRASH, None, "crashed")]
    out += [Measure(WIN, s, f"won::{s}") for s in strategies]
    if not proportions_only:
        out.append(Measure(END, None, "end_round"))
        out += [Measure(VP, s, f"vp::{s}") for s in strategies]
    return out


def pair_measures(strategies_x: list[str], strategies_y: list[str], proportions_only: bool = False) -> list[Measure]:
    """The metrics two arms are compared on: the strategies both play; win rates only with two strategies or more,
    and with exactly the same two only the first one's (each effect once)."""
    common = [s for s in strategies_y if s in strategies_x]
    out = []
    for m in measures(common, proportions_only):
        if m.metric == WIN:
            if len(strategies_x) < 2 or len(strategies_y) < 2:
                continue  # one strategy wins every game: nothing to compare
            if set(strategies_x) == set(strategies_y) and len(common) == 2 and m.strategy == common[1]:
                continue  # its change is minus the first one's
        out.append(m)
    return out


@dataclass
class Sums:
    """Sufficient statistics of one comparison: paired (n shared games: sums of x, y, their squares and products)
    or independent (each side's count, sum and sum of squares)."""

    paired: bool
    n: float = 0.0
    n_y: float = 0.0
    sx: float = 0.0
    sy: float = 0.0
    sxx: float = 0.0
    syy: float = 0.0
    sxy: float = 0.0

    def add_paired(self, x: np.ndarray, y: np.ndarray) -> None:
        ok = ~(np.isnan(x) | np.isnan(y))
        x, y = x[ok], y[ok]
        self.n += x.size
        self.n_y += x.size
        self.sx += float(x.sum())
        self.sy += float(y.sum())
        self.sxx += float((x * x).sum())
        self.syy += float((y * y).sum())
        self.sxy += float((x * y).sum())

    def add_independent(self, x: np.ndarray, y: np.ndarray) -> None:
        x, y = x[~np.isnan(x)], y[~np.isnan(y)]
        self.n += x.size
        self.n_y += y.size
        self.sx += float(x.sum())
        self.sy += float(y.sum())
        self.sxx += float((x * x).sum())
        self.syy += float((y * y).sum())

    def interval(self, kind: str) -> tuple[float, float, float]:
        """(estimate x − y, lo, hi) at 95 %."""
        if self.paired:
            if kind == "prop":
                a = round(self.sxy)
                b, c = round(self.sx) - a, round(self.sy) - a
                est, lo, hi = paired_diff_ci(a, b, c, round(self.n) - a - b - c)
            else:
                est, lo, hi = paired_mean_ci(self.n, self.sx - self.sy, self.sxx - 2 * self.sxy + self.syy)
            return float(est), float(lo), float(hi)
        if kind == "prop":
            if self.n <= 0 or self.n_y <= 0:
                return np.nan, np.nan, np.nan
            return diff_ci(round(self.sy), round(self.n_y), round(self.sx), round(self.n))
        return welch_ci(self.n, self.sx, self.sxx, self.n_y, self.sy, self.syy)

    def values(self) -> tuple[float, float]:
        """The two sides' means (x, y)."""
        return (self.sx / self.n if self.n else np.nan), (self.sy / self.n_y if self.n_y else np.nan)


# ------------------------------------------------------------------------------------------ per-game tables
def game_range(run: Run) -> tuple[int, int]:
    """The smallest and one past the largest game id in the run's games frame."""
    lo, hi = (
        run.scan("games").select(pl.col("game").min().alias("lo"), pl.col("game").max().alias("hi")).collect().row(0)
    )
    return (0, 0) if lo is None else (int(lo), int(hi) + 1)


def chunks(first: int, last: int, arms: int, players: int, rows: int = ROWS_PER_CHUNK) -> Iterator[tuple[int, int]]:
    """Ranges of games holding about ``rows`` seat rows over ``arms`` arms."""
    step = max(256, rows // max(1, arms * players))
    for lo in range(first, last, step):
        yield lo, min(lo + step, last)


def indicators(strategies: list[str]) -> list[pl.Expr]:
    """From a games frame: ``game``, ``crashed``, ``end_round`` and ``won::S`` per strategy, as floats."""
    return [
        "game",
        pl.col("crashed").cast(pl.Float64),
        pl.col("end_round").cast(pl.Float64),
        *[(pl.col("winner_strategy") == s).cast(pl.Float64).alias(f"won::{s}") for s in strategies],
    ]


def game_table(
    run: Run, arm_indices: list[int], lo: int, hi: int, strategies: list[str], vp: bool = True
) -> pl.DataFrame:
    """Per game of the arms in [lo, hi): ``arm_index, game, crashed, end_round`` and, per strategy S, ``won::S`` (1
    when a seat playing S won) and (``vp``) ``vp::S`` (mean final VP of its seats; null where it has none)."""
    where = pl.col("arm_index").is_in(arm_indices) & (pl.col("game") >= lo) & (pl.col("game") < hi)
    games = run.scan("games").filter(where).select(pl.col("arm_index").cast(pl.Int64), *indicators(strategies))
    if vp and strategies:
        per_game = (
            run.scan("seats")
            .filter(where)
            .group_by(pl.col("arm_index").cast(pl.Int64), "game")
            .agg(*[pl.col("vp").filter(pl.col("strategy") == s).mean().alias(f"vp::{s}") for s in strategies])
        )
        games = games.join(per_game, on=["arm_index", "game"], how="left")
    return games.collect(engine="streaming").sort("arm_index", "game")


def _add(sums: Sums, x: pl.DataFrame, y: pl.DataFrame, column: str) -> None:
    if sums.paired:
        joined = x.select("game", pl.col(column).alias("x")).join(
            y.select("game", pl.col(column).alias("y")), on="game", how="inner"
        )
        sums.add_paired(joined["x"].fill_null(np.nan).to_numpy(), joined["y"].fill_null(np.nan).to_numpy())
    else:
        sums.add_independent(x[column].fill_null(np.nan).to_numpy(), y[column].fill_null(np.nan).to_numpy())


# -------------------------------------------------------------------------------------------------- one run
@dataclass
class Plan:
    """What to compare: (arm index, reference index, measures) and the arms' names and strategies."""

    names: dict[int, str]
    strategies: dict[int, list[str]]
    reference: int
    pairs: list[tuple[int, list[Measure]]] = field(default_factory=list)


def plan(run: Run, reference: str | None = None, strategies: dict[int, list[str]] | None = None) -> Plan:
    """Every arm against the reference arm (``reference``: an arm name; default run.json's, else the first)."""
    arms = sorted(run.arms, key=lambda a: a["index"])
    names = {a["index"]: a["arm"] for a in arms}
    strategies = strategies or {a["index"]: list(dict.fromkeys(a.get("strategies") or [])) for a in arms}
    wanted = reference or run.meta.get("reference") or arms[0]["arm"]
    ref = next((i for i, n in names.items() if n == wanted), None)
    if ref is None:
        known = ", ".join(repr(n) for n in names.values())
        raise ValueError(f"reference arm {wanted!r} is not an arm of {run.path} (arms: {known})")
    out = Plan(names, strategies, ref)
    for i in names:
        if i != ref:
            out.pairs.append((i, pair_measures(strategies[i], strategies[ref])))
    return out


def comparisons(run: Run | str | Path, reference: str | None = None, arms: list[int] | None = None) -> pl.DataFrame:
    """Every arm against the reference arm, paired on the games they share (see the module docstring)."""
    run = run if isinstance(run, Run) else Run.open(run)
    p = plan(run, reference)
    present = set(arms) if arms is not None else set(p.names)
    pairs = [(i, ms) for i, ms in p.pairs if i in present and p.reference in present]
    sums = {(i, m): Sums(paired=True) for i, ms in pairs for m in ms}
    if sums:
        strategies = list(dict.fromkeys(m.strategy for _, ms in pairs for m in ms if m.strategy))
        indices = sorted({p.reference, *(i for i, _ in pairs)})
        first, last = game_range(run)
        players = int(run.meta.get("players") or 6)
        for lo, hi in chunks(first, last, len(indices), players):
            table = game_table(run, indices, lo, hi, strategies)
            y = table.filter(pl.col("arm_index") == p.reference)
            for i, ms in pairs:
                x = table.filter(pl.col("arm_index") == i)
                for m in ms:
                    _add(sums[i, m], x, y, m.column)
    rows = [_row(p.names[i], p.names[p.reference], m, sums[i, m]) for i, ms in pairs for m in ms]
    return _frame(rows)


def _row(arm: str, reference: str, m: Measure, s: Sums) -> dict:
    est, lo, hi = s.interval(m.kind)
    x, y = s.values()
    n = s.n if s.paired else s.n + s.n_y
    return {
        "arm": arm,
        "reference": reference,
        "metric": m.metric,
        "strategy": m.strategy,
        "estimate": est,
        "lo": lo,
        "hi": hi,
        "method": METHODS[m.kind, s.paired],
        "n": int(n),
        "arm_value": x,
        "reference_value": y,
    }


def _frame(rows: list[dict]) -> pl.DataFrame:
    df = pl.DataFrame(rows, schema=SCHEMA)
    order = {m: k for k, m in enumerate(METRICS)}
    return (
        df.with_columns(pl.col("metric").replace_strict(order, return_dtype=pl.Int64).alias("_o"))
        .sort("_o", maintain_order=True)
        .drop("_o")
    )


# --------------------------------------------------------------------------------------------------- two runs
def shared_games(a: Run, b: Run) -> bool:
    """Do the two runs play the same games (same seed and players: game i has the same dice in both)?"""
    return a.meta.get("seed") == b.meta.get("seed") and a.meta.get("players") == b.meta.get("players")


def match_arms(a: Run, b: Run) -> list[tuple[dict, dict]]:
    """Arms of B with their counterpart in A: by name; else, with no name in common, by index when both runs have
    as many arms (one arm each: those two)."""
    arms_a = sorted(a.arms, key=lambda x: x["index"])
    arms_b = sorted(b.arms, key=lambda x: x["index"])
    by_name = {x["arm"]: x for x in arms_a}
    pairs = [(by_name[y["arm"]], y) for y in arms_b if y["arm"] in by_name]
    if not pairs and len(arms_a) == len(arms_b):
        pairs = list(zip(arms_a, arms_b, strict=True))
    return pairs


def compare_runs(a: Run | str | Path, b: Run | str | Path, unpaired: bool = False) -> pl.DataFrame:
    """Each arm of run B against its counterpart in run A (``match_arms``; A is the reference): paired on the
    games both play when the runs share their games (``shared_games``), else (or with ``unpaired``) as independent
    samples. Runs of different player counts are refused unless ``unpaired``: their games share ids but not their
    tables. The ``arm`` and ``reference`` columns read ``B: <arm>`` and ``A: <arm>``."""
    a = a if isinstance(a, Run) else Run.open(a)
    b = b if isinstance(b, Run) else Run.open(b)
    for run in (a, b):
        check_frames(run)
    players_a, players_b = a.meta.get("players"), b.meta.get("players")
    if players_a != players_b and not unpaired:
        raise ValueError(
            f"{a.path} plays {players_a} players, {b.path} {players_b}: their games cannot be paired; "
            "compare them as independent samples with --unpaired"
        )
    pairs = match_arms(a, b)
    if not pairs:
        raise ValueError(
            f"no arm of {b.path} matches one of {a.path} by name, and the runs have different numbers of arms"
        )
    paired = shared_games(a, b) and not unpaired
    rows = []
    for arm_a, arm_b in pairs:
        sa, sb = (list(dict.fromkeys(x.get("strategies") or [])) for x in (arm_a, arm_b))
        ms = pair_measures(sb, sa)
        strategies = list(dict.fromkeys(m.strategy for m in ms if m.strategy))
        sums = {m: Sums(paired=paired) for m in ms}
        first_a, last_a = game_range(a)
        first_b, last_b = game_range(b)
        first, last = (
            (max(first_a, first_b), min(last_a, last_b)) if paired else (min(first_a, first_b), max(last_a, last_b))
        )
        players = int(a.meta.get("players") or 6)
        for lo, hi in chunks(first, last, 2, players):
            x = game_table(b, [arm_b["index"]], lo, hi, strategies)
            y = game_table(a, [arm_a["index"]], lo, hi, strategies)
            for m in ms:
                _add(sums[m], x, y, m.column)
        rows += [_row(f"B: {arm_b['arm']}", f"A: {arm_a['arm']}", m, sums[m]) for m in ms]
    return _frame(rows)


# ------------------------------------------------------------------------------------------------- precision
@dataclass
class Headline:
    """One headline interval: what it measures, its estimate and 95 % bounds."""

    what: str
    estimate: float
    lo: float
    hi: float

    @property
    def half_width(self) -> float:
        return float(half_width(self.estimate, self.lo, self.hi))


class Precision:
    """The headline intervals of a run, from per-game crash and win indicators added range by range (issue 13):
    per arm the crash rate and, with two strategies or more, each strategy's win rate (Wilson); against the
    reference arm the paired changes of crash rate and win rates (each effect once). ``target_ci`` bounds them."""

    def __init__(self, names: dict[int, str], strategies: dict[int, list[str]], reference: int):
        self.names, self.strategies, self.reference = names, strategies, reference
        self.n = dict.fromkeys(names, 0)
        self.counts = {(i, m): 0.0 for i in names for m in measures(strategies[i], proportions_only=True)}
        self.pairs = {
            (i, m): Sums(paired=True)
            for i in names
            if i != reference
            for m in pair_measures(strategies[i], strategies[reference], proportions_only=True)
        }

    def add(self, tables: dict[int, pl.DataFrame]) -> None:
        """Add the same range of games of every arm (``tables[arm]``: per-game ``game, crashed, won::S``)."""
        for i, table in tables.items():
            self.n[i] += table.height
            for m in measures(self.strategies[i], proportions_only=True):
                self.counts[i, m] += float(table[m.column].sum())
        y = tables[self.reference]
        for (i, m), sums in self.pairs.items():
            _add(sums, tables[i], y, m.column)

    def headlines(self) -> list[Headline]:
        out = []
        for (i, m), k in self.counts.items():
            if m.metric == WIN and len(self.strategies[i]) < 2:
                continue  # one strategy wins every game
            n = self.n[i]
            lo, hi = wilson(k, n)
            who = f"{m.metric}" + (f" {m.strategy}" if m.strategy else "")
            out.append(Headline(f"{self.names[i]}: {who}", k / n if n else np.nan, float(lo), float(hi)))
        for (i, m), sums in self.pairs.items():
            est, lo, hi = sums.interval("prop")
            who = f"{m.metric}" + (f" {m.strategy}" if m.strategy else "")
            out.append(Headline(f"{self.names[i]} − {self.names[self.reference]}: {who}", est, lo, hi))
        return out

    def reached(self) -> tuple[float, str]:
        """The largest half-width of the headline intervals and what it measures (NaN before any game)."""
        worst = max(self.headlines(), key=lambda h: np.nan_to_num(h.half_width, nan=np.inf), default=None)
        return (np.nan, "") if worst is None else (worst.half_width, worst.what)


def precision_of(run: Run, reference: str | None = None) -> Precision:
    """The headline intervals of a finished run (the same ones its ``target_ci`` bounded)."""
    p = plan(run, reference)
    out = Precision(p.names, p.strategies, p.reference)
    strategies = list(dict.fromkeys(s for ss in p.strategies.values() for s in ss))
    first, last = game_range(run)
    players = int(run.meta.get("players") or 6)
    indices = sorted(p.names)
    for lo, hi in chunks(first, last, len(indices), players):
        table = game_table(run, indices, lo, hi, strategies, vp=False)
        out.add({i: table.filter(pl.col("arm_index") == i) for i in indices})
    return out
