"""Rules as data: loading, overrides and one-line validation errors naming the key."""

import pickle
import re
import tomllib

import numpy as np
import pytest

from sim.india import turn_inward
from sim.rules import DEFAULT_PATH, Rules, RulesError
from sim.state import new_state


def test_default_rules_hold_the_seed_numbers():
    r = Rules.default()
    assert r.players == 5 and r.budget == 30  # R-CAPITAL: B = 30 for 5 players
    assert Rules.default(4).budget == 24 and Rules.default(6).budget == 36
    assert r.actions.exchange_prices == (2, 3, 3, 4, 5)
    assert [t.cost for t in r.retirement.tiers] == [2, 4, 8, 14, 20]  # R-RETIRE table
    assert [t.vp for t in r.retirement.tiers] == [0, 2, 4, 8, 12]
    assert r.d.expect[1] == 4 and r.d.expect[7] == 16  # E(s) = 2s + 2
    assert len(r.d.regions) == 8 and len(r.d.orders) == 17 and len(r.map.events) == 20  # D-MAP
    assert r.d.order_open0.sum() == 10  # seven orders closed at the 1710 start


@pytest.mark.parametrize("players, main, extra, played", [(4, 14, 5, 2), (5, 17, 6, 3), (6, 20, 7, 4)])
def test_lots_in_play_follow_d_extra(players, main, extra, played):
    d = Rules.default(players).d
    assert (~d.lot_extra).sum() == main and d.lot_extra.sum() == extra and d.n_extra_played == played
    assert main + played == 4 * players  # every family ends with 4 lots


def test_map_matrices_are_symmetric_and_reach_the_ports():
    d = Rules.default().d
    assert (d.adjacent == d.adjacent.T).all() and (d.links == d.links.T).all()
    assert [d.orders[p] for p in d.port] == ["Bombay3", "Madras1", "Bengal2"]
    assert [d.regions[h] for h in d.home] == ["Bombay", "Madras", "Bengal"]


def test_overrides_with_dotted_keys_and_list_entries():
    r = Rules.default().with_overrides({"capital.formula": "flat", "company.start_stability": 5})
    assert r.capital.formula == "flat" and r.company.start_stability == 5
    r2 = Rules.default().with_overrides({"map.orders.0.value": 9})
    assert r2.d.order_value[0] == 9
    assert Rules.default().d.order_value[0] == 7  # the default is untouched


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"capital.formulaa": "x"}, "capital.formulaa: unknown key"),
        ({"game.players": 7}, "game.players: 7 players is impossible"),
        ({"game.players": 3}, "game.players: 3 players is impossible"),
        ({"company.start_stability": "five"}, "company.start_stability: expected an integer"),
        ({"shipping.leased_cost": -2}, "shipping.leased_cost: expected a non-negative integer"),
        ({"capital.formula": "magic"}, "capital.formula: unknown formula 'magic'"),
        ({"map.orders.0.links": ["Nowhere"]}, "map.orders[0].links: link to unknown order 'Nowhere'"),
        ({"map.regions.0.adjacent": ["Delhi"]}, "map.regions[3].adjacent: Bombay lists Punjab"),
        ({"capital.bid_sum": "some"}, "capital.bid_sum: expected one of 'all', 'won'"),
        ({"capital.round_up_from": 1.5}, "capital.round_up_from: expected a number between 0 and 1"),
        ({"check.success_max": 5}, "check: need 1 <= success_max < mishap_min <= 6"),
        ({"auction.main_lots.1.office": "chairman"}, "office 'chairman' is in two lots"),
        ({"end.blame_weights": [1, 1]}, "end.blame_weights: needs 6 weights"),
    ],
)
def test_bad_rules_fail_with_one_line_naming_the_key(overrides, message):
    with pytest.raises(RulesError) as err:
        Rules.default().with_overrides(overrides)
    text = str(err.value)
    assert message in text and "\n" not in text


def test_unknown_override_path_through_a_list():
    with pytest.raises(RulesError, match=r"map\.orders\.99: no such list entry"):
        Rules.default().with_overrides({"map.orders.99.value": 1})


