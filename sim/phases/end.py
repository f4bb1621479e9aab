"""End of the game (R-END, L248-L261): share VP, the public-blame situation on a crash, the final retirement on a
success, influence ranking VP, and the winner. Every VP source is kept separately in ``state.vp``.

Firms: their shares score by the firm's value (``firms.share_vp``), debtors' prison -1 VP per relative,
both cancelled by blame situation 6; firms that paid a dividend allow a final retirement, crash or success (L257,
``firm_final_retirements``).

On a success the shareholders score before the final retirement roll (L256: "акционеры компании получают ПО, а
также делается финальная отставка"): a Chairman who retires at the end keeps the chair's share VP. Influence is
counted after it (L258 "Также подсчитывается количество Влияния").
"""

from __future__ import annotations

import numpy as np

from .. import firms as firm_rules
from .. import layout as L
from ..agents import Agents
from ..board import board_votes, seat_counts
from ..dice import Chance
from ..positions import influence as position_influence
from ..rules import Rules
from ..state import State
from .london import retirement_roll, special_retirements

V = {name: i for i, name in enumerate(L.VP_SOURCES)}
MILITARY, SHIPBUILDERS, BOARD, PARLIAMENT, DESPOTS, INDUSTRIALISTS = range(6)


def end_game(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Finish every game of the batch: games still running survived the last round (success)."""
    running = ~state.done
    state.end_round[running] = rules.game.rounds
    state.done[:] = True
    share_votes = board_votes(state)  # L256: the shareholders score before the final retirement
    success = np.flatnonzero(~state.crashed)
    if success.size:
        retirement_roll(state, rules, dice, agents, success, final=True)  # the final retirement, without positions
    firm_final_retirements(state, rules, dice, agents)  # L257, crash or success
    crash = np.flatnonzero(state.crashed)
    if crash.size:
        state.blame[crash] = dice.weighted(crash, rules.d.blame_p)
    score(state, rules, share_votes)
    pick_winner(state, dice)


def firm_final_retirements(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """R-FIRMS, seed 000 L257 (2e "最後計分時的商行"): firms that paid a dividend or held their level allow a final
    retirement whether the Company crashed or survived. ``firms.final_retirement = "special"`` (default, 2e): each
    family with a share in such a firm retires one relative from home into a tier costing at most the firm's dividend
    level (a special retirement, ``london.special_retirements``, without a position). ``"roll"``: in a crashed game
    those families' office holders make the final retirement roll that a successful game gives everybody (L256)."""
    cap = firm_rules.dividend_cap(state)  # [G, N]
    eligible = cap >= int(rules.d.tier_cost.min())
    if not eligible.any():
        return
    if rules.firms.final_retirement == "special":
        rows = np.flatnonzero(eligible.any(axis=1))
        spent = np.zeros(state.money.shape, dtype=np.int64)
        special_retirements(state, rules, agents, rows, spent, spent.copy(), final=True)
    else:
        rows = np.flatnonzero(state.crashed & eligible.any(axis=1))
        if rows.size:
            retirement_roll(state, rules, dice, agents, rows, final=True, families=eligible)


def influence(state: State, rules: Rules) -> np.ndarray:
    """int[G, N]: PM seat, wreaths, trophies, property by the influence ladder (L258; shares include the chair) and
    permanent position cards (D-POSITIONS). The ladder is the game's (``state.ladder``, moved by power policies in
    phase 9), starting at ``end.influence_ladder``."""
    e = rules.end
    n = state.n_players
    pm = state.prime_minister[:, None] == np.arange(n)[None, :]
    ladder = state.ladder.astype(np.int64)[:, None, :]  # [G, 1, 4] rules.ASSETS order
    return (
        e.influence_pm * pm
        + e.influence_wreath * state.wreaths
        + e.influence_trophy * state.trophies
        + ladder[:, :, 0] * state.luxuries
        + ladder[:, :, 1] * board_votes(state)
        + ladder[:, :, 2] * state.shipyards
        + ladder[:, :, 3] * firm_rules.voting_factories(state, rules)  # L79, D-INVESTED-FACTORY
        + position_influence(state, rules)
    )


def ranking_vp(rules: Rules, infl: np.ndarray, end_round: np.ndarray) -> np.ndarray:
    """Influence VP (first / second by the round the game ended); a tie for first gives all tied second's VP."""
    bands = rules.end.influence_vp
    last = np.array([b.last_round for b in bands])
    band = np.minimum(np.searchsorted(last, end_round, side="left"), len(bands) - 1)
    first = np.array([b.first for b in bands])[band][:, None]
    second = np.array([b.second for b in bands])[band][:, None]
    top = infl.max(axis=1, keepdims=True)
    at_top = infl == top
    shared = at_top.sum(axis=1, keepdims=True) > 1
    below = np.where(at_top, -(1 << 30), infl)
    runner = (infl == below.max(axis=1, keepdims=True)) & ~at_top
    return np.where(at_top, np.where(shared, second, first), np.where(runner & ~shared, second, 0))


def score(state: State, rules: Rules, share_votes: np.ndarray | None = None) -> None:
    """Fill ``state.vp[G, N, source]`` (R-END). Assumes every game is done. ``share_votes[G, N]``: the shares (chair
    included) that score, as they stood before the final retirement (default: as they stand now)."""
    d, pr = rules.d, rules.property
    vp = np.zeros(state.vp.shape, dtype=np.float64)
    crashed = state.crashed[:, None]
    blame = state.blame[:, None]
    vp[:, :, V["luxury"]] = rules.actions.luxury_vp * state.luxuries
    vp[:, :, V["retirements"]] = (state.retired * d.tier_vp).sum(axis=2)
    shares = board_votes(state) if share_votes is None else share_votes
    sign = np.where(crashed & (blame != BOARD), -1, 1)
    vp[:, :, V["company_shares"]] = sign * state.share_vp[:, None] * shares
    industrial_blame = crashed & (blame == INDUSTRIALISTS)
    vp[:, :, V["factories"]] = np.where(crashed & ~industrial_blame, pr.factory_crash_vp * state.factories, 0)
    vp[:, :, V["debtors_prison"]] = np.where(industrial_blame, 0, rules.firms.prison_vp * state.prisoners)
    vp[:, :, V["firm_shares"]] = np.where(industrial_blame, 0, firm_rules.share_vp(state, rules))
    infl = influence(state, rules)
    state.influence[:] = infl
    vp[:, :, V["influence"]] = ranking_vp(rules, infl, state.end_round)
    vp[:, :, V["blame"]] = np.where(crashed, blame_vp(state, rules), 0)
    state.vp[:] = vp


def blame_vp(state: State, rules: Rules) -> np.ndarray:
    """float[G, N] VP lost to the public-blame situation drawn (L250-L255); 0 for situations 3 and 6, whose
    effect is on the share and factory sources."""
    e = rules.end
    n = state.n_players
    blame = state.blame[:, None]
    # L250 "trophies, officers and commanders together": a commander is one of his army's officers, counted once
    military = -((state.trophies + state.officers.sum(axis=2)) // 2)
    pm = state.prime_minister[:, None] == np.arange(n)[None, :]
    parliament = -(state.wreaths + e.blame_pm_extra * pm)
    governors = seat_counts(state.governor, n)
    gg = state.office[:, L.GOVERNOR_GENERAL][:, None] == np.arange(n)[None, :]
    despots = -(e.blame_governor * (governors + state.deposed) + e.blame_governor_general * gg)
    out = np.zeros(state.money.shape, dtype=np.float64)
    out = np.where(blame == MILITARY, military, out)
    out = np.where(blame == SHIPBUILDERS, -state.shipyards, out)
    out = np.where(blame == PARLIAMENT, parliament, out)
    out = np.where(blame == DESPOTS, despots, out)
    return out


def pick_winner(state: State, dice: Chance) -> None:
    """Most VP; ties broken by conspicuous wealth, then money, then chance."""
    total = state.vp.sum(axis=2)
    best = total == total.max(axis=1, keepdims=True)
    for tiebreak in (state.wealth, state.money):
        masked = np.where(best, tiebreak, np.iinfo(np.int32).min)
        best &= masked == masked.max(axis=1, keepdims=True)
    state.winner[:] = dice.pick(np.arange(state.n_games), best)
