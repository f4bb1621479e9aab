"""report.html: one self-contained page that opens on its verdict (inline CSS, the interactive charts' inline
script from ``reports.interactive``, the PNG charts as base64 data URIs, no external links), then the balance smells,
then the details in collapsible sections."""

from __future__ import annotations

import base64
import re
from html import escape
from pathlib import Path

from experiments import runfolder as rf

from .charts import Chart
from .interactive import embed, script
from .markdown import table_md
from .smells import CALM, Typical
from .tables import Table, Verdict

CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1d1d1f;
       max-width: 1500px; margin: 0 auto; padding: 1rem 2rem 4rem; background: #fff; }
h1 { font-size: 1.5rem; margin: 0 0 .1rem; } h2 { margin-top: 2rem; border-bottom: 2px solid #e3e3e8;
     padding-bottom: .2rem; } h3 { margin-top: 1.8rem; }
.sub { color: #555; margin-top: 0; } .warn { background: #fff4d6; border: 1px solid #f0c36d; padding: .5rem .8rem; }
#verdict { border: 2px solid #3d6fb6; border-radius: 6px; padding: .2rem 1rem .6rem; margin: .6rem 0 1rem; }
#verdict h2 { margin-top: .4rem; border: 0; } #verdict li { margin: .15rem 0; }
nav a { margin-right: 1rem; } nav { margin: 1rem 0; font-size: .95rem; }
details { margin: .6rem 0; border-top: 1px solid #e3e3e8; } details > summary { cursor: pointer; font-size: 1.3rem;
          font-weight: 600; padding: .5rem 0; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: .6rem 0 1rem; font-size: .85rem; }
th, td { border: 1px solid #d9d9de; padding: .25rem .45rem; vertical-align: top; overflow-wrap: anywhere; }
th { background: #f2f2f6; text-align: left; position: sticky; top: 0; }
tbody tr:nth-child(even) { background: #fafafc; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.flag td { background: #fff1c9; font-weight: 600; }
figure { margin: 1.2rem 0 2rem; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #333; font-size: .93rem; max-width: 75rem; margin-top: .3rem; }
pre { background: #f6f8fa; border: 1px solid #e1e4e8; padding: .8rem; overflow-x: auto; font-size: .85rem; }
.note { color: #444; font-size: .92rem; max-width: 75rem; }
td.universal { background: #fde0c5; font-weight: 600; } td.dead { background: #e4e4ea; color: #555; }
span.universal { background: #fde0c5; padding: 0 .2rem; } span.dead { background: #e4e4ea; padding: 0 .2rem; }
#smells-table tr.calm { display: none; } .filters { margin: .4rem 0; }
#smells-table, #typical-table { font-size: .8rem; } #smells-table td, #smells-table th { padding: .15rem .35rem; }
#smells-table td.num, #smells-table td:nth-child(2), #typical-table td { white-space: nowrap; }
#smells-table th, #typical-table th { overflow-wrap: normal; }
.filters input[type=search] { margin-left: 1.5rem; width: 22rem; }
details.small > summary { font-size: .92rem; font-weight: normal; }
.vega { max-width: 100%; overflow-x: auto; } .vega-bindings { margin: .3rem 0; } .vega-bind { display: inline-block;
        margin-right: 1.5rem; }
"""


def _cell(tag: str, text: str, classes: str, hover: dict[str, str]) -> str:
    """A <th> or <td> with its classes and, when ``hover`` knows its text, a title (an arm's full name)."""
    attrs = (f' class="{escape(classes)}"' if classes else "") + (
        f' title="{escape(hover[text])}"' if text in hover else ""
    )
    return f"<{tag}{attrs}>{escape(text)}</{tag}>"


def table_html(table: Table, table_id: str, css_class: str = "") -> str:
    """A <table> (inside a horizontal scroller) with highlighted rows, right-aligned numeric columns, the classes of
    its rows and cells and a title over every cell or header ``table.hover`` knows (an arm's short label: its name)."""
    numeric = table.numeric or [False] * len(table.columns)
    hover = table.hover
    head = "".join(_cell("th", c, "", hover) for c in table.columns)
    body = []
    for i, row in enumerate(table.rows):
        kinds = [table.row_classes[i]] if table.row_classes and table.row_classes[i] else []
        kinds += ["flag"] if table.highlight and table.highlight[i] else []
        flag = f' class="{" ".join(kinds)}"' if kinds else ""
        extra = table.classes[i] if table.classes else [""] * len(row)
        cells = "".join(
            _cell("td", c, " ".join(x for x in ("num" if num else "", more) if x), hover)
            for c, num, more in zip(row, numeric, extra, strict=True)
        )
        body.append(f"<tr{flag}>{cells}</tr>")
    ident = f' id="{escape(table_id)}"' + (f' class="{escape(css_class)}"' if css_class else "")
    return (
        f'<div class="scroll"><table{ident}><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'
    )


def _slug(text: str, prefix: str = "comparison-") -> str:
    return prefix + re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def figure_html(chart: Chart) -> str:
    data = base64.b64encode(chart.page).decode("ascii")
    return (
        f'<figure id="chart-{escape(chart.name)}"><h3>{escape(chart.title)}</h3>'
        f'<img src="data:image/png;base64,{data}" alt="{escape(chart.title)}">'
        f"<figcaption>{escape(chart.caption)}</figcaption></figure>"
    )


METHODS = (
    "Intervals are 95 %. Proportions (crash rate, hazard, win rates) use the Wilson score interval "
    "(Wilson 1927); means (end round, VP, margins) a Student-t interval. "
    "A change between two arms is paired on the games they share (the same dice): Newcombe's paired interval "
    "(method 10, Newcombe 1998) for a proportion, the Student-t interval of the per-game differences for a mean. "
    "A strategy's win rate is the share of games won by any seat playing it; its fair share is the number of seats "
    "playing it divided by the players."
)


LABELS_NOTE = "Each arm's full name: under Settings and arms, and on hovering its label."
SMELLS_NOTE = (
    "Per item of coverage.parquet (a rule or decision, and what happened), the share of each arm's games where it "
    'happened: <span class="universal">universal</span> in at least 95 % of them (a dominant move or a rule that '
    'forces it; a decision asked in every game is none), <span class="dead">dead</span> in at most 1 % (a dead rule, '
    "a choice no strategy takes). Listed first: what is universal or dead in every arm, then in some arms, then the "
    "items whose share differs between arms (the lowest and the highest arm at least 5 pp apart, their 95 % "
    "intervals apart)."
)
FILTER_SCRIPT = """function smellFilter() {
  const q = document.getElementById("smells-find").value.trim().toLowerCase();
  const all = document.getElementById("smells-all").checked;
  for (const tr of document.querySelectorAll("#smells-table tbody tr")) {
    const shown = q ? tr.textContent.toLowerCase().includes(q) : all || !tr.classList.contains("calm");
    tr.style.display = shown ? "table-row" : "none";
  }
}"""


def smells_html(smells: Table, typical: list[Typical]) -> str:
    """The balance smells: one table (a row per item, a column per arm) whose calm rows (no arm makes them universal
    or dead, no two arms differ) stay hidden until asked for (a checkbox, or a text filter over every row); then a
    typical game per headline and arm to watch."""
    calm = sum(c == CALM for c in smells.row_classes)
    shown = len(smells.rows) - calm
    filters = (
        f'<div class="filters"><input type="checkbox" id="smells-all" onchange="smellFilter()">'
        f'<label for="smells-all">show the other {calm} items too</label>'
        '<input type="search" id="smells-find" placeholder="filter every item by rule or text" '
        'oninput="smellFilter()" aria-label="filter the items"></div>'
    )
    return (
        f'<h2 id="smells">Balance smells</h2><p class="note">{SMELLS_NOTE} {shown} of {len(smells.rows)} items '
        f"shown; the other {calm} are neither universal nor dead in any arm, and no two arms differ in them.</p>"
        f"{filters}{table_html(smells, 'smells-table')}<script>{FILTER_SCRIPT}</script>{typical_html(typical)}"
    )


def typical_html(typical: list[Typical]) -> str:
    """A typical game of each headline per arm: a table (a row per headline, a column per arm) of games, each a link
    to its replay's page once ``eastindia replay`` wrote it; the commands that write the others below it, closed."""
    if not typical:
        return ""
    arms = list(dict.fromkeys((t.arm, t.label) for t in typical))
    whats = list(dict.fromkeys(t.what for t in typical))
    cell = {(t.arm, t.what): t for t in typical}
    several = arms[0][0] is not None

    def link(t: Typical | None) -> str:
        if t is None:
            return "<td>—</td>"
        text = f"game {t.game}"
        if t.how.endswith(".html"):
            return f'<td class="num"><a href="{escape(t.how)}">{text}</a></td>'
        return f'<td class="num" title="{escape(t.how)}">{text}</td>'

    head = "".join(
        f'<th title="{escape(arm)}">{escape(label)}</th>' if arm != label else f"<th>{escape(label)}</th>"
        for arm, label in arms
    ) if several else "<th>game</th>"  # fmt: skip
    body = "".join(
        f"<tr><td>{escape(what)}</td>{''.join(link(cell.get((arm, what))) for arm, _ in arms)}</tr>" for what in whats
    )
    commands = [t.how for t in typical if not t.how.endswith(".html")]
    written = (
        '<details class="small"><summary>The commands that write these replays</summary>'
        f"<pre>{escape(chr(10).join(commands))}</pre></details>"
        if commands
        else ""
    )
    return (
        '<h3 id="typical">A typical game to watch</h3><p class="note">Of the games that match, the one with the median '
        "winning margin; a link once its replay is written (hover a game for the command).</p>"
        f'<div class="scroll"><table id="typical-table"><thead><tr><th>what</th>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>{written}"
    )


def details(ident: str, title: str, body: str) -> str:
    """A collapsible section of the details, closed at first."""
    return f'<details id="{escape(ident)}"><summary>{escape(title)}</summary>{body}</details>'


def render(
    *,
    title: str,
    status: str | None,
    banner: list[str],
    precision: str,
    verdict: Verdict,
    verdict_chart: dict | None,
    settings: Table,
    arms: Table,
    summary: Table,
    charts: list[Chart],
    comparisons: list[tuple[str, Table]],
    comparisons_note: str,
    sections: list[tuple[str, list[tuple[str, Table]]]],
    experiment_toml: str | None,
    smells: Table | None = None,
    typical: list[Typical] | None = None,
    win_table: dict | None = None,
    comparison_chart: dict | None = None,
    wins_how: Table | None = None,
    wins_how_note: str = "",
) -> str:
    """The whole page as one HTML string: the verdict, the balance smells, then the details (closed sections)."""
    warn = ""
    if status and status != "complete":
        warn = f'<p class="warn">Run not complete (status: {escape(status)}): this covers the games written so far.</p>'
    read_first = ""
    if banner:
        items = "".join(f"<li>{escape(line)}</li>" for line in banner)
        read_first = f'<div class="warn" id="banner"><strong>Read this first</strong><ul>{items}</ul></div>'
    toml = (
        f"<pre>{escape(experiment_toml)}</pre>" if experiment_toml else '<p class="note">No experiment.toml found.</p>'
    )
    answers = "".join(f"<li>{escape(line)}</li>" for line in verdict.headlines)
    changes = ""
    if verdict.changes:
        items = "".join(
            f"<li>{_cell('b', arm, '', verdict.hover)}: {escape(text)}</li>" for arm, text in verdict.changes
        )
        against = f"What each arm changes against the reference arm {verdict.reference}"
        changes = f"<h3>{escape(against)}</h3><ul>{items}</ul>"
    labels = f'<p class="note" id="arm-labels">{escape(verdict.labels)} {LABELS_NOTE}</p>' if verdict.labels else ""
    chart = ""
    if verdict_chart is not None:
        chart = embed("verdict-chart", verdict_chart) + (
            '<p class="note">A dot: a share of the games (won, or crashed) with its 95 % interval as a line; hover a '
            "mark for its numbers and n; the dropdowns filter by arm and strategy.</p>"
        )
    smelt = smells_html(smells, typical or []) if smells is not None else ""
    extra = "".join(
        f"<h3>{escape(heading)}</h3>"
        + "".join(f"<h4>{escape(t)}</h4>{table_html(tab, _slug(t, 'table-'))}" for t, tab in tables)
        for heading, tables in sections
    )
    compared = "".join(
        f"<h3>{escape(m[:1].upper() + m[1:])}</h3>{table_html(t, _slug(m), 'comparisons')}" for m, t in comparisons
    )
    explorer = embed("win-table", win_table) if win_table is not None else ""
    how = ""
    if wins_how is not None and wins_how.rows:
        how = (
            f'<h3 id="wins-how">How each strategy wins</h3><p class="note">{escape(wins_how_note)}</p>'
            f"{table_html(wins_how, 'wins-how-table')}"
        )
    forest = embed("comparison-chart", comparison_chart) if comparison_chart is not None else ""
    parts = [
        ("settings", "Settings and arms", f"{table_html(settings, 'settings-table')}<h3>Arms</h3>"
         f"{table_html(arms, 'arms-table')}<h3>experiment.toml</h3>{toml}"),
        ("summary", "Summary per arm", f'<p class="note" id="precision">{escape(precision)}</p>{explorer}'
         f'{table_html(summary, "summary-table")}<p class="note">{escape(METHODS)}</p>{how}'),
        ("comparisons", "Comparisons with the reference arm", f'<p class="note">{escape(comparisons_note)} '
         f"Highlighted rows (red marks): the 95 % interval of the change excludes zero.</p>{forest}{compared}"),
        ("charts", "Charts", "".join(figure_html(c) for c in charts)),
        ("tables", "Tables", extra),
    ]  # fmt: skip
    nav = "".join(f'<a href="#{i}">{escape(t)}</a>' for i, t, _ in parts)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} — Corruption &amp; East India report</title><style>{CSS}</style>
<script>{script()}</script></head>
<body>
<h1>{escape(title)}</h1>
<p class="sub">Corruption &amp; East India balance simulator — experiment report</p>
{warn}
<section id="verdict"><h2>Verdict</h2>{labels}<ul>{answers}</ul>{chart}{changes}</section>
{read_first}
{smelt}
<h2 id="contents">Details</h2>
<nav>{nav}</nav>
<p class="note">Click a heading to open its section.</p>
{"".join(details(*part) for part in parts)}
</body></html>
"""


def write_counts_page(run_dir: Path, meta: dict, kind: str, heading: str, table: Table, note: str = "") -> Path:
    """RUN_DIR/report.html and summary.md of a study played at several player counts (``meta``: its ``name``,
    ``counts`` and ``folders``): ``table`` (one row per count) under ``heading``, then a link to each count's own
    report."""
    title = f"{meta.get('name')}: {kind} at {', '.join(map(str, meta['counts']))} players"
    links = "".join(f'<li><a href="{f}/report.html">{escape(f)}</a></li>' for f in meta["folders"])
    note_html = f'<p class="note">{escape(note)}</p>' if note else ""
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} — Corruption &amp; East India report</title><style>{CSS}</style></head>
<body>
<h1>{escape(title)}</h1>
<p class="sub">Corruption &amp; East India balance simulator — {escape(kind)} report</p>
<h2 id="counts">{escape(heading)}</h2>
{note_html}
{table_html(table, f"{kind}-counts")}
<h3>Each count's report</h3><ul>{links}</ul>
</body></html>
"""
    rf.check_targets(run_dir, ["report.html", "summary.md"])  # a link refused before any write
    out = rf.write_file(run_dir, "report.html", page)
    parts = [f"# {title}", f"## {heading}", *([note] if note else []), table_md(table)]
    parts += [f"- `{f}/report.html`" for f in meta["folders"]]
    rf.write_file(run_dir, "summary.md", "\n\n".join(parts) + "\n")
    return out
