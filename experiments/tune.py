"""``eastindia tune FILE``: search rules values that bring one number of the game to a target.

An experiment file with a ``[tune]`` section::

    [tune]
    objective = "win_spread"   # or "crash_rate", "win_rate" (with strategy = "..."), "mean_end_round", or one of
                               # the equilibrium objectives below (with a [metagame] section)
    target = 0.0               # the value to reach (|value - target| is minimised), or "min" / "max"
    trials = 40                # trials in all (a finished study given more and --resume continues)
    batch = 4                  # trials asked at once and played in parallel (results never depend on --jobs)
    startup = 10               # the first trials are drawn at random, then TPE models the results
    default_first = true       # trial 0 plays the rules' own values (when they lie in the ranges)
    seed = 1                   # the sampler's seed (default: the experiment's)
    confirm_games = 8000       # the confirmation's games per arm (default 4 x games; 0: none)
    confirm_seed = 2           # its dice (default: the experiment's seed + 1: games the trials never saw)

    [tune.params]
    "capital.linear_rate" = { low = 0.0, high = 0.5 }
    "capital.budget_per_player" = { low = 4, high = 9, int = true }
    "capital.formula" = { choices = ["inverse_share", "linear"] }

A key ``"<strategy>:<param>"`` (``"bid_low:max_bid" = { low = 0, high = 6 }``) searches a parameter of a strategy at
the table, within its ``Param`` bounds: each trial plays the table with that strategy made with the trial's values
(labelled ``bid_low(max_bid=3)`` in the frames, its wins counted as the table's ``bid_low``), so ``objective =
"win_rate"`` with ``strategy = "bid_low"`` and ``target = "max"`` is bid_low's best response to the rest of the table;
``best.toml`` then holds the tuned table (``strategies = ["bid_low:max_bid=3", ...]``) for ``eastindia run``.

A key may be conditional: ``when = { "capital.formula" = "linear" }`` (a value or a list of values per named key)
searches it only in the trials where the condition holds; the trials are built define-by-run (``suggest``), so in
the others the key is never asked of Optuna, keeps the rules' own value and is absent from the trial (null in
``trials.parquet``, left out of ``best.toml`` and of the identity that finds repeated trials). The sampler is
grouped (``group=True``) so that the multivariate TPE models the keys that occur together.

Optuna's TPE sampler proposes the trials; each trial is one arm of ``games`` games played by the runner on the same
games and dice as every other trial (common random numbers), so two trials differ by their rules only. Trials are
asked in fixed batches of ``batch``: batch b is planned from the trials of the batches before it only, by a sampler
seeded with (seed, b), in a throwaway in-memory copy of the study (the constant liar spreads a batch's trials
apart); its trials are played as the arms of one run folder (``trials/batch-BBBB-nK``) and told to the study in
trial order. The plan of a batch depends on the trials before it, never on the number of jobs or on whether the
study was interrupted, so the same file and seed give the same trials and results, and ``--resume`` continues the
same study: the trials already told stay, an interrupted batch resumes from its finished shards.

**Equilibrium objectives** judge the game experienced players converge on instead of one fixed table: each trial
plays a metagame (``eastindia metagame``) of the file's strategies under the trial's rules, as the file's
``[metagame]`` section sets it (``compositions``, ``starts``, ``bootstrap``, ...; its folder is the batch's folder,
the trials its rules arms), on the same games and dice for every trial. ``equilibrium`` picks the distribution over
strategies the objective reads: ``"nash"`` (the default: the stable equilibria's mixes weighted by their basins;
with ``"one_deviant"``, its only choice, the pure tables no lone deviant beats, the stable ones if any, weighted
equally) or ``"alpharank"`` (each strategy's α-Rank mass; ``compositions = "all"`` only). At the selection intensity
where its masses stop moving α-Rank puts nearly all its mass on one strategy unless the strategies beat each other in
a cycle, so its entropy is about 0 wherever the best responses settle (masses below ``ENTROPY_FLOOR`` count as 0, so
that rounding noise picks no best trial).

- ``equilibrium_entropy``: the entropy of that distribution over the K strategies divided by log K (1: every strategy
  equally viable, 0: one strategy only) -- Pendurkar et al.'s meta-balancing objective (AAMAS 2023); ``target =
  "max"``.
- ``equilibrium_crash_rate``, ``equilibrium_end_round``: the crash rate and mean end round of the game that
  distribution plays (``"nash"``: of each equilibrium, weighted; ``"alpharank"``: of each strategy's pure table,
  weighted by its mass), with the equally weighted bounds of their 95 % intervals.

Only rules keys are searched with them (a strategy parameter changes the strategy set the metagame judges). The
confirmation plays the default rules and the best trial's as two rules arms of one metagame on fresh dice (the same
games at every table of both) and gives each arm's objective and their difference a 95 % interval by a paired
bootstrap over those games (``equilibrium_intervals``: ``CONFIRM_RESAMPLES`` resamples; each draws G of the G game
indices with replacement, the same ones at every table of both arms, recomputes the payoff tables and from them the
distribution and the objective: α-Rank's masses afresh; with ``"one_deviant"`` which pure tables no lone deviant
beats afresh; with every composition each equilibrium of the point estimate re-found near itself as
``metagame.bootstrap`` does, its basin held; then the crash rate and end round of the resampled games).

The study lives in ``RUN_DIR/study.db`` (SQLite; ``optuna.load_study(study_name="tune", storage="sqlite:///...")``
opens it); every trial carries its batch, its slot in the batch, its value with the 95 % interval and its games as
user attributes. At the end the folder gets ``trials.parquet``, ``best.toml``, the confirmation run
(``confirm/``: the default rules and the best trial's at ``confirm_games`` on fresh dice, paired) and the report.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import polars as pl

import strategies as registry
from sim.rules import RulesError, load_toml
from sim.rules.schema import shown

from . import calibration, metagame, runner, search, tomlw
from . import runfolder as rf
from .runner import Interrupted, RunError
from .search import Param
from .spec import MAX_GAMES, MAX_SEED, Experiment, ExperimentError

SECTION = "tune"
KEYS: dict[str, Any] = {
    "objective": str,
    "strategy": str,
    "target": (float, int, str),
    "trials": int,
    "batch": int,
    "startup": int,
    "seed": int,
    "confirm_games": int,
    "confirm_seed": int,
    "default_first": bool,
    "equilibrium": str,
}
EQUILIBRIUM_OBJECTIVES = ("equilibrium_entropy", "equilibrium_crash_rate", "equilibrium_end_round")
WEIGHTINGS = ("alpharank", "nash")
ENTROPY_FLOOR = 1e-9  # a strategy's share below this is rounding, not a viable strategy
CONFIRM_RESAMPLES = 200  # resamples of the games for an equilibrium objective's confirmation intervals
CONFIRM_SPAWN = 0xC0F1  # their stream: (the [metagame] seed, CONFIRM_SPAWN)
DEFAULTS = {"objective": "win_spread", "trials": 40, "batch": 4, "startup": 10, "default_first": True}
MAX_TRIALS = 100_000
STUDY = "study.db"
STUDY_NAME = "tune"
TRIALS = "trials.parquet"
BEST = "best.toml"
CONFIRM = "confirm"
BATCHES = "trials"


class TuneProgress(Protocol):
    """What a tune reports: the runner's games (per batch), and each trial told."""

    def batch(self, index: int, trials: list[int], games: int) -> None: ...

    def start(self, done: dict[int, int]) -> None: ...

    def advance(self, arm: int, games: int) -> None: ...

    def told(self, told: int, total: int, best: str) -> None: ...

    def confirming(self, games: int) -> None: ...


