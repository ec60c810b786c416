"""Who owns a thing from now on, said as the thing (or its ownership) passing to someone.

"Ownership of the billing migration passed to Hana Sato", "Responsibility for the audit moved
to Kofi Mensah", "The vendor portal was handed over to Priya Shah", "The payroll export was
reassigned to Omar Haddad", "Kofi handed the vendor portal to Priya": each says the new owner
takes ownership of the thing, read as the one relation "<owner> take ownership of <thing>".
The normaliser maps that onto the thing's owner slot (`assigned_to`, or the `other:owned_by`
escape without the work pack) with a start, so the new owner supersedes the old one whichever
way each source phrased it. Read from the parse: the nominal's "of"/"for" object, the verb's
"to" object (on the verb or its particle), the passive's subject or the active's object.
"""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.arguments import Phrase, entity_phrase
from services.ingest.extraction.moves import is_unit, object_of
from services.ingest.extraction.names import is_person
from shared.entities.places import is_known_place

__all__ = ["TAKE_OWNERSHIP", "ownership_change"]

TAKE_OWNERSHIP = ("take", "ownership", "of")
# "Ownership of X", "responsibility for X", "stewardship of X" passing, moving, going to Y.
_OWNERSHIP_NOUNS = {"ownership": "of", "responsibility": "for", "stewardship": "of"}
_PASSING_VERBS = frozenset({"pass", "move", "go", "transfer", "shift", "fall", "switch"})
# A thing handed on: "was handed (over) to", "was reassigned to", "transferred X to".
_HANDING_VERBS = frozenset({"hand", "reassign", "transfer"})


def ownership_change(
    head: Any, subj_tok: Any | None, inside: set[int], skip: set[int]
) -> tuple[Phrase, Phrase] | None:
    """(new owner, thing owned) when the clause headed by `head` hands a thing on, else None."""
    lemma = head.lemma_.lower()
    receiver = _to_object(head, inside, skip)
    if receiver is None or receiver.ent_type_ in ("DATE", "TIME"):
        return None
    thing: Any | None = None
    if subj_tok is not None and lemma in _PASSING_VERBS | _HANDING_VERBS:
        preposition = _OWNERSHIP_NOUNS.get(subj_tok.lemma_.lower())
        if preposition is not None:  # "Ownership of X passed to Y"
            thing = next((object_of(p) for p in subj_tok.children if p.lower_ == preposition), None)
    # "The Atlas project was transferred to Globex" moves a project between organisations
    # (`frames`: part of the new one); transferred to a person, it is theirs.
    nominal = thing is not None
    if thing is None and lemma in _HANDING_VERBS and (lemma != "transfer" or is_person(receiver)):
        if subj_tok is not None and subj_tok.dep_ == "nsubjpass":  # "X was handed over to Y"
            thing = subj_tok
        else:  # "Kofi handed the vendor portal to Priya"
            thing = next((c for c in head.children if c.dep_ == "dobj"), None)
    if thing is None and _passes_itself(head, subj_tok, receiver):
        # "The pager rota moves to Lena", "billing support shifts to Tomas": a duty that
        # passes to a person is theirs (to a team it becomes part of it, `frames`).
        thing, nominal = subj_tok, True
    if thing is None or thing.i not in inside or is_person(thing):
        return None  # a person handed to a team is a placement, not a thing owned
    owned = entity_phrase(thing, inside)
    if not nominal and is_unit(owned):
        return None  # a team or project handed over changes who leads it (`handover`)
    return entity_phrase(receiver, inside), owned


def _passes_itself(head: Any, subj_tok: Any | None, receiver: Any) -> bool:
    return bool(
        subj_tok is not None
        and head.lemma_.lower() in _PASSING_VERBS
        and subj_tok.dep_ == "nsubj"
        and subj_tok.pos_ in ("NOUN", "PROPN")
        and is_person(receiver)
        and not is_known_place(receiver.text)  # "moved to Glasgow", which NER calls a person
        and not is_person(subj_tok)
        # "My sister Jess moved to …": a person described, then named
        and not any(c.dep_ == "appos" and is_person(c) for c in subj_tok.children)
    )


def _to_object(head: Any, inside: set[int], skip: set[int]) -> Any | None:
    holders = [head, *(c for c in head.children if c.dep_ in ("prt", "advmod"))]
    for holder in holders:
        for prep in holder.children:
            if prep.dep_ in ("prep", "dative") and prep.lower_ == "to" and prep.i in inside:
                pobj = object_of(prep)
                if pobj is not None and pobj.i in inside and pobj.i not in skip:
                    return pobj
    return None
