"""Replay one game of a finished run with a trace: ``eastindia replay RUN_DIR --game N [--arm A]``.

A game's play depends on its index alone (its dice streams are keyed by the seed and the game index), so game N is
played again at batch 1 with the run's rules, strategies, seating and seed, read from ``experiment.toml``. While it
plays, ``Agents.trace`` records every decision asked (seat, strategy, decision, the legal options in brief, the
answer, and ``says``: the decision in words, ``replay_words``) and ``sim.trace.recorder`` the money flows, dice,
votes, stability changes, offices and events; the rows the replay records are checked against the run's frames
(``rounds``, ``seats``), and a replay that does not reproduce them is refused. The ``end`` event of a crashed game
says what ended it (``crash``: the last round's stability changes and their rules) and what the public-blame
situation drawn costs (``blame_means``). Written: ``RUN_DIR/replays/game-<N>[-<arm>].jsonl`` (one JSON object per
event, each with ``round``, ``phase``, ``kind``) and ``.html`` (a self-contained game report: the verdict, the
stability and money charts with axes and a key of the seats, then the game round by round).
"""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from sim import layout as L
from sim import trace as tracing
from sim.agents import Agents
from sim.engine import play_batch
from sim.laws import DEREGULATION, DEREGULATION_BY
from sim.results import Results
from sim.state import STABILITY_CAUSES, TALLY
from strategies import calibration as calibrated

from . import replay_words as words
from . import runfolder as rf
from . import runmeta, spec
from .runner import RunError, _make

BRIEF = 12  # values shown of an array option or answer; more are summarised


class ReplayError(RunError):
    """The game cannot be replayed (not in the run, or the replay does not reproduce the run's frames)."""


def _brief(value: Any) -> Any:
    """A JSON-able short form of an option or answer for one game."""
    a = np.asarray(value)
    if a.size > BRIEF:
        nz = np.flatnonzero(a.ravel())
        return {"shape": list(a.shape), "nonzero": int(nz.size), "sum": float(a.sum()) if a.dtype != object else None}
    return a.tolist()


def _phase(frame: Any) -> str:
    """The phase the engine is playing (the outermost ``sim/phases/<phase>.py`` on the call stack from ``frame``):
    only when tracing."""
    phase = "engine"
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith("sim.phases."):
            phase = module.rsplit(".", 1)[1]
        frame = frame.f_back
    return phase


def _entries(amount: Any, rows: Any = None, cols: Any = None) -> list[tuple[int | None, int]]:
    """(column or None, amount) of the batch's game 0 (the replayed game): ``amount`` is a full-batch array (games
    first; ``cols`` a column for all of them) or, with ``rows``, per entry ``m`` of games ``rows[m]`` (columns
    ``cols[m]``)."""
    a = np.asarray(amount)
    if rows is None:
        picked = [(a if a.ndim else a.reshape(1))[0]]
        at = [cols]
    else:
        rows = np.asarray(rows)
        rows = np.flatnonzero(rows) if rows.dtype == bool else rows
        ms = np.flatnonzero(rows == 0)
        a = a if a.ndim else np.broadcast_to(a, rows.shape)
        picked = [a[m] for m in ms]
        at = [None if cols is None else np.broadcast_to(np.asarray(cols), rows.shape)[m] for m in ms]
    out: list[tuple[int | None, int]] = []
    for value, col in zip(picked, at, strict=True):
        if col is not None:
            out.append((int(col), int(value)))
        elif np.ndim(value) == 0:
            out.append((None, int(value)))
        else:
            out += [(k, int(v)) for k, v in enumerate(np.asarray(value).ravel())]
    return out


# Tallies that are no event of their own (money is traced as flows, stability as its own events)
QUIET = set(STABILITY_CAUSES) | {"stability_change", "deregulation_by"}


