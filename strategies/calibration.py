"""Calibration: the quantities a strategy learned from simulation, fitted to the rules it plays.

A ``Quantity`` has a name, the value a strategy uses without calibration (``default``) and ``fit(frames, rules)``,
which turns a pilot's result frames (``games``, ``seats``, ``rounds``, ``seat_rounds``: games the arm's own table
played under the arm's rules) into a value (a number or a list of numbers: it is kept in JSON). A quantity with an
``anchor(fit, reference, default)`` is anchored: the strategies play its default moved by what the arm's rules
change -- ``fit`` under the arm's rules against ``reference``, the fit of the same table, dice and pilot size under
the embedded default rules -- so that on the default rules they play exactly the default. Without an anchor the
strategies play the fit itself. A strategy class lists the quantities it wants in ``CALIBRATE``; a
``strategies.Strategy`` that does not set it inherits ``BUILTIN`` (= ``ANCHORED``): the crash-risk model of
``values.crash_risk`` and the region-loss rate of ``military.holding_cost``, both anchored (every built-in valuation
reads both). ``FITTED`` is the option of the crash model played as fitted to the arm's own pilot (the belief is then
calibrated: at the start of round 1 it is the pilot's crash rate); ``CALIBRATE = calibration.FITTED`` plays it (why it
is not the default: see ``BUILTIN``). Either way the fit itself predicts its pilot's crash rate at every round's start
(per-round offsets), and the report shows predicted against observed per arm.

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


def wanted(strategies: Iterable[Any], strict: bool = True, belief: str = "anchored") -> list[Quantity]:
    """The quantities the strategies want, each once, in the order first asked for (``strict``: two different
    quantities of one name raise ``CalibrationConflict``; else the first is kept). ``belief = "fitted"`` (the
    experiment key ``belief``) puts the crash model as fitted (``CRASH``) in place of the anchored one."""
    out: dict[str, Quantity] = {}
    for strat in playing(strategies):
        for q in getattr(type(strat), "CALIBRATE", ()):  # a ``strategies.Strategy``: ``BUILTIN`` unless it says
            q = CRASH if belief == "fitted" and q is CRASH_ANCHORED else q
            if strict and q.name in out and out[q.name] != q:
                raise CalibrationConflict(
                    f"the table's strategies want calibration quantity {q.name!r} played two ways (fitted and "
                    f"anchored, or two plugins' quantities of that name): a table plays one value per name"
                )
            out.setdefault(q.name, quantity(q))
    return list(out.values())


@contextmanager
def applied(strategies: Iterable[Any], values: dict[str, Any] | None) -> Iterator[None]:
    """Play with ``values`` (name -> fitted value; None or empty: the defaults): each strategy's ``calibrate``
    hook receives them, and ``value`` returns them until the block ends."""
    strategies = list(strategies)
    wanted(strategies, strict=False)  # registers their quantities: ``value`` knows each one's default
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


def crash_features(
    stability: np.ndarray, loans: np.ndarray, emergency: np.ndarray, round_: np.ndarray, rounds: int
) -> np.ndarray:
    """float[K, 5 + rounds]: the crash model's features of K round states: 1, stability, loans, emergency loans so
    far, rounds left (this one included), then one indicator per round (1..``rounds``, R-END: ``game.rounds``)."""
    round_ = np.clip(np.asarray(round_, dtype=np.int64), 1, rounds)
    onehot = np.zeros((round_.size, rounds))
    onehot[np.arange(round_.size), round_ - 1] = 1.0
    base = [np.ones(round_.size), stability, loans, emergency, rounds - round_ + 1]
    return np.column_stack([np.column_stack(base).astype(float), onehot])


def crash_chance(coefficients: Any, stability, loans, emergency, round_, rounds: int) -> np.ndarray:
    """float[K]: the crash model's probability that the Company crashes before the game's end, from a state in round
    ``round_`` (stability, loans, emergency loans so far). ``coefficients``: intercept, stability, loans, emergency
    loans, rounds left, then optionally one offset per round (a fit's; the fixed ``CRASH_LOGIT`` has none)."""
    c = np.asarray(coefficients, dtype=float)
    b0, b_s, b_l, b_e, b_r = c[:5]
    round_ = np.asarray(round_, dtype=np.int64)
    z = b0 + b_s * stability + b_l * loans + b_e * emergency + b_r * (rounds - round_ + 1)
    if c.size > 5:
        z = z + c[5:][np.clip(round_ - 1, 0, c.size - 6)]
    return 1.0 / (1.0 + np.exp(-z))


def prior(rules: Any) -> np.ndarray:
    """float[5 + rounds]: the fit's prior, ``CRASH_LOGIT`` with no round offsets."""
    return np.concatenate([np.asarray(CRASH_LOGIT, dtype=float), np.zeros(rules.game.rounds)])


def padded(coefficients: Any, size: int) -> np.ndarray:
    """``coefficients`` with zero round offsets up to ``size`` (the fixed model against a fit)."""
    c = np.asarray(coefficients, dtype=float)
    return np.concatenate([c, np.zeros(size - c.size)]) if c.size < size else c


def round_starts(frames: dict[str, pl.DataFrame], rules: Any) -> tuple[np.ndarray, np.ndarray]:
    """(X float[K, 5 + rounds], crashed float[K]): the crash model's features (``crash_features``) at the start of
    every round a pilot game played, and whether that game crashed before its end. Round 1 starts from the rules
    (``company.start_stability``, ``company.start_loans``), a later round from the previous round's end."""
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
    x = crash_features(
        starts["stability"].to_numpy(),
        starts["loans"].to_numpy(),
        starts["emergency"].to_numpy(),
        starts["round"].to_numpy(),
        rules.game.rounds,
    )
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
    """float[5 + rounds]: the standard errors of the fitted coefficients ``b`` (the inverse of the fit's Hessian)."""
    p = crash_probability(b, x)
    hess = (x * (p * (1.0 - p))[:, None]).T @ x + ridge * np.eye(x.shape[1])
    return np.sqrt(np.diag(np.linalg.inv(hess)))


def fit_crash_logit(frames: dict[str, pl.DataFrame], rules: Any) -> list[float]:
    x, y = round_starts(frames, rules)
    return [float(v) for v in logistic(x, y, prior(rules))]


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
    size = max(len(default), len(fit), len(reference))
    moved = padded(default, size) + (padded(fit, size) - padded(reference, size))
    return [float(v) for v in moved]  # f == r: exactly d (and its round offsets 0)


def scaled(fit: float, reference: float, default: float) -> float:
    """The region-loss rate's anchor: the fixed rate times the arm's fit over the default rules' fit (at most 1)."""
    return float(default) if reference <= 0 else float(min(default * fit / reference, 1.0))


# The crash model is fitted to the table's own pilot under the arm's rules (``fit_crash_logit``: per-round offsets, so
# its probability at a round's start is the pilot's crash rate from that round on). ``CRASH`` plays it as fitted;
# ``CRASH_ANCHORED`` plays the fixed model moved by what the arm's rules change (``shifted``). The region-loss rate
# is anchored in both (``scaled``).
CRASH = quantity(
    Quantity(
        "crash_logit",
        CRASH_LOGIT,
        fit_crash_logit,
        "values.crash_risk: logistic coefficients (intercept, stability, loans, emergency loans, rounds left, then one "
        "offset per round), fitted to the arm's pilot and played as fitted",
    )
)
CRASH_ANCHORED = Quantity(
    "crash_logit",
    CRASH_LOGIT,
    fit_crash_logit,
    "values.crash_risk: the fixed coefficients moved by the arm's fit minus the same table's fit on the default rules",
    shifted,
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
ANCHORED = (CRASH_ANCHORED, REGION_LOSS)  # the anchored crash belief
FITTED = (CRASH, REGION_LOSS)  # the crash belief as fitted to the arm's own pilot (an option: ``CALIBRATE = FITTED``)
# What a ``strategies.Strategy`` wants unless it sets ``CALIBRATE``: the anchored belief. The built-ins' reactions to
# the crash risk (cash-out, doubt, fragility, the votes' danger thresholds) were set against the fixed model; acting
# on the fitted belief instead, the archetype table crashes in 94 % of games on the default rules (60 % anchored), and
# refitting the belief to that play believes 0.59, 0.92, 0.995 in turn: a belief in doom fulfils itself. An
# experiment's ``belief = "fitted"`` plays every table's built-ins on the fitted belief instead (``wanted``).
BUILTIN = ANCHORED


class CalibrationConflict(ValueError):
    """Two strategies of a table want the same quantity name played two ways (e.g. the crash belief fitted and
    anchored): the arm plays one value per name."""


def crash_probability(coefficients: Any, x: np.ndarray) -> np.ndarray:
    """float[K]: the crash model's probability at features ``x`` (see ``round_starts``)."""
    return np.exp(-np.logaddexp(0.0, -(x @ np.asarray(coefficients, dtype=float))))  # no overflow
