"""Every law of the default deck (D-LAWS, MAP.md's 2e laws): its effect when it passes (or fails, for dilemmas)
and each modifier at the place the rule applies, on hand-built positions with injected dice."""

import copy
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, fund, give, passes, seat_office

from sim import laws, ledger
from sim.agents import IllegalDecision
from sim.phases.accounts import accounts, costs_due
from sim.phases.family import family_actions
from sim.phases.military import battle
from sim.phases.operations import china_trade, company_operations, governors, presidents, shipping_manager
from sim.phases.parliament import name_impeachment, parliament
from sim.rules import Rules
from sim.state import FLOW, TALLY

# each rule played on both engine paths, the numpy reference and the compiled kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")


def takes_extra(presidency=0):
    """family_action: pass the regular action, take the kind a law's extra action offers (clerks to
    ``presidency``), whether or not it is legal, so an unaffordable one fails."""

    def answer(obs, legal):
        act = np.where(legal.extra, legal.offered, L.A_PASS)
        return act, np.zeros(obs.n, dtype=bool), np.full((obs.n, 2), presidency)

    return answer


def law(r, name):
    return r.d.law_names.index(name)


def force(s, r, *names, games=slice(None)):
    for name in names:
        s.law_pile[games, law(r, name)] = laws.IN_FORCE


def test_modifiers_sum_over_laws_in_force_only():
    r, s = blank(2, 4)
    force(s, r, "Zamindar Taxes", games=0)
    s.law_pile[1, law(r, "Zamindar Taxes")] = laws.DISCARD
    assert laws.modifier(s, r, "governor_dice").tolist() == [1, 0]
    assert laws.modifier(s, r, "governor_general_bonus").tolist() == [3, 0]
    assert not laws.flag(s, r, "loot_to_company").any()


# ------------------------------------------------------------------------------------------------- Calico Acts
def test_calico_acts_pays_2_per_factory_and_levies_the_company_until_deregulation():
    r, s = blank(3, 4)
    s.factories[:, 1] = 2
    passes(r, s, "Calico Acts")
    assert s.money[:, 1].tolist() == [4, 4, 4] and s.ledger[0, FLOW["law_payments"]] == 4
    force(s, r, "Calico Acts")
    ledger.company(s, "trade", np.array([20, 13, 20]))
    s.deregulated[2] = True
    laws.company_levy(s, r)
    assert s.balance.tolist() == [20 - 2, 13 - 1, 20]  # 1 £ per 7 £, rounded down; none after Deregulation
    assert ledger.balanced(s).all()


def test_calico_acts_extra_action_buys_a_factory_at_the_subsidised_price():
    r, s = blank(1, 4)
    force(s, r, "Calico Acts", "Industry Subsidy")
    fund(s, 0, 9)
    s.last_action[0, 0] = L.A_LUXURY
    strat = Scripted(family_action=takes_extra(0))
    family_actions(s, r, dice(), agents(r, s, strat))
    # a factory costs the same however it is bought: Industry Subsidy's 3 for a family that bought none last round
    assert s.factories[0, 0] == 1 and s.money[0, 0] == 9 - 3


# ---------------------------------------------------------------------------------------------- Envoy to China
def test_envoy_to_china_opens_china_and_pays_5_per_opium():
    r, s = blank(1, 4)
    passes(r, s, "Envoy to China")
    assert s.china_open[0]
    force(s, r, "Envoy to China")
    seat_office(s, L.CHINA, 3)
    s.ships[0, L.CHINA_LOC, L.LEASED] = 1
    s.owner[0, r.d.regions.index("Bengal")] = 2  # 2 opium
    china_trade(s, r, dice({0: [1]}), agents(r, s, Scripted(china_trade=const(True))))
    assert s.balance[0] == 10 and s.money[0, 3] == 2  # the manager's cut is unchanged


# ----------------------------------------------------------------------------------------------- Army Spending
def test_army_spending_adds_two_regiments_per_army_and_an_extra_officer():
    r, s = blank(1, 4)
    passes(r, s, "Army Spending")
    assert s.regiments[0].tolist() == [3, 3, 3]
    force(s, r, "Army Spending")
    strat = Scripted(family_action=takes_extra(0))
    family_actions(s, r, dice(), agents(r, s, strat))
    assert s.academy[0].tolist() == [1, 1, 1, 1] and (s.relatives() == 12).all()


