"""Promissory notes and deals (R-NOTE, D-DEALS; seed 000 L47-L56, seed 001 L81-L87): the notes as state, a sealed
simultaneous binding exchange, and each note's effect when used."""

import numpy as np
import pytest
from helpers import L, Scripted, accepts, agents, blank, const, dice, fund, give, offers, seat_office

from sim import ledger, notes
from sim.agents import Agents, IllegalDecision
from sim.phases.appointments import appoint_office
from sim.phases.operations import presidents
from sim.phases.parliament import hold_vote
from sim.rules import vocabulary
from sim.state import FLOW, TALLY

K = len(vocabulary.NOTE_KINDS)
pytestmark = pytest.mark.usefixtures("engine_path")  # the offers' check has a compiled kernel (_offer_faults)


def test_every_family_starts_with_its_own_five_notes():
    r, s = blank(2, 5)
    assert s.note_holder.shape == (2, 5, K)
    assert (s.note_holder == np.arange(5)[None, :, None]).all()


def test_a_sale_is_binding_and_executed_together():
    """Seat 0 sells its money note to seat 1 for 1 £ and seat 1 sells seat 1's vote note to seat 2 for 2 £, in
    the same exchange: both happen at once; a refused offer changes nothing."""
    r, s = blank(1, 4)
    fund(s, 1, 1)
    fund(s, 2, 2)
    strat = Scripted(
        offer_notes=offers({0: [(0, notes.MONEY, 1, 1)], 1: [(1, notes.VOTES, 2, 2)], 3: [(3, notes.BONUS, 2, 0)]}),
        accept_notes=accepts({1: [(0, notes.MONEY)], 2: [(1, notes.VOTES)]}),
        use_money_notes=lambda obs, legal: np.zeros(legal.cap.shape, int),
    )
    notes.deal(s, r, dice(), agents(r, s, strat), "appointments")
    assert s.note_holder[0, 0, notes.MONEY] == 1 and s.note_holder[0, 1, notes.VOTES] == 2
    assert s.note_holder[0, 3, notes.BONUS] == 3  # not accepted: stays with its issuer
    assert s.money[0].tolist() == [1, 0 + 2, 0, 0]  # seat 1 paid 1 and received 2
    assert s.tally[0, TALLY["notes_sold"]] == 2 and ledger.balanced(s).all()
    # sealed: every offer was made before any acceptance
    order = [d for d, _, _ in strat.calls if d in ("offer_notes", "accept_notes")]
    assert order == ["offer_notes"] * 4 + ["accept_notes"] * 2


def test_a_buyer_pays_only_from_the_money_it_had_before_the_exchange():
    """Seat 1 sells a note for 3 £ and, at the same time, accepts one for 2 £ while holding 0 £: illegal (each
    deal must be possible on its own when made, seed 001 L85)."""
    r, s = blank(1, 4)
    fund(s, 2, 3)
    strat = Scripted(
        offer_notes=offers({1: [(1, notes.MONEY, 2, 3)], 0: [(0, notes.MONEY, 1, 2)]}),
        accept_notes=accepts({2: [(1, notes.MONEY)], 1: [(0, notes.MONEY)]}),
    )
    with pytest.raises(IllegalDecision, match="accept_notes"):
        notes.deal(s, r, dice(), agents(r, s, strat), "appointments")


@pytest.mark.parametrize(
    "offer, why",
    [
        ((2, notes.MONEY, 1, 1), "not held"),  # seat 0 offers seat 2's note
        ((0, notes.MONEY, 0, 1), "to itself"),
        ((0, notes.MONEY, 1, -1), "negative price"),
        ((0, notes.MONEY, 4, 1), "to a seat past the last (4 players: seats 0-3)"),
    ],
)
def test_illegal_offers(offer, why):
    r, s = blank(1, 4)
    strat = Scripted(offer_notes=offers({0: [offer]}))
    with pytest.raises(IllegalDecision, match="offer_notes"):
        notes.deal(s, r, dice(), agents(r, s, strat), "appointments")


def test_a_sale_to_seat_0_alone_is_made():
    """The only offer of the exchange is to seat 0 (the lowest seat, whose index is 0): it is read and, accepted,
    made -- a sealed exchange with any offer at all is settled (R-NOTE, seed 000 L54)."""
    r, s = blank(1, 4)
    fund(s, 0, 2)
    strat = Scripted(
        offer_notes=offers({1: [(1, notes.MONEY, 0, 2)]}),
        accept_notes=accepts({0: [(1, notes.MONEY)]}),
        use_money_notes=lambda obs, legal: np.zeros(legal.cap.shape, int),
    )
    notes.deal(s, r, dice(), agents(r, s, strat), "appointments")
    assert s.note_holder[0, 1, notes.MONEY] == 0 and s.money[0].tolist() == [0, 2, 0, 0]


