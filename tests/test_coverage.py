"""coverage.parquet: per arm, how often each decision point, rule and notable event happened, from the merged frames."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from experiments import runfolder as rf
from experiments import runner, spec
from experiments.coverage import DEREGULATION, FORCED, ArmRules, asked, coverage, decision_names, decisions_off
from sim.rules import Rules

EXP = """name = "cov"
games = 12
shard_size = {shard}
seed = 5
players = 4
strategies = ["balanced", "random"]

[sweep]
"company.max_loans" = [8, 5]
"""


def _run(tmp_path: Path, name: str, shard: int) -> Path:
    (tmp_path / f"{name}.toml").write_text(EXP.format(shard=shard))
    runner.run(spec.load(tmp_path / f"{name}.toml"), tmp_path / name, jobs=1)
    return tmp_path / name


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    return _run(tmp_path_factory.mktemp("coverage"), "run", 6)


def _row(cov: pl.DataFrame, arm: str, rule: str, what: str) -> dict:
    rows = cov.filter((pl.col("arm") == arm) & (pl.col("rule") == rule) & (pl.col("what") == what)).to_dicts()
    assert len(rows) == 1, (arm, rule, what)
    return rows[0]


def test_coverage_is_written_and_checksummed_with_the_frames(run_dir):
    cov = pl.read_parquet(run_dir / "coverage.parquet")
    assert cov.columns == ["arm", "rule", "what", "games", "share", "per_game"]
    record = rf.read_meta(run_dir)["frames"]["coverage"]
    assert record["rows"] == cov.height
    assert rf.file_sha256(run_dir / "coverage.parquet") == (record["bytes"], record["sha256"])
    assert rf.verify_frames(run_dir, rf.read_meta(run_dir)) is None
    (run_dir / "coverage.parquet").write_bytes(b"PAR1")  # a damaged table is noticed like a damaged frame
    assert rf.verify_frames(run_dir, rf.read_meta(run_dir)) == "coverage.parquet does not match its checksum"
    cov.write_parquet(run_dir / "coverage.parquet")


def test_deregulation_row_equals_the_games_frames_share(run_dir):
    cov = pl.read_parquet(run_dir / "coverage.parquet")
    games = pl.read_parquet(run_dir / "games.parquet")
    arms = games["arm"].unique().to_list()
    assert len(arms) == 2
    for arm in arms:
        g = games.filter(pl.col("arm") == arm)
        row = _row(cov, arm, "R-DEREGULATION", DEREGULATION)
        assert row["games"] == g["deregulation_round"].is_not_null().sum()
        assert row["share"] == pytest.approx(g["deregulation_round"].is_not_null().mean())
        last = pl.read_parquet(run_dir / "rounds.parquet")["round"].max()  # a row per round some game played
        by_round = [
            _row(cov, arm, "R-DEREGULATION", f"{DEREGULATION} in round {r}")["games"] for r in range(1, last + 1)
        ]
        assert by_round == [(g["deregulation_round"] == r).sum() for r in range(1, last + 1)]
        crash = _row(cov, arm, "R-END", "the Company crashes")
        assert crash["games"] == g["crashed"].sum()


def test_coverage_rows_recomputed_from_the_frames(run_dir):
    cov = pl.read_parquet(run_dir / "coverage.parquet")
    games = pl.read_parquet(run_dir / "games.parquet")
    rounds = pl.read_parquet(run_dir / "rounds.parquet")
    for arm in games["arm"].unique().to_list():
        g, r = games.filter(pl.col("arm") == arm), rounds.filter(pl.col("arm") == arm)
        n = g.height
        for name in ("take_loans", "bid", "table_deregulation", "open_firm"):  # asks per game, from the games frame
            asks = [sum(d["asks"] for d in row if d["decision"] == name) for row in g["decisions"].to_list()]
            row = _row(cov, arm, f"decision:{name}", f"decision {name} asked")
            assert (row["games"], row["per_game"]) == (sum(a > 0 for a in asks), pytest.approx(sum(asks) / n))
        for rule, what, column in (
            ("R-MILITARY", "conquests", "conquests"),
            ("R-FIRMS", "firms opened", "firms_opened"),
        ):
            per_game = r.group_by("game").agg(pl.col(column).sum())[column].to_list()
            row = _row(cov, arm, rule, what)
            assert row["games"] == sum(v > 0 for v in per_game) and row["per_game"] == pytest.approx(sum(per_game) / n)
        first = r.filter(pl.col("round") == 1)["loans_taken"].to_list()
        for k in range(max(first) + 1):
            assert _row(cov, arm, "R-CHAIRMAN", f"{k} loans taken in round 1")["games"] == first.count(k)
        # every decision point the arm's rules can ask has a row in every arm, asked or not (the default rules never
        # ask 2e's firm decisions: no row, D-FIRM-VARIANT); the shares are of the arm's games
        can = set(decision_names()) - decisions_off(Rules.default(4))
        assert {f"decision:{k}" for k in can} <= set(cov.filter(pl.col("arm") == arm)["rule"])
    assert cov["share"].is_between(0, 1).all()
    assert (cov["games"] == (cov["share"] * 12).round().cast(pl.Int64)).all()


def test_coverage_has_a_row_per_law_passed_and_per_position_card_taken_and_played(run_dir):
    """A row per law of the arm's rules ("law <name> passed"), per position card ("position card <name> taken") and
    per closed card ("... played"), recomputed from the rounds frame's flags; a law or card no game saw keeps its row
    with 0 games."""
    cov = pl.read_parquet(run_dir / "coverage.parquet")
    games = pl.read_parquet(run_dir / "games.parquet")
    rounds = pl.read_parquet(run_dir / "rounds.parquet")
    d = Rules.default(4).d
    closed = np.flatnonzero(~d.card_permanent)  # only a closed card is played
    for arm in games["arm"].unique().to_list():
        n = games.filter(pl.col("arm") == arm).height
        r = rounds.filter(pl.col("arm") == arm)
        for rule, what, column, names, entries in (
            ("R-PARLIAMENT", "law {} passed", "laws_passed_by_law", d.law_names, slice(None)),
            ("D-POSITIONS", "position card {} taken", "positions_taken_by_card", d.card_names, slice(None)),
            ("D-POSITIONS", "position card {} played", "positions_played_by_card", [d.card_names[k] for k in closed],
             closed),
        ):  # fmt: skip
            flags = np.array(r[column].to_list(), dtype=np.int64)[:, entries]
            per_game = np.stack([np.bincount(np.unique(r["game"], return_inverse=True)[1], weights=f) for f in flags.T])
            rows = [_row(cov, arm, rule, what.format(name)) for name in names]
            assert [x["games"] for x in rows] == (per_game > 0).sum(axis=1).tolist()
            assert [x["per_game"] for x in rows] == pytest.approx((flags.sum(axis=0) / n).tolist())
            assert sum(x["games"] for x in rows) > 0 and min(x["games"] for x in rows) == 0
            prefix, suffix = what.split("{}")
            mine = pl.col("what").str.starts_with(prefix) & pl.col("what").str.ends_with(suffix)
            assert cov.filter((pl.col("arm") == arm) & mine).height == len(names)


def test_coverage_names_the_laws_and_cards_of_each_arms_own_rules(run_dir):
    """Each arm's rows are named from its own rules' lists: a law an arm's rules do not have has no row there."""
    games, rounds = pl.scan_parquet(run_dir / "games.parquet"), pl.scan_parquet(run_dir / "rounds.parquet")
    d = Rules.default(4).d
    first, second = sorted(games.select("arm").unique().collect()["arm"].to_list())
    renamed = tuple(f"Act {k}" for k in range(len(d.law_names) - 1))  # one law fewer, other names
    closed = [not p for p in d.card_permanent]
    arms = {first: ArmRules(d.law_names, d.card_names, closed), second: ArmRules(renamed, d.card_names, closed)}
    cov = coverage(games, rounds, arms)
    laws = cov.filter(pl.col("rule") == "R-PARLIAMENT", pl.col("what").str.starts_with("law "))
    assert laws.filter(pl.col("arm") == first)["what"].to_list() == [f"law {x} passed" for x in d.law_names]
    assert laws.filter(pl.col("arm") == second)["what"].to_list() == [f"law {x} passed" for x in renamed]
    stored = pl.read_parquet(run_dir / "coverage.parquet").filter(pl.col("arm") == second)
    assert (
        laws.filter(pl.col("arm") == second)["games"].to_list()
        == stored.filter(pl.col("what").str.starts_with("law "))["games"].to_list()[:-1]
    )


