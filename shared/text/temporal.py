"""Temporal phrases in English text: the date resolver's pattern tables and the phrases' spans."""

from __future__ import annotations

import calendar
import re

__all__ = [
    "ATOM_RES",
    "BEFORE_RE",
    "DURATION_RE",
    "FROM_RE",
    "JOIN_RE",
    "MONTHS",
    "NUMBERS",
    "ORDER",
    "ORDINAL_Q",
    "SHORT_WEEKDAYS",
    "SINCE_RE",
    "UNTIL_RE",
    "VAGUE_RE",
    "WEEKDAYS",
    "strip_temporal",
    "temporal_spans",
]

MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
MONTHS.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
MONTHS["sept"] = 9
WEEKDAYS = {d.lower(): i for i, d in enumerate(calendar.day_name)}
SHORT_WEEKDAYS = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3}
SHORT_WEEKDAYS |= {"fri": 4, "sat": 5, "sun": 6}
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
NUMBERS |= {"seven": 7, "eight": 8, "nine": 9, "ten": 10}
ORDINAL_Q = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3}
ORDINAL_Q |= {"fourth": 4, "4th": 4, "last": 4}

_MON = (
    r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_MON1 = _MON.replace("?P<mon>", "?P<mon1>")
# A day after a month makes it a date ("May 5"), so a month range stops before one.
_DAY_AFTER = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?\b"
_DAY = r"(?P<day>[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d{2})"
_WD = r"(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_NUM = r"(?P<num>\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
# A time of day ("16:30", "9am", "9:15 p.m.") and an optional zone ("UTC+2", "(CET)", "GMT").
_CLOCK = (
    r"(?:(?P<hh>[01]?\d|2[0-3]):(?P<mi>[0-5]\d)(?:\s*(?P<ampm>[ap]\.?m\.?))?"
    r"|(?P<hh12>1[0-2]|0?[1-9])\s*(?P<ampm12>[ap]\.?m\.?))"
)
_ZONE = (
    r"(?:(?P<utc>utc|gmt|z)\s*(?P<off>[+\-−]\s*\d{1,2}(?::?[0-5]\d)?)?"
    r"|(?P<zone>cest|cet|bst|edt|est|pdt|pst|pt|et|ct|mt|ist|jst|aest|eest|eet|west|wet|sgt|hkt))"
)
# A bare month or year is only temporal after one of these words ("May" is also a modal verb).
_LEAD = r"(?:in|during|since|until|till|by|from|to|through|of|last|next|this|early|mid|late|for)"

# Ordered: the first alternative that matches at a position wins, longer forms first.
_ATOMS: list[tuple[str, str]] = [
    (
        "iso",
        r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})"
        r"(?:[T ](?P<hh>\d{2}):(?P<mi>\d{2})(?::\d{2})?(?P<off>Z|[+-]\d{2}:?\d{2})?)?\b",
    ),
    ("iso_month", r"\b(?P<y>\d{4})-(?P<m>0[1-9]|1[0-2])\b(?!-)"),
    # "05/14/2026", "14/05/2026", "9/14": a numeric day, read only when one number can be no
    # month (an ambiguous "03/04/2026" is March 4 in one country and 3 April in another);
    # "24/7" is a rota, not 24 July.
    (
        "numeric",
        r"(?<![\d/.])(?!24/7\b)(?:(?P<dm_d>1[3-9]|2\d|3[01])/(?P<dm_m>0?[1-9]|1[0-2])"
        r"|(?P<md_m>0?[1-9]|1[0-2])/(?P<md_d>1[3-9]|2\d|3[01]))"
        r"(?:/(?P<ny>(?:19|20)\d{2}|\d{2}))?(?![\d/])",
    ),
    # "21 to 27 September", "23–25 Sept 2026", "June 3-5": days of one month, a range.
    (
        "day_span",
        rf"\b(?P<d1>[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?\s*(?:-|–|to|until|till|through)\s*"
        rf"{_DAY}\s+(?:of\s+)?{_MON}\b(?:,?\s+{_YEAR}\b)?",
    ),
    (
        "span_mdy",
        rf"\b{_MON}\s+(?P<d1>[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?\s*(?:-|–|to|through)\s*"
        rf"{_DAY}\b(?:,?\s+{_YEAR}\b)?",
    ),
    ("mdy", rf"\b{_MON}\s+{_DAY}\b(?:,?\s+{_YEAR}\b)?"),
    ("dmy", rf"\b{_DAY}\s+(?:of\s+)?{_MON}\b(?:,?\s+{_YEAR}\b)?"),
    (
        "year_edge",
        rf"\b(?:the\s+)?(?P<edge>end|start|beginning)\s+of\s+(?:(?P<rel>this|next|last|the)\s+year|{_YEAR})\b",
    ),
    (
        "month_end",
        rf"\b(?:the\s+)?(?P<edge>end|start|beginning)\s+of\s+"
        rf"(?:(?P<rel>this|the|next|last)\s+month|{_MON}(?:\s+{_YEAR})?)\b",
    ),
    # "March-May", "April–June 2026", "Nov 2025 to Jan 2026": whole months, a range ("from
    # March to May" is left to the two ends, which a reschedule reads apart).
    (
        "month_span",
        rf"(?<!from\s)\b{_MON1}(?:\s+(?P<year1>(?:19|20)\d{{2}}))?\s*(?:-|–|—|to|through|until|till)"
        rf"\s*{_MON}(?!\s*{_DAY_AFTER})(?:\s+{_YEAR})?\b",
    ),
    ("my", rf"\b(?:(?P<part>early|mid|late)[- ])?{_MON}\s+{_YEAR}\b"),
    (
        "quarter",
        rf"\b(?:(?P<part>early|mid|late)[- ]|(?P<edge>end|start|beginning)\s+of\s+(?:the\s+)?)?"
        rf"q(?P<q>[1-4])(?:\s*(?:of\s+)?(?:{_YEAR}|fy\s?(?P<fy>(?:20)?\d{{2}})|'(?P<yy>\d{{2}})))?\b",
    ),
    # "H2", "H1 2026", "H2 FY27", "2H26", "the second half of 2026", "the first half of next year"
    (
        "half",
        rf"\b(?:h(?P<h>[12])(?:\s*(?:{_YEAR}|fy\s?(?P<fy>(?:20)?\d{{2}})|'?(?P<yy>\d{{2}})))?"
        # "2H26", "1H 2026"; a bare "2h" is two hours
        rf"|(?P<hn>[12])h\s*(?:(?P<year2>(?:19|20)\d{{2}})|'?(?P<yy2>\d{{2}})))\b",
    ),
    (
        "half_words",
        rf"\b(?:the\s+)?(?P<hw>first|second|1st|2nd)\s+half\s+of\s+"
        rf"(?:(?P<rel>this|next|last|the)\s+year|{_YEAR})\b",
    ),
    (
        "quarter_words",
        rf"\b(?:the\s+)?(?P<qw>first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter(?:\s+of)?(?:\s+{_YEAR})?\b",
    ),
    (
        "rel_unit",
        r"\b(?:(?P<part>early|mid|late)[- ](?:in\s+)?)?"
        r"(?P<rel>last|next|this|past|coming)\s+(?P<unit>week|weekend|month|quarter|year)\b",
    ),
    ("ago", rf"\b{_NUM}\s+(?P<unit>day|week|month|year)s?\s+ago\b"),
    ("in_n", rf"\bin\s+{_NUM}\s+(?P<unit>day|week|month|year)s?\b"),
    (
        "deictic",
        r"\b(?P<deictic>the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|today|tonight|tomorrow|last\s+night|this\s+(?:morning|afternoon|evening))\b",
    ),
    ("weekday", rf"\b(?:(?P<rel>last|next|this|coming|this\s+coming|on)\s+)?{_WD}\b(?!s)"),
    # Chat's short weekdays ("from wed", "out mon-tue", "by fri"): only after a word that
    # makes them a time ("sat", "sun", "wed" are words too).
    (
        "lead_weekday",
        r"\b(?:on|from|until|till|thru|through|by|before|after|(?P<rel>next|this|last|coming))\s+"
        # A short weekday labelling a date after it ("on Fri 27 March") leaves the date to it.
        r"(?P<wda>mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)\.?(?![\w'’])"
        r"(?!,?\s+(?:\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))",
    ),
    # "joined on the 2nd": a day of the month the text is said in (or the one before it).
    (
        "month_day",
        # "on the 3rd floor", "by the 2nd round": an ordinal before a noun is no date.
        r"\b(?:on|since|from|by|until)\s+the\s+(?P<day>[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)\b"
        r"(?!\s+(?!of\b|and\b|or\b|at\b|in\b|to\b|for\b|we\b|i\b|she\b|he\b|they\b)[a-z])",
    ),
    (
        "lead_month",
        rf"\b(?:{_LEAD}\s+)(?:(?P<part>early|mid|late)[- ])?"
        rf"(?P<rel>last\s+|next\s+|this\s+)?{_MON}\b",
    ),
    # "until last spring", "this summer": the season nearest in the direction said.
    (
        "rel_season",
        r"\b(?P<rel>last|this|next|coming|past)\s+(?P<season>spring|summer|autumn|fall|winter)\b",
    ),
    # "over the summer of 2025", "in spring 2026": a season of a year, not the whole year.
    (
        "season",
        rf"\b(?:(?P<part>early|mid|late)[- ])?(?:the\s+)?"
        rf"(?P<season>spring|summer|autumn|fall|winter)(?:\s+of)?\s+{_YEAR}\b",
    ),
    ("lead_year", rf"\b(?:(?P<part>early|mid|late)|{_LEAD}|the\s+year)[- ]{_YEAR}\b"),
    (
        "clock",
        rf"\b(?:at\s+)?{_CLOCK}(?:\s*\(?\s*{_ZONE}\s*\)?)?(?=\W|$)",
    ),
]
ATOM_RES = [(name, re.compile(pattern, re.I)) for name, pattern in _ATOMS]
SINCE_RE = re.compile(
    r"(?:since|starting(?:\s+(?:in|on|from|with))?|as\s+(?:of|from)|effective(?:\s+(?:from|on))?"
    r"|beginning(?:\s+(?:in|on|from|with))?|from"
    # "the new pricing takes effect next quarter", "comes into force on 1 May": a start
    r"|(?:takes?|taking|took|taken|goes|go|going|went|gone|comes?|coming|came)\s+"
    r"(?:into\s+)?(?:effect|force)(?:\s+(?:from|on|in|at))?"
    r"|kicks?\s+in(?:\s+(?:from|on|in|at))?)\s*$",
    re.I,
)
UNTIL_RE = re.compile(r"(?:until|till|through|thru|up\s+to|by|no\s+later\s+than)\s*$", re.I)
BEFORE_RE = re.compile(r"(?:before|prior\s+to)\s*$", re.I)
FROM_RE = re.compile(r"(?:from|between)\s*$", re.I)
JOIN_RE = re.compile(r"^\s*(?:to|until|till|through|thru|and|-|–)\s*$", re.I)
VAGUE_RE = re.compile(
    r"\b(recently|lately|soon|a\s+while|some\s+time|someday|eventually|a\s+few|couple)\b", re.I
)
DURATION_RE = re.compile(
    r"^\W*(?:for\s+|about\s+|over\s+|the\s+(?:last|past)\s+)?(?:\d+|an?|one|two|three|four|"
    r"five|six|seven|eight|nine|ten|several|few|many)\s+(?:second|minute|hour|day|night|week|"
    r"month|year|decade)s?\W*$|\b(?:daily|nightly|weekly|monthly|yearly|annually|every)\b",
    re.I,
)
ORDER: dict[str, int] = {"instant": 0, "day": 1, "month": 2, "quarter": 3, "year": 4}

