"""report.html: one self-contained page (inline CSS, charts as base64 data URIs, no scripts, no external links)."""

from __future__ import annotations

import base64
import re
from html import escape
from pathlib import Path

from .charts import Chart
from .tables import Table

CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1d1d1f;
       max-width: 1500px; margin: 0 auto; padding: 1.5rem 2rem 4rem; background: #fff; }
h1 { font-size: 1.7rem; margin-bottom: .2rem; } h2 { margin-top: 2.4rem; border-bottom: 2px solid #e3e3e8;
     padding-bottom: .2rem; } h3 { margin-top: 1.8rem; }
.sub { color: #555; margin-top: 0; } .warn { background: #fff4d6; border: 1px solid #f0c36d; padding: .5rem .8rem; }
nav a { margin-right: 1rem; } nav { margin: 1rem 0; font-size: .95rem; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: .6rem 0 1rem; font-size: .9rem; }
th, td { border: 1px solid #d9d9de; padding: .3rem .55rem; vertical-align: top; }
th { background: #f2f2f6; text-align: left; position: sticky; top: 0; }
tbody tr:nth-child(even) { background: #fafafc; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
tr.flag td { background: #fff1c9; font-weight: 600; }
figure { margin: 1.2rem 0 2rem; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #333; font-size: .93rem; max-width: 75rem; margin-top: .3rem; }
pre { background: #f6f8fa; border: 1px solid #e1e4e8; padding: .8rem; overflow-x: auto; font-size: .85rem; }
.note { color: #444; font-size: .92rem; max-width: 75rem; }
"""


def table_html(table: Table, table_id: str, css_class: str = "") -> str:
    """A <table> (inside a horizontal scroller) with highlighted rows and right-aligned numeric columns."""
    numeric = table.numeric or [False] * len(table.columns)
    head = "".join(f"<th>{escape(c)}</th>" for c in table.columns)
    body = []
    for i, row in enumerate(table.rows):
        flag = ' class="flag"' if table.highlight and table.highlight[i] else ""
        cells = "".join(
            f'<td class="num">{escape(c)}</td>' if num else f"<td>{escape(c)}</td>"
            for c, num in zip(row, numeric, strict=True)
        )
        body.append(f"<tr{flag}>{cells}</tr>")
    ident = f' id="{escape(table_id)}"' + (f' class="{escape(css_class)}"' if css_class else "")
    return (
        f'<div class="scroll"><table{ident}><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'
    )


def _slug(text: str, prefix: str = "comparison-") -> str:
    return prefix + re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def figure_html(chart: Chart) -> str:
    data = base64.b64encode(Path(chart.path).read_bytes()).decode("ascii")
    return (
        f'<figure id="chart-{escape(chart.name)}"><h3>{escape(chart.title)}</h3>'
        f'<img src="data:image/png;base64,{data}" alt="{escape(chart.title)}">'
        f"<figcaption>{escape(chart.caption)}</figcaption></figure>"
    )


METHODS = (
    "Intervals are 95 %. Proportions (crash rate, hazard, win rates) use the Wilson score interval "
    "(statsmodels proportion_confint, method wilson); means (end round, VP, margins) a Student-t interval (scipy). "
    "A change between two arms is paired on the games they share (the same dice): Newcombe's paired interval "
    "(method 10, Newcombe 1998) for a proportion, the Student-t interval of the per-game differences for a mean. "
    "A strategy's win rate is the share of games won by any seat playing it; its fair share is the number of seats "
    "playing it divided by the players."
)


def render(
    *,
    title: str,
    status: str | None,
    banner: list[str],
    precision: str,
    settings: Table,
    arms: Table,
    summary: Table,
    charts: list[Chart],
    comparisons: list[tuple[str, Table]],
    comparisons_note: str,
    sections: list[tuple[str, list[tuple[str, Table]]]],
    experiment_toml: str | None,
    smells: Table | None = None,
    typical: list[tuple[str, str]] | None = None,
) -> str:
    """The whole page as one HTML string."""
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
    smelt = ""
    if smells is not None:
        watch = "".join(
            f"<li>{escape(what)}: "
            + (f'<a href="{escape(how)}">{escape(how)}</a>' if how.endswith(".html") else f"<code>{escape(how)}</code>")
            + "</li>"
            for what, how in typical or []
        )
        smelt = (
            '<h2 id="smells">Balance smells</h2><p class="note">What happens in at least 95 % of an arm\'s games (a '
            "universal line: a dominant move or a rule that forces it) and what happens in at most 1 % (a dead rule, a "
            "choice no strategy takes), from coverage.parquet. Watch a typical game:</p>"
            f"<ul>{watch}</ul>{table_html(smells, 'smells-table')}"
        )
    nav = "".join(
        f'<a href="#{i}">{escape(t)}</a>'
        for i, t in [
            ("smells", "Balance smells"),
            ("settings", "Settings"),
            ("summary", "Summary"),
            ("comparisons", "Comparisons"),
            ("charts", "Charts"),
            ("tables", "Tables"),
        ]
    )
    extra = "".join(
        f"<h3>{escape(heading)}</h3>"
        + "".join(f"<h4>{escape(t)}</h4>{table_html(tab, _slug(t, 'table-'))}" for t, tab in tables)
        for heading, tables in sections
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} — Corruption &amp; East India report</title><style>{CSS}</style></head>
<body>
<h1>{escape(title)}</h1>
<p class="sub">Corruption &amp; East India balance simulator — experiment report</p>
{warn}
{read_first}
<nav>{nav}</nav>
{smelt}
<h2 id="settings">Settings</h2>
{table_html(settings, "settings-table")}
<h3>Arms</h3>
{table_html(arms, "arms-table")}
<h3>experiment.toml</h3>
{toml}
<h2 id="summary">Summary per arm</h2>
<p class="note" id="precision">{escape(precision)}</p>
{table_html(summary, "summary-table")}
<p class="note">{escape(METHODS)}</p>
<h2 id="comparisons">Comparisons with the reference arm</h2>
<p class="note">{escape(comparisons_note)} Highlighted rows: the 95 % interval of the change excludes zero.</p>
{"".join(f"<h3>{escape(m[:1].upper() + m[1:])}</h3>{table_html(t, _slug(m), 'comparisons')}" for m, t in comparisons)}
<h2 id="charts">Charts</h2>
{"".join(figure_html(c) for c in charts)}
<h2 id="tables">Tables</h2>
{extra}
</body></html>
"""
