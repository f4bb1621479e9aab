"""Phase 7, income and accounts (R-ACCOUNTS, L191-L208).

Families collect income (firm ships earn their yards' owners too); firms settle (7.1, ``phases/firm_accounts.py``
``firm_accounts``); the Company pays 1 £ per ship, regiment, officer and
loan. Short of money the Chairman may invoke royal protection once per game (the unpaid rest of the costs is
cancelled), otherwise the Company takes emergency loans of ``loan_value`` £ each, past the maximum if need be; what
they raise beyond the costs burns. The Chairman may then pay dividends: one payout costs 1 £ per share (the chair
counts as one) and every share receives it. Stability: -1 per ``emergency_loans_per_loss`` emergency loans (taken
this round, or over the game: D-EMERGENCY ``stability.emergency_count``); then the expectation E(s) = 2s + 2
(D-EXPECT ``stability.compared``, L203-L208): "split" (default) loses 1 when the profit left after costs is below
E(s), and gains 1 per level whose expectation the dividends paid cover cumulatively; "dividends" / "profit" compare
that one amount for both. Stability 0 is the crash, and the game ends. Closed position cards of the "accounts"
moment are played first (D-POSITIONS).
"""

from __future__ import annotations

import numpy as np

from .. import firms as firm_rules
from .. import laws, ledger, trace
from .. import layout as L
from ..agents import Agents
from ..board import board_votes
from ..dice import Chance
from ..positions import play_cards
from ..reduce import sum_last
from ..rules import Rules
from ..state import TALLY, State
from .firm_accounts import firm_accounts


def accounts(state: State, rules: Rules, dice: Chance, agents: Agents) -> None:
    laws.company_levy(state, rules)  # Calico Acts
    play_cards(state, rules, agents, "accounts")  # D-POSITIONS
    family_income(state, rules)
    laws.retiree_income(state, rules)  # Inclosure Acts
    firm_accounts(state, rules, dice, agents)
    emergency = company_costs(state, rules, agents)
    paid = dividends(state, rules, agents)
    update_stability(state, rules, emergency, paid)


def family_income(state: State, rules: Rules) -> None:
    """Uninvested factories and family shipyards whose ships sail pay their owners (L191): the Company's ships and the
    firms' (L78: "ship of the Shipping Manager or a private firm")."""
    live = ~state.done[:, None]
    pr = rules.property
    ledger.families(state, "factory_income", np.where(live, state.factories * pr.factory_income, 0))
    sailing = sum_last(state.yard_ships) + firm_rules.yard_income_ships(state)  # firms' ships too
    ledger.families(state, "yard_income", np.where(live, sailing * pr.yard_ship_income, 0))


def costs_due(state: State, rules: Rules) -> np.ndarray:
    """int[G] the Company's costs this round (half-built ships cost nothing)."""
    c = rules.costs
    g = state.n_games
    ships = sum_last(state.ships.reshape(g, -1)) + sum_last(state.yard_ships.reshape(g, -1))
    regiment = np.maximum(c.regiment + laws.modifier(state, rules, "regiment_cost"), 0)  # Sepoy
    loan = np.maximum(c.loan + laws.modifier(state, rules, "loan_cost"), 0)  # Company Aids Government
    return (
        c.ship * ships
        + regiment * sum_last(state.regiments)
        + c.officer * sum_last(state.officers.reshape(g, -1))
        + loan * state.loans
    )


