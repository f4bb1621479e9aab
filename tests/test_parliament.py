"""Phase 9, Parliament (R-PARLIAMENT, D-POLICY, D-LAWS; seed L222-L241) on hand-built positions: drawing and
tabling, dilemmas, the policy track (nearest policy both ways, across 13 -> 0), each policy kind, votes from
property, £ and notes, passing and failing with the change of Prime Minister and its tie, frames."""

import tomllib
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from helpers import L, Scripted, agents, blank, const, dice, fund, give

import sim
from sim import laws, ledger
from sim.agents import IllegalDecision
from sim.phases.parliament import ask_table, hold_vote, opposition_leader, parliament, property_votes
from sim.state import FLOW, TALLY

# each rule played on both engine paths, the numpy reference and the compiled kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")

LUX, SHARES, YARDS, FACT = laws.LUXURIES, laws.SHARES, laws.SHIPYARDS, laws.FACTORIES


def law(r, name):
    return r.d.law_names.index(name)


def deck(s, r, *names):
    """Put these laws on top of every game's deck in this order (the rest below in catalogue order)."""
    rank = np.arange(len(r.d.law_names), dtype=float) + 100
    for k, name in enumerate(names):
        rank[law(r, name)] = k
    s.law_pile[:] = laws.DECK
    s.law_rank[:] = rank


def votes(table):
    """A ``vote`` decision from {seat: (side, bought)} (seats not listed abstain); no notes used."""

    def answer(obs, legal):
        side = np.array([table.get(int(x), (0, 0))[0] for x in obs.seat])
        bought = np.array([table.get(int(x), (0, 0))[1] for x in obs.seat])
        return side, bought, np.zeros((obs.n, obs.players), dtype=bool)

    return answer


def table_first(side=0):
    """``table_law``: table the first candidate, policy side ``side``."""
    return lambda obs, legal: (legal.candidates.argmax(axis=1), np.full(obs.n, side))


# ------------------------------------------------------------------------------------------ the policy track
def test_nearest_policy_both_ways_from_0_for_luxury_is_12_or_3():
    """L224: a luxury law at the start (0) offers 12 (down the cycle) or 3 (up)."""
    r, _ = blank(1, 5)
    opts = laws.policy_options(r, np.array([0]), np.array([law(r, "Royal Protection")]))
    assert opts.tolist() == [[12, 3]]


@pytest.mark.parametrize(
    "position, name, expected",
    [
        (13, "Governor General", [8, 2]),  # shipyards from 13: down 8, up across 13 -> 0 to 2
        (12, "Governor General", [8, 13]),  # shipyards from 12: 13 is next, 8 below
        (1, "Calico Acts", [0, 5]),  # factories from 1: 0 just below, 5 above
        (0, "Calico Acts", [11, 5]),  # the position itself (0, factories power) does not count
        (0, "Army Spending", [13, 1]),  # a tax law: the nearest tax policies, 13 across 0 and 1
        (10, "Inclosure Acts", [9, 11]),  # a bonus law
        (4, "Board of Control", [2, 6]),  # a power law: 4 itself is power, not counted
    ],
)
def test_nearest_policy_of_the_laws_type(position, name, expected):
    r, _ = blank(1, 5)
    assert laws.policy_options(r, np.array([position]), np.array([law(r, name)])).tolist() == [expected]


def test_neighbours_of_a_failed_policy_wrap_around():
    """L241: policy 12 failed -> 11 or 13; 13 -> 12 or 0; 0 -> 13 or 1."""
    r, _ = blank(1, 5)
    assert laws.neighbours(r, np.array([12, 13, 0])).tolist() == [[11, 13], [12, 0], [13, 1]]


def test_only_match_is_the_position_itself_after_a_full_turn():
    """A law type matching only the current policy is offered that policy both ways (a full turn)."""
    r, _ = blank(1, 5, **{"parliament.policies": [{"kind": "power", "asset": "factories"}] * 13 + [
        {"kind": "tax", "asset": "shares"}]})  # fmt: skip
    opts = laws.policy_options(r, np.array([13]), np.array([law(r, "Army Spending")]))  # a tax law
    assert opts.tolist() == [[13, 13]]


