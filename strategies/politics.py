"""What a law, a policy or Deregulation is worth to each family, from public state (used by ``balanced``).

Values are rough £-equivalents: a tax or bonus its £, one influence point 1 £, one Company share VP 2 £.
Every function reads an ``Observation`` (or anything with the same public fields) and returns arrays over its
games, so a strategy decides each game from that game's rows only. The valuations asked at every law tabled and
every vote (``my_policy_values``, ``stakes``, ``my_stake``, ``best_law``) run as compiled kernels in large batches
(``sim.kernels``); their numpy code stays the reference.
"""

from __future__ import annotations

import numpy as np

from sim import kernels, laws
from sim import layout as L

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


def _own(obs, name: str) -> np.ndarray:
    """The deciding seat's entries of field ``name`` (``Observation.own``; indexed on another object)."""
    own = getattr(obs, "own", None)
    return own(name) if own is not None else getattr(obs, name)[np.arange(obs.n), obs.seat]


def my_assets(obs) -> np.ndarray:
    """int[G', 4]: the deciding family's ``assets`` (its seat's entries gathered alone)."""

    def make():
        shares = _own(obs, "shares") + (obs.office[:, L.CHAIRMAN] == obs.seat)
        return np.stack([_own(obs, "luxuries"), shares, _own(obs, "shipyards"), _own(obs, "factories")], axis=1)

    return V.cached(obs, "my_assets", make)


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


def _power_gains(obs) -> np.ndarray:
    """int[G', 4, 4]: ``power_gain`` of power on each asset (a value of the game alone, computed once per game)."""

    def make(o):
        ladder = np.repeat(o.ladder, 4, axis=0)
        return (laws.powered(ladder, np.tile(np.arange(4), o.n)) - ladder).reshape(o.n, 4, 4)

    return V.per_game(obs, "power_gains", make)


def my_policy_values(obs) -> np.ndarray:
    """float[G', POLICIES]: what applying each policy of the track is worth to the deciding family (D-POLICY)."""
    r = obs.rules
    d = r.d
    have = my_assets(obs)  # [G', 4]
    repealed = in_force(obs, "no_wealth_tax") > 0
    wealth = np.where(repealed, 0, _own(obs, "wealth"))
    if kernels.use(obs.n):
        out = np.empty((obs.n, d.policy_kind.size))
        _policy_values_kernel(have, wealth, obs.ladder, _policy_table(r), out)
        return out
    have = have.astype(float)
    wealth = wealth[:, None] * d.policy_wealth[None, :]
    tax = -r.parliament.tax * (have[:, d.policy_asset] + wealth)
    bonus = r.parliament.bonus * have[:, d.policy_asset]
    gain = weigh(_power_gains(obs), have)  # [G', 4]: the influence power on each asset adds to the family
    power = INFLUENCE_VALUE * gain[:, d.policy_asset]
    kind = d.policy_kind[None, :]
    return np.where(kind == laws.TAX, tax, np.where(kind == laws.BONUS, bonus, power))


def _policy_table(rules) -> tuple:
    """The policy track for the kernels: kind, asset and whether a tax counts conspicuous wealth (arrays over the
    policies), the tax and the bonus per asset."""
    d = rules.d
    return d.policy_kind, d.policy_asset, d.policy_wealth, rules.parliament.tax, rules.parliament.bonus


@kernels.kernel
def _policy_values_kernel(have, wealth, ladder, policies, out):
    """``my_policy_values`` row by row: ``have`` int[G', 4] the family's assets, ``wealth`` int[G'] its taxable
    conspicuous wealth, ``policies`` the ``_policy_table``."""
    kind, asset, taxes_wealth, tax, bonus = policies
    power = np.empty(have.shape[1], dtype=np.int64)
    for g in range(have.shape[0]):
        for a in range(have.shape[1]):
            step, target = _power_step(ladder, g, a)
            power[a] = np.int64(have[g, a]) * step - np.int64(have[g, target]) * step
        for p in range(kind.shape[0]):
            a = asset[p]
            out[g, p] = _policy_worth_of(kind[p], have[g, a], wealth[g] * taxes_wealth[p], power[a], tax, bonus)


@kernels.kernel
def _power_step(ladder, g, a):
    """(step, target): power on asset ``a`` in row ``g`` of ``ladder`` int[G', 4] (``laws.powered``) moves ``a``
    ``step`` influence up to the next higher rung and asset ``target``, the first on that rung, as much down
    (step 0 at the top): ``power_gain`` is ``step`` at ``a`` and ``-step`` at ``target``."""
    v = np.int64(ladder[g, a])
    step, target = np.int64(0), a
    for k in range(ladder.shape[1]):
        c = np.int64(ladder[g, k])
        if c > v and (step == 0 or c - v < step):
            step, target = c - v, k
    return step, target


