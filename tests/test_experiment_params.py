"""Strategy parameters from experiment files and the command line: tables and
``name:key=value`` specs, tuned plugins, one-line errors, the parameters in the resolved experiment, run.json, the
frames (``strategy.label``), the report and ``eastindia strategies``; ``rotate = "all"``, ``[[arms]] rules`` and
``reference`` in experiment files; a plugin path given with ``--strategy`` read from the current folder, and the
name and folder of a run of ``--strategy`` options without an experiment file."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import sim
from experiments import cli, runner, spec
from experiments import runfolder as rf
from strategies import Strategy

CAREFUL = '''import numpy as np
from strategies import Strategy
from strategies.base import Param


class Careful(Strategy):
    """Takes at most max_loans loans a round."""

    name = "careful"
    PARAMS = {  # its own parameters only: balanced's keep their defaults
        "max_loans": Param(2, "loans a Chairman takes at most"),
        "risk": Param(0.5, "appetite for risk, 0..1"),
    }

    def take_loans(self, obs, legal):
        return np.minimum(super().take_loans(obs, legal), self.max_loans)
'''


@pytest.fixture
def bots(tmp_path: Path) -> Path:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "careful.py").write_text(CAREFUL)
    return tmp_path


def write(folder: Path, text: str, name: str = "exp.toml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


def eastindia(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "experiments.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def test_tables_and_specs_name_two_tunings_apart(bots):
    exp = spec.load(
        write(
            bots,
            """games = 6
shard_size = 3
plugins = ["bots/careful.py:Careful"]
strategies = [{ name = "careful", max_loans = 0 }, "careful:risk=0.9", "careful", "balanced"]
""",
        )
    )
    arm = exp.arms[0]
    assert arm.strategies == ("careful(max_loans=0)", "careful(risk=0.9)", "careful", "balanced")
    assert arm.spec("careful(max_loans=0)").params == (("max_loans", 0), ("risk", 0.5))
    assert arm.spec("careful(risk=0.9)").make().risk == 0.9
    # the resolved experiment spells every parameter out and loads back to the same experiment
    text = exp.resolved_toml()
    written = tomllib.loads(text)["strategies"]
    assert written[:3] == [
        {"name": "careful", "max_loans": 0, "risk": 0.5},
        {"name": "careful", "max_loans": 2, "risk": 0.9},
        {"name": "careful", "max_loans": 2, "risk": 0.5},
    ]
    assert written[3]["name"] == "balanced" and written[3]["max_debt"] == Strategy.PARAMS["max_debt"].default
    again = spec.load(write(bots / "bots", text, "resolved.toml"))
    assert again.digest() == exp.digest() and again.arms[0].strategies == arm.strategies
    assert spec.load(bots / "exp.toml", games=6).digest() == exp.digest()
    # the reference arm and a target of 0 (off) change no result: a run folder written before they existed is reused
    same = spec.load(bots / "exp.toml", reference=exp.arms[0].name, target_ci=0.0)
    assert same.digest() == exp.digest() and spec.load(bots / "exp.toml", target_ci=0.05).digest() != exp.digest()
    other = spec.load(write(bots, text.replace("max_loans = 0", "max_loans = 1"), "other.toml"))
    assert other.digest() != exp.digest()  # another tuning is another experiment


def test_tuned_strategies_play_and_are_recorded_everywhere(bots, tmp_path):
    path = write(
        bots,
        """name = "tuned"
