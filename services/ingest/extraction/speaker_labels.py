"""Who says a line of notes or a transcript: "Selam: backfill for July is done", or a passage
of labelled lines ("Interviewer: So where are you now?" / "Hamid Rahimi: Since June I've been
on the Risk team") read one line at a time, each with its own speaker."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from services.ingest.extraction.base import ExtractionInput
from services.ingest.extraction.coref import is_honorific
from services.ingest.extraction.markers import capitalised_at, mask_markers
from services.ingest.extraction.names import CALENDAR_WORDS, ROLE_WORDS
from services.ingest.extraction.unknown_words import is_english
from shared.entities.given_names import is_given_name
from shared.text.units import person_shaped

__all__ = ["introduced", "part_label_blanked", "speaker_label", "speaker_lines"]

# Lines that must carry a speaker's label before a passage is read line by line.
_LABELLED_LINES = 2
# Keys of a key-value line that the given-name list also holds: "Owner: Lucia Moreno" names
# the owner, it is not Owner speaking.
_ROLE_KEYS = frozenset({"owner", "champion", "seller"})
# Labels of a conversation's parts rather than of a person: they make a passage a transcript,
# but "I" in their lines is no one we can name.
_PART_LABELS = frozenset(
    {
        "interviewer", "interviewee", "host", "moderator", "presenter", "chair", "facilitator",
        "reporter", "journalist", "q", "a", "question", "answer", "customer", "agent", "caller",
        "user", "assistant", "guest", "panelist", "audience",
    }
)  # fmt: skip
# A label may name the speaker's role or name in brackets: "Sabine Hart (CEO):", "Agent
# (Chloé):", "Customer (Dr. Aaron Whitfield):".
_ROLE_ABBREVIATIONS = frozenset({"csm", "dri", "pm", "em", "tl", "ae", "sdr"})
_LABEL_RE = re.compile(
    r"^(?P<lead>[ \t>*\-•]*)(?P<label>(?P<name>[A-Z][\w'’.-]*(?:[ \t][A-Z][\w'’.-]+){0,2})"
    r"(?:[ \t]*\((?P<note>[^()\n:]{1,40})\))?[ \t]*:)[ \t]+(?=\S)"
)
# A chat's lower-case handle ("tavi: fyi sam r is out …"): one word, read as a label only when
# every line of the passage carries one (`_chat_labels`).
_HANDLE_RE = re.compile(
    r"^(?P<lead>[ \t>*\-•]*)(?P<label>(?P<name>[a-z][a-z0-9'’._-]{1,30})[ \t]*:)[ \t]+(?=\S)"
)
# Words a lower-case line opens with before a colon that label the line, not a person.
_NOT_HANDLES = frozenset({"fyi", "re", "fwd", "note", "update", "eta", "ps", "nb", "edit", "btw"})


def _who(match: re.Match[str]) -> str:
    """The name a label gives its speaker: a part's label with a person's name in brackets
    ("Agent (Chloé)") is that person, a name with a role in brackets ("Sabine Hart (CEO)") the
    name; honorifics go ("Dr. Aaron Whitfield" is Aaron Whitfield) and a name in capitals
    ("SABINE HART") is written as a name."""
    name, note = match.group("name"), (match.groupdict().get("note") or "").strip()
    words = note.split()
    while words and is_honorific(words[0]):
        words = words[1:]
    bracketed = " ".join(words)
    if (
        name.lower() in _PART_LABELS
        and bracketed[:1].isupper()
        and (is_given_name(words[0].lower()) or person_shaped(bracketed))
    ):
        name = bracketed
    if name.isupper() and len(name) > 3:
        name = name.title()
    return name


def speaker_label(text: str, introductions: dict[str, str] | None = None) -> tuple[str, str] | None:
    """ "Selam: backfill for July is done" in meeting notes: the person who said the line and
    the line with the label blanked (offsets unchanged), or None. Only a label that opens with
    a common given name, or a person's full name, is a speaker, and a single unlisted word
    when the line speaks in the first person ("Brenna: I'm on leave"); "Decision:",
    "Owner:" or "Update:" are not."""
    match = _LABEL_RE.match(text)
    if match is None:
        return None
    name = _who(match)
    introductions = introductions or {}
    start, end = match.span("label")
    if name.lower() in _PART_LABELS and name.lower() in introductions:
        return introductions[name.lower()], _blanked(text, match)  # "User: we moved …"
    if name.lower() in _ROLE_KEYS | _PART_LABELS or not mask_markers(text)[start:end].strip():
        return None  # "Owner: Lucia Moreno", "Update: I moved to Berlin"
    if name.split()[-1].lower() in ROLE_WORDS | _ROLE_ABBREVIATIONS:
        return None  # "Incoming CSM: Marcus Oyelaran", "Project Lead: Ana Ruiz": a role's key
    said = text[match.end() :]
    if not (
        is_given_name(name.split()[0].lower())
        or person_shaped(name)  # "Brenna Holt: from today I report to Mei Tan"
        or (" " not in name and name.lower() not in _LINE_KEYS and _FIRST_PERSON.search(said))
    ):
        return None
    return name, _blanked(text, match)


def part_label_blanked(text: str) -> str | None:
    """A line a conversation's part says ("Assistant: Congratulations!", "Customer: I run 14
    scanners") with the part's label blanked, or None: the label is no word of what is said,
    though it names no one."""
    match = _LABEL_RE.match(text)
    if match is None or _who(match).lower() not in _PART_LABELS:
        return None
    return _blanked(text, match)


# Keys of a report's lines that a first-person line may follow ("Status: I think we're fine").
_LINE_KEYS = frozenset(
    {
        "status", "health", "summary", "risk", "risks", "blocker", "blockers", "issue",
        "issues", "next", "action", "actions", "decision", "decisions", "outcome", "agenda",
        "topic", "context", "background", "result", "results", "progress", "plan", "goal",
        "goals", "comment", "comments", "reason", "impact", "ask", "asks", "notes", "todo",
    }
)  # fmt: skip
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I’m|I've|I’ve|I'll|I’ll|I'd|my|me)\b")


def speaker_lines(inp: ExtractionInput) -> list[ExtractionInput]:
    """A passage of several labelled lines ("- Ana Ruiz: migration is blocked on the vendor",
    "- Ben Okoro: started on the billing export") as one passage per line, so each line has
    its own speaker (`speaker_label` reads a passage's opening label only); the passage
    itself otherwise. The text before a line is its context.

    A line is labelled by a person when the label opens with a given name; in a transcript
    (a part's label such as "Interviewer:", labels that each recur, or every line labelled by
    one of several names) any name-like label is its speaker, so "Ngozi Eze:" speaks even
    though the given-name list lacks "Ngozi"."""
    if inp.speaker is not None or "\n" not in inp.text:
        return [inp]
    lines, offset = [], 0
    for line in inp.text.split("\n"):
        lines.append((offset, line, _LABEL_RE.match(line)))
        offset += len(line) + 1
    lines = _chat_labels(lines)
    labels = Counter(_who(m) for _, _, m in lines if m is not None)
    parts = {name for name in labels if name.lower() in _PART_LABELS}
    # Every line of a channel's page labelled ("Morwenna: Ingrid's back", "Ingrid: Good to be
    # back"): a chat log, whose labels are its speakers however rare the names or how often
    # each speaks (a wiki's "Budget: … / Owner: …" lines are keys).
    every_line = (inp.document_title or "").startswith("#") and all(
        m is not None for _, line, m in lines if line.strip()
    )
    transcript = (
        bool(parts)
        or (len(labels) >= 2 and min(labels.values()) >= 2)
        or (len(labels) >= 2 and every_line)
    )
    named = {name for name in labels if speaker_label(name + ": x") is not None}
    speakers = set(labels) - _key_like(labels) if transcript else named
    if sum(labels[name] for name in speakers | parts) < _LABELLED_LINES:
        return [inp]
    # Who the parts said they are, read once for the passage (not again for every line).
    people = introduced(f"{inp.context or ''}\n{inp.text}") if parts else {}
    pieces = []
    for start, line, match in lines:
        if not line.strip():
            continue
        before = inp.text[:start].rstrip()
        context = "\n\n".join(p for p in (inp.context, before) if p) or None
        piece = replace(inp, text=line, base_offset=inp.base_offset + start, context=context)
        pieces.append(_unlabelled(piece, match, parts, speakers - named, people))
    return pieces


# "User: hi! I'm Tomasz Wrobel", "Customer: this is Dr. Aaron Whitfield", "Caller: my name is
# Ana Ruiz": a conversation's part that introduces itself is that person from then on.
_INTRODUCTION_RE = re.compile(
    r"(?im)^[ \t>*\-•]*(?P<part>[A-Za-z]+)[ \t]*:[^\n]*?\b"
    r"(?:(?:i\s*['’]?m|i\s+am|my\s+name\s+is|my\s+name['’]s|this\s+is)[ \t]+"
    r"(?P<name>(?-i:[A-Z][\w'’.-]*(?:[ \t]+[A-Z][\w'’-]+){0,3}))"
    # "hey, it's Tomasz Wrobel again": a full name only ("it's Monday" is no one).
    r"|it\s*['’]?s[ \t]+(?P<full>(?-i:[A-Z][\w'’-]+(?:[ \t]+[A-Z][\w'’-]+){1,2})))"
)


def introduced(text: str) -> dict[str, str]:
    """The people a conversation's parts say they are, by part (lower case): "User: hi! I'm
    Tomasz Wrobel" makes the user Tomasz Wrobel, so "I" in the user's later lines is him."""
    found: dict[str, str] = {}
    for match in _INTRODUCTION_RE.finditer(text):
        part = match.group("part").lower()
        words = (match.group("name") or match.group("full")).split()
        while words and is_honorific(words[0]):
            words = words[1:]
        name = " ".join(words)
        first = words[0].lower() if words else ""
        # "this is Monday": the names list holds weekdays and months too.
        # A full name need not open with a listed given name ("Bartholomew Quaye").
        personal = is_given_name(first) or (len(words) > 1 and person_shaped(name))
        if part in _PART_LABELS and personal and first not in CALENDAR_WORDS:
            found.setdefault(part, name)
    return found


def _unlabelled(
    piece: ExtractionInput,
    match: re.Match[str] | None,
    parts: set[str],
    speakers: set[str],
    people: dict[str, str],
) -> ExtractionInput:
    """The line with a part's label blanked ("Interviewer:", "Q:": said by the person the part
    introduced itself as, in `people`, else by no one we can name), or a transcript speaker's
    label blanked and its name the speaker; a line with a given name's label is left to
    `speaker_label`."""
    if match is None:
        return piece
    name = _who(match)
    if name in parts:
        return replace(piece, text=_blanked(piece.text, match), speaker=people.get(name.lower()))
    if name in speakers:
        speaker = name[:1].upper() + name[1:]  # a handle "tavi" is Tavi
        return replace(piece, text=_blanked(piece.text, match), speaker=speaker)
    return piece


_LOWER_WORD = re.compile(r"\b[a-z][a-z-]+\b")


def _names_capitalised(text: str, handles: set[str]) -> str:
    """A lower-case chat line with its people's names capitalised (offsets unchanged), so the
    tagger reads them as names: the chat's handles ("ping bastien"), and given names that are
    no English word ("ottoline's on leave", not "will" or "may")."""

    from spacy.lang.en.stop_words import STOP_WORDS  # the word lists hold no function words

    def name(match: re.Match[str]) -> str:
        word = match.group(0)
        if word in handles or (
            is_given_name(word) and not is_english(word) and word not in STOP_WORDS
        ):
            return word[:1].upper() + word[1:]
        return word

    return _LOWER_WORD.sub(name, text)


_Line = tuple[int, str, "re.Match[str] | None"]


def _chat_labels(lines: list[_Line]) -> list[_Line]:
    """The lines with their lower-case handles read as labels when the passage is a chat log
    written in lower case: every non-blank line opens with a one-word handle and a colon, and
    at least two handles speak ("tavi: kenji is covering …" / "kenji: yep send them my way");
    else the lines as they were."""
    handles = [(start, line, match or _HANDLE_RE.match(line)) for start, line, match in lines]
    spoken = [m for _, line, m in handles if line.strip()]
    names = {m.group("name").lower() for m in spoken if m is not None}
    if None in spoken or len(names) < 2 or names & (_NOT_HANDLES | _LINE_KEYS | _ROLE_KEYS):
        return lines
    return [(start, _names_capitalised(line, names), match) for start, line, match in handles]


def _key_like(labels: Counter[str]) -> set[str]:
    """Labels that are a role key or a conversation's part, not a person."""
    return {name for name in labels if name.lower() in _ROLE_KEYS | _PART_LABELS}


def _blanked(text: str, match: re.Match[str]) -> str:
    """The line with its label blanked (offsets unchanged), what was said capitalised as a
    sentence's opening: "Morwenna: the Lisbon office closes on Friday" left a lower-case
    line after spaces, which the parser cut apart and no claim came of."""
    start, end = match.span("label")
    said = text[end:]
    blanked = text[:start] + " " * (end - start) + said
    return capitalised_at(blanked, [end + len(said) - len(said.lstrip())])
