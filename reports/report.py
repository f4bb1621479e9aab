"""``write_report(run_dir)``: charts, report.html and summary.md for a run folder."""

from __future__ import annotations

from pathlib import Path

from experiments.runfolder import EXPERIMENT, Run

from . import html, markdown
from .charts import draw_all
from .data import aggregate
from .summary import arm_differences, arm_summary
from .tables import arms_table, differences_note, differences_tables, settings_table, summary_table

REPORT = "report.html"
SUMMARY = "summary.md"
CHARTS_DIR = "charts"


def write_report(run_dir: str | Path) -> Path:
    """Write RUN_DIR/charts/*.png, RUN_DIR/report.html (self-contained) and RUN_DIR/summary.md; return the
    report's path."""
    run = Run.open(run_dir)
    agg = aggregate(run)
    charts = draw_all(agg, run.path / CHARTS_DIR)
    summary, diffs = arm_summary(agg), arm_differences(agg)
    tables = {
        "settings": settings_table(agg),
        "arms": arms_table(agg),
        "summary": summary_table(agg, summary),
    }
    differences = differences_tables(agg, diffs)
    note = differences_note(diffs)
    title = str(run.meta.get("name") or run.path.name)
    toml_path = run.path / EXPERIMENT
    page = html.render(
        title=title,
        status=run.meta.get("status"),
        charts=charts,
        differences=differences,
        differences_note=note,
        experiment_toml=toml_path.read_text(encoding="utf-8") if toml_path.exists() else None,
        **tables,
    )
    out = run.path / REPORT
    out.write_text(page, encoding="utf-8")
    (run.path / SUMMARY).write_text(
        markdown.render(title=title, differences=differences, note=note, **tables), encoding="utf-8"
    )
    return out
