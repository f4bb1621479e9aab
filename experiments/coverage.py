"""Rule coverage of a run: per arm, how often each decision point, rule and notable event happened.

``coverage(games, rounds)`` reads the merged frames (so the table depends on the rows alone, never on the batching)
and returns one row per arm and item: ``arm``, ``rule`` (an id of ``docs/rules.md``, or ``decision:<name>`` for a
decision point), ``what``, ``games`` (the arm's games in which it happened at least once), ``share`` (``games`` over
the arm's games) and ``per_game`` (its mean count per game). Items that never happen keep a row with 0: a rule no
game reaches and a choice no strategy is offered are what the table is for, as are those that happen in every game.
An item the arm's rules make impossible has no row, so that it is not taken for a dead rule: a permanent position
card is never played (D-POSITIONS: only a closed card is), Deregulation is tabled by the rules only in an arm
with a forced round (D-FORCED-ROUND), and a decision point whose rule the arm's rules switch off is never asked
(``SWITCHED_OFF``: 2e's firm decisions under the house firms, D-FIRM-VARIANT; the deals without a deal moment,
D-DEALS, and the exchanges without ``notes.exchanges``, D-GIFTS). ``names`` gives per arm what of its rules the
table needs (``ArmRules``): a row for each law passed, each card taken from the display and each closed card played
(the rounds frame's ``laws_passed_by_law``, ``positions_taken_by_card`` and ``positions_played_by_card``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import BinaryIO, NamedTuple

import polars as pl

import strategies
from sim.rules import Rules

from . import runfolder as rf
from . import spec

COVERAGE = "coverage"  # RUN_DIR/coverage.parquet, written when a run's frames are merged
COLUMNS = {"arm": pl.Utf8, "rule": pl.Utf8, "what": pl.Utf8, "games": pl.Int64, "share": pl.Float64}
COLUMNS["per_game"] = pl.Float64
KEYS = ("arm_index", "arm", "game")

# (rule id, what happened, the rounds frame's tally counting it each round)
TALLIES = (
    ("R-CHAIRMAN", "Company loans taken by the Chairman", "loans_taken"),
    ("R-CHAIRMAN", "a Chairman of another family seated", "chair_changed"),
    ("D-EMERGENCY", "emergency loans", "emergency_loans"),
    ("R-ACCOUNTS", "royal protection invoked", "royal_protection"),
    ("R-DIRECTOR", "Director of Trade checks", "checks"),
    ("R-DIRECTOR", "orders opened", "orders_opened"),
    ("D-CHECK", "office holders fired or killed by a mishap", "fired"),
    ("R-SHIPPING", "ships bought", "ships_bought"),
    ("R-MILITARY", "battles", "battles"),
    ("R-MILITARY", "conquests", "conquests"),
    ("R-MILITARY", "officers killed", "officers_killed"),
    ("R-STORM", "ships damaged by storms", "ships_damaged"),
    ("R-STORM", "ships sunk", "ships_sunk"),
    ("D-EVENTS", "event tiles drawn", "events"),
    ("R-CRISIS", "Crisis tiles", "events_crisis"),
    ("R-LEADER", "Leader tiles", "events_leader"),
    ("R-TURMOIL", "Turmoil tiles", "events_turmoil"),
    ("R-WINDFALL", "Windfall tiles", "events_windfall"),
    ("R-PEACE", "Peace tiles", "events_peace"),
    ("R-SHUFFLE", "Shuffle tiles", "events_shuffle"),
    ("R-INVASION", "Foreign Invasion tiles", "events_invasion"),
    ("R-ATTACK", "attacks on Company regions", "attacks"),
    ("R-ATTACK", "revolts", "revolts"),
    ("R-ATTACK", "Company regions lost", "regions_lost"),
    ("R-INDIA", "orders closed", "orders_closed"),
    ("R-PEACE", "orders reopened", "orders_reopened"),
    ("R-PARLIAMENT", "laws tabled", "laws_tabled"),
    ("R-PARLIAMENT", "laws passed", "laws_passed"),
    ("R-PARLIAMENT", "the Prime Minister changed hands", "pm_changed"),
    ("D-POLICY", "assets lost to unpaid policy taxes", "assets_taxed_away"),
    ("D-PM-VOTES", "£ of votes bought", "votes_bought"),
    ("R-DEREGULATION", "loans written off", "loans_written_off"),
    ("R-NOTE", "promissory notes sold", "notes_sold"),
    ("R-NOTE", "promissory notes used", "notes_used"),
    ("D-GIFTS", "exchanges between families", "exchanges"),
    ("R-RETIRE", "office holders retired", "retirements"),
    ("R-RETIRE", "honourable retirements bought", "honourable_retirements"),
    ("R-RETIRE", "retirees sent home", "sent_home"),
    ("D-POSITIONS", "position cards taken", "positions_taken"),
    ("R-UPKEEP", "retirees who left for unpaid upkeep", "upkeep_defaults"),
    ("R-FIRMS", "firms opened", "firms_opened"),
    ("R-FIRMS", "investments in firms", "firm_investments"),
    ("R-FIRMS", "firm takeovers", "firm_takeovers"),
    ("R-FIRMS", "firm mergers", "firm_mergers"),
    ("R-FIRMS", "ships built for firms", "firm_ships_built"),
    ("R-FIRMS", "emergency investments", "emergency_investments"),
    ("R-FIRMS", "firm bankruptcies", "bankruptcies"),
)
DEREGULATION = "Deregulation passes"
FORCED = "Deregulation tabled by the rules (forced round)"


# decision points a rule switched off never asks: (the decisions, the rule, whether the arm's rules switch it off)
SWITCHED_OFF: tuple[tuple[tuple[str, ...], str, Callable[[Rules], bool]], ...] = (
    (  # 2e's dissolution, emergency merger and selective dividends: jc2e only (sim/phases/firms.py, firm_accounts.py)
        ("dissolve_firm", "consent_dissolution", "rescue_firm", "consent_waivers"),
        "D-FIRM-VARIANT",
        lambda rules: rules.firms.variant != "jc2e",
    ),
    (  # no deal moment: no note is offered, no goods exchanged, no money note used (sim/notes.py ``deal``)
        ("offer_notes", "accept_notes", "offer_exchange", "accept_exchange", "use_money_notes"),
        "D-DEALS",
        lambda rules: not rules.notes.deal_moments,
    ),
    (  # no exchanges at the deal moments (``notes.exchanges`` false)
        ("offer_exchange", "accept_exchange"),
        "D-GIFTS",
        lambda rules: not rules.notes.exchanges,
    ),
)


def decisions_off(rules: Rules) -> frozenset[str]:
    """The decision points ``rules`` never ask because a rule of theirs is switched off (``SWITCHED_OFF``)."""
    return frozenset(name for names, _, off in SWITCHED_OFF if off(rules) for name in names)


class ArmRules(NamedTuple):
    """What of an arm's rules the coverage table names or leaves out."""

    laws: Sequence[str]  # the law deck's names
    cards: Sequence[str]  # the position-card deck's names
    closed: Sequence[bool]  # per card: a closed card, played once; a permanent one is never played (D-POSITIONS)
    forced_round: bool = False  # Deregulation passes in a round the rules name (D-FORCED-ROUND)
    off: frozenset[str] = frozenset()  # decision points a rule switched off never asks (``decisions_off``)

    @classmethod
    def of(cls, rules: Rules) -> ArmRules:
        d = rules.d
        closed = tuple(not p for p in d.card_permanent.tolist())
        return cls(d.law_names, d.card_names, closed, rules.deregulation.forced_round > 0, decisions_off(rules))


