"""eastindia pair RUN_DIR --arm A --against B: each seat of one arm against the same seat of the same game in another
arm of the run (its arms share their games and dice), its win rate and VP paired game by game."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from experiments import cli
from experiments.runfolder import Run
from experiments.stats import seat_pairs
from tests.helpers import run_folder

RUN = (
    'name = "p"\ngames = 30\nseed = 5\nplayers = 5\nstrategies = ["balanced"]\n\n'
    '[[arms]]\nname = "plain"\n\n[[arms]]\nname = "again"\n\n'
    '[[arms]]\nname = "deviant"\nstrategies = ["random", "balanced", "balanced", "balanced", "balanced"]\n'
)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    return run_folder(tmp_path_factory.mktemp("pairs"), RUN)


def test_a_deviant_seat_is_paired_with_the_same_seat_of_the_table_it_leaves(run):
    df = seat_pairs(Run.open(run), "deviant", "plain")
    seats = pl.read_parquet(run / "seats.parquet")
    mine = seats.filter((pl.col("arm") == "deviant") & (pl.col("strategy") == "random")).select("game", "seat")
    assert mine.height == 30  # one random seat a game, rotated
    row = df.filter(pl.col("strategy") == "random").row(0, named=True)
    theirs = seats.filter(pl.col("arm") == "plain").join(mine, on=["game", "seat"])
    ours = seats.filter(pl.col("arm") == "deviant").join(mine, on=["game", "seat"])
    assert row["n"] == 30 and row["against"] == "balanced"
    assert row["win"] == pytest.approx(ours["winner"].mean()) and row["win_against"] == pytest.approx(
        theirs["winner"].mean()
    )
    assert row["d_win"] == pytest.approx(row["win"] - row["win_against"])
    assert row["vp"] - row["vp_against"] == pytest.approx(row["d_vp"])
    assert row["win_lo"] <= row["d_win"] <= row["win_hi"] and row["vp_lo"] < row["d_vp"] < row["vp_hi"]
    assert df.filter(pl.col("strategy") == "balanced")["n"].item() == 120
    crash = df.filter(pl.col("strategy") == "(crash rate)").row(0, named=True)
    games = pl.read_parquet(run / "games.parquet")
    assert crash["win"] == pytest.approx(games.filter(pl.col("arm") == "deviant")["crashed"].mean())
    assert crash["win_against"] == pytest.approx(games.filter(pl.col("arm") == "plain")["crashed"].mean())


def test_two_arms_that_play_alike_differ_by_nothing(run):
    df = seat_pairs(Run.open(run), "again", 0)  # an arm by its index
    assert (df["d_win"] == 0).all() and (df.filter(pl.col("strategy") != "(crash rate)")["d_vp"] == 0).all()


def test_a_bad_arm_is_one_line_exit_2(run, capsys):
    assert cli.main(["pair", str(run), "--arm", "nope", "--against", "plain"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no arm 'nope'" in err[0] and "plain, again, deviant" in err[0]
    assert cli.main(["pair", str(run), "--arm", "deviant", "--against", "plain"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("deviant against plain: each seat") and "random (against balanced there, 30 seats)" in out
