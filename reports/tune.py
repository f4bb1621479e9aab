"""The report of a tune folder: ``report.html`` and ``summary.md`` with the Tuning section.

- Settings: the objective, its target, the search (trials, batch, startup trials, sampler seed, each searched key
  and its range), the games and strategies.
- The best trial and ``best.toml``.
- The confirmation table: the default rules against the best trial's at ``confirm_games`` games on fresh dice,
  paired on the games: the objective and its distance to the target (paired bootstrap), then every comparison of
  ``reports.compare`` (crash rate, win rates, mean end round, mean VP; Newcombe's paired interval / paired t). The
  confirmation's own full report is ``confirm/report.html``. An equilibrium objective's confirmation is a metagame:
  its rows are the objective and its distance, their intervals a paired bootstrap of the games that recomputes the
  equilibria (``tune.equilibrium_intervals``).
- Charts: ``tune_params.png`` (the objective against each searched key, one point per trial with its 95 %
  interval, the best ringed, the target dashed) and ``tune_history.png`` (the trials over time: each trial's value
  and interval in trial order, and the best so far).
- The trials table (``trials.parquet``).
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from matplotlib.lines import Line2D

from experiments import runfolder as rf
from experiments import search
from experiments import tune as tn
from experiments.runfolder import EXPERIMENT

from . import charts as ch
from .html import CSS, figure_html, table_html, write_counts_page
from .markdown import table_md
from .tables import Table, change_cell, study_settings, value_cell

REPORT, SUMMARY, CHARTS_DIR = "report.html", "summary.md", "charts"
NO_CONFIRMATION = '<p class="note">No confirmation run (confirm_games = 0).</p>'


def _is_prop(objective: str) -> bool:
    return objective in search.PROPORTION_METRICS


def _fmt(objective: str, value: Any, lo: Any = None, hi: Any = None) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "—"
    return tn.format_value(objective, value, lo, hi)


def _param_text(value: Any) -> str:
    """A searched key's value in a table; ``—`` where the key was not searched (a false ``when`` condition)."""
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