# ---------------------------------------------------------------------------------------------- Board of Control
def test_board_of_control_lets_the_pm_remove_an_officeholder_but_not_the_chairman():
    r, s = blank(1, 4)
    force(s, r, "Board of Control")
    s.prime_minister[0] = 2
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.SHIPPING, 1)
    seen = {}

    def remove(obs, legal):
        seen["removable"] = legal.removable[0].copy()
        return np.array([L.SHIPPING])

    laws.board_of_control(s, r, dice(), agents(r, s, Scripted(remove_officeholder=remove)))
    assert seen["removable"].tolist() == [i == L.SHIPPING for i in range(L.N_OFFICES)]
    assert s.office[0, L.SHIPPING] == -1 and s.supply[0, 1] == 12
    seat_office(s, L.DIRECTOR, 1)
    with pytest.raises(IllegalDecision, match="remove_officeholder"):
        laws.board_of_control(s, r, dice(), agents(r, s, Scripted(remove_officeholder=const(L.CHAIRMAN))))


def test_board_of_control_acts_at_the_end_of_phase_6():
    r, s = blank(1, 4)
    force(s, r, "Board of Control")
    s.prime_minister[0] = 2
    seat_office(s, L.MILITARY, 3)
    strat = Scripted(remove_officeholder=const(L.MILITARY))
    company_operations(s, r, dice(), agents(r, s, strat))
    assert strat.asked("remove_officeholder") == [([0], [2])] and s.office[0, L.MILITARY] == -1


# ---------------------------------------------------------------------------------------------- Debt Restructure
def test_debt_restructure_clears_the_debt_and_gives_an_extra_share_action():
    r, s = blank(1, 4)
    s.loans[0] = 6
    passes(r, s, "Debt Restructure")
    assert s.loans[0] == 0
    force(s, r, "Debt Restructure")
    fund(s, 1, 5)
    strat = Scripted(family_action=takes_extra(0))
    family_actions(s, r, dice(), agents(r, s, strat))
    assert (s.exchange[0] == 1).sum() == 1 and s.money[0, 1] == 5 - 2  # the cheapest free exchange position


# ------------------------------------------------------------------------------------------------ Inclosure Acts
def test_inclosure_acts_pays_each_retiree():
    r, s = blank(1, 4)
    force(s, r, "Inclosure Acts")
    give(s, "retired", 1, 2, col=0)
    give(s, "retired", 1, 1, col=3)
    accounts(s, r, dice(), agents(r, s))
    assert s.money[0, 1] == 3 and s.ledger[0, FLOW["law_payments"]] == 3


# ------------------------------------------------------------------------------------------------- Tenure Limits
def test_tenure_limits_flags_the_chairmans_retirement_and_gives_an_extra_clerk():
    r, s = blank(1, 4)
    force(s, r, "Tenure Limits")
    assert laws.flag(s, r, "chairman_retires").all()  # phase 1 reads it
    strat = Scripted(family_action=takes_extra(2))
    family_actions(s, r, dice(), agents(r, s, strat))
    assert s.clerks[0, :, 2].tolist() == [1, 1, 1, 1]


# --------------------------------------------------------------------------------------------- Sepoy Recruitment
def test_sepoy_recruitment_makes_regiments_free():
    r, s = blank(2, 4)
    s.regiments[:] = 2
    s.loans[:] = 1
    force(s, r, "Sepoy Recruitment", games=0)
    assert costs_due(s, r).tolist() == [1, 7]
    assert laws.modifier(s, r, "unrest_attack_bonus").tolist() == [1, 0]  # phase 8 reads it


# -------------------------------------------------------------------------------------------------- Ship Subsidy
def test_ship_subsidy_yard_ships_cost_the_manager_two():
    r, s = blank(1, 4)
    force(s, r, "Ship Subsidy")
    seat_office(s, L.SHIPPING, 0)
    s.treasury[0, L.T_SHIPPING] = 4
    s.shipyards[0, 2] = 2
    yard = np.zeros((4, 3), dtype=int)
    yard[2, 0] = 2
    shipping_manager(s, r, dice(), agents(r, s, Scripted(buy_ships=const([0, 0, 0], [0, 0, 0], yard))))
    assert s.treasury[0, L.T_SHIPPING] == 0 and s.yard_ships[0, 2, 0] == 2
    # without the law 2 yard ships cost 6 > 4: illegal
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 0)
    s.treasury[0, L.T_SHIPPING] = 4
    s.shipyards[0, 2] = 2
    with pytest.raises(IllegalDecision, match="buy_ships"):
        shipping_manager(s, r, dice(), agents(r, s, Scripted(buy_ships=const([0, 0, 0], [0, 0, 0], yard))))


