"""eastindia replay RUN_DIR --game N [--arm A]: one game played again with a trace that reproduces the run's frames."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from experiments import replay_words as words
from experiments import runfolder as rf
from experiments.replay import Trace, _brief, calibration_values
from sim import trace as tracing
from sim.agents import Agents
from sim.dice import Dice, Streams
from sim.phases.parliament import hold_vote
from sim.rules import Rules
from tests.helpers import L, Scripted, agents, blank, seat_office
from tests.helpers import command as main
from tests.helpers import run_folder as _run

ARCHETYPES = (
    'name = "a"\ngames = 4\nseed = 7\nplayers = 4\nstrategies = ["bid_low", "buy_shares", "run_firm", "go_military"]\n'
)
FIRMS = (  # firms forced open from round 1, five players
    'name = "f"\ngames = 3\nseed = 5\nplayers = 5\nstrategies = ["run_firm", "balanced", "random"]\n\n'
    '[overrides]\n"deregulation.forced_round" = 1\n'
)
RANDOM6 = (
    'name = "r"\ngames = 3\nseed = 3\nplayers = 6\nstrategies = ["random"]\n\n[sweep]\n"company.max_loans" = [8, 6]\n'
)


@pytest.fixture(scope="module")
def archetypes(tmp_path_factory) -> Path:
    return _run(tmp_path_factory.mktemp("archetypes"), ARCHETYPES)


@pytest.fixture(scope="module")
def random6(tmp_path_factory) -> Path:
    return _run(tmp_path_factory.mktemp("random6"), RANDOM6)


@pytest.fixture(scope="module")
def firms(tmp_path_factory) -> Path:
    return _run(tmp_path_factory.mktemp("firms"), FIRMS)


def _check_reproduces(run_dir: Path, game: int, arm: str, events: list[dict]) -> None:
    def rows(frame: str) -> pl.DataFrame:
        return pl.read_parquet(run_dir / f"{frame}.parquet").filter((pl.col("arm") == arm) & (pl.col("game") == game))

    ends = [e for e in events if e["kind"] == "round_end"]
    rounds, seat_rounds = rows("rounds").sort("round"), rows("seat_rounds").sort("round", "seat")
    assert [(e["round"], e["stability"], e["loans"], e["balance"]) for e in ends] == list(
        rounds.select("round", "stability", "loans", "balance").iter_rows()
    )
    n = rows("seats").height
    money = seat_rounds["money"].to_list()
    assert [e["money"] for e in ends] == [money[i : i + n] for i in range(0, len(money), n)]
    end = events[-1]
    assert end["kind"] == "end" and end["vp"] == rows("seats").sort("seat")["vp"].to_list()
    g = rows("games").row(0, named=True)
    assert (end["crashed"], end["blame"], end["winner"]) == (g["crashed"], g["blame"], g["winner_seat"])
    decisions = [e for e in events if e["kind"] == "decision"]
    assert decisions and all(
        {"round", "phase", "seat", "strategy", "name", "options", "answer"} <= set(e) for e in decisions
    )
    asked = {d["decision"]: d["asks"] for d in g["decisions"]}
    traced: dict[str, int] = {}
    for e in decisions:
        traced[e["name"]] = traced.get(e["name"], 0) + 1
    assert traced == asked  # every decision the engine asked is in the trace, once per ask
    _check_money_adds_up(events, rounds, n)


def _check_money_adds_up(events: list[dict], rounds: pl.DataFrame, n: int) -> None:
    """The money flows, from the start, add up to every seat's money, the Company's balance and the office
    treasuries at each round's end: a flow missing or counted twice breaks the sums."""
    held: dict[str, int] = {}
    ends = iter(rounds.iter_rows(named=True))
    flows = 0
    for e in events:
        if e["kind"] == "flow":
            assert e["amount"] > 0 and e["from"] != e["to"] and e["flow"]
            held[e["from"]] = held.get(e["from"], 0) - e["amount"]
            held[e["to"]] = held.get(e["to"], 0) + e["amount"]
            flows += 1
        elif e["kind"] == "round_end":
            r = next(ends)
            assert [held.get(f"seat {s}", 0) for s in range(n)] == e["money"], e["round"]
            assert held.get("Company", 0) == r["balance"] == e["balance"], e["round"]
            treasuries = sum(v for h, v in held.items() if h.endswith(" treasury"))
            assert treasuries == r["treasuries"], e["round"]
    assert flows and next(ends, None) is None


