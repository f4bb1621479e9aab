"""Bad input to the engine: illegal answers, unknown strategies, impossible arguments."""

import numpy as np
import pytest

import sim
import strategies
from sim.rules import Rules


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
        match=r"unknown strategy 'bid-low' \(known: balanced, bid_low, buy_shares, go_military, random, run_firm\)",
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