def test_a_held_note_of_another_family_can_be_sold_on():
    """L54: notes pass freely, another family's note to a third one too."""
    r, s = blank(1, 4)
    s.note_holder[0, 0, notes.VOTES] = 1
    fund(s, 3, 1)
    strat = Scripted(offer_notes=offers({1: [(0, notes.VOTES, 3, 1)]}), accept_notes=accepts({3: [(0, notes.VOTES)]}))
    notes.deal(s, r, dice(), agents(r, s, strat), "vote")
    assert s.note_holder[0, 0, notes.VOTES] == 3 and s.money[0].tolist() == [0, 1, 0, 0]


def test_deal_moments_key_switches_deals_off():
    r, s = blank(1, 4, **{"notes.deal_moments": ["vote"]})
    strat = Scripted()
    notes.deal(s, r, dice(), agents(r, s, strat), "appointments")
    assert strat.calls == []


# ----------------------------------------------------------------------------------------------- each note
def test_money_note_takes_up_to_two_pounds_from_the_issuer_and_returns():
    """Kind 1 (L48): at most money_max (2) £, at most what the issuer has; the used note goes back."""
    r, s = blank(2, 4)
    s.note_holder[:, 0, notes.MONEY] = 1
    fund(s, 0, 1, games=0)
    fund(s, 0, 5, games=1)
    seen = []

    def take(obs, legal):
        seen.append(legal.cap[:, 0].tolist())
        return legal.cap

    notes.use_money_notes(s, r, agents(r, s, Scripted(use_money_notes=take)), np.ones(2, bool))
    assert seen == [[1, 2]]
    assert s.money[:, :2].tolist() == [[0, 1], [3, 2]] and ledger.balanced(s).all()
    assert (s.note_holder[:, 0, notes.MONEY] == 0).all() and s.tally[:, TALLY["notes_used"]].tolist() == [1, 1]
    with pytest.raises(IllegalDecision, match="use_money_notes"):
        s.note_holder[:, 0, notes.MONEY] = 1
        notes.use_money_notes(s, r, agents(r, s, Scripted(use_money_notes=lambda o, lg: lg.cap + 1)), np.ones(2, bool))


def test_a_spent_note_is_gone_for_the_game():
    r, s = blank(1, 4, **{"notes.after_use": "spent"})
    s.note_holder[0, 0, notes.MONEY] = 1
    fund(s, 0, 2)
    notes.use_money_notes(s, r, agents(r, s), np.ones(1, bool))
    assert s.note_holder[0, 0, notes.MONEY] == -1 and s.money[0, 1] == 2


def test_nepotism_note_gives_the_refused_consent():
    """Kind 2 (L49, L114): the Chairman (seat 0) names his own clerk; seat 1 refuses, but the Chairman holds seat
    1's nepotism note: it counts as the consent; seat 2 (no note) consents; the note goes back to seat 1."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "clerks", 0, 1, col=0)
    give(s, "clerks", 1, 1, col=1)
    s.note_holder[0, 1, notes.NEPOTISM] = 0
    strat = Scripted(consent=const(False))
    appoint_office(s, r, dice(), agents(r, s, strat), L.SHIPPING)
    assert s.office[0, L.SHIPPING] == 0 and s.note_holder[0, 1, notes.NEPOTISM] == 1
    assert s.tally[0, TALLY["notes_used"]] == 1
    # without the note the refusal stands
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "clerks", 0, 1, col=0)
    give(s, "clerks", 1, 1, col=1)
    appoint_office(s, r, dice(), agents(r, s, Scripted(consent=const(False))), L.SHIPPING)
    assert s.office[0, L.SHIPPING] == 1


def test_a_nepotism_note_held_by_a_third_family_is_no_consent():
    """Kind 2 (L49, L114; ``notes.consent_by_note``): a nepotism note is its issuer's consent to the family holding
    it, so it counts only where the appointer holds it. The Chairman (seat 0) names his own clerk and seat 1
    refuses; seat 1's nepotism note is held by seat 2, not by the Chairman: the refusal stands, the note stays with
    seat 2 unused, and the Chairman appoints seat 1's clerk instead. Taking any note out of its issuer's hands for
    consent would seat the Chairman's own clerk."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "clerks", 0, 1, col=0)
    give(s, "clerks", 1, 1, col=1)
    s.note_holder[0, 1, notes.NEPOTISM] = 2
    appoint_office(s, r, dice(), agents(r, s, Scripted(consent=const(False))), L.SHIPPING)
    assert s.office[0, L.SHIPPING] == 1
    assert s.note_holder[0, 1, notes.NEPOTISM] == 2 and s.tally[0, TALLY["notes_used"]] == 0


