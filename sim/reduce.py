"""Reductions over a short last axis (a few seats, orders or sources per game), several times faster than numpy's.

numpy's ``a.sum(axis=-1)`` / ``a.any(axis=-1)`` over a [G, K] array with K of a few entries costs about 20 ns a
row here (a reduction loop per row); ``einsum`` and 8-byte words do the same work in a fraction of that
(VECTORISE.md). Both helpers give exactly numpy's result and dtype; small arrays, where numpy's fixed cost is
lower, go to numpy.
"""

from __future__ import annotations

import numpy as np

_SMALL = 2048  # below this many entries numpy's own reduction is as fast


def any_last(mask: np.ndarray) -> np.ndarray:
    """``mask.any(axis=-1)`` of a bool array."""
    k = mask.shape[-1] if mask.ndim else 0
    if mask.ndim < 2 or k == 0 or mask.size < _SMALL or mask.dtype != bool:
        return mask.any(axis=-1)
    if k % 8 == 0 and mask.flags.c_contiguous:  # 8 entries at a time as one uint64 word
        words = mask.view(np.uint64)
        out = words[..., 0].copy()
        for j in range(1, k // 8):
            out |= words[..., j]
        return out != 0
    if k < 256:  # a count of the True entries in uint8 cannot wrap
        return np.einsum("...k->...", mask.view(np.uint8)) > 0
    return mask.any(axis=-1)


def sum_last(a: np.ndarray) -> np.ndarray:
    """``a.sum(axis=-1)`` of a bool or signed integer array (int64, as numpy sums them)."""
    k = a.shape[-1] if a.ndim else 0
    if a.ndim < 2 or k == 0 or a.size < _SMALL or a.dtype.kind not in "bi":
        return a.sum(axis=-1)
    if a.dtype == bool and k < 256:  # counted in uint8, which cannot wrap
        return np.einsum("...k->...", a.view(np.uint8)).astype(np.int64)
    if k <= 8:  # explicit adds over the few entries
        out = a[..., 0].astype(np.int64)
        for j in range(1, k):
            out += a[..., j]
        return out
    return np.einsum("...k->...", a, dtype=np.int64)
