"""Phase 5, appointments to vacant offices in order (R-APPOINT, L110-L127).

The Chairman is elected by the board (>= 51 % of share votes); with no majority the family that held the chair
picks a board member; with an empty board a free relative of that family takes the chair. Every other office is
appointed, and nepotism applies: a family may not appoint its own relative unless every other family with a
candidate consents. An appointer's office that is vacant passes the choice to the Chairman, then to chance.

A candidate is (family, source): where the relative comes from (``layout.SRC_*``). He leaves that place; a holder
of another office leaves it vacant, to be filled later in the order.
"""

from __future__ import annotations

import numpy as np

from .. import kernels, laws, notes
from .. import layout as L
from ..agents import Agents, full_batch
from ..dice import Chance
from ..positions import waive_nepotism
from ..reduce import any_last, sum_last
from ..rules import Rules
from ..state import TALLY, State
from .military import settle_commanders

# the sources of a candidate (``layout.SRC_*``), as constants of the compiled ``_candidates``
SRC_CLERK0, SRC_OFFICER0, SRC_ACADEMY, SRC_OFFICE0, SRC_GOVERNOR0 = (
    L.SRC_CLERK[0], L.SRC_OFFICER[0], L.SRC_ACADEMY, L.SRC_OFFICE0, L.SRC_GOVERNOR0
)  # fmt: skip
assert tuple(range(SRC_CLERK0, SRC_CLERK0 + L.PRESIDENCIES)) == L.SRC_CLERK  # consecutive, presidency order
assert tuple(range(SRC_OFFICER0, SRC_OFFICER0 + L.PRESIDENCIES)) == L.SRC_OFFICER


