"""report.html in a real browser: headless Chromium (Playwright) loads every kind of page offline (a run of one arm,
of two, of nine, the same run with an audit of a decision, a metagame folder, a respond folder, a replay) with every
chart and table, opens on its verdict, and its interactive charts answer a hover and a filter with the network
blocked. Every page fails its test on a console error, on an interactive chart that draws no marks, on two labels an
ellipsis cut to the same text, and the nine-arm page with its sections closed on a height above 12,000 px.

Screenshots are kept as test artifacts in pytest's tmp_path and copied to tests/artifacts/ (not committed): the full
page (report.png) and the first screen of a baseline-like and of a capital-formula report.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from pathlib import Path

import polars as pl
import pytest
from reports_fixture import make_run

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
LIBRARY = Path(__file__).resolve().parents[1] / "experiments" / "library"

REQUIRED = os.environ.get("EASTINDIA_REQUIRE_BROWSER") == "1"  # set by .ci/run: a missing browser fails there
pytestmark = pytest.mark.skipif(not CHROMIUM.exists() and not REQUIRED, reason=f"Chromium not installed at {CHROMIUM}")

# What is wrong with a page once drawn: interactive charts without a mark (a spec Vega cannot read draws nothing and
# says so only on the console), texts an ellipsis cut to the same text as a neighbour (two arms reading alike) and
# images that did not load
HEALTH = """() => {
  const charts = Array.from(document.querySelectorAll('.vega'))
    .map(v => [v.id, v.querySelectorAll('g.role-mark > *').length]);
  const cut = [];
  for (const g of document.querySelectorAll('svg g')) {
    const texts = Array.from(g.children).filter(e => e.tagName === 'text').map(e => e.textContent);
    for (const t of new Set(texts.filter(t => t.endsWith('…')))) if (texts.filter(x => x === t).length > 1) cut.push(t);
  }
  const broken = Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0).map(i => i.alt);
  return {charts: charts.length, empty: charts.filter(c => c[1] === 0).map(c => c[0]), cut: cut, broken: broken};
}"""
DRAWN = "Array.from(document.querySelectorAll('.vega')).every(v => v.querySelector('svg g.role-mark'))"
TEXTS = "s => Array.from(document.querySelectorAll(s), g => Array.from(g.querySelectorAll('text'), t => t.textContent))"
TALLEST = 12_000  # px: the nine-arm page with its sections closed, at 1,280 px wide


def listen(page) -> list[str]:
    """The page's console errors and uncaught exceptions, as they come."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def health(page) -> dict:
    """Open every section, let every interactive chart draw, and say what is wrong (``HEALTH``)."""
    from playwright import sync_api

    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    with contextlib.suppress(sync_api.TimeoutError):  # a chart that never draws: HEALTH names it
        page.wait_for_function(DRAWN, timeout=30_000)
    page.wait_for_timeout(300)
    return page.evaluate(HEALTH)


def closed_height(page) -> int:
    """The page's height with its sections closed, at 1,280 x 900 px (the viewport is put back afterwards)."""
    size = page.viewport_size
    page.set_viewport_size({"width": 1280, "height": 900})
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = false)")
    height = page.evaluate("document.documentElement.scrollHeight")
    page.set_viewport_size(size)
    return height


