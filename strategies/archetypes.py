"""The four strategies designers compare: ``bid_low``, ``buy_shares``, ``run_firm``, ``go_military``.

Each is a ``balanced`` family (``strategies.Strategy``) that overrides the decisions that make its plan and keeps
the base's competent answer everywhere else: whichever office it ends up holding, it runs it as ``balanced`` does
(a ``bid_low`` Chairman still borrows for the fleet and pays the dividends that keep the Company alive). Every
knob is a documented parameter (``PARAMS``); ``bid_low(max_bid=2)`` names a tuned one in the frames.

The defaults of the parameters the best-response study searched (docs/strategies.md, "The archetypes' best
responses") are its result after four rounds: each archetype's values are its best response to the other three's,
except buy_shares' ``max_debt``, which an audit of its Chairman's loans (``eastindia audit``, docs/guide.md "Is the
8-loan opening the best play?") raised from 0 to balanced's 8.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from sim import firms as fr
from sim import layout as L
from sim.agents import Observation
from sim.reduce import sum_last

from . import family, politics
from . import military as mil
from . import values as V
from .base import Param, Strategy, lot_worth, scaled_bids
from .registry import register


def responded(**defaults) -> dict[str, Param]:
    """Base parameters (``Strategy.PARAMS``) with the archetype's own defaults: the best-response study's values,
    their meaning and range kept."""
    return {k: dataclasses.replace(Strategy.PARAMS[k], default=v) for k, v in defaults.items()}


def _lot_kinds(obs: Observation) -> dict[str, np.ndarray]:
    """bool[LOTS] per kind of starting lot (D-LOTS): offices, the PM, shares, shipyards, factories, luxuries,
    officers (in an army or the academy), clerks."""
    d = obs.rules.d
    items = d.lot_items
    return {
        "office": d.lot_office >= 0,
        "chair": d.lot_office == L.CHAIRMAN,
        "military": d.lot_office == L.MILITARY,
        "pm": d.lot_pm.astype(bool),
        "shares": items["shares"] > 0,
        "shipyards": items["shipyards"] > 0,
        "factories": items["factories"] > 0,
        "luxuries": items["luxuries"] > 0,
        "officers": (items["officers"].sum(axis=1) + items["academy"]) > 0,
        "clerks": items["clerks"].sum(axis=1) > 0,
    }


def _vote_side(strategy, obs: Observation, legal, side_on_deregulation, spend: float):
    """The base vote, with the family's own side on Deregulation (``legal.deregulation``; ``side_on_deregulation``
    int or int[G']: +1 for, -1 against), buying votes up to ``spend`` of its money where the expected vote goes the
    other way."""
    side, bought, use = Strategy.vote(strategy, obs, legal)
    dereg = legal.deregulation
    if not dereg.any():
        return side, bought, use
    side_on_deregulation = np.broadcast_to(np.asarray(side_on_deregulation), (obs.n,))
    me = np.arange(obs.n), obs.seat
    stakes = politics.deregulation_stakes(obs, strategy)
    stakes[me] = side_on_deregulation * 10.0
    expected = politics.expected_net(obs, stakes, legal.support, legal.must_for)
    need = np.where(side_on_deregulation > 0, np.maximum(-expected, 0), np.maximum(expected + 1, 0))
    cost = np.maximum(legal.vote_cost, 1)
    afford = np.floor(obs.own("money") * spend).astype(np.int64) // cost
    mine = np.minimum(need, afford).astype(np.int64)
    forced = dereg & legal.must_for & (side_on_deregulation < 0)  # a PM bound to vote for (deregulation.pm_votes)
    side = np.where(forced, 1, np.where(dereg, side_on_deregulation, side))
    bought = np.where(forced, 0, np.where(dereg, mine, bought))
    use = np.where(dereg[:, None], legal.notes, use)
    return side, bought, use


# ------------------------------------------------------------------------------------------------------ bid_low
@register("bid_low")
class BidLow(Strategy):
    """Bids little or nothing to keep the most starting capital, then turns money into VP and influence."""

    PARAMS = {
        **Strategy.PARAMS,
        "max_bid": Param(1, "highest bid on any lot (R-AUCTION); 0 bids nothing at all", low=0),
        "bid_lots": Param(4, "lots it bids on at all: its most valuable ones (risky offices counted less)", low=0),
        "luxury_bonus": Param(2.03, "£ added to a luxury's worth in phase 2", low=0),
        "vp_worth": Param(2.98, "£ a VP is worth to the family (honourable retirements, luxuries)", low=0),
        "office_penalty": Param(3.61, "£ a risky office lot (one that rolls to retire) is worth less to it", low=0),
        "luxury_lot_bonus": Param(2.0, "£ added to a luxury lot's worth when it ranks the lots to bid on", low=0),
        "bid_raise": Param(0, "most it raises a bid by, 1 at a time, on a tie (R-AUCTION step and cap)", low=0),
        "prefer_officer": Param(-2.0, "£ added to an officer's worth in phase 2", low=-5, high=5),
        **responded(max_debt=2, invest_debt=0, danger_debt=2),
    }

    def bid(self, obs: Observation, legal):
        """``max_bid`` on its ``bid_lots`` most valuable lots, offices (which roll to retire and are fired on a
        mishap, L61, L136) counted ``office_penalty`` less, luxuries ``luxury_lot_bonus`` more; 0 on everything
        else, its bids raised by up to ``bid_raise`` on a tie."""
        kinds = _lot_kinds(obs)
        value = lot_worth(self, obs) - self.office_penalty * kinds["office"] + self.luxury_lot_bonus * kinds["luxuries"]
        rank = np.argsort(np.argsort(-value, kind="stable"), kind="stable")
        base = np.where(rank < self.bid_lots, self.max_bid, 0)[None, :].repeat(obs.n, axis=0).astype(np.int64)
        raise_ = np.where(base > 0, self.bid_raise, 0)
        return base, np.minimum(raise_, 1), base + raise_

    def action_values(self, obs: Observation, legal) -> np.ndarray:
        """Luxuries first (``luxury_bonus``), no officers (``prefer_officer``); the rest as ``balanced`` values it."""
        value = family.action_values(self, obs, legal)
        value[:, L.A_LUXURY] += self.luxury_bonus
        return value


# --------------------------------------------------------------------------------------------------- buy_shares
@register("buy_shares")
class BuyShares(Strategy):
    """Wins share lots and the chair, buys on the exchange, steers the Company to pay and keeps it stable."""

    PARAMS = {
        **Strategy.PARAMS,
        "share_bid": Param(2.7, "bid multiplier on share lots and the Chairman's lot", low=0),
        "share_bonus": Param(5.76, "£ added to a place on the exchange's worth in phase 2", low=0),
        "target_stability": Param(6, "stability its Chairman pays dividends to reach (L203-L208)", low=0),
        "cash_out_risk": Param(0.6, "crash risk from which its Chairman pays out the whole balance", low=0, high=1),
        "vote_spend": Param(0.1, "share of its money it spends on votes against Deregulation", low=0, high=1),
        "doubt_risk": Param(
            0.55, "crash risk from which it stops opposing Deregulation and stops buying shares", low=0, high=1
        ),
        **responded(invest_debt=7, bid_scale=1.08, danger_debt=2),  # max_debt: balanced's 8 (eastindia audit)
    }

    def bid(self, obs: Observation, legal):
        """Share lots and the chair at ``share_bid`` times their worth, the rest as ``balanced`` bids."""
        kinds = _lot_kinds(obs)
        return scaled_bids(
            self, obs, lot_worth(self, obs) * np.where(kinds["shares"] | kinds["chair"], self.share_bid, 1.0)
        )

    def action_values(self, obs: Observation, legal) -> np.ndarray:
        """Places on the exchange first (``share_bonus``) while the Company looks like surviving; less, then not at
        all, as its crash risk grows past ``doubt_risk`` (a share then loses VP)."""
        value = family.action_values(self, obs, legal)
        value[:, L.A_SHARES] += self.share_bonus * (1.0 - V.crash_risk(obs) / self.doubt_risk)
        return value

    def approve_loans(self, obs: Observation, legal) -> np.ndarray:
        """Loans become shares on the exchange (R-SHARES): yes while buyers wait for them, else as ``balanced``."""
        waiting = sum_last(obs.exchange >= 0)
        return super().approve_loans(obs, legal) | (legal.loans <= waiting)

    def table_deregulation(self, obs: Observation, legal) -> np.ndarray:
        """Only to see it rejected (share VP +1): when the vote is expected to fail and the Company looks like
        surviving (on a crash a higher share VP costs its shares more)."""
        de = obs.rules.deregulation
        support = np.where(legal.stability_shaky & legal.debt_shaky, de.support_both, de.support_one)
        support = support + politics.in_force(obs, "deregulation_support")
        stakes = politics.deregulation_stakes(obs, self)
        stakes[np.arange(obs.n), obs.seat] = -10.0
        fails = politics.expected_net(obs, stakes, support, np.zeros(obs.n, dtype=bool)) < 0
        return fails & (V.crash_risk(obs) < self.doubt_risk)

    def vote(self, obs: Observation, legal):
        """Against Deregulation (buying votes with ``vote_spend`` of its money) while the Company looks like
        surviving; for it (half the debt written off) once its crash risk reaches ``doubt_risk``; laws as
        ``balanced``."""
        side = np.where(V.crash_risk(obs) < self.doubt_risk, -1, 1)
        return _vote_side(self, obs, legal, side, self.vote_spend)


# ----------------------------------------------------------------------------------------------------- run_firm
@register("run_firm")
class RunFirm(Strategy):
    """Pushes Deregulation, opens a firm early, invests factories, builds ships, trades and pays dividends."""

    PARAMS = {
        **Strategy.PARAMS,
        "factory_bonus": Param(
            1.4, "£ added to a factory's worth in phase 2 (an asset to open or invest a firm)", low=0
        ),
        "yard_bonus": Param(2.5, "£ added to a shipyard's worth in phase 2 once Deregulation passed", low=0),
        "open_from_left": Param(1, "rounds that must be left (this one included) to open a firm", low=0),
        "vote_spend": Param(0.04, "share of its money it spends on votes for Deregulation", low=0, high=1),
        "firm_bid": Param(2.95, "bid multiplier on factory and shipyard lots", low=0),
        **responded(max_debt=1, invest_debt=3, bid_scale=0.48, prefer_luxury=3.7),
    }

    def bid(self, obs: Observation, legal):
        """Factories and shipyards at ``firm_bid`` times their worth, the rest as ``balanced`` bids."""
        kinds = _lot_kinds(obs)
        return scaled_bids(
            self, obs, lot_worth(self, obs) * np.where(kinds["factories"] | kinds["shipyards"], self.firm_bid, 1.0)
        )

    def action_values(self, obs: Observation, legal) -> np.ndarray:
        """Factories (``factory_bonus``) until it has a firm and a spare one, shipyards (``yard_bonus``) once firms
        act and its firm lacks a yard."""
        value = family.action_values(self, obs, legal)
        me = np.arange(obs.n), obs.seat
        firm = _my_firm(obs)
        few = obs.own("factories") < np.where(firm >= 0, 1, 2)
        value[:, L.A_FACTORY] += np.where(few & (V.rounds_left(obs) >= 3), self.factory_bonus, 0.0)
        free_own = np.maximum(obs.own("shipyards") - V.yard_use(obs)[me], 0)
        value[:, L.A_SHIPYARD] += np.where(obs.deregulated & (free_own == 0), self.yard_bonus, 0.0)
        return value

    def table_deregulation(self, obs: Observation, legal) -> np.ndarray:
        """Whenever it may (L245)."""
        return np.ones(obs.n, dtype=bool)

    def vote(self, obs: Observation, legal):
        """For Deregulation (buying votes with ``vote_spend`` of its money); laws as ``balanced``."""
        return _vote_side(self, obs, legal, +1, self.vote_spend)

    def open_firm(self, obs: Observation, legal) -> np.ndarray:
        """As soon as it may, with ``open_from_left`` rounds left: a spare factory first (a share keeps its VP if
        the Company survives), else a share."""
        ok = V.rounds_left(obs) >= self.open_from_left
        asset = np.where(legal.factory, fr.FACTORY, np.where(legal.share, fr.SHARE, fr.NO_ASSET))
        return np.where(ok, asset, fr.NO_ASSET).astype(np.int64)

    def invest_in_firms(self, obs: Observation, legal):
        """Its own firm: a factory, or a share, while the firm lacks the money for two ships and their upkeep."""
        facs, shares = (np.ascontiguousarray(a) for a in super().invest_in_firms(obs, legal))
        mine = _my_firm(obs)
        mc = np.arange(obs.n) * facs.shape[1] + np.maximum(mine, 0)  # its own firm in the flat [G' * F] arrays
        fi = obs.rules.firms
        poor = (mine >= 0) & legal.firms.reshape(-1).take(mc)
        poor &= obs.firm_cash.reshape(-1).take(mc) < 2 * fi.ship_cost + 4
        poor &= V.rounds_left(obs) >= 2
        flat_f, flat_s = facs.reshape(-1), shares.reshape(-1)
        add_f = poor & (legal.factories - facs.sum(axis=1) >= 1) & (flat_f[mc] == 0)
        flat_f[mc] += add_f
        add_s = poor & ~add_f & (legal.shares - shares.sum(axis=1) >= 1) & (flat_s[mc] == 0)
        flat_s[mc] += add_s
        return facs, shares


def _my_firm(obs: Observation) -> np.ndarray:
    """int[G']: the firm slot the deciding family manages, -1 none."""
    mine = obs.firm_manager == obs.seat[:, None]
    return np.where(mine.any(axis=1), mine.argmax(axis=1), -1)


# -------------------------------------------------------------------------------------------------- go_military
@register("go_military")
class GoMilitary(Strategy):
    """Officers to the academy, seeks Military Affairs and commands, conquers and loots, collects trophies, defends
    the Company's regions; conquers only what the Company can hold, weighed by its own stake in the Company."""

    PARAMS = {
        **Strategy.PARAMS,
        "officer_bonus": Param(5.37, "£ added to an officer's worth in phase 2", low=0),
        "officers_wanted": Param(3, "officers (academy and armies) it aims for", low=0),
        "officers_kept": Param(2, "officers it replaces even when the Company is fragile (a command to hold)", low=0),
        "idle_money": Param(6, "£ in hand from which it recruits less and turns its money (loot) into VP", low=0),
        "min_dice": Param(1, "fewest dice it attacks with (R-DEPLOY: force - strength)", low=0),
        "want_dice": Param(3, "dice it hires mercenaries towards when the presidency pays", low=0),
        "risk": Param(0.5, "0..1: how lightly it weighs a defeat's losses", low=0, high=1),
        "military_bid": Param(0.01, "bid multiplier on Military Affairs and officer lots", low=0),
        "fragile_risk": Param(
            0.66,
            "crash risk (values.crash_risk, with the expected losses of the regions held and the new one) from which "
            "it takes no new region (unless the Company is doomed: cash_out_risk) and recruits no officer beyond "
            "officers_kept",
            low=0,
            high=1,
        ),
        "future_vp": Param(
            1.0, "VP per round left that a crash costs it besides its shares and blame (the rounds it cuts off)", low=0
        ),
        **responded(max_debt=2, invest_debt=5, bid_scale=0.46, danger_debt=4),
    }

    def bid(self, obs: Observation, legal):
        """Military Affairs and officers at ``military_bid`` times their worth, the rest as ``balanced`` bids."""
        kinds = _lot_kinds(obs)
        return scaled_bids(
            self, obs, lot_worth(self, obs) * np.where(kinds["military"] | kinds["officers"], self.military_bid, 1.0)
        )

    def crash_loss(self, obs: Observation) -> np.ndarray:
        """float[G'] £ the family loses if the Company crashes: its shares' VP both ways and the chair
        (``values.company_stake``), the military blame (one situation in six: half its trophies and officers,
        L250), and ``future_vp`` for each round a crash would cut off (R-END)."""
        rows = np.arange(obs.n)
        blame = (obs.trophies[rows, obs.seat] + obs.officers[rows, obs.seat].sum(axis=1)) / 2.0 / 6.0
        future = self.future_vp * np.maximum(V.rounds_left(obs) - 1, 0)
        return np.maximum(V.company_stake(obs)[rows, obs.seat] + blame + future, 0.0) * V.VP_WORTH

    def holding(self, obs: Observation) -> tuple[np.ndarray, np.ndarray]:
        """(cost float[G'], risk float[G']): what one more Company region costs the family, and the crash risk it
        leaves. Each region held is lost before the end with chance 1 - (1 - ``REGION_LOSS_RATE``)^rounds left
        (L211-L213: attacks and revolts), a stability point each; the crash risk (``values.crash_risk``) with the
        regions held and the new one counted so, less the risk with the held ones, times ``crash_loss``."""
        left = V.rounds_left(obs).astype(float)
        lost = 1.0 - (1.0 - mil.REGION_LOSS_RATE) ** left  # per region
        held = (obs.owner >= 0).sum(axis=1) * lost
        before = V.crash_risk(mil._Shifted(obs, -held))
        after = V.crash_risk(mil._Shifted(obs, -(held + lost)))
        return np.maximum(after - before, 0.0) * self.crash_loss(obs), after

    def action_values(self, obs: Observation, legal) -> np.ndarray:
        """Officers to the academy (``officer_bonus``) until it has ``officers_wanted`` while a round is left after
        this one; beyond ``officers_kept`` only while the Company is not fragile (``fragile_risk``: each officer
        costs it 1 £ a round, L191); less as its money passes ``idle_money`` (loot is turned into VP)."""
        value = family.action_values(self, obs, legal)
        have = obs.own("officers").sum(axis=1) + obs.own("academy")
        idle = np.clip((obs.own("money") - self.idle_money) / 10.0, 0.0, 1.0)  # loot piling up: VP instead
        fragile = (V.crash_risk(obs) >= self.fragile_risk) & (have >= self.officers_kept)
        want = (have < self.officers_wanted) & (V.rounds_left(obs) >= 2) & ~fragile
        value[:, L.A_OFFICER] += np.where(want, (self.officer_bonus + 0.5) * (1.0 - idle), 0.0)
        return value

    def assign_academy(self, obs: Observation, legal) -> np.ndarray:
        """Every family's academy officers: its own to the army where it commands or has most; others' too."""
        army = mil.academy_army(obs)
        out = np.zeros((obs.n, obs.players, L.PRESIDENCIES), dtype=np.int64)
        np.put_along_axis(out, army[:, :, None], legal.academy[:, :, None].astype(np.int64), axis=2)
        return out

    def military_moves(self, obs: Observation, legal):
        """Its own officers gather in one army, where it takes or keeps the command."""
        return mil.officer_moves(obs, legal, obs.seat)

    def deploy(self, obs: Observation, legal):
        """Whenever the expected gain pays, with ``min_dice`` dice at least, hiring mercenaries towards
        ``want_dice`` (``military.plan_deployment``); a new region's price is its ``holding`` cost, and none is
        taken once the crash risk with it reaches ``fragile_risk`` --
        unless the Company is doomed anyway (``cash_out_risk``): then the loot and trophies are all that is left."""
        cost, after = self.holding(obs)
        conquer = (after < self.fragile_risk) | (V.crash_risk(obs) >= self.cash_out_risk)
        return mil.plan_deployment(self, obs, legal, self.min_dice, self.want_dice, True, self.risk, cost, conquer)

    def fund_mercenaries(self, obs: Observation, legal) -> np.ndarray:
        """As President: always for its own commander, else as ``balanced``."""
        own = obs.commander[np.arange(obs.n), legal.army] == obs.seat
        return own | super().fund_mercenaries(obs, legal)

    def share_loot(self, obs: Observation, legal) -> np.ndarray:
        """Only its own family."""
        return np.arange(obs.players)[None, :] == obs.seat[:, None]


__all__ = ["BidLow", "BuyShares", "GoMilitary", "RunFirm"]
