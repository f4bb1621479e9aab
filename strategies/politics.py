"""What a law, a policy or Deregulation is worth to each family, from public state (used by ``balanced``).

Values are rough £-equivalents: a tax or bonus its £, one influence point 1 £, one Company share VP 2 £.
Every function reads an ``Observation`` (or anything with the same public fields) and returns arrays over its
games, so a strategy decides each game from that game's rows only.
"""

from __future__ import annotations

import numpy as np

from sim import laws
from sim import layout as L
from sim.reduce import sum_last

from . import values as V

INFLUENCE_VALUE = 1.0  # £ per influence point
SHARE_VP_VALUE = 2.0  # £ per VP of a Company share


def in_force(obs, name: str) -> np.ndarray:
    """int[G'] modifier ``name`` summed over the laws in force (``laws.modifier`` on an observation)."""
    col = obs.rules.d.law_mod[:, laws.MOD[name]]
    out = np.zeros(obs.n, dtype=col.dtype)
    for law in np.flatnonzero(col):  # few laws carry a given modifier (no bool @ int matmul over every law)
        out += np.where(obs.law_pile[:, law] == laws.IN_FORCE, col[law], 0)
    return out


def assets(obs) -> np.ndarray:
    """int[G', N, 4] assets per family in rules.ASSETS order (shares count the chair)."""

    def make(o):
        shares = o.shares + (o.office[:, L.CHAIRMAN][:, None] == np.arange(o.players)[None, :])
        return np.stack([o.luxuries, shares, o.shipyards, o.factories], axis=2)

    return V.per_game(obs, "assets", make)


def weigh(have: np.ndarray, per_asset: np.ndarray) -> np.ndarray:
    """[G', N]: sum over the 4 assets of ``have[G', N, 4] * per_asset[G', 4]`` (explicit adds: a reduction over
    the tiny trailing axis is several times slower)."""
    return sum(have[:, :, a] * per_asset[:, a, None] for a in range(have.shape[2]))


def influence(obs, ladder: np.ndarray | None = None) -> np.ndarray:
    """int[G', N] influence as the end of the game counts it (L258), with ``ladder`` (default the game's)."""
    e = obs.rules.end
    lad = obs.ladder if ladder is None else ladder
    pm = obs.prime_minister[:, None] == np.arange(obs.players)[None, :]
    ladder_points = weigh(assets(obs), lad)
    return e.influence_pm * pm + e.influence_wreath * obs.wreaths + e.influence_trophy * obs.trophies + ladder_points


def power_gain(obs, asset: np.ndarray) -> np.ndarray:
    """int[G', 4]: the influence per asset that power on ``asset[G']`` adds to the ladder (``laws.powered`` minus
    the ladder; a value of the game alone, computed once per game)."""
    return V.on_games(obs, lambda o, a: laws.powered(o.ladder, a) - o.ladder, asset)


def my_policy_values(obs) -> np.ndarray:
    """float[G', POLICIES]: what applying each policy of the track is worth to the deciding family (D-POLICY)."""
    r = obs.rules
    d = r.d
    rows = np.arange(obs.n)
    have = assets(obs)[rows, obs.seat].astype(float)  # [G', 4]
    repealed = in_force(obs, "no_wealth_tax") > 0
    wealth = np.where(repealed, 0, obs.wealth[rows, obs.seat])[:, None] * d.policy_wealth[None, :]
    tax = -r.parliament.tax * (have[:, d.policy_asset] + wealth)
    bonus = r.parliament.bonus * have[:, d.policy_asset]
    gain = np.stack([weigh(have[:, None, :], power_gain(obs, np.full(obs.n, a)))[:, 0] for a in range(4)], axis=1)
    power = INFLUENCE_VALUE * gain[:, d.policy_asset]
    kind = d.policy_kind[None, :]
    return np.where(kind == laws.TAX, tax, np.where(kind == laws.BONUS, bonus, power))


def policy_value(obs, policy: np.ndarray) -> np.ndarray:
    """float[G', N]: what applying ``policy[G']`` (-1 none) is worth to each family (one policy per game; the
    same values as ``policy_values``)."""
    r = obs.rules
    d = r.d
    p = np.maximum(policy, 0)
    kind, asset = d.policy_kind[p], d.policy_asset[p]
    have = assets(obs)
    held = np.take_along_axis(have, asset[:, None, None], axis=2)[:, :, 0].astype(float)
    wealth = (d.policy_wealth[p] & (in_force(obs, "no_wealth_tax") == 0))[:, None] * obs.wealth
    tax = -r.parliament.tax * (held + wealth)
    bonus = r.parliament.bonus * held
    power = INFLUENCE_VALUE * weigh(have, power_gain(obs, asset))
    value = np.where((kind == laws.TAX)[:, None], tax, np.where((kind == laws.BONUS)[:, None], bonus, power))
    return np.where((policy >= 0)[:, None], value, 0.0)


