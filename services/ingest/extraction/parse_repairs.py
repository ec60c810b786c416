"""Repairs of dependency misparses of the small English model that lose a clause's subject.

Each is a class, not a sentence: each is recognised from the tree's shape alone and rewritten
into the tree the parser gives the same sentence when it gets it right.

The repairs of a noun left as the root with its verb under it are in `root_repairs`.

- **A plural noun modifier read as the root.** "The payments API is hosted in Frankfurt",
  "The claims dashboards are owned by Amara" come out as a noun root ("payments") with the
  real clause as a relative clause under it and no relative pronoun. The noun is a compound
  of the clause's subject, and the verb is the root.
- **A subject read as a noun the verb modifies.** "The trustees named Colm Byrne director of
  programmes" comes out as a noun root with the verb as its participle modifier (`acl`). A
  noun root whose participle has an object of its own is the subject of that verb.
- **A participle modifier read as the verb.** "The minimum supported Android version for the
  Fieldnote app is 11" makes "supported" the root, with "minimum" its subject, the version its
  object and the copula a subjectless adverbial clause under it. A past-tense or participle
  root right after its determined subject, whose object is followed by a subjectless "be"
  with a complement, modifies that object, and the object is the copula's subject.
- **A compound read as a second subject.** "The invoices API is hosted in Sydney" gives the
  verb two adjacent subjects; the first is a modifier of the second. A name opening the
  sentence before a comma is whom it addresses ("Jo, sorry, we're seeing the 401s again").
- **A subject of a noun.** "The Helios go-live is on 14 April" makes "Helios" the subject of
  "live", which is the subject of "is"; a noun has no subject, so it is the noun's modifier.
- **A state's name read apart from its verb** (`state_phrases`): "Project Lynx moved to amber
  on 6 March" makes "to amber" an infinitive; "slipped to at risk" leaves "to" empty.
- **A verb read as an auxiliary.** "I oppose moving the launch" makes "oppose" an auxiliary
  of "moving"; a word in the auxiliary slot that is no auxiliary is the clause's verb, with
  the gerund as its complement.
- **A fronted phrase swallowing the subject.** "After six years at Tandem Logistics, Sofia
  Reyes is joining Pellucid Health" makes "Sofia Reyes" an apposition of "Tandem Logistics"
  and leaves the verb without a subject ("In addition to his job at Brava Media, Iker Sola
  works for …" makes it a conjunct). A name in apposition or an unlisted conjunct after a
  comma, right before a subjectless verb, is that verb's subject. When the parser instead
  makes the fronted phrase's last name the subject ("After years at Brava Media, Iker Sola
  works …": "Media" the subject, "Sola" its conjunct), a subject right after a preposition
  is that preposition's object and its conjunct the subject.
- **A fronted date swallowing the subject.** "From 1 March 2025 Diego Ramos reports to Ivan
  Petrov" (no comma) makes "Diego Ramos" the object of "From" and the date its modifier; the
  name right before the subjectless verb is its subject and the date the preposition's object.
- **A label read as the clause's head.** "Members: Dara Singh is on the Checkout team",
  "Team news: Omar Ali joined Search" hang the clause on the label noun ("Members" the root,
  "is" its modifier), and "Owner: Priya Das owns …" makes the label a second subject. A short
  line-opening label before a colon, followed by a verb with a subject of its own, is no part
  of the clause: the verb becomes the root and the label a dependent (`LABEL_DEP`) that
  `clauses.split_clauses` leaves out of the claim.
- **A noun read as the verb before a copula** (`noun_as_verb`): "Payments headcount is now 12".
- **A leading verb read as the function's compound** (`function_heads`): "Olivia Grant heads
  product at Tidewater", "Kofi leads engineering at Orbit".
- **A role's holder misattached** (`appositive_repairs`): "The CTO of Northwind, Dana
  Whitfield, said …", "Our head of design at Lumen, Ana Ruiz, left in May".
- **A preposition read as a start clause's mark** (`preposition_marks`): "consulting for
  Ostrava Robotics starting this month".
- **A rejected alternative read as a second name** (`rejected_alternatives`): "it was Maria
  Kowalczyk, not Marta, who signed", "is Head of Research, not Design".
- **Two coordinated names read as one** (`coordinated_names`): "Ravi Patel and Anjali Patel
  joined Fenwick" made "Patel" the subject with the first name under it.
- **A second clause's subject read as the first's object's conjunct** (`conjoined_clauses`):
  "Marcus Bell leads the mobile team and Ines Carvalho leads the web team".
- **An object read as a clause.** "Mira Chen no longer manages the Tallis account as of 1 June"
  makes "account" a clausal complement of "manages" with "Tallis" its subject: a noun is no
  clause, so it is the verb's object and the name its compound.
- **A manner of work read as the object.** "works for Fabrikam part-time", "joined Contoso
  part-time in May" make "time" the head of the object phrase, with the organisation its
  compound (or a second object beside it), so the employer was stored as "Fabrikam
  parttime". "part-time", "full-time" and "half-time" say how the verb is done: the name is
  the object, and "time" an adverbial of the verb.
"""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.appositive_repairs import repair_appositive_holders
from services.ingest.extraction.attribution import ATTRIBUTION_VERBS
from services.ingest.extraction.conjoined_clauses import repair_subject_read_as_conjunct
from services.ingest.extraction.coordinated_names import repair_coordinated_names
from services.ingest.extraction.function_heads import repair_function_heads
from services.ingest.extraction.noun_as_verb import repair_noun_as_verb
from services.ingest.extraction.preposition_marks import repair_preposition_marks
from services.ingest.extraction.rejected_alternatives import repair_rejected_alternatives
from services.ingest.extraction.root_repairs import (
    SUBJECT_DEPS,
    repair_finite_modifier_root,
    repair_noun_root,
    repair_participle_modifier,
    repair_participle_root,
    repair_passing_verb_as_noun,
)
from services.ingest.extraction.state_phrases import repair_state_phrases

