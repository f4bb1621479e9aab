"""What ``eastindia tune`` and ``eastindia sensitivity`` share: searched rules keys, section files, the
metrics of an arm, and the study folder.

A *study* plays many variants of one experiment's rules, each as an arm of the existing runner (shards, resume,
seat rotation), every variant on the same games with the same dice (common random numbers: the experiment's seed
and games ``0..games-1``), and reduces each arm to a few numbers:

- ``crash_rate``: the share of games the Company crashed in (Wilson 95 % interval);
- ``win_rate`` of a strategy: the share of games a seat playing it won (Wilson);
- ``mean_end_round``: the mean round the games ended in (Student-t);
- ``win_spread``: the best strategy's win rate minus the worst one's, each taken as its excess over its fair share
  (the share of the seats it plays; under seat rotation every strategy's fair share is the same and this is the
  plain gap between win rates). Its 95 % interval is simultaneous over the pairs of strategies (``spread_interval``:
  Newcombe's paired interval of each difference of win rates, Bonferroni-adjusted).

A change between two arms that play the same games (a tune's confirmation) is estimated with a paired bootstrap
over the games (``paired_bootstrap``: the games resampled jointly in both arms, a fixed seed, reproducible).

Searched keys (``[tune.params]``, ``[sensitivity.params]``) are rules keys with a range or a list of choices::

    "capital.linear_rate" = { low = 0.0, high = 0.5 }               # a number (log = true: a log scale)
    "capital.budget_per_player" = { low = 4, high = 9, int = true } # an integer (step = 2: every other one)
    "capital.formula" = { choices = ["inverse_share", "linear"] }   # one of these values

A key of ``[tune.params]`` may be *conditional* (``when``): searched only in the trials where the named searched
keys take the given value (or one of a list of values); elsewhere the rules keep their own value and the key is
absent from the trial (define-by-run: Optuna is never asked for it)::

    "capital.linear_rate" = { low = 0.0, high = 0.5, when = { "capital.formula" = "linear" } }

A condition names keys with choices or integer ranges (a continuous key takes a given value only by chance), each
value among that key's choices or in its range; no key is conditioned on itself or, through others, in a cycle.
A SALib design sets every key at every point, so ``[sensitivity.params]`` refuses ``when``. ``[tune.params]`` also
takes strategy parameters, ``"bid_low:max_bid"`` (``strategy_target``), their ranges checked against the ``Param``.

A key whose default is an integer is searched over integers (``int = true`` is implied; ``int = false`` is refused);
``low``, ``high`` and every choice are checked against the rules (with the experiment's ``[overrides]``) when the file
is loaded, so a range the rules refuse is one line and exit 2 before any game is played.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import strategies as registry
from sim.rules import Rules, RulesError, load_toml
from sim.rules.schema import shown
from strategies.base import StrategyParameterError

from . import runfolder as rf
from . import spec, tomlw
from .runner import Interrupted, RunError, _commands, _one_line
from .spec import Experiment, ExperimentError, StrategySpec

OBJECTIVES = ("win_spread", "crash_rate", "win_rate", "mean_end_round")
PROPORTION_METRICS = ("win_spread", "crash_rate", "win_rate", "equilibrium_crash_rate")
SECTIONS = ("tune", "sensitivity")
# Top-level keys a study file cannot use: a study makes its own arms, plays every game of ``games`` per arm and has
# no reference arm of the user's.
NOT_IN_STUDIES = {
    "sweep": "a study makes its own arms from its params",
    "arms": "a study makes its own arms from its params",
    "target_ci": "every arm of a study plays all `games` games (on the same dice)",
    "reference": "a study has no reference arm of yours (a tune's confirmation compares with the default rules)",
}
META = "study.json"
AGAIN = "free some space and run again with --resume: what is done is kept"
DATABASE = "study.db"  # a tune's (and each response's) Optuna study
BOOTSTRAP = 4000  # resamples of a bootstrap interval
BOOTSTRAP_SEED = 14  # the bootstrap's own fixed seed: the same counts give the same interval


# ------------------------------------------------------------------------------------------------ parameters
@dataclass(frozen=True)
class Param:
    """One searched rules key: ``kind`` "float", "int" or "choice"."""

    key: str
    kind: str
    low: float | int | None = None
    high: float | int | None = None
    log: bool = False
    step: float | int | None = None
    choices: tuple[Any, ...] = ()
    when: tuple[tuple[str, tuple[Any, ...]], ...] = ()  # (searched key, the values that make this key searched)

    def active(self, values: dict[str, Any]) -> bool:
        """Is the key searched given the values of the keys suggested before it (an inactive key is absent)?"""
        return all(k in values and any(same(values[k], v) for v in vals) for k, vals in self.when)

    def suggest(self, trial: Any) -> Any:
        """Ask an Optuna trial for its value (define-by-run; the same distribution as ``distribution``)."""
        if self.kind == "choice":
            return trial.suggest_categorical(self.key, list(self.choices))
        if self.kind == "int":
            return trial.suggest_int(self.key, int(self.low), int(self.high), step=int(self.step or 1), log=self.log)
        return trial.suggest_float(self.key, float(self.low), float(self.high), step=self.step, log=self.log)

    def condition_text(self) -> str:
        """``capital.formula = "linear"``, ``a in 4, 5`` (empty: unconditional)."""
        parts = []
        for k, vals in self.when:
            shown_vals = ", ".join(tomlw._value(v) for v in vals)
            parts.append(f"{k} = {shown_vals}" if len(vals) == 1 else f"{k} in {shown_vals}")
        return " and ".join(parts)

    def distribution(self) -> Any:
        """Its Optuna distribution."""
        from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

        if self.kind == "choice":
            return CategoricalDistribution(list(self.choices))
        if self.kind == "int":
            return IntDistribution(int(self.low), int(self.high), log=self.log, step=int(self.step or 1))
        return FloatDistribution(float(self.low), float(self.high), log=self.log, step=self.step)

    def unit_bounds(self) -> list[float]:
        """Bounds of the continuous variable SALib samples for it: every integer and every choice gets an equal
        share of the interval (an integer k covers [k - 1/2, k + 1/2); choice i covers [i, i + 1))."""
        if self.kind == "choice":
            return [0.0, float(len(self.choices))]
        if self.kind == "int":
            step = int(self.step or 1)
            n = (int(self.high) - int(self.low)) // step + 1
            return [-0.5, n - 0.5]
        if self.log:
            return [math.log(self.low), math.log(self.high)]
        return [float(self.low), float(self.high)]

    def value(self, x: float) -> Any:
        """The rules value at a sampled point ``x`` (within ``unit_bounds``)."""
        if self.kind == "choice":
            return self.choices[min(max(int(math.floor(x)), 0), len(self.choices) - 1)]
        if self.kind == "int":
            step = int(self.step or 1)
            n = (int(self.high) - int(self.low)) // step + 1
            return int(self.low) + step * min(max(int(math.floor(x + 0.5)), 0), n - 1)
        v = math.exp(x) if self.log else float(x)
        return float(min(max(v, self.low), self.high))

    def describe(self) -> str:
        """``0–0.5``, ``4–9 (integers)``, ``"inverse_share" | "linear"``, then ``when capital.formula = "linear"``."""
        if self.kind == "choice":
            text = " | ".join(tomlw._value(c) for c in self.choices)
            return text + (f" when {self.condition_text()}" if self.when else "")
        text = f"{self.low:g}–{self.high:g}"
        if self.kind == "int":
            text += " (integers" + (f", step {self.step}" if self.step and self.step != 1 else "") + ")"
        elif self.step:
            text += f" (step {self.step:g})"
        text += ", log scale" if self.log else ""
        return text + (f" when {self.condition_text()}" if self.when else "")

    def resolved(self) -> dict[str, Any]:
        """As the resolved experiment.toml writes it."""
        out: dict[str, Any]
        if self.kind == "choice":
            out = {"choices": list(self.choices)}
        else:
            out = {"low": self.low, "high": self.high}
            if self.kind == "int":
                out["int"] = True
            if self.log:
                out["log"] = True
            if self.step is not None:
                out["step"] = self.step
        if self.when:
            out["when"] = {k: vals[0] if len(vals) == 1 else list(vals) for k, vals in self.when}
        return out

    def contains(self, value: Any) -> bool:
        """Is ``value`` one of the key's choices, or in its range (on its step)?"""
        if self.kind == "choice":
            return any(same(value, c) for c in self.choices)
        if not _number(value) or not self.low <= value <= self.high:
            return False
        if self.kind == "int":
            return isinstance(value, int) and (value - int(self.low)) % int(self.step or 1) == 0
        return True


