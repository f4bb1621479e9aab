"""Attacks on the Company (R-ATTACK, D-LOST-TROPHIES; seed 000 L211-L213; MAP.md, John Company 2e's India).

Phase 8's events (``india.py``: Leader, Crisis, Foreign Invasion) and, in phase 9, a failed War Against France!
attack Company regions (``attack_company``); each unrest marker there adds 1 (``attack_unrest``; more while Sepoy
Recruitment is in force), and an attack of strength 0 or less fizzles. The army of the region's presidency defends
with the troops it did not use this round (the commander's decision ``defend``, else Military Affairs', else the
Chairman's: pieces worth at least the attack, ties to the Company; nobody to ask: ``minimal_defence``, regiments
first). The region holds (a sovereign attacker loses ``india.held_attacker_loss`` strength, the commander's family
gains ``india.held_trophies``) or is lost (``lose_region``, L212): the commander dies and his family returns
``india.lost_trophy_share`` of its trophies (rounded up), the governor dies, every other officer of the army dies
on ``india.officer_death_on`` or more, the region's orders close, it turns sovereign at
``india.lost_region_strength`` without unrest (a crisis marker inside it marches on), stability -1, which can crash
the Company: the game then ends here. One attack sets off a revolt in every other Company region with unrest, at
strength = its unrest, Bombay's army first (``revolt_wave``).

``Event`` is one drawn event as the India phase passes it on: its games, tile, region, modifier, shape and the
Company regions it attacked.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .. import kernels, laws
from .. import layout as L
from ..agents import Agents
from ..board import vacate_governor
from ..dice import Chance
from ..india import close_all, march, weaken
from ..reduce import any_last
from ..rules import Rules
from ..state import TALLY, State
from .accounts import crash
from .military import settle_army

P = L.PRESIDENCIES


@dataclass(frozen=True)
class Event:
    """One event in games ``rows``; the other arrays are full-batch (valid at ``rows``)."""

    rows: np.ndarray  # int[m] games the event happens in
    tile: np.ndarray  # int[G] the tile drawn (index into rules.map.events)
    region: np.ndarray  # int[G] the region it hits
    modifier: np.ndarray  # int[G] the tile's modifier
    shape: np.ndarray  # int[G] the tile's shape (layout.SHAPES index, NO_SHAPE)
    attacked: np.ndarray  # bool[G, R] Company regions this event attacked (their revolts are not set off again)

    @classmethod
    def blank(cls, state: State, rows: np.ndarray) -> Event:
        g, r = state.owner.shape

        def z():
            return np.zeros(g, dtype=np.int64)

        return cls(np.asarray(rows, dtype=np.int64), z(), z(), z(), np.full(g, L.NO_SHAPE), np.zeros((g, r), bool))

    @classmethod
    def of(cls, state: State, rules: Rules, rows, tile: int, region: int | None = None) -> Event:
        """Tile ``tile`` hitting ``region`` (default: its own) in games ``rows`` (for hand-built positions)."""
        d = rules.d
        ev = cls.blank(state, np.asarray(rows))
        ev.tile[ev.rows] = tile
        ev.region[ev.rows] = d.tile_region[tile] if region is None else region
        ev.modifier[ev.rows] = d.tile_modifier[tile]
        ev.shape[ev.rows] = d.tile_shape[tile]
        return ev

    def only(self, mask: np.ndarray) -> Event:
        return self.at(self.rows[mask])

    def at(self, rows: np.ndarray) -> Event:
        """The same event in games ``rows`` (the full-batch arrays shared)."""
        return Event(rows, self.tile, self.region, self.modifier, self.shape, self.attacked)


def attack_unrest(state: State, rules: Rules, rows: np.ndarray, region: np.ndarray) -> np.ndarray:
    """int[m]: what a Company region's unrest adds to an attack on it (L211): 1 per unrest marker, plus the laws'
    ``unrest_attack_bonus`` per marker while one is in force (Sepoy Recruitment)."""
    unrest = state.unrest[rows, region].astype(np.int64)
    if not unrest.any():  # nothing to add: the laws need not be read
        return unrest
    return unrest * (1 + laws.modifier(state, rules, "unrest_attack_bonus", rows))


def attack_company(
    state: State,
    rules: Rules,
    dice: Chance,
    agents: Agents,
    ev: Event,
    region: np.ndarray,
    strength: np.ndarray,
    attacker: np.ndarray | None = None,
    tally: str = "attacks",
) -> None:
    """R-ATTACK: an attack of ``strength[m]`` on Company region ``region[m]`` in games ``ev.rows`` (R-INDIA, L211-L213).

    The army of the region's presidency defends with the officers and regiments it did not use this round: if
    they are worth at least the attack, its commander (else Military Affairs, else the Chairman) commits pieces
    worth at least the attack (decision ``defend``; they are used from then on) and the region holds: a sovereign
    ``attacker`` loses ``held_attacker_loss`` strength, the commander's family gains ``held_trophies``. Otherwise
    the region is lost (``lose_region``). The region's unrest adds to ``strength`` (``attack_unrest``; a revolt is
    an attack of strength 0 plus its unrest). An attack of strength 0 or less fizzles."""
    rows = ev.rows
    if rows.size == 0:
        return
    attacker = np.full(rows.size, -1) if attacker is None else attacker
    if kernels.use(state.n_games):  # the unrest added there
        region, strength = np.asarray(region, dtype=np.int64), np.asarray(strength, dtype=np.int64)
        _attack_by_kernels(state, rules, dice, agents, ev, region, strength, attacker, tally)
        return
    strength = np.asarray(strength, dtype=np.int64) + attack_unrest(state, rules, rows, region)
    ok = ~state.done[rows] & (state.owner[rows, region] >= 0) & (strength >= 1)
    rows, region, strength, attacker = rows[ok], region[ok], strength[ok], attacker[ok]
    if rows.size == 0:
        return
    g, n = state.n_games, state.n_players
    ind = rules.india
    seats = np.arange(n)[None, :]
    army = state.owner[rows, region].astype(np.int64)
    ev.attacked[rows, region] = True
    state.tally[rows, TALLY[tally]] += 1
    free_off = np.maximum(
        state.officers[rows[:, None], seats, army[:, None]] - state.used_officers[rows[:, None], seats, army[:, None]],
        0,
    )
    free_reg = np.maximum(state.regiments[rows, army] - state.used_regiments[rows, army], 0)
    holds = free_off.sum(axis=1) + free_reg >= strength

    # the defence: pieces worth at least the attack
    cmd = state.commander[rows, army].astype(np.int64)
    decider = np.where(cmd >= 0, cmd, state.office[rows, L.MILITARY])
    decider = np.where(decider >= 0, decider, state.office[rows, L.CHAIRMAN]).astype(np.int64)
    decider = np.where(holds, decider, -1)

    def full(values, shape=()):
        out = np.zeros((g, *shape), dtype=np.int64)
        out[rows] = values
        return out

    legal = {
        "army": full(army),
        "region": full(region),
        "attack": full(strength),
        "officers": full(free_off, shape=(n,)),
        "regiments": full(free_reg),
    }
    committed_off = np.zeros((g, n), dtype=np.int64)
    committed_reg = np.zeros(g, dtype=np.int64)
    asked = np.full(g, -1, dtype=np.int64)
    asked[rows] = decider
    agents.ask("defend", state, asked, legal, (committed_off, committed_reg), check_defence)
    auto = holds & (decider < 0)
    if auto.any():  # nobody to decide: the least defence, regiments first
        off, reg = minimal_defence(free_off[auto], free_reg[auto], strength[auto], np.full(int(auto.sum()), -1))
        committed_off[rows[auto]], committed_reg[rows[auto]] = off, reg
    h = np.flatnonzero(holds)
    hr, ha = rows[h], army[h]
    state.used_officers[hr[:, None], seats, ha[:, None]] += committed_off[hr].astype(np.int32)
    state.used_regiments[hr, ha] += committed_reg[hr].astype(np.int32)
    hit = attacker[h] >= 0
    weaken(state, hr[hit], attacker[h][hit], ind.held_attacker_loss)
    has_cmd = cmd[h] >= 0
    state.trophies[hr[has_cmd], cmd[h][has_cmd]] += ind.held_trophies
    state.tally[hr, TALLY["regions_held"]] += 1
    lost = np.flatnonzero(~holds)
    lose_region(state, rules, dice, agents, rows[lost], region[lost], army[lost], ev.shape[rows[lost]])


def check_defence(answer, lg, obs):
    """The decision ``defend``'s check: unused pieces, worth at least the attack."""
    off, reg = answer
    bad = (off < 0).any(axis=1) | (off > lg.officers).any(axis=1) | (reg < 0) | (reg > lg.regiments)
    bad |= off.sum(axis=1) + reg < lg.attack
    return bad, "the defence must commit unused officers and regiments worth at least the attack"


