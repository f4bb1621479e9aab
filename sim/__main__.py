"""``python -m sim``: play a batch of games on the embedded default rules and print a short summary."""

from __future__ import annotations

import argparse
import sys
import time

import polars as pl

from . import play
from .agents import IllegalDecision
from .engine import PlayError
from .rules import Rules, RulesError


def summary(res) -> str:
    g, s = res.games, res.seats
    lines = [
        f"games: {g.height}   crash rate: {g['crashed'].mean():.1%}   mean end round: {g['end_round'].mean():.2f}",
    ]
    by_seat = s.group_by("seat", "strategy").agg(
        pl.col("winner").mean().alias("win_rate"),
        pl.col("vp").mean().alias("mean_vp"),
        pl.col("starting_capital").mean().alias("capital"),
    )
    lines.append(str(by_seat.sort("seat")))
    sources = [c for c in s.columns if c.startswith("vp_")]
    lines.append(str(s.select([pl.col(c).mean().round(2) for c in sources])))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m sim", description=__doc__.splitlines()[0].strip("`"))
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--players", type=int, default=5)
    p.add_argument("--strategy", nargs="+", default=["balanced"], help="one name, or one per seat")
    p.add_argument("--rules", help="a rules TOML file (default: the embedded rules)")
    args = p.parse_args(argv)
    try:
        rules = Rules.from_toml(args.rules, players=args.players) if args.rules else Rules.default(args.players)
        strategies = args.strategy[0] if len(args.strategy) == 1 else args.strategy
        start = time.perf_counter()
        res = play(rules, strategies, args.games, args.seed)
    except (RulesError, PlayError, IllegalDecision, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - start
    print(f"{args.games} games, {rules.players} players, seed {args.seed}: {args.games / elapsed:.0f} games/s")
    print(summary(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
