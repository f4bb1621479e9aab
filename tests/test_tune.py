"""eastindia tune: a known answer recovered, the same study after an interruption and --resume (same
trials, no repeats), more trials extend a study, the same seed gives the same trials whatever --jobs, the folder's
files (trials.parquet, best.toml, the paired confirmation, the report) and bad [tune] input (one line, exit 2)."""

import dataclasses
import json
import tomllib
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import sim
import strategies as registry
from experiments import cli, metagame, runner, search, spec, tune
from experiments import runfolder as rf
from strategies.base import Strategy
from tests.helpers import study_trials

LIBRARY = Path(spec.__file__).with_name("library")

STABILITY = """name = "stability"
players = 4
games = 300
shard_size = 300
seed = 5
strategies = ["balanced"]
calibrate = false   # the trials must play the games sim.play measured (the fixed crash model)

[tune]
objective = "crash_rate"
target = {target}
trials = 8
batch = 4
startup = 4
confirm_games = 0
default_first = false   # trial 0 would play the default 4, already within 1 of the answer

[tune.params]
"company.start_stability" = {{ low = 1, high = 7 }}
"""

SMALL = """name = "small"
players = 4
games = 60
shard_size = 60
seed = 9
strategies = ["balanced", "random"]

[tune]
objective = "mean_end_round"
target = 3.5
trials = {trials}
batch = 4
startup = 3
confirm_games = {confirm}

[tune.params]
"company.start_stability" = {{ low = 2, high = 6 }}
"capital.round_up_from" = {{ low = 0.5, high = 0.9 }}
"capital.formula" = {{ choices = ["inverse_share", "flat"] }}
"""

# capital.linear_rate is read by the linear formula only: searched only in the trials that play it. Two formulas that
# ignore it at two budgets give 4 distinct points, so 12 trials repeat some (a repeat reads the earlier games).
COND = """name = "cond"
players = 4
games = 40
shard_size = 40
seed = 9
strategies = ["balanced", "random"]

[tune]
objective = "mean_end_round"
target = 3.5
trials = 12
batch = 4
startup = 4
confirm_games = 0

[tune.params]
"capital.linear_rate" = { low = 0.0, high = 0.5, when = { "capital.formula" = "linear" } }
"capital.formula" = { choices = ["inverse_share", "flat", "linear"] }
"capital.budget_per_player" = { low = 5, high = 6 }
"""


