"""R-AUCTION with programmable bids (L3-L10), D-ALLOC, D-EXTRA, D-LOTS, D-BIDSUM, and the whole setup."""

import numpy as np
import pytest
from helpers import Scripted, agents, blank, const, dice

from sim import capital, ledger
from sim import layout as L
from sim import positions as pos
from sim.agents import IllegalDecision
from sim.dice import Dice, Streams
from sim.phases.setup import apply_lots, collect_bids, run_auction, setup, starting_capital
from sim.positions import held_count
from sim.rules import Rules
from sim.state import FLOW

# each rule played on both engine paths, the numpy reference and the compiled kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")


def empty_bids(rules, games=1):
    shape = (games, rules.players, len(rules.d.lot_names))
    return np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64)


def auction(rules, base, step, cap, uniforms=None):
    g = base.shape[0]
    return run_auction(base, step, cap, rules, dice(uniforms=uniforms), np.arange(g))


def test_tie_settled_by_programs_l5_l6():
    """L5 'bid 5, on a tie raise to 10 in steps of 1' beats L6 'bid 5, on a tie pass at once': he pays 6."""
    r = Rules.default(4)
    base, step, cap = empty_bids(r)
    base[0, 0, 0], step[0, 0, 0], cap[0, 0, 0] = 5, 1, 10
    base[0, 1, 0], step[0, 1, 0], cap[0, 1, 0] = 5, 0, 0
    winner, price, final = auction(r, base, step, cap)
    assert winner[0, 0] == 0 and price[0, 0] == 6
    assert final[0, 0, 0] == 6 and final[0, 1, 0] == 5


def test_tie_settled_by_programs_l7():
    """L7 'bid 5, raise by 10 up to 25' (15, then 25) against 'raise to 10 by 1': the first wins at 15."""
    r = Rules.default(4)
    base, step, cap = empty_bids(r)
    base[0, 2, 3], step[0, 2, 3], cap[0, 2, 3] = 5, 10, 25
    base[0, 3, 3], step[0, 3, 3], cap[0, 3, 3] = 5, 1, 10
    winner, price, final = auction(r, base, step, cap)
    assert winner[0, 3] == 2 and price[0, 3] == 15
    assert final[0, 3, 3] == 10  # the loser raised all the way to his cap


def test_unresolved_tie_is_random():
    r = Rules.default(4)
    base, step, cap = empty_bids(r)
    base[:, 1, 0] = base[:, 3, 0] = 7  # same bid, both pass at once
    # greedy tie on lot 0 between seats 1 and 3: the scripted uniform picks the first (0.0) or the second (0.9)
    first, _, _ = auction(r, base, step, cap, uniforms={0: [0.0] * 5 + [0.0]})
    second, _, _ = auction(r, base, step, cap, uniforms={0: [0.0] * 5 + [0.9]})
    assert first[0, 0] == 1 and second[0, 0] == 3


def test_greedy_skips_families_that_have_four_lots():
    """D-ALLOC: seat 0 bids highest on every lot but can take only four; the next highest bids win the rest."""
    r = Rules.default(4)
    base, step, cap = empty_bids(r)
    n_lots = base.shape[2]
    base[0, 0, :] = 50 + np.arange(n_lots)  # strictly highest everywhere, higher on later lots
    base[0, 1, :] = 10
    winner, price, _ = auction(r, base, step, cap)
    won = [(winner[0] == s).sum() for s in range(4)]
    assert won == [4, 4, 4, 4]
    main = np.flatnonzero(~r.d.lot_extra)
    top4 = sorted(np.argsort(-np.where(winner[0] >= 0, base[0, 0], -1))[:4])
    assert (winner[0, top4] == 0).all()  # seat 0 took its four highest bids
    assert (price[0, top4] == base[0, 0, top4]).all()
    assert set(main) <= set(np.flatnonzero(winner[0] >= 0))


