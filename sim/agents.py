"""Decision points: how the engine asks strategies, and what a strategy sees.

A decision belongs to a seat that differs from game to game (the Chairman is seat 2 in one game, seat 4 in the
next). ``Agents.ask`` takes the deciding seat per game, groups the games by the strategy object sitting there, and
calls that strategy once per group with an ``Observation`` (public state of just those games, read-only copies)
and the legal options sliced to them. A plug-in's answer is checked (a built-in's too under
EASTINDIA_CHECK_BUILTINS=1, ``CHECK_BUILTINS``; else it is taken as returned); an illegal one raises
``IllegalDecision`` naming the strategy, the decision and the global game index; an exception raised by the strategy
becomes a ``StrategyError`` naming the strategy, seat, decision and game.
``Agents.ask_seats`` asks the seats of a decision all families make at once in one call per built-in strategy
(a row per game and seat asked); plugins are asked seat by seat.

Everything a strategy is handed is its own (a built-in's own method, ``trusted``, is handed the engine's rows of the
legal options rather than copies, and its answer is not checked): the observation's fields and the legal options are
new arrays, its rules are a copy of the engine's (``_sealed``) whose arrays cannot be made writeable, and nothing it
is handed leads to the engine's state, streams or arrays through an attribute, a closure or a bound method
(``Observation`` says what that covers and what it does not). The answer is checked against the engine's own legal
options and observation, made apart from the strategy's, so a strategy that writes into what it was handed changes
nothing but its copy. Both are gathered field by field when first read (``Observation``, ``Legal``): a field nobody
reads costs nothing, and a legal option read by the strategy and the check is gathered once (the strategy's is a
copy of the engine's rows).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import os
import traceback
import weakref
from collections.abc import Callable
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

from .dice import Streams, pick_with
from .reduce import sum_last

if TYPE_CHECKING:
    from strategies import Strategy

    from .rules import Rules
    from .state import State


class IllegalDecision(ValueError):
    """A strategy answered a decision with something the rules do not allow."""


class StrategyError(RuntimeError):
    """A strategy raised while answering a decision. The message is one line:
    ``strategy '<name>' (seat s) raised <Error>: <message> in '<decision>' at game g``; ``details`` holds the
    strategy's traceback (shown by ``eastindia --debug``). Pickles with its details across worker processes."""

    def __init__(self, message: str, details: str = ""):
        super().__init__(message)
        self.details = details

    def __reduce__(self):
        return (type(self), (str(self), self.details))


# What each field of the state is to the families (``sim.state.State``); a test checks that every field is in exactly
# one of these sets.
# Public: on the table, what a strategy may read (hidden bids never enter the state).
PUBLIC = frozenset(
    """round money supply clerks academy officers shares retired prisoners luxuries shipyards factories wealth
    trophies wreaths last_action prime_minister exchange office stress last_chair governor commander
    stability loans balance treasury share_vp royal_protection china_open deregulated regiments half_ships ships
    yard_ships owner strength unrest looted capital order_open order_filled taxed tally
    yard_damaged used_officers used_regiments elephant_at elephant_facing event_next
    policy ladder law_pile note_holder dereg_round market card_owner card_played emergency_total
    firm_manager firm_shares firm_value firm_cash firm_india firm_ships firm_damaged firm_sea firm_successes
    firm_dividend firm_carry firm_filled firm_fresh invested_factories""".split()
)
# Hidden from every family: the orders of the shuffled piles (the event tiles not drawn yet, the law deck, the
# position cards not drawn yet). What is public about them stays public: which tiles, laws and cards are left, how
# many were drawn (``event_cursor``, ``deck_top``), the next tile's back (``event_next``), the two parts of the event
# stack after a Shuffle tile (``event_block``). A fork made for a search redeals exactly these (``sim.forward.redeal``).
HIDDEN = frozenset({"event_stack", "law_rank", "deck"})
# Sealed: a family's secret choice of this round (a firm's trade strategy until the initiative roll reveals it), made
# afresh every round before it is read (phase 3 clears it): a fork made at a round's start holds none.
SEALED = frozenset({"firm_port", "firm_bid"})
# Neither a piece of the table nor hidden: the engine's bookkeeping, which nobody decides from (the game's key, its
# end, the per-round flags of the frames, the money's ledger, the families' counts for the seats frame, the setup's
# and the final scoring's records), and what everybody knows but strategies read elsewhere (the piles' counters; the
# Governor-General's half-built ship).
RECORDS = frozenset(
    """game done crashed end_round event_cursor event_block deck_top deposed law_passed card_taken card_played_now
    gg_half_ship ledger luxuries_bought firms_opened firms_bankrupt bid_total capital_exact capital_money leftover
    leftover_case vp influence blame winner""".split()
)


# A decision method with this attribute set answers nothing, always: the engine's default answer for every game
# (``out`` as the phase made it: no offer, no action), so the engine does not call it (a strategy's
# ``offer_exchange`` that never offers costs nothing). An overriding method has no such attribute.
PASSES = "passes"

