"""The pieces a date phrase resolves to before they combine into a window (`dates`): a day,
month, quarter or year, or a time of day waiting for its day; and the two ways pieces join
before combining: a weekday labelling the date after it, a time of day joining its day."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Literal

from services.ingest.extraction.calendar_picks import Tense, pick_year
from services.ingest.extraction.clock import read_clock
from shared.text.temporal import JOIN_RE, WEEKDAYS

__all__ = [
    "Atom",
    "Precision",
    "attach_clocks",
    "clock_atom",
    "numeric_atom",
    "utc",
    "without_weekday_labels",
]

Precision = Literal["unknown", "instant", "day", "month", "quarter", "year", "open"]


@dataclass(frozen=True)
class Atom:
    first: date
    last: date
    precision: Precision
    start: int
    end: int
    instant: datetime | None = None
    year_given: bool = True
    # A time of day without a date ("16:30 (UTC+2)"): (hour, minute, zone) for `_combine`.
    clock: tuple[int, int, Any] | None = None
    # Both ends in one phrase ("21 to 27 September"): a range whatever precedes it.
    is_range: bool = False


def utc(d: date) -> datetime:
    """Midnight UTC of a day."""
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def clock_atom(g: dict[str, str], s: int, e: int) -> Atom | None:
    """A time of day; only a date in the same clause makes it an instant (see `_combine`)."""
    clock = read_clock(g)
    if clock is None:
        return None
    placeholder = date(1, 1, 1)
    return Atom(placeholder, placeholder, "instant", s, e, clock=clock)


def attach_clocks(text: str, atoms: list[Atom], today: date | None = None) -> list[Atom]:
    """Join each time of day to the clause's one day ("16:30 (UTC+2) on 14 May" is an instant
    in UTC), and two joined as a range ("02:00–04:00 UTC on 9 May") each, the zone written
    after the second holding for both. A time of day without a day states no date and is
    dropped, but for a state's bound ("red since 09:10 UTC", "green again as of 14:30"): that
    is the day it is said on, as "today" would be."""
    clocks = [a for a in atoms if a.clock is not None]
    if not clocks:
        return atoms
    days = [a for a in atoms if a.clock is None and a.precision == "day" and a.first == a.last]
    if (
        not days
        and today is not None
        and len(clocks) == 1
        and _BOUND.search(text[: clocks[0].start])
    ):
        days = [Atom(today, today, "day", clocks[0].start, clocks[0].start)]
        atoms = [*atoms, days[0]]
    rest = [a for a in atoms if a.clock is None]
    ranged = len(clocks) == 2 and bool(JOIN_RE.match(text[clocks[0].end : clocks[1].start]))
    if len(days) != 1 or not (len(clocks) == 1 or ranged):
        return rest
    (day,) = days
    joined = []
    for clock in clocks:
        assert clock.clock is not None
        hour, minute, zone = clock.clock
        if ranged and zone is UTC:
            zone = clocks[-1].clock[2] if clocks[-1].clock else zone
        local = datetime(day.first.year, day.first.month, day.first.day, hour, minute, tzinfo=zone)
        last = clock is clocks[-1]
        span = (
            (min(day.start, clock.start), max(day.end, clock.end))
            if last
            else (clock.start, clock.end)
        )
        joined.append(
            Atom(day.first, day.last, "instant", *span, local.astimezone(UTC), day.year_given)
        )
    return [a for a in rest if a is not day] + joined


# The words before a time of day that make it a state's bound.
_BOUND = re.compile(r"\b(?:since|as\s+of|until|till|from|starting(?:\s+at)?)\s*$", re.I)


def without_weekday_labels(text: str, atoms: list[Atom]) -> list[Atom]:
    """ "on Tuesday 17 June 2025", "Thursday, 3 April": the weekday names the date written
    after it, it is no date of its own (resolved from the said-on day it was a week early)."""
    kept = []
    for a, b in itertools.zip_longest(atoms, atoms[1:]):
        words = text[a.start : a.end].lower().replace(",", " ").split()
        weekday = bool(words) and words[-1] in WEEKDAYS
        if (
            weekday
            and b is not None
            and b.precision == "day"
            and not text[a.end : b.start].strip(" ,")
        ):
            continue
        kept.append(a)
    return kept


def numeric_atom(
    g: dict[str, str], s: int, e: int, today: date | None, tense: Tense
) -> Atom | None:
    """A numeric date whose order its numbers give away: a first number over 12 is the day
    ("14/05/2026"), a second one over 12 is ("05/14/2026", "9/14"). Both 12 or under: no date."""
    if "dm_d" in g:
        day, mo = int(g["dm_d"]), int(g["dm_m"])
    else:
        mo, day = int(g["md_m"]), int(g["md_d"])
    year_text = g.get("ny")
    if year_text:
        y = int(year_text) if len(year_text) == 4 else 2000 + int(year_text)
    elif today is not None:
        y = pick_year(mo, min(day, 28), today, tense)
    else:
        return None
    try:
        d = date(y, mo, day)
    except ValueError:
        return None  # "31/11"
    return Atom(d, d, "day", s, e, year_given=bool(year_text))
