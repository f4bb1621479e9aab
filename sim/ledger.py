"""The one path for money entering or leaving the game: every call updates a holding and its ledger column.

The invariant ``state.money_in_game() == state.ledger.sum(axis=1)`` holds after every phase; transfers inside
the game (budget, dividends) move money between holdings without touching the ledger.
"""

from __future__ import annotations

import numpy as np

from . import kernels, trace
from .reduce import sum_last
from .state import FLOW, State


def families(state: State, flow: str, amounts: np.ndarray) -> None:
    """Pay ``amounts[G, N]`` to the families (negative: they pay the bank)."""
    state.money[...] += amounts.astype(state.money.dtype, copy=False)
    state.ledger[:, FLOW[flow]] += sum_last(amounts).astype(state.ledger.dtype)
    if trace.recorder is not None:
        trace.recorder.flow(state, flow, "seat", amounts)


def families_through(
    state: State, flows: tuple[str, ...], through: np.ndarray, amounts: np.ndarray, rows: np.ndarray | None = None
) -> None:
    """Pay ``amounts[G, N]`` to the families, each through its own flow ``flows[through[g, s]]`` (-1: it pays
    nothing; its amount is 0); with ``rows`` (distinct games), ``amounts[m]`` to the families of game ``rows[m]``.
    A trace records the payments game by game, seat by seat."""
    at = slice(None) if rows is None else rows
    if kernels.use(amounts.shape[0]) and amounts.dtype.kind == "i" and through.dtype.kind == "i":
        games = np.arange(amounts.shape[0]) if rows is None else rows
        cols = np.array([FLOW[flow] for flow in flows], dtype=np.int64)
        _through_kernel(games, through, amounts, cols, state.money, state.ledger)
    else:
        state.money[at] += amounts.astype(state.money.dtype, copy=False)
        for i, flow in enumerate(flows):
            state.ledger[at, FLOW[flow]] += sum_last(np.where(through == i, amounts, 0)).astype(state.ledger.dtype)
    if trace.recorder is not None:
        games = np.arange(amounts.shape[0]) if rows is None else rows
        for g, s in zip(*np.nonzero(through >= 0), strict=True):
            trace.recorder.flow(state, flows[through[g, s]], "seat", amounts[g, s : s + 1], games[g : g + 1], [s])


@kernels.kernel
def _through_kernel(games, through, amounts, cols, money, ledger):
    """``families_through`` game by game (game ``games[m]``): each family's amount into its money and its flow's
    ledger column ``cols[through]`` (integers: the same sums, wrapped alike, in any order)."""
    for m in range(games.shape[0]):
        g = games[m]
        for s in range(amounts.shape[1]):
            money[g, s] += amounts[m, s]
            if through[m, s] >= 0:
                ledger[g, cols[through[m, s]]] += amounts[m, s]


def family(state: State, flow: str, seat: np.ndarray, amount: np.ndarray, where: np.ndarray | None = None) -> None:
    """Pay ``amount[G]`` to the family at ``seat[G]`` (rows where ``where`` and seat >= 0)."""
    ok = seat >= 0 if where is None else where & (seat >= 0)
    rows = np.flatnonzero(ok)
    if rows.size:
        amt = np.asarray(amount)
        family_at(state, flow, rows, seat[rows], amt[rows] if amt.ndim else np.full(rows.size, amt))


def family_at(state: State, flow: str, rows: np.ndarray, seats: np.ndarray, amounts: np.ndarray) -> None:
    """Pay ``amounts[m]`` to the family at ``seats[m]`` in game ``rows[m]`` (distinct games)."""
    state.money[rows, seats] += amounts.astype(state.money.dtype)
    state.ledger[rows, FLOW[flow]] += amounts.astype(state.ledger.dtype)
    if trace.recorder is not None:
        trace.recorder.flow(state, flow, "seat", amounts, rows, seats)


def company(state: State, flow: str, amount: np.ndarray) -> None:
    """Pay ``amount[G]`` into the Company's balance (negative: the Company pays the bank)."""
    amount = np.asarray(amount).astype(state.balance.dtype)
    state.balance[...] += amount
    state.ledger[:, FLOW[flow]] += amount
    if trace.recorder is not None:
        trace.recorder.flow(state, flow, "company", amount)


def treasury(state: State, flow: str, t: int, amount: np.ndarray) -> None:
    """Pay ``amount[G]`` into office treasury ``t`` (negative: spent out of the game)."""
    amount = np.asarray(amount).astype(state.treasury.dtype)
    state.treasury[:, t] += amount
    state.ledger[:, FLOW[flow]] += amount
    if trace.recorder is not None:
        trace.recorder.flow(state, flow, "treasury", amount, cols=t)


def balanced(state: State) -> np.ndarray:
    """bool[G]: the money held equals the ledger's sum."""
    return state.money_in_game() == state.ledger.sum(axis=1)


def treasuries(state: State, flow: str, amounts: np.ndarray) -> None:
    """Pay ``amounts[G, 5]`` into the office treasuries (negative: spent out of the game)."""
    amounts = amounts.astype(state.treasury.dtype, copy=False)
    state.treasury[...] += amounts
    state.ledger[:, FLOW[flow]] += sum_last(amounts)
    if trace.recorder is not None:
        trace.recorder.flow(state, flow, "treasury", amounts)


# ------------------------------------------------------------------------------------- private firms
def firm(state: State, flow: str, rows: np.ndarray, slot: np.ndarray, amount: np.ndarray, india: bool = False) -> None:
    """Pay ``amount[m]`` into firm ``slot[m]``'s treasury in games ``rows[m]`` (distinct games; negative: the firm
    pays the bank). ``india``: into its India treasury (jc2e) instead of its (London) treasury."""
    if rows.size == 0:
        return
    amount = np.broadcast_to(np.asarray(amount), rows.shape).astype(state.firm_cash.dtype)
    target = state.firm_india if india else state.firm_cash
    target[rows, slot] += amount
    state.ledger[rows, FLOW[flow]] += amount.astype(state.ledger.dtype)
    if trace.recorder is not None:
        trace.recorder.flow(state, flow, "firm_india" if india else "firm", amount, rows, slot)
