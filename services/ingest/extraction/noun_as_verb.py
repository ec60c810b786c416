"""A noun the small parser reads as the verb before a copula.

"Payments headcount is now 12", "Checkout latency is 300 ms" come out with the noun
("headcount", "latency") as a present-tense verb whose subject is the word before it and the
copula a subjectless clausal complement under it. No verb takes a bare copula for its
complement, so the word is the head noun of the copula's subject: the copula becomes the root,
the word its subject, and the word before it that noun's modifier. Recognised from the tree's
shape alone, as the repairs in `parse_repairs`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["repair_noun_as_verb"]

_COPULA_FORMS = frozenset({"is", "are", "was", "were", "'s"})
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "expl", "csubj"})


def repair_noun_as_verb(sent: Any) -> None:
    """Fix the misparse in one sentence, in place."""
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
