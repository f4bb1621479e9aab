"""Per-arm statistics as small Polars frames: the summary the CLI prints, win rates, crash hazard, stability
percentiles, and crash causes, stability changes by cause, the economy by round, VP by outcome, VP
distributions and winning margins, win rates against bids and capital, and seat advantage (what the tables and
charts show; the comparisons between arms are in ``reports.compare``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from experiments.runfolder import Run
from sim.layout import VP_SOURCES

from .data import Aggregates, aggregate
from .stats import mean_ci, quantile_from_counts, wilson

CRASH = "crash rate"


def several_strategies(agg: Aggregates) -> bool:
    """Does some arm seat two strategies or more? (With one, it wins every game: no win rate to show.)"""
    return any(len(set(arm.strategies)) > 1 for arm in agg.arms)


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


# ------------------------------------------------------------------------------------------------ stability causes
CAUSES = ("emergency", "expectation", "regions", "laws")  # a crash's cause: what took the last point (crash_cause)


def crash_causes(run: Run | Aggregates | str | Path) -> pl.DataFrame:
    """Per arm and cause (``CAUSES``: the stability loss that took the Company's last point, ``data.crash_cause``):
    ``crashes``, ``share`` of the arm's crashes with its Wilson ``lo, hi``, ``rate`` (crashes of that cause / the
    arm's games) and ``r1 .. rR`` (crashes of that cause in round r)."""
    agg = _aggregates(run)
    games = dict(agg.games().select("arm_index", "games").iter_rows())
    rows = []
    for arm in agg.arms:
        part = agg.crash_causes.filter(pl.col("arm_index") == arm.index)
        total = int(part["crashes"].sum())
        for cause in [*CAUSES, *sorted(set(part["cause"]) - set(CAUSES))]:
            mine = part.filter(pl.col("cause") == cause)
            k = int(mine["crashes"].sum())
            if k == 0 and cause not in CAUSES:
                continue
            by_round = dict(mine.select("round", "crashes").iter_rows())
            lo, hi = wilson(k, total)
            rows.append(
                {
                    "arm_index": arm.index,
                    "cause": cause,
                    "crashes": k,
                    "share": k / total if total else float("nan"),
                    "lo": float(lo),
                    "hi": float(hi),
                    "rate": k / games[arm.index],
                    **{f"r{r}": int(by_round.get(r, 0)) for r in range(1, agg.rounds + 1)},
                }
            )
    return pl.DataFrame(rows)


def stability_changes(run: Run | Aggregates | str | Path) -> pl.DataFrame:
    """Per arm, round and stability cause: ``games`` alive in the round and ``mean`` change per such game (losses
    negative), from the rounds frame's cause tallies."""
    from sim.state import STABILITY_CAUSES

    agg = _aggregates(run)
    causes = [c for c in STABILITY_CAUSES if c in agg.causes.columns]
    return (
        agg.causes.unpivot(index=["arm_index", "round", "games"], on=causes, variable_name="cause", value_name="sum")
        .with_columns((pl.col("sum") / pl.col("games")).alias("mean"))
        .sort("arm_index", "round")
    )


def economy_quantiles(run: Run | Aggregates | str | Path) -> pl.DataFrame:
    """Per arm, series (``data.ECONOMY``) and round: ``games`` running at its end and the ``q10, q50, q90`` of the
    series over them (inverted-CDF percentiles of integer £ counts)."""
    agg = _aggregates(run)
    rows = []
    for (arm, series, rnd), part in agg.economy.group_by("arm_index", "series", "round", maintain_order=True):
        values, counts = part["value"], part["games"]
        rows.append(
            {
                "arm_index": arm,
                "series": series,
                "round": rnd,
                "games": int(counts.sum()),
                **{f"q{round(100 * q)}": quantile_from_counts(values, counts, q) for q in (0.1, 0.5, 0.9)},
            }
        )
    return pl.DataFrame(rows).sort("arm_index", "series", "round")


def vp_by_outcome(run: Run | Aggregates | str | Path) -> pl.DataFrame:
    """Per arm, strategy, outcome (``crashed`` / ``survived``) and source (``vp`` = the total, then each VP
    source): ``seats`` and the ``mean`` final VP of such a seat with its 95 % Student-t ``lo, hi``."""
    agg = _aggregates(run)
    rows = []
    for r in agg.vp_outcome.iter_rows(named=True):
        n = r["seats"]
        for col in ["vp", *[f"vp_{s}" for s in VP_SOURCES]]:
            mean = r[f"sum_{col}"] / n
            var = max((r[f"sq_{col}"] - n * mean**2) / (n - 1), 0.0) if n > 1 else float("nan")
            lo, hi = mean_ci(n, mean, var**0.5)
            rows.append(
                {
                    "arm_index": r["arm_index"],
                    "strategy": r["strategy"],
                    "outcome": "crashed" if r["crashed"] else "survived",
                    "source": col.removeprefix("vp_") if col != "vp" else "total",
                    "seats": n,
                    "mean": mean,
                    "lo": float(lo),
                    "hi": float(hi),
                }
            )
    return pl.DataFrame(rows)


def _counted_mean_ci(values: np.ndarray, counts: np.ndarray) -> tuple[float, float, float, float]:
    """(n, mean, lo, hi) of values given with their counts: the mean with its Student-t 95 % interval."""
    n = counts.sum()
    mean = float((values * counts).sum() / n)
    std = float(((counts * (values - mean) ** 2).sum() / (n - 1)) ** 0.5) if n > 1 else float("nan")
    lo, hi = mean_ci(n, mean, std)
    return n, mean, float(lo), float(hi)


def vp_distribution(run: Run | Aggregates | str | Path) -> pl.DataFrame:
    """Per arm and strategy: ``seats``, the ``mean`` final VP with its Student-t ``lo, hi``, the ``q10, q50, q90``
    and the share of seats ending with VP <= 0 (``at_most_0``)."""
    agg = _aggregates(run)
    rows = []
    for (arm, strategy), part in agg.vp_values.group_by("arm_index", "strategy", maintain_order=True):
        v, c = part["vp"].to_numpy(), part["seats"].to_numpy().astype(float)
        n, mean, lo, hi = _counted_mean_ci(v, c)
        rows.append(
            {
                "arm_index": arm,
                "strategy": strategy,
                "seats": int(n),
                "mean": mean,
                "lo": float(lo),
                "hi": float(hi),
                **{f"q{round(100 * q)}": quantile_from_counts(v, c, q) for q in (0.1, 0.5, 0.9)},
                "at_most_0": float(c[v <= 0].sum() / n),
            }
        )
    return pl.DataFrame(rows).sort("arm_index", "strategy")


def winning_margins(run: Run | Aggregates | str | Path) -> pl.DataFrame:
    """Per arm and winning strategy: ``wins`` (games its seat won), the ``mean`` margin (winner's VP − the
    runner-up's) with its Student-t ``lo, hi``, the median ``q50`` and ``close`` (share of those wins by at most
    1 VP; a margin of 0 is a tie broken by wealth, money or chance)."""
    agg = _aggregates(run)
    rows = []
    for (arm, strategy), part in agg.margins.group_by("arm_index", "strategy", maintain_order=True):
        v, c = part["margin"].to_numpy(), part["games"].to_numpy().astype(float)
        n, mean, lo, hi = _counted_mean_ci(v, c)
        rows.append(
            {
                "arm_index": arm,
                "strategy": strategy,
                "wins": int(n),
                "mean": mean,
                "lo": float(lo),
                "hi": float(hi),
                "q50": quantile_from_counts(v, c, 0.5),
                "close": float(c[v <= 1].sum() / n),
            }
        )
    return pl.DataFrame(rows).sort("arm_index", "strategy")


def _bins(values: list[int], counts: list[int], target: int) -> list[tuple[int, int]]:
    """Consecutive value ranges (lo, hi) holding at least ``target`` seats each (the last one absorbs a remainder)."""
    bins, start, held = [], None, 0
    for v, c in zip(values, counts, strict=True):
        start = v if start is None else start
        held += c
        if held >= target:
            bins.append((start, v))
            start, held = None, 0
    if start is not None:
        if bins:
            bins[-1] = (bins[-1][0], values[-1])
        else:
            bins.append((start, values[-1]))
    return bins


def capital_win_rates(run: Run | Aggregates | str | Path, max_bins: int = 8, min_seats: int = 30) -> pl.DataFrame:
    """Per arm, strategy and ``by`` (``bid_total`` or ``starting_capital``): the seats' values in ranges of about
    equal size (at most ``max_bins``, at least ``min_seats`` seats each; ``lo_value .. hi_value``, ``mid`` the
    seats' mean value), their ``seats``, ``wins`` and win rate ``win`` with its Wilson ``lo, hi``."""
    agg = _aggregates(run)
    rows = []
    for (arm, strategy, by), part in agg.capital_wins.group_by("arm_index", "strategy", "by", maintain_order=True):
        part = part.sort("value")
        values, seats, wins = part["value"].to_list(), part["seats"].to_list(), part["wins"].to_list()
        target = max(min_seats, -(-sum(seats) // max_bins))
        for lo_v, hi_v in _bins(values, seats, target):
            inside = [(v, s, w) for v, s, w in zip(values, seats, wins, strict=True) if lo_v <= v <= hi_v]
            n, k = sum(s for _, s, _ in inside), sum(w for _, _, w in inside)
            lo, hi = wilson(k, n)
            rows.append(
                {
                    "arm_index": arm,
                    "strategy": strategy,
                    "by": by,
                    "lo_value": lo_v,
                    "hi_value": hi_v,
                    "mid": sum(v * s for v, s, _ in inside) / n,
                    "seats": n,
                    "wins": k,
                    "win": k / n,
                    "lo": float(lo),
                    "hi": float(hi),
                }
            )
    return pl.DataFrame(rows)


def seat_strategy_rates(run: Run | Aggregates | str | Path) -> pl.DataFrame:
    """Per arm, strategy and seat (0-based): ``seat_games`` (games the strategy sat there), ``wins`` and the win
    rate ``win`` with its Wilson ``lo, hi``."""
    agg = _aggregates(run)
    df = (
        agg.seat_strategy.group_by("arm_index", "strategy", "seat")
        .agg(pl.col("games").sum().alias("seat_games"), pl.col("wins").sum())
        .sort("arm_index", "strategy", "seat")
    )
    lo, hi = wilson(df["wins"], df["seat_games"])
    return df.with_columns(
        (pl.col("wins") / pl.col("seat_games")).alias("win"), pl.Series("lo", lo), pl.Series("hi", hi)
    )


def seat_advantage(run: Run | Aggregates | str | Path) -> pl.DataFrame:
    """Seat advantage that holds under any rotation. In every seating (rotation) a seat is compared
    with the seats playing the same strategy at the same table: per game, X = 1[the seat won] − (1/m)·1[one of
    those m seats won]; ``advantage`` is the mean of X over the games where the seat has m > 1 such peers (one
    strategy per table: m = players and X = its excess over 1/players), with its Student-t ``lo, hi``. Who sits
    where and who else is at the table are the same for the seat and its peers, so neither strategy nor table
    composition can pass for seat advantage. Columns: ``arm_index, seat, games`` (games compared), ``advantage,
    lo, hi`` and the raw ``win`` rate of the seat over all games with its Wilson ``win_lo, win_hi``."""
    agg = _aggregates(run)
    rows = []
    for arm in agg.arms:
        part = agg.seat_strategy.filter(pl.col("arm_index") == arm.index)
        stats: dict[int, list[float]] = {}
        raw: dict[int, list[int]] = {}
        for (_rotation,), table in part.group_by("rotation", maintain_order=True):
            games = int(table["games"].max())
            group = dict(table.group_by("strategy").agg(pl.col("wins").sum(), pl.len().alias("m")).select(
                "strategy", pl.struct("wins", "m")).iter_rows())  # fmt: skip
            for r in table.iter_rows(named=True):
                seat = r["seat"]
                w = raw.setdefault(seat, [0, 0])
                w[0] += r["wins"]
                w[1] += r["games"]
                wins_p, m = group[r["strategy"]]["wins"], group[r["strategy"]]["m"]
                if m < 2:
                    continue
                sum_x = r["wins"] - wins_p / m
                sum_x2 = r["wins"] * (1 - 1 / m) ** 2 + (wins_p - r["wins"]) / m**2
                acc = stats.setdefault(seat, [0.0, 0.0, 0.0])
                acc[0] += games
                acc[1] += sum_x
                acc[2] += sum_x2
        for seat in sorted(raw):
            n, sx, sx2 = stats.get(seat, [0.0, 0.0, 0.0])
            mean = sx / n if n else float("nan")
            std = max((sx2 - n * mean**2) / (n - 1), 0.0) ** 0.5 if n > 1 else float("nan")
            lo, hi = mean_ci(n, mean, std)
            k, games = raw[seat]
            w_lo, w_hi = wilson(k, games)
            rows.append(
                {
                    "arm_index": arm.index,
                    "seat": seat,
                    "games": int(n),
                    "advantage": mean,
                    "lo": float(lo),
                    "hi": float(hi),
                    "win": k / games,
                    "win_lo": float(w_lo),
                    "win_hi": float(w_hi),
                }
            )
    return pl.DataFrame(rows)
