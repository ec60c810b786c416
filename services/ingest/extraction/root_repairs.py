"""Repairs of a sentence the small parser left with a noun for its root and its verb hung
under it (`parse_repairs` runs these in its order; the misparses are described there):

- a plural noun modifier read as the root ("The payments API is hosted in Frankfurt");
- a verb hung on a long subject after its closing comma ("The head of legal at Orrin Group,
  Pavel Novak, left in March");
- a subject read as a noun the verb modifies ("The trustees named Colm Byrne director of
  programmes", "The patch shipped on Monday.", "The fix for the login timeout shipped on
  Monday.": the participle of a verb of what a thing does by itself is the past);
- a participle modifier read as the verb ("The minimum supported Android version … is 11");
- a verb of passing read as a plural noun ("Ownership of the ledger service moves to the
  Platform team", "Support for the mobile app moves to Tomas Berg": "moves" the object of
  "of", with the service its compound), and a verb of a period before a time ("The pilot
  with Ashgrove Clinics runs until March 31").
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "SUBJECT_DEPS",
    "repair_finite_modifier_root",
    "repair_noun_root",
    "repair_participle_modifier",
    "repair_participle_root",
    "repair_passing_verb_as_noun",
]

SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "expl", "csubj"})
_MODIFIER_DEPS = frozenset({"compound", "amod", "det", "nummod", "poss"})


def repair_noun_root(sent: Any) -> None:
    root = sent.root
    if root.pos_ not in ("NOUN", "PROPN"):
        return
    verb = next((c for c in root.children if c.dep_ == "relcl" and c.pos_ in ("VERB", "AUX")), None)
    if verb is None:
        return
    subject = next((c for c in verb.children if c.dep_ in SUBJECT_DEPS), None)
    if subject is None or subject.i <= root.i or subject.pos_ not in ("NOUN", "PROPN"):
        return
    doc = root.doc
    # Only the modifiers of one noun phrase may stand between the "root" and the subject.
    if any(doc[k].dep_ not in _MODIFIER_DEPS for k in range(root.i + 1, subject.i)):
        return
    before = [c for c in root.children if c.i < root.i]
    after = [c for c in root.children if c.i > root.i and c.i != verb.i]
    verb.head, verb.dep_ = verb, "ROOT"
    root.head, root.dep_ = subject, "compound"
    for child in before:
        child.head = subject
    for child in after:
        child.head = verb


# The tagger reads "left" of "…, Pavel Novak, left in March" as a participle too.
_FINITE_OR_PAST = frozenset({"VBD", "VBZ", "VBN"})


def repair_finite_modifier_root(sent: Any) -> None:
    """ "The head of legal at Orrin Group, Pavel Novak, left in March": the parser hangs the
    verb on the long subject as a modifier after its closing comma, leaving the sentence with
    a noun for its root and no verb: the verb is the root and the phrase its subject."""
    root = sent.root
    if root.pos_ not in ("NOUN", "PROPN"):
        return
    verb = next(
        (
            c
            for c in root.children
            if c.dep_ == "acl" and c.tag_ in _FINITE_OR_PAST and c.i > root.i
        ),
        None,
    )
    if verb is None or any(c.dep_ in SUBJECT_DEPS for c in verb.children):
        return
    if root.doc[verb.i - 1].text != ",":
        return  # only after the phrase's closing comma
    _verb_over_subject(root, verb, "nsubj")


def repair_participle_root(sent: Any) -> None:
    root = sent.root
    if root.pos_ not in ("NOUN", "PROPN"):
        return
    verb = next((c for c in root.children if c.dep_ == "acl" and c.pos_ == "VERB"), None)
    if verb is None:
        # "The fix for the login timeout shipped on Monday.": the participle hung on the
        # last noun of the subject's phrase, the sentence's only verb.
        verbs = [t for t in sent if t.pos_ in ("VERB", "AUX")]
        inner = verbs[0] if len(verbs) == 1 else None
        if (
            inner is not None
            and inner.dep_ == "acl"
            and inner.tag_ == "VBN"
            and inner.lemma_.lower() in _HAPPENINGS
            and inner.head.i != root.i
            and inner.i > root.i
            and root in inner.head.ancestors
            and not any(c.dep_ in ("dobj", "nsubj", "nsubjpass") for c in inner.children)
            and _full_stop(sent)
        ):
            _verb_over_subject(root, inner, "nsubj")
        return
    if verb.i != root.i + 1:
        return
    # A headline's passive without its auxiliary: "Starter plan price raised to $12 per
    # user", "Helios budget cut to $80k in March" (the price is what was raised).
    passive = verb.tag_ == "VBN" and any(
        c.dep_ in ("prep", "agent") and c.lower_ in ("to", "by") for c in verb.children
    )
    # "The patch shipped on Monday.", "The release went out last Tuesday.": a full sentence
    # whose past verb (written as a participle) the parser hung on its subject.
    stated = (
        verb.tag_ == "VBN"
        and verb.lemma_.lower() in _HAPPENINGS
        and _full_stop(sent)
        and any(c.dep_ in ("prep", "npadvmod", "advmod", "prt") for c in verb.children)
        and not any(t.pos_ in ("VERB", "AUX") and t.i != verb.i for t in sent)
    )
    if not passive and not stated and not any(c.dep_ in ("dobj", "oprd") for c in verb.children):
        return
    _verb_over_subject(root, verb, "nsubjpass" if passive else "nsubj")


# Verbs of what a thing does by itself ("the patch shipped", "the migration finished"), whose
# participle after a noun is the past of the sentence, not a passive modifier ("the meeting
# held on 3 March").
_HAPPENINGS = frozenset(
    {
        "ship", "land", "launch", "finish", "start", "end", "close", "open", "go", "fail",
        "arrive", "expire", "begin", "happen", "break", "crash", "slip", "merge", "deploy",
        "release", "roll", "wrap", "complete", "resume", "stop", "recover", "restart", "run",
    }
)  # fmt: skip


def _full_stop(sent: Any) -> bool:
    """Whether the sentence ends as a full sentence does (whitespace after it aside)."""
    words = [t for t in sent if not t.is_space]
    return bool(words) and words[-1].text in (".", "!")


def _verb_over_subject(root: Any, verb: Any, dep: str) -> None:
    """Make `verb` the root and the noun `root` its subject; the noun's dependents after the
    verb are the verb's."""
    after = [c for c in root.children if c.i > verb.i]
    verb.head, verb.dep_ = verb, "ROOT"
    root.head, root.dep_ = verb, dep
    for child in after:
        child.head = verb


