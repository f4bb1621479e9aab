"""Invariants over thousands of random games, checked after every phase of every round."""

import numpy as np
import polars as pl
import pytest
from helpers import games as n_games

import sim
from sim import laws, ledger
from sim import layout as L
from sim import positions as pos
from sim.agents import Agents
from sim.dice import Dice, Streams
from sim.engine import begin_round, end_round, resolve_strategies
from sim.phases import ROUND
from sim.phases.deregulation import start_of_round
from sim.phases.end import end_game
from sim.phases.setup import setup
from sim.results import PEOPLE
from sim.rules import Rules
from sim.state import new_state


def check(state, rules, where):
    """Every invariant the issue lists, on every game of the batch."""
    assert (state.relatives() == rules.game.family_size).all(), f"relatives not conserved after {where}"
    assert (state.supply >= 0).all() and (state.clerks >= 0).all() and (state.officers >= 0).all(), where
    assert ledger.balanced(state).all(), f"ledger does not balance after {where}"
    assert (state.money >= 0).all(), f"negative family money after {where}"
    assert (state.treasury >= 0).all() and (state.balance >= 0).all(), f"negative Company money after {where}"
    assert ((state.stability >= 0) & (state.stability <= rules.company.max_stability)).all(), where
    assert (state.crashed == (state.stability == 0)).all(), f"crashed <=> stability 0 broken after {where}"
    assert (state.loans >= 0).all() and (state.regiments >= 0).all() and (state.ships >= 0).all(), where
    assert (state.yard_ships.sum(axis=2) <= state.shipyards).all(), f"more yard ships than yards after {where}"
    assert ((state.office >= -1) & (state.office < state.n_players)).all(), where
    # the office-holder invariants that can fail (the old `held >= 0` was a count, always true)
    assert (state.china_open | (state.office[:, L.CHINA] < 0)).all(), f"China manager while closed after {where}"
    assert ((state.governor < 0) | (state.owner >= 0)).all(), f"a governor of a sovereign region after {where}"
    oversight = laws.flag(state, rules, "military_oversight")  # the PM may seat a commander without a majority
    for army in range(L.PRESIDENCIES):  # R-COMMANDER: the commander is a family with the most officers there
        off = state.officers[:, :, army]
        cmd = state.commander[:, army]
        top = off.max(axis=1)
        assert ((cmd >= 0) == (top > 0)).all(), f"army {army} without a commander (or one without officers) {where}"
        led = off[np.arange(state.n_games), np.maximum(cmd, 0)]
        assert ((cmd < 0) | (led >= 1)).all(), f"army {army} commanded by a family without officers there {where}"
        assert ((cmd < 0) | (led == top) | oversight).all(), f"army {army}: a commander without the most {where}"
    check_india(state, rules, where)
    check_politics(state, rules, where)
    check_wealth_positions_and_markers(state, rules, where)
    check_firms(state, rules, where)
    check_stability_causes(state, where)


def check_stability_causes(state, where, start=None):
    """the round's stability causes are signed (losses <= 0, gains >= 0) and add up to its
    stability_change; with ``start`` (stability at the start of the round), that change is the real one."""
    from sim.state import STABILITY_CAUSES, TALLY

    t = state.tally.astype(np.int64)
    causes = np.stack([t[:, TALLY[c]] for c in STABILITY_CAUSES], axis=1)
    assert (causes.sum(axis=1) == t[:, TALLY["stability_change"]]).all(), f"stability causes do not add up ({where})"
    gains = np.array(["gain" in c for c in STABILITY_CAUSES])
    assert (causes[:, gains] >= 0).all() and (causes[:, ~gains] <= 0).all(), f"a cause has the wrong sign ({where})"
    if start is not None:
        change = state.stability.astype(np.int64) - start
        assert (change == t[:, TALLY["stability_change"]]).all(), f"stability_change misses a change ({where})"


