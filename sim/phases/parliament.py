"""Phase 9, Parliament (R-PARLIAMENT, D-POLICY, D-LAWS; seed 000 L222-L241).

The family holding the Prime Minister draws laws one at a time, up to ``parliament.max_laws``; after each draw
(the first included) it may stop and table one of the laws drawn, and after the last it must (L222). A dilemma
ends the draw: it must be tabled (2e). "Old Ideas Made New!" has the PM table a law from the discard pile instead
(with an empty discard pile it is shuffled back and another law drawn). On tabling, the PM picks one of the two
policies of the law's type nearest the track's position, one in each direction of the cycle (L224).

Then, at the "vote" deal moment (D-DEALS), families may sell notes; then every family votes at once (sealed):
for, against or not at all, with its property votes (shipyard 1, factory 3; L239), votes bought for £ (1 £ = 1
vote) and the property votes of notes of kind 4 it holds. Net = public support + for - against.

- Net >= 0 passes (L240): the PM's family gains a wreath and keeps the seat; the track moves to the policy and
  the policy applies (D-POLICY, ``sim.laws.apply_policy``), then the law's effects; a lasting law stays in force.
- Net <= -1 fails (L241): the family that cast most votes against (not the PM) becomes PM; a tie is decided by the
  old PM; the new PM picks a policy next to the failed one (either side) and applies it; the law's failure
  effects follow and it goes to the discard pile.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from .. import firms as fr
from .. import kernels, laws, ledger, notes, trace
from .. import layout as L
from .. import positions as pos
from ..agents import Agents
from ..dice import Chance
from ..reduce import any_last, sum_last
from ..rules import Rules
from ..state import TALLY, State


def parliament(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    """Phase 9 in every running game with a Prime Minister."""
    live = ~state.done & (state.prime_minister >= 0)
    if not live.any():
        return
    law, policy = draw_and_table(state, rules, dice, agents, live)
    rows = live & (law >= 0)
    if not rows.any():
        return
    d = rules.d
    old_pm = state.prime_minister.astype(np.int64)
    impeach = name_impeachment(state, rules, agents, np.where(rows & d.law_impeach[np.maximum(law, 0)], old_pm, -1))
    support = np.where(rows, d.law_support[np.maximum(law, 0)], 0)
    topic = {"law": law, "policy": policy, "support": support}
    notes.deal(state, rules, dice, agents, "vote", rows, topic)
    must_for = np.full(state.n_games, rules.parliament.pm_votes == "for")
    vote = hold_vote(state, rules, agents, rows, support, law, policy, must_for)
    state.tally[:, TALLY["laws_tabled"]] += rows
    passed, failed = rows & vote.passed, rows & ~vote.passed

    # passed (L240): a wreath, the seat kept, the policy applied, then the law's effects
    won = np.flatnonzero(passed)
    state.wreaths[won, old_pm[won]] += 1
    state.tally[passed, TALLY["laws_passed"]] += 1
    state.law_passed[won, law[won]] = True
    moved = passed & (policy >= 0)
    state.policy[moved] = policy[moved]
    laws.apply_policy(state, rules, np.where(passed, policy, -1), passed)
    ctx = SimpleNamespace(pm=old_pm, policy=policy, impeach=impeach)
    laws.apply_effects(state, rules, dice, agents, law, passed, "on_pass", ctx)
    laws.enact(state, rules, law, passed)

    # failed (L241): the leader of the opposition becomes PM and applies a policy next to the failed one
    if failed.any():
        new_pm = opposition_leader(state, rules, dice, agents, failed, vote.against, old_pm)
        state.prime_minister[failed] = new_pm[failed].astype(np.int8)
        changed = failed & (new_pm != old_pm)
        state.tally[changed, TALLY["pm_changed"]] = 1
        around = np.where(policy >= 0, policy, state.policy)
        applied = choose_policy(state, agents, failed, new_pm, laws.neighbours(rules, around))
        state.policy[failed] = applied[failed].astype(np.int8)
        laws.apply_policy(state, rules, np.where(failed, applied, -1), failed)
        ctx = SimpleNamespace(pm=new_pm, policy=applied, impeach=impeach)
        laws.apply_effects(state, rules, dice, agents, law, failed, "on_fail", ctx)
        idx = np.flatnonzero(failed)
        state.law_pile[idx, law[idx]] = laws.DISCARD
    after_recall(state, rules, dice, rows, law)


# ---------------------------------------------------------------------------------------------------- drawing
def draw_and_table(
    state: State, rules: Rules, dice: Chance, agents: Agents, live: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The PM draws and tables (decision ``table_law``). Returns int[G] the tabled law and int[G] the policy the
    PM chose for it (-1: none). Laws drawn and not tabled go to the discard pile."""
    d = rules.d
    g, n_laws = state.n_games, len(d.law_names)
    pa = rules.parliament
    law = np.full(g, -1, dtype=np.int64)
    policy = np.full(g, -1, dtype=np.int64)
    counted = np.zeros(g, dtype=np.int64)
    active = live.copy()
    self_recall = np.zeros(g, dtype=bool)  # "Old Ideas Made New!" was drawn and tabled a law from the discard
    options = laws.all_policy_options(rules, state.policy)  # [G, LAWS, 2]: the track does not move while drawing
    for _ in range(pa.max_laws + n_laws):  # recalls with an empty discard pile do not count towards max_laws
        if not active.any():
            break
        top = laws.draw(state, dice, active)
        active &= top >= 0
        idx = np.flatnonzero(active)  # the games drawing this turn: the rest is left as it is
        if idx.size == 0:
            break
        t = top[idx]
        candidates = np.zeros((g, n_laws), dtype=bool)
        can_draw = np.zeros(g, dtype=bool)
        asked = np.zeros(g, dtype=bool)
        recall, empty_recall = table_options(rules, state.law_pile, idx, t, counted, candidates, can_draw, asked)
        if empty_recall.any():  # ignore it: shuffle it back into the deck and draw another
            shuffled = np.zeros(g, dtype=bool)
            shuffled[idx[empty_recall]] = True
            back = np.zeros(state.law_pile.shape, dtype=bool)
            back[idx[empty_recall], t[empty_recall]] = True
            laws.reshuffle(state, dice, shuffled, back)
        asking = ~empty_recall
        pick, side = ask_table(state, agents, asked, candidates, can_draw, options)
        tabled = asking & (pick[idx] >= 0)
        rows, tab = idx[tabled], pick[idx[tabled]]
        law[rows] = tab
        policy[rows] = options[rows, tab, np.clip(side[rows], 0, 1)]
        self_recall[rows[recall[tabled]]] = True
        state.law_pile[rows, tab] = laws.DRAWN
        active[rows] = False
    # drawn and not tabled: discarded (an "Old Ideas" card waits to be shuffled back after the vote)
    drawn = state.law_pile == laws.DRAWN
    keep = (np.arange(n_laws)[None, :] == law[:, None]) | (self_recall[:, None] & d.law_recall[None, :])
    state.law_pile[drawn & ~keep & live[:, None]] = laws.DISCARD
    return law, policy


