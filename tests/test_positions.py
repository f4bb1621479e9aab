"""Position cards (D-POSITIONS, seed L59): every effect of the placeholder deck's primitives, the moments
closed cards are played at, the setup lot's card, and the validation of card data."""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, fund, give, seat_office

from sim import positions as pos
from sim.agents import IllegalDecision
from sim.phases.accounts import accounts
from sim.phases.appointments import appoint_office
from sim.phases.end import influence
from sim.phases.family import family_actions
from sim.phases.setup import apply_lots
from sim.rules import Rules, RulesError
from sim.state import FLOW

# each rule played on both engine paths, the numpy reference and the compiled kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")

# the default deck, by name
COMMONS, ESTATE, MARRIAGE, COURT_FAVOUR, ADMIRALTY, NEPHEW, PATRONAGE, NABOB = range(8)
CHAPLAIN, WHIGS, BOROUGH, EAGER_SON = 8, 9, 10, 15


def hand(s, r, seat, *cards, game=slice(None)):
    """Give cards to a family as if taken from the display (permanent wealth counts)."""
    for card in cards:
        rows = np.arange(s.n_games)[game]
        rows = np.atleast_1d(rows)
        pos.give(s, r, rows, np.full(rows.size, seat), np.full(rows.size, card))


def test_the_default_deck_is_what_the_tests_assume():
    d = Rules.default().d
    assert d.card_names[COURT_FAVOUR] == "Court favour" and d.card_money[COURT_FAVOUR] == 4
    assert d.card_names[ADMIRALTY] == "Friend at the Admiralty" and d.card_nepotism[ADMIRALTY] == 1
    assert d.card_names[NEPHEW] == "Ambitious nephew" and d.card_extra[NEPHEW] == 1
    assert d.card_names[NABOB] == "Gift from a nabob" and (d.card_money[NABOB], d.card_wealth[NABOB]) == (3, 1)
    assert d.card_names[WHIGS] == "Whig connections" and d.card_votes[WHIGS] == 4
    assert d.card_names[EAGER_SON] == "Eager younger son" and d.card_extra[EAGER_SON] == 1


# ------------------------------------------------------------------------------------------- permanent cards
def test_permanent_cards_give_wealth_when_taken_votes_and_influence_while_held():
    r, s = blank(1, 4)
    hand(s, r, 1, COMMONS, ESTATE, PATRONAGE)  # votes 2; wealth 1, influence 1; votes 1, influence 1
    hand(s, r, 2, MARRIAGE, CHAPLAIN)  # influence 2; wealth 1
    assert s.wealth[0].tolist() == [0, 1, 1, 0]
    assert pos.permanent_votes(s, r)[0].tolist() == [0, 3, 0, 0]
    assert pos.influence(s, r)[0].tolist() == [0, 2, 2, 0]
    assert influence(s, r)[0].tolist() == [0, 2, 2, 0]  # the end of game counts them (R-END)
    assert pos.held_count(s)[0].tolist() == [0, 3, 2, 0]
    assert pos.wealth(s, r)[0].tolist() == [0, 1, 1, 0]


def test_closed_cards_count_no_votes_or_wealth_until_played():
    r, s = blank(1, 4)
    hand(s, r, 1, WHIGS, NABOB)
    assert pos.permanent_votes(s, r)[0, 1] == 0 and s.wealth[0, 1] == 0 and pos.held_count(s)[0, 1] == 2


