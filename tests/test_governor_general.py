"""The Governor-General (L126-L127, blame situation 5 L254): the office exists once the law "Governor General"
is in force, the Chairman appoints him from the other committee heads in phase 5, and his 2e powers in phase 6."""

import numpy as np
import pytest
from helpers import L, Scripted, agents, blank, const, dice, give, seat_office

from sim import laws, ledger
from sim.agents import IllegalDecision
from sim.board import committee_vacancies
from sim.governor_general import governor_general
from sim.phases.appointments import appoint_office, appointments, candidates
from sim.state import FLOW

# each rule played on both engine paths, the numpy reference and the compiled kernels (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("engine_path")


def in_force(s, r, games=slice(None)):
    s.law_pile[games, r.d.law_names.index("Governor General")] = laws.IN_FORCE


def test_no_governor_general_without_the_law():
    r, s = blank(1, 4)
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.SHIPPING, 1)
    strat = Scripted()
    appoint_office(s, r, dice(), agents(r, s, strat), L.GOVERNOR_GENERAL)
    assert s.office[0, L.GOVERNOR_GENERAL] == -1 and strat.asked("appoint") == []
    assert committee_vacancies(s, r)[0] == 5  # Director, Military, 3 Presidents (China is closed)
    in_force(s, r)
    assert committee_vacancies(s, r)[0] == 6  # the office exists now, and is vacant
    appoint_office(s, r, dice(), agents(r, s, strat), L.GOVERNOR_GENERAL)
    assert s.office[0, L.GOVERNOR_GENERAL] == 1 and s.office[0, L.SHIPPING] == -1  # promoted, old office vacant


def test_candidates_are_the_other_committee_heads_not_the_chairman_nor_governors():
    r, s = blank(1, 4)
    in_force(s, r)
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.PRESIDENT[1], 2)
    seat_office(s, L.MILITARY, 3)
    s.governor[0, 0] = 1
    give(s, "clerks", 1, 2, col=0)
    cand = candidates(s, r, L.GOVERNOR_GENERAL)
    assert np.argwhere(cand[0]).tolist() == [
        [2, L.SRC_OFFICE0 + L.PRESIDENT[1]],
        [3, L.SRC_OFFICE0 + L.MILITARY],
    ]


@pytest.mark.parametrize("fallback, expected", [("clerks", 1), ("none", -1)])
def test_no_committee_head_falls_back_to_clerks_or_stays_vacant(fallback, expected):
    r, s = blank(1, 4, **{"governor_general.candidates_fallback": fallback})
    in_force(s, r)
    seat_office(s, L.CHAIRMAN, 0)
    give(s, "clerks", 1, 1, col=2)
    appoint_office(s, r, dice(), agents(r, s), L.GOVERNOR_GENERAL)
    assert s.office[0, L.GOVERNOR_GENERAL] == expected


def test_appointed_last_in_phase_5_by_the_chairman_with_nepotism():
    r, s = blank(1, 4)
    in_force(s, r)
    seat_office(s, L.CHAIRMAN, 0)
    seat_office(s, L.DIRECTOR, 0)
    seat_office(s, L.SHIPPING, 2)
    strat = Scripted(consent=const(False))
    appointments(s, r, dice(), agents(r, s, strat))
    # the Chairman names his own Director; seat 2 (the Shipping Manager) refuses: seat 2's relative is appointed
    assert s.office[0, L.GOVERNOR_GENERAL] == 2 and s.office[0, L.DIRECTOR] == 0
    assert s.office[0, L.SHIPPING] == -1


def company_regions(r, s, names, seat=3):
    in_force(s, r)
    seat_office(s, L.GOVERNOR_GENERAL, seat)
    idx = [r.d.regions.index(x) for x in names]
    for i, p in zip(idx, (0, 2, 1), strict=False):
        s.owner[:, i] = p
    return idx


