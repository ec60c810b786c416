"""Media types: which pipeline a document takes, text decoding, HTML to text, conversation turns."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Literal

__all__ = [
    "CONVERSATION_MEDIA_TYPE",
    "FormatKind",
    "MalformedTurn",
    "Turn",
    "UndecodableText",
    "classify",
    "decode_text",
    "html_to_text",
    "normalize_media_type",
    "parse_turns",
]

FormatKind = Literal["prose", "conversation", "chunk_only", "parked"]

CONVERSATION_MEDIA_TYPE = "text/x-rememberstack-conversation"

_PROSE_TYPES = frozenset(
    {"text/plain", "text/markdown", "text/x-markdown", "text/html", "application/xhtml+xml"}
)
_TEXTUAL_APPLICATION_TYPES = frozenset(
    {
        "application/json",
        "application/ld+json",
        "application/x-ndjson",
        "application/xml",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/sql",
        "application/javascript",
        "application/x-sh",
        "application/x-python",
        "application/graphql",
    }
)
# Binary text-ish types that would decode to noise; everything else under text/ is chunkable.
_BINARY_TEXT_TYPES = frozenset({"text/rtf"})

_TURN_LINE = re.compile(
    r"\[(?P<turn_id>[^|\]]+)\|(?P<timestamp>[^\]]*)\] (?P<speaker>[^:]+):(?P<text>.*)"
)
_EMPTY_TIMESTAMPS = frozenset({"", "-"})


class UndecodableText(ValueError):
    """The bytes are not UTF-8 text (or hold NUL characters, which Postgres text cannot store)."""


class MalformedTurn(ValueError):
    """A conversation line does not follow ``[<turn-id> | <timestamp>] <speaker>: <text>``."""

    def __init__(self, line_number: int, problem: str) -> None:
        super().__init__(f"conversation line {line_number}: {problem}")
        self.line_number = line_number


@dataclass(frozen=True, slots=True)
class Turn:
    """One conversation turn.

    ``char_start``/``char_end`` bound the utterance text and ``line_start``/``line_end`` the
    whole line (brackets and speaker included, newline excluded), both as half-open character
    offsets into the document; ``line_number`` is 1-based. ``timestamp`` is UTC or None.
    """

    turn_id: str
    timestamp: datetime | None
    speaker: str
    text: str
    char_start: int
    char_end: int
    line_start: int
    line_end: int
    line_number: int


def normalize_media_type(media_type: str) -> str:
    """``"Text/HTML; charset=utf-8"`` -> ``"text/html"``."""
    return media_type.split(";", 1)[0].strip().lower()


def classify(media_type: str, text: str | None = None) -> FormatKind:
    """The pipeline for a document; ``text`` lets plain text made only of turns count as one."""
    base = normalize_media_type(media_type)
    if base == CONVERSATION_MEDIA_TYPE:
        return "conversation"
    if base == "text/plain" and text is not None and _is_conversation(text):
        return "conversation"
    if base in _PROSE_TYPES:
        return "prose"
    if base in _BINARY_TEXT_TYPES:
        return "parked"
    if (
        base.startswith("text/")
        or base in _TEXTUAL_APPLICATION_TYPES
        or base.endswith(("+json", "+xml", "+yaml"))
    ):
        return "chunk_only"
    return "parked"


def _is_conversation(text: str) -> bool:
    try:
        return bool(parse_turns(text))
    except MalformedTurn:
        return False


def decode_text(content: bytes) -> str:
    """Strict UTF-8 without BOM; line ends normalized to ``\\n`` so offsets mean one thing."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UndecodableText(f"not UTF-8 text: bad byte at offset {exc.start}") from exc
    nul = text.find("\x00")
    if nul != -1:
        raise UndecodableText(f"not text: NUL character at offset {nul}")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_turns(text: str) -> list[Turn]:
    """Every turn of a conversation document; blank lines are skipped, anything else must parse.

    Raises ``MalformedTurn`` naming the first bad line (bad shape, bad timestamp, empty
    speaker or turn id, a turn id used twice).
    """
    turns: list[Turn] = []
    first_line_of: dict[str, int] = {}
    offset = 0
    for line_number, line in enumerate(text.split("\n"), start=1):
        line_start = offset
        offset += len(line) + 1
        if not line.strip():
            continue
        turn = _parse_turn(line.rstrip(), line_start, line_number)
        if turn.turn_id in first_line_of:
            raise MalformedTurn(
                line_number,
                f"turn id {turn.turn_id!r} already used on line {first_line_of[turn.turn_id]}",
            )
        first_line_of[turn.turn_id] = line_number
        turns.append(turn)
    return turns


