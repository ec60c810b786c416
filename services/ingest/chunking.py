"""Deterministic chunking: runs of whole paragraphs or turns, bounded by sections.

Where a section holds more than ``max_chars``, the split points are chosen by content, not by
position: every unit (paragraph, turn, or piece of an over-long paragraph) gets a priority
from the hash of its own text, and an over-long run is cut before its highest-priority unit,
recursively, until every piece fits. A piece that fits is one chunk. Because a cut depends on
the units around it and not on everything before it, editing one paragraph leaves the chunks
elsewhere in the section byte-identical, so their hashes (and claims) can be reused.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from services.ingest.formats import Turn, normalize_media_type

__all__ = ["ChunkSpan", "chunk_conversation", "chunk_prose", "section_headings"]

_SECTION_SEPARATOR = " > "
_HEADING_TYPES = frozenset(
    {"text/markdown", "text/x-markdown", "text/html", "application/xhtml+xml"}
)
_HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
# A sentence ends at . ! or ? (plus closing quotes/brackets) before whitespace, or at a newline.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+|\n+")
# Ties the cut after a heading to the lowest priority: a heading stays with what follows it.
_GLUED = -1


@dataclass(frozen=True, slots=True)
class ChunkSpan:
    """One chunk; ``text == stored_text[char_start:char_end]`` (half-open offsets).

    ``content_sha256`` is the SHA-256 of ``f"{section_path}\\n{text}"`` in UTF-8, so equal
    text under another heading is another chunk. ``paragraphs`` are the units inside, as
    ``(char_start, char_end)``: paragraphs, turn lines, or pieces of a split paragraph.
    """

    ordinal: int
    char_start: int
    char_end: int
    text: str
    section_path: str
    content_sha256: str
    paragraphs: tuple[tuple[int, int], ...]


def section_headings(section_path: str) -> tuple[str, ...]:
    """The headings a chunk's section path joins, outermost first."""
    return tuple(h for h in section_path.split(_SECTION_SEPARATOR) if h) if section_path else ()


@dataclass(frozen=True, slots=True)
class _Unit:
    start: int
    end: int
    priority: int


@dataclass(frozen=True, slots=True)
class _Section:
    path: str
    units: list[_Unit]


def chunk_prose(text: str, media_type: str, max_chars: int = 1200) -> list[ChunkSpan]:
    """Chunks of stored prose text; Markdown and HTML (as ``html_to_text`` output) have sections.

    Paragraphs are separated by blank lines; a fenced code block is one paragraph. A paragraph
    longer than ``max_chars`` is split at sentence ends, and a sentence longer than that at the
    last whitespace that fits (or hard at ``max_chars``).
    """
    _check_max(max_chars)
    markdown = normalize_media_type(media_type) in _HEADING_TYPES
    sections = _prose_sections(text, markdown=markdown, max_chars=max_chars)
    return _emit(text, sections, max_chars)


def chunk_conversation(text: str, turns: Sequence[Turn], max_chars: int = 1200) -> list[ChunkSpan]:
    """Chunks of a conversation document: runs of whole turn lines, never splitting a turn.

    A single turn longer than ``max_chars`` is a chunk of its own, longer than the limit.
    """
    _check_max(max_chars)
    units = [
        _Unit(turn.line_start, turn.line_end, _priority(text[turn.line_start : turn.line_end]))
        for turn in turns
    ]
    return _emit(text, [_Section("", units)] if units else [], max_chars)


def _check_max(max_chars: int) -> None:
    if max_chars < 1:
        raise ValueError(f"max_chars must be positive, got {max_chars}")


def _priority(unit_text: str) -> int:
    return int.from_bytes(hashlib.sha256(unit_text.encode("utf-8")).digest()[:8], "big")


