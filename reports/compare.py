"""Comparisons of arms and of runs, paired on the games they share, each effect once.

The statistics themselves (intervals, pairing, per-game tables, precision targets) live in ``experiments.stats``, the
layer both the runner and the reports use; this module re-exports them for the reports and adds the comparison of
two run folders (``eastindia compare``): ``compare_runs``.

``comparisons.parquet`` (in the run folder, written by ``write_report``) has the columns ``COLUMNS``: ``arm,
reference`` (arm names), ``metric``, ``strategy`` (null for whole-game metrics), ``estimate`` (arm − reference),
``lo, hi`` (95 %), ``method``, ``n`` (games paired, or the two sides' games summed when independent), then
``arm_value, reference_value``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl

from experiments.runfolder import Run, arm_choices, pick_arm
from experiments.stats import (
    COLUMNS,
    CRASH,
    END,
    METHODS,
    METRICS,
    PROPORTIONS,
    SCHEMA,
    VP,
    WIN,
    Headline,
    Measure,
    Plan,
    Precision,
    Sums,
    add_sums,
    chunks,
    comparison_frame,
    comparison_row,
    comparisons,
    game_range,
    game_table,
    indicators,
    measures,
    pair_measures,
    plan,
    precision_of,
)

from .data import check_frames

__all__ = [
    "COLUMNS",
    "CRASH",
    "END",
    "METHODS",
    "METRICS",
    "PROPORTIONS",
    "SCHEMA",
    "VP",
    "WIN",
    "Headline",
    "Measure",
    "Plan",
    "Precision",
    "Sums",
    "chunks",
    "compare_runs",
    "comparisons",
    "game_range",
    "game_table",
    "indicators",
    "match_arms",
    "measures",
    "pair_measures",
    "plan",
    "precision_of",
    "shared_games",
]


def shared_games(a: Run, b: Run) -> bool:
    """Do the two runs play the same games (same seed and players: game i has the same dice in both)?"""
    return a.meta.get("seed") == b.meta.get("seed") and a.meta.get("players") == b.meta.get("players")


def _arm_list(run: Run) -> str:
    return arm_choices([x["arm"] for x in sorted(run.arms, key=lambda x: x["index"])])


def _chosen(run: Run, arm: str | int) -> dict | None:
    """The arm of ``run`` that ``arm`` names (its name, else its index), None if none."""
    arms = sorted(run.arms, key=lambda x: x["index"])
    name = pick_arm([x["arm"] for x in arms], arm)
    return next((x for x in arms if x["arm"] == name), None)


def match_arms(a: Run, b: Run, arm: str | int | None = None) -> list[tuple[dict, dict]]:
    """Arms of B with their counterpart in A: by name; else, with no name in common, by index when both runs have
    as many arms (one arm each: those two). With ``arm`` (a name or an index), one pair: in a run of several arms the
    arm it names, in a run of one arm that arm (``eastindia compare --arm``: a one-arm run against one arm of a
    sweep). Raises ValueError when a run of several arms has no such arm, or, with two runs of one arm, neither
    arm is the one named."""
    if arm is None:
        arms_a = sorted(a.arms, key=lambda x: x["index"])
        arms_b = sorted(b.arms, key=lambda x: x["index"])
        by_name = {x["arm"]: x for x in arms_a}
        pairs = [(by_name[y["arm"]], y) for y in arms_b if y["arm"] in by_name]
        if not pairs and len(arms_a) == len(arms_b):
            pairs = list(zip(arms_a, arms_b, strict=True))
        return pairs
    several = [run for run in (a, b) if len(run.arms) > 1]
    if not several and _chosen(a, arm) is None and _chosen(b, arm) is None:
        raise ValueError(
            f"--arm {arm!r}: neither {a.path} ({_arm_list(a)}) nor {b.path} ({_arm_list(b)}) has such an arm"
        )
    pair = []
    for run in (a, b):
        chosen = _chosen(run, arm) if run in several else sorted(run.arms, key=lambda x: x["index"])[0]
        if chosen is None:
            raise ValueError(
                f"--arm {arm!r}: no such arm in {run.path}: name one of its arms or give its index ({_arm_list(run)})"
            )
        pair.append(chosen)
    return [(pair[0], pair[1])]


def compare_runs(
    a: Run | str | Path,
    b: Run | str | Path,
    unpaired: bool = False,
    arm: str | int | None = None,
    progress: Callable[..., None] | None = None,
) -> pl.DataFrame:
    """Each arm of run B against its counterpart in run A (``match_arms``; A is the reference; with ``arm``, the arm
    it names in the run of several arms against the other run's arm): paired on the games both play when the runs
    share their games (``shared_games``), else (or with ``unpaired``) as independent samples. Runs of different player
    counts are refused unless ``unpaired``: their games share ids but not their tables. The ``arm`` and
    ``reference`` columns read ``B: <arm>`` and ``A: <arm>``. ``progress`` (``reports.report.Progress``) is told each
    pair of arms compared, once the runs have passed their checks."""
    a = a if isinstance(a, Run) else Run.open(a)
    b = b if isinstance(b, Run) else Run.open(b)
    for run in (a, b):
        check_frames(run)
    players_a, players_b = a.meta.get("players"), b.meta.get("players")
    if players_a != players_b and not unpaired:
        raise ValueError(
            f"{a.path} plays {players_a} players, {b.path} {players_b}: their games cannot be paired; "
            "compare them as independent samples with --unpaired"
        )
    pairs = match_arms(a, b, arm)
    if not pairs:
        several = next(run for run in (a, b) if len(run.arms) > 1)  # (runs of as many arms pair by index)
        raise ValueError(
            f"no arm of {b.path} matches one of {a.path} by name, and the runs have different numbers of arms; "
            f"name the arm of {several.path} to compare with --arm NAME_OR_INDEX ({_arm_list(several)})"
        )
    paired = shared_games(a, b) and not unpaired
    rows = []
    for done, (arm_a, arm_b) in enumerate(pairs):
        if progress:
            progress("arms compared", done, len(pairs))
        sa, sb = (list(dict.fromkeys(x.get("strategies") or [])) for x in (arm_a, arm_b))
        ms = pair_measures(sb, sa)
        strategies = list(dict.fromkeys(m.strategy for m in ms if m.strategy))
        sums = {m: Sums(paired=paired) for m in ms}
        first_a, last_a = game_range(a)
        first_b, last_b = game_range(b)
        first, last = (
            (max(first_a, first_b), min(last_a, last_b)) if paired else (min(first_a, first_b), max(last_a, last_b))
        )
        players = int(a.meta.get("players") or 6)
        for lo, hi in chunks(first, last, 2, players):
            x = game_table(b, [arm_b["index"]], lo, hi, strategies)
            y = game_table(a, [arm_a["index"]], lo, hi, strategies)
            for m in ms:
                add_sums(sums[m], x, y, m.column)
        rows += [comparison_row(f"B: {arm_b['arm']}", f"A: {arm_a['arm']}", m, sums[m]) for m in ms]
    if progress:
        progress("arms compared", len(pairs), len(pairs))
    return comparison_frame(rows)
