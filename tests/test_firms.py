"""Private firms (R-FIRMS, D-FIRM-VARIANT, D-INITIATIVE): phase 3 (seed 000 L86-L106), the firms' trade in
phase 6 (seed 000 L154, L175-L182), phase 7.1 (seed 000 L191-L199), the special and final retirements (seed 000
L197, L257) and the end VP, on hand-built positions with injected dice, in the house rules and the jc2e variant (seed
002)."""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, fund, seat_office

import sim
import strategies
from sim import firms as fr
from sim import laws, ledger
from sim import positions as pos
from sim.agents import IllegalDecision
from sim.phases.accounts import family_income
from sim.phases.end import end_game, score
from sim.phases.firm_accounts import dividends, firm_accounts
from sim.phases.firm_trade import president_check, trade_in_turn, trade_initiative
from sim.phases.firms import firms, invest_step, manager_step, merger_step, open_step, ships_step, strategy_step
from sim.phases.london import london_season, special_retirements
from sim.phases.operations import presidents, shipping_manager
from sim.state import FLOW, TALLY

# each rule played on both engine paths, the numpy reference and the compiled kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")

VARIANTS = ["house", "jc2e"]
ON = np.ones(1, dtype=bool)


def NO_ORDERS(r):  # noqa: N802 - the President's orders when no President trades
    return np.zeros((1, len(r.d.orders)), dtype=bool)


def no_fill(sel, before):
    assert not sel.any()


def firm_rules(variant="house", games=1, players=4, **over):
    """A blank position where Deregulation passed in round 1 and firms act in round 2 (stability 4, no debt)."""
    r, s = blank(games, players, **{"firms.variant": variant, **over})
    s.deregulated[:] = True
    s.dereg_round[:] = 1
    s.round[:] = 2
    return r, s


def make_firm(s, slot, manager, shares, value=1, cash=5, ships=None, damaged=None, india=0, games=slice(None)):
    """Firm ``slot`` managed by ``manager``: shareholders {seat: k} from their supply, money through the ledger,
    ships {yard owner: k} each on a shipyard of its own."""
    s.firm_manager[games, slot] = manager
    for seat, k in shares.items():
        s.firm_shares[games, slot, seat] += k
        s.supply[games, seat] -= k
    s.firm_value[games, slot] = value
    for arr, amount in ((s.firm_cash, cash), (s.firm_india, india)):
        arr[games, slot] += amount
        s.ledger[games, FLOW["firm_investment"]] += amount
    for owner, k in (ships or {}).items():
        s.shipyards[games, owner] += k
        s.firm_ships[games, slot, owner] += k
    for owner, k in (damaged or {}).items():
        s.firm_damaged[games, slot, owner] += k


def per_seat(fn_by_seat, default=0):
    """A decision answering ``fn_by_seat[seat]`` (a value) per asked seat, ``default`` for other seats."""

    def answer(obs, legal):
        return np.array([fn_by_seat.get(int(seat), default) for seat in obs.seat])

    return answer


def relatives_ok(r, s):
    assert (s.relatives() == r.game.family_size).all()
    assert ledger.balanced(s).all()


# ------------------------------------------------------------------------------------------------- opening
@pytest.mark.parametrize("variant", VARIANTS)
def test_a_family_opens_a_firm_with_a_factory(variant):
    """L88-L89: the factory is invested, a relative from home is the first shareholder, 5 £ from the bank, value 1,
    the family its manager; a Company share moves its board relative onto the firm's track."""
    r, s = firm_rules(variant)
    s.factories[0, 1] = 2
    s.shares[0, 2] = 1
    s.supply[0, 2] -= 1
    strat = Scripted(open_firm=per_seat({1: fr.FACTORY, 2: fr.SHARE}))
    open_step(s, r, agents(r, s, strat), ON)
    assert s.firm_manager[0].tolist() == [1, 2, -1, -1]
    assert s.firm_shares[0, 0].tolist() == [0, 1, 0, 0] and s.firm_shares[0, 1].tolist() == [0, 0, 1, 0]
    assert s.factories[0, 1] == 1 and s.supply[0, 1] == 11 and s.shares[0, 2] == 0 and s.supply[0, 2] == 11
    assert s.firm_value[0, :2].tolist() == [1, 1] and s.firm_cash[0, :2].tolist() == [5, 5]
    assert s.ledger[0, FLOW["firm_investment"]] == 10 and s.tally[0, TALLY["firms_opened"]] == 2
    assert [seats for _, seats in strat.asked("open_firm")] == [[1], [2]]  # families with nothing are not asked
    relatives_ok(r, s)


@pytest.mark.parametrize(("loans", "stability", "asked"), [(4, 4, True), (5, 4, False), (4, 3, False)])
def test_house_firms_open_only_while_debt_is_at_most_4_and_stability_at_least_4(loans, stability, asked):
    """L88: at debt 5 or stability 3 nobody may open a firm (not even with a factory)."""
    r, s = firm_rules("house")
    s.loans[0], s.stability[0] = loans, stability
    s.factories[0, 0] = 1
    strat = Scripted(open_firm=const(fr.FACTORY))
    open_step(s, r, agents(r, s, strat), ON)
    assert bool(strat.asked("open_firm")) == asked
    assert (s.firm_manager[0, 0] == 0) == asked


def factory_and_share(variant, loans, stability, **over):
    """Family 0 holds a factory and a Company share, the Company at ``loans`` debt and ``stability``."""
    r, s = firm_rules(variant, **over)
    s.loans[0], s.stability[0] = loans, stability
    s.factories[0, 0] = 1
    s.shares[0, 0] = 1
    s.supply[0, 0] -= 1
    return r, s


def share_refused(r, s):
    """Family 0 answers ``open_firm`` with a Company share, which must be refused: returns what it was offered
    (factory, share)."""
    seen = {}

    def open_share(obs, legal):
        seen["legal"] = (legal.factory.tolist(), legal.share.tolist())
        return np.array([fr.SHARE])

    with pytest.raises(IllegalDecision, match="open_firm"):
        open_step(s, r, agents(r, s, Scripted(open_firm=open_share)), ON)
    return seen["legal"]


@pytest.mark.parametrize(("reading", "factory_open"), [("any", False), ("share", True)])
def test_house_opening_requires_health_binds_every_opening_or_only_a_share(reading, factory_open):
    """L88, D-OPENING-HEALTH: at debt 5 "any" bars every opening; "share" bars only an opening with a Company share,
    so a family with both is offered the factory alone, opens with it, and a share answer is illegal."""
    r, s = factory_and_share("house", 5, 4, **{"firms.opening_requires_health": reading})
    if factory_open:
        assert share_refused(r, s) == ([True], [False])
    strat = Scripted(open_firm=const(fr.FACTORY))
    open_step(s, r, agents(r, s, strat), ON)
    assert bool(strat.asked("open_firm")) == factory_open
    assert (s.firm_manager[0, 0] == 0) == factory_open and s.shares[0, 0] == 1
    s.loans[0] = 4  # healthy again: a share opens under both readings
    open_step(s, r, agents(r, s, Scripted(open_firm=const(fr.SHARE))), ON)
    assert s.firm_manager[0, 0] == 0 and s.shares[0, 0] == int(factory_open)


@pytest.mark.parametrize(("loans", "stability"), [(5, 4), (4, 3)])
def test_jc2e_weak_stock_bars_company_shares_but_not_factories(loans, stability):
    """Seed 002 "疲軟的公司股票": with the debt or reputation marker on a lined space Company shares may not be used
    to open or invest; a factory may."""
    r, s = factory_and_share("jc2e", loans, stability)
    assert share_refused(r, s) == ([True], [False])
    open_step(s, r, agents(r, s, Scripted(open_firm=const(fr.FACTORY))), ON)
    assert s.firm_manager[0, 0] == 0 and s.factories[0, 0] == 0


@pytest.mark.parametrize(("variant", "investable"), [("house", 2), ("jc2e", 1)])
def test_jc2e_shares_issued_since_the_last_firm_phase_cannot_be_invested(variant, investable):
    """Seed 002 "禁投資股份": a share issued in phase 4 stays fresh until the next phase 3 ends (house: no ban)."""
    from sim.phases.shares import issue_shares

    r, s = firm_rules(variant)
    s.shares[0, 0] = 1
    s.supply[0, 0] -= 2
    s.exchange[0, 0] = 0
    s.loans[0] = 1
    issue_shares(s, r, dice(), agents(r, s))
    assert s.shares[0, 0] == 2 and s.firm_fresh[0, 0] == 1
    assert fr.share_assets(s, r)[0, 0] == investable
    firms(s, r, dice(), agents(r, s, Scripted(open_firm=const(0))))
    assert s.firm_fresh[0, 0] == 0 and fr.share_assets(s, r)[0, 0] == 2  # no longer fresh after phase 3


def test_firms_act_only_from_the_round_after_deregulation():
    """Deregulation passed this round (phase 11 or forced at this round's start): no firm phase yet."""
    r, s = firm_rules("house")
    s.dereg_round[0] = 2
    s.factories[0, 0] = 1
    strat = Scripted(open_firm=const(fr.FACTORY))
    firms(s, r, dice(), agents(r, s, strat))
    assert not strat.asked("open_firm") and s.firm_manager[0, 0] == -1


