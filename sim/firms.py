"""Private firms after Deregulation (R-FIRMS, D-FIRM-VARIANT, D-INITIATIVE; seed 000 L86-L106, L154, L175-L182,
L191-L199, L257; seed 002, John Company 2e's Deregulation): the firm state and its rules as small vectorised
functions over a subset of games ``rows`` (int[m], distinct positions in the batch) with one firm slot per row,
so phases and tests can call them on hand-built positions. The phases that ask the families are
``sim/phases/firms.py`` (phase 3), ``firm_trade.py`` (the trade in phase 6) and ``firm_accounts.py`` (7.1).

State (``state.py``, the firms block). F = N firm slots per game: each family manages at most one firm (L88), so N
slots always suffice; a merger or a bankruptcy frees a slot, and a new firm takes the lowest free one. A slot is
open when ``firm_manager >= 0``; a free slot holds zeros everywhere (value 0, no shares, money, ships).

- shares: ``firm_shares[G, F, N]`` counts relatives of family n on firm f's share track (one relative = one share =
  one "shareholder", L89/L102); they are relatives (``State.relatives``). Debtors' prison is ``state.prisoners``.
- money: ``firm_cash`` is the treasury (house) or the London treasury (jc2e: investments, ships, trade bids);
  ``firm_india`` the jc2e India treasury (trade revenue; dividends are paid only from it; what is left moves to
  London after dividends). Money enters and leaves through ``ledger.firm`` with the ``firm_*`` flows.
- ships: ``firm_ships[G, F, N]`` ships of firm f built at (or bought back from) family n's shipyard. A ship occupies
  its yard like the Company's family-yard ships do (``yard_use``) and earns the yard's owner 1 £ a round while it
  sails (phase 7 income, L78). Its sea is the firm's: ``firm_sea``, the port of its last trade roll.
- Company shares a family holds are relatives on the board (``state.shares``); investing one moves the relative from
  the board to the firm's track (2e: the share returns to the supply, a family member goes on the track). An
  invested factory leaves ``state.factories`` for ``state.invested_factories``, for good: it "stops giving 1 £ and
  1 VP" (L79: no income, no crash VP); with ``firms.invested_factory_votes`` (D-INVESTED-FACTORY, the seed's words)
  it keeps its Parliament votes and its ladder influence (``voting_factories``), without it it loses them too.
"""

from __future__ import annotations

import numpy as np

from . import laws, ledger, trace
from . import layout as L
from .reduce import any_last
from .rules import Rules
from .state import FLOW, TALLY, State

NO_ASSET, FACTORY, SHARE = 0, 1, 2  # what a family puts into a firm (decisions open_firm, emergency_invest)
BIG = 1 << 20  # sorts after every real initiative


def jc2e(rules: Rules) -> bool:
    """D-FIRM-VARIANT: seed 002's firm system instead of the house rules."""
    return rules.firms.variant == "jc2e"


def active(state: State) -> np.ndarray:
    """bool[G]: firms act this round: Deregulation passed in an earlier round (phase 11 follows phase 3, and
    ``forced_round`` passes it at the start of a round: either way the firms' first phase 3 is the next round's)."""
    return ~state.done & state.deregulated & (state.round > state.dereg_round)


# --------------------------------------------------------------------------------------------------- queries
def is_open(state: State) -> np.ndarray:
    """bool[G, F]: slots holding a firm."""
    return state.firm_manager >= 0


def slot_of(state: State) -> np.ndarray:
    """int[G, N]: the firm slot each family manages, -1 none."""
    out = np.full((state.n_games, state.n_players), -1, dtype=np.int64)
    for f in range(state.firm_manager.shape[1]):
        rows = np.flatnonzero(state.firm_manager[:, f] >= 0)
        out[rows, state.firm_manager[rows, f]] = f
    return out


