"""the report's banner lists the placeholder content a run plays with, the rules keys it changed and the VP
sources that are 0 in every row."""

from __future__ import annotations

import dataclasses

from reports_fixture import make_run

import sim
from reports.banner import arm_placeholders, banner, changed_keys, placeholder_marks
from reports.data import aggregate
from sim.rules import DEFAULT_PATH


def test_the_default_rules_placeholders():
    marks = {m.key: m.note for m in placeholder_marks(DEFAULT_PATH)}
    assert marks == {
        "auction.main_lots": "D-LOTS (PLACEHOLDER content).",
        "positions": "PLACEHOLDER deck built from existing primitives.",
        "map.regions[Mysore].shapes": "marked PLACEHOLDER",
    }  # the file's header ("Entries marked PLACEHOLDER ...") and a comment about Mysore above another region are not


def test_an_arm_that_replaces_placeholder_content_no_longer_plays_it(tmp_path):
    rules = tmp_path / "mine.toml"
    rules.write_text("[auction]\nmain_lots = []\n\n[company]\nstart_stability = 5  # PLACEHOLDER: a guess\n")
    keys = [m.key for m in arm_placeholders({"rules_file": str(rules), "overrides": {}})]
    assert keys == ["positions", "map.regions[Mysore].shapes", "company.start_stability"]
    keys = [m.key for m in arm_placeholders({"rules_file": None, "overrides": {"positions.revealed": 2}})]
    assert "positions" in keys  # a key inside the placeholder table: the deck is still the placeholder
    keys = [m.key for m in arm_placeholders({"rules_file": None, "overrides": {"auction.main_lots": []}})]
    assert "auction.main_lots" not in keys


def test_changed_keys_name_regions_and_values():
    default = sim.Rules.default(5).raw
    rules = sim.Rules.default(5).with_overrides({"capital.formula": "flat", "company.start_stability": 6}).raw
    assert changed_keys(default, rules) == {
        "capital.formula": ("inverse_share", "flat"),
        "company.start_stability": (4, 6),
    }
    moved = {**default, "map": {**default["map"], "regions": [dict(r) for r in default["map"]["regions"]]}}
    mysore = next(r for r in moved["map"]["regions"] if r["name"] == "Mysore")
    mysore["strength"] = mysore["strength"] + 1
    assert list(changed_keys(default, moved)) == ["map.regions[Mysore].strength"]


def test_the_banner_lines(tmp_path):
    agg = aggregate(make_run(tmp_path / "r", [{"capital.formula": "flat"}], games=20, seed=1, rotations=2))
    lines = banner(dataclasses.replace(agg, zero_sources=["factories", "debtors_prison"]))
    assert "Placeholder content in this run: auction.main_lots — D-LOTS (PLACEHOLDER content)." in lines
    assert "Changed rules key: capital.formula = flat (default inverse_share) in this run." in lines
    assert lines[-1].startswith("VP sources that are 0 in every seat of every game: factories, debtors prison")