def _attack_by_kernels(
    state: State,
    rules: Rules,
    dice: Chance,
    agents: Agents,
    ev: Event,
    region: np.ndarray,
    strength: np.ndarray,
    attacker: np.ndarray,
    tally: str,
) -> None:
    """``attack_company``'s bookkeeping done by two kernels around the decision ``defend``."""
    g, n = state.n_games, state.n_players
    ind = rules.india
    legal = {k: np.zeros((g, n) if k == "officers" else g, dtype=np.int64) for k in DEFENCE_LEGAL}
    asked = np.full(g, -1, dtype=np.int64)
    rows = ev.rows.astype(np.int64)
    outcome = _attack_kernel(
        state.done, state.owner, state.officers, state.used_officers, state.regiments, state.used_regiments,
        state.commander, state.office, ev.attacked, state.tally, state.unrest, state.law_pile,
        rules.d.law_mod[:, laws.MOD["unrest_attack_bonus"]].astype(np.int64), laws.IN_FORCE, rows, region, strength,
        TALLY[tally], L.MILITARY, L.CHAIRMAN, legal["army"], legal["region"], legal["attack"], legal["officers"],
        legal["regiments"], asked,
    )  # fmt: skip
    if not outcome.any():  # every attack fizzled
        return
    committed_off = np.zeros((g, n), dtype=np.int64)
    committed_reg = np.zeros(g, dtype=np.int64)
    agents.ask("defend", state, asked, legal, (committed_off, committed_reg), check_defence)
    auto = rows[outcome == HELD_BY_RULE]
    if auto.size:  # nobody to decide: the least defence, regiments first
        off, reg = legal["officers"][auto], legal["regiments"][auto]
        committed_off[auto], committed_reg[auto] = minimal_defence(
            off, reg, legal["attack"][auto], np.full(auto.size, -1)
        )
    _held_kernel(
        state.used_officers, state.used_regiments, state.strength, state.trophies, state.commander, state.tally,
        rows, outcome, legal["army"], attacker.astype(np.int64), committed_off, committed_reg,
        ind.held_attacker_loss, ind.held_trophies, TALLY["regions_held"],
    )  # fmt: skip
    lost = outcome == LOST
    if lost.any():
        lr = rows[lost]
        lose_region(state, rules, dice, agents, lr, region[lost], legal["army"][lr], ev.shape[lr])


