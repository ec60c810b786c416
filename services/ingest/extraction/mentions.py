"""The names a passage and its context mention, for pronouns and short forms to refer to."""

from __future__ import annotations

import re
from typing import Any

from services.ingest.extraction.arguments import NAME_LABELS, entity_phrase
from services.ingest.extraction.base import ExtractionInput
from services.ingest.extraction.coref import Mention, context_mentions
from shared.entities.nicknames import NICKNAMES

__all__ = ["PERSON_LABEL", "entity_label", "full_names", "mentions", "subject_things"]

PERSON_LABEL = "PERSON"
_CAPITALISED_RE = re.compile(r"\b[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*")
_FULL_NAME_RE = re.compile(r"\b([A-Z][a-z][\w'’-]*(?:\s+[A-Z][a-z][\w'’-]*)+)")
# Capitalised words that open a sentence, not a name ("The Lisbon office", "Update Dana").
_NOT_NAME_STARTS = frozenset(
    {
        "The", "A", "An", "This", "That", "These", "Those", "Our", "Their", "His", "Her", "My",
        "Your", "We", "They", "It", "In", "On", "At", "For", "And", "But", "If", "When", "Then",
        "So", "As", "By", "To", "Of", "From", "With", "Update", "Correction", "Note",
    }
)  # fmt: skip


def entity_label(ent_label: str) -> str | None:
    """PERSON for people, ORG for any other named thing, None for values."""
    if ent_label == PERSON_LABEL:
        return PERSON_LABEL
    return "ORG" if ent_label in NAME_LABELS else None


def mentions(inp: ExtractionInput, doc: Any, known: dict[str, str]) -> list[Mention]:
    found = []
    if inp.context:
        tail_names = {}
        for m in _CAPITALISED_RE.finditer(inp.context[-1500:]):
            run = m.group(0)
            for cand in (run, *run.split()):
                if cand in known:
                    tail_names[cand] = known[cand]
        found.extend(context_mentions(inp.context, tail_names))
    for ent in doc.ents:
        label = entity_label(ent.label_)
        if label:
            start = inp.base_offset + ent.start_char
            found.append(Mention(ent.text, label, ent.start_char, start, start + len(ent.text)))
    found.extend(subject_things(inp, doc, {m.position for m in found}))
    return found


def subject_things(inp: ExtractionInput, doc: Any, taken: set[int]) -> list[Mention]:
    """Things the subjects of this passage name ("Orion shipped in January", "the new routing
    engine shipped"): what a later "it" most likely means. People and plurals are not "it";
    nor is a lone given name, which is a person NER missed."""
    found = []
    for sent in doc.sents:
        for tok in sent:
            if tok.dep_ not in ("nsubj", "nsubjpass") or tok.tag_ not in ("NN", "NNP"):
                continue
            if tok.ent_type_ == PERSON_LABEL or tok.lower_ in NICKNAMES:
                continue
            phrase = entity_phrase(tok, {t.i for t in sent})
            words = sorted(phrase.tokens, key=lambda t: t.i)
            if not words or words[0].idx in taken:
                continue
            text = "".join(t.text_with_ws for t in words).strip()
            text = re.sub(r"^(?:[Tt]he|[Aa]n?|[Oo]ur|[Tt]his)\s+", "the ", text)
            start = inp.base_offset + words[0].idx
            found.append(Mention(text, "ORG", words[0].idx, start, start + len(text)))
    return found


def full_names(inp: ExtractionInput, doc: Any, known: dict[str, str]) -> list[str]:
    """Multi-word names the document used before (its context) or in this passage."""
    names = [n for n in known if " " in n and inp.context and n in inp.context]
    if inp.context:
        for m in _FULL_NAME_RE.finditer(inp.context[-2000:]):
            words = m.group(1).split()
            while words and words[0] in _NOT_NAME_STARTS:
                words.pop(0)
            if len(words) >= 2:
                names.append(" ".join(words))
    for ent in doc.ents:
        if entity_label(ent.label_) and len(ent) > 1:
            names.append(ent.text)
    return names
