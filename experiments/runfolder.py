"""The run folder: what ``eastindia run`` writes and ``eastindia report`` reads.

::

    RUN_DIR/
      experiment.toml      the fully resolved experiment (every default spelled out)
      run.json             metadata (see ``RunMeta``): arms and their parameters, seed, versions, timings, status
      games.parquet        the engine's frames, all arms, one schema; extra columns:
      seats.parquet          arm (str), arm_index (int), rotation (int: which seat rotation the game used),
      rounds.parquet         and one column per swept/listed parameter, named by its dotted rules key
      seat_rounds.parquet    (e.g. "capital.formula"); rows sorted by arm_index, game (, round) (, seat)
      shards/              finished shards (one folder each: the four frames, then manifest.json with each file's
                           rows, size and SHA-256, written last) until the merge; kept for --resume
      .lock                held (an OS file lock) by the one run writing the folder; holds its pid
      charts/*.png, report.html, summary.md, comparisons.parquet   written by reports/
      csv/*.csv            written by ``eastindia export RUN_DIR --format csv`` (``export_csv``)
      replays/             written by ``eastindia replay`` (``replay_stem``)

None of the entries a run manages may be a symbolic link: a run refuses the folder (``refuse_links``) rather than
follow one. Whatever a command writes in the folder goes through ``make_dir`` and ``open_write``: never through a
symbolic link (at the file or at any folder between the run folder and it) nor into a file with other hard links.

``run.json`` keys: name, command, seed, players, games_per_arm, shard_size, status ("running" | "failed" |
"interrupted" | "complete"), error (why it stopped), frames{frame: {rows, bytes, sha256}} (when complete), started,
finished, wall_time_s, games_per_s, play_peak_mib (the largest peak resident memory in MiB of a process that played
this session's shards, a worker or the run's own process on one job; null when it played none, or where the system
does not count it), versions{python, eastindia, numpy, polars, pyarrow, joblib}, experiment_digest, param_keys[list of
dotted keys], reference (the arm the report compares the others with), target_ci (0: off), precision{target,
reached, widest, games_per_arm, max_games_per_arm, stopped} (runs with a target), arms[list of {arm, index,
params{key: value}, overrides{dotted key: value} (every rules override of the arm, base + params; applied to
Rules.default(players) or to rules_file), rules_file (str | null: the arm's or the experiment's), rules_digest,
strategies[list of labels], strategy_params{label: {name, params{key: value}}}, rotate (true | false | "all"),
rotations (int: seatings)}].
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import socket
import stat
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePath
from typing import Any, BinaryIO

import polars as pl

FRAMES = ("games", "seats", "rounds", "seat_rounds")
SORT_KEYS = {
    "games": ["arm_index", "game"],
    "seats": ["arm_index", "game", "seat"],
    "rounds": ["arm_index", "game", "round"],
    "seat_rounds": ["arm_index", "game", "round", "seat"],
}
META = "run.json"
EXPERIMENT = "experiment.toml"
SHARDS = "shards"


def frame_path(run_dir: Path, frame: str) -> Path:
    return Path(run_dir) / f"{frame}.parquet"


def read_meta(run_dir: Path) -> dict[str, Any]:
    return json.loads((Path(run_dir) / META).read_text(encoding="utf-8"))


def temp_name(path: Path) -> Path:
    """A temporary sibling of ``path`` no other writer uses (host, pid and a random part)."""
    return path.with_name(f".{path.name}.tmp-{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}")


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``path`` through a unique temporary file renamed into place, flushed to disk first; never through a
    link at ``path`` (``open_write``: its folder is followed)."""
    path = Path(path)
    write_file(path.parent, path.name, data)


def pick_arm(names: list[str], wanted: str | int) -> str | None:
    """The arm ``wanted`` names among ``names`` (in index order): its name, else its index (``2`` or ``"2"``)."""
    if wanted in names:
        return str(wanted)
    text = str(wanted).strip()
    return names[int(text)] if text.isascii() and text.isdigit() and int(text) < len(names) else None


def arm_choices(names: list[str]) -> str:
    """The arms ``pick_arm`` takes, each by index and name: ``0: 'rich', 1: 'plain'`` (names hold commas)."""
    return ", ".join(f"{i}: {n!r}" for i, n in enumerate(names))


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    write_atomic(path, (json.dumps(data, indent=2, default=str) + "\n").encode())  # keeps the params' order


# ---------------------------------------------------------------------------------------- checksums
MANIFEST = "manifest.json"