def test_replay_of_the_archetype_table_reproduces_its_frames(archetypes, capsys):
    for game in range(4):
        code, out, err = main(capsys, "replay", archetypes, "--game", game)
        assert code == 0, err
        jsonl = archetypes / "replays" / f"game-{game}.jsonl"
        assert f"replay: {jsonl}" in out
        events = [json.loads(line) for line in jsonl.read_text().splitlines()]
        _check_reproduces(archetypes, game, "a", events)
        page = (archetypes / "replays" / f"game-{game}.html").read_text()
        assert "<details class=decision>" in page and "<svg" in page and "http" not in page
        assert "<p class=story>Round 1 — " in page  # the game told round by round
    assert Agents.trace is None  # tracing is off again after a replay


def test_replay_of_random_six_players_names_its_arm(random6, capsys):
    code, _, err = main(capsys, "replay", random6, "--game", 1)
    assert code == 2 and err.strip().splitlines() == [
        f"eastindia: error: {random6}: the run has 2 arms; name one with --arm (its name or index: "
        "0: 'company.max_loans=8', 1: 'company.max_loans=6')"
    ]
    code, _, err = main(capsys, "replay", random6, "--game", 2, "--arm", 1)  # an arm by its index
    assert code == 0 and (random6 / "replays" / "game-2-company.max_loans=6.jsonl").is_file(), err
    for arm in ("company.max_loans=8", "company.max_loans=6"):
        code, _, err = main(capsys, "replay", random6, "--game", 2, "--arm", arm)
        assert code == 0, err
        jsonl = random6 / "replays" / f"game-2-{arm}.jsonl"
        events = [json.loads(line) for line in jsonl.read_text().splitlines()]
        assert len(events[-1]["vp"]) == 6
        _check_reproduces(random6, 2, arm, events)


def test_replay_of_games_with_firms_forced_open_reproduces_their_frames(firms, capsys):
    for game in range(3):
        code, _, err = main(capsys, "replay", firms, "--game", game)
        assert code == 0, err
        events = [json.loads(line) for line in (firms / "replays" / f"game-{game}.jsonl").read_text().splitlines()]
        _check_reproduces(firms, game, "f", events)
        assert any(e["kind"] == "event" and e["what"] == "deregulation" and e["tabled_by"] == "forced_round"
                   for e in events)  # fmt: skip


def test_replay_traces_rolls_flows_stability_offices_and_events(archetypes, capsys):
    code, _, err = main(capsys, "replay", archetypes, "--game", 1)
    assert code == 0, err
    events = [json.loads(line) for line in (archetypes / "replays" / "game-1.jsonl").read_text().splitlines()]
    kinds = {e["kind"] for e in events}
    assert {"decision", "roll", "flow", "stability", "office", "event", "round_end", "end"} <= kinds
    assert all({"round", "phase", "kind"} <= set(e) for e in events)
    rolls = [e for e in events if e["kind"] == "roll" and e["roll"] == "d6"]
    assert rolls and all(1 <= f <= 6 for e in rolls for f in e["faces"])
    rounds = pl.read_parquet(archetypes / "rounds.parquet").filter(pl.col("game") == 1).sort("round")
    changes = [
        sum(e["change"] for e in events if e["kind"] == "stability" and e["round"] == r) for r in rounds["round"]
    ]
    assert changes == rounds["stability_change"].to_list()
    storms = [e["faces"][0] for e in events if e["kind"] == "roll" and e["what"] == "india.storm"]
    assert storms == [s for s in rounds["storm"].to_list() if s]
    offices = [e for e in events if e["kind"] == "office"]
    assert offices[0]["round"] == 0 and "chairman" in offices[0]["offices"]


