"""Every cross-key check of the rules file (``Rules._validate``) and of the loader (``schema.convert``): the bad value
fails with its one-line message naming the key, and the boundary value just inside loads."""

import copy
import re

import numpy as np
import pytest

from sim.rules import DEFAULT_PATH, Rules, RulesError
from sim.rules.schema import Elephant, build, shown

SOURCE = "default.toml + overrides"
DEFAULT = Rules.default()
RAW = DEFAULT.raw


def fails(overrides: dict, message: str) -> None:
    with pytest.raises(RulesError, match="^" + re.escape(f"{SOURCE}: {message}") + "$"):
        DEFAULT.with_overrides(overrides)


def lot(kind: str, index: int, **items) -> dict:
    """A default lot's table with items set."""
    return {**copy.deepcopy(RAW["auction"][kind][index]), **items}


def without(section: str, key: str, index: int):
    """A copy of a list in the default rules with one entry removed."""
    items = copy.deepcopy(RAW[section][key])
    del items[index]
    return items


CASES = [
    ({"game.players": 3}, "game.players: 3 players is impossible: the game takes 4 to 6"),
    ({"game.family_size": 0}, "game.family_size: a family needs at least one relative"),
    ({"game.rounds": 0}, "game.rounds: the game needs at least one round"),
    ({"capital.round_up_from": 0.0}, "capital.round_up_from: must be above 0"),
    (
        {"map.presidencies": copy.deepcopy(RAW["map"]["presidencies"][:2])},
        "map.presidencies: the game has exactly 3 presidencies, got 2",
    ),
    ({"map.presidencies.1.name": "bombay"}, "map.presidencies: duplicate name 'bombay'"),
    ({"map.regions.1.name": "Punjab"}, "map.regions: duplicate name 'Punjab'"),
    ({"map.orders.1.name": "Punjab"}, "map.orders: duplicate name 'Punjab'"),
    ({"map.regions.0.adjacent": ["Bombay", "Delhi", "Atlantis"]}, "map.regions[0].adjacent: unknown region 'Atlantis'"),
    (
        {"map.regions.0.adjacent": ["Bombay", "Delhi", "Punjab"]},
        "map.regions[0].adjacent: a region cannot be adjacent to itself",
    ),
    ({"map.regions.0.capital": "Atlantis"}, "map.regions[0].capital: unknown region 'Atlantis'"),
    ({"map.orders.0.region": "Atlantis"}, "map.orders[0].region: unknown region 'Atlantis'"),
    ({"map.orders.0.half": 8}, "map.orders[0].half: half value above the full value"),
    (
        {"map.orders.0.links": ["Delhi1", "Bombay1", "Madras2"]},
        "map.orders[0].links: Punjab links Madras2 but Madras2 does not link Punjab",
    ),
    ({"map.presidencies.0.home": "Atlantis"}, "map.presidencies[0].home: unknown region 'Atlantis'"),
    ({"map.presidencies.0.port": "Atlantis"}, "map.presidencies[0].port: unknown order 'Atlantis'"),
    ({"map.presidencies.0.port": "Delhi1"}, "map.presidencies[0].port: port Delhi1 is not in the home region Bombay"),
    ({"map.events.0.region": "Atlantis"}, "map.events[0].region: unknown region 'Atlantis'"),
    ({"map.elephant.from": "Atlantis"}, "map.elephant.from: unknown region 'Atlantis'"),
    ({"map.elephant.facing": "Atlantis"}, "map.elephant.facing: unknown region 'Atlantis'"),
    ({"auction.extra_played": 2}, "auction.extra_played: 7 additional lots played of 6 offered is impossible"),
    ({"auction.extra_played": 1}, "auction.main_lots: 5 players need 14 main lots in play, the file has 17"),
    ({"auction.extra_played": -6}, "auction.extra_played: -1 additional lots played of 6 offered is impossible"),
    ({"auction.extra_offered": 2}, "auction.extra_lots: 5 players need 7 additional lots in play, the file has 6"),
    ({"auction.extra_played": -1}, "auction.main_lots: 5 players need 16 main lots in play, the file has 17"),
    ({"game.family_size": 3}, "auction: a family could win lots needing more than its 3 relatives"),
    ({"auction.main_lots.0.office": "king"}, "auction.main_lots[0].office: unknown office 'king'"),
    (
        {"auction.extra_lots.6": lot("extra_lots", 6, office="king")},
        "auction.extra_lots[6].office: unknown office 'king'",
    ),
    ({"auction.extra_lots.0.clerks": [1, 0]}, "auction.extra_lots[0].clerks: needs 3 numbers, one per presidency"),
    (
        {"auction.main_lots.8": lot("main_lots", 8, officers=[1, 0, 0, 0])},
        "auction.main_lots[8].officers: needs 3 numbers, one per presidency",
    ),
    ({"retirement.offices": ["chairman", "king"]}, "retirement.offices: unknown office 'king'"),
    ({"actions.committee_heads": ["king"]}, "actions.committee_heads: unknown office 'king'"),
    ({"retirement.tiers": []}, "retirement.tiers: needs at least one tier"),
    ({"actions.exchange_prices": []}, "actions.exchange_prices: needs at least one position"),
    ({"actions.exchange_prices": [2, 3, 2]}, "actions.exchange_prices: positions must be listed cheapest first"),
    ({"check.success_max": 0}, "check: need 1 <= success_max < mishap_min <= 6"),
    ({"check.success_max": 5}, "check: need 1 <= success_max < mishap_min <= 6"),
    ({"check.mishap_min": 7}, "check: need 1 <= success_max < mishap_min <= 6"),
    ({"company.start_stability": 0}, "company.start_stability: must be within 1..7"),
    ({"company.start_stability": 8}, "company.start_stability: must be within 1..7"),
    ({"company.start_loans": 9}, "company.start_loans: above company.max_loans"),
    ({"company.share_vp": 4}, "company.share_vp: outside share_vp_min..share_vp_max"),
    ({"company.share_vp": -4}, "company.share_vp: outside share_vp_min..share_vp_max"),
    ({"company.loan_value": 0}, "company.loan_value: a loan must be worth at least 1 £"),
    ({"stability.emergency_loans_per_loss": 0}, "stability.emergency_loans_per_loss: must be at least 1"),
    ({"military.death_on": 0}, "military.death_on: must be a d6 face, or 7 for never"),
    ({"military.death_on": 8}, "military.death_on: must be a d6 face, or 7 for never"),
    ({"end.blame_weights": [1] * 7}, "end.blame_weights: needs 6 weights with a positive sum"),
    ({"end.blame_weights": [0] * 6}, "end.blame_weights: needs 6 weights with a positive sum"),
    (
        {"end.influence_ladder": {"luxuries": 2, "shares": 1, "shipyards": 0}},
        "end.influence_ladder: needs exactly the assets luxuries, shares, shipyards, factories",
    ),
    ({"end.influence_vp": []}, "end.influence_vp: last_round must increase and reach round 7"),
    ({"end.influence_vp.1.last_round": 2}, "end.influence_vp: last_round must increase and reach round 7"),
    ({"end.influence_vp.2.last_round": 6}, "end.influence_vp: last_round must increase and reach round 7"),
    ({"india.storms": without("india", "storms", 5)}, "india.storms: needs one entry for each face 1..6"),
    ({"india.storms.0.face": 2}, "india.storms: needs one entry for each face 1..6"),
    ({"india.storms.1.seas": ["atlantic"]}, "india.storms[1].seas: unknown presidency sea 'atlantic'"),
    ({"parliament.policies": []}, "parliament.policies: needs at least one policy"),
    ({"firms.share_vp": [1.0] * 9}, "firms.share_vp: needs one entry per firm value 1..10"),
    # a third sample of sim.rules: each message matched whole
    ({"firms.max_shareholders": 0}, "firms.max_shareholders: a firm needs room for its first shareholder"),
    (
        {"retirement.stress_bonus": 18},  # 18 x 7 rounds + the chairman's 1 = 127 > 120 (17: 120 loads)
        "retirement.stress_bonus: 18 per stress marker over 7 rounds, plus the chairman's bonus, is beyond what the "
        "engine holds in int8 (at most 120)",
    ),
    ({"parliament.laws": []}, "parliament.laws: needs at least one law"),
    (
        {"parliament.laws": [*copy.deepcopy(RAW["parliament"]["laws"]), copy.deepcopy(RAW["parliament"]["laws"][3])]},
        "parliament.laws[3].name: duplicate law 'Board of Control'",  # the first of the two is named
    ),
    ({"map.events": []}, "map.events: needs between 1 and 127 event tiles"),
    ({"firms.revenue_per_value": 0}, "firms.revenue_per_value: must be at least 1 £"),
]


