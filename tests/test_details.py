"""Details of the rules that the mutation runs found untested (issue 15), grouped by module. Each test names the
wrong reading it rules out."""

import numpy as np
from helpers import L, Scripted, agents, blank, const, dice, give

from sim import ledger
from sim.agents import StrategyRandom
from sim.dice import ScriptedDice, Streams
from sim.phases.operations import governors
from sim.state import FLOW, TALLY


# ---------------------------------------------------------------------------------------------- ledger / board
def test_presidency_tax_enters_the_ledger_per_game_and_a_seat_0_governor_can_be_fired():
    """Governors of Bombay: game 0 taxes for the presidency (+2 £ to its treasury, +2 on the tax flow: not -2, not
    the batch's total), game 1's governor is seat 0 and suffers a mishap: he is fired (seat 0 is a holder too), the
    round's fired tally adds to the one already counted."""
    r, s = blank(2, 4)
    i = r.d.regions.index("Bombay")
    s.owner[:, i] = 0
    s.governor[:, i] = [2, 0]
    s.supply[0, 2] -= 1
    s.supply[1, 0] -= 1
    s.tally[1, TALLY["fired"]] = 1
    strat = Scripted(govern=lambda obs, legal: obs.games == obs.games, govern_effect=const(L.G_TAX_PRESIDENCY))
    d = dice({0: [1, 6, 6, 3, 3, 4], 1: [5, 6, 6]})
    governors(s, r, d, agents(r, s, strat))
    assert s.treasury[:, L.T_PRESIDENCY[0]].tolist() == [5, 3] and s.ledger[:, FLOW["tax"]].tolist() == [2, 0]
    assert s.governor[:, i].tolist() == [2, -1] and s.supply[1, 0] == 12
    assert s.tally[:, TALLY["fired"]].tolist() == [0, 2] and ledger.balanced(s).all()


# ------------------------------------------------------------------------------------------------------- state
def test_relatives_count_every_place_once():
    """D-FAMILY: a relative in each place (supply, clerk, academy, officer, share, retired, debtors' prison, exchange,
    office, governor) is counted exactly once."""
    r, s = blank(1, 4)
    for field, col in (("clerks", 1), ("academy", None), ("officers", 2), ("shares", None), ("retired", 3)):
        give(s, field, 1, 1, col=col)
    give(s, "prisoners", 1, 2)
    s.exchange[0, 1] = 1
    s.office[0, L.DIRECTOR] = 1
    s.governor[0, 4] = 1
    s.supply[0, 1] -= 3
    assert s.supply[0, 1] == 12 - 10
    assert s.relatives()[0].tolist() == [12, 12, 12, 12]
    s.prisoners[0, 1] += 1
    s.governor[0, 5] = 1
    assert s.relatives()[0].tolist() == [12, 14, 12, 12]


# -------------------------------------------------------------------------------------------- dice and agents
def test_strategy_random_draws_one_number_per_choice_and_integer():
    streams = Streams(8, np.arange(2), 2)
    rng = StrategyRandom(streams, np.arange(2), np.zeros(2, dtype=np.int64))
    rng.choice(np.ones((2, 3), bool))
    rng.integers(np.zeros(2, dtype=np.int64), np.full(2, 5))
    assert streams.counters[1].tolist() == [2, 2] and streams.counters[0].tolist() == [0, 0]


def test_scripted_dice_defaults():
    d = ScriptedDice({0: [2]})
    assert d.uniform(np.array([0, 1])).tolist() == [[0.0], [0.0]]
    d.lowest(np.array([0]), 1)
    assert d.rolls() == [1] and d.rolls(game=0) == [1] and d.rolls("uniform") == [1, 1]
