"""``eastindia respond FILE``: the strategies' parameters iterated to mutual best responses, per rules arm and
player count.

An experiment file (its ``strategies``, each once, rules, ``[overrides]`` and ``[sweep]`` / ``[[arms]]`` read as for
``eastindia metagame``) with a ``[respond]`` section::

    players = [4, 5]           # a list: every count is iterated on its own (one count: players = 5)

    [respond]
    mode = "fictitious"        # or "equilibrium" (see below)
    rounds = 6                 # the round cap
    trials = 16                # trials per response (Optuna TPE, as `eastindia tune`)
    batch = 4                  # trials asked at once
    startup = 6                # random trials first
    seed = 1                   # the samplers' seed (default: the experiment's)
    confirm_games = 4000       # each response's confirmation games (default 4 x games)
    confirm_seed = 2           # the first round's confirmation dice (round r: confirm_seed + r - 1)

    [respond.params]           # strategy parameters only, as [tune.params]
    "bid_low:max_bid" = { low = 0, high = 6 }
    "run_firm:firm_bid" = { low = 0.0, high = 3.0 }

Every strategy with searched parameters *responds*; the others keep their values. Version 0 of each strategy is
the file's. In round t every responder's parameters are searched for its win rate per seat against a *field*, as a
tune of ``"<strategy>:<param>"`` keys does (``tune.plan_batch``: TPE batches seeded by (seed, batch); trial 0 plays
the responder's current version; every trial on the same games and dice, common random numbers):

- ``fictitious`` (fictitious play): the field is the average of the tables of every earlier round, the others at
  their versions 0 .. t-1 (the same table twice counts twice). The objective is the mean over those tables of the
  responder's win rate per seat, ``games`` split evenly over the distinct tables, game g of each on the same dice.
- ``equilibrium``: the field is the metagame's equilibrium of the current versions (``eastindia metagame`` of the
  tables of every composition, its most attracting equilibrium): the responder sits at one seat, the other seats
  drawn from the mixture, i.e. one table per composition of the other seats weighted by its probability (those of
  at least 1 % kept, the weights renormalised).

The best trial is then confirmed on fresh dice: the field played with the responder's current version and with the
best trial's values (``confirm_games`` split over the tables, the same games in both: paired); the gain is the mean
per-game difference of its win rate per seat, with its Student-t 95 % interval. A response whose interval lies
above 0 becomes the responder's next version; the others keep theirs. The iteration stops when no responder's gain
lies above its interval (``converged``) or after ``rounds`` rounds (``round cap``), and says which.

The folder (``--out``): ``rounds.parquet`` (per rules arm, players, round and responder: the values it searched,
the best trial's objective, the gain with its interval, whether it was adopted, and the version it plays after the
round), ``converged/<arm>-<N>p.toml`` (the last versions as an experiment ``eastindia run`` plays; its
``strategies`` list is what ``[metagame]`` and ``[tune]`` files take), ``study.json`` and per arm, count, round and
responder the tune study (``study.db``), its batches and the confirmation (``arms/.../round-RR/<strategy>/``), all
kept: ``--resume`` continues from them.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from sim.rules import RulesError, load_toml
from sim.rules.schema import shown

from . import calibration, metagame, runner, search, spec, tomlw, tune
from . import runfolder as rf
from .runner import Interrupted, RunError
from .search import Param
from .spec import MAX_GAMES, MAX_SEED, Experiment, ExperimentError

SECTION = "respond"
KEYS: dict[str, Any] = {
    "mode": str,
    "rounds": int,
    "trials": int,
    "batch": int,
    "startup": int,
    "seed": int,
    "confirm_games": int,
    "confirm_seed": int,
}
DEFAULTS = {"mode": "fictitious", "rounds": 6, "trials": 16, "batch": 4, "startup": 6}
MODES = ("fictitious", "equilibrium")
MAX_ROUNDS = 1000
MIN_WEIGHT = 0.01  # an equilibrium field's compositions of the other seats kept when at least this likely
ROUNDS = "rounds.parquet"
CONVERGED = "converged"
ARMS = "arms"
NOT_HERE = {
    "target_ci": "every table of a response plays all its games",
    "reference": "a respond study compares each response with its previous version",
}


# ------------------------------------------------------------------------------------------------------ spec
@dataclass(frozen=True)
class RespondSpec:
    exps: tuple[Experiment, ...]  # one per player count, as written (its rules arms, the starting versions)
    mode: str
    rounds: int
    trials: int
    batch: int
    startup: int
    seed: int
    confirm_games: int
    confirm_seed: int
    params: tuple[Param, ...]

    @property
    def exp(self) -> Experiment:
        return self.exps[0]

    @property
    def name(self) -> str:
        return self.exp.name

    @property
    def players(self) -> list[int]:
        return [e.players for e in self.exps]

    def responders(self) -> list[str]:
        """The labels of the strategies with searched parameters, in the table's order."""
        named = {p.key.partition(":")[0] for p in self.params}
        return [s.label for s in self.exp.arms[0].specs if s.label in named or s.name in named]

    def params_of(self, label: str) -> tuple[Param, ...]:
        s = self.exp.arms[0].spec(label)
        return tuple(p for p in self.params if p.key.partition(":")[0] in (s.label, s.name))

    def section(self) -> dict[str, Any]:
        keys = ("mode", "rounds", "trials", "batch", "startup", "seed", "confirm_games", "confirm_seed")
        return {**{k: getattr(self, k) for k in keys}, "params": {p.key: p.resolved() for p in self.params}}

    def resolved_toml(self) -> str:
        players = self.players
        return tomlw.dumps(
            {**self.exp.data, "players": players if len(players) > 1 else players[0], SECTION: self.section()}
        )

    def study_digest(self) -> str:
        """What determines every round (not ``rounds``: a higher cap continues the same iteration)."""
        section = {k: v for k, v in self.section().items() if k != "rounds"}
        return search.digest({"experiments": [e.digest() for e in self.exps], SECTION: section})


