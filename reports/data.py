"""Everything the report needs from a run folder, aggregated lazily with Polars into small frames.

``aggregate(run)`` runs lazy queries over the Parquet frames on Polars' streaming engine (each reads only the
columns it uses), so a run of millions of games per arm costs a few streamed group-bys in bounded memory;
``seat_rounds`` is never read. What needs one row per game (a seat's game outcome, a game's winning margin) is
computed a range of games at a time (``experiments.stats.chunks``) and summed, so memory stays bounded by one range.
Scatter plots get a deterministic sample of games (by a hash of the game id, the same games in every arm).
"""

from __future__ import annotations

import functools
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

import sim
from experiments.runfolder import META, Run, frame_path, verify_frames
from experiments.stats import chunks, game_range
from sim.layout import VP_SOURCES

from .labels import SEP, ArmLabels, arm_labels
from .labels import short_keys as _short_keys

VP_COLUMNS = [f"vp_{source}" for source in VP_SOURCES]
SAMPLE_GAMES = 1500  # games per arm in the capital scatter
JOIN_ROWS = 250_000  # seat rows per range of games joined with their game's outcome (bounds the memory)
_HASH_BINS = 1_000_000
# the economy per round (median and band): series name -> expression over the rounds frame
ECONOMY = {
    "treasuries": pl.col("treasuries"),
    "balance": pl.col("balance"),
    "revenue": pl.col("trade_revenue") + pl.col("china_revenue"),
    "costs": pl.col("company_costs"),
    "loans": pl.col("loans"),
    "dividends": pl.col("dividends"),
}


@dataclass
class Arm:
    """One arm: its index and name in run.json, its short label for charts and tables (what tells it from the other
    arms, ``reports.labels``), params, strategies and rules."""

    index: int
    name: str
    label: str
    tick: str
    params: dict[str, Any]
    strategies: list[str]
    rules: sim.Rules | None

    def title(self, width: int = 50) -> str:
        """The label as a panel title, wrapped at spaces when longer than ``width``."""
        return _fill(self.label, width)

    def wrapped(self, width: int = 30) -> str:
        """The label on several lines: one part per line, long ones wrapped at word boundaries."""
        return "\n".join(_fill(part, width) for part in self.label.split(SEP))


def _fill(text: str, width: int) -> str:
    return textwrap.fill(text, width, break_long_words=False, break_on_hyphens=False)


@dataclass
class Aggregates:
    """Small per-arm frames (all keyed by ``arm_index``) behind every chart and table."""

    run: Run
    arms: list[Arm]
    arm_axis: str  # title of an axis of arms (see ``tick_labels``)
    strategies: list[str]
    players: int
    rounds: int
    outcomes: pl.DataFrame  # arm_index, end_round, crashed, games
    wins: pl.DataFrame  # arm_index, strategy, seats (seat-games), games, per_game (seats per game), wins
    seat_wins: pl.DataFrame  # arm_index, seat, wins, games
    vp: pl.DataFrame  # arm_index, strategy, seats, vp, vp_<source>... (means over the strategy's seats)
    stability: pl.DataFrame  # arm_index, round, stability, games (crashed games count as 0 after their crash)
    end_round: pl.DataFrame  # arm_index, games, mean, std
    bids: pl.DataFrame  # arm_index, bid_mean, bid_min, bid_max
    capital: pl.DataFrame  # sample of seats: arm_index, strategy, bid_total, starting_capital

    causes: pl.DataFrame | None = None  # arm_index, round, games (alive), <stability cause> (sums over games)
    crash_causes: pl.DataFrame | None = None  # arm_index, round, cause, crashes (the cause of the last point lost)
    economy: pl.DataFrame | None = None  # arm_index, round, series, value, games (value counts per series)
    vp_outcome: pl.DataFrame | None = None  # arm_index, strategy, crashed, seats, sum_<col>, sq_<col> (vp + sources)
    vp_values: pl.DataFrame | None = None  # arm_index, strategy, vp, seats (final VP distribution)
    margins: pl.DataFrame | None = None  # arm_index, strategy (the winner's), margin, games
    capital_wins: pl.DataFrame | None = None  # arm_index, strategy, by ("bid_total" | "starting_capital"), value,
    #                                            seats, wins
    seat_strategy: pl.DataFrame | None = None  # arm_index, rotation, seat, strategy, games, wins
    wins_how: pl.DataFrame | None = None  # strategy_wins: arm_index, strategy, scope, seats, <HOW_COLUMNS> (means)
    zero_sources: list[str] = field(default_factory=list)  # VP sources that are 0 in every seat of every game
    comparisons: pl.DataFrame | None = None  # reports.compare.comparisons (set by write_report: it needs the reference)
    labels: ArmLabels | None = None  # the arms' short labels, their title and what every arm shares

    def label_of(self, name: str) -> str:
        """The short label of the arm named ``name`` (``name`` itself when no arm has it)."""
        return next((a.label for a in self.arms if a.name == name), name)

    def arm(self, index: int) -> Arm:
        return next(a for a in self.arms if a.index == index)

    def arm_by_name(self, name: str) -> Arm | None:
        return next((a for a in self.arms if a.name == name), None)

    def games(self) -> pl.DataFrame:
        """arm_index, games, crashed (counts)."""
        return (
            self.outcomes.group_by("arm_index")
            .agg(pl.col("games").sum(), pl.col("games").filter(pl.col("crashed")).sum().alias("crashed"))
            .sort("arm_index")
        )


