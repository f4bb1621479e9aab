"""report.html's interactive charts: Vega-Lite specifications built with Altair, drawn offline by the vega-embed,
Vega-Lite and Vega bundle that vl-convert-python ships (inlined once per page, about 0.9 MB; Bokeh's inline resources
with its table widget weigh about 2 MB). Hovering a mark shows its value, its 95 % interval and its n; dropdowns
filter by arm and strategy and sort the table."""

from __future__ import annotations

import json
import os
from functools import cache
from typing import Any

import altair as alt
import polars as pl

from experiments.stats import CRASH, WIN
from sim.kernels import cache_dir

from .data import Aggregates
from .tables import pct, points

EMBED = {"actions": False, "renderer": "svg"}  # no menu (it links to the online editor); SVG marks can be hovered
ARM_WIDTH = 260  # px for the arm labels left of a chart


@cache
def script() -> str:
    """The JavaScript that draws every chart of the page, from the installed vl-convert-python (no network). Bundling
    it costs about 1.5 CPU-seconds, so it is kept in the cache folder (``sim.kernels.cache_dir``), one file per
    vl-convert and Vega-Lite version; a folder that cannot be written only means bundling again next time."""
    import vl_convert
    from altair.utils._importers import vl_version_for_vl_convert

    version = vl_version_for_vl_convert()
    kept = cache_dir() / f"vega-bundle-{vl_convert.__version__}-{version}.js"
    try:
        return kept.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        pass
    bundle = vl_convert.javascript_bundle(vl_version=version).replace("</script", "<\\/script")
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        partial = kept.with_name(f"{kept.name}.{os.getpid()}.part")
        partial.write_text(bundle, encoding="utf-8")
        partial.replace(kept)  # whole or absent: a report beside never reads half a bundle
    except OSError:
        pass
    return bundle


def embed(element_id: str, spec: dict[str, Any]) -> str:
    """A <div> and the inline script that draws ``spec`` into it."""
    data = json.dumps(spec, separators=(",", ":")).replace("</", "<\\/")
    return (
        f'<div class="vega" id="{element_id}"></div>'
        f'<script>vegaEmbed("#{element_id}", {data}, {json.dumps(EMBED)}).catch(console.error);</script>'
    )


def _spec(chart: alt.TopLevelMixin) -> dict[str, Any]:
    spec = chart.to_dict()
    spec.pop("$schema", None)  # a URL nothing needs to load
    return spec


def win_rows(agg: Aggregates, summary: pl.DataFrame) -> list[dict[str, Any]]:
    """Per arm and strategy playing in it: win rate with its Wilson interval, fair share, edge and games."""
    rows = []
    for r in summary.iter_rows(named=True):
        for s in agg.strategies:
            if r[f"win_{s}"] is None:
                continue
            win, lo, hi, fair = r[f"win_{s}"], r[f"win_{s}_lo"], r[f"win_{s}_hi"], r[f"fair_{s}"]
            rows.append(
                {
                    "arm_index": r["arm_index"],
                    "arm": agg.label_of(r["arm"]),
                    "arm_name": r["arm"],
                    "strategy": s,
                    "win": win,
                    "lo": lo,
                    "hi": hi,
                    "fair": fair,
                    "edge": win - fair,
                    "games": r["games"],
                    "win_ci": pct(win, lo, hi),
                    "fair_share": pct(fair),
                    "against_fair": f"{points(win - fair)} pp",
                }
            )
    return rows


def crash_rows(summary: pl.DataFrame, causes: dict[int, str]) -> list[dict[str, Any]]:
    """Per arm: its crash rate with its Wilson interval, games and the main cause of its crashes (``arm``: its name,
    which ``verdict_chart`` turns into its short label)."""
    return [
        {
            "arm_index": r["arm_index"],
            "arm": r["arm"],
            "arm_name": r["arm"],
            "crash": r["crash_rate"],
            "lo": r["crash_lo"],
            "hi": r["crash_hi"],
            "games": r["games"],
            "crash_ci": pct(r["crash_rate"], r["crash_lo"], r["crash_hi"]),
            "main_cause": causes.get(r["arm_index"], "no crash"),
        }
        for r in summary.iter_rows(named=True)
    ]