def test_extra_lots_with_the_highest_top_bids_are_played():
    """D-EXTRA: 4 players -> 5 additional lots offered, the 2 with the highest top bids played."""
    r = Rules.default(4)
    base, step, cap = empty_bids(r)
    extra = np.flatnonzero(r.d.lot_extra)
    base[0, 0, extra[1]] = 3
    base[0, 2, extra[4]] = 9
    base[0, 3, extra[0]] = 1
    winner, _, _ = auction(r, base, step, cap)
    played = np.flatnonzero(winner[0, extra] >= 0)
    assert played.tolist() == [1, 4]
    assert winner[0, extra[4]] == 2 and winner[0, extra[1]] == 0


@pytest.mark.parametrize("players", [4, 5, 6])
def test_every_family_ends_with_four_lots(players):
    r = Rules.default(players)
    g = 300
    rng = np.random.default_rng(players)
    shape = (g, players, len(r.d.lot_names))
    base = rng.integers(0, 6, size=shape) * (rng.random(shape) < 0.5)
    step = rng.integers(0, 3, size=shape)
    cap = base + rng.integers(0, 5, size=shape)
    winner, price, final = run_auction(base, step, cap, r, Dice(Streams(1, np.arange(g), 1)), np.arange(g))
    counts = np.stack([(winner == s).sum(axis=1) for s in range(players)], axis=1)
    assert (counts == 4).all()
    assert ((winner >= 0).sum(axis=1) == 4 * players).all()
    assert (final >= base).all() and (final <= np.maximum(cap, base)).all()
    # a won lot's price is the winner's final value
    rows, lots = np.nonzero(winner >= 0)
    assert (price[rows, lots] == final[rows, winner[rows, lots], lots]).all()


def test_bid_sum_all_versus_won():
    """D-BIDSUM: 'all' counts every final bid value, 'won' only the prices of lots won."""
    r = Rules.default(4)
    base, step, cap = empty_bids(r)
    base[0, 0, 0], base[0, 1, 0] = 9, 4  # seat 0 wins lot 0 at 9; seat 1's lost bid of 4 counts under 'all'
    winner, price, final = auction(r, base, step, cap)
    for mode, expected in (("all", [9, 4, 0, 0]), ("won", [9, 0, 0, 0])):
        rules = r.with_overrides({"capital.bid_sum": mode})
        _, state = blank(1, 4, rules)
        starting_capital(state, rules, dice(), winner, price, final)
        assert state.bid_total[0].tolist() == expected
        assert state.capital_money.sum() == rules.budget


def test_leftover_goes_to_the_family_with_the_two_cheapest_lots():
    """R-CAPITAL leftover, through the auction: seat 2 takes the cheapest lots; the others bid 20 elsewhere."""
    r = Rules.default(5)
    base, step, cap = empty_bids(r)
    base[0, :, 2:] = 20
    base[0, 2, :] = 0
    base[0, 2, 0] = base[0, 2, 1] = 1
    winner, price, final = auction(r, base, step, cap)
    assert winner[0, 0] == winner[0, 1] == 2 and price[0, 0] == price[0, 1] == 1
    assert (winner[0] == 2).sum() == 4 and price[0][winner[0] == 2].max() <= 1
    _, state = blank(1, 5, r)
    starting_capital(state, r, dice(), winner, price, final)
    short = r.budget - capital.round_capital(state.capital_exact, r).sum()
    assert short == 3 and state.leftover[0, 2] == 3 and state.leftover_case[0] == capital.TWO_LOWEST
    assert state.capital_money.sum() == r.budget


def test_setup_places_lots_and_relatives():
    """After setup every office of the catalogue is held, four lots per family, relatives conserved."""
    r, state = blank(50, 5)
    setup(state, r, Dice(Streams(3, state.game, 6)), agents(r, state))
    for office in (L.CHAIRMAN, L.DIRECTOR, L.SHIPPING, L.MILITARY, *L.PRESIDENT):
        assert (state.office[:, office] >= 0).all()
    assert (state.prime_minister >= 0).all()
    assert (state.relatives() == 12).all()
    assert (state.capital_money.sum(axis=1) == 30).all() and (state.money == state.capital_money).all()
    assert (state.last_chair == state.office[:, L.CHAIRMAN]).all()
    assert (state.shares.sum(axis=1) == 4).all()  # four share lots for 5 players