def check_india(state, rules, where):
    """Phase 8: damage, used troops, empires, the crisis marker and the tile stack stay consistent."""
    n_r, k = len(rules.d.regions), len(rules.d.tile_kind)
    assert ((state.yard_damaged >= 0) & (state.yard_damaged <= state.yard_ships)).all(), f"damage after {where}"
    assert ((state.used_officers >= 0) & (state.used_officers <= state.officers)).all(), f"used after {where}"
    assert ((state.used_regiments >= 0) & (state.used_regiments <= state.regiments)).all(), f"used after {where}"
    assert (state.strength >= 0).all() and (state.unrest >= 0).all(), where
    company = state.owner >= 0
    assert (state.strength[company] == 0).all(), f"a Company region with strength after {where}"
    own = np.arange(n_r)[None, :]
    cap = state.capital.astype(np.int64)
    assert (cap[company] == own.repeat(state.n_games, 0)[company]).all(), f"a Company region in an empire ({where})"
    ruler = np.take_along_axis(cap, cap, axis=1)  # the capital of every region's capital is itself
    assert (ruler == cap).all(), f"an empire ruled from a dominated region after {where}"
    ruler_owner = np.take_along_axis(state.owner, cap, axis=1)
    assert (ruler_owner[cap != own] < 0).all(), f"an empire ruled from a Company region after {where}"
    capitals = np.zeros((state.n_games, n_r), dtype=bool)
    g_idx, r_idx = np.nonzero(cap != own)
    capitals[g_idx, cap[g_idx, r_idx]] = True
    assert (capitals.sum(axis=1) <= max(rules.india.max_empires, 1)).all(), f"too many empires after {where}"
    at, facing = state.elephant_at.astype(np.int64), state.elephant_facing.astype(np.int64)
    assert ((at >= 0) & (at < n_r) & (facing >= -1) & (facing < n_r) & (facing != at)).all(), where
    inward = np.flatnonzero(facing < 0)
    assert (state.owner[inward, at[inward]] >= 0).all(), f"the crisis marker inside a sovereign region ({where})"
    dealt = state.event_cursor >= 0
    assert (state.event_cursor < k).all(), where
    assert (np.sort(state.event_stack, axis=1) == np.arange(k)).all(), f"the tile stack lost a tile after {where}"
    nxt = rules.d.tile_region[state.event_stack[np.arange(state.n_games), np.maximum(state.event_cursor, 0)]]
    assert (np.where(dealt, nxt, -1) == state.event_next).all(), f"event_next is not the next tile's back ({where})"


def check_events(state, rules, running):
    """Phase 8 drew as many events as the storm table says for its face (fewer only where the Company crashed in
    this phase), each of one kind."""
    from sim.state import TALLY

    t = state.tally
    storm, events = t[:, TALLY["storm"]], t[:, TALLY["events"]]
    assert ((storm >= 1) == running).all(), "the storm die was not rolled in every running game"
    table = rules.d.storm_events[np.clip(storm - 1, 0, 5)]
    through = running & ~state.done
    assert (events[through] == table[through]).all(), "events drawn do not follow the storm table"
    assert (events[running] <= table[running]).all() and (events[~running] == 0).all()
    kinds = sum(t[:, TALLY[f"events_{k}"]] for k in ("crisis", "leader", "turmoil", "windfall", "peace", "shuffle",
                                                    "invasion"))  # fmt: skip
    assert (kinds == events).all()


