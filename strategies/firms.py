"""How the strategies play private firms: the ``balanced_*`` answers of the base strategy and the
``random_*`` answers of the random one, one function per decision point of ``sim/phases/firms.py``,
``firm_trade.py`` and ``firm_accounts.py`` (the methods of ``Strategy`` / ``RandomStrategy`` delegate here). Every
function decides each game from its own rows only.

Balanced play: open a firm while enough rounds are left for its value to grow, with a Company share when the Company
looks doomed (a share then loses VP) or with a spare factory; put Company shares into firms when the Company is in
danger; build ships while the firm keeps its next costs and a bid; trade from the port whose reachable orders are worth
most; pay out what the firm does not need next round (everything in the last round) as dividends; consent to what
brings money (investments, ships at its yards) and to mergers that do not cost it VP; invest in an emergency to keep
its own relatives out of debtors' prison.
"""

from __future__ import annotations

import numpy as np

from sim import firms as fr
from sim import layout as L
from sim.agents import Observation
from sim.reduce import any_last, sum_last

from . import values as V

# -------------------------------------------------------------------------------------------------- helpers


def rounds_left(obs: Observation) -> np.ndarray:
    """int[G']: rounds still to play, this one included."""
    return obs.rules.game.rounds - obs.round.astype(np.int64) + 1


def doomed(obs: Observation) -> np.ndarray:
    """bool[G']: the Company looks like crashing (its shares would lose VP)."""
    return (obs.stability <= 3) | (obs.loans >= 6)


def yards_free(obs: Observation) -> np.ndarray:
    """int[G', N]: free family shipyards."""
    return V.per_game(obs, "yards_free", lambda o: np.maximum(o.shipyards - V.yard_use(o), 0))


def my_slot(obs: Observation) -> np.ndarray:
    """int[G']: the firm the deciding family manages, -1 none."""
    mine = obs.firm_manager == obs.seat[:, None]
    return np.where(any_last(mine), mine.argmax(axis=1), -1)


def firm_vp(obs: Observation, value: np.ndarray) -> np.ndarray:
    """float: VP per share at ``value`` (0 for no firm)."""
    return fr.vp_per_share(obs.rules)[np.clip(value, 0, obs.rules.firms.max_value)]


