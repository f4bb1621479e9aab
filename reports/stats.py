"""The intervals the reports use, from ``experiments.stats`` (the statistics layer below the runner and the reports;
see its docstring for each interval's method)."""

from experiments.stats import (
    ALPHA,
    DIFF_METHOD,
    diff_ci,
    half_width,
    mean_ci,
    paired_diff_ci,
    paired_mean_ci,
    quantile_from_counts,
    welch_ci,
    wilson,
)

__all__ = [
    "ALPHA",
    "DIFF_METHOD",
    "diff_ci",
    "half_width",
    "mean_ci",
    "paired_diff_ci",
    "paired_mean_ci",
    "quantile_from_counts",
    "welch_ci",
    "wilson",
]
