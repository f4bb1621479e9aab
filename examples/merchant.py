"""An example strategy for Corruption & East India: a merchant family that lives off the Company's trade.

Run it against the base strategy, rotated over the seats::

    eastindia run --strategy examples/merchant.py:Merchant --strategy balanced --games 2000

or list it with ``eastindia strategies --strategy examples/merchant.py:Merchant``. ``docs/strategies.md`` documents
every decision point, what the observation holds and what the engine rejects.

What it shows:

- a strategy is a subclass of ``strategies.Strategy`` (the ``balanced`` play): it overrides only the decisions that
  make it different and inherits a competent answer for every other one;
- its knobs are ``PARAMS`` with documented defaults, read as attributes (``self.yard_bonus``); ``Merchant(loan_cap=1)``
  makes a tuned one, named ``merchant(loan_cap=1)`` in the frames;
- every method is vectorised: ``obs`` holds the public state of G' games (``obs.money`` is int[G', N], ``obs.seat``
  int[G'] the deciding seat), ``legal`` the options as arrays over the same games, and the answer is arrays over
  them; a game is decided from its own rows only (no statistics over the batch, no Python loop over games);
- randomness comes from ``obs.rng`` (the seat's own stream), never from numpy's global generator;
- the shared valuations in ``strategies.values`` / ``strategies.family`` are there to reuse.
"""

from __future__ import annotations

import numpy as np

from sim import layout as L
from strategies import Strategy, values
from strategies import family as family_values
from strategies.base import Param, lot_values


class Merchant(Strategy):
    """Shipyards and clerks: earns from every Company ship at its yards and every order its clerks serve."""

    name = "merchant"  # a plugin loaded from a file keeps its class's name (``register`` sets it for built-ins)
    PARAMS = {
        **Strategy.PARAMS,  # keep the base's knobs: its inherited decisions read them
        "yard_bonus": Param(2.0, "£ added to a shipyard's worth in phase 2 while the Company lacks ships"),
        "clerk_bonus": Param(1.0, "£ added to a clerk's worth in phase 2"),
        "trade_bid": Param(1.5, "bid multiplier on shipyards, clerks and the Presidents' lots"),
        "loan_cap": Param(2, "loans its Chairman takes at most in a round"),
    }

    def bid(self, obs, legal):
        """Sealed auction bids (base, step, cap) int[G', LOTS] >= 0: shipyards, clerks and Presidents at
        ``trade_bid`` times their worth, the rest at their worth; each game's own jitter from ``obs.rng``."""
        d = obs.rules.d
        trade_lots = (d.lot_items["shipyards"] > 0) | (d.lot_items["clerks"].sum(axis=1) > 0)
        trade_lots |= np.isin(d.lot_office, list(L.PRESIDENT))
        value = lot_values(obs) * np.where(trade_lots, self.trade_bid, 1.0)
        jitter = 0.7 + 0.6 * obs.rng.uniform(value.size)  # float[G', LOTS]
        base = np.round(value[None, :] * jitter).astype(np.int64)
        return base, np.ones_like(base), base + 1

    def action_values(self, obs, legal):
        """The base valuation of each family action (float[G', ACTIONS], -inf where illegal), reweighed: shipyards
        while the Company's seas lack ships, clerks always. ``family_action`` picks the best of these."""
        value = family_values.action_values(self, obs, legal)
        lacking = np.maximum(values.ship_gap(obs), 0).sum(axis=1) > 0  # bool[G']
        value[:, L.A_SHIPYARD] += np.where(lacking, self.yard_bonus, 0.0)
        value[:, L.A_CLERK] += self.clerk_bonus
        return value

    def take_loans(self, obs, legal):
        """As Chairman: the base's loans (what the Company's plan lacks), never more than ``loan_cap`` a round.
        ``legal.max_loans`` int[G'] is the most the rules allow; more than ``legal.free_loans`` needs the board."""
        return np.minimum(super().take_loans(obs, legal), self.loan_cap)

    def consent(self, obs, legal):
        """Consent to another family appointing its own relative (nepotism) when the office is a President's:
        a merchant likes a President who trades. ``legal.office`` int[G'] (-1 - region for a governor)."""
        return np.isin(legal.office, list(L.PRESIDENT))