def _prose_sections(text: str, *, markdown: bool, max_chars: int) -> list[_Section]:
    sections: list[_Section] = []
    trail: list[tuple[int, str]] = []
    current = _Section("", [])
    block_start: int | None = None
    block_end = 0
    fence: str | None = None

    def close_block() -> None:
        nonlocal block_start
        if block_start is not None:
            current.units.extend(_units_of(text, block_start, block_end, max_chars))
            block_start = None

    offset = 0
    for line in text.split("\n"):
        line_start, line_end = offset, offset + len(line)
        offset = line_end + 1
        if fence is not None:
            block_end = line_end
            if line.strip().startswith(fence):
                close_block()
                fence = None
            continue
        fence_match = _FENCE.match(line) if markdown else None
        heading = _HEADING.fullmatch(line.rstrip()) if markdown else None
        if fence_match is not None:
            close_block()
            fence = fence_match.group(1)
            block_start, block_end = line_start, line_end
        elif heading is not None:
            close_block()
            if current.units:
                sections.append(current)
            level = len(heading.group(1))
            trail = [entry for entry in trail if entry[0] < level]
            trail.append((level, heading.group(2).strip()))
            current = _Section(_SECTION_SEPARATOR.join(title for _, title in trail), [])
            current.units.extend(_units_of(text, line_start, line_end, max_chars, glued=True))
        elif not line.strip():
            close_block()
        else:
            if block_start is None:
                block_start = line_start
            block_end = line_end
    close_block()
    if current.units:
        sections.append(current)
    return sections


def _units_of(
    text: str, start: int, end: int, max_chars: int, *, glued: bool = False
) -> list[_Unit]:
    """The block ``[start, end)`` trimmed, as one unit or, when too long, as sentence pieces."""
    start, end = _trim(text, start, end)
    if start >= end:
        return []
    if end - start <= max_chars:
        spans = [(start, end)]
    else:
        spans = [
            piece for span in _sentences(text, start, end) for piece in _hard(text, span, max_chars)
        ]
    units = [_Unit(s, e, _priority(text[s:e])) for s, e in spans]
    if glued:
        units[-1] = _Unit(units[-1].start, units[-1].end, _GLUED)
    return units


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    piece_start = start
    for match in _SENTENCE_END.finditer(text, start, end):
        spans.append(_trim(text, piece_start, match.start()))
        piece_start = match.end()
    spans.append(_trim(text, piece_start, end))
    return [(s, e) for s, e in spans if s < e]


def _hard(text: str, span: tuple[int, int], max_chars: int) -> list[tuple[int, int]]:
    start, end = span
    pieces: list[tuple[int, int]] = []
    while end - start > max_chars:
        window_end = start + max_chars
        cut = max(
            text.rfind(" ", start + 1, window_end + 1), text.rfind("\t", start + 1, window_end + 1)
        )
        if cut <= start:
            cut = window_end
        pieces.append(_trim(text, start, cut))
        start, _ = _trim(text, cut, end)
    pieces.append((start, end))
    return [(s, e) for s, e in pieces if s < e]


def _runs(units: list[_Unit], max_chars: int) -> list[tuple[int, int]]:
    """Index ranges ``[first, last)`` of units forming chunks, in document order."""
    runs: list[tuple[int, int]] = []
    pending = [(0, len(units))]
    while pending:
        first, last = pending.pop()
        if last - first == 1 or units[last - 1].end - units[first].start <= max_chars:
            runs.append((first, last))
            continue
        # Cut before the strongest unit (never before the first one); the leftmost wins ties.
        cut = max(range(first + 1, last), key=lambda index: (_cut_priority(units, index), -index))
        pending.append((cut, last))
        pending.append((first, cut))
    runs.sort()
    return runs


def _cut_priority(units: list[_Unit], index: int) -> int:
    """Priority of cutting between ``index - 1`` and ``index``."""
    if units[index - 1].priority == _GLUED:
        return _GLUED
    return units[index].priority


def _emit(text: str, sections: list[_Section], max_chars: int) -> list[ChunkSpan]:
    chunks: list[ChunkSpan] = []
    for section in sections:
        for first, last in _runs(section.units, max_chars):
            members = section.units[first:last]
            start, end = members[0].start, members[-1].end
            chunk_text = text[start:end]
            digest = hashlib.sha256(f"{section.path}\n{chunk_text}".encode()).hexdigest()
            chunks.append(
                ChunkSpan(
                    ordinal=len(chunks),
                    char_start=start,
                    char_end=end,
                    text=chunk_text,
                    section_path=section.path,
                    content_sha256=digest,
                    paragraphs=tuple((unit.start, unit.end) for unit in members),
                )
            )
    return chunks
