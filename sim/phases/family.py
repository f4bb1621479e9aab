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

from .. import kernels, laws, ledger, trace
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
    granted = laws.extra_actions(state, rules)  # laws in force granting one more action of a kind (2e)
    if granted:
        kinds = np.array([act for act, _ in granted], dtype=np.int64)
        pending = np.stack([games for _, games in granted], axis=1) & ~state.done[:, None]  # [G, K] in action order
        while pending.any():  # each game's next kind granted, one kind at a time in each game: all games at once
            has = any_last(pending)
            next_kind = pending.argmax(axis=1)
            only = np.where(has, kinds[next_kind], -1)
            acting = np.broadcast_to(has[:, None], state.money.shape)
            take_actions(state, rules, agents, acting, extra_action=True, only=only)
            pending[np.flatnonzero(has), next_kind[has]] = False


def take_actions(
    state: State,
    rules: Rules,
    agents: Agents,
    acting: np.ndarray,
    extra_action: bool = False,
    only: int | np.ndarray | None = None,
) -> None:
    """Every family where ``acting[G, N]`` takes one action (twice if it repeats last round's, except an
    ``extra_action``, which is taken once and is not recorded as the round's action). ``only``: the one action
    (besides passing) on offer, e.g. a law's extra action; int[G]: each game's own (read where a family acts)."""
    g, n = state.n_games, state.n_players
    acting = acting & ~state.done[:, None]
    idx = np.flatnonzero(any_last(acting))  # the games where some family acts (an extra action: a few)
    if idx.size == 0:
        return
    # the work is done on those games' rows only; when they are most of the batch, on every row (no copies)
    games = slice(None) if 2 * idx.size > g else idx
    acts = acting[games]  # [G', N]
    offered = None if only is None else np.full(g, only, dtype=np.int64) if np.ndim(only) == 0 else np.asarray(only)
    if offered is None or (offered[games] == L.A_FACTORY).any():  # the Industry Subsidy (unchanged while they choose)
        discount = laws.factory_discount(state, rules)[games]
    else:  # no factory on offer: no discount to read
        discount = np.zeros(acts.shape, dtype=np.int64)
    once, twice, asked = question(state, rules, acting, idx, games, extra_action, offered, discount)
    action = np.zeros((g, n), dtype=np.int64)
    repeat = np.zeros((g, n), dtype=bool)
    where = np.zeros((g, n, 2), dtype=np.int64)
    kind = {"extra": np.full(g, extra_action), "offered": np.full(g, -1) if offered is None else offered}

    def check(answer, legal, obs):
        act, two, pres = answer
        at = np.arange(0, obs.n * L.N_ACTIONS, L.N_ACTIONS) + np.clip(act, 0, L.N_ACTIONS - 1)  # [row, act] flat
        bad = (act < 0) | (act >= L.N_ACTIONS) | ~legal.once.reshape(-1).take(at)
        bad |= two & ~legal.twice.reshape(-1).take(at)
        clerk = act == L.A_CLERK
        if clerk.any():
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
    luxuries = state.luxuries[games].copy()
    act, buy = settle(state, rules, idx, games, acts, action, repeat, where, discount)
    state.luxuries_bought[games] += state.luxuries[games] - luxuries  # a record for the frames
    if buy.any():  # (buy_shares asks nothing and changes nothing without a buyer)
        buy_shares(state, rules, agents, buy, None if isinstance(games, slice) else idx)
    if not extra_action:
        state.last_action[games] = np.where(acts, act, state.last_action[games])


