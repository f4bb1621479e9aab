"""Phase 1, the London season (R-RETIRE, D-POSITIONS, seed 000 L58-L74), and the retirement roll it shares with the
final retirement at the end of a successful game (R-END, L256).

Round 1 only reveals the position cards on display (L58). From round 2 (L61-L74):
1. every holder of a rolling office (D-RETIRE-OFFICES) rolls d6 + 1 per stress marker (+1 for the Chairman, L62):
   5-6 he retires and the office falls vacant, 3-4 he gains a stress marker, 1-2 nothing. The GM rolls for
   everybody at once (L63), office by office in the layout's order;
2. each retiree's family buys him one of the honourable retirements it can afford (tier cost, upkeep per round,
   conspicuous wealth, VP at the end if still retired: 2/0/0/0 ... 20/4/4/12) or sends him home unpaid, back to
   its supply (decision ``retire``, asked per retiree in office order, L64-L71);
   2b. once firms act, every family holding a share of a firm with a dividend level may retire one
   relative from home into a tier costing at most that level (L197, ``special_retirements``);
3. the families that paid at least one honourable retirement this round each take one card on display, the most
   £ spent on retirements this round first, ties by conspicuous wealth, then the Prime Minister's family decides
   (L72-L74, ``sim.positions.pick_order`` / ``take_positions``);
4. the display is refilled to ``positions.revealed`` cards from the deck.
The final retirement (L256) is the same roll and the same choice without positions; firms allow a final special
retirement, crash or success (L257, ``end.firm_final_retirements``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import firms as firm_rules
from .. import kernels, laws, ledger
from .. import layout as L
from .. import positions as pos
from ..agents import Agents
from ..dice import Chance
from ..reduce import any_last
from ..rules import Rules
from ..state import TALLY, State


@dataclass
class Retirements:
    """What a retirement roll did: retirees per game, and per family the £ spent on honourable retirements and how
    many it paid (the right to a position, L72)."""

    count: np.ndarray  # int[G]
    spent: np.ndarray  # int[G, N]
    honoured: np.ndarray  # int[G, N]


def london_season(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Phase 1 (L58-L74): retirements from round 2, positions taken, the display refilled."""
    live = ~state.done
    rolling = np.flatnonzero(live & (state.round >= 2))
    if rolling.size:
        result = retirement_roll(state, rules, dice, agents, rolling)
        firming = rolling[firm_rules.active(state)[rolling]]  # special retirements firms allow (L197)
        if firming.size:
            special_retirements(state, rules, agents, firming, result.spent, result.honoured, final=False)
        eligible = result.honoured > 0  # L72: who paid at least one honourable retirement this round
        if eligible.any():
            order = pos.pick_order(state, rules, dice, agents, eligible, result.spent)
            pos.take_positions(state, rules, agents, order)
    pos.refill_market(state, rules, live)


