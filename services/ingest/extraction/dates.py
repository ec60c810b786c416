"""Resolve temporal phrases in a clause to a world-time window against the said-on time."""

from __future__ import annotations

import calendar
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any, Literal

from services.ingest.extraction.clock import offset_zone
from services.ingest.extraction.date_atoms import (
    Atom,
    Precision,
    attach_clocks,
    clock_atom,
    without_weekday_labels,
)
from services.ingest.extraction.date_wording import plain_dates
from shared.text.temporal import (
    ATOM_RES,
    BEFORE_RE,
    DURATION_RE,
    FROM_RE,
    JOIN_RE,
    MONTHS,
    NUMBERS,
    ORDER,
    ORDINAL_Q,
    SINCE_RE,
    UNTIL_RE,
    VAGUE_RE,
    WEEKDAYS,
)

__all__ = ["DateResolver", "Precision", "Tense", "TimeWindow"]

Tense = Literal["past", "present", "future"]
Shape = Literal["point", "since", "until", "range"]
_BACKWARD_RE = re.compile(r"\bsince\s*$", re.I)
_BACKWARD_LEAD_RE = re.compile(r"since\b", re.I)
# "stays until Q1", "is closed until March", "due by Friday": a bound ahead, though the verb
# is in the present tense.
_EVENT_BEHIND_RE = re.compile(r"\b(?:since|after|following)\s+(?:the|our|their|its)?\s*$", re.I)
_EFFECTIVE_RE = re.compile(r"\beffective(?:\s+(?:from|on|as\s+of))?\s*$", re.I)
_FORWARD_RE = re.compile(r"\b(?:until|till|by)\s*$", re.I)
_FORWARD_LEAD_RE = re.compile(r"(?:until|till|by)\b", re.I)


@dataclass(frozen=True)
class TimeWindow:
    """A resolved world-time window; `valid_until` is the inclusive last day (or instant)."""

    valid_from: datetime | None
    valid_until: datetime | None
    precision: Precision
    shape: Shape
    start: int
    end: int


# Meteorological seasons of the northern hemisphere: three months from these; the winter of
# a year is the one that begins in its December.
_SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}


def _utc(d: date) -> datetime:
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def _month_last(y: int, m: int) -> date:
    return date(y, m, calendar.monthrange(y, m)[1])


_JUST_GONE = timedelta(days=7)
_WEEK_OF = re.compile(r"\b(?:the\s+)?week\s+(?:of|commencing|beginning|starting)\s*$", re.I)


def _pick_year(month: int, day: int | None, today: date, tense: Tense) -> int:
    """Year for a month(/day) without one: latest not after today in past tense,
    earliest not before today (less a week) in future tense, otherwise the nearest."""
    cands = []
    for y in (today.year - 1, today.year, today.year + 1):
        first = date(y, month, day or 1)
        last = first if day else _month_last(y, month)
        cands.append((y, first, last))
    if tense == "past":
        return max(y for y, first, _ in cands if first <= today)
    if tense == "future":
        # "From 1 June Ben takes over", written on 2 June: a date just gone is still the one
        # meant, not next year's.
        return min(y for y, _, last in cands if last >= today - _JUST_GONE)

    def distance(c: tuple[int, date, date]) -> int:
        _, first, last = c
        return (
            0
            if first <= today <= last
            else min(abs((first - today).days), abs((last - today).days))
        )

    return min(cands, key=distance)[0]


def _pick_quarter_year(q: int, today: date, tense: Tense) -> int:
    """Year for a quarter without one, as `_pick_year` picks a month's: "Q1" said in May is
    this year's in the past tense or the present, next year's when it lies ahead."""
    if tense == "future" and _quarter(today.year, q)[1] < today:
        return today.year + 1
    if tense == "past" and _quarter(today.year, q)[0] > today:
        return today.year - 1
    return today.year


