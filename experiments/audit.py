"""``eastindia audit RUN_DIR --decision NAME --round R``: what one decision was worth against its alternatives.

For every game of the run where a seat makes decision NAME in round R (round 0: setup), the game is played again to
that round's start, then once more from there for each alternative answer, that seat's first answer to NAME in the
round forced to the alternative and everything else played as the run played it, with the game's own dice (common
random numbers: the alternatives differ by the decision alone). Forced to the answer the strategy gave, the game must
end exactly as the run's game did: the audit checks every such game, field by field, and says so in its first line.

Written: ``RUN_DIR/audit/<NAME>_r<R>[-<arm>][-<strategy>].parquet``, a row per (game, seat deciding, alternative):
``game, seat, strategy, decision, round, played, alternative, is_played, winner, won, vp, margin, crashed,
end_round``, where ``vp`` is the deciding family's final VP and ``margin`` its VP less the best other family's.
Printed (``summary``): per alternative, the games where it was legal, the change in the decider's win rate and in
its final VP against the answer it played, paired game by game, with 95 % intervals.

Which decisions it can force, what their answers are and how their alternatives are chosen: ``DECISIONS``
(docs/guide.md, "Auditing a decision").
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from sim.engine import Table, same_games
from sim.lookahead import Planner
from sim.phases.setup import MAX_BID
from sim.rules import Rules
from strategies import calibration as calibrated

from . import runfolder as rf
from .replay import calibration_values, open_arm
from .runner import RunError, _make
from .stats import paired_diff_ci, paired_mean_ci

AUDIT = "audit"
BATCH = 2048  # games replayed at once, and copies played at once (a copy per game and alternative)

Answer = tuple[np.ndarray, ...]  # one row's answer: an array per output of the decision


class AuditError(RunError):
    """A bad audit request (decision, round, values, arm, strategy) or a run it cannot audit (exit code 2)."""


# --------------------------------------------------------------------------------------------- the decisions
@dataclass(frozen=True)
class Decision:
    """A decision the audit can force: what its answer is, what a value of ``--values`` is, and its alternatives."""

    name: str
    answer: str  # what an answer is (docs)
    alternatives_doc: str  # how the alternatives are chosen (docs)
    parse: Callable[[str], Any]  # one ``--values`` item, or ValueError
    listed: Callable[[Answer, dict[str, Any], Rules, list | None], list[tuple[str, Answer]]]  # (label, answer)
    label: Callable[[Answer, dict[str, Any], Rules], str]  # the label of the answer played
    setup: bool | None = False  # decided at setup (``--round 0``) only; None: at setup and in every round


def _count(limit: str) -> Callable[[Answer, dict[str, Any], Rules, list | None], list[tuple[str, Answer]]]:
    """Alternatives of a count answer: every legal count 0..legal[limit] (``--values``: those of them)."""

    def listed(played: Answer, legal: dict[str, Any], rules: Rules, values: list | None) -> list[tuple[str, Answer]]:
        top = int(legal[limit])
        counts = range(top + 1) if values is None else sorted({v for v in values if 0 <= v <= top})
        return [(str(k), (np.array(k, dtype=played[0].dtype),)) for k in counts]

    return listed


def _count_value(text: str) -> int:
    if not text.isdigit():
        raise ValueError("expected a count, 0 or more")
    return int(text)


def _law_label(law: int, side: int, rules: Rules, options: np.ndarray) -> str:
    if law < 0:
        return "draw"
    name = rules.parliament.laws[law].name
    policy = int(options[law, side])
    if policy < 0 or not rules.parliament.policies:
        return name
    p = rules.parliament.policies[policy]
    return f"{name} / {p.kind} {p.asset}"


def _laws(played: Answer, legal: dict[str, Any], rules: Rules, values: list | None) -> list[tuple[str, Answer]]:
    """Every candidate law with either policy (the same policy once), and drawing another where allowed."""
    out: list[tuple[str, Answer]] = []
    options = legal["options"]
    if bool(legal["can_draw"]):
        out.append(("draw", (np.array(-1), np.array(0))))
    for law in np.flatnonzero(legal["candidates"]):
        sides = (0,) if options[law, 0] == options[law, 1] else (0, 1)
        out += [(_law_label(int(law), s, rules, options), (np.array(law), np.array(s))) for s in sides]
    if values is not None:
        out = [
            (label, a) for label, a in out if label == "draw" and "draw" in values or label.split(" / ")[0] in values
        ]
    return out


def _scaled_bids(played: Answer, legal: dict[str, Any], rules: Rules, values: list | None) -> list[tuple[str, Answer]]:
    """The bids played times each factor (1 is the bid played): every base and cap scaled and rounded, the step and
    the raise above the base kept, at most ``MAX_BID``."""
    base, step, cap = (np.asarray(a, dtype=np.int64) for a in played)
    out = []
    for factor in values if values is not None else (0.0, 0.5, 1.0, 1.5, 2.0):
        if factor == 1:
            out.append(("x1", played))
            continue
        scaled = np.minimum(np.round(base * factor).astype(np.int64), MAX_BID)
        raised = np.clip(scaled + (cap - base), 0, MAX_BID) if factor else np.zeros_like(cap)
        out.append((f"x{factor:g}", (scaled, np.where(scaled > 0, step, 0), raised)))
    return out


def _factor(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError("expected a factor, a number 0..100") from None
    if not 0 <= value <= 100:
        raise ValueError("expected a factor, a number 0..100")
    return value


def _yes_no(played: Answer, legal: dict[str, Any], rules: Rules, values: list | None) -> list[tuple[str, Answer]]:
    return [
        (label, (np.array(flag),))
        for label, flag in (("no", False), ("yes", True))
        if values is None or label in values
    ]


def _tiers(played: Answer, legal: dict[str, Any], rules: Rules, values: list | None) -> list[tuple[str, Answer]]:
    """Not retiring, and every tier the family can afford."""
    tiers = [-1, *np.flatnonzero(legal["affordable"]).tolist()]
    return [(_tier_label(t), (np.array(t),)) for t in tiers if values is None or _tier_label(t) in values]


def _tier_label(tier: int) -> str:
    return "none" if tier < 0 else f"tier {tier}"


def _plans(played: Answer, legal: dict[str, Any], rules: Rules, values: list | None) -> list[tuple[str, Answer]]:
    """Every candidate of the searching seat's portfolio (an answer is its place among them)."""
    labels = legal["labels"]
    return [(label, (np.array(i),)) for i, label in enumerate(labels) if values is None or label in values]


