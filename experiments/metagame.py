"""``eastindia metagame FILE``: the payoff table of every seating of the strategies, and its equilibria.

An experiment file with a ``[metagame]`` section; its ``strategies`` (K of them), ``players``, rules, ``[overrides]``
and ``[sweep]`` / ``[[arms]]`` (rules arms, without strategies of their own) are read as for ``eastindia run``::

    [metagame]
    compositions = "all"   # every multiset of `players` seats drawn from the K strategies; or "one_deviant": the
                           # pure tables and each with one seat of another strategy (for large K)
    starts = 200           # random starting mixes of the replicator dynamics (a Dirichlet(1, ..., 1) sample)
    seed = 1               # their seed and the bootstrap's (default: the experiment's)
    bootstrap = 200        # resamples of the games for the equilibria's intervals (0: none)
    degenerate_crash = 0.9 # an equilibrium whose Company crashes at least this often is marked degenerate

Every composition of every rules arm is one arm of one experiment played by the runner into ``RUN_DIR/tables``
(shards, ``--resume``, ``--jobs``, the lock): its strategies list holds each strategy as often as it sits at the
table, rotated over the seats, on the experiment's games and dice (common random numbers: game i of every
composition draws the same dice). The folder then gets:

- ``payoffs.parquet``: per rules arm x composition x strategy present: ``arm``, ``composition``
  (``balanced×4+random×1``), one count column per strategy, ``strategy``, ``seats``, ``win_rate`` (the share of the
  composition's games won by a seat playing it: they add up to 1 per composition), ``lo``, ``hi`` (95 % Wilson),
  ``mean_vp``, ``games``.
- ``equilibria.parquet``: the symmetric Nash equilibria of each rules arm's empirical game, one row per equilibrium
  x strategy: ``arm``, ``equilibrium``, ``strategy``, ``share``, ``lo``, ``hi``, ``stable``, ``basin``, ``regret``,
  ``regret_lo``, ``regret_hi``, and the equilibrium's health (the same on each of its rows): ``crash_rate``,
  ``crash_lo``, ``crash_hi``, ``mean_end_round``, ``end_round_lo``, ``end_round_hi`` and ``degenerate`` (its crash
  rate is at least ``degenerate_crash``).
- ``health.parquet``: what each strategy of each equilibrium scores, by VP source: ``arm``, ``equilibrium``,
  ``strategy``, ``share``, ``source`` (``total`` and each of the engine's VP sources), ``vp`` (a seat's mean), ``lo``,
  ``hi``.
- ``alpharank.parquet``: each strategy's alpha-Rank mass per rules arm: ``arm``, ``strategy``, ``mass``, ``alpha``,
  ``population`` (empty with ``compositions = "one_deviant"``).
- ``report.html``, ``summary.md``, ``charts/flow.png`` (``reports.metagame``).

The empirical game: a seat playing strategy i at a table whose other N - 1 seats are drawn from a population mix x
earns the per-seat win rate of i (``win_rate / seats``) in the composition (i + the others), averaged over the
others' compositions with their multinomial probabilities under x. The equilibria are found with numpy (egttools
has no build for this Python): support enumeration (for each set of strategies, the mixes on it where they all earn
the same, by Newton's method from several starts; kept when no strategy earns more) plus the end points of the
replicator dynamics from ``starts`` random mixes. ``stable``: small perturbations of the equilibrium (towards random
mixes and every pure strategy) return to it under the replicator dynamics; ``basin``: the share of the random
starting mixes that end at it; ``regret``: the most a strategy earns against the mix above the mix's own average
(about 0 at an equilibrium). With ``compositions = "one_deviant"`` only the pure tables can be judged: each pure
table is an equilibrium when no single deviant earns more than its seats, stable when every deviant earns less;
``basin`` is then empty.

Intervals (``bootstrap``): each resample draws G of the G game indices with replacement, the same at every
composition (they share their dice), recomputes the payoffs and re-finds the equilibrium nearest to each one (see
``bootstrap``); ``lo`` / ``hi``: the 2.5 and 97.5 % points of each share. The regret's interval is one-sided, as a
regret is never below 0 and an equilibrium's estimate is about 0: ``regret_lo`` is 0 and ``regret_hi`` the 95 % point
of what the best deviant gains against the found mix in the resamples (a high ``regret_hi`` says the games cannot tell
that mix from one a deviant beats).

An equilibrium's health is the game its tables play. Under a mix x a table of N seats has the composition c with the
multinomial probability P(c | x) = N! / prod(c_i!) prod(x_i^c_i); its crash rate and mean end round are those of the
compositions' games weighted by P(c | x) (a pure equilibrium: its own table's). A seat playing i meets the other
seats drawn from x, so its VP weight the compositions by P(c | x) c_i / (N x_i). The intervals resample the games
(``bootstrap`` times, the same games at every composition) with the mix held at its estimate; a study without
bootstrap gives a pure equilibrium's crash rate a Wilson interval and the rest none.

alpha-Rank (``alpharank``): single-population alpha-Rank (Omidshafiei et al. 2019) over the pure strategies, a
population of 50 meeting at tables of N, at the selection intensity where the masses stop moving; at two seats it
is OpenSpiel's ``alpharank.compute(..., use_local_selection_model=False)`` (the tests check it against OpenSpiel).
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from sim.layout import VP_SOURCES
from sim.rules import RulesError, load_toml
from sim.rules.schema import shown

from . import runfolder as rf
from . import runner, search, spec, tomlw
from .spec import MAX_ARMS, MAX_SEED, Experiment, ExperimentError

SECTION = "metagame"
KEYS: dict[str, Any] = {
    "compositions": str,
    "starts": int,
    "seed": int,
    "bootstrap": int,
    "degenerate_crash": (float, int),
}
MODES = ("all", "one_deviant")
TABLES = "tables"
PAYOFFS = "payoffs.parquet"
EQUILIBRIA = "equilibria.parquet"
ALPHARANK = "alpharank.parquet"
HEALTH = "health.parquet"
DEGENERATE_CRASH = 0.9  # the default of ``degenerate_crash``
HEALTH_SPAWN = 0x4EA1  # the health bootstrap's stream: (seed, rules arm, HEALTH_SPAWN)
POPULATION = 50  # alpha-Rank's population size m
MAX_STARTS = 100_000
MAX_BOOTSTRAP = 10_000
# Not in a metagame file: its arms are the compositions, and every composition plays all its games.
NOT_HERE = {
    "target_ci": "every composition plays all `games` games",
    "reference": "a metagame compares no arms with a reference",
}
TOL = 1e-7  # a payoff difference this small is none (per-seat win rates lie in [0, 1])
SAME = 0.01  # two mixes this close (largest share difference) are one equilibrium


# ------------------------------------------------------------------------------------------------------ spec
def compositions(k: int, players: int, mode: str = "all") -> list[tuple[int, ...]]:
    """The tables as counts per strategy: every multiset of ``players`` seats (``all``), or the pure tables and
    each with one deviant seat (``one_deviant``), in a fixed order."""
    tables = [tuple(np.bincount(c, minlength=k)) for c in itertools.combinations_with_replacement(range(k), players)]
    if mode == "one_deviant":
        tables = [t for t in tables if max(t) >= players - 1]
    return [tuple(int(n) for n in t) for t in tables]


def composition_name(labels: list[str], counts: tuple[int, ...]) -> str:
    return "+".join(f"{s}×{n}" for s, n in zip(labels, counts, strict=True) if n)


@dataclass(frozen=True)
class MetagameSpec:
    exp: Experiment  # as written: its rules arms and its strategies
    compositions: str
    starts: int
    seed: int
    bootstrap: int
    degenerate_crash: float = DEGENERATE_CRASH

    @property
    def name(self) -> str:
        return self.exp.name

    @property
    def labels(self) -> list[str]:
        return list(self.exp.arms[0].strategies)

    def tables(self) -> list[tuple[int, ...]]:
        return compositions(len(self.labels), self.exp.players, self.compositions)

    def section(self) -> dict[str, Any]:
        keys = ("compositions", "starts", "seed", "bootstrap")
        out = {key: getattr(self, key) for key in keys}
        if self.degenerate_crash != DEGENERATE_CRASH:  # a study's identity keeps the form it had before the key
            out["degenerate_crash"] = self.degenerate_crash
        return out

    def resolved_toml(self) -> str:
        return tomlw.dumps({**self.exp.data, SECTION: self.section()})

    def study_digest(self) -> str:
        return search.digest({"experiment": self.exp.digest(), SECTION: self.section()})

    def experiment(self) -> Experiment:
        """One experiment whose arms are every rules arm x composition (``arm_tables`` maps them back)."""
        data = copy.deepcopy(self.exp.data)
        entries = data["strategies"]
        arms = []
        for rules_arm, counts in self.arm_tables():
            table = composition_name(self.labels, counts)
            entry: dict[str, Any] = {
                "name": table if len(self.exp.arms) == 1 else f"{rules_arm.name} | {table}",
                "overrides": dict(rules_arm.overrides),
                "strategies": [e for e, n in zip(entries, counts, strict=True) for _ in range(n)],
            }
            if rules_arm.rules_file:
                entry["rules"] = rules_arm.rules_file
            arms.append(entry)
        data.update({"name": f"{self.name} tables", "sweep": {}, "reference": "", "target_ci": 0.0, "arms": arms})
        return spec.resolve(data, self.exp.source, None)

    def arm_tables(self) -> list[tuple[spec.Arm, tuple[int, ...]]]:
        """(rules arm, composition) of each arm of ``experiment``, in its order."""
        return [(arm, counts) for arm in self.exp.arms for counts in self.tables()]


def _check_table(raw: dict[str, Any], path: Path, problems: list[str]) -> None:
    """A metagame rotates every table and seats the tables itself."""
    if raw.get("rotate", True) is False:
        problems.append(f'{path}: rotate: a metagame rotates every table over the seats (true or "all")')
        raw.pop("rotate")
    for i, arm in enumerate(raw.get("arms") or []):
        if isinstance(arm, dict) and "strategies" in arm:
            problems.append(f"{path}: arms[{i}].strategies: the metagame seats the tables; list them at the top")
            arm.pop("strategies")


def load(path: str | Path, **changes: Any) -> MetagameSpec | Counts:
    """Read a metagame file (``changes``: the experiment's top-level keys from the command line); every problem is
    reported at once (``ExperimentError``). ``players = [4, 5]`` gives one metagame per count (``Counts``)."""
    path = Path(path)
    try:
        raw = load_toml(path)
    except RulesError as err:
        raise ExperimentError([str(err)]) from None
    given = changes.get("players")
    counts, problems = search.player_counts(given if given is not None else raw.get("players", 5), path)
    specs = []
    for n in counts:
        exp, table, path, trouble = search.load_study_file(
            path, SECTION, {**changes, "players": n}, NOT_HERE, _check_table
        )
        ms = section_spec(exp, table, path, trouble)
        problems += [p for p in trouble if p not in problems]
        specs.append(ms)
    if problems:
        raise ExperimentError(problems)
    assert all(ms is not None for ms in specs)
    return specs[0] if len(specs) == 1 and not isinstance(raw.get("players"), list) else Counts(tuple(specs))


@dataclass(frozen=True)
class Counts:
    """One metagame per player count of a file's ``players = [...]``: each in ``RUN_DIR/players-N`` (a metagame
    folder of its own), their equilibria side by side in ``RUN_DIR/equilibria.parquet`` (with ``players``)."""

    specs: tuple[MetagameSpec, ...]

    @property
    def exp(self) -> Experiment:
        return self.specs[0].exp

    @property
    def name(self) -> str:
        return self.exp.name

    @property
    def players(self) -> list[int]:
        return [ms.exp.players for ms in self.specs]


count_folder = search.count_folder


def section_spec(exp: Experiment | None, table: dict[str, Any], path: Path, problems: list[str]) -> MetagameSpec | None:
    """The metagame of ``exp`` as its ``[metagame]`` ``table`` sets it (``eastindia metagame``, and ``tune`` with an
    equilibrium objective); each problem is added to ``problems`` (None: the experiment did not resolve)."""
    where = search.section_where(str(path), SECTION)
    search.check_keys(table, KEYS, where, problems)
    mode = table.get("compositions", "all")
    if mode not in MODES:
        problems.append(f'{where}.compositions: expected "all" or "one_deviant", got {shown(mode)}')
        mode = "all"
    starts, seed = table.get("starts", 200), table.get("seed", exp.seed if exp is not None else 0)
    boot = table.get("bootstrap", 200)
    degenerate = table.get("degenerate_crash", DEGENERATE_CRASH)
    if isinstance(degenerate, float | int) and not isinstance(degenerate, bool) and not 0 < degenerate <= 1:
        problems.append(f"{where}.degenerate_crash: must be above 0 and at most 1, got {shown(degenerate)}")
    for key, v, low, high in (
        ("starts", starts, 1, MAX_STARTS),
        ("seed", seed, 0, MAX_SEED),
        ("bootstrap", boot, 0, MAX_BOOTSTRAP),
    ):
        if isinstance(v, int) and not isinstance(v, bool) and not low <= v <= high:
            problems.append(f"{where}.{key}: must be between {low} and {high:,}, got {shown(v)}")
    if exp is None:
        return None
    labels = list(exp.arms[0].strategies)
    if len(labels) < 2:
        problems.append(f"{path}: strategies: a metagame needs two strategies or more, got {', '.join(labels)}")
    elif len(set(labels)) < len(labels):
        problems.append(f"{path}: strategies: each strategy once (the metagame seats it as often as it needs)")
    else:
        arms = len(exp.arms) * len(compositions(len(labels), exp.players, mode))
        if arms > MAX_ARMS:
            problems.append(
                f"{where}.compositions: {arms:,} tables (rules arms x compositions), more than {MAX_ARMS:,}: use "
                'fewer strategies or compositions = "one_deviant"'
            )
    ok = all(isinstance(v, int) and not isinstance(v, bool) for v in (starts, seed, boot))
    if not ok or not isinstance(degenerate, float | int):
        return None
    return MetagameSpec(exp, mode, starts, seed, boot, float(degenerate))


# ------------------------------------------------------------------------------------------------------- run
def run(
    ms: MetagameSpec | Counts,
    run_dir: str | Path,
    jobs: int | None = None,
    resume: bool = False,
    fresh: bool = False,
    shard_size: int | None = None,
    command: str = "",
    progress: Any = None,
    notify: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Play every table into ``run_dir/tables``, then write the payoffs, the equilibria and the alpha-Rank masses
    (the command line then writes the report, ``reports.metagame``); ``Counts``: each count's metagame in its own
    folder, then the equilibria of all side by side."""
    run_dir = Path(run_dir)
    notify = notify or runner._stderr
    runner.check_options(jobs, shard_size, "loky", None, resume, fresh)
    if isinstance(ms, Counts):
        play = {"jobs": jobs, "resume": resume, "fresh": fresh, "shard_size": shard_size, "command": command}
        top = {"kind": SECTION, "name": ms.name, "command": command, "strategies": ms.specs[0].labels}
        metas, meta = search.run_counts(
            run, ms.specs, run_dir, EQUILIBRIA, top, progress=progress, notify=notify, **play
        )
        meta["arms"] = metas[0]["arms"]
        search.write_meta(run_dir, meta)
        return meta
    with search.Folder(run_dir, SECTION, command, notify) as folder:
        old = folder.open(ms.study_digest(), resume, fresh)
        if old is not None and old.get("status") == "complete":
            return old
        exp = ms.experiment()
        meta = {
            "kind": SECTION,
            "name": ms.name,
            "command": command or (old or {}).get("command", ""),
            "study_digest": ms.study_digest(),
            "experiment_digest": ms.exp.digest(),
            "compositions": ms.compositions,
            "tables": len(ms.tables()),
            "arms": [arm.name for arm in ms.exp.arms],
            "starts": ms.starts,
            "starts_seed": ms.seed,
            "bootstrap": ms.bootstrap,
            "degenerate_crash": ms.degenerate_crash,
            "seed": ms.exp.seed,
            "players": ms.exp.players,
            "games_per_table": ms.exp.games,
            "strategies": ms.labels,
            "started": (old or {}).get("started") or search.now(),
            "status": "running",
            "started_work": True,
        }
        if progress:
            progress.points(len(exp.arms), ms.exp.games * len(exp.arms))

        def work() -> None:
            play = {"jobs": jobs, "shard_size": shard_size, "progress": progress, "notify": notify}
            runner.run(exp, run_dir / TABLES, resume=True, command=command, **play)
            payoffs = payoff_frame(ms, run_dir / TABLES)
            search.write_parquet(run_dir / PAYOFFS, payoffs)
            winners = winner_matrix(ms, run_dir / TABLES)
            found = equilibria_frame(ms, payoffs, winners)
            eq, health = health_frames(ms, found, table_outcomes(ms, run_dir / TABLES))
            search.write_parquet(run_dir / EQUILIBRIA, eq)
            search.write_parquet(run_dir / HEALTH, health)
            search.write_parquet(run_dir / ALPHARANK, alpharank_frame(ms, payoffs))

        def stopped() -> Exception:
            return search.shards_kept(run_dir / TABLES, command, len(exp.arms))

        elapsed = float((old or {}).get("wall_time_s") or 0)
        return search.play_study(folder, meta, ms.resolved_toml(), work, stopped, elapsed)