def _season_year(first_month: int, rel: str, today: date) -> int:
    """The year whose season (starting in `first_month`) "last", "this" or "next" names:
    the latest one over before today, the one today is in or nearest, the first one ahead."""
    seasons = []
    for y in (today.year - 2, today.year - 1, today.year, today.year + 1):
        start = date(y, first_month, 1)
        end = _shift_months(start, 2)
        seasons.append((y, start, _month_last(end.year, end.month)))
    if rel in ("last", "past"):
        return max(y for y, _, last in seasons if last < today)
    if rel in ("next", "coming"):
        return min(y for y, first, _ in seasons if first > today)
    current = [y for y, first, last in seasons if first <= today <= last]
    return current[0] if current else min(y for y, first, _ in seasons if first > today)


def _week_start(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _weekday(rel: str, wd: int, today: date, tense: Tense) -> date:
    """Weekday policy: "last X" is the most recent X strictly before today; "next X" is X in the
    calendar week (Mon-Sun) after today's; "this X" is X in today's week; "coming X" is the
    first X strictly after today; a bare "X"/"on X" follows the tense (past: last, else coming)."""
    rel = " ".join(rel.lower().split())
    if rel in ("", "on"):
        rel = "last" if tense == "past" else "coming"
    if rel == "last":
        return today - timedelta(days=(today.weekday() - wd - 1) % 7 + 1)
    if rel == "next":
        return _week_start(today) + timedelta(days=7 + wd)
    if rel == "this":
        return _week_start(today) + timedelta(days=wd)
    return today + timedelta(days=(wd - today.weekday() - 1) % 7 + 1)


def _shift_months(d: date, months: int) -> date:
    total = d.year * 12 + d.month - 1 + months
    return date(total // 12, total % 12 + 1, 1)


def _quarter(y: int, q: int) -> tuple[date, date]:
    return date(y, 3 * q - 2, 1), _month_last(y, 3 * q)


class DateResolver:
    """Finds the clause's temporal expression and resolves it; dateparser results are cached."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, date, str], Atom | None] = {}

    def resolve(
        self,
        text: str,
        said_on: datetime | None,
        tense: Tense = "present",
        date_entities: Sequence[tuple[int, int]] = (),
        *,
        keep: Callable[[int, int], bool] | None = None,
        reschedule: bool = False,
    ) -> TimeWindow | None:
        """Resolve `text` (one clause); `date_entities` are NER DATE spans tried with dateparser
        when no rule matched them. `keep` says which phrases date the clause (the others are
        mentioned in passing); `reschedule` reads "moved from June 8 to June 9" as the new
        date. Returns None when nothing temporal resolves."""
        today = said_on.astimezone(UTC).date() if said_on is not None else None
        text = plain_dates(text)
        atoms: list[Atom] = []
        seen: list[tuple[int, int]] = []
        for kind, regex in ATOM_RES:
            for m in regex.finditer(text):
                s, e = m.span()
                if any(a < e and s < b for a, b in seen):
                    continue
                seen.append((s, e))
                if keep is not None and not keep(s, e):
                    continue
                # "since March" points backwards whatever the verb's tense ("from", "starting"
                # and "as of" follow it: "applies from 1 May" said in March is this May)
                since = bool(_BACKWARD_RE.search(text[:s]) or _BACKWARD_LEAD_RE.match(m.group(0)))
                ahead = tense == "present" and bool(
                    _FORWARD_RE.search(text[:s]) or _FORWARD_LEAD_RE.match(m.group(0))
                )
                # "resigned effective 30 June": when a change takes effect is the nearest
                # such date, whatever the tense of the verb that announced it.
                effective = bool(_EFFECTIVE_RE.search(text[:s]))
                atom_tense: Tense = (
                    "past" if since else "future" if ahead else "present" if effective else tense
                )
                atom = self._atom(kind, m, today, atom_tense)
                if atom is not None:
                    atoms.append(atom)
        if today is not None:
            for s, e in date_entities:
                if any(a < e and s < b for a, b in seen):
                    continue
                if keep is not None and not keep(s, e):
                    continue
                # "since the March reorg": what began a state lies behind, as "since March".
                behind = _EVENT_BEHIND_RE.search(text[:s])
                fallback = self._dateparser(text[s:e], s, today, "past" if behind else tense)
                if fallback:
                    atoms.append(fallback)
        atoms.sort(key=lambda a: a.start)
        # "15:30 CET on Thursday 14 May": the weekday labels the date before a clock joins it.
        atoms = attach_clocks(text, without_weekday_labels(text, atoms), today)

        if not atoms:
            return None
        atoms.sort(key=lambda a: a.start)
        return _combine(text, atoms, reschedule)

    def _atom(self, kind: str, m: re.Match[str], today: date | None, tense: Tense) -> Atom | None:
        g = {k: v for k, v in m.groupdict().items() if v is not None}
        s, e = m.span()
        if kind.startswith("lead_"):  # the leading preposition is not part of the date
            s = min(m.start(k) for k in ("part", "rel", "mon", "year") if k in g)
            part = re.match(r"(early|mid|late)\b", m.group(0), re.I)
            if part and "part" not in g:  # "early March": the lead word is the part
                g["part"] = part.group(1)
                s = m.start()
        try:
            return _build_atom(kind, g, s, e, today, tense)
        except ValueError:  # impossible calendar dates such as 31 June
            return None

    def _dateparser(self, phrase: str, start: int, today: date, tense: Tense) -> Atom | None:
        if VAGUE_RE.search(phrase) or DURATION_RE.search(phrase):
            return None
        month = MONTHS.get(phrase.strip().lower())
        if month is not None:  # "the March reorg": a month on its own, placed as the rules do
            y = _pick_year(month, None, today, tense)
            return Atom(
                date(y, month, 1), _month_last(y, month), "month", start, start + len(phrase)
            )
        if phrase.strip().isdigit() and len(phrase.strip()) != 4:
            return None  # "headcount is 64": a number NER took for a date
        key = (phrase.lower(), today, tense)
        if key not in self._cache:
            self._cache[key] = _parse_with_dateparser(phrase, today, tense)
        hit = self._cache[key]
        if hit is None:
            return None
        return Atom(hit.first, hit.last, hit.precision, start, start + len(phrase))


def _parse_with_dateparser(phrase: str, today: date, tense: Tense) -> Atom | None:
    from dateparser.date import DateDataParser  # slow import, only when a rule missed

    settings: dict[str, Any] = {
        "RELATIVE_BASE": datetime(today.year, today.month, today.day),
        "PREFER_DATES_FROM": "past" if tense == "past" else "future",
        "REQUIRE_PARTS": [],
    }
    data = DateDataParser(languages=["en"], settings=settings).get_date_data(phrase)
    if data.date_obj is None:
        return None
    d = data.date_obj.date()
    if data.period == "year":
        return Atom(date(d.year, 1, 1), date(d.year, 12, 31), "year", 0, 0)
    if data.period == "month":
        return Atom(date(d.year, d.month, 1), _month_last(d.year, d.month), "month", 0, 0)
    if data.period == "week":
        ws = _week_start(d)
        return Atom(ws, ws + timedelta(days=6), "day", 0, 0)
    return Atom(d, d, "day", 0, 0)


def _month_part(y: int, mo: int, part: str) -> tuple[date, date]:
    if part == "early":
        return date(y, mo, 1), date(y, mo, 10)
    if part == "mid":
        return date(y, mo, 11), date(y, mo, 20)
    return date(y, mo, 21), _month_last(y, mo)


def _build_atom(
    kind: str, g: dict[str, str], s: int, e: int, today: date | None, tense: Tense
) -> Atom | None:
    if kind == "iso":
        d = date(int(g["y"]), int(g["m"]), int(g["d"]))
        if "hh" in g:
            zone = offset_zone(g.get("off", "Z"))
            local = datetime(d.year, d.month, d.day, int(g["hh"]), int(g["mi"]), tzinfo=zone)
            return Atom(d, d, "instant", s, e, local.astimezone(UTC))
        return Atom(d, d, "day", s, e)
    if kind == "clock":
        return clock_atom(g, s, e)
    if kind == "year_edge":
        if "year" in g:
            y = int(g["year"])
        elif today is not None:
            y = today.year + {"next": 1, "last": -1}.get(g.get("rel", "").lower(), 0)
        else:
            return None
        mo = 12 if g["edge"].lower() == "end" else 1
        return Atom(date(y, mo, 1), _month_last(y, mo), "month", s, e)
    if kind == "iso_month":
        y, mo = int(g["y"]), int(g["m"])
        return Atom(date(y, mo, 1), _month_last(y, mo), "month", s, e)
    if kind in ("day_span", "span_mdy"):
        mo, first_day, last_day = MONTHS[g["mon"].lower().rstrip(".")], int(g["d1"]), int(g["day"])
        if first_day >= last_day:
            return None
        if "year" in g:
            y = int(g["year"])
        elif today is not None:
            y = _pick_year(mo, first_day, today, tense)
        else:
            return None
        first, last = date(y, mo, first_day), date(y, mo, last_day)
        return Atom(first, last, "day", s, e, year_given="year" in g, is_range=True)
    if kind in ("mdy", "dmy"):
        mo, day = MONTHS[g["mon"].lower().rstrip(".")], int(g["day"])
        if kind == "mdy" and g["mon"].lower() == "may" and "year" not in g:
            return None  # "may 5" is far more often the modal than the month
        if "year" in g:
            y = int(g["year"])
        elif today is not None:
            y = _pick_year(mo, day, today, tense)
        else:
            return None
        d = date(y, mo, day)
        return Atom(d, d, "day", s, e, year_given="year" in g)
    if kind == "month_end":
        # "the end of the month" is its last day; "the start/end of March" its first or last
        # ten days, as people mean them.
        ending = g["edge"].lower() == "end"
        if "rel" in g:
            if today is None:
                return None
            base = _shift_months(today, {"next": 1, "last": -1}.get(g["rel"].lower(), 0))
            d = _month_last(base.year, base.month) if ending else base
            return Atom(d, d, "day", s, e)
        mo = MONTHS[g["mon"].lower().rstrip(".")]
        if "year" in g:
            y = int(g["year"])
        elif today is not None:
            y = _pick_year(mo, None, today, tense)
        else:
            return None
        first, last = _month_part(y, mo, "late" if ending else "early")
        return Atom(first, last, "day", s, e)
    if kind in ("my", "lead_month"):
        mo = MONTHS[g["mon"].lower().rstrip(".")]
        rel = g.get("rel", "").strip().lower()
        if "year" in g:
            y = int(g["year"])
        elif today is None:
            return None
        elif rel == "last":
            y = today.year if mo < today.month else today.year - 1
        elif rel == "next":
            y = today.year if mo > today.month else today.year + 1
        elif rel == "this":
            y = today.year
        else:
            y = _pick_year(mo, None, today, tense)
        if "part" in g:  # "early March" is its first ten days, "late March" from the 21st
            first, last = _month_part(y, mo, g["part"].lower())
            return Atom(first, last, "day", s, e, year_given="year" in g)
        return Atom(date(y, mo, 1), _month_last(y, mo), "month", s, e, year_given="year" in g)
    if kind in ("quarter", "quarter_words"):
        q = int(g["q"]) if "q" in g else ORDINAL_Q[g["qw"].lower()]
        if "year" in g:
            y = int(g["year"])
        elif "fy" in g or "yy" in g:
            y = 2000 + int(g.get("fy") or g["yy"])
        elif today is not None:
            y = _pick_quarter_year(q, today, tense)
        else:
            return None
        first, last = _quarter(y, q)
        given = bool({"year", "fy", "yy"} & g.keys())
        part = g.get("part", "").lower() or {"end": "late", "start": "early"}.get(
            g.get("edge", "").lower(), "early" if g.get("edge") else ""
        )
        if part:  # "early Q2" is April, "mid-Q2" May, "late Q2" and "end of Q2" June
            mo = first.month + {"early": 0, "mid": 1, "late": 2}[part]
            return Atom(date(y, mo, 1), _month_last(y, mo), "month", s, e, year_given=given)
        return Atom(first, last, "quarter", s, e, year_given=given)
    if kind in ("season", "rel_season"):
        first_month = _SEASON_START[g["season"].lower()]
        if kind == "season":
            y = int(g["year"])
        elif today is None:
            return None
        else:
            y = _season_year(first_month, g["rel"].lower(), today)
        start = date(y, first_month, 1)
        end = _shift_months(start, 2)
        return Atom(start, _month_last(end.year, end.month), "month", s, e)
    if kind == "lead_year":
        return _year_atom(int(g["year"]), g.get("part", "").lower(), s, e)
    if today is None:
        return None
    return _relative_atom(kind, g, s, e, today, tense)


def _year_atom(y: int, part: str, s: int, e: int) -> Atom:
    """A year, or the honest sub-period of it a part word names (never the whole year)."""
    if part == "early":
        return Atom(date(y, 1, 1), date(y, 1, 31), "month", s, e)
    if part == "mid":
        return Atom(date(y, 6, 1), date(y, 7, 31), "month", s, e)
    if part == "late":
        return Atom(date(y, 12, 1), date(y, 12, 31), "month", s, e)
    return Atom(date(y, 1, 1), date(y, 12, 31), "year", s, e)


def _relative_atom(
    kind: str, g: dict[str, str], s: int, e: int, today: date, tense: Tense
) -> Atom | None:
    if kind == "deictic":
        word = " ".join(g["deictic"].lower().split())
        offset = {"yesterday": -1, "last night": -1, "tomorrow": 1}.get(word, 0)
        offset = {"the day before yesterday": -2, "the day after tomorrow": 2}.get(word, offset)
        d = today + timedelta(days=offset)
        return Atom(d, d, "day", s, e)
    if kind == "weekday":
        d = _weekday(g.get("rel", ""), WEEKDAYS[g["wd"].lower()], today, tense)
        return Atom(d, d, "day", s, e)
    if kind == "rel_unit":
        rel, unit = g["rel"].lower(), g["unit"].lower()
        step = {"last": -1, "past": -1, "next": 1, "coming": 1}.get(rel, 0)
        if unit in ("week", "weekend"):
            ws = _week_start(today) + timedelta(days=7 * step)
            first, last = (
                (ws + timedelta(days=5), ws + timedelta(days=6))
                if unit == "weekend"
                else (ws, ws + timedelta(days=6))
            )
            return Atom(first, last, "day", s, e)
        part = g.get("part", "").lower()  # "early next year", "late this month"
        if unit == "month":
            m = _shift_months(today, step)
            if part:
                return Atom(*_month_part(m.year, m.month, part), "day", s, e)
            return Atom(m, _month_last(m.year, m.month), "month", s, e)
        if unit == "quarter":
            q0 = (today.year * 4 + (today.month - 1) // 3) + step
            first, last = _quarter(q0 // 4, q0 % 4 + 1)
            if part:
                mo = first.month + {"early": 0, "mid": 1, "late": 2}[part]
                return Atom(date(first.year, mo, 1), _month_last(first.year, mo), "month", s, e)
            return Atom(first, last, "quarter", s, e)
        return _year_atom(today.year + step, part, s, e)
    if kind == "month_day":
        return _month_day_atom(int(g["day"]), s, e, today, tense)
    if kind in ("ago", "in_n"):
        if kind == "in_n" and (tense == "past" or (tense == "present" and s > 0)):
            # "in 2 years" in the past tense, or after a present verb ("is produced in two
            # weeks"), is a duration; fronted ("In two weeks the contract expires") a date.
            return None
        raw = g["num"].lower()
        n = int(raw) if raw.isdigit() else NUMBERS[raw]
        n = -n if kind == "ago" else n
        unit = g["unit"].lower()
        if unit in ("day", "week"):
            d = today + timedelta(days=n * (7 if unit == "week" else 1))
            return Atom(d, d, "day", s, e)
        if unit == "month":
            m = _shift_months(today, n)
            return Atom(m, _month_last(m.year, m.month), "month", s, e)
        return Atom(date(today.year + n, 1, 1), date(today.year + n, 12, 31), "year", s, e)
    return None


def _month_day_atom(day: int, s: int, e: int, today: date, tense: Tense) -> Atom | None:
    """ "on the 2nd": that day of this month; in past-tense text the month before when the day
    has not come yet, otherwise the next month when it has passed ("starts on the 20th")."""
    month = date(today.year, today.month, 1)
    if tense == "past" and day > today.day:
        month = _shift_months(month, -1)
    elif tense != "past" and day < today.day:
        month = _shift_months(month, 1)
    if day > _month_last(month.year, month.month).day:
        return None
    d = date(month.year, month.month, day)
    return Atom(d, d, "day", s, e)


def _combine(text: str, atoms: list[Atom], reschedule: bool = False) -> TimeWindow:
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
            return TimeWindow(_utc(first), _utc(b.last), precision, "range", a.start, b.end)
    a = atoms[-1] if reschedule and len(atoms) > 1 else atoms[0]
    # "Q1 close-out: headcount stood at 47 on 31 March": a date inside the period named first
    # is the finer reading of it.
    finer = [b for b in atoms[1:] if a.first <= b.first and b.last <= a.last and _finer(b, a)]
    a = finer[0] if finer and not reschedule else a
    if a.is_range and reschedule:  # "the demo moved from 8 to 9 June": the new day holds
        return TimeWindow(_utc(a.last), _utc(a.last), "day", "point", a.start, a.end)
    if a.is_range:
        return TimeWindow(_utc(a.first), _utc(a.last), "day", "range", a.start, a.end)
    before = text[: a.start]
    week = _WEEK_OF.search(before) if a.precision == "day" and a.instant is None else None
    if week is not None:
        # "the week of 9 March" is that week; "from the week of 9 March" starts with it.
        before, last = before[: week.start()], a.first + timedelta(days=6)
        if not SINCE_RE.search(before) and not UNTIL_RE.search(before):
            return TimeWindow(_utc(a.first), _utc(last), "day", "range", a.start, a.end)
        a = replace(a, last=last)
    if SINCE_RE.search(before):
        start = a.instant or _utc(a.first)
        return TimeWindow(start, None, "open", "since", a.start, a.end)
    if reschedule:  # "postponed until 3 June": the new date, not the end of something
        return _point(a)
    if UNTIL_RE.search(before):
        end = a.instant or _utc(a.last)
        return TimeWindow(None, end, a.precision, "until", a.start, a.end)
    if BEFORE_RE.search(before):
        end = a.instant or _utc(a.first - timedelta(days=1))
        return TimeWindow(None, end, a.precision, "until", a.start, a.end)
    return _point(a)


def _finer(inner: Atom, outer: Atom) -> bool:
    return ORDER.get(inner.precision, 0) < ORDER.get(outer.precision, 0)


def _point(a: Atom) -> TimeWindow:
    if a.instant is not None:
        return TimeWindow(a.instant, a.instant, "instant", "point", a.start, a.end)
    return TimeWindow(_utc(a.first), _utc(a.last), a.precision, "point", a.start, a.end)
