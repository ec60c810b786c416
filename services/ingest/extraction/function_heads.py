"""Someone who leads a function at an organisation: "Olivia Grant heads product at Tidewater",
"Tom oversees finance at Kestrel Group", "Kofi leads engineering at Orbit Systems".

The small parser reads these badly: "heads" and "oversees" hang on the function noun as its
compound (the noun becomes the root, the person a subject of nothing), and "engineering" after
"leads" becomes a gerund complement. Both trees are repaired here into the one the parser
gives when it gets the sentence right (the verb the root, the function its object), and
`works_at` reads the placement they state: leading a function at an organisation is working
there, as "head of product at Tidewater" in an apposition already says.
"""

from __future__ import annotations

from typing import Any

from shared.text.units import FUNCTION_WORDS

__all__ = ["FUNCTION_VERBS", "repair_function_heads", "works_at"]

FUNCTION_VERBS = frozenset({"head", "lead", "run", "oversee", "manage", "direct", "chair"})


def repair_function_heads(sent: Any) -> None:
    """Make the leading verb the root and the function its object (see the module doc)."""
    for tok in sent:
        if (
            tok.tag_ in ("VBZ", "VBD")
            and tok.dep_ == "compound"
            and tok.lemma_.lower() in FUNCTION_VERBS
            and tok.head.dep_ == "ROOT"
            and tok.head.lower_ in FUNCTION_WORDS
            and any(c.dep_ == "nsubj" for c in tok.children)
        ):
            function = tok.head
            tok.head, tok.dep_ = tok, "ROOT"
            function.head, function.dep_ = tok, "dobj"
            return
        if (
            tok.dep_ == "xcomp"
            and tok.tag_ == "VBG"
            and tok.lower_ in FUNCTION_WORDS
            and tok.head.lemma_.lower() in FUNCTION_VERBS
            and not any(c.dep_ == "dobj" for c in tok.head.children)
        ):
            tok.dep_, tok.pos_, tok.tag_ = "dobj", "NOUN", "NN"  # "leads engineering at …"
            return


def works_at(head: Any, obj: Any | None) -> Any | None:
    """The organisation a function is led at ("heads product at Tidewater"), else None."""
    if obj is None or head.lemma_.lower() not in FUNCTION_VERBS or obj.lower_ not in FUNCTION_WORDS:
        return None
    for holder in (obj, head):
        for prep in holder.children:
            if prep.dep_ == "prep" and prep.lower_ in ("at", "for", "in", "within"):
                place = next((c for c in prep.children if c.dep_ == "pobj"), None)
                if place is not None and place.pos_ == "PROPN":
                    return place
    return None