# Prepositions that introduce a temporal phrase and go with it when it is removed
# ("scheduled for 2026-06-08", "retired in Q3 2026", "moved from June 8 to June 9").
_LEAD_IN_RE = re.compile(
    r"(?:\b(?:in|on|at|by|during|since|until|till|through|from|for|before|after|around|"
    r"between|to|as\s+(?:of|from)|starting(?:\s+(?:in|on|from|with))?|"
    r"beginning(?:\s+(?:in|on|from|with))?|effective(?:\s+(?:from|on|as\s+of))?|"
    r"with\s+effect\s+from|commencing(?:\s+(?:in|on))?)\s+)+$",
    re.I,
)
# "Back in 2024, …", "Way back in March": at a clause's opening the adverb belongs to the date
# ("came back in May" keeps it: there it is the verb's).
_BACK_OPENER_RE = re.compile(r"(?:^|[,;:(]|\b(?:and|but|so)\b)\s*((?:way\s+)?back\s+)$", re.I)
_REJECTED_RE = re.compile(r",\s*(?:and\s+)?not\s+(?:on\s+|in\s+)?$", re.I)
_PREPOSITION_START_RE = re.compile(r"(?:in|on|at|during)\s", re.I)
# "As of March": the month atom took "of" itself, so "as" is left before it.
_AS_BEFORE_OF_RE = re.compile(r"\bas\s+$", re.I)
_MODIFIER_AFTER_RE = re.compile(
    r"\b(?:the|a|an|this|that|these|those|our|their|its|his|her|my|your)\s+$", re.I
)
_SPACE_BEFORE_MARK = re.compile(r"\s+([,.;:!?])")
_DANGLING_MARK = re.compile(r"[,;:]+(?=[.!?]|$)")
# A parenthetical date between commas ("The plan, as of May 2026, costs $40") takes both.
_DOUBLED_COMMA = re.compile(r",(?:\s*,)+")
# A copula whose complement was the date ("the launch is on June 8") goes with it.
_DANGLING_COPULA = re.compile(
    r"\s+(?:(?:will|would|should|must|may|might|could|can)\s+be|is|are|was|were|be|been)"
    r"(?=[.!?]?$)",
    re.I,
)


