"""``eastindia capital``: the starting capital (R-CAPITAL) of given bid totals, its budget per player like the rules
key ``capital.budget_per_player``."""

from __future__ import annotations

from experiments import cli


def test_capital_budget_is_per_player_like_the_rules_key(capsys):
    assert cli.main(["capital", "50", "35", "20", "0", "0", "--budget", "6"]) == 0
    text = capsys.readouterr().out
    assert "B = 6 per player x 5 = 30" in text
    rows = [line.split() for line in text.splitlines() if line[:1] in "ABCDE" and len(line.split()) == 4]
    assert [r[3] for r in rows] == ["4", "5", "6", "7", "7"]  # the seed's example: 6 per player is the default
    assert cli.main(["capital", "10", "10", "10", "10", "--budget", "7"]) == 0
    assert "B = 7 per player x 4 = 28" in capsys.readouterr().out
