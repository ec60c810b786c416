"""The fields of a claim read off its clause beside the frame: who holds an attributed view,
the further relations the frame states, and the claim's polarity."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.ingest.extraction.argument_names import render
from services.ingest.extraction.arguments import Phrase, entity_like, entity_phrase
from services.ingest.extraction.base import ExtractedRelation, Polarity
from services.ingest.extraction.clauses import Clause
from services.ingest.extraction.coref import Rewriter
from services.ingest.extraction.frames import Frame
from services.ingest.extraction.names import without_possessive

__all__ = ["POSSESSIVE", "extra_relations", "holder_name", "holder_phrase", "polarity"]

POSSESSIVE = frozenset({"'s", "’s", "'"})
_FIRST_PERSON_HOLDERS = frozenset({"i", "we", "my", "our", "me", "us"})


def extra_relations(
    frame: Frame, rewriter: Rewriter, main: tuple[str | None, str | None]
) -> tuple[ExtractedRelation, ...]:
    """The frame's further relations, less any between the main relation's own two parties
    ("resigned as head of sales at Pinecrest": the leaving already relates him to Pinecrest;
    a role's "works at" dated to the day he left would say he worked there that day only)."""
    found = []
    for rel in frame.extras:
        if not entity_like(rel.object):
            continue
        subject, obj = render(rel.subject, rewriter), render(rel.object, rewriter)
        if rel.subject == frame.main.subject and main[0]:
            subject = main[0]  # the main subject as named ("We own X and Y" on a team page)
        if rel.object is not None and [t.tag_ for t in rel.object.tokens] == ["PRP$"]:
            # "Their CTO": the organisation "their" means, or nothing when nothing was named.
            resolved = obj is not None and obj.lower() != rel.object.tokens[0].lower_
            obj = without_possessive(obj) if obj and resolved else None
        if subject and obj and subject != obj and (subject, obj) != main:
            found.append(ExtractedRelation(subject, rel.predicate, obj, rel.dated))
    return tuple(dict.fromkeys(found))


def holder_phrase(tokens: Sequence[Any], inside: set[int]) -> Phrase:
    """The holder's name out of its whole subtree ("Dana Whitfield, the CTO of Northwind"),
    with the roles the subtree gives them."""
    words = [t for t in tokens if not t.is_punct]
    if len(words) == 1:
        return Phrase(tuple(words))
    head = next((t for t in tokens if t.head not in tokens or t.head == t), None)
    if head is None:
        return Phrase(tuple(tokens))
    phrase = entity_phrase(head, {t.i for t in tokens} | inside)
    return phrase if phrase.tokens else Phrase(tuple(tokens))


def holder_name(tokens: Sequence[Any], rewriter: Rewriter, speaker: str | None) -> str:
    words = [t for t in tokens if not t.is_punct]
    if not words or (len(words) == 1 and words[0].lower_ in _FIRST_PERSON_HOLDERS):
        return speaker or "the author"  # "I think", "in my view", "IMO", "to me"
    return rewriter.holder_name(tokens) or "the author"


def polarity(clause: Clause, content: Any, attribution: Any) -> Polarity:
    heads = [content] + ([attribution.frame_verb] if attribution and attribution.frame_verb else [])
    for h in heads:
        for c in h.children:
            if c.dep_ == "neg" or c.lower_ in ("never", "neither", "nor"):
                return "negative"
            if c.lower_ == "longer" and any(g.lower_ == "no" for g in c.children):
                return "negative"
    words = {t.lower_ for t in clause.tokens}
    return "negative" if {"no", "longer"} <= words else "positive"
