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
    *, title: str, settings: Table, arms: Table, summary: Table, differences: list[tuple[str, Table]], note: str
) -> str:
    """The whole file: settings, arms, the per-arm summary and one differences table per measure."""
    parts = [f"# {title}", "## Settings", table_md(settings), "## Arms", table_md(arms)]
    parts += ["## Summary per arm (95 % intervals)", table_md(summary), "## Differences between arms"]
    parts.append(note + " Rows in bold: the interval excludes zero.")
    for measure, table in differences:
        parts += [f"### {measure.capitalize()}", table_md(table)]
    return "\n\n".join(parts) + "\n"