games = 10
shard_size = 5
seed = 2
strategies = [{ plugin = "bots/careful.py:Careful", max_loans = 0 }, "balanced"]
""",
    )
    exp = spec.load(path)
    meta = runner.run(exp, tmp_path / "run", jobs=1)
    assert meta["arms"][0]["strategies"] == ["careful(max_loans=0)", "balanced"]
    assert meta["arms"][0]["strategy_params"] == {
        "careful(max_loans=0)": {"name": "careful", "params": {"max_loans": 0, "risk": 0.5}},
        "balanced": {"name": "balanced", "params": {k: p.default for k, p in Strategy.PARAMS.items()}},
    }
    seats = pl.read_parquet(rf.frame_path(tmp_path / "run", "seats"))
    assert set(seats["strategy"]) == {"careful(max_loans=0)", "balanced"}
    rounds = pl.read_parquet(rf.frame_path(tmp_path / "run", "rounds"))
    assert rounds.height > 0
    resolved = (tmp_path / "run" / rf.EXPERIMENT).read_text()
    assert tomllib.loads(resolved)["strategies"][0] == {"name": "careful", "max_loans": 0, "risk": 0.5}
    assert f'plugins = ["{bots / "bots" / "careful.py"}:Careful"]' in resolved
    from reports import write_report

    text = write_report(tmp_path / "run").read_text()
    assert "careful(max_loans=0) (every value in experiment.toml and run.json" in text  # the settings table


def test_a_parameter_changes_play():
    """max_loans = 0 never borrows: the Company's loans taken in phase 6 are all emergency loans."""
    from strategies import Strategy
    from strategies.base import Param

    class Careful(Strategy):
        name = "careful-test"
        PARAMS = {"max_loans": Param(2, "x")}

        def take_loans(self, obs, legal):
            return np.minimum(super().take_loans(obs, legal), self.max_loans)

    rules = sim.Rules.default(4)
    none = sim.play(rules, Careful(max_loans=0), 200, seed=3).rounds
    some = sim.play(rules, Careful(max_loans=3), 200, seed=3).rounds
    assert none["loans_taken"].sum() == 0 < some["loans_taken"].sum()


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            '{ name = "careful", max_loan = 1 }',
            "exp.toml: strategies[0]: strategy 'careful' has no parameter 'max_loan' (known: max_loans, risk)",
        ),
        (
            '{ name = "careful", risk = "high" }',
            "exp.toml: strategies[0]: strategy 'careful' parameter 'risk': expected float, got 'high'",
        ),
        ('"careful:max_loans=1.5"', "strategy 'careful' parameter 'max_loans': expected int, got 1.5"),
        ("{ risk = 1.0 }", 'a strategy table needs either name = "registered name" or plugin = "path.py:Class"'),
        ('{ name = "nobody" }', "unknown strategy 'nobody'"),
        ('{ plugin = "bots/missing.py:X" }', "strategies[0]: plugin 'bots/missing.py:X': no such file"),
    ],
)
def test_bad_parameters_are_one_line_naming_the_field_and_the_strategy(bots, entry, message):
    path = write(bots, f'games = 4\nplugins = ["bots/careful.py:Careful"]\nstrategies = [{entry}, "balanced"]\n')
    out = eastindia("run", str(path), "--out", str(bots / "r"), "--quiet", cwd=bots)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert message in out.stderr
    assert not (bots / "r").exists()