def test_coverage_does_not_depend_on_the_shard_size(run_dir, tmp_path):
    other = _run(tmp_path, "whole", 12)
    assert pl.read_parquet(other / "coverage.parquet").equals(pl.read_parquet(run_dir / "coverage.parquet"))


def test_coverage_leaves_out_what_the_arms_rules_make_impossible(run_dir):
    """A permanent position card is never played (D-POSITIONS: only a closed card is), and without a forced round the
    rules never table Deregulation (D-FORCED-ROUND): neither has a row, so the table lists no false dead rule. The
    default deck holds 8 permanent and 10 closed cards: "played" rows for the 10 closed ones only, every one of the
    18 "taken". An arm whose rules force a round keeps the forced-round row (0 games in this run)."""
    d = Rules.default(4).d
    permanent = [name for name, p in zip(d.card_names, d.card_permanent, strict=True) if p]
    closed = [name for name in d.card_names if name not in permanent]
    assert (len(permanent), len(closed)) == (8, 10)
    cov = pl.read_parquet(run_dir / "coverage.parquet")
    for arm in cov["arm"].unique().to_list():
        mine = cov.filter(pl.col("arm") == arm)["what"].to_list()
        assert [w for w in mine if w.endswith(" played")] == [f"position card {x} played" for x in closed]
        assert sum(w.endswith(" taken") and w.startswith("position card ") for w in mine) == 18
        assert FORCED not in mine
    games, rounds = pl.scan_parquet(run_dir / "games.parquet"), pl.scan_parquet(run_dir / "rounds.parquet")
    first, second = sorted(games.select("arm").unique().collect()["arm"].to_list())
    forced = Rules.default(4).with_overrides({"deregulation.forced_round": 3})
    cov = coverage(games, rounds, {first: ArmRules.of(Rules.default(4)), second: ArmRules.of(forced)})
    assert _row(cov, second, "D-FORCED-ROUND", FORCED)["games"] == 0
    assert cov.filter((pl.col("arm") == first) & (pl.col("what") == FORCED)).height == 0