# ----------------------------------------------------------------------------------------------- investing
@pytest.mark.parametrize("variant", VARIANTS)
def test_investments_need_the_managers_consent_and_stop_making_shareholders_at_10(variant):
    """L102: seat 0 manages a firm of 9 shareholders. Its own factory needs no consent and makes the 10th
    shareholder (clockwise from the manager first); seat 1's factory and share are accepted but make no shareholder
    (5 £ each still, the share's relative goes home, the factory's stays home); seat 2 is refused."""
    r, s = firm_rules(variant)
    make_firm(s, 0, 0, {0: 5, 1: 4})
    s.factories[0, [0, 1]] = 1
    s.shares[0, [1, 2]] = 1
    s.supply[0, [1, 2]] -= 1

    def invest(obs, legal):
        f = np.zeros((obs.n, 4), dtype=int)
        sh = np.zeros((obs.n, 4), dtype=int)
        f[:, 0] = [{0: 1, 1: 1}.get(int(x), 0) for x in obs.seat]
        sh[:, 0] = [{1: 1, 2: 1}.get(int(x), 0) for x in obs.seat]
        return f, sh

    seen = []

    def consent(obs, legal):
        seen.append((legal.factories[0].tolist(), legal.shares[0].tolist()))
        return np.array([[True, True, False, True]])

    strat = Scripted(invest_in_firms=invest, consent_investment=consent)
    invest_step(s, r, agents(r, s, strat), ON)
    assert seen == [([1, 1, 0, 0], [0, 1, 1, 0])]  # the manager sees every offer, his own too
    assert s.firm_shares[0, 0].tolist() == [6, 4, 0, 0] and fr.shareholders(s)[0, 0] == 10
    assert s.firm_cash[0, 0] == 5 + 3 * 5 and s.tally[0, TALLY["firm_investments"]] == 3
    assert s.factories[0].tolist() == [0, 0, 0, 0] and s.shares[0].tolist() == [0, 0, 1, 0]
    assert s.supply[0].tolist() == [12 - 6, 12 - 4, 11, 12]  # seat 1's share relative went home
    relatives_ok(r, s)


@pytest.mark.parametrize(("keeps", "voting"), [(True, 3), (False, 2)])
def test_an_invested_factory_stops_its_income_and_crash_vp_and_keeps_votes_and_influence_per_the_seed(keeps, voting):
    """L79, D-INVESTED-FACTORY: an invested factory "stops giving 1 £ and 1 VP" (income, crash VP); the seed names
    nothing else, so by default (true) it keeps its 3 Parliament votes and its ladder influence; false takes them
    too. Family 0 opens a firm with one of its 3 factories: 3 (or 2) factories vote and count on the ladder, 2 pay."""
    from sim.phases.end import influence
    from sim.phases.parliament import property_votes

    r, s = firm_rules("house", **{"firms.invested_factory_votes": keeps})
    s.factories[0, 0] = 3
    s.ladder[0] = [1, 2, 3, 4]  # factories on the top rung: 4 influence each
    open_step(s, r, agents(r, s, Scripted(open_firm=const(fr.FACTORY))), ON)
    assert s.factories[0, 0] == 2 and s.invested_factories[0, 0] == 1
    assert property_votes(s, r)[0, 0] == voting * r.property.factory_votes
    assert influence(s, r)[0, 0] == voting * 4
    before = s.money[0, 0]
    family_income(s, r)
    assert s.money[0, 0] - before == 2 * r.property.factory_income


# ------------------------------------------------------------------------------------------- value and VP
@pytest.mark.parametrize(
    ("steps", "carry", "revenue", "value", "carry_after"),
    [
        ("round", 0, 11, 2, 0),
        ("round", 0, 12, 3, 0),
        ("round", 5, 1, 1, 5),
        ("game", 5, 1, 2, 0),
        ("game", 0, 11, 2, 5),
    ],
)
def test_value_rises_one_step_per_6_pounds_of_revenue(steps, carry, revenue, value, carry_after):
    """L100, L182: +1 per 6 £ of trade revenue, rounded down, per round (2e); ``value_steps = "game"`` carries the
    rest."""
    r, s = firm_rules("house", **{"firms.value_steps": steps})
    make_firm(s, 0, 0, {0: 1})
    s.firm_carry[0, 0] = carry
    fr.raise_value(s, r, np.array([0]), np.array([0]), np.array([revenue]))
    assert s.firm_value[0, 0] == value and s.firm_carry[0, 0] == carry_after


def test_value_stops_at_10():
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 1}, value=9)
    fr.raise_value(s, r, np.array([0]), np.array([0]), np.array([18]))
    assert s.firm_value[0, 0] == 10


@pytest.mark.parametrize(
    ("value", "vp"),
    [(1, -1.0), (2, 0.0), (3, 0.5), (4, 0.5), (5, 1.0), (6, 1.0), (7, 1.0), (8, 1.5), (9, 1.5), (10, 2.0)],
)
def test_each_value_scores_its_vp_per_share(value, vp):
    """seed 000 L90-L99 at the end: a family with 3 shares of the firm scores 3 x the value's VP (house: halves
    kept); jc2e truncates the total (seed 002 "小數點後完全捨去"); blame situation 6 cancels it (seed 000 L255)."""
    for variant, expect in (("house", 3 * vp), ("jc2e", float(np.trunc(3 * vp)))):
        r, s = firm_rules(variant)
        make_firm(s, 0, 0, {1: 3}, value=value)
        s.done[:] = True
        score(s, r)
        v = L.VP_SOURCES.index("firm_shares")
        assert s.vp[0, 1, v] == expect and s.vp[0, 0, v] == 0
        s.crashed[:], s.blame[:] = True, 5
        score(s, r)
        assert s.vp[0, 1, v] == 0


# ---------------------------------------------------------------------------------------- manager change
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(("approving", "changed"), [({1: True}, False), ({1: True, 2: True}, True)])
def test_the_manager_changes_with_more_than_half_the_shares(variant, approving, changed):
    """L103 (house: a majority of the shareholders; jc2e: the hostile takeover, the holders of more than half the
    shares): seats 1 (2 shares) and 2 (1) of a 4-share firm approve seat 3's bid; 2 of 4 is not a majority."""
    r, s = firm_rules(variant)
    make_firm(s, 0, 0, {0: 1, 1: 2, 2: 1})
    strat = Scripted(
        take_over_firm=per_seat({3: 0}, default=-1),
        approve_manager=lambda obs, legal: np.array([[approving.get(int(x), False)] * 4 for x in obs.seat]),
    )
    manager_step(s, r, agents(r, s, strat), ON)
    assert s.firm_manager[0, 0] == (3 if changed else 0)
    assert [seats for _, seats in strat.asked("take_over_firm")] == [[1], [2], [3]]  # not the manager
    assert sorted(x for _, seats in strat.asked("approve_manager") for x in seats) == [0, 1, 2]


def test_two_candidates_for_one_firm_the_first_clockwise_from_its_manager():
    r, s = firm_rules("house")
    make_firm(s, 0, 1, {1: 1})
    strat = Scripted(take_over_firm=per_seat({0: 0, 3: 0}, default=-1), approve_manager=const([True] * 4))
    manager_step(s, r, agents(r, s, strat), ON)
    assert s.firm_manager[0, 0] == 3  # clockwise from seat 1: 2, 3, then 0


# --------------------------------------------------------------------------------------------------- mergers
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("refuse", [False, True])
def test_a_merger_needs_everyone_and_the_higher_value_survives(variant, refuse):
    """L104: seat 0's firm (value 3) merges with seat 2's (value 5): seat 2's survives with both treasuries, ships
    and shareholders; 12 shares > 10, so 2 go home from the largest holders (seat 1's 5, then seats 0 and 1 at 4:
    the lower seat). One refusal and nothing happens."""
    r, s = firm_rules(variant)
    make_firm(s, 0, 0, {0: 4, 1: 2}, value=3, cash=4, ships={0: 1})
    make_firm(s, 1, 2, {2: 3, 1: 3}, value=5, cash=6, ships={2: 1})
    strat = Scripted(
        propose_merger=per_seat({0: 1}, default=-1),
        consent_merger=lambda obs, legal: np.array([not (refuse and int(x) == 1) for x in obs.seat]),
    )
    merger_step(s, r, agents(r, s, strat), ON)
    assert sorted(x for _, seats in strat.asked("consent_merger") for x in seats) == [0, 1, 2]  # not seat 3
    if refuse:
        assert s.firm_manager[0].tolist() == [0, 2, -1, -1]
        return
    assert s.firm_manager[0].tolist() == [-1, 2, -1, -1]
    assert s.firm_shares[0, 1].tolist() == [3, 4, 3, 0] and s.firm_value[0, 1] == 5
    assert s.firm_cash[0, 1] == 10 and s.firm_ships[0, 1].tolist() == [1, 0, 1, 0]
    assert s.firm_shares[0, 0].sum() == 0 and s.firm_value[0, 0] == 0 and s.tally[0, TALLY["firm_mergers"]] == 1
    relatives_ok(r, s)


@pytest.mark.parametrize("variant", VARIANTS)
def test_firms_of_equal_value_merge_into_the_proposers(variant):
    """L104 (2e "合併"; ``firms.merge_plan``): the firm of the higher value survives, and of two firms of equal value
    the proposer's. Seat 2's firm (slot 1, value 4) proposes to merge with seat 0's (slot 0, value 4): slot 1
    survives, managed by seat 2, with both treasuries and all the shareholders; seat 0 is left without a firm.
    Keeping the other firm on a tie (a strict ``>``), or the lower slot, would keep seat 0's."""
    r, s = firm_rules(variant)
    make_firm(s, 0, 0, {0: 2, 1: 1}, value=4, cash=3)
    make_firm(s, 1, 2, {2: 2, 3: 1}, value=4, cash=5)
    strat = Scripted(
        propose_merger=per_seat({2: 0}, default=-1),
        consent_merger=lambda obs, legal: np.ones(obs.n, dtype=bool),
    )
    merger_step(s, r, agents(r, s, strat), ON)
    assert s.firm_manager[0].tolist() == [-1, 2, -1, -1]
    assert s.firm_shares[0, 1].tolist() == [2, 1, 2, 1] and s.firm_value[0, 1] == 4 and s.firm_cash[0, 1] == 8
    assert s.firm_shares[0, 0].sum() == 0 and s.tally[0, TALLY["firm_mergers"]] == 1
    relatives_ok(r, s)