def _word(choices: tuple[str, ...]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}")
        return text

    return parse


DECISIONS = {
    d.name: d
    for d in (
        Decision(
            "take_loans",
            "the loans the Chairman takes (R-CHAIRMAN)",
            "every legal count, 0 to the loans the Company may still take; --values: counts",
            _count_value,
            _count("max_loans"),
            lambda a, legal, rules: str(int(a[0])),
        ),
        Decision(
            "pay_dividends",
            "the payouts the Chairman declares (L203-L208)",
            "every legal count of payouts, 0 to what the balance covers; --values: counts",
            _count_value,
            _count("max_payouts"),
            lambda a, legal, rules: str(int(a[0])),
        ),
        Decision(
            "table_law",
            "the law the Prime Minister tables and its policy, or drawing another (R-PARLIAMENT)",
            "every candidate law with either of its two policies, and drawing another where allowed; --values: law "
            "names or draw",
            str,
            _laws,
            lambda a, legal, rules: "draw" if int(a[0]) < 0 else rules.parliament.laws[int(a[0])].name,
        ),
        Decision(
            "table_deregulation",
            "whether the Prime Minister tables Deregulation (R-DEREGULATION)",
            "no and yes; --values: no, yes",
            _word(("no", "yes")),
            _yes_no,
            lambda a, legal, rules: "yes" if bool(a[0]) else "no",
        ),
        Decision(
            "retire",
            "the retirement tier an office holder's family buys, or none (R-RETIRE)",
            "none and every tier the family can afford; --values: none, tier 0, tier 1, ...",
            str,
            _tiers,
            lambda a, legal, rules: _tier_label(int(a[0])),
        ),
        Decision(
            "bid",
            "the family's sealed bids on every lot, (base, step, cap) (R-AUCTION)",
            "the bids played scaled by 0, 0.5, 1 (as played), 1.5 and 2; --values: factors",
            _factor,
            _scaled_bids,
            lambda a, legal, rules: "x1",
            setup=True,
        ),
        Decision(
            "plan",
            "the strategy a searching seat plays for the step, its search's pick (sim.lookahead; --round 0: setup)",
            "every candidate of its portfolio; --values: their labels",
            str,
            _plans,
            lambda a, legal, rules: legal["labels"][int(a[0])],
            setup=None,
        ),
    )
}
OPTIONS = {  # the legal options each decision's alternatives read
    "take_loans": ("max_loans",),
    "pay_dividends": ("max_payouts",),
    "table_law": ("candidates", "can_draw", "options"),
    "table_deregulation": (),
    "retire": ("affordable",),
    "bid": (),
    "plan": (),
}


