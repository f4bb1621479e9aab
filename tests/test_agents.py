"""``Agents.ask_seats``: the seats of a simultaneous decision asked in one call per strategy object. A built-in
strategy sees a game once per seat asked in one call; a plugin is asked seat by seat and never sees a game twice;
an illegal answer or a raise from one seat of a merged call is still one line naming the strategy, seat and game.
The legal options a strategy is handed (``Agents.ask`` and ``ask_seats``) are its own copies."""

import copy
from types import SimpleNamespace

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank

import strategies
from sim.agents import IllegalDecision, Observation, StrategyError
from sim.phases.family import take_actions
from sim.state import new_state

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
