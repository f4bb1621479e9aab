"""Experiment files: who plays, how many games, which rules, and the arms to compare.

An experiment is a TOML file::

    name = "capital formulas"      # default: the file's stem
    players = 5                    # 4..6
    games = 2000                   # per arm
    seed = 1
    shard_size = 4096              # games per shard: a batch, a unit of parallel work and of --resume
    strategies = ["balanced", "random"]   # rotated over the seats; ["*"] = every registered strategy
    # a tuned strategy: { name = "bid_low", max_bid = 2 } (or "bid_low:max_bid=2"); a plugin class, tuned or not:
    # "bots/mine.py:Mine", { plugin = "bots/mine.py:Mine", risk = 0.2 } (or "bots/mine.py:Mine:risk=0.2")
    rotate = true                  # false: exactly one strategy per seat, fixed; "all": every distinct seating
    plugins = ["bots/mine.py:Mine"]        # strategy classes loaded from explicit file paths
    rules = "my_rules.toml"        # optional rules file (relative to the experiment file)
    reference = "flat"             # the arm the others are compared with, by name or index (default: the arm
                                   # whose rules are the experiment's own, else the first arm)
    target_ci = 0.01               # play shards until every headline 95 % interval is within +-0.01 (0: off)
    calibrate = true               # fit the strategies' learned values to each arm's rules first (false: fixed)
    calibration_games = 2000       # games of that pilot (at most ``games``)
    belief = "anchored"            # the players' crash belief: anchored to the default rules' model, or "fitted"

    [overrides]                    # rules keys set for every arm
    "company.start_stability" = 4

    [sweep]                        # arms = the cartesian product of these values
    "capital.formula" = ["inverse_share", "flat", "linear"]
    "capital.budget_per_player" = [5, 6, 7]

    [[arms]]                       # and/or listed arms (each listed arm is crossed with the sweep)
    name = "flat"
    overrides = { "capital.formula" = "flat" }
    strategies = ["balanced", "random"]   # optional, per arm
    rules = "other_rules.toml"            # optional, per arm (relative to the experiment file)

Seat rotation: with k strategies, rotation r puts strategies[(s + r) % k] in seat s and game i uses rotation
i % k, so every strategy plays every seat equally often. ``rotate = "all"`` plays every distinct seating of the
tables that rotation sets (game i uses seating i % their number), so that every strategy also plays every seat
equally often with every table composition. Arms share dice: game i of every arm uses the same
per-game random streams. ``load`` checks everything and reports every problem found, one line each.

With ``target_ci`` the ``games`` are a maximum: the runner plays shards (every arm's shard of the same games
together) until every headline interval (per arm: crash rate and win rates; against the reference arm: the paired
changes of crash rate and win rates) has a half-width within the target.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import inspect
import itertools
import json
import math
import signal
import sys
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import strategies as registry
from sim.rules import DEFAULT_PATH, WRITTEN_TOML_BYTES, Rules, RulesError, load_toml, merge
from sim.rules.schema import shown
from strategies.base import StrategyParameterError
from strategies.registry import name_key, name_problem
from strategies.registry import parse as parse_strategy

from . import tomlw
from .runfolder import pick_arm

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
    "reference": str,
    "target_ci": float,
    "calibrate": bool,
    "calibration_games": int,
    "belief": str,
    "overrides": dict,
    "sweep": dict,
    "arms": list,
}
DEFAULTS = {
    "description": "",
    "players": 5,
    "games": 2000,
    "seed": 1,
    "shard_size": 4096,  # a batch of 4,096 plays a game for half the CPU of one of 1,000 (docs/guide.md, Speed)
    "strategies": ["balanced"],
    "rotate": True,
    "plugins": [],
    "rules": "",
    "reference": "",
    "target_ci": 0.0,
    "calibrate": True,
    "calibration_games": 2000,
    "belief": "anchored",
    "overrides": {},
    "sweep": {},
    "arms": [],
}
ARM_KEYS = {"name": str, "overrides": dict, "strategies": list, "rules": str}
# Bounds of the top-level numbers: game indices and the seed are int64 columns of the frames.
MAX_GAMES = 2**62
MAX_SEED = 2**63 - 1
LIMITS = {
    "games": (1, MAX_GAMES),
    "seed": (0, MAX_SEED),
    "shard_size": (1, MAX_GAMES),
    "calibration_games": (1, 1_000_000),
}
# Arms per experiment (listed arms times the sweep's combinations), counted before any is checked.
MAX_ARMS = 10_000
# Where a top-level key came from when the command line set it (messages name the option, not the file).
OPTIONS = {
    "games": "--games",
    "seed": "--seed",
    "strategies": "--strategy",
    "shard_size": "--shard-size",
    "target_ci": "--target-ci",
    "reference": "--reference",
    "calibrate": "--no-calibrate",
}
# The crash belief the built-in strategies act on (strategies.calibration: ANCHORED or FITTED).
BELIEFS = ("anchored", "fitted")
# Sections of a study file, read by `eastindia tune` / `eastindia sensitivity` (experiments.search).
STUDY_SECTIONS = ("tune", "sensitivity", "metagame", "respond")
# Keys that change no row of the results (left out of the experiment's digest): how it is cut, what it is compared
# with.
NOT_RESULTS = ("shard_size", "reference")


class ExperimentError(ValueError):
    """A malformed experiment; ``problems`` lists every one found (the message is the first)."""

    def __init__(self, problems: list[str]):
        super().__init__(problems[0])
        self.problems = problems


class PluginError(ValueError):
    """A strategy plugin that cannot be loaded."""


class PluginRefused(PluginError):
    """A plugin named by a run folder that is not imported: plugins were not allowed, or its file is missing or
    not the file the run recorded."""


# ------------------------------------------------------------------------------------------------- plugins
# The seconds a plugin's file may take to import (the command line's --plugin-timeout, or run's --timeout) in the
# main thread of a POSIX process; None: no limit.
PLUGIN_TIMEOUT_S = 60.0
plugin_timeout: float | None = PLUGIN_TIMEOUT_S
# The plugins loaded together (one experiment's): name key -> (the plugin, its class).
Together = dict[str, tuple[str, type]]
# SHA-256 of the bytes each plugin file imported in this process ran: the file's resolved path -> its hex digest.
LOADED: dict[str, str] = {}


class _ImportTimeout(BaseException):
    """Raised by the alarm in a plugin's import that outlasts ``plugin_timeout`` (a BaseException: a plugin's
    ``except Exception`` does not swallow it)."""


@contextmanager
def _time_limit(seconds: float | None):
    """Raise ``_ImportTimeout`` in the main thread after ``seconds`` (SIGALRM; no limit where it is unavailable,
    nor under an alarm of the caller's that rings first, which is put back afterwards)."""
    main = threading.current_thread() is threading.main_thread()
    outer = signal.getitimer(signal.ITIMER_REAL)[0] if hasattr(signal, "setitimer") and main else 0.0
    if seconds is None or not main or not hasattr(signal, "setitimer") or 0 < outer <= seconds:
        yield
        return

    def ring(signum: int, frame: Any) -> None:
        raise _ImportTimeout

    start = time.monotonic()
    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if outer > 0:
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - start), 1e-3))


