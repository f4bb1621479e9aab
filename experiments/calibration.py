"""The calibration pilot: the quantities an arm's strategies learned from simulation, fitted to the arm's rules.

Before an arm is played, its table (the arm's rules, strategies and seating) plays a pilot of ``calibration_games``
games (at most the arm's ``games``) with the uncalibrated values, from a seed of its own (the experiment's seed
spawned with the key ``PILOT_SPAWN``, a stream no game of a run uses; the same for every arm: common dice).
Every quantity the strategies want (``strategies.calibration``) is fitted on the pilot's frames, once (the runner
plays it in a worker process); every shard of the arm receives the same values, so the games do not depend on
the shards, the jobs or the batch. The fit is kept in ``calibration/<key>.json`` of the run folder (or the
study's); the key is the rules digest, the table and its parameters, the engine and plugin code, the seed and the
pilot's size, so a ``--resume``, a tune trial or a sensitivity point with the same rules reads it instead of
playing the pilot again.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sim.engine import play_batch
from sim.results import Results
from strategies import calibration as cal

from . import runfolder as rf
from .spec import Arm, Experiment, PluginError

DIR = "calibration"
PILOT_SPAWN = 0xCA1B  # the pilot's SeedSequence spawn key (games use the plain seed)


def table(exp: Experiment, arm: Arm) -> dict[str, Any]:
    """What the pilot plays besides its seed and size: the rules' content, the seating and every strategy."""
    meta = arm.meta()
    keep = ("rules_digest", "strategies", "strategy_params", "rotate")
    return {"players": exp.players, **{k: meta[k] for k in keep}, "plugins": exp.plugin_code}


def key(exp: Experiment, arm: Arm, engine: str) -> str | None:
    """The cache key of the arm's calibration (None: not calibrated, or no strategy of it wants a quantity)."""
    if not exp.calibrate:
        return None
    names, _ = arm.seating(np.zeros(1, dtype=np.int64))
    wanted = [q.name for q in cal.wanted(arm.spec(label).make() for label in names)]
    if not wanted:
        return None
    data = {**table(exp, arm), "engine": engine, "seed": exp.seed, "games": games(exp), "quantities": wanted}
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


def games(exp: Experiment) -> int:
    return min(exp.calibration_games, exp.games)


def seed(exp: Experiment) -> int:
    """The pilots' seed: the experiment's, spawned with ``PILOT_SPAWN``. Every arm's pilot plays the same dice (as
    the arms' games do), so a rules key that changes no game changes no fit either."""
    spawn = (PILOT_SPAWN,)
    return int(np.random.SeedSequence(exp.seed, spawn_key=spawn).generate_state(1, np.uint64)[0] >> np.uint64(1))


def pilot(exp: Experiment, arm: Arm) -> dict[str, Any]:
    """Play the arm's pilot and fit the quantities its strategies want: the record run.json keeps (without key)."""
    start = time.perf_counter()
    n = games(exp)
    ids = np.arange(n, dtype=np.int64)
    labels, seating = arm.seating(ids)
    made = [arm.spec(label).make() for label in labels]
    rules = arm.rules()
    with cal.applied(made, None):
        _, rows = play_batch(rules, made, seed(exp), ids, seating)
    frames = Results.from_batches([rows], {}).frames()
    values = {q.name: fitted(q, frames, rules) for q in cal.wanted(made)}
    record: dict[str, Any] = {"games": n, "observed_crash": float(frames["games"]["crashed"].mean())}
    if "crash_logit" in values:
        x, _ = cal.round_starts(frames, rules)
        x1 = x[x[:, 4] == rules.game.rounds]  # the start of round 1
        record["predicted_crash"] = float(cal.crash_probability(values["crash_logit"], x1).mean())
        record["crash_logit_se"] = [float(v) for v in cal.standard_errors(x, values["crash_logit"])]
    record.update({"coefficients": values, "pilot_s": round(time.perf_counter() - start, 3)})
    return record


def fitted(q: cal.Quantity, frames: dict[str, Any], rules: Any) -> Any:
    """``q`` fitted on the pilot's frames: a finite number or a list of them (a plugin's failure is one line)."""
    try:
        value = q.fit(frames, rules)
    except Exception as exc:
        text = " ".join(str(exc).split()) or repr(exc)
        raise PluginError(f"calibration quantity {q.name!r}: its fit raised {type(exc).__name__}: {text}") from exc
    items = value if isinstance(value, list | tuple) else [value]
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and np.isfinite(v) for v in items):
        raise PluginError(f"calibration quantity {q.name!r}: its fit returned {value!r}, not finite numbers")
    return [float(v) for v in value] if isinstance(value, list | tuple) else float(value)


def calibrate(
    exp: Experiment, arm: Arm, cache: Path, engine: str, play: Callable[[Experiment, Arm], dict[str, Any]] = pilot
) -> dict[str, Any] | None:
    """The arm's calibration record (``coefficients``: name -> value), from ``cache`` when it holds the fit of
    the same key, else from ``play(exp, arm)`` (a pilot; then written there); None when the arm is not
    calibrated."""
    k = key(exp, arm, engine)
    if k is None:
        return None
    path = cache / f"{k}.json"
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(record, dict) and record.get("key") == k and isinstance(record.get("coefficients"), dict):
            return record
    except (OSError, ValueError):
        pass
    record = {"key": k, **play(exp, arm)}
    cache.mkdir(parents=True, exist_ok=True)
    rf.write_json_atomic(path, record)
    return record
