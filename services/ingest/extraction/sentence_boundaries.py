"""Sentence boundaries set before the parser (which respects them): a semicolon, a line
ending in a full stop before a capitalised line, and the lines of a key-value list."""

from __future__ import annotations

from typing import Any

__all__ = ["sentence_boundaries"]


def sentence_boundaries(doc: Any) -> Any:
    """A semicolon ends a statement ("the cutover is done; Kafka now carries refunds"), and so
    does a line ending in a full stop: the parser respects boundaries set before it, so each
    side gets a parse of its own."""
    for tok in doc[:-1]:
        if tok.text == ";":
            doc[tok.i + 1].is_sent_start = True
        elif "\n" in tok.whitespace_ or (tok.is_space and "\n" in tok.text):
            # A line that ends a sentence ("improved to 3h 10m.") and a capitalised line after
            # it are two statements; a hard-wrapped sentence runs on in lower case or without
            # its full stop.
            before = tok if not tok.is_space else doc[tok.i - 1] if tok.i else None
            after = next((t for t in doc[tok.i + 1 :] if not t.is_space), None)
            if (
                before is not None
                and after is not None
                and after.text[:1].isupper()
                and (before.text[-1:] in ".!?" or _key_line(doc, after.i) or _key_line_end(before))
            ):
                # ... and so are the lines of a list of keys and values ("Owner: Lucia
                # Moreno" then "Status: green"), with or without full stops.
                after.is_sent_start = True
    return doc


def _key_line(doc: Any, start: int) -> bool:
    """Whether the line opening at token `start` is "Key: value" (a colon within its first
    four words)."""
    for tok in doc[start : start + 5]:
        if tok.text == ":":
            return bool(tok.i > start)
        if "\n" in tok.whitespace_ or tok.is_space:
            return False
    return False


def _key_line_end(last: Any) -> bool:
    """Whether the line ending at `last` was itself a "Key: value" line."""
    doc, start = last.doc, last.i
    while start > 0 and "\n" not in doc[start - 1].whitespace_ and not doc[start - 1].is_space:
        start -= 1
    return _key_line(doc, start)
