"""How a clause moves someone or something: to a place, between systems, between teams.

"moved to Denver" and "migrated the payments API to the Dublin region" locate the mover or the
thing moved; "moved the refunds queue from RabbitMQ to Kafka" changes the system it uses; "we
moved Dana to payments" places Dana, not the speaker; a project or team moved between
organisations changes the whole it is part of (see `is_unit`).
"""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.arguments import PLACE_HEADS, Phrase, entity_phrase
from services.ingest.extraction.names import is_name, is_person, name_span
from shared.entities.places import is_known_place
from shared.text.units import PROJECT_HEADS, TEAM_HEADS, could_name_a_person

__all__ = [
    "MOTION_VERBS",
    "SEATS",
    "SELF_MIGRATING",
    "TRANSPORT_VERBS",
    "is_place",
    "is_unit",
    "migrated",
    "moved_to_place",
    "object_of",
    "placed_person",
]

# Verbs of moving between places: the destination is the relation, the origin its end.
MOTION_VERBS = frozenset({"move", "transfer", "switch", "relocate", "shift", "go", "come"})
_PLACE_LABELS = frozenset({"GPE", "LOC"})

# Heads that with a name before them are a site someone or something is at.
_SITE_HEADS = PLACE_HEADS | {"region", "zone", "datacenter", "hub", "building", "headquarters"}
# Verbs that move a thing they name to a place ("migrated the payments API to the Dublin
# region"): the thing is then located there, whoever moved it.
TRANSPORT_VERBS = MOTION_VERBS | {"migrate", "deploy", "relocate"}
# The prepositions of a migration's two ends: "from/off MySQL", "to/onto CockroachDB".
_MIGRATION_SIDES = {"to": "to", "onto": "to", "from": "from", "off": "from"}
SELF_MIGRATING = frozenset({"switch", "migrate"})
# What an organization moves when it moves itself.
SEATS = frozenset({"headquarters", "headquarter", "hq", "office", "offices", "base", "operations"})


def object_of(prep: Any) -> Any | None:
    """The object of a preposition ("Kafka" of "to Kafka")."""
    return next((g for g in prep.children if g.dep_ == "pobj"), None)


def is_place(phrase: Phrase) -> bool:
    """A place, not an organization: a well-known place name NER does not call a person
    (the small model calls many companies places and some cities organizations), or a name
    NER calls a location proper."""
    words = [t for t in phrase.tokens if not t.is_punct and t.lower_ != "the"]
    if len(words) >= 2 and words[-1].lemma_.lower() in _SITE_HEADS:
        # "the Birmingham office", "the Dublin region": a named site is a place of its own.
        return any(t.ent_type_ in _PLACE_LABELS or is_name(t) for t in words[:-1])
    if not words:
        return False
    text = "".join(t.text_with_ws for t in words).strip()
    if is_known_place(text):
        # The small model calls "Oslo" an organization in "moved to Oslo" and "Glasgow" a
        # person in "Jess moved to Glasgow": a large city's whole name is the city.
        return True
    if any(t.ent_type_ == "PERSON" for t in words):
        return False
    return all(t.ent_type_ == "LOC" for t in words)


def moved_to_place(
    head: Any, obj_tok: Any, inside: set[int], skip: set[int]
) -> tuple[Phrase, Any] | None:
    """ "We migrated the payments API to the Dublin region": (the thing moved, the head of the
    place it moved to), when the verb transports its object to a place."""
    if head.lemma_.lower() not in TRANSPORT_VERBS or obj_tok.lemma_.lower() in SEATS:
        return None
    # The small parser hangs "to the Ohio region" on the verb or on the thing moved.
    preps = [
        c
        for t in (head, obj_tok)
        for c in t.children
        if c.dep_ == "prep" and c.lower_ in ("to", "into")
    ]
    for prep in preps:
        pobj = object_of(prep)
        if pobj is None or pobj.i in skip or pobj.i not in inside:
            continue
        if is_place(entity_phrase(pobj, inside)):
            return entity_phrase(obj_tok, inside, anchor_possessor=True), pobj
    return None