# ---------------------------------------------------------------------------------------------- closed cards
def test_a_money_card_is_played_before_the_family_actions_and_only_once():
    """Court favour (4 £, moment family_actions): seat 1 plays it, then can afford a factory (5 £) with 1 £."""
    r, s = blank(1, 4)
    hand(s, r, 1, COURT_FAVOUR)
    fund(s, 1, 1)
    strat = Scripted(family_action=lambda obs, legal: (np.where(legal.once[:, L.A_FACTORY], L.A_FACTORY, 0),
                                                       np.zeros(obs.n, bool), np.zeros((obs.n, 2), int)))  # fmt: skip
    family_actions(s, r, dice(), agents(r, s, strat))
    assert strat.asked("play_position") == [([0], [1])]
    assert s.card_played[0, COURT_FAVOUR] and s.ledger[0, FLOW["positions"]] == 4
    assert s.factories[0, 1] == 1 and s.money[0, 1] == 0
    family_actions(s, r, dice(), agents(r, s, strat))  # spent: not offered again
    assert len(strat.asked("play_position")) == 1 and pos.held_count(s)[0, 1] == 0


def test_a_card_kept_back_stays_in_hand():
    r, s = blank(1, 4)
    hand(s, r, 1, COURT_FAVOUR)
    family_actions(s, r, dice(), agents(r, s, Scripted(play_position=lambda obs, legal: legal.playable & False)))
    assert not s.card_played[0, COURT_FAVOUR] and s.money[0, 1] == 0 and pos.held_count(s)[0, 1] == 1


def test_a_money_and_wealth_card_at_the_accounts_moment():
    """Gift from a nabob (3 £, 1 wealth, moment accounts) is offered in phase 7, not in phase 2."""
    r, s = blank(1, 4)
    hand(s, r, 2, NABOB)
    strat = Scripted()
    family_actions(s, r, dice(), agents(r, s, strat))
    assert strat.asked("play_position") == []
    s.regiments[:] = 0
    accounts(s, r, dice(), agents(r, s, strat))
    assert strat.asked("play_position") == [([0], [2])]
    assert s.money[0, 2] == 3 and s.wealth[0, 2] == 1 and s.ledger[0, FLOW["positions"]] == 3
    assert pos.wealth(s, r)[0, 2] == 1


def test_playing_a_card_of_another_moment_is_illegal():
    from sim.agents import IllegalDecision

    r, s = blank(1, 4)
    hand(s, r, 1, COURT_FAVOUR, NABOB)
    every = Scripted(play_position=lambda obs, legal: np.ones(legal.playable.shape, dtype=bool))
    with pytest.raises(IllegalDecision, match="play_position"):
        family_actions(s, r, dice(), agents(r, s, every))


def test_an_extra_action_card_gives_one_more_action_after_the_regular_one():
    """Ambitious nephew: seat 1 buys a luxury, then takes one more action (a factory), once, not twice; the round's
    recorded action stays the luxury."""
    r, s = blank(1, 4)
    hand(s, r, 1, NEPHEW)
    fund(s, 1, 20)
    s.last_action[0, 1] = L.A_FACTORY  # a factory last round: a regular factory could be taken twice

    def act(obs, legal):
        pick = np.where(legal.extra, L.A_FACTORY, L.A_LUXURY)
        pick = np.where(obs.seat == 1, pick, L.A_PASS)
        return pick, legal.twice[np.arange(obs.n), pick], np.zeros((obs.n, 2), dtype=int)

    strat = Scripted(family_action=act)
    family_actions(s, r, dice(), agents(r, s, strat))
    asked = [seats for _, seats in strat.asked("family_action")]
    assert asked == [[0], [1], [2], [3], [1]]  # everyone once, then seat 1 again
    assert s.luxuries[0, 1] == 1 and s.factories[0, 1] == 1 and s.money[0, 1] == 20 - 4 - 5
    assert s.last_action[0, 1] == L.A_LUXURY and s.card_played[0, NEPHEW]


def test_two_extra_action_cards_give_two_more_actions():
    """Ambitious nephew and Eager younger son played together: seat 2 takes three actions this round."""
    r, s = blank(1, 4)
    hand(s, r, 2, NEPHEW, EAGER_SON)
    strat = Scripted(family_action=lambda obs, legal: (np.where(obs.seat == 2, L.A_CLERK, L.A_PASS),
                                                       np.zeros(obs.n, bool), np.zeros((obs.n, 2), int)),
                     extra_clerk=const(-1))  # fmt: skip
    family_actions(s, r, dice(), agents(r, s, strat))
    assert s.clerks[0, 2, 0] == 3 and s.supply[0, 2] == 9
    assert [seats for _, seats in strat.asked("family_action")][4:] == [[2], [2]]


