"""The mutation tool's sampling and estimate: `tools/mutation.py` draws a reproducible, nested sample per
module and reports the sample's score with a Wilson interval. The tool is not part of the engine (mutmut's copy of the
project has no tools/: the test skips there)."""

from __future__ import annotations

import importlib.util
import json
import math
import tomllib
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[1] / "tools" / "mutation.py"
if not TOOL.exists():  # inside mutmut's mutants/ copy
    pytest.skip("tools/ is not copied for mutation runs", allow_module_level=True)
spec = importlib.util.spec_from_file_location("mutation_tool", TOOL)
mutation = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mutation)

POP = [f"sim.laws.x_f__mutmut_{k}" for k in range(1, 41)] + [f"sim.laws.x_g__mutmut_{k}" for k in range(1, 13)]


def test_sample_is_reproducible_and_independent_of_listing_order():
    a = mutation.draw(POP, 10, 1, "sim.laws")
    b = mutation.draw(list(reversed(POP)), 10, 1, "sim.laws")
    assert a == b and len(a) == 10 and len(set(a)) == 10 and set(a) <= set(POP)
    assert a == sorted(a, key=mutation._natural)  # natural order: mutmut_2 before mutmut_10


def test_sample_depends_on_seed_and_module_and_grows_nested():
    a = mutation.draw(POP, 10, 1, "sim.laws")
    assert mutation.draw(POP, 10, 2, "sim.laws") != a
    assert mutation.draw(POP, 10, 1, "sim.notes") != a
    assert set(a) < set(mutation.draw(POP, 20, 1, "sim.laws"))  # a larger sample contains the smaller one
    assert mutation.draw(POP, 100, 1, "sim.laws") == sorted(POP, key=mutation._natural)  # all when fewer


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (20, 20, 0.8389, 1.0),  # all killed: the interval still reaches down to 84 %
        (18, 20, 0.6990, 0.9721),
        (0, 10, 0.0, 0.2775),
        (50, 100, 0.4038, 0.5962),
    ],
)
def test_wilson_interval(k, n, low, high):
    lo, hi = mutation.wilson(k, n)
    assert math.isclose(lo, low, abs_tol=1e-4) and math.isclose(hi, high, abs_tol=1e-4)
    assert lo <= k / n <= hi


def test_wilson_interval_of_nothing_is_everything():
    assert mutation.wilson(0, 0) == (0.0, 1.0)


def test_tally_and_estimate_leave_equivalent_survivors_out():
    codes = {"a": 1, "b": 1, "c": 0, "d": 0, "e": None, "f": 33, "g": 36}  # 36: a timeout counts as killed
    t = mutation.tally(codes, equivalent={"c": "same values"}, accepted={"d": "later"})
    assert t == {
        "mutants": 7,
        "killed": 3,
        "survived": 2,
        "equivalent": 1,
        "accepted": 1,
        "no tests": 1,
        "not run": 1,
        "judged": 5,  # 3 killed + d + f (c is equivalent, e not run)
    }
    assert mutation.estimate(t) == "60.0% [23.1-88.2]"
    assert mutation.estimate(mutation.tally({"e": None}, {}, {})) == "-"


def test_report_prints_the_sample_estimate(tmp_path, capsys):
    meta = tmp_path / "sim" / "laws.py.meta"
    meta.parent.mkdir(parents=True)
    codes = {k: None for k in POP}
    names = mutation.draw(POP, 5, 1, "sim.laws")
    for k, v in zip(names, (1, 1, 1, 1, 0), strict=True):
        codes[k] = v
    meta.write_text(json.dumps({"exit_code_by_key": codes}))
    first = dict.fromkeys(names, 0)  # first verdicts: all survived
    sample = {"sim.laws": {"seed": 1, "size": 5, "population": len(POP), "names": names, "first": first}}
    (tmp_path / mutation.SAMPLE).write_text(json.dumps(sample))
    assert mutation.report([], tmp_path) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines()[3:] if line.startswith("sim.laws"))
    assert f"5/{len(POP)}" in row and "80.0% [37.6-96.4]" in row and "0.0% [0.0-43.4]" in row


def test_resume_reruns_the_sampled_survivors_but_not_the_equivalent_ones(monkeypatch):
    monkeypatch.setattr(mutation, "explained", lambda: ({"b": "same values"}, {"c": "later"}))
    codes = {"a": 0, "b": 0, "c": 0, "d": 1, "e": None, "f": 33}
    assert mutation.resume_survivors(["a", "b", "c", "d", "e", "f"], codes) == ["a", "c", "f"]  # f: no test yet


MODULE = """
def x_f__mutmut_orig(a):
    b = a + 1
    return b * 2
def x_f__mutmut_1(a):
    b = a - 1
    return b * 2
def x_f__mutmut_2(a):
    b = a + 1
    return b / 2
"""


