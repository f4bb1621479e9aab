"""eastindia respond: iterated best responses settle on a known answer (a strategy that wastes its actions learns to
waste few), stop when the gains fall within their intervals or at the round cap (and say which), a round cap raised
continues the same folder, several player counts side by side, the converged table played by `eastindia run` and
taken by [tune] and [metagame] files, the library file, and bad [respond] input (one line, exit 2)."""

import contextlib
import io
import json
import tomllib
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from experiments import cli, metagame, respond, search, spec, tune
from experiments import runfolder as rf
from tests.helpers import command

LIBRARY = Path(spec.__file__).with_name("library")

# balanced, but it passes a share `waste` of its family actions (drawn from its own dice): waste = 0 is its best
WASTER = """import numpy as np

from sim import layout as L
from strategies.base import Param, Strategy


class Waster(Strategy):
    \"\"\"balanced, but passes a share of its family actions.\"\"\"

    name = "waster"
    PARAMS = {**Strategy.PARAMS, "waste": Param(0.5, "share of its family actions it passes", low=0, high=1)}

    def family_action(self, obs, legal):
        action, twice, where = super().family_action(obs, legal)
        waste = (obs.rng.uniform(1)[:, 0] < self.waste) & legal.once[:, L.A_PASS]
        return np.where(waste, L.A_PASS, action), twice & ~waste, where
"""

STUDY = """name = "waste"
players = 4
games = 200
shard_size = 200
seed = 1
calibrate = false
strategies = ["waster.py:Waster:waste=1.0", "balanced"]

[respond]
rounds = 4
trials = 8
batch = 4
startup = 4
confirm_games = 600

[respond.params]
"waster:waste" = { low = 0.0, high = 1.0 }
"""


def write(folder: Path, text: str) -> Path:
    (folder / "waster.py").write_text(WASTER)
    path = folder / "respond.toml"
    path.write_text(text)
    return path


def main(*args) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = cli.main([str(a) for a in args])
    return code, out.getvalue()


@pytest.fixture(scope="module")
def waste(tmp_path_factory):
    """The study capped at 1 round, then the same folder with the file's cap of 4."""
    where = tmp_path_factory.mktemp("respond")
    path = write(where, STUDY)
    out = where / "out"
    code, capped = main("respond", path, "--out", out, "--jobs", "1", "--quiet", "--rounds", "1")
    assert code == 0
    first = {
        "meta": search.read_meta(out),
        "rounds": pl.read_parquet(out / respond.ROUNDS),
        "toml": (out / respond.CONVERGED / "waste-4p.toml").read_text(),
        "printed": capped,
    }
    code, printed = main("respond", path, "--out", out, "--jobs", "1", "--quiet", "--resume")
    assert code == 0
    return {"out": out, "first": first, "meta": search.read_meta(out), "printed": printed, "where": where}


def test_a_cap_of_one_round_stops_there_and_says_so(waste):
    first = waste["first"]
    [result] = first["meta"]["results"]
    assert (result["stopped"], result["rounds"]) == ("round cap", 1)
    assert "waste, 4 players: round cap after 1 round" in first["printed"]
    assert "stopped at the round cap" in first["toml"]
    [row] = first["rounds"].iter_rows(named=True)
    # round 1 gains beyond its interval (waste 1.0 passes every action it may): adopted, so not converged
    assert row["adopted"] and row["gain_lo"] > 0 and row["before"] is not None and row["value"] > row["before"]
    assert row["waster:waste"] == json.loads(row["response"])["waster:waste"] < 1.0


def test_the_iteration_converges_near_no_waste_and_stops_once_gains_are_within_intervals(waste):
    [result] = waste["meta"]["results"]
    assert result["stopped"] == "converged" and 2 <= result["rounds"] < 4
    rounds = pl.read_parquet(waste["out"] / respond.ROUNDS).sort("round")
    assert rounds["round"].to_list() == list(range(1, result["rounds"] + 1))
    # the rounds before the last adopted their response (gain above its interval), the last adopted none
    assert rounds["adopted"].to_list() == [True] * (result["rounds"] - 1) + [False]
    last = rounds.row(-1, named=True)
    assert last["gain_lo"] <= 0
    assert rounds["waster:waste"][-1] <= 0.3  # from 1.0: its best is to waste nothing
    # round 1 is the capped study's (read back, not played again): the same response and gain
    assert rounds.row(0, named=True) == waste["first"]["rounds"].row(0, named=True)
    assert f"waste, 4 players: converged after {result['rounds']} rounds" in waste["printed"]
    # the fields: fictitious play over a table whose other strategy never changes is one table
    assert set(rounds["tables"]) == {1}