# ------------------------------------------------------------------------------------------------------ spec
@dataclass(frozen=True)
class TuneSpec:
    exp: Experiment
    objective: str
    strategy: str | None
    target: float | str  # a number, or "min" / "max"
    trials: int
    batch: int
    startup: int
    seed: int
    confirm_games: int
    confirm_seed: int
    params: tuple[Param, ...]
    default_first: bool = True
    metagame: Any = None  # the [metagame] section's MetagameSpec, for an equilibrium objective
    equilibrium: str = ""  # "alpharank" or "nash", for an equilibrium objective

    @property
    def name(self) -> str:
        return self.exp.name

    def default_values(self) -> dict[str, Any] | None:
        """The searched keys' values in the experiment's rules, when every one lies in its search space (the first
        trial plays them with ``default_first``: the best is then never worse than the rules on the tuning games)."""
        rules = search.base_rules(self.exp)
        if rules is None:
            return None
        values: dict[str, Any] = {}
        for p in search.suggest_order(self.params):
            if not p.active(values):  # a conditional key whose condition the rules' values do not meet: absent
                continue
            if search.is_strategy_key(p.key):
                target, name = search.strategy_target(p.key, self.exp.arms[0].specs)
                value = search.strategy_value(target, name)
            else:
                value = search._lookup(rules.raw, p.key)
            dist = p.distribution()
            try:
                if not dist._contains(dist.to_internal_repr(value)):
                    return None
            except (ValueError, TypeError):
                return None
            values[p.key] = value
        return values

    def split(self, values: dict[str, Any]) -> tuple[dict[str, Any], list[Any] | None]:
        """A trial's values as the rules overrides and the table that plays them: the experiment's strategies with
        the searched strategy parameters set (None: no strategy parameter is searched, the table is the
        experiment's)."""
        rules = {k: v for k, v in values.items() if not search.is_strategy_key(k)}
        tuned: dict[str, dict[str, Any]] = {}
        for key, value in values.items():
            if search.is_strategy_key(key):
                target, name = search.strategy_target(key, self.exp.arms[0].specs)
                tuned.setdefault(target.label, {})[name] = value
        if not tuned:
            return rules, None
        arm = self.exp.arms[0]
        table = [
            {"name": s.name, **dict(s.params), **tuned[label]} if label in tuned else s.resolved()
            for label, s in ((label, arm.spec(label)) for label in arm.strategies)
        ]
        return rules, table

    def experiment(self, name: str, arms: list[tuple[str, dict[str, Any]]], **kw: Any) -> Experiment:
        """The runner's experiment of these trials (arm name, the trial's values), on the experiment's games."""
        played, tables = [], {}
        for arm, values in arms:
            rules, table = self.split(values)
            played.append((arm, rules))
            if table is not None:
                tables[arm] = table
        return search.study_experiment(self.exp, name, played, strategies=tables, **kw)

    def stats(self, exp: Experiment, folder: Path, keep_games: bool = False) -> dict[int, search.ArmStats]:
        """Each arm's numbers, a tuned strategy's win counted under its label at the experiment's table."""
        stats = search.arm_stats(folder, keep_games)
        base = self.exp.arms[0].strategies
        return {a.index: search.relabel(stats[a.index], dict(zip(a.strategies, base, strict=True))) for a in exp.arms}

    @property
    def games(self) -> int:
        return self.exp.games

    @property
    def what(self) -> str:
        """``win_spread``, ``win_rate of bid_low``."""
        return self.objective + (f" of {self.strategy}" if self.strategy else "")

    def distance(self, value: float) -> float:
        """What the study minimises: |value - target|, or the value (``min``) or its negative (``max``)."""
        if self.target == "min":
            return value
        if self.target == "max":
            return -value
        return abs(value - float(self.target))

    def section(self) -> dict[str, Any]:
        """The resolved ``[tune]`` table (every default spelled out)."""
        return {
            "objective": self.objective,
            **({"strategy": self.strategy} if self.strategy else {}),
            "target": self.target,
            "trials": self.trials,
            "batch": self.batch,
            "startup": self.startup,
            "seed": self.seed,
            "confirm_games": self.confirm_games,
            "confirm_seed": self.confirm_seed,
            "default_first": self.default_first,
            "params": {p.key: p.resolved() for p in self.params},
        }

    def resolved_toml(self) -> str:
        return tomlw.dumps({**self.exp.data, SECTION: self.section()})

    def study_digest(self) -> str:
        """What determines every trial's params and value: the experiment and the search (not ``trials``: more
        trials extend the same study; not the confirmation's settings)."""
        section = {k: v for k, v in self.section().items() if k not in ("trials", "confirm_games", "confirm_seed")}
        return search.digest({"experiment": self.exp.digest(), "tune": section})

    def distributions(self, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Each searched key's distribution (``params``: only the keys a trial holds, its active ones)."""
        return {p.key: p.distribution() for p in self.params if params is None or p.key in params}

    def batch_size(self, b: int, trials: int | None = None) -> int:
        trials = self.trials if trials is None else trials
        return max(0, min(self.batch, trials - b * self.batch))


def startup_warning(ts: TuneSpec) -> str | None:
    """What a user should know before a study whose every trial is drawn at random: with ``trials <= startup`` the
    TPE sampler never models the results (None otherwise)."""
    if ts.trials > ts.startup:
        return None
    return (
        f"{ts.exp.source}: trials = {ts.trials} is not more than tune.startup = {ts.startup}: every trial is drawn at "
        "random (a random search, no TPE model); give more --trials or a smaller startup"
    )


def load(path: str | Path, **changes: Any) -> TuneSpec | Counts:
    """Read a tune file (``changes``: ``trials`` and the experiment's top-level keys from the command line); every
    problem is reported at once (``ExperimentError``). ``players = [4, 5]`` gives one study per count (``Counts``)."""
    path = Path(path)
    try:
        raw = load_toml(path)
    except RulesError as err:
        raise ExperimentError([str(err)]) from None
    given = changes.get("players")
    counts, problems = search.player_counts(given if given is not None else raw.get("players", 5), path)
    if problems:
        raise ExperimentError(problems)
    if len(counts) == 1 and not isinstance(raw.get("players"), list):
        return _load(path, **changes)
    specs, problems = [], []
    for n in counts:
        try:
            specs.append(_load(path, **{**changes, "players": n}))
        except ExperimentError as err:
            problems += [p for p in err.problems if p not in problems]
    if problems:
        raise ExperimentError(problems)
    return Counts(tuple(specs))


@dataclass(frozen=True)
class Counts:
    """One tune per player count of a file's ``players = [...]``: each in ``RUN_DIR/players-N`` (a tune folder of
    its own, the same trials planned for each), their trials side by side in ``RUN_DIR/trials.parquet`` (with
    ``players``)."""

    specs: tuple[TuneSpec, ...]

    @property
    def exp(self) -> Experiment:
        return self.specs[0].exp

    @property
    def name(self) -> str:
        return self.exp.name

    @property
    def players(self) -> list[int]:
        return [ts.exp.players for ts in self.specs]


def _load(path: str | Path, **changes: Any) -> TuneSpec:
    """One player count's study (``load``)."""
    trials_option = changes.pop("trials", None)
    others: dict[str, Any] = {metagame.SECTION: None}
    exp, table, path, problems = search.load_study_file(path, SECTION, changes, others=others)
    where = f"{path}: {SECTION}"
    search.check_keys(table, KEYS, where, problems)
    data = {**DEFAULTS, **{k: v for k, v in table.items() if k in KEYS}}
    if trials_option is not None:
        data["trials"] = trials_option

    def bad(key: str, msg: str) -> None:
        problems.append(
            f"--trials: {msg}" if key == "trials" and trials_option is not None else f"{where}.{key}: {msg}"
        )

    objective = data["objective"]
    known = (*search.OBJECTIVES, *EQUILIBRIUM_OBJECTIVES)
    if objective not in known:
        bad("objective", f"unknown objective {shown(objective)} (known: {', '.join(known)})")
    ms, weighting = _equilibrium_section(objective, exp, data, others[metagame.SECTION], path, problems)
    labels = list(dict.fromkeys(exp.arms[0].strategies)) if exp is not None else []
    strategy = data.get("strategy")
    if objective == "win_rate" and exp is not None:
        if strategy is None:
            bad("strategy", f'objective win_rate needs strategy = "..." (one of {", ".join(labels)})')
        elif strategy not in labels:
            bad("strategy", f"{shown(strategy)} does not play in this experiment (strategies: {', '.join(labels)})")
    elif strategy is not None and objective in search.OBJECTIVES:
        bad("strategy", f"only objective win_rate takes a strategy, not {objective}")
    if objective in ("win_spread", "win_rate") and exp is not None and len(labels) < 2:
        bad("objective", f"{objective} needs two strategies or more (the experiment plays {', '.join(labels)})")
    target = data.get("target", 0.0 if objective == "win_spread" else None)
    if target is None:
        if objective in search.OBJECTIVES:
            bad("target", f'objective {objective} needs a target: the value to reach, or "min" / "max"')
        target = 0.0
    elif isinstance(target, str):
        if target not in ("min", "max"):
            bad("target", f'expected a number, "min" or "max", got {shown(target)}')
    elif isinstance(target, bool) or not math.isfinite(target):
        bad("target", f"expected a finite number, got {shown(target)}")
    elif (objective in search.PROPORTION_METRICS or objective == "equilibrium_entropy") and not 0 <= target <= 1:
        bad("target", f"{objective} is a share of games: the target must be between 0 and 1, got {shown(target)}")
    else:
        target = float(target)
    limits = {"trials": (1, MAX_TRIALS), "batch": (1, 1000), "startup": (0, MAX_TRIALS), "seed": (0, MAX_SEED)}
    limits.update({"confirm_games": (0, MAX_GAMES), "confirm_seed": (0, MAX_SEED)})
    seed = data.get("seed", exp.seed if exp is not None else 0)
    games = exp.games if exp is not None else 1
    confirm_games = data.get("confirm_games", min(4 * games, MAX_GAMES))
    confirm_seed = data.get("confirm_seed", (exp.seed + 1) % (MAX_SEED + 1) if exp is not None else 1)
    values = {"trials": data["trials"], "batch": data["batch"], "startup": data["startup"], "seed": seed}
    values.update({"confirm_games": confirm_games, "confirm_seed": confirm_seed})
    for key, (low, high) in limits.items():
        v = values[key]
        if isinstance(v, int) and not isinstance(v, bool) and not low <= v <= high:
            bad(key, f"must be between {low} and {high:,}, got {shown(v)}")
    rules = search.base_rules(exp)
    params: list[Param] = []
    if "params" not in table:
        problems.append(
            f"{where}.params: missing: [tune.params] lists the rules keys (or strategy parameters) to search"
        )
    else:
        specs = exp.arms[0].specs if exp is not None else None
        params, trouble = search.parse_params(table["params"], f"{where}.params", rules, conditional=True, specs=specs)
        problems += trouble
        if ms is not None and any(search.is_strategy_key(p.key) for p in params):
            bad("params", f"{objective} searches rules keys only (a strategy parameter changes the strategies judged)")
    if problems:
        raise ExperimentError(problems)
    assert exp is not None
    return TuneSpec(
        exp,
        objective,
        strategy,
        target,
        values["trials"],
        values["batch"],
        values["startup"],
        seed,
        confirm_games,
        confirm_seed,
        tuple(params),
        data["default_first"],
        ms,
        weighting,
    )


def _equilibrium_section(
    objective: str, exp: Experiment | None, data: dict[str, Any], section: Any, path: Path, problems: list[str]
) -> tuple[Any, str]:
    """The metagame an equilibrium objective plays each trial as (its [metagame] section), and the weighting."""
    where = f"{path}: {SECTION}"
    if objective not in EQUILIBRIUM_OBJECTIVES:
        if section is not None:
            problems.append(f"{path}: {metagame.SECTION}: only an equilibrium objective plays a metagame per trial")
        if "equilibrium" in data:
            problems.append(f"{where}.equilibrium: only an equilibrium objective reads it, not {objective}")
        return None, ""
    if section is None:
        problems.append(f"{path}: {metagame.SECTION}: missing: objective {objective} plays a [metagame] per trial")
        return None, ""
    if not isinstance(section, dict):
        problems.append(f"{path}: {metagame.SECTION}: expected a table, got {shown(section)}")
        return None, ""
    ms = metagame.section_spec(exp, section, path, problems)
    mode = section.get("compositions", "all")
    weighting = data.get("equilibrium", "nash")
    if weighting not in WEIGHTINGS:
        problems.append(f'{where}.equilibrium: expected "alpharank" or "nash", got {shown(weighting)}')
    elif weighting == "alpharank" and mode != "all":
        problems.append(f'{where}.equilibrium: "alpharank" needs compositions = "all" in [metagame]')
    return ms, weighting


# ----------------------------------------------------------------------------------------------------- Optuna
def _quiet_optuna() -> Any:
    import optuna

    optuna.logging.set_verbosity(logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    return optuna


def batch_seed(seed: int, b: int) -> int:
    """The sampler's seed for batch ``b`` (a 32-bit number, as numpy's RandomState takes)."""
    return int(np.random.SeedSequence([seed, b]).generate_state(1)[0])


def sampler(ts: TuneSpec, b: int) -> Any:
    """TPE, multivariate with the constant liar, and ``group``: the search space decomposed into the groups of keys
    that occur together, so that with conditional keys the multivariate TPE models each group on the trials that
    hold it instead of falling back to independent sampling for a key some trials lack. Without conditional keys
    every trial holds every key, there is one group, and the trials are those of ``group=False``."""
    optuna = _quiet_optuna()
    return optuna.samplers.TPESampler(
        seed=batch_seed(ts.seed, b), n_startup_trials=ts.startup, multivariate=True, constant_liar=True, group=True
    )


def suggest(ts: TuneSpec, trial: Any) -> dict[str, Any]:
    """A trial's values, define-by-run: each key in suggestion order, a conditional one only when its condition
    holds for the values suggested before it (an inactive key is never asked for and is absent)."""
    values: dict[str, Any] = {}
    for p in search.suggest_order(ts.params):
        if p.active(values):
            values[p.key] = p.suggest(trial)
    return values


def plan_batch(ts: TuneSpec, history: list[Any], b: int, n: int) -> list[dict[str, Any]]:
    """The params of batch ``b``'s ``n`` trials, from the finished trials of the batches before it only: asked in a
    throwaway in-memory copy of the study by a sampler seeded with (seed, b)."""
    optuna = _quiet_optuna()
    study = optuna.create_study(storage=optuna.storages.InMemoryStorage(), sampler=sampler(ts, b), direction="minimize")
    study.add_trials(history)
    if b == 0 and ts.default_first and n > 0:
        defaults = ts.default_values()
        if defaults is not None:
            study.enqueue_trial(defaults)
    return [suggest(ts, study.ask()) for _ in range(n)]


def open_study(run_dir: Path) -> Any:
    optuna = _quiet_optuna()
    storage = optuna.storages.RDBStorage(f"sqlite:///{(run_dir / STUDY).resolve()}")
    return optuna.create_study(study_name=STUDY_NAME, storage=storage, direction="minimize", load_if_exists=True)


def close_study(study: Any) -> None:
    engine = getattr(study._storage, "engine", None)
    if engine is not None:
        engine.dispose()


def finished(study: Any) -> list[Any]:
    """The study's trials in trial order."""
    return sorted(study.get_trials(deepcopy=False), key=lambda t: t.number)


# ------------------------------------------------------------------------------------------------------- run
def run(
    ts: TuneSpec | Counts,
    run_dir: str | Path,
    jobs: int | None = None,
    resume: bool = False,
    fresh: bool = False,
    shard_size: int | None = None,
    command: str = "",
    progress: TuneProgress | None = None,
    notify: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Play the study into ``run_dir`` (see the module docstring) and return its metadata (``study.json``); the
    command line writes its report (``reports.tune``). ``Counts``: each count's study in its own folder, then their
    trials side by side."""
    run_dir = Path(run_dir)
    notify = notify or runner._stderr
    runner.check_options(jobs, shard_size, "loky", None, resume, fresh)
    if isinstance(ts, Counts):
        play = {"jobs": jobs, "resume": resume, "fresh": fresh, "shard_size": shard_size, "command": command}
        top = {"kind": SECTION, "name": ts.name, "command": command}
        return search.run_counts(run, ts.specs, run_dir, TRIALS, top, progress=progress, notify=notify, **play)[1]
    with search.Folder(run_dir, "tune", command, notify) as folder:
        old = folder.open(ts.study_digest(), resume, fresh)
        meta = _meta(ts, command, old)
        if old is not None and old.get("status") == "complete":
            told = int(old.get("trials_told") or 0)
            if told > ts.trials:
                raise RunError(
                    f"{run_dir}: holds a finished tune of {told} trials, more than trials = {ts.trials}; choose "
                    f"another --out or start afresh with: {runner._commands(command)[1]}"
                )
            if told == ts.trials and _confirm_settled(old, ts):
                return old
            if told < ts.trials and not resume:
                raise RunError(
                    f"{run_dir}: holds a finished tune of {told} trials; pass --resume to continue it to "
                    f"{ts.trials}: {runner._commands(command)[0]}"
                )

        def work() -> None:
            _play(ts, run_dir, meta, jobs, shard_size, command, progress, notify)
            _finish(ts, run_dir, meta, jobs, shard_size, command, progress, notify)

        def stopped() -> Exception:
            return Interrupted(
                f"interrupted: {meta.get('trials_told', 0)} of {ts.trials} trials are told and kept in "
                f"{run_dir / STUDY}; run again with --resume to continue: {runner._commands(command)[0]}",
                meta.get("trials_told", 0),
                ts.trials,
            )

        search.play_study(folder, meta, ts.resolved_toml(), work, stopped, meta.get("wall_time_s", 0.0))
        return meta


def _confirm_settled(meta: dict[str, Any], ts: TuneSpec) -> bool:
    confirm = meta.get("confirm") or {}
    return confirm.get("games") == ts.confirm_games and confirm.get("seed") == ts.confirm_seed


def _meta(ts: TuneSpec, command: str, old: dict[str, Any] | None) -> dict[str, Any]:
    meta = {
        "kind": "tune",
        "name": ts.name,
        "command": command or (old or {}).get("command", ""),
        "study_digest": ts.study_digest(),
        "experiment_digest": ts.exp.digest(),
        "objective": ts.objective,
        "strategy": ts.strategy,
        "target": ts.target,
        "trials": ts.trials,
        "batch": ts.batch,
        "startup": ts.startup,
        "default_first": ts.default_first and ts.default_values() is not None,
        "sampler_seed": ts.seed,
        "seed": ts.exp.seed,
        "players": ts.exp.players,
        "games_per_trial": ts.games,
        "strategies": list(dict.fromkeys(ts.exp.arms[0].strategies)),
        "params": [{"key": p.key, "kind": p.kind, "range": p.describe(), **p.resolved()} for p in ts.params],
        "confirm_games": ts.confirm_games,
        "confirm_seed": ts.confirm_seed,
        "started": (old or {}).get("started") or search.now(),
        "status": "running",
        "started_work": bool((old or {}).get("started_work")),
        "trials_told": int((old or {}).get("trials_told") or 0),
    }
    for key in ("wall_time_s", "best", "confirm"):
        if old and key in old:
            meta[key] = old[key]
    return meta


def _play(
    ts: TuneSpec,
    run_dir: Path,
    meta: dict[str, Any],
    jobs: int | None,
    shard_size: int | None,
    command: str,
    progress: TuneProgress | None,
    notify: Callable[[str], None],
) -> None:
    """Plan, play and tell batches until ``ts.trials`` trials are told."""
    optuna = _quiet_optuna()
    study = open_study(run_dir)
    try:
        meta["started_work"] = True
        search.write_meta(run_dir, meta)
        told = finished(study)
        if progress:
            progress.told(len(told), ts.trials, best_text(ts, told))
        while len(told) < ts.trials:
            b, k = divmod(len(told), ts.batch)
            n = ts.batch_size(b)
            history = [t for t in told if t.user_attrs.get("batch", -1) < b]
            plan = plan_batch(ts, history, b, n)
            done_here = [t for t in told if t.user_attrs.get("batch") == b]
            for t, params in zip(done_here, plan, strict=False):
                if t.params != params:
                    raise RunError(
                        f"{run_dir}: trial {t.number} of the study is not the one its plan gives (another Optuna "
                        f"version?); start afresh with: {runner._commands(command)[1]}"
                    )
            numbers = [b * ts.batch + j for j in range(n)]
            failures = {
                j: why for j, p in enumerate(plan) if (why := search.arm_problem(ts.exp, ts.split(p)[0])) is not None
            }
            # the same values as an earlier trial: the same rules on the same games give the same results, so they
            # are not played again (``same_as`` names the trial played)
            earlier = {}
            for t in history:
                if t.value is not None:
                    earlier.setdefault(_params_key(t.params), t)
            first_slot: dict[str, int] = {}
            source: dict[int, int] = {}  # slot -> the slot of this batch whose arm it reads
            for j, params in enumerate(plan):
                key = _params_key(params)
                if j in failures or key in earlier:
                    continue
                source[j] = first_slot.setdefault(key, j)
            arms = sorted(set(source.values()))
            results: dict[int, Any] = {}
            if any(j >= k for j in source) and ts.metagame is not None:
                exp = ts.experiment(f"{ts.name} trials {b}", [(f"trial {numbers[j]}", plan[j]) for j in arms])
                folder = run_dir / BATCHES / f"batch-{b:04d}-n{n}"
                ms = play_metagame(ts, exp, folder, jobs, shard_size, command, progress, notify)
                for arm, j in zip(exp.arms, arms, strict=True):
                    results[j] = equilibrium_value(ts, ms, folder, arm.name)
            elif any(j >= k for j in source):
                exp = ts.experiment(f"{ts.name} trials {b}", [(f"trial {numbers[j]}", plan[j]) for j in arms])
                folder = run_dir / BATCHES / f"batch-{b:04d}-n{n}"
                if progress:
                    progress.batch(b, [numbers[j] for j in arms], ts.games * len(arms))
                if folder.exists() and (folder / rf.META).exists() and search.sub_run(folder, exp):
                    search.move_run_aside(folder)
                runner.run(
                    exp,
                    folder,
                    jobs=jobs,
                    resume=True,
                    shard_size=shard_size,
                    command=command,
                    progress=progress,
                    notify=notify,
                    calibration_dir=run_dir / calibration.DIR,  # trials of the same rules share their fit
                )
                stats = ts.stats(exp, folder)
                for arm, j in zip(exp.arms, arms, strict=True):
                    results[j] = stats[arm.index]
            for j in range(k, n):  # told in trial order
                attrs: dict[str, Any] = {"batch": b, "slot": j}
                if j in failures:
                    trial = optuna.trial.create_trial(
                        state=optuna.trial.TrialState.FAIL,
                        params=plan[j],
                        distributions=ts.distributions(plan[j]),
                        user_attrs={**attrs, "error": failures[j]},
                    )
                    notify(f"trial {numbers[j]}: the rules refuse these values ({failures[j]}); it counts as failed")
                else:
                    key = _params_key(plan[j])
                    if key in earlier:
                        same = earlier[key]
                        attrs.update({k2: v for k2, v in same.user_attrs.items() if k2 not in ("batch", "slot")})
                        attrs["same_as"] = same.user_attrs.get("same_as", same.number)
                        distance = same.value
                    else:
                        s = results[source[j]]
                        if isinstance(s, dict):  # an equilibrium objective's metagame
                            value = s["value"]
                            attrs.update(s)
                        else:
                            value, lo, hi = search.measure(s, ts.objective, ts.strategy)
                            attrs.update({"value": value, "lo": lo, "hi": hi, "games": s.games})
                            attrs.update(_headline(s))
                        if source[j] != j:
                            attrs["same_as"] = numbers[source[j]]
                        distance = ts.distance(value)
                    trial = optuna.trial.create_trial(
                        value=distance, params=plan[j], distributions=ts.distributions(plan[j]), user_attrs=attrs
                    )
                study.add_trial(trial)
            told = finished(study)
            meta["trials_told"] = len(told)
            meta["best"] = best_record(ts, told)
            search.write_meta(run_dir, meta)
            if progress:
                progress.told(len(told), ts.trials, best_text(ts, told))
    finally:
        close_study(study)


def play_metagame(
    ts: TuneSpec,
    exp: Experiment,
    folder: Path,
    jobs: int | None,
    shard_size: int | None,
    command: str,
    progress: Any,
    notify: Callable[[str], None],
) -> Any:
    """Play the metagame of the file's strategies whose rules arms are the arms of ``exp`` into ``folder`` (resumed
    when it is there); returns its MetagameSpec."""
    ms = dataclasses.replace(ts.metagame, exp=exp)
    metagame.run(ms, folder, jobs=jobs, resume=True, shard_size=shard_size, command=command, progress=progress,
                 notify=notify)  # fmt: skip
    return ms


def normalised_entropy(dist: np.ndarray) -> float:
    """The entropy of a distribution over K strategies divided by log K: 1 when all are equally likely, 0 for one
    (shares below ``ENTROPY_FLOOR`` count as 0)."""
    dist = np.asarray(dist, dtype=float)
    present = dist[dist >= ENTROPY_FLOOR]
    return float(-(present * np.log(present)).sum() / np.log(len(dist))) + 0.0  # + 0.0: never -0.0


def equilibrium_value(ts: TuneSpec, ms: Any, folder: Path, arm: str) -> dict[str, Any]:
    """An equilibrium objective's value for the rules arm ``arm`` of a played metagame (module docstring):
    ``value``, ``lo``, ``hi`` (None for the entropy), ``games`` and the distribution over strategies
    (``distribution``) with the crash rate and end round it plays."""
    labels = ms.labels
    eq = pl.read_parquet(folder / metagame.EQUILIBRIA).filter(pl.col("arm") == arm)
    keys = ("crash_rate", "crash_lo", "crash_hi", "mean_end_round", "end_round_lo", "end_round_hi")
    if ts.equilibrium == "alpharank":
        alpha = pl.read_parquet(folder / metagame.ALPHARANK).filter(pl.col("arm") == arm)
        mass = dict(zip(alpha["strategy"], alpha["mass"], strict=True))
        weights = np.array([mass[s] for s in labels])
        outcomes = metagame.table_outcomes(ms, folder / metagame.TABLES)[arm]
        counts = np.array(ms.tables())
        parts = [
            metagame.equilibrium_health(counts, outcomes, np.eye(len(labels))[i], ms.bootstrap, (ms.seed, i))
            for i in range(len(labels))
        ]
        dist = weights
    else:
        mixes = [part for _, part in eq.group_by("equilibrium", maintain_order=True)]
        chosen = [m for m in mixes if m["stable"][0]] or mixes
        weights = np.array([1.0 if m["basin"][0] is None else m["basin"][0] for m in chosen])
        weights = weights if weights.sum() > 0 else np.ones(len(chosen))
        parts = [m.row(0, named=True) for m in chosen]
        dist = sum(w * m["share"].to_numpy() for w, m in zip(weights, chosen, strict=True))
    weights = weights / weights.sum()
    dist = np.asarray(dist, dtype=float) / np.sum(dist)

    def weighted(key: str) -> float | None:
        values = [part.get(key) for part in parts]
        return None if any(v is None for v in values) else float(np.dot(weights, values))

    health = {key: weighted(key) for key in keys}
    entropy = normalised_entropy(dist)
    value = {
        "equilibrium_entropy": (entropy, None, None),
        "equilibrium_crash_rate": (health["crash_rate"], health["crash_lo"], health["crash_hi"]),
        "equilibrium_end_round": (health["mean_end_round"], health["end_round_lo"], health["end_round_hi"]),
    }[ts.objective]
    return {
        "value": value[0],
        "lo": value[1],
        "hi": value[2],
        "games": ms.exp.games * len(ms.tables()),
        "distribution": {s: float(v) for s, v in zip(labels, dist, strict=True)},
        "entropy": entropy,
        **health,
    }


def equilibrium_intervals(
    ts: TuneSpec, ms: Any, folder: Path, rng: np.random.Generator, reps: int = CONFIRM_RESAMPLES
) -> dict[str, Any]:
    """95 % intervals of an equilibrium objective in the confirmation's metagame (``folder``, rules arms ``default``
    and ``best``): ``paired_intervals`` of its tables' games."""
    tables = folder / metagame.TABLES
    winners = metagame.winner_matrix(ms, tables)
    outcomes = metagame.table_outcomes(ms, tables)
    eq = pl.read_parquet(folder / metagame.EQUILIBRIA)
    arms = {}
    for arm in ("default", "best"):
        found = [
            {"shares": part["share"].to_numpy(), "stable": bool(part["stable"][0]), "basin": part["basin"][0]}
            for _, part in eq.filter(pl.col("arm") == arm).group_by("equilibrium", maintain_order=True)
        ]
        arms[arm] = (winners[arm], outcomes[arm], found)
    return paired_intervals(
        ts.objective, ts.equilibrium, np.array(ms.tables()), ms.exp.players, arms, ts.distance, rng, reps,
        pure_only=ms.compositions != "all",
    )  # fmt: skip


def paired_intervals(
    objective: str,
    weighting: str,
    counts: np.ndarray,
    players: int,
    arms: dict[str, tuple[np.ndarray, metagame.Outcomes, list[dict[str, Any]]]],
    distance: Callable[[float], float],
    rng: np.random.Generator,
    reps: int = CONFIRM_RESAMPLES,
    pure_only: bool = False,
) -> dict[str, Any]:
    """The objective of the rules arms ``default`` and ``best`` (each: winners, outcomes and found equilibria, as
    ``objective_resamples`` takes them) in ``reps`` resamples of the games, each the same game indices at every table
    of both arms (paired: they play the same dice). Returns ``bounds`` (the 2.5 and 97.5 % points: ``default_lo`` /
    ``_hi``, ``best_lo`` / ``_hi``, ``change_lo`` / ``_hi`` of best - default, ``distance_change_lo`` / ``_hi``),
    ``resamples`` (those where both arms have a value) and the resampled ``values``."""
    g = arms["default"][0].shape[1]
    weights = rng.multinomial(g, np.full(g, 1.0 / g), size=reps).astype(float)  # [B, G]: one draw for both arms
    values = {
        arm: objective_resamples(objective, weighting, counts, players, *arms[arm], weights, pure_only=pure_only)
        for arm in ("default", "best")
    }
    d, b = values["default"], values["best"]
    ok = np.isfinite(d) & np.isfinite(b)
    far = np.vectorize(distance, otypes=[float])
    bounds: dict[str, Any] = {}
    for name, x in (("default", d), ("best", b), ("change", b - d), ("distance_change", far(b) - far(d))):
        lo, hi = np.percentile(x[ok], [2.5, 97.5]) if ok.any() else (None, None)
        bounds[f"{name}_lo"], bounds[f"{name}_hi"] = (None if v is None else float(v) for v in (lo, hi))
    return {"bounds": bounds, "resamples": int(ok.sum()), "values": values}


def objective_resamples(
    objective: str,
    weighting: str,
    counts: np.ndarray,
    players: int,
    winners: np.ndarray,
    outcomes: metagame.Outcomes,
    found: list[dict[str, Any]],
    weights: np.ndarray,
    pure_only: bool = False,
) -> np.ndarray:
    """An equilibrium objective in each resample of the games ([B]; NaN where no equilibrium is left): ``weights``
    ([B, G]) says how often each game is drawn at every table (``winners``, ``outcomes``: [C, G] per composition
    ``counts``). The distribution over strategies is recomputed from the resampled payoffs as ``equilibrium_value``
    reads it: ``"alpharank"``: the α-Rank masses; ``"nash"`` with ``pure_only`` (one_deviant): the pure tables no
    lone deviant beats (the stable ones if any), equally weighted; ``"nash"`` with every composition: each
    equilibrium of ``found`` (``shares``, ``stable``, ``basin``: the point estimate's) re-found near itself
    (``metagame.bootstrap``: a stable one by the replicator dynamics, an unstable one by Newton's method on its
    support; absent where that fails), weighted by its basin (the stable ones if any). The crash rate and end
    round are those of the resampled games, each table weighted by P(c | mix)."""
    b, k = len(weights), counts.shape[1]
    payoff = metagame.seat_payoffs(counts, winners, weights)  # [B, C, K]
    if weighting == "alpharank" or pure_only:
        mixes = np.broadcast_to(np.eye(k), (b, k, k))  # [B, E, K]: each strategy's pure table
        if weighting == "alpharank":
            share = np.array([metagame.alpharank(counts, p, players)[0] for p in payoff])
        else:
            gains = np.stack(
                [metagame._deviant_gains(counts, payoff, players, i).max(axis=-1) for i in range(k)], axis=1
            )  # [B, K]: what the best lone deviant gains at each pure table
            chosen = np.where((gains < -metagame.TOL).any(axis=1, keepdims=True), gains < -metagame.TOL,
                              gains < metagame.TOL)  # fmt: skip
            share = chosen.astype(float)
    else:
        chosen = [e for e in found if e["stable"]] or found
        game = metagame.Game(counts, payoff, players)
        refound = []
        for e in chosen:
            x = np.tile(e["shares"], (b, 1))
            refound.append(metagame._snap(game.replicate(0.99 * x + 0.01 / k)) if e["stable"]
                           else metagame._support_solve(game, x))  # fmt: skip
        mixes = np.stack(refound, axis=1) if refound else np.full((b, 0, k), np.nan)
        basin = np.array([1.0 if e["basin"] is None else e["basin"] for e in chosen])
        basin = basin if basin.sum() > 0 else np.ones(len(chosen))
        share = np.where(np.isfinite(mixes).all(axis=2), basin, 0.0)
    total = share.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = share / total[:, None]
    crashed, end_round = np.nan_to_num(outcomes.crashed), np.nan_to_num(outcomes.end_round)
    g = weights.sum(axis=1)
    out = np.full(b, np.nan)
    for r in range(b):
        if not total[r] > 0:
            continue
        used = [e for e in range(mixes.shape[1]) if share[r, e] > 0]
        if objective == "equilibrium_entropy":
            dist = sum(share[r, e] * mixes[r, e] for e in used)
            out[r] = normalised_entropy(dist / dist.sum())
            continue
        values = crashed if objective == "equilibrium_crash_rate" else end_round
        per_game = sum(share[r, e] * (metagame.table_weights(counts, mixes[r, e]) @ values) for e in used)
        out[r] = float(weights[r] @ per_game / g[r])
    return out


def _params_key(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True)


def _headline(s: search.ArmStats) -> dict[str, Any]:
    """The trial's other numbers: crash rate, mean end round and each strategy's win rate."""
    out = {"crash_rate": s.crashes / s.games, "mean_end_round": s.end_sum / s.games}
    for label in s.strategies:
        out[f"win_rate::{label}"] = s.wins.get(label, 0) / s.games
    return out


def best_trial(told: list[Any]) -> Any | None:
    """The complete trial nearest the target; ties go to the earliest."""
    complete = [t for t in told if t.value is not None]
    return min(complete, key=lambda t: (t.value, t.number)) if complete else None


def best_record(ts: TuneSpec, told: list[Any]) -> dict[str, Any] | None:
    best = best_trial(told)
    if best is None:
        return None
    a = best.user_attrs
    return {"trial": best.number, "params": dict(best.params), "value": a["value"], "lo": a["lo"], "hi": a["hi"]}


def best_text(ts: TuneSpec, told: list[Any]) -> str:
    """``best: trial 7, win_spread 3.1 % (1.9–4.6)``."""
    best = best_trial(told)
    if best is None:
        return "best: —"
    a = best.user_attrs
    return f"best: trial {best.number}, {ts.what} {format_value(ts.objective, a['value'], a['lo'], a['hi'])}"


def format_value(objective: str, value: float, lo: float | None = None, hi: float | None = None) -> str:
    if value is None or value != value:
        return "—"
    if objective in search.PROPORTION_METRICS:
        text = f"{100 * value:.1f} %"
        return text + (f" ({100 * lo:.1f}–{100 * hi:.1f})" if lo is not None else "")
    return f"{value:.3f}" + (f" ({lo:.3f}–{hi:.3f})" if lo is not None else "")


def format_change(objective: str, est: float, lo: float | None, hi: float | None) -> str:
    """A change with its interval: percentage points for shares of games, plain numbers for means."""
    if est is None or est != est:
        return "—"
    if lo is None or hi is None:
        return f"{100 * est:+.1f} pp" if objective in search.PROPORTION_METRICS else f"{est:+.3f}".replace("-", "−")
    if objective in search.PROPORTION_METRICS:
        from .stats import change

        return change(est, lo, hi)
    return f"{est:+.3f} ({lo:+.3f} to {hi:+.3f})".replace("-", "−")


# ------------------------------------------------------------------------------------------- the finished study
def trials_frame(ts: TuneSpec, told: list[Any]) -> pl.DataFrame:
    """``trials.parquet``: ``trial``, one column per parameter, ``objective``, ``value``, ``lo``, ``hi``, ``games``,
    then ``target``, ``distance`` (what the study minimised), ``state``, ``batch``, ``error`` and the trial's crash
    rate, mean end round and ``win_rate::S`` per strategy."""
    labels = list(dict.fromkeys(ts.exp.arms[0].strategies))
    rows = []
    for t in told:
        a = t.user_attrs
        row: dict[str, Any] = {"trial": t.number}
        for p in ts.params:
            row[p.key] = t.params.get(p.key)
        row.update(
            {
                "objective": ts.what,
                "value": a.get("value"),
                "lo": a.get("lo"),
                "hi": a.get("hi"),
                "games": a.get("games", 0),
                "target": str(ts.target) if isinstance(ts.target, str) else ts.target,
                "distance": t.value,
                "state": t.state.name.lower(),
                "batch": a.get("batch"),
                "error": a.get("error"),
                "crash_rate": a.get("crash_rate"),
                "mean_end_round": a.get("mean_end_round"),
            }
        )
        for label in labels:
            row[f"win_rate::{label}"] = a.get(f"win_rate::{label}")
        rows.append(row)
    schema: dict[str, Any] = {"trial": pl.Int64}
    for p in ts.params:
        kinds = {type(c) for c in p.choices} if p.kind == "choice" else {int if p.kind == "int" else float}
        schema[p.key] = (
            pl.Boolean
            if kinds == {bool}
            else pl.Int64
            if kinds == {int}
            else pl.Float64
            if kinds <= {int, float}
            else pl.String
        )
    schema.update(
        {
            "objective": pl.String,
            "value": pl.Float64,
            "lo": pl.Float64,
            "hi": pl.Float64,
            "games": pl.Int64,
            "target": pl.String if isinstance(ts.target, str) else pl.Float64,
            "distance": pl.Float64,
            "state": pl.String,
            "batch": pl.Int64,
            "error": pl.String,
            "crash_rate": pl.Float64,
            "mean_end_round": pl.Float64,
            **{f"win_rate::{label}": pl.Float64 for label in labels},
        }
    )
    if any(schema[p.key] == pl.String for p in ts.params):
        for row in rows:
            for p in ts.params:
                if schema[p.key] == pl.String and row[p.key] is not None:
                    row[p.key] = str(row[p.key])
    return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)