class DamagedRun(Exception):
    """A run folder whose frames do not match the checksums its run.json records."""


def require_frames(run: Run) -> None:
    """``FileNotFoundError`` naming the frames a report reads (games, seats, rounds) that the folder lacks."""
    missing = [f for f in ("games", "seats", "rounds") if not frame_path(run.path, f).exists()]
    if missing:
        status = run.meta.get("status", "unknown")
        raise FileNotFoundError(f"{run.path}: no {', '.join(missing)} Parquet frames yet (run status: {status})")


def check_frames(run: Run) -> None:
    """Refuse to read frames that differ from what the run wrote (run.json records each one's size and SHA-256 when
    the run completes): a damaged disk or an edited file would otherwise be reported as results. A run folder
    without checksums (not finished) is left to the readers, which refuse missing frames; missing frames are refused
    here too (``require_frames``), before a report tells its first step."""
    require_frames(run)
    reason = verify_frames(run.path, run.meta) if "frames" in run.meta else None
    if reason:
        where = "" if META in reason else f"; {META} records each frame's checksum"
        raise DamagedRun(
            f"{run.path}: damaged or edited since the run wrote it ({reason}{where}); "
            f"play it again with: eastindia run FILE --out {run.path} --fresh"
        )


def format_value(value: Any) -> str:
    """A parameter value as text: floats without trailing zeros, a missing value (None) as an em dash."""
    return "—" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def short_keys(param_keys: list[str]) -> dict[str, str]:
    """The last part of each dotted key (``capital.formula`` -> ``formula``), unless two keys share it."""
    return _short_keys(param_keys)


def short_labels(arms: list[dict[str, Any]], param_keys: list[str]) -> list[str]:
    """The arms' labels in charts and tables (``reports.labels.arm_labels`` of their names): what tells an arm from
    the others, ``flat · 5`` for ``capital.formula=flat, capital.budget_per_player=5``; a listed arm's own name is kept
    when nothing shorter tells the arms apart. Its name (run.json, the frames, ``--reference``) is on hover."""
    return list(arm_labels([arm["arm"] for arm in arms]).labels)


def tick_labels(arms: list[dict[str, Any]], param_keys: list[str]) -> tuple[list[str], str]:
    """Compact category ticks and the axis title: the params' values one per line under the title
    ``formula / budget_per_player`` when every arm sets the same keys, else the arms' wrapped labels."""
    keys = [list((arm.get("params") or {}).keys()) for arm in arms]
    if keys and keys[0] and all(k == keys[0] for k in keys):
        ticks = ["\n".join(_fill(format_value(v), 16) for v in arm["params"].values()) for arm in arms]
        if len(set(ticks)) == len(ticks):
            short = short_keys(param_keys)
            return ticks, " / ".join(short.get(k, k) for k in keys[0])
    labels = short_labels(arms, param_keys)
    return ["\n".join(_fill(part, 16) for part in label.split(SEP)) for label in labels], "arm"


