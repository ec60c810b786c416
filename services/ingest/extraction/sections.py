"""What a Markdown section says about the passages under it (wiki pages, team pages).

A heading names what the lines under it are about ("## Search team" over "Members: Jin Park,
Lea Novak"; "# Project Kite" over "Owner: Sven Dahl") when it names a thing, read as a title
is (`mentions.title_topic`); a heading that only says what kind of section it is ("People",
"Overview") names nothing, and the heading above it, then the document's title, speaks
instead. Under a section of people ("## People", "## Team members") each list line that opens
with one person's name ("- Oluwaseun Akintola - backend engineer", "- Mira Osei (lead)") places
that person in what the page is about.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from services.ingest.extraction.base import ExtractionInput
from services.ingest.extraction.role_lines import RoleLine, one_person
from shared.text.units import person_shaped

__all__ = ["lists_members", "member_line", "section_topic"]

# Headings of a section that lists a unit's people.
_PEOPLE_HEADINGS = frozenset(
    {"people", "members", "team", "team members", "the team", "who's who", "staff", "roster"}
    | {"our team", "team roster", "who we are", "engineers", "contacts"}
)
# What may follow the name on a member's line: a role after a dash or comma, or in brackets.
_AFTER_NAME = re.compile(r"\s*(?:[-–—,:(].*)?$")


def section_topic(inp: ExtractionInput, topics: Mapping[str, str | None]) -> str | None:
    """What the passage's innermost naming heading names, else the document title's topic.
    A heading that begins the title's own topic ("Payments Platform" on the "Payments Platform
    team page") is the title's topic, so one page names one thing."""
    document = topics.get(inp.document_title or "")
    for heading in reversed(inp.headings):
        named = topics.get(heading)
        if named:
            if document and document.lower().startswith(named.lower()):
                return document
            return named
    return document


def lists_members(inp: ExtractionInput) -> bool:
    """Whether the passage sits under a section of people."""
    return bool(inp.headings) and inp.headings[-1].strip().lower() in _PEOPLE_HEADINGS


def member_line(sent: Any) -> RoleLine | None:
    """A list line of a people section that opens with one person's name."""
    text = sent.text.rstrip()
    match = _AFTER_NAME.search(text, pos=_name_end(text))
    if match is None:
        return None
    name = [
        t
        for t in sent
        if sent.start_char + len(text) - len(text.lstrip()) <= t.idx
        and t.idx < sent.start_char + match.start()
        and not t.is_space
    ]
    if not (one_person(name) or person_shaped(" ".join(t.text for t in name))):
        return None  # a people section vouches for a full name the given-name list lacks
    return RoleLine(tuple(name), "member of", None)


def _name_end(text: str) -> int:
    """Where the line's leading run of capitalised words ends."""
    found = re.match(r"\s*(?:[A-Z][\w'’.-]*\s*){1,4}", text)
    return found.end() if found else 0
