"""the runner never corrupts a run folder, never traps the user, and answers every bad input in one line.

Every case the issue lists has a test here asserting the exit code, a one-line stderr without "Traceback", and that
results already on disk are untouched (byte for byte). Most run ``eastindia`` in-process (``cli.main``); those about
processes (two runs at once, a dying worker, a full disk, a worker's exception crossing processes) run the real
command.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from experiments import cli, runner, search, spec
from experiments import runfolder as rf
from sim.rules.schema import NUMBER_MAX
from tests.helpers import CtrlCAfter, study_trials

# The runner's faults are found in the shards: no calibration pilot (it would meet a failing or hanging plugin first)
BASE = 'name = "t"\ngames = 12\nshard_size = 6\nseed = 2\nstrategies = ["balanced", "random"]\ncalibrate = false\n'
STRATEGY_LINE = re.compile(
    r"^eastindia: error: strategy '(?P<name>\w+)' \(seat (?P<seat>\d)\) raised (?P<error>\w+): (?P<message>.+) "
    r"in '(?P<decision>\w+)' at game (?P<game>\d+)$"
)


def plugin(name: str, body: str, when: str = "True") -> str:
    """A strategy plugin whose take_loans runs ``body`` when ``when`` holds (else plays like the base)."""
    return f'''import os, sys, time
from pathlib import Path
import numpy as np
from strategies import Strategy

class {name.capitalize()}(Strategy):
    """Test plugin."""
    name = "{name}"

    def take_loans(self, obs, legal):
        if {when}:
            {body}
        return super().take_loans(obs, legal)
'''


def eastindia(*args: str, cwd: Path | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "experiments.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=300, **kw
    )


def main(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def frames(folder: Path) -> dict[str, bytes]:
    return {f: rf.frame_path(folder, f).read_bytes() for f in rf.FRAMES}


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """A finished run of BASE (12 games), written once per module."""
    base = tmp_path_factory.mktemp("finished")
    (base / "exp.toml").write_text(BASE)
    assert cli.main(["run", str(base / "exp.toml"), "--out", str(base / "done"), "--quiet", "--jobs", "1"]) == 0
    return base / "done"


@pytest.fixture
def done(finished_run, tmp_path) -> Path:
    """A private copy of the finished run: every bad input below aims at it and must leave it byte-identical."""
    target = tmp_path / "done"
    shutil.copytree(finished_run, target)
    return target


# ----------------------------------------------------------------------------- bad input: one line, exit 2
BAD_FILES = [
    # (experiment text, extra files, the key or words the one line must name)
    ('games = 4\n[overrides]\n"capital.linear_rate" = nan\n', {}, "capital.linear_rate: expected a finite number"),
    ('games = 4\n[overrides]\n"capital.linear_rate" = inf\n', {}, "capital.linear_rate: expected a finite number"),
    ('games = 4\n[overrides]\n"capital.budget_per_player" = 1000000000000000\n', {}, "capital.budget_per_player"),
    ('games = 4\n[overrides]\n"game.players" = 6\n', {}, "game.players: 6 conflicts with the experiment's players"),
    ('games = 4\n[sweep]\n"game.players" = [4, 5]\n', {}, "sweep.game.players[0]: 4 conflicts"),
    ('games = 4\n[sweep]\n"capital.formula" = ["flat", "linear", "flat"]\n', {}, "sweep.capital.formula[2]: duplicate"),
    ('games = 4\n[sweep]\n"capital.linear_rate" = [0.5, 0.25, 0.5]\n', {}, "sweep.capital.linear_rate[2]: duplicate"),
    ("games = 4\nplugins = [5]\n", {}, "plugins[0]: expected a 'path.py:Class' string, got 5"),
    ("games = 4\nseed = 9223372036854775808\n", {}, "seed: must be between 0 and"),
    ("games = 4611686018427387905\n", {}, "games: must be between 1 and"),
    ("games = 4\nshard_size = 0\n", {}, "shard_size: must be between 1 and"),
    ('games = 4\n[[arms]]\nname = "a"\nstrategies = "balanced"\n', {}, "arms[0].strategies: expected a list"),
    ('name = "caf\xe9"\n', {}, "not UTF-8 text (byte 0xe9"),
    ('games = 4\nrules = "r.toml"\n', {"r.toml": "[company]\nstart_balance = 2147483648\n"}, "company.start_balance"),
    ('games = 4\nrules = "r.toml"\n', {"r.toml": "[capital]\nlinear_rate = nan\n"}, "capital.linear_rate"),
    ('games = 4\nrules = "r.toml"\n', {"r.toml": "[game]\nplayers = 6\n"}, "sets game.players = 6 but the experiment"),
    ('games = 4\nrules = "r.toml"\n', {"r.toml": b"[capital]\nformula = 'caf\xe9'\n"}, "r.toml: not UTF-8 text"),
    ('games = 4\nrules = "rules_dir"\n', {"rules_dir/": ""}, "rules_dir: is a folder, not a TOML file"),
    (  # a sweep value that does not fit the [overrides]: named by its place in the sweep
        'games = 4\n[overrides]\n"company.max_stability" = 5\n[sweep]\n"company.start_stability" = [4, 6]\n',
        {},
        "sweep.company.start_stability[1]: must be within 1..5",
    ),
    (  # a listed arm and a sweep value each valid, but not together: found by validate too, before any game
        'games = 4\n[[arms]]\nname = "tight"\noverrides = { "company.max_stability" = 5 }\n'
        '[sweep]\n"company.start_stability" = [4, 6]\n',
        {},
        "arm 'tight, company.start_stability=6': company.start_stability: must be within 1..5",
    ),
]


def write_files(folder: Path, files: dict[str, str | bytes]) -> None:
    for name, text in files.items():
        path = folder / name
        if name.endswith("/"):
            path.mkdir()
        elif isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)


@pytest.mark.parametrize("text, files, needle", BAD_FILES, ids=[n for _, _, n in BAD_FILES])
def test_a_bad_file_is_one_line_exit_2_from_run_and_validate_and_touches_nothing(
    capsys, tmp_path, done, text, files, needle
):
    exp = tmp_path / "exp.toml"
    exp.write_bytes(text.encode("latin-1") if "\xe9" in text else text.encode())
    write_files(tmp_path, files)
    before = snapshot(done)
    code, _, err = main(capsys, "run", exp, "--out", done, "--quiet", "--jobs", "1")
    assert code == 2 and needle in one_line(err)
    assert snapshot(done) == before
    new = tmp_path / "new"
    code, _, err = main(capsys, "run", exp, "--out", new, "--quiet", "--jobs", "1")
    assert code == 2 and needle in one_line(err) and not new.exists()
    code, out, err = main(capsys, "validate", exp)  # validate finds everything run would
    assert code == 2 and needle in err and out == ""


BAD_OPTIONS = [
    (["--seed", str(2**64)], "--seed: must be between 0 and 9,223,372,036,854,775,807"),
    (["--seed", "-1"], "--seed: must be between"),
    (["--games", "10^12"], "argument --games: invalid int value: '10^12'"),
    (["--games", "0"], "--games: must be between 1 and"),
    (["--games", str(2**70)], "--games: must be between 1 and"),
    (["--shard-size", "0"], "--shard-size: must be between 1"),
    (["--shard-size", "-5"], "--shard-size: must be between 1"),
    (["--jobs", "0"], "--jobs: must be between 1"),
    (["--jobs", "-5"], "--jobs: must be between 1"),
    (["--jobs", "1000000"], "--jobs: must be between 1"),
    (["--resume", "--fresh"], "--resume and --fresh contradict"),
    (["--backend", "spark"], "argument --backend: invalid choice"),
    (["--scheduler", "tcp://nowhere:1"], "--scheduler needs --backend dask or --backend ray"),
    (["--strategy", "nobody"], "--strategy: unknown strategy 'nobody'"),
    (["--colour", "red"], "unrecognized arguments: --colour red"),
]


@pytest.mark.parametrize("options, needle", BAD_OPTIONS, ids=[n for _, n in BAD_OPTIONS])
def test_a_bad_option_is_one_line_exit_2_and_touches_nothing(capsys, tmp_path, done, options, needle):
    exp = tmp_path / "exp.toml"
    exp.write_text(BASE)
    before = snapshot(done)
    code, _, err = main(capsys, "run", exp, "--out", done, "--quiet", *options)
    assert code == 2 and needle in one_line(err)
    assert snapshot(done) == before


def test_backend_ray_without_ray_is_one_line(capsys, tmp_path, done, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    (tmp_path / "exp.toml").write_text(BASE)
    before = snapshot(done)
    code, _, err = main(capsys, "run", tmp_path / "exp.toml", "--out", done, "--backend", "ray", "--quiet")
    assert code == 2 and "--backend ray needs ray, which is not installed" in one_line(err)
    assert snapshot(done) == before


def test_experiment_or_rules_path_that_is_a_folder(capsys, tmp_path, done):
    before = snapshot(done)
    for command in (["run", tmp_path, "--out", done, "--quiet"], ["validate", tmp_path]):
        code, out, err = main(capsys, *command)
        assert code == 2 and f"{tmp_path}: is a folder, not a TOML file" in (one_line(err) if err else out)
    assert snapshot(done) == before


def test_out_that_is_a_file_or_cannot_be_written(capsys, tmp_path, done):
    (tmp_path / "exp.toml").write_text(BASE)
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine")
    for out, needle in (
        (a_file, "is a file, not a folder"),
        (a_file / "sub", "cannot write there: Not a directory"),
        (Path("/proc/eastindia-test"), "cannot write there"),
    ):
        code, _, err = main(capsys, "run", tmp_path / "exp.toml", "--out", out, "--quiet")
        assert code == 2 and needle in one_line(err), err
    assert a_file.read_text() == "mine"
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "mine.txt").write_text("keep")
    for extra in ([], ["--fresh"], ["--resume"]):  # never moved aside nor written: it is not a run folder
        code, _, err = main(capsys, "run", tmp_path / "exp.toml", "--out", junk, "--quiet", *extra)
        assert code == 2 and "is not empty and is not a run folder" in one_line(err)
    assert snapshot(junk) == {"mine.txt": b"keep"}


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--", "-5", "10", "20", "0", "0"], f"bid total -5: must be between 0 and {NUMBER_MAX:,}"),
        ([str(2**62), str(2**62), "1", "1", "1"], f"bid total {2**62}: must be between 0"),
        (["--players", "0", "1", "2", "3", "4"], "0 players is impossible"),
        (["--players", "5", "1", "2", "3", "4"], "4 bid totals given for 5 players"),
        (["--budget", "-30", "1", "2", "3", "4", "5"], "--budget -30: must be between 0"),
        (["--budget", str(2**40), "1", "2", "3", "4", "5"], "--budget 1099511627776: must be between 0"),
        (["--formula", "nope", "1", "2", "3", "4", "5"], "unknown formula 'nope'"),
        (["1", "x", "3", "4"], "argument bids: invalid int value: 'x'"),
    ],
)
def test_capital_calculator_rejects_bad_numbers_in_one_line(capsys, args, needle):
    code, out, err = main(capsys, "capital", *args)
    assert code == 2 and needle in one_line(err) and out == ""


# ---------------------------------------------------------------------------------- a strategy's exceptions
STRATEGY_FAULTS = [
    ("raiser", 'raise ZeroDivisionError("boom")', "ZeroDivisionError", "boom"),
    ("writer", "obs.money[:] = 0", "ValueError", "assignment destination is read-only"),
    ("exiter", "sys.exit(5)", "SystemExit", "5"),
    ("keyer", 'return {}["missing"]', "KeyError", "'missing'"),
]


@pytest.mark.parametrize("name, body, error, message", STRATEGY_FAULTS, ids=[f[0] for f in STRATEGY_FAULTS])
def test_a_strategys_exception_is_one_line_naming_strategy_seat_decision_and_game(
    capsys, tmp_path, name, body, error, message
):
    (tmp_path / f"{name}.py").write_text(plugin(name, body, "(obs.games >= 7).any()"))
    exp = tmp_path / "exp.toml"
    strategies = f'["{name}", "balanced"]\nplugins = ["{name}.py:{name.capitalize()}"]'
    exp.write_text(BASE.replace('["balanced", "random"]', strategies))
    out = tmp_path / "out"
    code, _, err = main(capsys, "run", exp, "--out", out, "--quiet", "--jobs", "1")
    assert code == 2
    found = STRATEGY_LINE.match(one_line(err))
    assert found, err
    assert found["name"] == name and found["error"] == error and found["message"] == message
    assert found["decision"] == "take_loans" and int(found["game"]) >= 7  # the first game that raises, not game 0
    seat = int(found["seat"])  # rotation: seat s holds the plugin in game g when (s + g % 2) % 2 == 0
    assert (seat + int(found["game"]) % 2) % 2 == 0
    kept = out / runner.SHARDS / "arm0000-0000000000-0000000006"
    assert (kept / rf.MANIFEST).exists() and runner.verify_shard(kept) is None  # games 0..5 finished and are kept
    assert rf.read_meta(out)["status"] == "failed" and error in rf.read_meta(out)["error"]
    kept_bytes = snapshot(kept)
    code, _, err = main(capsys, "run", exp, "--out", out, "--quiet", "--jobs", "1", "--resume", "--debug")
    assert code == 2 and "Traceback" in err and f"{name}.py" in err  # the full traceback only under --debug
    assert STRATEGY_LINE.match(err.strip().splitlines()[-1])
    assert snapshot(kept) == kept_bytes  # the resumed run failed again and left the finished shard as it was


def test_a_plugin_that_exits_or_fails_when_loaded_or_created_is_one_line(capsys, tmp_path, done):
    (tmp_path / "quits.py").write_text("import sys\nsys.exit(5)\n")
    (tmp_path / "fussy.py").write_text(
        "from strategies import Strategy\n\nclass Fussy(Strategy):\n    name = 'fussy'\n\n"
        "    def __init__(self):\n        raise RuntimeError('no config')\n"
    )
    before = snapshot(done)
    for spec_text, needle in (
        ("quits.py:Bot", "plugin 'quits.py:Bot': SystemExit: 5"),
        ("fussy.py:Fussy", "strategy 'fussy' raised RuntimeError when created: no config"),
    ):
        seats = '["fussy", "balanced"]' if "fussy" in spec_text else '["balanced", "random"]'
        text = BASE.replace('["balanced", "random"]', seats) + f'plugins = ["{spec_text}"]\n'
        (tmp_path / "exp.toml").write_text(text)
        code, _, err = main(capsys, "run", tmp_path / "exp.toml", "--out", done, "--quiet")
        assert code == 2 and needle in one_line(err), err
        code, _, err = main(capsys, "strategies", "--strategy", str(tmp_path / spec_text))
        assert code == 2 or "fussy" in spec_text
    assert snapshot(done) == before


def test_a_strategy_returning_strings_is_an_illegal_answer_not_a_dead_worker(tmp_path):
    (tmp_path / "strings.py").write_text(plugin("strings", 'return np.array(["x"] * obs.n)'))
    exp = tmp_path / "exp.toml"
    exp.write_text(BASE.replace('["balanced", "random"]', '["strings"]') + 'plugins = ["strings.py:Strings"]\n')
    out = eastindia("run", str(exp), "--out", str(tmp_path / "o"), "--quiet", "--jobs", "2")
    assert out.returncode == 2, out.stderr
    assert "strategy 'strings'" in one_line(out.stderr) and "returned <U1 values, expected numbers" in out.stderr


def test_a_workers_exception_crosses_processes_as_one_line(tmp_path):
    (tmp_path / "raiser.py").write_text(plugin("raiser", 'raise RuntimeError("remote")', "(obs.games >= 6).any()"))
    exp = tmp_path / "exp.toml"
    exp.write_text(BASE.replace('["balanced", "random"]', '["raiser"]') + 'plugins = ["raiser.py:Raiser"]\n')
    out = eastindia("run", str(exp), "--out", str(tmp_path / "o"), "--quiet", "--jobs", "2")
    assert out.returncode == 2
    found = STRATEGY_LINE.match(one_line(out.stderr))
    assert found and found["error"] == "RuntimeError" and found["message"] == "remote" and found["game"] == "6"


def test_a_worker_that_really_dies_keeps_exit_3(tmp_path):
    (tmp_path / "killer.py").write_text(plugin("killer", "os.kill(os.getpid(), 9)", "(obs.games >= 6).any()"))
    exp = tmp_path / "exp.toml"
    exp.write_text(BASE.replace('["balanced", "random"]', '["killer"]') + 'plugins = ["killer.py:Killer"]\n')
    out = eastindia("run", str(exp), "--out", str(tmp_path / "o"), "--quiet", "--jobs", "2")
    assert out.returncode == 3
    assert "a worker died" in one_line(out.stderr) and "--resume" in out.stderr


def test_an_internal_error_is_one_line_exit_1_with_the_traceback_under_debug(tmp_path):
    """The engine bug is planted by a plugin, which the worker playing the shard imports too."""
    (tmp_path / "bug.py").write_text(
        "import experiments.runner\nfrom strategies import Strategy\n\n\ndef broken(*args, **kw):\n"
        "    raise RuntimeError('engine bug')\n\n\nexperiments.runner.play_batch = broken\n\n\n"
        "class Bug(Strategy):\n    name = 'bug'\n"
    )
    (tmp_path / "exp.toml").write_text(BASE + 'plugins = ["bug.py:Bug"]\n')
    args = ["run", str(tmp_path / "exp.toml"), "--out", str(tmp_path / "o"), "--quiet", "--jobs", "1"]
    run = eastindia(*args)
    assert run.returncode == 1 and "internal error: shard arm0000" in one_line(run.stderr)
    assert "engine bug" in run.stderr and "--debug" in run.stderr
    run = eastindia(*args, "--debug")
    assert run.returncode == 1 and "Traceback" in run.stderr and "engine bug" in run.stderr


# ----------------------------------------------------------------------- failed runs never trap the folder
def test_a_failed_run_is_resumed_or_refused_with_the_exact_fresh_command(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(plugin("bot", 'raise ValueError("bad move")', "(obs.games >= 6).any()"))
    exp = tmp_path / "exp.toml"
    exp.write_text(BASE.replace('["balanced", "random"]', '["bot", "balanced"]') + 'plugins = ["bot.py:Bot"]\n')
    args = ["run", "exp.toml", "--quiet", "--no-report", "--jobs", "1"]
    first = eastindia(*args, cwd=tmp_path)  # the default folder runs/<name>
    assert first.returncode == 2 and "raised ValueError: bad move" in one_line(first.stderr)
    folder = tmp_path / "runs" / "t"
    kept = snapshot(folder)
    assert "shards/arm0000-0000000000-0000000006/manifest.json" in kept
    again = eastindia(*args, cwd=tmp_path)  # rerun unchanged: refused, tells both ways out
    line = one_line(again.stderr)
    assert again.returncode == 2 and "pass --resume to finish it" in line and "--fresh" in line
    assert snapshot(folder) == kept
    bot.write_text(plugin("bot", "pass"))  # the user fixes the plugin: the finished shard's rows may change
    fixed = eastindia(*args, "--resume", cwd=tmp_path)
    line = one_line(fixed.stderr)
    assert fixed.returncode == 2 and "finished shards would differ" in line
    assert snapshot(folder) == kept
    command = line.split("start afresh with: ")[1].split(" (moves this folder aside)")[0]
    assert command == "eastindia run exp.toml --quiet --no-report --jobs 1 --fresh"
    fresh = eastindia(*shlex.split(command)[1:], cwd=tmp_path)
    assert fresh.returncode == 0, fresh.stderr
    assert "moved the old run folder" in fresh.stderr
    (aside,) = [p for p in (tmp_path / "runs").iterdir() if p.name.startswith("t.old-")]
    assert snapshot(aside) == kept  # moved aside, byte for byte, never deleted
    assert rf.read_meta(folder)["status"] == "complete"


def test_a_run_that_failed_before_any_shard_restarts_in_place_once_fixed(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(plugin("bot", 'raise ValueError("at once")'))
    exp = tmp_path / "exp.toml"
    exp.write_text(BASE.replace('["balanced", "random"]', '["bot"]') + 'plugins = ["bot.py:Bot"]\n')
    args = ["run", "exp.toml", "--quiet", "--no-report", "--jobs", "1"]
    failed = eastindia(*args, cwd=tmp_path)
    assert failed.returncode == 2 and "raised ValueError: at once" in one_line(failed.stderr)
    assert rf.read_meta(tmp_path / "runs" / "t")["status"] == "failed"
    bot.write_text(plugin("bot", "pass"))  # fixed: nothing computed is at stake, the same command now works
    fixed = eastindia(*args, cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    assert "finished no shard; starting again in this folder" in fixed.stderr
    assert rf.read_meta(tmp_path / "runs" / "t")["status"] == "complete"


def test_a_legacy_folder_left_complete_with_no_frames_is_refused_then_started_afresh(capsys, tmp_path):
    (tmp_path / "exp.toml").write_text(BASE)
    exp = spec.load(tmp_path / "exp.toml")
    broken = tmp_path / "broken"
    broken.mkdir()
    meta = {"name": "t", "status": "complete", "games": 0, "experiment_digest": exp.digest(), "shard_size": -5}
    (broken / rf.META).write_text(json.dumps(meta))
    before = snapshot(broken)
    code, _, err = main(capsys, "run", tmp_path / "exp.toml", "--out", broken, "--quiet", "--jobs", "1")
    line = one_line(err)
    assert code == 2 and "damaged (its frames are missing)" in line and line.endswith("(moves this folder aside)")
    assert snapshot(broken) == before
    code, _, err = main(capsys, "report", broken)  # every other command answers in one line too
    assert code == 2 and "no games, seats, rounds Parquet frames yet" in one_line(err)
    code, _, err = main(capsys, "run", tmp_path / "exp.toml", "--out", broken, "--quiet", "--jobs", "1", "--fresh")
    assert code == 0 and "moved the old run folder" in err
    assert rf.read_meta(broken)["games"] == 12


def test_unreadable_run_json_is_refused_with_the_fresh_command(capsys, tmp_path, done):
    (tmp_path / "exp.toml").write_text(BASE)
    (done / rf.META).write_text("{not json")
    before = snapshot(done)
    code, _, err = main(capsys, "run", tmp_path / "exp.toml", "--out", done, "--quiet")
    assert code == 2 and "run.json is unreadable" in one_line(err) and "--fresh" in err
    assert snapshot(done) == before


class StopAfterOne:
    """A progress that interrupts the run after its first finished shard."""

    def start(self, done):
        self.done = done

    def advance(self, arm, games):
        raise KeyboardInterrupt


def test_resume_after_a_change_that_leaves_finished_shards_unaffected(tmp_path):
    (tmp_path / "exp.toml").write_text(BASE)
    exp = spec.load(tmp_path / "exp.toml")

    class Watch:
        def start(self, done):
            self.done, self.played = done, 0

        def advance(self, arm, games):
            self.played += 1

    with pytest.raises(runner.Interrupted):
        runner.run(exp, tmp_path / "cut", jobs=1, progress=StopAfterOne())
    more = spec.load(tmp_path / "exp.toml", games=18)  # games 0..5 are the same games in a longer run
    notes: list[str] = []
    watch = Watch()
    runner.run(more, tmp_path / "cut", jobs=1, resume=True, notify=notes.append, progress=watch)
    assert notes == [f"{tmp_path / 'cut'}: the experiment changed since this run began, but its 1 finished shards "
                     "are unaffected: resuming (2 of 3 shards to play)"]  # fmt: skip
    assert watch.done == {0: 6} and watch.played == 2  # the kept shard was not played again
    runner.run(more, tmp_path / "whole", jobs=1)
    assert frames(tmp_path / "cut") == frames(tmp_path / "whole")
    with pytest.raises(runner.Interrupted):
        runner.run(exp, tmp_path / "cut2", jobs=1, progress=StopAfterOne())
    other = spec.load(tmp_path / "exp.toml", seed=3)  # another seed changes every game
    before = snapshot(tmp_path / "cut2")
    with pytest.raises(runner.RunError, match="1 of its 1 finished shards would differ"):
        runner.run(other, tmp_path / "cut2", jobs=1, resume=True)
    assert snapshot(tmp_path / "cut2") == before


def test_shards_of_another_engine_are_never_mixed_in(tmp_path, monkeypatch):
    """A run begun before the engine changed (sim/ or strategies/ edited, a new version installed): --resume refuses
    in one line naming --fresh instead of merging frames of two engines (once an ArrowInvalid traceback)."""
    (tmp_path / "exp.toml").write_text(BASE)
    exp = spec.load(tmp_path / "exp.toml")

    monkeypatch.setattr(runner, "engine_digest", lambda: "0ld0ld0ld0ld0ld0")
    with pytest.raises(runner.Interrupted):
        runner.run(exp, tmp_path / "cut", jobs=1, progress=StopAfterOne())
    assert rf.read_meta(tmp_path / "cut")["engine_digest"] == "0ld0ld0ld0ld0ld0"
    monkeypatch.undo()
    before = snapshot(tmp_path / "cut")
    with pytest.raises(runner.RunError, match=r"1 finished shards were played by another version of the engine .*"
                       r"0ld0ld0ld0ld0ld0, now [0-9a-f]{16}\) .*fresh"):  # fmt: skip
        runner.run(exp, tmp_path / "cut", jobs=1, resume=True)
    assert snapshot(tmp_path / "cut") == before  # nothing computed is lost
    meta = runner.run(exp, tmp_path / "cut", jobs=1, fresh=True)  # the way out the message names
    assert meta["status"] == "complete" and meta["engine_digest"] == runner.engine_digest()


# ----------------------------------------------------------------------------- checksums: damaged shards
def test_a_truncated_shard_is_replayed_on_resume_and_the_user_told_which(capsys, tmp_path):
    exp_path = tmp_path / "exp.toml"
    exp_path.write_text(BASE.replace("games = 12", "games = 18"))
    exp = spec.load(exp_path)
    with pytest.raises(runner.Interrupted):
        runner.run(exp, tmp_path / "cut", jobs=1, progress=CtrlCAfter(2))
    bad = tmp_path / "cut" / runner.SHARDS / "arm0000-0000000006-0000000012"
    good = tmp_path / "cut" / runner.SHARDS / "arm0000-0000000000-0000000006"
    good_bytes = snapshot(good)
    seats = bad / "seats.parquet"
    seats.write_bytes(seats.read_bytes()[: seats.stat().st_size // 2])
    code, _, err = main(capsys, "run", exp_path, "--out", tmp_path / "cut", "--resume", "--quiet", "--jobs", "1")
    assert code == 0 and "Traceback" not in err
    assert f"shard {bad.name} is damaged (seats.parquet has" in err
    runner.run(exp, tmp_path / "whole", jobs=1)
    assert frames(tmp_path / "cut") == frames(tmp_path / "whole")
    assert good_bytes  # the intact shard was merged as it was (its bytes are in the identical frames)


def test_a_shard_damaged_before_the_merge_is_replayed(tmp_path):
    exp_path = tmp_path / "exp.toml"
    exp_path.write_text(BASE)
    exp = spec.load(exp_path)
    shards = tmp_path / "r" / runner.SHARDS

    class DamageFirstWhenLastIsDone:
        seen = 0

        def start(self, done):
            pass

        def advance(self, arm, games):
            self.seen += 1
            if self.seen == 2:  # both shards are done: damage the first before the merge reads it
                target = shards / "arm0000-0000000000-0000000006" / "rounds.parquet"
                data = bytearray(target.read_bytes())
                data[len(data) // 2] ^= 0xFF
                target.write_bytes(bytes(data))

    notes: list[str] = []
    meta = runner.run(exp, tmp_path / "r", jobs=1, progress=DamageFirstWhenLastIsDone(), notify=notes.append)
    assert notes == ["shard arm0000-0000000000-0000000006 is damaged (rounds.parquet does not match its checksum); "
                     "playing it again"]  # fmt: skip
    runner.run(exp, tmp_path / "whole", jobs=1)
    assert frames(tmp_path / "r") == frames(tmp_path / "whole")
    assert meta["frames"]["games"]["rows"] == 12


def test_a_damaged_finished_run_is_refused_with_the_fresh_command(capsys, tmp_path, done):
    (tmp_path / "exp.toml").write_text(BASE)
    games = rf.frame_path(done, "games")
    games.write_bytes(games.read_bytes()[:-10])
    before = snapshot(done)
    code, _, err = main(capsys, "run", tmp_path / "exp.toml", "--out", done, "--quiet")
    assert code == 2 and "damaged (games.parquet does not match its checksum)" in one_line(err) and "--fresh" in err
    assert snapshot(done) == before


# -------------------------------------------------------------------------------- lazy plans, a full disk
def test_a_trillion_games_are_planned_lazily_and_interrupt_cleanly(capsys, tmp_path):
    exp_path = tmp_path / "exp.toml"
    exp_path.write_text(BASE.replace("games = 12", "games = 1000000000000").replace("shard_size = 6", "shard_size = 4"))
    exp = spec.load(exp_path)
    assert not isinstance(runner.plan(exp), list)

    with pytest.raises(runner.Interrupted, match="1 of 250,?000,?000,?000 shards are done"):
        runner.run(exp, tmp_path / "big", jobs=1, progress=StopAfterOne())
    kept = snapshot(tmp_path / "big" / runner.SHARDS)
    code, _, err = main(capsys, "run", exp_path, "--out", tmp_path / "big", "--quiet")
    assert code == 2 and "1 of 250000000000 shards done" in one_line(err)
    assert snapshot(tmp_path / "big" / runner.SHARDS) == kept


def _file_size_limit(limit: int):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_disk_that_cannot_take_a_shard_is_one_line_and_resumable(tmp_path):
    exp = tmp_path / "exp.toml"
    exp.write_text(BASE)
    cut = tmp_path / "cut"
    runner_exp = spec.load(exp)

    with pytest.raises(runner.Interrupted):
        runner.run(runner_exp, cut, jobs=1, progress=StopAfterOne())
    kept = snapshot(cut)
    biggest = max(len(v) for k, v in kept.items() if k.endswith(".parquet"))
    full = subprocess.run(
        [
            sys.executable,
            "-m",
            "experiments.cli",
            "run",
            str(exp),
            "--out",
            str(cut),
            "--resume",
            "--quiet",
            "--jobs",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=_file_size_limit(biggest // 2),
    )
    assert full.returncode == 2, full.stderr
    line = one_line(full.stderr)
    assert "cannot write shard arm0000-0000000006-0000000012" in line and "File too large" in line
    assert "run again with --resume" in line
    after = snapshot(cut)
    assert {k: v for k, v in after.items() if k.startswith("shards/")} == {
        k: v for k, v in kept.items() if k.startswith("shards/")
    }  # the finished shard is untouched; no half-written shard is left
    assert json.loads(after["run.json"])["status"] == "failed"
    again = eastindia("run", str(exp), "--out", str(cut), "--resume", "--quiet", "--no-report", "--jobs", "1")
    assert again.returncode == 0, again.stderr
    whole = tmp_path / "whole"
    runner.run(runner_exp, whole, jobs=1)
    assert frames(cut) == frames(whole)


def test_a_disk_that_fills_during_the_merge_keeps_the_shards(capsys, tmp_path, monkeypatch):
    import errno

    import pyarrow.parquet as pq

    (tmp_path / "exp.toml").write_text(BASE)

    def full(self, *args, **kw):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pq.ParquetWriter, "write_table", full)
    code, _, err = main(capsys, "run", tmp_path / "exp.toml", "--out", tmp_path / "o", "--quiet", "--jobs", "1")
    assert code == 2 and "No space left on device" in one_line(err) and "--resume" in err
    assert len(list((tmp_path / "o" / runner.SHARDS).iterdir())) == 2
    assert not list((tmp_path / "o").glob(".*tmp*")) and not rf.frame_path(tmp_path / "o", "games").exists()
    monkeypatch.undo()
    code, _, err = main(capsys, "run", tmp_path / "exp.toml", "--out", tmp_path / "o", "--quiet", "--resume")
    assert code == 0, err


# ------------------------------------------------------------------------------ two runs at once: the lock
WAIT_FOR_OPEN = (
    "deadline = time.time() + 120\n"
    "            while not Path(__file__).with_name('open').exists() and time.time() < deadline:\n"
    "                time.sleep(0.05)"
)
GATE = plugin("gate", WAIT_FOR_OPEN)


def test_two_processes_at_once_one_runs_the_other_is_refused_naming_its_pid(tmp_path):
    (tmp_path / "gate.py").write_text(GATE)
    exp = tmp_path / "exp.toml"
    exp.write_text(BASE.replace('["balanced", "random"]', '["gate", "balanced"]') + 'plugins = ["gate.py:Gate"]\n')
    out = tmp_path / "out"
    command = [sys.executable, "-m", "experiments.cli", "run", str(exp), "--out", str(out), "--quiet", "--no-report"]
    procs = [
        subprocess.Popen([*command, "--jobs", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
        subprocess.Popen([*command, "--jobs", "1", "--resume"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True),
    ]  # fmt: skip
    with gate_opened_at_exit(tmp_path, procs):
        deadline = time.time() + 120
        loser, winner, err = lock_race(procs)
        assert loser.returncode == 2
        assert f"in use by another run (pid {winner.pid} on" in one_line(err) and "choose another --out" in err
        while not (out / rf.META).exists() and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        before = snapshot(out)
        assert f"pid {winner.pid}" in before[".lock"].decode()
        for extra in (["--fresh"], ["--resume"], []):  # a third run, whatever it asks, is refused at once
            started = time.time()
            third = eastindia(*command[3:], *extra)
            assert third.returncode == 2 and f"(pid {winner.pid} on" in one_line(third.stderr)
            assert time.time() - started < 60
        assert snapshot(out) == before  # nothing the running run wrote was touched
        finish(tmp_path, winner)
    assert not (out / rf.LOCK).exists()
    assert rf.read_meta(out)["status"] == "complete"
    runner.run(spec.load(exp), tmp_path / "alone", jobs=1)
    assert frames(out) == frames(tmp_path / "alone")


def test_temporary_names_are_unique_per_writer_and_a_second_writer_of_a_shard_keeps_the_first(tmp_path):
    target = tmp_path / "games.parquet"
    assert rf.temp_name(target) != rf.temp_name(target)
    assert str(os.getpid()) in rf.temp_name(target).name
    exp_path = tmp_path / "exp.toml"
    exp_path.write_text(BASE)
    exp = spec.load(exp_path)
    shard = next(runner.plan(exp))
    shards = tmp_path / "shards"
    types = runner.param_types(exp)
    runner.play_shard(exp.arms[0], shard, exp.seed, (), types, str(shards), "k")
    first = snapshot(shards)
    runner.play_shard(exp.arms[0], shard, exp.seed, (), types, str(shards), "k")  # a late duplicate writer
    assert snapshot(shards) == first and [p.name for p in shards.iterdir()] == [shard.name]


# ------------------------------------------------------------------ symlinks, signals, dead parents, exits, hangs
def test_a_symlinked_lock_or_shards_folder_is_refused_and_its_target_untouched(tmp_path):
    (tmp_path / "exp.toml").write_text(BASE)
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    out = tmp_path / "out"
    out.mkdir()
    (out / rf.LOCK).symlink_to(victim)
    run = eastindia("run", str(tmp_path / "exp.toml"), "--out", str(out), "--quiet", "--jobs", "1", "--no-report")
    assert run.returncode == 2
    assert one_line(run.stderr) == f"eastindia: error: {out}: .lock is a symbolic link; refusing to follow it"
    assert victim.read_text() == "keep me" and (out / rf.LOCK).is_symlink()
    with pytest.raises(rf.LinkRefused):  # tune and sensitivity folders take the same lock
        rf.RunLock(out).acquire()
    assert victim.read_text() == "keep me"

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "mine.txt").write_text("mine")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / runner.SHARDS).symlink_to(elsewhere, target_is_directory=True)
    run = eastindia("run", str(tmp_path / "exp.toml"), "--out", str(linked), "--quiet", "--jobs", "1", "--no-report")
    assert run.returncode == 2
    assert one_line(run.stderr) == f"eastindia: error: {linked}: shards is a symbolic link; refusing to follow it"
    assert snapshot(elsewhere) == {"mine.txt": b"mine"}  # nothing written or deleted through the link

    covered = tmp_path / "covered"  # every file the merge writes, coverage.parquet too
    covered.mkdir()
    (covered / "coverage.parquet").symlink_to(victim)
    run = eastindia("run", str(tmp_path / "exp.toml"), "--out", str(covered), "--quiet", "--jobs", "1", "--no-report")
    assert run.returncode == 2 and "coverage.parquet is a symbolic link" in run.stderr
    assert victim.read_text() == "keep me"

    fitted = tmp_path / "fitted"  # the calibration pilot's cache
    fitted.mkdir()
    (fitted / "calibration").symlink_to(elsewhere, target_is_directory=True)
    (tmp_path / "calibrated.toml").write_text(BASE.replace("calibrate = false", "calibrate = true"))
    run = eastindia("run", str(tmp_path / "calibrated.toml"), "--out", str(fitted), "--quiet", "--no-report")
    assert run.returncode == 2 and "calibration is a symbolic link" in run.stderr
    assert snapshot(elsewhere) == {"mine.txt": b"mine"}


SLOW = plugin("slow", "time.sleep(0.5)\n            self.slept = True", "not getattr(self, 'slept', False)")


def _gated_experiment(tmp_path: Path, games: int = 12) -> Path:
    """An experiment whose shards after the first of each arm wait until the file ``open`` exists."""
    (tmp_path / "gate.py").write_text(plugin("gate", WAIT_FOR_OPEN, "(obs.games >= 6).any()"))
    exp = tmp_path / "exp.toml"
    text = BASE.replace("games = 12", f"games = {games}").replace('["balanced", "random"]', '["gate", "balanced"]')
    exp.write_text(text + 'plugins = ["gate.py:Gate"]\n')
    return exp


def _wait_for(condition, seconds: float = 60) -> None:
    deadline = time.time() + seconds
    while not condition():
        assert time.time() < deadline, "timed out"
        time.sleep(0.05)


@contextlib.contextmanager
def gate_opened_at_exit(tmp_path: Path, procs: list[subprocess.Popen]):
    """However the block ends, open the gate (the file ``open`` the ``Gate`` plugin waits for) and kill what still
    runs."""
    try:
        yield
    finally:
        (tmp_path / "open").write_text("")
        for p in procs:
            if p.poll() is None:
                p.kill()


def lock_race(procs: list[subprocess.Popen], seconds: float = 120) -> tuple[subprocess.Popen, subprocess.Popen, str]:
    """(loser, winner, the loser's stderr) of two commands started at once on one folder: the first to end lost."""
    _wait_for(lambda: any(p.poll() is not None for p in procs), seconds)
    (loser,) = [p for p in procs if p.poll() is not None]
    (winner,) = [p for p in procs if p is not loser]
    return loser, winner, loser.communicate(timeout=60)[1]


def finish(tmp_path: Path, winner: subprocess.Popen) -> None:
    """Open the gate and let the winner finish: it must succeed."""
    (tmp_path / "open").write_text("")
    _, err = winner.communicate(timeout=240)
    assert winner.returncode == 0, err


@pytest.mark.parametrize(
    "signum, code, started_ignoring_sigint",
    [(signal.SIGTERM, 143, False), (signal.SIGINT, 130, True)],
    ids=["SIGTERM", "SIGINT-to-the-main-process-alone"],
)
def test_a_signal_to_the_main_process_interrupts_the_run_and_resume_finishes_it_identically(
    capsys, tmp_path, signum, code, started_ignoring_sigint
):
    """SIGINT is honoured even by a run started with it ignored (as a shell starts a background job)."""
    exp = _gated_experiment(tmp_path)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "experiments.cli", "run", str(exp), "--out", str(out), "--quiet", "--no-report"]
    with open(tmp_path / "err.txt", "w") as err:
        proc = subprocess.Popen(
            [*command, "--jobs", "2"],
            stdout=subprocess.DEVNULL,
            stderr=err,
            preexec_fn=_started_ignoring_sigint if started_ignoring_sigint else None,
        )
    try:
        _wait_for(lambda: (out / runner.SHARDS / "arm0000-0000000000-0000000006" / rf.MANIFEST).exists())
        time.sleep(0.3)
        proc.send_signal(signum)
        assert proc.wait(timeout=30) == code
    finally:
        (tmp_path / "open").write_text("")
        if proc.poll() is None:
            proc.kill()
    name = signal.Signals(signum).name
    assert f"interrupted by {'Ctrl-C (SIGINT)' if name == 'SIGINT' else name}" in one_line(
        (tmp_path / "err.txt").read_text()
    )
    meta = rf.read_meta(out)
    assert meta["status"] == "interrupted"
    resumed, _, err = main(capsys, *command[3:], "--jobs", "1", "--resume")
    assert resumed == 0, err
    runner.run(spec.load(exp), tmp_path / "whole", jobs=1)
    assert frames(out) == frames(tmp_path / "whole")


