"""paired comparisons (Newcombe's paired interval, the paired t), ``eastindia compare`` of two runs, and
seat advantage that holds under rotation."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil

import numpy as np
import polars as pl
import pytest
from reports_fixture import change_one_value, make_run, record_checksums
from scipy import stats as sps
from test_reports import newcombe_direct, newcombe_paired_direct, paired_t_direct

import reports
from experiments import cli
from reports import stats
from reports.compare import compare_runs, pair_measures
from reports.data import aggregate
from reports.summary import seat_advantage, seat_strategy_rates


def pairs(a: int, b: int, c: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """0/1 vectors x, y with the 2 x 2 table of pairs (a: both 1, b: x only, c: y only, d: neither)."""
    x = np.array([1] * a + [1] * b + [0] * c + [0] * d)
    y = np.array([1] * a + [0] * b + [1] * c + [0] * d)
    return x, y


@pytest.mark.parametrize(("a", "b", "c", "d"), [(10, 15, 5, 20), (59, 23, 3, 37), (0, 0, 3, 97), (40, 0, 0, 60)])
def test_paired_newcombe_is_method_10_written_out(a, b, c, d):
    est, lo, hi = stats.paired_diff_ci(a, b, c, d)
    assert (est, lo, hi) == pytest.approx(newcombe_paired_direct(*pairs(a, b, c, d)), abs=1e-12)
    assert lo <= est <= hi and hi - lo > 0  # no discordant pair (last case): still not a zero-width interval


def test_paired_interval_reduces_to_newcombes_independent_one_without_correlation():
    """phi = 0 (ad = bc): the paired interval is Newcombe's independent interval on the two margins."""
    a, b, c, d = 6, 12, 9, 18  # 6 * 18 == 12 * 9
    n = a + b + c + d
    _, lo, hi = stats.paired_diff_ci(a, b, c, d)
    assert (lo, hi) == pytest.approx(newcombe_direct(a + c, n, a + b, n), abs=1e-12)


def test_paired_mean_and_welch_intervals():
    rng = np.random.default_rng(1)
    x, y = rng.normal(5, 2, 400), rng.normal(4.8, 2, 400)
    d = x - y
    est, lo, hi = stats.paired_mean_ci(d.size, d.sum(), (d * d).sum())
    assert (est, lo, hi) == pytest.approx(paired_t_direct(x, y), abs=1e-9)
    w = stats.welch_ci(x.size, x.sum(), (x * x).sum(), 300, y[:300].sum(), (y[:300] ** 2).sum())
    t = sps.ttest_ind(x, y[:300], equal_var=False).confidence_interval(0.95)
    assert w == pytest.approx((x.mean() - y[:300].mean(), t.low, t.high), abs=1e-9)


