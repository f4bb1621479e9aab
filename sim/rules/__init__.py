"""The game's rules as one typed, frozen, validated object loaded from TOML.

``Rules.default(players=5)`` reads ``default.toml`` beside this file; ``Rules.from_toml(path)`` merges a (possibly
partial) rules file over it; ``rules.with_overrides({"capital.formula": "flat"})`` sets dotted keys. Every load
validates the whole file and raises ``RulesError`` with one line naming the file and the key.
"""

from __future__ import annotations

import copy
import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import layout as L
from .schema import (
    ActionRules,
    AuctionRules,
    CapitalRules,
    CheckRules,
    ChinaRules,
    CompanyRules,
    CostRules,
    DeregulationRules,
    DirectorRules,
    EndRules,
    FirmRules,
    GameRules,
    GovernorGeneralRules,
    GovernorRules,
    IndiaRules,
    MapRules,
    MilitaryRules,
    NotesRules,
    ParliamentRules,
    PositionRules,
    PropertyRules,
    RetirementRules,
    RulesError,
    ShippingRules,
    StabilityRules,
    TradeRules,
    build,
)
from .vocabulary import EFFECTS, MODIFIERS, NOTE_BONUS_FLOWS, NOTE_KINDS, POLICY_KINDS

__all__ = ["DEFAULT_PATH", "Rules", "RulesError", "load_toml", "merge"]

DEFAULT_PATH = Path(__file__).with_name("default.toml")
MIN_PLAYERS, MAX_PLAYERS = 4, 6
ASSETS = ("luxuries", "shares", "shipyards", "factories")


# Limits of a rules or experiment file, so that a malformed one is refused at once rather than exhausting memory,
# time or the stack: the default rules are 37 KB and nest 6 deep (the top level counts as one).
MAX_TOML_BYTES = 1 << 20
WRITTEN_TOML_BYTES = 256 << 20  # a file the runner wrote itself (a run folder's resolved experiment.toml)
MAX_TOML_DEPTH = 32


def load_toml(path: str | Path, limit: int | None = None) -> dict:
    """Read a TOML file; a syntax error becomes a one-line RulesError naming the file, and so does a file larger
    than ``limit`` (default ``MAX_TOML_BYTES``) or with tables and lists nested more than ``MAX_TOML_DEPTH`` deep."""
    path = Path(path)
    limit = MAX_TOML_BYTES if limit is None else limit
    if path.exists() and not path.is_file() and not path.is_dir():  # a device or pipe would never end
        raise RulesError(f"{path}: is not a regular file")
    too_deep = f"{path}: tables and lists nested more than {MAX_TOML_DEPTH} deep (the limit of a TOML file here)"
    try:
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
        if len(data) > limit:
            raise RulesError(f"{path}: larger than {limit / 2**20:g} MiB (the limit of a TOML file here)")
        raw = tomllib.loads(data.decode("utf-8"))
    except FileNotFoundError:
        raise RulesError(f"{path}: no such file") from None
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"{path}: malformed TOML: {exc}") from None
    except UnicodeDecodeError as exc:  # every unreadable file is one line naming it
        raise RulesError(f"{path}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start})") from None
    except IsADirectoryError:
        raise RulesError(f"{path}: is a folder, not a TOML file") from None
    except OSError as exc:
        raise RulesError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except RecursionError:  # the parser recurses once per level: nesting deeper than the stack
        raise RulesError(too_deep) from None
    if _deeper_than(raw, MAX_TOML_DEPTH):
        raise RulesError(too_deep)
    return raw


