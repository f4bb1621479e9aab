"""Experiments: arms and sweeps, seat rotation, shards, byte-identical Parquet, resume, lost workers, dask."""

import json
import os
import re
from collections import Counter
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest
from helpers import CtrlCAfter

from experiments import runfolder as rf
from experiments import runner, spec

LIBRARY = Path(spec.__file__).with_name("library")
KILLER = '''
import os
import signal
from pathlib import Path
from strategies import Strategy

class Killer(Strategy):
    """Kills its own worker process once, when a marker file exists and it plays game 40 or later."""
    name = "killer"

    def take_loans(self, obs, legal):
        marker = Path(__file__).with_name("kill-once")
        if marker.exists() and (obs.games >= 40).any():
            marker.unlink()
            os.kill(os.getpid(), signal.SIGKILL)
        return super().take_loans(obs, legal)
'''


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def small(
    tmp_path: Path, games: int = 40, shard: int = 10, strategies: str = '["balanced", "random"]', extra: str = ""
):
    path = write(
        tmp_path,
        f"""name = "small"
games = {games}
shard_size = {shard}
seed = 3
strategies = {strategies}
{extra}
[sweep]
"capital.formula" = ["inverse_share", "flat"]
""",
    )
    return spec.load(path)


def same_bytes(a: Path, b: Path) -> bool:
    return all(rf.frame_path(a, f).read_bytes() == rf.frame_path(b, f).read_bytes() for f in rf.FRAMES)


# ------------------------------------------------------------------------------------------------ arms, grid
def test_library_files_load():
    base = spec.load(None)
    assert base.name == "baseline" and len(base.arms) == 1 and base.games == 2000
    caps = spec.load(LIBRARY / "capital_formulas.toml")
    assert len(caps.arms) == 9 and caps.param_keys == ("capital.formula", "capital.budget_per_player")
    tour = spec.load(LIBRARY / "tournament.toml")
    assert set(tour.arms[0].strategies) >= {"balanced", "random"}  # "*" = every registered strategy


def test_sweep_is_a_cartesian_product_over_the_base_overrides(tmp_path):
    exp = spec.load(
        write(
            tmp_path,
            """games = 10
[overrides]
"company.start_stability" = 5
[sweep]
"capital.formula" = ["inverse_share", "flat", "linear"]
"capital.budget_per_player" = [5, 6, 7]
""",
        )
    )
    pairs = [(a.params["capital.formula"], a.params["capital.budget_per_player"]) for a in exp.arms]
    assert pairs == [(f, b) for f in ("inverse_share", "flat", "linear") for b in (5, 6, 7)]
    assert all(a.overrides["company.start_stability"] == 5 for a in exp.arms)
    rules = exp.arms[5].rules()  # flat, 7 per player
    assert rules.capital.formula == "flat" and rules.budget == 35 and rules.company.start_stability == 5
    assert [a.index for a in exp.arms] == list(range(9))


def test_listed_arms_cross_the_sweep_and_share_one_schema(tmp_path):
    exp = spec.load(
        write(
            tmp_path,
            """games = 10
[sweep]
"capital.budget_per_player" = [5, 6]
[[arms]]
name = "stable"
overrides = { "company.start_stability" = 6 }
[[arms]]
name = "plain"
""",
        )
    )
    assert [a.name for a in exp.arms] == [
        "stable, capital.budget_per_player=5",
        "stable, capital.budget_per_player=6",
        "plain, capital.budget_per_player=5",
        "plain, capital.budget_per_player=6",
    ]
    assert exp.param_keys == ("company.start_stability", "capital.budget_per_player")
    assert exp.arms[2].params == {"company.start_stability": None, "capital.budget_per_player": 5}


