"""What a copula states: "X is part of Y", "X is the CTO of Y", "X is on the Y team", "Nia's
start date at Meadowlark was 7 April", and whether a phrase names a person. `frames.read_frame`
reads a "be"/"become" clause with these."""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.arguments import (
    Phrase,
    entity_phrase,
    holds_position,
    position_workplace,
    role_predicate,
)
from services.ingest.extraction.descriptions import RELATIONAL_NOUNS, body_of
from services.ingest.extraction.moves import is_place, is_unit, object_of
from shared.entities.given_names import is_given_name

__all__ = ["copular", "milestone_day", "personal", "personal_member"]

# The day a placement starts or ends, by the word before "date"/"day" (`milestone_day`).
_MILESTONES = {"start": "join", "first": "join", "starting": "join", "last": "leave"}
_MILESTONES |= {"end": "leave", "leaving": "leave", "final": "leave"}


def milestone_day(subj_tok: Any, inside: set[int]) -> tuple[Phrase, str, Phrase | None] | None:
    """ "Nia's start date at Meadowlark was 7 April", "Omar's last day at Initech is 30 June":
    a placement's start or end, dated by what the copula says the day is."""
    if subj_tok is None or subj_tok.lemma_.lower() not in ("date", "day"):
        return None
    kind = next(
        (c.lower_ for c in subj_tok.children if c.dep_ in ("compound", "amod")),
        None,
    )
    owner = next((c for c in subj_tok.children if c.dep_ == "poss"), None)
    prep = next(
        (c for c in subj_tok.children if c.dep_ == "prep" and c.lower_ in ("at", "with", "on")),
        None,
    )
    place = object_of(prep) if prep is not None else None
    if kind not in _MILESTONES or owner is None:
        return None
    if place is None or place.i not in inside:
        # "His last day is Friday": the owner's milestone, where is not said.
        return entity_phrase(owner, inside), _MILESTONES[kind], None
    return entity_phrase(owner, inside), _MILESTONES[kind], entity_phrase(place, inside)


def _work_pattern(attr: Any) -> bool:
    """ "part-time", "full-time": how much someone works, said where a role would stand."""
    return attr.lemma_.lower() == "time" and any(
        c.lower_ in ("part", "full") for c in attr.children if c.dep_ in ("compound", "amod")
    )


def copular(head: Any, inside: set[int], skip: set[int]) -> tuple[str, Phrase | None] | None:
    """ "X is part of Y", "X is the CTO of Y", "X is on the Y team": predicate and object."""
    attr = next(
        (c for c in head.children if c.dep_ == "attr" and c.i in inside and c.i not in skip), None
    )
    if attr is not None and _work_pattern(attr):
        attr = None  # "is part-time at Studio Nine": where, not what, the subject is
    if attr is not None:
        prep = next((c for c in attr.children if c.dep_ == "prep" and c.i in inside), None)
        pobj = object_of(prep) if prep is not None else None
        relational = attr.lemma_.lower() in RELATIONAL_NOUNS
        if relational and prep is not None and prep.lower_ == "of" and pobj is not None:
            return f"{attr.lemma_.lower()} of", body_of(pobj, inside)
        workplace = position_workplace(attr, head, inside)
        if workplace is not None:
            return role_predicate(attr.lower_, "".join(t.text_with_ws for t in workplace)), Phrase(
                workplace
            )
        phrase = entity_phrase(attr, inside)
        if holds_position(attr, inside) and attr not in phrase.tokens:
            # A role held in an organization: "the CTO of Northwind" names Northwind.
            target_text = "".join(t.text_with_ws for t in phrase.tokens).strip()
            return role_predicate(attr.lower_, target_text), phrase
        return "be", phrase
    # A phrase fronted before the copula is an adverbial ("Before that I was at Roche"): the
    # complement follows it.
    preps = [c for c in head.children if c.dep_ == "prep" and c.i in inside]
    for prep in sorted(preps, key=lambda p: p.i < head.i):
        pobj = object_of(prep)
        if pobj is not None and pobj.i not in skip:
            phrase = entity_phrase(pobj, inside)
            if prep.lower_ in ("at", "in") and is_place(phrase):
                return "be based in", phrase  # "is in Lisbon": where, not who with
            return f"be {prep.lower_}", phrase
    return None


def personal_member(subject: Phrase | None, whole: Phrase | None) -> bool:
    """A person (not a project NER took for one) said to be part of a team."""
    return subject is not None and personal(subject) and not is_unit(subject) and is_unit(whole)


def personal(phrase: Phrase) -> bool:
    """A phrase naming a person: a personal pronoun, a name NER calls a person, or a proper
    name opening with a given name NER missed ("Femi Ade")."""
    tokens = phrase.tokens
    if any(t.lower_ in ("i", "he", "she", "we") or t.ent_type_ == "PERSON" for t in tokens):
        return True
    return (
        len(tokens) >= 2
        and all(t.pos_ == "PROPN" and not t.ent_type_ for t in tokens)
        and is_given_name(tokens[0].lower_)
    )