def test_ship_subsidy_extra_action_buys_a_shipyard():
    r, s = blank(1, 4)
    force(s, r, "Ship Subsidy")
    fund(s, 3, 2)
    strat = Scripted(family_action=takes_extra(0))
    family_actions(s, r, dice(), agents(r, s, strat))
    assert s.shipyards[0].tolist() == [0, 0, 0, 1]


# --------------------------------------------------------------------------------- Trade Regulations, writers
def trade_round(r, s):
    """Bombay3 (4 £) and Mysore1 (3 £) filled; seat 2's clerk placed on one; the President is seat 1."""
    seat_office(s, L.PRESIDENT[0], 1)
    ledger.treasury(s, "company_start", L.T_PRESIDENCY[0], np.full(s.n_games, 2))
    s.ships[:, 0, L.COMPANY_SHIP] = 2
    give(s, "clerks", 2, 1, col=0)
    orders = np.isin(r.d.orders, ["Bombay3", "Mysore1"])
    strat = Scripted(trade=const(4, orders, [0, 0, 1, 0]))
    presidents(s, r, dice({0: [1, 6, 6]}), agents(r, s, strat))


def test_trade_regulations_send_the_presidents_bonus_to_the_company():
    r, s = blank(1, 4)
    force(s, r, "Trade Regulations")
    trade_round(r, s)
    assert s.money[0, 1] == 0 and s.balance[0] == 7 + 2 and s.money[0, 2] == 1
    assert ledger.balanced(s).all()


def test_writer_privileges_pay_clerks_one_more_and_graft_reform_sends_it_to_the_company():
    r, s = blank(1, 4)
    force(s, r, "Writer Privileges")
    trade_round(r, s)
    assert s.money[0, 2] == 2 and s.balance[0] == 7
    r, s = blank(1, 4)
    force(s, r, "Writer Graft Reform")
    trade_round(r, s)
    assert s.money[0, 2] == 0 and s.balance[0] == 7 + 1 and s.money[0, 1] == 2
    assert ledger.balanced(s).all()


def test_writer_laws_discard_each_other_and_privileges_add_deregulation_support():
    r, s = blank(1, 4)
    force(s, r, "Writer Graft Reform")
    laws.enact(s, r, np.array([law(r, "Writer Privileges")]), np.ones(1, bool))
    assert s.law_pile[0, law(r, "Writer Graft Reform")] == laws.DISCARD
    assert s.law_pile[0, law(r, "Writer Privileges")] == laws.IN_FORCE
    assert laws.modifier(s, r, "deregulation_support").tolist() == [5]


# ------------------------------------------------------------------------------------------------ Zamindar Taxes
def test_zamindar_taxes_add_a_governor_die_and_a_second_unrest_on_failure():
    r, s = blank(1, 4)
    force(s, r, "Zamindar Taxes")
    i = r.d.regions.index("Bombay")
    s.owner[0, i] = 0
    s.governor[0, i] = 2
    s.supply[0, 2] -= 1
    calls = iter([True, False])
    d = dice({0: [4, 4, 3, 6]})  # 4 dice (3 + 1): lowest 3 -> nothing
    governors(s, r, d, agents(r, s, Scripted(govern=lambda obs, legal: np.array([next(calls)]))))
    assert d.rolls("lowest") == [4]
    d.assert_spent()
    assert s.unrest[0, i] == 2