@pytest.mark.parametrize("overrides, message", CASES, ids=[m.split(":")[0] + f"-{i}" for i, (_, m) in enumerate(CASES)])
def test_each_cross_check_names_its_key(overrides, message):
    fails(overrides, message)


@pytest.mark.parametrize(
    "overrides",
    [
        {"game.players": 4},
        {"game.players": 6},
        {"firms.max_shareholders": 1},  # room for the first shareholder only
        {"game.family_size": 4},
        {"game.rounds": 1, "end.influence_vp": [{"last_round": 1, "first": 1, "second": 0}]},
        {"capital.round_up_from": 1.0},
        {"map.orders.0.half": 7},
        {"check.success_max": 1, "check.mishap_min": 6},
        {"check.success_max": 4, "check.mishap_min": 5},
        {"company.start_stability": 1},
        {"company.start_stability": 7},
        {"company.start_loans": 8},
        {"company.share_vp": 3},
        {"company.share_vp": -3},
        {"company.loan_value": 1},
        {"stability.emergency_loans_per_loss": 1},
        {"military.death_on": 1},
        {"military.death_on": 7},
        {"end.blame_weights": [0, 0, 0, 0, 0, 1]},
        {"end.influence_vp.1.last_round": 3},
        {"end.influence_vp.2.last_round": 9},
        {"actions.exchange_prices": [3, 3]},
    ],
)
def test_boundary_values_load(overrides):
    DEFAULT.with_overrides(overrides)


