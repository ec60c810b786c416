"""Periods and handovers the small model loses in text written by others (issue 16): the
period a measured subject names dates its value ("Revenue in Q4 was EUR 4.2 million"), a verb
of change after a fronted date read as a plural noun ("Starting Q3, Marrowgate on-call moves
to the SRE team") or after an opening noun read as an imperative ("Release management shifts
to …"), a duty that passes to a person (theirs, not a team they contain), and a contracted
"is" before a state read as a possessive ("Dana's out sick today")."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.ingest.extraction.base import ExtractedClaim
from services.ingest.extraction.rules import RulesExtractor
from tests.support.extracting import extract


def _on(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


def _only(extractor: RulesExtractor, text: str) -> ExtractedClaim:
    (claim,) = extract(extractor, text)
    return claim


@pytest.mark.parametrize(
    ("text", "subject", "window"),
    [
        ("Revenue in Q4 was EUR 4.2 million.", "Revenue", (_on(2025, 10, 1), _on(2025, 12, 31))),
        ("Headcount in H2 will be 40.\n", "Headcount", (_on(2026, 7, 1), _on(2026, 12, 31))),
        ("Churn for May ended at 2.1%.", "Churn", (_on(2026, 5, 1), _on(2026, 5, 31))),
        ("Headcount for 2027 is planned at 55.", "Headcount", (_on(2027, 1, 1), _on(2027, 12, 31))),
        ("Gross margin in Q1 was 61%.", "Gross margin", (_on(2026, 1, 1), _on(2026, 3, 31))),
    ],
)
def test_the_period_a_measured_subject_names_dates_the_value(
    extractor: RulesExtractor, text: str, subject: str, window: tuple[datetime, datetime]
) -> None:
    claim = _only(extractor, text)
    assert claim.subject_text == subject
    assert (claim.claim_valid_from, claim.claim_valid_until) == window


def test_a_period_in_a_name_that_measures_nothing_stays_in_the_name(
    extractor: RulesExtractor,
) -> None:
    assert _only(extractor, "The roadmap for 2027 is approved.").subject_text == (
        "The roadmap for 2027"
    )


@pytest.mark.parametrize(
    ("text", "subject", "target", "start"),
    [
        (
            "Starting Q3, Marrowgate on-call moves to the SRE team.\n",
            "Marrowgate on-call",
            "the SRE team",
            _on(2026, 7, 1),
        ),
        (
            "Starting Q4, the billing rota moves to the Payments team.",
            "the billing rota",
            "the Payments team",
            _on(2026, 10, 1),
        ),
        (
            "From next month, Sales Ops moves to the Revenue group.",
            "Sales Ops",
            "the Revenue group",
            _on(2026, 7, 1),
        ),
        (
            "From 1 August, the Kestrel contract moves to the Dublin entity.",
            "Kestrel",
            "the Dublin entity",
            _on(2026, 8, 1),
        ),
        (
            "Beginning in July, first-line support moves to Manila.",
            "first-line support",
            "Manila",
            _on(2026, 7, 1),
        ),
    ],
)
def test_a_change_after_a_fronted_date_is_a_clause_from_that_date(
    extractor: RulesExtractor, text: str, subject: str, target: str, start: datetime
) -> None:
    claim = _only(extractor, text)
    assert (claim.subject_text, claim.object_text) == (subject, target)
    assert (claim.claim_valid_from, claim.claim_valid_until) == (start, None)


@pytest.mark.parametrize(
    ("text", "owner", "duty"),
    [
        ("As of June, billing support shifts to Tomas Berg.", "Tomas Berg", "billing support"),
        ("In May, the pager rota moves to Lena.", "Lena", "the pager rota"),
        ("The incident rota passes to Kofi Mensah next week.", "Kofi Mensah", "The incident rota"),
        ("From 1 July the Grafana dashboards move to Ines Duarte.", "Ines Duarte", None),
        ("Release management shifts to Hamza Aziz in Q3.", "Hamza Aziz", "Release management"),
    ],
)
def test_a_duty_that_passes_to_a_person_is_theirs(
    extractor: RulesExtractor, text: str, owner: str, duty: str | None
) -> None:
    claim = _only(extractor, text)
    assert (claim.subject_text, claim.predicate_text) == (owner, "take ownership of")
    assert duty is None or claim.object_text == duty


def test_a_thing_moved_to_a_team_becomes_part_of_it(extractor: RulesExtractor) -> None:
    claim = _only(extractor, "The on-call rotation moves to the SRE team.\n")
    assert (claim.subject_text, claim.predicate_text, claim.object_text) == (
        "The on-call rotation",
        "become part of",
        "the SRE team",
    )


@pytest.mark.parametrize(
    ("text", "subject", "window"),
    [
        ("Omar's off sick today.\n", "Omar", (_on(2026, 6, 2), _on(2026, 6, 2))),
        ("Dana's out sick today.", "Dana", (_on(2026, 6, 2), _on(2026, 6, 2))),
        ("Priya's off sick until Thursday.", "Priya", (None, _on(2026, 6, 4))),
    ],
)
def test_a_contracted_is_before_a_state_is_the_copula(
    extractor: RulesExtractor, text: str, subject: str, window: tuple[object, object]
) -> None:
    claim = _only(extractor, text)
    assert claim.subject_text == subject
    assert (claim.claim_valid_from, claim.claim_valid_until) == window


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        ("We have called off the Tarn 2.0 launch.", "the Tarn 2.0 launch"),
        ("We're scrapping the Lisbon offsite.", "the Lisbon offsite"),
        ("They cancelled the June webinar.", "the June webinar"),
        ("we've canceled the Friday demo", "the Friday demo"),
    ],
)
def test_a_thing_the_writers_call_off_is_what_the_claim_is_about(
    extractor: RulesExtractor, text: str, thing: str
) -> None:
    claim = _only(extractor, text)
    assert (claim.subject_text, claim.object_text) == (thing, None)


def test_an_organisation_that_calls_something_off_stays_the_subject(
    extractor: RulesExtractor,
) -> None:
    assert _only(extractor, "Zephyrine Labs has cancelled the move.").subject_text == (
        "Zephyrine Labs"
    )
