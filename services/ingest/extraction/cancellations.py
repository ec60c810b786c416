"""Calling a thing off in the active voice: "We have called off the Tarn 2.0 launch", "we're
scrapping the Lisbon offsite", "They cancelled the June webinar".

Said by the people who called it off, the clause's subject is "we" or "they", which names no
entity (or only the writers), so the claim was anchored nowhere near the thing it ends and
never met the plan it calls off ("The Tarn 2.0 launch is planned for 14 June"). What the claim
is about is the thing called off: it becomes the subject, as in "the launch has been called
off", so the cancellation is a value of the thing's own state (`shared.beliefs.timeline`).
A named organisation that calls something off keeps the subject: it is news about it too.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from services.ingest.extraction.names import is_person
from services.ingest.extraction.placement_changes import Relation

__all__ = ["about_what_is_called_off"]

_CALLING_OFF = frozenset({"cancel", "scrap", "shelve", "axe", "abandon", "ditch", "scrub"})
# Pronouns of the people who decided it, not what the news is about.
_DECIDERS = frozenset({"we", "i", "they", "us"})


def about_what_is_called_off(main: Relation, content: Any) -> Relation:
    """`main` with the thing called off as its subject when the clause calls it off and its
    subject is the deciders' pronoun; `main` otherwise."""
    if main.object is None or not _calls_off(content):
        return main
    subject = main.subject.tokens if main.subject is not None else ()
    if subject and not (len(subject) == 1 and subject[0].lower_ in _DECIDERS):
        return main
    head = max(main.object.tokens, key=lambda t: t.i)  # "the June webinar" is a webinar
    if is_person(head):
        return main  # "we cancelled Dana's access" ends something of Dana's, not Dana
    return replace(main, subject=main.object, object=None)


def _calls_off(verb: Any) -> bool:
    lemma = verb.lemma_.lower()
    if lemma in _CALLING_OFF or lemma.startswith("cancel"):  # "cancelled" lemmatised as is
        return True
    return lemma == "call" and any(c.dep_ == "prt" and c.lower_ == "off" for c in verb.children)