def test_seat_rotation_every_strategy_every_seat_equally():
    exp = spec.load(LIBRARY / "tournament.toml", strategies=["balanced", "random", "balanced"])
    arm = exp.arms[0]
    assert arm.rotations == 3
    ids = np.arange(300)
    names, seating = arm.seating(ids)
    per_seat = [Counter(names[i] for i in seating[:, s]) for s in range(5)]
    assert all(c == {"balanced": 200, "random": 100} for c in per_seat)
    two = spec.load(LIBRARY / "tournament.toml", strategies=["balanced", "random"]).arms[0]
    assert two.seats(0) == ["balanced", "random", "balanced", "random", "balanced"]
    assert two.seats(1) == ["random", "balanced", "random", "balanced", "random"]
    fixed = spec.load(LIBRARY / "tournament.toml", strategies=["random"] + ["balanced"] * 4, rotate=False).arms[0]
    assert fixed.rotations == 1 and fixed.seats(0) == ["random"] + ["balanced"] * 4


def test_resolved_experiment_spells_out_every_default(tmp_path):
    exp = spec.load(write(tmp_path, 'games = 7\nstrategies = ["random"]\n'))
    text = exp.resolved_toml()
    for key in spec.DEFAULTS:
        assert f"{key} =" in text or f"[{key}]" in text
    again = spec.load(write(tmp_path, text, "resolved.toml"))
    assert again.digest() == exp.digest()


# ---------------------------------------------------------------------------------------------------- runner
def test_jobs_and_shard_size_give_byte_identical_parquet(tmp_path):
    exp = small(tmp_path)
    a = runner.run(exp, tmp_path / "a", jobs=1)
    runner.run(exp, tmp_path / "b", jobs=2, shard_size=7)
    assert same_bytes(tmp_path / "a", tmp_path / "b")
    games = pl.read_parquet(rf.frame_path(tmp_path / "a", "games"))
    assert games.height == 80 and games["arm"].unique().len() == 2 and "capital.formula" in games.columns
    for frame, keys in rf.SORT_KEYS.items():  # each frame in its keys' order, row for row
        merged = pl.read_parquet(rf.frame_path(tmp_path / "b", frame))
        assert merged["arm_index"].n_unique() == 2 and merged.equals(merged.sort(keys)), frame
    assert a["status"] == "complete" and not (tmp_path / "a" / runner.SHARDS).exists()


def test_a_run_starts_one_worker_per_games_per_worker_games_left_up_to_jobs(tmp_path, monkeypatch):
    """A worker costs what it plays in thousands of games before its first one: the README's 2,000 games play on one
    worker, a study with more games left on up to ``--jobs``; pilots count as games; the environment sets another
    threshold."""
    monkeypatch.delenv("EASTINDIA_GAMES_PER_WORKER")
    assert runner.GAMES_PER_WORKER == 8_000
    assert runner.worker_count(2, 2_000) == 1
    assert runner.worker_count(2, 8_000) == 1 and runner.worker_count(2, 8_001) == 2  # the edge: one more game
    assert runner.worker_count(4, 18_000) == 3 and runner.worker_count(2, 18_000) == 2
    assert runner.worker_count(3, 0) == 1
    assert runner.worker_count(None, 10**9) == (os.cpu_count() or 1)
    monkeypatch.setenv("EASTINDIA_GAMES_PER_WORKER", "1")
    assert runner.worker_count(2, 2) == 2
    monkeypatch.delenv("EASTINDIA_GAMES_PER_WORKER")
    exp = spec.load("experiments/library/capital_formulas.toml", games=50)  # 8 arms off the default rules
    assert runner.games_left(exp, {}, tmp_path) == 9 * 50 + 9 * 50  # 9 arms; 8 arms' pilots and the reference's
    assert runner.games_left(exp, {"x": (0, 20)}, tmp_path) == 9 * 50 - 20 + 9 * 50  # a finished shard
    assert (
        runner.games_left(
            spec.load("experiments/library/capital_formulas.toml", games=50, calibrate=False), {}, tmp_path
        )
        == 450
    )
    meta = runner.run(small(tmp_path), tmp_path / "one", jobs=2)
    assert meta["jobs"] == 1  # 80 games: one worker, whatever --jobs
    monkeypatch.setenv("EASTINDIA_GAMES_PER_WORKER", "40")
    assert runner.run(small(tmp_path), tmp_path / "two", jobs=2)["jobs"] == 2
    assert same_bytes(tmp_path / "one", tmp_path / "two")


