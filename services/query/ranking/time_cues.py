"""Calendar dates a query names ("on October 13, 2023", "in May 2023", "in June"): a ranking cue.

A question that names when something happened is best answered by what was said around then, so
ClaimsAndSourcesContext ranks candidates said inside the named period higher (ranking/claims.py).
The cue only orders candidates, never filters them: the explicit time scope of a request is
the filter. Only absolute dates are read; "last week" in a question has no anchor to resolve
against, and a wrong period would push the answer down.
"""

from __future__ import annotations

import calendar
import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

__all__ = ["TimeCue", "asks_when", "time_cues"]

_MONTHS = {
    name.lower(): number
    for number in range(1, 13)
    for name in (calendar.month_name[number], calendar.month_abbr[number])
} | {"sept": 9}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
# Without a year or day beside it, only a full month name is read: "Jan" and "Mar" are names too.
_FULL_MONTH = r"(?P<month>" + "|".join(calendar.month_name[1:]) + r")"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
# Most specific first; a span one pattern took is not read again by the next.
_PATTERNS = [
    re.compile(rf"\b{_YEAR}-(?P<month_n>[01]\d)-{_DAY}\b"),
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{_FULL_MONTH}\s+{_DAY}\b(?!\s*[:.]\d)"),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_FULL_MONTH}\b"),
    re.compile(
        rf"\b(?:[Ii]n|[Dd]uring|[Ss]ince|[Uu]ntil|[Bb]y|of|early|late|mid)\s+{_FULL_MONTH}\b"
    ),
    re.compile(rf"\b(?:in|during|of)\s+{_YEAR}\b", re.IGNORECASE),
]
# What was said this long after a period still tells of it ("last Friday", said a few days on).
_REPORTING_LAG = timedelta(days=10)
# A question for a time: "When did ...", "What year ...", "How long ago ...", "In which month ...".
_ASKS_WHEN = re.compile(
    r"^\W*(?:when|how long ago|since when"
    r"|(?:in |on |at )?(?:what|which) (?:date|day|time|year|month|week))(?![\w-])",
    re.IGNORECASE,
)
# "may" is a month only when capitalised: "what may Dana do" names no date.
_LOWERCASE_MAY = re.compile(r"\bmay\b")


@dataclass(frozen=True, slots=True)
class TimeCue:
    """A named day, month or year; `year` None means that day or month in any year."""

    year: int | None
    month: int | None = None
    day: int | None = None

    def covers(self, said_at: datetime) -> bool:
        """Whether something said at `said_at` was said in the period or shortly after it."""
        years = [self.year] if self.year is not None else [said_at.year, said_at.year - 1]
        for year in years:
            period = _period(self, year)
            if period is not None and period[0] <= said_at < period[1] + _REPORTING_LAG:
                return True
        return False


@functools.lru_cache(maxsize=1024)
def _period(cue: TimeCue, year: int) -> tuple[datetime, datetime] | None:
    """The cue's period in `year` (None for a day that year lacks, such as February 30th).
    Cached (bounded: queries keep naming new dates): a ranking asks it for every candidate."""
    try:
        if cue.month is None:
            return datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)
        if cue.day is not None:
            start = datetime(year, cue.month, cue.day, tzinfo=UTC)
            return start, start + timedelta(days=1)
        start = datetime(year, cue.month, 1, tzinfo=UTC)
    except ValueError:
        return None
    return start, (start + timedelta(days=31)).replace(day=1)


def time_cues(query: str) -> list[TimeCue]:
    """The absolute dates `query` names, most specific reading of each span only."""
    taken: list[tuple[int, int]] = []
    cues: list[TimeCue] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(query):
            span = match.span()
            if any(span[0] < end and start < span[1] for start, end in taken):
                continue
            groups = match.groupdict()
            month_text = groups.get("month")
            if month_text is not None and _LOWERCASE_MAY.fullmatch(month_text):
                continue
            month = int(groups["month_n"]) if groups.get("month_n") else None
            if month_text is not None:
                month = _MONTHS[month_text.lower().rstrip(".")]
            day = int(groups["day"]) if groups.get("day") else None
            year = int(groups["year"]) if groups.get("year") else None
            if not 1 <= (month or 1) <= 12 or not 1 <= (day or 1) <= 31:
                continue
            taken.append(span)
            cues.append(TimeCue(year, month, day))
    return cues


def asks_when(query: str) -> bool:
    """Whether the query asks for the time something happened."""
    return _ASKS_WHEN.search(query) is not None