def _check_table(raw: dict[str, Any], path: Path, problems: list[str]) -> None:
    """The rules arms play the file's strategies (the responses are theirs)."""
    for i, arm in enumerate(raw.get("arms") or []):
        if isinstance(arm, dict) and "strategies" in arm:
            problems.append(f"{path}: arms[{i}].strategies: every rules arm plays the file's strategies")
            arm.pop("strategies")


def load(path: str | Path, **changes: Any) -> RespondSpec:
    """Read a respond file (``changes``: ``rounds``, ``trials`` and the experiment's top-level keys from the command
    line); every problem is reported at once (``ExperimentError``)."""
    options = {k: changes.pop(k, None) for k in ("rounds", "trials")}
    path = Path(path)
    try:
        raw = load_toml(path)
    except RulesError as err:
        raise ExperimentError([str(err)]) from None
    counts, problems = search.player_counts(raw.get("players", spec.DEFAULTS["players"]), path)
    exps, table = [], {}
    for n in counts:
        exp, table, path, trouble = search.load_study_file(
            path, SECTION, {**changes, "players": n}, NOT_HERE, _check_table
        )
        problems += [p for p in trouble if p not in problems]
        if exp is not None:
            exps.append(exp)
    where = search.section_where(str(path), SECTION)
    search.check_keys(table, KEYS, where, problems)
    data = {**DEFAULTS, **{k: v for k, v in table.items() if k in KEYS}}
    data.update({k: v for k, v in options.items() if v is not None})

    def bad(key: str, msg: str) -> None:
        problems.append(f"--{key}: {msg}" if options.get(key) is not None else f"{where}.{key}: {msg}")

    if data["mode"] not in MODES and isinstance(data["mode"], str):
        bad("mode", f'expected "fictitious" or "equilibrium", got {shown(data["mode"])}')
    exp = exps[0] if exps else None
    games = exp.games if exp is not None else 1
    values = {
        "rounds": data["rounds"],
        "trials": data["trials"],
        "batch": data["batch"],
        "startup": data["startup"],
        "seed": data.get("seed", exp.seed if exp is not None else 0),
        "confirm_games": data.get("confirm_games", min(4 * games, MAX_GAMES)),
        "confirm_seed": data.get("confirm_seed", (exp.seed + 1) % (MAX_SEED + 1) if exp is not None else 1),
    }
    limits = {"rounds": (1, MAX_ROUNDS), "trials": (1, tune.MAX_TRIALS), "batch": (1, 1000)}
    limits |= {"startup": (0, tune.MAX_TRIALS), "seed": (0, MAX_SEED), "confirm_games": (1, MAX_GAMES)}
    limits |= {"confirm_seed": (0, MAX_SEED)}
    for key, (low, high) in limits.items():
        v = values[key]
        if isinstance(v, int) and not isinstance(v, bool) and not low <= v <= high:
            bad(key, f"must be between {low} and {high:,}, got {shown(v)}")
    params: list[Param] = []
    if "params" not in table:
        problems.append(f"{where}.params: missing: [respond.params] lists the strategy parameters to search")
    elif exp is not None:
        params, trouble = search.parse_params(
            table["params"], f"{where}.params", search.base_rules(exp), conditional=True, specs=exp.arms[0].specs
        )
        problems += trouble
        for p in params:
            if not search.is_strategy_key(p.key):
                problems.append(f'{where}.params.{p.key}: respond searches strategy parameters ("<strategy>:<param>")')
    if exp is not None:
        labels = list(exp.arms[0].strategies)
        if len(labels) < 2:
            problems.append(
                f"{path}: strategies: a respond study needs two strategies or more, got {', '.join(labels)}"
            )
        elif len(set(labels)) < len(labels) or len({s.name for s in exp.arms[0].specs}) < len(labels):
            problems.append(f"{path}: strategies: each strategy once (its versions are the study's)")
    if problems:
        raise ExperimentError(list(dict.fromkeys(problems)))
    return RespondSpec(tuple(exps), data["mode"], params=tuple(params), **values)


