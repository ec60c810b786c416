"""What a coordination states again: a second object, or a second preposition with its own.

"The committee includes Ngozi, Henrik Lund and Farah Siddiqui" is one relation per member;
"works at Kessler University and at Orbis Pharma" is the same relation to each. A change is
not repeated this way: "moved to Lisbon and then to Porto" goes one place after the other.
An alternative the clause rejects ("runs on OpenSearch instead of Solr", "uses Stripe rather
than Adyen") is the same relation to it, ended: the predicate phrase gains "instead of", which
the normalizer reads as the relation's end.
"""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.arguments import entity_phrase
from services.ingest.extraction.names import is_name
from services.ingest.extraction.placement_changes import END_VERBS, START_VERBS, Relation

__all__ = [
    "INSTEAD_OF",
    "conjoined_objects",
    "conjoined_places",
    "conjoined_subjects",
    "replaced_alternatives",
]

INSTEAD_OF = "instead of"
_ALTERNATIVE_MARKS = {"of": "instead", "than": "rather"}

# Verbs of a change, which goes one place after the other, never to both.
_CHANGE_VERBS = START_VERBS | END_VERBS | {"relocate"}


def conjoined_objects(relation: Relation, obj_tok: Any, inside: set[int]) -> list[Relation]:
    """ "The committee includes Ngozi, Henrik Lund and Farah Siddiqui": one relation each."""
    found = []
    for tok in obj_tok.conjuncts:
        if tok.i in inside and tok.i > obj_tok.i and tok.pos_ in ("PROPN", "NOUN"):
            found.append(Relation(relation.subject, relation.predicate, entity_phrase(tok, inside)))
    return found


def conjoined_subjects(
    relation: Relation, subj_tok: Any | None, inside: set[int]
) -> list[Relation]:
    """ "Dana Kim and Omar Said joined Fenwick in May": the same relation for each named
    subject (the claim's own subject is the first)."""
    if subj_tok is None or relation.object is None:
        return []
    return [
        Relation(entity_phrase(tok, inside), relation.predicate, relation.object)
        for tok in subj_tok.conjuncts
        if tok.i in inside and tok.i > subj_tok.i and is_name(tok)
    ]


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


def replaced_alternatives(relation: Relation, clause_tokens: set[int], doc: Any) -> list[Relation]:
    """ "The search service now runs on OpenSearch instead of Solr": Solr is no longer used."""
    if relation.subject is None or relation.object is None:
        return []
    found = []
    for i in sorted(clause_tokens):
        tok = doc[i]
        mark = _ALTERNATIVE_MARKS.get(tok.lower_)
        if mark is None or not any(c.lower_ == mark for c in tok.children):
            continue
        pobj = next((c for c in tok.children if c.dep_ == "pobj" and c.i in clause_tokens), None)
        if pobj is not None and is_name(pobj):
            left = entity_phrase(pobj, clause_tokens)
            found.append(Relation(relation.subject, f"{relation.predicate} {INSTEAD_OF}", left))
    return found
