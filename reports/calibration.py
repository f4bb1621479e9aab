"""The report's calibration section: per arm, the crash belief's prediction against the crash rate observed."""

from __future__ import annotations

from typing import Any

import polars as pl

from .tables import Table, pct

TOLERANCE = 0.06  # |predicted - observed| in a pilot above this is marked


def calibration_table(meta: dict[str, Any], per_arm: pl.DataFrame) -> Table | None:
    """Per calibrated arm (run.json's ``calibration``): the belief played (``fitted``: the pilot's fit, or
    ``anchored``), the pilot's games, the fit's crash probability at the start of round 1 against the pilot's crash
    rate and their difference (rows beyond ``TOLERANCE`` in bold); the played belief at round 1 against the crash
    rate of the arm's own games (played with that belief: acting on a belief moves the outcome). None when no arm
    was calibrated."""
    rows, marks = [], []
    crash = dict(zip(per_arm["arm_index"].to_list(), per_arm.iter_rows(named=True), strict=True))
    for arm in meta.get("arms", []):
        record = arm.get("calibration") or {}
        if "belief_crash" not in record:
            continue
        played = crash.get(arm["index"])
        pilot = "predicted_crash" in record
        miss = record["predicted_crash"] - record["observed_crash"] if pilot else None
        rows.append(
            [
                str(arm["arm"]),
                record.get("belief", "anchored"),
                f"{record['games']:,}" if pilot else "— (the fixed model)",
                pct(record["predicted_crash"]) if pilot else "—",
                pct(record["observed_crash"]) if pilot else "—",
                f"{100 * miss:+.1f} pp".replace("-", "−") if pilot else "—",
                pct(record["belief_crash"]),
                "—" if played is None else pct(played["crash_rate"], played["crash_lo"], played["crash_hi"]),
            ]
        )
        marks.append(pilot and abs(miss) > TOLERANCE)
    if not rows:
        return None
    return Table(
        [
            "arm",
            "belief",
            "pilot games",
            "predicted at round 1",
            "observed in the pilot",
            "predicted − observed",
            "belief played at round 1",
            "crash rate of the arm's games (95 % CI)",
        ],
        rows,
        highlight=marks,
        numeric=[False, False, True, True, True, True, True, True],
    )