def test_extra_action_is_never_twice():
    r, s = blank(1, 4)
    hand(s, r, 1, NEPHEW)
    fund(s, 1, 20)
    s.last_action[0, 1] = L.A_LUXURY
    seen = []

    def act(obs, legal):
        seen.append((int(obs.seat[0]), bool(legal.extra[0]), bool(legal.twice.any())))
        pick = np.where(legal.once[:, L.A_LUXURY], L.A_LUXURY, L.A_PASS)
        return pick, np.zeros(obs.n, bool), np.zeros((obs.n, 2), int)

    family_actions(s, r, dice(), agents(r, s, Scripted(family_action=act)))
    assert seen[1] == (1, False, True) and seen[-1] == (1, True, False)  # seat 1: twice legal; its extra: never


def test_ignore_nepotism_appoints_ones_own_relative_without_consent():
    """The Chairman (seat 0) appoints his own clerk as Shipping Manager; seat 1 also has a candidate and would
    refuse. Game 0: he holds Friend at the Admiralty and plays it: no consent asked. Game 1: no card: refused."""
    r, s = blank(2, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "clerks", 0, 1, col=0)
    give(s, "clerks", 1, 1, col=2)
    hand(s, r, 0, ADMIRALTY, game=0)
    strat = Scripted(consent=const(False))
    appoint_office(s, r, dice(), agents(r, s, strat), L.SHIPPING)
    assert strat.asked("play_position") == [([0], [0])]
    assert strat.asked("consent") == [([1], [1])]
    assert s.office[:, L.SHIPPING].tolist() == [0, 1] and s.card_played[:, ADMIRALTY].tolist() == [True, False]
    assert (s.relatives() == 12).all()


def test_the_nepotism_card_is_not_offered_when_no_consent_is_needed():
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "clerks", 0, 1, col=0)
    hand(s, r, 0, ADMIRALTY)
    strat = Scripted()
    appoint_office(s, r, dice(), agents(r, s, strat), L.SHIPPING)
    assert strat.asked("play_position") == [] and not s.card_played[0, ADMIRALTY] and s.office[0, L.SHIPPING] == 0


def test_parliament_votes_for_phase_nine():
    """Closed votes are played at Parliament's vote (wired with phase 9): Whig connections gives 4 for that vote,
    once; the permanent votes stay."""
    r, s = blank(1, 4)
    hand(s, r, 3, WHIGS, COMMONS, BOROUGH)
    played = pos.play_cards(s, r, agents(r, s), "parliament")
    assert played.votes[0].tolist() == [0, 0, 0, 4] and s.card_played[0, WHIGS]
    assert (pos.permanent_votes(s, r) + played.votes)[0, 3] == 2 + 3 + 4
    again = pos.play_cards(s, r, agents(r, s), "parliament")
    assert again.votes.sum() == 0


def test_the_position_lot_deals_the_top_card_of_the_shuffled_deck():
    """D-LOTS item positions (6 players): the winner of "Position card" draws the deck's top card."""
    r, s = blank(1, 6)
    s.deck[0] = np.roll(np.arange(len(r.d.card_names)), -ESTATE)  # Country estate on top
    winner = np.full((1, len(r.d.lot_names)), -1)
    winner[0, r.d.lot_names.index("Position card")] = 4
    apply_lots(s, r, winner)
    assert s.card_owner[0, ESTATE] == 4 and s.deck_top[0] == 1 and s.wealth[0, 4] == 1
    assert (s.card_owner >= 0).sum() == 1


