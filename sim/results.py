"""Result rows in long format: per game, per seat, per round, per seat and round (Polars frames).

A ``Recorder`` snapshots a batch at the end of every round (games that played the round) and at the end; the
``Results`` of several batches concatenate in game order, so a run's rows do not depend on how it was batched.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from . import layout as L
from .board import board_votes, seat_counts
from .capital import LEFTOVER_CASES
from .laws import DEREGULATION, DEREGULATION_BY, IN_FORCE
from .positions import held_count
from .reduce import sum_last
from .rules import Rules
from .state import TALLIES, TALLY, State

FRAMES = ("games", "seats", "rounds", "seat_rounds")
# seat_rounds columns that count a family's relatives by place: they sum to the family size on every row
PEOPLE = (
    "supply", "clerks", "officers", "academy", "exchange", "retired", "shares", "offices", "governors",
    "firm_shares", "prisoners",
)  # fmt: skip
SORT_KEYS = (["game"], ["game", "seat"], ["game", "round"], ["game", "round", "seat"])


class _Games:
    """The fields of games ``idx`` of a state, each gathered (a copy) when first read: a round's records read a
    part of the state, and keep what they read past the round."""

    def __init__(self, state: State, idx: np.ndarray):
        self._state, self._idx = state, idx
        self.n_games, self.n_players = idx.size, state.n_players

    def __getattr__(self, name: str):
        value = getattr(self._state, name)
        if isinstance(value, np.ndarray) and value.ndim and value.shape[0] == self._state.n_games:
            value = value.take(self._idx, axis=0)
        self.__dict__[name] = value
        return value


class Recorder:
    """Collects numpy columns for one batch."""

    def __init__(self, rules: Rules, seed: int, strategy_names: np.ndarray):
        """``strategy_names[G, N]``: the strategy in each game's seats."""
        self.rules, self.seed, self.names = rules, seed, np.asarray(strategy_names)
        self.rounds: list[dict[str, np.ndarray]] = []
        self.seat_rounds: list[dict[str, np.ndarray]] = []

    def round(self, state: State, rnd: int, played: np.ndarray, plans: np.ndarray | None = None) -> None:
        """Snapshot games ``played`` (bool[G]) at the end of round ``rnd``; ``plans`` str[G, N]: the strategy each
        seat played this round (a searching seat's pick; default: the seat's strategy)."""
        idx = np.flatnonzero(played)
        if idx.size == 0:
            return
        s = _Games(state, idx)
        n = s.n_players
        company_regions = sum_last(s.owner >= 0)
        row = {
            "game": s.game,
            "round": np.full(idx.size, rnd, dtype=np.int16),
            "stability": s.stability,
            "loans": s.loans,
            "balance": s.balance,
            "treasuries": sum_last(s.treasury),
            "company_regions": company_regions,
            "unrest": sum_last(s.unrest),
            "open_orders": sum_last(s.order_open),
            "ships": sum_last(s.ships.reshape(idx.size, -1)) + sum_last(s.yard_ships.reshape(idx.size, -1)),
            "regiments": sum_last(s.regiments),
            "officers": sum_last(s.officers.reshape(idx.size, -1)),
            "shares": sum_last(board_votes(s)),
            "vacant_offices": sum_last(s.office[:, : L.CHINA] < 0),
            "china_open": s.china_open,
            "crashed": s.crashed,
            "prime_minister": s.prime_minister,  # politics at the end of the round
            "policy": s.policy,
            "laws_in_force": sum_last(s.law_pile == IN_FORCE).astype(np.int8),
            # private firms at the end of the round
            "firms_open": sum_last(s.firm_manager >= 0).astype(np.int8),
            "firm_value": sum_last(s.firm_value.astype(np.int32)),
            "prisoners": sum_last(s.prisoners),
        }
        for name in TALLIES:
            row[name] = s.tally[:, TALLY[name]]
        row["laws_passed_by_law"] = s.law_passed  # per law of the rules' list: it passed this round
        row["positions_taken_by_card"] = s.card_taken  # per position card of the deck: taken this round
        row["positions_played_by_card"] = s.card_played_now  # ... a closed one played this round
        self.rounds.append(row)
        office = seat_counts(s.office, n)
        banked = self.rules.actions.luxury_vp * s.luxuries + sum_last(s.retired * self.rules.d.tier_vp)
        self.seat_rounds.append(
            {
                "game": np.repeat(s.game, n),
                "round": np.full(idx.size * n, rnd, dtype=np.int16),
                "seat": np.tile(np.arange(n, dtype=np.int8), idx.size),
                "plan": (self.names if plans is None else plans)[idx].ravel(),
                "money": s.money.ravel(),
                "vp_banked": banked.ravel(),
                "shares": s.shares.ravel(),
                "chair": (s.office[:, L.CHAIRMAN, None] == np.arange(n)).ravel(),
                "offices": office.ravel(),
                "governors": seat_counts(s.governor, n).ravel(),
                "commanders": seat_counts(s.commander, n).ravel(),
                "supply": s.supply.ravel(),
                "clerks": sum_last(s.clerks).ravel(),
                "officers": sum_last(s.officers).ravel(),
                "academy": s.academy.ravel(),
                "exchange": seat_counts(s.exchange, n).ravel(),
                "retired": sum_last(s.retired).ravel(),
                "trophies": s.trophies.ravel(),
                "luxuries": s.luxuries.ravel(),
                "shipyards": s.shipyards.ravel(),
                "factories": s.factories.ravel(),
                # position cards held (permanent + unplayed closed), retirees per tier (cheapest first)
                "positions": held_count(s).ravel(),
                "retired_tiers": s.retired.reshape(idx.size * n, -1),
                # firms managed, relatives on firms' share tracks and in debtors' prison
                "firms_managed": seat_counts(s.firm_manager, n).ravel(),
                "firm_shares": s.firm_shares.sum(axis=1).ravel(),
                "prisoners": s.prisoners.ravel(),
            }
        )

    def _protected(self, s: State) -> np.ndarray:
        """bool[G]: royal protection was invoked in some round (counted by the rounds' tallies: a law may grant
        the Chairman more uses, so the uses left do not tell). A round's rows are the games that played it, in
        batch order: those whose ``end_round`` reached it (a batch may hold one game index twice: ``split``)."""
        used = np.zeros(s.n_games, dtype=bool)
        for row in self.rounds:
            used[s.end_round >= row["round"][0]] |= row["royal_protection"] > 0
        return used

    def finish(self, state: State, asks: dict[str, np.ndarray] | None = None) -> BatchRows:
        """The batch's rows; ``asks`` (``Agents.asks``): per decision, the times each game asked it."""
        s, n, g = state, state.n_players, state.n_games
        total = s.vp.sum(axis=2)
        games = {
            "game": s.game,
            "seed": np.full(g, self.seed, dtype=np.int64),
            "players": np.full(g, n, dtype=np.int8),
            "end_round": s.end_round,
            "crashed": s.crashed,
            "blame": s.blame,
            "winner_seat": s.winner,
            "winner_strategy": self.names[np.arange(g), s.winner.astype(np.int64)],
            "stability": s.stability,
            "loans": s.loans,
            "balance": s.balance,
            "share_vp": s.share_vp,
            "policy": s.policy,
            "laws_in_force": (s.law_pile == IN_FORCE).sum(axis=1).astype(np.int8),
            "deregulation_round": s.dereg_round,  # 0 -> null
            "company_regions": (s.owner >= 0).sum(axis=1),
            "company_region_names": company_region_names(self.rules, s.owner),  # phase 8
            "open_orders": s.order_open.sum(axis=1),
            "china_open": s.china_open,
            "royal_protection_used": self._protected(s),
            "leftover_case": np.array(LEFTOVER_CASES)[s.leftover_case],
            "money_in_game": s.money_in_game(),
        }
        seats = {
            "game": np.repeat(s.game, n),
            "seat": np.tile(np.arange(n, dtype=np.int8), g),
            "strategy": self.names.ravel(),
            "bid_total": s.bid_total.ravel(),
            "capital_exact": s.capital_exact.ravel(),
            "capital_rounded": (s.capital_money - s.leftover).ravel(),
            "starting_capital": s.capital_money.ravel(),
            "leftover": s.leftover.ravel(),
            "leftover_case": np.repeat(np.array(LEFTOVER_CASES)[s.leftover_case], n),
            "vp": total.ravel(),
        }
        for i, source in enumerate(L.VP_SOURCES):
            seats[f"vp_{source}"] = s.vp[:, :, i].ravel()
        seats.update(
            {
                "winner": (s.winner[:, None] == np.arange(n)).ravel(),
                "money": s.money.ravel(),
                "wealth": s.wealth.ravel(),
                "influence": s.influence.ravel(),
                "shares": s.shares.ravel(),
                "chair": (s.office[:, L.CHAIRMAN, None] == np.arange(n)).ravel(),
                "offices": seat_counts(s.office, n).ravel(),
                "governors": seat_counts(s.governor, n).ravel(),
                "officers": s.officers.sum(axis=2).ravel(),
                "clerks": s.clerks.sum(axis=2).ravel(),
                "trophies": s.trophies.ravel(),
                "luxuries": s.luxuries.ravel(),
                "shipyards": s.shipyards.ravel(),
                "factories": s.factories.ravel(),
                "retired": s.retired.sum(axis=2).ravel(),
                "prime_minister": (s.prime_minister[:, None] == np.arange(n)).ravel(),
                "wreaths": s.wreaths.ravel(),
                "positions": held_count(s).ravel(),
                "firms_managed": seat_counts(s.firm_manager, n).ravel(),
                "firm_shares": s.firm_shares.sum(axis=1).ravel(),
                "prisoners": s.prisoners.ravel(),
                # the Presidents' offices held at the end; over the game: luxuries bought (phase 2), firms opened,
                # firms gone bankrupt under the family's management
                "presidencies": seat_counts(s.office[:, list(L.PRESIDENT)], n).ravel(),
                "luxuries_bought": s.luxuries_bought.ravel(),
                "firms_opened": s.firms_opened.ravel(),
                "firms_bankrupt": s.firms_bankrupt.ravel(),
            }
        )
        return BatchRows(games, seats, self.rounds, self.seat_rounds, dict(asks or {}))