def test_position_note_hands_the_pick_to_its_holder():
    """Kind 3 (L50): ``redeem_position_pick`` is what the London season calls for the family about to pick."""
    r, s = blank(3, 4)
    s.note_holder[0, 2, notes.POSITION] = 3
    s.note_holder[1, 2, notes.POSITION] = 3
    strat = Scripted(use_position_note=lambda obs, legal: obs.games == 0)
    picker = notes.redeem_position_pick(s, r, agents(r, s, strat), np.array([2, 2, -1]))
    assert picker.tolist() == [3, 2, -1]  # game 1: the holder keeps his note; game 2: nobody picks
    assert s.note_holder[:, 2, notes.POSITION].tolist() == [2, 3, 2]
    assert strat.asked("use_position_note") == [([0, 1], [3, 3])]


def test_vote_note_gives_the_issuers_property_votes_to_the_holder():
    """Kind 4 (L51): seat 1 holds seat 2's vote note and uses it against: seat 2's factory (3 votes) counts
    against even though seat 2 itself votes for; the note goes back to seat 2."""
    r, s = blank(1, 4)
    s.prime_minister[0] = 0
    s.factories[0, 2] = 1
    s.shipyards[0, 1] = 1
    s.note_holder[0, 2, notes.VOTES] = 1

    def vote(obs, legal):
        side = np.array([{0: 1, 1: -1, 2: 1}.get(int(x), 0) for x in obs.seat])
        use = legal.notes & (obs.seat == 1)[:, None]
        return side, np.zeros(obs.n, int), use

    out = hold_vote(s, r, agents(r, s, Scripted(vote=vote)), np.ones(1, bool), np.zeros(1, int),
                    np.full(1, -1), np.full(1, -1), np.ones(1, bool))  # fmt: skip
    assert out.against[0].tolist() == [0, 1 + 3, 0, 0] and out.votes_for[0].tolist() == [0, 0, 0, 0]
    assert out.net[0] == -4 and s.note_holder[0, 2, notes.VOTES] == 2


def test_a_vote_note_only_when_held():
    r, s = blank(1, 4)
    s.prime_minister[0] = 0

    def vote(obs, legal):
        use = np.zeros((obs.n, obs.players), bool)
        use[:, 3] = obs.seat == 1
        return np.where(obs.seat <= 1, 1, 0), np.zeros(obs.n, int), use

    with pytest.raises(IllegalDecision, match="'vote'"):
        hold_vote(s, r, agents(r, s, Scripted(vote=vote)), np.ones(1, bool), np.zeros(1, int), np.full(1, -1),
                  np.full(1, -1), np.ones(1, bool))  # fmt: skip


def test_bonus_note_takes_the_presidents_bonus():
    """Kind 5 (L52): the holder of the President's bonus note takes his 1 £ per order; the ledger flow is the
    same (president_bonus), only the family paid differs."""
    r, s = blank(2, 4)
    seat_office(s, L.PRESIDENT[0], 1)
    ledger.treasury(s, "company_start", L.T_PRESIDENCY[0], np.full(2, 2))
    s.ships[:, 0, L.COMPANY_SHIP] = 2
    s.note_holder[:, 1, notes.BONUS] = 3
    orders = np.isin(r.d.orders, ["Bombay3", "Mysore1"])
    strat = Scripted(trade=const(4, orders, [0, 0, 0, 0]), use_bonus_note=lambda obs, legal: obs.games == 0)
    presidents(s, r, dice({0: [1, 6, 6], 1: [1, 6, 6]}), agents(r, s, strat))
    assert s.money[:, 1].tolist() == [0, 2] and s.money[:, 3].tolist() == [2, 0]
    assert s.ledger[:, FLOW["president_bonus"]].tolist() == [2, 2]
    assert s.note_holder[:, 1, notes.BONUS].tolist() == [1, 3]


def test_bonus_note_ignores_flows_not_listed():
    r, s = blank(1, 4, **{"notes.bonus_flows": []})
    s.note_holder[0, 1, notes.BONUS] = 3
    strat = Scripted()
    notes.pay_bonus(s, r, agents(r, s, strat), "president_bonus", np.array([1]), np.array([2]), np.ones(1, bool))
    assert s.money[0, 1] == 2 and strat.asked("use_bonus_note") == []