# ------------------------------------------------------------------------------------------------- card data
@pytest.mark.parametrize(
    "card, message",
    [
        ({"name": "x", "kind": "permanent", "money": 2}, "money: a one-shot effect needs a closed card"),
        ({"name": "x", "kind": "permanent", "wealth": 1, "moment": "accounts"}, "moment: a permanent card is held"),
        ({"name": "x", "kind": "closed", "money": 2}, "moment: a closed card needs a moment"),
        ({"name": "x", "kind": "closed", "moment": "accounts", "influence": 1}, "influence: influence counts"),
        ({"name": "x", "kind": "closed", "moment": "accounts", "ignore_nepotism": 1}, "ignore_nepotism is played"),
        (
            {"name": "x", "kind": "closed", "moment": "appointments", "ignore_nepotism": 2},
            "ignore_nepotism: a card waives nepotism for one appointment: 0 or 1",
        ),
        ({"name": "x", "kind": "closed", "moment": "appointments", "money": 1}, "ignore_nepotism is played"),
        ({"name": "x", "kind": "closed", "moment": "accounts", "extra_action": 1}, "extra_action is played at"),
        ({"name": "x", "kind": "closed", "moment": "family_actions", "votes": 1}, "votes of a closed card"),
        ({"name": "x", "kind": "permanent"}, "has no effect"),
        ({"name": "x", "kind": "closed", "moment": "noon", "money": 1}, "moment: expected one of"),
    ],
)
def test_bad_cards_fail_on_load_naming_the_key(card, message):
    with pytest.raises(RulesError, match=r"positions\.deck\[0\]") as err:
        Rules.default().with_overrides({"positions.deck": [card]})
    assert message in str(err.value) and "\n" not in str(err.value)


def test_an_empty_deck_plays():
    import sim

    rules = Rules.default().with_overrides({"positions.deck": []})
    res = sim.play(rules, "random", 50, seed=3)
    assert res.seat_rounds["positions"].sum() == 0


def test_only_families_tied_on_pounds_and_wealth_go_to_the_pms_ranking():
    """L72-L74 (D-POSITIONS): position takers go by £ spent, then wealth; the PM (seat 0) orders only families still
    tied. Game 0: seats 1 and 2 spent 4 £, seat 3 spent 8: the PM is told only seats 1 and 2 are tied and puts 2
    first; game 1 (3 and 8 £) has no tie: the PM is not asked."""
    r, s = blank(2, 4)
    s.prime_minister[:] = 0
    eligible = np.array([[False, True, True, True], [False, True, True, False]])
    spent = np.array([[0, 4, 4, 8], [0, 3, 8, 0]])
    told = []

    def rank(obs, legal):
        told.append(legal.tied.tolist())
        return np.repeat(np.array([[0, 2, 1, 3]]), obs.n, axis=0)

    strat = Scripted(rank_position_takers=rank)
    order = pos.pick_order(s, r, dice(), agents(r, s, strat), eligible, spent)
    assert order.tolist() == [[3, 2, 1, -1], [2, 1, -1, -1]]
    assert strat.asked("rank_position_takers") == [([0], [0])]
    assert told == [[[False, True, True, False]]]


def test_taking_a_slot_past_the_display_is_refused():
    """L72 (D-POSITIONS; decision ``take_position``): the answer is a display slot 0..M-1 holding a card, or -1; slot
    M is refused with the reason, not an IndexError."""
    r, s = blank(1, 4)
    pos.refill_market(s, r, np.ones(1, dtype=bool))
    m = s.market.shape[1]
    assert (s.market[0] >= 0).all()
    strat = Scripted(take_position=const(m))
    with pytest.raises(IllegalDecision, match=r"'take_position' in game 0: not a card on display$"):
        pos.take_positions(s, r, agents(r, s, strat), np.array([[1]]))


