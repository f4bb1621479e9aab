"""What each family action is worth: the valuation behind ``balanced``'s phase 2 (R-ACTIONS, L76-L84),
which the archetypes reweigh.

``action_values`` returns, per game and action, the worth of taking it once less what it costs, in £ (pass is 0):

- luxury: its VP (the strategy's ``vp_worth`` £ each, more as the expected end nears, when money has little else
  to buy), its influence by the game's ladder, a little for conspicuous wealth, and more when money piles up
  faster than luxuries could spend it before the end;
- factory: its income for the rounds left, its VP on a crash times the chance of one, its votes;
- shares: ``values.share_worth`` less the cheapest free position on the exchange;
- shipyard: 1 £ a round while a ship sails from it, likely when the Company lacks ships or firms want yards, and a
  vote;
- clerk: a candidate for the presidency where the family has none (a President earns 1 £ per order, clerks 1 £ per
  order filled, L175-L182), less as clerks pile up;
- officer: little for a family that does not fight (an officer costs the Company 1 £ a round);
- every relative sent away leaves the supply: the last ones are kept;
- and the strategy's own preference for each action (its ``prefer_*`` parameters, 0 £ for ``balanced``).

With the kernels on (``sim.kernels``) ``action_values``, ``choose`` and ``clerk_targets`` run compiled, row by row,
beside this numpy reference (the crash risk's ``np.exp`` stays numpy's).
"""

from __future__ import annotations

import numpy as np

from sim import kernels
from sim import layout as L
from sim.agents import Observation
from sim.board import exchange_free
from sim.reduce import any_last, sum_last

from . import firms as firm_play
from . import values as V

PREFER = {
    L.A_LUXURY: "prefer_luxury",
    L.A_FACTORY: "prefer_factory",
    L.A_SHARES: "prefer_shares",
    L.A_SHIPYARD: "prefer_shipyard",
    L.A_CLERK: "prefer_clerk",
    L.A_OFFICER: "prefer_officer",
}  # the strategy parameter that adds £ to each action's worth
INFLUENCE_WORTH = 0.6  # £ per influence point: the ranking pays 8 / 4 VP at the end of round 7 (R-END)


def horizon(obs: Observation) -> np.ndarray:
    """float[G']: the rounds the family expects to play still, this one included: the rounds left, fewer when the
    Company looks like crashing (``values.crash_risk``; a crash ends the game at once)."""

    def make(o):
        left = V.rounds_left(o).astype(float)
        return np.maximum(1.0, left * (1.0 - 0.6 * V.crash_risk(o)))

    return V.per_game(obs, "horizon", make)


def vp_worth(strategy, obs: Observation) -> np.ndarray:
    """float[G']: £ per VP now: the strategy's ``vp_worth``, rising as the expected end nears (``horizon``: money
    has little else to buy then)."""
    h = horizon(obs)
    base = strategy.vp_worth
    return base + np.clip(2.5 - h, 0.0, 1.5)


def action_values(strategy, obs: Observation, legal) -> np.ndarray:
    """float[G', ACTIONS]: the worth of each family action taken once, less its cost (pass 0); illegal actions
    are -inf. An action legal in none of the rows (e.g. all but the one a law's extra action offers) is not
    valued: it is -inf whatever its worth."""
    if kernels.use(obs.n):
        return _compiled_values(strategy, obs, legal.once)
    a = obs.rules.actions
    valued = legal.once.any(axis=0).tolist()  # [ACTIONS] the actions legal in some row
    value = V.on_games(obs, lambda o: _game_values(strategy, o, valued))
    if valued[L.A_LUXURY]:  # money piling up faster than two luxuries a round could turn it into VP before the end
        hoard = obs.own("money") / horizon(obs) - 2 * a.luxury_cost
        value[:, L.A_LUXURY] += np.clip(hoard, 0.0, 8.0) / 2.0
    if valued[L.A_SHIPYARD]:
        value[:, L.A_SHIPYARD] = np.maximum(value[:, L.A_SHIPYARD], firm_play.shipyard_wanted(obs) - 4.0)
    if valued[L.A_CLERK]:  # clerk: a candidate where the family has none
        clerks = obs.own("clerks")  # [G', P]
        lacking = (clerks == 0) & (obs.office[:, list(L.PRESIDENT)] != obs.seat[:, None])
        value[:, L.A_CLERK] = np.where(any_last(lacking), 0.8 + 0.2 * horizon(obs), 0.6 - 0.2 * sum_last(clerks))
    if valued[L.A_CLERK] or valued[L.A_OFFICER] or valued[L.A_SHARES]:  # relatives are few: keep the last ones
        short = np.where(obs.own("supply") <= 2, 2.0, 0.0)
        for action in (L.A_CLERK, L.A_OFFICER, L.A_SHARES):
            value[:, action] -= short
    value += _preferences(strategy)  # the strategy's own preferences (``prefer_*`` parameters)
    return np.where(legal.once, value, -np.inf)