def parse_values(decision: Decision, text: str | None) -> list | None:
    """The ``--values`` of ``decision`` (None: its default alternatives)."""
    if text is None:
        return None
    items = [x.strip() for x in text.split(",") if x.strip()]
    if not items:
        raise AuditError("--values: names no value (write them comma-separated, e.g. --values 0,4,8)")
    values = []
    for item in items:
        try:
            values.append(decision.parse(item))
        except ValueError as err:
            raise AuditError(f"--values {item!r}: not a value of {decision.name} ({err})") from None
    return values


# -------------------------------------------------------------------------------------- watching and forcing
class Watch:
    """``Agents.override`` while round R plays: the first answer of each (game, seat) to the decision, and the legal
    options its alternatives need. It changes nothing."""

    def __init__(self, decision: str, options: tuple[str, ...]):
        self.decision, self.options, self.on = decision, options, True
        self.seen: dict[tuple[int, int], tuple[Answer, dict[str, Any]]] = {}

    def __call__(self, decision: str, state: Any, idx: np.ndarray, seat: np.ndarray, answer: Answer, legal: Any):
        if self.on and decision == self.decision:
            shown = {name: getattr(legal, name) for name in self.options}
            for r in range(idx.size):
                key = (int(state.game[idx[r]]), int(seat[r]))
                if key not in self.seen:
                    row = {k: v[r] if isinstance(v, np.ndarray) and v.ndim and v.shape[0] == idx.size else v
                           for k, v in shown.items()}  # fmt: skip
                    self.seen[key] = (tuple(np.array(a[r]) for a in answer), row)
        return answer


class Forcing:
    """``Agents.override`` while round R plays in the copies: copy ``i``'s seat ``seat[i]`` answers ``answers[i]`` the
    first time it is asked the decision."""

    def __init__(self, decision: str, seat: np.ndarray, answers: list[Answer]):
        self.decision, self.seat, self.answers, self.on = decision, seat, answers, True
        self.pending = np.ones(seat.size, dtype=bool)

    def __call__(self, decision: str, state: Any, idx: np.ndarray, seat: np.ndarray, answer: Answer, legal: Any):
        if not self.on or decision != self.decision:
            return answer
        hit = np.flatnonzero(self.pending[idx] & (seat == self.seat[idx]))
        if hit.size == 0:
            return answer
        answer = tuple(np.array(a, copy=True) for a in answer)
        for r in hit:
            for a, forced in zip(answer, self.answers[idx[r]], strict=True):
                a[r] = forced
        self.pending[idx[hit]] = False
        return answer