def test_drawing_from_a_spent_deck_gives_no_card():
    """D-POSITIONS (``positions.draw``: -1 where the deck is spent; ``state.deck_top`` = D: spent): game 0 draws its
    top card, game 1's deck is spent: no card, its top stays. A 6-player setup with an empty deck (a legal rules
    file, tests/test_positions.py plays one) deals the "Position card" lot's card from a spent deck: the winner gets
    nothing. Drawing in every game regardless (``left = None``) indexes past the deck (IndexError)."""
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


COUSIN = 14  # "Cousin on the board": the default deck's second ignore_nepotism card


def test_only_one_nepotism_card_is_played_per_appointment():
    """D-POSITIONS (default.toml ``[positions]``: an ``ignore_nepotism`` card waives consent for ONE appointment):
    the Chairman (seat 0) appoints his own clerk as Shipping Manager and holds both waivers, Friend at the Admiralty
    and Cousin on the board. Playing both at once is refused ("or more than 1"), so the second is not wasted; the
    engine's check without its limit lets both be spent. One card alone is accepted and the other stays in hand."""

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


@pytest.mark.parametrize("plays", [False, True])
def test_an_appointer_may_decline_to_play_his_nepotism_card(plays):
    """D-POSITIONS (phase 5): the Chairman appointing his own relative where consent is needed may play Friend at the
    Admiralty (ignore nepotism; decision ``play_position``, told the office). Declining keeps the card unplayed and
    consent is still needed (not every playable card is played)."""
    r, s = blank(1, 4)
    hand(s, r, 0, ADMIRALTY)
    seen = []

    def play(obs, legal):
        seen.append(int(legal.office[0]))
        return legal.playable & plays

    strat = Scripted(play_position=play)
    waived = pos.waive_nepotism(s, r, agents(r, s, strat), np.array([0]), np.ones(1, bool), np.array([L.SHIPPING]))
    assert seen == [L.SHIPPING]
    assert waived.tolist() == [plays] and s.card_played[0, ADMIRALTY] == plays


@pytest.mark.parametrize("ranking, legal", [([0, 0, 1, 2], False), ([0, 1, 2, 4], False), ([2, 1, 0, 3], True)])
def test_the_pms_ranking_of_tied_position_takers_must_order_the_seats(ranking, legal):
    """L72-L74 (D-POSITIONS): families tied on £ spent and wealth are ordered by the PM (decision
    ``rank_position_takers``): his answer must be an ordering of the seats; one that repeats or skips a seat is
    refused. Seats 1 and 2 tie (4 £, no wealth); the PM (seat 0) ranks 2 before 1."""
    r, s = blank(1, 4)
    s.prime_minister[0] = 0
    eligible = np.array([[False, True, True, False]])
    spent = np.array([[0, 4, 4, 0]])
    go = agents(r, s, Scripted(rank_position_takers=const(ranking)))
    if legal:
        assert pos.pick_order(s, r, dice(), go, eligible, spent).tolist() == [[2, 1, -1, -1]]
    else:
        with pytest.raises(IllegalDecision, match="rank_position_takers.* in game 0: not an ordering of the seats$"):
            pos.pick_order(s, r, dice(), go, eligible, spent)


def test_held_sums_count_each_familys_unplayed_cards_over_random_decks():
    """``held_sum`` over 500 random decks (cards with nobody, a family, played or not): each family's count and
    votes are those of the cards it holds unplayed, card by card."""
    r, s = blank(500, 5)
    rng = np.random.default_rng(4)
    s.card_owner[:] = rng.integers(-1, 5, s.card_owner.shape)
    s.card_played[:] = rng.random(s.card_played.shape) < 0.3
    mine = (s.card_owner[:, None, :] == np.arange(5)[None, :, None]) & ~s.card_played[:, None, :]
    votes = r.d.card_votes * r.d.card_permanent
    assert np.array_equal(pos.held_count(s), mine.sum(axis=2))
    assert np.array_equal(pos.permanent_votes(s, r), (mine * votes).sum(axis=2)) and votes.any()