def _game_values(strategy, obs, valued: list[bool]) -> np.ndarray:
    """float[G', ACTIONS]: what ``action_values`` finds the same for every seat of a game: luxury (but the hoard),
    factory, shares and shipyard (but a firm's want of one), the officer; the clerk and pass 0. Only the actions
    ``valued`` (the others 0)."""
    r = obs.rules
    value = np.zeros((obs.n, L.N_ACTIONS))
    a = r.actions
    pr = r.property
    if valued[L.A_LUXURY] or valued[L.A_FACTORY] or valued[L.A_SHARES]:
        ladder = obs.ladder.astype(float)  # [G', 4] rules.ASSETS order: luxuries, shares, shipyards, factories
    if valued[L.A_LUXURY] or valued[L.A_FACTORY]:
        vpw = vp_worth(strategy, obs)
    if valued[L.A_LUXURY]:
        value[:, L.A_LUXURY] = (
            a.luxury_vp * vpw + INFLUENCE_WORTH * ladder[:, 0] + 0.3 * a.luxury_wealth - a.luxury_cost
        )
    if valued[L.A_FACTORY]:
        votes = 0.15 * pr.factory_votes
        value[:, L.A_FACTORY] = (
            pr.factory_income * horizon(obs)
            + pr.factory_crash_vp * vpw * V.crash_risk(obs)
            + votes
            + INFLUENCE_WORTH * ladder[:, 3]
        ) - a.factory_cost
    if valued[L.A_SHARES]:  # the cheapest free position on the exchange
        price = np.minimum(exchange_free(r, obs.exchange)[1], 99)
        value[:, L.A_SHARES] = V.share_worth(obs) + INFLUENCE_WORTH * (ladder[:, 1] - 1) - price
    if valued[L.A_SHIPYARD]:  # used when the Company's seas lack ships beyond the free yards (or a firm wants one)
        left = horizon(obs)
        gap = sum_last(obs.order_open) - sum_last(V.sea_ships(obs)[:, : L.PRESIDENCIES])  # a cheap estimate
        yards_free = sum_last(firm_play.yards_free(obs))
        used = np.clip((gap - yards_free) / 2.0, 0.0, 1.0) * (left >= 2)
        value[:, L.A_SHIPYARD] = (
            pr.yard_ship_income * (left - 1) * used * 0.8 + 0.15 * pr.shipyard_votes - a.shipyard_cost
        )
    value[:, L.A_OFFICER] = -0.5  # a family that does not fight gains little
    return value


def _preferences(strategy) -> np.ndarray:
    """float[ACTIONS]: the strategy's own preference for each action (its ``prefer_*`` parameters; pass 0)."""
    prefer = np.zeros(L.N_ACTIONS)
    for action, key in PREFER.items():
        prefer[action] = getattr(strategy, key)
    return prefer


