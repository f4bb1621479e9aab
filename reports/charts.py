"""The report's charts: one function per chart, each drawing from ``Aggregates`` and saving a PNG.

Every function has the signature ``chart(agg, out_dir) -> Chart`` and writes ``out_dir/<name>.png``. Figures
are built with ``matplotlib.figure.Figure`` on the Agg canvas (no pyplot state, nothing left open).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
from matplotlib import colormaps, rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import PowerNorm
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator, PercentFormatter
from PIL import Image

from experiments import runfolder as rf
from sim.capital import exact_capital
from sim.layout import VP_SOURCES

from .data import VP_COLUMNS, Aggregates, Arm, format_value
from .stats import quantile_from_counts
from .summary import arm_summary, crash_hazard, seat_advantage, several_strategies, stability_quantiles, win_rates

DPI = 110


def _decimals(values) -> int:
    """The fewest decimals (at most 4) that write every tick of a proportion axis in percent exactly: distinct
    labels (a crash-rate axis spanning 2-3 % does not read "2 %, 2 %, 3 %, 3 %") that say their value (ticks at
    2.5, 7.5, 12.5 % are not labelled 2, 8, 12 %)."""
    pct = [100 * float(v) for v in values]
    for decimals in range(4):
        if all(abs(round(p, decimals) - p) < 1e-9 for p in pct):
            return decimals
    return 4


class UniquePercent(PercentFormatter):
    """Percent tick labels with as few decimals as write every tick exactly (``_decimals``)."""

    def __init__(self):
        super().__init__(1.0, decimals=0)

    def format_ticks(self, values):
        self.decimals = _decimals(values)
        return [self(v, i) for i, v in enumerate(values)]


def _pct_axis(axis) -> None:
    """A percent axis (``ax.xaxis`` or ``ax.yaxis``) with distinct labels; each axis gets its own formatter."""
    axis.set_major_formatter(UniquePercent())


@dataclass
class Chart:
    """A saved chart: file name stem, title, one-sentence caption, PNG path and the page's copy (``page_png``)."""

    name: str
    title: str
    caption: str
    path: Path
    page: bytes  # the PNG the page inlines (``page_png``)


# ----------------------------------------------------------------------------------------------- helpers
def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, out_dir: Path, name: str, title: str, caption: str) -> Chart:
    """Save ``out_dir/<name>.png``; ``out_dir`` (RUN_DIR/charts) and the file are never a link followed
    (``runfolder.open_write``, the folder above ``out_dir`` taken as the run folder)."""
    out_dir = Path(out_dir)
    _lay_out(fig)
    with rf.open_write(out_dir.parent, f"{out_dir.name}/{name}.png") as fh:
        fig.savefig(fh, dpi=DPI, format="png")
    drawn = Image.frombuffer("RGBA", fig.canvas.get_width_height(), fig.canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    return Chart(name, title, caption, out_dir / f"{name}.png", page_png(drawn))


def page_png(image: Image.Image) -> bytes:
    """The chart as the page inlines it, in at most 256 colours: a third of the size, the same look on screen
    (charts/ keeps the full PNG for papers). Fast octree quantizing, without PNG optimisation, takes a fifth of the
    CPU of median cut with it and gives smaller files on these charts' flat colours. ``_save`` hands it the pixels it
    has just saved, from the canvas: reading the PNG back would cost as much again as the quantizing."""
    out = io.BytesIO()
    image.convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE).save(out, "PNG")
    return out.getvalue()


def _lay_out(fig: Figure) -> None:
    """Run the figure's constrained layout once and fix it. ``savefig`` on a figure with a layout engine draws the
    whole figure twice, the first time with drawing switched off only to run the layout; laid out here, the figure
    is drawn once, to the same pixels."""
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)
        with rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
            fig.set_layout_engine(None)  # none at all (``"none"`` keeps a placeholder, and savefig's first draw)


def _colors(palette: str, n: int) -> list:
    """n colours of a qualitative palette (cycled) or spread over a continuous one."""
    cmap = colormaps[palette]
    size = getattr(cmap, "N", 256)
    return [cmap(i % size) for i in range(n)] if size < 64 else [cmap(x) for x in np.linspace(0, 1, max(n, 1))]


def arm_colors(agg: Aggregates) -> dict[int, tuple]:
    palette = "tab10" if len(agg.arms) <= 10 else "tab20"
    return {arm.index: c for arm, c in zip(agg.arms, _colors(palette, len(agg.arms)), strict=True)}


def strategy_colors(agg: Aggregates) -> dict[str, tuple]:
    return dict(zip(agg.strategies, _colors("Dark2", len(agg.strategies)), strict=True))


def _dodge(n: int, width: float = 0.7) -> np.ndarray:
    return np.linspace(-width / 2, width / 2, n) if n > 1 else np.zeros(1)


def panel_columns(n: int) -> int:
    """Columns for n small multiples: one row up to 3, 2 x 2 for 4, else rows of 3."""
    return n if n <= 3 else 2 if n == 4 else 3


def _grid(fig: Figure, n: int, ncols: int, **kw) -> list:
    """n axes in rows of ``ncols``; unused cells hidden, and x tick labels on every panel with none below it."""
    ncols = min(ncols, n)
    axes = fig.subplots(math.ceil(n / ncols), ncols, squeeze=False, **kw).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    for i in range(max(0, n - ncols), n):
        axes[i].xaxis.set_tick_params(labelbottom=True)
    return list(axes[:n])


def _errorbar(ax, x, p, lo, hi, horizontal: bool = False, **kw) -> None:
    """Points ``p`` at ``x`` with interval bars from ``lo`` to ``hi`` (vertical, or horizontal with x = position)."""
    p, lo, hi = (np.asarray(v, dtype=float) for v in (p, lo, hi))
    err = np.clip([p - lo, hi - p], 0, None)  # rounding can put a bound a hair past the estimate
    if horizontal:
        ax.errorbar(p, x, xerr=err, capsize=3, linestyle="none", **kw)
    else:
        ax.errorbar(x, p, yerr=err, capsize=3, linestyle="none", **kw)


