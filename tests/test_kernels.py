"""The compiled kernels (``sim.kernels``) and the compaction of finished games (``sim.engine.COMPACT``) play
byte-identical games to the numpy reference over the whole batch.

The reference is the same code with ``sim.kernels.ENABLED`` off (the kernels run here at any batch size): every
frame of a run is hashed both ways, for one strategy, the archetype mix, ``random``, 4/5/6 players, firms forced
open, and batches of 1, 37 and 4,096. Each kernel is also compared with its numpy version directly on thousands of
random positions.
"""

import functools
import hashlib
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from helpers import blank

import sim
from sim import agents, dice, engine, india, kernels, laws, notes
from sim import layout as L
from sim.agents import Observation
from sim.dice import Dice, Streams
from sim.phases.attacks import Event
from sim.phases.setup import run_auction
from sim.rules import Rules, vocabulary
from sim.state import State
from strategies import firms as firm_play
from strategies import politics
from strategies import values as V
from strategies.base import Strategy

pytest.importorskip("numba")

ARCHETYPES = ["bid_low", "buy_shares", "run_firm", "go_military", "balanced"]
FIRMS = {"deregulation.forced_round": 1}
RUNS = {  # name -> (players, strategies, games, batch, rules overrides)
    "balanced-5-b37": (5, "balanced", 37, 37, {}),
    "archetypes-5-b37": (5, ARCHETYPES, 37, 37, {}),
    "balanced-5-b1": (5, "balanced", 2, 1, {}),
    "random-4-b4096": (4, "random", 4096, 4096, {}),
    "archetypes-6-b37": (6, ARCHETYPES + ["random"], 37, 37, {}),
    "firms-open-5-b37": (5, ["run_firm", "balanced", "random", "run_firm", "buy_shares"], 37, 37, FIRMS),
    "crash-early-5-b37": (5, ARCHETYPES, 37, 37, {"company.start_stability": 1}),  # a third crash in round 1
}


def frames_digest(res: sim.Results) -> str:
    """sha256 over every frame's name, schema and rows."""
    h = hashlib.sha256()
    for name, frame in sorted(res.frames().items()):
        h.update(f"{name} {frame.schema} {frame.height}".encode())
        h.update(frame.hash_rows(seed=1).to_numpy().tobytes())
    return h.hexdigest()


@pytest.fixture(autouse=True)
def kernels_at_any_batch(monkeypatch):
    monkeypatch.setattr(kernels, "MIN_GAMES", 0)


def play_both(monkeypatch, players, strategies, games, batch, overrides):
    rules = Rules.default(players).with_overrides(overrides) if overrides else Rules.default(players)
    digests = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        digests.append(frames_digest(sim.play(rules, strategies, games, seed=2026, batch_size=batch)))
    return digests


@pytest.mark.parametrize("name", RUNS)
def test_kernels_play_the_frames_of_the_numpy_reference(monkeypatch, name):
    reference, compiled = play_both(monkeypatch, *RUNS[name])
    print(name, reference)
    assert compiled == reference


@pytest.mark.parametrize("name", RUNS)
def test_compaction_plays_the_frames_of_the_whole_batch(monkeypatch, name):
    """Rounds played on the running games only (their state, streams, seating and decision counts taken out of
    the batch and put back for the end of the game) give the frames of rounds played over every game."""
    players, strategies, games, batch, overrides = RUNS[name]
    rules = Rules.default(players).with_overrides(overrides) if overrides else Rules.default(players)
    monkeypatch.setattr(kernels, "ENABLED", False)
    compactions = []
    put = State.put
    monkeypatch.setattr(State, "put", lambda self, idx, part: compactions.append(idx.size) or put(self, idx, part))
    digests = []
    for compact in (False, True):
        monkeypatch.setattr(engine, "COMPACT", compact)
        digests.append(frames_digest(sim.play(rules, strategies, games, seed=2026, batch_size=batch)))
    assert digests[1] == digests[0]
    assert (len(compactions) > 0) == (batch > 1)  # a batch of one ends when its game does: nothing to compact


def test_compaction_keeps_each_game_at_its_seating(monkeypatch):
    """Strategies rotated over the seats game by game (as the runner seats them): the compacted rounds ask the
    strategy seated in each game."""
    rules = Rules.default(5).with_overrides({"company.start_stability": 1})
    strategies = engine.resolve_strategies(rules, ARCHETYPES)
    ids = np.arange(100, 137)
    seating = (np.arange(5)[None, :] + ids[:, None]) % 5
    digests = []
    for compact in (False, True):
        monkeypatch.setattr(engine, "COMPACT", compact)
        rows = engine.play_batch(rules, strategies, 2026, ids, seating)[1]
        digests.append(frames_digest(sim.Results.from_batches([rows], {})))
    assert digests[1] == digests[0]


MERGED = {  # name -> (players, strategies): every strategy rotated over the seats game by game
    "balanced-5": (5, "balanced"),
    "archetypes-5": (5, ARCHETYPES),
    "random-4": (4, "random"),
    "archetypes-6": (6, ARCHETYPES + ["balanced"]),  # balanced at two seats of every game
}


def rotated(name: str):
    """(rules, strategies, game ids, seating) of the ``MERGED`` table ``name`` over 2,048 games, every strategy
    rotated over the seats game by game."""
    players, names = MERGED[name]
    rules = Rules.default(players)
    ids = np.arange(2048)
    return rules, engine.resolve_strategies(rules, names), ids, (np.arange(players)[None, :] + ids[:, None]) % players


@pytest.mark.parametrize("name", MERGED)
def test_seats_asked_at_once_play_the_frames_of_seat_by_seat_asks(monkeypatch, name):
    """``Agents.ask_seats`` (bid, family_action, vote_chairman, approve_loans, vote, offer_notes, accept_notes,
    play_position and the firms' questions to every family or manager at once) asking each built-in strategy about
    all its (game, seat) pairs in one call plays the frames (and the decision counts) of asking the seats one by one,
    over 2,048 rotated games."""
    rules, strategies, ids, seating = rotated(name)
    merged = []  # per family_action call: whether it asked several seats (of the same game or not)

    def spy(answer):
        return lambda obs, legal: merged.append(np.unique(obs.seat).size > 1) or answer(obs, legal)

    for strat in set(strategies):
        monkeypatch.setattr(strat, "family_action", spy(strat.family_action))
    digests = []
    for merge in (False, True):
        monkeypatch.setattr(agents, "MERGE", merge)
        merged.clear()
        rows = engine.play_batch(rules, strategies, 2026, ids, seating)[1]
        digests.append(frames_digest(sim.Results.from_batches([rows], {})))
        assert any(merged) == merge
    assert digests[1] == digests[0]


@pytest.mark.parametrize("name", ["archetypes-5", "archetypes-6"])
def test_shared_decisions_asked_together_play_the_frames_of_one_call_per_strategy(monkeypatch, name):
    """``Agents.callers``: the archetypes' seats asked in one call for each decision they all inherit as ``shared``
    (appoint, table_law, the firms' decisions, ...) play the frames of asking each strategy object on its own, over
    2,048 rotated games."""
    rules, strategies, ids, seating = rotated(name)
    digests, calls = [], []
    for mark in ("no such mark", agents.SHARED):
        monkeypatch.setattr(agents, "SHARED", mark)
        table = agents.Agents(strategies, rules, None, seating)
        calls.append(len(table.callers("appoint")[1]))
        rows = engine.play_batch(rules, strategies, 2026, ids, seating)[1]
        digests.append(frames_digest(sim.Results.from_batches([rows], {})))
    assert calls == [len(set(strategies)), 1]
    assert digests[1] == digests[0]


def test_small_batches_play_without_the_kernels_until_they_are_loaded(monkeypatch):
    """Below ``MIN_GAMES`` games a batch runs the numpy reference (numba's load is not worth it there), unless the
    process has loaded the kernels already."""
    monkeypatch.setattr(kernels, "MIN_GAMES", 1024)
    monkeypatch.setattr(kernels, "_loaded", False)
    assert kernels.use(1024) and not kernels.use(1023)
    monkeypatch.setattr(kernels, "_loaded", True)
    assert kernels.use(1) and not kernels.use(0)
    monkeypatch.setattr(kernels, "ENABLED", False)
    assert not kernels.use(4096)


def test_a_run_of_many_games_runs_the_kernels_in_batches_of_1(monkeypatch, tmp_path):
    """``kernels.engage``: ``sim.play`` of ``MIN_GAMES`` games or more runs the kernels in every batch, a batch of 1
    included, when the process runs them (``starts``), and marks them cached (``played``); one game fewer never loads
    them, nor a process that plays the numpy reference (``EASTINDIA_KERNELS=0``, or auto on a cold cache). The games
    are the same bytes either way."""
    from sim import dice

    rules = Rules.default(5)
    sim.play(rules, "balanced", 12, seed=8, batch_size=1)  # every kernel of these games loaded first, whatever ran
    # before (kernels_at_any_batch): the run below loads none and must be known by its being engaged
    marker = tmp_path / "marker"
    monkeypatch.setattr(kernels, "engine_marker", lambda: marker)
    _machine_code_where_it_is(monkeypatch)
    monkeypatch.setattr(kernels, "MIN_GAMES", 12)
    drawn = []
    real = dice._draw_kernel
    monkeypatch.setattr(dice, "_draw_kernel", lambda *a: drawn.append(a[3].size) or real(*a))

    def run(games: int) -> str:
        drawn.clear()
        monkeypatch.setattr(kernels, "_loaded", False)
        monkeypatch.setattr(kernels, "_engaged", False)
        monkeypatch.setattr(kernels, "_marked", False)
        marker.unlink(missing_ok=True)
        return frames_digest(sim.play(rules, "balanced", games, seed=8, batch_size=1))

    compiled = run(12)
    assert len(drawn) > 12 * 50 and max(drawn) <= rules.players  # batches of one game: its seats' rows
    assert marker.exists()
    run(11)
    assert not drawn and not marker.exists()  # one game fewer: the numpy reference
    monkeypatch.setattr(kernels, "_start", False)  # auto, nothing cached: the numpy reference
    assert run(12) == compiled and not drawn
    monkeypatch.setattr(kernels, "_start", None)
    monkeypatch.setattr(kernels, "ENABLED", False)
    assert run(12) == compiled and not drawn


@pytest.mark.parametrize("mode", ["chain", "step"])
def test_cascade_kernel_closes_what_the_numpy_cascade_closes(monkeypatch, mode):
    """4,096 random positions (each order open with probability 1/4), a cascade from a random region in each of a
    random half of the games: the same orders closed and counted."""
    rules, state = blank(4096, 5, **{"india.cascade": mode})
    rng = np.random.default_rng(5)
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    region = rng.integers(0, len(rules.d.regions), rows.size)
    state.order_open[:] = rng.random(state.order_open.shape) < 0.25
    state.tally[:] = rng.integers(0, 3, state.tally.shape)
    after = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        open_, tally = state.order_open.copy(), state.tally.copy()
        india.cascade(state, rules, rows, region)
        after.append((state.order_open.copy(), state.tally.copy()))
        state.order_open[:], state.tally[:] = open_, tally
    (ref_open, ref_tally), (k_open, k_tally) = after
    assert not np.array_equal(ref_open, state.order_open)  # the cascades closed something
    assert np.array_equal(k_open, ref_open) and np.array_equal(k_tally, ref_tally)


@pytest.mark.parametrize("lot_ties", ["catalogue", "random"])
def test_auction_kernel_allocates_the_lots_of_the_numpy_auction(monkeypatch, lot_ties):
    """D-ALLOC over 4,096 random bid programs (small bids: many tied bids and reaches; a zero bid on a lot a
    quarter of the time, so some lots go at random): the same winners, prices and final bids, and each game's
    stream left where the numpy loop leaves it (as many uniforms drawn)."""
    rules = Rules.default(5).with_overrides({"auction.lot_ties": lot_ties})
    g, n, n_lots = 4096, 5, len(rules.d.lot_names)
    rng = np.random.default_rng(11)
    base = rng.integers(0, 4, (g, n, n_lots)) * (rng.random((g, n, n_lots)) < 0.75)
    step = rng.integers(0, 3, (g, n, n_lots))
    cap = base + rng.integers(0, 5, (g, n, n_lots))
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        dice = Dice(Streams(7, np.arange(g), 1))
        out.append((*run_auction(base, step, cap, rules, dice, np.arange(g)), dice.streams.counters))
    (winner, price, final, counters), compiled = out
    assert (winner == -1).any() and (final != base).any()  # extra lots left out, ties settled by the programs
    assert ((base.max(axis=1) == 0) & (winner >= 0)).any() and counters.min() > 0  # lots that went at random
    for ref, got in zip(out[0], compiled, strict=True):
        assert np.array_equal(ref, got)


def test_deal_kernels_check_and_gather_the_offers_of_the_numpy_deal(monkeypatch):
    """D-DEALS over 4,096 random tables (notes held by random seats, a few spent; offers of random buyers and
    prices, a few illegal of each kind): the same rows refused, and each note's offer read from its holder."""
    g, n, k = 4096, 5, len(vocabulary.NOTE_KINDS)
    rng = np.random.default_rng(13)
    holder = np.where(rng.random((g, n, k)) < 0.05, -1, rng.integers(0, n, (g, n, k)))
    live = rng.random(g) < 0.9
    seat = np.repeat(np.arange(n)[None, :], g, 0).ravel()
    held = (holder[:, None] == np.arange(n)[None, :, None, None]).reshape(g * n, n, k)
    other = (seat[:, None, None] + rng.integers(1, n, held.shape)) % n
    buyer = np.where(held & (rng.random(held.shape) < 0.3), other, -1)
    faults = rng.random(held.shape) < 0.002  # out of range, to itself, or a note not held (seat 0's)
    buyer = np.where(faults, rng.choice([-2, n, 0], held.shape), buyer)
    price = np.where(rng.random(held.shape) < 0.001, -1, rng.integers(0, 4, held.shape))
    offer_to, ask_price = buyer.reshape(g, n, n, k), price.reshape(g, n, n, k)
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        bad = notes.offer_faults(buyer, price, held, seat, n)
        out.append((bad, *notes.holders_offers(holder, live, offer_to, ask_price)))
    (bad, sold_to, sold_at), compiled = out
    assert 0 < bad.sum() < 0.2 * bad.size and (sold_to >= 0).any() and (sold_to[~live] == -1).all()
    for ref, got in zip(out[0], compiled, strict=True):
        assert np.array_equal(ref, got)


def test_opening_gain_kernel_values_the_openings_of_the_numpy_valuation(monkeypatch):
    """``strategies.values.opening_gain`` over 4,096 random boards (each order open with probability 1/2, each
    presidency with a President with probability 2/3, regions owned by the Company, China open or not): the same
    value of every opening and of the route to China."""
    rules, state = blank(4096, 5)
    rng = np.random.default_rng(17)
    state.order_open[:] = rng.random(state.order_open.shape) < 0.5
    president = rng.random((4096, len(L.PRESIDENT))) < 2 / 3
    state.office[:, list(L.PRESIDENT)] = np.where(president, rng.integers(0, 5, president.shape), -1)
    state.owner[:] = np.where(rng.random(state.owner.shape) < 0.2, 0, -1)
    state.china_open[:] = rng.random(4096) < 0.5
    gains = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        gains.append(V.opening_gain(Observation(state, rules, np.arange(4096), np.zeros(4096, np.int64), None)))
    assert (gains[0][:, :-1] > 0).mean() > 0.1 and (gains[0][:, -1] > 0).any()  # openings that add value
    assert np.array_equal(gains[0], gains[1])


def test_trade_worth_kernel_values_the_ships_of_the_numpy_valuation(monkeypatch):
    """``strategies.values.trade_worth`` over 4,096 random boards (each order reachable by each presidency with
    probability 1/3, 0 to 25 ships a sea: none, fewer and more than the orders): the same worth of the best orders
    and the same regions outside home they lie in (ties with the worst order taken all counted)."""
    rules, state = blank(4096, 5)
    rng = np.random.default_rng(19)
    reach = rng.random((4096, len(L.PRESIDENT), len(rules.d.orders))) < 1 / 3
    ships = rng.integers(0, 26, (4096, len(L.PRESIDENT)))
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        out.append(
            V.trade_worth(Observation(state, rules, np.arange(4096), np.zeros(4096, np.int64), None), reach, ships)
        )
    (worth, regions), (k_worth, k_regions) = out
    assert (regions > 0).mean() > 0.5 and (worth > 0).mean() > 0.5
    assert np.array_equal(worth, k_worth) and np.array_equal(regions, k_regions)


@pytest.mark.parametrize(("cost", "cap"), [(1.0, 8), (0.5, 5), (2, 8)])
def test_best_dice_kernel_picks_the_dice_of_the_numpy_choice(monkeypatch, cost, cap):
    """``strategies.values.best_dice`` over 4,096 random worths (fractions of £ 0..30) and dice allowed (-2..10):
    the same dice, the first of equal gains, 0 where no die is allowed."""
    rules = Rules.default(5)
    rng = np.random.default_rng(23)
    worth = np.round(rng.random(4096) * 30, 1)
    most = rng.integers(-2, 11, 4096)
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        out.append(V.best_dice(rules, worth, most, cost, cap))
    assert len(np.unique(out[0])) >= 4
    assert np.array_equal(out[0], out[1])