@kernels.kernel
def _policy_worth_of(kind, held, wealth, power, tax, bonus):
    """What a policy of ``kind`` on an asset is worth to a family holding ``held`` of it, ``wealth`` its taxed
    conspicuous wealth (0 where the policy does not tax it) and ``power`` the influence that power on it adds
    (D-POLICY; the numpy reference's operations)."""
    if kind == laws.TAX:
        return -tax * (np.float64(held) + wealth)
    if kind == laws.BONUS:
        return bonus * np.float64(held)
    return INFLUENCE_VALUE * np.float64(power)


def policy_value(obs, policy: np.ndarray) -> np.ndarray:
    """float[G', N]: what applying ``policy[G']`` (-1 none) is worth to each family (one policy per game; the
    same values as ``my_policy_values``)."""
    return _policy_worth(obs, assets(obs), obs.wealth, policy)


def my_policy_value(obs, policy: np.ndarray) -> np.ndarray:
    """float[G']: ``policy_value`` of ``policy[G']`` for the deciding family (computed for it alone)."""
    return _policy_worth(obs, my_assets(obs)[:, None], _own(obs, "wealth")[:, None], policy)[:, 0]


def _policy_worth(obs, have: np.ndarray, wealth: np.ndarray, policy: np.ndarray) -> np.ndarray:
    """float[G', K]: ``policy_value`` for the K families of each game that hold ``have`` int[G', K, 4] assets and
    ``wealth`` int[G', K] conspicuous wealth."""
    r = obs.rules
    d = r.d
    p = np.maximum(policy, 0)
    kind, asset = d.policy_kind[p], d.policy_asset[p]
    held = np.take_along_axis(have, asset[:, None, None], axis=2)[:, :, 0].astype(float)
    wealth = (d.policy_wealth[p] & (in_force(obs, "no_wealth_tax") == 0))[:, None] * wealth
    tax = -r.parliament.tax * (held + wealth)
    bonus = r.parliament.bonus * held
    power = INFLUENCE_VALUE * weigh(have, power_gain(obs, asset))
    value = np.where((kind == laws.TAX)[:, None], tax, np.where((kind == laws.BONUS)[:, None], bonus, power))
    return np.where((policy >= 0)[:, None], value, 0.0)


def _valued_effects(rules) -> list[tuple[int, float, int]]:
    """(law, worth per asset, asset index) of the once-only effects ``law_value`` counts: money per asset (its £),
    share VP (``SHARE_VP_VALUE`` per VP and share)."""
    out = []
    for i, spec in enumerate(rules.parliament.laws):
        for eff in spec.on_pass:
            if eff.effect == "money_per_asset":
                out.append((i, eff.amount * 1.0, laws.ASSET_INDEX[eff.asset]))
            elif eff.effect == "share_vp":
                out.append((i, eff.amount * SHARE_VP_VALUE, laws.SHARES))
    return out