# ------------------------------------------------------------------------------------------------ the tables
Entry = dict[str, Any]  # a strategy as a table entry: {"name": ..., every parameter}


@dataclass(frozen=True)
class Field:
    """What a responder plays against: tables (the other seats' entries, the responder's seats marked None) and
    their weights (adding up to 1)."""

    tables: tuple[tuple[Entry | None, ...], ...]
    weights: tuple[float, ...]


def entry(s: spec.StrategySpec, values: dict[str, Any] | None = None) -> Entry:
    """A version of a strategy: its spec's parameters with ``values`` (``{"<strategy>:<param>": value}``) set."""
    own = {k.partition(":")[2]: v for k, v in (values or {}).items()}
    return {"name": s.name, **dict(s.params), **own}


def label_of(e: Entry) -> str:
    return spec.strategy_spec(e, None)[0].label


def merged(tables: list[tuple[Entry | None, ...]], weights: list[float]) -> Field:
    """Equal tables as one, their weights added (in the order first seen)."""
    out: dict[str, list[Any]] = {}
    for t, w in zip(tables, weights, strict=True):
        key = json.dumps(t, sort_keys=True, default=str)
        out.setdefault(key, [t, 0.0])[1] += w
    total = sum(w for _, w in out.values())
    return Field(tuple(t for t, _ in out.values()), tuple(w / total for _, w in out.values()))


def seat_payoff(stats: search.ArmStats, label: str, players: int) -> np.ndarray:
    """Per game (by game number): 1 / (the label's seats per game) when a seat playing ``label`` won, else 0 (its
    mean is the label's win rate per seat)."""
    per = stats.per_game.sort("game")
    seats = stats.fair.get(label, 0.0) * players
    won = (per["winner_strategy"] == label).cast(pl.Float64).to_numpy()
    return won / seats if seats else won