def temporal_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the temporal phrases in `text`, in order and non-overlapping.

    Each span covers the phrase the date resolver would read, a range's second end ("June 8 to
    June 9") and the preposition that introduces it. Vague words ("recently") are not spans:
    they state no date; nor is a phrase right after a determiner, which modifies a noun.
    """
    atoms: list[tuple[int, int]] = []
    for _, regex in ATOM_RES:
        for match in regex.finditer(text):
            start, end = match.span()
            if not any(s < end and start < e for s, e in atoms):
                atoms.append((start, end))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(atoms):
        if merged and JOIN_RE.match(text[merged[-1][1] : start]):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    spans: list[tuple[int, int]] = []
    for start, end in merged:
        lead = _LEAD_IN_RE.search(text[:start])
        if lead is None and _MODIFIER_AFTER_RE.search(text[:start]):
            continue  # "the Q3 launch", "our June date": part of a name, not a time adverbial
        if lead is None and text[start : start + 3].lower() == "of ":
            lead = _AS_BEFORE_OF_RE.search(text[:start])
        begin = lead.start() if lead else start
        rejected = _REJECTED_RE.search(text[:begin])
        if rejected is not None:  # "now 12 May, not 5 May": the date replaced goes too
            begin = rejected.start()
        introduced = lead is not None or _PREPOSITION_START_RE.match(text, begin) is not None
        if introduced and (back := _BACK_OPENER_RE.search(text[:begin])) is not None:
            begin = back.start(1)
        spans.append((begin, end))
    return spans


# A bracket the date was all of, or all but its verb: "$150k (raised on 20 February)" -> "$150k".
_EMPTIED_BRACKET = re.compile(
    r"\s*\(\s*(?:raised|increased|cut|reduced|lowered|changed|updated|set|moved|revised|"
    r"approved|agreed|since|from|effective|starting|until|as of)?\s*\)",
    re.I,
)


def strip_temporal(text: str) -> str:
    """`text` without its temporal phrases, whitespace and punctuation tidied
    ("Mel joined the payments team yesterday." -> "Mel joined the payments team.")."""
    spans = temporal_spans(text)
    if not spans:
        return text
    kept: list[str] = []
    position = 0
    for start, end in spans:
        kept.append(text[position:start])
        position = end
    kept.append(text[position:])
    stripped = " ".join("".join(kept).split())
    stripped = _DOUBLED_COMMA.sub("", _SPACE_BEFORE_MARK.sub(r"\1", stripped))
    stripped = _EMPTIED_BRACKET.sub("", stripped)
    stripped = _DANGLING_MARK.sub("", stripped).strip(" ,;:")
    stripped = _DANGLING_COPULA.sub("", stripped)
    if not any(ch.isalnum() for ch in stripped):
        return text.strip()
    # A removed sentence opener ("Yesterday, we shipped.") leaves the next word to start it.
    return stripped[0].upper() + stripped[1:] if text.lstrip()[:1].isupper() else stripped