class PlanWatch:
    """The table's planner while step R plays: after the searches pick, the plan of each searching (game, seat), as
    its place among its search's candidates (``legal["labels"]``)."""

    def __init__(self, planner: Planner, rnd: int):
        self.planner, self.rnd, self.on = planner, rnd, True
        self.seen: dict[tuple[int, int], tuple[Answer, dict[str, Any]]] = {}

    def __call__(self, table: Table) -> None:
        self.planner(table)
        if not self.on or table.next_round != self.rnd:
            return
        state, seats = table.state, table.seats()
        labels = table.agents.labels(state.n_games)
        for strategy in self.planner.searches:
            candidates = tuple(self.planner.strategies[i].label for i in self.planner.candidates[strategy])
            for g, s in zip(*np.nonzero((seats == strategy) & ~state.done[:, None]), strict=True):
                picked = candidates.index(str(labels[g, s]))
                self.seen[(int(state.game[g]), int(s))] = ((np.array(picked),), {"labels": candidates})


class PlanForcing:
    """A copy's planner while step R plays: the searches pick as they did, then copy ``i``'s seat ``seat[i]`` plays its
    search's candidate ``answers[i]`` instead."""

    def __init__(self, planner: Planner, rnd: int, seat: np.ndarray, answers: list[Answer], strategy: np.ndarray):
        self.planner, self.rnd, self.seat, self.on = planner, rnd, seat, True
        candidates = [self.planner.candidates[int(t)][int(a[0])] for t, a in zip(strategy, answers, strict=True)]
        self.candidate = np.array(candidates, dtype=np.int64)

    def __call__(self, table: Table) -> None:
        self.planner(table)
        if self.on and table.next_round == self.rnd:
            n = table.state.n_games  # every copy plays this step: none has ended yet, none is set aside
            table.agents.reseat(np.arange(n), self.seat, self.candidate, n)
            self.on = False


# ------------------------------------------------------------------------------------------------ the audit
@dataclass
class Audit:
    """What ``audit`` found: the rows written, where, and the number of games whose played answer was forced."""

    rows: pl.DataFrame
    path: Path
    reproduced: int
    decision: str
    round: int


def _play_from(table: Table, rnd: int, watching: Any, after: Callable[[Table], None] | None = None) -> Any:
    """Play ``table`` (at the start of step ``rnd``) to the end with ``watching`` on during that step (an
    ``Agents.override``, or the table's planner for a plan); the final state. ``after(table)``: after each step."""
    after = after or (lambda table: None)
    if isinstance(watching, Watch | Forcing):
        table.agents.override = watching
    else:
        table.planner = watching
    if rnd == 0:
        table.setup()
    else:
        table.play_round()
    after(table)
    watching.on = False
    while table.playing:
        table.play_round()
        after(table)
    return table.finish()[0]


