"""report.html in a real browser: headless Chromium (Playwright) loads it offline with every chart and table, opens on
its verdict, and its interactive charts answer a hover and a filter with the network blocked.

Screenshots are kept as test artifacts in pytest's tmp_path and copied to tests/artifacts/ (not committed): the full
page (report.png) and the first screen of a baseline-like and of a capital-formula report.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from reports_fixture import grid, make_run

import reports
from reports.charts import CHARTS

CHART_NAMES = [
    "comparisons", "stability", "crashes", "crash_causes", "stability_causes", "economy", "vp_split", "vp_outcome",
    "vp_distribution", "margins", "win_rates", "seat_wins", "capital", "capital_wins", "win_sweep", "game_length",
]  # fmt: skip

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).parent / "artifacts"

REQUIRED = os.environ.get("EASTINDIA_REQUIRE_BROWSER") == "1"  # set by .ci/run: a missing browser fails there
pytestmark = pytest.mark.skipif(not CHROMIUM.exists() and not REQUIRED, reason=f"Chromium not installed at {CHROMIUM}")


def test_report_renders_in_chromium(tmp_path):
    assert CHROMIUM.exists(), f"Chromium is required here but missing at {CHROMIUM}"
    from playwright import sync_api

    arms = [{"capital.formula": "inverse_share"}, {"capital.formula": "flat"}]
    run_dir = make_run(tmp_path / "run", arms, games=150, seed=3, rotations=2)
    report = reports.write_report(run_dir)
    outside: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(("file:", "data:")) else None)
            page.goto(report.as_uri(), wait_until="load")
            images = page.evaluate(
                "Array.from(document.images).map(i => ({complete: i.complete, width: i.naturalWidth, alt: i.alt}))"
            )
            rows = {
                table: page.locator(f"#{table} tbody tr").count()
                for table in ("settings-table", "arms-table", "summary-table", "table-crash-causes-by-round")
            }
            diff_rows = page.locator("table.comparisons tbody tr").count()
            figures = page.evaluate("Array.from(document.querySelectorAll('figure')).map(f => f.id)")
            banner = page.locator("#banner li").count()
            shot = tmp_path / "report.png"
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert len(images) == len(CHARTS)  # two arms and two strategies: every chart applies, the included
    assert figures == [f"chart-{name}" for name in CHART_NAMES]
    assert all(img["complete"] and img["width"] > 0 for img in images), images
    assert rows["arms-table"] == rows["summary-table"] == len(arms) and rows["settings-table"] > 5
    assert rows["table-crash-causes-by-round"] >= 2 * 4  # two arms x the four causes
    assert diff_rows == 5  # flat against inverse_share: crash rate, balanced's win rate, end round, two mean VPs
    assert banner >= 4  # placeholder content (3 marks) and the changed key capital.formula
    assert outside == []  # nothing fetched from anywhere but the file itself
    assert shot.stat().st_size > 50_000
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copy(shot, ARTIFACTS / "report.png")


WIDTH, HEIGHT = 1400, 900  # a laptop's first screen
ARCHETYPES = ["bid_low", "buy_shares", "run_firm", "go_military", "balanced"]


def offline_page(browser, outside: list[str]):
    """A page whose every request but the file itself and data: URIs is refused (and recorded in ``outside``)."""
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})

    def block(route):
        if route.request.url.startswith(("file:", "data:")):
            return route.continue_()
        outside.append(route.request.url)
        return route.abort()

    page.route("**/*", block)
    return page


def first_screen(report: Path, shot: Path, act=None) -> dict:
    """Open ``report`` offline at 1,400 x 900 px, screenshot the first screen to ``shot`` (and tests/artifacts/),
    run ``act(page) -> dict`` and return its findings with where the verdict is and how wide the page gets."""
    from playwright import sync_api

    outside: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = offline_page(browser, outside)
            console: list[str] = []  # a spec Vega cannot read draws nothing and says so only here
            page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
            page.goto(report.as_uri(), wait_until="load")
            page.wait_for_selector("#verdict-chart svg g.mark-symbol.role-mark path", timeout=30_000)
            found = {"verdict": page.locator("#verdict").bounding_box(), "outside": outside, "console": console}
            page.screenshot(path=str(shot))
            found["width"] = page.evaluate("document.documentElement.scrollWidth")
            page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
            page.wait_for_timeout(500)
            found["opened width"] = page.evaluate("document.documentElement.scrollWidth")
            found["scrolled inside"] = page.evaluate(  # tables and charts wider than their box
                """Array.from(document.querySelectorAll('.scroll, .vega'))
                    .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.id || e.firstElementChild.id)"""
            )
            found.update(act(page) if act else {})
        finally:
            browser.close()
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copy(shot, ARTIFACTS / shot.name)
    return found


def test_the_capital_formula_report_opens_on_its_verdict_and_its_charts_answer_hover_and_filter(tmp_path):
    """Nine arms (3 capital formulas x 3 budgets) and the five archetypes, as experiments/library/capital_formulas.toml:
    the verdict is on the first screen, the page fits 1,400 px, a chart mark's tooltip gives the value, its
    interval and n, the arm dropdown leaves one arm's marks in the chart and table, and nothing is fetched."""
    arms = grid(capital__formula=["inverse_share", "flat", "linear"], capital__budget_per_player=[5, 6, 7])
    run_dir = make_run(tmp_path / "capital", arms, games=60, seed=1, strategies=ARCHETYPES, name="capital_formulas")
    report = reports.write_report(run_dir)
    one = "capital.formula=linear, capital.budget_per_player=6"

    def act(page) -> dict:
        marks = "#verdict-chart g.mark-symbol.role-mark path"
        rows = "#win-table g.mark-text.role-mark text"
        before = {"marks": page.locator(marks).count(), "rows": page.locator(rows).count()}
        page.locator(marks).first.hover(force=True)
        page.wait_for_selector("#vg-tooltip-element.visible", timeout=10_000)
        tooltip = page.locator("#vg-tooltip-element").inner_text()
        page.select_option("#verdict-chart select[name=arm_filter]", one)
        page.select_option("#win-table select[name=arm_filter]", one)
        page.wait_for_timeout(300)
        after = {"marks": page.locator(marks).count(), "rows": page.locator(rows).count()}
        page.select_option("#win-table select[name=sort_by]", "win rate")
        page.wait_for_timeout(300)
        column = page.evaluate(  # the win-rate column (the third), top to bottom
            """Array.from(document.querySelectorAll('#win-table g.mark-text.role-mark')[2].querySelectorAll('text'))
                .map(t => [t.getBoundingClientRect().top, t.textContent])"""
        )
        forest = page.locator("#comparison-chart g.role-mark path, #comparison-chart g.role-mark line").count()
        return {"before": before, "after": after, "tooltip": tooltip, "column": column, "forest": forest}

    found = first_screen(report, tmp_path / "report-capital-formulas.png", act)
    assert found["console"] == []  # e.g. "Access path missing closing quote": a chart that draws nothing
    assert found["forest"] > 0  # the comparisons with the reference arm draw their intervals
    assert report.stat().st_size <= 3_000_000
    assert found["verdict"]["y"] < HEIGHT  # the verdict starts on the first screen
    assert found["width"] <= WIDTH and found["opened width"] <= WIDTH  # no horizontal scrolling, details open too
    assert found["scrolled inside"] == []  # nor inside a table or a chart
    tip = found["tooltip"]
    assert "95 % CI" in tip and "%" in tip and "games" in tip and "fair share" in tip, tip
    # 9 arms x 5 strategies: a win-rate dot each and a crash-rate dot per arm; then one arm's 5 + 1
    assert found["before"]["marks"] == 9 * 5 + 9 and found["after"]["marks"] == 5 + 1
    assert found["before"]["rows"] == 6 * 9 * 5 and found["after"]["rows"] == 6 * 5  # six columns of text
    rates = [float(text.split(" %")[0]) for _, text in sorted(found["column"])]
    assert len(rates) == 5 and rates == sorted(rates, reverse=True)
    assert found["outside"] == []