def _top_legend(fig: Figure, ax, extra: list[tuple] = ()) -> None:
    """The figure's legend above its panels: the entries of ``ax`` and any ``extra`` (handle, label) pairs."""
    handles, labels = ax.get_legend_handles_labels()
    for handle, label in extra:
        handles.append(handle)
        labels.append(label)
    fig.legend(handles, labels, loc="outside upper center", ncols=_legend_columns(fig, handles, labels), fontsize=9)


def _legend_columns(fig: Figure, handles: list, labels: list[str] | None = None, fontsize: float = 9) -> int:
    """Columns for a figure legend so that it fits the figure's width (rows of entries otherwise)."""
    labels = labels or [h.get_label() for h in handles]
    longest = max((len(str(x)) for x in labels), default=1)
    entry = (longest * 0.55 * fontsize + 4 * fontsize) / 72  # inches: text plus the handle and padding
    return max(1, min(len(labels), int((fig.get_figwidth() - 0.4) // entry)))


def _arm_axis(ax, agg: Aggregates, axis: str = "x") -> None:
    """Arms as categories: compact value ticks under the params' names (x) or full labels (y, top to bottom)."""
    ticks = np.arange(len(agg.arms))
    if axis == "x":
        ax.set_xticks(ticks, [arm.tick for arm in agg.arms], fontsize=8)
        ax.set_xlim(-0.6, len(agg.arms) - 0.4)
        ax.set_xlabel(agg.arm_axis)
    else:
        ax.set_yticks(ticks, [arm.wrapped() for arm in agg.arms], fontsize=8)
        ax.set_ylim(len(agg.arms) - 0.4, -0.6)


def _games(agg: Aggregates) -> dict[int, int]:
    return dict(agg.games().select("arm_index", "games").iter_rows())


# ----------------------------------------------------------------------------------------------- charts
def stability_chart(agg: Aggregates, out_dir: Path) -> Chart:
    """Stability at the end of each round, per arm: where games sit (heat-map), median and 10-90 % band."""
    n = len(agg.arms)
    ncols = panel_columns(n)
    fig = _figure(4.2 * ncols + 1.2, 3.3 * math.ceil(n / ncols) + 0.6)
    axes = _grid(fig, n, ncols, sharex=True, sharey=True)
    top = int(agg.stability["stability"].max() or 0)
    rounds = np.arange(1, agg.rounds + 1)
    quantiles = stability_quantiles(agg)
    mesh, norm = None, PowerNorm(0.5, vmin=0, vmax=1)
    for ax, arm in zip(axes, agg.arms, strict=True):
        part = agg.stability.filter(pl.col("arm_index") == arm.index)
        share = np.zeros((top + 1, agg.rounds))
        for r, s, g in part.select("round", "stability", "games").iter_rows():
            share[s, r - 1] += g
        share /= np.maximum(share.sum(axis=0, keepdims=True), 1)
        mesh = ax.pcolormesh(np.arange(0.5, agg.rounds + 1), np.arange(-0.5, top + 1), share, cmap="Blues", norm=norm)
        q = quantiles.filter(pl.col("arm_index") == arm.index)
        ax.plot(q["round"], q["q90"], color="tab:orange", linestyle="dashed", linewidth=1.6, label="90th percentile")
        ax.plot(q["round"], q["q50"], color="tab:red", marker="o", markersize=4, linewidth=2.2, label="median")
        ax.plot(q["round"], q["q10"], color="tab:orange", linestyle="dotted", linewidth=1.8, label="10th percentile")
        ax.set_title(arm.title(), fontsize=9)
        ax.set_xticks(rounds)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    fig.supxlabel("round")
    fig.supylabel("Company stability at the end of the round")
    fig.colorbar(
        mesh, ax=axes, label="share of the arm's games (square-root scale)", shrink=0.8, format=UniquePercent()
    )
    _top_legend(fig, axes[0])
    caption = (
        "Company stability at the end of each round per arm: shading is the share of games at each value, the red "
        "line the median, the orange lines the 10th and 90th percentiles; a crashed game counts as stability 0 "
        "(the crash value) in every round after its crash, so the median falls as games crash."
    )
    return _save(fig, out_dir, "stability", "Stability over rounds", caption)


def crash_chart(agg: Aggregates, out_dir: Path) -> Chart:
    """Overall crash rate per arm; crash hazard per round; cumulative share crashed by round (95 % Wilson)."""
    colors = arm_colors(agg)
    n = len(agg.arms)
    fig = _figure(13.5, max(4.5, 0.45 * n + 2.5))
    ax0, ax1, ax2 = fig.subplots(1, 3, width_ratios=[1.1, 1, 1])
    summary = arm_summary(agg)
    rate, lo, hi = (summary[c] for c in ("crash_rate", "crash_lo", "crash_hi"))
    for i, arm in enumerate(agg.arms):
        _errorbar(ax0, [i], [rate[i]], [lo[i]], [hi[i]], horizontal=True, marker="o", color=colors[arm.index])
        ax0.annotate(f"{rate[i]:.1%}", (hi[i], i), xytext=(4, 0), textcoords="offset points", va="center", fontsize=8)
    _arm_axis(ax0, agg, "y")
    _pct_axis(ax0.xaxis)
    ax0.set_xlabel("games that crashed")
    ax0.set_title("Overall crash rate", fontsize=10)
    ax0.margins(x=0.25)
    rounds = np.arange(1, agg.rounds + 1)
    offsets = _dodge(n, 0.5)
    hazard = crash_hazard(agg)
    for arm, dx in zip(agg.arms, offsets, strict=True):
        h = hazard.filter(pl.col("arm_index") == arm.index)
        color = colors[arm.index]
        _errorbar(ax1, h["round"] + dx, h["hazard"], h["lo"], h["hi"], marker="o", markersize=4, color=color)
        ax2.plot(h["round"], h["cum"], marker="o", markersize=4, color=color, label=arm.label)
        ax2.fill_between(h["round"], h["cum_lo"], h["cum_hi"], color=color, alpha=0.12)
    ax1.set_title("Hazard: crashed in round r / alive at its start", fontsize=10)
    ax2.set_title("Cumulative: crashed by the end of round r", fontsize=10)
    for ax in (ax1, ax2):
        ax.set_xlabel("round")
        ax.set_xticks(rounds)
        _pct_axis(ax.yaxis)
        ax.set_ylim(0, None)
        ax.grid(axis="y", alpha=0.3)
    ax1.set_ylabel("crash hazard")
    ax2.set_ylabel("games crashed so far")
    if n > 1:
        handles, labels = ax2.get_legend_handles_labels()
        ncols = min(3, _legend_columns(fig, handles, labels, 8))
        fig.legend(handles, labels, loc="outside lower center", ncols=ncols, fontsize=8)
    caption = (
        "Left: share of each arm's games that crashed; middle: the hazard, crashes in round r divided by the games "
        "still running at the start of round r; right: the share of all games crashed by the end of round r; "
        "bars and bands are 95 % Wilson intervals."
    )
    return _save(fig, out_dir, "crashes", "Crash rate", caption)


def vp_chart(agg: Aggregates, out_dir: Path) -> Chart:
    """Stacked mean VP by source per strategy and arm; negative sources stack below zero."""
    strategies = agg.strategies
    colors = dict(zip(VP_COLUMNS, _colors("tab10", len(VP_COLUMNS)), strict=True))
    fig = _figure(max(8, 1.1 * len(agg.arms) + 3), 3.2 * len(strategies) + 1.4)
    axes = _grid(fig, len(strategies), 1, sharex=True, sharey=True)
    x = np.arange(len(agg.arms))
    for ax, s in zip(axes, strategies, strict=True):
        part = agg.vp.filter(pl.col("strategy") == s)
        rows = {r["arm_index"]: r for r in part.iter_rows(named=True)}
        pos, neg = np.zeros(len(x)), np.zeros(len(x))
        for col, source in zip(VP_COLUMNS, VP_SOURCES, strict=True):
            vals = np.array([rows[a.index][col] if a.index in rows else 0.0 for a in agg.arms])
            base = np.where(vals >= 0, pos, neg)
            label = source.replace("_", " ")
            ax.bar(x, vals, 0.65, bottom=base, color=colors[col], label=label, edgecolor="white", linewidth=0.5)
            pos += np.clip(vals, 0, None)
            neg += np.clip(vals, None, 0)
        net = np.array([rows[a.index]["vp"] if a.index in rows else np.nan for a in agg.arms])
        ax.scatter(x, net, marker="D", color="black", zorder=3, s=25, label="net mean VP")
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_ylabel(f"mean VP of a\n'{s}' seat")
        ax.set_title(f"strategy: {s}", fontsize=10, loc="left")
        ax.grid(axis="y", alpha=0.3)
    _arm_axis(axes[-1], agg)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(
        handles, labels, loc="outside upper center", ncols=min(5, _legend_columns(fig, handles, labels)), fontsize=9
    )
    caption = (
        "Mean final VP of a seat playing each strategy, split by where the VP came from (losses such as blame "
        "stack below zero); the black diamond is the net mean VP."
    )
    return _save(fig, out_dir, "vp_split", "How the VP split", caption)


def win_rate_chart(agg: Aggregates, out_dir: Path) -> Chart | None:
    """Win rate per strategy and arm with 95 % Wilson intervals and the fair share of its seats (not drawn when
    one strategy plays every seat: it wins every game)."""
    if not several_strategies(agg):
        return None
    colors = strategy_colors(agg)
    fig = _figure(max(8, 1.1 * len(agg.arms) + 3), 4.8)
    ax = fig.subplots()
    pos = {a.index: i for i, a in enumerate(agg.arms)}
    rates = win_rates(agg)
    for s, dx in zip(agg.strategies, _dodge(len(agg.strategies), 0.4), strict=True):
        part = rates.filter(pl.col("strategy") == s)
        xs = np.array([pos[i] for i in part["arm_index"]]) + dx
        _errorbar(ax, xs, part["win"], part["lo"], part["hi"], marker="o", color=colors[s], label=s)
        ax.hlines(part["fair"], xs - 0.12, xs + 0.12, colors=[colors[s]], linestyles="dashed", linewidth=1.5)
    ax.plot([], [], color="grey", linestyle="dashed", label="fair share (its seats / players)")
    _arm_axis(ax, agg)
    ax.yaxis.set_major_formatter(UniquePercent())
    ax.set_ylabel("share of games won")
    ax.set_ylim(0, None)
    ax.grid(axis="y", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=_legend_columns(fig, handles, labels, 10))
    caption = (
        "Share of games won by the seats playing each strategy, with 95 % Wilson intervals; the dashed tick is its "
        "fair share (seats playing it / players): a point above its tick wins more than its seats alone explain."
    )
    return _save(fig, out_dir, "win_rates", "Win rate per strategy", caption)


def seat_chart(agg: Aggregates, out_dir: Path) -> Chart:
    """Seat advantage per arm (``summary.seat_advantage``: each seat against the seats playing the same strategy
    in the same seating), with 95 % intervals."""
    n = len(agg.arms)
    ncols = panel_columns(n)
    fig = _figure(max(7.5, 4 * ncols + 0.5), 3.0 * math.ceil(n / ncols) + 0.9)
    axes = _grid(fig, n, ncols, sharex=True, sharey=True)
    colors = arm_colors(agg)
    adv = seat_advantage(agg)
    for ax, arm in zip(axes, agg.arms, strict=True):
        part = adv.filter(pl.col("arm_index") == arm.index)
        seats = part["seat"].to_numpy() + 1
        ax.bar(seats, part["advantage"].fill_nan(None).fill_null(0), 0.6, color=colors[arm.index], alpha=0.75)
        _errorbar(ax, seats, part["advantage"], part["lo"], part["hi"], color="black")
        ax.axhline(0, color="black", linewidth=1)
        ax.set_title(arm.title(), fontsize=9)
        ax.set_xticks(seats)
        ax.yaxis.set_major_formatter(PointsFormatter())
        ax.grid(axis="y", alpha=0.3)
    fig.supxlabel("seat (from 1; the frames count from 0)")
    fig.supylabel("win rate above its peers' (pp)")
    caption = (
        "Seat advantage with 95 % intervals: how much more often each seat wins than the seats playing the same "
        "strategy in the same seating (with one strategy at the table, its excess over 1/players), so neither the "
        "strategy nor the table's composition that a rotation puts in a seat can pass for seat advantage."
    )
    return _save(fig, out_dir, "seat_wins", "Seat advantage", caption)


def capital_curve(arm: Arm, bids: dict, players: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Exact capital of a family whose bid total varies while the others bid the arm's mean bid."""
    if arm.rules is None or bids is None:
        return None
    grid = np.linspace(bids["bid_min"], bids["bid_max"], 200)
    totals = np.full((grid.size, players), bids["bid_mean"])
    totals[:, 0] = grid
    return grid, exact_capital(totals, arm.rules)[:, 0]


def capital_chart(agg: Aggregates, out_dir: Path) -> Chart:
    """Starting capital received against the family's bid total, with the arm's formula curve."""
    n = len(agg.arms)
    ncols = panel_columns(n)
    fig = _figure(max(7.5, 4.3 * ncols + 0.5), 3.2 * math.ceil(n / ncols) + 1.0)
    axes = _grid(fig, n, ncols, sharex=True, sharey=True)
    colors = strategy_colors(agg)
    bids = {r["arm_index"]: r for r in agg.bids.iter_rows(named=True)}
    rng = np.random.default_rng(0)
    sample = agg.capital
    for ax, arm in zip(axes, agg.arms, strict=True):
        part = sample.filter(pl.col("arm_index") == arm.index)
        part = part[rng.permutation(part.height)]  # no strategy drawn entirely on top of another
        y = part["starting_capital"].to_numpy() + rng.uniform(-0.2, 0.2, part.height)
        c = [colors[s] for s in part["strategy"]]
        ax.scatter(part["bid_total"], y, s=5, alpha=0.3, c=c, linewidths=0, rasterized=True)
        curve = capital_curve(arm, bids.get(arm.index), agg.players)
        if curve is not None:
            ax.plot(*curve, color="black", linewidth=1.8, label="formula (others bid the arm's mean)")
        ax.set_title(arm.title(), fontsize=9)
        ax.grid(alpha=0.3)
    fig.supxlabel("family's bid total (sum of its bids' final values)")
    fig.supylabel("starting capital received (£)")
    handles = [Line2D([], [], marker="o", linestyle="none", color=colors[s], label=s) for s in agg.strategies]
    handles += axes[0].get_legend_handles_labels()[0]
    fig.legend(handles=handles, loc="outside upper center", ncols=_legend_columns(fig, handles), fontsize=9)
    shown = sample.height // max(n, 1) // max(agg.players, 1)
    caption = (
        "Starting capital each family received (after rounding and leftover coins, jittered ±0.2 £ so the "
        f"dots do not overlap; about {shown:,} sampled games per arm) against its bid total, with the arm's exact "
        "formula for one family whose bid varies while the others bid the arm's mean bid."
    )
    return _save(fig, out_dir, "capital", "Starting capital vs bids", caption)


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def sweep_axes(agg: Aggregates) -> tuple[str | None, str | None]:
    """(x key, panel key) for the sweep chart: x the numeric key with most values; panels the other key."""
    keys = [
        k
        for k in agg.run.param_keys
        if all(a.params.get(k) is not None for a in agg.arms) and len({format_value(a.params[k]) for a in agg.arms}) > 1
    ]
    if not keys or len(keys) > 2:
        return None, None

    def numeric(k: str) -> bool:
        return all(_is_number(a.params[k]) for a in agg.arms)

    keys.sort(key=lambda k: (numeric(k), len({format_value(a.params.get(k)) for a in agg.arms})), reverse=True)
    return keys[0], keys[1] if len(keys) == 2 else None


def sweep_chart(agg: Aggregates, out_dir: Path) -> Chart | None:
    """Each strategy's win rate across the sweep: x = a swept parameter, panels = the other (if any); not drawn
    when one strategy plays every seat, nor for one arm (``win_rates.png`` says it)."""
    if not several_strategies(agg) or len(agg.arms) < 2:
        return None
    colors = strategy_colors(agg)
    x_key, panel_key = sweep_axes(agg)
    if panel_key:
        panel_values = list(dict.fromkeys(a.params[panel_key] for a in agg.arms))
    else:
        panel_values = [None]
    fig = _figure(min(14, 4.2 * len(panel_values) + 1.5) if x_key else max(8, 1.1 * len(agg.arms) + 3), 4.3)
    axes = _grid(fig, len(panel_values), len(panel_values), sharey=True)
    rates, top = win_rates(agg), 0.0
    for ax, value in zip(axes, panel_values, strict=True):
        arms = [a for a in agg.arms if panel_key is None or a.params[panel_key] == value]
        xs, numeric = np.arange(len(arms), dtype=float), False
        if x_key:
            xvals = [a.params[x_key] for a in arms]
            numeric = all(_is_number(v) for v in xvals)
            xs = np.array(xvals, dtype=float) if numeric else xs
            ax.set_xticks(xs, [format_value(v) for v in xvals])
        pos = {a.index: x for a, x in zip(arms, xs, strict=True)}
        for s, dx in zip(agg.strategies, _dodge(len(agg.strategies), 0.2), strict=True):
            part = rates.filter((pl.col("strategy") == s) & pl.col("arm_index").is_in(list(pos)))
            if part.is_empty():
                continue
            x = np.array([pos[i] for i in part["arm_index"]])
            order = np.argsort(x, kind="stable")
            part, x = part[order], x[order]
            if numeric:  # a numeric parameter: lines, bands and the fair share as a dashed line
                ax.plot(x, part["win"], marker="o", color=colors[s], label=s)
                ax.fill_between(x, part["lo"], part["hi"], color=colors[s], alpha=0.18)
                ax.plot(x, part["fair"], linestyle="dashed", color=colors[s], linewidth=1)
            else:  # categories: points with interval bars and fair-share ticks
                _errorbar(ax, x + dx, part["win"], part["lo"], part["hi"], marker="o", color=colors[s], label=s)
                ax.hlines(part["fair"], x + dx - 0.12, x + dx + 0.12, colors=[colors[s]], linestyles="dashed")
            top = max(top, float(part["hi"].max()))
        if panel_key:
            ax.set_title(f"{panel_key.rsplit('.', 1)[-1]} = {format_value(value)}", fontsize=10)
        if x_key:
            ax.set_xlabel(x_key)
        else:
            _arm_axis(ax, agg)
        ax.yaxis.set_major_formatter(UniquePercent())
        ax.grid(alpha=0.3)
    axes[0].set_ylim(0, min(1.0, top * 1.08 + 0.02))
    axes[0].set_ylabel("share of games won")
    _top_legend(
        fig, axes[0], [(axes[0].plot([], [], color="grey", linestyle="dashed")[0], "fair share (its seats / players)")]
    )
    what = f"across {x_key}" + (f", one panel per {panel_key}" if panel_key else "") if x_key else "across the arms"
    caption = (
        f"Each strategy's share of games won {what}, with 95 % Wilson intervals and its fair share dashed: the "
        "chart to read first when tuning the swept rules."
    )
    return _save(fig, out_dir, "win_sweep", "Win rate across the sweep", caption)


def game_length_chart(agg: Aggregates, out_dir: Path) -> Chart:
    """How each arm's games ended: crashed in round 1..R or survived the last round (100 % stacked bars)."""
    n = len(agg.arms)
    fig = _figure(12, max(3.2, 0.5 * n + 1.8))
    ax = fig.subplots()
    reds = colormaps["Reds"]
    segments = [(f"crashed in round {r}", r, True) for r in range(1, agg.rounds + 1)]
    segments.append((f"survived round {agg.rounds}", None, False))
    games = _games(agg)
    means = dict(agg.end_round.select("arm_index", "mean").iter_rows())
    y = np.arange(n)
    left = np.zeros(n)
    for k, (label, r, crashed) in enumerate(segments):
        color = reds(0.25 + 0.7 * k / max(agg.rounds - 1, 1)) if crashed else "tab:green"
        width = []
        for arm in agg.arms:
            cond = pl.col("crashed") == crashed
            if r is not None:
                cond &= pl.col("end_round") == r
            part = agg.outcomes.filter((pl.col("arm_index") == arm.index) & cond)
            width.append(part["games"].sum() / games[arm.index])
        ax.barh(y, width, left=left, color=color, label=label, edgecolor="white", linewidth=0.5)
        for yi, (l0, w) in enumerate(zip(left, width, strict=True)):
            if w >= 0.06:
                ax.text(
                    l0 + w / 2,
                    yi,
                    f"{w:.0%}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if (crashed and k > 2) or not crashed else "black",
                )
        left += np.array(width)
    for yi, arm in enumerate(agg.arms):
        ax.annotate(
            f"mean end round {means[arm.index]:.2f}",
            (1, yi),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )
    _arm_axis(ax, agg, "y")
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(UniquePercent())
    ax.set_xlabel("share of the arm's games")
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(
        handles, labels, loc="outside lower center", ncols=min(4, _legend_columns(fig, handles, labels, 8)), fontsize=8
    )
    caption = (
        f"How each arm's games ended: the share that crashed in each round (darker = later) and the share that "
        f"survived round {agg.rounds} (green), with the mean round the games ended in."
    )
    return _save(fig, out_dir, "game_length", "Game length and how games ended", caption)


# ---------------------------------------------------------------------------------------------- stability causes
CAUSE_COLORS = {
    "emergency": "tab:purple",
    "expectation": "tab:orange",
    "regions": "tab:red",
    "laws": "tab:blue",
    "unknown": "tab:gray",
}
CHANGE_COLORS = {
    "stability_loss_emergency": "tab:purple",
    "stability_loss_expectation": "tab:orange",
    "stability_loss_regions": "tab:red",
    "stability_loss_laws": "tab:blue",
    "stability_gain": "tab:green",
    "stability_gain_laws": "tab:olive",
}


def _panels(agg: Aggregates, width: float = 4.3, height: float = 3.0, extra: float = 1.1, **kw) -> tuple:
    """A figure with one panel per arm (rows of up to three) and its axes."""
    n = len(agg.arms)
    ncols = panel_columns(n)
    fig = _figure(max(7.5, width * ncols + 0.6), height * math.ceil(n / ncols) + extra)
    return fig, _grid(fig, n, ncols, **kw)


def comparison_chart(agg: Aggregates, out_dir: Path) -> Chart | None:
    """Forest plot: every arm's change against the reference arm, one panel per metric, paired 95 % intervals."""
    comp = agg.comparisons
    if comp is None or comp.is_empty():
        return None
    keys = list(dict.fromkeys(comp.select("metric", "strategy").iter_rows()))
    n = len(keys)
    ncols = min(3, n)
    arms = list(dict.fromkeys(comp["arm"]))
    rows = math.ceil(n / ncols)
    fig = _figure(max(7.5, 4.6 * ncols + 1.5), rows * (0.32 * len(arms) + 1.5) + 0.8)
    axes = _grid(fig, n, ncols, sharey=True)
    labels = {a.name: a.label for a in agg.arms}
    y = np.arange(len(arms))
    for ax, (metric, strategy) in zip(axes, keys, strict=True):
        part = comp.filter((pl.col("metric") == metric) & (pl.col("strategy").eq_missing(strategy)))
        pos = [arms.index(a) for a in part["arm"]]
        excludes = ((part["lo"] > 0) | (part["hi"] < 0)).to_list()
        colors = ["tab:red" if e else "tab:gray" for e in excludes]
        for yi, e, lo, hi, c in zip(pos, part["estimate"], part["lo"], part["hi"], colors, strict=True):
            _errorbar(ax, [yi], [e], [lo], [hi], horizontal=True, marker="o", color=c)
        ax.axvline(0, color="black", linewidth=1)
        ax.set_yticks(y, [_wrap(labels.get(a, a), 28) for a in arms], fontsize=8)
        ax.set_ylim(len(arms) - 0.5, -0.5)
        if metric in ("crash rate", "win rate"):
            ax.xaxis.set_major_formatter(PointsFormatter())
            ax.set_xlabel("change (percentage points)", fontsize=8)
        else:
            ax.set_xlabel("change" + (" (VP)" if metric == "mean VP" else " (rounds)"), fontsize=8)
        ax.set_title(metric + (f": {strategy}" if strategy else ""), fontsize=10)
        ax.grid(axis="x", alpha=0.3)
        ax.margins(x=0.15)
    ref = agg.arm_by_name(comp["reference"][0])
    caption = (
        f"Each arm's change against the reference arm ({ref.label if ref else comp['reference'][0]}) with 95 % "
        "intervals that use the pairing of the shared dice (paired Newcombe for proportions, paired t for means); "
        "red: the interval excludes zero."
    )
    return _save(fig, out_dir, "comparisons", "Changes against the reference arm", caption)


class PointsFormatter(PercentFormatter):
    """A change of a proportion in percentage points: ``+1.5``, ``−2``, distinct labels."""

    def __init__(self):
        super().__init__(1.0, decimals=0, symbol="")

    def format_ticks(self, values):
        decimals = _decimals(values)
        return [f"{100 * v:+.{decimals}f}".replace("-", "−") if abs(v) > 1e-12 else "0" for v in values]


def _wrap(text: str, width: int) -> str:
    import textwrap

    return textwrap.fill(text, width, break_long_words=False, break_on_hyphens=False)


def crash_cause_chart(agg: Aggregates, out_dir: Path) -> Chart:
    """Per arm: the share of its games that crashed in each round, split by the loss that took the last point."""
    fig, axes = _panels(agg, sharex=True, sharey=True)
    games = _games(agg)
    rounds = np.arange(1, agg.rounds + 1)
    causes = list(dict.fromkeys([*CAUSE_COLORS, *agg.crash_causes["cause"]]))
    tallest = 0.0
    for ax, arm in zip(axes, agg.arms, strict=True):
        part = agg.crash_causes.filter(pl.col("arm_index") == arm.index)
        bottom = np.zeros(rounds.size)
        for cause in causes:
            counts = dict(part.filter(pl.col("cause") == cause).select("round", "crashes").iter_rows())
            share = np.array([counts.get(r, 0) for r in rounds]) / games[arm.index]
            if share.any() or cause in CAUSE_COLORS and cause != "unknown":
                ax.bar(rounds, share, 0.7, bottom=bottom, color=CAUSE_COLORS.get(cause, "black"), label=cause)
            bottom += share
        tallest = max(tallest, bottom.max())
        ax.set_title(arm.title(), fontsize=9)
        ax.set_xticks(rounds)
        _pct_axis(ax.yaxis)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylim(0, tallest * 1.12 or 1)  # shared: headroom above the tallest bar in every panel
    fig.supxlabel("round of the crash")
    fig.supylabel("share of the arm's games")
    handles, labels = axes[0].get_legend_handles_labels()
    names = {
        "emergency": "emergency loans",
        "expectation": "profit below expectation",
        "regions": "regions lost",
        "laws": "laws (Impeachment! failed)",
    }
    labels = [names.get(x, x) for x in labels]
    fig.legend(handles, labels, loc="outside upper center", ncols=_legend_columns(fig, handles, labels), fontsize=9)
    caption = (
        "Why games crash: the share of each arm's games that crashed in each round, split by the stability loss "
        "that took the Company's last point (phase 7's emergency loans or missed expectation, phase 8's lost "
        "regions, phase 9's laws)."
    )
    return _save(fig, out_dir, "crash_causes", "Crash causes by round", caption)


def stability_cause_chart(agg: Aggregates, out_dir: Path) -> Chart:
    """Per arm: the mean stability change per running game in each round, by cause (losses below zero)."""
    from .summary import stability_changes

    fig, axes = _panels(agg, sharex=True, sharey=True)
    changes = stability_changes(agg)
    rounds = np.arange(1, agg.rounds + 1)
    for ax, arm in zip(axes, agg.arms, strict=True):
        part = changes.filter(pl.col("arm_index") == arm.index)
        pos, neg = np.zeros(rounds.size), np.zeros(rounds.size)
        net = np.zeros(rounds.size)
        for cause, color in CHANGE_COLORS.items():
            means = dict(part.filter(pl.col("cause") == cause).select("round", "mean").iter_rows())
            v = np.array([means.get(r, 0.0) for r in rounds])
            base = np.where(v >= 0, pos, neg)
            label = cause.removeprefix("stability_").replace("_", " ")
            ax.bar(rounds, v, 0.7, bottom=base, color=color, label=label, edgecolor="white", linewidth=0.4)
            pos += np.clip(v, 0, None)
            neg += np.clip(v, None, 0)
            net += v
        played = set(part["round"].to_list())
        mask = np.array([r in played for r in rounds])
        ax.plot(rounds[mask], net[mask], color="black", marker="D", markersize=4, linewidth=1.4, label="net change")
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_title(arm.title(), fontsize=9)
        ax.set_xticks(rounds)
        ax.grid(axis="y", alpha=0.3)
    fig.supxlabel("round")
    fig.supylabel("mean stability change per running game")
    _top_legend(fig, axes[0])
    caption = (
        "Where stability goes: the mean change per game still running in each round, by cause (losses stacked below "
        "zero, gains from dividends and laws above), with the net change as the black line."
    )
    return _save(fig, out_dir, "stability_causes", "Stability changes by cause", caption)


ECONOMY_TITLES = {
    "treasuries": "committee treasuries at the end of the round (£)",
    "balance": "Company balance at the end of the round (£)",
    "revenue": "revenue in the round: trade + China (£)",
    "costs": "Company costs paid in the round (£)",
    "loans": "loans outstanding at the end of the round",
    "dividends": "dividends paid in the round (£)",
}


def economy_chart(agg: Aggregates, out_dir: Path) -> Chart:
    """The Company's economy by round: median and 10-90 % band of six series per arm."""
    from .summary import economy_quantiles

    q = economy_quantiles(agg)
    colors = arm_colors(agg)
    fig = _figure(13.5, 7.6)
    axes = _grid(fig, len(ECONOMY_TITLES), 3, sharex=True)
    rounds = np.arange(1, agg.rounds + 1)
    for ax, (series, title) in zip(axes, ECONOMY_TITLES.items(), strict=True):
        for arm in agg.arms:
            part = q.filter((pl.col("arm_index") == arm.index) & (pl.col("series") == series))
            c = colors[arm.index]
            ax.plot(part["round"], part["q50"], color=c, marker="o", markersize=3, label=arm.label)
            ax.fill_between(part["round"], part["q10"], part["q90"], color=c, alpha=0.12, step=None)
        ax.set_title(title, fontsize=9)
        ax.set_xticks(rounds)
        ax.set_ylim(0, None)
        ax.grid(alpha=0.3)
    fig.supxlabel("round (games still running at its end)")
    handles, labels = axes[0].get_legend_handles_labels()
    if len(agg.arms) > 1:
        ncols = min(3, _legend_columns(fig, handles, labels, 8))
        fig.legend(handles, labels, loc="outside upper center", ncols=ncols, fontsize=8)
    caption = (
        "The Company's economy round by round: the median (line) and the 10th to 90th percentiles (band) over the "
        "games still running at the end of the round, per arm."
    )
    return _save(fig, out_dir, "economy", "The economy by round", caption)


OUTCOME_COLORS = {"survived": "tab:green", "crashed": "tab:red"}
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def vp_outcome_chart(agg: Aggregates, out_dir: Path) -> Chart:
    """Mean VP by source for crashed and surviving games, per strategy and arm, with 95 % intervals."""
    from .summary import vp_by_outcome

    df = vp_by_outcome(agg)
    sources = ["total", *[s for s in VP_SOURCES if s not in agg.zero_sources]]
    fig, axes = _panels(agg, width=5.2, height=3.2, sharey=True)
    x = np.arange(len(sources))
    series = [(s, o) for s in agg.strategies for o in ("survived", "crashed")]
    offsets = _dodge(len(series), 0.7)
    for ax, arm in zip(axes, agg.arms, strict=True):
        for (strategy, outcome), dx in zip(series, offsets, strict=True):
            part = df.filter(
                (pl.col("arm_index") == arm.index) & (pl.col("strategy") == strategy) & (pl.col("outcome") == outcome)
            )
            if part.is_empty():
                continue
            rows = {r["source"]: r for r in part.iter_rows(named=True)}
            m = np.array([rows[src]["mean"] if src in rows else np.nan for src in sources])
            lo = np.array([rows[src]["lo"] if src in rows else np.nan for src in sources])
            hi = np.array([rows[src]["hi"] if src in rows else np.nan for src in sources])
            marker = MARKERS[agg.strategies.index(strategy) % len(MARKERS)]
            lo, hi = np.where(np.isnan(lo), m, lo), np.where(np.isnan(hi), m, hi)
            color, label = OUTCOME_COLORS[outcome], f"{strategy}, {outcome}"
            _errorbar(ax, x + dx, m, lo, hi, marker=marker, markersize=4, color=color, label=label)
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_xticks(x, [src.replace("_", " ") for src in sources], rotation=40, ha="right", fontsize=8)
        ax.set_title(arm.title(), fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    fig.supylabel("mean final VP of a seat")
    _top_legend(fig, axes[0])
    caption = (
        "Mean final VP of a seat by source, in games that crashed (red) and games that survived (green), one marker "
        "shape per strategy, with 95 % Student-t intervals; sources that are 0 in every game are left out."
    )
    return _save(fig, out_dir, "vp_outcome", "VP by source: crashed or survived", caption)


def vp_distribution_chart(agg: Aggregates, out_dir: Path) -> Chart:
    """The distribution of final VP per strategy and arm (share of its seats), with the median marked."""
    colors = strategy_colors(agg)
    fig, axes = _panels(agg, sharex=True, sharey=True)
    for ax, arm in zip(axes, agg.arms, strict=True):
        for s in agg.strategies:
            part = agg.vp_values.filter((pl.col("arm_index") == arm.index) & (pl.col("strategy") == s)).sort("vp")
            if part.is_empty():
                continue
            v, c = part["vp"].to_numpy(), part["seats"].to_numpy().astype(float)
            ax.step(v, c / c.sum(), where="mid", color=colors[s], label=s, linewidth=1.6)
            ax.axvline(quantile_from_counts(v, c, 0.5), color=colors[s], linestyle="dashed", linewidth=1)
        ax.set_title(arm.title(), fontsize=9)
        _pct_axis(ax.yaxis)
        ax.grid(alpha=0.3)
    fig.supxlabel("final VP of a seat")
    fig.supylabel("share of the strategy's seats")
    _top_legend(fig, axes[0], [(Line2D([], [], color="grey", linestyle="dashed"), "median")])
    caption = (
        "How final VP are spread: for each strategy the share of its seats ending on each VP total, with its median "
        "dashed, per arm."
    )
    return _save(fig, out_dir, "vp_distribution", "VP distributions", caption)


def margin_chart(agg: Aggregates, out_dir: Path) -> Chart:
    """Winning margins (winner's VP - the runner-up's) per winning strategy and arm, as shares of its wins."""
    colors = strategy_colors(agg)
    fig, axes = _panels(agg, sharex=True, sharey=True)
    for ax, arm in zip(axes, agg.arms, strict=True):
        strategies = [
            s for s in agg.strategies if s in set(agg.margins.filter(pl.col("arm_index") == arm.index)["strategy"])
        ]
        for s, dx in zip(strategies, _dodge(len(strategies), 0.5), strict=True):
            part = agg.margins.filter((pl.col("arm_index") == arm.index) & (pl.col("strategy") == s)).sort("margin")
            v, c = part["margin"].to_numpy(), part["games"].to_numpy().astype(float)
            width = 0.6 / max(len(strategies), 1)
            ax.bar(v + dx, c / c.sum(), width, color=colors[s], label=s)
        ax.set_title(arm.title(), fontsize=9)
        _pct_axis(ax.yaxis)
        ax.grid(axis="y", alpha=0.3)
    fig.supxlabel("winning margin: the winner's VP − the runner-up's")
    fig.supylabel("share of the strategy's wins")
    _top_legend(fig, axes[0])
    caption = (
        "How close games are: the winner's VP minus the runner-up's, as shares of the games each strategy won, per "
        "arm (a margin of 0 is a tie the tie-breakers settled)."
    )
    return _save(fig, out_dir, "margins", "Winning margins", caption)


def capital_win_chart(agg: Aggregates, out_dir: Path) -> Chart:
    """Win rate of a seat against its bid total and against its starting capital, per strategy and arm."""
    from .summary import capital_win_rates

    df = capital_win_rates(agg)
    colors = strategy_colors(agg)
    n = len(agg.arms)
    fig = _figure(11, 2.9 * n + 1.2)
    axes = fig.subplots(n, 2, squeeze=False, sharey=True)
    for row, arm in zip(axes, agg.arms, strict=True):
        for ax, by, title in zip(
            row, ("bid_total", "starting_capital"), ("bid total", "starting capital (£)"), strict=True
        ):
            for s in agg.strategies:
                part = df.filter((pl.col("arm_index") == arm.index) & (pl.col("strategy") == s) & (pl.col("by") == by))
                if part.is_empty():
                    continue
                ax.plot(part["mid"], part["win"], marker="o", markersize=4, color=colors[s], label=s)
                ax.fill_between(part["mid"], part["lo"], part["hi"], color=colors[s], alpha=0.15)
            ax.axhline(1 / agg.players, color="black", linestyle="dashed", linewidth=1, label="1 / players")
            ax.set_title(f"{arm.title(60)}: by {title}", fontsize=9)
            ax.set_xlabel(title, fontsize=8)
            _pct_axis(ax.yaxis)
            ax.set_ylim(0, None)
            ax.grid(alpha=0.3)
    fig.supylabel("share of its games a seat won")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=_legend_columns(fig, handles, labels), fontsize=9)
    caption = (
        "What bidding and capital buy: the win rate of a seat against its bid total (left) and its starting capital "
        "(right), in ranges of about equal numbers of seats, per strategy with 95 % Wilson bands; dashed: 1/players."
    )
    return _save(fig, out_dir, "capital_wins", "Win rate against bids and capital", caption)


CHARTS: list[Callable[[Aggregates, Path], Chart | None]] = [
    comparison_chart,
    stability_chart,
    crash_chart,
    crash_cause_chart,
    stability_cause_chart,
    economy_chart,
    vp_chart,
    vp_outcome_chart,
    vp_distribution_chart,
    margin_chart,
    win_rate_chart,
    seat_chart,
    capital_chart,
    capital_win_chart,
    sweep_chart,
    game_length_chart,
]


def draw_all(agg: Aggregates, out_dir: Path, progress: Callable[..., None] | None = None) -> list[Chart]:
    """Draw every chart that applies into ``out_dir`` (RUN_DIR/charts) and return them in report order (a
    comparison needs two arms; win rates need two strategies). A chart no longer drawn is removed. ``progress`` is
    told ``("charts", drawn, all)`` before the first chart and after each."""
    out = []
    for i, chart in enumerate(CHARTS):
        if progress:
            progress("charts", i, len(CHARTS))
        drawn = chart(agg, out_dir)
        if drawn is None:
            stale = Path(out_dir) / f"{CHART_NAMES[chart.__name__]}.png"
            stale.unlink(missing_ok=True)
        else:
            out.append(drawn)
    if progress:
        progress("charts", len(CHARTS), len(CHARTS))
    return out


CHART_NAMES = {
    "comparison_chart": "comparisons",
    "win_rate_chart": "win_rates",
    "sweep_chart": "win_sweep",
}
