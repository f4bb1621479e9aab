"""Phase 10, upkeep of honourable retirements (R-UPKEEP, seed L242-L243): upkeep per tier, retirees the
family cannot (or will not) pay for leave honourable retirement for good, and where they go
(``retirement.unpaid_upkeep``)."""

import numpy as np
import pytest
from helpers import Scripted, agents, blank, const, dice, fund

from sim import ledger
from sim.agents import IllegalDecision
from sim.phases.end import V, score
from sim.phases.upkeep import upkeep
from sim.state import FLOW, TALLY

KEEP_ALL = Scripted(keep_retirees=lambda obs, legal: legal.retired)


def retire(s, seat, tiers):
    """Relatives of ``seat`` in honourable retirement, ``tiers`` = counts per tier (with their wealth)."""
    tiers = np.array(tiers)
    s.retired[:, seat] += tiers
    s.supply[:, seat] -= tiers.sum()
    s.wealth[:, seat] += (tiers * np.array([0, 1, 2, 3, 4])).sum()


def test_upkeep_is_paid_per_retiree_and_tier():
    """Seat 1: one tier-1 and two tier-4 retirees: 1 + 2 * 4 = 9 £; seat 2: tier 0 costs nothing and is not asked."""
    r, s = blank(1, 4)
    retire(s, 1, [0, 1, 0, 0, 2])
    retire(s, 2, [3, 0, 0, 0, 0])
    fund(s, 1, 12)
    upkeep(s, r, dice(), agents(r, s, KEEP_ALL))
    assert KEEP_ALL.asked("keep_retirees")[-1] == ([0], [1])
    assert s.money[0, 1] == 3 and s.ledger[0, FLOW["upkeep"]] == -9 and ledger.balanced(s).all()
    assert s.retired[0, 1].tolist() == [0, 1, 0, 0, 2] and s.retired[0, 2].tolist() == [3, 0, 0, 0, 0]
    assert s.tally[0, TALLY["upkeep_paid"]] == 9 and s.tally[0, TALLY["upkeep_defaults"]] == 0


@pytest.mark.usefixtures("engine_path")  # its scoring (R-END) counts by a kernel at any batch size there
def test_an_unpaid_retiree_goes_home_with_his_wealth_and_vp():
    """L243: 5 £ for a tier-4 (4 £) and a tier-2 (2 £) retiree: the family keeps the tier-4 one; the tier-2 one
    refuses honourable retirement: home to the supply, his 2 wealth and 4 end VP gone."""
    r, s = blank(1, 4)
    retire(s, 1, [0, 0, 1, 0, 1])
    fund(s, 1, 5)
    strat = Scripted(keep_retirees=const([0, 0, 0, 0, 1]))
    upkeep(s, r, dice(), agents(r, s, strat))
    assert s.retired[0, 1].tolist() == [0, 0, 0, 0, 1] and s.supply[0, 1] == 11
    assert s.money[0, 1] == 1 and s.wealth[0, 1] == 4
    assert s.tally[0, TALLY["upkeep_defaults"]] == 1 and s.tally[0, TALLY["upkeep_paid"]] == 4
    s.done[:], s.end_round[:] = True, 7
    score(s, r)
    assert s.vp[0, 1, V["retirements"]] == 12  # the tier-2 retiree's 4 VP are lost
    assert (s.relatives() == 12).all()


@pytest.mark.parametrize(
    ("money", "kept", "legal"),
    [(10, [0, 2, 1, 0, 0], True), (10, [0, 2, 0, 0, 0], False), (3, [0, 1, 1, 0, 0], True), (3, [0, 0, 1, 0, 0], False),
     (2, [0, 0, 1, 0, 0], True), (2, [0, 2, 0, 0, 0], True), (2, [0, 1, 0, 0, 0], False)],
)  # fmt: skip
def test_a_retiree_refuses_honourable_retirement_only_if_the_family_cannot_afford_to_pay(money, kept, legal):
    """L243: seat 3 has two tier-1 retirees (1 £ each) and one tier-2 (2 £). It chooses whom to keep, but letting go
    one the money left still pays for is illegal: with 10 £ it keeps all three; with 3 £ it keeps tier 2 and one
    tier 1 (3 £) — keeping tier 2 alone leaves 1 £, enough for a tier-1 retiree; with 2 £ either tier 2 or both tier
    1s, not one tier 1."""
    r, s = blank(1, 4)
    retire(s, 3, [0, 2, 1, 0, 0])
    fund(s, 3, money)
    strat = Scripted(keep_retirees=const(kept))
    if not legal:
        with pytest.raises(IllegalDecision, match="lets go one its money still pays for"):
            upkeep(s, r, dice(), agents(r, s, strat))
        return
    upkeep(s, r, dice(), agents(r, s, strat))
    assert s.retired[0, 3].tolist() == kept
    assert s.money[0, 3] == money - np.dot(kept, r.d.tier_upkeep)


def test_keeping_more_than_the_money_pays_for_is_illegal():
    r, s = blank(1, 4)
    retire(s, 1, [0, 0, 0, 1, 0])
    fund(s, 1, 2)
    with pytest.raises(IllegalDecision, match="keep_retirees"):
        upkeep(s, r, dice(), agents(r, s, KEEP_ALL))


