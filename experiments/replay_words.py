"""The replay's words: every decision a strategy answers, said as a player would say it ("takes 8 loans", "bids
6 £ for the Chairman lot; …", "votes for Tenure Limits, buying 2 votes"), and the names the page gives the board's
pieces as the rulebook writes them (the Bombay army, the President of Madras, the Governor of Mysore).

``Names`` reads them from the rules played (``sim.rules.Rules``: lots, offices, presidencies, regions, orders, laws,
policies, position cards, retirement tiers, mercenaries). ``say(decision, legal, answer, names, seat)`` turns one
game's legal options and answer (the values of the replayed game, as ``sim.agents.Agents.ask`` asked it) into a verb
phrase whose subject is the deciding seat; a decision it has no words for (a plugin's own) is said plainly, its
answer's values named by position, never as an array.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from sim import layout as L
from sim.laws import COMMANDER_OFFICE0
from sim.notes import GOODS
from sim.rules.vocabulary import NOTE_KINDS

OFFICE_TITLES = {
    "chairman": "Chairman",
    "director_of_trade": "Director of Trade",
    "shipping_manager": "Shipping Manager",
    "military_affairs": "Military Affairs",
    "china_trade_manager": "China Trade Manager",
    "governor_general": "Governor-General",
}
NOTE_WORDS = tuple(f"{'vote' if k == 'votes' else k} note" for k in NOTE_KINDS)  # R-NOTE: "vote note", …
# the governor effects (layout.G_*)
GOVERN_EFFECTS = ("raises a regiment in {r}", "builds half a ship in {r}", "taxes {r} for the Company",
                  "taxes {r} for its presidency")  # fmt: skip
BLAME = {  # R-END, L250-L255: the public-blame situations drawn on a crash (layout.BLAME_NAMES), what each costs
    "military": "the military: each family loses ⌊(trophies + officers) / 2⌋ VP",
    "shipbuilders": "the shipbuilders: each family loses 1 VP per shipyard",
    "board_impeccable": "the board is blameless: Company shares score + share VP as on a success",
    "parliament": "Parliament: each family loses 1 VP per wreath, the Prime Minister's {pm_extra} VP more",
    "despots": "the despots: each family loses {governor} VP per governor (and per governor lost to a revolt this "
    "round), {gg} VP for the Governor-General",
    "industrialists": "the industrialists: factories score no VP, nor do debtors' prison and firm shares",
}


def title(name: str) -> str:
    """A rules-file id as the rulebook writes it: ``bombay`` -> Bombay, ``north_west`` -> North West."""
    return name.replace("_", " ").title() if name == name.lower() else name


def count(k: int, noun: str, plural: str | None = None) -> str:
    """``3 loans``, ``1 loan``, ``no loans``."""
    many = plural or noun + "s"
    return f"no {many}" if k == 0 else f"1 {noun}" if k == 1 else f"{k} {many}"


def listed(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else "nothing"


def _int(x: Any) -> int:
    return int(np.asarray(x).reshape(-1)[0])


def _arr(x: Any) -> np.ndarray:
    return np.asarray(x)


class Names:
    """The names of one game's pieces, from the rules it was played with."""

    def __init__(self, rules: Any):
        d = rules.d
        self.presidencies = [title(p.name) for p in rules.map.presidencies]
        self.mercenaries = [[m.name for m in p.mercenaries] for p in rules.map.presidencies]
        self.offices = [
            OFFICE_TITLES.get(o) or f"President of {self.presidencies[L.PRESIDENT.index(i)]}"
            for i, o in enumerate(d.offices)
        ]
        self.regions = [r.name for r in rules.map.regions]
        self.orders = [o.name for o in rules.map.orders]
        self.laws = list(d.law_names)
        self.policies = [self._policy(p) for p in rules.parliament.policies]
        self.cards = list(d.card_names)
        self.lots = list(d.lot_names)
        self.tier_cost, self.tier_vp = d.tier_cost.tolist(), d.tier_vp.tolist()
        self.treasuries = [self.offices[L.DIRECTOR], self.offices[L.SHIPPING]] + [self.offices[o] for o in L.PRESIDENT]

    @staticmethod
    def _policy(p: Any) -> str:
        asset = p.asset.replace("_", " ")
        wealth = " and conspicuous wealth" if p.wealth else ""
        return {"tax": f"a tax on {asset}{wealth}", "bonus": f"a bonus for {asset}", "power": f"power to {asset}"}.get(
            p.kind, f"{p.kind} {asset}"
        )

    def seat(self, s: int, me: int | None = None) -> str:
        return "its own family" if me is not None and s == me else f"seat {s}"

    def whose(self, s: int, me: int | None = None) -> str:
        return "its own" if me is not None and s == me else f"seat {s}'s"

    def army(self, p: int) -> str:
        return f"the {self.presidencies[p]} army"

    def office(self, code: int) -> str:
        """An office index, a governorship (-1 - region) or an army's command (``COMMANDER_OFFICE0`` + army)."""
        if code >= COMMANDER_OFFICE0:
            return f"commander of {self.army(code - COMMANDER_OFFICE0)}"
        if code < 0:
            return f"Governor of {self.regions[-1 - code]}"
        return self.offices[code]

    def source(self, src: int) -> str:
        """Where an appointed relative comes from (layout.SRC_*)."""
        if src in L.SRC_CLERK:
            return f"clerk in {self.presidencies[src]}"
        if src in L.SRC_OFFICER:
            return f"officer in {self.army(src - L.SRC_OFFICER[0])}"
        if src == L.SRC_ACADEMY:
            return "cadet at the military academy"
        if src < L.SRC_GOVERNOR0:
            return self.offices[src - L.SRC_OFFICE0]
        return f"Governor of {self.regions[src - L.SRC_GOVERNOR0]}"

    def location(self, loc: int) -> str:
        """A ship location: a presidency's sea, or the China committee."""
        return "China" if loc == L.CHINA_LOC else self.presidencies[loc]

    def order(self, i: int) -> str:
        return "the route to China" if i >= len(self.orders) else f"the {self.orders[i]} order"

    def tier(self, t: int) -> str:
        return f"tier {t} ({self.tier_cost[t]} £, {self.tier_vp[t]} VP)"

    def blame(self, name: str, rules: Any) -> str:
        """What the public-blame situation ``name`` costs, in the rules' numbers (R-END, L250-L255)."""
        e = rules.end
        text = BLAME.get(name, name.replace("_", " "))
        return text.format(pm_extra=e.blame_pm_extra, governor=e.blame_governor, gg=e.blame_governor_general)


