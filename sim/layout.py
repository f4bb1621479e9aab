"""Fixed indices of the game's small axes: offices, treasuries, ship kinds, family actions, candidate sources.

The game is built around three presidencies (Bombay, Madras, Bengal in the default map), so these axes have a fixed
size; everything numeric about them lives in the rules file.
"""

PRESIDENCIES = 3

# Offices (committee heads and the Governor-General); governors are per region, not here.
CHAIRMAN = 0
DIRECTOR = 1  # Director of Trade
SHIPPING = 2  # Shipping Manager
MILITARY = 3  # Military Affairs
PRESIDENT = (4, 5, 6)  # President of presidency p = PRESIDENT[p]
CHINA = 7  # China Trade Manager (only while China is open)
GOVERNOR_GENERAL = 8  # only if the law passed (phase 9)
N_OFFICES = 9
OFFICE_BASE_NAMES = ("chairman", "director_of_trade", "shipping_manager", "military_affairs")


def office_names(presidencies: tuple[str, ...]) -> tuple[str, ...]:
    """Office ids as the rules file spells them: president_<presidency name> for the three presidents."""
    return (
        OFFICE_BASE_NAMES
        + tuple(f"president_{p}" for p in presidencies)
        + (
            "china_trade_manager",
            "governor_general",
        )
    )


# Office treasuries the Chairman's budget goes to (R-CHAIRMAN, phase 6).
T_DIRECTOR = 0
T_SHIPPING = 1
T_PRESIDENCY = (2, 3, 4)
N_TREASURIES = 5

# Ship locations: the three presidency seas, then the China committee.
SEA = (0, 1, 2)
CHINA_LOC = 3
N_SHIP_LOCS = 4
# Company-held ship kinds (family-yard ships are kept per owner in yard_ships).
LEASED = 0
COMPANY_SHIP = 1

# Family actions, phase 2.
A_PASS, A_LUXURY, A_SHIPYARD, A_FACTORY, A_CLERK, A_OFFICER, A_SHARES = range(7)
N_ACTIONS = 7
ACTION_NAMES = ("pass", "luxury", "shipyard", "factory", "clerk", "officer", "shares")

# Where an appointed relative comes from (phase 5). A candidate is (family, source).
SRC_CLERK = (0, 1, 2)  # clerk in presidency p
SRC_OFFICER = (3, 4, 5)  # officer in army p
SRC_ACADEMY = 6
SRC_OFFICE0 = 7  # SRC_OFFICE0 + office index: the holder of another office
SRC_GOVERNOR0 = SRC_OFFICE0 + N_OFFICES  # + region index: a governor (regions follow)


def n_sources(n_regions: int) -> int:
    return SRC_GOVERNOR0 + n_regions


# Governor effects on a successful administrative action.
G_REGIMENT, G_SHIP, G_TAX_COMPANY, G_TAX_PRESIDENCY = range(4)
N_GOV_EFFECTS = 4

# Move kinds of the Director of Trade and of Military Affairs.
MOVE_NONE = 0
MOVE_CLERKS, MOVE_LEASED, MOVE_COMPANY_SHIPS, MOVE_YARD_SHIPS = 1, 2, 3, 4
MOVE_OFFICERS, MOVE_REGIMENTS = 1, 2

# Victory-point sources (end of game), reported separately.
VP_SOURCES = (
    "luxury",
    "retirements",
    "company_shares",
    "firm_shares",
    "debtors_prison",
    "factories",
    "influence",
    "blame",
)
N_VP = len(VP_SOURCES)

# Public-blame situations drawn on a crash (L250-L255); blame = -1 when none.
BLAME_NAMES = ("military", "shipbuilders", "board_impeccable", "parliament", "despots", "industrialists")

# India, phase 8: event tile kinds (rules.map.events[].kind) and the crisis marker's march shapes.
EVENT_KINDS = ("crisis", "leader", "turmoil", "windfall", "peace", "shuffle", "invasion")
E_CRISIS, E_LEADER, E_TURMOIL, E_WINDFALL, E_PEACE, E_SHUFFLE, E_INVASION = range(7)
SHAPES = ("triangle", "circle", "square")  # a tile without a shape marches as NO_SHAPE: the first neighbour
NO_SHAPE = 3
# Moments at which a closed position card is played (D-POSITIONS); a permanent card has none (-1).
CARD_MOMENTS = ("family_actions", "appointments", "accounts", "parliament")