# (rule id, what happened to the k-th entry of the arm's list, the rounds frame's flags: one per entry of the list,
# the list (``ArmRules`` field), the field saying per entry whether it can happen at all (None: every entry can))
FLAGS = (
    ("R-PARLIAMENT", "law {} passed", "laws_passed_by_law", "laws", None),
    ("D-POSITIONS", "position card {} taken", "positions_taken_by_card", "cards", None),
    ("D-POSITIONS", "position card {} played", "positions_played_by_card", "cards", "closed"),
)


HELPERS = {"action_values"}  # public methods of ``strategies.Strategy`` the engine never asks


def decision_names() -> list[str]:
    """Every decision point a strategy answers (the public methods of ``strategies.Strategy`` but its helpers)."""
    methods = vars(strategies.Strategy).items()
    return sorted(k for k, v in methods if callable(v) and not k.startswith("_") and k not in HELPERS)


def asked(decision: str) -> str:
    """The ``what`` of a decision point's row."""
    return f"decision {decision} asked"


def coverage(games: pl.LazyFrame, rounds: pl.LazyFrame, names: Mapping[str, ArmRules]) -> pl.DataFrame:
    """The coverage table of a run's merged ``games`` and ``rounds`` frames; ``names``: per arm, what of its rules
    the table needs (``ArmRules.of(rules)``; see the module's docstring)."""
    r1_loans = int(rounds.filter(pl.col("round") == 1).select(pl.col("loans_taken").max()).collect().item() or 0)
    last = int(rounds.select(pl.col("round").max()).collect().item() or 0)
    dereg = pl.col("deregulation") == "passed"
    items: list[tuple[str, str | None, pl.Expr]] = [(r, w, pl.col(c).cast(pl.Int64).sum()) for r, w, c in TALLIES]
    items += [
        ("R-DEREGULATION", DEREGULATION, dereg.sum()),
        ("R-DEREGULATION", "Deregulation rejected", (pl.col("deregulation") == "rejected").sum()),
        *(
            (rule, f"Deregulation tabled by {who}", (pl.col("deregulation_by") == by).sum())
            for rule, who, by in (
                ("R-DEREGULATION", "the Prime Minister", "pm"),
                ("D-DEREG", "the public", "public"),
            )
        ),
        ("D-FORCED-ROUND", FORCED, (pl.col("deregulation_by") == "forced_round").sum()),
        *(
            ("R-DEREGULATION", f"{DEREGULATION} in round {r}", (dereg & (pl.col("round") == r)).sum())
            for r in range(1, last + 1)
        ),  # fmt: skip
        *(
            ("R-CHAIRMAN", f"{k} loans taken in round 1", ((pl.col("round") == 1) & (pl.col("loans_taken") == k)).sum())
            for k in range(r1_loans + 1)
        ),
        ("R-INDIA", "no order open at a round's end", (pl.col("open_orders") == 0).sum()),
    ]
    # (arm, item, what) of the flags' items, named by each arm's rules; an entry that cannot happen is not named
    named: list[tuple[str, str, str]] = []
    for rule, what, column, field, can in FLAGS:
        for k in range(max((len(getattr(a, field)) for a in names.values()), default=0)):
            item = str(len(items))
            named += [
                (arm, item, what.format(getattr(a, field)[k]))
                for arm, a in names.items()
                if k < len(getattr(a, field)) and (can is None or getattr(a, can)[k])
            ]
            items.append((rule, None, pl.col(column).list.get(k, null_on_oob=True).sum()))
    impossible = [(arm, FORCED) for arm, a in names.items() if not a.forced_round]  # (arm, what) left out
    impossible += [(arm, asked(k)) for arm, a in names.items() for k in sorted(a.off)]
    per_round = rounds.group_by(KEYS).agg(expr.cast(pl.Int64).alias(str(i)) for i, (_, _, expr) in enumerate(items))
    per_game = games.select(*KEYS, pl.col("crashed").cast(pl.Int64).alias("crash"))
    per_game = per_game.join(per_round, on=KEYS, how="left").fill_null(0)
    labels = [("R-END", "the Company crashes", "crash")] + [(r, w, str(i)) for i, (r, w, _) in enumerate(items)]
    events = per_game.unpivot(index=list(KEYS), on=[c for _, _, c in labels], variable_name="item", value_name="n")
    labels += [(f"decision:{k}", asked(k), f"decision:{k}") for k in decision_names()]
    asks = games.select(*KEYS, "decisions").explode("decisions").unnest("decisions").drop_nulls("decision")
    asks = asks.select(
        *KEYS, ("decision:" + pl.col("decision")).alias("item"), pl.col("asks").cast(pl.Int64).alias("n")
    )
    totals = (
        pl.concat([events, asks])
        .group_by("arm_index", "item")
        .agg((pl.col("n") > 0).sum().cast(pl.Int64).alias("games"), pl.col("n").sum().alias("total"))
    )
    arms = games.group_by("arm_index", "arm").agg(pl.len().alias("of"))
    order = pl.LazyFrame(
        {"rule": [r for r, _, _ in labels], "what": [w for _, w, _ in labels], "item": [c for _, _, c in labels]}
    ).with_row_index("order")
    table = (
        arms.join(order, how="cross")
        .join(
            pl.LazyFrame(named, schema=dict.fromkeys(("arm", "item", "named"), pl.Utf8), orient="row"),
            on=["arm", "item"],
            how="left",
        )
        .filter(pl.col("what").is_not_null() | pl.col("named").is_not_null())  # an arm's own laws and cards
        .with_columns(pl.coalesce("what", "named").alias("what"))
        .join(
            pl.LazyFrame(impossible, schema=dict.fromkeys(("arm", "what"), pl.Utf8), orient="row"),
            on=["arm", "what"],
            how="anti",
        )
        .join(totals, on=["arm_index", "item"], how="left")
        .fill_null(0)
        .sort("arm_index", "order")
        .collect()
    )
    return table.select(
        "arm", "rule", "what", "games", (pl.col("games") / pl.col("of")).alias("share"),
        (pl.col("total") / pl.col("of")).alias("per_game"),
    ).cast(COLUMNS)  # fmt: skip


def write_coverage(run_dir: Path, target: Path | BinaryIO) -> int:
    """Compute the coverage of the merged frames in ``run_dir`` and write it to ``target`` (Parquet: a path or an
    open file); the laws' and cards' names are those of each arm's rules in the run's resolved experiment. Returns
    its rows."""
    games = pl.scan_parquet(Path(run_dir) / "games.parquet")
    rounds = pl.scan_parquet(Path(run_dir) / "rounds.parquet")
    arms = spec.load_written(Path(run_dir) / rf.EXPERIMENT).arms
    names = {arm.name: ArmRules.of(arm.rules()) for arm in arms}
    table = coverage(games, rounds, names)
    table.write_parquet(target, compression="zstd", statistics=True)
    return table.height
