"""Long passages cut into pieces an extractor can take, before they reach it.

A conversation turn is never split by chunking, and a 5 MiB turn would reach spaCy, which
refuses texts over 1,000,000 characters (and needs about 1 GB per 100,000). Pieces end at a
sentence end, else at whitespace, else hard at the limit, so claims keep whole sentences
whenever the text has them; offsets are relative to the passage.
"""

from __future__ import annotations

import re

__all__ = ["MAX_PASSAGE_CHARS", "segments"]

MAX_PASSAGE_CHARS = 20_000
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*\s+|\n+")
_WHITESPACE = re.compile(r"\s+")


def segments(text: str, max_chars: int = MAX_PASSAGE_CHARS) -> list[tuple[int, int]]:
    """Half-open ``(start, end)`` pieces covering ``text``, each at most ``max_chars`` long."""
    if max_chars < 1:
        raise ValueError(f"max_chars must be positive, got {max_chars}")
    pieces: list[tuple[int, int]] = []
    start = 0
    while len(text) - start > max_chars:
        limit = start + max_chars
        end = _last_break(_SENTENCE_END, text, start, limit) or _last_break(
            _WHITESPACE, text, start, limit
        )
        end = end or limit
        pieces.append((start, end))
        start = end
    if start < len(text):
        pieces.append((start, len(text)))
    return pieces


def _last_break(pattern: re.Pattern[str], text: str, start: int, limit: int) -> int | None:
    """The end of the last match inside ``text[start:limit]`` past its first half."""
    best = None
    for match in pattern.finditer(text, start + (limit - start) // 2, limit):
        best = match.end()
    return best