def payoff_frame(ms: MetagameSpec, tables_dir: Path) -> pl.DataFrame:
    """One row per rules arm x composition x strategy present (see the module docstring)."""
    from .stats import wilson  # scipy.special: loaded when a study is analysed, not with the command line

    games = pl.scan_parquet(rf.frame_path(tables_dir, "games"))
    wins = games.group_by("arm_index", pl.col("winner_strategy").alias("strategy")).agg(pl.len().alias("won"))
    played = games.group_by("arm_index").agg(pl.len().cast(pl.Int64).alias("games"))
    seats = (
        pl.scan_parquet(rf.frame_path(tables_dir, "seats"))
        .group_by("arm_index", "strategy")
        .agg(pl.col("vp").cast(pl.Float64).mean().alias("mean_vp"))
    )
    counts = {i: dict(zip(ms.labels, c, strict=True)) for i, (_, c) in enumerate(ms.arm_tables())}
    keys = pl.DataFrame(
        {
            "arm_index": list(counts),
            "arm": [arm.name for arm, _ in ms.arm_tables()],
            "composition": [composition_name(ms.labels, c) for _, c in ms.arm_tables()],
            **{s: [counts[i][s] for i in counts] for s in ms.labels},
        },
        schema_overrides={"arm_index": pl.Int64, **dict.fromkeys(ms.labels, pl.Int64)},
    )
    frame = (
        seats.join(played, on="arm_index")
        .join(wins, on=["arm_index", "strategy"], how="left")
        .collect()
        .with_columns(pl.col("arm_index").cast(pl.Int64), pl.col("won").fill_null(0).cast(pl.Int64))
        .join(keys, on="arm_index")
    )
    order = {s: i for i, s in enumerate(ms.labels)}
    frame = frame.with_columns(
        pl.struct(ms.labels + ["strategy"]).map_elements(lambda r: r[r["strategy"]], pl.Int64).alias("seats"),
        pl.col("strategy").replace_strict(order, return_dtype=pl.Int64).alias("_order"),
    ).sort("arm_index", "_order")
    lo, hi = wilson(frame["won"].to_numpy(), frame["games"].to_numpy())
    return frame.with_columns(
        (pl.col("won") / pl.col("games")).alias("win_rate"), pl.Series("lo", lo), pl.Series("hi", hi)
    ).select("arm", "composition", *ms.labels, "strategy", "seats", "win_rate", "lo", "hi", "mean_vp", "games")


