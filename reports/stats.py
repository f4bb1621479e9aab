"""Confidence intervals, all from maintained libraries (statsmodels, scipy); one helper per kind of interval.

- ``wilson``: 95 % Wilson score interval of a proportion (``statsmodels proportion_confint(method="wilson")``).
- ``diff_ci``: difference of two independent proportions with Newcombe's hybrid score interval (method 10 of
  Newcombe 1998; ``statsmodels confint_proportions_2indep(method="newcomb")``). Arms of a run share their dice
  (common random numbers), which correlates them positively; treating them as independent makes this interval
  conservative (too wide), never too narrow.
- ``mean_ci``: Student-t interval of a mean from its count, mean and standard deviation (``scipy.stats.t``).
- ``quantile_from_counts``: inverted-CDF quantile of an integer variable given as (value, count) pairs.

Paired comparisons (issue 13): arms play the same games with the same dice (common random numbers), so a change
between two arms is estimated from the per-game differences, which removes the games' shared variance:

- ``paired_diff_ci``: difference of two proportions measured on the same games (a 2 x 2 table of pairs) with
  Newcombe's hybrid score interval for paired data (method 10 of Newcombe 1998, Statistics in Medicine 17,
  2635-2650): the two Wilson intervals combined with the correlation phi of the pairs. Unlike the Wald interval on
  the differences it never collapses to zero width when few games change outcome.
- ``paired_mean_ci``: mean of per-game differences with its Student-t interval (``scipy.stats.t``).
- ``welch_ci``: difference of two independent means, Welch's t interval (games not shared: ``eastindia compare``
  of runs with different seeds).
- ``half_width``: the larger distance from an estimate to its bounds (what a precision target bounds).
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


def paired_diff_ci(a, b, c, d, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``p_x - p_y`` from the pairs' 2 x 2 table — ``a``: both 1, ``b``: x 1 and y 0, ``c``: x 0 and y 1, ``d``:
    both 0 — with Newcombe's (1998) paired method 10 interval; elementwise, NaN where there are no pairs.

    p_x = (a + b) / n, p_y = (a + c) / n, the estimate (b - c) / n; with the Wilson intervals (l_x, u_x), (l_y, u_y)
    and phi = (ad - bc) / sqrt((a + b)(c + d)(a + c)(b + d)) (0 when a margin is empty):
    lower = est - sqrt((p_x - l_x)^2 - 2 phi (p_x - l_x)(u_y - p_y) + (u_y - p_y)^2),
    upper = est + sqrt((u_x - p_x)^2 - 2 phi (u_x - p_x)(p_y - l_y) + (p_y - l_y)^2)."""
    a, b, c, d = (np.asarray(v, dtype=float) for v in (a, b, c, d))
    n = a + b + c + d
    ok = n > 0
    n1 = np.where(ok, n, 1.0)
    px, py = (a + b) / n1, (a + c) / n1
    lx, ux = wilson(a + b, n1, alpha)
    ly, uy = wilson(a + c, n1, alpha)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    phi = np.where(margins > 0, (a * d - b * c) / np.sqrt(np.where(margins > 0, margins, 1.0)), 0.0)
    est = px - py
    lo = est - np.sqrt(np.maximum((px - lx) ** 2 - 2 * phi * (px - lx) * (uy - py) + (uy - py) ** 2, 0))
    hi = est + np.sqrt(np.maximum((ux - px) ** 2 - 2 * phi * (ux - px) * (py - ly) + (py - ly) ** 2, 0))
    nan = np.where(ok, 1.0, np.nan)
    return est * nan, lo * nan, hi * nan


def paired_mean_ci(n, sum_d, sum_d2, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean of ``n`` per-game differences (their sum and sum of squares) with its Student-t interval."""
    n = np.asarray(n, dtype=float)
    ok = n > 1
    n1 = np.where(ok, n, 2.0)
    mean = np.asarray(sum_d, dtype=float) / n1
    var = np.maximum((np.asarray(sum_d2, dtype=float) - n1 * mean**2) / (n1 - 1), 0)
    lo, hi = mean_ci(n1, mean, np.sqrt(var), alpha)
    nan = np.where(ok, 1.0, np.nan)
    return mean * nan, lo * nan, hi * nan


def welch_ci(n_x, sum_x, sum_x2, n_y, sum_y, sum_y2, alpha: float = ALPHA) -> tuple[float, float, float]:
    """``mean_x - mean_y`` of independent samples (counts, sums, sums of squares), Welch's t interval."""
    if n_x < 2 or n_y < 2:
        return np.nan, np.nan, np.nan
    mx, my = sum_x / n_x, sum_y / n_y
    vx = max((sum_x2 - n_x * mx**2) / (n_x - 1), 0) / n_x
    vy = max((sum_y2 - n_y * my**2) / (n_y - 1), 0) / n_y
    se2 = vx + vy
    if se2 <= 0:
        return mx - my, mx - my, mx - my
    dof = se2**2 / ((vx**2 / (n_x - 1) if vx else 0) + (vy**2 / (n_y - 1) if vy else 0))
    half = sps.t.ppf(1 - alpha / 2, dof) * np.sqrt(se2)
    return mx - my, mx - my - half, mx - my + half


def half_width(est, lo, hi) -> np.ndarray:
    """The larger of ``est - lo`` and ``hi - est`` (an asymmetric interval's worst side)."""
    est, lo, hi = (np.asarray(v, dtype=float) for v in (est, lo, hi))
    return np.maximum(est - lo, hi - est)