def test_problems_lists_every_problem_of_a_file():
    raw = copy.deepcopy(RAW)
    raw["game"]["rounds"] = 0
    raw["company"]["loan_value"] = 0
    raw["military"]["death_on"] = 9
    problems = Rules.problems(raw, source="mine.toml")
    assert problems == [
        "mine.toml: game.rounds: the game needs at least one round",
        "mine.toml: company.loan_value: a loan must be worth at least 1 £",
        "mine.toml: military.death_on: must be a d6 face, or 7 for never",
    ]
    assert Rules.problems(copy.deepcopy(RAW)) == []


def test_problems_reports_type_errors_of_every_key_and_sections():
    raw = copy.deepcopy(RAW)
    raw["game"]["rounds"] = "seven"
    raw["game"]["colour"] = "red"
    raw["company"]["chairman_vote"] = 2
    del raw["check"]
    raw["weather"] = {}
    problems = Rules.problems(raw, source="f")
    sections = ", ".join(sorted(Rules.__dataclass_fields__.keys() - {"raw", "source"}))
    assert problems == [
        f"f: weather: unknown section (known: {sections})",
        "f: game.colour: unknown key (known: family_size, players, rounds)",
        "f: game.rounds: expected an integer, got 'seven'",
        "f: check: missing section",
        "f: company.chairman_vote: expected a number between 0 and 1, got 2.0",
    ]


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"game.rounds": True}, "game.rounds: expected an integer, got True"),
        ({"game.rounds": 7.0}, "game.rounds: expected an integer, got 7.0"),
        ({"company.share_vp": -1, "company.share_vp_min": -5}, None),  # Signed: negatives allowed
        ({"capital.linear_rate": -0.1}, "capital.linear_rate: expected a non-negative number, got -0.1"),
        ({"capital.linear_rate": True}, "capital.linear_rate: expected a number, got True"),
        ({"capital.linear_rate": "x"}, "capital.linear_rate: expected a number, got 'x'"),
        ({"capital.linear_rate": 1}, None),  # an integer is a number
        ({"firms.share_vp.0": -2.5}, None),  # SignedFloat
        ({"capital.round_up_from": -0.1}, "capital.round_up_from: expected a number between 0 and 1, got -0.1"),
        ({"actions.repeat_twice": 1}, "actions.repeat_twice: expected true or false, got 1"),
        ({"capital.formula": 3}, "capital.formula: expected a string, got 3"),
        ({"actions.exchange_prices": 3}, "actions.exchange_prices: expected a list, got 3"),
        ({"actions.exchange_prices": [2, "x"]}, "actions.exchange_prices[1]: expected an integer, got 'x'"),
        ({"end.influence_ladder": [1]}, "end.influence_ladder: expected a table, got [1]"),
        ({"end.influence_ladder.shares": -1}, "end.influence_ladder.shares: expected a non-negative integer, got -1"),
        ({"map.elephant": 3}, "map.elephant: expected a table, got 3"),
        ({"map.elephant": {"from": "Maratha", "trunk": 1}}, "map.elephant.trunk: unknown key (known: facing, from)"),
        ({"auction.main_lots.0": lot("main_lots", 0, colour=1)}, "auction.main_lots[0].colour: unknown key (known: a"),
        ({"map.regions.0": {"name": "Punjab"}}, "map.regions[0].adjacent: missing key"),
    ],
)
def test_loader_types(overrides, message):
    if message is None:
        DEFAULT.with_overrides(overrides)
        return
    with pytest.raises(RulesError, match="^" + re.escape(f"{SOURCE}: {message}")):
        DEFAULT.with_overrides(overrides)


