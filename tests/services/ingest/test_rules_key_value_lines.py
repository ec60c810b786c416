"""Lists of keys and values in status reports and infoboxes (issue 16), in phrasings written
apart from the labelled sets: each line is a statement of its own, a value on a line of its own
is the document topic's ("Status: green"), a key the given-name list also holds ("Owner") is no
speaker, and no name runs over a line break."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor, load_rules_extractor

SAID = datetime(2026, 1, 10, 9, 0, tzinfo=UTC)
TITLE = "Weekly status — Atlas migration"


@pytest.fixture(scope="module")
def extractor() -> RulesExtractor:
    return load_rules_extractor()


def _claims(extractor: RulesExtractor, text: str) -> list[ExtractedClaim]:
    inp = ExtractionInput(text=text, said_on=SAID, document_title=TITLE)
    return extractor.extract_batch([inp])[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Owner: Lucia Moreno\nStatus: green",
         [("Lucia Moreno", "own", "Atlas"), ("Atlas", "be", None)]),
        ("Budget: $240k\nChampion: Omar Haddad\nETA: 30 June",
         [("Atlas", "be", None), ("Omar Haddad", "lead", "Atlas"), ("Atlas", "be", None)]),
        ("Health: amber\nOwner: Priya Das",
         [("Atlas", "be", None), ("Priya Das", "own", "Atlas")]),
    ],
)  # fmt: skip
def test_each_line_of_a_key_value_list_is_a_statement(
    extractor: RulesExtractor, text: str, expected: list[tuple[str, str, str | None]]
) -> None:
    claims = _claims(extractor, text)
    assert [(c.subject_text, c.predicate_text, c.object_text) for c in claims] == expected
    assert all("\n" not in c.claim_text for c in claims)


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Status: the migration is on track.", "Atlas"),  # a label before a clause
        ("Status update: Dana Kim joined the Search team.", "Dana Kim"),
        ("Owner: Lucia Moreno", "Lucia Moreno"),  # "Owner" is in the given-name list
    ],
)
def test_a_key_before_a_clause_or_a_name_is_no_speaker(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    claims = _claims(extractor, text)
    assert claims and claims[0].subject_text == subject
