"""Corrections of a dated fact: the date it moved to and the one it replaced.

"moved from 8 June to 9 June", "is on 14 May, not 12 May", "slipped to 29 March", "was
postponed until 3 June": a claim that moves the date of the thing a fact dates (SPEC 4:
corrections move dates, not statements). `features` reads these to tell a correction from a
rival date, in either arrival order.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from services.adjudicator.engines.categories import find_categories
from services.adjudicator.engines.values import DateValue, Value, extract_values, same_value

__all__ = [
    "CORRECTION",
    "NEW_END",
    "correction_cue",
    "moved_away",
    "moved_date",
    "replaced_values",
    "shifted",
    "shifted_by",
    "without_rejected",
    "without_shift",
]

# "not on" corrects only as a replaced value ("is on 14 May, not on 12 May"); "is not on the
# Platform team" is a denial.
CORRECTION = re.compile(
    r"\b(rescheduled|postponed|pushed|delayed|brought forward|moved up|moved back|slipped|"
    r"shifted|correction|corrected|actually|instead of|rather than|updated to|"
    r"extended|extends|prolonged|shortened|cut short|curtailed)\b|,\s*not on\b"
)
# A date moved with no old date stated ("slipped to 29 March", "was pushed back to 14 July",
# "has been postponed until 3 June", "rescheduled for Friday"): the new date of the dated
# fact it names. The fact's own date is the one replaced.
_MOVE_VERB = (
    r"\b(?:rescheduled|postponed|pushed|delayed|brought|moved|slipped|shifted|bumped|pulled)"
)
# The thing moved may stand between the verb and its new date ("we've moved the Albury Foods
# kickoff to 16 June").
_MOVED_THING = r"(?:\s+(?:the|our|their|its|this|that|your)\s+[^,;.]{1,60}?)?"
_MOVED_TO = re.compile(
    _MOVE_VERB
    + r"(?:\s+(?:back|out|forward|up))?"
    # "pushed again, to 1 June", "slipped further to 9 May"
    + r"(?:\s+(?:again|once more|yet again|further))?,?"
    + r"(?P<thing>"
    + _MOVED_THING
    + r")"
    + r"(?:\s+(?:back|out|forward|up|in))?"  # "brought the beta forward to 7 September"
    + r"\s+(?:to|until|till|for|into)\s+(?P<target>[^,;]+)"
)
# A date moved by a stated stretch rather than to a date: "pushed back a week", "postponed by
# two days", "delayed by 3 weeks", "brought forward a day". The new date is the fact's own
# date moved by it.
_SHIFT_UNITS = {"day": 1, "days": 1, "week": 7, "weeks": 7, "fortnight": 14}
_SHIFT_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_SHIFTED = re.compile(
    _MOVE_VERB
    + r"(?P<way>\s+(?:back|out|forward|up))?"
    + _MOVED_THING
    + r"\s+(?:by\s+)?(?:another|(?P<count>a|an|one|two|three|four|five|six|\d{1,2}))\s+"
    r"(?P<unit>days?|weeks?|fortnight)\b"
)
_MOVED = re.compile(_MOVE_VERB)
# A period whose end moved ("the freeze was extended through 21 March").
NEW_END = re.compile(r"\b(extended|extends|prolonged|shortened|cut short|curtailed)\b")
_FROM_TO = re.compile(r"\bfrom\s+(.+?)\s+to\s+(.+?)(?:[.;]|,\s|$)")
# "is on 14 May, not 12 May", "on 14 May instead of 12 May": the value it replaces.
_NOT_OLD = re.compile(r"(?:,\s*not|\binstead of|\brather than)\s+(?:on\s+|at\s+|the\s+)?([^,;.]+)")


def without_rejected(text: str) -> str:
    """The text without the value it rejects: "Lucia is Head of Research, not Design" states
    Head of Research; the rejected "Design" is no word of what it says."""
    return _NOT_OLD.sub("", text)


def correction_cue(lowered: str) -> bool:
    """Whether a claim words itself as a correction ("rescheduled", "actually", "instead
    of"); a status entered with the same verbs ("slipped to at risk") corrects nothing."""
    return bool(CORRECTION.search(lowered)) and not _status_entered(lowered)


def _status_entered(lowered: str) -> bool:
    moved = _MOVED_TO.search(lowered)
    return moved is not None and _names_status(moved.group("target"))


def _names_status(target: str) -> bool:
    """Whether what something moved to is a status ("slipped to at risk", "pushed to on
    hold"): read as "is <target>", a status is the first thing stated."""
    return any(position == len("is ") for position, _ in find_categories("is " + target))


def shifted_by(lowered: str) -> timedelta | None:
    """The stretch a claim moves a date by ("pushed back a week": 7 days; "brought forward two
    days": -2 days), or None."""
    match = _SHIFTED.search(lowered)
    if match is None:
        return None
    count = match.group("count") or "one"  # "delayed by another week"
    days = (int(count) if count.isdigit() else _SHIFT_COUNTS[count]) * _SHIFT_UNITS[
        match.group("unit")
    ]
    earlier = match.group(0).startswith("brought") or (match.group("way") or "").strip() in (
        "forward",
        "up",
    )
    return timedelta(days=-days if earlier else days)


_STRETCH = re.compile(
    r"\s+(?:by\s+)?(?:another|a|an|one|two|three|four|five|six|\d{1,2})\s+(?:days?|weeks?|fortnight)"
    r"\b(?:\s+again)?",
    re.IGNORECASE,
)
_FIRST_PERSON_AGENT = re.compile(
    r"^\s*(?:we|i|they)(?:\s*['’]?ve|\s+have|\s+had)?\s+", re.IGNORECASE
)


def without_shift(text: str) -> str:
    """What a shift is said of, without its stretch or the writers who moved it: "We've delayed
    the launch by another week" is said of "delayed the launch"."""
    return _FIRST_PERSON_AGENT.sub("", _STRETCH.sub("", text))


def shifted(anchor: DateValue, by: timedelta) -> DateValue | None:
    """A day `anchor` moved by `by`; None when the anchor is no whole day."""
    if anchor.year is None or anchor.month is None or anchor.day is None:
        return None
    moved = date(anchor.year, anchor.month, anchor.day) + by
    return DateValue(moved.year, moved.month, moved.day)


def moved_date(lowered: str) -> DateValue | None:
    """The date a claim says something moved to with no old date ("slipped to 29 March"),
    not the date a status was entered on ("slipped to at risk on 13 March")."""
    moved = _MOVED_TO.search(lowered)
    if moved is None or _FROM_TO.search(lowered) or _names_status(moved.group("target")):
        return None
    dates = [v for v in extract_values(moved.group("target")) if isinstance(v, DateValue)]
    return dates[0] if len(dates) == 1 else None


def moved_thing(text: str) -> str | None:
    """What a move names between its verb and the new date ("The team pulled the launch
    forward to 3 November": "the launch"), or None when it names nothing there."""
    moved = _MOVED_TO.search(text.lower())
    thing = moved.group("thing").strip() if moved else ""
    return thing or None


def moved_away(texts: list[str], anchor: DateValue, stated: list[Value]) -> bool:
    """Whether one of the fact's texts moved its date to `anchor` and the assertion states
    another date ("moved from 8 June to 9 June", "slipped to 9 June" or "is now 9 June, not
    8 June" against 8 June)."""
    dates = [v for v in stated if isinstance(v, DateValue)]
    if len(dates) != 1 or same_value(dates[0], anchor):
        return False
    for text in texts:
        lowered = text.lower()
        from_to = _FROM_TO.search(lowered)
        if from_to is not None and (_MOVED.search(lowered) or CORRECTION.search(lowered)):
            old, new = _from_to_values(from_to)
            if any(same_value(v, anchor) for v in new) and any(
                same_value(v, dates[0]) for v in old
            ):
                return True
        moved = moved_date(lowered)
        if moved is not None and same_value(moved, anchor):
            return True
        not_old = _NOT_OLD.search(lowered)  # "is now 12 May, not 5 May"
        if (
            not_old is not None
            and any(same_value(v, dates[0]) for v in extract_values(not_old.group(1)))
            and any(same_value(v, anchor) for v in extract_values(lowered[: not_old.start()]))
        ):
            return True
    return False


def replaced_values(lowered: str, stated: list[Value]) -> tuple[list[Value], list[Value]]:
    """(old, new) values of a stated replacement: "moved from 8 June to 9 June", "is on
    14 May, not 12 May", "on Friday instead of Thursday"; empty lists when there is none."""
    from_to = _FROM_TO.search(lowered)
    if from_to:
        return _from_to_values(from_to)
    not_old = _NOT_OLD.search(lowered)
    if not_old:
        old = extract_values(not_old.group(1))
        return old, [v for v in stated if not any(same_value(v, o) for o in old)]
    return [], []


def _from_to_values(from_to: re.Match[str]) -> tuple[list[Value], list[Value]]:
    """Both sides of "from X to Y"; a bare day borrows the other side's month and year
    ("postponed from 5 to 19 November" moved 5 November)."""
    old, new = extract_values(from_to.group(1)), extract_values(from_to.group(2))
    day = from_to.group(1).strip()
    dated = next((v for v in new if isinstance(v, DateValue) and v.month is not None), None)
    if dated is not None and day.isdigit() and 1 <= int(day) <= 31:
        old = [DateValue(dated.year, dated.month, int(day))]
    return old, new
