"""Relative and absolute date resolution against the said-on time."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from services.ingest.extraction.dates import DateResolver

MONDAY = datetime(2026, 1, 12, 15, 0, tzinfo=UTC)
SATURDAY = datetime(2026, 1, 17, 9, 0, tzinfo=UTC)


def _window(text: str, said_on: datetime = MONDAY, tense: str = "present") -> tuple[object, ...]:
    w = DateResolver().resolve(text, said_on, tense)  # type: ignore[arg-type]
    assert w is not None, text
    return (
        w.valid_from.date() if w.valid_from else None,
        w.valid_until.date() if w.valid_until else None,
        w.precision,
    )


@pytest.mark.parametrize(
    ("text", "tense", "expected"),
    [
        ("I went there yesterday", "past", (date(2026, 1, 11), date(2026, 1, 11), "day")),
        ("we launched in June", "past", (date(2025, 6, 1), date(2025, 6, 30), "month")),
        ("we will launch in June", "future", (date(2026, 6, 1), date(2026, 6, 30), "month")),
        ("GA slips to Q3 2026", "present", (date(2026, 7, 1), date(2026, 9, 30), "quarter")),
        ("it shipped in 2025", "past", (date(2025, 1, 1), date(2025, 12, 31), "year")),
        ("it broke last Friday", "past", (date(2026, 1, 9), date(2026, 1, 9), "day")),
        ("signed on June 8", "past", (date(2025, 6, 8), date(2025, 6, 8), "day")),
        ("due 2026-02-03", "present", (date(2026, 2, 3), date(2026, 2, 3), "day")),
        (
            "it ran from March to June 2026",
            "present",
            (date(2026, 3, 1), date(2026, 6, 30), "month"),
        ),
        ("it closed two weeks ago", "past", (date(2025, 12, 29), date(2025, 12, 29), "day")),
        ("churn was 3% last quarter", "past", (date(2025, 10, 1), date(2025, 12, 31), "quarter")),
        ("paid at the end of the month", "future", (date(2026, 1, 31), date(2026, 1, 31), "day")),
    ],
)
def test_phrase_resolves_against_said_on(
    text: str, tense: str, expected: tuple[object, ...]
) -> None:
    assert _window(text, tense=tense) == expected


def test_next_weekday_said_on_monday_is_in_the_following_week() -> None:
    # Policy: "next Tuesday" is the Tuesday of the calendar week after the said-on week,
    # so on Monday 12 Jan it is 20 Jan, not the next day.
    assert _window("we meet next Tuesday", MONDAY, "future")[0] == date(2026, 1, 20)


def test_next_weekday_said_on_saturday_is_in_the_following_week() -> None:
    assert _window("we meet next Tuesday", SATURDAY, "future")[0] == date(2026, 1, 20)


def test_this_and_coming_weekday_follow_the_policy() -> None:
    assert _window("the review is this Thursday", MONDAY)[0] == date(2026, 1, 15)
    assert _window("the review is on Tuesday", MONDAY, "future")[0] == date(2026, 1, 13)


def test_last_weekday_on_that_weekday_is_one_week_back() -> None:
    friday = datetime(2026, 1, 16, tzinfo=UTC)
    assert _window("it broke last Friday", friday, "past")[0] == date(2026, 1, 9)


def test_since_month_is_open_ended_and_points_back() -> None:
    w = DateResolver().resolve("she has worked here since March", MONDAY, "present")
    assert w is not None
    assert w.valid_from == datetime(2025, 3, 1, tzinfo=UTC)
    assert w.valid_until is None
    assert (w.precision, w.shape) == ("open", "since")


def test_until_sets_only_the_inclusive_end() -> None:
    w = DateResolver().resolve("the beta stays open until June 30, 2026", MONDAY)
    assert w is not None
    assert (w.valid_from, w.valid_until) == (None, datetime(2026, 6, 30, tzinfo=UTC))


def test_iso_timestamp_is_an_instant() -> None:
    w = DateResolver().resolve("resolved at 2026-01-10T14:30Z", MONDAY)
    assert w is not None
    assert w.precision == "instant"
    assert w.valid_from == datetime(2026, 1, 10, 14, 30, tzinfo=UTC)


@pytest.mark.parametrize("text", ["the API returns JSON", "I may go", "the May release notes"])
def test_text_without_a_date_resolves_to_nothing(text: str) -> None:
    assert DateResolver().resolve(text, MONDAY, "past") is None


@pytest.mark.parametrize(
    ("text", "phrase"), [("it lasted four hours", "four hours"), ("we talked recently", "recently")]
)
def test_durations_and_vague_phrases_stay_undated(text: str, phrase: str) -> None:
    start = text.index(phrase)
    assert DateResolver().resolve(text, MONDAY, "past", [(start, start + len(phrase))]) is None


def test_relative_phrase_without_said_on_is_not_resolved() -> None:
    assert DateResolver().resolve("I went there yesterday", None, "past") is None
    assert _window("it shipped in 2025", tense="past")[2] == "year"


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("The vendor demo is on Tuesday 17 March 2026.", date(2026, 3, 17)),
        ("Kickoff is Thursday, 2 April.", date(2026, 4, 2)),
        ("We ship on Fri 27 March 2026.", date(2026, 3, 27)),
    ],
)
def test_a_weekday_written_before_a_date_names_that_date(text: str, day: date) -> None:
    # The weekday labels the date after it; resolved alone it would be this week's.
    window = DateResolver().resolve(text, MONDAY)
    assert window is not None
    assert (window.valid_from, window.valid_until, window.precision) == (
        datetime(day.year, day.month, day.day, tzinfo=UTC),
        datetime(day.year, day.month, day.day, tzinfo=UTC),
        "day",
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("worked at Globex between 2019 and 2022", (date(2019, 1, 1), date(2022, 12, 31), "year")),
        (
            "was on the team between March and August 2025",
            (date(2025, 3, 1), date(2025, 8, 31), "month"),
        ),
        ("closed between 3 June and 5 July 2025", (date(2025, 6, 3), date(2025, 7, 5), "day")),
    ],
)
def test_between_two_dates_is_the_range_they_bound(text: str, expected: tuple[object, ...]) -> None:
    assert _window(text, tense="past") == expected


def test_between_two_names_is_no_range() -> None:
    # "between Ana and Bo in May": the month dates the clause, the names bound nothing
    assert _window("a call between Ana and Bo in May", tense="past") == (
        date(2025, 5, 1),
        date(2025, 5, 31),
        "month",
    )


MAY_20 = datetime(2026, 5, 20, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "tense", "until"),
    [
        ("Kafka stays until Q1", "present", date(2027, 3, 31)),
        ("the office is closed until March", "present", date(2027, 3, 31)),
        ("the old price holds until 1 March", "present", date(2027, 3, 1)),
        ("headcount was 10 until March", "past", date(2026, 3, 31)),
    ],
)
def test_a_bound_ahead_in_the_present_tense_is_the_next_one(
    text: str, tense: str, until: date
) -> None:
    assert _window(text, MAY_20, tense)[1] == until


@pytest.mark.parametrize(
    ("text", "tense", "first"),
    [
        ("we will ship in Q1", "future", date(2027, 1, 1)),
        ("we shipped it in Q3", "past", date(2025, 7, 1)),
        ("GA is in Q3", "present", date(2026, 7, 1)),
    ],
)
def test_a_quarter_without_a_year_follows_the_tense_as_a_month_does(
    text: str, tense: str, first: date
) -> None:
    assert _window(text, MAY_20, tense)[0] == first


@pytest.mark.parametrize(
    ("text", "tense", "expected"),
    [
        ("we used Excel until last spring", "past", (None, date(2025, 5, 31), "month")),
        ("we launch this summer", "future", (date(2026, 6, 1), date(2026, 8, 31), "month")),
        ("it moves next winter", "future", (date(2026, 12, 1), date(2027, 2, 28), "month")),
    ],
)
def test_a_season_named_relative_to_now_is_that_season(
    text: str, tense: str, expected: tuple[object, ...]
) -> None:
    assert _window(text, MAY_20, tense) == expected


@pytest.mark.parametrize(
    ("text", "tense", "expected"),
    [
        # a part of a relative period is that part, never the whole period
        ("early next year we move to the new building", "present",
         (date(2027, 1, 1), date(2027, 1, 31), "month")),
        ("the audit closes late this month", "future",
         (date(2026, 1, 21), date(2026, 1, 31), "day")),
        ("hiring resumes mid next quarter", "future",
         (date(2026, 5, 1), date(2026, 5, 31), "month")),
        # a fronted "in N weeks" is a date ahead, also with a present-tense verb
        ("In two weeks the contract expires", "present",
         (date(2026, 1, 26), date(2026, 1, 26), "day")),
        ("In three days the office reopens", "present",
         (date(2026, 1, 15), date(2026, 1, 15), "day")),
    ],
)  # fmt: skip
def test_parts_of_relative_periods_and_fronted_offsets(
    text: str, tense: str, expected: tuple[object, ...]
) -> None:
    assert _window(text, tense=tense) == expected


@pytest.mark.parametrize(
    "text", ["the report is produced in two weeks", "onboarding takes place in three days"]
)
def test_an_offset_after_a_present_verb_is_a_duration(text: str) -> None:
    assert DateResolver().resolve(text, MONDAY, "present") is None


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("the new pricing takes effect on the first of August", date(2026, 8, 1)),
        ("the offsite is on the twenty-first of May", date(2026, 5, 21)),
        ("the freeze starts on the third of March", date(2026, 3, 3)),
        ("the board meets on the twelfth of February", date(2026, 2, 12)),
    ],
)
def test_a_day_of_the_month_in_words_is_that_day(text: str, day: date) -> None:
    assert _window(text, tense="future") == (day, day, "day")


def test_an_ordinal_that_is_no_day_dates_nothing() -> None:
    assert DateResolver().resolve("the second of the three options", MONDAY) is None


@pytest.mark.parametrize(
    ("text", "tense", "expected"),
    [
        # whole months joined by a dash or "to", with no "from" before them
        ("the pilot runs March-May", "present", (date(2026, 3, 1), date(2026, 5, 31), "month")),
        ("sales were flat Jan–Mar 2025", "past", (date(2025, 1, 1), date(2025, 3, 31), "month")),
        ("the freeze lasts Nov to Feb", "future", (date(2026, 11, 1), date(2027, 2, 28), "month")),
        (
            "budget covers Oct 2025 through Jan 2026",
            "present",
            (date(2025, 10, 1), date(2026, 1, 31), "month"),
        ),
        # halves of a year
        ("hiring resumes in H2", "future", (date(2026, 7, 1), date(2026, 12, 31), "quarter")),
        ("the target for 1H27 is 40", "present", (date(2027, 1, 1), date(2027, 6, 30), "quarter")),
        (
            "growth slowed in the first half of 2025",
            "past",
            (date(2025, 1, 1), date(2025, 6, 30), "quarter"),
        ),
        (
            "we open Lisbon in the second half of next year",
            "future",
            (date(2027, 7, 1), date(2027, 12, 31), "quarter"),
        ),
        # a fiscal label restated in calendar terms in brackets is the bracket's period
        (
            "revenue for Q4 FY26 (April–June 2026) was EUR 4.2m",
            "past",
            (date(2026, 4, 1), date(2026, 6, 30), "month"),
        ),
        (
            "in Q1 FY27 (Jul-Sep 2026) we hire four people",
            "future",
            (date(2026, 7, 1), date(2026, 9, 30), "month"),
        ),
        (
            "H1 FY2027 (October 2026 to March 2027) closes the gap",
            "future",
            (date(2026, 10, 1), date(2027, 3, 31), "month"),
        ),
    ],
)
def test_month_spans_halves_and_restated_fiscal_periods(
    text: str, tense: str, expected: tuple[object, ...]
) -> None:
    assert _window(text, datetime(2026, 6, 2, 9, 0, tzinfo=UTC), tense) == expected


@pytest.mark.parametrize(
    "text",
    ["the migration took 2h", "the job runs every 2h", "May 5 to May 9 works for us"],
)
def test_hours_and_day_ranges_are_no_halves_or_month_spans(text: str) -> None:
    window = DateResolver().resolve(text, datetime(2026, 6, 2, 9, 0, tzinfo=UTC), "present")
    assert window is None or window.precision != "quarter"
    assert window is None or window.valid_from != datetime(2026, 5, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a past verb setting a bound or a date ahead: the nearest reading, not last year's
        ("we froze all travel until July", (None, date(2026, 7, 31), "month")),
        ("the launch was confirmed for 12 May", (date(2026, 5, 12), date(2026, 5, 12), "day")),
        ("hiring was paused till June", (None, date(2026, 6, 30), "month")),
        # ... and behind, when that is nearer
        ("I worked at Acme until March", (None, date(2026, 3, 31), "month")),
        ("the review was booked for 20 March", (date(2026, 3, 20), date(2026, 3, 20), "day")),
    ],
)
def test_a_past_verb_s_bound_or_booked_date_is_the_nearest(
    text: str, expected: tuple[object, ...]
) -> None:
    assert _window(text, datetime(2026, 4, 1, 9, 0, tzinfo=UTC), "past") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # chat's short weekdays after a word that makes them a time (said on Tuesday 2 June)
        ("i can take primary from wed", (date(2026, 6, 3), None, "open")),
        ("ooo from mon thru fri", (date(2026, 6, 8), date(2026, 6, 12), "day")),
        ("pls ship it by fri", (None, date(2026, 6, 5), "day")),
        ("next thu works for me", (date(2026, 6, 11), date(2026, 6, 11), "day")),
    ],
)
def test_a_short_weekday_after_its_lead_word_is_that_day(
    text: str, expected: tuple[object, ...]
) -> None:
    assert _window(text, datetime(2026, 6, 2, 9, 0, tzinfo=UTC)) == expected


@pytest.mark.parametrize("text", ["the sun is out", "we sat on the panel", "wed works"])
def test_a_short_weekday_without_a_lead_word_is_no_date(text: str) -> None:
    assert DateResolver().resolve(text, datetime(2026, 6, 2, 9, 0, tzinfo=UTC), "present") is None


@pytest.mark.parametrize(
    ("text", "tense", "day"),
    [
        ("The audit is on 05/14/2026.", "future", date(2026, 5, 14)),
        ("The audit is on 14/05/2026.", "future", date(2026, 5, 14)),
        ("back in the office on 9/14", "future", date(2026, 9, 14)),
        ("Invoice 12/31/25 was paid", "past", date(2025, 12, 31)),
        ("the kickoff moved to 23/2", "present", date(2026, 2, 23)),
    ],
)
def test_a_numeric_date_is_read_when_one_number_can_be_no_month(
    text: str, tense: str, day: date
) -> None:
    assert _window(text, tense=tense) == (day, day, "day")


@pytest.mark.parametrize(
    "text",
    [
        "The audit is on 03/04/2026.",  # March 4 or 3 April: left undated
        "we offer 24/7 support",
        "about 1/3 of the team",
        "the split is 50/50",
    ],
)
def test_an_ambiguous_numeric_date_or_a_ratio_is_no_date(text: str) -> None:
    assert DateResolver().resolve(text, MONDAY, "present") is None


THURSDAY = datetime(2026, 4, 2, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "tense", "expected"),
    [
        (
            "I'll be in Porto for two weeks starting 10 June",
            "future",
            (date(2026, 6, 10), date(2026, 6, 23), "day"),
        ),
        (
            "Omar is out for three days from Monday",
            "present",
            (date(2026, 4, 6), date(2026, 4, 8), "day"),
        ),
        (
            "the contract runs for 12 months from 1 May",
            "present",
            (date(2026, 5, 1), date(2027, 4, 30), "day"),
        ),
        (
            "She is on leave for the next two weeks",
            "present",
            (date(2026, 4, 2), date(2026, 4, 15), "day"),
        ),
    ],
)
def test_a_stated_stretch_bounds_a_start(
    text: str, tense: str, expected: tuple[object, ...]
) -> None:
    assert _window(text, THURSDAY, tense) == expected


def test_a_stretch_alone_is_no_date() -> None:
    assert DateResolver().resolve("I waited for two days", THURSDAY, "past") is None


@pytest.mark.parametrize(
    ("said_on", "first"),
    [(THURSDAY, date(2026, 4, 4)), (datetime(2026, 4, 4, 9, 0, tzinfo=UTC), date(2026, 4, 11))],
)
def test_this_coming_weekend_is_the_next_one_ahead(said_on: datetime, first: date) -> None:
    assert _window("we are off this coming weekend", said_on, "future")[0] == first
