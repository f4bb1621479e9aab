"""reports/charts.py: every title, label and legend of every chart inside its canvas, tick labels distinct and
saying their value (percent, points, capital), room above the tallest bar, and the charts a run leaves out (no
win-rate charts when one strategy plays every seat, no sweep chart for one arm)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import polars as pl
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text
from reports_fixture import make_run

from reports import charts
from reports.data import aggregate


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    """One arm, two strategies rotated: the layout of a plain `eastindia run --strategy x --strategy y`."""
    return aggregate(make_run(tmp_path_factory.mktemp("single"), [{}], games=60, seed=2, rotations=2))


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    arms = [{"capital.formula": "flat", "capital.budget_per_player": b} for b in (5, 6, 7)]  # one row of three
    return aggregate(make_run(tmp_path_factory.mktemp("many"), arms, games=40, seed=2, rotations=2))


def drawn(monkeypatch, chart, agg, out: Path):
    """Draw ``chart`` and return its (drawn) figure."""
    seen = {}
    save = charts._save

    def keep(fig, *args, **kw):
        seen["fig"] = fig
        return save(fig, *args, **kw)

    monkeypatch.setattr(charts, "_save", keep)
    if chart(agg, out) is None:
        return None
    fig = seen["fig"]
    fig.canvas.draw()
    return fig


def tick_labels(axis) -> list[Text]:
    """The labels of the major ticks inside the axis's view (others are not drawn)."""
    lo, hi = sorted(axis.get_view_interval())
    slack = 1e-9 * max(1.0, abs(hi - lo))
    return [
        t.label1 for t in axis.get_major_ticks() if lo - slack <= t.get_loc() <= hi + slack and t.label1.get_visible()
    ]


def visible_texts(fig) -> list[Text]:
    texts = [t for ax in fig.axes if ax.get_visible() for axis in (ax.xaxis, ax.yaxis) for t in tick_labels(axis)]
    texts += [t for ax in fig.axes for t in (ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label)]
    texts += [t for legend in fig.legends for t in legend.get_texts()]
    texts += [t for t in (fig._supxlabel, fig._supylabel, fig._suptitle) if t is not None]
    return [t for t in texts if t.get_visible() and t.get_text().strip()]


@pytest.mark.parametrize("which", ["single", "many"])
def test_no_label_or_legend_is_clipped(which, request, monkeypatch, tmp_path):
    """Every title, axis label, tick label and legend entry of every chart lies inside its canvas, for one arm as for
    many (the x label and legend of a single-arm seat_wins.png and capital.png among them)."""
    agg = request.getfixturevalue(which)
    clipped = []
    for chart in charts.CHARTS:
        fig = drawn(monkeypatch, chart, agg, tmp_path)
        if fig is None:
            continue
        width, height = fig.bbox.width, fig.bbox.height
        renderer = fig.canvas.get_renderer()
        for text in visible_texts(fig):
            box = text.get_window_extent(renderer)
            if not (box.x0 >= -2 and box.x1 <= width + 2 and box.y0 >= -2 and box.y1 <= height + 2):
                clipped.append(f"{chart.__name__}: {text.get_text()!r} at {box} outside {width:.0f} x {height:.0f}")
    assert clipped == [], "\n".join(clipped)


def test_crash_rate_axes_have_distinct_tick_labels(many, monkeypatch, tmp_path):
    """5,000 games per arm crashing 2.1-2.8 %: ticks every 0.25 % must not all read "2 %" and "3 %"."""
    crashes = [105, 125, 140]
    rows = []
    for arm, k in enumerate(crashes):
        rows += [(arm, 3, True, k), (arm, 7, False, 5000 - k)]
    outcomes = pl.DataFrame(rows, schema=["arm_index", "end_round", "crashed", "games"], orient="row").with_columns(
        pl.col("arm_index").cast(pl.Int32), pl.col("end_round").cast(pl.Int8)
    )
    end = pl.DataFrame({"arm_index": [0, 1, 2], "games": [5000] * 3, "mean": [6.9] * 3, "std": [0.5] * 3})
    fake = dataclasses.replace(many, outcomes=outcomes, end_round=end.with_columns(pl.col("arm_index").cast(pl.Int32)))
    fig = drawn(monkeypatch, charts.crash_chart, fake, tmp_path)
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            labels = [t.get_text() for t in tick_labels(axis) if t.get_text()]
            if any("%" in x for x in labels):
                assert len(labels) == len(set(labels)), labels