# ------------------------------------------------------------------------------------------------ policies
def test_power_swaps_with_the_next_rung_up():
    """L225: the start ladder is luxury 2, shares 1, shipyards 0, factories 0. Factories' power swaps them with
    shares (the next higher rung), not with shipyards on the same rung; luxury's power changes nothing."""
    r, s = blank(3, 4)
    laws.apply_policy(s, r, np.array([0, 7, 4]), np.ones(3, dtype=bool))  # factories, luxury, shares power
    assert s.ladder[0].tolist() == [2, 0, 0, 1]
    assert s.ladder[1].tolist() == [2, 1, 0, 0]
    assert s.ladder[2].tolist() == [1, 2, 0, 0]


def test_power_changes_influence_at_the_end():
    r, s = blank(1, 4)
    s.factories[0] = [2, 0, 0, 0]
    give(s, "shares", 1, 2)
    from sim.phases.end import influence

    before = influence(s, r)[0].tolist()
    laws.apply_policy(s, r, np.array([0]), np.ones(1, dtype=bool))
    after = influence(s, r)[0].tolist()
    assert before == [0, 2, 0, 0] and after == [2, 0, 0, 0]


def test_tax_takes_one_pound_per_asset_and_per_wealth_where_named():
    """D-POLICY: policy 3 taxes luxuries and conspicuous wealth (a luxury carries 1), policy 13 shipyards only;
    the money leaves the game (ledger flow policy_tax)."""
    r, s = blank(2, 4)
    fund(s, 0, 10)
    s.luxuries[:, 0] = 2
    s.wealth[:, 0] = 3  # 2 from luxuries, 1 from a retirement
    s.shipyards[:, 0] = 1
    laws.apply_policy(s, r, np.array([3, 13]), np.ones(2, dtype=bool))
    assert s.money[:, 0].tolist() == [10 - 2 - 3, 10 - 1]
    assert s.ledger[:, FLOW["policy_tax"]].tolist() == [-5, -1]
    assert s.tally[:, TALLY["taxes_paid"]].tolist() == [5, 1]
    assert ledger.balanced(s).all()


def test_share_tax_and_bonus_count_the_chair():
    """Shares count the Chairman's seat (L130) for taxes and bonuses; a bonus enters the game."""
    r, s = blank(2, 4)
    fund(s, 1, 5)
    give(s, "shares", 1, 1)
    s.office[:, L.CHAIRMAN] = 1
    s.supply[:, 1] -= 1
    laws.apply_policy(s, r, np.array([1, 9]), np.ones(2, dtype=bool))  # share tax, share bonus
    assert s.money[:, 1].tolist() == [3, 7]
    assert s.ledger[1, FLOW["policy_bonus"]] == 2 and s.tally[1, TALLY["bonuses_paid"]] == 2


def test_unpaid_tax_costs_a_taxed_asset_per_pound_lose_assets():
    """D-POLICY lose_assets: a family pays what it has and loses one taxed asset per unpaid tax; a luxury also
    covers its own wealth's tax. 3 luxuries, wealth 3, 1 £ under a luxury + wealth tax owes 6, pays 1, owes 5:
    loses ceil(5 / 2) = 3 luxuries (not 5, not 2) with their wealth."""
    r, s = blank(1, 4)
    fund(s, 2, 1)
    s.luxuries[0, 2] = 3
    s.wealth[0, 2] = 3
    laws.apply_policy(s, r, np.array([3]), np.ones(1, dtype=bool))
    assert s.money[0, 2] == 0 and s.luxuries[0, 2] == 0 and s.wealth[0, 2] == 0
    assert s.tally[0, TALLY["assets_taxed_away"]] == 3


