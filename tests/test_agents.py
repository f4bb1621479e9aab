"""``Agents.ask_seats``: the seats of a simultaneous decision asked in one call per strategy object. A built-in
strategy sees a game once per seat asked in one call; a plugin is asked seat by seat and never sees a game twice;
an illegal answer or a raise from one seat of a merged call is still one line naming the strategy, seat and game.
The legal options a strategy is handed (``Agents.ask`` and ``ask_seats``) are its own copies, and nothing it is handed
(observation, random stream, rules, legal options) leads to the engine's state, streams, rules or arrays: a plugin
that changes all it can reach plays the same games as one that does not. ``Agents.ask`` asks each seat through its
own strategy with the rows of the games it decides; an observation refuses the fields it hides."""

import contextlib
import copy
import dataclasses
import functools
import types
import weakref
from types import SimpleNamespace

import numpy as np
import pytest
from helpers import DECISIONS, L, Scripted, agents, blank, const, dice, seat_office

import strategies
from sim.agents import Agents, IllegalDecision, Observation, StrategyError, StrategyRandom
from sim.dice import Streams
from sim.engine import play_batch, resolve_strategies
from sim.phases.family import take_actions
from sim.phases.operations import chairman
from sim.rules import Rules
from sim.state import State, new_state
from strategies import Strategy

GAMES = np.arange(100, 106)  # global game ids, not the batch positions


def _families_act(strategy):
    """Every family of six fresh 4-player games (global ids 100..105) takes its phase-2 action."""
    r = blank(1, 4)[0]
    s = new_state(r, GAMES)
    take_actions(s, r, agents(r, s, strategy), np.ones(s.money.shape, dtype=bool))
    return s


def _record(calls, answer):
    def family_action(self, obs, legal):
        calls.append((obs.games.tolist(), obs.seat.tolist()))
        return answer(self, obs, legal)

    return family_action


def test_a_plugin_is_asked_seat_by_seat_and_never_sees_a_game_twice(monkeypatch):
    plugin = Scripted()  # a strategy defined outside the strategies package
    _families_act(plugin)
    calls = plugin.asked("family_action")
    assert [seats for _, seats in calls] == [[s] * GAMES.size for s in range(4)]
    assert all(games == GAMES.tolist() for games, _ in calls)
    # a built-in strategy object at every seat answers every (game, seat) in one call, game by game
    merged = []
    monkeypatch.setattr(strategies.Strategy, "family_action", _record(merged, strategies.Strategy.family_action))
    _families_act(strategies.Strategy())
    assert merged == [(np.repeat(GAMES, 4).tolist(), [0, 1, 2, 3] * GAMES.size)]


def test_one_seats_illegal_answer_in_a_merged_call_names_its_strategy_seat_and_game(monkeypatch):
    """Seat 2 of game 103 (the 15th row of the one call) buys a luxury it cannot afford; the rest pass."""
    calls = []

    def answer(self, obs, legal):
        act = np.where((obs.games == 103) & (obs.seat == 2), L.A_LUXURY, L.A_PASS)
        return act, np.zeros(obs.n, dtype=bool), np.zeros((obs.n, 2), dtype=np.int64)

    monkeypatch.setattr(strategies.Strategy, "family_action", _record(calls, answer))
    with pytest.raises(IllegalDecision) as err:
        _families_act(strategies.Strategy())
    assert str(err.value) == (
        "strategy 'balanced' (seat 2) made an illegal 'family_action' in game 103: "
        "action not affordable or not allowed (twice only repeats last round's action)"
    )
    assert len(calls) == 1 and len(calls[0][0]) == 4 * GAMES.size  # one merged call


def test_one_seats_raise_in_a_merged_call_names_its_seat_and_game(monkeypatch):
    """The strategy raises when asked about seat 1 of game 104; asked alone, the other rows answer."""
    calls = []

    def answer(self, obs, legal):
        if ((obs.games == 104) & (obs.seat == 1)).any():
            raise ValueError("no action\nfor him")
        return np.zeros(obs.n, dtype=np.int64), np.zeros(obs.n, dtype=bool), np.zeros((obs.n, 2), dtype=np.int64)

    monkeypatch.setattr(strategies.Strategy, "family_action", _record(calls, answer))
    with pytest.raises(StrategyError) as err:
        _families_act(strategies.Strategy())
    assert str(err.value) == (
        "strategy 'balanced' (seat 1) raised ValueError: no action for him in 'family_action' at game 104"
    )
    assert len(calls[0][0]) == 4 * GAMES.size  # asked first in one merged call


