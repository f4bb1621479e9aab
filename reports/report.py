"""``write_report(run_dir)``: charts, report.html, summary.md and comparisons.parquet for a run folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from experiments import runfolder as rf
from experiments.runfolder import EXPERIMENT, Run

from . import html, interactive, markdown
from .audit import audit_tables
from .banner import banner
from .calibration import calibration_table
from .charts import draw_all
from .compare import comparisons, plan, precision_of
from .data import Aggregates, aggregate, check_frames
from .smells import smells_table, typical_games
from .summary import arm_summary, several_strategies
from .tables import (
    WINS_HOW_NOTE,
    arms_table,
    capital_table,
    comparison_tables,
    comparisons_note,
    crash_cause_table,
    economy_table,
    main_causes,
    precision_line,
    seat_table,
    settings_table,
    summary_table,
    verdict,
    vp_outcome_table,
    vp_table,
    wins_how_table,
)

REPORT = "report.html"
SUMMARY = "summary.md"
COMPARISONS = "comparisons.parquet"
CHARTS_DIR = "charts"

Progress = Callable[..., None]
"""``progress(step)`` as a step begins, ``progress(step, done, total)`` as a counted one goes on (``cli.Steps``)."""


def _quiet(step: str, done: int | None = None, total: int | None = None) -> None:
    """No progress told."""


def write_report(
    run_dir: str | Path,
    reference: str | None = None,
    progress: Progress | None = None,
    drawn: Callable[[Aggregates], None] | None = None,
) -> Path:
    """Write RUN_DIR/charts/*.png, RUN_DIR/report.html (self-contained, opening on its verdict), RUN_DIR/summary.md and
    RUN_DIR/comparisons.parquet (every arm against ``reference``, an arm name: default run.json's reference, else
    the first arm); return the report's path. A metagame folder gets its own report (``reports.metagame``).
    ``progress`` is told each step once the folder has passed its checks, and each chart drawn (``Progress``); it
    changes nothing written. ``drawn`` is handed the aggregates the report was drawn from (the command's summary on
    the terminal is printed from them instead of reading the frames again)."""
    from .metagame import is_metagame, write_metagame_report

    progress = progress or _quiet
    if is_metagame(run_dir):
        progress("writing the metagame report")
        return write_metagame_report(run_dir)
    run = Run.open(run_dir)
    check_frames(run)
    if reference is not None and run.arms:
        plan(run, reference)  # a reference that names no arm fails here, before any work
    rf.check_targets(run.path, [COMPARISONS, CHARTS_DIR, REPORT, SUMMARY])  # a link refused before any write
    progress("aggregating the frames")  # the first step told: the folder can no longer be refused
    agg = aggregate(run)
    progress(f"comparing {len(agg.arms)} arms with the reference")
    comp = comparisons(run, reference, arms=[a.index for a in agg.arms])
    agg.comparisons = comp
    with rf.open_write(run.path, COMPARISONS) as fh:
        comp.write_parquet(fh)
    progress("precision of the headlines")
    precision = precision_of(run, reference)
    charts = draw_all(agg, run.path / CHARTS_DIR, progress)
    progress("tables")
    per_arm = arm_summary(agg)
    tables = {
        "settings": settings_table(agg),
        "arms": arms_table(agg),
        "summary": summary_table(agg, per_arm),
        "wins_how": wins_how_table(agg),
    }
    wins = interactive.win_rows(agg, per_arm) if several_strategies(agg) else []
    causes = {arm: c["cause"] for arm, c in main_causes(agg).items()}
    crashes = interactive.crash_rows(per_arm, causes)
    sections = [
        ("Why games crash", [("Crash causes by round", crash_cause_table(agg))]),
        ("The economy", [("Median (10–90 %) by round", economy_table(agg))]),
        (
            "Victory points",
            [
                ("VP by source: crashed or survived (95 % CI)", vp_outcome_table(agg)),
                ("VP distributions and winning margins", vp_table(agg)),
            ],
        ),
        (
            "Bids, capital and seats",
            [("Win rate against bids and capital", capital_table(agg)), ("Seat advantage", seat_table(agg))],
        ),
    ]
    calibrated = calibration_table(run.meta, per_arm)
    if calibrated is not None:  # the crash belief the players acted on, against what it predicted and produced
        sections.append(("Calibration of the crash belief", [("Predicted against observed crash rate", calibrated)]))
    audits = audit_tables(run.path)
    if audits:  # eastindia audit: what one decision was worth against its alternatives
        sections.append(("Audits of decisions", audits))
    compared = comparison_tables(agg, comp)
    note = comparisons_note(agg, comp)
    warnings = banner(agg)
    reached = precision_line(agg, precision)
    title = str(run.meta.get("name") or run.path.name)
    toml_path = run.path / EXPERIMENT
    progress("interactive charts")
    interactive.script()  # the page's Vega bundle, read once (cached) here rather than inside html.render
    verdict_chart = interactive.verdict_chart(agg, wins, crashes)
    win_table = interactive.win_table(agg, wins) if wins else None
    comparison_chart = interactive.comparison_chart(agg, comp)
    smells, typical = smells_table(run), typical_games(run)
    progress(f"writing {REPORT} ({len(charts)} charts embedded)")
    page = html.render(
        title=title,
        status=run.meta.get("status"),
        banner=warnings,
        precision=reached,
        verdict=verdict(agg, per_arm, comp),
        verdict_chart=verdict_chart,
        win_table=win_table,
        comparison_chart=comparison_chart,
        charts=charts,
        comparisons=compared,
        comparisons_note=note,
        sections=sections,
        experiment_toml=toml_path.read_text(encoding="utf-8") if toml_path.exists() else None,
        smells=smells,
        typical=typical,
        wins_how_note=WINS_HOW_NOTE,
        **tables,
    )
    out = rf.write_file(run.path, REPORT, page)
    progress(f"writing {SUMMARY}")
    rf.write_file(
        run.path,
        SUMMARY,
        markdown.render(
            title=title,
            banner=warnings,
            precision=reached,
            comparisons=compared,
            note=note,
            sections=sections,
            charts=charts,
            wins_how_note=WINS_HOW_NOTE,
            **tables,
        ),
    )
    if drawn is not None:
        drawn(agg)
    return out
