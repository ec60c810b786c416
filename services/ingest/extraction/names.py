"""What a token or a run of tokens names: NER spans, proper-noun runs, and what is no name.

The pieces of a name that the small English model gets wrong are settled here, once, for every
reader of phrases (`arguments.py`): a title is no name ("the CTO"), nor a period ("Q3"), a unit a
number counts ("10 GB") or a title of address ("Dr."); a surname the NER labelled alone grows
over the given name compounded onto it ("Harriet [Cole]", "Hye-jin Park").
"""

from __future__ import annotations

import calendar
import re
from typing import Any

from services.ingest.extraction.coref import is_honorific
from shared.entities.given_names import is_given_name
from shared.entities.normalize import normalize_name
from shared.text.units import ORGANISATION_WORDS

__all__ = [
    "CALENDAR_WORDS",
    "NAME_LABELS",
    "ROLE_WORDS",
    "SYSTEM_HEADS",
    "counted_unit",
    "is_camel_case",
    "is_name",
    "is_organisation",
    "is_person",
    "is_proper",
    "name_span",
    "possessive_name",
    "without_honorific",
    "without_possessive",
]

# NER labels whose spans are names of things an agent may ask about. Dates, numbers and money
# are values, never entities.
NAME_LABELS = frozenset(
    {"PERSON", "ORG", "PRODUCT", "GPE", "LOC", "FAC", "NORP", "WORK_OF_ART", "EVENT", "LAW"}
)

# Titles and positions: "the CTO of Northwind" names a person through their role in Northwind.
ROLE_WORDS = frozenset(
    {
        "ceo", "cto", "cfo", "coo", "cio", "ciso", "cmo", "cpo", "cro", "vp", "svp", "evp",
        "president", "chair", "chairman", "chairwoman", "chairperson", "director", "manager",
        "head", "lead", "founder", "cofounder", "co-founder", "owner", "partner", "principal",
        "engineer", "developer", "designer", "analyst", "architect", "consultant", "advisor",
        "adviser", "counsel", "officer", "chief", "secretary", "treasurer", "editor",
        "researcher", "scientist", "recruiter", "administrator", "coordinator", "specialist",
        "strategist", "marketer", "accountant", "lawyer", "attorney", "intern", "contractor",
        "employee", "member", "staffer", "representative", "rep", "spokesperson", "spokesman",
        "spokeswoman", "ambassador", "executive", "supervisor", "controller", "auditor",
        "evangelist", "steward", "captain",
    }
)  # fmt: skip

# Months, weekdays and quarters: a lone one is a date, even where it is also a given name
# ("on 2 June", "see you Monday").
CALENDAR_WORDS = frozenset(
    w.lower()
    for names in (calendar.month_name, calendar.month_abbr, calendar.day_name, calendar.day_abbr)
    for w in names
    if w
) | {"q1", "q2", "q3", "q4", "h1", "h2", "today", "yesterday", "tomorrow"}
_PERIOD_NAME = re.compile(r"(?:[QH][1-4]|FY\d{2,4}|W\d{1,2})", re.IGNORECASE)


def is_proper(tok: Any) -> bool:
    """A proper noun as written (the small tagger also calls "cutover" one), never a month or
    a weekday ("the June date")."""
    return bool(
        tok.pos_ == "PROPN"
        and tok.text[:1].isupper()
        and tok.ent_type_ not in ("DATE", "TIME")
        and not _PERIOD_NAME.fullmatch(tok.text)
    )


# Heads that with a name before them name a system or product of that name ("the Ledger
# service", "the Lynx app"): the name is the whole phrase, not an owner of the head.
SYSTEM_HEADS = frozenset(
    {
        "service", "app", "application", "api", "platform", "scheduler", "database", "db",
        "pipeline", "cluster", "queue", "library", "sdk", "portal", "dashboard", "system",
        "engine", "bot", "tool", "product", "plan", "tier", "account", "programme", "program",
        "project", "initiative", "workspace", "repo", "repository", "model", "module",
        "component", "gateway", "cli", "console", "website", "site", "server", "store",
    }
)  # fmt: skip
# "CockroachDB", "PagerDuty", "GitHub": a capital after lower-case letters inside a word marks
# a product name, whatever tag the small model gives it.
_CAMEL_CASE = re.compile(r"[A-Z]?[a-z]+[A-Z][A-Za-z0-9]*")


def is_camel_case(text: str) -> bool:
    """ "CockroachDB", "PagerDuty": a product name by its shape."""
    return bool(_CAMEL_CASE.fullmatch(text))