def test_builtins_on_one_job_play_in_the_runs_own_process_and_a_plugin_in_a_worker(tmp_path, monkeypatch):
    """A worker costs 1.5-2 CPU-seconds before its first game, so a table of this package's strategies on one job
    without a timeout plays its pilots and shards in the run's own process: the same bytes as on two workers. A
    plugin (which may end or hang its process) or a timeout still plays in a worker."""
    from joblib.externals import loky

    monkeypatch.setenv("EASTINDIA_GAMES_PER_WORKER", "1")
    exp = small(tmp_path, extra="calibration_games = 20")
    exp = spec.load(
        write(tmp_path, (tmp_path / "exp.toml").read_text() + '"capital.budget_per_player" = [7, 8]\n', "four.toml")
    )  # 4 arms off the default rules: 5 pilots (the reference's too)
    pools = [runner.Pool(*a) for a in [(1, (), None), (2, (), None), (1, ("bots/mine.py:Mine",), None), (1, (), 9.0)]]
    assert [(p.here, p.workers) for p in pools] == [(True, 0), (False, 2), (False, 1), (False, 1)]
    runner.run(exp, tmp_path / "workers", jobs=2)

    def no_worker(*args, **kwargs):
        raise AssertionError("a worker was started")

    monkeypatch.setattr(loky, "get_reusable_executor", no_worker)
    meta = runner.run(exp, tmp_path / "here", jobs=1)
    assert meta["jobs"] == 1 and same_bytes(tmp_path / "workers", tmp_path / "here")
    assert [a["calibration"]["games"] for a in meta["arms"]] == [20] * 4


def test_shard_size_and_jobs_do_not_change_a_single_game(tmp_path):
    """A game's play depends on its index alone: 1,400 games of a rotated balanced + random table and of the
    archetype mix (firms forced open in round 1, emergency investments and all) give byte-identical frames at shard
    sizes 250 and 700, with one job or two."""
    exp = spec.load(
        write(
            tmp_path,
            """name = "independence"
games = 1400
seed = 2
strategies = ["balanced", "random"]

[[arms]]
name = "mixed"

[[arms]]
name = "archetypes"
strategies = ["bid_low", "buy_shares", "run_firm", "go_military", "balanced"]
overrides = { "deregulation.forced_round" = 1 }
""",
        )
    )
    runner.run(exp, tmp_path / "a", jobs=1, shard_size=250)
    runner.run(exp, tmp_path / "b", jobs=2, shard_size=700)
    assert same_bytes(tmp_path / "a", tmp_path / "b")


def test_arms_of_the_same_rules_play_in_one_batch_as_each_would_alone(tmp_path, monkeypatch):
    """Arms of one shard each whose rules are the same (a metagame's tables) play together, up to
    ``runner.GROUP_GAMES`` games a batch: the frames are byte for byte those of every shard played alone, on one job
    or two, with games ending in different rounds, rotated seats and each arm's own strategies; arms of other rules
    or other calibrated values never join them, nor two shards of one arm."""
    exp = spec.load(
        write(
            tmp_path,
            """name = "tables"
games = 300
shard_size = 300
seed = 4
strategies = ["balanced", "random"]

[[arms]]
name = "two"

[[arms]]
name = "archetypes"
strategies = ["bid_low", "buy_shares", "run_firm", "go_military", "balanced"]

[[arms]]
name = "other rules"
strategies = ["go_military", "random"]
overrides = { "deregulation.forced_round" = 1 }

[[arms]]
name = "the same again"
strategies = ["go_military", "random"]
overrides = { "deregulation.forced_round" = 1 }

[[arms]]
name = "another table"
strategies = ["balanced", "random"]
overrides = { "deregulation.forced_round" = 1 }
""",
        )
    )
    batches: list[int] = []
    play_batch = runner.play_batch
    monkeypatch.setattr(runner, "play_batch", lambda *a: batches.append(len(a[3])) or play_batch(*a))
    meta = runner.run(exp, tmp_path / "together", jobs=1)
    # the default rules' arms together; off them, each table calibrated by its own pilot: only equal values join
    fits = [a["calibration"]["key"] for a in meta["arms"][2:]]
    assert fits[0] == fits[1] != fits[2]
    assert batches == [600, 600, 300]
    batches.clear()
    monkeypatch.setattr(runner, "GROUP_GAMES", 0)
    runner.run(exp, tmp_path / "alone", jobs=1)
    assert batches == [300] * 5
    assert same_bytes(tmp_path / "together", tmp_path / "alone")
    monkeypatch.setattr(runner, "GROUP_GAMES", 4096)  # in workers
    runner.run(exp, tmp_path / "workers", jobs=2)
    assert same_bytes(tmp_path / "workers", tmp_path / "alone")
    batches.clear()  # two shards of one arm never share a batch (at most one arm's last and the next one's first)
    runner.run(exp, tmp_path / "shards", jobs=1, shard_size=100)
    assert sum(batches) == 1500 and max(batches) == 200 and same_bytes(tmp_path / "shards", tmp_path / "alone")


