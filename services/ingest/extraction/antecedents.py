"""Which named mentions a pronoun may mean, read from the parse (`coref.Rewriter` picks among
what these leave): a capitalised word opening a sentence is no name there, a meeting is never
"they", a company shaped like a person's name is no "she" beside a person's, and a pronoun is
never the subject of its own clause nor the noun its relative clause modifies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.ingest.extraction.unknown_words import english_word
from shared.entities.given_names import is_given_name
from shared.entities.places import is_known_place
from shared.text.units import is_gathering_word

__all__ = [
    "PLURAL_PRONOUNS",
    "Mention",
    "a_gathering",
    "bound_subject",
    "clause_subject",
    "only_a_place",
    "own_subject",
    "personal_name",
    "relative_head",
    "weak_opener",
]


@dataclass(frozen=True)
class Mention:
    """A named PERSON or ORG seen at `position` (local offset; negative means in the context);
    `char_start`/`char_end` are absolute offsets when the mention is inside the passage."""

    name: str
    label: str
    position: int
    char_start: int | None = None
    char_end: int | None = None
    # The subject of its clause: what a later subject "it"/"she" most likely continues.
    is_subject: bool = False
    # Read as a person's name ("Bea Costa") whatever label the small NER gave it: what "she"
    # means when no mention is labelled a person.
    personal: bool = False


def weak_opener(mention: Mention, doc: Any) -> bool:
    """Whether a one-word mention of this passage opening a sentence is no name "it" or
    "they" may mean: there a capital says nothing, and the small NER calls "Glad it all
    worked out" a person named Glad and "Challenges will come" an organisation. An
    organisation the NER calls a person ("Kestrel signed. They …") stays one."""
    if mention.position < 0:
        return False
    span = doc.char_span(mention.position, mention.position + len(mention.name))
    if span is None or len(span) != 1 or not span[0].is_sent_start:
        return False
    word = span[0]
    if word.pos_ != "PROPN" or word.tag_ == "NNPS":  # "Challenges will come"
        return True
    after = word.doc[word.i + 1] if word.i + 1 < len(word.doc) else None
    # "Glad it all worked out", "Thrilled you made it": a word before a pronoun subject
    # is no name (an organisation's name would be the subject itself).
    return after is not None and after.pos_ == "PRON"


PLURAL_PRONOUNS = frozenset({"they", "them", "their", "theirs", "themselves"})


def a_gathering(mention: Mention, doc: Any) -> bool:
    """Whether a mention of this passage names a meeting ("Kickoff call with Priya Anand",
    "Demo for Harbourline went well"): what "they" said or want after it is the people met,
    never the meeting ("it" may still mean the meeting)."""
    if mention.position < 0:
        return False
    span = doc.char_span(mention.position, mention.position + len(mention.name))
    if span is None:
        return False
    word = span.root
    after = word.doc[word.i + 1] if word.i + 1 < len(word.doc) else None
    return is_gathering_word(word.text) or (
        len(span) == 1
        and after is not None
        and is_gathering_word(after.text)
        and english_word(word)
    )


def personal_name(mention: Mention) -> bool:
    """A mention the NER calls a person, or that opens with a common given name."""
    first = mention.name.split()[0] if mention.name.split() else ""
    return mention.label == "PERSON" or is_given_name(first.lower())


def own_subject(token: Any, mention: Mention) -> bool:
    """Whether `mention` is the subject of the clause whose object the pronoun `token` is
    ("Tom hired her" is never Tom: that would be "herself"), or the noun phrase the pronoun
    is inside ("the team behind it" is never the team)."""
    if token.dep_ not in ("dobj", "dative", "pobj"):
        return False
    holder = token.head.head if token.dep_ == "pobj" else None
    if holder is not None and holder.pos_ in ("NOUN", "PROPN"):
        first, last = holder.left_edge, holder.right_edge
        if first.idx <= mention.position < last.idx + len(last.text):
            return True
    verb = token.head.head if token.dep_ == "pobj" else token.head
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is None or subject.tag_ == "PRP":
        return False
    first, last = subject.left_edge, subject.right_edge
    return bool(first.idx <= mention.position < last.idx + len(last.text))


def relative_head(token: Any, mention: Mention) -> bool:
    """Whether `mention` is the noun the pronoun's relative clause modifies: "joins from
    Harwick Ports, where she was head of freight" is never Harwick Ports."""
    verb = token.head
    if verb.dep_ != "relcl" or token.dep_ not in ("nsubj", "nsubjpass"):
        return False
    noun = verb.head
    first, last = noun.left_edge, noun
    return bool(first.idx <= mention.position < last.idx + len(last.text))


# The subject pronouns a possessive continues within its clause ("she … her cousin").
_SUBJECT_OF = {"her": ("she",), "hers": ("she",), "his": ("he",)}


def clause_subject(token: Any) -> Any | None:
    """The subject before `token` of the clause `token` is in (through the nouns and
    prepositions above it, to the first verb)."""
    verb = token.head
    while verb.pos_ not in ("VERB", "AUX") and verb.head.i != verb.i:
        verb = verb.head
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    return subject if subject is not None and subject.i < token.i else None


def bound_subject(token: Any) -> Any | None:
    """ "She moved to Glasgow with her cousin", "He told Ana about his promotion": the
    "she"/"he" subject a possessive her/his continues within its clause, which means whom that
    subject means (or, unresolved, no one), not the nearest name."""
    subject = clause_subject(token)
    if subject is None or subject.lower_ not in _SUBJECT_OF.get(token.lower_, ()):
        return None
    return subject


def only_a_place(name: str) -> bool:
    """A large city's name that is no given name too: no "she" means Glasgow (but "Sofia")."""
    words = name.split()
    return bool(words) and is_known_place(name) and not is_given_name(words[0].lower())