# Vega reads a field name as an access path ("arm's value" opens a quote it never closes, a chart drawing nothing):
# every field is a plain identifier, and the tooltips and headers give people its title
TITLES = {
    "arm": "arm",
    "arm_name": "arm in full",
    "win_ci": "win rate (95 % CI)",
    "fair_share": "fair share",
    "against_fair": "against fair share",
    "crash_ci": "crash rate (95 % CI)",
    "main_cause": "main cause",
    "interval": "change (95 % CI)",
    "arm_value": "arm's value",
    "reference_value": "reference's value",
}


def _tips(*fields: str) -> list[alt.Tooltip]:
    """Tooltips of ``fields`` ("name:type"), each titled for people (``TITLES``)."""
    return [alt.Tooltip(f, title=TITLES.get(f.split(":")[0], f.split(":")[0])) for f in fields]


def arm_width(agg: Aggregates) -> int:
    """Pixels for the arm labels left of a chart: the longest short label at about 7 px a character, at most
    ``ARM_WIDTH``."""
    return min(ARM_WIDTH, 7 * max((len(a.label) for a in agg.arms), default=10) + 12)


def _filters(agg: Aggregates, strategies: bool) -> tuple[list[alt.Parameter], str]:
    """Dropdowns choosing one arm (and one strategy) or all, and the filter expression they drive."""
    params = [alt.param(name="arm_filter", value="all", bind=alt.binding_select(
        options=["all", *[a.label for a in agg.arms]], name="arm "))]  # fmt: skip
    test = "(arm_filter == 'all' || datum.arm == arm_filter)"
    if strategies:
        params.append(alt.param(name="strategy_filter", value="all", bind=alt.binding_select(
            options=["all", *agg.strategies], name="strategy ")))  # fmt: skip
        test += " && (strategy_filter == 'all' || datum.strategy == strategy_filter)"
    return params, test


def _arm_axis(agg: Aggregates, labels: bool = True) -> alt.Y:
    """The arms top to bottom by their short labels, titled by what the labels say (``formula · budget``)."""
    title = agg.labels.title if agg.labels and len(agg.arms) > 1 else None
    axis = alt.Axis(labelLimit=arm_width(agg), title=title, titleFontWeight="normal") if labels else None
    return alt.Y("arm:N", sort=[a.label for a in agg.arms], axis=axis)


def _crash_panel(agg: Aggregates, crashes: list[dict], test: str, height: int, labels: bool) -> alt.LayerChart:
    tip = _tips("arm:N", "crash_ci:N", "games:Q", "main_cause:N", *(["arm_name:N"] if len(agg.arms) > 1 else []))
    base = alt.Chart(alt.Data(values=crashes)).transform_filter(test)
    y = _arm_axis(agg, labels)
    x = alt.X("lo:Q", axis=alt.Axis(format=".0%"), title="crash rate")
    return alt.layer(
        base.mark_rule(strokeWidth=2, color="#b2182b").encode(x=x, x2="hi:Q", y=y, tooltip=tip),
        base.mark_point(filled=True, size=70, color="#b2182b", opacity=1).encode(x="crash:Q", y=y, tooltip=tip),
    ).properties(width=300, height=height, title="How often the Company crashes")