def check_politics(state, rules, where):
    """the policy track, the ladder, the PM, wreaths, the law deck, notes, Deregulation."""
    d, n = rules.d, state.n_players
    assert ((state.policy >= 0) & (state.policy < len(rules.parliament.policies))).all(), where
    assert (np.sort(state.ladder, axis=1) == np.sort(d.ladder0)).all(), f"ladder is not a permutation after {where}"
    assert ((state.prime_minister >= -1) & (state.prime_minister < n)).all(), where
    assert (state.wreaths >= 0).all(), where
    co = rules.company
    assert ((state.share_vp >= co.share_vp_min) & (state.share_vp <= co.share_vp_max)).all(), where
    pile = state.law_pile
    assert ((pile >= laws.DECK) & (pile <= laws.IN_FORCE)).all(), f"a law left drawn or lost after {where}"
    assert not (pile == laws.IN_FORCE)[:, ~d.law_lasting].any(), f"a non-lasting law in force after {where}"
    assert (state.law_rank[(pile == laws.DECK) & (state.law_rank >= 0).any(axis=1)[:, None]] >= 0).all(), where
    assert ((state.note_holder >= -1) & (state.note_holder < n)).all(), where
    assert (state.deregulated == (state.dereg_round > 0)).all(), where
    gg = state.office[:, L.GOVERNOR_GENERAL] >= 0
    assert not (gg & ~laws.flag(state, rules, "governor_general")).any(), f"a Governor-General without law, {where}"


def check_wealth_positions_and_markers(state, rules, where):
    """conspicuous wealth is the sum of its sources; every position card is in exactly one place; stress
    markers sit on held offices; half-built ships belong to a sitting governor; retirees are counted."""
    d = rules.d
    wealth = (
        rules.actions.luxury_wealth * state.luxuries
        + (state.retired * d.tier_wealth).sum(axis=2)
        + pos.wealth(state, rules)
    )
    assert (state.wealth == wealth).all(), f"wealth is not the sum of its sources after {where}"
    n_cards = state.deck.shape[1]
    in_deck = np.zeros(state.card_owner.shape, dtype=int)
    rows, cols = np.nonzero(np.arange(n_cards)[None, :] >= state.deck_top[:, None])
    np.add.at(in_deck, (rows, state.deck[rows, cols].astype(int)), 1)
    on_display = np.zeros_like(in_deck)
    rows, cols = np.nonzero(state.market >= 0)
    np.add.at(on_display, (rows, state.market[rows, cols].astype(int)), 1)
    places = in_deck + on_display + (state.card_owner >= 0)
    assert (places == 1).all(), f"a position card is in no place or in two after {where}"
    assert (np.sort(state.deck, axis=1) == np.arange(n_cards)).all(), f"the deck is not a permutation after {where}"
    assert not (state.card_played & ((state.card_owner < 0) | d.card_permanent)).any(), where
    assert ((state.stress >= 0) & ((state.office >= 0) | (state.stress == 0))).all(), f"stray stress after {where}"
    assert ((state.half_ships >= 0) & (state.half_ships <= 1)).all(), where
    assert ((state.gg_half_ship >= 0) & (state.gg_half_ship <= 1)).all(), where
    if not rules.governors.half_ship_inherited:
        assert not ((state.half_ships > 0) & (state.governor < 0)).any(), f"a half ship without governor: {where}"
    assert (state.retired >= 0).all() and (state.emergency_total >= 0).all(), where


