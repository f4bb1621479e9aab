"""Phase 2, family actions (R-ACTIONS, L76-L84).

Each family takes one action: luxury, shipyard, factory, a clerk to a presidency, an officer to the academy, a
place on the share exchange, or nothing. The same action as last round may be taken twice. With enough
committee-head offices vacant every family may also send one extra clerk. Actions are simultaneous; places on the
exchange go in the order the Chairman ranks the buyers (the family that last held the chair when it is vacant).
Closed position cards of the "family_actions" moment are played first (D-POSITIONS): their money comes at
once, and each ``extra_action`` gives its family one more action (once, not twice) after the regular ones.
"""

from __future__ import annotations

import numpy as np

from .. import laws, ledger
from .. import layout as L
from ..agents import Agents
from ..board import committee_vacancies, exchange_free
from ..dice import Chance
from ..positions import play_cards
from ..reduce import any_last, sum_last
from ..rules import Rules
from ..state import State

_PAID = ("luxury", "shipyard", "factory")  # the actions paid for in £, by their ledger flow
_PAID_THROUGH = np.full(L.N_ACTIONS, -1)
_PAID_THROUGH[[L.A_LUXURY, L.A_SHIPYARD, L.A_FACTORY]] = 0, 1, 2


def action_costs(rules: Rules) -> np.ndarray:
    """£ per action (the exchange's price depends on the free position and is handled apart)."""
    a = rules.actions
    costs = np.zeros(L.N_ACTIONS, dtype=np.int64)
    costs[[L.A_LUXURY, L.A_SHIPYARD, L.A_FACTORY]] = a.luxury_cost, a.shipyard_cost, a.factory_cost
    return costs