def winner_matrix(ms: MetagameSpec, tables_dir: Path) -> dict[str, np.ndarray]:
    """Per rules arm: the index (in ``labels``) of the strategy that won each game of each composition ([C, G], in the
    order of ``tables``; game g is the same dice at every composition; -1: not played)."""
    games = pl.read_parquet(rf.frame_path(tables_dir, "games"), columns=["arm_index", "game", "winner_strategy"])
    number = np.unique(games["game"].to_numpy())
    tables = len(ms.tables())
    win = np.full((len(ms.exp.arms) * tables, len(number)), -1, dtype=np.int64)
    order = {s: i for i, s in enumerate(ms.labels)}
    win[games["arm_index"].to_numpy(), np.searchsorted(number, games["game"].to_numpy())] = (
        games["winner_strategy"].replace_strict(order, return_dtype=pl.Int64).to_numpy()
    )
    return {arm.name: win[a * tables : (a + 1) * tables] for a, arm in enumerate(ms.exp.arms)}


def arm_payoff(payoffs: pl.DataFrame, labels: list[str], tables: list[tuple[int, ...]], arm: str) -> np.ndarray:
    """The per-seat payoffs of a rules arm ([C, K] in the order of ``tables``; NaN: the strategy is not there)."""
    index = {t: r for r, t in enumerate(tables)}
    payoff = np.full((len(tables), len(labels)), np.nan)
    for r in payoffs.filter(pl.col("arm") == arm).iter_rows(named=True):
        payoff[index[tuple(r[s] for s in labels)], labels.index(r["strategy"])] = r["win_rate"] / r["seats"]
    return payoff