@pytest.mark.parametrize(("consents", "dissolved"), [((True, True), True), ((True, False), False)])
def test_jc2e_a_firm_is_dissolved_with_every_shareholders_consent(consents, dissolved):
    """Seed 002 "解散商行": the manager proposes, every shareholder consents, the firm is dissolved by the
    dissolution rules: its shareholders go to debtors' prison. One refusal keeps it."""
    r, s = firm_rules("jc2e")
    make_firm(s, 0, 0, {0: 1, 2: 2}, cash=3)
    strat = Scripted(
        open_firm=const(0),
        invest_in_firms=lambda obs, legal: (legal.firms * 0, legal.firms * 0),
        propose_merger=const(-1),
        take_over_firm=const(-1),
        dissolve_firm=const(True),
        consent_dissolution=per_seat({0: consents[0], 2: consents[1]}, default=False),
        firm_strategy=const(-1, 0),
    )
    firms(s, r, dice(), agents(r, s, strat))
    assert sorted(x for _, seats in strat.asked("consent_dissolution") for x in seats) == [0, 2]
    assert (s.firm_manager[0, 0] == -1) == dissolved
    assert s.prisoners[0].tolist() == ([1, 0, 2, 0] if dissolved else [0, 0, 0, 0])
    relatives_ok(r, s)


def test_house_firms_are_not_dissolved_at_will():
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 1})
    strat = Scripted(dissolve_firm=const(True), firm_strategy=const(-1, 0))
    firms(s, r, dice(), agents(r, s, strat))
    assert not strat.asked("dissolve_firm") and s.firm_manager[0, 0] == 0


# ----------------------------------------------------------------------------------------------------- ships
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("subsidy", [False, True])
def test_ships_are_built_at_a_consenting_familys_shipyard(variant, subsidy):
    """L105: 3 £ each (Ship Subsidy: 2) to the bank; seat 1 consents, seat 2 refuses, the manager's own yard needs
    no consent. The yard owners then earn 1 £ a round per ship (L78), and the Shipping Manager finds no free yard."""
    r, s = firm_rules(variant)
    if subsidy:
        s.law_pile[:, r.d.law_names.index("Ship Subsidy")] = laws.IN_FORCE
    make_firm(s, 0, 0, {0: 1}, cash=10)
    s.shipyards[0, :3] = 1
    strat = Scripted(
        firm_ships=lambda obs, legal: (np.array([[1, 1, 1, 0]]), legal.sound * 0, legal.damaged * 0),
        consent_yard=lambda obs, legal: np.array([[int(x) == 1] * 4 for x in obs.seat]),
    )
    ships_step(s, r, agents(r, s, strat), ON)
    cost = 2 if subsidy else 3
    assert s.firm_ships[0, 0].tolist() == [1, 1, 0, 0] and s.firm_cash[0, 0] == 10 - 2 * cost
    assert s.ledger[0, FLOW["firm_ships"]] == -2 * cost and s.tally[0, TALLY["firm_ships_built"]] == 2
    assert sorted(x for _, seats in strat.asked("consent_yard") for x in seats) == [1, 2]
    before = s.money[0].copy()
    family_income(s, r)
    assert (s.money[0] - before).tolist() == [1, 1, 0, 0]
    assert fr.free_yards(s)[0].tolist() == [0, 0, 1, 0]
    seat_office(s, L.SHIPPING, 3)
    s.treasury[0, L.T_SHIPPING] = 3
    yard = np.zeros((4, 3), dtype=int)
    yard[0, 0] = 1  # seat 0's yard holds the firm's ship: illegal for the Shipping Manager
    with pytest.raises(IllegalDecision, match="buy_ships"):
        shipping_manager(s, r, dice(), agents(r, s, Scripted(buy_ships=const([0, 0, 0], [0, 0, 0], yard))))


def test_a_shipyard_taxed_away_takes_the_firm_ship_it_holds_damaged_first():
    """A policy tax (phase 9) costs seat 1 one of its two shipyards, both holding ships of seat 0's firm: one ship
    leaves with it, the damaged one first."""
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 1}, ships={1: 2}, damaged={1: 1})
    lost = np.array([[0, 1, 0, 0]])
    laws.lose_assets(s, r, np.array([laws.SHIPYARDS]), lost)
    assert s.shipyards[0, 1] == 1 and s.firm_ships[0, 0, 1] == 1 and s.firm_damaged[0, 0, 1] == 0


def test_a_firm_cannot_afford_more_ships_than_its_treasury():
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 1}, cash=5)
    s.shipyards[0, 0] = 2
    strat = Scripted(firm_ships=lambda obs, legal: (np.array([[2, 0, 0, 0]]), legal.sound * 0, legal.damaged * 0))
    with pytest.raises(IllegalDecision, match="firm_ships"):
        ships_step(s, r, agents(r, s, strat), ON)


def test_jc2e_buys_back_family_yard_ships_from_the_company():
    """Seed 002 "購回玩家所有的船隻": 3 £ a sound ship, 2 £ a damaged one, into the Shipping Manager's treasury,
    with the yard owner's consent; the ships stay at his yard, now the firm's, the damaged one still damaged."""
    r, s = firm_rules("jc2e")
    make_firm(s, 0, 0, {0: 1}, cash=6)
    s.shipyards[0, 1] = 2
    s.yard_ships[0, 1, 0] = 2
    s.yard_damaged[0, 1, 0] = 1

    def ships(obs, legal):
        assert legal.buyback.all() and legal.sound[0, 1, 0] == 1 and legal.damaged[0, 1, 0] == 1
        sound, damaged = np.zeros_like(legal.sound), np.zeros_like(legal.damaged)
        sound[0, 1, 0] = damaged[0, 1, 0] = 1
        return np.zeros((1, 4), dtype=int), sound, damaged

    ships_step(s, r, agents(r, s, Scripted(firm_ships=ships, consent_yard=const([True] * 4))), ON)
    assert s.yard_ships[0, 1].sum() == 0 and s.yard_damaged[0, 1].sum() == 0
    assert s.firm_ships[0, 0, 1] == 2 and s.firm_damaged[0, 0, 1] == 1
    assert s.firm_cash[0, 0] == 1 and s.treasury[0, L.T_SHIPPING] == 3 + 5
    assert s.tally[0, TALLY["firm_ships_built"]] == 2  # "built and bought back from the Company" (state.TALLIES)
    relatives_ok(r, s)


def test_house_firms_do_not_buy_ships_back():
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 1}, cash=6)
    s.shipyards[0, :2] = 1  # seat 0's yard is free: the manager is asked
    s.yard_ships[0, 1, 0] = 1

    def ships(obs, legal):
        sound = np.zeros((1, 4, 4), dtype=int)
        sound[0, 1, 0] = 1
        return np.zeros((1, 4), dtype=int), sound, sound * 0

    with pytest.raises(IllegalDecision, match="firm_ships"):
        ships_step(s, r, agents(r, s, Scripted(firm_ships=ships)), ON)


# ---------------------------------------------------------------------------------------- sealed strategy
def test_the_sealed_strategy_is_hidden_until_the_initiative_roll():
    """L106, L154: a port and a bid, written once every manager chose, not public; the roll reveals the port (the
    ships sail there) and takes the bid to the bank (its dice: successes 1-2 counted)."""
    from sim.agents import PUBLIC

    assert "firm_port" not in PUBLIC and "firm_bid" not in PUBLIC
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 1}, cash=6, ships={0: 1})
    make_firm(s, 1, 1, {1: 1}, cash=6, ships={1: 1})
    seen = []

    def strategy(obs, legal):
        seen.append(int(s.firm_port[0, 0]))  # what the engine holds while the second manager decides
        return np.array([2 - int(obs.seat[0])]), np.array([3])

    strategy_step(s, r, agents(r, s, Scripted(firm_strategy=strategy)), ON)
    assert seen == [-1, -1] and s.firm_port[0, :2].tolist() == [2, 1] and s.firm_bid[0, :2].tolist() == [3, 3]
    d = dice({0: [1, 2, 5, 3, 4, 6]})  # firm 0: 1, 2, 5 (two successes); firm 1: 3, 4, 6 (none)
    trade_initiative(s, r, d, agents(r, s))
    d.assert_spent()
    assert s.firm_successes[0, :2].tolist() == [2, 0] and s.firm_sea[0, :2].tolist() == [2, 1]
    assert s.firm_cash[0, :2].tolist() == [3, 3] and s.ledger[0, FLOW["firm_trade_spend"]] == -6
    with pytest.raises(IllegalDecision, match="firm_strategy"):  # more than the treasury
        strategy_step(s, r, agents(r, s, Scripted(firm_strategy=const(0, 4))), ON)


