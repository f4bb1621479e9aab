"""Reports on a run folder: charts, a self-contained report.html and summary.md (see ``experiments.runfolder``).

- ``write_report(run_dir) -> Path``: everything, returns RUN_DIR/report.html.
- ``arm_summary(run) -> pl.DataFrame``: one row per arm (games, crash rate, mean end round, win rate and mean VP
  per strategy, with 95 % intervals); its docstring lists the columns. ``arm_summary_short(run)``: the
  columns a terminal needs (arm, games, crash_rate, mean_end_round, win_S per strategy S).
- ``comparisons(run, reference=None) -> pl.DataFrame``: every arm against the reference arm, paired on the shared
  games (``reports.compare``; written to RUN_DIR/comparisons.parquet); ``compare_runs(run_a, run_b)``: two runs.
- ``aggregate(run)`` and ``charts.CHARTS``: the lazily aggregated frames and the chart functions behind them.
"""

from .charts import CHARTS, Chart, draw_all
from .compare import compare_runs, comparisons
from .data import Aggregates, aggregate
from .report import write_report
from .summary import arm_summary, arm_summary_short

__all__ = [
    "CHARTS",
    "Aggregates",
    "Chart",
    "aggregate",
    "compare_runs",
    "comparisons",
    "arm_summary",
    "arm_summary_short",
    "draw_all",
    "write_report",
]
