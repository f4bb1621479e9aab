"""Tests for the rules modules' surviving mutants of the sampled mutation run (issue 15b; README "Development:
mutation testing"). Each test names the mutant it kills (``mutmut show NAME``) and the wrong reading it rules out, on a
hand-built position whose values make the wrong code give a different answer.

India (phase 8): regions 0 Punjab, 1 Delhi, 2 Bengal, 3 Bombay, 4 Maratha, 5 Hyderabad, 6 Mysore, 7 Madras; tile 17 is
Peace Madras (triangle). Presidency 0 is Bombay's army.

A refusal's reason is matched whole, anchored after "in game g: " and at the end of the message: mutmut's message
mutants wrap the text ("XX...XX"), which a plain search for the words would still find."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, fund, give, seat_office
from test_positions import ADMIRALTY, hand
from test_rules_validation import fails

from sim import laws, notes
from sim import positions as pos
from sim.agents import IllegalDecision
from sim.governor_general import governor_general
from sim.phases.india import Event, crisis, peace, windfall
from sim.phases.london import retirement_roll
from sim.phases.operations import apply_director_moves, governors, shipping_manager
from sim.phases.parliament import ask_table, opposition_leader, parliament
from sim.rules.schema import shown
from sim.state import TALLY

PUNJAB, DELHI, BENGAL, BOMBAY, MARATHA, HYDERABAD, MYSORE, MADRAS = range(8)
CRISIS_MARATHA, WINDFALL, PEACE_MADRAS = 2, 14, 17  # Crisis Maratha +3 (circle), Windfall Hyderabad


def company(s, region, army, g=slice(None)):
    """Make ``region`` the Company's (presidency ``army``), as a conquest would."""
    s.owner[g, region] = army
    s.strength[g, region] = 0
    s.capital[g, region] = region


# --------------------------------------------------------------------------------------------- sim.phases.india
def test_peace_on_a_border_with_presidency_0_strengthens_only_the_sovereign_side():
    """R-PEACE (MAP.md; seed L210-L220): on a border only the non-Company sides gain 1 strength. The Company side is
    held by presidency 0 (Bombay), whose owner number 0 a `owner <= 0` reading would take for sovereign
    (kills sim.phases.india.x_peace__mutmut_33)."""
    r, s = blank(1, 4)
    company(s, BOMBAY, 0)
    s.elephant_at[0], s.elephant_facing[0] = MARATHA, BOMBAY
    before = s.strength[0].copy()
    peace(s, r, dice(), agents(r, s), Event.of(s, r, [0], PEACE_MADRAS, MADRAS))
    assert s.strength[0, MARATHA] == before[MARATHA] + 1
    assert s.strength[0, BOMBAY] == 0
    grown = np.flatnonzero(s.strength[0] != before)
    assert grown.tolist() == [MARATHA]


def test_crisis_against_punjab_the_region_numbered_0_is_an_invasion():
    """R-CRISIS (MAP.md; seed L210-L220): the marker's tail Bengal (1) + 3 invades its head Punjab, a region of
    Delhi's empire (1 + 2 + 0 = 3): won, Punjab joins Bengal and the marker marches from the winner, Bengal (circle:
    Maratha). Punjab is region 0: a `b >= 1` test of "the marker is on a border" would take it for a marker turned
    inward and nothing would happen (kills sim.phases.india.x_crisis__mutmut_18)."""
    r, s = blank(1, 4)
    s.elephant_at[:], s.elephant_facing[:] = BENGAL, PUNJAB
    assert s.capital[0, PUNJAB] == DELHI
    crisis(s, r, dice(), agents(r, s), Event.of(s, r, [0], CRISIS_MARATHA, HYDERABAD))
    assert s.capital[0].tolist() == [BENGAL, DELHI, BENGAL, BOMBAY, DELHI, HYDERABAD, MYSORE, MADRAS]
    assert (s.elephant_at[0], s.elephant_facing[0]) == (BENGAL, MARATHA)


def test_windfall_skips_a_presidency_whose_regions_all_lie_outside_the_area():
    """R-WINDFALL with `presidency_in_area`: Windfall Hyderabad's area is Hyderabad, Madras, Mysore, Bombay,
    Maratha. Bengal's home is not there and its one region, Delhi, is not either: its clerks earn nothing; Bombay's
    home is there. Seat 0: 1 clerk in Bombay, 2 in Bengal -> 1 x windfall. A reading that counts any region of the
    area for every presidency would pay Bengal's clerks too (kills sim.phases.india.x_windfall__mutmut_17)."""
    r, s = blank(1, 4, **{"india.windfall_clerks": "presidency_in_area"})
    give(s, "clerks", 0, 1, col=0)
    give(s, "clerks", 0, 2, col=2)
    company(s, DELHI, 2)
    windfall(s, r, dice(), agents(r, s), Event.of(s, r, [0], WINDFALL, HYDERABAD))
    assert r.india.windfall > 0
    assert s.money[0].tolist() == [r.india.windfall, 0, 0, 0]


