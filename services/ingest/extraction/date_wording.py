"""Date wordings rewritten, offset for offset, into the forms the resolver's patterns read:
"between March and May" as "from March to May", "the first of August" as "the 1st of August",
"effective immediately" as "from today".
Every character keeps its place, so the spans found in the rewritten text are the original's."""

from __future__ import annotations

import re

__all__ = ["plain_dates"]


def plain_dates(text: str) -> str:
    """`text` with every wording above rewritten, offsets unchanged."""
    return _immediate_as_today(_ordinal_days(_between_as_from(text)))


# "between March and August 2025", "between 2019 and 2022": a range written as "from … to".
_BETWEEN_RE = re.compile(
    r"\bbetween(?=\s+(?:(?:early|mid|late)[- ])?(?:\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct"
    r"|nov|dec|q[1-4]\b))(?P<first>[^;:]{1,30}?)\band\b(?=\s+(?:(?:early|mid|late)[- ])?"
    r"(?:\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|q[1-4]\b))",
    re.I,
)


_ORDINAL_WORDS = {
    word: n
    for n, word in enumerate(
        [
            "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
            "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth",
            "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth",
        ],
        start=1,
    )
}  # fmt: skip
_ORDINAL_WORDS |= {f"twenty-{w}": 20 + n for w, n in list(_ORDINAL_WORDS.items())[:9]}
_ORDINAL_WORDS |= {"thirtieth": 30, "thirty-first": 31}
# "the first of August", "the twenty-first of May": a day of the month in words.
_ORDINAL_DAY_RE = re.compile(
    r"\b(?P<word>" + "|".join(sorted(_ORDINAL_WORDS, key=len, reverse=True)) + r")(?=\s+of\s+"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))",
    re.I,
)


def _ordinal_days(text: str) -> str:
    """`text` with a day's ordinal in words as a number ("first" -> "1st"), offsets unchanged."""

    def number(m: re.Match[str]) -> str:
        day = _ORDINAL_WORDS[m.group("word").lower()]
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(day % 10 if day not in (11, 12, 13) else 0, "th")
        return f"{day}{suffix}".ljust(len(m.group(0)))

    return _ORDINAL_DAY_RE.sub(number, text)


def _between_as_from(text: str) -> str:
    """`text` with "between X and Y" read as "from X to Y", every offset unchanged."""
    return _BETWEEN_RE.sub(lambda m: f"   from{m.group('first')} to", text)


# A change that takes effect as it is announced: "Effective immediately, Tomás reports to
# Hanna", "With immediate effect, Karan joins Risk", "From now on, Ines owns the checklist".
# The said-on day is the start, as "from today" says ("as of now" is as often "currently").
_IMMEDIATE_RE = re.compile(
    r"\b(?:effective\s+immediately|with\s+immediate\s+effect|from\s+now\s+on|starting\s+now)\b",
    re.I,
)


def _immediate_as_today(text: str) -> str:
    """`text` with a start "now" read as "from today", every offset unchanged."""

    def from_today(m: re.Match[str]) -> str:
        wording = m.group(0)
        if wording.lower().startswith("with"):  # "today" where "effect", the phrase's head, is
            return "from" + "today".rjust(len(wording) - 4)
        return "from today".ljust(len(wording))

    return _IMMEDIATE_RE.sub(from_today, text)
