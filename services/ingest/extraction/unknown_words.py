"""Names at the start of a sentence that the small tagger reads as common words.

At a sentence start a capital says nothing, and the small model tags an unfamiliar name there
by its shape: "Northwind hired Carla Mendes" gets a common noun "Northwind", so the clause's
subject looks bare and is read as the document's topic. The lemmatizer already ships the
English word lists it lemmatizes with (WordNet's nouns, verbs, adjectives and adverbs): a
capitalised sentence-opening word in none of them is no common word, so it is a proper noun.
Known words keep their tag ("Headcount is 64", "Revenue fell", "Security approved it"). A name
read as an adverb ("Tandemly signed …") also left its verb without a subject: it is that subject.

The same lists settle an "-ing" word before a noun: "the onboarding checklist", "the billing
service" get an adjective "onboarding", so the phrase looked merely described and named no
entity. An "-ing" word that is no English adjective ("existing", "upcoming" and "pending" are)
is a noun modifier, a compound of the noun it names.

The same lists settle a verb the tagger reads as a plural noun: "Lena consults for Orbital
Labs.", "Nadia coordinates onboarding for Helix." come out verbless, a noun root "consults" with
the name its compound, so the sentence gave no claim at all. A full-stopped sentence with no
finite verb, whose plural-noun root is a name's head and an English verb once its "-s" goes, is
that verb with the name its subject; so is a verb the parser got right but left without
a subject, the name hung on it as a compound ("Hugo Brandt consults for Pinecrest Capital.").
"""

from __future__ import annotations

from typing import Any

from shared.entities.given_names import is_given_name

__all__ = ["UNKNOWN_WORDS", "english_word", "is_english", "make_unknown_words"]

UNKNOWN_WORDS = "rememberstack_unknown_words"
# The lemmatizer's word lists, kept once the component is made (they are the same for every
# pipeline of the model): `english_word` reads them outside a parse, for titles.
_english: frozenset[str] = frozenset()
# Tags a name is misread as at a sentence start; a verb there is most often an imperative.
_MISREAD = frozenset({"NOUN", "ADJ", "ADV"})
_MIN_LENGTH = 3
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "expl"})


def make_unknown_words(nlp: Any, name: str) -> Any:
    """A spaCy component factory (after the lemmatizer): retag unknown sentence openers and
    "-ing" noun modifiers."""
    lookups = nlp.get_pipe("lemmatizer").lookups
    index = lookups.get_table("lemma_index")
    exceptions = lookups.get_table("lemma_exc")
    words = frozenset(
        word
        for table in (index, exceptions)
        for pos in ("noun", "verb", "adj", "adv")
        for word in table.get(pos, ())
    )
    global _english
    _english = words
    adjectives = frozenset(word for table in (index, exceptions) for word in table.get("adj", ()))
    verbs = frozenset(word for table in (index, exceptions) for word in table.get("verb", ()))

    def retag(doc: Any) -> Any:
        _ing_modifiers_as_compounds(doc, adjectives)
        for sent in doc.sents:
            _unknown_opener_as_name(sent, words)
            _imperative_read_as_name(sent, verbs)
            _noun_read_as_verb(sent, words)
            _verb_read_as_plural_noun(sent, verbs, adjectives)
            _conjoined_verb_read_as_plural_noun(sent, verbs)
        return doc

    return retag


def english_word(tok: Any) -> bool:
    """Whether `tok` is a word of the lemmatizer's English lists ("Cutover", "Board"), not a
    coined name ("Harrowfen"); True when the lists are not loaded."""
    return is_english(tok.lower_) or (bool(_english) and tok.lemma_.lower() in _english)


def is_english(word: str) -> bool:
    """Whether the lower-case `word` (or it without a plural "s") is in the lemmatizer's English
    lists; True when they are not loaded."""
    if not _english:
        return True
    return word in _english or (word.endswith("s") and word[:-1] in _english)


def _ing_modifiers_as_compounds(doc: Any, adjectives: frozenset[str]) -> None:
    """ "the onboarding checklist": an "-ing" word before its noun that is no adjective."""
    for tok in doc:
        if (
            tok.dep_ == "amod"
            and tok.lower_.endswith("ing")
            and tok.lower_ not in adjectives
            and tok.head.pos_ == "NOUN"
            and tok.head.i == tok.i + 1
        ):
            tok.pos_, tok.tag_, tok.dep_ = "NOUN", "NN", "compound"


