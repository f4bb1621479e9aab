"""Each rules-file error of ``Rules._validate`` and ``Rules._validate_politics`` that no other test matched whole: a
rules file that trips exactly that check first fails with its one-line message, key and text matched in full, so a
garbled key or message cannot pass (bad input is one clear line naming the key; mutation-test survivors)."""

import copy
import re

import pytest

from sim.rules import Rules, RulesError, _set_dotted
from sim.rules.vocabulary import EFFECTS, MODIFIERS

SOURCE = "default.toml + overrides"
DEFAULT = Rules.default()
RAW = DEFAULT.raw
LAW0 = RAW["parliament"]["laws"][0]  # Calico Acts: a factories law, money_per_asset on pass, no discards


def card(**items) -> dict:
    """A one-card deck (D-POSITIONS)."""
    return {"positions.deck": [{"name": "x", **items}]}


def law(**items) -> dict:
    """The first law with items set (keys the default law leaves out, like discards, included)."""
    return {"parliament.laws.0": {**copy.deepcopy(LAW0), **items}}


def big_deck() -> list[dict]:
    """128 valid cards: the default deck's cards repeated, each renamed."""
    deck = RAW["positions"]["deck"]
    return [{**copy.deepcopy(deck[i % len(deck)]), "name": f"card {i}"} for i in range(128)]


def many_policies() -> list[dict]:
    """128 policies: the default track repeated."""
    track = RAW["parliament"]["policies"]
    return [copy.deepcopy(track[i % len(track)]) for i in range(128)]


