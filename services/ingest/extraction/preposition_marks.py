"""A preposition read as the mark of a start clause: "Marek is consulting for Ostrava Robotics
starting this month", "Lena works with Brightwave beginning in June"; and a start clause read
as its object's modifier ("is taking over the rota from Bastian starting 6 April").

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
    for start in sent:
        # "Kofi manages the vendor portal starting 8 June": the object read as the subject of
        # a start clause that complements the verb; it is the verb's object, the clause dates it.
        if start.dep_ != "ccomp" or start.lemma_.lower() not in _STARTS or start.tag_ != "VBG":
            continue
        verb, thing = start.head, next((c for c in start.children if c.dep_ == "nsubj"), None)
        dated = any(c.ent_type_ in ("DATE", "TIME") for c in start.children)
        if thing is None or not dated or verb.pos_ not in _VERBS or not verb.i < thing.i:
            continue
        if any(c.dep_ == "dobj" for c in verb.children):
            continue
        thing.head, thing.dep_ = verb, "dobj"
        start.dep_ = "advcl"
    for start in sent:
        # "is taking over the on-call rota from Bastian starting 6 April": the start clause
        # hung on the object as its modifier dates the verb's clause, not the object.
        if start.dep_ != "acl" or start.lemma_.lower() not in _STARTS or start.tag_ != "VBG":
            continue
        when = [c for c in start.children if c.ent_type_ in ("DATE", "TIME")]
        verb = start.head
        while (
            verb.dep_ not in ("ROOT", "conj", "ccomp", "advcl", "xcomp") and verb.head is not verb
        ):
            verb = verb.head
        if when and verb.pos_ in _VERBS and verb.i < start.i:
            start.head, start.dep_ = verb, "advcl"


_VERBS = frozenset({"VERB", "AUX"})


def _misread(prep: Any, clause: Any, verb: Any) -> bool:
    if prep.dep_ == "mark":
        return bool(prep.head.i == clause.i)
    return prep.dep_ == "prep" and prep.head.i == verb.i and not any(prep.children)