def test_notes_in_full_games_are_sold_and_used():
    import sim

    res = sim.play(sim.Rules.default(5), "random", 300, seed=8)
    assert res.rounds["notes_sold"].sum() > 0 and res.rounds["notes_used"].sum() > 0


def test_a_family_holding_no_note_at_all_still_settles_the_deal():
    """D-DEALS (seed 001 L81-L87; seed 000 L54: notes pass freely, to a third family too). Two games; in game 1 the
    last seat (3) has given all five of its notes to seat 0 and holds no note of anybody. Seat 0 sells seat 3's
    vote note to seat 1 for 2 £ there, and in game 0 seat 2 sells its own money note to seat 1 for 1 £: each
    seller is paid, each buyer pays, game by game. Settling the pay per (game, seat) must count every seat of
    every game, the last one holding nothing included: a bincount without ``minlength = G * N`` is one seat short
    and the pay table cannot be laid out per game."""
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


def test_the_money_note_refusal_names_its_reason():
    """Kind 1 (L48): the holder takes 0 up to money_max £ (what the issuer has); more is refused with that reason."""
    r, s = blank(1, 4)
    s.note_holder[0, 0, notes.MONEY] = 1
    fund(s, 0, 5)
    greedy = Scripted(use_money_notes=lambda obs, legal: legal.cap + 1)
    with pytest.raises(
        IllegalDecision, match=r"use_money_notes.* in game 0: takes 0 up to money_max £ \(what the issuer has\)$"
    ):
        notes.use_money_notes(s, r, agents(r, s, greedy), np.ones(1, bool))


def test_the_bonus_note_holder_is_told_whose_bonus_it_may_take():
    """Kind 5 (L52, D-DEALS): seat 3 holds seat 1's bonus note; before seat 1's President's bonus (2 £, flow
    ``president_bonus``) is paid, seat 3 is asked (decision ``use_bonus_note``) and told the issuer, the amount and
    the flow; it takes it."""
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


def test_a_note_not_held_cannot_be_offered_even_to_seat_0():
    """D-DEALS (seed 001 L81-L87): a family offers only notes it holds. Seat 1 offers seat 2's money note to seat 0:
    refused with the reason -- buyer 0 is the edge a `buyer >= 1` reading of "offered to someone" misses."""
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


@pytest.mark.parametrize("buyer, price, legal", [(-1, 0, True), (-1, -1, False), (1, 0, False)])
def test_an_offer_made_as_one_constant_for_every_note_is_checked_as_any(buyer, price, legal):
    """D-DEALS: an answer of read-only constants (``np.broadcast_to``) is checked as any other: "no offer" at price
    0 is legal, a negative price refused even without a buyer, and one buyer for every note refused (notes not held,
    and to itself for that seat)."""
    r, s = blank(2, 4)

    def offer(obs, legal):
        return np.broadcast_to(np.int64(buyer), legal.held.shape), np.broadcast_to(np.int64(price), legal.held.shape)

    strat = Scripted(offer_notes=offer)
    if legal:
        notes.deal(s, r, dice(), agents(r, s, strat), "appointments")
        assert (s.note_holder == np.arange(4)[None, :, None]).all() and not s.tally[:, TALLY["notes_sold"]].any()
    else:
        with pytest.raises(IllegalDecision, match="offers only notes it holds, to another family, at a price >= 0$"):
            notes.deal(s, r, dice(), agents(r, s, strat), "appointments")


# ------------------------------------------------------------------------- money and property (L56, D-GIFTS)
M, LUX, YARD, FAC = range(len(notes.GOODS))


def exchanges(table):
    """``offer_exchange`` from {giver: [(to, give {good: k}, ask {good: k}), ...]}."""

    def answer(obs, legal):
        give = np.zeros((obs.n, obs.players, len(notes.GOODS)), dtype=int)
        ask = np.zeros_like(give)
        for i, seat in enumerate(obs.seat):
            for to, gv, tk in table.get(int(seat), []):
                for good, k in gv.items():
                    give[i, to, good] = k
                for good, k in tk.items():
                    ask[i, to, good] = k
        return give, ask

    return answer


def propertied():
    """Seat 0: 6 £, 2 luxuries, 1 factory; seat 1: 5 £; seat 2: 5 £ and a shipyard holding a Company ship."""
    r, s = blank(1, 4)
    for seat, money in ((0, 6), (1, 5), (2, 5)):
        fund(s, seat, money)
    s.luxuries[0, 0], s.wealth[0, 0], s.factories[0, 0] = 2, 2 * r.actions.luxury_wealth, 1
    s.shipyards[0, 2], s.yard_ships[0, 2, 0] = 1, 1
    return r, s


