"""Verbless key-value lines: "Project Nova status: green", "Budget: $40k", "Owner - Priya".

Status reports and wiki infoboxes state values as a key, a colon (or dash) and the value, with
no verb. The small parser makes the key the root and the value its apposition. The key names
what the value is of: its named part when it has one ("Project Nova status" is Project Nova's),
else the document's topic (a bare "Status: amber" in the Nova report). Read as "<key> is
<value>", the line becomes a claim like any copular one.
"""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.arguments import Phrase, entity_phrase

__all__ = ["key_value_subject"]

_SEPARATORS = frozenset({":", "-", "–", "—"})
# How the parser hangs a key on the value when it makes the value the root.
_KEY_DEPS = frozenset({"npadvmod", "nsubj", "dep", "compound"})


def key_value_subject(content: Any, inside: set[int]) -> Phrase | None:
    """The key's phrase when `content` heads a verbless key-value line: the key itself as the
    root ("Project Nova status: green", "Atlas migration status: on hold"), or the value as
    the root with the key hung on it ("Checkout API health - degraded")."""
    if content.dep_ != "ROOT":
        return None
    if content.pos_ in ("NOUN", "PROPN") and _separated(content, content, after=True):
        return _key_phrase(content, inside)
    key = next(
        (
            c
            for c in content.children
            if c.i < content.i and c.pos_ in ("NOUN", "PROPN") and c.dep_ in _KEY_DEPS
        ),
        None,
    )
    if key is not None and key.i in inside and _separated(content, key, after=False):
        return _key_phrase(key, inside)
    return None


# Words that say which scale a status is on, not whose it is: "RAG status: amber" (red, amber,
# green) is the status of the report's topic, as a bare "Status: amber" is.
_SCALE_WORDS = frozenset({"rag", "overall", "current", "latest", "delivery", "project"})


def _key_phrase(key: Any, inside: set[int]) -> Phrase:
    modifiers = [c for c in key.lefts if c.i in inside]
    if modifiers and all(c.lower_ in _SCALE_WORDS for c in modifiers):
        return Phrase((key,))
    return entity_phrase(key, inside, anchor_possessor=True)


def _separated(content: Any, key: Any, *, after: bool) -> bool:
    """A separator right after the key, and (for a key root) a value after the separator."""
    doc = key.doc
    # The spaces a masked mark left ("**Team** — $12") are no words between key and separator.
    at = key.i + 1
    while at < len(doc) and doc[at].is_space and "\n" not in doc[at].text:
        at += 1
    if at >= len(doc) or doc[at].text not in _SEPARATORS:
        return False
    if not after:
        return doc[at].head.i in (content.i, key.i)
    # ("Headcount: 9": the parser may call a lone number after the colon punctuation.)
    return any(
        c.i > at and (c.dep_ not in ("punct", "dep") or c.pos_ == "NUM") for c in content.children
    )
