"""Starting capital (R-CAPITAL): pluggable formulas, the 0.7 rounding rule and the leftover coins.

A formula maps each family's bid total to an exact share of the budget B, for a whole batch at once:
``formula(bid_totals: float[G, N], budget: float, rules) -> float[G, N]`` with rows summing to B. Register your
own with ``@capital_formula("name")`` and select it with the rules key ``capital.formula``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .rules import Rules

CapitalFormula = Callable[[np.ndarray, float, "Rules"], np.ndarray]
FORMULAS: dict[str, CapitalFormula] = {}
FORMULA_DOCS: dict[str, str] = {}

# Which case of the leftover rule applied, per game (recorded in the games frame).
LEFTOVER_CASES = ("exact", "two_lowest", "lowest", "excess_taken_back", "excess_kept")
EXACT, TWO_LOWEST, LOWEST, TAKEN_BACK, KEPT = range(5)
_EPS = 1e-9


def capital_formula(name: str) -> Callable[[CapitalFormula], CapitalFormula]:
    """Register a capital formula under ``name`` (the first docstring line describes it in the CLI)."""

    def register(fn: CapitalFormula) -> CapitalFormula:
        FORMULAS[name] = fn
        FORMULA_DOCS[name] = (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else ""
        return fn

    return register


@capital_formula("inverse_share")
def inverse_share(bids: np.ndarray, budget: float, rules: Rules) -> np.ndarray:
    """The seed's formula: money_i = B * (S - s_i) / sum_j (S - s_j)."""
    total = bids.sum(axis=1, keepdims=True)
    unspent = total - bids
    weight = unspent.sum(axis=1, keepdims=True)
    return budget * unspent / np.where(weight > 0, weight, 1.0)


@capital_formula("flat")
def flat(bids: np.ndarray, budget: float, rules: Rules) -> np.ndarray:
    """Everyone gets B / N whatever they bid."""
    return np.full(bids.shape, budget / bids.shape[1])


@capital_formula("linear")
def linear(bids: np.ndarray, budget: float, rules: Rules) -> np.ndarray:
    """B/N minus capital.linear_rate £ per bid point above the table's mean bid (floored at 0, rescaled to B)."""
    money = budget / bids.shape[1] - rules.capital.linear_rate * (bids - bids.mean(axis=1, keepdims=True))
    money = np.maximum(money, 0.0)
    total = money.sum(axis=1, keepdims=True)  # >= B (flooring only adds); 0 only when B = 0 and bids are equal
    return np.where(total > 0, money * (budget / np.where(total > 0, total, 1.0)), budget / bids.shape[1])


def exact_capital(bid_totals: np.ndarray, rules: Rules) -> np.ndarray:
    """Exact (unrounded) starting money per family, float[G, N]; D-S0 when nobody bid anything."""
    bids = np.asarray(bid_totals, dtype=float)
    budget = float(rules.budget)
    exact = FORMULAS[rules.capital.formula](bids, budget, rules)
    nobody_bid = bids.sum(axis=1) == 0
    if nobody_bid.any():  # D-S0 (zero_bids = "equal")
        exact = np.where(nobody_bid[:, None], budget / bids.shape[1], exact)
    return exact


def round_capital(exact: np.ndarray, rules: Rules) -> np.ndarray:
    """Fractional part >= capital.round_up_from rounds up, else down (R-CAPITAL)."""
    base = np.floor(exact + _EPS)
    up = (exact - base) >= rules.capital.round_up_from - _EPS
    return (base + up).astype(np.int64)


def settle(
    exact: np.ndarray, rounded: np.ndarray, lowest_two: np.ndarray, rules: Rules
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hand out the coins rounding left over, or take back an excess (D-LEFTOVER-NEG).

    ``lowest_two[G, 2]`` holds the seats that won the lowest- and second-lowest-priced lots. Returns the final
    money int[G, N], the coins each family received (negative when taken back) and the case per game.
    """
    g, n = rounded.shape
    budget = rules.budget
    diff = budget - rounded.sum(axis=1)
    received = np.zeros((g, n), dtype=np.int64)
    case = np.full(g, EXACT, dtype=np.int8)
    rows = np.arange(g)
    # leftover: to the family that took the two lowest-priced lots, else the single lowest-priced lot
    short = diff > 0
    both = lowest_two[:, 0] == lowest_two[:, 1]
    received[rows, lowest_two[:, 0]] += np.where(short, diff, 0)
    case[short & both] = TWO_LOWEST
    case[short & ~both] = LOWEST
    # excess: take back one coin at a time from the families rounded up the most
    over = diff < 0
    if over.any():
        if rules.capital.excess == "take_back":
            order = np.argsort(-(rounded - exact), axis=1, kind="stable")
            excess = np.where(over, -diff, 0)
            # coin k (0-based) comes from order[k % n]: family at rank j gives ceil((excess - j) / n) coins
            rank_give = np.maximum(0, (excess[:, None] - np.arange(n)[None, :] + n - 1) // n)
            taken = np.zeros_like(received)
            np.put_along_axis(taken, order, rank_give, axis=1)
            received -= taken
            case[over] = TAKEN_BACK
        else:
            case[over] = KEPT
    return rounded + received, received, case
