"""The terminal summary of a run (``reports.terminal``, printed by ``eastindia run`` and ``eastindia report``): a run
of several arms is one table, an arm a row, with its crash rate, the paired change against the reference arm and its
95 % interval (the run's comparisons, not a second interval), its end round and win rates, in 40 lines or fewer for
nine arms (capital formula x budget per player, R-CAPITAL); a pipe or a file gets every row on one line; a narrow
terminal gets the strategy that wins most instead of a column per strategy; one arm keeps a compact table."""

import io

import polars as pl
import pytest
from reports_fixture import grid, make_run
from rich.console import Console

from experiments.runfolder import Run
from experiments.stats import CRASH, change, pct
from reports import terminal
from reports.compare import comparisons
from reports.report import COMPARISONS
from reports.summary import arm_summary

FIVE = ["bid_low", "buy_shares", "run_firm", "go_military", "balanced"]
NINE = grid(capital__formula=["inverse_share", "flat", "linear"], capital__budget_per_player=[5, 6, 7])


@pytest.fixture(scope="module")
def nine(tmp_path_factory):
    """Nine arms of 20 games, the five strategies rotated over the seats (as capital_formulas.toml, smaller)."""
    return make_run(tmp_path_factory.mktemp("nine") / "run", NINE, games=20, seed=3, strategies=FIVE, name="formulas")


def printed(run, width: int | None = None) -> list[str]:
    """What print_summary writes: on a terminal ``width`` wide, else (None) into a pipe (``make_console``)."""
    if width is None:
        buf = io.StringIO()  # not a terminal
        terminal.print_summary(run, terminal.make_console(file=buf))
    else:
        buf = io.StringIO()
        terminal.print_summary(run, Console(file=buf, width=width, force_terminal=True, color_system=None))
    return [line.rstrip() for line in buf.getvalue().splitlines()]


def arm_rows(lines: list[str], labels: list[str]) -> dict[str, str]:
    """The line of each arm's row (the one line that starts with its label)."""
    rows = {}
    for label in labels:
        mine = [line for line in lines if line.strip().startswith(label + " ")]
        assert len(mine) == 1, (label, mine)
        rows[label] = mine[0]
    return rows


def test_nine_arms_are_one_table_of_an_arm_a_row_with_the_paired_change_against_the_reference(nine):
    """Each row holds the arm's crash rate, its crash change against the reference with the 95 % interval of the
    run's paired comparison (reports.compare.comparisons, the report's own), its end round and each strategy's win
    rate; the reference's row says it is the reference; 40 lines or fewer (they were 111, a table per arm)."""
    run = Run.open(nine)
    lines = printed(run)
    assert len(lines) <= 40
    assert lines[0] == "formulas: 9 arms, 20 games each"
    assert sum("crash change" in line for line in lines[:3]) == 1  # one header: one table
    comp = comparisons(run).filter(pl.col("metric") == CRASH)
    reference = "capital.formula=inverse_share, capital.budget_per_player=5"  # the first arm
    assert set(comp["reference"]) == {reference} and comp.height == 8
    labels = [f"{f} · {b}" for f in ("inverse_share", "flat", "linear") for b in (5, 6, 7)]
    rows = arm_rows(lines, labels)
    summary = {r["arm"]: r for r in arm_summary(run).iter_rows(named=True)}
    for label, (name, r) in zip(labels, summary.items(), strict=True):
        if name == reference:
            moved = "reference"
        else:
            c = comp.filter(pl.col("arm") == name).row(0, named=True)
            moved = change(c["estimate"], c["lo"], c["hi"])
        wins = [pct(r[f"win_{s}"]) for s in FIVE]
        expected = [label, pct(r["crash_rate"]), moved, f"{r['mean_end_round']:.2f}", *wins]
        assert " ".join(rows[label].split()) == " ".join(expected)
    assert "crash change: the arm's crash rate minus the reference's (inverse_share · 5)" in "\n".join(lines)
    assert "the fair share is 20.0 %" in lines[-1]