def audit(
    run_dir: Path,
    decision: str,
    rnd: int,
    arm_name: str | None = None,
    strategy: str | None = None,
    values_text: str | None = None,
    games: int | None = None,
    progress: Callable[..., None] | None = None,
    allow_plugins: bool = False,
) -> Audit:
    """Audit ``decision`` in round ``rnd`` of the run in ``run_dir`` (its first ``games`` games; the seats of
    ``strategy`` only); write the rows and return them. ``allow_plugins``: import the run's plugins
    (``replay.open_arm``). ``progress`` is told each step, ``progress(step)``, and the copies played,
    ``progress(step, done, total)`` (``cli.Steps``); it changes nothing written."""
    tell = progress or _quiet
    run_dir = Path(run_dir)
    if decision not in DECISIONS:
        raise AuditError(
            f"--decision {decision!r}: not a decision the audit can force (it can: {', '.join(DECISIONS)})"
        )
    d = DECISIONS[decision]
    values = parse_values(d, values_text)
    meta, exp, arm, run = open_arm(run_dir, arm_name, AuditError, "audit", allow_plugins)
    rules = arm.rules()
    rounds = rules.game.rounds
    if d.setup and rnd != 0:
        raise AuditError(f"--round {rnd}: {decision} is decided at setup only (--round 0)")
    if d.setup is False and not 1 <= rnd <= rounds:
        raise AuditError(f"--round {rnd}: {decision} is decided in rounds 1..{rounds}")
    if d.setup is None and not 0 <= rnd <= rounds:
        raise AuditError(f"--round {rnd}: {decision} is decided at setup (0) and in rounds 1..{rounds}")
    total = int(meta.get("games_per_arm") or exp.games)
    if games is not None and not 1 <= games <= total:
        raise AuditError(f"--games {games}: the arm has {total} games (1..{total})")
    labels, _ = arm.seating(np.arange(1))
    if strategy is not None and strategy not in labels:
        raise AuditError(
            f"--strategy {strategy!r}: no seat of arm {arm.name!r} plays it (it seats {', '.join(labels)})"
        )
    n_games = total if games is None else games
    stem = f"{decision}_r{rnd}" + (f"-{_safe(arm.name)}" if arm_name is not None else "")
    stem += f"-{_safe(strategy)}" if strategy is not None else ""
    target = f"{AUDIT}/{stem}.parquet"
    rf.check_targets(run_dir, [target])  # a link in the way is refused before the games are played
    tell(f"reading the run's ends of {n_games:,} games")
    stored = _stored(run, arm.index, n_games)
    parts, reproduced = [], 0
    for lo in range(0, n_games, BATCH):
        ids = np.arange(lo, min(lo + BATCH, n_games), dtype=np.int64)
        where = "" if n_games <= BATCH else f"games {lo + 1:,}–{ids[-1] + 1:,} of {n_games:,}: "
        part, same = _audit_games(exp, arm, meta, rules, d, rnd, ids, strategy, values, stored, tell, where)
        parts.append(part)
        reproduced += same
    rows = pl.concat(parts) if parts else pl.DataFrame()
    if rows.height == 0:
        who = f"no seat of {strategy!r}" if strategy else "no seat"
        raise AuditError(f"{who} makes {decision} in {_step(rnd)} of the run's first {n_games:,} games")
    rows = rows.with_columns(pl.lit(arm.name).alias("arm")).sort("game", "seat", "alternative")
    tell(f"writing {target}")
    with rf.open_write(run_dir, target) as fh:  # neither the folder nor the file a link followed
        rows.write_parquet(fh)
    return Audit(rows, Path(run_dir) / target, reproduced, decision, rnd)


def _quiet(step: str, done: int | None = None, total: int | None = None) -> None:
    """No progress told."""


def _step(rnd: int) -> str:
    return "setup" if rnd == 0 else f"round {rnd}"


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "._=-" else "_" for c in name)


def _stored(run: rf.Run, arm: int, n_games: int) -> pl.DataFrame:
    """The run's end of each game: winner seat, crash, end round and every seat's VP, by game."""
    games = (
        run.scan("games")
        .filter((pl.col("arm_index") == arm) & (pl.col("game") < n_games))
        .select("game", "winner_seat", "crashed", "end_round")
    )
    vp = (
        run.scan("seats")
        .filter((pl.col("arm_index") == arm) & (pl.col("game") < n_games))
        .group_by("game")
        .agg(pl.col("vp").sort_by("seat"))
    )
    return games.join(vp, on="game").sort("game").collect()


