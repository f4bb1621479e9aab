"""Tests for the surviving mutants of the sampled mutation run in sim.phases.india, sim.phases.military,
sim.phases.parliament and sim.positions (issue 15; README "Development: mutation testing"). Each test names the
mutant it kills (``mutmut show NAME``) and the wrong reading it rules out. The sampled survivors of
sim.phases.london, sim.phases.setup and the rest of sim.phases.parliament and sim.positions are equivalent (the
branch's report gives the reason for each)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, fund, give, seat_office
from test_india import BOMBAY, DELHI, company
from test_positions import ADMIRALTY, hand

from sim.agents import IllegalDecision
from sim.phases.appointments import appoint_office
from sim.phases.india import Event, attack_company
from sim.phases.military import settle_commanders
from sim.phases.parliament import hold_vote
from sim.state import TALLY

COUSIN = 14  # "Cousin on the board": the default deck's second ignore_nepotism card


# ------------------------------------------------------------------------------------------ sim.phases.india
def test_a_held_region_gives_a_seat_0_commander_his_trophy():
    """R-ATTACK (L213): a held region gives the commander's family ``held_trophies`` (1). Bombay (army 0, no
    regiments) is attacked at 2 by Delhi; seat 0 commands with 2 officers, seat 3 has 1: 3 free pieces hold. The
    commander is seat 0, so his family gains the trophy and Delhi loses ``held_attacker_loss``; reading "has a
    commander" as seat >= 1 gives seat 0 nothing (kills sim.phases.india.x_attack_company__mutmut_224)."""
    r, s = blank(1, 4)
    company(s, BOMBAY, 0)
    s.regiments[0, 0] = 0
    give(s, "officers", 0, 2, col=0)
    give(s, "officers", 3, 1, col=0)
    s.commander[0, 0] = 0
    s.strength[0, DELHI] = 2
    strat = Scripted()
    ev = Event.of(s, r, [0], 0)
    attack_company(s, r, dice(), agents(r, s, strat), ev, np.array([BOMBAY]), np.array([2]), attacker=np.array([DELHI]))
    assert strat.asked("defend") == [([0], [0])]  # the commander decides the defence
    assert s.owner[0, BOMBAY] == 0 and s.tally[0, TALLY["regions_held"]] == 1
    assert s.trophies[0].tolist() == [r.india.held_trophies, 0, 0, 0] == [1, 0, 0, 0]
    assert s.strength[0, DELHI] == 2 - r.india.held_attacker_loss


# --------------------------------------------------------------------------------------- sim.phases.military
def test_commanders_settle_once_per_game_whatever_the_order_of_the_rows():
    """R-COMMANDER: settle_commanders re-seats each army's commander in the games it is given, "distinct games in
    order" (its contract: callers may pass a game twice or out of order, as several lost regions of one game would).
    Rows [2, 0, 2]: game 0's army 0 has one family with most officers (seat 1: commander); game 2's army 0 ties seats
    0 and 3 with no sitting commander and nobody in Military Affairs, so the tie is drawn at random, once (one
    uniform, 0.9: the second tied family, seat 3); game 1 is not in the rows and keeps no commander although seat 2
    has officers there. Dropping the sorting of the rows crashes (kills
    sim.phases.military.x_settle_commanders__mutmut_11, ``rows = None``); settling game 2 twice would draw two
    uniforms."""
    r, s = blank(3, 4)
    give(s, "officers", 1, 2, col=0, games=0)
    give(s, "officers", 2, 1, col=0, games=0)
    give(s, "officers", 2, 1, col=0, games=1)
    give(s, "officers", 0, 1, col=0, games=2)
    give(s, "officers", 3, 1, col=0, games=2)
    d = dice(uniforms={2: [0.9]})
    strat = Scripted()
    settle_commanders(s, r, d, agents(r, s, strat), np.array([2, 0, 2]), [0])
    assert s.commander[:, 0].tolist() == [1, -1, 3]
    assert d.log == [("uniform", 2, 1)] and strat.asked("pick_commander") == []


