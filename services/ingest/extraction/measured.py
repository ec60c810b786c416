"""The thing an attribute noun is a value of: "the Exports API rate limit" is the Exports
API's, "Support headcount" and "headcount in support" the support team's (`arguments` anchors
a claim's subject on it, so every phrasing of one attribute shares a subject)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from services.ingest.extraction.names import is_name

__all__ = ["ATTRIBUTE_HEADS", "measured_thing", "names_a_unit"]

# Nouns naming a quantity or setting of the thing compounded before them ("the Exports API
# rate limit", "the Growth plan price"): a value of that thing, which the subject anchors on,
# so "The Exports API allows 60 requests" and "the Exports API limit is 30" share an anchor.
ATTRIBUTE_HEADS = frozenset(
    {
        "limit", "price", "cost", "fee", "budget", "quota", "headcount", "capacity", "rate",
        "threshold", "cap", "allowance", "pricing", "sla", "latency", "timeout", "retention",
        "status", "health", "eta",
    }
)  # fmt: skip
# Attributes of an organisational unit, which writers name by its function in a plain noun
# ("the support headcount", "headcount in support"): the unit's, so "The support team had 14
# people" and "Support headcount grew to 19" are one attribute of one team. ("The project
# budget", "the travel budget" name kinds of spending, not units.)
_UNIT_ATTRIBUTES = frozenset({"headcount"})
_NOUNS = ("NOUN", "PROPN")


def _capitalised_modifier(tok: Any) -> bool:
    """A capitalised adjective inside a sentence is part of a name ("the Pro plan")."""
    return bool(tok.dep_ == "amod" and tok.text[:1].isupper() and tok.i != tok.sent.start)


def _acronym(tok: Any) -> bool:
    """An all-capitals word the tagger took for a common noun: "Exports API limit lowered to
    200", a headline without its article, tags the whole phrase as nouns."""
    return bool(len(tok.text) >= 2 and tok.text.isalpha() and tok.text.isupper())


def measured_thing(
    head: Any, inside: set[int], complement: Callable[[Any, set[int]], tuple[Any, ...] | None]
) -> tuple[Any, ...] | None:
    """The named thing an attribute noun is a value of: the compounds before it, less the
    attribute words ("rate" of "rate limit"), when one of them is a name; without such
    compounds, the one `complement` finds after the noun ("the price of the Pro plan")."""
    words = [
        t
        for t in head.subtree
        if t.i < head.i and t.i in inside and t.lemma_.lower() not in ATTRIBUTE_HEADS
        and (t.dep_ == "compound" or _capitalised_modifier(t))
    ]  # fmt: skip
    # A compound's own modifiers name it too ("the public API limit": the public API's).
    words = sorted(
        {*words, *(m for t in words for m in t.children if m.dep_ == "amod" and m.i in inside)},
        key=lambda t: t.i,
    )
    if not words:
        return complement(head, inside)
    unit = head.lemma_.lower() in _UNIT_ATTRIBUTES and all(t.pos_ in _NOUNS for t in words)
    if not unit and not any(is_name(t) or _capitalised_modifier(t) or _acronym(t) for t in words):
        return None
    if any(b.i - a.i != 1 for a, b in itertools.pairwise(words)):
        return None  # not one run of words
    return tuple(words)


def names_a_unit(head: Any, prep: Any, pobj: Any) -> bool:
    """A bare function noun after a unit's attribute ("headcount in support", "the headcount
    for engineering") names the unit."""
    return (
        head.lemma_.lower() in _UNIT_ATTRIBUTES
        and prep.lower_ in ("in", "for")
        and pobj.pos_ == "NOUN"
        and not any(c.dep_ in ("det", "poss", "nummod") for c in pobj.children)
    )