# ---------------------------------------------------------------------------------------- sim.phases.parliament
@pytest.mark.parametrize("answer", [3, 4])
def test_the_old_pm_must_pick_one_of_the_tied_opposition(answer):
    """L241: where a law fails, the family with most votes against becomes PM; a tie is the old PM's choice among the
    tied (seats 0 and 2 with 3 each; seat 3 with 1 is not tied, 4 is no seat). The refusal names the reason (kills
    sim.phases.parliament.x_opposition_leader__mutmut_77, the message)."""
    r, s = blank(1, 4)
    against = np.array([[3, 0, 3, 1]])
    strat = Scripted(choose_prime_minister=const(answer))
    with pytest.raises(IllegalDecision, match="choose_prime_minister.* in game 0: not one of the tied$"):
        opposition_leader(s, r, dice(), agents(r, s, strat), np.ones(1, bool), against, np.array([1]))
    new = opposition_leader(
        s, r, dice(), agents(r, s, Scripted(choose_prime_minister=const(2))), np.ones(1, bool), against, np.array([1])
    )
    assert new.tolist() == [2]


def test_the_deal_before_a_vote_is_told_the_tabled_law_its_policy_and_support():
    """D-DEALS (seed 001 L81-L87): the deal before Parliament's vote describes the vote to the strategies (the law,
    the policy the PM chose, the law's support). Calico Acts tabled with the up side: policy 5 (L224), support +1.
    Without the topic the strategies would see "no law" (kills sim.phases.parliament.x_parliament__mutmut_62)."""
    r, s = blank(1, 4)
    calico = r.d.law_names.index("Calico Acts")
    s.law_pile[:] = laws.DECK
    rank = np.arange(len(r.d.law_names), dtype=float) + 100
    rank[calico] = 0
    s.law_rank[:] = rank
    s.prime_minister[:] = 2
    seen = []

    def offer(obs, legal):
        seen.append((legal.moment[0], legal.law[0], legal.policy[0], legal.support[0]))
        return np.full(legal.held.shape, -1), np.zeros(legal.held.shape, dtype=int)

    table = lambda obs, legal: (legal.candidates.argmax(axis=1), np.full(obs.n, 1))  # noqa: E731
    parliament(s, r, dice(), agents(r, s, Scripted(table_law=table, offer_notes=offer)))
    assert seen and all(x == ("vote", calico, 5, int(r.d.law_support[calico])) for x in seen)
    assert int(r.d.law_support[calico]) == 1


def _calico_fails(on_fail):
    """Calico Acts tabled by PM 2 with policy 11 (factory bonus), voted down by seat 1 (1 factory: 3 votes against
    the PM's 1): seat 1 becomes PM (L241) and applies policy 10 (a factory tax, next to 11). Returns seat 1's money,
    funded with 10 £. ``on_fail``: Calico's effects when it fails (default none)."""
    laws_table = tomllib.loads((Path(__file__).parents[1] / "sim/rules/default.toml").read_text())["parliament"]["laws"]
    for spec in laws_table:
        if spec["name"] == "Calico Acts":
            spec["on_fail"] = on_fail
    r, s = blank(1, 4, **{"parliament.laws": laws_table})
    calico = r.d.law_names.index("Calico Acts")
    s.law_pile[:] = laws.DECK
    rank = np.arange(len(r.d.law_names), dtype=float) + 100
    rank[calico] = 0
    s.law_rank[:] = rank
    s.prime_minister[:] = 2
    s.factories[0, 1] = 1
    fund(s, 1, 10)

    def vote(obs, legal):
        side = np.where(obs.seat == 1, -1, np.where(obs.seat == 2, 1, 0))
        return side, np.zeros(obs.n, int), np.zeros((obs.n, obs.players), bool)

    strat = Scripted(
        table_law=lambda obs, legal: (legal.candidates.argmax(axis=1), np.zeros(obs.n, int)),
        vote=vote,
        choose_policy=const(0),
    )
    parliament(s, r, dice(), agents(r, s, strat))
    assert s.prime_minister[0] == 1 and s.policy[0] == 10
    return int(s.money[0, 1])


