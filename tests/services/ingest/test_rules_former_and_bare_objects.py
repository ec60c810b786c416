"""Relations held before ("used to", "previously", "a former …"), the part-of phrasings of an
organisation chart, and bare definite objects named by the document (rules extractor)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.adjudicator.normalization import PredicateVocabulary
from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor

SAID = datetime(2026, 5, 20, 9, 0, tzinfo=UTC)
VOCABULARY = PredicateVocabulary()

# (subject, vocabulary predicate, held before, object)
Stated = tuple[str | None, str | None, bool, str | None]


def _stated(claims: list[ExtractedClaim]) -> set[Stated]:
    found = set()
    for claim in claims:
        triples = [(claim.subject_text, claim.predicate_text, claim.object_text)]
        triples += [
            (r.subject_text, r.predicate_text, r.object_text) for r in claim.extra_relations
        ]
        for subject, predicate_text, obj in triples:
            stored = VOCABULARY.relation(subject or "", predicate_text or "", obj or "")
            placed = stored[1] if stored is not None else None
            if placed is not None:
                found.add((subject, placed.predicate, placed.former, obj))
    return found


def _claims(
    extractor: RulesExtractor, text: str, title: str | None = None, context: str | None = None
) -> list[ExtractedClaim]:
    inp = ExtractionInput(text=text, said_on=SAID, document_title=title, context=context)
    return extractor.extract_batch([inp])[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ana Costa used to work for Globex.", {("Ana Costa", "works_for", True, "Globex")}),
        (
            "Dev Patel was previously at Stark Industries.",
            {("Dev Patel", "works_for", True, "Stark Industries")},
        ),
        (
            "Eva Lind formerly led the search team.",
            {("Eva Lind", "member_of", True, "the search team")},
        ),
        (
            "Carla Diaz, a former Umbrella engineer, now consults for Hooli.",
            {
                ("Carla Diaz", "works_for", True, "Umbrella"),
                ("Carla Diaz", "affiliated_with", False, "Hooli"),
            },
        ),
        (
            "Priya Raman, previously a data scientist at Oakridge Labs, has joined Finch.",
            {
                ("Priya Raman", "works_for", True, "Oakridge Labs"),
                ("Priya Raman", "works_for", False, "Finch"),
            },
        ),
    ],
)
def test_a_relation_the_clause_says_held_before_is_marked_so(
    extractor: RulesExtractor, text: str, expected: set[Stated]
) -> None:
    found = _stated(_claims(extractor, text))
    assert expected <= found, found


def test_a_current_role_and_a_dated_join_are_not_marked_as_held_before(
    extractor: RulesExtractor,
) -> None:
    found = _stated(_claims(extractor, "Dana Whitfield, the CTO of Northwind, joined Quell."))
    assert all(not former for _, _, former, _ in found), found


@pytest.mark.parametrize(
    ("text", "whole"),
    [
        ("The Lisbon office sits within the EMEA region.", "the EMEA region"),
        ("Our support team falls within customer operations.", "customer operations"),
        ("The growth squad rolls up into the commerce group.", "the commerce group"),
    ],
)
def test_an_org_chart_placement_is_part_of_its_whole(
    extractor: RulesExtractor, text: str, whole: str
) -> None:
    found = _stated(_claims(extractor, text))
    assert any(p == "part_of" and o == whole for _, p, _, o in found), found


@pytest.mark.parametrize(
    ("title", "context", "text", "obj"),
    [
        ("Project Harbor — weekly status", None, "Wanjiru joined the project on Monday.", "Harbor"),
        (
            None,
            "Ana chairs the steering committee.",
            "Bo Lind left the committee in May.",
            "the steering committee",
        ),
        ("Payments team weekly", None, "Ana Ruiz left the team in March.", "Payments team"),
    ],
)
def test_a_bare_definite_object_is_what_the_document_names_with_its_noun(
    extractor: RulesExtractor, title: str | None, context: str | None, text: str, obj: str
) -> None:
    (claim,) = _claims(extractor, text, title, context)
    assert claim.object_text == obj


@pytest.mark.parametrize(
    ("title", "text"),
    [
        ("Team news", "Ana Ruiz left the team in March."),  # no name for the team
        ("Kraków office", "Katarzyna has run the office since it opened."),  # a place
        (None, "Bo Lind left the committee in May."),  # nothing named it before
    ],
)
def test_a_bare_definite_object_the_document_does_not_name_stays_unnamed(
    extractor: RulesExtractor, title: str | None, text: str
) -> None:
    claims = _claims(extractor, text, title)
    assert all(c.object_text is None for c in claims), [c.object_text for c in claims]


@pytest.mark.parametrize(
    ("text", "subject", "until"),
    [
        # the article hangs on the noun, not on the verb read as a plural noun
        ("The warehouse migration wraps up by the end of next month.", "The warehouse migration",
         datetime(2026, 6, 30, tzinfo=UTC)),
        # the subject is parsed; only the verb is misread, with the name before it
        ("The contract with Vela runs through Q3 2027.", "The contract",
         datetime(2027, 9, 30, tzinfo=UTC)),
        ("The deal with Kite Bank closes on 30 June.", "The deal", None),
    ],
)  # fmt: skip
def test_a_declarative_whose_verb_the_tagger_reads_as_a_plural_noun_is_kept(
    extractor: RulesExtractor, text: str, subject: str, until: datetime | None
) -> None:
    claims = _claims(extractor, text)
    assert [c.subject_text for c in claims] == [subject]
    if until is not None:
        assert claims[0].claim_valid_until == until


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Amaka Obi has been at Kite for three years, before that she was at DHL.",
            ("Amaka Obi", "works_for", True, "DHL"),
        ),
        (
            "Omar Said joined Kite in May; before that he worked for Maersk.",
            ("Omar Said", "works_for", True, "Maersk"),
        ),
        (
            "Lena Berg joined Search in 2022, after that she led the data team.",
            ("Lena Berg", "member_of", False, "the data team"),
        ),
    ],
)
def test_a_clause_dated_by_the_one_before_it_is_a_claim_of_its_own(
    extractor: RulesExtractor, text: str, expected: Stated
) -> None:
    assert expected in _stated(_claims(extractor, text))