Legal = dict[str, Any]
Answer = tuple[np.ndarray, ...]


# ------------------------------------------------------------------------------------------------ the auction
def _bid(o: Legal, a: Answer, n: Names, me: int) -> str:
    """R-AUCTION: (base, step, cap) per lot; lots bid alike said together, highest first."""
    base, step, cap = (_arr(x).astype(int).tolist() for x in a)
    groups: dict[tuple[int, int, int], list[str]] = {}
    for i, name in enumerate(n.lots[: len(base)]):
        raise_by = step[i] if step[i] > 0 and cap[i] > base[i] else 0
        groups.setdefault((base[i], raise_by, cap[i] if raise_by else base[i]), []).append(name)
    said, none = [], 0
    for (b, s, c), lots in sorted(groups.items(), key=lambda kv: (-kv[0][0], -kv[0][2])):
        if b == 0 and s == 0:
            none += len(lots)
            continue
        names = [f"{lot} ×{lots.count(lot)}" if lots.count(lot) > 1 else lot for lot in dict.fromkeys(lots)]
        each = " each" if len(lots) > 1 else ""
        ladder = f" (raising by {s} up to {c} £)" if s else ""
        said.append(f"{b} £{each}{ladder} for the {listed(names)} lot{'s' if len(lots) > 1 else ''}")
    if not said:
        return "bids nothing"
    return "bids " + "; ".join(said) + (f"; nothing for the other {count(none, 'lot')}" if none else "")


# --------------------------------------------------------------------------------------------- family actions
FAMILY_ACTIONS = {  # layout.ACTION_NAMES: (once, twice)
    "pass": ("passes", "passes"),
    "luxury": ("buys a luxury", "buys two luxuries"),
    "shipyard": ("builds a shipyard", "builds two shipyards"),
    "factory": ("builds a factory", "builds two factories"),
    "officer": ("sends a relative to the military academy", "sends two relatives to the military academy"),
    "shares": ("buys a place on the share exchange", "buys two places on the share exchange"),
}


def _family_action(o: Legal, a: Answer, n: Names, me: int) -> str:
    """R-ACTIONS: (action, twice, presidency of each clerk)."""
    act, twice, where = _int(a[0]), bool(_int(a[1])), _arr(a[2]).astype(int).tolist()
    name = L.ACTION_NAMES[act]
    if name == "clerk":
        places = [n.presidencies[where[0]]] + ([n.presidencies[where[1]]] if twice else [])
        text = (
            f"sends a clerk to {places[0]}"
            if not twice
            else f"sends two clerks to {places[0]}"
            if places[0] == places[1]
            else f"sends clerks to {listed(places)}"
        )
    else:
        text = FAMILY_ACTIONS[name][int(twice)]
    if twice and name != "pass":
        text += " (last round's action, taken twice)"
    return f"as an extra action, {text}" if bool(_int(o.get("extra", False))) else text


def _ranking(what: str, mask_key: str) -> Callable[[Legal, Answer, Names, int], str]:
    def say(o: Legal, a: Answer, n: Names, me: int) -> str:
        mask = _arr(o[mask_key]).astype(bool)
        order = [n.seat(int(s), me) for s in _arr(a[0]).astype(int) if 0 <= s < mask.size and mask[s]]
        return f"ranks {what}: {listed(order)}"

    return say


def _extra_clerk(o: Legal, a: Answer, n: Names, me: int) -> str:
    p = _int(a[0])
    return f"sends an extra clerk to {n.presidencies[p]}" if p >= 0 else "sends no extra clerk"