# ------------------------------------------------------------------------------------------------------ charts
def params_chart(meta: dict[str, Any], trials: pl.DataFrame, out_dir: Path) -> ch.Chart | None:
    """The objective against each searched key: one point per trial (coloured by trial number) with its 95 %
    interval, the best trial ringed in red, the target dashed. A conditional key's panel shows only the trials that
    searched it (its ``when`` condition held)."""
    complete = trials.filter(pl.col("state") == "complete")
    if complete.is_empty():
        return None
    params = meta["params"]
    conditional = any(p.get("when") for p in params)
    n = len(params)
    ncols = ch.panel_columns(n)
    rows = -(-n // ncols)
    fig = ch._figure(4.4 * ncols + 0.8, 3.3 * rows + 0.6)
    axes = ch._grid(fig, n, ncols, sharey=True)
    objective = meta["objective"]
    best = (meta.get("best") or {}).get("trial")
    cmap = ch.colormaps["viridis"]
    total = max(int(trials["trial"].max()), 1)
    for ax, param in zip(axes, params, strict=True):
        key = param["key"]
        ok = complete.filter(pl.col(key).is_not_null())
        if ok.is_empty():
            ax.text(0.5, 0.5, "no trial searched it", transform=ax.transAxes, ha="center", fontsize=9)
        values = ok[key].to_list()
        if param["kind"] == "choice":
            choices = [str(c) for c in param["choices"]]
            x = np.array([choices.index(str(v)) for v in values], dtype=float)
            x = x + (ok["trial"].to_numpy() % 7 - 3) * 0.03  # a little jitter to see every trial
            ax.set_xticks(range(len(choices)), choices, fontsize=8)
            ax.set_xlim(-0.5, len(choices) - 0.5)
        else:
            x = np.array(values, dtype=float)
            if param.get("log"):
                ax.set_xscale("log")
        colours = [cmap(t / total) for t in ok["trial"].to_list()]
        for xi, v, lo, hi, c in zip(x, ok["value"], ok["lo"], ok["hi"], colours, strict=True):
            ch._errorbar(ax, [xi], [v], [lo], [hi], color=c, alpha=0.55, marker="o", markersize=4)
        if best is not None:
            b = ok.filter(pl.col("trial") == best)
            if b.height:  # (absent from a conditional key's panel when the best did not search it)
                bx = x[ok["trial"].to_list().index(best)]
                ax.plot([bx], b["value"].to_list(), marker="o", markersize=12, markerfacecolor="none", color="#c0392b")
        if isinstance(meta.get("target"), int | float):
            ax.axhline(meta["target"], color="#c0392b", linestyle="--", linewidth=1)
        when = " and ".join(f"{k} = {v}" for k, v in (param.get("when") or {}).items())
        ax.set_xlabel(key + (f"\n(trials with {when})" if when else ""), fontsize=9)
        ax.grid(alpha=0.3)
        if _is_prop(objective):
            ch._pct_axis(ax.yaxis)
    axes[0].set_ylabel(_what(meta))
    handles = [
        Line2D([], [], marker="o", linestyle="none", color=cmap(0.0), label="early trial"),
        Line2D([], [], marker="o", linestyle="none", color=cmap(1.0), label="late trial"),
        Line2D(
            [], [], marker="o", markersize=12, markerfacecolor="none", linestyle="none", color="#c0392b", label="best"
        ),
    ]
    if isinstance(meta.get("target"), int | float):
        handles.append(Line2D([], [], color="#c0392b", linestyle="--", label="target"))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=9, frameon=False)
    return ch._save(
        fig,
        out_dir,
        "tune_params",
        "The objective against each searched key",
        f"{_what(meta)} of every trial against each key the study searched, with 95 % intervals (one arm of "
        f"{meta['games_per_trial']:,} games each, all on the same dice); colour runs from the first trial to the "
        "last, the best is ringed, the target dashed"
        + ("; a conditional key's panel shows only the trials that searched it." if conditional else "."),
    )


def history_chart(meta: dict[str, Any], trials: pl.DataFrame, out_dir: Path) -> ch.Chart | None:
    """The trials over time: each trial's value and interval in trial order, and the best so far."""
    ok = trials.filter(pl.col("state") == "complete").sort("trial")
    if ok.is_empty():
        return None
    fig = ch._figure(9.0, 3.8)
    ax = fig.subplots()
    objective = meta["objective"]
    ch._errorbar(ax, ok["trial"], ok["value"], ok["lo"], ok["hi"], color="#7f8c8d", marker="o", markersize=4)
    startup = meta.get("startup", 0)
    if 0 < startup < int(ok["trial"].max()) + 1:
        ax.axvspan(-0.5, startup - 0.5, color="#ecf0f1", zorder=0, label="random start-up trials")
    dist = ok["distance"].to_numpy()
    best_so_far = np.minimum.accumulate(dist)
    at = [int(np.flatnonzero(dist == d)[0]) for d in best_so_far]
    ax.step(ok["trial"], ok["value"].to_numpy()[at], where="post", color="#c0392b", label="best so far")
    if isinstance(meta.get("target"), int | float):
        ax.axhline(meta["target"], color="#c0392b", linestyle="--", linewidth=1, label="target")
    ax.set_xlabel("trial")
    ax.set_ylabel(_what(meta))
    ax.xaxis.set_major_locator(ch.MaxNLocator(integer=True))
    ax.grid(alpha=0.3)
    if _is_prop(objective):
        ch._pct_axis(ax.yaxis)
    ax.legend(fontsize=9, loc="best")
    return ch._save(
        fig,
        out_dir,
        "tune_history",
        "The trials over time",
        f"Each trial's {_what(meta)} with its 95 % interval in the order the study asked them (batches of "
        f"{meta['batch']}); the red line is the value of the best trial so far (nearest the target).",
    )