def test_arms_share_dice(tmp_path):
    """Common random numbers: game i of both arms draws the same bids from the same strategy streams."""
    runner.run(small(tmp_path), tmp_path / "r", jobs=1)
    seats = pl.read_parquet(rf.frame_path(tmp_path / "r", "seats"))
    a, b = (seats.filter(pl.col("arm_index") == i)["bid_total"] for i in (0, 1))
    assert a.equals(b)
    cap_a, cap_b = (seats.filter(pl.col("arm_index") == i)["capital_exact"] for i in (0, 1))
    assert not cap_a.equals(cap_b)


def test_run_folder_records_the_experiment(tmp_path):
    exp = small(tmp_path)
    meta = runner.run(exp, tmp_path / "r", jobs=1, command="eastindia run exp.toml")
    on_disk = rf.read_meta(tmp_path / "r")
    assert on_disk == json.loads(json.dumps(meta, default=str))
    for key in ("command", "seed", "experiment_digest", "versions", "wall_time_s", "games_per_s", "arms", "param_keys"):
        assert on_disk[key] not in (None, "", [])
    assert on_disk["arms"][1]["params"] == {"capital.formula": "flat"}
    assert on_disk["arms"][1]["rules_digest"] == exp.arms[1].rules().digest()
    assert spec.load(tmp_path / "r" / rf.EXPERIMENT).digest() == exp.digest()


def test_run_json_records_the_largest_peak_memory_of_a_process_that_played(tmp_path, monkeypatch):
    """``play_peak_mib``: the largest of the peaks the processes that played the shards report after each batch
    (one process here, on one job), not the first nor the last; none when a session plays no shard; the workers'
    own figures on two jobs, at least what their imports alone hold."""
    exp = small(tmp_path)  # 2 arms x 4 shards, each played alone (its own peak figure)
    monkeypatch.setattr(runner, "GROUP_GAMES", 0)
    peaks = iter([300.0, 450.5, 900.0, 500.0, 200.0, 650.0, 120.0, 310.0] * 2)
    monkeypatch.setattr(runner, "peak_mib", lambda: next(peaks))
    assert runner.run(exp, tmp_path / "one", jobs=1)["play_peak_mib"] == 900.0
    assert rf.read_meta(tmp_path / "one")["play_peak_mib"] == 900.0
    with pytest.raises(runner.Interrupted, match="8 of 8 shards are done"):  # stopped before merging them
        runner.run(exp, tmp_path / "cut", jobs=1, progress=CtrlCAfter(8))
    again = runner.run(exp, tmp_path / "cut", jobs=1, resume=True)
    assert again["games_this_session"] == 0 and again["play_peak_mib"] is None
    monkeypatch.undo()
    workers = runner.run(exp, tmp_path / "two", jobs=2)["play_peak_mib"]
    assert workers > 30 and workers < runner.peak_mib() + 1000  # a Python process with numpy and polars imported


def test_row_groups_have_a_fixed_size(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "ROW_GROUP", 100)
    runner.run(small(tmp_path), tmp_path / "r", jobs=1, shard_size=7)
    meta = pq.ParquetFile(rf.frame_path(tmp_path / "r", "seats")).metadata
    sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    assert sizes[:-1] == [100] * (len(sizes) - 1) and sum(sizes) == 400


