"""Two coordinated full names read as one: "Ravi Patel and Anjali Patel joined Fenwick".

The small parser makes the second name's last word the clause's subject and hangs the first
name under it as a modifier, with the second given name a conjunct of the first surname: the
claim came out about "Anjali Patel Patel", and Ravi Patel took no part. The NER spans name the
two people; the repair makes the first name the head, the second its conjunct (whose given
name is its compound), which is the tree the parser gives "Dana Kim and Omar Smith joined".
"""

from __future__ import annotations

from typing import Any

__all__ = ["repair_coordinated_names"]

_PEOPLE_AND_ORGS = frozenset({"PERSON", "ORG"})


def repair_coordinated_names(sent: Any) -> None:
    """Rehang each "A B and C D" whose first name the parser put under the second (in place)."""
    spans = {ent.end - 1: ent for ent in sent.ents if ent.label_ in _PEOPLE_AND_ORGS}
    for second in sent:
        first = next(
            (c for c in second.children if c.dep_ in ("nmod", "compound") and c.i in spans), None
        )
        if first is None or first.i >= second.i:
            continue
        conj = next((c for c in first.children if c.dep_ == "conj" and c.i > first.i), None)
        cc = next((c for c in first.children if c.dep_ == "cc"), None)
        own = spans.get(second.i)
        if conj is None or cc is None or own is None or own.start != conj.i:
            continue
        was_root = second.head.i == second.i
        first.head, first.dep_ = (first if was_root else second.head), second.dep_
        second.head, second.dep_ = first, "conj"
        conj.head, conj.dep_ = second, "compound"
