"""The report's tables as formatted cells, shared by the HTML page and summary.md (rendered by each)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from experiments.stats import change, pct, points

from .data import Aggregates, format_value, short_keys
from .summary import arm_summary, several_strategies


@dataclass
class Table:
    """Header, rows of text cells, and which rows to highlight (e.g. intervals excluding zero); for the HTML page,
    ``hover``: the title shown over a header or cell with that text (an arm's short label: its full name), ``classes``:
    a CSS class per cell (rows of them, "" for none) and ``row_classes`` per row."""

    columns: list[str]
    rows: list[list[str]]
    highlight: list[bool] = field(default_factory=list)
    numeric: list[bool] = field(default_factory=list)  # right-align these columns
    hover: dict[str, str] = field(default_factory=dict)
    classes: list[list[str]] = field(default_factory=list)
    row_classes: list[str] = field(default_factory=list)


def arm_hover(agg: Aggregates) -> dict[str, str]:
    """An arm's short label -> its full name, where they differ (the ``hover`` of a table naming arms)."""
    return {a.label: a.name for a in agg.arms if a.label != a.name}


def summary_table(agg: Aggregates, summary: pl.DataFrame | None = None) -> Table:
    """Per arm: games, crash rate, mean end round, each strategy's win rate and mean VP (intervals at 95 %)."""
    df = arm_summary(agg) if summary is None else summary
    columns = ["#", "arm", "games", "crash rate (95 % CI)", "mean end round (95 % CI)"]
    fair_in_header = {}
    for s in agg.strategies:
        fair = df[f"fair_{s}"].drop_nulls().unique().to_list()
        fair_in_header[s] = len(fair) == 1
        columns.append(f"{s}: win rate" + (f" (fair {pct(fair[0])})" if len(fair) == 1 else ""))
    columns += [f"{s}: mean VP" for s in agg.strategies]
    rows = []
    for r in df.iter_rows(named=True):
        row = [
            str(r["arm_index"]),
            agg.label_of(r["arm"]),
            f"{r['games']:,}",
            pct(r["crash_rate"], r["crash_lo"], r["crash_hi"]),
            f"{r['mean_end_round']:.2f} ({r['end_round_lo']:.2f}–{r['end_round_hi']:.2f})",
        ]
        for s in agg.strategies:
            cell = pct(r[f"win_{s}"], r[f"win_{s}_lo"], r[f"win_{s}_hi"])
            if not fair_in_header[s] and r[f"fair_{s}"] is not None:
                cell += f", fair {pct(r[f'fair_{s}'])}"
            row.append(cell)
        row += ["—" if r[f"mean_vp_{s}"] is None else f"{r[f'mean_vp_{s}']:.2f}" for s in agg.strategies]
        rows.append(row)
    return Table(columns, rows, numeric=[False, False] + [True] * (len(columns) - 2), hover=arm_hover(agg))


def change_cell(metric: str, est: float, lo: float, hi: float) -> str:
    """A change with its interval: percentage points for proportions, plain numbers for means."""
    if est != est:
        return "—"
    if metric in ("crash rate", "win rate"):
        return change(est, lo, hi)

    def signed(x: float) -> str:
        return f"{x:+.2f}".replace("-", "−")

    return f"{signed(est)} ({signed(lo)} to {signed(hi)})"


def value_cell(metric: str, value: float) -> str:
    if value != value:
        return "—"
    return pct(value) if metric in ("crash rate", "win rate") else f"{value:.2f}"


def comparison_tables(agg: Aggregates, comp: pl.DataFrame) -> list[tuple[str, Table]]:
    """One table per metric (and strategy): each arm against the reference arm, both values, the change with its
    paired 95 % interval, whether it excludes zero, and the games paired."""
    labels = {a.name: a.label for a in agg.arms}
    out = []
    for (metric, strategy), part in comp.group_by("metric", "strategy", maintain_order=True):
        title = metric + (f": {strategy}" if strategy else "")
        columns = ["arm", "reference", f"{metric} (arm)", f"{metric} (reference)", "change (95 % CI)", "excludes 0"]
        columns.append("games paired")
        excludes = [bool(lo > 0 or hi < 0) for lo, hi in zip(part["lo"], part["hi"], strict=True)]
        rows = [
            [
                labels.get(r["arm"], r["arm"]),
                labels.get(r["reference"], r["reference"]),
                value_cell(metric, r["arm_value"]),
                value_cell(metric, r["reference_value"]),
                change_cell(metric, r["estimate"], r["lo"], r["hi"]),
                "yes" if e else "",
                f"{r['n']:,}",
            ]
            for r, e in zip(part.iter_rows(named=True), excludes, strict=True)
        ]
        numeric = [False, False, True, True, True, False, True]
        out.append((title, Table(columns, rows, highlight=excludes, numeric=numeric, hover=arm_hover(agg))))
    return out


def comparisons_note(agg: Aggregates, comp: pl.DataFrame | None) -> str:
    if comp is None or comp.is_empty():
        return "Only one arm: nothing to compare."
    n = comp.height
    k = int(((comp["lo"] > 0) | (comp["hi"] < 0)).sum())
    ref = agg.arm_by_name(comp["reference"][0])
    return (
        f"Every arm against the reference arm {ref.name if ref else comp['reference'][0]!r}, each effect once (with "
        "exactly two strategies only the first one's win rate: the other's change is its mirror image). The arms "
        "play the same games with the same dice, so every interval is paired on the games: Newcombe's paired "
        "interval (method 10) for a change of a proportion, the Student-t interval of the per-game differences for "
        f"a change of a mean. {k} of {n} intervals exclude zero; with {n} intervals at 95 %, about {n / 20:.1f} "
        "would by chance alone if no arm differed."
    )


def precision_line(agg: Aggregates, precision: Any) -> str:
    """What the headline intervals' precision is (``compare.Precision``) and, with a target, whether it was met."""
    reached, widest = precision.reached()
    m = agg.run.meta
    target = m.get("target_ci") or 0
    games = _num(m.get("games_per_arm"))
    text = (
        f"Largest half-width of the headline 95 % intervals: ±{100 * reached:.2f} pp ({widest}), {games} games per arm"
    )
    if target:
        info = m.get("precision") or {}
        stopped = info.get("stopped")
        cap = _num(info.get("max_games_per_arm"))
        text += f"; target ±{100 * target:.2f} pp " + (
            f"reached after {games} of at most {cap} games per arm"
            if stopped == "target reached"
            else f"not reached: all {cap} games per arm were played"
            if stopped
            else "(the run did not finish)"
        )
    return text + "."


CAUSE_NAMES = {
    "emergency": "emergency loans (phase 7)",
    "expectation": "profit below expectation (phase 7)",
    "regions": "region lost (phase 8/9)",
    "laws": "law (phase 9)",
}


def crash_cause_table(agg: Aggregates) -> Table:
    """Per arm and crash cause: crashes, their share of the arm's crashes (Wilson 95 %), the share of all its games,
    and the crashes per round."""
    from .summary import crash_causes

    df = crash_causes(agg)
    rounds = [f"r{r}" for r in range(1, agg.rounds + 1)]
    columns = ["arm", "cause of the last point lost", "crashes", "share of crashes (95 % CI)", "share of games"]
    columns += [f"round {r[1:]}" for r in rounds]
    rows = [
        [
            agg.arm(r["arm_index"]).label,
            CAUSE_NAMES.get(r["cause"], r["cause"]),
            f"{r['crashes']:,}",
            pct(r["share"], r["lo"], r["hi"]),
            pct(r["rate"]),
            *[f"{r[c]:,}" for c in rounds],
        ]
        for r in df.iter_rows(named=True)
    ]
    return Table(columns, rows, numeric=[False, False] + [True] * (len(columns) - 2), hover=arm_hover(agg))


def main_causes(agg: Aggregates) -> dict[int, dict[str, Any]]:
    """Per arm with crashes: its main ``cause`` (named), that cause's ``share`` of the crashes with its Wilson ``lo,
    hi``, the ``crashes`` in all, and the ``round`` with the most crashes."""
    from .summary import crash_causes

    df = crash_causes(agg)
    out = {}
    for (arm,), part in df.group_by("arm_index", maintain_order=True):
        total = int(part["crashes"].sum())
        if total == 0:
            continue
        top = part.sort("crashes", descending=True, maintain_order=True).row(0, named=True)
        per_round = [int(part[f"r{r}"].sum()) for r in range(1, agg.rounds + 1)]
        out[arm] = {
            "cause": CAUSE_NAMES.get(top["cause"], top["cause"]),
            "share": top["share"],
            "lo": top["lo"],
            "hi": top["hi"],
            "crashes": total,
            "round": 1 + per_round.index(max(per_round)),
        }
    return out


@dataclass
class Verdict:
    """The run's answers in plain sentences with their 95 % intervals: who wins and by how much against the fair
    share, how often, when and why the Company crashes (``headlines``), and what each arm changes against the
    reference arm (``changes``, one line per arm)."""

    headlines: list[str]
    reference: str
    changes: list[tuple[str, str]]  # (the arm's short label, what it changes)
    labels: str = ""  # how the arms are labelled (``reports.labels``), said once
    hover: dict[str, str] = field(default_factory=dict)  # an arm's short label -> its full name


def verdict(agg: Aggregates, summary: pl.DataFrame, comp: pl.DataFrame | None) -> Verdict:
    """The ``Verdict`` of a run from its ``arm_summary`` and its comparisons with the reference arm."""
    rows = {r["arm_index"]: r for r in summary.iter_rows(named=True)}
    ref_name = comp["reference"][0] if comp is not None and not comp.is_empty() else None
    ref = agg.arm_by_name(ref_name) if ref_name else agg.arms[0]
    several = len(agg.arms) > 1
    where = f" in the reference arm {ref.name!r}" if several else ""
    lines = []
    r = rows[ref.index]
    playing = [s for s in agg.strategies if r[f"win_{s}"] is not None]
    if len(playing) > 1:
        best = max(playing, key=lambda s: r[f"win_{s}"])
        worst = min(playing, key=lambda s: r[f"win_{s}"])
        edge = r[f"win_{best}"] - r[f"fair_{best}"]
        clear = "above it" if r[f"win_{best}_lo"] > r[f"fair_{best}"] else "its interval still includes it"
        line = (
            f"{best} wins most{where}: {pct(r[f'win_{best}'], r[f'win_{best}_lo'], r[f'win_{best}_hi'])} of the "
            f"games against a fair share of {pct(r[f'fair_{best}'])}, {points(edge)} pp ({clear}); {worst} wins "
            f"least, {pct(r[f'win_{worst}'], r[f'win_{worst}_lo'], r[f'win_{worst}_hi'])}."
        )
        if several:
            tops = [max((s for s in agg.strategies if x[f"win_{s}"] is not None), key=lambda s: x[f"win_{s}"])
                    for x in rows.values()]  # fmt: skip
            counts = {s: tops.count(s) for s in dict.fromkeys(tops)}
            line += " Strongest strategy per arm: " + ", ".join(
                f"{s} in {k} of the {len(tops)} arms" for s, k in sorted(counts.items(), key=lambda x: -x[1])
            ) + "."  # fmt: skip
        lines.append(line)
    elif playing:
        lines.append(f"One strategy ({playing[0]}) in every seat: it wins every game, no win rate to compare.")
    causes = main_causes(agg)
    crash = f"The Company crashes in {pct(r['crash_rate'], r['crash_lo'], r['crash_hi'])} of the {r['games']:,} games"
    crash += where
    if ref.index in causes:
        c = causes[ref.index]
        crash += (
            f", most often in round {c['round']}; the main cause is {c['cause']}: {pct(c['share'], c['lo'], c['hi'])}"
            " of the crashes."
        )
    else:
        crash += "."
    if several:
        lo = min(rows.values(), key=lambda x: x["crash_rate"])
        hi = max(rows.values(), key=lambda x: x["crash_rate"])
        low, high = agg.label_of(lo["arm"]), agg.label_of(hi["arm"])
        crash += f" Across the arms it runs from {pct(lo['crash_rate'])} ({low}) to {pct(hi['crash_rate'])} ({high})."
    lines.append(crash)
    changes = []
    if comp is not None and not comp.is_empty():
        for arm in agg.arms:
            part = comp.filter((pl.col("arm") == arm.name) & pl.col("metric").is_in(["crash rate", "win rate"]))
            if part.is_empty():
                continue
            clear = part.filter((pl.col("lo") > 0) | (pl.col("hi") < 0))
            clear = clear.sort(pl.col("estimate").abs(), descending=True).head(3)
            moved = [
                (f"{x['strategy']}'s win rate " if x["strategy"] else "crash rate ")
                + change(x["estimate"], x["lo"], x["hi"])
                for x in clear.iter_rows(named=True)
            ]
            n = f"{int(part['n'].max()):,} games paired"
            shown = "; ".join(moved) + f" ({n})." if moved else f"no change whose 95 % interval excludes 0 ({n})."
            changes.append((arm.label, shown))
    caption = agg.labels.caption() if agg.labels else ""
    return Verdict(lines, ref.name, changes, caption, arm_hover(agg))


def economy_table(agg: Aggregates) -> Table:
    """Per arm and series: the median and 10-90 % range in each round (games running at its end)."""
    from .charts import ECONOMY_TITLES
    from .summary import economy_quantiles

    q = economy_quantiles(agg)
    columns = ["arm", "series", *[f"round {r}" for r in range(1, agg.rounds + 1)]]
    rows = []
    for arm in agg.arms:
        for series in ECONOMY_TITLES:
            mine = q.filter((pl.col("arm_index") == arm.index) & (pl.col("series") == series))
            part = {r["round"]: r for r in mine.iter_rows(named=True)}
            cells = [
                f"{part[r]['q50']:g} ({part[r]['q10']:g}–{part[r]['q90']:g})" if r in part else "—"
                for r in range(1, agg.rounds + 1)
            ]
            rows.append([arm.label, series, *cells])
    return Table(columns, rows, numeric=[False, False] + [True] * agg.rounds, hover=arm_hover(agg))


def vp_outcome_table(agg: Aggregates) -> Table:
    """Per arm, strategy and outcome: seats and the mean VP in total and per source (95 % Student-t)."""
    from sim.layout import VP_SOURCES

    from .summary import vp_by_outcome

    df = vp_by_outcome(agg)
    sources = ["total", *[s for s in VP_SOURCES if s not in agg.zero_sources]]
    columns = ["arm", "strategy", "games", "seats", *[f"{s.replace('_', ' ')} VP" for s in sources]]
    rows = []
    for (arm, strategy, outcome), part in df.group_by("arm_index", "strategy", "outcome", maintain_order=True):
        by = {r["source"]: r for r in part.iter_rows(named=True)}
        cells = [f"{by[s]['mean']:.2f} ({by[s]['lo']:.2f}–{by[s]['hi']:.2f})" if s in by else "—" for s in sources]
        rows.append([agg.arm(arm).label, strategy, outcome, f"{part['seats'][0]:,}", *cells])
    return Table(columns, rows, numeric=[False, False, False] + [True] * (len(columns) - 3), hover=arm_hover(agg))


WINS_HOW_NOTE = (
    "Means over a strategy's seats, first over every game it played, then over the games it won: its final VP in "
    "total and by source (negative sources cost VP), the share of those seats holding the Prime Minister and the chair "
    "at the end of the game, the Presidents' offices they held at the end, and over the whole game the luxuries they "
    "bought (the phase 2 action), the firms they opened and the firms that went bankrupt while they managed them. "
    "A dash: a run whose frames predate the column."
)


def wins_how_table(agg: Aggregates) -> Table:
    """How each strategy wins (``data.strategy_wins``): per arm and strategy, its mean VP by source, the offices held
    at the end, luxuries bought and firms opened and gone bankrupt, over all its seats, then over its winning seats."""
    from sim.layout import VP_SOURCES

    df = agg.wins_how
    sources = [s for s in VP_SOURCES if s not in agg.zero_sources]
    columns = ["arm", "strategy", "which seats", "seats", "mean VP", *[f"{s.replace('_', ' ')} VP" for s in sources]]
    columns += ["Prime Minister at the end", "Chairman at the end", "Presidencies held at the end"]
    columns += ["luxuries bought", "firms opened", "firms gone bankrupt"]
    rows: list[list[str]] = []
    if df is None or df.is_empty():
        return Table(columns, rows)

    def num(x: float | None) -> str:
        return "—" if x is None else f"{x:.2f}".replace("-", "−")

    order = {s: i for i, s in enumerate(agg.strategies)}
    df = df.filter(pl.col("arm_index").is_in([a.index for a in agg.arms]))
    df = df.sort("arm_index", pl.col("strategy").replace_strict(order, default=len(order)), "scope")
    for r in df.iter_rows(named=True):
        rows.append(
            [
                agg.arm(r["arm_index"]).label,
                r["strategy"],
                "all" if r["scope"] == "all" else "winners",
                f"{r['seats']:,}",
                num(r["vp"]),
                *[num(r[f"vp_{s}"]) for s in sources],
                pct(r["prime_minister"]),
                pct(r["chair"]),
                num(r["presidencies"]),
                num(r["luxuries_bought"]),
                num(r["firms_opened"]),
                num(r["firms_bankrupt"]),
            ]
        )
    return Table(columns, rows, numeric=[False, False, False] + [True] * (len(columns) - 3), hover=arm_hover(agg))


def vp_table(agg: Aggregates) -> Table:
    """Per arm and strategy: the final VP's mean (95 % CI), 10th / 50th / 90th percentiles, the share at 0 or
    less; its wins, their mean margin (95 % CI), median margin and the share won by at most 1 VP."""
    from .summary import vp_distribution, winning_margins

    dist = vp_distribution(agg)
    margins = {(r["arm_index"], r["strategy"]): r for r in winning_margins(agg).iter_rows(named=True)}
    columns = ["arm", "strategy", "mean VP (95 % CI)", "VP 10 / 50 / 90 %", "VP ≤ 0", "wins"]
    columns += ["mean winning margin (95 % CI)", "median margin", "won by ≤ 1 VP"]
    rows = []
    for r in dist.iter_rows(named=True):
        m = margins.get((r["arm_index"], r["strategy"]))
        rows.append(
            [
                agg.arm(r["arm_index"]).label,
                r["strategy"],
                f"{r['mean']:.2f} ({r['lo']:.2f}–{r['hi']:.2f})",
                f"{r['q10']:g} / {r['q50']:g} / {r['q90']:g}",
                pct(r["at_most_0"]),
                f"{m['wins']:,}" if m else "0",
                f"{m['mean']:.2f} ({m['lo']:.2f}–{m['hi']:.2f})" if m and m["lo"] == m["lo"] else "—",
                f"{m['q50']:g}" if m else "—",
                pct(m["close"]) if m else "—",
            ]
        )
    return Table(columns, rows, numeric=[False, False] + [True] * (len(columns) - 2), hover=arm_hover(agg))


def capital_table(agg: Aggregates) -> Table:
    """Per arm, strategy and measure (bid total, starting capital): ranges of values, seats and the win rate of a
    seat with its Wilson 95 % interval."""
    from .summary import capital_win_rates

    df = capital_win_rates(agg)
    columns = ["arm", "strategy", "by", "range", "seats", "win rate of a seat (95 % CI)"]
    rows = [
        [
            agg.arm(r["arm_index"]).label,
            r["strategy"],
            r["by"].replace("_", " "),
            f"{r['lo_value']}" if r["lo_value"] == r["hi_value"] else f"{r['lo_value']}–{r['hi_value']}",
            f"{r['seats']:,}",
            pct(r["win"], r["lo"], r["hi"]),
        ]
        for r in df.sort("arm_index", "strategy", "by", "lo_value").iter_rows(named=True)
    ]
    return Table(columns, rows, numeric=[False, False, False, True, True, True], hover=arm_hover(agg))


def seat_table(agg: Aggregates) -> Table:
    """Per arm and seat: the seat advantage (95 % CI) against same-strategy peers in the same seating, the raw win
    rate of the seat, and each strategy's win rate when it sits there (Wilson 95 %)."""
    from .summary import seat_advantage, seat_strategy_rates

    adv = seat_advantage(agg)
    per = {(r["arm_index"], r["seat"], r["strategy"]): r for r in seat_strategy_rates(agg).iter_rows(named=True)}
    columns = ["arm", "seat", "advantage (95 % CI)", "win rate of the seat (95 % CI)"]
    strategies = agg.strategies if several_strategies(agg) else []
    columns += [f"{s} in this seat" for s in strategies]
    rows = []
    for r in adv.iter_rows(named=True):
        ok = r["advantage"] == r["advantage"]
        cells = [
            change(r["advantage"], r["lo"], r["hi"]) if ok else "— (no same-strategy peer)",
            pct(r["win"], r["win_lo"], r["win_hi"]),
        ]
        for s in strategies:
            x = per.get((r["arm_index"], r["seat"], s))
            cells.append(pct(x["win"], x["lo"], x["hi"]) + f" of {x['seat_games']:,}" if x else "—")
        rows.append([agg.arm(r["arm_index"]).label, str(r["seat"] + 1), *cells])
    return Table(columns, rows, numeric=[False, True] + [True] * (len(columns) - 2), hover=arm_hover(agg))


def settings_table(agg: Aggregates) -> Table:
    """The run's resolved settings from run.json."""
    m = agg.run.meta
    strategies = {json.dumps(a.strategies) for a in agg.arms}
    total = int(agg.games()["games"].sum())
    rows: list[tuple[str, Any]] = [
        ("name", m.get("name")),
        ("status", m.get("status")),
        ("command", m.get("command")),
        ("seed", m.get("seed")),
        ("players", m.get("players")),
        ("games per arm", _num(m.get("games_per_arm"))),
        ("arms", len(agg.arms)),
        ("games in total", f"{total:,}"),
        ("swept / listed parameters", ", ".join(agg.run.param_keys) or "none"),
        ("strategies", ", ".join(agg.arms[0].strategies) if len(strategies) == 1 else "per arm, below"),
        ("strategy parameters", _strategy_params(agg)),
        ("seat rotation", _rotation(agg)),
        ("reference arm", m.get("reference") or (agg.arms[0].name if agg.arms else None)),
        ("precision target", f"±{100 * m['target_ci']:.2f} pp" if m.get("target_ci") else None),
        ("shard size", _num(m.get("shard_size"))),
        ("started", m.get("started")),
        ("finished", m.get("finished")),
        ("wall time", f"{m['wall_time_s']:.1f} s" if isinstance(m.get("wall_time_s"), int | float) else None),
        ("games per second", _num(m.get("games_per_s"))),
        ("peak memory of a process playing", f"{m['play_peak_mib']:,.0f} MiB" if m.get("play_peak_mib") else None),
        ("experiment digest", m.get("experiment_digest")),
        ("versions", ", ".join(f"{k} {v}" for k, v in (m.get("versions") or {}).items())),
    ]
    return Table(["setting", "value"], [[k, str(v)] for k, v in rows if v not in (None, "")])


def arms_table(agg: Aggregates) -> Table:
    """One row per arm: index, short label (where it differs from the name), full name, each parameter, other
    overrides, strategies and rules file."""
    keys = agg.run.param_keys
    short = short_keys(keys)
    meta = {a["index"]: a for a in agg.run.arms}
    labelled = any(arm.label != arm.name for arm in agg.arms)
    columns = ["#", *(["label"] if labelled else []), "arm", *[short[k] for k in keys], "other overrides"]
    columns += ["strategies", "rules file"]
    rows = []
    for arm in agg.arms:
        a = meta[arm.index]
        other = {k: v for k, v in (a.get("overrides") or {}).items() if k not in arm.params}
        rows.append(
            [
                str(arm.index),
                *([arm.label] if labelled else []),
                arm.name,
                *[format_value(arm.params[k]) if k in arm.params else "—" for k in keys],
                ", ".join(f"{k}={format_value(v)}" for k, v in other.items()) or "—",
                ", ".join(arm.strategies),
                a.get("rules_file") or "default rules",
            ]
        )
    return Table(columns, rows)


def _num(value: Any) -> str | None:
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.1f}" if isinstance(value, float) else value


