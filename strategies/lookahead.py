"""``lookahead``: a family that searches. Before the auction and before every round the engine plays the game on
in copies for it, once per strategy of its portfolio, and it plays the one that won most often (``sim.lookahead``).

What it knows: the rules, the public position, and the strategies of the other families (its copies seat them as
the real game does). What it does not: the dice still to come, the order of the event tiles, of the law deck and of
the position cards not drawn yet (each copy draws them afresh, ``sim.forward``), and the other families' private
randomness. Each candidate plays the auction or the round, then ``base`` to the end of the game, in ``rollouts``
copies; every candidate sees the same copies (common random numbers). The frames' ``seat_rounds.plan`` says what it
played each round.
"""

from __future__ import annotations

from typing import ClassVar

from sim.lookahead import Search

from .base import Param, Strategy, StrategyParameterError
from .registry import REGISTRY, UnknownStrategy, make, parse, register

BUILT_IN = "balanced bid_low buy_shares run_firm go_military"


@register("lookahead")
class Lookahead(Strategy):
    """Searches: before the auction and every round, plays on copies of the game with each strategy of its portfolio
    and plays the one that wins most often."""

    PARAMS: ClassVar[dict[str, Param]] = {
        "base": Param(
            "balanced", "the strategy it plays after the round a candidate plays (a name, or name:key=value,...)"
        ),
        "portfolio": Param(
            BUILT_IN, "the candidates it tries for each round, separated by spaces or '+' (each a name or name:k=v)"
        ),
        "rollouts": Param(8, "copies of the game played per candidate at each decision point", low=1, high=4096),
        "setup": Param(True, "choose the auction's bids by search too (false: bid as base)"),
    }
    CALIBRATE: ClassVar[tuple] = ()  # it wants what its base and candidates want (calibration.playing)

    def __init__(self, **params):
        super().__init__(**params)
        base = self._made("base", self.base)
        entries = self.portfolio.replace("+", " ").split()
        if not entries:
            raise StrategyParameterError(f"strategy {self.name!r} parameter 'portfolio': names no strategy")
        candidates = tuple(self._made("portfolio", entry) for entry in entries)
        self.lookahead = Search(base, candidates, self.rollouts, self.setup)

    def _made(self, key: str, spec: str):
        """The strategy ``spec`` names for parameter ``key``; a searching one (no search inside a search) or an
        unknown name is refused in one line."""
        name = parse(spec)[0]
        if name not in REGISTRY:
            known = ", ".join(sorted(n for n in REGISTRY if n != self.name))
            raise StrategyParameterError(
                f"strategy {self.name!r} parameter {key!r}: unknown strategy {name!r} (known: {known})"
            )
        try:
            made = make(spec)
        except (StrategyParameterError, UnknownStrategy) as err:
            raise StrategyParameterError(f"strategy {self.name!r} parameter {key!r}: {err}") from None
        if getattr(made, "lookahead", None) is not None:
            raise StrategyParameterError(
                f"strategy {self.name!r} parameter {key!r}: {name!r} searches itself (no search inside a search)"
            )
        return made