def test_the_replay_logs_a_tied_vote_as_passed_as_the_engine_does(monkeypatch):
    """R-PARLIAMENT, L240: a vote whose net (support + for - against) is 0 passes. Public support -1 against; the PM
    (seat 0, no property) and seat 1 (a shipyard: 1 vote) vote for: 1 for, 1 against. The engine passes it, and the
    replay's vote event says so."""
    r, s = blank(1, 4)
    s.shipyards[0, 1] = 1
    s.prime_minister[:] = 0
    trace = Trace(["scripted"] * 4)
    trace.start(s, r)
    monkeypatch.setattr(tracing, "recorder", trace)

    def vote(obs, legal):
        return (obs.seat <= 1).astype(int), np.zeros(obs.n, dtype=int), np.zeros((obs.n, obs.players), dtype=bool)

    none = np.full(1, -1)
    out = hold_vote(s, r, agents(r, s, Scripted(vote=vote)), np.ones(1, bool), none, none, none, np.ones(1, bool))
    (logged,) = [e for e in trace.events if e["kind"] == "event" and e["what"] == "vote"]
    assert out.net.tolist() == [0] and out.passed.tolist() == [True]
    assert (logged["total_for"], logged["total_against"], logged["passed"]) == (1, 1, True)


def test_the_replay_logs_the_offices_when_only_an_office_changed():
    """The replay's ``office`` event follows every phase that changed an office, a governor, a commander or the Prime
    Minister. A phase that changed nothing logs none; one that only seats a Chairman (seat 2) logs the offices, the
    Chairman among the changed."""
    r, s = blank(1, 4)
    trace = Trace(["scripted"] * 4)
    trace.start(s, r)
    trace.phase(s, "appointments")
    assert [e for e in trace.events if e["kind"] == "office"] == []
    seat_office(s, L.CHAIRMAN, 2)
    trace.phase(s, "appointments")
    (office,) = [e for e in trace.events if e["kind"] == "office"]
    assert (office["phase"], office["offices"], office["changed"]) == ("appointments", {"chairman": 2}, ["chairman"])


def test_a_roll_logs_only_the_dice_its_game_used(monkeypatch):
    """``Dice.d6(idx, n, used=...)`` draws ``n`` faces per game and each game uses its first ``used``: the replayed
    game (position 0 of the batch) logs those only. Here 5 faces drawn, 2 used by game 0: the roll event holds its
    first 2 faces, named by the phase function that rolled them."""
    r, s = blank(1, 4)
    trace = Trace(["scripted"] * 4)
    trace.start(s, r)
    monkeypatch.setattr(tracing, "recorder", trace)
    phase = {"__name__": "sim.phases.india", "np": np}  # a function of a phase module, as the engine's callers are
    exec("def officers(dice, idx):\n    return dice.d6(idx, 5, used=np.array([2, 5]))", phase)
    faces = phase["officers"](Dice(Streams(0, np.arange(2), 1)), np.arange(2))
    (roll,) = [e for e in trace.events if e["kind"] == "roll"]
    assert (roll["what"], roll["phase"], roll["roll"]) == ("india.officers", "india", "d6")
    assert roll["faces"] == faces[0, :2].tolist()


def test_the_replay_plays_its_own_arm_s_calibrated_values():
    """``calibration_values``: the coefficients run.json recorded for the replayed arm (matched by its index), not
    another arm's; an arm recorded without a calibration plays the fixed values (None)."""
    meta = {"arms": [{"index": 0, "calibration": {"coefficients": {"region_loss_rate": 0.2}}},
                     {"index": 1, "calibration": {"coefficients": {"region_loss_rate": 0.4}}},
                     {"index": 2, "calibration": None}]}  # fmt: skip
    arm = type("Arm", (), {})
    arm.index = 1
    assert calibration_values(meta, arm) == {"region_loss_rate": 0.4}
    arm.index = 2
    assert calibration_values(meta, arm) is None