def _rounds_panel(agg: Aggregates, test: str) -> alt.Chart:
    """Crashes per round, stacked by their cause (of the arms chosen): when and why the Company crashes."""
    from .summary import crash_causes
    from .tables import CAUSE_NAMES

    rows = [
        {"arm": agg.arm(r["arm_index"]).label, "cause": CAUSE_NAMES.get(r["cause"], r["cause"]), "round": k,
         "crashes": r[f"r{k}"]}
        for r in crash_causes(agg).iter_rows(named=True)
        for k in range(1, agg.rounds + 1)
    ]  # fmt: skip
    return (
        alt.Chart(alt.Data(values=rows))
        .transform_filter(test)
        .transform_aggregate(crashes="sum(crashes)", groupby=["round", "cause"])
        .mark_bar()
        .encode(
            x=alt.X("round:O", axis=alt.Axis(labelAngle=0)),
            y=alt.Y("crashes:Q", title="crashes", stack="zero", scale=alt.Scale(nice=5)),
            color=alt.Color("cause:N", legend=alt.Legend(orient="right", title="cause of the last point lost")),
            tooltip=["round:O", "cause:N", "crashes:Q"],
        )
        .properties(width=360, height=160, title="When and why: crashes per round by cause")
    )


def verdict_chart(agg: Aggregates, wins: list[dict], crashes: list[dict]) -> dict[str, Any]:
    """The answer in one figure: each strategy's win rate per arm against its fair share (a black tick) and the
    crash rate per arm, with their 95 % intervals; hover for the numbers, filter by arm and strategy."""
    several = bool(wins) and len(agg.strategies) > 1
    crashes = [{**row, "arm": agg.label_of(row["arm_name"])} for row in crashes]
    params, test = _filters(agg, several)
    pct_axis = alt.Axis(format=".0%", grid=True)
    n = len(agg.arms)
    height = len(agg.arms) * (9 * len(agg.strategies) + 14 if several else 24)
    crash = _crash_panel(agg, crashes, test.split(" && ")[0], height, True)
    if not several:
        return _spec(alt.hconcat(crash, _rounds_panel(agg, test)).add_params(*params))
    tip = _tips("arm:N", "strategy:N", "win_ci:N", "fair_share:N", "against_fair:N", "games:Q",
                *(["arm_name:N"] if n > 1 else []))  # fmt: skip
    base = alt.Chart(alt.Data(values=wins)).transform_filter(test)
    y = _arm_axis(agg)
    offset = alt.YOffset("strategy:N", sort=agg.strategies)
    color = alt.Color("strategy:N", sort=agg.strategies, legend=alt.Legend(orient="top", title=None))
    win = alt.layer(
        base.mark_rule(strokeWidth=2).encode(x=alt.X("lo:Q", axis=pct_axis, title="share of the games won"), x2="hi:Q",
                                             y=y, yOffset=offset, color=color, tooltip=tip),
        base.mark_point(filled=True, size=60, opacity=1).encode(x="win:Q", y=y, yOffset=offset, color=color,
                                                                 tooltip=tip),
        base.mark_tick(color="black", thickness=1.5, size=12).encode(x="fair:Q", y=y, yOffset=offset, tooltip=tip),
    ).properties(width=600 if n > 1 else 700, height=height,
                 title="Win rate of each strategy (black tick: its fair share)")  # fmt: skip
    crash = _crash_panel(agg, crashes, test.split(" && ")[0], height, False).properties(width=300)
    return _spec(alt.hconcat(win, crash).resolve_scale(y="shared").add_params(*params))


TABLE_COLUMNS = [("arm", 200), ("strategy", 110), ("win_ci", 150), ("fair_share", 80), ("against_fair", 130),
                 ("games", 60)]  # fmt: skip
SORTS = {"edge over fair share": "-datum.edge", "win rate": "-datum.win", "arm": "datum.arm_index",
         "strategy": "datum.strategy"}  # fmt: skip


