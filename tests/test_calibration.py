"""Strategies calibrated to the rules they play: the pilot's fit, its cache, and runs with and without it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from test_runner_faults import StopAfterOne

from experiments import calibration, runner, spec
from experiments import runfolder as rf
from sim.engine import play_batch
from sim.results import Results
from strategies import calibration as cal
from strategies import values as V

TABLE = '["bid_low", "buy_shares", "run_firm", "go_military", "balanced"]'
STURDY = '[overrides]\n"company.start_stability" = 6\n'  # rules other than the defaults: the anchors move


def experiment(tmp_path: Path, text: str = "", games: int = 300, name: str = "exp.toml") -> spec.Experiment:
    path = tmp_path / name
    path.write_text(f'name = "cal"\nplayers = 5\ngames = {games}\nseed = 4\nstrategies = {TABLE}\n{text}')
    return spec.load(path)


@pytest.fixture(scope="module")
def pilots(tmp_path_factory) -> dict[int, dict]:
    """The archetype table's pilot (300 games) with the Company starting at stability 2 and at 6."""
    tmp = tmp_path_factory.mktemp("pilots")
    return {
        s: calibration.pilot(exp, exp.arms[0])
        for s in (2, 6)
        for exp in [experiment(tmp, f'[overrides]\n"company.start_stability" = {s}\n', name=f"s{s}.toml")]
    }


def test_a_sturdier_company_gets_a_lower_fitted_crash_risk_at_round_1(pilots):
    """The same table under rules whose Company starts at stability 6 instead of 2 crashes less, and the model fitted
    to each believes it: its crash risk at the start of round 1 is lower by more than 0.2."""
    weak, sturdy = pilots[2], pilots[6]
    assert sturdy["observed_crash"] < weak["observed_crash"] - 0.2
    assert sturdy["predicted_crash"] < weak["predicted_crash"] - 0.2


def test_the_fitted_model_predicts_the_pilots_crash_rate(pilots):
    """The fitted model's crash probability at the start of round 1 is the pilot's crash rate: within 0.01 (its
    per-round offsets match every round's start; only the weak prior pulls, by its offset over the pilot's games).
    The linear model without them missed by 0.03-0.06 here, always above."""
    for record in pilots.values():
        assert record["games"] == 300
        assert abs(record["predicted_crash"] - record["observed_crash"]) < 0.01, record


FLAT9 = '[overrides]\n"capital.formula" = "flat"\n"capital.budget_per_player" = 9\n'


@pytest.mark.parametrize(
    ("table", "rules"),
    [
        (TABLE, FLAT9),  # R-CAPITAL: flat 9 £ a family, where the linear model missed by 0.06
        ('["go_military", "go_military", "go_military", "go_military", "bid_low"]', FLAT9),
        (TABLE, '[overrides]\n"company.start_stability" = 3\n'),
    ],
)
def test_calibration_holds_after_a_rule_change(tmp_path, table, rules):
    """After a rule change the calibrated belief predicts the crash rate within 0.06 at the start of round 1, on
    the pilot it was fitted to (400 games) and on 400 other games (another seed) played with the same belief, and at
    the start of every later round (the mean belief over the games that reached it against their crash rate). The
    linear model without per-round offsets missed the first two pilots by 0.063 and 0.102 (above) and their other
    games' round 1 by 0.091 and 0.100."""
    path = tmp_path / "exp.toml"
    path.write_text(f'name = "cal"\nplayers = 5\ngames = 400\nseed = 4\nstrategies = {table}\n{rules}')
    exp = spec.load(path)
    arm = exp.arms[0]
    record = calibration.pilot(exp, arm)
    assert abs(record["predicted_crash"] - record["observed_crash"]) <= 0.06, record
    ids = np.arange(400, dtype=np.int64)
    names, seating = arm.seating(ids)
    made = [arm.spec(x).make() for x in names]
    with cal.applied(made, None):  # the pilot's play (the uncalibrated values), other dice
        _, rows = play_batch(arm.rules(), made, 99, ids, seating)
    frames = Results.from_batches([rows], {}).frames()
    x, crashed = cal.round_starts(frames, arm.rules())
    belief = cal.crash_probability(record["fitted"]["crash_logit"], x)
    rounds = x[:, 5:].argmax(axis=1) + 1
    for r in np.unique(rounds):
        at = rounds == r
        if at.sum() >= 100:
            assert abs(belief[at].mean() - crashed[at].mean()) <= 0.06, (r, belief[at].mean(), crashed[at].mean())


