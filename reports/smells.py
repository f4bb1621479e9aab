"""Balance smells: what happens in nearly every game (a universal line: a dominant move or a rule that forces it) and
what never or almost never happens (a dead rule, a choice no strategy takes), read from the run folder's
``coverage.parquet``; and, for each headline (a crash, each strategy's win), the replay of a typical game."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import polars as pl

from experiments.runfolder import REPLAYS, replay_stem

from .data import Run
from .labels import arm_labels
from .stats import wilson
from .tables import Table, pct

UNIVERSAL = 0.95  # happens in at least this share of an arm's games
DEAD = 0.01  # happens in at most this share
DIFFERS = 0.05  # a share differs between arms: the lowest and highest arm this far apart, their intervals apart too
COVERAGE_FILE = "coverage.parquet"
CALM = "calm"  # the row class of an item no arm makes universal or dead and whose share no two arms differ in


def _kind(rule: str, share: float | None) -> str:
    """ "universal", "dead" or "": a decision asked in every game is no smell (every game has an auction); one never
    asked is."""
    if share is None:
        return ""
    if share >= UNIVERSAL and not rule.startswith("decision:"):
        return "universal"
    return "dead" if share <= DEAD else ""


def _summary(kinds: list[str], shares: list[float | None], games: list[int]) -> tuple[int, str]:
    """(group, text) of one item across the arms: universal everywhere (0), dead everywhere (1), universal or dead in
    some arms (2), a share that differs between arms (3), none of these (4, a calm row)."""
    n = len(kinds)
    universal, dead = kinds.count("universal"), kinds.count("dead")
    if n and universal == n:
        return 0, "universal" if n == 1 else "universal in all"
    if n and dead == n:
        return 1, "dead" if n == 1 else "dead in all"
    if universal or dead:
        said = [f"{kind} in {k}" for kind, k in (("universal", universal), ("dead", dead)) if k]
        return 2, ", ".join(said) + f" of {n}"
    seen = [(p, g) for p, g in zip(shares, games, strict=True) if p is not None]
    if len(seen) > 1:
        (low, n_low), (high, n_high) = min(seen), max(seen)
        if high - low >= DIFFERS and wilson(round(high * n_high), n_high)[0] > wilson(round(low * n_low), n_low)[1]:
            return 3, f"differs: {100 * low:.0f}–{100 * high:.0f} %"
    return 4, ""


def smells_table(run: Run) -> Table | None:
    """One row per item of ``coverage.parquet`` (what happened and its rule or decision), one column per arm (its short
    label, ``reports.labels``; its full name on hover) with the share of the arm's games where it happened, marked
    universal (>= 95 %) or dead (<= 1 %); the items universal or dead in every arm first, then those universal or
    dead in some arms, then those whose share differs between arms (the lowest and the highest arm at least 5 pp
    apart and their 95 % Wilson intervals apart); the rest are calm rows (``CALM``), shown on demand. None: a run
    without coverage.parquet."""
    path = run.path / COVERAGE_FILE
    if not path.is_file():
        return None
    cov = pl.read_parquet(path)
    every = arm_labels([a["arm"] for a in sorted(run.arms, key=lambda a: a["index"])])  # as data.load_arms
    present = set(cov["arm"])
    names = [n for n in every.names if n in present] or cov["arm"].unique(maintain_order=True).to_list()
    labels = [every.of(n) for n in names]
    games = _games(run, cov)
    share = {(a, r, w): s for a, r, w, s in cov.select("arm", "rule", "what", "share").iter_rows()}
    items = list(dict.fromkeys(cov.select("rule", "what").iter_rows()))
    rows, classes, groups = [], [], []
    for rule, what in items:
        shares = [share.get((a, rule, what)) for a in names]
        kinds = [_kind(rule, p) for p in shares]
        group, said = _summary(kinds, shares, [games.get(a, 0) for a in names])
        item = what if rule.startswith("decision:") else f"{what} ({rule})"  # a decision's text names it
        rows.append([item, said, *[pct(p) for p in shares]])
        classes.append(["", "", *kinds])
        groups.append(group)
    order = sorted(range(len(rows)), key=lambda i: groups[i])  # stable: the coverage table's order within a group
    columns = ["what happened (rule)", "across the arms" if len(names) > 1 else "smell", *labels]
    return Table(
        columns,
        [rows[i] for i in order],
        numeric=[False, False, *[True] * len(names)],
        hover={label: name for label, name in zip(labels, names, strict=True) if label != name},
        classes=[classes[i] for i in order],
        row_classes=[CALM if groups[i] == 4 else "" for i in order],
    )


def _games(run: Run, cov: pl.DataFrame) -> dict[str, int]:
    """Games per arm: from the games frame, else what coverage.parquet implies (games / share)."""
    try:
        counts = run.scan("games").group_by("arm").agg(pl.len()).collect()
        return dict(counts.iter_rows())
    except (OSError, pl.exceptions.PolarsError):
        implied = cov.filter(pl.col("share") > 0).group_by("arm").agg((pl.col("games") / pl.col("share")).max())
        return {a: round(n) for a, n in implied.iter_rows()}


def margins(run: Run) -> pl.DataFrame:
    """Per arm and game: ``crashed``, ``winner_strategy`` and the winning ``margin`` (the winner's VP minus the
    runner-up's), read lazily from games.parquet and seats.parquet."""
    games = pl.scan_parquet(run.path / "games.parquet").select("arm", "game", "crashed", "winner_strategy")
    seats = pl.scan_parquet(run.path / "seats.parquet").select("arm", "game", "vp")
    margin = seats.group_by("arm", "game").agg(
        (pl.col("vp").max() - pl.col("vp").sort(descending=True).get(1)).alias("margin")
    )
    return games.join(margin, on=["arm", "game"], how="left", maintain_order="left").collect(engine="streaming")


def typical_game(rows: pl.DataFrame) -> int:
    """The game of ``rows`` (columns ``game``, ``margin``) with the median winning margin: the lower median of an even
    count, so that some game has it; of the games with that margin, the lowest index."""
    ordered = rows.select("game", "margin").sort("margin", "game", nulls_last=True)
    median = ordered["margin"][(ordered.height - 1) // 2]
    return int(ordered.filter(pl.col("margin") == median)["game"].min())


class Typical(NamedTuple):
    """A typical game of one headline of one arm: the ``arm``'s name (None: a run of one arm) and short ``label``
    (``reports.labels``), ``what`` it shows ("a crash", "a win of bid_low"), the ``game`` and ``how`` to watch it
    (the replay's page, else the command)."""

    arm: str | None
    label: str | None
    what: str
    game: int
    how: str

    @property
    def headline(self) -> str:
        return f"{self.arm}: {self.what} (game {self.game})" if self.arm else f"{self.what} (game {self.game})"


def typical_games(run: Run) -> list[Typical]:
    """Per arm, a typical crashed game and a typical game each strategy won (of the games that match, the one with
    the median winning margin: ``typical_game``), with the replay file when ``eastindia replay`` wrote it, else the
    command that writes it."""
    games = margins(run)
    arms = games["arm"].unique(maintain_order=True)
    several = arms.len() > 1
    labels = arm_labels([a["arm"] for a in sorted(run.arms, key=lambda a: a["index"])])  # as data.load_arms
    out = []
    for arm in arms:
        part = games.filter(pl.col("arm") == arm)
        picks = [("a crash", part.filter(pl.col("crashed")))]
        picks += [
            (f"a win of {s}", part.filter(pl.col("winner_strategy") == s))
            for s in part["winner_strategy"].unique(maintain_order=True)
        ]
        for what, rows in picks:
            if rows.height == 0:
                continue
            game = typical_game(rows)
            page = Path(REPLAYS) / f"{replay_stem(game, arm if several else None)}.html"
            arm_option = f" --arm '{arm}'" if several else ""
            how = str(page) if (run.path / page).is_file() else f"eastindia replay {run.path} --game {game}{arm_option}"
            out.append(
                Typical(arm, labels.of(arm), what, game, how) if several else Typical(None, None, what, game, how)
            )
    return out