PARAM_KEYS = {"low", "high", "int", "log", "step", "choices", "when"}


def same(a: Any, b: Any) -> bool:
    """Equal values of the same type (``1``, ``1.0`` and ``true`` are different choices)."""
    return type(a) is type(b) and a == b


def suggest_order(params: tuple[Param, ...] | list[Param]) -> list[Param]:
    """The keys in the order a trial suggests them: every key after the keys its condition names, otherwise in the
    file's order (conditions are acyclic: checked on load)."""
    done: dict[str, Param] = {}
    left = list(params)
    while left:
        for p in left:
            if all(k in done for k, _ in p.when):
                done[p.key] = p
                left.remove(p)
                break
        else:  # a cycle (refused on load): keep the file's order
            done.update({p.key: p for p in left})
            left = []
    return list(done.values())


def effective(params: tuple[Param, ...] | list[Param], values: dict[str, Any]) -> dict[str, Any]:
    """The values of the keys active given ``values`` (inactive keys dropped), in suggestion order."""
    out: dict[str, Any] = {}
    for p in suggest_order(params):
        if p.key in values and p.active(out):
            out[p.key] = values[p.key]
    return out


def _lookup(raw: dict, key: str) -> Any:
    """The rules value at a dotted key (KeyError when there is none)."""
    node: Any = raw
    for part in key.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            raise KeyError(key)
    return node


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def is_strategy_key(key: str) -> bool:
    """``"bid_low:max_bid"``: a strategy's parameter (rules keys are dotted and have no colon)."""
    return ":" in key


def strategy_target(key: str, specs: Sequence[StrategySpec]) -> tuple[StrategySpec, str]:
    """The strategy at the table and the parameter a ``"<strategy>:<param>"`` key names (the strategy by its label or,
    when one plays under it, its registered name); ``ValueError`` with the reason when there is none."""
    name, _, param = key.partition(":")
    labels = ", ".join(dict.fromkeys(s.label for s in specs))
    found = [s for s in specs if s.label == name] or [s for s in specs if s.name == name]
    if not found:
        if name in registry.REGISTRY:
            raise ValueError(f"strategy {name!r} does not play in this experiment (strategies: {labels})")
        raise ValueError(f"unknown strategy {name!r} (known: {', '.join(sorted(registry.REGISTRY))})")
    if len(found) > 1:
        raise ValueError(f"strategy {name!r} plays with different parameters at this table ({labels}): tune one")
    params = registry.get(found[0].name).PARAMS
    if param not in params:
        raise ValueError(f"strategy {name!r} has no parameter {param!r} (known: {', '.join(sorted(params)) or 'none'})")
    return found[0], param


