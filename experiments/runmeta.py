"""The shape of a run folder's ``run.json`` (its keys: ``experiments.runfolder``), checked before any command reads
it: a run folder may come from anyone, and a malformed one is the user's error (one line, exit 2), not a crash.

Besides the keys ``experiments.runfolder`` lists, a run that imported plugins records ``plugins``: each plugin file's
resolved path -> the SHA-256 of the bytes it imported; ``replay`` and ``audit --allow-plugins`` import only a file that
still has it (``experiments.replay.open_arm``)."""

from __future__ import annotations

from typing import Any

# top-level keys and the types their values must have when present
NUMBERS = ("seed", "players", "games_per_arm", "shard_size", "games")
TEXTS = ("name", "status", "command", "experiment_digest", "engine_digest")
TABLES = ("frames", "precision", "versions", "plugins")
# keys of each entry of ``arms``
ARM_TABLES = ("params", "overrides", "strategy_params", "calibration")


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _numbers(value: Any) -> bool:
    """A number, or a list of numbers (a calibrated quantity's value)."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return number or isinstance(value, list) and all(_numbers(v) and not isinstance(v, list) for v in value)


def problem(meta: Any) -> str | None:
    """Why ``meta`` (run.json as read) is not a run's record (None: it has the shape the commands read)."""
    if not isinstance(meta, dict):
        return f"is not a table (a {type(meta).__name__})"
    for key in NUMBERS:
        if key in meta and not _int(meta[key]):
            return f"{key}: expected a whole number, got {meta[key]!r:.60}"
    for key in TEXTS:
        if key in meta and not isinstance(meta[key], str):
            return f"{key}: expected text, got {meta[key]!r:.60}"
    for key in TABLES:
        if key in meta and not isinstance(meta[key], dict):
            return f"{key}: expected a table, got {meta[key]!r:.60}"
    if "reference" in meta and not isinstance(meta["reference"], str | None):
        return f"reference: expected an arm's name, got {meta['reference']!r:.60}"
    if "target_ci" in meta and (not isinstance(meta["target_ci"], int | float) or isinstance(meta["target_ci"], bool)):
        return f"target_ci: expected a number, got {meta['target_ci']!r:.60}"
    keys = meta.get("param_keys", [])
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
        return f"param_keys: expected a list of rules keys, got {keys!r:.60}"
    if not all(isinstance(record, dict) for record in meta.get("frames", {}).values()):
        return "frames: expected a table per frame"
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in meta.get("plugins", {}).items()):
        return "plugins: expected a SHA-256 per plugin file"
    arms = meta.get("arms")
    if not isinstance(arms, list) or not arms:
        return "arms: missing" if arms is None else f"arms: expected a list of arms, got {arms!r:.60}"
    names, indices = set(), set()
    for i, arm in enumerate(arms):
        if not isinstance(arm, dict):
            return f"arms[{i}]: expected a table, got {arm!r:.60}"
        if not isinstance(arm.get("arm"), str) or arm["arm"] in names:
            return f"arms[{i}].arm: expected a name no other arm has, got {arm.get('arm')!r:.60}"
        if not _int(arm.get("index")) or arm["index"] < 0 or arm["index"] in indices:
            return f"arms[{i}].index: expected a whole number no other arm has, got {arm.get('index')!r:.60}"
        names.add(arm["arm"])
        indices.add(arm["index"])
        strategies = arm.get("strategies")
        if not isinstance(strategies, list) or not strategies or not all(isinstance(s, str) for s in strategies):
            return f"arms[{i}].strategies: expected a list of strategy labels, got {strategies!r:.60}"
        for key in ARM_TABLES:
            if key in arm and not isinstance(arm[key], dict) and not (key == "calibration" and arm[key] is None):
                return f"arms[{i}].{key}: expected a table, got {arm[key]!r:.60}"
        coefficients = (arm.get("calibration") or {}).get("coefficients") or {}
        if not isinstance(coefficients, dict) or not all(map(_numbers, coefficients.values())):
            return f"arms[{i}].calibration.coefficients: expected a number or a list of them per quantity"
        if "rotate" in arm and not (arm["rotate"] is True or arm["rotate"] is False or arm["rotate"] == "all"):
            return f'arms[{i}].rotate: expected true, false or "all", got {arm["rotate"]!r:.60}'
        if "rotations" in arm and (not _int(arm["rotations"]) or arm["rotations"] < 1):
            return f"arms[{i}].rotations: expected a whole number of seatings, got {arm['rotations']!r:.60}"
    return None
