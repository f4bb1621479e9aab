"""reports/: statistics checked against independent formulas, aggregates against the raw frames, the report.

The run folders are real games (``reports_fixture.make_run``): 2 capital formulas x 2 budgets, 200 games each,
strategies rotated over two seat orders.
"""

from __future__ import annotations

import base64
import itertools
import json
import math
import re
import subprocess
import sys
from html import unescape
from html.parser import HTMLParser

import numpy as np
import polars as pl
import pytest
import reports_fixture
from reports_fixture import grid, make_run
from scipy import stats as sps

import reports
import sim
from reports import charts, stats
from reports.data import aggregate, short_labels, tick_labels
from reports.summary import crash_hazard, seat_win_rates, stability_quantiles, win_rates

Z = sps.norm.ppf(0.975)
ARMS = grid(capital__formula=["inverse_share", "flat"], capital__budget_per_player=[5, 8])
ALL_CHARTS = (
    "comparisons", "stability", "crashes", "crash_causes", "stability_causes", "economy", "vp_split", "vp_outcome",
    "vp_distribution", "margins", "win_rates", "seat_wins", "capital", "capital_wins", "win_sweep", "game_length",
)  # fmt: skip


def wilson_direct(k: float, n: float) -> tuple[float, float]:
    """Wilson score interval written out (Wilson 1927)."""
    p = k / n
    centre = (p + Z**2 / (2 * n)) / (1 + Z**2 / n)
    half = Z / (1 + Z**2 / n) * math.sqrt(p * (1 - p) / n + Z**2 / (4 * n**2))
    return centre - half, centre + half


def newcombe_direct(k_a: int, n_a: int, k_b: int, n_b: int) -> tuple[float, float]:
    """Newcombe (1998) method 10 for p_b - p_a, from the two Wilson intervals."""
    p_a, p_b = k_a / n_a, k_b / n_b
    (l_a, u_a), (l_b, u_b) = wilson_direct(k_a, n_a), wilson_direct(k_b, n_b)
    d = p_b - p_a
    return d - math.sqrt((p_b - l_b) ** 2 + (u_a - p_a) ** 2), d + math.sqrt((u_b - p_b) ** 2 + (p_a - l_a) ** 2)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return make_run(tmp_path_factory.mktemp("run"), ARMS, games=200, seed=5, rotations=2)


@pytest.fixture(scope="module")
def agg(run_dir):
    return aggregate(run_dir)


@pytest.fixture(scope="module")
def frames(run_dir):
    return {f: pl.read_parquet(run_dir / f"{f}.parquet") for f in ("games", "seats", "rounds")}


@pytest.fixture(scope="module")
def report(run_dir):
    return reports.write_report(run_dir)


# ------------------------------------------------------------------------------------------------ statistics
def test_wilson_matches_the_written_out_formula_and_known_values():
    ks, ns = np.array([0, 1, 7, 50, 93, 200]), np.array([10, 10, 40, 100, 100, 200])
    lo, hi = stats.wilson(ks, ns)
    for k, n, l, h in zip(ks, ns, lo, hi, strict=True):
        assert (l, h) == pytest.approx(wilson_direct(k, n), abs=1e-12)
    # 0 of 10 and 10 of 10: the textbook (0, 0.2775) and (0.7225, 1)
    assert stats.wilson(0, 10)[1] == pytest.approx(0.27753, abs=1e-5)
    assert stats.wilson(10, 10)[0] == pytest.approx(0.72247, abs=1e-5)
    assert np.isnan(stats.wilson(0, 0)[0])


def test_difference_interval_is_newcombes_method_10():
    # Newcombe (1998), Table II example (56/70 vs 48/80): difference 0.2, interval 0.0524 to 0.3339
    d, lo, hi = stats.diff_ci(48, 80, 56, 70)
    assert d == pytest.approx(0.2)
    assert (lo, hi) == pytest.approx((0.0524, 0.3339), abs=5e-5)
    for k_a, n_a, k_b, n_b in [(0, 30, 3, 30), (120, 200, 95, 210), (200, 200, 180, 200)]:
        assert stats.diff_ci(k_a, n_a, k_b, n_b)[1:] == pytest.approx(newcombe_direct(k_a, n_a, k_b, n_b), abs=1e-10)


def test_the_closed_forms_give_statsmodels_and_scipy_stats_intervals():
    """experiments/stats.py writes the intervals out (statsmodels and scipy.stats cost each command about a
    CPU-second to import): on 2,000 random counts, the edges 0 and n included, they match the libraries to 1e-12."""
    from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

    rng = np.random.default_rng(11)
    n = rng.integers(1, 5000, 2000)
    k = rng.integers(0, n + 1)
    k[:20], k[20:40] = 0, n[20:40]
    for ours, theirs in zip(stats.wilson(k, n), proportion_confint(k, n, method="wilson"), strict=True):
        assert ours == pytest.approx(theirs, abs=1e-12)
    for k_a, n_a, k_b, n_b in zip(k[:200], n[:200], k[-200:], n[-200:], strict=True):
        theirs = confint_proportions_2indep(k_b, n_b, k_a, n_a, method="newcomb", compare="diff")
        assert stats.diff_ci(k_a, n_a, k_b, n_b)[1:] == pytest.approx(theirs, abs=1e-12)
    lo, hi = stats.mean_ci(n, np.zeros(n.size), np.ones(n.size))
    assert hi == pytest.approx(sps.t.ppf(0.975, n - 1) / np.sqrt(n), rel=1e-12, nan_ok=True)  # nan: 1 game
    _, lo, hi = stats.welch_ci(10, 30.0, 100.0, 12, 40.0, 150.0)
    vx, vy = (100 - 90) / 9 / 10, (150 - 12 * (40 / 12) ** 2) / 11 / 12
    dof = (vx + vy) ** 2 / (vx**2 / 9 + vy**2 / 11)
    assert hi - lo == pytest.approx(2 * sps.t.ppf(0.975, dof) * math.sqrt(vx + vy), rel=1e-12)


