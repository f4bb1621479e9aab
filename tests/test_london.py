"""Phase 1, the London season (R-RETIRE, D-POSITIONS, seed L58-L74): the retirement roll with stress markers
and the Chairman's +1, honourable retirement tiers or sending home, the position pick order with both ties, the
display, and the vacancies it leaves reaching phase 5's appointments."""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, fund, give, seat_office

from sim import positions as pos
from sim.agents import IllegalDecision, Observation
from sim.phases.appointments import appointments
from sim.phases.end import V, score
from sim.phases.london import london_season, retirement_roll
from sim.phases.upkeep import upkeep
from sim.state import FLOW, TALLY

# each rule played on both engine paths, the numpy reference and the compiled kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")


def season(s, round_=2):
    s.round[:] = round_


def first_card(obs, legal):
    """take_position: the first slot holding a card."""
    has = legal.cards >= 0
    return np.where(has.any(axis=1), has.argmax(axis=1), -1)


# ------------------------------------------------------------------------------------------- the roll (L61-L63)
def test_round_one_only_reveals_three_cards():
    """L58: no retirement roll in round 1, three cards on display."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.DIRECTOR, 1)
    d = dice()
    london_season(s, r, d, agents(r, s))
    assert d.log == []  # nobody rolled
    assert s.market[0].tolist() == [0, 1, 2] and s.deck_top[0] == 3  # the (unshuffled) deck's first three
    assert s.office[0, L.CHAIRMAN] == 0 and s.stress[0].sum() == 0


def test_each_outcome_at_the_band_edges():
    """R-RETIRE (L61): 1-2 nothing, 3-4 a stress marker, 5-6 retires. The Director, Shipping Manager and Military
    Affairs roll in office order: game 0 rolls 2, 4, 5; game 1 rolls 1, 3, 6."""
    r, s = blank(2, 4)
    season(s)
    seat_office(s, L.DIRECTOR, 0)
    seat_office(s, L.SHIPPING, 1)
    seat_office(s, L.MILITARY, 2)
    d = dice({0: [2, 4, 5], 1: [1, 3, 6]})
    london_season(s, r, d, agents(r, s, Scripted(retire=const(-1))))
    d.assert_spent()
    assert d.log == [("d6", 0, 3), ("d6", 1, 3)]  # one die per holder, taken in office order
    for g in range(2):
        assert s.office[g, [L.DIRECTOR, L.SHIPPING, L.MILITARY]].tolist() == [0, 1, -1]
        assert s.stress[g, [L.DIRECTOR, L.SHIPPING, L.MILITARY]].tolist() == [0, 1, 0]
    assert s.supply[:, 2].tolist() == [12, 12]  # sent home unpaid: back in the family's supply
    assert s.tally[:, TALLY["retirements"]].tolist() == [1, 1]
    assert s.tally[:, TALLY["stress_markers"]].tolist() == [1, 1]
    assert s.tally[:, TALLY["sent_home"]].tolist() == [1, 1]
    assert (s.relatives() == 12).all()


def test_stress_markers_accumulate_over_seasons():
    """Each marker adds 1: a Shipping Manager rolling 3 three seasons running gets a marker (3), a second (3 + 1 =
    4), then retires (3 + 2 = 5); his office is vacant and its markers are gone."""
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 1)
    strat = Scripted(retire=const(-1))
    for rnd, stress in ((2, 1), (3, 2)):
        season(s, rnd)
        london_season(s, r, dice({0: [3]}), agents(r, s, strat))
        assert s.stress[0, L.SHIPPING] == stress and s.office[0, L.SHIPPING] == 1
    season(s, 4)
    london_season(s, r, dice({0: [3]}), agents(r, s, strat))
    assert s.office[0, L.SHIPPING] == -1 and s.stress[0, L.SHIPPING] == 0


def test_the_chairman_rolls_one_more():
    """L62: the Chairman +1. Game 0: Chairman and Director both roll 4: the Chairman retires (5), the Director only
    gains a marker. Game 1: both roll 2: the Chairman gains a marker (3), the Director nothing."""
    r, s = blank(2, 4)
    season(s)
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.DIRECTOR, 1)
    london_season(s, r, dice({0: [4, 4], 1: [2, 2]}), agents(r, s, Scripted(retire=const(-1))))
    assert s.office[:, L.CHAIRMAN].tolist() == [-1, 0] and s.office[:, L.DIRECTOR].tolist() == [1, 1]
    assert s.stress[:, L.CHAIRMAN].tolist() == [0, 1] and s.stress[:, L.DIRECTOR].tolist() == [1, 0]


def test_only_the_rolling_offices_roll():
    """D-RETIRE-OFFICES: governors are not committee heads and never roll; a key removes an office from the roll."""
    r, s = blank(1, 4, **{"retirement.offices": ["chairman"]})
    season(s)
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.DIRECTOR, 1)
    s.governor[0, 0], s.owner[0, 0] = 2, 0
    s.supply[0, 2] -= 1
    d = dice({0: [1]})
    london_season(s, r, d, agents(r, s))
    assert d.log == [("d6", 0, 1)]  # the Chairman alone (a second die would find no scripted face)


def test_the_retirement_roll_counts_every_retirement_of_a_game():
    """R-RETIRE (L61–L63): two office holders of one game retire (rolls 6 and 5): the roll counts 2 retirements for that
    game, not 1."""
    r, s = blank(1, 4)
    seat_office(s, L.DIRECTOR, 1)
    seat_office(s, L.SHIPPING, 2)
    got = retirement_roll(s, r, dice({0: [6, 5]}), agents(r, s, Scripted(retire=const(-1))), np.arange(1))
    assert got.count.tolist() == [2]


def test_retirement_roll_bands_and_modifiers():
    """R-RETIRE: d6 + stress markers (+1 each) + 1 for the Chairman: 5+ retires, 3-4 a stress marker, 1-2 nothing.
    Chairman 3 -> 4: stress. Director 4 with a marker -> 5: retires. Shipping 4 -> stress. Military 2 -> nothing.
    Bombay's President 5 -> retires (sent home: his family cannot pay)."""
    r, s = blank(1, 4)
    for office, seat in ((L.CHAIRMAN, 0), (L.DIRECTOR, 1), (L.SHIPPING, 2), (L.MILITARY, 3), (L.PRESIDENT[0], 3)):
        seat_office(s, office, seat)
    s.stress[0, L.DIRECTOR] = 1
    fund(s, 1, 2)
    strat = Scripted(retire=const(-1))
    d = dice({0: [3, 4, 4, 2, 5]})
    retirement_roll(s, r, d, agents(r, s, strat), np.arange(1))
    d.assert_spent()
    assert s.office[0, : L.PRESIDENT[0] + 1].tolist() == [0, -1, 2, 3, -1]
    assert s.stress[0, : L.PRESIDENT[0] + 1].tolist() == [1, 0, 1, 0, 0]
    assert [seats for _, seats in strat.asked("retire")] == [[1], [3]]
    assert s.supply[0].tolist() == [11, 12, 11, 11] and (s.relatives() == 12).all()