__all__ = ["LABEL_DEP", "repair_parse"]

# The dependency a line-opening label gets once it is detached from the clause after it: a
# name of our own, so no label the parser assigns ("dep" included) is mistaken for one.
LABEL_DEP = "line_label"
_MAX_LABEL_WORDS = 3


def repair_parse(doc: Any) -> Any:
    """A spaCy pipeline component (after the parser): fix the two misparses in place."""
    for sent in list(doc.sents):
        repair_noun_root(sent)
        repair_noun_as_verb(sent)
        repair_participle_root(sent)
        repair_finite_modifier_root(sent)
        repair_participle_modifier(sent)
        repair_passing_verb_as_noun(sent)
        _double_subject(sent)
        _subject_of_a_noun(sent)
        repair_state_phrases(sent)
        _verb_as_auxiliary(sent)
        _swallowed_subject(sent)
        _label_before_clause(sent)
        _manner_of_work_as_object(sent)
        repair_appositive_holders(sent)
        repair_function_heads(sent)
        repair_preposition_marks(sent)
        repair_rejected_alternatives(sent)
        _object_read_as_clause(sent)
        repair_coordinated_names(sent)
        repair_subject_read_as_conjunct(sent)
    return doc


def _subject_of_a_noun(sent: Any) -> None:
    """ "The Helios go-live is on 14 April" makes "Helios" the subject of "live", itself the
    subject of "is": a noun has no subject, so the first is a modifier of the noun."""
    for tok in sent:
        head = tok.head
        if (
            tok.dep_ in ("nsubj", "nsubjpass")
            and tok.i < head.i
            and head.pos_ in ("NOUN", "PROPN")
            and head.dep_ in SUBJECT_DEPS
        ):
            tok.dep_ = "compound"
            for child in [c for c in tok.children if c.dep_ == "det"]:
                child.head = head


