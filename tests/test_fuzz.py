"""Fuzz: arbitrary TOML values for real keys of experiment and rules files give either a run with sane
frames or one line and exit 2 -- never a traceback, never garbage -- and ``validate`` agrees with ``run``.

The keys are every key, table and list of the default rules (read from ``default.toml``, so keys added later are
fuzzed too) and every top-level key of an experiment. ``EASTINDIA_FUZZ_EXAMPLES`` raises the number of examples
(the suite runs a bounded number to stay fast; hypothesis picks new ones on every run).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from experiments import cli, spec, tomlw
from experiments import runfolder as rf
from sim.results import PEOPLE
from sim.rules import DEFAULT_PATH, load_toml

EXAMPLES = int(os.environ.get("EASTINDIA_FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
DEFAULTS = load_toml(DEFAULT_PATH)


def _at(node: Any, path: tuple) -> Any:
    for part in path:
        node = node[part]
    return node


def rule_paths(node: Any, path: tuple = ()) -> list[tuple]:
    """Every key of the rules: leaves, lists (and their entries) and tables."""
    out = [path] if path else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += rule_paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += rule_paths(v, (*path, i))
    return out


RULE_PATHS = rule_paths(DEFAULTS)
NAMES = sorted({v for p in RULE_PATHS if isinstance(v := _at(DEFAULTS, p), str)})
EDGES = [0, 1, -1, 2, 3, 7, 127, 128, 255, 256, 2**15, 2**31 - 1, 2**31, -(2**31) - 1, 2**53 + 1, 2**63 - 1, 2**63]

scalars = st.one_of(
    st.integers(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.sampled_from(EDGES),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, 0.5, 1.0, -0.5, 1e15, 1e300, float("nan"), float("inf"), float("-inf")]),
    st.booleans(),
    st.text(max_size=8),
    st.sampled_from(["", "flat", "linear", "inverse_share", "balanced", "random", "*", "Bengal", "Madras"]),
    st.dates(),
    st.datetimes(),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(min_size=1, max_size=6), inner, max_size=3),
    max_leaves=6,
)


def near(default: Any) -> st.SearchStrategy:
    """Values of the same kind as a default: what a designer editing the file would try."""
    if isinstance(default, bool):
        return st.booleans()
    if isinstance(default, int):
        return st.integers(min_value=default - 4, max_value=default + 4) | st.sampled_from(EDGES)
    if isinstance(default, float):
        return st.floats(min_value=-2.0, max_value=max(4.0, 2 * default), allow_nan=False)
    if isinstance(default, list):
        return st.just(default[:-1]) | st.just(default + default[-1:]) | st.just(default[::-1])
    if isinstance(default, str):  # another name the rules use (a region for a region, an office for an office...)
        return st.sampled_from(NAMES)
    return values


@st.composite
def rules_edits(draw) -> tuple[tuple, Any]:
    path = draw(st.sampled_from(RULE_PATHS))
    node: Any = DEFAULTS
    for part in path:
        node = node[part]
    return path, draw(st.one_of(near(node), near(node), near(node), values))  # mostly plausible edits


def set_path(raw: Any, path: tuple, value: Any) -> None:
    for part in path[:-1]:
        raw = raw[part]
    raw[path[-1]] = value


def run_cli(*args: Any) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def check_outcome(exp: Path, out: Path, games_option: list[str]) -> None:
    """``run`` gives 0 or one line with exit 2, ``validate`` agrees, and a finished run's frames are sane."""
    code, _, err = run_cli("run", exp, "--out", out, "--quiet", "--no-report", "--jobs", "1", *games_option)
    assert "Traceback" not in err, err
    assert code in (0, 2), err
    v_code, v_out, _ = run_cli("validate", exp)
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("eastindia: error: "), err
        if not out.exists() and not games_option:  # refused before any game: validate must have found it
            assert v_code == 2, (err, v_out)
        return
    assert v_code == 0, v_out
    check_frames(out)


