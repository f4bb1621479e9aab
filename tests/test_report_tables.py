"""reports/tables.py: the report's tables as the run sets them (the settings table's seat rotation)."""

from __future__ import annotations

from reports_fixture import make_run

from reports.data import aggregate
from reports.tables import settings_table


def test_the_seat_rotation_setting_says_one_strategy_in_every_seat_or_how_many_rotations(tmp_path):
    """A run of one strategy in every seat says so; a rotated run says its number of rotations."""
    agg = aggregate(make_run(tmp_path / "solo", [{}], games=20, seed=1, strategies=["balanced"] * 5, rotations=1))
    settings = dict(settings_table(agg).rows)
    assert settings["seat rotation"] == "one strategy in every seat"
    rotated = aggregate(make_run(tmp_path / "two", [{}], games=20, seed=1, rotations=2))
    assert dict(settings_table(rotated).rows)["seat rotation"] == "yes (2 rotations)"