# ------------------------------------------------------------------------------------------------ appointments
def _vote_chairman(o: Legal, a: Answer, n: Names, me: int) -> str:
    return f"votes its shares for {n.seat(_int(a[0]), me)} as Chairman"


def _choose_chairman(o: Legal, a: Answer, n: Names, me: int) -> str:
    return f"names {n.seat(_int(a[0]), me)} Chairman (no family had a majority of the shares)"


def _appoint(o: Legal, a: Answer, n: Names, me: int) -> str:
    family, source = _int(a[0]), _int(a[1])
    if family < 0:
        return f"appoints nobody as {n.office(_int(o['office']))}"
    return f"appoints {n.whose(family, me)} {n.source(source)} as {n.office(_int(o['office']))}"


def _consent(o: Legal, a: Answer, n: Names, me: int) -> str:
    verb = "lets" if bool(_int(a[0])) else "refuses to let"
    return f"{verb} {n.seat(_int(o['appointer']))} appoint one of its own as {n.office(_int(o['office']))} (nepotism)"


# -------------------------------------------------------------------------------------------------- the Company
def _take_loans(o: Legal, a: Answer, n: Names, me: int) -> str:
    k, most, free = _int(a[0]), _int(o["max_loans"]), _int(o["free_loans"])
    if most == 0:
        return f"takes {count(k, 'loan')} (the Company may take no more)"
    return f"takes {count(k, 'loan')} (the Company may take {most}; more than {free} needs the board)"


def _approve_loans(o: Legal, a: Answer, n: Names, me: int) -> str:
    verb = "votes for" if bool(_int(a[0])) else "votes against"
    chair = _int(o["chairman"])
    who = "it takes as Chairman" if chair == me else f"the Chairman ({n.seat(chair)}) takes"
    return f"{verb} the {count(_int(o['loans']), 'loan')} {who}"


def _allocate_budget(o: Legal, a: Answer, n: Names, me: int) -> str:
    alloc = _arr(a[0]).astype(int).tolist()
    parts = [f"{v} £ to the {n.treasuries[i]}" for i, v in enumerate(alloc) if v]
    return f"hands out the {_int(o['budget'])} £ budget: {listed(parts)}"


def _trade_check(o: Legal, a: Answer, n: Names, me: int) -> str:
    k = _int(a[0])
    if k == 0:
        return "ends the Director of Trade's checks"
    held = _int(o["treasury"])
    return f"rolls {count(k, 'die', 'dice')} ({k} £ of the Director of Trade's {held} £) to open an order"


def _open_order(o: Legal, a: Answer, n: Names, me: int) -> str:
    return f"opens {n.order(_int(a[0]))}"


def _moves(o: Legal, a: Answer, n: Names, me: int, military: bool) -> str:
    kind, family, src, dst, k = (_arr(x).astype(int).reshape(-1).tolist() for x in a)
    said = []
    for j in range(len(kind)):
        if kind[j] == L.MOVE_NONE:
            continue
        if military:
            frm, to = n.army(src[j]), n.army(dst[j])
            whose = "its own" if family[j] == me else n.seat(family[j])
            what = count(k[j], "regiment") if kind[j] == L.MOVE_REGIMENTS else f"{count(k[j], 'officer')} of {whose}"
        else:
            frm, to = n.location(src[j]), n.location(dst[j])
            what = {
                L.MOVE_CLERKS: f"{count(k[j], 'clerk')} of {n.seat(family[j], me)}",
                L.MOVE_LEASED: count(k[j], "leased ship"),
                L.MOVE_COMPANY_SHIPS: count(k[j], "Company ship"),
                L.MOVE_YARD_SHIPS: f"{count(k[j], 'ship')} of {n.whose(family[j], me)} yards",
            }.get(kind[j], f"{k[j]} of kind {kind[j]}")
        said.append(f"{what} from {frm} to {to}")
    return f"moves {listed(said)}" if said else ("moves no troops" if military else "moves no clerks or ships")


def _buy_ships(o: Legal, a: Answer, n: Names, me: int) -> str:
    leased, company, yard = (_arr(x).astype(int) for x in a)
    said = []
    for verb, per_sea in (("leases ships", leased), ("buys Company ships", company)):
        if per_sea.any():
            said.append(f"{verb} ({', '.join(f'{v} for {n.presidencies[p]}' for p, v in enumerate(per_sea) if v)})")
    built = [
        f"{v} at {n.whose(s, me)} for {n.presidencies[p]}" for s, row in enumerate(yard) for p, v in enumerate(row) if v
    ]
    if built:
        said.append(f"has ships built at family shipyards ({', '.join(built)})")
    return "; ".join(said) if said else "buys no ships"


def _assign_academy(o: Legal, a: Answer, n: Names, me: int) -> str:
    sent = _arr(a[0]).astype(int)
    said = [
        f"{count(int(v), 'officer')} of {n.seat(s, me)} to {n.army(p)}"
        for s, row in enumerate(sent)
        for p, v in enumerate(row)
        if v
    ]
    return f"sends the military academy's cadets to the armies: {listed(said)}"


