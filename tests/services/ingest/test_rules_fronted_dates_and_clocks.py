"""Dates and subjects the small model loses in text written by others (issue 16): a name NER
ran into a date ("From 1 June Ben takes over"), a verb of change tagged as a plural noun
("Loomwork Pro moves to EUR 26"), a fronted date after a masked frame, a start word hung on a
noun ("effective 14 May"), a clock range past midnight, a state's bound given as a time of
day, a date inside the period named first, and a date just gone in a scheduled sentence."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor
from tests.support.extracting import extract


def _on(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def _only(extractor: RulesExtractor, text: str) -> ExtractedClaim:
    (claim,) = extract(extractor, text)
    return claim


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("From 1 June Ben takes over the rota.", "Ben"),
        ("Since 3 May Priya owns the billing runbook.", "Priya"),
        ("From Monday Tomasz leads the Search team.", "Tomasz"),
    ],
)
def test_a_name_after_a_fronted_date_is_the_subject(
    extractor: RulesExtractor, text: str, subject: str
) -> None:
    assert _only(extractor, text).subject_text == subject


@pytest.mark.parametrize(
    "text",
    [
        "Loomwork Pro moves to EUR 26 per user per month from 1 April.",
        "Just confirming that from 1 April Loomwork Pro moves to EUR 26/user/month.",
        "So the plan is that from 1 April Loomwork Pro moves to EUR 26 a month.",
    ],
)
def test_a_price_change_after_a_name_is_a_dated_clause(
    extractor: RulesExtractor, text: str
) -> None:
    claim = _only(extractor, text)
    assert claim.subject_text == "Loomwork Pro"
    assert (claim.claim_valid_from, claim.claim_valid_until) == (_on(2026, 4, 1), None)


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("Rosalind Achterberg stepped down as CTO of Velloran effective 14 May.", _on(2026, 5, 14)),
        # Said on 2 June: the change takes effect on the nearest 30 June, though "resigned" is
        # past.
        ("Dana Whitfield resigned from Northwind effective 30 June.", _on(2026, 6, 30)),
        ("Omar Haddad joins the board of Lumio effective 1 July.", _on(2026, 7, 1)),
    ],
)  # fmt: skip
def test_effective_dates_the_clause(extractor: RulesExtractor, text: str, start: datetime) -> None:
    assert _only(extractor, text).claim_valid_from == start


def test_a_clock_range_that_ends_before_it_starts_runs_past_midnight(
    extractor: RulesExtractor,
) -> None:
    claim = _only(extractor, "The maintenance window runs from 22:00 to 02:00 CEST on 30 May.")
    assert (claim.claim_valid_from, claim.claim_valid_until) == (
        _on(2026, 5, 30, 20),
        _on(2026, 5, 31, 0),
    )


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("The Kettle ingestion job has been red since 09:10 UTC.", _on(2026, 6, 2, 9, 10)),
        ("The Kettle ingestion job is green again as of 14:30 UTC.", _on(2026, 6, 2, 14, 30)),
        ("Checkout has been degraded since 07:45 UTC.", _on(2026, 6, 2, 7, 45)),
    ],
)  # fmt: skip
def test_a_states_bound_given_as_a_time_of_day_is_on_the_day_it_is_said(
    extractor: RulesExtractor, text: str, start: datetime
) -> None:
    claim = _only(extractor, text)
    assert (claim.claim_valid_from, claim.claim_valid_until) == (start, None)


def test_a_time_of_day_alone_states_no_date(extractor: RulesExtractor) -> None:
    claim = _only(extractor, "The standup is at 9:30.")
    assert claim.claim_valid_from is None


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Q1 close-out: the Platform org's headcount stood at 47 on 31 March.", _on(2026, 3, 31)),
        ("In Q3, on 12 August, the Pro plan price went up to $30.", _on(2025, 8, 12)),
        ("During 2025 the Lisbon office opened on 3 March 2025.", _on(2025, 3, 3)),
    ],
)
def test_a_date_inside_the_period_named_first_is_the_finer_reading(
    extractor: RulesExtractor, text: str, day: datetime
) -> None:
    assert _only(extractor, text).claim_valid_from == day


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("From 1 June Ben Okafor takes over the on-call rota.", _on(2026, 6, 1)),
        ("The pilot ends on 30 May.", _on(2026, 5, 30)),
        # More than a week gone: next year's.
        ("The pilot ends on 30 March.", _on(2027, 3, 30)),
    ],
)
def test_a_scheduled_date_just_gone_is_still_the_one_meant(
    extractor: RulesExtractor, text: str, start: datetime
) -> None:
    assert _only(extractor, text).claim_valid_from == start


@pytest.mark.parametrize(
    ("title", "subject"),
    [
        ("Platform status w/e 9 Jan", "Headcount"),
        ("Email", "Headcount"),
        ("Payments Platform team page", "Payments Platform team"),
    ],
)
def test_a_titles_words_for_its_kind_name_no_topic(
    extractor: RulesExtractor, title: str, subject: str
) -> None:
    passage = ExtractionInput(
        text="Headcount: 42 as of 1 January.", said_on=_on(2026, 1, 9), document_title=title
    )
    (claim,) = extractor.extract_batch([passage])[0]
    assert claim.subject_text == subject


@pytest.mark.parametrize(
    ("text", "window"),
    [
        # A number NER (or dateparser) took for a year that no document means: an identifier.
        ("The customer reopened ticket 5521 today.", (_on(2026, 6, 2), _on(2026, 6, 2))),
        ("Build 9120 shipped on Monday.", (_on(2026, 6, 1), _on(2026, 6, 1))),
        ("Invoice 4417 is overdue.", (None, None)),
        ("Order 3050 was delivered.", (None, None)),
    ],
)
def test_a_number_outside_any_year_a_document_means_is_no_year(
    extractor: RulesExtractor, text: str, window: tuple[datetime | None, datetime | None]
) -> None:
    claims = extractor.extract_batch([ExtractionInput(text=text, said_on=_on(2026, 6, 2, 9))])[0]
    assert claims, text
    assert (claims[0].claim_valid_from, claims[0].claim_valid_until) == window
