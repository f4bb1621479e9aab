"""Questions about the board that several phases (and strategies) ask: counts, reachability, vacancies."""

from __future__ import annotations

import numpy as np

from . import layout as L
from .rules import Rules
from .state import TALLY, State


def seat_counts(holder: np.ndarray, n: int) -> np.ndarray:
    """int[G, N]: how many entries of an int8[G, K] holder array (-1 = nobody) each seat holds."""
    return (holder[:, :, None] == np.arange(n, dtype=holder.dtype)[None, None, :]).sum(axis=1)


def board_votes(state: State) -> np.ndarray:
    """int[G, N] shares per family with the Chairman's seat counted as one share (R-COMPANY)."""
    votes = state.shares.copy()
    chair = state.office[:, L.CHAIRMAN]
    rows = np.flatnonzero(chair >= 0)
    votes[rows, chair[rows]] += 1
    return votes


def reachable(rules: Rules, order_open: np.ndarray, blocked: np.ndarray | None = None) -> np.ndarray:
    """bool[G, P, O]: open orders each presidency reaches from its home port along links between open orders.

    Orders in another presidency's home region are never traded (R-TRADE, L180) and do not carry the route.
    ``blocked[G, O]`` removes further orders (e.g. already filled this round).
    """
    d = rules.d
    other_home = np.stack([np.isin(d.order_region, np.delete(d.home, p)) for p in range(L.PRESIDENCIES)])
    allowed = order_open[:, None, :] & ~other_home[None, :, :]  # [G, P, O]
    if blocked is not None:
        allowed = allowed & ~blocked[:, None, :]
    reach = np.zeros_like(allowed)
    for p in range(L.PRESIDENCIES):
        reach[:, p, d.port[p]] = allowed[:, p, d.port[p]]
    links = d.links.astype(np.uint8)
    for _ in range(len(d.orders)):
        grown = ((reach.astype(np.uint8) @ links) > 0) & allowed | reach
        if np.array_equal(grown, reach):
            break
        reach = grown
    return reach


def committee_vacancies(state: State, rules: Rules) -> np.ndarray:
    """int[G] vacant committee-head offices (phase 2 extra clerk); closed China/GG offices do not count."""
    heads = rules.d.committee_heads
    vacant = (state.office < 0) & heads[None, :]
    exists = np.ones_like(vacant)
    exists[:, L.CHINA] = state.china_open
    exists[:, L.GOVERNOR_GENERAL] = False  # the office exists only once its law passes (phase 9)
    return (vacant & exists).sum(axis=1)


def vacate(state: State, rows: np.ndarray, office: int) -> None:
    """The holder of ``office`` leaves it in games ``rows`` (fired or killed): his relative returns home."""
    rows = rows[state.office[rows, office] >= 0]
    if rows.size:
        state.supply[rows, state.office[rows, office]] += 1
        state.office[rows, office] = -1
        state.stress[rows, office] = 0
        state.tally[rows, TALLY["fired"]] += 1


def vacate_governor(state: State, rows: np.ndarray, region: np.ndarray | int) -> None:
    """The governors of ``region`` in games ``rows`` leave office (fired or killed)."""
    region = np.broadcast_to(region, rows.shape)
    held = state.governor[rows, region] >= 0
    rows, region = rows[held], region[held]
    if rows.size:
        state.supply[rows, state.governor[rows, region]] += 1
        state.governor[rows, region] = -1
        state.tally[rows, TALLY["fired"]] += 1


def check_outcome(rules: Rules, lowest: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """D-CHECK: (success, mishap) masks from the lowest die of a check."""
    return lowest <= rules.check.success_max, lowest >= rules.check.mishap_min


def company_ships(state: State) -> np.ndarray:
    """int[G, 4] ships per location (3 seas, China) of every kind, family-yard ships included."""
    return state.ships.sum(axis=2) + state.yard_ships.sum(axis=1)
