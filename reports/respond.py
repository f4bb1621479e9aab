"""The report of a respond folder (``eastindia respond``): ``report.html``, ``summary.md`` and one chart per rules
arm and player count (``charts/respond-<arm>-<N>p.png``).

- The answer first, in plain words per rules arm and player count: converged (no response gained beyond its
  interval) or stopped at the round cap, after how many rounds, and what each responder changed (its searched keys
  from version 0 to the version it plays at the end, the rounds it adopted a response in, its last gain).
- Side by side: a row per rules arm and count, and the converged values of every searched key per count against
  version 0 (the file's, from ``experiment.toml``).
- Per rules arm and count: the chart of each responder's rounds (its best trial's win rate per seat with its 95 %
  interval and its current version's on the same games, ``before``; below, the confirmed gain with its interval;
  adopted rounds marked), the rounds table (``rounds.parquet``) and the converged parameters against version 0 with
  the strategies of ``converged/<arm>-<N>p.toml``.
"""

from __future__ import annotations

import json
import tomllib
from html import escape
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from experiments import respond as rp
from experiments import runfolder as rf
from experiments import search
from experiments import tune as tn
from experiments.runfolder import EXPERIMENT

from . import charts as ch
from .html import CSS, figure_html, table_html
from .markdown import table_md
from .tables import Table, pct, study_settings
from .tune import _param_text

REPORT, SUMMARY, CHARTS_DIR = "report.html", "summary.md", "charts"
BEST, BEFORE, GAIN, ADOPTED = "#2c7fb8", "#7f8c8d", "#c0392b", "#e8f6e8"


# ------------------------------------------------------------------------------------------------------ reading
def version_zero(run_dir: Path, params: list[dict[str, Any]]) -> dict[str, Any]:
    """Each searched key's value in version 0: the file's strategies as ``experiment.toml`` resolved them (every
    parameter written out, no plugin imported); None where the key's strategy is not found there."""
    path = run_dir / EXPERIMENT
    entries = tomllib.loads(path.read_text(encoding="utf-8")).get("strategies", []) if path.exists() else []
    out: dict[str, Any] = {}
    for p in params:
        who, _, name = p["key"].partition(":")
        entry = next((e for e in entries if isinstance(e, dict) and e.get("name") == who), None)
        out[p["key"]] = None if entry is None else entry.get(name)
    return out


def converged_values(part: pl.DataFrame, keys: list[str]) -> dict[str, dict[str, Any]]:
    """Per responder (``strategy``) of one rules arm and count, the value of each of its searched keys in its last
    round (what it plays at the end)."""
    out: dict[str, dict[str, Any]] = {}
    for r in part.sort("round").iter_rows(named=True):
        out[r["strategy"]] = {k: r[k] for k in keys if k.partition(":")[0] == r["strategy"] and k in r}
    return out


def converged_strategies(run_dir: Path, result: dict[str, Any]) -> list[Any]:
    """The strategies of ``converged/<arm>-<N>p.toml`` (the study's record of them when the file is gone)."""
    path = run_dir / rp.CONVERGED / f"{rp._slug(result['arm'], result['players'])}.toml"
    try:
        return list(tomllib.loads(path.read_text(encoding="utf-8")).get("strategies", []))
    except (OSError, tomllib.TOMLDecodeError):
        return list(result.get("strategies") or [])


def _changed(v0: Any, v: Any) -> bool:
    if v0 is None or v is None:
        return v0 is not v
    if isinstance(v0, int | float) and isinstance(v, int | float):
        return not np.isclose(float(v0), float(v), rtol=1e-9, atol=1e-12)
    return str(v0) != str(v)


def _rounds(n: int) -> str:
    return f"{n} round{'s' if n != 1 else ''}"


def _gain(r: dict[str, Any]) -> str:
    if not r.get("confirm_games"):
        return "none (its current version was its best trial: nothing to confirm)"
    return tn.format_change("win_rate", r["gain"], r["gain_lo"], r["gain_hi"])


