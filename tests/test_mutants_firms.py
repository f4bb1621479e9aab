"""Tests for the firms modules' surviving mutants of the sampled mutation run (issue 15b; README "Development:
mutation testing"). Each test names the mutant it kills (``mutmut show NAME``) and the wrong reading it rules out."""

from __future__ import annotations

import numpy as np
from helpers import blank

from sim import firms


def test_a_merged_firm_keeps_its_own_sea_even_when_it_is_sea_0():
    """L104 (2e "合併"): the survivor keeps its ships' sea; only a survivor with no sea (-1) takes the absorbed firm's.
    Game 0: the survivor sails sea 0 (Bombay's), the absorbed one sea 2: it stays 0 -- a `sea < 1` reading of "no
    sea" would take 2 (kills sim.firms.x_merge__mutmut_14). Game 1: the survivor has no sea: it takes 2."""
    r, s = blank(2, 4)
    s.firm_manager[:, :2] = [0, 2]
    s.firm_sea[:, 0] = 2
    s.firm_sea[:, 1] = [0, -1]
    firms.merge(s, np.arange(2), np.array([1, 1]), np.array([0, 0]), np.zeros((2, 4), dtype=np.int64))
    assert s.firm_sea[:, 1].tolist() == [0, 2]
    assert s.firm_sea[:, 0].tolist() == [-1, -1] and s.firm_manager[:, 0].tolist() == [-1, -1]
