"""The results frames (docs/guide.md "Reading the frames"): every column of every frame checked against the state it
records, computed here independently (plain loops over the snapshot), or against another frame.

One batch of mixed random/balanced games is played with a recorder that also keeps the state it snapshots at the end
of each round, so each row of ``rounds`` and ``seat_rounds`` is compared with exactly the state it was taken from,
and each row of ``games`` and ``seats`` with the final state.
"""

import numpy as np
import polars as pl
import pytest
from helpers import L, blank, games

import sim
import sim.engine as engine
from sim import positions as pos
from sim.capital import LEFTOVER_CASES
from sim.laws import DEREGULATION, DEREGULATION_BY, IN_FORCE
from sim.results import FRAMES, PEOPLE, SORT_KEYS, Recorder, Results
from sim.rules import Rules
from sim.state import TALLIES, TALLY

SEED = 23
STRATEGIES = ["random", "balanced", "random", "balanced", "balanced"]  # enough successes beside the crashes
N = games(300, 100)  # fewer under mutation testing (docs/guide.md, "Development")


class Keeping(Recorder):
    """The engine's recorder, also keeping (round, game ids, state copy) of every snapshot."""

    kept: list = []

    def round(self, state, rnd, played, plans=None):
        idx = np.flatnonzero(played)
        if idx.size:
            Keeping.kept.append((rnd, state.take(idx)))
        super().round(state, rnd, played, plans)


@pytest.fixture  # per test, not per module: mutmut runs for a mutant only the tests during which it was called
def played():
    rules = Rules.default(5)
    seats = engine.resolve_strategies(rules, STRATEGIES)
    Keeping.kept = []
    original = engine.Recorder
    engine.Recorder = Keeping
    try:
        state, rows = engine.play_batch(rules, seats, SEED, np.arange(300, 300 + N, dtype=np.int64))
    finally:
        engine.Recorder = original
    res = Results.from_batches([rows], {})
    snapshots = {rnd: s for rnd, s in Keeping.kept}
    return rules, state, res, snapshots


def count(holder_row, seat) -> int:
    return sum(1 for x in holder_row if x == seat)


def test_the_batch_has_the_events_the_flags_record(played):
    """The checks below are only meaningful if the batch has crashes and successes, royal protection used and not,
    leftover cases of several kinds, China open and closed."""
    _, state, res, _ = played
    g = res.games
    assert 0 < g["crashed"].sum() < g.height
    assert 0 < g["royal_protection_used"].sum() < g.height
    assert 0 < g["china_open"].sum() < g.height
    assert g["leftover_case"].n_unique() >= 2
    assert g["blame"].drop_nulls().n_unique() >= 4


def test_games_frame_against_the_final_state(played):
    rules, s, res, _ = played
    g = res.games
    names = np.array(STRATEGIES)
    assert g["game"].to_list() == list(range(300, 300 + N))
    assert (g["seed"] == SEED).all() and (g["players"] == 5).all()
    for i, row in enumerate(g.iter_rows(named=True)):
        assert row["end_round"] == s.end_round[i] and row["crashed"] == s.crashed[i]
        assert row["blame"] == (L.BLAME_NAMES[s.blame[i]] if s.crashed[i] else None)
        assert row["winner_seat"] == s.winner[i] and row["winner_strategy"] == names[s.winner[i]]
        assert row["stability"] == s.stability[i] and row["loans"] == s.loans[i] and row["balance"] == s.balance[i]
        assert row["share_vp"] == s.share_vp[i]
        assert row["company_regions"] == sum(1 for o in s.owner[i] if o >= 0)
        assert row["open_orders"] == sum(bool(o) for o in s.order_open[i])
        assert row["china_open"] == s.china_open[i]
        if s.royal_protection[i] < rules.company.royal_protection:  # a law may grant more uses: the rounds tell
            assert row["royal_protection_used"]  # whether one was used (next test)
        assert row["leftover_case"] == LEFTOVER_CASES[s.leftover_case[i]]
        held = sum(s.money[i]) + s.balance[i] + sum(s.treasury[i]) + sum(s.firm_cash[i]) + sum(s.firm_india[i])
        assert row["money_in_game"] == held == s.ledger[i].sum()


