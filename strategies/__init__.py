"""Pluggable strategies: one vectorised method per decision point, looked up by name in a registry."""

from .base import Strategy  # registers "balanced"
from .randomized import RandomStrategy  # registers "random"
from .registry import REGISTRY, UnknownStrategy, describe, get, make, register

__all__ = ["REGISTRY", "RandomStrategy", "Strategy", "UnknownStrategy", "describe", "get", "make", "register"]
