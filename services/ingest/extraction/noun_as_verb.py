"""Nouns and verbs the small tagger confuses, recognised from the tree's shape alone (as the
repairs in `parse_repairs`).

- **A noun read as the verb before a copula.** "Payments headcount is now 12", "Checkout
  latency is 300 ms" come out with the noun as a present-tense verb whose subject is the word
  before it, and the copula a subjectless clausal complement under it. No verb takes a bare
  copula for its complement, so the word is the head noun of the copula's subject.
- **A verb of change read as a plural noun.** "Loomwork Pro moves to EUR 26 from 1 April",
  "Helios Plus rises to $40" make the verb a plural noun root ("moves") with the name as its
  modifiers, and the clause verbless; "From 1 April Loomwork Pro moves to EUR 26" even makes it
  the object of "From", with the date as the name's modifiers. A plural noun of a verb of
  change, right after a name and with a "to" or "from" phrase after it, is that verb with the
  name its subject (and a fronted preposition its date's).
- **A verb with a subject tagged as a plural noun.** "the Lisbon office closes on Friday".
- **A contracted "is" read as a possessive.** "Ingrid's back as of today".
"""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.names import CALENDAR_WORDS

__all__ = ["repair_noun_as_verb"]

_COPULA_FORMS = frozenset({"is", "are", "was", "were", "'s"})
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "expl", "csubj"})


def repair_noun_as_verb(sent: Any) -> None:
    """Fix the misparses in one sentence, in place."""
    _contracted_copula(sent)
    _noun_before_copula(sent)
    _verb_as_plural_noun(sent)
    _plural_noun_with_a_subject(sent)
    _subject_read_as_compound(sent)


# What a contracted "is" says someone is: "Ingrid's back", "Dana's out until Friday".
_STATES_AFTER_IS = frozenset({"back", "out", "off", "away", "here", "in", "gone", "home"})


def _contracted_copula(sent: Any) -> None:
    """ "Ingrid's back as of today": the parser reads the contracted "is" as a possessive
    ending and makes the name the root. A name whose "'s" is followed by a state word is the
    subject of that "is"."""
    name = sent.root
    if name.pos_ != "PROPN" or name.i + 2 >= sent.end:
        return
    ending, state = name.doc[name.i + 1], name.doc[name.i + 2]
    if ending.lower_ not in ("'s", "’s") or ending.head.i != name.i:
        return
    if state.lower_ not in _STATES_AFTER_IS or state.head.i != name.i:
        return
    others = [c for c in name.children if c.i > ending.i]
    ending.head, ending.dep_, ending.pos_, ending.tag_, ending.lemma_ = (
        ending,
        "ROOT",
        "AUX",
        "VBZ",
        "be",
    )
    name.head, name.dep_ = ending, "nsubj"
    for child in others:
        child.head = ending
    state.dep_ = "advmod" if state.pos_ == "ADV" else "acomp"


def _subject_read_as_compound(sent: Any) -> None:
    """ "the Lisbon office closes on Friday": with the verb tagged right, the parser may still
    hang the noun before it on the verb as a compound. A finite verb has a subject, not a
    compound: the noun right before it is the subject, and its modifiers hang on it."""
    verb = sent.root
    if verb.pos_ != "VERB" or verb.tag_ not in ("VBZ", "VBD", "VBP") or verb.i == sent.start:
        return
    if any(c.dep_ in _SUBJECT_DEPS for c in verb.children):
        return
    noun = verb.doc[verb.i - 1]
    if noun.head.i != verb.i or noun.dep_ != "compound" or noun.pos_ not in ("NOUN", "PROPN"):
        return
    for child in [
        c for c in verb.children if c.i < noun.i and c.dep_ in ("det", "compound", "amod", "poss")
    ]:
        child.head = noun
    noun.dep_ = "nsubj"


def _plural_noun_with_a_subject(sent: Any) -> None:
    """ "the Lisbon office closes on Friday" (a chat line, lower case, no full stop): the
    tagger calls "closes" a plural noun though the parser gives it a subject. A noun has no
    subject: the root with one is the verb."""
    root = sent.root
    if root.pos_ != "NOUN" or root.tag_ != "NNS":
        return
    if any(c.dep_ == "nsubj" and c.i < root.i for c in root.children):
        root.pos_, root.tag_ = "VERB", "VBZ"