def _valued_effects(rules) -> list[tuple[int, str, int, int]]:
    """(law, effect, amount, asset index) of the once-only effects ``law_value`` counts: money per asset, share VP."""
    out = []
    for i, spec in enumerate(rules.parliament.laws):
        for eff in spec.on_pass:
            if eff.effect == "money_per_asset":
                out.append((i, eff.effect, eff.amount, laws.ASSET_INDEX[eff.asset]))
            elif eff.effect == "share_vp":
                out.append((i, eff.effect, eff.amount, laws.SHARES))
    return out


def my_stake(obs, law: np.ndarray, policy: np.ndarray) -> np.ndarray:
    """float[G']: the deciding family's ``stakes`` (computed for it alone)."""
    r = obs.rules
    d = r.d
    rows = np.arange(obs.n)
    p = np.maximum(policy, 0)
    kind, asset = d.policy_kind[p], d.policy_asset[p]
    have = assets(obs)[rows, obs.seat]  # [G', 4]
    held = have[rows, asset].astype(float)
    wealth = (d.policy_wealth[p] & (in_force(obs, "no_wealth_tax") == 0)) * obs.wealth[rows, obs.seat]
    power = INFLUENCE_VALUE * sum_last(have * power_gain(obs, asset))
    value = np.where(kind == laws.TAX, -r.parliament.tax * (held + wealth), 0.0)
    value = np.where(kind == laws.BONUS, r.parliament.bonus * held, np.where(kind == laws.POWER, power, value))
    value = np.where(policy >= 0, value, 0.0) + my_law_values(obs)[rows, np.maximum(law, 0)] * (law >= 0)
    e = r.end
    pm = obs.prime_minister == obs.seat
    return value + pm * (e.influence_wreath + e.influence_pm) * INFLUENCE_VALUE * (law >= 0)


def law_value(obs, law: np.ndarray) -> np.ndarray:
    """float[G', N]: what the once-only effects of passing ``law[G']`` (-1 none) are worth to each family: money
    per asset and Company share VP (other effects are valued 0)."""
    out = np.zeros((obs.n, obs.players))
    have = assets(obs)
    for i, effect, amount, asset in _valued_effects(obs.rules):
        rows = law == i
        if rows.any():
            worth = amount * (SHARE_VP_VALUE if effect == "share_vp" else 1.0)
            out[rows] += worth * have[rows, :, asset]
    return out


def my_law_values(obs) -> np.ndarray:
    """float[G', LAWS]: ``law_value`` of every law for the deciding family."""
    out = np.zeros((obs.n, len(obs.rules.d.law_names)))
    mine = assets(obs)[np.arange(obs.n), obs.seat]
    for i, effect, amount, asset in _valued_effects(obs.rules):
        out[:, i] += amount * (SHARE_VP_VALUE if effect == "share_vp" else 1.0) * mine[:, asset]
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

    def make(o):
        pr = o.rules.property
        factories = o.factories + (o.invested_factories if o.rules.firms.invested_factory_votes else 0)  # L79
        return pr.shipyard_votes * o.shipyards + pr.factory_votes * factories

    return V.per_game(obs, "property_votes", make)


def expected_net(obs, stake: np.ndarray, support: np.ndarray, pm_for: np.ndarray) -> np.ndarray:
    """int[G']: the vote's net if every family cast its property votes on the side of its stake (|stake| >= 1;
    the PM for where ``pm_for``) and nobody bought votes."""
    side = np.where(stake >= 1, 1, np.where(stake <= -1, -1, 0))
    pm = obs.prime_minister[:, None] == np.arange(obs.players)[None, :]
    side = np.where(pm & pm_for[:, None], 1, side)
    cast = side * property_votes(obs)
    return support + sum(cast[:, i] for i in range(obs.players))


def company_in_danger(obs, strategy=None) -> np.ndarray:
    """bool[G']: the Company could crash soon: stability at most the strategy's ``danger_stability`` or its debt at
    least ``danger_debt`` (2 and 6 without a strategy)."""
    stability, debt = (2, 6) if strategy is None else (strategy.danger_stability, strategy.danger_debt)
    return (obs.stability <= stability) | (obs.loans >= debt)


def deregulation_stakes(obs, strategy=None) -> np.ndarray:
    """float[G', N]: for Deregulation (+) or against (-). Half the debt written off helps a Company in danger
    (``company_in_danger`` as ``strategy`` reads it) survive; a rejection raises share VP, which shareholders want
    while the Company is safe."""

    def make(o):
        shares = assets(o)[:, :, laws.SHARES]
        danger = company_in_danger(o, strategy)[:, None]
        return np.where(danger | (shares == 0), 1.0, -SHARE_VP_VALUE * shares)

    stability, debt = (2, 6) if strategy is None else (strategy.danger_stability, strategy.danger_debt)
    return V.per_game(obs, ("deregulation_stakes", stability, debt), make)
