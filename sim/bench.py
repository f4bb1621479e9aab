"""Benchmark: ``python -m sim.bench`` plays 5-player games at batch sizes 1, 64, 1024 and 4096 on one core and
prints games/s (median of the repeats), the per-game speed-up over batch 1, and the peak memory of a batch.

``--strategy NAME`` seats one strategy everywhere (default ``balanced``); several names seat a mix rotated over the
seats as experiments do (game i seats names[(s + i) % k] in seat s): ``--strategy bid_low buy_shares run_firm
go_military balanced``. Speed is measured here, never asserted in a unit test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tracemalloc

import numpy as np

import strategies

from .engine import play_batch, resolve_strategies
from .rules import Rules


def seating(rules: Rules, k: int, ids: np.ndarray) -> np.ndarray:
    """int[G, N] the seating of k strategies rotated over the seats (k = players, one per seat: the identity for a
    single strategy, which ``resolve_strategies`` repeats in every seat)."""
    return (np.arange(rules.players)[None, :] + (ids % k)[:, None]) % k


def games_per_second(rules: Rules, seats: list, batch: int, games: int, seed: int) -> float:
    start = time.perf_counter()
    for first in range(0, games, batch):
        ids = np.arange(first, min(first + batch, games), dtype=np.int64)
        play_batch(rules, seats, seed, ids, seating(rules, len(seats), ids))
    return games / (time.perf_counter() - start)


def peak_memory_mib(rules: Rules, seats: list, batch: int, seed: int) -> float:
    tracemalloc.start()
    ids = np.arange(batch, dtype=np.int64)
    play_batch(rules, seats, seed, ids, seating(rules, len(seats), ids))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m sim.bench", description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=5)
    p.add_argument("--strategy", nargs="+", default=["balanced"], help="one name, or a mix rotated over the seats")
    p.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024, 4096])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--min-games", type=int, default=24, help="games per timed run (at least one batch)")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--all-cores", action="store_true", help="do not pin the process to one core")
    args = p.parse_args(argv)
    if not args.all_cores and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    rules = Rules.default(args.players)
    try:
        seats = [strategies.make(name) for name in args.strategy]
    except (strategies.UnknownStrategy, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if len(seats) == 1:
        seats = resolve_strategies(rules, seats[0])
    warm = np.arange(8, dtype=np.int64)
    play_batch(rules, seats, args.seed, warm, seating(rules, len(seats), warm))  # warm up imports and caches
    mix = " ".join(args.strategy)
    print(f"{args.players} players, strategy {mix!r}, median of {args.repeats} runs, one core")
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