def plugin_path(spec: str, base: Path | None = None) -> Path:
    """The resolved file of ``path.py:Class`` (a relative path is relative to ``base``)."""
    path = Path(spec.rpartition(":")[0])
    if not path.is_absolute() and base is not None:
        path = base / path
    return path.resolve()


def load_plugin(
    spec: str, base: Path | None = None, sha256: str | None = None, together: Together | None = None
) -> type:
    """Load and register a Strategy class from ``path.py:Class``; returns the class.

    The file is read once and those bytes run (``LOADED`` records their SHA-256); with ``sha256`` they must have
    that digest, else ``PluginRefused`` and nothing runs. The import is bounded by ``plugin_timeout``; whatever it
    raises (``KeyboardInterrupt`` and ``SystemExit`` included, but a signal the process received) is a
    ``PluginError``. The strategy's name must match ``registry.NAME_PATTERN``, may not read as a built-in's, nor
    as the name of another class in ``together`` (the plugins loaded with it, by name key; this one is added)."""
    path_text, sep, cls_name = spec.rpartition(":")
    if not sep or not path_text or not cls_name:
        raise PluginError(f"plugin {spec!r}: expected path.py:ClassName")
    path = plugin_path(spec, base)
    if not path.is_file():
        raise (PluginRefused if sha256 else PluginError)(f"plugin {spec!r}: no such file {path}")
    module_name = "eastindia_plugin_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    module = sys.modules.get(module_name)
    if module is None:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise (PluginRefused if sha256 else PluginError)(f"plugin {spec!r}: {exc.strerror or exc}") from None
        digest = hashlib.sha256(data).hexdigest()
        _check_digest(spec, path, digest, sha256)
        loader = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(loader)
        sys.modules[module_name] = module
        try:
            with _time_limit(plugin_timeout):
                exec(compile(data, str(path), "exec"), module.__dict__)
        except BaseException as exc:  # a user's file: report it, do not crash with its traceback
            del sys.modules[module_name]
            if isinstance(exc, KeyboardInterrupt) and getattr(exc, "signum", None) is not None:
                raise  # SIGINT or SIGTERM reached the process (runner.Signalled): the user stops the command
            if isinstance(exc, _ImportTimeout):
                raise PluginError(
                    f"plugin {spec!r}: still importing after {plugin_timeout:g} s "
                    "(the limit: --plugin-timeout, or run's --timeout)"
                ) from None
            raise PluginError(f"plugin {spec!r}: {type(exc).__name__}: {exc}") from None
        LOADED[str(path)] = digest
    else:
        _check_digest(spec, path, LOADED.get(str(path), ""), sha256)
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise PluginError(f"plugin {spec!r}: {path.name} has no class {cls_name}")
    if not (inspect.isclass(cls) and issubclass(cls, registry.Strategy)):
        raise PluginError(f"plugin {spec!r}: {cls_name} is not a subclass of strategies.Strategy")
    name = cls.__dict__.get("name") or cls_name.lower()
    if problem := name_problem(name):
        raise PluginError(f"plugin {spec!r}: {problem}")
    built_in = next((n for n in registry.REGISTRY if registry.builtin(n) and name_key(n) == name_key(name)), None)
    if built_in is not None and registry.REGISTRY[built_in] is not cls:
        alike = "takes the name of" if built_in == name else f"reads as {built_in!r},"
        raise PluginError(f"plugin {spec!r}: strategy {name!r} {alike} a built-in strategy; rename it")
    if together is not None:  # two classes under one name: the second would silently replace the first
        first_spec, first = together.setdefault(name_key(name), (spec, cls))
        if first is not cls:
            alike = "already the name" if first.name == name else f"read as {first.name!r}, the name"
            raise PluginError(f"plugin {spec!r}: strategy {name!r} is {alike} of plugin {first_spec!r}; rename one")
    registry.register(name)(cls)
    return cls


