"""Strategies by name: the CLI names of the registered strategy classes."""

from __future__ import annotations

from typing import Any

REGISTRY: dict[str, type] = {}


class UnknownStrategy(ValueError):
    """A strategy name that is not registered."""


def register(name: str):
    """Class decorator: register a Strategy subclass under ``name`` (its ``name`` attribute is set to it)."""

    def deco(cls: type) -> type:
        cls.name = name
        REGISTRY[name] = cls
        return cls

    return deco


def get(name: str) -> type:
    try:
        return REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(REGISTRY))
        raise UnknownStrategy(f"unknown strategy {name!r} (known: {known})") from None


def make(spec: Any):
    """A strategy instance from a registered name, a Strategy class or an instance."""
    if isinstance(spec, str):
        return get(spec)()
    if isinstance(spec, type):
        return spec()
    return spec


def describe() -> dict[str, str]:
    """name -> the first line of the class docstring."""
    return {name: (cls.__doc__ or "").strip().splitlines()[0] for name, cls in sorted(REGISTRY.items())}