def test_a_response_is_adopted_only_when_its_whole_interval_lies_above_zero(waste):
    """A positive estimate whose interval reaches 0 is noise: not adopted (a study stops once every gain is so)."""
    assert respond.adopted({"gain": 0.02, "gain_lo": 1e-9})
    assert not respond.adopted({"gain": 0.02, "gain_lo": 0.0})
    assert not respond.adopted({"gain": 0.05, "gain_lo": -0.001})
    rows = pl.read_parquet(waste["out"] / respond.ROUNDS)
    assert rows["adopted"].to_list() == [lo > 0 for lo in rows["gain_lo"]]


def test_each_round_confirms_on_dice_of_its_own(waste):
    """Round r's confirmation plays ``confirm_seed + r - 1`` (default: the experiment's seed + 1), ``confirm_games``
    games: a response is never confirmed on the dice that confirmed the one before it."""
    seeds = {}
    for run in sorted(waste["out"].glob("arms/*/round-*/*/confirm/run.json")):
        meta = json.loads(run.read_text())
        seeds[int(run.parent.parent.parent.name.split("-")[1])] = meta["seed"]
        assert meta["games_per_arm"] == 600
    assert len(seeds) >= 2 and seeds == {r: 1 + 1 + r - 1 for r in seeds}


def test_a_confirmation_plays_four_times_the_trial_games_by_default(tmp_path):
    path = write(tmp_path, STUDY.replace("confirm_games = 600\n", ""))
    assert respond.load(path).confirm_games == 4 * 200
    assert respond.load(write(tmp_path, STUDY)).confirm_games == 600


def test_the_converged_toml_plays_the_converged_parameters(waste, capsys):
    toml = waste["out"] / respond.CONVERGED / "waste-4p.toml"
    written = tomllib.loads(toml.read_text())
    value = pl.read_parquet(waste["out"] / respond.ROUNDS)["waster:waste"][-1]
    assert written["strategies"] == [f"waster:waste={value!r}", "balanced"] and written["players"] == 4
    # the study's calibration as it was played (calibrate = false here); keys at their defaults are left out
    assert written["calibrate"] is False and "belief" not in written and "calibration_games" not in written
    assert "converged: no response gained beyond its interval" in toml.read_text()
    again = waste["where"] / "again"
    code, _, err = command(capsys, "run", toml, "--out", again, "--games", "8", "--quiet", "--no-report")
    assert code == 0, err
    assert rf.Run.open(again).arms[0]["strategies"] == [f"waster(waste={value!r})", "balanced"]
    # the strategies as they are in a [tune] and a [metagame] file
    study = waste["where"] / "study.toml"
    study.write_text(toml.read_text() + '\n[tune]\nobjective = "win_spread"\n[tune.params]\n"waster:waste" = '
                     "{ low = 0.0, high = 1.0 }\n")  # fmt: skip
    assert tune.load(study).default_values() == {"waster:waste": value}
    study.write_text(toml.read_text() + "\n[metagame]\nbootstrap = 0\n")
    assert metagame.load(study).labels == [f"waster(waste={value!r})", "balanced"]


def test_several_player_counts_side_by_side_and_the_equilibrium_field(tmp_path):
    text = STUDY.replace("players = 4", "players = [4, 5]").replace("games = 200", "games = 20")
    text = text.replace("trials = 8", "trials = 2").replace("confirm_games = 600", "confirm_games = 20")
    text = text.replace("[respond]", '[respond]\nmode = "equilibrium"').replace("rounds = 4", "rounds = 1")
    code, printed = main("respond", write(tmp_path, text), "--out", tmp_path / "out", "--jobs", "1", "--quiet")
    assert code == 0
    meta = search.read_meta(tmp_path / "out")
    assert [(r["players"], r["rounds"]) for r in meta["results"]] == [(4, 1), (5, 1)]
    assert {f"waste, {n} players:" in printed for n in (4, 5)} == {True}
    rounds = pl.read_parquet(tmp_path / "out" / respond.ROUNDS)
    assert rounds["players"].to_list() == [4, 5] and set(rounds["mode"]) == {"equilibrium"}
    for n in (4, 5):
        eq = pl.read_parquet(tmp_path / "out" / "arms" / f"waste-{n}p" / "round-01" / "metagame" / "equilibria.parquet")
        assert eq.filter(pl.col("equilibrium") == 0)["share"].sum() == pytest.approx(1.0)
        assert tomllib.loads((tmp_path / "out" / respond.CONVERGED / f"waste-{n}p.toml").read_text())["players"] == n


