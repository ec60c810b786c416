"""Markdown sections (issue 16): a heading names what the lines under it are about when it
names a thing; a section of people places each person its lines open with; "we" on a team's
page is the team."""

from __future__ import annotations

import pytest

from services.ingest.chunking import section_headings
from services.ingest.extraction.base import ExtractionInput
from services.ingest.extraction.rules import RulesExtractor
from tests.support.extracting import SAID, extract, stated_relations


def _relations(
    extractor: RulesExtractor, text: str, headings: tuple[str, ...], title: str = "Team wiki"
) -> set[tuple[str | None, str | None, str | None]]:
    passage = ExtractionInput(text=text, said_on=SAID, document_title=title, headings=headings)
    return stated_relations(extractor.extract_batch([passage])[0])


def test_a_section_path_is_its_headings_outermost_first() -> None:
    assert section_headings("Payments Platform > People") == ("Payments Platform", "People")
    assert section_headings("") == ()


@pytest.mark.parametrize(
    ("headings", "team"),
    [
        (("Team directory", "Search team"), "Search team"),
        (("Fraud Signals team", "Members"), "Fraud Signals team"),
        (("Risk team",), "Risk team"),
    ],
)
def test_the_innermost_heading_that_names_a_thing_is_the_topic(
    extractor: RulesExtractor, headings: tuple[str, ...], team: str
) -> None:
    relations = _relations(extractor, "Members: Jin Park, Lea Novak", headings)
    assert {("Jin Park", "member of", team), ("Lea Novak", "member of", team)} <= relations


@pytest.mark.parametrize(
    "line",
    [
        "- Oluwaseun Akintola - backend engineer",
        "- Oluwaseun Akintola (backend engineer)",
        "- Oluwaseun Akintola, backend engineer",
        "* Oluwaseun Akintola",
    ],
)
def test_a_people_sections_lines_place_their_people(extractor: RulesExtractor, line: str) -> None:
    relations = _relations(extractor, line, ("Payments Platform", "People"))
    assert ("Oluwaseun Akintola", "member of", "Payments Platform") in relations


def test_a_list_under_another_section_places_no_one(extractor: RulesExtractor) -> None:
    relations = _relations(extractor, "- Oluwaseun Akintola - backend engineer", ("Risks",))
    assert not any(p == "member of" for _, p, _ in relations)


@pytest.mark.parametrize(
    ("title", "headings"),
    [
        ("Payments Platform team page", ()),
        ("Team wiki", ("Payments Platform team",)),
        ("Payments Platform team page", ("Payments Platform",)),
    ],
)
def test_we_on_a_teams_page_is_the_team(
    extractor: RulesExtractor, title: str, headings: tuple[str, ...]
) -> None:
    relations = _relations(
        extractor, "We own the card-processing gateway and the ledger service.", headings, title
    )
    assert ("Payments Platform team", "own", "the ledger service") in relations


@pytest.mark.parametrize(
    ("title", "text", "subject"),
    [
        ("Platform Data - team page", "We run the ingestion pipelines.", "Platform Data"),
        ("About Brindlecote", "We're headquartered in Leeds.", "Brindlecote"),
        ("Ledgerline team wiki", "We own the payouts service.", "Ledgerline"),
    ],
)
def test_we_on_a_page_a_unit_keeps_about_itself_is_the_page_s_topic(
    extractor: RulesExtractor, title: str, text: str, subject: str
) -> None:
    (claim,) = extract(extractor, text, title)
    assert claim.subject_text == subject


def test_we_in_an_update_names_no_page_topic(extractor: RulesExtractor) -> None:
    (claim,) = extract(extractor, "We're headquartered in Leeds.", "Quarterly update")
    assert claim.subject_text is None