def test_on_the_default_rules_the_fit_keeps_the_signs_and_predicts_the_start_better(tmp_path):
    """The archetype table with balanced on the default rules (1,000 games): the refit keeps the sign of every
    coefficient of the fixed model (stability lowers the risk; loans, emergency loans and rounds left raise it) and
    its crash probability at round 1 is nearer the pilot's crash rate than the fixed model's (which believes 0.34
    where this table crashes about 0.6). The region loss rate lies within 0.15 of its fixed 0.3 (about 0.23: a region
    conquered in a round counts as exposed in it)."""
    exp = experiment(tmp_path, games=1000)
    record = calibration.pilot(exp, exp.arms[0])
    fitted, fixed = np.array(record["fitted"]["crash_logit"]), np.array(V.CRASH_LOGIT)
    assert fitted.size == 5 + 7  # one offset per round (game.rounds = 7)
    assert np.all(np.sign(fitted[:5]) == np.sign(fixed)), fitted
    before = calibration.round1_belief(fixed, exp.arms[0].rules())
    assert abs(record["predicted_crash"] - record["observed_crash"]) < abs(before - record["observed_crash"]) - 0.2
    assert abs(record["fitted"]["region_loss_rate"] - 0.3) < 0.15, record


def test_the_fitted_belief_is_an_option(tmp_path):
    """A strategy class with ``CALIBRATE = calibration.FITTED`` plays the crash model as fitted to the arm's own pilot
    (not anchored): the values played are the pilot's fit, and a player of the arm believes at the start of round 1
    the pilot's crash rate (within 0.01), on the default rules as on others. The region-loss rate stays anchored (the
    fixed 0.3 times the arm's fit over the default rules' fit)."""
    assert cal.CRASH.anchor is None and cal.FITTED[0] is cal.CRASH
    for name, text in (("default.toml", ""), ("sturdy.toml", STURDY)):
        exp = table_file(tmp_path, text, name, '["fit"]')
        arm = exp.arms[0]
        record = calibration.calibrate(exp, arm, tmp_path / "cache", "engine")
        assert record["belief"] == "fitted" and record["games"] == 300
        assert record["coefficients"]["crash_logit"] == record["fitted"]["crash_logit"]
        assert record["belief_crash"] == pytest.approx(record["predicted_crash"])
        assert abs(record["belief_crash"] - record["observed_crash"]) < 0.01, record
        ref = record.get("reference", record)["fitted"]["region_loss_rate"]
        rate = cal.REGION_LOSS_RATE * record["fitted"]["region_loss_rate"] / ref
        assert record["coefficients"]["region_loss_rate"] == pytest.approx(rate)
        # what a player reads: values.crash_risk at the start of round 1, inside the arm
        rules = arm.rules()
        obs = type("Obs", (), {})()
        obs.stability, obs.loans = np.array([rules.company.start_stability]), np.array([rules.company.start_loans])
        obs.emergency_total, obs.round, obs.rules = np.array([0]), np.array([1]), rules
        made = [arm.spec(x).make() for x in arm.seating(np.zeros(1, dtype=np.int64))[0]]
        with cal.applied(made, record["coefficients"]):
            assert abs(V.crash_risk(obs)[0] - record["observed_crash"]) < 0.01


FIT = """from strategies import Strategy, calibration


class Fit(Strategy):
    name = "fit"
    CALIBRATE = calibration.FITTED
"""


def table_file(tmp_path: Path, text: str, name: str, table: str = '["balanced"]') -> spec.Experiment:
    """A 300-game experiment of ``table`` (``fit``: a plugin that plays the fitted belief)."""
    (tmp_path / "fit.py").write_text(FIT)
    path = tmp_path / name
    plugin = f'plugins = ["{tmp_path / "fit.py"}:Fit"]\n'
    path.write_text(f'name = "cal"\nplayers = 5\ngames = 300\nseed = 4\nstrategies = {table}\n{plugin}{text}')
    return spec.load(path)


