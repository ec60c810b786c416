"""Chat tails, reminders, a person part of a team, and a named thing's dated event, in
phrasings written apart from the rules (issue 16 classes 1 and 5)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.adjudicator.normalization import PredicateVocabulary
from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.markers import mask_markers
from services.ingest.extraction.rules import RulesExtractor

SAID = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
VOCABULARY = PredicateVocabulary()


def _main(extractor: RulesExtractor, text: str, speaker: str | None = None) -> ExtractedClaim:
    claims = extractor.extract_batch([ExtractionInput(text=text, said_on=SAID, speaker=speaker)])
    assert claims[0], f"no claim from {text!r}"
    return claims[0][0]


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("I'm on the Infra team btw", "I'm on the Infra team"),
        ("it ships Friday lol.", "it ships Friday"),
        ("we moved to Linear tbh, Jira was slow", "we moved to Linear"),
        ("Hi team, reminder that Helios goes live on 21 April.", "Helios goes live on 21 April."),
        # What the wrapper carried opens the sentence now, capitalised.
        ("Just a reminder that the office is closed Monday.", "The office is closed Monday."),
        ("FYI that the API is down", "The API is down"),
    ],
)
def test_a_chat_tail_or_a_reminder_wrapper_is_no_content(text: str, kept: str) -> None:
    masked = mask_markers(text)
    assert len(masked) == len(text)  # offsets unchanged
    assert masked.strip().startswith(kept.split()[0])
    assert " ".join(masked.split()).startswith(kept.rstrip("."))


def test_a_team_named_btw_keeps_its_name() -> None:
    assert mask_markers("The Btw team is great.") == "The Btw team is great."


@pytest.mark.parametrize(
    ("text", "speaker", "subject", "team"),
    [
        ("starting today I'm part of the Security team", "Kai Müller", "Kai Müller",
         "the Security team"),
        ("Lena Roth is part of the Growth team.", None, "Lena Roth", "the Growth team"),
        ("I'm on the Infra team btw", "Kai Müller", "Kai Müller", "the Infra team"),
    ],
)  # fmt: skip
def test_a_person_part_of_a_team_is_a_member_of_it(
    extractor: RulesExtractor, text: str, speaker: str | None, subject: str, team: str
) -> None:
    claim = _main(extractor, text, speaker)
    stored = VOCABULARY.relation(
        claim.subject_text or "", claim.predicate_text or "", claim.object_text or ""
    )
    assert stored is not None
    assert (stored[0], stored[1].predicate, stored[2]) == (subject, "member_of", team)


def test_a_project_part_of_a_group_stays_part_of_it(extractor: RulesExtractor) -> None:
    claim = _main(extractor, "The Atlas project is part of the Platform group.")
    stored = VOCABULARY.relation(
        claim.subject_text or "", claim.predicate_text or "", claim.object_text or ""
    )
    assert stored is not None and stored[1].predicate == "part_of"


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("The Helios go-live is on 14 April 2026.", "Helios"),
        ("The Helios launch is on 14 April 2026.", "Helios"),
        ("Helios goes live on 21 April 2026.", "Helios"),
        ("The Berlin launch is on 3 May.", "The Berlin launch"),  # in Berlin, not Berlin's
    ],
)
def test_a_named_thing_s_dated_event_is_about_the_thing(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    assert _main(extractor, text).subject_text == subject