def test_override_paths():
    with pytest.raises(RulesError, match=r"^overrides: map\.orders\.x: no such list entry$"):
        DEFAULT.with_overrides({"map.orders.x.value": 1})
    with pytest.raises(RulesError, match=r"^overrides: game\.players\.x: unknown key$"):
        DEFAULT.with_overrides({"game.players.x": 1})
    with pytest.raises(RulesError, match=r"^mine: nosuch: unknown key$"):
        DEFAULT.with_overrides({"nosuch.key": 1}, source="mine")
    assert DEFAULT.with_overrides({"map.orders.16.value": 5}).d.order_value[16] == 5


def test_derived_tables_follow_the_rules():
    r = DEFAULT.with_overrides(
        {
            "stability.expect_base": 1,
            "stability.expect_per_level": 3,
            "end.blame_weights": [1, 0, 0, 0, 0, 3],
            "governors.admin_dice": 2,
        }
    )
    d = r.d
    assert d.expect.tolist() == [1, 4, 7, 10, 13, 16, 19, 22] and d.expect.dtype.kind == "i"  # int[S+1]: an index too
    assert d.blame_p.tolist() == [0.25, 0, 0, 0, 0, 0.75]
    assert d.admin_dice.tolist() == [2, 4, 2, 2, 2, 3, 2, 4]  # regions without their own take the default
    assert d.n_extra_played == 3 and d.lot_extra.sum() == 6 and len(d.lot_names) == 17 + 6
    assert d.tier_cost.tolist() == [2, 4, 8, 14, 20] and d.tier_upkeep.tolist() == [0, 1, 2, 3, 4]
    assert d.tier_wealth.tolist() == [0, 1, 2, 3, 4] and d.tier_vp.tolist() == [0, 2, 4, 8, 12]
    assert d.retire_offices.all() and d.committee_heads.all()
    assert d.capital0.tolist() == [1, 1, 2, 3, 1, 5, 6, 7]  # Punjab and Maratha ruled from Delhi
    assert d.opium.tolist() == [0, 1, 2, 0, 0, 1, 0, 1] and d.first_loot.tolist()[:3] == [6, 8, 6]
    assert d.merc_cost.tolist() == [[5, 3, 0], [3, 4, 0], [2, 4, 4]]
    assert d.merc_strength.tolist() == [[3, 2, 0], [2, 2, 0], [1, 2, 2]]
    assert d.merc_valid.tolist() == [[True, True, False], [True, True, False], [True, True, True]]
    assert d.home.tolist() == [3, 7, 2] and [d.orders[p] for p in d.port] == ["Bombay3", "Madras1", "Bengal2"]
    assert d.order_half.tolist()[:3] == [3, 2, 2] and d.order_open0.sum() == 10
    # cross_links: int[R, J] orders next door, -1 pad (documented; strategies read rules.d), counted by cross_count
    pads = np.arange(d.cross_links.shape[1])[None, :] >= d.cross_count[:, None]
    assert (d.cross_links[pads] == -1).all() and (d.cross_links[~pads] >= 0).all() and pads.any()
    assert d.presidencies == ("bombay", "madras", "bengal") and d.offices[4] == "president_bombay"
    assert r.budget == 30 and r.players == 5
    few = DEFAULT.with_overrides({"retirement.offices": ["chairman"], "actions.committee_heads": ["director_of_trade"]})
    assert few.d.retire_offices.tolist() == [True] + [False] * 8
    assert few.d.committee_heads.tolist() == [False, True] + [False] * 7