def test_no_shard_is_written_after_the_main_process_is_killed(tmp_path):
    (tmp_path / "slow.py").write_text(SLOW)
    exp = tmp_path / "exp.toml"
    text = BASE.replace("games = 12", "games = 40").replace("shard_size = 6", "shard_size = 2")
    exp.write_text(text.replace('["balanced", "random"]', '["slow", "balanced"]') + 'plugins = ["slow.py:Slow"]\n')
    shards = tmp_path / "out" / runner.SHARDS
    proc = subprocess.Popen(
        [sys.executable, "-m", "experiments.cli", "run", str(exp), "--out", str(tmp_path / "out"), "--quiet"]
        + ["--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for(lambda: shards.is_dir() and any(not p.name.startswith(".") for p in shards.iterdir()))
        proc.kill()
        proc.wait(timeout=10)
        at_kill = sorted(p.name for p in shards.iterdir() if not p.name.startswith("."))
        time.sleep(3)
        assert sorted(p.name for p in shards.iterdir() if not p.name.startswith(".")) == at_kill
        proc.communicate(timeout=10)  # no worker holds the run's stdout or stderr open
    finally:
        if proc.poll() is None:
            proc.kill()
    assert len(at_kill) < 20


def test_a_strategy_that_ends_its_process_fails_the_run_even_with_one_job(tmp_path):
    (tmp_path / "quitter.py").write_text(plugin("quitter", "os._exit(0)", "(obs.games >= 6).any()"))
    exp = tmp_path / "exp.toml"
    exp.write_text(BASE.replace('["balanced", "random"]', '["quitter"]') + 'plugins = ["quitter.py:Quitter"]\n')
    out = tmp_path / "o"
    run = eastindia("run", str(exp), "--out", str(out), "--quiet", "--jobs", "1")
    assert run.returncode == 3 and run.stdout == ""
    line = one_line(run.stderr)
    assert "a worker process exited by itself (exit code 0) while playing a shard" in line and "--resume" in line
    meta = rf.read_meta(out)
    assert meta["status"] == "failed" and "exit code 0" in meta["error"]
    assert (out / runner.SHARDS / "arm0000-0000000000-0000000006" / rf.MANIFEST).exists()  # the first shard is kept


def test_a_plugin_that_ends_the_process_when_loaded_is_one_line_exit_2(tmp_path):
    (tmp_path / "gone.py").write_text("import os\nos._exit(0)\n")
    exp = tmp_path / "exp.toml"
    exp.write_text(BASE + 'plugins = ["gone.py:Gone"]\n')
    run = eastindia("run", str(exp), "--out", str(tmp_path / "o"), "--quiet", "--jobs", "1")
    assert run.returncode == 2
    assert "plugin 'gone.py:Gone': SystemExit: os._exit(0) called" in one_line(run.stderr)
    assert not (tmp_path / "o" / rf.META).exists()


def test_a_shard_exceeding_the_timeout_fails_the_run_in_one_line(tmp_path):
    (tmp_path / "hang.py").write_text(plugin("hang", "time.sleep(3600)", "(obs.games >= 6).any()"))
    exp = tmp_path / "exp.toml"
    exp.write_text(BASE.replace('["balanced", "random"]', '["hang"]') + 'plugins = ["hang.py:Hang"]\n')
    out = tmp_path / "o"
    started = time.time()
    run = eastindia("run", str(exp), "--out", str(out), "--quiet", "--jobs", "1", "--timeout", "5")
    assert time.time() - started < 60
    assert run.returncode == 3
    assert one_line(run.stderr) == (
        "eastindia: error: shard arm0000-0000000006-0000000012 exceeded --timeout 5 s (a strategy may hang); "
        "--resume retries it"
    )
    meta = rf.read_meta(out)
    assert meta["status"] == "failed" and "exceeded --timeout 5 s" in meta["error"]
    bad = eastindia("run", str(exp), "--out", str(tmp_path / "p"), "--quiet", "--timeout", "0")
    assert bad.returncode == 2 and "--timeout: must be a positive number of seconds" in one_line(bad.stderr)


def _started_ignoring_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a shell starts a background job


@pytest.mark.parametrize("stage", ["merge", "report"])
def test_ctrl_c_during_the_merge_or_the_report_is_exit_130(tmp_path, stage):
    """The plugin, imported by the main process (and by the worker, where it does nothing), sends SIGINT to the run
    when it merges or writes the report."""
    target = "experiments.runner.merge" if stage == "merge" else "reports.write_report"
    (tmp_path / "stop.py").write_text(
        "import os, signal, time\nimport experiments.runner\nfrom strategies import Strategy\n\n\n"
        "def interrupting(real):\n    def interrupted(*args, **kw):\n        os.kill(os.getpid(), signal.SIGINT)\n"
        "        time.sleep(5)\n        return real(*args, **kw)\n\n    return interrupted\n\n\n"
        f"if getattr(experiments.runner, '_OWNER', None) is None:\n    import {target.rpartition('.')[0]}\n\n"
        f"    {target} = interrupting({target})\n\n\nclass Stop(Strategy):\n    name = 'stop'\n"
    )
    (tmp_path / "exp.toml").write_text(BASE + 'plugins = ["stop.py:Stop"]\n')
    out = tmp_path / "o"
    run = subprocess.run(
        [sys.executable, "-m", "experiments.cli", "run", str(tmp_path / "exp.toml"), "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_started_ignoring_sigint,
    )
    assert run.returncode == 130 and run.stdout == ""
    line = one_line(run.stderr)
    if stage == "merge":
        assert (
            line.startswith("eastindia: interrupted by Ctrl-C (SIGINT): 2 of 2 shards are done") and "--resume" in line
        )
        assert rf.read_meta(out)["status"] == "interrupted"
    else:
        assert f"interrupted while writing the report: the results in {out} are complete" in line
        assert rf.read_meta(out)["status"] == "complete" and f"eastindia report {out}" in line


# ------------------------------------------------------------- the studies: killed, a full disk, two at once
# Tiny studies (4 players, two strategies): the metagame's 5 tables of 20 games, the tune's 8 trials of 20 games in
# two batches and a confirmation of 2 x 20. Each fault is followed by --resume, whose files must be byte-identical to
# those of the study played without the fault.
METAGAME = """name = "mg"
players = 4
games = 20
shard_size = 10
seed = 3
calibrate = false
strategies = ["balanced", "random"]

[metagame]
starts = 30
bootstrap = 10
"""
TUNE = """name = "tn"
players = 4
games = 20
shard_size = 10
seed = 9
calibrate = false
strategies = ["balanced", "random"]

[tune]
objective = "mean_end_round"
target = 3.5
trials = 8
batch = 4
startup = 3
confirm_games = 20

[tune.params]
"company.start_stability" = { low = 2, high = 6 }
"capital.formula" = { choices = ["inverse_share", "flat"] }
"""
STUDIES = {"metagame": METAGAME, "tune": TUNE}


def study_files(folder: Path) -> dict[str, bytes]:
    """Every table a study wrote (its own and its run folders' frames; not the shards, the lock or study.json, whose
    times differ) and its best.toml."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and (p.suffix == ".parquet" or p.name == "best.toml") and "shards" not in p.parts
    }


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> dict[str, Path]:
    """Each study played once without a fault."""
    base = tmp_path_factory.mktemp("studies")
    done = {}
    for kind, text in STUDIES.items():
        (base / f"{kind}.toml").write_text(text)
        args = [kind, str(base / f"{kind}.toml"), "--out", str(base / kind), "--quiet", "--no-report", "--jobs", "1"]
        assert cli.main(args) == 0
        done[kind] = base / kind
    return done


def study_command(tmp_path: Path, kind: str, out: Path) -> list[str]:
    (tmp_path / f"{kind}.toml").write_text(STUDIES[kind])
    return [kind, str(tmp_path / f"{kind}.toml"), "--out", str(out), "--quiet", "--no-report", "--jobs", "1"]


@pytest.mark.parametrize(
    "kind, mid_way",
    [("metagame", "tables/shards/arm0001-0000000000-0000000010"), ("tune", "trials/batch-0001-n4/shards")],
)
def test_a_study_killed_mid_way_resumes_to_the_same_files(capsys, tmp_path, uninterrupted, kind, mid_way):
    """SIGKILL (no handler runs, the lock and the temporary files are left as they were) once the study has played
    some of its games: --resume verifies what is kept and finishes with the files of the uninterrupted study."""
    out = tmp_path / "out"
    args = study_command(tmp_path, kind, out)
    proc = subprocess.Popen([sys.executable, "-m", "experiments.cli", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        _wait_for(lambda: (out / mid_way).exists() or proc.poll() is not None, 120)
        proc.kill()
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    assert search.read_meta(out)["status"] == "running"  # it died mid-way, marking nothing
    assert not (out / ("equilibria.parquet" if kind == "metagame" else "trials.parquet")).exists()
    code, _, err = main(capsys, *args)  # without --resume: refused, naming it
    assert code == 2 and "pass --resume" in one_line(err)
    code, _, err = main(capsys, *args, "--resume")
    assert code == 0, err
    assert study_files(out) == study_files(uninterrupted[kind])
    assert search.read_meta(out)["status"] == "complete" and not list(out.rglob(".*.tmp-*"))


class DiskFull:
    """The main process's disk fills at its ``at``-th write through ``runfolder.open_write`` (every file of a study,
    its run folders' merged frames and run.json): that write and every later one fail half-way with ENOSPC."""

    def __init__(self, at: int):
        self.at, self.writes = at, 0
        self.real = rf.open_write

    def __call__(self, run_dir, rel):
        self.writes += 1
        return self._full(run_dir, rel) if self.writes >= self.at else self.real(run_dir, rel)

    @contextlib.contextmanager
    def _full(self, run_dir, rel):
        with self.real(run_dir, rel) as fh:
            yield HalfWriter(fh)


class HalfWriter:
    def __init__(self, fh):
        self.fh = fh

    def write(self, data) -> int:
        self.fh.write(bytes(data)[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name):
        return getattr(self.fh, name)


# (study, the write that fails, the file named): a run folder's frames, the study's tables, its best.toml and its
# last study.json (of 15 writes in the metagame, 33 in the tune)
FULL_DISKS = [
    ("metagame", 5, "tables/games.parquet"),
    ("metagame", 12, "equilibria.parquet"),
    ("metagame", 15, "study.json"),
    ("tune", 15, "trials/batch-0001-n4/games.parquet"),
    ("tune", 31, "best.toml"),
]


@pytest.mark.parametrize("kind, at, named", FULL_DISKS, ids=[f"{k}-{a}" for k, a, _ in FULL_DISKS])
def test_a_full_disk_during_a_study_is_one_line_and_resume_gives_the_same_files(
    capsys, tmp_path, monkeypatch, uninterrupted, kind, at, named
):
    out = tmp_path / "out"
    args = study_command(tmp_path, kind, out)
    full = DiskFull(at)
    monkeypatch.setattr(rf, "open_write", full)
    code, _, err = main(capsys, *args)
    line = one_line(err)
    assert code == 2 and "No space left on device" in line and named in line and "--resume" in line
    assert full.writes >= at  # the disk filled where it was meant to
    monkeypatch.undo()  # space freed
    assert not list(out.rglob(".*.tmp-*"))  # no half-written file is left
    code, _, err = main(capsys, *args, "--resume")
    assert code == 0, err
    assert study_files(out) == study_files(uninterrupted[kind])


def test_a_study_database_that_cannot_grow_is_one_line_and_resume_gives_the_same_trials(
    capsys, tmp_path, uninterrupted
):
    """A real write limit (RLIMIT_FSIZE at the study.db's size after the first batch): SQLite's error while the
    second batch is told is one line naming study.db, exit 2 (once an internal error, exit 1), and --resume finishes
    the study as if nothing happened."""
    out = tmp_path / "out"
    args = study_command(tmp_path, "tune", out)
    import experiments.tune as tune

    class CutAfterFirstBatch:
        def batch(self, index, trials, games):
            pass

        def start(self, done):
            pass

        def advance(self, arm, games):
            pass

        def told(self, told, total, best):
            if told == 4:
                raise KeyboardInterrupt

        def confirming(self, games):
            pass

    with pytest.raises(runner.Interrupted):
        tune.run(tune.load(tmp_path / "tune.toml"), out, jobs=1, progress=CutAfterFirstBatch(), notify=lambda m: None)
    limit = (out / tune.STUDY).stat().st_size // 2  # SQLite writes its pages beyond: none of its writes succeeds
    assert max(p.stat().st_size for p in out.rglob("*.parquet")) < limit  # every other file fits
    full = subprocess.run(
        [sys.executable, "-m", "experiments.cli", *args, "--resume"],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=_file_size_limit(limit),
    )
    assert full.returncode == 2, full.stderr
    line = one_line(full.stderr)
    assert f"{out}: cannot write a study database (study.db): " in line and "--resume" in line
    assert search.read_meta(out)["status"] == "failed"
    assert len(study_trials(out)) == 4  # the trials told before are kept
    code, _, err = main(capsys, *args, "--resume")
    assert code == 0, err
    assert study_files(out) == study_files(uninterrupted["tune"])


@pytest.mark.parametrize("kind", ["run", "metagame"])
def test_two_started_at_once_on_one_folder_one_is_refused_by_the_lock_the_other_finishes_intact(capsys, tmp_path, kind):
    """Both processes started together, neither with --resume, on a folder that does not exist yet: the one that
    loses the lock says so in one line naming the other's pid, exit 2, whatever the winner has written by then; the
    winner's folder is what a run alone writes."""
    (tmp_path / "gate.py").write_text(GATE)  # every game after the first shard waits for the file `open`
    text = BASE if kind == "run" else METAGAME
    text = 'plugins = ["gate.py:Gate"]\n' + text.replace('["balanced", "random"]', '["gate", "balanced"]')
    exp = tmp_path / "exp.toml"
    exp.write_text(text)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "experiments.cli", kind, str(exp), "--out", str(out), "--quiet", "--no-report"]
    procs = [subprocess.Popen([*command, "--jobs", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]  # fmt: skip
    with gate_opened_at_exit(tmp_path, procs):
        loser, winner, err = lock_race(procs)
        assert loser.returncode == 2
        assert f"{out}: in use by another run (pid {winner.pid} on" in one_line(err)
        finish(tmp_path, winner)
    assert not (out / rf.LOCK).exists()
    alone = tmp_path / "alone"
    assert main(capsys, kind, exp, "--out", alone, "--quiet", "--no-report", "--jobs", "1")[0] == 0
    if kind == "run":
        assert rf.read_meta(out)["status"] == "complete" and frames(out) == frames(alone)
    else:
        assert search.read_meta(out)["status"] == "complete" and study_files(out) == study_files(alone)