def best_toml(ts: TuneSpec, best: Any, confirm: dict[str, Any] | None) -> str:
    """``best.toml``: the best trial's values as an ``[overrides]`` table, ready to paste into an experiment."""
    a = best.user_attrs
    lines = [
        f"# {ts.name}: the best of {ts.trials} trials (trial {best.number}) at {a['games']:,} games per trial",
        f"# {ts.what} = {format_value(ts.objective, a['value'], a['lo'], a['hi'])}, target {ts.target}",
    ]
    if confirm and confirm.get("objective"):
        c = confirm["objective"]
        lines.append(
            f"# confirmation at {confirm['games']:,} games on fresh dice (seed {confirm['seed']}): "
            f"{format_value(ts.objective, c['best'], c['best_lo'], c['best_hi'])} with these values, "
            f"{format_value(ts.objective, c['default'], c['default_lo'], c['default_hi'])} with the default rules"
        )
    others = {k: v for k, v in ts.exp.data["overrides"].items() if k not in best.params}
    if others:
        lines.append(
            "# the trials also played the experiment's [overrides]: "
            + ", ".join(f"{k} = {v!r}" for k, v in others.items())
        )
    inactive = [p for p in ts.params if p.key not in best.params]
    if inactive:
        lines.append(
            "# not searched in this trial (its condition is false), so the rules' own value: "
            + "; ".join(f"{p.key} (when {p.condition_text()})" for p in inactive)
        )
    lines.append(tomlw.dumps(best_settings(ts, dict(best.params))).strip())
    return "\n".join(lines) + "\n"