def file_record(data: bytes, rows: int) -> dict[str, Any]:
    return {"rows": rows, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def check_record(name: str, data: bytes, record: dict[str, Any] | None) -> str | None:
    """Why ``data`` does not match its recorded size and checksum (None: it does)."""
    if not isinstance(record, dict):
        return f"{name} is not in the manifest"
    if len(data) != record.get("bytes"):
        return f"{name} has {len(data)} bytes, {record.get('bytes')} were written"
    if hashlib.sha256(data).hexdigest() != record.get("sha256"):
        return f"{name} does not match its checksum"
    return None


def file_sha256(path: Path) -> tuple[int, str]:
    """Size and SHA-256 of a file, read in blocks."""
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as fh:
        while block := fh.read(1 << 22):
            digest.update(block)
            size += len(block)
    return size, digest.hexdigest()


def written_sha256(fh: BinaryIO) -> tuple[int, str]:
    """Size and SHA-256 of what was written so far to ``fh`` (a file of ``open_write``), read back from its start."""
    fh.flush()
    fh.seek(0)
    digest, size = hashlib.sha256(), 0
    while block := fh.read(1 << 22):
        digest.update(block)
        size += len(block)
    return size, digest.hexdigest()


def verify_frames(run_dir: Path, meta: dict[str, Any]) -> str | None:
    """Why a finished run's merged frames cannot be trusted (None: they match run.json's checksums)."""
    records = meta.get("frames") or {}
    if not isinstance(records, dict) or not all(isinstance(r, dict) for r in records.values()):
        return f"the checksums in {META} are unreadable"
    for frame, record in records.items():
        path = frame_path(run_dir, frame)
        if not path.is_file():
            return f"{path.name} is missing"
        size, digest = file_sha256(path)
        if size != record.get("bytes") or digest != record.get("sha256"):
            return f"{path.name} does not match its checksum"
    if "frames" not in meta and not all(frame_path(run_dir, f).is_file() for f in FRAMES):
        return "its frames are missing"
    return None


# ------------------------------------------------------------------------------------------- the lock
LOCK = ".lock"
# what a run writes, reads or deletes in its folder: coverage.parquet (coverage.py), calibration/ (calibration.py)
MANAGED = (LOCK, META, EXPERIMENT, SHARDS, "calibration", *(f"{frame}.parquet" for frame in (*FRAMES, "coverage")))


class LinkRefused(Exception):
    """An entry of the run folder that the run writes, reads or deletes is a symbolic link, or a file it writes has
    other hard links (``hard_links``: how many names the file has)."""

    def __init__(self, run_dir: Path, name: str | PurePath, hard_links: int = 0):
        if hard_links > 1:
            what = f"is a hard link (one of {hard_links} names of the same file); refusing to write through it"
        else:
            what = "is a symbolic link; refusing to follow it"
        super().__init__(f"{run_dir}: {PurePath(name).as_posix()} {what}")


def _parts(rel: str | PurePath) -> tuple[str, ...]:
    """The components of a path inside a run folder (relative, no ``..``)."""
    parts = PurePath(rel).parts
    if not parts or PurePath(rel).is_absolute() or ".." in parts:
        raise ValueError(f"{rel}: not a path inside the run folder")
    return parts


def _refuse_entry(dir_fd: int, name: str, run_dir: Path, rel: PurePath) -> os.stat_result | None:
    """The entry ``name`` of the open folder (None: there is none); ``LinkRefused`` if it is a symbolic link or a
    file with other hard links."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise LinkRefused(run_dir, rel)
    if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        raise LinkRefused(run_dir, rel, st.st_nlink)
    return st


def _open_dir(run_dir: Path, parts: tuple[str, ...], create: bool) -> int:
    """A descriptor of the folder ``run_dir/parts…``, each step below ``run_dir`` opened without following a
    symbolic link (``LinkRefused``) and, ``create``, made when missing. ``run_dir`` itself is followed."""
    fd = os.open(run_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    rel = PurePath()
    try:
        for part in parts:
            rel /= part
            if create:
                with suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
            _refuse_entry(fd, part, run_dir, rel)
            sub = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = sub
    except OSError as exc:
        os.close(fd)
        if exc.errno == errno.ELOOP:  # a link put there between the check and the open
            raise LinkRefused(run_dir, rel) from None
        raise
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_dir(run_dir: Path, rel: str | PurePath) -> Path:
    """Make the folder ``run_dir/rel`` (and the missing folders above it, up to ``run_dir``) unless it exists;
    ``LinkRefused`` if it or a folder between ``run_dir`` and it is a symbolic link. Returns its path."""
    os.close(_open_dir(Path(run_dir), _parts(rel), create=True))
    return Path(run_dir, rel)


def check_targets(run_dir: Path, names: Iterable[str | PurePath]) -> None:
    """``LinkRefused`` if a command would write any of ``names`` (paths inside ``run_dir``) through a link: a
    symbolic link at it or at a folder between ``run_dir`` and it, or a file with other hard links; a name that is
    a folder has each of its entries checked too. Called before the first write, so a refusal writes nothing."""
    run_dir = Path(run_dir)
    for name in names:
        parts = _parts(name)
        for i in range(len(parts)):
            rel = PurePath(*parts[: i + 1])
            try:
                st = os.lstat(run_dir / rel)
            except FileNotFoundError:
                break
            if stat.S_ISLNK(st.st_mode):
                raise LinkRefused(run_dir, rel)
            if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                raise LinkRefused(run_dir, rel, st.st_nlink)
        else:
            if (run_dir / PurePath(*parts)).is_dir():
                fd = _open_dir(run_dir, parts, create=False)
                try:
                    for entry in os.listdir(fd):
                        _refuse_entry(fd, entry, run_dir, PurePath(*parts, entry))
                finally:
                    os.close(fd)


@contextmanager
def open_write(run_dir: Path, rel: str | PurePath) -> Iterator[BinaryIO]:
    """A binary file to write ``run_dir/rel`` whole or not at all: a unique temporary file in the same folder
    (created exclusively, never through a link), flushed to disk and renamed into place when the block ends
    without an error. The folders between ``run_dir`` and the file are made as ``make_dir`` makes them;
    ``LinkRefused`` (before anything is written) if the file is a symbolic link or has other hard links. The file
    can be read back too (``written_sha256``)."""
    run_dir, parts = Path(run_dir), _parts(rel)
    name, rel = parts[-1], PurePath(*parts)
    dir_fd = _open_dir(run_dir, parts[:-1], create=True)
    try:
        _refuse_entry(dir_fd, name, run_dir, rel)
        tmp = temp_name(Path(name)).name
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "w+b") as fh:
                yield fh
                fh.flush()
                os.fsync(fh.fileno())
            _refuse_entry(dir_fd, name, run_dir, rel)
            os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)  # replaces the entry, never follows it
        finally:
            with suppress(FileNotFoundError):
                os.unlink(tmp, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)


def write_file(run_dir: Path, rel: str | PurePath, data: bytes | str) -> Path:
    """Write ``data`` (text as UTF-8) to ``run_dir/rel`` through ``open_write``; returns its path."""
    with open_write(run_dir, rel) as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(run_dir, rel)


def refuse_links(run_dir: Path, deep: bool = True) -> None:
    """Raise ``LinkRefused`` if any managed entry of ``run_dir`` (and, ``deep``, every shard under ``shards/`` and
    every file in one) is a symbolic link: a run never writes, reads or deletes through one."""
    run_dir = Path(run_dir)
    for name in MANAGED:
        if (run_dir / name).is_symlink():
            raise LinkRefused(run_dir, name)
    if not deep or not (run_dir / SHARDS).is_dir():
        return
    with os.scandir(run_dir / SHARDS) as shards:
        for shard in shards:
            if shard.is_symlink():
                raise LinkRefused(run_dir, f"{SHARDS}/{shard.name}")
            if shard.is_dir(follow_symlinks=False):
                with os.scandir(shard.path) as files:
                    for entry in files:
                        if entry.is_symlink():
                            raise LinkRefused(run_dir, f"{SHARDS}/{shard.name}/{entry.name}")


class FolderBusy(Exception):
    """Another live process holds the run folder's lock."""

    def __init__(self, run_dir: Path, holder: str):
        super().__init__(f"{run_dir}: in use by another run ({holder})")
        self.holder = holder


class RunLock:
    """An exclusive OS lock (``flock``) on ``RUN_DIR/.lock``, held by the one process writing the folder.

    The kernel releases it when the holder exits, however it dies, so a crashed run never leaves the folder
    locked. The holder writes its pid, host and start time into the file for the message other runs print; the
    file is removed on release (a run that finds the file it locked unlinked or replaced retries). A ``.lock`` that
    is a symbolic link is never followed, nor one with other hard links written (``LinkRefused``). Not ``filelock``:
    its lock opens the file with ``O_TRUNC`` and follows a symbolic link (truncating whatever it points to), and
    records no holder to name."""

    def __init__(self, run_dir: Path):
        self.path = Path(run_dir) / LOCK
        self.fd: int | None = None

    def acquire(self) -> RunLock:
        import fcntl  # POSIX (Linux, macOS): the run folder lock

        for _ in range(50):
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise LinkRefused(self.path.parent, LOCK) from None
                raise
            links = os.fstat(fd).st_nlink
            if links > 1:  # another name of some file: truncating the lock would truncate that file
                os.close(fd)
                raise LinkRefused(self.path.parent, LOCK, links)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                os.close(fd)
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise
                raise FolderBusy(self.path.parent, self._holder()) from None
            try:
                same = os.fstat(fd).st_ino == os.lstat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if not same:  # the previous holder removed the file between our open and our lock: take the new one
                os.close(fd)
                continue
            stamp = datetime.now(UTC).isoformat(timespec="seconds")
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()} since {stamp}\n".encode(), 0)
            self.fd = fd
            return self
        raise FolderBusy(self.path.parent, "the lock file keeps changing")

    def _holder(self) -> str:
        """What the holder wrote (it may not have written yet: wait a little)."""
        for _ in range(40):
            try:
                fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW)
                try:
                    text = os.read(fd, 4096).decode("utf-8", errors="replace").strip()
                finally:
                    os.close(fd)
            except OSError:
                text = ""
            if text:
                return text
            time.sleep(0.05)
        return "pid unknown"

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            if os.lstat(self.path).st_ino == os.fstat(self.fd).st_ino:
                self.path.unlink()
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()