def test_bids_must_be_non_negative():
    r, state = blank(2, 4)
    bad = Scripted(bid=lambda obs, legal: tuple(-np.ones((obs.n, 19), dtype=int) for _ in range(3)))
    from sim.agents import IllegalDecision

    with pytest.raises(IllegalDecision, match=r"strategy 'scripted' \(seat 0\) made an illegal 'bid' in game 0"):
        setup(state, r, dice(), agents(r, state, bad))


def test_equal_bids_on_two_lots_go_in_catalogue_or_random_order():
    """D-ALLOC lot_ties: seat 0 has room for one more lot and bids 9 on lots 2 and 5."""
    r = Rules.default(4)
    base, step, cap = empty_bids(r)
    base[0, 0, [0, 1, 4]] = 20
    base[0, 0, [2, 5]] = 9
    # seat 0 wins lots 0, 1, 4 at 20, then one of lots 2 and 5 at 9
    winner, _, _ = auction(r, base, step, cap)
    assert winner[0, 2] == 0 and winner[0, 5] != 0
    rnd = r.with_overrides({"auction.lot_ties": "random"})
    # the random lot order draws one uniform per lot after the 5 for the additional lots: lot 5 first
    u = [0.0] * 5 + [0.1] * len(r.d.lot_names)
    u[5 + 5] = 0.9
    winner, _, _ = auction(rnd, base, step, cap, uniforms={0: u})
    assert winner[0, 5] == 0 and winner[0, 2] != 0


def test_every_item_of_a_lot_goes_to_its_winner_per_game():
    """D-LOTS: a lot holding every kind of item (the Luxury lot rewritten): each item reaches the winner of its
    game, the relatives leave his supply, money enters through the ledger; the Chairman's and the PM's lots too."""
    lot = {"name": "Everything", "luxuries": 1, "money": 3, "positions": 2, "academy": 1, "shares": 1,
           "clerks": [0, 1, 0], "officers": [0, 0, 2], "shipyards": 1, "factories": 1}  # fmt: skip
    r = Rules.default(4).with_overrides({"auction.main_lots.13": lot})
    _, s = blank(2, 4, r)
    winner = np.full((2, len(r.d.lot_names)), -1)
    everything, chair, pm = r.d.lot_names.index("Everything"), 0, r.d.lot_names.index("Prime Minister")
    winner[:, everything] = [1, 3]
    winner[:, chair] = [0, 2]
    winner[:, pm] = [3, 0]
    apply_lots(s, r, winner)
    for g, seat in ((0, 1), (1, 3)):
        assert s.luxuries[g, seat] == 1 and s.money[g, seat] == 3
        assert s.wealth[g, seat] == 1 + pos.wealth(s, r)[g, seat]  # the luxury's, and its permanent cards'
        assert held_count(s)[g, seat] == 2 and s.academy[g, seat] == 1 and s.shares[g, seat] == 1
        assert s.clerks[g, seat].tolist() == [0, 1, 0] and s.officers[g, seat].tolist() == [0, 0, 2]
        assert s.shipyards[g, seat] == 1 and s.factories[g, seat] == 1 and s.supply[g, seat] == 12 - 5
    assert s.office[:, L.CHAIRMAN].tolist() == [0, 2] and s.prime_minister.tolist() == [3, 0]
    assert s.money.sum() == 6 and s.ledger[:, FLOW["lot_money"]].tolist() == [3, 3] and ledger.balanced(s).all()
    assert (s.relatives() == 12).all()