def appointments(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    notes.deal(state, rules, dice, agents, "appointments")  # D-DEALS: notes sold before the appointments
    elect_chairman(state, rules, dice, agents)
    for office in (L.DIRECTOR, L.SHIPPING, L.MILITARY, *L.PRESIDENT):
        appoint_office(state, rules, dice, agents, office)
    for region in range(len(rules.d.regions)):
        appoint_governor(state, rules, dice, agents, region)
    appoint_office(state, rules, dice, agents, L.CHINA)
    appoint_office(state, rules, dice, agents, L.GOVERNOR_GENERAL)  # only once its law is in force (L126-L127)


# ----------------------------------------------------------------------------------------------- the Chairman
def elect_chairman(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    g, n = state.n_games, state.n_players
    vacant = ~state.done & (state.office[:, L.CHAIRMAN] < 0)
    if not vacant.any():
        return
    before = state.last_chair.copy()
    board = state.shares
    total = sum_last(board)
    empty = total == 0
    electing = vacant & ~empty
    candidates = board > 0
    chosen = np.full(g, -1, dtype=np.int64)
    if electing.any():

        def check(c, legal, obs):
            cc = np.clip(c, 0, obs.players - 1)
            return (c < 0) | (c >= obs.players) | ~legal.candidates[np.arange(obs.n), cc], "not a board member's family"

        vote = np.full((g, n), -1, dtype=np.int64)  # sealed: every board member at once
        agents.ask_seats(
            "vote_chairman", state, electing[:, None] & candidates, {"candidates": candidates}, {}, (vote,), check
        )
        cast = vote >= 0  # each board member's relatives vote for the family he named
        at = (np.arange(g)[:, None] * n + vote)[cast]
        votes = np.bincount(at, board[cast], g * n).astype(np.int64).reshape(g, n)
        share = votes.max(axis=1)
        majority = electing & (share >= rules.company.chairman_vote * total - 1e-9)
        chosen = np.where(majority, votes.argmax(axis=1), -1)
        # no majority: the family that held the chair picks a board member (at random if there is none)
        hung = electing & ~majority
        picker = np.where(hung, state.last_chair, -1)
        agents.ask("choose_chairman", state, picker, {"candidates": candidates}, (chosen,), check)
        blind = np.flatnonzero(hung & (state.last_chair < 0))
        if blind.size:
            chosen[blind] = dice.pick(blind, candidates[blind])
        seated = np.flatnonzero(electing)
        state.shares[seated, chosen[seated]] -= 1
        state.office[seated, L.CHAIRMAN] = chosen[seated]
    # empty board: a free relative of the family that held the chair
    fallback = vacant & empty & (state.last_chair >= 0)
    rows = np.flatnonzero(fallback)
    rows = rows[state.supply[rows, state.last_chair[rows]] > 0]
    state.supply[rows, state.last_chair[rows]] -= 1
    state.office[rows, L.CHAIRMAN] = state.last_chair[rows]
    seated = state.office[:, L.CHAIRMAN] >= 0
    state.last_chair[seated] = state.office[seated, L.CHAIRMAN]
    # the chair changed hands: another family than the last one now holds it (rounds frame)
    state.tally[:, TALLY["chair_changed"]] += (vacant & seated & (state.office[:, L.CHAIRMAN] != before)).astype(
        np.int32
    )


# ------------------------------------------------------------------------------------------------ candidates
# the offices whose holders may be appointed Director, and Governor-General
DIRECTOR_FROM = (L.SHIPPING, L.MILITARY, *L.PRESIDENT, L.CHINA, L.GOVERNOR_GENERAL)
GOVERNOR_GENERAL_FROM = (L.DIRECTOR, L.SHIPPING, L.MILITARY, *L.PRESIDENT, L.CHINA)


def candidates(state: State, rules: Rules, office: int, rows: np.ndarray | None = None) -> np.ndarray:
    """bool[G, N, SOURCES]: who may be appointed to ``office`` and from where (R-APPOINT). ``rows``: the games whose
    candidates are needed (the others may be left without any); all by default."""
    g, n = state.n_games, state.n_players
    n_r = len(rules.d.regions)
    cand = np.zeros((g, n, L.n_sources(n_r)), dtype=bool)
    if rows is None:
        rows = np.arange(g)
    if kernels.use(rows.size):
        if office == L.DIRECTOR:
            mode, holders = _HOLDERS, DIRECTOR_FROM
        elif office == L.GOVERNOR_GENERAL:
            mode, holders = _HOLDERS, GOVERNOR_GENERAL_FROM
        elif office == L.MILITARY:
            mode, holders = _ARMY, ()
        elif office in L.PRESIDENT:
            mode, holders = _PRESIDENCY, ()
        else:
            mode, holders = (_CLERKS if office in (L.SHIPPING, L.CHINA) else -1), ()
        fallback = office == L.DIRECTOR or rules.governor_general.candidates_fallback == "clerks"
        p = L.PRESIDENT.index(office) if office in L.PRESIDENT else 0
        _candidates(
            cand,
            rows,
            mode,
            p,
            np.array(holders, dtype=np.int64),
            fallback,
            state.office,
            state.clerks,
            state.commander,
            state.officers,
            state.academy,
            state.owner,
            state.governor,
        )
        return cand
    rows = np.arange(g)
    clerks = state.clerks > 0

    def any_clerk() -> None:
        for p in range(L.PRESIDENCIES):
            cand[:, :, L.SRC_CLERK[p]] = clerks[:, :, p]

    if office == L.DIRECTOR:
        # holders of other offices except the Chairman (and governors); none: any clerk
        for o in DIRECTOR_FROM:
            held = state.office[:, o] >= 0
            cand[rows[held], state.office[held, o], L.SRC_OFFICE0 + o] = True
        nobody = ~any_last(cand.reshape(g, -1))
        for p in range(L.PRESIDENCIES):
            cand[:, :, L.SRC_CLERK[p]] = clerks[:, :, p] & nobody[:, None]
    elif office in (L.SHIPPING, L.CHINA):
        any_clerk()
    elif office == L.MILITARY:
        # army commanders; else officers; else the academy
        for a in range(L.PRESIDENCIES):
            held = state.commander[:, a] >= 0
            cand[rows[held], state.commander[held, a], L.SRC_OFFICER[a]] = True
        nobody = ~any_last(cand.reshape(g, -1))
        for a in range(L.PRESIDENCIES):
            cand[:, :, L.SRC_OFFICER[a]] |= (state.officers[:, :, a] > 0) & nobody[:, None]
        nobody = ~any_last(cand.reshape(g, -1))
        cand[:, :, L.SRC_ACADEMY] = (state.academy > 0) & nobody[:, None]
    elif office == L.GOVERNOR_GENERAL:
        # L127: the heads of the other committees, not the Chairman; none: any clerk (2e), or nobody
        for o in GOVERNOR_GENERAL_FROM:
            held = state.office[:, o] >= 0
            cand[rows[held], state.office[held, o], L.SRC_OFFICE0 + o] = True
        if rules.governor_general.candidates_fallback == "clerks":
            nobody = ~any_last(cand.reshape(g, -1))
            for p in range(L.PRESIDENCIES):
                cand[:, :, L.SRC_CLERK[p]] = clerks[:, :, p] & nobody[:, None]
    elif office in L.PRESIDENT:
        # that presidency's clerks or the governors of its regions
        p = L.PRESIDENT.index(office)
        cand[:, :, L.SRC_CLERK[p]] = clerks[:, :, p]
        for r in range(len(rules.d.regions)):
            held = (state.owner[:, r] == p) & (state.governor[:, r] >= 0)
            cand[rows[held], state.governor[held, r], L.SRC_GOVERNOR0 + r] = True
    return cand


# how ``_candidates`` finds an office's candidates
_HOLDERS, _CLERKS, _ARMY, _PRESIDENCY = range(4)


@kernels.kernel
def _candidates(
    cand: np.ndarray,
    rows: np.ndarray,
    mode: int,
    p: int,
    holders: np.ndarray,
    fallback: bool,
    office: np.ndarray,
    clerks: np.ndarray,
    commander: np.ndarray,
    officers: np.ndarray,
    academy: np.ndarray,
    owner: np.ndarray,
    governor: np.ndarray,
) -> None:
    """``candidates`` game by game in games ``rows``, into ``cand`` (all False): ``_HOLDERS`` the holders of the
    offices ``holders``, else (``fallback``) any clerk; ``_CLERKS`` any clerk; ``_ARMY`` the army commanders, else
    the officers, else the academy; ``_PRESIDENCY`` presidency ``p``'s clerks and the governors of its regions."""
    n = cand.shape[1]
    presidencies = clerks.shape[2]
    for r in rows:
        found = False
        if mode == _HOLDERS:
            for o in holders:
                h = office[r, o]
                if h >= 0:
                    cand[r, h, SRC_OFFICE0 + o] = True
                    found = True
        elif mode == _ARMY:
            for a in range(commander.shape[1]):
                h = commander[r, a]
                if h >= 0:
                    cand[r, h, SRC_OFFICER0 + a] = True
                    found = True
            if not found:
                for f in range(n):
                    for a in range(officers.shape[2]):
                        if officers[r, f, a] > 0:
                            cand[r, f, SRC_OFFICER0 + a] = True
                            found = True
            if not found:
                for f in range(n):
                    cand[r, f, SRC_ACADEMY] = academy[r, f] > 0
        elif mode == _PRESIDENCY:
            for f in range(n):
                cand[r, f, SRC_CLERK0 + p] = clerks[r, f, p] > 0
            for region in range(owner.shape[1]):
                h = governor[r, region]
                if owner[r, region] == p and h >= 0:
                    cand[r, h, SRC_GOVERNOR0 + region] = True
        if mode == _CLERKS or (mode == _HOLDERS and fallback and not found):
            for f in range(n):
                for q in range(presidencies):
                    cand[r, f, SRC_CLERK0 + q] = clerks[r, f, q] > 0


def governor_candidates(state: State, presidency: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """bool[G, N, SOURCES] for a governor in games ``rows`` (none elsewhere): officers of the presidency's army or
    its clerks (per game presidency)."""
    cand = np.zeros((state.n_games, state.n_players, L.n_sources(state.owner.shape[1])), dtype=bool)
    for p in range(L.PRESIDENCIES):
        at = rows[presidency[rows] == p]
        cand[at, :, L.SRC_CLERK[p]] = state.clerks[at, :, p] > 0
        cand[at, :, L.SRC_OFFICER[p]] = state.officers[at, :, p] > 0
    return cand


# ------------------------------------------------------------------------------------------------- appointing
def appoint_office(state: State, rules: Rules, dice: Chance, agents: Agents, office: int) -> None:
    vacant = ~state.done & (state.office[:, office] < 0)
    if office == L.CHINA:
        vacant &= state.china_open
    if office == L.GOVERNOR_GENERAL:
        vacant &= laws.flag(state, rules, "governor_general")
    if not vacant.any():
        return
    if office in L.PRESIDENT:
        appointer = state.office[:, L.DIRECTOR]
    else:
        appointer = state.office[:, L.CHAIRMAN]
    cand = candidates(state, rules, office, np.flatnonzero(vacant))  # only the vacant offices' games are asked
    family, source = choose(state, rules, dice, agents, office, vacant, appointer, cand)
    stress = seat_relative(state, rules, dice, agents, family, source)
    rows = np.flatnonzero(family >= 0)
    state.office[rows, office] = family[rows]
    state.stress[rows, office] = stress[rows]


def appoint_governor(state: State, rules: Rules, dice: Chance, agents: Agents, region: int) -> None:
    presidency = state.owner[:, region]
    vacant = ~state.done & (presidency >= 0) & (state.governor[:, region] < 0)
    if not vacant.any():
        return
    president = np.full(state.n_games, -1, dtype=np.int8)
    for p in range(L.PRESIDENCIES):
        president = np.where(presidency == p, state.office[:, L.PRESIDENT[p]], president)
    if rules.governors.appointer == "chairman":  # D-GOV-APPOINT
        appointer = state.office[:, L.CHAIRMAN]
    else:
        appointer = np.where(president >= 0, president, state.office[:, L.CHAIRMAN])
    cand = governor_candidates(state, presidency, np.flatnonzero(vacant))
    family, source = choose(state, rules, dice, agents, -1 - region, vacant, appointer, cand)
    seat_relative(state, rules, dice, agents, family, source)
    rows = np.flatnonzero(family >= 0)
    state.governor[rows, region] = family[rows]


def choose(
    state: State,
    rules: Rules,
    dice: Chance,
    agents: Agents,
    office: int,
    vacant: np.ndarray,
    appointer: np.ndarray,
    cand: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The appointer's pick under nepotism; ``office`` < 0 means the governor of region -1 - office.

    Returns family and source per game (-1 where nobody is appointed)."""
    g, n = state.n_games, state.n_players
    s = cand.shape[2]
    family = np.full(g, -1, dtype=np.int64)
    source = np.full(g, -1, dtype=np.int64)
    rows = np.flatnonzero(vacant)  # the work is done at the open games only (an office is vacant in a few)
    has_cand = any_last(cand[rows])  # [R, N]
    open_ = any_last(has_cand)
    rows, has_cand = rows[open_], has_cand[open_]
    if rows.size == 0:
        return family, source
    appointer = appointer[rows]
    appointer = np.where(appointer >= 0, appointer, state.office[rows, L.CHAIRMAN])  # -1: nobody appoints
    office_arr = np.full(g, office)

    def check(answer, legal, obs):
        f, src = answer
        ok = (f >= 0) & (f < obs.players) & (src >= 0) & (src < s)
        fc, sc = np.clip(f, 0, obs.players - 1), np.clip(src, 0, s - 1)
        return ~ok | ~legal.candidates[np.arange(obs.n), fc, sc], "not one of the candidates"

    ask = full_batch(g, rows, appointer, -1, appointer.dtype)
    agents.ask("appoint", state, ask, {"office": office_arr, "candidates": cand}, (family, source), check)
    # nepotism: his own relative needs the consent of every other family with a candidate, unless he plays a
    # position card that waives it (D-POSITIONS "ignore_nepotism")
    own = (appointer >= 0) & (family[rows] == appointer)
    others = has_cand & (np.arange(n)[None, :] != appointer[:, None])
    own &= ~waive_nepotism(
        state, rules, agents, ask, full_batch(g, rows, own & any_last(others), False, bool), office_arr
    )[rows]
    refused = np.zeros(rows.size, dtype=bool)
    needs = others & own[:, None]  # [R, N]: the consents to ask
    # every family at the table refuses (the engine's default): nobody to ask, the asks counted for all seats at once
    passing = needs.any() and agents.all_pass("consent", full_batch(g, rows, sum_last(needs), 0, np.int32))
    for seat in range(n):
        need = needs[:, seat]
        if not need.any():
            continue
        consent = np.zeros(g, dtype=bool)
        need_g = full_batch(g, rows, need, False, bool)
        if not passing:
            legal = {"office": office_arr, "appointer": ask, "candidates": cand}
            agents.ask("consent", state, np.where(need_g, seat, -1), legal, (consent,))
        consent |= notes.consent_by_note(state, rules, ask, seat, need_g & ~consent)  # a kind-2 note
        refused |= need & ~consent[rows]
    if refused.any():
        again = rows[refused]
        mine = cand[again, ask[again]]  # his own relatives, out of the choice for this ask only
        cand[again, ask[again]] = False
        agents.ask(
            "appoint",
            state,
            full_batch(g, again, ask[again], -1, ask.dtype),
            {"office": office_arr, "candidates": cand},
            (family, source),
            check,
        )
        cand[again, ask[again]] = mine
    # nobody to appoint: chance picks among the candidates
    blind = rows[appointer < 0]
    if blind.size:
        flat = dice.pick(blind, cand[blind].reshape(blind.size, -1))
        family[blind], source[blind] = flat // s, flat % s
    return family, source


def seat_relative(
    state: State, rules: Rules, dice: Chance, agents: Agents, family: np.ndarray, source: np.ndarray
) -> np.ndarray:
    """Take the appointed relatives out of the places they came from; returns the stress markers an office
    holder carries with him to his new office (int8[G])."""
    stress = np.zeros(state.n_games, dtype=np.int8)
    rows = np.flatnonzero(family >= 0)
    if rows.size == 0:
        return stress
    f, src = family[rows], source[rows]
    clerk = src < L.SRC_OFFICER[0]
    state.clerks[rows[clerk], f[clerk], src[clerk]] -= 1
    officer = (src >= L.SRC_OFFICER[0]) & (src < L.SRC_ACADEMY)
    state.officers[rows[officer], f[officer], src[officer] - L.SRC_OFFICER[0]] -= 1
    academy = src == L.SRC_ACADEMY
    state.academy[rows[academy], f[academy]] -= 1
    office = (src >= L.SRC_OFFICE0) & (src < L.SRC_GOVERNOR0)
    stress[rows[office]] = state.stress[rows[office], src[office] - L.SRC_OFFICE0]
    state.office[rows[office], src[office] - L.SRC_OFFICE0] = -1
    state.stress[rows[office], src[office] - L.SRC_OFFICE0] = 0
    gov = src >= L.SRC_GOVERNOR0
    state.governor[rows[gov], src[gov] - L.SRC_GOVERNOR0] = -1
    if not rules.governors.half_ship_inherited:  # his half-built ship is lost with him
        state.half_ships[rows[gov], src[gov] - L.SRC_GOVERNOR0] = 0
    if officer.any():
        settle_commanders(state, rules, dice, agents, rows[officer])
    return stress
