"""Per-arm statistics as small Polars frames: the summary the CLI prints, win rates, crash hazard, stability
percentiles and the differences between arms (what the tables and charts show)."""

from __future__ import annotations

import itertools
from pathlib import Path

import polars as pl

from experiments.runfolder import Run

from .data import Aggregates, aggregate
from .stats import diff_ci, mean_ci, quantile_from_counts, wilson

CRASH = "crash rate"


def _aggregates(run: Run | Aggregates | str | Path) -> Aggregates:
    return run if isinstance(run, Aggregates) else aggregate(run)


def _with_wilson(df: pl.DataFrame, count: str, nobs: str, name: str) -> pl.DataFrame:
    """Add ``name`` = count / nobs and its 95 % Wilson interval ``lo``, ``hi``."""
    lo, hi = wilson(df[count], df[nobs])
    return df.with_columns(
        (pl.col(count) / pl.col(nobs)).alias(name), pl.Series("lo", lo, pl.Float64), pl.Series("hi", hi, pl.Float64)
    )


def win_rates(run: Run | Aggregates | str | Path) -> pl.DataFrame:
    """Per arm and strategy: ``games``, ``wins`` (games won by a seat playing it), ``win`` = wins / games with its
    Wilson ``lo``, ``hi``, ``fair`` = seats playing it / players, ``vp`` = mean final VP of such a seat."""
    agg = _aggregates(run)
    df = agg.wins.join(agg.vp.select("arm_index", "strategy", "vp"), on=["arm_index", "strategy"])
    df = _with_wilson(df, "wins", "games", "win").with_columns((pl.col("per_game") / agg.players).alias("fair"))
    return df.select("arm_index", "strategy", "games", "wins", "win", "lo", "hi", "fair", "vp")


def seat_win_rates(run: Run | Aggregates | str | Path) -> pl.DataFrame:
    """Per arm and seat (0-based): ``games``, ``wins``, ``win`` with its Wilson ``lo``, ``hi``."""
    agg = _aggregates(run)
    return _with_wilson(agg.seat_wins, "wins", "games", "win").select(
        "arm_index", "seat", "games", "wins", "win", "lo", "hi"
    )


def crash_hazard(run: Run | Aggregates | str | Path) -> pl.DataFrame:
    """Per arm and round r: ``alive`` (games that started round r), ``crashed`` (crashed in round r), ``hazard`` =
    crashed / alive with Wilson ``lo``, ``hi``; ``cum`` = share of all games crashed by the end of round r with
    Wilson ``cum_lo``, ``cum_hi``."""
    agg = _aggregates(run)
    grid = pl.DataFrame({"round": list(range(1, agg.rounds + 1))}, schema={"round": pl.Int64}).join(
        agg.games().select("arm_index", pl.col("games").alias("total")), how="cross"
    )
    o = agg.outcomes
    df = (
        grid.join(o.select("arm_index", "end_round", "crashed", "games"), on="arm_index", how="left")
        .group_by("arm_index", "round", "total")
        .agg(
            pl.col("games").filter(pl.col("end_round") >= pl.col("round")).sum().alias("alive"),
            pl.col("games").filter((pl.col("end_round") == pl.col("round")) & pl.col("crashed")).sum().alias("crashed"),
        )
        .sort("arm_index", "round")
        .with_columns(pl.col("crashed").cum_sum().over("arm_index").alias("crashed_so_far"))
    )
    df = _with_wilson(df, "crashed", "alive", "hazard")
    lo, hi = wilson(df["crashed_so_far"], df["total"])
    return df.with_columns(
        (pl.col("crashed_so_far") / pl.col("total")).alias("cum"), pl.Series("cum_lo", lo), pl.Series("cum_hi", hi)
    ).select("arm_index", "round", "alive", "crashed", "hazard", "lo", "hi", "cum", "cum_lo", "cum_hi")


def stability_quantiles(run: Run | Aggregates | str | Path, qs: tuple[float, ...] = (0.1, 0.5, 0.9)) -> pl.DataFrame:
    """Per arm and round: the stability percentiles ``q10, q50, q90`` over all the arm's games, a crashed game
    counting as 0 in every round after its crash (inverted-CDF percentiles of an integer variable)."""
    agg = _aggregates(run)
    rows = [
        {"arm_index": arm, "round": rnd, **{f"q{round(100 * q)}": quantile_from_counts(s, g, q) for q in qs}}
        for (arm, rnd), part in agg.stability.group_by("arm_index", "round", maintain_order=True)
        for s, g in [(part["stability"], part["games"])]
    ]
    return pl.DataFrame(rows).sort("arm_index", "round")