def write(tmp_path: Path, text: str, name: str = "tune.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def quiet(message: str) -> None:
    pass


def refused(tmp_path: Path, capsys, path: Path, message: str) -> None:
    """`eastindia tune` refuses the file in one line naming it, exit 2, nothing written; validate finds it too."""
    code = cli.main(["tune", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert message in err and str(path) in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()
    assert any(message in line for line in spec.check_file(path))


# ------------------------------------------------------------------------------------------- a known answer
def test_tuning_start_stability_to_its_own_crash_rate_recovers_it(tmp_path):
    """The crash rate measured with company.start_stability = 5 (300 four-player games of `balanced`) is the target:
    the tune must find 5 again (±1). On the same games and dice (common random numbers) the trial at 5 reproduces
    the measured rate exactly, so its distance is 0; a tuner that maximised the distance, or read the wrong trial's
    games, would end at 1 or 7 (crash rates 100 % and about 65 %)."""
    rules = sim.Rules.default(4).with_overrides({"company.start_stability": 5})
    measured = float(sim.play(rules, "balanced", n_games=300, seed=5).games["crashed"].mean())
    neighbours = {
        s: float(
            sim.play(sim.Rules.default(4).with_overrides({"company.start_stability": s}), "balanced", 300, seed=5)
            .games["crashed"]
            .mean()
        )
        for s in (1, 7)
    }
    assert abs(neighbours[1] - measured) > 0.05 and abs(neighbours[7] - measured) > 0.05  # the answer is clear-cut
    ts = tune.load(write(tmp_path, STABILITY.format(target=repr(measured))))
    meta = tune.run(ts, tmp_path / "out", jobs=1, notify=quiet)
    best = meta["best"]
    assert abs(best["params"]["company.start_stability"] - 5) <= 1
    trials = pl.read_parquet(tmp_path / "out" / tune.TRIALS)
    at_five = trials.filter(pl.col("company.start_stability") == 5)
    if at_five.height:  # the trial at the answer reproduces the measurement exactly
        assert at_five["value"].to_list() == [measured] * at_five.height
        assert at_five["distance"].max() == 0.0
        assert best["params"]["company.start_stability"] == 5 and best["value"] == measured
    # every trial is one arm of all 300 games, with the crash rate its own games give
    assert trials["games"].to_list() == [300] * 8
    for r in trials.iter_rows(named=True):
        k = round(r["value"] * 300)
        assert r["lo"] < r["value"] < r["hi"] or k in (0, 300)
        assert r["distance"] == pytest.approx(abs(r["value"] - measured))


# -------------------------------------------------------------------------------- resume, determinism, jobs
@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """The reference: the 8-trial study played without interruption (one job)."""
    tmp = tmp_path_factory.mktemp("whole")
    ts = tune.load(write(tmp, SMALL.format(trials=8, confirm=0)))
    tune.run(ts, tmp / "out", jobs=1, notify=quiet)
    return tmp / "out"


class Cut:
    """A progress that raises Ctrl-C at a chosen moment: after ``told`` trials are told, or at the first games of
    batch ``in_batch``."""

    def __init__(self, told: int | None = None, in_batch: int | None = None):
        self.at_told, self.in_batch, self.current = told, in_batch, None

    def batch(self, index, trials, games):
        self.current = index

    def start(self, done):
        pass

    def advance(self, arm, games):
        if self.in_batch is not None and self.current == self.in_batch:
            raise KeyboardInterrupt

    def told(self, told, total, best):
        if self.at_told is not None and told == self.at_told:
            raise KeyboardInterrupt

    def confirming(self, games):
        pass


def test_an_interrupted_tune_resumes_the_same_study(tmp_path, whole):
    """Ctrl-C in the middle of the second batch (its shards half played): --resume keeps the 4 trials told, finishes
    the batch from its finished shards and tells the rest, with another --jobs: the same 8 trials as without the
    interruption, none repeated."""
    cut = Cut(in_batch=1)
    path = write(tmp_path, SMALL.format(trials=8, confirm=0))
    ts = tune.load(path)
    out = tmp_path / "out"
    with pytest.raises(runner.Interrupted):
        tune.run(ts, out, jobs=1, notify=quiet, progress=cut)
    before = study_trials(out)
    assert len(before) == 4 and [t.number for t in before] == [0, 1, 2, 3]
    assert search.read_meta(out)["status"] == "interrupted"
    with pytest.raises(runner.RunError, match="unfinished tune of this experiment.*pass --resume"):
        tune.run(ts, out, jobs=1, notify=quiet)
    meta = tune.run(ts, out, jobs=2, resume=True, notify=quiet)  # another --jobs: the same trials
    after = study_trials(out)
    assert [t.number for t in after] == list(range(8))  # no trial repeated, none lost
    assert [(t.params, t.value) for t in after[:4]] == [(t.params, t.value) for t in before]  # the same trials kept
    assert pl.read_parquet(out / tune.TRIALS).equals(pl.read_parquet(whole / tune.TRIALS))
    assert meta["best"] == search.read_meta(whole)["best"]


def test_more_trials_extend_a_finished_study_and_match_a_longer_one(tmp_path, whole):
    ts4 = tune.load(write(tmp_path, SMALL.format(trials=4, confirm=0)))
    out = tmp_path / "out"
    tune.run(ts4, out, jobs=1, notify=quiet)
    first = study_trials(out)
    ts8 = tune.load(write(tmp_path, SMALL.format(trials=4, confirm=0)), trials=8)  # --trials 8
    with pytest.raises(runner.RunError, match="finished tune of 4 trials; pass --resume"):
        tune.run(ts8, out, jobs=1, notify=quiet)
    tune.run(ts8, out, jobs=1, resume=True, notify=quiet)
    assert [t.params for t in study_trials(out)[:4]] == [t.params for t in first]
    assert pl.read_parquet(out / tune.TRIALS).equals(pl.read_parquet(whole / tune.TRIALS))
    # and a finished study of the same file is reused as it is
    stamp = (out / search.META).read_text()
    tune.run(ts8, out, jobs=1, notify=quiet)
    assert (out / search.META).read_text() == stamp


def test_trials_are_one_arm_each_on_the_same_games_and_repeats_are_not_played(whole):
    trials = pl.read_parquet(whole / tune.TRIALS)
    batches = sorted((whole / tune.BATCHES).iterdir())
    played = {}
    for folder in batches:
        run = rf.Run.open(folder)
        games = run.frame("games", ["arm", "game"])
        for arm in run.arms:
            ids = games.filter(pl.col("arm") == arm["arm"])["game"].to_list()
            assert ids == list(range(60))  # every trial: the same games 0..59 (the experiment's seed)
            played[int(arm["arm"].split()[1])] = arm["overrides"]
    keys = ["company.start_stability", "capital.round_up_from", "capital.formula"]
    seen = {}
    for r in trials.iter_rows(named=True):
        values = tuple(r[k] for k in keys)
        if values in seen:  # a repeat reads the first trial's games, with its values
            assert r["trial"] not in played and r["value"] == seen[values]
        else:
            assert played[r["trial"]] == dict(zip(keys, values, strict=True))
            seen[values] = r["value"]
    # the trial's value is its arm's mean end round, recomputed from the frames
    for folder in batches:
        games = rf.Run.open(folder).frame("games", ["arm", "end_round"])
        for (arm,), part in games.group_by("arm"):
            row = trials.filter(pl.col("trial") == int(arm.split()[1]))
            assert row["value"][0] == pytest.approx(part["end_round"].mean())


def test_batches_are_planned_from_earlier_batches_only(tmp_path, whole):
    """Batch b's plan depends on the trials of the batches before it and on (seed, b), nothing else: the same
    history gives the same plan, another batch index another one; the study's second batch is the plan from its
    first batch's trials."""
    ts = tune.load(write(tmp_path, SMALL.format(trials=8, confirm=0)))
    told = study_trials(whole)
    assert [t.params for t in told[4:]] == tune.plan_batch(ts, told[:4], 1, 4)
    a = tune.plan_batch(ts, [], 0, 4)
    assert [t.params for t in told[:4]] == a
    assert a == tune.plan_batch(ts, [], 0, 4)
    assert a != tune.plan_batch(ts, [], 1, 4)
    assert len({json.dumps(p, sort_keys=True) for p in a}) > 1
    assert tune.plan_batch(ts, [], 0, 2) == a[:2]  # a shorter batch is the start of the longer one


# ----------------------------------------------------------------------------------------- the folder's files
def test_best_toml_confirmation_and_report(tmp_path):
    path = write(tmp_path, SMALL.format(trials=4, confirm=120))
    ts = tune.load(path)
    out = tmp_path / "out"
    code = cli.main(["tune", str(path), "--out", str(out), "--jobs", "1", "--quiet"])
    assert code == 0
    meta = search.read_meta(out)
    trials = pl.read_parquet(out / tune.TRIALS)
    for column in ["trial", *(p.key for p in ts.params), "objective", "value", "lo", "hi", "games"]:
        assert column in trials.columns
    best = meta["best"]
    assert best["trial"] == trials.sort("distance", "trial")["trial"][0]
    # best.toml: the best trial's values as [overrides], ready to paste
    pasted = tomllib.loads((out / tune.BEST).read_text())
    assert pasted == {"overrides": best["params"]}
    exp = spec.resolve({"games": 10, **pasted}, "best", None)
    assert exp.arms[0].overrides == best["params"]
    # the confirmation: default rules and the best trial's, 120 games each on fresh dice (seed 10), paired
    confirm = rf.Run.open(out / tune.CONFIRM)
    assert confirm.meta["seed"] == 10 and confirm.meta["games_per_arm"] == 120
    assert [a["arm"] for a in confirm.arms] == ["default", "best"]
    assert confirm.arms[0]["overrides"] == {} and confirm.arms[1]["overrides"] == best["params"]
    games = confirm.frame("games", ["arm", "end_round"])
    means = {a: float(p["end_round"].mean()) for (a,), p in games.group_by("arm")}
    c = meta["confirm"]["objective"]
    assert c["default"] == pytest.approx(means["default"]) and c["best"] == pytest.approx(means["best"])
    assert c["change"] == pytest.approx(means["best"] - means["default"])
    assert c["change_lo"] <= c["change"] <= c["change_hi"]
    assert c["distance_best"] == pytest.approx(abs(means["best"] - 3.5))
    rows = {(r["metric"], r["strategy"]): r for r in meta["confirm"]["comparisons"]}
    assert rows["mean end round", None]["estimate"] == pytest.approx(c["change"])
    # the report: the tuning section, its charts, the confirmation table; the confirmation's own report
    page = (out / "report.html").read_text()
    for text in ("Tuning", "Confirmation", "tune_params", "tune_history", "best.toml", "confirm/report.html"):
        assert text in page
    assert (out / "charts" / "tune_params.png").stat().st_size > 0
    assert (out / tune.CONFIRM / "report.html").exists()
    assert "mean_end_round (objective)" in (out / "summary.md").read_text()
    (out / "report.html").unlink()
    assert cli.main(["report", str(out)]) == 0 and (out / "report.html").exists()


# ------------------------------------------------------------------------------------------ conditional keys
@pytest.fixture(scope="module")
def cond(tmp_path_factory):
    """The COND study played (12 trials of 40 games, one job), with its report."""
    tmp = tmp_path_factory.mktemp("cond")
    path = write(tmp, COND)
    tune.run(tune.load(path), tmp / "out", jobs=1, notify=quiet)
    return path, tmp / "out"


def played_arms(run_dir: Path) -> dict[int, dict]:
    """trial -> the overrides its arm played (a repeat has no arm)."""
    out = {}
    for folder in sorted((run_dir / tune.BATCHES).iterdir()):
        for arm in rf.Run.open(folder).arms:
            out[int(arm["arm"].split()[1])] = arm["overrides"]
    return out


def test_a_conditional_key_is_searched_only_when_its_condition_holds(cond):
    """capital.linear_rate (when capital.formula = "linear"): absent (null) from every trial of another formula, in
    the study (Optuna was never asked for it: define-by-run), in trials.parquet and in the arm played (the rules'
    own value); present and in its range in every trial of the linear formula."""
    path, out = cond
    ts = tune.load(path)
    trials = pl.read_parquet(out / tune.TRIALS).sort("trial")
    assert trials["state"].to_list() == ["complete"] * 12
    linear = trials.filter(pl.col("capital.formula") == "linear")
    other = trials.filter(pl.col("capital.formula") != "linear")
    assert linear.height >= 2 and other.height >= 2  # both sides of the condition occur
    assert other["capital.linear_rate"].null_count() == other.height  # never suggested when the condition is false
    assert linear["capital.linear_rate"].null_count() == 0  # always when it holds
    assert all(0.0 <= r <= 0.5 for r in linear["capital.linear_rate"])
    assert len(set(linear["capital.linear_rate"])) == linear.height  # searched: a new rate each time
    # trial 0 plays the rules' own values: the default formula (inverse_share) does not read the rate
    first = trials.row(0, named=True)
    assert (first["capital.formula"], first["capital.budget_per_player"], first["capital.linear_rate"]) == (
        "inverse_share",
        6,
        None,
    )
    told = study_trials(out)
    for t in told:
        assert ("capital.linear_rate" in t.params) == (t.params["capital.formula"] == "linear")
        assert set(t.distributions) == set(t.params)
    for over in played_arms(out).values():
        assert ("capital.linear_rate" in over) == (over["capital.formula"] == "linear")
    # the batches are planned from the batches before them only, conditional keys or not
    assert [t.params for t in told[4:8]] == tune.plan_batch(ts, told[:4], 1, 4)
    assert [t.params for t in told[8:]] == tune.plan_batch(ts, told[:8], 2, 4)


def test_a_repeat_is_a_trial_with_the_same_active_values(cond):
    """Two trials of the flat formula at budget 5 are the same games whatever a linear rate would have been: the
    later one is not played again (it reads the first one's games, ``same_as``), so duplicates are found on the
    active keys only."""
    _, out = cond
    trials = pl.read_parquet(out / tune.TRIALS).sort("trial")
    played = played_arms(out)
    same_as = {t.number: t.user_attrs.get("same_as") for t in study_trials(out)}
    keys = ["capital.formula", "capital.budget_per_player", "capital.linear_rate"]
    seen: dict[tuple, tuple] = {}
    repeats = 0
    for r in trials.iter_rows(named=True):
        values = tuple(r[k] for k in keys)
        if values in seen:
            repeats += 1
            assert r["trial"] not in played and same_as[r["trial"]] == seen[values][0]
            assert r["value"] == seen[values][1]
        else:
            assert played[r["trial"]] == {k: v for k, v in zip(keys, values, strict=True) if v is not None}
            seen[values] = (r["trial"], r["value"])
    assert repeats >= 1  # 4 points for the formulas that ignore the rate: 12 trials repeat some


def test_the_report_and_best_toml_leave_an_inactive_key_out(cond, tmp_path):
    """The trials table shows "—" where the key was not searched; its panel of the params chart plots only the
    trials that searched it; best.toml omits it (the rules keep their value) and says why."""
    import optuna

    from reports import tune as report

    path, out = cond
    meta = search.read_meta(out)
    trials = pl.read_parquet(out / tune.TRIALS).sort("trial")
    table = report.trials_table(meta, trials)
    col = table.columns.index("capital.linear_rate")
    for row, r in zip(table.rows, trials.iter_rows(named=True), strict=True):
        assert (row[col] == "—") == (r["capital.formula"] != "linear")
    drawn: list = []
    real = report.ch._errorbar
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(report.ch, "_errorbar", lambda ax, x, *a, **k: (drawn.append((ax, list(x))), real(ax, x, *a, **k)))
        assert report.params_chart(meta, trials, tmp_path / "charts") is not None
    per_panel: dict[str, list] = {}
    for ax, x in drawn:
        per_panel.setdefault(ax.get_xlabel().split("\n")[0], []).extend(x)
    linear = trials.filter(pl.col("capital.formula") == "linear")
    assert sorted(per_panel["capital.linear_rate"]) == sorted(linear["capital.linear_rate"].to_list())
    assert len(per_panel["capital.formula"]) == trials.height
    # best.toml of the study: its active keys only
    best = meta["best"]
    pasted = tomllib.loads((out / tune.BEST).read_text())
    assert pasted == {"overrides": best["params"]}
    assert ("capital.linear_rate" in best["params"]) == (best["params"]["capital.formula"] == "linear")
    # and of a best trial that did not search the rate
    ts = tune.load(path)
    params = {"capital.formula": "flat", "capital.budget_per_player": 5}
    attrs = {"value": 3.4, "lo": 3.1, "hi": 3.7, "games": 40}
    trial = optuna.trial.create_trial(
        value=0.1, params=params, distributions=ts.distributions(params), user_attrs=attrs
    )
    text = tune.best_toml(ts, trial, None)
    assert tomllib.loads(text) == {"overrides": params}
    assert 'capital.linear_rate (when capital.formula = "linear")' in text
    shown = report.best_table({**meta, "best": {"trial": 3, "params": params, **attrs}})
    assert ["capital.linear_rate", "—"] in shown.rows


def test_conditions_load(tmp_path):
    """A list of values, a chain of conditions listed in any order: each key is suggested after the keys its
    condition names, and only when the whole chain holds."""
    text = COND.replace('= "linear" }', '= ["flat", "linear"] }').replace(
        '"capital.budget_per_player" = { low = 5, high = 6 }',
        '"capital.budget_per_player" = { low = 5, high = 6, when = { "capital.formula" = "linear" } }\n'
        '"company.start_stability" = { low = 2, high = 6, when = { "capital.budget_per_player" = 6 } }',
    )
    ts = tune.load(write(tmp_path, text))
    by_key = {p.key: p for p in ts.params}
    assert by_key["capital.linear_rate"].when == (("capital.formula", ("flat", "linear")),)
    order = [p.key for p in search.suggest_order(ts.params)]
    assert order.index("capital.formula") < order.index("capital.linear_rate")
    assert order.index("capital.budget_per_player") < order.index("company.start_stability")
    values = {"capital.formula": "flat", "capital.budget_per_player": 6, "company.start_stability": 3}
    assert search.effective(ts.params, values) == {"capital.formula": "flat"}  # the chain breaks at the budget
    values["capital.formula"] = "linear"
    assert search.effective(ts.params, values) == values
    for params in tune.plan_batch(ts, [], 0, 8):
        assert ("capital.linear_rate" in params) == (params["capital.formula"] in ("flat", "linear"))
        assert ("capital.budget_per_player" in params) == (params["capital.formula"] == "linear")
        assert ("company.start_stability" in params) == (params.get("capital.budget_per_player") == 6)


@pytest.mark.parametrize(
    "change, message",
    [
        (('= "linear" }', '= "quadratic" }'), "when: capital.formula = 'quadratic' is not one of its choices"),
        (('= "linear" }', '= ["linear", "nope"] }'), "when: capital.formula = 'nope' is not one of its choices"),
        (('= "linear" }', "= [] }"), "when: capital.formula: expected a value or a non-empty list of values"),
        (
            ('{ "capital.formula" = "linear" }', '{ "capital.budget_per_player" = 7 }'),
            "tune.params.capital.linear_rate: when: capital.budget_per_player = 7 is not in its range (5–6",
        ),
        (
            ('{ "capital.formula" = "linear" }', '{ "capital.round_up_from" = 0.5 }'),
            "when: capital.round_up_from is not a searched key",
        ),
        (
            ('{ "capital.formula" = "linear" }', '{ "capital.linear_rate" = 0.1 }'),
            "tune.params.capital.linear_rate: when: capital.linear_rate is conditioned on itself",
        ),
        (('when = { "capital.formula" = "linear" }', 'when = "linear"'), "when: expected a table of searched keys"),
        (
            (
                '"capital.formula" = { choices = ["inverse_share", "flat", "linear"] }\n'
                '"capital.budget_per_player" = { low = 5, high = 6 }',
                '"capital.formula" = { choices = ["flat", "linear"], when = { "capital.budget_per_player" = 5 } }\n'
                '"capital.budget_per_player" = { low = 5, high = 6, when = { "capital.formula" = "flat" } }',
            ),
            "tune.params.capital.formula: when: the conditions make a cycle: capital.formula -> "
            "capital.budget_per_player -> capital.formula",
        ),
        (
            (
                '"capital.budget_per_player" = { low = 5, high = 6 }',
                '"capital.budget_per_player" = { low = 5, high = 6 }\n'
                '"capital.round_up_from" = { low = 0.5, high = 0.9, when = { "capital.linear_rate" = 0.2 } }',
            ),
            "when: capital.linear_rate is a continuous range",
        ),
    ],
)
def test_bad_conditions_are_one_line_exit_2(tmp_path, capsys, change, message):
    old, new = change
    assert old in COND
    refused(tmp_path, capsys, write(tmp_path, COND.replace(old, new, 1)), message)


# ----------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "change, message",
    [
        (('objective = "mean_end_round"', 'objective = "fun"'), "tune.objective: unknown objective 'fun'"),
        (('objective = "mean_end_round"', 'objective = "win_rate"'), 'objective win_rate needs strategy = "..."'),
        (("target = 3.5", 'target = 3.5\nstrategy = "random"'), "only objective win_rate takes a strategy"),
        (('objective = "mean_end_round"', 'objective = "crash_rate"'), "the target must be between 0 and 1"),
        (("target = 3.5", 'target = "most"'), 'expected a number, "min" or "max"'),
        (("trials = 8", "trials = 0"), "tune.trials: must be between 1"),
        (("batch = 4", "batch = 4\nspeed = 2"), "tune.speed: unknown key"),
        (("batch = 4", 'batch = "4"'), "tune.batch: expected int"),
        (('"capital.round_up_from"', '"capital.nothing"'), "tune.params.capital.nothing: not a rules key"),
        (("high = 0.9", "high = 0.4"), "low (0.5) must be below high (0.4)"),
        (("high = 6 }", "high = 9 }"), "tune.params.company.start_stability: 9: must be within 1..7"),
        (("high = 6 }", "high = 6, int = false }"), "holds an integer: drop int = false"),
        (('"flat"]', '"nope"]'), "tune.params.capital.formula: 'nope'"),
        (('"capital.formula" = { choices', '"capital.formula" = { low = 1, high = 2, choices'), "do not go together"),
        (("[tune]", '[sweep]\n"capital.formula" = ["flat"]\n[tune]'), "sweep: has no place in a tune file"),
        (("[tune]", "target_ci = 0.01\n[tune]"), "target_ci: has no place in a tune file"),
        (("[tune]", "[sensitivity]\n[tune]"), "sensitivity: read by `eastindia sensitivity`"),
    ],
)
def test_bad_tune_input_is_one_line_exit_2(tmp_path, capsys, change, message):
    text = SMALL.format(trials=8, confirm=0)
    old, new = change
    assert old in text
    refused(tmp_path, capsys, write(tmp_path, text.replace(old, new, 1)), message)


def test_missing_sections_and_options(tmp_path, capsys):
    plain = write(tmp_path, "games = 10\n", "plain.toml")
    assert cli.main(["tune", str(plain), "--quiet"]) == 2
    assert "tune: missing: `eastindia tune` needs a [tune] section" in capsys.readouterr().err
    path = write(tmp_path, SMALL.format(trials=8, confirm=0))
    assert cli.main(["tune", str(path), "--trials", "-3", "--quiet"]) == 2
    assert "--trials: must be between 1" in capsys.readouterr().err
    assert cli.main(["run", str(path), "--quiet"]) == 2
    assert "[tune] is read by `eastindia tune FILE`" in capsys.readouterr().err
    assert cli.main(["tune", str(path), "--jobs", "0", "--quiet", "--out", str(tmp_path / "o")]) == 2
    assert "--jobs: must be between 1" in capsys.readouterr().err
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    assert cli.main(["tune", str(path), "--quiet", "--out", str(tmp_path / "busy")]) == 2
    assert "is not empty and is not a tune folder" in capsys.readouterr().err
    assert (tmp_path / "busy" / "notes.txt").read_text() == "mine"


# ------------------------------------------------------------------------------------ the library's tune file
def test_tune_capital_library_file(monkeypatch):
    """experiments/library/tune_capital.toml names the four archetypes; loaded here with stand-ins
    registered under their names. Its budget: trials x games plus the confirmation's two arms."""
    for name in ("bid_low", "buy_shares", "run_firm", "go_military"):
        if name not in registry.REGISTRY:
            monkeypatch.setitem(registry.REGISTRY, name, type(name, (Strategy,), {"name": name}))
    ts = tune.load(LIBRARY / "tune_capital.toml")
    assert ts.objective == "win_spread" and ts.target == 0.0
    assert list(ts.exp.arms[0].strategies) == ["bid_low", "buy_shares", "run_firm", "go_military"]
    assert {p.key for p in ts.params} >= {"capital.formula", "capital.budget_per_player", "capital.linear_rate"}
    rate = next(p for p in ts.params if p.key == "capital.linear_rate")
    assert rate.when == (("capital.formula", ("linear",)),)  # read by the linear formula only: searched with it only
    assert ts.default_values() == {"capital.formula": "inverse_share", "capital.budget_per_player": 6}
    total = ts.trials * ts.games + 2 * ts.confirm_games
    assert total <= 700_000 and ts.confirm_games == 4 * ts.games


def test_spread_and_its_interval():
    """win_spread: best minus worst excess over the fair share, with a simultaneous interval over the pairs
    (Newcombe's paired interval of each difference, Bonferroni): a spread of exactly 0 has an interval from 0; two
    strategies give the interval of |difference| from the one paired interval at 5 %."""
    from reports.stats import paired_diff_ci

    stats = search.ArmStats(400, 0, 0.0, 0.0, {"a": 100, "b": 100, "c": 200}, {"a": 0.25, "b": 0.25, "c": 0.5})
    value, lo, hi = search.measure(stats, "win_spread")
    assert value == 0.0 and lo == 0.0 and 0.05 < hi < 0.15
    _, l3, h3 = paired_diff_ci(0, 100, 200, 100, alpha=0.05 / 3)  # a - c, shifted by the fair shares' -0.25
    assert hi == pytest.approx(max(h3 + 0.25, -(l3 + 0.25)))
    two = search.ArmStats(1000, 0, 0.0, 0.0, {"a": 560, "b": 440}, {"a": 0.5, "b": 0.5})
    value, lo, hi = search.measure(two, "win_spread")
    est, l2, h2 = paired_diff_ci(0, 560, 440, 0)
    assert value == pytest.approx(0.12) and (lo, hi) == pytest.approx((l2, h2)) and lo > 0
    skew = search.ArmStats(400, 0, 0.0, 0.0, {"a": 160, "b": 40}, {"a": 0.6, "b": 0.4})
    value, lo, hi = search.measure(skew, "win_spread")
    assert value == pytest.approx((0.4 - 0.6) - (0.1 - 0.4)) and lo < value < hi  # b: -0.3, a: -0.2 -> 0.1
    assert np.isclose(search.spread(np.array([[0.3, 0.7]]), np.array([0.5, 0.5]))[0], 0.4)


# ------------------------------------------------------------------------------------- strategy parameters
RESPOND = """name = "respond"
players = 4
games = 40
shard_size = 40
seed = 3
strategies = ["bid_low", "balanced"]

[tune]
objective = "win_rate"
strategy = "bid_low"
target = "max"
trials = 4
batch = 4
startup = 4
confirm_games = 40
default_first = false

[tune.params]
"bid_low:max_bid" = { low = 2, high = 6 }
"capital.budget_per_player" = { low = 5, high = 7 }
"""

# balanced, but it passes a share `waste` of its family actions (drawn from its own dice: on the same games a larger
# waste passes every action a smaller one passed, and more)
WASTER = """import numpy as np

from sim import layout as L
from strategies.base import Param, Strategy


class Waster(Strategy):
    \"\"\"balanced, but passes a share of its family actions.\"\"\"

    name = "waster"
    PARAMS = {**Strategy.PARAMS, "waste": Param(0.5, "share of its family actions it passes", low=0, high=1)}

    def family_action(self, obs, legal):
        action, twice, where = super().family_action(obs, legal)
        waste = (obs.rng.uniform(1)[:, 0] < self.waste) & legal.once[:, L.A_PASS]
        return np.where(waste, L.A_PASS, action), twice & ~waste, where
"""


def test_a_strategy_parameter_reaches_the_strategy_and_best_toml_plays_the_tuned_table(tmp_path):
    """ "bid_low:max_bid" searched with a rules key: each trial's bid_low plays the trial's max_bid (its label in the
    frames carries it), its wins count as bid_low's (the objective), trials.parquet has the key's column, and
    best.toml's strategies play the best trial's table under `eastindia run`."""
    path = write(tmp_path, RESPOND)
    out = tmp_path / "out"
    assert cli.main(["tune", str(path), "--out", str(out), "--jobs", "1", "--quiet", "--no-report"]) == 0
    trials = pl.read_parquet(out / tune.TRIALS)
    assert {"bid_low:max_bid", "capital.budget_per_player"} <= set(trials.columns)
    played = {}
    for folder in (out / tune.BATCHES).iterdir():
        run = rf.Run.open(folder)
        for arm in run.arms:
            played[int(arm["arm"].split()[1])] = arm
        seats = run.frame("seats", ["arm", "strategy"]).unique()
        games = run.frame("games", ["arm", "winner_strategy"])
    for r in trials.iter_rows(named=True):
        arm = played[r["trial"]]
        label = f"bid_low(max_bid={r['bid_low:max_bid']})"
        assert arm["strategies"] == [label, "balanced"]
        assert arm["overrides"] == {"capital.budget_per_player": r["capital.budget_per_player"]}
        assert set(seats.filter(pl.col("arm") == arm["arm"])["strategy"]) == {label, "balanced"}
        won = games.filter(pl.col("arm") == arm["arm"])["winner_strategy"]
        assert r["value"] == r["win_rate::bid_low"] == pytest.approx((won == label).mean())
        assert r["win_rate::bid_low"] + r["win_rate::balanced"] == pytest.approx(1.0)
    best = search.read_meta(out)["best"]["params"]
    label = f"bid_low(max_bid={best['bid_low:max_bid']})"
    confirm = rf.Run.open(out / tune.CONFIRM)
    assert [a["strategies"] for a in confirm.arms] == [["bid_low", "balanced"], [label, "balanced"]]
    pasted = tomllib.loads((out / tune.BEST).read_text())
    assert pasted["strategies"] == [f"bid_low:max_bid={best['bid_low:max_bid']}", "balanced"]
    assert pasted["players"] == 4
    assert pasted["overrides"] == {"capital.budget_per_player": best["capital.budget_per_player"]}
    again = tmp_path / "again"
    assert cli.main(["run", str(out / tune.BEST), "--out", str(again), "--games", "8", "--quiet"]) == 0
    run = rf.Run.open(again)
    assert run.arms[0]["strategies"] == [label, "balanced"]
    assert run.arms[0]["overrides"] == pasted["overrides"]
    assert set(run.frame("seats", ["strategy"])["strategy"]) == {label, "balanced"}


@pytest.mark.parametrize(
    "new, message",
    [
        ('"nope:max_bid" = { low = 2, high = 6 }', "tune.params.nope:max_bid: unknown strategy 'nope' (known: "),
        ('"bid_low:nothing" = { low = 2, high = 6 }', "strategy 'bid_low' has no parameter 'nothing' (known: "),
        (
            '"bid_low:max_bid" = { low = -1, high = 6 }',
            "tune.params.bid_low:max_bid: -1: strategy 'bid_low' parameter 'max_bid': expected >= 0, got -1",
        ),
        (
            '"bid_low:cash_out_risk" = { low = 0.5, high = 1.5 }',
            "tune.params.bid_low:cash_out_risk: 1.5: strategy 'bid_low' parameter 'cash_out_risk': expected 0..1",
        ),
        ('"bid_low:max_bid" = { choices = [1, "x"] }', "'x': strategy 'bid_low' parameter 'max_bid': expected int"),
        (
            '"run_firm:vote_spend" = { low = 0.1, high = 0.5 }',
            "tune.params.run_firm:vote_spend: strategy 'run_firm' does not play in this experiment (strategies: "
            "bid_low, balanced)",
        ),
    ],
)
def test_bad_strategy_keys_are_one_line_exit_2(tmp_path, capsys, new, message):
    old = '"bid_low:max_bid" = { low = 2, high = 6 }'
    assert old in RESPOND
    refused(tmp_path, capsys, write(tmp_path, RESPOND.replace(old, new, 1)), message)


def test_a_strategy_that_wastes_its_actions_learns_to_waste_none(tmp_path):
    """The known answer of a best response: a plugin that passes a share `waste` of its family actions, tuned for
    its win rate against `balanced`, ends near waste = 0 (on these games: about 47 % below 0.2, 40 % at 0.27, 27 %
    at 1)."""
    (tmp_path / "waster.py").write_text(WASTER)
    text = RESPOND.replace('["bid_low", "balanced"]', '["waster.py:Waster", "balanced"]')
    text = text.replace('strategy = "bid_low"', 'strategy = "waster"').replace("games = 40", "games = 200", 1)
    text = text.replace("trials = 4", "trials = 12").replace("confirm_games = 40", "confirm_games = 0")
    text = text.replace("seed = 3", "seed = 1").replace("shard_size = 40", "shard_size = 200")
    text = text.split("[tune.params]")[0] + '[tune.params]\n"waster:waste" = { low = 0.0, high = 1.0 }\n'
    ts = tune.load(write(tmp_path, text))
    meta = tune.run(ts, tmp_path / "out", jobs=1, notify=quiet)
    assert meta["best"]["params"]["waster:waste"] <= 0.25
    trials = pl.read_parquet(tmp_path / "out" / tune.TRIALS)
    assert trials.filter(pl.col("waster:waste") > 0.75)["value"].max() < meta["best"]["value"] - 0.1


def test_a_study_of_no_more_trials_than_startup_is_warned_of_as_a_random_search(tmp_path, capsys, monkeypatch):
    """trials <= startup: TPE never models the results; the command says so on stderr before it plays."""
    few = write(tmp_path, SMALL.format(trials=3, confirm=0))
    assert tune.startup_warning(tune.load(few)) == (
        f"{few}: trials = 3 is not more than tune.startup = 3: every trial is drawn at random (a random search, no "
        "TPE model); give more --trials or a smaller startup"
    )
    assert tune.startup_warning(tune.load(few, trials=4)) is None

    def stop(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_run_study", stop)
    with pytest.raises(KeyboardInterrupt):
        cli.cmd_tune(cli.build_parser().parse_args(["tune", str(few), "--quiet"]))
    assert capsys.readouterr().err.startswith(f"eastindia: warning: {few}: trials = 3 is not more than")


# ------------------------------------------------------------------------------------------ equilibrium objectives
EQUILIBRIUM = """name = "eq"
players = 4
games = 30
seed = 3
calibrate = false
strategies = ["balanced", "run_firm"]

[tune]
objective = "equilibrium_entropy"
target = "max"
trials = 2
batch = 2
startup = 2
confirm_games = 0

[tune.params]
"company.start_stability" = { low = 2, high = 7, int = true }

[metagame]
starts = 50
bootstrap = 20
"""


def test_the_entropy_objective_on_hand_made_payoff_tables():
    """Two seats, three strategies. A cycle (rock beats scissors beats paper beats rock) leaves every strategy viable:
    α-Rank spreads its mass evenly, entropy 1. When one strategy beats both others, α-Rank puts all its mass there,
    entropy 0; a strategy merely tied with a second one gets half, entropy log 2 / log 3."""
    counts = np.array(metagame.compositions(3, 2))

    def payoff(beats: dict[tuple[int, int], float]) -> np.ndarray:
        out = np.full((len(counts), 3), np.nan)
        for c, row in enumerate(counts):
            present = [i for i in range(3) if row[i]]
            for i in present:
                other = [j for j in present if j != i] or [i]
                out[c, i] = beats.get((i, other[0]), 1.0 - beats.get((other[0], i), 0.5))
        return out

    cycle = payoff({(0, 2): 0.8, (2, 1): 0.8, (1, 0): 0.8})
    mass, _ = metagame.alpharank(counts, cycle, 2)
    assert tune.normalised_entropy(mass) == pytest.approx(1.0, abs=1e-6)
    dominant = payoff({(0, 1): 0.8, (0, 2): 0.8, (1, 2): 0.6})
    mass, _ = metagame.alpharank(counts, dominant, 2)
    assert tune.normalised_entropy(mass) == pytest.approx(0.0, abs=1e-3)
    tied = payoff({(0, 2): 0.8, (1, 2): 0.8})
    mass, _ = metagame.alpharank(counts, tied, 2)
    assert tune.normalised_entropy(mass) == pytest.approx(np.log(2) / np.log(3), abs=1e-3)


def test_an_equilibrium_objective_plays_a_metagame_per_trial(tmp_path):
    """Each trial's value is the entropy of the α-Rank masses of its own rules arm in the batch's metagame; the crash
    rate it carries is the mass-weighted crash rate of the pure tables, the same games as the tables' frames. The
    default weighting (``nash``) reads the same metagame's stable equilibria, weighted by their basins."""
    path = write(tmp_path, EQUILIBRIUM.replace('target = "max"', 'target = "max"\nequilibrium = "alpharank"'))
    ts = tune.load(path)
    tune.run(ts, tmp_path / "out", jobs=1, notify=quiet)
    trials = pl.read_parquet(tmp_path / "out" / tune.TRIALS)
    batch = tmp_path / "out" / tune.BATCHES / "batch-0000-n2"
    alpha = pl.read_parquet(batch / metagame.ALPHARANK)
    games = pl.read_parquet(rf.frame_path(batch / metagame.TABLES, "games"))
    for r in trials.iter_rows(named=True):
        arm = f"trial {r['trial']}"
        mass = alpha.filter(pl.col("arm") == arm).sort("strategy")["mass"].to_numpy()  # balanced, run_firm
        assert r["value"] == pytest.approx(tune.normalised_entropy(mass)) and 0 <= r["value"] <= 1
        pure = {s: games.filter(pl.col("arm") == f"{arm} | {s}×4")["crashed"].mean() for s in ("balanced", "run_firm")}
        assert r["crash_rate"] == pytest.approx(mass[0] * pure["balanced"] + mass[1] * pure["run_firm"])
    nash = tune.load(write(tmp_path, EQUILIBRIUM, "nash.toml"))
    assert nash.equilibrium == "nash"
    ms = dataclasses.replace(nash.metagame, exp=nash.exp)
    eq = pl.read_parquet(batch / metagame.EQUILIBRIA)
    for r in trials.iter_rows(named=True):
        arm = f"trial {r['trial']}"
        stable = eq.filter((pl.col("arm") == arm) & pl.col("stable"))
        assert stable.height > 0
        weights = stable.group_by("equilibrium", maintain_order=True).agg(pl.col("basin").first(), pl.col("share"))
        w = weights["basin"].to_numpy() / weights["basin"].sum()
        dist = sum(wi * np.array(share) for wi, share in zip(w, weights["share"].to_list(), strict=True))
        got = tune.equilibrium_value(nash, ms, batch, arm)
        assert got["value"] == pytest.approx(tune.normalised_entropy(dist / dist.sum()))
        assert got["distribution"] == pytest.approx(dict(zip(["balanced", "run_firm"], dist / dist.sum(), strict=True)))


@pytest.mark.parametrize(
    "change, message",
    [
        (("[metagame]\nstarts = 50", ""), "metagame: missing: objective equilibrium_entropy plays a [metagame]"),
        (('target = "max"', 'target = "max"\nequilibrium = "best"'), 'tune.equilibrium: expected "alpharank" or'),
        (("starts = 50", 'starts = 50\ncompositions = "one_deviant"'), None),
        (('"equilibrium_entropy"', '"crash_rate"'), "metagame: only an equilibrium objective plays a metagame"),
        (("starts = 50", "starts = 0"), "metagame.starts: must be between 1"),
        (('target = "max"', "target = 1.5"), "the target must be between 0 and 1"),
        (
            ('"company.start_stability"', '"balanced:max_debt" = { low = 0, high = 8 }\n"company.start_stability"'),
            "equilibrium_entropy searches rules keys only",
        ),
    ],
)
def test_bad_equilibrium_objective_input_is_one_line_exit_2(tmp_path, capsys, change, message):
    old, new = change
    assert old in EQUILIBRIUM
    text = EQUILIBRIUM.replace(old, new, 1)
    if message is None:  # one_deviant has no α-Rank: alpharank asked for explicitly is refused, nash is its default
        assert tune.load(write(tmp_path, text)).equilibrium == "nash"
        text = text.replace('target = "max"', 'target = "max"\nequilibrium = "alpharank"')
        message = '"alpharank" needs compositions = "all"'
    refused(tmp_path, capsys, write(tmp_path, text), message)


def test_an_equilibrium_objective_s_confirmation_has_paired_bootstrap_intervals(tmp_path, capsys):
    """The confirmation of an equilibrium objective gives the default rules, the best trial and their difference a
    95 % interval (a paired bootstrap of the confirmation's games, the equilibria recomputed): each contains its
    estimate, the same seed gives the same interval and another seed another one; it is printed and on the page."""
    text = EQUILIBRIUM.replace('"equilibrium_entropy"', '"equilibrium_crash_rate"')
    text = text.replace("confirm_games = 0", "confirm_games = 40").replace('target = "max"', 'target = "min"')
    path = write(tmp_path, text)
    out = tmp_path / "out"
    assert cli.main(["tune", str(path), "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    printed = capsys.readouterr().out
    c = search.read_meta(out)["confirm"]["objective"]
    assert c["resamples"] == tune.CONFIRM_RESAMPLES and "bootstrap" in c["method"]
    for name in ("default", "best", "change"):
        estimate = c["change"] if name == "change" else c[name]
        assert c[f"{name}_lo"] <= estimate <= c[f"{name}_hi"], name
    assert c["change"] == pytest.approx(c["best"] - c["default"])
    assert c["default_lo"] < c["default_hi"]  # 40 games of a crash rate between 0 and 1: not a point
    assert c["distance_change_lo"] == pytest.approx(c["change_lo"])  # target "min": the distance is the value
    change = tune.format_change("equilibrium_crash_rate", c["change"], c["change_lo"], c["change_hi"])
    assert f"change {change}" in printed and "(" in change
    assert change in (out / "report.html").read_text()  # the Confirmation section
    ts = tune.load(path)
    exp = ts.experiment("eq confirmation", [("default", {}), ("best", search.read_meta(out)["best"]["params"])])
    ms = dataclasses.replace(ts.metagame, exp=exp)
    folder = out / tune.CONFIRM
    once, again, other = (tune.equilibrium_intervals(ts, ms, folder, np.random.default_rng(s)) for s in (7, 7, 8))
    assert once["bounds"] == again["bounds"] and once["bounds"] != other["bounds"]
    seeded = tune.equilibrium_intervals(ts, ms, folder, np.random.default_rng([ms.seed, tune.CONFIRM_SPAWN]))
    assert seeded["bounds"] == {k: c[k] for k in seeded["bounds"]}  # the study's own seed gives the study's interval


# At a table of 4 with c seats of strategy 0, a strategy-0 seat wins with probability WINS_0[c] (strategy 1's seats
# otherwise): each strategy earns more when it is rare, so the one equilibrium is an interior mix, stable; the
# Company crashes with probability CRASH[c].
WINS_0 = {4: 1.0, 3: 0.7, 2: 0.6, 1: 0.45, 0: 0.0}
CRASH = {4: 0.1, 3: 0.3, 2: 0.5, 1: 0.7, 0: 0.9}


def hand_made_tables(games: int, rng: np.random.Generator):
    counts = np.array(metagame.compositions(2, 4))
    zero = np.array([WINS_0[int(c[0])] for c in counts])
    crash = np.array([CRASH[int(c[0])] for c in counts])
    winners = (rng.random((len(counts), games)) >= zero[:, None]).astype(np.int64)  # 0 or 1
    crashed = (rng.random((len(counts), games)) < crash[:, None]).astype(float)
    outcomes = metagame.Outcomes(crashed, np.full_like(crashed, 5.0), np.zeros((len(counts), games, 2, 1)))
    payoff = np.column_stack([zero, 1 - zero]) / np.where(counts > 0, counts, np.nan)  # the exact per-seat payoffs
    return counts, winners, outcomes, payoff, crash


@pytest.mark.parametrize("objective", ["equilibrium_crash_rate", "equilibrium_entropy"])
def test_the_equilibrium_bootstrap_finds_the_known_answer_and_narrows_with_more_games(objective):
    """Hand-made payoff tables with a known interior equilibrium: the bootstrap interval of the objective (the
    equilibrium re-found in every resample) contains the exact answer and the estimate, 16 times the games make it
    about 4 times narrower, and two arms are resampled on the same games (equal arms: a change of exactly 0)."""
    rng = np.random.default_rng(11)
    counts, _, _, exact_payoff, crash = hand_made_tables(1, rng)
    [exact] = [e for e in metagame.equilibria(counts, exact_payoff, 4, 50, 1) if e["rest"]["stable"]]
    assert 0.7 < exact["shares"][0] < 0.9  # interior: both strategies viable
    answer = {
        "equilibrium_crash_rate": float(metagame.table_weights(counts, exact["shares"]) @ crash),
        "equilibrium_entropy": tune.normalised_entropy(exact["shares"]),
    }[objective]
    widths = []
    for games in (200, 3200):
        counts, winners, outcomes, _, _ = hand_made_tables(games, rng)
        found = [
            {"shares": e["shares"], "stable": e["rest"]["stable"], "basin": e["rest"]["basin"]}
            for e in metagame.equilibria(counts, metagame.seat_payoffs(counts, winners), 4, 50, 1)
        ]
        point = np.ones((1, games))
        [estimate] = tune.objective_resamples(objective, "nash", counts, 4, winners, outcomes, found, point)
        weights = rng.multinomial(games, np.full(games, 1 / games), size=200).astype(float)
        values = tune.objective_resamples(objective, "nash", counts, 4, winners, outcomes, found, weights)
        assert np.isfinite(values).all()
        lo, hi = np.percentile(values, [2.5, 97.5])
        assert lo <= estimate <= hi and lo <= answer <= hi, (games, lo, estimate, answer, hi)
        widths.append(hi - lo)
        # paired: the same games in both arms resample together, so equal arms differ by exactly 0 in every resample
        same = {"default": (winners, outcomes, found), "best": (winners, outcomes, found)}
        paired = tune.paired_intervals(objective, "nash", counts, 4, same, abs, np.random.default_rng(3), 200)
        assert paired["bounds"]["change_lo"] == paired["bounds"]["change_hi"] == 0.0 and paired["resamples"] == 200
        assert paired["bounds"]["default_lo"] < paired["bounds"]["default_hi"]
    assert widths[1] < widths[0] / 2.5


# ------------------------------------------------------------------------------------------- player counts
def test_player_counts_side_by_side_are_each_count_s_own_tune(tmp_path, capsys):
    """players = [4, 5]: the 4-player folder is the 4-player tune alone (the same trials, the same values), the top
    folder's trials.parquet holds both counts' trials with ``players``, the print and the report give each count's
    best; a count the game does not take is one line, exit 2."""
    text = SMALL.format(trials=4, confirm=0)
    alone = tmp_path / "alone"
    tune.run(tune.load(write(tmp_path, text, "alone.toml")), alone, jobs=1, notify=quiet)
    path = write(tmp_path, text.replace("players = 4", "players = [4, 5]"))
    assert isinstance(tune.load(path), tune.Counts)
    out = tmp_path / "out"
    assert cli.main(["tune", str(path), "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "4 players:" in lines and "5 players:" in lines
    four = search.count_folder(out, 4)
    assert (four / tune.TRIALS).read_bytes() == (alone / tune.TRIALS).read_bytes()
    trials = pl.read_parquet(out / tune.TRIALS)
    assert trials["players"].to_list() == [4] * 4 + [5] * 4
    five = pl.read_parquet(search.count_folder(out, 5) / tune.TRIALS)
    assert trials.filter(pl.col("players") == 5).drop("players").equals(five)
    assert not trials.filter(pl.col("players") == 4)["value"].equals(five["value"])  # 5 players play other games
    meta = search.read_meta(out)
    assert meta["counts"] == [4, 5] and meta["status"] == "complete"
    summary = (out / "summary.md").read_text()
    for n in (4, 5):
        best = search.read_meta(search.count_folder(out, n))["best"]
        assert f"| {n} | trial {best['trial']} |" in summary
        assert (search.count_folder(out, n) / "report.html").is_file() and f"players-{n}/report.html" in summary
    bad = tmp_path / "bad"
    bad.mkdir()
    refused(
        bad, capsys, write(bad, text.replace("players = 4", "players = [4, 7]")), "players[1]: 7 players is impossible"
    )
