"""reports/labels.py: short arm labels from the arms' names as experiments/spec.py writes them; what differs first,
what every arm shares said once, always distinct."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from experiments import spec
from reports.labels import NAME, SEP, arm_labels, split_name

LIBRARY = Path(__file__).resolve().parents[1] / "experiments" / "library"


def names_of(tmp_path: Path, toml: str) -> list[str]:
    """The arms' names of an experiment file, as ``eastindia run`` names them."""
    path = tmp_path / "exp.toml"
    path.write_text('name = "x"\ngames = 1\nplayers = 5\nstrategies = ["balanced"]\n' + toml)
    return [arm.name for arm in spec.load(path).arms]


def test_the_capital_formulas_arms_are_labelled_by_their_values_formula_first():
    """capital_formulas.toml: 3 formulas x 3 budgets, names alike for 40 characters; the labels are the two values,
    distinct, the formula first, and their title names the keys once."""
    names = [arm.name for arm in spec.load(LIBRARY / "capital_formulas.toml").arms]
    assert names[:2] == [
        "capital.formula=inverse_share, capital.budget_per_player=5",
        "capital.formula=inverse_share, capital.budget_per_player=6",
    ]
    got = arm_labels(names)
    expected = [f"{f}{SEP}{b}" for f, b in itertools.product(["inverse_share", "flat", "linear"], [5, 6, 7])]
    assert list(got.labels) == expected
    assert got.keys == ("capital.formula", "capital.budget_per_player") and got.shared == ""
    assert got.title == "formula · budget_per_player"
    assert got.caption() == (
        "Arms are labelled by capital.formula · capital.budget_per_player (e.g. inverse_share · 5)."
    )
    assert got.of(names[4]) == "flat · 6" and got.name("flat · 6") == names[4]


def test_what_every_arm_shares_is_said_once_and_left_out_of_the_labels(tmp_path):
    names = names_of(tmp_path, '[sweep]\n"capital.formula" = ["flat"]\n"capital.budget_per_player" = [5, 6, 7]\n')
    got = arm_labels(names)
    assert got.labels == ("5", "6", "7") and got.shared == "capital.formula=flat"
    assert got.caption().endswith("; every arm has capital.formula=flat.") and got.title == "budget_per_player"


def test_a_listed_arm_crossed_with_a_sweep_is_labelled_by_its_name_then_the_value(tmp_path):
    toml = (
        '[[arms]]\nname = "rich"\noverrides = { "company.max_loans" = 8 }\n[[arms]]\nname = "poor"\n'
        '[sweep]\n"capital.budget_per_player" = [5, 6]\n'
    )
    names = names_of(tmp_path, toml)
    assert names == ["rich, capital.budget_per_player=5", "rich, capital.budget_per_player=6",
                     "poor, capital.budget_per_player=5", "poor, capital.budget_per_player=6"]  # fmt: skip
    got = arm_labels(names)
    assert got.labels == ("rich · 5", "rich · 6", "poor · 5", "poor · 6")
    assert got.keys == (NAME, "capital.budget_per_player") and got.title == "arm · budget_per_player"


def test_a_value_holding_a_comma_stays_one_part():
    assert split_name("a.b=[1, 2], c.d=x") == [("a.b", "[1, 2]"), ("c.d", "x")]
    assert split_name("seed formula 6 £") == [(NAME, "seed formula 6 £")]
    assert arm_labels(["a.b=[1, 2], c.d=x", "a.b=[1, 3], c.d=x"]).labels == ("[1, 2]", "[1, 3]")


def test_arms_setting_different_keys_say_each_key_shortened_where_unambiguous():
    got = arm_labels(["capital.formula=flat", "company.max_loans=6"])
    assert got.labels == ("formula=flat", "max_loans=6") and got.keys == ()
    assert got.caption() == "Arms are labelled by the keys that differ between them."
    same_tail = arm_labels(["a.rate=1", "b.rate=1"])
    assert same_tail.labels == ("a.rate=1", "b.rate=1")


def test_listed_names_one_arm_and_unparseable_names_keep_the_full_names():
    listed = ["seed formula 6 £", "flat 9 £", "inverse share 4 £"]
    assert arm_labels(listed).labels == tuple(listed) and arm_labels(listed).caption() == ""
    assert arm_labels(["capital.formula=flat, capital.budget_per_player=5"]).labels == (
        "capital.formula=flat, capital.budget_per_player=5",
    )
    assert arm_labels(["k.x=", "k.x=1"]).labels == ("x=", "x=1")  # an empty value says its key
    reordered = ["a.x=1, b.y=2", "b.y=2, a.x=1"]  # the same parts: only the full names tell them apart
    assert arm_labels(reordered).labels == tuple(reordered)
    twice = ["a.x=1, a.x=2", "a.x=1, a.x=3"]  # a key twice in one name: nothing to shorten safely
    assert arm_labels(twice).labels == tuple(twice)


@pytest.mark.parametrize("sizes", [(3, 3), (2, 5), (4, 1, 3), (1, 6)])
def test_labels_are_distinct_shorter_and_start_with_what_differs(sizes):
    """Any grid of swept keys: as many distinct labels as arms, none longer than its name, none starting with a
    key every arm shares."""
    keys = ["capital.formula", "capital.budget_per_player", "company.max_loans"][: len(sizes)]
    grid = itertools.product(*[[f"v{k}{i}" for i in range(n)] for k, n in enumerate(sizes)])
    names = [", ".join(f"{key}={v}" for key, v in zip(keys, values, strict=True)) for values in grid]
    got = arm_labels(names)
    assert len(set(got.labels)) == len(names)
    assert all(len(label) < len(name) for label, name in zip(got.labels, names, strict=True))
    assert not any(label.startswith("capital.") or label.startswith("v0") and sizes[0] == 1 for label in got.labels)