def test_games_frame_against_the_rounds_frame(played):
    """The final Company figures are the last round's; a game's flags are true exactly when the event happened."""
    _, _, res, _ = played
    last = res.rounds.group_by("game").agg(
        pl.col("round").max().alias("last_round"),
        pl.col("round").count().alias("n_rounds"),
        *[pl.col(c).last().alias(f"last_{c}") for c in ("stability", "loans", "balance", "china_open", "crashed")],
        *[pl.col(c).last().alias(f"last_{c}") for c in ("company_regions", "open_orders")],
        (pl.col("royal_protection").sum() > 0).alias("protected"),
        pl.col("crashed").sum().alias("crashed_rounds"),
    )
    j = res.games.join(last, on="game")
    assert j.height == res.games.height
    assert (j["end_round"] == j["last_round"]).all() and (j["n_rounds"] == j["last_round"]).all()
    for col in ("stability", "loans", "balance", "china_open", "crashed", "company_regions", "open_orders"):
        assert (j[col] == j[f"last_{col}"]).all(), col
    assert (j["royal_protection_used"] == j["protected"]).all()
    assert (j["crashed_rounds"] == j["crashed"].cast(pl.UInt32)).all()  # only the last round of a crash is crashed
    assert (j["crashed"] == (j["stability"] == 0)).all()


def test_seats_frame_capital_columns(played):
    """capital_rounded + leftover == starting_capital; the rounding is the 0.7 rule on capital_exact; the leftover
    case names what the leftover column shows."""
    rules, s, res, _ = played
    seats = res.seats
    assert (seats["capital_rounded"] + seats["leftover"] == seats["starting_capital"]).all()
    exact = seats["capital_exact"].to_numpy()
    frac = exact - np.floor(exact + 1e-9)
    assert (seats["capital_rounded"].to_numpy() == np.floor(exact + 1e-9) + (frac >= 0.7 - 1e-9)).all()
    per_game = seats.group_by("game", maintain_order=True).agg(
        pl.col("starting_capital").sum(),
        pl.col("capital_rounded").sum(),
        pl.col("capital_exact").sum(),
        (pl.col("leftover") > 0).sum().alias("received"),
        (pl.col("leftover") < 0).sum().alias("gave_back"),
        pl.col("leftover_case").first(),
        pl.col("leftover_case").n_unique().alias("cases"),
        pl.col("bid_total"),
    )
    assert (per_game["cases"] == 1).all()
    assert np.allclose(per_game["capital_exact"], rules.budget)
    for row in per_game.iter_rows(named=True):
        case, short = row["leftover_case"], rules.budget - row["capital_rounded"]
        if case == "exact":
            assert short == 0 and row["received"] == row["gave_back"] == 0
        elif case in ("two_lowest", "lowest"):
            assert short > 0 and row["received"] == 1 and row["gave_back"] == 0
            assert row["starting_capital"] == rules.budget
        else:
            assert case == "excess_taken_back" and short < 0 and row["gave_back"] == -short
            assert row["starting_capital"] == rules.budget
    # the exact capital is the seed's formula over the bid totals (inverse_share, default rules)
    bids = np.array(per_game["bid_total"].to_list(), dtype=float)
    unspent = bids.sum(axis=1, keepdims=True) - bids
    want = np.where(
        bids.sum(axis=1, keepdims=True) > 0, rules.budget * unspent / np.maximum(unspent.sum(1, keepdims=True), 1), 6.0
    )
    assert np.allclose(exact.reshape(-1, 5), want)
    assert (seats["bid_total"].to_numpy().reshape(-1, 5) == s.bid_total).all()


def test_seats_frame_against_the_final_state(played):
    rules, s, res, _ = played
    seats = res.seats
    assert seats["game"].to_list() == [g for g in range(300, 300 + N) for _ in range(5)]
    assert seats["seat"].to_list() == list(range(5)) * N
    assert seats["strategy"].to_list() == STRATEGIES * N
    vp_cols = [f"vp_{src}" for src in L.VP_SOURCES]
    assert np.allclose(seats.select(pl.sum_horizontal(vp_cols)).to_series(), seats["vp"])
    tier_vp = rules.d.tier_vp
    for k, row in enumerate(seats.iter_rows(named=True)):
        i, seat = divmod(k, 5)
        for j, src in enumerate(L.VP_SOURCES):
            assert row[f"vp_{src}"] == s.vp[i, seat, j]
        assert row["vp_luxury"] == 2 * s.luxuries[i, seat]
        assert row["vp_retirements"] == sum(int(c) * int(v) for c, v in zip(s.retired[i, seat], tier_vp, strict=True))
        assert row["winner"] == (s.winner[i] == seat)
        for col in ("money", "wealth", "influence", "shares", "trophies", "luxuries", "shipyards", "factories"):
            assert row[col] == getattr(s, col)[i, seat], col
        assert row["chair"] == (s.office[i, L.CHAIRMAN] == seat)
        assert row["prime_minister"] == (s.prime_minister[i] == seat)
        assert row["offices"] == count(s.office[i], seat)
        assert row["governors"] == count(s.governor[i], seat)
        assert row["officers"] == sum(s.officers[i, seat]) and row["clerks"] == sum(s.clerks[i, seat])
        assert row["retired"] == sum(s.retired[i, seat])
        pm = s.prime_minister[i] == seat
        board = s.shares[i, seat] + (s.office[i, L.CHAIRMAN] == seat)
        factories = s.factories[i, seat] + s.invested_factories[i, seat]  # L79: invested ones count too (default)
        assets = (s.luxuries[i, seat], board, s.shipyards[i, seat], factories)  # the game's ladder order
        ladder = sum(int(w) * int(a) for w, a in zip(s.ladder[i], assets, strict=True))
        infl = 2 * pm + s.wreaths[i, seat] + s.trophies[i, seat] + ladder + pos.influence(s, rules)[i, seat]
        assert row["influence"] == infl