def _audit_games(
    exp: Any,
    arm: Any,
    meta: dict,
    rules: Rules,
    d: Decision,
    rnd: int,
    ids: np.ndarray,
    strategy: str | None,
    values: list | None,
    stored: pl.DataFrame,
    tell: Callable[..., None] = _quiet,
    where: str = "",
) -> tuple[pl.DataFrame, int]:
    """The audit rows of games ``ids`` and the number of games whose played answer reproduced the game; ``tell``
    (``audit``'s ``progress``) is told the steps of the game (setup, each round) the replay and the copies have
    played, each named after ``where``."""
    steps = rules.game.rounds + 1  # setup, then each round
    replay = f"{where}replaying {ids.size:,} games as the run played them: setup and rounds"
    tell(replay, 0, steps)
    labels, seating = arm.seating(ids)
    made = [_make(arm, name) for name in labels]
    with calibrated.applied(made, calibration_values(meta, arm)):
        planner = Planner.seated(rules, made, exp.seed)
        table = Table(rules, planner.strategies if planner else made, exp.seed, ids, seating, False, planner)
        if rnd >= 1:
            table.setup()
            tell(replay, table.next_round, steps)
            while table.playing and table.next_round < rnd:
                table.play_round()
                tell(replay, table.next_round, steps)
        if rnd >= 1 and not table.playing:
            return pl.DataFrame(), 0
        start = table.fork(np.arange(table.state.n_games), planner=planner)  # the games at round R's start
        if d.name == "plan":
            if planner is None:
                raise AuditError(f"--decision plan: no seat of arm {arm.name!r} searches (a lookahead seat does)")
            watch: Watch | PlanWatch = PlanWatch(planner, rnd)
        else:
            watch = Watch(d.name, OPTIONS[d.name])
        final = _play_from(table, rnd, watch, lambda t: tell(replay, min(t.next_round, steps), steps))
        tell(replay, steps, steps)
        _check_run(final, stored, ids, rnd)
        at = {int(g): i for i, g in enumerate(start.state.game)}  # game -> its position in ``start``
        seats_label = np.array(labels, dtype=object)[seating]  # [G, N] the table's strategy at each seat
        deciders = [
            (g, s, answer, legal)
            for (g, s), (answer, legal) in sorted(watch.seen.items())
            if strategy is None or seats_label[g - ids[0], s] == strategy
        ]
        rows: list[tuple[int, int, str, str, bool]] = []  # (game, seat, played, alternative, is_played)
        answers: list[Answer] = []
        for g, s, answer, legal in deciders:
            played = d.label(answer, legal, rules)
            listed = d.listed(answer, legal, rules, values)
            if not any(_equal(a, answer) for _, a in listed):
                listed.append((played, answer))  # the played answer is always replayed: the check needs it
            for label, alt in listed:
                rows.append((g, s, played, label, _equal(alt, answer)))
                answers.append(alt)
        outcome = []
        unit = "setup and rounds" if rnd == 0 else "rounds"
        copies = f"{where}playing {len(rows):,} copies (a game and an alternative each) from {_step(rnd)}: {unit}"
        left = steps - rnd  # the steps each batch of copies plays: step rnd to the last round
        batches = -(-len(rows) // BATCH)
        if rows:
            tell(copies, 0, batches * left)
        for b, lo in enumerate(range(0, len(rows), BATCH)):
            chunk = rows[lo : lo + BATCH]
            pos = np.array([at[g] for g, *_ in chunk], dtype=np.int64)
            seat = np.array([s for _, s, *_ in chunk], dtype=np.int64)
            copy = start.fork(pos, planner=planner)
            if d.name == "plan":
                searching = np.asarray(copy.seats()[np.arange(pos.size), seat])
                forcing: Forcing | PlanForcing = PlanForcing(planner, rnd, seat, answers[lo : lo + BATCH], searching)
            else:
                forcing = Forcing(d.name, seat, answers[lo : lo + BATCH])
            ended = _play_from(
                copy, rnd, forcing, lambda t, b=b: tell(copies, b * left + t.next_round - rnd, batches * left)
            )
            outcome.append((ended, seat))
            tell(copies, (b + 1) * left, batches * left)
    return _rows(rows, outcome, final, seats_label, ids, d.name, rnd)


def _equal(a: Answer, b: Answer) -> bool:
    return all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(a, b, strict=True))


def _check_run(final: Any, stored: pl.DataFrame, ids: np.ndarray, rnd: int) -> None:
    """The games played again end as the run's frames say (winner, crash, end round, every seat's VP)."""
    theirs = stored.filter(pl.col("game").is_between(int(ids[0]), int(ids[-1])))
    ok = (
        theirs.height == ids.size
        and np.array_equal(theirs["winner_seat"].to_numpy(), final.winner)
        and np.array_equal(theirs["crashed"].to_numpy(), final.crashed)
        and np.array_equal(theirs["end_round"].to_numpy(), final.end_round)
        and np.allclose(np.stack(theirs["vp"].to_list()), final.vp.sum(axis=2), rtol=0, atol=1e-9)
    )
    if not ok:
        raise AuditError(
            f"the run's games {ids[0]}..{ids[-1]} do not play again as the run played them: the engine, the "
            "strategies or a plugin changed since the run"
        )