def _pick_commander(o: Legal, a: Answer, n: Names, me: int) -> str:
    return f"picks {n.seat(_int(a[0]), me)} to command {n.army(_int(o['army']))}"


def _govern(o: Legal, a: Answer, n: Names, me: int) -> str:
    r, dice = n.regions[_int(o["region"])], _int(o["dice"])
    return f"governs {r} with {count(dice, 'die', 'dice')}" if bool(_int(a[0])) else f"stops governing {r}"


def _govern_effect(o: Legal, a: Answer, n: Names, me: int) -> str:
    return GOVERN_EFFECTS[_int(a[0])].format(r=n.regions[_int(o["region"])])


def _troops(officers: np.ndarray, regiments: int, me: int, n: Names) -> list[str]:
    said = [count(regiments, "regiment")] if regiments else []
    said += [
        f"{count(int(v), 'officer')} of {'its own' if s == me else n.seat(s)}" for s, v in enumerate(officers) if v
    ]
    return said


def _deploy(o: Legal, a: Answer, n: Names, me: int) -> str:
    target, officers, regiments, mercs = _int(a[0]), _arr(a[1]).astype(int), _int(a[2]), _arr(a[3]).astype(bool)
    army = _int(o["army"])
    if target < 0:
        return f"keeps {n.army(army)} out of battle"
    bands = [n.mercenaries[army][m] for m in np.flatnonzero(mercs) if m < len(n.mercenaries[army])]
    force = _troops(officers, regiments, me, n) + [f"the {b} mercenaries" for b in bands]
    strength = _int(_arr(o["strength"])[target])
    return f"sends {n.army(army)} against {n.regions[target]} (strength {strength}) with {listed(force)}"


def _fund_mercenaries(o: Legal, a: Answer, n: Names, me: int) -> str:
    verb = "pays" if bool(_int(a[0])) else "refuses to pay"
    return f"{verb} {_int(o['cost'])} £ for the mercenaries of {n.army(_int(o['army']))}"


def _share_loot(o: Legal, a: Answer, n: Names, me: int) -> str:
    named = [n.seat(int(s), me) for s in np.flatnonzero(_arr(a[0]))]
    return f"names {listed(named) if named else 'no family'} for a share of the {_int(o['loot'])} £ loot"


def _trade(o: Legal, a: Answer, n: Names, me: int) -> str:
    spend, orders, clerks = _int(a[0]), np.flatnonzero(_arr(a[1])), _arr(a[2]).astype(int)
    at = n.presidencies[_int(o["presidency"])]
    if orders.size == 0:
        return f"does not trade from {at}"
    filled = listed([n.orders[i] for i in orders])
    placed = [n.seat(s, me) + (f" ({v})" if v > 1 else "") for s, v in enumerate(clerks) if v]
    text = f"spends {spend} £ on dice to fill {count(int(orders.size), 'order')} from {at}: {filled}"
    return text + (f", placing the clerks of {listed(placed)}" if placed else "")


def _china_trade(o: Legal, a: Answer, n: Names, me: int) -> str:
    ships = count(_int(o["ships"]), "ship")
    if bool(_int(a[0])):
        return f"sends the China committee's {ships} to China ({count(_int(o['opium']), 'opium icon')})"
    return f"keeps the China committee's {ships} at home"


def _royal_protection(o: Legal, a: Answer, n: Names, me: int) -> str:
    short = _int(o["shortfall"])
    if bool(_int(a[0])):
        return f"invokes royal protection: {short} £ of unpaid costs are cancelled"
    return f"does not invoke royal protection ({short} £ short)"


def _pay_dividends(o: Legal, a: Answer, n: Names, me: int) -> str:
    k, per = _int(a[0]), _int(o["per_payout"])
    if k == 0:
        return f"pays no dividend (up to {_int(o['max_payouts'])} £ a share was possible)"
    return f"pays a dividend of {k} £ a share ({k * per} £ in all)"


def _defend(o: Legal, a: Answer, n: Names, me: int) -> str:
    force = _troops(_arr(a[0]).astype(int), _int(a[1]), me, n)
    region, attack = n.regions[_int(o["region"])], _int(o["attack"])
    return f"defends {region} against an attack of strength {attack} with {listed(force)}"


# ----------------------------------------------------------------------------------- London, upkeep, positions
def _retire(o: Legal, a: Answer, n: Names, me: int) -> str:
    t, office = _int(a[0]), _int(o["office"])
    who = "its relative retiring from a firm" if office < 0 else f"its retiring {n.offices[office]}"
    when = " at the game's end" if bool(_int(o.get("final", False))) else ""
    if t < 0:
        return f"sends {who} home unpaid{when}"
    return f"buys {who} an honourable retirement of {n.tier(t)}{when}"


def _take_position(o: Legal, a: Answer, n: Names, me: int) -> str:
    slot = _int(a[0])
    if slot < 0:
        return "takes no position card"
    return f"takes {n.cards[_int(_arr(o['cards'])[slot])]} from the display"


