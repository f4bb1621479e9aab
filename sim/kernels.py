"""Compiled kernels (numba) for the loops numpy cannot vectorise well, the engine's and the built-in strategies'
valuations, beside their numpy reference.

Each kernel is a plain Python function over arrays, compiled on first use with ``numba.njit(cache=True)`` and
called where the numpy version would run. The machine code is cached outside the source tree (an install may be
read-only): in ``$EASTINDIA_CACHE_DIR``, else ``$NUMBA_CACHE_DIR``, else ``$XDG_CACHE_HOME/eastindia/numba``, else
``~/.cache/eastindia/numba`` (``cache_dir``), so later processes only load it. A process that compiles says so once
on stderr; one that cannot write the cache folder says that in one line and compiles in memory (nothing cached), and
left to itself (below) never compiles there: a run says so (``cold_note``) and plays the numpy reference.
The numpy version stays the readable statement of the rule and the oracle: the tests play the same
games both ways and compare the frames byte for byte. ``ENABLED`` picks the path at call time; the environment
variable ``EASTINDIA_KERNELS=0`` turns the kernels off (the numpy reference only), as does a missing numba.

A process pays about half a CPU-second once, when its first kernel loads (importing numba and its machine code
from the cache); compiling the 62 kernels a balanced table uses when nothing is cached, after an install or an edit,
costs about 30 CPU-seconds (25-35 on the build machines, 2026-12-07; most of it numba's own work per kernel, not
LLVM's). A kernel is handed arrays of one layout and dtype wherever it is called, so that it compiles once.
That is won back over many games, not over a few: the kernels first run in a batch of at least ``MIN_GAMES`` games,
or in any batch of a run of that many games in all (``engage``: ``sim.play`` in batches of 1), the numpy reference
otherwise (a game is the same either way), so a short run, one game replayed or a test never loads numba. Once a
process has loaded numba, every call runs the kernels, whatever its number of games (a strategy asked about a few
games of a large batch, the next smaller batch). A game costs less with them at any batch size: at batch 1 about a
third less, where numpy's per-call costs are the whole game.

When compiling pays (``starts``). A game played with the kernels costs about 0.15-0.3 CPU-ms less than with the
numpy reference (batches of 4,096 and 1,024 games), so the 30 CPU-seconds of a compile are repaid over some 100,000
games, and a run of a few thousand never repays them (the README's 2,000 games cost the same either way, warm).
``EASTINDIA_KERNELS`` says what a process does:

- unset or ``auto`` (the default): a large batch runs the kernels when they are cached for this code
  (``warm_marker``). While they are not, the numpy reference plays, and the games it plays in large batches are
  counted in the cache folder (``uncompiled_games``); once they reach ``COMPILE_AFTER``, as many as would have
  repaid a compile, the next process to play a large batch compiles the kernels (and says so). Waiting so costs at
  most about one compile more than knowing in advance how many games a user will play.
- ``1``: a large batch runs the kernels, compiling them now if they are not cached.
- ``0``: never (the numpy reference only).

Any other value is taken as ``auto``, with a one-line note.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
import os
import sys
import tempfile
import types
from collections.abc import Callable
from pathlib import Path

MODE = os.environ.get("EASTINDIA_KERNELS", "auto").strip().lower()  # "0" never, "1" always, else auto (``starts``)
ENABLED = MODE != "0" and importlib.util.find_spec("numba") is not None
MIN_GAMES = 1000  # a study's point of 1,000 games (experiments/library/sensitivity.toml) runs them
COMPILE_AFTER = 100_000  # games played without the kernels that would have repaid compiling them (auto)
ENGINE_PACKAGES = (Path(__file__).resolve().parent, Path(__file__).resolve().parent.parent / "strategies")


_loaded = False  # numba has been imported (a kernel compiled or loaded from the cache) in this process
CACHE_ENV = "EASTINDIA_CACHE_DIR"
PILOTS = "pilots"  # the folder of ``cache_dir()`` keeping the calibration pilots' fits between runs
_cache: Path | None | bool = False  # the writable cache folder once looked at (None: none, compile in memory)
_told_compiling = False
_start: bool | None = None  # whether a large batch runs the kernels in this process (``starts``), once decided
_engaged = False  # a run of at least ``MIN_GAMES`` games runs them at any batch size (``engage``)
_marked = False  # this process has marked the kernels cached (``played``)
_told_cold = False  # this process has said that it plays the numpy reference (``cold_once``)


def cache_dir() -> Path:
    """Where the kernels' machine code is kept (never the source tree), and what else is worth keeping between runs:
    the page's Vega bundle (``reports.interactive.script``) and, under ``PILOTS``, the calibration pilots' fits
    (``experiments.calibration.kept``)."""
    for var in (CACHE_ENV, "NUMBA_CACHE_DIR"):
        if os.environ.get(var):
            return Path(os.environ[var]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "eastindia" / "numba"


def warm_marker(*packages: Path) -> Path:
    """The file saying that the kernels of the source files under ``packages`` (the engine's and the strategies'
    folders) were compiled into ``cache_dir()``: a run that finds none plays its first pilot or shard alone, so that
    its other workers load the machine code instead of each compiling it at the same time. Its name is a hash of what
    numba keys its cache on: each source file's full path, modification time and size (numba keeps a file's
    machine code under its folder's path and compiles again when the file's stamp changes), and numba's version. A
    second checkout of the same code, or a file touched by a checkout, is then cold, as numba sees it."""
    h = hashlib.sha256(_numba_version().encode())
    for root in packages:
        for path in sorted(Path(root).resolve().rglob("*.py")):
            if "__pycache__" not in path.parts:
                stat = path.stat()
                h.update(f"\0{path}\0{stat.st_mtime}\0{stat.st_size}".encode())
    return cache_dir() / f"eastindia-{h.hexdigest()[:16]}.compiled"


def engine_marker() -> Path:
    """``warm_marker`` of the engine's and the strategies' folders (``ENGINE_PACKAGES``), hashed once per process
    and cache folder (about 2 ms a hash; the files' stamps do not change under a running process)."""
    return _engine_marker(str(cache_dir()))


@functools.lru_cache(maxsize=8)
def _engine_marker(where: str) -> Path:
    return warm_marker(*ENGINE_PACKAGES)


def _numba_version() -> str:
    try:
        return importlib.metadata.version("numba")
    except importlib.metadata.PackageNotFoundError:
        return ""


def note(message: str) -> None:
    print(f"eastindia: note: {message}", file=sys.stderr, flush=True)


def _writable_cache() -> Path | None:
    """The cache folder, made and tried once per process; None (with a one-line note) when it cannot be written."""
    global _cache
    if _cache is False:
        where = cache_dir()
        why = _unwritable(where)
        if why is None:
            _cache = where
        else:
            note(f"cannot write the kernel cache {where} ({why}); compiling the kernels in memory, "
                 f"for this process only (set {CACHE_ENV} to a writable folder to keep them)")  # fmt: skip
            _cache = None
    return _cache  # type: ignore[return-value]


def _unwritable(where: Path) -> str | None:
    """Why the folder ``where`` cannot be made or written (None: it can)."""
    try:
        where.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=where):
            pass
    except OSError as exc:
        return str(exc.strerror or exc)
    return None