class Trace:
    """The recorder of one replayed game (a batch of one): ``Agents.trace`` (the decisions) and ``sim.trace``'s
    recorder (money flows, dice, votes; offices, stability and events read at the end of every phase)."""

    def __init__(self, labels: list[str]):
        self.labels, self.events = labels, []
        self.state: Any = None

    # ---------------------------------------------------------------------------------------------- helpers
    def _add(self, kind: str, state: Any, phase: str | None = None, **fields: Any) -> None:
        phase = phase or _phase(sys._getframe(2))
        rnd = 0 if phase == "setup" else int(state.end_round[0] or state.round[0])
        self.events.append({"round": rnd, "phase": phase, "kind": kind, **fields})

    def _holder(self, kind: str, col: int | None) -> str:
        if kind == "company":
            return "Company"
        if kind == "seat":
            return f"seat {col}"
        if kind == "treasury":
            return f"{self.treasuries[col]} treasury"
        return f"firm {col}" + (" (India)" if kind == "firm_india" else "")

    def _snapshot(self, state: Any) -> None:
        self.last = {name: getattr(state, name)[0].copy() for name in SNAPSHOT}

    # ----------------------------------------------------------------------------------------- engine hooks
    def start(self, state: Any, rules: Any) -> None:
        """The start position: the Company's holdings come from the bank (flow ``company_start``)."""
        self.state, self.rules = state, rules
        self.names = words.Names(rules)
        presidencies = tuple(p.name for p in rules.map.presidencies)
        self.offices = L.office_names(presidencies)
        self.treasuries = ("director_of_trade", "shipping_manager", *presidencies)
        self.regions = [r.name for r in rules.map.regions]
        self.laws = [law.name for law in rules.parliament.laws]
        self.cards = [c.name for c in rules.positions.deck]
        for kind, held in (("company", state.balance), ("treasury", state.treasury), ("seat", state.money)):
            self._flows(state, "company_start" if kind != "seat" else "starting_capital", kind, _entries(held), "setup")
        self._snapshot(state)
        self.tally = np.zeros_like(state.tally[0])

    def _flows(self, state: Any, flow: str, kind: str, entries: list, phase: str | None = None) -> None:
        phase = phase or _phase(sys._getframe(3))
        for col, v in entries:
            if v:
                h = self._holder(kind, col)
                src, dst = ("bank", h) if v > 0 else (h, "bank")
                self._add("flow", state, phase, **{"from": src, "to": dst, "amount": abs(v), "flow": flow})

    def flow(self, state: Any, flow: str, kind: str, amount: Any, rows: Any = None, cols: Any = None) -> None:
        """Money into (+) or out of (-) the game through the ledger's ``flow``."""
        self._flows(state, flow, kind, _entries(amount, rows, cols))

    def transfer(self, state: Any, what: str, *parts: tuple) -> None:
        """Money moved between holdings inside the game: ``parts`` are (kind, amount[, rows[, cols]]) whose amounts
        add up to 0; each payer's money goes to the receivers in order."""
        delta: dict[str, int] = {}
        for kind, amount, *where in parts:
            for col, v in _entries(amount, *where):
                name = self._holder(kind, col)
                delta[name] = delta.get(name, 0) + v
        payers = [[h, -v] for h, v in delta.items() if v < 0]
        phase = _phase(sys._getframe(1))
        for h, v in delta.items():
            while v > 0:  # a receiver whose payers fall short is paid the rest by the bank (never in a sound game)
                src = payers[0] if payers else ["bank", v]
                moved = min(v, src[1])
                self._add("flow", state, phase, **{"from": src[0], "to": h, "amount": moved, "flow": what})
                v -= moved
                src[1] -= moved
                if payers and src[1] == 0:
                    payers.pop(0)
        for h, v in payers:  # what payers hand over beyond the receivers' share leaves the game (never, either)
            if v:
                self._add("flow", state, phase, **{"from": h, "to": "bank", "amount": v, "flow": what})

    def roll(self, dice: str, idx: Any, values: Any, extra: Any) -> None:
        """The engine's dice: ``d6`` faces (``extra``: the dice each game used), the ``lowest`` of ``extra`` dice,
        ``uniform`` draws (shuffles, random picks)."""
        at = np.flatnonzero(np.asarray(idx) == 0)
        if at.size == 0:
            return
        m = int(at[0])
        frame = sys._getframe(1)
        while frame.f_globals.get("__name__") == "sim.dice":
            frame = frame.f_back
        what = f"{frame.f_globals['__name__'].rsplit('.', 1)[1]}.{frame.f_code.co_name}"
        if dice == "d6":
            faces = np.asarray(values)[m].tolist()
            fields = {"faces": faces[: int(np.asarray(extra)[m])] if extra is not None else faces}
        elif dice == "lowest":
            fields = {"dice": int(np.broadcast_to(np.asarray(extra), np.shape(idx))[m]), "lowest": int(values[m])}
        else:
            fields = {"values": [round(float(u), 3) for u in np.asarray(values)[m]]}
        self._add("roll", self.state, _phase(frame), what=what, roll=dice, **fields)

    def vote(self, state: Any, rows: Any, law: Any, support: Any, votes_for: Any, against: Any, dereg: bool) -> None:
        """A vote of Parliament in games ``rows``: who voted for and against, the public support, the outcome."""
        if not rows[0]:
            return
        s, yes, no = int(support[0]), votes_for[0].tolist(), against[0].tolist()
        name = "Deregulation" if dereg else self.laws[int(law[0])] if int(law[0]) >= 0 else "policy"
        total_for, total_against = sum(yes) + max(s, 0), sum(no) + max(-s, 0)
        self._add("event", state, None, what="vote", law=name, support=s, votes_for=yes, votes_against=no,
                  total_for=total_for, total_against=total_against, passed=s + sum(yes) - sum(no) >= 0)  # fmt: skip

    def phase(self, state: Any, name: str) -> None:
        """The end of setup, of a phase or of the game: the stability changes and their causes, the tallies that
        moved (events), regions that changed hands, position cards played, and the offices when they changed."""
        tally = state.tally[0].copy()
        if name == "start_of_round":
            self.tally = np.zeros_like(tally)
        moved = tally - self.tally
        self.tally = tally
        stability = int(self.last["stability"])
        for cause in STABILITY_CAUSES:
            change = int(moved[TALLY[cause]])
            if change:
                self._add("stability", state, name, change=change, cause=cause.replace("stability_", ""),
                          before=stability, after=stability + change)  # fmt: skip
                stability += change
        for tally_name, i in TALLY.items():
            if moved[i] and tally_name not in QUIET:
                value = int(tally[i])
                if tally_name == "deregulation":
                    by = DEREGULATION_BY[int(tally[TALLY["deregulation_by"]])]
                    self._add("event", state, name, what="deregulation", outcome=DEREGULATION[value], tabled_by=by)
                else:
                    self._add("event", state, name, what=tally_name, count=int(moved[i]))
        last = self.last
        for r in np.flatnonzero(state.owner[0] != last["owner"]):  # R-DEPLOY conquests, R-ATTACK losses
            owner, held = int(state.owner[0, r]), int(last["owner"][r])
            self._add("event", state, name, what="region", region=self.regions[r],
                      owner=self.treasuries[2 + owner] if owner >= 0 else None,
                      army=self.names.army(owner) if owner >= 0 else None,
                      held_by=self.names.army(held) if held >= 0 else None)  # fmt: skip
        for c in np.flatnonzero(state.card_played[0] & ~last["card_played"]):
            self._add("event", state, name, what="position_card", card=self.cards[c], seat=int(state.card_owner[0, c]))
        if any(not np.array_equal(getattr(state, f)[0], last[f]) for f in SNAPSHOT[3:]):
            self._add(
                "office", state, name,
                offices={o: int(s) for o, s in zip(self.offices, state.office[0], strict=True) if s >= 0},
                governors={r: int(s) for r, s in zip(self.regions, state.governor[0], strict=True) if s >= 0},
                commanders={p: int(s) for p, s in zip(self.treasuries[2:], state.commander[0], strict=True) if s >= 0},
                prime_minister=int(state.prime_minister[0]),
                changed=[o for o, a, b in zip(self.offices, state.office[0], last["office"], strict=True) if a != b],
            )  # fmt: skip
        self._snapshot(state)

    # ------------------------------------------------------------------------------------------- decisions
    def __call__(self, agents: Agents, decision: str, state: Any, decider: np.ndarray, legal: dict, out: tuple):
        """A decision asked of a seat in the replayed game: its legal options and answer in brief, and in words
        (``replay_words.say``, from the full values)."""
        seat = int(np.asarray(decider)[0])
        if seat < 0:
            return
        mine = {k: v[0] if isinstance(v, np.ndarray) and v.ndim and v.shape[0] == 1 else v for k, v in legal.items()}
        answer = tuple(np.asarray(o[0]) for o in out)
        says = words.say(decision, mine, answer, self.names, seat)
        briefs = [_brief(a) for a in answer]
        self._add("decision", state, _phase(sys._getframe(1)), seat=seat, strategy=self.labels[seat], name=decision,
                  says=says, options={k: _brief(v) for k, v in mine.items()},
                  answer=briefs[0] if len(briefs) == 1 else briefs)  # fmt: skip