def test_an_unpaid_luxury_tax_costs_one_luxury_per_2_pounds_rounded_up():
    """D-POLICY lose_assets (``laws.tax``) with more luxuries than the debt takes: a luxury covers its own tax and
    its wealth's, 2 £ under policy 3 (a luxury + wealth tax), so a family loses one luxury per 2 £ unpaid, rounded
    up. 6 luxuries, wealth 6: 12 £ due. With 7 £ (game 0) 5 are unpaid: 3 luxuries go (not 2 rounding down, not 5
    one per pound, not all 6); with 8 £ (game 1) 4 are unpaid: 2 go."""
    r, s = blank(2, 4)
    fund(s, 2, 7, games=0)
    fund(s, 2, 8, games=1)
    s.luxuries[:, 2] = 6
    s.wealth[:, 2] = 6
    laws.apply_policy(s, r, np.array([3, 3]), np.ones(2, dtype=bool))
    assert s.money[:, 2].tolist() == [0, 0]
    assert s.luxuries[:, 2].tolist() == [3, 4] and s.wealth[:, 2].tolist() == [3, 4]
    assert s.tally[:, TALLY["assets_taxed_away"]].tolist() == [3, 2]


def test_unpaid_share_tax_sends_board_members_home_never_the_chair():
    r, s = blank(1, 4)
    give(s, "shares", 0, 2)
    s.office[0, L.CHAIRMAN] = 0
    s.supply[0, 0] -= 1
    laws.apply_policy(s, r, np.array([1]), np.ones(1, dtype=bool))  # owes 3 (2 shares + chair), has 0
    assert s.shares[0, 0] == 0 and s.office[0, L.CHAIRMAN] == 0 and s.supply[0, 0] == 11
    assert (s.relatives() == 12).all()


def test_a_lost_shipyard_takes_its_ship_only_when_no_yard_is_free():
    r, s = blank(2, 4)
    s.shipyards[:, 0] = 2
    s.yard_ships[0, 0, 1] = 1  # game 0: one yard busy, one free -> the free one goes
    s.yard_ships[1, 0, 1] = 2  # game 1: both busy -> one ship goes with its yard
    fund(s, 0, 1)  # owes 2, pays 1, loses 1 yard
    laws.apply_policy(s, r, np.array([13, 13]), np.ones(2, dtype=bool))
    assert s.shipyards[:, 0].tolist() == [1, 1]
    assert s.yard_ships[:, 0].sum(axis=1).tolist() == [1, 1]


def test_unpaid_tax_forgiven_key():
    r, s = blank(1, 4, **{"parliament.unpaid_tax": "forgiven"})
    s.factories[0, 3] = 4
    fund(s, 3, 1)
    laws.apply_policy(s, r, np.array([10]), np.ones(1, dtype=bool))
    assert s.money[0, 3] == 0 and s.factories[0, 3] == 4


def test_window_tax_repeal_drops_the_wealth_part():
    r, s = blank(1, 4)
    s.law_pile[0, law(r, "Window Tax Repeal")] = laws.IN_FORCE
    fund(s, 0, 10)
    s.luxuries[0, 0], s.wealth[0, 0] = 2, 4
    laws.apply_policy(s, r, np.array([12]), np.ones(1, dtype=bool))
    assert s.money[0, 0] == 8


# ------------------------------------------------------------------------------------------------ the votes
def test_property_votes_shipyard_1_factory_3():
    r, s = blank(1, 4)
    s.shipyards[0] = [1, 0, 2, 0]
    s.factories[0] = [0, 2, 1, 0]
    assert property_votes(s, r)[0].tolist() == [1, 6, 5, 0]


def test_vote_net_is_support_plus_for_minus_against_and_bought_votes_leave_the_game():
    r, s = blank(2, 4)
    s.factories[:, 1] = 1  # 3 votes
    s.shipyards[:, 2] = 2  # 2 votes
    fund(s, 2, 5)
    s.prime_minister[:] = 0
    strat = Scripted(vote=votes({0: (1, 0), 1: (-1, 0), 2: (1, 2)}))
    rows = np.ones(2, dtype=bool)
    none = np.full(2, -1)
    out = hold_vote(s, r, agents(r, s, strat), rows, np.array([-1, -2]), none, none, np.ones(2, dtype=bool))
    assert out.net.tolist() == [-1 + 4 - 3, -2 + 4 - 3]  # 0 passes, -1 fails
    assert out.passed.tolist() == [True, False]
    assert s.money[:, 2].tolist() == [3, 3] and s.ledger[:, FLOW["votes"]].tolist() == [-2, -2]
    assert s.tally[:, TALLY["votes_bought"]].tolist() == [2, 2]