# --------------------------------------------------------------------------------- honourable retirement tiers
@pytest.mark.parametrize(
    "tier, cost, upkeep_, wealth, vp",
    [(0, 2, 0, 0, 0), (1, 4, 1, 1, 2), (2, 8, 2, 2, 4), (3, 14, 3, 3, 8), (4, 20, 4, 4, 12)],
)
def test_each_tier_cost_upkeep_wealth_and_vp(tier, cost, upkeep_, wealth, vp):
    """L67-L71: the family pays the tier's cost, gains its wealth, pays its upkeep in phase 10 and scores its VP
    at the end if he is still retired."""
    r, s = blank(1, 4)
    season(s)
    seat_office(s, L.DIRECTOR, 1)
    fund(s, 1, 25)
    london_season(s, r, dice({0: [6]}), agents(r, s, Scripted(retire=const(tier), take_position=const(-1))))
    assert s.retired[0, 1].tolist() == [int(t == tier) for t in range(5)]
    assert s.money[0, 1] == 25 - cost and s.ledger[0, FLOW["retirement"]] == -cost and s.wealth[0, 1] == wealth
    assert s.tally[0, TALLY["honourable_retirements"]] == 1 and s.office[0, L.DIRECTOR] == -1
    upkeep(s, r, dice(), agents(r, s, Scripted(keep_retirees=lambda obs, legal: legal.retired)))
    assert s.money[0, 1] == 25 - cost - upkeep_ and s.ledger[0, FLOW["upkeep"]] == -upkeep_
    s.done[:], s.end_round[:] = True, 7
    score(s, r)
    assert s.vp[0, 1, V["retirements"]] == vp
    assert (s.relatives() == 12).all()