def check_firms(state, rules, where):
    """firm slots are consistent (a free slot holds nothing), each family manages at most one firm, shares
    and values stay in range, yards hold at most one ship each, damage within the fleet, money non-negative, no
    firm before Deregulation."""
    fi = rules.firms
    n = state.n_players
    open_ = state.firm_manager >= 0
    assert ((state.firm_manager >= -1) & (state.firm_manager < n)).all(), where
    managed = (state.firm_manager[:, :, None] == np.arange(n)).sum(axis=1)
    assert (managed <= 1).all(), f"a family manages two firms after {where}"
    holders = state.firm_shares.sum(axis=2)
    assert (state.firm_shares >= 0).all() and (holders <= fi.max_shareholders).all(), f"shares after {where}"
    assert ((state.firm_value >= 1) & (state.firm_value <= fi.max_value))[open_].all(), f"firm value after {where}"
    closed = ~open_
    for field in ("firm_value", "firm_cash", "firm_india", "firm_dividend", "firm_carry", "firm_bid"):
        assert (getattr(state, field)[closed] == 0).all(), f"a free slot holds {field} after {where}"
    assert (holders[closed] == 0).all() and (state.firm_ships.sum(axis=2)[closed] == 0).all(), where
    assert ((state.firm_cash >= 0) & (state.firm_india >= 0)).all(), f"negative firm money after {where}"
    if fi.variant == "house":
        assert (state.firm_india == 0).all(), f"an India treasury in the house rules after {where}"
    assert ((state.firm_damaged >= 0) & (state.firm_damaged <= state.firm_ships)).all(), f"firm damage, {where}"
    use = state.yard_ships.sum(axis=2) + state.firm_ships.sum(axis=1)
    assert (use <= state.shipyards).all(), f"more ships than shipyards after {where}"
    assert not (open_.any(axis=1) & ~state.deregulated).any(), f"a firm before Deregulation after {where}"
    assert ((state.firm_sea >= -1) & (state.firm_sea < L.PRESIDENCIES)).all(), where
    assert (state.firm_fresh >= 0).all(), f"fresh shares after {where}"  # (a board member may become Chairman)
    assert (state.prisoners >= 0).all() and (state.factories >= 0).all() and (state.shares >= 0).all(), where


