"""Benchmark: ``python -m sim.bench`` plays 5-player games at batch sizes 1, 64, 1024 and 4096 on one core and
prints games per CPU-second and per wall-second (median of the repeats), the per-game speed-up over batch 1, and the
peak memory of a batch; and, beside the engine alone (``play_batch``), what a user calling ``sim.play`` gets: the same
games with their result frames built (``Results.frames()``), per CPU-second.

``--end-to-end`` also times whole commands as a user runs them, each in a fresh process tree in a temporary folder,
and prints the CPU seconds of the process and every worker it started (the median of ``--repeats``): the README's
``eastindia run`` (2,000 games of the default rules and its report) and ``eastindia run
experiments/library/capital_formulas.toml --games 1000 --jobs 2`` (9 arms, their calibration pilots and the report),
both on a warm kernel cache (each run once untimed with ``EASTINDIA_KERNELS=1`` first, which compiles what is
missing), as a study is run again (its pilots' fits kept in the cache folder by the untimed run:
``experiments.calibration.kept``) and as it is run the first time (those fits deleted before each run, which plays
its pilots); then each on an empty kernel cache: as a first run after an install plays it (the numpy reference, no
compile: ``sim.kernels.starts``), and told to compile (``EASTINDIA_KERNELS=1``), with the processes that compiled
the kernels (each says so once on stderr: more than one compiled the same kernels).

The engine's own figures are the compiled kernels' (as with ``EASTINDIA_KERNELS=1``; ``0`` times the numpy reference).

CPU time is the process's own (``time.process_time``): on a machine shared with other work it is the figure to
compare, wall time is shown beside it. The engine runs single-threaded here (compiled kernels and BLAS on one
thread), so CPU time is the work of one core.

``--strategy NAME`` seats one strategy everywhere (default ``balanced``); several names seat a mix rotated over the
seats as experiments do (game i seats names[(s + i) % k] in seat s): ``--strategy bid_low buy_shares run_firm
go_military balanced``. ``--profile`` plays one more batch of the largest size and prints where its CPU time went:
per phase (decisions included) and per decision (the whole ask, and the strategy's method alone). Speed is
measured here, never asserted in a unit test.

``--lookahead [SPEC]`` also plays ``--lookahead-games`` games (one batch) with a searching seat (``lookahead`` by
default, or a spec such as ``lookahead:rollouts=16``) in seat ``game % N`` among the ``--strategy`` seats, and prints
its CPU time a game and the search's work: the copies it played and their rounds, as game-equivalents (a round
played by a copy is 1/rounds of a game) per CPU-second of the whole run, beside the plain rate of the same table at
the largest batch size in the same unit.
"""

from __future__ import annotations

import argparse
import contextlib
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # before numpy or numba start their thread pools (a no-op once they have)

import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from collections import defaultdict  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from . import engine, kernels  # noqa: E402
from .agents import Agents  # noqa: E402
from .engine import play_batch, resolve_strategies, strategy_registry  # noqa: E402
from .results import Results  # noqa: E402
from .rules import Rules  # noqa: E402


def seating(rules: Rules, k: int, ids: np.ndarray) -> np.ndarray:
    """int[G, N] the seating of k strategies rotated over the seats (k = players, one per seat: the identity for a
    single strategy, which ``resolve_strategies`` repeats in every seat)."""
    return (np.arange(rules.players)[None, :] + (ids % k)[:, None]) % k


def games_per_second(rules: Rules, seats: list, batch: int, games: int, seed: int) -> tuple[float, float]:
    """(games per CPU-second, games per wall-second) of ``games`` games played in batches of ``batch``."""
    cpu, wall = time.process_time(), time.perf_counter()
    for first in range(0, games, batch):
        ids = np.arange(first, min(first + batch, games), dtype=np.int64)
        play_batch(rules, seats, seed, ids, seating(rules, len(seats), ids))
    return games / (time.process_time() - cpu), games / (time.perf_counter() - wall)