def test_a_tier_the_family_cannot_afford_is_illegal():
    from sim.agents import IllegalDecision

    r, s = blank(1, 4)
    season(s)
    seat_office(s, L.SHIPPING, 0)
    fund(s, 0, 7)
    with pytest.raises(IllegalDecision, match="retire"):
        london_season(s, r, dice({0: [5]}), agents(r, s, Scripted(retire=const(2))))  # 8 £


def test_sent_home_unpaid_costs_nothing_and_wins_no_position():
    """L64: a retiree sent home goes back to the supply; only families that paid an honourable retirement pick."""
    r, s = blank(1, 4)
    pos.refill_market(s, r, np.ones(1, dtype=bool))
    season(s)
    seat_office(s, L.DIRECTOR, 1)
    fund(s, 1, 10)
    strat = Scripted(retire=const(-1))
    london_season(s, r, dice({0: [5]}), agents(r, s, strat))
    assert s.supply[0, 1] == 12 and s.money[0, 1] == 10 and s.retired.sum() == 0
    assert strat.asked("take_position") == [] and s.market[0].tolist() == [0, 1, 2]


def test_the_retire_decision_sees_the_tiers_it_affords_and_the_pick_it_would_win():
    seen = {}

    def retire(obs, legal):
        seen.update(affordable=legal.affordable.tolist(), final=legal.final.tolist(), pick=legal.pick.tolist())
        return np.full(obs.n, 0)

    r, s = blank(1, 4)
    pos.refill_market(s, r, np.ones(1, dtype=bool))
    season(s)
    seat_office(s, L.DIRECTOR, 1)
    fund(s, 1, 8)
    london_season(s, r, dice({0: [6]}), agents(r, s, Scripted(retire=retire)))
    assert seen == {"affordable": [[True, True, True, False, False]], "final": [False], "pick": [True]}
    # the final retirement (L256) wins no position
    seat_office(s, L.DIRECTOR, 1)
    retirement_roll(s, r, dice({0: [6]}), agents(r, s, Scripted(retire=retire)), np.arange(1), final=True)
    assert seen["final"] == [True] and seen["pick"] == [False]


def test_a_second_retiree_wins_no_second_pick():
    """One position per family however many retirements it pays: the family's second retiree is told so."""
    seen = []

    def retire(obs, legal):
        seen.append((legal.office.tolist(), legal.pick.tolist()))
        return np.zeros(obs.n, dtype=int)

    r, s = blank(1, 4)
    pos.refill_market(s, r, np.ones(1, dtype=bool))
    season(s)
    seat_office(s, L.DIRECTOR, 1)
    seat_office(s, L.SHIPPING, 1)
    seat_office(s, L.MILITARY, 2)
    fund(s, 1, 10)
    fund(s, 2, 10)
    strat = Scripted(retire=retire, take_position=first_card)
    london_season(s, r, dice({0: [6, 6, 6]}), agents(r, s, strat))
    assert seen == [([L.DIRECTOR], [True]), ([L.SHIPPING], [False]), ([L.MILITARY], [True])]
    assert sorted(x for _, seats in strat.asked("take_position") for x in seats) == [1, 2]
    assert s.money[0, 1:3].tolist() == [6, 8] and (s.card_owner[0] >= 0).sum() == 2


def test_retirement_roll_only_in_the_games_given_and_pays_for_the_tier():
    """R-RETIRE (L61–L63), honourable retirement (L64–L71): games 0 and 2 roll, game 1 does not. Game 0: the Director (2
    stress markers) rolls 3 + 2 = 5: retires to tier 4 (20 £, wealth 4), his markers cleared. Game 2: the Director rolls
    6 and is sent home. Returns the retirements."""
    r, s = blank(3, 4)
    seat_office(s, L.DIRECTOR, 1)
    s.stress[:, L.DIRECTOR] = [2, 2, 0]
    fund(s, 1, 20)
    seen = []

    def retire(obs, legal):
        seen.append((obs.games.tolist(), legal.office.tolist(), legal.affordable.tolist()))
        return np.where(obs.games == 0, 4, -1)

    d = dice({0: [3], 2: [6]})
    got = retirement_roll(s, r, d, agents(r, s, Scripted(retire=retire)), np.array([0, 2]))
    d.assert_spent()
    assert got.count.tolist() == [1, 0, 1]
    assert seen == [([0, 2], [L.DIRECTOR] * 2, [[True] * 5, [True] * 5])]
    assert s.office[:, L.DIRECTOR].tolist() == [-1, 1, -1] and s.stress[:, L.DIRECTOR].tolist() == [0, 2, 0]
    assert s.retired[0, 1].tolist() == [0, 0, 0, 0, 1] and s.wealth[:, 1].tolist() == [4, 0, 0]
    assert s.money[:, 1].tolist() == [0, 20, 20] and s.ledger[:, FLOW["retirement"]].tolist() == [-20, 0, 0]
    assert s.supply[:, 1].tolist() == [11, 11, 12] and (s.relatives() == 12).all()


