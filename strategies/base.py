"""The strategy interface and the base strategy, registered as ``balanced``.

A strategy answers every decision the rules give a family or an office holder. Each method is vectorised: it
receives an ``Observation`` for the deciding seat in G' games (``obs.money`` is int[G', N], ``obs.seat`` int[G'],
...) and the legal options as arrays over those games, and returns arrays over those games. A method must decide
each game from that game's own rows only (never from batch statistics), so a game plays the same in any batch.
What a method is handed (the observation, its rules and random stream, the legal options) is its own: nothing in it
leads to the engine's state, and writing into it changes no game (``sim.agents.Observation``).

Subclass ``Strategy``, override what you want to play differently, and register it with ``@register("name")``;
``docs/strategies.md`` documents every decision point.

The base class is a competent all-rounder that reacts to the position. In phase 2 it takes the family
action worth most for its cost (``family.py``: shares while the Company looks like surviving, luxuries as the end
nears or money piles up, clerks where it has no candidate, shipyards when the Company lacks ships). In the
Company's offices it follows one plan (``company.py``): ships for the reachable orders, the dice that pay, the
Director's checks where an opening adds value; its Chairman borrows for that plan within debt limits, hands the
budget out by urgency and pays the dividends that lift stability towards a target, everything when the Company is
doomed or the game ends. It fights only at good odds (``military.py``). Shared valuations are in ``values.py``;
the archetypes (``archetypes.py``) reweigh them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from sim import kernels, laws, notes
from sim import layout as L
from sim.agents import PASSES, SHARED, Observation
from sim.board import company_ships, reachable, seat_counts
from sim.phases.attacks import minimal_defence
from sim.reduce import any_last, sum_last

from . import calibration, company, family, military, politics, values
from . import firms as firm_play
from .registry import register

# Lot values for bidding (£-like points) by what a lot holds.
OFFICE_VALUE = {
    L.CHAIRMAN: 8, L.DIRECTOR: 5, L.SHIPPING: 3, L.MILITARY: 4,
    L.PRESIDENT[0]: 4, L.PRESIDENT[1]: 4, L.PRESIDENT[2]: 4, L.CHINA: 3, L.GOVERNOR_GENERAL: 5,
}  # fmt: skip


def passes(method):
    """Mark a decision method that always answers the engine's default (nothing): the engine then skips the call
    (``sim.agents.PASSES``). A subclass that overrides the method is asked as usual."""
    setattr(method, PASSES, True)
    return method


def shared(method=None, *, reads: tuple[str, ...] = ()):
    """Mark a decision method that answers from its observation, its legal options and the strategy's attributes
    named in ``reads`` (parameters, or methods), nothing else of the strategy: the engine then asks the seats of every
    strategy that inherits it, with equal values of those parameters and the same methods, in one call
    (``sim.agents.SHARED``). The method sees a stand-in for the strategy with those attributes only. ``@shared`` reads
    nothing; ``@shared(reads=("trade_cost",))`` reads one parameter. A subclass that overrides the method is asked on
    its own."""

    def mark(fn):
        setattr(fn, SHARED, tuple(reads))
        return fn

    return mark if method is None else mark(method)


def lot_values(obs: Observation, office_worth: float = 1.0, chair_bonus: float = 0.0) -> np.ndarray:
    """float[LOTS] a rough worth of each lot in play; an office counts ``office_worth`` times its ``OFFICE_VALUE``,
    the Chairman's lot ``chair_bonus`` more."""
    d = obs.rules.d
    items = d.lot_items
    value = np.zeros(len(d.lot_names))
    for lot, office in enumerate(d.lot_office):
        if office >= 0:
            value[lot] += office_worth * OFFICE_VALUE.get(int(office), 3) + chair_bonus * (office == L.CHAIRMAN)
    value += 5 * d.lot_pm
    value += 4 * items["shares"] + 2 * items["shipyards"] + 3 * items["factories"] + 3 * items["luxuries"]
    value += items["clerks"].sum(axis=1) + items["officers"].sum(axis=1) + items["academy"] + items["positions"]
    value += items["money"]
    return value


def lot_worth(strategy, obs: Observation) -> np.ndarray:
    """float[LOTS] what each lot is worth to ``strategy``: ``lot_values`` with its ``office_worth`` and
    ``chair_bonus``."""
    return lot_values(obs, strategy.office_worth, strategy.chair_bonus)