def assert_healthy(found: dict, charts: int) -> None:
    """``charts`` interactive charts, each with marks, no two texts cut alike, every image loaded."""
    assert found == {"charts": charts, "empty": [], "cut": [], "broken": []}, found


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
            errors = listen(page)
            page.goto(report.as_uri(), wait_until="load")
            found = health(page)
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
    assert errors == [] and found["charts"] == 3 and found["empty"] == [] and found["cut"] == []
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
    measure its height with the sections closed, open them, check its health (``HEALTH``), run ``act(page) -> dict``
    and return its findings with where the verdict is, how wide the page gets and its console errors."""
    from playwright import sync_api

    outside: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = offline_page(browser, outside)
            console = listen(page)  # a spec Vega cannot read draws nothing and says so only here
            page.goto(report.as_uri(), wait_until="load")
            page.wait_for_selector("#verdict-chart svg g.mark-symbol.role-mark path", timeout=30_000)
            found = {"verdict": page.locator("#verdict").bounding_box(), "outside": outside, "console": console}
            page.screenshot(path=str(shot))
            found["width"] = page.evaluate("document.documentElement.scrollWidth")
            found["closed height"] = closed_height(page)
            found["health"] = health(page)
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


def capital_formulas(tmp_path: Path, games: int) -> Path:
    """experiments/library/capital_formulas.toml played for ``games`` games per arm (without calibration pilots), by
    the runner, so that the folder has its coverage.parquet (the balance smells) as a real run does."""
    from tests.helpers import run_folder

    text = (LIBRARY / "capital_formulas.toml").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^games = \d+$", f"games = {games}\ncalibrate = false", text)
    run_dir = run_folder(tmp_path, text)
    assert (run_dir / "coverage.parquet").is_file()
    return run_dir


def test_the_capital_formula_report_opens_on_its_verdict_and_its_charts_answer_hover_and_filter(tmp_path):
    """Nine arms (3 capital formulas x 3 budgets) and the five archetypes, experiments/library/capital_formulas.toml:
    the verdict is on the first screen, the page is at most 12,000 px tall with its sections closed and fits 1,400 px
    wide, the arms read by distinct short labels, none cut, a chart mark's tooltip gives the value, its interval and
    n, the arm dropdown leaves one arm's marks in the chart and table, the forest plot draws each comparison once,
    and nothing is fetched."""
    run_dir = capital_formulas(tmp_path, 30)
    report = reports.write_report(run_dir)
    labels = [f"{f} · {b}" for f in ("inverse_share", "flat", "linear") for b in (5, 6, 7)]
    one = "linear · 6"
    compared = pl.read_parquet(run_dir / "comparisons.parquet").height

    def act(page) -> dict:
        marks = "#verdict-chart g.mark-symbol.role-mark path"
        rows = "#win-table g.mark-text.role-mark text"
        axes = page.evaluate(TEXTS, "#verdict-chart g.role-axis-label")  # each axis's labels
        arms = page.evaluate(TEXTS, "#win-table g.mark-text.role-mark")[0]  # the table's first column
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
        forest = page.locator("#comparison-chart g.mark-symbol.role-mark path").count()
        smells = page.locator("#smells-table tbody tr:visible").count()
        page.check("#smells-all")
        every = page.locator("#smells-table tbody tr:visible").count()
        page.fill("#smells-find", "R-END")
        found = page.locator("#smells-table tbody tr:visible").all_inner_texts()
        return {"before": before, "after": after, "tooltip": tooltip, "column": column, "forest": forest,
                "axes": axes, "arms": arms, "smells": (smells, every, page.locator("#smells-table tbody tr").count()),
                "found": found}  # fmt: skip

    found = first_screen(report, tmp_path / "report-capital-formulas.png", act)
    assert found["console"] == []  # e.g. "Access path missing closing quote": a chart that draws nothing
    assert_healthy(found["health"], 3)  # the verdict chart, the win table, the forest plot: no two labels cut alike
    assert found["closed height"] <= TALLEST, found["closed height"]
    assert labels in found["axes"] and set(found["arms"]) == set(labels)  # distinct, whole, in arm order
    assert found["forest"] == compared  # every comparison once, in its own metric's panel
    shown, every, rows = found["smells"]
    assert 0 < shown < every == rows  # the calm items behind the checkbox
    assert len(found["found"]) == 1 and found["found"][0].startswith("the Company crashes (R-END)")
    assert report.stat().st_size <= 3_000_000
    assert found["verdict"]["y"] < HEIGHT  # the verdict starts on the first screen
    assert found["width"] <= WIDTH and found["opened width"] <= WIDTH  # no horizontal scrolling, details open too
    assert found["scrolled inside"] == []  # nor inside a table or a chart
    tip = found["tooltip"]
    assert "95 % CI" in tip and "%" in tip and "games" in tip and "fair share" in tip, tip
    assert "capital.formula=" in tip  # the arm's full name
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
    assert_healthy(found["health"], 1)  # the crash verdict (no win table, no comparison with one arm)
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
            console = listen(page)
            page.goto(page_file.as_uri(), wait_until="load")
            rounds = page.locator("#timeline article.round h2").all_inner_texts()
            story = page.locator("#round-1 p.story").inner_text()
            decision = page.locator("#round-1 details.decision").first
            hidden_before = decision.locator("pre").is_visible()
            decision.locator("summary").click()
            shown_after = decision.locator("pre").is_visible()
            options = decision.locator("pre").inner_text()
            curves = page.locator("svg polyline").count()
            found = health(page)
        finally:
            browser.close()
    assert rounds[:2] == ["Setup", "Round 1"] and rounds[-1] == "End of the game"
    assert story.startswith("Round 1 — ") and "stability" in story
    assert (hidden_before, shown_after) == (False, True) and options.strip().startswith("{")
    assert curves >= 1 + 4  # stability and one money curve per seat
    assert outside == [] and console == []
    assert_healthy(found, 0)  # its charts are drawn by the page itself, no text cut alike


def test_the_respond_page_renders_in_chromium(tmp_path):
    """A respond folder's report.html (two player counts, one round): every chart loads and has a size, no console
    error, nothing fetched, and the page fits 1,400 px (its tables scroll inside their box if at all)."""
    assert CHROMIUM.exists(), f"Chromium is required here but missing at {CHROMIUM}"
    from experiments import cli
    from tests.test_respond import STUDY, write

    text = STUDY.replace("players = 4", "players = [4, 5]").replace("games = 200", "games = 20")
    text = text.replace("trials = 8", "trials = 2").replace("confirm_games = 600", "confirm_games = 20")
    path = write(tmp_path, text.replace("rounds = 4", "rounds = 1"))
    assert cli.main(["respond", str(path), "--out", str(tmp_path / "out"), "--jobs", "1", "--quiet"]) == 0
    report = tmp_path / "out" / "report.html"

    def look(page) -> dict:
        found = {
            "images": page.evaluate(
                "Array.from(document.images).map(i => ({complete: i.complete, width: i.naturalWidth, shown: i.width}))"
            ),
            "figures": page.evaluate("Array.from(document.querySelectorAll('figure')).map(f => f.id)"),
            "answers": page.locator("#verdict li").all_inner_texts(),
        }
        page.screenshot(path=str(tmp_path / "report-respond.png"), full_page=True)
        return found

    found = open_page(report, look)
    images = found["images"]
    assert found["figures"] == ["chart-respond-waste-4p", "chart-respond-waste-5p"]
    assert all(i["complete"] and i["width"] > 0 and i["shown"] > 0 for i in images) and len(images) == 2, images
    assert [a.split(":")[0] for a in found["answers"]] == ["waste, 4 players", "waste, 5 players"]
    assert found["errors"] == [] and found["outside"] == [] and found["width"] <= WIDTH
    assert_healthy(found["health"], 0)
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copy(tmp_path / "report-respond.png", ARTIFACTS / "report-respond.png")


def open_page(path: Path, act) -> dict:
    """Open ``path`` offline at 1,400 x 900 px, run ``act(page) -> dict``, and add its console errors, what it tried
    to fetch, its width and its health (``HEALTH``, every section opened)."""
    from playwright import sync_api

    outside: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = offline_page(browser, outside)
            errors = listen(page)
            page.goto(path.as_uri(), wait_until="load")
            found = {"health": health(page)}
            found.update(act(page))
            found["width"] = page.evaluate("document.documentElement.scrollWidth")
        finally:
            browser.close()
    return {**found, "errors": errors, "outside": outside}


def test_a_run_with_an_audit_shows_its_table_in_chromium(tmp_path, capsys):
    """A one-arm run of four archetypes and ``eastindia audit`` of the setup bid: the report's Audits of decisions
    section lists each alternative (the best highlighted), and the page draws every chart with no console error."""
    from tests.helpers import command, run_folder

    run_dir = run_folder(tmp_path, AUDITED)
    code, _, err = command(capsys, "audit", run_dir, "--decision", "bid", "--round", 0, "--values", "0,1,2")
    assert code == 0, err
    report = reports.write_report(run_dir)

    def act(page) -> dict:
        table = page.locator("h4:has-text('bid in setup') + .scroll table")
        return {"rows": table.locator("tbody tr").all_inner_texts(), "best": table.locator("tr.flag").count()}

    found = open_page(report, act)
    assert [r.split("\t")[0] for r in found["rows"]] == ["x0", "x1", "x2"] and found["best"] == 1
    assert found["errors"] == [] and found["outside"] == [] and found["width"] <= WIDTH
    assert_healthy(found["health"], 2)  # one arm, four strategies: the verdict chart and the win table, no forest


AUDITED = """name = "audited"
games = 20
seed = 7
players = 4
strategies = ["bid_low", "run_firm", "balanced", "go_military"]
"""


def test_the_metagame_page_renders_in_chromium(tmp_path):
    """A metagame folder's report.html (balanced against random at four seats): its sections and charts, every image
    loaded, no console error, nothing fetched, and the page fits 1,400 px."""
    from experiments import cli

    path = tmp_path / "mg.toml"
    path.write_text(METAGAME)
    assert cli.main(["metagame", str(path), "--out", str(tmp_path / "out"), "--jobs", "1", "--quiet"]) == 0

    def act(page) -> dict:
        return {
            "figures": page.evaluate("Array.from(document.querySelectorAll('figure')).map(f => f.id)"),
            "text": page.inner_text("body"),
        }

    found = open_page(tmp_path / "out" / "report.html", act)
    assert "chart-flow" in found["figures"] and "Metagame: what experienced tables converge on" in found["text"]
    assert found["errors"] == [] and found["outside"] == [] and found["width"] <= WIDTH
    assert_healthy(found["health"], 0)  # PNG charts only, each loaded


METAGAME = """name = "mg"
players = 4
games = 20
shard_size = 20
seed = 3
calibrate = false
strategies = ["balanced", "random"]

[metagame]
starts = 100
"""
