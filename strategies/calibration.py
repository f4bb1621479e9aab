"""Calibration: the quantities a strategy learned from simulation, fitted to the rules it plays.

A ``Quantity`` has a name, the value a strategy uses without calibration (``default``) and ``fit(frames, rules)``,
which turns a pilot's result frames (``games``, ``seats``, ``rounds``, ``seat_rounds``: games the arm's own table
played under the arm's rules) into a value (a number or a list of numbers: it is kept in JSON). A quantity with an
``anchor(fit, reference, default)`` is anchored: the strategies play its default moved by what the arm's rules
change -- ``fit`` under the arm's rules against ``reference``, the fit of the same table, dice and pilot size under
the embedded default rules -- so that on the default rules they play exactly the default. Without an anchor the
strategies play the fit itself. A strategy class
lists the quantities it wants in ``CALIBRATE``; a ``strategies.Strategy`` that does not set it wants ``BUILTIN``
(the crash-risk model of ``values.crash_risk`` and the region-loss rate of ``military.holding_cost``, which every
built-in valuation reads).

Before an arm is played the runner fits every quantity its strategies want, once, and plays each of the arm's
games inside ``applied(strategies, values)``: a strategy with a ``calibrate(values)`` method receives the values
there, and ``value(name)`` returns them during play (outside a calibrated arm: the quantity's default).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from sim.lookahead import search_of


@dataclass(frozen=True)
class Quantity:
    """A learned quantity: its ``name`` (unique), its ``default`` and its ``fit(frames, rules) -> value``."""

    name: str
    default: Any
    fit: Callable[[dict[str, pl.DataFrame], Any], Any]
    doc: str = ""
    anchor: Callable[[Any, Any, Any], Any] | None = None  # (fit, reference fit, default) -> the value played


QUANTITIES: dict[str, Quantity] = {}
_ACTIVE: ContextVar[dict[str, Any] | None] = ContextVar("calibration", default=None)


def quantity(q: Quantity) -> Quantity:
    """Register ``q`` (a plugin's quantity is registered when its module is imported) and return it."""
    QUANTITIES[q.name] = q
    return q


def value(name: str) -> Any:
    """The fitted value of quantity ``name`` in the arm being played, else its default."""
    active = _ACTIVE.get()
    return active[name] if active and name in active else QUANTITIES[name].default


def playing(strategies: Iterable[Any]) -> Iterator[Any]:
    """The strategies and, after a searching one (``sim.lookahead``), the base and candidates it plays."""
    for strat in strategies:
        yield strat
        search = search_of(strat)
        if search is not None:
            yield search.base
            yield from search.candidates


def wanted(strategies: Iterable[Any]) -> list[Quantity]:
    """The quantities the strategies want, each once, in the order first asked for."""
    from .base import Strategy

    out: dict[str, Quantity] = {}
    for strat in playing(strategies):
        declared = getattr(type(strat), "CALIBRATE", None)
        if declared is None:
            declared = BUILTIN if isinstance(strat, Strategy) else ()
        for q in declared:
            out.setdefault(q.name, quantity(q))
    return list(out.values())


@contextmanager
def applied(strategies: Iterable[Any], values: dict[str, Any] | None) -> Iterator[None]:
    """Play with ``values`` (name -> fitted value; None or empty: the defaults): each strategy's ``calibrate``
    hook receives them, and ``value`` returns them until the block ends."""
    strategies = list(strategies)
    wanted(strategies)  # registers their quantities: ``value`` knows each one's default
    values = dict(values or {})
    for strat in playing(strategies):
        hook = getattr(type(strat), "calibrate", None)
        if callable(hook):
            hook(strat, values)
    token = _ACTIVE.set(values)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


# ------------------------------------------------------------------------------------------- the built-ins
# The crash model's coefficients without calibration, fitted on 12,000 simulated games of competent tables under
# the default rules: intercept, stability, loans, emergency loans so far, rounds left (all at the start of a round).
CRASH_LOGIT = (0.96, -1.21, 0.15, 0.165, 0.46)
# Company regions lost per region held and round in simulated games of the archetypes under the default rules.
REGION_LOSS_RATE = 0.3
RIDGE = 1.0  # the pull of the fit towards CRASH_LOGIT (a Gaussian prior): it decides only a tiny or separable pilot


def round_starts(frames: dict[str, pl.DataFrame], rules: Any) -> tuple[np.ndarray, np.ndarray]:
    """(X float[K, 5], crashed float[K]): the crash model's features (1, stability, loans, emergency loans so far,
    rounds left) at the start of every round a pilot game played, and whether that game crashed before its end.
    Round 1 starts from the rules (``company.start_stability``, ``company.start_loans``), a later round from the
    previous round's end."""
    rounds = frames["rounds"].sort("game", "round")
    games = frames["games"].select("game", "crashed")
    co = rules.company
    prev = rounds.select(
        "game",
        (pl.col("round") + 1).alias("round"),
        "stability",
        "loans",
        pl.col("emergency_loans").cum_sum().over("game").alias("emergency"),
    )
    first = games.select(
        "game",
        pl.lit(1, dtype=prev["round"].dtype).alias("round"),
        pl.lit(co.start_stability, dtype=prev["stability"].dtype).alias("stability"),
        pl.lit(co.start_loans, dtype=prev["loans"].dtype).alias("loans"),
        pl.lit(0, dtype=prev["emergency"].dtype).alias("emergency"),
    )
    played = rounds.select("game", "round")
    starts = pl.concat([first, prev]).join(played, on=["game", "round"], how="semi").join(games, on="game")
    x = np.column_stack(
        [
            np.ones(starts.height),
            starts["stability"].to_numpy(),
            starts["loans"].to_numpy(),
            starts["emergency"].to_numpy(),
            rules.game.rounds - starts["round"].to_numpy() + 1,
        ]
    ).astype(float)
    return x, starts["crashed"].to_numpy().astype(float)


def logistic(x: np.ndarray, y: np.ndarray, prior: np.ndarray, ridge: float = RIDGE, steps: int = 100) -> np.ndarray:
    """Coefficients of P(y) = 1 / (1 + exp(-x @ b)) by Newton's method (IRLS), with a Gaussian prior of precision
    ``ridge`` around ``prior`` (which keeps the fit finite when the pilot is tiny or a feature separates it). A
    step that does not raise the penalised log-likelihood is halved until it does (a nearly separable pilot, where
    the full Newton step overshoots)."""

    def objective(b: np.ndarray) -> float:
        z = x @ b
        return float(np.sum(y * z - np.logaddexp(0.0, z)) - 0.5 * ridge * np.sum((b - prior) ** 2))

    b = prior.astype(float).copy()
    eye = ridge * np.eye(x.shape[1])
    best = objective(b)
    for _ in range(steps):
        p = crash_probability(b, x)
        grad = x.T @ (y - p) - ridge * (b - prior)
        hess = (x * (p * (1.0 - p))[:, None]).T @ x + eye
        step = np.linalg.solve(hess, grad)
        while (value := objective(b + step)) < best and np.abs(step).max() > 1e-12:
            step = step / 2
        b, best = b + step, max(best, value)
        if np.abs(step).max() < 1e-10:
            break
    return b


def standard_errors(x: np.ndarray, b: Any, ridge: float = RIDGE) -> np.ndarray:
    """float[5]: the standard errors of the fitted coefficients ``b`` (the inverse of the fit's Hessian)."""
    p = crash_probability(b, x)
    hess = (x * (p * (1.0 - p))[:, None]).T @ x + ridge * np.eye(x.shape[1])
    return np.sqrt(np.diag(np.linalg.inv(hess)))


def fit_crash_logit(frames: dict[str, pl.DataFrame], rules: Any) -> list[float]:
    x, y = round_starts(frames, rules)
    return [float(v) for v in logistic(x, y, np.array(CRASH_LOGIT))]


def fit_region_loss_rate(frames: dict[str, pl.DataFrame], rules: Any) -> float:
    """Regions lost over the regions that could be lost (held at the round's start or conquered in it)."""
    r = frames["rounds"].sort("game", "round")
    start = r["company_regions"].shift(1).fill_null(0).to_numpy()
    start[r["round"].to_numpy() == 1] = 0
    exposed = float((start + r["conquests"].to_numpy()).sum())
    lost = float(r["regions_lost"].sum())
    return REGION_LOSS_RATE if exposed == 0 else min(lost / exposed, 1.0)


def shifted(fit: Any, reference: Any, default: Any) -> list[float]:
    """The crash model's anchor: the fixed coefficients moved by the arm's fit minus the default rules' fit (the
    same table: a sturdier Company lowers the intercept or steepens the stability slope by as much as it does in
    the fits)."""
    return [float(d + (f - r)) for d, f, r in zip(default, fit, reference, strict=True)]  # f == r: exactly d


def scaled(fit: float, reference: float, default: float) -> float:
    """The region-loss rate's anchor: the fixed rate times the arm's fit over the default rules' fit (at most 1)."""
    return float(default) if reference <= 0 else float(min(default * fit / reference, 1.0))


# The built-ins are anchored: the strategies' thresholds on the crash risk (``cash_out_risk``, ``doubt_risk``,
# ``fragile_risk``, ...) were set against the fixed model, and a table whose beliefs are refitted to its own play is
# not a fixed point: on the archetype table, refitting the crash model to the play of the refitted players raises
# the crash rate from 0.51 to 0.78, 0.95 and 1.00 (a belief in doom is self-fulfilling: the Chairmen pay out the
# balance). Anchored, the default rules play the fixed values and other rules move them by what the rules change.
CRASH = quantity(
    Quantity(
        "crash_logit",
        CRASH_LOGIT,
        fit_crash_logit,
        "values.crash_risk: logistic coefficients (intercept, stability, loans, emergency loans, rounds left)",
        shifted,
    )
)
REGION_LOSS = quantity(
    Quantity(
        "region_loss_rate",
        REGION_LOSS_RATE,
        fit_region_loss_rate,
        "military: regions lost per region and round",
        scaled,
    )
)
BUILTIN = (CRASH, REGION_LOSS)


def crash_probability(coefficients: Any, x: np.ndarray) -> np.ndarray:
    """float[K]: the crash model's probability at features ``x`` (see ``round_starts``)."""
    return np.exp(-np.logaddexp(0.0, -(x @ np.asarray(coefficients, dtype=float))))  # no overflow
