"""The report's banner: what a reader must know before trusting the numbers.

- **Placeholder content**: rules content its file marks ``PLACEHOLDER`` (a comment on the key's line or its table
  header, or a comment block right above the key) that the run still plays: marks of ``sim/rules/default.toml``
  unless the arm's rules file or overrides replace that key, and marks in the arm's own rules file.
- **Changed rules keys**: every rules key whose value in some arm differs from the embedded defaults (a rules file
  or an override), with its default and each arm's value.
- **VP sources that are 0 in every row**: sources no seat of any game scored (``Aggregates.zero_sources``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sim
from sim.rules import DEFAULT_PATH, load_toml

from .data import Aggregates, format_value

MARK = "PLACEHOLDER"
_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r'^\s*("[^"]+"|[A-Za-z0-9_.-]+)\s*=\s*(.*)$')
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'')


@dataclass(frozen=True)
class Mark:
    """A PLACEHOLDER mark: the dotted key (``map.regions[Mysore].shapes``), its note and the file it is in."""

    key: str
    note: str
    source: str


def placeholder_marks(path: str | Path) -> list[Mark]:
    """Every PLACEHOLDER mark of a rules file (see the module docstring)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    marks: list[Mark] = []
    table, element = "", ""
    pending: list[str] = []
    depth = 0
    for line in lines:
        bare = _STRING.sub('""', line)
        code, _, comment = bare.partition("#")
        if depth > 0:  # inside a multi-line value
            depth += code.count("[") + code.count("{") - code.count("]") - code.count("}")
            continue
        stripped = line.strip()
        if not stripped:
            pending = []
            continue
        if stripped.startswith("#"):
            if MARK in stripped:
                pending.append(stripped.lstrip("# ").strip())
            continue
        header = _HEADER.match(code + (f"#{comment}" if comment else ""))
        if header and not _KEY.match(code):
            table, element = header.group(2).strip(), ""
            if header.group(1) == "[[":
                element = "?"
            if MARK in comment:
                marks.append(Mark(table, _sentences(line.partition("#")[2].strip()), str(path)))
            pending = []
            continue
        key = _KEY.match(code)
        if key is None:
            pending = []
            continue
        name, value = key.group(1).strip('"'), key.group(2)
        if element and name == "name":
            found = re.search(r'"([^"]*)"', line)
            element = found.group(1) if found else element
        where = table + (f"[{element}]" if element else "")
        full = f"{where}.{name}" if where else name
        notes = [*pending, *([line.partition("#")[2].strip()] if MARK in comment else [])]
        if notes:
            marks.append(Mark(full, _sentences(" ".join(notes)), str(path)))
        pending = []
        depth = value.count("[") + value.count("{") - value.count("]") - value.count("}")
    return marks


def _sentences(note: str) -> str:
    """The sentences of a comment that carry the mark (``PLACEHOLDER`` alone: "marked PLACEHOLDER")."""
    kept = [x for x in re.split(r"(?<=[.;])\s+", note) if MARK in x]
    text = " ".join(kept) or note
    return "marked PLACEHOLDER" if text.strip(" .") == MARK else text


def _set_keys(raw: Any, prefix: str = "") -> set[str]:
    """Every dotted key a (partial) rules table sets a value of (``map.regions`` for an array of tables; a table is
    not set by setting one of its keys)."""
    out: set[str] = set()
    for k, v in raw.items() if isinstance(raw, dict) else ():
        key = f"{prefix}.{k}" if prefix else k
        out |= _set_keys(v, key) if isinstance(v, dict) else {key}
    return out


def _replaced(mark: str, keys: set[str]) -> bool:
    """Is the marked key, or a value holding it (``map.regions`` for ``map.regions[Mysore].shapes``), set?"""
    base = re.sub(r"\[[^\]]*\]", "", mark)
    parts = base.split(".")
    return any(".".join(parts[: i + 1]) in keys for i in range(len(parts)))