def test_a_bid_of_one_pound_rolls_one_die():
    """L154: the bid is the number of dice, so the smallest bid, 1 £, still rolls one (a success on a 2, the band's
    edge: ``check.success_max``) and the firm's ship sails to its port; a firm bidding nothing stays."""
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 1}, cash=3, ships={0: 1})
    make_firm(s, 1, 1, {1: 1}, cash=3, ships={1: 1})
    s.firm_port[0, :2] = [1, 2]
    s.firm_bid[0, :2] = [1, 0]
    d = dice({0: [2]})
    trade_initiative(s, r, d, agents(r, s))
    d.assert_spent()
    assert s.firm_successes[0, :2].tolist() == [1, -1] and s.firm_sea[0, 0] == 1  # -1: did not roll
    assert s.firm_cash[0, :2].tolist() == [2, 3] and s.ledger[0, FLOW["firm_trade_spend"]] == -1


# ------------------------------------------------------------------------------------ initiative and fills
def two_firms_at_bombay(reading):
    """Firm 0 (seat 0): 1 ship, 2 successes; firm 1 (seat 1): 3 ships, 1 success; both trade from Bombay."""
    r, s = firm_rules("house", **{"firms.initiative": reading})
    make_firm(s, 0, 0, {0: 1}, cash=0, ships={0: 1})
    make_firm(s, 1, 1, {1: 1}, cash=0, ships={1: 3})
    s.firm_port[0, :2] = 0
    s.firm_successes[0, :2] = [2, 1]
    return r, s


@pytest.mark.parametrize(
    ("reading", "first"),
    [("ships_minus_successes", 0), ("successes_minus_ships", 1), ("variant", 1)],  # house's own: successes - ships
)
def test_the_initiative_orders_the_fills_and_the_second_filler_gets_half(reading, first):
    """D-INITIATIVE: ships - successes gives firm 0 -1 and firm 1 2 (firm 0 first); successes - ships gives 1 and
    -2 (firm 1 first). Both fill Bombay3 (4 £, half 2): the first gets 4, the second 2 (L181)."""
    r, s = two_firms_at_bombay(reading)
    bombay3 = r.d.orders.index("Bombay3")
    order = np.zeros((1, len(r.d.orders)), dtype=bool)
    order[0, bombay3] = True
    strat = Scripted(firm_trade=const(order[0]))
    none = np.zeros(1, dtype=bool)
    trade_in_turn(s, r, agents(r, s, strat), 0, none, np.zeros(1, dtype=int), order * False, no_fill)
    assert [seats for _, seats in strat.asked("firm_trade")] == [[first], [1 - first]]
    cash = [4, 2] if first == 0 else [2, 4]
    assert s.firm_cash[0, :2].tolist() == cash and s.firm_filled[0, bombay3]
    assert s.tally[0, TALLY["firm_revenue"]] == 6 and s.tally[0, TALLY["firm_orders_filled"]] == 2


def test_jc2e_reading_is_ships_minus_successes():
    r, _ = firm_rules("jc2e")
    assert fr.initiative(r, np.array([1, 3]), np.array([2, 1])).tolist() == [-1, 2]
    r, _ = firm_rules("house")
    assert fr.initiative(r, np.array([1, 3]), np.array([2, 1])).tolist() == [1, -2]


def test_a_tie_is_ordered_by_the_chairman_when_no_president_trades():
    """L154: equal initiative: the President decides, without him the Chairman (here he puts firm 1 first)."""
    r, s = two_firms_at_bombay("ships_minus_successes")
    s.firm_successes[0, :2] = [1, 3]  # both 0
    seat_office(s, L.CHAIRMAN, 3)
    strat = Scripted(order_traders=const([1, 0, 2, 3, 4]), firm_trade=const(np.zeros(len(r.d.orders), bool)))
    trade_in_turn(s, r, agents(r, s, strat), 0, np.zeros(1, bool), np.zeros(1, int), NO_ORDERS(r), no_fill)
    assert [seats for _, seats in strat.asked("order_traders")] == [[3]]
    assert [seats for _, seats in strat.asked("firm_trade")] == [[1], [0]]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_firm_fills_at_most_its_ships_house_or_ships_plus_one_jc2e(variant):
    r, s = firm_rules(variant)
    make_firm(s, 0, 0, {0: 1}, cash=0, ships={0: 1})
    s.firm_port[0, 0], s.firm_successes[0, 0] = 0, 1
    two = np.zeros(len(r.d.orders), dtype=bool)
    two[[r.d.orders.index("Bombay3"), r.d.orders.index("Bombay1")]] = True
    go = agents(r, s, Scripted(firm_trade=const(two)))
    if variant == "house":
        with pytest.raises(IllegalDecision, match="firm_trade"):
            trade_in_turn(s, r, go, 0, np.zeros(1, bool), np.zeros(1, int), NO_ORDERS(r), no_fill)
    else:
        trade_in_turn(s, r, go, 0, np.zeros(1, bool), np.zeros(1, int), NO_ORDERS(r), no_fill)
        assert s.firm_india[0, 0] == 4 + 3 and s.firm_cash[0, 0] == 0  # jc2e: revenue to the India treasury


def test_a_firm_fills_an_order_the_company_filled_for_half():
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 1}, cash=0, ships={0: 1})
    s.firm_port[0, 0], s.firm_successes[0, 0] = 0, 1
    bombay3 = r.d.orders.index("Bombay3")
    s.order_filled[0, bombay3] = True
    order = np.zeros(len(r.d.orders), dtype=bool)
    order[bombay3] = True
    trade_in_turn(s, r, agents(r, s, Scripted(firm_trade=const(order))), 0, np.zeros(1, bool), np.zeros(1, int),
                  NO_ORDERS(r), no_fill)  # fmt: skip
    assert s.firm_cash[0, 0] == 2 and s.firm_value[0, 0] == 1


@pytest.mark.parametrize(("refill", "company"), [("half", 2), ("full", 4), ("never", 0)])
def test_the_company_fills_after_a_firm_for_half(refill, company):
    """The President of Bombay (4 leased ships, 2 £ of dice: faces 1 and 4, one success) and a firm (1 ship, two
    successes) both want Bombay3. Ships - successes: the firm -1 goes before the Company 3 and gets 4 £; the
    Company then gets half (2e), the full value, or nothing (``firms.company_refill``)."""
    r, s = firm_rules("house", **{"firms.initiative": "ships_minus_successes", "firms.company_refill": refill})
    make_firm(s, 0, 0, {0: 1}, cash=0, ships={0: 1})
    s.firm_port[0, 0], s.firm_successes[0, 0] = 0, 2
    seat_office(s, L.PRESIDENT[0], 2)
    s.ships[0, 0, L.LEASED] = 4  # (3 £ in his treasury at the start)
    bombay3 = r.d.orders.index("Bombay3")
    order = np.zeros(len(r.d.orders), dtype=bool)
    order[bombay3] = True
    strat = Scripted(trade=const(2, order, [0, 0, 0, 0]), firm_trade=const(order))
    d = dice({0: [1, 4]})  # every President's die is rolled when a firm trades at his port
    presidents(s, r, d, agents(r, s, strat))
    d.assert_spent()
    assert d.rolls("d6") == [2] and d.rolls("lowest") == []
    assert s.firm_cash[0, 0] == 4 and s.balance[0] == company
    assert s.money[0, 2] == (0 if refill == "never" else 1)  # the President's 1 £ per order filled
    relatives_ok(r, s)


def test_without_firms_the_president_rolls_the_lowest_die_as_before():
    r, s = firm_rules("house")
    seat_office(s, L.PRESIDENT[0], 2)
    s.ships[0, 0, L.LEASED] = 1
    order = np.zeros(len(r.d.orders), dtype=bool)
    order[r.d.orders.index("Bombay3")] = True
    d = dice({0: [4, 2]})
    presidents(s, r, d, agents(r, s, Scripted(trade=const(2, order, [0, 0, 0, 0]))))
    assert d.rolls("lowest") == [2] and d.rolls("d6") == [] and s.balance[0] == 4


def test_the_presidents_check_counts_his_successes_where_firms_trade_at_his_port():
    """L181, D-CHECK: where firms trade at his port the President rolls every die and each face up to
    ``check.success_max`` (2) is a success of his initiative: 2, 1, 5 -> two. Elsewhere he rolls the lowest die only
    and counts none; a 2 there is still a success of the check."""
    r, _ = firm_rules("house", games=2)
    d = dice({0: [2, 1, 5], 1: [4, 2, 6]})
    won, mishap, successes = president_check(r, d, np.array([0, 1]), np.array([3, 3]), 2, np.array([True, False]))
    d.assert_spent()
    assert d.rolls("d6") == [3] and d.rolls("lowest") == [3]  # the dice rolled each way
    assert won.tolist() == [True, True] and successes.tolist() == [2, 0] and mishap.size == 0


# ----------------------------------------------------------------------------------------------- phase 7.1
def test_costs_are_a_pound_per_ship_and_the_larger_of_shares_and_value():
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 2, 1: 1}, value=2, ships={0: 2})
    make_firm(s, 1, 1, {1: 1}, value=4, ships={1: 1})
    assert fr.costs_due(s, r)[0].tolist() == [2 + 3, 1 + 4, 0, 0]


