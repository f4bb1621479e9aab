"""Board queries shared by phases and strategies: reachability of orders (R-TRADE), regions outside home."""

import numpy as np
from helpers import chained_bombay_map

from sim.board import (
    _reachable_iterative,
    check_outcome,
    exchange_free,
    order_bits,
    reach_table,
    reachable,
    regions_of,
    regions_outside_home,
)
from sim.rules import Rules


def names(rules, mask):
    return sorted(rules.d.orders[i] for i in np.flatnonzero(mask))


def test_reachable_orders_at_the_1710_start():
    r = Rules.default()
    reach = reachable(r, r.d.order_open0[None, :])[0]
    assert names(r, reach[0]) == ["Bombay1", "Bombay3", "Mysore1", "Mysore2"]
    assert names(r, reach[1]) == ["Madras1"]
    assert names(r, reach[2]) == ["Bengal1", "Bengal2", "Maratha1", "Maratha3"]


def test_another_presidencys_home_region_blocks_the_route():
    r = Rules.default()
    open_ = np.ones((1, len(r.d.orders)), dtype=bool)
    reach = reachable(r, open_)[0]
    madras_orders = np.isin(r.d.orders, ["Madras1", "Madras2"])
    assert not reach[0, madras_orders].any() and not reach[2, madras_orders].any()
    # a closed home port reaches nothing
    open_[0, r.d.port[1]] = False
    assert not reachable(r, open_)[0, 1].any()


def test_table_lookup_matches_matrix_products():
    r = Rules.default()
    rng = np.random.default_rng(5)
    usable = rng.random((3000, len(r.d.orders))) < 0.6
    blocked = rng.random(usable.shape) < 0.2
    assert np.array_equal(reachable(r, usable, blocked), _reachable_iterative(r, usable & ~blocked))


def test_regions_outside_home():
    r = Rules.default()
    orders = np.isin(r.d.orders, ["Bombay3", "Bombay1", "Mysore1", "Mysore2", "Delhi1"])[None, :]
    assert regions_outside_home(r, orders, 0).tolist() == [2]  # Mysore and Delhi
    assert regions_outside_home(r, np.repeat(orders, 2, axis=0), np.array([0, 2])).tolist() == [2, 3]


def test_regions_outside_home_looked_up_per_set_of_orders_count_the_regions_of_the_orders():
    """The lookup table of ``regions_outside_home`` (bool orders of a map of up to 20 orders) gives the count of
    the orders' regions (``regions_of``) without the trading presidency's home, for one presidency or one a game."""
    r = Rules.default()
    rng = np.random.default_rng(7)
    orders = rng.random((3000, len(r.d.orders))) < rng.random((3000, 1))
    presidency = rng.integers(0, 3, 3000)
    regions = regions_of(r, orders)
    regions[np.arange(3000), r.d.home[presidency]] = False
    got = regions_outside_home(r, orders, presidency)
    assert got.dtype == np.int64 and np.array_equal(got, regions.sum(axis=1)) and len(np.unique(got)) >= 6
    for p in range(3):
        regions = regions_of(r, orders)
        regions[:, r.d.home[p]] = False
        assert np.array_equal(regions_outside_home(r, orders, p), regions.sum(axis=1))


def test_a_map_of_exactly_twenty_orders_still_answers_by_the_lookup_table():
    """R-TRADE reachability (board.reach_table): the bit-mask table is built for maps of up to 20 orders (None only
    past 20): three more Bombay orders chained to Bombay3 make a 20-order map, and its lookup agrees with
    ``reachable`` -- the chain is reached from Bombay's port up to a closed link (a ``>=`` bound for ``>`` would give
    None at exactly 20)."""
    r = chained_bombay_map(3)
    assert len(r.d.orders) == 20
    usable = np.ones((2, 20), dtype=bool)
    usable[1, r.d.orders.index("Extra2")] = False
    table = reach_table(r)
    assert table is not None
    bits = table[:, order_bits(usable)]
    reach = reachable(r, usable)  # bool[G, P, O]
    assert np.array_equal(bits, order_bits(reach).T)
    extra = [r.d.orders.index(f"Extra{i}") for i in range(1, 4)]
    assert reach[0, 0, extra].all() and reach[1, 0, extra].tolist() == [True, False, False]


def test_free_exchange_positions_by_table_and_by_sorting():
    """``exchange_free`` (a table per set of free positions) against the sorted prices of the free positions, for
    every set of free positions of the default exchange and of one too long for the table."""
    for prices in ((2, 3, 3, 4, 5), tuple(range(1, 11))):
        r = Rules.default().with_overrides({"actions.exchange_prices": list(prices)})
        e = len(prices)
        masks = np.arange(1 << e)
        exchange = np.where((masks[:, None] >> np.arange(e)) & 1, -1, 0).astype(np.int8)  # -1: free
        n_free, cheapest, two = exchange_free(r, exchange)
        free = np.where(exchange < 0, np.array(prices)[None, :], 1 << 30)
        price = np.sort(free, axis=1)
        assert (n_free == (exchange < 0).sum(axis=1)).all()
        assert (cheapest == price[:, 0]).all()
        assert (two == np.where(n_free >= 2, price[:, 0] + price[:, 1], 1 << 30)).all()


def test_company_ships_at_one_location_are_that_column_of_every_location():
    """``company_ships(state, location)``: the ships of every kind and the families' yard ships at one location."""
    from types import SimpleNamespace

    from sim.board import company_ships

    rng = np.random.default_rng(11)
    ships, yard_ships = rng.integers(0, 4, (500, 4, 2)), rng.integers(0, 3, (500, 5, 4))
    state = SimpleNamespace(ships=ships.astype(np.int32), yard_ships=yard_ships.astype(np.int32))
    every = company_ships(state)
    for location in range(4):
        got = company_ships(state, location)
        assert got.dtype == np.int64 and np.array_equal(got, every[:, location])


def test_a_map_with_more_orders_than_the_table_reaches_by_matrix_products():
    """R-TRADE (L175–L182): past 20 orders reachability falls back from the lookup table to matrix products: four more
    Bombay orders chained to Bombay3 are reached from Bombay's port, and nothing changes for the others."""
    r = chained_bombay_map(4)
    assert len(r.d.orders) == 21
    usable = np.ones((2, 21), dtype=bool)
    usable[1, r.d.orders.index("Extra2")] = False
    reach = reachable(r, usable)
    extra = [r.d.orders.index(f"Extra{i}") for i in range(1, 5)]
    assert reach[0, 0, extra].all() and reach[1, 0, extra].tolist() == [True, False, False, False]
    assert not reach[:, 1:, extra].any()
    small = Rules.default()
    assert np.array_equal(reach[:, :, :17], reachable(small, usable[:, :17]))  # the dead-end chain adds no route


def test_check_bands_success_up_to_2_mishap_from_5():
    """D-CHECK: lowest die 1-2 succeeds, 3-4 does nothing, 5-6 is a mishap (not < 2, not > 5)."""
    success, mishap = check_outcome(Rules.default(), np.arange(1, 7))
    assert success.tolist() == [True, True, False, False, False, False]
    assert mishap.tolist() == [False, False, False, False, True, True]
