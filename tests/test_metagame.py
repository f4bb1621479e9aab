"""eastindia metagame: the equilibria of a hand-built coordination game (two pure stable tables, one mixed unstable
one, with their basins), a real metagame of ``balanced`` against ``random`` (all-balanced is the only stable table),
a composition's win rates add up to 1 and equal a direct run of that table, --resume and --jobs give byte-identical
files, and bad [metagame] input is one line, exit 2."""

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from helpers import CtrlCAfter

from experiments import cli, metagame, runner, search, spec
from experiments import runfolder as rf

FILE = """name = "mg"
players = 4
games = 40
shard_size = 20
seed = 3
calibrate = false   # the metagame's machinery, not the strategies' fit: no pilot per table (1.7x the time)
strategies = ["balanced", "random"]

[metagame]
starts = 100
"""


def quiet(message: str) -> None:
    pass


def write(tmp_path: Path, text: str, name: str = "mg.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("metagame")
    ms = metagame.load(write(tmp, FILE))
    metagame.run(ms, tmp / "out", jobs=1, notify=quiet)
    return ms, tmp / "out"


def test_a_coordination_game_has_two_stable_pure_tables_and_one_unstable_mix():
    """Three seats, strategies A and B. A table of A with one B: each A wins 40 %, the B 20 %; one A with two B: the
    A 25 %, each B 37.5 %. A beats a lone B and B beats a lone A, so both pure tables are stable; A's payoff minus
    B's against a share x of A is (2/15) x^2 + 0.05 x (1 - x) - (1/12) (1 - x)^2, zero at x = 5/13, the unstable
    mix; from a uniform start the dynamics end at all-A when x > 5/13 (basin 8/13) and at all-B otherwise."""
    counts = np.array(metagame.compositions(2, 3))
    table = {(3, 0): [1 / 3, np.nan], (2, 1): [0.4, 0.2], (1, 2): [0.25, 0.375], (0, 3): [np.nan, 1 / 3]}
    payoff = np.array([table[tuple(c)] for c in counts])
    found = metagame.equilibria(counts, payoff, 3, starts=4000, seed=2)
    assert len(found) == 3
    (a, b, mixed) = found
    assert a["shares"].tolist() == [1.0, 0.0] and b["shares"].tolist() == [0.0, 1.0]
    assert a["rest"]["stable"] and b["rest"]["stable"] and not mixed["rest"]["stable"]
    assert mixed["shares"][0] == pytest.approx(5 / 13, abs=1e-6)
    assert a["rest"]["basin"] == pytest.approx(8 / 13, abs=0.025)
    assert b["rest"]["basin"] == pytest.approx(5 / 13, abs=0.025)
    assert mixed["rest"]["basin"] == 0.0
    assert all(e["rest"]["regret"] < 1e-9 for e in found)


def test_only_pure_tables_are_judged_from_one_deviant_tables():
    counts = np.array(metagame.compositions(2, 3))
    payoff = np.array([[1 / 3, np.nan], [0.4, 0.2], [0.25, 0.375], [np.nan, 1 / 3]])
    found = metagame.pure_equilibria(counts, payoff, 3)
    assert [e["shares"].tolist() for e in found] == [[1.0, 0.0], [0.0, 1.0]]
    assert all(e["rest"]["stable"] and e["rest"]["basin"] is None for e in found)
    assert sorted(metagame.compositions(3, 4, "one_deviant")) == sorted(
        [(4, 0, 0), (3, 1, 0), (3, 0, 1), (1, 3, 0), (0, 4, 0), (0, 3, 1), (1, 0, 3), (0, 1, 3), (0, 0, 4)]
    )


def test_win_rates_of_a_composition_add_up_to_one(played):
    ms, out = played
    pay = pl.read_parquet(out / metagame.PAYOFFS)
    assert pay["composition"].unique(maintain_order=True).to_list() == [
        "balanced×4",
        "balanced×3+random×1",
        "balanced×2+random×2",
        "balanced×1+random×3",
        "random×4",
    ]
    sums = pay.group_by("composition").agg(pl.col("win_rate").sum(), pl.col("seats").sum(), pl.col("games").first())
    assert sums["win_rate"].to_list() == pytest.approx([1.0] * 5)
    assert set(sums["seats"]) == {4} and set(sums["games"]) == {40}
    assert (pay["lo"] <= pay["win_rate"]).all() and (pay["win_rate"] <= pay["hi"]).all()
    assert [r["seats"] == r[r["strategy"]] for r in pay.iter_rows(named=True)] == [True] * len(pay)


def test_balanced_against_random_has_one_stable_table_all_balanced(played):
    _, out = played
    eq = pl.read_parquet(out / metagame.EQUILIBRIA)
    stable = eq.filter(pl.col("stable"))
    assert stable["equilibrium"].n_unique() == 1
    shares = dict(zip(stable["strategy"], stable["share"], strict=True))
    assert shares["balanced"] >= 0.95
    assert stable["basin"][0] >= 0.95 and stable["regret"][0] < 1e-6


def test_a_composition_agrees_with_a_direct_run_of_that_table(played, tmp_path):
    """3 balanced + 1 random, rotated, on the same seed and games: the very same games as `eastindia run`."""
    _, out = played
    path = write(tmp_path, FILE.split("[metagame]")[0].replace('"random"]', '"random"]\n[[arms]]\nname = "t"\n'
                 'strategies = ["balanced", "balanced", "balanced", "random"]'), "direct.toml")  # fmt: skip
    runner.run(spec.load(path), tmp_path / "direct", jobs=1, notify=quiet)
    games = pl.read_parquet(rf.frame_path(tmp_path / "direct", "games"))
    pay = pl.read_parquet(out / metagame.PAYOFFS).filter(pl.col("composition") == "balanced×3+random×1")
    for strategy, rate in zip(pay["strategy"], pay["win_rate"], strict=True):
        assert rate == (games["winner_strategy"] == strategy).mean()
    vp = pl.read_parquet(rf.frame_path(tmp_path / "direct", "seats")).group_by("strategy").agg(pl.col("vp").mean())
    assert dict(zip(pay["strategy"], pay["mean_vp"], strict=True)) == pytest.approx(dict(vp.iter_rows()))


def test_resume_and_jobs_give_byte_identical_files(played, tmp_path):
    _, whole = played
    ms = metagame.load(write(tmp_path, FILE))

    with pytest.raises(runner.Interrupted):
        metagame.run(ms, tmp_path / "out", jobs=1, notify=quiet, progress=CtrlCAfter(3))
    assert search.read_meta(tmp_path / "out")["status"] == "interrupted"
    assert not (tmp_path / "out" / metagame.PAYOFFS).exists()
    with pytest.raises(runner.RunError, match="pass --resume"):
        metagame.run(ms, tmp_path / "out", jobs=1, notify=quiet)
    metagame.run(ms, tmp_path / "out", jobs=2, resume=True, notify=quiet)
    for name in (metagame.PAYOFFS, metagame.EQUILIBRIA):
        assert (tmp_path / "out" / name).read_bytes() == (whole / name).read_bytes()


@pytest.mark.parametrize(
    "change, message",
    [
        (("starts = 100", 'compositions = "some"'), 'metagame.compositions: expected "all" or "one_deviant"'),
        (("starts = 100", "starts = 0"), "metagame.starts: must be between 1"),
        (("starts = 100", "colour = 1"), "metagame.colour: unknown key"),
        (('["balanced", "random"]', '["balanced"]'), "strategies: a metagame needs two strategies or more"),
        (('["balanced", "random"]', '["random", "random"]'), "strategies: each strategy once"),
        (("seed = 3", "seed = 3\nrotate = false"), "rotate: a metagame rotates every table"),
        (("seed = 3", "seed = 3\ntarget_ci = 0.01"), "target_ci: has no place in a metagame file"),
        (("[metagame]", '[[arms]]\nname = "x"\nstrategies = ["balanced"]\n[metagame]'), "arms[0].strategies: the"),
        (("[metagame]\nstarts = 100", ""), "metagame: missing: `eastindia metagame` needs a [metagame] section"),
    ],
)
def test_bad_metagame_input_is_one_line_exit_2(tmp_path, capsys, change, message):
    old, new = change
    assert old in FILE
    path = write(tmp_path, FILE.replace(old, new, 1))
    code = cli.main(["metagame", str(path), "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_the_library_metagame_file():
    """experiments/library/metagame.toml: the four archetypes and balanced over the capital formulas' arms."""
    ms = metagame.load(Path(spec.__file__).with_name("library") / "metagame.toml")
    assert ms.labels == ["bid_low", "buy_shares", "run_firm", "go_military", "balanced"]
    assert len(ms.tables()) == 126 and len(ms.exp.arms) == 3
    assert len(ms.experiment().arms) == 3 * 126


def test_validate_checks_a_metagame_file_as_the_metagame_reads_it(tmp_path):
    """``eastindia validate`` (``spec.check_file``) takes a [metagame] file: the library's is valid, a bad section
    gives the metagame's own one-line problem."""
    library = Path(spec.__file__).with_name("library") / "metagame.toml"
    assert spec.check_file(library) == []
    bad = tmp_path / "bad.toml"
    bad.write_text(library.read_text().replace('compositions = "all"', 'compositions = "some"'))
    assert any("metagame.compositions" in p for p in spec.check_file(bad))