@pytest.mark.parametrize("variant", VARIANTS)
def test_an_emergency_investment_pays_the_costs_costs_a_value_and_the_rest_burns(variant):
    """L194: costs 1 ship + max(2 shares, value 3) = 4 with 1 £: short 3. The manager (seat 0, asked first) does not
    invest; seat 1 puts in a factory, the manager consents: 5 £, 3 pay the costs, 2 burn, value 3 -> 2, seat 1 a
    second shareholder."""
    r, s = firm_rules(variant)
    make_firm(s, 0, 0, {0: 1, 1: 1}, value=3, cash=1, ships={0: 1})
    s.factories[0, :2] = 1
    strat = Scripted(emergency_invest=per_seat({1: fr.FACTORY}), consent_investment=const([True] * 4))
    firm_accounts(s, r, dice(), agents(r, s, strat))
    assert [seats for _, seats in strat.asked("emergency_invest")] == [[0], [1]]
    assert s.firm_manager[0, 0] == 0 and s.firm_value[0, 0] == 2 and s.firm_shares[0, 0].tolist() == [1, 2, 0, 0]
    assert s.firm_cash[0, 0] == 0 and s.factories[0].tolist() == [1, 0, 0, 0]
    assert s.ledger[0, FLOW["firm_emergency"]] == 5 and s.ledger[0, FLOW["firm_costs"]] == -4
    assert s.ledger[0, FLOW["firm_emergency_burned"]] == -2 and s.tally[0, TALLY["emergency_investments"]] == 1
    relatives_ok(r, s)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_firm_that_cannot_pay_goes_bankrupt_and_its_shareholders_to_debtors_prison(variant):
    """L195: nobody invests: seat 0's 2 and seat 1's shareholder go to prison (-1 VP each at the end), the ship
    leaves seat 1's yard, the money is lost, seat 0 manages no firm."""
    r, s = firm_rules(variant)
    make_firm(s, 0, 0, {0: 2, 1: 1}, cash=1, ships={1: 1})
    s.factories[0, 2] = 1
    firm_accounts(s, r, dice(), agents(r, s, Scripted(emergency_invest=const(0))))
    assert s.prisoners[0].tolist() == [2, 1, 0, 0] and s.firm_manager[0, 0] == -1
    assert s.firm_shares[0].sum() == 0 and fr.free_yards(s)[0, 1] == 1 and s.tally[0, TALLY["bankruptcies"]] == 1
    assert s.ledger[0, FLOW["firm_costs"]] == -1
    relatives_ok(r, s)
    s.done[:] = True
    score(s, r)
    assert s.vp[0, :, L.VP_SOURCES.index("debtors_prison")].tolist() == [-2, -1, 0, 0]


def test_jc2e_a_failing_firm_is_rescued_by_an_emergency_merger():
    """Seed 002 "緊急合併": firm 0 (seat 0, value 2) is 3 £ short; firm 1 (seat 2, value 4, 20 £) pays its own costs
    and the shortfall and absorbs it (the higher value survives), with everyone's consent: no prison."""
    r, s = firm_rules("jc2e")
    make_firm(s, 0, 0, {0: 2}, value=2, cash=0, ships={0: 1})  # costs 1 + 2 = 3
    make_firm(s, 1, 2, {2: 1}, value=4, cash=20, ships={2: 1})  # costs 1 + 4 = 5
    strat = Scripted(emergency_invest=const(0), rescue_firm=const(True), consent_merger=const(True))
    s.firm_successes[0, :2] = [0, -1]  # firm 0 settles first
    firm_accounts(s, r, dice(), agents(r, s, strat))
    assert s.prisoners[0].sum() == 0 and s.firm_manager[0].tolist() == [-1, 2, -1, -1]
    assert s.firm_shares[0, 1].tolist() == [2, 0, 1, 0] and s.firm_cash[0, 1] + s.firm_india[0, 1] == 20 - 8
    assert s.ledger[0, FLOW["firm_costs"]] == -8


def test_jc2e_a_rescuer_with_exactly_its_costs_and_the_shortfall_may_rescue():
    """Seed 002 "緊急合併": the rescuer must pay its own costs and the shortfall: firm 1 holds exactly 5 + 3 = 8 £,
    enough; it is asked, absorbs firm 0 and is left with nothing."""
    r, s = firm_rules("jc2e")
    make_firm(s, 0, 0, {0: 2}, value=2, cash=0, ships={0: 1})  # costs 1 + 2 = 3
    make_firm(s, 1, 2, {2: 1}, value=4, cash=8, ships={2: 1})  # costs 1 + 4 = 5
    strat = Scripted(emergency_invest=const(0), rescue_firm=const(True), consent_merger=const(True))
    s.firm_successes[0, :2] = [0, -1]
    firm_accounts(s, r, dice(), agents(r, s, strat))
    assert [seats for _, seats in strat.asked("rescue_firm")] == [[2]]
    assert s.prisoners[0].sum() == 0 and s.firm_manager[0].tolist() == [-1, 2, -1, -1]
    assert s.firm_cash[0, 1] + s.firm_india[0, 1] == 0 and s.ledger[0, FLOW["firm_costs"]] == -8


def test_house_has_no_emergency_merger():
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 2}, value=2, cash=0, ships={0: 1})
    make_firm(s, 1, 2, {2: 1}, value=4, cash=20, ships={2: 1})
    strat = Scripted(emergency_invest=const(0), rescue_firm=const(True), consent_merger=const(True))
    s.firm_successes[0, :2] = [0, -1]
    firm_accounts(s, r, dice(), agents(r, s, strat))
    assert not strat.asked("rescue_firm") and s.prisoners[0, 0] == 2


# ------------------------------------------------------------------------------------------------- dividends
@pytest.mark.parametrize(("waive", "payouts", "paid"), [(0, 2, [6, 6]), (2, 3, [9, 3])])
def test_house_dividends_pay_shares_plus_one_per_payout(waive, payouts, paid):
    """L196: seat 0 manages (2 shares), seat 1 holds 3: a payout is 6 £; 2 payouts of 14 £: seat 0 gets 2 x 2 + 2,
    seat 1 gets 6; the level is 12. A shareholder may waive without consent: seat 1 waives 2, a payout is 4 £, 3 of
    them: seat 0 9 £, seat 1 3 £."""
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 2, 1: 3}, cash=14)
    s.firm_successes[0, 0] = 1  # it traded this round
    seen = {}

    def pay(obs, legal):
        seen["legal"] = (int(legal.per_payout[0]), int(legal.max_payouts[0]))
        return legal.max_payouts

    def waive_dividends(obs, legal):
        seen.setdefault("before", []).append(int(legal.per_payout[0, 0]))  # a payout before any waiver: 2 + 3 + 1
        return np.array([[waive if int(x) == 1 else 0, 0, 0, 0] for x in obs.seat]), np.zeros((obs.n, 4), dtype=bool)

    strat = Scripted(waive_dividends=waive_dividends, firm_dividends=pay)
    dividends(s, r, agents(r, s, strat), ON)
    assert seen["before"] == [6, 6]  # told to each shareholder, seat 0 then seat 1
    assert seen["legal"] == (6 - waive, payouts) and s.money[0, :2].tolist() == paid
    assert s.firm_dividend[0, 0] == sum(paid) and s.tally[0, TALLY["firm_dividends"]] == sum(paid)
    assert not strat.asked("consent_waivers")
    relatives_ok(r, s)


@pytest.mark.parametrize(
    ("waiver", "consent", "paid", "asked"),
    [(0, True, [4, 4], False), (1, True, [6, 2], True), (1, False, [3, 2], True)],
)
def test_jc2e_selective_dividends_the_seeds_example(waiver, consent, paid, asked):
    """Seed 002 "選擇性股利": blue (seat 0) manages with 2 shares, yellow (seat 1) holds 2, 8 £ in India: a payout is
    5 £. Blue waives one of his shares (his own, no consent asked): 4 £ a payout, two payouts, 4 £ each (the seed's
    numbers). Yellow waiving one with the manager's consent: two payouts, blue 6, yellow 2; refused: one payout of 5
    (blue 3, yellow 2). Dividends come from India only; its rest moves to London."""
    r, s = firm_rules("jc2e")
    make_firm(s, 0, 0, {0: 2, 1: 2}, cash=7, india=8)
    s.firm_port[0, 0], s.firm_successes[0, 0] = 0, 1
    strat = Scripted(
        waive_dividends=lambda obs, legal: (
            np.array([[1 if int(x) == waiver else 0, 0, 0, 0] for x in obs.seat]),
            np.zeros((obs.n, 4), dtype=bool),
        ),
        consent_waivers=lambda obs, legal: np.full((obs.n, 4), consent),
        firm_dividends=lambda obs, legal: legal.max_payouts,
    )
    dividends(s, r, agents(r, s, strat), ON)
    assert [seats for _, seats in strat.asked("consent_waivers")] == ([[0]] if asked else [])
    assert s.money[0, :2].tolist() == paid
    assert s.firm_india[0, 0] == 0 and s.firm_cash[0, 0] == 7 + 8 - sum(paid)
    relatives_ok(r, s)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_firm_that_does_not_trade_keeps_its_dividend_level(variant):
    """L198 / 2e Hobnob: no trade this round (port -1): the level stays (jc2e: and it pays no dividend); a firm
    that traded and paid nothing falls to 0."""
    r, s = firm_rules(variant)
    make_firm(s, 0, 0, {0: 1}, cash=0, india=0)
    make_firm(s, 1, 1, {1: 1}, cash=0)
    s.firm_dividend[0, :2] = 9
    s.ledger[0, FLOW["firm_investment"]] += 6
    (s.firm_india if variant == "jc2e" else s.firm_cash)[0, 0] = 6
    s.firm_port[0, :2] = [-1, 0]
    s.firm_successes[0, :2] = [-1, 0]
    strat = Scripted(firm_dividends=const(0))
    dividends(s, r, agents(r, s, strat), ON)
    assert s.firm_dividend[0, :2].tolist() == [9, 0]
    assert bool(strat.asked("firm_dividends")) == (variant == "house")
    # a firm without money pays nothing, so nobody waives its dividend (firm 1's manager is not asked)
    assert [seats for _, seats in strat.asked("waive_dividends")] == ([[0]] if variant == "house" else [])