def _check_digest(spec: str, path: Path, digest: str, sha256: str | None) -> None:
    if sha256 is not None and digest != sha256:
        raise PluginRefused(
            f"plugin {spec!r}: {path} is not the file the run imported (SHA-256 {digest[:12] or 'unknown'}…, the run "
            f"recorded {sha256[:12]}…); not imported"
        )


# Imports a plugin ``path.py:Class`` (relative to a folder; with the plugins loaded together) and returns its
# class: ``load_plugin`` or a guard of it.
Loader = Callable[..., type]


# ---------------------------------------------------------------------------------- strategy specs
def is_plugin(text: str) -> bool:
    """``path.py:Class`` (optionally ``:key=value,...``): the part before the first colon names a Python file."""
    return text.partition(":")[0].endswith(".py")


def split_plugin(text: str) -> tuple[str, str]:
    """``bots/mine.py:Mine:risk=0.2`` -> (``bots/mine.py:Mine``, ``risk=0.2``)."""
    path, _, rest = text.partition(":")
    cls, _, params = rest.partition(":")
    return f"{path}:{cls}", params


@dataclass(frozen=True)
class StrategySpec:
    """A strategy as an experiment plays it: its registered name and every parameter's value (defaults spelled
    out, in the order the strategy declares them); ``label`` (``strategy.label``) names it in the frames."""

    name: str
    params: tuple[tuple[str, Any], ...]
    label: str

    def make(self) -> Any:
        return registry.make(self.name, **dict(self.params))

    def resolved(self) -> str | dict[str, Any]:
        """As the resolved experiment.toml writes it: the name, or a table of the name and every parameter."""
        return {"name": self.name, **dict(self.params)} if self.params else self.name

    def meta(self) -> dict[str, Any]:
        return {"name": self.name, "params": dict(self.params)}


class StrategyEntryError(ValueError):
    """A strategy entry that cannot be played (the message names the strategy, not the file)."""