def test_seats_frame_against_the_games_frame(played):
    _, _, res, _ = played
    seats, games = res.seats, res.games
    win = seats.filter(pl.col("winner"))
    assert win.height == games.height  # exactly one winner per game ...
    assert (win["seat"] == games["winner_seat"]).all()  # ... the seat the games frame names
    best = seats.group_by("game").agg(pl.col("vp").max().alias("best"))
    assert (win.join(best, on="game").select(pl.col("vp") == pl.col("best")).to_series()).all()
    assert (seats.group_by("game").agg(pl.col("chair").sum())["chair"] <= 1).all()
    assert (seats.group_by("game").agg(pl.col("prime_minister").sum())["prime_minister"] <= 1).all()
    same_case = seats.group_by("game").agg(pl.col("leftover_case").first()).join(games, on="game")
    assert (same_case["leftover_case"] == same_case["leftover_case_right"]).all()


def test_rounds_frame_against_the_state_it_recorded(played):
    rules, _, res, snaps = played
    rounds = res.rounds
    assert set(rounds["round"].unique().to_list()) == set(snaps)
    for rnd, s in snaps.items():
        rows = rounds.filter(pl.col("round") == rnd)
        assert rows["game"].to_list() == s.game.tolist()
        for i, row in enumerate(rows.iter_rows(named=True)):
            assert row["stability"] == s.stability[i] and row["loans"] == s.loans[i]
            assert row["balance"] == s.balance[i] and row["treasuries"] == sum(s.treasury[i])
            assert row["company_regions"] == sum(1 for o in s.owner[i] if o >= 0)
            assert row["unrest"] == sum(s.unrest[i]) and row["open_orders"] == sum(s.order_open[i])
            assert row["ships"] == s.ships[i].sum() + s.yard_ships[i].sum()
            assert row["regiments"] == sum(s.regiments[i]) and row["officers"] == s.officers[i].sum()
            assert row["shares"] == sum(s.shares[i]) + (s.office[i, L.CHAIRMAN] >= 0)  # the chair is a share
            assert row["vacant_offices"] == sum(1 for o in s.office[i, : L.CHINA] if o < 0)
            assert row["china_open"] == s.china_open[i] and row["crashed"] == s.crashed[i]
            for name in TALLIES:
                value = s.tally[i, TALLY[name]]
                value = {"deregulation": DEREGULATION, "deregulation_by": DEREGULATION_BY}.get(name, {value: value})[
                    value
                ]
                assert row[name] == value, name


def test_rounds_frame_flags_each_law_passed_and_each_position_card_taken(played):
    """One flag per law of the rules' list and per card of the deck; the flags set add up to the round's
    ``laws_passed`` and ``positions_taken``; every law come into force in the round is flagged, every card flagged
    is held at the round's end."""
    rules, _, res, snaps = played
    in_force = {}  # game -> bool[LAWS] in force at the end of the last round
    r = res.rounds
    assert (r["laws_passed_by_law"].list.len() == len(rules.parliament.laws)).all()
    assert (r["positions_taken_by_card"].list.len() == len(rules.positions.deck)).all()
    assert (r["laws_passed_by_law"].list.sum() == r["laws_passed"]).all() and r["laws_passed"].sum() > 0
    assert (r["positions_taken_by_card"].list.sum() == r["positions_taken"]).all() and r["positions_taken"].sum() > 0
    for rnd, s in snaps.items():
        rows = r.filter(pl.col("round") == rnd)
        laws = np.array(rows["laws_passed_by_law"].to_list(), dtype=bool)
        cards = np.array(rows["positions_taken_by_card"].to_list(), dtype=bool)
        assert (s.card_owner[cards] >= 0).all()
        for i, game in enumerate(s.game.tolist()):
            now = s.law_pile[i] == IN_FORCE
            assert not (now & ~in_force.get(game, np.zeros_like(now)) & ~laws[i]).any()
            in_force[game] = now
    assert len(in_force) == len(res.games)


