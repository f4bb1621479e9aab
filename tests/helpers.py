"""Hand-built positions for rule tests: a blank batch, scripted strategies and scripted dice, and the helpers
several rule files share (a law's effects applied, scripted note deals, a longer map)."""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from sim import laws, ledger
from sim import layout as L
from sim.agents import Agents
from sim.dice import ScriptedDice, Streams
from sim.rules import Rules
from sim.state import State, new_state
from strategies import Strategy

# Under mutation testing (mutmut sets MUTANT_UNDER_TEST in its workers) the whole-game tests play fewer games, so
# that a module's mutants finish in minutes; the hand-built rule tests are unchanged (docs/guide.md, "Development").
MUTATING = bool(os.environ.get("MUTANT_UNDER_TEST"))


def games(n: int, under_mutation: int) -> int:
    """``n`` games normally, ``under_mutation`` games in a mutation-testing worker."""
    return under_mutation if MUTATING else n


DECISIONS = [name for name, fn in vars(Strategy).items() if callable(fn) and not name.startswith("_")]


class Scripted(Strategy):
    """The base strategy with some decisions replaced: ``Scripted(take_loans=lambda obs, legal: ...)``.

    Every call is logged in ``calls`` as (decision, global game ids, seats) so tests can assert who was asked."""

    name = "scripted"

    def __init__(self, **decisions: Callable):
        self.calls: list[tuple[str, list[int], list[int]]] = []
        for decision in DECISIONS:
            fn = decisions.pop(decision, None) or getattr(Strategy, decision).__get__(self)
            setattr(self, decision, self._logged(decision, fn))
        if decisions:
            raise AttributeError(f"not decisions: {sorted(decisions)}")

    def _logged(self, decision: str, fn: Callable) -> Callable:
        def call(obs, legal):
            self.calls.append((decision, obs.games.tolist(), obs.seat.tolist()))
            return fn(obs, legal)

        return call

    def asked(self, decision: str) -> list[tuple[list[int], list[int]]]:
        return [(g, s) for d, g, s in self.calls if d == decision]


def const(*values) -> Callable:
    """A decision answering the same value(s) in every game it is asked about."""

    def answer(obs, legal):
        out = tuple(np.repeat(np.asarray(v)[None, ...], obs.n, axis=0) for v in values)
        return out if len(out) > 1 else out[0]

    return answer


def blank(games: int = 1, players: int = 5, rules: Rules | None = None, **overrides) -> tuple[Rules, State]:
    """The start position before the auction: nobody holds anything, every relative at home."""
    rules = rules or Rules.default(players)
    if overrides:
        rules = rules.with_overrides(overrides)
    return rules, new_state(rules, np.arange(games))


def agents(rules: Rules, state: State, strategy: Strategy | list[Strategy] | None = None) -> Agents:
    n = rules.players
    seats = strategy if isinstance(strategy, list) else [strategy or Strategy()] * n
    return Agents(seats, rules, Streams(0, state.game, 1 + n))


def dice(faces: dict[int, list[int]] | None = None, uniforms: dict[int, list[float]] | None = None) -> ScriptedDice:
    return ScriptedDice(faces, uniforms)


def fund(state: State, seat: int, amount: int, games=slice(None)) -> None:
    """Give a family money through the ledger (so the money-conservation invariant keeps holding)."""
    amounts = np.zeros(state.money.shape, dtype=np.int64)
    amounts[games, seat] = amount
    ledger.families(state, "starting_capital", amounts)


def seat_office(state: State, office: int, seat: int, games=slice(None)) -> None:
    """Put a relative of ``seat`` in ``office`` (taken from his supply)."""
    state.office[games, office] = seat
    state.supply[games, seat] -= 1


def give(state: State, field: str, seat: int, amount: int, col=None, games=slice(None), from_supply=True) -> None:
    """Place ``amount`` relatives (or items) of ``seat`` in ``field`` (column ``col``)."""
    arr = getattr(state, field)
    if col is None:
        arr[games, seat] += amount
    else:
        arr[games, seat, col] += amount
    if from_supply:
        state.supply[games, seat] -= amount


def passes(r, s, name, d=None, strat=None, when="on_pass", policy=-1, impeach=-1):
    """Apply law ``name``'s ``when`` effects in every game."""
    g, rules_law = s.n_games, r.d.law_names.index(name)
    ctx = SimpleNamespace(pm=s.prime_minister.astype(int), policy=np.full(g, policy), impeach=np.full(g, impeach))
    laws.apply_effects(s, r, d or dice(), agents(r, s, strat), np.full(g, rules_law), np.ones(g, bool), when, ctx)


def offers(table):
    """``offer_notes`` from {seller: [(issuer, kind, buyer, price), ...]}."""

    def answer(obs, legal):
        buyer = np.full(legal.held.shape, -1)
        price = np.zeros(legal.held.shape, dtype=int)
        for i, seat in enumerate(obs.seat):
            for issuer, kind, to, p in table.get(int(seat), []):
                buyer[i, issuer, kind], price[i, issuer, kind] = to, p
        return buyer, price

    return answer


def accepts(table):
    """``accept_notes`` from {buyer: [(issuer, kind), ...]} (accepted if offered)."""

    def answer(obs, legal):
        out = np.zeros(legal.offered.shape, dtype=bool)
        for i, seat in enumerate(obs.seat):
            for issuer, kind in table.get(int(seat), []):
                out[i, issuer, kind] = True
        return out

    return answer


def chained_bombay_map(extra: int) -> Rules:
    """The default map with ``extra`` more Bombay orders Extra1..ExtraN chained one after another to Bombay3."""
    raw = copy.deepcopy(Rules.default().raw)
    orders = raw["map"]["orders"]
    bombay3 = next(o for o in orders if o["name"] == "Bombay3")
    bombay3["links"] = [*bombay3["links"], "Extra1"]
    for i in range(1, extra + 1):
        links = [f"Extra{j}" for j in (i - 1, i + 1) if 1 <= j <= extra] + (["Bombay3"] if i == 1 else [])
        orders.append({"name": f"Extra{i}", "region": "Bombay", "value": 1, "half": 0, "links": links})
    return Rules.from_dict(raw)


__all__ = [
    "L",
    "MUTATING",
    "games",
    "Scripted",
    "agents",
    "blank",
    "const",
    "dice",
    "fund",
    "give",
    "seat_office",
    "passes",
    "offers",
    "accepts",
    "chained_bombay_map",
]


class CtrlCAfter:
    """A study's progress that raises Ctrl-C at the ``n``-th advance of the games played (a user's interruption)."""

    def __init__(self, n: int):
        self.n, self.seen = n, 0

    def points(self, points, games):
        pass

    def start(self, done):
        pass

    def advance(self, arm, games):
        self.seen += 1
        if self.seen == self.n:
            raise KeyboardInterrupt


def run_folder(tmp: Path, text: str) -> Path:
    """``tmp/run``: a finished run folder of the experiment ``text`` (TOML, written to ``tmp/exp.toml``), one job."""
    from experiments import runner, spec

    (tmp / "exp.toml").write_text(text)
    runner.run(spec.load(tmp / "exp.toml"), tmp / "run", jobs=1)
    return tmp / "run"


def command(capsys, *args) -> tuple[int, str, str]:
    """``eastindia ARGS`` run in this process: (exit code, stdout, stderr)."""
    from experiments import cli

    code = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def study_trials(run_dir: Path) -> list:
    """The finished trials of the tune study in ``run_dir`` (its ``study.db``)."""
    from experiments import tune

    study = tune.open_study(run_dir)
    try:
        return tune.finished(study)
    finally:
        tune.close_study(study)