# Verbs of a value or placement changing, whose third person the tagger takes for a plural.
_CHANGE_VERBS = frozenset(
    {"move", "rise", "fall", "drop", "jump", "climb", "increase", "decrease", "change"}
    | {"switch", "shift", "return", "slip", "grow", "go", "revert", "transfer"}
)


def _verb_as_plural_noun(sent: Any) -> None:
    for word in sent:
        if word.pos_ != "NOUN" or word.tag_ != "NNS" or word.lemma_.lower() not in _CHANGE_VERBS:
            continue
        if not any(c.dep_ == "prep" and c.lower_ in ("to", "from") for c in word.rights):
            continue
        doc = word.doc
        name = [t for t in doc[sent.start : word.i] if t.head.i == word.i or t.dep_ == "compound"]
        first = word.i
        while first > sent.start and _name_word(doc[first - 1]):
            first -= 1  # "Loomwork Pro": the name's words right before the verb
        if first == word.i:
            continue
        if word.dep_ == "ROOT" and not _only_modifiers(word, first):
            continue
        if word.dep_ != "ROOT" and not _under_fronted_date(word, first):
            continue
        _make_verb(word, doc[first : word.i], name)
        return


def _only_modifiers(word: Any, first: int) -> bool:
    """The root's left dependents are the name's words or a fronted phrase."""
    return all(
        c.dep_ in ("compound", "amod", "det", "nsubj") or (c.dep_ == "prep" and c.i < first)
        for c in word.lefts
    )


def _under_fronted_date(word: Any, first: int) -> bool:
    """ "From 1 April Loomwork Pro moves to EUR 26": the noun is the object of a fronted
    preposition, the date's words between the preposition and the name."""
    prep = word.head
    if word.dep_ != "pobj" or prep.dep_ != "ROOT" or prep.pos_ not in ("ADP", "SCONJ"):
        return False
    dates = word.doc[prep.i + 1 : first]
    return bool(dates) and all(t.like_num or t.lower_ in CALENDAR_WORDS for t in dates)


def _make_verb(word: Any, name: Any, modifiers: list[Any]) -> None:
    doc = word.doc
    prep = word.head if word.dep_ == "pobj" else None
    if prep is not None:
        dates = list(doc[prep.i + 1 : name[0].i])
        for child in [c for c in prep.children if c.i > word.i]:
            child.head = word  # the full stop
        word.head, word.dep_ = word, "ROOT"
        prep.head, prep.dep_ = word, "prep"
        for tok in dates[:-1]:
            tok.head = dates[-1]
        dates[-1].head, dates[-1].dep_ = prep, "pobj"
    subject = name[-1]
    for tok in name[:-1]:
        tok.head, tok.dep_ = subject, "compound"
    subject.head, subject.dep_ = word, "nsubj"
    for tok in modifiers:
        if tok.i < name[0].i and tok.head.i == word.i and tok.dep_ in ("det", "amod"):
            tok.head = subject
    word.pos_, word.tag_ = "VERB", "VBZ"


def _name_word(tok: Any) -> bool:
    return bool(tok.pos_ == "PROPN" and tok.lower_ not in CALENDAR_WORDS and not tok.like_num)


def _noun_before_copula(sent: Any) -> None:
    word = sent.root
    if word.pos_ != "VERB" or word.i + 1 >= sent.end:
        return
    copula = word.doc[word.i + 1]
    if copula.head.i != word.i or copula.dep_ != "ccomp" or copula.lower_ not in _COPULA_FORMS:
        return
    if any(c.dep_ in _SUBJECT_DEPS for c in copula.children):
        return
    modifier = next((c for c in word.children if c.dep_ == "nsubj"), None)
    if modifier is None or modifier.i != word.i - 1 or modifier.pos_ not in ("NOUN", "PROPN"):
        return
    before = [c for c in word.children if c.i < modifier.i]
    after = [c for c in word.children if c.i > copula.i]
    copula.head, copula.dep_ = copula, "ROOT"
    word.head, word.dep_, word.pos_, word.tag_ = copula, "nsubj", "NOUN", "NN"
    modifier.head, modifier.dep_ = word, "compound"
    for child in before:  # "Our payments headcount": the noun phrase's determiner
        child.head = word
    for child in after:
        child.head = copula