def test_the_players_play_the_anchored_belief_by_default(tmp_path):
    """The built-ins (``BUILTIN``) play the anchored crash model: the fixed one plus the arm's fit minus the same
    table's fit under the default rules (the reference pilot, recorded); a sturdier
    Company (stability 6 against 2) is believed to crash less at round 1 by more than 0.2. On the default rules it
    plays the fixed values exactly, without a pilot. A table mixing the fitted and the anchored belief is refused."""
    assert cal.BUILTIN is cal.ANCHORED and cal.BUILTIN[0].anchor is not None
    played = {}
    for s in (2, 6):
        exp = table_file(tmp_path, f'[overrides]\n"company.start_stability" = {s}\n', f"s{s}.toml")
        record = calibration.calibrate(exp, exp.arms[0], tmp_path / "cache", "engine")
        fit, ref = record["fitted"], record["reference"]["fitted"]
        assert record["belief"] == "anchored" and record["games"] == record["reference"]["games"] == 300
        moved = np.add(cal.padded(cal.CRASH_LOGIT, 12), fit["crash_logit"]) - ref["crash_logit"]
        assert np.allclose(record["coefficients"]["crash_logit"], moved)
        played[s] = record["belief_crash"]
    assert played[6] < played[2] - 0.2, played
    exp = table_file(tmp_path, "", "plain.toml")

    def play(*_):
        raise AssertionError("a pilot was played")

    record = calibration.calibrate(exp, exp.arms[0], tmp_path / "cache", "engine", play)
    assert record["games"] == 0 and "reference" not in record
    assert record["coefficients"] == {"crash_logit": list(cal.CRASH_LOGIT), "region_loss_rate": cal.REGION_LOSS_RATE}
    mixed = table_file(tmp_path, "", "mixed.toml", '["fit", "balanced"]')
    with pytest.raises(spec.PluginError, match=r"calibration quantity 'crash_logit' played two ways"):
        calibration.calibrate(mixed, mixed.arms[0], tmp_path / "cache", "engine")


def test_belief_fitted_in_the_experiment_puts_the_built_ins_on_the_fitted_belief(tmp_path):
    """``belief = "fitted"`` (an experiment key, default "anchored") plays the built-ins' crash model as fitted to the
    arm's own pilot, on the default rules too (a pilot is played there, where the anchored belief needs none): the
    values played are the fit, and the belief at round 1 is the pilot's crash rate. A table mixing a FITTED plugin
    with built-ins is one belief then, not a conflict. "anchored" keeps the digest of a file without the key; a
    value outside the two is one line naming the key."""
    exp = table_file(tmp_path, 'belief = "fitted"\n', "fitted.toml")
    assert exp.belief == "fitted"
    record = calibration.calibrate(exp, exp.arms[0], tmp_path / "cache", "engine")
    assert record["belief"] == "fitted" and record["games"] == 300 and "reference" not in record
    assert record["coefficients"]["crash_logit"] == record["fitted"]["crash_logit"]
    assert record["coefficients"]["crash_logit"] != list(cal.CRASH_LOGIT)
    assert abs(record["belief_crash"] - record["observed_crash"]) < 0.01, record
    mixed = table_file(tmp_path, 'belief = "fitted"\n', "mixed.toml", '["fit", "balanced"]')
    assert calibration.calibrate(mixed, mixed.arms[0], tmp_path / "cache", "engine")["belief"] == "fitted"
    plain, anchored = table_file(tmp_path, "", "plain.toml"), table_file(tmp_path, 'belief = "anchored"\n', "a.toml")
    assert plain.belief == "anchored" and plain.digest() == anchored.digest() != exp.digest()
    with pytest.raises(spec.ExperimentError, match=r"belief: expected one of 'anchored', 'fitted', got 'doom'"):
        table_file(tmp_path, 'belief = "doom"\n', "bad.toml")


def test_the_region_loss_rate_counts_each_game_from_its_own_first_round():
    """``fit_region_loss_rate``: regions lost over the regions exposed, those held at a round's start (the previous
    round's end, in the same game) or conquered in it. Game 0 conquers 4 in round 1 and holds them through round 2
    (exposed 4 + 4); game 1 conquers 2 in its round 1 and loses 1 (exposed 2): 1 / 10. Game 1's first round starts
    with nothing held, not with game 0's last 4 (1 / 14). The rows come unsorted, game 1 first."""
    rounds = pl.DataFrame(
        {
            "game": [1, 0, 0],
            "round": [1, 2, 1],
            "company_regions": [1, 4, 4],
            "conquests": [2, 0, 4],
            "regions_lost": [1, 0, 0],
        }
    )
    assert cal.fit_region_loss_rate({"rounds": rounds}, None) == pytest.approx(1 / 10)