def is_unit(phrase: Phrase | None) -> bool:
    """A project or team ("the Open Tide project", "the payments team"), not a person."""
    if phrase is None or not phrase.tokens:
        return False
    last = max(phrase.tokens, key=lambda t: t.i)
    return last.pos_ == "NOUN" and last.lemma_.lower() in TEAM_HEADS | PROJECT_HEADS


def migrated(
    head: Any, moved: Any, inside: set[int], skip: set[int]
) -> tuple[Phrase, Any, Any | None] | None:
    """ "We moved the refunds queue from RabbitMQ to Kafka", "The billing service was moved
    to AWS", "Grayhaven migrated its claims platform to Guidewire": (the thing moved, the
    system it moved to, the one it left), when a transport verb takes a thing, not a person,
    to a named system rather than a place. `moved` is the verb's object, or its subject in
    the passive."""
    lemma = head.lemma_.lower()
    # "The Ledger service switched from PostgreSQL to CockroachDB", "Acme migrated to Azure":
    # a thing (not a person, see below) that switches or migrates itself moves between systems.
    itself = (
        moved.dep_ == "nsubj"
        and lemma in SELF_MIGRATING
        and not any(c.dep_ == "dobj" for c in head.children)
    )
    if lemma not in TRANSPORT_VERBS or (moved.dep_ not in ("dobj", "nsubjpass") and not itself):
        return None
    if moved.pos_ == "PRON" or moved.lemma_.lower() in SEATS:
        return None
    if moved.ent_type_ == "PERSON" and _reads_as_person(moved):
        return None  # a person moves teams; "Platform Engineering", NER's person, is a unit
    ends: dict[str, Any] = {}
    # The small parser hangs "to Kafka" under "from RabbitMQ", "from X" under the object, or
    # the target beside an empty "to" ("from MySQL to CockroachDB": both objects of "from").
    preps = [c for t in (head, moved) for c in t.children if c.dep_ == "prep"]
    while preps:
        prep = preps.pop(0)
        side = _MIGRATION_SIDES.get(prep.lower_)
        pobj = object_of(prep)
        if pobj is None and prep.i + 1 < len(prep.doc) and prep.nbor(1).head in (prep, prep.head):
            pobj = prep.nbor(1) if prep.nbor(1).pos_ in ("NOUN", "PROPN") else None
        preps += [c for t in (prep, pobj) if t is not None for c in t.children if c.dep_ == "prep"]
        if side is None or side in ends or pobj is None:
            continue
        if pobj.i in skip or pobj.i not in inside or not is_name(pobj):
            continue
        if is_place(entity_phrase(pobj, inside)) or pobj.lemma_.lower() in TEAM_HEADS:
            return None  # a relocation, or a move between teams
        ends[side] = pobj
    if "to" not in ends:
        return None
    return entity_phrase(moved, inside, anchor_possessor=True), ends["to"], ends.get("from")


def _reads_as_person(tok: Any) -> bool:
    """Whether the name `tok` heads could be a person's ("Platform Engineering" could not)."""
    return could_name_a_person(" ".join(t.text for t in name_span(tok) or (tok,)))


def placed_person(head: Any, obj_tok: Any, inside: set[int], skip: set[int]) -> Any | None:
    """ "We moved Dana to the payments team", "They transferred Omar to Globex": the head of
    where the person the verb moves now works, when its object is a person."""
    if head.lemma_.lower() not in MOTION_VERBS or obj_tok.dep_ != "dobj":
        return None
    if not is_person(obj_tok) or not _reads_as_person(obj_tok):
        return None
    for prep in (c for c in head.children if c.dep_ == "prep" and c.lower_ in ("to", "onto")):
        pobj = object_of(prep)
        if pobj is not None and pobj.i in inside and pobj.i not in skip:
            return pobj
    return None