@pytest.mark.parametrize("seats", [False, True])
def test_the_legal_options_are_a_namespace_of_the_strategys_own_arrays(seats):
    """``legal`` of the rows asked: every field in ``vars(legal)`` (a copy is a plain namespace), an unknown name an
    AttributeError; writing into every array changes nothing the engine reads (the check sees its own options)."""
    r, s = blank(4, 4)
    limit, table, held = np.arange(4) * 10, np.arange(3), np.arange(32).reshape(4, 4, 2)
    kept = [a.copy() for a in (limit, table, held)]
    handed, checked = [], []

    def vandal(obs, legal):
        assert legal.limit is legal.limit
        assert sorted(vars(legal)) == (["held", "limit", "table", "word"] if seats else ["limit", "table", "word"])
        assert vars(copy.copy(legal)) == vars(legal) and type(copy.copy(legal)) is SimpleNamespace
        with pytest.raises(AttributeError):
            legal.nothing  # noqa: B018
        handed.append({k: v.copy() if isinstance(v, np.ndarray) else v for k, v in vars(legal).items()})
        for value in vars(legal).values():
            if isinstance(value, np.ndarray):
                value[...] = -1
        return np.zeros(obs.n, dtype=np.int64)

    def check(answer, legal, obs):
        games = obs.games  # the batch positions (blank games are numbered from 0)
        assert (legal.limit == kept[0][games]).all() and (legal.table == kept[1]).all() and legal.word == "x"
        if seats:
            assert (legal.held == kept[2][games, obs.seat]).all()
        checked.append(obs.n)
        return np.zeros(obs.n, dtype=bool), ""

    legal = {"limit": limit, "table": table, "word": "x"}
    if seats:
        asked = np.array([[1, 0, 1, 0], [0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 0, 0]], dtype=bool)
        out = (np.zeros((4, 4), dtype=np.int64),)
        agents(r, s, Scripted(vote=vandal)).ask_seats("vote", s, asked, legal, {"held": held}, out, check)
    else:
        out = (np.zeros(4, dtype=np.int64),)
        agents(r, s, Scripted(take_loans=vandal)).ask("take_loans", s, np.array([0, -1, 2, 1]), legal, out, check)
        agents(r, s, Scripted(take_loans=vandal)).ask("take_loans", s, np.array([0, 3, 2, 1]), legal, out, check)
    assert all((a == b).all() for a, b in zip((limit, table, held), kept, strict=True))  # the engine's, untouched
    assert handed and len(checked) == len(handed)
    assert all((h["table"] == kept[1]).all() for h in handed)


def test_an_observation_gives_a_field_at_some_of_its_rows_as_read_whole():
    """``Observation._field_at`` (a game's values computed on one row per game): the field at those rows, the same
    whether the whole field was read before or not, read-only, and no field that is not public."""
    r, s = blank(4, 5)
    s.money[:] = np.arange(20).reshape(4, 5)
    idx, seat, at = np.array([3, 3, 1, 0]), np.array([0, 2, 1, 4]), np.array([1, 3])
    obs = Observation(s, r, idx, seat, None)
    before = obs._field_at("money", at)
    assert before.tolist() == [s.money[3].tolist(), s.money[0].tolist()] and not before.flags.writeable
    assert np.array_equal(obs.money[at], before) and np.array_equal(obs._field_at("money", at), before)
    with pytest.raises(AttributeError):
        obs._field_at("_rows", at)


def test_an_observation_gives_the_deciding_seats_entries_of_a_field_as_read_whole():
    """``Observation.own``: each row's deciding seat's entries of a field with a seat axis, the same as
    ``obs.mine(obs.<field>)`` whether the field was read whole before or not; a field without a seat axis has none."""
    r, s = blank(4, 5)
    s.money[:] = np.arange(20).reshape(4, 5)
    s.clerks[:] = np.arange(60).reshape(4, 5, 3)
    idx, seat = np.array([3, 3, 1, 0]), np.array([0, 2, 1, 4])
    obs = Observation(s, r, idx, seat, None)
    assert obs.own("money").tolist() == [15, 17, 6, 4]
    assert np.array_equal(obs.own("clerks"), s.clerks[idx, seat])
    whole = Observation(s, r, idx, seat, None)
    assert np.array_equal(whole.mine(whole.clerks), whole.own("clerks"))
    with pytest.raises(AttributeError, match="seat axis"):
        obs.own("stability")


