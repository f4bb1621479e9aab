"""Tests for surviving mutants of the second (validation) sample of the mutation run in sim.phases.firms,
sim.phases.london, sim.phases.parliament, sim.phases.upkeep and sim.positions (issue 15; README "Development:
mutation testing"). Each test names the mutant it kills (``mutmut show NAME``) and the wrong reading it rules out, on
a hand-built position whose values make the wrong code give a different answer.

A refusal's reason is matched whole, anchored after "in game g: " and at the end of the message."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, fund, seat_office
from test_firms import ON, firm_rules, make_firm, per_seat, relatives_ok
from test_upkeep import retire

from sim import firms as fr
from sim import positions as pos
from sim.agents import IllegalDecision
from sim.phases.firms import firm_accounts, manager_step
from sim.phases.london import special_retirements
from sim.phases.parliament import name_impeachment
from sim.phases.setup import apply_lots
from sim.phases.upkeep import upkeep
from sim.state import FLOW


# ------------------------------------------------------------------------------------------------- sim.phases.firms
def test_only_the_manager_of_a_firm_offered_an_emergency_investment_is_asked_to_consent():
    """L194 (phase 7.1; 2e "緊急投資"): game 0's firm (seat 0, value 3, 1 £) owes 1 ship + max(2 shares, value 3) = 4;
    seat 1 offers a factory and the manager consents (``consent_investment``): 5 £ in, value 3 -> 2. Game 1 has no
    firm, so nobody there has anything to consent to: the decision is asked of seat 0 in game 0 only. A decider
    filled with +1 instead of -1 (nobody) asks seat 1 in game 1 too, spending its strategy's random draws on a
    question that does not exist (kills sim.phases.firms.x_emergency__mutmut_197)."""
    r, s = firm_rules("house", games=2)
    make_firm(s, 0, 0, {0: 1, 1: 1}, value=3, cash=1, ships={0: 1}, games=0)
    s.factories[0, :2] = 1
    strat = Scripted(emergency_invest=per_seat({1: fr.FACTORY}), consent_investment=const([True] * 4))
    firm_accounts(s, r, dice(), agents(r, s, strat))
    assert strat.asked("consent_investment") == [([0], [0])]
    assert s.firm_value[0, 0] == 2 and s.firm_shares[0, 0].tolist() == [1, 2, 0, 0]
    assert s.ledger[:, FLOW["firm_emergency"]].tolist() == [5, 0]
    relatives_ok(r, s)


def test_the_takeover_candidate_is_the_first_clockwise_from_the_manager_starting_next_to_him():
    """L103 (2e hostile takeover): seats 1 and 2 both want seat 0's firm; the candidate is the first clockwise from
    the manager, seat 1 (his left neighbour), and with every shareholder's approval he becomes its manager. Starting
    the clockwise count two seats on skips seat 1 and makes seat 2 the manager (kills
    sim.phases.firms.x_manager_step__mutmut_98, ``range(2, n)``)."""
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 1, 3: 1})
    strat = Scripted(take_over_firm=per_seat({1: 0, 2: 0}, default=-1), approve_manager=const([True] * 4))
    manager_step(s, r, agents(r, s, strat), ON)
    assert s.firm_manager[0, 0] == 1


# ------------------------------------------------------------------------------------------------ sim.phases.london
def test_a_special_retirement_wins_a_pick_only_with_a_card_on_display_and_no_paid_retirement_yet():
    """L197 with L72 (docs/strategies.md ``retire``: ``pick`` bool[G'] "paying now wins a position pick", what the
    balanced strategy values the best card on display for): seat 1, a shareholder of a firm with dividend level 4,
    may retire a relative from home in three games. Game 0: a card is on display but seat 1 already paid an
    honourable retirement this season (it has its pick): no new pick. Game 1: nothing on display: no pick. Game 2:
    a card on display and no retirement yet: a pick. At the end (``final``) never a pick. Either condition alone
    (``|`` for ``&``) tells the family every one of those is a pick (kills
    sim.phases.london.x_special_retirements__mutmut_48)."""
    r, s = firm_rules("house", games=3)
    make_firm(s, 0, 0, {1: 1}, cash=0)
    s.firm_dividend[:, 0] = 4
    fund(s, 1, 10)
    s.market[[0, 2], 0] = 0  # a position card on display in games 0 and 2
    seen = []

    def retire_none(obs, legal):
        seen.append((obs.games.tolist(), legal.pick.tolist()))
        return np.full(obs.n, -1)

    strat = Scripted(retire=retire_none)
    spent = np.zeros(s.money.shape, dtype=np.int64)
    honoured = spent.copy()
    honoured[0, 1] = 1
    special_retirements(s, r, agents(r, s, strat), np.arange(3), spent, honoured, final=False)
    special_retirements(s, r, agents(r, s, strat), np.arange(3), spent, spent.copy(), final=True)
    assert seen == [([0, 1, 2], [False, False, True]), ([0, 1, 2], [False, False, False])]


# -------------------------------------------------------------------------------------------- sim.phases.parliament
def test_an_impeachment_of_a_negative_office_is_refused_with_its_reason():
    """Public Demands Impeachment! (2e: the PM picks one officeholder; docs/strategies.md ``impeach``: int[G'] an
    office held, illegal: not held): the PM answering office -10 is refused as an illegal decision with its reason.
    Letting a negative answer through the clip indexes the offices from the end, and -10 (below -9 offices) makes
    the check itself crash with an IndexError instead of naming the illegal answer (kills
    sim.phases.parliament.x_name_impeachment__mutmut_29)."""
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 1)
    strat = Scripted(impeach=const(-(L.N_OFFICES + 1)))
    with pytest.raises(IllegalDecision, match=r"'impeach' in game 0: not a held office$"):
        name_impeachment(s, r, agents(r, s, strat), np.array([0]))


# ------------------------------------------------------------------------------------------------ sim.phases.upkeep
def test_the_answer_for_a_tier_without_upkeep_is_not_checked_its_retirees_are_kept():
    """R-UPKEEP (L242-L243; docs/strategies.md ``keep_retirees``: "tiers without upkeep are always kept"): seat 1 has
    two tier-0 retirees (no upkeep) and one tier-1 (1 £) and answers 3 for tier 0: that answer is not used, so it is
    no illegal decision; both tier-0 retirees stay, the tier-1 one is kept for 1 £. Checking every tier (``>= 0``)
    refuses the answer as keeping more retirees than it has (kills sim.phases.upkeep.x_upkeep__mutmut_36)."""
    r, s = blank(1, 4)
    retire(s, 1, [2, 1, 0, 0, 0])
    fund(s, 1, 3)
    upkeep(s, r, dice(), agents(r, s, Scripted(keep_retirees=const([3, 1, 0, 0, 0]))))
    assert s.retired[0, 1].tolist() == [2, 1, 0, 0, 0] and s.money[0, 1] == 2
    assert s.ledger[0, FLOW["upkeep"]] == -1


# ------------------------------------------------------------------------------------------------------ sim.positions
def test_drawing_from_a_spent_deck_gives_no_card():
    """D-POSITIONS (``positions.draw``: -1 where the deck is spent; ``state.deck_top`` = D: spent): game 0 draws its
    top card, game 1's deck is spent: no card, its top stays. A 6-player setup with an empty deck (a legal rules
    file, tests/test_positions.py plays one) deals the "Position card" lot's card from a spent deck: the winner gets
    nothing. Drawing in every game regardless (``left = None``) indexes past the deck (IndexError; kills
    sim.positions.x_draw__mutmut_5)."""
    r, s = blank(2, 4)
    n_cards = len(r.d.card_names)
    s.deck[:] = np.arange(n_cards)
    s.deck_top[:] = [3, n_cards]
    assert pos.draw(s, np.arange(2)).tolist() == [3, -1]
    assert s.deck_top.tolist() == [4, n_cards]

    r, s = blank(1, 6, **{"positions.deck": []})
    winner = np.full((1, len(r.d.lot_names)), -1)
    winner[0, r.d.lot_names.index("Position card")] = 4
    apply_lots(s, r, winner)
    assert s.deck_top[0] == 0 and s.card_owner.shape == (1, 0) and s.wealth[0, 4] == 0
