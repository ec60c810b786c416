"""Common English nicknames and short forms of given names, for context-supported matching."""

from __future__ import annotations

__all__ = ["NICKNAMES", "is_short_form_of", "short_form_expansions", "short_forms_of"]

# short form -> full given names it commonly abbreviates (lower case, accent-free).
NICKNAMES: dict[str, tuple[str, ...]] = {
    "abby": ("abigail",),
    "al": ("albert", "alan", "alfred", "alexander"),
    "alex": ("alexander", "alexandra", "alexis"),
    "andy": ("andrew",),
    "ben": ("benjamin",),
    "beth": ("elizabeth", "bethany"),
    "bill": ("william",),
    "billy": ("william",),
    "bob": ("robert",),
    "bobby": ("robert",),
    "cal": ("calvin", "callum"),
    "carol": ("caroline",),
    "cathy": ("catherine", "cathleen"),
    "charlie": ("charles", "charlotte"),
    "chris": ("christopher", "christine", "christina"),
    "dan": ("daniel",),
    "danny": ("daniel",),
    "dave": ("david",),
    "deb": ("deborah", "debra"),
    "debbie": ("deborah", "debra"),
    "dick": ("richard",),
    "ed": ("edward", "edwin"),
    "eddie": ("edward",),
    "ev": ("evan", "evelyn"),
    "greg": ("gregory",),
    "jen": ("jennifer",),
    "jenny": ("jennifer",),
    "jim": ("james",),
    "jimmy": ("james",),
    "jo": ("joanna", "josephine", "joanne"),
    "joe": ("joseph",),
    "johnny": ("john", "jonathan"),
    "jon": ("jonathan",),
    "jojo": ("jolene", "joanna"),
    "kate": ("katherine", "catherine", "kathryn"),
    "katie": ("katherine", "catherine", "kathryn"),
    "ken": ("kenneth",),
    "larry": ("lawrence",),
    "liz": ("elizabeth",),
    "maggie": ("margaret",),
    "matt": ("matthew",),
    "meg": ("margaret", "megan"),
    "mel": ("melanie", "melissa", "melvin"),
    "mike": ("michael",),
    "nate": ("nathan", "nathaniel"),
    "nick": ("nicholas",),
    "pat": ("patrick", "patricia"),
    "peggy": ("margaret",),
    "rob": ("robert",),
    "ron": ("ronald",),
    "sam": ("samuel", "samantha"),
    "steve": ("steven", "stephen"),
    "sue": ("susan", "suzanne"),
    "ted": ("edward", "theodore"),
    "tim": ("timothy",),
    "tom": ("thomas",),
    "tony": ("anthony",),
    "vicky": ("victoria",),
    "will": ("william",),
    "zach": ("zachary",),
}


def short_form_expansions(given: str) -> tuple[str, ...]:
    """Full names `given` (a normalized first token) may stand for; empty if none is known."""
    return NICKNAMES.get(given, ())


def is_short_form_of(short: str, full: str) -> bool:
    """True when `short` is a listed nickname of `full`, or a clipped prefix of it of at least
    three letters ("Mel" of "Melanie", "Jol" of "Jolene")."""
    if short == full:
        return False
    if full in NICKNAMES.get(short, ()):
        return True
    return len(short) >= 3 and full.startswith(short)


def short_forms_of(full: str) -> tuple[str, ...]:
    """The short forms `full` (a normalized given name) is commonly written as: its listed
    nicknames and its first three to five letters when that clips at least two ("mel", "mela",
    "melan" of "melanie", "chris" of "christopher"; not "dan" of "dana", a name of its own)."""
    listed = [short for short, fulls in NICKNAMES.items() if full in fulls]
    clipped = [full[:end] for end in range(3, min(6, len(full) - 1))]
    return tuple(dict.fromkeys(listed + clipped))
