"""eastindia metagame: the equilibria of a hand-built coordination game (two pure stable tables, one mixed unstable
one, with their basins) and their bootstrap intervals, alpha-Rank's known values (and OpenSpiel's), the invasion
table, a real metagame of ``balanced`` against ``random`` (all-balanced is the only stable table) and its report,
a composition's win rates add up to 1 and equal a direct run of that table, --resume and --jobs give byte-identical
files, and bad [metagame] input is one line, exit 2."""

import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from helpers import CtrlCAfter

from experiments import cli, metagame, runner, search, spec
from experiments import runfolder as rf
from reports.metagame import write_metagame_report

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
    write_metagame_report(tmp / "out")  # as the command does after the study
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


COORDINATION = np.array([[1.0, 0.0], [0.8, 0.2], [0.25, 0.75], [0.0, 1.0]])  # the game above: each strategy's win rate


def coordination_winners(games: int, seed: int) -> np.ndarray:
    """Who won each of ``games`` games at each table of the coordination game (drawn at its win rates)."""
    rng = np.random.default_rng(seed)
    return np.array([rng.choice(2, size=games, p=p) for p in COORDINATION])


def test_bootstrap_intervals_contain_the_estimate_and_shrink_with_more_games():
    counts = np.array(metagame.compositions(2, 3))
    widths = []
    for games in (300, 3000):
        winners = coordination_winners(games, 5)
        payoff = metagame.seat_payoffs(counts, winners)
        assert payoff[1].tolist() == pytest.approx([(winners[1] == 0).mean() / 2, (winners[1] == 1).mean()])
        found = metagame.equilibria(counts, payoff, 3, starts=200, seed=2)
        assert [e["rest"]["stable"] for e in found] == [True, True, False]
        bounds = metagame.bootstrap(counts, winners, 3, found, reps=300, seed=7)
        for eq, b in zip(found, bounds, strict=True):
            assert (b["lo"] <= eq["shares"] + 1e-12).all() and (eq["shares"] <= b["hi"] + 1e-12).all()
            assert b["regret_lo"] >= 0 and b["regret_hi"] >= eq["rest"]["regret"]
        assert bounds[0]["lo"].tolist() == bounds[0]["hi"].tolist() == [1.0, 0.0]  # a strict pure table stays put
        mixed = bounds[2]
        assert mixed["regret_hi"] > 0  # the mix's indifference is a knife edge: resamples break it
        widths.append(mixed["hi"][0] - mixed["lo"][0])
    assert 0 < widths[1] < widths[0] / 2  # ten times the games: about a third of the width
    again = metagame.bootstrap(counts, winners, 3, found, reps=300, seed=7)
    assert [b["lo"].tolist() for b in again] == [b["lo"].tolist() for b in bounds]  # a fixed seed, fixed intervals


def test_the_bootstrap_intervals_are_95_percent_intervals():
    """The module docstring's intervals: ``lo`` / ``hi`` the 2.5 and 97.5 % points of the resampled shares, and the
    regret's one-sided ``regret_hi`` the 95 % point. On a known sample, 1,001 evenly spaced values of 0..1, these
    are 0.025, 0.975 and 0.95 exactly (a 90 % interval would give 0.05 and 0.95, 0.9)."""
    x = np.linspace(0.0, 1.0, 1001)
    b = metagame._bounds(np.stack([x, 1.0 - x], axis=1), regret=x)
    assert b["lo"].tolist() == pytest.approx([0.025, 0.025]) and b["hi"].tolist() == pytest.approx([0.975, 0.975])
    assert b["regret_lo"] == 0.0 and b["regret_hi"] == pytest.approx(0.95)