def _what(meta: dict[str, Any]) -> str:
    return meta["objective"] + (f" of {meta['strategy']}" if meta.get("strategy") else "")


# ------------------------------------------------------------------------------------------------------ tables
def settings_table(meta: dict[str, Any]) -> Table:
    params = "; ".join(f"{p['key']}: {p['range']}" for p in meta["params"])
    rows = [
        ("name", meta.get("name")),
        ("status", meta.get("status")),
        ("command", meta.get("command")),
        ("objective", _what(meta)),
        ("target", meta.get("target")),
        ("searched keys", params),
        ("trials", f"{meta.get('trials_told')} of {meta.get('trials')}"),
        ("batch (trials asked at once)", meta.get("batch")),
        ("random start-up trials", meta.get("startup")),
        ("trial 0", "the rules' own values" if meta.get("default_first") else "drawn like the others"),
        (
            "sampler",
            f"Optuna TPE (multivariate, grouped, constant liar), seed {meta.get('sampler_seed')} (batch b: (seed, b))",
        ),
        ("games per trial", f"{meta.get('games_per_trial'):,} (the same games and dice for every trial)"),
        ("seed of the games", meta.get("seed")),
        ("players", meta.get("players")),
        ("strategies", ", ".join(meta.get("strategies") or [])),
        ("confirmation", f"{meta.get('confirm_games'):,} games per arm, seed {meta.get('confirm_seed')}"),
    ]
    return study_settings(rows, meta)


def best_table(meta: dict[str, Any]) -> Table:
    best = meta.get("best") or {}
    rows = [["trial", str(best.get("trial"))]]
    chosen = best.get("params") or {}
    keys = [p["key"] for p in meta.get("params") or []] or list(chosen)
    rows += [[k, _param_text(chosen.get(k))] for k in keys]  # — : a conditional key this trial did not search
    rows.append(
        [_what(meta) + " (95 % CI)", _fmt(meta["objective"], best.get("value"), best.get("lo"), best.get("hi"))]
    )
    return Table(["", "best trial"], rows)


def confirmation_table(meta: dict[str, Any]) -> Table | None:
    """The default rules against the best trial's, paired on the confirmation's games."""
    confirm = meta.get("confirm") or {}
    c = confirm.get("objective")
    if not c:
        return None
    objective = meta["objective"]
    columns = ["metric", "default rules", "best trial", "best − default (95 % CI)", "excludes 0", "method"]
    excl = lambda lo, hi: lo is not None and (lo > 0 or hi < 0)  # noqa: E731
    rows = [
        [
            f"{_what(meta)} (objective)",
            _fmt(objective, c["default"], c["default_lo"], c["default_hi"]),
            _fmt(objective, c["best"], c["best_lo"], c["best_hi"]),
            tn.format_change(objective, c["change"], c["change_lo"], c["change_hi"]),
            "yes" if excl(c["change_lo"], c["change_hi"]) else "",
            c["method"],
        ]
    ]
    flags = [excl(c["change_lo"], c["change_hi"])]
    target = meta.get("target")
    if target is not None:
        label = f"distance to the target {target}" if not isinstance(target, str) else f"objective ({target}imised)"
        rows.append(
            [
                label,
                _fmt(objective, c["distance_default"]) if not isinstance(target, str) else "",
                _fmt(objective, c["distance_best"]) if not isinstance(target, str) else "",
                tn.format_change(objective, c["distance_change"], c["distance_change_lo"], c["distance_change_hi"]),
                "yes" if excl(c["distance_change_lo"], c["distance_change_hi"]) else "",
                c["method"],
            ]
        )
        flags.append(excl(c["distance_change_lo"], c["distance_change_hi"]))
    for r in confirm.get("comparisons") or []:
        metric = r["metric"]
        e = excl(r["lo"], r["hi"])
        rows.append(
            [
                metric + (f": {r['strategy']}" if r.get("strategy") else ""),
                value_cell(metric, r["reference_value"]),
                value_cell(metric, r["arm_value"]),
                change_cell(metric, r["estimate"], r["lo"], r["hi"]),
                "yes" if e else "",
                r["method"],
            ]
        )
        flags.append(e)
    return Table(columns, rows, highlight=flags, numeric=[False, True, True, True, False, False])


