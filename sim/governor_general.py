"""The Governor-General (L126-L127; John Company 2e's office, as far as our rules can express it).

The office exists once the law "Governor General" is in force (``laws.flag(..., "governor_general")``); phase 5
appoints him last, by the Chairman, from the heads of the other committees (``appointments.candidates``). His
powers (2e: "Govern", "automatic income"), in phase 6 right after the governors:

- once per round he may govern (decision ``general_govern``): a check (D-CHECK) with ``governor_general.dice``
  dice. Success: his family earns ``income_per_region`` £ per Company region (+ Zamindar Taxes' bonus; a bonus a
  held note of kind 5 may take), and in every Company region he applies one governor effect of his choice
  (decision ``general_effects``: regiment in that presidency's army, half a Company ship there, tax to the
  Company or to the presidency — R-GOVERNORS' effects, ``board.govern_effect``; a second tax in a region
  this round raises its unrest). His half-built ship is the office's (``state.gg_half_ship``): two of his ship
  effects launch one, and a successor finishes what he began.
  3-4: ``fail_unrest`` unrest in every Company region; 5-6: he is fired and the same unrest follows.
- the Company earns ``company_income`` £ per Company region each round he holds the office (2e: 3; default 0,
  since our seed keeps the governors whose taxes 2e's income replaces).

Blame situation 5 charges his family ``end.blame_governor_general`` VP (phases/end.py).
"""

from __future__ import annotations

import numpy as np

from . import laws, ledger, notes
from . import layout as L
from .agents import Agents
from .board import govern_effect, roll_check, vacate
from .dice import Chance
from .reduce import sum_last
from .rules import Rules
from .state import State


def exists(state: State, rules: Rules) -> np.ndarray:
    """bool[G]: the Governor-General's office exists (its law is in force)."""
    return laws.flag(state, rules, "governor_general")


def governor_general(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Phase 6: the Governor-General's income for the Company and his govern action."""
    gg_rules = rules.governor_general
    g = state.n_games
    gg = np.where(~state.done & exists(state, rules), state.office[:, L.GOVERNOR_GENERAL], -1)
    if not (gg >= 0).any():
        return
    regions = state.owner >= 0  # [G, R] Company regions
    n_regions = sum_last(regions)
    if gg_rules.company_income:
        ledger.company(state, "governor_general_company", np.where(gg >= 0, gg_rules.company_income * n_regions, 0))
    asked = np.where((n_regions > 0) & (gg_rules.dice > 0), gg, -1)
    if not (asked >= 0).any():
        return
    act = np.zeros(g, dtype=bool)
    agents.ask("general_govern", state, asked, {"regions": regions, "dice": np.full(g, gg_rules.dice)}, (act,))
    rows = np.flatnonzero((asked >= 0) & act)
    if rows.size == 0:
        return
    won, fired = roll_check(rules, dice, rows, np.full(rows.size, gg_rules.dice), g)
    income = gg_rules.income_per_region * n_regions + laws.modifier(state, rules, "governor_general_bonus")
    notes.pay_bonus(state, rules, agents, "governor_general", gg, income, won)
    effect = np.zeros(regions.shape, dtype=np.int64)

    def check(e, legal, obs):
        return ((e < 0) | (e >= L.N_GOV_EFFECTS)).any(axis=1), "an effect layout.G_* for every Company region"

    agents.ask("general_effects", state, np.where(won, gg, -1), {"regions": regions}, (effect,), check)
    for region in range(regions.shape[1]):
        sel = won & regions[:, region]
        if sel.any():
            govern_effect(state, rules, sel, region, effect[:, region], state.gg_half_ship)
    failed = rows[~won[rows]]  # the games concerned only
    unrest = gg_rules.fail_unrest + laws.modifier(state, rules, "governor_fail_unrest", failed)
    state.unrest[failed] += np.where(regions[failed], unrest[:, None], 0).astype(np.int32)
    vacate(state, fired, L.GOVERNOR_GENERAL)