def test_an_option_of_twelve_values_is_shown_whole_and_of_thirteen_summarised():
    """``BRIEF``: an option or answer of up to 12 values is logged as its values, a longer one as its shape, how many
    are not zero and their sum."""
    assert _brief(np.arange(12)) == list(range(12))
    assert _brief(np.arange(13).reshape(1, 13)) == {"shape": [1, 13], "nonzero": 12, "sum": 78.0}


def test_replay_of_a_game_not_in_the_run_is_one_line_exit_2(archetypes, random6, capsys):
    code, out, err = main(capsys, "replay", archetypes, "--game", 4)
    assert (code, out) == (
        2,
        "",
    ) and err == f"eastindia: error: --game 4: not in {archetypes} (arm 'a' played games 0..3)\n"
    code, _, err = main(capsys, "replay", random6, "--game", 0, "--arm", "nope")
    assert code == 2 and err == (
        f"eastindia: error: --arm 'nope': neither the name nor the index of an arm in {random6} "
        "(0: 'company.max_loans=8', 1: 'company.max_loans=6')\n"
    )


def test_replay_that_does_not_reproduce_the_run_is_refused(tmp_path, capsys):
    run_dir = _run(tmp_path, ARCHETYPES.replace("games = 4", "games = 1"))
    toml = run_dir / "experiment.toml"
    toml.write_text(toml.read_text().replace("seed = 7", "seed = 8"))  # another seed: other dice, other play
    code, _, err = main(capsys, "replay", run_dir, "--game", 0)
    assert code == 2 and err.startswith(f"eastindia: error: {run_dir}: game 0 does not replay as the run played it (")
    assert len(err.splitlines()) == 1 and not (run_dir / "replays" / "game-0.jsonl").exists()


def test_replay_of_a_run_recorded_without_a_column_is_refused(tmp_path, capsys):
    """A run whose frames lack a column the engine records now (written by an older engine) does not replay."""
    run_dir = _run(tmp_path, ARCHETYPES.replace("games = 4", "games = 1"))
    path = rf.frame_path(run_dir, "rounds")
    pl.read_parquet(path).drop("laws_passed_by_law").write_parquet(path)
    meta = rf.read_meta(run_dir)
    size, digest = rf.file_sha256(path)
    meta["frames"]["rounds"].update(bytes=size, sha256=digest)
    rf.write_json_atomic(run_dir / rf.META, meta)
    code, _, err = main(capsys, "replay", run_dir, "--game", 0)
    assert code == 2 and err == (
        f"eastindia: error: {run_dir}: game 0 does not replay as the run played it (rounds differ): the engine, "
        "the strategies or a plugin changed since the run\n"
    )


def _replayed(capsys, run_dir: Path, game: int, arm: str | None = None) -> tuple[list[dict], str]:
    """The events and the page of game ``game`` replayed by ``eastindia replay``."""
    code, _, err = main(capsys, "replay", run_dir, "--game", game, *(("--arm", arm) if arm else ()))
    assert code == 0, err
    stem = rf.replay_stem(game, arm)
    events = [json.loads(line) for line in (run_dir / "replays" / f"{stem}.jsonl").read_text().splitlines()]
    return events, (run_dir / "replays" / f"{stem}.html").read_text()


def _summaries(page: str) -> list[str]:
    """The lines the page shows for its decisions (their ``<summary>``), as text."""
    return [
        html.unescape(re.sub(r"<[^>]+>", "", x))
        for x in re.findall(r"<details class=decision><summary>(.*?)</summary>", page)
    ]


def test_every_decision_the_engine_asks_has_words():
    """Every decision point the engine asks (``agents.ask`` / ``ask_seats`` in sim/) is said in words of its own."""
    asked = set()
    for path in Path("sim").rglob("*.py"):
        asked |= set(re.findall(r"\.ask(?:_seats)?\(\s*\"(\w+)\"", path.read_text()))
    assert len(asked) > 60 and asked <= set(words.SAY), sorted(asked - set(words.SAY))