def test_a_one_strategy_report_opens_on_its_crash_verdict(tmp_path):
    """One arm, one strategy in every seat (experiments/library/baseline.toml): the verdict says so, gives the crash
    rate, its round and main cause, and its chart's tooltip the crash rate with its interval and n."""
    run_dir = make_run(
        tmp_path / "baseline", [{}], games=80, strategies=["balanced"] * 5, rotate=False, name="baseline"
    )
    report = reports.write_report(run_dir)

    def act(page) -> dict:
        page.locator("#verdict-chart g.mark-symbol.role-mark path").first.hover(force=True)
        page.wait_for_selector("#vg-tooltip-element.visible", timeout=10_000)
        return {"tooltip": page.locator("#vg-tooltip-element").inner_text(), "text": page.inner_text("#verdict")}

    found = first_screen(report, tmp_path / "report-baseline.png", act)
    assert found["verdict"]["y"] < HEIGHT and found["width"] <= WIDTH
    assert "it wins every game" in found["text"] and "The Company crashes in" in found["text"]
    assert "crash rate (95 % CI)" in found["tooltip"] and "games" in found["tooltip"] and "80" in found["tooltip"]
    assert found["outside"] == [] and found["console"] == []


def test_replay_page_renders_in_chromium(tmp_path):
    assert CHROMIUM.exists(), f"Chromium is required here but missing at {CHROMIUM}"
    from playwright import sync_api

    from experiments import runner, spec
    from experiments.replay import replay

    (tmp_path / "exp.toml").write_text('name = "one"\ngames = 1\nseed = 2\nplayers = 4\nstrategies = ["balanced"]\n')
    runner.run(spec.load(tmp_path / "exp.toml"), tmp_path / "run", jobs=1)
    _, page_file = replay(tmp_path / "run", 0)
    outside: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.set_default_timeout(5000)
            page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(("file:", "data:")) else None)
            console: list[str] = []
            page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
            page.goto(page_file.as_uri(), wait_until="load")
            rounds = page.locator("#timeline article.round h2").all_inner_texts()
            story = page.locator("#round-1 p.story").inner_text()
            decision = page.locator("#round-1 details.decision").first
            hidden_before = decision.locator("pre").is_visible()
            decision.locator("summary").click()
            shown_after = decision.locator("pre").is_visible()
            options = decision.locator("pre").inner_text()
            curves = page.locator("svg polyline").count()
        finally:
            browser.close()
    assert rounds[:2] == ["Setup", "Round 1"] and rounds[-1] == "End of the game"
    assert story.startswith("Round 1 — ") and "stability" in story
    assert (hidden_before, shown_after) == (False, True) and options.strip().startswith("{")
    assert curves >= 1 + 4  # stability and one money curve per seat
    assert outside == [] and console == []