def test_rules_file_partial_merge_and_errors(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('[company]\nstart_stability = 6\n[capital]\nformula = "linear"\n')
    r = Rules.from_toml(f)
    assert r.company.start_stability == 6 and r.capital.formula == "linear" and r.players == 5
    bad = tmp_path / "bad.toml"
    bad.write_text("[company\nstart_stability = 6\n")
    with pytest.raises(RulesError, match=r"bad\.toml: malformed TOML"):
        Rules.from_toml(bad)
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("[weather]\nrain = 1\n")
    with pytest.raises(RulesError, match=r"unknown\.toml: weather: unknown section"):
        Rules.from_toml(unknown)
    with pytest.raises(RulesError, match="no such file"):
        Rules.from_toml(tmp_path / "missing.toml")


def test_the_default_file_is_a_complete_rules_file(tmp_path):
    copy = tmp_path / "copy.toml"
    copy.write_text(DEFAULT_PATH.read_text())
    assert Rules.from_toml(copy).digest() == Rules.default().digest()


def test_rules_pickle_and_stay_read_only():
    r = Rules.default(6).with_overrides({"capital.formula": "flat"})
    r2 = pickle.loads(pickle.dumps(r))
    assert r2.digest() == r.digest() and r2.players == 6
    with pytest.raises(ValueError):
        r.d.order_value[0] = 1
    assert isinstance(r.d.adjacent, np.ndarray)


def test_a_marker_without_a_facing_starts_turned_inward_as_minus_one():
    """MAP.md / state.py (``elephant_facing``: "-1 = turned inward"): a map whose crisis marker has no ``facing``
    starts it inside its region, encoded -1 -- the same value a marker turned inward during the game holds (R-ELEPHANT,
    L170, ``india.turn_inward``), so strategies (``elephant_facing`` is public) see one encoding (not -2 at the
    start)."""
    default = Rules.default()
    r = default.with_overrides({"map.elephant.facing": ""})
    maratha = r.d.regions.index("Maratha")
    assert r.d.elephant0 == (maratha, -1)
    start = new_state(r, np.arange(2))
    assert start.elephant_at.tolist() == [maratha, maratha] and start.elephant_facing.tolist() == [-1, -1]
    turned = new_state(default, np.arange(1))  # the default marker: Maratha facing Delhi, turned inward in play
    turn_inward(turned, default, np.array([0]), np.array([maratha]))
    assert turned.elephant_facing.tolist() == [-1] == start.elephant_facing[:1].tolist()


# ------------------------------------------------------------------------------ docs/rules.md covers the rules file
ROOT = DEFAULT_PATH.parents[2]
RULES_DOC = ROOT / "docs" / "rules.md"


def _mentioned(text: str, name: str) -> bool:
    """``name`` appears in ``text`` as a whole dotted name (``company.share_vp`` is not found in ``share_vp_min``)."""
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text) is not None


def test_rules_doc_mentions_every_key_of_the_default_rules_file():
    """docs/rules.md is the designers' reference: every key of ``sim/rules/default.toml``, flattened to
    ``section.key``, is named in it (keys added to the file later must be documented there too)."""
    with DEFAULT_PATH.open("rb") as fh:
        raw = tomllib.load(fh)
    keys = [f"{section}.{key}" for section, table in raw.items() for key in table]
    assert len(keys) > 150 and "india.cascade" in keys
    doc = RULES_DOC.read_text(encoding="utf-8")
    assert [k for k in keys if not _mentioned(doc, k)] == []


def test_rules_doc_mentions_every_reading_id_the_code_cites():
    """Every ``D-…`` id cited in ``sim/`` (code and the rules file) or ``strategies/`` is explained in docs/rules.md."""
    cited = set()
    for folder in ("sim", "strategies"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".toml"):
                cited |= set(re.findall(r"\bD-[A-Z0-9]+(?:-[A-Z0-9]+)*", path.read_text(encoding="utf-8")))
    assert {"D-EXPECT", "D-POSITIONS", "D-INITIATIVE"} <= cited
    doc = RULES_DOC.read_text(encoding="utf-8")
    assert sorted(i for i in cited if not _mentioned(doc, i)) == []
