"""Nouns naming units of people and pieces of work, for the extractor and the normalizer."""

from __future__ import annotations

__all__ = [
    "FUNCTION_WORDS",
    "ORGANISATION_WORDS",
    "PROJECT_HEADS",
    "TEAM_HEADS",
    "could_name_a_person",
    "is_gathering",
    "is_project_head",
    "is_team_head",
    "names_an_organisation",
    "person_shaped",
]

# Heads that name a unit of people: joining one is membership, joining a company employment.
TEAM_HEADS = frozenset(
    {
        "team", "teams", "group", "squad", "department", "dept", "unit", "crew", "guild",
        "chapter", "committee", "board", "council", "tribe", "pod", "taskforce", "task-force",
        "circle", "practice", "desk", "cell", "rota", "rotation", "roster",
    }
)  # fmt: skip


def _words(text: str) -> list[str]:
    return [w.strip(".,;:") for w in text.lower().replace("'s", "").replace("’s", "").split()]


# Heads that, capitalised in a name, name a company: "Halden Group", "Kestrel Group" employ
# people; "the Commerce group" is a unit of one.
_COMPANY_WHEN_CAPITALISED = frozenset({"group"})


def is_team_head(text: str) -> bool:
    """Whether a phrase names a unit of people ("the payments team", "Data Guild")."""
    words = _words(text)
    if not words or words[-1] not in TEAM_HEADS:
        return False
    last = text.split()[-1]
    return not (words[-1] in _COMPANY_WHEN_CAPITALISED and last[:1].isupper() and words[0] != "the")


# Heads that name a piece of work: joining one is working on it, not employment.
PROJECT_HEADS = frozenset(
    {
        "project", "projects", "initiative", "programme", "program", "workstream", "rollout",
        "migration", "rewrite", "launch", "pilot", "effort", "epic",
    }
)  # fmt: skip


def is_project_head(text: str) -> bool:
    """Whether a phrase names a piece of work ("the Atlas project", "the billing migration")."""
    words = _words(text)
    return len(words) >= 2 and words[-1] in PROJECT_HEADS


# Heads that name a gathering: joining one is attending it ("will join Greaves's call",
# "is joining their sprint planning"), no placement at all.
_GATHERING_HEADS = frozenset(
    {
        "call", "calls", "meeting", "meetings", "sync", "standup", "stand-up", "planning",
        "session", "webinar", "workshop", "review", "retro", "retrospective", "offsite",
        "demo", "kickoff", "kick-off", "interview", "huddle", "conference", "summit", "dinner",
        "lunch", "party", "presentation", "discussion", "conversation", "panel", "hackathon",
        "all-hands", "townhall", "onboarding", "training", "briefing", "chat", "thread",
        "channel", "tour", "trip", "visit", "event", "ceremony", "celebration",
    }
)  # fmt: skip


def is_gathering_word(word: str) -> bool:
    """Whether one word names a kind of gathering ("Kickoff", "standup", "retro")."""
    return word.lower() in _GATHERING_HEADS


def is_gathering(text: str) -> bool:
    """Whether a phrase names a gathering one attends ("the Q3 planning", "Greaves's call"),
    its head written in lower case ("Summit", "Blue Summit" may be companies)."""
    words = _words(text)
    return bool(words) and words[-1] in _GATHERING_HEADS and text.split()[-1][:1].islower()


# Last words that make a capitalised name an organisation's ("Castell Bank", "Quanta Labs").
ORGANISATION_WORDS = frozenset(
    {
        "holding", "holdings", "group", "inc", "inc.", "ltd", "ltd.", "llc", "plc", "gmbh",
        "ag", "sa", "bv", "nv", "co", "co.", "corp", "corp.", "corporation", "company",
        "labs", "lab", "bank", "partners", "capital", "ventures", "systems", "foundation",
        "technologies", "health", "logistics", "freight", "analytics", "solutions",
        "insurance", "consulting", "studio", "studios", "media", "markets", "university",
        "college", "school", "hospital", "institute", "trust", "fund", "airlines", "motors",
        "supplies", "foods", "industries", "enterprises", "clinics", "pharma", "software",
        "networks", "manufacturing", "associates", "limited", "llp", "shipping", "agency",
        # Trades that end a customer's name ("Brightwater Dental", "Corbin Textiles",
        # "Ashgrove Schools", "Pinecrest Credit Union"): two capitalised words are otherwise
        # read as a person's name, and "Tom manages Ashgrove Schools" as a report line.
        "schools", "dental", "textiles", "union", "marine", "biotech", "retail", "dairy",
        "bakery", "brewery", "brewing", "hotels", "hospitality", "medical", "pharmacy",
        "telecom", "airways", "mutual", "cooperative", "co-op", "builders", "construction",
        "properties", "realty", "farms", "vineyards", "apparel", "outfitters", "furniture",
    }
)  # fmt: skip
# Words of a capitalised name that make it a thing's: "Mobile Platform", "Checkout API".
_THING_WORDS = frozenset(
    {
        "platform", "service", "services", "api", "app", "office", "account", "product",
        "system", "portal", "dashboard", "pipeline", "cluster", "server", "database", "site",
        "hq", "headquarters", "region", "emea", "apac", "works", "robotics", "bio", "energy",
    }
)  # fmt: skip
# Words that name a department or function ("Data Engineering", "Customer Support", "VP of
# Sales"): units, never a person's name nor an employer.
FUNCTION_WORDS = frozenset(
    {
        "product", "engineering", "marketing", "sales", "finance", "design", "operations",
        "ops", "research", "hr", "legal", "support", "data", "security", "growth", "people",
        "partnerships", "procurement", "communications", "comms", "strategy", "infrastructure",
        "it", "analytics", "recruiting", "talent", "compliance", "risk", "quality", "platform",
        "success",
    }
)  # fmt: skip
_MAX_NAME_WORDS = 3


def names_an_organisation(name: str) -> bool:
    """Whether a name ends in a word that makes it a company's ("Castell Bank", "Halden
    Group", "Quanta Labs")."""
    words = _words(name)
    return bool(words) and words[-1] in ORGANISATION_WORDS


def person_shaped(name: str) -> bool:
    """Whether a name has a person's full name's shape: two or three capitalised words, none
    of which names an organisation, a unit, a piece of work or a thing ("Brenna Holt", not
    "Castell Bank", "Payments Team" or "Checkout API"). For names the given-name list lacks."""
    return len(name.split()) >= 2 and could_name_a_person(name)


def could_name_a_person(name: str) -> bool:
    """Whether a name could be a person's: one to three capitalised words, none of which
    names an organisation, a unit, a piece of work or a thing ("Brenna", "Brenna Holt")."""
    words = name.split()
    if not 1 <= len(words) <= _MAX_NAME_WORDS:
        return False
    if not all(w[:1].isupper() and w.replace("-", "").replace("'", "").isalpha() for w in words):
        return False
    lowered = set(_words(name))
    return not lowered & (
        ORGANISATION_WORDS | TEAM_HEADS | PROJECT_HEADS | _THING_WORDS | FUNCTION_WORDS
    )