def test_each_seat_is_asked_through_its_own_strategy():
    """Seat 0 and seat 1 play different strategies: seat 0's decision goes to seat 0's strategy."""
    r, s = blank(2, 4)
    seat_office(s, L.CHAIRMAN, 0, games=0)
    seat_office(s, L.CHAIRMAN, 1, games=1)
    first, other = Scripted(take_loans=const(1)), Scripted(take_loans=const(2))
    a = Agents([first, other, other, other], r, Streams(0, s.game, 5))
    chairman(s, r, dice(), a)
    assert first.asked("take_loans") == [([0], [0])] and other.asked("take_loans") == [([1], [1])]
    assert s.loans.tolist() == [1, 2]


def test_ask_slices_batch_arrays_and_passes_constants_whole():
    """``Agents.ask`` hands a strategy the rows of the games it decides: a legal array with a row per game is cut to
    those rows (the game whose seat is -1 is left out), a constant and an array of another length pass whole, and
    without streams the observation has no random stream."""
    r, s = blank(3, 4)
    seen = {}

    def take_loans(obs, legal):
        seen.update(games=obs.games.tolist(), per_game=legal.per_game.tolist(), const=legal.const)
        seen.update(table=legal.table.tolist(), rng=obs.rng is not None)
        return np.zeros(obs.n, dtype=np.int64)

    a = Agents([Scripted(take_loans=take_loans)] * 4, r, None)
    legal = {"per_game": np.array([10, 11, 12]), "const": 7, "table": np.arange(4)}
    a.ask("take_loans", s, np.array([-1, 2, 0]), legal, (np.zeros(3, dtype=np.int64),))
    assert seen == {"games": [1, 2], "per_game": [11, 12], "const": 7, "table": [0, 1, 2, 3], "rng": False}


def test_observation_refuses_hidden_fields_by_name_and_defaults():
    """An observation refuses a field it hides by its name (``ledger``), and has no random stream when given none; a
    strategy's random stream draws one number per game by default."""
    r, s = blank(1, 4)
    obs = Observation(s, r, np.array([0]), np.array([2]), None)
    assert obs.rng is None and obs.seat.tolist() == [2]
    with pytest.raises(AttributeError, match="^observation has no field 'ledger'$"):
        obs.ledger  # noqa: B018
    rng = StrategyRandom(Streams(1, np.arange(2), 2), np.arange(2), np.zeros(2, dtype=np.int64))
    assert rng.uniform().shape == (2, 1)


# ------------------------------------------------------------------------------ what a strategy can reach
_ATOMS = (type, types.ModuleType, str, bytes, int, float, complex, type(None), np.generic)


def _edges(x):
    """The objects ``x`` leads to: its attributes (instance dict, slots, what ``dir`` names), a function's closure,
    defaults and ``__wrapped__``, a bound method's ``__self__`` and ``__func__``, a partial's parts, a container's
    items, an array's ``.base``, a memoryview's ``.obj``. Not a function's ``__globals__`` (the modules, which any
    code can import) nor classes."""
    if isinstance(x, np.ndarray):
        return [x.base]
    if isinstance(x, memoryview):
        return [x.obj]
    if isinstance(x, dict):
        return [*x.keys(), *x.values()]
    if isinstance(x, list | tuple | set | frozenset):
        return list(x)
    if isinstance(x, types.CellType):
        try:
            return [x.cell_contents]
        except ValueError:
            return []
    if isinstance(x, weakref.ref):
        return [x()]
    out = []
    if isinstance(x, types.FunctionType):
        out += [*(x.__closure__ or ()), x.__defaults__, x.__kwdefaults__, x.__dict__]
    if isinstance(x, functools.partial):
        out += [x.func, x.args, x.keywords]
    names = ["__self__", "__func__", "__wrapped__", "__closure__", "__dict__"]
    if not dataclasses.is_dataclass(x):  # a dataclass's fields are in its __dict__ (the rules' many sections)
        names += [name for name in dir(x) if not name.startswith("__")]
    for name in names:
        with contextlib.suppress(Exception):  # a field the object refuses is no route
            out.append(getattr(x, name))
    for cls in type(x).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            out.append(getattr(x, name, None))
    return out


def _reach(*roots):
    """{id: (object, path)} of everything reachable from ``roots`` along ``_edges``."""
    seen = {}
    stack = [(root, f"root{i}") for i, root in enumerate(roots)]
    while stack:
        x, path = stack.pop()
        if id(x) in seen or isinstance(x, _ATOMS):
            continue
        seen[id(x)] = (x, path)
        stack.extend((y, f"{path}>{type(y).__name__}") for y in _edges(x))
    return seen