def frames_per_second(rules: Rules, seats: list, batch: int, games: int, seed: int) -> float:
    """Games per CPU-second of what ``sim.play`` does: ``games`` games in batches of ``batch`` (seated as
    ``games_per_second`` seats them), then their result frames."""
    cpu, batches = time.process_time(), []
    for first in range(0, games, batch):
        ids = np.arange(first, min(first + batch, games), dtype=np.int64)
        batches.append(play_batch(rules, seats, seed, ids, seating(rules, len(seats), ids))[1])
    Results.from_batches(batches, {}).frames()
    return games / (time.process_time() - cpu)


def peak_memory_mib(rules: Rules, seats: list, batch: int, seed: int) -> float:
    tracemalloc.start()
    ids = np.arange(batch, dtype=np.int64)
    play_batch(rules, seats, seed, ids, seating(rules, len(seats), ids))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


class Profile:
    """CPU-time accumulators keyed by name, filled by wrappers installed only while profiling."""

    def __init__(self):
        self.cpu: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)

    def timed(self, fn, key=None):
        """``fn`` counting its CPU time under ``key`` (or, when None, under its first argument: a decision name)."""

        def run(*args, **kwargs):
            name = key if key is not None else args[1]
            start = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.cpu[name] += time.process_time() - start
                self.calls[name] += 1

        return run


@contextlib.contextmanager
def profiling(prof: Profile, strategy_time: Profile):
    """Wrap the game's phases (``engine``'s names for them), ``Agents.ask``/``ask_seats`` and the strategy call inside
    them."""
    saved = {name: getattr(engine, name) for name in ("ROUND", "setup", "end_game", "start_of_round")}
    ask, ask_seats, call = Agents.ask, Agents.ask_seats, Agents._call
    try:
        engine.ROUND = tuple((n, name, prof.timed(fn, name), sim) for n, name, fn, sim in engine.ROUND)
        for name in ("setup", "end_game", "start_of_round"):
            setattr(engine, name, prof.timed(saved[name], name))
        Agents.ask = strategy_time.timed(ask)  # per decision: the whole ask (observation, call, checks)
        Agents.ask_seats = strategy_time.timed(ask_seats)  # the seats of a simultaneous decision, asked at once
        Agents._call = lambda self, strat, decision, *rest, **kw: strategy_time.timed(call, "strategy:" + decision)(
            self, strat, decision, *rest, **kw
        )
        yield
    finally:
        for name, value in saved.items():
            setattr(engine, name, value)
        Agents.ask, Agents.ask_seats, Agents._call = ask, ask_seats, call


def profile_table(rules: Rules, seats: list, batch: int, seed: int) -> str:
    """One batch of ``batch`` games played with the profile on: CPU ms per game by phase and by decision."""
    phases, asks = Profile(), Profile()
    ids = np.arange(batch, dtype=np.int64)
    with profiling(phases, asks):
        start = time.process_time()
        play_batch(rules, seats, seed, ids, seating(rules, len(seats), ids))
        total = time.process_time() - start
    per_game = 1000 / batch
    lines = [f"profile of one batch of {batch}: {total * per_game:.3f} CPU ms per game", ""]
    lines.append(f"{'phase (decisions included)':<28} {'ms/game':>8} {'share':>6} {'calls':>6}")
    for name, cpu in sorted(phases.cpu.items(), key=lambda kv: -kv[1]):
        lines.append(f"{name:<28} {cpu * per_game:>8.4f} {cpu / total:>6.1%} {phases.calls[name]:>6}")
    other = total - sum(phases.cpu.values())
    lines.append(f"{'(rounds, records)':<28} {other * per_game:>8.4f} {other / total:>6.1%}")
    decisions = {k: v for k, v in asks.cpu.items() if not k.startswith("strategy:")}
    alone = sum(v for k, v in asks.cpu.items() if k.startswith("strategy:"))
    lines += ["", f"decisions: {sum(decisions.values()) / total:.1%} of the time, strategy methods {alone / total:.1%}"]
    lines.append(f"{'decision':<28} {'ms/game':>8} {'share':>6} {'asks':>6} {'strategy':>9} {'calls':>6}")
    for name, cpu in sorted(decisions.items(), key=lambda kv: -kv[1]):
        strat = asks.cpu.get("strategy:" + name, 0.0)
        calls = asks.calls.get("strategy:" + name, 0)
        lines.append(
            f"{name:<28} {cpu * per_game:>8.4f} {cpu / total:>6.1%} {asks.calls[name]:>6} "
            f"{strat * per_game:>9.4f} {calls:>6}"
        )
    return "\n".join(lines)


