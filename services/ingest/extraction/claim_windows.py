"""When a claim holds in the world: the window its clause's own date words give, read in the
tense the clause's verb (or a report line's key) sets.

A date something is moved to, a period extended to, and a report key's coming date ("Renewal:
November 30") read ahead or as the calendar says, whatever the verb's tense; everything else
follows the verb (``claim_time.tense_of``) and is settled by ``claim_time.settle_window``.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from services.ingest.extraction.anchoring import governing_filter
from services.ingest.extraction.claim_time import settle_window, tense_of
from services.ingest.extraction.clauses import Clause
from services.ingest.extraction.dates import DateResolver, Tense, TimeWindow

__all__ = ["WindowReader", "rescheduled_thing"]

# Verbs of moving a date: "moved from June 8 to June 9" states the new date.
_RESCHEDULE_VERBS = frozenset(
    {"move", "push", "slip", "shift", "reschedule", "postpone", "delay", "change", "bring", "pull"}
)
# Keys of a report's lines whose date lies ahead of the report ("Renewal: November 30").
_AHEAD_KEY_RE = re.compile(
    r"\s*(?:[\w'’-]+\s+){0,3}?(?:renewal|go-live|golive|launch|deadline|due|eta|cutover|"
    r"cut-over|expiry|expires|next\s+\w+|target)(?:\s+date)?\s*(?::|\s[-–—]\s)",
    re.IGNORECASE,
)
_EXTENSION_VERBS = frozenset({"extend", "prolong"})
_RESCHEDULE_PREPOSITIONS = frozenset({"to", "from", "until", "till", "for", "into"})


class WindowReader:
    """Reads a clause's world-time window with one shared date resolver."""

    def __init__(self, dates: DateResolver) -> None:
        self._dates = dates

    def read(
        self,
        text: str,
        clause: Clause,
        content: Any,
        said_on: datetime | None,
        temporal: set[int],
    ) -> TimeWindow | None:
        """The window of the date words inside ``clause`` that govern ``content``."""
        reschedule = _moves_a_date(content, temporal)
        first, last = clause.tokens[0], clause.tokens[-1]
        s, e = first.idx, last.idx + len(last.text)
        ents = [
            (ent.start_char - s, ent.end_char - s)
            for ent in first.doc.ents
            if ent.label_ in ("DATE", "TIME") and ent.start_char >= s and ent.end_char <= e
        ]
        keep = governing_filter(clause.tokens, content, temporal)
        # A date something moved to lies ahead or behind as the calendar says, whatever the
        # tense of "moved": the nearest reading. A move told as news ("has been pushed to",
        # "we've brought it forward to", "slips to") is a new plan: its date lies ahead.
        tense: Tense = (
            ("future" if _move_as_news(content, temporal) else "present")
            if reschedule
            else tense_of(content)
        )
        if _AHEAD_KEY_RE.match(text[s:e]):
            tense = "future"  # "Renewal: November 30", "Next review - 3 June": what is coming
        said = text[s:e]
        if _extended_to(content, temporal):
            tense = "future"  # a period is extended into what lies ahead ("to the end of December")
            # "extended to the end of April" is its new end, as "extended until …" says: read
            # the "to" as the bound "by" (same length, so offsets hold).
            for prep in content.children:
                if prep.dep_ == "prep" and prep.lower_ == "to" and s <= prep.idx < e:
                    at = prep.idx - s
                    said = said[:at] + "by" + said[at + 2 :]
        window = self._dates.resolve(said, said_on, tense, ents, keep=keep, reschedule=reschedule)
        return settle_window(window, said, clause, content, reschedule=reschedule)


def _extended_to(content: Any, temporal: set[int]) -> bool:
    """ "was extended to the end of December", "extended through Q4": the new end of a period,
    which lies ahead; not the date the extending was done ("In January we extended …")."""
    return content.lemma_.lower() in _EXTENSION_VERBS and any(
        c.dep_ == "prep"
        and c.lower_ in ("to", "until", "till", "through", "into")
        and any(t.i in temporal for t in c.subtree)
        for c in content.children
    )


def _moves_a_date(content: Any, temporal: set[int]) -> bool:
    """ "moved from June 8 to June 9", "was pushed back to 14 July", "has been postponed until
    3 June": a verb of moving with a date it moved to (or from), on the verb or its particle."""
    if content.lemma_.lower() not in _RESCHEDULE_VERBS:
        return False
    return any(
        c.dep_ == "prep"
        and c.lower_ in _RESCHEDULE_PREPOSITIONS
        and any(g.dep_ == "pobj" and g.i in temporal for g in c.children)
        for head in _move_heads(content)
        for c in head.children
    )


def _move_heads(content: Any) -> list[Any]:
    """The verb of moving and its particles, where the date's preposition hangs; the particle
    may be parsed a preposition holding it ("moved up to June 16")."""
    return [
        content,
        *(
            c
            for c in content.children
            if c.dep_ in ("prt", "advmod") or (c.dep_ == "prep" and c.lower_ in _PARTICLES)
        ),
    ]


_STRETCH_UNITS = frozenset({"day", "week", "month", "fortnight"})
_PARTICLES = frozenset({"up", "back", "out", "forward"})
# The auxiliaries of a move told as news: "has been pushed", "we've moved", "will slip".
_NEWS_AUXILIARIES = frozenset({"has", "have", "'ve", "'s", "will", "'ll", "is", "are", "'re"})


def _move_as_news(content: Any, temporal: set[int]) -> bool:
    """Whether a date is moved to (not a value set "from 1 April") in a move told as it
    stands now (present or perfect: "has been pushed to", "slips to"), not narrated in the
    simple past ("the demo was moved to 9 June")."""
    told_now = content.tag_ in ("VBZ", "VBP") or any(
        c.dep_ in ("aux", "auxpass") and c.lower_ in _NEWS_AUXILIARIES for c in content.children
    )
    return told_now and any(
        prep.dep_ == "prep"
        and prep.lower_ in ("to", "until", "till", "for", "into")
        and any(g.dep_ == "pobj" and g.i in temporal for g in prep.children)
        for head in _move_heads(content)
        for prep in head.children
    )


def rescheduled_thing(
    content: Any, subject: Any | None, inside: set[int], temporal: set[int]
) -> Any | None:
    """ "We've pushed the Tern app release back by a week", "we moved the Albury kickoff to
    16 June": the thing whose date the writers moved, which the claim is about (as "the
    kickoff was moved to 16 June" says); None for any other clause."""
    if content.lemma_.lower() not in _RESCHEDULE_VERBS:
        return None
    if subject is not None and subject.pos_ != "PRON":
        return None  # "Acme pushed the launch": the agent is named
    thing = next((c for c in content.children if c.dep_ == "dobj" and c.i in inside), None)
    if thing is None or thing.pos_ == "PRON":
        return None
    stretch = any(
        t.lemma_.lower() in _STRETCH_UNITS
        and t.i not in {s.i for s in thing.subtree}
        and _counted(t)
        for t in content.subtree
        if t.i in inside
    )
    return thing if stretch or _moves_a_date(content, temporal) else None


def _counted(unit: Any) -> bool:
    """ "a week", "two days", "another week": a stretch of time, not "last month"."""
    return any(
        (c.dep_ == "nummod") or (c.dep_ == "det" and c.lower_ in ("a", "an", "another", "one"))
        for c in unit.children
    )