def test_abstaining_family_casts_nothing_and_cannot_buy():
    r, s = blank(1, 4)
    fund(s, 1, 3)
    s.prime_minister[:] = 0
    strat = Scripted(vote=votes({0: (1, 0), 1: (0, 2)}))
    with pytest.raises(IllegalDecision, match="'vote'"):
        hold_vote(s, r, agents(r, s, strat), np.ones(1, bool), np.zeros(1, int), np.full(1, -1), np.full(1, -1),
                  np.ones(1, bool))  # fmt: skip


def test_the_pm_must_vote_for_his_law():
    r, s = blank(1, 4)
    s.prime_minister[:] = 0
    strat = Scripted(vote=votes({0: (-1, 0)}))
    with pytest.raises(IllegalDecision, match="'vote'"):
        hold_vote(s, r, agents(r, s, strat), np.ones(1, bool), np.zeros(1, int), np.full(1, -1), np.full(1, -1),
                  np.ones(1, bool))  # fmt: skip


def test_votes_cannot_be_bought_beyond_money_at_the_vote_cost():
    """Masses Demand Franchise! in force: a vote costs 2 £; 3 £ buys one vote, not one and a half."""
    r, s = blank(1, 4)
    s.law_pile[0, law(r, "Masses Demand Franchise!")] = laws.IN_FORCE
    fund(s, 1, 3)
    s.prime_minister[:] = 0
    one = Scripted(vote=votes({0: (1, 0), 1: (-1, 1)}))
    out = hold_vote(s, r, agents(r, s, one), np.ones(1, bool), np.zeros(1, int), np.full(1, -1), np.full(1, -1),
                    np.ones(1, bool))  # fmt: skip
    assert out.against[0, 1] == 1 and s.money[0, 1] == 1
    two = Scripted(vote=votes({0: (1, 0), 1: (-1, 2)}))
    with pytest.raises(IllegalDecision, match="'vote'"):
        hold_vote(s, r, agents(r, s, two), np.ones(1, bool), np.zeros(1, int), np.full(1, -1), np.full(1, -1),
                  np.ones(1, bool))  # fmt: skip


@pytest.mark.parametrize("franchise, legal", [(False, True), (True, False)])
def test_the_vote_refuses_votes_bought_beyond_money_at_the_franchise_price(franchise, legal):
    """L239 and Masses Demand Franchise! (``vote_cost`` +1): seat 1 holds 3 £ and buys 2 votes. At 1 £ a vote that
    is 2 £ (legal); under Franchise it is 4 £, more than he holds: refused, though 2 votes are fewer than his 3 £."""
    r, s = blank(1, 4)
    if franchise:
        s.law_pile[0, law(r, "Masses Demand Franchise!")] = laws.IN_FORCE
    fund(s, 1, 3)
    s.prime_minister[:] = 0
    strat = Scripted(vote=votes({0: (1, 0), 1: (-1, 2)}))

    def vote():
        return hold_vote(s, r, agents(r, s, strat), np.ones(1, bool), np.zeros(1, int), np.full(1, -1),
                         np.full(1, -1), np.ones(1, bool))  # fmt: skip

    if legal:
        assert vote().against[0, 1] == 2 and s.money[0, 1] == 1
    else:
        with pytest.raises(IllegalDecision, match="'vote'"):
            vote()
        assert s.money[0, 1] == 3


# ---------------------------------------------------------------------------------------- passing and failing
def run_parliament(r, s, strat, d=None):
    parliament(s, r, d or dice(), agents(r, s, strat))


def test_a_passed_law_gives_a_wreath_keeps_the_seat_moves_the_track_and_applies_the_policy():
    """L240: net >= 0 passes. Calico Acts (support +1, factories): from 0 the PM picks 5 (factory bonus, up)."""
    r, s = blank(1, 4)
    deck(s, r, "Calico Acts")
    s.prime_minister[:] = 2
    s.factories[0, 1] = 1
    strat = Scripted(table_law=table_first(side=1), vote=votes({2: (1, 0), 1: (-1, 0)}))  # net 1 - 3 = -2
    run_parliament(r, s, strat)
    assert s.prime_minister[0] == 1  # failed: seat 1 cast all the votes against

    r, s = blank(1, 4)
    deck(s, r, "Calico Acts")
    s.prime_minister[:] = 2
    s.factories[0, 1] = 1
    strat = Scripted(table_law=table_first(side=1), vote=votes({2: (1, 0), 1: (1, 0)}))
    run_parliament(r, s, strat)
    assert s.prime_minister[0] == 2 and s.wreaths[0].tolist() == [0, 0, 1, 0]
    assert s.policy[0] == 5
    # the factory bonus (1 £ per factory) and Calico Acts' 2 £ per factory
    assert s.money[0, 1] == 1 + 2
    assert s.law_pile[0, law(r, "Calico Acts")] == laws.IN_FORCE
    assert s.tally[0, TALLY["laws_tabled"]] == 1 and s.tally[0, TALLY["laws_passed"]] == 1
    assert ledger.balanced(s).all()