def test_a_pilot_that_says_nothing_leaves_the_fit_at_the_prior():
    """``logistic``'s Gaussian prior is centred on ``prior`` (the fixed coefficients), not on 0: features that are 0 in
    every row carry no evidence, so the fit is the prior exactly; a pilot whose one feature separates the outcomes
    stays finite, pulled from the prior only along that feature."""
    prior = np.array([0.96, -1.21, 0.15, 0.165, 0.46])
    y = np.array([0.0, 1.0, 0.0, 1.0])
    assert cal.logistic(np.zeros((4, 5)), y, prior).tolist() == pytest.approx(prior.tolist())
    x = np.zeros((4, 5))
    x[:, 1] = [-1.0, 1.0, -1.0, 1.0]  # separates crashed (1) from not (0) perfectly
    fit = cal.logistic(x, y, prior)
    assert np.isfinite(fit).all() and fit[1] > prior[1]
    assert np.delete(fit, 1).tolist() == pytest.approx(np.delete(prior, 1).tolist())


def test_the_region_loss_anchor_scales_the_fixed_rate_and_keeps_it_when_the_reference_lost_nothing():
    """``scaled``: the fixed rate times the arm's fit over the default rules' fit, at most 1; a reference pilot that
    lost no region (fit 0) gives no ratio: the fixed rate is played, whatever the arm's own fit."""
    assert cal.scaled(0.2, 0.1, 0.3) == pytest.approx(0.6)
    assert cal.scaled(0.5, 0.1, 0.3) == 1.0
    assert cal.scaled(0.2, 0.0, 0.3) == cal.scaled(0.0, 0.0, 0.3) == 0.3


def test_the_cache_key_changes_with_the_pilot_s_seed_and_games(tmp_path):
    """``calibration.key`` names a pilot by what it plays: another seed or another number of pilot games is another
    pilot (a run never reuses a fit of other dice or of fewer games); the same file gives the same key."""

    def key(text: str, name: str) -> str:
        exp = experiment(tmp_path, text, name=name)
        return calibration.key(exp, exp.arms[0], "engine")

    k = key("", "a.toml")
    assert k is not None and key("", "b.toml") == k
    seed = tmp_path / "seed.toml"
    seed.write_text((tmp_path / "a.toml").read_text().replace("seed = 4\n", "seed = 5\n"))
    other = spec.load(seed)
    assert len({k, calibration.key(other, other.arms[0], "engine"), key("calibration_games = 200\n", "c.toml")}) == 3


def test_a_cached_pilot_is_read_only_under_its_own_key(tmp_path):
    """``calibration.cached``: a file of the cache whose record names another key (copied or renamed there) is no fit
    of this pilot (None: it is played again); a record without its ``fitted`` table neither."""
    (tmp_path / "abc.json").write_text(json.dumps({"key": "abc", "fitted": {"region_loss_rate": 0.2}}))
    assert calibration.cached(tmp_path, "abc") == {"key": "abc", "fitted": {"region_loss_rate": 0.2}}
    (tmp_path / "def.json").write_text(json.dumps({"key": "abc", "fitted": {"region_loss_rate": 0.2}}))
    assert calibration.cached(tmp_path, "def") is None
    (tmp_path / "ghi.json").write_text(json.dumps({"key": "ghi"}))
    assert calibration.cached(tmp_path, "ghi") is None and calibration.cached(tmp_path, "none") is None


@pytest.mark.parametrize("value", [float("inf"), float("nan"), [0.1, float("-inf")]])
def test_a_fit_that_returns_no_finite_number_is_one_line(value):
    """``calibration.fitted``: a quantity's fit must give finite numbers (an infinite or NaN coefficient would play
    as a certain or an undefined belief): anything else is a ``PluginError`` naming the quantity."""
    q = cal.Quantity("seen", 0.0, lambda frames, rules: value)
    with pytest.raises(spec.PluginError, match=r"^calibration quantity 'seen': its fit returned .*not finite numbers$"):
        calibration.fitted(q, {}, None)


