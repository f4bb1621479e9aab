"""Where the phases meet: rules of one phase acting in another (position cards and notes in phases 1, 9 and 11;
Tenure Limits in phase 1; the Governor-General's half-built ship in phase 6)."""

import numpy as np
from helpers import L, Scripted, agents, blank, const, dice, fund, seat_office

from sim import laws, notes
from sim import positions as pos
from sim.governor_general import governor_general
from sim.phases.london import london_season
from sim.phases.parliament import hold_vote, property_votes


def card(r, name):
    return r.d.card_names.index(name)


def in_force(r, s, law, games=slice(None)):
    s.law_pile[games, r.d.law_names.index(law)] = laws.IN_FORCE


# --------------------------------------------------------------------------------- D-POSITIONS x R-PARLIAMENT
def test_permanent_cards_add_their_votes_to_property_votes():
    """Seat 1: a shipyard (1) + Seat in the Commons (2) = 3; seat 2: a factory (3) + Rotten borough (3) = 6;
    a closed card's votes (Whig connections) are not property votes."""
    r, s = blank(1, 4)
    s.shipyards[0, 1] = 1
    s.factories[0, 2] = 1
    for seat, name in ((1, "Seat in the Commons"), (2, "Rotten borough"), (3, "Whig connections")):
        pos.give(s, r, np.array([0]), np.array([seat]), np.array([card(r, name)]))
    assert property_votes(s, r)[0].tolist() == [0, 3, 6, 0]


def test_a_closed_vote_card_is_played_for_its_holders_side_and_spent():
    """Support -3; seat 1 (for, 2 property votes) plays Whig connections (4 votes): net -3 + 2 + 4 = 3 passes.
    The card is spent; seat 2, abstaining, may not play its Tory connections."""
    r, s = blank(1, 4)
    s.prime_minister[0] = 1
    s.shipyards[0, 1] = 2
    whig, tory = card(r, "Whig connections"), card(r, "Tory connections")
    pos.give(s, r, np.array([0, 0]), np.array([1, 2]), np.array([whig, tory]))

    def vote(obs, legal):
        return np.where(obs.seat == 1, 1, 0), np.zeros(obs.n, dtype=int), np.zeros((obs.n, obs.players), bool)

    strat = Scripted(vote=vote, play_position=lambda obs, legal: legal.playable.copy())
    one = np.ones(1, dtype=bool)
    out = hold_vote(s, r, agents(r, s, strat), one, np.array([-3]), np.full(1, -1), np.full(1, -1), one)
    assert out.net.tolist() == [3] and out.passed.tolist() == [True]
    assert s.card_played[0, whig] and not s.card_played[0, tory]
    assert [seats for _, seats in strat.asked("play_position")] == [[1]]


def test_a_vote_note_hands_over_the_issuers_permanent_card_votes_too():
    """Kind 4: seat 1 holds seat 2's vote note and votes against with it: seat 2's factory (3) and Seat in the
    Commons (2) count against; support 4 - 5 = -1 fails."""
    r, s = blank(1, 4)
    s.prime_minister[0] = 0
    s.factories[0, 2] = 1
    pos.give(s, r, np.array([0]), np.array([2]), np.array([card(r, "Seat in the Commons")]))
    s.note_holder[0, 2, notes.VOTES] = 1

    def vote(obs, legal):
        side = np.where(obs.seat == 1, -1, 0)
        return side, np.zeros(obs.n, dtype=int), legal.notes & (obs.seat == 1)[:, None]

    one = np.ones(1, dtype=bool)
    out = hold_vote(s, r, agents(r, s, Scripted(vote=vote)), one, np.array([4]), np.full(1, -1), np.full(1, -1),
                    np.zeros(1, dtype=bool))  # fmt: skip
    assert out.net.tolist() == [-1] and out.against[0].tolist() == [0, 5, 0, 0]


# ------------------------------------------------------------------------------------- R-NOTE kind 3 x phase 1
def test_the_holder_of_a_position_note_takes_the_issuers_pick():
    """Seat 2 may pick (it paid a retirement); seat 3 holds seat 2's position note and redeems it in game 0: the
    card goes to seat 3 and the note is spent. In game 1 seat 3 keeps its note and seat 2 picks."""
    r, s = blank(2, 4)
    pos.refill_market(s, r, np.ones(2, dtype=bool))
    s.note_holder[:, 2, notes.POSITION] = 3
    strat = Scripted(use_position_note=lambda obs, legal: obs.games == 0, take_position=const(0))
    first = s.market[:, 0].copy()
    pos.take_positions(s, r, agents(r, s, strat), np.array([[2, -1, -1, -1]] * 2))
    assert s.card_owner[[0, 1], first].tolist() == [3, 2]
    assert s.note_holder[:, 2, notes.POSITION].tolist() == [2, 3]  # spent: back with its issuer


# --------------------------------------------------------------------------------- Tenure Limits x phase 1
def test_tenure_limits_retires_the_chairman_whatever_his_roll():
    """Both Chairmen roll 1 (1 + 1 = 2: he would stay); with Tenure Limits in force (game 1) he retires."""
    r, s = blank(2, 4)
    s.round[:] = 2
    seat_office(s, L.CHAIRMAN, 0)
    in_force(r, s, "Tenure Limits", games=1)
    d = dice({0: [1], 1: [1]})
    london_season(s, r, d, agents(r, s, Scripted(retire=const(-1))))
    d.assert_spent()
    assert s.office[:, L.CHAIRMAN].tolist() == [0, -1] and s.supply[:, 0].tolist() == [11, 12]


# ------------------------------------------------------------------- the Governor-General's half-built ship
def test_the_governor_generals_ship_effects_build_one_ship_from_two_halves():
    """Company Bombay and Mysore (Bombay's army): the GG succeeds and chooses a ship in both regions: the two halves
    launch one Company ship in Bombay's sea. The next round a single half waits in the office."""
    r, s = blank(1, 4)
    in_force(r, s, "Governor General")
    for region in ("Bombay", "Mysore"):
        s.owner[0, r.d.regions.index(region)] = 0
    seat_office(s, L.GOVERNOR_GENERAL, 2)
    fund(s, 0, 0)
    strat = Scripted(general_govern=const(True), general_effects=lambda obs, legal: np.where(
        legal.regions, L.G_SHIP, L.G_REGIMENT))  # fmt: skip
    k = r.governor_general.dice
    governor_general(s, r, dice({0: [1] * k}), agents(r, s, strat))
    assert s.ships[0, 0, L.COMPANY_SHIP] == 1 and s.gg_half_ship[0] == 0
    s.owner[0, r.d.regions.index("Mysore")] = -1
    governor_general(s, r, dice({0: [1] * k}), agents(r, s, strat))
    assert s.ships[0, 0, L.COMPANY_SHIP] == 1 and s.gg_half_ship[0] == 1 and (s.half_ships == 0).all()
