"""The terminal summary of a run (after ``eastindia run`` and ``eastindia report``): one ``rich`` table per arm with
its crash rate, mean end round and each strategy's win rate, each with its 95 % interval, and the strategy's fair
share (seats playing it / players). Shares of games are percentages with one decimal, as in the report."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from experiments.runfolder import Run
from experiments.stats import pct

from .data import Aggregates, aggregate
from .summary import arm_summary


def _interval(lo: float | None, hi: float | None, percent: bool) -> str:
    if lo is None or hi is None or lo != lo or hi != hi:
        return "—"
    return f"{100 * lo:.1f}–{100 * hi:.1f} %" if percent else f"{lo:.2f}–{hi:.2f}"


def arm_tables(run: Run | Aggregates | str | Path) -> list[Table]:
    """One table per arm, titled with the arm's name (the one in run.json, the frames and ``--reference``)."""
    agg = run if isinstance(run, Aggregates) else aggregate(run)
    tables = []
    for r in arm_summary(agg).iter_rows(named=True):
        arm = agg.arm(r["arm_index"])
        table = Table(title=f"{r['arm']}  ({r['games']:,} games)", title_justify="left")
        table.add_column("measure")
        table.add_column("estimate", justify="right")
        table.add_column("95 % interval", justify="right")
        table.add_column("fair share", justify="right")
        table.add_row("crash rate", pct(r["crash_rate"]), _interval(r["crash_lo"], r["crash_hi"], True), "")
        end = r["mean_end_round"]
        table.add_row(
            "mean end round",
            "—" if end is None or end != end else f"{end:.2f}",
            _interval(r["end_round_lo"], r["end_round_hi"], False),
            "",
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


def print_summary(run: Run | Aggregates | str | Path, console: Console | None = None) -> None:
    """Print ``arm_tables`` (on stdout unless ``console`` says otherwise)."""
    console = console or Console(highlight=False)
    for table in arm_tables(run):
        console.print(table)
