"""Who took over a post someone just left, said without naming the post again.

"Tom Reyes stepped down as CEO of Arbor Health in June; Lena Park took over.", "Greta Olsen
left Fjordline in May. Sofia Lind replaced her.", "Marco Bell resigned as head of sales at
Pinecrest on 3 March, and Ana Ruiz stepped in.": the second clause places its subject where the
first one's subject left, from when they left. Alone it names no organisation ("took over",
"stepped in", "succeeded him"), so it was an observation that never touched the
organisation's people. Read over the passage's claims, after each clause is built: a
successor's clause right after a departure (within `_REACH` characters, no other departure
between) becomes "<successor> join <organisation>" with the departure's date.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from services.ingest.extraction.base import ExtractedClaim

__all__ = ["left_held_post", "took_over_from"]

# How the claims layer words a departure, and a successor's clause with no post of its own.
_DEPARTURES = frozenset({"leave", "resign", "retire", "quit", "exit", "depart"})
_SUCCESSIONS = frozenset(
    {"take over", "step in", "step up", "succeed", "replace", "take the reins", "fill in"}
)
# "stepped in", "stepped up": the parser may keep the particle off the verb.
_STEPPED = frozenset({"step"})
# A successor is told of next to the departure: the same sentence or the one after it.
_REACH = 240


def took_over_from(claims: Sequence[ExtractedClaim]) -> list[ExtractedClaim]:
    """The passage's claims, a successor's clause placed where the departure before it was."""
    out: list[ExtractedClaim] = []
    departure: ExtractedClaim | None = None
    for claim in claims:
        predicate = (claim.predicate_text or "").lower()
        if _departs(predicate) and claim.object_text and claim.polarity == "positive":
            departure = claim
        elif departure is not None and _succeeds(claim, departure, predicate):
            assert departure.object_text is not None
            claim = replace(claim, predicate_text="join", object_text=departure.object_text)
            if claim.claim_valid_from is None:  # from when the other left, unless it says
                claim = replace(
                    claim,
                    claim_valid_from=departure.claim_valid_from,
                    claim_valid_until=departure.claim_valid_until,
                    claim_valid_precision=departure.claim_valid_precision,
                    claim_valid_kind=departure.claim_valid_kind,
                )
            departure = None
        out.append(claim)
    return out


_POSTS = frozenset({"work for", "work at"})


def left_held_post(claims: Sequence[ExtractedClaim]) -> list[ExtractedClaim]:
    """The claims, a departure that names nowhere left from ("Ines Moreau, chief of staff at
    Arvo, left in May") leaving the one organisation its subject's apposition places them at:
    the apposition's post is what ended, so it is the departure's object, not a post held
    beside it; or the one the passage says the subject leaves ("My last day will be …")."""
    left = {
        c.subject_text: c.object_text
        for c in claims
        if _departs((c.predicate_text or "").lower()) and c.object_text and c.subject_text
    }
    out = []
    for claim in claims:
        predicate = (claim.predicate_text or "").lower()
        if _departs(predicate) and claim.object_text is None and claim.subject_text in left:
            # "I'm leaving Belvane Foods. My last day will be Friday 27 February.": the day
            # ends the placement the passage says is being left.
            claim = replace(claim, object_text=left[claim.subject_text])
        posts = [
            r
            for r in claim.extra_relations
            if r.predicate_text in _POSTS and r.subject_text == claim.subject_text
        ]
        if _departs(predicate) and claim.object_text is None and len(posts) == 1:
            (post,) = posts
            rest = tuple(r for r in claim.extra_relations if r is not post)
            claim = replace(claim, object_text=post.object_text, extra_relations=rest)
        out.append(claim)
    return out


def _departs(predicate: str) -> bool:
    """'leave', 'quit', 'resign from', 'retire from', 'step down (from)'."""
    return predicate.split(" ", 1)[0] in _DEPARTURES or predicate.startswith("step down")


def _succeeds(claim: ExtractedClaim, departure: ExtractedClaim, predicate: str) -> bool:
    if (
        predicate not in _SUCCESSIONS | _STEPPED
        or claim.polarity != "positive"
        or claim.is_attributed
    ):
        return False
    if claim.char_start - departure.char_end > _REACH:
        return False
    person = departure.subject_text
    if not claim.subject_text or claim.subject_text == person:
        return False
    # "took over" / "stepped in": no object; "replaced her" / "succeeded him": the one who left.
    if claim.object_text is None:
        return predicate in _SUCCESSIONS | _STEPPED
    return claim.object_text == person and predicate in _SUCCESSIONS