# ------------------------------------------------------------------------------------------------ Treasure Reform
def test_treasure_reform_sends_the_loot_to_the_company():
    r, s = blank(2, 4)
    force(s, r, "Treasure Reform", games=0)
    target = r.d.regions.index("Bombay")
    give(s, "officers", 1, 2, col=0)
    s.commander[:, 0] = 1
    rows = np.arange(2)
    d = dice({0: [1, 1, 1, 1], 1: [1, 1, 1, 1]})  # a success with 2 dice, then each officer's death roll
    battle(s, r, d, agents(r, s), 0, rows, np.full(2, target), s.officers[:, :, 0].astype(int).copy(),
           s.regiments[:, 0].astype(int).copy(), np.zeros((2, 2), dtype=bool), np.full(2, 2))  # fmt: skip
    d.assert_spent()
    loot = 4 * 1 + r.d.first_loot[target]
    assert s.balance.tolist() == [loot, 0]
    assert s.money[0].sum() == 0 and s.money[1, 1] > 0
    assert ledger.balanced(s).all()


# ----------------------------------------------------------------------------------------------- Industry Subsidy
def factory_for_seat_0(obs, legal):
    action = np.where(obs.seat == 0, L.A_FACTORY, L.A_PASS)
    return action, np.zeros(obs.n, bool), np.zeros((obs.n, 2), int)


def test_industry_subsidy_makes_a_fresh_factory_cost_three_and_ends_with_deregulation():
    r, s = blank(2, 4)
    force(s, r, "Industry Subsidy")
    fund(s, 0, 10)
    s.last_action[:, 0] = [L.A_LUXURY, L.A_FACTORY]  # game 1 bought a factory last round: no discount
    strat = Scripted(family_action=factory_for_seat_0)
    family_actions(s, r, dice(), agents(r, s, strat))
    assert s.money[:, 0].tolist() == [7, 5]
    from sim.phases.deregulation import pass_deregulation

    pass_deregulation(s, r, np.array([True, False]))
    assert s.law_pile[:, law(r, "Industry Subsidy")].tolist() == [laws.DISCARD, laws.IN_FORCE]


def test_industry_subsidy_makes_a_factory_affordable_with_three():
    r, s = blank(1, 4)
    force(s, r, "Industry Subsidy")
    fund(s, 0, 3)
    family_actions(s, r, dice(), agents(r, s, Scripted(family_action=factory_for_seat_0)))
    assert s.factories[0, 0] == 1 and s.money[0, 0] == 0


# ---------------------------------------------------------------------------------------------- Window Tax Repeal
def test_window_tax_repeal_extra_luxury():
    r, s = blank(1, 4)
    force(s, r, "Window Tax Repeal")
    fund(s, 1, 4)
    strat = Scripted(family_action=takes_extra(0))
    family_actions(s, r, dice(), agents(r, s, strat))
    assert s.luxuries[0].tolist() == [0, 1, 0, 0] and s.wealth[0, 1] == 1 and s.money[0, 1] == 0


def test_extra_actions_come_one_kind_at_a_time_and_each_must_be_affordable():
    """Window Tax Repeal (luxury) and Calico Acts (factory) in force, 8 £: the extra luxury (4) comes first (action
    order); the factory (5) is then beyond the 4 £ left, so seat 1 is not offered it (nor is anybody without the
    money for either)."""
    r, s = blank(1, 4)
    force(s, r, "Window Tax Repeal", "Calico Acts")
    fund(s, 1, 8)
    s.last_action[0, 1] = L.A_FACTORY  # no Industry Subsidy question here
    strat = Scripted(family_action=takes_extra())
    family_actions(s, r, dice(), agents(r, s, strat))
    assert s.luxuries[0, 1] == 1 and s.factories[0, 1] == 0 and s.money[0, 1] == 4
    asked = [seats for _, seats in strat.asked("family_action")]
    assert asked == [[0], [1], [2], [3], [1]]  # the regular actions, then seat 1's extra luxury only


# --------------------------------------------------------------------------------------------- Military Oversight
def test_military_oversight_lets_the_pm_replace_a_commander_under_nepotism():
    r, s = blank(1, 4)
    force(s, r, "Military Oversight")
    s.prime_minister[0] = 2
    give(s, "officers", 0, 2, col=1)
    give(s, "officers", 2, 1, col=1)
    s.commander[0, 1] = 0
    strat = Scripted(oversee_army=const(1), consent=const(False))
    laws.military_oversight(s, r, dice(), agents(r, s, strat))
    # the PM named his own officer; seat 0 (with a candidate) refused, so seat 0's officer commands again
    assert strat.asked("consent") == [([0], [0])]
    assert s.commander[0, 1] == 0
    strat = Scripted(oversee_army=const(1), consent=const(True))
    laws.military_oversight(s, r, dice(), agents(r, s, strat))
    assert s.commander[0, 1] == 2 and s.officers[0, :, 1].tolist() == [2, 0, 1, 0]