def check_frames(out: Path) -> None:
    """No garbage: finite floats, money never negative, starting capital adding up to B, stability on its track,
    every relative accounted for, and the resolved experiment reading back as the same experiment."""
    meta = rf.read_meta(out)
    assert meta["status"] == "complete"
    resolved = spec.load(out / rf.EXPERIMENT)
    assert resolved.digest() == meta["experiment_digest"]
    games = pl.read_parquet(rf.frame_path(out, "games"))
    seats = pl.read_parquet(rf.frame_path(out, "seats"))
    rounds = pl.read_parquet(rf.frame_path(out, "rounds"))
    seat_rounds = pl.read_parquet(rf.frame_path(out, "seat_rounds"))
    assert games.height == meta["games"] and seats.height == meta["games"] * meta["players"]
    for name, df in (("games", games), ("seats", seats), ("rounds", rounds), ("seat_rounds", seat_rounds)):
        for column, dtype in df.schema.items():
            if dtype.is_float():
                assert df[column].is_finite().all(), f"{name}.{column} holds NaN or inf"
    for arm in resolved.arms:
        rules = arm.rules()
        mine = seats.filter(pl.col("arm_index") == arm.index)
        its_rounds = rounds.filter(pl.col("arm_index") == arm.index)
        its_seat_rounds = seat_rounds.filter(pl.col("arm_index") == arm.index)
        assert (mine["starting_capital"] >= 0).all() and (mine["money"] >= 0).all()
        total = mine.group_by("game").agg(pl.col("starting_capital").sum())["starting_capital"]
        if rules.capital.excess == "take_back":
            assert (total == rules.budget).all(), f"starting capital {total.to_list()} != B = {rules.budget}"
        else:
            assert (total >= rules.budget).all()
        assert its_rounds["stability"].is_between(0, rules.company.max_stability).all()
        assert (its_rounds["balance"] >= 0).all() and (its_rounds["loans"] >= 0).all()
        assert (its_seat_rounds["money"] >= 0).all()
        assert its_seat_rounds.select(pl.sum_horizontal(PEOPLE)).to_series().eq(rules.game.family_size).all()
        its_games = games.filter(pl.col("arm_index") == arm.index)
        assert its_games["end_round"].is_between(1, rules.game.rounds).all()
        assert its_games["winner_seat"].is_between(0, arm.players - 1).all()


# ------------------------------------------------------------------------------------------------ rules files
@FUZZ
@given(edits=st.lists(rules_edits(), min_size=1, max_size=2))
def test_fuzz_rules_files(edits):
    raw = copy.deepcopy(DEFAULTS)
    for path, value in edits:
        with contextlib.suppress(TypeError, IndexError, KeyError):  # an earlier edit replaced a table: skip
            set_path(raw, path, value)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "rules.toml").write_text(tomlw.dumps(raw), encoding="utf-8")
        exp = tmp / "exp.toml"
        exp.write_text(
            'games = 2\nshard_size = 2\nseed = 5\nstrategies = ["balanced", "random"]\nrules = "rules.toml"\n'
        )
        check_outcome(exp, tmp / "out", [])
        code, out, _ = run_cli("validate", tmp / "rules.toml")  # the rules file alone
        assert code in (0, 2) and (code == 0) == out.strip().endswith(": ok"), out


# ------------------------------------------------------------------------------------------ experiment files
EXPERIMENT = {
    "name": "fuzz",
    "games": 2,
    "shard_size": 2,
    "seed": 5,
    "strategies": ["balanced", "random"],
    "overrides": {"company.start_stability": 4},
    "sweep": {"capital.formula": ["inverse_share", "flat"]},
    "arms": [{"name": "a", "overrides": {"capital.budget_per_player": 6}}],
}
TOP_KEYS = sorted(spec.TOP_KEYS)
RULE_KEYS = [".".join(str(p) for p in path) for path in RULE_PATHS]


@st.composite
def experiment_edits(draw) -> tuple[tuple, Any]:
    kind = draw(st.sampled_from(["top", "override", "sweep", "arm"]))
    if kind == "top":
        return (draw(st.sampled_from(TOP_KEYS)),), draw(values | st.sampled_from([1, 3, 4, 5, 6, 7, True]))
    key = draw(st.sampled_from(RULE_KEYS))
    node: Any = DEFAULTS
    for part in key.split("."):
        node = node[int(part) if isinstance(node, list) else part]
    value = draw(near(node) | values)
    if kind == "override":
        return ("overrides", key), value
    if kind == "sweep":
        return ("sweep", key), draw(st.lists(near(node) | values, max_size=3) | values)
    return ("arms", 0, draw(st.sampled_from(["name", "overrides", "strategies", "colour"]))), (
        {key: value} if draw(st.booleans()) else value
    )


@FUZZ
@given(edits=st.lists(experiment_edits(), min_size=1, max_size=2))
def test_fuzz_experiment_files(edits):
    data = copy.deepcopy(EXPERIMENT)
    for path, value in edits:
        node: Any = data
        with contextlib.suppress(TypeError, IndexError, KeyError):  # an earlier edit replaced a table: skip
            for part in path[:-1]:
                node = node[part]
            node[path[-1]] = value
    games = data.get("games")
    # a valid large game count is played as 2 games (--games): what is fuzzed is the file, not our patience
    option = ["--games", "2"] if isinstance(games, int) and not isinstance(games, bool) and games > 2 else []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        exp = tmp / "exp.toml"
        exp.write_text(tomlw.dumps(data), encoding="utf-8")
        check_outcome(exp, tmp / "out", option)
        if option:  # the file itself is what validate checks
            code, out, _ = run_cli("validate", exp)
            assert code in (0, 2), out


def test_fuzz_harness_sees_every_section_and_writes_valid_toml():
    sections = {path[0] for path in RULE_PATHS}
    assert sections == set(DEFAULTS) and len(RULE_PATHS) > 500
    assert json.loads(json.dumps(EXPERIMENT)) == EXPERIMENT