def _compiled_values(strategy, obs: Observation, once: np.ndarray) -> np.ndarray:
    """``action_values`` by ``_values_kernel``: the game's fields read at one row per game (``values.game_rows``),
    the crash risk and the horizon (``np.exp``) by numpy."""
    game, back = V.game_rows(obs)
    r = obs.rules
    a, pr = r.actions, r.property
    out = np.empty((obs.n, L.N_ACTIONS))
    _values_kernel(
        back,
        horizon(game),
        V.crash_risk(game),
        V.rounds_left(game),
        game.ladder,
        game.exchange,
        r.d.exchange_prices,
        game.share_vp,
        game.order_open,
        game.ships,
        game.yard_ships,
        game.shipyards,
        game.firm_ships,
        game.firm_manager,
        game.deregulated,
        game.office,
        obs.seat,
        obs.own("money"),
        obs.own("clerks"),
        obs.own("supply"),
        obs.own("factories"),
        obs.own("shares"),
        np.asarray(once, dtype=np.bool_),
        np.array(L.PRESIDENT, dtype=np.int64),
        np.array(
            [
                strategy.vp_worth,
                a.luxury_vp,
                0.3 * a.luxury_wealth,
                a.luxury_cost,
                pr.factory_income,
                pr.factory_crash_vp,
                0.15 * pr.factory_votes,
                a.factory_cost,
                pr.yard_ship_income,
                0.15 * pr.shipyard_votes,
                a.shipyard_cost,
                V.VP_WORTH,
            ],
            dtype=float,
        ),
        _preferences(strategy),
        out,
    )
    return out