def _survivors(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "mutants"
    (folder / "sim").mkdir(parents=True)
    (folder / "sim" / "foo.py").write_text(MODULE)
    toml = tmp_path / "mutation_survivors.toml"
    toml.write_text("# comment kept\n[equivalent]\n\n[accepted]\n")
    monkeypatch.setattr(mutation, "SURVIVORS", toml)
    monkeypatch.setattr(mutation, "_PARSED", {})
    return folder


def test_a_recorded_survivor_is_pinned_to_its_mutant(tmp_path, monkeypatch):
    folder = _survivors(tmp_path, monkeypatch)
    assert mutation.record(["sim.foo.x_f__mutmut_1"], "equivalent", "b is unread", folder) == 0
    assert mutation.record(["sim.foo.x_f__mutmut_2"], "accepted", "next to kill", folder) == 0
    text = mutation.SURVIVORS.read_text()
    assert text.startswith("# comment kept\n[equivalent]\n") and text.index("mutmut_1") < text.index("[accepted]")
    entry = tomllib.loads(text)["equivalent"]["sim.foo.x_f__mutmut_1"]
    assert entry["why"] == "b is unread" and entry["change"] == "- b = a + 1 / + b = a - 1"
    assert mutation.explained(folder) == (
        {"sim.foo.x_f__mutmut_1": "b is unread"},
        {"sim.foo.x_f__mutmut_2": "next to kill"},
    )
    assert mutation.stale(folder) == []
    assert mutation.record(["sim.foo.x_f__mutmut_1"], "equivalent", "b is never read", folder) == 0  # rewritten once
    assert mutation.SURVIVORS.read_text().count("mutmut_1") == 1
    assert mutation.record(["sim.foo.x_f__mutmut_9"], "equivalent", "?", folder) == 2  # no such mutant


def test_an_entry_whose_function_or_mutant_changed_explains_nothing(tmp_path, monkeypatch):
    folder = _survivors(tmp_path, monkeypatch)
    mutation.record(["sim.foo.x_f__mutmut_1", "sim.foo.x_f__mutmut_2"], "equivalent", "same", folder)
    text = mutation.SURVIVORS.read_text()
    # the mutants renumbered (same function): each entry now names the other change
    (folder / "sim" / "foo.py").write_text(MODULE.replace("_1(", "_X(").replace("_2(", "_1(").replace("_X(", "_2("))
    monkeypatch.setattr(mutation, "_PARSED", {})
    assert [why.startswith("the mutant is now: - ") for _, why in mutation.stale(folder)] == [True, True]
    assert mutation.explained(folder) == ({}, {})
    # the function changed: its mutants' numbers may mean anything now
    (folder / "sim" / "foo.py").write_text(MODULE.replace("b * 2", "b * 3"))
    monkeypatch.setattr(mutation, "_PARSED", {})
    assert {why for _, why in mutation.stale(folder)} == {"its function changed since the entry was recorded"}
    # a plain reason without a fingerprint is not trusted; an entry of a module not in the folder cannot be checked
    mutation.SURVIVORS.write_text(
        text.replace(
            "[accepted]", '"sim.foo.x_f__mutmut_3" = "old"\n"sim.bar.x_g__mutmut_1" = { why = "elsewhere" }\n[accepted]'
        )
    )
    (folder / "sim" / "foo.py").write_text(MODULE)
    monkeypatch.setattr(mutation, "_PARSED", {})
    assert mutation.stale(folder) == [("sim.foo.x_f__mutmut_3", "no such mutant now")]
    assert set(mutation.explained(folder)[0]) == {
        "sim.foo.x_f__mutmut_1",
        "sim.foo.x_f__mutmut_2",
        "sim.bar.x_g__mutmut_1",
    }


def test_every_explained_survivor_in_the_repository_is_pinned_to_its_mutant():
    """tools/mutation_survivors.toml: each entry has its reason and the fingerprint ``record`` writes."""
    data = tomllib.loads(mutation.SURVIVORS.read_text())
    assert set(data) == {"equivalent", "accepted"}
    for kind in data.values():
        for name, entry in kind.items():
            assert "__mutmut_" in name and set(entry) == {"why", "change", "source"}, name
            assert entry["why"] and entry["change"] and len(entry["source"]) == 12, name


def test_report_keeps_each_seeds_sample_and_weighs_modules_by_their_mutants(tmp_path, capsys):
    """Two seeds' samples of sim.laws side by side (the second drawn after tests for the first one's survivors),
    and a second module: the last row of each seed's table weighs each module's score by its population."""
    (tmp_path / "sim").mkdir()
    small = [f"sim.ledger.x_f__mutmut_{k}" for k in range(1, 11)]
    laws = {k: None for k in POP}
    one, two = mutation.draw(POP, 4, 1, "sim.laws"), mutation.draw(POP, 4, 2, "sim.laws")
    for k in one:
        laws[k] = 1
    for k, v in zip(two, (1, 0, 0, 0), strict=True):  # a mutant of both samples keeps its (one) verdict
        laws[k] = laws[k] or v
    codes = {**dict.fromkeys(small[:5], 1), **dict.fromkeys(small[5:], 0)}
    (tmp_path / "sim" / "laws.py.meta").write_text(json.dumps({"exit_code_by_key": laws}))
    (tmp_path / "sim" / "ledger.py.meta").write_text(json.dumps({"exit_code_by_key": codes}))
    entry = lambda seed, names, pop: {"seed": seed, "size": len(names), "population": pop, "names": names}  # noqa: E731
    sample = {
        "sim.laws": {"1": entry(1, one, len(POP)), "2": entry(2, two, len(POP))},
        "sim.ledger": entry(1, small, 10),  # the one-sample-per-module format of before
    }
    (tmp_path / mutation.SAMPLE).write_text(json.dumps(sample))
    assert mutation.report([], tmp_path) == 0
    out = capsys.readouterr().out
    first, second = out.split("seed 1:")[1].split("seed 2:")
    killed_two = sum(laws[k] == 1 for k in two)
    laws_two = 100 * killed_two / 4
    assert "4/52" in first and "10/10" in first and "4/52" in second and "10/10" not in second
    overall = [next(ln for ln in part.splitlines() if ln.startswith("all")) for part in (first, second)]
    assert f"{(52 * 100.0 + 10 * 50.0) / 62:.1f}%" in overall[0]  # 100 % of 52 mutants and 50 % of 10
    assert f"{laws_two:.1f}%" in overall[1]
