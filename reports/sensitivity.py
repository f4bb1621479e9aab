"""The report of a sensitivity folder: ``report.html`` and ``summary.md``.

- Settings: the method, the design (samples, levels, seed, points), the games per point and each key's range.
- ``charts/sensitivity.png``: per output (crash rate, each strategy's win rate, ...) the keys ranked by Morris's μ*
  (in the output's units: the mean absolute change when the key alone moves by Δ of its range) or Sobol's total
  index ST, with 95 % bootstrap intervals.
- One table per output: rank, key, range, the index with its interval, and the method's other numbers (Morris: μ,
  the signed mean effect, and σ, the spread of the effects; Sobol: the first-order index S1).
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from experiments import runfolder as rf
from experiments import search
from experiments import sensitivity as sn
from experiments.runfolder import EXPERIMENT

from . import charts as ch
from .html import CSS, figure_html, table_html
from .markdown import table_md
from .tables import Table, study_settings

REPORT, SUMMARY, CHARTS_DIR = "report.html", "summary.md", "charts"


def _is_share(output: str) -> bool:
    return output.split("::")[0] in search.PROPORTION_METRICS


def _label(output: str) -> str:
    metric, _, strategy = output.partition("::")
    return metric.replace("_", " ") + (f": {strategy}" if strategy else "")


def index_text(output: str, value: float, morris: bool) -> str:
    """A sensitivity index as the report writes it: percentage points for a Morris index of a proportion."""
    if value is None or value != value:
        return "—"
    if morris and _is_share(output):
        return f"{100 * value:.2f} pp"
    return f"{value:.3f}"


def index_name(meta: dict[str, Any]) -> str:
    if meta["method"] == "morris":
        return f"μ* (mean |change| for a move of {meta['delta']:.3g} of the range)"
    return "total-order index ST"


def ranking_chart(meta: dict[str, Any], indices: pl.DataFrame, out_dir: Path) -> ch.Chart | None:
    outputs = list(dict.fromkeys(indices["metric"].to_list()))
    if not outputs:
        return None
    n = len(outputs)
    ncols = ch.panel_columns(n)
    rows = -(-n // ncols)
    k = len(meta["params"])
    longest = max(len(p["key"]) for p in meta["params"])
    fig = ch._figure(ncols * (2.6 + 0.07 * longest) + 0.6, rows * (0.55 + 0.32 * k) + 0.6)
    axes = ch._grid(fig, n, ncols)
    morris = meta["method"] == "morris"
    for ax, output in zip(axes, outputs, strict=True):
        part = indices.filter(pl.col("metric") == output).sort("rank")
        y = np.arange(part.height)
        est = part["estimate"].fill_nan(0).to_numpy()
        lo = part["lo"].fill_nan(None).fill_null(np.nan).to_numpy()
        hi = part["hi"].fill_nan(None).fill_null(np.nan).to_numpy()
        colours = ["#2c7fb8" if r == 1 else "#7fb3d5" for r in part["rank"]]
        scale = 100.0 if morris and _is_share(output) else 1.0
        ax.barh(y, est * scale, color=colours)
        ok = np.isfinite(lo) & np.isfinite(hi)
        if ok.any():
            ch._errorbar(ax, y[ok], est[ok] * scale, lo[ok] * scale, hi[ok] * scale, horizontal=True, color="#333")
        top = float(np.nanmax(np.concatenate([est * scale, hi[ok] * scale]))) if part.height else 0.0
        for yi, v, h in zip(y, est, hi, strict=True):
            text = "0 (no effect)" if v == 0 else (f"{v * scale:.2f}" if scale == 100 else f"{v:.3g}")
            end = max(v, h) if np.isfinite(h) else v
            ax.text(end * scale + 0.02 * (top or 1), yi, text, va="center", ha="left", fontsize=7, color="#333")
        ax.set_xlim(0, (top or 1) * 1.25)
        ax.set_yticks(y, part["key"].to_list(), fontsize=8)
        ax.set_ylim(part.height - 0.5, -0.5)
        ax.set_title(_label(output), fontsize=10)
        ax.set_xlabel(("μ* (pp)" if scale == 100 else "μ*") if morris else "ST", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    caption = (
        f"Which rules keys move each output most, ranked (top: most). Morris screening: μ* is the mean absolute "
        f"change of the output when the key alone moves by {meta.get('delta') or 0:.3g} of its range (percentage "
        "points for shares of games)"
        if morris
        else "Which rules keys move each output most, ranked (top: most). Sobol: the total-order index ST, the share "
        "of the output's variance over the ranges that goes away when the key is fixed"
    )
    caption += (
        f", with 95 % bootstrap intervals; {meta['points']} points of {meta['games_per_point']:,} games each, every "
        "point on the same dice, so a key that changes nothing has an effect of exactly zero."
    )
    return ch._save(fig, out_dir, "sensitivity", "Which rules keys matter", caption)


def settings_table(meta: dict[str, Any]) -> Table:
    rows = [
        ("name", meta.get("name")),
        ("status", meta.get("status")),
        ("command", meta.get("command")),
        ("method", "Morris screening (SALib)" if meta["method"] == "morris" else "Sobol indices (SALib, Saltelli)"),
        ("samples", f"{meta['samples']} " + ("trajectories" if meta["method"] == "morris" else "base samples")),
        ("levels", meta.get("levels")),
        ("design seed", meta.get("design_seed")),
        ("design rows / distinct points", f"{meta['design_rows']} / {meta['points']}"),
        ("games per point", f"{meta['games_per_point']:,} (the same games and dice at every point)"),
        ("seed of the games", meta.get("seed")),
        ("players", meta.get("players")),
        ("strategies", ", ".join(meta.get("strategies") or [])),
        ("outputs", ", ".join(meta.get("outputs") or [])),
        ("keys and ranges", "; ".join(f"{p['key']}: {p['range']}" for p in meta["params"])),
        ("bootstrap resamples", meta.get("resamples")),
    ]
    return study_settings(rows, meta)


def ranking_tables(meta: dict[str, Any], indices: pl.DataFrame) -> list[tuple[str, Table]]:
    morris = meta["method"] == "morris"
    out = []
    for output in dict.fromkeys(indices["metric"].to_list()):
        part = indices.filter(pl.col("metric") == output).sort("rank")
        if morris:
            columns = ["rank", "key", "range", "μ* (95 % CI)", "μ (signed)", "σ"]
        else:
            columns = ["rank", "key", "range", "ST (95 % CI)", "S1 (95 % CI)"]
        rows = []
        for r in part.iter_rows(named=True):
            num = lambda v, m=morris, o=output: index_text(o, v, m)  # noqa: E731
            cell = f"{num(r['estimate'])} ({num(r['lo'])}–{num(r['hi'])})"
            row = [str(r["rank"]), r["key"], r["range"], cell]
            if morris:
                row += [index_text(output, r["mu"], morris), index_text(output, r["sigma"], morris)]
            else:
                row.append(f"{num(r['s1'], False)} ({num(r['s1_lo'], False)}–{num(r['s1_hi'], False)})")
            rows.append(row)
        flags = [r == 1 for r in part["rank"]]
        out.append(
            (
                _label(output),
                Table(columns, rows, highlight=flags, numeric=[True, False, False] + [True] * (len(columns) - 3)),
            )
        )
    return out


def write_sensitivity_report(run_dir: str | Path) -> Path:
    """Write RUN_DIR/charts/sensitivity.png, RUN_DIR/report.html and RUN_DIR/summary.md of a finished study."""
    run_dir = Path(run_dir)
    meta = search.read_meta(run_dir) or {}
    indices = pl.read_parquet(run_dir / sn.INDICES)
    rf.check_targets(run_dir, [CHARTS_DIR, REPORT, SUMMARY])  # a link refused before any write
    chart = ranking_chart(meta, indices, run_dir / CHARTS_DIR)
    settings = settings_table(meta)
    tables = ranking_tables(meta, indices)
    toml_path = run_dir / EXPERIMENT
    toml = toml_path.read_text(encoding="utf-8") if toml_path.exists() else ""
    title = f"{meta.get('name')}: sensitivity ({meta['method']})"
    if meta["method"] == "morris":
        note = (
            "Morris screening: each trajectory moves one key at a time by Δ of its range; an elementary effect is the "
            "change of the output over that move. μ* (the mean of their absolute values) ranks the keys; μ, their "
            "signed mean, says which way a key pushes (μ near 0 with a large μ*: it pushes both ways); σ, their "
            "spread, flags interactions or a curved response. Intervals: SALib's bootstrap of μ*. Every point plays "
            "the same games with the same dice, so a key that changes nothing gives identical games and an effect of "
            "exactly 0."
        )
    else:
        note = (
            "Sobol indices (Saltelli's design, Jansen's total-order estimator): ST is the share of the output's "
            "variance over the ranges that is left when every other key is fixed (the key's effect with all its "
            "interactions), S1 the share the key explains alone. Intervals: SALib's bootstrap. Every point plays the "
            "same games with the same dice, so a key that changes nothing has ST = 0 exactly."
        )
    body = "".join(
        f"<h4>{escape(name)}</h4>{table_html(t, 'sensitivity-' + str(i))}" for i, (name, t) in enumerate(tables)
    )
    html = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} — Corruption &amp; East India report</title><style>{CSS}</style></head>
<body>
<h1>{escape(title)}</h1>
<p class="sub">Corruption &amp; East India balance simulator — sensitivity report</p>
<h2 id="sensitivity">Sensitivity: which rules keys matter</h2>
<h3>Settings</h3>
{table_html(settings, "sensitivity-settings")}
<p class="note">{escape(note)}</p>
{figure_html(chart) if chart else ""}
<h3>Ranking per output: {escape(index_name(meta))}</h3>
<p class="note">Highlighted: the key that moves the output most.</p>
{body}
<h3>experiment.toml</h3>
<pre>{escape(toml)}</pre>
</body></html>
"""
    out = rf.write_file(run_dir, REPORT, html)
    parts = [f"# {title}", "## Sensitivity: which rules keys matter", "### Settings", table_md(settings), note]
    parts.append(f"### Ranking per output: {index_name(meta)}")
    for name, t in tables:
        parts += [f"#### {name}", table_md(t)]
    if chart:
        parts += [f"- `charts/{chart.path.name}`: {chart.caption}"]
    rf.write_file(run_dir, SUMMARY, "\n\n".join(parts) + "\n")
    return out