def test_the_cheapest_tier_and_adding_to_what_a_family_already_has():
    """R-RETIRE (L61–L63), honourable retirement (L64–L71): game 0: the Director retires to tier 0 (2 £ with 3 £ in
    hand, tier 1 unaffordable): honoured, not sent home; his family already had one relative there. Game 1: tier 1 adds
    1 wealth to the 2 it had. Game 2: the Director with a marker rolls 2 + 1 = 3: a second marker."""
    r, s = blank(3, 4)
    seat_office(s, L.DIRECTOR, 1)
    s.retired[:, 1, 0] = 1
    s.supply[:, 1] -= 1
    s.wealth[:, 1] = 2
    fund(s, 1, 3, games=0)
    fund(s, 1, 4, games=1)
    s.stress[2, L.DIRECTOR] = 1
    strat = Scripted(retire=lambda obs, legal: np.where(obs.games == 0, 0, 1))
    retirement_roll(s, r, dice({0: [6], 1: [6], 2: [2]}), agents(r, s, strat), np.arange(3))
    assert s.retired[:, 1, 0].tolist() == [2, 1, 1] and s.retired[:, 1, 1].tolist() == [0, 1, 0]
    assert s.money[:, 1].tolist() == [1, 0, 0] and s.wealth[:, 1].tolist() == [2, 3, 2]
    assert s.supply[:, 1].tolist() == [10, 10, 10] and s.stress[:, L.DIRECTOR].tolist() == [0, 0, 2]


@pytest.mark.parametrize("tier, money", [(0, 1), (4, 15)])
def test_a_tier_just_out_of_reach_is_illegal(tier, money):
    """R-RETIRE, honourable retirement (L64–L71): tier 0 costs 2, tier 4 costs 20: 1 £ and 15 £ (enough for tier 3) are
    short."""
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 0)
    fund(s, 0, money)
    with pytest.raises(IllegalDecision, match="'retire' in game 0: tier not affordable"):
        retirement_roll(s, r, dice({0: [6]}), agents(r, s, Scripted(retire=const(tier))), np.arange(1))


# ------------------------------------------------------------------------------------------ positions (L72-L74)
def test_pick_order_by_money_then_wealth_then_the_prime_minister():
    """Four families retire a relative each: seat 0 pays 8 £; seats 1, 2 and 3 pay 4 £. Seat 2 has more wealth
    than seats 1 and 3 (tied); the PM (seat 4) orders 3 before 1. Order 0, 2, 3: three cards; seat 1 gets none."""
    r, s = blank(1, 5)
    pos.refill_market(s, r, np.ones(1, dtype=bool))  # cards 0, 1, 2 on display
    season(s)
    for seat, office in enumerate((L.DIRECTOR, L.SHIPPING, L.MILITARY, L.PRESIDENT[0])):
        seat_office(s, office, seat)
        fund(s, seat, 10)
    s.luxuries[0, 2], s.wealth[0, 2] = 1, 1
    s.prime_minister[0] = 4
    tiers = {0: 2, 1: 1, 2: 1, 3: 1}
    strat = Scripted(
        retire=lambda obs, legal: np.array([tiers[int(x)] for x in obs.seat]),
        rank_position_takers=const([4, 3, 2, 1, 0]),
        take_position=first_card,
    )
    london_season(s, r, dice({0: [6, 6, 6, 6]}), agents(r, s, strat))
    assert strat.asked("rank_position_takers") == [([0], [4])]
    assert [seats for _, seats in strat.asked("take_position")] == [[0], [2], [3]]
    assert s.card_owner[0, :3].tolist() == [0, 2, 3]
    assert s.market[0].tolist() == [3, 4, 5] and s.deck_top[0] == 6  # refilled to three
    assert s.tally[0, TALLY["positions_taken"]] == 3


