"""Clause shapes the rules extractor reads from the parse (issue 16), each in phrasings other
than the labelled set's: a comma splice is two statements; a fronted "as/because/although"
clause is a statement of its own while a fronted "since" clause still dates the main one; a
copula's complement follows a fronted adverbial; a compound modifier the tagger calls an
adjective still names a thing; a line that only announces what follows is not a claim."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.adjudicator.normalization import PredicateVocabulary
from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor

SAID = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
VOCABULARY = PredicateVocabulary()


def _claims(
    extractor: RulesExtractor, text: str, speaker: str | None = None
) -> list[ExtractedClaim]:
    inp = ExtractionInput(text=text, said_on=SAID, speaker=speaker)
    return extractor.extract_batch([inp])[0]


def _relations(claims: list[ExtractedClaim]) -> set[tuple[str | None, str | None, str | None]]:
    return {
        (c.subject_text, VOCABULARY.normalize(c.predicate_text or ""), c.object_text)
        for c in claims
    }


@pytest.mark.parametrize(
    ("text", "relation"),
    [
        ("We met in Lisbon, she was at Google then.", ("she", "works_for", "Google")),
        ("The demo went fine, Kofi joined Globex the week after.", ("Kofi", "works_for", "Globex")),
        (
            "Lunch ran long, Marta joined Initech afterwards.",
            ("Marta", "works_for", "Initech"),
        ),
    ],
)
def test_a_comma_splice_is_two_statements(
    extractor: RulesExtractor, text: str, relation: tuple[str, str, str]
) -> None:
    claims = _claims(extractor, text)
    assert len(claims) == 2
    assert relation in _relations(claims)


@pytest.mark.parametrize(
    ("text", "speaker", "relation"),
    [
        (
            "As I'm leaving Kestrel in June, here is my handover.",
            "Olumide Bankole",
            ("Olumide Bankole", "works_for", "Kestrel"),
        ),
        (
            "Because Dana joined Globex in May, the audit moved to Ravi.",
            None,
            ("Dana", "works_for", "Globex"),
        ),
        (
            "Although Ravi left Acme in May, he still answers questions.",
            None,
            ("Ravi", "works_for", "Acme"),
        ),
    ],
)
def test_a_fronted_clause_the_writer_takes_as_true_is_a_statement_of_its_own(
    extractor: RulesExtractor, text: str, speaker: str | None, relation: tuple[str, str, str]
) -> None:
    assert relation in _relations(_claims(extractor, text, speaker))


def test_a_fronted_since_clause_still_dates_the_main_one(extractor: RulesExtractor) -> None:
    (claim,) = _claims(extractor, "Since he joined in April 2025, Omari has led the payments team.")
    assert claim.subject_text == "Omari"
    assert claim.claim_valid_from == datetime(2025, 4, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "speaker", "relation"),
    [
        (
            "Before that I was at Roche in Basel.",
            "Callum Fraser",
            ("Callum Fraser", "works_for", "Roche"),
        ),
        ("Until last year, Dana was at Stripe.", None, ("Dana", "works_for", "Stripe")),
        (
            "After the merger Kofi was at Deloitte for a year.",
            None,
            ("Kofi", "works_for", "Deloitte"),
        ),
    ],
)
def test_a_copula_s_complement_follows_a_fronted_adverbial(
    extractor: RulesExtractor, text: str, speaker: str | None, relation: tuple[str, str, str]
) -> None:
    assert relation in _relations(_claims(extractor, text, speaker))


@pytest.mark.parametrize(
    ("text", "relation"),
    [
        ("Lena started on the churn model today.", ("Lena", "works_on", "the churn model")),
        ("Kofi starts on the fraud model next week.", ("Kofi", "works_on", "the fraud model")),
        ("Ravi is on the checkout rewrite now.", ("Ravi", "member_of", "the checkout rewrite")),
    ],
)
def test_a_compound_modifier_names_the_thing_whatever_its_tag(
    extractor: RulesExtractor, text: str, relation: tuple[str, str, str]
) -> None:
    assert relation in _relations(_claims(extractor, text))


@pytest.mark.parametrize(
    "text",
    [
        "Here is where things stand.",
        "Here's the plan for Q3.",
        "Here are the numbers from the pilot.",
    ],
)
def test_a_line_that_announces_what_follows_is_not_a_claim(
    extractor: RulesExtractor, text: str
) -> None:
    assert _claims(extractor, text) == []


def test_a_line_that_introduces_someone_by_name_is_kept(extractor: RulesExtractor) -> None:
    (claim,) = _claims(extractor, "Here is Dana, our new designer.")
    assert claim.subject_text == "Dana"
