"""The game state (``sim/state.py``) and its ledger (``sim/ledger.py``): every field built with its documented dtype
and shape, the start of a game (D-MAP, D-FAMILY), each relative counted once wherever he is (D-FAMILY), and money
paid to the families through the ledger."""

import numpy as np
from helpers import L, blank, fund, give

from sim import ledger
from sim.phases.family import legal_actions
from sim.rules import Rules
from sim.state import FLOW, new_state


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


def test_ledger_family_pays_seats_including_seat_0_and_skips_nobody():
    """ledger.family without a mask: seat -1 games get nothing; a scalar amount is paid to every seat given."""
    r, s = blank(3, 4)
    ledger.family(s, "lot_money", np.array([0, -1, 2]), np.int64(3))
    assert s.money.tolist() == [[3, 0, 0, 0], [0, 0, 0, 0], [0, 0, 3, 0]]
    ledger.family(s, "lot_money", np.array([0, 1, 2]), np.array([1, 2, 3]), where=np.array([False, True, True]))
    assert s.money.tolist() == [[3, 0, 0, 0], [0, 2, 0, 0], [0, 0, 6, 0]]
    assert s.ledger[:, FLOW["lot_money"]].tolist() == [3, 2, 6] and ledger.balanced(s).all()


def test_new_state_builds_every_field_with_its_documented_dtype_and_shape():
    """Every State field's comment in sim/state.py gives its dtype and shape (``int8[G,OFF]``): new_state must
    build exactly that (frames, Parquet shards and strategies rely on it)."""
    import re
    from dataclasses import fields
    from pathlib import Path

    import sim.state as state_mod

    r = Rules.default(5)
    s = state_mod.new_state(r, np.arange(3))
    dims = {"G": 3, "N": 5, "P": 3, "R": len(r.d.regions), "O": len(r.d.orders), "E": 5, "T": 5, "OFF": L.N_OFFICES}
    dims |= {"len(FLOWS)": len(state_mod.FLOWS), "len(TALLIES)": len(state_mod.TALLIES), "len(VP_SOURCES)": L.N_VP}
    dims |= {"K": len(r.map.events), "LAWS": len(r.parliament.laws), "D": len(r.positions.deck)}
    dims |= {"M": r.positions.revealed, "F": 5}  # the display; a firm slot per family
    source = Path(state_mod.__file__).read_text()
    documented = dict(re.findall(r"^    (\w+): np\.ndarray  # (\w+\[[^\]]+\])", source, flags=re.M))
    assert set(documented) == {f.name for f in fields(s)}
    for name, spec in documented.items():
        dtype, shape = re.match(r"(\w+)\[([^\]]+)\]", spec).groups()
        want = tuple(dims[d] if d in dims else int(d) for d in shape.split(","))
        got = getattr(s, name)
        assert (str(got.dtype), got.shape) == (dtype, want), name


def test_new_state_starts_the_company_and_the_families():
    """D-MAP, D-FAMILY: a new game starts the Company from the rules (a balance of 4, 2 loans, 3 £ in each of the 5
    office treasuries: 19 £ entered as the Company's start) in round 1, and every family with its 12 relatives at home;
    nothing was done last round, so nothing may be done twice (R-ACTIONS, L84); no winner, no blame situation."""
    r = Rules.default(4).with_overrides({"company.start_balance": 4, "company.start_loans": 2})
    s = new_state(r, np.arange(2))
    assert ledger.balanced(s).all() and s.ledger[:, FLOW["company_start"]].tolist() == [19, 19]
    assert s.balance.tolist() == [4, 4] and (s.treasury == 3).all()
    assert s.loans.tolist() == [2, 2] and s.round.tolist() == [1, 1] and (s.supply == 12).all()
    fund(s, 0, 20)
    assert not legal_actions(s, r, 0)[1].any()  # nothing was done last round: nothing may be done twice
    assert (s.last_action == -1).all() and (s.winner == -1).all() and (s.blame == -1).all()
