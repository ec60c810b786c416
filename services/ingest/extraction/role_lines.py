"""Lines that name who holds a role: "Owner: Lucia Moreno", "Project lead - Omar Haddad",
"Owner of the sync workstream: Lucia Moreno", "Billing migration DRI: Ama Owusu".

Status reports and wiki infoboxes list owners and leads as a key, a separator and a name, with
no verb. The small parser reads them badly (the role word as a verb, the name as an adverbial),
so they are read off the line's shape instead: a key whose last word before any "of"/"for" is a
role, a colon or a spaced dash, and one person's name as the whole value. The person holds the
role in what the key names after "of"/"for" or before the role word ("the sync workstream",
"Billing migration"), else in what the document is about (its title's topic). The role's verb
("own", "lead") is the predicate the normalizer maps, as it does "Lucia owns the sync".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from services.ingest.extraction.base import (
    ExtractedClaim,
    ExtractedRelation,
    ExtractionInput,
    Span,
)
from services.ingest.extraction.dates import TimeWindow
from services.ingest.extraction.mentions import TITLE_WORDS, title_topic
from shared.entities.given_names import is_given_name
from shared.entities.normalize import normalize_name
from shared.text.units import person_shaped

__all__ = [
    "RoleLine",
    "heading_topic",
    "one_person",
    "opened_at",
    "role_claim",
    "role_line",
    "value_since",
]

# A role word and the verb of holding it.
_ROLE_VERBS = {
    "owner": "own", "dri": "own", "assignee": "own",
    "lead": "lead", "head": "lead", "pm": "lead", "captain": "lead", "coordinator": "lead",
    "em": "lead", "tl": "lead", "sponsor": "own", "csm": "own",
    "champion": "lead",
    # An infobox's officers ("CEO: Hana Sato" on the Corvane page): employed by the topic.
    "ceo": "work for", "cto": "work for", "cfo": "work for", "coo": "work for",
    "cmo": "work for", "cpo": "work for", "ciso": "work for", "president": "work for",
}  # fmt: skip
# Words before a role that say what kind of role it is, not what it is held in ("Project
# lead", "Tech lead", "Interim owner").
_KINDS = frozenset(
    {
        "project", "tech", "technical", "product", "program", "programme", "engineering",
        "team", "account", "delivery", "release", "interim", "acting", "exec", "executive",
        "business", "design", "main", "primary", "overall", "new", "current", "workstream",
        "eng", "dev", "qa", "ops", "the", "incoming", "outgoing",
    }
)  # fmt: skip
_LINE_RE = re.compile(
    r"^\s*(?P<key>[A-Za-z][A-Za-z0-9 &/'’.-]{0,60}?)\s*(?::|\s[-–—]\s)\s*"
    r"(?P<value>[^\n:]+?)\s*[.;]?\s*$"
)
_MAX_NAME_WORDS = 4
# A value's trailing parenthesis that dates it: "(from 1 April)", "(since March)", "(as of 2 May)",
# also after a word of succession or change: "(took over from Ivo on 9 February)", "(replacing
# Ana in May)", "(raised on 20 February)".
_DATED_RE = re.compile(
    r"\s*\((?:(?:took\s+over|taking\s+over|takes\s+over|replacing|replaced|succeeding|"
    r"succeeded|raised|increased|cut|reduced|lowered|changed|updated|set|moved|revised|"
    r"approved|agreed)\b[^()]*\s)?"
    r"(?P<when>(?:from|since|as\s+of|starting|effective|on|in)\s[^()]+)\)?\s*$",
    re.I,
)

# Any other trailing parenthesis: a note beside the value, read as a clause of its own.
_NOTE_RE = re.compile(r"\s*\(([^()]+)\)\s*$")


@dataclass(frozen=True)
class RoleLine:
    """Who holds the role, the verb of holding it, and the tokens of what it is held in (None:
    the document's topic)."""

    holder: tuple[Any, ...]
    verb: str
    held_in: tuple[Any, ...] | None
    since: str | None = None  # "Owner: Mei Lin (from 1 April)": when the holder took it
    # "Headquarters: Oslo": the value is where the topic is, so the topic is the subject.
    topic_first: bool = False
    # "Owner: Sunita Rao (Felix moved to the Growth team)": the document offsets of a trailing
    # parenthesis that does not date the value, a note of its own.
    note: tuple[int, int] | None = None
    # "Members: Jin Park, Lea Novak": the holders after the first, each holding it alike.
    others: tuple[tuple[Any, ...], ...] = ()
    # "Priya Nandakumar — Director, Payments (reports to Tomás Ferreira)": her manager.
    reports_to: tuple[Any, ...] | None = None


_HEADING_WORDS = 5


# Keys whose value names what the lines under it are about ("Project: Data retention").
_TOPIC_KEYS = frozenset(
    {
        "project", "initiative", "workstream", "epic", "programme", "program", "product",
        "feature", "service", "system", "component", "account", "client", "customer", "deal",
        "vendor", "supplier", "partner", "campaign", "release", "milestone", "topic", "item",
    }
)  # fmt: skip


def heading_topic(sent: Any) -> str | None:
    """The topic a heading line names for the key-value lines under it ("Project Kite" then
    "Owner: Sven Dahl", "Status: amber"): a short capitalised line on its own, with no
    punctuation, or a topic key's line ("Project: Data retention", "Client: Harbour Foods"),
    followed by a "Key: value" line. Its name, as a title's topic is read."""
    words = [t for t in sent if not t.is_space]
    if not words or not sent.text.endswith("\n") or not _over_key_line(sent):
        return None
    if len(words) > 2 and words[0].lower_ in _TOPIC_KEYS and words[1].text == ":":
        value = words[2:]
        if len(value) <= _HEADING_WORDS and not any(t.text in ".!?;" for t in value):
            return str(sent.doc[value[0].i : value[-1].i + 1].text)
        return None
    if len(words) > _HEADING_WORDS:
        return None
    if not words[0].text[:1].isupper() or any(t.is_punct and t.text != "&" for t in words):
        return None
    # "Project Heron": NER and the title reading may see no name in a common word ("heron").
    named = title_topic(sent.as_doc())
    if named is None and any(t.lower_ not in TITLE_WORDS for t in words) and len(words) > 1:
        named = " ".join(t.text for t in words)
    return named


def _over_key_line(sent: Any) -> bool:
    """Whether the line after `sent` is a "Key: value" line."""
    following = sent.doc[sent.end :]
    line = following.text.split("\n", 1)[0] if following else ""
    return ":" in line and _LINE_RE.match(line) is not None


def role_line(sent: Any) -> RoleLine | None:
    """The role a verbless key-value line gives a person, or None for any other line."""
    match = _LINE_RE.match(sent.text)
    if match is None:
        return None
    base = sent.start_char
    key = _tokens_in(sent, base + match.start("key"), base + match.end("key"))
    value_end, since, note = match.end("value"), None, None
    dated = _DATED_RE.search(match.group("value"))
    noted = _NOTE_RE.search(match.group("value"))
    if dated is not None:
        value_end, since = match.start("value") + dated.start(), dated.group("when")
    elif noted is not None:
        value_end = match.start("value") + noted.start()
        at = base + match.start("value")
        note = (at + noted.start(1), at + noted.end(1))
    value = _tokens_in(sent, base + match.start("value"), base + value_end)
    if " ".join(t.lower_ for t in key) in _PLACE_KEYS and _one_place(value):
        return RoleLine(tuple(value), "be based in", None, since, topic_first=True, note=note)
    if " ".join(t.lower_ for t in key) in _MEMBER_KEYS:
        members = _people(sent, base + match.start("value"), base + value_end)
        if members:  # "Members: Jin Park, Lea Novak" under "Search team"
            first, *rest = members
            return RoleLine(first, "member of", None, since, note=note, others=tuple(rest))
    if not key or not one_person(value):
        return None
    split = next((i for i, t in enumerate(key) if t.lower_ in ("of", "for")), len(key))
    role_part, held_part = key[:split], key[split + 1 :]
    if not role_part:
        return None
    verb = _ROLE_VERBS.get(role_part[-1].lower_.rstrip("."))
    if verb is None and _manages_the_topic(role_part):
        verb = "lead"
    if verb is None:
        return None
    held: tuple[Any, ...] | None = tuple(held_part) or None
    if held is None:
        modifiers = [t for t in role_part[:-1] if t.lower_ not in _KINDS]
        held = tuple(modifiers) or None
    return RoleLine(tuple(value), verb, held, since, note=note)


# A manager of the team or its work ("Engineering manager: Ilse Marwood"), not of a place or a
# function ("Office manager: Katarzyna Nowak" works there, leads nothing of the page's).
_LEADING_MANAGERS = frozenset({"engineering", "eng", "team", "delivery", "product", "project"})


def _manages_the_topic(role_part: Sequence[Any]) -> bool:
    return (
        len(role_part) == 2
        and role_part[-1].lower_ == "manager"
        and role_part[0].lower_ in _LEADING_MANAGERS
    )


def value_since(sent: Any) -> str | None:
    """The date phrase of a key-value line's dating parenthesis ("Budget: $150k (raised on
    20 February)", "Status: amber (since 3 March)"), or None."""
    match = _LINE_RE.match(sent.text)
    if match is None or ":" not in sent.text[: match.end("key") + 2]:
        return None
    dated = _DATED_RE.search(match.group("value"))
    return dated.group("when") if dated is not None else None


def opened_at(claim: ExtractedClaim, since: TimeWindow) -> ExtractedClaim:
    """A value line's claim holding from the date its parenthesis gives, open-ended (a claim
    the clause itself dated keeps its own window)."""
    if since.valid_from is None or claim.claim_valid_from is not None:
        return claim
    return replace(
        claim,
        claim_valid_from=since.valid_from,
        claim_valid_until=None,
        claim_valid_precision=since.precision,
        claim_valid_kind="effective_period",
    )


def _tokens_in(sent: Any, start: int, end: int) -> list[Any]:
    return [t for t in sent if start <= t.idx < end and not t.is_punct and not t.is_space]


# An infobox's keys whose value is where the page's subject is ("Headquarters: Oslo").
_PLACE_KEYS = frozenset(
    {"headquarters", "hq", "head office", "headquartered in", "based in", "location", "base"}
)


def _one_place(tokens: list[Any]) -> bool:
    """A whole value that is one place's name: one to three capitalised words."""
    return 1 <= len(tokens) <= 3 and all(t.text[:1].isupper() and t.is_alpha for t in tokens)


# Keys whose value lists the people of the block's topic (a team).
_MEMBER_KEYS = frozenset({"members", "team members", "team", "people", "engineers", "staff"})


def _people(sent: Any, start: int, end: int) -> list[tuple[Any, ...]]:
    """The names of a list value ("Jin Park, Lea Novak and Ama Owusu"), or [] unless every
    item is one person's name."""
    items: list[list[Any]] = [[]]
    for tok in (t for t in sent if start <= t.idx < end and not t.is_space):
        if tok.text in (",", "&", ";") or tok.lower_ == "and":
            items.append([])
        else:
            items[-1].append(tok)
    names = [item for item in items if item]
    if not names or not all(one_person(item) for item in names):
        return []
    return [tuple(item) for item in names]


def one_person(tokens: list[Any]) -> bool:
    """A whole value that is one person's name: capitalised words, read as a person by NER or
    opening with a common given name."""
    if not 1 <= len(tokens) <= _MAX_NAME_WORDS:
        return False
    if not all(t.text[:1].isupper() and t.is_alpha for t in tokens):
        return False
    # After a role key a full name's shape is enough ("EM: Radomir Pešek"): the key says a
    # person holds it, whatever NER made of a name the given-name list lacks.
    return (
        all(t.ent_type_ == "PERSON" for t in tokens)
        or is_given_name(normalize_name(tokens[0].text))
        or person_shaped(" ".join(t.text for t in tokens))
    )


def role_claim(
    inp: ExtractionInput,
    sent: Any,
    line: RoleLine,
    render: Callable[[Sequence[Any]], str],
    topic: str | None,
    since: TimeWindow | None = None,
) -> ExtractedClaim | None:
    """The claim of a role line: the holder (short forms expanded) holds the role in what the
    key names, else in the document's topic; None when neither names anything. `since` is
    the line's parenthesis resolved ("(from 1 April)", "(took over on 9 February)"): the
    holding starts then and is open-ended, whatever period the date itself names."""
    held = render(line.held_in) if line.held_in else topic
    holder = render(line.holder)
    if not held or not holder:
        return None
    subject, obj = (held, holder) if line.topic_first else (holder, held)
    end = sent.end_char if line.note is None else line.note[0] - 1  # before the note's "("
    line_text = sent.doc.text[sent.start_char : end]
    text = line_text.strip().rstrip("—–- ")  # "Owner: Dana Kim – she took over …"
    start = inp.base_offset + sent.start_char + (len(line_text) - len(line_text.lstrip()))
    span = Span(start, start + len(text), text)
    return ExtractedClaim(
        claim_text=" ".join(text.rstrip(".;").split()),
        char_start=span.char_start,
        char_end=span.char_end,
        source_span=text,
        evidence_spans=(span,),
        claim_valid_from=since.valid_from if since else None,
        claim_valid_until=None,  # the holding starts then and holds on
        claim_valid_precision=since.precision if since else "unknown",
        claim_valid_kind="effective_period" if since else None,
        is_attributed=False,
        holder=None,
        polarity="positive",
        subject_text=subject,
        predicate_text=line.verb,
        object_text=obj,
        extra_relations=tuple(
            ExtractedRelation(render(other), line.verb, obj) for other in line.others
        )
        + (
            (ExtractedRelation(holder, "report to", render(line.reports_to), False),)
            if line.reports_to
            else ()
        ),
    )