def test_governor_general_success_pays_per_region_and_acts_in_every_company_region():
    r, s = blank(1, 4)
    bombay, bengal = company_regions(r, s, ["Bombay", "Bengal"])
    effects = np.zeros((1, len(r.d.regions)), dtype=int)
    effects[0, bombay], effects[0, bengal] = L.G_TAX_COMPANY, L.G_REGIMENT
    strat = Scripted(general_govern=const(True), general_effects=const(effects[0]))
    d = dice({0: [5, 2, 6]})  # three dice, lowest 2: success
    governor_general(s, r, d, agents(r, s, strat))
    assert d.rolls("lowest") == [3]
    d.assert_spent()
    assert s.money[0, 3] == 2 and s.ledger[0, FLOW["governor_general"]] == 2  # 1 £ per Company region
    assert s.balance[0] == 2 and s.regiments[0, 2] == 2 and s.taxed[0, bombay] == 1
    assert ledger.balanced(s).all()


def test_governor_general_failure_and_mishap_raise_unrest_everywhere():
    r, s = blank(2, 4)
    bombay, bengal = company_regions(r, s, ["Bombay", "Bengal"])
    strat = Scripted(general_govern=const(True))
    d = dice({0: [3, 4, 6], 1: [5, 6, 6]})
    governor_general(s, r, d, agents(r, s, strat))
    assert s.unrest[:, [bombay, bengal]].tolist() == [[1, 1], [1, 1]]
    assert s.office[:, L.GOVERNOR_GENERAL].tolist() == [3, -1] and s.supply[1, 3] == 12
    assert s.money[:, 3].tolist() == [0, 0]


def test_a_failed_governing_roll_raises_unrest_in_company_regions_only():
    """L126-L127 (2e powers): a failed roll (lowest 3) adds ``fail_unrest`` to every *Company* region; the sovereign
    regions (Delhi's empire and the rest) keep no unrest."""
    r, s = blank(1, 4)
    bombay, bengal = company_regions(r, s, ["Bombay", "Bengal"])
    governor_general(s, r, dice({0: [3, 4, 6]}), agents(r, s, Scripted(general_govern=const(True))))
    expected = [1 if i in (bombay, bengal) else 0 for i in range(len(r.d.regions))]
    assert s.unrest[0].tolist() == expected


def test_a_governor_general_whose_law_has_lapsed_does_not_act():
    """L126-L127: the office exists only while the law "Governor General" is in force. Both games seat a
    Governor-General over Bombay and Bengal (``company_income`` 3 £ per region); in game 1 the law has gone to the
    discard pile: he is not asked to govern, rolls nothing and brings the Company nothing there."""
    r, s = blank(2, 4, **{"governor_general.company_income": 3})
    company_regions(r, s, ["Bombay", "Bengal"])
    s.law_pile[1, r.d.law_names.index("Governor General")] = laws.DISCARD
    regiments = np.full(len(r.d.regions), L.G_REGIMENT)  # his effects: no £ for anyone
    strat = Scripted(general_govern=const(True), general_effects=const(regiments))
    d = dice({0: [5, 2, 6]})
    governor_general(s, r, d, agents(r, s, strat))
    assert strat.asked("general_govern") == [([0], [3])]
    assert d.rolls("lowest") == [3]
    d.assert_spent()
    assert s.balance.tolist() == [6, 0] and s.money[:, 3].tolist() == [2, 0]


def test_zamindar_taxes_add_to_his_bonus_and_failure_unrest():
    r, s = blank(2, 4)
    s.law_pile[:, r.d.law_names.index("Zamindar Taxes")] = laws.IN_FORCE
    bombay, _ = company_regions(r, s, ["Bombay", "Bengal"])
    strat = Scripted(general_govern=const(True))
    governor_general(s, r, dice({0: [1, 1, 1], 1: [4, 4, 4]}), agents(r, s, strat))
    assert s.money[:, 3].tolist() == [2 + 3, 0] and s.unrest[1, bombay] == 2


