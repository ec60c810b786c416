"""The names a document already used outrank the small tagger's guesses (issue 16): a short
form of a full name in the document is that person wherever the tagger calls it a common noun
or a place, a pronoun that refers to a short form means the full name, a "Name:" line label is
the full name, and a possessed place, team or system that carries a name of its own is named
by it, not by its owner. Each class in phrasings other than the labelled set's."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor

SAID = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


def _claims(extractor: RulesExtractor, text: str, context: str | None) -> list[ExtractedClaim]:
    inp = ExtractionInput(text=text, said_on=SAID, context=context, document_title="Notes")
    return extractor.extract_batch([inp])[0]


@pytest.mark.parametrize(
    ("context", "text", "full"),
    [
        # The tagger reads these given names as common nouns.
        (
            "1:1 — Hana Kobayashi and Mateus Oliveira",
            "Mateus is keen on a move.",
            "Mateus Oliveira",
        ),
        (
            "Attendees: Siddharth Rao, Rosa Díaz.",
            "Siddharth is interested in the role.",
            "Siddharth Rao",
        ),
        (
            "Present: Ines Duarte and Tomás Ruiz.",
            "Ines is interested in the platform role.",
            "Ines Duarte",
        ),
    ],
)
def test_a_short_form_of_a_full_name_in_the_document_is_that_person(
    extractor: RulesExtractor, context: str, text: str, full: str
) -> None:
    assert _claims(extractor, text, context)[0].subject_text == full


@pytest.mark.parametrize(
    ("context", "text", "subject"),
    [
        (
            "Attendees: Kenji Watanabe, Rosa Díaz.",
            "Kenji said his team ships on Friday.",
            "Kenji Watanabe's team",
        ),
        (
            "Facilitator: Olumide Bankole. Notes: Sofia Lindqvist.",
            "Olumide joined the SRE team in December, so he now runs the pager rota.",
            "Olumide Bankole",
        ),
        (
            "Team: Priyanka Rao, Lukas Becker.",
            "Lukas moved to Munich. His manager approved it.",
            "Lukas Becker's manager",
        ),
    ],
)
def test_a_pronoun_that_refers_to_a_short_form_means_the_full_name(
    extractor: RulesExtractor, context: str, text: str, subject: str
) -> None:
    assert _claims(extractor, text, context)[-1].subject_text == subject


@pytest.mark.parametrize(
    ("context", "text", "full"),
    [
        (
            "Standup — Selam Tesfaye, Dmitri Volkov",
            "Selam: starting on the churn model today.",
            "Selam Tesfaye",
        ),
        (
            "Standup — Selam Tesfaye, Dmitri Volkov",
            "Dmitri: blocked on the S3 permissions.",
            "Dmitri Volkov",
        ),
        (
            "Sync with Amara Okafor and Joel Mensah",
            "Joel: finished the vendor review.",
            "Joel Mensah",
        ),
    ],
)
def test_a_line_label_of_a_short_form_is_the_full_name(
    extractor: RulesExtractor, context: str, text: str, full: str
) -> None:
    assert _claims(extractor, text, context)[-1].subject_text == full


@pytest.mark.parametrize(
    ("text", "subject", "object_"),
    [
        ("Brightwave's Kraków office opened in 2021.", "Kraków office", None),
        ("Maria joined Northwind's Lisbon office last week.", "Maria", "Lisbon office"),
        ("Globex's Ledger service uses Postgres.", "Ledger service", "Postgres"),
    ],
)
def test_a_possessed_place_team_or_system_with_a_name_is_named_by_it(
    extractor: RulesExtractor, text: str, subject: str, object_: str | None
) -> None:
    claim = _claims(extractor, text, None)[0]
    assert (claim.subject_text, claim.object_text) == (subject, object_)


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Acme's 2025 audit found two gaps.", "Acme"),
        ("The team's monthly Snowflake bill is $42,000.", "The team's monthly Snowflake bill"),
        ("Dana's team shipped the release.", "Dana's team"),
    ],
)
def test_an_unnamed_possessed_thing_keeps_its_owner(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    assert _claims(extractor, text, None)[0].subject_text == subject


def _titled(extractor: RulesExtractor, text: str, title: str) -> ExtractedClaim:
    inp = ExtractionInput(text=text, said_on=SAID, document_title=title)
    (claim,) = extractor.extract_batch([inp])[0]
    return claim


@pytest.mark.parametrize(
    ("title", "text"),
    [
        ("Team update", "The launch moved to 12 June."),
        ("Ops notes", "The office has been closed for renovation since 3 February."),
        ("People sync 14 Feb", "The offsite is confirmed for Porto."),
    ],
)
def test_a_title_that_names_only_a_kind_of_document_gives_a_bare_subject_no_anchor(
    extractor: RulesExtractor, title: str, text: str
) -> None:
    """ "Team", "Ops" or "Feb" is no thing the launch, the office or the offsite belongs to."""
    subject = _titled(extractor, text, title).subject_text
    assert subject is None or subject.split()[-1].lower() in text.lower()
    assert subject not in ("Team", "Ops", "People", "Feb")


@pytest.mark.parametrize(
    ("title", "text", "topic"),
    [
        ("Falcon report 17 March", "The cutover moved to 12 June.", "Falcon"),
        ("Halcyon Bio — customer account", "The renewal is due on 1 November.", "Halcyon Bio"),
        ("Billing service", "The owner is on leave until May.", "Billing service"),
    ],
)
def test_a_title_that_names_a_thing_anchors_the_bare_subjects_of_its_document(
    extractor: RulesExtractor, title: str, text: str, topic: str
) -> None:
    assert _titled(extractor, text, title).subject_text == topic