SNAPSHOT = ("stability", "owner", "card_played", "office", "governor", "commander", "prime_minister")


def open_arm(
    run_dir: Path, arm_name: str | None, error: type[RunError], verb: str, allow_plugins: bool = False
) -> tuple[dict, Any, Any, rf.Run]:
    """(run.json, the experiment, the arm, the run) of a finished, verified run folder, for a command that plays
    its games again (``verb``: "replay", "audit"); ``error`` says why not, in one line.

    The plugins its experiment.toml names are code from the folder: imported only with ``allow_plugins``
    (``--allow-plugins``), and then only files whose SHA-256 is the one run.json recorded (``PluginRefused``)."""
    try:
        meta = rf.read_meta(run_dir)
    except (OSError, ValueError, RecursionError) as err:
        raise error(f"{run_dir}: not a finished run folder ({type(err).__name__}: {err})") from None
    if why := runmeta.problem(meta):
        raise error(f"{run_dir}: {rf.META}: {why}")
    damaged = rf.verify_frames(run_dir, meta) if meta.get("status") == "complete" else "the run has not finished"
    if damaged:
        raise error(f"{run_dir}: cannot {verb}: {damaged}")
    exp = spec.load_written(run_dir / rf.EXPERIMENT, loader=_plugins(run_dir, meta, verb, allow_plugins))
    names = [a.name for a in exp.arms]
    if arm_name is None and len(exp.arms) > 1:
        raise error(f"{run_dir}: the run has {len(names)} arms; name one with --arm (its name or index: "
                    f"{rf.arm_choices(names)})")  # fmt: skip
    picked = names[0] if arm_name is None else rf.pick_arm(names, arm_name)
    arm = next((a for a in exp.arms if a.name == picked), None)
    if arm is None:
        raise error(f"--arm {arm_name!r}: neither the name nor the index of an arm in {run_dir} "
                    f"({rf.arm_choices(names)})")  # fmt: skip
    return meta, exp, arm, rf.Run(run_dir, meta)