def _play_position(o: Legal, a: Answer, n: Names, me: int) -> str:
    played = [n.cards[c] for c in np.flatnonzero(_arr(a[0]))]
    return f"plays {listed(played)}" if played else "plays no position card"


def _keep_retirees(o: Legal, a: Answer, n: Names, me: int) -> str:
    kept, retired = _arr(a[0]).astype(int), _arr(o["retired"]).astype(int)
    kept_said, gone = [], []
    for t, (k, r) in enumerate(zip(kept.tolist(), retired.tolist(), strict=False)):
        if k:
            kept_said.append(f"{count(k, 'retiree') if not kept_said else k} of tier {t}")
        if r > k:
            gone.append(f"{r - k} of tier {t}")
    text = f"keeps {listed(kept_said)} in honourable retirement" if kept_said else "keeps no retiree"
    return text + (f" and lets {listed(gone)} go (the upkeep is more than it has)" if gone else "")


# ------------------------------------------------------------------------------------------------- Parliament
def _law_topic(o: Legal, n: Names) -> str:
    if bool(_int(o.get("deregulation", False))):
        return "Deregulation"
    law = _int(o.get("law", -1))
    return n.laws[law] if law >= 0 else "the policy"


def _table_law(o: Legal, a: Answer, n: Names, me: int) -> str:
    law, side = _int(a[0]), _int(a[1])
    if law < 0:
        return "draws another law"
    policy = _int(_arr(o["options"])[law, side])
    return f"tables {n.laws[law]}" + (f" with {n.policies[policy]}" if policy >= 0 else "")


def _vote(o: Legal, a: Answer, n: Names, me: int) -> str:
    side, bought, notes = _int(a[0]), _int(a[1]), np.flatnonzero(_arr(a[2]))
    topic = _law_topic(o, n)
    text = {1: f"votes for {topic}", -1: f"votes against {topic}"}.get(side, f"abstains on {topic}")
    if bought:
        text += f", buying {count(bought, 'vote')}"
    if notes.size:
        text += f", using the vote note{'s' if notes.size > 1 else ''} of {listed([n.seat(int(s)) for s in notes])}"
    return text


def _choose_policy(o: Legal, a: Answer, n: Names, me: int) -> str:
    policy = _int(_arr(o["options"])[_int(a[0])])
    return f"applies {n.policies[policy]}"


def _war_losses(o: Legal, a: Answer, n: Names, me: int) -> str:
    ship, troop = _int(a[0]), _int(a[1])
    said = []
    if ship >= 0:
        if ship < L.N_SHIP_LOCS:
            said.append(f"a Company ship at {n.location(ship)}")
        else:
            owner, loc = divmod(ship - L.N_SHIP_LOCS, L.N_SHIP_LOCS)
            said.append(f"a ship of {n.whose(owner, me)} yards at {n.location(loc)}")
    if troop >= 0:
        if troop < L.PRESIDENCIES:
            said.append(f"a regiment of {n.army(troop)}")
        else:
            owner, army = divmod(troop - L.PRESIDENCIES, L.PRESIDENCIES)
            said.append(f"an officer of {n.seat(owner, me)} in {n.army(army)}")
    return f"gives up {listed(said)} to the war against France" if said else "has nothing to give up to the war"


def _office_pick(verb: str, none: str) -> Callable[[Legal, Answer, Names, int], str]:
    def say(o: Legal, a: Answer, n: Names, me: int) -> str:
        office = _int(a[0])
        return verb.format(office=n.offices[office]) if office >= 0 else none

    return say


def _oversee_army(o: Legal, a: Answer, n: Names, me: int) -> str:
    army = _int(a[0])
    return f"replaces the commander of {n.army(army)}" if army >= 0 else "replaces no commander"


def _general_effects(o: Legal, a: Answer, n: Names, me: int) -> str:
    regions = np.flatnonzero(_arr(o["regions"]))
    effects = _arr(a[0]).astype(int)
    return listed([GOVERN_EFFECTS[effects[r]].format(r=n.regions[r]) for r in regions])


# ---------------------------------------------------------------------------------------------- notes and gifts
def _offer_notes(o: Legal, a: Answer, n: Names, me: int) -> str:
    buyer, price, held = _arr(a[0]).astype(int), _arr(a[1]).astype(int), _arr(o["held"]).astype(bool)
    said = [
        f"{n.whose(i, me)} {NOTE_WORDS[k]} to {n.seat(int(buyer[i, k]))} for {price[i, k]} £"
        for i, k in zip(*np.nonzero(held & (buyer >= 0)), strict=True)
    ]
    return f"offers {listed(said)}" if said else "offers no note"


def _goods(v: np.ndarray) -> str:
    words = {"money": "£", "luxuries": "luxury", "shipyards": "shipyard", "factories": "factory"}
    parts = [
        f"{int(x)} £" if GOODS[g] == "money" else count(int(x), words[GOODS[g]], GOODS[g]) for g, x in enumerate(v) if x
    ]
    return listed(parts)