def test_calibrated_values_reach_the_valuations_only_inside_the_arm():
    """``values.crash_risk`` reads the arm's fitted coefficients while it plays, the fixed ones elsewhere; a plugin's
    ``calibrate`` hook receives the values."""
    obs = type("Obs", (), {})()
    obs.stability, obs.loans, obs.emergency_total = np.array([4]), np.array([0]), np.array([0])
    obs.round, obs.rules = np.array([1]), type("R", (), {"game": type("G", (), {"rounds": 8})})()
    got = {}

    class Mine:
        def calibrate(self, values):
            got.update(values)

    fixed = V.crash_risk(obs)
    del obs._values
    with cal.applied([Mine()], {"crash_logit": [0.0, 0.0, 0.0, 0.0, 0.0]}):
        assert V.crash_risk(obs)[0] == 0.5
    del obs._values
    assert V.crash_risk(obs)[0] == fixed[0] != 0.5
    assert got == {"crash_logit": [0.0, 0.0, 0.0, 0.0, 0.0]}


# ---------------------------------------------------------------------------------------------- in a run
def eastindia(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.run([sys.executable, "-m", "experiments.cli", *args], capture_output=True, text=True, env=env)


def merged(folder: Path) -> dict[str, bytes]:
    return {f: rf.frame_path(folder, f).read_bytes() for f in rf.FRAMES}


def test_no_calibrate_plays_the_fixed_coefficients_row_for_row(tmp_path):
    """``--no-calibrate`` plays exactly the games of the fixed coefficients (the rows the engine gives with no
    calibration in force, so the merged files are today's byte for byte), records no calibration and writes no
    cache; calibrated (the anchored belief: the arm's rules are not the defaults, so the anchor moves), the same games
    play differently."""
    exp = experiment(tmp_path, STURDY, games=20)
    path = tmp_path / "exp.toml"
    for out, extra in (("fixed", ["--no-calibrate"]), ("calibrated", [])):
        done = eastindia("run", str(path), "--jobs", "1", "--quiet", "--out", str(tmp_path / out), *extra)
        assert done.returncode == 0, done.stderr
    arm = exp.arms[0]
    ids = np.arange(20, dtype=np.int64)
    names, seating = arm.seating(ids)
    _, rows = play_batch(arm.rules(), [arm.spec(x).make() for x in names], exp.seed, ids, seating)
    plain = Results.from_batches([rows], {}).games
    for out, same in (("fixed", True), ("calibrated", False)):
        games = pl.read_parquet(rf.frame_path(tmp_path / out, "games")).select(plain.columns)
        assert games.equals(plain) == same, out
    fixed = json.loads((tmp_path / "fixed" / rf.META).read_text())
    assert "calibration" not in fixed["arms"][0] and not (tmp_path / "fixed" / calibration.DIR).exists()
    played = json.loads((tmp_path / "calibrated" / rf.META).read_text())["arms"][0]["calibration"]
    assert played["games"] == 20 and set(played["coefficients"]) == {"crash_logit", "region_loss_rate"}
    assert (tmp_path / "calibrated" / calibration.DIR / f"{played['key']}.json").is_file()
    assert (tmp_path / "calibrated" / calibration.DIR / f"{played['reference']['key']}.json").is_file()
    # the report shows the arm's predicted against observed crash rate (absent when nothing was calibrated)
    assert "Calibration of the crash belief" not in (tmp_path / "fixed" / "summary.md").read_text()
    summary = (tmp_path / "calibrated" / "summary.md").read_text()
    row = next(line for line in summary.splitlines() if line.startswith("| cal | anchored | 20 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[3:5] == [f"{100 * played['predicted_crash']:.1f} %", f"{100 * played['observed_crash']:.1f} %"]
    assert cells[6] == f"{100 * played['belief_crash']:.1f} %"
    crashed = pl.read_parquet(rf.frame_path(tmp_path / "calibrated", "games"))["crashed"].mean()
    assert cells[7].startswith(f"{100 * crashed:.1f} %")


def test_calibrate_false_in_the_file_is_validated_and_keeps_the_experiments_digest(tmp_path):
    """``calibrate`` is a boolean (a wrong type is one line naming the key); ``calibrate = false`` gives the digest
    the experiment had before calibration existed (finished run folders stay valid); on, it changes."""
    off = experiment(tmp_path, "calibrate = false\n", name="off.toml")
    on = experiment(tmp_path, name="on.toml")
    before = ("calibrate", "calibration_games", "belief", "target_ci", *spec.NOT_RESULTS)  # target_ci 0: left out too
    data = {k: v for k, v in off.data.items() if k not in before}
    import hashlib

    from experiments import tomlw

    assert off.digest() == hashlib.sha256(tomlw.dumps(data).encode()).hexdigest()[:16] != on.digest()
    with pytest.raises(spec.ExperimentError, match=r"calibrate: expected bool, got 'no'"):
        experiment(tmp_path, 'calibrate = "no"\n', name="bad.toml")
    with pytest.raises(spec.ExperimentError, match=r"calibration_games: must be between 1 and"):
        experiment(tmp_path, "calibration_games = 0\n", name="bad2.toml")


def test_resume_reuses_the_calibration_without_a_second_pilot(tmp_path, monkeypatch):
    """An interrupted calibrated run resumed plays no second pilot (the fit is read from the run folder's cache) and
    ends with the frames of an uninterrupted run."""
    exp = experiment(tmp_path, "shard_size = 6\n" + STURDY, games=12)
    pilots = []
    real = runner.play_pilot
    monkeypatch.setattr(runner, "play_pilot", lambda *a: pilots.append(a) or real(*a))

    with pytest.raises(runner.Interrupted):
        runner.run(exp, tmp_path / "cut", jobs=1, progress=StopAfterOne())
    assert len(pilots) == 2  # the arm's and its reference (the same table under the default rules)
    shutil.rmtree(calibration.store_dir())  # the fits kept between runs forgotten: read from the run folder alone
    runner.run(exp, tmp_path / "cut", jobs=1, resume=True)
    assert len(pilots) == 2
    runner.run(exp, tmp_path / "whole", jobs=1)
    assert len(pilots) == 4
    assert merged(tmp_path / "cut") == merged(tmp_path / "whole")


def test_a_pilot_played_by_one_run_is_kept_for_the_next_in_any_folder(tmp_path, monkeypatch):
    """A pilot's fit is kept in the cache folder (``calibration.kept``): a second run of the same experiment in another
    folder plays no pilot, has no pilot left to play (``runner.games_left``), holds the same fits in its own folder's
    ``calibration/`` and plays the same games. What is kept is read only for the same pilot (another seed plays its
    own), only from the code that played it (``_pilot_code``), and only whole (a damaged file is played again and kept
    anew); a cache folder that cannot be written leaves every run playing its pilots, without an error."""
    exp = experiment(tmp_path, "shard_size = 6\n" + STURDY, games=12)
    pilots = []
    real = runner.play_pilot
    monkeypatch.setattr(runner, "play_pilot", lambda *a: pilots.append(a[1].name) or real(*a))

    def fits(folder: Path) -> dict[str, dict]:  # each pilot's record but the time it took to play
        records = {p.name: json.loads(p.read_text()) for p in sorted((folder / calibration.DIR).glob("*.json"))}
        return {name: {k: v for k, v in record.items() if k != "pilot_s"} for name, record in records.items()}

    empty = tmp_path / "empty"
    assert runner.games_left(exp, {}, empty) == 12 + 2 * 12  # the arm's games and its two pilots
    runner.run(exp, tmp_path / "first", jobs=1)
    assert len(pilots) == 2 and len(list(calibration.store_dir().glob("*.json"))) == 2
    assert runner.games_left(exp, {}, empty) == 12
    runner.run(exp, tmp_path / "second", jobs=1)
    assert len(pilots) == 2  # none played again
    assert len(fits(tmp_path / "second")) == 2 and fits(tmp_path / "second") == fits(tmp_path / "first")
    assert merged(tmp_path / "second") == merged(tmp_path / "first")
    metas = [json.loads((tmp_path / f / rf.META).read_text())["arms"][0]["calibration"] for f in ("first", "second")]
    assert metas[0] == metas[1]

    reseeded = tmp_path / "seed5.toml"
    reseeded.write_text((tmp_path / "exp.toml").read_text().replace("seed = 4\n", "seed = 5\n"))
    runner.run(spec.load(reseeded), tmp_path / "third", jobs=1)
    assert len(pilots) == 4  # the arm's and its reference's, both of the other dice

    code = calibration._pilot_code
    monkeypatch.setattr(calibration, "_pilot_code", lambda: "other-code")
    runner.run(exp, tmp_path / "fourth", jobs=1)
    assert len(pilots) == 6
    monkeypatch.setattr(calibration, "_pilot_code", code)

    for path in calibration.store_dir().glob("*.json"):
        path.write_text(path.read_text()[:-40])  # cut short: no record
    runner.run(exp, tmp_path / "fifth", jobs=1)
    assert len(pilots) == 8 and fits(tmp_path / "fifth") == fits(tmp_path / "first")
    runner.run(exp, tmp_path / "sixth", jobs=1)
    assert len(pilots) == 8  # kept anew

    shutil.rmtree(calibration.store_dir())
    calibration.store_dir().parent.mkdir(parents=True, exist_ok=True)
    calibration.store_dir().write_text("a file where the folder would be")  # the cache folder cannot be written
    runner.run(exp, tmp_path / "seventh", jobs=1)
    runner.run(exp, tmp_path / "eighth", jobs=1)
    assert len(pilots) == 12 and merged(tmp_path / "eighth") == merged(tmp_path / "first")


def test_jobs_and_shard_size_give_identical_files_with_calibration_on(tmp_path):
    """Every shard of a calibrated arm plays with the same fitted values: two jobs and shards of 4 games give the
    files of one job and shards of 10."""
    path = tmp_path / "exp.toml"
    experiment(tmp_path, STURDY, games=10)
    a = eastindia("run", str(path), "--jobs", "1", "--quiet", "--out", str(tmp_path / "a"))
    b = eastindia("run", str(path), "--jobs", "2", "--shard-size", "4", "--quiet", "--out", str(tmp_path / "b"))
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    assert merged(tmp_path / "a") == merged(tmp_path / "b")
    runs = [json.loads((tmp_path / x / rf.META).read_text())["arms"][0]["calibration"] for x in "ab"]
    assert runs[0]["coefficients"] == runs[1]["coefficients"]


PLUGIN = """from strategies import Strategy, calibration

def fit(frames, rules):
    return {value}

SEEN = calibration.Quantity("seen", 0.0, fit, "a plugin's own quantity")

class Seer(Strategy):
    name = "seer"
    CALIBRATE = (SEEN,)

    def take_loans(self, obs, legal):
        if calibration.value("seen") > 100:
            raise RuntimeError(f"played with seen = {{calibration.value('seen'):g}}")
        return super().take_loans(obs, legal)
"""


@pytest.mark.parametrize(
    ("value", "extra", "code", "line"),
    [
        ("1e6", [], 2, r"^eastindia: error: strategy 'seer' \(seat \d\) raised RuntimeError: played with seen = 1e"),
        ("1e6", ["--no-calibrate"], 0, None),
        ("1 / 0", [], 2, r"^eastindia: error: calibration quantity 'seen': its fit raised ZeroDivisionError: division"),
        ("'x'", [], 2, r"^eastindia: error: calibration quantity 'seen': its fit returned 'x', not finite numbers$"),
    ],
)
def test_a_plugin_declares_its_own_quantity_and_plays_with_its_fit(tmp_path, value, extra, code, line):
    """A plugin's ``CALIBRATE`` quantity is fitted on the pilot and its value reaches the plugin's decisions in the
    workers (here it raises when it sees the fitted value; ``--no-calibrate`` plays the default). A fit that raises
    or returns something other than numbers is one line, exit 2."""
    (tmp_path / "seer.py").write_text(PLUGIN.format(value=value))
    done = eastindia("run", "--strategy", f"{tmp_path / 'seer.py'}:Seer", "--games", "3", "--quiet", "--jobs", "1",
                     "--out", str(tmp_path / "out"), *extra)  # fmt: skip
    assert done.returncode == code, done.stderr
    if line:
        assert len(done.stderr.strip().splitlines()) == 1 and re.search(line, done.stderr), done.stderr


def test_a_game_of_a_calibrated_run_replays_as_played(tmp_path):
    """``eastindia replay`` plays the game with the arm's fitted values recorded in run.json: it reproduces the
    run's frames (with the fixed values it would not, and would refuse)."""
    path = tmp_path / "exp.toml"
    experiment(tmp_path, STURDY, games=6)
    done = eastindia("run", str(path), "--jobs", "1", "--quiet", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    again = eastindia("replay", str(tmp_path / "out"), "--game", "5")
    assert again.returncode == 0 and "does not replay" not in again.stderr, again.stderr