def arm_rules(run: Run, arm: dict[str, Any]) -> sim.Rules | None:
    """The arm's rules (rules_file, else the defaults, with its overrides); None if they no longer load."""
    players = run.meta.get("players")
    try:
        if arm.get("rules_file"):
            path = Path(arm["rules_file"])
            if not path.exists() and (run.path / path).exists():
                path = run.path / path
            base = sim.Rules.from_toml(path, players=players)
        else:
            base = _default_rules(players) if isinstance(players, int) else sim.Rules.default(players)
        return base.with_overrides(arm.get("overrides") or {})
    except (sim.RulesError, OSError, ValueError, KeyError):
        return None


@functools.cache
def _default_rules(players: int) -> sim.Rules:
    """The embedded default rules, read once per process: each arm's rules are a copy with its overrides."""
    return sim.Rules.default(players)


def load_arms(run: Run) -> tuple[list[Arm], str, ArmLabels]:
    """The run's arms in index order, the title of an arm axis (see ``tick_labels``) and their labels."""
    meta_arms = sorted(run.arms, key=lambda a: a["index"])
    labels = arm_labels([a["arm"] for a in meta_arms])
    ticks, axis_title = tick_labels(meta_arms, run.param_keys)
    arms = [
        Arm(
            a["index"],
            a["arm"],
            label,
            tick,
            dict(a.get("params") or {}),
            list(a.get("strategies") or []),
            arm_rules(run, a),
        )
        for a, label, tick in zip(meta_arms, labels.labels, ticks, strict=True)
    ]
    return arms, axis_title, labels


def _sample_filter(arm_games: dict[int, int], per_arm: int) -> pl.Expr:
    """True for a pseudo-random ~``per_arm`` games of each arm (hash of the game id: same games in every arm)."""
    keep = {i: min(_HASH_BINS, round(_HASH_BINS * per_arm / max(n, 1))) for i, n in arm_games.items()}
    limit = pl.col("arm_index").replace_strict(keep, default=_HASH_BINS, return_dtype=pl.Int64)
    return (pl.col("game").hash(seed=20240).mod(_HASH_BINS).cast(pl.Int64)) < limit


def _fill_crashed(stability: pl.DataFrame, outcomes: pl.DataFrame, rounds: dict[int, int]) -> pl.DataFrame:
    """Add, for every round after a game's crash, one row at stability 0 (the crash's value, where it stays)."""
    crashed = outcomes.filter(pl.col("crashed"))
    extra = [
        (arm, r, 0, int(crashed.filter((pl.col("arm_index") == arm) & (pl.col("end_round") < r))["games"].sum()))
        for arm, last in rounds.items()
        for r in range(2, last + 1)
    ]
    schema = {"arm_index": pl.Int64, "round": pl.Int64, "stability": pl.Int64, "games": pl.Int64}
    filled = pl.DataFrame(extra, schema=schema, orient="row").filter(pl.col("games") > 0)
    return (
        pl.concat([stability.cast(schema), filled])
        .group_by("arm_index", "round", "stability")
        .agg(pl.col("games").sum())
        .sort("arm_index", "round", "stability")
    )


def _collect(queries: list[pl.LazyFrame]) -> list[pl.DataFrame]:
    """Run lazy queries on Polars' streaming engine (memory bounded by the batch, not the frame), one at a time:
    run together, their streaming buffers add up (a million-game report peaked 130 MiB higher)."""
    return [q.collect(engine="streaming") for q in queries]


