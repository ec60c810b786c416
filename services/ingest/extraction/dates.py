"""Resolve temporal phrases in a clause to a world-time window against the said-on time."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from services.ingest.extraction.calendar_picks import (
    Tense,
    month_last,
    pick_year,
    quarter,
    shift_months,
    week_start,
    weekday,
)
from services.ingest.extraction.clock import offset_zone
from services.ingest.extraction.date_atoms import (
    Atom,
    Precision,
    attach_clocks,
    clock_atom,
    numeric_atom,
    without_weekday_labels,
)
from services.ingest.extraction.date_windows import TimeWindow, combine, for_a_stretch
from services.ingest.extraction.date_wording import plain_dates
from services.ingest.extraction.period_atoms import (
    half_atom,
    month_span_atom,
    quarter_atom,
    season_atom,
    year_atom,
)
from shared.text.temporal import (
    ATOM_RES,
    DURATION_RE,
    MONTHS,
    NUMBERS,
    ORDER,
    SHORT_WEEKDAYS,
    VAGUE_RE,
    WEEKDAYS,
)

__all__ = ["DateResolver", "Precision", "Tense", "TimeWindow"]

_BACKWARD_RE = re.compile(r"\bsince\s*$", re.I)
_BACKWARD_LEAD_RE = re.compile(r"since\b", re.I)
# "since the March reorg": what began a state lies behind, as "since March".
_EVENT_BEHIND_RE = re.compile(r"\b(?:since|after|following)\s+(?:the|our|their|its)?\s*$", re.I)
# "resigned effective 30 June": when a change takes effect is the nearest such date.
_EFFECTIVE_RE = re.compile(r"\beffective(?:\s+(?:from|on|as\s+of))?\s*$", re.I)
# "stays until Q1", "is closed until March", "due by Friday": a bound ahead, though the verb
# is in the present tense.
_FORWARD_RE = re.compile(r"\b(?:until|till|by)\s*$", re.I)
_FORWARD_LEAD_RE = re.compile(r"(?:until|till|by)\b", re.I)
_FOR_RE = re.compile(r"\bfor\s*$", re.I)
_UNTIL_RE = re.compile(r"\b(?:until|till)\s*$", re.I)
_UNTIL_LEAD_RE = re.compile(r"(?:until|till)\b", re.I)


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
                # "froze all travel until July", "was confirmed for 12 May": a past verb sets
                # a bound or a date that may lie ahead; the nearest reading, not last year's.
                # ("nine were fixed by Thursday" stays behind: a deadline met, and a weekday
                # alone reads by the tense.)
                bound = (
                    tense == "past"
                    and "weekday" not in kind
                    and bool(
                        _UNTIL_RE.search(text[:s])
                        or _UNTIL_LEAD_RE.match(m.group(0))
                        or _FOR_RE.search(text[:s])
                        or m.group(0).lower().startswith("for ")
                    )
                )
                atom_tense: Tense = (
                    "past"
                    if since
                    else "future"
                    if ahead
                    else "present"
                    if effective or bound
                    else tense
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

        now = datetime(today.year, today.month, today.day, tzinfo=UTC) if today else None
        if not atoms:
            return for_a_stretch(text, None, now)  # "for the next two weeks"
        atoms.sort(key=lambda a: a.start)
        return for_a_stretch(text, combine(text, _without_restated(text, atoms), reschedule), now)

    def _atom(self, kind: str, m: re.Match[str], today: date | None, tense: Tense) -> Atom | None:
        g = {k: v for k, v in m.groupdict().items() if v is not None}
        s, e = m.span()
        if g.get("mon") == "may" and _DATE_PREPOSITION.search(m.string[:s]):
            g["mon"] = "May"  # "finished on may 27": after a preposition, the month
        if kind.startswith("lead_"):  # the leading preposition is not part of the date
            s = min(m.start(k) for k in ("part", "rel", "mon", "year", "wda") if k in g)
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
            y = pick_year(month, None, today, tense)
            return Atom(
                date(y, month, 1), month_last(y, month), "month", start, start + len(phrase)
            )
        if phrase.strip().isdigit() and (
            len(phrase.strip()) != 4 or not _YEARS[0] <= int(phrase.strip()) <= _YEARS[1]
        ):
            return None  # "headcount is 64", "reopened ticket 5521": a number NER took for a date
        if _SHORT_DURATION.fullmatch(phrase.strip()):
            return None  # "the timeout is 10s", "p99 is 250ms": a duration, not the 2010s
        key = (phrase.lower(), today, tense)
        if key not in self._cache:
            self._cache[key] = _parse_with_dateparser(phrase, today, tense)
        hit = self._cache[key]
        if hit is None:
            return None
        return Atom(hit.first, hit.last, hit.precision, start, start + len(phrase))


# The years a document's date may fall in; a number outside them is an identifier.
_YEARS = (1900, 2199)
_DATE_PREPOSITION = re.compile(r"\b(?:on|by|until|till|from|since|before|after|of)\s+$", re.I)
_SHORT_DURATION = re.compile(r"\d+(?:\.\d+)?\s?(?:ms|s|secs?|m|mins?|h|hrs?|d)", re.IGNORECASE)
_OPENS_BRACKET = re.compile(r"^\s*[(\[]\s*$")


def _without_restated(text: str, atoms: list[Atom]) -> list[Atom]:
    """A period restated in brackets in calendar terms ("Q4 FY26 (April–June 2026)", "FY27 H1
    (Jul–Dec 2026)") is the bracket's: a fiscal label says nothing a calendar date does not."""
    restated = {
        id(a)
        for a, b in itertools.pairwise(atoms)
        if _OPENS_BRACKET.match(text[a.end : b.start])
        and a.clock is None
        and ORDER.get(a.precision, 0) >= ORDER["month"]
    }
    return [a for a in atoms if id(a) not in restated]


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
    if not _YEARS[0] <= d.year <= _YEARS[1]:
        return None  # "ticket 5521 today", "build 7304": an identifier, no year anyone meant
    if data.period == "year":
        return Atom(date(d.year, 1, 1), date(d.year, 12, 31), "year", 0, 0)
    if data.period == "month":
        return Atom(date(d.year, d.month, 1), month_last(d.year, d.month), "month", 0, 0)
    if data.period == "week":
        ws = week_start(d)
        return Atom(ws, ws + timedelta(days=6), "day", 0, 0)
    return Atom(d, d, "day", 0, 0)


def _month_part(y: int, mo: int, part: str) -> tuple[date, date]:
    if part == "early":
        return date(y, mo, 1), date(y, mo, 10)
    if part == "mid":
        return date(y, mo, 11), date(y, mo, 20)
    return date(y, mo, 21), month_last(y, mo)


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
    if kind == "numeric":
        return numeric_atom(g, s, e, today, tense)
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
        return Atom(date(y, mo, 1), month_last(y, mo), "month", s, e)
    if kind == "iso_month":
        y, mo = int(g["y"]), int(g["m"])
        return Atom(date(y, mo, 1), month_last(y, mo), "month", s, e)
    if kind in ("day_span", "span_mdy"):
        mo, first_day, last_day = MONTHS[g["mon"].lower().rstrip(".")], int(g["d1"]), int(g["day"])
        if first_day >= last_day:
            return None
        if "year" in g:
            y = int(g["year"])
        elif today is not None:
            y = pick_year(mo, first_day, today, tense)
        else:
            return None
        first, last = date(y, mo, first_day), date(y, mo, last_day)
        return Atom(first, last, "day", s, e, year_given="year" in g, is_range=True)
    if kind in ("mdy", "dmy"):
        mo, day = MONTHS[g["mon"].lower().rstrip(".")], int(g["day"])
        if kind == "mdy" and g["mon"] == "may" and "year" not in g:
            # "we may 5x it": in lower case the modal more often than the month; "on May 14",
            # "Effective May 1," are the month
            return None
        if "year" in g:
            y = int(g["year"])
        elif today is not None:
            y = pick_year(mo, day, today, tense)
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
            base = shift_months(today, {"next": 1, "last": -1}.get(g["rel"].lower(), 0))
            d = month_last(base.year, base.month) if ending else base
            return Atom(d, d, "day", s, e)
        mo = MONTHS[g["mon"].lower().rstrip(".")]
        if "year" in g:
            y = int(g["year"])
        elif today is not None:
            y = pick_year(mo, None, today, tense)
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
            y = pick_year(mo, None, today, tense)
        if "part" in g:  # "early March" is its first ten days, "late March" from the 21st
            first, last = _month_part(y, mo, g["part"].lower())
            return Atom(first, last, "day", s, e, year_given="year" in g)
        return Atom(date(y, mo, 1), month_last(y, mo), "month", s, e, year_given="year" in g)
    if kind == "month_span":
        return month_span_atom(g, s, e, today, tense)
    if kind in ("half", "half_words"):
        return half_atom(kind, g, s, e, today, tense)
    if kind in ("quarter", "quarter_words"):
        return quarter_atom(g, s, e, today, tense)
    if kind in ("season", "rel_season"):
        return season_atom(kind, g, s, e, today)
    if kind == "lead_year":
        return year_atom(int(g["year"]), g.get("part", "").lower(), s, e)
    if today is None:
        return None
    return _relative_atom(kind, g, s, e, today, tense)


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
        d = weekday(g.get("rel", ""), WEEKDAYS[g["wd"].lower()], today, tense)
        return Atom(d, d, "day", s, e)
    if kind == "lead_weekday":  # "from wed", "next fri"
        d = weekday(g.get("rel", ""), SHORT_WEEKDAYS[g["wda"].lower()], today, tense)
        return Atom(d, d, "day", s, e)
    if kind == "rel_unit":
        rel, unit = g["rel"].lower(), g["unit"].lower()
        step = {"last": -1, "past": -1, "next": 1, "coming": 1}.get(rel, 0)
        if unit == "weekend" and rel == "coming" and today.weekday() < 5:
            step = 0  # "this coming weekend" said on a weekday: the one ahead this week
        if unit in ("week", "weekend"):
            ws = week_start(today) + timedelta(days=7 * step)
            first, last = (
                (ws + timedelta(days=5), ws + timedelta(days=6))
                if unit == "weekend"
                else (ws, ws + timedelta(days=6))
            )
            return Atom(first, last, "day", s, e)
        part = g.get("part", "").lower()  # "early next year", "late this month"
        if unit == "month":
            m = shift_months(today, step)
            if part:
                return Atom(*_month_part(m.year, m.month, part), "day", s, e)
            return Atom(m, month_last(m.year, m.month), "month", s, e)
        if unit == "quarter":
            q0 = (today.year * 4 + (today.month - 1) // 3) + step
            first, last = quarter(q0 // 4, q0 % 4 + 1)
            if part:
                mo = first.month + {"early": 0, "mid": 1, "late": 2}[part]
                return Atom(date(first.year, mo, 1), month_last(first.year, mo), "month", s, e)
            return Atom(first, last, "quarter", s, e)
        return year_atom(today.year + step, part, s, e)
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
            m = shift_months(today, n)
            return Atom(m, month_last(m.year, m.month), "month", s, e)
        return Atom(date(today.year + n, 1, 1), date(today.year + n, 12, 31), "year", s, e)
    return None


def _month_day_atom(day: int, s: int, e: int, today: date, tense: Tense) -> Atom | None:
    """ "on the 2nd": that day of this month; in past-tense text the month before when the day
    has not come yet, otherwise the next month when it has passed ("starts on the 20th")."""
    month = date(today.year, today.month, 1)
    if tense == "past" and day > today.day:
        month = shift_months(month, -1)
    elif tense != "past" and day < today.day:
        month = shift_months(month, 1)
    if day > month_last(month.year, month.month).day:
        return None
    d = date(month.year, month.month, day)
    return Atom(d, d, "day", s, e)