# A decision method with this attribute set answers from its observation, its legal options and the strategy's
# attributes it names (the tuple held by the attribute: parameters such as ``trade_cost``, or methods), nothing else
# of the strategy. The seats of every strategy whose method for the decision is that same function, with equal
# values of those parameters and the same functions for those methods, are asked in one call (a table of archetypes
# that inherit it pays one call, not one per archetype). The method is called with a stand-in for the strategy that
# has the named attributes only, so one that reads another fails loudly. ``strategies.base.shared`` sets it; an
# overriding method has no such attribute.
SHARED = "shared"


def _method(strat: Strategy, name: str) -> Any:
    """What ``strat`` has as ``name``: a method's function (so two objects' inherited methods compare equal), else
    the attribute's value (a parameter)."""
    method = getattr(strat, name, None)
    return getattr(method, "__func__", method)


def _reads(strat: Strategy, decision: str) -> tuple[str, ...] | None:
    """The attributes of ``strat`` its ``shared`` method for ``decision`` reads; None for a method not shared (or
    a callable set on the object itself)."""
    method = getattr(strat, decision, None)
    if getattr(method, "__self__", None) is not strat:
        return None
    return getattr(method.__func__, SHARED, None)


def _answering(strat: Strategy, decision: str) -> Callable[[Observation, Legal], Any]:
    """What answers ``decision`` for ``strat``: its method; a ``shared`` one bound to a stand-in that has only the
    attributes it names."""
    reads = _reads(strat, decision)
    if reads is None:
        return getattr(strat, decision)
    return functools.partial(_method(strat, decision), _Reading(strat, decision, reads))


class _Reading:
    """What a ``shared`` method sees of the strategy it answers for: the attributes it names, nothing else."""

    __slots__ = ("_strategy", "_decision", "_names")

    def __init__(self, strategy: Strategy, decision: str, names: tuple[str, ...]):
        self._strategy, self._decision, self._names = strategy, decision, names

    def __getattr__(self, name: str) -> Any:
        if name in self._names:
            return getattr(self._strategy, name)
        raise AttributeError(
            f"the shared decision {self._decision!r} read the strategy's {name!r}, which it does not name "
            f"(strategies.base.shared reads: {', '.join(self._names) or 'nothing'})"
        )


# ``Agents.ask_seats`` asks the seats of a game in one call per strategy; False asks them one by one (the reference
# the tests compare it with).
MERGE = True

# Whether the answers of this package's strategies are checked like a plug-in's. A built-in strategy's method
# (``trusted``) answers legally by construction, so by default its answer is taken as returned, without the array
# checks, the engine's legality check and the copy of the legal options it is handed: about 6 % of a balanced game.
# The environment variable EASTINDIA_CHECK_BUILTINS=1 checks them too (the test suite does, tests/conftest.py), and
# a test plays the same games both ways, frame for frame. A plug-in's answers are always checked.
CHECK_BUILTINS = os.environ.get("EASTINDIA_CHECK_BUILTINS", "0") == "1"


class _Key:
    """An opaque key, compared by identity, with no attributes: what the objects handed to a strategy hold in place
    of the engine's state, streams and legal options, which ``_SOURCES`` keeps under it."""

    __slots__ = ("__weakref__",)

    def __copy__(self) -> _Key:  # a copy of an observation reads the same game
        return self

    def __deepcopy__(self, memo: dict) -> _Key:
        return self


# What each key stands for (the engine's objects a strategy's observation, random stream or legal options read),
# kept while the key lives: the object holding the key (``Observation``, ``StrategyRandom``, ``Legal``) reads
# through the functions below, never holding the engine's objects itself.
_SOURCES: weakref.WeakKeyDictionary[_Key, Any] = weakref.WeakKeyDictionary()


def _keyed(value: Any) -> _Key:
    """A new key standing for ``value``."""
    key = _Key()
    _SOURCES[key] = value
    return key


def _source(key: _Key) -> Any:
    """What ``key`` stands for."""
    try:
        return _SOURCES[key]
    except (KeyError, TypeError):
        raise AttributeError("this object no longer reads the game (it was not made by the engine)") from None


class StrategyRandom:
    """Random numbers for a strategy: each game draws from the stream of the seat deciding there. It holds a key
    (``_Key``) only: the engine's streams and the games and seats it draws for stay out of the strategy's reach."""

    __slots__ = ("_key",)

    def __init__(self, streams: Streams, idx: np.ndarray, seat: np.ndarray):
        self._key = _keyed((streams, np.add(seat, 1, dtype=np.int64), idx))

    def uniform(self, n: int = 1) -> np.ndarray:
        """float[G', n] in [0, 1)."""
        streams, stream, idx = _source(self._key)
        return streams.uniform(stream, idx, n)

    def choice(self, mask: np.ndarray) -> np.ndarray:
        """A uniformly random True column per row of a bool[G', K] mask (-1 where none)."""
        return pick_with(self.uniform(1)[:, 0], mask)

    def integers(self, low: np.ndarray, high: np.ndarray) -> np.ndarray:
        """Uniform integers in [low, high] inclusive, per game."""
        low, high = np.asarray(low), np.asarray(high)
        u = self.uniform(1)[:, 0]
        return low + np.minimum((u * (high - low + 1)).astype(np.int64), high - low)


def full_batch(g: int, rows: np.ndarray, values: Any, fill: Any, dtype: Any = np.int64) -> np.ndarray:
    """A full-batch array [G, ...] of ``values`` at games ``rows``, ``fill`` elsewhere: a question (or a legal
    option) worked out at the games it concerns only, handed to ``Agents.ask``, which takes full-batch arrays."""
    out = np.full((g, *np.shape(values)[1:]), fill, dtype=dtype)
    out[rows] = values
    return out


