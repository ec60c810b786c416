"""World time of text written by others (issue 16): a dated event in the present tense is
scheduled (the next such date, not the last), a weekday before a date does not stop a time of
day joining it, and two times of day joined by a dash are an instant range."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.ingest.extraction.dates import DateResolver
from services.ingest.extraction.rules import RulesExtractor
from tests.support.extracting import SAID, extract


def _window(extractor: RulesExtractor, text: str) -> tuple[datetime | None, datetime | None]:
    (claim,) = extract(extractor, text)
    return claim.claim_valid_from, claim.claim_valid_until


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Note: the Berlin office closes on 24 December.", datetime(2026, 12, 24, tzinfo=UTC)),
        ("We are closing the Lisbon office on 24 December.", datetime(2026, 12, 24, tzinfo=UTC)),
        ("The pilot ends on 30 March.", datetime(2027, 3, 30, tzinfo=UTC)),
        ("The support contract expires in February.", datetime(2027, 2, 1, tzinfo=UTC)),
        # The past tense keeps the last such date.
        ("The Berlin office closed on 24 December.", datetime(2025, 12, 24, tzinfo=UTC)),
    ],
)
def test_a_dated_event_in_the_present_tense_is_scheduled_ahead(
    extractor: RulesExtractor, text: str, day: datetime
) -> None:
    assert _window(extractor, text)[0] == day


@pytest.mark.parametrize(
    ("text", "instant"),
    [
        ("The call moved to 15:30 CET on Thursday 14 May.", datetime(2026, 5, 14, 13, 30)),
        ("Kickoff is at 9am PT on Monday, 11 May.", datetime(2026, 5, 11, 16, 0)),
        ("The vote closes at 18:00 (UTC+1) on Friday 15 May.", datetime(2026, 5, 15, 17, 0)),
    ],
)
def test_a_weekday_before_the_date_does_not_stop_the_time_joining_it(
    text: str, instant: datetime
) -> None:
    window = DateResolver().resolve(text, SAID, "present")
    assert window is not None and window.precision == "instant", window
    assert window.valid_from == instant.replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("The maintenance window is 02:00–04:00 UTC on 9 May.", (2, 0), (4, 0)),
        ("Deploys are frozen from 14:00 to 16:30 CEST on 9 May.", (12, 0), (14, 30)),
        ("The outage lasted 03:10 - 04:40 UTC on 9 May.", (3, 10), (4, 40)),
    ],
)
def test_two_times_of_day_joined_by_a_dash_or_to_are_an_instant_range(
    text: str, start: tuple[int, int], end: tuple[int, int]
) -> None:
    window = DateResolver().resolve(text, SAID, "past")
    assert window is not None, text
    assert (window.valid_from, window.valid_until, window.precision) == (
        datetime(2026, 5, 9, *start, tzinfo=UTC),
        datetime(2026, 5, 9, *end, tzinfo=UTC),
        "instant",
    )


@pytest.mark.parametrize(
    "text",
    [
        "Effective immediately, Tomás Reyes reports to Hanna Berg.",
        "From now on, Ines owns the release checklist.",
        "With immediate effect, Karan Mehta joins the Risk team.",
        "Starting now, the Lisbon team handles tier-2 support.",
    ],
)
def test_a_change_effective_as_it_is_announced_starts_on_the_said_on_day(
    extractor: RulesExtractor, text: str
) -> None:
    assert _window(extractor, text) == (datetime(2026, 6, 2, tzinfo=UTC), None)


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("After the reorganisation in June, the Data team sits under Finance.",
         datetime(2026, 6, 1, tzinfo=UTC)),
        ("Following the merger in March 2025, Dana reported to Mei Tan.",
         datetime(2025, 3, 1, tzinfo=UTC)),
        ("After the restructuring on 1 April, Omar leads the Risk team.",
         datetime(2026, 4, 1, tzinfo=UTC)),
    ],
)  # fmt: skip
def test_a_state_after_a_dated_event_holds_from_the_event_on(
    extractor: RulesExtractor, text: str, start: datetime
) -> None:
    assert _window(extractor, text) == (start, None)


def test_an_event_after_a_dated_event_is_not_given_its_date(extractor: RulesExtractor) -> None:
    assert _window(extractor, "After the outage on 3 May, the team wrote a postmortem.") == (
        None,
        None,
    )


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("Wei is taking over the on-call rota from Bastian starting 6 July.",
         datetime(2026, 7, 6, tzinfo=UTC)),
        ("Noor will lead the Atlas project beginning 1 July.", datetime(2026, 7, 1, tzinfo=UTC)),
        ("Kofi manages the vendor portal starting 8 June.", datetime(2026, 6, 8, tzinfo=UTC)),
    ],
)  # fmt: skip
def test_a_start_clause_hung_on_the_object_dates_the_clause(
    extractor: RulesExtractor, text: str, start: datetime
) -> None:
    assert _window(extractor, text) == (start, None)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("The offsite is in the week of 14 September.", datetime(2026, 9, 14, tzinfo=UTC),
         datetime(2026, 9, 20, tzinfo=UTC)),
        ("From the week of 9 March we'll be working out of the Kreuzberg office.",
         datetime(2027, 3, 9, tzinfo=UTC), None),
        ("Starting the week of 6 July, Dana runs the on-call rota.",
         datetime(2026, 7, 6, tzinfo=UTC), None),
    ],
)  # fmt: skip
def test_the_week_of_a_day_is_that_week(
    extractor: RulesExtractor, text: str, start: datetime, end: datetime | None
) -> None:
    assert _window(extractor, text) == (start, end)
