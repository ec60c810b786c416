"""Both sides of a job change named in one clause (issue 16, class 3), in phrasings written
apart from the ones the rules were built on: a purpose or "for" phrase after an ending names
the new placement, a "before joining" phrase ends the placement the clause holds, and a
clause about someone else states nothing about the subject."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.adjudicator.normalization import PredicateVocabulary
from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor

SAID = datetime(2025, 9, 1, 9, 0, tzinfo=UTC)
VOCABULARY = PredicateVocabulary()


def _placements(extractor: RulesExtractor, text: str) -> set[tuple[str | None, str, str, str]]:
    """(subject, vocabulary predicate, phase, object) of every relation the claim states."""
    claims = extractor.extract_batch([ExtractionInput(text=text, said_on=SAID)])[0]
    assert claims, f"no claim from {text!r}"
    return _stated(claims[:1])


def _stated(claims: list[ExtractedClaim]) -> set[tuple[str | None, str, str, str]]:
    triples = [(c.subject_text, c.predicate_text, c.object_text) for c in claims]
    triples += [
        (r.subject_text, r.predicate_text, r.object_text) for c in claims for r in c.extra_relations
    ]
    found = set()
    for subject, predicate_text, obj in triples:
        stored = VOCABULARY.relation(subject or "", predicate_text or "", obj or "")
        placed = stored[1] if stored is not None else None
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
        # hired away in the passive, the origin hung on the one hiring
        ("Bruno Salas was poached by Lattice from Vireo in May.", "Bruno Salas", "Vireo",
         "Lattice"),
        ("Keiko Ito was recruited by Orbital from Fenwick last spring.", "Keiko Ito", "Fenwick",
         "Orbital"),
        # one job traded for another
        ("In March, Ines Duarte traded her role at Kestrel for a job at Nomad Labs.",
         "Ines Duarte", "Kestrel", "Nomad Labs"),
        ("Anil Rao exchanged his job at Orrin Bank for a role with Pellucid.", "Anil Rao",
         "Orrin Bank", "Pellucid"),
        ("Grete Lund traded a role at Vantage for a position at Lumen.", "Grete Lund", "Vantage",
         "Lumen"),
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


@pytest.mark.parametrize(
    ("text", "person", "old", "new"),
    [
        ("Marta Silva (formerly at Ubiq Systems) joined Trellis Health in January 2025.",
         "Marta Silva", "Ubiq Systems", "Trellis Health"),
        ("Jun Park, previously with Koto Foods, has joined Ember Goods.", "Jun Park",
         "Koto Foods", "Ember Goods"),
        ("After a decade with Orrin Labs, Kai Moss joined Quillwork in 2024.", "Kai Moss",
         "Orrin Labs", "Quillwork"),
        ("After six years at Tandem Logistics, Sofia Reyes is joining Pellucid Health.",
         "Sofia Reyes", "Tandem Logistics", "Pellucid Health"),
    ],
)  # fmt: skip
def test_a_former_placement_said_beside_the_subject_or_as_time_spent_there_ends(
    extractor: RulesExtractor, text: str, person: str, old: str, new: str
) -> None:
    found = _placements(extractor, text)
    assert (person, "works_for", "end", old) in found
    assert (person, "works_for", "start", new) in found


@pytest.mark.parametrize(
    ("text", "person", "employer"),
    [
        ("Nina Hale has accepted an offer from Lumen Bio.", "Nina Hale", "Lumen Bio"),
        ("Omar Haddad took a position at Cinder Analytics last week.", "Omar Haddad",
         "Cinder Analytics"),
        ("Tomas Reyes started a new role with Quarry AI in March.", "Tomas Reyes", "Quarry AI"),
    ],
)  # fmt: skip
def test_taking_a_job_somewhere_is_joining_it(
    extractor: RulesExtractor, text: str, person: str, employer: str
) -> None:
    assert (person, "works_for", "start", employer) in _placements(extractor, text)


@pytest.mark.parametrize(
    "text",
    [
        "Nina Hale accepted an offer from Lumen Bio and starts there on 2 June 2025.",
        "Nina Hale has accepted a job at Lumen Bio and starts on 2 June 2025.",
        "Nina Hale took a role at Lumen Bio and will begin on 2 June 2025.",
    ],
)
def test_a_start_coordinated_with_taking_a_job_is_dated_at_that_employer(
    extractor: RulesExtractor, text: str
) -> None:
    claims = extractor.extract_batch([ExtractionInput(text=text, said_on=SAID)])[0]
    dated = [c for c in claims if c.claim_valid_from == datetime(2025, 6, 2, tzinfo=UTC)]
    assert [(c.subject_text, c.object_text) for c in dated] == [("Nina Hale", "Lumen Bio")]
    assert VOCABULARY.normalize(dated[0].predicate_text or "") == "works_for"


@pytest.mark.parametrize(
    "text",
    [
        "Nina Hale accepted the proposal from Lumen Bio.",
        "Nina Hale took a seat at the back.",
        "Nina Hale moved to Oslo and works there as a nurse.",
    ],
)
def test_taking_something_else_or_working_in_a_place_joins_no_employer(
    extractor: RulesExtractor, text: str
) -> None:
    assert not [f for f in _placements(extractor, text) if f[1] == "works_for"]


@pytest.mark.parametrize(
    ("text", "person", "employer"),
    [
        ("Jonas Weber signed with Orvane in March.", "Jonas Weber", "Orvane"),
        ("Mira Tan signed on with Halcyon Labs last week.", "Mira Tan", "Halcyon Labs"),
        ("After the trial, Leo Marsh signed with Quillfeather.", "Leo Marsh", "Quillfeather"),
    ],
)
def test_signing_with_an_organisation_starts_working_for_it(
    extractor: RulesExtractor, text: str, person: str, employer: str
) -> None:
    assert (person, "works_for", "start", employer) in _placements(extractor, text)


@pytest.mark.parametrize(
    "text",
    [
        "We swapped Jira for Linear in May.",  # tools, as often as employers: no placement
        "Acme signed a contract with Orvane in March.",  # the object is the contract
    ],
)
def test_swapping_names_or_signing_a_contract_is_no_job_change(
    extractor: RulesExtractor, text: str
) -> None:
    claims = extractor.extract_batch([ExtractionInput(text=text, said_on=SAID)])[0]
    assert all(predicate != "works_for" for _, predicate, _, _ in _stated(claims))