# Units a number counts in ("10 GB of storage", "200 MB uploads"): the small model tags them
# proper nouns, even organisations.
_UNITS = frozenset(
    {"kb", "mb", "gb", "tb", "pb", "kw", "mw", "gw", "kwh", "mwh", "kg", "km", "fte", "ms", "rps"}
)


def counted_unit(tok: Any) -> bool:
    """What a number before it counts ("10 GB", "3 engineers", "200 MB uploads"): a quantity,
    never a name. "Android 10" is one (its number comes after), and so is "the 3 Sigma team"
    (a singular head a number names)."""
    counted = any(c.dep_ == "nummod" and c.i < tok.i and c.like_num for c in tok.children)
    counted |= tok.i > 0 and tok.doc[tok.i - 1].like_num
    return counted and (tok.lower_ in _UNITS or tok.tag_ == "NNS")


def is_name(tok: Any) -> bool:
    """A token inside a name: a NER name span (not a title NER mislabelled) or a proper noun."""
    if tok.lower_ in ROLE_WORDS or _PERIOD_NAME.fullmatch(tok.text) or counted_unit(tok):
        return False
    return (tok.ent_type_ in NAME_LABELS) or is_proper(tok) or is_camel_case(tok.text)


def is_person(tok: Any) -> bool:
    """A token of a person's name: NER's person, or a proper name opening with a common given
    name that NER called something else ("Sofia Lind" as an organisation, "Priya")."""
    if tok.ent_type_ == "PERSON":
        return True
    if tok.pos_ != "PROPN":
        return False
    span = name_span(tok) or (tok,)
    return is_given_name(normalize_name(span[0].text))


_POSSESSIVE_END = re.compile(r"['’]s?$")


def without_possessive(text: str) -> str:
    """A name without the possessive ending a text run gave it ("Dana Kim's" -> "Dana Kim")."""
    return _POSSESSIVE_END.sub("", text)


def name_span(tok: Any) -> tuple[Any, ...] | None:
    """The whole name `tok` is part of: its NER span, else its run of compound proper nouns."""
    if not is_name(tok):
        return None
    if tok.ent_type_ in NAME_LABELS:
        for ent in tok.doc.ents:
            if ent.start <= tok.i < ent.end:
                # A name holds no comma: NER may run one over it ("[Arvo, Ines Moreau]").
                part = [t for t in ent if t.text == "," and t.i < tok.i]
                first = part[-1].i + 1 if part else ent.start
                last = next((t.i for t in ent if t.text == "," and t.i > tok.i), ent.end)
                piece = tok.doc[first:last]
                words = tuple(t for t in piece if not t.is_punct or t.text in ("&", "-", "."))
                words = tuple(t for t in words if t.lower_ not in ("the", "'s", "’s"))
                # The small NER sometimes runs a name into the verb after it ("[Leo is]
                # Quill's new VP"): a lower-case verb ending the span is no part of the name.
                while len(words) > 1 and words[-1].pos_ in ("AUX", "VERB") and words[-1].is_lower:
                    words = words[:-1]
                if len(words) == 1 and words[0].lower_ in SYSTEM_HEADS:
                    return None  # "the payments [API]": a kind of system, named by its modifiers
                if words and all(t.lower_ not in ROLE_WORDS for t in words):
                    return without_honorific(_with_leading_compounds(words))
    if not is_proper(tok):
        return (tok,)
    head = tok
    while head.dep_ in ("compound", "flat") and is_proper(head.head) and head.head.i > head.i:
        head = head.head
    # The proper nouns right before the head: "Priya Shah", never "Berlin sales office".
    doc, start = head.doc, head.i
    while (
        start > 0
        and is_proper(doc[start - 1])
        and doc[start - 1].dep_ in ("compound", "flat")
        and doc[start - 1].lower_ not in ROLE_WORDS
    ):
        start -= 1
    return without_honorific(_with_leading_compounds(tuple(doc[start : head.i + 1])))


def without_honorific(words: tuple[Any, ...]) -> tuple[Any, ...]:
    """The name's tokens less a leading title of address ("Dr.", "Ms")."""
    while len(words) > 1 and is_honorific(words[0].text):
        words = words[1:]
    return words