def test_the_respond_report_answers_per_arm_and_count_and_shows_the_converged_values(waste, capsys):
    """report.html (written at the end of `eastindia respond`, again by `eastindia report DIR`): the answer per rules
    arm and count in plain words, a chart per arm and count whose marks are drawn, the rounds table, and the
    converged values: the same as rounds.parquet's last round and converged/*.toml's."""
    from PIL import Image

    from reports import respond as respond_report
    from reports.tune import _param_text

    out = waste["out"]
    page = (out / "report.html").read_text()
    rounds = pl.read_parquet(out / respond.ROUNDS).sort("round")
    [result] = waste["meta"]["results"]
    n = result["rounds"]
    assert f"waste, 4 players: converged after {n} rounds" in page and "<h2>Answer</h2>" in page
    last = rounds.row(-1, named=True)["waster:waste"]
    assert f"waster changed waste 1 → {_param_text(last)}" in page  # version 0 is the file's waste=1.0
    chart = out / "charts" / "respond-waste-4p.png"
    with Image.open(chart) as image:
        pixels = np.asarray(image.convert("RGB"), dtype=float)
    assert pixels.std() > 20  # not blank
    panels = pixels[: int(0.75 * len(pixels))]  # above the legend (which draws a mark of each kind too)
    best = np.all(np.abs(panels - [0x2C, 0x7F, 0xB8]) < 30, axis=2).sum()  # the best trials' blue marks
    gain = np.all(np.abs(panels - [0xC0, 0x39, 0x2B]) < 30, axis=2).sum()  # the gains' red marks
    assert best > 200 and gain > 200
    assert page.count('id="chart-respond-waste-4p"') == 1 and page.count('src="data:image/png;base64,') == 1
    # the rounds table: a row per round, the adopted ones highlighted
    table = page.split('id="respond-rounds-waste-4p"')[1].split("</table>")[0]
    assert table.count("<tr") == 1 + n and table.count('class="flag"') == n - 1
    # what a responder plays at the end is its last round's version, not an earlier one
    moved = pl.DataFrame({"round": [2, 1, 3], "strategy": ["waster"] * 3, "waster:waste": [0.5, 1.0, 0.2]})
    assert respond_report.converged_values(moved, ["waster:waste"]) == {"waster": {"waster:waste": 0.2}}
    # the converged values: version 0, then rounds.parquet's last value; the converged toml's strategies as they are
    conv = page.split('id="respond-converged-waste-4p"')[1].split("</table>")[0]
    assert f'<td>waster</td><td>waste</td><td class="num">1</td><td class="num">{_param_text(last)}</td>' in conv
    written = tomllib.loads((out / respond.CONVERGED / "waste-4p.toml").read_text())["strategies"]
    assert written == [f"waster:waste={last!r}", "balanced"] and json.dumps(written) in page.replace("&quot;", '"')
    # eastindia report DIR writes the same page again
    (out / "report.html").unlink()
    code, printed = main("report", out)
    assert code == 0 and "report.html" in printed and (out / "report.html").read_text() == page


def test_several_counts_side_by_side_on_the_respond_page_and_no_report(tmp_path):
    text = STUDY.replace("players = 4", "players = [4, 5]").replace("games = 200", "games = 20")
    text = text.replace("trials = 8", "trials = 2").replace("confirm_games = 600", "confirm_games = 20")
    text = text.replace("rounds = 4", "rounds = 1")
    path = write(tmp_path, text)
    code, _ = main("respond", path, "--out", tmp_path / "quiet", "--jobs", "1", "--quiet", "--no-report")
    assert code == 0 and not (tmp_path / "quiet" / "report.html").exists()
    code, _ = main("respond", path, "--out", tmp_path / "out", "--jobs", "1", "--quiet")
    assert code == 0
    page = (tmp_path / "out" / "report.html").read_text()
    for n in (4, 5):
        assert f"waste, {n} players: " in page and (tmp_path / "out" / "charts" / f"respond-waste-{n}p.png").is_file()
    side = page.split('id="respond-side-by-side"')[1].split("</table>")[0]
    assert "<th>version 0</th><th>4 players</th><th>5 players</th>" in side
    rounds = pl.read_parquet(tmp_path / "out" / respond.ROUNDS)
    from reports.tune import _param_text

    cells = [_param_text(rounds.filter(pl.col("players") == n)["waster:waste"][-1]) for n in (4, 5)]
    assert f'<td class="num">1</td><td class="num">{cells[0]}</td><td class="num">{cells[1]}</td>' in side