def test_command_line_strategies_with_parameters_and_a_relative_plugin(bots):
    """``--strategy path.py:Class:key=value`` from the current folder (not from experiments/library/, where the
    baseline file lives), and a bad parameter named by the option."""
    out = eastindia(
        "run", "--strategy", "bots/careful.py:Careful:max_loans=1", "--strategy", "balanced",
        "--games", "4", "--shard-size", "4", "--quiet", "--no-report", "--jobs", "1", cwd=bots,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    run_dir = bots / "runs" / "baseline_careful_max_loans_1_balanced"
    assert json.loads((run_dir / rf.META).read_text())["arms"][0]["strategies"] == ["careful(max_loans=1)", "balanced"]
    bad = eastindia("run", "--strategy", "bots/careful.py:Careful:risk=high", "--games", "4", "--quiet", cwd=bots)
    assert bad.returncode == 2, bad.stderr
    assert bad.stderr.strip() == (
        "eastindia: error: --strategy: strategy 'careful' parameter 'risk': expected float, got 'high'"
    )


def test_eastindia_strategies_lists_parameters(bots, capsys):
    assert cli.main(["strategies", "--strategy", str(bots / "bots" / "careful.py") + ":Careful"]) == 0
    text = capsys.readouterr().out
    assert "careful          Takes at most max_loans loans a round." in text
    assert "max_loans = 2 (int): loans a Chairman takes at most" in text
    assert "risk = 0.5 (float): appetite for risk, 0..1" in text


def test_python_m_sim_takes_parameters(bots, capsys):
    from sim.__main__ import main

    spec.load_plugin(f"{bots / 'bots' / 'careful.py'}:Careful")
    assert main(["--games", "5", "--strategy", "careful:max_loans=0"]) == 0
    assert "careful(max_loans=0)" in capsys.readouterr().out
    assert main(["--games", "5", "--strategy", "careful:max_loans=x"]) == 2
    assert "strategy 'careful' parameter 'max_loans': expected int, got 'x'" in capsys.readouterr().err


# ------------------------------------------------------------------------------- rotate, arms' rules, reference
def test_rotate_all_plays_every_seating_of_every_table():
    seatings = spec.seatings(("b", "r"), 5, "all")
    assert len(seatings) == 20 and len(set(seatings)) == 20  # C(5,2) tables of 3 b + 2 r, and of 2 b + 3 r
    by_table = Counter(s.count("b") for s in seatings)
    assert by_table == {3: 10, 2: 10}
    for table in (2, 3):  # within each table composition every seat holds each strategy equally often
        rows = [s for s in seatings if s.count("b") == table]
        for seat in range(5):
            assert Counter(s[seat] for s in rows) == {"b": 2 * table, "r": 2 * (5 - table)}
    assert spec.seatings(("a", "b", "c", "d", "e"), 5, "all").__len__() == 120
    assert spec.seatings(("b", "r"), 5, True) == [("b", "r", "b", "r", "b"), ("r", "b", "r", "b", "r")]


def test_rotate_all_in_an_experiment(tmp_path):
    exp = spec.load(
        write(tmp_path, 'games = 40\nshard_size = 20\nrotate = "all"\nstrategies = ["balanced", "random"]\n')
    )
    arm = exp.arms[0]
    assert arm.rotations == 20 and arm.meta()["rotate"] == "all"
    names, seating = arm.seating(np.arange(40))
    assert seating.shape == (40, 5) and (seating[:20] == seating[20:]).all()
    seats = spec.load(Path(spec.__file__).with_name("library") / "seats.toml")
    assert seats.arms[0].rotations == 20 and seats.target_ci == 0.02
    bad = tmp_path / "bad.toml"
    bad.write_text('rotate = "sometimes"\n')
    with pytest.raises(spec.ExperimentError, match='rotate: expected true, false or "all"'):
        spec.load(bad)


def test_a_rules_file_per_arm_and_the_reference(tmp_path):
    (tmp_path / "stable.toml").write_text("[company]\nstart_stability = 6\n")
    (tmp_path / "broken.toml").write_text("[company]\nstart_stability = -1\n")
    text = """name = "t"
games = 4
reference = "stable"
[overrides]
"capital.budget_per_player" = 7
[[arms]]
name = "plain"
[[arms]]
name = "stable"
rules = "stable.toml"
"""
    exp = spec.load(write(tmp_path, text))
    plain, stable = exp.arms
    assert stable.rules_file == str(tmp_path / "stable.toml") and plain.rules_file is None
    assert stable.rules().company.start_stability == 6 and plain.rules().company.start_stability == 4
    assert stable.rules().budget == 35  # the experiment's overrides apply on top of the arm's file
    assert exp.reference == "stable" and f'rules = "{tmp_path / "stable.toml"}"' in exp.resolved_toml()
    assert spec.load(
        write(tmp_path, text.replace('"stable"\n[overrides]', '"plain"\n[overrides]'), "b.toml")
    ).digest() == (exp.digest())  # the reference changes no result
    with pytest.raises(spec.ExperimentError) as err:
        spec.load(write(tmp_path, text.replace("stable.toml", "broken.toml"), "c.toml"))
    assert err.value.problems == [
        f"{tmp_path / 'c.toml'}: arms[1].rules: {tmp_path / 'broken.toml'}: company.start_stability: expected a "
        "non-negative integer, got -1"
    ]
    with pytest.raises(spec.ExperimentError, match="reference: no arm is named 'x' and it is not an arm's index"):
        spec.load(write(tmp_path, text.replace('reference = "stable"', 'reference = "x"'), "d.toml"))


BOT = 'from strategies import Strategy\n\nclass Bot(Strategy):\n    """A bot."""\n    name = "bot"\n'


def test_a_relative_plugin_on_the_command_line_is_relative_to_the_current_folder(tmp_path, monkeypatch):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "x.py").write_text(BOT)
    monkeypatch.chdir(tmp_path)
    exp = spec.load(None, strategies=["bots/x.py:Bot", "balanced"])  # the baseline file lives elsewhere
    assert exp.data["plugins"] == [f"{tmp_path / 'bots' / 'x.py'}:Bot"] and exp.arms[0].strategies == (
        "bot",
        "balanced",
    )


def test_a_strategy_run_without_a_file_gets_its_own_name_and_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    base = ["--games", "4", "--shard-size", "4", "--quiet", "--no-report", "--jobs", "1"]
    assert cli.main(["run", *base]) == 0
    assert cli.main(["run", "--strategy", "balanced", "--strategy", "random", *base]) == 0, capsys.readouterr().err
    exp = spec.load(None, strategies=["balanced", "random"])
    assert exp.name == "baseline+balanced+random" and runner.default_out(exp) == Path("runs/baseline_balanced_random")
    assert (tmp_path / "runs" / "baseline" / "run.json").is_file()
    assert (tmp_path / "runs" / "baseline_balanced_random" / "run.json").is_file()