def company_region_names(rules: Rules, owner: np.ndarray) -> np.ndarray:
    """str[G]: the regions the Company holds, comma-separated in map order ("" for none)."""
    out = np.full(owner.shape[0], "", dtype=object)
    for r, name in enumerate(rules.d.regions):
        held = owner[:, r] >= 0
        out[held] = out[held] + np.where(out[held] == "", "", ",") + name
    return out.astype(str)


def _concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray | list]:
    """The parts' columns joined, ready for ``pl.DataFrame``: a text column as a list of str (polars builds a
    String column from a list 3-4 times faster than from a numpy str array; the same column either way)."""
    if not parts:
        return {}
    joined = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    return {k: v.tolist() if v.dtype.kind == "U" and v.ndim == 1 and v.size else v for k, v in joined.items()}


@dataclass
class BatchRows:
    """A batch's columns: one dict per frame for its games and seats; its rounds and seat rounds as one dict per
    round played, joined once with every other batch's by ``Results.from_batches`` (not once more per batch)."""

    games: dict[str, np.ndarray]
    seats: dict[str, np.ndarray]
    rounds: list[dict[str, np.ndarray]]
    seat_rounds: list[dict[str, np.ndarray]]
    asks: dict[str, np.ndarray] = field(default_factory=dict)  # per decision: int32[G] times asked

    def split(self, sizes: list[int]) -> list[BatchRows]:
        """The rows of consecutive parts of the batch, ``sizes[i]`` games each in batch order: each part's rows as a
        batch of its games alone would have recorded them (a round's rows are the games that played it, in batch
        order, so a part's are those of its games whose ``end_round`` reached it)."""
        n = len(self.seats["game"]) // max(len(self.games["game"]), 1)  # seats per game
        edges = np.cumsum([0, *sizes])

        def cuts(rows: list[dict[str, np.ndarray]], per: int) -> list[tuple[dict, np.ndarray]]:
            """Each round's rows, with where each part's begin (and the last one's end)."""
            played = [self.games["end_round"] >= row["round"][0] for row in rows]
            return [
                (row, per * np.concatenate(([0], np.cumsum(p)))[edges]) for row, p in zip(rows, played, strict=True)
            ]

        def part(rows: list[tuple[dict, np.ndarray]], i: int) -> list[dict[str, np.ndarray]]:
            """Part i's rows of each round it played (a round none of its games played is not recorded)."""
            return [{k: v[at[i] : at[i + 1]] for k, v in row.items()} for row, at in rows if at[i + 1] > at[i]]

        rounds, seat_rounds = cuts(self.rounds, 1), cuts(self.seat_rounds, n)
        return [
            BatchRows(
                {k: v[a:b] for k, v in self.games.items()},
                {k: v[a * n : b * n] for k, v in self.seats.items()},
                part(rounds, i),
                part(seat_rounds, i),
                {k: v[a:b] for k, v in self.asks.items()},
            )
            for i, (a, b) in enumerate(zip(edges[:-1], edges[1:], strict=True))
        ]