def test_zero_bids_are_no_bids_and_unbid_lots_go_at_random_to_families_short_of_lots():
    """D-ALLOC (L8–L10): a lot with only zero bids is not auctioned: it goes at random to a family with fewer than four
    lots."""
    r = Rules.default(4)
    shape = (1, 4, len(r.d.lot_names))
    base, step, cap = np.zeros(shape, int), np.zeros(shape, int), np.zeros(shape, int)
    winner, price, final = run_auction(base, step, cap, r, dice(), np.arange(1))
    assert (price == 0).all() and (final == 0).all()
    played = winner[0] >= 0
    assert played.sum() == 16 and np.bincount(winner[0][played], minlength=4).tolist() == [4, 4, 4, 4]


def test_a_cap_below_the_base_bid_reaches_only_the_base():
    """R-AUCTION (L5–L7): a program's cap below its base: its reach is the base (it never raises). Seat 0 bids 5 capped
    at 3, seat 1 bids 5 raising by 1 to 6: seat 1 wins at 6."""
    r = Rules.default(4)
    shape = (1, 4, len(r.d.lot_names))
    base, step, cap = np.zeros(shape, int), np.zeros(shape, int), np.zeros(shape, int)
    base[0, :2, 0] = 5
    step[0, 0, 0], cap[0, 0, 0] = 2, 3
    step[0, 1, 0], cap[0, 1, 0] = 1, 6
    winner, price, final = run_auction(base, step, cap, r, dice(), np.arange(1))
    assert winner[0, 0] == 1 and price[0, 0] == 6 and final[0, :2, 0].tolist() == [5, 6]


def test_ties_settled_by_programs_in_two_games_at_once():
    """R-AUCTION (L5–L7): both games: two bidders tie at 5 on lot 0. Game 0: winner raises by 2 to 11, rival reaches 8:
    he pays the first value of his ladder above 8, 9. Game 1: winner raises by 1 to 11, rival reaches 8: 9 too. A
    batch-wide rival or a misread ladder (5 + 2 / 2, 5 + 1 * (3 // 2 + 1)) pays something else."""
    r = Rules.default(4)
    shape = (2, 4, len(r.d.lot_names))
    base, step, cap = np.zeros(shape, int), np.zeros(shape, int), np.zeros(shape, int)
    base[:, :2, 0] = 5
    step[0, 0, 0], cap[0, 0, 0] = 2, 11
    step[1, 0, 0], cap[1, 0, 0] = 1, 11
    step[:, 1, 0], cap[:, 1, 0] = 3, 8
    step[1, 1, 0], cap[1, 1, 0] = 1, 6  # game 1's rival reaches only 6: 7
    winner, price, final = run_auction(base, step, cap, r, dice(), np.arange(2))
    assert winner[:, 0].tolist() == [0, 0] and price[:, 0].tolist() == [9, 7]
    assert final[:, 1, 0].tolist() == [8, 6]


def test_the_additional_lots_played_are_the_highest_top_bids_ties_at_random():
    """D-EXTRA (L10), 4 players: 5 additional lots offered, 2 played. Top bids 1 on the first and 0 elsewhere: the first
    is played, then the highest uniform among the rest (the third, 0.9; with a 1.5 weight 0.9 and 0.8 would pass the bid
    of 1)."""
    r = Rules.default(4)
    shape = (1, 4, len(r.d.lot_names))
    base, step, cap = np.zeros(shape, int), np.zeros(shape, int), np.zeros(shape, int)
    extra = np.flatnonzero(r.d.lot_extra)
    base[0, 2, extra[0]] = 1
    d = dice(uniforms={0: [0.0, 0.8, 0.9, 0.1, 0.3]})
    winner, _, _ = run_auction(base, step, cap, r, d, np.arange(1))
    assert (winner[0, extra] >= 0).tolist() == [True, False, True, False, False]