def test_percent_ticks_say_their_value_and_stay_distinct():
    """A proportion axis in percent: ticks at 2.5, 7.5, 12.5, 17.5 % are labelled so (not 2, 8, 12, 18 %), whole
    percents keep no decimals, an axis spanning 2-3 % stays distinct; changes in points likewise."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    charts._pct_axis(ax.yaxis)
    ticks = ax.yaxis.get_major_formatter().format_ticks
    assert ticks([0.025, 0.075, 0.125, 0.175]) == ["2.5%", "7.5%", "12.5%", "17.5%"]
    assert ticks([0.0, 0.1, 0.2, 0.30000000000000004]) == ["0%", "10%", "20%", "30%"]
    assert ticks([0.02, 0.025, 0.03]) == ["2.0%", "2.5%", "3.0%"]
    assert charts.PointsFormatter().format_ticks([-0.025, 0.0, 0.025]) == ["−2.5", "0", "+2.5"]
    plt.close(fig)


def test_the_tallest_crash_cause_bar_keeps_clear_of_the_frame(tmp_path, monkeypatch):
    """The crash-cause panels leave at least a tenth of the tallest bar's height above it."""
    seen = []
    save = charts._save

    def spy(fig, *args, **kwargs):
        for ax in fig.axes:
            if ax.patches:
                seen.append((ax.get_ylim()[1], max(p.get_y() + p.get_height() for p in ax.patches)))
        return save(fig, *args, **kwargs)

    monkeypatch.setattr(charts, "_save", spy)
    charts.crash_cause_chart(aggregate(make_run(tmp_path / "r", [{}], games=60, seed=1)), tmp_path / "c")
    assert seen and all(top >= 1.1 * tallest > 0 for top, tallest in seen)


@pytest.mark.parametrize("chart", [charts.capital_win_chart, charts.capital_chart])
def test_capital_axes_keep_their_tick_labels_apart_when_every_seat_gets_the_same(chart, many, monkeypatch, tmp_path):
    """Under the flat formula every seat gets 6 £: the capital axis must not crowd ticks 0.01 £ apart."""
    fig = drawn(monkeypatch, chart, many, tmp_path)
    renderer = fig.canvas.get_renderer()
    for axis in (axis for ax in fig.axes for axis in (ax.xaxis, ax.yaxis)):
        labels = [t for t in tick_labels(axis) if t.get_text()]
        texts = [t.get_text() for t in labels]
        assert len(texts) == len(set(texts)), texts
        boxes = [t.get_window_extent(renderer) for t in labels]
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :]), texts


def test_single_strategy_runs_draw_no_win_rate_charts(tmp_path):
    run_dir = make_run(tmp_path / "solo", [{}], games=40, seed=1, strategies=["balanced"] * 5, rotations=1)
    agg = aggregate(run_dir)
    (run_dir / "charts").mkdir()
    (run_dir / "charts" / "win_rates.png").write_bytes(b"stale")
    names = {c.name for c in charts.draw_all(agg, run_dir / "charts")}
    assert "win_rates" not in names and "win_sweep" not in names and "comparisons" not in names
    assert not (run_dir / "charts" / "win_rates.png").exists()  # a stale chart of an earlier report is gone
    assert {"seat_wins", "crash_causes", "economy"} <= names


def test_the_sweep_chart_is_not_drawn_for_one_arm(single, monkeypatch, tmp_path):
    """With one arm the sweep chart would repeat win_rates.png: it is left out."""
    assert drawn(monkeypatch, charts.sweep_chart, single, tmp_path) is None


@pytest.mark.parametrize("which", ["single", "many"])
def test_a_chart_laid_out_once_is_the_chart_laid_out_while_saving(which, request, monkeypatch, tmp_path):
    """``_save`` runs the constrained layout itself and fixes it, so that ``savefig`` draws the figure once instead
    of twice: every chart's PNG is the same bytes as when ``savefig`` lays it out."""
    agg = request.getfixturevalue(which)
    for folder in ("once", "twice"):
        (tmp_path / folder / "charts").mkdir(parents=True)
    draws = []
    draw = Figure.draw
    monkeypatch.setattr(Figure, "draw", lambda fig, renderer: draws.append(fig) or draw(fig, renderer))
    once = charts.draw_all(agg, tmp_path / "once" / "charts")
    assert len(draws) == len(once) >= 12  # each figure drawn once
    monkeypatch.setattr(charts, "_lay_out", lambda fig: None)
    twice = charts.draw_all(agg, tmp_path / "twice" / "charts")
    assert len(draws) == 3 * len(once) and [c.name for c in once] == [c.name for c in twice]
    for a, b in zip(once, twice, strict=True):
        assert a.path.read_bytes() == b.path.read_bytes(), a.name
