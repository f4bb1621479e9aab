"""Phase 11, Deregulation (R-DEREGULATION; seed L244-L246): tabling by the PM's choice and by the public, the
public support +2 / +6, the vote, a pass (half the loans written off, firms from the next round) and a rejection
(share VP +1, bounded at +3), ``deregulation.forced_round``, and whole games where it passes or is rejected."""

import numpy as np
import polars as pl
import pytest
from helpers import Scripted, accepts, agents, blank, const, dice, fund, offers
from test_parliament import votes

import sim
from sim import laws, notes
from sim import layout as L
from sim.phases.deregulation import deregulation, start_of_round
from sim.state import TALLY
from strategies import Strategy

# each rule played on both engine paths, the numpy reference and the compiled kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")


def company(s, stability, loans):
    s.stability[:] = stability
    s.loans[:] = loans


@pytest.mark.parametrize(
    "stability, loans, asked",
    [(4, 4, False), (3, 4, True), (4, 5, True), (2, 7, True), (1, 4, False), (4, 8, False)],
)
def test_the_pm_may_table_it_when_shaky_the_public_when_worse(stability, loans, asked):
    """Tablable at stability <= 3 or debt >= 5 (the PM decides); at stability 1 or debt 8 the public tables it
    without asking him; above both thresholds nothing happens."""
    r, s = blank(1, 4)
    company(s, stability, loans)
    s.prime_minister[0] = 1
    strat = Scripted(table_deregulation=const(False), vote=votes({}))
    deregulation(s, r, dice(), agents(r, s, strat))
    assert (strat.asked("table_deregulation") == [([0], [1])]) == asked
    forced = stability <= 1 or loans >= 8
    assert (strat.asked("vote") != []) == forced
    assert s.tally[0, TALLY["deregulation_by"]] == (laws.DEREGULATION_BY.index("public") if forced else 0)


@pytest.mark.parametrize(
    "stability, loans, against, passed",
    [
        (3, 4, 2, True),  # one shaky indicator: +2, 2 against -> 0 passes
        (3, 4, 3, False),  # 3 against -> -1
        (3, 5, 6, True),  # both: +6
        (3, 5, 7, False),
    ],
)
def test_public_support_two_with_one_shaky_indicator_six_with_both(stability, loans, against, passed):
    r, s = blank(1, 4)
    company(s, stability, loans)
    s.prime_minister[0] = 0
    fund(s, 2, against)
    strat = Scripted(table_deregulation=const(True), vote=votes({2: (-1, against)}))
    deregulation(s, r, dice(), agents(r, s, strat))
    assert bool(s.deregulated[0]) == passed
    outcome = "passed" if passed else "rejected"
    assert s.tally[0, TALLY["deregulation"]] == laws.DEREGULATION.index(outcome)


def test_a_pass_writes_off_half_the_loans_rounded_down_and_opens_firms():
    r, s = blank(2, 4)
    company(s, 3, np.array([7, 5]))
    s.round[:] = 3
    s.prime_minister[:] = 1
    s.law_pile[:, r.d.law_names.index("Industry Subsidy")] = laws.IN_FORCE
    strat = Scripted(table_deregulation=const(True), vote=votes({1: (1, 0)}))
    deregulation(s, r, dice(), agents(r, s, strat))
    assert s.loans.tolist() == [4, 3] and s.tally[:, TALLY["loans_written_off"]].tolist() == [3, 2]
    assert s.deregulated.all() and s.dereg_round.tolist() == [3, 3]
    assert s.wreaths[:, 1].tolist() == [1, 1]  # he tabled it
    assert (s.law_pile[:, r.d.law_names.index("Industry Subsidy")] == laws.DISCARD).all()
    # passed once: never tabled again
    strat = Scripted()
    deregulation(s, r, dice(), agents(r, s, strat))
    assert strat.calls == []


def test_the_public_passing_it_gives_the_pm_no_wreath_unless_the_key_says_always():
    for key, wreath in (("tabled_by_pm", 0), ("always", 1), ("never", 0)):
        r, s = blank(1, 4, **{"deregulation.pm_wreath": key})
        company(s, 1, 2)
        s.prime_minister[0] = 3
        deregulation(s, r, dice(), agents(r, s, Scripted(vote=votes({}))))
        assert s.deregulated[0] and s.wreaths[0, 3] == wreath


def test_a_rejection_raises_share_vp_up_to_three_and_the_pm_stays():
    r, s = blank(3, 4)
    company(s, 3, 0)
    s.share_vp[:] = [1, 2, 3]
    s.prime_minister[:] = 2
    s.factories[:, 0] = 1
    strat = Scripted(table_deregulation=const(True), vote=votes({0: (-1, 0)}))  # 2 - 3 = -1
    deregulation(s, r, dice(), agents(r, s, strat))
    assert s.share_vp.tolist() == [2, 3, 3]
    assert not s.deregulated.any() and (s.prime_minister == 2).all() and s.wreaths.sum() == 0


def test_the_pm_may_vote_against_deregulation_unless_the_key_binds_him():
    r, s = blank(1, 4)
    company(s, 3, 0)
    s.prime_minister[0] = 0
    s.factories[0, 0] = 1
    deregulation(s, r, dice(), agents(r, s, Scripted(table_deregulation=const(True), vote=votes({0: (-1, 0)}))))
    assert s.share_vp[0] == 2  # rejected by the PM's own 3 votes
    r, s = blank(1, 4, **{"deregulation.pm_votes": "for"})
    company(s, 3, 0)
    s.prime_minister[0] = 0
    from sim.agents import IllegalDecision

    with pytest.raises(IllegalDecision, match="'vote'"):
        deregulation(s, r, dice(), agents(r, s, Scripted(table_deregulation=const(True), vote=votes({0: (-1, 0)}))))