class Observation:
    """What the deciding seat sees in each of the games it is asked about (G' = len(games)): one row per game, or
    per (game, seat) pair asked (``Agents.ask_seats``: a game then has a row for each of its seats asked).

    ``obs.money`` etc. give public state fields restricted to these rows (copies); ``obs.seat`` is the deciding
    seat per row, ``obs.rules`` the rules, ``obs.rng`` the seat's random stream, ``obs.mine(x)`` picks the
    deciding seat's column of a [G', N, ...] field. ``obs.batch_rows`` int[G'] tells the rows of one game apart from
    another's (the game's place in the batch: copies of one game made for a search share its index ``games``, not
    this); it says nothing of the game and is never a reason to decide.

    What a strategy can reach from its observation is its own. The observation, its random stream
    (``StrategyRandom``) and the legal options (``Legal``) hold an opaque key (``_Key``) in place of the engine's
    state, streams and arrays; the module's functions read what the key stands for (``_gather``), so a field is
    still gathered only when first read. Its fields are new arrays owning their memory (read-only, ``own``'s
    excepted; no ``.base`` leads to the engine's), and so are the legal options and the random numbers; the seats
    and rows are copies; the rules it is handed (``Agents.rules_for``) are a copy whose arrays live in immutable
    bytes, the package's strategies sharing one and any other strategy object having its own, so a plugin that
    changes its rules changes what it alone sees. No attribute, ``__dict__``, slot, closure, ``__self__``,
    ``__func__``, ``__wrapped__`` or ``.base`` of these objects leads to the state or to an array the engine
    writes. Out of scope (Python hides nothing from code running in the same process): a strategy that imports
    this module's private names (``_SOURCES``) or patches the engine's modules and classes, walks the
    interpreter's frames (``sys._getframe``, a traceback's frames), or reaches objects through ``gc``
    (``gc.get_referents``) or ``ctypes``.
    """

    def __init__(
        self,
        state: State,
        rules: Rules,
        idx: np.ndarray,
        seat: np.ndarray,
        streams: Streams | None,
        full: bool = False,
    ):
        """``full``: ``idx`` is every game of ``state`` in order (a field is copied whole, not gathered)."""
        self.rules = rules
        self.seat = seat.astype(np.int64)
        self.n = len(idx)
        self.batch_rows = np.array(idx, dtype=np.int64)  # each row's game's place in the batch being played
        self.players = state.n_players
        self.rng = StrategyRandom(streams, idx, seat) if streams is not None else None
        self._key = _keyed((state, idx, seat, full))  # the state: out of reach (``_gather`` reads it)

    @functools.cached_property
    def games(self) -> np.ndarray:
        """int[G']: the global index of each game."""
        return _gather(self._key, "game")

    def __getattr__(self, name: str) -> np.ndarray:
        if name.startswith("_") or name not in PUBLIC:
            raise AttributeError(f"observation has no field {name!r}")
        value = _gather(self.__dict__.get("_key"), name)
        self.__dict__[name] = value  # later reads find it without calling __getattr__
        return value

    def _field_at(self, name: str, at: np.ndarray) -> np.ndarray:
        """Field ``name`` at rows ``at`` only (read-only), from the rows read already or else from the game."""
        if name in self.__dict__:
            return self.__dict__[name].take(at, axis=0)
        if name.startswith("_") or name not in PUBLIC:
            raise AttributeError(f"observation has no field {name!r}")
        return _gather(self._key, name, at)

    def mine(self, field: np.ndarray) -> np.ndarray:
        """The deciding seat's entries of a [G', N, ...] array."""
        return field[np.arange(self.n), self.seat]

    def own(self, name: str) -> np.ndarray:
        """The deciding seat's entries of the public field ``name`` (one with a seat axis, [G', N, ...]): what
        ``obs.mine(obs.<name>)`` gives, without gathering the other seats' entries when the field was not read."""
        if name in self.__dict__:
            return self.mine(self.__dict__[name])
        if name.startswith("_") or name not in PUBLIC:
            raise AttributeError(f"observation has no field {name!r}")
        return _gather(self._key, name, own=True)

    def is_me(self, holder: np.ndarray) -> np.ndarray:
        """bool mask of entries of an int seat array (e.g. ``obs.office``) held by the deciding seat."""
        seat = self.seat.reshape((-1,) + (1,) * (holder.ndim - 1))
        return holder == seat


def _gather(key: _Key, name: str, at: np.ndarray | None = None, own: bool = False) -> np.ndarray:
    """The observation's field ``name`` (the observation of ``key``): a new read-only array of the state's rows
    (all of them; ``at``: the rows ``at`` only; ``own``: each row's deciding seat's entries, writeable)."""
    state, idx, seat, full = _source(key)
    field = getattr(state, name)
    if own:  # each row's deciding seat's entries, (game, seat) as game * N + seat
        if field.ndim < 2 or field.shape[1] != state.n_players:
            raise AttributeError(f"observation field {name!r} has no seat axis")
        return field.reshape(-1, *field.shape[2:]).take(idx * field.shape[1] + seat, axis=0)
    if at is not None:  # the rows ``at`` only
        value = field.take(idx.take(at), axis=0)
    else:
        value = field.copy() if full else field.take(idx, axis=0)  # new arrays; take beats [idx]
    value.setflags(write=False)
    return value


