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
- **A contraction without its apostrophe.** "im ooo", "ive got it": "m" is "be".
"""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.names import CALENDAR_WORDS

__all__ = ["repair_noun_as_verb"]

_COPULA_FORMS = frozenset({"is", "are", "was", "were", "'s"})
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "expl", "csubj"})


def repair_noun_as_verb(sent: Any) -> None:
    """Fix the misparses in one sentence, in place."""
    _bare_contractions(sent)
    _contracted_copula(sent)
    _noun_before_copula(sent)
    _verb_as_plural_noun(sent)
    _change_in_a_verbless_sentence(sent)
    _imperative_misread(sent)
    _plural_noun_with_a_subject(sent)
    _subject_read_as_compound(sent)


# Contractions written without the apostrophe in chat ("im ooo", "ive got it"): the tokenizer
# splits them off the pronoun, but the lemmatizer leaves "m" and "ve" as they are.
_BARE_LEMMAS = {"m": "be", "re": "be", "ve": "have"}


def _bare_contractions(sent: Any) -> None:
    doc = sent.doc
    for tok in sent:
        lemma = _BARE_LEMMAS.get(tok.lower_)
        joined = tok.i > sent.start and not doc[tok.i - 1].whitespace_
        if lemma and joined and doc[tok.i - 1].tag_ == "PRP":
            tok.lemma_, tok.pos_ = lemma, "AUX"


# What a contracted "is" says someone is: "Ingrid's back", "Dana's out until Friday".
_STATES_AFTER_IS = frozenset({"back", "out", "off", "away", "here", "in", "gone", "home"})


def _contracted_copula(sent: Any) -> None:
    """ "Ingrid's back as of today": the parser reads the contracted "is" as a possessive
    ending and makes the name the root. A name whose "'s" is followed by a state word is the
    subject of that "is"."""
    if _copula_read_as_case(sent):
        return
    name = sent.root
    if name.pos_ != "PROPN" or name.i + 2 >= sent.end:
        return
    ending, state = name.doc[name.i + 1], name.doc[name.i + 2]
    if ending.lower_ not in ("'s", "’s") or ending.head.i != name.i:
        return
    if (
        state.lower_ in _STATES_AFTER_IS
        and state.head.pos_ == "ADJ"
        and state.head.head.i == name.i
    ):
        state = state.head  # "Omar's off sick today": the state is the adjective it qualifies
    elif state.lower_ not in _STATES_AFTER_IS or state.head.i != name.i:
        return
    others = [c for c in name.children if c.i > ending.i]
    _make_copula(ending)
    name.head, name.dep_ = ending, "nsubj"
    for child in others:
        child.head = ending
    state.dep_ = "advmod" if state.pos_ == "ADV" else "acomp"


def _make_copula(ending: Any) -> None:
    """The contracted "'s" as the clause's "is", its root."""
    ending.head, ending.dep_, ending.pos_, ending.tag_, ending.lemma_ = (
        ending,
        "ROOT",
        "AUX",
        "VBZ",
        "be",
    )


def _copula_read_as_case(sent: Any) -> bool:
    """ "Dana's out sick today": the state is the root with the name its subject, and the
    contracted "is" a case marker on the name. It is the copula: the root, with the name its
    subject and the state its complement."""
    state = sent.root
    if state.pos_ not in ("ADJ", "ADV"):
        return False
    name = next((c for c in state.children if c.dep_ == "nsubj" and c.pos_ == "PROPN"), None)
    if name is None or name.i + 1 >= sent.end:
        return False
    ending = name.doc[name.i + 1]
    if ending.lower_ not in ("'s", "’s") or ending.head.i != name.i or ending.dep_ != "case":
        return False
    for child in [c for c in state.children if c.i != name.i and c.dep_ not in ("advmod",)]:
        child.head = ending
    _make_copula(ending)
    name.head = ending
    state.head, state.dep_ = ending, "acomp"
    return True


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
            if word.dep_ == "ROOT" and _common_subject(word):
                return
            continue
        if word.dep_ == "ROOT" and not _only_modifiers(word, first):
            continue
        if word.dep_ != "ROOT" and not _under_fronted_date(word, first):
            continue
        _make_verb(word, doc[first : word.i], name)
        return


