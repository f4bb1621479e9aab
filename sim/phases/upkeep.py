"""Phase 10, upkeep of honourable retirements (R-UPKEEP, seed 000 L242-L243).

Every retiree in a tier with upkeep costs his family that many £ this round (flow ``upkeep``). A family chooses which
of them it keeps (decision ``keep_retirees``): no more than its money pays for, and no fewer: a retiree refuses
honourable retirement only "if the family cannot afford to pay" (L243), so letting go one whose upkeep the money
left would still pay is an illegal answer. A retiree whose upkeep is not paid leaves for good: his tier's
conspicuous wealth and end VP go with him, and he goes where ``retirement.unpaid_upkeep`` says: ``home`` (the
family's supply, default) or ``lowest_tier`` (he stays retired in the first tier, which costs nothing). Retirees of
tiers without upkeep are always kept.
"""

from __future__ import annotations

import numpy as np

from .. import ledger
from ..agents import Agents
from ..dice import Chance
from ..reduce import sum_last
from ..rules import Rules
from ..state import TALLY, State


def upkeep(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    g, n = state.n_games, state.n_players
    d = rules.d
    due_tiers = d.tier_upkeep > 0
    live = ~state.done
    retired = np.where(live[:, None, None], state.retired, 0)
    owing = sum_last(retired * due_tiers) > 0  # [G, N]
    if not owing.any():
        return
    kept = retired.astype(np.int64)
    for seat in range(n):
        answer = np.zeros((g, len(d.tier_upkeep)), dtype=np.int64)
        legal = {"retired": retired[:, seat], "money": state.money[:, seat]}

        def check(k, legal, obs):
            paying = d.tier_upkeep > 0  # the answer for tiers without upkeep is not used
            bad = ((k < 0) | (k > legal.retired))[:, paying].any(axis=1)
            cost = (np.clip(k, 0, None) * d.tier_upkeep).sum(axis=1)
            # L243: a retiree refuses honourable retirement only "if the family cannot afford to pay"
            let_go = paying & (k < legal.retired)
            affordable = (let_go & (cost[:, None] + d.tier_upkeep <= legal.money[:, None])).any(axis=1)
            return bad | (cost > legal.money) | affordable, (
                "keeps more retirees than it has or than its money pays for, or lets go one its money still pays for"
            )

        agents.ask("keep_retirees", state, np.where(owing[:, seat], seat, -1), legal, (answer,), check)
        kept[:, seat] = np.where(owing[:, seat, None] & due_tiers[None, :], answer, kept[:, seat])
    paid = sum_last(kept * d.tier_upkeep)
    ledger.families(state, "upkeep", -paid)
    dropped = retired - kept  # [G, N, T], zero where no upkeep is due
    state.retired[...] -= dropped.astype(state.retired.dtype)
    state.wealth[...] -= sum_last(dropped * d.tier_wealth).astype(state.wealth.dtype)
    gone = sum_last(dropped)
    if rules.retirement.unpaid_upkeep == "lowest_tier":
        state.retired[:, :, 0] += gone.astype(state.retired.dtype)
        state.wealth[...] += (gone * d.tier_wealth[0]).astype(state.wealth.dtype)
    else:
        state.supply[...] += gone.astype(state.supply.dtype)
    state.tally[:, TALLY["upkeep_paid"]] += sum_last(paid).astype(np.int32)
    state.tally[:, TALLY["upkeep_defaults"]] += sum_last(gone).astype(np.int32)