_NAMESPACE_DICT = SimpleNamespace.__dict__["__dict__"]  # a namespace's own attribute dict


class Legal(SimpleNamespace):
    """The legal options of the rows asked: ``legal.<name>``, a namespace of arrays over the rows (or constants).
    A field is gathered from the engine's arrays the first time it is read, so a field nobody reads costs nothing;
    ``vars(legal)`` gathers every field (as a namespace built whole would hold them), and a copy is a plain
    ``SimpleNamespace``. It holds the field names and a key (``_Key``) to the function gathering a field, never
    that function nor the engine's arrays (``Observation``)."""

    __slots__ = ("_names", "_key")  # out of vars(legal): a namespace's attributes are its fields

    def __init__(self, names: tuple[str, ...], field: Callable[[str], Any]):
        self._names = names
        self._key = _keyed(field)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name not in self._names:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        value = _source(self._key)(name)
        setattr(self, name, value)  # later reads find it without calling __getattr__
        return value

    @property
    def __dict__(self) -> dict[str, Any]:
        fields = _NAMESPACE_DICT.__get__(self)
        missing = [name for name in self._names if name not in fields]
        if missing:
            field = _source(self._key)
            for name in missing:
                fields[name] = field(name)
        return fields

    def __repr__(self) -> str:
        return repr(SimpleNamespace(**vars(self)))

    def __reduce__(self):
        return (SimpleNamespace, (), dict(vars(self)))


Check = Callable[[Any, Legal, Observation], tuple[np.ndarray, str]]


