"""eastindia sensitivity: a key the engine ignores ranks last with an effect of exactly zero (Morris and
Sobol, on common random numbers), the key that drives the crash rate ranks first, the design's points are the
runner's arms, --resume finishes an interrupted study with the same results, and bad [sensitivity] input is one
line, exit 2.

The ignored key: ``capital.linear_rate`` is read only by the ``linear`` capital formula (``sim/capital.py``
``linear``); under the default ``inverse_share`` formula nothing reads it (no phase, no strategy: ``grep
linear_rate`` finds only the formula and the schema), so every game is the same whatever its value."""

import json
from pathlib import Path

import polars as pl
import pytest
from helpers import CtrlCAfter

from experiments import cli, runner, search, sensitivity, spec
from experiments import runfolder as rf
from reports.sensitivity import write_sensitivity_report

FILE = """name = "sens"
players = 4
games = {games}
shard_size = {games}
seed = 4
strategies = ["balanced", "random"]

[sensitivity]
method = "{method}"
samples = {samples}

[sensitivity.params]
"company.start_stability" = {{ low = 2, high = 6 }}
"capital.linear_rate" = {{ low = 0.0, high = 0.5 }}
"capital.budget_per_player" = {{ low = 4, high = 8 }}
"""


def write(tmp_path: Path, text: str, name: str = "sens.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def quiet(message: str) -> None:
    pass


@pytest.fixture(scope="module")
def morris(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("morris")
    ss = sensitivity.load(write(tmp, FILE.format(games=100, method="morris", samples=3)))
    sensitivity.run(ss, tmp / "out", jobs=1, notify=quiet)
    write_sensitivity_report(tmp / "out")  # what the command does after the study
    return ss, tmp / "out"


def test_morris_ranks_the_ignored_key_last_with_no_effect_at_all(morris):
    ss, out = morris
    indices = pl.read_parquet(out / sensitivity.INDICES)
    outputs = ["crash_rate", "win_rate::balanced", "win_rate::random"]
    assert list(dict.fromkeys(indices["metric"])) == outputs
    for name in outputs:
        part = indices.filter(pl.col("metric") == name).sort("rank")
        assert part["rank"].to_list() == [1, 2, 3]
        last = part.row(2, named=True)
        assert last["key"] == "capital.linear_rate"
        assert (last["estimate"], last["lo"], last["hi"], last["mu"], last["sigma"]) == (0.0, 0.0, 0.0, 0.0, 0.0)
        assert part["estimate"][1] > 0  # the other two keys do move it
    crash = indices.filter(pl.col("metric") == "crash_rate").sort("rank")
    assert crash["key"][0] == "company.start_stability"
    assert (indices["index"] == "mu_star").all()


def test_points_are_the_runners_arms_and_the_ignored_key_changes_no_game(morris):
    ss, out = morris
    points = pl.read_parquet(out / sensitivity.POINTS)
    design = pl.read_parquet(out / sensitivity.DESIGN)
    assert design.height == 3 * (3 + 1) and design["point"].max() == points.height - 1
    run = rf.Run.open(out / sensitivity.POINTS_DIR)
    games = run.frame("games").sort("arm_index", "game")
    assert games.group_by("arm_index").len().sort("arm_index")["len"].to_list() == [100] * points.height
    for r in points.iter_rows(named=True):
        mine = games.filter(pl.col("arm_index") == r["point"])
        assert r["crash_rate"] == pytest.approx(mine["crashed"].mean())
        assert r["win_rate::balanced"] == pytest.approx((mine["winner_strategy"] == "balanced").mean())
        arm = run.arms[r["point"]]["overrides"]
        assert arm == {k: r[k] for k in ("company.start_stability", "capital.linear_rate", "capital.budget_per_player")}
    # two points that differ in capital.linear_rate alone play the very same games
    keys = ["company.start_stability", "capital.budget_per_player"]
    drop = ["arm", "arm_index", "capital.linear_rate", "company.start_stability", "capital.budget_per_player"]
    pairs = 0
    for _, part in points.group_by(keys):
        if part["capital.linear_rate"].n_unique() > 1:
            a, b = part["point"][0], part["point"][1]
            ga = games.filter(pl.col("arm_index") == a).drop(drop)
            gb = games.filter(pl.col("arm_index") == b).drop(drop)
            assert ga.equals(gb)
            pairs += 1
    assert pairs >= 1


def test_report_ranks_and_charts(morris):
    ss, out = morris
    page = (out / "report.html").read_text()
    assert "Sensitivity: which rules keys matter" in page and "chart-sensitivity" in page
    assert "0 (no effect)" not in page  # the chart's labels are in the PNG, not the page
    assert (out / "charts" / "sensitivity.png").stat().st_size > 0
    summary = (out / "summary.md").read_text()
    assert "#### crash rate" in summary and "| 3 | capital.linear_rate |" in summary


def test_sobol_total_index_of_the_ignored_key_is_zero(tmp_path):
    text = FILE.format(games=60, method="sobol", samples=4)
    text = text.replace('"capital.budget_per_player" = { low = 4, high = 8 }\n', "")
    ss = sensitivity.load(write(tmp_path, text))
    meta = sensitivity.run(ss, tmp_path / "out", jobs=1, notify=quiet)
    assert meta["design_rows"] == 4 * (2 + 2)
    indices = pl.read_parquet(tmp_path / "out" / sensitivity.INDICES)
    for (_,), part in indices.group_by("metric"):
        part = part.sort("rank")
        last = part.row(1, named=True)
        assert last["key"] == "capital.linear_rate" and last["index"] == "ST"
        assert last["estimate"] == 0.0 and last["s1"] == 0.0
        assert part["estimate"][0] > 0


def test_an_interrupted_sensitivity_resumes_to_the_same_results(tmp_path, morris):
    _, whole = morris
    path = write(tmp_path, FILE.format(games=100, method="morris", samples=3))
    ss = sensitivity.load(path)

    with pytest.raises(runner.Interrupted):
        sensitivity.run(ss, tmp_path / "out", jobs=1, notify=quiet, progress=CtrlCAfter(3))
    assert search.read_meta(tmp_path / "out")["status"] == "interrupted"
    with pytest.raises(runner.RunError, match="pass --resume"):
        sensitivity.run(ss, tmp_path / "out", jobs=1, notify=quiet)
    sensitivity.run(ss, tmp_path / "out", jobs=2, resume=True, notify=quiet)
    for name in (sensitivity.INDICES, sensitivity.POINTS):
        assert pl.read_parquet(tmp_path / "out" / name).equals(pl.read_parquet(whole / name))


@pytest.mark.parametrize(
    "change, message",
    [
        (('method = "morris"', 'method = "fast"'), "sensitivity.method: unknown method 'fast'"),
        (
            ('method = "morris"\nsamples = 4', 'method = "sobol"\nsamples = 6'),
            "must be a power of 2, got 6 (try 4 or 8)",
        ),
        (("samples = 4", "samples = 4\nlevels = 5"), "levels: must be even"),
        (("samples = 4", 'samples = 4\nmetrics = ["fun"]'), "metrics[0]: unknown metric 'fun'"),
        (("samples = 4", "samples = 4\nmetrics = []"), "expected a non-empty list of metrics"),
        (("samples = 4", "samples = 4\ncolour = 1"), "sensitivity.colour: unknown key"),
        (("samples = 4", "samples = 1"), "sensitivity.samples: must be between 2"),
        (('["balanced", "random"]', '["balanced"]'), "win_rate needs two strategies or more"),
        (
            ('"capital.linear_rate" = { low = 0.0, high = 0.5 }', '"capital.linear_rate" = { low = 0.5, high = 0.0 }'),
            "low (0.5) must be below high (0.0)",
        ),
        (
            ('"company.start_stability" = { low = 2, high = 6 }', '"company.start_stability" = { low = 0, high = 6 }'),
            "sensitivity.params.company.start_stability: 0: must be within 1..7",
        ),
        (("[sensitivity]", '[[arms]]\nname = "x"\n[sensitivity]'), "arms: has no place in a sensitivity file"),
        (  # a SALib design sets every key at every point: conditional keys are tune's only
            ("high = 0.5 }", 'high = 0.5, when = { "capital.budget_per_player" = 5 } }'),
            "sensitivity.params.capital.linear_rate: when: conditional keys are for `eastindia tune` only",
        ),
    ],
)
def test_bad_sensitivity_input_is_one_line_exit_2(tmp_path, capsys, change, message):
    text = FILE.format(games=60, method="morris", samples=4)
    old, new = change
    assert old in text
    path = write(tmp_path, text.replace(old, new, 1))
    code = cli.main(["sensitivity", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()
    assert any(message in line for line in spec.check_file(path))


def test_a_point_the_rules_refuse_is_one_line(tmp_path, capsys):
    """Each end of a range is checked alone when the file loads; a combination the rules' cross-checks refuse (a
    start stability above the maximum) stops the study before any game, naming the point."""
    text = FILE.format(games=60, method="morris", samples=4).replace(
        '"capital.budget_per_player" = { low = 4, high = 8 }', '"company.max_stability" = { low = 5, high = 7 }'
    )
    path = write(tmp_path, text)
    code = cli.main(["sensitivity", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "is refused by the rules" in err and "narrow the ranges" in err


def test_the_library_sensitivity_file():
    """experiments/library/sensitivity.toml: eight rule numbers screened by Morris for the crash rate, the end round
    and each of the five strategies' win rates; at most 10 x (8 + 1) points of 1,000 games."""
    ss = sensitivity.load(Path(spec.__file__).with_name("library") / "sensitivity.toml")
    assert ss.method == "morris" and len(ss.params) == 8 and ss.games == 1000
    assert len(ss.outputs()) == 2 + 5
    points, _ = sensitivity.points_of(ss, ss.design())
    assert len(points) <= 90


def test_the_terminal_summary_writes_indices_in_the_reports_unit(morris, capsys):
    """A Morris index of a proportion (the crash rate) reads in percentage points on the terminal, as in the report
    (it used to print 0.503 where the report said 50.33 pp)."""
    from experiments import search
    from experiments.cli import print_sensitivity

    ss, out = morris
    meta = json.loads((out / search.META).read_text())
    print_sensitivity(out, meta)
    text = capsys.readouterr().out
    indices = pl.read_parquet(out / sensitivity.INDICES).filter(pl.col("metric") == "crash_rate")
    first = indices.sort("rank").row(0, named=True)
    assert f"{first['key']} {100 * first['estimate']:.2f} pp" in text