def _engines(agents, state, *arrays):
    """{id: object} of the engine's writeable objects: the state and its arrays, the streams and theirs, the
    rules' mutable parts (sections, dicts, arrays), the table and ``arrays``."""
    rules, stack = {}, [agents.rules]
    while stack:  # the rules' own parts: attributes and items, no methods
        x = stack.pop()
        if id(x) in rules or isinstance(x, _ATOMS):
            continue
        if not isinstance(x, tuple | frozenset):
            rules[id(x)] = x
        if isinstance(x, dict):
            stack += [*x.keys(), *x.values()]
        elif isinstance(x, list | tuple | set | frozenset):
            stack += list(x)
        elif hasattr(x, "__dict__") and not isinstance(x, np.ndarray):
            stack.append(vars(x))
    objects = [state, *vars(state).values(), agents, agents.streams, *vars(agents.streams).values(), *arrays]
    return {**rules, **{id(x): x for x in objects}}


def _routes(reached, engine):
    """The paths by which ``reached`` (``_reach``) leads to the engine's objects or into their memory."""
    arrays = [x for x in engine.values() if isinstance(x, np.ndarray)]
    bad = []
    for i, (x, path) in reached.items():
        shares = isinstance(x, np.ndarray) and any(np.may_share_memory(x, a) for a in arrays)
        if i in engine or isinstance(x, State | Streams | Agents) or shares:
            bad.append(path)
    return bad


def test_nothing_a_strategy_is_handed_leads_to_the_engines_state_streams_rules_or_arrays():
    """Inside a call, everything reachable from the observation, its random stream, its rules and the legal options
    (attributes, ``__dict__``, slots, closures, bound methods, ``.base``) is the strategy's own: not the state, the
    streams or the table, no array sharing memory with the engine's (state, streams, rules, legal options, answer),
    no section or dict of the engine's rules. The routes a plugin used: ``obs._rows.__closure__`` (the state),
    ``obs.rng``'s closure (the streams), ``legal._field``'s closure (the engine's options)."""
    r, s = blank(4, 4)
    s.money[:] = np.arange(16).reshape(4, 4)
    limit, held = np.arange(4) * 10, np.arange(32).reshape(4, 4, 2)
    out = (np.zeros(4, dtype=np.int64),)
    found, handed = [], []

    def look(obs, legal):
        obs.money, obs.own("clerks"), legal.limit, obs.rng.uniform(2)  # noqa: B018 - read: cached on the objects
        found.append(_routes(_reach(obs, legal, obs.rng, obs.rules), _engines(table, s, limit, held, *out)))
        handed.append(obs.rules)
        return np.zeros(obs.n, dtype=np.int64)

    table = agents(r, s, Scripted(take_loans=look, vote=look))
    table.ask("take_loans", s, np.array([0, -1, 2, 1]), {"limit": limit, "word": "x"}, out)
    votes = (np.zeros((4, 4), dtype=np.int64),)
    asked = np.array([[1, 0, 1, 0], [0, 0, 0, 0], [1, 1, 1, 1], [0, 1, 0, 0]], dtype=bool)
    out += votes
    table.ask_seats("vote", s, asked, {"limit": limit}, {"held": held}, votes)
    assert len(found) == 1 + 4 and found == [[]] * 5  # one call, then a plugin's seats one by one: none leads out
    # the plugin's rules: its own copy (not the engine's, nor the one this package's strategies share), whose arrays
    # cannot be made writeable (their memory is immutable bytes)
    assert all(rules is handed[0] for rules in handed)
    assert handed[0] is not table.rules and handed[0] is not table.shown_rules and handed[0] == table.rules
    with pytest.raises(ValueError):
        handed[0].d.adjacent.setflags(write=True)


def _vandalise(*roots):
    """Change everything reachable from ``roots`` (``_reach``) that will change: every array that can be made
    writeable (+1, a bool inverted), every number of a dataclass (the rules' sections) and of a dict (+1)."""
    for x, _ in list(_reach(*roots).values()):
        if isinstance(x, np.ndarray) and x.dtype.kind in "biuf":
            try:
                x.setflags(write=True)
            except ValueError:  # memory that cannot be written
                continue
            if x.dtype == bool:
                np.logical_not(x, out=x)
            else:
                x += x.dtype.type(1)
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            for f in dataclasses.fields(x):
                value = getattr(x, f.name)
                if isinstance(value, int | float) and not isinstance(value, bool):
                    object.__setattr__(x, f.name, value + 1)
        elif isinstance(x, dict):
            for k, value in list(x.items()):
                if isinstance(value, int | float) and not isinstance(value, bool):
                    x[k] = value + 1


