"""Strategies by name: the CLI names of the registered strategy classes."""

from __future__ import annotations

import re
import tomllib
from typing import Any

REGISTRY: dict[str, type] = {}
# A strategy's name (built-in or plugin): a lowercase letter, then lowercase letters, digits, "_" or "-".
NAME_PATTERN = re.compile(r"[a-z][a-z0-9_-]{0,63}")
NAME_RULE = "a lowercase letter, then lowercase letters, digits, '_' or '-' (at most 64 characters)"


class UnknownStrategy(ValueError):
    """A strategy name that is not registered."""


def register(name: str):
    """Class decorator: register a Strategy subclass under ``name`` (its ``name`` attribute is set to it)."""
    if problem := name_problem(name):
        raise ValueError(problem)

    def deco(cls: type) -> type:
        cls.name = name
        REGISTRY[name] = cls
        return cls

    return deco


def name_problem(name: Any) -> str | None:
    """Why ``name`` cannot name a strategy (None: it can): it must match ``NAME_PATTERN``."""
    if isinstance(name, str) and NAME_PATTERN.fullmatch(name):
        return None
    return f"strategy name {name!r}: a name is {NAME_RULE}"


def name_key(name: str) -> str:
    """What two names that read alike share: case, surrounding spaces and "-" against "_" set aside."""
    return name.strip().casefold().replace("-", "_")


def builtin(name: str) -> bool:
    """Whether ``name`` is taken by a strategy of this package (a plugin may not take it: its results would be
    reported under the built-in's name)."""
    cls = REGISTRY.get(name)
    return cls is not None and cls.__module__.partition(".")[0] == __package__


def get(name: str) -> type:
    try:
        return REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise UnknownStrategy(f"unknown strategy {name!r} (known: {known})") from None


def parse(spec: str) -> tuple[str, dict[str, Any]]:
    """``"bid_low:max_bid=2,risk=0.5"`` -> ("bid_low", {"max_bid": 2, "risk": 0.5}); values read as TOML scalars
    (integers, floats, true/false, else the text)."""
    name, _, rest = spec.partition(":")
    params: dict[str, Any] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, eq, text = item.partition("=")
        if not eq or not key.strip():
            raise UnknownStrategy(f"strategy {spec!r}: parameters are written name:key=value,key=value")
        try:
            value = tomllib.loads(f"v = {text.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            value = text.strip()
        params[key.strip()] = value
    return name.strip(), params


def make(spec: Any, **params: Any):
    """A strategy instance from a registered name (optionally ``name:key=value,...``), a Strategy class (made with
    ``params``) or an instance."""
    if isinstance(spec, str):
        name, parsed = parse(spec)
        return get(name)(**{**parsed, **params})
    if isinstance(spec, type):
        return spec(**params)
    return spec


def describe() -> dict[str, str]:
    """name -> the first line of the class docstring."""
    return {name: (cls.__doc__ or "").strip().splitlines()[0] for name, cls in sorted(REGISTRY.items())}