def _common_subject(word: Any) -> bool:
    """ "The on-call rotation moves to the SRE team": a common noun right before the plural
    root is its subject when everything on the root's left modifies that noun phrase. The
    noun's own modifiers, hung on the root, move to it."""
    doc = word.doc
    if word.i == 0:
        return False
    noun = doc[word.i - 1]
    if noun.pos_ != "NOUN" or noun.head.i != word.i or noun.dep_ != "compound":
        return False
    # A fronted phrase ("As of June, billing support shifts to Tomas") stays the verb's.
    fronted = {
        c.i for c in word.lefts if c.dep_ in ("prep", "punct", "advmod", "npadvmod", "advcl")
    }
    lefts = [c for c in word.lefts if c.i not in fronted]
    if any(f > c.i for f in fronted for c in lefts):
        return False
    if not all(c.dep_ in ("compound", "amod", "det", "poss", "nmod") for c in lefts):
        return False
    for child in lefts:
        if child.i != noun.i:
            child.head = noun
    noun.head, noun.dep_ = word, "nsubj"
    word.pos_, word.tag_ = "VERB", "VBZ"
    return True


_FINITE_TAGS = frozenset({"VBZ", "VBP", "VBD", "MD"})


def _imperative_misread(sent: Any) -> None:
    """ "Release management shifts to Hamza Aziz in Q3": a noun opening the sentence that is
    also a verb is read as an imperative with the real verb, a plural noun, its object. When
    that object is a verb of change right after the opening noun phrase and the "to" phrase
    is on the root, the opening words are the subject's and the plural noun is the verb."""
    root = sent.root
    if root.i != sent.start or root.pos_ != "VERB" or root.tag_ != "VB":
        return
    word = next((c for c in root.children if c.dep_ == "dobj"), None)
    if word is None or word.tag_ != "NNS" or word.lemma_.lower() not in _CHANGE_VERBS:
        return
    between = word.doc[root.i + 1 : word.i]
    if not between or any(t.head.i != word.i or t.pos_ != "NOUN" for t in between):
        return
    if not any(c.dep_ == "prep" and c.lower_ in ("to", "from") for c in root.children):
        return
    subject = between[-1]
    for tok in root.children:
        if tok.i != word.i:
            tok.head = word
    for tok in between[:-1]:
        tok.head = subject
    root.head, root.dep_, root.pos_, root.tag_ = subject, "compound", "NOUN", "NN"
    subject.head, subject.dep_ = word, "nsubj"
    word.head, word.dep_, word.pos_, word.tag_ = word, "ROOT", "VERB", "VBZ"


def _change_in_a_verbless_sentence(sent: Any) -> None:
    """ "Starting Q3, Marrowgate on-call moves to the SRE team", "Starting next quarter,
    support moves to the Lisbon hub": after a fronted date the parser may make the date (or the
    subject) the root and the verb a plural noun under it, and the sentence has no finite verb.
    The plural noun of a verb of change with a "to"/"from" phrase is then the verb; the words
    between the fronted phrase's comma and it are its subject (headed by the last noun), and
    the old root, with the date, hangs on it."""
    if any(t.pos_ in ("VERB", "AUX") and t.tag_ in _FINITE_TAGS for t in sent):
        return
    doc = sent.doc
    for word in sent:
        if word.dep_ == "ROOT" or word.pos_ != "NOUN" or word.tag_ != "NNS":
            continue
        if word.lemma_.lower() not in _CHANGE_VERBS:
            continue
        if not any(c.dep_ == "prep" and c.lower_ in ("to", "from") for c in word.rights):
            continue
        first = word.i
        while first > sent.start and doc[first - 1].text not in (",", ";", ":"):
            first -= 1
        span = doc[first : word.i]
        nouns = [t for t in span if t.pos_ in ("NOUN", "PROPN")]
        if first == sent.start or not nouns:
            return  # no fronted phrase: not this misparse
        _make_clause(word, span, nouns[-1], sent.root)
        return


def _make_clause(verb: Any, span: Any, subject: Any, old_root: Any) -> None:
    inside = {t.i for t in span}
    for tok in span:
        if tok.i != subject.i and (tok.head.i not in inside or tok.head.i == verb.i):
            tok.head = subject
    for tok in [t for t in old_root.children if t.i not in inside and t.i != verb.i]:
        if tok.i > verb.i or tok.i in inside or old_root.i in inside:
            tok.head = verb
    subject.head, subject.dep_ = verb, "nsubj"
    if old_root.i not in inside:
        old_root.head = verb
        old_root.dep_ = "prep" if old_root.pos_ == "ADP" else "npadvmod"
    verb.head, verb.dep_, verb.pos_, verb.tag_ = verb, "ROOT", "VERB", "VBZ"


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