def _unknown_opener_as_name(sent: Any, words: frozenset[str]) -> None:
    """ "Northwind hired …": a capitalised sentence opener in no word list is a proper noun."""
    opener = next((t for t in sent if t.is_alpha), None)
    if opener is None or opener.pos_ not in _MISREAD or opener.tag_ == "NNS":
        return
    text = opener.text
    if len(text) < _MIN_LENGTH or not text[0].isupper() or text.isupper():
        return
    if opener.lower_ in words or opener.lemma_.lower() in words:
        return
    opener.pos_, opener.tag_, opener.lemma_ = "PROPN", "NNP", text
    verb = opener.head
    if (
        opener.dep_ in ("advmod", "npadvmod", "amod")
        and verb.pos_ in ("VERB", "AUX")
        and opener.i < verb.i
        and not any(c.dep_ in _SUBJECT_DEPS for c in verb.children)
    ):
        opener.dep_ = "nsubj"  # "Tandemly signed the renewal": read as an adverb


_FINITE_TAGS = frozenset({"VBZ", "VBP", "VBD", "MD"})
_AFTER_VERB_DEPS = frozenset({"prep", "dobj", "acl", "npadvmod", "attr", "advmod"})
_NOUN_PHRASE_DEPS = frozenset({"compound", "det", "amod", "poss"})
_FRONTED_DEPS = frozenset({"prep", "advmod", "npadvmod", "advcl", "punct"})


def _verb_read_as_plural_noun(sent: Any, verbs: frozenset[str], adjectives: frozenset[str]) -> None:
    """ "Lena Park consults for Orbital Labs.": "consults" is the verb, "Lena Park" its subject.
    The parser may also get the verb right and still hang the name on it as a compound."""
    root = sent.root
    if not root.text.islower() or sent[-1].text != ".":
        return
    misread = root.tag_ == "NNS" and not any(t.tag_ in _FINITE_TAGS for t in sent)
    unsubjected = root.tag_ == "VBZ" and not any(c.dep_ in _SUBJECT_DEPS for c in root.children)
    if not (misread or unsubjected):
        return
    word = root.lower_
    stem = next((w for w in (word[:-1], word[:-2]) if word.endswith("s") and w in verbs), None)
    if stem is None:
        return
    before = [c for c in root.children if c.i < root.i]
    if misread and _subject_already_parsed(root, before, stem):
        return
    phrase = [c for c in before if c.dep_ in _NOUN_PHRASE_DEPS]
    # Anything else before the verb must be a fronted adverbial ("According to the roadmap,").
    if any(c.dep_ not in _FRONTED_DEPS for c in before if c not in phrase):
        return
    # The noun right before the verb heads the subject ("vendor portal" even where the
    # tagger made "portal" an adjective).
    heads = [
        c
        for c in phrase
        if c.dep_ == "compound" or (c.dep_ == "amod" and c.lower_ not in adjectives)
    ]
    if not heads or heads[-1].i != root.i - 1:
        return
    subject = heads[-1]
    # "The warehouse migration wraps up …": the parser may hang the article on the noun.
    determined = any(c.dep_ in ("det", "poss") for p in phrase for c in (p, *p.subtree))
    if misread and not determined and not any(t.pos_ == "PROPN" for t in subject.subtree):
        return  # "Sales targets for Q3.": a heading, not a named subject
    if not any(c.i > root.i and c.dep_ in _AFTER_VERB_DEPS for c in root.children):
        return
    for word_before in phrase:
        if word_before is not subject:
            word_before.head = subject
    subject.head, subject.dep_ = root, "nsubj"
    subject.pos_, subject.tag_ = ("PROPN", "NNP") if subject.pos_ == "PROPN" else ("NOUN", "NN")
    root.pos_, root.tag_, root.lemma_ = "VERB", "VBZ", stem
    for child in root.children:
        if child.dep_ == "acl" and child.tag_ == "VBG" and child.i == root.i + 1:
            # "coordinates onboarding for Helix": what is coordinated
            child.pos_, child.tag_, child.dep_ = "NOUN", "NN", "dobj"


