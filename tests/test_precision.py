"""precision targets. ``target_ci`` keeps playing ranges of games (every arm's shard of the same games)
until every headline interval's half-width is within the target, then stops; the report states the precision."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import reports
from experiments import cli, runner, spec
from experiments import runfolder as rf
from reports.compare import Precision, indicators

EXP = """name = "precise"
games = {games}
shard_size = 100
seed = 4
strategies = ["balanced", "random"]
target_ci = {target}
[sweep]
"capital.formula" = ["inverse_share", "flat"]
"""


def load(tmp_path: Path, games: int, target: float) -> spec.Experiment:
    path = tmp_path / f"exp-{games}-{target}.toml"
    path.write_text(EXP.format(games=games, target=target))
    return spec.load(path)


def precision_at(run_dir: Path, games: int) -> float:
    """The largest headline half-width over the first ``games`` games of each arm, from the merged frames."""
    frame = pl.read_parquet(rf.frame_path(run_dir, "games"))
    run = rf.Run.open(run_dir)
    names = {a["index"]: a["arm"] for a in run.arms}
    labels = {a["index"]: a["strategies"] for a in run.arms}
    tracker = Precision(names, labels, 0)
    tracker.add(
        {
            i: frame.filter((pl.col("arm_index") == i) & (pl.col("game") < games)).select(
                indicators(["balanced", "random"])
            )
            for i in names
        }
    )
    return tracker.reached()[0]


@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("precision")
    exp = load(tmp, 3000, 0.05)
    meta = runner.run(exp, tmp / "one-job", jobs=1)
    return tmp, exp, meta


def test_a_run_with_a_target_stops_at_the_first_range_that_meets_it(stopped):
    tmp, exp, meta = stopped
    played = meta["games_per_arm"]
    assert 100 < played < 3000 and played % 100 == 0  # stopped early, on a range boundary
    p = meta["precision"]
    assert p["stopped"] == "target reached" and p["reached"] <= 0.05 and p["max_games_per_arm"] == 3000
    games = pl.read_parquet(rf.frame_path(tmp / "one-job", "games"))
    assert (
        games.height == 2 * played
        and games.group_by("arm_index").agg(pl.col("game").max())["game"].to_list() == [played - 1] * 2
    )
    assert precision_at(tmp / "one-job", played) == pytest.approx(p["reached"], abs=1e-6)
    assert precision_at(tmp / "one-job", played - 100) > 0.05  # one range fewer was not precise enough
    assert not (tmp / "one-job" / runner.SHARDS).exists() and meta["games"] == 2 * played


def test_where_it_stops_does_not_depend_on_the_jobs(stopped):
    tmp, exp, meta = stopped
    again = runner.run(exp, tmp / "two-jobs", jobs=2)  # waves of several ranges: shards past the stop are dropped
    assert again["games_per_arm"] == meta["games_per_arm"]
    for frame in rf.FRAMES:
        assert rf.frame_path(tmp / "one-job", frame).read_bytes() == rf.frame_path(tmp / "two-jobs", frame).read_bytes()


def test_the_report_states_the_precision_reached(stopped):
    tmp, _, meta = stopped
    text = reports.write_report(tmp / "one-job").read_text()
    played = f"{meta['games_per_arm']:,}"
    assert f"target ±5.00 pp reached after {played} of at most 3,000 games per arm" in text
    assert f"Largest half-width of the headline 95 % intervals: ±{100 * meta['precision']['reached']:.2f} pp" in text


def test_a_target_out_of_reach_plays_every_game(tmp_path):
    meta = runner.run(load(tmp_path, 200, 0.001), tmp_path / "r", jobs=1)
    assert meta["games_per_arm"] == 200 and meta["precision"]["stopped"] == "games exhausted"
    text = reports.write_report(tmp_path / "r").read_text()
    assert "target ±0.10 pp not reached: all 200 games per arm were played" in text


def test_bad_targets_are_one_line(tmp_path, capsys):
    assert cli.main(["run", "--target-ci", "0.7", "--quiet", "--out", str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err.strip() == (
        "eastindia: error: --target-ci: must be 0 (off) or a half-width between 0 and 0.5, got 0.7"
    )
    path = tmp_path / "e.toml"
    path.write_text('target_ci = "tight"\n')
    assert spec.check_file(path) == [f"{path}: target_ci: expected a number, got 'tight'"]
