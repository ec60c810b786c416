"""Dates a query names, read as ranking cues (services/query/ranking/time_cues.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.query.ranking.time_cues import TimeCue, asks_when, time_cues


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What painting did Mel show on October 13, 2023?", [TimeCue(2023, 10, 13)]),
        ("What did Gina find on 1 February, 2023?", [TimeCue(2023, 2, 1)]),
        ("What happened on the 3rd of June 2023?", [TimeCue(2023, 6, 3)]),
        ("What did Jan say on 2023-05-04?", [TimeCue(2023, 5, 4)]),
        ("What was Dave doing in the first weekend of October 2023?", [TimeCue(2023, 10)]),
        ("What did they plan for Sept. 2024?", [TimeCue(2024, 9)]),
        ("When did Melanie go camping in June?", [TimeCue(None, 6)]),
        ("How often did she swim in 2023?", [TimeCue(2023)]),
        ("Between March 2023 and May 2023, what changed?", [TimeCue(2023, 3), TimeCue(2023, 5)]),
    ],
)
def test_absolute_dates_are_read_at_their_most_specific(
    query: str, expected: list[TimeCue]
) -> None:
    assert time_cues(query) == expected


@pytest.mark.parametrize(
    "query",
    [
        "What may Dana do next?",  # a verb, not the month
        "What did Jan tell Mar about the launch?",  # names, not abbreviated months
        "What did Ravi say last week?",  # relative: nothing to anchor it to
        "Which of the 2023 releases shipped?",  # a year as a label, not a period asked about
    ],
)
def test_words_that_only_look_like_dates_name_none(query: str) -> None:
    assert time_cues(query) == []


def test_a_period_covers_what_was_said_in_it_and_shortly_after() -> None:
    may = TimeCue(2023, 5)
    assert may.covers(datetime(2023, 5, 1, tzinfo=UTC))
    assert may.covers(datetime(2023, 6, 5, tzinfo=UTC))  # "last week" said early in June
    assert not may.covers(datetime(2023, 6, 20, tzinfo=UTC))
    assert not may.covers(datetime(2023, 4, 30, tzinfo=UTC))
    assert not TimeCue(2024, 5).covers(datetime(2023, 5, 10, tzinfo=UTC))


def test_a_month_without_a_year_covers_it_in_any_year_and_across_new_year() -> None:
    december = TimeCue(None, 12)
    assert december.covers(datetime(2021, 12, 24, tzinfo=UTC))
    assert december.covers(datetime(2024, 1, 3, tzinfo=UTC))
    assert not december.covers(datetime(2024, 1, 30, tzinfo=UTC))


def test_an_impossible_day_covers_nothing() -> None:
    (cue,) = time_cues("What did she do on February 30, 2023?")
    assert not cue.covers(datetime(2023, 3, 1, tzinfo=UTC))


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("When did Caroline go to the support group?", True),
        ("when is the launch", True),
        ("How long ago did Ravi join?", True),
        ("In which year did Maria move?", True),
        ("What month did the outage happen?", True),
        ("What did Caroline say when she arrived?", False),
        ("Where did Audrey get Pixie from?", False),
        ("What time-saving tools does Ravi use?", False),
    ],
)
def test_asks_when_reads_a_question_for_a_time(query: str, expected: bool) -> None:
    assert asks_when(query) is expected
