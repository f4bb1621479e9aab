"""Bad input to the engine: illegal answers, unknown strategies, impossible arguments."""

import re

import numpy as np
import pytest

import sim
import strategies
from sim.agents import StrategyError
from sim.dice import Streams
from sim.rules import Rules
from sim.state import State


class Greedy(strategies.Strategy):
    """Asks for as many loans as there could ever be."""

    name = "greedy-loans"

    def take_loans(self, obs, legal):
        return legal.max_loans + 1


class WrongShape(strategies.Strategy):
    name = "wrong-shape"

    def pay_dividends(self, obs, legal):
        return np.zeros((obs.n, 2), dtype=int)


def test_illegal_answer_names_strategy_decision_and_game():
    with pytest.raises(sim.IllegalDecision) as err:
        sim.play(Rules.default(), Greedy(), 10, seed=1, first_game=500)
    msg = str(err.value)
    assert "strategy 'greedy-loans'" in msg and "'take_loans'" in msg and "in game 5" in msg
    assert "\n" not in msg


def test_wrong_shape_answer_is_illegal():
    with pytest.raises(sim.IllegalDecision, match=r"'pay_dividends'.*returned shape"):
        sim.play(Rules.default(), WrongShape(), 20, seed=1)


def test_unknown_strategy_lists_the_known_ones():
    with pytest.raises(
        strategies.UnknownStrategy,
        match=r"unknown strategy 'bid-low' \(known: balanced, bid_low, buy_shares, go_military, lookahead, random, "
        r"run_firm\)",
    ):
        sim.play(Rules.default(), "bid-low", 1, seed=1)


def test_strategy_count_must_match_players():
    with pytest.raises(sim.PlayError, match="3 strategies given for 5 players"):
        sim.play(Rules.default(), ["random"] * 3, 1, seed=1)


def test_registry_describes_strategies():
    desc = strategies.describe()
    assert set(desc) >= {"balanced", "random"} and all(desc.values())


def test_observation_hides_what_is_not_public():
    seen = {}

    class Peek(strategies.Strategy):
        def take_loans(self, obs, legal):
            seen["money"] = obs.money.shape
            for hidden in ("ledger", "vp", "bid_total", "capital_exact"):
                with pytest.raises(AttributeError):
                    getattr(obs, hidden)
            with pytest.raises(ValueError):
                obs.money[0, 0] = 99  # read-only copies
            chair = obs.is_me(obs.office)[:, 0]  # the offices the deciding seat holds: it is the Chairman
            assert chair.all() and (obs.mine(obs.money) == obs.money[np.arange(obs.n), obs.seat]).all()
            return super().take_loans(obs, legal)

    sim.play(Rules.default(), Peek(), 5, seed=2)
    assert seen["money"][1] == 5


# --------------------------------------------------------------------------- what a strategy is handed is its own
class Forger(strategies.Strategy):
    """Makes its copy of the legal loan limit writeable and raises it, then asks for that many loans."""

    name = "forger"

    def take_loans(self, obs, legal):
        legal.max_loans.setflags(write=True)
        legal.max_loans += 50
        return legal.max_loans


def test_raising_the_legal_limit_it_was_handed_does_not_make_an_answer_legal():
    with pytest.raises(sim.IllegalDecision, match=r"'take_loans' in game \d+: more loans than the Company may take$"):
        sim.play(Rules.default(), Forger(), 10, seed=1)


class Vandal(strategies.Strategy):
    """Answers as balanced does, then writes into everything it was handed: every array it can make writeable, the
    engine's state and random streams where the observation exposes them."""

    name = "balanced"

    def take_loans(self, obs, legal):
        answer = super().take_loans(obs, legal)
        handed = [obs.money, obs.loans, obs.stability, obs.games, *vars(obs.rules.d).values()]
        for holder in (obs, obs.rng, legal):  # attributes, or a slotted holder's slots
            fields = vars(holder) if hasattr(holder, "__dict__") else {}
            slots = [getattr(holder, slot, None) for slot in getattr(type(holder), "__slots__", ())]
            handed += [*fields.values(), *slots]
        for value in handed:
            if isinstance(value, np.ndarray):
                try:
                    value.setflags(write=True)
                except ValueError:  # cannot be made writeable
                    continue
                value[...] = value.dtype.type(1)
            elif isinstance(value, State):
                value.money[...] += 7
                value.loans[...] = 0
            elif isinstance(value, Streams):
                value.counters += 1
        return answer


