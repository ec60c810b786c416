"""Repairs of a state entered that the small parser reads apart from its verb.

- **A noun read as an infinitive.** "Project Lynx moved to amber on 6 March" makes "to amber"
  an infinitive (an `xcomp` with "to" as its auxiliary) and hangs the date on "amber"; "to" is
  the verb's preposition and the state its object. The tagger may call a colour a verb too.
- **A state's phrase beside an empty "to".** "Project Falcon slipped to at risk on 13 March"
  hangs "to" and "at risk" side by side on the verb; "at risk" is what "to" leads to.

Both are recognised from the tree's shape and rewritten into the tree the parser gives when it
gets the sentence right, so `claim_time.status_change` sees the state entered.
"""

from __future__ import annotations

from typing import Any

__all__ = ["repair_state_phrases"]


def repair_state_phrases(sent: Any) -> None:
    """Fix both misparses of one sentence in place."""
    _noun_read_as_infinitive(sent)
    _phrase_after_bare_to(sent)


def _noun_read_as_infinitive(sent: Any) -> None:
    """ "Project Lynx moved to amber on 6 March" makes "to amber" an infinitive (an `xcomp`
    noun with "to" as its auxiliary) and hangs the date on "amber". A noun is no verb: "to" is
    the verb's preposition, the noun its object, and what hung on the noun hangs on the verb."""
    for noun in sent:
        # "slipped to amber": the tagger may call the colour a verb as well
        nominal = noun.pos_ in ("NOUN", "ADJ", "PROPN") or noun.lower_ in _COLOURS
        if noun.dep_ != "xcomp" or not nominal:
            continue
        to = next((c for c in noun.children if c.dep_ == "aux" and c.lower_ == "to"), None)
        if to is None or to.i != noun.i - 1:
            continue
        verb = noun.head
        for child in [c for c in noun.children if c.dep_ == "prep" and c.i > noun.i]:
            child.head = verb
        to.head, to.dep_ = verb, "prep"
        noun.head, noun.dep_ = to, "pobj"


_COLOURS = frozenset({"green", "amber", "yellow", "red"})
# Prepositions that open a state's name: "at risk", "on hold", "off track", "behind schedule".
_STATE_PREPOSITIONS = frozenset({"at", "on", "off", "behind", "ahead", "under", "in"})


def _phrase_after_bare_to(sent: Any) -> None:
    """ "Project Falcon slipped to at risk" hangs "to" and "at risk" side by side on the verb,
    "to" with no object; the state's phrase is what "to" leads to (its complement)."""
    for to in sent:
        if to.lower_ != "to" or to.dep_ != "prep" or any(to.children) or to.i + 1 >= sent.end:
            continue
        state = to.doc[to.i + 1]
        if state.lower_ in _STATE_PREPOSITIONS and state.dep_ == "prep" and state.head == to.head:
            state.head, state.dep_ = to, "pcomp"
