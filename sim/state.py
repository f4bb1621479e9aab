"""The state of a batch of games: one frozen dataclass of numpy arrays, every field with a leading games axis G.

Shapes use G games, N families (seats), P = 3 presidencies (also the three armies and seas), R regions, O orders,
E exchange positions, T retirement tiers, OFF offices (``layout``). The dataclass is frozen (fields are never
rebound) and phases update the arrays in place, masked so that finished games (``done``) stay exactly as they ended.
Seats and office holders are int8 with -1 for "nobody".
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from . import layout as L
from .rules import Rules

# Money flows into (+) and out of (-) the game, one ledger column each. Transfers inside the game (the Chairman's
# budget, dividends, mercenary fees paid from a presidency) are not flows; every other £ passes through one of these.
FLOWS = (
    "starting_capital",  # + R-CAPITAL
    "company_start",  # + the Company's start balance and office treasuries (3 £ each at the 1710 start)
    "lot_money",  # + money items of starting lots
    "loans",  # + the Chairman's loans, 5 £ each
    "emergency_loans",  # + emergency loans in phase 7
    "emergency_burned",  # - what emergency loans raised beyond the costs
    "trade",  # + order values paid to the Company
    "china",  # + China trade revenue to the Company
    "president_bonus",  # + 1 £ per order to the President's family
    "clerk_pay",  # + 1 £ per clerk placed on an order
    "china_manager",  # + the China Trade Manager's cut
    "governor_income",  # + governors' families on successful actions
    "tax",  # + taxes collected by governors
    "loot",  # + loot paid to families (regiments' and mercenaries' shares are never paid out)
    "factory_income",  # + phase 7
    "yard_income",  # + phase 7, yard owners whose ships sail
    "luxury",  # - family action
    "shipyard",  # - family action
    "factory",  # - family action
    "exchange",  # - buying a place on the share exchange
    "director_checks",  # - the Director of Trade's dice
    "ships",  # - the Shipping Manager's purchases
    "trade_spend",  # - the presidents' trade dice
    "mercenaries",  # - paid from a presidency treasury
    "company_costs",  # - phase 7 upkeep of ships, regiments, officers and loan interest
    "retirement",  # - honourable retirements bought
    "windfall",  # + phase 8 Windfall events, 1 £ per clerk in the area
    # politics: phase 9 policies and laws, votes, the Governor-General
    "policy_tax",  # - D-POLICY taxes paid by families
    "policy_bonus",  # + D-POLICY bonuses paid to families
    "votes",  # - £ spent on votes in phases 9 and 11
    "law_payments",  # + paid to families by laws (Calico Acts' 2 £ per factory, Inclosure Acts' retiree income)
    "company_levy",  # - Calico Acts: the Company loses 1 £ per 7 £ of balance at the start of phase 7
    "governor_general",  # + the Governor-General's family income on a successful govern action
    "governor_general_company",  # + the Company's income per region under a Governor-General (2e; default 0)
    # phase 1 and 10
    "upkeep",  # - phase 10 upkeep of retirees in honourable retirement
    "positions",  # + money of closed position cards played
    # private firms (phase 3, the firms' trade in phase 6, phase 7.1)
    "firm_investment",  # + 5 £ from the bank per firm opened or invested in (phase 3)
    "firm_emergency",  # + 5 £ from the bank per emergency investment (phase 7.1)
    "firm_emergency_burned",  # - what emergency investments raised beyond the firm's costs
    "firm_ships",  # - ships built at family shipyards for firms
    "firm_trade_spend",  # - the firms' initiative dice (their sealed trade bids)
    "firm_trade",  # + order values (or half values) paid to firms
    "firm_costs",  # - phase 7.1: 1 £ per ship and max(shares, value) £
    "firm_bankrupt",  # - the money a bankrupt firm held when it closed
)
FLOW = {name: i for i, name in enumerate(FLOWS)}

# Per-round tallies, reset at the start of each round and written to the rounds frame.
TALLIES = (
    "loans_taken",
    "emergency_loans",
    "dividends",
    "company_costs",
    "profit",  # the Company's balance after costs, before dividends
    "trade_revenue",
    "orders_filled",
    "china_revenue",
    "checks",  # Director of Trade checks made
    "orders_opened",
    "ships_bought",
    "battles",
    "conquests",
    "officers_killed",
    "fired",  # office holders fired or killed by a mishap
    "tax",
    "loot",
    "royal_protection",
    "stability_change",
    # phase 8, India
    "storm",  # the storm die's face, 0 when the phase did not run
    "events",  # event tiles drawn
    "events_crisis",
    "events_leader",
    "events_turmoil",
    "events_windfall",
    "events_peace",
    "events_shuffle",
    "events_invasion",
    "attacks",  # attacks on Company regions (Crisis, Leader, Foreign Invasion)
    "revolts",  # revolts of Company regions with unrest set off by an attack
    "regions_lost",
    "regions_held",
    "ships_damaged",
    "ships_sunk",
    "orders_closed",  # by events, rebellions, invasions and lost regions
    "orders_reopened",  # by Peace
    # politics
    "laws_tabled",
    "laws_passed",
    "pm_changed",  # 1 when the Prime Minister changed hands in phase 9
    "taxes_paid",  # £ of policy taxes paid
    "bonuses_paid",  # £ of policy bonuses paid
    "assets_taxed_away",  # assets lost to unpaid policy taxes (D-POLICY lose_assets)
    "votes_bought",  # votes bought with £ in phases 9 and 11
    "deregulation",  # 0 none, 1 passed, 2 rejected (laws.DEREGULATION)
    "deregulation_by",  # who tabled it: 0 none, 1 the PM, 2 the public, 3 deregulation.forced_round
    "loans_written_off",
    "notes_sold",
    "notes_used",
    "exchanges",  # exchanges of money and property between families accepted at the deal moments (L56, D-GIFTS)
    # the London season (phase 1), upkeep (phase 10), the chair
    "retirements",  # office holders who retired in phase 1
    "stress_markers",  # stress markers gained in phase 1's roll
    "honourable_retirements",  # retirees whose family bought an honourable retirement
    "sent_home",  # retirees sent home unpaid
    "positions_taken",  # position cards taken from the display
    "upkeep_paid",  # £ of retirement upkeep paid in phase 10
    "upkeep_defaults",  # retirees who left honourable retirement because their upkeep was not paid
    "chair_changed",  # 1 when phase 5 seated a Chairman of another family than the last one
    # private firms
    "firms_opened",  # firms opened in phase 3
    "firm_investments",  # investments in firms in phase 3 (factories and Company shares)
    "firm_takeovers",  # firms whose manager changed in phase 3 (house: majority; jc2e: hostile takeover)
    "firm_mergers",  # firms absorbed by mergers (phase 3 and jc2e's emergency mergers in 7.1)
    "firm_ships_built",  # ships built at family shipyards for firms (jc2e: and bought back from the Company)
    "firm_revenue",  # £ of trade revenue paid to firms
    "firm_orders_filled",  # orders filled by firms (half-price fills included)
    "firm_dividends",  # £ of dividends paid by firms (the manager's share included)
    "emergency_investments",  # emergency investments in phase 7.1
    "bankruptcies",  # firms that could not pay their costs
    "special_retirements",  # honourable retirements a firm's dividend allowed (phase 1 and the end)
    # the cause of every stability change this round, signed (losses <= 0, gains >= 0); they add up to
    # stability_change. A loss the crash floor (0) cuts short counts only what was really lost.
    "stability_loss_emergency",  # phase 7: -1 per stability.emergency_loans_per_loss emergency loans (D-EMERGENCY)
    "stability_loss_expectation",  # phase 7: the profit left after costs below E(s) (D-EXPECT, L203-L208)
    "stability_gain",  # phase 7: +1 per level whose expectation the dividends paid cover (D-EXPECT, L206-L207)
    "stability_loss_regions",  # phase 8 (and 9: War Against France! failed): Company regions lost (R-ATTACK)
    "stability_loss_laws",  # law effects that lower it (Impeachment! failed, phase 9; R-PARLIAMENT)
    "stability_gain_laws",  # law effects that raise it (none in the default rules; a rules file may add one)
)
# the causes above, in the order a round applies them (phases 7, 8, 9); they sum to stability_change
STABILITY_CAUSES = (
    "stability_loss_emergency",
    "stability_loss_expectation",
    "stability_gain",
    "stability_loss_regions",
    "stability_loss_laws",
    "stability_gain_laws",
)
TALLY = {name: i for i, name in enumerate(TALLIES)}


@dataclass(frozen=True)
class State:
    # ------------------------------------------------------------------------------------------------ batch
    game: np.ndarray  # int64[G] global game index (the key of the game's random streams)
    round: np.ndarray  # int8[G] current round, 1-based
    done: np.ndarray  # bool[G] the game has ended; its arrays are frozen
    crashed: np.ndarray  # bool[G] ended by stability 0 (R-END crash)
    end_round: np.ndarray  # int8[G] round the game ended, 0 while running
    # ------------------------------------------------------------------------------------- families [G, N]
    money: np.ndarray  # int32[G,N] £ in hand
    supply: np.ndarray  # int32[G,N] free relatives at home (D-FAMILY)
    clerks: np.ndarray  # int32[G,N,P] clerks per presidency (phase 2 action 4)
    academy: np.ndarray  # int32[G,N] officers at the military academy, not yet assigned
    officers: np.ndarray  # int32[G,N,P] officers per army, the commander included
    shares: np.ndarray  # int32[G,N] relatives on the board = Company shares held (the chair not included)
    retired: np.ndarray  # int32[G,N,T] relatives in honourable retirement per tier (R-RETIRE)
    prisoners: np.ndarray  # int32[G,N] relatives in debtors' prison (firms, phase 7.1)
    luxuries: np.ndarray  # int32[G,N] luxuries owned (2 VP, 1 wealth each)
    shipyards: np.ndarray  # int32[G,N] family shipyards (1 vote, hold one ship)
    factories: np.ndarray  # int32[G,N] uninvested factories (1 £ income, 3 votes)
    wealth: np.ndarray  # int32[G,N] conspicuous wealth (ПБ), the tie-breaker
    trophies: np.ndarray  # int32[G,N] military trophies (influence)
    wreaths: np.ndarray  # int32[G,N] laws passed as Prime Minister (influence)
    last_action: np.ndarray  # int8[G,N] family action of the previous round, -1 none (phase 2 "twice")
    prime_minister: np.ndarray  # int8[G] seat holding the Prime Minister (political domination, not a relative)
    exchange: np.ndarray  # int8[G,E] seat waiting on each exchange position (cheapest first), -1 free
    # ---------------------------------------------------------------------------------------------- offices
    office: np.ndarray  # int8[G,OFF] seat whose relative holds each office, -1 vacant
    stress: np.ndarray  # int8[G,OFF] stress markers of the office holder (R-RETIRE)
    last_chair: np.ndarray  # int8[G] family that last held the chair (R-APPOINT fallbacks)
    governor: np.ndarray  # int8[G,R] seat of each region's governor, -1 none/vacant
    commander: np.ndarray  # int8[G,P] seat commanding each army (one of its officers), -1 none
    # ---------------------------------------------------------------------------------------------- company
    stability: np.ndarray  # int8[G] 0..max_stability; 0 = crash
    loans: np.ndarray  # int32[G] outstanding loans (emergency loans may pass the maximum)
    balance: np.ndarray  # int32[G] the Company's treasury (carried profit)
    treasury: np.ndarray  # int32[G,5] office treasuries: Director of Trade, Shipping Manager, 3 presidencies
    share_vp: np.ndarray  # int8[G] VP per Company share at the end (D-SHAREVP)
    royal_protection: np.ndarray  # int8[G] royal protection uses left
    china_open: np.ndarray  # bool[G] the route to China is open
    deregulated: np.ndarray  # bool[G] Deregulation passed (phase 11), firms open (phase 3)
    regiments: np.ndarray  # int32[G,P] Company regiments per army
    half_ships: np.ndarray  # int32[G,R] half-built Company ship of each region's governor (0 or 1; L160)
    gg_half_ship: np.ndarray  # int32[G] the Governor-General's half-built Company ship (0 or 1), kept by the office
    ships: np.ndarray  # int32[G,4,2] Company ships per location (3 seas, China) x kind (leased, Company)
    yard_ships: np.ndarray  # int32[G,N,4] family-yard ships per owner and location
    # ------------------------------------------------------------------------------------------------ india
    owner: np.ndarray  # int8[G,R] presidency controlling each region, -1 sovereign
    strength: np.ndarray  # int32[G,R] strength of sovereign regions
    unrest: np.ndarray  # int32[G,R] unrest markers
    looted: np.ndarray  # bool[G,R] looted before (the first-loot modifier is spent)
    capital: np.ndarray  # int8[G,R] region index of each region's empire capital (itself when independent)
    order_open: np.ndarray  # bool[G,O] open orders
    order_filled: np.ndarray  # bool[G,O] filled by the Company this round
    taxed: np.ndarray  # int8[G,R] tax collections this round (the second raises unrest)
    deposed: np.ndarray  # int32[G,N] governors lost to revolts this round (blame situation 5; phase 8)
    # --------------------------------------------------------------------------- india, phase 8
    yard_damaged: np.ndarray  # int32[G,N,4] damaged family-yard ships per owner and location (<= yard_ships)
    used_officers: np.ndarray  # int32[G,N,P] officers (survivors) who deployed this round; they cannot defend
    used_regiments: np.ndarray  # int32[G,P] regiments that deployed or defended this round
    elephant_at: np.ndarray  # int8[G] crisis marker: the region it points from (tail), or stands inside
    elephant_facing: np.ndarray  # int8[G] region its head faces across the border; -1 = turned inward
    event_stack: np.ndarray  # int8[G,K] hidden order of the event tiles (indices into rules.map.events)
    event_cursor: np.ndarray  # int8[G] position of the next tile in event_stack; -1 = not shuffled yet
    event_next: np.ndarray  # int8[G] region on the back of the next tile (public); -1 before the first shuffle
    event_block: np.ndarray  # int8[G] public: where the stack's lower part begins after a Shuffle tile's
    # "discard_on_top" reshuffle (the tiles above it are the ones drawn before it, in a hidden order; the tiles from it
    # on are the rest, in a hidden order); 0 after a shuffle of every tile
    # ------------------------------------------------------------------- politics (phases 9, 11, notes)
    policy: np.ndarray  # int8[G] policy track position 0..POLICIES-1 (R-PARLIAMENT, L224)
    ladder: np.ndarray  # int8[G,4] influence per asset on the ladder, order rules.ASSETS (lux, shares, yards, fact.)
    law_pile: np.ndarray  # int8[G,LAWS] where each law is: laws.DECK, DISCARD, IN_FORCE, or DRAWN (this phase)
    law_rank: np.ndarray  # float64[G,LAWS] hidden deck order (lowest is drawn next), -1 before the first shuffle
    note_holder: np.ndarray  # int8[G,N,5] seat holding issuer i's promissory note of kind k (i itself: not out)
    dereg_round: np.ndarray  # int8[G] round Deregulation passed (phase 11 or forced_round), 0 never
    law_passed: np.ndarray  # bool[G,LAWS] this round: the laws that passed in phase 9 (reset each round)
    # ------------------------------------------------------------------ position cards, D-POSITIONS
    deck: np.ndarray  # int8[G,D] hidden: the shuffled draw order (card indices); drawn entries stay listed
    deck_top: np.ndarray  # int8[G] hidden: index into ``deck`` of the next card drawn (D: the deck is spent)
    market: np.ndarray  # int8[G,M] revealed cards on display (card index), -1 an empty slot
    card_owner: np.ndarray  # int8[G,D] family holding each card, -1 nobody (in the deck or on display)
    card_played: np.ndarray  # bool[G,D] a closed card its owner has played (spent)
    card_taken: np.ndarray  # bool[G,D] this round: the cards taken from the display (reset each round)
    card_played_now: np.ndarray  # bool[G,D] this round: the closed cards played (reset each round)
    emergency_total: np.ndarray  # int32[G] emergency loans taken over the game (D-EMERGENCY "cumulative")
    # ----------------------------------------------------- private firms (R-FIRMS; sim/firms.py)
    # F = N firm slots (a family manages at most one firm); a slot is free when its manager is -1, and a free
    # slot holds zeros everywhere (value 0, no shares, no money, no ships). Slots are reused after a firm closes.
    firm_manager: np.ndarray  # int8[G,F] seat managing each firm, -1 = no firm in this slot
    firm_shares: np.ndarray  # int32[G,F,N] relatives of each family on the firm's share track (shareholders)
    firm_value: np.ndarray  # int8[G,F] the value track, 1..firms.max_value (0 = no firm)
    firm_cash: np.ndarray  # int32[G,F] the firm's treasury (house) / its London treasury (jc2e)
    firm_india: np.ndarray  # int32[G,F] jc2e: the India treasury (trade revenue until 7.1); always 0 in house
    firm_ships: np.ndarray  # int32[G,F,N] the firm's ships by the family whose shipyard holds each
    firm_damaged: np.ndarray  # int32[G,F,N] damaged ships among them (<= firm_ships)
    firm_sea: np.ndarray  # int8[G,F] presidency sea its ships sail: the home port of its last trade roll, -1 none
    firm_port: np.ndarray  # int8[G,F] hidden: this round's sealed home port, -1 = no trade (jc2e: Hobnob)
    firm_bid: np.ndarray  # int32[G,F] hidden: this round's sealed trade bid (£ = initiative dice)
    firm_successes: np.ndarray  # int8[G,F] successes of this round's initiative roll, -1 = did not roll
    firm_dividend: np.ndarray  # int32[G,F] dividend level: £ paid at its last dividend (kept while not trading)
    firm_carry: np.ndarray  # int32[G,F] trade revenue not turned into value yet (firms.value_steps "game")
    firm_filled: np.ndarray  # bool[G,O] orders filled by a firm this round (half price for the next filler)
    firm_fresh: np.ndarray  # int32[G,N] Company shares issued since the last firm phase (jc2e: not investable)
    invested_factories: np.ndarray  # int32[G,N] factories invested in firms (L79: no income, no crash VP)
    # ------------------------------------------------------------------------------------------- accounting
    ledger: np.ndarray  # int32[G,len(FLOWS)] money in (+) and out (-) of the game by flow
    tally: np.ndarray  # int32[G,len(TALLIES)] this round's counters
    # per family over the whole game (the seats frame's records; nobody decides from them)
    luxuries_bought: np.ndarray  # int32[G,N] luxuries bought with the phase 2 action (once or twice a round)
    firms_opened: np.ndarray  # int32[G,N] firms the family opened (phase 3, R-FIRMS)
    firms_bankrupt: np.ndarray  # int32[G,N] firms that went bankrupt while the family managed them (phase 7.1)
    # ------------------------------------------------------------------------------------------ setup record
    bid_total: np.ndarray  # int32[G,N] s_i, the family's bid total (D-BIDSUM)
    capital_exact: np.ndarray  # float64[G,N] exact capital from the formula
    capital_money: np.ndarray  # int32[G,N] starting money after rounding and leftover
    leftover: np.ndarray  # int32[G,N] coins received (+) or taken back (-) by the leftover rule
    leftover_case: np.ndarray  # int8[G] which case of the leftover rule applied (capital.LEFTOVER_CASES)
    # ---------------------------------------------------------------------------------------------- scoring
    vp: np.ndarray  # float64[G,N,len(VP_SOURCES)] victory points by source, filled at the end
    influence: np.ndarray  # int32[G,N] influence at the end
    blame: np.ndarray  # int8[G] public-blame situation drawn on a crash, -1 none
    winner: np.ndarray  # int8[G] winning seat

    @property
    def n_games(self) -> int:
        return self.game.shape[0]

    @property
    def n_players(self) -> int:
        return self.money.shape[1]

    def relatives(self) -> np.ndarray:
        """int[G,N] relatives of each family counted over every place they can be (should equal family_size)."""
        n = self.n_players
        seats = np.arange(n, dtype=np.int8)

        def held(a: np.ndarray) -> np.ndarray:  # count seat ids in an int8[G, K] holder array
            return (a[:, :, None] == seats[None, None, :]).sum(axis=1)

        return (
            self.supply
            + self.clerks.sum(axis=2)
            + self.academy
            + self.officers.sum(axis=2)
            + self.shares
            + self.retired.sum(axis=2)
            + self.prisoners
            + self.firm_shares.sum(axis=1)  # relatives on firms' share tracks
            + held(self.exchange)
            + held(self.office)
            + held(self.governor)
        )

    def money_in_game(self) -> np.ndarray:
        """int[G] every £ held by families, the Company and its office treasuries, and firms."""
        firms = self.firm_cash.sum(axis=1) + self.firm_india.sum(axis=1)
        return self.money.sum(axis=1) + self.balance + self.treasury.sum(axis=1) + firms

    def take(self, idx: np.ndarray) -> State:
        """A copy holding only games ``idx`` (indices or a bool mask)."""
        idx = np.asarray(idx)
        idx = np.flatnonzero(idx) if idx.dtype == bool else idx
        return State(**{f.name: getattr(self, f.name).take(idx, axis=0) for f in fields(self)})

    def put(self, idx: np.ndarray, part: State) -> None:
        """Write ``part`` (games taken with ``take(idx)``, played on since) back into rows ``idx``."""
        for f in fields(self):
            getattr(self, f.name)[idx] = getattr(part, f.name)


def new_state(rules: Rules, game_ids: np.ndarray) -> State:
    """The start position of the map and the Company (MAP.md 1710) before the auction hands out the lots."""
    g = len(game_ids)
    n = rules.players
    d = rules.d
    r, o = len(d.regions), len(d.orders)
    p, e, t = L.PRESIDENCIES, len(d.exchange_prices), len(d.tier_cost)
    co = rules.company

    def z(*shape, dtype=np.int32):
        return np.zeros((g, *shape), dtype=dtype)

    def full(value, *shape, dtype=np.int8):
        return np.full((g, *shape), value, dtype=dtype)

    return State(
        game=np.asarray(game_ids, dtype=np.int64).copy(),
        round=full(1),
        done=z(dtype=bool),
        crashed=z(dtype=bool),
        end_round=z(dtype=np.int8),
        money=z(n),
        supply=full(rules.game.family_size, n, dtype=np.int32),
        clerks=z(n, p),
        academy=z(n),
        officers=z(n, p),
        shares=z(n),
        retired=z(n, t),
        prisoners=z(n),
        luxuries=z(n),
        shipyards=z(n),
        factories=z(n),
        wealth=z(n),
        trophies=z(n),
        wreaths=z(n),
        last_action=full(-1, n),
        prime_minister=full(-1),
        exchange=full(-1, e),
        office=full(-1, L.N_OFFICES),
        stress=z(L.N_OFFICES, dtype=np.int8),
        last_chair=full(-1),
        governor=full(-1, r),
        commander=full(-1, p),
        stability=full(co.start_stability),
        loans=full(co.start_loans, dtype=np.int32),
        balance=full(co.start_balance, dtype=np.int32),
        treasury=full(co.office_treasury, L.N_TREASURIES, dtype=np.int32),
        share_vp=full(co.share_vp),
        royal_protection=full(co.royal_protection),
        china_open=z(dtype=bool),
        deregulated=z(dtype=bool),
        regiments=full(co.start_regiments, p, dtype=np.int32),
        half_ships=z(r),
        gg_half_ship=z(),
        ships=z(L.N_SHIP_LOCS, 2),
        yard_ships=z(n, L.N_SHIP_LOCS),
        owner=full(-1, r),
        strength=np.tile(d.strength0, (g, 1)).astype(np.int32),
        unrest=z(r),
        looted=z(r, dtype=bool),
        capital=np.tile(d.capital0, (g, 1)).astype(np.int8),
        order_open=np.tile(d.order_open0, (g, 1)),
        order_filled=z(o, dtype=bool),
        taxed=z(r, dtype=np.int8),
        deposed=z(n),
        yard_damaged=z(n, L.N_SHIP_LOCS),
        used_officers=z(n, p),
        used_regiments=z(p),
        elephant_at=full(d.elephant0[0]),
        elephant_facing=full(d.elephant0[1]),
        event_stack=np.tile(np.arange(len(d.tile_kind), dtype=np.int8), (g, 1)),
        event_cursor=full(-1),
        event_next=full(-1),
        event_block=z(dtype=np.int8),
        policy=full(rules.parliament.policy_start),
        ladder=np.tile(rules.d.ladder0, (g, 1)).astype(np.int8),
        law_pile=z(len(rules.parliament.laws), dtype=np.int8),
        law_rank=full(-1.0, len(rules.parliament.laws), dtype=np.float64),
        note_holder=np.tile(np.arange(n, dtype=np.int8)[None, :, None], (g, 1, len(rules.notes.kinds))),
        dereg_round=z(dtype=np.int8),
        law_passed=z(len(rules.parliament.laws), dtype=bool),
        deck=np.tile(np.arange(len(d.card_names), dtype=np.int8), (g, 1)),
        deck_top=z(dtype=np.int8),
        market=full(-1, rules.positions.revealed),
        card_owner=full(-1, len(d.card_names)),
        card_played=z(len(d.card_names), dtype=bool),
        card_taken=z(len(d.card_names), dtype=bool),
        card_played_now=z(len(d.card_names), dtype=bool),
        emergency_total=z(),
        firm_manager=full(-1, n),
        firm_shares=z(n, n),
        firm_value=z(n, dtype=np.int8),
        firm_cash=z(n),
        firm_india=z(n),
        firm_ships=z(n, n),
        firm_damaged=z(n, n),
        firm_sea=full(-1, n),
        firm_port=full(-1, n),
        firm_bid=z(n),
        firm_successes=full(-1, n),
        firm_dividend=z(n),
        firm_carry=z(n),
        firm_filled=z(o, dtype=bool),
        firm_fresh=z(n),
        invested_factories=z(n),
        ledger=_start_ledger(rules, g),
        tally=z(len(TALLIES)),
        luxuries_bought=z(n),
        firms_opened=z(n),
        firms_bankrupt=z(n),
        bid_total=z(n),
        capital_exact=z(n, dtype=np.float64),
        capital_money=z(n),
        leftover=z(n),
        leftover_case=z(dtype=np.int8),
        vp=z(n, L.N_VP, dtype=np.float64),
        influence=z(n),
        blame=full(-1),
        winner=full(-1),
    )


def _start_ledger(rules: Rules, g: int) -> np.ndarray:
    ledger = np.zeros((g, len(FLOWS)), dtype=np.int32)
    ledger[:, FLOW["company_start"]] = rules.company.office_treasury * L.N_TREASURIES + rules.company.start_balance
    return ledger
