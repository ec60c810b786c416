"""Positions: what a role noun is ("CTO", "head", a nurse at a named hospital), where it is
held ("CTO of/at Northwind", "Northwind's CTO", not "VP of Sales"), and the verb a role maps
to (`arguments.entity_phrase` reads a phrase's roles with these)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.ingest.extraction.names import ROLE_WORDS, is_person, name_span
from services.ingest.extraction.unknown_words import english_word
from shared.text.units import FUNCTION_WORDS, is_team_head

__all__ = [
    "holds_position",
    "is_role_word",
    "position_workplace",
    "role_predicate",
    "role_target",
]

_FOUNDER_WORDS = frozenset({"founder", "cofounder", "co-founder"})
_ROLE_PREPOSITIONS = frozenset({"of", "at", "for", "with"})


def role_predicate(role_word: str, target_text: str) -> str:
    """The verb phrase a role maps to: founders founded it, owners own it, members of a team
    are members, and holding any other position in an organization is working for it."""
    if role_word.lower() in _FOUNDER_WORDS:
        return "found"
    if role_word.lower() == "owner":
        return "own"  # "Dana, the owner of the Ledger API": the API's owner, not an employer
    return "member of" if is_team_head(target_text) else "work for"


def is_role_word(tok: Any) -> bool:
    """A title or position ("CTO", "head", "engineer")."""
    return tok.lower_ in ROLE_WORDS or tok.lemma_.lower() in ROLE_WORDS


# Nouns that stand "at <Org>" without working there: its customers and visitors, the events
# held there, and study (which is not employment).
_NOT_POSITIONS = frozenset(
    {
        "customer", "client", "guest", "visitor", "patient", "user", "investor", "shareholder",
        "speaker", "attendee", "tenant", "subscriber", "fan", "regular", "buyer", "supplier",
        "vendor", "competitor", "rival", "student", "alumnus", "alumna", "graduate", "resident",
        "meeting", "workshop", "event", "conference", "session", "talk", "offsite", "review",
        "demo", "presentation", "training", "call", "interview", "visit", "trip", "launch",
        "party", "dinner", "lunch", "outage", "incident", "deal", "contract", "project",
    }
)  # fmt: skip


def position_workplace(attr: Any, copula: Any, inside: set[int]) -> tuple[Any, ...] | None:
    """The organisation a copula's complement is a position in when the parser hung the "at"
    on the verb ("Chen Jie is a paralegal at Harlow Finch": "at" under "is")."""
    if attr.pos_ != "NOUN" or attr.lemma_.lower() in _NOT_POSITIONS:
        return None
    if any(c.dep_ == "prep" for c in attr.children):
        return None
    workplace = _named_workplace(copula, inside)
    if workplace is None or any(t.ent_type_ in ("GPE", "LOC") for t in workplace):
        return None
    return workplace if workplace[0].i > attr.i else None


def _held_at(head: Any, inside: set[int]) -> bool:
    return any(
        c.dep_ == "prep" and c.lower_ in ("at", "with") and c.i in inside for c in head.children
    )


def holds_position(tok: Any, inside: set[int]) -> bool:
    """A position: a title from the list, or any common noun held at a named organisation
    ("a professor at Kessler University", "a nurse with Mercy Health"): the structure says it
    is a job when the title is one nobody listed."""
    if is_role_word(tok):
        return True
    if tok.pos_ != "NOUN" or tok.lemma_.lower() in _NOT_POSITIONS:
        return False
    workplace = _named_workplace(tok, inside)
    return workplace is not None and not any(t.ent_type_ in ("GPE", "LOC") for t in workplace)


def role_target(
    head: Any,
    inside: set[int],
    nameable: Callable[[Any, Any, set[int]], tuple[Any, ...] | None],
) -> tuple[Any, ...] | None:
    """The organization a role noun is held in: "CTO of/at Northwind", "Northwind's CTO";
    `nameable(role, object, inside)` names an object that is no proper name (a team, or
    anything an owner owns)."""
    # "Director of Engineering at Lumio": the function is "of", the workplace "at", whichever
    # the parser hangs where.
    for child in sorted(head.children, key=lambda c: (c.lower_ == "of", c.i)):
        if child.i not in inside:
            continue
        if child.dep_ == "poss":
            span = name_span(child)
            if span and is_person(child) and _held_at(head, inside):
                continue  # "Noor's product manager at Lumio": Noor's colleague, Lumio's post
            if span:
                return span
            if child.lower_ in ("their", "its"):
                return (child,)  # "Their new head of procurement": the organisation meant
        if child.dep_ == "prep" and child.lower_ in _ROLE_PREPOSITIONS:
            pobj = next((g for g in child.children if g.dep_ == "pobj"), None)
            if pobj is not None:
                # "VP of Marketing at Arbor Labs", "director of engineering at Corvid": the
                # function is "of"; the organization is the named place of work after it.
                held_at = _named_workplace(pobj, inside) if child.lower_ == "of" else None
                if not held_at and child.lower_ == "of" and _function(pobj, head):
                    continue  # "VP of Sales": the function, not where the post is held
                span = held_at or name_span(pobj) or nameable(head, pobj, inside)
                if span:
                    return span
    for child in head.children:  # "the Northwind CTO"
        if child.dep_ == "compound" and child.i in inside and not _function(child, head):
            # "the Northwind CTO": the name runs into the capitalised title; "Ops Manager",
            # "Procurement Lead" are titles whose function is no workplace.
            span = tuple(t for t in name_span(child) or () if t.i < head.i)
            # "Senior Staff Engineer", "Senior Product Manager": a grade and a function;
            # "Chief Operating Officer", "Account Director": English words of a title, where
            # an employer is a name ("the Northwind CTO") or one NER calls an organisation.
            titled = all(
                t.lower_ in _GRADES | _DEPARTMENTS or (english_word(t) and t.ent_type_ != "ORG")
                for t in span
            )
            if span and not titled:
                return span
    return None


# Departments a head, VP or director leads beyond the functions every company has ("Head of
# Claims", "Director of Underwriting").
_DEPARTMENTS = FUNCTION_WORDS | {
    "claims", "underwriting", "billing", "payroll", "accounts", "treasury", "logistics",
    "fulfilment", "fulfillment", "onboarding", "services", "service", "experience",
}  # fmt: skip
# Roles that lead a part of an organisation; a chief's ("CTO of Fjord Analytics") "of" is the
# organisation itself.
_PART_LEADERS = frozenset({"head", "vp", "director", "manager", "lead", "svp", "evp", "avp"})


# Words of a title's grade, capitalised with it: no organisation.
_GRADES = frozenset(
    {"senior", "junior", "staff", "principal", "lead", "associate", "assistant", "deputy"}
    | {"acting", "interim", "executive", "general", "regional", "global", "chief", "vice"}
)


def _function(tok: Any, role: Any) -> bool:
    """A department ("VP of Sales", "Marketing"), not a name ending in such a word ("Fjord
    Analytics"): alone, or after a leader of a part with English words before it ("Head of
    Fleet Ops", "VP of Customer Success", "Director of Revenue Operations")."""
    modifiers = [c for c in tok.children if c.dep_ in ("compound", "amod", "det", "poss")]
    if not modifiers:
        return tok.lower_ in FUNCTION_WORDS or (
            tok.lower_ in _DEPARTMENTS and role.lower_ in _PART_LEADERS
        )
    if tok.lower_ not in _DEPARTMENTS or role.lower_ not in _PART_LEADERS:
        return False
    words = [t for m in modifiers for t in m.subtree if t.is_alpha]
    return all(english_word(t) and t.ent_type_ != "PERSON" for t in words)


def _named_workplace(tok: Any, inside: set[int]) -> tuple[Any, ...] | None:
    """The name after an "at"/"with" that `tok` governs ("engineering at Corvid Health")."""
    for child in tok.children:
        if child.dep_ == "prep" and child.lower_ in ("at", "with") and child.i in inside:
            pobj = next((g for g in child.children if g.dep_ == "pobj"), None)
            if pobj is not None and pobj.i in inside:
                span = name_span(pobj)
                if span:
                    return span
    return None
