"""The eastindia command: capital calculator, strategies, validate, rules, run; every bad input gives one line,
exit code 2, no traceback, and touches no existing results; Ctrl-C keeps finished shards for --resume."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import polars as pl
import pytest

from experiments import cli, runner, spec
from experiments import runfolder as rf

BASE = 'name = "t"\ngames = 12\nshard_size = 6\nseed = 2\nstrategies = ["balanced", "random"]\n'
NOT_A_STRATEGY = "class Plain:\n    pass\n"
PLUGIN = '''from strategies import Strategy

class Timid(Strategy):
    """Never borrows money."""
    name = "timid"

    def take_loans(self, obs, legal):
        return legal.max_loans * 0
'''
CHEAT = '''from strategies import Strategy

class Cheat(Strategy):
    """Always asks for one loan too many."""
    name = "cheat"

    def take_loans(self, obs, legal):
        return legal.max_loans + 1
'''

IMPOSTOR = '''from strategies import Strategy

class Impostor(Strategy):
    """Never borrows money, and claims the built-in's name."""
    name = "balanced"

    def take_loans(self, obs, legal):
        return legal.max_loans * 0

class Balanced(Impostor):
    """Named after its class: balanced too."""
'''


def eastindia(*args: str, cwd: Path | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "experiments.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=300, **kw
    )


def test_capital_calculator_seed_example():
    out = eastindia("capital", "50", "35", "20", "0", "0")
    assert out.returncode == 0, out.stderr
    rows = [line.split() for line in out.stdout.splitlines() if line[:1] in "ABCDE" and len(line.split()) == 4]
    assert [r[3] for r in rows] == ["4", "5", "6", "7", "7"]
    assert [r[2] for r in rows] == ["3.93", "5.00", "6.07", "7.50", "7.50"]
    assert "leftover: 1 coin" in out.stdout


def test_capital_calculator_options(capsys):
    assert cli.main(["capital", "10", "10", "10", "10", "--formula", "flat", "--budget", "7"]) == 0  # per player
    text = capsys.readouterr().out
    assert "flat" in text and "B = 7 per player x 4 = 28" in text and text.count(" 7\n") >= 4
    assert cli.main(["capital", "1", "2", "3"]) == 2  # 3 players is impossible
    assert "3 players is impossible" in capsys.readouterr().err


def test_strategies_lists_registered_and_plugins(tmp_path):
    (tmp_path / "timid.py").write_text(PLUGIN)
    out = eastindia("strategies", "--strategy", f"{tmp_path}/timid.py:Timid")
    assert out.returncode == 0
    names = {line.split()[0] for line in out.stdout.splitlines()}
    assert {"balanced", "random", "timid"} <= names
    assert "Never borrows money." in out.stdout


def test_validate_reports_every_problem(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text(BASE)
    assert eastindia("validate", str(good)).returncode == 0
    bad = tmp_path / "bad.toml"
    bad.write_text(
        'games = "many"\nplayers = 9\nstrategies = ["nobody"]\ncolour = "red"\n[sweep]\n"capital.formula" = ["x"]\n'
    )
    out = eastindia("validate", str(bad))
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    for needle in ("colour: unknown key", "games: expected int", "players: 9 players", "unknown strategy 'nobody'"):
        assert any(needle in line for line in lines), needle
    assert any("sweep.capital.formula[0]" in line for line in lines)
    rules = tmp_path / "rules.toml"
    rules.write_text("[company]\nstart_stability = 9\nloan_value = -5\n[shipping]\nleased = 2\n")
    out = eastindia("validate", str(rules))
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 2  # loan_value, shipping.leased
    assert "company.loan_value" in out.stderr and "shipping.leased: unknown key" in out.stderr


def test_validate_prints_problems_on_stderr_and_ok_on_stdout(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text(BASE)
    out = eastindia("validate", str(good))
    assert (out.returncode, out.stdout, out.stderr) == (0, f"{good}: ok\n", "")
    bad = tmp_path / "bad.toml"
    bad.write_text('games = "many"\ncolour = "red"\n')
    out = eastindia("validate", str(bad))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.splitlines() == [
        f"{bad}: colour: unknown key (known: {', '.join(sorted(spec.TOP_KEYS))})",
        f"{bad}: games: expected int, got 'many'",
    ]


def test_rules_dump_prints_the_default_file(capsys):
    assert cli.main(["rules", "--dump"]) == 0
    data = tomllib.loads(capsys.readouterr().out)
    assert data["game"]["players"] == 5 and len(data["map"]["orders"]) == 17


@pytest.mark.parametrize(
    "content, message",
    [
        ("games = 10\n[sweep\n", "malformed TOML"),
        ('games = 10\ncolour = "red"\n', "colour: unknown key"),
        ('games = 10\nstrategies = ["nobody"]\n', "unknown strategy 'nobody'"),
        ('games = 10\n[sweep]\n"capital.budget_per_player" = ["six"]\n', "sweep.capital.budget_per_player[0]"),
        ("games = 10\nplayers = 3\n", "3 players is impossible"),
        ('games = 10\nplugins = ["missing.py:Bot"]\n', "no such file"),
        ('games = 10\nplugins = ["plain.py:Plain"]\n', "Plain is not a subclass of strategies.Strategy"),
        ('games = 10\n[overrides]\n"company.loan_value" = "five"\n', "overrides.company.loan_value"),
    ],
)
def test_bad_experiment_one_line_exit_2_no_traceback(tmp_path, content, message):
    (tmp_path / "plain.py").write_text(NOT_A_STRATEGY)
    exp = tmp_path / "exp.toml"
    exp.write_text(content)
    out = eastindia("run", str(exp), "--out", str(tmp_path / "out"), "--quiet")
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_unknown_strategy_on_the_command_line(tmp_path):
    out = eastindia("run", "--strategy", "nobody", "--out", str(tmp_path / "o"), "--quiet")
    assert out.returncode == 2 and "unknown strategy 'nobody'" in out.stderr and "Traceback" not in out.stderr


def test_a_plugin_cannot_take_the_name_of_a_built_in_strategy(tmp_path):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "x.py").write_text(IMPOSTOR)
    (tmp_path / "exp.toml").write_text(BASE + 'plugins = ["bots/x.py:Impostor"]\n')
    taken = "strategy 'balanced' takes the name of a built-in strategy; rename it"
    for args, where in [
        (["run", "exp.toml"], "exp.toml: plugins[0]: plugin 'bots/x.py:Impostor'"),
        (["run", "--strategy", "bots/x.py:Impostor"], "--strategy: plugin 'bots/x.py:Impostor'"),
        (["run", "--strategy", "bots/x.py:Balanced"], "--strategy: plugin 'bots/x.py:Balanced'"),
        (["strategies", "--strategy", "bots/x.py:Impostor"], "plugin 'bots/x.py:Impostor'"),
    ]:
        out = (
            eastindia(*args, "--out", "out", "--quiet", cwd=tmp_path)
            if args[0] == "run"
            else eastindia(*args, cwd=tmp_path)
        )
        assert (out.returncode, out.stderr) == (2, f"eastindia: error: {where}: {taken}\n"), args
        assert not (tmp_path / "out").exists()


def test_run_then_refuse_a_different_experiment_in_the_same_folder(tmp_path):
    exp = tmp_path / "exp.toml"
    exp.write_text(BASE)
    out_dir = tmp_path / "out"
    first = eastindia("run", str(exp), "--out", str(out_dir), "--quiet", "--jobs", "1")
    assert first.returncode == 0, first.stderr
    assert f"results: {out_dir}" in first.stdout
    for frame in rf.FRAMES:
        assert rf.frame_path(out_dir, frame).exists()
    before = {p.name: p.read_bytes() for p in out_dir.iterdir() if p.is_file()}
    other = eastindia("run", str(exp), "--seed", "5", "--out", str(out_dir), "--quiet")  # more games would extend it
    assert other.returncode == 2 and "holds a different experiment" in other.stderr
    assert "Traceback" not in other.stderr
    assert {p.name: p.read_bytes() for p in out_dir.iterdir() if p.is_file()} == before


def test_a_strategys_illegal_answer_stops_the_run_with_one_line(tmp_path):
    (tmp_path / "cheat.py").write_text(CHEAT)
    exp = tmp_path / "exp.toml"
    exp.write_text(BASE.replace('["balanced", "random"]', '["cheat"]') + 'plugins = ["cheat.py:Cheat"]\n')
    out = eastindia("run", str(exp), "--out", str(tmp_path / "o"), "--quiet", "--jobs", "1")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "strategy 'cheat'" in out.stderr and "'take_loans'" in out.stderr and "in game" in out.stderr


def test_ctrl_c_keeps_finished_shards_and_resume_finishes(tmp_path):
    exp = tmp_path / "exp.toml"
    exp.write_text(BASE.replace("games = 12", "games = 400").replace("shard_size = 6", "shard_size = 20"))
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    assert eastindia("run", str(exp), "--out", str(whole), "--quiet", "--no-report").returncode == 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "experiments.cli", "run", str(exp), "--out", str(cut), "--quiet", "--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    shards = cut / runner.SHARDS
    deadline = time.time() + 120
    while time.time() < deadline:
        done = [p for p in shards.iterdir() if not p.name.startswith(".")] if shards.exists() else []
        if len(done) >= 2:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "--resume" in err and "Traceback" not in err
    kept = [p for p in shards.iterdir() if not p.name.startswith(".")]
    assert 2 <= len(kept) < 20
    assert not rf.frame_path(cut, "games").exists()
    again = eastindia("run", str(exp), "--out", str(cut), "--quiet", "--resume", "--no-report")
    assert again.returncode == 0, again.stderr
    for frame in rf.FRAMES:
        assert rf.frame_path(whole, frame).read_bytes() == rf.frame_path(cut, frame).read_bytes()


def test_the_installed_command_exists():
    exe = Path(sys.executable).with_name("eastindia")
    if not exe.exists():
        pytest.skip("not installed as a console script in this environment")
    out = subprocess.run([str(exe), "--help"], capture_output=True, text=True, env={**os.environ})
    assert out.returncode == 0 and "run" in out.stdout


# ------------------------------------------------------------------------------------------ start-up
HEAVY = ("matplotlib", "altair", "vl_convert", "scipy", "statsmodels", "pandas")  # a second or more of CPU to import
LIGHT_COMMANDS = [
    ["--help"],
    ["capital", "50", "35", "20", "0", "0"],
    ["strategies"],
    ["rules", "--dump"],
    ["validate", str(Path(spec.__file__).with_name("library") / "tune_capital.toml")],
]


def test_importing_the_command_line_loads_no_reporting_library():
    """experiments.cli imports the reports and the statistics inside the commands that use them."""
    code = f"import sys, experiments.cli\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


@pytest.mark.parametrize("command", LIGHT_COMMANDS, ids=lambda c: c[0])
def test_help_and_the_light_commands_load_no_reporting_library(command):
    """``python -X importtime`` names on stderr every module the command imports, down to the last."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "experiments.cli", *command],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    imported = {
        line.rpartition("|")[2].strip().split(".")[0]
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "experiments" in imported  # the log is read right
    assert not imported & set(HEAVY)


# ------------------------------------------------------------------------------------------ input limits
MAX_TOML_DEPTH, MAX_TOML_BYTES = 32, 1 << 20  # the limits docs/guide.md documents (sim.rules)


def test_toml_nested_too_deeply_is_one_line_exit_2(tmp_path):
    """100,000 levels overflow the TOML parser's stack; 33 parse but pass the limit; 32 are allowed."""
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    over = tmp_path / "over.toml"
    over.write_text("a = " + "[" * MAX_TOML_DEPTH + "]" * MAX_TOML_DEPTH + "\n")  # + the top table: one too many
    for path in (deep, over):
        for command in (["validate", str(path)], ["run", str(path), "--out", str(tmp_path / "out"), "--quiet"]):
            out = eastindia(*command)
            assert out.returncode == 2 and out.stdout == "", out.stderr
            assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
            assert f"{path}: tables and lists nested more than {MAX_TOML_DEPTH} deep" in out.stderr
    assert not (tmp_path / "out").exists()
    at_limit = tmp_path / "limit.toml"
    at_limit.write_text("a = " + "[" * (MAX_TOML_DEPTH - 1) + "]" * (MAX_TOML_DEPTH - 1) + "\n")  # + the top table
    out = eastindia("validate", str(at_limit))
    assert out.returncode == 2 and "a: unknown section" in out.stderr  # read, then checked as a rules file


def test_toml_file_larger_than_the_limit_is_one_line_exit_2(tmp_path):
    big = tmp_path / "big.toml"
    big.write_text(BASE + "#" * MAX_TOML_BYTES + "\n")
    out = eastindia("validate", str(big))
    assert out.returncode == 2 and out.stderr == f"{big}: larger than 1 MiB (the limit of a TOML file here)\n"


def test_shipped_toml_files_fit_well_under_the_limits():
    from sim import rules
    from sim.rules import DEFAULT_PATH
    from sim.rules import _deeper_than as deeper_than

    assert (rules.MAX_TOML_DEPTH, rules.MAX_TOML_BYTES) == (MAX_TOML_DEPTH, MAX_TOML_BYTES)

    for path in [DEFAULT_PATH, *sorted(Path(spec.__file__).with_name("library").glob("*.toml"))]:
        assert path.stat().st_size < MAX_TOML_BYTES / 10, path
        assert not deeper_than(tomllib.loads(path.read_text(encoding="utf-8")), MAX_TOML_DEPTH // 4), path


def test_strategy_parameter_nested_too_deeply_is_one_line_exit_2(tmp_path):
    value = "[" * 50_000 + "]" * 50_000
    out = eastindia("run", "--strategy", f"bid_low:max_bid={value}", "--out", str(tmp_path / "o"), "--quiet")
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert out.stderr.startswith("eastindia: error: --strategy: bid_low:max_bid=[[[")
    assert "a parameter value is nested too deeply" in out.stderr


# --------------------------------------------------------------------------------------------- scheduler
@pytest.mark.parametrize(
    "address, loopback",
    [
        ("tcp://127.0.0.1:8786", True),
        ("127.0.0.1:8786", True),
        ("tcp://127.8.9.10:8786", True),
        ("tcp://localhost:8786", True),
        ("LOCALHOST:8786", True),
        ("tcp://[::1]:8786", True),
        ("inproc://192.168.1.2/123/1", True),
        ("auto", True),
        ("tcp://203.0.113.1:8786", False),
        ("203.0.113.1:8786", False),
        ("tls://10.0.0.5:8786", False),
        ("ray://head.cluster.example:10001", False),
        ("tcp://[2001:db8::1]:8786", False),
        ("tcp://localhost.example.com:8786", False),
        ("tcp://0.0.0.0:8786", False),
    ],
)
def test_scheduler_address_on_this_machine_or_not(address, loopback):
    assert cli.is_loopback(address) is loopback


def test_a_scheduler_not_on_this_machine_is_warned_of_before_any_connection(monkeypatch, capsys):
    """The warning is printed first; the handshake (here a stand-in that records what was printed) comes after."""
    distributed = pytest.importorskip("distributed.comm")
    seen = []

    async def refuse(address, timeout=None):
        seen.append((address, capsys.readouterr().err))
        raise OSError("connection refused")

    monkeypatch.setattr(distributed, "connect", refuse)
    with pytest.raises(runner.RunError, match="cannot reach the dask scheduler: connection refused"):
        cli.check_scheduler("tcp://203.0.113.1:8786", "dask")
    [(address, warned)] = seen
    assert address == "tcp://203.0.113.1:8786" and warned.count("\n") == 1
    assert warned.startswith("eastindia: warning: --scheduler tcp://203.0.113.1:8786 is not on this machine")
    assert "pickled" in warned and "a cluster you control" in warned
    cli.check_scheduler("ray://203.0.113.1:10001", "ray")  # Ray: the warning alone, no connection from here
    assert "eastindia: warning: --scheduler ray://203.0.113.1:10001 is not on this machine" in capsys.readouterr().err


def test_a_web_server_answering_as_the_dask_scheduler_is_one_line_exit_2(tmp_path):
    """An HTTP reply read as a Dask frame length asked for 3 EiB (MemoryError); now: one line, nothing written."""
    pytest.importorskip("distributed")
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(60)
    port = server.getsockname()[1]

    def answer() -> None:  # every connection gets what a web server says to a request it cannot parse
        with server:
            while True:
                try:
                    conn, _ = server.accept()
                except OSError:
                    return
                with conn:
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    time.sleep(0.2)

    threading.Thread(target=answer, daemon=True).start()
    try:
        (tmp_path / "exp.toml").write_text(BASE)
        out_dir = tmp_path / "out"
        command = ["run", str(tmp_path / "exp.toml"), "--out", str(out_dir), "--quiet", "--backend", "dask"]
        out = eastindia(*command, "--scheduler", f"tcp://127.0.0.1:{port}")
    finally:
        server.close()
    assert out.returncode == 2 and "warning" not in out.stderr  # on this machine: no warning
    assert out.stderr == (
        f"eastindia: error: --scheduler tcp://127.0.0.1:{port}: what answers there is not a dask scheduler "
        "(a web server? the dashboard's port?)\n"
    )
    assert not out_dir.exists()


def test_version_names_the_installed_package():
    from importlib.metadata import version

    done = subprocess.run([sys.executable, "-m", "experiments.cli", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == f"eastindia {version('eastindia')}"


# ------------------------------------------------------------------------ a finished run: summary, progress, export
NAMED_ARMS = BASE + (
    '\n[[arms]]\nname = "rich"\noverrides = { "capital.budget_per_player" = 8 }\n\n[[arms]]\nname = "plain"\n'
)


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """One finished run of two named arms (the second with the experiment's own rules), played by the command."""
    tmp = tmp_path_factory.mktemp("finished")
    (tmp / "exp.toml").write_text(NAMED_ARMS)
    done = eastindia("run", "exp.toml", "--out", "out", "--jobs", "1", "--no-report", cwd=tmp)
    assert done.returncode == 0, done.stderr
    return tmp / "out", done, json.loads((tmp / "out" / "run.json").read_text())


def test_run_prints_one_table_of_its_arms_with_the_change_against_the_reference_on_stdout_and_its_progress_on_stderr(
    finished,
):
    _, done, _ = finished
    out = done.stdout
    assert "t: 2 arms, 12 games each" in out
    # a named arm keeps its name (not budget_per_player=8); the crash change has its paired 95 % interval
    assert re.search(r"^ rich\s+\d+\.\d %\s+[+−]\d+\.\d pp \([+−]\d+\.\d to [+−]\d+\.\d\)", out, re.M)
    assert re.search(r"^ plain\s+\d+\.\d %\s+reference", out, re.M)
    assert "budget_per_player" not in out
    assert "95 %" in out and "fair share is 50.0 %" in out
    assert "f64" not in out and "ETA" not in out and "/24" not in out  # no dtype rows, no progress on stdout
    lines = re.findall(r"eastindia: (\d+)/24 games, ([\d,.]+) games/s, ETA \d+:\d\d:\d\d", done.stderr)
    assert lines and lines[-1][0] == "24"


def test_the_default_reference_is_the_arm_with_the_experiments_own_rules(finished):
    _, _, meta = finished
    assert [a["arm"] for a in meta["arms"]] == ["rich", "plain"]
    assert meta["reference"] == "plain"


def test_a_reference_chosen_by_report_is_kept_by_run(finished, tmp_path):
    out, _, _ = finished
    copy = tmp_path / "out"
    shutil.copytree(out, copy)
    chosen = eastindia("report", str(copy), "--reference", "0")  # by index: "rich"
    assert chosen.returncode == 0, chosen.stderr
    assert set(pl.read_parquet(copy / "comparisons.parquet")["reference"]) == {"rich"}
    again = eastindia("run", str(out.parent / "exp.toml"), "--out", str(copy), "--no-report", "--quiet")
    assert again.returncode == 0, again.stderr
    assert json.loads((copy / "run.json").read_text())["reference"] == "rich"
    bad = eastindia("report", str(copy), "--reference", "7")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "--reference: '7' is neither the name nor the index of an arm (0: 'rich', 1: 'plain')" in bad.stderr


def test_the_summary_after_a_report_is_printed_from_the_aggregates_the_report_was_drawn_from(
    finished, tmp_path, monkeypatch, capsys
):
    """``report`` reads the frames once: its terminal summary is the one printed from the run folder, from the
    aggregates the report was drawn from; with ``--reference`` the summary compares with the arm chosen."""
    from reports import data, report, terminal

    out, _, _ = finished
    copy = tmp_path / "out"
    shutil.copytree(out, copy)
    cli.print_summary(rf.Run.open(copy))
    read = capsys.readouterr().out
    calls = []

    def counted(*args, **kwargs):
        calls.append(args)
        return data.aggregate(*args, **kwargs)

    monkeypatch.setattr(report, "aggregate", counted)
    monkeypatch.setattr(terminal, "aggregate", counted)
    assert cli.main(["report", str(copy), "--quiet"]) == 0
    assert len(calls) == 1 and capsys.readouterr().out.split("\n", 1)[1] == read  # after the line "report: <path>"
    assert cli.main(["report", str(copy), "--quiet", "--reference", "rich"]) == 0
    printed = capsys.readouterr().out
    assert re.search(r"^ rich\s+\d+\.\d %\s+reference", printed, re.M) and len(calls) == 3


def test_export_writes_each_frame_as_csv(finished, tmp_path):
    out, _, _ = finished
    done = eastindia("export", str(out), "--format", "csv", "--out", str(tmp_path / "csv"))
    assert done.returncode == 0, done.stderr
    for frame in rf.FRAMES:
        parquet = pl.read_parquet(rf.frame_path(out, frame))
        csv = pl.read_csv(tmp_path / "csv" / f"{frame}.csv", infer_schema_length=0)
        assert csv.columns == parquet.columns and csv.height == parquet.height > 0
    games = pl.read_csv(tmp_path / "csv" / "games.csv")
    assert games["winner_seat"].to_list() == pl.read_parquet(rf.frame_path(out, "games"))["winner_seat"].to_list()
    assert json.loads(games["decisions"][0])[0].keys() == {"decision", "asks"}  # a nested column as JSON text
    for args, message in (
        ([str(tmp_path)], f"{tmp_path}: not a run folder (no run.json)"),
        ([str(out), "--out", str(out / "run.json")], "is a file, not a folder"),
    ):
        bad = eastindia("export", *args, "--format", "csv")
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and message in bad.stderr, bad.stderr


def test_the_terminal_summary_of_one_strategy_shows_no_win_rate(tmp_path, capsys):
    """One strategy in every seat wins every game: no "100 %" win rate that reads like a bug, a caption instead."""
    from reports_fixture import make_run

    cli.print_summary(rf.Run.open(make_run(tmp_path / "one", [{}], games=50, seed=4, strategies=["balanced"] * 5)))
    out = capsys.readouterr().out
    assert "crash rate" in out and "mean end round" in out and "win rate" not in out
    assert "balanced plays every seat: it wins every game" in out and "1.000" not in out


# ----------------------------------------------- progress on stderr: report, compare, audit and the studies' reports
def folder_files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by its path inside it."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def told(err: str, command: str) -> list[str]:
    """The progress lines of ``command`` on stderr."""
    return [line for line in err.splitlines() if line.startswith(f"eastindia: {command}: ")]


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_steps_print_the_step_then_a_count_with_its_rate_and_time_left_at_most_every_two_seconds():
    """Off a terminal: a line when a step begins; in a counted step a line at most every EVERY_S seconds and one at
    its end, with the rate since the step's first call and the time left at that rate; a live step shows nothing."""
    import io

    from rich.console import Console

    file = io.StringIO()
    steps = cli.Steps("report", Console(file=file, width=300))
    steps.clock = clock = Clock()
    steps.live("loading the reporting libraries")  # not a terminal: nothing
    steps("aggregating the frames")
    steps("charts", 0, 10)
    clock.now = 1.0
    steps("charts", 1, 10)  # within 2 s of the last line: none
    clock.now = 4.0
    steps("charts", 4, 10)  # 4 charts in 4 s, 6 left
    clock.now = 5.0
    steps("charts", 5, 10)
    clock.now = 16.0
    steps("charts", 10, 10)  # the end: 10 charts in 16 s
    steps("charts", 10, 10)  # told again: no second line
    steps("writing report.html")
    assert file.getvalue().splitlines() == [
        "eastindia: report: aggregating the frames",
        "eastindia: report: charts 0/10",
        "eastindia: report: charts 4/10, 1.0/s, ETA 0:00:06",
        "eastindia: report: charts 10/10, 1.6 s each, ETA 0:00:00",
        "eastindia: report: writing report.html",
    ]


def test_a_studys_report_names_each_step_after_the_run_it_belongs_to():
    """A tune's confirmation run or a player count's folder: ``within`` names its steps after it, nested ones after
    both; ``live`` steps show on a terminal only (nothing here)."""
    import io

    from rich.console import Console

    file = io.StringIO()
    steps = cli.Steps("report", Console(file=file, width=300))
    steps.within("4p").within("confirmation")("charts", 0, 3)
    steps.within("5p")("writing the tune report")
    steps.within("5p").live("loading")
    assert file.getvalue().splitlines() == [
        "eastindia: report: 4p: confirmation: charts 0/3",
        "eastindia: report: 5p: writing the tune report",
    ]


def test_report_tells_its_steps_and_charts_on_stderr_quiet_silences_them_and_the_files_are_the_same(
    finished, tmp_path, capsys
):
    from reports.charts import CHARTS

    out, _, _ = finished
    told_, quiet = tmp_path / "told", tmp_path / "quiet"
    shutil.copytree(out, told_)
    shutil.copytree(out, quiet)
    n = len(CHARTS)
    assert cli.main(["report", str(told_), "--reference", "rich"]) == 0  # another reference arm than run.json's
    printed = capsys.readouterr()
    lines = told(printed.err, "report")
    assert lines[:4] == [
        "eastindia: report: aggregating the frames",
        "eastindia: report: comparing 2 arms with the reference",
        "eastindia: report: precision of the headlines",
        f"eastindia: report: charts 0/{n}",
    ]
    assert re.fullmatch(rf"eastindia: report: charts {n}/{n}, [\d.,]+(/s| s each), ETA 0:00:00", lines[-5])
    drawn = len(list((told_ / "charts").glob("*.png")))  # the charts that apply to this run, each embedded
    assert lines[-4:] == [
        "eastindia: report: tables",
        "eastindia: report: interactive charts",
        f"eastindia: report: writing report.html ({drawn} charts embedded)",
        "eastindia: report: writing summary.md",
    ]
    assert "eastindia" not in printed.out and printed.out.startswith(f"report: {told_ / 'report.html'}")
    assert cli.main(["report", str(quiet), "--reference", "rich", "--quiet"]) == 0
    silent = capsys.readouterr()
    assert silent.err == "" and silent.out.replace(str(quiet), str(told_)) == printed.out
    same = {k: v.replace(bytes(quiet), bytes(told_)) for k, v in folder_files(quiet).items()}  # replay commands
    assert same == folder_files(told_)  # charts, report.html, summary.md, comparisons, run.json
