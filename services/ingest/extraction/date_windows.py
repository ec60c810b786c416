"""How the date atoms of a clause combine into its world-time window (`dates`): a range
between two ("from 8 to 12 June", "22:00 to 02:00 CEST"), a state's start or bound ("since
March", "until Friday", "from the week of 9 March"), or a point, the finer of two nested
readings ("Q1 close-out … on 31 March")."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Literal

from services.ingest.extraction.calendar_picks import shift_months
from services.ingest.extraction.date_atoms import Atom, Precision, utc
from shared.text.temporal import (
    BEFORE_RE,
    FROM_RE,
    JOIN_RE,
    NUMBERS,
    ORDER,
    SINCE_RE,
    UNTIL_RE,
)

__all__ = ["TimeWindow", "combine", "for_a_stretch"]

Shape = Literal["point", "since", "until", "range"]
_WEEK_OF = re.compile(r"\b(?:the\s+)?week\s+(?:of|commencing|beginning|starting)\s*$", re.I)


@dataclass(frozen=True)
class TimeWindow:
    """A resolved world-time window; `valid_until` is the inclusive last day (or instant)."""

    valid_from: datetime | None
    valid_until: datetime | None
    precision: Precision
    shape: Shape
    start: int
    end: int


def combine(text: str, atoms: list[Atom], reschedule: bool = False) -> TimeWindow:
    for a, b in itertools.pairwise(atoms):
        if JOIN_RE.match(text[a.end : b.start]) and (
            FROM_RE.search(text[: a.start]) or text[a.end : b.start].strip() in ("-", "–")
        ):
            if reschedule:  # "moved from June 8 to June 9": the new date is the one that holds
                return _point(b)
            first = a.first
            if not a.year_given and b.year_given and first.year != b.first.year:
                # "from March to June 2026": the start borrows the end's year
                first = first.replace(year=b.first.year)
            precision = max(a.precision, b.precision, key=lambda p: ORDER.get(p, 0))
            if a.instant is not None and b.instant is not None:  # "02:00–04:00 UTC on 9 May"
                # "from 22:00 to 02:00 CEST on 30 May": a range that ends before it starts
                # runs past midnight.
                end = b.instant if b.instant > a.instant else b.instant + timedelta(days=1)
                return TimeWindow(a.instant, end, "instant", "range", a.start, b.end)
            last = b.last
            if b.precision == "day" and timedelta(0) < a.first - last < timedelta(days=7):
                # "from mon thru fri" said on a Tuesday: the Friday after that Monday.
                last += timedelta(days=7)
            return TimeWindow(utc(first), utc(last), precision, "range", a.start, b.end)
    a = atoms[-1] if reschedule and len(atoms) > 1 else atoms[0]
    # "Q1 close-out: headcount stood at 47 on 31 March": a date inside the period named first
    # is the finer reading of it.
    finer = [b for b in atoms[1:] if a.first <= b.first and b.last <= a.last and _finer(b, a)]
    a = finer[0] if finer and not reschedule else a
    if a.is_range and reschedule:  # "the demo moved from 8 to 9 June": the new day holds
        return TimeWindow(utc(a.last), utc(a.last), "day", "point", a.start, a.end)
    if a.is_range:
        return TimeWindow(utc(a.first), utc(a.last), a.precision, "range", a.start, a.end)
    before = text[: a.start]
    week = _WEEK_OF.search(before) if a.precision == "day" and a.instant is None else None
    if week is not None:
        # "the week of 9 March" is that week; "from the week of 9 March" starts with it.
        before, last = before[: week.start()], a.first + timedelta(days=6)
        if not SINCE_RE.search(before) and not UNTIL_RE.search(before):
            return TimeWindow(utc(a.first), utc(last), "day", "range", a.start, a.end)
        a = replace(a, last=last)
    if SINCE_RE.search(before):
        start = a.instant or utc(a.first)
        return TimeWindow(start, None, "open", "since", a.start, a.end)
    if reschedule:  # "postponed until 3 June": the new date, not the end of something
        return _point(a)
    if UNTIL_RE.search(before):
        end = a.instant or utc(a.last)
        return TimeWindow(None, end, a.precision, "until", a.start, a.end)
    if BEFORE_RE.search(before):
        end = a.instant or utc(a.first - timedelta(days=1))
        return TimeWindow(None, end, a.precision, "until", a.start, a.end)
    return _point(a)


def _finer(inner: Atom, outer: Atom) -> bool:
    return ORDER.get(inner.precision, 0) < ORDER.get(outer.precision, 0)


def _point(a: Atom) -> TimeWindow:
    if a.instant is not None:
        return TimeWindow(a.instant, a.instant, "instant", "point", a.start, a.end)
    return TimeWindow(utc(a.first), utc(a.last), a.precision, "point", a.start, a.end)


# "for two weeks starting 10 June", "for three days from Monday", "for the next two weeks": a
# stretch a state lasts from its start.
_FOR_STRETCH = re.compile(
    r"\bfor\s+(?:the\s+)?(?P<ahead>(?:next|coming)\s+)?(?P<num>\d{1,3}|an?|one|two|three|four|"
    r"five|six|seven|eight|nine|ten)\s+(?P<unit>day|week|month)s?\b",
    re.IGNORECASE,
)
_UNIT_DAYS = {"day": 1, "week": 7}


def for_a_stretch(
    text: str, window: TimeWindow | None, today: datetime | None
) -> TimeWindow | None:
    """`window` bounded by a stretch the clause states: a start with no end lasts the stretch
    ("in Porto for two weeks starting 10 June" ends on 23 June), and "for the next two weeks"
    with no date runs from `today`. Otherwise `window` as it was."""
    match = _FOR_STRETCH.search(text)
    if match is None:
        return window
    raw = match.group("num").lower()
    count, unit = (int(raw) if raw.isdigit() else NUMBERS[raw]), match.group("unit").lower()

    def last_day(start: datetime) -> datetime:
        if unit == "month":  # "for 12 months from 1 May": to 30 April
            end = shift_months(start.date(), count)
            return datetime(end.year, end.month, end.day, tzinfo=start.tzinfo) - timedelta(days=1)
        return start + timedelta(days=count * _UNIT_DAYS[unit] - 1)

    if window is None:
        if not match.group("ahead") or today is None:
            return None
        start = today.replace(hour=0, minute=0, second=0, microsecond=0)
        return TimeWindow(start, last_day(start), "day", "range", match.start(), match.end())
    if window.valid_from is None or window.valid_until is not None:
        return window
    return replace(window, valid_until=last_day(window.valid_from), precision="day", shape="range")