# -------------------------------------------------------------------------------------- Company Aids Government
def test_company_aids_government_raises_share_vp_bounded_and_doubles_loan_interest():
    r, s = blank(2, 4)
    s.share_vp[:] = [1, 3]
    passes(r, s, "Company Aids Government")
    assert s.share_vp.tolist() == [2, 3]
    s.loans[:] = 3
    s.regiments[:] = 0
    force(s, r, "Company Aids Government", games=0)
    assert costs_due(s, r).tolist() == [6, 3]


# ----------------------------------------------------------------------------------------------- Royal Protection
def test_royal_protection_law_adds_a_use():
    r, s = blank(1, 4)
    passes(r, s, "Royal Protection")
    assert s.royal_protection[0] == 2


# ------------------------------------------------------------------------------------------------------ dilemmas
def test_impeachment_passed_sends_the_named_officeholder_home():
    r, s = blank(1, 4)
    seat_office(s, L.DIRECTOR, 3)
    passes(r, s, "Public Demands Impeachment!", impeach=L.DIRECTOR)
    assert s.office[0, L.DIRECTOR] == -1 and s.supply[0, 3] == 12


def test_impeachment_failed_costs_stability_and_may_crash_the_company():
    r, s = blank(2, 4)
    s.stability[:] = [3, 1]
    s.round[:] = 4
    passes(r, s, "Public Demands Impeachment!", when="on_fail")
    assert s.stability.tolist() == [2, 0]
    assert s.crashed.tolist() == [False, True] and s.done.tolist() == [False, True]
    assert s.end_round[1] == 4 and s.tally[:, TALLY["stability_change"]].tolist() == [-1, -1]


def test_impeachment_the_pm_names_an_office_before_the_vote():
    r, s = blank(1, 4)
    from test_parliament import deck, votes

    deck(s, r, "Public Demands Impeachment!")
    s.prime_minister[0] = 0
    seat_office(s, L.SHIPPING, 1)
    give(s, "shipyards", 1, 0)
    strat = Scripted(
        table_law=lambda obs, legal: (legal.candidates.argmax(axis=1), np.zeros(obs.n, int)),
        impeach=const(L.SHIPPING),
        vote=votes({0: (1, 0)}),
    )
    parliament(s, r, dice(), agents(r, s, strat))
    assert strat.asked("impeach") == [([0], [0])]
    assert s.office[0, L.SHIPPING] == -1  # support +1: passed


def test_indian_famine_passed_applies_the_policy_twice():
    r, s = blank(1, 4)
    fund(s, 0, 5)
    s.factories[0, 0] = 1
    passes(r, s, "Relief Demanded for Indian Famine!", policy=10)  # factory tax, once more
    assert s.money[0, 0] == 4


def test_indian_famine_failed_closes_home_orders_and_raises_unrest():
    r, s = blank(1, 4)
    s.owner[0, r.d.regions.index("Delhi")] = 0
    passes(r, s, "Relief Demanded for Indian Famine!", when="on_fail")
    for port in ("Bombay1", "Madras1", "Bengal1"):  # the first (northernmost) open order of each home region
        assert not s.order_open[0, r.d.orders.index(port)]
    for other in ("Bombay3", "Bengal2", "Delhi1"):
        assert s.order_open[0, r.d.orders.index(other)]
    assert s.unrest[0].tolist() == [int(x == "Delhi") for x in r.d.regions]


def test_indian_famine_failed_cascades_from_a_home_region_already_closed():
    """R-TURMOIL as phase 8 plays it: Bombay's home orders are all closed, so its Turmoil cascades: every order
    linked to Bombay from next door closes (Madras and Bengal still lose only their northernmost order)."""
    r, s = blank(1, 4)
    d = r.d
    bombay = d.home[0]
    s.order_open[0, d.order_region == bombay] = False
    linked = [int(o) for o in d.cross_links[bombay][: d.cross_count[bombay]] if o >= 0]
    s.order_open[0, linked] = True  # Punjab, Delhi3, Maratha2, Mysore1 on the default map
    untouched = s.order_open[0].copy()
    passes(r, s, "Relief Demanded for Indian Famine!", when="on_fail")
    assert not s.order_open[0, linked].any()
    closed = untouched & ~s.order_open[0]
    expected = set(linked) | {r.d.orders.index("Madras1"), r.d.orders.index("Bengal1")}
    assert set(np.flatnonzero(closed).tolist()) == expected