def test_company_income_per_region_key():
    r, s = blank(1, 4, **{"governor_general.company_income": 3})
    company_regions(r, s, ["Bombay", "Bengal"])
    governor_general(s, r, dice(), agents(r, s, Scripted(general_govern=const(False))))
    assert s.balance[0] == 6 and s.ledger[0, FLOW["governor_general_company"]] == 6


def test_blame_despots_charge_the_governor_general_four():
    from sim.phases.end import V, score

    r, s = blank(1, 4)
    in_force(s, r)
    seat_office(s, L.GOVERNOR_GENERAL, 2)
    s.done[:], s.crashed[:], s.end_round[:], s.blame[:] = True, True, 3, 4
    s.stability[:] = 0
    score(s, r)
    assert s.vp[0, :, V["blame"]].tolist() == [0, 0, -4, 0]


def test_a_seat_0_governor_general_governs():
    """The Governor-General's govern action (2e powers, D-CHECK): seat 0 holds the office, governs with 3 dice
    (lowest 2: success) and earns 1 £ per Company region (Bombay, Bengal: 2 £). Reading "somebody asked" as a seat
    >= 1 skips seat 0's roll: no dice, no bonus."""
    r, s = blank(1, 4)
    company_regions(r, s, ["Bombay", "Bengal"], seat=0)
    d = dice({0: [5, 2, 6]})
    governor_general(s, r, d, agents(r, s, Scripted(general_govern=const(True))))
    assert d.rolls("lowest") == [3]
    d.assert_spent()
    assert s.money[0, 0] == 2 and s.ledger[0, FLOW["governor_general"]] == 2


def test_general_govern_shows_the_company_regions():
    """Decision ``general_govern`` (strategies/base.py: ``legal.regions`` the Company's regions, ``legal.dice``):
    a strategy that governs only where the Company holds 2 regions or more sees game 0's two regions (govern: 3
    dice rolled, 2 £ bonus) and game 1's one (no roll). A legal view without ``regions`` breaks that strategy with
    a StrategyError."""
    r, s = blank(2, 4)
    bombay, bengal = company_regions(r, s, ["Bombay", "Bengal"], seat=2)
    s.owner[1, bengal] = -1
    seen = []

    def govern(obs, legal):
        seen.append((legal.regions.copy(), legal.dice.copy()))
        return legal.regions.sum(axis=1) >= 2

    d = dice({0: [5, 2, 6]})
    governor_general(s, r, d, agents(r, s, Scripted(general_govern=govern)))
    ((regions, n_dice),) = seen
    assert regions.tolist() == (s.owner >= 0).tolist() and n_dice.tolist() == [3, 3]
    assert d.rolls("lowest") == [3]
    d.assert_spent()
    assert s.money[:, 2].tolist() == [2, 0]


@pytest.mark.parametrize("bad", [-1, L.N_GOV_EFFECTS])
def test_the_governor_generals_effects_must_be_effects(bad):
    """L126-L127 (2e powers): after a successful governing roll the Governor-General picks an effect (layout.G_*) for
    every Company region; a number outside 0..N_GOV_EFFECTS - 1 is refused with the reason.
    Bombay is the Company's."""
    r, s = blank(1, 4)
    s.law_pile[0, r.d.law_names.index("Governor General")] = laws.IN_FORCE
    seat_office(s, L.GOVERNOR_GENERAL, 3)
    bombay = r.d.regions.index("Bombay")
    s.owner[:, bombay] = 0
    effects = np.zeros(len(r.d.regions), dtype=int)
    effects[bombay] = bad
    strat = Scripted(general_govern=const(True), general_effects=const(effects))
    with pytest.raises(
        IllegalDecision, match="general_effects.* in game 0: an effect layout.G_\\* for every Company region$"
    ):
        governor_general(s, r, dice({0: [5, 2, 6]}), agents(r, s, strat))