# --------------------------------------------------------------------------------------- special retirements
@pytest.mark.parametrize("variant", VARIANTS)
def test_a_shareholder_of_a_paying_firm_takes_a_special_retirement_and_a_position(variant):
    """L197: seat 1 holds a share of a firm whose last dividend was 8 £: in the London season it may retire a
    relative from home into a tier costing at most 8 (2, 4, 8 £; not 14 or 20), pays it, and so may take a
    position (L72). Seat 2 (no share) and seat 3 (a share of a firm with level 0) are not asked."""
    r, s = firm_rules(variant)
    s.round[:] = 3
    make_firm(s, 0, 0, {1: 1}, cash=0)
    make_firm(s, 1, 3, {3: 1}, cash=0)
    s.firm_dividend[0, 0] = 8
    for seat in (1, 2, 3):
        fund(s, seat, 30)
    pos.refill_market(s, r, ON)
    seen = []

    def retire(obs, legal):
        seen.append((obs.seat.tolist(), legal.special.tolist(), legal.affordable[0].tolist()))
        return np.array([2])

    strat = Scripted(retire=retire, take_position=const(0))
    london_season(s, r, dice(), agents(r, s, strat))
    assert seen == [([1], [True], [True, True, True, False, False])]
    assert s.retired[0, 1].tolist() == [0, 0, 1, 0, 0] and s.money[0, 1] == 22 and s.supply[0, 1] == 10
    assert [seats for _, seats in strat.asked("take_position")] == [[1]]
    assert s.tally[0, TALLY["special_retirements"]] == 1
    relatives_ok(r, s)


@pytest.mark.parametrize("crashed", [True, False])
def test_firms_allow_a_final_special_retirement_crash_or_success(crashed):
    """L257 (2e "最後計分時的商行"): at the end every shareholder family of a firm with a dividend level retires
    one relative from home (no position), crash or success; it scores its tier's VP."""
    r, s = firm_rules("house")
    s.round[:] = 7
    make_firm(s, 0, 0, {1: 1}, cash=0)
    s.firm_dividend[0, 0] = 14
    fund(s, 1, 20)
    if crashed:
        s.crashed[:], s.done[:], s.stability[:] = True, True, 0
    strat = Scripted(retire=const(3))
    d = dice(uniforms={0: [0.99, 0.0]})  # blame situation (last) and the winner's tie-break
    end_game(s, r, d, agents(r, s, strat))
    assert [seats for _, seats in strat.asked("retire")] == [[1]]
    assert s.retired[0, 1, 3] == 1 and s.vp[0, 1, L.VP_SOURCES.index("retirements")] == r.d.tier_vp[3]


def test_the_roll_reading_gives_shareholders_the_final_retirement_roll_on_a_crash():
    """``firms.final_retirement = "roll"``: on a crash the office holders of shareholder families of a paying firm
    roll as on a success (L256): seat 1's Director of Trade rolls 5 and retires; seat 2's Chairman does not roll."""
    r, s = firm_rules("house", **{"firms.final_retirement": "roll"})
    make_firm(s, 0, 0, {1: 1}, cash=0)
    s.firm_dividend[0, 0] = 4
    seat_office(s, L.DIRECTOR, 1)
    seat_office(s, L.CHAIRMAN, 2)
    s.crashed[:], s.done[:], s.stability[:] = True, True, 0
    d = dice({0: [5]}, {0: [0.0, 0.0]})
    end_game(s, r, d, agents(r, s, Scripted(retire=const(-1))))
    d.assert_spent()
    assert s.office[0, L.DIRECTOR] == -1 and s.office[0, L.CHAIRMAN] == 2


# ------------------------------------------------------------------------------------------------------ storms
@pytest.mark.parametrize(("storms", "faces", "ships", "damaged"), [(True, [1, 3], 2, 2), (True, [5, 2], 1, 0),
                                                                   (False, [], 2, 1)])  # fmt: skip
def test_firm_ships_are_family_yard_ships_for_storms(storms, faces, ships, damaged):
    """``firms.storms`` (2e: family-yard ships roll): two ships (one damaged) of a firm sailing in Bombay's sea roll
    after the Company's, the damaged first: 1 nothing, 3 damaged; 5 sinks the damaged one, 2 nothing."""
    from sim.phases.india import storm

    r, s = firm_rules("house", **{"firms.storms": storms})
    make_firm(s, 0, 0, {0: 1}, cash=0, ships={1: 2}, damaged={1: 1})
    s.firm_sea[0, 0] = 0
    d = dice({0: [2, *faces]})  # the storm die: 2 = Bombay's sea (the seed's table)
    storm(s, r, d, np.array([0]))
    d.assert_spent()
    assert s.firm_ships[0, 0, 1] == ships and s.firm_damaged[0, 0, 1] == damaged


# --------------------------------------------------------------------------------------------- whole games
def test_a_full_game_where_a_firm_opens_trades_pays_dividends_and_scores():
    """Balanced play (with two run_firm families: balanced rarely opens a firm) and Deregulation forced in
    round 2: some game has a firm that opened, filled orders, paid dividends and whose shareholders score firm VP at
    the end, and the frames agree with the rules."""
    import polars as pl

    import sim

    rules = sim.Rules.default(5).with_overrides({"deregulation.forced_round": 2})
    res = sim.play(rules, ["run_firm", "balanced", "run_firm", "balanced", "balanced"], 300, seed=7)
    per_game = res.rounds.group_by("game").agg(
        pl.col("firms_opened").sum(), pl.col("firm_orders_filled").sum(), pl.col("firm_dividends").sum()
    )
    scored = res.seats.group_by("game").agg((pl.col("vp_firm_shares") != 0).any().alias("scored"))
    full = per_game.join(scored, on="game").filter(
        (pl.col("firms_opened") > 0) & (pl.col("firm_orders_filled") > 0) & (pl.col("firm_dividends") > 0)
        & pl.col("scored")
    )  # fmt: skip
    assert full.height > 0
    seats = res.seats
    assert ((seats["firm_shares"] == 0) | seats["vp_firm_shares"].is_not_null()).all()
    assert (seats.filter(pl.col("firm_shares") == 0)["vp_firm_shares"] == 0).all()  # only shares score
    assert (seats["vp_debtors_prison"] == -seats["prisoners"]).all() or (res.games["blame"] == "industrialists").any()
    sr = res.seat_rounds
    assert (sr["firms_managed"] <= 1).all() and sr["firm_shares"].max() > 0
    assert (res.rounds["firms_open"] <= 5).all() and res.rounds["firm_value"].max() > 0


def test_same_dice_without_firms():
    """A game where Deregulation never passes plays as if firms did not exist: with firms.variant switched the
    games that never deregulate are identical."""
    import sim

    # buy_shares opposes Deregulation, so that many of these games never deregulate
    house = sim.play(sim.Rules.default(5), "buy_shares", 200, seed=9)
    jc = sim.play(sim.Rules.default(5).with_overrides({"firms.variant": "jc2e"}), "buy_shares", 200, seed=9)
    never = house.games["deregulation_round"].is_null() & jc.games["deregulation_round"].is_null()
    assert never.sum() > 0
    a = house.seats.filter(never.gather(house.seats["game"]))
    b = jc.seats.filter(never.gather(jc.seats["game"]))
    assert a.equals(b)


# ------------------------------------------------------------------------------ the readings in whole games
def _whole_games(**over):
    """150 games of three run_firm families with Deregulation forced in round 1: the final state and the frames."""
    r = sim.Rules.default(5).with_overrides({"deregulation.forced_round": 1, **over})
    table = [strategies.make(x) for x in ["run_firm", "balanced", "run_firm", "buy_shares", "run_firm"]]
    state, rows = sim.play_batch(r, table, 3, np.arange(150))
    return state, sim.Results.from_batches([rows], {})


def test_the_l79_and_l88_readings_in_whole_games():
    """D-INVESTED-FACTORY and D-OPENING-HEALTH over whole games: factories are invested under every reading and the
    ledger and the relatives hold; taking the invested factories' votes and influence away (false) changes who wins
    some games; the "share" reading of L88, which lets a factory open a firm while the Company is weak, opens more
    firms than "any"."""
    base, base_res = _whole_games()
    novotes, novotes_res = _whole_games(**{"firms.invested_factory_votes": False})
    share, share_res = _whole_games(**{"firms.opening_requires_health": "share"})
    for state in (base, novotes, share):
        assert state.invested_factories.sum() > 0 and ledger.balanced(state).all()
        assert (state.relatives() == state.relatives()[0, 0]).all()
    assert not base_res.games["winner_seat"].equals(novotes_res.games["winner_seat"])
    assert share_res.rounds["firms_opened"].sum() > 1.5 * base_res.rounds["firms_opened"].sum()


def test_a_merged_firm_keeps_its_own_sea_even_when_it_is_sea_0():
    """L104 (2e "合併"): the survivor keeps its ships' sea; only a survivor with no sea (-1) takes the absorbed firm's.
    Game 0: the survivor sails sea 0 (Bombay's), the absorbed one sea 2: it stays 0 -- a `sea < 1` reading of "no
    sea" would take 2. Game 1: the survivor has no sea: it takes 2."""
    r, s = blank(2, 4)
    s.firm_manager[:, :2] = [0, 2]
    s.firm_sea[:, 0] = 2
    s.firm_sea[:, 1] = [0, -1]
    fr.merge(s, np.arange(2), np.array([1, 1]), np.array([0, 0]), np.zeros((2, 4), dtype=np.int64))
    assert s.firm_sea[:, 1].tolist() == [0, 2]
    assert s.firm_sea[:, 0].tolist() == [-1, -1] and s.firm_manager[:, 0].tolist() == [-1, -1]


