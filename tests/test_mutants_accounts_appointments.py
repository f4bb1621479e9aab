"""Tests for the surviving mutants of the sampled mutation run in sim.notes, sim.phases.accounts,
sim.phases.appointments, sim.phases.deregulation and sim.phases.firms (issue 15; README "Development: mutation
testing"). Each test names the mutant it kills (``mutmut show NAME``) and the wrong reading it rules out; the other
sampled survivors of these modules are equivalent (the reasons are in the helper's report to the lead)."""

from __future__ import annotations

import numpy as np
from helpers import Scripted, agents, blank, dice, fund
from test_notes import accepts, offers
from test_parliament import votes

from sim import ledger, notes
from sim.phases.deregulation import deregulation
from sim.state import TALLY


# -------------------------------------------------------------------------------------------------------- sim.notes
def test_a_family_holding_no_note_at_all_still_settles_the_deal():
    """D-DEALS (seed 001 L81-L87; seed 000 L54: notes pass freely, to a third family too). Two games; in game 1 the
    last seat (3) has given all five of its notes to seat 0 and holds no note of anybody. Seat 0 sells seat 3's
    vote note to seat 1 for 2 £ there, and in game 0 seat 2 sells its own money note to seat 1 for 1 £: each
    seller is paid, each buyer pays, game by game. Settling the pay per (game, seat) must count every seat of
    every game, the last one holding nothing included: a bincount without ``minlength = G * N`` is one seat short
    and the pay table cannot be laid out per game (kills sim.notes.x_deal__mutmut_292)."""
    r, s = blank(2, 4)
    s.note_holder[1, 3, :] = 0
    fund(s, 1, 3)
    table = {(0, 2): [(2, notes.MONEY, 1, 1)], (1, 0): [(3, notes.VOTES, 1, 2)]}

    def offer(obs, legal):
        buyer, price = np.full(legal.held.shape, -1), np.zeros(legal.held.shape, dtype=int)
        for i, (game, seat) in enumerate(zip(obs.games, obs.seat, strict=True)):
            for issuer, kind, to, p in table.get((int(game), int(seat)), []):
                buyer[i, issuer, kind], price[i, issuer, kind] = to, p
        return buyer, price

    strat = Scripted(
        offer_notes=offer,
        accept_notes=lambda obs, legal: legal.offered.copy(),  # every offer made to it
        use_money_notes=lambda obs, legal: np.zeros(legal.cap.shape, int),
    )
    notes.deal(s, r, dice(), agents(r, s, strat), "appointments")
    assert s.money.tolist() == [[0, 2, 1, 0], [2, 1, 0, 0]]
    assert s.note_holder[0, 2, notes.MONEY] == 1 and s.note_holder[1, 3, notes.VOTES] == 1
    assert s.tally[:, TALLY["notes_sold"]].tolist() == [1, 1] and ledger.balanced(s).all()


# ------------------------------------------------------------------------------------------ sim.phases.deregulation
def test_deals_before_the_deregulation_vote_are_the_vote_moment():
    """R-DEREGULATION / D-DEALS (``notes.deal_moments`` "vote" = before every vote, phase 11 Deregulation too):
    stability 1 makes the public table Deregulation (L245; one shaky indicator: support +2, L246). Before its vote
    the families deal, told the moment "vote", that the vote is Deregulation and its support 2; seat 1 sells its
    vote note to seat 2 for 1 £ and the sale is executed. Naming another moment than the engine's "vote" skips the
    deal (kills sim.phases.deregulation.x_deregulation__mutmut_124)."""
    r, s = blank(1, 4)
    s.stability[0], s.loans[0] = 1, 0
    s.prime_minister[0] = 0
    fund(s, 2, 1)
    told = []

    def offer(obs, legal):
        told.append((legal.moment.tolist(), legal.deregulation.tolist(), legal.support.tolist(), obs.seat.tolist()))
        return offers({1: [(1, notes.VOTES, 2, 1)]})(obs, legal)

    strat = Scripted(offer_notes=offer, accept_notes=accepts({2: [(1, notes.VOTES)]}), vote=votes({}))
    deregulation(s, r, dice(), agents(r, s, strat))
    assert told == [(["vote"], [True], [2], [seat]) for seat in range(4)]
    assert s.note_holder[0, 1, notes.VOTES] == 2 and s.money[0].tolist() == [0, 1, 0, 0]
    assert s.deregulated[0]  # +2 support, nobody against