def table_options(
    rules: Rules,
    law_pile: np.ndarray,
    idx: np.ndarray,
    top: np.ndarray,
    counted: np.ndarray,
    candidates: np.ndarray,
    can_draw: np.ndarray,
    asked: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The question of ``table_law`` after games ``idx`` drew laws ``top`` (int[m]), from their piles as drawn
    (``law_pile``, int8[G, LAWS]); fills the full-batch ``candidates`` bool[G, LAWS], ``can_draw`` and ``asked``
    bool[G] (False where not asked) and counts the draw in ``counted`` int[G]. A recall ("Old Ideas Made New!")
    offers the discard pile but the recalls, a dilemma only itself, any other law the laws drawn; drawing on is
    allowed after none of these, below ``parliament.max_laws`` and while a law is left in the deck or the discard.
    A recall with an empty discard pile is not asked (nor counted). Returns (recall bool[m] a recall asked,
    empty bool[m] a recall with an empty discard pile)."""
    d = rules.d
    max_laws = rules.parliament.max_laws
    if kernels.use(idx.size):
        recall, empty = np.empty(idx.size, dtype=bool), np.empty(idx.size, dtype=bool)
        flags = d.law_recall, d.law_dilemma, max_laws
        _table_options_kernel(law_pile, idx, top, *flags, counted, candidates, can_draw, asked, recall, empty)
        return recall, empty
    pile = law_pile[idx]
    recall = d.law_recall[top]
    discard = pile == laws.DISCARD
    empty = recall & ~any_last(discard)
    recall &= ~empty
    asking = ~empty
    counted[idx] += asking
    dilemma = d.law_dilemma[top] & ~recall
    recallable = discard & ~d.law_recall[None, :]
    only_top = np.arange(pile.shape[1])[None, :] == top[:, None]
    drawn = pile == laws.DRAWN
    left = any_last((pile == laws.DECK) | discard)
    options = np.where(recall[:, None], recallable, np.where(dilemma[:, None], only_top, drawn))
    candidates[idx] = options & asking[:, None]
    can_draw[idx] = asking & ~recall & ~dilemma & (counted[idx] < max_laws) & left
    asked[idx] = asking
    return recall, empty


_DECK, _DISCARD, _DRAWN = laws.DECK, laws.DISCARD, laws.DRAWN  # constants for the kernel


@kernels.kernel
def _table_options_kernel(pile, idx, top, law_recall, law_dilemma, max_laws, counted, candidates, can_draw, asked,
                          recall, empty):  # fmt: skip
    """``table_options`` game by game of ``idx`` (the numpy reference's rule)."""
    for i in range(idx.size):
        g, t = idx[i], top[i]
        discard = False
        for j in range(pile.shape[1]):
            if pile[g, j] == _DISCARD:
                discard = True
        empty[i] = law_recall[t] and not discard
        recall[i] = law_recall[t] and discard
        if empty[i]:
            continue
        counted[g] += 1
        dilemma = law_dilemma[t] and not recall[i]
        left = False
        for j in range(pile.shape[1]):
            p = pile[g, j]
            if recall[i]:
                candidates[g, j] = p == _DISCARD and not law_recall[j]
            elif dilemma:
                candidates[g, j] = j == t
            else:
                candidates[g, j] = p == _DRAWN
            if p in (_DECK, _DISCARD):
                left = True
        can_draw[g] = not recall[i] and not dilemma and counted[g] < max_laws and left
        asked[g] = True


def ask_table(
    state: State,
    agents: Agents,
    asking: np.ndarray,
    candidates: np.ndarray,
    can_draw: np.ndarray,
    options: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Decision ``table_law`` of the PM: (law int[G], side int[G]) — a candidate law and the side (0 down, 1 up
    the track) of its policy (``options[G, LAWS, 2]``), or law -1 to draw another (only where ``can_draw``)."""
    g = state.n_games
    pick = np.full(g, -1, dtype=np.int64)
    side = np.zeros(g, dtype=np.int64)
    n_laws = candidates.shape[1]

    def check(answer, legal, obs):
        lw, sd = answer
        lc = np.clip(lw, 0, n_laws - 1)
        bad = (lw < -1) | (lw >= n_laws) | ((sd != 0) & (sd != 1))
        bad |= (lw == -1) & ~legal.can_draw
        bad |= (lw >= 0) & ~legal.candidates[np.arange(obs.n), lc]
        return bad, "table one of the candidate laws (side 0 or 1), or draw (-1) only while drawing is allowed"

    pm = np.where(asking, state.prime_minister, -1)
    legal = {"candidates": candidates, "can_draw": can_draw, "options": options}
    agents.ask("table_law", state, pm, legal, (pick, side), check)
    return np.where(asking, pick, -1), side


def after_recall(state: State, rules: Rules, dice: Chance, rows: np.ndarray, law: np.ndarray) -> None:
    """After an "Old Ideas Made New!" vote: the discard pile, the laws drawn this phase and the card itself are
    shuffled into the deck (2e)."""
    recalls = np.flatnonzero(rules.d.law_recall)
    hit = rows & any_last(state.law_pile[:, recalls] == laws.DRAWN)
    if hit.any():
        back = (state.law_pile == laws.DISCARD) | (state.law_pile == laws.DRAWN)
        laws.reshuffle(state, dice, hit, back)


# ------------------------------------------------------------------------------------------------ the vote
def property_votes(state: State, rules: Rules) -> np.ndarray:
    """int[G, N] a family's own votes from property (L239, L78-L79): shipyard 1, factory 3 (``property.*_votes``),
    and its permanent position cards' votes (D-POSITIONS). The one place property votes are counted, so a vote note
    (kind 4) hands over all of them."""
    pr = rules.property
    factories = fr.voting_factories(state, rules)  # L79, D-INVESTED-FACTORY
    return pr.shipyard_votes * state.shipyards + pr.factory_votes * factories + pos.permanent_votes(state, rules)


def vote_cost(state: State, rules: Rules) -> np.ndarray:
    """int[G] £ per vote bought (1 £ = 1 vote, L239; Masses Demand Franchise! raises it)."""
    return np.maximum(rules.parliament.vote_cost + laws.modifier(state, rules, "vote_cost"), 1)


def hold_vote(
    state: State,
    rules: Rules,
    agents: Agents,
    rows: np.ndarray,
    support: np.ndarray,
    law: np.ndarray,
    policy: np.ndarray,
    must_for: np.ndarray,
    deregulation: bool = False,
) -> SimpleNamespace:
    """Every family votes at once in games ``rows`` (decision ``vote``): side (+1 for, -1 against, 0 none), votes
    bought for £, and which held notes of kind 4 to use; the PM votes for where ``must_for``; then each family taking
    a side may play closed position cards that carry votes. A family's property votes all go to its side; a used
    note gives the issuer's property votes to the holder's side (the issuer then casts only the votes he bought).
    Returns net[G], passed[G] (net >= 0), votes for[G, N] and against[G, N]."""
    g, n = state.n_games, state.n_players
    prop = property_votes(state, rules)
    cost = vote_cost(state, rules)
    holder = state.note_holder[:, :, notes.VOTES].astype(np.int64)
    side = np.zeros((g, n), dtype=np.int64)
    bought = np.zeros((g, n), dtype=np.int64)
    use = np.zeros((g, n, n), dtype=bool)  # [G, holder, issuer]
    pm = state.prime_minister.astype(np.int64)
    issuers = np.arange(n)
    base = {
        "law": law,
        "policy": policy,
        "support": support,
        "deregulation": np.full(g, deregulation),
        "property": prop,
        "vote_cost": cost,
        "prime_minister": pm,
    }
    seats = np.arange(n)
    # the games where a family holds another's vote note: the only ones where a note can be used
    noted = np.flatnonzero(rows & any_last((holder >= 0) & (holder != issuers[None, :])))
    note_votes = np.zeros((g, n, n), dtype=bool)
    note_votes[noted] = (holder[noted, None, :] == seats[None, :, None]) & (issuers[None, :] != seats[:, None])

    def check(answer, legal, obs):
        sd, b, u = answer
        money = obs.own("money")
        bad = (sd < -1) | (sd > 1) | (legal.must_for & (sd != 1)) | (b < 0) | (b * legal.vote_cost > money)
        bad |= (sd == 0) & ((b > 0) | any_last(u))
        bad |= any_last(u & ~legal.notes)
        return bad, "side -1/0/1 (the PM for), votes bought within money, only held vote notes, none when abstaining"

    # sealed votes: nothing changes before every family has voted, so every seat is asked at once
    own = {"notes": note_votes, "must_for": must_for[:, None] & (pm[:, None] == seats[None, :])}
    asked = np.broadcast_to(rows[:, None], (g, n))
    agents.ask_seats("vote", state, asked, base, own, (side, bought, use), check)
    side = np.where(rows[:, None], side, 0)
    bought = np.where(side != 0, bought, 0)
    # the notes used (legal: held, so only in the games ``noted``), where the holder takes a side
    taken = np.zeros((g, n), dtype=bool)  # [G, issuer]: his property votes were used by a holder
    via_notes = np.zeros((g, n), dtype=prop.dtype)  # [G, holder]: the property votes his notes brought
    if noted.size:
        used = use[noted] & (side[noted] != 0)[:, :, None]
        taken[noted] = used.any(axis=1)
        via_notes[noted] = sum(used[:, :, i] * prop[noted, i, None] for i in range(n))  # explicit adds: tiny axis
    # closed position cards with votes are played once the sides are known (D-POSITIONS, moment "parliament")
    cards = pos.play_cards(state, rules, agents, "parliament", {"deregulation": np.full(g, deregulation)}, side != 0)
    total = np.where(taken, 0, prop) + via_notes + bought + cards.votes
    total = np.where(side != 0, total, 0)
    votes_for = np.where(side > 0, total, 0)
    against = np.where(side < 0, total, 0)
    net = support + sum_last(votes_for) - sum_last(against)
    ledger.families(state, "votes", -(bought * cost[:, None]))
    state.tally[:, TALLY["votes_bought"]] += sum_last(bought).astype(np.int32)
    if noted.size:  # elsewhere no note was used
        mask = np.zeros(state.note_holder.shape, dtype=bool)
        mask[:, :, notes.VOTES] = taken
        notes.used(state, rules, mask)
    if trace.recorder is not None:
        trace.recorder.vote(state, rows, law, support, votes_for, against, deregulation)
    return SimpleNamespace(net=net, passed=rows & (net >= 0), votes_for=votes_for, against=against)


# ---------------------------------------------------------------------------------------------- the outcome
def opposition_leader(
    state: State,
    rules: Rules,
    dice: Chance,
    agents: Agents,
    rows: np.ndarray,
    against: np.ndarray,
    old_pm: np.ndarray,
) -> np.ndarray:
    """int[G] the new PM where a law failed (L241): the family with most votes against, not the PM; a tie is the
    old PM's choice (decision ``choose_prime_minister``). Nobody against: ``parliament.no_opposition``."""
    g, n = state.n_games, state.n_players
    seats = np.arange(n)[None, :]
    votes = np.where(seats == old_pm[:, None], -1, against)
    top = votes.max(axis=1)
    tied = (votes == top[:, None]) & (votes >= 0)
    nobody = rows & (top <= 0)
    if rules.parliament.no_opposition == "pm_keeps":
        tied &= ~nobody[:, None]
    count = sum_last(tied)
    new = np.where(count == 1, tied.argmax(axis=1), old_pm)
    choose = rows & (count > 1)
    if choose.any():
        pick = np.full(g, -1, dtype=np.int64)

        def check(seat, legal, obs):
            sc = np.clip(seat, 0, obs.players - 1)
            return (seat < 0) | (seat >= obs.players) | ~legal.tied[np.arange(obs.n), sc], "not one of the tied"

        agents.ask("choose_prime_minister", state, np.where(choose, old_pm, -1), {"tied": tied}, (pick,), check)
        new = np.where(choose, pick, new)
    return np.where(rows, new, old_pm)


def choose_policy(
    state: State, agents: Agents, rows: np.ndarray, chooser: np.ndarray, options: np.ndarray
) -> np.ndarray:
    """int[G]: the policy ``chooser`` picks among ``options[G, 2]`` (decision ``choose_policy``, 0 or 1)."""
    g = state.n_games
    side = np.zeros(g, dtype=np.int64)

    def check(s, legal, obs):
        return (s != 0) & (s != 1), "0 (down the track) or 1 (up)"

    agents.ask("choose_policy", state, np.where(rows, chooser, -1), {"options": options}, (side,), check)
    return options[np.arange(g), np.clip(side, 0, 1)]


def name_impeachment(state: State, rules: Rules, agents: Agents, pm: np.ndarray) -> np.ndarray:
    """Public Demands Impeachment! (2e: "first, the PM picks one officeholder"): decision ``impeach`` of the PM,
    an office index among the held ones (-1 only when none is held). Returns int[G] (-1 none)."""
    g = state.n_games
    office = np.full(g, -1, dtype=np.int64)
    if not (pm >= 0).any():  # no impeachment tabled
        return office
    held = state.office >= 0
    pm = np.where(any_last(held), pm, -1)
    if (pm >= 0).any():

        def check(o, legal, obs):
            oc = np.clip(o, 0, L.N_OFFICES - 1)
            return (o < 0) | (o >= L.N_OFFICES) | ~legal.held[np.arange(obs.n), oc], "not a held office"

        agents.ask("impeach", state, pm, {"held": held}, (office,), check)
    return np.where(pm >= 0, office, -1)