class Iteration:
    """One rules arm and player count: its rounds of responses (see the module docstring)."""

    def __init__(self, rs: RespondSpec, exp: Experiment, arm: spec.Arm, index: int, folder: Path, play: dict[str, Any]):
        self.rs, self.arm, self.index, self.folder, self.play = rs, arm, index, folder, play
        data = copy.deepcopy(exp.data)
        data.update({"sweep": {}, "arms": [], "reference": "", "overrides": dict(arm.overrides)})
        data["name"] = f"{exp.name} {arm.name}"
        if arm.rules_file:
            data["rules"] = arm.rules_file
        self.base = spec.resolve(data, exp.source, None)  # this arm's rules, the file's strategies
        self.players = exp.players
        self.specs = list(self.base.arms[0].specs)
        self.labels = [s.label for s in self.specs]

    def table(self, versions: dict[str, dict[str, Any]]) -> list[Entry]:
        return [entry(s, versions[s.label]) for s in self.specs]

    def current(self, versions: dict[str, dict[str, Any]]) -> Experiment:
        """The arm's experiment with every strategy at its current version."""
        data = copy.deepcopy(self.base.data)
        data["strategies"] = self.table(versions)
        return spec.resolve(data, self.base.source, None)

    def field(self, label: str, history: list[dict[str, dict[str, Any]]], mix: dict[str, float] | None) -> Field:
        """The field of ``label`` in the next round: the tables of every earlier round (fictitious play) or the
        compositions of the other seats drawn from the equilibrium ``mix`` of the current versions."""
        if mix is None:
            tables = [tuple(None if s.label == label else entry(s, v[s.label]) for s in self.specs) for v in history]
            return merged(tables, [1.0] * len(tables))
        now = self.table(history[-1])
        counts = np.array(metagame.compositions(len(now), self.players - 1))
        weights = metagame.table_weights(counts, np.array([mix[s] for s in self.labels]))
        keep = [c for c, w in zip(counts, weights, strict=True) if w >= MIN_WEIGHT]
        kept = [float(w) for w in weights if w >= MIN_WEIGHT]
        tables = [(None, *(e for e, n in zip(now, c, strict=True) for _ in range(int(n)))) for c in keep]
        return merged(tables, kept)

    def mixture(self, versions: dict[str, dict[str, Any]], where: Path) -> dict[str, float]:
        """The most attracting equilibrium of the metagame of the current versions (``eastindia metagame``)."""
        exp = self.current(versions)
        ms = metagame.MetagameSpec(exp, "all", 200, self.rs.seed, 0)
        metagame.run(ms, where, resume=True, command=self.play["command"], notify=self.play["notify"],
                     jobs=self.play["jobs"], shard_size=self.play["shard_size"])  # fmt: skip
        eq = pl.read_parquet(where / metagame.EQUILIBRIA).filter(pl.col("equilibrium") == 0)
        shares = dict(zip(eq["strategy"], eq["share"], strict=True))
        return {label: float(shares.get(s.label, 0.0)) for label, s in zip(self.labels, exp.arms[0].specs, strict=True)}

    def played(self, name: str, arms: list[tuple[str, list[Entry]]], games: int, seed: int, folder: Path,
               progress: Any) -> dict[str, search.ArmStats]:  # fmt: skip
        """Play tables (arm name, entries) on the same games and dice; each arm's numbers with its games."""
        exp = search.study_experiment(
            self.base, name, [(a, {}) for a, _ in arms], games=games, seed=seed, strategies=dict(arms)
        )
        if folder.exists() and (folder / rf.META).exists() and search.sub_run(folder, exp):
            search.move_run_aside(folder)
        runner.run(
            exp,
            folder,
            resume=True,
            progress=progress,
            calibration_dir=self.folder / calibration.DIR,
            command=self.play["command"],
            notify=self.play["notify"],
            jobs=self.play["jobs"],
            shard_size=self.play["shard_size"],
        )
        stats = search.arm_stats(folder, keep_games=True)
        return {a.name: stats[a.index] for a in exp.arms}

    def payoffs(self, field: Field, responder: Entry, games: int, seed: int, folder: Path, name: str,
                progress: Any) -> np.ndarray:  # fmt: skip
        """Per game, the responder's win rate per seat averaged over the field's tables ([G])."""
        return self.many(field, [responder], games, seed, folder, name, progress)[0]

    def many(self, field: Field, responders: list[Entry], games: int, seed: int, folder: Path, name: str,
             progress: Any) -> list[np.ndarray]:  # fmt: skip
        per_table = max(1, math.ceil(games / len(field.tables)))
        arms = []
        for i, e in enumerate(responders):
            for f, t in enumerate(field.tables):
                arms.append((f"{i} | table {f}", [e if x is None else x for x in t]))
        stats = self.played(name, arms, per_table, seed, folder, progress)
        out = []
        for i, e in enumerate(responders):
            label = label_of(e)
            out.append(sum(w * seat_payoff(stats[f"{i} | table {f}"], label, self.players)
                           for f, w in enumerate(field.weights)))  # fmt: skip
        return out