def test_masses_demand_franchise_failed_does_nothing():
    r, s = blank(1, 4)
    before = s.take(np.arange(1))
    passes(r, s, "Masses Demand Franchise!", when="on_fail")
    assert np.array_equal(before.money, s.money) and (s.law_pile == laws.DECK).all()


def test_war_against_france_the_pm_removes_three_ships_and_three_troops():
    r, s = blank(1, 4)
    s.prime_minister[0] = 0
    s.ships[0, 0, L.COMPANY_SHIP] = 2
    s.ships[0, 1, L.LEASED] = 3  # leased ships are not lost
    s.shipyards[0, 2] = 1
    s.yard_ships[0, 2, 2] = 1
    give(s, "officers", 1, 1, col=2)
    s.commander[0, 2] = 1
    passes(r, s, "War Against France!", strat=Scripted())
    assert s.ships[0, :, L.COMPANY_SHIP].sum() == 0 and s.yard_ships[0].sum() == 0
    assert s.ships[0, 1, L.LEASED] == 3
    # the base strategy removes others' pieces first: the officer, then regiments
    assert s.officers[0].sum() == 0 and s.commander[0, 2] == -1 and s.regiments[0].sum() == 3 - 2
    assert (s.relatives() == 12).all()


def test_war_losses_must_pick_available_pieces():
    r, s = blank(1, 4)
    s.prime_minister[0] = 0
    s.ships[0, 0, L.COMPANY_SHIP] = 1
    with pytest.raises(IllegalDecision, match="war_losses"):
        passes(r, s, "War Against France!", strat=Scripted(war_losses=const(1, 0)))


def test_enact_lasting_and_passing_dilemmas():
    r, s = blank(1, 4)
    for name in ("Calico Acts", "Masses Demand Franchise!", "War Against France!"):
        laws.enact(s, r, np.array([law(r, name)]), np.ones(1, bool))
    assert s.law_pile[0, law(r, "Calico Acts")] == laws.IN_FORCE
    assert s.law_pile[0, law(r, "Masses Demand Franchise!")] == laws.IN_FORCE  # lasting dilemma
    assert s.law_pile[0, law(r, "War Against France!")] == laws.DISCARD
    assert laws.modifier(s, r, "vote_cost").tolist() == [1]


def test_every_default_law_has_a_test():
    names = set(blank(1, 4)[0].d.law_names)

    here = Path(__file__).parent
    src = "".join((here / f"test_{m}.py").read_text() for m in ("laws", "parliament", "governor_general"))
    assert {n for n in names if f'"{n}"' not in src} == set()


def test_an_impeachment_of_a_negative_office_is_refused_with_its_reason():
    """Public Demands Impeachment! (2e: the PM picks one officeholder; docs/strategies.md ``impeach``: int[G'] an
    office held, illegal: not held): the PM answering office -10 is refused as an illegal decision with its reason.
    Letting a negative answer through the clip indexes the offices from the end, and -10 (below -9 offices) makes
    the check itself crash with an IndexError instead of naming the illegal answer."""
    r, s = blank(1, 4)
    seat_office(s, L.SHIPPING, 1)
    strat = Scripted(impeach=const(-(L.N_OFFICES + 1)))
    with pytest.raises(IllegalDecision, match=r"'impeach' in game 0: not a held office$"):
        name_impeachment(s, r, agents(r, s, strat), np.array([0]))


