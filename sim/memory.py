"""The C allocator kept from handing freed memory back to the system between a batch's array operations.

A batch of 4,096 games works on arrays of a few MiB that live for one operation. glibc serves blocks that large
with ``mmap`` and returns them with ``munmap`` when freed, so every temporary costs fresh pages that the kernel
must fault in and zero: about 70,000 page faults per batch of 4,096 (``balanced``), 3-5 % of its CPU time in the
kernel, and more in the cache misses of new pages. ``keep_freed_memory`` raises glibc's mmap and trim thresholds
(``mallopt``) so that freed blocks stay in the process's heap and are reused by the next operation. The games are
unchanged; what the process keeps resident is about its peak (the freed blocks are kept, not returned).

The engine calls it once per process, when it plays its first batch. ``EASTINDIA_KEEP_MEMORY=0`` leaves the
allocator as it is; on a system without glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import os

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's <malloc.h>
MMAP_THRESHOLD = 1 << 30  # blocks up to 1 GiB come from the heap
TRIM_THRESHOLD = (1 << 31) - 1  # free heap top kept up to 2 GiB

_done = False


def keep_freed_memory() -> bool:
    """Ask glibc to keep freed blocks for reuse (once per process). True when the allocator took the settings."""
    global _done
    if _done:
        return True
    _done = True
    if os.environ.get("EASTINDIA_KEEP_MEMORY", "1") == "0":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) & bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