def test_a_pipe_gets_every_row_and_title_on_one_line(nine, tmp_path):
    """Not a terminal: nothing wraps at 80 (or 65) columns, whatever the table's width; so a one-arm run's long title
    and a nine-arm row each stay on one line."""
    lines = printed(Run.open(nine))
    assert max(len(line) for line in lines) > 80  # the rows are wider than a default console, and not wrapped
    rows = arm_rows(lines, ["linear · 7"])
    assert len(rows["linear · 7"].split()) == 3 + 1 + 6 + 1 + len(FIVE) * 2  # label, crash, change, end, wins
    one = make_run(tmp_path / "one", [NINE[0]], games=10, seed=3, strategies=FIVE)
    lines = printed(Run.open(one))
    assert lines[0] == "capital.formula=inverse_share, capital.budget_per_player=5  (10 games)"


def test_a_narrow_terminal_gets_the_strategy_that_wins_most_and_no_line_wider_than_itself(nine):
    """At 80 columns a column per strategy would not fit: one column names the strategy winning most (its win
    rate), and every row is still one line within the width."""
    run = Run.open(nine)
    lines = printed(run, width=80)
    assert max(len(line) for line in lines[:-3]) <= 80  # the notes below the table are left to the terminal's wrap
    assert any("most wins" in line for line in lines[:3])
    summary = {r["arm"]: r for r in arm_summary(run).iter_rows(named=True)}
    rows = arm_rows(lines, ["flat · 6"])
    r = summary["capital.formula=flat, capital.budget_per_player=6"]
    best = max(FIVE, key=lambda s: r[f"win_{s}"])
    assert rows["flat · 6"].endswith(f"{best} {pct(r[f'win_{best}'])}")
    wide = printed(run, width=200)  # a wide terminal: a column per strategy
    assert not any("most wins" in line for line in wide) and all(s in "\n".join(wide[:3]) for s in FIVE)


def test_the_saved_comparisons_are_read_only_when_they_compare_these_arms_with_this_reference(nine, tmp_path):
    """The report's comparisons.parquet is reused when it pairs every arm with the run's reference on every game;
    written against another reference it is not (the terminal then compares afresh)."""
    import shutil

    folder = tmp_path / "copy"
    shutil.copytree(nine, folder)
    run = Run.open(folder)
    saved = comparisons(run).with_columns(pl.lit(0.5).alias("estimate"), pl.lit(0.25).alias("lo"))
    saved.write_parquet(folder / COMPARISONS)
    assert change(0.5, 0.25, saved["hi"][0]) in "\n".join(printed(run))  # the saved ones, as they say the same games
    other = comparisons(run, reference="1").with_columns(pl.lit(0.5).alias("estimate"), pl.lit(0.25).alias("lo"))
    other.write_parquet(folder / COMPARISONS)
    assert "+50.0 pp" not in "\n".join(printed(run))  # another reference: computed afresh


def test_one_arm_keeps_a_compact_table_with_intervals_and_fair_shares(tmp_path):
    """One arm: crash rate, end round and each strategy's win rate with its 95 % interval and fair share."""
    one = make_run(tmp_path / "one", [{}], games=30, seed=4, strategies=FIVE, name="one")
    r = arm_summary(Run.open(one)).row(0, named=True)
    lines = printed(Run.open(one))
    assert len(lines) <= 12
    text = "\n".join(lines)
    assert f"{100 * r['crash_lo']:.1f}–{100 * r['crash_hi']:.1f} %" in text
    for s in FIVE:
        row = next(line for line in lines if f"win rate: {s} " in line)
        assert row.split()[3:5] == pct(r[f"win_{s}"]).split()
        assert f"{100 * r[f'win_{s}_lo']:.1f}–{100 * r[f'win_{s}_hi']:.1f} %" in row and row.endswith("20.0 %")