def _compiling(dispatcher: object) -> None:
    """Say once per process that the kernels are being compiled (none of this kernel's machine code is cached)."""
    global _told_compiling
    try:
        index = dispatcher._cache._cache_file._index_path  # type: ignore[attr-defined]
    except AttributeError:
        return
    if not _told_compiling and not os.path.exists(index):
        _told_compiling = True
        note(f"compiling the kernels (once after an install or an edit: about 30 CPU-seconds); caching them in "
             f"{_cache or Path(index).parent}")  # fmt: skip


def use(n_games: int) -> bool:
    """Whether a call over ``n_games`` games (rows) runs the kernels: any once loaded or ``engage``d, else at least
    ``MIN_GAMES`` when this process runs them (``starts``)."""
    if not ENABLED or n_games <= 0:
        return False
    return _loaded or _engaged or (n_games >= MIN_GAMES and starts())


def engage(run_games: int) -> None:
    """A run of ``run_games`` games in all is about to be played in this process, in batches of any size: from at
    least ``MIN_GAMES`` on, every batch of it runs the kernels when this process runs them (``starts``), a batch of 1
    as one of 4,096."""
    global _engaged
    if run_games >= MIN_GAMES and starts():
        _engaged = True


def starts() -> bool:
    """Whether a large batch runs the kernels in this process (decided at its first, as the module's text says):
    ``EASTINDIA_KERNELS=1``, or they are cached for this code, or compiling them is ``due``."""
    global _start
    if _start is None:
        if MODE not in ("0", "1", "auto"):
            note(f"EASTINDIA_KERNELS={MODE!r} is not 0, 1 or auto: taken as auto")
        _start = ENABLED and (MODE == "1" or engine_marker().exists() or due())
    return _start


def due() -> bool:
    """Whether the kernels are to be compiled when a large batch asks for them: ``EASTINDIA_KERNELS=1``, or (auto)
    the games played without them on this code have reached ``COMPILE_AFTER``."""
    return ENABLED and (MODE == "1" or uncompiled_games() >= COMPILE_AFTER)


