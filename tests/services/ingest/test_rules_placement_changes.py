"""Both sides of a job change named in one clause (issue 16, class 3), in phrasings written
apart from the ones the rules were built on: a purpose or "for" phrase after an ending names
the new placement, a "before joining" phrase ends the placement the clause holds, and a
clause about someone else states nothing about the subject."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.adjudicator.normalization import PredicateVocabulary
from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor, load_rules_extractor

SAID = datetime(2025, 9, 1, 9, 0, tzinfo=UTC)
VOCABULARY = PredicateVocabulary()


@pytest.fixture(scope="module")
def extractor() -> RulesExtractor:
    return load_rules_extractor()


def _placements(extractor: RulesExtractor, text: str) -> set[tuple[str | None, str, str, str]]:
    """(subject, vocabulary predicate, phase, object) of every relation the claim states."""
    claims = extractor.extract_batch([ExtractionInput(text=text, said_on=SAID)])[0]
    assert claims, f"no claim from {text!r}"
    claim: ExtractedClaim = claims[0]
    triples = [(claim.subject_text, claim.predicate_text, claim.object_text)]
    triples += [(r.subject_text, r.predicate_text, r.object_text) for r in claim.extra_relations]
    found = set()
    for subject, predicate_text, obj in triples:
        directed = VOCABULARY.normalize_directed(predicate_text or "")
        placed = directed.for_object(obj or "") if directed is not None else None
        if placed is not None and obj is not None:
            found.add((subject, placed.predicate, placed.phase, obj))
    return found


@pytest.mark.parametrize(
    ("text", "person", "old", "new"),
    [
        (
            "Tomas Varga is leaving Fable Games at the end of May 2025 to join Quarry AI.",
            "Tomas Varga",
            "Fable Games",
            "Quarry AI",
        ),
        ("Nadia Ruiz left Copperleaf for Brightline Energy in April.", "Nadia Ruiz", "Copperleaf",
         "Brightline Energy"),
        ("Sam Ochoa quit Redwood Bank last month to start at Halcyon Pay.", "Sam Ochoa",
         "Redwood Bank", "Halcyon Pay"),
        ("Before joining Orbit Labs in 2023, Kai Berg spent five years at Delta Systems.",
         "Kai Berg", "Delta Systems", "Orbit Labs"),
        ("Prior to joining Fernway, Lucia Moreno worked at Grayson Legal for a decade.",
         "Lucia Moreno", "Grayson Legal", "Fernway"),
        ("Before she joined Pelican Air, Maya Cho worked for Tern Logistics.", "Maya Cho",
         "Tern Logistics", "Pelican Air"),
    ],
)  # fmt: skip
def test_a_change_named_in_one_clause_ends_the_old_placement_and_starts_the_new(
    extractor: RulesExtractor, text: str, person: str, old: str, new: str
) -> None:
    found = _placements(extractor, text)
    assert (person, "works_for", "end", old) in found
    assert (person, "works_for", "start", new) in found
    assert (person, "works_for", "state", old) not in found


@pytest.mark.parametrize(
    ("text", "person", "employer"),
    [
        ("Ravi Shah worked at Acme before Omar Diaz joined Globex.", "Ravi Shah", "Acme"),
        ("Dev Patel left Norcross last year to spend time with his family.", "Dev Patel", None),
        ("Hugo Lenz left Arcadia for personal reasons.", "Hugo Lenz", None),
    ],
)
def test_a_phrase_that_names_no_new_placement_starts_none(
    extractor: RulesExtractor, text: str, person: str, employer: str | None
) -> None:
    found = _placements(extractor, text)
    assert not [f for f in found if f[2] == "start"], found
    if employer is not None:  # someone else's joining ends nothing of the subject's
        assert (person, "works_for", "state", employer) in found
