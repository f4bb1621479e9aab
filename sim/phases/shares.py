"""Phase 4, share issue (R-SHARES, L108).

For each Company loan one share is issued: the relative on the most expensive occupied exchange position joins the
board and one loan is cancelled; the others move up one position without paying again. Issues stop when the
loans or the waiting relatives run out.
"""

from __future__ import annotations

import numpy as np

from ..agents import Agents
from ..dice import Chance
from ..rules import Rules
from ..state import State


def issue_shares(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    positions = state.exchange.shape[1]
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
