"""The calibration pilot: the quantities an arm's strategies learned from simulation, fitted to the arm's rules.

Before an arm is played, its table (the arm's rules, strategies and seating) plays a pilot of ``calibration_games``
games (at most the arm's ``games``) with the uncalibrated values, from a seed of its own (the experiment's seed spawned
with the key ``PILOT_SPAWN``, a stream no game of a run uses; the same for every arm: common dice). Every quantity the
strategies want (``strategies.calibration``) is fitted on the pilot's frames, once (the runner plays it in a worker
process); every shard of the arm receives the same values, so the games do not depend on the shards, the jobs or the
batch. An anchored quantity (the built-ins' crash model and region-loss rate, ``calibration.ANCHORED``;
``calibration.FITTED`` plays the crash model as fitted to the pilot) also needs the reference pilot: the same table,
seed and size under the embedded default rules (none when the arm plays them: its anchored values are then the defaults,
and when every quantity is anchored no pilot is played). Each pilot's fit is kept in ``calibration/<key>.json`` of the
run folder (or the study's); the key is the rules digest, the table and its parameters, the engine and plugin code, the
seed and the pilot's size, so a ``--resume``, a tune trial, a sensitivity point or another arm of the same table reads
it instead of playing the pilot again. The fit is also kept in the cache folder (``kept``), so that another run of the
same table, in another folder, reads it too: a study run again with one arm changed plays that arm's pilot only.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sim import kernels
from sim.engine import play_batch
from sim.results import Results
from sim.rules import Rules
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
    wanted = list(quantities(arm, exp.belief))
    if not wanted:
        return None
    data = {**table(exp, arm), "engine": engine, "seed": exp.seed, "games": games(exp), "quantities": wanted}
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


def quantities(arm: Arm, belief: str = "anchored") -> dict[str, cal.Quantity]:
    """The quantities the arm's strategies want, by name (``belief``: the experiment's, ``cal.wanted``)."""
    names, _ = arm.seating(np.zeros(1, dtype=np.int64))
    try:
        return {q.name: q for q in cal.wanted((arm.spec(label).make() for label in names), belief=belief)}
    except cal.CalibrationConflict as exc:
        raise PluginError(f"arm {arm.name!r}: {exc}") from None


def games(exp: Experiment) -> int:
    return min(exp.calibration_games, exp.games)


def seed(exp: Experiment) -> int:
    """The pilots' seed: the experiment's, spawned with ``PILOT_SPAWN``. Every arm's pilot plays the same dice (as
    the arms' games do), so a rules key that changes no game changes no fit either."""
    spawn = (PILOT_SPAWN,)
    return int(np.random.SeedSequence(exp.seed, spawn_key=spawn).generate_state(1, np.uint64)[0] >> np.uint64(1))


def default_rules(exp: Experiment, arm: Arm) -> bool:
    """Whether the arm plays the embedded default rules (its anchored quantities then play their defaults)."""
    return arm.rules().digest() == default_digest(exp.players)


@functools.cache
def default_digest(players: int) -> str:
    """The embedded default rules' digest (loaded once per process: a metagame asks it for every table)."""
    return Rules.default(players).digest()


def round1_belief(coefficients: Any, rules: Rules) -> float:
    """The crash model's probability at the start of round 1 (the rules' starting stability and loans)."""
    co = rules.company
    return float(cal.crash_chance(coefficients, co.start_stability, co.start_loans, 0, 1, rules.game.rounds))


def pilot(exp: Experiment, arm: Arm) -> dict[str, Any]:
    """Play the arm's pilot and fit the quantities its strategies want (``fitted``): the record the cache keeps."""
    start = time.perf_counter()
    n = games(exp)
    ids = np.arange(n, dtype=np.int64)
    labels, seating = arm.seating(ids)
    made = [arm.spec(label).make() for label in labels]
    rules = arm.rules()
    with cal.applied(made, None):
        _, rows = play_batch(rules, made, seed(exp), ids, seating)
    frames = Results.from_batches([rows], {}).frames()
    values = {q.name: fitted(q, frames, rules) for q in cal.wanted(made, belief=exp.belief)}
    record: dict[str, Any] = {"games": n, "observed_crash": float(frames["games"]["crashed"].mean())}
    if "crash_logit" in values:
        x, _ = cal.round_starts(frames, rules)
        record["predicted_crash"] = round1_belief(values["crash_logit"], rules)
        record["crash_logit_se"] = [float(v) for v in cal.standard_errors(x, values["crash_logit"])]
    record.update({"fitted": values, "pilot_s": round(time.perf_counter() - start, 3)})
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
    """The arm's calibration record, None when the arm is not calibrated: its pilot's (``fitted``, ...), the
    reference pilot's (``reference``, when an anchored quantity needs it), ``coefficients`` (name -> the value
    played) and ``belief_crash`` (the played crash model's probability at the start of round 1). Each pilot comes
    from ``cache`` when it holds the fit of the same key, else from the fits kept between runs (``kept``), else from
    ``play(exp, arm)`` (then kept), and is written to ``cache``."""
    k = key(exp, arm, engine)
    if k is None:
        return None
    wanted, played = quantities(arm, exp.belief), dict(needed(exp, arm, engine))
    if k in played:
        record = fitted_pilot(exp, arm, k, cache, play)
        fits = ref = record["fitted"]
    else:  # every quantity anchored, on the default rules: the defaults, whatever a pilot would fit
        record = {"key": k, "games": 0, "fitted": {}}
        fits = ref = {name: q.default for name, q in wanted.items()}
    for ref_key, default_arm in played.items():
        if ref_key != k:  # the same table under the default rules
            done = fitted_pilot(exp, default_arm, ref_key, cache, play)
            kept = ("key", "games", "observed_crash", "predicted_crash")
            record["reference"] = {f: done[f] for f in kept if f in done}
            ref = record["reference"]["fitted"] = done["fitted"]
    record["coefficients"] = {
        name: json.loads(json.dumps(q.anchor(fits[name], ref[name], q.default) if q.anchor else fits[name]))
        for name, q in wanted.items()
    }
    if "crash_logit" in record["coefficients"]:
        record["belief"] = "anchored" if wanted["crash_logit"].anchor else "fitted"
        record["belief_crash"] = round1_belief(record["coefficients"]["crash_logit"], arm.rules())
    return record