NOT_ATTACKED, LOST, HELD, HELD_BY_RULE = range(4)  # outcomes of an attack (``_attack_kernel``)
DEFENCE_LEGAL = ("army", "region", "attack", "officers", "regiments")  # the decision ``defend``'s legal arrays


@kernels.kernel
def _attack_kernel(
    done, owner, officers, used_officers, regiments, used_regiments, commander, office, attacked, tally, unrest,
    law_pile, unrest_bonus, in_force, rows, region, strength, col, military, chairman, army, at, attack,
    free_officers, free_regiments, asked
):  # fmt: skip
    """``attack_company`` game by game up to the decision (rows are distinct games): a running game's Company region
    attacked at strength 1 or more with its unrest (``attack_unrest``: the laws in force add ``unrest_bonus`` per
    marker) is marked attacked and counted; its army's unused pieces (``free_officers``, ``free_regiments``),
    army, region and attack go into the decision's full-batch arrays; a defence that holds is asked of the
    commander, else Military Affairs, else the Chairman (``asked``). Returns int[m] each attack's outcome:
    NOT_ATTACKED, LOST, HELD (asked) or HELD_BY_RULE (nobody to ask)."""
    outcome = np.zeros(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        g, x = rows[i], region[i]
        a, force = owner[g, x], strength[i]
        if unrest[g, x] > 0:
            per = 1
            for law in range(unrest_bonus.shape[0]):
                if unrest_bonus[law] != 0 and law_pile[g, law] == in_force:
                    per += unrest_bonus[law]
            force += unrest[g, x] * per
        if done[g] or a < 0 or force < 1:
            continue
        attacked[g, x] = True
        tally[g, col] += 1
        army[g], at[g], attack[g] = a, x, force
        free = 0
        for s in range(officers.shape[1]):
            free_officers[g, s] = max(officers[g, s, a] - used_officers[g, s, a], 0)
            free += free_officers[g, s]
        free_regiments[g] = max(regiments[g, a] - used_regiments[g, a], 0)
        if free + free_regiments[g] < force:
            outcome[i] = LOST
            continue
        decider = commander[g, a]
        if decider < 0:
            decider = office[g, military]
        if decider < 0:
            decider = office[g, chairman]
        asked[g] = decider
        outcome[i] = HELD if decider >= 0 else HELD_BY_RULE
    return outcome


@kernels.kernel
def _held_kernel(
    used_officers, used_regiments, strength, trophies, commander, tally, rows, outcome, army, attacker, committed_off,
    committed_reg, attacker_loss, held_trophies, col
):  # fmt: skip
    """``attack_company`` game by game after the decision (rows are distinct games): where the region holds (outcome
    HELD or HELD_BY_RULE), the pieces committed are used, a sovereign attacker loses ``attacker_loss`` strength (never
    below 0), the commander's family gains ``held_trophies`` and the region held is counted."""
    for i in range(rows.shape[0]):
        if outcome[i] != HELD and outcome[i] != HELD_BY_RULE:
            continue
        g = rows[i]
        a = army[g]
        for s in range(used_officers.shape[1]):
            used_officers[g, s, a] += committed_off[g, s]
        used_regiments[g, a] += committed_reg[g]
        if attacker[i] >= 0:
            strength[g, attacker[i]] = max(strength[g, attacker[i]] - attacker_loss, 0)
        if commander[g, a] >= 0:
            trophies[g, commander[g, a]] += held_trophies
        tally[g, col] += 1


def minimal_defence(
    officers: np.ndarray, regiments: np.ndarray, attack: np.ndarray, own: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The least defence worth ``attack[m]`` from free ``officers[m, N]`` and ``regiments[m]``: regiments first,
    then officers in seat order with family ``own[m]`` last. Returns (officers int[m, N], regiments int[m])."""
    arrays = [np.asarray(x) for x in (officers, regiments, attack, own)]
    if kernels.use(arrays[0].shape[0]) and all(x.dtype.kind == "i" for x in arrays):
        officers, regiments, attack, own = (np.ascontiguousarray(x, dtype=np.int64) for x in arrays)
        out, reg = np.empty_like(officers), np.empty_like(regiments)
        _defence_kernel(officers, regiments, attack, own, out, reg)
        return out, reg
    officers = officers.astype(np.int64)
    reg = np.minimum(regiments, np.maximum(attack, 0)).astype(np.int64)
    need = np.maximum(attack - reg, 0)
    last = np.arange(officers.shape[1])[None, :] == own[:, None]
    others = np.where(last, 0, officers)
    before = np.cumsum(others, axis=1) - others  # the officers committed ahead of each family's
    before = np.where(last, others.sum(axis=1)[:, None], before)
    return np.clip(need[:, None] - before, 0, officers), reg


@kernels.kernel
def _defence_kernel(officers, regiments, attack, own, out, reg):
    """``minimal_defence`` row by row: regiments first, then each family's officers in seat order, ``own`` last."""
    for i in range(officers.shape[0]):
        reg[i] = min(regiments[i], max(attack[i], 0))
        need = max(attack[i] - reg[i], 0)
        others = 0
        for s in range(officers.shape[1]):
            if s != own[i]:
                others += officers[i, s]
        before = 0
        for s in range(officers.shape[1]):
            ahead = others if s == own[i] else before
            out[i, s] = min(max(need - ahead, 0), officers[i, s])
            if s != own[i]:
                before += officers[i, s]


def lose_region(
    state: State,
    rules: Rules,
    dice: Chance,
    agents: Agents,
    rows: np.ndarray,
    region: np.ndarray,
    army: np.ndarray,
    shape: np.ndarray,
) -> None:
    """R-ATTACK: a Company region is lost (L212): the army's commander dies and his family returns ``lost_trophy_share``
    of its trophies (rounded up); the governor dies (``deposed``, blame situation 5); every other officer of the army
    rolls a d6 and dies from ``officer_death_on``; the region's orders close; it becomes sovereign at
    ``lost_region_strength`` without unrest; a crisis marker inside it marches on; stability -1, and at 0 the Company
    crashes and the game ends in this phase."""
    if rows.size == 0:
        return
    ind = rules.india
    if kernels.use(state.n_games):
        rows, region, army = (np.asarray(x, dtype=np.int64) for x in (rows, region, army))
        total = _commander_falls_kernel(
            state.commander, state.trophies, state.officers, state.supply, state.tally, state.governor,
            state.deposed, rows, region, army, ind.lost_trophy_share, TALLY["officers_killed"],
        )  # fmt: skip
        vacate_governor(state, rows, region)
        roll = np.flatnonzero(total > 0)
        faces = dice.d6(rows[roll], int(total.max()), used=total[roll]) if roll.size else np.zeros((0, 0), np.int8)
        at = np.full(rows.size, -1, dtype=np.int64)
        at[roll] = np.arange(roll.size)
        inside = _region_falls_kernel(
            state.officers, state.used_officers, state.supply, state.tally, state.owner, state.strength,
            state.capital, state.unrest, state.stability, state.elephant_at, state.elephant_facing, rows, region,
            army, faces, at, ind.officer_death_on, ind.lost_region_strength, TALLY["officers_killed"],
            TALLY["regions_lost"], TALLY["stability_change"], TALLY["stability_loss_regions"],
        )  # fmt: skip
        close_all(state, rules, rows, region, cascading=False)
        march(state, rules, rows[inside], region[inside], shape[inside])
        settle_army(state, rules, dice, agents, rows, army)
        live = np.zeros(state.n_games, dtype=bool)
        live[rows] = True
        crash(state, live)
        return
    n = state.n_players
    seats = np.arange(n)[None, :]
    cmd = state.commander[rows, army].astype(np.int64)
    c = np.flatnonzero(cmd >= 0)
    cr, cc, ca = rows[c], cmd[c], army[c]
    state.trophies[cr, cc] -= np.ceil(state.trophies[cr, cc] * ind.lost_trophy_share).astype(np.int32)
    state.officers[cr, cc, ca] -= 1
    state.supply[cr, cc] += 1
    state.commander[cr, ca] = -1
    state.tally[cr, TALLY["officers_killed"]] += 1
    gov = state.governor[rows, region].astype(np.int64)
    gv = np.flatnonzero(gov >= 0)
    state.deposed[rows[gv], gov[gv]] += 1
    vacate_governor(state, rows, region)
    # every remaining officer of the army rolls, seat by seat
    officers = state.officers[rows[:, None], seats, army[:, None]].astype(np.int64)  # [m, N]
    total = officers.sum(axis=1)
    roll = np.flatnonzero(total > 0)
    if roll.size:
        rr, off, tot = rows[roll], officers[roll], total[roll]
        width = int(tot.max())
        dead = (dice.d6(rr, width, used=tot) >= ind.officer_death_on) & (np.arange(width)[None, :] < tot[:, None])
        cum = np.concatenate([np.zeros((rr.size, 1), dtype=np.int64), np.cumsum(dead, axis=1)], axis=1)
        ends = np.cumsum(off, axis=1)
        deaths = np.take_along_axis(cum, ends, axis=1) - np.take_along_axis(cum, ends - off, axis=1)
        ra = army[roll]
        state.officers[rr[:, None], seats, ra[:, None]] -= deaths.astype(np.int32)
        state.supply[rr] += deaths.astype(np.int32)
        state.tally[rr, TALLY["officers_killed"]] += deaths.sum(axis=1).astype(np.int32)
    used = state.used_officers[rows[:, None], seats, army[:, None]]
    state.used_officers[rows[:, None], seats, army[:, None]] = np.minimum(
        used, state.officers[rows[:, None], seats, army[:, None]]
    )
    close_all(state, rules, rows, region, cascading=False)
    state.owner[rows, region] = -1
    state.strength[rows, region] = ind.lost_region_strength
    state.capital[rows, region] = region
    state.unrest[rows, region] = 0
    inside = (state.elephant_at[rows] == region) & (state.elephant_facing[rows] < 0)
    march(state, rules, rows[inside], region[inside], shape[inside])
    state.tally[rows, TALLY["regions_lost"]] += 1
    lowered = np.maximum(state.stability[rows] - 1, 0)
    lost = (lowered - state.stability[rows]).astype(np.int32)  # -1 (0 if it already stood at 0)
    state.stability[rows] = lowered
    state.tally[rows, TALLY["stability_change"]] += lost
    state.tally[rows, TALLY["stability_loss_regions"]] += lost
    settle_army(state, rules, dice, agents, rows, army)  # the next commander (also before a crash: its last state)
    live = np.zeros(state.n_games, dtype=bool)
    live[rows] = True
    crash(state, live)


@kernels.kernel
def _commander_falls_kernel(
    commander, trophies, officers, supply, tally, governor, deposed, rows, region, army, share, killed
):
    """``lose_region`` game by game up to the officers' rolls (rows are distinct games): the army's commander dies
    (his family returns ``share`` of its trophies, rounded up) and the governor counts as deposed. Returns int[m]
    the officers left in the army, who roll."""
    left = np.zeros(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        g, x, a = rows[i], region[i], army[i]
        c = commander[g, a]
        if c >= 0:
            trophies[g, c] -= np.int32(np.ceil(trophies[g, c] * share))
            officers[g, c, a] -= 1
            supply[g, c] += 1
            commander[g, a] = -1
            tally[g, killed] += 1
        if governor[g, x] >= 0:
            deposed[g, governor[g, x]] += 1
        for s in range(officers.shape[1]):
            left[i] += officers[g, s, a]
    return left


@kernels.kernel
def _region_falls_kernel(
    officers, used_officers, supply, tally, owner, strength, capital, unrest, stability, elephant_at,
    elephant_facing, rows, region, army, faces, at, death_on, lost_strength, killed, lost, change, loss_regions
):  # fmt: skip
    """``lose_region`` game by game from the officers' rolls (rows are distinct games; ``faces[at[i]]`` the dice of
    game ``rows[i]``, seat by seat, ``at[i]`` -1 without officers): the officers rolling ``death_on`` or more die,
    none stays used beyond those left, the region turns sovereign at ``lost_strength`` without unrest, stability
    -1. Returns bool[m]: the crisis marker stands inside the region."""
    inside = np.zeros(rows.shape[0], dtype=np.bool_)
    for i in range(rows.shape[0]):
        g, x, a = rows[i], region[i], army[i]
        if at[i] >= 0:
            die = 0
            for s in range(officers.shape[1]):
                dead = 0
                for _ in range(officers[g, s, a]):
                    if faces[at[i], die] >= death_on:
                        dead += 1
                    die += 1
                officers[g, s, a] -= dead
                supply[g, s] += dead
                tally[g, killed] += dead
        for s in range(officers.shape[1]):
            used_officers[g, s, a] = min(used_officers[g, s, a], officers[g, s, a])
        owner[g, x] = -1
        strength[g, x] = lost_strength
        capital[g, x] = x
        unrest[g, x] = 0
        inside[i] = elephant_at[g] == x and elephant_facing[g] < 0
        tally[g, lost] += 1
        if stability[g] > 0:
            stability[g] -= 1
            tally[g, change] -= 1
            tally[g, loss_regions] -= 1
    return inside


def revolt_wave(state: State, rules: Rules, dice: Chance, agents: Agents, ev: Event) -> None:
    """R-ATTACK: an attack on a Company region sets off a revolt in every other Company region with unrest, at strength
    = its unrest (L211; MAP.md), army by army from Bombay's, each army's regions in map order. Revolts set off no
    further wave."""
    rows = ev.rows[any_last(ev.attacked[ev.rows])]
    if rows.size == 0:
        return
    # A revolt changes only its own region's owner and unrest (and may end the game), so the regions that revolt
    # are known before the first one does; games do not meet, so the k-th revolt of every game is one attack.
    owner = state.owner[rows].astype(np.int64)
    restless = (state.unrest[rows] > 0) & ~ev.attacked[rows] & (owner >= 0)  # [m, R]
    count = restless.sum(axis=1)
    if not count.any():
        return
    n_r = owner.shape[1]
    turn = np.sort(np.where(restless, owner * n_r + np.arange(n_r), P * n_r), axis=1)  # army, then map order
    for k in range(int(count.max())):
        sel = (k < count) & ~state.done[rows]
        if not sel.any():
            continue
        rr = rows[sel]
        wave = replace(ev, rows=rr, attacked=ev.attacked.copy())
        attack_company(state, rules, dice, agents, wave, turn[sel, k] % n_r, np.zeros(rr.size), tally="revolts")