def test_a_failed_law_makes_the_leading_opponent_pm_who_applies_a_neighbouring_policy():
    """L241: the family with most votes against becomes PM (the PM's own votes never count) and picks a policy
    next to the failed one: Calico Acts tabled at 5 failed -> 4 or 6; he picks 4 (share power)."""
    r, s = blank(1, 4)
    deck(s, r, "Calico Acts")
    s.prime_minister[:] = 0
    s.factories[0] = [0, 1, 0, 0]
    s.shipyards[0] = [0, 0, 2, 0]
    strat = Scripted(
        table_law=table_first(side=1),
        vote=votes({0: (1, 0), 1: (-1, 0), 2: (-1, 0)}),  # 1 - 3 - 2 = -4; seat 1 leads with 3
        choose_policy=const(0),
    )
    run_parliament(r, s, strat)
    assert s.prime_minister[0] == 1 and s.tally[0, TALLY["pm_changed"]] == 1
    assert strat.asked("choose_policy") == [([0], [1])]  # the new PM chooses
    assert s.policy[0] == 4 and s.ladder[0].tolist() == [1, 2, 0, 0]
    assert s.wreaths[0].sum() == 0 and s.law_pile[0, law(r, "Calico Acts")] == laws.DISCARD


def test_a_tie_for_most_votes_against_is_the_old_pms_choice():
    r, s = blank(1, 5)
    deck(s, r, "Calico Acts")
    s.prime_minister[:] = 4
    s.factories[0] = [1, 0, 1, 0, 0]
    strat = Scripted(
        table_law=table_first(),
        vote=votes({4: (1, 0), 0: (-1, 0), 2: (-1, 0), 1: (-1, 1)}),
        choose_prime_minister=const(2),
    )
    fund(s, 1, 2)
    run_parliament(r, s, strat)
    # seats 0 and 2 cast 3 against each, seat 1 only 1: the old PM (4) picks between 0 and 2
    asked = strat.asked("choose_prime_minister")
    assert asked == [([0], [4])]
    assert s.prime_minister[0] == 2


def test_opposition_leader_ignores_the_pm_and_with_nobody_against_the_pm_keeps_the_seat():
    r, s = blank(2, 4)
    against = np.array([[5, 2, 0, 0], [0, 0, 0, 0]])
    new = opposition_leader(s, r, dice(), agents(r, s), np.ones(2, bool), against, np.array([0, 3]))
    assert new.tolist() == [1, 3]  # game 0: the PM's 5 do not count; game 1: nobody against
    r, s = blank(1, 4, **{"parliament.no_opposition": "old_pm_picks"})
    strat = Scripted(choose_prime_minister=const(1))
    new = opposition_leader(s, r, dice(), agents(r, s, strat), np.ones(1, bool), np.zeros((1, 4), int), np.array([3]))
    assert new.tolist() == [1] and strat.asked("choose_prime_minister") == [([0], [3])]


