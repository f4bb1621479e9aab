"""The terminal summary of a run (after ``eastindia run`` and ``eastindia report``).

- One arm: a compact table of its crash rate, mean end round and each strategy's win rate, each with its 95 %
  interval, and the strategy's fair share (seats playing it / players).
- Several arms: one table, an arm a row, labelled by what tells the arms apart (``reports.labels``): its crash rate,
  the change of its crash rate against the reference arm with the 95 % interval of that paired change (the run's
  comparisons, ``reports.compare``), its mean end round and each strategy's win rate, or, when a column per strategy
  would not fit the terminal, the strategy that wins most. The title says what every arm shares; lines after the
  table say what the change means and the fair share.

Printed on a terminal, the tables fit its width. Printed into a pipe or a file, nothing is wrapped: each row is one
line however long. Shares of games are percentages with one decimal, as in the report."""

from __future__ import annotations

from pathlib import Path
from typing import IO

import polars as pl
from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from experiments.runfolder import Run
from experiments.stats import CRASH, change, pct

from .compare import comparisons, plan
from .data import Aggregates, aggregate
from .labels import NAME, SEP, ArmLabels, arm_labels
from .report import COMPARISONS
from .summary import arm_summary

UNWRAPPED = 10_000  # the width of a console that is not a terminal: wide enough that no table is squeezed


def make_console(file: IO[str] | None = None) -> Console:
    """A console on ``file`` (default: stdout): a terminal's own width, else ``UNWRAPPED`` wide and without soft
    wrapping, so that a pipe or a file gets each row on one line."""
    out = Console(file=file, highlight=False)
    if out.is_terminal:
        return out
    return Console(file=file, highlight=False, width=UNWRAPPED, soft_wrap=True)


def _interval(lo: float | None, hi: float | None, percent: bool) -> str:
    if lo is None or hi is None or lo != lo or hi != hi:
        return "—"
    return f"{100 * lo:.1f}–{100 * hi:.1f} %" if percent else f"{lo:.2f}–{hi:.2f}"


def _end(x: float | None) -> str:
    return "—" if x is None or x != x else f"{x:.2f}"


def _aggregates(run: Run | Aggregates | str | Path) -> Aggregates:
    return run if isinstance(run, Aggregates) else aggregate(run)


def arm_tables(run: Run | Aggregates | str | Path) -> list[Table]:
    """One compact table per arm (no title: ``arm_title`` says which arm)."""
    agg = _aggregates(run)
    tables = []
    for r in arm_summary(agg).iter_rows(named=True):
        arm = agg.arm(r["arm_index"])
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, collapse_padding=True)
        table.add_column("measure")
        table.add_column("estimate", justify="right")
        table.add_column("95 % interval", justify="right")
        table.add_column("fair share", justify="right")
        table.add_row("crash rate", pct(r["crash_rate"]), _interval(r["crash_lo"], r["crash_hi"], True), "")
        table.add_row(
            "mean end round", _end(r["mean_end_round"]), _interval(r["end_round_lo"], r["end_round_hi"], False), ""
        )
        strategies = list(dict.fromkeys(arm.strategies))
        if len(strategies) < 2:
            table.caption = f"{strategies[0] if strategies else 'one strategy'} plays every seat: it wins every game"
        else:
            for s in strategies:
                table.add_row(
                    f"win rate: {s}",
                    pct(r[f"win_{s}"]),
                    _interval(r[f"win_{s}_lo"], r[f"win_{s}_hi"], True),
                    pct(r[f"fair_{s}"]),
                )
        tables.append(table)
    return tables


def arm_title(name: str, games: int) -> str:
    return f"{name}  ({games:,} games)"


# -------------------------------------------------------------------------------------------- several arms
def labels_of(agg: Aggregates) -> ArmLabels:
    """The arms' short labels (``reports.labels``)."""
    return arm_labels([a.name for a in agg.arms])


def reference_of(agg: Aggregates) -> str:
    """The name of the arm the others are compared with (run.json's reference, else the first arm: ``plan``)."""
    p = plan(agg.run)
    return p.names[p.reference]


def run_comparisons(agg: Aggregates) -> pl.DataFrame:
    """Every arm against the run's reference arm (``reports.compare.comparisons``): the aggregates' own, else the
    run folder's comparisons.parquet when it compares exactly these arms with this reference on every game played
    (the report wrote it after the last game), else computed afresh."""
    if agg.comparisons is not None:
        return agg.comparisons
    reference = reference_of(agg)
    games = {agg.arm(i).name: n for i, n in agg.games().select("arm_index", "games").iter_rows()}
    try:
        saved = pl.read_parquet(agg.run.path / COMPARISONS)
        crash = dict(saved.filter(pl.col("metric") == CRASH).select("arm", "n").iter_rows())
        fresh = set(saved["reference"]) == {reference} and crash == {
            name: min(n, games[reference]) for name, n in games.items() if name != reference
        }
    except (OSError, pl.exceptions.PolarsError, KeyError):
        fresh = False
    return saved if fresh else comparisons(agg.run, arms=[a.index for a in agg.arms])


def _change(row: dict | None) -> str:
    if row is None or any(row[k] is None or row[k] != row[k] for k in ("estimate", "lo", "hi")):
        return "—"
    return change(row["estimate"], row["lo"], row["hi"])