FAMILY_WORDS = {  # R-ACTIONS, layout.ACTION_NAMES: what each action is said as, once
    0: "passes", 1: "buys a luxury", 2: "builds a shipyard", 3: "builds a factory",
    5: "sends a relative to the military academy", 6: "buys a place on the share exchange",
}  # fmt: skip
FAMILY_TWICE = {  # and twice (last round's action repeated)
    1: "buys two luxuries", 2: "builds two shipyards", 3: "builds two factories",
    5: "sends two relatives to the military academy", 6: "buys two places on the share exchange",
}  # fmt: skip


def test_the_replay_says_every_decision_in_words(archetypes, firms, capsys):
    """Seed 7's archetype table (game 1: loans, bids, battles, votes) and a game with firms forced open: every
    decision is a sentence, no array nor its summary, no kind said plainly for want of words; the loans, family
    actions and votes say what was answered; the page shows the words, the recorded numbers only when opened."""
    law_names = Rules.default(4).d.law_names
    for run_dir, game in ((archetypes, 1), (firms, 0)):
        events, page = _replayed(capsys, run_dir, game)
        decisions = [e for e in events if e["kind"] == "decision"]
        assert len({e["name"] for e in decisions}) >= 20
        for e in decisions:
            says = e["says"]
            assert says and not re.search(r"[\[\]{}]|shape|nonzero|answers ", says), (e["name"], says)
            answer = e["answer"]
            if e["name"] == "take_loans":
                assert says.startswith(
                    f"takes {answer} loans " if answer > 1 else f"takes {['no loans', '1 loan'][answer]} "
                )
            elif e["name"] == "family_action":
                act, twice, where = answer
                if act == 4:  # a clerk: where each one goes
                    places = [["Bombay", "Madras", "Bengal"][p] for p in where[: 1 + twice]]
                    said = (
                        f"sends clerks to {places[0]} and {places[1]}"
                        if twice and places[0] != places[1]
                        else f"sends {'two clerks' if twice else 'a clerk'} to {places[0]}"
                    )
                else:
                    said = FAMILY_TWICE[act] if twice else FAMILY_WORDS[act]
                assert said in says and says.startswith("as an extra action, " if e["options"]["extra"] else said)
            elif e["name"] == "vote":
                topic = "Deregulation" if e["options"]["deregulation"] else law_names[e["options"]["law"]]
                verb = {1: "votes for", -1: "votes against", 0: "abstains on"}[answer[0]]
                assert says.startswith(f"{verb} {topic}")
                assert (f"buying {answer[1]} vote" in says) == (answer[1] > 0)
        shown = _summaries(page)
        assert len(shown) == len(decisions) and not any("→" in x or "[" in x for x in shown)
        assert [x.split(") ", 1)[1] for x in shown] == [e["says"] for e in decisions]
    bids = [e["says"] for e in decisions if e["name"] == "bid"]
    assert bids and all(re.match(r"bids \d+ £( each)?( \(raising by \d+ up to \d+ £\))? for the ", b) for b in bids)
    assert any(e["says"].startswith("takes 8 loans") for e in decisions)


def test_a_decision_without_words_is_said_plainly():
    """A plugin's own decision, or one whose values the words do not fit, is its name and its answer's values by
    position: never an array."""
    names = words.Names(Rules.default(4))
    assert words.say("hoard_tea", {}, (np.array([0, 3, 0]), np.array(True)), names, 0) == (
        "answers hoard tea: 3 at 1 / yes"
    )
    assert words.say("take_loans", {}, (np.array(2),), names, 0) == "answers take loans: 2"  # no legal options to say
    assert words.say("extra_clerk", {}, (np.array(1),), names, 0) == "sends an extra clerk to Madras"


def _stories(page: str) -> dict[int, str]:
    return {int(r): html.unescape(t) for r, t in re.findall(r"<p class=story>Round (\d+) — (.*?)</p>", page)}