def scaled_bids(strategy, obs: Observation, value: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(base, step, cap) int[G', LOTS] from lot worth ``value`` float[LOTS] (R-AUCTION): ``bid_scale`` times the
    worth jittered by the family's own stream on its ``bid_lots`` most valuable lots (0 elsewhere), raised by 1 up
    to ``bid_raise`` more on a tie."""
    jitter = 0.6 + 0.8 * obs.rng.uniform(value.shape[0])
    rank = np.argsort(np.argsort(-value, kind="stable"), kind="stable")
    value = np.where(rank < strategy.bid_lots, np.maximum(value, 0), 0.0)
    base = np.round(value[None, :] * strategy.bid_scale * jitter).astype(np.int64)
    return base, np.ones_like(base), base + strategy.bid_raise


def pick_best(score: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Column of the highest score among legal columns per row (-1 where none is legal)."""
    masked = np.where(legal, score, -np.inf)
    return np.where(any_last(legal), masked.argmax(axis=1), -1)


@kernels.kernel
def _appoint(
    cand: np.ndarray, has: np.ndarray, office: np.ndarray, seat: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """``Strategy.appoint`` row by row: the family with a candidate (``has`` bool[G', N]) scoring most (its own first,
    then the fewest offices, ties clockwise from the appointer), and its first source."""
    rows, _, sources = cand.shape
    family = np.zeros(rows, dtype=np.int64)
    source = np.zeros(rows, dtype=np.int64)
    held = np.zeros(n, dtype=np.int64)
    for i in range(rows):
        held[:] = 0
        for k in range(office.shape[1]):
            h = office[i, k]
            if 0 <= h < n:
                held[h] += 1
        best, best_score = 0, -np.inf
        for f in range(n):
            if not has[i, f]:
                continue
            after = (f - seat[i]) % n
            score = (-float(held[f]) + 100.0 * (1.0 if after == 0 else 0.0)) - 0.01 * after
            if score > best_score:
                best, best_score = f, score
        family[i] = best
        for j in range(sources):
            if cand[i, best, j]:
                source[i] = j
                break
    return family, source


@kernels.kernel
def _retire(
    money: np.ndarray,
    rounds_left: np.ndarray,
    market: np.ndarray,
    card_value: np.ndarray,
    pick: np.ndarray,
    final: np.ndarray,
    affordable: np.ndarray,
    tier_vp: np.ndarray,
    tier_cost: np.ndarray,
    tier_upkeep: np.ndarray,
    vp_worth: float,
) -> np.ndarray:
    """``Strategy.retire`` row by row: the best card on display (its ``card_value``) when the retirement wins a pick,
    each tier's worth, the first best tier allowed (-1 when none is worth more than nothing)."""
    rows, tiers = affordable.shape
    out = np.full(rows, -1, dtype=np.int64)
    for i in range(rows):
        best_card = 0.0
        if pick[i] and not final[i]:
            top = -np.inf
            if card_value.size:
                for c in market[i]:
                    if c >= 0 and card_value[c] > top:
                        top = card_value[c]
            best_card = top if top >= 0.0 else 0.0
        tier, best = -1, -np.inf
        for t in range(tiers):
            if final[i]:
                value = 100.0 * tier_vp[t] - tier_cost[t]
                ok = affordable[i, t] and tier_vp[t] > 0
            else:
                value = (vp_worth * tier_vp[t] - tier_cost[t]) - np.float64(tier_upkeep[t] * rounds_left[i])
                value = value + best_card
                ok = affordable[i, t] and money[i] >= tier_cost[t] + tier_upkeep[t]
            if ok and value > best:
                tier, best = t, value
        if tier >= 0 and best > 0:
            out[i] = tier
    return out


# what the balanced family reckons a VP worth in £ mid-game (a luxury: 4 £ -> 2 VP and 1 wealth, and money
# still buys income), and what a position card is worth to it.
VP_WORTH = 2.5


def card_values(obs: Observation) -> np.ndarray:
    """float[D] a rough £ worth of each position card (D-POSITIONS): influence and wealth while held, money, an
    extra family action, one appointment free of nepotism; votes little until Parliament is simulated."""
    d = obs.rules.d
    permanent = 1.5 * d.card_influence + 0.5 * d.card_wealth + 0.5 * d.card_votes
    closed = d.card_money + 0.5 * d.card_wealth + 3.0 * d.card_extra + 2.0 * d.card_nepotism + 0.25 * d.card_votes
    return np.where(d.card_permanent, permanent, closed).astype(float)


def display_values(obs: Observation, cards: np.ndarray) -> np.ndarray:
    """float[G', M] worth of the cards on display (``cards`` int[G', M], -1 empty: -inf)."""
    values = card_values(obs)
    if values.size == 0:
        return np.full(cards.shape, -np.inf)
    return np.where(cards >= 0, values[np.maximum(cards, 0)], -np.inf)


def ships_wanted(obs: Observation) -> np.ndarray:
    """int[G', P]: orders each presidency could fill this round minus the ships already in its sea."""
    reach = reachable(obs.rules, obs.order_open, obs.order_filled).sum(axis=2)
    return reach - company_ships(obs)[:, : L.PRESIDENCIES]


class StrategyParameterError(ValueError):
    """A strategy parameter that the strategy does not have, or a value of the wrong type or out of its range."""


@dataclass(frozen=True)
class Param:
    """A tunable parameter of a strategy: its default (which fixes its type), what it means, and for a number the
    range it may take (``low``/``high``, inclusive; None: unbounded). A float must be finite."""

    default: bool | int | float | str
    doc: str
    low: float | None = None
    high: float | None = None

    @property
    def range(self) -> str:
        """The range as the docs and ``eastindia strategies`` print it: ``0..1``, ``>= 0`` or empty."""
        if self.low is not None and self.high is not None:
            return f"{self.low:g}..{self.high:g}"
        if self.low is not None:
            return f">= {self.low:g}"
        return "" if self.high is None else f"<= {self.high:g}"

    def refuse(self, value) -> str | None:
        """Why ``value`` (already of the right type) is out of range, or None."""
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        if not math.isfinite(value):
            return f"expected a finite number, got {value!r}"
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            return f"expected {self.range}, got {value!r}"
        return None


@register("balanced")
class Strategy:
    """A competent all-rounder: reacts to money, stability, debt, open orders, threats and the round."""

    name = "balanced"
    #: The learned quantities the strategy wants fitted to an arm's rules (``strategies.calibration``): the built-ins'
    #: anchored crash belief and region-loss rate; a subclass may set ``calibration.FITTED`` or ``()``.
    CALIBRATE: ClassVar[tuple] = calibration.BUILTIN
    #: The strategy's tunable parameters (name -> Param). A subclass extends its parent's:
    #: ``PARAMS = {**Parent.PARAMS, "max_bid": Param(2, "highest bid on any lot", low=0)}``. A method reads
    #: ``self.max_bid``: the value the instance was made with (``Cls(max_bid=3)``), else the default.
    PARAMS: ClassVar[dict[str, Param]] = {
        # the Company's offices (strategies/company.py)
        "min_order": Param(3, "least value of an order a ship is bought for (R-SHIPPING)", low=0),
        "trade_cost": Param(0.6, "£ a die of Company money counts as when a President or Director picks dice", low=0),
        "max_debt": Param(
            8,
            "loans the Chairman carries at most for running needs (dice, checks), beyond the "
            "relatives waiting on the exchange",
            low=0,
        ),
        "invest_debt": Param(8, "loans the Chairman carries at most to buy ships, beyond the waiting relatives", low=0),
        "waiting_loans": Param(
            1,
            "loans each relative waiting on the exchange adds to max_debt and invest_debt (0: the limits alone; "
            "at the default limits of 8 it changes nothing)",
            low=0,
        ),
        "target_stability": Param(5, "stability the Chairman pays dividends to reach (L203-L208)", low=0),
        "vp_worth": Param(2.5, "£ a VP is worth to the family mid-game (luxuries, honourable retirements)", low=0),
        "director_checks": Param(3, "checks the Chairman funds the Director of Trade for at most", low=0),
        "director_from": Param(
            1,
            "rounds before the Chairman funds the Director of Trade (the first round's budget "
            "goes to the ships and the dice)",
            low=0,
        ),
        "open_min": Param(3.0, "reachable value an opening must add for the Chairman to fund a second check", low=0),
        "cash_out_risk": Param(
            0.8, "crash risk (values.crash_risk) from which the Chairman pays out the whole balance", low=0, high=1
        ),
        "lease_reserve": Param(
            0.0,
            "share of the other wanted ships a Shipping Manager keeps money to lease before "
            "buying a Company ship (0: Company ships whenever affordable)",
            low=0,
            high=1,
        ),
        # the auction (R-AUCTION) read against the capital formula (R-CAPITAL): every bid point lowers the capital
        "bid_scale": Param(
            1.0, "bid as a multiple of a lot's worth (0 bids nothing: the most capital under the seed's formula)", low=0
        ),
        "bid_lots": Param(99, "lots it bids on at all: its most valuable ones", low=0),
        "bid_raise": Param(2, "most it raises a bid by, 1 at a time, on a tie (R-AUCTION step and cap)", low=0),
        "office_worth": Param(
            1.0, "multiple of an office's worth (OFFICE_VALUE) an office lot counts in its bids", low=0
        ),
        "chair_bonus": Param(0.0, "£ added to the Chairman's lot's worth in its bids", low=-10, high=20),
        # phase 2 (family.action_values): £ added to each family action's worth
        "prefer_luxury": Param(0.0, "£ added to a luxury's worth in phase 2", low=-5, high=5),
        "prefer_factory": Param(0.0, "£ added to a factory's worth in phase 2", low=-5, high=5),
        "prefer_shares": Param(0.0, "£ added to a place on the exchange's worth in phase 2", low=-5, high=5),
        "prefer_shipyard": Param(0.0, "£ added to a shipyard's worth in phase 2", low=-5, high=5),
        "prefer_clerk": Param(0.0, "£ added to a clerk's worth in phase 2", low=-5, high=5),
        "prefer_officer": Param(0.0, "£ added to an officer's worth in phase 2", low=-5, high=5),
        # the votes (politics.py): Deregulation and vote buying
        "danger_stability": Param(
            2, "stability at or below which it counts the Company in danger (for Deregulation's write-off)", low=0
        ),
        "danger_debt": Param(
            6, "loans from which it counts the Company in danger (tables and votes for Deregulation)", low=0
        ),
        "vote_margin": Param(1.0, "£ of its stake in a vote it keeps: it buys votes for the stake beyond this", low=0),
    }

    def __init__(self, **params):
        for key, value in params.items():
            if key not in self.PARAMS:
                known = ", ".join(sorted(self.PARAMS)) or "none"
                raise StrategyParameterError(f"strategy {self.name!r} has no parameter {key!r} (known: {known})")
            default = self.PARAMS[key].default
            ok = isinstance(value, type(default)) and not (isinstance(value, bool) and not isinstance(default, bool))
            if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
                value, ok = float(value), True
            if not ok:
                raise StrategyParameterError(
                    f"strategy {self.name!r} parameter {key!r}: expected {type(default).__name__}, got {value!r}"
                )
            if (why := self.PARAMS[key].refuse(value)) is not None:
                raise StrategyParameterError(f"strategy {self.name!r} parameter {key!r}: {why}")
            setattr(self, key, value)
        self.params = {key: getattr(self, key) for key in self.PARAMS}

    def __getattr__(self, key: str):
        """A parameter not set on the instance reads its default (also for subclasses that skip ``__init__``, and
        for a parent's parameter a subclass's ``PARAMS`` left out: the base methods still find theirs)."""
        for klass in type(self).__mro__:
            params = klass.__dict__.get("PARAMS", {})
            if key in params:
                return params[key].default
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {key!r}")

    @property
    def label(self) -> str:
        """The name, with the parameters that differ from their defaults: ``bid_low(max_bid=3)``."""
        own = getattr(self, "params", {})
        changed = [f"{k}={v}" for k, v in own.items() if v != self.PARAMS[k].default]
        return f"{self.name}({', '.join(changed)})" if changed else self.name

    # --------------------------------------------------------------------------------------------- setup
    def bid(self, obs: Observation, legal) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sealed auction bids: (base, step, cap) int[G', LOTS], each >= 0 (R-AUCTION): ``scaled_bids`` of
        ``lot_worth``."""
        return scaled_bids(self, obs, lot_worth(self, obs))

    # ------------------------------------------------------------------------------------- phase 2 actions
    def family_action(self, obs: Observation, legal) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(action[G'], twice[G'], presidency[G', 2] for a clerk and a second clerk). ``legal.once`` / ``legal.twice``
        bool[G', ACTIONS]: what the family may take once, or twice (last round's action repeated); ``legal.extra``
        bool[G']: an extra action (a position card's or a law's; once, not recorded as the round's action);
        ``legal.offered`` int[G']: the one kind a law's extra action offers besides passing, -1 for any."""
        return family.choose(obs, legal, self.action_values(obs, legal))

    def action_values(self, obs: Observation, legal) -> np.ndarray:
        """float[G', ACTIONS]: what each family action is worth less its cost (``family.action_values``); the
        archetypes reweigh it."""
        return family.action_values(self, obs, legal)

    @shared
    def rank_share_buyers(self, obs: Observation, legal) -> np.ndarray:
        """The Chairman orders the exchange buyers (``legal.buyers`` bool[G', N]): a permutation of the seats
        int[G', N], own family first, then clockwise (``values.clockwise``)."""
        return values.clockwise(obs).astype(np.int64)

    @shared
    def extra_clerk(self, obs: Observation, legal) -> np.ndarray:
        """Presidency for the extra clerk, or -1."""
        return np.where(obs.own("supply") >= 2, obs.own("clerks").argmin(axis=1), -1)

    # -------------------------------------------------------------------------------- phase 5 appointments
    @shared
    def vote_chairman(self, obs: Observation, legal) -> np.ndarray:
        """Vote for a candidate family (bool[G', N] ``legal.candidates``): own family first, else the largest."""
        own = legal.candidates[np.arange(obs.n), obs.seat]
        return np.where(own, obs.seat, pick_best(obs.shares.astype(float), legal.candidates))

    @shared(reads=("vote_chairman",))
    def choose_chairman(self, obs: Observation, legal) -> np.ndarray:
        """No majority: the family that held the chair picks a board member's family."""
        return self.vote_chairman(obs, legal)

    @shared
    def appoint(self, obs: Observation, legal) -> tuple[np.ndarray, np.ndarray]:
        """(family, source) among ``legal.candidates`` bool[G', N, SOURCES]; own relatives first (nepotism may
        refuse, then the engine asks again without them), else the family with the fewest offices, ties clockwise
        from the appointer (no seat number favoured)."""
        cand = legal.candidates
        if kernels.use(obs.n):
            return _appoint(cand, any_last(cand), obs.office, obs.seat, obs.players)
        held = seat_counts(obs.office, obs.players)
        after = (np.arange(obs.players)[None, :] - obs.seat[:, None]) % obs.players  # 0 itself, 1 next clockwise
        family_score = -held.astype(float) + 100.0 * (after == 0) - 0.01 * after
        # the best family with a candidate, then its first source (as the first best of all (family, source) pairs)
        family = np.where(any_last(cand), family_score, -np.inf).argmax(axis=1)
        return family, cand[np.arange(obs.n), family].argmax(axis=1)

    @passes
    def consent(self, obs: Observation, legal) -> np.ndarray:
        """Consent to another family appointing its own relative (nepotism)? The base strategy refuses (the
        engine's default answer, so it is not asked)."""
        return np.zeros(obs.n, dtype=bool)

    # ----------------------------------------------------------------------------------- phase 6 Chairman
    @shared(
        reads=(
            "director_checks",
            "director_from",
            "min_order",
            "open_min",
            "trade_cost",
            "invest_debt",
            "max_debt",
            "waiting_loans",
        )
    )
    def take_loans(self, obs: Observation, legal) -> np.ndarray:
        """Loans this round (0..legal.max_loans; above legal.free_loans needs the board): what the Company's plan
        (ships for the reachable orders, the Presidents' dice, a Director's check) lacks beyond the balance, within
        ``max_debt`` plus the relatives waiting on the exchange (``company.take_loans``)."""
        return company.take_loans(self, obs, legal)

    @shared(reads=("invest_debt", "waiting_loans"))
    def approve_loans(self, obs: Observation, legal) -> np.ndarray:
        """Board vote on loans beyond the free ones (``legal.loans``, ``legal.chairman``): yes for one's own
        Chairman, otherwise while the debt stays within ``max_debt`` plus the waiting buyers."""
        return company.approve_loans(self, obs, legal)

    @shared(reads=("director_checks", "director_from", "min_order", "open_min", "trade_cost"))
    def allocate_budget(self, obs: Observation, legal) -> np.ndarray:
        """Hand out the whole ``legal.budget`` to [Director of Trade, Shipping Manager, 3 presidencies], only to
        committees whose office is held (``legal.open`` bool[G', 5], L132): int[G', 5]. The plan's needs first,
        the rest to the presidencies that trade (``company.allocate_budget``)."""
        return company.allocate_budget(self, obs, legal)

    @shared
    def trade_check(self, obs: Observation, legal) -> np.ndarray:
        """Dice for the Director of Trade's next check (``legal.treasury``, ``legal.openable`` bool[G', O+1]; 0
        stops): the dice that pay for what opening adds to the reachable orders (``company.trade_check``)."""
        return company.trade_check(self, obs, legal)

    @shared
    def open_order(self, obs: Observation, legal) -> np.ndarray:
        """Which closed order (or the route to China, the last column of ``legal.openable``) a success opens: the
        one that adds the most reachable value."""
        return company.open_order(self, obs, legal)

    @shared(reads=("min_order",))
    def director_moves(self, obs: Observation, legal) -> tuple[np.ndarray, ...]:
        """Up to M moves (kind, family, src, dst, count)[G', M] (``legal.clerks``, ``legal.ships``,
        ``legal.yard_ships``, ``legal.china_open``): ships from seas with spare ships to the seas that lack them, and
        to China when it is open with opium to carry."""
        return company.director_moves(self, obs, legal)

    # ------------------------------------------------------------------------------ phase 6 Shipping Manager
    @shared(reads=("lease_reserve", "min_order"))
    def buy_ships(self, obs: Observation, legal) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(leased[G', P], company[G', P], yard[G', N, P]) ships bought per sea (``legal.money``, ``legal.free_yards``
        int[G', N], ``legal.yard_cost`` int[G'] £ per yard ship): the seas that lack ships first, family yards
        before Company ships; spends down below 3 £ as the rules oblige."""
        return company.buy_ships(self, obs, legal)

    # ---------------------------------------------------------------------------- phase 6 Military Affairs
    @shared
    def assign_academy(self, obs: Observation, legal) -> np.ndarray:
        """int[G', N, P]: every family's academy officers go to the army where it has most officers already."""
        army = obs.officers.argmax(axis=2)  # [G', N]
        out = np.zeros((obs.n, obs.players, L.PRESIDENCIES), dtype=np.int64)
        np.put_along_axis(out, army[:, :, None], legal.academy[:, :, None].astype(np.int64), axis=2)
        return out

    @shared
    def military_moves(self, obs: Observation, legal) -> tuple[np.ndarray, ...]:
        """Up to M moves (kind, family, src, dst, count)[G', M] of officers or regiments; none by default."""
        m = obs.rules.military.moves
        return tuple(np.zeros((obs.n, m), dtype=np.int64) for _ in range(5))

    @shared
    def pick_commander(self, obs: Observation, legal) -> np.ndarray:
        """Military Affairs breaks a tie for command (``legal.tied`` bool[G', N]): own family if tied."""
        own = legal.tied[np.arange(obs.n), obs.seat]
        return np.where(own, obs.seat, legal.tied.argmax(axis=1))

    # ----------------------------------------------------------------------------------- phase 6 governors
    @shared
    def govern(self, obs: Observation, legal) -> np.ndarray:
        """Take another administrative action with ``legal.dice`` dice? While at least two dice remain."""
        return legal.dice >= 2

    @shared
    def govern_effect(self, obs: Observation, legal) -> np.ndarray:
        """On a success: regiment, half a ship, tax to the Company or tax to the presidency (layout.G_*)."""
        taxed = obs.taxed[np.arange(obs.n), legal.region] > 0
        return np.where(taxed, L.G_REGIMENT, L.G_TAX_COMPANY)

    # -------------------------------------------------------------------------------- phase 6 commanders
    @shared
    def deploy(self, obs: Observation, legal) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(target region or -1, officers int[G', N], regiments int[G'], mercenaries bool[G', M]) for army
        ``legal.army`` (``legal.targets`` bool[G', R], ``legal.strength`` int[G', R], ``legal.officers`` int[G', N],
        ``legal.regiments``, ``legal.mercenaries`` bool[G', M] bands on offer, ``legal.treasury`` the presidency's
        £): a battle only at two dice or more and a positive expected gain for the family, without mercenaries,
        committing only the troops those dice need (``military.plan_deployment``)."""
        return military.plan_deployment(self, obs, legal, 2, 2, False, 0.0)

    @shared
    def fund_mercenaries(self, obs: Observation, legal) -> np.ndarray:
        """The President pays for the mercenaries a commander asked for?"""
        return legal.cost <= obs.treasury[np.arange(obs.n), np.asarray(L.T_PRESIDENCY)[legal.army]] // 2

    @shared
    def share_loot(self, obs: Observation, legal) -> np.ndarray:
        """Families (bool[G', N]) the commander names for a share of the loot: his own."""
        return np.arange(obs.players)[None, :] == obs.seat[:, None]

    # -------------------------------------------------------------------------------- phase 6 presidents
    @shared(reads=("trade_cost",))
    def trade(self, obs: Observation, legal) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(spend, orders bool[G', O], clerk_pay int[G', N]) for presidency ``legal.presidency`` (``legal.orders``
        reachable, ``legal.ships``, ``legal.treasury``, ``legal.clerks`` int[G', N]): the most valuable orders one
        per ship with the dice that pay best, own clerks placed first (``company.trade``)."""
        return company.trade(self, obs, legal, _clerks_placed)

    @shared
    def china_trade(self, obs: Observation, legal) -> np.ndarray:
        """Send the China committee's ships? When there is opium to carry."""
        return legal.opium > 0

    # ------------------------------------------------------------------------------------ phase 7 accounts
    @shared
    def royal_protection(self, obs: Observation, legal) -> np.ndarray:
        """Invoke royal protection (once per game) to cancel ``legal.shortfall`` £ of unpaid costs? When it saves
        a stability point (two emergency loans) or late in the game."""
        return company.royal_protection(self, obs, legal)

    @shared(reads=("cash_out_risk", "target_stability"))
    def pay_dividends(self, obs: Observation, legal) -> np.ndarray:
        """Payouts (0..``legal.max_payouts``, ``legal.per_payout`` £ each): the fewest that cover E(s) while
        stability is below ``target_stability``; everything in the last round (``company.pay_dividends``)."""
        return company.pay_dividends(self, obs, legal)

    # ---------------------------------------------------------------------------------- phase 8 India
    @shared
    def defend(self, obs: Observation, legal) -> tuple[np.ndarray, np.ndarray]:
        """An attack or revolt of strength ``legal.attack`` int[G'] on Company region ``legal.region`` (army
        ``legal.army``): commit (officers int[G', N], regiments int[G']) from the troops not used this round,
        ``legal.officers`` int[G', N] and ``legal.regiments`` int[G'], worth at least the attack (ties hold).
        Balanced: exactly the attack, regiments first, then other families' officers, its own last, so the army
        keeps the most for the revolts that may follow."""
        return minimal_defence(legal.officers, legal.regiments, legal.attack, obs.seat)

    # ------------------------------------------------------------------------- phase 1 and 10
    @shared(reads=("vp_worth",))
    def retire(self, obs: Observation, legal) -> np.ndarray:
        """Honourable retirement tier for the family's retiring relative, or -1 to send him home unpaid (R-RETIRE).

        ``legal.office`` int[G'] the office he leaves, ``legal.affordable`` bool[G', T] tiers the family can pay,
        ``legal.final`` bool[G'] the end-of-game retirement (no upkeep follows, no position), ``legal.pick``
        bool[G'] cards are on display and the family has paid no honourable retirement yet this round: paying one
        now gives it the right to a pick (L72). Returns int[G'].
        Final: the most VP it can afford (home when no tier scores). Otherwise each tier is worth its VP (2.5 £
        each) less its cost and the upkeep of the rounds left, plus the best card on display when it wins a pick;
        it must leave the family the next upkeep; home is worth nothing."""
        d = obs.rules.d
        money = obs.own("money")
        rounds_left = obs.rules.game.rounds - obs.round.astype(np.int64) + 1  # upkeep phases still to pay
        if kernels.use(obs.n):
            args = (d.tier_vp, d.tier_cost, d.tier_upkeep, float(self.vp_worth))
            return _retire(
                money, rounds_left, obs.market, card_values(obs), legal.pick, legal.final, legal.affordable, *args
            )
        best_card = np.maximum(display_values(obs, obs.market).max(axis=1, initial=-np.inf), 0.0)
        value = self.vp_worth * d.tier_vp - d.tier_cost - d.tier_upkeep * rounds_left[:, None]
        value = value + np.where(legal.pick, best_card, 0.0)[:, None]
        ok = legal.affordable & (money[:, None] >= d.tier_cost + d.tier_upkeep)
        final = legal.final[:, None]
        value = np.where(final, 100.0 * d.tier_vp - d.tier_cost, value)
        ok = np.where(final, legal.affordable & (d.tier_vp > 0), ok)
        tier = pick_best(value, ok)
        best = value[np.arange(obs.n), np.maximum(tier, 0)]
        return np.where((tier >= 0) & (best > 0), tier, -1)

    @shared(reads=("rank_share_buyers",))
    def rank_position_takers(self, obs: Observation, legal) -> np.ndarray:
        """The Prime Minister orders the families tied for a position pick (``legal.tied`` bool[G', N]; only the
        order among tied families is used): a permutation of the seats int[G', N], own family first."""
        return self.rank_share_buyers(obs, legal)

    @shared
    def take_position(self, obs: Observation, legal) -> np.ndarray:
        """A card on display (``legal.cards`` int[G', M] card index per slot, -1 empty): the slot to take, or -1 to
        pass. The card worth most (``card_values``)."""
        values = display_values(obs, legal.cards)
        slot = values.argmax(axis=1) if values.shape[1] else np.full(obs.n, -1)
        return np.where(values.max(axis=1, initial=-np.inf) > 0, slot, -1)

    @shared
    def play_position(self, obs: Observation, legal) -> np.ndarray:
        """Closed cards to play now (``legal.playable`` bool[G', D] at moment ``legal.moment``, an index of
        layout.CARD_MOMENTS; at "appointments", ``legal.office`` the office and at most one card): bool[G', D].
        Plays everything at once: money is worth more early, and a waiver is played when nepotism would block."""
        if (legal.moment == L.CARD_MOMENTS.index("appointments")).any():
            first = legal.playable.argmax(axis=1)
            one = np.zeros(legal.playable.shape, dtype=bool)
            one[np.arange(obs.n), first] = legal.playable.any(axis=1)
            return one
        return legal.playable.copy()

    @shared
    def keep_retirees(self, obs: Observation, legal) -> np.ndarray:
        """Phase 10: retirees kept in honourable retirement per tier (``legal.retired`` int[G', T] the family's,
        ``legal.money`` int[G']): int[G', T], at most ``retired``, their upkeep at most ``money`` (tiers without
        upkeep are always kept); a retiree may be let go only when the money cannot pay for him (L243). Keeps the
        most valuable tier first, while the money lasts."""
        d = obs.rules.d
        money = legal.money.astype(np.int64).copy()
        kept = np.zeros(legal.retired.shape, dtype=np.int64)
        for t in np.argsort(-d.tier_vp, kind="stable"):
            up = int(d.tier_upkeep[t])
            if up == 0:
                kept[:, t] = legal.retired[:, t]
                continue
            kept[:, t] = np.minimum(legal.retired[:, t], money // up)
            money -= kept[:, t] * up
        return kept

    # ------------------------------------------------ politics: phases 9 and 11, notes, the Governor-General
    @shared
    def table_law(self, obs: Observation, legal) -> tuple[np.ndarray, np.ndarray]:
        """The PM tables a law: (law int[G'], side int[G']): one of ``legal.candidates`` bool[G', LAWS] with the
        side (0 down, 1 up the track) of its policy among ``legal.options`` int[G', LAWS, 2] (-1: no policy), or
        law -1 to draw another (only where ``legal.can_draw``). The best law for the family and its support;
        draws again while the best is worth less than 0."""
        law, side, worth = politics.best_law(obs, legal.candidates, legal.options)
        draw = legal.can_draw & (worth < 0)
        return np.where(draw, -1, law), side

    @shared
    def impeach(self, obs: Observation, legal) -> np.ndarray:
        """Public Demands Impeachment!: the office (``legal.held`` bool[G', OFFICES]) whose holder the PM names:
        one held by the most influential other family."""
        infl = politics.influence(obs).astype(float)
        holder = np.maximum(obs.office, 0)
        score = np.take_along_axis(infl, holder, axis=1) - 1000.0 * (obs.office == obs.seat[:, None])
        return pick_best(score, legal.held)

    def vote(self, obs: Observation, legal) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(side int[G'] +1/0/-1, votes bought int[G'], notes bool[G', N] of kind 4 to use) on the tabled law
        (``legal.law``, ``legal.policy``, ``legal.support``) or on Deregulation (``legal.deregulation``); the PM
        votes for where ``legal.must_for``. For what pays, against what costs; buys votes only where the expected
        vote (every family's property votes on the side of its stake) goes the wrong way, and no more than the
        stake is worth."""
        game, back = values.game_rows(obs)  # the stakes and the expected net are values of the game alone

        def at_game(a: np.ndarray) -> np.ndarray:  # a legal option the same in every row of a game, per game
            if game is obs:
                return a
            out = np.empty(game.n, dtype=a.dtype)
            out[back] = a
            return out

        dereg = at_game(legal.deregulation)
        if dereg.all():
            all_stakes = politics.deregulation_stakes(game, self)
        elif not dereg.any():
            all_stakes = politics.stakes(game, at_game(legal.law), at_game(legal.policy))
        else:
            law_stakes = politics.stakes(game, at_game(legal.law), at_game(legal.policy))
            all_stakes = np.where(dereg[:, None], politics.deregulation_stakes(game, self), law_stakes)
        stake = all_stakes[back, obs.seat]
        is_pm = legal.prime_minister == obs.seat
        side = politics.sides(stake)
        side = np.where((is_pm & ~legal.deregulation) | legal.must_for, 1, side)
        pm_for = ~legal.deregulation | legal.must_for
        support = at_game(legal.support)
        expected = politics.expected_net(game, all_stakes, support, np.ones(game.n, dtype=bool)).take(back)
        if not pm_for.all():  # the PM votes his stake in these rows (Deregulation, unless bound to vote for)
            own = politics.expected_net(game, all_stakes, support, np.zeros(game.n, dtype=bool)).take(back)
            expected = np.where(pm_for, expected, own)
        need = np.where(side > 0, np.maximum(-expected, 0), np.where(side < 0, np.maximum(expected + 1, 0), 0))
        cost = np.maximum(legal.vote_cost, 1)
        margin = np.maximum(np.abs(stake) - self.vote_margin, 0)
        worth = np.floor(margin)  # margin // 1, several times faster
        dear = np.flatnonzero(cost != 1)
        worth[dear] = margin[dear] // cost[dear]
        money = obs.own("money")
        bought = np.minimum(np.minimum(need, worth), money // cost).astype(np.int64)
        return side, np.where(side != 0, bought, 0), legal.notes & (side != 0)[:, None]

    @shared
    def choose_prime_minister(self, obs: Observation, legal) -> np.ndarray:
        """The old PM names the new one among the tied (``legal.tied`` bool[G', N]): the least influential."""
        return pick_best(-politics.influence(obs).astype(float), legal.tied)

    @shared
    def choose_policy(self, obs: Observation, legal) -> np.ndarray:
        """After a failed law the new PM applies one of two neighbouring policies (``legal.options`` int[G', 2]):
        0 or 1, the better for his family."""
        down = politics.my_policy_value(obs, legal.options[:, 0])
        up = politics.my_policy_value(obs, legal.options[:, 1])
        return (up > down).astype(np.int64)

    @shared
    def war_losses(self, obs: Observation, legal) -> tuple[np.ndarray, np.ndarray]:
        """War Against France!: the PM removes one ship (``legal.ships``: 4 Company-ship locations, then family
        yard ships per owner and location) and one officer or regiment (``legal.troops``: 3 armies' regiments,
        then officers per family and army); -1 where none is left. Others' first, then the Company's."""
        n = obs.players
        owner_s = np.concatenate([np.full(L.N_SHIP_LOCS, -1), np.repeat(np.arange(n), L.N_SHIP_LOCS)])
        owner_t = np.concatenate([np.full(L.PRESIDENCIES, -1), np.repeat(np.arange(n), L.PRESIDENCIES)])

        def score(owner):
            return np.where(owner[None, :] == obs.seat[:, None], 0.0, np.where(owner[None, :] < 0, 1.0, 2.0))

        return pick_best(score(owner_s), legal.ships), pick_best(score(owner_t), legal.troops)

    def table_deregulation(self, obs: Observation, legal) -> np.ndarray:
        """The PM tables Deregulation (``legal.stability_shaky`` / ``legal.debt_shaky`` bool[G'])? When the
        Company is in danger (to write off debt), or when he holds shares and expects the vote to reject it
        (share VP +1): the public support against every family's property votes on the side of its stake."""
        de = obs.rules.deregulation
        support = np.where(legal.stability_shaky & legal.debt_shaky, de.support_both, de.support_one)
        support = support + politics.in_force(obs, "deregulation_support")
        stakes = politics.deregulation_stakes(obs, self)
        expected = politics.expected_net(obs, stakes, support, np.zeros(obs.n, dtype=bool))
        shares = politics.assets(obs)[np.arange(obs.n), obs.seat, laws.SHARES]
        return politics.company_in_danger(obs, self) | ((shares > 0) & (expected < 0))

    @shared(reads=("danger_debt", "danger_stability"))
    def offer_notes(self, obs: Observation, legal) -> tuple[np.ndarray, np.ndarray]:
        """Sealed offers (D-DEALS) of the notes ``legal.held`` bool[G', N issuer, 5 kinds]: (buyer int[G', N, 5],
        -1 none; price int[G', N, 5]). Before a vote (``legal.moment == "vote"``) a family that does not care
        sells its own property-vote note for half its votes in £: on a law to the PM, who wants it passed; on
        Deregulation to the family with the most at stake."""
        shape = (obs.n, obs.players, len(obs.rules.notes.kinds))  # legal.held's, without gathering it
        none = np.broadcast_to(np.int64(-1), shape), np.broadcast_to(np.int64(0), shape)
        at_vote = legal.moment == "vote"
        if not at_vote.any():
            return none  # no offer (constant read-only arrays: nothing to fill)
        rows = np.arange(obs.n)
        games, at = values.game_rows(obs)  # a value of the game alone is worked out once per game
        votes = politics.property_votes(games)[at, obs.seat]
        own_votes = (rows * obs.players + obs.seat) * shape[2] + notes.VOTES  # its own vote note, flat
        sell = at_vote & (votes > 0) & legal.held.reshape(-1).take(own_votes)
        if not sell.any():
            return none
        if legal.deregulation.any():
            dereg = politics.deregulation_stakes(obs, self)
            others = np.where(np.arange(obs.players)[None, :] == obs.seat[:, None], -1.0, np.abs(dereg))
            mine, target, keen = dereg[rows, obs.seat], others.argmax(axis=1), others.max(axis=1) >= 2
        if not legal.deregulation.all():
            law_mine = values.on_games(obs, politics.stakes, legal.law, legal.policy)[rows, obs.seat]  # my_stake's
            if legal.deregulation.any():
                mine = np.where(legal.deregulation, mine, law_mine)
                target = np.where(legal.deregulation, target, obs.prime_minister)
                keen |= ~legal.deregulation
            else:
                mine, target, keen = law_mine, obs.prime_minister, True
        sell &= (np.abs(mine) < 1) & (target >= 0) & (target != obs.seat) & keen
        buyer = np.full(shape, -1, dtype=np.int8)  # seats, as the engine keeps them
        price = np.zeros(shape, dtype=np.int32)
        buyer.reshape(-1)[own_votes] = np.where(sell, target, -1)
        price.reshape(-1)[own_votes] = np.maximum(1, votes // 2)
        return buyer, price

    @passes
    def offer_exchange(self, obs: Observation, legal) -> tuple[np.ndarray, np.ndarray]:
        """Sealed offers of money and property (L56, D-GIFTS; ``legal.goods`` int[G', 4] what the family may hand
        over, in ``notes.GOODS`` order): (give int[G', N, 4], ask int[G', N, 4]) to each other family. Balanced
        play makes none (``passes``: the engine does not even ask)."""
        none = np.zeros((obs.n, obs.players, legal.goods.shape[1]), dtype=np.int64)
        return none, none.copy()

    @shared
    def accept_exchange(self, obs: Observation, legal) -> np.ndarray:
        """Accept offers (``legal.offered`` bool[G', N] from each family, handing over ``legal.given`` int[G', N, 4]
        and asking ``legal.asked`` int[G', N, 4]; in all at most ``legal.goods`` int[G', 4]): every gift, nothing
        that asks something in return."""
        return legal.offered & (legal.asked.sum(axis=2) == 0)

    @shared(reads=("danger_debt", "danger_stability"))
    def accept_notes(self, obs: Observation, legal) -> np.ndarray:
        """Accept offers (``legal.offered`` bool[G', N issuer, 5 kinds] at ``legal.price``; at most ``legal.money``
        in all): a vote note worth more than its price for the coming vote, a money note below what it can take."""
        rows = np.arange(obs.n)
        dereg = legal.deregulation
        if dereg.any():  # each row's stake in the vote: on Deregulation or on the law (only the one needed)
            stake = politics.deregulation_stakes(obs, self)[rows, obs.seat]
        if not dereg.all():
            law = politics.my_stake(obs, legal.law, legal.policy)
            stake = np.where(dereg, stake, law) if dereg.any() else law
        stake = np.abs(stake)
        worth = np.zeros(legal.offered.shape)
        at_vote = (legal.moment == "vote")[:, None]
        worth[:, :, notes.VOTES] = np.where(at_vote, np.minimum(politics.property_votes(obs), stake[:, None]), 0)
        worth[:, :, notes.MONEY] = np.minimum(obs.rules.notes.money_max, obs.money)
        take = legal.offered & (worth > legal.price)
        cost = np.where(take, legal.price, 0).reshape(obs.n, -1)
        short = np.flatnonzero(sum_last(cost) > legal.money)  # rows that cannot pay for all: the best first
        if short.size == 0:
            return take
        at = [a.reshape(obs.n, -1).take(short, axis=0) for a in (take, worth, legal.price)]
        order = np.argsort(-np.where(at[0], at[1] - at[2], -np.inf), axis=1)
        spent = np.cumsum(np.take_along_axis(cost.take(short, axis=0), order, axis=1), axis=1)
        keep = np.ones(cost.shape, dtype=bool)
        kept = np.zeros(order.shape, dtype=bool)
        np.put_along_axis(kept, order, spent <= legal.money.take(short)[:, None], axis=1)
        keep[short] = kept
        return take & keep.reshape(take.shape)

    @shared
    def use_money_notes(self, obs: Observation, legal) -> np.ndarray:
        """£ to take now from each issuer whose money note it holds (``legal.notes`` bool[G', N], at most
        ``legal.cap`` int[G', N]): all it can."""
        return np.where(legal.notes, legal.cap, 0)

    @shared
    def use_bonus_note(self, obs: Observation, legal) -> np.ndarray:
        """Take ``legal.amount`` £ of ``legal.issuer``'s committee bonus (flow ``legal.flow``) with his note?"""
        return legal.amount > 0

    @shared
    def use_position_note(self, obs: Observation, legal) -> np.ndarray:
        """Take ``legal.issuer``'s position pick in the London season with his note? Yes."""
        return np.ones(obs.n, dtype=bool)

    @shared
    def remove_officeholder(self, obs: Observation, legal) -> np.ndarray:
        """Board of Control: the office (``legal.removable`` bool[G', OFFICES]) whose holder the PM removes, -1
        none: only a rival family's holding three offices or more."""
        held = seat_counts(obs.office, obs.players)
        rival = np.take_along_axis(held, np.maximum(obs.office, 0), axis=1)
        ok = legal.removable & (rival >= 3) & (obs.office != obs.seat[:, None])
        return pick_best(np.arange(L.N_OFFICES, dtype=float)[None, :].repeat(obs.n, 0), ok)

    @shared
    def oversee_army(self, obs: Observation, legal) -> np.ndarray:
        """Military Oversight: the army (``legal.armies`` bool[G', 3]) whose commander the PM replaces, -1 none:
        one where his family has officers and another family commands."""
        mine = obs.officers[np.arange(obs.n), obs.seat] > 0  # [G', 3]
        ok = legal.armies & mine & (obs.commander != obs.seat[:, None])
        return pick_best(obs.officers[np.arange(obs.n), obs.seat].astype(float), ok)

    @shared
    def general_govern(self, obs: Observation, legal) -> np.ndarray:
        """The Governor-General governs this round (``legal.dice`` dice, ``legal.regions`` the Company's)? Yes."""
        return np.ones(obs.n, dtype=bool)

    @shared
    def general_effects(self, obs: Observation, legal) -> np.ndarray:
        """int[G', R]: the governor effect (layout.G_*) he applies in each Company region: tax to the Company
        where it was not taxed this round, else a regiment."""
        return np.where(obs.taxed > 0, L.G_REGIMENT, L.G_TAX_COMPANY).astype(np.int64)

    # ------------------------------------------ private firms: phases 3, 6 and 7.1 (strategies/firms.py)
    @shared
    def open_firm(self, obs: Observation, legal) -> np.ndarray:
        """Phase 3: a family managing no firm opens one? (``legal.factory`` / ``legal.share`` bool[G']: it may invest
        an uninvested factory with a relative at home / a Company share). Returns int[G']: 0 no, 1 with a factory,
        2 with a share. Balanced: while >= 3 rounds are left and a shipyard is free; a share first when the Company
        looks doomed or it holds two, else a spare factory."""
        return firm_play.balanced_open_firm(obs, legal)

    @shared
    def invest_in_firms(self, obs: Observation, legal) -> tuple[np.ndarray, np.ndarray]:
        """Phase 3 offers: (factories int[G', F], shares int[G', F]) to invest in each firm (``legal.firms`` bool[G', F]
        open firms; at most ``legal.factories`` / ``legal.shares`` int[G'] in all; ``legal.room`` int[G', F]
        shareholders each firm may still take). The manager consents (his own family needs not)."""
        return firm_play.balanced_invest_in_firms(obs, legal)

    @shared
    def consent_investment(self, obs: Observation, legal) -> np.ndarray:
        """The manager of firm ``legal.firm`` accepts the offers of each family (``legal.factories`` /
        ``legal.shares`` int[G', N]; ``legal.emergency`` in phase 7.1): bool[G', N]."""
        return firm_play.balanced_consent_investment(obs, legal)

    @shared
    def take_over_firm(self, obs: Observation, legal) -> np.ndarray:
        """A family managing no firm names a firm to take over (``legal.firms`` bool[G', F]), -1 none: int[G']."""
        return firm_play.balanced_take_over_firm(obs, legal)

    @shared
    def approve_manager(self, obs: Observation, legal) -> np.ndarray:
        """A shareholder votes its shares (``legal.shares`` int[G', F]) on each firm's candidate manager
        (``legal.candidate`` int[G', F], -1 none): bool[G', F]."""
        return firm_play.balanced_approve_manager(obs, legal)

    @shared
    def propose_merger(self, obs: Observation, legal) -> np.ndarray:
        """The manager of ``legal.firm`` proposes merging with one of ``legal.firms`` (bool[G', F]), -1 none."""
        return firm_play.balanced_propose_merger(obs, legal)

    @shared
    def consent_merger(self, obs: Observation, legal) -> np.ndarray:
        """Consent to merging ``legal.firms`` int[G', 2] (the proposer's, the other; jc2e emergency merger when
        ``legal.rescue``: the rescuer's, the failing firm) into ``legal.survivor`` int[G'], the families losing
        ``legal.lose`` int[G', N] shares: bool[G']."""
        return firm_play.balanced_consent_merger(obs, legal)

    @shared
    def firm_ships(self, obs: Observation, legal) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The manager of ``legal.firm`` asks for (build int[G', N] ships at each family's free yards,
        ``legal.free_yards``, ``legal.cost`` £ each; jc2e ``legal.buyback``: sound int[G', N, 4] and damaged
        int[G', N, 4] Company yard ships bought back, at most ``legal.sound`` / ``legal.damaged``, for
        ``legal.price_sound`` / ``legal.price_damaged``), all within ``legal.cash``. The yard owners consent."""
        return firm_play.balanced_firm_ships(obs, legal)

    @shared
    def consent_yard(self, obs: Observation, legal) -> np.ndarray:
        """A yard owner lets each firm build (``legal.build`` int[G', F]) or buy back (``legal.buy``) ships at his
        shipyards: bool[G', F]."""
        return firm_play.balanced_consent_yard(obs, legal)

    @shared
    def firm_strategy(self, obs: Observation, legal) -> tuple[np.ndarray, np.ndarray]:
        """The sealed trade strategy of ``legal.firm`` (``legal.cash``, ``legal.ships``, ``legal.due`` its 7.1 costs):
        (port int[G'] 0-2 or -1 for none / Hobnob, bid int[G'] 1..cash with a port, 0 without)."""
        return firm_play.balanced_firm_strategy(obs, legal)

    @shared
    def order_traders(self, obs: Observation, legal) -> np.ndarray:
        """The President (else the Chairman) orders traders tied on initiative at ``legal.presidency``
        (``legal.traders`` bool[G', F+1], firms then the Company last; ``legal.initiative`` int[G', F+1]): a
        permutation int[G', F+1], lower first among the tied."""
        return firm_play.balanced_order_traders(obs, legal)

    @shared
    def firm_trade(self, obs: Observation, legal) -> np.ndarray:
        """The manager of ``legal.firm`` fills orders (``legal.orders`` bool[G', O] reachable from its port;
        ``legal.half`` those paying half; at most ``legal.limit``): bool[G', O]."""
        return firm_play.balanced_firm_trade(obs, legal)

    @shared
    def emergency_invest(self, obs: Observation, legal) -> np.ndarray:
        """Phase 7.1: invest one asset in failing firm ``legal.firm`` (short ``legal.shortfall`` int[G'] £;
        ``legal.factory`` / ``legal.share`` bool[G'])? int[G']: 0 no, 1 a factory, 2 a share."""
        return firm_play.balanced_emergency_invest(obs, legal)

    @shared
    def waive_dividends(self, obs: Observation, legal) -> tuple[np.ndarray, np.ndarray]:
        """Before firms' dividends: (shares int[G', F] waived of its ``legal.shares``, bool[G', F] its manager's
        portion waived where ``legal.manager``) in the paying firms ``legal.firms`` (``legal.available``,
        ``legal.per_payout`` int[G', F]). jc2e: the manager consents."""
        return firm_play.balanced_waive_dividends(obs, legal)

    @shared
    def consent_waivers(self, obs: Observation, legal) -> np.ndarray:
        """jc2e: the manager of ``legal.firm`` accepts the waivers of each family (``legal.waived`` int[G', N])."""
        return firm_play.balanced_consent_waivers(obs, legal)

    @shared
    def firm_dividends(self, obs: Observation, legal) -> np.ndarray:
        """Payouts of ``legal.per_payout`` £ each by ``legal.firm``, 0..``legal.max_payouts`` (``legal.available``)."""
        return firm_play.balanced_firm_dividends(obs, legal)

    @shared
    def dissolve_firm(self, obs: Observation, legal) -> np.ndarray:
        """jc2e: the manager of ``legal.firm`` proposes dissolving it (its shareholders then go to debtors'
        prison if all consent): bool[G']. Balanced: never."""
        return firm_play.balanced_dissolve_firm(obs, legal)

    @shared
    def consent_dissolution(self, obs: Observation, legal) -> np.ndarray:
        """jc2e: a shareholder of ``legal.firm`` consents to its dissolution: bool[G']."""
        return firm_play.balanced_consent_dissolution(obs, legal)

    @shared
    def rescue_firm(self, obs: Observation, legal) -> np.ndarray:
        """jc2e emergency merger: the manager of ``legal.own`` pays ``legal.cost`` (its own unpaid costs and
        ``legal.shortfall``) and merges with failing ``legal.firm``? bool[G']."""
        return firm_play.balanced_rescue_firm(obs, legal)


def place_clerks(obs: Observation, clerks: np.ndarray, count: np.ndarray) -> np.ndarray:
    """int[G', N] clerks placed on filled orders: the deciding family's first, then clockwise."""
    order = values.clockwise(obs)
    ordered = np.take_along_axis(clerks.astype(np.int64), order, axis=1)
    before = np.cumsum(ordered, axis=1) - ordered
    placed = np.clip(np.minimum(count, clerks.sum(axis=1))[:, None] - before, 0, ordered)
    out = np.zeros_like(placed)
    np.put_along_axis(out, order, placed, axis=1)
    return out


def _clerks_placed(obs: Observation, clerks: np.ndarray, count: np.ndarray) -> np.ndarray:
    """``place_clerks``, row by row in ``_place_clerks`` when the kernels run."""
    if kernels.use(obs.n):
        out = np.empty(clerks.shape, dtype=np.int64)
        _place_clerks(clerks.astype(np.int64), np.asarray(count, dtype=np.int64), obs.seat, out)
        return out
    return place_clerks(obs, clerks, count)


@kernels.kernel
def _place_clerks(clerks, count, seat, out):
    """``place_clerks`` row by row: from the deciding seat clockwise, each family's clerks up to what is left of
    ``count`` (at most the clerks there are)."""
    n = clerks.shape[1]
    for g in range(clerks.shape[0]):
        total = 0
        for f in range(n):
            total += clerks[g, f]
        left = min(count[g], total)
        for j in range(n):
            f = (seat[g] + j) % n
            out[g, f] = min(max(left, 0), clerks[g, f])
            left -= clerks[g, f]
