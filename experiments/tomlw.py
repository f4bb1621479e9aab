"""A small TOML writer for resolved experiments (tables, arrays of tables, scalars and lists of scalars).

Kept rather than ``tomli-w``: an experiment's digest (``Experiment.digest``, recorded in every run folder and study)
hashes this text, and ``tomli-w`` lays the same data out differently (multi-line arrays, sub-tables for inline
tables), so switching would make every finished run a "different experiment"; its one-value form (``_value``) also
writes the values quoted in messages, which ``tomli-w`` has no public function for."""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from typing import Any

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _string(s: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's; DEL must be escaped too)."""
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


def _key(key: str) -> str:
    return key if _BARE.match(key) else _string(key)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return repr(v)
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))
    if isinstance(v, dt.date | dt.time):  # TOML's dates, times and date-times are ISO 8601
        return v.isoformat()
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    if v is None:
        raise ValueError("TOML has no null")
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def dumps(data: dict[str, Any]) -> str:
    """TOML text for ``data``: scalars first, then tables, then arrays of tables."""
    lines: list[str] = []
    _table(lines, data, [])
    return "\n".join(lines).strip() + "\n"


def _table(lines: list[str], data: dict[str, Any], path: list[str]) -> None:
    tables, arrays = {}, {}
    for k, v in data.items():
        if isinstance(v, dict):
            tables[k] = v
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            arrays[k] = v
        else:
            lines.append(f"{_key(k)} = {_value(v)}")
    for k, v in tables.items():
        lines.append("")
        lines.append("[" + ".".join(_key(p) for p in [*path, k]) + "]")
        _table(lines, v, [*path, k])
    for k, items in arrays.items():
        for item in items:
            lines.append("")
            lines.append("[[" + ".".join(_key(p) for p in [*path, k]) + "]]")
            _table(lines, item, [*path, k])