def _rotation(agg: Aggregates) -> str:
    """How strategies were seated: one strategy needs no rotation; "1 rotation", "2 rotations"."""
    arms = agg.run.arms
    if all(len(set(a.get("strategies") or [])) <= 1 for a in arms):
        return "one strategy in every seat"
    modes = {str(a.get("rotate")) for a in arms}
    counts = {a.get("rotations") for a in arms}
    count = counts.pop() if len(counts) == 1 and None not in counts else None
    if modes == {"all"}:
        return "every distinct seating" + (f" ({count:,} seatings)" if count else "")
    if modes == {"True"}:
        return "yes" + (f" ({count} rotation{'' if count == 1 else 's'})" if count else "")
    return "no" if modes == {"False"} else "differs between arms"


def _strategy_params(agg: Aggregates) -> str | None:
    """The tuned strategies: a label names the parameters that differ from the strategy's defaults,
    e.g. ``bid_low(max_bid=2)``; every value is spelled out in experiment.toml and run.json."""
    labels: dict[str, bool] = {}
    for arm in agg.run.arms:
        for label in arm.get("strategy_params") or {}:
            labels[label] = "(" in label
    if not labels:
        return None
    tuned = [label for label, changed in labels.items() if changed]
    where = "every value in experiment.toml and run.json; the defaults: `eastindia strategies`"
    return f"{', '.join(tuned)} ({where})" if tuned else f"all at their defaults ({where})"


def study_settings(rows: list[tuple[str, Any]], meta: dict[str, Any]) -> Table:
    """A study's settings table (tune, sensitivity, metagame): its own ``rows`` then when it ran, its wall time, its
    digest and the package versions, from ``study.json``; empty values left out."""
    wall = meta.get("wall_time_s")
    rows = [
        *rows,
        ("started", meta.get("started")),
        ("finished", meta.get("finished")),
        ("wall time", f"{wall:.1f} s" if isinstance(wall, int | float) else None),
        ("study digest", meta.get("study_digest")),
        ("versions", ", ".join(f"{k} {v}" for k, v in (meta.get("versions") or {}).items())),
    ]
    return Table(["setting", "value"], [[k, str(v)] for k, v in rows if v not in (None, "")])