# ---------------------------------------------------------------------------------------------- a response
def respond_once(
    it: Iteration, label: str, versions: dict[str, dict[str, Any]], field: Field, rnd: int, where: Path,
    progress: Any,
) -> dict[str, Any]:  # fmt: skip
    """The responder's best response to the field (a tune study in ``where``), confirmed against its current
    version on fresh dice. Returns the row of ``rounds.parquet`` (without the version after the round)."""
    from .stats import mean_ci, paired_mean_ci

    rs = it.rs
    me = it.specs[it.labels.index(label)]
    params = rs.params_of(label)
    sampler_seed = int(np.random.SeedSequence([rs.seed, it.index, it.players, rnd, it.labels.index(label)])
                       .generate_state(1)[0])  # fmt: skip
    ts = tune.TuneSpec(it.current(versions), "win_rate", label, "max", rs.trials, rs.batch, rs.startup,
                       sampler_seed, rs.confirm_games, rs.confirm_seed, params, True)  # fmt: skip
    current = ts.default_values()  # the searched values of its current version (None: one lies out of its range)
    rf.make_dir(it.folder, where.relative_to(it.folder))  # no link followed below the respond folder
    optuna = tune._quiet_optuna()
    study = tune.open_study(where)
    try:
        told = tune.finished(study)
        while len(told) < rs.trials:
            b = len(told) // rs.batch
            n, skip = ts.batch_size(b), len(told) - b * rs.batch  # skip: told before an interruption
            history = [t for t in told if t.user_attrs.get("batch", -1) < b]
            plan = tune.plan_batch(ts, history, b, n)
            known = {_key(t.params): t for t in told}
            fresh = list(dict.fromkeys(k for k in map(_key, plan[skip:]) if k not in known))
            if progress:
                progress.told(len(told), rs.trials, f"{it.arm.name}, {it.players} players, round {rnd}: {label}")
                progress.batch(b, [b * rs.batch, b * rs.batch + n - 1], it.base.games * len(fresh))
            values = {}
            if fresh:
                entries = [entry(me, {**versions[label], **json.loads(k)}) for k in fresh]
                folder = where / f"batch-{b:04d}"
                got = it.many(field, entries, it.base.games, it.base.seed, folder, f"{label} trials {b}", progress)
                values = dict(zip(fresh, got, strict=True))
            for j in range(skip, n):
                key = _key(plan[j])
                if key in known:  # the same values: the same games give the same numbers
                    attrs = {k: v for k, v in known[key].user_attrs.items() if k not in ("batch", "slot")}
                else:
                    y = values[key]
                    lo, hi = mean_ci(len(y), float(y.mean()), float(y.std(ddof=1)) if len(y) > 1 else 0.0)
                    attrs = {"value": float(y.mean()), "lo": float(lo), "hi": float(hi), "games": len(y)}
                trial = optuna.trial.create_trial(
                    value=-attrs["value"],
                    params=plan[j],
                    distributions=ts.distributions(plan[j]),
                    user_attrs={**attrs, "batch": b, "slot": j},
                )
                study.add_trial(trial)
                known[key] = tune.finished(study)[-1]
            told = tune.finished(study)
    finally:
        tune.close_study(study)
    told = told[: rs.trials]
    best = tune.best_trial(told)
    before = next((t for t in told if current is not None and t.params == current), None)
    response = {**versions[label], **best.params}
    row: dict[str, Any] = {
        "arm": it.arm.name,
        "players": it.players,
        "round": rnd,
        "strategy": me.name,
        "tables": len(field.tables),
        "best_trial": best.number,
        "value": best.user_attrs["value"],
        "lo": best.user_attrs["lo"],
        "hi": best.user_attrs["hi"],
        "before": before.user_attrs["value"] if before is not None else None,
        "response": _key(best.params),
    }
    if best.params == current:  # its current version is its best: nothing to confirm
        row.update({"gain": 0.0, "gain_lo": 0.0, "gain_hi": 0.0, "confirm_games": 0})
        return row
    old, new = entry(me, versions[label]), entry(me, response)
    seed = (rs.confirm_seed + rnd - 1) % (MAX_SEED + 1)
    if progress:
        progress.confirming(2 * rs.confirm_games)
    y_old, y_new = it.many(
        field, [old, new], rs.confirm_games, seed, where / "confirm", f"{label} confirmation", progress
    )
    d = y_new - y_old
    est, lo, hi = paired_mean_ci(len(d), float(d.sum()), float((d * d).sum()))
    row.update({"gain": float(est), "gain_lo": float(lo), "gain_hi": float(hi), "confirm_games": len(d)})
    return row


