"""Phase 6, military: Military Affairs (R-MILITARY) and the army commanders' deployments (R-DEPLOY, L166-L173).

Military Affairs sends every academy officer to an army and makes up to two moves of officers or regiments.
The commander of an army is the family with the most officers there; a tie keeps a sitting commander among the
tied, otherwise Military Affairs picks (no nepotism: a commander is not an office). Commanders deploy in turn,
Bombay, Madras, Bengal.
"""

from __future__ import annotations

import numpy as np

from .. import kernels, ledger
from .. import layout as L
from ..agents import Agents
from ..board import check_outcome
from ..dice import Chance
from ..india import record_deployment, turn_inward
from ..laws import loot_to_company
from ..reduce import sum_last
from ..rules import Rules
from ..state import TALLY, State


# ------------------------------------------------------------------------------------------------ commanders
def settle_commanders(
    state: State,
    rules: Rules,
    dice: Chance,
    agents: Agents,
    rows: np.ndarray,
    armies: range | list = range(3),
) -> None:
    """Re-seat the commander of each army in games ``rows`` from its officers (R-COMMANDER). Works on those games
    only (lost regions re-seat a few games at a time)."""
    if rows.size == 0:
        return
    if rows.size > 1 and not (rows[1:] > rows[:-1]).all():
        rows = np.unique(rows)  # distinct games in order
    g, m = state.n_games, rows.size
    if kernels.use(g):
        for a in armies:
            settle_army(state, rules, dice, agents, rows, np.full(m, a, dtype=np.int64))
        return
    officers = state.officers.take(rows, axis=0)  # [m, N, A]: choosing a commander moves no officer
    for a in armies:
        off = officers[:, :, a]
        top = off.max(axis=1)
        tied = (off == top[:, None]) & (top > 0)[:, None]
        cur = state.commander[rows, a]
        keep = (cur >= 0) & tied[np.arange(m), np.maximum(cur, 0)]
        single = tied.sum(axis=1) == 1
        new = np.where(keep, cur, np.where(single, tied.argmax(axis=1), -1))
        need = (top > 0) & ~keep & ~single
        if need.any():  # tied families without a sitting commander: Military Affairs (or chance) picks
            pick_commanders(state, dice, agents, rows[need], a)
            new = np.where(need, state.commander[rows, a], new)
        state.commander[rows, a] = np.where(top > 0, new, -1)


def settle_army(state: State, rules: Rules, dice: Chance, agents: Agents, rows: np.ndarray, army: np.ndarray) -> None:
    """Re-seat the commander of army ``army[m]`` in each of the distinct games ``rows`` (R-COMMANDER), as
    ``settle_commanders`` does army by army (a lost region re-seats its army's commander)."""
    if not kernels.use(state.n_games):
        for a in range(L.PRESIDENCIES):
            going = rows[army == a]
            if going.size:
                settle_commanders(state, rules, dice, agents, going, [a])
        return
    need = np.flatnonzero(_settle_kernel(state.officers, state.commander, rows, army))
    for a in range(L.PRESIDENCIES):  # tied families without a sitting commander: Military Affairs picks
        sel = need[army[need] == a]
        if sel.size:
            pick_commanders(state, dice, agents, rows[sel], a)


def pick_commanders(state: State, dice: Chance, agents: Agents, rows: np.ndarray, a: int) -> None:
    """Military Affairs picks the commander of army ``a`` among the families tied for the most officers there in
    games ``rows`` (none of them sitting); without Military Affairs, chance picks."""
    g = state.n_games
    off = state.officers[rows, :, a]
    tied = off == off.max(axis=1)[:, None]
    head = np.full(g, -1, dtype=state.office.dtype)
    head[rows] = state.office[rows, L.MILITARY]
    tied_all = np.zeros((g, state.n_players), dtype=bool)
    tied_all[rows] = tied
    picked = np.full(g, -1, dtype=np.int64)

    def check(seat, legal, obs):
        ok = (seat >= 0) & (seat < obs.players)
        return ~ok | ~legal.tied[np.arange(obs.n), np.clip(seat, 0, obs.players - 1)], "not a tied family"

    agents.ask("pick_commander", state, head, {"army": np.full(g, a), "tied": tied_all}, (picked,), check)
    picked = picked[rows]
    nobody = np.flatnonzero(head[rows] < 0)
    if nobody.size:
        picked[nobody] = dice.pick(rows[nobody], tied[nobody])
    state.commander[rows, a] = picked