def test_the_respond_page_renders_in_chromium(tmp_path):
    """A respond folder's report.html (two player counts, one round): every chart loads and has a size, no console
    error, nothing fetched, and the page fits 1,400 px (its tables scroll inside their box if at all)."""
    assert CHROMIUM.exists(), f"Chromium is required here but missing at {CHROMIUM}"
    from playwright import sync_api

    from experiments import cli
    from tests.test_respond import STUDY, write

    text = STUDY.replace("players = 4", "players = [4, 5]").replace("games = 200", "games = 20")
    text = text.replace("trials = 8", "trials = 2").replace("confirm_games = 600", "confirm_games = 20")
    path = write(tmp_path, text.replace("rounds = 4", "rounds = 1"))
    assert cli.main(["respond", str(path), "--out", str(tmp_path / "out"), "--jobs", "1", "--quiet"]) == 0
    report = tmp_path / "out" / "report.html"
    outside: list[str] = []
    errors: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = offline_page(browser, outside)
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(report.as_uri(), wait_until="load")
            images = page.evaluate(
                "Array.from(document.images).map(i => ({complete: i.complete, width: i.naturalWidth, shown: i.width}))"
            )
            figures = page.evaluate("Array.from(document.querySelectorAll('figure')).map(f => f.id)")
            answers = page.locator("#verdict li").all_inner_texts()
            width = page.evaluate("document.documentElement.scrollWidth")
            page.screenshot(path=str(tmp_path / "report-respond.png"), full_page=True)
        finally:
            browser.close()
    assert figures == ["chart-respond-waste-4p", "chart-respond-waste-5p"]
    assert all(i["complete"] and i["width"] > 0 and i["shown"] > 0 for i in images) and len(images) == 2, images
    assert [a.split(":")[0] for a in answers] == ["waste, 4 players", "waste, 5 players"]
    assert errors == [] and outside == [] and width <= WIDTH
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copy(tmp_path / "report-respond.png", ARTIFACTS / "report-respond.png")
