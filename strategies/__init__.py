"""Pluggable strategies: one vectorised method per decision point, looked up by name in a registry."""

from .archetypes import BidLow, BuyShares, GoMilitary, RunFirm  # registers the four archetypes
from .base import Strategy  # registers "balanced"
from .lookahead import Lookahead  # registers "lookahead"
from .randomized import RandomStrategy  # registers "random"
from .registry import REGISTRY, UnknownStrategy, builtin, describe, get, make, register

__all__ = [
    "REGISTRY",
    "BidLow",
    "BuyShares",
    "GoMilitary",
    "Lookahead",
    "RandomStrategy",
    "RunFirm",
    "Strategy",
    "UnknownStrategy",
    "builtin",
    "describe",
    "get",
    "make",
    "register",
]