class CountingAgents(Agents):
    """Agents that count, per decision, the games it was asked in, or the seats for a decision asked of the seats at
    once (to show every path of the rules is reached)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.asked: dict[str, int] = {}

    def _count(self, decision, asked):  # every seat asked, by ``ask`` or at once by ``ask_seats``
        self.asked[decision] = self.asked.get(decision, 0) + int(np.asarray(asked).sum())
        super()._count(decision, asked)


def play_checked(rules, strategy, n_games, seed):
    ids = np.arange(n_games)
    streams = Streams(seed, ids, 1 + rules.players)
    dice = Dice(streams)
    agents = CountingAgents(resolve_strategies(rules, strategy), rules, streams)
    state = new_state(rules, ids)
    agents.filled = np.zeros(L.N_OFFICES, dtype=np.int64)  # offices filled in phase 5, summed over games
    setup(state, rules, dice, agents)
    check(state, rules, "setup")
    assert (state.capital_money.sum(axis=1) == rules.budget).all(), "starting capital must sum to B"
    for rnd in range(1, rules.game.rounds + 1):
        begin_round(state)
        start_of_round(state, rules)
        check(state, rules, f"round {rnd} start")
        round_start = state.stability.astype(np.int64)  # every change of the round is in its tallies
        for _, name, phase, _ in ROUND:
            finished = np.flatnonzero(state.done)
            frozen = state.take(finished)
            running = ~state.done
            vacant = state.office < 0
            phase(state, rules, dice, agents)
            if name == "appointments":
                agents.filled += (vacant & (state.office >= 0)).sum(axis=0)
            check(state, rules, f"round {rnd} {name}")
            check_stability_causes(state, f"round {rnd} {name}", round_start)
            if name == "india":
                check_events(state, rules, running)
            after = state.take(finished)
            for field in ("money", "stability", "office", "shares", "balance", "order_open"):
                assert np.array_equal(getattr(frozen, field), getattr(after, field)), f"{name} changed a done game"
        end_round(state, rules)
    end_game(state, rules, dice, agents)
    check(state, rules, "end")
    play_checked.agents = agents  # what was asked and filled, for the coverage asserts
    return state


@pytest.mark.parametrize("strategy", ["random", "balanced"])
def test_invariants_over_2000_games(strategy):
    rules = Rules.default(5)
    state = play_checked(rules, strategy, n_games(2000, 200), seed=11)
    assert state.done.all()
    assert ((state.end_round >= 1) & (state.end_round <= rules.game.rounds)).all()
    # games end by a crash or after round 7, and both happen
    assert (state.crashed | (state.end_round == rules.game.rounds)).all()
    if strategy == "balanced":
        assert 0 < state.crashed.mean() < 1
    # offices turn over. Every decision of phases 1 and 10 is reached, the Chairman is elected (with and
    # without a majority) and every office is filled in phase 5 (the Governor-General's once its law passed)
    agents = play_checked.agents
    reached = ["retire", "take_position", "play_position", "keep_retirees", "vote_chairman", "choose_chairman"]
    assert all(agents.asked.get(decision, 0) > 0 for decision in reached), agents.asked
    assert (agents.filled[: L.CHINA] > 0).all(), agents.filled
    if strategy == "random":  # the balanced Director never opens China (no opium is controlled)
        assert agents.filled[L.CHINA] > 0 and agents.asked.get("rank_position_takers", 0) > 0, agents.asked
        assert agents.filled[L.GOVERNOR_GENERAL] > 0, agents.filled  # the law passes, the Chairman appoints


@pytest.mark.usefixtures("engine_path")  # 400 games: below kernels.MIN_GAMES, the numpy reference unless marked
@pytest.mark.parametrize("players", [4, 6])
def test_invariants_other_player_counts(players):
    rules = Rules.default(players)
    for strategy in ("random", "balanced"):
        play_checked(rules, strategy, n_games(400, 60), seed=players)


def test_frames_hold_the_invariants():
    rules = Rules.default(5)
    n = n_games(1000, 150)
    res = sim.play(rules, ["random", "balanced", "random", "balanced", "balanced"], n, seed=5)
    seats, games, rounds, seat_rounds = res.seats, res.games, res.rounds, res.seat_rounds
    sources = [c for c in seats.columns if c.startswith("vp_")]
    assert len(sources) == 8
    assert (
        seats["vp"] - seats.select(pl.sum_horizontal(sources)).to_series()
    ).abs().max() < 1e-9  # vp == sum of sources
    assert seats.group_by("game").agg(pl.col("starting_capital").sum())["starting_capital"].eq(30).all()
    assert rounds["stability"].is_between(0, 7).all()
    # crashed <=> stability reached 0: a crashed game's last round is at 0 and no earlier round is
    last = rounds.group_by("game").agg(pl.col("stability").last(), pl.col("round").max())
    joined = games.join(last, on="game", suffix="_last")
    assert (joined["crashed"] == (joined["stability_last"] == 0)).all()
    assert (joined["end_round"] == joined["round"]).all()
    assert rounds.filter(pl.col("stability") == 0).height == games["crashed"].sum()
    assert seat_rounds.select(pl.sum_horizontal(PEOPLE)).to_series().eq(12).all()
    assert (seat_rounds["money"] >= 0).all()
    assert games.height == n and seats.height == 5 * n
    assert (games["winner_seat"] >= 0).all()


@pytest.mark.usefixtures("engine_path")  # 400 games: below kernels.MIN_GAMES, the numpy reference unless marked
@pytest.mark.parametrize(
    "overrides",
    [
        {"deregulation.forced_round": 2, "notes.after_use": "spent", "parliament.no_opposition": "old_pm_picks"},
        {
            "parliament.unpaid_tax": "forgiven",
            "deregulation.pm_wreath": "always",
            "governor_general.company_income": 3,
            "notes.deal_moments": ["vote"],
            "parliament.pm_votes": "free",
        },
    ],
)
def test_invariants_politics_keys(overrides):
    """the keys switched away from their defaults keep every invariant (random play exercises every path)."""
    rules = Rules.default(5).with_overrides(overrides)
    for strategy in ("random", "balanced"):
        play_checked(rules, strategy, 400, seed=21)


# ------------------------------------------------------------------------------------ private firms
FIRM_DECISIONS = [
    "open_firm", "invest_in_firms", "consent_investment", "take_over_firm", "approve_manager", "propose_merger",
    "consent_merger", "firm_ships", "consent_yard", "firm_strategy", "order_traders", "firm_trade",
    "emergency_invest", "waive_dividends", "firm_dividends",
]  # fmt: skip


def check_final_vp(state, rules):
    """VP sums: firm shares score their firm's value (jc2e: truncated), prisoners -1 each; blame 6 cancels both."""
    from sim import firms as fr

    blame6 = state.crashed & (state.blame == 5)
    per = fr.vp_per_share(rules)[state.firm_value.astype(int)]
    expect = (state.firm_shares * per[:, :, None]).sum(axis=1)
    if rules.firms.variant == "jc2e":
        expect = np.trunc(expect)
    expect[blame6] = 0
    prison = np.where(blame6[:, None], 0, rules.firms.prison_vp * state.prisoners)
    v = {name: i for i, name in enumerate(L.VP_SOURCES)}
    assert np.allclose(state.vp[:, :, v["firm_shares"]], expect), "firm-share VP is not shares x value VP"
    assert np.array_equal(state.vp[:, :, v["debtors_prison"]], prison), "prison VP is not -1 per prisoner"


