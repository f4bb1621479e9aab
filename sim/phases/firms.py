"""Phase 3, private firms (R-FIRMS, L86-L106), their trade initiative (phase 6, D-INITIATIVE) and their accounts
(phase 7.1). Firms exist only after Deregulation passes (phase 11), which is not simulated yet, so these are
seams that do nothing; they are listed as "not yet" in the README's rules-coverage table.
"""

from __future__ import annotations

from ..agents import Agents
from ..dice import Chance
from ..rules import Rules
from ..state import State


def firms(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Phase 3: open, invest in and manage firms once Deregulation passed (phase 11). Not simulated yet."""


def trade_initiative(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Phase 6: firms roll trade initiative before the presidents trade. Not simulated yet."""


def firm_accounts(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Phase 7.1: firms pay ships and shares, emergency investments, bankruptcy, dividends. Not simulated yet."""
