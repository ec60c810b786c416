"""Lists of keys and values in status reports and infoboxes (issue 16), in phrasings written
apart from the labelled sets: each line is a statement of its own, a value on a line of its own
is the document topic's ("Status: green"), a key the given-name list also holds ("Owner") is no
speaker, and no name runs over a line break."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor

SAID = datetime(2026, 1, 10, 9, 0, tzinfo=UTC)
TITLE = "Weekly status — Atlas migration"


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


def _claims_under(extractor: RulesExtractor, text: str, title: str) -> list[ExtractedClaim]:
    inp = ExtractionInput(text=text, said_on=SAID, document_title=title)
    return extractor.extract_batch([inp])[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A name the small model does not know ("Sven Dahl") was split from its key.
        ("Project Kite\nOwner: Sven Dahl\nStatus: amber",
         [("Sven Dahl", "own", "Kite"), ("Kite", "be", None)]),
        ("Payroll export\nDRI: Jonas Berg\nHealth: green",
         [("Jonas Berg", "own", "Payroll export"), ("Payroll export", "be", None)]),
        ("Project Kite\nOwner: Sven Dahl\n\nProject Heron\nLead: Mira Sato\nStatus: red",
         [("Sven Dahl", "own", "Kite"), ("Mira Sato", "lead", "Project Heron"),
          ("Project Heron", "be", None)]),
    ],
)  # fmt: skip
def test_a_heading_line_names_what_the_key_value_lines_under_it_are_about(
    extractor: RulesExtractor, text: str, expected: list[tuple[str, str, str | None]]
) -> None:
    claims = _claims_under(extractor, text, "Weekly status")
    assert [(c.subject_text, c.predicate_text, c.object_text) for c in claims] == expected


@pytest.mark.parametrize(
    ("line", "start"),
    [
        ("Owner: Mei Lin (from 1 April)", datetime(2026, 4, 1, tzinfo=UTC)),
        ("Lead: Omar Haddad (since March)", datetime(2026, 3, 1, tzinfo=UTC)),
        ("DRI: Ana Lima (as of 2 May)", datetime(2026, 5, 2, tzinfo=UTC)),
    ],
)
def test_a_role_line_s_dating_parenthesis_starts_the_holding(
    extractor: RulesExtractor, line: str, start: datetime
) -> None:
    said = datetime(2026, 6, 1, tzinfo=UTC)
    inp = ExtractionInput(text=line, said_on=said, document_title="Project Kite status")
    (claim,) = extractor.extract_batch([inp])[0]
    assert (claim.subject_text, claim.object_text) == (line.split(": ")[1].split(" (")[0], "Kite")
    assert (claim.claim_valid_from, claim.claim_valid_until) == (start, None)
    assert claim.claim_text == line


def test_a_colon_line_of_prose_keeps_its_own_sentences(extractor: RulesExtractor) -> None:
    claims = _claims(extractor, "Note: the API freeze starts on 1 December. It ends on 5 January.")
    assert len(claims) == 2


@pytest.mark.parametrize(
    ("title", "text", "person", "start"),
    [
        ("Corvane", "Corvane\nCEO: Hana Sato\nEmployees: 240", "Hana Sato", None),
        ("Corvane", "CEO: Jonas Berg (since February 2026)", "Jonas Berg",
         datetime(2026, 2, 1, tzinfo=UTC)),
        ("Lumen Bio — company profile", "CFO: Priya Das\nCTO - Omar Haddad", "Omar Haddad", None),
    ],
)  # fmt: skip
def test_an_infobox_officer_works_for_the_page_s_subject(
    extractor: RulesExtractor, title: str, text: str, person: str, start: datetime | None
) -> None:
    # "CEO: Hana Sato" on the Corvane page was an observation on Hana (no role verb for an
    # officer, and a one-word title named no topic).
    claims = _claims_under(extractor, text, title)
    (claim,) = [c for c in claims if c.subject_text == person]
    assert (claim.predicate_text, claim.object_text) == ("work for", title.split(" — ")[0])
    assert claim.claim_valid_from == start


@pytest.mark.parametrize(
    "title",
    [
        "Harrowfen status report w/e 27 Feb",
        "Harrowfen weekly update - 6 March",
        "Weekly status: Harrowfen (13 March)",
    ],
)
@pytest.mark.parametrize("line", ["Status: green", "RAG status: amber", "Overall status: RED"])
def test_a_status_line_is_about_the_coined_name_a_report_title_names(
    extractor: RulesExtractor, title: str, line: str
) -> None:
    # A one-word name in no English word list ("Harrowfen") is the title's topic even when NER
    # misses it; "RAG" and "overall" say which scale the status is on, not whose it is.
    passage = ExtractionInput(text=line, said_on=datetime(2026, 3, 16, tzinfo=UTC),
                              document_title=title)  # fmt: skip
    (claim,) = extractor.extract_batch([passage])[0]
    assert claim.subject_text == "Harrowfen"