def cold() -> bool:
    """Whether this code's kernels are neither cached nor due: a large batch plays the numpy reference (auto)."""
    return ENABLED and not engine_marker().exists() and not due()


def cold_once() -> str | None:
    """``cold_note()`` the first time a process asks while the kernels are ``cold`` (a study's many runs say it
    once); None after, and while they are not."""
    global _told_cold
    if _told_cold or not cold():
        return None
    _told_cold = True
    return cold_note()


def cold_note() -> str:
    """What a run says when it plays the numpy reference because the kernels are ``cold``."""
    where = cache_dir()
    why = _unwritable(where)
    if why is not None:  # nothing is counted, nor kept: waiting would never end
        return (f"note: the kernel cache {where} cannot be written ({why}): runs play the numpy reference (the same "
                f"games, more slowly); set {CACHE_ENV} to a writable folder, or EASTINDIA_KERNELS=1 to compile the "
                f"kernels in each process (about 30 CPU-seconds each)")  # fmt: skip
    left = max(COMPILE_AFTER - uncompiled_games(), 0)
    return (f"note: no compiled kernels are cached for this code: this run plays the numpy reference (the same "
            f"games, more slowly); after {left:,} more games played so they are compiled, once (about 30 "
            f"CPU-seconds), or now with EASTINDIA_KERNELS=1")  # fmt: skip


def _tally() -> Path:
    return engine_marker().with_suffix(".uncompiled")


def uncompiled_games() -> int:
    """The games played in large batches on this code while its kernels were not cached (one line per batch)."""
    try:
        text = _tally().read_text(encoding="ascii", errors="replace")
    except OSError:
        return 0
    return sum(int(line) for line in text.split() if line.isdigit())


def played(n_games: int) -> None:
    """After a batch of ``n_games`` games: once the kernels have run and are in the cache (after a batch of any size:
    ``engage``), mark them cached for this code (``warm_marker``, written once per process); when a large batch
    played the numpy reference because they are not (auto), count its games (a line appended: the processes of a run
    write beside each other)."""
    global _marked
    if not ENABLED:
        return
    large = n_games >= MIN_GAMES
    try:
        if (_loaded or _engaged or (large and _start)) and not _marked and isinstance(_cache, Path):
            _marked = True
            engine_marker().touch()
            _tally().unlink(missing_ok=True)  # counted no more
        elif large and _start is False:
            cache_dir().mkdir(parents=True, exist_ok=True)
            fd = os.open(_tally(), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, f"{n_games}\n".encode())
            finally:
                os.close(fd)
    except OSError:  # no cache folder to write: nothing is kept, and auto never compiles
        pass


class Kernel:
    """A function compiled by numba on its first call (numba is imported then, so a process that never calls a
    kernel never imports numba). A kernel may call the kernels of its own module: inside it, their names are the
    compiled functions (numba's cache is kept per source file, so editing the module recompiles both)."""

    def __init__(self, fn: Callable):
        self.__wrapped__ = fn
        self.__doc__ = fn.__doc__
        self._compiled: Callable | None = None

    def compile(self) -> Callable:
        """The compiled function (compiled, or loaded from numba's cache, on the first call)."""
        global _loaded
        if self._compiled is None:
            import numba

            _loaded = True
            fn = self.__wrapped__
            inner = {
                name: f.compile()
                for name in fn.__code__.co_names
                if isinstance(f := fn.__globals__.get(name), Kernel) and f.__wrapped__.__module__ == fn.__module__
            }
            if inner:
                fn = types.FunctionType(fn.__code__, {**fn.__globals__, **inner}, fn.__name__, fn.__defaults__)
                fn.__module__, fn.__qualname__ = self.__wrapped__.__module__, self.__wrapped__.__qualname__
            where = _writable_cache()
            compiled = None
            if where is not None:
                numba.config.CACHE_DIR = str(where)  # numba's own cache locator, pointed out of the source tree
                try:
                    compiled = numba.njit(cache=True, nogil=True)(fn)
                except RuntimeError as exc:  # numba found no place to cache it after all
                    note(f"cannot cache the kernel {fn.__name__} ({exc}); compiling it in memory")
                else:
                    _compiling(compiled)
            self._compiled = compiled or numba.njit(nogil=True)(fn)
        return self._compiled

    def __call__(self, *args):
        compiled = self._compiled
        return (self.compile() if compiled is None else compiled)(*args)


def kernel(fn: Callable) -> Kernel:
    """``fn`` as a ``Kernel``."""
    return Kernel(fn)
