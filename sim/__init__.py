"""Corruption & East India: a vectorised simulator of many games in lockstep.

``sim.play(rules, strategies, n_games, seed)`` plays games and returns ``Results`` with Polars frames;
``sim.Rules.default(players=5)`` is the embedded rule set.
"""

from .agents import IllegalDecision, Observation
from .engine import PlayError, play, play_batch
from .results import Results
from .rules import Rules, RulesError

__all__ = [
    "IllegalDecision",
    "Observation",
    "PlayError",
    "Results",
    "Rules",
    "RulesError",
    "play",
    "play_batch",
]