def arm_placeholders(arm: dict[str, Any]) -> list[Mark]:
    """The PLACEHOLDER content an arm (run.json's arm record) plays with."""
    rules_file = arm.get("rules_file")
    user: set[str] = set()
    own: list[Mark] = []
    if rules_file and Path(rules_file).is_file():
        try:
            user = _set_keys(load_toml(rules_file))
        except Exception:  # an unreadable file: nothing it replaces can be known
            user = set()
        own = placeholder_marks(rules_file)
    user |= set(arm.get("overrides") or {})
    return [m for m in placeholder_marks(DEFAULT_PATH) if not _replaced(m.key, user)] + own


def changed_keys(default: dict[str, Any], rules: dict[str, Any], prefix: str = "") -> dict[str, tuple[Any, Any]]:
    """Dotted key -> (default, value) for every key whose value differs; arrays of named tables compare element by
    element (``map.regions[Mysore].strength``)."""
    out: dict[str, tuple[Any, Any]] = {}
    for k in sorted(
        set(default) | set(rules), key=lambda x: (x not in default, list(default).index(x) if x in default else 0)
    ):
        key = f"{prefix}.{k}" if prefix else k
        a, b = default.get(k), rules.get(k)
        if isinstance(a, dict) and isinstance(b, dict):
            out |= changed_keys(a, b, key)
        elif (
            isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(isinstance(x, dict) for x in a + b)
        ):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                label = x.get("name", i) if x.get("name") == y.get("name") else i
                out |= changed_keys(x, y, f"{key}[{label}]")
        elif a != b:
            out[key] = (a, b)
    return out


def _short(value: Any, limit: int = 40) -> str:
    text = "—" if value is None else format_value(value) if not isinstance(value, list | dict) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def banner(agg: Aggregates) -> list[str]:
    """The banner's lines (empty: nothing to say)."""
    lines: list[str] = []
    arms = sorted(agg.run.arms, key=lambda a: a["index"])
    labels = {a.index: a.label for a in agg.arms}
    n = len(arms)

    def which(indices: list[int]) -> str:
        if len(indices) == n:
            return "every arm" if n > 1 else "this run"
        return "arms " + ", ".join(labels.get(i, str(i)) for i in indices)

    marks: dict[tuple[str, str], list[int]] = {}
    for arm in arms:
        for m in arm_placeholders(arm):
            marks.setdefault((m.key, m.note), []).append(arm["index"])
    for (key, note), indices in marks.items():
        lines.append(f"Placeholder content in {which(indices)}: {key} — {note.rstrip('.')}.")

    players = agg.run.meta.get("players") or agg.players
    default = sim.Rules.default(players).raw
    changes: dict[str, dict[int, tuple[Any, Any]]] = {}
    for arm in agg.arms:
        if arm.rules is None:
            lines.append(f"The rules of arm {arm.label} no longer load: changed keys unknown.")
            continue
        for key, pair in changed_keys(default, arm.rules.raw).items():
            changes.setdefault(key, {})[arm.index] = pair
    for key, per_arm in changes.items():
        first = next(iter(per_arm.values()))[0]
        values = {_short(v) for _, v in per_arm.values()}
        if len(values) == 1 and len(per_arm) == n:
            lines.append(
                f"Changed rules key: {key} = {values.pop()} (default {_short(first)}) in {which(list(per_arm))}."
            )
        else:
            shown = "; ".join(f"{_short(v)} in {labels.get(i, i)}" for i, (_, v) in per_arm.items())
            lines.append(f"Changed rules key: {key} (default {_short(first)}): {shown}.")

    if agg.zero_sources:
        names = ", ".join(s.replace("_", " ") for s in agg.zero_sources)
        lines.append(
            f"VP sources that are 0 in every seat of every game: {names} — they never score in this run "
            "(not simulated, or never reached by these strategies)."
        )
    return lines
