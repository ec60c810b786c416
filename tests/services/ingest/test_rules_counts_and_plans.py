"""Counts, changes reached by a date, and plans in text written by others (issues 16, 17).

A unit's headcount is the unit's whatever noun carries it ("Support headcount", "headcount in
support"); a value reached "by" a date holds from then on (no deadline); "now … after <event>
in April" began with the event; a light verb's object dates the clause; a month used as a
modifier ("the March reorg") is placed as the rules place a bare month; what "is planned for"
a month lies ahead."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.ingest.extraction.rules import RulesExtractor
from tests.support.extracting import extract


def _on(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


def _only(extractor: RulesExtractor, text: str):  # type: ignore[no-untyped-def]
    (claim,) = extract(extractor, text)
    return claim


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Support headcount grew to 19 in March.", "Support"),
        ("Our support headcount fell to 17 after the layoffs.", "support"),
        ("Headcount in support is 23 as of June.", "support"),
        ("The engineering headcount is 42.", "engineering"),
        ("Payments headcount is now 12.", "Payments"),
    ],
)
def test_a_units_headcount_is_the_units(extractor: RulesExtractor, text: str, subject: str) -> None:
    assert _only(extractor, text).subject_text == subject


@pytest.mark.parametrize(
    "text",
    ["The project budget is 2 million.", "The travel budget was cut to 30,000 euros."],
)
def test_a_kind_of_spending_stays_the_subject(extractor: RulesExtractor, text: str) -> None:
    assert "budget" in (_only(extractor, text).subject_text or "")


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("Support headcount grew to 19 by the end of March.", _on(2026, 3, 31)),
        ("The Payments team grew to 30 people by mid-March.", _on(2026, 3, 20)),
        ("The fee was raised to $15 by March.", _on(2026, 3, 31)),
    ],
)
def test_a_value_reached_by_a_date_holds_from_it(
    extractor: RulesExtractor, text: str, start: datetime
) -> None:
    claim = _only(extractor, text)
    assert (claim.claim_valid_from, claim.claim_valid_until) == (start, None)


def test_a_deadline_stays_a_bound(extractor: RulesExtractor) -> None:
    claim = _only(extractor, "The price will stay at $20 until June.")
    assert claim.claim_valid_from is None and claim.claim_valid_until is not None


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("Payments headcount is now 12 after two new hires in April.", _on(2026, 4, 1)),
        ("The team is now 30 people after the merger with Kestrel in February.", _on(2026, 2, 1)),
        ("Dana now leads Risk after the reorganisation in May.", _on(2026, 5, 1)),
    ],
)
def test_a_state_now_held_after_a_dated_event_began_with_it(
    extractor: RulesExtractor, text: str, start: datetime
) -> None:
    claim = _only(extractor, text)
    assert (claim.claim_valid_from, claim.claim_valid_until) == (start, None)


def test_an_event_after_another_keeps_its_own_day(extractor: RulesExtractor) -> None:
    claim = _only(extractor, "The meeting is after lunch on Friday.")
    assert claim.claim_valid_from == claim.claim_valid_until == _on(2026, 6, 5)


@pytest.mark.parametrize(
    ("text", "month"),
    [
        ("We reached an agreement with Kestrel in May.", _on(2026, 5, 1)),
        ("Orrin signed a three-year contract with Lumio in March 2025.", _on(2025, 3, 1)),
        ("The board made the decision in January.", _on(2026, 1, 1)),
    ],
)
def test_the_object_of_a_light_verb_dates_the_clause(
    extractor: RulesExtractor, text: str, month: datetime
) -> None:
    assert _only(extractor, text).claim_valid_from == month


@pytest.mark.parametrize(
    "text",
    [
        "Following the March reorg, Omar now reports to Ines.",
        "Since the March reorg, Omar reports to Ines.",
        "After the March reorg, the Data team sits under Finance.",
    ],
)
def test_a_month_modifying_the_event_a_state_followed_lies_behind(
    extractor: RulesExtractor, text: str
) -> None:
    assert _only(extractor, text).claim_valid_from == _on(2026, 3, 1)


@pytest.mark.parametrize(
    "text",
    [
        "The offsite is planned for March.",
        "Fieldwork for the Lisbon study is scheduled for March.",
        "The audit is expected in March.",
    ],
)
def test_what_is_planned_for_a_month_lies_ahead(extractor: RulesExtractor, text: str) -> None:
    assert _only(extractor, text).claim_valid_from == _on(2027, 3, 1)


def test_a_target_to_reach_by_a_date_keeps_its_deadline(extractor: RulesExtractor) -> None:
    claim = _only(extractor, "KR2: reduce p95 checkout latency from 900 ms to 400 ms by end of Q1.")
    assert claim.claim_valid_from is None and claim.claim_valid_until is not None


@pytest.mark.parametrize(
    "text",
    [
        "Reception is on the 3rd floor.",
        "The team sits on the 2nd floor of the Berlin office.",
        "Lumio came in on the 1st place in the ranking.",
    ],
)
def test_an_ordinal_before_a_noun_is_no_day(extractor: RulesExtractor, text: str) -> None:
    assert all(c.claim_valid_from is None for c in extract(extractor, text))


@pytest.mark.parametrize(
    ("text", "day"),
    [("She joined on the 2nd.", 2), ("The invoice is due on the 15th of June.", 15)],
)
def test_an_ordinal_day_is_still_a_date(extractor: RulesExtractor, text: str, day: int) -> None:
    (claim,) = extract(extractor, text)
    assert claim.claim_valid_from is not None and claim.claim_valid_from.day == day


@pytest.mark.parametrize(
    ("text", "unit", "tool"),
    [
        ("We moved Platform Engineering from Jira to Linear in March.", "Platform Engineering",
         "Linear"),
        ("In May we switched Customer Support from Zendesk to Intercom.", "Customer Support",
         "Intercom"),
        ("Last month we moved Data Engineering from Airflow to Dagster.", "Data Engineering",
         "Dagster"),
    ],
)  # fmt: skip
def test_a_unit_moved_between_tools_migrates(
    extractor: RulesExtractor, text: str, unit: str, tool: str
) -> None:
    (claim,) = extract(extractor, text)
    assert (claim.subject_text, claim.predicate_text, claim.object_text) == (
        unit,
        "migrate to",
        tool,
    )