def test_trade_kernel_makes_the_trades_of_the_numpy_president(monkeypatch):
    """A President's trade (``strategies.company.trade``) over 4,096 random seas (each order reachable with
    probability 0.4, 0 to 6 ships, 0 to 12 £, a random presidency, a quarter in the last round): the same orders
    (the best, or the home region's only), the same £ spent and clerks placed."""
    rules, state = blank(4096, 5)
    rng = np.random.default_rng(29)
    state.round[:] = np.where(rng.random(4096) < 0.25, rules.game.rounds, 3)
    legal = SimpleNamespace(
        orders=rng.random((4096, len(rules.d.orders))) < 0.4,
        ships=rng.integers(0, 7, 4096),
        treasury=rng.integers(0, 13, 4096),
        presidency=rng.integers(0, len(L.PRESIDENT), 4096),
        clerks=rng.integers(0, 3, (4096, 5)),
    )
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        obs = Observation(state, rules, np.arange(4096), np.zeros(4096, np.int64), None)
        out.append(Strategy().trade(obs, legal))
    spend, orders, _ = out[0]
    home = rules.d.order_region == rules.d.home[legal.presidency][:, None]
    assert (spend > 0).mean() > 0.5 and ((orders & ~home).any(axis=1) & (spend > 0)).any()
    assert (legal.orders.sum(axis=1) > legal.ships).any()  # fewer ships than orders: the best taken
    for ref, got in zip(out[0], out[1], strict=True):
        assert np.array_equal(ref, got)


@pytest.mark.parametrize("lease_reserve", [0.0, 0.5])
def test_buy_ships_kernel_buys_the_ships_of_the_numpy_shipping_manager(monkeypatch, lease_reserve):
    """The Shipping Manager's purchases (``strategies.company.buy_ships``) over 4,096 random boards (orders open
    with probability 1/2, random Presidents and ships at sea, 0 to 30 £, free family yards at 1 to 4 £, rounds 1 to
    7), money kept or not to lease the other ships wanted: the same leased, Company and yard ships in every sea."""
    rules, state = blank(4096, 5)
    rng = np.random.default_rng(31)
    state.order_open[:] = rng.random(state.order_open.shape) < 0.5
    president = rng.random((4096, len(L.PRESIDENT))) < 0.8
    state.office[:, list(L.PRESIDENT)] = np.where(president, rng.integers(0, 5, president.shape), -1)
    state.ships[:, :, L.COMPANY_SHIP] = rng.integers(0, 3, state.ships.shape[:2])
    state.round[:] = rng.integers(1, rules.game.rounds + 1, 4096)
    legal = SimpleNamespace(
        money=rng.integers(0, 31, 4096),
        free_yards=rng.integers(0, 3, (4096, 5)) * (rng.random((4096, 5)) < 0.3),
        yard_cost=rng.integers(1, 5, 4096),
    )
    seat, out = rng.integers(0, 5, 4096), []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        manager = Strategy(lease_reserve=lease_reserve)
        out.append(manager.buy_ships(Observation(state, rules, np.arange(4096), seat, None), legal))
    leased, company, yard = out[0]
    assert (leased.sum(axis=1) > 1).any() and company.any() and yard.any()
    for ref, got in zip(out[0], out[1], strict=True):
        assert np.array_equal(ref, got)


def test_port_worth_kernel_finds_the_best_port_of_the_numpy_valuation(monkeypatch):
    """A firm's best port (``strategies.firms.best_port``) over 4,096 random boards (orders open with probability
    1/2, a third of them filled already: half value), counting the 0 to 20 best orders: the same port and worth."""
    rules, state = blank(4096, 5)
    rng = np.random.default_rng(37)
    state.order_open[:] = rng.random(state.order_open.shape) < 0.5
    state.order_filled[:] = rng.random(state.order_filled.shape) < 0.2
    state.firm_filled[:] = rng.random(state.firm_filled.shape) < 0.15
    limit = rng.integers(0, 21, 4096)
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        out.append(
            firm_play.best_port(Observation(state, rules, np.arange(4096), np.zeros(4096, np.int64), None), limit)
        )
    (port, worth), compiled = out
    assert len(np.unique(port)) == len(L.PRESIDENT) and (worth > 0).mean() > 0.5  # every port chosen somewhere
    for ref, got in zip(out[0], compiled, strict=True):
        assert np.array_equal(ref, got)


def test_director_moves_kernel_moves_the_ships_of_the_numpy_director(monkeypatch):
    """The Director of Trade's moves (``strategies.company.director_moves``) over 4,096 random boards (orders open
    with probability 1/2, random Presidents, 0 to 3 Company ships and family yard ships in each location, China open
    with opium or not): the same moves, kinds, families, seas and counts."""
    rules, state = blank(4096, 5)
    rng = np.random.default_rng(41)
    state.order_open[:] = rng.random(state.order_open.shape) < 0.5
    president = rng.random((4096, len(L.PRESIDENT))) < 0.8
    state.office[:, list(L.PRESIDENT)] = np.where(president, rng.integers(0, 5, president.shape), -1)
    state.office[:, L.CHINA] = np.where(rng.random(4096) < 0.5, 1, -1)
    state.china_open[:] = rng.random(4096) < 0.5
    state.owner[:] = np.where(rng.random(state.owner.shape) < 0.3, 0, -1)
    state.ships[:, :, L.COMPANY_SHIP] = rng.integers(0, 4, state.ships.shape[:2])
    state.yard_ships[:] = rng.integers(0, 2, state.yard_ships.shape) * (rng.random(state.yard_ships.shape) < 0.2)
    legal = SimpleNamespace(ships=state.ships.copy(), yard_ships=state.yard_ships.copy())
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        out.append(
            Strategy().director_moves(Observation(state, rules, np.arange(4096), np.zeros(4096, np.int64), None), legal)
        )
    kind, dst = out[0][0], out[0][3]
    assert (kind == L.MOVE_COMPANY_SHIPS).any() and (kind == L.MOVE_YARD_SHIPS).any()
    assert (dst[kind != L.MOVE_NONE] == L.CHINA_LOC).any()  # ships sent to China
    for ref, got in zip(out[0], out[1], strict=True):
        assert np.array_equal(ref, got)


def politics_position(games: int, seed: int) -> tuple[Rules, State]:
    """Random holdings (a third of the families holding nothing of an asset), conspicuous wealth, ladders with
    shared rungs, Chairmen and Prime Ministers (some games without), the wealth tax repealed in a quarter of the
    games; a tax of 2 £ and a bonus of 3 £ per asset so that no two policy kinds are worth alike."""
    rules, state = blank(games, 5, **{"parliament.tax": 2, "parliament.bonus": 3})
    rng = np.random.default_rng(seed)
    for field in ("luxuries", "shares", "shipyards", "factories", "wealth"):
        getattr(state, field)[:] = np.where(rng.random((games, 5)) < 1 / 3, 0, rng.integers(1, 6, (games, 5)))
    state.ladder[:] = rng.integers(0, 4, state.ladder.shape)
    state.office[:, L.CHAIRMAN] = rng.integers(-1, 5, games)
    state.prime_minister[:] = rng.integers(-1, 5, games)
    repeal = np.flatnonzero(rules.d.law_mod[:, laws.MOD["no_wealth_tax"]])
    state.law_pile[:, repeal] = np.where(rng.random((games, 1)) < 0.25, laws.IN_FORCE, laws.DECK)
    return rules, state


def seats_of_every_game(rules: Rules, state: State) -> Observation:
    """An observation with a row for each seat of every game (a simultaneous decision, ``Agents.ask_seats``)."""
    games, n = state.n_games, rules.players
    return Observation(state, rules, np.repeat(np.arange(games), n), np.tile(np.arange(n), games), None)


def both_ways(monkeypatch, compute) -> list:
    """``compute()`` with the numpy reference, then with the kernels."""
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        out.append(compute())
    return out


def same_bits(ref: np.ndarray, got: np.ndarray) -> bool:
    return ref.dtype == got.dtype and ref.shape == got.shape and ref.tobytes() == got.tobytes()


def test_policy_values_kernel_gives_the_worths_of_the_numpy_policy_values(monkeypatch):
    """``strategies.politics.my_policy_values`` (D-POLICY) for every seat of 2,048 random positions: the same worth
    of every policy of the track, bit for bit (the sign of a zero tax included)."""
    rules, state = politics_position(2048, 19)
    ref, got = both_ways(monkeypatch, lambda: politics.my_policy_values(seats_of_every_game(rules, state)))
    kind = rules.d.policy_kind
    for k in (laws.POWER, laws.TAX, laws.BONUS):  # every kind is worth something somewhere, and nothing elsewhere
        assert 0.2 < (ref[:, kind == k] != 0).mean() < 0.9
    assert (ref[:, kind == laws.POWER] < 0).any() and (ref[:, kind == laws.POWER] > 0).any()
    assert same_bits(ref, got)


def test_stakes_kernel_gives_the_stakes_of_the_numpy_stakes(monkeypatch):
    """``strategies.politics.stakes`` of every family (once per game, as ``vote`` asks it) and ``my_stake`` of each
    seat over 2,048 random positions with a random law (-1 in some games; the laws with valued effects in many)
    and policy (-1 in some): the same stakes, bit for bit."""
    rules, state = politics_position(2048, 23)
    rng = np.random.default_rng(29)
    valued = np.array([0, 18])  # money per factory, share VP
    law = np.where(rng.random(2048) < 0.5, rng.choice(valued, 2048), rng.integers(-1, len(rules.d.law_names), 2048))
    policy = rng.integers(-1, len(rules.d.policy_kind), 2048)
    n = rules.players
    law_rows, policy_rows = np.repeat(law, n), np.repeat(policy, n)

    obs = seats_of_every_game(rules, state)

    def compute():
        obs.__dict__.pop("_values", None)  # nothing computed the other way
        return V.on_games(obs, politics.stakes, law_rows, policy_rows), politics.my_stake(obs, law_rows, policy_rows)

    (ref, ref_mine), (got, got_mine) = both_ways(monkeypatch, compute)
    assert (ref != 0).mean() > 0.5 and (ref < 0).any() and (politics.law_value(obs, law_rows) > 0).mean() > 0.2
    assert np.array_equal(ref_mine, ref[np.arange(obs.n), obs.seat])  # each seat's own column
    assert same_bits(ref, got) and same_bits(ref_mine, got_mine)


def test_best_law_kernel_picks_the_law_of_the_numpy_best_law(monkeypatch):
    """``strategies.politics.best_law`` (what ``table_law`` tables) for the Prime Minister of 4,096 random positions
    with random candidates (none in some games) and policy options (-1 or the same policy on both sides in some):
    the same law, side and worth, ties to the first (law, side)."""
    rules, state = politics_position(4096, 31)
    rng = np.random.default_rng(37)
    n_laws, n_policies = len(rules.d.law_names), len(rules.d.policy_kind)
    candidates = (rng.random((4096, n_laws)) < 0.15) & (rng.random((4096, 1)) < 0.95)
    options = rng.integers(-1, n_policies, (4096, n_laws, 2)).astype(np.int16)
    options[:, :, 1] = np.where(rng.random((4096, n_laws)) < 0.3, options[:, :, 0], options[:, :, 1])
    seat = np.maximum(state.prime_minister, 0).astype(np.int64)

    def compute():
        return politics.best_law(Observation(state, rules, np.arange(4096), seat, None), candidates, options)

    ref, got = both_ways(monkeypatch, compute)
    law, side, worth = ref
    assert np.isneginf(worth).any() and (worth < 0).mean() > 0.05 and (worth > 0).mean() > 0.3
    assert (side == 1).mean() > 0.2 and np.unique(law).size > 20  # ties go to side 0
    for r, g in zip(ref, got, strict=True):
        assert same_bits(r, g)


def test_seat_counts_kernel_counts_the_holdings_of_the_numpy_count(monkeypatch):
    """``board.seat_counts`` over 4,096 random int8 holder rows (nobody, a seat, a seat out of range), counted and
    weighed by per-entry and per-(game, entry) weights, including negative ones: the same int64 sums."""
    from sim.board import seat_counts

    g, k, n = 4096, 37, 5
    rng = np.random.default_rng(21)
    holder = rng.integers(-1, n + 1, (g, k)).astype(np.int8)
    per_entry, per_game = rng.integers(-2, 5, k), rng.integers(0, 9, (g, k)).astype(np.int32)
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        out.append([seat_counts(holder, n, w) for w in (None, per_entry, per_game)])
    assert out[0][0].mean() > 4 and (out[0][1] < 0).any() and out[0][2].max() > 40
    for ref, got in zip(*out, strict=True):
        assert got.dtype == np.int64 and np.array_equal(ref, got)


def test_appoint_kernel_appoints_the_candidates_of_the_numpy_appointer(monkeypatch):
    """``Strategy.appoint`` (R-APPOINT) over 4,096 random appointments (offices held by random families, random
    candidates and sources, some rows with none, the appointer's own relatives or not): the same family and source."""
    g, n, k, s = 4096, 5, 11, 17
    rng = np.random.default_rng(5)
    obs = SimpleNamespace(
        office=rng.integers(-1, n, (g, k)).astype(np.int8), seat=rng.integers(0, n, g), players=n, n=g
    )
    cand = (rng.random((g, n, s)) < 0.08) & (rng.random(g) < 0.95)[:, None, None]
    legal = SimpleNamespace(candidates=cand)
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        out.append(Strategy().appoint(obs, legal))
    (family, source), compiled = out
    own = cand[np.arange(g), obs.seat].any(axis=1)
    assert (family == obs.seat)[own].all() and (family != obs.seat)[~own & cand.any(axis=(1, 2))].all()
    assert len(np.unique(source)) > 10
    for ref, got in zip(out[0], compiled, strict=True):
        assert np.array_equal(ref, got)


def test_the_bench_times_a_whole_command_with_its_workers(tmp_path):
    """``--end-to-end`` counts the CPU seconds of the command's whole process tree (its workers' included), the
    processes that said they compiled the kernels and the peak memory of the largest process that played (the run's
    ``play_peak_mib``)."""
    from experiments import runner
    from sim import bench

    args = ["run", "--games", "20", "--no-report", "--jobs", "1"]
    cpu, wall, compiled, played = bench.command_cpu_seconds(args, tmp_path)
    assert cpu > 0.5 and wall > 0 and compiled == 0  # an interpreter and a worker; 20 games run no kernel
    counted = runner.peak_mib() is not None  # not on a system without ``resource``
    assert played > 30 if counted else played is None  # a process that imported numpy and polars, at least
    if hasattr(os, "sched_setaffinity") and len(bench.CORES) > 1:  # pinned to one core, it runs commands on all
        here = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {min(bench.CORES)})
        try:
            code = "import os; print(len(os.sched_getaffinity(0)))"
            seen = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                  preexec_fn=bench.on_every_core)  # fmt: skip
        finally:
            os.sched_setaffinity(0, here)
        assert seen.stdout.strip() == str(len(bench.CORES))
    with pytest.raises(RuntimeError, match="--games"):
        bench.command_cpu_seconds(["run", "--games", "-3"])


def test_the_bench_reports_cpu_seconds_and_a_profile_per_phase_and_decision():
    """Run as a user runs it: the built-ins answer unchecked (the suite's EASTINDIA_CHECK_BUILTINS left out)."""
    cmd = [sys.executable, "-m", "sim.bench", "--sizes", "2", "--repeats", "1", "--min-games", "2", "--profile"]
    env = {k: v for k, v in os.environ.items() if k != "EASTINDIA_CHECK_BUILTINS"}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    head, row = out.splitlines()[2].split(), out.splitlines()[3].split()
    assert head == ["batch", "games/run", "games/CPU-s", "games/s", "speed-up", "games/CPU-s", "peak", "MiB"]
    assert row[0] == "2" and float(row[2]) > 0 and float(row[5]) > 0  # the engine alone, then sim.play with frames
    assert "profile of one batch of 2:" in out
    phases = dict(
        line.split()[:2] for line in out.split("phase (decisions included)")[1].split("\n\n")[0].splitlines()[1:]
    )
    assert {"setup", "family_actions", "india", "end_game"} <= set(phases) and float(phases["family_actions"]) > 0
    asks = [line.split() for line in out.split("decision  ")[1].splitlines()[1:]]
    family = next(row for row in asks if row[0] == "family_action")
    assert float(family[1]) >= float(family[4]) > 0  # the whole ask includes the strategy's method


