"""What a coordination states again: a second object, or a second preposition with its own.

"The committee includes Ngozi, Henrik Lund and Farah Siddiqui" is one relation per member;
"works at Kessler University and at Orbis Pharma" is the same relation to each. A change is
not repeated this way: "moved to Lisbon and then to Porto" goes one place after the other.
"""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.arguments import entity_phrase
from services.ingest.extraction.names import is_name
from services.ingest.extraction.placement_changes import END_VERBS, START_VERBS, Relation

__all__ = ["conjoined_objects", "conjoined_places"]

# Verbs of a change, which goes one place after the other, never to both.
_CHANGE_VERBS = START_VERBS | END_VERBS | {"relocate"}


def conjoined_objects(relation: Relation, obj_tok: Any, inside: set[int]) -> list[Relation]:
    """ "The committee includes Ngozi, Henrik Lund and Farah Siddiqui": one relation each."""
    found = []
    for tok in obj_tok.conjuncts:
        if tok.i in inside and tok.i > obj_tok.i and tok.pos_ in ("PROPN", "NOUN"):
            found.append(Relation(relation.subject, relation.predicate, entity_phrase(tok, inside)))
    return found


def conjoined_places(relation: Relation, inside: set[int]) -> list[Relation]:
    """ "works at Kessler University and at Orbis Pharma", "is part-time at Studio Nine and
    also part-time at Fernwood Press": a second preposition (or complement) coordinated with
    the one the object hangs on states the same relation to its own object."""
    obj = relation.object
    pobj = next((t for t in obj.tokens if t.dep_ == "pobj"), None) if obj is not None else None
    if pobj is None or relation.predicate.split()[0] in _CHANGE_VERBS:
        return []  # a change goes one place after the other ("moved to Lisbon and then Porto")
    prep = pobj.head
    others = [c for c in prep.conjuncts if c.pos_ == "ADP" and c.lower_ == prep.lower_]
    # "part-time at A and also part-time at B": the complement is coordinated, not the "at".
    for conj in (c for c in prep.head.conjuncts if c.i > prep.i):
        others += [c for c in conj.children if c.dep_ == "prep" and c.lower_ == prep.lower_]
    found = []
    for other in others:
        target = next((g for g in other.children if g.dep_ == "pobj"), None)
        if target is not None and target.i in inside and target.i > pobj.i and is_name(target):
            found.append(
                Relation(relation.subject, relation.predicate, entity_phrase(target, inside))
            )
    return found
