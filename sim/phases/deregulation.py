"""Phase 11, Deregulation (R-DEREGULATION; seed 000 L244-L246).

While the Company is shaky — stability <= ``table_stability_max`` (3) or debt >= ``table_debt_min`` (5) — the
Prime Minister may table the special law Deregulation (decision ``table_deregulation``); at stability <=
``forced_stability`` (1) or debt >= ``forced_debt`` (8) the public tables it anyway (L245). It has no policy; its
public support is ``support_one`` (+2) with one shaky indicator, ``support_both`` (+6) with both (L246), plus
Writer Privileges' modifier. The vote is phase 9's (``hold_vote``, after the "vote" deal moment; the PM may vote
against it, ``deregulation.pm_votes``).

- Passed: half the loans (rounded down, ``writeoff``) are written off, ``state.deregulated`` opens phase 3 (firms)
  from the next round, laws that end with Deregulation leave force; the PM gains a wreath (``pm_wreath``).
- Rejected: Company share VP +1 (``rejected_share_vp``), bounded by ``company.share_vp_min..max``; the PM stays
  (2e: "the Prime Minister will remain in power").

``deregulation.forced_round`` (0 = never), for experiments and tests: Deregulation passes at the start of that
round (``start_of_round``, called by the engine after ``begin_round``), without a vote.
"""

from __future__ import annotations

import numpy as np

from .. import laws, notes
from ..agents import Agents
from ..dice import Chance
from ..rules import Rules
from ..state import TALLY, State
from .parliament import hold_vote

PASSED, REJECTED = laws.DEREGULATION.index("passed"), laws.DEREGULATION.index("rejected")
BY_PM, BY_PUBLIC, BY_ROUND = (laws.DEREGULATION_BY.index(x) for x in ("pm", "public", "forced_round"))


def shaky(state: State, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """bool[G] stability shaky, bool[G] debt shaky (L245)."""
    de = rules.deregulation
    return state.stability <= de.table_stability_max, state.loans >= de.table_debt_min


def forced(state: State, rules: Rules) -> np.ndarray:
    """bool[G]: the public tables Deregulation (stability <= 1 or debt >= 8, L245)."""
    de = rules.deregulation
    return (state.stability <= de.forced_stability) | (state.loans >= de.forced_debt)


def deregulation(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Phase 11 in every running game where Deregulation has not passed yet."""
    de = rules.deregulation
    live = ~state.done & ~state.deregulated
    s_shaky, d_shaky = shaky(state, rules)
    can = live & (s_shaky | d_shaky)
    if not can.any():
        return
    by_public = can & forced(state, rules)
    pm = state.prime_minister.astype(np.int64)
    choice = np.zeros(state.n_games, dtype=bool)
    agents.ask(
        "table_deregulation",
        state,
        np.where(can & ~by_public & (pm >= 0), pm, -1),
        {"stability_shaky": s_shaky, "debt_shaky": d_shaky},
        (choice,),
    )
    by_pm = can & ~by_public & (pm >= 0) & choice
    rows = by_public | by_pm
    if not rows.any():
        return
    support = np.where(s_shaky & d_shaky, de.support_both, de.support_one)
    support = np.where(rows, support + laws.modifier(state, rules, "deregulation_support"), 0)
    none = np.full(state.n_games, -1, dtype=np.int64)
    topic = {"support": support, "deregulation": np.ones(state.n_games, dtype=bool)}
    notes.deal(state, rules, dice, agents, "vote", rows, topic)
    must_for = np.full(state.n_games, de.pm_votes == "for")
    vote = hold_vote(state, rules, agents, rows, support, none, none, must_for, deregulation=True)
    state.tally[by_pm, TALLY["deregulation_by"]] = BY_PM
    state.tally[by_public, TALLY["deregulation_by"]] = BY_PUBLIC
    passed = rows & vote.passed
    rejected = rows & ~vote.passed
    pass_deregulation(state, rules, passed)
    state.tally[passed, TALLY["deregulation"]] = PASSED
    wreath = passed & (pm >= 0)
    if de.pm_wreath == "tabled_by_pm":
        wreath &= by_pm
    elif de.pm_wreath == "never":
        wreath[:] = False
    hit = np.flatnonzero(wreath)
    state.wreaths[hit, pm[hit]] += 1
    co = rules.company
    state.share_vp[rejected] = np.clip(
        state.share_vp[rejected] + de.rejected_share_vp, co.share_vp_min, co.share_vp_max
    ).astype(np.int8)
    state.tally[rejected, TALLY["deregulation"]] = REJECTED


def pass_deregulation(state: State, rules: Rules, rows: np.ndarray) -> None:
    """Deregulation passes in games ``rows``: floor(writeoff * loans) loans written off, firms open from the next
    round, laws that end with Deregulation discarded (L246)."""
    if not rows.any():
        return
    off = np.where(rows, np.floor(rules.deregulation.writeoff * state.loans + 1e-9).astype(np.int64), 0)
    state.loans[...] -= off.astype(state.loans.dtype)
    state.tally[:, TALLY["loans_written_off"]] += off.astype(np.int32)
    state.deregulated[rows] = True
    state.dereg_round[rows] = state.round[rows]
    laws.discard_on_deregulation(state, rules, rows)


def start_of_round(state: State, rules: Rules) -> None:
    """``deregulation.forced_round``: Deregulation passes at the start of that round (no vote, no wreath)."""
    r = rules.deregulation.forced_round
    if r <= 0:
        return
    rows = ~state.done & ~state.deregulated & (state.round == r)
    if rows.any():
        pass_deregulation(state, rules, rows)
        state.tally[rows, TALLY["deregulation"]] = PASSED
        state.tally[rows, TALLY["deregulation_by"]] = BY_ROUND
