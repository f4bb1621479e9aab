"""Phase 9, Parliament (laws, policies, votes; R-PARLIAMENT, D-POLICY, D-LAWS, L222-L241).

Not simulated yet: the next issues build it. The seam keeps the phase's place in the round; the README's
rules-coverage table lists it as "not yet".
"""

from __future__ import annotations

from ..agents import Agents
from ..dice import Chance
from ..rules import Rules
from ..state import State


def parliament(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Phase 9. Does nothing yet."""