def test_a_levy_of_one_pound_per_pound_takes_the_whole_balance():
    """Calico Acts' ``company_levy_per`` (laws.company_levy; 2e: the Company -1 £ per N £ of balance until
    Deregulation) in a rules file setting N = 1: the Company loses 1 £ for every pound, its whole balance of 5 £."""
    raw = copy.deepcopy(Rules.default(4).raw)
    calico = next(x for x in raw["parliament"]["laws"] if x["name"] == "Calico Acts")
    calico["modifiers"] = {"company_levy_per": 1}
    r, s = blank(1, 4, rules=Rules.from_dict(raw))
    s.law_pile[:, r.d.law_names.index("Calico Acts")] = laws.IN_FORCE
    ledger.company(s, "trade", np.array([5]))
    laws.company_levy(s, r)
    assert s.balance.tolist() == [0]
    assert ledger.balanced(s).all()


def with_effects(r: Rules, **on_pass: list[dict]) -> Rules:
    """The rules with the named laws' ``on_pass`` effects replaced (a rules file may give any law any effect,
    D-LAWS; amounts are validated to -100..100)."""
    raw = copy.deepcopy(r.raw)
    for spec in raw["parliament"]["laws"]:
        if spec["name"] in on_pass:
            spec["on_pass"] = on_pass.pop(spec["name"])
    assert not on_pass, on_pass
    return Rules.from_dict(raw, source="test")


def test_royal_protection_uses_stay_within_0_and_100():
    """Royal Protection (MAP.md's 2e law; ``company.royal_protection`` is validated to 0..100, the int8 store):
    passing it at 100 uses keeps 100, not 101 (an upper bound); a rules file's law taking a use away (amount -1)
    leaves 0 uses at 0, not -1, and takes game 1's only use (a lower bound)."""
    r, s = blank(2, 4)
    s.royal_protection[:] = [100, 7]
    passes(r, s, "Royal Protection")
    assert s.royal_protection.tolist() == [100, 8]
    r = with_effects(r, **{"Royal Protection": [{"effect": "royal_protection", "amount": -1}]})
    s.royal_protection[:] = [0, 1]
    passes(r, s, "Royal Protection")
    assert s.royal_protection.tolist() == [0, 0]


def test_stability_gains_of_laws_add_up_per_game():
    """The cause tally ``stability_gain_laws`` adds every law gain of the round, game by game. With rules
    where Royal Protection and Calico Acts each raise stability by 1, game 0 passes Royal Protection and game 1
    Calico Acts in the same phase 9 (apply_effects takes each law in deck order): game 0's gain must survive game
    1's later one, and a second gain in game 0 adds to its first (2). Writing the tally instead of adding to it
    leaves game 0 at 0 after Calico Acts' effect."""
    r, s = blank(2, 4)
    gain = [{"effect": "stability", "amount": 1}]
    r = with_effects(r, **{"Royal Protection": gain, "Calico Acts": gain})
    s.stability[:] = 3
    law_of = np.array([law(r, "Royal Protection"), law(r, "Calico Acts")])
    ctx = SimpleNamespace(pm=np.full(2, -1), policy=np.full(2, -1), impeach=np.full(2, -1))
    laws.apply_effects(s, r, dice(), agents(r, s), law_of, np.ones(2, bool), "on_pass", ctx)
    assert s.stability.tolist() == [4, 4]
    assert s.tally[:, TALLY["stability_gain_laws"]].tolist() == [1, 1]
    laws.change_stability(s, r, np.array([True, False]), 1)
    assert s.stability.tolist() == [5, 4]
    assert s.tally[:, TALLY["stability_gain_laws"]].tolist() == [2, 1]
    assert s.tally[:, TALLY["stability_change"]].tolist() == [2, 1]


def test_war_losses_cannot_pick_an_empty_ship_box_0():
    """War Against France! passed (MAP.md, 2e "non-extra ships"): the PM must pick an available ship. The
    Company's only ship is at location 1; the PM names location 0, where there is none: an illegal answer (a check
    reading "a ship" as index >= 1 accepts it and removes a ship that is not there, leaving -1)."""
    r, s = blank(1, 4)
    s.prime_minister[0] = 0
    s.ships[0, 1, L.COMPANY_SHIP] = 1
    s.regiments[0] = [3, 3, 3]
    with pytest.raises(IllegalDecision, match="war_losses"):
        passes(r, s, "War Against France!", strat=Scripted(war_losses=const(0, 0)))
    assert s.ships[0, :, L.COMPANY_SHIP].tolist() == [0, 1, 0, 0]


