"""Replay one game of a finished run with a trace: ``eastindia replay RUN_DIR --game N [--arm A]``.

A game's play depends on its index alone (its dice streams are keyed by the seed and the game index), so game N is
played again at batch 1 with the run's rules, strategies, seating and seed, read from ``experiment.toml``. While it
plays, ``Agents.trace`` records every decision asked (seat, strategy, decision, the legal options in brief, the
answer); the rows the replay records are checked against the run's frames (``rounds``, ``seats``), and a replay that
does not reproduce them is refused. Written: ``RUN_DIR/replays/game-<N>[-<arm>].jsonl`` (one JSON object per event,
each with ``round``, ``phase``, ``kind``) and ``.html`` (a self-contained round-by-round timeline).
"""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from sim.agents import Agents
from sim.engine import play_batch
from sim.results import Results
from strategies import calibration as calibrated

from . import runfolder as rf
from . import spec
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


def _phase() -> str:
    """The phase the engine is playing (the outermost ``sim/phases/<phase>.py`` on the call stack): only when
    tracing."""
    frame, phase = sys._getframe(2), "engine"
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith("sim.phases."):
            phase = module.rsplit(".", 1)[1]
        frame = frame.f_back
    return phase


class Trace:
    """Collects the decisions of a batch of one game."""

    def __init__(self, labels: list[str]):
        self.labels, self.events = labels, []

    def __call__(self, agents: Agents, decision: str, state: Any, decider: np.ndarray, legal: dict, out: tuple):
        seat = int(np.asarray(decider)[0])
        if seat < 0:
            return
        options = {k: _brief(v[0] if isinstance(v, np.ndarray) and v.ndim and v.shape[0] == 1 else v)
                   for k, v in legal.items()}  # fmt: skip
        answer = [_brief(o[0]) for o in out]
        phase = _phase()
        self.events.append(
            {
                "round": 0 if phase == "setup" else int(state.end_round[0] or state.round[0]),
                "phase": phase,
                "kind": "decision",
                "seat": seat,
                "strategy": self.labels[seat],
                "name": decision,
                "options": options,
                "answer": answer[0] if len(answer) == 1 else answer,
            }
        )


def replay(run_dir: Path, game: int, arm_name: str | None = None) -> tuple[Path, Path]:
    """Replay game ``game`` of ``arm_name`` (default: the run's only arm); write the .jsonl and .html, return them."""
    run_dir = Path(run_dir)
    try:
        meta = rf.read_meta(run_dir)
    except (OSError, ValueError) as err:
        raise ReplayError(f"{run_dir}: not a finished run folder ({type(err).__name__}: {err})") from None
    damaged = rf.verify_frames(run_dir, meta) if meta.get("status") == "complete" else "the run has not finished"
    if damaged:
        raise ReplayError(f"{run_dir}: cannot replay: {damaged}")
    exp = spec.load(run_dir / rf.EXPERIMENT)
    names = [a.name for a in exp.arms]
    if arm_name is None and len(exp.arms) > 1:
        raise ReplayError(f"{run_dir}: the run has {len(names)} arms; name one with --arm ({', '.join(names)})")
    arm = exp.arms[0] if arm_name is None else next((a for a in exp.arms if a.name == arm_name), None)
    if arm is None:
        raise ReplayError(f"--arm {arm_name!r}: no such arm in {run_dir} ({', '.join(names)})")
    run = rf.Run(run_dir, meta)

    def rows(frame: str) -> pl.DataFrame:
        return run.scan(frame).filter((pl.col("arm_index") == arm.index) & (pl.col("game") == game)).collect()

    stored = {frame: rows(frame) for frame in ("games", "seats", "rounds")}
    if stored["games"].height == 0:
        played = int(meta.get("games_per_arm") or 0)
        raise ReplayError(f"--game {game}: not in {run_dir} (arm {arm.name!r} played games 0..{played - 1})")
    for spec_ in exp.plugins:
        spec.load_plugin(spec_)
    ids = np.array([game], dtype=np.int64)
    labels, seating = arm.seating(ids)
    trace = Trace([labels[i] for i in seating[0]])
    Agents.trace = trace
    made = [_make(arm, name) for name in labels]
    recorded = next((a for a in meta.get("arms", []) if a.get("index") == arm.index), {})
    values = (recorded.get("calibration") or {}).get("coefficients")  # the arm's fit, as the run played it
    try:
        with calibrated.applied(made, values):
            _, batch = play_batch(arm.rules(), made, exp.seed, ids, seating)
    finally:
        Agents.trace = None
    mine = Results.from_batches([batch], {}).frames()
    for frame in ("games", "seats", "rounds", "seat_rounds"):
        ours = mine[frame]
        theirs = rows(frame).select(ours.columns) if frame != "games" else stored["games"].select(ours.columns)
        if not ours.equals(theirs):
            raise ReplayError(
                f"{run_dir}: game {game} does not replay as the run played it ({frame} differ): the engine, the "
                "strategies or a plugin changed since the run"
            )
    events = _events(trace.events, mine, labels=trace.labels)
    stem = rf.replay_stem(game, None if arm_name is None else arm.name)
    out = run_dir / rf.REPLAYS
    out.mkdir(exist_ok=True)
    jsonl, page = out / f"{stem}.jsonl", out / f"{stem}.html"
    rf.write_atomic(jsonl, "".join(json.dumps(e, default=str) + "\n" for e in events).encode())
    rf.write_atomic(page, _html(events, game, arm.name).encode())
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


