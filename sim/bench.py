"""Benchmark: ``python -m sim.bench`` plays 5-player games at batch sizes 1, 64, 1024 and 4096 on one core and
prints games/s (median of the repeats), the per-game speed-up over batch 1, and the peak memory of a batch.

Speed is measured here, never asserted in a unit test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tracemalloc

import numpy as np

from .engine import play_batch, resolve_strategies
from .rules import Rules


def games_per_second(rules: Rules, seats: list, batch: int, games: int, seed: int) -> float:
    start = time.perf_counter()
    for first in range(0, games, batch):
        ids = np.arange(first, min(first + batch, games), dtype=np.int64)
        play_batch(rules, seats, seed, ids)
    return games / (time.perf_counter() - start)


def peak_memory_mib(rules: Rules, seats: list, batch: int, seed: int) -> float:
    tracemalloc.start()
    play_batch(rules, seats, seed, np.arange(batch, dtype=np.int64))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m sim.bench", description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=5)
    p.add_argument("--strategy", default="balanced")
    p.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024, 4096])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--min-games", type=int, default=24, help="games per timed run (at least one batch)")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--all-cores", action="store_true", help="do not pin the process to one core")
    args = p.parse_args(argv)
    if not args.all_cores and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    rules = Rules.default(args.players)
    seats = resolve_strategies(rules, args.strategy)
    play_batch(rules, seats, args.seed, np.arange(8))  # warm up imports and caches
    print(f"{args.players} players, strategy {args.strategy!r}, median of {args.repeats} runs, one core")
    print(f"{'batch':>6} {'games/run':>9} {'games/s':>10} {'speed-up':>9} {'peak MiB':>9}")
    base = None
    for size in args.sizes:
        games = max(size, args.min_games)
        rates = [games_per_second(rules, seats, size, games, args.seed + i) for i in range(args.repeats)]
        rate = statistics.median(rates)
        base = base or rate
        mem = peak_memory_mib(rules, seats, size, args.seed)
        print(f"{size:>6} {games:>9} {rate:>10.1f} {rate / base:>8.1f}x {mem:>9.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