def _double_subject(sent: Any) -> None:
    for verb in sent:
        subjects = [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")]
        if len(subjects) != 2:
            continue
        first, second = subjects
        if _addressed(first, sent):
            # "Jo, sorry, we're seeing the 401s again": the name opening the sentence before
            # a comma is whom it speaks to; the clause's subject is the other.
            first.dep_ = "npadvmod"
            continue
        if first.i + 1 != second.i or first.pos_ != "NOUN":
            continue
        first.head, first.dep_ = second, "compound"
        for child in [c for c in first.children if c.dep_ == "det"]:
            child.head = second


def _addressed(name: Any, sent: Any) -> bool:
    """A proper name alone at the sentence's start, followed by a comma (a vocative)."""
    doc = name.doc
    return bool(
        name.pos_ == "PROPN"
        and name.left_edge.i == sent.start
        and name.right_edge.i + 1 < len(doc)
        and doc[name.right_edge.i + 1].text == ","
    )


_AUXILIARIES = frozenset(
    {
        "be", "have", "do", "will", "would", "shall", "should", "can", "could", "may", "might",
        "must", "ought", "need", "dare", "get", "'s", "'re", "'m", "'ve", "'d", "'ll", "to",
        "not", "n't", "going", "gon", "used",
    }
)  # fmt: skip


def _verb_as_auxiliary(sent: Any) -> None:
    gerund = sent.root
    if gerund.tag_ != "VBG":
        return
    false_aux = next(
        (
            c
            for c in gerund.children
            if c.dep_ == "aux"
            and c.i + 1 == gerund.i
            and c.lemma_.lower() not in _AUXILIARIES
            and c.lower_ not in _AUXILIARIES
        ),
        None,
    )
    if false_aux is None:
        return
    before = [c for c in gerund.children if c.i < false_aux.i]
    false_aux.head, false_aux.dep_, false_aux.pos_ = false_aux, "ROOT", "VERB"
    gerund.head, gerund.dep_ = false_aux, "xcomp"
    for child in before:  # the subject, and what stands before it
        child.head = false_aux


def _unlisted_conjunct(tok: Any) -> bool:
    """A conjunct with no "and" or earlier conjunct beside it: "Acme, Globex and Initech" is a
    list; "at Brava Media, Iker Sola works" is a misread subject."""
    return tok.dep_ == "conj" and not any(
        c.dep_ in ("cc", "conj") for c in tok.head.children if c.i != tok.i
    )


def _swallowed_subject(sent: Any) -> None:
    verb = sent.root
    if verb.pos_ not in ("VERB", "AUX"):
        return
    doc = verb.doc
    first = min([verb.i, *(c.i for c in verb.children if c.dep_ in ("aux", "auxpass"))])
    subject = next((c for c in verb.children if c.dep_ in SUBJECT_DEPS), None)
    if subject is not None:
        _subject_inside_fronted_phrase(verb, subject, first)
        return
    if _subject_after_fronted_date(verb, first):
        return
    opener = sent[0]
    if (
        opener.pos_ == "PROPN"
        and opener.dep_ in ("advmod", "npadvmod")
        and all(doc[k].pos_ in ("ADV", "PROPN") for k in range(opener.i, first))
    ):
        # "Sven now reports to the COO": the name read as a modifier of the adverb after it.
        opener.head, opener.dep_ = verb, "nsubj"
        return
    for tok in sent:
        if tok.pos_ != "PROPN" or tok.i >= first:
            continue
        if tok.dep_ != "appos" and not _unlisted_conjunct(tok):
            continue
        left, right = tok.left_edge.i, tok.right_edge.i
        if right + 1 != first or left == 0 or doc[left - 1].text != ",":
            continue
        # The apposition must hang inside a phrase fronted before the verb ("After …,").
        anchor = tok.head
        while anchor.head.i != anchor.i and anchor.head.i != verb.i:
            anchor = anchor.head
        if anchor.head.i != verb.i or anchor.dep_ not in ("prep", "advcl", "npadvmod"):
            continue
        tok.head, tok.dep_ = verb, "nsubj"
        return


def _subject_after_fronted_date(verb: Any, first: int) -> bool:
    """ "From 1 March 2025 Diego Ramos reports to Ivan": with no comma the parser makes the
    name the preposition's object and the date its modifier. A name right before a
    subjectless verb, after a date inside the same fronted phrase, is the verb's subject."""
    doc = verb.doc
    name = doc[first - 1] if first > 0 else None
    if name is None or name.pos_ != "PROPN" or name.dep_ != "pobj" or name.ent_type_ == "DATE":
        return False
    preposition = name.head
    if preposition.head.i != verb.i or preposition.i >= name.i:
        return False
    first_word = name.i  # the name's own words: proper nouns compounded onto it
    while first_word > 0 and doc[first_word - 1].dep_ == "compound":
        if doc[first_word - 1].pos_ != "PROPN" or doc[first_word - 1].ent_type_ == "DATE":
            break
        first_word -= 1
    dates = list(doc[preposition.i + 1 : first_word])
    if not any(t.ent_type_ == "DATE" for t in dates):
        return False
    if not all(t.ent_type_ == "DATE" or t.pos_ == "NUM" for t in dates):
        return False
    if any(t.head.i not in {d.i for d in dates} | {name.i} for t in dates):
        return False  # the date hangs elsewhere too: not the shape this repair knows
    date = dates[-1]  # "1 March 2025": the last word carries the phrase
    for tok in dates:
        if tok.head.i == name.i and tok is not date:
            tok.head = date
    date.head, date.dep_ = preposition, "pobj"
    name.head, name.dep_ = verb, "nsubj"
    return True


def _subject_inside_fronted_phrase(verb: Any, subject: Any, first: int) -> None:
    """ "After years at Brava Media, Iker Sola works": no subject follows a preposition."""
    doc = subject.doc
    start = subject.left_edge.i
    if subject.pos_ != "PROPN" or start == 0 or subject.i >= first:
        return
    preposition = doc[start - 1]
    if preposition.pos_ != "ADP" or preposition.dep_ != "prep":
        return
    conjunct = next(
        (c for c in subject.children if c.pos_ == "PROPN" and _unlisted_conjunct(c)), None
    )
    if conjunct is None or conjunct.right_edge.i + 1 != first:
        return
    if doc[conjunct.left_edge.i - 1].text != ",":
        return
    subject.head, subject.dep_ = preposition, "pobj"
    conjunct.head, conjunct.dep_ = verb, "nsubj"


def _label_before_clause(sent: Any) -> None:
    """ "Members: Dara Singh is on the Checkout team": the label is no part of the clause."""
    doc = sent.doc
    colon = next((t for t in sent if t.text == ":"), None)
    if colon is None or not 0 < colon.i - sent.start <= _MAX_LABEL_WORDS:
        return
    label = [doc[k] for k in range(sent.start, colon.i)]
    # Nouns, names, adjectives or a gerund ("Hiring update:"), never a clause's own words.
    if not all(
        t.is_alpha and (t.pos_ in ("NOUN", "PROPN", "ADJ") or t.tag_ == "VBG") for t in label
    ):
        return
    verb = next(
        (
            t
            for t in doc[colon.i + 1 : sent.end]
            if t.pos_ in ("VERB", "AUX")
            and t.dep_ not in ("aux", "auxpass")
            and any(c.dep_ in SUBJECT_DEPS and c.i > colon.i for c in t.children)
        ),
        None,
    )
    if verb is None:
        return
    label_ids = {t.i for t in label}
    reaches_label = verb.head.i in label_ids or (
        verb.dep_ == "ROOT" and any(c.i in label_ids for c in verb.children)
    )
    if not reaches_label:
        return
    head = next(t for t in label if t.head.i not in label_ids or t.head.i == t.i)
    others = [c for t in label for c in t.children if c.i not in label_ids | {verb.i, colon.i}]
    verb.head, verb.dep_ = verb, "ROOT"
    head.head, head.dep_ = verb, LABEL_DEP
    colon.head = head
    for child in others:
        child.head = verb


_MANNER_OF_WORK = frozenset({"part", "full", "half"})
_OBJECT_DEPS = frozenset({"pobj", "dobj", "attr"})


def _manner_of_work_as_object(sent: Any) -> None:
    """ "works for Fabrikam Industries part-time": "Fabrikam Industries" is the object."""
    for time in sent:
        if time.lower_ != "time" or time.dep_ not in _OBJECT_DEPS:
            continue
        manner = next(
            (c for c in time.children if c.lower_ in _MANNER_OF_WORK and c.i < time.i), None
        )
        if manner is None:
            continue
        names = [c for c in time.children if c.pos_ == "PROPN" and c.i < manner.i]
        if names:
            # The name's last word heads it; its other words modify that word.
            name = names[-1]
            for word in names[:-1]:
                word.head = name
            name.head, name.dep_ = time.head, time.dep_
        verb = time.head
        while verb.pos_ not in ("VERB", "AUX") and verb.head.i != verb.i:
            verb = verb.head
        time.head, time.dep_ = verb, "npadvmod"


def _object_read_as_clause(sent: Any) -> None:
    """A noun the parser made a verb's clausal complement, with the name right before it as
    the clause's subject ("manages the Tallis account as of 1 June"): the verb's object."""
    for tok in sent:
        if tok.dep_ != "ccomp" or tok.pos_ != "NOUN" or tok.head.pos_ != "VERB":
            continue
        if tok.tag_ == "NNS" or tok.head.lemma_.lower() in ATTRIBUTION_VERBS:
            continue  # "Kenji said his team ships on Friday": a verb of saying takes a clause
        if any(c.dep_ in ("dobj", "obj") for c in tok.head.children):
            continue
        subject = next((c for c in tok.children if c.dep_ in SUBJECT_DEPS), None)
        if subject is None or subject.i != tok.i - 1 or subject.pos_ not in ("PROPN", "NOUN"):
            continue
        if any(c.pos_ in ("VERB", "AUX") for c in tok.children):
            continue
        tok.dep_ = "dobj"
        subject.dep_ = "compound"
        for child in [c for c in subject.children if c.dep_ in ("det", "poss", "amod")]:
            child.head = tok