def _plugins(run_dir: Path, meta: dict, verb: str, allowed: bool) -> spec.Loader:
    """What imports the run folder's plugins: the files run.json recorded, unchanged, when ``allowed``; else
    nothing (a one-line ``PluginRefused`` naming the plugin and the option)."""
    if allowed:
        return spec.recorded(meta.get("plugins"), str(run_dir))

    def refuse(plugin: str, base: Path | None = None, together: Any = None) -> type:
        raise spec.PluginRefused(
            f"{run_dir}: the run plays plugin {plugin!r}, code named by the run folder: {verb} imports it only with "
            "--allow-plugins (for a run folder you trust)"
        )

    return refuse


def calibration_values(meta: dict, arm: Any) -> dict | None:
    """The arm's calibrated quantities as the run played them (None: the strategies' fixed values)."""
    recorded = next((a for a in meta.get("arms", []) if a.get("index") == arm.index), {})
    return (recorded.get("calibration") or {}).get("coefficients")


def replay(run_dir: Path, game: int, arm_name: str | None = None, allow_plugins: bool = False) -> tuple[Path, Path]:
    """Replay game ``game`` of ``arm_name`` (default: the run's only arm); write the .jsonl and .html, return them.
    ``allow_plugins``: import the run's plugins (``open_arm``)."""
    run_dir = Path(run_dir)
    meta, exp, arm, run = open_arm(run_dir, arm_name, ReplayError, "replay", allow_plugins)

    def rows(frame: str) -> pl.DataFrame:
        return run.scan(frame).filter((pl.col("arm_index") == arm.index) & (pl.col("game") == game)).collect()

    stored = {frame: rows(frame) for frame in ("games", "seats", "rounds")}
    if stored["games"].height == 0:
        played = int(meta.get("games_per_arm") or 0)
        raise ReplayError(f"--game {game}: not in {run_dir} (arm {arm.name!r} played games 0..{played - 1})")
    ids = np.array([game], dtype=np.int64)
    labels, seating = arm.seating(ids)
    trace = Trace([labels[i] for i in seating[0]])
    rules = arm.rules()
    Agents.trace = tracing.recorder = trace
    made = [_make(arm, name) for name in labels]
    values = calibration_values(meta, arm)  # the arm's fit, as the run played it
    try:
        with calibrated.applied(made, values):
            _, batch = play_batch(rules, made, exp.seed, ids, seating)
    finally:
        Agents.trace = tracing.recorder = None
    mine = Results.from_batches([batch], {}).frames()
    for frame in ("games", "seats", "rounds", "seat_rounds"):
        ours = mine[frame]
        theirs = rows(frame) if frame != "games" else stored["games"]
        if not set(ours.columns) <= set(theirs.columns) or not ours.equals(theirs.select(ours.columns)):
            raise ReplayError(
                f"{run_dir}: game {game} does not replay as the run played it ({frame} differ): the engine, the "
                "strategies or a plugin changed since the run"
            )
    events = _events(trace.events, mine, labels=trace.labels)
    events[-1].update(crash_cause(events, rules, trace.names))
    stem = rf.replay_stem(game, None if arm_name is None else arm.name)
    names = [f"{rf.REPLAYS}/{stem}.jsonl", f"{rf.REPLAYS}/{stem}.html"]
    rf.check_targets(run_dir, names)  # replays/ or a file in it a link: refused before either file is written
    co = rules.company
    start = {"loans": co.start_loans, "stability": co.start_stability, "max_stability": co.max_stability}
    jsonl = rf.write_file(run_dir, names[0], "".join(json.dumps(e, default=str) + "\n" for e in events))
    page = rf.write_file(run_dir, names[1], _html(events, game, arm.name, start))
    return jsonl, page


def _events(decisions: list[dict], frames: dict[str, pl.DataFrame], labels: list[str]) -> list[dict]:
    """The decisions, a ``round_end`` after each round's and the ``end``, in order."""
    seat_rounds = frames["seat_rounds"]
    out: list[dict] = []
    by_round: dict[int, list[dict]] = {}
    final = [e for e in decisions if e["phase"] == "end"]  # the end of the game's decisions (final scoring)
    for e in decisions:
        if e["phase"] != "end":
            by_round.setdefault(e["round"], []).append(e)
    out += by_round.pop(0, [])  # the auction, before round 1
    for r in frames["rounds"].iter_rows(named=True):
        rnd = r["round"]
        out += by_round.pop(rnd, [])
        seats = seat_rounds.filter(pl.col("round") == rnd).sort("seat")
        out.append(
            {
                "round": rnd,
                "phase": "end_of_round",
                "kind": "round_end",
                "stability": r["stability"],
                "loans": r["loans"],
                "balance": r["balance"],
                "money": seats["money"].to_list(),
                "vp_so_far": seats["vp_banked"].to_list(),
                "tallies": {k: v for k, v in r.items() if k not in ("game", "round") and v not in (0, False, None)},
            }
        )
    out += [e for rest in by_round.values() for e in rest] + final
    g = frames["games"].row(0, named=True)
    seats = frames["seats"].sort("seat")
    out.append(
        {
            "round": int(g["end_round"]),
            "phase": "end",
            "kind": "end",
            "crashed": g["crashed"],
            "blame": g["blame"],
            "vp": seats["vp"].to_list(),
            "winner": g["winner_seat"],
            "winner_strategy": g["winner_strategy"],
            "strategies": labels,
        }
    )
    return out