KEPT_MEMORY = """
import resource, sys
import sim
sys.path.insert(0, "tests")
from test_kernels import frames_digest
res = sim.play(sim.Rules.default(5), ["bid_low", "buy_shares", "run_firm", "go_military", "balanced"], 300, seed=3)
print(frames_digest(res), resource.getrusage(resource.RUSAGE_SELF).ru_minflt)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_kept_freed_memory_plays_the_same_games_with_fewer_page_faults():
    """``sim.memory.keep_freed_memory`` (on by default, ``EASTINDIA_KEEP_MEMORY=0`` off) changes how the process
    gets its memory, never a game: the same frames either way, and the batch's temporaries reuse freed blocks
    instead of faulting in fresh pages."""
    runs = {}
    for keep in ("0", "1"):
        env = {**os.environ, "EASTINDIA_KEEP_MEMORY": keep}
        done = subprocess.run([sys.executable, "-c", KEPT_MEMORY], capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr
        runs[keep] = done.stdout.split()
    assert runs["0"][0] == runs["1"][0]  # the same games
    assert int(runs["1"][1]) < 0.5 * int(runs["0"][1])  # minor page faults: ~110,000 without, ~26,000 with


@pytest.mark.parametrize("overrides", [{}, {"retirement.stress_bonus": 2, "retirement.chairman_bonus": 0}])
def test_retirement_roll_kernel_retires_and_stresses_the_holders_of_the_numpy_roll(monkeypatch, overrides):
    """R-RETIRE roll outcomes (``london.roll_outcomes``) over 4,096 random games of a larger batch (every office
    held or vacant, 0-4 stress markers, random dice, each game's i-th die for its i-th holder): the same holders
    retire, the same gain a stress marker, and the same stress markers are left on every office of the batch."""
    from sim.phases.london import roll_outcomes

    rules = Rules.default(5).with_overrides(overrides) if overrides else Rules.default(5)
    g, rows_n = 6000, 4096
    offices = np.flatnonzero(rules.d.retire_offices)
    rng = np.random.default_rng(31)
    rows = np.sort(rng.choice(g, rows_n, replace=False))
    held = rng.random((rows_n, offices.size)) < 0.7
    faces = rng.integers(1, 7, (rows_n, offices.size)).astype(np.int64)
    stress = rng.integers(0, 5, (g, L.N_OFFICES)).astype(np.int8)
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        after = stress.copy()
        out.append((*roll_outcomes(after, rules, rows, offices, held, faces), after))
    (retiring, gained, after), compiled = out
    assert 0.2 < retiring[held].mean() < 0.9 and 0.1 < (gained > 0).mean() < 0.9 and gained.max() >= 3
    assert not retiring[~held].any() and (after >= stress).all() and (after != stress).any()
    for ref, got in zip(out[0], compiled, strict=True):
        assert ref.dtype == got.dtype or ref.dtype.kind == got.dtype.kind == "i"
        assert np.array_equal(ref, got)


def test_march_kernel_moves_the_crisis_marker_of_the_numpy_march(monkeypatch):
    """R-ELEPHANT over 4,096 random maps of empires (each region a Company region a fifth of the time, dominated
    by a random region a third of the time; in a quarter of the games the target region rules all its neighbours),
    the marker marching to a random region by a random shape in a random half of the games: the same tail and
    head, and the other games' markers untouched."""
    rules, state = blank(4096, 5)
    n_r = len(rules.d.regions)
    rng = np.random.default_rng(17)
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    region = rng.integers(0, n_r, rows.size)
    shape = rng.integers(0, len(L.SHAPES) + 1, rows.size)
    own = np.arange(n_r)[None, :]
    state.capital[:] = np.where(rng.random((4096, n_r)) < 1 / 3, rng.integers(0, n_r, (4096, n_r)), own)
    state.owner[:] = np.where(rng.random((4096, n_r)) < 0.2, rng.integers(0, L.PRESIDENCIES, (4096, n_r)), -1)
    ruler = rng.random(rows.size) < 0.25  # a sovereign capital ruling every neighbour
    g, x = rows[ruler], region[ruler]
    state.capital[g] = np.where(rules.d.adjacent[x], x[:, None], state.capital[g])
    state.capital[g, x], state.owner[g, x] = x, -1
    state.elephant_at[:] = rng.integers(0, n_r, 4096)
    state.elephant_facing[:] = rng.integers(-1, n_r, 4096)
    after = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        at, facing = state.elephant_at.copy(), state.elephant_facing.copy()
        india.march(state, rules, rows, region, shape)
        after.append((state.elephant_at.copy(), state.elephant_facing.copy()))
        state.elephant_at[:], state.elephant_facing[:] = at, facing
    (ref_at, ref_facing), (k_at, k_facing) = after
    inward, towards_capital = ref_facing[rows] < 0, ref_at[rows] == region
    assert inward.any() and (~inward & towards_capital).any()  # Company regions, marches from the region
    assert (ref_at[rows] != region).any() and (ref_facing[rows] == region).any()  # a ruler of all its neighbours
    assert np.array_equal(k_at, ref_at) and np.array_equal(k_facing, ref_facing)


def test_storm_kernels_batter_the_ships_of_the_numpy_storm(monkeypatch):
    """R-STORM over 4,096 random yards (0-3 ships per seat and sea, some damaged) with random seas hit in a random
    half of the games: the same dice rolled (each game's stream left at the same place), the same ships damaged
    and sunk, the same tallies."""
    rules, state = blank(4096, 5)
    rng = np.random.default_rng(19)
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    hit = rng.random((rows.size, L.PRESIDENCIES)) < 0.5
    state.yard_ships[:] = rng.integers(0, 4, state.yard_ships.shape)
    state.yard_damaged[:] = np.minimum(rng.integers(0, 2, state.yard_ships.shape), state.yard_ships)
    state.tally[:] = rng.integers(0, 3, state.tally.shape)
    before = state.yard_ships.copy(), state.yard_damaged.copy(), state.tally.copy()
    after = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        state.yard_ships[:], state.yard_damaged[:], state.tally[:] = (a.copy() for a in before)
        dice = Dice(Streams(23, np.arange(4096), 1))
        india.batter_ships(state, rules, dice, rows, hit)
        after.append((state.yard_ships.copy(), state.yard_damaged.copy(), state.tally.copy(), dice.streams.counters))
    (ships, damaged, tally, counters), compiled = after
    was_damaged = before[1] > 0
    assert (ships < before[0]).any() and (damaged > before[1]).any()  # ships sunk, sound ships damaged
    assert (was_damaged & (ships < before[0]) & (damaged < before[1])).any()  # damaged ships lost
    assert counters.max() > 10 and (counters == 0).any()
    for ref, got in zip(after[0], compiled, strict=True):
        assert np.array_equal(ref, got)


def test_empire_strength_kernel_sums_the_empires_of_the_numpy_sum(monkeypatch):
    """R-EMPIRES over 4,096 random maps (each region dominated by a random region a third of the time, a Company
    region a fifth of the time, strength 0-4), a random region in a random half of the games: the same strength."""
    rules, state = blank(4096, 5)
    n_r = len(rules.d.regions)
    rng = np.random.default_rng(29)
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    region = rng.integers(0, n_r, rows.size)
    own = np.arange(n_r)[None, :]
    state.capital[:] = np.where(rng.random((4096, n_r)) < 1 / 3, rng.integers(0, n_r, (4096, n_r)), own)
    state.owner[:] = np.where(rng.random((4096, n_r)) < 0.2, rng.integers(0, L.PRESIDENCIES, (4096, n_r)), -1)
    state.strength[:] = rng.integers(0, 5, (4096, n_r))
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        out.append(india.empire_strength(state, rows, region))
    ref, got = out
    alone = np.where(state.owner[rows, region] < 0, state.strength[rows, region], 0)
    assert (ref > alone).any() and (ref == 0).any()  # empires of several regions; Company or strength-0 regions
    assert ref.dtype == got.dtype and np.array_equal(ref, got)


def _closing_positions(mode: str, seed: int):
    """(rules, state, rows, region, inside): 4,096 random positions (each order open with probability 1/4, so many
    regions have none open) under cascade ``mode``, a random region closing in a random half of the games (``rows``),
    ``inside`` its orders open there."""
    rules, state = blank(4096, 5, **{"india.cascade": mode})
    rng = np.random.default_rng(seed)
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    region = rng.integers(0, len(rules.d.regions), rows.size)
    state.order_open[:] = rng.random(state.order_open.shape) < 0.25
    state.tally[:] = rng.integers(0, 3, state.tally.shape)
    return rules, state, rows, region, rules.d.order_in_region.T[region] & state.order_open[rows]


def state_both_ways(monkeypatch, state, fields, call):
    """(before, numpy's, the kernels'): the state's ``fields`` before ``call()``, and after it run by the numpy
    reference and by the kernels, each from the same start (``"out"``: what ``call`` returned); the state is put back
    as it was before."""
    before = {f: getattr(state, f).copy() for f in fields}
    after = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        for f in fields:
            getattr(state, f)[:] = before[f]
        out = call()
        after.append({"out": out, **{f: getattr(state, f).copy() for f in fields}})
    for f in fields:
        getattr(state, f)[:] = before[f]
    return before, *after


@pytest.mark.parametrize("mode", ["chain", "step", "none"])
@pytest.mark.parametrize("cascading", [True, False])
def test_close_all_kernel_closes_what_the_numpy_close_all_closes(monkeypatch, mode, cascading):
    """4,096 random positions (each order open with probability 1/4, so many regions have none open), every order
    of a random region closing in a random half of the games, cascading or not: the same orders closed and
    counted."""
    rules, state, rows, region, inside = _closing_positions(mode, 31)
    close = functools.partial(india.close_all, state, rules, rows, region, cascading=cascading)
    _, ref, got = state_both_ways(monkeypatch, state, ["order_open", "tally"], close)
    (ref_open, ref_tally), (k_open, k_tally) = (ref["order_open"], ref["tally"]), (got["order_open"], got["tally"])
    none_open = ~inside.any(axis=1)
    assert none_open.any() and not none_open.all()
    cascaded = (ref_open[rows[none_open]] != state.order_open[rows[none_open]]).any()
    assert cascaded == (cascading and mode != "none")  # regions with none open cascaded (or not)
    assert np.array_equal(k_open, ref_open) and np.array_equal(k_tally, ref_tally)


@pytest.mark.parametrize("mode", ["chain", "step", "none"])
def test_close_northernmost_kernel_closes_what_the_numpy_turmoil_closes(monkeypatch, mode):
    """R-TURMOIL over 4,096 random positions (each order open with probability 1/4): the northernmost open order of
    a random region closing in a random half of the games, the region cascading where none is open: the same
    orders closed and counted."""
    rules, state, rows, region, inside = _closing_positions(mode, 37)
    close = functools.partial(india.close_northernmost, state, rules, rows, region)
    _, ref, got = state_both_ways(monkeypatch, state, ["order_open", "tally"], close)
    (ref_open, ref_tally), (k_open, k_tally) = (ref["order_open"], ref["tally"]), (got["order_open"], got["tally"])
    closed = (ref_open[rows] != state.order_open[rows]).sum(axis=1)
    several = inside.sum(axis=1) > 1
    assert (closed[several] == 1).all() and several.any()  # one order of a region with several open
    assert (closed[~inside.any(axis=1)] > 0).any() == (mode != "none")  # the cascades
    assert np.array_equal(k_open, ref_open) and np.array_equal(k_tally, ref_tally)


@pytest.mark.parametrize("clerks", ["presidency_in_area", "home_in_area"])
def test_windfall_kernel_pays_what_the_numpy_windfall_pays(monkeypatch, clerks):
    """R-WINDFALL over 4,096 random boards (regions held by random presidencies, 0-2 clerks per family and
    presidency), a Windfall hitting a random region in a random half of the games: the same money paid."""
    from sim.phases.india import windfall

    rules, state = blank(4096, 5, **{"india.windfall_clerks": clerks})
    n_r = len(rules.d.regions)
    rng = np.random.default_rng(41)
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    state.owner[:] = np.where(rng.random((4096, n_r)) < 0.4, rng.integers(0, L.PRESIDENCIES, (4096, n_r)), -1)
    state.clerks[:] = rng.integers(0, 3, state.clerks.shape)
    tile = int(np.flatnonzero(rules.d.tile_kind == L.E_WINDFALL)[0])
    ev = Event.of(state, rules, rows, tile)
    ev.region[rows] = rng.integers(0, n_r, rows.size)
    money = state.money.copy()
    after = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        state.money[:] = money
        windfall(state, rules, None, None, ev)
        after.append(state.money - money)
    ref, got = after
    assert (
        (ref[rows] > 0).any()
        and (ref[rows].sum(axis=1) == 0).any()
        and not ref[np.setdiff1d(np.arange(4096), rows)].any()
    )
    assert np.array_equal(ref, got)


def test_peace_kernel_makes_the_peace_of_the_numpy_peace(monkeypatch):
    """R-PEACE over 4,096 random boards (the crisis marker inside a random region a third of the time, else on a
    random border; orders open with probability 1/2, random unrest, owners and strength): the same orders opened
    and counted, unrest removed, strength gained and the marker's march."""
    from sim.phases.india import peace

    rules, state = blank(4096, 5)
    d = rules.d
    n_r = len(d.regions)
    rng = np.random.default_rng(43)
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    at = rng.integers(0, n_r, 4096)
    nb = d.clockwise[at, rng.integers(0, 100, 4096) % d.degree[at]]
    state.elephant_at[:], state.elephant_facing[:] = at, np.where(rng.random(4096) < 1 / 3, -1, nb)
    state.order_open[:] = rng.random(state.order_open.shape) < 0.5
    state.unrest[:] = rng.integers(0, 3, state.unrest.shape)
    state.owner[:] = np.where(rng.random((4096, n_r)) < 0.4, rng.integers(0, L.PRESIDENCIES, (4096, n_r)), -1)
    state.strength[:] = rng.integers(0, 4, state.strength.shape)
    tile = int(np.flatnonzero(d.tile_kind == L.E_PEACE)[0])
    ev = Event.of(state, rules, rows, tile)
    fields = ["order_open", "tally", "unrest", "strength", "elephant_at", "elephant_facing"]
    before, ref, got = state_both_ways(monkeypatch, state, fields, lambda: peace(state, rules, None, None, ev))
    assert all((ref[f] != before[f]).any() for f in ["order_open", "tally", "unrest", "strength"])
    assert (ref["strength"] == before["strength"])[rows].any()  # a Company side does not grow
    for f in fields:
        assert np.array_equal(ref[f], got[f]), f


def random_empires(rules, state, rng):
    """Random empires for the rebellion and invasion kernels: each region dominated by a random region a third of
    the time, a Company region a fifth of the time, strength 0-4, orders open with probability 1/2."""
    n_r = len(rules.d.regions)
    g = state.n_games
    own = np.arange(n_r)[None, :]
    state.capital[:] = np.where(rng.random((g, n_r)) < 1 / 3, rng.integers(0, n_r, (g, n_r)), own)
    state.owner[:] = np.where(rng.random((g, n_r)) < 0.2, rng.integers(0, L.PRESIDENCIES, (g, n_r)), -1)
    state.strength[:] = rng.integers(0, 5, (g, n_r))
    state.order_open[:] = rng.random(state.order_open.shape) < 0.5


def test_rebel_kernel_settles_the_rebellions_of_the_numpy_rebel(monkeypatch):
    """R-EMPIRES over 4,096 random empires, a random region rising with a modifier of -2 to 4 in a random half of
    the games: the same rebellions won (orders closed, cascading) and lost (capitals weakened)."""
    rules, state = blank(4096, 5)
    rng = np.random.default_rng(47)
    random_empires(rules, state, rng)
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    region = rng.integers(0, len(rules.d.regions), rows.size)
    modifier = rng.integers(-2, 5, rows.size)
    fields = ["capital", "strength", "order_open", "tally"]
    before, ref, got = state_both_ways(
        monkeypatch, state, fields, lambda: india.rebel(state, rules, rows, region, modifier)
    )
    assert 0 < ref["out"].sum() < rows.size and all((ref[f] != before[f]).any() for f in fields)
    for f in ref:
        assert np.array_equal(ref[f], got[f]), f


@pytest.mark.parametrize("max_empires", [1, 3])
def test_invade_kernel_settles_the_invasions_of_the_numpy_invade(monkeypatch, max_empires):
    """R-CRISIS, R-EMPIRES over 4,096 random empires, a random region invading a random neighbour with a modifier
    of -2 to 4 in a random half of the games: the same invasions won (empires shattered, joined or founded, or
    the defender alone at the cap of empires) and lost (attackers weakened)."""
    rules, state = blank(4096, 5, **{"india.max_empires": max_empires})
    d = rules.d
    rng = np.random.default_rng(53)
    random_empires(rules, state, rng)
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    attacker = rng.integers(0, len(d.regions), rows.size)
    defender = d.clockwise[attacker, rng.integers(0, 100, rows.size) % d.degree[attacker]]
    modifier = rng.integers(-2, 5, rows.size)
    fields = ["capital", "strength"]
    invade = functools.partial(india.invade, state, rules, rows, attacker, defender, modifier)
    before, ref, got = state_both_ways(monkeypatch, state, fields, invade)
    joined, won = ref["capital"][rows, defender] == attacker, ref["out"]
    assert 0 < won.sum() < rows.size and (won & joined).any() and (won & ~joined).any()
    assert all((ref[f] != before[f]).any() for f in fields)
    for f in ref:
        assert np.array_equal(ref[f], got[f]), f


def test_reorder_kernel_stacks_the_tiles_of_the_numpy_reorder(monkeypatch):
    """The event stack reordered by random keys in a random half of 4,096 games (random stacks; keys of 0-4, so
    many ties, which keep the stack's order, and keys of [0, 2) as the Shuffle tile's reshuffle makes): the same
    stacks, cursors and next tiles' backs."""
    from sim.phases.india import reorder

    rules, state = blank(4096, 5)
    k = len(rules.d.tile_kind)
    rng = np.random.default_rng(59)
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    state.event_stack[:] = np.argsort(rng.random((4096, k)), axis=1)
    state.event_cursor[:] = rng.integers(-1, k, 4096)
    fields = ["event_stack", "event_cursor", "event_next"]
    for u in (rng.integers(0, 5, (rows.size, k)).astype(float), rng.random((rows.size, k)) * 2):
        before, ref, got = state_both_ways(
            monkeypatch, state, fields, functools.partial(reorder, state, rules, rows, u)
        )
        assert (ref["event_stack"][rows] != before["event_stack"][rows]).any() and (
            ref["event_cursor"][rows] == 0
        ).all()
        for f in fields:
            assert np.array_equal(ref[f], got[f]), f


def family_position(games: int, seed: int) -> tuple[Rules, State]:
    """Random phase-2 positions (R-ACTIONS): rounds 1-7, stability, loans and emergency loans, ladders, a part-filled
    exchange, share VP, open orders, Company and family-yard ships, shipyards, firms with ships (Deregulation
    passed in half the games), Presidents, money, clerks, relatives at home, factories and shares."""
    rules, state = blank(games, 5)
    rng = np.random.default_rng(seed)
    n = rules.players
    state.round[:] = rng.integers(1, rules.game.rounds + 1, games)
    state.stability[:] = rng.integers(1, rules.company.max_stability + 1, games)
    state.loans[:] = rng.integers(0, 8, games)
    state.emergency_total[:] = rng.integers(0, 3, games) * (rng.random(games) < 0.3)
    state.ladder[:] = rng.integers(0, 4, state.ladder.shape)
    state.exchange[:] = np.where(rng.random(state.exchange.shape) < 0.6, rng.integers(0, n, state.exchange.shape), -1)
    state.share_vp[:] = rng.integers(1, 5, games)
    state.order_open[:] = rng.random(state.order_open.shape) < 0.5
    state.ships[:] = rng.integers(0, 3, state.ships.shape)
    state.yard_ships[:] = rng.integers(0, 2, state.yard_ships.shape) * (rng.random(state.yard_ships.shape) < 0.2)
    state.shipyards[:] = rng.integers(0, 3, (games, n)) * (rng.random((games, n)) < 0.5)
    state.deregulated[:] = rng.random(games) < 0.5
    state.firm_manager[:] = np.where(
        state.deregulated[:, None] & (rng.random(state.firm_manager.shape) < 0.4),
        rng.integers(0, n, state.firm_manager.shape),
        -1,
    )
    state.firm_ships[:] = rng.integers(0, 2, state.firm_ships.shape) * (state.firm_manager >= 0)[:, :, None]
    president = rng.random((games, len(L.PRESIDENT))) < 0.7
    state.office[:, list(L.PRESIDENT)] = np.where(president, rng.integers(0, n, president.shape), -1)
    state.money[:] = rng.integers(0, 30, (games, n))
    state.clerks[:] = rng.integers(0, 3, state.clerks.shape) * (rng.random(state.clerks.shape) < 0.4)
    state.supply[:] = rng.integers(0, 6, (games, n))
    state.factories[:] = rng.integers(0, 3, (games, n))
    state.shares[:] = rng.integers(0, 3, (games, n))
    return rules, state


@pytest.mark.parametrize("rows", ["seats", "one seat"])
def test_family_values_kernel_values_the_actions_of_the_numpy_valuation(monkeypatch, rows):
    """``strategies.family.action_values`` (R-ACTIONS) over 4,096 random phase-2 positions, for every seat of each
    game (``ask_seats``) or one random seat per game, with random legal actions (none of some kinds in a second
    ask, as a law's extra action), for ``balanced`` and a strategy with preferences: the same worths, bit for bit
    (-inf where illegal)."""
    from strategies import family

    rules, state = family_position(4096, 61)
    rng = np.random.default_rng(67)
    if rows == "seats":
        obs_rows = lambda: seats_of_every_game(rules, state)  # noqa: E731
    else:
        seat = rng.integers(0, rules.players, 4096)
        obs_rows = lambda: Observation(state, rules, np.arange(4096), seat, None)  # noqa: E731
    n = obs_rows().n
    once = rng.random((n, L.N_ACTIONS)) < 0.8
    once[:, L.A_PASS] = True
    offered = once & np.isin(np.arange(L.N_ACTIONS), [L.A_PASS, L.A_SHIPYARD])  # one kind besides passing
    prefs = {"prefer_luxury": 0.5, "prefer_shares": -1.25, "prefer_officer": 2.0, "vp_worth": 3.0}
    for strategy in (Strategy(), Strategy(**prefs)):
        for legal in (SimpleNamespace(once=offered), SimpleNamespace(once=once)):
            ref, got = both_ways(monkeypatch, lambda: family.action_values(strategy, obs_rows(), legal))  # noqa: B023
            assert same_bits(ref, got)
        best = np.bincount(ref.argmax(axis=1), minlength=L.N_ACTIONS)  # every action legal: the last ask
        assert (np.delete(best, L.A_OFFICER) > n // 500).all()  # every action but the officer is best somewhere
        yard = ref[:, L.A_SHIPYARD][once[:, L.A_SHIPYARD]]
        assert (yard == 1.5).any() and len(np.unique(yard)) > 5  # a firm wants a yard; the seas want ships


@pytest.mark.parametrize("rows", ["seats", "one seat"])
def test_choose_kernel_takes_the_actions_of_the_numpy_choice(monkeypatch, rows):
    """``strategies.family.choose`` (R-ACTIONS) over 4,096 random phase-2 positions: random worths in steps of 0.5
    (many ties; a negative or NaN worth of passing in some rows, NaN elsewhere in a few, as a plugin's valuation
    might give), random actions allowed once and twice: the same action, twice and clerks' presidencies (ties to
    the first presidency)."""
    from strategies import family

    rules, state = family_position(4096, 71)
    rng = np.random.default_rng(73)
    if rows == "seats":
        obs = seats_of_every_game(rules, state)
    else:
        obs = Observation(state, rules, np.arange(4096), rng.integers(0, rules.players, 4096), None)
    n = obs.n
    value = rng.integers(-4, 6, (n, L.N_ACTIONS)) / 2.0
    value[rng.random((n, L.N_ACTIONS)) < 0.005] = np.nan
    once = rng.random((n, L.N_ACTIONS)) < 0.8
    once[:, L.A_PASS] = rng.random(n) < 0.97
    legal = SimpleNamespace(once=once, twice=once & (rng.random((n, L.N_ACTIONS)) < 0.5))
    ref, got = both_ways(monkeypatch, lambda: family.choose(obs, legal, value))
    action, twice, where = ref
    assert (np.bincount(action, minlength=L.N_ACTIONS) > n // 100).all() and 0.1 < twice.mean() < 0.5
    clerk = action == L.A_CLERK
    assert len(np.unique(where[clerk, 0])) == len(L.PRESIDENT) and (where[clerk, 0] != where[clerk, 1]).all()
    for r, g in zip(ref, got, strict=True):
        assert same_bits(r, g)


def test_settle_kernel_seats_the_commanders_of_the_numpy_settling(monkeypatch):
    """R-COMMANDER over 4,096 random armies (0-2 officers per family and army, so many ties and empty armies; a
    random sitting commander or none; Military Affairs held in half the games, picking the last tied family, else
    chance picks), every army re-seated in a random half of the games and one army per game (``settle_army``) in
    another: the same commanders, the same picks asked and the same dice drawn."""
    from sim.phases.military import settle_army, settle_commanders

    rules, state = blank(4096, 5)
    rng = np.random.default_rng(61)
    state.officers[:] = rng.integers(0, 3, state.officers.shape)
    state.commander[:] = rng.integers(-1, 5, state.commander.shape)
    state.office[:, L.MILITARY] = np.where(rng.random(4096) < 0.5, rng.integers(0, 5, 4096), -1)
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    one = np.flatnonzero(rng.random(4096) < 0.5)
    army = rng.integers(0, L.PRESIDENCIES, one.size)
    asked = []

    def ask(decision, state, head, legal, out, check):
        sel = np.flatnonzero(head >= 0)
        asked.append((legal["army"][0], sel.tolist()))
        out[0][sel] = 4 - legal["tied"][sel, ::-1].argmax(axis=1)
        assert not check(out[0][sel], SimpleNamespace(tied=legal["tied"][sel]), SimpleNamespace(n=sel.size, players=5))[
            0
        ].any()

    who = SimpleNamespace(ask=ask)
    after = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        start, asked[:] = state.commander.copy(), []
        dice = Dice(Streams(67, np.arange(4096), 1))
        settle_commanders(state, rules, dice, who, rows)
        settle_army(state, rules, dice, who, one, army)
        after.append((state.commander.copy(), sorted((int(a), g) for a, g in asked), dice.streams.counters))
        state.commander[:] = start
    (ref, ref_asked, ref_dice), got = after
    assert (ref != start).any() and (ref == start)[rows].any() and (ref[rows] == -1).any()
    assert len(ref_asked) >= 3 and ref_dice.max() >= 1 and (ref_dice == 0).any()
    assert np.array_equal(ref, got[0]) and ref_asked == got[1] and np.array_equal(ref_dice, got[2])


def test_lose_region_kernels_lose_the_regions_of_the_numpy_loss(monkeypatch):
    """R-ATTACK over 4,096 random armies (0-2 officers per family, some used, a commander among them or none, a
    governor or none, stability 0-3, the crisis marker inside the region a third of the time), a random Company
    region lost in a random half of the games: the same deaths (dice drawn alike), trophies returned, governors
    deposed, orders closed, sovereign regions, stability lost and crashes, the marker's march and new commanders."""
    from sim.phases.attacks import lose_region
    from sim.state import TALLY

    rules, state = blank(4096, 5)
    n_r = len(rules.d.regions)
    rng = np.random.default_rng(71)
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    region = rng.integers(0, n_r, rows.size)
    army = rng.integers(0, L.PRESIDENCIES, rows.size)
    state.owner[:] = np.where(rng.random((4096, n_r)) < 0.4, rng.integers(0, L.PRESIDENCIES, (4096, n_r)), -1)
    state.owner[rows, region] = army
    state.officers[:] = rng.integers(0, 3, state.officers.shape)
    state.used_officers[:] = np.minimum(rng.integers(0, 3, state.officers.shape), state.officers)
    seat = rng.integers(0, 5, state.commander.shape)
    has = np.take_along_axis(state.officers, seat[:, None, :], axis=1)[:, 0] > 0
    state.commander[:] = np.where(has & (rng.random(has.shape) < 0.8), seat, -1)
    state.governor[:] = rng.integers(-1, 5, state.governor.shape)
    state.trophies[:] = rng.integers(0, 6, state.trophies.shape)
    state.stability[:] = rng.integers(0, 4, 4096)
    state.unrest[:] = rng.integers(0, 3, state.unrest.shape)
    state.order_open[:] = rng.random(state.order_open.shape) < 0.5
    state.office[:, L.MILITARY] = np.where(rng.random(4096) < 0.5, rng.integers(0, 5, 4096), -1)
    state.elephant_at[:] = rng.integers(0, n_r, 4096)
    state.elephant_at[rows] = np.where(rng.random(rows.size) < 1 / 3, region, state.elephant_at[rows])
    state.elephant_facing[:] = np.where(rng.random(4096) < 0.5, -1, rng.integers(0, n_r, 4096))
    shape = rng.integers(0, len(L.SHAPES) + 1, rows.size)

    def ask(decision, state, head, legal, out, check):
        sel = np.flatnonzero(head >= 0)
        out[0][sel] = legal["tied"][sel].argmax(axis=1)

    def call():
        dice = Dice(Streams(73, np.arange(4096), 1))
        lose_region(state, rules, dice, SimpleNamespace(ask=ask), rows, region, army, shape)
        return dice.streams.counters

    fields = ["commander", "trophies", "officers", "used_officers", "supply", "tally", "governor", "deposed",
              "half_ships", "order_open", "owner", "strength", "capital", "unrest", "stability", "elephant_at",
              "elephant_facing", "crashed", "done", "end_round"]  # fmt: skip
    before, ref, got = state_both_ways(monkeypatch, state, fields, call)
    killed = ref["tally"][:, TALLY["officers_killed"]]
    assert (killed[rows] > 1).any() and (ref["trophies"] < before["trophies"]).any()
    assert (ref["deposed"] > 0).any() and ref["crashed"].any() and not ref["crashed"].all()
    marched = (ref["elephant_at"] != before["elephant_at"]) | (ref["elephant_facing"] != before["elephant_facing"])
    assert marched.any() and (ref["commander"] != before["commander"]).any()
    assert (ref["commander"][rows, army] >= 0).any()
    for f in ref:
        assert np.array_equal(ref[f], got[f]), f


def test_attack_kernels_defend_the_regions_of_the_numpy_attack(monkeypatch):
    """R-ATTACK over 4,096 random boards (Company regions with unrest, Sepoy Recruitment in force or not, armies of
    0-2 officers per family and 0-4 regiments, some used, commanders, Military Affairs and the Chairman held or not,
    a few games over), an attack of strength -1 to 7 (from a random sovereign region in half of them) on a random
    region in a random half of the games: the same regions attacked, defences asked and committed (the least, by a
    scripted defender), attackers weakened, trophies, and regions lost."""
    from sim.phases.attacks import attack_company, minimal_defence

    rules, state = blank(4096, 5)
    n_r = len(rules.d.regions)
    rng = np.random.default_rng(79)
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    region = rng.integers(0, n_r, rows.size)
    strength = rng.integers(-1, 8, rows.size)
    attacker = np.where(rng.random(rows.size) < 0.5, rng.integers(0, n_r, rows.size), -1)
    state.owner[:] = np.where(rng.random((4096, n_r)) < 0.7, rng.integers(0, L.PRESIDENCIES, (4096, n_r)), -1)
    state.unrest[:] = rng.integers(0, 3, state.unrest.shape)
    state.strength[:] = rng.integers(0, 4, state.strength.shape)
    state.officers[:] = rng.integers(0, 3, state.officers.shape)
    state.used_officers[:] = np.minimum(rng.integers(0, 2, state.officers.shape), state.officers)
    state.regiments[:] = rng.integers(0, 5, state.regiments.shape)
    state.used_regiments[:] = rng.integers(0, 3, state.regiments.shape)
    seat = rng.integers(0, 5, state.commander.shape)
    has = np.take_along_axis(state.officers, seat[:, None, :], axis=1)[:, 0] > 0
    state.commander[:] = np.where(has & (rng.random(has.shape) < 0.6), seat, -1)
    for office in (L.MILITARY, L.CHAIRMAN):
        state.office[:, office] = np.where(rng.random(4096) < 0.5, rng.integers(0, 5, 4096), -1)
    state.stability[:] = rng.integers(1, 4, 4096)
    state.done[:] = rng.random(4096) < 0.05
    state.law_pile[:] = rng.integers(0, 4, state.law_pile.shape)  # Sepoy Recruitment in force a quarter of the time
    bonus = rules.d.law_mod[:, laws.MOD["unrest_attack_bonus"]]
    assert bonus.any() and (state.law_pile[:, bonus > 0] == laws.IN_FORCE).any()
    asked = []

    def ask(decision, state, head, legal, out, check):
        sel = np.flatnonzero(head >= 0)
        asked.append((decision, sel.tolist()))
        if decision == "defend":
            lg = SimpleNamespace(**{k: v[sel] for k, v in legal.items()})
            out[0][sel], out[1][sel] = minimal_defence(lg.officers, lg.regiments, lg.attack, head[sel])
            assert not check((out[0][sel], out[1][sel]), lg, None)[0].any()
        else:
            out[0][sel] = legal["tied"][sel].argmax(axis=1)

    ev = Event.blank(state, rows)
    ev.shape[rows] = rng.integers(0, len(L.SHAPES) + 1, rows.size)

    def call():
        asked.clear()
        ev.attacked[:] = False
        dice = Dice(Streams(83, np.arange(4096), 1))
        attack_company(state, rules, dice, SimpleNamespace(ask=ask), ev, region, strength, attacker)
        return dice.streams.counters, ev.attacked.copy(), list(asked)

    fields = ["used_officers", "used_regiments", "strength", "trophies", "tally", "officers", "commander", "owner",
              "stability", "done", "unrest", "capital", "supply", "deposed", "governor", "order_open", "elephant_at",
              "elephant_facing", "crashed"]  # fmt: skip
    before, ref, got = state_both_ways(monkeypatch, state, fields, call)
    held = (ref["used_regiments"] > before["used_regiments"]).any(axis=1)
    assert held.any() and (ref["owner"] != before["owner"]).any() and (ref["strength"] < before["strength"]).any()
    assert (ref["trophies"] > before["trophies"]).any() and 0 < ref["out"][1].sum() < rows.size
    assert ref["out"][2][0][0] == "defend" and len(ref["out"][2][0][1]) > 100
    for f in fields:
        assert np.array_equal(ref[f], got[f]), f
    for a, b in zip(ref["out"][:2], got["out"][:2], strict=True):
        assert np.array_equal(a, b)
    assert ref["out"][2] == got["out"][2]


def test_moves_kernel_moves_the_pieces_of_the_numpy_moves(monkeypatch):
    """R-MILITARY over 4,096 random armies (0-3 officers per family and army, 0-3 regiments) and two random moves
    each (kinds -1 to 3, families -1 to 5, armies -1 to 3, counts 0-3, so many illegal ones): the same pieces moved
    and the same games flagged, each left as moved up to its first illegal move."""
    from sim.phases.military import apply_military_moves

    rng = np.random.default_rng(89)
    officers = rng.integers(0, 4, (4096, 5, L.PRESIDENCIES)).astype(np.int32)
    regiments = rng.integers(0, 4, (4096, L.PRESIDENCIES)).astype(np.int32)
    moves = tuple(rng.integers(lo, hi, (4096, 2)) for lo, hi in ((-1, 4), (-1, 6), (-1, 4), (-1, 4), (0, 4)))
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        off, reg = officers.copy(), regiments.copy()
        out.append((apply_military_moves(off, reg, moves), off, reg))
    (bad, off, reg), got = out
    moved = (off != officers).any(axis=(1, 2)) | (reg != regiments).any(axis=1)
    assert 0.2 < bad.mean() < 0.95 and (moved & ~bad).any() and (moved & bad).any()
    for ref, k in zip(out[0], got, strict=True):
        assert ref.dtype == k.dtype and np.array_equal(ref, k)


def test_deal_gathers_the_same_offers_from_a_table_of_int8_buyers(monkeypatch):
    """``notes.deal`` keeps the sealed offers' buyers in int8 (seats): over 4,096 random tables (a few notes spent,
    a few games not dealing), the kernel and the numpy gather read the same int64 buyers and prices from it as from
    the int64 table."""
    g, n, k = 4096, 5, len(vocabulary.NOTE_KINDS)
    rng = np.random.default_rng(61)
    holder = np.where(rng.random((g, n, k)) < 0.05, -1, rng.integers(0, n, (g, n, k)))
    live = rng.random(g) < 0.9
    offer_to = np.where(rng.random((g, n, n, k)) < 0.3, rng.integers(0, n, (g, n, n, k)), -1)
    ask_price = rng.integers(0, 300, (g, n, n, k))  # prices beyond int8
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        for table in (offer_to, offer_to.astype(np.int8)):
            out.append(notes.holders_offers(holder, live, table, ask_price))
    buyer, price = out[0]
    assert (buyer >= 0).any() and (buyer == -1).any() and (price > 127).any()
    for got in out[1:]:
        assert all(a.dtype == np.int64 and np.array_equal(a, b) for a, b in zip(got, out[0], strict=True))


def test_place_clerks_kernel_places_the_clerks_of_the_numpy_placement(monkeypatch):
    """A President's clerks placed on his filled orders (``strategies.base._clerks_placed``) over 4,096 random
    tables (0-3 clerks per family, 0-6 orders filled, random deciding seats): the same clerks placed, own family
    first then clockwise, as ``place_clerks``."""
    from strategies.base import _clerks_placed, place_clerks

    rng = np.random.default_rng(67)
    g, n = 4096, 5
    clerks = rng.integers(0, 4, (g, n)).astype(np.int32)
    count = rng.integers(0, 7, g)
    obs = SimpleNamespace(n=g, players=n, seat=rng.integers(0, n, g))
    ref = place_clerks(obs, clerks, count)
    monkeypatch.setattr(kernels, "ENABLED", True)
    got = _clerks_placed(obs, clerks, count)
    short = count < clerks.sum(axis=1)
    assert (short & (count > 0) & ((ref > 0).sum(axis=1) >= 2)).any() and (ref.sum(axis=1) < count).any()
    assert got.dtype == ref.dtype and np.array_equal(ref, got)


def test_draw_kernel_gives_the_draws_and_counters_of_the_numpy_streams(monkeypatch):
    """``dice.Streams.bits`` / ``uniform`` compiled: the same numbers and the same counters afterwards as the numpy
    reference, over 300 draws at random games of a batch of 4,096: one stream or a stream per row (a strategy's
    seats), a game listed twice (both rows draw the same numbers, the last sets the counter), ``used`` below n."""
    rng = np.random.default_rng(11)
    draws = [
        (
            np.sort(rng.choice(4096, rng.integers(1, 4096), replace=bool(t % 2))),
            int(rng.integers(1, 9)),
            int(rng.integers(0, 6)) if t % 3 else rng.integers(0, 6, 4096),
            t % 4 == 0,
            t % 2 == 1,
        )
        for t in range(300)
    ]
    rng_used = rng.integers(0, 9, 4096)

    def play():
        streams, out = Streams(5, np.arange(4096), 6), []
        for idx, n, stream, partly, raw in draws:
            stream = stream if isinstance(stream, int) else stream[: idx.size]
            used = rng_used[: idx.size] % (n + 1) if partly else None
            out.append(streams.bits(stream, idx, n, used) if raw else streams.uniform(stream, idx, n))
            out.append(streams.counters.copy())
        return out

    ref, got = both_ways(monkeypatch, play)
    assert any(np.unique(idx).size < idx.size for idx, *_ in draws)  # some games drew twice in one call
    assert len({c.tobytes() for c in ref[1::2]}) > 250  # the counters moved on
    assert all(same_bits(r, g) for r, g in zip(ref, got, strict=True))


def test_pick_kernel_picks_the_columns_of_numpy_pick_with(monkeypatch):
    """``dice.pick_with`` compiled: the floor(u * count)-th True column of each row (-1 for none) as numpy's, on
    4,096 random masks of 1 to 29 columns (strided ones too), u up to the largest float below 1."""
    rng = np.random.default_rng(12)
    cases = []
    for t in range(200):
        mask = rng.random((4096, int(rng.integers(1, 30)))) < rng.random()
        u = rng.random(4096)
        u[: t % 7] = np.nextafter(1.0, 0.0)
        cases.append((u, mask[:, ::2] if t % 3 == 0 else mask))
    ref, got = both_ways(monkeypatch, lambda: [dice.pick_with(u, mask) for u, mask in cases])
    picked = np.concatenate(ref)
    assert (picked == -1).mean() > 0.05 and (picked > 0).mean() > 0.3
    assert all(same_bits(r, g) for r, g in zip(ref, got, strict=True))


def test_deal_kernels_mask_the_seats_and_settle_the_deals_of_the_numpy_deal(monkeypatch):
    """D-DEALS over 4,096 random tables (notes held by random seats, a few spent, a few games not dealing; offers of
    random buyers and prices, accepted or not by each seat, accepted entries not offered too): the same notes held
    and offers made per seat, the same rows of offers refused (int8 buyers, int32 prices, any layout), and the same
    deals done and money moved."""
    g, n, k = 4096, 5, len(vocabulary.NOTE_KINDS)
    rng = np.random.default_rng(71)
    holder = np.where(rng.random((g, n, k)) < 0.05, -1, rng.integers(0, n, (g, n, k)))
    live = rng.random(g) < 0.9
    buyer = np.where((holder >= 0) & (rng.random((g, n, k)) < 0.3), rng.integers(0, n, (g, n, k)), -1)
    price = rng.integers(0, 5, (g, n, k))
    answer = rng.random((g, n, n, k)) < 0.5
    seat = np.repeat(np.arange(n)[None, :], g, 0).ravel()
    mine = (holder[:, None] == np.arange(n)[None, :, None, None]).reshape(g * n, n, k)
    offers = np.where(
        mine & (rng.random(mine.shape) < 0.3), (seat[:, None, None] + rng.integers(1, n, mine.shape)) % n, -1
    )
    offers = np.where(rng.random(mine.shape) < 0.002, rng.choice([-2, n, 0], mine.shape), offers).astype(np.int8)
    asks = np.where(rng.random(mine.shape) < 0.001, -1, rng.integers(0, 4, mine.shape)).astype(np.int32)
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        held, asked = notes.seat_masks(holder.astype(np.int8), live)
        offered, to_some = notes.seat_masks(buyer)
        bad = notes.offer_faults(offers, asks, mine, seat, n)
        assert np.array_equal(notes.offer_faults(np.asfortranarray(offers), asks.astype(np.int64), mine, seat, n), bad)
        out.append((held, asked, offered, to_some, bad, *notes.deals_done(holder, buyer, price, answer, offered)))
    held, asked, offered, to_some, bad, accepted, net = out[0]
    assert held.any() and not held[~live].any() and not asked.all() and asked.any() and (~asked[live]).any()
    assert offered.any() and not to_some.all() and 0 < bad.mean() < 0.2
    assert accepted.any() and (~accepted & (buyer >= 0)).any() and (net != 0).any() and (net.sum(axis=1) == 0).all()
    for ref, got in zip(out[0], out[1], strict=True):
        assert ref.dtype == got.dtype and np.array_equal(ref, got)


def test_apply_moves_kernel_moves_what_the_numpy_director_moves(monkeypatch):
    """The Director of Trade's moves applied (``phases.operations.apply_director_moves``) on 4,096 random tables
    (0-2 clerks and ships of each kind per place, two moves each of any kind, family, place and count, some out of
    range, China open or not): the same clerks, ships and yard ships after, and the same games refused."""
    from sim.phases.operations import apply_director_moves

    rng = np.random.default_rng(71)
    g, n, m = 4096, 5, 2
    clerks = rng.integers(0, 3, (g, n, L.PRESIDENCIES)).astype(np.int32)
    ships = rng.integers(0, 3, (g, L.N_SHIP_LOCS, 2)).astype(np.int32)
    yard = rng.integers(0, 3, (g, n, L.N_SHIP_LOCS)).astype(np.int32)
    china = rng.random(g) < 0.5
    legal = rng.random((g, m)) < 0.8  # mostly moves within range, else anything
    kind = np.where(legal, rng.integers(0, 5, (g, m)), rng.integers(-1, 6, (g, m)))
    family = np.where(legal, rng.integers(0, n, (g, m)), rng.integers(-1, n + 1, (g, m)))
    src = np.where(legal, rng.integers(0, 4, (g, m)), rng.integers(-1, 5, (g, m)))
    dst = np.where(legal, (src + rng.integers(1, 4, (g, m))) % 4, rng.integers(-1, 5, (g, m)))
    count = np.where(legal, 1, rng.integers(-1, 4, (g, m)))
    moves = (kind, family, src, dst, count)
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        after = clerks.copy(), ships.copy(), yard.copy()
        out.append((apply_director_moves(*after, china, moves), *after))
    bad = out[0][0]
    assert 0.2 < bad.mean() < 0.8  # legal and illegal games
    for i, held in enumerate((clerks, ships, yard), start=1):
        assert (out[0][i] != held).any(axis=tuple(range(1, held.ndim))).mean() > 0.05  # moves made


def test_draw_kernels_draw_the_law_of_the_numpy_draw(monkeypatch):
    """``laws.draw`` over 4,096 random law piles (ranks with ties; decks never ranked in some games, no deck law with
    and without a discard pile in others), a tenth of the games not drawing: the same law drawn, ties to the first,
    the same piles and ranks after and the same dice drawn for the shuffles."""
    g = 4096
    rules, state = blank(g, 5)
    rng = np.random.default_rng(71)
    n_laws = state.law_pile.shape[1]
    pile = rng.integers(0, 4, (g, n_laws)).astype(np.int8)
    kind = rng.random(g)[:, None]
    pile = np.where((kind < 0.1) & (pile == laws.DECK), laws.DISCARD, pile).astype(np.int8)  # deck spent
    pile = np.where((kind >= 0.1) & (kind < 0.15), laws.IN_FORCE, pile).astype(np.int8)  # nothing to draw
    rank = np.where((kind >= 0.15) & (kind < 0.3), -1.0, rng.integers(0, 6, (g, n_laws)) / 6)  # never ranked
    rows = rng.random(g) < 0.9
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        state.law_pile[:], state.law_rank[:] = pile, rank
        dice = Dice(Streams(73, np.arange(g), 1))
        top = laws.draw(state, dice, rows)
        out.append((top, state.law_pile.copy(), state.law_rank.copy(), dice.streams.counters))
    top, after, ranks, counters = out[0]
    deck = pile == laws.DECK
    kept = rows & (counters == 0) & (top >= 0)  # drawn from the deck as it was
    low = np.where(deck, rank, np.inf).min(axis=1)
    tied = kept & ((deck & (rank == low[:, None])).sum(axis=1) > 1)
    assert tied.sum() > 100 and (top[~rows] == -1).all() and (rows & (top == -1)).sum() > 100
    assert (rows & (counters > 0) & (kind[:, 0] < 0.1)).sum() > 100 and (rows & (rank[:, 0] < 0) & (top >= 0)).any()
    for ref, got in zip(out[0], out[1], strict=True):
        assert same_bits(ref, got)


def test_sorted_values_kernel_sorts_the_values_of_the_numpy_sort(monkeypatch):
    """The values of each presidency's reachable orders best first (``strategies.values.sorted_values``) over
    4,096 random boards (each order reachable with probability 0 to 1): the same floats."""
    rules, state = blank(4096, 5)
    rng = np.random.default_rng(73)
    reach = rng.random((4096, len(L.PRESIDENT), len(rules.d.orders))) < rng.random((4096, 1, 1))
    obs = Observation(state, rules, np.arange(4096), np.zeros(4096, np.int64), None)
    ref, got = both_ways(monkeypatch, lambda: V.sorted_values(obs, reach))
    assert (ref[:, :, 0] > 0).mean() > 0.8 and (ref[:, :, -1] == 0).mean() > 0.2
    assert same_bits(ref, got)


def company_position(games: int, seed: int) -> tuple[Rules, State]:
    """Random Company positions: orders open with probability 1/2 (a fifth of them filled), each office held with
    probability 3/4, 0-2 ships of each kind at every place and yard ships, shipyards, treasuries of 0-6 £, regions
    owned by the Company, China open or not, rounds 1 to the last."""
    rules, state = blank(games, 5)
    rng = np.random.default_rng(seed)
    state.order_open[:] = rng.random(state.order_open.shape) < 0.5
    state.order_filled[:] = state.order_open & (rng.random(state.order_open.shape) < 0.2)
    held = rng.random(state.office.shape) < 0.75
    state.office[:] = np.where(held, rng.integers(0, 5, state.office.shape), -1)
    state.ships[:] = rng.integers(0, 3, state.ships.shape) * (rng.random(state.ships.shape) < 0.4)
    state.yard_ships[:] = rng.integers(0, 2, state.yard_ships.shape) * (rng.random(state.yard_ships.shape) < 0.2)
    state.shipyards[:] = rng.integers(0, 3, state.shipyards.shape)
    state.treasury[:] = rng.integers(0, 7, state.treasury.shape)
    state.owner[:] = np.where(rng.random(state.owner.shape) < 0.3, 0, -1)
    state.china_open[:] = rng.random(games) < 0.5
    state.round[:] = rng.integers(1, rules.game.rounds + 1, games)
    return rules, state


@pytest.mark.parametrize("params", [{}, {"min_order": 0, "trade_cost": 0.2, "open_min": 5.0, "director_from": 0}])
def test_plan_kernel_makes_the_plan_of_the_numpy_plan(monkeypatch, params):
    """The Company's plan (``strategies.company.plan``) over 4,096 random positions (``company_position``), with
    the default parameters and others: the same reach, ship gaps, worths, regions, dice, Director's worth and needs
    of every treasury."""
    from strategies import company

    rules, state = company_position(4096, 79)
    strategy = Strategy(**params)

    def plan():
        return company.plan(strategy, Observation(state, rules, np.arange(4096), np.zeros(4096, np.int64), None))

    ref, got = both_ways(monkeypatch, plan)
    assert (ref.gap < 0).any() and (ref.gap > 0).any() and (ref.dice > 0).mean() > 0.2 and (ref.regions > 0).any()
    assert (ref.need > 0).mean(axis=0).min() > 0.05 and (ref.open_worth > 0).mean() > 0.2  # every treasury short
    for name in ref._fields:
        assert same_bits(getattr(ref, name), getattr(got, name)), name


def test_allocate_kernel_hands_out_the_budget_of_the_numpy_chairman(monkeypatch):
    """The Chairman's budget (``strategies.company.allocate_budget``) over 4,096 random positions
    (``company_position``), budgets of 0 to 30 £ and committees open at random: the same £ to every treasury."""
    from strategies import company

    rules, state = company_position(4096, 83)
    rng = np.random.default_rng(89)
    legal = SimpleNamespace(budget=rng.integers(0, 31, 4096), open=rng.random((4096, L.N_TREASURIES)) < 0.7)
    strategy = Strategy()

    def allocate():
        obs = Observation(state, rules, np.arange(4096), np.zeros(4096, np.int64), None)
        return company.allocate_budget(strategy, obs, legal)

    ref, got = both_ways(monkeypatch, allocate)
    need = np.ceil(company.plan(strategy, Observation(state, rules, np.arange(4096), np.zeros(4096, int), None)).need)
    short = (np.where(legal.open, need, 0).sum(axis=1) > legal.budget) & (legal.budget > 0)
    assert short.mean() > 0.1 and (~short & (ref > np.where(legal.open, need, 0)).any(axis=1)).mean() > 0.1
    assert np.array_equal(ref.sum(axis=1), legal.budget) and (ref[:, L.T_SHIPPING] > 0).any()
    assert same_bits(ref, got)


def test_director_kernels_check_and_open_as_the_numpy_director(monkeypatch):
    """The Director of Trade's dice and opening (``strategies.company.trade_check``, ``open_order``) over 4,096
    random positions (``company_position``), treasuries of 0 to 6 £ and a random part of the closed orders and the
    route to China openable: the same dice and the same pick."""
    from strategies import company

    rules, state = company_position(4096, 97)
    rng = np.random.default_rng(101)
    closed = np.concatenate([~state.order_open, ~state.china_open[:, None]], axis=1)
    legal = SimpleNamespace(
        treasury=rng.integers(0, 7, 4096), openable=closed & (rng.random(closed.shape) < rng.random((4096, 1)))
    )

    def decide():
        obs = Observation(state, rules, np.arange(4096), np.zeros(4096, np.int64), None)
        return company.trade_check(Strategy(), obs, legal), company.open_order(Strategy(), obs, legal)

    (k, pick), (k_got, pick_got) = both_ways(monkeypatch, decide)
    assert len(np.unique(k)) >= 4 and (pick == -1).any() and (pick == len(rules.d.orders)).any()
    assert len(np.unique(pick)) > len(rules.d.orders) // 2
    assert same_bits(k, k_got) and same_bits(pick, pick_got)


@pytest.mark.parametrize("min_order", [0, 3, 5])
def test_ship_gap_kernel_moves_the_ships_of_the_numpy_gaps(monkeypatch, min_order):
    """The Director of Trade's moves (``strategies.company.director_moves``) over 4,096 random positions
    (``company_position``: filled orders, Presidents and Chinese committees at random), ``min_order`` 0 (every
    order not reached wants a ship too), 3 and 5: the seas' gaps counted on bit masks move the same ships."""
    from strategies import company

    rules, state = company_position(4096, 103)
    legal = SimpleNamespace(ships=state.ships.copy(), yard_ships=state.yard_ships.copy())

    def moves():
        obs = Observation(state, rules, np.arange(4096), np.zeros(4096, np.int64), None)
        return company.director_moves(Strategy(min_order=min_order), obs, legal)

    ref, got = both_ways(monkeypatch, moves)
    assert (ref[0] != L.MOVE_NONE).mean() > 0.1 and len(np.unique(ref[3][ref[0] != L.MOVE_NONE])) >= 3
    for a, b in zip(ref, got, strict=True):
        assert same_bits(a, b)


def test_sea_values_kernel_buys_the_ships_of_the_numpy_values(monkeypatch):
    """The Shipping Manager's purchases (``strategies.company.buy_ships``) over 4,096 random positions
    (``company_position``: filled orders, Presidents at random), 0 to 30 £ and free family yards at 1 to 4 £: the
    seas' order values sorted on bit masks buy the same ships."""
    from strategies import company

    rules, state = company_position(4096, 107)
    rng = np.random.default_rng(109)
    legal = SimpleNamespace(
        money=rng.integers(0, 31, 4096),
        free_yards=rng.integers(0, 3, (4096, 5)) * (rng.random((4096, 5)) < 0.3),
        yard_cost=rng.integers(1, 5, 4096),
    )

    seat = rng.integers(0, 5, 4096)

    def buy():
        return company.buy_ships(Strategy(), Observation(state, rules, np.arange(4096), seat, None), legal)

    ref, got = both_ways(monkeypatch, buy)
    leased, ships, yard = ref
    assert (leased.sum(axis=1) > 1).any() and ships.any() and yard.any()
    for a, b in zip(ref, got, strict=True):
        assert same_bits(a, b)


def test_table_options_kernel_asks_the_question_of_the_numpy_table_options(monkeypatch):
    """``phases.parliament.table_options`` (the ``table_law`` question after a draw) over 4,096 random piles and
    drawn laws (recalls with and without a discard pile, three recall laws so that one may lie in the discard pile,
    dilemmas, other laws; nothing left to draw in some games; draws counted up to ``max_laws``), a tenth of the games
    not drawing: the same candidates, draws allowed, games asked and counted, recalls and empty recalls."""
    from sim.phases.parliament import table_options

    g, n_laws, max_laws = 4096, 25, 3
    recalls, dilemmas = np.array([5, 9, 21]), np.arange(20, 25)
    d = SimpleNamespace(law_recall=np.isin(np.arange(n_laws), recalls), law_dilemma=np.arange(n_laws) >= 20)
    rules = SimpleNamespace(d=d, parliament=SimpleNamespace(max_laws=max_laws))
    rng = np.random.default_rng(79)
    pile = rng.integers(0, 4, (g, n_laws)).astype(np.int8)
    pile = np.where((rng.random((g, 1)) < 0.3) & (pile == laws.DISCARD), laws.DECK, pile)  # no discard pile
    pile = np.where((rng.random((g, 1)) < 0.1) & (pile <= laws.DISCARD), laws.IN_FORCE, pile).astype(np.int8)
    idx = np.flatnonzero(rng.random(g) < 0.9)
    kind = rng.random(idx.size)
    drawn = [rng.choice(recalls, idx.size), rng.choice(dilemmas, idx.size)]
    top = np.select([kind < 0.15, kind < 0.35], drawn, rng.integers(0, n_laws, idx.size))
    pile[idx, top] = laws.DRAWN
    counted0 = rng.integers(0, max_laws, g)
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        counted = counted0.copy()
        candidates, can_draw, asked = np.zeros((g, n_laws), dtype=bool), np.zeros(g, dtype=bool), np.zeros(g, bool)
        recall, empty = table_options(rules, pile, idx, top, counted, candidates, can_draw, asked)
        out.append((recall, empty, counted, candidates, can_draw, asked))
    recall, empty, counted, candidates, can_draw, asked = out[0]
    assert recall.sum() > 50 and empty.sum() > 50 and (counted > counted0).sum() == asked.sum() > 3000
    assert can_draw.sum() > 500 and (asked & ~can_draw & (counted < max_laws)).sum() > 500
    assert (candidates.sum(axis=1) > 2).sum() > 500 and (asked & (candidates.sum(axis=1) == 1)).sum() > 500
    recall_discarded = (pile[idx] == laws.DISCARD) & d.law_recall
    assert (recall & recall_discarded.any(axis=1)).sum() > 20  # a recall law in the discard pile: not a candidate
    for ref, got in zip(out[0], out[1], strict=True):
        assert same_bits(ref, got)


def test_retire_kernel_picks_the_tiers_of_the_numpy_retirement(monkeypatch):
    """``Strategy.retire`` (R-RETIRE) over 4,096 random retirements: random money and rounds, cards on display (some
    slots empty), the right to a pick or not, the final retirement in some games, random affordable tiers (none in
    some): the same tier, bit for bit."""
    g = 4096
    rules, state = blank(g, 5)
    rng = np.random.default_rng(113)
    state.money[:] = rng.integers(0, 40, state.money.shape)
    state.round[:] = rng.integers(1, rules.game.rounds + 1, g)
    n_cards = rules.d.card_money.size
    state.market[:] = np.where(rng.random(state.market.shape) < 0.2, -1, rng.integers(0, n_cards, state.market.shape))
    tiers = rules.d.tier_cost.size
    legal = SimpleNamespace(
        affordable=(rng.random((g, tiers)) < 0.6) & (rng.random((g, 1)) < 0.9),
        pick=rng.random(g) < 0.5,
        final=rng.random(g) < 0.2,
    )
    seat = rng.integers(0, 5, g)

    def retire():
        return Strategy().retire(Observation(state, rules, np.arange(g), seat, None), legal)

    ref, got = both_ways(monkeypatch, retire)
    assert (ref == -1).mean() > 0.1 and len(np.unique(ref[legal.final & (ref >= 0)])) >= 2
    assert len(np.unique(ref[~legal.final & (ref >= 0)])) >= 2
    assert same_bits(ref, got)


@pytest.mark.parametrize("fallback", ["clerks", "none"])
def test_candidates_kernel_finds_the_candidates_of_the_numpy_appointments(monkeypatch, fallback):
    """``appointments.candidates`` (R-APPOINT) of every office over 4,096 random positions (offices, commanders,
    governors and regions' owners at random, none in some games; clerks, officers and the academy held by some
    families): the same candidates, bit for bit, in every game, and in the games asked for (none elsewhere)."""
    from sim.phases.appointments import candidates

    g = 4096
    rules, state = blank(g, 5, **{"governor_general.candidates_fallback": fallback})
    rng = np.random.default_rng(127)

    def seats(shape, none):
        return np.where(rng.random(shape) < none, -1, rng.integers(0, 5, shape)).astype(np.int8)

    state.office[:] = seats(state.office.shape, rng.choice([0.3, 0.97], (g, 1)))  # no holder at all in some games
    state.commander[:] = seats(state.commander.shape, rng.choice([0.5, 1.0], (g, 1)))
    state.governor[:] = seats(state.governor.shape, 0.4)
    state.owner[:] = rng.integers(-1, L.PRESIDENCIES, state.owner.shape)
    for field in ("clerks", "officers", "academy"):
        value = getattr(state, field)
        value[:] = rng.integers(0, 3, value.shape) * (rng.random(value.shape) < 0.3)
    rows = np.flatnonzero(rng.random(g) < 0.5)
    for office in range(L.N_OFFICES):
        ref, got = both_ways(monkeypatch, lambda office=office: candidates(state, rules, office))
        assert same_bits(ref, got)
        ref_rows, got_rows = both_ways(monkeypatch, lambda office=office: candidates(state, rules, office, rows))
        assert same_bits(ref_rows[rows], got_rows[rows]) and same_bits(ref[rows], got_rows[rows])
        assert not np.delete(got_rows, rows, axis=0).any()
        if office != L.CHAIRMAN and (office != L.GOVERNOR_GENERAL or fallback == "clerks"):
            assert 0.5 < ref.any(axis=(1, 2)).mean() < 1  # candidates in most games, not all
        sources = np.flatnonzero(ref.any(axis=(0, 1)))
        if office == L.DIRECTOR:
            assert sources.min() == L.SRC_CLERK[0] and sources.max() >= L.SRC_OFFICE0 + L.CHINA
        if office == L.MILITARY:
            assert set(L.SRC_OFFICER) | {L.SRC_ACADEMY} <= set(sources)
        if office in L.PRESIDENT:
            assert (sources >= L.SRC_GOVERNOR0).sum() >= 4


def test_buy_kernel_buys_the_places_of_the_numpy_purchase(monkeypatch):
    """R-ACTIONS' places on the exchange in 4,096 random positions: a part-filled exchange, 0-12 £ and 0-2 relatives
    at home, each family wanting 0-2 places, in a random order of the seats, in a random half of the games: the same
    places taken, relatives sent and money paid (ledger included)."""
    from sim.phases.family import purchase

    rules, state = family_position(4096, 79)
    rng = np.random.default_rng(83)
    n = rules.players
    state.money[:] = rng.integers(0, 13, state.money.shape)
    state.supply[:] = rng.integers(0, 3, state.supply.shape)
    idx = np.flatnonzero(rng.random(4096) < 0.5)
    order = np.argsort(rng.random((idx.size, n)), axis=1).astype(np.int64)
    wanted = rng.integers(0, 3, (idx.size, n))
    fields = ["exchange", "supply", "money", "ledger"]
    before, ref, got = state_both_ways(monkeypatch, state, fields, lambda: purchase(state, rules, idx, order, wanted))
    taken = (ref["exchange"] >= 0).sum(axis=1) - (before["exchange"] >= 0).sum(axis=1)
    assert (taken[idx] >= 2).any() and (taken[idx] == 0).any() and (taken[idx] == 1).any()
    short = (wanted > 0) & (ref["supply"][idx] == before["supply"][idx])  # wanted a place, took none
    assert short.any() and (short & (before["supply"][idx] >= 1)).any()  # for want of money or of a free place
    assert (ref["exchange"] == before["exchange"]).all(axis=1)[np.setdiff1d(np.arange(4096), idx)].all()
    for f in fields:
        assert same_bits(ref[f], got[f])


@pytest.mark.parametrize("acting_share", [0.9, 0.2])
def test_question_kernel_asks_the_question_of_the_numpy_options(monkeypatch, acting_share):
    """R-ACTIONS' question over 4,096 random phase-2 positions (last round's actions, a part-filled exchange, an
    Industry Subsidy discount in some games), families acting in most games (every row filled) or in a few (their
    rows only): the regular actions, a position card's extra action and laws' extra actions of one kind per game
    (pass, a kind, or any): the same actions allowed once and twice and the same families asked, bit for bit."""
    from sim.phases.family import question

    rules, state = family_position(4096, 89)
    rng = np.random.default_rng(97)
    n = rules.players
    state.money[:] = rng.integers(0, 14, state.money.shape)
    state.supply[:] = rng.integers(0, 4, state.supply.shape)
    state.last_action[:] = rng.integers(-1, L.N_ACTIONS, state.last_action.shape)
    acting = (rng.random(4096) < acting_share)[:, None] & (rng.random((4096, n)) < 0.8)
    idx = np.flatnonzero(acting.any(axis=1))
    games = slice(None) if 2 * idx.size > 4096 else idx
    discount = np.where(rng.random((4096, n)) < 0.3, -rng.integers(1, 4, (4096, n)), 0)[games]
    kinds = rng.integers(-1, L.N_ACTIONS, 4096)
    for extra, offered in ((False, None), (True, None), (True, kinds)):
        call = lambda: question(state, rules, acting, idx, games, extra, offered, discount)  # noqa: B023, E731
        ref, got = both_ways(monkeypatch, call)
        once, twice, asked = ref
        assert once[acting].all(axis=0).sum() == 1  # pass, and all else forbidden somewhere
        assert (twice[acting].any(axis=0) == (not extra) * np.isin(np.arange(L.N_ACTIONS), [1, 2, 3, 4, 5, 6])).all()
        assert asked.sum() < acting.sum() if extra else (asked == acting)[idx].all()
        for r, k in zip(ref, got, strict=True):
            assert same_bits(r, k)


@pytest.mark.parametrize("acting_share", [0.9, 0.2])
def test_settle_kernel_settles_the_actions_of_the_numpy_settling(monkeypatch, acting_share):
    """R-ACTIONS over 4,096 random phase-2 positions: random actions (twice in some rows, clerks to random
    presidencies, perhaps the same twice, a factory discount in some), families acting in most games or a few: the
    same property, clerks, cadets, relatives sent and money paid (ledger included), the same actions and places
    wanted returned."""
    from sim.phases.family import settle

    rules, state = family_position(4096, 101)
    rng = np.random.default_rng(103)
    n = rules.players
    acting = (rng.random(4096) < acting_share)[:, None] & (rng.random((4096, n)) < 0.8)
    idx = np.flatnonzero(acting.any(axis=1))
    games = slice(None) if 2 * idx.size > 4096 else idx
    action = rng.integers(0, L.N_ACTIONS, (4096, n))
    repeat = rng.random((4096, n)) < 0.4
    where = rng.integers(0, L.PRESIDENCIES, (4096, n, 2))
    discount = np.where(rng.random((4096, n)) < 0.3, -rng.integers(1, 4, (4096, n)), 0)[games]
    fields = ["luxuries", "wealth", "shipyards", "factories", "clerks", "academy", "supply", "money", "ledger"]
    call = lambda: settle(state, rules, idx, games, acting[games], action, repeat, where, discount)  # noqa: E731
    before, ref, got = state_both_ways(monkeypatch, state, fields, call)
    act, buy = ref["out"]
    assert (np.bincount(act[acting[games]], minlength=L.N_ACTIONS) > 0).all() and (buy == 2).any()
    assert (ref["clerks"] - before["clerks"] == 2).any() and (ref["money"] != before["money"]).any()
    for f in fields:
        assert same_bits(ref[f], got[f])
    for r, k in zip(ref["out"], got["out"], strict=True):
        assert same_bits(r, k)


@pytest.mark.parametrize("rows", ["all", "some"])
def test_through_kernel_pays_what_the_numpy_ledger_pays(monkeypatch, rows):
    """``ledger.families_through`` over 4,096 games: random amounts (both signs, some large) through three flows or
    none, into every game or a random half of them: the same money and ledger, bit for bit."""
    from sim import ledger

    rules, state = blank(4096, 5)
    rng = np.random.default_rng(107)
    state.money[:] = rng.integers(0, 40, state.money.shape)
    at = None if rows == "all" else np.flatnonzero(rng.random(4096) < 0.5)
    size = 4096 if at is None else at.size
    through = rng.integers(-1, 3, (size, 5))
    amounts = rng.integers(-9, 10, (size, 5)) * np.where(rng.random((size, 5)) < 0.01, 10**6, 1)
    flows = ("luxury", "shipyard", "factory")
    call = lambda: ledger.families_through(state, flows, through, amounts, at)  # noqa: E731
    before, ref, got = state_both_ways(monkeypatch, state, ["money", "ledger"], call)
    assert (ref["money"] != before["money"]).any() and (np.abs(ref["ledger"] - before["ledger"]) > 10**5).any()
    for f in ("money", "ledger"):
        assert same_bits(ref[f], got[f])


def test_issue_kernel_issues_the_shares_of_the_numpy_issue(monkeypatch):
    """R-SHARES over 4,096 random positions: 0-6 loans, a random exchange (gaps between the waiting relatives
    included), a few games over: the same shares issued (fresh), loans cancelled and relatives moved up."""
    from sim.phases.shares import issue_shares

    rules, state = blank(4096, 5)
    rng = np.random.default_rng(109)
    state.loans[:] = rng.integers(0, 7, 4096)
    state.exchange[:] = np.where(rng.random(state.exchange.shape) < 0.5, rng.integers(0, 5, state.exchange.shape), -1)
    state.done[:] = rng.random(4096) < 0.05
    fields = ["loans", "exchange", "shares", "firm_fresh"]
    call = lambda: issue_shares(state, rules, None, None)  # noqa: E731
    before, ref, got = state_both_ways(monkeypatch, state, fields, call)
    issued = ref["shares"].sum(axis=1) - before["shares"].sum(axis=1)
    waiting = (before["exchange"] >= 0).sum(axis=1)
    assert (issued[~state.done] == np.minimum(before["loans"], waiting)[~state.done]).all() and (issued >= 3).any()
    assert (issued[state.done] == 0).all() and state.done.any() and (ref["exchange"][issued > 0, 0] == -1).all()
    for f in fields:
        assert same_bits(ref[f], got[f])


def deployment_position(games: int, seed: int):
    """Random armies before a deployment (R-DEPLOY): 0-3 officers per family, 0-4 regiments, regions held by a
    random presidency or sovereign at strength 0-4 (some looted, some with unrest), targets on offer with
    probability 0.6, bands on offer in most games, 0-12 £ in the treasury, a random army and commander's seat."""
    from strategies.archetypes import GoMilitary

    rules, state = blank(games, 5)
    rng = np.random.default_rng(seed)
    n_r = len(rules.d.regions)
    state.owner[:] = np.where(rng.random((games, n_r)) < 0.4, rng.integers(0, 3, (games, n_r)), -1)
    state.strength[:] = rng.integers(0, 5, (games, n_r))
    state.looted[:] = rng.random((games, n_r)) < 0.3
    state.unrest[:] = np.where(rng.random((games, n_r)) < 0.3, rng.integers(1, 3, (games, n_r)), 0)
    state.trophies[:] = rng.integers(0, 6, state.trophies.shape)
    state.round[:] = rng.integers(1, rules.game.rounds + 1, games)
    army = rng.integers(0, L.PRESIDENCIES, games)
    legal = SimpleNamespace(
        army=army,
        targets=rng.random((games, n_r)) < 0.6,
        strength=np.where(state.owner >= 0, 0, state.strength),
        officers=rng.integers(0, 4, (games, 5)),
        regiments=rng.integers(0, 5, games),
        mercenaries=(rng.random((games, rules.d.merc_valid.shape[1])) < 0.8) & rules.d.merc_valid[army],
        treasury=rng.integers(0, 13, games),
    )
    obs = Observation(state, rules, np.arange(games), rng.integers(0, 5, games), None)
    return rules, legal, obs, GoMilitary()


@pytest.mark.parametrize("dice", [(2, 2), (1, 3), (1.5, 2.7)])
def test_plan_kernels_deploy_the_armies_of_the_numpy_plan(monkeypatch, dice):
    """``strategies.military.plan_deployment`` over 4,096 random armies, as ``balanced`` plans (no bands) and as
    ``go_military`` does (bands towards ``want_dice``, its holding cost and conquests), with whole and fractional
    dice: the same targets, officers, regiments and bands, bit for bit."""
    from strategies import military as mil

    rules, legal, obs, go = deployment_position(4096, 71 + int(10 * dice[1]))
    out = []
    for enabled in (False, True):
        monkeypatch.setattr(kernels, "ENABLED", enabled)
        cost, after = go.holding(obs)
        plain = mil.plan_deployment(go, obs, legal, dice[0], dice[1], False, 0.0)
        bands = mil.plan_deployment(go, obs, legal, dice[0], dice[1], True, 0.5, cost, after < 0.5)
        out.append(plain + bands)
    ref, got = out
    for plan in (ref[:4], ref[4:]):
        target, officers, regiments, _ = plan
        assert 0.2 < (target >= 0).mean() < 0.9 and (regiments > 0).any() and (officers.sum(axis=1) > 1).any()
        assert len(np.unique(target)) >= 4
    assert ref[7].any() and not ref[3].any()  # bands only where hired
    for a, b in zip(ref, got, strict=True):
        assert same_bits(a, b)


@pytest.mark.parametrize("keep", [0.5, 1.0])
def test_overrun_kernel_takes_the_regions_of_the_numpy_invasion(monkeypatch, keep):
    """R-INVASION over 4,096 random empires (each order open with probability 1/2, cascading as 2e chains), a
    Foreign Invasion of 1-6 on a random sovereign region in a random half of the games: the same regions taken
    (orders closed and counted, empires shattered, strength kept) and held."""
    rules, state = blank(4096, 5, **{"india.invasion_keep": keep, "india.cascade": "chain"})
    rng = np.random.default_rng(59)
    random_empires(rules, state, rng)
    state.order_open[:] = rng.random(state.order_open.shape) < 0.25  # some regions without open orders: cascades
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    region = rng.integers(0, len(rules.d.regions), rows.size)
    sovereign = state.owner[rows, region] < 0
    rows, region = rows[sovereign], region[sovereign]
    attack = rng.integers(1, 7, rows.size)
    fields = ["capital", "strength", "order_open", "tally"]
    overrun = functools.partial(india.overrun, state, rules, rows, region, attack)
    before, ref, got = state_both_ways(monkeypatch, state, fields, overrun)
    taken = ref["capital"][rows, region] == region
    held = ref["strength"][rows, region] == before["strength"][rows, region]
    assert 0.1 < (ref["strength"][rows, region] != before["strength"][rows, region]).mean() < 0.9 and held.any()
    assert (taken & (before["capital"][rows, region] != region)).any()  # dominated regions broke free
    shattered = (before["capital"][rows] == region[:, None]) & (ref["capital"][rows] != before["capital"][rows])
    assert shattered.any() and all((ref[f] != before[f]).any() for f in fields)
    for f in ref:
        assert np.array_equal(ref[f], got[f]), f


@pytest.mark.parametrize("max_empires", [1, 3])
def test_crisis_kernel_fights_the_crises_of_the_numpy_crisis(monkeypatch, max_empires):
    """R-CRISIS over 4,096 random empires (a fifth of the regions the Company's), the crisis marker on a random
    border or (a quarter of the time) inside a region, a modifier of -2 to 4 in a random half of the games: the same
    rebellions, invasions, attacks on the Company (region, strength, attacker) and marches' starting regions."""
    rules, state = blank(4096, 5, **{"india.max_empires": max_empires, "india.cascade": "chain"})
    d = rules.d
    rng = np.random.default_rng(67)
    random_empires(rules, state, rng)
    a = rng.integers(0, len(d.regions), 4096)
    b = d.clockwise[a, rng.integers(0, 100, 4096) % d.degree[a]]
    state.elephant_at[:] = a
    state.elephant_facing[:] = np.where(rng.random(4096) < 0.25, -1, b)
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    region = rng.integers(0, len(d.regions), rows.size)
    modifier = rng.integers(-2, 5, rows.size)
    fields = ["capital", "strength", "order_open", "tally"]
    fights = functools.partial(india.crisis_fights, state, rules, rows, region, modifier)
    before, ref, got = state_both_ways(monkeypatch, state, fields, fights)
    hit, target, strength, attacker, marched_from = ref["out"]
    assert 0.1 < hit.mean() < 0.9 and (attacker[hit] >= 0).any() and (attacker[hit] < 0).any()
    assert (marched_from != region).any() and all((ref[f] != before[f]).any() for f in fields)
    for f in fields:
        assert np.array_equal(ref[f], got[f]), f
    k_hit, *k_attack, k_from = got["out"]
    assert np.array_equal(hit, k_hit) and np.array_equal(marched_from, k_from)
    for x, y in zip((target, strength, attacker), k_attack, strict=True):  # read where the Company is attacked
        assert np.array_equal(x[hit], y[hit])


def test_count_events_kernel_counts_the_events_of_the_numpy_count(monkeypatch):
    """Phase 8's counts of events drawn (``phases.india.count_events``) in a random half of 4,096 games, each drawing
    an event of a random kind: the same events counted, and per kind."""
    from sim.phases.india import count_events

    rules, state = blank(4096, 5)
    rng = np.random.default_rng(73)
    state.tally[:] = rng.integers(0, 3, state.tally.shape)
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    kind = rules.d.tile_kind[rng.integers(0, len(rules.d.tile_kind), rows.size)]
    before, ref, got = state_both_ways(monkeypatch, state, ["tally"], lambda: count_events(state, rows, kind))
    counted = (ref["tally"] - before["tally"])[rows]
    assert (counted.sum(axis=1) == 2).all() and len(np.unique(kind)) == len(L.EVENT_KINDS)
    assert np.array_equal(ref["tally"], got["tally"])


def test_defence_kernel_commits_the_troops_of_the_numpy_defence(monkeypatch):
    """The least defence (``phases.attacks.minimal_defence``) of 4,096 random armies (0-3 free officers per family, 0-4
    regiments, attacks of -1 to 12, the deciding family a random seat or none): the same officers and regiments."""
    from sim.phases.attacks import minimal_defence

    rng = np.random.default_rng(79)
    officers, regiments = rng.integers(0, 4, (4096, 5)), rng.integers(0, 5, 4096).astype(np.int32)
    attack, own = rng.integers(-1, 13, 4096), rng.integers(-1, 5, 4096)
    ref, got = both_ways(monkeypatch, lambda: minimal_defence(officers, regiments, attack, own))
    off, reg = ref
    assert (reg > 0).any() and (off.sum(axis=1) > 0).mean() > 0.3 and (off[np.arange(4096), own] > 0).any()
    assert (reg + off.sum(axis=1) < attack).any()  # too few troops: all of them
    for a, b in zip(ref, got, strict=True):
        assert same_bits(a, b)


def test_deploy_check_kernel_finds_the_illegal_deployments_of_the_numpy_check(monkeypatch):
    """The decision ``deploy``'s check (``phases.military.illegal_deployments``) of 4,096 random answers against
    random armies (targets out of range or not on offer, officers and regiments below 0 or beyond the army's, bands
    not on offer or beyond the treasury, no commander's officer, no die, troops without a target): the same answers
    refused."""
    from sim.phases.military import illegal_deployments

    rules, _ = blank(1, 5)
    d, rng, g = rules.d, np.random.default_rng(83), 4096
    n_r, n_m = len(d.regions), d.merc_valid.shape[1]
    lg = SimpleNamespace(
        targets=rng.random((g, n_r)) < 0.7,
        officers=rng.integers(0, 4, (g, 5)).astype(np.int32),
        regiments=rng.integers(0, 5, g).astype(np.int32),
        mercenaries=rng.random((g, n_m)) < 0.7,
        treasury=rng.integers(0, 20, g),
        strength=rng.integers(0, 5, (g, n_r)),
    )
    seat = rng.integers(0, 5, g)
    t = np.where(rng.random(g) < 0.2, -1, rng.integers(0, n_r + 1, g))
    beyond = np.where(rng.random((g, 5)) < 0.03, 1, 0)  # an officer the army lacks
    off = np.where(rng.random((g, 5)) < 0.02, -1, np.minimum(rng.integers(0, 4, (g, 5)), lg.officers) + beyond)
    off[np.arange(g), seat] = np.maximum(off[np.arange(g), seat], rng.integers(0, 2, g))
    reg = np.where(rng.random(g) < 0.03, -1, np.minimum(rng.integers(0, 5, g), lg.regiments))
    mc = (rng.random((g, n_m)) < 0.3) & (lg.mercenaries | (rng.random((g, n_m)) < 0.05))
    none = (t < 0) & (rng.random(g) < 0.5)
    off[none], reg[none], mc[none] = 0, 0, False
    answer = (t, off, reg, mc)
    ref, got = both_ways(monkeypatch, lambda: illegal_deployments(answer, lg, seat, d.merc_cost[0], d.merc_strength[0]))
    assert 0.2 < ref.mean() < 0.8 and (~ref & (t >= 0)).any() and (~ref & (t < 0)).any()
    assert same_bits(ref, got)


@pytest.mark.parametrize("defeated", ["killed", "disgraced"])
def test_casualties_kernel_kills_the_officers_of_the_numpy_battle(monkeypatch, defeated):
    """A battle's losses (``phases.military.casualties``) in a random half of 4,096 games: 0-3 officers per family
    in army 1, a random commander among those with officers, 0-3 of each family's officers taking part (the
    commander's at least one), random dice and defeats, 0-6 trophies: the same officers dead, commanders gone,
    trophies lost and counts."""
    from sim.phases.military import casualties

    rules, state = blank(4096, 5, **{"military.defeated_commander": defeated})
    rng = np.random.default_rng(89)
    state.officers[:, :, 1] = rng.integers(0, 4, (4096, 5))
    state.trophies[:] = rng.integers(0, 7, state.trophies.shape)
    rows = np.flatnonzero((rng.random(4096) < 0.5) & (state.officers[:, :, 1].sum(axis=1) > 0))
    have = state.officers[rows, :, 1]
    cmd = (have > 0).argmax(axis=1) + 0
    state.commander[rows, 1] = cmd
    officers = np.minimum(rng.integers(0, 4, have.shape), have).astype(np.int64)
    officers[np.arange(rows.size), cmd] = np.maximum(officers[np.arange(rows.size), cmd], 1)
    total = officers.sum(axis=1)
    faces = rng.integers(1, 7, (rows.size, int(total.max()))).astype(np.int8)
    mishap = rng.random(rows.size) < 0.3
    battle = functools.partial(casualties, state, rules, rows, 1, officers, cmd, total, faces, mishap)
    fields = ["trophies", "commander", "officers", "supply", "tally"]
    before, ref, got = state_both_ways(monkeypatch, state, fields, battle)
    assert all((ref[f] != before[f]).any() for f in fields) and (ref["out"].sum(axis=1) == 0).any()
    for f in ref:
        assert np.array_equal(ref[f], got[f]), f


def test_leader_kernel_raises_the_leaders_of_the_numpy_leader(monkeypatch):
    """R-LEADER over 4,096 random empires (a fifth of the regions the Company's), a Leader with a modifier of -2 to 4
    in a random region of a random half of the games: the same sovereign regions grown, rebellions won (orders
    closed, cascading) and lost, and Company regions named."""
    rules, state = blank(4096, 5, **{"india.cascade": "chain"})
    rng = np.random.default_rng(97)
    random_empires(rules, state, rng)
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    region = rng.integers(0, len(rules.d.regions), rows.size)
    modifier = rng.integers(-2, 5, rows.size)
    fields = ["capital", "strength", "order_open", "tally"]
    rises = functools.partial(india.leader_rises, state, rules, rows, region, modifier)
    before, ref, got = state_both_ways(monkeypatch, state, fields, rises)
    company = ref["out"]
    assert 0.05 < company.mean() < 0.5 and all((ref[f] != before[f]).any() for f in fields)
    for f in ref:
        assert np.array_equal(ref[f], got[f]), f


def test_invasion_targets_kernel_names_the_targets_of_the_numpy_invasion(monkeypatch):
    """R-INVASION's targets (``phases.india.invasion_targets``) for 4,096 random storm faces and hit regions (-1 in
    some games): the same home regions in turn, or the hit region, and the same counts."""
    from sim.phases.india import invasion_targets

    rules, state = blank(4096, 5)
    rng = np.random.default_rng(101)
    face = rng.integers(1, 7, 4096).astype(np.int8)
    region = np.where(rng.random(4096) < 0.1, -1, rng.integers(0, len(rules.d.regions), 4096))
    ref, got = both_ways(monkeypatch, lambda: invasion_targets(state, rules, face, region))
    (targets, count), (k_targets, k_count) = ref, got
    assert len(np.unique(count)) >= 3 and (count == 0).any()
    assert np.array_equal(count, k_count)
    used = np.arange(targets.shape[1])[None, :] < count[:, None]  # beyond each game's count: not read
    assert np.array_equal(targets[used], k_targets[used])


@pytest.mark.parametrize("event_region", ["next_tile", "own_tile"])
def test_draw_kernels_draw_the_tiles_of_the_numpy_draw(monkeypatch, event_region):
    """The next event tile drawn (``phases.india.draw``) in a random half of 4,096 games (random stacks, cursors at
    any tile, the last one included, so that many stacks are spent and reshuffled): the same tiles, regions,
    modifiers and shapes, stacks, cursors, next tiles' backs and dice drawn."""
    from sim.phases.india import draw

    rules, state = blank(4096, 5, **{"india.event_region": event_region})
    k = len(rules.d.tile_kind)
    rng = np.random.default_rng(103)
    rows = np.flatnonzero(rng.random(4096) < 0.5)
    state.event_stack[:] = np.argsort(rng.random((4096, k)), axis=1)
    state.event_cursor[:] = np.where(rng.random(4096) < 0.2, k - 1, rng.integers(0, k, 4096))
    fields = ["event_stack", "event_cursor", "event_next"]

    def drawn():
        dice = Dice(Streams(107, np.arange(4096), 1))
        ev = draw(state, rules, dice, rows)
        return ev.tile[rows], ev.region[rows], ev.modifier[rows], ev.shape[rows], dice.streams.counters.copy()

    before, ref, got = state_both_ways(monkeypatch, state, fields, drawn)
    assert (ref["event_cursor"][rows] == 0).any() and (ref["event_stack"] != before["event_stack"]).any()
    assert len(np.unique(ref["out"][1])) >= 5 and (ref["out"][4] > 0).any()
    for f in fields:
        assert np.array_equal(ref[f], got[f]), f
    for a, b in zip(ref["out"], got["out"], strict=True):
        assert same_bits(a, b)


def test_a_read_only_install_caches_the_kernels_outside_it_or_compiles_them_in_memory(tmp_path):
    """The package copied read-only, a fresh HOME: the first process says it compiles and caches the machine code
    under ~/.cache/eastindia/numba (nothing lands in the source tree), the next loads it silently; with a cache
    folder that cannot be written (EASTINDIA_CACHE_DIR under a file) the kernel still runs, compiled in memory,
    after a one-line note."""
    import shutil
    import stat

    src = tmp_path / "src"
    shutil.copytree(os.path.dirname(sim.__file__), src / "sim", ignore=shutil.ignore_patterns("__pycache__"))
    for path in [src, *src.rglob("*")]:
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    before = sorted(p.relative_to(src) for p in src.rglob("*"))
    probe = (
        "import numpy as np\nfrom sim import dice\nout = np.empty(3, np.int64)\n"
        "dice._pick_kernel(np.array([0.1, 0.6, 0.99]), np.array([[True, False, True]] * 3), out)\nprint(out.tolist())"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", kernels.CACHE_ENV)}
    env |= {"HOME": str(tmp_path / "home"), "PYTHONPATH": str(src), "PYTHONDONTWRITEBYTECODE": "1"}

    def probe_run(**extra: str) -> subprocess.CompletedProcess:
        run = subprocess.run([sys.executable, "-c", probe], env=env | extra, capture_output=True, text=True,
                             cwd=tmp_path, timeout=120)  # fmt: skip
        assert run.returncode == 0 and run.stdout == "[0, 2, 2]\n", run.stderr
        return run

    first = probe_run()
    cache = tmp_path / "home" / ".cache" / "eastindia" / "numba"
    assert first.stderr.startswith("eastindia: note: compiling the kernels") and str(cache) in first.stderr
    assert len(first.stderr.splitlines()) == 1
    assert any(cache.rglob("*.nbi")) and any(cache.rglob("*.nbc"))
    assert sorted(p.relative_to(src) for p in src.rglob("*")) == before  # nothing written into the install
    assert probe_run().stderr == ""  # loaded from the cache: nothing to say
    (tmp_path / "a-file").write_text("")
    blocked = probe_run(**{kernels.CACHE_ENV: str(tmp_path / "a-file" / "cache")})
    assert blocked.stderr.splitlines() == [
        f"eastindia: note: cannot write the kernel cache {tmp_path / 'a-file' / 'cache'} (Not a directory); "
        f"compiling the kernels in memory, for this process only (set {kernels.CACHE_ENV} to a writable folder to "
        "keep them)"
    ]


def test_a_run_on_a_cold_cache_compiles_in_one_worker_first(tmp_path, monkeypatch):
    """Several workers that find no kernels cached would each compile them at once: the run plays its first
    calibration pilot, or its first shard, alone, then marks the engine's kernels compiled (``kernels.warm_marker``)
    and plays the rest in parallel. A small task (below ``MIN_GAMES``: no kernel runs), one job, or a marked cache
    plays in parallel at once; the games and the fitted beliefs are the same either way."""
    from experiments import runner, spec

    monkeypatch.setenv(kernels.CACHE_ENV, str(tmp_path / "cache"))
    marker = kernels.warm_marker(*runner.ENGINE_PACKAGES)
    assert marker.parent == tmp_path / "cache" and not marker.exists()
    big, small = kernels.MIN_GAMES, kernels.MIN_GAMES - 1
    assert runner._cold_kernels(big, 2) == marker
    assert runner._cold_kernels(big, 1) is None and runner._cold_kernels(small, 2) is None
    monkeypatch.setattr(kernels, "MIN_GAMES", 10)  # the run's 10-game shards and pilots count as large here
    submitted = []  # (what, whether the cache was marked warm) at each submission to the workers
    submit = runner.Pool.submit
    monkeypatch.setattr(runner.Pool, "submit", lambda pool, fn, *a: submitted.append((fn.__name__, marker.exists()))
                        or submit(pool, fn, *a))  # fmt: skip
    text = ('name = "cold"\nplayers = 4\ngames = 30\nshard_size = 10\nseed = 3\ncalibration_games = 10\n'
            'strategies = ["bid_low", "balanced"]\n[sweep]\n"capital.budget_per_player" = [5, 7]\n')  # fmt: skip
    for calibrate, first in (("true", "_pilot"), ("false", "play_shards")):  # the pilots, else the shards, first
        marker.unlink(missing_ok=True)
        submitted.clear()
        path = tmp_path / f"calibrate-{calibrate}.toml"
        path.write_text(f"calibrate = {calibrate}\n{text}")
        runner.run(spec.load(path), tmp_path / calibrate / "two", jobs=2)
        tasks = [warm for what, warm in submitted if what == first]
        assert submitted[0] == (first, False) and len(tasks) >= 2 and all(warm for _, warm in submitted[1:])
        assert marker.exists() and runner._cold_kernels(big, 2) is None
        runner.run(spec.load(path), tmp_path / calibrate / "one", jobs=1)
        for frame in ("games", "seats", "rounds"):
            assert (tmp_path / calibrate / "two" / f"{frame}.parquet").read_bytes() == (
                tmp_path / calibrate / "one" / f"{frame}.parquet"
            ).read_bytes()


def _machine_code_where_it_is(monkeypatch) -> None:
    """The kernels compiled or loaded from the process's own cache (not compiled again into a test's empty one, which
    then holds only the marker and the count of games), and this process not yet marked as having run them."""
    where = kernels._cache if isinstance(kernels._cache, Path) else kernels.cache_dir()
    monkeypatch.setattr(kernels, "_cache", where)
    monkeypatch.setattr(kernels, "_marked", False)


def test_a_first_run_plays_the_numpy_reference_until_its_games_would_have_paid_for_compiling(
    tmp_path, monkeypatch, capsys
):
    """Left to itself (``EASTINDIA_KERNELS`` unset), a process whose code's kernels are not cached plays a large
    batch on the numpy reference and counts its games in the cache folder, a batch below ``MIN_GAMES`` not; once
    they reach ``COMPILE_AFTER``, compiling is due: the next process runs the kernels (compiling them), and a run's
    first shard plays alone. A process that ran the kernels marks them cached, and every process then runs them.
    ``EASTINDIA_KERNELS=1`` runs them at once, ``0`` never."""
    from experiments import runner

    _machine_code_where_it_is(monkeypatch)
    monkeypatch.setenv(kernels.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(kernels, "MODE", "auto")
    monkeypatch.setattr(kernels, "MIN_GAMES", 20)
    monkeypatch.setattr(kernels, "COMPILE_AFTER", 50)
    marker = kernels.warm_marker(*kernels.ENGINE_PACKAGES)
    rules = Rules.default(4)
    seats = engine.resolve_strategies(rules, "balanced")
    ref = engine.play_batch(rules, seats, 5, np.arange(20))[1]
    assert kernels._start is False and not kernels._loaded and kernels.uncompiled_games() == 20
    assert (tmp_path / "cache" / marker.with_suffix(".uncompiled").name).read_text() == "20\n"
    assert kernels.cold() and not kernels.due() and runner._cold_kernels(20, 2) is None
    engine.play_batch(rules, seats, 5, np.arange(19))  # below MIN_GAMES: not counted
    assert kernels.uncompiled_games() == 20 and not kernels._loaded
    engine.play_batch(rules, seats, 5, np.arange(29))
    assert kernels.uncompiled_games() == 49 and not kernels.due()  # one game short
    engine.play_batch(rules, seats, 5, np.arange(20))
    assert kernels.uncompiled_games() == 69 and kernels.due() and not kernels.cold()
    assert kernels._start is False and not kernels._loaded  # this process decided at its first large batch
    monkeypatch.setattr(kernels, "COMPILE_AFTER", 70)
    assert not kernels.due()
    monkeypatch.setattr(kernels, "COMPILE_AFTER", 69)  # reached exactly
    assert kernels.due()
    assert runner._cold_kernels(20, 2) == marker and runner._cold_kernels(19, 2) is None
    monkeypatch.setattr(kernels, "_start", None)  # the next process
    assert kernels.use(20) and not kernels.use(19) and kernels._start is True
    monkeypatch.setattr(kernels, "MIN_GAMES", 0)  # it compiles or loads them (a batch of 20 games, as above)
    got = engine.play_batch(rules, seats, 5, np.arange(20))[1]
    assert kernels._start and marker.exists() and not kernels.cold() and runner._cold_kernels(20, 2) is None
    assert kernels.uncompiled_games() == 0  # not counted, and the count is dropped
    for frame in ("games", "seats"):  # the same games either way
        one, other = getattr(ref, frame), getattr(got, frame)
        assert one.keys() == other.keys() and all(np.array_equal(one[k], other[k]) for k in one), frame
    monkeypatch.setattr(kernels, "_start", None)
    marker.unlink()
    assert kernels.cold() and not kernels.starts()
    monkeypatch.setattr(kernels, "_start", None)
    monkeypatch.setattr(kernels, "MODE", "1")
    assert kernels.due() and not kernels.cold() and kernels.starts()
    monkeypatch.setattr(kernels, "_start", None)
    monkeypatch.setattr(kernels, "MODE", "yes")
    assert not kernels.starts() and capsys.readouterr().err == (
        "eastindia: note: EASTINDIA_KERNELS='yes' is not 0, 1 or auto: taken as auto\n"
    )
    monkeypatch.setattr(kernels, "ENABLED", False)
    assert not kernels.due() and not kernels.cold() and not kernels.use(10**6)


def test_a_run_says_once_that_it_plays_the_numpy_reference_while_the_kernels_are_not_cached(tmp_path, monkeypatch):
    """The note says why a run plays more slowly than the next will, and how to compile now, once per process (a
    study's runs); a run whose shards are too small to run the kernels, or told to compile them, says nothing of it.
    Its shards' games are counted. Where the cache folder cannot be written, nothing is counted or kept: the note
    says so, and how to have the kernels."""
    from experiments import runner, spec

    _machine_code_where_it_is(monkeypatch)
    monkeypatch.setenv(kernels.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(kernels, "MODE", "auto")
    monkeypatch.setattr(kernels, "MIN_GAMES", 10)
    monkeypatch.setattr(kernels, "_told_cold", False)
    path = tmp_path / "two.toml"
    path.write_text(
        'name = "two"\nplayers = 4\ngames = 30\nshard_size = 10\nseed = 3\ncalibrate = false\n'
        'strategies = ["bid_low", "balanced"]\n[sweep]\n"capital.budget_per_player" = [5, 7]\n'
    )
    said: list[str] = []
    runner.run(spec.load(path), tmp_path / "cold", jobs=1, notify=said.append)
    assert said == [
        "note: no compiled kernels are cached for this code: this run plays the numpy reference (the same games, "
        "more slowly); after 100,000 more games played so they are compiled, once (about 30 CPU-seconds), or now "
        "with EASTINDIA_KERNELS=1"
    ]
    assert kernels.uncompiled_games() == 60 and not kernels._loaded
    assert kernels.cold_note().split("after ")[1].startswith("99,940 more games")
    said.clear()
    runner.run(spec.load(path), tmp_path / "again", jobs=1, notify=said.append)
    assert said == [] and kernels.uncompiled_games() == 120  # said once in this process
    monkeypatch.setattr(kernels, "_told_cold", False)
    monkeypatch.setattr(kernels, "MIN_GAMES", 11)  # 10-game shards: no kernel would run
    runner.run(spec.load(path), tmp_path / "small", jobs=1, notify=said.append)
    assert said == [] and kernels.uncompiled_games() == 120
    monkeypatch.setattr(kernels, "MIN_GAMES", 10)
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv(kernels.CACHE_ENV, str(tmp_path / "a-file" / "cache"))  # cannot be made: nothing counted
    monkeypatch.setattr(kernels, "_told_cold", False)
    monkeypatch.setattr(kernels, "_start", None)
    runner.run(spec.load(path), tmp_path / "unwritable", jobs=1, notify=said.append)
    assert said == [
        f"note: the kernel cache {tmp_path / 'a-file' / 'cache'} cannot be written (Not a directory): runs play the "
        f"numpy reference (the same games, more slowly); set {kernels.CACHE_ENV} to a writable folder, or "
        "EASTINDIA_KERNELS=1 to compile the kernels in each process (about 30 CPU-seconds each)"
    ]
    said.clear()
    monkeypatch.setenv(kernels.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(kernels, "MODE", "1")
    monkeypatch.setattr(kernels, "_start", None)
    monkeypatch.setattr(kernels, "_marked", False)
    runner.run(spec.load(path), tmp_path / "told", jobs=1, notify=said.append)
    assert said == [] and kernels._start and kernels.warm_marker(*kernels.ENGINE_PACKAGES).exists()
    for frame in ("games", "seats", "rounds"):
        cold, told = (tmp_path / "cold" / f"{frame}.parquet"), (tmp_path / "told" / f"{frame}.parquet")
        assert cold.read_bytes() == told.read_bytes(), frame


def test_the_warm_marker_is_keyed_as_numbas_cache_is(tmp_path, monkeypatch):
    """numba keeps a source file's machine code under the file's folder path and compiles again when the file's
    modification time or size changes: the marker that lets a run's workers start together is keyed on the same,
    so that a second checkout of the same code, or a checkout that touched a file, plays its first shard alone
    instead of compiling in every worker at once."""
    import os
    import shutil

    monkeypatch.setenv(kernels.CACHE_ENV, str(tmp_path / "cache"))
    one = tmp_path / "one" / "sim"
    (one / "phases").mkdir(parents=True)
    (one / "kernels.py").write_text("x = 1\n")
    (one / "phases" / "trade.py").write_text("y = 2\n")
    other = tmp_path / "other" / "sim"
    shutil.copytree(one, other, copy_function=shutil.copy2)  # the same bytes and times, another path
    marker = kernels.warm_marker(one)
    assert marker.parent == tmp_path / "cache" and marker == kernels.warm_marker(one)
    assert kernels.warm_marker(other) != marker
    stat = (one / "phases" / "trade.py").stat()
    os.utime(one / "phases" / "trade.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert kernels.warm_marker(one) != marker
    os.utime(one / "phases" / "trade.py", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert kernels.warm_marker(one) == marker
    (one / "phases" / "trade.py").write_text("y = 22\n")  # one byte more
    os.utime(one / "phases" / "trade.py", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert kernels.warm_marker(one) != marker


def test_a_kernel_sees_one_layout_of_its_arrays_so_it_compiles_once(monkeypatch):
    """Every compiled signature costs a compile on a fresh install: the kernels that are handed arrays of several
    layouts (a broadcast, a Fortran-ordered slice, a read-only view) or dtypes are handed one. Over 300 games of the
    archetype table with the kernels on, the dice kernel sees two signatures (raw bits and uniforms, by its output's
    dtype) and the seat counters, note masks and the Director's allocation one each."""
    import numba

    from sim import board
    from strategies import company

    if not kernels.ENABLED:
        pytest.skip("the kernels are off here (EASTINDIA_KERNELS=0 or numba missing)")
    monkeypatch.setattr(kernels, "MIN_GAMES", 0)
    seen: dict[str, set] = {}
    for module, name in ((dice, "_draw_kernel"), (board, "_seat_counts"), (notes, "_seat_masks"),
                         (company, "_allocate_kernel")):  # fmt: skip
        kernel = getattr(module, name)

        def spy(*args, kernel=kernel, name=name):
            seen.setdefault(name, set()).add(tuple(str(numba.typeof(a)) for a in args))
            return kernel(*args)

        monkeypatch.setattr(module, name, spy)
    rules = Rules.default(5)
    seats = engine.resolve_strategies(rules, ["bid_low", "buy_shares", "run_firm", "go_military", "balanced"])
    engine.play_batch(rules, seats, 3, np.arange(300))
    assert {name: len(sigs) for name, sigs in seen.items()} == {
        "_draw_kernel": 2,
        "_seat_counts": 1,
        "_seat_masks": 1,
        "_allocate_kernel": 1,
    }, seen