# ------------------------------------------------------------------------------------------------------- run
def run(
    rs: RespondSpec,
    run_dir: str | Path,
    jobs: int | None = None,
    resume: bool = False,
    fresh: bool = False,
    shard_size: int | None = None,
    command: str = "",
    progress: Any = None,
    notify: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Iterate every rules arm and player count into ``run_dir`` and return the study's metadata."""
    run_dir = Path(run_dir)
    notify = notify or runner._stderr
    runner.check_options(jobs, shard_size, "loky", None, resume, fresh)
    with search.Folder(run_dir, SECTION, command, notify) as folder:
        old = folder.open(rs.study_digest(), resume, fresh)
        if old is not None and old.get("status") == "complete" and old.get("rounds") == rs.rounds:
            return old
        meta = {
            "kind": SECTION,
            "name": rs.name,
            "command": command or (old or {}).get("command", ""),
            "study_digest": rs.study_digest(),
            "mode": rs.mode,
            "rounds": rs.rounds,
            "trials": rs.trials,
            "batch": rs.batch,
            "startup": rs.startup,
            "sampler_seed": rs.seed,
            "seed": rs.exp.seed,
            "games_per_trial": rs.exp.games,
            "confirm_games": rs.confirm_games,
            "confirm_seed": rs.confirm_seed,
            "players": rs.players,
            "arms": [a.name for a in rs.exp.arms],
            "strategies": list(rs.exp.arms[0].strategies),
            "responders": rs.responders(),
            "params": [{"key": p.key, "range": p.describe()} for p in rs.params],
            "started": (old or {}).get("started") or search.now(),
            "status": "running",
            "started_work": True,
        }
        play = {"jobs": jobs, "shard_size": shard_size, "command": command, "notify": notify}

        def work() -> None:
            rows, results = [], []
            for exp in rs.exps:
                for index, arm in enumerate(exp.arms):
                    it = Iteration(rs, exp, arm, index, run_dir, play)
                    out, result = iterate(it, run_dir / ARMS / _slug(arm.name, exp.players), progress, notify)
                    rows += out
                    results.append(result)
                    search.write_parquet(run_dir / ROUNDS, rounds_frame(rs, rows))
                    meta["results"] = results
                    search.write_meta(run_dir, meta)

        def stopped() -> Exception:
            return Interrupted(
                f"interrupted: the finished responses are kept in {run_dir / ARMS}; run again with --resume to "
                f"continue: {runner._commands(command)[0]}",
                0,
                rs.rounds,
            )

        return search.play_study(
            folder, meta, rs.resolved_toml(), work, stopped, float((old or {}).get("wall_time_s") or 0)
        )


def iterate(it: Iteration, where: Path, progress: Any, notify: Callable[[str], None]) -> tuple[list, dict]:
    """The rounds of one rules arm and player count; the rows of ``rounds.parquet`` and the result."""
    rs = it.rs
    versions = {s.label: {} for s in it.specs}  # the searched values of each strategy's current version
    history = [copy.deepcopy(versions)]
    rows = []
    stop = "round cap"
    for rnd in range(1, rs.rounds + 1):
        mix = it.mixture(versions, where / f"round-{rnd:02d}" / "metagame") if rs.mode == "equilibrium" else None
        done = []
        for label in rs.responders():
            field = it.field(label, history, mix)
            row = respond_once(it, label, versions, field, rnd, where / f"round-{rnd:02d}" / _slug(label), progress)
            row["adopted"] = adopted(row)
            row["mode"] = rs.mode
            done.append(row)
            notify(
                f"{it.arm.name}, {it.players} players, round {rnd}, {row['strategy']}: gain "
                f"{tune.format_change('win_rate', row['gain'], row['gain_lo'], row['gain_hi'])} per seat"
                + (": adopted" if row["adopted"] else ": within its interval")
            )
        for row, label in zip(done, rs.responders(), strict=True):
            if row["adopted"]:
                versions[label] = {**versions[label], **json.loads(row["response"])}
            played = entry(it.specs[it.labels.index(label)], versions[label])
            row["version"] = _key({p.key: played[p.key.partition(":")[2]] for p in rs.params_of(label)})
        rows += done
        history.append(copy.deepcopy(versions))
        if not any(r["adopted"] for r in done):
            stop = "converged"
            break
    path = where.parent.parent / CONVERGED / f"{where.name}.toml"
    rf.make_dir(it.folder, path.parent.relative_to(it.folder))  # no link followed below the respond folder
    text = converged_toml(it, versions, stop, rnd)
    rf.write_atomic(path, text.encode())
    result = {"arm": it.arm.name, "players": it.players, "stopped": stop, "rounds": rnd, "toml": str(path),
              "strategies": converged_strategies(it, versions)}  # fmt: skip
    notify(f"{it.arm.name}, {it.players} players: {stop} after {rnd} round{'s' if rnd > 1 else ''}")
    return rows, result


def adopted(row: dict[str, Any]) -> bool:
    """A response becomes its strategy's next version only when its confirmed gain's whole 95 % interval lies above
    0 (``gain_lo > 0``), not when only the estimate does: a gain within its interval is noise, and the study stops
    ("converged") once every responder's is."""
    return bool(row["gain_lo"] > 0)


def converged_strategies(it: Iteration, versions: dict[str, dict[str, Any]]) -> list[Any]:
    return [tune.strategy_text(e) for e in it.table(versions)]


def converged_toml(it: Iteration, versions: dict[str, dict[str, Any]], stop: str, rounds: int) -> str:
    """The last versions as an experiment file (``eastindia run`` plays it; its ``strategies`` go into a
    ``[metagame]`` or ``[tune]`` file as they are)."""
    rs = it.rs
    how = "converged: no response gained beyond its interval" if stop == "converged" else "stopped at the round cap"
    name = rs.name if len(rs.exp.arms) == 1 else f"{rs.name}-{it.arm.name}"
    data: dict[str, Any] = {"name": _slug(name, it.players), "players": it.players}
    base = it.base.data
    if base.get("rotate", True) is not True:
        data["rotate"] = base["rotate"]
    if base.get("plugins"):
        data["plugins"] = list(base["plugins"])
    if base.get("rules"):
        data["rules"] = base["rules"]
    data["strategies"] = converged_strategies(it, versions)
    for key in ("calibrate", "calibration_games", "belief"):  # how the study's players were calibrated
        if key in base and base[key] != spec.DEFAULTS[key]:
            data[key] = base[key]
    if base.get("overrides"):
        data["overrides"] = dict(base["overrides"])
    head = [
        f"# {rs.name}: the strategies' versions after {rounds} round{'s' if rounds > 1 else ''} of {rs.mode} "
        f"best responses ({how})",
        f"# rules arm {it.arm.name!r}, {it.players} players; eastindia run FILE plays this table",
    ]
    return "\n".join(head) + "\n" + tomlw.dumps(data)


def _key(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True)


def _slug(name: str, players: int | None = None) -> str:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name).strip("_.") or "arm"
    return f"{safe}-{players}p" if players is not None else safe