PHASE_NAMES = {"accounts": "phase 7, accounts", "india": "phase 8, India", "parliament": "phase 9, Parliament"}


def _because(change: dict, rnd: list[dict], tallies: dict, total_emergency: int, rules: Any) -> str:
    """Why stability moved by ``change`` (a ``stability`` event), from the round's events and tallies: the rule and
    the numbers it compared."""
    cause, st = change["cause"], rules.stability
    if cause == "loss_emergency":
        k = tallies.get("emergency_loans", 0)
        over = f", {total_emergency} over the game" if st.emergency_count == "cumulative" else ""
        per = "over the game" if st.emergency_count == "cumulative" else "in a round"
        return (
            f"{words.count(k, 'emergency loan')} this round{over} (−1 stability per {st.emergency_loans_per_loss} "
            f"emergency loans {per}, D-EMERGENCY)"
        )
    if cause in ("loss_expectation", "gain"):
        s = change["before"]
        expect = int(rules.d.expect[min(s, len(rules.d.expect) - 1)])
        amount, what = (
            (tallies.get("dividends", 0), "the dividends paid")
            if st.compared == "dividends" or (cause == "gain" and st.compared == "split")
            else (tallies.get("profit", 0), "the profit left after costs")
        )
        if cause == "gain":
            return f"{what}, {amount} £, covered the expectation E({s}) = {expect} £ (D-EXPECT, L206–L207)"
        return f"{what}, {amount} £, fell short of the expectation E({s}) = {expect} £ (D-EXPECT, L203–L208)"
    if cause == "loss_regions":
        lost = [e["region"] for e in rnd if e.get("what") == "region" and e["army"] is None]
        return f"Company regions lost: {words.listed(lost)} (−1 each, R-ATTACK)"
    laws = [e["law"] for e in rnd if e.get("what") == "vote"]
    return f"the effect of a law ({words.listed(laws)}; R-PARLIAMENT)"


def crash_cause(events: list[dict], rules: Any, names: words.Names) -> dict:
    """For the ``end`` event of a crashed game: ``crash``, the stability changes of its last round (phase, cause,
    change, before, after and ``because``: the rule and its numbers; ``last``: the cause that took the last point,
    as ``reports.data.crash_cause`` counts it) told in ``said``; and ``blame_means``, what the public-blame situation
    drawn is and costs (R-END, L250-L255). ``blame`` is that situation, not the cause. Nothing for a game that
    survived."""
    end = events[-1]
    if not end["crashed"]:
        return {}
    rnd = end["round"]
    in_round = [e for e in events if e["round"] == rnd and e["kind"] in ("event", "stability")]
    closing = next((e for e in events if e["kind"] == "round_end" and e["round"] == rnd), {"tallies": {}})
    total = sum(e["tallies"].get("emergency_loans", 0) for e in events if e["kind"] == "round_end")
    changes = [
        {k: e[k] for k in ("phase", "cause", "change", "before", "after")}
        | {"because": _because(e, in_round, closing["tallies"], total, rules)}
        for e in in_round
        if e["kind"] == "stability"
    ]
    losses = [c for c in changes if c["change"] < 0]
    last = losses[-1] if losses else None
    told = "; then ".join(f"{c['before']} → {c['after']}: {c['because']}" for c in changes)
    where = PHASE_NAMES.get(last["phase"], last["phase"]) if last else "?"
    said = f"The Company crashed in round {rnd} ({where}): stability {told}."
    if len(losses) > 1:
        said += f" The last point went to {CAUSE_NAMES.get(last['cause'], last['cause'])}."
    crash = {"round": rnd, "phase": last["phase"] if last else None, "changes": changes,
             "last": last["cause"].removeprefix("loss_") if last else None, "said": said}  # fmt: skip
    blame = end["blame"]
    means = (
        "A crash draws one of six public-blame situations at random (end.blame_weights; R-END, L250–L255); this "
        f"game drew {names.blame(blame, rules)}."
        if blame
        else ""
    )
    if blame and blame != "board_impeccable":
        means += " Every Company share, the chair's included, scores − share VP (L252)."
    return {"crash": crash, "blame_means": means}


CAUSE_NAMES = {  # the stability causes (sim.state.STABILITY_CAUSES), in a sentence
    "loss_emergency": "the emergency loans",
    "loss_expectation": "the missed expectation",
    "loss_regions": "the lost regions",
    "loss_laws": "a law",
}