FIRMS_FRIENDLY = {"company.start_stability": 7, "firms.open_min_stability": 0, "firms.open_max_debt": 20}


@pytest.mark.parametrize("variant", ["house", "jc2e"])
@pytest.mark.parametrize("friendly", [False, True])
def test_invariants_firms_2000_random_games(variant, friendly):
    """2,000 random games with Deregulation forced at the start of round 2 (firms from round 3) keep every
    invariant after every phase in both variants; with the Company kept alive longer (``FIRMS_FRIENDLY``) random
    play reaches every firm decision, and bankruptcies fill debtors' prison."""
    over = {"deregulation.forced_round": 2, "firms.variant": variant}
    if friendly:
        over |= FIRMS_FRIENDLY
    rules = Rules.default(5).with_overrides(over)
    state = play_checked(rules, "random", 2000, seed=31)
    check_final_vp(state, rules)
    if friendly:
        asked = play_checked.agents.asked
        jc2e_only = ["consent_waivers", "rescue_firm", "dissolve_firm", "consent_dissolution"]
        reached = FIRM_DECISIONS + (jc2e_only if variant == "jc2e" else [])
        assert all(asked.get(d, 0) > 0 for d in reached), {d: asked.get(d, 0) for d in reached}
        assert state.prisoners.sum() > 0 and (state.firm_manager >= 0).any()


@pytest.mark.parametrize("variant", ["house", "jc2e"])
def test_invariants_firms_balanced(variant):
    """balanced play with Deregulation forced in round 2 opens firms that trade and pay dividends."""
    rules = Rules.default(5).with_overrides({"deregulation.forced_round": 2, "firms.variant": variant})
    state = play_checked(rules, "balanced", 1000, seed=32)
    check_final_vp(state, rules)
    asked = play_checked.agents.asked
    assert all(asked.get(d, 0) > 0 for d in ("open_firm", "firm_trade", "firm_dividends", "firm_ships")), asked


# ------------------------------------------------------------------------------------------ archetypes
def test_invariants_archetypes():
    """The four archetypes with balanced (and random at 6 players) keep every invariant after every phase, at 4, 5
    and 6 players; their conquests and firms are reached."""
    names = ["bid_low", "buy_shares", "run_firm", "go_military", "balanced", "random"]
    state = play_checked(Rules.default(5), names[:5], 1000, seed=41)
    assert state.done.all() and (state.trophies.sum(axis=1) > 0).mean() > 0.2
    assert play_checked.agents.asked.get("open_firm", 0) > 0 and play_checked.agents.asked.get("deploy", 0) > 0
    for players in (4, 6):
        play_checked(Rules.default(players), names[:players], 200, seed=40 + players)
