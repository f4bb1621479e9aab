"""summary.md: the report's tables in Markdown, for a terminal or a diff."""

from __future__ import annotations

from .tables import Table


def table_md(table: Table) -> str:
    """A pipe table; highlighted rows are marked in bold."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(c) for c in table.columns) + " |"]
    lines.append(
        "|" + "|".join("---:" if num else "---" for num in (table.numeric or [False] * len(table.columns))) + "|"
    )
    for i, row in enumerate(table.rows):
        bold = bool(table.highlight) and table.highlight[i]
        lines.append("| " + " | ".join(f"**{cell(c)}**" if bold and c else cell(c) for c in row) + " |")
    return "\n".join(lines)


def render(
    *,
    title: str,
    banner: list[str],
    precision: str,
    settings: Table,
    arms: Table,
    summary: Table,
    comparisons: list[tuple[str, Table]],
    note: str,
    sections: list[tuple[str, list[tuple[str, Table]]]],
    charts: list,
    wins_how: Table | None = None,
    wins_how_note: str = "",
) -> str:
    """The whole file: the banner, settings, arms, the per-arm summary, the comparisons with the reference arm,
    the issue-13 tables and the list of charts."""
    parts = [f"# {title}"]
    if banner:
        parts += ["**Read this first**", "\n".join(f"- {line}" for line in banner)]
    parts += ["## Settings", table_md(settings), "## Arms", table_md(arms)]
    parts += ["## Summary per arm (95 % intervals)", precision, table_md(summary)]
    if wins_how is not None and wins_how.rows:
        parts += ["## How each strategy wins", wins_how_note, table_md(wins_how)]
    parts += ["## Comparisons with the reference arm", note + " Rows in bold: the interval excludes zero."]
    for measure, table in comparisons:
        parts += [f"### {measure[:1].upper() + measure[1:]}", table_md(table)]
    for heading, tables in sections:
        parts.append(f"## {heading}")
        for name, table in tables:
            parts += [f"### {name}", table_md(table)]
    if charts:
        parts += ["## Charts", "\n".join(f"- `charts/{c.path.name}`: {c.caption}" for c in charts)]
    return "\n\n".join(parts) + "\n"