def needed(exp: Experiment, arm: Arm, engine: str) -> list[tuple[str, Arm]]:
    """The pilots the arm's calibration rests on, as (key, arm played): its own (none when every quantity is
    anchored and it plays the default rules) and, for anchored quantities off the default rules, its table's under
    the default rules (the reference)."""
    k = key(exp, arm, engine)
    if k is None:
        return []
    anchors = [q.anchor is not None for q in quantities(arm, exp.belief).values()]
    default = default_rules(exp, arm)
    out = [] if all(anchors) and default else [(k, arm)]
    if any(anchors) and not default:
        reference = dataclasses.replace(arm, name=f"{arm.name} (default rules)", overrides={}, rules_file=None)
        out.append((key(exp, reference, engine), reference))
    return out


def cached(cache: Path, k: str) -> dict[str, Any] | None:
    """The pilot record of key ``k`` in ``cache`` (a run or study folder's), else kept from another run (``kept``),
    or None: the pilot is to be played."""
    return _read(cache / f"{k}.json", k) or _read(kept(k), k)


def _read(path: Path, k: str) -> dict[str, Any] | None:
    """The pilot record of key ``k`` at ``path``, or None (absent, unreadable, or another pilot's)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return (
        record
        if isinstance(record, dict) and record.get("key") == k and isinstance(record.get("fitted"), dict)
        else None
    )


def kept(k: str) -> Path:
    """Where the fit of key ``k`` is kept between runs: in the cache folder (``sim.kernels.cache_dir``, beside the
    kernels), under ``pilots/``, named by the key and by what plays and fits a pilot besides the engine and the
    strategies the key names (``_pilot_code``). Another run of the same table, rules, seed and pilot size, in any
    folder, reads it instead of playing the pilot again: the fit would be the same numbers."""
    return store_dir() / f"{k}-{_pilot_code()}.json"


def store_dir() -> Path:
    """The folder of the fits kept between runs."""
    return kernels.cache_dir() / kernels.PILOTS


@functools.cache
def _pilot_code() -> str:
    """A hash of the code that plays and fits a pilot beyond the engine's (``experiments/``) and of the versions of
    numpy and polars (the frames the fit reads)."""
    import polars

    h = hashlib.sha256(f"{np.__version__} {polars.__version__}".encode())
    for path in sorted(Path(__file__).parent.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:12]


def _keep(k: str, record: dict[str, Any]) -> None:
    """Keep a pilot's record between runs (``kept``), whole or not at all: a cache folder that cannot be written only
    means playing the pilot again next time."""
    try:
        store_dir().mkdir(parents=True, exist_ok=True)
        rf.write_json_atomic(kept(k), record)
    except (OSError, rf.LinkRefused):
        pass


def fitted_pilot(
    exp: Experiment, arm: Arm, k: str, cache: Path, play: Callable[[Experiment, Arm], dict[str, Any]]
) -> dict[str, Any]:
    """The pilot record of key ``k``: from ``cache``; else kept from another run (``kept``), or played (and kept), and
    written to ``cache``, which so holds every fit its run played with. ``cache`` is made first, as
    ``runfolder.make_dir`` makes a folder of its parent (a run or study folder), and the record written through
    ``runfolder.write_file``: a symbolic link at ``cache`` or at the record, or a record with other hard links, is
    ``LinkRefused`` before the record is read or the pilot played."""
    rf.make_dir(cache.parent, cache.name)
    rf.check_targets(cache.parent, [f"{cache.name}/{k}.json"])  # neither read nor written through a link
    if (record := _read(cache / f"{k}.json", k)) is not None:
        return record
    if (record := _read(kept(k), k)) is None:
        record = {"key": k, **play(exp, arm)}
        _keep(k, record)
    rf.write_file(cache.parent, f"{cache.name}/{k}.json", json.dumps(record, indent=2, default=str) + "\n")
    return record