def _add_over(a: np.ndarray, axis: int) -> np.ndarray:
    """int64 ``a.sum(axis)`` as explicit adds over a tiny axis (several times faster than a reduction,
    VECTORISE.md). The last axis of a contiguous array is added as columns of its flat [-1, k] view (one long
    strided run each); the middle axis of an int32/int64 array by ``einsum``, whose inner loop runs along the
    contiguous last axis (the adds of its [G, N] slices would run in rows of N elements)."""
    if axis < 0:
        axis += a.ndim
    if axis == a.ndim - 1 and a.ndim > 1 and a.flags.c_contiguous:
        flat = a.reshape(-1, a.shape[-1])
        out = flat[:, 0].astype(np.int64)
        for k in range(1, flat.shape[1]):
            out += flat[:, k]
        return out.reshape(a.shape[:-1])
    if a.ndim == 3 and axis == 1 and a.dtype.itemsize >= 4:  # einsum adds in the array's own type
        return np.einsum("gfn->gn", a).astype(np.int64, copy=False)
    parts = np.moveaxis(a, axis, 0)
    out = parts[0].astype(np.int64)
    for part in parts[1:]:
        out += part
    return out


def shareholders(state: State, rows: np.ndarray | None = None) -> np.ndarray:
    """int[G, F] (or int[m, F] for games ``rows``): shares (shareholders) of each firm."""
    return _add_over(state.firm_shares if rows is None else state.firm_shares[rows], 2)


def fleet(state: State, rows: np.ndarray | None = None) -> np.ndarray:
    """int[G, F] (or int[m, F] for games ``rows``): ships of each firm."""
    return _add_over(state.firm_ships if rows is None else state.firm_ships[rows], 2)


def yard_use(state: State, rows: np.ndarray | None = None) -> np.ndarray:
    """int[G, N] (or int[m, N] for games ``rows``): ships occupying each family's shipyards, the Company's and the
    firms' (one ship per yard)."""
    if rows is not None:
        return _add_over(state.yard_ships[rows], 2) + _add_over(state.firm_ships[rows], 1)
    return _add_over(state.yard_ships, 2) + _add_over(state.firm_ships, 1)


def free_yards(state: State, rows: np.ndarray | None = None) -> np.ndarray:
    """int[G, N] (or int[m, N] for games ``rows``): each family's shipyards holding no ship."""
    if rows is not None:
        return np.maximum(state.shipyards[rows] - yard_use(state, rows), 0)
    return np.maximum(state.shipyards - yard_use(state), 0)


def ship_cost(state: State, rules: Rules) -> np.ndarray:
    """int[G]: £ a firm pays for a ship at a family's shipyard (L105; Ship Subsidy's modifier applies, as it does to
    the Shipping Manager's yard ships)."""
    return np.maximum(rules.firms.ship_cost + laws.modifier(state, rules, "yard_cost"), 0)


def costs_due(state: State, rules: Rules, rows: np.ndarray | None = None) -> np.ndarray:
    """int[G, F] (or int[m, F] for games ``rows``): phase 7.1 costs (L193): ``ship_upkeep`` per ship and
    ``share_upkeep`` per share or per value, whichever is more; 0 for a free slot."""
    fi = rules.firms
    value, manager = state.firm_value, state.firm_manager
    if rows is not None:
        value, manager = value[rows], manager[rows]
    value = value.astype(np.int64)
    due = fi.ship_upkeep * fleet(state, rows) + fi.share_upkeep * np.maximum(shareholders(state, rows), value)
    return np.where(manager >= 0, due, 0)  # ``is_open``


def funds(state: State) -> np.ndarray:
    """int[G, F]: all a firm holds (both treasuries in jc2e)."""
    return state.firm_cash + state.firm_india


def weak_stock(state: State, rules: Rules) -> np.ndarray:
    """bool[G]: Company debt above ``open_max_debt`` or stability below ``open_min_stability`` (L88; 2e's weak
    Company stock: the debt or reputation marker on a lined space)."""
    fi = rules.firms
    return (state.loans > fi.open_max_debt) | (state.stability < fi.open_min_stability)


