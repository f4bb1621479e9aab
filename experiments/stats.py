"""The statistics the runner, the studies and the reports share: intervals, paired comparisons, precision targets.

The layer below both ``experiments/`` (which runs and writes a run folder) and ``reports/`` (which reads one): it
imports nothing from ``reports``. Intervals, one helper per kind, written out in closed form on the normal and
Student-t quantiles of ``scipy.special`` (``ndtri``, ``stdtrit``; loaded at the first interval, not with the command
line): scipy.stats and statsmodels, which give the same numbers (the tests check them against both), cost every
command about a CPU-second to import.

- ``wilson``: 95 % Wilson score interval of a proportion (Wilson 1927; statsmodels'
  ``proportion_confint(method="wilson")``).
- ``diff_ci``: difference of two independent proportions with Newcombe's hybrid score interval (method 10 of
  Newcombe 1998; statsmodels' ``confint_proportions_2indep(method="newcomb")``). Arms of a run share their dice
  (common random numbers), which correlates them positively; treating them as independent makes this interval
  conservative (too wide), never too narrow.
- ``mean_ci``: Student-t interval of a mean from its count, mean and standard deviation.
- ``quantile_from_counts``: inverted-CDF quantile of an integer variable given as (value, count) pairs.

Paired comparisons: arms play the same games with the same dice (common random numbers), so a change
between two arms is estimated from the per-game differences, which removes the games' shared variance:

- ``paired_diff_ci``: difference of two proportions measured on the same games (a 2 x 2 table of pairs) with
  Newcombe's hybrid score interval for paired data (method 10 of Newcombe 1998, Statistics in Medicine 17,
  2635-2650): the two Wilson intervals combined with the correlation phi of the pairs. Unlike the Wald interval on
  the differences it never collapses to zero width when few games change outcome.
- ``paired_mean_ci``: mean of per-game differences with its Student-t interval.
- ``welch_ci``: difference of two independent means, Welch's t interval (games not shared: ``eastindia compare``
  of runs with different seeds).
- ``half_width``: the larger distance from an estimate to its bounds (what a precision target bounds).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from .runfolder import Run, pick_arm

ALPHA = 0.05
DIFF_METHOD = "newcomb"


# ------------------------------------------------------------------------------- figures, one unit each
def pct(p: float | None, lo: float | None = None, hi: float | None = None) -> str:
    """A share of games as a percentage with one decimal: ``61.0 % (57.2–64.6)``; an em dash when missing."""
    if p is None or p != p:
        return "—"
    return f"{100 * p:.1f} %" + (f" ({100 * lo:.1f}–{100 * hi:.1f})" if lo is not None and lo == lo else "")


def points(x: float) -> str:
    """A change in percentage points, signed, with one decimal (more if it would round to zero)."""
    digits = 1
    while digits < 4 and x != 0 and round(abs(100 * x), digits) == 0:
        digits += 1
    return f"{100 * x:+.{digits}f}".replace("-", "−")


def change(diff: float, lo: float, hi: float) -> str:
    """``+3.1 pp (−0.5 to +6.7)``."""
    return f"{points(diff)} pp ({points(lo)} to {points(hi)})"


# ------------------------------------------------------------------------------------------------ intervals
def _z(alpha: float) -> float:
    """The normal quantile 1 - alpha/2."""
    from scipy.special import ndtri

    return float(ndtri(1 - alpha / 2))


def _t(dof, alpha: float):
    """The Student-t quantiles 1 - alpha/2 of ``dof`` degrees of freedom."""
    from scipy.special import stdtrit

    return stdtrit(dof, 1 - alpha / 2)


def wilson(count, nobs, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Wilson interval (lo, hi) for ``count`` successes of ``nobs``, elementwise; NaN where ``nobs`` is 0."""
    count = np.asarray(count, dtype=float)
    nobs = np.asarray(nobs, dtype=float)
    empty = nobs <= 0
    n = np.where(empty, 1.0, nobs)
    p, z2 = count / n, _z(alpha) ** 2
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = np.sqrt(z2) / (1 + z2 / n) * np.sqrt(np.maximum(p * (1 - p) / n + z2 / (4 * n * n), 0))
    lo, hi = np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)  # the closed form's rounding at 0 and 1
    return np.where(empty, np.nan, lo), np.where(empty, np.nan, hi)