# ------------------------------------------------------------------------------------------ drawing laws
def test_the_pm_draws_up_to_three_and_must_table_after_the_third():
    r, s = blank(1, 4)
    deck(s, r, "Calico Acts", "Envoy to China", "Army Spending", "Board of Control")
    s.prime_minister[:] = 1
    seen = []

    def table(obs, legal):
        seen.append((legal.candidates[0].sum(), bool(legal.can_draw[0])))
        if legal.can_draw[0]:
            return np.array([-1]), np.array([0])
        return np.array([law(r, "Envoy to China")]), np.array([0])

    strat = Scripted(table_law=table, vote=votes({1: (1, 0)}))
    run_parliament(r, s, strat)
    assert seen == [(1, True), (2, True), (3, False)]
    assert s.law_pile[0, law(r, "Calico Acts")] == laws.DISCARD
    assert s.law_pile[0, law(r, "Army Spending")] == laws.DISCARD
    assert s.law_pile[0, law(r, "Board of Control")] == laws.DECK  # never drawn
    # Envoy to China (support -3) failed: the PM had no votes and nobody opposed: he keeps the seat
    assert not s.china_open[0] and s.law_pile[0, law(r, "Envoy to China")] == laws.DISCARD
    assert s.prime_minister[0] == 1


def test_a_dilemma_ends_the_draw_and_must_be_tabled():
    r, s = blank(1, 4)
    deck(s, r, "Calico Acts", "Masses Demand Franchise!", "Envoy to China")
    s.prime_minister[:] = 0
    calls = []

    def table(obs, legal):
        calls.append((np.flatnonzero(legal.candidates[0]).tolist(), bool(legal.can_draw[0])))
        if len(calls) == 1:
            return np.array([-1]), np.array([0])
        return np.array([law(r, "Calico Acts")]), np.array([0])

    strat = Scripted(table_law=table, vote=votes({0: (1, 0)}))
    with pytest.raises(IllegalDecision, match="table_law"):
        run_parliament(r, s, strat)
    assert calls[1] == ([law(r, "Masses Demand Franchise!")], False)


def test_old_ideas_tables_a_law_from_the_discard_pile_then_everything_is_shuffled_back():
    r, s = blank(1, 4)
    deck(s, r, "Old Ideas Made New!", "Calico Acts")
    s.law_pile[0, law(r, "Army Spending")] = laws.DISCARD
    s.law_pile[0, law(r, "Public Demands Impeachment!")] = laws.DISCARD
    s.prime_minister[:] = 0
    seen = []

    def table(obs, legal):
        seen.append((np.flatnonzero(legal.candidates[0]).tolist(), bool(legal.can_draw[0])))
        return np.array([law(r, "Army Spending")]), np.array([1])

    strat = Scripted(table_law=table, vote=votes({0: (1, 10)}))
    fund(s, 0, 10)
    run_parliament(r, s, strat)
    assert seen == [(sorted([law(r, "Army Spending"), law(r, "Public Demands Impeachment!")]), False)]
    assert s.regiments[0].tolist() == [3, 3, 3]  # Army Spending passed: 2 regiments per army
    assert s.law_pile[0, law(r, "Army Spending")] == laws.IN_FORCE
    # the discard pile and the "Old Ideas" card went back into the deck
    assert s.law_pile[0, law(r, "Public Demands Impeachment!")] == laws.DECK
    assert s.law_pile[0, law(r, "Old Ideas Made New!")] == laws.DECK
    assert (s.law_pile == laws.DISCARD).sum() == 0


def test_old_ideas_with_an_empty_discard_pile_is_shuffled_back_and_another_law_drawn():
    r, s = blank(1, 4)
    deck(s, r, "Old Ideas Made New!", "Calico Acts")
    s.prime_minister[:] = 0
    # the reshuffle gives every deck law a fresh rank: script it so Calico Acts comes first
    n = len(r.d.law_names)
    u = np.full(n, 0.9)
    u[law(r, "Calico Acts")] = 0.1
    strat = Scripted(table_law=table_first(), vote=votes({0: (1, 0)}))
    run_parliament(r, s, strat, dice(uniforms={0: u.tolist()}))
    assert strat.asked("table_law") == [([0], [0])]
    assert s.law_pile[0, law(r, "Calico Acts")] == laws.IN_FORCE
    assert s.law_pile[0, law(r, "Old Ideas Made New!")] == laws.DECK


def test_the_first_draw_shuffles_the_deck_with_the_engines_dice():
    r, s = blank(2, 4)
    s.prime_minister[:] = 0
    n = len(r.d.law_names)
    u0, u1 = np.linspace(0.9, 0.1, n), np.linspace(0.1, 0.9, n)
    d = dice(uniforms={0: u0.tolist(), 1: u1.tolist()})
    strat = Scripted(table_law=table_first(), vote=votes({0: (1, 0)}))
    run_parliament(r, s, strat, d)
    assert d.rolls("uniform") == [n, n]
    drawn = [s.law_pile[g] != laws.DECK for g in range(2)]
    assert drawn[0][n - 1] and drawn[1][0]  # each game drew the law its shuffle put on top