def strategy_value(target: StrategySpec, name: str) -> Any:
    """The value the table's strategy plays a parameter with (its default when the spec leaves it out)."""
    return dict(target.params).get(name, registry.get(target.name).PARAMS[name].default)


def _strategy_param(key: str, entry: dict[str, Any], specs: Sequence[StrategySpec]) -> tuple[Param | None, str]:
    """A searched strategy parameter, its range or choices checked against the parameter's own (its ``Param``)."""
    try:
        target, name = strategy_target(key, specs)
    except ValueError as err:
        return None, str(err)
    current = strategy_value(target, name)
    param, trouble = _param(key, entry, current, "the strategy parameter")
    if trouble:
        return None, trouble
    for v in list(param.choices) if param.kind == "choice" else [param.low, param.high]:
        try:
            registry.make(target.name, **{**dict(target.params), name: v})
        except StrategyParameterError as err:
            return None, f"{shown(v)}: {err}"
        except Exception as exc:  # a plugin's constructor
            return None, f"{shown(v)}: strategy {target.name!r} raised {type(exc).__name__} when created: {exc}"
    return param, ""


def parse_params(
    table: Any,
    where: str,
    rules: Rules | None,
    conditional: bool = False,
    specs: Sequence[StrategySpec] | None = None,
) -> tuple[list[Param], list[str]]:
    """The searched keys of a ``params`` table and every problem found (``where``: ``FILE: tune.params``);
    ``conditional``: ``when`` is allowed (``[tune.params]``), else refused (``[sensitivity.params]``); ``specs``:
    the strategies at the table, whose parameters may be searched as ``"<strategy>:<param>"`` keys (``tune``)."""
    problems: list[str] = []
    if not isinstance(table, dict) or not table:
        return [], [f"{where}: expected a table of rules keys, each with a range or choices (at least one)"]
    params = []
    conditions: dict[str, Any] = {}
    for key, entry in table.items():
        at = f"{where}.{key}"
        if not isinstance(entry, dict):
            problems.append(f"{at}: expected {{ low = ..., high = ... }} or {{ choices = [...] }}, got {shown(entry)}")
            continue
        unknown = sorted(set(entry) - PARAM_KEYS)
        if unknown:
            problems.append(f"{at}: unknown field {unknown[0]!r} (known: {', '.join(sorted(PARAM_KEYS))})")
            continue
        if "when" in entry:
            if not conditional:
                problems.append(
                    f"{at}: when: conditional keys are for `eastindia tune` only: a SALib design (Morris, Sobol) sets "
                    "every key at every point (a key the rules ignore there has no effect)"
                )
                continue
            entry = dict(entry)
            conditions[key] = entry.pop("when")
        if specs is not None and is_strategy_key(key):
            param, trouble = _strategy_param(key, entry, specs)
            if param is None:
                problems.append(f"{at}: {trouble}")
            else:
                params.append(param)
            continue
        current = None
        if rules is not None:
            try:
                current = _lookup(rules.raw, key)
            except KeyError:
                problems.append(f"{at}: not a rules key (see eastindia rules --dump)")
                continue
        param, trouble = _param(key, entry, current)
        if trouble:
            problems.append(f"{at}: {trouble}")
            continue
        if rules is not None:  # every end of the range and every choice must be a value the rules accept
            values = list(param.choices) if param.kind == "choice" else [param.low, param.high]
            for v in values:
                try:
                    rules.with_overrides({key: v}, source="params")
                except RulesError as err:
                    problems.append(f"{at}: {shown(v)}: {str(err).split(': ', 2)[-1]}")
                    break
        params.append(param)
    return _conditioned(params, conditions, table, where, problems), problems


def _conditioned(
    params: list[Param], conditions: dict[str, Any], table: dict[str, Any], where: str, problems: list[str]
) -> list[Param]:
    """The params with their ``when`` conditions checked (every problem appended): each names searched keys with
    choices or integer ranges other than itself, with values among their choices or in their range, and no cycle."""
    by_key = {p.key: p for p in params}
    out = []
    for p in params:
        if p.key not in conditions:
            out.append(p)
            continue
        at = f"{where}.{p.key}: when"
        raw = conditions[p.key]
        if not isinstance(raw, dict) or not raw:
            problems.append(
                f'{at}: expected a table of searched keys and their values, e.g. {{ "capital.formula" = "linear" }}, '
                f"got {shown(raw)}"
            )
            continue
        when, bad = [], False
        for k, given in raw.items():
            if k == p.key:
                problems.append(f"{at}: {k} is conditioned on itself")
            elif k not in table:
                problems.append(f"{at}: {k} is not a searched key (list it in the params with its range or choices)")
            elif k not in by_key:
                pass  # its own entry is refused (reported there)
            elif by_key[k].kind == "float":
                problems.append(
                    f"{at}: {k} is a continuous range (it takes a given value only by chance): condition on a key "
                    "with choices or an integer range"
                )
            elif isinstance(given, list) and not given:
                problems.append(f"{at}: {k}: expected a value or a non-empty list of values, got []")
            else:
                values = given if isinstance(given, list) else [given]
                wrong = [v for v in values if not by_key[k].contains(v)]
                if not wrong:
                    unique = [v for i, v in enumerate(values) if not any(same(v, u) for u in values[:i])]
                    when.append((k, tuple(unique)))
                    continue
                kind = "one of its choices" if by_key[k].kind == "choice" else "in its range"
                problems.append(f"{at}: {k} = {shown(wrong[0])} is not {kind} ({by_key[k].describe()})")
            bad = True
        if not bad:
            out.append(Param(p.key, p.kind, p.low, p.high, p.log, p.step, p.choices, tuple(when)))
    cycle = _cycle({p.key: [k for k, _ in p.when] for p in out})
    if cycle:
        problems.append(f"{where}.{cycle[0]}: when: the conditions make a cycle: {' -> '.join(cycle)}")
    return out