def legal_options(
    state: State, rules: Rules, games: np.ndarray | slice, extra: bool = False, discount: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """bool[G', N, A] the actions each seat may take once in games ``games`` (an index array, or a slice of the
    batch), and bool[G', N, A] those it may take twice this round (none for an ``extra`` action): a luxury, shipyard
    or factory it can pay for (a factory at the Industry Subsidy's price when it bought none last round), a clerk or
    an officer from a relative at home, a place on the exchange at the cheapest free position; twice: the same as
    last round, paid twice (two relatives; the two cheapest free places). ``discount``: the Industry Subsidy's
    ``laws.factory_discount`` at ``games`` when the caller has it already."""
    money, supply = state.money[games], state.supply[games]
    if discount is None:
        discount = laws.factory_discount(state, rules)[games]
    costs = action_costs(rules)
    n_free, cheapest, two = (x[:, None] for x in exchange_free(rules, state.exchange[games]))
    once = np.empty(money.shape + (L.N_ACTIONS,), dtype=bool)
    once[:, :, L.A_PASS] = True
    once[:, :, L.A_LUXURY] = money >= costs[L.A_LUXURY]
    once[:, :, L.A_SHIPYARD] = money >= costs[L.A_SHIPYARD]
    once[:, :, L.A_FACTORY] = money >= costs[L.A_FACTORY] + discount
    once[:, :, L.A_CLERK] = once[:, :, L.A_OFFICER] = supply >= 1
    once[:, :, L.A_SHARES] = (supply >= 1) & (n_free >= 1) & (money >= cheapest)
    twice = np.zeros_like(once)
    if rules.actions.repeat_twice and not extra:
        for act in (L.A_LUXURY, L.A_SHIPYARD, L.A_FACTORY):
            twice[:, :, act] = money >= 2 * costs[act]
        twice[:, :, L.A_CLERK] = twice[:, :, L.A_OFFICER] = supply >= 2
        twice[:, :, L.A_SHARES] = (supply >= 2) & (n_free >= 2) & (money >= two)
        twice &= np.arange(L.N_ACTIONS) == state.last_action[games][:, :, None]
        twice[:, :, L.A_PASS] = False
    return once, twice


def legal_actions(state: State, rules: Rules, seat: int, extra: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """bool[G, A] actions seat may take once, and bool[G, A] those it may take twice this round (none for an
    ``extra`` action): ``legal_options`` of one seat."""
    once, twice = legal_options(state, rules, slice(None), extra)
    return once[:, seat], twice[:, seat]


def family_actions(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    extra = play_cards(state, rules, agents, "family_actions").extra_action  # D-POSITIONS
    take_actions(state, rules, agents, ~state.done[:, None] & np.ones(state.money.shape, dtype=bool))
    while (extra > 0).any():  # one more action per extra_action played, after the regular ones
        take_actions(state, rules, agents, extra > 0, extra_action=True)
        extra = extra - (extra > 0)
    extra_clerks(state, rules, agents)
    for act, granted in laws.extra_actions(state, rules):  # laws in force granting one more action of a kind (2e)
        acting = np.broadcast_to((granted & ~state.done)[:, None], state.money.shape)
        take_actions(state, rules, agents, acting, extra_action=True, only=act)


def take_actions(
    state: State,
    rules: Rules,
    agents: Agents,
    acting: np.ndarray,
    extra_action: bool = False,
    only: int | None = None,
) -> None:
    """Every family where ``acting[G, N]`` takes one action (twice if it repeats last round's, except an
    ``extra_action``, which is taken once and is not recorded as the round's action). ``only``: the one action
    (besides passing) on offer, e.g. a law's extra action."""
    g, n = state.n_games, state.n_players
    acting = acting & ~state.done[:, None]
    idx = np.flatnonzero(acting.any(axis=1))  # the games where some family acts (an extra action: a few)
    if idx.size == 0:
        return
    # the work is done on those games' rows only; when they are most of the batch, on every row (no copies)
    games = slice(None) if 2 * idx.size > g else idx
    acts = acting[games]  # [G', N]
    if only is None or only == L.A_FACTORY:  # the Industry Subsidy (nothing changes it while the families choose)
        discount = laws.factory_discount(state, rules)[games]
    else:  # no factory on offer: no discount to read
        discount = np.zeros(acts.shape, dtype=np.int64)
    once, twice = legal_options(state, rules, games, extra_action, discount)
    if only is not None:
        once &= (np.arange(L.N_ACTIONS) == only) | (np.arange(L.N_ACTIONS) == L.A_PASS)
    asked = acts
    if extra_action:  # an extra action is offered only to a family that can take something
        asked = asked & any_last(once[:, :, L.A_PASS + 1 :])
    if isinstance(games, np.ndarray):  # the question is put in full-batch arrays
        once, twice, asked = _scatter(g, idx, once), _scatter(g, idx, twice), _scatter(g, idx, asked)
    action = np.zeros((g, n), dtype=np.int64)
    repeat = np.zeros((g, n), dtype=bool)
    where = np.zeros((g, n, 2), dtype=np.int64)
    kind = {"extra": np.full(g, extra_action), "offered": np.full(g, -1 if only is None else only)}

    def check(answer, legal, obs):
        act, two, pres = answer
        rows = np.arange(obs.n)
        ac = np.clip(act, 0, L.N_ACTIONS - 1)
        bad = (act < 0) | (act >= L.N_ACTIONS) | ~legal.once[rows, ac]
        bad |= two & ~legal.twice[rows, ac]
        clerk = act == L.A_CLERK
        bad |= clerk & ((pres[:, 0] < 0) | (pres[:, 0] >= L.PRESIDENCIES))
        bad |= clerk & two & ((pres[:, 1] < 0) | (pres[:, 1] >= L.PRESIDENCIES))
        return bad, "action not affordable or not allowed (twice only repeats last round's action)"

    # the families choose at once (nothing changes before every choice is in): every seat in one ask
    agents.ask_seats(
        "family_action", state, asked, kind, {"once": once, "twice": twice}, (action, repeat, where), check
    )
    if extra_action:  # an extra action is not recorded: only the games where a family takes something change
        took = np.flatnonzero(any_last(action[games] != L.A_PASS))
        if took.size == 0:
            return
        idx = idx[took] if isinstance(games, np.ndarray) else took
        games, acts, discount = idx, acts[took], discount[took]
    # every family pays and takes its action at once, over the acting games' rows [G', N]
    act = np.where(acts, action[games], L.A_PASS)
    times = np.where(acts, 1 + repeat[games], 0)
    pay = -action_costs(rules)[act] * times
    pay -= np.where(act == L.A_FACTORY, discount, 0)
    through = _PAID_THROUGH[act]  # the flow each family pays through: luxury, shipyard, factory (-1: none)
    ledger.families_through(state, _PAID, through, pay, None if isinstance(games, slice) else idx)
    lux = np.where(act == L.A_LUXURY, times, 0)
    state.luxuries[games] += lux
    state.wealth[games] += lux * rules.actions.luxury_wealth
    state.shipyards[games] += np.where(act == L.A_SHIPYARD, times, 0)
    state.factories[games] += np.where(act == L.A_FACTORY, times, 0)
    clerk = act == L.A_CLERK
    sent = np.where(clerk | (act == L.A_OFFICER), times, 0)  # relatives leaving home: clerks and cadets
    if clerk.any():
        rows = np.arange(g)[games]
        for j in range(2):  # the first clerk, then the second (perhaps to the same presidency)
            r, s = np.nonzero(clerk & (times > j))
            r = rows[r]
            state.clerks[r, s, where[r, s, j]] += 1
    state.academy[games] += np.where(act == L.A_OFFICER, times, 0)
    state.supply[games] -= sent
    shares = act == L.A_SHARES
    if shares.any():  # (buy_shares asks nothing and changes nothing without a buyer)
        buy_shares(state, rules, agents, _scatter(g, idx, np.where(shares, times, 0), games))
    if not extra_action:
        state.last_action[games] = np.where(acts, act, state.last_action[games])


def buy_shares(state: State, rules: Rules, agents: Agents, wanted: np.ndarray) -> None:
    """Families send relatives to the exchange (cheapest free position first) in the Chairman's order."""
    g, n = state.n_games, state.n_players
    buyers = wanted > 0
    count = sum_last(buyers)
    idx = np.flatnonzero(count)  # the games where some family buys
    if idx.size == 0:
        return
    contested = idx[count[idx] > 1]  # the games where the Chairman ranks the buyers
    if contested.size:
        chair = state.office[contested, L.CHAIRMAN]
        ranker = np.full(g, -1, dtype=chair.dtype)
        ranker[contested] = np.where(chair >= 0, chair, state.last_chair[contested])
        order = np.tile(np.arange(n), (g, 1))

        def check(perm, legal, obs):
            return (np.sort(perm, axis=1) != np.arange(obs.players)).any(axis=1), "not an ordering of the seats"

        agents.ask("rank_share_buyers", state, ranker, {"buyers": buyers}, (order,), check)
        order = order[idx]
    else:
        order = np.tile(np.arange(n), (idx.size, 1))
    prices = rules.d.exchange_prices
    wanted = wanted[idx]
    rows = np.arange(idx.size)
    for rank in range(n):
        seat = order[:, rank]
        units = wanted[rows, seat]
        for unit in range(2):
            m = np.flatnonzero(units > unit)  # the games where this buyer still wants a position
            if m.size == 0:
                break
            r, s = idx[m], seat[m]
            free = state.exchange.take(r, axis=0) < 0
            pos = free.argmax(axis=1)
            price = prices[pos]
            ok = free.any(axis=1) & (state.money[r, s] >= price) & (state.supply[r, s] >= 1)
            if ok.any():
                hit, s, pos, price = r[ok], s[ok], pos[ok], price[ok]
                state.exchange[hit, pos] = s
                state.supply[hit, s] -= 1
                ledger.family_at(state, "exchange", hit, s, -price)


def _scatter(g: int, rows: np.ndarray, values, games: np.ndarray | slice | None = None) -> np.ndarray:
    """A full-batch array holding ``values`` at ``rows`` (zero/False elsewhere); ``values`` itself when ``games`` is
    the whole batch (a slice)."""
    if isinstance(games, slice):
        return values
    values = np.asarray(values)
    out = np.zeros((g,) + values.shape[1:] if values.ndim else g, dtype=values.dtype)
    out[rows] = values
    return out


def extra_clerks(state: State, rules: Rules, agents: Agents) -> None:
    """With >= actions.extra_clerk_vacancies committee heads vacant, each family may send one more clerk."""
    g, n = state.n_games, state.n_players
    eligible = ~state.done & (committee_vacancies(state, rules) >= rules.actions.extra_clerk_vacancies)
    if not eligible.any():
        return
    rows = np.flatnonzero(eligible)  # the work is done on these games' rows only
    for seat in range(n):
        asked = rows[state.supply[rows, seat] >= 1]
        if asked.size == 0:
            continue
        decider = np.full(g, -1, dtype=np.int64)
        decider[asked] = seat
        target = np.full(g, -1, dtype=np.int64)

        def check(p, legal, obs):
            return (p < -1) | (p >= L.PRESIDENCIES), "presidency must be 0..2, or -1 for none"

        agents.ask("extra_clerk", state, decider, {}, (target,), check)
        target = target[asked]
        sent = target >= 0
        state.clerks[asked[sent], seat, target[sent]] += 1
        state.supply[asked[sent], seat] -= 1