def test_empty_deck_takes_the_discard_pile_back():
    r, s = blank(1, 4)
    s.law_pile[:] = laws.IN_FORCE
    s.law_pile[0, law(r, "Calico Acts")] = laws.DISCARD
    s.law_rank[:] = 0.5
    s.prime_minister[:] = 0
    strat = Scripted(table_law=table_first(), vote=votes({0: (1, 0)}))
    run_parliament(r, s, strat)
    assert strat.asked("table_law") == [([0], [0])]


# ----------------------------------------------------------------------------------------------- the frames
def test_frames_record_politics():
    rules = sim.Rules.default(5)
    res = sim.play(rules, ["balanced", "random", "balanced", "random", "balanced"], 300, seed=3)
    rounds, games, seats = res.rounds, res.games, res.seats
    for col in ("prime_minister", "pm_changed", "laws_tabled", "laws_passed", "policy", "taxes_paid",
                "bonuses_paid", "deregulation", "loans_written_off", "notes_sold", "notes_used"):  # fmt: skip
        assert col in rounds.columns
    assert set(rounds["deregulation"].unique()) <= {"none", "passed", "rejected"}
    assert rounds["pm_changed"].dtype == pl.Boolean
    assert (rounds["laws_passed"] <= rounds["laws_tabled"]).all()
    # a passed law gives one wreath; passed Deregulations the PM tabled give one more each
    wreaths = seats.group_by("game").agg(pl.col("wreaths").sum()).sort("game")
    passed = (
        rounds.group_by("game")
        .agg(
            pl.col("laws_passed").sum(),
            ((pl.col("deregulation") == "passed") & (pl.col("deregulation_by") == "pm")).sum().alias("d"),
        )
        .sort("game")
    )
    assert (wreaths["wreaths"] == passed["laws_passed"] + passed["d"]).all()
    # deregulation_round is null exactly when no round passed it
    once = rounds.filter(pl.col("deregulation") == "passed").select("game", "round")
    joined = games.join(once, on="game", how="left")
    assert (joined["deregulation_round"].is_null() == joined["round"].is_null()).all()
    assert (joined.drop_nulls("round")["deregulation_round"] == joined.drop_nulls("round")["round"]).all()
    # the final policy is the last round's
    last = rounds.group_by("game").agg(pl.col("policy").last()).sort("game")
    assert (games.sort("game")["policy"] == last["policy"]).all()


def test_unpaid_shipyard_tax_costs_one_yard_per_pound_even_with_wealth_taxed():
    """D-POLICY lose_assets: policy 8 taxes shipyards and conspicuous wealth. A family with 4 shipyards, wealth 1
    and 1 £ owes 5, pays 1 and owes 4: a shipyard carries no wealth, so each lost yard covers 1 £ of the debt and
    it loses 4 yards (only a luxury covers its own wealth's tax too). Counting a yard as covering 1 + luxury_wealth
    = 2 £ (the luxury test inverted) loses only 2."""
    r, s = blank(1, 4)
    assert r.parliament.policies[8].asset == "shipyards" and r.parliament.policies[8].wealth
    s.shipyards[0, 1] = 4
    s.wealth[0, 1] = 1
    fund(s, 1, 1)
    laws.apply_policy(s, r, np.array([8]), np.ones(1, dtype=bool))
    assert s.money[0, 1] == 0 and s.shipyards[0, 1] == 0 and s.wealth[0, 1] == 1
    assert s.tally[0, TALLY["assets_taxed_away"]] == 4