def best_settings(ts: TuneSpec, values: dict[str, Any]) -> dict[str, Any]:
    """``best.toml``'s settings: the tuned rules keys as ``[overrides]``; with strategy parameters also the tuned
    table (``players``, ``strategies`` and what loads them), so that ``eastindia run best.toml`` plays it."""
    rules, table = ts.split(values)
    if table is None:
        return {"overrides": rules}
    out: dict[str, Any] = {"players": ts.exp.players}
    if ts.exp.data.get("rotate", True) is not True:
        out["rotate"] = ts.exp.data["rotate"]
    if ts.exp.data.get("plugins"):
        out["plugins"] = list(ts.exp.data["plugins"])
    out["strategies"] = [strategy_text(entry) for entry in table]
    if rules:
        out["overrides"] = rules
    return out


def strategy_text(entry: str | dict[str, Any]) -> str | dict[str, Any]:
    """``"bid_low:max_bid=1,bid_lots=3"``: a strategy with the parameters that differ from its defaults, as
    ``--strategy`` writes it (a table when a text value holds a comma or an equals sign)."""
    if isinstance(entry, str):
        return entry
    name = entry["name"]
    defaults = registry.get(name).PARAMS
    changed = {k: v for k, v in entry.items() if k != "name" and v != defaults[k].default}
    if any(isinstance(v, str) and ("," in v or "=" in v) for v in changed.values()):
        return {"name": name, **changed}
    return name + (":" + ",".join(f"{k}={tomlw._value(v)}" for k, v in changed.items()) if changed else "")