def may_open(state: State, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """(bool[G], bool[G]): a firm may be opened with a factory, with a Company share. House (L88, D-OPENING-HEALTH):
    only while debt <= 4 and stability >= 4, for every opening (``opening_requires_health = "any"``) or only for an
    opening with a Company share (``"share"``). jc2e: always (the weak-stock ban bars Company shares only,
    ``share_assets``)."""
    always = np.ones(state.n_games, dtype=bool)
    if jc2e(rules):
        return always, always
    healthy = ~weak_stock(state, rules)
    return (healthy if rules.firms.opening_requires_health == "any" else always), healthy


def share_assets(state: State, rules: Rules, rows: np.ndarray | None = None, seat: np.ndarray | None = None):
    """int[G, N] (or int[m] for games ``rows`` and families ``seat``): Company shares each family may put into a
    firm. House: every share it holds. jc2e: none while the Company's stock is weak, and never the shares issued
    since the last firm phase (``firm_fresh``: 2e forbids investing shares issued this round; ours are issued in
    phase 4, after phase 3, so the ones barred are those issued since the last phase 3)."""
    shares, fresh, weak = state.shares, state.firm_fresh, weak_stock(state, rules)[:, None]
    if rows is not None:
        shares, fresh, weak = shares[rows, seat], fresh[rows, seat], weak[rows, 0]
    if not jc2e(rules):
        return shares.astype(np.int64)
    return np.where(weak, 0, np.maximum(shares - fresh, 0)).astype(np.int64)


def factory_assets(state: State, rows: np.ndarray | None = None, seat: np.ndarray | None = None) -> np.ndarray:
    """int[G, N] (or int[m] for games ``rows`` and families ``seat``): uninvested factories a family may put into
    a firm; each needs a relative at home to become the new shareholder (``state.supply``; he stays home when the
    firm is full)."""
    if rows is not None:
        return np.minimum(state.factories[rows, seat], state.supply[rows, seat]).astype(np.int64)
    return np.minimum(state.factories, state.supply).astype(np.int64)


def voting_factories(state: State, rules: Rules) -> np.ndarray:
    """int[G, N]: the factories that count for Parliament votes and ladder influence (L79, D-INVESTED-FACTORY):
    the uninvested ones, and the invested ones too with ``firms.invested_factory_votes`` (the seed names only the
    1 £ and the 1 VP as lost)."""
    if rules.firms.invested_factory_votes:
        return state.factories + state.invested_factories
    return state.factories


def dividend_cap(state: State) -> np.ndarray:
    """int[G, N]: the highest dividend level among the firms where the family holds at least one share: what its
    special retirement may cost at most (L197; the level is the £ the firm paid out, D-DIVIDEND-LEVEL; 2e: a firm whose
    dividend marker is at 0 allows none)."""
    out = np.zeros((state.n_games, state.n_players), dtype=state.firm_dividend.dtype)
    rows = np.flatnonzero(any_last(state.firm_dividend != 0))  # elsewhere every level is 0
    if rows.size:
        held = state.firm_shares[rows] > 0  # [m, F, N]
        out[rows] = np.where(held, state.firm_dividend[rows, :, None], 0).max(axis=1)
    return out


def vp_per_share(rules: Rules) -> np.ndarray:
    """float[max_value + 1]: VP per share by value (L90-L99), index 0 (no firm) scoring 0."""
    return np.concatenate([[0.0], np.asarray(rules.firms.share_vp, dtype=np.float64)])


def share_vp(state: State, rules: Rules) -> np.ndarray:
    """float[G, N]: VP of every family's firm shares at the end (seed 000 L89-L99): shares times the VP of the firm's
    value. jc2e: the fractions of the family's total are dropped (seed 002, "小數點後完全捨去": truncated)."""
    per = vp_per_share(rules)[state.firm_value.astype(np.int64)]  # [G, F]
    vp = (state.firm_shares * per[:, :, None]).sum(axis=1)
    return np.trunc(vp) if jc2e(rules) else vp


def initiative(rules: Rules, ships: np.ndarray, successes: np.ndarray) -> np.ndarray:
    """D-INITIATIVE: a trader's initiative, lower trades first: "ships_minus_successes" (2e) or
    "successes_minus_ships" (house L154, the seed's words); "variant" takes the variant's own."""
    reading = rules.firms.initiative
    if reading == "variant":
        reading = "ships_minus_successes" if jc2e(rules) else "successes_minus_ships"
    ships, successes = np.asarray(ships, dtype=np.int64), np.asarray(successes, dtype=np.int64)
    return ships - successes if reading == "ships_minus_successes" else successes - ships


def order_limit(state: State, rules: Rules) -> np.ndarray:
    """int[G, F]: orders a firm may fill in its trade: one ship per order (house L181); jc2e: ships + 1."""
    extra = rules.firms.jc2e_extra_orders if jc2e(rules) else 0
    return fleet(state) + extra


# ------------------------------------------------------------------------------------------------- changes
def clear_slot(state: State, rows: np.ndarray, slot: np.ndarray) -> None:
    """Empty firm slots (after the firm's shares, ships and money went elsewhere)."""
    state.firm_manager[rows, slot] = -1
    state.firm_shares[rows, slot] = 0
    state.firm_value[rows, slot] = 0
    state.firm_cash[rows, slot] = 0
    state.firm_india[rows, slot] = 0
    state.firm_ships[rows, slot] = 0
    state.firm_damaged[rows, slot] = 0
    state.firm_sea[rows, slot] = -1
    state.firm_port[rows, slot] = -1
    state.firm_bid[rows, slot] = 0
    state.firm_successes[rows, slot] = -1
    state.firm_dividend[rows, slot] = 0
    state.firm_carry[rows, slot] = 0


def _take_assets(
    state: State, rows: np.ndarray, seat: np.ndarray, factories: np.ndarray, shares: np.ndarray, room: np.ndarray
) -> np.ndarray:
    """Family ``seat[m]`` puts ``factories[m]`` uninvested factories (each flipped for good, a relative from home
    becoming the shareholder) and ``shares[m]`` Company shares (each leaving the board, its relative becoming the
    shareholder) into a firm with ``room[m]`` shareholders left: factories first; past the room no shareholder is
    created (a factory's relative stays home, a share's relative goes home). Returns int[m] shareholders created."""
    factories, shares = factories.astype(np.int64), shares.astype(np.int64)
    made_f = np.minimum(factories, room)
    made_s = np.minimum(shares, room - made_f)
    state.factories[rows, seat] -= factories.astype(state.factories.dtype)
    state.invested_factories[rows, seat] += factories.astype(state.invested_factories.dtype)
    state.shares[rows, seat] -= shares.astype(state.shares.dtype)
    state.supply[rows, seat] += (shares - made_s - made_f).astype(state.supply.dtype)
    # an older share is invested first (the investing families' entries only: another game's are its own)
    state.firm_fresh[rows, seat] = np.minimum(state.firm_fresh[rows, seat], state.shares[rows, seat])
    return made_f + made_s


def open_firm(state: State, rules: Rules, rows: np.ndarray, seat: np.ndarray, asset: np.ndarray) -> np.ndarray:
    """R-FIRMS (seed 000 L88-L89; 2e "成立商行"): family ``seat[m]`` opens a firm with ``asset[m]`` (FACTORY or SHARE)
    in the lowest free slot: ``start_treasury`` £ from the bank, one shareholder of the family, value 1, the family its
    manager. Returns int[m] the slots."""
    slot = (state.firm_manager[rows] < 0).argmax(axis=1)
    clear_slot(state, rows, slot)
    one = np.ones(rows.size, dtype=np.int64)
    made = _take_assets(state, rows, seat, (asset == FACTORY) * one, (asset == SHARE) * one, one)
    state.firm_manager[rows, slot] = seat
    state.firm_shares[rows, slot, seat] += made.astype(state.firm_shares.dtype)
    state.firm_value[rows, slot] = 1
    ledger.firm(state, "firm_investment", rows, slot, np.full(rows.size, rules.firms.start_treasury))
    state.tally[rows, TALLY["firms_opened"]] += 1
    np.add.at(state.firms_opened, (rows, seat), 1)
    return slot


def invest(
    state: State,
    rules: Rules,
    rows: np.ndarray,
    slot: np.ndarray,
    seat: np.ndarray,
    factories: np.ndarray,
    shares: np.ndarray,
    emergency: bool = False,
) -> np.ndarray:
    """R-FIRMS (seed 000 L102; 2e "股份及工廠投資"): family ``seat[m]`` invests ``factories[m]`` factories and
    ``shares[m]`` Company shares in firm ``slot[m]``: one more shareholder of the family per investment while the firm
    holds fewer than ``max_shareholders``, and ``investment`` £ per investment from the bank into its (London) treasury.
    An ``emergency`` investment (L194, phase 7.1) also costs the firm 1 value each (never below 1). Returns int[m]
    shareholders created."""
    fi = rules.firms
    k = (factories + shares).astype(np.int64)
    room = np.maximum(fi.max_shareholders - _add_over(state.firm_shares[rows, slot], 1), 0)  # ``shareholders``
    made = _take_assets(state, rows, seat, factories, shares, room)
    state.firm_shares[rows, slot, seat] += made.astype(state.firm_shares.dtype)
    ledger.firm(state, "firm_emergency" if emergency else "firm_investment", rows, slot, k * fi.investment)
    if emergency:
        state.firm_value[rows, slot] = np.maximum(state.firm_value[rows, slot] - k, 1).astype(state.firm_value.dtype)
        state.tally[rows, TALLY["emergency_investments"]] += k.astype(np.int32)
    else:
        state.tally[rows, TALLY["firm_investments"]] += k.astype(np.int32)
    return made


def change_manager(state: State, rows: np.ndarray, slot: np.ndarray, seat: np.ndarray) -> None:
    """L103 (house: by a majority of the shareholders) / 2e's hostile takeover (by the holders of more than half
    the shares): family ``seat[m]``, which manages no firm, takes over firm ``slot[m]`` with everything in it."""
    state.firm_manager[rows, slot] = seat
    state.tally[rows, TALLY["firm_takeovers"]] += 1


def merge_plan(state: State, rules: Rules, rows: np.ndarray, a: np.ndarray, b: np.ndarray):
    """A merger of firms ``a[m]`` (the proposer's) and ``b[m]`` (seed 000 L104; 2e "合併"): the firm of the higher value
    survives (a tie: the proposer's, whose proposal every shareholder then accepts unanimously). Shares above
    ``max_shareholders`` go home, taken from the families holding the most shares in the merged firm (ties: the lower
    seat), a rule every shareholder sees before consenting. Returns (survivor int[m], absorbed int[m],
    lose int[m, N])."""
    va, vb = state.firm_value[rows, a], state.firm_value[rows, b]
    survivor = np.where(va >= vb, a, b)
    absorbed = np.where(va >= vb, b, a)
    combined = (state.firm_shares[rows, a] + state.firm_shares[rows, b]).astype(np.int64)
    excess = np.maximum(combined.sum(axis=1) - rules.firms.max_shareholders, 0)
    lose = np.zeros_like(combined)
    for k in range(int(excess.max(initial=0))):
        go = np.flatnonzero(excess > k)
        j = (combined[go] - lose[go]).argmax(axis=1)
        lose[go, j] += 1
    return survivor, absorbed, lose


def merge(state: State, rows: np.ndarray, keep: np.ndarray, gone: np.ndarray, lose: np.ndarray) -> None:
    """Firm ``gone[m]`` merges into ``keep[m]``: treasuries, ships and shareholders join it (``lose[m, N]``
    shareholders go home); the survivor keeps its manager, value and dividend level, the absorbed firm's manager
    is left without a firm (seed 000 L104; 2e "合併")."""
    state.firm_shares[rows, keep] += state.firm_shares[rows, gone] - lose.astype(state.firm_shares.dtype)
    state.supply[rows] += lose.astype(state.supply.dtype)
    for arr in (state.firm_cash, state.firm_india, state.firm_carry):
        arr[rows, keep] += arr[rows, gone]
    for arr in (state.firm_ships, state.firm_damaged):
        arr[rows, keep] += arr[rows, gone]
    no_sea = state.firm_sea[rows, keep] < 0
    state.firm_sea[rows[no_sea], keep[no_sea]] = state.firm_sea[rows[no_sea], gone[no_sea]]
    clear_slot(state, rows, gone)
    state.tally[rows, TALLY["firm_mergers"]] += 1


def bankrupt(state: State, rows: np.ndarray, slot: np.ndarray) -> None:
    """Seed 000 L195 (2e "商行的開支與解散"): a firm that cannot pay its costs closes: every shareholder goes to
    debtors' prison, its ships leave their shipyards (2e: "return to the shipyards"), the money it still holds is lost
    (flow ``firm_bankrupt``), its manager is left without a firm. Invested factories stay invested."""
    state.prisoners[rows] += state.firm_shares[rows, slot]
    np.add.at(state.firms_bankrupt, (rows, state.firm_manager[rows, slot].astype(np.int64)), 1)
    left = funds(state)[rows, slot]
    state.ledger[rows, FLOW["firm_bankrupt"]] -= left.astype(state.ledger.dtype)
    clear_slot(state, rows, slot)
    state.tally[rows, TALLY["bankruptcies"]] += 1


def build_ships(state: State, rules: Rules, rows: np.ndarray, slot: np.ndarray, per_owner: np.ndarray) -> None:
    """Seed 000 L105 (2e "以商行身份獲取船隻"): firm ``slot[m]`` builds ``per_owner[m, N]`` ships at those families'
    free shipyards (consent is the caller's), paying ``ship_cost`` £ each to the bank from its (London) treasury."""
    count = per_owner.sum(axis=1)
    ledger.firm(state, "firm_ships", rows, slot, -count * ship_cost(state, rules)[rows])
    state.firm_ships[rows, slot] += per_owner.astype(state.firm_ships.dtype)
    state.tally[rows, TALLY["firm_ships_built"]] += count.astype(np.int32)


def buy_back(
    state: State, rules: Rules, rows: np.ndarray, slot: np.ndarray, sound: np.ndarray, damaged: np.ndarray
) -> None:
    """jc2e (seed 002 "購回玩家所有的船隻"): firm ``slot[m]`` buys the Company's family-yard ships ``sound[m, N, 4]``
    and ``damaged[m, N, 4]`` (per yard owner and location; consent is the caller's) for ``buyback_sound`` /
    ``buyback_damaged`` £ each, paid from its London treasury into the Shipping Manager's treasury. The ships stay
    at their owners' yards, now the firm's (a damaged one stays damaged)."""
    fi = rules.firms
    both = (sound + damaged).astype(state.yard_ships.dtype)
    state.yard_ships[rows] -= both
    state.yard_damaged[rows] -= damaged.astype(state.yard_damaged.dtype)
    state.firm_ships[rows, slot] += both.sum(axis=2)
    state.firm_damaged[rows, slot] += damaged.sum(axis=2).astype(state.firm_damaged.dtype)
    price = fi.buyback_sound * sound.sum(axis=(1, 2)) + fi.buyback_damaged * damaged.sum(axis=(1, 2))
    state.firm_cash[rows, slot] -= price.astype(state.firm_cash.dtype)
    state.treasury[rows, L.T_SHIPPING] += price.astype(state.treasury.dtype)
    if trace.recorder is not None:
        trace.recorder.transfer(
            state, "ship_buyback", ("firm", -price, rows, slot), ("treasury", price, rows, L.T_SHIPPING)
        )
    state.tally[rows, TALLY["firm_ships_built"]] += both.sum(axis=(1, 2)).astype(np.int32)


def raise_value(state: State, rules: Rules, rows: np.ndarray, slot: np.ndarray, revenue: np.ndarray) -> None:
    """Seed 000 L100, L182 (2e: "每增加6塊錢的收益...推進...價值標記一格"): value +1 per ``revenue_per_value`` £ of
    trade revenue this round, up to ``max_value``; with ``value_steps = "game"`` the remainder carries to later
    rounds."""
    fi = rules.firms
    total = revenue.astype(np.int64)
    if fi.value_steps == "game":
        total = total + state.firm_carry[rows, slot]
        state.firm_carry[rows, slot] = (total % fi.revenue_per_value).astype(state.firm_carry.dtype)
    steps = total // fi.revenue_per_value
    value = np.minimum(state.firm_value[rows, slot] + steps, fi.max_value)
    state.firm_value[rows, slot] = value.astype(state.firm_value.dtype)


def fill_orders(state: State, rules: Rules, rows: np.ndarray, slot: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """Seed 000 L181-L182 (2e "以商行身份滿足需求"): firm ``slot[m]`` fills ``orders[m, O]``: the order's value, or its
    half value (rounded down, printed on the map) when a firm or the Company filled it earlier this round, into its
    treasury (jc2e: India treasury); then its value rises (``raise_value``). Returns int[m] revenue."""
    d = rules.d
    before = state.order_filled[rows] | state.firm_filled[rows]
    revenue = (orders * np.where(before, d.order_half, d.order_value)).sum(axis=1)
    ledger.firm(state, "firm_trade", rows, slot, revenue, india=jc2e(rules))
    state.firm_filled[rows] |= orders
    raise_value(state, rules, rows, slot, revenue)
    state.tally[rows, TALLY["firm_revenue"]] += revenue.astype(np.int32)
    state.tally[rows, TALLY["firm_orders_filled"]] += orders.sum(axis=1).astype(np.int32)
    return revenue


def company_order_values(rules: Rules, firm_filled: np.ndarray) -> np.ndarray:
    """int[G, O]: what an order pays the Company (L181, ``company_refill``): its value, or its half value
    (``"half"``, 2e) where a firm filled it earlier this round (``firm_filled``); ``"full"``: always its value."""
    d = rules.d
    if rules.firms.company_refill == "half" and firm_filled.any():
        return np.where(firm_filled, d.order_half, d.order_value)
    return np.broadcast_to(d.order_value, firm_filled.shape)


def pay_costs(state: State, rows: np.ndarray, slot: np.ndarray, due: np.ndarray) -> np.ndarray:
    """Firm ``slot[m]`` pays ``due[m]`` £ to the bank (flow ``firm_costs``) from its (London) treasury first, then
    from its India treasury (jc2e; dividends come only from India, so London pays first). Returns int[m] unpaid."""
    cash = state.firm_cash[rows, slot].astype(np.int64)
    from_cash = np.minimum(cash, due)
    from_india = np.minimum(state.firm_india[rows, slot].astype(np.int64), due - from_cash)
    ledger.firm(state, "firm_costs", rows, slot, -from_cash)
    ledger.firm(state, "firm_costs", rows, slot, -from_india, india=True)
    return due - from_cash - from_india


def pay_dividends(
    state: State,
    rules: Rules,
    rows: np.ndarray,
    slot: np.ndarray,
    payouts: np.ndarray,
    waived: np.ndarray,
    manager_waived: np.ndarray,
) -> np.ndarray:
    """Seed 000 L196 (2e "商行股利"): ``payouts[m]`` payouts of firm ``slot[m]``: each pays 1 £ per share not waived
    (``waived[m, N]`` shares per family) to its holder and 1 £ to the manager's family unless ``manager_waived``;
    from the treasury (jc2e: the India treasury only). Returns int[m] £ paid."""
    per_share = np.maximum(state.firm_shares[rows, slot] - waived, 0).astype(np.int64)  # [m, N]
    k = payouts.astype(np.int64)
    to_family = k[:, None] * per_share
    manager = state.firm_manager[rows, slot].astype(np.int64)
    to_family[np.arange(rows.size), manager] += np.where(manager_waived, 0, k)
    paid = to_family.sum(axis=1)
    source = state.firm_india if jc2e(rules) else state.firm_cash
    source[rows, slot] -= paid.astype(source.dtype)
    state.money[rows] += to_family.astype(state.money.dtype)
    if trace.recorder is not None:
        firm = "firm_india" if jc2e(rules) else "firm"
        trace.recorder.transfer(state, "firm_dividends", (firm, -paid, rows, slot), ("seat", to_family, rows))
    state.tally[rows, TALLY["firm_dividends"]] += paid.astype(np.int32)
    return paid


# ------------------------------------------------------------------------------------- yards, storms, income
def yard_income_ships(state: State) -> np.ndarray:
    """int[G, N]: firm ships at each family's shipyards, earning the yard's owner his 1 £ a round (L78)."""
    return _add_over(state.firm_ships, 1)


def drop_excess_ships(state: State) -> None:
    """After a family loses shipyards (a policy tax, phase 9) and its Company yard ships were sunk first, firm ships
    still over its remaining yards leave too, damaged ones first, in slot order."""
    with_ships = np.flatnonzero(any_last(state.firm_ships.reshape(state.n_games, -1) != 0))  # elsewhere none leave
    excess = np.maximum(yard_use(state, with_ships) - state.shipyards[with_ships], 0)  # [m, N]
    keep = any_last(excess > 0)
    rows, excess = with_ships[keep], excess[keep]
    if rows.size == 0:
        return
    for f in range(state.firm_ships.shape[1]):
        ships, damaged = state.firm_ships[rows, f], state.firm_damaged[rows, f]
        take = np.minimum(excess, ships)
        state.firm_ships[rows, f] = (ships - take).astype(state.firm_ships.dtype)
        state.firm_damaged[rows, f] = (damaged - np.minimum(take, damaged)).astype(state.firm_damaged.dtype)
        excess -= take


def batter_ships(state: State, rules: Rules, dice, rows: np.ndarray, hit: np.ndarray) -> None:
    """R-STORM for firm ships (``firms.storms``; 2e: family-yard ships roll for storms, and a firm's ships are
    family-yard ships): every ship of a firm whose sea (``firm_sea``) is in ``hit[m, P]`` rolls a d6 as the Company's
    yard ships do (``india.storm_rolls``): damaged from ``storm_damage_from``, sunk from ``storm_sink_from``, a damaged
    ship damaged again sinks. Dice go firm by firm, yard owner by yard owner, damaged ships before sound ones, after
    the Company's ships. A sunk ship frees its yard."""
    from .india import storm_rolls  # late import: india imports state helpers only

    if not rules.firms.storms or rows.size == 0:
        return
    n = state.n_players
    sea = state.firm_sea[rows].astype(np.int64)  # [m, F]
    stormed = (sea >= 0) & np.take_along_axis(hit, np.maximum(sea, 0), axis=1)
    keep = any_last(stormed)  # the games with a firm in a hit sea: elsewhere no die is rolled
    if not keep.all():
        rows, stormed = rows[keep], stormed[keep]
        if rows.size == 0:
            return
    ships, damaged = state.firm_ships[rows], state.firm_damaged[rows]  # [m, F, N]
    counts = np.stack([damaged, ships - damaged], axis=-1) * stormed[:, :, None, None]  # [m, F, N, 2]
    f = ships.shape[1]
    sunk, hurt, roll = storm_rolls(rules, dice, rows, counts.reshape(rows.size, -1))
    if roll.size == 0:
        return
    sunk = sunk.reshape(roll.size, f, n, 2)
    hurt = hurt.reshape(roll.size, f, n, 2)
    r = rows[roll]
    lost_damaged = sunk[..., 0] + hurt[..., 0]
    newly = hurt[..., 1]
    lost = lost_damaged + sunk[..., 1]
    state.firm_ships[r] -= lost.astype(state.firm_ships.dtype)
    state.firm_damaged[r] += (newly - lost_damaged).astype(state.firm_damaged.dtype)
    state.tally[r, TALLY["ships_damaged"]] += newly.sum(axis=(1, 2)).astype(np.int32)
    state.tally[r, TALLY["ships_sunk"]] += lost.sum(axis=(1, 2)).astype(np.int32)


# ---------------------------------------------------------------------------------------------- accounting
def accounts_order(state: State, rules: Rules, rows: np.ndarray | None = None) -> np.ndarray:
    """int[G, F] (or int[m, F] for games ``rows``): the order firms settle in phase 7.1 (2e "順序依照順位值"): by
    this round's initiative (firms that did not trade last), ties by the manager's conspicuous wealth (2e's
    window-tax markers, most first), then clockwise from the Prime Minister's seat; free slots last. The house rules
    name no order; 2e's is used."""
    n = state.n_players
    at = slice(None) if rows is None else rows
    succ = state.firm_successes[at].astype(np.int64)
    init = np.where(succ >= 0, initiative(rules, fleet(state, rows), np.maximum(succ, 0)), BIG)
    opened = state.firm_manager[at]
    manager = np.maximum(opened, 0).astype(np.int64)
    wealth = np.take_along_axis(state.wealth[at].astype(np.int64), manager, axis=1)
    prime = state.prime_minister[at]
    pm = np.where(prime >= 0, prime, 0).astype(np.int64)
    clockwise = (manager - pm[:, None]) % n
    return np.lexsort((clockwise, -wealth, init, opened < 0), axis=-1)  # ``~is_open``
