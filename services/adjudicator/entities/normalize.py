"""Name normalization, trigram sets, phonetic codes and bare-head-noun detection for entities."""

from __future__ import annotations

import re
import unicodedata

import jellyfish

__all__ = [
    "HONORIFICS",
    "is_bare_head_noun",
    "name_tokens",
    "normalize_name",
    "phonetic_code",
    "trigram_similarity",
    "trigrams",
]

HONORIFICS = frozenset(
    {"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "professor", "sir", "dame", "madam", "rev"}
)
_DETERMINERS = frozenset(
    {
        "the",
        "a",
        "an",
        "this",
        "that",
        "these",
        "those",
        "our",
        "my",
        "your",
        "their",
        "his",
        "her",
        "its",
        "some",
        "every",
        "each",
        "any",
    }
)
_PRONOUNS = frozenset(
    {
        "i",
        "me",
        "you",
        "he",
        "him",
        "she",
        "her",
        "it",
        "we",
        "us",
        "they",
        "them",
        "someone",
        "somebody",
        "everyone",
        "everybody",
        "nobody",
        "anyone",
        "one",
        "this",
        "that",
        "these",
        "those",
        "myself",
        "yourself",
        "himself",
        "herself",
        "itself",
        "ourselves",
        "themselves",
    }
)
# Generic heads that name a role, not a referent, when they stand alone in lower case.
_HEAD_NOUNS = frozenset(
    {
        "system",
        "app",
        "application",
        "team",
        "meeting",
        "project",
        "company",
        "service",
        "product",
        "user",
        "users",
        "customer",
        "customers",
        "client",
        "manager",
        "group",
        "tool",
        "platform",
        "document",
        "report",
        "people",
        "person",
        "thing",
        "things",
        "plan",
        "issue",
        "feature",
        "code",
        "server",
        "database",
        "model",
        "office",
        "department",
        "organization",
    }
)
_PUNCTUATION = re.compile(r"[^\w\s]|_")
_SPACES = re.compile(r"\s+")
_POSSESSIVE = re.compile(r"['’]s\b", re.IGNORECASE)


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return stripped.casefold()


def name_tokens(text: str) -> list[str]:
    """Casefolded, accent- and punctuation-free tokens with leading honorifics and articles
    removed ("Dr. Zoë O'Neil's" -> ["zoe", "oneil"])."""
    folded = _fold(_POSSESSIVE.sub("", text))
    # Apostrophes and dots join ("O'Neil" -> "oneil", "J.R." -> "jr"); other marks split.
    folded = re.sub(r"['’.]", "", folded)
    tokens = _SPACES.split(_PUNCTUATION.sub(" ", folded).strip())
    tokens = [token for token in tokens if token]
    while len(tokens) > 1 and (tokens[0] in HONORIFICS or tokens[0] in _DETERMINERS):
        tokens = tokens[1:]
    return tokens


def normalize_name(text: str) -> str:
    """The key aliases are matched on: `name_tokens` joined by single spaces."""
    return " ".join(name_tokens(text))


def trigrams(normalized: str) -> frozenset[str]:
    """pg_trgm-style word trigrams ("  w", " wo", ..., "rd "), minus each word's leading
    two-space trigram: it carries only the first letter and would give every alias sharing an
    initial a posting, which makes the trigram index slow without improving the ranking."""
    grams: set[str] = set()
    for word in normalized.split():
        padded = f"  {word} "
        grams.update(padded[i : i + 3] for i in range(1, len(padded) - 2))
    return frozenset(grams)


def trigram_similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Shared trigrams over the union, as pg_trgm's similarity()."""
    if not a or not b:
        return 0.0
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared)


def phonetic_code(normalized: str) -> str:
    """Metaphone of every token, space-joined ("jon smith" and "john smyth" share it)."""
    return " ".join(jellyfish.metaphone(token) for token in normalized.split() if token)


def is_bare_head_noun(text: str) -> bool:
    """True for pronouns and lower-case common-noun phrases ("the system", "our app", "team").

    A capitalized word after the determiner pins the phrase to a referent ("the Orion app",
    "The Beatles"), so those are names; so is any lower-case phrase without a determiner whose
    head is not a generic noun ("python")."""
    words = _SPACES.split(_PUNCTUATION.sub(" ", re.sub(r"['’]s\b", "", text)).strip())
    words = [word for word in words if word]
    if not words:
        return True
    lowered = [_fold(word) for word in words]
    if len(words) == 1 and lowered[0] in _PRONOUNS:
        return True
    has_determiner = lowered[0] in _DETERMINERS
    rest = words[1:] if has_determiner else words
    if not rest:
        return True
    if any(word[0].isupper() or word[0].isdigit() for word in rest):
        return False
    return has_determiner or _fold(rest[-1]) in _HEAD_NOUNS