def aside_path(run_dir: Path) -> Path:
    """A free sibling name for an old run folder moved aside: ``NAME.old-YYYYmmdd-HHMMSS[-k]``."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    path = run_dir.with_name(f"{run_dir.name}.old-{stamp}")
    k = 1
    while path.exists():
        k += 1
        path = run_dir.with_name(f"{run_dir.name}.old-{stamp}-{k}")
    return path


@dataclass
class Run:
    """A finished run folder: metadata and lazy frames."""

    path: Path
    meta: dict[str, Any]

    @classmethod
    def open(cls, run_dir: str | Path) -> Run:
        run_dir = Path(run_dir)
        if not (run_dir / META).exists():
            raise FileNotFoundError(f"{run_dir}: not a run folder (no {META})")
        return cls(run_dir, read_meta(run_dir))

    def scan(self, frame: str) -> pl.LazyFrame:
        return pl.scan_parquet(frame_path(self.path, frame))

    def frame(self, frame: str, columns: list[str] | None = None) -> pl.DataFrame:
        lf = self.scan(frame)
        return (lf.select(columns) if columns else lf).collect()

    @property
    def arms(self) -> list[dict[str, Any]]:
        return self.meta["arms"]

    @property
    def param_keys(self) -> list[str]:
        return self.meta.get("param_keys", [])


# ------------------------------------------------------------------------------------------------ export
CSV_DIR = "csv"


def _csv_column(name: str, dtype: pl.DataType) -> pl.Expr:
    """A column CSV can hold: a struct as a JSON object, a list as a JSON array (of numbers or objects)."""
    if isinstance(dtype, pl.Struct):
        return pl.col(name).struct.json_encode()
    if isinstance(dtype, pl.List | pl.Array):
        inner = dtype.inner
        element = pl.element().struct.json_encode() if isinstance(inner, pl.Struct) else pl.element().cast(pl.String)
        return pl.concat_str(pl.lit("["), pl.col(name).list.eval(element).list.join(","), pl.lit("]")).alias(name)
    return pl.col(name)


def export_csv(run_dir: Path, out_dir: Path) -> list[Path]:
    """Write each merged frame of a finished run (games, seats, rounds, seat_rounds, and any other frame run.json
    records) as ``out_dir/<frame>.csv``, streamed; nested columns become JSON text. Returns the files written."""
    meta = read_meta(run_dir)
    # inside the run folder (the default RUN_DIR/csv): no link between the run folder and a file is followed; an
    # --out elsewhere is the user's folder, followed, and only its files are never written through a link
    inside, absolute = Path(os.path.abspath(run_dir)), Path(os.path.abspath(out_dir))
    base, folder = (Path(run_dir), absolute.relative_to(inside)) if absolute.is_relative_to(inside) else (absolute, "")
    names = [Path(folder, f"{frame}.csv") for frame in meta.get("frames") or FRAMES]
    check_targets(base, names)  # before --out is made: a refusal leaves no new folder behind
    if not folder:
        base.mkdir(parents=True, exist_ok=True)  # the user's folder; one inside the run folder is made by open_write
    written = []
    for name in names:
        lf = pl.scan_parquet(frame_path(run_dir, name.stem))
        lf = lf.select([_csv_column(n, t) for n, t in lf.collect_schema().items()])
        with open_write(base, name) as fh:
            lf.sink_csv(fh)
        written.append(Path(out_dir, name.name))
    return written


# ------------------------------------------------------------------------------------------------ replays
REPLAYS = "replays"


def replay_stem(game: int, arm: str | None = None) -> str:
    """``RUN_DIR/replays/<stem>.jsonl`` and ``.html`` of a replayed game: ``game-<N>``, ``-<arm>`` when an arm is
    named (characters a file name cannot hold become ``_``)."""
    safe = None if arm is None else "".join(c if c.isalnum() or c in "._=-" else "_" for c in arm)
    return f"game-{game}" + ("" if safe is None else f"-{safe}")