def diff_ci(count_a, nobs_a, count_b, nobs_b, alpha: float = ALPHA) -> tuple[float, float, float]:
    """Change from A to B, ``p_b - p_a``, with its (lo, hi) interval; NaNs when either side has no games."""
    if nobs_a <= 0 or nobs_b <= 0:
        return np.nan, np.nan, np.nan
    p_a, p_b = count_a / nobs_a, count_b / nobs_b
    (l_a, u_a), (l_b, u_b) = wilson(count_a, nobs_a, alpha), wilson(count_b, nobs_b, alpha)
    d = p_b - p_a
    lo = d - np.sqrt((p_b - l_b) ** 2 + (u_a - p_a) ** 2)
    hi = d + np.sqrt((u_b - p_b) ** 2 + (p_a - l_a) ** 2)
    return d, float(lo), float(hi)


def mean_ci(n, mean, std, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Student-t interval (lo, hi) of means from their counts, means and sample standard deviations."""
    n = np.asarray(n, dtype=float)
    mean = np.asarray(mean, dtype=float)
    ok = n > 1
    half = _t(np.where(ok, n - 1, 1), alpha) * np.asarray(std, dtype=float) / np.sqrt(np.where(ok, n, 1))
    half = np.where(ok, half, np.nan)
    return mean - half, mean + half


def quantile_from_counts(values, counts, q: float) -> float:
    """The smallest value whose cumulative share reaches ``q`` (numpy's ``method="inverted_cdf"``)."""
    values = np.asarray(values)
    counts = np.asarray(counts, dtype=float)
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(counts[order])
    if cum.size == 0 or cum[-1] <= 0:
        return np.nan
    return float(values[order][np.searchsorted(cum, q * cum[-1] * (1 - 1e-12))])


def paired_diff_ci(a, b, c, d, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``p_x - p_y`` from the pairs' 2 x 2 table — ``a``: both 1, ``b``: x 1 and y 0, ``c``: x 0 and y 1, ``d``:
    both 0 — with Newcombe's (1998) paired method 10 interval; elementwise, NaN where there are no pairs.

    p_x = (a + b) / n, p_y = (a + c) / n, the estimate (b - c) / n; with the Wilson intervals (l_x, u_x), (l_y, u_y)
    and phi = (ad - bc) / sqrt((a + b)(c + d)(a + c)(b + d)) (0 when a margin is empty):
    lower = est - sqrt((p_x - l_x)^2 - 2 phi (p_x - l_x)(u_y - p_y) + (u_y - p_y)^2),
    upper = est + sqrt((u_x - p_x)^2 - 2 phi (u_x - p_x)(p_y - l_y) + (p_y - l_y)^2)."""
    a, b, c, d = (np.asarray(v, dtype=float) for v in (a, b, c, d))
    n = a + b + c + d
    ok = n > 0
    n1 = np.where(ok, n, 1.0)
    px, py = (a + b) / n1, (a + c) / n1
    lx, ux = wilson(a + b, n1, alpha)
    ly, uy = wilson(a + c, n1, alpha)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    phi = np.where(margins > 0, (a * d - b * c) / np.sqrt(np.where(margins > 0, margins, 1.0)), 0.0)
    est = px - py
    lo = est - np.sqrt(np.maximum((px - lx) ** 2 - 2 * phi * (px - lx) * (uy - py) + (uy - py) ** 2, 0))
    hi = est + np.sqrt(np.maximum((ux - px) ** 2 - 2 * phi * (ux - px) * (py - ly) + (py - ly) ** 2, 0))
    nan = np.where(ok, 1.0, np.nan)
    return est * nan, lo * nan, hi * nan


def paired_mean_ci(n, sum_d, sum_d2, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean of ``n`` per-game differences (their sum and sum of squares) with its Student-t interval."""
    n = np.asarray(n, dtype=float)
    ok = n > 1
    n1 = np.where(ok, n, 2.0)
    mean = np.asarray(sum_d, dtype=float) / n1
    var = np.maximum((np.asarray(sum_d2, dtype=float) - n1 * mean**2) / (n1 - 1), 0)
    lo, hi = mean_ci(n1, mean, np.sqrt(var), alpha)
    nan = np.where(ok, 1.0, np.nan)
    return mean * nan, lo * nan, hi * nan


def welch_ci(n_x, sum_x, sum_x2, n_y, sum_y, sum_y2, alpha: float = ALPHA) -> tuple[float, float, float]:
    """``mean_x - mean_y`` of independent samples (counts, sums, sums of squares), Welch's t interval."""
    if n_x < 2 or n_y < 2:
        return np.nan, np.nan, np.nan
    mx, my = sum_x / n_x, sum_y / n_y
    vx = max((sum_x2 - n_x * mx**2) / (n_x - 1), 0) / n_x
    vy = max((sum_y2 - n_y * my**2) / (n_y - 1), 0) / n_y
    se2 = vx + vy
    if se2 <= 0:
        return mx - my, mx - my, mx - my
    dof = se2**2 / ((vx**2 / (n_x - 1) if vx else 0) + (vy**2 / (n_y - 1) if vy else 0))
    half = _t(dof, alpha) * np.sqrt(se2)
    return mx - my, mx - my - half, mx - my + half


def half_width(est, lo, hi) -> np.ndarray:
    """The larger of ``est - lo`` and ``hi - est`` (an asymmetric interval's worst side)."""
    est, lo, hi = (np.asarray(v, dtype=float) for v in (est, lo, hi))
    return np.maximum(est - lo, hi - est)


# --------------------------------------------------------------------------------- comparisons with a reference
# Arms of a run play the same games with the same dice (common random numbers); so do two runs of the same seed and
# player count. A change between two arms is then estimated from per-game differences: proportions (crash rate; a
# strategy's win rate) with Newcombe's paired interval, means (mean end round; a strategy's mean VP) with the
# Student-t interval of the differences. Games that are not shared are compared as independent samples. The reading
# is chunked (per-game tables of a range of games, reduced to sums and dropped): memory is bounded by one chunk.
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
        self._add(x, y)
        self.sxy += float((x * y).sum())

    def add_independent(self, x: np.ndarray, y: np.ndarray) -> None:
        self._add(x[~np.isnan(x)], y[~np.isnan(y)])

    def _add(self, x: np.ndarray, y: np.ndarray) -> None:
        """Each side's count, sum and sum of squares."""
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


def add_sums(sums: Sums, x: pl.DataFrame, y: pl.DataFrame, column: str) -> None:
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
    """Every arm against the reference arm (``reference``: an arm's name or index; default run.json's, else the
    first)."""
    arms = sorted(run.arms, key=lambda a: a["index"])
    names = {a["index"]: a["arm"] for a in arms}
    strategies = strategies or {a["index"]: list(dict.fromkeys(a.get("strategies") or [])) for a in arms}
    wanted = reference if reference is not None else run.meta.get("reference") or arms[0]["arm"]
    name = pick_arm(list(names.values()), wanted)
    ref = next((i for i, n in names.items() if n == name), None)
    if ref is None:
        known = ", ".join(f"{i}: {n!r}" for i, n in names.items())
        raise ValueError(
            f"reference arm {wanted!r} is neither the name nor the index of an arm of {run.path} ({known})"
        )
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
                    add_sums(sums[i, m], x, y, m.column)
    rows = [comparison_row(p.names[i], p.names[p.reference], m, sums[i, m]) for i, ms in pairs for m in ms]
    return comparison_frame(rows)


def comparison_row(arm: str, reference: str, m: Measure, s: Sums) -> dict:
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


def comparison_frame(rows: list[dict]) -> pl.DataFrame:
    df = pl.DataFrame(rows, schema=SCHEMA)
    order = {m: k for k, m in enumerate(METRICS)}
    return (
        df.with_columns(pl.col("metric").replace_strict(order, return_dtype=pl.Int64).alias("_o"))
        .sort("_o", maintain_order=True)
        .drop("_o")
    )


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
    """The headline intervals of a run, from per-game crash and win indicators added range by range :
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
            add_sums(sums, tables[i], y, m.column)

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


# ------------------------------------------------------------------------------------- seat against seat
def seat_pairs(run: Run, arm: str, against: str) -> pl.DataFrame:
    """Each seat of arm ``arm`` against the same seat of the same game in arm ``against`` (arm names or indices; the
    arms of one run play the same games and dice). A row per strategy label of ``arm``, from its seats: ``strategy``,
    ``against`` (the labels seated there in the other arm), ``n`` (seats), ``win`` and ``win_against`` with ``d_win``
    (``win_lo``, ``win_hi``: Newcombe's paired interval), ``vp`` and ``vp_against`` with ``d_vp`` (``vp_lo``,
    ``vp_hi``: paired t); then a row ``strategy = "(crash rate)"`` pairing the two arms' crashes game by game.
    What a deviant does to its own seat: one searching seat among four balanced against balanced in that seat."""
    names = {a["index"]: a["arm"] for a in run.arms}
    chosen = []
    for wanted in (arm, against):
        name = pick_arm([names[i] for i in sorted(names)], wanted)
        if name is None:
            raise ValueError(f"no arm {wanted!r} in {run.path} (arms: {', '.join(names.values())})")
        chosen.append(name)
    a, b = chosen
    seats = (
        run.scan("seats").filter(pl.col("arm").is_in([a, b])).select("arm", "game", "seat", "strategy", "winner", "vp")
    )
    seats = seats.collect()
    mine = seats.filter(pl.col("arm") == a).drop("arm")
    theirs = seats.filter(pl.col("arm") == b).drop("arm")
    joined = mine.join(theirs, on=["game", "seat"], suffix="_b")
    rows = []
    for label in mine["strategy"].unique(maintain_order=True).to_list():
        p = joined.filter(pl.col("strategy") == label)
        x, y = p["winner"].to_numpy(), p["winner_b"].to_numpy()
        est, lo, hi = paired_diff_ci((x & y).sum(), (x & ~y).sum(), (~x & y).sum(), (~x & ~y).sum())
        d = (p["vp"] - p["vp_b"]).to_numpy()
        mean, vlo, vhi = paired_mean_ci(d.size, d.sum(), (d * d).sum())
        rows.append(
            {
                "strategy": label, "against": "/".join(sorted(set(p["strategy_b"].to_list()))), "n": p.height,
                "win": x.mean(), "win_against": y.mean(), "d_win": float(est), "win_lo": float(lo),
                "win_hi": float(hi), "vp": p["vp"].mean(), "vp_against": p["vp_b"].mean(), "d_vp": float(mean),
                "vp_lo": float(vlo), "vp_hi": float(vhi),
            }
        )  # fmt: skip
    games = run.scan("games").filter(pl.col("arm").is_in([a, b])).select("arm", "game", "crashed").collect()
    crashed = games.filter(pl.col("arm") == a).join(games.filter(pl.col("arm") == b), on="game", suffix="_b")
    x, y = crashed["crashed"].to_numpy(), crashed["crashed_b"].to_numpy()
    est, lo, hi = paired_diff_ci((x & y).sum(), (x & ~y).sum(), (~x & y).sum(), (~x & ~y).sum())
    rows.append(
        {
            "strategy": "(crash rate)",
            "against": "",
            "n": crashed.height,
            "win": x.mean(),
            "win_against": y.mean(),
            "d_win": float(est),
            "win_lo": float(lo),
            "win_hi": float(hi),
        }  # fmt: skip
    )
    return pl.DataFrame(rows, infer_schema_length=None).with_columns(
        pl.lit(a).alias("arm"), pl.lit(b).alias("reference")
    )