# ------------------------------------------------------------------------------------------------------ words
def answer(result: dict[str, Any], part: pl.DataFrame, v0: dict[str, Any], keys: list[str]) -> str:
    """One rules arm and count in plain words: how it stopped, and what each responder changed."""
    n = result["rounds"]
    head = f"{result['arm']}, {result['players']} players: "
    if result["stopped"] == "converged":
        head += f"converged after {_rounds(n)} (no response gained beyond its interval in round {n})."
    else:
        head += f"stopped at the round cap after {_rounds(n)} without converging (a response was still adopted in " \
                f"round {n}: more rounds may change it)."  # fmt: skip
    now = converged_values(part, keys)
    said = []
    for strategy, values in now.items():
        mine = part.filter(pl.col("strategy") == strategy).sort("round")
        adopted = mine.filter(pl.col("adopted"))["round"].to_list()
        last = mine.row(-1, named=True)
        moved = [f"{k.partition(':')[2]} {_param_text(v0.get(k))} → {_param_text(v)}"
                 for k, v in values.items() if _changed(v0.get(k), v)]  # fmt: skip
        if moved:
            where = f"round{'s' if len(adopted) > 1 else ''} {', '.join(map(str, adopted))}"
            said.append(f"{strategy} changed {', '.join(moved)} (adopted in {where}); last gain {_gain(last)}.")
        else:
            said.append(f"{strategy} kept its version 0; last gain {_gain(last)}.")
    return " ".join([head, *said])


# ------------------------------------------------------------------------------------------------------ tables
def counts_table(meta: dict[str, Any], rounds: pl.DataFrame) -> Table:
    """A row per rules arm and player count: how it stopped, after how many rounds, and each responder's last
    gain."""
    rows, flags = [], []
    for result in meta.get("results") or []:
        part = _part(rounds, result)
        last = part.filter(pl.col("round") == result["rounds"])
        gains = "; ".join(f"{r['strategy']} {_gain(r)}" for r in last.iter_rows(named=True))
        adopted = part.filter(pl.col("adopted")).height
        rows.append([result["arm"], str(result["players"]), result["stopped"], str(result["rounds"]), str(adopted),
                     gains])  # fmt: skip
        flags.append(result["stopped"] != "converged")
    columns = ["arm", "players", "stopped", "rounds", "responses adopted", "last gain per seat (95 % CI)"]
    return Table(columns, rows, highlight=flags, numeric=[False, True, False, True, True, True])


def side_by_side(meta: dict[str, Any], rounds: pl.DataFrame, v0: dict[str, Any]) -> Table:
    """Every searched key: version 0, then its converged value per rules arm and count."""
    keys = [p["key"] for p in meta["params"]]
    results = meta.get("results") or []
    now = [converged_values(_part(rounds, r), keys) for r in results]
    columns = ["strategy", "key", "version 0"] + [
        f"{r['arm']}, {r['players']} players" if len(meta.get("arms") or []) > 1 else f"{r['players']} players"
        for r in results
    ]
    rows, flags = [], []
    for k in keys:
        who, _, name = k.partition(":")
        cells = [_param_text(c.get(who, {}).get(k, v0.get(k))) for c in now]
        rows.append([who, name, _param_text(v0.get(k)), *cells])
        flags.append(any(_changed(v0.get(k), c.get(who, {}).get(k, v0.get(k))) for c in now))
    return Table(columns, rows, highlight=flags, numeric=[False, False] + [True] * (1 + len(results)))