class Agents:
    """The strategies at the table, one per seat, and the streams their randomness comes from.

    ``trace``: None in normal play; a replay sets it to a function called after every ask that asked some seat, as
    ``trace(agents, decision, state, decider, legal, out)``."""

    trace: Callable[..., None] | None = None
    # None in play. ``eastindia audit`` sets a function called as ``override(decision, state, idx, seat, answer,
    # legal)`` after a strategy answered rows (games ``idx``, seats ``seat``) and before the answer is checked, with
    # the engine's own legal options of those rows; it returns the answer played (it may force some rows' answers).
    override: Callable[..., tuple[np.ndarray, ...]] | None = None

    def __init__(
        self,
        strategies: list[Strategy],
        rules: Rules,
        streams: Streams | None,
        seating: np.ndarray | None = None,
    ):
        """``strategies`` are the strategy objects at the table; ``seating[G, N]`` indexes them per game and seat
        (default: seat s plays strategies[s] in every game)."""
        self.strategies = list(strategies)
        self.rules = rules
        self.shown_rules = _package_rules(rules)  # what this package's strategies see (``rules_for``)
        self._own_rules: dict[int, Rules] = {}  # per other strategy object: its own copy of the rules
        self._trusted: dict[tuple[int, str], bool] = {}  # per (strategy object, decision): see ``rules_for``
        self.streams = streams
        if seating is None:
            seating = np.arange(len(self.strategies))[None, :]
        groups: dict[int, tuple[Strategy, int]] = {}
        group_of = np.zeros(len(self.strategies), dtype=np.int64)
        for i, strat in enumerate(self.strategies):  # one group (one call per decision) per distinct object
            group_of[i] = groups.setdefault(id(strat), (strat, len(groups)))[1]
        self.groups = [strat for strat, _ in groups.values()]
        self._group_of = group_of  # per strategy: its group
        self._group = group_of[np.asarray(seating)]  # int[G or 1, N]
        self._own = False  # whether ``_group`` is this object's alone (``reseat`` copies it first)
        self._flat: dict[int, np.ndarray] = {}  # per G: the group table broadcast to G games, flattened
        self._callers: dict[str, tuple[np.ndarray, list[Strategy]]] = {}  # per decision: see ``callers``
        self.asks: dict[str, np.ndarray] = {}  # per decision: int32[G], the times each game reached it (a seat asked)

    def take(self, idx: np.ndarray, streams: Streams) -> Agents:
        """The same strategies over games ``idx`` only (positions in this batch), drawing from ``streams`` (the
        batch's ``streams.take(idx)``); its ``asks`` count on from this table's."""
        part = copy.copy(self)
        part.streams = streams
        part._group = self._group[idx] if self._group.shape[0] > 1 else self._group
        part._own = False
        part._flat = {}
        part.asks = {decision: count[idx] for decision, count in self.asks.items()}
        return part

    def put(self, idx: np.ndarray, part: Agents) -> None:
        """Take back the ``asks`` counts and the seating of ``part`` (made by ``take(idx)``)."""
        for decision, count in part.asks.items():
            self.asks.setdefault(decision, np.zeros(self.streams.n_games, dtype=np.int32))[idx] = count
        if part._group is not self._group:
            self._seating(self.streams.n_games)[idx] = part._group

    def reseat(self, games: np.ndarray, seat: np.ndarray, strategy: np.ndarray, n_games: int) -> None:
        """From the next decision on, ``strategies[strategy[i]]`` plays seat ``seat[i]`` of game ``games[i]`` (positions
        in a batch of ``n_games``): a searching seat plays the plan it picked for the round (``sim.lookahead``)."""
        self._seating(n_games)[games, seat] = self._group_of[strategy]
        self._flat = {}

    def _seating(self, n_games: int) -> np.ndarray:
        """The group table int[G, N], made a table of its own (not shared with another part) on first change."""
        if not self._own or self._group.shape[0] != n_games:
            self._group = np.broadcast_to(self._group, (n_games, self._group.shape[1])).copy()
            self._own = True
        return self._group

    def rules_for(self, strat: Strategy, decision: str) -> Rules:
        """The rules handed to ``strat`` for ``decision``: ``shown_rules``, shared, when only this package's code
        answers (its class's method, or a ``shared`` method and the methods it names, all the package's); else a
        copy of its own (made on first use), so that a strategy that changes its rules (they are Python objects)
        changes what it alone sees, never what another strategy decides from, nor the engine's."""
        found = self._trusted.get((id(strat), decision))
        if found is None:
            reads = _reads(strat, decision)
            if reads is not None:
                named = (_method(strat, decision), *(_method(strat, name) for name in reads))
                found = all(_ours(value) for value in named if callable(value))
            else:
                found = _ours(type(strat)) and _ours(_method(strat, decision))
            self._trusted[(id(strat), decision)] = found
        if found:
            return self.shown_rules
        own = self._own_rules.get(id(strat))
        if own is None:
            own = self._own_rules[id(strat)] = _sealed(self.rules)
        return own

    def labels(self, n_games: int) -> np.ndarray:
        """str[G, N]: the label of the strategy playing each seat now (a searching seat: the plan it plays)."""
        labels = np.array([strat.label for strat in self.groups], dtype=str)
        return np.broadcast_to(labels[self._group], (n_games, self._group.shape[1]))

    def ask(
        self,
        decision: str,
        state: State,
        decider: np.ndarray,
        legal: dict[str, Any],
        out: tuple[np.ndarray, ...],
        check: Check | None = None,
    ) -> tuple[np.ndarray, ...]:
        """Ask the strategy at ``decider[g]`` (-1: nobody) in each game; fill ``out`` (full-batch arrays).

        ``legal`` maps names to full-batch arrays (sliced per group) or constants. ``check(answer, legal, obs)``
        returns a bool mask of illegal rows and a reason. Returns ``out``. A strategy whose method for the decision
        is marked ``passes`` (see ``PASSES``) is not called: ``out`` keeps the engine's default answer there.
        ``asks[decision][g]`` counts the calls that asked a seat of game g (a passing strategy's included).
        """
        decider = np.asarray(decider)
        asked = decider >= 0
        if not asked.any():
            return out
        self._count(decision, asked)
        for strat, idx in self._grouped(decision, decider, asked):
            if getattr(getattr(strat, decision, None), PASSES, False):
                continue
            full = idx.size == decider.shape[0]  # every game, in order: a plain copy, not a scatter
            answer = self._answer(strat, decision, state, idx, decider[idx], legal, {}, out, 1, check, full)
            for a, o in zip(answer, out, strict=True):
                if full:
                    o[...] = a
                else:
                    o[idx] = a
        if self.trace is not None:
            self.trace(self, decision, state, decider, legal, out)
        return out

    def ask_seats(
        self,
        decision: str,
        state: State,
        asked: np.ndarray,
        legal: dict[str, Any],
        seat_legal: dict[str, np.ndarray],
        out: tuple[np.ndarray, ...],
        check: Check | None = None,
    ) -> tuple[np.ndarray, ...]:
        """Ask every seat where ``asked[G, N]`` at once, for a simultaneous decision (nothing changes between the
        seats' answers); fill ``out`` (arrays [G, N, ...]). As ``ask`` seat after seat, in one call per strategy
        object: the observation's rows are the (game, seat) pairs asked, game by game, so a game appears once per
        seat asked (``obs.seat`` tells them apart, each drawing from its own seat's random stream).

        ``legal`` holds full-batch arrays [G, ...] and constants, as for ``ask``; ``seat_legal`` the arrays
        [G, N, ...] of each seat's own options (a row sees its seat's). Only the strategies of this package (and
        ``shared`` methods, which are this package's) are asked about several seats of a game in one call: any other
        (a plugin's own method) is asked seat by seat, as by ``ask``, and never sees a game twice in one call.
        ``asks[decision][g]`` counts the seats asked in game g. While a replay traces the decisions (``trace``), the
        seats are asked one by one through ``ask``.
        """
        asked = np.asarray(asked)
        if not MERGE or self.trace is not None:
            for seat in range(asked.shape[1]):
                own = {**legal, **{k: v[:, seat] for k, v in seat_legal.items()}}
                decider = np.where(asked[:, seat], seat, -1)
                self.ask(decision, state, decider, own, tuple(o[:, seat] for o in out), check)
            return out
        if not asked.any():
            return out
        self._count(decision, sum_last(asked))
        g_all, n = asked.shape
        rows = np.flatnonzero(asked)  # (game, seat) pairs as game * n + seat, game by game
        caller_of, callers = self.callers(decision)
        group_of = caller_of[self._table(g_all, n)[rows]] if len(callers) > 1 else None
        for gi, strat in enumerate(callers):
            if getattr(getattr(strat, decision, None), PASSES, False):
                continue
            mine = rows if group_of is None else rows.compress(group_of == gi)  # compress beats a mask index
            if type(strat).__module__.partition(".")[0] == "strategies" or _reads(strat, decision) is not None:
                # this package's strategy, or a shared method of it
                parts = [mine]
            else:  # a plugin: one seat per call
                parts = [part for s in range(n) if (part := mine.compress(mine % n == s)).size]
            for part in parts:
                if part.size:
                    idx = part // n
                    seat = part - idx * n
                    answer = self._answer(strat, decision, state, idx, seat, legal, seat_legal, out, 2, check, False)
                    every = part.size == g_all * n  # every (game, seat) pair, in order: a plain copy
                    for a, o in zip(answer, out, strict=True):
                        if every and o.flags.c_contiguous:
                            o.reshape(-1, *o.shape[2:])[...] = a
                        elif o.flags.c_contiguous:  # one index into (game, seat) rows beats two
                            o.reshape(-1, *o.shape[2:])[part] = a
                        else:
                            o[idx, seat] = a
        return out

    def all_pass(self, decision: str, asked: np.ndarray) -> bool:
        """Whether every strategy at the table passes ``decision`` (its method is marked ``passes``), so that asking
        would leave the engine's default answer everywhere; if so, ``asked`` (int[G]: the seats each game would ask)
        is counted in ``asks`` as the asks would have been. Never while a replay traces the asks."""
        if self.trace is not None or not all(getattr(getattr(s, decision, None), PASSES, False) for s in self.groups):
            return False
        self._count(decision, asked)
        return True

    def _count(self, decision: str, asked: np.ndarray) -> None:
        """Add ``asked`` (per game: the seats asked) to ``asks[decision]``."""
        count = self.asks.get(decision)
        if count is None:  # an Agents object serves one batch: the games axis never changes
            count = self.asks[decision] = np.zeros(asked.shape, dtype=np.int32)
        count += asked

    def _answer(
        self,
        strat: Strategy,
        decision: str,
        state: State,
        idx: np.ndarray,
        seat: np.ndarray,
        legal: dict[str, Any],
        seat_legal: dict[str, np.ndarray],
        out: tuple[np.ndarray, ...],
        lead: int,
        check: Check | None,
        full: bool,
    ) -> tuple[np.ndarray, ...]:
        """The answer of ``strat`` (checked unless ``trusted``) for rows (game ``idx``, seat ``seat``): arrays shaped
        as ``out`` past its ``lead`` axes. ``full``: the rows are every game in order (``legal`` needs no slicing)."""
        gathered: dict[str, Any] = {}  # the engine's rows of the legal options read, by the strategy or the check
        if trusted(strat, decision):
            answer = self._call(strat, decision, state, idx, seat, legal, seat_legal, full, gathered, copy_all=False)
            answer = tuple(map(np.asarray, answer if isinstance(answer, tuple) else (answer,)))
            if self.override is not None:
                own = _legal(legal, seat_legal, idx, seat, state.n_games, full, gathered, False)
                answer = tuple(self.override(decision, state, idx, seat, answer, own))
            return answer
        answer = self._call(strat, decision, state, idx, seat, legal, seat_legal, full, gathered)
        answer = answer if isinstance(answer, tuple) else (answer,)
        where = (strat, decision, state, idx, seat)  # the engine's own: what names a game in an error
        if len(answer) != len(out):
            self._fail(*where, 0, f"returned {len(answer)} values, expected {len(out)}")
        answer = tuple(self._array(a, *where) for a in answer)
        for a, o in zip(answer, out, strict=True):
            if a.shape != (idx.size, *o.shape[lead:]):
                self._fail(*where, 0, f"returned shape {a.shape}, expected {(idx.size, *o.shape[lead:])}")
            if o.dtype != bool and a.dtype.kind == "f" and not np.all(a == np.round(a)):
                bad = np.flatnonzero(a != np.round(a).reshape(a.shape))
                self._fail(*where, int(bad[0]) // max(1, a[0].size), "returned a fractional value")
        if self.override is not None:
            own = _legal(legal, seat_legal, idx, seat, state.n_games, full, gathered, False)
            answer = tuple(self.override(decision, state, idx, seat, answer, own))
        if check is not None:  # against the engine's own legal options, never the strategy's copy of them
            own = _legal(legal, seat_legal, idx, seat, state.n_games, full, gathered, False)
            bad, why = check(answer[0] if len(answer) == 1 else answer, own, self._observe(state, idx, seat, full))
            bad = np.asarray(bad)
            if bad.any():
                self._fail(*where, int(np.flatnonzero(bad)[0]), why)
        return answer

    def _table(self, g_all: int, n: int) -> np.ndarray:
        """The group seated at each (game, seat), flattened as game * n + seat."""
        flat = self._flat.get(g_all)
        if flat is None:
            table = np.broadcast_to(self._group, (g_all, n)).astype(np.int8 if len(self.groups) < 128 else np.int64)
            flat = self._flat[g_all] = table.ravel()
        return flat

    def callers(self, decision: str) -> tuple[np.ndarray, list[Strategy]]:
        """(int[groups] the call each strategy object's seats are asked in, [the strategy called for each call]) for
        ``decision``: one call per strategy object, except that the objects whose method for it is one ``shared``
        function (``SHARED``), reading equal values of the attributes it names, are asked in a single call, through
        the first of them."""
        found = self._callers.get(decision)
        if found is None:
            calls: dict[Any, int] = {}
            callers: list[Strategy] = []
            caller_of = np.zeros(len(self.groups), dtype=np.int64)
            for gi, strat in enumerate(self.groups):
                reads = _reads(strat, decision)
                key: Any = id(strat)
                if reads is not None:  # a method named is compared by its function, a parameter by its value
                    key = (_method(strat, decision), *(_method(strat, name) for name in reads))
                    try:
                        hash(key)
                    except TypeError:  # a value that cannot be compared so: asked on its own
                        key = id(strat)
                if key not in calls:
                    calls[key] = len(callers)
                    callers.append(strat)
                caller_of[gi] = calls[key]
            found = self._callers[decision] = (caller_of, callers)
        return found

    def _grouped(self, decision: str, decider: np.ndarray, asked: np.ndarray):
        """(strategy, games asked) for each call of ``decision`` that asks some game (``callers``)."""
        rows = np.flatnonzero(asked)
        caller_of, callers = self.callers(decision)
        if len(callers) == 1:  # one call asks every asked game
            yield callers[0], rows
            return
        n = self._group.shape[1]
        group_of = caller_of[self._table(decider.shape[0], n)[rows * n + decider[rows]]]  # the decider's call
        for gi, strat in enumerate(callers):
            idx = rows.compress(group_of == gi)
            if idx.size:
                yield strat, idx

    def seated(self, state: State, game: int, seat: int) -> Strategy:
        """The strategy object playing ``seat`` in batch game ``game`` (the one an error names: a ``shared`` call
        asks several strategies' seats through one of them)."""
        return self.groups[int(self._table(state.n_games, self._group.shape[1])[game * self._group.shape[1] + seat])]

    # ---------------------------------------------------------------------- a strategy's errors
    def _call(
        self,
        strat: Strategy,
        decision: str,
        state: State,
        idx: np.ndarray,
        seat: np.ndarray,
        legal: dict[str, Any],
        seat_legal: dict[str, np.ndarray],
        full: bool = False,
        gathered: dict[str, Any] | None = None,
        copy_all: bool = True,
    ) -> Any:
        """Ask ``strat`` about rows (games ``idx``, seats ``seat``; ``full``: every game in order; ``gathered``: the
        engine's rows of the legal options, as read so far; ``copy_all``: the legal options handed are copies); an
        exception it raises becomes a ``StrategyError``."""
        obs, sub = self._view(strat, decision, state, idx, seat, legal, seat_legal, full, gathered, copy_all)
        try:
            return _answering(strat, decision)(obs, sub)
        except (Exception, SystemExit) as exc:
            error = exc
        raise self._raised(strat, decision, state, idx, seat, legal, seat_legal, error) from error

    def _view(
        self,
        strat: Strategy,
        decision: str,
        state: State,
        idx: np.ndarray,
        seat: np.ndarray,
        legal: dict[str, Any],
        seat_legal: dict[str, np.ndarray],
        full: bool = False,
        gathered: dict[str, Any] | None = None,
        copy_all: bool = True,
    ) -> tuple[Observation, Legal]:
        """What ``strat`` is handed for ``decision`` about rows (games ``idx``, seats ``seat``; ``full``: every game in
        order): its observation and its copy of the legal options (gathered into ``gathered``; the engine's rows
        themselves unless ``copy_all``, for a ``trusted`` method)."""
        obs = Observation(state, self.rules_for(strat, decision), idx, seat, self.streams, full)
        gathered = {} if gathered is None else gathered
        return obs, _legal(legal, seat_legal, idx, seat, state.n_games, full, gathered, copy_all)

    def _observe(self, state: State, idx: np.ndarray, seat: np.ndarray, full: bool = False) -> Observation:
        """The engine's own observation of rows (games ``idx``, seats ``seat``), for checking an answer."""
        return Observation(state, self.rules, idx, seat, None, full)

    def _raised(
        self,
        strat: Strategy,
        decision: str,
        state: State,
        idx: np.ndarray,
        seat: np.ndarray,
        legal: dict[str, Any],
        seat_legal: dict[str, np.ndarray],
        exc: BaseException,
    ) -> StrategyError:
        """The error naming the first row (game and seat) whose question alone makes the strategy raise (it was
        asked about all of them at once); the first row when no single one does."""
        row = 0
        for r in range(idx.size):
            try:
                obs, sub = self._view(strat, decision, state, idx[r : r + 1], seat[r : r + 1], legal, seat_legal)
                _answering(strat, decision)(obs, sub)
            except (Exception, SystemExit) as single:
                row, exc = r, single
                break
        seated = self.seated(state, int(idx[row]), int(seat[row]))
        name = getattr(seated, "name", type(seated).__name__)
        text = str(exc).strip().replace("\n", " ") or repr(exc)
        return StrategyError(
            f"strategy {name!r} (seat {int(seat[row])}) raised {type(exc).__name__}: {text} "
            f"in {decision!r} at game {int(state.game[idx[row]])}",
            "".join(traceback.format_exception(exc)),
        )

    def _array(
        self, value: Any, strat: Strategy, decision: str, state: State, idx: np.ndarray, seat: np.ndarray
    ) -> np.ndarray:
        """An answer as a numeric array; anything else is an illegal answer."""
        where = (strat, decision, state, idx, seat)
        try:
            a = np.asarray(value)
        except (ValueError, TypeError):
            a = np.asarray(None)
        if a.dtype.kind not in "biuf":
            self._fail(*where, 0, f"returned {a.dtype} values, expected numbers")
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            row = int(np.argwhere(~np.isfinite(a))[0][0]) if a.ndim else 0
            self._fail(*where, min(row, idx.size - 1), "returned a value that is not finite")
        return a

    def _fail(
        self, strat: Strategy, decision: str, state: State, idx: np.ndarray, seat: np.ndarray, row: int, why: str
    ) -> None:
        """Refuse the answer of ``row`` (game ``idx[row]``, seat ``seat[row]``), naming the strategy seated there and
        the game by the engine's own index."""
        seated = self.seated(state, int(idx[row]), int(seat[row]))
        raise IllegalDecision(
            f"strategy {seated.name!r} (seat {int(seat[row])}) made an illegal {decision!r} "
            f"in game {int(state.game[idx[row]])}: {why}"
        )


def _legal(
    legal: dict[str, Any],
    seat_legal: dict[str, np.ndarray],
    idx: np.ndarray,
    seat: np.ndarray,
    g_all: int,
    full: bool,
    gathered: dict[str, Any],
    copy_all: bool,
) -> Legal:
    """The legal options of rows (game ``idx``, seat ``seat``), each gathered when first read: a full-batch array
    of ``legal`` at games ``idx`` (the array itself when ``full``, the rows being every game in order), a constant
    as it is, each row's own entries of the [G, N, ...] arrays of ``seat_legal``. ``gathered`` keeps the engine's
    rows of each field read (shared by the strategy's options and the check's: a field is gathered once).
    ``copy_all``: each field is a new copy of those (what a strategy is handed must not be the engine's)."""

    def rows(name: str) -> Any:
        value = gathered.get(name, gathered)
        if value is not gathered:
            return value
        value = seat_legal.get(name)
        if value is not None:
            if value.flags.c_contiguous:  # (game, seat) as game * N + seat: take gathers faster than [idx, seat]
                value = value.reshape(-1, *value.shape[2:]).take(idx * value.shape[1] + seat, axis=0)
            else:
                value = value[idx, seat]
        else:
            value = legal[name]
            if isinstance(value, np.ndarray) and not full and value.ndim and value.shape[0] == g_all:
                value = value.take(idx, axis=0)
        gathered[name] = value
        return value

    def copied(name: str) -> Any:
        value = rows(name)
        return value.copy() if isinstance(value, np.ndarray) else copy.deepcopy(value)

    return Legal((*legal, *seat_legal), copied if copy_all else rows)


def _ours(obj: Any) -> bool:
    """Whether ``obj`` (a class or a function) is code of this package's strategies."""
    return str(getattr(obj, "__module__", "")).partition(".")[0] == "strategies"


def trusted(strat: Strategy, decision: str) -> bool:
    """Whether ``strat``'s answer to ``decision`` is taken unchecked (``CHECK_BUILTINS`` off): its class and the
    method answering are this package's code (a plug-in's subclass of a built-in, or a method set by a plug-in, is
    checked)."""
    return not CHECK_BUILTINS and _ours(type(strat)) and _ours(_method(strat, decision))


# Per rules object (by id, while it lives): the copy this package's strategies are handed (``Agents.rules_for``).
_PACKAGE_RULES: dict[int, Rules] = {}


def _package_rules(rules: Rules) -> Rules:
    """The copy of ``rules`` (``_sealed``) handed to this package's strategies, made once per rules object."""
    shown = _PACKAGE_RULES.get(id(rules))
    if shown is None:
        shown = _PACKAGE_RULES[id(rules)] = _sealed(rules)
        weakref.finalize(rules, _PACKAGE_RULES.pop, id(rules), None)
    return shown


def _sealed(rules: Rules) -> Rules:
    """A copy of ``rules`` that shares no object with them but immutable ones: the sections (frozen dataclasses,
    with their dicts and nested sections) and the raw table are deep copies, the derived arrays live in immutable
    bytes (no ``setflags(write=True)`` makes them writeable, and their ``.base`` is those bytes). What strategies
    see, so none can change the engine's rules."""

    def seal(a: Any) -> Any:
        if not isinstance(a, np.ndarray):
            return a
        return np.frombuffer(np.ascontiguousarray(a).tobytes(), dtype=a.dtype).reshape(a.shape)

    shown = object.__new__(type(rules))  # not copy.copy: Rules pickles (and copies) by rebuilding from the raw dict
    for name, value in vars(rules).items():
        section = dataclasses.is_dataclass(value) and name != "_derived"  # the derived arrays: sealed below
        object.__setattr__(shown, name, copy.deepcopy(value) if section else value)
    object.__setattr__(shown, "raw", copy.deepcopy(rules.raw))
    derived = copy.copy(rules.d)
    for name, value in vars(derived).items():
        object.__setattr__(
            derived, name, {k: seal(v) for k, v in value.items()} if isinstance(value, dict) else seal(value)
        )
    object.__setattr__(shown, "_derived", derived)
    return shown
