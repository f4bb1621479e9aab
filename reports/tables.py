"""The report's tables as formatted cells, shared by the HTML page and summary.md (rendered by each)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from .data import Aggregates, format_value, short_keys
from .summary import arm_differences, arm_summary


@dataclass
class Table:
    """Header, rows of text cells, and which rows to highlight (e.g. intervals excluding zero)."""

    columns: list[str]
    rows: list[list[str]]
    highlight: list[bool] = field(default_factory=list)
    numeric: list[bool] = field(default_factory=list)  # right-align these columns


def pct(p: float | None, lo: float | None = None, hi: float | None = None) -> str:
    """``61.0 % (57.2–64.6)``; an em dash for a missing value."""
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


def summary_table(agg: Aggregates, summary: pl.DataFrame | None = None) -> Table:
    """Per arm: games, crash rate, mean end round, each strategy's win rate and mean VP (intervals at 95 %)."""
    df = arm_summary(agg) if summary is None else summary
    columns = ["#", "arm", "games", "crash rate (95 % CI)", "mean end round (95 % CI)"]
    fair_in_header = {}
    for s in agg.strategies:
        fair = df[f"fair_{s}"].drop_nulls().unique().to_list()
        fair_in_header[s] = len(fair) == 1
        columns.append(f"{s}: win rate" + (f" (fair {pct(fair[0])})" if len(fair) == 1 else ""))
    columns += [f"{s}: mean VP" for s in agg.strategies]
    rows = []
    for r in df.iter_rows(named=True):
        row = [
            str(r["arm_index"]),
            r["label"],
            f"{r['games']:,}",
            pct(r["crash_rate"], r["crash_lo"], r["crash_hi"]),
            f"{r['mean_end_round']:.2f} ({r['end_round_lo']:.2f}–{r['end_round_hi']:.2f})",
        ]
        for s in agg.strategies:
            cell = pct(r[f"win_{s}"], r[f"win_{s}_lo"], r[f"win_{s}_hi"])
            if not fair_in_header[s] and r[f"fair_{s}"] is not None:
                cell += f", fair {pct(r[f'fair_{s}'])}"
            row.append(cell)
        row += ["—" if r[f"mean_vp_{s}"] is None else f"{r[f'mean_vp_{s}']:.2f}" for s in agg.strategies]
        rows.append(row)
    return Table(columns, rows, numeric=[False, False] + [True] * (len(columns) - 2))


def differences_tables(agg: Aggregates, diffs: pl.DataFrame | None = None) -> list[tuple[str, Table]]:
    """One table per measure (crash rate, each strategy's win rate): every pair of arms, both rates, the change
    B − A with its 95 % CI, and whether the CI excludes zero."""
    df = arm_differences(agg) if diffs is None else diffs
    out = []
    for (measure,), part in df.group_by("measure", maintain_order=True):
        columns = ["arm A", "arm B", f"{measure} A", f"{measure} B", "change B − A (95 % CI)", "CI excludes 0"]
        rows = [
            [
                r["label_a"],
                r["label_b"],
                pct(r["rate_a"]),
                pct(r["rate_b"]),
                change(r["diff"], r["lo"], r["hi"]),
                "yes" if r["excludes_zero"] else "",
            ]
            for r in part.iter_rows(named=True)
        ]
        numeric = [False, False, True, True, True, False]
        out.append((measure, Table(columns, rows, highlight=part["excludes_zero"].to_list(), numeric=numeric)))
    return out


def differences_note(diffs: pl.DataFrame) -> str:
    n, k = diffs.height, int(diffs["excludes_zero"].sum()) if diffs.height else 0
    return (
        f"{k} of {n} intervals exclude zero. With {n} intervals at 95 %, about {n / 20:.1f} would exclude zero by "
        "chance alone if no arm differed; the arms share their dice (common random numbers), which makes these "
        "independent-sample (Newcombe) intervals conservative."
        if n
        else "Only one arm: nothing to compare."
    )


def settings_table(agg: Aggregates) -> Table:
    """The run's resolved settings from run.json."""
    m = agg.run.meta
    strategies = {json.dumps(a.strategies) for a in agg.arms}
    total = int(agg.games()["games"].sum())
    rows: list[tuple[str, Any]] = [
        ("name", m.get("name")),
        ("status", m.get("status")),
        ("command", m.get("command")),
        ("seed", m.get("seed")),
        ("players", m.get("players")),
        ("games per arm", _num(m.get("games_per_arm"))),
        ("arms", len(agg.arms)),
        ("games in total", f"{total:,}"),
        ("swept / listed parameters", ", ".join(agg.run.param_keys) or "none"),
        ("strategies", ", ".join(agg.arms[0].strategies) if len(strategies) == 1 else "per arm, below"),
        ("seat rotation", _rotation(agg)),
        ("shard size", _num(m.get("shard_size"))),
        ("started", m.get("started")),
        ("finished", m.get("finished")),
        ("wall time", f"{m['wall_time_s']:.1f} s" if isinstance(m.get("wall_time_s"), int | float) else None),
        ("games per second", _num(m.get("games_per_s"))),
        ("experiment digest", m.get("experiment_digest")),
        ("versions", ", ".join(f"{k} {v}" for k, v in (m.get("versions") or {}).items())),
    ]
    return Table(["setting", "value"], [[k, str(v)] for k, v in rows if v not in (None, "")])


def arms_table(agg: Aggregates) -> Table:
    """One row per arm: index, full name, each parameter, other overrides, strategies and rules file."""
    keys = agg.run.param_keys
    short = short_keys(keys)
    meta = {a["index"]: a for a in agg.run.arms}
    columns = ["#", "arm", *[short[k] for k in keys], "other overrides", "strategies", "rules file"]
    rows = []
    for arm in agg.arms:
        a = meta[arm.index]
        other = {k: v for k, v in (a.get("overrides") or {}).items() if k not in arm.params}
        rows.append(
            [
                str(arm.index),
                arm.name,
                *[format_value(arm.params[k]) if k in arm.params else "—" for k in keys],
                ", ".join(f"{k}={format_value(v)}" for k, v in other.items()) or "—",
                ", ".join(arm.strategies),
                a.get("rules_file") or "default rules",
            ]
        )
    return Table(columns, rows)


def _num(value: Any) -> str | None:
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.1f}" if isinstance(value, float) else value


def _rotation(agg: Aggregates) -> str:
    arms = agg.run.arms
    if all(a.get("rotate") for a in arms):
        rotations = {a.get("rotations") for a in arms}
        return "yes" + (f" ({rotations.pop()} rotations)" if len(rotations) == 1 and None not in rotations else "")
    return "no" if not any(a.get("rotate") for a in arms) else "some arms"