def test_war_losses_remove_one_company_ship_per_pick():
    """War Against France! passed removes 3 ships one at a time (amount 3): the PM picks Company ships at location
    0 three times, 5 -> 2 (and a regiment of army 0 each time, 3 -> 0). Removing 2 per pick leaves -1 (with 1 or 2
    ships there both readings end at 0, which is why the deck test does not tell them apart)."""
    r, s = blank(1, 4)
    s.prime_minister[0] = 0
    s.ships[0, 0, L.COMPANY_SHIP] = 5
    s.regiments[0] = [3, 3, 3]
    strat = Scripted(war_losses=const(0, 0))
    passes(r, s, "War Against France!", strat=strat)
    assert len(strat.asked("war_losses")) == 3
    assert s.ships[0, :, L.COMPANY_SHIP].tolist() == [2, 0, 0, 0] and s.regiments[0].tolist() == [0, 3, 3]


def test_board_of_control_rejects_a_far_out_of_range_answer_cleanly():
    """Board of Control (MAP.md's 2e law): the PM answers an office index or -1 (nobody). An answer of -10 is not
    an office: the engine's check reports it as an IllegalDecision naming the decision (a clear error, never a
    traceback). Clipping the index only from above reads legal.removable[-10] and fails with an
    IndexError instead."""
    r, s = blank(1, 4)
    s.law_pile[0, law(r, "Board of Control")] = laws.IN_FORCE
    s.prime_minister[0] = 2
    seat_office(s, L.SHIPPING, 1)
    assert L.N_OFFICES < 10
    with pytest.raises(IllegalDecision, match="remove_officeholder"):
        laws.board_of_control(s, r, dice(), agents(r, s, Scripted(remove_officeholder=const(-10))))
    assert s.office[0, L.SHIPPING] == 1


def test_military_oversight_the_army_has_no_commander_while_the_pm_appoints():
    """Military Oversight (MAP.md's 2e law: "the PM may demote one commander and then appoint a commander"): once
    demoted, the army has no commander (state.py's encoding: -1 none) while the PM chooses, and every strategy
    asked then (the PM's appointment, the consent of a family with a candidate) sees -1 in ``obs.commander``. A
    demotion written as -2 shows an impossible seat."""
    r, s = blank(1, 4)
    s.law_pile[0, law(r, "Military Oversight")] = laws.IN_FORCE
    s.prime_minister[0] = 2
    give(s, "officers", 0, 2, col=1)
    give(s, "officers", 2, 1, col=1)
    s.commander[0, 1] = 0
    seen = []

    def appoint(obs, legal):
        seen.append(("appoint", obs.commander.tolist()))
        return np.full(obs.n, 2), np.full(obs.n, L.SRC_OFFICER[1])

    def consent(obs, legal):
        seen.append(("consent", obs.commander.tolist()))
        return np.ones(obs.n, dtype=bool)

    strat = Scripted(oversee_army=const(1), appoint=appoint, consent=consent)
    laws.military_oversight(s, r, dice(), agents(r, s, strat))
    assert seen == [("appoint", [[-1, -1, -1]]), ("consent", [[-1, -1, -1]])]
    assert s.commander[0].tolist() == [-1, 2, -1]


def test_board_of_control_refuses_the_office_number_just_past_the_last():
    """Board of Control (D-LAWS, 2e): the PM names an officeholder to remove; with the last office (the Governor-
    General, N_OFFICES - 1) held, the number N_OFFICES is still no office. A `o > N_OFFICES` bound would clip it to
    the Governor-General, find him removable and accept it; the last
    office itself is legal and is removed."""
    r, s = blank(1, 4)
    s.law_pile[0, r.d.law_names.index("Board of Control")] = laws.IN_FORCE
    s.prime_minister[0] = 2
    seat_office(s, L.GOVERNOR_GENERAL, 1)
    with pytest.raises(
        IllegalDecision, match="remove_officeholder.* in game 0: not an officeholder the PM may remove$"
    ):
        laws.board_of_control(s, r, dice(), agents(r, s, Scripted(remove_officeholder=const(L.N_OFFICES))))
    laws.board_of_control(s, r, dice(), agents(r, s, Scripted(remove_officeholder=const(L.GOVERNOR_GENERAL))))
    assert s.office[0, L.GOVERNOR_GENERAL] == -1 and s.supply[0, 1] == 12
