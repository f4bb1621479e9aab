"""How the strategies fight: a commander's deployment with mercenaries (R-DEPLOY, L166-L173), what a
battle is worth to his family, and where Military Affairs sends officers. Shared by ``balanced`` (it fights only
at good odds) and ``go_military`` (it fights whenever the odds pay, hiring mercenaries to make them).
"""

from __future__ import annotations

import numpy as np

from sim import kernels
from sim import layout as L
from sim.agents import Observation

from . import calibration
from . import values as V

TROPHY_WORTH = 1.5  # £ per trophy: one influence point each (R-END), and what blame situation 1 costs on a crash


def battle_worth(
    obs: Observation,
    legal,
    target: np.ndarray,
    own_slots: np.ndarray,
    slots: np.ndarray,
    rows: np.ndarray | None = None,
) -> np.ndarray:
    """float[G']: what a success at ``target`` is worth to the commander's family: its share of the loot (4 £ per
    strength level, the first-loot bonus where never looted, paid round-robin over ``slots`` of which it holds
    ``own_slots``, L171) and the trophies (the region's strength, L170). ``rows``: the games (rows of ``obs``) of
    ``target`` and the slots, when not every game in order."""
    r = obs.rules
    d = r.d
    rows = np.arange(obs.n) if rows is None else rows
    t = np.maximum(target, 0)
    strength = legal.strength[rows, t].astype(float)
    sovereign = obs.owner[rows, t] < 0
    first = np.where(obs.looted[rows, t], 0, d.first_loot[t])
    loot = np.where(sovereign, r.military.loot_per_strength * strength + first, 0.0)
    share = loot * own_slots / np.maximum(slots, 1)
    return share + TROPHY_WORTH * np.where(sovereign, strength, 0.0)


def __getattr__(name: str):
    """``REGION_LOSS_RATE``: Company regions lost per region and round (attacks and revolts) in the arm being played:
    fitted to its rules when calibrated (``strategies.calibration``, quantity ``region_loss_rate``), else 0.3,
    measured in simulated games of the archetypes under the default rules."""
    if name == "REGION_LOSS_RATE":
        return calibration.value("region_loss_rate")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def holding_cost(obs: Observation) -> np.ndarray:
    """float[G']: what holding one more Company region costs the deciding family in £: each round left it may be lost
    (about ``REGION_LOSS_RATE`` a round: attacks and revolts, L211-L213), a stability point each time, which raises
    the crash risk (``values.crash_risk``) and so costs the family its stake in a survival (``company_stake``) and
    a share of the military blame on a crash (L250: trophies and officers, halved)."""
    rows = np.arange(obs.n)
    left = V.rounds_left(obs).astype(float)
    lost = np.minimum(calibration.value("region_loss_rate") * left, 1.5)
    now = V.crash_risk(obs)
    worse = V.crash_risk(_Shifted(obs, -1))
    blame = (obs.trophies[rows, obs.seat] + obs.officers[rows, obs.seat].sum(axis=1)) / 2.0 / 6.0
    stake = V.company_stake(obs)[rows, obs.seat] + blame
    return lost * np.maximum(worse - now, 0.0) * np.maximum(stake, 0.0) * V.VP_WORTH


class _Shifted:
    """The fields ``values.crash_risk`` reads, with stability moved by ``by``."""

    def __init__(self, obs: Observation, by: int):
        self.stability = np.maximum(obs.stability.astype(np.int64) + by, 0)
        self.loans, self.emergency_total, self.round, self.rules = obs.loans, obs.emergency_total, obs.round, obs.rules


def _each(value, rows: np.ndarray):
    """A strategy's number, or its per-game values taken at ``rows``."""
    return value[rows] if isinstance(value, np.ndarray) and value.ndim else value


def _firsts(games: np.ndarray) -> np.ndarray:
    """bool[k]: the first of each run of equal ``games`` (sorted)."""
    first = np.ones(games.size, dtype=bool)
    first[1:] = games[1:] != games[:-1]
    return first