def best_port(obs: Observation, limit: np.ndarray, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(port int[G'], worth float[G']): the presidency whose port reaches the open orders worth most, counting the
    ``limit`` best (half value where filled already this round). ``rows``: only the observation's rows ``rows``
    (int[m]; ``limit`` is then int[m] too, and so are the answers)."""
    d = obs.rules.d
    if rows is None:
        order_open, filled = obs.order_open, obs.order_filled | obs.firm_filled
    else:
        order_open = rows_of(obs, "order_open", rows)
        filled = rows_of(obs, "order_filled", rows) | rows_of(obs, "firm_filled", rows)
    value = np.where(filled, d.order_half, d.order_value).astype(float)
    worth = V.port_worth(obs.rules, order_open, value, limit)  # [G', P]
    return worth.argmax(axis=1), worth.max(axis=1)


def can_get_ships(obs: Observation, rows: np.ndarray | None = None) -> np.ndarray:
    """bool[G']: a firm of the deciding family is sure to get a ship now: a free shipyard of its own (its consent is
    certain; other families' yards and, jc2e, Company yard ships bought back depend on others' consent and on the
    other firms wanting them too). ``yards_free`` at the deciding seat, from its own entries only. ``rows``: only
    the observation's rows ``rows`` (int[m]; the answer is then bool[m])."""
    if rows is None:
        used = sum_last(obs.own("yard_ships")) + obs.firm_ships[np.arange(obs.n), :, obs.seat].sum(axis=1)
        return obs.own("shipyards") - used >= 1
    firm_ships = rows_of(obs, "firm_ships", rows)[np.arange(rows.size), :, obs.seat[rows]]
    used = sum_last(obs.own("yard_ships")[rows]) + firm_ships.sum(axis=1)
    return obs.own("shipyards")[rows] - used >= 1


def rows_of(obs: Observation, name: str, rows: np.ndarray) -> np.ndarray:
    """The observation's field ``name`` at its rows ``rows`` only (gathered there alone when it was not read)."""
    at = getattr(obs, "_field_at", None)  # as ``values``' one row per game
    return at(name, rows) if at is not None else getattr(obs, name).take(rows, axis=0)


def shipyard_wanted(obs: Observation) -> np.ndarray:
    """float[G']: how much the balanced family wants a shipyard in phase 2: 5.5 (above shares, below a
    first factory) once Deregulation passed when it has no free yard of its own and either manages a firm without
    ships, or manages none, owns no shipyard, holds two assets to open one with and >= 4 rounds are left."""
    if not obs.deregulated.any():
        return np.zeros(obs.n)
    rows = np.arange(obs.n)
    mine = my_slot(obs)
    ships = V.per_game(obs, "firm_fleet", lambda o: sum_last(o.firm_ships))[rows, np.maximum(mine, 0)]
    own_free = yards_free(obs)[rows, obs.seat]
    assets = np.minimum(obs.own("factories"), obs.own("supply")) + obs.own("shares")
    starting = (mine < 0) & (obs.own("shipyards") == 0) & (assets >= 2) & (rounds_left(obs) >= 4)
    want = obs.deregulated & (own_free == 0) & (((mine >= 0) & (ships == 0)) | starting)
    return np.where(want, 5.5, 0.0)


def trade_dice(worth: np.ndarray, spare: np.ndarray, per_value: int, most: int = 6) -> np.ndarray:
    """int[G']: the bid (dice) that maximises the expected revenue less the bid, P(a success among k dice) times
    ``worth`` (a value step counted as ``per_value`` £ more), at most ``spare`` £ and ``most`` dice; 0 when no bid
    pays."""
    worth = worth + np.where(worth >= per_value, per_value, 0)
    p = 1.0 - (2.0 / 3.0) ** np.arange(1, most + 1)  # P(a success among k dice)
    best = np.ones(worth.shape, dtype=np.int64)  # the fewest dice among the best gains
    top = np.where(spare >= 1, p[0] * worth - 1, -np.inf)
    for k in range(2, most + 1):  # dice by dice: the short axis's argmax is slow
        gain = p[k - 1] * worth - k
        better = (gain > top) & (spare >= k)
        best[better] = k
        top = np.where(better, gain, top)
    return np.where(top > 0, best, 0)


# ------------------------------------------------------------------------------------------- balanced play
def balanced_open_firm(obs: Observation, legal) -> np.ndarray:
    """Open while >= 3 rounds are left, the firm could get a ship at once (``can_get_ships``), some port reaches
    orders worth a value step (``revenue_per_value``) for a small fleet, and the family has a second asset to invest
    right after (a firm of 5 £ cannot keep a ship and trade); a Company share first when the Company looks doomed or
    the family holds two, else a factory."""
    extra = obs.rules.firms.jc2e_extra_orders if fr.jc2e(obs.rules) else 0
    shares = obs.own("shares")
    assets = np.minimum(obs.own("factories"), obs.own("supply")) + shares
    want = (rounds_left(obs) >= 3) & (assets >= 2)
    rows = np.flatnonzero(want)  # the yards, then the ports, are looked at where nothing else stops the opening
    if rows.size:
        rows = rows[can_get_ships(obs, rows)]
        want[:] = False
    if rows.size:
        _, worth = best_port(obs, np.full(rows.size, 2 + extra), rows)
        want[rows] = worth >= obs.rules.firms.revenue_per_value
    share_first = doomed(obs) | (shares >= 2)
    asset = np.where(
        legal.share & (share_first | ~legal.factory), fr.SHARE, np.where(legal.factory, fr.FACTORY, fr.NO_ASSET)
    )
    return np.where(want, asset, fr.NO_ASSET).astype(np.int64)


def balanced_invest_in_firms(obs: Observation, legal) -> tuple[np.ndarray, np.ndarray]:
    """Company shares into the firm of the highest value (its own on a tie, value >= 3) while the Company is in
    danger; one more asset into its own firm while the firm cannot pay two ships, its costs and a bid (a share when
    the Company looks doomed or it has no factory, else a factory)."""
    f_n = legal.firms.shape[1]
    mine = my_slot(obs)
    sad = doomed(obs)
    facs = np.zeros((obs.n, f_n), dtype=np.int64)
    shares = np.zeros((obs.n, f_n), dtype=np.int64)
    n_sh = np.zeros(obs.n, dtype=np.int64)  # the shares offered to the best firm
    rows = np.flatnonzero(sad & (rounds_left(obs) >= 2))  # worked out at the rows concerned only
    if rows.size:
        k, firms, value = np.arange(rows.size), legal.firms[rows], rows_of(obs, "firm_value", rows)
        score = np.where(firms, value.astype(float) + 0.5 * (np.arange(f_n)[None, :] == mine[rows, None]), -1)
        best = score.argmax(axis=1)
        good = firms[k, best] & (value[k, best] >= 3)
        n_sh[rows] = np.where(good, np.minimum(legal.shares[rows], legal.room[rows, best]), 0)
        shares[rows, best] = n_sh[rows]
    rows = np.flatnonzero((mine >= 0) & (rounds_left(obs) >= 3))
    if rows.size:
        k, mc = np.arange(rows.size), mine[rows]
        fi = obs.rules.firms
        need = 2 * fi.ship_cost + 2 * fi.ship_upkeep + 2 + 2
        poor = legal.firms[rows, mc] & (rows_of(obs, "firm_cash", rows)[k, mc] < need)
        poor &= rows_of(obs, "firm_ships", rows)[k, mc].sum(axis=1) < 2
        factories = legal.factories[rows]
        use_share = (legal.shares[rows] - n_sh[rows] >= 1) & (sad[rows] | (factories < 1))
        facs[rows, mc] += np.where(poor & ~use_share & (factories >= 1), 1, 0)
        shares[rows, mc] += np.where(poor & use_share, 1, 0)
    return facs, shares


def balanced_consent_investment(obs: Observation, legal) -> np.ndarray:
    """Every investment brings 5 £: yes."""
    return (legal.factories + legal.shares) > 0


def balanced_take_over_firm(obs: Observation, legal) -> np.ndarray:
    """A firm where the family holds more than half the shares, managed by another family."""
    mine = obs.firm_shares[np.arange(obs.n), :, obs.seat]  # [G', F]
    total = sum_last(obs.firm_shares)
    ok = legal.firms & (2 * mine > total)
    return np.where(ok.any(axis=1), ok.argmax(axis=1), -1)


def balanced_approve_manager(obs: Observation, legal) -> np.ndarray:
    """Only its own family as the new manager."""
    return legal.candidate == obs.seat[:, None]


def balanced_propose_merger(obs: Observation, legal) -> np.ndarray:
    return np.full(obs.n, -1, dtype=np.int64)


def balanced_consent_merger(obs: Observation, legal) -> np.ndarray:
    """Yes when its firm-share VP does not fall (at the survivor's value, after the shares it loses), or to save its
    shares in a failing firm from debtors' prison."""
    rows = np.arange(obs.n)
    a, b = np.maximum(legal.firms[:, 0], 0), np.maximum(legal.firms[:, 1], 0)
    sa = obs.firm_shares[rows, a, obs.seat]
    sb = obs.firm_shares[rows, b, obs.seat]
    before = sa * firm_vp(obs, obs.firm_value[rows, a]) + sb * firm_vp(obs, obs.firm_value[rows, b])
    keep = np.maximum(legal.survivor, 0)
    after = (sa + sb - legal.lose[rows, obs.seat]) * firm_vp(obs, obs.firm_value[rows, keep])
    failing_mine = legal.rescue & (sb > 0)
    return (after >= before) | failing_mine


def balanced_firm_ships(obs: Observation, legal) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Up to three ships, each only while the firm keeps its next costs and a 2 £ bid: at free yards, own first;
    jc2e, with no yard free, Company yard ships bought back (damaged ones first: cheaper)."""
    rows = np.arange(obs.n)
    f = np.maximum(legal.firm, 0)
    ships = obs.firm_ships[rows, f].sum(axis=1).astype(np.int64)
    shares = obs.firm_shares[rows, f].sum(axis=1).astype(np.int64)
    value = obs.firm_value[rows, f].astype(np.int64)
    cash = legal.cash.astype(np.int64)
    free = legal.free_yards.astype(np.int64)
    n_free = free.sum(axis=1)
    sound = legal.sound.astype(np.int64).reshape(obs.n, -1)
    damaged = legal.damaged.astype(np.int64).reshape(obs.n, -1)
    price = np.stack([np.broadcast_to(legal.cost, (obs.n,)), legal.price_damaged, legal.price_sound], axis=1)
    stock = np.stack(
        [n_free, np.where(legal.buyback, damaged.sum(axis=1), 0), np.where(legal.buyback, sound.sum(axis=1), 0)], axis=1
    )
    take = np.zeros((obs.n, 3), dtype=np.int64)
    spent = np.zeros(obs.n, dtype=np.int64)
    for _ in range(3):
        got = take.sum(axis=1)
        left = stock - take
        kind = np.where(left[:, 0] > 0, 0, np.where(left[:, 1] > 0, 1, 2))
        p = price[rows, kind].astype(np.int64)
        reserve = (ships + got + 1) * obs.rules.firms.ship_upkeep + np.maximum(shares, value) + 2
        ok = (ships + got + 1 <= 3) & (left[rows, kind] > 0) & (cash - spent - p >= reserve)
        take[rows[ok], kind[ok]] += 1
        spent += np.where(ok, p, 0)
    order = np.argsort(
        np.where(np.arange(obs.players)[None, :] == obs.seat[:, None], -1, np.arange(obs.players)), axis=1
    )

    def spread(count, avail):  # ``count`` over the cells of ``avail`` (own family's first for yards)
        out = np.zeros_like(avail)  # none where ``count`` is 0 (the cells hold >= 0)
        at = np.flatnonzero(count > 0)
        if at.size:
            avail = avail.take(at, axis=0)
            before = np.cumsum(avail, axis=1) - avail
            out[at] = np.clip(count.take(at)[:, None] - before, 0, avail)
        return out

    free_ordered = np.take_along_axis(free, order, axis=1)
    build = np.zeros_like(free)
    np.put_along_axis(build, order, spread(take[:, 0], free_ordered), axis=1)
    bought_d = spread(take[:, 1], damaged).reshape(legal.damaged.shape)
    bought_s = spread(take[:, 2], sound).reshape(legal.sound.shape)
    return build, bought_s, bought_d


def balanced_consent_yard(obs: Observation, legal) -> np.ndarray:
    """A ship at its yard earns it 1 £ a round: yes."""
    return (legal.build + legal.buy) > 0


def balanced_firm_strategy(obs: Observation, legal) -> tuple[np.ndarray, np.ndarray]:
    """Trade from the port whose reachable orders are worth most for its fleet, with the bid that pays best
    (``trade_dice``) out of what the treasury holds beyond this round's costs; else stay home (jc2e: Hobnob)."""
    extra = obs.rules.firms.jc2e_extra_orders if fr.jc2e(obs.rules) else 0
    port, worth = best_port(obs, legal.ships.astype(np.int64) + extra)
    spare = legal.cash.astype(np.int64) - legal.due
    bid = trade_dice(worth, spare, obs.rules.firms.revenue_per_value)
    go = (legal.ships >= 1) & (bid >= 1)
    return np.where(go, port, -1).astype(np.int64), np.where(go, bid, 0).astype(np.int64)


def balanced_order_traders(obs: Observation, legal) -> np.ndarray:
    """Ties: the firm its family manages first, then the Company, then the others in slot order."""
    k = legal.traders.shape[1]
    f_n = k - 1
    mine = np.zeros((obs.n, k), dtype=bool)
    mine[:, :f_n] = obs.firm_manager == obs.seat[:, None]
    key = np.where(mine, 0, 2) * 100 + np.arange(k)[None, :]
    key[:, f_n] = 100 + f_n
    return np.argsort(np.argsort(key, axis=1), axis=1)


def balanced_firm_trade(obs: Observation, legal) -> np.ndarray:
    """The most valuable reachable orders (half value where filled already), at most ``legal.limit``."""
    d = obs.rules.d
    value = np.where(legal.half, d.order_half, d.order_value).astype(float)
    value = np.where(legal.orders & (value > 0), value, -1.0)
    rank = np.argsort(np.argsort(-value, axis=1, kind="stable"), axis=1)
    return legal.orders & (value > 0) & (rank < legal.limit[:, None])


def balanced_emergency_invest(obs: Observation, legal) -> np.ndarray:
    """Invest when its own relatives sit on the failing firm's track (they would go to debtors' prison), a share
    first when the Company looks doomed."""
    rows = np.arange(obs.n)
    stake = obs.firm_shares[rows, np.maximum(legal.firm, 0), obs.seat] > 0
    asset = np.where(legal.share & (doomed(obs) | ~legal.factory), fr.SHARE, np.where(legal.factory, fr.FACTORY, 0))
    return np.where(stake, asset, fr.NO_ASSET).astype(np.int64)


def balanced_waive_dividends(obs: Observation, legal) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(legal.shares.shape, dtype=np.int64), np.zeros(legal.manager.shape, dtype=bool)


def balanced_consent_waivers(obs: Observation, legal) -> np.ndarray:
    return legal.waived > 0


def balanced_firm_dividends(obs: Observation, legal) -> np.ndarray:
    """Pay out what the firm does not need for two more rounds of costs and a 2 £ bid (everything in the last
    round: nothing is left to pay for)."""
    rows = np.arange(obs.n)
    f = np.maximum(legal.firm, 0)
    due = (
        2 * obs.rules.firms.ship_upkeep * obs.firm_ships[rows, f].sum(axis=1)
        + 2 * np.maximum(obs.firm_shares[rows, f].sum(axis=1), obs.firm_value[rows, f])
        + 2
    ).astype(np.int64)
    other = obs.firm_cash[rows, f] if fr.jc2e(obs.rules) else 0  # jc2e: London's money counts for the costs
    keep = np.maximum(due - other, 0)
    last = rounds_left(obs) <= 1
    k = np.where(last, legal.max_payouts, (legal.available - keep) // np.maximum(legal.per_payout, 1))
    return np.clip(k, 0, legal.max_payouts).astype(np.int64)


def balanced_rescue_firm(obs: Observation, legal) -> np.ndarray:
    """Rescue a failing firm where its own relatives hold shares."""
    rows = np.arange(obs.n)
    return obs.firm_shares[rows, np.maximum(legal.firm, 0), obs.seat] > 0


def balanced_dissolve_firm(obs: Observation, legal) -> np.ndarray:
    """Never: its shareholders would go to debtors' prison."""
    return np.zeros(obs.n, dtype=bool)


def balanced_consent_dissolution(obs: Observation, legal) -> np.ndarray:
    return np.zeros(obs.n, dtype=bool)


# --------------------------------------------------------------------------------------------- random play
def _coin(obs: Observation, k: int | None = None) -> np.ndarray:
    return obs.rng.uniform(1)[:, 0] < 0.5 if k is None else obs.rng.uniform(k) < 0.5


def _asset(obs: Observation, legal) -> np.ndarray:
    options = np.stack([np.ones(obs.n, dtype=bool), legal.factory, legal.share], axis=1)
    return obs.rng.choice(options).astype(np.int64)


def random_open_firm(obs: Observation, legal) -> np.ndarray:
    return _asset(obs, legal)


def random_invest_in_firms(obs: Observation, legal) -> tuple[np.ndarray, np.ndarray]:
    f_n = legal.firms.shape[1]
    rows = np.arange(obs.n)
    firm = obs.rng.choice(legal.firms)
    go = _coin(obs) & (firm >= 0)
    fc = np.maximum(firm, 0)
    n_f = obs.rng.integers(np.zeros(obs.n, dtype=np.int64), legal.factories.astype(np.int64))
    n_s = obs.rng.integers(np.zeros(obs.n, dtype=np.int64), legal.shares.astype(np.int64))
    facs = np.zeros((obs.n, f_n), dtype=np.int64)
    shares = np.zeros((obs.n, f_n), dtype=np.int64)
    facs[rows, fc] = np.where(go, n_f, 0)
    shares[rows, fc] = np.where(go, n_s, 0)
    return facs, shares


def random_consent_investment(obs: Observation, legal) -> np.ndarray:
    return _coin(obs, obs.players)


def random_take_over_firm(obs: Observation, legal) -> np.ndarray:
    options = np.concatenate([np.ones((obs.n, 1), dtype=bool), legal.firms], axis=1)
    return obs.rng.choice(options) - 1


def random_approve_manager(obs: Observation, legal) -> np.ndarray:
    return _coin(obs, legal.candidate.shape[1])


def random_propose_merger(obs: Observation, legal) -> np.ndarray:
    options = np.concatenate([np.ones((obs.n, 1), dtype=bool), legal.firms], axis=1)
    return np.where(_coin(obs), obs.rng.choice(options) - 1, -1)


def random_consent_merger(obs: Observation, legal) -> np.ndarray:
    return obs.rng.uniform(1)[:, 0] < 0.7


def random_firm_ships(obs: Observation, legal) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A random number of ships at free yards (owners in a random order), then, jc2e, at most one random cell of
    sound and one of damaged Company yard ships bought back with what is left (a fixed number of draws)."""
    cash = legal.cash.astype(np.int64)
    cost = np.maximum(legal.cost.astype(np.int64), 1)
    free = legal.free_yards.astype(np.int64)
    most = np.minimum(free.sum(axis=1), cash // cost)
    n_build = obs.rng.integers(np.zeros(obs.n, dtype=np.int64), most)
    order = np.argsort(obs.rng.uniform(obs.players), axis=1)
    free_ordered = np.take_along_axis(free, order, axis=1)
    before = np.cumsum(free_ordered, axis=1) - free_ordered
    build = np.zeros_like(free)
    np.put_along_axis(build, order, np.clip(n_build[:, None] - before, 0, free_ordered), axis=1)
    left = cash - legal.cost.astype(np.int64) * build.sum(axis=1)
    rows = np.arange(obs.n)
    out = []
    for stock, price in ((legal.sound, legal.price_sound), (legal.damaged, legal.price_damaged)):
        stock = stock.astype(np.int64)
        flat = stock.reshape(obs.n, -1)
        cell = obs.rng.choice(flat > 0)
        cc = np.maximum(cell, 0)
        price = np.maximum(price.astype(np.int64), 1)
        most = np.where(legal.buyback & (cell >= 0), np.minimum(flat[rows, cc], left // price), 0)
        k = obs.rng.integers(np.zeros(obs.n, dtype=np.int64), most)
        take = np.zeros_like(flat)
        take[rows, cc] = k
        left = left - k * np.where(legal.buyback, price, 0)
        out.append(take.reshape(stock.shape))
    return build, out[0], out[1]


def random_consent_yard(obs: Observation, legal) -> np.ndarray:
    return _coin(obs, legal.build.shape[1])


def random_firm_strategy(obs: Observation, legal) -> tuple[np.ndarray, np.ndarray]:
    can = (legal.ships >= 1) & (legal.cash >= 1)
    port = obs.rng.integers(np.full(obs.n, -1), np.full(obs.n, L.PRESIDENCIES - 1))
    port = np.where(can, port, -1)
    bid = obs.rng.integers(np.ones(obs.n, dtype=np.int64), np.maximum(legal.cash.astype(np.int64), 1))
    return port.astype(np.int64), np.where(port >= 0, bid, 0).astype(np.int64)


def random_order_traders(obs: Observation, legal) -> np.ndarray:
    return np.argsort(obs.rng.uniform(legal.traders.shape[1]), axis=1)


def random_firm_trade(obs: Observation, legal) -> np.ndarray:
    u = obs.rng.uniform(legal.orders.shape[1])
    orders = legal.orders & (u < 0.6)
    rank = np.argsort(np.argsort(np.where(orders, u, 2.0), axis=1), axis=1)
    return orders & (rank < legal.limit[:, None])


def random_emergency_invest(obs: Observation, legal) -> np.ndarray:
    return _asset(obs, legal)


def random_waive_dividends(obs: Observation, legal) -> tuple[np.ndarray, np.ndarray]:
    f_n = legal.shares.shape[1]
    u = obs.rng.uniform(2 * f_n)
    shares = legal.shares.astype(np.int64)
    waive = np.where(u[:, :f_n] < 0.3, np.floor(u[:, f_n:] * (shares + 1)).astype(np.int64), 0)
    return np.minimum(waive, shares), legal.manager & (u[:, f_n:] < 0.2)


def random_consent_waivers(obs: Observation, legal) -> np.ndarray:
    return _coin(obs, obs.players)


def random_firm_dividends(obs: Observation, legal) -> np.ndarray:
    return obs.rng.integers(np.zeros(obs.n, dtype=np.int64), legal.max_payouts.astype(np.int64))


def random_rescue_firm(obs: Observation, legal) -> np.ndarray:
    return _coin(obs)


def random_dissolve_firm(obs: Observation, legal) -> np.ndarray:
    return obs.rng.uniform(1)[:, 0] < 0.1


def random_consent_dissolution(obs: Observation, legal) -> np.ndarray:
    return _coin(obs)