def test_mean_interval_and_count_quantiles():
    x = np.array([3.0, 4, 4, 5, 7, 2, 6, 4, 5, 3])
    lo, hi = stats.mean_ci(x.size, x.mean(), x.std(ddof=1))
    half = 2.2621571628 * x.std(ddof=1) / math.sqrt(x.size)  # t(0.975, 9)
    assert (lo, hi) == pytest.approx((x.mean() - half, x.mean() + half), abs=1e-9)
    rng = np.random.default_rng(3)
    values, counts = np.arange(8), rng.integers(0, 30, 8)
    expanded = np.repeat(values, counts)
    for q in (0.1, 0.5, 0.9, 1.0):
        assert stats.quantile_from_counts(values[::-1], counts[::-1], q) == np.quantile(
            expanded, q, method="inverted_cdf"
        )


# ------------------------------------------------------------------------------------ aggregates vs raw frames
def test_arm_summary_matches_the_raw_frames(run_dir, agg, frames):
    summary = reports.arm_summary(run_dir)
    assert summary.height == len(ARMS)
    assert summary["arm"].to_list() == [a["arm"] for a in json.loads((run_dir / "run.json").read_text())["arms"]]
    games, seats = frames["games"], frames["seats"]
    for row in summary.iter_rows(named=True):
        g = games.filter(pl.col("arm_index") == row["arm_index"])
        s = seats.filter(pl.col("arm_index") == row["arm_index"])
        crashed = int(g["crashed"].sum())
        assert (row["games"], row["crashed"]) == (g.height, crashed) == (200, crashed)
        assert (row["crash_lo"], row["crash_hi"]) == pytest.approx(wilson_direct(crashed, g.height))
        end = g["end_round"].cast(pl.Float64).to_numpy()
        t_lo, t_hi = sps.t.interval(0.95, end.size - 1, loc=end.mean(), scale=sps.sem(end))
        assert (row["mean_end_round"], row["end_round_lo"], row["end_round_hi"]) == pytest.approx(
            (end.mean(), t_lo, t_hi)
        )
        for strategy, seats_per_game in (("balanced", 3), ("random", 2)):
            won = int((g["winner_strategy"] == strategy).sum())
            assert row[f"win_{strategy}"] == pytest.approx(won / g.height)
            assert (row[f"win_{strategy}_lo"], row[f"win_{strategy}_hi"]) == pytest.approx(wilson_direct(won, g.height))
            assert row[f"fair_{strategy}"] == pytest.approx(seats_per_game / 5)
            assert row[f"mean_vp_{strategy}"] == pytest.approx(s.filter(pl.col("strategy") == strategy)["vp"].mean())
    assert summary.select(pl.sum_horizontal(pl.col("^win_[a-z]+$"))).to_series().to_list() == pytest.approx([1.0] * 4)
    short = reports.arm_summary_short(agg)
    assert short.columns == ["arm", "games", "crash_rate", "mean_end_round", "win_balanced", "win_random"]
    assert short["arm"][0] == "inverse_share · 5"  # its short label (reports.labels); summary["arm"]: its name
    assert short.drop("arm").equals(summary.select(short.columns[1:]))