def test_rounds_frame_flags_each_closed_position_card_played_in_its_round(played):
    """A card is flagged in the round its owner plays it, once a game: the flags of the rounds so far add up to the
    cards spent at each round's end (``card_played``), and only closed cards, held by a family, are played."""
    rules, _, res, snaps = played
    r = res.rounds
    assert (r["positions_played_by_card"].list.len() == len(rules.positions.deck)).all()
    so_far: dict[int, np.ndarray] = {}
    for rnd, s in sorted(snaps.items()):
        flags = np.array(r.filter(pl.col("round") == rnd)["positions_played_by_card"].to_list(), dtype=bool)
        for i, game in enumerate(s.game.tolist()):
            before = so_far.get(game, np.zeros(flags.shape[1], dtype=bool))
            assert not (before & flags[i]).any()  # never played twice
            so_far[game] = before | flags[i]
            assert (so_far[game] == s.card_played[i]).all()
        assert (s.card_owner[flags] >= 0).all() and not rules.d.card_permanent[np.nonzero(flags)[1]].any()
    assert sum(int(v.sum()) for v in so_far.values()) > 0  # cards are played in these games


def test_rounds_frame_against_the_seat_rounds_frame_and_itself(played):
    """Round totals are the sums over seats; the stability change is the difference of consecutive rounds."""
    rules, _, res, _ = played
    per = res.seat_rounds.group_by("game", "round").agg(
        (pl.col("shares").sum() + pl.col("chair").sum()).alias("board"),
        pl.col("officers").sum().alias("seat_officers"),
    )
    j = res.rounds.join(per, on=["game", "round"])
    assert j.height == res.rounds.height
    assert (j["shares"] == j["board"]).all() and (j["officers"] == j["seat_officers"]).all()
    r = res.rounds.sort("game", "round")
    before = r.select(
        pl.col("stability").shift(1).over("game").fill_null(rules.company.start_stability).alias("before")
    )
    assert (r["stability"] - before["before"] == r["stability_change"]).all()
    assert (r["round"] == r.select(pl.int_range(1, pl.len() + 1).over("game")).to_series()).all()


def test_seat_rounds_frame_against_the_state_it_recorded(played):
    rules, _, res, snaps = played
    sr = res.seat_rounds
    tier_vp = rules.d.tier_vp
    for rnd, s in snaps.items():
        rows = sr.filter(pl.col("round") == rnd)
        assert rows.height == 5 * s.n_games
        for k, row in enumerate(rows.iter_rows(named=True)):
            i, seat = divmod(k, 5)
            assert row["game"] == s.game[i] and row["seat"] == seat
            for col in ("money", "shares", "supply", "academy", "trophies", "luxuries", "shipyards", "factories"):
                assert row[col] == getattr(s, col)[i, seat], col
            banked = 2 * s.luxuries[i, seat] + sum(
                int(c) * int(v) for c, v in zip(s.retired[i, seat], tier_vp, strict=True)
            )
            assert row["vp_banked"] == banked
            assert row["chair"] == (s.office[i, L.CHAIRMAN] == seat)
            assert row["offices"] == count(s.office[i], seat)
            assert row["governors"] == count(s.governor[i], seat)
            assert row["commanders"] == count(s.commander[i], seat)
            assert row["exchange"] == count(s.exchange[i], seat)
            assert row["clerks"] == sum(s.clerks[i, seat]) and row["officers"] == sum(s.officers[i, seat])
            assert row["retired"] == sum(s.retired[i, seat])
    assert (sr.select(pl.sum_horizontal(PEOPLE)).to_series() == rules.game.family_size).all()


