"""A run folder someone sends runs no code unless asked: replay and audit import the plugins its experiment.toml
names only with --allow-plugins, and then only files whose SHA-256 is the one its run recorded; report, compare,
export and pair never import them. Strategy names follow one pattern and two plugins never share one. A malformed
run.json, a plugin that raises KeyboardInterrupt or outlasts the import limit while it loads: one line, exit 2."""

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from experiments import cli, runmeta

TIMID = '''from strategies import Strategy

class Timid(Strategy):
    """Never borrows money."""
    name = "timid"

    def take_loans(self, obs, legal):
        return legal.max_loans * 0
'''
# writes MARKER next to itself when imported
EVIL = """import pathlib
pathlib.Path(__file__).with_name("MARKER").write_text("ran")
from strategies import Strategy

class Evil(Strategy):
    name = "evil"
"""
EXPERIMENT = 'name = "t"\ngames = 4\nshard_size = 4\nseed = 2\nstrategies = ["balanced", "timid"]\n'


def eastindia(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The command in a process of its own (a plugin it imports is not this process's), never hanging the tests."""
    return subprocess.run(
        [sys.executable, "-m", "experiments.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def one_line_error(out: subprocess.CompletedProcess | tuple[int, str]) -> str:
    code, err = (out.returncode, out.stderr) if isinstance(out, subprocess.CompletedProcess) else out
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.fixture(scope="module")
def plugin_run(tmp_path_factory) -> Path:
    """A finished run (no report) of balanced against the plugin timid.py:Timid, made by another process."""
    base = tmp_path_factory.mktemp("plugin_run")
    (base / "timid.py").write_text(TIMID)
    (base / "exp.toml").write_text(EXPERIMENT + 'plugins = ["timid.py:Timid"]\n')
    out = eastindia("run", "exp.toml", "--out", "run", "--quiet", "--jobs", "1", "--no-report", cwd=base)
    assert out.returncode == 0, out.stderr
    return base / "run"


def sent(plugin_run: Path, tmp_path: Path) -> Path:
    """A copy of the run whose experiment.toml also names evil.py, a file in the folder."""
    folder = tmp_path / "sent"
    shutil.copytree(plugin_run, folder)
    (folder / "evil.py").write_text(EVIL)
    toml = folder / "experiment.toml"
    toml.write_text(toml.read_text().replace("plugins = [", 'plugins = ["evil.py:Evil", ', 1))
    return folder


def test_run_records_the_sha256_of_each_plugin_file(plugin_run):
    plugins = json.loads((plugin_run / "run.json").read_text())["plugins"]
    timid = plugin_run.parent / "timid.py"
    assert plugins == {str(timid.resolve()): hashlib.sha256(timid.read_bytes()).hexdigest()}


def test_replay_and_audit_import_no_plugin_of_a_run_folder_without_allow_plugins(plugin_run, tmp_path):
    folder = sent(plugin_run, tmp_path)
    for args in (
        ["replay", str(folder), "--game", "0"],
        ["audit", str(folder), "--decision", "take_loans", "--round", "1", "--games", "1"],
    ):
        err = one_line_error(eastindia(*args))
        assert "'evil.py:Evil'" in err and "--allow-plugins" in err, err
        assert not (folder / "MARKER").exists(), args
    # the commands that only read frames never import it, and need no option
    for args in (
        ["report", str(folder)],
        ["export", str(folder), "--format", "csv"],
        ["compare", str(plugin_run), str(folder)],
        ["pair", str(folder), "--arm", "0", "--against", "0"],
    ):
        out = eastindia(*args)
        assert out.returncode == 0, (args, out.stderr)
        assert not (folder / "MARKER").exists(), args


def test_allow_plugins_imports_only_the_files_the_run_recorded(plugin_run, tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(plugin_run, folder)
    timid = tmp_path / "timid.py"  # the plugin moved with the folder: its path in both files follows it
    timid.write_text(TIMID)
    old = str((plugin_run.parent / "timid.py").resolve())
    toml = folder / "experiment.toml"
    toml.write_text(toml.read_text().replace(old, str(timid.resolve())))
    meta = json.loads((folder / "run.json").read_text())
    meta["plugins"] = {str(timid.resolve()): meta["plugins"][old]}
    (folder / "run.json").write_text(json.dumps(meta))

    out = eastindia("replay", str(folder), "--game", "1", "--allow-plugins")
    assert out.returncode == 0, out.stderr
    assert (folder / "replays" / "game-1.jsonl").is_file()

    timid.write_text(TIMID + "\nimport pathlib\npathlib.Path(__file__).with_name('MARKER').write_text('ran')\n")
    err = one_line_error(eastindia("replay", str(folder), "--game", "1", "--allow-plugins"))
    assert f"{timid.resolve()} is not the file the run imported" in err
    assert not (tmp_path / "MARKER").exists()
    timid.unlink()
    err = one_line_error(eastindia("audit", str(folder), "--decision", "take_loans", "--round", "1", "--allow-plugins"))
    assert f"no such file {timid.resolve()}" in err

    (tmp_path / "evil.py").write_text(EVIL)  # a plugin the run did not record is refused even when allowed
    toml.write_text(toml.read_text().replace("plugins = [", f'plugins = ["{tmp_path / "evil.py"}:Evil", ', 1))
    err = one_line_error(eastindia("replay", str(folder), "--game", "1", "--allow-plugins"))
    assert "records no checksum" in err and not (tmp_path / "MARKER").exists()


NAMES = """from strategies import Strategy

class Spaced(Strategy):
    name = "balanced "

class Upper(Strategy):
    name = "Timid"

class Dashed(Strategy):
    name = "bid-low"

class Timid(Strategy):
    name = "timid"
"""


@pytest.mark.parametrize(
    "plugins, message",
    [
        (["names.py:Spaced"], "strategy name 'balanced ': a name is a lowercase letter"),
        (["names.py:Upper"], "strategy name 'Timid': a name is a lowercase letter"),
        (["names.py:Dashed"], "strategy 'bid-low' reads as 'bid_low', a built-in strategy"),
        (["names.py:Timid", "timid.py:Timid"], "strategy 'timid' is already the name of plugin 'names.py:Timid'"),
    ],
)
def test_strategy_names_follow_one_pattern_and_no_two_plugins_share_one(
    tmp_path, monkeypatch, capsys, plugins, message
):
    (tmp_path / "names.py").write_text(NAMES)
    (tmp_path / "timid.py").write_text(TIMID)
    monkeypatch.chdir(tmp_path)
    flags = [x for p in plugins for x in ("--strategy", p)]
    code = cli.main(["strategies", *flags])
    err = one_line_error((code, capsys.readouterr().err))
    assert message in err
    code = cli.main(["run", *flags, "--out", "out", "--quiet"])
    err = one_line_error((code, capsys.readouterr().err))
    assert err.startswith("eastindia: error: --strategy: plugin") and message in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda m: m.pop("arms"), "run.json: arms: missing"),
        (lambda m: m.update(arms="abc"), "run.json: arms: expected a list of arms, got 'abc'"),
        (lambda m: m["arms"][0].update(index="a"), "run.json: arms[0].index: expected a whole number"),
        (lambda m: m["arms"][0].update(strategies=5), "run.json: arms[0].strategies: expected a list"),
        (lambda m: m.update(status=5), "run.json: status: expected text, got 5"),
    ],
)
def test_a_malformed_run_json_is_one_line_exit_2(plugin_run, tmp_path, capsys, change, message):
    folder = tmp_path / "run"
    shutil.copytree(plugin_run, folder)
    meta = json.loads((folder / "run.json").read_text())
    change(meta)
    (folder / "run.json").write_text(json.dumps(meta))
    for args in (
        ["report", str(folder)],
        ["compare", str(plugin_run), str(folder)],
        ["export", str(folder), "--format", "csv"],
        ["pair", str(folder), "--arm", "0", "--against", "0"],
        ["replay", str(folder), "--game", "0"],
        ["audit", str(folder), "--decision", "take_loans", "--round", "1"],
    ):
        code = cli.main(args)
        err = one_line_error((code, capsys.readouterr().err))
        assert f"{folder}: {message}" in err, (args, err)


def test_a_plugin_raising_keyboard_interrupt_while_it_loads_is_a_plugin_error(tmp_path):
    (tmp_path / "stop.py").write_text('raise KeyboardInterrupt("not now")\n')
    err = one_line_error(eastindia("strategies", "--strategy", "stop.py:Stop", cwd=tmp_path))
    assert err == "eastindia: error: plugin 'stop.py:Stop': KeyboardInterrupt: not now\n"


SLEEPY = """import time

try:
    time.sleep(30)
except Exception:  # the limit is no Exception it could swallow
    pass
"""


def test_a_plugin_that_sleeps_while_it_loads_is_stopped_by_the_timeout(tmp_path):
    (tmp_path / "sleepy.py").write_text(SLEEPY)
    limit = "(the limit: --plugin-timeout, or run's --timeout)"
    out = eastindia("run", "--strategy", "sleepy.py:Sleepy", "--timeout", "1", "--out", "o", "--quiet", cwd=tmp_path)
    err = one_line_error(out)
    assert err == f"eastindia: error: --strategy: plugin 'sleepy.py:Sleepy': still importing after 1 s {limit}\n"
    assert not (tmp_path / "o").exists()
    out = eastindia("strategies", "--strategy", "sleepy.py:Sleepy", "--plugin-timeout", "1.5", cwd=tmp_path)
    assert one_line_error(out) == f"eastindia: error: plugin 'sleepy.py:Sleepy': still importing after 1.5 s {limit}\n"


def a_run_json(**top) -> dict:
    """The smallest run.json the commands read: one arm of one strategy (plus ``top``)."""
    return {"arms": [{"arm": "a", "index": 0, "strategies": ["balanced"]}], **top}


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda m: m.update(arms=[]), "arms: expected a list of arms, got []"),
        (lambda m: m.update(seed=True), "seed: expected a whole number, got True"),
        (lambda m: m.update(plugins={"timid.py": 5}), "plugins: expected a SHA-256 per plugin file"),
        (lambda m: m["arms"][0].update(index=-1), "arms[0].index: expected a whole number no other arm has"),
        (lambda m: m["arms"].append({**m["arms"][0], "arm": "b"}), "arms[1].index: expected a whole number no other"),
        (lambda m: m["arms"].append({**m["arms"][0], "index": 1}), "arms[1].arm: expected a name no other arm has"),
        (lambda m: m["arms"][0].update(strategies=[]), "arms[0].strategies: expected a list of strategy labels"),
        (lambda m: m["arms"][0].update(rotations=0), "arms[0].rotations: expected a whole number of seatings"),
        (lambda m: m["arms"][0].update(rotate="some"), 'arms[0].rotate: expected true, false or "all"'),
        (
            lambda m: m["arms"][0].update(calibration={"coefficients": {"crash_logit": [[0.9]]}}),
            "arms[0].calibration.coefficients: expected a number or a list of them per quantity",
        ),
    ],
)
def test_each_malformed_run_json_field_is_named(change, message):
    """``experiments.runmeta.problem`` on its own: every check it makes, each at its edge (an empty list of arms or
    of strategies, a negative index, two arms sharing an index or a name, a bool for a whole number, a plugin
    without its SHA-256 text, 0 seatings, a nested list of coefficients), while the shapes a run writes pass: no
    calibration (None), rotate "all", one seating, a list of coefficients."""
    good = a_run_json(seed=0, plugins={"timid.py": "ab" * 32})
    good["arms"][0].update(calibration=None, rotate="all", rotations=1)
    assert runmeta.problem(good) is None
    good["arms"][0].update(calibration={"coefficients": {"crash_logit": [0.9, -1.2], "region_loss_rate": 0.3}})
    assert runmeta.problem(good) is None
    meta = a_run_json()
    change(meta)
    assert (runmeta.problem(meta) or "").startswith(message)