def strategy_spec(entry: Any, base: Path | None, loader: Loader | None = None) -> tuple[StrategySpec, str | None]:
    """The spec of one entry of a ``strategies`` list and the absolute plugin it needs (None: a registered one).

    Entries: ``"name"``, ``"name:key=value,..."``, ``"path.py:Class"``, ``"path.py:Class:key=value,..."``,
    ``{ name = "...", key = value, ... }`` or ``{ plugin = "path.py:Class", key = value, ... }``; a relative plugin
    path is relative to ``base``. ``loader`` imports a plugin (default ``load_plugin``); a ``PluginRefused`` it
    raises is raised as it is."""
    plugin = None
    if isinstance(entry, str):
        try:
            if is_plugin(entry):
                plugin, text = split_plugin(entry)
                _, params = parse_strategy(f"x:{text}")
            else:
                name, params = parse_strategy(entry)
        except RecursionError:  # a value of lists in lists deeper than the parser's stack
            raise StrategyEntryError(f"{entry[:40]}...: a parameter value is nested too deeply") from None
    elif isinstance(entry, dict):
        params = {k: v for k, v in entry.items() if k not in ("name", "plugin")}
        if ("name" in entry) == ("plugin" in entry):
            raise StrategyEntryError(
                'a strategy table needs either name = "registered name" or plugin = "path.py:Class" '
                f"(got {shown(entry)})"
            )
        which = entry.get("name", entry.get("plugin"))
        if not isinstance(which, str) or not which:
            raise StrategyEntryError(f"expected a string, got {shown(which)}")
        if "plugin" in entry:
            plugin = which
            if not is_plugin(plugin) or plugin.count(":") != 1:
                raise StrategyEntryError(f"plugin {plugin!r}: expected path.py:ClassName")
        else:
            name = which
    else:
        raise StrategyEntryError(f"expected a strategy name or table, got {shown(entry)}")
    if plugin is not None:
        try:
            name = (loader or load_plugin)(plugin, base).name
        except PluginRefused:
            raise
        except PluginError as err:
            raise StrategyEntryError(str(err)) from None
        plugin = _absolute_plugin(plugin, base)
    elif name not in registry.REGISTRY:
        raise StrategyEntryError(f"unknown strategy {name!r} (known: {', '.join(sorted(registry.REGISTRY))})")
    try:  # a bad parameter, or a plugin whose constructor fails, is found here, not in the middle of a run
        made = registry.make(name, **params)
    except StrategyParameterError as err:
        raise StrategyEntryError(str(err)) from None
    except Exception as exc:
        raise StrategyEntryError(f"strategy {name!r} raised {type(exc).__name__} when created: {exc}") from None
    values = getattr(made, "params", None)
    values = dict(values) if isinstance(values, dict) else dict(params)
    label = getattr(made, "label", None)
    return StrategySpec(name, tuple(values.items()), label if isinstance(label, str) else name), plugin


# ----------------------------------------------------------------------------------------------------- arms
def seatings(strategies: tuple[str, ...] | list[str], players: int, rotate: bool | str) -> list[tuple[str, ...]]:
    """The strategy in each seat for every rotation: one fixed seating (rotate = false); the round robin
    ``strategies[(s + r) % k]`` (true); or every distinct seating of the round robin's tables, in their order and
    each table's seatings sorted (``"all"``: every strategy plays every seat equally often with every
    table composition, so seat advantage is not confounded with who else sits at the table)."""
    k = len(strategies)
    if not rotate:
        return [tuple(strategies)]
    robin = [tuple(strategies[(s + r) % k] for s in range(players)) for r in range(k)]
    if rotate is True:
        return robin
    out: list[tuple[str, ...]] = []
    seen: set[tuple[str, ...]] = set()
    for table in robin:
        for seating in sorted(set(itertools.permutations(table))):
            if seating not in seen:
                seen.add(seating)
                out.append(seating)
    return out