# the frames' schema: column order and dtypes are fixed (shards and arms concatenate; the guide, "Reading the frames")
SCHEMA = {
    "games": {
        "game": "Int64",
        "seed": "Int64",
        "players": "Int8",
        "end_round": "Int8",
        "crashed": "Boolean",
        "blame": "String",
        "winner_seat": "Int8",
        "winner_strategy": "String",
        "stability": "Int8",
        "loans": "Int32",
        "balance": "Int32",
        "share_vp": "Int8",
        "policy": "Int8",
        "laws_in_force": "Int8",
        "deregulation_round": "Int8",
        "company_regions": "Int64",
        "company_region_names": "String",
        "open_orders": "Int64",
        "china_open": "Boolean",
        "royal_protection_used": "Boolean",
        "leftover_case": "String",
        "money_in_game": "Int64",
        "decisions": "List(Struct({'decision': String, 'asks': Int32}))",
    },
    "seats": {
        "game": "Int64",
        "seat": "Int8",
        "strategy": "String",
        "bid_total": "Int32",
        "capital_exact": "Float64",
        "capital_rounded": "Int32",
        "starting_capital": "Int32",
        "leftover": "Int32",
        "leftover_case": "String",
        "vp": "Float64",
        "vp_luxury": "Float64",
        "vp_retirements": "Float64",
        "vp_company_shares": "Float64",
        "vp_firm_shares": "Float64",
        "vp_debtors_prison": "Float64",
        "vp_factories": "Float64",
        "vp_influence": "Float64",
        "vp_blame": "Float64",
        "winner": "Boolean",
        "money": "Int32",
        "wealth": "Int32",
        "influence": "Int32",
        "shares": "Int32",
        "chair": "Boolean",
        "offices": "Int64",
        "governors": "Int64",
        "officers": "Int64",
        "clerks": "Int64",
        "trophies": "Int32",
        "luxuries": "Int32",
        "shipyards": "Int32",
        "factories": "Int32",
        "retired": "Int64",
        "prime_minister": "Boolean",
        "wreaths": "Int32",
        "positions": "Int64",
        "firms_managed": "Int64",
        "firm_shares": "Int64",
        "prisoners": "Int32",
        "presidencies": "Int64",
        "luxuries_bought": "Int32",
        "firms_opened": "Int32",
        "firms_bankrupt": "Int32",
    },
    "rounds": {
        "game": "Int64",
        "round": "Int16",
        "stability": "Int8",
        "loans": "Int32",
        "balance": "Int32",
        "treasuries": "Int64",
        "company_regions": "Int64",
        "unrest": "Int64",
        "open_orders": "Int64",
        "ships": "Int64",
        "regiments": "Int64",
        "officers": "Int64",
        "shares": "Int64",
        "vacant_offices": "Int64",
        "china_open": "Boolean",
        "crashed": "Boolean",
        "prime_minister": "Int8",
        "policy": "Int8",
        "laws_in_force": "Int8",
        "firms_open": "Int8",
        "firm_value": "Int64",
        "prisoners": "Int64",
        "loans_taken": "Int32",
        "emergency_loans": "Int32",
        "dividends": "Int32",
        "company_costs": "Int32",
        "profit": "Int32",
        "trade_revenue": "Int32",
        "orders_filled": "Int32",
        "china_revenue": "Int32",
        "checks": "Int32",
        "orders_opened": "Int32",
        "ships_bought": "Int32",
        "battles": "Int32",
        "conquests": "Int32",
        "officers_killed": "Int32",
        "fired": "Int32",
        "tax": "Int32",
        "loot": "Int32",
        "royal_protection": "Int32",
        "stability_change": "Int32",
        "storm": "Int32",
        "events": "Int32",
        "events_crisis": "Int32",
        "events_leader": "Int32",
        "events_turmoil": "Int32",
        "events_windfall": "Int32",
        "events_peace": "Int32",
        "events_shuffle": "Int32",
        "events_invasion": "Int32",
        "attacks": "Int32",
        "revolts": "Int32",
        "regions_lost": "Int32",
        "regions_held": "Int32",
        "ships_damaged": "Int32",
        "ships_sunk": "Int32",
        "orders_closed": "Int32",
        "orders_reopened": "Int32",
        "laws_tabled": "Int32",
        "laws_passed": "Int32",
        "pm_changed": "Boolean",
        "taxes_paid": "Int32",
        "bonuses_paid": "Int32",
        "assets_taxed_away": "Int32",
        "votes_bought": "Int32",
        "deregulation": "String",
        "deregulation_by": "String",
        "loans_written_off": "Int32",
        "notes_sold": "Int32",
        "notes_used": "Int32",
        "exchanges": "Int32",
        "retirements": "Int32",
        "stress_markers": "Int32",
        "honourable_retirements": "Int32",
        "sent_home": "Int32",
        "positions_taken": "Int32",
        "upkeep_paid": "Int32",
        "upkeep_defaults": "Int32",
        "chair_changed": "Int32",
        "firms_opened": "Int32",
        "firm_investments": "Int32",
        "firm_takeovers": "Int32",
        "firm_mergers": "Int32",
        "firm_ships_built": "Int32",
        "firm_revenue": "Int32",
        "firm_orders_filled": "Int32",
        "firm_dividends": "Int32",
        "emergency_investments": "Int32",
        "bankruptcies": "Int32",
        "special_retirements": "Int32",
        "stability_loss_emergency": "Int32",
        "stability_loss_expectation": "Int32",
        "stability_gain": "Int32",
        "stability_loss_regions": "Int32",
        "stability_loss_laws": "Int32",
        "stability_gain_laws": "Int32",
        "laws_passed_by_law": "List(Boolean)",
        "positions_taken_by_card": "List(Boolean)",
        "positions_played_by_card": "List(Boolean)",
    },
    "seat_rounds": {
        "game": "Int64",
        "round": "Int16",
        "seat": "Int8",
        "plan": "String",
        "money": "Int32",
        "vp_banked": "Int64",
        "shares": "Int32",
        "chair": "Boolean",
        "offices": "Int64",
        "governors": "Int64",
        "commanders": "Int64",
        "supply": "Int32",
        "clerks": "Int64",
        "officers": "Int64",
        "academy": "Int32",
        "exchange": "Int64",
        "retired": "Int64",
        "trophies": "Int32",
        "luxuries": "Int32",
        "shipyards": "Int32",
        "factories": "Int32",
        "positions": "Int64",
        "retired_tiers": "List(Int32)",
        "firms_managed": "Int64",
        "firm_shares": "Int64",
        "prisoners": "Int32",
    },
}


