"""Compiled kernels (numba) for the engine's loops that numpy cannot vectorise well, beside their numpy reference.

Each kernel is a plain Python function over arrays, compiled on first use with ``numba.njit(cache=True)`` (the
machine code is cached beside the source, so later processes only load it) and called where the numpy version
would run. The numpy version stays the readable statement of the rule and the oracle: the tests play the same
games both ways and compare the frames byte for byte. ``ENABLED`` picks the path at call time; the environment
variable ``EASTINDIA_KERNELS=0`` turns the kernels off (the numpy reference only), as does a missing numba.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable

ENABLED = os.environ.get("EASTINDIA_KERNELS", "1") != "0" and importlib.util.find_spec("numba") is not None


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
