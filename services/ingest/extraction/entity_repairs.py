"""Repairs of the small English model's NER spans that the same model's parse contradicts.

- **A name span across a verb.** "Ahmed joined Cobaltline in 2019", "Hana manages Mateus and
  four other engineers" come out as one ORG entity covering subject, verb and object, while the
  parser reads the verb correctly. No name contains a lower-case verb of its own sentence, so
  the span is cut at its verbs; each side that still holds a proper noun stays a name, a person
  when it opens with a common given name, else with the label the span had.
"""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.names import NAME_LABELS
from shared.entities.given_names import is_given_name
from shared.entities.normalize import normalize_name

__all__ = ["repair_entities"]

_VERB_TAGS = frozenset({"VERB", "AUX"})


def repair_entities(doc: Any) -> Any:
    """A spaCy pipeline component (after the parser and NER): re-cut crossing name spans."""
    from spacy.tokens import Span

    spans: list[Any] = []
    changed = False
    for ent in doc.ents:
        if ent.label_ not in NAME_LABELS or not any(_clause_verb(t) for t in ent):
            spans.append(ent)
            continue
        changed = True
        for start, end in _pieces(ent):
            first = doc[start].text
            label = "PERSON" if is_given_name(normalize_name(first)) else ent.label_
            spans.append(Span(doc, start, end, label=label))
    if changed:
        doc.ents = spans
    return doc


def _clause_verb(tok: Any) -> bool:
    return tok.pos_ in _VERB_TAGS and tok.text[:1].islower()


def _pieces(ent: Any) -> list[tuple[int, int]]:
    """The runs of `ent` between its verbs, trimmed to start and end on a proper noun."""
    pieces: list[tuple[int, int]] = []
    run: list[Any] = []
    for tok in [*ent, None]:
        if tok is not None and not _clause_verb(tok):
            run.append(tok)
            continue
        proper = [t for t in run if t.pos_ == "PROPN"]
        if proper:
            pieces.append((proper[0].i, proper[-1].i + 1))
        run = []
    return pieces
