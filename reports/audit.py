"""The report's audit section: a table per ``eastindia audit`` file of the run folder (``RUN_DIR/audit/*.parquet``)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from experiments.audit import AUDIT, best, summary

from .tables import Table, pct


def audit_tables(run_dir: Path) -> list[tuple[str, Table]]:
    """(title, table) per audit file, in file-name order: each alternative's games, the change in the deciding
    family's win rate and final VP against the answer it played (paired, 95 % intervals) and the crash rate; the
    best alternative highlighted."""
    folder = Path(run_dir) / AUDIT
    out = []
    for path in sorted(folder.glob("*.parquet")) if folder.is_dir() else []:
        rows = pl.read_parquet(path)
        if rows.height == 0:
            continue
        first = rows.row(0, named=True)
        step = "setup" if first["round"] == 0 else f"round {first['round']}"
        seats = ", ".join(sorted(rows["strategy"].unique().to_list()))
        deciders = int(rows["is_played"].sum())
        title = f"{first['decision']} in {step} ({seats}; {deciders:,} decisions; {path.name})"
        table = summary(rows)
        top = best(table)
        out.append(
            (
                title,
                Table(
                    ["alternative", "games", "played there", "Δ win rate (95 % CI)", "Δ VP (95 % CI)", "crash rate"],
                    [
                        [
                            r["alternative"],
                            f"{r['n']:,}",
                            pct(r["played"] / r["n"]),
                            _interval(100 * r["d_win"], 100 * r["win_lo"], 100 * r["win_hi"], " pp"),
                            _interval(r["d_vp"], r["vp_lo"], r["vp_hi"], ""),
                            pct(r["crash"]),
                        ]
                        for r in table.iter_rows(named=True)
                    ],
                    highlight=[r == top for r in table["alternative"].to_list()],
                    numeric=[False, True, True, True, True, True],
                ),
            )
        )
    return out


def _interval(est: float | None, lo: float | None, hi: float | None, unit: str) -> str:
    if est is None or est != est:
        return "—"
    return f"{est:+.1f}{unit} ({lo:+.1f} to {hi:+.1f})".replace("-", "−")