def test_an_equilibrium_s_health_intervals_are_95_percent_intervals():
    """A known distribution: the pure table of A plays 400 games, half of them crash at round 3 with 10 VP for an A
    seat, half end at round 7 with 0. Resampling the games, each mean is about normal with the standard error
    sd / sqrt(400): the 95 % interval is the mean -+ 1.96 standard errors (crash 0.5 -+ 0.049, end round 5 -+ 0.196,
    VP 5 -+ 0.49), within 0.15 standard errors (a 90 % interval, 1.645, misses by 0.31 of them)."""
    counts = np.array(metagame.compositions(2, 2))
    g = 400
    half = np.arange(g) < g // 2
    crashed = np.zeros((3, g))
    crashed[0] = half
    end_round = np.full((3, g), 7.0)
    end_round[0, half] = 3.0
    vp = np.full((3, g, 2, len(metagame.SOURCES)), np.nan)
    vp[0, :, 0] = np.where(half, 10.0, 0.0)[:, None]
    h = metagame.equilibrium_health(counts, metagame.Outcomes(crashed, end_round, vp), np.array([1.0, 0.0]), 4000, 1)
    for lo, hi, mean, sd in (
        (h["crash_lo"], h["crash_hi"], 0.5, 0.5),
        (h["end_round_lo"], h["end_round_hi"], 5.0, 2.0),
        (h["vp_lo"][0, 0], h["vp_hi"][0, 0], 5.0, 5.0),
    ):
        se = sd / np.sqrt(g)
        assert lo == pytest.approx(mean - 1.959964 * se, abs=0.15 * se)
        assert hi == pytest.approx(mean + 1.959964 * se, abs=0.15 * se)


def two_player(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The compositions and per-seat payoffs of the symmetric two-player game whose row player earns ``matrix``."""
    k = len(matrix)
    counts = np.array(metagame.compositions(k, 2))
    payoff = np.full((len(counts), k), np.nan)
    for c, seats in enumerate(counts):
        i, j = np.repeat(np.arange(k), seats)
        payoff[c, i], payoff[c, j] = matrix[i, j], matrix[j, i]
    return counts, payoff


def test_alpha_rank_known_values():
    """Rock-paper-scissors: uniform; a dominant strategy: all the mass; two strategies, two players, a population of
    2: the chain's balance pi_A rho(B invades A) = pi_B rho(A invades B) with rho(r invades s) = 1 / (1 + exp(-alpha
    (u(r, s) - u(s, r)))) gives pi_A / pi_B = exp(alpha (u(A, B) - u(B, A)))."""
    rps = np.array([[0.0, -1, 1], [1, 0, -1], [-1, 1, 0]])
    mass, _ = metagame.alpharank(*two_player(rps), 2)
    assert mass == pytest.approx([1 / 3] * 3, abs=1e-9)
    dominant = np.array([[0.5, 0.6, 0.7], [0.4, 0.5, 0.6], [0.3, 0.4, 0.5]])
    mass, alpha = metagame.alpharank(*two_player(dominant), 2)
    assert mass[0] > 0.999 and alpha >= 10
    pair = np.array([[0.5, 0.3], [0.2, 0.4]])  # u(A, B) - u(B, A) = 0.1
    mass, alpha = metagame.alpharank(*two_player(pair), 2, alpha=10.0, m=2)
    assert alpha == 10.0 and mass[0] == pytest.approx(np.e / (1 + np.e), abs=1e-12)
    counts = np.array(metagame.compositions(2, 3))
    mass, _ = metagame.alpharank(counts, np.array([[1 / 3, np.nan], [0.4, 0.2], [0.25, 0.375], [np.nan, 1 / 3]]), 3)
    assert mass.sum() == pytest.approx(1.0) and mass.min() >= 0


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # OpenSpiel's exp(-alpha u) at a large alpha
def test_alpha_rank_agrees_with_openspiel():
    """Our N-player alpha-Rank at two players is OpenSpiel's single-population alpha-Rank (global selection)."""
    from open_spiel.python.egt import alpharank as openspiel

    matrix = np.random.default_rng(0).random((4, 4))
    for alpha, m in ((0.5, 20), (5.0, 20), (50.0, 50)):
        mass, _ = metagame.alpharank(*two_player(matrix), 2, alpha=alpha, m=m)
        pi = openspiel.compute([matrix], alpha=alpha, m=m, use_local_selection_model=False)[2]
        assert mass == pytest.approx(pi, abs=1e-9)


