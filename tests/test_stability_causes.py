"""the engine records the cause of every stability change per round, signed, adding up to the round's
``stability_change``: phase 7's emergency loans (D-EMERGENCY) and expectation (D-EXPECT, L203-L208), a lost Company
region (R-ATTACK, L212) and law effects (R-PARLIAMENT: Public Demands Impeachment! failed)."""

import numpy as np
import polars as pl
import pytest
from helpers import L, Scripted, agents, blank, const, dice, give, passes, seat_office
from test_india import BOMBAY, LEADER_BOMBAY, Event, attack_company, lost_position

import sim
from sim import laws, ledger
from sim.phases.accounts import accounts
from sim.rules import Rules
from sim.state import STABILITY_CAUSES, TALLY


def causes(s, g=0) -> dict[str, int]:
    return {c: int(s.tally[g, TALLY[c]]) for c in ("stability_change", *STABILITY_CAUSES) if s.tally[g, TALLY[c]]}


def costs(s, regiments):
    s.regiments[:] = 0
    s.regiments[:, 0] = regiments


def test_emergency_loans_and_a_missed_expectation_are_two_causes():
    """Costs 13 with 6 £: 2 emergency loans (-1, D-EMERGENCY per 2), then no profit left: below E(4) = 10 (-1)."""
    r, s = blank(1, 4)
    ledger.company(s, "trade", np.array([6]))
    s.loans[0] = 2
    costs(s, 11)
    s.stability[0] = 4
    accounts(s, r, dice(), agents(r, s, Scripted(pay_dividends=const(0))))
    assert s.stability[0] == 2
    assert causes(s) == {"stability_change": -2, "stability_loss_emergency": -1, "stability_loss_expectation": -1}


def test_a_loss_cut_short_by_the_crash_counts_what_was_lost():
    """Stability 1 and 4 emergency loans: -2 by the rule, but the Company crashes at 0 after one; the expectation
    is never compared (a crashed Company has no further loss)."""
    r, s = blank(1, 4)
    s.loans[0] = 0
    costs(s, 19)  # 19 £ of costs, nothing in the balance: 4 emergency loans of 5 £
    s.stability[0] = 1
    s.round[0] = 2
    accounts(s, r, dice(), agents(r, s, Scripted(pay_dividends=const(0))))
    assert s.tally[0, TALLY["emergency_loans"]] == 4 and s.crashed[0] and s.stability[0] == 0
    assert causes(s) == {"stability_change": -1, "stability_loss_emergency": -1}


def test_dividends_covering_two_levels_are_a_gain_of_two():
    """L207: at stability 1, 12 £ of dividends cover E(1) = 4 and E(2) = 6 cumulatively: +2 (not +1, not +3)."""
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "shares", 1, 3)  # 3 shares + the chair: 4 £ a payout
    ledger.company(s, "trade", np.array([12]))
    s.regiments[:] = 0
    s.stability[0] = 1
    accounts(s, r, dice(), agents(r, s, Scripted(pay_dividends=const(3))))
    assert s.stability[0] == 3
    assert causes(s) == {"stability_change": 2, "stability_gain": 2}


def test_cumulative_emergency_count_loses_on_the_second_loan_of_the_game():
    """D-EMERGENCY cumulative: one emergency loan earlier in the game and one now make the pair that costs 1."""
    r = Rules.default(4).with_overrides({"stability.emergency_count": "cumulative", "stability.compared": "dividends"})
    _, s = blank(1, 4, r)
    s.emergency_total[0] = 1
    costs(s, 3)
    s.stability[0] = 3
    ledger.company(s, "trade", np.array([0]))
    accounts(s, r, dice(), agents(r, s, Scripted(pay_dividends=const(0))))
    assert s.stability[0] == 1  # -1 emergency, -1 no dividends against E(2)
    assert causes(s) == {"stability_change": -2, "stability_loss_emergency": -1, "stability_loss_expectation": -1}


def test_a_lost_region_is_its_own_cause():
    """R-ATTACK (L212): a Company region lost in phase 8 costs 1 stability: 2 -> 1."""
    r, s = lost_position()
    attack_company(
        s, r, dice({0: [6, 5]}), agents(r, s), Event.of(s, r, [0], LEADER_BOMBAY), np.array([BOMBAY]), np.array([2])
    )
    assert s.stability[0] == 1
    assert causes(s) == {"stability_change": -1, "stability_loss_regions": -1}


def test_laws_lower_and_raise_it_within_its_bounds():
    """Impeachment! failed: -1 (and the crash at 0); a law effect of +2 at stability 6 of 7 raises it by 1 only."""
    r, s = blank(2, 4)
    s.stability[:] = [3, 1]
    s.round[:] = 4
    passes(r, s, "Public Demands Impeachment!", when="on_fail")
    assert causes(s, 0) == causes(s, 1) == {"stability_change": -1, "stability_loss_laws": -1}
    r, s = blank(2, 4)
    s.stability[:] = [6, 4]
    laws.change_stability(s, r, np.array([True, True]), 2)
    assert s.stability.tolist() == [7, 6]
    assert causes(s, 0) == {"stability_change": 1, "stability_gain_laws": 1}
    assert causes(s, 1) == {"stability_change": 2, "stability_gain_laws": 2}


@pytest.fixture(scope="module")
def rounds():
    res = sim.play(Rules.default(5), ["balanced", "random", "balanced", "random", "balanced"], 600, seed=13)
    return res.rounds, res.games


def test_the_rounds_frame_explains_every_change(rounds):
    """In real games every round's causes add up to its change, and the stability path is the sum of the changes."""
    df, games = rounds
    assert set(STABILITY_CAUSES) <= set(df.columns)
    assert df.select((pl.sum_horizontal(STABILITY_CAUSES) == pl.col("stability_change")).all()).item()
    start = Rules.default(5).company.start_stability
    path = df.sort("game", "round").with_columns(
        (start + pl.col("stability_change").cum_sum().over("game")).alias("expected")
    )
    assert (path["expected"] == path["stability"].cast(pl.Int64)).all()
    for cause in ("stability_loss_emergency", "stability_loss_expectation", "stability_gain", "stability_loss_regions"):
        assert (df[cause] != 0).any(), cause  # each cause happens in real play
    # a crash has a cause: its round's losses are not all zero
    crashed = df.filter(pl.col("crashed"))
    assert crashed.height == games["crashed"].sum()
    losses = [c for c in STABILITY_CAUSES if "loss" in c]
    assert crashed.select(pl.sum_horizontal(losses) < 0).to_series().all()