def company_costs(state: State, rules: Rules, agents: Agents) -> np.ndarray:
    """Pay the costs; returns int[G] emergency loans taken."""
    g = state.n_games
    live = ~state.done
    due = np.where(live, costs_due(state, rules), 0)
    short = live & (due > state.balance)
    protect = np.zeros(g, dtype=bool)
    chair = state.office[:, L.CHAIRMAN]
    can_protect = short & (state.royal_protection > 0) & (chair >= 0)
    if can_protect.any():
        agents.ask(
            "royal_protection",
            state,
            np.where(can_protect, chair, -1),
            {"shortfall": due - state.balance},
            (protect,),
        )
        protect &= can_protect
    state.royal_protection[...] -= protect.astype(np.int8)
    state.tally[:, TALLY["royal_protection"]] += protect
    # royal protection: pay what the balance holds, the rest is cancelled
    paid = np.where(protect, state.balance, due)
    value = rules.company.loan_value
    emergency = np.where(short & ~protect, -(-(due - state.balance) // value), 0)
    ledger.company(state, "emergency_loans", emergency * value)
    state.loans[...] += emergency.astype(np.int32)
    ledger.company(state, "company_costs", -paid)
    # emergency money beyond the costs burns
    ledger.company(state, "emergency_burned", -np.where(emergency > 0, state.balance, 0))
    state.tally[:, TALLY["company_costs"]] += paid.astype(np.int32)
    state.tally[:, TALLY["emergency_loans"]] += emergency.astype(np.int32)
    state.tally[:, TALLY["profit"]] = np.where(live, state.balance, state.tally[:, TALLY["profit"]])
    return emergency


def dividends(state: State, rules: Rules, agents: Agents) -> np.ndarray:
    """The Chairman declares k payouts of (shares incl. the chair) £; returns int[G] £ paid out."""
    g = state.n_games
    votes = board_votes(state)
    per_payout = sum_last(votes)
    max_payouts = np.where(per_payout > 0, state.balance // np.maximum(per_payout, 1), 0)
    chair = np.where(~state.done & (max_payouts > 0), state.office[:, L.CHAIRMAN], -1)
    k = np.zeros(g, dtype=np.int64)

    def check(k, legal, obs):
        return (k < 0) | (k > legal.max_payouts), "more payouts than the balance covers"

    agents.ask("pay_dividends", state, chair, {"max_payouts": max_payouts, "per_payout": per_payout}, (k,), check)
    k = np.where(chair >= 0, k, 0)
    paid = k * per_payout
    state.balance[...] -= paid.astype(np.int32)
    state.money[...] += (k[:, None] * votes).astype(np.int32)
    if trace.recorder is not None:
        trace.recorder.transfer(state, "dividends", ("company", -paid), ("seat", k[:, None] * votes))
    state.tally[:, TALLY["dividends"]] += paid.astype(np.int32)
    return paid


def stability_gain(
    rules: Rules, stability: np.ndarray, amount: np.ndarray, gain_amount: np.ndarray | None = None
) -> np.ndarray:
    """Change from the compared amounts (L206-L207): -1 when ``amount`` is below E(s); else +1 per level whose
    expectation ``gain_amount`` (default: ``amount``) covers cumulatively."""
    expect = rules.d.expect
    top = rules.company.max_stability
    s = np.clip(stability, 0, top).astype(np.int64)
    gain_amount = amount if gain_amount is None else gain_amount
    loss = amount < expect[s]
    gain = np.where(loss, -1, 0)
    need = np.zeros(amount.shape, dtype=np.int64)
    level = s.copy()
    covering = ~loss & (gain_amount >= expect[s])
    amount = gain_amount
    while covering.any():
        need = need + np.where(covering, expect[np.minimum(level, top)], 0)
        covering &= (need <= amount) & (level < top)
        gain += covering
        level += covering
    return gain


def update_stability(state: State, rules: Rules, emergency: np.ndarray, paid: np.ndarray) -> None:
    live = ~state.done
    st = rules.stability
    before = state.stability.astype(np.int64)
    per = st.emergency_loans_per_loss
    total = state.emergency_total.astype(np.int64)
    if st.emergency_count == "cumulative":  # D-EMERGENCY: -1 per ``per`` emergency loans over the whole game
        lost = (total + emergency) // per - total // per
    else:
        lost = emergency // per
    state.emergency_total[...] += np.where(live, emergency, 0).astype(state.emergency_total.dtype)
    s = before - lost
    after_emergency = np.maximum(s, 0)  # the loss the crash floor leaves
    profit = state.tally[:, TALLY["profit"]]
    loss_amount, gain_amount = {"split": (profit, paid), "dividends": (paid, paid), "profit": (profit, profit)}[
        st.compared
    ]
    s = np.where(s > 0, s + stability_gain(rules, s, loss_amount, gain_amount), s)
    s = np.clip(s, 0, rules.company.max_stability)
    state.stability[:] = np.where(live, s, before).astype(np.int8)
    state.tally[:, TALLY["stability_change"]] += np.where(live, s - before, 0).astype(np.int32)
    # the causes (signed), which add up to the change above
    expectation = np.where(live, s - after_emergency, 0)
    state.tally[:, TALLY["stability_loss_emergency"]] += np.where(live, after_emergency - before, 0).astype(np.int32)
    state.tally[:, TALLY["stability_loss_expectation"]] += np.minimum(expectation, 0).astype(np.int32)
    state.tally[:, TALLY["stability_gain"]] += np.maximum(expectation, 0).astype(np.int32)
    crash(state, live)


def crash(state: State, live: np.ndarray) -> None:
    """Games of bool[G] ``live`` whose stability has reached 0 crash and end now (R-END), in this phase (7, or 8
    when India costs the Company its last stability)."""
    broke = live & (state.stability == 0)
    state.crashed[broke] = True
    state.done[broke] = True
    state.end_round[broke] = state.round[broke]