def settle(
    state: State,
    rules: Rules,
    idx: np.ndarray,
    games: np.ndarray | slice,
    acts: np.ndarray,
    action: np.ndarray,
    repeat: np.ndarray,
    where: np.ndarray,
    discount: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Every family where ``acts[G', N]`` (at ``games``: ``idx``, or the whole batch) pays for and takes its
    ``action[G, N]`` (twice where ``repeat``; clerks to the presidencies ``where[G, N, 2]``; a factory ``discount``
    [G', N] more), all at once. Returns (int[G', N] the action taken, pass where a family does not act; int[G', N] the
    places on the exchange each family wants: ``buy_shares``)."""
    g = state.n_games
    if kernels.use(idx.size) and trace.recorder is None:  # (a trace records each payment: the numpy code below)
        rows = np.arange(g) if isinstance(games, slice) else idx
        act, pay, through, buy = (np.empty(acts.shape, dtype=np.int64) for _ in range(4))
        _settle_kernel(
            rows, acts, action, repeat, where, discount, action_costs(rules), _PAID_THROUGH,
            rules.actions.luxury_wealth, state.luxuries, state.wealth, state.shipyards, state.factories, state.clerks,
            state.academy, state.supply, act, pay, through, buy,
        )  # fmt: skip
        ledger.families_through(state, _PAID, through, pay, None if isinstance(games, slice) else idx)
        return act, buy
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
    return act, np.where(act == L.A_SHARES, times, 0)


def question(
    state: State,
    rules: Rules,
    acting: np.ndarray,
    idx: np.ndarray,
    games: np.ndarray | slice,
    extra: bool,
    offered: np.ndarray | None,
    discount: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``take_actions``' question in full-batch arrays: (bool[G, N, A] the actions each seat may take once, bool[G, N,
    A] twice, bool[G, N] the families asked), filled at ``games`` (``idx``, the games where some family acts, or the
    whole batch), False elsewhere: ``legal_options`` (``discount`` at ``games``), only the kind ``offered[g]`` (-1: any)
    besides passing, and for an ``extra`` action only the acting families that can take something."""
    g = state.n_games
    if kernels.use(idx.size):
        rows = np.arange(g) if isinstance(games, slice) else idx
        shape = state.money.shape + (L.N_ACTIONS,)
        once, twice, asked = np.zeros(shape, dtype=bool), np.zeros(shape, dtype=bool), np.zeros(acting.shape, bool)
        _question_kernel(
            rows, acting, state.money, state.supply, state.exchange, state.last_action, discount,
            rules.d.exchange_prices, action_costs(rules), offered is not None,
            np.full(g, -1) if offered is None else offered, rules.actions.repeat_twice and not extra, extra, once,
            twice, asked,
        )  # fmt: skip
        return once, twice, asked
    once, twice = legal_options(state, rules, games, extra, discount)
    if offered is not None:
        kinds = np.arange(L.N_ACTIONS)
        once &= ((kinds == offered[games][:, None]) | (kinds == L.A_PASS))[:, None, :]
    asked = acting[games]
    if extra:  # an extra action is offered only to a family that can take something
        asked = asked & any_last(once[:, :, L.A_PASS + 1 :])
    if isinstance(games, np.ndarray):  # the question is put in full-batch arrays
        once, twice, asked = _scatter(g, idx, once), _scatter(g, idx, twice), _scatter(g, idx, asked)
    return once, twice, asked


@kernels.kernel
def _question_kernel(
    rows, acting, money, supply, exchange, last_action, discount, prices, costs, only, offered, repeat, extra, once,
    twice, asked,
):  # fmt: skip
    """``question`` game by game (game ``rows[m]``, ``discount[m]``), into ``once``, ``twice`` and ``asked`` (False):
    ``legal_options`` (``board.exchange_free``'s cheapest free places), the kind ``offered`` when ``only``, the
    families asked."""
    for m in range(rows.shape[0]):
        g = rows[m]
        n_free, cheapest, second = 0, 1 << 30, 1 << 30  # the two cheapest free places
        for e in range(exchange.shape[1]):
            if exchange[g, e] < 0:
                n_free += 1
                if prices[e] < cheapest:
                    cheapest, second = prices[e], cheapest
                elif prices[e] < second:
                    second = prices[e]
        two = cheapest + second if n_free >= 2 else 1 << 30
        for s in range(money.shape[1]):
            cash, home = money[g, s], supply[g, s]
            once[g, s, L.A_PASS] = True
            once[g, s, L.A_LUXURY] = cash >= costs[L.A_LUXURY]
            once[g, s, L.A_SHIPYARD] = cash >= costs[L.A_SHIPYARD]
            once[g, s, L.A_FACTORY] = cash >= costs[L.A_FACTORY] + discount[m, s]
            once[g, s, L.A_CLERK] = once[g, s, L.A_OFFICER] = home >= 1
            once[g, s, L.A_SHARES] = home >= 1 and n_free >= 1 and cash >= cheapest
            if only:
                for k in range(L.A_PASS + 1, L.N_ACTIONS):
                    once[g, s, k] &= k == offered[g]
            if repeat:  # the same as last round, paid twice
                last = last_action[g, s]
                if last == L.A_LUXURY or last == L.A_SHIPYARD or last == L.A_FACTORY:
                    twice[g, s, last] = cash >= 2 * costs[last]
                elif last == L.A_CLERK or last == L.A_OFFICER:
                    twice[g, s, last] = home >= 2
                elif last == L.A_SHARES:
                    twice[g, s, last] = home >= 2 and n_free >= 2 and cash >= two
            can = not extra
            for k in range(L.A_PASS + 1, L.N_ACTIONS):
                can |= once[g, s, k]
            asked[g, s] = acting[g, s] and can


@kernels.kernel
def _settle_kernel(
    rows, acts, action, repeat, where, discount, costs, paid_through, luxury_wealth, luxuries, wealth, shipyards,
    factories, clerks, academy, supply, act, pay, through, buy,
):  # fmt: skip
    """``take_actions``' settling game by game (game ``rows[m]``; ``acts``, ``discount`` and the outputs at ``m``): the
    action each family takes (``act``, pass where it does not act), what it pays (``pay``, through the flow
    ``through``), the places on the exchange it wants (``buy``); the property it gains and the relatives it sends."""
    for m in range(rows.shape[0]):
        g = rows[m]
        for s in range(acts.shape[1]):
            a, times = L.A_PASS, 0
            if acts[m, s]:
                a, times = action[g, s], 2 if repeat[g, s] else 1
            act[m, s] = a
            pay[m, s] = -costs[a] * times - (discount[m, s] if a == L.A_FACTORY else 0)
            through[m, s] = paid_through[a]
            buy[m, s] = times if a == L.A_SHARES else 0
            if a == L.A_LUXURY:
                luxuries[g, s] += times
                wealth[g, s] += times * luxury_wealth
            elif a == L.A_SHIPYARD:
                shipyards[g, s] += times
            elif a == L.A_FACTORY:
                factories[g, s] += times
            elif a == L.A_CLERK:
                for j in range(times):
                    clerks[g, s, where[g, s, j]] += 1
                supply[g, s] -= times
            elif a == L.A_OFFICER:
                academy[g, s] += times
                supply[g, s] -= times


def buy_shares(state: State, rules: Rules, agents: Agents, wanted: np.ndarray, rows: np.ndarray | None = None) -> None:
    """Families send relatives to the exchange (cheapest free position first) in the Chairman's order: ``wanted[G',
    N]`` places in games ``rows`` (distinct; default every game)."""
    g, n = state.n_games, state.n_players
    buyers = wanted > 0
    count = sum_last(buyers)
    at = np.flatnonzero(count)  # the games where some family buys (at ``rows``)
    if at.size == 0:
        return
    idx = at if rows is None else rows[at]
    contested = idx[count[at] > 1]  # the games where the Chairman ranks the buyers
    if contested.size:
        buyers = buyers if rows is None else _scatter(g, rows, buyers)
        chair = state.office[contested, L.CHAIRMAN]
        ranker = np.full(g, -1, dtype=chair.dtype)
        ranker[contested] = np.where(chair >= 0, chair, state.last_chair[contested])
        order = np.tile(np.arange(n), (g, 1))

        def check(perm, legal, obs):
            return any_last(np.sort(perm, axis=1) != np.arange(obs.players)), "not an ordering of the seats"

        agents.ask("rank_share_buyers", state, ranker, {"buyers": buyers}, (order,), check)
        order = order[idx]
    else:
        order = np.tile(np.arange(n), (idx.size, 1))
    purchase(state, rules, idx, order, wanted[at])


def purchase(state: State, rules: Rules, idx: np.ndarray, order: np.ndarray, wanted: np.ndarray) -> None:
    """In games ``idx`` (distinct), each family in the order ``order[m]`` takes up to ``wanted[m, seat]`` places on
    the exchange, each the cheapest free one, while it has the money and a relative at home (``buy_shares``)."""
    n = state.n_players
    prices = rules.d.exchange_prices
    if kernels.use(idx.size) and trace.recorder is None:  # (a trace records each purchase: the loop below)
        spent = np.zeros(wanted.shape, dtype=np.int64)  # [G', N] £ each family pays for its places
        _buy_kernel(idx, order, wanted, state.exchange, state.supply, state.money, prices, spent)
        ledger.families_through(state, ("exchange",), np.zeros_like(spent), -spent, idx)
        return
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


@kernels.kernel
def _buy_kernel(idx, order, wanted, exchange, supply, money, prices, spent):
    """``purchase`` game by game (game ``idx[m]``): each buyer in the Chairman's ``order[m]`` takes up to
    ``wanted[m, seat]`` places, each the cheapest free one, while it has the money (less ``spent[m, seat]``, what
    its places cost it so far, added here) and a relative at home; ``exchange`` and ``supply`` are updated."""
    n, n_pos = order.shape[1], exchange.shape[1]
    for m in range(idx.shape[0]):
        g = idx[m]
        for rank in range(n):
            s = order[m, rank]
            for _ in range(min(wanted[m, s], 2)):
                pos = -1
                for e in range(n_pos):
                    if exchange[g, e] < 0:
                        pos = e
                        break
                if pos >= 0 and money[g, s] - spent[m, s] >= prices[pos] and supply[g, s] >= 1:
                    exchange[g, pos] = s
                    supply[g, s] -= 1
                    spent[m, s] += prices[pos]


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
