"""a rules number the engine cannot hold is refused on load with one line naming the file and the key
(NaN and inf, beyond +-NUMBER_MAX, beyond the int8 state some numbers live in, loop lengths); the largest numbers
accepted play without garbage in the frames."""

from __future__ import annotations

import math
import re

import pytest
from test_fuzz import DEFAULTS, RULE_PATHS, check_frames

from experiments import runner, spec
from sim.rules import Rules, RulesError
from sim.rules.schema import NUMBER_MAX


def value_at(path: tuple) -> object:
    node = DEFAULTS
    for part in path:
        node = node[part]
    return node


def dotted(path: tuple) -> str:
    return ".".join(str(p) for p in path)


def named(path: tuple) -> str:
    """How messages name a key: list entries in brackets (auction.main_lots[8].shares)."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


NUMBERS = [p for p in RULE_PATHS if type(value_at(p)) in (int, float)]


def test_every_number_of_the_rules_refuses_nan_inf_and_numbers_beyond_the_bound():
    rules = Rules.default()
    assert len(NUMBERS) > 300
    for path in NUMBERS:
        key, default = dotted(path), value_at(path)
        bad = [NUMBER_MAX + 1, -NUMBER_MAX - 1] + ([math.nan, -math.inf] if isinstance(default, float) else [])
        for value in bad:
            with pytest.raises(RulesError) as err:
                rules.with_overrides({key: value}, source="my.toml")
            message = str(err.value)
            assert message.startswith(f"default.toml + my.toml: {named(path)}: ") and "\n" not in message, message


@pytest.mark.parametrize(
    "key, largest, beyond",
    [
        ("capital.budget_per_player", NUMBER_MAX, NUMBER_MAX + 1),
        ("capital.linear_rate", float(NUMBER_MAX), NUMBER_MAX + 0.001),
        ("game.rounds", 100, 101),
        ("company.max_stability", 100, 101),
        ("company.royal_protection", 100, 101),
        ("company.share_vp_min", -100, -101),
        ("company.share_vp_max", 100, 101),
        ("director.moves", 100, 101),
        ("military.moves", 100, 101),
        ("retirement.chairman_bonus", 100, 101),
        ("governors.admin_dice", 100, 101),
        ("map.regions.1.admin_dice", 100, 101),
        ("retirement.stress_bonus", (120 - 1) // 7, (120 - 1) // 7 + 1),  # x 7 rounds + the chairman's 1
        ("shipping.leased_cost", 1, 0),
        ("shipping.yard_cost", 1, 0),
        ("shipping.company_cost", 1, 0),
    ],
)
def test_the_bounds_of_numbers_the_engine_keeps_small(key, largest, beyond):
    def overrides(value):
        if key == "game.rounds":  # the influence VP table must reach the last round
            return {key: value, "end.influence_vp.2.last_round": value}
        return {key: value}

    rules = Rules.default()
    rules.with_overrides(overrides(largest))
    where = re.sub(r"\.(\d+)", r"[\1]", key)  # messages name list entries in brackets
    with pytest.raises(RulesError, match=rf"^default\.toml \+ overrides: {re.escape(where)}: "):
        rules.with_overrides(overrides(beyond))


@pytest.mark.parametrize(
    "overrides",
    [
        {"capital.budget_per_player": NUMBER_MAX},
        {"capital.budget_per_player": 0, "capital.formula": "linear"},  # 0/0 in the linear formula
        {"capital.linear_rate": float(NUMBER_MAX), "capital.formula": "linear"},
        {"company.start_balance": NUMBER_MAX, "company.office_treasury": NUMBER_MAX},
        {"company.loan_value": NUMBER_MAX, "company.max_loans": NUMBER_MAX},
        {"property.factory_income": NUMBER_MAX, "property.yard_ship_income": NUMBER_MAX},
        {"company.max_stability": 100, "company.start_stability": 100},
        {"director.moves": 100, "military.moves": 100},
        {"game.rounds": 100, "end.influence_vp.2.last_round": 100},
    ],
    ids=lambda o: ",".join(o),
)
def test_the_largest_numbers_accepted_play_without_garbage(tmp_path, overrides):
    lines = "\n".join(f'"{k}" = {v!r}' if not isinstance(v, str) else f'"{k}" = "{v}"' for k, v in overrides.items())
    path = tmp_path / "exp.toml"
    path.write_text(f'games = 24\nshard_size = 24\nstrategies = ["balanced", "random"]\n[overrides]\n{lines}\n')
    runner.run(spec.load(path), tmp_path / "out", jobs=1)
    check_frames(tmp_path / "out")


def test_policies_indexed_in_int8_are_bounded():
    """The policy track's position is int8: a cycle of 128 policies is refused on load, 127 plays."""
    rules = Rules.default(5)
    raw = rules.raw["parliament"]["policies"]
    with pytest.raises(RulesError, match=r"parliament\.policies: 128 entries are beyond what the engine holds"):
        rules.with_overrides({"parliament.policies": (raw * 10)[:128]})
    rules.with_overrides({"parliament.policies": (raw * 10)[:127]})


def test_law_amounts_are_bounded_and_added_without_wrapping():
    """A law's effect amount lands in int8 state (share VP, royal protection): beyond +-100 it is refused on load
    in one line (the fuzz once found 128 crashing a run); at the bound it plays, bounded by the rules' limits."""
    import copy

    import numpy as np
    from helpers import blank, passes

    def with_amount(amount: int, **company) -> Rules:
        raw = copy.deepcopy(Rules.default(4).raw)
        raw["parliament"]["laws"][aid]["on_pass"][0]["amount"] = amount
        raw["company"].update(company)
        return Rules.from_dict(raw)

    laws = Rules.default(4).raw["parliament"]["laws"]
    aid = next(i for i, law in enumerate(laws) if law["name"] == "Company Aids Government")
    assert laws[aid]["on_pass"][0]["effect"] == "share_vp"
    where = re.escape(f"parliament.laws[{aid}].on_pass[0].amount")
    with pytest.raises(RulesError, match=rf"{where}: 128 is beyond what the engine holds"):
        with_amount(128)
    with pytest.raises(RulesError, match=rf"{where}: -101 is beyond what the engine holds"):
        with_amount(-101)
    r = with_amount(100, share_vp_max=100)
    _, s = blank(1, 4)
    s.share_vp[0] = 100  # 100 + 100 in int8 would wrap to -56
    passes(r, s, "Company Aids Government")
    assert s.share_vp[0] == 100 and s.share_vp.dtype == np.int8