def aggregate(run: Run | str | Path, sample_games: int = SAMPLE_GAMES) -> Aggregates:
    """Read the run folder lazily and return the small frames every chart and table is drawn from."""
    run = run if isinstance(run, Run) else Run.open(run)
    require_frames(run)
    arms, arm_axis, labels = load_arms(run)
    games, seats, rounds = run.scan("games"), run.scan("seats"), run.scan("rounds")
    outcomes, end_round = _collect(
        [
            games.group_by("arm_index", "end_round", "crashed").agg(pl.len().cast(pl.Int64).alias("games")),
            games.group_by("arm_index").agg(
                pl.len().cast(pl.Int64).alias("games"),
                pl.col("end_round").cast(pl.Float64).mean().alias("mean"),
                pl.col("end_round").cast(pl.Float64).std().alias("std"),
            ),
        ]
    )
    arm_games = dict(zip(end_round["arm_index"].to_list(), end_round["games"].to_list(), strict=True))
    arms = [a for a in arms if a.index in arm_games]  # an arm with no games yet has nothing to show
    if not arms:
        raise ValueError(f"{run.path}: the frames hold no games of the arms in run.json")
    winners, seat_wins, vp, stability, bids, capital = _collect(
        [
            games.group_by("arm_index", pl.col("winner_strategy").alias("strategy")).agg(
                pl.len().cast(pl.Int64).alias("wins")
            ),
            games.group_by("arm_index", pl.col("winner_seat").cast(pl.Int64).alias("seat")).agg(
                pl.len().cast(pl.Int64).alias("wins")
            ),
            seats.group_by("arm_index", "strategy").agg(
                pl.len().cast(pl.Int64).alias("seats"), pl.col("vp").mean(), *[pl.col(c).mean() for c in VP_COLUMNS]
            ),
            rounds.group_by("arm_index", "round", "stability").agg(pl.len().cast(pl.Int64).alias("games")),
            seats.group_by("arm_index").agg(
                pl.col("bid_total").mean().alias("bid_mean"),
                pl.col("bid_total").min().cast(pl.Float64).alias("bid_min"),
                pl.col("bid_total").max().cast(pl.Float64).alias("bid_max"),
            ),
            seats.filter(_sample_filter(arm_games, sample_games)).select(
                "arm_index", "strategy", "bid_total", "starting_capital"
            ),
        ]
    )
    players = int(run.meta.get("players") or _collect([seats.select(pl.col("seat").max())])[0].item() + 1)
    max_end = int(outcomes["end_round"].max() or 0)
    arm_rounds = {a.index: (a.rules.game.rounds if a.rules else max_end) for a in arms}
    per_arm_games = end_round.select("arm_index", "games")
    wins = (
        vp.select("arm_index", "strategy", "seats")
        .join(per_arm_games, on="arm_index")
        .join(winners, on=["arm_index", "strategy"], how="left")
        .with_columns(pl.col("wins").fill_null(0), (pl.col("seats") / pl.col("games")).alias("per_game"))
        .sort("arm_index", "strategy")
    )
    seat_wins = (
        pl.DataFrame({"seat": list(range(players))}, schema={"seat": pl.Int64})
        .join(per_arm_games, how="cross")
        .join(seat_wins, on=["arm_index", "seat"], how="left")
        .with_columns(pl.col("wins").fill_null(0))
        .sort("arm_index", "seat")
    )
    listed = [s for a in arms for s in a.strategies]
    strategies = list(dict.fromkeys([*listed, *sorted(set(vp["strategy"].to_list()) - set(listed))]))
    extra = _round_and_seat_aggregates(run, games, seats, rounds, [a.index for a in arms], players)
    extra["wins_how"] = strategy_wins(seats)
    return Aggregates(
        run=run,
        arms=arms,
        arm_axis=arm_axis,
        strategies=[s for s in strategies if s in set(vp["strategy"].to_list())],
        players=players,
        rounds=max(arm_rounds.values(), default=max_end),
        outcomes=outcomes.sort("arm_index", "end_round", "crashed"),
        wins=wins,
        seat_wins=seat_wins,
        vp=vp.sort("arm_index", "strategy"),
        stability=_fill_crashed(stability, outcomes, arm_rounds),
        end_round=end_round.sort("arm_index"),
        bids=bids.sort("arm_index"),
        capital=capital,
        labels=labels,
        **extra,
    )


