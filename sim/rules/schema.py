"""Typed sections of the rules file and a small validating loader.

Every section is a frozen dataclass; the loader walks a TOML table against the annotations, so a key the schema
does not know, a value of the wrong type or a negative number where one is not allowed fails on load with one
line naming the key. Integers are non-negative unless annotated ``Signed``. Every number is finite and within
+-``NUMBER_MAX``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import typing
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

# the largest rules number. The engine keeps money and counts in int32 state and adds up thousands of rules
# numbers (seven rounds of incomes, costs and loans over six families), so a number must stay far below int32's
# 2,147,483,647 for no sum to wrap around; 10,000 leaves a factor of 200,000 and is beyond any number of the game
# (the defaults are at most 20). Numbers the engine keeps in int8 or uses as loop counts have tighter bounds in
# ``Rules._validate``.
NUMBER_MAX = 10_000


class RulesError(ValueError):
    """A rules file or override is malformed. The message is one line naming the source and the key."""


class _Signed:
    pass


class _Unit:
    """A float in [0, 1]."""


Signed = Annotated[int, _Signed]
Unit = Annotated[float, _Unit]
SignedFloat = Annotated[float, _Signed]


# ----------------------------------------------------------------------------------------------------------- game
@dataclass(frozen=True)
class GameRules:
    players: int
    family_size: int
    rounds: int


@dataclass(frozen=True)
class CapitalRules:
    formula: str
    budget_per_player: int
    round_up_from: Unit
    bid_sum: Literal["all", "won"]
    zero_bids: Literal["equal"]
    excess: Literal["take_back", "keep"]
    leftover_tiebreak: Literal["random", "catalogue"]
    linear_rate: float


@dataclass(frozen=True)
class Lot:
    name: str
    min_players: int = 4
    office: str = ""
    prime_minister: bool = False
    shares: int = 0
    shipyards: int = 0
    factories: int = 0
    luxuries: int = 0
    clerks: tuple[int, ...] = (0, 0, 0)
    officers: tuple[int, ...] = (0, 0, 0)
    academy: int = 0
    positions: int = 0
    money: int = 0


@dataclass(frozen=True)
class AuctionRules:
    lots_per_family: int
    extra_offered: Signed
    extra_played: Signed
    allocation: Literal["greedy"]
    lot_ties: Literal["catalogue", "random"]
    main_lots: tuple[Lot, ...]
    extra_lots: tuple[Lot, ...]


@dataclass(frozen=True)
class NotesRules:
    kinds: tuple[str, ...]
    money_max: int
    after_use: Literal["return", "spent"]
    deal_moments: tuple[Literal["appointments", "vote"], ...]
    bonus_flows: tuple[str, ...]
    exchanges: bool = True


@dataclass(frozen=True)
class RetirementTier:
    cost: int
    upkeep: int
    wealth: int
    vp: int


@dataclass(frozen=True)
class RetirementRules:
    retire_from: int
    stress_from: int
    stress_bonus: int
    chairman_bonus: int
    offices: tuple[str, ...]
    tiers: tuple[RetirementTier, ...]
    unpaid_upkeep: Literal["home", "lowest_tier"]  # where a retiree whose upkeep is not paid goes


@dataclass(frozen=True)
class PositionCard:
    name: str
    kind: Literal["closed", "permanent"]
    moment: Literal["", "family_actions", "appointments", "accounts", "parliament"] = ""  # closed cards only
    votes: int = 0
    wealth: int = 0
    influence: int = 0
    money: int = 0
    ignore_nepotism: int = 0
    extra_action: int = 0


@dataclass(frozen=True)
class PositionRules:
    revealed: int
    deck: tuple[PositionCard, ...]


@dataclass(frozen=True)
class ActionRules:
    luxury_cost: int
    luxury_vp: int
    luxury_wealth: int
    shipyard_cost: int
    factory_cost: int
    exchange_prices: tuple[int, ...]
    repeat_twice: bool
    extra_clerk_vacancies: int
    committee_heads: tuple[str, ...]


@dataclass(frozen=True)
class PropertyRules:
    shipyard_votes: int
    factory_votes: int
    factory_income: int
    factory_crash_vp: int
    yard_ship_income: int


@dataclass(frozen=True)
class CheckRules:
    success_max: int
    mishap_min: int


@dataclass(frozen=True)
class CompanyRules:
    start_stability: int
    max_stability: int
    start_loans: int
    start_balance: int
    office_treasury: int
    loan_value: int
    max_loans: int
    free_loans: int
    chairman_vote: Unit
    start_regiments: int
    share_vp: Signed
    share_vp_min: Signed
    share_vp_max: Signed
    royal_protection: int


@dataclass(frozen=True)
class StabilityRules:
    expect_base: int
    expect_per_level: int
    compared: Literal["split", "dividends", "profit"]
    emergency_loans_per_loss: int
    emergency_count: Literal["per_round", "cumulative"]  # D-EMERGENCY


@dataclass(frozen=True)
class CostRules:
    ship: int
    regiment: int
    officer: int
    loan: int


@dataclass(frozen=True)
class DirectorRules:
    moves: int


@dataclass(frozen=True)
class ShippingRules:
    leased_cost: int
    yard_cost: int
    company_cost: int
    must_buy_from: int
    company_ships: Literal["no_free_yard", "no_yard_ship"]  # D-COMPANY-SHIPS, seed 000 L148


@dataclass(frozen=True)
class MilitaryRules:
    moves: int
    loot_per_strength: int
    death_on: int
    trophy_loss: Unit
    mercenaries_need_president: bool
    defeated_commander: Literal["killed", "disgraced"]  # L173


@dataclass(frozen=True)
class GovernorRules:
    admin_dice: int
    income: int
    income_after_failure: int
    tax: int
    extra_tax_unrest: int
    appointer: Literal["president", "chairman"]
    half_ship_inherited: bool  # a governor's half-built ship passes to the region's next governor


@dataclass(frozen=True)
class TradeRules:
    president_bonus: int
    clerk_pay: int


@dataclass(frozen=True)
class ChinaRules:
    revenue_per_opium: int
    manager_per_opium: int


@dataclass(frozen=True)
class FirmRules:
    variant: Literal["house", "jc2e"]
    initiative: Literal["variant", "ships_minus_successes", "successes_minus_ships"]
    start_treasury: int
    investment: int
    max_shareholders: int
    revenue_per_value: int
    open_max_debt: int
    open_min_stability: int
    ship_cost: int
    share_vp: tuple[SignedFloat, ...]
    prison_vp: Signed

    max_value: int = 10
    ship_upkeep: int = 1
    share_upkeep: int = 1
    value_steps: Literal["round", "game"] = "round"
    company_refill: Literal["half", "full", "never"] = "half"
    jc2e_extra_orders: int = 1
    buyback_sound: int = 3
    buyback_damaged: int = 2
    storms: bool = True
    final_retirement: Literal["special", "roll"] = "special"
    invested_factory_votes: bool = True
    opening_requires_health: Literal["any", "share"] = "any"


@dataclass(frozen=True)
class Storm:
    face: int
    seas: tuple[str, ...]
    events: int


@dataclass(frozen=True)
class IndiaRules:
    storms: tuple[Storm, ...]
    storm_damage_from: int
    storm_sink_from: int
    lost_region_strength: int
    # phase 8
    storm_table: Literal["seed", "jc2e"]
    storms_jc2e: tuple[Storm, ...]
    lost_trophy_share: Unit
    officer_death_on: int
    held_trophies: int
    held_attacker_loss: int
    max_empires: int
    event_region: Literal["next_tile", "own_tile"]
    shuffle: Literal["discard_on_top", "all"]
    cascade: Literal["chain", "step", "none"]
    elephant_turns_on: Literal["tail", "tail_or_head"]
    windfall: int
    windfall_clerks: Literal["presidency_in_area", "home_in_area"]
    invasion_keep: Unit


@dataclass(frozen=True)
class Policy:
    kind: Literal["power", "tax", "bonus"]
    asset: Literal["luxuries", "shares", "shipyards", "factories"]
    wealth: bool = False


# ---------------------------------------------------------------------------- phase 9 laws (sim/laws.py)
@dataclass(frozen=True)
class LawEffect:
    """One effect of a law when it passes (``on_pass``) or fails (``on_fail``); its name one of
    ``sim.rules.vocabulary.EFFECTS``."""

    effect: str
    amount: Signed = 0
    asset: str = ""


@dataclass(frozen=True)
class Law:
    name: str
    support: Signed
    policy: str = ""  # an asset or a policy kind the tabled policy must match; "" = no policy
    dilemma: bool = False  # drawing it ends the draw: it must be tabled
    lasting: bool = True  # passed: stays in force (modifiers, extra action) and leaves the deck; else discarded
    recall: bool = False  # "Old Ideas Made New!": the PM tables a law from the discard pile instead
    on_pass: tuple[LawEffect, ...] = ()
    on_fail: tuple[LawEffect, ...] = ()
    # names in sim.rules.vocabulary.MODIFIERS, while in force
    modifiers: dict[str, Signed] = field(default_factory=dict)
    extra_action: str = ""  # a family action every family may take once more each round while in force
    discards: tuple[str, ...] = ()  # laws in force that passing this one discards
    deregulation_discard: bool = False  # discarded from force when Deregulation passes


@dataclass(frozen=True)
class ParliamentRules:
    max_laws: int
    policy_start: int
    policies: tuple[Policy, ...]
    tax: int
    bonus: int
    unpaid_tax: Literal["lose_assets", "forgiven"]
    vote_cost: int
    pm_votes: Literal["for", "free"]
    no_opposition: Literal["pm_keeps", "old_pm_picks"]
    laws: tuple[Law, ...]


@dataclass(frozen=True)
class DeregulationRules:
    table_stability_max: int
    table_debt_min: int
    forced_stability: int
    forced_debt: int
    support_one: int
    support_both: int
    writeoff: Unit
    rejected_share_vp: int
    pm_votes: Literal["for", "free"]
    pm_wreath: Literal["tabled_by_pm", "always", "never"]
    forced_round: int


@dataclass(frozen=True)
class GovernorGeneralRules:
    dice: int
    income_per_region: int
    company_income: int
    fail_unrest: int
    candidates_fallback: Literal["clerks", "none"]


@dataclass(frozen=True)
class InfluenceVP:
    last_round: int
    first: int
    second: int


@dataclass(frozen=True)
class EndRules:
    influence_pm: int
    influence_wreath: int
    influence_trophy: int
    influence_ladder: dict[str, int]
    influence_vp: tuple[InfluenceVP, ...]
    blame_weights: tuple[float, ...]
    blame_governor: int
    blame_governor_general: int
    blame_pm_extra: int


@dataclass(frozen=True)
class Mercenary:
    name: str
    cost: int
    strength: int


@dataclass(frozen=True)
class Presidency:
    name: str
    home: str
    port: str
    mercenaries: tuple[Mercenary, ...]


@dataclass(frozen=True)
class Region:
    name: str
    adjacent: tuple[str, ...]
    first_loot: int
    opium: int
    strength: int
    capital: str = ""
    admin_dice: int = 0  # 0: governors.admin_dice
    shapes: dict[str, str] = field(default_factory=dict)  # phase 8: the crisis marker's march by tile shape


@dataclass(frozen=True)
class Order:
    name: str
    region: str
    value: int
    half: int
    links: tuple[str, ...]
    open: bool = True


@dataclass(frozen=True)
class EventTile:
    kind: Literal["crisis", "leader", "turmoil", "windfall", "peace", "shuffle", "invasion"]
    region: str
    modifier: Signed = 0
    shape: Literal["", "triangle", "circle", "square"] = ""  # phase 8: the crisis marker's march


@dataclass(frozen=True)
class Elephant:
    from_: str = field(metadata={"key": "from"})
    facing: str = ""


@dataclass(frozen=True)
class MapRules:
    presidencies: tuple[Presidency, ...]
    regions: tuple[Region, ...]
    orders: tuple[Order, ...]
    events: tuple[EventTile, ...]
    elephant: Elephant


# ------------------------------------------------------------------------------------------------------ the loader
@functools.cache
def _schema(cls: type) -> tuple[dict[str, Any], dict[str, dataclasses.Field]]:
    """The evaluated annotations and the fields by TOML key of a section class (evaluated once)."""
    hints = typing.get_type_hints(cls, include_extras=True)
    return hints, {f.metadata.get("key", f.name): f for f in dataclasses.fields(cls)}


def build(cls: type, data: Any, where: str, source: str, errors: list[str] | None = None) -> Any:
    """Build dataclass ``cls`` from the TOML table ``data``; ``where`` is the dotted key for messages.

    Raises RulesError at the first problem, or with ``errors`` given, records one problem per key and returns
    None if there was any."""
    found: list[str] = []
    if not isinstance(data, dict):
        found.append(f"{source}: {where}: expected a table, got {shown(data)}")
        data = {}
    hints, by_key = _schema(cls)
    for key in sorted(set(data) - set(by_key)):
        dotted = f"{where}.{key}" if where else key
        found.append(f"{source}: {dotted}: unknown key (known: {', '.join(sorted(by_key))})")
    kwargs = {}
    for key, f in by_key.items():
        dotted = f"{where}.{key}" if where else key
        if key not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                found.append(f"{source}: {dotted}: missing key")
            continue
        try:
            kwargs[f.name] = convert(hints[f.name], data[key], dotted, source)
        except RulesError as err:
            found.append(str(err))
    if found:
        if errors is None:
            raise RulesError(found[0])
        errors.extend(found)
        return None
    return cls(**kwargs)


def shown(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for one-line messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def convert(tp: Any, value: Any, where: str, source: str) -> Any:
    """Check ``value`` against annotation ``tp`` and return it in the dataclass's form."""
    marker = None
    if typing.get_origin(tp) is Annotated:
        tp, marker = typing.get_args(tp)[0], typing.get_args(tp)[1]
    origin = typing.get_origin(tp)

    def fail(expected: str) -> typing.NoReturn:
        raise RulesError(f"{source}: {where}: expected {expected}, got {shown(value)}")

    if tp is bool:
        if not isinstance(value, bool):
            fail("true or false")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            fail("an integer")
        if marker is not _Signed and value < 0:
            fail("a non-negative integer")
        if abs(value) > NUMBER_MAX:
            fail(f"an integer within +-{NUMBER_MAX:,}")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            fail("a number")
        if not (isinstance(value, int) or math.isfinite(value)) or abs(value) > NUMBER_MAX:
            fail(f"a finite number within +-{NUMBER_MAX:,}")
        value = float(value)
        if marker is _Unit and not 0.0 <= value <= 1.0:
            fail("a number between 0 and 1")
        if marker is None and value < 0:
            fail("a non-negative number")
        return value
    if tp is str:
        if not isinstance(value, str):
            fail("a string")
        return value
    if origin is Literal:
        options = typing.get_args(tp)
        if value not in options:
            fail("one of " + ", ".join(repr(o) for o in options))
        return value
    if origin is tuple:
        if not isinstance(value, list):
            fail("a list")
        inner = typing.get_args(tp)[0]
        return tuple(convert(inner, v, f"{where}[{i}]", source) for i, v in enumerate(value))
    if origin is dict:
        if not isinstance(value, dict):
            fail("a table")
        inner = typing.get_args(tp)[1]
        return {k: convert(inner, v, f"{where}.{k}", source) for k, v in value.items()}
    if dataclasses.is_dataclass(tp):
        return build(tp, value, where, source)
    raise TypeError(f"unsupported annotation {tp!r}")  # pragma: no cover
