"""Experiment files: who plays, how many games, which rules, and the arms to compare.

An experiment is a TOML file::

    name = "capital formulas"      # default: the file's stem
    players = 5                    # 4..6
    games = 2000                   # per arm
    seed = 1
    shard_size = 1000              # games per shard (a unit of parallel work and of --resume)
    strategies = ["balanced", "random"]   # rotated over the seats; ["*"] = every registered strategy
    rotate = true                  # false: exactly one strategy per seat, fixed
    plugins = ["bots/mine.py:Mine"]        # strategy classes loaded from explicit file paths
    rules = "my_rules.toml"        # optional rules file (relative to the experiment file)

    [overrides]                    # rules keys set for every arm
    "company.start_stability" = 4

    [sweep]                        # arms = the cartesian product of these values
    "capital.formula" = ["inverse_share", "flat", "linear"]
    "capital.budget_per_player" = [5, 6, 7]

    [[arms]]                       # and/or listed arms (each listed arm is crossed with the sweep)
    name = "flat"
    overrides = { "capital.formula" = "flat" }
    strategies = ["balanced", "random"]   # optional, per arm

Seat rotation: with k strategies, rotation r puts strategies[(s + r) % k] in seat s and game i uses rotation
i % k, so every strategy plays every seat equally often. Arms share dice: game i of every arm uses the same
per-game random streams. ``load`` checks everything and reports every problem found, one line each.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import inspect
import itertools
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import strategies as registry
from sim.rules import DEFAULT_PATH, Rules, RulesError, load_toml, merge
from sim.rules.schema import shown

from . import tomlw

TOP_KEYS = {
    "name": str,
    "description": str,
    "players": int,
    "games": int,
    "seed": int,
    "shard_size": int,
    "strategies": list,
    "rotate": bool,
    "plugins": list,
    "rules": str,
    "overrides": dict,
    "sweep": dict,
    "arms": list,
}
DEFAULTS = {
    "description": "",
    "players": 5,
    "games": 2000,
    "seed": 1,
    "shard_size": 1000,
    "strategies": ["balanced"],
    "rotate": True,
    "plugins": [],
    "rules": "",
    "overrides": {},
    "sweep": {},
    "arms": [],
}
ARM_KEYS = {"name": str, "overrides": dict, "strategies": list}
# Bounds of the top-level numbers (issue 12): game indices and the seed are int64 columns of the frames.
MAX_GAMES = 2**62
MAX_SEED = 2**63 - 1
LIMITS = {"games": (1, MAX_GAMES), "seed": (0, MAX_SEED), "shard_size": (1, MAX_GAMES)}
# Where a top-level key came from when the command line set it (messages name the option, not the file).
OPTIONS = {"games": "--games", "seed": "--seed", "strategies": "--strategy", "shard_size": "--shard-size"}


class ExperimentError(ValueError):
    """A malformed experiment; ``problems`` lists every one found (the message is the first)."""

    def __init__(self, problems: list[str]):
        super().__init__(problems[0])
        self.problems = problems


class PluginError(ValueError):
    """A strategy plugin that cannot be loaded."""


# ------------------------------------------------------------------------------------------------- plugins
def load_plugin(spec: str, base: Path | None = None) -> type:
    """Load and register a Strategy class from ``path.py:Class``; returns the class."""
    path_text, sep, cls_name = spec.rpartition(":")
    if not sep or not path_text or not cls_name:
        raise PluginError(f"plugin {spec!r}: expected path.py:ClassName")
    path = Path(path_text)
    if not path.is_absolute() and base is not None:
        path = base / path
    path = path.resolve()
    if not path.is_file():
        raise PluginError(f"plugin {spec!r}: no such file {path}")
    module_name = "eastindia_plugin_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    module = sys.modules.get(module_name)
    if module is None:
        loader = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(loader)
        sys.modules[module_name] = module
        try:
            loader.loader.exec_module(module)
        except (Exception, SystemExit) as exc:  # a user's file: report it, do not crash with its traceback
            del sys.modules[module_name]
            raise PluginError(f"plugin {spec!r}: {type(exc).__name__}: {exc}") from None
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise PluginError(f"plugin {spec!r}: {path.name} has no class {cls_name}")
    if not (inspect.isclass(cls) and issubclass(cls, registry.Strategy)):
        raise PluginError(f"plugin {spec!r}: {cls_name} is not a subclass of strategies.Strategy")
    name = cls.__dict__.get("name") or cls_name.lower()
    registry.register(name)(cls)
    return cls


# ----------------------------------------------------------------------------------------------------- arms
@dataclass(frozen=True)
class Arm:
    """One set of rules and strategies to play ``games`` games with."""

    name: str
    index: int
    params: dict[str, Any]  # the keys that vary between arms
    overrides: dict[str, Any]  # every rules override of this arm (base overrides + params)
    strategies: tuple[str, ...]  # rotated over the seats (or one per seat when not rotating)
    rotate: bool
    players: int
    rules_file: str | None

    @property
    def rotations(self) -> int:
        return len(self.strategies) if self.rotate else 1

    def seats(self, rotation: int) -> list[str]:
        """Strategy name in each seat for a rotation (R-rotation: strategies[(s + r) % k])."""
        k = len(self.strategies)
        if not self.rotate:
            return list(self.strategies)
        return [self.strategies[(s + rotation) % k] for s in range(self.players)]

    def seating(self, game_ids: np.ndarray) -> tuple[list[str], np.ndarray]:
        """The distinct strategy names and, per game and seat, the index of the one sitting there (int[G, N])."""
        names = list(dict.fromkeys(self.strategies))
        table = np.array([[names.index(x) for x in self.seats(r)] for r in range(self.rotations)])
        return names, table[np.asarray(game_ids) % self.rotations]

    def rules(self) -> Rules:
        return _arm_rules(self.rules_file, self.players, json.dumps(self.overrides, sort_keys=True), self.name)

    def meta(self) -> dict[str, Any]:
        return {
            "arm": self.name,
            "index": self.index,
            "params": self.params,
            "overrides": self.overrides,
            "rules_file": self.rules_file,
            "rules_digest": self.rules().digest(),
            "strategies": list(self.strategies),
            "rotate": self.rotate,
            "rotations": self.rotations,
        }


@dataclass(frozen=True)
class Experiment:
    name: str
    source: str
    data: dict[str, Any]  # the resolved experiment: every key, defaults spelled out
    arms: tuple[Arm, ...]
    param_keys: tuple[str, ...]
    plugins: tuple[str, ...] = field(default=())  # absolute plugin specs, loaded by every worker
    plugin_code: str = ""  # hash of the plugins' source files when the experiment was loaded

    @property
    def games(self) -> int:
        return self.data["games"]

    @property
    def seed(self) -> int:
        return self.data["seed"]

    @property
    def players(self) -> int:
        return self.data["players"]

    @property
    def shard_size(self) -> int:
        return self.data["shard_size"]

    def resolved_toml(self) -> str:
        return tomlw.dumps(self.data)

    def digest(self) -> str:
        """What determines the results: the resolved experiment (but its shard size, which never changes a row)
        and the code of its plugins as loaded."""
        data = {k: v for k, v in self.data.items() if k != "shard_size"}
        return hashlib.sha256((tomlw.dumps(data) + self.plugin_code).encode()).hexdigest()[:16]


# -------------------------------------------------------------------------------------------- load / check
def load(path: str | Path | None = None, **changes: Any) -> Experiment:
    """Load an experiment file (None: the library's baseline); ``changes`` override top-level keys."""
    path = Path(path) if path else Path(__file__).with_name("library") / "baseline.toml"
    try:
        raw = load_toml(path)
    except RulesError as err:
        raise ExperimentError([str(err)]) from None
    given = {k: v for k, v in changes.items() if v is not None}
    raw.update(given)
    return resolve(raw, str(path), path.parent, from_command_line=set(given))


def resolve(
    raw: dict[str, Any], source: str, base: Path | None, from_command_line: set[str] | frozenset = frozenset()
) -> Experiment:
    problems: list[str] = []
    where = source or "experiment"

    def bad(key: str, msg: str) -> None:
        top = key.split(".")[0].split("[")[0]
        if top in from_command_line and top in OPTIONS:  # a bad command-line value names the option
            problems.append(f"{OPTIONS[top]}: {msg}")
        else:
            problems.append(f"{where}: {key}: {msg}")

    for key in sorted(set(raw) - set(TOP_KEYS)):
        bad(key, f"unknown key (known: {', '.join(sorted(TOP_KEYS))})")
    data = {"name": Path(source).stem if source else "experiment", **DEFAULTS}
    for key, typ in TOP_KEYS.items():
        if key in raw:
            value = raw[key]
            if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
                bad(key, f"expected {typ.__name__}, got {shown(value)}")
            else:
                data[key] = value
    if not 4 <= data["players"] <= 6:
        bad("players", f"{shown(data['players'])} players is impossible: the game takes 4 to 6")
    for key, (low, high) in LIMITS.items():
        if not low <= data[key] <= high:
            bad(key, f"must be between {low} and {high:,}, got {shown(data[key])}")

    plugins = []
    for i, spec in enumerate(data["plugins"]):
        if not isinstance(spec, str):
            bad(f"plugins[{i}]", f"expected a 'path.py:Class' string, got {shown(spec)}")
            continue
        try:
            load_plugin(spec, base)
            plugins.append(_absolute_plugin(spec, base))
        except PluginError as err:
            bad(f"plugins[{i}]", str(err))

    rules_file = None
    if data["rules"]:
        rules_path = Path(data["rules"])
        rules_path = rules_path if rules_path.is_absolute() or base is None else (base / rules_path)
        rules_file = str(rules_path.resolve())
    base_rules = None
    players = data["players"] if 4 <= data["players"] <= 6 else 5
    try:
        base_rules = Rules.from_toml(rules_file, players=players) if rules_file else Rules.default(players)
    except RulesError as err:
        bad("rules", str(err))
    if rules_file and base_rules is not None:  # the experiment's players win; a rules file saying otherwise conflicts
        file_game = load_toml(rules_file).get("game")
        file_players = file_game.get("players", players) if isinstance(file_game, dict) else players
        if file_players != players:
            bad(
                "rules",
                f"{rules_file} sets game.players = {shown(file_players)} but the experiment plays {players} "
                f"players: set players = {shown(file_players)} in the experiment or drop the key",
            )

    def check_overrides(key: str, overrides: dict[str, Any], named: bool = False, rules: Rules | None = None) -> None:
        """Each override alone against ``rules`` (default: the base rules); ``named``: ``key`` already names the
        rules key."""
        rules = rules or base_rules
        for k, v in overrides.items() if rules is not None else ():
            where_k = key if named else f"{key}.{k}"
            if k == "game.players" and v != players:
                bad(where_k, f"{shown(v)} conflicts with the experiment's players = {players}: set players")
                continue
            try:
                rules.with_overrides({k: v})
            except RulesError as err:
                message = str(err).split(": ", 1)[-1]
                bad(where_k, message.split(": ", 1)[-1] if named and message.startswith(f"{k}: ") else message)

    def check_strategies(key: str, names: Any, rotate: bool) -> list[str]:
        if not isinstance(names, list):
            bad(key, f"expected a list of strategy names, got {shown(names)}")
            return []
        names = list(names)
        if names == ["*"]:
            names = sorted(registry.REGISTRY)
        if not names:
            bad(key, "needs at least one strategy")
        for i, name in enumerate(names):
            if not isinstance(name, str):
                bad(f"{key}[{i}]", f"expected a strategy name, got {shown(name)}")
            elif ":" in name:
                try:
                    names[i] = load_plugin(name, base).name
                    plugins.append(_absolute_plugin(name, base))
                except PluginError as err:
                    bad(f"{key}[{i}]", str(err))
            elif name not in registry.REGISTRY:
                bad(f"{key}[{i}]", f"unknown strategy {name!r} (known: {', '.join(sorted(registry.REGISTRY))})")
            else:
                try:  # a plugin whose constructor fails is found here, not in the middle of a run
                    registry.make(name)
                except Exception as exc:
                    bad(f"{key}[{i}]", f"strategy {name!r} raised {type(exc).__name__} when created: {exc}")
        if not rotate and len(names) != data["players"]:
            bad(key, f"rotate = false needs one strategy per seat ({data['players']}), got {len(names)}")
        return names

    data["strategies"] = check_strategies("strategies", data["strategies"], data["rotate"])
    # the [overrides] together (keys that must change together, like game.rounds and end.influence_vp, can), each
    # alone only to name the key at fault; sweep values and listed arms are then checked on top of them
    over_rules = base_rules
    if base_rules is not None and data["overrides"]:
        try:
            over_rules = base_rules.with_overrides(dict(data["overrides"]))
        except RulesError as err:
            over_rules = None
            before = len(problems)
            check_overrides("overrides", data["overrides"])
            if len(problems) == before:
                bad("overrides", str(err).split(": ", 1)[-1])
        if over_rules is not None:  # the conflict with players is not a rules error
            check_overrides("overrides", {k: v for k, v in data["overrides"].items() if k == "game.players"})

    sweep = data["sweep"]
    for key, values in sweep.items():
        if not isinstance(values, list) or not values:
            bad(f"sweep.{key}", "expected a non-empty list of values")
            continue
        for i, v in enumerate(values):
            if any(_same(v, w) for w in values[:i]):
                bad(f"sweep.{key}[{i}]", f"duplicate value {shown(v)}: every arm would be played twice")
            check_overrides(f"sweep.{key}[{i}]", {key: v}, named=True, rules=over_rules)

    listed = []
    names_seen = set()
    for i, arm in enumerate(data["arms"]):
        if not isinstance(arm, dict):
            bad(f"arms[{i}]", "expected a table")
            continue
        for key in sorted(set(arm) - set(ARM_KEYS)):
            bad(f"arms[{i}].{key}", f"unknown key (known: {', '.join(sorted(ARM_KEYS))})")
        name = arm.get("name", f"arm{i}")
        if not isinstance(name, str) or name in names_seen:
            bad(f"arms[{i}].name", f"needs a unique name, got {shown(name)}")
            name = f"arm{i}"
        names_seen.add(name)
        over = arm.get("overrides", {})
        if not isinstance(over, dict):
            bad(f"arms[{i}].overrides", "expected a table of rules keys")
            over = {}
        check_overrides(f"arms[{i}].overrides", over, rules=over_rules)
        strats = arm.get("strategies")
        if strats is not None:
            strats = check_strategies(f"arms[{i}].strategies", strats, data["rotate"])
        listed.append({"name": name, "overrides": over, **({"strategies": strats} if strats else {})})
    data["arms"] = listed

    if problems:
        raise ExperimentError(problems)
    plugins = list(dict.fromkeys(plugins))
    data["plugins"], data["rules"] = plugins, rules_file or ""  # absolute: the resolved file loads from anywhere
    arms, keys = expand(data, rules_file)
    seen: set[str] = set()
    for arm in arms:  # every arm's overrides together (each was checked alone above): what a worker will load
        if arm.name in seen:
            bad("arms", f"two arms are both named {arm.name!r}")
        seen.add(arm.name)
        try:
            arm.rules()
        except RulesError as err:
            bad("arms", f"arm {arm.name!r}: {str(err).split(': ', 1)[-1]}")
    if problems:
        raise ExperimentError(problems)
    code = hashlib.sha256(b"".join(Path(p.rpartition(":")[0]).read_bytes() for p in plugins)).hexdigest()
    return Experiment(data["name"], source, data, tuple(arms), tuple(keys), tuple(plugins), code if plugins else "")


@functools.lru_cache(maxsize=64)
def _arm_rules(rules_file: str | None, players: int, overrides_json: str, name: str) -> Rules:
    """An arm's rules, built once per process (workers play many shards of the same arm)."""
    base = Rules.from_toml(rules_file, players=players) if rules_file else Rules.default(players)
    overrides = json.loads(overrides_json)
    return base.with_overrides(overrides, source=f"arm {name!r}") if overrides else base


def expand(data: dict[str, Any], rules_file: str | None) -> tuple[list[Arm], list[str]]:
    """The arms: listed arms (or one base arm) crossed with the sweep grid; params = keys that vary."""
    sweep_keys = list(data["sweep"])
    grid = list(itertools.product(*(data["sweep"][k] for k in sweep_keys))) or [()]
    listed = data["arms"] or [{"name": "", "overrides": {}}]
    param_keys = list(dict.fromkeys([k for arm in listed for k in arm["overrides"]] + sweep_keys))
    arms = []
    for arm, values in itertools.product(listed, grid):
        params = {**arm["overrides"], **dict(zip(sweep_keys, values, strict=True))}
        label = ", ".join(f"{k}={v}" for k, v in zip(sweep_keys, values, strict=True))
        name = ", ".join(x for x in (arm["name"], label) if x) or data["name"]
        arms.append(
            Arm(
                name=name,
                index=len(arms),
                params={k: params.get(k) for k in param_keys},
                overrides={**data["overrides"], **params},
                strategies=tuple(arm.get("strategies") or data["strategies"]),
                rotate=data["rotate"],
                players=data["players"],
                rules_file=rules_file,
            )
        )
    return arms, param_keys


def _same(a: Any, b: Any) -> bool:
    """Equal values of the same kind (1 and 1.0 are the same number; 1 and true are not)."""
    return type(a) is type(b) and a == b or {type(a), type(b)} == {int, float} and a == b


def _absolute_plugin(spec: str, base: Path | None) -> str:
    path_text, _, cls_name = spec.rpartition(":")
    path = Path(path_text)
    if not path.is_absolute() and base is not None:
        path = base / path
    return f"{path.resolve()}:{cls_name}"


def check_file(path: str | Path) -> list[str]:
    """Every problem of an experiment or rules file (empty: it is valid). A file with a [game] or [map] table,
    or no experiment keys, is checked as a rules file."""
    path = Path(path)
    try:
        raw = load_toml(path)
    except RulesError as err:
        return [str(err)]
    if raw.keys() & {"game", "map", "capital", "company"} or not raw.keys() & set(TOP_KEYS):
        return _rules_problems(path)
    try:
        load(path)
    except ExperimentError as err:
        return err.problems
    return []


def _rules_problems(path: Path) -> list[str]:
    """Every problem of a rules file (merged over the defaults, as ``Rules.from_toml`` reads it)."""
    try:
        over = load_toml(path)
    except RulesError as err:
        return [str(err)]
    return Rules.problems(merge(load_toml(DEFAULT_PATH), over), source=str(path))