def test_the_invasion_table_from_a_hand_built_payoff_table():
    """Three seats: a lone B at a table of two A wins 20 % (the fair share is a third: repelled), a lone A at a table
    of two B 40 % (invades, its interval above a third), and the pure tables are not invasions."""
    rows = [("A×3", 3, 0, "A", 3, 1.0), ("A×2+B×1", 2, 1, "A", 2, 0.8), ("A×2+B×1", 2, 1, "B", 1, 0.2),
            ("A×1+B×2", 1, 2, "A", 1, 0.4), ("A×1+B×2", 1, 2, "B", 2, 0.6), ("B×3", 0, 3, "B", 3, 1.0)]  # fmt: skip
    pay = pl.DataFrame(
        [
            {"arm": "x", "composition": c, "A": a, "B": b, "strategy": s, "seats": n, "win_rate": w,
             "lo": w - 0.03, "hi": w + 0.03}
            for c, a, b, s, n, w in rows
        ]
    )  # fmt: skip
    inv = metagame.invasion_frame(pay, ["A", "B"], 3).sort("invader")
    assert inv["invader"].to_list() == ["A", "B"] and inv["resident"].to_list() == ["B", "A"]
    assert inv["win_rate"].to_list() == [0.4, 0.2]
    assert inv["fair"].to_list() == pytest.approx([1 / 3] * 2)
    assert inv["verdict"].to_list() == ["invades", "repelled"]


def test_a_lone_seat_whose_interval_holds_the_fair_share_is_even():
    """The verdict reads the whole 95 % interval: a lone seat invades only when even its ``lo`` is above the fair
    share and is repelled only when its ``hi`` is below it. Three seats (fair 1/3): a lone B winning 35 % with the
    interval 0.30..0.40, and a lone A winning 30 % with 0.25..0.36, both hold 1/3: even, not invades nor repelled."""
    rows = [("A×3", 3, 0, "A", 3, 1.0, 0.97, 1.0), ("A×2+B×1", 2, 1, "A", 2, 0.65, 0.6, 0.7),
            ("A×2+B×1", 2, 1, "B", 1, 0.35, 0.30, 0.40), ("A×1+B×2", 1, 2, "A", 1, 0.30, 0.25, 0.36),
            ("A×1+B×2", 1, 2, "B", 2, 0.70, 0.64, 0.75), ("B×3", 0, 3, "B", 3, 1.0, 0.97, 1.0)]  # fmt: skip
    pay = pl.DataFrame(
        [
            {"arm": "x", "composition": c, "A": a, "B": b, "strategy": s, "seats": n, "win_rate": w, "lo": lo, "hi": hi}
            for c, a, b, s, n, w, lo, hi in rows
        ]
    )
    inv = metagame.invasion_frame(pay, ["A", "B"], 3).sort("invader")
    assert inv["invader"].to_list() == ["A", "B"] and inv["verdict"].to_list() == ["even", "even"]


def test_only_pure_tables_are_judged_from_one_deviant_tables():
    counts = np.array(metagame.compositions(2, 3))
    payoff = np.array([[1 / 3, np.nan], [0.4, 0.2], [0.25, 0.375], [np.nan, 1 / 3]])
    found = metagame.pure_equilibria(counts, payoff, 3)
    assert [e["shares"].tolist() for e in found] == [[1.0, 0.0], [0.0, 1.0]]
    assert all(e["rest"]["stable"] and e["rest"]["basin"] is None for e in found)
    assert sorted(metagame.compositions(3, 4, "one_deviant")) == sorted(
        [(4, 0, 0), (3, 1, 0), (3, 0, 1), (1, 3, 0), (0, 4, 0), (0, 3, 1), (1, 0, 3), (0, 1, 3), (0, 0, 4)]
    )


@pytest.mark.parametrize("lone_b, stable", [(1 / 3, False), (0.3, True)])
def test_a_pure_table_is_stable_only_when_every_deviant_earns_less(lone_b, stable):
    """The module docstring (one-deviant tables): a pure table is an equilibrium when no single deviant earns more
    than its seats, stable when every deviant earns *less*. At all-A (each seat 1/3) a lone B earning exactly 1/3
    gains nothing: all-A is an equilibrium (regret 0) but not stable; a lone B earning 0.3 makes it stable. All-B is
    no equilibrium: a lone A there earns 1/2."""
    counts = np.array(metagame.compositions(2, 3))
    table = {(3, 0): [1 / 3, np.nan], (2, 1): [(1 - lone_b) / 2, lone_b], (1, 2): [0.5, 0.25], (0, 3): [np.nan, 1 / 3]}
    payoff = np.array([table[tuple(c)] for c in counts])
    (a,) = metagame.pure_equilibria(counts, payoff, 3)
    assert a["shares"].tolist() == [1.0, 0.0]
    assert a["rest"]["stable"] is stable and a["rest"]["regret"] == 0.0


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


