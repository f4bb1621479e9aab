"""Phase 10, upkeep of honourable retirements (R-UPKEEP, L242-L243).

Not simulated yet: the next issues build it. The seam keeps the phase's place in the round; the README's
rules-coverage table lists it as "not yet".
"""

from __future__ import annotations

from ..agents import Agents
from ..dice import Chance
from ..rules import Rules
from ..state import State


def upkeep(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Phase 10. Does nothing yet."""