def equilibria_frame(
    ms: MetagameSpec, payoffs: pl.DataFrame, winners: dict[str, np.ndarray] | None = None
) -> pl.DataFrame:
    """Every rules arm's equilibria (see ``equilibria`` and ``pure_equilibria``), one row per strategy, with
    ``bootstrap`` intervals from the games' ``winners`` (``winner_matrix``; none without)."""
    rows = []
    counts = np.array(ms.tables())
    for a, arm in enumerate(ms.exp.arms):
        payoff = arm_payoff(payoffs, ms.labels, ms.tables(), arm.name)
        pure = ms.compositions != "all"
        if pure:
            found = pure_equilibria(counts, payoff, ms.exp.players)
        else:
            found = equilibria(counts, payoff, ms.exp.players, ms.starts, ms.seed)
        if winners is not None and ms.bootstrap and found:
            bounds = bootstrap(counts, winners[arm.name], ms.exp.players, found, ms.bootstrap, (ms.seed, a), pure)
        else:
            bounds = [{"lo": [None] * len(ms.labels), "hi": [None] * len(ms.labels)} for _ in found]
        for e, (eq, b) in enumerate(zip(found, bounds, strict=True)):
            for i, s in enumerate(ms.labels):
                row = {"arm": arm.name, "equilibrium": e, "strategy": s, "share": float(eq["shares"][i])}
                rows.append({**row, "lo": b["lo"][i], "hi": b["hi"][i], **eq["rest"]} | _regret_bounds(b))
    schema = {
        "arm": pl.String,
        "equilibrium": pl.Int64,
        "strategy": pl.String,
        "share": pl.Float64,
        "lo": pl.Float64,
        "hi": pl.Float64,
        "stable": pl.Boolean,
        "basin": pl.Float64,
        "regret": pl.Float64,
        "regret_lo": pl.Float64,
        "regret_hi": pl.Float64,
    }
    return pl.DataFrame(rows, schema=schema)


@dataclass(frozen=True)
class Outcomes:
    """What every game of a rules arm's compositions ended with ([C, G] in the order of ``tables``; game g is the
    same dice at every composition): ``crashed`` (0 / 1), ``end_round``, and ``vp[c, g, k, s]``, the mean VP of
    source s (``SOURCES``: the total, then the engine's sources) of the seats playing strategy k (NaN: none)."""

    crashed: np.ndarray
    end_round: np.ndarray
    vp: np.ndarray


