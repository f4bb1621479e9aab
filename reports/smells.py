"""Balance smells: what happens in nearly every game (a universal line: a dominant move or a rule that forces it) and
what never or almost never happens (a dead rule, a choice no strategy takes), read from the run folder's
``coverage.parquet``; and, for each headline (a crash, each strategy's win), the replay of a typical game."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from experiments.runfolder import REPLAYS, replay_stem

from .data import Run
from .tables import Table, pct

UNIVERSAL = 0.95  # happens in at least this share of an arm's games
DEAD = 0.01  # happens in at most this share
COVERAGE_FILE = "coverage.parquet"


def smells_table(run: Run) -> Table | None:
    """One row per arm and universal or dead item of ``coverage.parquet`` (None: a run without one). A decision asked
    in every game is no smell (every game has an auction); one never asked is."""
    path = run.path / COVERAGE_FILE
    if not path.is_file():
        return None
    cov = pl.read_parquet(path)
    universal = cov.filter((pl.col("share") >= UNIVERSAL) & ~pl.col("rule").str.starts_with("decision:"))
    dead = cov.filter(pl.col("share") <= DEAD)
    rows = [
        [arm, kind, what, rule, pct(share), f"{per_game:.2f}"]
        for kind, part in (("in nearly every game", universal), ("never or almost never", dead))
        for arm, rule, what, share, per_game in part.sort("arm", "share", descending=[False, kind.startswith("in")])
        .select("arm", "rule", "what", "share", "per_game")
        .iter_rows()
    ]
    return Table(
        ["arm", "happens", "what", "rule", "share of games", "per game"], rows, numeric=[*[False] * 4, True, True]
    )


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


def typical_games(run: Run) -> list[tuple[str, str]]:
    """(headline, how to watch it): per arm, a typical crashed game and a typical game each strategy won (of the
    games that match, the one with the median winning margin: ``typical_game``), as the replay file when ``eastindia
    replay`` wrote it, else the command that writes it."""
    games = margins(run)
    arms = games["arm"].unique(maintain_order=True)
    several = arms.len() > 1
    out = []
    for arm in arms:
        part = games.filter(pl.col("arm") == arm)
        picks = [("a crash", part.filter(pl.col("crashed")))]
        picks += [
            (f"a win of {s}", part.filter(pl.col("winner_strategy") == s))
            for s in part["winner_strategy"].unique(maintain_order=True)
        ]
        for headline, rows in picks:
            if rows.height == 0:
                continue
            game = typical_game(rows)
            page = Path(REPLAYS) / f"{replay_stem(game, arm if several else None)}.html"
            arm_option = f" --arm '{arm}'" if several else ""
            how = str(page) if (run.path / page).is_file() else f"eastindia replay {run.path} --game {game}{arm_option}"
            out.append((f"{arm}: {headline} (game {game})" if several else f"{headline} (game {game})", how))
    return out
