"""How each strategy wins: the seats frame's records of offices held at the end, luxuries bought and firms opened and
gone bankrupt, and the report's per-strategy table of them (``reports.data.strategy_wins``, "How each strategy wins"
in report.html and summary.md)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from reports_fixture import make_run

import reports
import sim
import strategies
from reports.data import HOW_COLUMNS, aggregate, strategy_wins
from reports.tables import wins_how_table
from sim import layout as L
from sim.ledger import FLOW

ARCHETYPES = ["run_firm", "bid_low", "buy_shares", "go_military", "balanced"]
FIRMS = {"deregulation.forced_round": 1}  # firms open from round 1: some open, some go bankrupt


def test_the_seats_records_count_what_the_engine_tallies_and_pays():
    """Per game, the families' firms opened and gone bankrupt add up to the rounds' tallies, the luxuries bought cost
    what the ledger's luxury flow paid, and the Presidents' offices are those the final state seats."""
    rules = sim.Rules.default(5).with_overrides(FIRMS)
    ids = np.arange(120)
    seating = (np.arange(5)[None, :] + ids[:, None]) % 5
    state, rows = sim.play_batch(rules, [strategies.make(n) for n in ARCHETYPES], 3, ids, seating)
    frames = sim.Results.from_batches([rows], {}).frames()
    seats, rounds = frames["seats"], frames["rounds"]
    per_game = seats.group_by("game").agg(pl.col("firms_opened", "firms_bankrupt", "luxuries_bought").sum())
    tallies = rounds.group_by("game").agg(pl.col("firms_opened").cast(pl.Int64).sum().alias("t_opened"),
                                          pl.col("bankruptcies").cast(pl.Int64).sum().alias("t_bankrupt"))  # fmt: skip
    both = per_game.join(tallies, on="game").sort("game")
    assert both["firms_opened"].to_list() == both["t_opened"].to_list()
    assert both["firms_bankrupt"].to_list() == both["t_bankrupt"].to_list()
    assert both["firms_opened"].sum() >= 5 and both["firms_bankrupt"].sum() >= 2  # something to count
    paid = -state.ledger[:, FLOW["luxury"]].astype(np.int64)
    bought = both["luxuries_bought"].to_numpy()
    assert (paid == rules.actions.luxury_cost * bought).all() and bought.sum() > 100
    expected = [sum(int(state.office[g, o]) == s for o in L.PRESIDENT) for g in range(ids.size) for s in range(5)]
    assert seats.sort("game", "seat")["presidencies"].to_list() == expected and sum(expected) > 0
    # a family only opens firms it manages: a bankrupt firm was opened by its manager or taken over by it
    firm_seats = seats.filter(pl.col("firms_bankrupt") > 0)
    assert firm_seats.height > 0 and (firm_seats["strategy"] == "run_firm").mean() > 0.5


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return make_run(
        tmp_path_factory.mktemp("wins") / "run",
        [{"deregulation.forced_round": 0}, FIRMS],
        games=150,
        seed=5,
        strategies=ARCHETYPES,
        rotations=5,
    )


def direct(seats: pl.DataFrame) -> dict[tuple[int, str, str], dict[str, float]]:
    """The means of every ``HOW_COLUMNS`` column per (arm, strategy, scope), row by row in Python."""
    acc: dict[tuple[int, str, str], list[dict]] = {}
    for r in seats.iter_rows(named=True):
        acc.setdefault((r["arm_index"], r["strategy"], "all"), []).append(r)
        if r["winner"]:
            acc.setdefault((r["arm_index"], r["strategy"], "won"), []).append(r)
    return {
        key: {"seats": len(rows), **{c: sum(float(x[c]) for x in rows) / len(rows) for c in HOW_COLUMNS}}
        for key, rows in acc.items()
    }


def test_strategy_wins_are_the_means_of_the_seats_frame(run):
    seats = pl.read_parquet(run / "seats.parquet")
    want = direct(seats)
    got = aggregate(run).wins_how
    assert got.height == len(want) and set(got["scope"]) == {"all", "won"}
    for r in got.iter_rows(named=True):
        w = want[(r["arm_index"], r["strategy"], r["scope"])]
        assert r["seats"] == w["seats"]
        for c in HOW_COLUMNS:
            assert r[c] == pytest.approx(w[c], abs=1e-12), (r["arm_index"], r["strategy"], r["scope"], c)
    # the winners' rows are the winners, not every seat: run_firm's wins in the firms arm are fewer than its seats
    rf = got.filter((pl.col("arm_index") == 1) & (pl.col("strategy") == "run_firm"))
    assert rf["seats"].to_list()[1] < rf["seats"].to_list()[0] == 150
    opened = got.filter((pl.col("arm_index") == 1) & (pl.col("scope") == "all")).sort("firms_opened")
    assert opened["strategy"][-1] == "run_firm" and opened["firms_opened"][-1] > 0  # the firm opener opens most


def test_a_run_written_before_the_records_shows_dashes(run):
    old = pl.scan_parquet(run / "seats.parquet").drop(
        "luxuries_bought", "firms_opened", "firms_bankrupt", "presidencies"
    )
    df = strategy_wins(old)
    assert df["firms_opened"].null_count() == df.height and df["vp"].null_count() == 0
    assert df.filter(pl.col("scope") == "all")["presidencies"].is_null().all()


def test_the_report_and_summary_show_how_each_strategy_wins(run):
    reports.write_report(run)
    agg = aggregate(run)
    table = wins_how_table(agg)
    assert len(table.rows) == 2 * 2 * len(ARCHETYPES)  # two arms, five strategies, all seats and the winners
    want = direct(pl.read_parquet(run / "seats.parquet"))
    col = {c: i for i, c in enumerate(table.columns)}
    labels = {a.label: a.index for a in agg.arms}
    for row in table.rows:
        w = want[(labels[row[0]], row[1], "all" if row[2] == "all" else "won")]
        assert row[col["seats"]] == f"{w['seats']:,}"
        assert row[col["luxury VP"]] == f"{w['vp_luxury']:.2f}".replace("-", "−")
        assert row[col["Prime Minister at the end"]] == f"{100 * w['prime_minister']:.1f} %"
        assert row[col["firms gone bankrupt"]] == f"{w['firms_bankrupt']:.2f}"
        assert math.isclose(float(row[col["firms opened"]]), w["firms_opened"], abs_tol=0.005)
    md = (run / "summary.md").read_text(encoding="utf-8")
    html = (run / "report.html").read_text(encoding="utf-8")
    summary_at, how_at = md.index("## Summary per arm"), md.index("## How each strategy wins")
    assert summary_at < how_at < md.index("## Comparisons with the reference arm")  # next to the strategy results
    assert 'id="wins-how-table"' in html and html.index('id="summary-table"') < html.index('id="wins-how-table"')
    firm_row = next(r for r in table.rows if r[0] == agg.arm(1).label and r[1] == "run_firm" and r[2] == "all")
    assert "| " + " | ".join(firm_row) + " |" in md