def test_a_failed_laws_effects_see_the_policy_the_new_pm_applied():
    """L241 and D-LAWS: a failed law's `on_fail` effects get the new PM and the policy he applied. A rules file may
    give a law `repeat_policy` on failing: the new PM's factory tax is then levied twice, so seat 1 pays double.
    Without the context the effect cannot see the policy (kills sim.phases.parliament.x_parliament__mutmut_248)."""
    once = 10 - _calico_fails([])
    assert once > 0
    assert 10 - _calico_fails([{"effect": "repeat_policy"}]) == 2 * once


@pytest.mark.parametrize(
    "answer, legal",
    [
        ((-1, 0), False),  # draw another: not allowed here (the dilemma / max_laws case)
        ((3, 2), False),  # a candidate with a side that is neither 0 nor 1
        ((99, 0), False),  # no such law
        ((2, 0), False),  # a law that is not a candidate
        ((3, 1), True),
    ],
)
def test_tabling_refuses_every_kind_of_wrong_answer(answer, legal):
    """L236-L238 and D-LAWS: the PM tables a candidate law with side 0 or 1, or draws another (-1) only while drawing
    is allowed. Each check must hold on its own, not only the candidate check (kills
    sim.phases.parliament.x_ask_table__mutmut_48, which kept only the last)."""
    r, s = blank(1, 4)
    s.prime_minister[:] = 0
    n_laws = len(r.d.law_names)
    candidates = np.zeros((1, n_laws), bool)
    candidates[0, 3] = True
    options = np.zeros((1, n_laws, 2), dtype=np.int64)
    strat = Scripted(table_law=const(*answer))
    ask = lambda: ask_table(s, agents(r, s, strat), np.ones(1, bool), candidates, np.zeros(1, bool), options)  # noqa: E731
    if legal:
        law, side = ask()
        assert law.tolist() == [3] and side.tolist() == [1]
    else:
        with pytest.raises(
            IllegalDecision,
            match=": table one of the candidate laws .side 0 or 1., or draw .-1. only while drawing is allowed$",
        ):
            ask()


# --------------------------------------------------------------------------------------------------------- sim.laws
def test_board_of_control_refuses_the_office_number_just_past_the_last():
    """Board of Control (D-LAWS, 2e): the PM names an officeholder to remove; with the last office (the Governor-
    General, N_OFFICES - 1) held, the number N_OFFICES is still no office. A `o > N_OFFICES` bound would clip it to
    the Governor-General, find him removable and accept it (kills sim.laws.x_board_of_control__mutmut_63); the last
    office itself is legal and is removed."""
    r, s = blank(1, 4)
    s.law_pile[0, r.d.law_names.index("Board of Control")] = laws.IN_FORCE
    s.prime_minister[0] = 2
    seat_office(s, L.GOVERNOR_GENERAL, 1)
    with pytest.raises(
        IllegalDecision, match="remove_officeholder.* in game 0: not an officeholder the PM may remove$"
    ):
        laws.board_of_control(s, r, dice(), agents(r, s, Scripted(remove_officeholder=const(L.N_OFFICES))))
    laws.board_of_control(s, r, dice(), agents(r, s, Scripted(remove_officeholder=const(L.GOVERNOR_GENERAL))))
    assert s.office[0, L.GOVERNOR_GENERAL] == -1 and s.supply[0, 1] == 12


# ---------------------------------------------------------------------------------------------------- sim.positions
@pytest.mark.parametrize("ranking, legal", [([0, 0, 1, 2], False), ([0, 1, 2, 4], False), ([2, 1, 0, 3], True)])
def test_the_pms_ranking_of_tied_position_takers_must_order_the_seats(ranking, legal):
    """L72-L74 (D-POSITIONS): families tied on £ spent and wealth are ordered by the PM (decision
    ``rank_position_takers``): his answer must be an ordering of the seats; one that repeats or skips a seat is refused
    (kills sim.positions.x_pick_order__mutmut_66, the check dropped). Seats 1 and 2 tie (4 £, no wealth); the PM
    (seat 0) ranks 2 before 1."""
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


# -------------------------------------------------------------------------------------------- sim.governor_general
@pytest.mark.parametrize("bad", [-1, L.N_GOV_EFFECTS])
def test_the_governor_generals_effects_must_be_effects(bad):
    """L126-L127 (2e powers): after a successful governing roll the Governor-General picks an effect (layout.G_*) for
    every Company region; a number outside 0..N_GOV_EFFECTS - 1 is refused with the reason (kills
    sim.governor_general.x_governor_general__mutmut_149, the message). Bombay is the Company's."""
    r, s = blank(1, 4)
    s.law_pile[0, r.d.law_names.index("Governor General")] = laws.IN_FORCE
    seat_office(s, L.GOVERNOR_GENERAL, 3)
    s.owner[:, BOMBAY] = 0
    effects = np.zeros(len(r.d.regions), dtype=int)
    effects[BOMBAY] = bad
    strat = Scripted(general_govern=const(True), general_effects=const(effects))
    with pytest.raises(
        IllegalDecision, match="general_effects.* in game 0: an effect layout.G_\\* for every Company region$"
    ):
        governor_general(s, r, dice({0: [5, 2, 6]}), agents(r, s, strat))