SOURCES = ("total", *VP_SOURCES)


def table_outcomes(ms: MetagameSpec, tables_dir: Path) -> dict[str, Outcomes]:
    """Per rules arm, the outcomes of every composition's games (``Outcomes``)."""
    games = pl.read_parquet(rf.frame_path(tables_dir, "games"), columns=["arm_index", "game", "crashed", "end_round"])
    columns = ["vp", *[f"vp_{s}" for s in VP_SOURCES]]
    seats = (
        pl.scan_parquet(rf.frame_path(tables_dir, "seats"))
        .group_by("arm_index", "game", "strategy")
        .agg(pl.col(c).cast(pl.Float64).mean() for c in columns)
        .collect()
    )
    number = np.unique(games["game"].to_numpy())
    tables, k = len(ms.tables()), len(ms.labels)
    arms = len(ms.exp.arms) * tables
    crashed = np.full((arms, len(number)), np.nan)
    end_round = np.full((arms, len(number)), np.nan)
    at = games["arm_index"].to_numpy(), np.searchsorted(number, games["game"].to_numpy())
    crashed[at] = games["crashed"].cast(pl.Float64).to_numpy()
    end_round[at] = games["end_round"].cast(pl.Float64).to_numpy()
    vp = np.full((arms, len(number), k, len(columns)), np.nan)
    order = {s: i for i, s in enumerate(ms.labels)}
    vp[
        seats["arm_index"].to_numpy(),
        np.searchsorted(number, seats["game"].to_numpy()),
        seats["strategy"].replace_strict(order, return_dtype=pl.Int64).to_numpy(),
    ] = seats.select(columns).to_numpy()
    return {
        arm.name: Outcomes(*(x[a * tables : (a + 1) * tables] for x in (crashed, end_round, vp)))
        for a, arm in enumerate(ms.exp.arms)
    }


def table_weights(counts: np.ndarray, shares: np.ndarray) -> np.ndarray:
    """P(c | x): the probability that a table of N seats, each drawn from the mix ``shares``, has the composition
    ``counts[c]`` (the multinomial; [C])."""
    counts = np.asarray(counts)
    players = int(counts[0].sum())
    coef = np.array([math.factorial(players) / math.prod(math.factorial(int(n)) for n in c) for c in counts])
    with np.errstate(divide="ignore", invalid="ignore"):  # 0 seats of an absent strategy: left out of the sum
        return coef * np.exp((counts * np.log(np.asarray(shares, dtype=float))).sum(axis=1, where=counts > 0))