def _deeper_than(value: Any, limit: int) -> bool:
    """Do tables and lists nest more than ``limit`` deep in ``value``? (Without recursion: any depth is safe.)"""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def merge(base: dict, over: dict) -> dict:
    """``over`` merged into ``base`` table by table (lists and values replace)."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def _set_dotted(raw: dict, key: str, value: Any, source: str) -> None:
    parts = key.split(".")
    node: Any = raw
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        where = ".".join(parts[: i + 1])
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise RulesError(f"{source}: {where}: no such list entry")
            part = int(part)
        elif not isinstance(node, dict) or part not in node:
            raise RulesError(f"{source}: {where}: unknown key")
        if last:
            node[part] = value
        else:
            node = node[part]


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


SECTIONS = {
    "game": GameRules, "capital": CapitalRules, "auction": AuctionRules, "notes": NotesRules,
    "retirement": RetirementRules, "positions": PositionRules, "actions": ActionRules,
    "property": PropertyRules, "check": CheckRules, "company": CompanyRules,
    "stability": StabilityRules, "costs": CostRules, "director": DirectorRules,
    "shipping": ShippingRules, "military": MilitaryRules, "governors": GovernorRules,
    "trade": TradeRules, "china": ChinaRules, "firms": FirmRules, "india": IndiaRules,
    "parliament": ParliamentRules, "deregulation": DeregulationRules, "end": EndRules,
    "map": MapRules, "governor_general": GovernorGeneralRules,
}  # fmt: skip


@dataclass(frozen=True)
class Rules:
    """All rule numbers and content. Sections mirror the TOML tables; derived arrays are computed on load."""

    game: GameRules
    capital: CapitalRules
    auction: AuctionRules
    notes: NotesRules
    retirement: RetirementRules
    positions: PositionRules
    actions: ActionRules
    property: PropertyRules
    check: CheckRules
    company: CompanyRules
    stability: StabilityRules
    costs: CostRules
    director: DirectorRules
    shipping: ShippingRules
    military: MilitaryRules
    governors: GovernorRules
    trade: TradeRules
    china: ChinaRules
    firms: FirmRules
    india: IndiaRules
    parliament: ParliamentRules
    deregulation: DeregulationRules
    end: EndRules
    map: MapRules
    governor_general: GovernorGeneralRules
    raw: dict = field(repr=False, compare=False)
    source: str = field(default="default.toml", compare=False)

    # ------------------------------------------------------------------------------------------ constructors
    @classmethod
    def default(cls, players: int | None = None) -> Rules:
        raw = load_toml(DEFAULT_PATH)
        if players is not None:
            raw["game"]["players"] = players
        return cls.from_dict(raw, source=DEFAULT_PATH.name)

    @classmethod
    def from_toml(cls, path: str | Path, players: int | None = None) -> Rules:
        """Load a rules file; keys it leaves out keep their default values."""
        over = load_toml(path)
        raw = merge(load_toml(DEFAULT_PATH), over)
        if players is not None and isinstance(raw.get("game"), dict):  # else the loader reports the bad table
            raw["game"]["players"] = players
        return cls.from_dict(raw, source=str(path))

    @classmethod
    def from_dict(cls, raw: dict, source: str = "rules") -> Rules:
        """Build and validate; the first problem raises RulesError."""
        rules = cls._build(copy.deepcopy(raw), source, None)
        object.__setattr__(rules, "_derived", _derive(rules))
        return rules

    @classmethod
    def problems(cls, raw: dict, source: str = "rules") -> list[str]:
        """Every problem of a rules table (one line each; empty when valid)."""
        errors: list[str] = []
        cls._build(copy.deepcopy(raw), source, errors)
        return errors

    @classmethod
    def _build(cls, raw: dict, source: str, errors: list[str] | None) -> Rules | None:
        def fail(msg: str) -> None:
            if errors is None:
                raise RulesError(msg)
            errors.append(msg)

        known = {f for f in cls.__dataclass_fields__ if f not in ("raw", "source")}
        for name in sorted(set(raw) - known):
            fail(f"{source}: {name}: unknown section (known: {', '.join(sorted(known))})")
        sections = {}
        for name, section_cls in SECTIONS.items():
            if name not in raw:
                fail(f"{source}: {name}: missing section")
                continue
            sections[name] = build(section_cls, raw[name], name, source, errors)
        if errors:
            return None
        rules = cls(**sections, raw=raw, source=source)
        rules._validate(errors)
        return None if errors else rules

    def with_overrides(self, overrides: dict[str, Any], source: str = "overrides") -> Rules:
        """A copy with dotted keys set, e.g. ``{"capital.formula": "flat", "company.start_stability": 5}``."""
        raw = copy.deepcopy(self.raw)
        for key, value in overrides.items():
            _set_dotted(raw, key, value, source)
        return Rules.from_dict(raw, source=f"{self.source} + {source}")

    def __reduce__(self):  # pickle by content: joblib workers rebuild (and re-validate) from the raw dict
        return (Rules.from_dict, (self.raw, self.source))

    # ------------------------------------------------------------------------------------------- accessors
    @property
    def players(self) -> int:
        return self.game.players

    @property
    def budget(self) -> int:
        """B, the total starting capital (R-CAPITAL)."""
        return self.capital.budget_per_player * self.game.players

    @property
    def d(self) -> Derived:
        """Derived numpy arrays (map matrices, lot tables, office masks)."""
        return self._derived  # type: ignore[attr-defined]

    def digest(self) -> str:
        """A hash of the rules' content, for run folders and caches."""
        text = json.dumps(self.raw, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def dump(self) -> str:
        return DEFAULT_PATH.read_text(encoding="utf-8")

    # ------------------------------------------------------------------------------------------ validation
    def _validate(self, errors: list[str] | None = None) -> None:
        """Cross-key checks; raise at the first problem, or record them all in ``errors``."""
        src = self.source

        def fail(key: str, msg: str) -> None:
            if errors is None:
                raise RulesError(f"{src}: {key}: {msg}")
            errors.append(f"{src}: {key}: {msg}")

        n = self.game.players
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            fail("game.players", f"{n} players is impossible: the game takes {MIN_PLAYERS} to {MAX_PLAYERS}")
        if self.game.family_size < 1:
            fail("game.family_size", "a family needs at least one relative")
        if self.game.rounds < 1:
            fail("game.rounds", "the game needs at least one round")

        from ..capital import FORMULAS  # late import: capital formulas register themselves

        if self.capital.formula not in FORMULAS:
            fail(
                "capital.formula",
                f"unknown formula {self.capital.formula!r} (known: {', '.join(sorted(FORMULAS))})",
            )
        if self.capital.round_up_from <= 0:
            fail("capital.round_up_from", "must be above 0")

        m = self.map
        presidencies = tuple(p.name for p in m.presidencies)
        if len(presidencies) != L.PRESIDENCIES:
            fail(
                "map.presidencies",
                f"the game has exactly {L.PRESIDENCIES} presidencies, got {len(presidencies)}",
            )
        offices = L.office_names(presidencies)
        regions = [r.name for r in m.regions]
        orders = [o.name for o in m.orders]
        for what, names in (
            ("map.presidencies", presidencies),
            ("map.regions", regions),
            ("map.orders", orders),
        ):
            dup = {x for x in names if names.count(x) > 1}
            if dup:
                fail(what, f"duplicate name {sorted(dup)[0]!r}")
        rset, oset = set(regions), set(orders)
        for i, r in enumerate(m.regions):
            for a in r.adjacent:
                if a not in rset:
                    fail(f"map.regions[{i}].adjacent", f"unknown region {a!r}")
                    continue  # (collecting every problem: the checks below need a known region)
                if a == r.name:
                    fail(f"map.regions[{i}].adjacent", "a region cannot be adjacent to itself")
                if r.name not in m.regions[regions.index(a)].adjacent:
                    fail(f"map.regions[{i}].adjacent", f"{r.name} lists {a} but {a} does not list {r.name}")
            if r.capital and r.capital not in rset:
                fail(f"map.regions[{i}].capital", f"unknown region {r.capital!r}")
        for i, o in enumerate(m.orders):
            if o.region not in rset:
                fail(f"map.orders[{i}].region", f"unknown region {o.region!r}")
            if o.half > o.value:
                fail(f"map.orders[{i}].half", "half value above the full value")
            for link in o.links:
                if link not in oset:
                    fail(f"map.orders[{i}].links", f"link to unknown order {link!r}")
                    continue
                if o.name not in m.orders[orders.index(link)].links:
                    fail(f"map.orders[{i}].links", f"{o.name} links {link} but {link} does not link {o.name}")
        for i, p in enumerate(m.presidencies):
            if p.home not in rset:
                fail(f"map.presidencies[{i}].home", f"unknown region {p.home!r}")
            if p.port not in oset:
                fail(f"map.presidencies[{i}].port", f"unknown order {p.port!r}")
            elif m.orders[orders.index(p.port)].region != p.home:
                fail(f"map.presidencies[{i}].port", f"port {p.port} is not in the home region {p.home}")
        for i, e in enumerate(m.events):
            if e.region not in rset:
                fail(f"map.events[{i}].region", f"unknown region {e.region!r}")
        if m.elephant.from_ not in rset:
            fail("map.elephant.from", f"unknown region {m.elephant.from_!r}")
        if m.elephant.facing and m.elephant.facing not in rset:
            fail("map.elephant.facing", f"unknown region {m.elephant.facing!r}")
        if m.elephant.facing == m.elephant.from_:
            fail("map.elephant.facing", "the crisis marker cannot face the region it stands in")
        # phase 8: the march shapes name neighbours; the tile stack fits its int8 encoding
        for i, r in enumerate(m.regions):
            for shape, target in r.shapes.items():
                if shape not in L.SHAPES:
                    fail(f"map.regions[{i}].shapes", f"unknown shape {shape!r} (known: {', '.join(L.SHAPES)})")
                if target not in r.adjacent:
                    fail(f"map.regions[{i}].shapes", f"{shape} marches to {target!r}, not a neighbour of {r.name}")
        if not 1 <= len(m.events) <= 127:
            fail("map.events", "needs between 1 and 127 event tiles")

        # starting lots (R-AUCTION, D-EXTRA, D-LOTS)
        a = self.auction
        main = [lot for lot in a.main_lots if lot.min_players <= n]
        extra = [lot for lot in a.extra_lots if lot.min_players <= n]
        offered, played = n + a.extra_offered, n + a.extra_played
        if not 0 <= played <= offered:
            fail("auction.extra_played", f"{played} additional lots played of {offered} offered is impossible")
        if len(extra) != offered:
            fail(
                "auction.extra_lots",
                f"{n} players need {offered} additional lots in play, the file has {len(extra)}",
            )
        need = a.lots_per_family * n - played
        if len(main) != need:
            fail("auction.main_lots", f"{n} players need {need} main lots in play, the file has {len(main)}")
        in_play = [x.office for x in main + extra if x.office]
        if len(in_play) != len(set(in_play)):
            fail("auction", f"office {sorted(o for o in in_play if in_play.count(o) > 1)[0]!r} is in two lots")
        people = sorted(
            (int(x.office != "") + x.shares + sum(x.clerks) + sum(x.officers) + x.academy for x in main + extra),
            reverse=True,
        )
        if sum(people[: a.lots_per_family]) > self.game.family_size:
            fail("auction", f"a family could win lots needing more than its {self.game.family_size} relatives")
        for kind, lots in (("main_lots", a.main_lots), ("extra_lots", a.extra_lots)):
            for i, lot in enumerate(lots):
                if lot.office and lot.office not in offices:
                    fail(f"auction.{kind}[{i}].office", f"unknown office {lot.office!r}")
                for items in ("clerks", "officers"):
                    if len(getattr(lot, items)) != L.PRESIDENCIES:
                        fail(
                            f"auction.{kind}[{i}].{items}",
                            f"needs {L.PRESIDENCIES} numbers, one per presidency",
                        )

        for key, names in (("retirement.offices", self.retirement.offices),
                           ("actions.committee_heads", self.actions.committee_heads)):  # fmt: skip
            for name in names:
                if name not in offices:
                    fail(key, f"unknown office {name!r}")
        if not self.retirement.tiers:
            fail("retirement.tiers", "needs at least one tier")
        # R-UPKEEP and D-POSITIONS
        elif self.retirement.unpaid_upkeep == "lowest_tier" and self.retirement.tiers[0].upkeep:
            fail("retirement.unpaid_upkeep", '"lowest_tier" needs a first tier without upkeep')
        deck = self.positions.deck
        if len(deck) > 127:
            fail("positions.deck", "at most 127 cards")
        for i, card in enumerate(deck):
            key = f"positions.deck[{i}]"
            effects = (card.votes, card.wealth, card.influence, card.money, card.ignore_nepotism, card.extra_action)
            if not any(effects):
                fail(key, f"card {card.name!r} has no effect")
            if card.kind == "permanent":
                if card.moment:
                    fail(f"{key}.moment", "a permanent card is held, not played: it has no moment")
                for one_shot in ("money", "ignore_nepotism", "extra_action"):
                    if getattr(card, one_shot):
                        fail(f"{key}.{one_shot}", "a one-shot effect needs a closed card")
                continue
            if not card.moment:
                fail(f"{key}.moment", f"a closed card needs a moment ({', '.join(L.CARD_MOMENTS)})")
            if card.influence:
                fail(f"{key}.influence", "influence counts for cards held: only permanent cards give it")
            if card.ignore_nepotism > 1:
                fail(f"{key}.ignore_nepotism", "a card waives nepotism for one appointment: 0 or 1")
            if bool(card.ignore_nepotism) != (card.moment == "appointments"):
                fail(f"{key}.moment", 'ignore_nepotism is played at, and only at, the "appointments" moment')
            if card.extra_action and card.moment != "family_actions":
                fail(f"{key}.moment", 'extra_action is played at the "family_actions" moment')
            if card.votes and card.moment != "parliament":
                fail(f"{key}.moment", 'votes of a closed card are played at the "parliament" moment')
        if not self.actions.exchange_prices:
            fail("actions.exchange_prices", "needs at least one position")
        prices = self.actions.exchange_prices
        if any(b < a for a, b in zip(prices, prices[1:], strict=False)):
            fail("actions.exchange_prices", "positions must be listed cheapest first")
        c = self.check
        if not 1 <= c.success_max < c.mishap_min <= 6:
            fail("check", "need 1 <= success_max < mishap_min <= 6")
        co = self.company
        if not 1 <= co.start_stability <= co.max_stability:
            fail("company.start_stability", f"must be within 1..{co.max_stability}")
        if co.start_loans > co.max_loans:
            fail("company.start_loans", "above company.max_loans")
        if not co.share_vp_min <= co.share_vp <= co.share_vp_max:
            fail("company.share_vp", "outside share_vp_min..share_vp_max")
        if co.loan_value < 1:
            fail("company.loan_value", "a loan must be worth at least 1 £")
        if self.stability.emergency_loans_per_loss < 1:
            fail("stability.emergency_loans_per_loss", "must be at least 1")
        if not 1 <= self.military.death_on <= 7:
            fail("military.death_on", "must be a d6 face, or 7 for never")
        if len(self.end.blame_weights) != len(L.BLAME_NAMES) or sum(self.end.blame_weights) <= 0:
            fail("end.blame_weights", f"needs {len(L.BLAME_NAMES)} weights with a positive sum")
        if set(self.end.influence_ladder) != set(ASSETS):
            fail("end.influence_ladder", f"needs exactly the assets {', '.join(ASSETS)}")
        last = [b.last_round for b in self.end.influence_vp]
        if not last or last != sorted(last) or last[-1] < self.game.rounds:
            fail("end.influence_vp", f"last_round must increase and reach round {self.game.rounds}")
        for table in ("storms", "storms_jc2e"):
            storms = getattr(self.india, table)
            if sorted(s.face for s in storms) != [1, 2, 3, 4, 5, 6]:
                fail(f"india.{table}", "needs one entry for each face 1..6")
            for i, s in enumerate(storms):
                for sea in s.seas:
                    if sea not in presidencies:
                        fail(f"india.{table}[{i}].seas", f"unknown presidency sea {sea!r}")
        ind = self.india
        if not 1 <= ind.storm_damage_from <= ind.storm_sink_from <= 7:
            fail("india.storm_damage_from", "need 1 <= storm_damage_from <= storm_sink_from <= 7 (7: never)")
        if not 1 <= ind.officer_death_on <= 7:
            fail("india.officer_death_on", "must be a d6 face, or 7 for never")
        if not self.parliament.policies:
            fail("parliament.policies", "needs at least one policy")
        self._validate_politics(fail)
        fi = self.firms
        if fi.max_value < 1:
            fail("firms.max_value", "the value track needs at least one space")
        if len(fi.share_vp) != fi.max_value:
            fail("firms.share_vp", f"needs one entry per firm value 1..{fi.max_value}")
        if fi.max_shareholders < 1:
            fail("firms.max_shareholders", "a firm needs room for its first shareholder")
        if fi.revenue_per_value < 1:
            fail("firms.revenue_per_value", "must be at least 1 £")

        # numbers the engine keeps in int8 state or uses as loop lengths and array sizes (beyond the
        # +-NUMBER_MAX every number has), each with the headroom a round's changes need
        rt = self.retirement
        bounded = {
            "game.rounds": (self.game.rounds, 0, 100),  # round, end_round: int8 (0: "needs at least one round")
            "company.max_stability": (co.max_stability, 1, 100),  # stability: int8
            "company.royal_protection": (co.royal_protection, 0, 100),  # int8
            "company.share_vp_min": (co.share_vp_min, -100, 100),  # share_vp: int8
            "company.share_vp_max": (co.share_vp_max, -100, 100),
            "director.moves": (self.director.moves, 0, 100),  # a loop and a [G, moves] array per decision
            "military.moves": (self.military.moves, 0, 100),
            "retirement.chairman_bonus": (rt.chairman_bonus, 0, 100),  # added to int8 stress rolls
        }
        bounded["governors.admin_dice"] = (self.governors.admin_dice, 0, 100)  # dice per check: a [G, dice] draw
        for i, region in enumerate(m.regions):
            bounded[f"map.regions[{i}].admin_dice"] = (region.admin_dice, 0, 100)
        bounded["firms.max_value"] = (self.firms.max_value, 1, 100)  # firm_value: int8
        for key, (value, low, high) in bounded.items():
            if not low <= value <= high:
                fail(key, f"{value} is beyond what the engine holds (it must be within {low}..{high})")
        # content the engine indexes with int8 (event tiles and position cards are checked with their sections)
        for key, count in (("map.regions", len(m.regions)), ("parliament.policies", len(self.parliament.policies))):
            if count > 127:
                fail(key, f"{count} entries are beyond what the engine holds (at most 127)")
        for key in ("leased_cost", "yard_cost", "company_cost"):  # the Shipping Manager spends the budget down
            if getattr(self.shipping, key) < 1:
                fail(f"shipping.{key}", "a ship must cost at least 1 £ (the budget is spent down in ships)")
        if rt.stress_bonus * self.game.rounds + rt.chairman_bonus > 120:  # stress markers (int8), one per round
            fail(
                "retirement.stress_bonus",
                f"{rt.stress_bonus} per stress marker over {self.game.rounds} rounds, plus the chairman's bonus, is "
                "beyond what the engine holds in int8 (at most 120)",
            )

    # ------------------------------------------------------------------ phase 9, 11 and notes
    def _validate_politics(self, fail) -> None:
        """R-NOTE, R-PARLIAMENT, D-LAWS, R-DEREGULATION cross-checks (names from ``sim.rules.vocabulary``)."""
        nt = self.notes
        if nt.kinds != NOTE_KINDS:
            fail("notes.kinds", f"the engine knows exactly the kinds {list(NOTE_KINDS)} in this order")
        for flow in nt.bonus_flows:
            if flow not in NOTE_BONUS_FLOWS:
                fail("notes.bonus_flows", f"unknown bonus {flow!r} (known: {', '.join(NOTE_BONUS_FLOWS)})")
        pa = self.parliament
        n_pol = len(pa.policies)
        if not 0 <= pa.policy_start < n_pol:
            fail("parliament.policy_start", f"must be a policy index 0..{n_pol - 1}")
        if pa.max_laws < 1:
            fail("parliament.max_laws", "the PM must draw at least one law")
        if not pa.laws:
            fail("parliament.laws", "needs at least one law")
        names = [law.name for law in pa.laws]
        actions = set(L.ACTION_NAMES) - {"pass"}
        for i, law in enumerate(pa.laws):
            where = f"parliament.laws[{i}]"
            if names.count(law.name) > 1:
                fail(f"{where}.name", f"duplicate law {law.name!r}")
            if law.policy and law.policy not in set(POLICY_KINDS) | set(ASSETS):
                fail(f"{where}.policy", f"{law.policy!r} is neither a policy kind nor an asset")
            for key, effects in (("on_pass", law.on_pass), ("on_fail", law.on_fail)):
                for j, eff in enumerate(effects):
                    if eff.effect not in EFFECTS:
                        fail(
                            f"{where}.{key}[{j}].effect", f"unknown effect {eff.effect!r} (known: {', '.join(EFFECTS)})"
                        )
                    if eff.effect == "money_per_asset" and eff.asset not in ASSETS:
                        fail(f"{where}.{key}[{j}].asset", f"needs one of {', '.join(ASSETS)}")
                    if not -100 <= eff.amount <= 100:  # added to int8 state (share VP, royal protection, stability)
                        fail(
                            f"{where}.{key}[{j}].amount",
                            f"{eff.amount} is beyond what the engine holds (it must be within -100..100)",
                        )
            for mod in law.modifiers:
                if mod not in MODIFIERS:
                    fail(f"{where}.modifiers.{mod}", f"unknown modifier (known: {', '.join(MODIFIERS)})")
            if law.extra_action and law.extra_action not in actions:
                fail(f"{where}.extra_action", f"unknown family action (known: {', '.join(sorted(actions))})")
            for other in law.discards:
                if other not in names or other == law.name:
                    fail(f"{where}.discards", f"unknown law {other!r}")
        if pa.vote_cost < 1:
            fail("parliament.vote_cost", "a bought vote must cost at least 1 £")
        de = self.deregulation
        if de.forced_stability > de.table_stability_max or de.forced_debt < de.table_debt_min:
            fail("deregulation", "the public's thresholds must lie within the PM's (forced implies tablable)")


@dataclass(frozen=True)
class Derived:
    """Arrays computed from the rules once per load (read-only)."""

    presidencies: tuple[str, ...]
    offices: tuple[str, ...]
    regions: tuple[str, ...]
    orders: tuple[str, ...]
    # lots in play: the main lots, then the additional lots offered (R-AUCTION)
    lot_names: tuple[str, ...]
    lot_extra: np.ndarray  # bool[LOTS]
    lot_office: np.ndarray  # int[LOTS] office index or -1
    lot_pm: np.ndarray  # bool[LOTS]
    lot_items: dict[str, np.ndarray]  # item -> int[LOTS] (clerks/officers -> int[LOTS, 3])
    n_extra_played: int
    # offices
    retire_offices: np.ndarray  # bool[OFFICES]
    committee_heads: np.ndarray  # bool[OFFICES]
    # retirement tiers
    tier_cost: np.ndarray
    tier_upkeep: np.ndarray
    tier_wealth: np.ndarray
    tier_vp: np.ndarray
    exchange_prices: np.ndarray  # int[POSITIONS]
    # position cards (D-POSITIONS), one entry per card of the deck
    card_names: tuple[str, ...]
    card_permanent: np.ndarray  # bool[D]
    card_moment: np.ndarray  # int[D] index in layout.CARD_MOMENTS, -1 for permanent cards
    card_votes: np.ndarray  # int[D]
    card_wealth: np.ndarray  # int[D]
    card_influence: np.ndarray  # int[D]
    card_money: np.ndarray  # int[D]
    card_nepotism: np.ndarray  # int[D] ignore_nepotism
    card_extra: np.ndarray  # int[D] extra family actions
    # map
    adjacent: np.ndarray  # bool[R, R]
    links: np.ndarray  # bool[O, O]
    order_region: np.ndarray  # int[O]
    order_in_region: np.ndarray  # bool[O, R]
    order_value: np.ndarray
    order_half: np.ndarray
    order_open0: np.ndarray  # bool[O] open at the start
    home: np.ndarray  # int[P] home region
    port: np.ndarray  # int[P] home-port order
    opium: np.ndarray  # int[R]
    first_loot: np.ndarray  # int[R]
    admin_dice: np.ndarray  # int[R]
    strength0: np.ndarray  # int[R]
    capital0: np.ndarray  # int[R] region index of the empire's capital (itself when independent)
    merc_cost: np.ndarray  # int[P, M]
    merc_strength: np.ndarray  # int[P, M]
    merc_valid: np.ndarray  # bool[P, M]
    expect: np.ndarray  # int[S+1] public expectation E(s) per stability level
    blame_p: np.ndarray  # float[6] probability of each blame situation
    # phase 8, India
    storm_seas: np.ndarray  # bool[6, P] seas the storm die's face hits (india.storm_table's table)
    storm_events: np.ndarray  # int[6] events the face draws
    tile_kind: np.ndarray  # int[K] layout.EVENT_KINDS index of each event tile
    tile_region: np.ndarray  # int[K] region printed on the tile
    tile_modifier: np.ndarray  # int[K]
    tile_shape: np.ndarray  # int[K] layout.SHAPES index, NO_SHAPE when the tile has none
    shape_target: np.ndarray  # int[R, 4] neighbour a shape marches the crisis marker to (NO_SHAPE: the first)
    clockwise: np.ndarray  # int[R, D] neighbours in clockwise order, padded with -1
    degree: np.ndarray  # int[R] neighbours
    cw_pos: np.ndarray  # int[R, R] position of a neighbour in the clockwise list, -1 if not a neighbour
    border_orders: np.ndarray  # bool[R, R, O] orders on a link across the border of two regions
    cross_links: np.ndarray  # int[R, J] orders next door linked to each region's orders (file order), -1 pad
    cross_count: np.ndarray  # int[R] such links per region
    elephant0: tuple  # (region it stands in / points from, region it faces or -1) at the start
    # politics: the policy track, the law deck, the influence ladder
    policy_kind: np.ndarray  # int[POLICIES] index into vocabulary.POLICY_KINDS
    policy_asset: np.ndarray  # int[POLICIES] index into ASSETS
    policy_wealth: np.ndarray  # bool[POLICIES] the tax also counts conspicuous wealth
    law_names: tuple[str, ...]
    law_support: np.ndarray  # int[LAWS]
    law_dilemma: np.ndarray  # bool[LAWS]
    law_lasting: np.ndarray  # bool[LAWS]
    law_recall: np.ndarray  # bool[LAWS]
    law_policy: np.ndarray  # bool[LAWS, POLICIES] policies matching each law's type
    law_mod: np.ndarray  # int[LAWS, MODIFIERS] modifiers while in force
    law_extra: np.ndarray  # int[LAWS] family action taken once more while in force, -1 none
    law_discards: np.ndarray  # bool[LAWS, LAWS] passing row discards column from force
    law_dereg_discard: np.ndarray  # bool[LAWS]
    law_impeach: np.ndarray  # bool[LAWS] the PM names an officeholder before the vote
    law_options: np.ndarray  # int[POLICIES, LAWS, 2] nearest matching policy down/up the track from each position
    ladder0: np.ndarray  # int[4] influence per asset at the start (ASSETS order)


def _derive(r: Rules) -> Derived:
    n = r.players
    presidencies = tuple(p.name for p in r.map.presidencies)
    offices = L.office_names(presidencies)
    regions = tuple(x.name for x in r.map.regions)
    orders = tuple(o.name for o in r.map.orders)
    lots = [x for x in r.auction.main_lots if x.min_players <= n]
    n_main = len(lots)
    lots += [x for x in r.auction.extra_lots if x.min_players <= n]
    items: dict[str, np.ndarray] = {}
    for key in ("shares", "shipyards", "factories", "luxuries", "academy", "positions", "money"):
        items[key] = _frozen(np.array([getattr(x, key) for x in lots], dtype=np.int32))
    for key in ("clerks", "officers"):
        items[key] = _frozen(np.array([getattr(x, key) for x in lots], dtype=np.int32).reshape(len(lots), 3))
    n_r, n_o = len(regions), len(orders)
    adjacent = np.zeros((n_r, n_r), dtype=bool)
    for i, reg in enumerate(r.map.regions):
        for a in reg.adjacent:
            adjacent[i, regions.index(a)] = True
    links = np.zeros((n_o, n_o), dtype=bool)
    for i, o in enumerate(r.map.orders):
        for link in o.links:
            links[i, orders.index(link)] = True
    order_region = np.array([regions.index(o.region) for o in r.map.orders], dtype=np.int64)
    m_max = max(len(p.mercenaries) for p in r.map.presidencies)
    merc_cost = np.zeros((3, max(m_max, 1)), dtype=np.int32)
    merc_strength = np.zeros_like(merc_cost)
    merc_valid = np.zeros(merc_cost.shape, dtype=bool)
    for p, pres in enumerate(r.map.presidencies):
        for j, merc in enumerate(pres.mercenaries):
            merc_cost[p, j], merc_strength[p, j], merc_valid[p, j] = merc.cost, merc.strength, True
    s_max = r.company.max_stability
    expect = np.array([r.stability.expect_per_level * s + r.stability.expect_base for s in range(s_max + 1)])
    w = np.array(r.end.blame_weights, dtype=float)
    tiers = r.retirement.tiers
    india = _derive_india(r, regions, orders, presidencies, adjacent, links, order_region)
    return Derived(
        presidencies=presidencies,
        offices=offices,
        regions=regions,
        orders=orders,
        lot_names=tuple(x.name for x in lots),
        lot_extra=_frozen(np.arange(len(lots)) >= n_main),
        lot_office=_frozen(np.array([offices.index(x.office) if x.office else -1 for x in lots], dtype=np.int64)),
        lot_pm=_frozen(np.array([x.prime_minister for x in lots], dtype=bool)),
        lot_items=items,
        n_extra_played=n + r.auction.extra_played,
        retire_offices=_frozen(np.isin(np.arange(len(offices)), [offices.index(o) for o in r.retirement.offices])),
        committee_heads=_frozen(
            np.isin(np.arange(len(offices)), [offices.index(o) for o in r.actions.committee_heads])
        ),
        tier_cost=_frozen(np.array([t.cost for t in tiers], dtype=np.int32)),
        tier_upkeep=_frozen(np.array([t.upkeep for t in tiers], dtype=np.int32)),
        tier_wealth=_frozen(np.array([t.wealth for t in tiers], dtype=np.int32)),
        tier_vp=_frozen(np.array([t.vp for t in tiers], dtype=np.int32)),
        exchange_prices=_frozen(np.array(r.actions.exchange_prices, dtype=np.int32)),
        **_cards(r),
        adjacent=_frozen(adjacent),
        links=_frozen(links),
        order_region=_frozen(order_region),
        order_in_region=_frozen(order_region[:, None] == np.arange(n_r)[None, :]),
        order_value=_frozen(np.array([o.value for o in r.map.orders], dtype=np.int32)),
        order_half=_frozen(np.array([o.half for o in r.map.orders], dtype=np.int32)),
        order_open0=_frozen(np.array([o.open for o in r.map.orders], dtype=bool)),
        home=_frozen(np.array([regions.index(p.home) for p in r.map.presidencies], dtype=np.int64)),
        port=_frozen(np.array([orders.index(p.port) for p in r.map.presidencies], dtype=np.int64)),
        opium=_frozen(np.array([x.opium for x in r.map.regions], dtype=np.int32)),
        first_loot=_frozen(np.array([x.first_loot for x in r.map.regions], dtype=np.int32)),
        admin_dice=_frozen(np.array([x.admin_dice or r.governors.admin_dice for x in r.map.regions], dtype=np.int32)),
        strength0=_frozen(np.array([x.strength for x in r.map.regions], dtype=np.int32)),
        capital0=_frozen(np.array([regions.index(x.capital) if x.capital else i for i, x in enumerate(r.map.regions)])),
        merc_cost=_frozen(merc_cost),
        merc_strength=_frozen(merc_strength),
        merc_valid=_frozen(merc_valid),
        expect=_frozen(expect.astype(np.int32)),
        blame_p=_frozen(w / w.sum()),
        **india,
        **_derive_politics(r),
    )


def _derive_india(r: Rules, regions, orders, presidencies, adjacent, links, order_region) -> dict:
    """Phase 8's arrays: the storm table in force, the event tiles, the march geometry, borders."""
    n_r, n_o = len(regions), len(orders)
    table = r.india.storms if r.india.storm_table == "seed" else r.india.storms_jc2e
    storm_seas = np.zeros((6, L.PRESIDENCIES), dtype=bool)
    storm_events = np.zeros(6, dtype=np.int64)
    for s in table:
        storm_events[s.face - 1] = s.events
        for sea in s.seas:
            storm_seas[s.face - 1, presidencies.index(sea)] = True
    tiles = r.map.events
    degree = np.array([len(x.adjacent) for x in r.map.regions], dtype=np.int64)
    clockwise = np.full((n_r, max(int(degree.max()), 1)), -1, dtype=np.int64)
    cw_pos = np.full((n_r, n_r), -1, dtype=np.int64)
    shape_target = np.zeros((n_r, len(L.SHAPES) + 1), dtype=np.int64)
    for i, x in enumerate(r.map.regions):
        for k, a in enumerate(x.adjacent):
            clockwise[i, k] = regions.index(a)
            cw_pos[i, regions.index(a)] = k
        first = regions.index(x.adjacent[0]) if x.adjacent else i
        shape_target[i] = first
        for shape, target in x.shapes.items():
            shape_target[i, L.SHAPES.index(shape)] = regions.index(target)
    border = np.zeros((n_r, n_r, n_o), dtype=bool)
    cross = [[] for _ in range(n_r)]
    for a in range(n_r):
        for o in np.flatnonzero(order_region == a):
            for o2 in np.flatnonzero(links[o]):
                b = int(order_region[o2])
                if b != a:
                    cross[a].append(int(o2))
                    border[a, b, [o, o2]] = True
                    border[b, a, [o, o2]] = True
    cross_links = np.full((n_r, max(max(len(c) for c in cross), 1)), -1, dtype=np.int64)
    for a, c in enumerate(cross):
        cross_links[a, : len(c)] = c
    e = r.map.elephant
    return {
        "storm_seas": _frozen(storm_seas),
        "storm_events": _frozen(storm_events),
        "tile_kind": _frozen(np.array([L.EVENT_KINDS.index(t.kind) for t in tiles], dtype=np.int64)),
        "tile_region": _frozen(np.array([regions.index(t.region) for t in tiles], dtype=np.int64)),
        "tile_modifier": _frozen(np.array([t.modifier for t in tiles], dtype=np.int64)),
        "tile_shape": _frozen(
            np.array([L.SHAPES.index(t.shape) if t.shape else L.NO_SHAPE for t in tiles], dtype=np.int64)
        ),
        "shape_target": _frozen(shape_target),
        "clockwise": _frozen(clockwise),
        "degree": _frozen(degree),
        "cw_pos": _frozen(cw_pos),
        "border_orders": _frozen(border),
        "cross_links": _frozen(cross_links),
        "cross_count": _frozen((cross_links >= 0).sum(axis=1)),
        "elephant0": (regions.index(e.from_), regions.index(e.facing) if e.facing else -1),
    }


def _derive_politics(r: Rules) -> dict:
    """Arrays of the policy track and the law deck (names in ``sim.rules.vocabulary``)."""
    pa = r.parliament
    laws = pa.laws
    names = tuple(law.name for law in laws)
    kind = np.array([POLICY_KINDS.index(p.kind) for p in pa.policies], dtype=np.int64)
    asset = np.array([ASSETS.index(p.asset) for p in pa.policies], dtype=np.int64)
    match = np.zeros((len(laws), len(pa.policies)), dtype=bool)
    for i, law in enumerate(laws):
        if law.policy in POLICY_KINDS:
            match[i] = kind == POLICY_KINDS.index(law.policy)
        elif law.policy:
            match[i] = asset == ASSETS.index(law.policy)
    mods = np.array([[law.modifiers.get(m, 0) for m in MODIFIERS] for law in laws], dtype=np.int64)
    # nearest policy of each law's type stepping down / up the cycle from each position (L224), not counting
    # the position itself until a full turn; -1 where the law names none
    n_pol = len(pa.policies)
    options = np.full((n_pol, len(laws), 2), -1, dtype=np.int16)
    for pos in range(n_pol):
        for i in range(len(laws)):
            for col, sign in ((0, -1), (1, 1)):
                hits = [(pos + sign * k) % n_pol for k in range(1, n_pol + 1) if match[i, (pos + sign * k) % n_pol]]
                options[pos, i, col] = hits[0] if hits else -1
    discards = np.array([[other in law.discards for other in names] for law in laws], dtype=bool)
    return {
        "policy_kind": _frozen(kind),
        "policy_asset": _frozen(asset),
        "policy_wealth": _frozen(np.array([p.wealth for p in pa.policies], dtype=bool)),
        "law_names": names,
        "law_support": _frozen(np.array([law.support for law in laws], dtype=np.int64)),
        "law_dilemma": _frozen(np.array([law.dilemma for law in laws], dtype=bool)),
        "law_lasting": _frozen(np.array([law.lasting for law in laws], dtype=bool)),
        "law_recall": _frozen(np.array([law.recall for law in laws], dtype=bool)),
        "law_policy": _frozen(match),
        "law_mod": _frozen(mods.reshape(len(laws), len(MODIFIERS))),
        "law_extra": _frozen(
            np.array([L.ACTION_NAMES.index(x.extra_action) if x.extra_action else -1 for x in laws], dtype=np.int64)
        ),
        "law_discards": _frozen(discards.reshape(len(laws), len(laws))),
        "law_dereg_discard": _frozen(np.array([law.deregulation_discard for law in laws], dtype=bool)),
        "law_impeach": _frozen(np.array([any(e.effect == "impeach" for e in law.on_pass) for law in laws], dtype=bool)),
        "ladder0": _frozen(np.array([r.end.influence_ladder[a] for a in ASSETS], dtype=np.int64)),
        "law_options": _frozen(options),
    }


def _cards(r: Rules) -> dict:
    """Derived arrays of the position-card deck (D-POSITIONS)."""
    deck = r.positions.deck

    def col(key: str) -> np.ndarray:
        return _frozen(np.array([getattr(c, key) for c in deck], dtype=np.int32).reshape(len(deck)))

    moment = [L.CARD_MOMENTS.index(c.moment) if c.moment else -1 for c in deck]
    return {
        "card_names": tuple(c.name for c in deck),
        "card_permanent": _frozen(np.array([c.kind == "permanent" for c in deck], dtype=bool).reshape(len(deck))),
        "card_moment": _frozen(np.array(moment, dtype=np.int64).reshape(len(deck))),
        "card_votes": col("votes"),
        "card_wealth": col("wealth"),
        "card_influence": col("influence"),
        "card_money": col("money"),
        "card_nepotism": col("ignore_nepotism"),
        "card_extra": col("extra_action"),
    }