def _parse_turn(line: str, line_start: int, line_number: int) -> Turn:
    match = _TURN_LINE.fullmatch(line)
    if match is None:
        shown = line if len(line) <= 80 else line[:77] + "..."
        raise MalformedTurn(
            line_number, f"expected '[<turn-id> | <timestamp>] <speaker>: <text>', got {shown!r}"
        )
    turn_id = match["turn_id"].strip()
    speaker = match["speaker"].strip()
    if not turn_id or not speaker:
        raise MalformedTurn(line_number, "turn id and speaker must not be empty")
    timestamp = _parse_timestamp(match["timestamp"].strip(), line_number)
    raw_text = match["text"]
    stripped = raw_text.strip()
    text_start = line_start + match.start("text") + (len(raw_text) - len(raw_text.lstrip()))
    return Turn(
        turn_id=turn_id,
        timestamp=timestamp,
        speaker=speaker,
        text=stripped,
        char_start=text_start,
        char_end=text_start + len(stripped),
        line_start=line_start,
        line_end=line_start + len(line),
        line_number=line_number,
    )


def _parse_timestamp(raw: str, line_number: int) -> datetime | None:
    if raw in _EMPTY_TIMESTAMPS:
        return None
    try:
        parsed = datetime.fromisoformat(raw)
    except ValueError:
        raise MalformedTurn(line_number, f"timestamp {raw!r} is not ISO 8601") from None
    # A timestamp without an offset is read as UTC: the turn format is ours and says so.
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


_SKIPPED_ELEMENTS = frozenset({"script", "style", "template", "noscript", "title"})
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_BLOCK_ELEMENTS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "dd", "details",
        "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form",
        "header", "hgroup", "hr", "li", "main", "nav", "ol", "p", "section", "summary",
        "table", "ul",
    }
)  # fmt: skip
_WHITESPACE = re.compile(r"\s+")


class _TextExtractor(HTMLParser):
    """Collects paragraphs; headings become Markdown ``#`` lines and ``<pre>`` a fenced block."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraphs: list[str] = []
        self._pieces: list[str] = []
        self._skip_depth = 0
        self._pre_depth = 0
        self._heading_level = 0
        self._cells_in_row = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED_ELEMENTS:
            self._skip_depth += 1
        elif tag in _HEADINGS:
            self._flush()
            self._heading_level = _HEADINGS[tag]
        elif tag == "pre":
            self._flush()
            self._pre_depth += 1
        elif tag in _BLOCK_ELEMENTS:
            self._flush()
        elif tag == "br":
            self._pieces.append(" " if self._heading_level else "\n")
        elif tag == "tr":
            self._cells_in_row = 0
        elif tag in {"td", "th"}:
            if self._cells_in_row:
                self._pieces.append(" | ")
            self._cells_in_row += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED_ELEMENTS:
            self._skip_depth = max(0, self._skip_depth - 1)
        elif tag in _HEADINGS:
            self._flush()
        elif tag == "pre":
            self._flush()
            self._pre_depth = max(0, self._pre_depth - 1)
        elif tag in _BLOCK_ELEMENTS:
            self._flush()
        elif tag == "tr":
            self._pieces.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip_depth:
            self._pieces.append(data)

    def close(self) -> None:
        super().close()
        self._flush()

    def _flush(self) -> None:
        raw = "".join(self._pieces)
        self._pieces = []
        if self._pre_depth:
            code = raw.strip("\n")
            if code.strip():
                self.paragraphs.append(f"```\n{code}\n```")
            return
        lines = (_WHITESPACE.sub(" ", line).strip() for line in raw.split("\n"))
        text = "\n".join(line for line in lines if line)
        if self._heading_level:
            heading = text.replace("\n", " ")
            if heading:
                self.paragraphs.append("#" * self._heading_level + " " + heading)
            self._heading_level = 0
        elif text:
            self.paragraphs.append(text)


def html_to_text(html: str) -> str:
    """The stored text of an HTML document: paragraphs split by blank lines, ``#`` headings.

    Scripts, styles and comments are dropped and entities unescaped. The output is what
    chunking and claim offsets refer to, so it depends on the input alone.
    """
    extractor = _TextExtractor()
    extractor.feed(html)
    extractor.close()
    return "\n\n".join(extractor.paragraphs)
