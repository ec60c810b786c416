"""The values a statement states: dates as written, numbers with their units, statuses and
stances (`categories.py`). Two statements of one attribute that state different values are
rivals; the same values, a repeat. Pure functions of the text, read once per process."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from services.adjudicator.engines.categories import Category, find_categories

__all__ = ["MONTHS", "TEXT_CACHE", "DateValue", "Value", "extract_values", "same_value"]

MONTHS = {
    name: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}
_MONTH = r"(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_ORD = r"(?:st|nd|rd|th)?"
_DATE_PATTERNS: list[tuple[re.Pattern[str], tuple[int | None, int | None, int | None]]] = [
    # (pattern, group index of (year, month, day)); month groups hold names or numbers
    (re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"), (1, 2, 3)),
    (re.compile(rf"\b{_MONTH}\s+(\d{{1,2}}){_ORD}(?:,?\s+(\d{{4}}))?\b"), (3, 1, 2)),
    (re.compile(rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH}(?:,?\s+(\d{{4}}))?\b"), (3, 2, 1)),
    (re.compile(rf"\b{_MONTH}\s+(\d{{4}})\b"), (2, 1, None)),
    (re.compile(r"\b((?:19|20)\d{2})\b"), (1, None, None)),
]
_NUMBER = re.compile(
    r"(?<![\w.])([$€£])?\s?(\d+(?:[.,]\d+)*)\s?(%|percent|k|m|bn|million|billion|thousand)?\b", re.I
)


_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
# Counts in words from two ("one" is too often no count: "one of our customers"), with tens
# joined by a hyphen or a space ("forty-five", "twenty one").
_NUMBER_WORDS = re.compile(
    rf"\b(?:(?:{'|'.join(_TENS)})(?:[- ](?:{'|'.join(_UNITS[1:10])}))?"
    rf"|{'|'.join(_UNITS[2:])})\b"
)


def _words_to_number(words: str) -> int:
    total = 0
    for word in re.split(r"[- ]", words):
        total += 20 + 10 * _TENS.index(word) if word in _TENS else _UNITS.index(word)
    return total


@dataclass(frozen=True, slots=True)
class DateValue:
    """A date as stated; unknown parts stay None (a bare "June 8" has no year)."""

    year: int | None
    month: int | None
    day: int | None

    def matches(self, other: DateValue) -> bool:
        pairs = ((self.year, other.year), (self.month, other.month), (self.day, other.day))
        return all(a is None or b is None or a == b for a, b in pairs) and any(
            a is not None and b is not None for a, b in pairs
        )


Value = DateValue | tuple[float, str] | Category


# Every candidate's statement and evidence texts are read again for each assertion compared
# with it (a candidate with 40 pieces of evidence is 40 texts per comparison): the readings
# are pure functions of the text, so they are computed once per process and text.
TEXT_CACHE = 8192


def extract_values(text: str) -> list[Value]:
    """Dates, numbers, statuses and stances stated in `text`, in order.

    Each character of a date or number is read at most once.
    """
    return list(_values_of(text))


# "79 dollars", "12 euros", "40 quid": the amount in its currency, as "$79" states it.
_CURRENCY_WORDS = (
    (re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)*)\s?(?:us\s?)?(?:dollars?|usd|bucks)\b"), "$"),
    (re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)*)\s?(?:euros?|eur)\b"), "€"),
    (re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)*)\s?(?:pounds?|gbp|quid)\b(?!\s+of\b)"), "£"),
)


# A dotted version after a capitalised word ("Tarnwick 3.0", "iOS 17.2", "Python 3.11").
_VERSION = re.compile(r"(?<![\w.])(?:[A-Z][\w-]*|i[A-Z]\w*)\s+(v?\d+(?:\.\d+)+)\b")
_CLOCK = re.compile(
    r"(?<![\w.$€£])\d{1,2}:\d{2}(?:\s*[ap]\.?m\b\.?)?|(?<![\w.$€£])\d{1,2}\s*[ap]\.?m\b\.?"
    r"|\b(?:utc|gmt)\s*[+\-−–]\s*\d{1,2}(?::?\d{2})?"
)


@lru_cache(maxsize=TEXT_CACHE)
def _values_of(text: str) -> tuple[Value, ...]:
    lowered = text.lower()
    if len(lowered) == len(text):
        # "the Tarnwick 3.0 launch", "Python 3.11": a version after a name is part of it.
        for m in _VERSION.finditer(text):
            lowered = lowered[: m.start(1)] + " " * len(m.group(1)) + lowered[m.end(1) :]
    for pattern, symbol in _CURRENCY_WORDS:
        lowered = pattern.sub(symbol + r"\1", lowered)
    found: list[tuple[int, Value]] = list(find_categories(lowered))
    for pattern, (gy, gm, gd) in _DATE_PATTERNS:
        for match in pattern.finditer(lowered):
            year = int(match.group(gy)) if gy and match.group(gy) else None
            month_text = match.group(gm) if gm else None
            month = None
            if month_text:
                month = int(month_text) if month_text.isdigit() else MONTHS[month_text]
            day = int(match.group(gd)) if gd else None
            if (month is not None and not 1 <= month <= 12) or (day and not 1 <= day <= 31):
                continue
            found.append((match.start(), DateValue(year, month, day)))
            lowered = lowered[: match.start()] + " " * len(match.group(0)) + lowered[match.end() :]
    # "at 14:00 CET", "9am", "(UTC+2)": when in the day, which the window holds; read as
    # numbers they were values ("14", "0", "2") that no other statement shares.
    lowered = _CLOCK.sub(lambda m: " " * len(m.group(0)), lowered)
    # "twelve engineers", "forty-five people": a count in words is the count in figures.
    for match in _NUMBER_WORDS.finditer(lowered):
        found.append((match.start(), (float(_words_to_number(match.group(0))), "")))
    for match in _NUMBER.finditer(lowered):
        figures = match.group(2).replace(",", "")
        if not figures.strip():
            continue
        unit = (match.group(1) or "") + (match.group(3) or "").lower()
        if figures.count(".") > 1:
            # "3.1.2", "10.20.0.5": a version or an address, a value by its digits alone
            found.append((match.start(), (0.0, "#" + figures)))
            continue
        found.append((match.start(), (float(figures), unit)))
    return tuple(value for _, value in sorted(found, key=lambda item: item[0]))


def same_value(a: Value, b: Value) -> bool:
    if isinstance(a, DateValue) and isinstance(b, DateValue):
        return a.matches(b)
    return a == b