def _rows(rows, outcome, final, seats_label, ids, decision, rnd) -> tuple[pl.DataFrame, int]:
    """The audit frame of the copies played, and how many played answers reproduced their game exactly."""
    if not rows:
        return pl.DataFrame(), 0
    won, vp, margin, winner, crashed, end_round, same = ([] for _ in range(7))
    for ended, seat in outcome:
        everyone = np.arange(seat.size)
        total = ended.vp.sum(axis=2)
        mine = total[everyone, seat]
        others = total.copy()
        others[everyone, seat] = -np.inf
        won.append(ended.winner == seat)
        vp.append(mine)
        margin.append(mine - others.max(axis=1))
        winner.append(ended.winner)
        crashed.append(ended.crashed)
        end_round.append(ended.end_round)
        real = final.take(np.searchsorted(final.game, ended.game))  # the game as the run played it
        same.append(same_games(ended, real))
    same_all = np.concatenate(same)
    is_played = np.array([r[4] for r in rows])
    bad = is_played & ~same_all
    if bad.any():
        g, s = rows[int(np.flatnonzero(bad)[0])][:2]
        raise AuditError(
            f"game {g}: forcing seat {s}'s {decision} in round {rnd} to the answer it played did not play the game "
            "again exactly (a strategy that keeps memory between calls cannot be audited)"
        )
    game = np.array([r[0] for r in rows], dtype=np.int64)
    seat = np.array([r[1] for r in rows], dtype=np.int8)
    frame = pl.DataFrame(
        {
            "game": game,
            "seat": seat,
            "strategy": seats_label[game - ids[0], seat.astype(np.int64)].astype(str),
            "decision": np.full(game.size, decision),
            "round": np.full(game.size, rnd, dtype=np.int8),
            "played": [r[2] for r in rows],
            "alternative": [r[3] for r in rows],
            "is_played": is_played,
            "winner": np.concatenate(winner),
            "won": np.concatenate(won),
            "vp": np.concatenate(vp),
            "margin": np.concatenate(margin),
            "crashed": np.concatenate(crashed),
            "end_round": np.concatenate(end_round),
        }
    )
    return frame, int(is_played.sum())


# -------------------------------------------------------------------------------------------- the summary
def summary(rows: pl.DataFrame) -> pl.DataFrame:
    """Per alternative: ``n`` deciders for whom it was legal; the change in their win rate (``d_win`` with
    ``win_lo``/``win_hi``, Newcombe's paired interval) and in their final VP (``d_vp``, ``vp_lo``/``vp_hi``, a paired
    t interval) against the answer each played, and the crash rate with it; the played answer's own rates."""
    played = rows.filter(pl.col("is_played")).select(
        "game", "seat", pl.col("won").alias("won_0"), pl.col("vp").alias("vp_0")
    )
    paired = rows.join(played, on=["game", "seat"])
    grouped = (
        paired.with_columns(
            (pl.col("won") & pl.col("won_0")).alias("a"),
            (pl.col("won") & ~pl.col("won_0")).alias("b"),
            (~pl.col("won") & pl.col("won_0")).alias("c"),
            (~pl.col("won") & ~pl.col("won_0")).alias("d"),
            (pl.col("vp") - pl.col("vp_0")).alias("dvp"),
        )
        .group_by("alternative")
        .agg(
            pl.len().alias("n"),
            pl.col("is_played").sum().alias("played"),
            pl.col("won").mean().alias("win"),
            pl.col("crashed").mean().alias("crash"),
            *(pl.col(x).sum().alias(x) for x in "abcd"),
            pl.col("dvp").sum().alias("sum_d"),
            (pl.col("dvp") ** 2).sum().alias("sum_d2"),
        )
    )
    est, lo, hi = paired_diff_ci(*(grouped[x].to_numpy() for x in "abcd"))
    mean, vlo, vhi = paired_mean_ci(grouped["n"].to_numpy(), grouped["sum_d"].to_numpy(), grouped["sum_d2"].to_numpy())
    out = grouped.select("alternative", "n", "played", "win", "crash").with_columns(
        pl.Series("d_win", est), pl.Series("win_lo", lo), pl.Series("win_hi", hi),
        pl.Series("d_vp", mean), pl.Series("vp_lo", vlo), pl.Series("vp_hi", vhi),
    )  # fmt: skip
    return out.sort(_order_key(out["alternative"]))