JC2E_ONLY = {"dissolve_firm", "consent_dissolution", "rescue_firm", "consent_waivers"}
DEALS = {"offer_notes", "accept_notes", "offer_exchange", "accept_exchange", "use_money_notes"}


@pytest.mark.parametrize(
    ("overrides", "off"),
    [
        ({}, JC2E_ONLY),  # the default rules: the house firms (D-FIRM-VARIANT), deals at both moments (D-DEALS)
        ({"firms.variant": "jc2e"}, set()),
        ({"notes.deal_moments": []}, JC2E_ONLY | DEALS),
        ({"notes.exchanges": False}, JC2E_ONLY | {"offer_exchange", "accept_exchange"}),  # D-GIFTS
    ],
)
def test_the_decisions_a_rule_switched_off_never_asks(overrides, off):
    assert decisions_off(Rules.default(4).with_overrides(overrides)) == off
    assert off <= set(decision_names())


def test_a_decision_the_arms_rules_switch_off_has_no_row_and_is_not_a_dead_rule(run_dir):
    """2e's dissolution, emergency merger and selective dividends (decisions dissolve_firm, consent_dissolution,
    rescue_firm, consent_waivers) are asked only under ``firms.variant = "jc2e"`` (D-FIRM-VARIANT): an arm of the
    default (house) rules never asks them, so they have no row there, as a permanent card's "played" has none, rather
    than a "never asked" row that reads as a dead rule. An arm of jc2e keeps them (0 games in this run, played by the
    house rules), and every other decision point keeps its row in both."""
    cov = pl.read_parquet(run_dir / "coverage.parquet")
    for arm in cov["arm"].unique().to_list():
        mine = set(cov.filter(pl.col("arm") == arm)["what"].to_list())
        assert not {asked(k) for k in JC2E_ONLY} & mine
        assert {asked(k) for k in set(decision_names()) - JC2E_ONLY} <= mine
    games, rounds = pl.scan_parquet(run_dir / "games.parquet"), pl.scan_parquet(run_dir / "rounds.parquet")
    first, second = sorted(games.select("arm").unique().collect()["arm"].to_list())
    jc2e = Rules.default(4).with_overrides({"firms.variant": "jc2e"})
    cov = coverage(games, rounds, {first: ArmRules.of(Rules.default(4)), second: ArmRules.of(jc2e)})
    for k in sorted(JC2E_ONLY):
        assert _row(cov, second, f"decision:{k}", asked(k))["games"] == 0
        assert cov.filter((pl.col("arm") == first) & (pl.col("what") == asked(k))).height == 0
    assert {asked(k) for k in decision_names()} <= set(cov.filter(pl.col("arm") == second)["what"].to_list())