@dataclass(frozen=True)
class Arm:
    """One set of rules and strategies to play ``games`` games with."""

    name: str
    index: int
    params: dict[str, Any]  # the keys that vary between arms
    overrides: dict[str, Any]  # every rules override of this arm (base overrides + params)
    strategies: tuple[str, ...]  # labels, rotated over the seats (or one per seat when not rotating)
    rotate: bool | str  # True, False or "all"
    players: int
    rules_file: str | None
    specs: tuple[StrategySpec, ...] = ()  # one per entry of ``strategies`` (names and parameters)

    @functools.cached_property
    def _seatings(self) -> list[tuple[str, ...]]:
        return seatings(self.strategies, self.players, self.rotate)

    @property
    def rotations(self) -> int:
        return len(self._seatings)

    def seats(self, rotation: int) -> list[str]:
        """Strategy label in each seat for a rotation (see ``seatings``)."""
        return list(self._seatings[rotation % self.rotations])

    def seating(self, game_ids: np.ndarray) -> tuple[list[str], np.ndarray]:
        """The distinct strategy labels and, per game and seat, the index of the one sitting there (int[G, N])."""
        names = list(dict.fromkeys(self.strategies))
        table = np.array([[names.index(x) for x in self.seats(r)] for r in range(self.rotations)])
        return names, table[np.asarray(game_ids) % self.rotations]

    def spec(self, label: str) -> StrategySpec:
        """The spec of the strategy labelled ``label`` (a registered name without parameters when none is given)."""
        for spec in self.specs:
            if spec.label == label:
                return spec
        return StrategySpec(label, (), label)

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
            "strategy_params": {label: self.spec(label).meta() for label in dict.fromkeys(self.strategies)},
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
    # each plugin file and the SHA-256 of the bytes this process imported from it (run.json's ``plugins``)
    plugin_files: tuple[tuple[str, str], ...] = field(default=())

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

    @property
    def reference(self) -> str:
        """The name of the arm the others are compared with."""
        return self.data["reference"] or self.arms[0].name

    @property
    def target_ci(self) -> float:
        """The half-width every headline 95 % interval must reach (0: play all ``games``)."""
        return float(self.data["target_ci"])

    @property
    def calibrate(self) -> bool:
        """Fit the strategies' learned quantities to each arm's rules before playing it (experiments.calibration)."""
        return bool(self.data["calibrate"])

    @property
    def calibration_games(self) -> int:
        return self.data["calibration_games"]

    @property
    def belief(self) -> str:
        """The crash belief the built-ins act on: "anchored" (``calibration.ANCHORED``) or "fitted" (``FITTED``)."""
        return self.data["belief"]

    def resolved_toml(self) -> str:
        return tomlw.dumps(self.data)

    def digest(self) -> str:
        """What determines the results: the resolved experiment (but its shard size and reference arm, which never
        change a row) and the code of its plugins as loaded."""
        data = {k: v for k, v in self.data.items() if k not in NOT_RESULTS}
        if not data.get("target_ci"):  # off: the digest of a run folder written before the key existed
            data.pop("target_ci", None)
        if data.get("belief") == "anchored":  # the default: the digest of a run folder written before the key
            data.pop("belief", None)
        if not data.get("calibrate", True):  # the fixed values: the digest of a run folder written before them
            data.pop("calibrate", None)
            data.pop("calibration_games", None)
            data.pop("belief", None)
        return hashlib.sha256((tomlw.dumps(data) + self.plugin_code).encode()).hexdigest()[:16]


# -------------------------------------------------------------------------------------------- load / check
def load(path: str | Path | None = None, **changes: Any) -> Experiment:
    """Load an experiment file (None: the library's baseline); ``changes`` override top-level keys."""
    return _load(path, None, changes)


def load_written(path: str | Path, loader: Loader | None = None) -> Experiment:
    """Load the resolved ``experiment.toml`` the runner wrote in a run folder: every arm with every strategy
    parameter spelled out, so a study of many arms may pass the size limit of a user's file (it has its own).

    A run folder may come from anyone, and its plugins are code: ``loader`` decides which it imports (default
    ``loaded_only``: those this process already imported, as the run that wrote the folder did; any other is
    ``PluginRefused``)."""
    return _load(path, WRITTEN_TOML_BYTES, {}, loader or loaded_only)


def loaded_only(spec: str, base: Path | None = None, together: Together | None = None) -> type:
    """The class of a plugin whose file this process has already imported; any other is ``PluginRefused``."""
    if str(plugin_path(spec, base)) not in LOADED:
        raise PluginRefused(f"plugin {spec!r}: a run folder's plugins are not imported unless allowed")
    return load_plugin(spec, base, together=together)