def test_interrupted_then_resumed_equals_uninterrupted(tmp_path):
    exp = small(tmp_path)
    runner.run(exp, tmp_path / "whole", jobs=1)

    class StopAfterTwo:
        seen = 0

        def start(self, done):
            assert done == {}

        def advance(self, arm, games):
            self.seen += 1
            if self.seen == 2:
                raise KeyboardInterrupt

    with pytest.raises(runner.Interrupted, match="2 of 8 shards are done"):
        runner.run(exp, tmp_path / "cut", jobs=1, progress=StopAfterTwo())
    assert len(list((tmp_path / "cut" / runner.SHARDS).iterdir())) == 2
    with pytest.raises(runner.RunError, match="unfinished run of this experiment .*; pass --resume"):
        runner.run(exp, tmp_path / "cut", jobs=1)

    class Resumed:
        def start(self, done):
            self.done = done

        def advance(self, arm, games):
            pass

    watcher = Resumed()
    runner.run(exp, tmp_path / "cut", jobs=2, resume=True, progress=watcher)
    assert watcher.done == {0: 20}
    assert same_bytes(tmp_path / "whole", tmp_path / "cut")


def test_a_killed_worker_keeps_finished_shards_and_resume_finishes(tmp_path):
    plugin = write(tmp_path, KILLER, "killer.py")
    marker = tmp_path / "kill-once"
    extra = f'plugins = ["{plugin}:Killer"]\ncalibrate = false'  # the killer must meet a shard, not the pilot
    exp = small(tmp_path, games=60, strategies='["killer", "balanced"]', extra=extra)
    runner.run(exp, tmp_path / "whole", jobs=1)  # no marker: nobody dies
    marker.write_text("die")
    with pytest.raises(runner.Interrupted, match="a worker died"):
        runner.run(exp, tmp_path / "cut", jobs=2)
    assert not marker.exists()
    kept = [p.name for p in (tmp_path / "cut" / runner.SHARDS).iterdir() if not p.name.startswith(".")]
    assert 0 < len(kept) < 12
    runner.run(exp, tmp_path / "cut", jobs=2, resume=True)
    assert same_bytes(tmp_path / "whole", tmp_path / "cut")


def test_output_folder_with_a_different_experiment_is_refused_untouched(tmp_path):
    runner.run(small(tmp_path), tmp_path / "r", jobs=1)
    before = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "r").iterdir()}
    other = small(tmp_path, strategies='["random", "balanced"]')  # other games would extend or shorten it
    with pytest.raises(runner.RunError, match="holds a different experiment"):
        runner.run(other, tmp_path / "r", jobs=1)
    assert {p.name: p.stat().st_mtime_ns for p in (tmp_path / "r").iterdir()} == before
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "notes.txt").write_text("mine")
    with pytest.raises(runner.RunError, match="not a run folder"):
        runner.run(other, tmp_path / "junk", jobs=1)


