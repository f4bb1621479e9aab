"""Phase 11, Deregulation (R-DEREGULATION, L244-L246).

Not simulated yet: the next issues build it. The seam keeps the phase's place in the round; the README's
rules-coverage table lists it as "not yet".
"""

from __future__ import annotations

from ..agents import Agents
from ..dice import Chance
from ..rules import Rules
from ..state import State


def deregulation(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Phase 11. Does nothing yet."""