@pytest.mark.parametrize(
    "old, new, message",
    [
        (
            "rounds = 4",
            'rounds = 4\nmode = "nash"',
            'respond.mode: expected "fictitious" or "equilibrium", got \'nash\'',
        ),
        ("rounds = 4", "rounds = 0", "respond.rounds: must be between 1 and 1,000, got 0"),
        ("trials = 8", "trials = 0", "respond.trials: must be between 1 and 100,000, got 0"),
        ("batch = 4", "batch = 0", "respond.batch: must be between 1 and 1,000, got 0"),
        ("startup = 4", "startup = -1", "respond.startup: must be between 0 and 100,000, got -1"),
        ("confirm_games = 600", "confirm_games = 0", "respond.confirm_games: must be between 1 and"),
        ("rounds = 4", "rounds = 4\nseed = -1", "respond.seed: must be between 0 and"),
        ("rounds = 4", "rounds = 4\nconfirm_seed = -1", "respond.confirm_seed: must be between 0 and"),
        ("rounds = 4", 'rounds = "4"', "respond.rounds: expected int, got '4'"),
        ("rounds = 4", "rounds = 4\nwhat = 1", "respond.what: unknown key (known: "),
        ("players = 4", "players = [4, 9]", "players[1]: 9 players is impossible: the game takes 4 to 6"),
        ("players = 4", "players = []", "players: expected a player count or a non-empty list of them, got []"),
        ("players = 4", "players = [4, 4]", "players[1]: 4 is listed twice"),
        ("players = 4", 'players = [4, "5"]', "players[1]: expected an integer, got '5'"),
        (
            '"waster:waste" = { low = 0.0, high = 1.0 }',
            '"company.start_stability" = { low = 2, high = 6 }',
            'respond.params.company.start_stability: respond searches strategy parameters ("<strategy>:<param>")',
        ),
        ('"waster:waste" = { low = 0.0, high = 1.0 }', '"waster:waste" = { low = 0.0, high = 1.5 }', "1.5: strategy"),
        (
            '[respond.params]\n"waster:waste" = { low = 0.0, high = 1.0 }\n',
            "",
            "respond.params: missing: [respond.params] lists the strategy",
        ),
        ('"balanced"]', '"balanced", "balanced"]', "strategies: each strategy once"),
    ],
)
def test_bad_respond_input_is_one_line_exit_2(tmp_path, capsys, old, new, message):
    assert old in STUDY
    path = write(tmp_path, STUDY.replace(old, new, 1))
    code, out, err = command(capsys, "respond", path, "--out", tmp_path / "out", "--quiet")
    assert code == 2, err
    assert message in err and str(path) in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and not out
    assert not (tmp_path / "out").exists()
    assert any(message in line for line in spec.check_file(path))


def test_bad_options_are_one_line_exit_2(tmp_path, capsys):
    path = write(tmp_path, STUDY)
    code, _, err = command(capsys, "respond", path, "--rounds", "0", "--out", tmp_path / "out", "--quiet")
    assert code == 2 and err.strip() == "eastindia: error: --rounds: must be between 1 and 1,000, got 0"


@pytest.mark.parametrize("name", ["respond.toml", "respond_capital.toml", "respond_fitted.toml"])
def test_the_library_respond_files(name):
    """experiments/library/respond*.toml: the four archetypes' parameters, at 4 and 5 players, fictitious play (the
    default rules; three capital rules; the fitted crash belief). The hand-run rounds' files (respond1 …) are gone:
    every respond file is a study of its own, named by its question."""
    rs = respond.load(LIBRARY / name)
    assert rs.mode == "fictitious" and rs.players == [4, 5]
    assert rs.responders() == ["bid_low", "buy_shares", "run_firm", "go_military"]
    assert all(len(rs.params_of(s)) >= 3 for s in rs.responders())
    assert spec.check_file(LIBRARY / name) == []
    assert not sorted(LIBRARY.glob("respond[0-9]*.toml")) and not sorted(LIBRARY.glob("respond_[0-9]*.toml"))
    if name == "respond_fitted.toml":
        assert rs.exp.belief == "fitted"
    if name == "respond_capital.toml":
        assert [arm.name for arm in rs.exp.arms] == ["seed formula 6 £", "flat 9 £", "inverse share 4 £"]