def trials_table(meta: dict[str, Any], trials: pl.DataFrame) -> Table:
    keys = [p["key"] for p in meta["params"]]
    wins = [c for c in trials.columns if c.startswith("win_rate::")]
    objective = meta["objective"]
    columns = ["trial", "batch", *keys, f"{_what(meta)} (95 % CI)", "distance", "crash rate", "mean end round"]
    columns += [f"win rate {c.split('::', 1)[1]}" for c in wins] + ["note"]
    best = (meta.get("best") or {}).get("trial")
    rows, flags = [], []
    for r in trials.sort("trial").iter_rows(named=True):
        ok = r["state"] == "complete"
        note = r.get("error") or ""
        rows.append(
            [
                str(r["trial"]),
                str(r["batch"]),
                *[_param_text(r[k]) for k in keys],
                _fmt(objective, r["value"], r["lo"], r["hi"]) if ok else "failed",
                f"{r['distance']:.4g}" if ok else "—",
                _fmt("crash_rate", r["crash_rate"]) if ok else "—",
                f"{r['mean_end_round']:.2f}" if ok else "—",
                *[_fmt("win_rate", r[c]) if ok else "—" for c in wins],
                note,
            ]
        )
        flags.append(r["trial"] == best)
    numeric = [True, True] + [True] * len(keys) + [True] * (4 + len(wins)) + [False]
    return Table(columns, rows, highlight=flags, numeric=numeric)


# ------------------------------------------------------------------------------------------------------- pages
def write_tune_report(run_dir: str | Path) -> Path:
    """Write RUN_DIR/charts/tune_*.png, RUN_DIR/report.html and RUN_DIR/summary.md of a finished tune."""
    run_dir = Path(run_dir)
    meta = search.read_meta(run_dir) or {}
    trials = pl.read_parquet(run_dir / tn.TRIALS)
    rf.check_targets(run_dir, [CHARTS_DIR, REPORT, SUMMARY])  # a link refused before any write
    charts = [
        c
        for c in (params_chart(meta, trials, run_dir / CHARTS_DIR), history_chart(meta, trials, run_dir / CHARTS_DIR))
        if c
    ]
    settings, best, confirm, table = (
        settings_table(meta),
        best_table(meta),
        confirmation_table(meta),
        trials_table(meta, trials),
    )
    best_text = (run_dir / tn.BEST).read_text(encoding="utf-8") if (run_dir / tn.BEST).exists() else ""
    toml_path = run_dir / EXPERIMENT
    toml = toml_path.read_text(encoding="utf-8") if toml_path.exists() else ""
    title = f"{meta.get('name')}: tuning {_what(meta)}"
    c = meta.get("confirm") or {}
    confirm_note = (
        f"The default rules (the experiment's rules, [overrides] and strategies, the searched keys at their values "
        f"there) and "
        f"the best trial's, each played on {c.get('games', 0):,} games with fresh dice (seed {c.get('seed')}: games "
        "the trials never saw, so the best trial's luck on the tuning games — the winner's curse — does not carry "
        "over), the same games in both arms: every interval is paired on the games. The objective's change uses a "
        "paired bootstrap; the other rows are the confirmation run's comparisons (Newcombe's paired interval for a "
        "share of games, the paired t interval for a mean)."
    )
    if meta.get("objective") in tn.EQUILIBRIUM_OBJECTIVES:
        confirm_note = (
            "The default rules (the experiment's rules and [overrides], the searched keys at their values there) and "
            f"the best trial's, played as two rules arms of one metagame, every table on {c.get('games', 0):,} games "
            f"with fresh dice (seed {c.get('seed')}: games the trials never saw), the same games at every table of "
            "both arms. Intervals: a paired bootstrap over those games "
            f"({(c.get('objective') or {}).get('resamples', tn.CONFIRM_RESAMPLES)} resamples), each drawing the same "
            "game indices at every table of both arms and recomputing the payoff tables, the distribution over "
            "strategies the objective reads (α-Rank's masses, or the equilibria: each re-found near itself, its basin "
            "held) and the objective; the change is best − default within each resample."
        )
    confirm_link = (
        '<p class="note">The confirmation\'s full report: <a href="confirm/report.html">confirm/report.html</a>.</p>'
        if (run_dir / tn.CONFIRM / "report.html").exists()
        else ""
    )
    html = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} — Corruption &amp; East India report</title><style>{CSS}</style></head>