def test_a_cleared_slot_is_a_fresh_one():
    """A firm slot emptied (bankruptcy, merger, dissolution) must look like a slot nobody ever used, so a firm later
    opened there starts clean: every firm field equals the new game's."""
    r, s = blank(1, 4)
    per_slot = [k for k in vars(s) if k.startswith("firm_") and k not in ("firm_filled", "firm_fresh")]  # [G, F, ...]
    assert len(per_slot) == 13
    fresh = {k: getattr(s, k)[0, 0].copy() for k in per_slot}
    for k in fresh:
        getattr(s, k)[0, 0] = 3
    fr.clear_slot(s, np.array([0]), np.array([0]))
    for k, v in fresh.items():
        assert (getattr(s, k)[0, 0] == v).all(), k


def test_without_a_prime_minister_firms_tied_settle_clockwise_from_seat_0():
    """Phase 7.1's order (2e "順序依照順位值"): initiative, then the manager's wealth, then clockwise from the PM's
    seat; where nobody is PM (a setup without the PM's lot), from seat 0. Managers 3 (slot 0) and 0 (slot 1), both
    without a trade and without wealth: seat 0's firm first; from a PM in seat 2, seat 3's. Counting from seat 1
    would put seat 3 first without a PM."""
    r, s = blank(1, 4)
    s.firm_manager[0, :2] = [3, 0]
    s.prime_minister[0] = -1
    assert fr.accounts_order(s, r)[0, :2].tolist() == [1, 0]
    s.prime_minister[0] = 2
    assert fr.accounts_order(s, r)[0, :2].tolist() == [0, 1]


@pytest.mark.parametrize("variant", ["house", "jc2e"])
def test_an_emergency_investment_needs_the_managers_consent_but_not_his_own(variant):
    """L194 (phase 7.1): costs 1 ship + max(2 shares, value 3) = 4 with 1 £ in the treasury. Seat 1 offers a factory
    and the manager refuses: nothing is invested and the firm cannot pay (bankrupt, its 2 shareholders to prison).
    The manager offering his own factory needs nobody's consent (the refusal answer is not even asked): 5 £ in, 4
    pay the costs, value 3 -> 2. A reading with the consent test inverted invests the refused factory and skips the
    manager's."""
    r, s = firm_rules(variant)
    make_firm(s, 0, 0, {0: 1, 1: 1}, value=3, cash=1, ships={0: 1})
    s.factories[0, :2] = 1
    offered = {}

    def refuse(obs, legal):
        offered.update(factories=legal.factories.copy(), shares=legal.shares.copy())
        return np.zeros((obs.n, obs.players), dtype=bool)

    strat = Scripted(emergency_invest=per_seat({1: fr.FACTORY}), consent_investment=refuse)
    firm_accounts(s, r, dice(), agents(r, s, strat))
    assert offered["factories"].tolist() == [[0, 1, 0, 0]] and offered["shares"].tolist() == [[0, 0, 0, 0]]
    # the documented int[G', N] (strategies/base.py consent_investment), not float64
    assert offered["factories"].dtype.kind == offered["shares"].dtype.kind == "i"
    assert s.factories[0].tolist() == [1, 1, 0, 0] and s.firm_manager[0, 0] == -1
    assert s.ledger[0, FLOW["firm_emergency"]] == 0 and s.prisoners[0, :2].tolist() == [1, 1]

    r, s = firm_rules(variant)
    make_firm(s, 0, 0, {0: 1, 1: 1}, value=3, cash=1, ships={0: 1})
    s.factories[0, :2] = 1
    strat = Scripted(emergency_invest=per_seat({0: fr.FACTORY}), consent_investment=const([False] * 4))
    firm_accounts(s, r, dice(), agents(r, s, strat))
    assert strat.asked("consent_investment") == []
    assert s.firm_manager[0, 0] == 0 and s.firm_value[0, 0] == 2 and s.firm_shares[0, 0].tolist() == [2, 1, 0, 0]
    assert s.factories[0].tolist() == [0, 1, 0, 0] and s.ledger[0, FLOW["firm_emergency"]] == 5
    relatives_ok(r, s)


def test_a_firms_trade_decision_is_told_which_firm_trades():
    """L181 (phase 7, decision ``firm_trade``): each firm's manager is told the firm (slot) whose turn it is; ships -
    successes puts firm 0 (-1) before firm 1 (2). Without the key a strategy managing two firms could not tell them
    apart."""
    r, s = two_firms_at_bombay("ships_minus_successes")
    seen = []

    def trade(obs, legal):
        seen.append((int(obs.seat[0]), int(legal.firm[0])))
        return np.zeros((obs.n, len(r.d.orders)), dtype=bool)

    go = agents(r, s, Scripted(firm_trade=trade))
    trade_in_turn(s, r, go, 0, np.zeros(1, bool), np.zeros(1, int), NO_ORDERS(r), no_fill)
    assert seen == [(0, 0), (1, 1)]


def test_firm_ships_damaged_in_a_storm_add_to_the_rounds_tally():
    """R-STORM for firm ships (2e: they are family-yard ships): a face 3-4 damages a ship. The firms' ships roll after
    the Company's, whose damage this storm already counted 2: the round's ``ships_damaged`` becomes 3 (added),
    not 1 (written over)."""
    r, s = blank(1, 4)
    make_firm(s, 0, 0, {0: 1}, ships={0: 1})
    s.firm_sea[0, 0] = 0
    s.tally[0, TALLY["ships_damaged"]] = 2
    d = dice({0: [3]})
    fr.batter_ships(s, r, d, np.array([0]), np.array([[True, False, False]]))
    d.assert_spent()
    assert s.firm_damaged[0, 0].tolist() == [1, 0, 0, 0] and s.firm_ships[0, 0].tolist() == [1, 0, 0, 0]
    assert s.tally[0, TALLY["ships_damaged"]] == 3 and s.tally[0, TALLY["ships_sunk"]] == 0


def test_an_invested_share_is_an_older_one_first():
    """R-FIRMS (seed 000 L102; house: no ban on fresh shares, seed 002 "禁投資股份" is jc2e's): seat 1 holds 3
    Company shares, 2 of them issued since the last firm phase (``firm_fresh``, public), and invests 2: the older
    share goes first, so it still holds 1 share and that one is fresh -- not 2 fresh shares of 1 held (the fresh
    count is capped at the shares left)."""
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 1})
    s.shares[0, 1] = 3
    s.supply[0, 1] -= 3
    s.firm_fresh[0, 1] = 2
    assert fr.share_assets(s, r)[0, 1] == 3  # house: every share may be invested
    made = fr.invest(s, r, np.array([0]), np.array([0]), np.array([1]), np.array([0]), np.array([2]))
    assert made.tolist() == [2] and s.firm_shares[0, 0, 1] == 2
    assert s.shares[0, 1] == 1 and s.firm_fresh[0, 1] == 1
    relatives_ok(r, s)


def test_a_firm_pays_its_costs_from_london_then_only_the_rest_from_india():
    """R-FIRMS phase 7.1 (L193; jc2e's two treasuries, ``firms.pay_costs``): costs 5 £ with 2 £ in London and 10 £
    in India: London pays 2, India the other 3 and keeps 7; nothing is unpaid. Taking ``due + from_cash`` = 7 from
    India would leave 3 and report -2 unpaid."""
    r, s = firm_rules("jc2e")
    make_firm(s, 0, 0, {0: 1}, cash=2, india=10)
    unpaid = fr.pay_costs(s, np.array([0]), np.array([0]), np.array([5]))
    assert unpaid.tolist() == [0]
    assert s.firm_cash[0, 0] == 0 and s.firm_india[0, 0] == 7 and s.ledger[0, FLOW["firm_costs"]] == -5
    relatives_ok(r, s)


def test_taking_over_a_free_firm_slot_is_refused():
    """L103 (2e hostile takeover; decision ``take_over_firm``): a family managing no firm may name only an open firm
    another family manages. Slot 0 is free, slot 1 is seat 2's firm: seat 0 naming slot 0 is refused, the check
    covering firm 0 too."""
    r, s = firm_rules("house")
    make_firm(s, 1, 2, {2: 1})
    strat = Scripted(take_over_firm=per_seat({0: 0}, default=-1))
    with pytest.raises(IllegalDecision, match=r"'take_over_firm' in game 0: not a firm another family manages$"):
        manager_step(s, r, agents(r, s, strat), ON)


def test_a_family_is_asked_to_take_over_a_firm_only_where_one_is_open():
    """L103: in game 0 seat 0 manages the only firm, so seats 1-3 are asked; game 1 has no firm at all, so nobody is
    asked there (a game's questions, and a random strategy's draws, must not depend on the other games of its
    batch)."""
    r, s = firm_rules("house", games=2)
    make_firm(s, 0, 0, {0: 1}, games=0)
    strat = Scripted(take_over_firm=const(-1))
    manager_step(s, r, agents(r, s, strat), np.ones(2, dtype=bool))
    assert strat.asked("take_over_firm") == [([0], [1]), ([0], [2]), ([0], [3])]


