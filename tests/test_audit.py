"""eastindia audit RUN_DIR --decision NAME --round R: the run's games played again from round R's start with one
decision forced to each alternative; forced to the answer played, each game ends exactly as the run's did."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from experiments import audit as au
from reports.audit import audit_tables
from tests.helpers import command as main
from tests.helpers import run_folder as _run

ARCHETYPES = (
    'name = "a"\ngames = 40\nseed = 7\nplayers = 5\n'
    'strategies = ["bid_low", "buy_shares", "run_firm", "go_military", "balanced"]\n'
)
TWO_ARMS = (
    'name = "t"\ngames = 12\nseed = 3\nplayers = 4\nstrategies = ["balanced"]\n\n'
    '[sweep]\n"company.max_loans" = [8, 6]\n'
)
SEARCHING = (  # a searching seat among balanced ones: the audit replays its searches too
    'name = "s"\ngames = 5\nseed = 2\nplayers = 4\n'
    'strategies = [{ name = "lookahead", rollouts = 2, portfolio = "balanced bid_low" }, "balanced"]\n'
)


@pytest.fixture(scope="module")
def archetypes(tmp_path_factory) -> Path:
    return _run(tmp_path_factory.mktemp("archetypes"), ARCHETYPES)


def test_audit_of_the_chairmans_loans_plays_every_legal_count(archetypes, capsys):
    code, out, err = main(capsys, "audit", archetypes, "--decision", "take_loans", "--round", 1)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "audit: forcing the answer played reproduced all 40 decisions' games exactly"
    told = err.splitlines()  # the steps on stderr, each counted one from 0 to its end
    assert told[0] == "eastindia: audit: reading the run's ends of 40 games"
    replay = "eastindia: audit: replaying 40 games as the run played them: setup and rounds"
    assert told[1] == f"{replay} 0/8" and told[2].startswith(f"{replay} 8/8, ")  # setup and 7 rounds
    copies = "eastindia: audit: playing 360 copies (a game and an alternative each) from round 1: rounds"
    assert told[3] == f"{copies} 0/7" and told[-2].startswith(f"{copies} 7/7, ")  # 40 games x 9 counts, rounds 1-7
    assert told[-1] == "eastindia: audit: writing audit/take_loans_r1.parquet"
    rows = pl.read_parquet(archetypes / "audit" / "take_loans_r1.parquet")
    assert {"game", "seat", "strategy", "played", "alternative", "is_played", "winner", "won", "vp", "crashed"} <= set(
        rows.columns
    )
    games = pl.read_parquet(archetypes / "games.parquet")
    seats = pl.read_parquet(archetypes / "seats.parquet")
    rounds = pl.read_parquet(archetypes / "rounds.parquet").filter(pl.col("round") == 1)
    # one Chairman a game decides in round 1; every count 0..8 (the Company starts without debt) is played once
    assert rows.filter(pl.col("is_played")).height == 40 == rows["game"].n_unique()
    assert rows.group_by("game").len()["len"].to_list() == [9] * 40
    assert sorted(rows["alternative"].unique().to_list(), key=int) == [str(k) for k in range(9)]
    played = rows.filter(pl.col("is_played")).join(rounds.select("game", "loans_taken"), on="game")
    assert (played["played"].cast(pl.Int64) == played["loans_taken"]).all()  # the loans the frames record
    # forced to the answer played, each game ends as the run's did: its winner, crash and the decider's VP
    ends = played.join(games.select("game", "winner_seat", "crashed"), on="game").join(
        seats.select("game", "seat", pl.col("vp").alias("run_vp")), on=["game", "seat"]
    )
    assert (ends["winner"] == ends["winner_seat"]).all() and (ends["crashed"] == ends["crashed_right"]).all()
    assert (ends["vp"] == ends["run_vp"]).all()
    # and forcing another count plays another game
    other = rows.filter(~pl.col("is_played") & (pl.col("alternative") == "0"))
    assert (other.join(played, on=["game", "seat"])["vp"] != other.join(played, on=["game", "seat"])["vp_right"]).any()
    table = au.summary(rows)
    assert table.filter(pl.col("alternative") == "8")["n"].item() == 40
    assert any(line.startswith("best: ") for line in lines) and lines[-1].startswith("written: ")


def test_the_report_shows_the_audits_of_its_run(archetypes, capsys):
    code, _, err = main(capsys, "audit", archetypes, "--decision", "bid", "--round", 0, "--values", "0,1,2")
    assert code == 0, err
    titles = [title for title, _ in audit_tables(archetypes)]
    assert any(t.startswith("bid in setup (") for t in titles)
    bid = next(table for title, table in audit_tables(archetypes) if title.startswith("bid"))
    assert [r[0] for r in bid.rows] == ["x0", "x1", "x2"] and bid.rows[1][2] == "100.0 %"
    code, _, err = main(capsys, "report", archetypes)
    assert code == 0, err
    page = (archetypes / "report.html").read_text()
    assert "Audits of decisions" in page and "bid in setup" in page


def test_an_audit_names_its_seats_strategy_and_values(archetypes, capsys):
    code, out, err = main(
        capsys, "audit", archetypes, "--decision", "pay_dividends", "--round", 2, "--strategy", "buy_shares",
        "--values", "0,1",
    )  # fmt: skip
    assert code == 0, err
    rows = pl.read_parquet(archetypes / "audit" / "pay_dividends_r2-buy_shares.parquet")
    assert rows["strategy"].unique().to_list() == ["buy_shares"]
    chosen = set(rows.filter(~pl.col("is_played"))["alternative"].to_list())
    assert chosen <= {"0", "1"} and rows.filter(pl.col("is_played")).height == rows.select("game", "seat").n_unique()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--decision", "nope", "--round", "1"], "--decision 'nope': not a decision the audit can force"),
        (["--decision", "take_loans", "--round", "8"], "--round 8: take_loans is decided in rounds 1..7"),
        (["--decision", "bid", "--round", "1"], "--round 1: bid is decided at setup only (--round 0)"),
        (["--decision", "take_loans", "--round", "1", "--values", "a"], "--values 'a': not a value of take_loans"),
        (["--decision", "bid", "--round", "0", "--values", "-1"], "--values '-1': not a value of bid"),
        (["--decision", "take_loans", "--round", "1", "--values", ","], "--values: names no value"),
        (["--decision", "take_loans", "--round", "1", "--arm", "x"], "--arm 'x': neither the name nor the index"),
        (["--decision", "take_loans", "--round", "1", "--strategy", "x"], "--strategy 'x': no seat of arm 'a'"),
        (["--decision", "take_loans", "--round", "1", "--games", "41"], "--games 41: the arm has 40 games"),
        (["--decision", "take_loans"], "the following arguments are required: --round"),
    ],
)
def test_a_bad_audit_request_is_one_line_exit_2(archetypes, capsys, args, message):
    code, out, err = main(capsys, "audit", archetypes, *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_an_audit_of_a_multi_arm_run_names_its_arm(tmp_path, capsys):
    run = _run(tmp_path, TWO_ARMS)
    code, _, err = main(capsys, "audit", run, "--decision", "take_loans", "--round", 2)
    assert code == 2 and "name one with --arm" in err
    code, out, err = main(
        capsys, "audit", run, "--decision", "take_loans", "--round", 2, "--arm", "company.max_loans=6"
    )
    assert code == 0, err
    rows = pl.read_parquet(run / "audit" / "take_loans_r2-company.max_loans=6.parquet")
    assert rows["arm"].unique().to_list() == ["company.max_loans=6"]
    assert int(rows["alternative"].cast(pl.Int64).max()) <= 6  # the arm's own limit bounds the alternatives


def test_an_audit_plays_a_searching_seats_games_as_the_run_did(tmp_path, capsys):
    run = _run(tmp_path, SEARCHING)
    code, out, err = main(capsys, "audit", run, "--decision", "take_loans", "--round", 2)
    assert code == 0, err
    assert out.splitlines()[0].startswith("audit: forcing the answer played reproduced all ")
    # a searching seat's pick for a round, forced to each candidate of its portfolio
    code, out, err = main(capsys, "audit", run, "--decision", "plan", "--round", 2)
    assert code == 0, err
    rows = pl.read_parquet(run / "audit" / "plan_r2.parquet")
    plans = pl.read_parquet(run / "seat_rounds.parquet").filter(pl.col("round") == 2)
    played = rows.filter(pl.col("is_played")).join(plans.select("game", "seat", "plan"), on=["game", "seat"])
    assert played.height == rows.select("game", "seat").n_unique() == 10  # two searching seats in each of 5 games
    assert (played["played"] == played["plan"]).all()  # the plan the frames say it played
    assert set(rows["alternative"]) == {"balanced", "bid_low"} and rows.height == 20
    assert (rows.filter(~pl.col("is_played"))["vp"] != rows.filter(pl.col("is_played"))["vp"]).any()


def test_a_plan_is_audited_only_where_a_seat_searches(archetypes, capsys):
    code, _, err = main(capsys, "audit", archetypes, "--decision", "plan", "--round", 1)
    assert code == 2 and "--decision plan: no seat of arm 'a' searches" in err


def test_forcing_answers_the_deciding_seats_first_ask_only():
    forcing = au.Forcing("take_loans", np.array([1, 3]), [(np.array(5),), (np.array(0),)])
    state = type("S", (), {})()
    answer = (np.array([2, 2]),)
    assert forcing("take_loans", state, np.array([0, 1]), np.array([1, 2]), answer, None)[0].tolist() == [5, 2]
    assert forcing("take_loans", state, np.array([0, 1]), np.array([1, 3]), answer, None)[0].tolist() == [2, 0]
    assert forcing("take_loans", state, np.array([0, 1]), np.array([1, 3]), answer, None)[0].tolist() == [2, 2]
    assert forcing("pay_dividends", state, np.array([0]), np.array([1]), (np.array([7]),), None)[0].tolist() == [7]