def _offer_exchange(o: Legal, a: Answer, n: Names, me: int) -> str:
    give, ask = _arr(a[0]).astype(int), _arr(a[1]).astype(int)
    said = []
    for s in range(give.shape[0]):
        if not give[s].any():
            if ask[s].any():
                said.append(f"asks {n.seat(s)} for {_goods(ask[s])}")
        elif ask[s].any():
            said.append(f"offers {_goods(give[s])} to {n.seat(s)} for {_goods(ask[s])}")
        else:
            said.append(f"offers {_goods(give[s])} to {n.seat(s)} as a gift")
    return "; ".join(said) if said else "offers nothing"


def _accept_exchange(o: Legal, a: Answer, n: Names, me: int) -> str:
    yes, offered = _arr(a[0]).astype(bool), _arr(o["offered"]).astype(bool)
    given, asked = _arr(o["given"]).astype(int), _arr(o["asked"]).astype(int)
    said = []
    for s in np.flatnonzero(offered):
        what = _goods(given[s]) + (f" for {_goods(asked[s])}" if asked[s].any() else "")
        said.append(f"{'accepts' if yes[s] else 'refuses'} {n.whose(int(s))} offer ({what})")
    return "; ".join(said) if said else "has no offer to answer"


def _accept_notes(o: Legal, a: Answer, n: Names, me: int) -> str:
    yes, offered = _arr(a[0]).astype(bool), _arr(o["offered"]).astype(bool)
    price, holder = _arr(o["price"]).astype(int), _arr(o["holder"]).astype(int)
    said = [
        f"{n.whose(int(i))} {NOTE_WORDS[k]}"
        + (f" from {n.seat(int(holder[i, k]))}" if holder[i, k] != i else "")
        + f" for {price[i, k]} £"
        for i, k in zip(*np.nonzero(yes & offered), strict=True)
    ]
    refused = int((offered & ~yes).sum())
    text = f"buys {listed(said)}" if said else "buys no note"
    return text + (f" (refuses {count(refused, 'offer')})" if refused and said else "")


def _use_money_notes(o: Legal, a: Answer, n: Names, me: int) -> str:
    take = _arr(a[0]).astype(int)
    said = [f"{v} £ from {n.seat(s)}" for s, v in enumerate(take) if v]
    notes = "the money notes" if len(said) > 1 else "the money note"
    return f"takes {listed(said)} with {notes} it holds" if said else "keeps the money notes it holds"


def _use_bonus_note(o: Legal, a: Answer, n: Names, me: int) -> str:
    bonus = f"{n.whose(_int(o['issuer']))} {_int(o['amount'])} £ bonus"
    return f"takes {bonus} with the bonus note it holds" if bool(_int(a[0])) else f"leaves {bonus} (keeps the note)"


def _use_position_note(o: Legal, a: Answer, n: Names, me: int) -> str:
    pick = f"{n.whose(_int(o['issuer']))} position pick"
    return f"takes {pick} with the position note it holds" if bool(_int(a[0])) else f"leaves {pick} (keeps the note)"


# ------------------------------------------------------------------------------------------------------- firms
def _firm(o: Legal, key: str = "firm") -> str:
    return f"firm {_int(o[key])}"


def _open_firm(o: Legal, a: Answer, n: Names, me: int) -> str:
    return ("opens no firm", "opens a firm with a factory", "opens a firm with a Company share")[_int(a[0])]


def _invest_in_firms(o: Legal, a: Answer, n: Names, me: int) -> str:
    factories, shares = _arr(a[0]).astype(int), _arr(a[1]).astype(int)
    said = [f"{count(int(v), 'factory', 'factories')} in firm {f}" for f, v in enumerate(factories) if v]
    said += [f"{count(int(v), 'Company share')} in firm {f}" for f, v in enumerate(shares) if v]
    return f"offers to invest {listed(said)}" if said else "invests in no firm"


def _consent_investment(o: Legal, a: Answer, n: Names, me: int) -> str:
    yes = _arr(a[0]).astype(bool)
    factories, shares = _arr(o["factories"]).astype(int), _arr(o["shares"]).astype(int)
    said = []
    for s in np.flatnonzero((factories + shares) > 0):
        what = listed(
            [count(int(factories[s]), "factory", "factories")] * bool(factories[s])
            + [count(int(shares[s]), "Company share")] * bool(shares[s])
        )
        said.append(f"{'accepts' if yes[s] else 'refuses'} {n.whose(int(s))} {what}")
    urgent = " (an emergency investment)" if bool(_int(o.get("emergency", False))) else ""
    return f"for {_firm(o)}, " + ("; ".join(said) if said else "has no offer to answer") + urgent


def _firm_pick(verb: str, none: str) -> Callable[[Legal, Answer, Names, int], str]:
    def say(o: Legal, a: Answer, n: Names, me: int) -> str:
        f = _int(a[0])
        own = f" {_firm(o)}" if "firm" in o and _arr(o["firm"]).ndim == 0 else ""
        return verb.format(firm=f"firm {f}", own=own) if f >= 0 else none

    return say