def test_an_emergency_investment_is_told_the_whole_pounds_the_firm_is_short():
    """L194 (phase 7.1): costs 1 ship + max(2 shares, value 3) = 4 £ with 1 £ in the treasury: the families asked
    to invest (the manager first, clockwise) are told the shortfall, 3 £, as whole pounds (int, as every £ amount
    of a decision: royal protection's and the rescue's shortfall are int64, and a strategy dividing it into a count
    of investments must get an integer, not a float64)."""
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 1, 1: 1}, value=3, cash=1, ships={0: 1})
    s.factories[0, :2] = 1
    told = []

    def invest(obs, legal):
        told.append((obs.seat.tolist(), legal.shortfall.tolist(), legal.shortfall.dtype.kind))
        return np.zeros(obs.n, dtype=np.int64)

    firm_accounts(s, r, dice(), agents(r, s, Scripted(emergency_invest=invest)))
    assert told == [([0], [3], "i"), ([1], [3], "i")]
    assert s.firm_manager[0, 0] == -1  # nobody invested: bankrupt


def test_waiving_more_dividend_shares_than_held_is_refused():
    """L196 (2e "選擇性股利"; decision ``waive_dividends``): a family may waive at most the shares it holds. Seat 1
    holds 1 share of a paying firm and waives 2: refused with the reason."""
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 1, 1: 1}, cash=6)
    s.firm_port[0, 0] = 0

    def waive(obs, legal):
        w = np.zeros(legal.shares.shape, dtype=np.int64)
        w[:, 0] = np.where(obs.seat == 1, 2, 0)
        return w, np.zeros(legal.manager.shape, dtype=bool)

    strat = Scripted(waive_dividends=waive)
    why = "waives more shares than it holds, or a manager's portion it does not have"
    with pytest.raises(IllegalDecision, match=rf"'waive_dividends' in game 0: {why}$"):
        dividends(s, r, agents(r, s, strat), ON)


def test_a_special_retirement_costing_all_the_familys_money_is_allowed():
    """L197 (2e "特殊退休"): seat 1 holds a share of a firm with dividend level 2 and has exactly 2 £, the cheapest
    tier's cost: it may retire a relative from home into it (game 0) and is left with 0 £; with 1 £ (game 1) it is not
    asked."""
    r, s = firm_rules("house", games=2)
    make_firm(s, 0, 0, {1: 1}, cash=0)
    s.firm_dividend[:, 0] = 2
    fund(s, 1, 2, games=0)
    fund(s, 1, 1, games=1)
    assert int(r.d.tier_cost.min()) == 2
    strat = Scripted(retire=const(0))
    spent = np.zeros(s.money.shape, dtype=np.int64)
    taken = special_retirements(s, r, agents(r, s, strat), np.arange(2), spent, spent.copy(), final=False)
    assert strat.asked("retire") == [([0], [1])]
    assert taken[:, 1].tolist() == [1, 0] and s.retired[:, 1, 0].tolist() == [1, 0]
    assert s.money[:, 1].tolist() == [0, 1] and s.supply[:, 1].tolist() == [10, 11]
    relatives_ok(r, s)


def test_the_firms_final_retirement_roll_is_final_and_not_phase_1s_tenure_limits():
    """L257 with ``firms.final_retirement = "roll"``: on a crash seat 1, a shareholder of a firm with dividend level
    4, rolls for its Chairman as the final retirement of L256: no position is offered (one is on display) and Tenure
    Limits (a phase-1 modifier) does not retire a Chairman whose roll is 1 + 1 = 2 (game 0); rolling 4 + 1 (game 1) he
    retires, his family told ``final`` and no pick."""
    r, s = firm_rules("house", games=2, **{"firms.final_retirement": "roll"})
    make_firm(s, 0, 0, {1: 1}, cash=0)
    s.firm_dividend[:, 0] = 4
    seat_office(s, L.CHAIRMAN, 1)
    s.law_pile[:, r.d.law_names.index("Tenure Limits")] = laws.IN_FORCE
    s.market[:, 0] = 0  # a position card on display
    s.crashed[:], s.done[:], s.stability[:] = True, True, 0
    told = []
    strat = Scripted(
        retire=lambda obs, legal: told.append((legal.final.tolist(), legal.pick.tolist())) or const(-1)(obs, legal)
    )
    d = dice({0: [1], 1: [4]}, uniforms={0: [0.0, 0.0], 1: [0.0, 0.0]})  # the rolls; blame and the winner's tie-break
    end_game(s, r, d, agents(r, s, strat))
    d.assert_spent()
    assert s.office[:, L.CHAIRMAN].tolist() == [1, -1]
    assert told == [([True], [False])]  # only game 1's family was asked


def test_only_the_manager_of_a_firm_offered_an_emergency_investment_is_asked_to_consent():
    """L194 (phase 7.1; 2e "緊急投資"): game 0's firm (seat 0, value 3, 1 £) owes 1 ship + max(2 shares, value 3) = 4;
    seat 1 offers a factory and the manager consents (``consent_investment``): 5 £ in, value 3 -> 2. Game 1 has no
    firm, so nobody there has anything to consent to: the decision is asked of seat 0 in game 0 only. A decider
    filled with +1 instead of -1 (nobody) asks seat 1 in game 1 too, spending its strategy's random draws on a
    question that does not exist."""
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
    the clockwise count two seats on skips seat 1 and makes seat 2 the manager."""
    r, s = firm_rules("house")
    make_firm(s, 0, 0, {0: 1, 3: 1})
    strat = Scripted(take_over_firm=per_seat({1: 0, 2: 0}, default=-1), approve_manager=const([True] * 4))
    manager_step(s, r, agents(r, s, strat), ON)
    assert s.firm_manager[0, 0] == 1


def test_a_special_retirement_wins_a_pick_only_with_a_card_on_display_and_no_paid_retirement_yet():
    """L197 with L72 (docs/strategies.md ``retire``: ``pick`` bool[G'] "paying now wins a position pick", what the
    balanced strategy values the best card on display for): seat 1, a shareholder of a firm with dividend level 4,
    may retire a relative from home in three games. Game 0: a card is on display but seat 1 already paid an
    honourable retirement this season (it has its pick): no new pick. Game 1: nothing on display: no pick. Game 2:
    a card on display and no retirement yet: a pick. At the end (``final``) never a pick. Either condition alone
    (``|`` for ``&``) tells the family every one of those is a pick."""
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


def test_the_firms_final_special_retirement_is_final_and_wins_no_position():
    """L257 (2e "最後計分時的商行", ``firms.final_retirement = "special"``): at the end seat 1, a shareholder of a
    firm with dividend level 14, retires a relative from home; its family is told ``final`` and that paying wins no
    position pick though a card is on display (L72 is the London season's, not the end's)."""
    r, s = firm_rules("house")
    s.round[:] = 7
    make_firm(s, 0, 0, {1: 1}, cash=0)
    s.firm_dividend[0, 0] = 14
    fund(s, 1, 20)
    s.market[:, 0] = 0  # a position card on display
    told = []

    def retire(obs, legal):
        told.append((obs.seat.tolist(), legal.special.tolist(), legal.final.tolist(), legal.pick.tolist()))
        return const(3)(obs, legal)

    d = dice(uniforms={0: [0.99, 0.0]})  # blame situation (last) and the winner's tie-break
    end_game(s, r, d, agents(r, s, Scripted(retire=retire)))
    assert told == [([1], [True], [True], [False])]
    assert s.retired[0, 1, 3] == 1


def test_a_firm_at_dividend_level_2_allows_a_final_retirement_into_the_2_pound_tier():
    """L257 (``firms.final_retirement = "special"``): a shareholder of a firm whose dividend level reaches the
    cheapest tier's cost, 2 £, retires a relative from home at the end into a tier costing at most that level: the
    2 £ tier (game 0); at level 1 (game 1) there is no tier to retire into and the family is not asked. Requiring a
    level above the cheapest cost (``>`` for ``>=``), or a tier cheaper than the level, would give game 0 nothing
    too."""
    r, s = firm_rules("house", games=2)
    assert r.d.tier_cost[0] == 2 == int(r.d.tier_cost.min())
    s.round[:] = 7
    make_firm(s, 0, 0, {1: 1}, cash=0)
    s.firm_dividend[:, 0] = [2, 1]
    fund(s, 1, 10)
    strat = Scripted(retire=const(0))
    d = dice(uniforms={0: [0.99, 0.0], 1: [0.99, 0.0]})  # per game: blame situation (last) and the winner's tie-break
    end_game(s, r, d, agents(r, s, strat))
    assert strat.asked("retire") == [([0], [1])]
    assert s.retired[:, 1, 0].tolist() == [1, 0] and s.money[:, 1].tolist() == [8, 10]


def test_the_trade_bid_is_the_fewest_dice_of_the_best_expected_gain():
    """``strategies.firms.trade_dice`` (compared die by die): the number of dice k in 1..most, k <= spare, that
    maximises P(a success among k dice) * worth - k (worth plus a value step's ``per_value`` once it reaches one),
    the fewest on a tie, 0 when no gain is positive: the argmax over the [G', most] table of gains, over random
    worths (whole and half pounds, ties included) and spares (none, negative, more than ``most``)."""
    from strategies.firms import trade_dice

    rng = np.random.default_rng(5)
    for most in (1, 3, 6):
        for per_value in (2, 6):
            worth = np.concatenate([rng.random(3000) * 20, rng.integers(0, 30, 3000) * 0.5])
            spare = rng.integers(-3, 10, worth.size)
            w = worth + np.where(worth >= per_value, per_value, 0)
            k = np.arange(1, most + 1)[None, :]
            gain = np.where(k <= spare[:, None], (1.0 - (2.0 / 3.0) ** k) * w[:, None] - k, -np.inf)
            want = np.where(gain.max(axis=1) > 0, gain.argmax(axis=1) + 1, 0)
            got = trade_dice(worth, spare, per_value, most)
            assert got.dtype == np.int64 and (got == want).all()
            assert len(np.unique(got)) >= min(most + 1, 5)  # not trivial: no bid and several bids chosen