def arm_summary(run: Run | Aggregates | str | Path) -> pl.DataFrame:
    """One row per arm, in arm order. Columns:

    - ``arm_index``, ``arm`` (name in run.json), ``label`` (short form for charts)
    - ``games``; ``crashed`` (count), ``crash_rate`` with its 95 % Wilson interval ``crash_lo``, ``crash_hi``
    - ``mean_end_round`` with its 95 % Student-t interval ``end_round_lo``, ``end_round_hi``
    - per strategy S (null where the arm does not play S): ``win_S`` = share of games won by a seat playing S,
      with its 95 % Wilson interval ``win_S_lo``, ``win_S_hi``; ``fair_S`` = the share S would win if every
      seat were equally strong (seats playing S / players); ``mean_vp_S`` = mean final VP of a seat playing S.
    """
    agg = _aggregates(run)
    games = agg.games().join(agg.end_round.select("arm_index", "mean", "std"), on="arm_index")
    lo, hi = wilson(games["crashed"], games["games"])
    end_lo, end_hi = mean_ci(games["games"], games["mean"], games["std"])
    out = pl.DataFrame(
        {
            "arm_index": games["arm_index"],
            "arm": [agg.arm(i).name for i in games["arm_index"]],
            "label": [agg.arm(i).label for i in games["arm_index"]],
            "games": games["games"],
            "crashed": games["crashed"],
            "crash_rate": games["crashed"] / games["games"],
            "crash_lo": lo,
            "crash_hi": hi,
            "mean_end_round": games["mean"],
            "end_round_lo": end_lo,
            "end_round_hi": end_hi,
        }
    )
    wins = win_rates(agg)
    for s in agg.strategies:
        part = wins.filter(pl.col("strategy") == s).select(
            "arm_index",
            pl.col("win").alias(f"win_{s}"),
            pl.col("lo").alias(f"win_{s}_lo"),
            pl.col("hi").alias(f"win_{s}_hi"),
            pl.col("fair").alias(f"fair_{s}"),
            pl.col("vp").alias(f"mean_vp_{s}"),
        )
        out = out.join(part, on="arm_index", how="left")
    return out.sort("arm_index")


def arm_summary_short(run: Run | Aggregates | str | Path) -> pl.DataFrame:
    """The columns a terminal needs from ``arm_summary``: ``arm`` (the short label), ``games, crash_rate,
    mean_end_round`` and ``win_S`` per strategy S."""
    agg = _aggregates(run)
    return arm_summary(agg).select(
        pl.col("label").alias("arm"), "games", "crash_rate", "mean_end_round", *[f"win_{s}" for s in agg.strategies]
    )


def arm_differences(run: Run | Aggregates | str | Path) -> pl.DataFrame:
    """For every measure (crash rate, then each strategy's win rate) and pair of arms (A before B): the
    change ``diff = rate_b - rate_a`` with its 95 % Newcombe interval ``lo``, ``hi`` (see ``stats.diff_ci``) and
    ``excludes_zero`` (the interval does not contain 0). Columns: ``arm_a, arm_b`` (indices), ``label_a,
    label_b``, ``measure``, ``rate_a, rate_b, diff, lo, hi, excludes_zero``."""
    agg = _aggregates(run)
    games = {row["arm_index"]: row for row in agg.games().iter_rows(named=True)}
    wins = {(r["arm_index"], r["strategy"]): r["wins"] for r in agg.wins.iter_rows(named=True)}
    pairs = list(itertools.combinations([arm.index for arm in agg.arms if arm.index in games], 2))
    counts = {(CRASH, a): games[a]["crashed"] for a in games}
    counts |= {(f"win rate {s}", a): w for (a, s), w in wins.items()}
    rows = []
    for measure in [CRASH, *[f"win rate {s}" for s in agg.strategies]]:
        for a, b in pairs:
            if (measure, a) not in counts or (measure, b) not in counts:
                continue
            count_a, count_b = counts[measure, a], counts[measure, b]
            n_a, n_b = games[a]["games"], games[b]["games"]
            diff, lo, hi = diff_ci(count_a, n_a, count_b, n_b)
            rows.append(
                {
                    "arm_a": a,
                    "arm_b": b,
                    "label_a": agg.arm(a).label,
                    "label_b": agg.arm(b).label,
                    "measure": measure,
                    "rate_a": count_a / n_a,
                    "rate_b": count_b / n_b,
                    "diff": diff,
                    "lo": lo,
                    "hi": hi,
                    "excludes_zero": bool(lo > 0 or hi < 0),
                }
            )
    schema = {
        "arm_a": pl.Int64,
        "arm_b": pl.Int64,
        "label_a": pl.String,
        "label_b": pl.String,
        "measure": pl.String,
        "rate_a": pl.Float64,
        "rate_b": pl.Float64,
        "diff": pl.Float64,
        "lo": pl.Float64,
        "hi": pl.Float64,
        "excludes_zero": pl.Boolean,
    }
    return pl.DataFrame(rows, schema=schema)