CASES = [
    # map (R-MAP)
    pytest.param(
        {"map.regions.0.adjacent": ["Delhi", "Bombay", "Bengal"]},
        "map.regions[0].adjacent: Punjab lists Bengal but Bengal does not list Punjab",
        id="adjacency-one-way",
    ),
    pytest.param(
        {"map.elephant.facing": "Maratha"},
        "map.elephant.facing: the crisis marker cannot face the region it stands in",
        id="elephant-faces-itself",
    ),
    pytest.param(
        {"map.regions.0.shapes.triangle": "Bengal"},
        "map.regions[0].shapes: triangle marches to 'Bengal', not a neighbour of Punjab",
        id="shape-not-a-neighbour",
    ),
    # retirement and position cards (R-UPKEEP, D-POSITIONS)
    pytest.param(
        {"retirement.unpaid_upkeep": "lowest_tier", "retirement.tiers.0.upkeep": 1},
        'retirement.unpaid_upkeep: "lowest_tier" needs a first tier without upkeep',
        id="lowest-tier-with-upkeep",
    ),
    pytest.param({"positions.deck": big_deck()}, "positions.deck: at most 127 cards", id="deck-128-cards"),
    pytest.param(card(kind="permanent"), "positions.deck[0]: card 'x' has no effect", id="card-no-effect"),
    pytest.param(
        card(kind="permanent", wealth=1, moment="accounts"),
        "positions.deck[0].moment: a permanent card is held, not played: it has no moment",
        id="card-permanent-with-moment",
    ),
    pytest.param(
        card(kind="closed", money=2),
        "positions.deck[0].moment: a closed card needs a moment (family_actions, appointments, accounts, parliament)",
        id="card-closed-without-moment",
    ),
    pytest.param(
        card(kind="closed", moment="accounts", influence=1),
        "positions.deck[0].influence: influence counts for cards held: only permanent cards give it",
        id="card-closed-influence",
    ),
    pytest.param(
        card(kind="closed", moment="accounts", ignore_nepotism=1),
        'positions.deck[0].moment: ignore_nepotism is played at, and only at, the "appointments" moment',
        id="card-nepotism-moment",
    ),
    pytest.param(
        card(kind="closed", moment="accounts", extra_action=1),
        'positions.deck[0].moment: extra_action is played at the "family_actions" moment',
        id="card-extra-action-moment",
    ),
    pytest.param(
        card(kind="closed", moment="family_actions", votes=1),
        'positions.deck[0].moment: votes of a closed card are played at the "parliament" moment',
        id="card-votes-moment",
    ),
    # firms and the engine's int8 limits
    pytest.param(
        {"firms.max_value": 0}, "firms.max_value: the value track needs at least one space", id="firms-max-value-0"
    ),
    pytest.param(
        {"company.royal_protection": 101},
        "company.royal_protection: 101 is beyond what the engine holds (it must be within 0..100)",
        id="bounded-royal-protection",
    ),
    pytest.param(
        {"director.moves": 101},
        "director.moves: 101 is beyond what the engine holds (it must be within 0..100)",
        id="bounded-director-moves",
    ),
    pytest.param(
        {"parliament.policies": many_policies()},
        "parliament.policies: 128 entries are beyond what the engine holds (at most 127)",
        id="policies-128",
    ),
    pytest.param(
        {"shipping.yard_cost": 0},
        "shipping.yard_cost: a ship must cost at least 1 £ (the budget is spent down in ships)",
        id="ship-free",
    ),
    # notes and parliament (R-NOTE, R-PARLIAMENT, D-LAWS)
    pytest.param(
        {"notes.kinds": ["nepotism", "money", "position", "votes", "bonus"]},
        "notes.kinds: the engine knows exactly the kinds ['money', 'nepotism', 'position', 'votes', 'bonus'] in "
        "this order",
        id="note-kinds-reordered",
    ),
    pytest.param(
        {"notes.bonus_flows": ["president_bonus", "nabob"]},
        "notes.bonus_flows: unknown bonus 'nabob' (known: president_bonus, china_manager, governor_general)",
        id="note-bonus-unknown",
    ),
    pytest.param(
        {"parliament.policy_start": 14},
        "parliament.policy_start: must be a policy index 0..13",
        id="policy-start-past-the-track",
    ),
    pytest.param({"parliament.max_laws": 0}, "parliament.max_laws: the PM must draw at least one law", id="max-laws-0"),
    pytest.param(
        {"parliament.laws.0.policy": "opium"},
        "parliament.laws[0].policy: 'opium' is neither a policy kind nor an asset",
        id="law-policy-unknown",
    ),
    pytest.param(
        {"parliament.laws.0.on_pass.0.effect": "bribe"},
        f"parliament.laws[0].on_pass[0].effect: unknown effect 'bribe' (known: {', '.join(EFFECTS)})",
        id="law-effect-unknown",
    ),
    pytest.param(
        {"parliament.laws.0.on_pass.0.asset": "opium"},
        "parliament.laws[0].on_pass[0].asset: needs one of luxuries, shares, shipyards, factories",
        id="law-effect-asset-unknown",
    ),
    pytest.param(
        {"parliament.laws.0.on_pass.0.amount": 101},
        "parliament.laws[0].on_pass[0].amount: 101 is beyond what the engine holds (it must be within -100..100)",
        id="law-effect-amount-101",
    ),
    pytest.param(
        law(modifiers={"bribe": 1}),
        f"parliament.laws[0].modifiers.bribe: unknown modifier (known: {', '.join(MODIFIERS)})",
        id="law-modifier-unknown",
    ),
    pytest.param(
        {"parliament.laws.0.extra_action": "pass"},
        "parliament.laws[0].extra_action: unknown family action (known: clerk, factory, luxury, officer, shares, "
        "shipyard)",
        id="law-extra-action-pass",
    ),
    pytest.param(
        law(discards=["Calico Acts"]),
        "parliament.laws[0].discards: unknown law 'Calico Acts'",
        id="law-discards-itself",
    ),
    pytest.param(
        law(discards=["Stamp Act"]), "parliament.laws[0].discards: unknown law 'Stamp Act'", id="law-discards-unknown"
    ),
    pytest.param(
        {"parliament.vote_cost": 0}, "parliament.vote_cost: a bought vote must cost at least 1 £", id="vote-free"
    ),
]


@pytest.mark.parametrize("overrides, message", CASES)
def test_the_first_failing_check_names_its_key_and_says_exactly_why(overrides, message):
    with pytest.raises(RulesError, match="^" + re.escape(f"{SOURCE}: {message}") + "$"):
        DEFAULT.with_overrides(overrides)


# a value track of no space also has no share VP entries to match and is below the int8 check's floor
ALSO = {
    "firms-max-value-0": [
        "firms.share_vp: needs one entry per firm value 1..0",
        "firms.max_value: 0 is beyond what the engine holds (it must be within 1..100)",
    ]
}


@pytest.mark.parametrize("overrides, message", CASES)
def test_the_case_trips_no_other_check(overrides, message, request):
    """``Rules.problems`` collects every problem: each case trips its own check once, and only the checks listed
    in ``ALSO`` besides, so the message matched above is that check's and no other's."""
    raw = copy.deepcopy(RAW)
    for key, value in overrides.items():
        _set_dotted(raw, key, value, "overrides")
    expected = [message, *ALSO.get(request.node.callspec.id, [])]
    assert Rules.problems(raw, source=SOURCE) == [f"{SOURCE}: {line}" for line in expected]
