"""The further placements a clause states about a job or team change, beside its main relation.

A change has two sides, and a sentence often names one in a phrase of the other's verb:
"was hired by Umbrella from Hooli" and "started at Stripe after leaving Square" also end the
old placement; "is leaving Fable Games to join Quarry AI", "left Copperleaf for Brightline" and
"quit Redwood to start at Halcyon" also start the new one; "spent five years at Delta before
joining Orbit" ends the old one where the new one starts; "took over the team from Omar" ends
Omar's. Each side is a `Relation` with the placement verb the normalizer maps ("join",
"leave"); the clause's date is the change's date for both sides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.ingest.extraction.arguments import Phrase, entity_phrase, is_name
from services.ingest.extraction.moves import MOTION_VERBS, is_place, object_of

__all__ = [
    "END_VERBS",
    "START_VERBS",
    "Relation",
    "ended_before_joining",
    "handover",
    "left_behind",
    "subordinate_changes",
]

# Verbs that start a placement; an origin ("joined Globex from Initech") ends the old one.
START_VERBS = frozenset({"join", "start", "hire", "rejoin", "return", "begin", "recruit"})
START_VERBS |= MOTION_VERBS
# Verbs that end a placement ("after leaving Square", "having quit Hooli").
END_VERBS = frozenset({"leave", "quit", "depart", "exit", "resign"})
# Verbs a purpose or "before" clause starts a placement with ("to join", "before starting at").
_JOINING_VERBS = frozenset(
    {"join", "start", "rejoin", "begin", "return", "move", "switch", "transfer"}
)
# Verbs of holding a placement for a time: "spent five years at Delta before joining Orbit".
_HOLDING_VERBS = frozenset({"work", "spend", "be", "serve", "stay", "remain", "last"})
_BEFORE = frozenset({"before", "prior"})


@dataclass(frozen=True)
class Relation:
    """One (subject, predicate, object) a clause states; phrases are token tuples."""

    subject: Phrase | None
    predicate: str
    object: Phrase | None


def left_behind(
    head: Any, subject: Phrase | None, inside: set[int], skip: set[int]
) -> list[Relation]:
    """ "hired by Umbrella from Hooli", "moved from search to payments": the place left."""
    if head.lemma_.lower() not in START_VERBS:
        return []
    found = []
    for prep in (c for c in head.children if c.dep_ == "prep" and c.lower_ == "from"):
        pobj = object_of(prep)
        if pobj is not None and pobj.i in inside and pobj.i not in skip:
            left = entity_phrase(pobj, inside)
            if not is_place(left):  # "joins from Cape Town" leaves no employer
                found.append(Relation(subject, "leave", left))
    return found


def _subordinate_verbs(head: Any, inside: set[int]) -> list[tuple[Any, Any]]:
    """(the word that subordinates it, the verb) of each verb phrase without a subject of its
    own hung on `head`: "after leaving Square", "to join Quarry AI", "before joining Orbit"."""
    found = []
    children = list(head.children)
    # "Prior to joining Fernway": the parser hangs the phrase on "prior", an adverb.
    for prior in (c for c in head.children if c.dep_ == "advmod" and c.lower_ == "prior"):
        children += [c for c in prior.children if c.dep_ == "prep" and c.lower_ == "to"]
    for child in children:
        if child.dep_ not in ("prep", "advcl", "xcomp") or child.i not in inside:
            continue
        verb = child if child.pos_ == "VERB" else None
        if verb is None:
            verb = next((g for g in child.children if g.dep_ == "pcomp" and g.pos_ == "VERB"), None)
        if verb is None:
            continue
        subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subject is not None and subject.tag_ != "PRP":
            continue  # a clause about someone else ("before Omar joined"); "before she joined"
        # The word that subordinates it: the preposition, or a clause's marker ("before").
        marker = next((c for c in verb.children if c.dep_ == "mark"), child)
        found.append((marker, verb))
    return found


def _placed_at(verb: Any, inside: set[int], skip: set[int]) -> tuple[str, Any] | None:
    """What a placement verb names, and the predicate it takes: "join X", "start at X"."""
    obj = next(
        (c for c in verb.children if c.dep_ == "dobj" and c.i in inside and c.i not in skip), None
    )
    if obj is not None:
        return verb.lemma_.lower(), obj
    for prep in (c for c in verb.children if c.dep_ == "prep"):
        pobj = object_of(prep)
        if pobj is not None and pobj.i in inside and pobj.i not in skip:
            return f"{verb.lemma_.lower()} {prep.lower_}", pobj
    return None


def _before(word: Any) -> bool:
    """ "before joining", "prior to joining" (the parser hangs "to" on "prior")."""
    return word.lower_ in _BEFORE or (word.lower_ == "to" and word.head.lower_ == "prior")


def subordinate_changes(
    head: Any, subject: Phrase | None, inside: set[int], skip: set[int]
) -> list[Relation]:
    """The other side of a change named in a verb phrase of the clause's verb: an end ("after
    leaving Square"), or a start after an ending verb or "before" ("is leaving Fable to join
    Quarry", "before joining Orbit"), or after "left A for B"."""
    lemma = head.lemma_.lower()
    found = []
    for word, verb in _subordinate_verbs(head, inside):
        verb_lemma = verb.lemma_.lower()
        joining = verb_lemma in _JOINING_VERBS and (lemma in END_VERBS or _before(word))
        if verb_lemma not in END_VERBS and not joining:
            continue
        placed = _placed_at(verb, inside, skip)
        if placed is None:
            continue
        predicate, obj = placed
        if not is_name(obj):
            continue  # "left to spend time with family"
        found.append(Relation(subject, "leave" if verb_lemma in END_VERBS else predicate,
                              entity_phrase(obj, inside)))  # fmt: skip
    if lemma in END_VERBS and any(c.dep_ == "dobj" for c in head.children):
        for prep in (c for c in head.children if c.dep_ == "prep" and c.lower_ == "for"):
            pobj = object_of(prep)
            if pobj is not None and pobj.i in inside and pobj.i not in skip and is_name(pobj):
                found.append(Relation(subject, "join", entity_phrase(pobj, inside)))
    return found


