"""Two clauses joined by "and", the second's subject read as the first's object's conjunct.

"Marcus Bell leads the mobile team and Ines Carvalho leads the web team" comes out of the small
parser with "Ines Carvalho" a conjunct of "team" and the second "leads" a subjectless conjunct
of the first: the claims said Marcus leads Ines, and the web team, while Ines led nothing. A
subjectless conjoined verb right after a name that is a conjunct of the first verb's object
has that name as its subject; the "and" joins the verbs. That is the tree the parser gives
"Marcus leads mobile, and Ines Carvalho leads web" when it gets it right.
"""

from __future__ import annotations

from typing import Any

__all__ = ["repair_subject_read_as_conjunct"]

_SUBJECTS = ("nsubj", "nsubjpass", "expl")
_OBJECTS = ("dobj", "pobj", "attr", "dative", "oprd")
# NER's word for a name the tagger read as something else ("Omar Said": "Said" a verb).
_NAMES = ("PERSON", "ORG")


def repair_subject_read_as_conjunct(sent: Any) -> None:
    """Rehang each such name as its verb's subject (in place)."""
    doc = sent.doc
    for verb in sent:
        if verb.dep_ != "conj" or verb.pos_ not in ("VERB", "AUX") or verb.i == sent.start:
            continue
        first = verb.head
        if first.pos_ not in ("VERB", "AUX") or any(c.dep_ in _SUBJECTS for c in verb.children):
            continue
        name = doc[verb.i - 1]
        if name.dep_ != "conj" or not (name.pos_ == "PROPN" or name.ent_type_ in _NAMES):
            continue
        listed = name.head  # the object whose conjunct the name was read as
        if listed.dep_ not in _OBJECTS or not _under(listed, first):
            continue
        cc = next((c for c in listed.children if c.dep_ == "cc" and c.i < name.left_edge.i), None)
        if cc is None:
            continue
        name.head, name.dep_ = verb, "nsubj"
        cc.head = first


def _under(token: Any, verb: Any) -> bool:
    """Whether `token` is inside the clause `verb` heads (not inside another verb's)."""
    while token.head.i != token.i:
        token = token.head
        if token.i == verb.i:
            return True
        if token.pos_ in ("VERB", "AUX"):
            return False
    return False