def win_table(agg: Aggregates, wins: list[dict]) -> dict[str, Any]:
    """The win rates as a table drawn by Vega-Lite: filter by arm and strategy, sort with the "sort by" dropdown."""
    params, test = _filters(agg, True)
    sort = alt.param(name="sort_by", value=next(iter(SORTS)), bind=alt.binding_select(options=list(SORTS),
                                                                                       name="sort by "))  # fmt: skip
    key = " : ".join(f"sort_by == {json.dumps(name)} ? {expr}" for name, expr in SORTS.items()) + " : 0"
    base = (
        alt.Chart(alt.Data(values=wins))
        .transform_filter(test)
        .transform_calculate(key=key)
        .transform_window(row="row_number()", sort=[alt.SortField("key"), alt.SortField("arm_index")])
    )
    columns = [
        base.mark_text(align="left", baseline="middle", limit=width - 8)
        .encode(
            x=alt.value(0),
            y=alt.Y("row:O", axis=None),
            text=f"{name}:N",
            tooltip=_tips(f"{name}:N", *(["arm_name:N"] if name == "arm" and len(agg.arms) > 1 else [])),
        )
        .properties(
            width=width, height={"step": 20}, title=alt.TitleParams(TITLES.get(name, name), anchor="start", fontSize=12)
        )
        for name, width in TABLE_COLUMNS
    ]
    return _spec(alt.hconcat(*columns, spacing=4).add_params(*params, sort).configure_view(stroke=None))


def comparison_chart(agg: Aggregates, comp: pl.DataFrame) -> dict[str, Any] | None:
    """Every comparison with the reference arm as a forest plot: the change (arm − reference) with its paired 95 %
    interval, one panel per metric, red where the interval excludes zero; hover for both values, the interval, the
    method and n; filter by arm and strategy. None when there is nothing to compare."""
    if comp.is_empty():
        return None
    percent = {CRASH, WIN}
    rows = []
    for r in comp.iter_rows(named=True):
        share = r["metric"] in percent
        show = (lambda x: f"{points(x)} pp") if share else (lambda x: f"{x:+.2f}")
        value = pct if share else (lambda x: f"{x:.2f}")
        arm = agg.label_of(r["arm"])
        rows.append(
            {
                "arm": arm, "arm_name": r["arm"], "metric": r["metric"], "strategy": r["strategy"] or "all",
                "row": f"{arm}: {r['strategy']}" if r["strategy"] else arm,
                "change": r["estimate"] * (100 if share else 1), "lo": r["lo"] * (100 if share else 1),
                "hi": r["hi"] * (100 if share else 1), "n": r["n"], "method": r["method"],
                "clear": bool(r["lo"] > 0 or r["hi"] < 0),
                "interval": f"{show(r['estimate'])} ({show(r['lo'])} to {show(r['hi'])})",
                "arm_value": value(r["arm_value"]), "reference_value": value(r["reference_value"]),
            }
        )  # fmt: skip
    params, test = _filters(agg, len(agg.strategies) > 1)
    either = "(datum.strategy == strategy_filter || datum.strategy == 'all')"  # crash rate, end round: every strategy
    test = test.replace("datum.strategy == strategy_filter", either)
    tip = _tips("arm:N", "metric:N", "strategy:N", "interval:N", "arm_value:N", "reference_value:N", "method:N",
                "n:Q", "arm_name:N")  # fmt: skip
    base = alt.Chart().transform_filter(test)  # no data of its own: each panel draws its metric's rows of the facet
    y = alt.Y("row:N", axis=alt.Axis(labelLimit=arm_width(agg) + 120, title=None), sort=None)
    color = alt.condition("datum.clear", alt.value("#b2182b"), alt.value("#4d4d4d"))
    x = alt.X("lo:Q", title="change against the reference (pp for shares, units for means)")
    panels = alt.layer(
        base.mark_rule(strokeWidth=2).encode(x=x, x2="hi:Q", y=y, color=color, tooltip=tip),
        base.mark_point(filled=True, size=60, opacity=1).encode(x="change:Q", y=y, color=color, tooltip=tip),
        alt.Chart().mark_rule(color="black", strokeDash=[4, 3]).encode(x=alt.datum(0)),
    ).properties(width=560, height={"step": 16})
    chart = panels.facet(row=alt.Row("metric:N", sort=list(dict.fromkeys(r["metric"] for r in rows)), title=None),
                         data=alt.Data(values=rows))  # fmt: skip
    return _spec(chart.resolve_scale(x="independent", y="independent").add_params(*params))