def test_writing_into_the_observation_and_the_legal_options_changes_no_game():
    """Played at every seat (every game asked at once) and at two seats (a share of the games per call)."""
    for seats in (Vandal(), [Vandal(), "balanced", Vandal(), "balanced", "balanced"]):
        vandalised = sim.play(Rules.default(), seats, 12, seed=3)
        honest = sim.play(Rules.default(), "balanced", 12, seed=3)
        assert vandalised.games.equals(honest.games) and vandalised.seats.equals(honest.seats)


@pytest.mark.parametrize("games", [None, "lies"])
def test_a_strategy_corrupting_its_observation_still_gets_the_engines_message(games):
    class Mislabel(strategies.Strategy):
        name = "mislabel"

        def take_loans(self, obs, legal):
            answer = legal.max_loans + 1
            obs.games = None if games is None else np.full(obs.n, 7)
            obs.seat = None if games is None else np.full(obs.n, 9)
            return answer

    with pytest.raises(sim.IllegalDecision) as err:
        sim.play(Rules.default(), Mislabel(), 10, seed=1, first_game=500)
    assert re.fullmatch(
        r"strategy 'mislabel' \(seat [0-4]\) made an illegal 'take_loans' in game 500: "
        r"more loans than the Company may take",
        str(err.value),
    )


def test_a_decision_marked_passes_is_not_asked_and_an_override_is():
    """``strategies.base.passes`` (``sim.agents.PASSES``): a method that always answers the engine's default is not
    called, its games keep the default answer; a subclass overriding it without the mark is asked."""
    from strategies.base import passes

    class Silent(strategies.Strategy):
        name = "silent"

        @passes
        def offer_exchange(self, obs, legal):
            raise AssertionError("a passing decision was asked")

    class Generous(strategies.Strategy):
        name = "generous"
        asked = 0

        def offer_exchange(self, obs, legal):
            Generous.asked += obs.n
            return super().offer_exchange(obs, legal)

    rules = sim.Rules.default(4)
    quiet = sim.play(rules, Silent(), 3, seed=1)
    other = sim.play(rules, Generous(), 3, seed=1).games  # the same games: nothing offered either way
    assert quiet.games.drop("winner_strategy").equals(other.drop("winner_strategy"))
    assert Generous.asked > 0 and getattr(strategies.Strategy.offer_exchange, "passes", False)


def test_a_decision_marked_shared_asks_every_strategy_inheriting_it_in_one_call_and_an_override_alone():
    """``strategies.base.shared`` (``sim.agents.SHARED``): the seats of two strategies (different parameters) that
    inherit one shared method are asked in the same calls; a subclass overriding it is asked on its own."""
    from strategies.base import shared

    calls = []

    class Common(strategies.Strategy):
        name = "common"

        @shared
        def appoint(self, obs, legal):
            calls.append(("shared", set(obs.seat.tolist())))
            return strategies.Strategy.appoint(self, obs, legal)  # self is a stand-in: no super()

    class Low(Common):
        name = "low"
        PARAMS = {**Common.PARAMS}

    class High(Common):
        name = "high"

    class Own(Common):
        name = "own"

        def appoint(self, obs, legal):
            calls.append(("own", set(obs.seat.tolist())))
            return strategies.Strategy.appoint(self, obs, legal)

    high = High()
    high.max_debt = 5  # another parameter value: a shared method reads none
    sim.play(sim.Rules.default(5), [Low(), high, Low(), high, Own()], 64, seed=4)
    together = set().union(*(seats for kind, seats in calls if kind == "shared"))
    assert together == {0, 1, 2, 3} and any(seats & {0, 2} and seats & {1, 3} for _, seats in calls)
    assert {kind for kind, seats in calls if 4 in seats} == {"own"} and all(
        seats == {4} for kind, seats in calls if kind == "own"
    )


def test_shared_decisions_read_only_the_attributes_they_name():
    """Every method marked ``shared`` in this package reads, of ``self`` itself, only the attributes it names in
    ``reads`` (the helpers it hands ``self`` to are held to the same list at run time, by the stand-in they get)."""
    import ast
    import inspect
    import textwrap

    from sim.agents import SHARED

    marked = {
        fn
        for cls in strategies.registry.REGISTRY.values()
        for klass in cls.__mro__
        for fn in vars(klass).values()
        if getattr(fn, SHARED, None) is not None
    }
    assert len(marked) >= 55 and any(getattr(fn, SHARED) for fn in marked)
    for fn in marked:
        body = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0].body
        read = {
            n.attr
            for stmt in body
            for n in ast.walk(stmt)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"
        }
        assert read <= set(getattr(fn, SHARED)), (fn, read)