def newcombe_paired_direct(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Newcombe (1998b) method 10 for p_x - p_y on paired 0/1 data, written out from the 2 x 2 table of pairs."""
    a, b = int(((x == 1) & (y == 1)).sum()), int(((x == 1) & (y == 0)).sum())
    c, d = int(((x == 0) & (y == 1)).sum()), int(((x == 0) & (y == 0)).sum())
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    (l1, u1), (l2, u2) = wilson_direct(a + b, n), wilson_direct(a + c, n)
    den = (a + b) * (c + d) * (a + c) * (b + d)
    phi = (a * d - b * c) / math.sqrt(den) if den else 0.0
    lo = (p1 - p2) - math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    hi = (p1 - p2) + math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    return p1 - p2, lo, hi


def paired_t_direct(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    d = x - y
    half = sps.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
    return d.mean(), d.mean() - half, d.mean() + half


def test_comparisons_recomputed_by_hand_from_the_frames(run_dir, frames):
    """every arm against the reference (arm 0), paired on the games: the 2 x 2 tables of crashes and
    wins and the per-game differences of end round and mean VP, recomputed from the raw frames."""
    comp = reports.comparisons(run_dir)
    games, seats = frames["games"], frames["seats"]
    names = {a["index"]: a["arm"] for a in json.loads((run_dir / "run.json").read_text())["arms"]}
    # each effect once: 3 arms x (crash rate, balanced's win rate, end round, mean VP of each strategy)
    assert comp.height == 3 * 5 and set(comp["reference"]) == {names[0]}
    assert comp.columns[:9] == ["arm", "reference", "metric", "strategy", "estimate", "lo", "hi", "method", "n"]
    assert comp.filter(pl.col("metric") == "win rate")["strategy"].unique().to_list() == ["balanced"]

    def per_game(arm: int) -> pl.DataFrame:
        g = games.filter(pl.col("arm_index") == arm).select(
            "game", pl.col("crashed").cast(pl.Int64), pl.col("end_round").cast(pl.Float64),
            (pl.col("winner_strategy") == "balanced").cast(pl.Int64).alias("won"),
        )  # fmt: skip
        vp = (
            seats.filter(pl.col("arm_index") == arm)
            .group_by("game")
            .agg(*[pl.col("vp").filter(pl.col("strategy") == s).mean().alias(s) for s in ("balanced", "random")])
        )
        return g.join(vp, on="game")

    ref = per_game(0)
    for arm in (1, 2, 3):
        both = per_game(arm).join(ref, on="game", suffix="_ref")
        expected = {
            ("crash rate", None): newcombe_paired_direct(both["crashed"].to_numpy(), both["crashed_ref"].to_numpy()),
            ("win rate", "balanced"): newcombe_paired_direct(both["won"].to_numpy(), both["won_ref"].to_numpy()),
            ("mean end round", None): paired_t_direct(both["end_round"].to_numpy(), both["end_round_ref"].to_numpy()),
            **{
                ("mean VP", s): paired_t_direct(both[s].to_numpy(), both[f"{s}_ref"].to_numpy())
                for s in ("balanced", "random")
            },
        }
        got = comp.filter(pl.col("arm") == names[arm])
        for r in got.iter_rows(named=True):
            assert (r["estimate"], r["lo"], r["hi"]) == pytest.approx(expected[r["metric"], r["strategy"]], abs=1e-10)
            assert r["n"] == 200
            assert r["method"] == ("paired t" if r["metric"].startswith("mean") else "paired Newcombe (method 10)")
        crash = got.filter(pl.col("metric") == "crash rate").row(0, named=True)
        assert crash["arm_value"] == pytest.approx(both["crashed"].mean())
        assert crash["reference_value"] == pytest.approx(both["crashed_ref"].mean())


NUMBERS = ["estimate", "lo", "hi", "arm_value", "reference_value"]


def test_comparisons_read_in_chunks_give_the_same_answer(run_dir, monkeypatch):
    """Memory stays bounded by one range of games: a tiny chunk size changes nothing but the number of reads."""
    from experiments import stats as compare  # where the comparisons are computed

    whole = reports.comparisons(run_dir, reference="capital.formula=flat, capital.budget_per_player=8")
    monkeypatch.setattr(compare, "ROWS_PER_CHUNK", 1)  # 256 games per read (the floor)
    chunks = list(compare.chunks(0, 200, 4, 5, rows=1))
    assert len(chunks) == 1 and chunks[0] == (0, 200)
    monkeypatch.setattr(
        compare, "chunks", lambda first, last, *_, **__: [(x, min(x + 37, last)) for x in range(first, last, 37)]
    )
    cut = reports.comparisons(run_dir, reference="capital.formula=flat, capital.budget_per_player=8")
    assert cut.drop(NUMBERS).equals(whole.drop(NUMBERS)) and cut["n"].equals(whole["n"])
    for col in NUMBERS:
        assert cut[col].to_list() == pytest.approx(whole[col].to_list(), abs=1e-12)  # sums in another order
    assert set(whole["reference"]) == {"capital.formula=flat, capital.budget_per_player=8"}
    with pytest.raises(ValueError, match="reference arm 'nope' is neither the name nor the index of an arm"):
        reports.comparisons(run_dir, reference="nope")


def test_crash_hazard_counts_games_alive_from_the_rounds_frame(agg, frames):
    hazard = crash_hazard(agg)
    rounds, games = frames["rounds"], frames["games"]
    for arm, r in itertools.product(range(len(ARMS)), range(1, 8)):
        played = rounds.filter((pl.col("arm_index") == arm) & (pl.col("round") == r))
        row = hazard.filter((pl.col("arm_index") == arm) & (pl.col("round") == r)).row(0, named=True)
        crashed_here = int(played["crashed"].sum())
        assert (row["alive"], row["crashed"]) == (played.height, crashed_here)
        if played.height:
            assert (row["lo"], row["hi"]) == pytest.approx(wilson_direct(crashed_here, played.height))
        g = games.filter(pl.col("arm_index") == arm)
        assert row["cum"] == pytest.approx((g["crashed"] & (g["end_round"] <= r)).sum() / g.height)


def test_stability_after_a_crash_counts_as_zero(agg, frames):
    """Percentiles over every game in every round: a crashed game's missing rounds are filled with 0."""
    rounds, games = frames["rounds"], frames["games"]
    quantiles = stability_quantiles(agg)
    for arm in range(len(ARMS)):
        ids = games.filter(pl.col("arm_index") == arm)["game"]
        full = pl.DataFrame({"game": ids}).join(pl.DataFrame({"round": list(range(1, 8))}), how="cross")
        got = rounds.filter(pl.col("arm_index") == arm).select("game", pl.col("round").cast(pl.Int64), "stability")
        filled = full.join(got, on=["game", "round"], how="left").with_columns(pl.col("stability").fill_null(0))
        assert (filled.height, agg.stability.filter(pl.col("arm_index") == arm)["games"].sum()) == (1400, 1400)
        for r in range(1, 8):
            values = filled.filter(pl.col("round") == r)["stability"].to_numpy()
            row = quantiles.filter((pl.col("arm_index") == arm) & (pl.col("round") == r)).row(0, named=True)
            expected = [np.quantile(values, q, method="inverted_cdf") for q in (0.1, 0.5, 0.9)]
            assert [row["q10"], row["q50"], row["q90"]] == expected
    assert rounds.filter(pl.col("crashed"))["stability"].max() == 0  # the engine's crash is stability 0


def test_seat_and_strategy_win_rates(agg, frames):
    games = frames["games"]
    seat = seat_win_rates(agg)
    assert seat.height == len(ARMS) * 5
    for r in seat.iter_rows(named=True):
        g = games.filter(pl.col("arm_index") == r["arm_index"])
        assert r["wins"] == (g["winner_seat"] == r["seat"]).sum()
    assert seat.group_by("arm_index").agg(pl.col("wins").sum())["wins"].to_list() == [200] * len(ARMS)
    assert win_rates(agg).group_by("arm_index").agg(pl.col("fair").sum())["fair"].to_list() == pytest.approx([1.0] * 4)


def test_capital_sample_curve_and_sweep_axes(agg):
    small = aggregate(agg.run, sample_games=50)
    per_arm = small.capital.group_by("arm_index").agg(pl.col("bid_total").len() / 5)["bid_total"]
    assert per_arm.max() < 120 and per_arm.min() > 10  # ~50 of 200 games
    assert small.capital.height % 5 == 0
    bids = {"bid_min": 40.0, "bid_max": 160.0, "bid_mean": 90.0}
    for arm in agg.arms:
        x, y = charts.capital_curve(arm, bids, 5)
        budget = arm.rules.budget
        assert np.interp(90.0, x, y) == pytest.approx(budget / 5, rel=1e-3)  # everyone at the mean: B / N
        if arm.params["capital.formula"] == "flat":
            assert np.allclose(y, budget / 5)
        else:
            assert np.all(np.diff(y) <= 1e-12)  # bidding more never buys more capital
    assert charts.sweep_axes(agg) == ("capital.budget_per_player", "capital.formula")


def test_labels_are_short_and_unique():
    """Charts and tables label an arm by what tells it from the others (reports.labels); the ticks of an x axis of
    arms are its values one per line under the keys' names."""
    arms = [{"arm": reports_fixture.arm_name(p), "params": p} for p in ARMS]
    keys = list(ARMS[0])
    assert short_labels(arms, keys) == ["inverse_share · 5", "inverse_share · 8", "flat · 5", "flat · 8"]
    assert tick_labels(arms, keys) == (
        ["inverse_share\n5", "inverse_share\n8", "flat\n5", "flat\n8"],
        "formula / budget_per_player",
    )
    rich = [{"arm": "rich", "params": {"capital.budget_per_player": 8}}, {"arm": "x", "params": {"a.rate": 1}}]
    assert short_labels(rich, ["capital.budget_per_player", "a.rate"]) == ["rich", "x"]
    assert short_labels([{"arm": "base"}, {"arm": "variant"}], []) == ["base", "variant"]


# ------------------------------------------------------------------------------------------------------ report
class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_report_is_one_self_contained_file_that_loads_nothing_from_the_network(run_dir, report):
    """Every chart is inside the file: the interactive ones drawn by an inline script (no script, stylesheet, frame or
    image comes from a URL), the PNGs as data URIs; links only go to the page's own sections."""
    text = report.read_text(encoding="utf-8")
    page = _Page()
    page.feed(text)
    tags = [t for t, _ in page.tags]
    assert "link" not in tags and "iframe" not in tags and "object" not in tags and "embed" not in tags
    scripts = [a for t, a in page.tags if t == "script"]
    assert len(scripts) >= 2 and all("src" not in a for a in scripts)  # the bundle, then one per chart, all inline
    assert "window.vegaEmbed=" in text and text.count("vegaEmbed(") >= 2  # the charts are drawn offline
    for tag, attrs in page.tags:
        for name in ("src", "href", "action", "srcset", "poster", "data", "formaction"):
            value = (attrs.get(name) or "").strip()
            assert not value or value.startswith(("#", "data:")), (tag, name, value)
    assert not re.search(r"url\(\s*['\"]?(https?:)?//|@import", text)  # nor from a stylesheet
    images = [a["src"] for t, a in page.tags if t == "img"]
    assert len(images) == len(charts.CHARTS)  # four arms, two strategies: every chart applies
    for src in images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    for name in ALL_CHARTS:
        png = run_dir / "charts" / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    captions = text.split("<figcaption>")[1:]
    assert len(captions) == len(charts.CHARTS)
    for caption in captions:  # one sentence each
        sentence = caption.split("</figcaption>")[0]
        assert len(sentence) > 60 and sentence.endswith(".") and ". " not in sentence


def test_report_lists_settings_summary_comparisons_and_tables(run_dir, report):
    text = report.read_text(encoding="utf-8")
    meta = json.loads((run_dir / "run.json").read_text())
    for table in ("settings-table", "arms-table", "summary-table", "comparison-crash-rate", "banner", "precision"):
        assert text.count(f'id="{table}"') == 1, table
    assert text.count('class="comparisons"') == 5  # crash rate, balanced's win rate, end round, two mean VPs
    tables = (
        "crash-causes-by-round",
        "median-10-90-by-round",
        "vp-by-source-crashed-or-survived-95-ci",
        "vp-distributions-and-winning-margins",
        "win-rate-against-bids-and-capital",
        "seat-advantage",
    )
    for table in tables:
        assert text.count(f'id="table-{table}"') == 1, table
    for arm in meta["arms"]:
        assert arm["arm"] in text
    assert "reports-test" in text and "seed" in text and "games per arm" in text
    assert "capital.formula&quot; = [&quot;flat&quot;, &quot;inverse_share&quot;]" in text  # experiment.toml, escaped
    assert "Placeholder content in every arm: auction.main_lots" in text  # the banner
    assert "Changed rules key: capital.budget_per_player (default 6)" in text
    full = "capital.formula=inverse_share, capital.budget_per_player=5"
    assert (
        f'<td title="{full}">inverse_share · 5</td><td class="num">200</td>' in text
    )  # the summary: short, full on hover
    md = (run_dir / "summary.md").read_text(encoding="utf-8")
    assert md.count(f"\n| 0 | inverse_share · 5 | {full} |") == 1  # the arms table: its short label and its name
    assert md.count("\n| 0 | inverse_share · 5 | 200 |") == 1  # the summary table: its short label
    for heading in ("## Settings", "## Arms", "## Summary per arm", "### Crash rate", "### Win rate: balanced",
                    "## Why games crash", "### Seat advantage", "**Read this first**", "## Charts"):  # fmt: skip
        assert heading in md, heading
    assert "Largest half-width of the headline 95 % intervals" in md
    assert (run_dir / "comparisons.parquet").is_file()


def test_report_opens_on_its_verdict_then_the_smells_then_closed_details(run_dir, report):
    """The first thing after the title is the verdict: who wins against the fair share, the crash rate with its round
    and main cause, what each arm changes against the reference (only intervals excluding 0), each with its 95 %
    interval; the details come after it in collapsible sections listed in a table of contents."""
    from reports.tables import change, main_causes, pct

    text = report.read_text(encoding="utf-8")
    verdict = unescape(text[text.index('<section id="verdict">') : text.index("</section>")])
    assert text.index('<section id="verdict">') < text.index('id="banner"') < text.index('id="contents"')
    assert re.search(r"<body>\s*<h1>[^<]*</h1>\s*<p[^>]*>[^<]*</p>\s*<section id=\"verdict\">", text)
    summary = reports.arm_summary(run_dir).row(0, named=True)  # the reference: the first arm
    best = max(["balanced", "random"], key=lambda s: summary[f"win_{s}"])
    win = pct(summary[f"win_{best}"], summary[f"win_{best}_lo"], summary[f"win_{best}_hi"])
    assert f"{best} wins most in the reference arm '{summary['arm']}': {win}" in verdict
    assert f"against a fair share of {pct(summary[f'fair_{best}'])}" in verdict
    cause = main_causes(aggregate(run_dir))[0]
    crash = pct(summary["crash_rate"], summary["crash_lo"], summary["crash_hi"])
    assert f"The Company crashes in {crash} of the 200 games" in verdict
    assert f"most often in round {cause['round']}; the main cause is {cause['cause']}" in verdict
    comp = pl.read_parquet(run_dir / "comparisons.parquet")
    assert "Arms are labelled by capital.formula · capital.budget_per_player (e.g. inverse_share · 5)." in verdict
    for arm, short in (
        ("capital.formula=inverse_share, capital.budget_per_player=8", "inverse_share · 8"),
        ("capital.formula=flat, capital.budget_per_player=5", "flat · 5"),
    ):
        line = verdict[verdict.index(f'<li><b title="{arm}">{short}</b>: ') :].split("</li>")[0]
        mine = comp.filter((pl.col("arm") == arm) & pl.col("metric").is_in(["crash rate", "win rate"]))
        clear = mine.filter((pl.col("lo") > 0) | (pl.col("hi") < 0))
        for r in mine.iter_rows(named=True):
            shown = change(r["estimate"], r["lo"], r["hi"]) in line
            assert shown == (r in clear.to_dicts()), (line, r)
        assert clear.height or "no change whose 95 % interval excludes 0" in line
    assert 'id="verdict-chart"' in verdict and "vegaEmbed(" in verdict
    sections = re.findall(r'<details id="([a-z]+)"><summary>', text)
    assert sections == ["settings", "summary", "comparisons", "charts", "tables"]
    nav = text[text.index("<nav>") : text.index("</nav>")]
    assert re.findall(r'href="#([a-z]+)"', nav) == sections


def test_the_comparisons_open_on_an_interactive_forest_plot_of_every_change(run_dir, report):
    """The Comparisons section draws every row of comparisons.parquet (shares in pp), red where its paired interval
    excludes zero, with both values, the method and n in the tooltip and the arm and strategy dropdowns."""
    text = report.read_text(encoding="utf-8")
    section = text[text.index('<details id="comparisons">') :]
    start = section.index('vegaEmbed("#comparison-chart", ') + len('vegaEmbed("#comparison-chart", ')
    spec, _ = json.JSONDecoder().raw_decode(section[start:].replace("<\\/", "</"))
    rows = spec["data"]["values"]
    comp = pl.read_parquet(run_dir / "comparisons.parquet")
    assert len(rows) == comp.height > 0
    agg = aggregate(run_dir)
    for row, r in zip(rows, comp.iter_rows(named=True), strict=True):
        scale = 100 if r["metric"] in ("crash rate", "win rate") else 1
        assert (row["arm_name"], row["arm"], row["metric"]) == (r["arm"], agg.label_of(r["arm"]), r["metric"])
        assert row["change"] == pytest.approx(r["estimate"] * scale) and row["lo"] == pytest.approx(r["lo"] * scale)
        assert row["clear"] == (r["lo"] > 0 or r["hi"] < 0) and row["n"] == r["n"]
    tips = {t["field"]: t.get("title") for layer in spec["spec"]["layer"][:2] for t in layer["encoding"]["tooltip"]}
    assert {"interval", "arm_value", "reference_value", "method", "n"} <= set(tips)
    assert (tips["interval"], tips["arm_value"], tips["reference_value"]) == (
        "change (95 % CI)",
        "arm's value",
        "reference's value",
    )
    assert not [f for f in tips if "'" in f or '"' in f]  # Vega reads a field as an access path: no quotes
    assert {p["name"] for p in spec["params"]} == {"arm_filter", "strategy_filter"}
    assert "data" not in spec["spec"]["layer"][0]  # each panel draws its own metric's rows, not every row


def page_specs(text: str) -> dict[str, dict]:
    """Every Vega-Lite spec a report page draws, by the id of its element."""
    out = {}
    for match in re.finditer(r'vegaEmbed\("#([\w-]+)", ', text):
        out[match.group(1)], _ = json.JSONDecoder().raw_decode(text[match.end() :].replace("<\\/", "</"))
    return out


def field_names(node) -> list[str]:
    """Every field name of a Vega-Lite spec: encodings' and sorts' fields, transforms' outputs and group-bys, and the
    keys of inline data rows."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("field", "as") and isinstance(value, str) and value:  # row_number() has field ""
                found.append(value)
            elif key == "groupby" and isinstance(value, list):
                found += [v for v in value if isinstance(v, str)]
            elif key == "values" and isinstance(value, list):
                found += [k for row in value if isinstance(row, dict) for k in row]
            found += field_names(value)
    elif isinstance(node, list):
        for value in node:
            found += field_names(value)
    return found


def test_every_chart_field_is_a_plain_name_and_arms_read_by_their_short_labels(run_dir, report):
    """Vega reads a field name as an access path: a quote, an apostrophe or a space in one ("arm's value") breaks
    the chart, so every field of every spec is a plain identifier, titled for people in tooltips and headers; the
    arms are their short labels (reports.labels) with the full name in an ``arm_name`` field for the tooltip."""
    specs = page_specs(report.read_text(encoding="utf-8"))
    assert set(specs) == {"verdict-chart", "win-table", "comparison-chart"}
    for name, spec in specs.items():
        fields = set(field_names(spec))
        assert "arm" in fields, name
        assert not [f for f in fields if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", f)], (name, fields)
    shorts = [a.label for a in aggregate(run_dir).arms]
    assert shorts == ["inverse_share · 5", "inverse_share · 8", "flat · 5", "flat · 8"]
    rows = specs["win-table"]["data"]["values"]
    assert {(r["arm"], r["arm_name"]) for r in rows} == {(a.label, a.name) for a in aggregate(run_dir).arms}
    arm_select = next(p for p in specs["verdict-chart"]["params"] if p["name"] == "arm_filter")
    assert arm_select["bind"]["options"] == ["all", *shorts]


def test_single_arm_run_without_params_and_a_running_status(tmp_path):
    run_dir = make_run(tmp_path / "one", [{}], games=60, rotate=False, name="solo")
    meta = json.loads((run_dir / "run.json").read_text())
    meta["status"] = "running"
    (run_dir / "run.json").write_text(json.dumps(meta))
    text = reports.write_report(run_dir).read_text(encoding="utf-8")
    assert "Run not complete (status: running)" in text
    assert "Only one arm: nothing to compare." in text
    assert "seat rotation</td><td>no<" in text
    assert reports.arm_summary(run_dir)["games"].to_list() == [60]
    assert pl.read_parquet(run_dir / "comparisons.parquet").height == 0


def test_rules_of_each_arm_follow_its_overrides(agg):
    for arm in agg.arms:
        expected = sim.Rules.default(5).with_overrides(arm.params)
        assert arm.rules.digest() == expected.digest()


def test_a_run_without_frames_says_what_is_missing(tmp_path):
    (tmp_path / "run.json").write_text(json.dumps({"status": "running", "arms": []}))
    with pytest.raises(FileNotFoundError, match=r"no games, seats, rounds Parquet frames yet \(run status: running\)"):
        reports.write_report(tmp_path)


def test_report_refuses_a_frame_that_no_longer_matches_its_checksum(tmp_path):
    """A frame rewritten with one value changed still reads as valid Parquet; run.json's checksum tells it apart."""
    from reports_fixture import change_one_value, record_checksums

    run = record_checksums(make_run(tmp_path / "r", [{}], games=30, seed=2, rotations=1))
    assert reports.write_report(run).is_file()  # the run as written reports fine
    change_one_value(run)
    assert pl.read_parquet(run / "games.parquet").height == 30  # still readable
    out = subprocess.run(
        [sys.executable, "-m", "experiments.cli", "report", str(run)], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and out.stderr.startswith(
        f"eastindia: error: {run}: damaged or edited since the run wrote it "
        "(games.parquet does not match its checksum; run.json records each frame's checksum)"
    )
    assert "--fresh" in out.stderr
    from reports.data import DamagedRun

    with pytest.raises(DamagedRun, match=r"\(games.parquet does not match its checksum; run.json"):
        reports.write_report(run)


def test_balance_smells_come_first_with_a_typical_game_to_watch(tmp_path):
    """The report opens (after its warnings) on the balance smells read from coverage.parquet: every item a row, the
    ones in >= 95 % of the games (a decision asked in every game is no smell) and in <= 1 % shown, the others calm
    rows hidden until asked for; then a typical game per headline: the replay's page once ``eastindia replay`` wrote
    it, else the command that writes it."""
    from experiments import cli
    from reports.smells import CALM, smells_table, typical_games

    out = tmp_path / "run"
    assert cli.main(["run", "--games", "12", "--shard-size", "12", "--out", str(out), "--quiet", "--jobs", "1"]) == 0
    run = reports.data.Run.open(out)
    cov = pl.read_parquet(out / "coverage.parquet")
    table = smells_table(run)
    universal = cov.filter((pl.col("share") >= 0.95) & ~pl.col("rule").str.starts_with("decision:"))
    dead = cov.filter(pl.col("share") <= 0.01)
    assert table.columns == ["what happened (rule)", "smell", "baseline"] and len(table.rows) == cov.height
    shown = [r for r, c in zip(table.rows, table.row_classes, strict=True) if c != CALM]
    assert len(shown) == universal.height + dead.height > 0
    assert {r[0] for r in shown if r[1] == "universal"} == {
        f"{w} ({r})" for r, w in universal.select("rule", "what").rows()
    }
    games = pl.read_parquet(out / "games.parquet")
    vps: dict[int, list[float]] = {}
    for g, vp in pl.read_parquet(out / "seats.parquet").select("game", "vp").iter_rows():
        vps.setdefault(g, []).append(vp)
    margin = {g: sorted(v)[-1] - sorted(v)[-2] for g, v in vps.items()}

    def median_game(ids: list[int]) -> int:  # the lower median margin, then the lowest game index
        m = sorted(margin[g] for g in ids)[(len(ids) - 1) // 2]
        return min(g for g in ids if margin[g] == m)

    crashed = games.filter(pl.col("crashed"))["game"].to_list()
    typical = {t.headline: t.how for t in typical_games(run)}
    win = median_game(games.filter(pl.col("winner_strategy") == "balanced")["game"].to_list())
    assert typical[f"a win of balanced (game {win})"] == f"eastindia replay {out} --game {win}"
    if crashed:
        assert f"a crash (game {median_game(crashed)})" in typical
    assert cli.main(["replay", str(out), "--game", str(win)]) == 0
    assert {t.headline: t.how for t in typical_games(run)}[f"a win of balanced (game {win})"] == (
        f"replays/game-{win}.html"
    )
    assert cli.main(["report", str(out)]) == 0
    page = (out / "report.html").read_text()
    assert page.index('id="smells"') < page.index('id="settings"') and f'href="replays/game-{win}.html"' in page


def test_the_smells_are_one_table_a_row_per_item_a_column_per_arm_the_calm_ones_hidden(tmp_path, monkeypatch):
    """Two arms, a coverage.parquet written by hand: one row per item and one column per arm (its short label, its
    name on hover), universal and dead cells marked; first what is universal or dead in every arm, then in some
    arms, then the items whose share differs between arms (5 pp or more apart and their Wilson intervals apart);
    the rest calm rows, hidden on the page behind a checkbox and a text filter."""
    from reports.smells import CALM, smells_table

    arms = grid(capital__formula=["inverse_share", "flat"])
    run_dir = make_run(tmp_path / "two", arms, games=200, seed=2, rotations=1)
    names = [a["arm"] for a in json.loads((run_dir / "run.json").read_text())["arms"]]
    items = {  # (rule, what): the share in each arm
        ("R-CALM", "close shares"): (0.20, 0.23),  # 3 pp apart
        ("R-DIFF", "far shares"): (0.20, 0.40),
        ("R-NOISE", "near shares"): (0.10, 0.16),  # 6 pp apart, but their 95 % intervals overlap at 200 games
        ("R-SOME", "dead in one arm"): (0.0, 0.30),
        ("decision:bid", "decision bid asked"): (1.0, 1.0),  # asked in every game: no smell
        ("R-NEVER", "never"): (0.0, 0.005),
        ("R-ALWAYS", "always"): (1.0, 0.99),
    }
    pl.DataFrame(
        [(name, rule, what, round(200 * p[i]), p[i], p[i]) for (rule, what), p in items.items()
         for i, name in enumerate(names)],
        schema=["arm", "rule", "what", "games", "share", "per_game"], orient="row",
    ).write_parquet(run_dir / "coverage.parquet")  # fmt: skip
    table = smells_table(reports.data.Run.open(run_dir))
    assert table.columns == ["what happened (rule)", "across the arms", "inverse_share", "flat"]
    assert table.hover == dict(zip(["inverse_share", "flat"], names, strict=True))
    assert table.rows == [
        ["always (R-ALWAYS)", "universal in all", "100.0 %", "99.0 %"],
        ["never (R-NEVER)", "dead in all", "0.0 %", "0.5 %"],
        ["dead in one arm (R-SOME)", "dead in 1 of 2", "0.0 %", "30.0 %"],
        ["far shares (R-DIFF)", "differs: 20–40 %", "20.0 %", "40.0 %"],
        ["close shares (R-CALM)", "", "20.0 %", "23.0 %"],
        ["near shares (R-NOISE)", "", "10.0 %", "16.0 %"],
        ["decision bid asked", "", "100.0 %", "100.0 %"],
    ]
    assert table.row_classes == ["", "", "", "", CALM, CALM, CALM]
    assert [c[2:] for c in table.classes] == [
        ["universal", "universal"], ["dead", "dead"], ["dead", ""], ["", ""], ["", ""], ["", ""], ["", ""]
    ]  # fmt: skip
    page = reports.write_report(run_dir).read_text(encoding="utf-8")
    smells = page[page.index('id="smells"') : page.index('id="contents"')]
    assert smells.count('<tr class="calm">') == 3 and "show the other 3 items too" in smells
    assert f'<th title="{names[0]}">inverse_share</th>' in smells and '<td class="num universal">100.0 %</td>' in smells
    assert 'id="smells-find"' in smells and "function smellFilter()" in smells
    assert "4 of 7 items shown" in smells
    monkeypatch.setattr(reports.smells, "DIFFERS", 0.25)  # 20 pp apart is then too little to count
    assert smells_table(reports.data.Run.open(run_dir)).row_classes == ["", "", "", CALM, CALM, CALM, CALM]


def test_a_typical_game_has_the_median_winning_margin_not_the_first_match():
    """Of the matching games, the one with the median winning margin (the lower median of an even count), the
    lowest game index among equal margins; not the first game that matches."""
    from reports.smells import typical_game

    rows = pl.DataFrame({"game": [3, 4, 7, 9, 12], "margin": [9.0, 1.0, 4.0, 4.0, 2.0]})
    assert typical_game(rows) == 7  # margins 1, 2, 4, 4, 9: the median 4, held by games 7 and 9
    assert typical_game(rows.filter(pl.col("game") != 3)) == 12  # 1, 2, 4, 4: the lower median is 2
    assert typical_game(rows.reverse()) == 7  # the frame's order does not matter
    assert typical_game(rows.head(1)) == 3


def test_the_pages_chart_script_is_bundled_once_and_kept_in_the_cache_folder(tmp_path, monkeypatch):
    """The Vega bundle inlined in every page is read from the cache folder when kept there (its version in the file
    name), written there whole once bundled, and bundled anyway where the folder cannot be written."""
    from reports import interactive

    monkeypatch.setenv("EASTINDIA_CACHE_DIR", str(tmp_path / "cache"))
    bundle = interactive.script.__wrapped__()
    kept = list((tmp_path / "cache").glob("vega-bundle-*.js"))
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == bundle and "vegaEmbed" in bundle
    assert "</script" not in bundle and not list((tmp_path / "cache").glob("*.part"))
    kept[0].write_text("// kept", encoding="utf-8")
    assert interactive.script.__wrapped__() == "// kept"  # read, not bundled again
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("EASTINDIA_CACHE_DIR", str(blocked / "cache"))  # under a file: cannot be made
    assert interactive.script.__wrapped__() == bundle


def test_a_chart_on_the_page_keeps_its_size_in_256_colours_and_weighs_at_most_half(tmp_path):
    """The page inlines each chart quantized (``charts.page_png``) from the pixels ``charts._save`` has just saved:
    those of the PNG kept in charts/, the same pixels wide and high, a palette of at most 256 colours, at most half
    the bytes."""
    from io import BytesIO

    from PIL import Image

    fig = charts._figure(8, 4)
    ax = fig.add_subplot()
    for k in range(6):
        ax.plot(np.arange(50), np.cumsum(np.random.default_rng(k).normal(size=50)), label=f"arm {k}")
    ax.legend()
    (tmp_path / "charts").mkdir()
    chart = charts._save(fig, tmp_path / "charts", "lines", "Lines", "Six lines.")
    with Image.open(chart.path) as full, Image.open(BytesIO(chart.page)) as page:
        assert page.size == full.size and page.mode == "P" and len(page.getcolors(256) or []) <= 256
        assert chart.page == charts.page_png(full)  # the saved file's pixels, not another drawing's
    assert len(chart.page) <= chart.path.stat().st_size / 2
