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


# ------------------------------------------------------------------ a run's own files: merged frames, coverage
def unfinished(run_dir: Path) -> bytes:
    """Mark the copied run failed (no shard kept: it starts again in place) and return its run.json's bytes."""
    meta = rf.read_meta(run_dir)
    rf.write_json_atomic(run_dir / rf.META, {**meta, "status": "failed", "error": "test"})
    return (run_dir / rf.META).read_bytes()


@pytest.mark.parametrize("name", ["games.parquet", "seat_rounds.parquet", "coverage.parquet", rf.EXPERIMENT])
def test_a_run_whose_frame_is_a_hard_link_is_refused_before_it_writes_anything(capsys, run_dir, tmp_path, name):
    (tmp_path / "exp.toml").write_text(TINY)
    meta = unfinished(run_dir)
    victim = tmp_path / "precious.bin"
    victim.write_text("keep me")
    (run_dir / name).unlink()
    os.link(victim, run_dir / name)
    before = entries(run_dir)
    code, line = eastindia(capsys, "run", tmp_path / "exp.toml", "--out", run_dir, "--quiet", "--jobs", "1")
    assert code == 2
    why = "is a hard link (one of 2 names of the same file); refusing to write through it"
    assert line == f"eastindia: error: {run_dir}: {name} {why}"
    assert victim.read_text() == "keep me" and os.stat(victim).st_nlink == 2
    assert entries(run_dir) == before  # no shards/ played, no run.json rewritten
    assert (run_dir / rf.META).read_bytes() == meta


@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_a_frame_linked_while_the_games_are_played_is_refused_at_the_merge_and_the_shards_are_kept(
    capsys, monkeypatch, run_dir, tmp_path, link
):
    from experiments import runner

    (tmp_path / "exp.toml").write_text(TINY)
    unfinished(run_dir)
    victim = tmp_path / "precious.bin"
    victim.write_text("keep me")
    merge = runner.merge

    def link_then_merge(folder, shards):  # someone puts a link at rounds.parquet after the run's first check
        (folder / "rounds.parquet").unlink()
        if link == "symbolic":
            (folder / "rounds.parquet").symlink_to(victim)
        else:
            os.link(victim, folder / "rounds.parquet")
        return merge(folder, shards)

    monkeypatch.setattr(runner, "merge", link_then_merge)
    code, line = eastindia(capsys, "run", tmp_path / "exp.toml", "--out", run_dir, "--quiet", "--jobs", "1")
    assert code == 2
    assert line.startswith(f"eastindia: error: {run_dir}: rounds.parquet is a ")
    assert victim.read_text() == "keep me"
    assert len(list((run_dir / rf.SHARDS).iterdir())) == 1  # the played shard is kept for --resume
    assert not list(run_dir.glob(".*tmp*"))
    assert rf.read_meta(run_dir)["status"] == "failed"


def test_merge_writes_no_frame_through_a_link_even_past_the_runs_check(monkeypatch, run_dir, tmp_path):
    from experiments import runner

    victim = tmp_path / "precious.bin"
    victim.write_text("keep me")
    monkeypatch.setattr(runner, "check_writes", lambda run_dir: None)  # the link comes after the check
    import polars as pl

    shard = runner.Shard(0, 0, 4)  # the run's 4 games written back as its one shard
    frames = {f: pl.read_parquet(rf.frame_path(run_dir, f)) for f in rf.FRAMES}
    runner.write_shard(rf.make_dir(run_dir, rf.SHARDS), shard, frames, "key")
    (run_dir / "seats.parquet").unlink()
    (run_dir / "seats.parquet").symlink_to(victim)
    with pytest.raises(runner.RunError, match="seats.parquet is a symbolic link; refusing to follow it"):
        runner.merge(run_dir, [shard])
    assert victim.read_text() == "keep me" and (run_dir / "seats.parquet").is_symlink()


def test_a_study_table_that_is_a_hard_link_is_refused_before_any_count_is_played(tmp_path):
    from types import SimpleNamespace

    from experiments import search

    victim = tmp_path / "precious.bin"
    victim.write_text("keep me")
    study = tmp_path / "study"
    study.mkdir()
    os.link(victim, study / "trials.parquet")
    played = []
    specs = [SimpleNamespace(exp=SimpleNamespace(players=4))]
    with pytest.raises(rf.LinkRefused, match="trials.parquet is a hard link"):
        search.run_counts(lambda *a, **kw: played.append(a), specs, study, "trials.parquet", {})
    assert played == [] and victim.read_text() == "keep me" and entries(study) == {"trials.parquet"}