def _decisions(batches: list[BatchRows]) -> pl.DataFrame:
    """Per game, the decisions asked and how often: ``decisions`` = list of {decision, asks}, by name, asks > 0."""
    names = sorted({name for b in batches for name in b.asks})
    game = np.concatenate([b.games["game"] for b in batches if b.games])
    counts = np.concatenate(
        [np.stack([b.asks.get(k, np.zeros(len(b.games["game"]), np.int32)) for k in names], axis=1)
         for b in batches if b.games]
    ) if names else np.zeros((len(game), 0), np.int32)  # fmt: skip
    long = pl.DataFrame(
        {
            "game": np.repeat(game, len(names)),
            "decision": np.tile(np.arange(len(names), dtype=np.uint32), len(game)),
            "asks": counts.ravel().astype(np.int32),
        },
        schema={"game": pl.Int64, "decision": pl.UInt32, "asks": pl.Int32},
    )
    # the names put in by polars, after the filter (a numpy str column of every game x decision is 5x slower)
    named = pl.col("decision").replace_strict(list(range(len(names))), names, return_dtype=pl.Utf8)
    per_game = (
        long.filter(pl.col("asks") > 0)
        .with_columns(named)
        .group_by("game")
        .agg(pl.struct("decision", "asks").alias("decisions"))
    )
    return pl.DataFrame({"game": game}, schema={"game": pl.Int64}).join(per_game, on="game", how="left")