def test_two_lots_of_a_kind_add_up():
    """D-LOTS: two lots of one kind won by one family add up (luxuries, positions, shipyards, factories, officers): the
    second does not overwrite the first."""
    lot = {"name": "Everything", "luxuries": 1, "positions": 1, "shipyards": 1, "factories": 1, "officers": [1, 0, 0]}
    r = Rules.default(4).with_overrides({"auction.main_lots.12": lot, "auction.main_lots.13": {**lot, "name": "Again"}})
    _, s = blank(1, 4, r)
    winner = np.full((1, len(r.d.lot_names)), -1)
    winner[0, [12, 13]] = 2
    apply_lots(s, r, winner)
    assert s.luxuries[0, 2] == held_count(s)[0, 2] == s.shipyards[0, 2] == s.factories[0, 2] == 2
    assert s.wealth[0, 2] == 2 + pos.wealth(s, r)[0, 2]  # luxuries' wealth, and any permanent card's
    assert s.officers[0, 2].tolist() == [2, 0, 0]


def test_a_starting_luxury_lot_gives_wealth_too():
    """D-LOTS: a luxury won at the auction carries its conspicuous wealth (1), like one bought in phase 2."""
    r, s = blank(1, 4)
    winner = np.full((1, len(r.d.lot_names)), -1)
    winner[0, r.d.lot_names.index("Luxury")] = 2
    winner[0, r.d.lot_names.index("Shipyard")] = 1
    apply_lots(s, r, winner)
    assert s.luxuries[0].tolist() == [0, 0, 1, 0] and s.wealth[0].tolist() == [0, 0, 1, 0]
    assert s.shipyards[0].tolist() == [0, 1, 0, 0]


def test_negative_bids_are_refused_in_the_game_they_are_made():
    """R-AUCTION (L3–L10): a bid program's values are never negative; a negative step in game 1 alone is refused naming
    game 1."""
    r, s = blank(2, 4)
    n_lots = len(r.d.lot_names)

    def bid(obs, legal):
        out = [np.zeros((obs.n, n_lots), dtype=int) for _ in range(3)]
        out[1][obs.games == 1, 3] = -1
        return tuple(out)

    with pytest.raises(IllegalDecision, match="'bid' in game 1: bids, steps and caps"):
        collect_bids(s, r, agents(r, s, Scripted(bid=bid)))


def test_a_tie_for_command_at_the_start_is_broken_by_military_affairs():
    """R-COMMANDER (L151–L152) at the setup: two additional lots put an officer in Bombay (the Madras officer's lot
    rewritten): seats 1 and 2 win one each, seat 0 wins Military Affairs and picks seat 2 to command."""
    r = Rules.default(4).with_overrides(
        {"auction.extra_lots.4": {"name": "Officer in Bombay too", "officers": [1, 0, 0]}}
    )
    n_lots = len(r.d.lot_names)
    bombay_lots = [i for i, name in enumerate(r.d.lot_names) if name.startswith("Officer in Bombay")]

    def bid(obs, legal):
        base = np.zeros((obs.n, n_lots), dtype=np.int64)
        base[obs.seat == 0, r.d.lot_names.index("Military Affairs")] = 10
        base[obs.seat == 1, bombay_lots[0]] = 9
        base[obs.seat == 2, bombay_lots[1]] = 9
        return base, base * 0, base * 0

    _, s = blank(1, 4, r)
    strat = Scripted(bid=bid, pick_commander=const(2))
    setup(s, r, dice(), agents(r, s, strat))
    assert s.office[0, L.MILITARY] == 0 and s.officers[0, :, 0].tolist() == [0, 1, 1, 0]
    assert strat.asked("pick_commander") == [([0], [0])] and s.commander[0, 0] == 2


@pytest.mark.parametrize("which", [0, 2])
def test_negative_bases_and_caps_are_refused_in_their_game(which):
    """R-AUCTION (L3–L10): a negative base or cap in game 1 alone is refused naming game 1."""
    r, s = blank(2, 4)
    n_lots = len(r.d.lot_names)

    def bid(obs, legal):
        out = [np.zeros((obs.n, n_lots), dtype=int) for _ in range(3)]
        out[which][obs.games == 1, 3] = -1
        return tuple(out)

    with pytest.raises(IllegalDecision, match="'bid' in game 1: bids, steps and caps"):
        collect_bids(s, r, agents(r, s, Scripted(bid=bid)))