def test_pick_order_without_a_prime_minister_is_left_to_chance():
    r, s = blank(2, 4)
    eligible = np.array([[False, True, True, True]] * 2)
    spent = np.array([[0, 4, 4, 4]] * 2)
    s.wealth[:, 3] = 1  # seat 3 first on wealth; seats 1 and 2 tied
    s.prime_minister[:] = -1
    d = dice(uniforms={0: [0.9, 0.1, 0.5, 0.7], 1: [0.1, 0.9, 0.5, 0.7]})
    order = pos.pick_order(s, r, d, agents(r, s), eligible, spent)
    assert order.tolist() == [[3, 1, 2, -1], [3, 2, 1, -1]]
    assert d.rolls("uniform") == [4, 4]


def test_a_family_may_pass_its_pick_and_the_next_picks():
    r, s = blank(1, 4)
    pos.refill_market(s, r, np.ones(1, dtype=bool))
    taker = Scripted(take_position=lambda obs, legal: np.where(obs.seat == 1, -1, 2))
    taken = pos.take_positions(s, r, agents(r, s, taker), np.array([[1, 2, -1, -1]]))
    assert taken.tolist() == [1] and s.card_owner[0, :3].tolist() == [-1, -1, 2] and s.market[0].tolist() == [0, 1, -1]


def test_taking_an_empty_slot_is_illegal():
    from sim.agents import IllegalDecision

    r, s = blank(1, 4)
    s.market[0] = [-1, 4, -1]
    with pytest.raises(IllegalDecision, match="take_position"):
        pos.take_positions(s, r, agents(r, s, Scripted(take_position=const(0))), np.array([[1, -1, -1, -1]]))


def test_the_display_refills_while_the_deck_lasts():
    r, s = blank(1, 4)
    n_cards = len(r.d.card_names)
    s.deck_top[0] = n_cards - 1
    s.market[0] = [-1, 5, -1]
    pos.refill_market(s, r, np.ones(1, dtype=bool))
    assert s.market[0].tolist() == [n_cards - 1, 5, -1] and s.deck_top[0] == n_cards


def test_the_deck_is_shuffled_by_the_engines_dice_and_hidden():
    r, s = blank(2, 4)
    n_cards = len(r.d.card_names)
    u = np.linspace(0.9, 0.1, n_cards).tolist()  # game 1: decreasing draws -> the deck reversed
    d = dice(uniforms={1: u})
    pos.shuffle_deck(s, r, d)
    assert d.rolls("uniform") == [n_cards, n_cards]
    assert s.deck[0].tolist() == list(range(n_cards)) and s.deck[1].tolist() == list(range(n_cards))[::-1]
    obs = Observation(s, r, np.arange(2), np.zeros(2), None)
    for hidden in ("deck", "deck_top"):
        with pytest.raises(AttributeError):
            getattr(obs, hidden)
    assert obs.market.shape == (2, 3) and obs.card_owner.shape == (2, n_cards)


# ---------------------------------------------------------------------------------- vacancies reach phase 5
def test_a_retired_chairman_is_replaced_by_the_boards_majority():
    """The Chairman (seat 0) rolls 4 + 1 and retires; the board elects seat 1 (3 of 5 votes): the chair changes
    hands."""
    r, s = blank(1, 4)
    season(s)
    seat_office(s, L.CHAIRMAN, 0)
    s.last_chair[0] = 0
    give(s, "shares", 1, 3)
    give(s, "shares", 2, 2)
    a = agents(r, s, Scripted(retire=const(-1)))
    london_season(s, r, dice({0: [4]}), a)
    assert s.office[0, L.CHAIRMAN] == -1
    appointments(s, r, dice(), a)
    assert s.office[0, L.CHAIRMAN] == 1 and s.shares[0].tolist() == [0, 2, 2, 0]
    assert s.tally[0, TALLY["chair_changed"]] == 1 and s.last_chair[0] == 1