def repair_participle_modifier(sent: Any) -> None:
    root = sent.root
    if root.pos_ != "VERB" or root.tag_ not in ("VBN", "VBD"):
        return
    subject = next((c for c in root.children if c.dep_ == "nsubj"), None)
    thing = next((c for c in root.children if c.dep_ == "dobj"), None)
    if subject is None or thing is None or subject.i != root.i - 1 or subject.pos_ == "PRON":
        return
    if not any(c.dep_ == "det" for c in subject.children):
        return  # "Maria supported the plan": a subject of its own, not a modifier
    copula = next(
        (
            c
            for c in root.children
            if c.i > thing.i
            and c.lemma_ == "be"
            and c.dep_ in ("advcl", "conj", "ccomp")
            and not any(g.dep_ in SUBJECT_DEPS for g in c.children)
            and any(g.dep_ in ("attr", "acomp") for g in c.children)
        ),
        None,
    )
    if copula is None:
        return
    rest = [c for c in root.children if c.i not in (subject.i, thing.i, copula.i)]
    copula.head, copula.dep_ = copula, "ROOT"
    thing.head, thing.dep_ = copula, "nsubj"
    root.head, root.dep_ = thing, "amod"
    subject.head, subject.dep_ = thing, "amod"
    for child in [c for c in subject.children if c.dep_ == "det"]:
        child.head = thing
    for child in rest:
        child.head = copula


# Verbs a duty or an ownership passes on with ("moves to", "passes to", "shifts to").
_PASSING_FORMS = {
    "moves": "move", "passes": "pass", "shifts": "shift", "transfers": "transfer",
    "goes": "go", "returns": "return", "falls": "fall",
}  # fmt: skip
_RECEIVING_PREPOSITIONS = frozenset({"to", "into", "under"})
# Verbs of a period read the same way ("The pilot with Ashgrove Clinics runs until March 31"),
# only before the preposition of a time.
_PERIOD_FORMS = {"runs": "run", "lasts": "last", "ends": "end", "starts": "start"}
_TIME_PREPOSITIONS = frozenset({"until", "till", "through", "on", "from"})


def repair_passing_verb_as_noun(sent: Any) -> None:
    """ "Ownership of the ledger service moves to the Platform team": the parser reads "moves"
    as a plural noun, the object of "of", with "the ledger service" its modifiers, and leaves
    "Ownership" the root. The word is the verb, the root its subject and the noun before the
    word the object of "of"."""
    root = sent.root
    if root.pos_ != "NOUN":
        return
    doc = root.doc
    for word in sent:
        base = _PASSING_FORMS.get(word.lower_) or _PERIOD_FORMS.get(word.lower_)
        if base is None or word.dep_ != "pobj" or word.head.head.i != root.i:
            continue
        after = [c for c in (*word.children, *root.children) if c.i > word.i]
        wanted = _RECEIVING_PREPOSITIONS if word.lower_ in _PASSING_FORMS else _TIME_PREPOSITIONS
        if not any(c.dep_ == "prep" and c.lower_ in wanted for c in after):
            continue
        noun = doc[word.i - 1]
        if noun.head.i != word.i or noun.pos_ not in ("NOUN", "PROPN"):
            continue
        preposition = word.head
        modifiers = [c for c in word.children if c.i < noun.i]
        noun.head, noun.dep_ = preposition, "pobj"
        for modifier in modifiers:
            modifier.head = noun
        for child in after:
            child.head = word
        word.head, word.dep_ = word, "ROOT"
        word.pos_, word.tag_, word.lemma_ = "VERB", "VBZ", base
        root.head, root.dep_ = word, "nsubj"
        return