def _cycle(depends: dict[str, list[str]]) -> list[str]:
    """A cycle of conditions (``[a, b, a]``: a depends on b, b on a), or ``[]``."""
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(key: str, path: list[str]) -> list[str]:
        state[key] = 1
        for k in depends.get(key, []):
            if state.get(k) == 1:
                return [*path[path.index(k) :], k]
            if k not in state and (found := visit(k, [*path, k])):
                return found
        state[key] = 2
        return []

    for key in depends:
        if key not in state and (found := visit(key, [key])):
            return found
    return []


def _param(key: str, entry: dict[str, Any], current: Any, what: str = "the rules key") -> tuple[Param, str]:
    none = Param(key, "float")
    if "choices" in entry:
        extra = sorted(set(entry) - {"choices"})
        if extra:
            return none, f"choices and {extra[0]} do not go together"
        choices = entry["choices"]
        if not isinstance(choices, list) or not choices:
            return none, f"choices: expected a non-empty list, got {shown(choices)}"
        for i, c in enumerate(choices):
            if not isinstance(c, bool | int | float | str):
                return none, f"choices[{i}]: expected a number, a string or a boolean, got {shown(c)}"
            if any(type(c) is type(d) and c == d for d in choices[:i]):
                return none, f"choices[{i}]: duplicate value {shown(c)}"
        return Param(key, "choice", choices=tuple(choices)), ""
    if "low" not in entry or "high" not in entry:
        return none, "needs low and high (a range) or choices (a list)"
    low, high = entry["low"], entry["high"]
    for name, v in (("low", low), ("high", high)):
        if not _number(v) or not math.isfinite(v):
            return none, f"{name}: expected a finite number, got {shown(v)}"
    if not low < high:
        return none, f"low ({shown(low)}) must be below high ({shown(high)})"
    for name in ("int", "log"):
        if name in entry and not isinstance(entry[name], bool):
            return none, f"{name}: expected true or false, got {shown(entry[name])}"
    if current is not None and not _number(current):
        return none, f"{what} holds {shown(current)}, not a number: search it with choices = [...]"
    integer_key = isinstance(current, int) and not isinstance(current, bool)
    is_int = entry.get("int", integer_key)
    if integer_key and not is_int:
        return none, f"{what} holds an integer: drop int = false"
    log = entry.get("log", False)
    if log and low <= 0:
        return none, f"log = true needs low > 0, got {shown(low)}"
    step = entry.get("step")
    if is_int:
        for name, v in (("low", low), ("high", high)):
            if not isinstance(v, int):
                return none, f"{name}: an integer key needs an integer, got {shown(v)}"
        if step is not None and (not isinstance(step, int) or isinstance(step, bool) or step < 1):
            return none, f"step: expected a whole number of 1 or more, got {shown(step)}"
        if step is not None and log and step != 1:
            return none, "log = true needs step = 1"
        if step is not None and (high - low) % step:
            return none, f"step {step} does not divide high - low = {high - low}"
        return Param(key, "int", low, high, log, step), ""
    if step is not None:
        if not _number(step) or not step > 0 or not math.isfinite(step):
            return none, f"step: expected a positive number, got {shown(step)}"
        if log:
            return none, "log = true and step do not go together"
    return Param(key, "float", float(low), float(high), log, float(step) if step is not None else None), ""


# ----------------------------------------------------------------------------------------------- section files
def section_where(source: str, section: str) -> str:
    return f"{source}: {section}"


def load_study_file(
    path: str | Path,
    section: str,
    changes: dict[str, Any] | None = None,
    not_here: dict[str, str] = NOT_IN_STUDIES,
    check: Callable[[dict[str, Any], Path, list[str]], None] | None = None,
    others: dict[str, Any] | None = None,
) -> tuple[Experiment | None, dict[str, Any], Path, list[str]]:
    """Read an experiment file with a study's section (``[tune]``, ``[sensitivity]``, ``[metagame]``): the experiment
    without it (its arms are made by the study), the section's table, and every problem found so far (one line
    each). ``not_here``: the top-level keys the study refuses, with why; ``check(raw, path, problems)``: the study's
    own checks of the experiment's table before it is resolved; ``others``: the other sections the study reads (their
    names as keys), filled with their tables (None: absent)."""
    path = Path(path)
    try:
        raw = load_toml(path)
    except RulesError as err:
        raise ExperimentError([str(err)]) from None
    problems: list[str] = []
    table = raw.pop(section, None)
    for other in others or {}:
        others[other] = raw.pop(other, None)  # type: ignore[index]
    for other in SECTIONS:
        if other != section and other in raw:
            raw.pop(other)
            problems.append(f"{path}: {other}: read by `eastindia {other}`; a file for `eastindia {section}` has none")
    if table is None:
        problems.append(f"{path}: {section}: missing: `eastindia {section}` needs a [{section}] section")
        table = {}
    elif not isinstance(table, dict):
        problems.append(f"{path}: {section}: expected a table, got {shown(table)}")
        table = {}
    for key, why in not_here.items():
        if key in raw:
            problems.append(f"{path}: {key}: has no place in a {section} file ({why})")
            raw.pop(key)
    if check is not None:
        check(raw, path, problems)
    given = {k: v for k, v in (changes or {}).items() if v is not None}
    raw.update(given)
    exp = None
    try:
        exp = spec.resolve(raw, str(path), path.parent, from_command_line=set(given))
    except ExperimentError as err:
        problems = err.problems + problems
    return exp, table, path, problems