# how a strategy's seats win: the mean final VP and VP by source, the offices held at the end (the Prime Minister and
# the chair as the share of seats holding them, the Presidents' offices as a mean count) and, over the game, the
# luxuries bought (phase 2), the firms opened and the firms gone bankrupt under the family's management
HOW_COLUMNS = [
    "vp", *VP_COLUMNS, "prime_minister", "chair", "presidencies", "luxuries_bought", "firms_opened", "firms_bankrupt"
]  # fmt: skip
SCOPES = ("all", "won")  # every seat of the strategy; the seats that won their game


def strategy_wins(seats: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """Per arm and strategy, for every seat (``scope`` "all") and for the seats that won (``scope`` "won"): ``seats``
    and the mean of each of ``HOW_COLUMNS`` over them (a bool column's mean is the share of seats where it holds).
    A column the seats frame lacks (a run written before it existed) is null."""
    lazy = seats.lazy()
    names = set(lazy.collect_schema().names())
    arm = pl.col("arm_index").cast(pl.Int64)
    sums = [
        (pl.col(c).cast(pl.Float64).sum() if c in names else pl.lit(None, pl.Float64)).alias(c) for c in HOW_COLUMNS
    ]
    parts = lazy.group_by(arm, "strategy", pl.col("winner").alias("won")).agg(
        pl.len().cast(pl.Int64).alias("seats"), *sums
    )
    parts = parts.collect(engine="streaming")
    both = pl.concat(
        [
            parts.group_by("arm_index", "strategy").agg(
                pl.lit("all").alias("scope"), pl.col("seats", *HOW_COLUMNS).sum()
            ),
            parts.filter(pl.col("won")).select(
                "arm_index", "strategy", pl.lit("won").alias("scope"), "seats", *HOW_COLUMNS
            ),
        ]
    )
    nulls = [c for c in HOW_COLUMNS if c not in names]
    both = both.with_columns(pl.lit(None, pl.Float64).alias(c) for c in nulls) if nulls else both
    return (
        both.with_columns((pl.col(c) / pl.col("seats")).alias(c) for c in HOW_COLUMNS)
        .with_columns(pl.col("scope").cast(pl.Enum(SCOPES)))
        .sort("arm_index", "strategy", "scope")
        .with_columns(pl.col("scope").cast(pl.Utf8))
    )


def crash_cause() -> pl.Expr:
    """The cause of a crash: the last loss of its round in the order the round applies them (phase 7's emergency
    loans, then its expectation, phase 8's lost regions, phase 9's laws), i.e. what took the last point."""
    from sim.state import STABILITY_CAUSES

    losses = [c for c in STABILITY_CAUSES if "loss" in c]
    expr = pl.lit("unknown")
    for cause in losses:  # later causes win
        expr = pl.when(pl.col(cause) < 0).then(pl.lit(cause.removeprefix("stability_loss_"))).otherwise(expr)
    return expr.alias("cause")


def _round_and_seat_aggregates(
    run: Run, games: pl.LazyFrame, seats: pl.LazyFrame, rounds: pl.LazyFrame, arm_indices: list[int], players: int
) -> dict[str, Any]:
    """The aggregates behind the charts and tables (see the ``Aggregates`` fields)."""
    from sim.state import STABILITY_CAUSES

    causes_present = [c for c in STABILITY_CAUSES if c in rounds.collect_schema().names()]
    arm = pl.col("arm_index").cast(pl.Int64)
    queries = [
        rounds.group_by(arm, pl.col("round").cast(pl.Int64)).agg(
            pl.len().cast(pl.Int64).alias("games"), *[pl.col(c).cast(pl.Int64).sum() for c in causes_present]
        ),
        rounds.filter(pl.col("crashed"))
        .with_columns(crash_cause() if causes_present else pl.lit("unknown").alias("cause"))
        .group_by(arm, pl.col("round").cast(pl.Int64), "cause")
        .agg(pl.len().cast(pl.Int64).alias("crashes")),
        pl.concat(
            [
                rounds.select(
                    arm, pl.col("round").cast(pl.Int64), pl.lit(k).alias("series"), e.cast(pl.Int64).alias("value")
                )
                for k, e in ECONOMY.items()
            ]
        )
        .group_by("arm_index", "round", "series", "value")
        .agg(pl.len().cast(pl.Int64).alias("games")),
        seats.group_by(arm, "strategy", pl.col("vp").cast(pl.Float64)).agg(pl.len().cast(pl.Int64).alias("seats")),
        pl.concat(
            [
                seats.group_by(arm, "strategy", pl.col(by).cast(pl.Int64).alias("value")).agg(
                    pl.len().cast(pl.Int64).alias("seats"),
                    pl.col("winner").cast(pl.Int64).sum().alias("wins"),
                    pl.lit(by).alias("by"),
                )
                for by in ("bid_total", "starting_capital")
            ]
        ),
        seats.group_by(arm, pl.col("rotation").cast(pl.Int64), pl.col("seat").cast(pl.Int64), "strategy").agg(
            pl.len().cast(pl.Int64).alias("games"), pl.col("winner").cast(pl.Int64).sum().alias("wins")
        ),
        seats.select(*[pl.col(c).abs().max() for c in VP_COLUMNS]),
    ]
    causes, crash_causes, economy, vp_values, capital_wins, seat_strategy, top = _collect(queries)
    zero = [c.removeprefix("vp_") for c in VP_COLUMNS if not (top[c][0] or 0)]

    # per game: a seat's outcome (crashed or survived) and the winning margin, one range of games at a time
    cols = ["vp", *VP_COLUMNS]
    outcome_parts, margin_parts = [], []
    first, last = game_range(run)
    for lo, hi in chunks(first, last, len(arm_indices), players, JOIN_ROWS):
        where = (pl.col("game") >= lo) & (pl.col("game") < hi)
        part_seats = seats.filter(where)
        crashed = games.filter(where).select(arm, "game", "crashed")
        outcome, margin = _collect(
            [
                part_seats.with_columns(arm)
                .join(crashed, on=["arm_index", "game"], how="inner")
                .group_by("arm_index", "strategy", "crashed")
                .agg(
                    pl.len().cast(pl.Int64).alias("seats"),
                    *[pl.col(c).cast(pl.Float64).sum().alias(f"sum_{c}") for c in cols],
                    *[(pl.col(c).cast(pl.Float64) ** 2).sum().alias(f"sq_{c}") for c in cols],
                ),
                part_seats.group_by(arm, "game")
                .agg(
                    pl.col("strategy").filter(pl.col("winner")).first(),
                    (pl.col("vp").max() - pl.col("vp").sort(descending=True).get(1)).alias("margin"),
                )
                .group_by("arm_index", "strategy", pl.col("margin").cast(pl.Float64))
                .agg(pl.len().cast(pl.Int64).alias("games")),
            ]
        )
        outcome_parts.append(outcome)
        margin_parts.append(margin)
    sums = [c for c in outcome_parts[0].columns if c.startswith(("seats", "sum_", "sq_"))] if outcome_parts else []
    vp_outcome = (
        pl.concat(outcome_parts).group_by("arm_index", "strategy", "crashed").agg(pl.col(sums).sum())
        if outcome_parts
        else pl.DataFrame()
    )
    margins = (
        pl.concat(margin_parts).group_by("arm_index", "strategy", "margin").agg(pl.col("games").sum())
        if margin_parts
        else pl.DataFrame()
    )
    return {
        "causes": causes.sort("arm_index", "round"),
        "crash_causes": crash_causes.sort("arm_index", "round", "cause"),
        "economy": economy.sort("arm_index", "series", "round", "value"),
        "vp_outcome": vp_outcome.sort("arm_index", "strategy", "crashed") if vp_outcome.height else vp_outcome,
        "vp_values": vp_values.sort("arm_index", "strategy", "vp"),
        "margins": margins.sort("arm_index", "strategy", "margin") if margins.height else margins,
        "capital_wins": capital_wins.sort("arm_index", "strategy", "by", "value"),
        "seat_strategy": seat_strategy.sort("arm_index", "rotation", "seat"),
        "zero_sources": zero,
    }