class _Plugin(Strategy):
    """The base strategy as a plugin, deciding from rules of its own (``Rules.default``, which nobody else holds)
    and answering with arrays of its own; ``vandal``: after answering, it changes everything it can reach from what
    it was handed (``_vandalise``)."""

    name = "plugin"

    def __init__(self, vandal: bool, rules):
        self.depth = 0  # a decision method may call another: only the engine's call answers
        for decision in DECISIONS:
            setattr(self, decision, self._decides(getattr(Strategy, decision).__get__(self), vandal, rules))

    def _decides(self, method, vandal, rules):
        def decide(obs, legal):
            if self.depth:
                return method(obs, legal)
            handed = obs.rules
            obs.rules, self.depth = rules, 1
            try:
                answer = method(obs, legal)
            finally:
                self.depth = 0
            answer = tuple(np.array(a) for a in answer) if isinstance(answer, tuple) else np.array(answer)
            obs.rules = handed  # and what it made of its own rules, it keeps out of harm's way:
            obs.__dict__.pop("_values", None)
            if vandal:
                _vandalise(obs, legal, obs.rng)
            return answer

        return decide


def test_a_plugin_that_changes_all_it_can_reach_plays_the_same_games_as_one_that_does_not():
    """Twenty 5-player games, the plugin in seat 0 (``_Plugin``) and the base strategy elsewhere: the plugin that
    changes every array, section and dict it can reach from what it is handed (the routes of
    ``test_nothing_a_strategy_is_handed_leads_to_the_engines_state_streams_rules_or_arrays``) plays exactly the
    games of the plugin that does not."""
    rules = Rules.default(5)
    ids = np.arange(20)
    results = []
    for vandal in (False, True):
        seats = resolve_strategies(rules, [_Plugin(vandal, Rules.default(5)), *["balanced"] * 4])
        state, rows = play_batch(rules, seats, 7, ids)
        results.append((state, rows))
    (calm, calm_rows), (vandal, vandal_rows) = results
    assert calm.winner.tolist() != [-1] * 20 and calm.round.max() > 1  # games were played
    for name, value in vars(calm).items():
        if isinstance(value, np.ndarray):
            assert np.array_equal(value, getattr(vandal, name)), name
    for frame in ("games", "seats"):
        mine, theirs = getattr(calm_rows, frame), getattr(vandal_rows, frame)
        assert mine.keys() == theirs.keys()
        assert all(np.array_equal(mine[k], theirs[k]) for k in mine), frame


def test_the_built_ins_answers_taken_unchecked_play_the_games_they_play_checked(monkeypatch):
    """A built-in strategy's answer is taken as returned (``agents.trusted``), unless EASTINDIA_CHECK_BUILTINS
    asks for the checks a plug-in always gets: 60 games of the archetypes and a plug-in play the same state and
    rows either way, and the plug-in alone is refused an illegal answer with the built-ins unchecked."""
    import sim.agents as agents_module

    rules = Rules.default(5)
    names = ["bid_low", "buy_shares", "run_firm", "go_military"]
    played = []
    for checked in (True, False):
        monkeypatch.setattr(agents_module, "CHECK_BUILTINS", checked)
        seats = resolve_strategies(rules, [*names, Scripted()])
        played.append(play_batch(rules, seats, 11, np.arange(60)))
    (state_a, rows_a), (state_b, rows_b) = played
    assert state_a.round.max() > 2  # games were played
    for name, value in vars(state_a).items():
        if isinstance(value, np.ndarray):
            assert np.array_equal(value, getattr(state_b, name)), name
    for frame in ("games", "seats"):
        assert all(np.array_equal(getattr(rows_a, frame)[k], getattr(rows_b, frame)[k]) for k in getattr(rows_a, frame))
    assert agents_module.trusted(strategies.make("balanced"), "family_action")
    assert not agents_module.trusted(Scripted(), "family_action")

    class Careless(strategies.Strategy):  # a plug-in's subclass of the built-in: its answers are checked
        def family_action(self, obs, legal):
            return np.full(obs.n, L.A_LUXURY), np.zeros(obs.n, dtype=bool), np.zeros((obs.n, 2), dtype=np.int64)

    Careless.__module__ = "bots.careless"
    assert not agents_module.trusted(Careless(), "family_action")
    with pytest.raises(IllegalDecision, match="made an illegal 'family_action'"):
        s = new_state(rules, np.arange(4))
        s.money[:] = 0
        take_actions(s, rules, agents(rules, s, Careless()), np.ones(s.money.shape, dtype=bool))