# ------------------------------------------------------------------ calibration/ and a respond study's folders
@pytest.mark.parametrize("link", ["folder", "record"])
def test_a_linked_calibration_cache_is_refused_before_its_pilot_is_played(tmp_path, link):
    from experiments import calibration

    run_dir, elsewhere = tmp_path / "study", tmp_path / "elsewhere"
    run_dir.mkdir()
    elsewhere.mkdir()
    cache = run_dir / calibration.DIR
    if link == "folder":  # a study's shared cache is not among a run's entries: its folder is checked here
        cache.symlink_to(elsewhere, target_is_directory=True)
        why = "calibration is a symbolic link; refusing to follow it"
    else:
        cache.mkdir()
        (elsewhere / "k.json").write_text("keep me")
        os.link(elsewhere / "k.json", cache / "k.json")
        why = "calibration/k.json is a hard link (one of 2 names of the same file); refusing to write through it"
    played = []
    with pytest.raises(rf.LinkRefused) as refused:
        calibration.fitted_pilot(None, None, "k", cache, lambda exp, arm: played.append(arm) or {"fitted": {}})
    assert str(refused.value) == f"{run_dir}: {why}"
    assert played == []
    assert {p.name: p.read_text() for p in elsewhere.iterdir()} == ({} if link == "folder" else {"k.json": "keep me"})


def test_a_calibration_cache_is_made_and_its_record_written_inside_the_folder(tmp_path):
    from experiments import calibration

    cache = tmp_path / calibration.DIR
    record = calibration.fitted_pilot(None, None, "k", cache, lambda exp, arm: {"fitted": {"a": 1}})
    assert record == {"key": "k", "fitted": {"a": 1}} and calibration.cached(cache, "k") == record
    assert calibration.fitted_pilot(None, None, "k", cache, lambda exp, arm: pytest.fail("played again")) == record


@pytest.mark.parametrize("folder", ["arms", "converged"])
def test_a_respond_studys_linked_folder_is_refused_and_nothing_is_written_where_it_points(
    monkeypatch, tmp_path, folder
):
    from types import SimpleNamespace

    from experiments import respond

    study, elsewhere = tmp_path / "respond", tmp_path / "elsewhere"
    study.mkdir()
    elsewhere.mkdir()
    (study / folder).symlink_to(elsewhere, target_is_directory=True)
    # just enough of a respond study to reach the folder a responder's tune study (or converged/) is made in
    rs = SimpleNamespace(seed=1, trials=1, batch=1, startup=1, confirm_games=1, confirm_seed=1, rounds=0)
    rs.params_of = lambda label: []
    specs = [None] if folder == "arms" else []  # iterate's strategies (none: it goes straight to converged/)
    it = SimpleNamespace(folder=study, rs=rs, specs=specs, labels=["x"], index=0, players=4, current=lambda v: None)
    monkeypatch.setattr(respond.tune, "TuneSpec", lambda *a: SimpleNamespace(default_values=lambda: None))
    where = study / respond.ARMS / "a-4p"
    with pytest.raises(rf.LinkRefused, match=f"{folder} is a symbolic link; refusing to follow it"):
        if folder == "arms":
            respond.respond_once(it, "x", {}, None, 1, where / "round-01" / "x", None)
        else:
            respond.iterate(it, where, None, print)
    assert list(elsewhere.iterdir()) == []


