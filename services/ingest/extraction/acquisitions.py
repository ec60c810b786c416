"""A company changing hands: which whole it is part of from then on, and which it leaves.

"Kestrel Partners acquired Fernhill Analytics" is mapped by the normaliser ("acquire" is
`part_of`, inverse), but the same change is written as a deal that closed ("Kestrel completed
its acquisition of Fernhill from Orrin Group", "The acquisition of Fernhill by Kestrel closed in
March", "Kestrel's purchase of Fernhill was finalised"), as a sale ("Orrin Group sold Fernhill
Analytics to Kestrel Partners") or as a purchase from its owner ("Kestrel bought Fernhill from
Orrin"). Each is read here as "<target> become part of <buyer>" (a start), and a named seller as
"<target> cease to be part of <seller>" (an end), so the parent it had is closed when the new one
starts whichever way the change was written. Read from the parse: the deal noun's "of" object
(the target) and its possessor or "by" object (the buyer), the sale's object and "to" object; a
sale noun ("completed the sale of X to Y") names the buyer after "to" and the seller as its
possessor or the clause's subject.
"""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.arguments import entity_phrase
from services.ingest.extraction.moves import object_of
from services.ingest.extraction.names import is_organisation
from services.ingest.extraction.placement_changes import Relation

__all__ = ["change_of_hands"]

_DEAL_NOUNS = frozenset({"acquisition", "purchase", "takeover", "buyout"})
# The same deal from the seller's side: "Kestenholz completed the sale of Brannock Robotics to
# Sable Ridge Capital", "The sale of Brannock to Sable Ridge closed on 30 April".
_SALE_NOUNS = frozenset({"sale", "divestment", "divestiture", "disposal", "spin-off", "spinoff"})
# A deal that happened: "completed", "closed", "finalised" (not "proposed", "blocked").
_DONE_VERBS = frozenset(
    {"complete", "close", "finalise", "finalize", "conclude", "finish", "seal", "announce"}
)
_SALE_VERBS = frozenset({"sell", "divest", "offload"})
# "bought" alone is not a company changing hands (one buys licences, laptops, ads): only with
# a named organisation as its object (as every side of a change of hands is).
_BUYING_VERBS = frozenset({"buy", "purchase", "acquire"})
BECOME_PART = "become part of"
CEASE_PART = "cease to be part of"


def change_of_hands(
    head: Any, subj_tok: Any | None, inside: set[int]
) -> tuple[Relation, list[Relation]] | None:
    """(target become part of buyer, [target cease to be part of seller]) when the clause
    headed by `head` says a company changed hands, else None."""
    lemma = head.lemma_.lower()
    deal = _deal(head, subj_tok)
    target = buyer = seller = None
    if deal is not None and lemma in _DONE_VERBS and deal.lemma_.lower() in _SALE_NOUNS:
        target = _child_object(deal, "of")
        buyer = _child_object(deal, "to") or _child_object(head, "to")
        seller = _possessor(deal)
        if (seller is None or seller.pos_ == "PRON") and deal.dep_ == "dobj":
            seller = subj_tok  # "Kestenholz completed (its) sale of …"
    elif deal is not None and lemma in _DONE_VERBS:
        target = _child_object(deal, "of")
        buyer = _child_object(deal, "by") or _possessor(deal)
        if buyer is not None and buyer.pos_ == "PRON" and deal.dep_ == "dobj":
            buyer = subj_tok  # "Kestrel completed its acquisition of …"
        if buyer is None and deal.dep_ == "dobj":
            buyer = subj_tok
        seller = _child_object(deal, "from") or _child_object(head, "from")
    elif lemma in _SALE_VERBS:
        target = next((c for c in head.children if c.dep_ == "dobj"), None)
        buyer = _child_object(head, "to")
        seller = subj_tok
    elif lemma in _BUYING_VERBS and subj_tok is not None and subj_tok.dep_ == "nsubj":
        target = next((c for c in head.children if c.dep_ == "dobj"), None)
        buyer = subj_tok
        seller = _child_object(head, "from")
    if target is None or buyer is None or not is_organisation(target) or not is_organisation(buyer):
        return None
    if any(t.i not in inside for t in (target, buyer)):
        return None
    owned, owner = entity_phrase(target, inside), entity_phrase(buyer, inside)
    origin = []
    if seller is not None and seller.i in inside and is_organisation(seller):
        origin.append(Relation(owned, CEASE_PART, entity_phrase(seller, inside)))
    if lemma == "acquire" and deal is None:
        # "Brightlane acquired Pico Labs": the normaliser maps the verb itself; the clause
        # keeps its subject.
        return (Relation(owner, "acquire", owned), origin) if origin else None
    return Relation(owned, BECOME_PART, owner), origin


def _deal(head: Any, subj_tok: Any | None) -> Any | None:
    """The deal noun the clause is about: its object ("completed the acquisition of …") or its
    subject ("the acquisition of … closed", "… purchase of … was finalised")."""
    for tok in (next((c for c in head.children if c.dep_ == "dobj"), None), subj_tok):
        if tok is not None and tok.lemma_.lower() in _DEAL_NOUNS | _SALE_NOUNS:
            return tok
    return None


def _child_object(tok: Any, preposition: str) -> Any | None:
    """The object of `tok`'s preposition `preposition` ("of Fernhill", "by Kestrel")."""
    for child in tok.children:
        if child.dep_ in ("prep", "agent", "dative") and child.lower_ == preposition:
            found: Any | None = object_of(child)
            return found
    return None


def _possessor(tok: Any) -> Any | None:
    return next((c for c in tok.children if c.dep_ == "poss"), None)
