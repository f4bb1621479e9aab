"""Phase 4, share issue (R-SHARES, L108).

For each Company loan one share is issued: the relative on the most expensive occupied exchange position joins the
board and one loan is cancelled; the others move up one position without paying again. Issues stop when the
loans or the waiting relatives run out.
"""

from __future__ import annotations

import numpy as np

from .. import kernels
from ..agents import Agents
from ..dice import Chance
from ..rules import Rules
from ..state import State


def issue_shares(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    positions = state.exchange.shape[1]
    if kernels.use(state.n_games):
        _issue_kernel(state.done, state.loans, state.exchange, state.shares, state.firm_fresh)
        return
    for _ in range(positions):
        waiting = state.exchange >= 0
        issue = ~state.done & (state.loans > 0) & waiting.any(axis=1)
        rows = np.flatnonzero(issue)
        if rows.size == 0:
            return
        top = positions - 1 - waiting[rows, ::-1].argmax(axis=1)
        seat = state.exchange[rows, top]
        state.shares[rows, seat] += 1
        state.firm_fresh[rows, seat] += 1  # fresh until the next firm phase (jc2e: not investable)
        state.loans[rows] -= 1
        state.exchange[rows, top] = -1
        # everyone still waiting moves one position up (the top position is free now)
        state.exchange[rows] = np.roll(state.exchange[rows], 1, axis=1)


@kernels.kernel
def _issue_kernel(done, loans, exchange, shares, firm_fresh):
    """``issue_shares`` game by game: while the game goes on, has a loan and a relative waiting (neither ever comes
    back), the one on the most expensive occupied position joins the board and the others move up one position."""
    positions = exchange.shape[1]
    for g in range(exchange.shape[0]):
        if done[g]:
            continue
        for _ in range(positions):
            top = -1
            for e in range(positions):
                if exchange[g, e] >= 0:
                    top = e
            if loans[g] <= 0 or top < 0:
                break
            seat = exchange[g, top]
            shares[g, seat] += 1
            firm_fresh[g, seat] += 1
            loans[g] -= 1
            exchange[g, top] = -1
            last = exchange[g, positions - 1]  # np.roll by one: the last position (free) comes first
            for e in range(positions - 1, 0, -1):
                exchange[g, e] = exchange[g, e - 1]
            exchange[g, 0] = last
