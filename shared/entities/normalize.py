"""Name normalization, trigram sets, phonetic codes and bare-head-noun detection for entities."""

from __future__ import annotations

import functools
import re
import unicodedata

import jellyfish

__all__ = [
    "HONORIFICS",
    "describes",
    "display_name",
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
# Modifiers that describe rather than name: "the old system" is still just "the system", while
# "the billing system" names one. Closed list plus adjective suffixes, since the resolver has
# no part-of-speech tagger; a noun or gerund in front of the head ("billing", "payments",
# "search") is what makes a compound nameable. The list holds the adjectives that place a
# thing in its context (order, time, size, worth, quantity: "the new contract", "the main
# office"), which a document uses of the thing it is about. An adjective that sorts things
# into kinds ("the free tier", "the annual plan", "an extra seat", "the public API") names
# the kind wherever it is said, so it is not listed: every document that says "the free
# tier" means one entity, whatever its title.
_ADJECTIVE_WORDS = """
    new old big small large little main current former latest recent next last first second
    third final previous upcoming ongoing existing remaining pending other same whole entire
    good bad great important key major minor full high low long short early late open real
    right wrong simple hard easy quick slow top overall initial primary secondary various
    several many few more most less such own only certain different similar specific
    particular general common original actual proper available possible necessary ready usual
    normal nice cool
"""
_ADJECTIVES = frozenset(_ADJECTIVE_WORDS.split())
_ADJECTIVE_SUFFIXES = ("ous", "ful", "ive", "less", "able", "ible", "ical", "ish", "est")
# A head with a nameable "for"/"of" complement is nameable ("the cutover for the billing
# migration"); `normalize_name` puts a "for" complement first so both wordings meet.
_COMPLEMENT_PREPOSITIONS = frozenset({"for", "of"})
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
    tokens = _strip_leading(tokens)
    if "for" in tokens[1:-1]:
        at = tokens.index("for")
        tokens = _strip_leading(tokens[at + 1 :]) + tokens[:at]
    return tokens


def _strip_leading(tokens: list[str]) -> list[str]:
    while len(tokens) > 1 and (tokens[0] in HONORIFICS or tokens[0] in _DETERMINERS):
        tokens = tokens[1:]
    return tokens


# The resolver normalizes each name of a claim's context once per candidate it weighs.
@functools.lru_cache(maxsize=8192)
def normalize_name(text: str) -> str:
    """The key aliases are matched on: `name_tokens` joined by single spaces; a "for"
    complement goes first ("cutover for the billing migration" -> "billing migration
    cutover")."""
    return " ".join(name_tokens(text))


def display_name(text: str) -> str:
    """The canonical name a new entity gets from a mention: whitespace collapsed and a leading
    determiner dropped ("the billing migration" -> "billing migration", "the Head of Product"
    -> "Head of Product"). A capitalized "The" before a capitalized word stays when the whole
    name is capitalized: it may be part of the name ("The Beatles"). Before a name ending in
    a common noun it opened the sentence ("The Ledger service uses …"): dropped, so the
    entity is named alike whichever mention came first."""
    words = text.split()
    if (
        len(words) > 1
        and _fold(words[0]) in _DETERMINERS
        and (words[0][0].islower() or not words[1][0].isupper() or words[-1][0].islower())
    ):
        words = words[1:]
    return " ".join(words)


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


def describes(word: str) -> bool:
    """Whether an adjective only describes its noun in context ("new", "previous",
    "wonderful") rather than naming a kind of it ("free", "annual"); lower-case."""
    return word in _ADJECTIVES or (len(word) > 5 and word.endswith(_ADJECTIVE_SUFFIXES))


def _names_something(words: list[str]) -> bool:
    """Whether a lower-case phrase (determiner already removed) is a nameable compound: after
    leading descriptive adjectives, a noun modifier and a head ("billing migration cutover"),
    or a head with a nameable "for"/"of" complement ("cutover for the billing migration")."""
    for at, word in enumerate(words):
        if word in _COMPLEMENT_PREPOSITIONS and 0 < at < len(words) - 1:
            complement = words[at + 1 :]
            if complement[0] in _DETERMINERS:
                complement = complement[1:]
            single = len(complement) == 1 and complement[0] not in _HEAD_NOUNS
            return _names_something(words[:at]) or single or _names_something(complement)
    content = list(words)
    while content and describes(content[0]):
        content = content[1:]
    return len(content) >= 2


def is_bare_head_noun(text: str) -> bool:
    """True for pronouns and generic lower-case noun phrases ("the system", "our app", "team",
    "the old system").

    A capitalized word after the determiner pins the phrase to a referent ("the Orion app",
    "The Beatles"), and so does a noun compound ("the billing migration", "the payments team",
    "the cutover for the billing migration"); a lower-case single word without a determiner
    is a name unless it is a generic noun ("python" is, "team" is not)."""
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
    content = lowered[1:] if has_determiner else lowered
    if _names_something(content):
        return False
    return has_determiner or _fold(rest[-1]) in _HEAD_NOUNS
