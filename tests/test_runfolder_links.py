"""What a command writes in a run folder never goes through a link: ``eastindia report``, ``export`` and ``replay``
refuse a symbolic link at a file they write or at a folder between the run folder and it (charts/, csv/,
replays/), and a file with other hard links; so does the run's ``.lock``. A refusal is one line, exit 2, and
nothing is written (``experiments.runfolder``: ``make_dir``, ``open_write``, ``check_targets``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from experiments import cli
from experiments import runfolder as rf

TINY = 'name = "t"\ngames = 4\nshard_size = 4\nseed = 2\nstrategies = ["balanced", "random"]\ncalibrate = false\n'


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    """A finished run of 4 games, no report (copied by each test that changes it)."""
    root = tmp_path_factory.mktemp("links")
    (root / "exp.toml").write_text(TINY)
    out = root / "run"
    assert cli.main(["run", str(root / "exp.toml"), "--out", str(out), "--quiet", "--jobs", "1", "--no-report"]) == 0
    return out


@pytest.fixture
def run_dir(tiny_run, tmp_path) -> Path:
    return Path(shutil.copytree(tiny_run, tmp_path / "run", symlinks=True))


def eastindia(capsys, *args) -> tuple[int, str]:
    """Exit code and the one stderr line of an in-process ``eastindia`` command."""
    code = cli.main([str(a) for a in args])
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in lines[0], lines
    return code, lines[0]


def entries(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_a_linked_report_html_is_refused_and_the_file_it_names_is_unchanged(capsys, run_dir, tmp_path, link):
    victim = tmp_path / "precious.html"
    victim.write_text("keep me")
    before = entries(run_dir)
    if link == "symbolic":
        (run_dir / "report.html").symlink_to(victim)
        why = "is a symbolic link; refusing to follow it"
    else:
        os.link(victim, run_dir / "report.html")
        why = "is a hard link (one of 2 names of the same file); refusing to write through it"
    code, line = eastindia(capsys, "report", run_dir)
    assert code == 2
    assert line == f"eastindia: error: {run_dir}: report.html {why}"
    assert victim.read_text() == "keep me"
    assert entries(run_dir) == before | {"report.html"}  # no charts/, summary.md or comparisons.parquet either


@pytest.mark.parametrize(
    ("folder", "command"),
    [
        (rf.CSV_DIR, ["export", "{run}", "--format", "csv"]),
        (rf.REPLAYS, ["replay", "{run}", "--game", "1"]),
        ("charts", ["report", "{run}"]),
    ],
)
def test_a_symlinked_folder_of_the_run_is_refused_and_nothing_is_written_where_it_points(
    capsys, run_dir, tmp_path, folder, command
):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "mine.txt").write_text("mine")
    (run_dir / folder).symlink_to(elsewhere, target_is_directory=True)
    before = entries(run_dir)
    code, line = eastindia(capsys, *[str(run_dir) if a == "{run}" else a for a in command])
    assert code == 2
    assert line == f"eastindia: error: {run_dir}: {folder} is a symbolic link; refusing to follow it"
    assert entries(elsewhere) == {"mine.txt"} and (elsewhere / "mine.txt").read_text() == "mine"
    assert entries(run_dir) == before


def test_a_hard_linked_lock_is_refused_and_the_file_it_shares_is_unchanged(capsys, tmp_path):
    (tmp_path / "exp.toml").write_text(TINY)
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    out = tmp_path / "out"
    out.mkdir()
    os.link(victim, out / rf.LOCK)
    with pytest.raises(rf.LinkRefused, match="hard link"):
        rf.RunLock(out).acquire()
    assert victim.read_text() == "keep me"
    code, line = eastindia(capsys, "run", tmp_path / "exp.toml", "--out", out, "--quiet", "--jobs", "1", "--no-report")
    assert code == 2
    assert line == (
        f"eastindia: error: {out}: .lock is a hard link (one of 2 names of the same file); refusing to write through it"
    )
    assert victim.read_text() == "keep me" and entries(out) == {rf.LOCK}


def test_a_folder_is_made_and_a_file_written_only_below_folders_that_are_not_links(tmp_path):
    run_dir, elsewhere = tmp_path / "run", tmp_path / "elsewhere"
    run_dir.mkdir()
    elsewhere.mkdir()
    (run_dir / "replays").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(rf.LinkRefused, match="replays is a symbolic link"):  # a link above the folder made
        rf.make_dir(run_dir, "replays/sub")
    with pytest.raises(rf.LinkRefused, match="replays is a symbolic link"):
        rf.write_file(run_dir, "replays/sub/x.txt", "data")
    assert list(elsewhere.iterdir()) == []
    assert rf.write_file(run_dir, "charts/a/x.txt", "data") == run_dir / "charts/a/x.txt"
    assert (run_dir / "charts/a/x.txt").read_text() == "data" and entries(run_dir / "charts/a") == {"x.txt"}
