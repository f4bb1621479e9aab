"""Phase 1, the London season (R-RETIRE, D-POSITIONS, L58-L74), and the retirement roll it shares with the end
of a successful game.

The season itself (retirements from round 2, honourable retirements bought, position cards taken) is the next
issue's; ``london_season`` is a seam that does nothing yet. ``retirement_roll`` is complete and is used by the
final retirement at the end of a successful game (R-END), where positions are not taken.
"""

from __future__ import annotations

import numpy as np

from .. import layout as L
from .. import ledger
from ..agents import Agents
from ..dice import Chance
from ..rules import Rules
from ..state import State


def london_season(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Phase 1. Not simulated yet: no retirements during the game, no position cards."""


def retirement_roll(state: State, rules: Rules, dice: Chance, agents: Agents, rows: np.ndarray) -> np.ndarray:
    """R-RETIRE for games ``rows``: every holder of a retiring office rolls d6 (+1 per stress marker, the
    Chairman +1): 5-6 retires, 3-4 gains a stress marker. A retiree's family buys him an honourable retirement
    tier it can afford (decision ``retire``) or sends him home unpaid. Returns int[G] retirements."""
    g = state.n_games
    rt = rules.retirement
    d = rules.d
    retired = np.zeros(g, dtype=np.int64)
    in_rows = np.zeros(g, dtype=bool)
    in_rows[rows] = True
    for office in np.flatnonzero(d.retire_offices):
        holder = np.where(in_rows, state.office[:, office], -1)
        rolling = np.flatnonzero(holder >= 0)
        if rolling.size == 0:
            continue
        roll = dice.d6(rolling)[:, 0].astype(np.int64)
        roll += rt.stress_bonus * state.stress[rolling, office] + (rt.chairman_bonus if office == L.CHAIRMAN else 0)
        leaves = np.zeros(g, dtype=bool)
        leaves[rolling[roll >= rt.retire_from]] = True
        stressed = rolling[(roll >= rt.stress_from) & (roll < rt.retire_from)]
        state.stress[stressed, office] += 1
        if not leaves.any():
            continue
        family = np.where(leaves, holder, -1).astype(np.int64)
        rows_f = np.flatnonzero(leaves)
        money = np.zeros(g, dtype=np.int64)
        money[rows_f] = state.money[rows_f, family[rows_f]]
        affordable = money[:, None] >= d.tier_cost[None, :]
        tier = np.full(g, -1, dtype=np.int64)

        def check(t, legal, obs):
            tc = np.clip(t, 0, legal.affordable.shape[1] - 1)
            bad = (t < -1) | (t >= legal.affordable.shape[1])
            return bad | ((t >= 0) & ~legal.affordable[np.arange(obs.n), tc]), "tier not affordable"

        legal = {"office": np.full(g, office), "affordable": affordable}
        agents.ask("retire", state, family, legal, (tier,), check)
        honoured = leaves & (tier >= 0)
        ledger.family(state, "retirement", family, -d.tier_cost[np.maximum(tier, 0)], where=honoured)
        hr = np.flatnonzero(honoured)
        state.retired[hr, family[hr], tier[hr]] += 1
        state.wealth[hr, family[hr]] += d.tier_wealth[tier[hr]]
        home = np.flatnonzero(leaves & ~honoured)
        state.supply[home, family[home]] += 1
        state.office[rows_f, office] = -1
        state.stress[rows_f, office] = 0
        retired += leaves
    return retired