def test_the_equilibria_carry_bootstrap_intervals_and_alpha_rank_masses(played):
    _, out = played
    eq = pl.read_parquet(out / metagame.EQUILIBRIA).filter(pl.col("stable"))
    assert (eq["lo"] <= eq["share"]).all() and (eq["share"] <= eq["hi"]).all()
    assert eq["regret_hi"].is_not_null().all()
    alpha = pl.read_parquet(out / metagame.ALPHARANK)
    assert alpha["strategy"].to_list() == ["balanced", "random"]
    assert alpha["mass"].sum() == pytest.approx(1.0) and alpha["mass"][0] > 0.99


def test_a_metagame_writes_its_report_and_eastindia_report_rewrites_it(played, capsys):
    _, out = played
    page = (out / "report.html").read_text()
    assert "Metagame: what experienced tables converge on" in page
    eq = pl.read_parquet(out / metagame.EQUILIBRIA).filter(pl.col("stable")).row(0, named=True)
    crash = f"{100 * eq['crash_rate']:.1f} % ({100 * eq['crash_lo']:.1f}–{100 * eq['crash_hi']:.1f})"
    assert (
        f"Experienced tables converge on all-balanced (basin 100 %; the Company crashes in {crash} of its games, "
        f"which end in round {eq['mean_end_round']:.1f}" in page
    )
    assert "How each equilibrium&#x27;s strategies score" in page and "degenerate: the Company crashes at least" in page
    assert "Invasion: one seat against the rest" in page and 'id="chart-flow"' in page
    assert (out / "charts" / "flow.png").stat().st_size > 1000
    (out / "report.html").unlink()
    assert cli.main(["report", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"report: {out / 'report.html'}"
    assert "α-Rank mass per strategy" in (out / "report.html").read_text()


def test_the_print_leads_with_each_equilibrium_s_health_and_marks_a_degenerate_one(tmp_path, capsys):
    """With degenerate_crash at 1 % every equilibrium that crashes at all is degenerate: the print says so on its
    health line, in plain words for its stability and with intervals for its shares."""
    path = write(tmp_path, FILE.replace("starts = 100", "starts = 100\ndegenerate_crash = 0.01"))
    assert cli.main(["metagame", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    eq = pl.read_parquet(tmp_path / "out" / metagame.EQUILIBRIA).filter(pl.col("stable")).row(0, named=True)
    assert eq["crash_rate"] > 0.01 and eq["degenerate"]
    assert lines[1] == (
        "  all-balanced — stable: no seat gains by switching strategy, and a mix shifted a little comes back"
    )
    assert lines[2].startswith("    shares (95 % CI): balanced 100.0 % (")
    assert lines[3] == (
        f"    by the 95 % bound, a seat that switches strategy gains at most {100 * eq['regret_hi']:.1f} pp of win "
        "rate; 100 % of random starting mixes end here"
    )
    assert lines[4].startswith(f"    the Company crashes in {100 * eq['crash_rate']:.1f} % (")
    assert lines[4].endswith(" — degenerate")


def equilibrium_rows(arm, e, shares, lo, hi, stable, basin, regret_hi, crash=(0.5, 0.4, 0.6)):
    """The rows of one equilibrium in equilibria.parquet (strategies A and B; a game ending in round 6)."""
    rest = {"stable": stable, "basin": basin, "regret": 0.0, "regret_lo": 0.0, "regret_hi": regret_hi}
    rest |= {"crash_rate": crash[0], "crash_lo": crash[1], "crash_hi": crash[2], "mean_end_round": 6.0}
    rest |= {"end_round_lo": 5.9, "end_round_hi": 6.1, "degenerate": False}
    return [
        {"arm": arm, "equilibrium": e, "strategy": s, "share": v, "lo": lo[i], "hi": hi[i], **rest}
        for i, (s, v) in enumerate(zip("AB", shares, strict=True))
    ]


def test_the_print_says_in_words_how_each_equilibrium_holds_with_the_intervals_of_its_shares():
    """The coordination game's three equilibria: all-A, stable, from 62 % of the random starts; all-B, stable though no
    random start ended there (its basin is small, not empty: mixes near it come back); the mix, unstable. Each prints
    its shares with their 95 % intervals (a strategy at 0 % whose interval reaches above it too), the 95 % bound of what
    a seat gains by switching, and the crash rate with its interval; a pure table of one-deviant tables (no basin
    measured) says what a lone seat that switches earns, and no basin."""
    from reports.metagame import terminal_lines

    rows = equilibrium_rows("mg", 0, [1.0, 0.0], [0.97, 0.0], [1.0, 0.03], True, 8 / 13, 0.004)
    rows += equilibrium_rows("mg", 1, [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], True, 0.0, 0.0)
    rows += equilibrium_rows("mg", 2, [5 / 13, 8 / 13], [0.2, 0.45], [0.55, 0.8], False, 0.0, 0.021)
    lines = terminal_lines(pl.DataFrame(rows), ["mg"])
    assert lines == [
        "  all-A — stable: no seat gains by switching strategy, and a mix shifted a little comes back",
        "    shares (95 % CI): A 100.0 % (97.0–100.0), B 0.0 % (0.0–3.0)",
        "    by the 95 % bound, a seat that switches strategy gains at most 0.4 pp of win rate; 62 % of random "
        "starting mixes end here",
        "    the Company crashes in 50.0 % (40.0–60.0) of its games, which end in round 6.0 (5.9–6.1)",
        "  all-B — stable: no seat gains by switching strategy, and a mix shifted a little comes back",
        "    shares (95 % CI): B 100.0 % (100.0–100.0)",
        "    by the 95 % bound, a seat that switches strategy gains at most 0.0 pp of win rate; no random starting "
        "mix ended here: only mixes near it lead back to it",
        "    the Company crashes in 50.0 % (40.0–60.0) of its games, which end in round 6.0 (5.9–6.1)",
        "  B 62 % + A 38 % — unstable: no seat gains by switching strategy here, but a mix shifted a little moves away",
        "    shares (95 % CI): A 38.5 % (20.0–55.0), B 61.5 % (45.0–80.0)",
        "    by the 95 % bound, a seat that switches strategy gains at most 2.1 pp of win rate",
        "    the Company crashes in 50.0 % (40.0–60.0) of its games, which end in round 6.0 (5.9–6.1)",
    ]
    pure = equilibrium_rows("mg", 0, [1.0, 0.0], [1.0, 0.0], [1.0, 0.0], True, None, 0.0)
    pure += equilibrium_rows("mg", 1, [0.0, 1.0], [0.0, 1.0], [0.0, 1.0], False, None, 0.01)
    lines = terminal_lines(pl.DataFrame(pure), ["mg"])
    assert lines[0] == "  all-A — stable: a lone seat that switches strategy earns less"
    assert lines[4] == "  all-B — holds: a lone seat that switches strategy earns no more, but some earn as much"
    assert not any("random starting" in line for line in lines)


def test_the_print_names_a_rules_arm_without_any_equilibrium(played):
    """One-deviant tables where a lone deviant gains at every pure table leave an arm with no equilibrium: the print
    says so for that arm instead of leaving it out."""
    from reports.metagame import terminal_lines

    _, out = played
    eq = pl.read_parquet(out / metagame.EQUILIBRIA)
    lines = terminal_lines(eq, ["mg", "harsher rules"])
    assert lines[0] == "  harsher rules: no equilibrium found: at every table the games judged, some lone deviant gains"
    assert lines[1].startswith("  mg: all-balanced — stable")


def test_report_on_a_metagame_folder_without_its_equilibria_is_one_line_exit_2(played, tmp_path, capsys):
    _, out = played
    damaged = tmp_path / "damaged"
    shutil.copytree(out, damaged, ignore=shutil.ignore_patterns(metagame.TABLES, metagame.EQUILIBRIA))
    assert cli.main(["report", str(damaged)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"eastindia: error: {damaged}: the metagame's results are unreadable: ")
    assert "equilibria.parquet" in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


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


def test_a_pure_equilibrium_s_health_is_its_table_s_direct_run(played, tmp_path):
    """all-balanced, the stable equilibrium: its crash rate, end round and VP by source are those of `eastindia run`
    of four balanced on the same seed and games; its intervals hold the estimate; degenerate only at or above the
    key."""
    _, out = played
    path = write(tmp_path, FILE.split("[metagame]")[0].replace('["balanced", "random"]', '["balanced"]'), "pure.toml")
    runner.run(spec.load(path), tmp_path / "direct", jobs=1, notify=quiet)
    games = pl.read_parquet(rf.frame_path(tmp_path / "direct", "games"))
    seats = pl.read_parquet(rf.frame_path(tmp_path / "direct", "seats"))
    eq = pl.read_parquet(out / metagame.EQUILIBRIA).filter(pl.col("stable"), pl.col("strategy") == "balanced")
    assert eq["share"][0] == 1.0
    assert 0 < games["crashed"].mean() < 1  # both kinds of game, so a wrong weighting shows
    assert eq["crash_rate"][0] == pytest.approx(games["crashed"].mean())
    assert eq["mean_end_round"][0] == pytest.approx(games["end_round"].mean())
    assert eq["crash_lo"][0] <= eq["crash_rate"][0] <= eq["crash_hi"][0]
    assert eq["end_round_lo"][0] <= eq["mean_end_round"][0] <= eq["end_round_hi"][0]
    assert eq["degenerate"][0] == (eq["crash_rate"][0] >= metagame.DEGENERATE_CRASH)
    health = pl.read_parquet(out / metagame.HEALTH).filter(pl.col("equilibrium") == eq["equilibrium"][0])
    assert health["strategy"].unique().to_list() == ["balanced"]
    vp = dict(zip(health["source"], health["vp"], strict=True))
    assert vp["total"] == pytest.approx(seats["vp"].mean())
    for source in ("luxury", "influence", "company_shares"):
        assert vp[source] == pytest.approx(seats[f"vp_{source}"].mean())
    assert (health["lo"] <= health["vp"] + 1e-12).all() and (health["vp"] <= health["hi"] + 1e-12).all()


def test_a_mixed_equilibrium_s_health_weights_the_tables_by_how_often_the_mix_seats_them():
    """Two seats, strategies A and B, the mix half and half: the tables AA, AB, BB come up 1/4, 1/2, 1/4 (not a third
    each); only AA crashes (rate 1/4, not 1/3). A seat of A meets A or B half the time each: its VP is the mean of
    its VP at AA (10) and at AB (4) = 7, not weighted by the tables (8) nor by A's seats in them (8)."""
    counts = np.array(metagame.compositions(2, 2))  # [[2, 0], [1, 1], [0, 2]]
    assert counts.tolist() == [[2, 0], [1, 1], [0, 2]]
    g = 6
    crashed = np.array([[1.0] * g, [0.0] * g, [0.0] * g])
    end_round = np.array([[3.0] * g, [5.0] * g, [7.0] * g])
    vp = np.full((3, g, 2, len(metagame.SOURCES)), np.nan)
    vp[0, :, 0], vp[1, :, 0], vp[1, :, 1], vp[2, :, 1] = 10.0, 4.0, 6.0, 2.0
    outcomes = metagame.Outcomes(crashed, end_round, vp)
    h = metagame.equilibrium_health(counts, outcomes, np.array([0.5, 0.5]), reps=50, seed=1)
    assert h["crash_rate"] == pytest.approx(0.25)
    assert h["mean_end_round"] == pytest.approx(0.25 * 3 + 0.5 * 5 + 0.25 * 7)
    assert h["vp"][0, 0] == pytest.approx(7.0) and h["vp"][1, 0] == pytest.approx(4.0)
    assert h["crash_lo"] == pytest.approx(0.25) == h["crash_hi"]  # every game alike: resampling cannot move it
    pure = metagame.equilibrium_health(counts, outcomes, np.array([1.0, 0.0]), reps=0, seed=1)
    assert pure["crash_rate"] == 1.0 and pure["vp"][0, 0] == 10.0 and pure["vp"][1, 0] == 0.0
    assert pure["crash_lo"] < 1.0 == pure["crash_hi"]  # no bootstrap: a Wilson interval over the table's games


def test_an_equilibrium_crashing_exactly_at_degenerate_crash_is_degenerate(tmp_path):
    """``degenerate``: the Company crashes in at least ``degenerate_crash`` of the equilibrium's games, the threshold
    itself included. The pure table of balanced crashes in 2 of its 4 games (rate 0.5) under degenerate_crash = 0.5:
    degenerate; under 0.51 it is not."""
    import dataclasses

    ms = metagame.load(write(tmp_path, FILE))
    counts = np.array(ms.tables())  # four seats of balanced first
    assert counts[0].tolist() == [4, 0]
    g = 4
    crashed = np.zeros((len(counts), g))
    crashed[0, :2] = 1.0
    end_round = np.full((len(counts), g), 7.0)
    vp = np.zeros((len(counts), g, 2, len(metagame.SOURCES)))
    outcomes = {ms.exp.arms[0].name: metagame.Outcomes(crashed, end_round, vp)}
    found = pl.DataFrame(
        {"arm": [ms.exp.arms[0].name] * 2, "equilibrium": [0, 0], "strategy": ms.labels, "share": [1.0, 0.0]}
    )
    for threshold, degenerate in ((0.5, True), (0.51, False)):
        at = dataclasses.replace(ms, degenerate_crash=threshold, bootstrap=0)
        eq, _ = metagame.health_frames(at, found, outcomes)
        assert eq["crash_rate"].to_list() == [0.5, 0.5]
        assert eq["degenerate"].to_list() == [degenerate, degenerate]


def test_degenerate_crash_at_its_default_keeps_the_study_s_identity(tmp_path):
    """A study's identity (``section``, hence ``study_digest``: what --resume compares) names ``degenerate_crash``
    only when it differs from the default 0.9: a file without the key and one that sets 0.9 are the study they were
    before the key existed; another value is another study."""
    plain = metagame.load(write(tmp_path, FILE))
    same = metagame.load(
        write(tmp_path, FILE.replace("starts = 100", "starts = 100\ndegenerate_crash = 0.9"), "b.toml")
    )
    other = metagame.load(
        write(tmp_path, FILE.replace("starts = 100", "starts = 100\ndegenerate_crash = 0.5"), "c.toml")
    )
    assert plain.section() == same.section() == {"compositions": "all", "starts": 100, "seed": 3, "bootstrap": 200}
    assert plain.study_digest() == same.study_digest() != other.study_digest()
    assert other.section()["degenerate_crash"] == 0.5


def test_player_counts_side_by_side_are_each_count_s_own_metagame(played, tmp_path, capsys):
    """players = [4, 5]: the 4-player folder is byte for byte the 4-player metagame alone, and the top folder's
    equilibria, print and report hold both counts."""
    _, alone = played
    path = write(tmp_path, FILE.replace("players = 4", "players = [4, 5]"))
    assert cli.main(["metagame", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("(metagame at 4, 5 players)") and "  4 players:" in lines and "  5 players:" in lines
    four = metagame.count_folder(tmp_path / "out", 4)
    for name in (metagame.PAYOFFS, metagame.EQUILIBRIA, metagame.ALPHARANK, metagame.HEALTH):
        assert (four / name).read_bytes() == (alone / name).read_bytes()
    eq = pl.read_parquet(tmp_path / "out" / metagame.EQUILIBRIA)
    assert eq["players"].unique().sort().to_list() == [4, 5]
    five = pl.read_parquet(metagame.count_folder(tmp_path / "out", 5) / metagame.EQUILIBRIA)
    assert eq.filter(pl.col("players") == 5).drop("players").equals(five)
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert summary.count("| mg | 4 |") + summary.count("| **mg** | **4** |") >= 1
    assert summary.count("| mg | 5 |") + summary.count("| **mg** | **5** |") >= 1
    assert (metagame.count_folder(tmp_path / "out", 5) / "report.html").is_file()


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
    for name in (metagame.PAYOFFS, metagame.EQUILIBRIA, metagame.ALPHARANK, metagame.HEALTH):
        assert (tmp_path / "out" / name).read_bytes() == (whole / name).read_bytes()


@pytest.mark.parametrize(
    "change, message",
    [
        (("starts = 100", 'compositions = "some"'), 'metagame.compositions: expected "all" or "one_deviant"'),
        (("starts = 100", "starts = 0"), "metagame.starts: must be between 1"),
        (("starts = 100", "bootstrap = -1"), "metagame.bootstrap: must be between 0 and 10,000, got -1"),
        (("starts = 100", "colour = 1"), "metagame.colour: unknown key"),
        (("players = 4", "players = [4, 4]"), "players[1]: 4 is listed twice"),
        (("players = 4", "players = [4, 3]"), "players[1]: 3 players is impossible: the game takes 4 to 6"),
        (("players = 4", "players = []"), "players: expected a player count or a non-empty list of them"),
        (("starts = 100", "degenerate_crash = 1.5"), "metagame.degenerate_crash: must be above 0 and at most 1"),
        (("starts = 100", 'degenerate_crash = "high"'), "metagame.degenerate_crash: expected a number or int"),
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


def test_a_metagame_whose_tables_file_passes_a_user_files_limit_still_finishes(tmp_path, monkeypatch):
    """The tables' experiment.toml spells every composition's strategies with every parameter (the library's
    metagame of 378 tables writes 1.2 MB, beyond the 1 MiB limit of a file a user gives): the runner reads it back
    (for the coverage, a replay) under the written files' own limit. Here a user's limit of 40 kB (the default rules
    are 38 kB) and three strategies over five seats: the study finishes, and its tables file, given back as a user's
    file, is refused in one line."""
    import sim.rules

    monkeypatch.setattr(sim.rules, "MAX_TOML_BYTES", 40_000)
    text = FILE.replace("games = 40", "games = 2").replace("players = 4", "players = 5")
    text = text.replace('["balanced", "random"]', '["balanced", "random", "bid_low"]')
    metagame.run(metagame.load(write(tmp_path, text)), tmp_path / "out", jobs=1, notify=quiet)
    written = tmp_path / "out" / metagame.TABLES / rf.EXPERIMENT
    assert written.stat().st_size > 40_000 and rf.frame_path(written.parent, "coverage").is_file()
    assert len(spec.load_written(written).arms) == 21  # the compositions of 3 strategies over 5 seats
    with pytest.raises(spec.ExperimentError, match=r"experiment.toml: larger than 0.038147 MiB"):
        spec.load(written)


def test_the_flow_chart_writes_a_tuned_strategy_short_at_its_corner_and_no_label_leaves_the_chart(
    tmp_path, monkeypatch
):
    """A converged table's strategies carry their parameters in their labels (``run_firm(max_debt=0, …)``): the
    replicator flow writes such a one as "run_firm (tuned)" at its corner (numbered when two tuned versions of one
    strategy meet) and spells it out in the caption; every text of the chart lies inside the figure."""
    from reports import charts as ch
    from reports.metagame import corner_names, flow_chart

    long = "run_firm(max_debt=0, prefer_luxury=3.961393391946649, firm_bid=2.984834990189174)"
    assert corner_names(["bid_low", long, "buy_shares"]) == ["bid_low", "run_firm (tuned)", "buy_shares"]
    assert corner_names([long, "run_firm(max_debt=3)", "run_firm"]) == [
        "run_firm (tuned 1)",
        "run_firm (tuned 2)",
        "run_firm",
    ]
    labels, players = ["bid_low", long, "buy_shares"], 4
    tables = metagame.compositions(len(labels), players)
    rng = np.random.default_rng(3)
    rows = [
        {
            "arm": "a",
            **dict(zip(labels, t, strict=True)),
            "strategy": s,
            "seats": n,
            "win_rate": n * rng.uniform(0.1, 0.4),
        }
        for t in tables
        for s, n in zip(labels, t, strict=True)
        if n
    ]
    meta = {"strategies": labels, "players": players, "arms": ["a"], "compositions": "all"}
    figures = []
    monkeypatch.setattr(ch, "_save", lambda fig, out_dir, name, title, caption: figures.append((fig, caption)))
    flow_chart(meta, pl.DataFrame(rows), [], labels, tmp_path)
    [(fig, caption)] = figures
    fig.canvas.draw()
    box = fig.bbox
    texts = [t for ax in fig.axes for t in ax.texts] + [ax.title for ax in fig.axes]
    assert {t.get_text() for t in texts} >= {"bid_low", "run_firm (tuned)", "buy_shares"}
    for t in texts:
        extent = t.get_window_extent()
        assert box.x0 <= extent.x0 and extent.x1 <= box.x1 and box.y0 <= extent.y0 and extent.y1 <= box.y1, t
    assert f"run_firm (tuned) is {long}" in caption