def plan_deployment(
    strategy,
    obs: Observation,
    legal,
    min_dice: int,
    want_dice: int,
    mercenaries: bool,
    risk: float,
    holding: np.ndarray | None = None,
    conquer: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(target, officers int[G', N], regiments int[G'], mercenaries bool[G', M]) for the deciding commander: every
    legal target is scored by the family's expected gain, P(success) * ``battle_worth`` - P(mishap) * (his trophies
    lost and the commander, and a conquest's ``holding_cost``, ``risk`` scaling the losses down) - the officers'
    deaths (1 in 6 each); the whole army
    goes (its own officers and regiments; mercenaries bands, cheapest strength first, while the dice stay below
    ``want_dice`` and the presidency's treasury pays, when ``mercenaries``); at least ``min_dice`` dice, else no
    battle. ``holding`` float[G'] replaces ``holding_cost`` (a strategy's own price of a new Company region);
    ``conquer`` bool[G'] False forbids new regions (a sovereign target) in that game (Company regions with unrest
    stay legal targets, but a battle there earns no loot or trophies, so the gain rarely pays)."""
    r = obs.rules
    d = r.d
    rows = np.arange(obs.n)
    army = legal.army.astype(np.int64)
    own = legal.officers[rows, obs.seat].astype(np.int64)
    force = legal.officers.sum(axis=1).astype(np.int64) + legal.regiments.astype(np.int64)
    n_m = legal.mercenaries.shape[1]
    cost = d.merc_cost[army].astype(np.int64)  # [G', M]
    power = d.merc_strength[army].astype(np.int64)
    ok = legal.mercenaries & (power > 0)
    # mercenary bands by £ per strength, cheapest first
    order = np.argsort(np.where(ok, cost / np.maximum(power, 1), np.inf), axis=1, kind="stable")
    holding = holding_cost(obs) if holding is None else holding
    sovereign_all = obs.owner < 0
    allowed = sovereign_all if conquer is None else sovereign_all & np.asarray(conquer, dtype=bool)[:, None]
    useful = legal.targets & (allowed | ((obs.owner >= 0) & (obs.unrest > 0)))
    # every target the commander may lead his force to, scored at once: (game, target) pairs, game by game
    g, t = np.nonzero(useful & (own >= 1)[:, None])
    if kernels.use(obs.n):
        return _plan_by_kernels(obs, legal, g, t, own, force, cost, power, ok, order, min_dice, want_dice,
                                mercenaries, risk, holding)  # fmt: skip
    k = force[g] - legal.strength[g, t].astype(np.int64)
    hired = np.zeros((g.size, n_m), dtype=bool)
    money = legal.treasury.astype(np.int64)[g]
    if mercenaries:
        pairs = np.arange(g.size)
        for j in range(n_m):
            m = order[g, j]
            c, p = cost[g, m], power[g, m]
            take = ok[g, m] & (k < _each(want_dice, g)) & (c <= money)
            hired[pairs[take], m[take]] = True
            money -= np.where(take, c, 0)
            k += np.where(take, p, 0)
    p_s, p_m = V.check_odds(r, k)
    troops = legal.regiments[g] + hired.sum(axis=1)
    slots = force[g] - legal.regiments[g] + 1 + troops  # surviving officers, the named family, regiments and bands
    gain = p_s * battle_worth(obs, legal, t, own[g] + 1, slots, g)
    trophies = obs.trophies[g, obs.seat[g]]
    loss = p_m * (trophies * r.military.trophy_loss * TROPHY_WORTH + 3.0) + own[g] / 6.0 * 2.0
    conquest = p_s * (obs.owner[g, t] < 0)  # a new Company region to hold
    gain = gain - (1.0 - _each(risk, g)) * (loss + conquest * _each(holding, g))
    gain = gain - 0.3 * np.where(mercenaries, (hired * cost[g]).sum(1), 0)
    # each game's best target: the first (in map order) of the highest gain, at least ``min_dice`` dice and a gain
    best = np.full(obs.n, -1, dtype=np.int64)
    best_mercs = np.zeros((obs.n, n_m), dtype=bool)
    fights = (k >= _each(min_dice, g)) & (gain > 0)
    if fights.any():
        score = np.where(fights, gain, -np.inf)
        first = _firsts(g)
        top = np.maximum.reduceat(score, np.flatnonzero(first))[np.cumsum(first) - 1]  # each pair's game's best
        win = np.flatnonzero(fights & (score == top))
        win = win[_firsts(g[win])]
        best[g[win]], best_mercs[g[win]] = t[win], hired[win]
    go = best >= 0
    # commit only what ``want_dice`` dice need (the rest defends the Company's regions in phase 8, L211): the
    # mercenaries and the family's own officers first, then regiments, then other families' officers
    t = np.maximum(best, 0)
    need = legal.strength[rows, t].astype(np.int64) + np.maximum(want_dice, min_dice)
    need -= (best_mercs * power).sum(axis=1)
    own_used = np.minimum(own, np.maximum(need, 1))
    need -= own_used
    reg_used = np.clip(need, 0, legal.regiments.astype(np.int64))
    need -= reg_used
    others = np.where(np.arange(obs.players)[None, :] == obs.seat[:, None], 0, legal.officers).astype(np.int64)
    before = np.cumsum(others, axis=1) - others
    other_used = np.clip(need[:, None] - before, 0, others)
    officers = other_used.copy()
    officers[rows, obs.seat] = own_used
    officers = np.where(go[:, None], officers, 0).astype(np.int64)
    regiments = np.where(go, reg_used, 0).astype(np.int64)
    return best, officers, regiments, best_mercs & go[:, None]


def _plan_by_kernels(obs, legal, g, t, own, force, cost, power, ok, order, min_dice, want_dice, mercenaries, risk,
                     holding):  # fmt: skip
    """``plan_deployment`` from the (game ``g``, target ``t``) pairs on: the bands hired pair by pair
    (``_hire_kernel``), the odds (``values.check_odds``), then each game's best target and the troops it commits
    (``_choose_kernel``)."""
    r = obs.rules
    n = obs.n

    def each(x):
        return np.ascontiguousarray(np.broadcast_to(np.asarray(x, dtype=np.float64), (n,)))

    k = force[g] - legal.strength[g, t].astype(np.int64)
    hired = np.zeros((g.size, legal.mercenaries.shape[1]), dtype=bool)
    if mercenaries and g.size:
        money = legal.treasury.astype(np.int64)[g]
        _hire_kernel(g, k, order.astype(np.int64), ok, cost, power, each(want_dice), money, hired)
    p_s, p_m = V.check_odds(r, k)
    best = np.full(n, -1, dtype=np.int64)
    best_mercs = np.zeros((n, hired.shape[1]), dtype=bool)
    officers = np.zeros((n, obs.players), dtype=np.int64)
    regiments = np.zeros(n, dtype=np.int64)
    rows = np.arange(n)
    _choose_kernel(
        g, t, k, hired, p_s, p_m, legal.strength, obs.owner, obs.looted, r.d.first_loot,
        float(r.military.loot_per_strength), TROPHY_WORTH, obs.trophies[rows, obs.seat], float(r.military.trophy_loss),
        own, force, legal.regiments, legal.officers, obs.seat, cost, power, bool(mercenaries), each(risk),
        each(holding), each(min_dice), each(np.maximum(want_dice, min_dice)), best, best_mercs, officers, regiments,
    )  # fmt: skip
    return best, officers, regiments, best_mercs


@kernels.kernel
def _hire_kernel(g, k, order, ok, cost, power, want, money, hired):
    """``plan_deployment``'s mercenaries pair by pair: the bands of the pair's game in ``order`` (cheapest strength
    first), each hired while the dice ``k`` stay below ``want`` and ``money`` pays (``k``, ``money`` updated)."""
    for i in range(g.shape[0]):
        x = g[i]
        for j in range(order.shape[1]):
            m = order[x, j]
            if ok[x, m] and k[i] < want[x] and cost[x, m] <= money[i]:
                hired[i, m] = True
                money[i] -= cost[x, m]
                k[i] += power[x, m]


@kernels.kernel
def _choose_kernel(
    g, t, k, hired, p_s, p_m, strength, owner, looted, first_loot, loot_per_strength, trophy_worth, trophies,
    trophy_loss, own, force, regiments, officers, seat, cost, power, mercenaries, risk, holding, min_dice, need_dice,
    best, best_mercs, out_officers, out_regiments,
):  # fmt: skip
    """``plan_deployment``'s scores and choice game by game (the pairs ``g`` in game order): each pair's expected
    gain as the numpy reference computes it (``battle_worth``, the losses, the conquest's holding, the bands'
    cost), each game's first best pair with ``min_dice`` dice and a gain, then the troops committed for
    ``need_dice`` dice (bands, own officers, regiments, then other families' officers in seat order)."""
    top = np.full(best.shape[0], -np.inf)
    pick = np.full(best.shape[0], -1, dtype=np.int64)
    for i in range(g.shape[0]):
        x, y = g[i], t[i]
        sovereign = owner[x, y] < 0
        st = float(strength[x, y])
        first = 0 if looted[x, y] else first_loot[y]
        loot = loot_per_strength * st + first if sovereign else 0.0
        troops = regiments[x]
        for m in range(hired.shape[1]):
            troops += hired[i, m]
        slots = force[x] - regiments[x] + 1 + troops
        share = loot * (own[x] + 1) / max(slots, 1)
        worth = share + trophy_worth * (st if sovereign else 0.0)
        gain = p_s[i] * worth
        loss = p_m[i] * (trophies[x] * trophy_loss * trophy_worth + 3.0) + own[x] / 6.0 * 2.0
        conquest = p_s[i] * (1.0 if sovereign else 0.0)
        gain = gain - (1.0 - risk[x]) * (loss + conquest * holding[x])
        paid = 0
        if mercenaries:
            for m in range(hired.shape[1]):
                paid += hired[i, m] * cost[x, m]
        gain = gain - 0.3 * paid
        if k[i] >= min_dice[x] and gain > 0 and gain > top[x]:
            top[x], pick[x] = gain, i
    for x in range(best.shape[0]):
        i = pick[x]
        if i < 0:
            continue
        best[x] = t[i]
        bands = 0
        for m in range(hired.shape[1]):
            best_mercs[x, m] = hired[i, m]
            if hired[i, m]:
                bands += power[x, m]
        need = strength[x, t[i]] + need_dice[x] - bands
        own_used = min(float(own[x]), max(need, 1.0))
        need -= own_used
        reg_used = min(max(need, 0.0), float(regiments[x]))
        need -= reg_used
        before = 0
        for s in range(officers.shape[1]):
            if s == seat[x]:
                out_officers[x, s] = np.int64(own_used)
            else:
                out_officers[x, s] = np.int64(min(max(need - before, 0.0), float(officers[x, s])))
                before += officers[x, s]
        out_regiments[x] = np.int64(reg_used)


def academy_army(obs: Observation) -> np.ndarray:
    """int[G', N]: the army each family's academy officers join: where it commands or has most officers, else the
    one with the most useful targets (a sovereign home or neighbour region) and the fewest rival officers."""
    officers = obs.officers.astype(float)  # [G', N, P]
    rivals = officers.sum(axis=1)[:, None, :] - officers
    commands = (obs.commander[:, None, :] == np.arange(obs.players)[None, :, None]).astype(float)
    score = 3.0 * commands + officers - 0.3 * rivals
    return score.argmax(axis=2)


def officer_moves(obs: Observation, legal, family: np.ndarray) -> tuple[np.ndarray, ...]:
    """Up to M moves (kind, family, src, dst, count)[G', M] for Military Affairs: ``family``'s officers in an army
    it does not command join the army where it has most (to take or keep a command)."""
    m = obs.rules.military.moves
    out = tuple(np.zeros((obs.n, m), dtype=np.int64) for _ in range(5))
    if m == 0:
        return out
    rows = np.arange(obs.n)
    mine = legal.officers[rows, family].astype(np.int64)  # [G', P]
    dst = mine.argmax(axis=1)
    spare = np.where(np.arange(L.PRESIDENCIES)[None, :] == dst[:, None], 0, mine)
    src = spare.argmax(axis=1)
    count = spare[rows, src]
    go = (count > 0) & (src != dst)
    kind, fam, s, t, c = out
    kind[:, 0] = np.where(go, L.MOVE_OFFICERS, L.MOVE_NONE)
    fam[:, 0], s[:, 0], t[:, 0], c[:, 0] = family, src, dst, np.maximum(count, 1)
    return out