def player_counts(value: Any, path: Path) -> tuple[list[int], list[str]]:
    """A study's ``players``: a count or a non-empty list of distinct counts, each 4 to 6 (the counts, and the
    problems found)."""
    values = value if isinstance(value, list) else [value]
    if isinstance(value, list) and not value:
        return [5], [f"{path}: players: expected a player count or a non-empty list of them, got []"]
    out, problems = [], []
    for i, n in enumerate(values):
        at = f"players[{i}]" if isinstance(value, list) else "players"
        if not isinstance(n, int) or isinstance(n, bool):
            problems.append(f"{path}: {at}: expected an integer, got {shown(n)}")
        elif not 4 <= n <= 6:
            problems.append(f"{path}: {at}: {n} players is impossible: the game takes 4 to 6")
        elif n in out:
            problems.append(f"{path}: {at}: {n} is listed twice")
        else:
            out.append(n)
    return (out or [5]), problems


def count_folder(run_dir: Path, players: int) -> Path:
    """Where a study of several player counts keeps the study of one count."""
    return Path(run_dir) / f"players-{players}"


def run_counts(run: Callable[..., dict[str, Any]], specs: Sequence[Any], run_dir: Path, frame: str,
               meta: dict[str, Any], **play: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:  # fmt: skip
    """Play one study per player count (``specs``, each with ``exp.players``; ``run(spec, folder, **play)``) into
    ``RUN_DIR/players-N``, then write their ``frame`` side by side in ``RUN_DIR/frame`` (with ``players``) and
    ``RUN_DIR/study.json``: ``meta`` with the counts, their folders and the status (complete when every count's is).
    Returns the list of each count's metadata and the top one."""
    counts = [one.exp.players for one in specs]
    rf.check_targets(run_dir, [frame])  # a link at the table is refused before any count is played
    metas = [run(one, count_folder(run_dir, n), **play) for one, n in zip(specs, counts, strict=True)]
    frames = [
        pl.read_parquet(count_folder(run_dir, n) / frame).select(pl.lit(n, pl.Int64).alias("players"), pl.all())
        for n in counts
    ]
    write_parquet(Path(run_dir) / frame, pl.concat(frames, how="diagonal_relaxed"))
    top = {
        **meta,
        "counts": counts,
        "folders": [count_folder(run_dir, n).name for n in counts],
        "status": "complete" if all(m.get("status") == "complete" for m in metas) else "running",
    }
    write_meta(Path(run_dir), top)
    return metas, top


def check_keys(table: dict[str, Any], known: dict[str, Any], where: str, problems: list[str]) -> None:
    """Unknown keys and wrong types of a section's scalars (``known``: key -> type or tuple of types)."""
    for key in sorted(set(table) - set(known) - {"params"}):
        problems.append(f"{where}.{key}: unknown key (known: {', '.join(sorted([*known, 'params']))})")
    for key, typ in known.items():
        if key not in table:
            continue
        v = table[key]
        types = typ if isinstance(typ, tuple) else (typ,)
        ok = isinstance(v, types) and not (isinstance(v, bool) and bool not in types)
        if not ok:
            names = " or ".join("a number" if t is float else t.__name__ for t in types)
            problems.append(f"{where}.{key}: expected {names}, got {shown(v)}")


def base_rules(exp: Experiment | None) -> Rules | None:
    """The rules every arm of the study starts from (the rules file and the experiment's [overrides])."""
    if exp is None:
        return None
    try:
        return exp.arms[0].rules()
    except RulesError:
        return None


def study_experiment(
    exp: Experiment,
    name: str,
    arms: list[tuple[str, dict[str, Any]]],
    games: int | None = None,
    seed: int | None = None,
    strategies: dict[str, list[Any]] | None = None,
) -> Experiment:
    """An experiment of the study's own arms (name, overrides on top of the experiment's; ``strategies``: the table
    of an arm that plays other strategies than the experiment's, by arm name), played by the runner on the
    experiment's games and dice (or ``games`` / ``seed``)."""
    data = copy.deepcopy(exp.data)
    data.update({"name": name, "sweep": {}, "reference": "", "target_ci": 0.0})
    tables = strategies or {}
    data["arms"] = [
        {"name": arm, "overrides": over, **({"strategies": tables[arm]} if arm in tables else {})} for arm, over in arms
    ]
    if games is not None:
        data["games"] = games
    if seed is not None:
        data["seed"] = seed
    return spec.resolve(data, exp.source, None)


def arm_problem(exp: Experiment, overrides: dict[str, Any]) -> str | None:
    """Why the experiment's rules cannot take these overrides together (None: they can)."""
    rules = base_rules(exp)
    if rules is None:
        return "the experiment's rules do not load"
    try:
        rules.with_overrides(overrides, source="params")
    except RulesError as err:
        return str(err).split(": ", 1)[-1]
    return None


# ------------------------------------------------------------------------------------------------ arm metrics
@dataclass
class ArmStats:
    """What a study needs of one arm's games: counts and sums, and the games' winners (for the bootstrap)."""

    games: int
    crashes: int
    end_sum: float
    end_sq: float
    wins: dict[str, int]  # strategy label -> games won by a seat playing it
    fair: dict[str, float]  # strategy label -> its share of the seats
    per_game: pl.DataFrame | None = field(default=None, repr=False)  # game, crashed, end_round, winner_strategy

    @property
    def strategies(self) -> list[str]:
        return list(self.fair)


def arm_stats(run_dir: Path, keep_games: bool = False) -> dict[int, ArmStats]:
    """Per arm of a finished run folder (by ``arm_index``)."""
    games = pl.scan_parquet(rf.frame_path(run_dir, "games"))
    summary = (
        games.group_by("arm_index")
        .agg(
            pl.len().alias("games"),
            pl.col("crashed").cast(pl.Int64).sum().alias("crashes"),
            pl.col("end_round").cast(pl.Float64).sum().alias("end_sum"),
            (pl.col("end_round").cast(pl.Float64) ** 2).sum().alias("end_sq"),
        )
        .collect()
    )
    wins = games.group_by("arm_index", "winner_strategy").agg(pl.len().alias("n")).collect()
    seats = (
        pl.scan_parquet(rf.frame_path(run_dir, "seats"))
        .group_by("arm_index", "strategy")
        .agg(pl.len().alias("n"))
        .collect()
    )
    out = {}
    for r in summary.iter_rows(named=True):
        i = r["arm_index"]
        mine = seats.filter(pl.col("arm_index") == i).sort("strategy")
        total = float(mine["n"].sum())
        fair = {s: n / total for s, n in zip(mine["strategy"], mine["n"], strict=True)}
        won = dict.fromkeys(fair, 0)
        for s, n in wins.filter(pl.col("arm_index") == i).select("winner_strategy", "n").iter_rows():
            won[s] = won.get(s, 0) + int(n)
        per_game = None
        if keep_games:
            per_game = (
                games.filter(pl.col("arm_index") == i)
                .select("game", "crashed", "end_round", "winner_strategy")
                .sort("game")
                .collect()
            )
        out[i] = ArmStats(r["games"], r["crashes"], r["end_sum"], r["end_sq"], won, fair, per_game)
    return out


def relabel(stats: ArmStats, labels: dict[str, str]) -> ArmStats:
    """The arm's numbers under other strategy labels (``labels``: the label played -> the label reported), e.g. a
    tuned strategy's trial label ``bid_low(max_bid=3)`` read as the table's ``bid_low``."""
    fair: dict[str, float] = {}
    wins: dict[str, int] = {}
    for s, f in stats.fair.items():
        fair[labels.get(s, s)] = fair.get(labels.get(s, s), 0.0) + f
    for s, n in stats.wins.items():
        wins[labels.get(s, s)] = wins.get(labels.get(s, s), 0) + n
    per_game = stats.per_game
    if per_game is not None and labels:
        per_game = per_game.with_columns(pl.col("winner_strategy").replace(labels))
    return ArmStats(stats.games, stats.crashes, stats.end_sum, stats.end_sq, wins, fair, per_game)


def metric_names(metric: str, strategy: str | None = None) -> str:
    """``crash_rate``, ``win_rate`` of a strategy as ``win_rate::bid_low``."""
    return f"{metric}::{strategy}" if strategy else metric


def measure(stats: ArmStats, metric: str, strategy: str | None = None) -> tuple[float, float, float]:
    """(value, lo, hi) of a metric of one arm, 95 % (see the module docstring)."""
    from .stats import mean_ci, wilson

    n = stats.games
    if n <= 0:
        return math.nan, math.nan, math.nan
    if metric == "crash_rate":
        lo, hi = wilson(stats.crashes, n)
        return stats.crashes / n, float(lo), float(hi)
    if metric == "win_rate":
        k = stats.wins.get(strategy, 0)
        lo, hi = wilson(k, n)
        return k / n, float(lo), float(hi)
    if metric == "mean_end_round":
        mean = stats.end_sum / n
        std = math.sqrt(max(stats.end_sq - n * mean * mean, 0.0) / (n - 1)) if n > 1 else math.nan
        lo, hi = mean_ci(n, mean, std)
        return mean, float(lo), float(hi)
    if metric == "win_spread":
        return spread_interval(stats)
    raise ValueError(f"unknown metric {metric!r}")


def spread_interval(stats: ArmStats) -> tuple[float, float, float]:
    """The win spread with a simultaneous 95 % interval: the spread is the largest difference e_i - e_j of two
    strategies' excesses over their fair shares; each difference of win rates is measured on the same games (a game
    has one winner) and gets Newcombe's paired interval (method 10) at the Bonferroni level 5 % / (pairs); the
    spread then lies between the largest lower bound (and 0) and the largest upper bound. The estimate always lies
    inside; the interval is conservative."""
    from .stats import paired_diff_ci

    n = stats.games
    labels = stats.strategies
    k = len(labels)
    wins = np.array([stats.wins.get(s, 0) for s in labels], dtype=float)
    fair = np.array([stats.fair[s] for s in labels])
    value = float(spread(wins[None, :] / n, fair)[0])
    if k < 2:
        return value, value, value
    i, j = (a.ravel() for a in np.meshgrid(np.arange(k), np.arange(k), indexing="ij"))
    keep = i != j
    i, j = i[keep], j[keep]
    alpha = 0.05 / (k * (k - 1) / 2)
    _, lo, hi = paired_diff_ci(np.zeros(i.size), wins[i], wins[j], n - wins[i] - wins[j], alpha=alpha)
    shift = fair[i] - fair[j]
    return value, float(max(0.0, np.max(lo - shift))), float(np.max(hi - shift))


def spread(rates: np.ndarray, fair: np.ndarray) -> np.ndarray:
    """Best minus worst excess over the fair share, per row of ``rates[R, S]``."""
    excess = rates - fair[None, :]
    return excess.max(axis=1) - excess.min(axis=1)


def per_game_metric(frame: pl.DataFrame, metric: str, strategy: str | None, fair: dict[str, float]) -> Any:
    """A metric as a function of resampled game rows: returns ``f(index[R, n]) -> float[R]`` (paired bootstraps)."""
    if metric == "crash_rate":
        x = frame["crashed"].cast(pl.Float64).to_numpy()
        return lambda idx: x[idx].mean(axis=-1)
    if metric == "win_rate":
        x = (frame["winner_strategy"] == strategy).cast(pl.Float64).to_numpy()
        return lambda idx: x[idx].mean(axis=-1)
    if metric == "mean_end_round":
        x = frame["end_round"].cast(pl.Float64).to_numpy()
        return lambda idx: x[idx].mean(axis=-1)
    labels = list(fair)
    code = np.array([labels.index(s) if s in labels else -1 for s in frame["winner_strategy"].to_list()])
    onehot = (code[:, None] == np.arange(len(labels))[None, :]).astype(float)
    f = np.array([fair[s] for s in labels])
    return lambda idx: spread(onehot[idx].mean(axis=-2), f)


def paired_bootstrap(
    x: pl.DataFrame, y: pl.DataFrame, fx: Callable, fy: Callable, transform: Callable[[np.ndarray], np.ndarray]
) -> tuple[float, float, float]:
    """``transform(fx) - transform(fy)`` over games resampled jointly in both arms (paired: the same games), with
    its 95 % percentile interval; rows are matched on ``game``."""
    joined = x.select("game").join(y.select("game").with_row_index("iy"), on="game", how="inner")
    gx = x.select("game").with_row_index("ix").join(joined, on="game", how="inner").sort("game")
    ix, iy = gx["ix"].to_numpy(), gx["iy"].to_numpy()
    n = ix.size
    if n == 0:
        return math.nan, math.nan, math.nan
    est = float(transform(fx(ix[None, :]))[0] - transform(fy(iy[None, :]))[0])
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    diffs = np.empty(0)
    for _ in range(10):  # in blocks: bounded memory for long confirmation runs
        pick = rng.integers(0, n, size=(BOOTSTRAP // 10, n))
        diffs = np.concatenate([diffs, transform(fx(ix[pick])) - transform(fy(iy[pick]))])
    lo, hi = np.percentile(diffs, [2.5, 97.5])
    return est, float(lo), float(hi)


# ------------------------------------------------------------------------------------------------- the folder
def digest(parts: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


def read_meta(run_dir: Path) -> dict[str, Any] | None:
    path = Path(run_dir) / META
    if not path.exists():
        return None
    meta = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(meta, dict):
        raise ValueError("not a table")
    return meta


def write_parquet(path: Path, frame: pl.DataFrame) -> None:
    """A study's table written whole or not at all (a temporary file renamed into place); a failure is one line."""
    path = Path(path)
    data = io.BytesIO()  # encoded first: a full disk is then an OSError, not an error polars wraps (ComputeError)
    frame.write_parquet(data)
    try:
        with rf.open_write(path.parent, path.name) as fh:  # never through a link at ``path``
            fh.write(data.getbuffer())
    except OSError as exc:
        raise RunError(f"cannot write {path}: {exc.strerror or exc}; {AGAIN}") from None


def write_meta(run_dir: Path, meta: dict[str, Any]) -> None:
    try:
        rf.write_json_atomic(Path(run_dir) / META, meta)
    except OSError as exc:
        raise RunError(f"{run_dir}: cannot write {META}: {exc.strerror or exc}; {AGAIN}") from None


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Folder:
    """A study's folder, locked for the whole study (``runfolder.RunLock``), with its ``study.json``.

    ``open`` decides what to do with what is there: nothing or an empty folder starts the study; a finished study
    of the same experiment is returned as it is (``meta["status"] == "complete"``); an unfinished one is continued
    with ``resume`` (refused without it, with the command that continues); another experiment, another kind of
    folder or a folder holding something else is refused untouched (``fresh`` moves a study folder aside first)."""

    def __init__(self, run_dir: Path, kind: str, command: str, notify: Callable[[str], None]):
        self.path = Path(run_dir)
        self.kind, self.command, self.notify = kind, command, notify
        self.lock: rf.RunLock | None = None

    def __enter__(self) -> Folder:
        self._claim()
        return self

    def _claim(self) -> None:
        """Create the folder, take its lock, then look at what it holds: a second study started on the same
        folder at the same moment is refused by the lock (naming its holder), never by what the first one has
        begun to write there."""
        from .runner import _lock

        if self.path.exists() and not self.path.is_dir():
            raise RunError(f"--out {self.path}: is a file, not a folder; choose another --out")
        made = not self.path.exists()
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RunError(f"--out {self.path}: cannot write there: {exc.strerror or exc}") from None
        self.lock = _lock(self.path)
        if made or (self.path / META).exists() or not _foreign_study(self.path):
            return
        self.lock.release()  # the lock file goes too: the folder is left as it was found
        self.lock = None
        if (self.path / rf.META).exists():
            raise RunError(f"{self.path}: holds a run of `eastindia run`, not a {self.kind}; choose another --out")
        raise RunError(f"{self.path}: exists, is not empty and is not a {self.kind} folder; choose another --out")

    def __exit__(self, *exc: Any) -> None:
        if self.lock is not None:
            self.lock.release()

    def move_aside(self) -> None:
        if Path.cwd().resolve().is_relative_to(self.path.resolve()):
            raise RunError(f"{self.path}: --fresh cannot move the folder you are in aside; run from elsewhere")
        aside = rf.aside_path(self.path)
        try:
            self.path.rename(aside)
        except OSError as exc:
            raise RunError(f"{self.path}: cannot move it aside to {aside}: {exc.strerror or exc}") from None
        self.lock.path = aside / rf.LOCK
        self.lock.release()
        self.notify(f"moved the old {self.kind} folder {self.path} aside to {aside}")
        self._claim()

    def open(self, study_digest: str, resume: bool, fresh: bool) -> dict[str, Any] | None:
        """The study's metadata to continue from (None: start afresh in place)."""
        resume_cmd, fresh_cmd = _commands(self.command)
        afresh = f"start afresh with: {fresh_cmd} (moves this folder aside)"
        if fresh and (self.path / META).exists():
            self.move_aside()
            return None
        if not (self.path / META).exists():
            return None
        try:
            meta = read_meta(self.path)
        except (OSError, ValueError) as exc:
            raise RunError(f"{self.path}: {META} is unreadable ({_one_line(exc)}); {afresh}") from None
        assert meta is not None
        if meta.get("kind") != self.kind:
            raise RunError(
                f"{self.path}: holds a {meta.get('kind', 'different')} study, not a {self.kind}; choose another --out"
            )
        if meta.get("study_digest") != study_digest:
            raise RunError(
                f"{self.path}: holds a different {self.kind} ({meta.get('name')!r}, digest "
                f"{meta.get('study_digest')}); choose another --out or {afresh}"
            )
        if meta.get("status") == "complete":
            return meta
        if not resume:
            if not meta.get("started_work"):
                return None  # nothing computed is at stake: start again in place
            stopped = f"{meta.get('status')}: {meta['error']}" if meta.get("error") else str(meta.get("status"))
            raise RunError(
                f"{self.path}: holds an unfinished {self.kind} of this experiment ({stopped}); pass --resume to "
                f"continue it: {resume_cmd}, or {afresh}"
            )
        return meta

    def mark(self, meta: dict[str, Any], status: str, error: str) -> None:
        """Record why the study stopped (best effort)."""
        with contextlib.suppress(OSError):
            rf.write_json_atomic(self.path / META, {**meta, "status": status, "error": error})


def _foreign_study(path: Path) -> bool:
    """Does the folder hold anything but a lock, an experiment.toml or their temporary files?"""
    for p in path.iterdir():
        if p.name in (rf.LOCK, rf.EXPERIMENT) or p.name.startswith((f".{rf.EXPERIMENT}.tmp-", f".{META}.tmp-")):
            continue
        return True
    return False


def sub_run(folder: Path, exp: Experiment) -> bool:
    """Is ``folder`` a finished run of another experiment (to be moved aside before it is played again)?"""
    try:
        meta = rf.read_meta(folder)
    except (OSError, ValueError):
        return False
    return meta.get("experiment_digest") != exp.digest()


def move_run_aside(folder: Path) -> None:
    """Move a sub-run folder that holds another experiment aside (never delete it)."""
    aside = rf.aside_path(folder)
    try:
        folder.rename(aside)
    except OSError as exc:
        raise RunError(f"{folder}: cannot move it aside to {aside}: {exc.strerror or exc}") from None


def play_study(
    folder: Folder,
    meta: dict[str, Any],
    resolved_toml: str,
    work: Callable[[], None],
    stopped: Callable[[], Interrupted],
    elapsed: float = 0.0,
) -> dict[str, Any]:
    """The part every study (tune, sensitivity, metagame) shares: write its resolved file and ``meta`` (status
    running), do the ``work`` (play through the runner and write the study's own files), and mark the study complete
    after ``elapsed`` seconds of earlier sessions. Ctrl-C raises ``stopped()``; an interruption or a failure is marked
    in ``meta`` and raised."""
    run_dir = folder.path
    try:
        rf.write_atomic(run_dir / rf.EXPERIMENT, resolved_toml.encode())
        write_meta(run_dir, meta)
    except OSError as exc:
        raise RunError(f"{run_dir}: cannot write: {exc.strerror or exc}") from None
    start = time.perf_counter()
    try:
        work()
    except KeyboardInterrupt:
        folder.mark(meta, "interrupted", "Ctrl-C")
        raise stopped() from None
    except Interrupted as exc:
        folder.mark(meta, "interrupted", _one_line(exc))
        raise
    except Exception as exc:
        reason = _database_failure(exc)
        if reason is None:
            folder.mark(meta, "failed", _one_line(exc))
            raise
        failed = RunError(
            f"{run_dir}: cannot write a study database ({DATABASE}): {reason}; what is told is kept: free some "
            f"space and run again with --resume: {_commands(folder.command)[0]}"
        )
        folder.mark(meta, "failed", str(failed))
        raise failed from None
    meta["wall_time_s"] = round(elapsed + time.perf_counter() - start, 3)
    meta.update({"status": "complete", "finished": now(), "versions": versions()})
    meta.pop("error", None)
    write_meta(run_dir, meta)
    return meta


def _database_failure(exc: BaseException) -> str | None:
    """What SQLite said, when ``exc`` (or what it was raised from) is a failure of an Optuna study's database (a
    full disk: "database or disk is full", "disk I/O error"); None for anything else."""
    import sqlite3

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, sqlite3.Error):
            return _one_line(seen)
        orig = getattr(seen, "orig", None)  # sqlalchemy's DBAPIError holds the driver's error
        if isinstance(orig, sqlite3.Error):
            return _one_line(orig)
        seen = seen.__cause__ or seen.__context__
    return None


def shards_kept(sub_dir: Path, command: str, total: int) -> Interrupted:
    """The interruption of a study whose finished shards are kept in ``sub_dir``."""
    return Interrupted(
        f"interrupted: the finished shards are kept in {sub_dir}; run again with --resume to continue: "
        f"{_commands(command)[0]}",
        0,
        total,
    )


def versions() -> dict[str, str]:
    import importlib.metadata

    from .runner import versions as run_versions

    out = run_versions()
    for name in ("optuna", "SALib"):
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out
