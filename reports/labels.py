"""Short arm labels for charts, tables and the terminal: what tells the arms apart, said first, and what they all
share, said once.

An arm's name (``experiments.spec.expand``) is the listed arm's name, if any, then each swept key as ``key=value``,
joined by ", ": ``capital.formula=flat, capital.budget_per_player=5`` for a sweep alone, ``rich,
capital.budget_per_player=5`` for a listed arm ``rich`` crossed with a sweep, ``rich`` for a listed arm alone. The
names are unique but long, and alike at their start: cut to a chart's width, the three budgets of one formula read
the same. ``arm_labels`` splits each name into its parts (a free name, then ``key=value`` pairs; a value may hold
", " as in ``[1, 2]``), drops the parts every arm shares (said once in ``shared``) and labels each arm by the parts
that differ:

- by their values alone, joined by " · " (``inverse_share · 5``), when every arm sets the same differing keys and
  those values tell the arms apart; ``title`` names what they are (``formula · budget_per_player``);
- else by ``key=value`` with the keys shortened to their last dotted part where that stays unambiguous
  (``budget_per_player=5 · rate=1``);
- else (two names that split into the same parts) by the full names.

One arm keeps its name. The labels are always distinct, as the names are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

SEP = " · "  # between the parts of a label
_KEY = r"[A-Za-z_][\w.:\-]*="  # the start of a "key=value" part: a rules key, a strategy key
_SPLIT = re.compile(rf", (?={_KEY})")  # parts are joined by ", "; a value's own ", " is not followed by a key
NAME = ""  # the key of an arm's free name (a listed arm's name, the first part of its full name)


@dataclass(frozen=True)
class ArmLabels:
    """The arms' full ``names`` and their short, distinct ``labels`` (in the same order), the ``keys`` whose values
    make up a label (``NAME`` for a listed arm's name; empty when the labels are the full names or say their keys),
    and ``shared``: the parts every arm has, as ``key=value, ...`` (empty when none)."""

    names: tuple[str, ...]
    labels: tuple[str, ...]
    keys: tuple[str, ...] = ()
    shared: str = ""

    def of(self, name: str) -> str:
        """The label of the arm named ``name`` (``name`` itself when no arm has it)."""
        return dict(zip(self.names, self.labels, strict=True)).get(name, name)

    def name(self, label: str) -> str:
        """The full name of the arm labelled ``label`` (``label`` itself when no arm has it)."""
        return dict(zip(self.labels, self.names, strict=True)).get(label, label)

    @property
    def title(self) -> str:
        """What a label says, for an axis or a column: ``formula · budget_per_player``, else ``arm``."""
        if not self.keys:
            return "arm"
        short = short_keys([k for k in self.keys if k != NAME])
        return SEP.join("arm" if k == NAME else short[k] for k in self.keys)

    def caption(self) -> str:
        """One sentence for a page or a table: how the arms are labelled and what they all share."""
        if len(self.names) <= 1 or self.labels == self.names:
            return ""
        if self.keys:
            what = SEP.join("the arm's name" if k == NAME else k for k in self.keys)
            text = f"Arms are labelled by {what} (e.g. {self.labels[0]})"
        else:
            text = "Arms are labelled by the keys that differ between them"
        return text + (f"; every arm has {self.shared}." if self.shared else ".")


def split_name(name: str) -> list[tuple[str, str]]:
    """The parts of an arm's name as (key, value): ``NAME`` and the whole text for a part without ``key=``."""
    parts = []
    for part in _SPLIT.split(name):
        key, eq, value = part.partition("=")
        parts.append((key, value) if eq and re.match(_KEY, part) else (NAME, part))
    return parts


def short_keys(keys: Sequence[str]) -> dict[str, str]:
    """The last dotted part of each key (``capital.formula`` -> ``formula``), unless two keys share it."""
    tails = [key.rsplit(".", 1)[-1] for key in keys]
    return {key: tail if tails.count(tail) == 1 else key for key, tail in zip(keys, tails, strict=True)}


def _part(key: str, value: str) -> str:
    return value if key == NAME else f"{key}={value}"


def arm_labels(names: Sequence[str]) -> ArmLabels:
    """Short labels for the arms named ``names`` (unique, in arm order): see the module's docstring."""
    names = tuple(names)
    full = ArmLabels(names, names)
    if len(names) <= 1 or len(set(names)) < len(names):
        return full
    split = [split_name(n) for n in names]
    if any(len({k for k, _ in parts}) < len(parts) for parts in split):  # a key twice in one name: keep the names
        return full
    parsed = [dict(parts) for parts in split]
    keys = list(dict.fromkeys(k for parts in split for k, _ in parts))
    shared = [k for k in keys if all(k in p for p in parsed) and len({p[k] for p in parsed}) == 1]
    differ = [k for k in keys if k not in shared]
    said = ", ".join(_part(k, parsed[0][k]) for k in shared)
    if all(k in p for p in parsed for k in differ):
        labels = tuple(SEP.join(p[k] for k in differ) for p in parsed)
        if _distinct(labels):
            return ArmLabels(names, labels, tuple(differ), said)
    short = short_keys([k for k in differ if k != NAME])
    labels = tuple(SEP.join(_part(short.get(k, k), p[k]) for k in differ if k in p) for p in parsed)
    return ArmLabels(names, labels, (), said) if _distinct(labels) else full


def _distinct(labels: Sequence[str]) -> bool:
    return all(label.strip() for label in labels) and len(set(labels)) == len(labels)