# ------------------------------------------------------------------ --out: no folder made before a refusal
def test_export_into_a_linked_folder_of_the_run_makes_no_folder_where_the_link_points(capsys, run_dir, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (run_dir / rf.CSV_DIR).symlink_to(elsewhere, target_is_directory=True)
    code, line = eastindia(capsys, "export", run_dir, "--format", "csv", "--out", run_dir / rf.CSV_DIR / "new" / "sub")
    assert code == 2
    assert line == f"eastindia: error: {run_dir}: csv is a symbolic link; refusing to follow it"
    assert list(elsewhere.iterdir()) == []  # no new/sub made through the link


def test_export_makes_a_new_out_folder_outside_the_run_once_nothing_is_refused(capsys, run_dir, tmp_path):
    before = entries(run_dir)
    assert cli.main(["export", str(run_dir), "--format", "csv", "--out", str(tmp_path / "new" / "csv")]) == 0
    assert entries(tmp_path / "new" / "csv") == {f"{frame}.csv" for frame in rf.read_meta(run_dir)["frames"]}
    assert entries(run_dir) == before and "error" not in capsys.readouterr().err


@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_compare_out_that_is_a_link_is_refused_before_anything_is_compared(capsys, tiny_run, tmp_path, link):
    victim = tmp_path / "precious.parquet"
    victim.write_text("keep me")
    out = tmp_path / "comparisons.parquet"
    if link == "symbolic":
        out.symlink_to(victim)
        why = "is a symbolic link; refusing to follow it"
    else:
        os.link(victim, out)
        why = "is a hard link (one of 2 names of the same file); refusing to write through it"
    code = cli.main(["compare", str(tiny_run), str(tiny_run), "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""  # refused before the table is printed
    assert captured.err.strip() == f"eastindia: error: {tmp_path}: comparisons.parquet {why}"
    assert victim.read_text() == "keep me"


# ------------------------------------------------------------------------- the primitives, each at its edge
def test_a_file_with_one_other_hard_link_is_not_written_through(tmp_path):
    """``write_file`` (``open_write``) refuses a file of two names, the least a hard link makes, and leaves the file
    it shares unchanged."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (tmp_path / "mine.txt").write_text("mine")
    os.link(tmp_path / "mine.txt", run_dir / "summary.md")
    with pytest.raises(rf.LinkRefused, match="summary.md is a hard link \\(one of 2 names"):
        rf.write_file(run_dir, "summary.md", "report")
    assert (tmp_path / "mine.txt").read_text() == "mine"


def test_a_folder_named_as_a_target_has_each_of_its_entries_checked(tmp_path):
    """``check_targets`` given a folder (``charts``) refuses a symbolic link among its entries, before anything is
    written; the same folder without it passes."""
    run_dir = tmp_path / "run"
    (run_dir / "charts").mkdir(parents=True)
    (run_dir / "charts" / "a.svg").write_text("chart")
    rf.check_targets(run_dir, ["charts"])
    (run_dir / "charts" / "b.svg").symlink_to(tmp_path / "elsewhere.svg")
    with pytest.raises(rf.LinkRefused, match="charts/b.svg is a symbolic link"):
        rf.check_targets(run_dir, ["charts"])


@pytest.mark.parametrize("rel", ["../escape.txt", "charts/../../escape.txt", "/tmp/escape.txt"])
def test_a_path_that_leaves_the_run_folder_is_refused(tmp_path, rel):
    """A path inside the run folder is relative and never climbs out of it (``..``): nothing is made or written."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    for write in (lambda: rf.write_file(run_dir, rel, "x"), lambda: rf.make_dir(run_dir, rel)):
        with pytest.raises(ValueError, match="not a path inside the run folder"):
            write()
    assert not (tmp_path / "escape.txt").exists() and list(run_dir.iterdir()) == []


def test_refuse_links_looks_into_the_shards_only_when_deep(tmp_path):
    """``refuse_links``: a managed entry that is a symbolic link is refused always; a file linked inside a shard only
    with ``deep`` (the default)."""
    run_dir = tmp_path / "run"
    (run_dir / rf.SHARDS / "arm0-000000").mkdir(parents=True)
    (run_dir / rf.SHARDS / "arm0-000000" / "games.parquet").symlink_to(tmp_path / "elsewhere.parquet")
    rf.refuse_links(run_dir, deep=False)
    with pytest.raises(rf.LinkRefused, match="shards/arm0-000000/games.parquet is a symbolic link"):
        rf.refuse_links(run_dir)
    (run_dir / rf.META).symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(rf.LinkRefused, match="run.json is a symbolic link"):
        rf.refuse_links(run_dir, deep=False)


def test_pick_arm_takes_a_name_or_an_index_in_range():
    """``pick_arm``: an arm's name, else its index (``1`` or ``"1"``); an index past the last arm names none."""
    names = ["a", "b"]
    assert rf.pick_arm(names, "b") == "b" and rf.pick_arm(names, 1) == rf.pick_arm(names, " 1 ") == "b"
    assert rf.pick_arm(names, 2) is None and rf.pick_arm(names, "c") is None
