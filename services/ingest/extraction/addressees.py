"""Who a passage speaks to: a name in the vocative ("Mehmet, you'll be acting VP", "welcome
Mateus! you'll be on pricing", "can you take the review, Dana?").

A turn of a conversation, a chat message or an email that addresses someone by name means that
person by "you" and "your"; the claim stands alone only with the name in their place ("Mehmet
Öztürk will be acting VP"). The vocative itself is no part of the claim. Without a vocative,
"you" stays as written: a second person with no name may be anyone listening, or no one ("you
never know").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from shared.entities.given_names import is_given_name
from shared.entities.normalize import normalize_name

__all__ = ["Addressee", "addressee"]

# Words a turn opens with before the name it addresses ("thanks Omar,", "welcome Mateus!").
_GREETINGS = frozenset(
    {
        "hi", "hey", "hello", "welcome", "thanks", "thank", "congrats", "congratulations",
        "morning", "afternoon", "evening", "good", "dear", "ok", "okay", "so", "yo", "cheers",
        "sorry", "great", "nice", "well", "oh", "ah", "and", "but", "you",
    }
)  # fmt: skip
# What closes a vocative: "Mehmet, …", "welcome Mateus! …". Not a colon or a dash: "Dana:
# send the deck" is an action item's owner, and "Al-Sayed" a name with a hyphen.
_CLOSERS = frozenset({",", "!", "?", "."})
# A name the clause after it is about ("Guadalupe Torres, the IT director, signs off") is its
# subject, not whom the passage speaks to.
_CLAUSE_ROLES = frozenset({"nsubj", "nsubjpass", "poss", "compound", "appos", "conj"})
_MAX_NAME_WORDS = 3


@dataclass(frozen=True)
class Addressee:
    """The person addressed, and the tokens of the vocative (name and closing mark)."""

    name: str
    vocative: frozenset[int]


def addressee(
    doc: Any,
    known: Mapping[str, str],
    expand: Callable[[str], str | None],
    speaker: str | None,
    context: str | None = None,
) -> Addressee | None:
    """The one person `doc` addresses by name, or None (nobody, or more than one). Only a
    passage someone says (a turn, a message, an email) addresses anyone; a letter's
    salutation on a line of its own before the passage ("Hi Noor,") addresses the passages
    after it, whoever the sender."""
    if not speaker:
        greeted = _salutation(context)
        if greeted is None or not _addresses_you(doc):
            return None
        return Addressee(expand(greeted) or greeted, frozenset())
    found = [v for v in (_opening(doc, known), *(_closing(s, known) for s in doc.sents)) if v]
    names = {expand(text) or text for text, _ in found}
    if len(names) != 1:
        return None
    name = names.pop()
    if speaker and (name == speaker or name == (expand(speaker) or speaker)):
        return None  # "Ana: Ana here, …" names the speaker, not whom she speaks to
    return Addressee(name, frozenset(i for _, indices in found for i in indices))


# "Hi Noor,", "Dear Ms Okafor,", "Hello Dana Kim!" alone on a line: a letter's salutation.
_SALUTATION_RE = re.compile(
    r"(?im)^[ \t]*(?:hi|hello|hey|dear|morning|good\s+(?:morning|afternoon|evening))[ \t]+"
    r"(?:(?:mr|mrs|ms|dr)\.?[ \t]+)?(?P<name>[A-Z][\w'’-]+(?:[ \t][A-Z][\w'’-]+)?)"
    r"[ \t]*[,!:]?[ \t]*$"
)


def _salutation(context: str | None) -> str | None:
    """The person the last salutation line before the passage greets, when it is a name."""
    if not context:
        return None
    found = list(_SALUTATION_RE.finditer(context))
    if not found:
        return None
    name = found[-1].group("name")
    return name if is_given_name(normalize_name(name.split()[0])) else None


def _addresses_you(doc: Any) -> bool:
    return any(t.lower_ in ("you", "your", "yours", "yourself") for t in doc)


def _opening(doc: Any, known: Mapping[str, str]) -> tuple[str, list[int]] | None:
    """ "Mehmet, you'll …", "welcome Mateus! …": a name after at most a greeting, closed by a
    mark, at the start of the passage."""
    start = 0
    while start < len(doc) and doc[start].lower_ in _GREETINGS:
        start += 1
    if start > 2:
        return None
    end = start
    while end < len(doc) and end - start < _MAX_NAME_WORDS and _name_word(doc[end]):
        end += 1
    if end == start or end >= len(doc) or doc[end].text not in _CLOSERS:
        return None
    if end == len(doc) - 1 and start == 0:
        return None  # "Dana." alone: a one-word passage, not an address
    head = doc[end - 1]
    if head.dep_ in _CLAUSE_ROLES or any(c.dep_ == "appos" for c in head.children):
        return None
    return _checked(doc[start:end], known, [*range(start, end + 1)])


def _closing(sent: Any, known: Mapping[str, str]) -> tuple[str, list[int]] | None:
    """ "can you take the review, Dana?": a name between a comma and the sentence's end."""
    tokens = [t for t in sent if not t.is_space]
    if len(tokens) < 4 or tokens[-1].text not in ("?", "!", "."):
        return None
    end = len(tokens) - 1
    start = end
    while start > 0 and end - start < _MAX_NAME_WORDS and _name_word(tokens[start - 1]):
        start -= 1
    if start == end or start < 2 or tokens[start - 1].text != ",":
        return None
    name = tokens[start:end]
    if name[0].dep_ not in ("npadvmod", "appos", "dep", "intj", "nsubj", "attr", "conj"):
        return None
    return _checked(name, known, [tokens[start - 1].i, *(t.i for t in name)])


def _name_word(tok: Any) -> bool:
    return bool(tok.text[:1].isupper() and tok.is_alpha and tok.pos_ in ("PROPN", "NOUN", "X"))


def _checked(
    words: Any, known: Mapping[str, str], indices: list[int]
) -> tuple[str, list[int]] | None:
    """The name, when it reads as a person's: NER's person, a known person, or a given name."""
    text = " ".join(t.text for t in words)
    person = (
        all(t.ent_type_ == "PERSON" for t in words)
        or known.get(text) == "PERSON"
        or is_given_name(normalize_name(words[0].text))
    )
    return (text, indices) if person else None