# -------------------------------------------------------------------------------------- sim.phases.parliament
def test_a_vote_strategy_may_index_with_the_prime_ministers_seat():
    """docs/strategies.md, decision ``vote``: ``legal.prime_minister`` is int[G'], the PM's seat, so a strategy may
    index with it. Here every family reads the PM's property votes (``legal.property[.., legal.prime_minister]``):
    the PM (seat 2, a factory: 3 votes) votes for; a family with more property votes than the PM votes against (seat
    1, two factories: 6), the others for (seat 0, a shipyard: 1; seat 3: none). Net = support 0 + (3 + 1) - 6 = -2:
    the law fails (L239-L241). Handing the PM's seat over as floats breaks the strategy's index (kills
    sim.phases.parliament.x_hold_vote__mutmut_31, ``astype(None)``)."""
    r, s = blank(1, 4)
    s.prime_minister[:] = 2
    s.factories[0] = [0, 2, 1, 0]
    s.shipyards[0, 0] = 1

    def vote(obs, legal):
        rows = np.arange(obs.n)
        pm_votes = legal.property[rows, legal.prime_minister]
        mine = legal.property[rows, obs.seat]
        side = np.where(mine > pm_votes, -1, 1)
        return side, np.zeros(obs.n, dtype=np.int64), np.zeros((obs.n, obs.players), dtype=bool)

    none = np.full(1, -1)
    out = hold_vote(s, r, agents(r, s, Scripted(vote=vote)), np.ones(1, bool), np.zeros(1, int), none, none,
                    np.ones(1, bool))  # fmt: skip
    assert out.votes_for[0].tolist() == [1, 0, 3, 0] and out.against[0].tolist() == [0, 6, 0, 0]
    assert out.net.tolist() == [-2] and out.passed.tolist() == [False]


def test_the_vote_refusal_gives_its_whole_reason():
    """L239 and D-DEALS: an abstaining family (seat 1) buying 2 votes is refused with the vote's reason, in full:
    "side -1/0/1 (the PM for), votes bought within money, only held vote notes, none when abstaining" (kills
    sim.phases.parliament.x_hold_vote__mutmut_95, a changed message)."""
    r, s = blank(1, 4)
    fund(s, 1, 3)
    s.prime_minister[:] = 0
    strat = Scripted(vote=lambda obs, legal: (np.where(obs.seat == 0, 1, 0), np.where(obs.seat == 1, 2, 0),
                                              np.zeros((obs.n, obs.players), dtype=bool)))  # fmt: skip
    none = np.full(1, -1)
    with pytest.raises(
        IllegalDecision,
        match=r"\(seat 1\) made an illegal 'vote' in game 0: side -1/0/1 \(the PM for\), votes bought within money, "
        r"only held vote notes, none when abstaining$",
    ):
        hold_vote(s, r, agents(r, s, strat), np.ones(1, bool), np.zeros(1, int), none, none, np.ones(1, bool))


# ----------------------------------------------------------------------------------------------- sim.positions
def test_only_one_nepotism_card_is_played_per_appointment():
    """D-POSITIONS (default.toml ``[positions]``: an ``ignore_nepotism`` card waives consent for ONE appointment):
    the Chairman (seat 0) appoints his own clerk as Shipping Manager and holds both waivers, Friend at the Admiralty
    and Cousin on the board. Playing both at once is refused ("or more than 1"), so the second is not wasted; the
    engine's check without its limit lets both be spent (kills sim.positions.x_waive_nepotism__mutmut_84,
    ``_check_play(None)``). One card alone is accepted and the other stays in hand."""

    def position():
        r, s = blank(1, 4)
        seat_office(s, L.CHAIRMAN, 0)
        give(s, "clerks", 0, 1, col=0)
        give(s, "clerks", 1, 1, col=2)
        hand(s, r, 0, ADMIRALTY, COUSIN)
        return r, s

    r, s = position()
    assert r.d.card_names[COUSIN] == "Cousin on the board" and r.d.card_nepotism[[ADMIRALTY, COUSIN]].tolist() == [1, 1]
    both = np.zeros(len(r.d.card_names), dtype=bool)
    both[[ADMIRALTY, COUSIN]] = True
    greedy = Scripted(play_position=const(both), consent=const(False))
    with pytest.raises(
        IllegalDecision,
        match=r"\(seat 0\) made an illegal 'play_position' in game 0: not a playable card of this moment, "
        r"or more than 1$",
    ):
        appoint_office(s, r, dice(), agents(r, s, greedy), L.SHIPPING)
    assert not s.card_played[0].any()
    r, s = position()
    strat = Scripted(consent=const(False))
    appoint_office(s, r, dice(), agents(r, s, strat), L.SHIPPING)
    assert s.office[0, L.SHIPPING] == 0 and s.card_played[0, [ADMIRALTY, COUSIN]].tolist() == [True, False]
    assert strat.asked("consent") == [] and (s.relatives() == 12).all()