# -------------------------------------------------------------------------------------------------------- sim.notes
def test_the_bonus_note_holder_is_told_whose_bonus_it_may_take():
    """Kind 5 (L52, D-DEALS): seat 3 holds seat 1's bonus note; before seat 1's President's bonus (2 £, flow
    ``president_bonus``) is paid, seat 3 is asked (decision ``use_bonus_note``) and told the issuer, the amount and
    the flow; it takes it (kills sim.notes.x_pay_bonus__mutmut_58, the issuer's key)."""
    r, s = blank(1, 4)
    s.note_holder[0, 1, notes.BONUS] = 3
    seen = []

    def use(obs, legal):
        seen.append((int(obs.seat[0]), int(legal.issuer[0]), int(legal.amount[0]), str(legal.flow[0])))
        return np.ones(obs.n, dtype=bool)

    notes.pay_bonus(
        s, r, agents(r, s, Scripted(use_bonus_note=use)), "president_bonus", np.array([1]), 2, np.ones(1, bool)
    )
    assert seen == [(3, 1, 2, "president_bonus")]
    assert s.money[0].tolist() == [0, 0, 0, 2] and s.note_holder[0, 1, notes.BONUS] == 1


def test_the_money_note_refusal_names_its_reason():
    """Kind 1 (L48): the holder takes 0 up to money_max £ (what the issuer has); more is refused with that reason
    (kills sim.notes.x_use_money_notes__mutmut_37, the message)."""
    r, s = blank(1, 4)
    s.note_holder[0, 0, notes.MONEY] = 1
    fund(s, 0, 5)
    greedy = Scripted(use_money_notes=lambda obs, legal: legal.cap + 1)
    with pytest.raises(
        IllegalDecision, match=r"use_money_notes.* in game 0: takes 0 up to money_max £ \(what the issuer has\)$"
    ):
        notes.use_money_notes(s, r, agents(r, s, greedy), np.ones(1, bool))


@pytest.mark.parametrize("plays", [False, True])
def test_an_appointer_may_decline_to_play_his_nepotism_card(plays):
    """D-POSITIONS (phase 5): the Chairman appointing his own relative where consent is needed may play Friend at the
    Admiralty (ignore nepotism; decision ``play_position``, told the office). Declining keeps the card unplayed and
    consent is still needed (kills sim.positions.x_waive_nepotism__mutmut_87, which played every playable card, and
    _69, the office's key)."""
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


def test_a_note_not_held_cannot_be_offered_even_to_seat_0():
    """D-DEALS (seed 001 L81-L87): a family offers only notes it holds. Seat 1 offers seat 2's money note to seat 0:
    refused with the reason -- buyer 0 is the edge a `buyer >= 1` reading of "offered to someone" misses (kills
    sim.notes.x_deal__mutmut_106, and _110, the message)."""
    r, s = blank(1, 4)

    def offer(obs, legal):
        buyer = np.full(legal.held.shape, -1)
        buyer[obs.seat == 1, 2, notes.MONEY] = 0
        return buyer, np.ones(legal.held.shape, dtype=int)

    with pytest.raises(
        IllegalDecision,
        match="offer_notes.* in game 0: offers only notes it holds, to another family, at a price >= 0$",
    ):
        notes.deal(s, r, dice(), agents(r, s, Scripted(offer_notes=offer)), "appointments")


# -------------------------------------------------------------------------------------------- sim.phases.operations
@pytest.mark.parametrize("china_open", [False, True])
def test_the_director_moves_ships_out_of_china_only_while_it_is_open(china_open):
    """R-DIRECTOR's moves (L130-L134; China only while open, L137): a leased ship stands at China (location 3); moving
    it to Bombay is illegal while China is closed -- location 3 is one past the last presidency, the edge a
    `src > n_locs` bound misses (kills sim.phases.operations.x_apply_director_moves__mutmut_44)."""
    clerks = np.zeros((1, 2, 3), dtype=int)
    ships = np.zeros((1, 4, 2), dtype=int)
    ships[0, 3, L.LEASED] = 1
    yard = np.zeros((1, 2, 4), dtype=int)
    moves = tuple(np.array([[x]]) for x in (L.MOVE_LEASED, 0, 3, 0, 1))  # kind, family, src, dst, count
    bad = apply_director_moves(clerks, ships, yard, np.array([china_open]), moves)
    assert bad.tolist() == [not china_open]
    assert ships[0, :, L.LEASED].tolist() == ([1, 0, 0, 0] if china_open else [0, 0, 0, 1])


