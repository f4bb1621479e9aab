"""Confidence intervals, all from maintained libraries (statsmodels, scipy); one helper per kind of interval.

- ``wilson``: 95 % Wilson score interval of a proportion (``statsmodels proportion_confint(method="wilson")``).
- ``diff_ci``: difference of two independent proportions with Newcombe's hybrid score interval (method 10 of
  Newcombe 1998; ``statsmodels confint_proportions_2indep(method="newcomb")``). Arms of a run share their dice
  (common random numbers), which correlates them positively; treating them as independent makes this interval
  conservative (too wide), never too narrow.
- ``mean_ci``: Student-t interval of a mean from its count, mean and standard deviation (``scipy.stats.t``).
- ``quantile_from_counts``: inverted-CDF quantile of an integer variable given as (value, count) pairs.
"""

from __future__ import annotations

import numpy as np
from scipy import stats as sps
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

ALPHA = 0.05
DIFF_METHOD = "newcomb"


def wilson(count, nobs, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Wilson interval (lo, hi) for ``count`` successes of ``nobs``, elementwise; NaN where ``nobs`` is 0."""
    count = np.asarray(count, dtype=float)
    nobs = np.asarray(nobs, dtype=float)
    empty = nobs <= 0
    lo, hi = proportion_confint(count, np.where(empty, 1.0, nobs), alpha=alpha, method="wilson")
    return np.where(empty, np.nan, lo), np.where(empty, np.nan, hi)


def diff_ci(count_a, nobs_a, count_b, nobs_b, alpha: float = ALPHA) -> tuple[float, float, float]:
    """Change from A to B, ``p_b - p_a``, with its (lo, hi) interval; NaNs when either side has no games."""
    if nobs_a <= 0 or nobs_b <= 0:
        return np.nan, np.nan, np.nan
    lo, hi = confint_proportions_2indep(
        count_b, nobs_b, count_a, nobs_a, method=DIFF_METHOD, compare="diff", alpha=alpha
    )
    return count_b / nobs_b - count_a / nobs_a, float(lo), float(hi)


def mean_ci(n, mean, std, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Student-t interval (lo, hi) of means from their counts, means and sample standard deviations."""
    n = np.asarray(n, dtype=float)
    mean = np.asarray(mean, dtype=float)
    ok = n > 1
    half = sps.t.ppf(1 - alpha / 2, np.where(ok, n - 1, 1)) * np.asarray(std, dtype=float) / np.sqrt(np.where(ok, n, 1))
    half = np.where(ok, half, np.nan)
    return mean - half, mean + half


def quantile_from_counts(values, counts, q: float) -> float:
    """The smallest value whose cumulative share reaches ``q`` (numpy's ``method="inverted_cdf"``)."""
    values = np.asarray(values)
    counts = np.asarray(counts, dtype=float)
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(counts[order])
    if cum.size == 0 or cum[-1] <= 0:
        return np.nan
    return float(values[order][np.searchsorted(cum, q * cum[-1] * (1 - 1e-12))])
