"""Repairs of misparses of a role phrase with its holder's name in apposition.

A sentence that opens with a position and then names who holds it ("The CTO of Northwind, Dana
Whitfield, said …", "Our head of design at Lumen, Ana Ruiz, left in May") is parsed wrongly by
the small English model in two ways, each recognised from the tree's shape alone:

- **The name hung on the organisation.** The apposition is attached to the last object inside
  the role phrase ("Northwind, Dana Whitfield"), so the sentence's subject became the company.
  A person can be no apposition of an organisation or place: a person-name apposition under an
  object of a preposition of a role word ("CTO", "head", "officer") belongs to the role word.
- **The verb read as a participle of the subject.** With no other verb the subject noun becomes
  the sentence's root and the verb after the apposition a reduced relative clause under it
  ("head … left in May", "Ben Ortiz, head of engineering at Lattice, left in May"). A noun
  root whose apposition is closed by a comma right before a subjectless participle modifier
  is that verb's subject, when one of the two is a person's name.
"""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.names import ROLE_WORDS

__all__ = ["repair_appositive_holders"]

_NOT_A_PERSON = frozenset({"ORG", "GPE", "FAC", "LOC", "NORP", "PRODUCT"})


def repair_appositive_holders(sent: Any) -> None:
    """Fix both misparses of one sentence in place."""
    _name_hung_on_organisation(sent)
    _verb_read_as_participle(sent)


def _is_role_word(tok: Any) -> bool:
    return tok.lower_ in ROLE_WORDS or tok.lemma_.lower() in ROLE_WORDS


def _name_hung_on_organisation(sent: Any) -> None:
    doc = sent.doc
    for tok in sent:
        if tok.dep_ != "appos" or tok.ent_type_ != "PERSON" or tok.head.dep_ != "pobj":
            continue
        owner = tok.head
        if owner.ent_type_ == "PERSON" or not (
            owner.ent_type_ in _NOT_A_PERSON or owner.pos_ == "PROPN"
        ):
            continue
        if tok.left_edge.i == 0 or doc[tok.left_edge.i - 1].text != ",":
            continue
        # Up through prepositions and their objects ("head of design at Lumen") to a role word.
        role = owner.head.head
        while role.dep_ == "pobj" and not _is_role_word(role):
            role = role.head.head
        if role.pos_ not in ("NOUN", "PROPN") or not _is_role_word(role):
            continue
        tok.head = role


def _verb_read_as_participle(sent: Any) -> None:
    root = sent.root
    if root.pos_ not in ("NOUN", "PROPN"):
        return
    doc = sent.doc
    for verb in root.children:
        if verb.dep_ != "acl" or verb.pos_ != "VERB" or verb.tag_ not in ("VBD", "VBN"):
            continue
        if any(c.dep_ in ("nsubj", "nsubjpass") for c in verb.children):
            continue
        comma = doc[verb.i - 1] if verb.i > 0 else None
        if comma is None or comma.text != "," or comma.head.i != root.i:
            continue
        # The holder in apposition to the role ("Our head of design at Lumen, Ana Ruiz,"), or
        # the role in apposition to the holder ("Ben Ortiz, head of engineering at Lattice,").
        holder_root = root.pos_ == "PROPN" and root.ent_type_ not in _NOT_A_PERSON
        named = any(
            c.dep_ == "appos"
            and (holder_root or (c.pos_ == "PROPN" and c.ent_type_ not in _NOT_A_PERSON))
            and c.right_edge.i + 1 == comma.i
            for c in root.children
        )
        if not named:
            continue
        after = [c for c in root.children if c.i > verb.i]
        verb.head, verb.dep_ = verb, "ROOT"
        root.head, root.dep_ = verb, "nsubj"
        comma.head = root
        for child in after:
            child.head = verb
        return
