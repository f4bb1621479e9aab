"""What a law, a policy or Deregulation is worth to each family, from public state (issue 9; used by ``balanced``).

Values are rough £-equivalents: a tax or bonus its £, one influence point 1 £, one Company share VP 2 £.
Every function reads an ``Observation`` (or anything with the same public fields) and returns arrays over its
games, so a strategy decides each game from that game's rows only.
"""

from __future__ import annotations

import numpy as np

from sim import laws
from sim import layout as L

INFLUENCE_VALUE = 1.0  # £ per influence point
SHARE_VP_VALUE = 2.0  # £ per VP of a Company share


def in_force(obs, name: str) -> np.ndarray:
    """int[G'] modifier ``name`` summed over the laws in force (``laws.modifier`` on an observation)."""
    col = obs.rules.d.law_mod[:, laws.MOD[name]]
    return (obs.law_pile == laws.IN_FORCE) @ col


def assets(obs) -> np.ndarray:
    """int[G', N, 4] assets per family in rules.ASSETS order (shares count the chair)."""
    shares = obs.shares + (obs.office[:, L.CHAIRMAN][:, None] == np.arange(obs.players)[None, :])
    return np.stack([obs.luxuries, shares, obs.shipyards, obs.factories], axis=2)


def influence(obs, ladder: np.ndarray | None = None) -> np.ndarray:
    """int[G', N] influence as the end of the game counts it (L258), with ``ladder`` (default the game's)."""
    e = obs.rules.end
    lad = obs.ladder if ladder is None else ladder
    pm = obs.prime_minister[:, None] == np.arange(obs.players)[None, :]
    ladder_points = (assets(obs) * lad[:, None, :]).sum(axis=2)
    return e.influence_pm * pm + e.influence_wreath * obs.wreaths + e.influence_trophy * obs.trophies + ladder_points


def policy_value(obs, policy: np.ndarray) -> np.ndarray:
    """float[G', N]: what applying ``policy[G']`` (-1 none) is worth to each family (D-POLICY)."""
    r = obs.rules
    d = r.d
    p = np.maximum(policy, 0)
    kind, asset = d.policy_kind[p], d.policy_asset[p]
    held = np.take_along_axis(assets(obs), asset[:, None, None], axis=2)[:, :, 0].astype(float)
    wealth = (d.policy_wealth[p] & (in_force(obs, "no_wealth_tax") == 0))[:, None] * obs.wealth
    tax = -r.parliament.tax * (held + wealth)
    bonus = r.parliament.bonus * held
    after = laws.powered(obs.ladder, asset)
    power = INFLUENCE_VALUE * (influence(obs, after) - influence(obs))
    value = np.where((kind == laws.TAX)[:, None], tax, np.where((kind == laws.BONUS)[:, None], bonus, power))
    return np.where((policy >= 0)[:, None], value, 0.0)


def law_value(obs, law: np.ndarray) -> np.ndarray:
    """float[G', N]: what the once-only effects of passing ``law[G']`` (-1 none) are worth to each family: money
    per asset and Company share VP (other effects are valued 0)."""
    out = np.zeros((obs.n, obs.players))
    have = assets(obs)
    for i, spec in enumerate(obs.rules.parliament.laws):
        rows = law == i
        if not rows.any():
            continue
        for eff in spec.on_pass:
            if eff.effect == "money_per_asset":
                out[rows] += eff.amount * have[rows, :, laws.ASSET_INDEX[eff.asset]]
            elif eff.effect == "share_vp":
                out[rows] += SHARE_VP_VALUE * eff.amount * have[rows, :, laws.SHARES]
    return out


def stakes(obs, law: np.ndarray, policy: np.ndarray) -> np.ndarray:
    """float[G', N]: each family's gain if the tabled law passes with ``policy``; the PM also gains a wreath and
    keeps his seat (which a failure may cost him)."""
    value = policy_value(obs, policy) + law_value(obs, law)
    e = obs.rules.end
    pm = obs.prime_minister[:, None] == np.arange(obs.players)[None, :]
    return value + pm * (e.influence_wreath + e.influence_pm) * INFLUENCE_VALUE * (law >= 0)[:, None]


def property_votes(obs) -> np.ndarray:
    """int[G', N] each family's own property votes (as ``phases.parliament.property_votes``)."""
    pr = obs.rules.property
    return pr.shipyard_votes * obs.shipyards + pr.factory_votes * obs.factories


def expected_net(obs, stake: np.ndarray, support: np.ndarray, pm_for: np.ndarray) -> np.ndarray:
    """int[G']: the vote's net if every family cast its property votes on the side of its stake (|stake| >= 1;
    the PM for where ``pm_for``) and nobody bought votes."""
    side = np.where(stake >= 1, 1, np.where(stake <= -1, -1, 0))
    pm = obs.prime_minister[:, None] == np.arange(obs.players)[None, :]
    side = np.where(pm & pm_for[:, None], 1, side)
    return support + (side * property_votes(obs)).sum(axis=1)


def company_in_danger(obs) -> np.ndarray:
    """bool[G']: the Company could crash soon (stability <= 2 or debt >= 6)."""
    return (obs.stability <= 2) | (obs.loans >= 6)


def deregulation_stakes(obs) -> np.ndarray:
    """float[G', N]: for Deregulation (+) or against (-). Half the debt written off helps a Company in danger
    survive; a rejection raises share VP, which shareholders want while the Company is safe."""
    shares = assets(obs)[:, :, laws.SHARES]
    danger = company_in_danger(obs)[:, None]
    return np.where(danger | (shares == 0), 1.0, -SHARE_VP_VALUE * shares)