@kernels.kernel
def _values_kernel(
    back,
    left,
    risk,
    rounds,
    ladder,
    exchange,
    prices,
    share_vp,
    order_open,
    ships,
    yard_ships,
    shipyards,
    firm_ships,
    firm_manager,
    deregulated,
    office,
    seat,
    money,
    clerks,
    supply,
    factories,
    shares,
    once,
    president,
    c,
    prefer,
    out,
):
    """``action_values`` row by row, its float operations in the numpy reference's order (game values at the row's
    game ``back[i]``; ``left`` the horizon; ``c``: vp_worth, luxury VP, 0.3 * luxury wealth, luxury cost, factory
    income, factory crash VP, 0.15 * factory votes, factory cost, yard ship income, 0.15 * shipyard votes, shipyard
    cost, values.VP_WORTH)."""
    players, n_orders = shipyards.shape[1], order_open.shape[1]
    free = np.zeros(players, dtype=np.int64)  # the free yards of each family of the game
    last, h, lux_base, fac, sha, yard_base = -1, 0.0, 0.0, 0.0, 0.0, 0.0
    for i in range(back.shape[0]):
        g, s = back[i], seat[i]
        if g != last:  # the game's own values, once for its rows (which follow one another)
            h, p = left[g], risk[g]
            last = g
            price = 1 << 30  # the cheapest free position on the exchange (board.exchange_free), at most 99
            for e in range(prices.shape[0]):
                if exchange[g, e] < 0 and prices[e] < price:
                    price = prices[e]
            price = min(price, 99)
            # the seas' open orders less their ships and the free family yards (a yard holds one ship)
            gap = 0
            for o in range(n_orders):
                gap += order_open[g, o]
            for loc in range(president.shape[0]):
                gap -= ships[g, loc, 0] + ships[g, loc, 1]
                for n in range(players):
                    gap -= yard_ships[g, n, loc]
            for n in range(players):
                free[n] = 0
                if shipyards[g, n] > 0:  # (no yard: none free)
                    use = 0
                    for loc in range(yard_ships.shape[2]):
                        use += yard_ships[g, n, loc]
                    for f in range(firm_ships.shape[1]):
                        use += firm_ships[g, f, n]
                    free[n] = max(shipyards[g, n] - use, 0)
                gap -= free[n]
            lacking_ships = gap / 2.0
            x = 2.5 - h  # vp_worth: np.clip(2.5 - h, 0.0, 1.5)
            x = x if x > 0.0 else 0.0
            x = x if x < 1.5 else 1.5
            vpw = c[0] + x
            # luxury (but the hoard)
            lux_base = c[1] * vpw + INFLUENCE_WORTH * float(ladder[g, 0]) + c[2] - c[3]
            # factory
            fac = (c[4] * h + c[5] * vpw * p + c[6] + INFLUENCE_WORTH * float(ladder[g, 3])) - c[7]
            # shares (values.share_worth)
            rl = float(rounds[g])
            vp = share_vp[g] * (1.0 - 2.0 * p)
            m = rl - 1
            dividends = 0.6 * (m if m > 0.0 else 0.0) * (1.0 - p)
            refinance = 1.5 if rl >= 2 else 0.0
            sw = c[11] * vp + 1.0 + dividends + refinance
            sha = sw + INFLUENCE_WORTH * (float(ladder[g, 1]) - 1) - price
            # shipyard: used when the seas lack ships beyond the free yards (but a firm's want)
            x = lacking_ships if lacking_ships > 0.0 else 0.0
            x = x if x < 1.0 else 1.0
            used = x * (1.0 if h >= 2 else 0.0)
            yard_base = c[8] * (h - 1) * used * 0.8 + c[9] - c[10]
        # the hoard: money piling up faster than two luxuries a round could spend it
        hoard = money[i] / h - 2 * c[3]
        hoard = hoard if hoard > 0.0 else 0.0
        hoard = hoard if hoard < 8.0 else 8.0
        lux = lux_base + hoard / 2.0
        own_free = free[s]
        # a firm's want of a shipyard (firms.shipyard_wanted)
        mine = -1
        for f in range(firm_manager.shape[1]):
            if firm_manager[g, f] == s:
                mine = f
                break
        fleet = 0
        if mine >= 0:  # (read only for a manager)
            for n in range(players):
                fleet += firm_ships[g, mine, n]
        assets = min(factories[i], supply[i]) + shares[i]
        starting = mine < 0 and shipyards[g, s] == 0 and assets >= 2 and rounds[g] >= 4
        want = deregulated[g] and own_free == 0 and ((mine >= 0 and fleet == 0) or starting)
        wanted = (5.5 if want else 0.0) - 4.0
        yard = yard_base if yard_base >= wanted else wanted
        # clerk: a candidate where the family has none
        lacking = False
        sent = 0
        for q in range(president.shape[0]):
            lacking |= clerks[i, q] == 0 and office[g, president[q]] != s
            sent += clerks[i, q]
        clerk = 0.8 + 0.2 * h if lacking else 0.6 - 0.2 * sent
        short = 2.0 if supply[i] <= 2 else 0.0
        out[i, L.A_PASS] = 0.0 + prefer[L.A_PASS]
        out[i, L.A_LUXURY] = lux + prefer[L.A_LUXURY]
        out[i, L.A_SHIPYARD] = yard + prefer[L.A_SHIPYARD]
        out[i, L.A_FACTORY] = fac + prefer[L.A_FACTORY]
        out[i, L.A_CLERK] = (clerk - short) + prefer[L.A_CLERK]
        out[i, L.A_OFFICER] = (-0.5 - short) + prefer[L.A_OFFICER]
        out[i, L.A_SHARES] = (sha - short) + prefer[L.A_SHARES]
        for k in range(out.shape[1]):
            if not once[i, k]:
                out[i, k] = -np.inf


def clerk_targets(obs: Observation) -> np.ndarray:
    """int[G', 2]: presidencies for a clerk and a second one: where the family has none and the presidency trades
    most (its port open, the open orders of its home region), then the next."""
    if kernels.use(obs.n):
        game, back = V.game_rows(obs)
        d = obs.rules.d
        out = np.empty((obs.n, 2), dtype=np.int64)
        _clerk_targets_kernel(back, game.order_open, d.port, d.order_region, d.home, obs.own("clerks"), out)
        return out
    clerks = obs.own("clerks").astype(float)
    score = -5.0 * clerks + V.on_games(obs, _trades)
    order = np.argsort(-score, axis=1, kind="stable")
    return order[:, :2].astype(np.int64)