# ----------------------------------------------------------------------------------------------- sim.rules.schema
def test_rules_errors_show_values_cut_to_60_characters():
    """A RulesError names the bad value on one line (README, "bad input"): a repr of exactly 60 characters is shown
    whole, a longer one cut to 57 + "..." = 60 (kills sim.rules.schema.x_shown__mutmut_1, _6 and _8: a limit of 61,
    `<` for `<=`, a cut at limit + 3)."""
    exact = "x" * 58  # repr adds the two quotes: 60 characters
    assert shown(exact) == repr(exact) and len(shown(exact)) == 60
    longer = "y" * 59  # 61 characters
    assert shown(longer) == "'" + "y" * 56 + "..." and len(shown(longer)) == 60


def test_a_governor_is_told_whether_his_last_action_failed():
    """R-GOVERNORS (L156-L161, D-ADMIN): after a failure the next success pays more (``income_after_failure``), so the
    governor is told ``legal.failed`` (a bool mask) before each action: Bombay (admin 3) succeeds, fails, then acts
    again with the failure known (kills sim.phases.operations.x_governors__mutmut_28, the mask as float 0/1)."""
    r, s = blank(1, 4)
    bombay = r.d.regions.index("Bombay")
    s.owner[0, bombay] = 0
    s.governor[0, bombay] = 2
    s.supply[0, 2] -= 1
    seen = []

    def govern(obs, legal):
        seen.append((legal.failed.dtype == bool, bool(legal.failed[0])))
        return np.ones(obs.n, dtype=bool)

    strat = Scripted(govern=govern, govern_effect=const(L.G_TAX_COMPANY))
    governors(s, r, dice({0: [6, 1, 3, 4, 6, 2]}), agents(r, s, strat))  # lowest 1 of 3, 4 of 2, 2 of 1
    assert seen == [(True, False), (True, False), (True, True)]


def test_a_negative_leased_ship_count_is_refused_on_its_own():
    """R-SHIPPING (L139-L141): the Shipping Manager buys ship counts >= 0. Leased [-1, 4, 0] nets 3 ships for 6 £ of
    his 7 £, leaving 1 (< must_buy_from): only the negative count makes it illegal. A check needing a negative Company
    count as well lets it pass (kills sim.phases.operations.x_shipping_manager__mutmut_77)."""
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 0)
    s.treasury[0, L.T_SHIPPING] = 7

    def buy(obs, legal):
        return np.array([[-1, 4, 0]]), np.zeros((1, 3), int), np.zeros((1, 4, 3), int)

    with pytest.raises(IllegalDecision, match="buy_ships"):
        shipping_manager(s, r, dice(), agents(r, s, Scripted(buy_ships=buy)))


# ------------------------------------------------------------------------------------------------ sim.phases.london
def test_the_final_retirement_adds_its_sent_home_to_the_rounds_tally():
    """L64 and the final retirement (L256): the last round's London season already sent 2 home; the final retirement
    sends the Director of Trade home (a 6 retires him, no tier paid): the round's ``sent_home`` is 3, not 1 (kills
    sim.phases.london.x_retirement_roll__mutmut_213, `=` for `+=`)."""
    r, s = blank(1, 4)
    seat_office(s, L.DIRECTOR, 1)
    s.tally[0, TALLY["sent_home"]] = 2
    retirement_roll(s, r, dice({0: [6]}), agents(r, s, Scripted(retire=const(-1))), np.arange(1), final=True)
    assert s.supply[0, 1] == 12 and s.tally[0, TALLY["sent_home"]] == 3


# ------------------------------------------------------------------------------------------------------- sim.rules
@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"map.events": []}, "map.events: needs between 1 and 127 event tiles"),  # _validate__mutmut_212: the key
        ({"firms.revenue_per_value": 0}, "firms.revenue_per_value: must be at least 1 £"),  # _679: the reason
    ],
)
def test_rules_checks_name_their_key_and_reason(overrides, message):
    """Bad rules fail with one line naming the key and the reason (README; kills sim.rules.xǁRulesǁ_validate__mutmut_212
    and _679)."""
    fails(overrides, message)