def _in_order(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` sorted by its ``SORT_KEYS``: by game, then round, then seat. Within a batch a game's rows come in
    the order of its other keys (its rounds in turn, its seats in order within each round), and each game is played
    in one batch, so a stable sort by game alone gives that order, at a fraction of a sort by three keys (none at
    all when the games already come in order)."""
    game = frame["game"].to_numpy()
    if (game[1:] >= game[:-1]).all():
        return frame
    return frame[np.argsort(game, kind="stable")]


@dataclass
class Results:
    """The frames of a run. ``games``: one row per game; ``seats``: per game and seat (``vp`` equals the sum of
    the ``vp_<source>`` columns); ``rounds``: per game and round played; ``seat_rounds``: per game, round, seat."""

    games: pl.DataFrame
    seats: pl.DataFrame
    rounds: pl.DataFrame
    seat_rounds: pl.DataFrame
    meta: dict = field(default_factory=dict)

    @classmethod
    def from_batches(cls, batches: list[BatchRows], meta: dict) -> Results:
        frames = {}
        for name in FRAMES:
            rows = [getattr(b, name) for b in batches]
            parts = [p for r in rows for p in (r if isinstance(r, list) else [r]) if p]  # a list: one dict per round
            df = pl.DataFrame(_concat(parts)) if parts else pl.DataFrame()
            # per-tier counts as a list column: the same schema whatever the number of tiers
            arrays = [c for c, t in df.schema.items() if isinstance(t, pl.Array)]
            df = df.with_columns(pl.col(c).cast(pl.List(df.schema[c].inner)) for c in arrays)
            if name == "games" and df.height:  # blame codes -1..5 -> situation names, null without a crash
                codes = list(range(-1, len(L.BLAME_NAMES)))
                df = df.with_columns(
                    pl.col("blame").replace_strict(codes, [None, *L.BLAME_NAMES], return_dtype=pl.Utf8),
                    pl.when(pl.col("deregulation_round") > 0).then(pl.col("deregulation_round")),
                )
                decisions = _decisions(batches)["decisions"]
                df = df.with_columns(decisions.fill_null(pl.lit([], dtype=decisions.dtype)))
            if name == "rounds" and df.height:  # codes -> names, a flag -> bool
                df = df.with_columns(
                    pl.col("deregulation").replace_strict(list(range(len(DEREGULATION))), list(DEREGULATION)),
                    pl.col("deregulation_by").replace_strict(list(range(len(DEREGULATION_BY))), list(DEREGULATION_BY)),
                    pl.col("pm_changed").cast(pl.Boolean),
                )
            frames[name] = _in_order(df) if df.height else df
        return cls(meta=meta, **frames)

    def frames(self) -> dict[str, pl.DataFrame]:
        return {name: getattr(self, name) for name in FRAMES}