def _hyphenated_word_before(doc: Any, start: int) -> int | None:
    """The first token of a capitalised hyphenated word ending right before `start` (or
    running into it) and compounded onto it ("Hye-jin" before "Park", which the tagger
    splits into three tokens of any tag), else None."""
    if (
        start >= 2
        and doc[start - 1].text == "-"
        and not doc[start - 1].whitespace_
        and not doc[start - 2].whitespace_
        and doc[start - 2].text[:1].isupper()
        and doc[start - 2].text.isalpha()
    ):
        return start - 2  # "Ana-[Maria Popescu]": the span starts inside the word
    end = start - 1
    if end < 2 or not doc[end].whitespace_ or doc[end].dep_ not in ("compound", "flat", "amod"):
        return None
    first = end
    while first > 0 and not doc[first - 1].whitespace_ and doc[first - 1].text != "\n":
        first -= 1
    pieces = doc[first : end + 1]
    if len(pieces) < 3 or not any(t.text == "-" for t in pieces):
        return None
    return first if pieces[0].text[:1].isupper() and pieces[0].text.isalpha() else None


def _date_word(doc: Any, i: int) -> bool:
    """ "As of 1 [March] Marco Bellini …", "In [June] Dana Kim …": a month the NER left out of
    a date, after a day or a preposition, is no part of the name after it ("May Chen" is)."""
    if doc[i].lower_ not in CALENDAR_WORDS or i == 0:
        return False
    return doc[i - 1].like_num or doc[i - 1].lower_ in _DATE_PREPOSITIONS


_DATE_PREPOSITIONS = frozenset({"of", "in", "since", "from", "by", "until", "on", "during"})


def _with_leading_compounds(words: tuple[Any, ...]) -> tuple[Any, ...]:
    """A NER span grown over the proper nouns compounded onto it from the left: the small
    model often labels only the surname ("Harriet [Cole]"), and the parse still joins them."""
    doc, start, inside = words[0].doc, words[0].i, {t.i for t in words}
    while start > 0:
        hyphenated = _hyphenated_word_before(doc, start)
        if hyphenated is not None:  # "Hye-jin Park", "Jean-Luc Picard": one given name
            start = hyphenated
            inside.update(range(start, words[0].i))
            continue
        before = doc[start - 1]
        if not (
            is_proper(before)
            and before.dep_ in ("compound", "flat")
            and before.head.i in inside
            and before.lower_ not in ROLE_WORDS
            and before.ent_type_ in ("", *NAME_LABELS)
            and not _date_word(doc, start - 1)
        ):
            break
        start -= 1
        inside.add(start)
    return tuple(doc[start : words[0].i]) + words


def is_organisation(tok: Any) -> bool:
    """A token of an organisation's name, also where the small NER calls a company a person:
    a name ending in a company's word ("Quantix Labs", "Serra Capital"), or a lone name that is
    no given name ("Brightwave")."""
    if tok.ent_type_ == "ORG":
        return True
    if not is_name(tok) or tok.ent_type_ in ("GPE", "LOC", "NORP"):
        return False
    if tok.lower_ in ORGANISATION_WORDS:
        return True
    span = name_span(tok) or (tok,)
    if tok.ent_type_ == "PERSON":
        return len(span) == 1 and not is_given_name(normalize_name(tok.text))
    return not is_person(tok)


# Kinds of establishment named for a person or a saint ("Halloran's Bakery", "St Brigid's
# Hospice"): the possessive is part of the name, not an owner of a thing.
_ESTABLISHMENTS = frozenset(
    {
        "hospice", "hospital", "school", "college", "academy", "church", "cathedral", "bakery",
        "cafe", "café", "pub", "bar", "restaurant", "clinic", "surgery", "garage", "shop",
        "store", "deli", "kitchen", "diner", "inn", "hotel", "market", "pharmacy", "nursery",
        "primary", "university", "infirmary", "brewery", "gallery", "farm",
    }
)  # fmt: skip


def possessive_name(head: Any, inside: set[int]) -> tuple[Any, ...] | None:
    """The tokens of a name that holds a possessive ("St Brigid's Hospice", "Halloran's
    Bakery"): a capitalised establishment word, or any capitalised head after "St"/"Saint"."""
    if head.pos_ != "PROPN" or not head.text[:1].isupper():
        return None
    owner = next((c for c in head.children if c.dep_ == "poss" and c.i in inside), None)
    if owner is None or owner.pos_ != "PROPN":
        return None
    saint = owner.left_edge.lower_ in ("st", "st.", "saint")
    if not saint and head.lower_ not in _ESTABLISHMENTS:
        return None
    tokens = [t for t in owner.subtree if t.i in inside] + [head]
    return tuple(sorted(tokens, key=lambda t: t.i))