def test_a_vote_strategy_may_index_with_the_prime_ministers_seat():
    """docs/strategies.md, decision ``vote``: ``legal.prime_minister`` is int[G'], the PM's seat, so a strategy may
    index with it. Here every family reads the PM's property votes (``legal.property[.., legal.prime_minister]``):
    the PM (seat 2, a factory: 3 votes) votes for; a family with more property votes than the PM votes against (seat
    1, two factories: 6), the others for (seat 0, a shipyard: 1; seat 3: none). Net = support 0 + (3 + 1) - 6 = -2:
    the law fails (L239-L241). Handing the PM's seat over as floats breaks the strategy's index."""
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
    "side -1/0/1 (the PM for), votes bought within money, only held vote notes, none when abstaining"."""
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


@pytest.mark.parametrize("answer", [3, 4])
def test_the_old_pm_must_pick_one_of_the_tied_opposition(answer):
    """L241: where a law fails, the family with most votes against becomes PM; a tie is the old PM's choice among the
    tied (seats 0 and 2 with 3 each; seat 3 with 1 is not tied, 4 is no seat). The refusal names the
    reason."""
    r, s = blank(1, 4)
    against = np.array([[3, 0, 3, 1]])
    strat = Scripted(choose_prime_minister=const(answer))
    with pytest.raises(IllegalDecision, match="choose_prime_minister.* in game 0: not one of the tied$"):
        opposition_leader(s, r, dice(), agents(r, s, strat), np.ones(1, bool), against, np.array([1]))
    new = opposition_leader(
        s, r, dice(), agents(r, s, Scripted(choose_prime_minister=const(2))), np.ones(1, bool), against, np.array([1])
    )
    assert new.tolist() == [2]


def test_a_failed_laws_effects_see_the_policy_the_new_pm_applied():
    """L241 and D-LAWS: a failed law's `on_fail` effects get the new PM and the policy he applied. A rules file may
    give a law `repeat_policy` on failing: the new PM's factory tax is then levied twice, so seat 1 pays double.
    Without the context the effect cannot see the policy."""
    once = 10 - _calico_fails([])
    assert once > 0
    assert 10 - _calico_fails([{"effect": "repeat_policy"}]) == 2 * once


def calico_on_top(position):
    """A position (rules, state) where Calico Acts tops the law deck and seat 2 is Prime Minister."""
    r, s = position
    s.law_pile[:] = laws.DECK
    rank = np.arange(len(r.d.law_names), dtype=float) + 100
    rank[r.d.law_names.index("Calico Acts")] = 0
    s.law_rank[:] = rank
    s.prime_minister[:] = 2
    return r, s


def _calico_fails(on_fail):
    """Calico Acts tabled by PM 2 with policy 11 (factory bonus), voted down by seat 1 (1 factory: 3 votes against
    the PM's 1): seat 1 becomes PM (L241) and applies policy 10 (a factory tax, next to 11). Returns seat 1's money,
    funded with 10 £. ``on_fail``: Calico's effects when it fails (default none)."""
    laws_table = tomllib.loads((Path(__file__).parents[1] / "sim/rules/default.toml").read_text())["parliament"]["laws"]
    for spec in laws_table:
        if spec["name"] == "Calico Acts":
            spec["on_fail"] = on_fail
    r, s = calico_on_top(blank(1, 4, **{"parliament.laws": laws_table}))
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


def test_the_deal_before_a_vote_is_told_the_tabled_law_its_policy_and_support():
    """D-DEALS (seed 001 L81-L87): the deal before Parliament's vote describes the vote to the strategies (the law,
    the policy the PM chose, the law's support). Calico Acts tabled with the up side: policy 5 (seed 000 L224),
    support +1. Without the topic the strategies would see "no law"."""
    r, s = calico_on_top(blank(1, 4))
    calico = r.d.law_names.index("Calico Acts")
    seen = []

    def offer(obs, legal):
        seen.append((legal.moment[0], legal.law[0], legal.policy[0], legal.support[0]))
        return np.full(legal.held.shape, -1), np.zeros(legal.held.shape, dtype=int)

    table = lambda obs, legal: (legal.candidates.argmax(axis=1), np.full(obs.n, 1))  # noqa: E731
    parliament(s, r, dice(), agents(r, s, Scripted(table_law=table, offer_notes=offer)))
    assert seen and all(x == ("vote", calico, 5, int(r.d.law_support[calico])) for x in seen)
    assert int(r.d.law_support[calico]) == 1


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
    is allowed. Each check must hold on its own, not only the candidate check (which kept only the last)."""
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