def recorded(records: Any, where: str) -> Loader:
    """A loader of a run folder's plugins whose files still have the SHA-256 its run recorded (``records``: the
    ``plugins`` of run.json, file -> digest; ``where`` names the folder); any other is ``PluginRefused``."""

    def load(spec: str, base: Path | None = None, together: Together | None = None) -> type:
        path = str(plugin_path(spec, base))
        digest = records.get(path) if isinstance(records, dict) else None
        if not isinstance(digest, str):
            raise PluginRefused(f"{where}: plugin {spec!r}: run.json records no checksum of {path}; not imported")
        try:
            return load_plugin(spec, base, sha256=digest, together=together)
        except PluginRefused as err:
            raise PluginRefused(f"{where}: {err}") from None

    return load


def _load(
    path: str | Path | None, limit: int | None, changes: dict[str, Any], loader: Loader | None = None
) -> Experiment:
    path = Path(path) if path else Path(__file__).with_name("library") / "baseline.toml"
    try:
        raw = load_toml(path, limit)
    except RulesError as err:
        raise ExperimentError([str(err)]) from None
    given = {k: v for k, v in changes.items() if v is not None}
    raw.update(given)
    return resolve(raw, str(path), path.parent, from_command_line=set(given), loader=loader)


def resolve(
    raw: dict[str, Any],
    source: str,
    base: Path | None,
    from_command_line: set[str] | frozenset = frozenset(),
    loader: Loader | None = None,
) -> Experiment:
    """The experiment of ``raw`` (a file's table, ``source`` its name, ``base`` its folder); every problem found is
    an ``ExperimentError``. ``loader`` imports each plugin (default ``load_plugin``); a plugin it refuses
    (``PluginRefused``) stops the load at once."""
    together: Together = {}

    def load(spec: str, base: Path | None) -> type:
        return (loader or load_plugin)(spec, base, together=together)

    problems: list[str] = []
    where = source or "experiment"

    def bad(key: str, msg: str) -> None:
        top = key.split(".")[0].split("[")[0]
        if top in from_command_line and top in OPTIONS:  # a bad command-line value names the option
            problems.append(f"{OPTIONS[top]}: {msg}")
        else:
            problems.append(f"{where}: {key}: {msg}")

    for key in sorted(set(raw) - set(TOP_KEYS)):
        if key in STUDY_SECTIONS:  # a tune or sensitivity file
            bad(key, f"[{key}] is read by `eastindia {key} FILE`, not by this command")
        else:
            bad(key, f"unknown key (known: {', '.join(sorted(TOP_KEYS))})")
    data = {"name": Path(source).stem if source else "experiment", **DEFAULTS}
    for key, typ in TOP_KEYS.items():
        if key in raw:
            value = raw[key]
            if key == "rotate" and value == "all":  # every distinct seating
                data[key] = value
            elif key == "rotate" and not isinstance(value, bool):
                bad(key, f'expected true, false or "all", got {shown(value)}')
            elif typ is float and isinstance(value, int) and not isinstance(value, bool):
                data[key] = float(value)
            elif not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
                bad(key, f"expected {'a number' if typ is float else typ.__name__}, got {shown(value)}")
            else:
                data[key] = value
    if not (0.0 <= data["target_ci"] < 0.5):  # also refuses NaN
        bad("target_ci", f"must be 0 (off) or a half-width between 0 and 0.5, got {shown(data['target_ci'])}")
    if data["belief"] not in BELIEFS:
        bad("belief", f"expected one of {', '.join(map(repr, BELIEFS))}, got {shown(data['belief'])}")
    if not 4 <= data["players"] <= 6:
        bad("players", f"{shown(data['players'])} players is impossible: the game takes 4 to 6")
    for key, (low, high) in LIMITS.items():
        if not low <= data[key] <= high:
            bad(key, f"must be between {low} and {high:,}, got {shown(data[key])}")

    sizes = [len(values) for values in data["sweep"].values() if isinstance(values, list)]
    arms = max(1, len(data["arms"])) * math.prod(sizes)
    if arms > MAX_ARMS:  # refused before checking any: each arm costs a rules check, and the run a shard or more
        problems.append(
            f"{where}: {arms:,} arms: at most {MAX_ARMS:,} per experiment (the [[arms]] times the [sweep]'s "
            "combinations); split it into several experiments"
        )
        raise ExperimentError(problems)

    plugins = []
    for i, spec in enumerate(data["plugins"]):
        if not isinstance(spec, str):
            bad(f"plugins[{i}]", f"expected a 'path.py:Class' string, got {shown(spec)}")
            continue
        try:
            load(spec, base)
            plugins.append(_absolute_plugin(spec, base))
        except PluginRefused:
            raise
        except PluginError as err:
            bad(f"plugins[{i}]", str(err))

    players = data["players"] if 4 <= data["players"] <= 6 else 5

    def load_rules(key: str, text: str) -> tuple[str | None, Rules | None]:
        """A rules file (relative to the experiment file) and its rules; (None, defaults) for none."""
        if not text:
            return None, Rules.default(players)
        path = Path(text)
        path = path if path.is_absolute() or base is None else (base / path)
        path_text = str(path.resolve())
        try:
            rules = Rules.from_toml(path_text, players=players)
        except RulesError as err:
            bad(key, str(err))
            return path_text, None
        file_game = load_toml(path_text).get("game")  # the experiment's players win; a file saying otherwise conflicts
        file_players = file_game.get("players", players) if isinstance(file_game, dict) else players
        if file_players != players:
            bad(
                key,
                f"{path_text} sets game.players = {shown(file_players)} but the experiment plays {players} "
                f"players: set players = {shown(file_players)} in the experiment or drop the key",
            )
        return path_text, rules

    rules_file, base_rules = load_rules("rules", data["rules"])

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

    def check_strategies(key: str, entries: Any, rotate: bool | str) -> list[StrategySpec]:
        """The specs of a ``strategies`` list (names, tunings and plugins); problems go to ``bad``. A
        plugin path given on the command line is relative to the current folder, in a file to the file's."""
        if not isinstance(entries, list):
            bad(key, f"expected a list of strategy names, got {shown(entries)}")
            return []
        entries = list(entries)
        if entries == ["*"]:
            entries = sorted(registry.REGISTRY)
        if not entries:
            bad(key, "needs at least one strategy")
        where_from = Path.cwd() if key == "strategies" and "strategies" in from_command_line else base
        specs = []
        for i, entry in enumerate(entries):
            try:
                spec, plugin = strategy_spec(entry, where_from, load)
            except (StrategyEntryError, registry.UnknownStrategy) as err:
                bad(f"{key}[{i}]", str(err))
                continue
            specs.append(spec)
            if plugin:
                plugins.append(plugin)
        labels = [spec.label for spec in specs]
        for i, spec in enumerate(specs):  # one label, one strategy: two tunings that print alike cannot be told apart
            if any(other.label == spec.label and other != spec for other in specs[:i]):
                bad(key, f"two different strategies are both labelled {spec.label!r}")
        if not rotate and len(labels) != data["players"]:
            bad(key, f"rotate = false needs one strategy per seat ({data['players']}), got {len(labels)}")
        return specs

    top_specs = check_strategies("strategies", data["strategies"], data["rotate"])
    data["strategies"] = [spec.resolved() for spec in top_specs]
    if "strategies" in from_command_line:  # another experiment than the file's: its own name and --out
        data["name"] = "+".join([data["name"], *dict.fromkeys(spec.label for spec in top_specs)])
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
    arm_specs: dict[str, list[StrategySpec]] = {}
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
        arm_rules_file, arm_over_rules = rules_file, over_rules
        if "rules" in arm:  # a rules file per arm, the experiment's overrides on top
            if not isinstance(arm["rules"], str) or not arm["rules"]:
                bad(f"arms[{i}].rules", f"expected a rules file name, got {shown(arm['rules'])}")
                arm_over_rules = None
            else:
                arm_rules_file, arm_base = load_rules(f"arms[{i}].rules", arm["rules"])
                arm_over_rules = arm_base
                if arm_base is not None and data["overrides"]:
                    try:
                        arm_over_rules = arm_base.with_overrides(dict(data["overrides"]))
                    except RulesError as err:
                        bad(f"arms[{i}].rules", f"with the experiment's [overrides]: {str(err).split(': ', 1)[-1]}")
                        arm_over_rules = None
        if arm_over_rules is not None:
            check_overrides(f"arms[{i}].overrides", over, rules=arm_over_rules)
        strats = arm.get("strategies")
        specs = check_strategies(f"arms[{i}].strategies", strats, data["rotate"]) if strats is not None else []
        entry: dict[str, Any] = {"name": name, "overrides": over}
        if specs:
            entry["strategies"] = [spec.resolved() for spec in specs]
            arm_specs[name] = specs
        if "rules" in arm:
            entry["rules"] = arm_rules_file or ""
        listed.append(entry)
    data["arms"] = listed

    if problems:
        raise ExperimentError(problems)
    plugins = list(dict.fromkeys(plugins))
    data["plugins"], data["rules"] = plugins, rules_file or ""  # absolute: the resolved file loads from anywhere
    arms, keys = expand(data, rules_file, top_specs, arm_specs)
    names = [arm.name for arm in arms]
    if data["reference"] and pick_arm(names, data["reference"]) is None:
        known = ", ".join(f"{i}: {n!r}" for i, n in enumerate(names))
        bad("reference", f"no arm is named {data['reference']!r} and it is not an arm's index (arms: {known})")
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
    data["reference"] = (
        pick_arm(names, data["reference"]) if data["reference"] else own_rules_arm(arms, rules_file, data)
    )
    code = hashlib.sha256(b"".join(Path(p.rpartition(":")[0]).read_bytes() for p in plugins)).hexdigest()
    files = tuple((f, LOADED.get(f, "")) for f in dict.fromkeys(p.rpartition(":")[0] for p in plugins))
    return Experiment(
        data["name"], source, data, tuple(arms), tuple(keys), tuple(plugins), code if plugins else "", files
    )