def test_unpaid_retiree_to_the_lowest_tier_under_the_key():
    """retirement.unpaid_upkeep = "lowest_tier": he stays retired in tier 0 (no upkeep, no VP, no wealth)."""
    r, s = blank(1, 4, **{"retirement.unpaid_upkeep": "lowest_tier"})
    retire(s, 1, [0, 0, 0, 1, 0])
    upkeep(s, r, dice(), agents(r, s))
    assert s.retired[0, 1].tolist() == [1, 0, 0, 0, 0] and s.supply[0, 1] == 11 and s.wealth[0, 1] == 0


def test_lowest_tier_needs_a_free_first_tier():
    from sim.rules import Rules, RulesError

    with pytest.raises(RulesError, match="retirement.unpaid_upkeep"):
        Rules.default().with_overrides({"retirement.unpaid_upkeep": "lowest_tier", "retirement.tiers.0.upkeep": 1})


def test_the_balanced_family_keeps_the_dearest_retirees_worth_their_upkeep():
    """Round 6 (two upkeeps left): tier 4 (12 VP for 8 £) and tier 1 (2 VP for 2 £) are worth it at 2.5 £ a VP;
    with 4 £ it keeps the tier-4 retiree (not the cheaper tier-1 one) and lets the tier-1 one go."""
    r, s = blank(1, 4)
    s.round[:] = 6
    retire(s, 1, [0, 1, 0, 0, 1])
    fund(s, 1, 4)
    upkeep(s, r, dice(), agents(r, s))
    assert s.retired[0, 1].tolist() == [0, 0, 0, 0, 1] and s.money[0, 1] == 0


def test_finished_games_pay_nothing():
    r, s = blank(2, 4)
    retire(s, 1, [0, 1, 0, 0, 0])
    fund(s, 1, 3)
    s.done[1] = True
    upkeep(s, r, dice(), agents(r, s, KEEP_ALL))
    assert s.money[:, 1].tolist() == [2, 3]


def test_the_answer_for_a_tier_without_upkeep_is_not_checked_its_retirees_are_kept():
    """R-UPKEEP (L242-L243; docs/strategies.md ``keep_retirees``: "tiers without upkeep are always kept"): seat 1 has
    two tier-0 retirees (no upkeep) and one tier-1 (1 £) and answers 3 for tier 0: that answer is not used, so it is
    no illegal decision; both tier-0 retirees stay, the tier-1 one is kept for 1 £. Checking every tier (``>= 0``)
    refuses the answer as keeping more retirees than it has."""
    r, s = blank(1, 4)
    retire(s, 1, [2, 1, 0, 0, 0])
    fund(s, 1, 3)
    upkeep(s, r, dice(), agents(r, s, Scripted(keep_retirees=const([3, 1, 0, 0, 0]))))
    assert s.retired[0, 1].tolist() == [2, 1, 0, 0, 0] and s.money[0, 1] == 2
    assert s.ledger[0, FLOW["upkeep"]] == -1


def test_keeping_unpaid_retirees_is_refused_with_its_reason():
    """R-UPKEEP (L242-L243): a family with a tier-3 retiree (3 £ upkeep) and 2 £ cannot keep him; the refusal
    names the game and the reason in full (a clear one-line error). A mangled reason fails the
    anchored match."""
    r, s = blank(1, 4)
    retire(s, 1, [0, 0, 0, 1, 0])
    fund(s, 1, 2)
    strat = Scripted(keep_retirees=lambda obs, legal: legal.retired)
    with pytest.raises(
        IllegalDecision,
        match=r"in game 0: keeps more retirees than it has or than its money pays for, "
        r"or lets go one its money still pays for$",
    ):
        upkeep(s, r, dice(), agents(r, s, strat))


def test_upkeep_defaults_add_to_the_rounds_tally():
    """Per-round counters (state.TALLIES, reset each round) are reset only by
    engine.begin_round and every writer adds to them. Upkeep is phase 10's only writer of ``upkeep_defaults``, so
    this is the counter's contract rather than a position the engine's round reaches: with 2 defaults already
    counted this round (game 0) and 1 (game 1), upkeep dropping one tier-2 retiree in game 0 (1 £ cannot pay him) and
    none in game 1 counts 3 and 1. Writing the tally instead of adding to it gives 1 and 0."""
    r, s = blank(2, 4)
    retire(s, 1, [0, 0, 1, 0, 0])
    fund(s, 1, 1, games=0)
    fund(s, 1, 2, games=1)
    s.tally[:, TALLY["upkeep_defaults"]] = [2, 1]
    s.tally[:, TALLY["upkeep_paid"]] = [5, 0]
    keep = lambda obs, legal: np.where(obs.games[:, None] == 0, 0, legal.retired)  # noqa: E731
    upkeep(s, r, dice(), agents(r, s, Scripted(keep_retirees=keep)))
    assert s.retired[:, 1, 2].tolist() == [0, 1] and s.money[:, 1].tolist() == [1, 0]
    assert s.tally[:, TALLY["upkeep_defaults"]].tolist() == [3, 1]
    assert s.tally[:, TALLY["upkeep_paid"]].tolist() == [5, 2]