def test_the_replay_names_regions_and_armies_as_the_rulebook_does(archetypes, capsys):
    """Seed 7, game 1: the Company's Bombay army conquers Bombay in round 1 and Maratha in round 2 (R-DEPLOY), and
    the Company loses Bombay in round 4 (R-ATTACK). The story says so with the rulebook's names (MAP.md), one
    sentence per conquest and per loss, as many as the rounds frame counts."""
    events, page = _replayed(capsys, archetypes, 1)
    regions = [(e["round"], e["region"], e["army"], e["held_by"]) for e in events if e.get("what") == "region"]
    assert regions == [
        (1, "Bombay", "the Bombay army", None),
        (2, "Maratha", "the Bombay army", None),
        (4, "Bombay", None, "the Bombay army"),
    ]
    stories = _stories(page)
    assert "the Bombay army conquers Bombay" in stories[1] and "the Bombay army conquers Maratha" in stories[2]
    assert "the Company loses Bombay, which the Bombay army held" in stories[4]
    rounds = pl.read_parquet(archetypes / "rounds.parquet").filter(pl.col("game") == 1).sort("round")
    for r in rounds.iter_rows(named=True):
        assert stories[r["round"]].count(" conquers ") == r["conquests"]
        assert stories[r["round"]].count("the Company loses ") == r["regions_lost"]
    assert "falls to" not in page and "bombay" not in re.sub(r"<details class=log>.*?</details>", "", page)


def test_the_crash_line_names_the_stability_changes_that_ended_the_game(archetypes, random6, capsys):
    """The crash line says what took the Company's stability to 0, not the blame situation drawn after it (R-END):
    seed 7 game 2 (the archetypes) crashed in round 5's accounts on its emergency loans (D-EMERGENCY: 3 this round,
    -1 per 2) and then drew the military's blame; seed 3 game 1 (six random players, 8 loans at most) lost a point
    to emergency loans and its last to a profit below the expectation E(1) = 4 £ (D-EXPECT). The changes are the
    rounds frame's stability causes of that round, and the last one is the crash cause the reports count."""
    from reports.data import crash_cause
    from sim.state import STABILITY_CAUSES

    expected = {
        (archetypes, 2, None): ("the emergency loans", "military", "the military: each family loses ⌊(trophies + "),
        (random6, 1, "company.max_loans=8"): ("the missed expectation", "parliament", "Parliament: each family loses"),
    }
    for (run_dir, game, arm), (last_words, blame, blame_words) in expected.items():
        events, page = _replayed(capsys, run_dir, game, arm)
        end = events[-1]
        rounds = pl.read_parquet(run_dir / "rounds.parquet").filter(
            (pl.col("game") == game) & (pl.col("arm") == (arm or "a"))
        )
        row = rounds.filter(pl.col("round") == end["round"]).row(0, named=True)
        causes = [(c.removeprefix("stability_"), row[c]) for c in STABILITY_CAUSES if row[c]]
        assert [(c["cause"], c["change"]) for c in end["crash"]["changes"]] == causes
        assert end["crash"]["last"] == rounds.filter(pl.col("crashed")).select(crash_cause())["cause"][0]
        assert end["crash"]["changes"][-1]["after"] == 0 and end["blame"] == blame
        verdict = html.unescape(re.search(r"<p id=verdict>(.*?)</p>", page, re.S).group(1))
        assert verdict.startswith(f"The Company crashed in round {end['round']} (phase 7, accounts): stability ")
        loans = row["emergency_loans"]
        assert (
            f"{loans} emergency loans this round (−1 stability per 2 emergency loans in a round, D-EMERGENCY)"
            in verdict
        )
        assert f"this game drew {blame_words}" in verdict and "blame:" not in page
        assert _stories(page)[end["round"]].endswith(f"the Company crashes (the last point lost to {last_words}).")
        if len(causes) > 1:
            e1 = Rules.default(6).d.expect[1]
            assert (
                f"1 → 0: the profit left after costs, {row['profit']} £, fell short of the expectation E(1) = {e1} £"
                in verdict
            )
            assert verdict.count("The last point went to the missed expectation.") == 1