def test_writer_privileges_add_five_to_the_support():
    r, s = blank(1, 4)
    company(s, 3, 0)
    s.prime_minister[0] = 0
    s.law_pile[0, r.d.law_names.index("Writer Privileges")] = laws.IN_FORCE
    fund(s, 1, 7)
    deregulation(s, r, dice(), agents(r, s, Scripted(table_deregulation=const(True), vote=votes({1: (-1, 7)}))))
    assert s.deregulated[0]  # 2 + 5 - 7 = 0


def test_forced_round_passes_it_at_the_start_of_that_round():
    r, s = blank(3, 4, **{"deregulation.forced_round": 2})
    s.loans[:] = 5
    s.round[:] = [1, 2, 2]
    s.done[2] = True
    start_of_round(s, r)
    assert s.deregulated.tolist() == [False, True, False] and s.loans.tolist() == [5, 3, 5]
    assert s.tally[1, TALLY["deregulation_by"]] == laws.DEREGULATION_BY.index("forced_round")


# ----------------------------------------------------------------------------------------------- whole games
def test_games_where_deregulation_passes():
    never_tabled = {"deregulation.table_stability_max": 0, "deregulation.forced_stability": 0,
                    "deregulation.table_debt_min": 99, "deregulation.forced_debt": 99}  # fmt: skip
    rules = sim.Rules.default(5).with_overrides({"deregulation.forced_round": 2, **never_tabled})
    res = sim.play(rules, ["balanced", "random"] * 2 + ["balanced"], 200, seed=4)
    r, g = res.rounds, res.games
    alive = g.filter(pl.col("end_round") >= 2)
    assert alive.height > 0 and (alive["deregulation_round"] == 2).all()
    assert g.filter(pl.col("end_round") < 2)["deregulation_round"].is_null().all()
    passed = r.filter(pl.col("deregulation") == "passed")
    assert passed["round"].unique().to_list() == [2] and (passed["deregulation_by"] == "forced_round").all()
    assert passed.height == alive.height
    # the loans at the end of round 2 never exceed half of what round 1 ended with plus round 2's new ones
    assert (r["loans_written_off"] >= 0).all()


class Rejecter(Strategy):
    """Tables Deregulation whenever it may and votes against it with all its money and its property: it buys a
    factory (3 property votes) whenever it can and otherwise keeps its money (the balanced would spend it on
    the exchange and on luxuries)."""

    name = "rejecter"

    def family_action(self, obs, legal):
        act = np.where(legal.once[:, L.A_FACTORY], L.A_FACTORY, L.A_PASS)
        return act, np.zeros(obs.n, dtype=bool), np.zeros((obs.n, 2), dtype=np.int64)

    def table_deregulation(self, obs, legal):
        return np.ones(obs.n, dtype=bool)

    def vote(self, obs, legal):
        side, bought, use = super().vote(obs, legal)
        money = obs.money[np.arange(obs.n), obs.seat]
        most = money // np.maximum(legal.vote_cost, 1)
        return np.where(legal.deregulation, -1, side), np.where(legal.deregulation, most, bought), use


def test_games_where_deregulation_is_rejected_share_vp_bounded_at_three():
    aids = sim.Rules.default(5).d.law_names.index("Company Aids Government")  # it raises share VP too
    rules = sim.Rules.default(5).with_overrides(
        {"deregulation.table_stability_max": 7, f"parliament.laws.{aids}.on_pass": []}
    )
    res = sim.play(rules, Rejecter(), 200, seed=6)
    r, g = res.rounds, res.games
    assert (r["deregulation"] != "passed").all()
    rejected = r.group_by("game").agg((pl.col("deregulation") == "rejected").sum().alias("n"))
    joined = g.join(rejected, on="game")
    assert (joined["share_vp"] == (1 + joined["n"]).clip(upper_bound=3)).all()
    assert (g.filter(pl.col("end_round") >= 3)["share_vp"] == 3).all()


def test_the_deregulation_vote_shows_no_law_and_no_policy_as_minus_one():
    """Phase 11 (L245-L246): the vote on Deregulation is asked with the tabled-law vote's fields; it has no law
    and no policy, which docs/strategies.md (``vote``: ``law``, ``policy`` int[G'] (-1 none)) documents as -1."""
    r, s = blank(1, 4)
    s.stability[:] = 1  # the public tables it
    s.prime_minister[0] = 0
    seen = []

    def vote(obs, legal):
        seen.append((legal.law.tolist(), legal.policy.tolist(), legal.deregulation.tolist()))
        return votes({})(obs, legal)

    deregulation(s, r, dice(), agents(r, s, Scripted(vote=vote)))
    assert seen == [([-1], [-1], [True])] * 4  # every family, seat by seat


def test_deals_before_the_deregulation_vote_are_the_vote_moment():
    """R-DEREGULATION / D-DEALS (``notes.deal_moments`` "vote" = before every vote, phase 11 Deregulation too):
    stability 1 makes the public table Deregulation (L245; one shaky indicator: support +2, L246). Before its vote
    the families deal, told the moment "vote", that the vote is Deregulation and its support 2; seat 1 sells its
    vote note to seat 2 for 1 £ and the sale is executed. Naming another moment than the engine's "vote" skips the
    deal."""
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