def retirement_roll(
    state: State,
    rules: Rules,
    dice: Chance,
    agents: Agents,
    rows: np.ndarray,
    final: bool = False,
    families: np.ndarray | None = None,
) -> Retirements:
    """R-RETIRE for games ``rows``: first every holder of a retiring office rolls d6 (+1 per stress marker, the
    Chairman +1): 5-6 retires, 3-4 gains a stress marker; then, office by office, each retiree's family buys him an
    honourable retirement tier it can afford (decision ``retire``) or sends him home unpaid. ``final``: the end of
    a successful game (no position is won, no upkeep follows). ``families`` (bool[G, N]): only those families'
    office holders roll (the final retirement firms allow on a crash, ``firms.final_retirement = "roll"``)."""
    g, n = state.n_games, state.n_players
    d = rules.d
    in_rows = np.zeros(g, dtype=bool)
    in_rows[rows] = True
    # 1. the GM rolls for everybody at once (L63): one die per holder, in office order
    leaves = np.zeros((g, L.N_OFFICES), dtype=bool)
    offices = np.flatnonzero(d.retire_offices)
    holding = in_rows[:, None] & (state.office[:, offices] >= 0)  # [G, K]
    if families is not None:  # only these families' office holders roll (firms.final_retirement "roll")
        holder = np.maximum(state.office[:, offices], 0).astype(np.int64)
        holding &= np.take_along_axis(families, holder, axis=1)
    count = holding.sum(axis=1)
    rolling = np.flatnonzero(count > 0)
    if rolling.size:
        k = int(count.max())
        faces = dice.d6(rolling, k, used=count[rolling]).astype(np.int64)  # game's j-th die: its j-th holder
        retiring, gained = roll_outcomes(state.stress, rules, rolling, offices, holding[rolling], faces)
        leaves[rolling[:, None], offices[None, :]] = retiring
        if not final:  # Tenure Limits in force (phase 9's law): the Chairman retires whatever his roll
            tenure = laws.flag(state, rules, "chairman_retires")[rolling] & (state.office[rolling, L.CHAIRMAN] >= 0)
            leaves[rolling[tenure], L.CHAIRMAN] = True
        state.tally[rolling, TALLY["stress_markers"]] += gained.astype(np.int32)
    # 2. the families send their retirees somewhere (L64-L71), office by office in each game: the j-th retiree of
    # every game at once (the games are independent), on the rows of the games that have one only
    spent = np.zeros((g, n), dtype=np.int64)
    honoured_by = np.zeros((g, n), dtype=np.int64)
    can_pick = (state.market >= 0).any(axis=1) & (not final)
    count = leaves.sum(axis=1)
    nth = np.cumsum(leaves, axis=1) - 1  # [G, OFF]: each retiree's place in his game's office order
    for j in range(int(count.max(initial=0))):
        this = leaves & (nth == j)
        going = np.flatnonzero(any_last(this))
        office = this[going].argmax(axis=1)
        family = state.office[going, office].astype(np.int64)
        pick = can_pick[going] & (honoured_by[going, family] == 0)
        honoured = honour(state, rules, agents, going, family, office, final, pick, spent, honoured_by)
        home = ~honoured
        state.supply[going[home], family[home]] += 1
        state.office[going, office] = -1
        state.stress[going, office] = 0
    state.tally[:, TALLY["retirements"]] += count.astype(np.int32)
    state.tally[:, TALLY["honourable_retirements"]] += honoured_by.sum(axis=1).astype(np.int32)
    state.tally[:, TALLY["sent_home"]] += (count - honoured_by.sum(axis=1)).astype(np.int32)
    return Retirements(count=count, spent=spent, honoured=honoured_by)


