"""The names a rules file may use for the laws' policies, modifiers and effects (R-PARLIAMENT, D-LAWS) and for the
promissory notes (R-NOTE): ``Rules`` checks a file's names against them, ``sim.laws`` and ``sim.notes`` give each name
its effect. They live here, below both, so that reading a rules file needs no phase."""

from __future__ import annotations

# Policy kinds (rules.parliament.policies[i].kind).
POLICY_KINDS = ("power", "tax", "bonus")

# Modifiers a law may carry while in force (rules.parliament.laws[i].modifiers); each is read at one place.
MODIFIERS = (
    "yard_cost",  # phase 6: £ added to a family-yard ship bought by the Shipping Manager (Ship Subsidy -1)
    "factory_cost_fresh",  # phase 2: £ added to a factory when the family did not buy one last round (Industry
    # Subsidy -2; 2e: "if your opportunity token is not on the workshop space")
    "china_per_opium",  # phase 6: £ added per opium icon of a China trade (Envoy to China +1)
    "regiment_cost",  # phase 7: £ added to each regiment's upkeep (Sepoy Recruitment -1)
    "loan_cost",  # phase 7: £ added to each loan's interest (Company Aids Government +1)
    "governor_dice",  # phase 6: admin dice added to every governor (Zamindar Taxes +1)
    "governor_fail_unrest",  # phase 6: unrest added by a failed governor or Governor-General action (Zamindar +1)
    "governor_general_bonus",  # phase 6: £ added to the Governor-General's income on a success (Zamindar +3)
    "clerk_pay",  # phase 6: £ added per clerk placed on a filled order (Writer Privileges +1)
    "retiree_income",  # phase 7: £ per relative in honourable retirement (Inclosure Acts 1)
    "deregulation_support",  # phase 11: public support added to Deregulation (Writer Privileges +5)
    "vote_cost",  # phases 9, 11: £ added to the price of a bought vote (Masses Demand Franchise! +1)
    "company_levy_per",  # phase 7: the Company loses 1 £ per this many £ of balance before Deregulation (Calico 7)
    "president_bonus_to_company",  # phase 6: the President's bonus goes to the Company (Trade Regulations)
    "clerk_pay_to_company",  # phase 6: clerks' pay goes to the Company (Writer Graft Reform)
    "loot_to_company",  # phase 6: all loot goes to the Company (Treasure Reform)
    "no_wealth_tax",  # phase 9: taxes no longer count conspicuous wealth (Window Tax Repeal)
    "board_of_control",  # phase 6: the PM may remove one officeholder but the Chairman (Board of Control)
    "military_oversight",  # phase 6: the PM may re-appoint one army's commander (Military Oversight)
    "governor_general",  # phase 5/6: the Governor-General's office exists (Governor General)
    "chairman_retires",  # phase 1: the Chairman always retires (Tenure Limits)
    "unrest_attack_bonus",  # phase 8: each unrest adds this to attacks (Sepoy Recruitment)
)

# Effects a law may have when it passes or fails (rules.parliament.laws[i].on_pass / on_fail).
EFFECTS = (
    "money_per_asset",  # every family gains amount £ per asset it holds (Calico Acts: 2 per factory)
    "regiments",  # amount regiments join every army (Army Spending: 2)
    "open_china",  # the route to China opens (Envoy to China)
    "clear_debt",  # the Company's loans drop to 0 (Debt Restructure)
    "share_vp",  # Company share VP += amount, bounded (Company Aids Government: +1)
    "royal_protection",  # the Chairman gains amount uses of royal protection (Royal Protection: 1)
    "stability",  # stability += amount; 0 is the crash (Impeachment! failed: -1)
    "unrest",  # amount unrest in every Company region (Indian Famine! failed: 1)
    "turmoil_home",  # the first open order of each presidency's home region closes (Indian Famine! failed)
    "impeach",  # the officeholder the PM named before the vote leaves office (Impeachment! passed)
    "repeat_policy",  # the tabled policy is applied a second time (Indian Famine! passed)
    "war_losses",  # the PM removes amount ships and amount officers/regiments (War Against France! passed)
    "foreign_invasion",  # a Foreign Invasion of the home regions the storm die names (War Against France! failed)
)

# Kinds of promissory note (rules.notes.kinds, in this order) and where a note's bonus flows (R-NOTE).
NOTE_KINDS = ("money", "nepotism", "position", "votes", "bonus")
NOTE_BONUS_FLOWS = ("president_bonus", "china_manager", "governor_general")