def rounds_frame(rs: RespondSpec, rows: list[dict[str, Any]]) -> pl.DataFrame:
    """``rounds.parquet``: per rules arm, players, round and responder (see the module docstring), with one column
    per searched key: the value its strategy plays after the round (null for another strategy's key)."""
    schema: dict[str, Any] = {
        "arm": pl.String, "players": pl.Int64, "round": pl.Int64, "strategy": pl.String, "mode": pl.String,
        "tables": pl.Int64, "best_trial": pl.Int64, "value": pl.Float64, "lo": pl.Float64, "hi": pl.Float64,
        "before": pl.Float64, "gain": pl.Float64, "gain_lo": pl.Float64, "gain_hi": pl.Float64,
        "confirm_games": pl.Int64, "adopted": pl.Boolean, "response": pl.String, "version": pl.String,
    }  # fmt: skip
    frame = pl.DataFrame([{k: r.get(k) for k in schema} for r in rows], schema=schema, orient="row")
    columns = []
    for p in rs.params:
        values = [json.loads(r["version"]).get(p.key) for r in rows]
        columns.append(pl.Series(p.key, [str(v) if v is not None else None for v in values])
                       if p.kind == "choice" else pl.Series(p.key, values, dtype=pl.Float64))  # fmt: skip
    return frame.with_columns(columns) if columns else frame


__all__ = ["RespondSpec", "load", "run", "RunError"]