def rounds_table(part: pl.DataFrame, keys: list[str]) -> Table:
    """rounds.parquet's rows of one rules arm and count in readable form; adopted rows highlighted."""
    columns = ["round", "strategy", "field tables", "best trial", "its win rate per seat (95 % CI)", "before",
               "confirmed gain (95 % CI)", "confirmation games", "adopted", "response",
               "plays after the round"]  # fmt: skip
    rows, flags = [], []
    for r in part.sort("round", "strategy").iter_rows(named=True):
        response = ", ".join(f"{k.partition(':')[2]} = {_param_text(v)}" for k, v in json.loads(r["response"]).items())
        after = ", ".join(f"{k.partition(':')[2]} = {_param_text(r[k])}" for k in keys
                          if k.partition(":")[0] == r["strategy"] and r.get(k) is not None)  # fmt: skip
        rows.append([
            str(r["round"]), r["strategy"], str(r["tables"]), str(r["best_trial"]), pct(r["value"], r["lo"], r["hi"]),
            "—" if r["before"] is None else pct(r["before"]), _gain(r),
            f"{r['confirm_games']:,}" if r["confirm_games"] else "— (its current version is its best)",
            "yes" if r["adopted"] else "", response, after,
        ])  # fmt: skip
        flags.append(bool(r["adopted"]))
    numeric = [True, False, True, True, True, True, True, True, False, False, False]
    return Table(columns, rows, highlight=flags, numeric=numeric)


def converged_table(part: pl.DataFrame, keys: list[str], v0: dict[str, Any]) -> Table:
    """Each responder's searched keys: version 0, the converged value, and whether it moved."""
    rows, flags = [], []
    for strategy, values in converged_values(part, keys).items():
        for k, v in values.items():
            moved = _changed(v0.get(k), v)
            change = ""
            if moved and isinstance(v, int | float) and isinstance(v0.get(k), int | float):
                change = f"{v - v0[k]:+.4g}".replace("-", "−")
            rows.append([strategy, k.partition(":")[2], _param_text(v0.get(k)), _param_text(v), change or
                         ("changed" if moved else "")])  # fmt: skip
            flags.append(moved)
    return Table(["strategy", "key", "version 0", "converged", "change"], rows, highlight=flags,
                 numeric=[False, False, True, True, True])  # fmt: skip


def settings_table(meta: dict[str, Any]) -> Table:
    rows = [
        ("name", meta.get("name")),
        ("status", meta.get("status")),
        ("command", meta.get("command")),
        ("mode", meta.get("mode")),
        ("round cap", meta.get("rounds")),
        ("strategies", ", ".join(meta.get("strategies") or [])),
        ("responders", ", ".join(meta.get("responders") or [])),
        ("searched keys", "; ".join(f"{p['key']}: {p['range']}" for p in meta.get("params") or [])),
        ("players", ", ".join(map(str, meta.get("players") or []))),
        ("rules arms", ", ".join(meta.get("arms") or [])),
        (
            "trials per response",
            f"{meta.get('trials')} (batches of {meta.get('batch')}, {meta.get('startup')} "
            "random first; trial 0 the current version)",
        ),  # fmt: skip
        ("games per trial", f"{meta.get('games_per_trial'):,} (the same games and dice for every trial)"),
        (
            "confirmation",
            f"{meta.get('confirm_games'):,} games per response, round r on seed {meta.get('confirm_seed')} + r − 1",
        ),  # fmt: skip
        ("seed of the games / of the samplers", f"{meta.get('seed')} / {meta.get('sampler_seed')}"),
    ]
    return study_settings(rows, meta)


def _part(rounds: pl.DataFrame, result: dict[str, Any]) -> pl.DataFrame:
    return rounds.filter((pl.col("arm") == result["arm"]) & (pl.col("players") == result["players"]))


