"""Org-chart and directory lines that open with a person: "Priya Nandakumar — Director,
Payments (reports to Tomás Ferreira)", "Mei Lin - Engineering Manager, Risk (since March)".

The inverse of a role line ("Owner: Lucia Moreno"): the name first, then a separator and the
person's title, then the unit it is held in after a comma, then notes in brackets. No verb, so
the parser reads nothing; the line's shape says the person is a member of the unit (or of what
the page is about when no unit follows the title), reports to whom a "reports to" bracket
names, and holds it since the date a "since"/"from" bracket gives.
"""

from __future__ import annotations

import re
from typing import Any

from services.ingest.extraction.names import ROLE_WORDS
from services.ingest.extraction.role_lines import RoleLine, one_person
from shared.text.units import names_an_organisation

__all__ = ["person_line"]

# The person's name, a separator, then the rest: "Priya Nandakumar — Director, Payments (…)".
_LINE_RE = re.compile(
    r"^(?P<lead>\s*)(?P<name>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){1,3})\s*(?:[—–]|\s-|,)\s*"
    r"(?P<title>[^,()\n]+?)\s*(?:,\s*(?P<unit>[A-Z][^,()\n]*?))?\s*(?P<notes>(?:\([^()\n]*\)\s*)*)"
    r"[.;]?\s*$"
)
_REPORTS_RE = re.compile(r"\breports?\s+to\s+(?P<manager>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3})")
_SINCE_RE = re.compile(r"\((?P<when>(?:since|from|as\s+of|starting|effective)\s[^()]+)\)", re.I)


def person_line(sent: Any) -> RoleLine | None:
    """The person, the unit they are a member of (None: the page's topic), their manager and
    since when, of a whole line shaped like an org chart's entry; None otherwise."""
    text = sent.text.rstrip()
    match = _LINE_RE.match(text)
    if match is None or "\n" in text.strip():
        return None
    title_words = match.group("title").lower().replace("-", " ").split()
    if not title_words or not set(title_words) & ROLE_WORDS or len(title_words) > 6:
        return None  # "Dana Kim - joined last week": no title, a clause the parser reads
    name = _tokens(sent, match.start("name"), match.end("name"))
    if not one_person(name):
        return None
    unit = _tokens(sent, *match.span("unit")) if match.group("unit") else None
    notes = match.group("notes") or ""
    reports = _REPORTS_RE.search(notes)
    manager = None
    if reports is not None:
        at = match.start("notes") + reports.start("manager")
        manager = _tokens(sent, at, at + len(reports.group("manager")))
    since = _SINCE_RE.search(notes)
    # "Director, Payments" is a unit of the page's organisation; "Head of Platform, Lumio
    # Labs" names an employer.
    employer = unit is not None and (
        names_an_organisation(match.group("unit")) or any(t.ent_type_ == "ORG" for t in unit[1:])
    )
    return RoleLine(
        tuple(name),
        "work for" if employer else "member of",
        tuple(unit) if unit else None,
        since.group("when") if since else None,
        reports_to=tuple(manager) if manager else None,
    )


def _tokens(sent: Any, start: int, end: int) -> list[Any]:
    """The sentence's tokens within the line's characters [start, end)."""
    return [
        t
        for t in sent
        if start <= t.idx - sent.start_char < end and not t.is_space and not t.is_punct
    ]