def round_plays_per_second(rules: Rules, seats: list, batch: int, seed: int) -> float:
    """Rounds played per CPU-second by ``batch`` plain games of the table in one batch (``play_batch``, frames kept)."""
    ids = np.arange(batch, dtype=np.int64)
    cpu = time.process_time()
    state, _ = play_batch(rules, seats, seed, ids, seating(rules, len(seats), ids))
    return float(state.end_round.sum()) / (time.process_time() - cpu)


def _one_seat(rules: Rules, k: int, ids: np.ndarray, first: np.ndarray | int, offset: int = 1) -> np.ndarray:
    """The seating of ``k`` table strategies rotated (indices after ``offset`` others), seat ``game % N`` taking
    ``first`` (per game, or one index) instead."""
    at = seating(rules, k, ids) + offset
    at[np.arange(ids.size), ids % rules.players] = first
    return at


def copies_rate(rules: Rules, searcher, seats: list, batch: int, seed: int) -> float:
    """Rounds per CPU-second of plain play of the table the searcher's copies play, with no records (a copy keeps
    none): in each game one seat plays a candidate of its portfolio (each in turn), the others the table's seats."""
    search = searcher.lookahead
    made = [*search.candidates, *seats]
    ids = np.arange(batch, dtype=np.int64)
    k = len(search.candidates)
    at = _one_seat(rules, len(seats), ids, (ids // rules.players) % k, offset=k)
    table = engine.Table(rules, made, seed, ids, at, record=False)
    cpu = time.process_time()
    table.setup()
    while table.playing:
        table.play_round()
    state, _ = table.finish()
    return float(state.end_round.sum()) / (time.process_time() - cpu)


def searched(rules: Rules, searcher, seats: list, games: int, seed: int) -> tuple[float, object]:
    """(CPU seconds, the planner) of ``games`` games in one batch with ``searcher`` in seat ``game % N``."""
    from .lookahead import Planner

    ids = np.arange(games, dtype=np.int64)
    planner = Planner(rules, [searcher, *seats], seed)
    cpu = time.process_time()
    table = engine.Table(rules, planner.strategies, seed, ids, _one_seat(rules, len(seats), ids, 0), False, planner)
    table.setup()
    while table.playing:
        table.play_round()
    table.finish()
    return time.process_time() - cpu, planner


def lookahead_report(rules: Rules, searcher, seats: list, games: int, seed: int, batch: int, repeats: int = 1) -> str:
    """``games`` games with ``searcher`` in seat ``game % N`` and ``seats`` (rotated) elsewhere, in one batch,
    ``repeats`` times, interleaved with plain play of the table at batch ``batch`` and of the table its copies play
    (medians): its CPU time a game and the search's work in game-equivalents (a round a copy plays is 1/rounds of a
    game) per CPU-second, beside the two plain rates in the same unit."""
    from .lookahead import BATCH

    plain, copies, runs = [], [], []
    for i in range(repeats):
        plain.append(round_plays_per_second(rules, seats, batch, seed + i))
        copies.append(copies_rate(rules, searcher, seats, BATCH, seed + i))
        runs.append(searched(rules, searcher, seats, games, seed + i))
    spent, planner = sorted(runs, key=lambda r: r[0])[len(runs) // 2]
    rounds = rules.game.rounds
    work = planner.round_plays / rounds
    return "\n".join(
        [
            f"lookahead: {games} games, {searcher.label!r} in one seat, median of {repeats}: "
            f"{1000 * spent / games:.1f} CPU ms a game",
            f"  its copies: {planner.copies:,} played, {planner.round_plays:,} rounds = {work:,.0f} game-equivalents "
            f"({work / games:.0f} a game)",
            f"  game-equivalents per CPU-second: the search's work {work / spent:,.0f} (the whole run's CPU time); "
            f"plain play at batch {batch:,} {statistics.median(plain) / rounds:,.0f}; plain play of the copies' "
            f"table at batch {BATCH:,}, no frames, {statistics.median(copies) / rounds:,.0f}",
        ]
    )


END_TO_END = {
    "the README's run (2,000 games)": ["run"],
    "capital_formulas.toml --games 1000 --jobs 2": [
        "run",
        str(Path(__file__).resolve().parent.parent / "experiments" / "library" / "capital_formulas.toml"),
        "--games",
        "1000",
        "--jobs",
        "2",
    ],
}


CORES = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()  # before the bench pins itself


def on_every_core() -> None:
    """Undo the bench's pinning in a command it starts (``subprocess``'s ``preexec_fn``)."""
    os.sched_setaffinity(0, CORES)


def command_cpu_seconds(
    args: list[str], cache: Path | None = None, compile_: bool = False
) -> tuple[float, float, int, float | None]:
    """(CPU seconds of the whole process tree, wall seconds, processes that said they compiled the kernels, the peak
    memory in MiB of the largest process that played its games: its run.json's ``play_peak_mib``) of ``eastindia
    ARGS --quiet`` run in a fresh temporary folder (``cache``: the kernel cache it uses; ``compile_``: with
    ``EASTINDIA_KERNELS=1``, unless the kernels are off), on every core the bench was given (not the one it pinned
    itself to: a command on two jobs gets two cores)."""
    import json
    import resource
    import subprocess
    import tempfile

    env = dict(os.environ)
    if cache is not None:
        env[kernels.CACHE_ENV] = str(cache)
    if compile_ and kernels.ENABLED:
        env["EASTINDIA_KERNELS"] = "1"
    with tempfile.TemporaryDirectory() as where:
        code = "import sys; from experiments.cli import main; sys.argv[0] = 'eastindia'; sys.exit(main())"
        before, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", code, *args, "--out", str(Path(where) / "out"), "--quiet"],
            cwd=where,
            env=env,
            capture_output=True,
            text=True,
            preexec_fn=on_every_core if CORES else None,
        )
        wall = time.perf_counter() - wall
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            peak = json.loads((Path(where) / "out" / "run.json").read_text(encoding="utf-8")).get("play_peak_mib")
        except (OSError, ValueError):
            peak = None
    if done.returncode != 0:
        raise RuntimeError(f"eastindia {' '.join(args)} failed: {done.stderr.strip().splitlines()[-1:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.stderr.count("compiling the kernels"), peak


def end_to_end_report(repeats: int) -> str:
    """The CPU seconds of whole commands (``END_TO_END``): warm (the kernels cached, the calibration pilots' fits kept
    by an earlier run: a study run again), warm with the kept fits deleted first (its pilots played: a study's first
    run), and then each on an empty kernel cache (cold: a first run after an install, then one told to compile), with
    the number of processes that compiled the kernels (one at most)."""
    import shutil
    import tempfile

    def forgotten(args: list[str]) -> tuple[float, float, int, float | None]:  # the pilots' kept fits deleted first
        shutil.rmtree(kernels.cache_dir() / kernels.PILOTS, ignore_errors=True)
        return command_cpu_seconds(args)

    width = 72  # the longest label: the study's, warm with its pilots played

    def peak(values) -> str:  # the largest process that played, MiB ("-" where the system does not count it)
        known = [v for v in values if v is not None]
        return f"{max(known):>9.0f}" if known else f"{'-':>9}"

    lines = [f"{'whole command (every process)':<{width}} {'CPU-s':>7} {'wall s':>7} {'play MiB':>9}"]
    for name, args in END_TO_END.items():
        command_cpu_seconds(args, compile_=True)  # the kernels it runs cached for this engine, its pilots kept
        for how, run in (("warm", command_cpu_seconds), ("warm, its pilots played", forgotten)):
            times = [run(args) for _ in range(repeats)]
            cpu, wall = statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)
            lines.append(f"{name + ', ' + how:<{width}} {cpu:>7.1f} {wall:>7.1f} {peak(t[3] for t in times)}")
    for name, args in END_TO_END.items():
        for how, compile_ in (("cold (first run)", False), ("cold, EASTINDIA_KERNELS=1", True)):
            with tempfile.TemporaryDirectory() as cache:
                cpu, wall, compiled, played = command_cpu_seconds(args, Path(cache), compile_)
            lines.append(f"{name + ', ' + how:<{width}} {cpu:>7.1f} {wall:>7.1f} {peak([played])}")
            lines.append(f"  processes that compiled the kernels: {compiled} (each says so once)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m sim.bench", description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=5)
    p.add_argument("--strategy", nargs="+", default=["balanced"], help="one name, or a mix rotated over the seats")
    p.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024, 4096])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--min-games", type=int, default=24, help="games per timed run (at least one batch)")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--all-cores", action="store_true", help="do not pin the process to one core")
    p.add_argument("--profile", action="store_true", help="also print CPU time per phase and per decision")
    p.add_argument(
        "--lookahead", nargs="?", const="lookahead", metavar="SPEC", help="also time a searching seat (see above)"
    )
    p.add_argument("--lookahead-games", type=int, default=200, help="games played with the searching seat")
    p.add_argument("--end-to-end", action="store_true", help="also time whole eastindia commands (see above)")
    args = p.parse_args(argv)
    if kernels.MODE != "0":
        kernels.MODE = "1"  # the engine's figures are the compiled kernels' (compiled now if not cached)
    if not args.all_cores and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(CORES)})
    rules = Rules.default(args.players)
    try:
        make = strategy_registry()
        seats = [make(name) for name in args.strategy]
        searcher = make(args.lookahead) if args.lookahead else None
    except ValueError as err:  # an unknown name or parameter, no registry: one line
        print(f"error: {err}", file=sys.stderr)
        return 2
    if len(seats) == 1:
        seats = resolve_strategies(rules, seats[0])
    # warm up imports and caches, and the compiled kernels (loaded once per process) when a batch will run them
    min_games, loads = kernels.MIN_GAMES, max(args.sizes) >= kernels.MIN_GAMES
    warm = np.arange(64 if loads else 8, dtype=np.int64)
    kernels.MIN_GAMES = 0 if loads else min_games
    play_batch(rules, seats, args.seed, warm, seating(rules, len(seats), warm))
    kernels.MIN_GAMES = min_games
    mix = " ".join(args.strategy)
    print(f"{args.players} players, strategy {mix!r}, median of {args.repeats} runs, one core")
    print(f"{'':>16} {'engine alone (play_batch)':^34} {'sim.play, frames':>16}")
    print(
        f"{'batch':>6} {'games/run':>9} {'games/CPU-s':>11} {'games/s':>10} {'speed-up':>9} {'games/CPU-s':>16}"
        f" {'peak MiB':>9}"
    )
    base = None
    for size in args.sizes:
        games = max(size, args.min_games)
        rates = [games_per_second(rules, seats, size, games, args.seed + i) for i in range(args.repeats)]
        cpu, wall = statistics.median(r[0] for r in rates), statistics.median(r[1] for r in rates)
        with_frames = statistics.median(
            frames_per_second(rules, seats, size, games, args.seed + i) for i in range(args.repeats)
        )
        base = base or cpu
        mem = peak_memory_mib(rules, seats, size, args.seed)
        print(
            f"{size:>6} {games:>9} {cpu:>11.1f} {wall:>10.1f} {cpu / base:>8.1f}x {with_frames:>16.1f} {mem:>9.1f}",
            flush=True,
        )
    if args.profile:
        print()
        print(profile_table(rules, seats, max(args.sizes), args.seed))
    if searcher is not None:
        table = list(dict.fromkeys(seats))
        print()
        print(lookahead_report(rules, searcher, table, args.lookahead_games, args.seed, max(args.sizes), args.repeats))
    if args.end_to_end:
        print()
        print(end_to_end_report(args.repeats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
