"""Compiled kernels (numba) for the engine's loops that numpy cannot vectorise well, beside their numpy reference.

Each kernel is a plain Python function over arrays, compiled on first use with ``numba.njit(cache=True)`` (the
machine code is cached beside the source, so later processes only load it) and called where the numpy version
would run. The numpy version stays the readable statement of the rule and the oracle: the tests play the same
games both ways and compare the frames byte for byte. ``ENABLED`` picks the path at call time; the environment
variable ``EASTINDIA_KERNELS=0`` turns the kernels off (the numpy reference only), as does a missing numba.

A process pays about 0.8 CPU-second once, when its first kernel loads (importing numba and its machine code from
the cache; compiling when nothing is cached costs about a second more). That is won back over many games, not over
a few: the kernels run in batches of at least ``MIN_GAMES`` games, the numpy reference in smaller ones (a game is
the same either way), so a short run, a batch of 1 or a test never loads numba.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable

ENABLED = os.environ.get("EASTINDIA_KERNELS", "1") != "0" and importlib.util.find_spec("numba") is not None
MIN_GAMES = 1024


def use(n_games: int) -> bool:
    """Whether a batch of ``n_games`` games runs the kernels."""
    return ENABLED and n_games >= MIN_GAMES


def kernel(fn: Callable) -> Callable:
    """``fn`` compiled by numba on its first call (imported then, so a process that never calls a kernel never
    imports numba)."""
    compiled = None

    def run(*args):
        nonlocal compiled
        if compiled is None:
            import numba

            compiled = numba.njit(cache=True, nogil=True)(fn)
        return compiled(*args)

    run.__wrapped__ = fn
    run.__doc__ = fn.__doc__
    return run