# ------------------------------------------------------------------------------------------------------ chart
def rounds_chart(result: dict[str, Any], part: pl.DataFrame, out_dir: Path) -> ch.Chart | None:
    """Per responder (a column each): its best trial's win rate per seat per round with its 95 % interval and its
    current version's on the same games (above), the confirmed gain with its interval (below); adopted rounds
    shaded."""
    responders = list(dict.fromkeys(part.sort("round")["strategy"].to_list()))
    if not responders:
        return None
    n = len(responders)
    ncols = ch.panel_columns(n)
    blocks = -(-n // ncols)
    fig = ch._figure(max(4.6 * ncols, 6.0), 5.4 * blocks + 0.5)
    axes = fig.subplots(2 * blocks, ncols, squeeze=False, sharex="col")
    rounds = sorted(set(part["round"].to_list()))
    for i, strategy in enumerate(responders):
        top, low = axes[2 * (i // ncols), i % ncols], axes[2 * (i // ncols) + 1, i % ncols]
        mine = part.filter(pl.col("strategy") == strategy).sort("round")
        x = mine["round"].to_numpy()
        for ax in (top, low):
            for r in mine.filter(pl.col("adopted"))["round"].to_list():
                ax.axvspan(r - 0.45, r + 0.45, color=ADOPTED, zorder=0)
            ax.grid(alpha=0.3)
        ch._errorbar(top, x - 0.06, mine["value"], mine["lo"], mine["hi"], color=BEST, marker="o", markersize=6)
        before = mine.filter(pl.col("before").is_not_null())
        top.plot(before["round"].to_numpy() + 0.06, before["before"].to_numpy(), linestyle="none", marker="D",
                 markersize=6, markerfacecolor="white", color=BEFORE)  # fmt: skip
        top.axhline(1 / result["players"], color="#555", linestyle="--", linewidth=0.9)
        top.set_title(strategy, fontsize=10)
        top.set_ylabel("win rate per seat", fontsize=9)
        ch._pct_axis(top.yaxis)
        ch._errorbar(low, x, mine["gain"], mine["gain_lo"], mine["gain_hi"], color=GAIN, marker="s", markersize=6)
        low.axhline(0, color="#333", linewidth=0.8)
        low.set_ylabel("confirmed gain (pp)", fontsize=9)
        low.yaxis.set_major_formatter(ch.PointsFormatter())
        low.set_xlabel("round", fontsize=9)
        low.set_xticks(rounds)
        low.set_xlim(min(rounds) - 0.6, max(rounds) + 0.6)
        low.xaxis.set_tick_params(labelbottom=True)
    for j in range(n, blocks * ncols):
        axes[2 * (j // ncols), j % ncols].set_visible(False)
        axes[2 * (j // ncols) + 1, j % ncols].set_visible(False)
    handles = [
        Line2D([], [], color=BEST, marker="o", label="best trial (95 % CI)"),
        Line2D(
            [],
            [],
            color=BEFORE,
            marker="D",
            markerfacecolor="white",
            linestyle="none",
            label="its current version, same games",
        ),  # fmt: skip
        Line2D([], [], color=GAIN, marker="s", label="confirmed gain on fresh dice (95 % CI)"),
        Line2D([], [], color="#555", linestyle="--", linewidth=0.9, label="fair share 1 / players"),
        Patch(color=ADOPTED, label="adopted"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncols=ch._legend_columns(fig, handles), fontsize=9,
               frameon=False)  # fmt: skip
    name = f"respond-{rp._slug(result['arm'], result['players'])}"
    return ch._save(
        fig,
        out_dir,
        name,
        f"{result['arm']}, {result['players']} players: the responses round by round",
        "Above: each responder's best trial, its win rate per seat against the round's field with its 95 % interval "
        "(the tuning games: the best of the trials, so flattered by their luck), and its current version on the same "
        "games (before). Below: the gain of the best trial over the current version confirmed on fresh dice, paired "
        "on the games, with its Student-t 95 % interval; a round whose interval lies above 0 adopts the response "
        "(shaded).",
    )


# ------------------------------------------------------------------------------------------------------ page
NOTE = (
    "In each round every responder's searched parameters are tuned (Optuna TPE, trial 0 its current version) for its "
    "win rate per seat against a field: fictitious play's field is the tables of every earlier round, the "
    "equilibrium field the metagame's most attracting equilibrium of the current versions. The best trial is then "
    "confirmed on fresh dice against the current version, paired on the games; a response whose gain has its 95 % "
    "interval above 0 becomes the next version. The study converges when no responder's gain lies above its "
    "interval, or stops at the round cap."
)


def write_respond_report(run_dir: str | Path) -> Path:
    """Write RUN_DIR/charts/respond-*.png, RUN_DIR/report.html and RUN_DIR/summary.md of a finished respond study."""
    run_dir = Path(run_dir)
    meta = search.read_meta(run_dir) or {}
    rounds = pl.read_parquet(run_dir / rp.ROUNDS)
    rf.check_targets(run_dir, [CHARTS_DIR, REPORT, SUMMARY])  # a link refused before any write
    keys = [p["key"] for p in meta.get("params") or []]
    v0 = version_zero(run_dir, meta.get("params") or [])
    results = meta.get("results") or []
    words = [answer(r, _part(rounds, r), v0, keys) for r in results]
    overview, together = counts_table(meta, rounds), side_by_side(meta, rounds, v0)
    sections = []
    for r in results:
        part = _part(rounds, r)
        slug = rp._slug(r["arm"], r["players"])
        chart = rounds_chart(r, part, run_dir / CHARTS_DIR)
        strategies = converged_strategies(run_dir, r)
        sections.append((r, slug, chart, rounds_table(part, keys), converged_table(part, keys, v0), strategies))
    title = f"{meta.get('name')}: best responses ({meta.get('mode')})"
    toml_path = run_dir / EXPERIMENT
    toml = toml_path.read_text(encoding="utf-8") if toml_path.exists() else ""
    nav = "".join(f'<a href="#{escape(slug)}">{escape(r["arm"])}, {r["players"]} players</a>'
                  for r, slug, *_ in sections)  # fmt: skip
    body = ""
    for r, slug, chart, table, conv, strategies in sections:
        listed = escape(json.dumps(strategies, ensure_ascii=False))
        body += (
            f'<h2 id="{escape(slug)}">{escape(r["arm"])}, {r["players"]} players: {escape(r["stopped"])} after '
            f"{_rounds(r['rounds'])}</h2>"
            + (figure_html(chart) if chart else "")
            + f"<h3>Rounds</h3>{table_html(table, f'respond-rounds-{slug}')}"
            + '<h3>Converged parameters against version 0</h3><p class="note">What each responder plays at the end '
            "(its last version) against the file's values; highlighted: moved. "
            f"<code>converged/{escape(slug)}.toml</code> plays this table: strategies = "
            f'<code class="converged-strategies">{listed}</code></p>' + table_html(conv, f"respond-converged-{slug}")
        )
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} — Corruption &amp; East India report</title><style>{CSS}</style></head>
<body>
<h1>{escape(title)}</h1>
<p class="sub">Corruption &amp; East India balance simulator — respond report</p>
<section id="verdict"><h2>Answer</h2><ul>{"".join(f"<li>{escape(w)}</li>" for w in words)}</ul></section>
<p class="note">{escape(NOTE)}</p>
<h2 id="counts">Per rules arm and player count</h2>
{table_html(overview, "respond-counts")}
<p class="note">Highlighted: stopped at the round cap. Each searched key's value at the end, side by side (highlighted:
moved from version 0 somewhere):</p>
{table_html(together, "respond-side-by-side")}
<nav>{nav}<a href="#settings">Settings</a></nav>
{body}
<h2 id="settings">Settings</h2>
{table_html(settings_table(meta), "respond-settings")}
<h3>experiment.toml</h3>
<pre>{escape(toml)}</pre>
</body></html>
"""
    out = rf.write_file(run_dir, REPORT, page)
    parts = [f"# {title}", "## Answer", *[f"- {w}" for w in words], NOTE, "## Per rules arm and player count",
             table_md(overview), table_md(together)]  # fmt: skip
    for r, slug, chart, table, conv, strategies in sections:
        parts += [f"## {r['arm']}, {r['players']} players: {r['stopped']} after {_rounds(r['rounds'])}"]
        parts += [f"- `charts/{chart.path.name}`: {chart.caption}"] if chart else []
        parts += ["### Rounds", table_md(table), "### Converged parameters against version 0", table_md(conv)]
        parts += [f"`converged/{slug}.toml`: strategies = {json.dumps(strategies, ensure_ascii=False)}"]
    rf.write_file(run_dir, SUMMARY, "\n\n".join(parts) + "\n")
    return out