# the seats' colours (Okabe-Ito, told apart with colour blindness), in seat order; the stability curve's
SEAT_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#F0E442", "#000000")
STABILITY_COLOUR = "#a33"
CHART = {"width": 470, "height": 230, "left": 50, "right": 12, "top": 12, "bottom": 40}  # px


def _ticks(top: int) -> list[int]:
    """Tick values 0..>= ``top``: about five, at a step of 1, 2 or 5 times a power of ten."""
    raw = max(top, 1) / 5
    step = 1
    while step * 10 <= raw:
        step *= 10
    step = next(m * step for m in (1, 2, 5, 10) if m * step >= raw)
    return list(range(0, -(-max(top, 1) // step) * step + 1, step))


def _chart(name: str, rounds: list[int], series: list[tuple[str, str, list[int]]], axis: str, unit: str,
           ticks: list[int], floor: str | None = None) -> str:  # fmt: skip
    """An SVG line chart: ``rounds`` on x (0: the start), one curve per (label, colour, values), y from 0 to the
    last of ``ticks``, each tick's value written; the axes titled (``axis`` with its ``unit``), each point a tooltip;
    ``floor`` labels the line at 0 (the crash, for stability)."""
    c = CHART
    w, h = c["width"] - c["left"] - c["right"], c["height"] - c["top"] - c["bottom"]
    x0, x1 = rounds[0], max(rounds[-1], rounds[0] + 1)

    def x(r: int) -> float:
        return c["left"] + (r - x0) / (x1 - x0) * w

    def y(v: float) -> float:
        return c["top"] + h - v / ticks[-1] * h

    out = [f'<svg class=chart id="{name}" width="{c["width"]}" height="{c["height"]}" role=img '
           f'aria-label="{html.escape(axis)} by round">']  # fmt: skip
    for v in ticks:
        out.append(f'<line class=grid x1="{c["left"]}" x2="{c["left"] + w}" y1="{y(v):.1f}" y2="{y(v):.1f}"/>'
                   f'<text class=ytick x="{c["left"] - 6}" y="{y(v) + 4:.1f}" text-anchor=end>{v}</text>')  # fmt: skip
    if floor:
        out.append(f'<text class=floor x="{c["left"] + 4}" y="{y(0) - 4:.1f}">{html.escape(floor)}</text>')
    base = c["top"] + h
    for r in rounds:
        out.append(f'<line class=axis x1="{x(r):.1f}" x2="{x(r):.1f}" y1="{base}" y2="{base + 5}"/>'
                   f'<text class=xtick x="{x(r):.1f}" y="{base + 18}" text-anchor=middle>{r}</text>')  # fmt: skip
    out.append(f'<line class=axis x1="{c["left"]}" x2="{c["left"] + w}" y1="{base}" y2="{base}"/>'
               f'<line class=axis x1="{c["left"]}" x2="{c["left"]}" y1="{c["top"]}" y2="{base}"/>'
               f'<text class=title x="{c["left"] + w / 2:.1f}" y="{c["height"] - 4}" text-anchor=middle>'
               "round (0: the start; a point: the round's end)</text>"
               f'<text class=title transform="translate(14 {c["top"] + h / 2:.1f}) rotate(-90)" text-anchor=middle>'
               f"{html.escape(axis)} ({html.escape(unit)})</text>")  # fmt: skip
    for label, colour, values in series:
        pts = [(x(r), y(v)) for r, v in zip(rounds, values, strict=False)]
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" data-series="{html.escape(label)}" '
                   f'points="{" ".join(f"{px:.1f},{py:.1f}" for px, py in pts)}"/>')  # fmt: skip
        out += [
            f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colour}"><title>{html.escape(label)}, '
            f"{'start' if r == 0 else f'round {r}'}: {v} {html.escape(unit)}</title></circle>"
            for (px, py), r, v in zip(pts, rounds, values, strict=False)
        ]
    return "".join(out) + "</svg>"


def _key(series: list[tuple[str, str, list[int]]]) -> str:
    """The charts' key: each curve's colour and label."""
    return (
        "<ul class=key>"
        + "".join(
            f'<li><span class=swatch style="background:{colour}"></span>{html.escape(label)}</li>'
            for label, colour, _ in series
        )
        + "</ul>"
    )


def _charts(events: list[dict], start: dict) -> str:
    """The stability and money charts, from the start (the money the seats held after setup: the flows of round 0)
    to each round's end."""
    ends = [e for e in events if e["kind"] == "round_end"]
    labels = events[-1]["strategies"]
    held = [0] * len(labels)
    for ev in events:
        if ev["kind"] == "flow" and ev["round"] == 0:
            for holder, sign in ((ev["to"], 1), (ev["from"], -1)):
                if holder.startswith("seat "):
                    held[int(holder.split()[1])] += sign * ev["amount"]
    rounds = [0] + [r["round"] for r in ends]
    stability = [("stability", STABILITY_COLOUR, [start["stability"]] + [r["stability"] for r in ends])]
    money = [
        (_seat(i, labels), SEAT_COLOURS[i % len(SEAT_COLOURS)], [held[i]] + [r["money"][i] for r in ends])
        for i in range(len(labels))
    ]
    crash = "0: the Company crashes (R-END)"
    top = max(v for _, _, values in money for v in values)
    scale = list(range(start["max_stability"] + 1))
    return (
        "<div class=charts><figure><figcaption>The Company's stability</figcaption>"
        + _chart("stability", rounds, stability, "stability", "points", scale, crash)
        + "</figure><figure><figcaption>Each family's money in hand</figcaption>"
        + _chart("money", rounds, money, "money in hand", "£", _ticks(top))
        + _key(money)
        + "</figure></div>"
    )


def _seat(seat: int | None, labels: list[str]) -> str:
    return "nobody" if seat is None or seat < 0 else f"seat {seat} ({labels[seat]})"


STORY_CAUSES = {  # the stability causes (sim.state.STABILITY_CAUSES) in a round's line
    "loss_emergency": "emergency loans",
    "loss_expectation": "expectation missed",
    "gain": "dividends covered the expectation",
    "loss_regions": "regions lost",
    "loss_laws": "a law",
    "gain_laws": "a law",
}
TABLED = {"pm": "the Prime Minister", "public": "the public"}


def _story(rnd: int, events: list[dict], before: dict, after: dict | None, end: dict) -> str:
    """One round told in a line, from its events: loans, votes and Deregulation, stability, India, firms, offices."""
    labels = end["strategies"]
    said: list[str] = []
    count = {e["what"]: e["count"] for e in events if e["kind"] == "event" and "count" in e}
    loans = next((e for e in events if e["kind"] == "decision" and e["name"] == "take_loans"), None)
    if count.get("loans_taken") and loans is not None:
        debt = f" (debt {before['loans']} → {after['loans']})" if after else ""
        said.append(
            f"the Chairman, {_seat(loans['seat'], labels)}, borrows {words.count(count['loans_taken'], 'loan')}{debt}"
        )
    if count.get("emergency_loans"):
        said.append(words.count(count["emergency_loans"], "emergency loan"))
    if count.get("dividends"):
        said.append(f"£{count['dividends']} of dividends")
    if count.get("storm"):
        tiles = [k.removeprefix("events_") for k in count if k.startswith("events_")]
        said.append(f"storm die {count['storm']}" + (f", event tiles: {', '.join(tiles)}" if tiles else ""))
    for what, one, many in (
        ("attacks", "attack on a Company region", "attacks on Company regions"),
        ("conquests", "conquest", "conquests"),
        ("battles", "battle", "battles"),
    ):
        if count.get(what):
            said.append(words.count(count[what], one, many))
    for e in events:
        if e["kind"] != "event":
            continue
        if e["what"] == "region":
            said.append(_region(e))
        elif e["what"] == "vote":
            verdict = f"{'passes' if e['passed'] else 'fails'} {e['total_for']}–{e['total_against']}"
            tabled = next((x["tabled_by"] for x in events if x.get("what") == "deregulation"), None)
            if e["law"] == "Deregulation" and tabled in TABLED:
                said.append(f"{TABLED[tabled]} tables Deregulation; it {verdict}")
            else:
                said.append(f"{e['law']} {verdict}")
        elif e["what"] == "deregulation" and e["tabled_by"] == "forced_round":
            said.append("Deregulation passes by the rules (deregulation.forced_round)")
        elif e["what"] == "position_card":
            said.append(f"{_seat(e['seat'], labels)} plays {e['card']}")
    if count.get("loans_written_off"):
        said.append(f"{words.count(count['loans_written_off'], 'loan')} written off")
    for what, one, many in (
        ("firms_opened", "firm opened", "firms opened"),
        ("bankruptcies", "firm bankrupt", "firms bankrupt"),
    ):
        if count.get(what):
            said.append(words.count(count[what], one, many))
    changes = [e for e in events if e["kind"] == "stability"]
    if changes:
        causes = ", ".join(f"{STORY_CAUSES.get(e['cause'], e['cause'])} {e['change']:+d}" for e in changes)
        said.append(f"stability {changes[0]['before']} → {changes[-1]['after']} ({causes})")
    if after and after["chairman"] != before.get("chairman"):
        said.append(f"the chair goes to {_seat(after['chairman'], labels)}")
    if end["crashed"] and rnd == end["round"]:
        last = end.get("crash", {}).get("last")
        said.append(
            "the Company crashes" + (f" (the last point lost to {CAUSE_NAMES['loss_' + last]})" if last else "")
        )
    return f"Round {rnd} — " + ("; ".join(said) or "a quiet round") + "."


def _region(e: dict) -> str:
    """A region changing hands, named as the rulebook names regions and armies: the Bombay army conquers Mysore
    (R-DEPLOY); the Company loses Mysore, which the Bombay army held (R-ATTACK)."""
    if e["army"] is None:
        return f"the Company loses {e['region']}" + (f", which {e['held_by']} held" if e["held_by"] else "")
    return f"{e['army']} {'takes' if e['held_by'] else 'conquers'} {e['region']}" + (
        f" from {e['held_by']}" if e["held_by"] else ""
    )


def _line(ev: dict) -> str:
    """A flow, a roll, an office or an event in brief."""
    if ev["kind"] == "flow":
        return f"£{ev['amount']} {ev['from']} → {ev['to']} ({ev['flow']})"
    if ev["kind"] == "roll":
        rolled = ev.get("faces", ev.get("lowest", ev.get("values")))
        return f"{ev['what']}: {ev['roll']} {rolled}" + (f" of {ev['dice']} dice" if "dice" in ev else "")
    if ev["kind"] == "event" and ev["what"] == "region":
        return _region(ev)
    fields = {k: v for k, v in ev.items() if k not in ("round", "phase", "kind")}
    return f"{ev['kind']}: {json.dumps(fields, default=str)}"


def _recorded(ev: dict) -> str:
    """A decision as the engine recorded it: its name, legal options and answer (arrays of more than ``BRIEF`` values
    in brief), for the reader who wants the numbers behind the words."""
    return json.dumps({"decision": ev["name"], "options": ev["options"], "answer": ev["answer"]}, default=str, indent=1)


def _html(events: list[dict], game: int, arm: str, start: dict) -> str:
    """A self-contained page: the game told round by round (a line per round from its events, then its decisions,
    each expandable to its options, and its log of money, dice and offices), with the stability and money curves."""
    end = events[-1]
    e = html.escape
    by_round: dict[str, list[dict]] = {}
    for ev in events[:-1]:
        key = "end" if ev["phase"] == "end" else str(ev["round"])
        by_round.setdefault(key, []).append(ev)
    body, before, chairman = [], start, None
    for key, part in by_round.items():
        rnd = int(key) if key != "end" else None
        chairman = next((x["offices"].get("chairman") for x in reversed(part) if x["kind"] == "office"), chairman)
        after = next((dict(x, chairman=chairman) for x in part if x["kind"] == "round_end"), None)
        title = "Setup" if rnd == 0 else "End of the game" if rnd is None else f"Round {rnd}"
        story = "" if not rnd else f"<p class=story>{e(_story(rnd, part, before, after, end))}</p>"
        decisions = "".join(
            f"<details class=decision><summary>{e(ev['phase'])}: {e(_seat(ev['seat'], end['strategies']))} "
            f"{e(ev['says'])}</summary><pre>{e(_recorded(ev))}</pre></details>"
            for ev in part
            if ev["kind"] == "decision"
        )
        log = [_line(ev) for ev in part if ev["kind"] in ("flow", "roll", "office", "event", "stability")]
        details = (
            f"<details class=log><summary>{len(log)} money flows, dice, offices and events</summary>"
            f"<ul>{''.join(f'<li>{e(x)}</li>' for x in log)}</ul></details>"
            if log
            else ""
        )
        closing = (
            f"<p class=end>End of round {after['round']}: stability {after['stability']}, loans {after['loans']}, "
            f"balance £{after['balance']}; money {after['money']}; VP banked {after['vp_so_far']}</p>"
            if after
            else ""
        )
        body.append(
            f'<article class=round id="round-{key}"><h2>{title}</h2>{story}{decisions}{details}{closing}</article>'
        )
        before = after or dict(before, chairman=chairman)
    verdict = (
        f"{end['crash']['said']} {end['blame_means']}"
        if end["crashed"]
        else f"The Company survived all {end['round']} rounds."
    )
    vp = ", ".join(f"{_seat(i, end['strategies'])} {v:g}" for i, v in enumerate(end["vp"]))
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Replay of game {game} ({e(arm)})</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:auto}} details{{margin:.1em 0}} pre{{white-space:pre-wrap}}
.end{{background:#eef;padding:.3em}} .story{{font-size:1.1em}} .log li{{font-size:.9em}}
.chart text{{font-size:12px;fill:#333}} .chart .grid{{stroke:#ddd}} .chart .axis{{stroke:#333}}
.chart .floor{{fill:#a33}}
.charts{{display:flex;flex-wrap:wrap;gap:0 1em}} figure{{margin:0}} figcaption{{font-weight:bold;margin:.6em 0 .2em}}
.key{{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:.2em 1em;max-width:470px}}
.swatch{{display:inline-block;width:1.6em;height:.35em;margin-right:.4em;vertical-align:middle}}</style></head><body>
<h1>Game {game} — {e(arm)}</h1>
<p>Seats: {e(", ".join(f"{i}: {s}" for i, s in enumerate(end["strategies"])))}.</p>
<p id=verdict>{e(verdict)}</p>
<p>VP: {e(vp)}; the winner: {e(_seat(end["winner"], end["strategies"]))}.</p>
{_charts(events, start)}
<section id=timeline>{"".join(body)}</section></body></html>
"""
