"""Other names a document gives one thing, read as "<name> also known as <other name>".

"Northwind Robotics, formerly Nimbus Labs,", "Nimbus Labs (now Northwind Robotics)", "Kestrel
Data, also known as KD,", "Acme Freight (f.k.a. Acme Logistics)", "Bluewater Analytics (BWA)",
and the renamings "Nimbus Labs has been renamed Northwind Robotics", "rebranded as", "changed its
name to", "The Growth team is now called Lifecycle", "We renamed the Growth team to Lifecycle".
Without this the old name, the abbreviation and the new name were three entities, and a fact
stated under one was never found under the others.

The first name of each relation is the one the thing goes by now (the new name of a renaming,
the full name of an abbreviation); the adjudicator makes the other an alias of the same entity
(services/adjudicator/entities/declared.py). The bracketed and comma forms are read from the
token sequence around a marker word: the small parser hangs "(f.k.a. X)" anywhere, while the
name spans on either side are what NER and the compounds give. Renamings are read from the
clause's parse (the renamed subject and its "to"/"as"/predicative new name).
"""

from __future__ import annotations

from typing import Any

from services.ingest.extraction.arguments import Phrase, entity_phrase
from services.ingest.extraction.moves import object_of
from services.ingest.extraction.names import is_name, name_span
from services.ingest.extraction.placement_changes import Relation
from shared.entities import ALSO_KNOWN_AS

__all__ = ["acronym_of", "other_names"]

# Written before the older name ("formerly Nimbus Labs", "f.k.a. …") or another name it goes
# by ("a.k.a. KD"); "now" before the newer one ("Nimbus Labs (now Northwind Robotics)").
_EARLIER = frozenset({"formerly", "previously", "fka", "aka"})
_LATER = frozenset({"now"})
# "also known as KD", "formerly known as ShipRight", "also called KD", "better known as …".
_NAMING_WORDS = frozenset({"known", "called", "named", "as", "also", "better"})
_OPENERS = frozenset({"(", ",", "[", "-", "–", "—"})
_RENAMING_VERBS = frozenset({"rename", "rebrand", "rebadge"})
# "is now called Lifecycle", "will be known as Northwind": naming verbs are renamings with
# "now" or a future; "The tool is called Pico" is a name given, with no older one.
_NAMING_VERBS = frozenset({"call", "name", "know"})


def other_names(head: Any, subject: Phrase | None, inside: set[int]) -> list[Relation]:
    """The other names stated in the clause headed by `head` (token indices `inside`)."""
    found = _marked(head.doc, inside)
    renamed = _renaming(head, subject, inside)
    if renamed is not None:
        found.append(renamed)
    return found


def acronym_of(short: str, name_words: list[str]) -> bool:
    """Whether `short` (2–6 capitals) abbreviates the name: its first letter opens the name,
    and its letters appear in order in the name's words ("BWA" of Bluewater Analytics)."""
    initials = short.replace("&", "")  # "F&L" of Fennimore & Lusk
    if not (2 <= len(initials) <= 6 and initials.isalpha() and initials.isupper()):
        return False
    letters = "".join(name_words).lower()
    if len(name_words) < 2 or letters[:1] != initials[0].lower():
        return False
    at = 0
    for ch in initials.lower():
        at = letters.find(ch, at)
        if at < 0:
            return False
        at += 1
    return True


def _marked(doc: Any, inside: set[int]) -> list[Relation]:
    found = []
    for i in sorted(inside):
        tok = doc[i]
        if tok.text not in _OPENERS or i == 0:
            continue
        before = name_span(doc[i - 1])
        if not before or before[-1].i != i - 1 or before[0].i not in inside:
            continue
        j = i + 1
        marker = None
        while j < len(doc) and _bare(doc[j].lower_) in _EARLIER | _LATER | _NAMING_WORDS:
            if _bare(doc[j].lower_) in _EARLIER | _LATER:
                marker = _bare(doc[j].lower_)
            elif doc[j].lower_ in ("known", "called", "named"):
                marker = marker or "aka"
            j += 1
        while j < len(doc) and doc[j].text == ".":
            j += 1  # "f.k.a ." split by the tokenizer
        if j >= len(doc):
            continue
        after = name_span(doc[j])
        if not after or after[0].i != j or doc[j].i not in inside:
            continue
        if marker is None:
            closed = after[-1].i + 1 < len(doc) and doc[after[-1].i + 1].text in (")", "]")
            if not (tok.text in "([" and closed and len(after) == 1):
                continue
            if not acronym_of(after[0].text, [t.text for t in before]):
                continue  # "Ines (Risk team)", "Jun Park (Koto)": a placement, not a name
            marker = "aka"
        now, other = (after, before) if marker in _LATER else (before, after)
        found.append(Relation(Phrase(now), ALSO_KNOWN_AS, Phrase(other), dated=False))
    return found


def _bare(word: str) -> str:
    return word.replace(".", "")


def _renaming(head: Any, subject: Phrase | None, inside: set[int]) -> Relation | None:
    """ "Nimbus Labs has been renamed Northwind Robotics", "rebranded as", "changed its name
    to", "is now called Lifecycle", "We renamed the Growth team to Lifecycle": (new, old)."""
    lemma = head.lemma_.lower()
    children = [c for c in head.children if c.i in inside]
    passive = any(c.dep_ in ("nsubjpass", "auxpass") for c in children)
    renamed = None
    if lemma in _RENAMING_VERBS or head.lower_.startswith(("rebrand", "renam")):
        obj = next((c for c in children if c.dep_ == "dobj"), None)
        renamed = obj if obj is not None and not passive else None
    elif lemma == "change":
        obj = next((c for c in children if c.dep_ == "dobj" and c.lemma_.lower() == "name"), None)
        if obj is None:
            return None
    elif lemma in _NAMING_VERBS:
        later = any(c.lower_ in ("now", "henceforth") for c in children) or any(
            c.dep_ == "aux" and c.lower_ in ("will", "'ll") for c in children
        )
        if not (passive and later):
            return None
    else:
        return None
    new = next((c for c in children if c.dep_ in ("oprd", "attr")), None)
    for prep in (c for c in children if c.dep_ == "prep" and c.lower_ in ("to", "as", "into")):
        new = new or object_of(prep)
    if new is None or not is_name(new):
        return None
    old = entity_phrase(renamed, inside) if renamed is not None else subject
    if old is None or not old.tokens or any(t.pos_ == "PRON" for t in old.tokens):
        return None
    return Relation(Phrase(name_span(new) or (new,)), ALSO_KNOWN_AS, old, dated=False)