def _approve_manager(o: Legal, a: Answer, n: Names, me: int) -> str:
    ok, candidate, shares = _arr(a[0]).astype(bool), _arr(o["candidate"]).astype(int), _arr(o["shares"]).astype(int)
    said = [
        f"{'approves' if ok[f] else 'rejects'} {n.seat(int(candidate[f]), me)} as manager of firm {f}"
        for f in range(candidate.size)
        if candidate[f] >= 0 and shares[f] > 0
    ]
    return "; ".join(said) if said else "has no manager to vote on"


def _consent_merger(o: Legal, a: Answer, n: Names, me: int) -> str:
    firms, survivor = _arr(o["firms"]).astype(int).tolist(), _int(o["survivor"])
    verb = "consents to" if bool(_int(a[0])) else "refuses"
    kind = "the emergency merger of" if bool(_int(o.get("rescue", False))) else "merging"
    return f"{verb} {kind} firm {firms[0]} and firm {firms[1]} (firm {survivor} goes on)"


def _firm_ships(o: Legal, a: Answer, n: Names, me: int) -> str:
    build, sound, damaged = (_arr(x).astype(int) for x in a)
    said = [f"builds {count(int(v), 'ship')} at {n.whose(s, me)} shipyard" for s, v in enumerate(build) if v]
    if sound.any() or damaged.any():
        said.append(
            f"buys back {count(int(sound.sum()), 'sound Company ship')} and "
            f"{count(int(damaged.sum()), 'damaged one')} from the family yards"
        )
    return f"{_firm(o)} " + (listed(said) if said else "builds and buys no ships")


def _consent_yard(o: Legal, a: Answer, n: Names, me: int) -> str:
    ok, build, buy = _arr(a[0]).astype(bool), _arr(o["build"]).astype(int), _arr(o["buy"]).astype(int)
    said = []
    for f in np.flatnonzero((build + buy) > 0):
        what = listed(
            [f"build {count(int(build[f]), 'ship')}"] * bool(build[f])
            + [f"buy back {count(int(buy[f]), 'ship')}"] * bool(buy[f])
        )
        said.append(f"{'lets' if ok[f] else 'does not let'} firm {f} {what} at its shipyards")
    return "; ".join(said) if said else "has no yard to lend"


def _firm_strategy(o: Legal, a: Answer, n: Names, me: int) -> str:
    port, bid = _int(a[0]), _int(a[1])
    if port < 0:
        return f"keeps {_firm(o)} out of trade this round"
    return f"sends {_firm(o)} to trade from {n.presidencies[port]}, bidding {bid} £ for initiative"


def _order_traders(o: Legal, a: Answer, n: Names, me: int) -> str:
    traders = _arr(o["traders"]).astype(bool)
    order = [
        "the Company" if t == traders.size - 1 else f"firm {t}"
        for t in _arr(a[0]).astype(int)
        if 0 <= t < traders.size and traders[t]
    ]
    return f"orders the tied traders at {n.presidencies[_int(o['presidency'])]}: {listed(order)}"


def _firm_trade(o: Legal, a: Answer, n: Names, me: int) -> str:
    filled = [n.orders[i] for i in np.flatnonzero(_arr(a[0]))]
    return f"{_firm(o)} fills {listed(filled)}" if filled else f"{_firm(o)} fills no order"


def _emergency_invest(o: Legal, a: Answer, n: Names, me: int) -> str:
    what = ("invests nothing", "invests a factory", "invests a Company share")[_int(a[0])]
    return f"{what} in failing {_firm(o)} ({_int(o['shortfall'])} £ short)"


def _waive_dividends(o: Legal, a: Answer, n: Names, me: int) -> str:
    shares, manager = _arr(a[0]).astype(int), _arr(a[1]).astype(bool)
    said = [f"the dividends of {count(int(v), 'share')} in firm {f}" for f, v in enumerate(shares) if v]
    said += [f"its manager's portion in firm {f}" for f in np.flatnonzero(manager)]
    return f"waives {listed(said)}" if said else "waives no dividend"


def _consent_waivers(o: Legal, a: Answer, n: Names, me: int) -> str:
    ok, waived = _arr(a[0]).astype(bool), _arr(o["waived"]).astype(int)
    said = [f"{'accepts' if ok[s] else 'refuses'} {n.whose(int(s))} waiver" for s in np.flatnonzero(waived)]
    return f"for {_firm(o)}, " + ("; ".join(said) if said else "has no waiver to answer")


def _firm_dividends(o: Legal, a: Answer, n: Names, me: int) -> str:
    k, per = _int(a[0]), _int(o["per_payout"])
    if k == 0:
        return f"{_firm(o)} pays no dividend"
    return f"{_firm(o)} pays {count(k, 'payout')} of {per} £ ({k * per} £ in all)"


def _yes_no(yes: str, no: str) -> Callable[[Legal, Answer, Names, int], str]:
    def say(o: Legal, a: Answer, n: Names, me: int) -> str:
        fields = {k: _int(v) for k, v in o.items() if np.asarray(v).size == 1 and np.asarray(v).dtype.kind in "iub"}
        return (yes if bool(_int(a[0])) else no).format(**fields)

    return say