@functools.lru_cache(maxsize=64)
def _arm_rules(rules_file: str | None, players: int, overrides_json: str, name: str) -> Rules:
    """An arm's rules, built once per process (workers play many shards of the same arm)."""
    base = Rules.from_toml(rules_file, players=players) if rules_file else Rules.default(players)
    overrides = json.loads(overrides_json)
    return base.with_overrides(overrides, source=f"arm {name!r}") if overrides else base


def own_rules_arm(arms: list[Arm], rules_file: str | None, data: dict[str, Any]) -> str:
    """The default reference arm: the first whose rules are the experiment's own (its rules file, or the defaults,
    with its [overrides]), else the first arm."""
    try:
        own = _arm_rules(rules_file, data["players"], json.dumps(data["overrides"], sort_keys=True), "").digest()
    except RulesError:
        return arms[0].name
    return next((arm.name for arm in arms if arm.rules().digest() == own), arms[0].name)


def expand(
    data: dict[str, Any],
    rules_file: str | None,
    specs: list[StrategySpec] | None = None,
    arm_specs: dict[str, list[StrategySpec]] | None = None,
) -> tuple[list[Arm], list[str]]:
    """The arms: listed arms (or one base arm) crossed with the sweep grid; params = keys that vary. ``specs``
    (per listed arm: ``arm_specs``) are the strategies' names and parameters (default: registered names alone)."""
    arm_specs = arm_specs or {}
    sweep_keys = list(data["sweep"])
    grid = list(itertools.product(*(data["sweep"][k] for k in sweep_keys))) or [()]
    listed = data["arms"] or [{"name": "", "overrides": {}}]
    param_keys = list(dict.fromkeys([k for arm in listed for k in arm["overrides"]] + sweep_keys))
    arms = []
    for arm, values in itertools.product(listed, grid):
        params = {**arm["overrides"], **dict(zip(sweep_keys, values, strict=True))}
        label = ", ".join(f"{k}={v}" for k, v in zip(sweep_keys, values, strict=True))
        name = ", ".join(x for x in (arm["name"], label) if x) or data["name"]
        arm_spec = arm_specs.get(arm["name"]) or specs
        if not arm_spec:
            entries = arm.get("strategies") or data["strategies"]
            arm_spec = [e if isinstance(e, StrategySpec) else StrategySpec(e, (), e) for e in entries]
        arms.append(
            Arm(
                name=name,
                index=len(arms),
                params={k: params.get(k) for k in param_keys},
                overrides={**data["overrides"], **params},
                strategies=tuple(spec.label for spec in arm_spec),
                rotate=data["rotate"],
                players=data["players"],
                rules_file=arm.get("rules") or rules_file,
                specs=tuple(dict.fromkeys(arm_spec)),
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
    if raw.keys() & set(STUDY_SECTIONS):  # checked as `eastindia tune`, `sensitivity` or `metagame` reads it
        import importlib

        section = next(s for s in STUDY_SECTIONS if s in raw)
        try:
            importlib.import_module(f"experiments.{section}").load(path)
        except ExperimentError as err:
            return err.problems
        return []
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
