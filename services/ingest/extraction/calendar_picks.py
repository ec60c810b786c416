"""Which calendar year a date written without one means ("in March", "Q3", "next Tuesday",
"this winter"), read against the said-on day and the clause's tense (`dates`)."""

from __future__ import annotations

import calendar
from datetime import date, timedelta
from typing import Literal

__all__ = [
    "JUST_GONE",
    "SEASON_START",
    "Tense",
    "month_last",
    "pick_quarter_year",
    "pick_year",
    "quarter",
    "season_year",
    "shift_months",
    "week_start",
    "weekday",
]

Tense = Literal["past", "present", "future"]

# Meteorological seasons of the northern hemisphere: three months from these; the winter of
# a year is the one that begins in its December.
SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}


def month_last(y: int, m: int) -> date:
    return date(y, m, calendar.monthrange(y, m)[1])


JUST_GONE = timedelta(days=7)


def pick_year(month: int, day: int | None, today: date, tense: Tense) -> int:
    """Year for a month(/day) without one: latest not after today in past tense,
    earliest not before today (less a week) in future tense, otherwise the nearest."""
    cands = []
    for y in (today.year - 1, today.year, today.year + 1):
        first = date(y, month, day or 1)
        last = first if day else month_last(y, month)
        cands.append((y, first, last))
    if tense == "past":
        return max(y for y, first, _ in cands if first <= today)
    if tense == "future":
        # "From 1 June Ben takes over", written on 2 June: a date just gone is still the one
        # meant, not next year's.
        return min(y for y, _, last in cands if last >= today - JUST_GONE)

    def distance(c: tuple[int, date, date]) -> int:
        _, first, last = c
        return (
            0
            if first <= today <= last
            else min(abs((first - today).days), abs((last - today).days))
        )

    return min(cands, key=distance)[0]


def pick_quarter_year(q: int, today: date, tense: Tense) -> int:
    """Year for a quarter without one, as `pick_year` picks a month's: "Q1" said in May is
    this year's in the past tense or the present, next year's when it lies ahead."""
    if tense == "future" and quarter(today.year, q)[1] < today:
        return today.year + 1
    if tense == "past" and quarter(today.year, q)[0] > today:
        return today.year - 1
    return today.year


def season_year(first_month: int, rel: str, today: date) -> int:
    """The year whose season (starting in `first_month`) "last", "this" or "next" names:
    the latest one over before today, the one today is in or nearest, the first one ahead."""
    seasons = []
    for y in (today.year - 2, today.year - 1, today.year, today.year + 1):
        start = date(y, first_month, 1)
        end = shift_months(start, 2)
        seasons.append((y, start, month_last(end.year, end.month)))
    if rel in ("last", "past"):
        return max(y for y, _, last in seasons if last < today)
    if rel in ("next", "coming"):
        return min(y for y, first, _ in seasons if first > today)
    current = [y for y, first, last in seasons if first <= today <= last]
    return current[0] if current else min(y for y, first, _ in seasons if first > today)


def week_start(d: date) -> date:
    return d - timedelta(days=d.weekday())


def weekday(rel: str, wd: int, today: date, tense: Tense) -> date:
    """Weekday policy: "last X" is the most recent X strictly before today; "next X" is X in the
    calendar week (Mon-Sun) after today's; "this X" is X in today's week; "coming X" is the
    first X strictly after today; a bare "X"/"on X" follows the tense (past: last, else coming)."""
    rel = " ".join(rel.lower().split())
    if rel in ("", "on"):
        rel = "last" if tense == "past" else "coming"
    if rel == "last":
        return today - timedelta(days=(today.weekday() - wd - 1) % 7 + 1)
    if rel == "next":
        return week_start(today) + timedelta(days=7 + wd)
    if rel == "this":
        return week_start(today) + timedelta(days=wd)
    return today + timedelta(days=(wd - today.weekday() - 1) % 7 + 1)


def shift_months(d: date, months: int) -> date:
    total = d.year * 12 + d.month - 1 + months
    return date(total // 12, total % 12 + 1, 1)


def quarter(y: int, q: int) -> tuple[date, date]:
    return date(y, 3 * q - 2, 1), month_last(y, 3 * q)