def _effect_table(rules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``_valued_effects`` as arrays for the kernels: law int64[E], worth float[E], asset int64[E]."""
    effects = _valued_effects(rules)
    return tuple(np.array([e[i] for e in effects], dtype=t) for i, t in enumerate((np.int64, float, np.int64)))


def my_stake(obs, law: np.ndarray, policy: np.ndarray) -> np.ndarray:
    """float[G']: the deciding family's ``stakes`` (computed for it alone)."""
    have = my_assets(obs)[:, None]
    pm = (obs.prime_minister == obs.seat)[:, None]
    return _stakes(obs, have, _own(obs, "wealth")[:, None], pm, law, policy)[:, 0]


def law_value(obs, law: np.ndarray) -> np.ndarray:
    """float[G', N]: what the once-only effects of passing ``law[G']`` (-1 none) are worth to each family: money
    per asset and Company share VP (other effects are valued 0)."""
    return _law_worth(obs, assets(obs), law)


def _law_worth(obs, have: np.ndarray, law: np.ndarray) -> np.ndarray:
    """float[G', K]: ``law_value`` for the K families of each game that hold ``have`` int[G', K, 4] assets."""
    out = np.zeros(have.shape[:2])
    for i, worth, asset in _valued_effects(obs.rules):
        rows = law == i
        if rows.any():
            out[rows] += worth * have[rows, :, asset]
    return out


def my_law_values(obs) -> np.ndarray:
    """float[G', LAWS]: ``law_value`` of every law for the deciding family."""
    out = np.zeros((obs.n, len(obs.rules.d.law_names)))
    mine = my_assets(obs)
    for i, worth, asset in _valued_effects(obs.rules):
        out[:, i] += worth * mine[:, asset]
    return out


def best_law(obs, candidates: np.ndarray, options: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(law int[G'], side int[G'], worth float[G']): among ``candidates`` bool[G', LAWS], the law and the side of its
    policy among ``options`` int[G', LAWS, 2] (-1: no policy) worth most to the deciding family: the law's public
    support plus its policy's worth (``my_policy_values``) and its own effects' (``my_law_values``); the first such
    (law, side); law 0, side 0 and worth -inf without a candidate."""
    mine = my_policy_values(obs)
    law_own = my_law_values(obs)
    support = obs.rules.d.law_support
    if kernels.use(obs.n):
        law, side, worth = np.empty(obs.n, dtype=np.int64), np.empty(obs.n, dtype=np.int64), np.empty(obs.n)
        _best_law_kernel(mine, law_own, support, candidates, options, law, side, worth)
        return law, side, worth
    width = mine.shape[1] + 1  # a last column for option -1 (no policy), worth 0
    mine = np.concatenate([mine, np.zeros((obs.n, 1))], axis=1)
    flat = np.where(options >= 0, options, width - 1) + (width * np.arange(obs.n))[:, None, None]
    score = support[None, :, None] + mine.take(flat) + law_own[:, :, None]
    score = np.where(candidates[:, :, None], score, -np.inf).reshape(obs.n, -1)
    best = score.argmax(axis=1)
    return best // 2, best % 2, score.max(axis=1)


@kernels.kernel
def _best_law_kernel(mine, law_own, support, candidates, options, law, side, worth):
    """``best_law`` row by row (each score in the numpy reference's operations; ties go to the first)."""
    for g in range(law.shape[0]):
        law[g], side[g], worth[g] = 0, 0, -np.inf
        for i in range(candidates.shape[1]):
            if not candidates[g, i]:
                continue
            for s in range(2):
                p = options[g, i, s]
                score = support[i] + (mine[g, p] if p >= 0 else 0.0) + law_own[g, i]
                if score > worth[g]:
                    law[g], side[g], worth[g] = i, s, score


def stakes(obs, law: np.ndarray, policy: np.ndarray) -> np.ndarray:
    """float[G', N]: each family's gain if the tabled law passes with ``policy``; the PM also gains a wreath and
    keeps his seat (which a failure may cost him)."""
    pm = obs.prime_minister[:, None] == np.arange(obs.players)[None, :]
    return _stakes(obs, assets(obs), obs.wealth, pm, law, policy)


def _stakes(obs, have: np.ndarray, wealth: np.ndarray, pm: np.ndarray, law: np.ndarray, policy: np.ndarray):
    """float[G', K]: ``stakes`` for the K families of each game that hold ``have`` int[G', K, 4] assets and
    ``wealth`` int[G', K] conspicuous wealth, ``pm`` bool[G', K] the Prime Minister."""
    r = obs.rules
    e = r.end
    pm_worth = e.influence_wreath + e.influence_pm
    if kernels.use(obs.n):
        wealth = np.where(in_force(obs, "no_wealth_tax")[:, None] > 0, 0, wealth)
        out = np.empty(pm.shape)
        _stakes_kernel(have, wealth, pm, obs.ladder, law, policy, _policy_table(r), _effect_table(r), pm_worth, out)
        return out
    value = _policy_worth(obs, have, wealth, policy) + _law_worth(obs, have, law)
    return value + pm * pm_worth * INFLUENCE_VALUE * (law >= 0)[:, None]


@kernels.kernel
def _stakes_kernel(have, wealth, pm, ladder, law, policy, policies, effects, pm_worth, out):
    """``_stakes`` row by row (``wealth`` 0 where the wealth tax is repealed; ``policies`` the ``_policy_table``,
    ``effects`` the ``_effect_table``, ``pm_worth`` the PM's gain in influence)."""
    kind, asset, taxes_wealth, tax, bonus = policies
    effect_law, effect_worth, effect_asset = effects
    for g in range(out.shape[0]):
        p = max(policy[g], 0)
        a = asset[p]
        step, target = _power_step(ladder, g, a)
        passed = law[g] >= 0
        for k in range(out.shape[1]):
            value = 0.0
            if policy[g] >= 0:
                power = np.int64(have[g, k, a]) * step - np.int64(have[g, k, target]) * step
                value = _policy_worth_of(kind[p], have[g, k, a], taxes_wealth[p] * wealth[g, k], power, tax, bonus)
            once = 0.0  # the law's once-only effects
            for i in range(effect_law.shape[0]):
                if effect_law[i] == law[g]:
                    once += effect_worth[i] * have[g, k, effect_asset[i]]
            out[g, k] = value + once + pm[g, k] * pm_worth * INFLUENCE_VALUE * passed


def property_votes(obs) -> np.ndarray:
    """int[G', N] each family's own property votes (as ``phases.parliament.property_votes``)."""

    def make(o):
        pr = o.rules.property
        factories = o.factories + (o.invested_factories if o.rules.firms.invested_factory_votes else 0)  # L79
        return pr.shipyard_votes * o.shipyards + pr.factory_votes * factories

    return V.per_game(obs, "property_votes", make)


def sides(stake: np.ndarray) -> np.ndarray:
    """int64 array: the side a stake takes, +1 for (stake >= 1), -1 against (stake <= -1), else 0."""
    return (stake >= 1).astype(np.int64) - (stake <= -1)  # not nested np.where: several times faster


def expected_net(obs, stake: np.ndarray, support: np.ndarray, pm_for: np.ndarray) -> np.ndarray:
    """int[G']: the vote's net if every family cast its property votes on the side of its stake (|stake| >= 1;
    the PM for where ``pm_for``) and nobody bought votes."""
    side = sides(stake)
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
