"""Relations a clause says held once and hold no more: "used to work for Globex", "was
previously at Stark", "formerly led the search team", "a former Umbrella engineer".

The extractor marks such a relation's verb phrase as "used to" would ("use to work for"); the
normalizer reads the mark and, when the claim states no window of its own, ends the relation
by the time it was said, as an undated "left Globex" does. A dated stint ("previously worked
at Globex from 2019 to 2022") keeps its stated window.
"""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.clauses import anaphoric_time

__all__ = ["FORMERLY", "formerly", "given_up", "held_before"]

FORMERLY = "use to"
_FORMER_ADVERBS = frozenset({"previously", "formerly"})
# "a former Umbrella engineer", "Northwind's erstwhile CTO": a role given up.
_FORMER_MODIFIERS = frozenset({"former", "ex", "erstwhile", "onetime", "one-time"})


def held_before(content: Any, head: Any) -> bool:
    """Whether the clause's verb says its relation held before: "used to" (the parser makes
    "use" the content verb and the other its complement), "previously"/"formerly", or a past
    tense "before that"."""
    if content.lemma_.lower() == "use" and head is not content:
        return True
    for verb in {content, head}:
        if any(c.dep_ == "advmod" and c.lower_ in _FORMER_ADVERBS for c in verb.children):
            return True
        # "before that I was at DHL": held before what the text just said
        opener = anaphoric_time(verb)
        if opener is not None and opener.lower_ == "before" and verb.tag_ in ("VBD", "VBN"):
            return True
    return False


def given_up(role: Any) -> bool:
    """ "a former Umbrella engineer", "previously a data scientist at Oakridge Labs": the role
    noun is modified as one held before."""
    return any(
        (c.dep_ == "amod" and c.lower_ in _FORMER_MODIFIERS)
        or (c.dep_ == "advmod" and c.lower_ in _FORMER_ADVERBS)
        for c in role.children
    )


def formerly(predicate: str) -> str:
    """`predicate` marked as held before (once)."""
    return predicate if predicate.startswith(FORMERLY) else f"{FORMERLY} {predicate}"