@kernels.kernel
def _settle_kernel(officers, commander, rows, army):
    """R-COMMANDER game by game (rows are distinct games): army ``army[i]`` of game ``rows[i]`` keeps a sitting
    commander among the families with the most officers there, else the only such family commands, nobody
    without officers. Returns bool[m]: the games where several families tie without a sitting one (untouched)."""
    need = np.zeros(rows.shape[0], dtype=np.bool_)
    for i in range(rows.shape[0]):
        g, a = rows[i], army[i]
        top, first, tied = officers[g, 0, a], 0, 1
        for s in range(1, officers.shape[1]):
            o = officers[g, s, a]
            if o > top:
                top, first, tied = o, s, 1
            elif o == top:
                tied += 1
        cur = commander[g, a]
        if top <= 0:
            commander[g, a] = -1
        elif cur >= 0 and officers[g, cur, a] == top:
            continue
        elif tied == 1:
            commander[g, a] = first
        else:
            need[i] = True
    return need


# --------------------------------------------------------------------------------------------- Military Affairs
def military_affairs(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Academy officers to the armies, then up to ``military.moves`` moves of officers or regiments."""
    g, n = state.n_games, state.n_players
    head = np.where(~state.done, state.office[:, L.MILITARY], -1)
    asked = head >= 0
    if not asked.any():
        return
    rows = np.flatnonzero(asked)
    # academy officers: all of them go to some army
    has_cadets = np.where(asked & (state.academy.sum(axis=1) > 0), head, -1)
    assign = np.zeros((g, n, L.PRESIDENCIES), dtype=np.int64)

    def check_assign(a, legal, obs):
        return (a < 0).any(axis=(1, 2)) | (a.sum(axis=2) != legal.academy).any(axis=1), (
            "must send every academy officer, and only those, to an army"
        )

    agents.ask("assign_academy", state, has_cadets, {"academy": state.academy}, (assign,), check_assign)
    sent = np.flatnonzero(has_cadets >= 0)
    state.officers[sent] += assign[sent].astype(np.int32)
    state.academy[sent] = 0

    m = rules.military.moves
    if m:
        moves = tuple(np.zeros((g, m), dtype=np.int64) for _ in range(5))

        def check_moves(answer, legal, obs):
            officers, regiments = legal.officers.copy(), legal.regiments.copy()
            return apply_military_moves(officers, regiments, answer), "illegal move of officers or regiments"

        legal = {"officers": state.officers, "regiments": state.regiments}
        agents.ask("military_moves", state, head, legal, moves, check_moves)
        sub = tuple(x[rows] for x in moves)
        officers, regiments = state.officers[rows], state.regiments[rows]
        apply_military_moves(officers, regiments, sub)
        state.officers[rows], state.regiments[rows] = officers, regiments
    settle_commanders(state, rules, dice, agents, rows)


def apply_military_moves(officers: np.ndarray, regiments: np.ndarray, moves: tuple) -> np.ndarray:
    """Apply moves (kind, family, src, dst, count)[G', M] in order to officers[G', N, P] and regiments[G', P]
    in place; returns bool[G'] of games with an illegal move (those games are left partly moved)."""
    if kernels.use(officers.shape[0]) and all(np.asarray(x).dtype.kind == "i" for x in moves):
        return _moves_kernel(officers, regiments, *(np.asarray(x, dtype=np.int64) for x in moves))
    kind, family, src, dst, count = moves
    g, n, p = officers.shape
    bad = np.zeros(g, dtype=bool)
    r = np.arange(g)
    for j in range(kind.shape[1]):
        k, f, s, d, c = kind[:, j], family[:, j], src[:, j], dst[:, j], count[:, j]
        move = k != L.MOVE_NONE
        bad |= move & ((k < 0) | (k > L.MOVE_REGIMENTS) | (s < 0) | (s >= p) | (d < 0) | (d >= p) | (s == d) | (c < 1))
        bad |= (k == L.MOVE_OFFICERS) & ((f < 0) | (f >= n))
        s, d, fc = np.clip(s, 0, p - 1), np.clip(d, 0, p - 1), np.clip(f, 0, n - 1)
        off = move & (k == L.MOVE_OFFICERS) & ~bad
        bad |= off & (officers[r, fc, s] < c)
        off &= ~bad
        officers[r[off], fc[off], s[off]] -= c[off]
        officers[r[off], fc[off], d[off]] += c[off]
        reg = move & (k == L.MOVE_REGIMENTS) & ~bad
        bad |= reg & (regiments[r, s] < c)
        reg &= ~bad
        regiments[r[reg], s[reg]] -= c[reg]
        regiments[r[reg], d[reg]] += c[reg]
    return bad


@kernels.kernel
def _moves_kernel(officers, regiments, kind, family, src, dst, count):
    """``apply_military_moves`` game by game: each game's moves in order, up to its first illegal one."""
    g, n, p = officers.shape
    bad = np.zeros(g, dtype=np.bool_)
    for r in range(g):
        for j in range(kind.shape[1]):
            k, f, s, d, c = kind[r, j], family[r, j], src[r, j], dst[r, j], count[r, j]
            if k == L.MOVE_NONE:
                continue
            if k < 0 or k > L.MOVE_REGIMENTS or s < 0 or s >= p or d < 0 or d >= p or s == d or c < 1:
                bad[r] = True
            elif k == L.MOVE_OFFICERS:
                if f < 0 or f >= n or officers[r, f, s] < c:
                    bad[r] = True
                else:
                    officers[r, f, s] -= c
                    officers[r, f, d] += c
            elif k == L.MOVE_REGIMENTS:
                if regiments[r, s] < c:
                    bad[r] = True
                else:
                    regiments[r, s] -= c
                    regiments[r, d] += c
            if bad[r]:
                break
    return bad


# ------------------------------------------------------------------------------------------------ deployment
def deploy_targets(state: State, rules: Rules, army: int) -> np.ndarray:
    """bool[G, R]: regions army ``army`` may deploy into: its presidency's own regions, its home region, and
    regions adjacent to its own that the Company does not control (L166)."""
    d = rules.d
    own = state.owner == army
    near = (own.astype(np.float32) @ d.adjacent.astype(np.float32)) > 0  # neighbours counted exactly (BLAS)
    targets = own | (near & (state.owner < 0))
    targets[:, d.home[army]] |= state.owner[:, d.home[army]] < 0
    return targets


def deployments(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Each army's commander may deploy once, Bombay, then Madras, then Bengal."""
    for army in range(L.PRESIDENCIES):
        deploy(state, rules, dice, agents, army)


def deploy(state: State, rules: Rules, dice: Chance, agents: Agents, army: int) -> None:
    g, n = state.n_games, state.n_players
    d, mil = rules.d, rules.military
    cmd = np.where(~state.done, state.commander[:, army], -1)
    if not (cmd >= 0).any():
        return
    t_pres = L.T_PRESIDENCY[army]
    president = state.office[:, L.PRESIDENT[army]]
    merc_ok = np.broadcast_to(d.merc_valid[army], (g, d.merc_valid.shape[1])).copy()
    if mil.mercenaries_need_president:
        merc_ok &= (president >= 0)[:, None]
    targets = deploy_targets(state, rules, army)
    strength = np.where(state.owner >= 0, 0, state.strength)
    legal = {
        "army": np.full(g, army),
        "targets": targets,
        "strength": strength,
        "officers": state.officers[:, :, army],
        "regiments": state.regiments[:, army],
        "mercenaries": merc_ok,
        "treasury": state.treasury[:, t_pres],
    }
    target = np.full(g, -1, dtype=np.int64)
    officers = np.zeros((g, n), dtype=np.int64)
    regiments = np.zeros(g, dtype=np.int64)
    mercs = np.zeros((g, d.merc_valid.shape[1]), dtype=bool)

    def check(answer, lg, obs):
        return (
            illegal_deployments(answer, lg, obs.seat, d.merc_cost[army], d.merc_strength[army]),
            "deployment outside the legal regions, beyond the army's troops, without the commander, or with no dice",
        )

    agents.ask("deploy", state, cmd, legal, (target, officers, regiments, mercs), check)
    go = target >= 0
    if not go.any():
        return
    # the President funds the mercenaries asked for, or not
    want = go & mercs.any(axis=1)
    if want.any():
        cost = (mercs * d.merc_cost[army]).sum(axis=1)
        fund = np.zeros(g, dtype=bool)
        agents.ask(
            "fund_mercenaries",
            state,
            np.where(want, president, -1),
            {"army": np.full(g, army), "cost": cost},
            (fund,),
        )
        mercs &= fund[:, None]
        paid = np.where(want & fund, cost, 0)
        ledger.treasury(state, "mercenaries", t_pres, -paid)
    tgt = np.maximum(target, 0)
    force = sum_last(officers) + regiments + sum_last(mercs * d.merc_strength[army])
    k = force - strength[np.arange(g), tgt]
    go &= k >= 1  # refused mercenaries can leave too small a force: then there is no battle
    rows = np.flatnonzero(go)
    if rows.size == 0:
        return
    battle(
        state,
        rules,
        dice,
        agents,
        army,
        rows,
        target[rows],
        officers[rows],
        regiments[rows],
        mercs[rows],
        k[rows],
    )


def illegal_deployments(answer: tuple, lg, seat: np.ndarray, cost: np.ndarray, power: np.ndarray) -> np.ndarray:
    """bool[G']: the decision ``deploy``'s check of the answers (target, officers, regiments, mercenaries) of the
    commanders at ``seat`` against the legal options ``lg``, the bands costing ``cost[M]`` £ for ``power[M]``: a
    legal target led by the commander's own officer, troops the army has, bands on offer that the presidency can
    pay, at least one die; no troops without a target."""
    t, off, reg, mc = answer
    n = t.shape[0]
    ints = all(np.asarray(x).dtype.kind == "i" for x in (t, off, reg))
    if kernels.use(n) and ints and mc.dtype == bool and n:
        bad = np.zeros(n, dtype=bool)
        _deploy_check_kernel(
            t, off, reg, mc, lg.targets, lg.officers, lg.regiments, lg.mercenaries, lg.treasury, lg.strength, seat,
            cost, power, bad,
        )  # fmt: skip
        return bad
    rows = np.arange(n)
    go = t >= 0
    tc = np.clip(t, 0, lg.targets.shape[1] - 1)
    bad = (t >= lg.targets.shape[1]) | (go & ~lg.targets[rows, tc])
    bad |= (off < 0).any(axis=1) | (off > lg.officers).any(axis=1) | (reg < 0) | (reg > lg.regiments)
    bad |= (mc & ~lg.mercenaries).any(axis=1)
    bad |= go & (off[rows, seat] < 1)  # the commander leads his force
    bad |= (mc * cost).sum(axis=1) > lg.treasury
    force = off.sum(axis=1) + reg + (mc * power).sum(axis=1)
    bad |= go & (force - lg.strength[rows, tc] < 1)
    bad |= ~go & ((off.sum(axis=1) + reg + mc.sum(axis=1)) > 0)
    return bad


@kernels.kernel
def _deploy_check_kernel(
    t, off, reg, mc, targets, officers, regiments, mercenaries, treasury, strength, seat, cost, power, bad
):  # fmt: skip
    """``illegal_deployments`` row by row (bands as bool[G', M])."""
    n_r = targets.shape[1]
    for i in range(t.shape[0]):
        go = t[i] >= 0
        tc = min(max(t[i], 0), n_r - 1)
        b = t[i] >= n_r or (go and not targets[i, tc])
        troops = 0
        for s in range(off.shape[1]):
            if off[i, s] < 0 or off[i, s] > officers[i, s]:
                b = True
            troops += off[i, s]
        if reg[i] < 0 or reg[i] > regiments[i]:
            b = True
        paid = bands = force = 0
        for m in range(mc.shape[1]):
            if mc[i, m]:
                if not mercenaries[i, m]:
                    b = True
                paid += cost[m]
                force += power[m]
                bands += 1
        if go and off[i, seat[i]] < 1:  # the commander leads his force
            b = True
        if paid > treasury[i]:
            b = True
        if go and troops + reg[i] + force - strength[i, tc] < 1:
            b = True
        if not go and troops + reg[i] + bands > 0:
            b = True
        bad[i] = b


def battle(
    state: State,
    rules: Rules,
    dice: Chance,
    agents: Agents,
    army: int,
    rows: np.ndarray,
    target: np.ndarray,
    officers: np.ndarray,
    regiments: np.ndarray,
    mercs: np.ndarray,
    k: np.ndarray,
) -> None:
    """Resolve deployments in games ``rows``: the check, the officers' death rolls, conquest, loot, defeat."""
    d, mil = rules.d, rules.military
    cmd = state.commander[rows, army].astype(np.int64)
    state.tally[rows, TALLY["battles"]] += 1
    lowest = dice.lowest(rows, k)
    success, mishap = check_outcome(rules, lowest)

    # every officer taking part rolls for death; the commander's die is his family's first
    total = officers.sum(axis=1)
    width = max(int(total.max()), 1)
    gone = casualties(state, rules, rows, army, officers, cmd, total, dice.d6(rows, width, used=total), mishap)
    survivors = officers - gone
    # success: unrest cleared; a sovereign region is conquered (trophies = its strength, then loot)
    win = np.flatnonzero(success)
    if win.size:
        wr, wt = rows[win], target[win]
        state.unrest[wr, wt] = 0
        turn_inward(state, rules, wr, wt)  # L170: the crisis marker in the target turns inward
        sovereign = state.owner[wr, wt] < 0
        strength = np.where(sovereign, state.strength[wr, wt], 0)
        state.trophies[wr, cmd[win]] += strength
        loot = np.where(
            sovereign,
            mil.loot_per_strength * strength + np.where(state.looted[wr, wt], 0, d.first_loot[wt]),
            0,
        )
        state.looted[wr[sovereign], wt[sovereign]] = True
        conquer(state, wr[sovereign], wt[sovereign], army)
        state.tally[wr, TALLY["conquests"]] += sovereign
        pay = np.flatnonzero(loot > 0)
        pay = pay[~loot_to_company(state, rules, wr[pay], loot[pay])]  # Treasure Reform
        if pay.size:
            share_loot(state, agents, army, wr[pay], cmd[win][pay], loot[pay], survivors[win][pay],
                       regiments[win][pay] + mercs[win][pay].sum(axis=1),
                       officers[win][pay].sum(axis=1))  # fmt: skip
    record_deployment(state, rows, army, officers, regiments)  # used: they cannot defend in phase 8
    settle_commanders(state, rules, dice, agents, rows, [army])


def casualties(
    state: State,
    rules: Rules,
    rows: np.ndarray,
    army: int,
    officers: np.ndarray,
    cmd: np.ndarray,
    total: np.ndarray,
    faces: np.ndarray,
    mishap: np.ndarray,
) -> np.ndarray:
    """A battle's losses in games ``rows`` (R-DEPLOY, L172-L173): each officer taking part (``officers[m, N]``,
    ``total[m]``) dies on his die (``faces[m, K]``, the commander's family's dice first, then the others' in seat
    order) from ``military.death_on``; a defeat (``mishap``) also kills or disgraces the commander ``cmd[m]`` (if his
    die did not already) and costs his family ``trophy_loss`` of its trophies. The dead and disgraced leave the army
    for their families' supply. Returns int[m, N] the officers gone."""
    mil = rules.military
    if kernels.use(state.n_games) and officers.dtype.kind == "i":
        gone = np.zeros(officers.shape, dtype=np.int64)
        _casualties_kernel(
            state.trophies, state.commander, state.officers, state.supply, state.tally, np.asarray(rows, np.int64),
            army, np.ascontiguousarray(officers, dtype=np.int64), np.asarray(cmd, np.int64),
            np.asarray(total, np.int64), faces, mishap, mil.death_on, mil.trophy_loss,
            mil.defeated_commander == "disgraced", TALLY["officers_killed"], TALLY["fired"], gone,
        )  # fmt: skip
        return gone
    m, width = faces.shape
    r = np.arange(m)
    starts = commander_first(officers, cmd)  # each family's first die
    dead_die = faces >= mil.death_on
    dead_die &= np.arange(width)[None, :] < total[:, None]
    cum = np.concatenate([np.zeros((m, 1), dtype=np.int64), np.cumsum(dead_die, axis=1)], axis=1)
    deaths = np.take_along_axis(cum, starts + officers, axis=1) - np.take_along_axis(cum, starts, axis=1)
    commander_dead = dead_die[:, 0]
    # a defeat kills or disgraces the commander (if his die did not already) and costs half his family's trophies;
    # L173 "погиб/был с позором лишён звания" (military.defeated_commander): either way his relative
    # leaves the army for the family's supply; killed counts in officers_killed, disgraced (sent home) in fired
    fallen = mishap & ~commander_dead
    disgraced = fallen & (mil.defeated_commander == "disgraced")
    gone = deaths.copy()
    gone[r[fallen], cmd[fallen]] += 1
    lost = np.ceil(state.trophies[rows, cmd] * mil.trophy_loss).astype(np.int32)
    state.trophies[rows[mishap], cmd[mishap]] -= lost[mishap]
    state.commander[rows[commander_dead | mishap], army] = -1  # his command is vacant; settle_commanders re-seats
    state.officers[rows, :, army] -= gone.astype(np.int32)
    state.supply[rows] += gone.astype(np.int32)
    state.tally[rows, TALLY["officers_killed"]] += (gone.sum(axis=1) - disgraced).astype(np.int32)
    state.tally[rows, TALLY["fired"]] += disgraced.astype(np.int32)
    return gone


@kernels.kernel
def _casualties_kernel(
    trophies, commander, state_officers, supply, tally, rows, army, officers, cmd, total, faces, mishap, death_on,
    trophy_loss, disgrace, killed_col, fired_col, gone,
):  # fmt: skip
    """``casualties`` game by game (rows are distinct games; ``gone`` int[m, N] zeros, filled)."""
    n = officers.shape[1]
    for i in range(rows.shape[0]):
        g, c = rows[i], cmd[i]
        j = 0
        for k in range(n + 1):  # the commander's family first, then the others in seat order
            f = c if k == 0 else k - 1
            if f < 0 or (k > 0 and f == c):
                continue
            for _ in range(officers[i, f]):
                if faces[i, j] >= death_on:
                    gone[i, f] += 1
                j += 1
        commander_dead = total[i] > 0 and faces[i, 0] >= death_on
        cc = c if c >= 0 else n + c  # as numpy indexes seat -1
        fallen = mishap[i] and not commander_dead
        disgraced = 1 if fallen and disgrace else 0
        if fallen:
            gone[i, cc] += 1
        if mishap[i]:
            trophies[g, cc] -= np.int32(np.ceil(trophies[g, cc] * trophy_loss))
        if commander_dead or mishap[i]:
            commander[g, army] = -1
        out = 0
        for s in range(n):
            state_officers[g, s, army] -= gone[i, s]
            supply[g, s] += gone[i, s]
            out += gone[i, s]
        tally[g, killed_col] += out - disgraced
        tally[g, fired_col] += disgraced


def commander_first(officers: np.ndarray, cmd: np.ndarray) -> np.ndarray:
    """int[m, N]: where each family's officers start when the commander's family (``cmd[m]``, -1 none) goes first,
    then the others in seat order: the officers of the families before it."""
    mine = np.arange(officers.shape[1])[None, :] == cmd[:, None]
    others = np.where(mine, 0, officers).astype(np.int64)
    first = (officers - others).sum(axis=1)
    return np.where(mine, 0, first[:, None] + np.cumsum(others, axis=1) - others)


def conquer(state: State, rows: np.ndarray, region: np.ndarray, army: int) -> None:
    """The region becomes the presidency's; it leaves its empire, and an empire whose capital falls shatters."""
    if rows.size == 0:
        return
    state.owner[rows, region] = army
    state.strength[rows, region] = 0
    shattered = state.capital[rows] == region[:, None].astype(np.int8)  # [m, R] regions ruled from the fallen one
    own = np.broadcast_to(np.arange(state.capital.shape[1], dtype=np.int8), shattered.shape)
    state.capital[rows] = np.where(shattered, own, state.capital[rows])
    state.capital[rows, region] = region


def share_loot(
    state: State,
    agents: Agents,
    army: int,
    rows: np.ndarray,
    cmd: np.ndarray,
    loot: np.ndarray,
    survivors: np.ndarray,
    troops: np.ndarray,
    took_part: np.ndarray | None = None,
) -> None:
    """Loot paid round-robin (L171): 1 £ per surviving officer (the commander's family first), then 1 £ to each
    family the commander names, then 1 £ per regiment and mercenary band (never paid out) until it runs out.
    Loot smaller than the number of officers who took part (``took_part[m]``, the dead included; default: the
    survivors) pays each surviving one 1 £ all the same."""
    g, n = state.n_games, state.n_players
    named_full = np.zeros((g, n), dtype=bool)
    decider = np.full(g, -1, dtype=np.int64)
    decider[rows] = cmd
    loot_full = np.zeros(g, dtype=np.int64)
    loot_full[rows] = loot
    agents.ask("share_loot", state, decider, {"army": np.full(g, army), "loot": loot_full}, (named_full,))
    named = named_full[rows].astype(np.int64)
    slots = survivors.sum(axis=1) + named.sum(axis=1) + troops
    full = np.where(slots > 0, loot // np.maximum(slots, 1), 0)
    rest = np.where(slots > 0, loot % np.maximum(slots, 1), 0)
    # the remainder goes to the first slots in order: officers (commander's family first), named families
    part_off = np.clip(rest[:, None] - commander_first(survivors, cmd), 0, survivors)
    rest2 = np.maximum(rest - survivors.sum(axis=1), 0)
    start2 = np.cumsum(named, axis=1) - named
    part_named = np.clip(rest2[:, None] - start2, 0, named)
    pay = full[:, None] * (survivors + named) + part_off + part_named
    # L171: loot smaller than the officers who took part ("участвующих офицеров+командующий") still pays each
    # surviving one 1 £
    took_part = survivors.sum(axis=1) if took_part is None else took_part
    pay = np.where((loot < took_part)[:, None], survivors, pay)
    amounts = np.zeros((g, n), dtype=np.int64)
    amounts[rows] = pay
    ledger.families(state, "loot", amounts)
    state.tally[rows, TALLY["loot"]] += pay.sum(axis=1).astype(np.int32)