def test_money_and_property_are_handed_over_freely_as_a_gift_or_a_swap():
    """L56: seat 0 gives seat 1 3 £ and a luxury (its wealth goes with it) and offers seat 2 its factory for 4 £;
    both accept; everything moves at once, inside the game (no ledger flow), and each accepted offer is counted."""
    r, s = propertied()
    table = {0: [(1, {M: 3, LUX: 1}, {}), (2, {FAC: 1}, {M: 4})]}
    strat = Scripted(offer_exchange=exchanges(table), accept_exchange=lambda obs, legal: legal.offered)
    flows = s.ledger.copy()
    notes.deal(s, r, dice(), agents(r, s, strat), "appointments")
    assert s.money[0, :3].tolist() == [6 - 3 + 4, 5 + 3, 5 - 4]
    assert s.luxuries[0, :2].tolist() == [1, 1] and s.wealth[0, :2].tolist() == [r.actions.luxury_wealth] * 2
    assert s.factories[0, :3].tolist() == [0, 0, 1] and s.tally[0, TALLY["exchanges"]] == 2
    assert ledger.balanced(s).all() and (s.ledger == flows).all()
    assert [seats for _, seats in strat.asked("accept_exchange")] == [[1], [2]]  # only families offered something


def test_a_refused_offer_moves_nothing_and_the_base_strategy_takes_gifts_only():
    """The base strategy accepts a gift and refuses a swap that asks something of it."""
    r, s = propertied()
    table = {0: [(1, {M: 2}, {}), (2, {LUX: 1}, {M: 1})]}
    notes.deal(s, r, dice(), agents(r, s, Scripted(offer_exchange=exchanges(table))), "appointments")
    assert s.money[0, :3].tolist() == [4, 7, 5] and s.luxuries[0, :3].tolist() == [2, 0, 0]
    assert s.tally[0, TALLY["exchanges"]] == 1


@pytest.mark.parametrize(
    ("table", "why"),
    [
        ({0: [(1, {M: 4}, {}), (2, {M: 3}, {})]}, "offer_exchange"),  # 7 £ offered, 6 held
        ({2: [(1, {YARD: 1}, {})]}, "offer_exchange"),  # its shipyard holds a ship
        ({1: [(1, {M: 1}, {})]}, "offer_exchange"),  # to itself
        ({0: [(1, {}, {M: -1})]}, "offer_exchange"),
        ({0: [(2, {LUX: 1}, {M: 4})], 2: [(3, {M: 3}, {})]}, "accept_exchange"),  # 5 £ - 3 offered < 4 asked
    ],
)
def test_each_offer_and_acceptance_must_be_possible_on_its_own(table, why):
    """seed 000 L56 with seed 001 L85 (D-OFFER-LIMIT): a family offers in all no more than it has (money, luxuries,
    shipyards without a ship, uninvested factories), to others only; it accepts asks it can meet beside what it
    offered itself."""
    r, s = propertied()
    strat = Scripted(offer_exchange=exchanges(table), accept_exchange=lambda obs, legal: legal.offered)
    with pytest.raises(IllegalDecision, match=why):
        notes.deal(s, r, dice(), agents(r, s, strat), "appointments")


def test_no_exchanges_under_the_key():
    """``notes.exchanges = false``: nobody is asked."""
    r, s = propertied()
    r = r.with_overrides({"notes.exchanges": False})
    strat = Scripted(offer_exchange=exchanges({0: [(1, {M: 3}, {})]}))
    notes.deal(s, r, dice(), agents(r, s, strat), "appointments")
    assert not strat.asked("offer_exchange") and s.money[0, 1] == 5


def test_a_table_that_passes_exchanges_is_counted_as_asked_and_nothing_moves(monkeypatch):
    """D-GIFTS at a table whose strategies all pass ``offer_exchange`` (``Strategy``, which makes no offer): the
    engine skips the question, yet counts one ask per seat of each running game (a finished game none), as asking
    seat by seat counts them; nothing moves either way."""
    r, s = blank(3, 4)
    s.done[1] = True
    counts = []
    for skip in (True, False):
        if not skip:
            monkeypatch.setattr(Agents, "all_pass", lambda self, decision, asked: False)
        table = agents(r, s)
        assert table.all_pass("offer_exchange", np.zeros(3, np.int32)) is skip
        money = s.money.copy()
        notes.deal(s, r, dice(), table, "appointments")
        assert np.array_equal(s.money, money)
        counts.append(table.asks["offer_exchange"].tolist())
    assert counts == [[4, 0, 4], [4, 0, 4]]