def test_the_frames_schema_is_fixed(played):
    _, _, res, _ = played
    for name, frame in res.frames().items():
        assert {k: str(v) for k, v in frame.schema.items()} == SCHEMA[name], name
        assert list(frame.columns) == list(SCHEMA[name]), name


def test_frames_are_sorted_by_their_keys(played):
    """docs/guide.md: "All frames are long format, sorted by their keys" (rounds are recorded round by round)."""
    _, _, res, _ = played
    for name, keys in zip(FRAMES, SORT_KEYS, strict=True):
        frame = res.frames()[name]
        assert frame.equals(frame.sort(keys)), name
    assert res.rounds["round"].head(2).to_list() == [1, 2]


def test_frames_are_sorted_by_their_keys_whatever_the_order_of_the_batches():
    """Batches joined out of order, each with its games out of order, give the frames of one batch in order: sorted
    by game, round and seat, row for row."""
    rules = Rules.default(4)
    seats = engine.resolve_strategies(rules, ["balanced", "random", "balanced", "random"])
    batches = [engine.play_batch(rules, seats, SEED, np.array(ids, dtype=np.int64))[1] for ids in
               ([9, 7, 8], [3, 0, 2, 1], [6, 4, 5])]  # fmt: skip
    joined = Results.from_batches(batches, {}).frames()
    whole = Results.from_batches([engine.play_batch(rules, seats, SEED, np.arange(10))[1]], {}).frames()
    for name, keys in zip(FRAMES, SORT_KEYS, strict=True):
        assert joined[name]["game"].n_unique() == 10 and joined[name].equals(joined[name].sort(keys)), name
        assert joined[name].equals(whole[name]), name


def test_a_single_game_batch_records_its_rounds_and_banked_vp():
    """A batch of one game records every round it played; vp_banked counts luxuries (2 VP) and honourable
    retirements at their tier's VP, per game."""
    res = sim.play(Rules.default(4), "balanced", 1, seed=3)
    assert res.rounds.height == res.games["end_round"][0] and res.seat_rounds.height == 4 * res.rounds.height
    r, s = blank(2, 4)
    s.luxuries[0, 1] = 1
    s.retired[0, 1, 2] = 1  # tier 2: 4 VP
    s.retired[1, 3, 4] = 2  # tier 4: 12 VP each
    rec = Recorder(r, 0, np.array([["balanced"] * 4] * 2))
    rec.round(s, 1, np.array([True, True]))
    banked = rec.seat_rounds[0]["vp_banked"].tolist()
    assert banked == [0, 6, 0, 0, 0, 0, 0, 24]
