"""One module per phase of the round, in rule order; each is ``phase(state, rules, dice, agents) -> None``."""

from .accounts import accounts
from .appointments import appointments
from .deregulation import deregulation
from .family import family_actions
from .firms import firms
from .india import india
from .london import london_season
from .operations import company_operations
from .parliament import parliament
from .shares import issue_shares
from .upkeep import upkeep

# (number, name, function, simulated?) — the round's eleven phases (docs/rules.md, "The round").
ROUND = (
    (1, "london_season", london_season, True),
    (2, "family_actions", family_actions, True),
    (3, "firms", firms, True),
    (4, "shares", issue_shares, True),
    (5, "appointments", appointments, True),
    (6, "company_operations", company_operations, True),
    (7, "accounts", accounts, True),
    (8, "india", india, True),
    (9, "parliament", parliament, True),
    (10, "upkeep", upkeep, True),
    (11, "deregulation", deregulation, True),
)