def _order_key(labels: pl.Series) -> pl.Series:
    """Alternatives in a natural order: counts and factors by value, others by name."""

    def key(text: str) -> tuple:
        number = text[1:] if text.startswith("x") else text
        try:
            return (0, float(number), text)
        except ValueError:
            return (1, 0.0, text)

    order = sorted(range(labels.len()), key=lambda i: key(labels[i]))
    ranks = np.empty(labels.len(), dtype=np.int64)
    ranks[order] = np.arange(labels.len())
    return pl.Series(ranks)


def best(table: pl.DataFrame) -> str | None:
    """The alternative with the highest change in win rate (then in VP) among those legal in at least half the games
    where the decision was made; None when no alternative beats the answers played."""
    n = int(table["n"].max()) if table.height else 0
    common = table.filter((pl.col("n") * 2 >= n) & (pl.col("played") < pl.col("n")))
    if common.height == 0:
        return None
    top = common.sort(["d_win", "d_vp"], descending=True, nulls_last=True).row(0, named=True)
    return top["alternative"] if top["d_win"] > 0 or (top["d_win"] == 0 and top["d_vp"] > 0) else None


def lines(result: Audit) -> list[str]:
    """The terminal's account of an audit: the reproduction check first, then a row per alternative."""
    rows = result.rows
    deciders = rows.filter(pl.col("is_played")).height
    table = summary(rows)
    step = _step(result.round)
    out = [
        f"audit: forcing the answer played reproduced all {result.reproduced:,} decisions' games exactly",
        f"{result.decision} in {step}: {deciders:,} decisions in {rows['game'].n_unique():,} games "
        f"(as played: wins {100 * rows.filter(pl.col('is_played'))['won'].mean():.1f} %)",
    ]
    width = max(11, *(len(a) for a in table["alternative"].to_list()))
    out.append(f"{'alternative':<{width}} {'n':>6} {'played':>7} {'Δ win rate (95 % CI)':>28} {'Δ VP (95 % CI)':>24} "
               f"{'crash':>7}")  # fmt: skip
    for r in table.iter_rows(named=True):
        win = f"{_pp(r['d_win'])} ({_pp(r['win_lo'])} to {_pp(r['win_hi'])})"
        vp = f"{_signed(r['d_vp'])} ({_signed(r['vp_lo'])} to {_signed(r['vp_hi'])})"
        out.append(
            f"{r['alternative']:<{width}} {r['n']:>6,} {100 * r['played'] / r['n']:>6.1f}% {win:>28} {vp:>24} "
            f"{100 * r['crash']:>6.1f}%"
        )
    top = best(table)
    if top is None:
        out.append("best: the answers played (no alternative beats them)")
    else:
        r = table.filter(pl.col("alternative") == top).row(0, named=True)
        sure = r["win_lo"] > 0 or (r["d_win"] == 0 and r["vp_lo"] > 0)
        out.append(
            f"best: {top} ({_pp(r['d_win'])} wins, {_signed(r['d_vp'])} VP; "
            + ("its interval clears 0)" if sure else "its interval includes 0: no better than the answers played)")
        )
    out.append(f"written: {result.path}")
    return out


def _pp(x: float | None) -> str:
    return "—" if x is None or x != x else f"{100 * x:+.1f} pp".replace("-", "−")


def _signed(x: float | None) -> str:
    return "—" if x is None or x != x else f"{x:+.2f}".replace("-", "−")


def print_audit(result: Audit) -> None:
    print("\n".join(lines(result)), file=sys.stdout)