def test_each_effect_once():
    names = [(m.metric, m.strategy) for m in pair_measures(["balanced", "random"], ["balanced", "random"])]
    assert names == [
        ("crash rate", None), ("win rate", "balanced"), ("mean end round", None),
        ("mean VP", "balanced"), ("mean VP", "random"),
    ]  # fmt: skip
    three = [m.strategy for m in pair_measures(["a", "b", "c"], ["a", "b", "c"]) if m.metric == "win rate"]
    assert three == ["a", "b", "c"]  # three strategies: no win rate is the mirror of another
    assert [m.metric for m in pair_measures(["balanced"], ["balanced"])] == ["crash rate", "mean end round", "mean VP"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("cmp")
    arms = [{"capital.formula": "inverse_share"}, {"capital.formula": "flat"}]
    both = make_run(base / "both", arms, games=150, seed=7, rotations=2)
    a = make_run(base / "a", arms[:1], games=150, seed=7, rotations=2)
    b = make_run(base / "b", arms[1:], games=150, seed=7, rotations=2)
    other = make_run(base / "other", arms[1:], games=120, seed=8, rotations=2)
    return both, a, b, other


def test_two_runs_sharing_their_games_compare_as_the_arms_of_one_run(runs):
    both, a, b, _ = runs
    within = reports.comparisons(both)
    across = compare_runs(a, b)
    assert across["arm"].to_list() == ["B: capital.formula=flat"] * 5
    assert across["reference"][0] == "A: capital.formula=inverse_share"
    for col in ("estimate", "lo", "hi", "arm_value", "reference_value"):
        assert across[col].to_list() == pytest.approx(within[col].to_list(), abs=1e-12)
    assert across["method"].to_list() == within["method"].to_list() and across["n"].to_list() == [150] * 5


def test_runs_of_other_seeds_compare_as_independent_samples(runs):
    _, a, _, other = runs
    df = compare_runs(a, other)
    assert set(df["method"]) == {"independent Newcombe (method 10)", "Welch t"}
    games_a = pl.read_parquet(a / "games.parquet")
    games_o = pl.read_parquet(other / "games.parquet")
    crash = df.filter(pl.col("metric") == "crash rate").row(0, named=True)
    k_a, k_o = int(games_a["crashed"].sum()), int(games_o["crashed"].sum())
    assert crash["n"] == 270
    assert (crash["lo"], crash["hi"]) == pytest.approx(newcombe_direct(k_a, 150, k_o, 120), abs=1e-10)
    end = df.filter(pl.col("metric") == "mean end round").row(0, named=True)
    t = sps.ttest_ind(games_o["end_round"].to_numpy(), games_a["end_round"].to_numpy(), equal_var=False)
    assert (end["lo"], end["hi"]) == pytest.approx(tuple(t.confidence_interval(0.95)), abs=1e-9)


def test_eastindia_compare(runs, tmp_path, capsys):
    _, a, b, _ = runs
    out = tmp_path / "cmp.parquet"
    assert cli.main(["compare", str(a), str(b), "--out", str(out)]) == 0
    text, err = capsys.readouterr()
    assert "paired on the games both play" in text and "crash rate" in text and "win rate balanced" in text
    told = err.splitlines()
    assert told[0] == "eastindia: compare: arms compared 0/1" and told[1].startswith(
        "eastindia: compare: arms compared 1/1, "
    )
    assert len(told) == 2
    assert cli.main(["compare", str(a), str(b), "--out", str(out), "--quiet"]) == 0
    quiet = capsys.readouterr()
    assert quiet.err == "" and quiet.out == text
    assert pl.read_parquet(out).height == 5
    assert cli.main(["compare", str(a), str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a run folder" in err


def test_compare_refuses_a_frame_that_no_longer_matches_its_checksum(runs, tmp_path, capsys):
    _, a, b, _ = runs
    damaged = tmp_path / "b"
    shutil.copytree(b, damaged)
    record_checksums(damaged)
    assert cli.main(["compare", str(a), str(damaged)]) == 0  # as written: compared
    capsys.readouterr()
    change_one_value(damaged, "seats", "vp")  # still valid Parquet
    for order in ([a, damaged], [damaged, a]):
        assert cli.main(["compare", *map(str, order)]) == 2
        out = capsys.readouterr()
        assert out.out == "" and out.err.count("\n") == 1
        assert f"{damaged}: damaged or edited since the run wrote it (seats.parquet does not match" in out.err


def test_compare_refuses_runs_of_other_player_counts_unless_unpaired(runs, tmp_path, capsys):
    """Game i of a 4-player run is not game i of a 5-player one: no pairing, and no comparison unless asked."""
    _, a, _, _ = runs
    four = make_run(tmp_path / "four", [{}], games=150, seed=7, strategies=["balanced", "random"] * 2, rotations=2)
    assert cli.main(["compare", str(a), str(four)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.count("\n") == 1
    assert f"{a} plays 5 players, {four} 4" in out.err and "--unpaired" in out.err
    assert cli.main(["compare", str(a), str(four), "--unpaired"]) == 0
    assert "independent samples (--unpaired)" in capsys.readouterr().out
    df = compare_runs(a, four, unpaired=True)
    assert set(df["method"]) == {"independent Newcombe (method 10)", "Welch t"} and df["n"][0] == 300


def test_unpaired_compares_runs_that_share_their_games_as_independent_samples(runs):
    _, a, b, _ = runs
    df = compare_runs(a, b, unpaired=True)
    games_a, games_b = (pl.read_parquet(run / "games.parquet") for run in (a, b))
    crash = df.filter(pl.col("metric") == "crash rate").row(0, named=True)
    k_a, k_b = int(games_a["crashed"].sum()), int(games_b["crashed"].sum())
    assert crash["method"] == "independent Newcombe (method 10)" and crash["n"] == 300
    assert (crash["lo"], crash["hi"]) == pytest.approx(newcombe_direct(k_a, 150, k_b, 150), abs=1e-10)


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """A one-arm run on the default rules, named "arm 0": no arm name in common with the sweep's."""
    return make_run(tmp_path_factory.mktemp("plain") / "plain", [{}], games=150, seed=7, rotations=2)


def test_compare_arm_pairs_a_one_arm_run_with_the_named_arm_of_a_sweep(runs, plain):
    """``--arm`` picks the sweep's arm by name or index; the one-arm run's only arm is paired with it, on the games
    both play, exactly as against a run of that arm alone."""
    both, _, b, _ = runs
    alone = compare_runs(plain, b)  # b: the flat arm alone
    for arm in ("capital.formula=flat", "1", 1):
        df = compare_runs(plain, both, arm=arm)
        assert df["arm"].to_list() == ["B: capital.formula=flat"] * 5 and df["reference"][0] == "A: arm 0"
        for col in ("estimate", "lo", "hi", "arm_value", "reference_value", "n"):
            assert df[col].to_list() == alone[col].to_list(), (arm, col)
    other = compare_runs(plain, both, arm=0)  # the other arm: other values
    assert (
        other["arm"][0] == "B: capital.formula=inverse_share"
        and other["arm_value"].to_list() != alone["arm_value"].to_list()
    )
    flipped = compare_runs(both, plain, arm="capital.formula=flat")  # the sweep as A
    assert flipped["reference"][0] == "A: capital.formula=flat" and flipped["arm"][0] == "B: arm 0"
    crash = flipped.filter(pl.col("metric") == "crash rate").row(0, named=True)
    mine = alone.filter(pl.col("metric") == "crash rate").row(0, named=True)
    assert crash["estimate"] == pytest.approx(-mine["estimate"], abs=1e-12)


def test_eastindia_compare_arm(runs, plain, capsys):
    both = runs[0]
    assert cli.main(["compare", str(plain), str(both), "--arm", "capital.formula=flat"]) == 0
    out = capsys.readouterr().out
    assert "arm 'arm 0' of A against arm 'capital.formula=flat' of B (--arm capital.formula=flat)" in out
    assert "paired on the games both play" in out
    for argv, words in (
        ([], ["no arm of", "--arm NAME_OR_INDEX", "0: 'capital.formula=inverse_share', 1: 'capital.formula=flat'"]),
        (["--arm", "capital.formula=square"], ["--arm 'capital.formula=square': no such arm in", str(both)]),
        (["--arm", "2"], ["--arm '2': no such arm in", "1: 'capital.formula=flat'"]),
    ):
        assert cli.main(["compare", str(plain), str(both), *argv]) == 2, argv
        got = capsys.readouterr()
        assert got.out == "" and got.err.count("\n") == 1, got.err
        assert all(w in got.err for w in words), (argv, got.err)
    a, b = runs[1], runs[2]  # two one-arm runs: --arm must name one of their arms
    assert cli.main(["compare", str(a), str(b), "--arm", "capital.formula=flat"]) == 0
    capsys.readouterr()
    assert cli.main(["compare", str(a), str(b), "--arm", "nothing"]) == 2
    assert "neither" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------- seat advantage
def test_rotation_cannot_pass_for_seat_advantage(tmp_path):
    """Two strategies rotated over five seats: seats 0, 2, 4 hold 'balanced' only in tables of three 'balanced',
    seats 1, 3 only in tables of two. With no seat effect at all but a table-composition effect, the raw seat win
    rates differ by 6 pp; the advantage, measured against same-strategy peers in the same seating, is exactly 0."""
    agg = aggregate(make_run(tmp_path / "r", [{}], games=40, seed=1, rotations=2))
    per_seat = {0: (0.25, 0.10), 1: (0.125, 0.35), 2: (0.25, 0.10), 3: (0.125, 0.35), 4: (0.25, 0.10)}
    games = 10_000
    rows = []
    for rotation in (0, 1):
        for seat in range(5):
            strategy = ("balanced", "random")[(seat + rotation) % 2]
            wins = round(games * per_seat[seat][rotation])
            rows.append((0, rotation, seat, strategy, games, wins))
    schema = ["arm_index", "rotation", "seat", "strategy", "games", "wins"]
    fake = dataclasses.replace(agg, seat_strategy=pl.DataFrame(rows, schema=schema, orient="row"))
    adv = seat_advantage(fake)
    assert adv["win"].to_list() == pytest.approx([0.175, 0.2375, 0.175, 0.2375, 0.175])  # the false advantage
    assert adv["advantage"].to_list() == pytest.approx([0.0] * 5, abs=1e-12)
    # a real advantage: in every seating seat 0 wins 3 pp more, its two same-strategy peers (seats 2 and 4) 1.5 pp
    # less each; against the mean of its group (itself included, unchanged) seat 0 is +3 pp, seats 2 and 4 -1.5
    bumped = [(*r[:5], r[5] + (300 if r[2] == 0 else -150 if r[2] in (2, 4) else 0)) for r in rows]
    fake = dataclasses.replace(agg, seat_strategy=pl.DataFrame(bumped, schema=schema, orient="row"))
    adv = seat_advantage(fake)
    assert adv["advantage"].to_list() == pytest.approx([0.03, 0, -0.015, 0, -0.015], abs=1e-12)
    assert adv["lo"][0] > 0 and adv["hi"][2] < 0


def test_seat_advantage_recomputed_from_the_frames(tmp_path):
    run_dir = make_run(tmp_path / "r", [{}], games=120, seed=4, rotations=5)
    agg = aggregate(run_dir)
    seats = pl.read_parquet(run_dir / "seats.parquet")
    adv = seat_advantage(agg)
    for seat in range(5):
        xs = []
        for (_rot,), part in seats.group_by("rotation"):
            mine = part.filter(pl.col("seat") == seat)
            strategy = mine["strategy"][0]
            peers = part.filter(pl.col("strategy") == strategy)
            m = peers["seat"].n_unique()
            if m < 2:
                continue
            won = mine.sort("game")["winner"].cast(pl.Float64).to_numpy()
            peer_won = peers.group_by("game").agg(pl.col("winner").sum()).sort("game")["winner"].to_numpy()
            xs.append(won - peer_won / m)
        x = np.concatenate(xs)
        half = sps.t.ppf(0.975, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size)
        row = adv.filter(pl.col("seat") == seat).row(0, named=True)
        assert (row["advantage"], row["lo"], row["hi"]) == pytest.approx((x.mean(), x.mean() - half, x.mean() + half))
    rates = seat_strategy_rates(agg)
    assert rates["seat_games"].sum() == 120 * 5
    one = aggregate(make_run(tmp_path / "one", [{}], games=50, seed=4, strategies=["balanced"] * 5, rotations=1))
    solo = seat_advantage(one)  # one strategy: the advantage is the excess over 1 / players
    assert solo["advantage"].to_list() == pytest.approx([w - 0.2 for w in solo["win"]], abs=1e-12)


def test_report_takes_the_reference_by_name_or_index_and_keeps_it_in_run_json(runs, capsys):
    both = runs[0]
    assert "reference" not in json.loads((both / "run.json").read_text())  # a fixture run: the first arm by default
    assert set(reports.comparisons(both)["reference"]) == {"capital.formula=inverse_share"}
    assert cli.main(["report", str(both), "--reference", "capital.formula=flat"]) == 0
    capsys.readouterr()
    comp = pl.read_parquet(both / "comparisons.parquet")
    assert set(comp["reference"]) == {"capital.formula=flat"} and set(comp["arm"]) == {"capital.formula=inverse_share"}
    assert json.loads((both / "run.json").read_text())["reference"] == "capital.formula=flat"
    assert set(reports.comparisons(both)["reference"]) == {"capital.formula=flat"}  # kept: the run's reference now
    assert cli.main(["report", str(both), "--reference", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--reference: 'nope' is neither the name nor the index of an arm" in err
    assert "(0: 'capital.formula=inverse_share', 1: 'capital.formula=flat')" in err
    assert cli.main(["report", str(both), "--reference", "0"]) == 0  # by index
    assert json.loads((both / "run.json").read_text())["reference"] == "capital.formula=inverse_share"
    assert set(pl.read_parquet(both / "comparisons.parquet")["reference"]) == {"capital.formula=inverse_share"}


def test_the_default_reference_arm_has_the_experiments_own_rules_else_it_is_the_first(tmp_path):
    from experiments import spec

    def reference(sweep: str, extra: str = "") -> str:
        path = tmp_path / "exp.toml"
        path.write_text(f'games = 10\nstrategies = ["balanced", "random"]\n{extra}\n[sweep]\n{sweep}\n')
        return spec.load(path).reference

    assert reference('"capital.formula" = ["flat", "inverse_share", "linear"]') == "capital.formula=inverse_share"
    assert reference('"capital.formula" = ["flat", "linear"]') == "capital.formula=flat"  # none: the first
    own = '[overrides]\n"capital.formula" = "linear"'  # the experiment's own rules include its [overrides]
    assert reference('"capital.budget_per_player" = [5, 6]', own) == "capital.budget_per_player=6"
    assert reference('"capital.formula" = ["flat", "linear"]', 'reference = "1"') == "capital.formula=linear"
    with pytest.raises(spec.ExperimentError, match=r"reference: no arm is named '2' and it is not an arm's index"):
        reference('"capital.formula" = ["flat", "linear"]', 'reference = "2"')