def _conjoined_verb_read_as_plural_noun(sent: Any, verbs: frozenset[str]) -> None:
    """ "Kwame joined the platform team and reports to Beatriz.": the second verb, read as a
    plural noun coordinated with the first, takes its own preposition's object."""
    for tok in sent:
        head = tok.head
        if tok.dep_ != "conj" or tok.tag_ != "NNS" or head.pos_ != "VERB" or head.i > tok.i:
            continue
        word = tok.lower_
        stem = next((w for w in (word[:-1], word[:-2]) if word.endswith("s") and w in verbs), None)
        if stem is None or any(c.dep_ in ("det", "poss", "amod", "compound") for c in tok.children):
            continue
        if not any(c.dep_ in ("prep", "dobj") and c.i > tok.i for c in tok.children):
            continue
        if not any(c.dep_ == "cc" and c.i < tok.i for c in [*head.children, *tok.children]):
            continue
        tok.pos_, tok.tag_, tok.lemma_ = "VERB", "VBZ", stem


def _subject_already_parsed(root: Any, before: list[Any], stem: str) -> bool:
    """ "The contract with Vela runs through Q3 2027.": the parser found the subject and only
    mistook the verb for a plural noun, hanging the name before it on it as a compound. The
    verb is retagged and the name given back to the preposition it follows."""
    subjects = [c for c in before if c.dep_ in _SUBJECT_DEPS]
    if len(subjects) != 1 or not any(
        c.i > root.i and c.dep_ in _AFTER_VERB_DEPS for c in root.children
    ):
        return False
    names: list[tuple[Any, Any]] = []
    for child in before:
        if child.dep_ == "compound":
            prep = root.doc[child.left_edge.i - 1] if child.left_edge.i > 0 else None
            if prep is None or prep.dep_ != "prep" or any(c.dep_ == "pobj" for c in prep.children):
                return False
            names.append((child, prep))
        elif child.dep_ not in _SUBJECT_DEPS | _FRONTED_DEPS:
            return False
    for name, prep in names:
        name.head, name.dep_ = prep, "pobj"
    root.pos_, root.tag_, root.lemma_ = "VERB", "VBZ", stem
    return True


def _imperative_read_as_name(sent: Any, verbs: frozenset[str]) -> None:
    """ "Meet Ravi Patel, who is employed by Globex": "Meet" is a verb, not a first name."""
    opener = sent[0]
    root = sent.root
    if opener.tag_ not in ("NNP", "VB") or opener.dep_ != "compound" or root.pos_ != "PROPN":
        return
    word = opener.lower_
    if word not in verbs or is_given_name(word) or not opener.text[:1].isupper():
        return
    if opener.head.i != root.i and opener.head.head.i != root.i:
        return
    opener.pos_, opener.tag_, opener.lemma_ = "VERB", "VB", word
    opener.head, opener.dep_ = opener, "ROOT"
    root.head, root.dep_ = opener, "dobj"


def _noun_read_as_verb(sent: Any, words: frozenset[str]) -> None:
    """ "The payments runbook is owned by the SRE team": "runbook" is a noun, "owned" the verb."""
    root = sent.root
    if root.pos_ != "VERB" or root.lower_ in words or root.lemma_.lower() in words:
        return
    clause = next(
        (
            c
            for c in root.children
            if c.dep_ in ("ccomp", "relcl", "acl")
            and c.i > root.i
            and any(a.dep_ in ("aux", "auxpass") for a in c.children)
            and not any(a.dep_ in _SUBJECT_DEPS for a in c.children)
        ),
        None,
    )
    if clause is None:
        return
    before = [c for c in root.children if c.i < root.i]
    after = [c for c in root.children if c.i > root.i and c.i != clause.i]
    root.pos_, root.tag_, root.lemma_ = "NOUN", "NN", root.lower_
    clause.head, clause.dep_ = clause, "ROOT"
    passive = any(a.dep_ == "auxpass" for a in clause.children)
    root.head, root.dep_ = clause, "nsubjpass" if passive else "nsubj"
    for child in before:
        if child.dep_ in ("nsubj", "nsubjpass"):
            child.dep_ = "compound"  # "payments" named the runbook
    for child in after:
        child.head = clause