def _finish(
    ts: TuneSpec,
    run_dir: Path,
    meta: dict[str, Any],
    jobs: int | None,
    shard_size: int | None,
    command: str,
    progress: TuneProgress | None,
    notify: Callable[[str], None],
) -> None:
    """trials.parquet, best.toml and the confirmation run."""
    study = open_study(run_dir)
    try:
        told = finished(study)[: ts.trials]
    finally:
        close_study(study)
    frame = trials_frame(ts, told)
    search.write_parquet(run_dir / TRIALS, frame)
    best = best_trial(told)
    if best is None:
        raise RunError(f"{run_dir}: every trial failed (the rules refuse their values); see {TRIALS}")
    meta["best"] = best_record(ts, told)
    confirm = None
    if ts.confirm_games > 0:
        confirm = confirmation(ts, run_dir, dict(best.params), jobs, shard_size, command, progress, notify)
    meta["confirm"] = confirm or {"games": 0, "seed": ts.confirm_seed}
    try:
        rf.write_atomic(run_dir / BEST, best_toml(ts, best, confirm).encode())
    except OSError as exc:
        raise RunError(f"{run_dir}: cannot write {BEST}: {exc.strerror or exc}; {search.AGAIN}") from None
    search.write_meta(run_dir, meta)


def confirmation(
    ts: TuneSpec,
    run_dir: Path,
    best: dict[str, Any],
    jobs: int | None,
    shard_size: int | None,
    command: str,
    progress: TuneProgress | None,
    notify: Callable[[str], None],
) -> dict[str, Any]:
    """Play the default rules and the best trial's at ``confirm_games`` games on the confirmation's dice (paired:
    the same games in both arms) and compare them: the objective (and its distance to the target) with a paired
    bootstrap interval, every headline metric with ``stats.comparisons`` (paired Newcombe / paired t)."""
    from .stats import comparisons

    exp = ts.experiment(
        f"{ts.name} confirmation", [("default", {}), ("best", best)], games=ts.confirm_games, seed=ts.confirm_seed
    )
    folder = run_dir / CONFIRM
    if ts.metagame is not None:
        if progress:
            progress.confirming(ts.confirm_games * 2 * len(ts.metagame.tables()))
        ms = play_metagame(ts, exp, folder, jobs, shard_size, command, progress, notify)
        default, chosen = (equilibrium_value(ts, ms, folder, arm) for arm in ("default", "best"))
        boot = equilibrium_intervals(ts, ms, folder, np.random.default_rng([ms.seed, CONFIRM_SPAWN]))
        return {
            "games": ts.confirm_games,
            "seed": ts.confirm_seed,
            "params": best,
            "objective": {
                "what": ts.what,
                "default": default["value"],
                "best": chosen["value"],
                "change": chosen["value"] - default["value"],
                "distance_default": ts.distance(default["value"]),
                "distance_best": ts.distance(chosen["value"]),
                "distance_change": ts.distance(chosen["value"]) - ts.distance(default["value"]),
                **boot["bounds"],
                "resamples": boot["resamples"],
                "method": f"paired bootstrap over the games, the equilibria recomputed ({boot['resamples']} resamples)",
                "distribution_default": default["distribution"],
                "distribution_best": chosen["distribution"],
            },
            "comparisons": [],
        }
    if folder.exists() and (folder / rf.META).exists() and search.sub_run(folder, exp):
        search.move_run_aside(folder)
    if progress:
        progress.confirming(ts.confirm_games * 2)
    runner.run(
        exp,
        folder,
        jobs=jobs,
        resume=True,
        shard_size=shard_size,
        command=command,
        progress=progress,
        notify=notify,
        calibration_dir=run_dir / calibration.DIR,
    )
    stats = ts.stats(exp, folder, keep_games=True)
    default, chosen = stats[0], stats[1]
    dv, dlo, dhi = search.measure(default, ts.objective, ts.strategy)
    bv, blo, bhi = search.measure(chosen, ts.objective, ts.strategy)
    fx = search.per_game_metric(chosen.per_game, ts.objective, ts.strategy, chosen.fair)
    fy = search.per_game_metric(default.per_game, ts.objective, ts.strategy, default.fair)
    est, lo, hi = search.paired_bootstrap(chosen.per_game, default.per_game, fx, fy, lambda v: v)
    d_est, d_lo, d_hi = search.paired_bootstrap(
        chosen.per_game, default.per_game, fx, fy, lambda v: np.vectorize(ts.distance)(v)
    )
    comp = comparisons(folder, reference="default")
    return {
        "games": ts.confirm_games,
        "seed": ts.confirm_seed,
        "params": best,
        "objective": {
            "what": ts.what,
            "default": dv,
            "default_lo": dlo,
            "default_hi": dhi,
            "best": bv,
            "best_lo": blo,
            "best_hi": bhi,
            "change": est,
            "change_lo": lo,
            "change_hi": hi,
            "distance_default": ts.distance(dv),
            "distance_best": ts.distance(bv),
            "distance_change": d_est,
            "distance_change_lo": d_lo,
            "distance_change_hi": d_hi,
            "method": "paired bootstrap over the games (percentile, 4,000 resamples)",
        },
        "comparisons": comp.to_dicts(),
    }