<body>
<h1>{escape(title)}</h1>
<p class="sub">Corruption &amp; East India balance simulator — tuning report</p>
<nav><a href="#settings">Settings</a><a href="#best">Best</a><a href="#confirmation">Confirmation</a>
<a href="#charts">Charts</a><a href="#trials">Trials</a></nav>
<h2 id="tuning">Tuning</h2>
<h3 id="settings">Settings</h3>
{table_html(settings, "tune-settings")}
<h3 id="best">Best trial</h3>
{table_html(best, "tune-best")}
<p class="note">best.toml, ready to paste into an experiment:</p>
<pre>{escape(best_text)}</pre>
<h3 id="confirmation">Confirmation</h3>
<p class="note">{escape(confirm_note)} Highlighted rows: the 95 % interval of the change excludes zero.</p>
{table_html(confirm, "tune-confirmation") if confirm else NO_CONFIRMATION}
{confirm_link}
<h3 id="charts">Charts</h3>
{"".join(figure_html(c) for c in charts)}
<h3 id="trials">Trials</h3>
<p class="note">Every trial (trials.parquet); the best is highlighted. A trial whose values an earlier trial already
played reads that trial's games (the same rules on the same dice give the same games).</p>
{table_html(table, "tune-trials")}
<h3>experiment.toml</h3>
<pre>{escape(toml)}</pre>
</body></html>
"""
    out = rf.write_file(run_dir, REPORT, html)
    parts = [f"# {title}", "## Tuning", "### Settings", table_md(settings), "### Best trial", table_md(best)]
    parts += ["best.toml:", f"```toml\n{best_text}```", "### Confirmation", confirm_note]
    parts += [table_md(confirm) if confirm else "No confirmation run (confirm_games = 0)."]
    parts += ["### Trials", table_md(table)]
    if charts:
        parts += ["### Charts", "\n".join(f"- `charts/{c.path.name}`: {c.caption}" for c in charts)]
    rf.write_file(run_dir, SUMMARY, "\n\n".join(parts) + "\n")
    return out


def write_counts_report(run_dir: Path, meta: dict[str, Any]) -> Path:
    """A tune of several player counts (each count's report written first): RUN_DIR/report.html and summary.md with
    each count's best trial and confirmation side by side, and a link to each count's report."""
    rows, what = [], ""
    for folder, n in zip(meta["folders"], meta["counts"], strict=True):
        m = search.read_meta(run_dir / folder) or {}
        best, c, objective, what = (
            m.get("best") or {},
            (m.get("confirm") or {}).get("objective"),
            m["objective"],
            _what(m),
        )
        params = ", ".join(f"{k} = {v!r}" for k, v in (best.get("params") or {}).items())
        confirm = "—"
        if c:
            default = _fmt(objective, c["default"], c["default_lo"], c["default_hi"])
            confirm = f"{default} → {_fmt(objective, c['best'], c['best_lo'], c['best_hi'])}"
        value = _fmt(objective, best.get("value"), best.get("lo"), best.get("hi"))
        rows.append([str(n), f"trial {best.get('trial')}", value, params, confirm])
    table = Table(["players", "best", f"{what} (tuning games)", "values", "confirmation: default → best"], rows)
    return write_counts_page(run_dir, meta, "tune", "The best values per player count", table)