def ended_before_joining(head: Any, inside: set[int], skip: set[int]) -> bool:
    """ "Kai spent five years at Delta before joining Orbit in 2023": the placement the
    clause's verb holds ended when the one its "before" phrase starts began."""
    if head.lemma_.lower() not in _HOLDING_VERBS:
        return False
    return any(
        _before(word)
        and verb.lemma_.lower() in _JOINING_VERBS
        and _placed_at(verb, inside, skip) is not None
        for word, verb in _subordinate_verbs(head, inside)
    )


# A handover names both sides: "handed the team over to Femi" (Femi takes it over), "took
# over the team from Omar" (Omar hands it over).
_HANDOVERS = {"hand over": ("to", "take over"), "hand off": ("to", "take over")}
_HANDOVERS |= {"take over": ("from", "hand over"), "take charge of": ("from", "hand over")}


def handover(
    predicate: str, obj: Phrase | None, head: Any, inside: set[int], skip: set[int]
) -> list[Relation]:
    """The other side of a handover: "took over the Growth team from Sara" (Sara hands it over)."""
    counterpart = _HANDOVERS.get(predicate)
    if counterpart is None or obj is None:
        return []
    preposition, other_side = counterpart
    for prep in head.children:
        if prep.dep_ in ("prep", "dative") and prep.lower_ == preposition and prep.i in inside:
            pobj = object_of(prep)
            if pobj is not None and pobj.i in inside and pobj.i not in skip and is_name(pobj):
                return [Relation(entity_phrase(pobj, inside), other_side, obj)]
    return []
