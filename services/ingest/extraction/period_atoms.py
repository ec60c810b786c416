"""Date atoms of more than a month: a quarter ("Q3 FY26", "early Q2"), a half ("H2", "the
second half of next year"), a season, a year or part of one, and whole months joined into a
range ("March–May"). Each is the honest period its words name, never a wider one."""

from __future__ import annotations

from datetime import date

from services.ingest.extraction.calendar_picks import (
    SEASON_START,
    Tense,
    month_last,
    pick_quarter_year,
    pick_year,
    quarter,
    season_year,
    shift_months,
)
from services.ingest.extraction.date_atoms import Atom
from shared.text.temporal import MONTHS, ORDINAL_Q

__all__ = ["half_atom", "month_span_atom", "quarter_atom", "season_atom", "year_atom"]


def quarter_atom(
    g: dict[str, str], s: int, e: int, today: date | None, tense: Tense
) -> Atom | None:
    """ "Q3", "Q4 FY26", "the second quarter of 2026"; "early Q2" is April, "mid-Q2" May,
    "late Q2" and "end of Q2" June."""
    q = int(g["q"]) if "q" in g else ORDINAL_Q[g["qw"].lower()]
    if "year" in g:
        y = int(g["year"])
    elif "fy" in g or "yy" in g:
        y = _two_digit_year(g.get("fy") or g["yy"])
    elif today is not None:
        y = pick_quarter_year(q, today, tense)
    else:
        return None
    first, last = quarter(y, q)
    given = bool({"year", "fy", "yy"} & g.keys())
    part = g.get("part", "").lower() or {"end": "late", "start": "early"}.get(
        g.get("edge", "").lower(), "early" if g.get("edge") else ""
    )
    if part:  # "early Q2" is April, "mid-Q2" May, "late Q2" and "end of Q2" June
        mo = first.month + {"early": 0, "mid": 1, "late": 2}[part]
        return Atom(date(y, mo, 1), month_last(y, mo), "month", s, e, year_given=given)
    return Atom(first, last, "quarter", s, e, year_given=given)


def season_atom(kind: str, g: dict[str, str], s: int, e: int, today: date | None) -> Atom | None:
    """ "over the summer of 2025", "until last spring": the season's three months."""
    first_month = SEASON_START[g["season"].lower()]
    if kind == "season":
        y = int(g["year"])
    elif today is None:
        return None
    else:
        y = season_year(first_month, g["rel"].lower(), today)
    start = date(y, first_month, 1)
    end = shift_months(start, 2)
    return Atom(start, month_last(end.year, end.month), "month", s, e)


def _two_digit_year(text: str) -> int:
    """ "FY26", "'26", "FY2026": the year, its century assumed."""
    return int(text) if len(text) == 4 else 2000 + int(text)


def month_span_atom(
    g: dict[str, str], s: int, e: int, today: date | None, tense: Tense
) -> Atom | None:
    """ "March-May", "Nov 2025 to Jan 2026": from the first month's first day to the last
    month's last day; a year written once, at the end, holds for both ends."""
    first_month = MONTHS[g["mon1"].lower().rstrip(".")]
    last_month = MONTHS[g["mon"].lower().rstrip(".")]
    wraps = last_month < first_month  # "Nov–Jan" runs into the next year
    if "year1" in g:
        first_year = int(g["year1"])
        last_year = int(g["year"]) if "year" in g else first_year + wraps
    elif "year" in g:
        last_year = int(g["year"])
        first_year = last_year - wraps
    elif today is not None:
        first_year = pick_year(first_month, None, today, tense)
        last_year = first_year + wraps
    else:
        return None
    if (last_year, last_month) <= (first_year, first_month):
        return None
    first, last = date(first_year, first_month, 1), month_last(last_year, last_month)
    given = "year" in g or "year1" in g
    return Atom(first, last, "month", s, e, year_given=given, is_range=True)


def half_atom(
    kind: str, g: dict[str, str], s: int, e: int, today: date | None, tense: Tense
) -> Atom | None:
    """ "H2 2026", "2H26", "the first half of next year": six months (a half has no grain of
    its own; "quarter" is the nearest coarser one this model has)."""
    if kind == "half":
        half = int(g.get("h") or g["hn"])
    else:
        half = 1 if g["hw"].lower() in ("first", "1st") else 2
    rel = g.get("rel", "").lower()
    if "year" in g or "year2" in g:
        y = int(g.get("year") or g["year2"])
    elif {"fy", "yy", "yy2"} & g.keys():
        y = _two_digit_year(g.get("fy") or g.get("yy") or g["yy2"])
    elif today is None:
        return None
    elif rel in ("this", "next", "last"):
        y = today.year + {"next": 1, "last": -1}.get(rel, 0)
    else:
        y = pick_quarter_year(2 * half, today, tense)
    first, last = date(y, 6 * half - 5, 1), month_last(y, 6 * half)
    given = bool({"year", "year2", "fy", "yy", "yy2"} & g.keys()) or rel in ("this", "next", "last")
    return Atom(first, last, "quarter", s, e, year_given=given)


def year_atom(y: int, part: str, s: int, e: int) -> Atom:
    """A year, or the honest sub-period of it a part word names (never the whole year)."""
    if part == "early":
        return Atom(date(y, 1, 1), date(y, 1, 31), "month", s, e)
    if part == "mid":
        return Atom(date(y, 6, 1), date(y, 7, 31), "month", s, e)
    if part == "late":
        return Atom(date(y, 12, 1), date(y, 12, 31), "month", s, e)
    return Atom(date(y, 1, 1), date(y, 12, 31), "year", s, e)