def _curve(values: list[float], width: int = 420, height: int = 90) -> str:
    if not values:
        return ""
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1
    step = width / max(1, len(values) - 1)
    pts = " ".join(f"{i * step:.1f},{height - (v - lo) / span * (height - 10) - 5:.1f}" for i, v in enumerate(values))
    return f'<polyline fill="none" stroke="currentColor" stroke-width="2" points="{pts}"/>'


def _html(events: list[dict], game: int, arm: str) -> str:
    """A self-contained page: the curves of stability and money, then the rounds with their decisions."""
    ends = [e for e in events if e["kind"] == "round_end"]
    end = events[-1]
    e = html.escape
    money = list(zip(*[r["money"] for r in ends], strict=True)) if ends else []
    curves = f'<svg width="440" height="100" style="color:#a33">{_curve([r["stability"] for r in ends])}</svg>'
    money_svg = "".join(
        f'<svg width="440" height="100" style="color:hsl({i * 60},60%,40%)">{_curve(list(m))}</svg>'
        for i, m in enumerate(money)
    )
    body = []
    current = None
    for ev in events:
        if ev["kind"] == "decision":
            if ev["round"] != current:
                current = ev["round"]
                body.append(f"<h2>{'Setup' if current == 0 else f'Round {current}'}</h2>")
            opts = e(json.dumps(ev["options"], default=str))
            body.append(
                f"<details><summary>{e(ev['phase'])}: seat {ev['seat']} ({e(ev['strategy'])}) "
                f"<b>{e(ev['name'])}</b> → {e(json.dumps(ev['answer'], default=str))}</summary>"
                f"<pre>{opts}</pre></details>"
            )
        elif ev["kind"] == "round_end":
            current = ev["round"]
            body.append(
                f"<p class=end>End of round {ev['round']}: stability {ev['stability']}, loans {ev['loans']}, "
                f"balance £{ev['balance']}; money {ev['money']}; VP banked {ev['vp_so_far']}; "
                f"{e(json.dumps(ev['tallies'], default=str))}</p>"
            )
    verdict = (
        "the Company crashed" + (f" (blame: {end['blame']})" if end["blame"] else "") if end["crashed"] else "7 rounds"
    )
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Replay of game {game} ({e(arm)})</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:auto}} details{{margin:.1em 0}} pre{{white-space:pre-wrap}}
.end{{background:#eef;padding:.3em}}</style></head><body>
<h1>Game {game} — {e(arm)}</h1>
<p>Seats: {e(", ".join(f"{i}: {s}" for i, s in enumerate(end["strategies"])))}. Ended in round {end["round"]}:
{e(verdict)}; VP {end["vp"]}; winner seat {end["winner"]} ({e(str(end["winner_strategy"]))}).</p>
<h3>Stability by round</h3>{curves}<h3>Money by round (one curve per seat)</h3>{money_svg}
{"".join(body)}</body></html>
"""
