"""A preposition read as the mark of a start clause: "Marek is consulting for Ostrava Robotics
starting this month", "Lena works with Brightwave beginning in June".

The small parser reads "for Ostrava Robotics starting this month" as a "for … to" clause:
"for" the mark of "starting", and the organisation the subject of "starting", so the verb
loses its preposition's object ("consulting" with no one consulted for). A clause of starting
("starting", "beginning") whose subject comes right after a mark that is a preposition, under
a verb, is the verb's preposition with its object, followed by the start clause that dates
it; the tree is rewritten into that one.
"""

from __future__ import annotations

from typing import Any

__all__ = ["repair_preposition_marks"]

_PREPOSITIONS = frozenset({"for", "with", "at", "to", "on"})
_STARTS = frozenset({"start", "begin", "commence"})


def repair_preposition_marks(sent: Any) -> None:
    """Rewrite each misread "for <name> starting …" under a verb (see the module doc): the
    preposition is the start clause's mark, or the verb's own preposition left without its
    object ("will work for Halden Group starting 1 July")."""
    for clause in sent:
        if clause.dep_ != "advcl" or clause.lemma_.lower() not in _STARTS or clause.tag_ != "VBG":
            continue
        verb = clause.head
        subject = next((c for c in clause.children if c.dep_ == "nsubj"), None)
        if subject is None or subject.pos_ not in ("PROPN", "NOUN") or verb.pos_ not in _VERBS:
            continue
        if subject.left_edge.i == 0 or not verb.i < subject.i < clause.i:
            continue
        prep = sent.doc[subject.left_edge.i - 1]
        if prep.lower_ not in _PREPOSITIONS or not _misread(prep, clause, verb):
            continue
        prep.head, prep.dep_ = verb, "prep"
        subject.head, subject.dep_ = prep, "pobj"


_VERBS = frozenset({"VERB", "AUX"})


def _misread(prep: Any, clause: Any, verb: Any) -> bool:
    if prep.dep_ == "mark":
        return bool(prep.head.i == clause.i)
    return prep.dep_ == "prep" and prep.head.i == verb.i and not any(prep.children)