def fair_shares(agg: Aggregates, per_arm: pl.DataFrame) -> set[float]:
    """The fair shares (seats playing a strategy / players) of the strategies the arms seat with another."""
    return {
        round(r[f"fair_{s}"], 9)
        for r in per_arm.iter_rows(named=True)
        for s in dict.fromkeys(agg.arm(r["arm_index"]).strategies)
        if len(set(agg.arm(r["arm_index"]).strategies)) > 1 and r[f"fair_{s}"] is not None
    }


def runs_table(agg: Aggregates, per_arm: pl.DataFrame, comp: pl.DataFrame, per_strategy: bool = True) -> Table:
    """The arms a row: label, crash rate, its change against the reference (95 % CI), mean end round and each
    strategy's win rate (``per_strategy``) or the strategy that wins most."""
    labels = labels_of(agg)
    crash = {r["arm"]: r for r in comp.filter(pl.col("metric") == CRASH).iter_rows(named=True)}
    reference = reference_of(agg)
    several = [s for s in agg.strategies if any(len(set(a.strategies)) > 1 and s in a.strategies for a in agg.arms)]
    fair = fair_shares(agg, per_arm)
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, collapse_padding=True)
    table.add_column(labels.title.replace(SEP, SEP.rstrip() + "\n"))  # a key a line: no wider than the labels
    games = set(per_arm["games"])
    if len(games) > 1:
        table.add_column("games", justify="right")
    table.add_column("crash\nrate", justify="right")
    table.add_column("crash change\n(95 % CI)", justify="right")
    table.add_column("end\nround", justify="right")
    if per_strategy:
        for s in several:
            table.add_column(s, justify="right")
    elif several:
        table.add_column("most wins", justify="right")
    for r in per_arm.iter_rows(named=True):
        name = r["arm"]
        row = [labels.of(name)] + ([f"{r['games']:,}"] if len(games) > 1 else [])
        row += [pct(r["crash_rate"]), "reference" if name == reference else _change(crash.get(name))]
        row.append(_end(r["mean_end_round"]))
        mine = set(agg.arm(r["arm_index"]).strategies)
        if per_strategy:
            for s in several:
                if s not in mine:
                    row.append("—")
                elif len(mine) < 2:
                    row.append("every seat")
                else:
                    row.append(pct(r[f"win_{s}"]) + ("" if len(fair) == 1 else f" (fair {pct(r[f'fair_{s}'])})"))
        elif several:
            if len(mine) < 2:
                row.append(f"{next(iter(mine), '—')}: every seat")
            else:
                best = max(sorted(mine), key=lambda s: r[f"win_{s}"] or 0.0)
                row.append(f"{best} {pct(r[f'win_{best}'])}")
        table.add_row(*row)
    return table


def runs_lines(agg: Aggregates, per_arm: pl.DataFrame) -> tuple[str, list[str]]:
    """The title line above the table of several arms and the lines below it."""
    labels = labels_of(agg)
    games = set(per_arm["games"])
    name = str(agg.run.meta.get("name") or agg.run.path.name)
    each = f", {next(iter(games)):,} games each" if len(games) == 1 else ""
    title = f"{name}: {len(agg.arms)} arms{each}" + (f"; every arm has {labels.shared}" if labels.shared else "")
    reference = reference_of(agg)
    notes = []
    if labels.keys and labels.labels != labels.names:  # (an arm labelled by its whole name needs no note)
        notes.append(f"An arm is labelled by its {SEP.join('name' if k == NAME else k for k in labels.keys)}.")
    notes.append(
        f"crash change: the arm's crash rate minus the reference's ({labels.of(reference)}) in percentage points, "
        "paired on the same games, with its 95 % interval."
    )
    fair = fair_shares(agg, per_arm)
    if len(fair) == 1:
        notes.append(
            f"Win rate: the share of games a seat playing the strategy wins; the fair share is {pct(fair.pop())} "
            "(its seats / players)."
        )
    return title, notes


# ------------------------------------------------------------------------------------------------- printing
def natural_width(console: Console, table: Table) -> int:
    """The width ``table`` takes when nothing in it is wrapped."""
    return Measurement.get(console, console.options.update_width(UNWRAPPED), table).maximum


def print_summary(run: Run | Aggregates | str | Path, console: Console | None = None) -> None:
    """Print the run's summary (see the module's docstring) on stdout (``make_console``), or on ``console``."""
    out = console or make_console()
    agg = _aggregates(run)
    per_arm = arm_summary(agg)
    if len(agg.arms) < 2:
        for r, table in zip(per_arm.iter_rows(named=True), arm_tables(agg), strict=True):
            out.print(arm_title(r["arm"], r["games"]), soft_wrap=True)
            out.print(table)
        return
    comp = run_comparisons(agg)
    title, notes = runs_lines(agg, per_arm)
    table = runs_table(agg, per_arm, comp)
    if natural_width(out, table) > out.width:  # a column per strategy would not fit: the strategy winning most
        table = runs_table(agg, per_arm, comp, per_strategy=False)
    out.print(title, soft_wrap=True)
    out.print(table)
    for line in notes:
        out.print(line, soft_wrap=True)