SAY: dict[str, Callable[[Legal, Answer, Names, int], str]] = {
    "bid": _bid,
    "family_action": _family_action,
    "rank_share_buyers": _ranking("the share buyers", "buyers"),
    "extra_clerk": _extra_clerk,
    "vote_chairman": _vote_chairman,
    "choose_chairman": _choose_chairman,
    "appoint": _appoint,
    "consent": _consent,
    "take_loans": _take_loans,
    "approve_loans": _approve_loans,
    "allocate_budget": _allocate_budget,
    "trade_check": _trade_check,
    "open_order": _open_order,
    "director_moves": lambda o, a, n, me: _moves(o, a, n, me, military=False),
    "buy_ships": _buy_ships,
    "assign_academy": _assign_academy,
    "military_moves": lambda o, a, n, me: _moves(o, a, n, me, military=True),
    "pick_commander": _pick_commander,
    "govern": _govern,
    "govern_effect": _govern_effect,
    "deploy": _deploy,
    "fund_mercenaries": _fund_mercenaries,
    "share_loot": _share_loot,
    "trade": _trade,
    "china_trade": _china_trade,
    "royal_protection": _royal_protection,
    "pay_dividends": _pay_dividends,
    "defend": _defend,
    "retire": _retire,
    "rank_position_takers": _ranking("the families tied for a position card", "tied"),
    "take_position": _take_position,
    "play_position": _play_position,
    "keep_retirees": _keep_retirees,
    "table_law": _table_law,
    "impeach": _office_pick("names the {office} for impeachment", "names nobody for impeachment"),
    "vote": _vote,
    "choose_prime_minister": lambda o, a, n, me: f"names {n.seat(_int(a[0]), me)} Prime Minister",
    "choose_policy": _choose_policy,
    "war_losses": _war_losses,
    "table_deregulation": _yes_no("tables Deregulation", "does not table Deregulation"),
    "offer_notes": _offer_notes,
    "offer_exchange": _offer_exchange,
    "accept_exchange": _accept_exchange,
    "accept_notes": _accept_notes,
    "use_money_notes": _use_money_notes,
    "use_bonus_note": _use_bonus_note,
    "use_position_note": _use_position_note,
    "remove_officeholder": _office_pick("removes the {office} from office", "removes nobody from office"),
    "oversee_army": _oversee_army,
    "general_govern": _yes_no("governs as Governor-General with {dice} dice", "does not govern as Governor-General"),
    "general_effects": _general_effects,
    "open_firm": _open_firm,
    "invest_in_firms": _invest_in_firms,
    "consent_investment": _consent_investment,
    "take_over_firm": _firm_pick("seeks to take over {firm}", "seeks to take over no firm"),
    "approve_manager": _approve_manager,
    "propose_merger": _firm_pick("proposes merging its firm{own} with {firm}", "proposes no merger"),
    "consent_merger": _consent_merger,
    "firm_ships": _firm_ships,
    "consent_yard": _consent_yard,
    "firm_strategy": _firm_strategy,
    "order_traders": _order_traders,
    "firm_trade": _firm_trade,
    "emergency_invest": _emergency_invest,
    "waive_dividends": _waive_dividends,
    "consent_waivers": _consent_waivers,
    "firm_dividends": _firm_dividends,
    "dissolve_firm": _yes_no("proposes dissolving firm {firm}", "keeps firm {firm} going"),
    "consent_dissolution": _yes_no("consents to dissolving firm {firm}", "refuses to dissolve firm {firm}"),
    "rescue_firm": _yes_no(
        "rescues failing firm {firm} with its firm {own}, paying {cost} £", "leaves failing firm {firm} to its fate"
    ),
}


def _plain(value: Any) -> str:
    """One value of an answer without brackets: a number, yes / no, or the nonzero entries by position."""
    a = np.asarray(value)
    if a.size == 1:
        v = a.reshape(-1)[0]
        return ("yes" if v else "no") if a.dtype == bool else str(v.item() if hasattr(v, "item") else v)
    if a.dtype == bool:
        at = [", ".join(str(int(i)) for i in idx) for idx in zip(*np.nonzero(a), strict=True)]
        return "yes at " + "; ".join(at) if at else "none"
    at = [f"{v.item()} at {', '.join(str(int(i)) for i in idx)}" for idx, v in np.ndenumerate(a) if v]
    return "; ".join(at) if at else "none"


def plainly(decision: str, answer: Answer) -> str:
    """A decision without words of its own: its name, and each part of the answer (``_plain``)."""
    return f"answers {decision.replace('_', ' ')}: " + " / ".join(_plain(x) for x in answer)


def say(decision: str, legal: Legal, answer: Answer, names: Names, seat: int) -> str:
    """``decision`` as the deciding ``seat`` would say it (``SAY``), from its legal options and answer in the
    replayed game; a decision without words, or one whose values the words do not fit, said ``plainly``."""
    words = SAY.get(decision)
    if words is not None:
        try:
            return words(legal, answer, names, seat)
        except (IndexError, KeyError, ValueError, TypeError):  # values the words do not fit (another rules file)
            pass
    return plainly(decision, answer)