def roll_outcomes(
    stress: np.ndarray, rules: Rules, rows: np.ndarray, offices: np.ndarray, held: np.ndarray, faces: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The retirement roll's outcomes (R-RETIRE, L61-L63) in games ``rows``: ``held[m, j]`` whether office
    ``offices[j]`` has a holder who rolls, ``faces[m]`` the game's dice, its i-th die for its i-th holder in office
    order. A holder's roll is his die + ``stress_bonus`` per stress marker (+ ``chairman_bonus`` for the Chairman):
    from ``retire_from`` he retires, from ``stress_from`` he gains a stress marker (``stress`` int8[G, OFF] is
    updated). Returns (bool[G', K] retiring, int[G'] stress markers gained)."""
    rt = rules.retirement
    chair = rt.chairman_bonus * (offices == L.CHAIRMAN)
    if kernels.use(rows.size):
        return _roll_outcomes(
            stress, rows, offices, held, faces, chair, rt.stress_bonus, rt.retire_from, rt.stress_from
        )
    k = faces.shape[1]
    nth = np.clip(np.cumsum(held, axis=1) - 1, 0, k - 1)
    roll = np.take_along_axis(faces, nth, axis=1)
    roll += rt.stress_bonus * stress[rows][:, offices] + chair
    stressed = held & (roll >= rt.stress_from) & (roll < rt.retire_from)
    stress[rows[:, None], offices[None, :]] += stressed.astype(stress.dtype)
    return held & (roll >= rt.retire_from), stressed.sum(axis=1)


@kernels.kernel
def _roll_outcomes(
    stress: np.ndarray,
    rows: np.ndarray,
    offices: np.ndarray,
    held: np.ndarray,
    faces: np.ndarray,
    chair: np.ndarray,
    stress_bonus: int,
    retire_from: int,
    stress_from: int,
) -> tuple[np.ndarray, np.ndarray]:
    """``roll_outcomes`` in one pass over the holders."""
    g, k = held.shape
    retiring = np.zeros((g, k), dtype=np.bool_)
    gained = np.zeros(g, dtype=np.int64)
    for m in range(g):
        r = rows[m]
        die = 0
        for j in range(k):
            if held[m, j]:
                roll = faces[m, die] + stress_bonus * np.int64(stress[r, offices[j]]) + chair[j]
                die += 1
                if roll >= retire_from:
                    retiring[m, j] = True
                elif roll >= stress_from:
                    stress[r, offices[j]] += 1
                    gained[m] += 1
    return retiring, gained


def honour(
    state: State,
    rules: Rules,
    agents: Agents,
    rows: np.ndarray,
    family: np.ndarray,
    office: int | np.ndarray,
    final: bool,
    pick: np.ndarray,
    spent: np.ndarray,
    honoured_by: np.ndarray,
    cap: np.ndarray | None = None,
) -> np.ndarray:
    """One relative's honourable retirement (L64-L71) in each of the games ``rows`` (distinct, ascending): the
    family ``family[m]`` of game ``rows[m]`` picks a tier it can afford, or none (decision ``retire``); the tier's
    cost is paid, its wealth counts, the relative is retired (the caller takes him from where he was). ``office``
    the office he leaves (``office[m]``, or one for all), -1 for a firm's special retirement of a relative from
    home, whose tier costs at most ``cap[m]`` (L197). ``pick[m]``: paying gives the family a position pick (L72).
    Updates ``spent`` and ``honoured_by`` (int[G, N]); returns bool[len(rows)]: retired honourably.

    The question is put in full-batch arrays filled at ``rows`` only (nobody else is asked)."""
    g = state.n_games
    d = rules.d
    money = state.money[rows, family]
    limit = money if cap is None else np.minimum(money, cap)
    affordable = np.zeros((g, d.tier_cost.size), dtype=bool)
    affordable[rows] = limit[:, None] >= d.tier_cost[None, :]
    decider = np.full(g, -1, dtype=np.int64)
    decider[rows] = family
    picks = np.zeros(g, dtype=bool)
    picks[rows] = pick
    tier = np.full(g, -1, dtype=np.int64)

    def check(t, legal, obs):
        tc = np.clip(t, 0, legal.affordable.shape[1] - 1)
        bad = (t < -1) | (t >= legal.affordable.shape[1])
        return bad | ((t >= 0) & ~legal.affordable[np.arange(obs.n), tc]), "tier not affordable"

    offices = np.full(g, -1, dtype=np.int64)
    offices[rows] = office
    legal = {
        "office": offices,
        "affordable": affordable,
        "final": np.full(g, final),
        "pick": picks,
        "special": offices < 0,
    }
    agents.ask("retire", state, decider, legal, (tier,), check)
    tier = tier[rows]
    honoured = tier >= 0
    if honoured.any():
        hr, fam, t = rows[honoured], family[honoured], tier[honoured]
        cost = d.tier_cost[t]
        ledger.family_at(state, "retirement", hr, fam, -cost)
        state.retired[hr, fam, t] += 1
        state.wealth[hr, fam] += d.tier_wealth[t]
        spent[hr, fam] += cost
        honoured_by[hr, fam] += 1
    return honoured


# --------------------------------------------------------------------------- firms' special retirements
def special_retirements(
    state: State,
    rules: Rules,
    agents: Agents,
    rows: np.ndarray,
    spent: np.ndarray,
    honoured_by: np.ndarray,
    final: bool,
) -> np.ndarray:
    """R-FIRMS special retirement (seed 000 L197; 2e "特殊退休"): in games ``rows`` every family holding at least one
    share of a firm whose dividend level is above 0 may retire one relative from home into an honourable-retirement tier
    costing at most the highest such level (``firms.dividend_cap``), once whatever the number of firms. It is the
    retirement above in every other way (``honour``): it counts for the position pick of this London season (L72; not at
    the end, ``final``). Families in seat order. Returns int[G, N]: special retirements taken."""
    g, n = state.n_games, state.n_players
    cap = firm_rules.dividend_cap(state)[rows]  # [G', N], the work on the rows of games ``rows`` only
    cheapest = int(rules.d.tier_cost.min())
    taken = np.zeros((g, n), dtype=np.int64)
    can_pick = (state.market[rows] >= 0).any(axis=1) & (not final)
    for seat in range(n):
        ok = (cap[:, seat] >= cheapest) & (state.supply[rows, seat] >= 1) & (state.money[rows, seat] >= cheapest)
        m = np.flatnonzero(ok)
        if m.size == 0:
            continue
        r = rows[m]
        family = np.full(m.size, seat, dtype=np.int64)
        pick = can_pick[m] & (honoured_by[r, seat] == 0)
        honoured = honour(state, rules, agents, r, family, -1, final, pick, spent, honoured_by, cap=cap[m, seat])
        state.supply[r[honoured], seat] -= 1
        taken[r, seat] += honoured
    state.tally[:, TALLY["special_retirements"]] += taken.sum(axis=1).astype(np.int32)  # not in the roll's tallies
    return taken