def test_without_a_majority_the_retired_chairmans_family_picks():
    """No majority (2, 2, 1 votes): the family that held the chair (seat 0, itself on the board) picks; it picks its
    own relative, so the chair does not change hands."""
    r, s = blank(1, 4)
    season(s)
    seat_office(s, L.CHAIRMAN, 0)
    s.last_chair[0] = 0
    give(s, "shares", 0, 1)
    give(s, "shares", 1, 2)
    give(s, "shares", 2, 2)
    strat = Scripted(retire=const(-1))
    london_season(s, r, dice({0: [5]}), agents(r, s, strat))
    appointments(s, r, dice(), agents(r, s, strat))
    assert strat.asked("choose_chairman") == [([0], [0])]
    assert s.office[0, L.CHAIRMAN] == 0 and s.shares[0].tolist() == [0, 2, 2, 0]
    assert s.tally[0, TALLY["chair_changed"]] == 0


# ------------------------------------------------------------------------------------- the balanced strategy
def test_balanced_retirement_choices():
    """Round 2 with a card on display: the cheapest tier (2 £) for the pick, not a tier whose upkeep outweighs its
    VP; round 7: the top tier (12 VP for 20 £ + 4 £ upkeep); the final retirement: the most VP it can afford, home
    when no tier it affords scores."""
    from sim.phases.london import retirement_roll as roll

    r, s = blank(4, 4)
    pos.refill_market(s, r, np.ones(4, dtype=bool))
    s.round[:] = [2, 7, 7, 7]
    seat_office(s, L.DIRECTOR, 1)
    fund(s, 1, 30)
    s.money[3, 1] = 3  # game 3: only tier 0 is affordable (ledger unbalanced, not checked here)
    strat = Scripted()
    roll(s, r, dice({0: [6], 1: [6]}), agents(r, s, strat), np.array([0, 1]))
    roll(s, r, dice({2: [6], 3: [6]}), agents(r, s, strat), np.array([2, 3]), final=True)
    assert s.retired[:, 1].tolist() == [[1, 0, 0, 0, 0], [0, 0, 0, 0, 1], [0, 0, 0, 0, 1], [0, 0, 0, 0, 0]]


def test_balanced_takes_the_card_worth_most():
    r, s = blank(1, 4)
    s.market[0] = [8, 3, 0]  # Private chaplain (wealth 1), Court favour (4 £), Seat in the Commons (2 votes)
    pos.take_positions(s, r, agents(r, s), np.array([[2, -1, -1, -1]]))
    assert s.card_owner[0, 3] == 2 and s.market[0].tolist() == [8, -1, 0]


# ------------------------------------------------------------------------------------------------- the frames
def test_frames_record_the_season_and_the_upkeep():
    """The rounds and seat_rounds columns of phases 1 and 10 agree with each other over real games."""
    import polars as pl

    import sim
    from sim.rules import Rules

    res = sim.play(Rules.default(5), ["balanced", "random"] * 2 + ["balanced"], 300, seed=4)
    rounds, seat_rounds, seats = res.rounds, res.seat_rounds, res.seats
    assert (rounds["retirements"] == rounds["honourable_retirements"] + rounds["sent_home"]).all()
    assert rounds.filter(pl.col("round") == 1)["retirements"].sum() == 0  # nobody retires in round 1
    assert rounds["retirements"].sum() > 0 and rounds["positions_taken"].sum() > 0
    assert rounds["upkeep_paid"].sum() > 0 and rounds["chair_changed"].sum() > 0
    tiers = seat_rounds.select(pl.col("retired_tiers").list.sum())["retired_tiers"]
    assert (tiers == seat_rounds["retired"]).all() and seat_rounds.schema["retired_tiers"] == pl.List(pl.Int32)
    assert (seat_rounds["positions"] >= 0).all() and seat_rounds["positions"].max() > 0
    assert (rounds["positions_taken"] <= 3).all()  # never more than the display holds
    # a crashed game's retirees score their tiers' VP (the crash round's row is the final state)
    # (without Deregulation, as firms allow a final retirement after the last row, L257)
    crashed = res.games.filter(pl.col("crashed") & pl.col("deregulation_round").is_null())
    crashed = crashed.select("game", pl.col("end_round").cast(pl.Int16).alias("round"))
    last = seat_rounds.join(crashed, on=["game", "round"]).join(seats, on=["game", "seat"])
    vp = np.array([t.vp for t in Rules.default().retirement.tiers])
    held = np.stack(last["retired_tiers"].to_list())
    assert last.height > 0 and ((held * vp).sum(axis=1) == last["vp_retirements"].to_numpy()).all()