def test_a_shared_decision_reading_a_parameter_it_does_not_name_fails_naming_it():
    """The stand-in a ``shared`` method answers with has only the attributes it names: reading another one (here a
    parameter its helper reads) is an error naming the decision and the attribute, not a silent merge of
    strategies whose values differ."""
    from strategies.base import shared

    class Forgetful(strategies.Strategy):
        name = "forgetful"

        @shared(reads=("min_order",))
        def trade(self, obs, legal):
            return strategies.Strategy.trade(self, obs, legal)  # reads trade_cost too

    with pytest.raises(StrategyError, match=r"shared decision 'trade' read the strategy's 'trade_cost'"):
        sim.play(Rules.default(5), Forgetful(), 16, seed=1)


def test_shared_decisions_ask_strategies_with_equal_parameters_together_and_others_apart():
    """``Agents.callers``: archetypes inheriting a shared decision share a call when the parameters it reads are
    equal (the Presidents' ``trade`` reads ``trade_cost``, 0.6 for all five), and are asked apart where they differ
    (``retire`` reads ``vp_worth``: 2.98 for ``bid_low``, 2.5 for the rest); a method named in ``reads`` is compared
    by its function."""
    from sim.agents import Agents

    rules = Rules.default(5)
    seats = sim.engine.resolve_strategies(rules, ["bid_low", "buy_shares", "run_firm", "go_military", "balanced"])
    table = Agents(seats, rules, None)
    assert len(table.callers("trade")[1]) == 1
    assert table.callers("retire")[0].tolist() == [0, 1, 1, 1, 1]
    assert len(table.callers("choose_chairman")[1]) == 1  # reads vote_chairman, the base one for all
    changed = strategies.registry.make("balanced", trade_cost=0.7)
    assert Agents([*seats[:4], changed], rules, None).callers("trade")[0].tolist() == [0, 0, 0, 0, 1]


def test_an_illegal_answer_of_a_shared_call_names_the_strategy_seated_at_its_game():
    """A shared call asks several strategies' seats through one of them: the error names the strategy seated at
    the seat that answered wrong, not the one called."""
    from strategies.base import shared

    class Wrong(strategies.Strategy):
        name = "wrong"

        @shared
        def appoint(self, obs, legal):
            family, source = strategies.Strategy.appoint(self, obs, legal)
            return np.where(obs.seat == 3, -7, family), source

    class First(Wrong):
        name = "first"

    class Second(Wrong):
        name = "second"

    with pytest.raises(sim.IllegalDecision) as err:
        sim.play(Rules.default(4), [First(), First(), First(), Second()], 64, seed=2)
    assert re.fullmatch(r"strategy 'second' \(seat 3\) made an illegal 'appoint' in game \d+: .*", str(err.value))


def test_games_frame_counts_each_games_decisions_asked_whatever_the_batch():
    """``decisions`` in the games frame: per game, how many times the engine asked each decision (a passing
    strategy's included), the same in any batch split."""
    from collections import Counter

    from tests.helpers import Scripted

    class Asked(Scripted):  # logs the engine's calls only, not a decision's own calls to another decision
        depth = 0

        def _logged(self, decision, fn):
            def call(obs, legal):
                if not self.depth:
                    self.calls.append((decision, obs.games.tolist(), obs.seat.tolist()))
                self.depth += 1
                try:
                    return fn(obs, legal)
                finally:
                    self.depth -= 1

            return call

    scripted = Asked()
    res = sim.play(Rules.default(players=4), scripted, 6, seed=3, batch_size=6)
    called = Counter((d, g) for d, games, _ in scripted.calls for g in games)
    recorded = {(d["decision"], g): d["asks"] for g, row in res.games.select("game", "decisions").iter_rows()
                for d in row}  # fmt: skip
    assert recorded == dict(called) and called[("take_loans", 0)] > 0
    split = sim.play(Rules.default(players=4), "random", 6, seed=3, batch_size=4)
    whole = sim.play(Rules.default(players=4), "random", 6, seed=3, batch_size=6)
    assert split.games["decisions"].to_list() == whole.games["decisions"].to_list()
