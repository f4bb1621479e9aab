"""reports/tables.py: the report's tables as the run sets them (the settings table's seat rotation and memory)."""

from __future__ import annotations

import json

from reports_fixture import make_run

from experiments import runfolder as rf
from reports.data import aggregate
from reports.tables import settings_table


def test_the_seat_rotation_setting_says_one_strategy_in_every_seat_or_how_many_rotations(tmp_path):
    """A run of one strategy in every seat says so; a rotated run says its number of rotations."""
    agg = aggregate(make_run(tmp_path / "solo", [{}], games=20, seed=1, strategies=["balanced"] * 5, rotations=1))
    settings = dict(settings_table(agg).rows)
    assert settings["seat rotation"] == "one strategy in every seat"
    rotated = aggregate(make_run(tmp_path / "two", [{}], games=20, seed=1, rotations=2))
    assert dict(settings_table(rotated).rows)["seat rotation"] == "yes (2 rotations)"


def test_the_settings_say_the_peak_memory_of_a_process_playing_when_the_run_counted_it(tmp_path):
    """``play_peak_mib`` of run.json, in whole MiB; no row when the run did not count it (an older run, or none)."""
    run = make_run(tmp_path / "r", [{}], games=20, seed=1)
    assert "peak memory of a process playing" not in dict(settings_table(aggregate(run)).rows)
    meta = rf.read_meta(run)
    (run / rf.META).write_text(json.dumps({**meta, "play_peak_mib": 1234.6}), encoding="utf-8")
    assert dict(settings_table(aggregate(run)).rows)["peak memory of a process playing"] == "1,235 MiB"