@pytest.mark.skipif(not os.environ.get("PATH"), reason="needs a normal environment")
def test_dask_local_cluster_gives_the_same_bytes(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    exp = small(tmp_path)
    runner.run(exp, tmp_path / "local", jobs=1)
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster:
        meta = runner.run(exp, tmp_path / "dask", backend="dask", scheduler=cluster.scheduler_address)
    assert meta["backend"] == "dask"
    assert same_bytes(tmp_path / "local", tmp_path / "dask")


def test_the_same_finished_experiment_is_reused_not_replayed(tmp_path):
    exp = small(tmp_path)
    first = runner.run(exp, tmp_path / "r", jobs=1)
    stamp = rf.frame_path(tmp_path / "r", "games").stat().st_mtime_ns
    again = runner.run(exp, tmp_path / "r", jobs=1)
    assert again["finished"] == first["finished"]
    assert rf.frame_path(tmp_path / "r", "games").stat().st_mtime_ns == stamp


def test_plugins_and_rules_files_resolve_to_absolute_paths_and_plugin_code_counts(tmp_path):
    (tmp_path / "bots").mkdir()
    bot = tmp_path / "bots" / "bot.py"
    bot.write_text('from strategies import Strategy\n\nclass Bot(Strategy):\n    """A bot."""\n    name = "bot"\n')
    (tmp_path / "rules.toml").write_text("[company]\nstart_stability = 5\n")
    exp = spec.load(write(tmp_path, 'games = 4\nrules = "rules.toml"\nstrategies = ["bots/bot.py:Bot", "balanced"]\n'))
    assert exp.data["plugins"] == [f"{bot}:Bot"] and exp.data["rules"] == str(tmp_path / "rules.toml")
    assert exp.arms[0].strategies == ("bot", "balanced") and exp.arms[0].rules().company.start_stability == 5
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    again = spec.load(write(moved, exp.resolved_toml(), "resolved.toml"))
    assert again.digest() == exp.digest()
    bot.write_text(bot.read_text() + "\n# edited\n")
    assert spec.load(tmp_path / "exp.toml").digest() != exp.digest()  # a changed plugin is another experiment


def test_shard_size_is_not_part_of_the_experiment_and_a_resume_keeps_its_plan(tmp_path):
    exp = small(tmp_path)
    assert spec.load(tmp_path / "exp.toml", shard_size=3).digest() == exp.digest()

    class StopAfterOne:
        def start(self, done):
            pass

        def advance(self, arm, games):
            raise KeyboardInterrupt

    with pytest.raises(runner.Interrupted):
        runner.run(exp, tmp_path / "r", jobs=1, shard_size=7, progress=StopAfterOne())
    meta = runner.run(exp, tmp_path / "r", jobs=1, resume=True, shard_size=13)
    assert meta["shard_size"] == 7
    runner.run(exp, tmp_path / "whole", jobs=1)
    assert same_bytes(tmp_path / "whole", tmp_path / "r")


# ------------------------------------------------------------------------------------------ input limits
@pytest.mark.parametrize(
    "body, arms",
    [
        ("[[arms]]\n" * 10_001, 10_001),
        ('[[arms]]\n[[arms]]\n[sweep]\n"capital.budget_per_player" = [' + ", ".join(map(str, range(5_001))) + "]\n",
         10_002),
    ],
)  # fmt: skip
def test_too_many_arms_are_refused_at_once(tmp_path, body, arms):
    """Each arm costs a rules check (~25 ms): 710,000 listed arms validated for hours. Now counted first."""
    import subprocess
    import sys
    import time

    path = write(tmp_path, 'name = "many"\ngames = 10\n' + body)
    start = time.perf_counter()
    with pytest.raises(spec.ExperimentError) as err:
        spec.load(path)
    assert time.perf_counter() - start < 5
    assert err.value.problems == [
        f"{path}: {arms:,} arms: at most 10,000 per experiment (the [[arms]] times the [sweep]'s combinations); "
        "split it into several experiments"
    ]
    out = subprocess.run(
        [sys.executable, "-m", "experiments.cli", "validate", str(path)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 2 and out.stdout == "" and out.stderr == err.value.problems[0] + "\n"


def test_a_relative_run_folder_is_in_the_current_folder_whatever_folder_a_reused_worker_started_in(
    tmp_path, monkeypatch
):
    """Shards are played in worker processes kept between runs of one process (tune, sensitivity, tests): a run
    folder given relative to the current folder is written there, not in the folder the worker started in."""
    from experiments import cli

    for name in ("first", "second"):
        here = tmp_path / name
        here.mkdir()
        monkeypatch.chdir(here)
        assert cli.main(["run", "--games", "4", "--shard-size", "4", "--quiet", "--no-report", "--jobs", "1"]) == 0
        assert (here / "runs" / "baseline" / "games.parquet").is_file()


def test_a_finished_run_is_extended_to_more_games_as_if_played_at_once(tmp_path, capsys):
    """``run --games M --resume`` on a finished run: the first games kept (a last shard cut short by the old count
    is played again whole), only the new ones played, the frames and their checksums those of a run of M games."""
    from experiments import cli

    small(tmp_path, games=25, extra="calibration_games = 20")  # shards of 10: 0-10, 10-20, 20-25; one 20-game fit
    path = str(tmp_path / "exp.toml")
    runner.run(spec.load(path), tmp_path / "r", jobs=2)
    refused = cli.main(["run", path, "--out", str(tmp_path / "r"), "--games", "20", "--resume", "--no-report"])
    err = capsys.readouterr().err
    assert refused == 2 and err.count("\n") == 1
    assert "--games 20: " in err and "a finished run of 25 games per arm; a run can be extended, not shortened" in err
    with pytest.raises(runner.RunError, match="pass --resume to extend it to 40"):
        runner.run(spec.load(path, games=40), tmp_path / "r", jobs=2)
    meta = runner.run(spec.load(path, games=40), tmp_path / "r", jobs=2, resume=True, notify=lambda m: None)
    assert meta["games_per_arm"] == 40 and meta["games_this_session"] == 2 * 20  # 20-30 again, 30-40 new
    fresh = runner.run(spec.load(path, games=40), tmp_path / "fresh", jobs=2)
    assert same_bytes(tmp_path / "r", tmp_path / "fresh")
    assert meta["frames"] == fresh["frames"] and rf.verify_frames(tmp_path / "r", rf.read_meta(tmp_path / "r")) is None
    assert not (tmp_path / "r" / rf.SHARDS).exists()


def test_a_run_whose_calibration_pilot_would_change_is_not_extended(tmp_path):
    """A pilot of min(calibration_games, games) games: a run of 25 games fitted on 25; at 40 the fit would be another,
    so the games of the two fits are not mixed (one line naming the fix). On the default rules no pilot is played
    (the anchored values are the defaults) and the run extends."""
    small(tmp_path, games=25, extra='[overrides]\n"company.start_stability" = 6')
    path = str(tmp_path / "exp.toml")
    runner.run(spec.load(path), tmp_path / "r", jobs=1)
    with pytest.raises(runner.RunError, match=r"its calibration pilot played 25 games .* set calibration_games = 25"):
        runner.run(spec.load(path, games=40), tmp_path / "r", jobs=1, resume=True, notify=lambda m: None)
    path = write(tmp_path, 'name = "plain"\ngames = 25\nshard_size = 10\nseed = 3\nstrategies = ["balanced"]\n')
    runner.run(spec.load(path), tmp_path / "default", jobs=1)
    meta = runner.run(spec.load(path, games=40), tmp_path / "default", jobs=1, resume=True, notify=lambda m: None)
    assert meta["games_per_arm"] == 40 and meta["arms"][0]["calibration"]["games"] == 0


# ------------------------------------------------------------------------------------------------ the library
DURATION = re.compile(
    r"(?:\b(?:about|under|at most|up to)\s+(?:an?|[\d,.]+)|\b[\d,.]+\s*[-–]\s*[\d,.]+)"
    r"\s*(?:s|seconds?|CPU-s|CPU-seconds?|min|minutes?|CPU-minutes?|hours?)\b",
    re.IGNORECASE,
)


def leading_comment(path: Path) -> str:
    """The lines of a file before its first line that is not a comment (blank lines end it too)."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("# "))
    return " ".join(lines)


def test_every_library_file_opens_with_its_question_and_how_long_it_takes():
    """A library file is a study a user starts from: its opening comment asks the question it answers and says how
    long it takes on a 2-core machine ("about 10 s on 2 cores", "About 7 CPU-minutes", "5-13 minutes")."""
    files = sorted(LIBRARY.glob("*.toml"))
    assert len(files) >= 18
    for path in files:
        opening = leading_comment(path)
        assert "?" in opening, f"{path.name}: its opening comment asks no question"
        assert DURATION.search(opening), f"{path.name}: its opening comment does not say how long it takes"
    assert DURATION.search("about 10 s on 2 cores") and DURATION.search("About a CPU-minute")
    assert not DURATION.search("2 x 3,000 games") and not DURATION.search("about +-2.5 pp")