def _svg(page: str, name: str) -> str:
    return re.search(rf'<svg class=chart id="{name}".*?</svg>', page, re.S).group(0)


def _points(svg: str) -> list[tuple[str, float, str]]:
    """Each point of a chart: (colour, cy, its tooltip)."""
    found = re.findall(r'<circle cx="[\d.]+" cy="([\d.]+)" r="3" fill="([^"]+)"><title>(.*?)</title>', svg)
    return [(colour, float(cy), html.unescape(tip)) for cy, colour, tip in found]


def _grid(svg: str) -> dict[int, float]:
    """A chart's y ticks: value -> the y of its gridline."""
    lines = [float(y) for y in re.findall(r'<line class=grid x1="[\d.]+" x2="[\d.]+" y1="([\d.]+)"', svg)]
    values = [int(v) for v in re.findall(r"<text class=ytick [^>]*>(\d+)</text>", svg)]
    return dict(zip(values, lines, strict=True))


def test_the_charts_have_axes_tick_values_and_a_key_of_the_seats(archetypes, capsys):
    """Seed 7 game 2 of the archetypes (a crash in round 5): stability on 0..7 points and money on £, from the start
    (round 0) to each round's end, with their tick values and axis titles; every point where its value's tick puts
    it, its tooltip the frames' value; money one curve per seat in the colour the key gives the seat, named as the
    page names seats ("seat 1 (go_military)"), starting at the seat's starting capital (R-CAPITAL)."""
    events, page = _replayed(capsys, archetypes, 2)
    rounds = pl.read_parquet(archetypes / "rounds.parquet").filter(pl.col("game") == 2).sort("round")
    seat_rounds = pl.read_parquet(archetypes / "seat_rounds.parquet").filter(pl.col("game") == 2)
    seats = pl.read_parquet(archetypes / "seats.parquet").filter(pl.col("game") == 2).sort("seat")
    stability = _svg(page, "stability")
    grid = _grid(stability)
    assert list(grid) == list(range(8)) and "stability (points)" in stability and "round (0: the start" in stability
    xticks = [int(r) for r in re.findall(r"<text class=xtick [^>]*>(\d+)</text>", stability)]
    assert xticks == list(range(6))  # the start and rounds 1..5
    values = [4, *rounds["stability"].to_list()]
    assert [tip for _, _, tip in _points(stability)] == [
        f"stability, {'start' if r == 0 else f'round {r}'}: {v} points" for r, v in enumerate(values)
    ]
    assert [cy for _, cy, _ in _points(stability)] == [grid[v] for v in values]
    money = _svg(page, "money")
    grid = _grid(money)
    assert "money in hand (£)" in money and len(grid) >= 3 and list(grid) == sorted(grid)
    (lo, y_lo), (hi, y_hi) = min(grid.items()), max(grid.items())
    key = re.findall(r'<li><span class=swatch style="background:([^"]+)"></span>(.*?)</li>', page)
    labels = seats["strategy"].to_list()
    assert [label for _, label in key] == [f"seat {s} ({labels[s]})" for s in range(4)]
    assert len({colour for colour, _ in key}) == 4
    for s, (colour, label) in enumerate(key):
        assert f'<polyline fill="none" stroke="{colour}"' in money
        mine = [(cy, tip) for c, cy, tip in _points(money) if c == colour]
        held = [seats["starting_capital"][s], *seat_rounds.filter(pl.col("seat") == s).sort("round")["money"]]
        assert [tip for _, tip in mine] == [
            f"{label}, {'start' if r == 0 else f'round {r}'}: {m} £" for r, m in enumerate(held)
        ]
        where = [y_lo + (m - lo) / (hi - lo) * (y_hi - y_lo) for m in held]  # the y of each value, by the ticks
        assert all(abs(cy - y) < 0.15 for (cy, _), y in zip(mine, where, strict=True))