def test_from_toml_with_a_player_count_and_dump(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text("[company]\nstart_stability = 6\n")
    r = Rules.from_toml(f, players=4)
    assert r.players == 4 and r.budget == 24 and r.company.start_stability == 6 and r.source == str(f)
    assert Rules.default().dump() == DEFAULT_PATH.read_text(encoding="utf-8") and "£" in Rules.default().dump()
    raw = copy.deepcopy(RAW)
    raw["game"]["rounds"] = 0
    assert Rules.problems(raw) == ["rules: game.rounds: the game needs at least one round"]
    assert raw["game"]["rounds"] == 0 and Rules.from_dict(RAW).source == "rules"


def test_problems_lists_every_unknown_neighbour_of_a_region():
    """``Rules.problems`` collects every problem of a file: a region listing two unknown neighbours gets two lines,
    and a region listing itself after them is still found (stopping at the first unknown
    neighbour would leave the rest of that region's list unchecked)."""
    raw = copy.deepcopy(DEFAULT.raw)
    region = raw["map"]["regions"][0]
    region["adjacent"] = ["Atlantis", "Lemuria", region["name"], *region["adjacent"]]
    assert Rules.problems(raw, source="f") == [
        "f: map.regions[0].adjacent: unknown region 'Atlantis'",
        "f: map.regions[0].adjacent: unknown region 'Lemuria'",
        "f: map.regions[0].adjacent: a region cannot be adjacent to itself",
    ]


def test_build_at_the_root_names_keys_without_a_leading_dot():
    """``schema.build`` names each key by its dotted path from ``where``; at the root (``where = ""``) a key is
    its own name: an unknown key, a missing key and a wrong type are reported as ``f: trunk``, ``f: from``. (The
    loader always passes a section name; this is build's contract for any caller; not ``.trunk``
    / ``.from``.)"""
    errors: list[str] = []
    assert build(Elephant, {"trunk": 1}, "", "f", errors) is None
    assert errors == ["f: trunk: unknown key (known: facing, from)", "f: from: missing key"]
    with pytest.raises(Exception, match="^f: from: expected a string, got 3$"):
        build(Elephant, {"from": 3}, "", "f")
    assert build(Elephant, {"from": "Maratha"}, "", "f") == Elephant(from_="Maratha")


def test_rules_errors_show_values_cut_to_60_characters():
    """A RulesError names the bad value on one line (docs/guide.md, bad input): a repr of exactly 60 characters is shown
    whole, a longer one cut to 57 + "..." = 60."""
    exact = "x" * 58  # repr adds the two quotes: 60 characters
    assert shown(exact) == repr(exact) and len(shown(exact)) == 60
    longer = "y" * 59  # 61 characters
    assert shown(longer) == "'" + "y" * 56 + "..." and len(shown(longer)) == 60


def test_an_office_in_two_lots_names_the_auction_section():
    """R-AUCTION / D-LOTS: an office may be sold in one lot only; making lot 1 the Chairman's too (lot 0 already is)
    fails with the one-line error naming the ``auction`` section and the office, matched whole."""
    fails({"auction.main_lots.1.office": "chairman"}, "auction: office 'chairman' is in two lots")


def test_storm_bands_beyond_7_or_crossed_fail():
    """The band check's other edges: ``storm_sink_from = 8`` and a damage band above the sinking one fail with the
    one-line error naming ``india.storm_damage_from``; ``1 <= 1 <= 1`` (every ship sinks) loads."""
    msg = "india.storm_damage_from: need 1 <= storm_damage_from <= storm_sink_from <= 7 (7: never)"
    fails({"india.storm_sink_from": 8}, msg)
    fails({"india.storm_damage_from": 6}, msg)
    fails({"india.storm_damage_from": 0}, msg)
    DEFAULT.with_overrides({"india.storm_damage_from": 1, "india.storm_sink_from": 1})


def test_the_publics_deregulation_thresholds_must_lie_within_the_pms():
    """D-DEREG (seed 002): the public forces Deregulation at stability <= ``forced_stability`` or debt >=
    ``forced_debt``; whenever it is forced the PM must be able to table it (stability <= ``table_stability_max`` = 3,
    debt >= ``table_debt_min`` = 5). ``forced_stability = 4`` or ``forced_debt = 4`` fails with the whole one-line
    reason; the edges 3 and 5 load."""
    msg = "deregulation: the public's thresholds must lie within the PM's (forced implies tablable)"
    fails({"deregulation.forced_stability": 4}, msg)
    fails({"deregulation.forced_debt": 4}, msg)
    r = DEFAULT.with_overrides({"deregulation.forced_stability": 3, "deregulation.forced_debt": 5})
    assert (r.deregulation.forced_stability, r.deregulation.forced_debt) == (3, 5)