def seat_weights(counts: np.ndarray, shares: np.ndarray) -> np.ndarray:
    """The weight of each composition for a seat playing strategy i whose other seats are drawn from the mix:
    P(c | x) c_i / (N x_i) ([C, K]; 0 for a strategy the mix does not play)."""
    counts = np.asarray(counts)
    shares = np.asarray(shares, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = table_weights(counts, shares)[:, None] * counts / (counts.sum(axis=1, keepdims=True) * shares)
    return np.where(shares > 0, w, 0.0)


def equilibrium_health(
    counts: np.ndarray, outcomes: Outcomes, shares: np.ndarray, reps: int, seed: int | tuple[int, ...]
) -> dict[str, Any]:
    """The game an equilibrium plays (module docstring): crash rate and mean end round with 95 % intervals
    (``reps`` resamples of the games, the mix held; none without), and per strategy and VP source a seat's mean
    VP with its interval (``vp``, ``vp_lo``, ``vp_hi``: [K, S])."""
    table = table_weights(counts, shares)
    seat = seat_weights(counts, shares)
    crashed, end_round = np.nan_to_num(outcomes.crashed), np.nan_to_num(outcomes.end_round)
    vp = np.einsum("ck,cgks->gks", seat, np.nan_to_num(outcomes.vp))  # [G, K, S]: each game's weighted mean
    per_game = {"crash": table @ crashed, "end": table @ end_round}  # [G]
    g = crashed.shape[1]
    out: dict[str, Any] = {
        "crash_rate": float(per_game["crash"].mean()),
        "mean_end_round": float(per_game["end"].mean()),
        "vp": vp.mean(axis=0),
    }
    if reps:
        w = np.random.default_rng(seed).multinomial(g, np.full(g, 1.0 / g), size=reps) / g  # [B, G]
        for name, values in (("crash", per_game["crash"]), ("end_round", per_game["end"])):
            out[f"{name}_lo"], out[f"{name}_hi"] = (float(v) for v in np.percentile(w @ values, [2.5, 97.5]))
        out["vp_lo"], out["vp_hi"] = np.percentile(np.einsum("bg,gks->bks", w, vp), [2.5, 97.5], axis=0)
        return out
    if np.isclose(np.max(shares), 1.0):
        from .stats import wilson

        lo, hi = wilson(round(out["crash_rate"] * g), g)
        out["crash_lo"], out["crash_hi"] = float(lo), float(hi)
    return out


def health_frames(
    ms: MetagameSpec, found: pl.DataFrame, outcomes: dict[str, Outcomes]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The equilibria frame with each equilibrium's health, and the health frame (VP by source per strategy)."""
    counts = np.array(ms.tables())
    health: dict[tuple[str, int], dict[str, Any]] = {}
    rows = []
    for a, arm in enumerate(ms.exp.arms):
        for (e,), part in found.filter(pl.col("arm") == arm.name).group_by("equilibrium", maintain_order=True):
            shares = part["share"].to_numpy()
            h = equilibrium_health(counts, outcomes[arm.name], shares, ms.bootstrap, (ms.seed, a, HEALTH_SPAWN, e))
            health[(arm.name, e)] = h
            for i, s in enumerate(ms.labels):
                if shares[i] <= 0:
                    continue
                for j, source in enumerate(SOURCES):
                    lo, hi = (h[f"vp_{b}"][i, j] if f"vp_{b}" in h else None for b in ("lo", "hi"))
                    rows.append(
                        {
                            "arm": arm.name,
                            "equilibrium": e,
                            "strategy": s,
                            "share": float(shares[i]),
                            "source": source,
                            "vp": float(h["vp"][i, j]),
                            "lo": lo,
                            "hi": hi,
                        }  # fmt: skip
                    )
    keys = ("crash_rate", "crash_lo", "crash_hi", "mean_end_round", "end_round_lo", "end_round_hi")
    columns = {
        key: [health[(arm, e)].get(key) for arm, e in zip(found["arm"], found["equilibrium"], strict=True)]
        for key in keys
    }
    eq = found.with_columns(
        *(pl.Series(key, values, dtype=pl.Float64) for key, values in columns.items()),
    ).with_columns((pl.col("crash_rate") >= ms.degenerate_crash).alias("degenerate"))
    schema = {"arm": pl.String, "equilibrium": pl.Int64, "strategy": pl.String, "share": pl.Float64,
              "source": pl.String, "vp": pl.Float64, "lo": pl.Float64, "hi": pl.Float64}  # fmt: skip
    return eq, pl.DataFrame(rows, schema=schema)


def _regret_bounds(b: dict[str, Any]) -> dict[str, Any]:
    return {"regret_lo": b.get("regret_lo"), "regret_hi": b.get("regret_hi")}


def alpharank_frame(ms: MetagameSpec, payoffs: pl.DataFrame) -> pl.DataFrame:
    """Each strategy's alpha-Rank mass per rules arm (``alpharank``; only with every composition played)."""
    rows = []
    if ms.compositions == "all":
        counts = np.array(ms.tables())
        for arm in ms.exp.arms:
            mass, alpha = alpharank(
                counts, arm_payoff(payoffs, ms.labels, ms.tables(), arm.name), ms.exp.players, m=POPULATION
            )
            for s, v in zip(ms.labels, mass, strict=True):
                rows.append(
                    {"arm": arm.name, "strategy": s, "mass": float(v), "alpha": alpha, "population": POPULATION}
                )
    schema = {"arm": pl.String, "strategy": pl.String, "mass": pl.Float64, "alpha": pl.Float64, "population": pl.Int64}
    return pl.DataFrame(rows, schema=schema)


def invasion_frame(payoffs: pl.DataFrame, labels: list[str], players: int) -> pl.DataFrame:
    """Each strategy alone at a table of ``players - 1`` seats of another, per rules arm: ``arm``, ``invader``,
    ``resident``, ``win_rate`` of the lone seat with ``lo``, ``hi`` (95 %), ``fair`` (1 / players) and ``verdict``:
    ``invades`` (the whole interval above the fair share), ``repelled`` (below it) or ``even``."""
    lone = payoffs.filter(pl.col("seats") == 1)
    resident = pl.coalesce(
        [pl.when((pl.col(s) == players - 1) & (pl.col("strategy") != s)).then(pl.lit(s)) for s in labels]
    )
    fair = 1.0 / players
    return (
        lone.with_columns(resident.alias("resident"))
        .filter(pl.col("resident").is_not_null())
        .select(
            "arm",
            pl.col("strategy").alias("invader"),
            "resident",
            "win_rate",
            "lo",
            "hi",
            pl.lit(fair).alias("fair"),
            pl.when(pl.col("lo") > fair)
            .then(pl.lit("invades"))
            .when(pl.col("hi") < fair)
            .then(pl.lit("repelled"))
            .otherwise(pl.lit("even"))
            .alias("verdict"),
        )
    )


# ------------------------------------------------------------------------------------------------ the game
class Game:
    """A symmetric N-player game from per-seat payoffs per composition (``counts[c]``: seats per strategy,
    ``payoff[c, i]``: what one seat playing i earns there)."""

    def __init__(self, counts: np.ndarray, payoff: np.ndarray, players: int):
        counts = np.asarray(counts, dtype=np.int64)
        self.k, self.players = counts.shape[1], players
        index = {tuple(c): r for r, c in enumerate(counts)}
        self.others = np.array(compositions(self.k, players - 1))  # [M, K]: the other seats
        self.coef = np.array([math.factorial(players - 1) / math.prod(map(math.factorial, m)) for m in self.others])
        rows = [[index[tuple(o + np.eye(self.k, dtype=np.int64)[i])] for i in range(self.k)] for o in self.others]
        # [M, K], or [B, M, K] for a batch of B games (one mix of ``fitness`` per game)
        self.table = np.asarray(payoff)[..., np.array(rows), np.arange(self.k)]
        if np.isnan(self.table).any():
            raise ValueError("a composition's payoff is missing")
        self.scale = float(np.ptp(self.table)) or 1.0

    def fitness(self, x: np.ndarray) -> np.ndarray:
        """Each strategy's expected payoff against the mixes ``x`` ([S, K] -> [S, K]; a batch: mix s in game s)."""
        x = np.atleast_2d(x)
        # the multinomial probability of each composition of the other seats (log space: one matrix product; an
        # absent strategy's log share is so low that any seat of it gives a probability of 0)
        probs = self.coef * np.exp(np.log(np.maximum(x, 1e-300)) @ self.others.T)
        return probs @ self.table if self.table.ndim == 2 else np.einsum("sm,smk->sk", probs, self.table)

    def regret(self, x: np.ndarray) -> float:
        f = self.fitness(x)[0]
        return float(f.max() - x @ f)

    def replicate(self, x: np.ndarray, steps: int = 20_000, dt: float = 0.5) -> np.ndarray:
        """The replicator dynamics from the mixes ``x`` ([S, K]) until they stand still (exponential steps, which
        keep mixes on the simplex; payoffs scaled to their range, which changes the speed, not the paths)."""
        x = np.array(x, dtype=float)
        for t in range(steps):
            f = self.fitness(x)
            gain = f - (x * f).sum(axis=1, keepdims=True)
            x = x * np.exp(dt * gain / self.scale)
            x /= x.sum(axis=1, keepdims=True)
            if t % 50 == 0 and np.abs(x * gain).max() < 1e-12 * self.scale:
                break
        return x


def _snap(x: np.ndarray) -> np.ndarray:
    x = np.where(x < 1e-6, 0.0, x)
    return x / x.sum(axis=-1, keepdims=True)


def _support_candidates(game: Game, rng: np.random.Generator) -> list[np.ndarray]:
    """Mixes on every support where its strategies all earn the same (Newton's method from several starts)."""
    k = game.k
    out = [np.eye(k)[i] for i in range(k)]
    for size in range(2, k + 1):
        for support in itertools.combinations(range(k), size):
            starts = np.zeros((9, k))
            starts[:, list(support)] = np.vstack([np.full(size, 1.0 / size), rng.dirichlet(np.ones(size), 8)])
            out += [x for x in _support_solve(game, starts) if np.isfinite(x).all() and x[list(support)].min() > 1e-6]
    return out


def _support_solve(game: Game, x: np.ndarray, steps: int = 60) -> np.ndarray:
    """Newton's method on the support of the mixes ``x`` ([S, K], one support): from each, the mix there at which
    the support's strategies all earn the same (in game s of a batch for row s); NaN rows where it fails (no such mix
    inside the simplex)."""
    idx = np.flatnonzero(x[0] > 0)
    y = x[:, idx[:-1]].copy()

    def mix(y: np.ndarray) -> np.ndarray:
        out = np.zeros((len(y), game.k))
        out[:, idx[:-1]], out[:, idx[-1]] = y, 1.0 - y.sum(axis=1)
        return out

    def residual(y: np.ndarray) -> np.ndarray:
        f = game.fitness(np.clip(mix(y), 0.0, None))[:, idx]
        return (f[:, 1:] - f[:, :1]) / game.scale

    h = 1e-7
    for _ in range(steps if len(idx) > 1 else 0):
        r = residual(y)
        jac = np.stack([(residual(y + h * np.eye(len(idx) - 1)[j]) - r) / h for j in range(len(idx) - 1)], axis=2)
        step = np.einsum("bij,bj->bi", np.linalg.pinv(np.nan_to_num(jac)), np.nan_to_num(r))
        y = np.clip(np.nan_to_num(y - step, nan=2.0), -1.0, 2.0)  # a diverging row ends outside the simplex
    out = mix(y)
    bad = (np.abs(residual(y)).max(axis=1, initial=0.0) > 1e-9) | (out.min(axis=1) < -1e-9)
    out[bad] = np.nan
    return out


def equilibria(
    counts: np.ndarray, payoff: np.ndarray, players: int, starts: int = 200, seed: int = 1
) -> list[dict[str, Any]]:
    """The symmetric Nash equilibria of the game (``Game``): the mixes found by support enumeration and the end
    points of the replicator dynamics from ``starts`` Dirichlet(1, ..., 1) mixes, kept when no strategy earns more
    than the mix (regret below ``TOL``). Each: ``shares`` and ``rest`` (``stable``, ``basin``, ``regret``); the most
    attracting first."""
    game = Game(counts, payoff, players)
    rng = np.random.default_rng(seed)
    begin = rng.dirichlet(np.ones(game.k), starts)
    ends = _snap(game.replicate(begin))
    found: list[np.ndarray] = []
    for x in [*_support_candidates(game, rng), *ends]:
        x = _snap(x)
        if game.regret(x) < TOL and not any(np.abs(x - y).max() < SAME for y in found):
            found.append(x)
    out = []
    for x in found:
        basin = float(np.mean(np.abs(ends - x).max(axis=1) < SAME))
        nudges = np.vstack([np.eye(game.k), rng.dirichlet(np.ones(game.k), 20)])
        back = _snap(game.replicate(0.99 * x + 0.01 * nudges))
        stable = bool((np.abs(back - x).max(axis=1) < SAME).all())
        out.append({"shares": x, "rest": {"stable": stable, "basin": basin, "regret": game.regret(x)}})
    return sorted(out, key=lambda e: (-e["rest"]["basin"], not e["rest"]["stable"]))


def _deviant_gains(counts: np.ndarray, payoff: np.ndarray, players: int, i: int) -> np.ndarray:
    """What a single deviant seat of each other strategy earns at the pure table of i minus a seat there ([..., K-1]
    for payoffs [..., C, K])."""
    k = counts.shape[1]
    index = {tuple(c): r for r, c in enumerate(np.asarray(counts))}
    pure, one = np.eye(k, dtype=np.int64)[i] * players, np.eye(k, dtype=np.int64)
    others = [j for j in range(k) if j != i]
    rows = [index[tuple(pure - one[i] + one[j])] for j in others]
    return payoff[..., rows, others] - payoff[..., [index[tuple(pure)]], i]


def pure_equilibria(counts: np.ndarray, payoff: np.ndarray, players: int) -> list[dict[str, Any]]:
    """The pure tables no single deviant gains at (only those can be judged from the pure and one-deviant tables):
    regret = the best deviant's per-seat payoff minus the table's; stable when every deviant earns less."""
    k = counts.shape[1]
    out = []
    for i in range(k):
        gain = float(_deviant_gains(counts, payoff, players, i).max())
        if gain < TOL:
            rest = {"stable": gain < -TOL, "basin": None, "regret": max(0.0, gain)}
            out.append({"shares": np.eye(k)[i], "rest": rest})
    return out


# ------------------------------------------------------------------------------------------ intervals
def seat_payoffs(counts: np.ndarray, winners: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Per-seat win rates ([C, K], NaN where a strategy is absent) from each composition's winners (``winners[c, g]``:
    the strategy index that won game g, -1: not played); ``weights`` ([B, G]: how often each game is drawn) give B
    resampled tables at once ([B, C, K])."""
    counts = np.asarray(counts)
    w = np.ones((1, winners.shape[1])) if weights is None else weights
    won = (winners[..., None] == np.arange(counts.shape[1])).astype(float)  # [C, G, K]
    wins = np.einsum("bg,cgk->bck", w, won)
    played = np.einsum("bg,cg->bc", w, (winners >= 0).astype(float))
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = wins / played[..., None] / np.where(counts > 0, counts, np.nan)
    return rates[0] if weights is None else rates


def bootstrap(
    counts: np.ndarray,
    winners: np.ndarray,
    players: int,
    found: list[dict[str, Any]],
    reps: int,
    seed: int | tuple[int, ...],
    pure_only: bool = False,
) -> list[dict[str, Any]]:
    """95 % intervals of each equilibrium of ``found`` by resampling the games: every resample draws G of the G game
    indices with replacement, the same ones at every composition (which all play the same dice), and recomputes the
    payoffs. There the equilibrium nearest to each found one is re-found: a stable one by the replicator dynamics from
    it (nudged 1 % towards the uniform mix, so that its support may change), an unstable one by Newton's method on its
    support (a resample without it there counts for no share), a pure table of ``pure_only`` is itself. Each:
    ``lo``, ``hi`` (per strategy) and ``regret_lo``, ``regret_hi``: what the best deviant gains against the found mix
    in the resamples."""
    rng = np.random.default_rng(seed)
    g = winners.shape[1]
    payoff = seat_payoffs(counts, winners, rng.multinomial(g, np.full(g, 1.0 / g), size=reps).astype(float))
    k = counts.shape[1]
    out = []
    if pure_only:
        for eq in found:
            regret = np.maximum(0.0, _deviant_gains(counts, payoff, players, int(np.argmax(eq["shares"]))).max(axis=1))
            out.append(_bounds(np.tile(eq["shares"], (reps, 1)), regret))
        return out
    game = Game(counts, payoff, players)
    for eq in found:
        x = np.tile(eq["shares"], (reps, 1))
        f = game.fitness(x)
        regret = f.max(axis=1) - (x * f).sum(axis=1)
        if eq["rest"]["stable"]:
            mix = _snap(game.replicate(0.99 * x + 0.01 / k))
        else:
            mix = _support_solve(game, x)
        out.append(_bounds(mix, regret))
    return out


def _bounds(mix: np.ndarray, regret: np.ndarray) -> dict[str, Any]:
    ok = np.isfinite(mix).all(axis=1)
    lo, hi = np.percentile(mix[ok], [2.5, 97.5], axis=0) if ok.any() else np.full((2, mix.shape[1]), np.nan)
    return {
        "lo": lo,
        "hi": hi,
        "regret_lo": 0.0,  # one-sided: a regret is never negative (module docstring)
        "regret_hi": float(np.percentile(regret, 95.0)),
    }


# ------------------------------------------------------------------------------------------------ alpha-Rank
def alpharank(
    counts: np.ndarray, payoff: np.ndarray, players: int, alpha: float | None = None, m: int = 50
) -> tuple[np.ndarray, float]:
    """Single-population alpha-Rank (Omidshafiei et al. 2019) of the symmetric game: a population of ``m`` players
    that all play one strategy; a mutant strategy r appears (each other one equally likely) and takes over with the
    fixation probability of the Moran process under Fermi selection of intensity ``alpha``, where a player's fitness
    is its expected payoff at a table whose other ``players - 1`` seats are drawn from the rest of the population.
    The mass of each strategy is the stationary distribution of that Markov chain over the monomorphic populations.
    ``alpha=None`` sweeps alpha over 1, 10^0.5, ... 10^8 and stops where the masses move less than 1e-4 (the
    large-alpha limit the ranking is read in). Returns (masses, alpha)."""
    gaps = _fitness_gaps(counts, payoff, players, m)
    if alpha is not None:
        return _alpharank_at(gaps, alpha), alpha
    last = None
    for a in 10.0 ** np.arange(0.0, 8.01, 0.5):
        pi = _alpharank_at(gaps, a)
        if last is not None and np.abs(pi - last).max() < 1e-4:
            break
        last = pi
    return pi, float(a)


def _fitness_gaps(counts: np.ndarray, payoff: np.ndarray, players: int, m: int) -> np.ndarray:
    """``gaps[s, r, p - 1]``: what a player of r earns minus what a player of s earns when p of the m players play r
    and the others s."""
    from scipy.stats import hypergeom

    k = counts.shape[1]
    index = {tuple(c): r for r, c in enumerate(np.asarray(counts))}
    p = np.arange(1, m)  # mutants r in the population
    j = np.arange(players)  # r players among the other seats
    # the other seats of an r player: from p - 1 r and m - p s; of an s player: from p r and m - p - 1 s
    of_r = hypergeom.pmf(j[None], m - 1, p[:, None] - 1, players - 1)
    of_s = hypergeom.pmf(j[None], m - 1, p[:, None], players - 1)
    gaps = np.zeros((k, k, m - 1))
    one = np.eye(k, dtype=np.int64)
    for s, r in itertools.permutations(range(k), 2):
        # the table with n seats of r and the others of s, for n = 0 .. players
        rows = [index[tuple(n * one[r] + (players - n) * one[s])] for n in range(players + 1)]
        gaps[s, r] = of_r @ payoff[rows[1:], r] - of_s @ payoff[rows[:-1], s]
    return gaps


def _alpharank_at(gaps: np.ndarray, alpha: float) -> np.ndarray:
    """The stationary distribution of the chain at selection intensity ``alpha`` (fixation probabilities of the
    Moran process with Fermi selection, in log space so that a large alpha does not overflow)."""
    from scipy.special import logsumexp

    k = len(gaps)
    steps = np.cumsum(-alpha * gaps, axis=2)
    rho = np.exp(-logsumexp(np.concatenate([np.zeros((k, k, 1)), steps], axis=2), axis=2))
    chain = rho / (k - 1)
    chain[np.diag_indices(k)] = 0.0
    chain[np.diag_indices(k)] = 1.0 - chain.sum(axis=1)
    a = np.vstack([chain.T - np.eye(k), np.ones(k)])
    pi = np.linalg.lstsq(a, np.append(np.zeros(k), 1.0), rcond=None)[0]
    pi = np.clip(pi, 0.0, None)
    return pi / pi.sum()