def _trades(obs) -> np.ndarray:
    """float[G', P]: how much each presidency trades: twice its port's order if open, and its home region's open
    orders."""
    d = obs.rules.d
    home_orders = np.stack([obs.order_open[:, d.order_region == h].sum(axis=1) for h in d.home], axis=1)  # [G', P]
    return 2.0 * obs.order_open[:, d.port] + home_orders


@kernels.kernel
def _clerk_targets_kernel(back, order_open, port, order_region, home, clerks, out):
    """``clerk_targets`` row by row (``_trades`` at the row's game ``back[i]``): the two presidencies of the highest
    scores, ties to the first (a stable sort)."""
    n_pres, n_orders = port.shape[0], order_open.shape[1]
    trades, score = np.empty(n_pres), np.empty(n_pres)
    at_home = np.zeros((n_pres, n_orders), dtype=np.int64)  # the orders of each presidency's home region, first
    n_home = np.zeros(n_pres, dtype=np.int64)
    for p in range(n_pres):
        for o in range(n_orders):
            if order_region[o] == home[p]:
                at_home[p, n_home[p]] = o
                n_home[p] += 1
    last = -1
    for i in range(back.shape[0]):
        g = back[i]
        if g != last:  # the game's trades, once for its rows (which follow one another)
            last = g
            for p in range(n_pres):
                home_orders = 0
                for j in range(n_home[p]):
                    home_orders += order_open[g, at_home[p, j]]
                trades[p] = 2.0 * order_open[g, port[p]] + home_orders
        for p in range(n_pres):
            score[p] = -5.0 * float(clerks[i, p]) + trades[p]
        for j in range(2):
            best = -1
            for p in range(n_pres):
                if (j == 0 or p != out[i, 0]) and (best < 0 or score[p] > score[best]):
                    best = p
            out[i, j] = best


def choose(obs: Observation, legal, value: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(action, twice, presidencies) from ``value`` [G', ACTIONS]: the best legal action (pass when nothing is
    worth its cost), twice when allowed and the second is worth it too (a share's second place costs more)."""
    once = legal.once
    if kernels.use(obs.n) and isinstance(value, np.ndarray) and value.dtype == np.float64 and value.shape == once.shape:
        action, twice = np.empty(obs.n, dtype=np.int64), np.empty(obs.n, dtype=bool)
        if _choose_kernel(value, once, legal.twice, action, twice):  # some row sends a clerk
            return action, twice, clerk_targets(obs)
        return action, twice, np.zeros((obs.n, 2), dtype=np.int64)
    value = np.where(once, value, -np.inf)
    value[:, L.A_PASS] = np.where(once[:, L.A_PASS], np.maximum(value[:, L.A_PASS], 0.0), -np.inf)
    action = value.argmax(axis=1)
    rows = np.arange(obs.n)
    best = value[rows, action]
    second = best - np.where(action == L.A_SHARES, 1.0, 0.0) - np.where(action == L.A_FACTORY, 1.0, 0.0)
    twice = legal.twice[rows, action] & (second > 0.5)
    clerk = action == L.A_CLERK  # the presidencies are read only for a clerk
    where = clerk_targets(obs) if clerk.any() else np.zeros((obs.n, 2), dtype=np.int64)
    return action.astype(np.int64), twice, where


@kernels.kernel
def _choose_kernel(value, once, twice_ok, action, twice):
    """``choose`` row by row (numpy's argmax: the first highest worth, or the first NaN); whether some row sends a
    clerk."""
    clerk = False
    for i in range(value.shape[0]):
        arg, best = 0, 0.0
        for k in range(value.shape[1]):
            v = value[i, k] if once[i, k] else -np.inf
            if k == L.A_PASS and once[i, k]:
                v = v if (v >= 0.0 or np.isnan(v)) else 0.0
            if k == 0 or v > best or (np.isnan(v) and not np.isnan(best)):
                arg, best = k, v
        second = best - (1.0 if arg == L.A_SHARES else 0.0) - (1.0 if arg == L.A_FACTORY else 0.0)
        action[i] = arg
        twice[i] = twice_ok[i, arg] and second > 0.5
        clerk |= arg == L.A_CLERK
    return clerk
