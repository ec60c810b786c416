"""Stints of a placement: one relation held twice, with a gap between.

"Tobias Brenner left Veldt Robotics" (February) and "has rejoined Veldt Robotics" (November)
state one label twice, but the second is no repeat of the first: the first stint ended before
the second was said to hold. Read as a repeat, the rejoining became evidence of the ended
employment and he was believed gone. A holding said after a stint's end starts another stint,
and (the same pair in the other arrival order) an ending dated before a holding was first
said ends an earlier stint, so both orders give the same two facts.
"""

from __future__ import annotations

from services.adjudicator.domain import Assertion, CandidateFact

__all__ = ["another_stint"]


def another_stint(assertion: Assertion, candidate: CandidateFact) -> bool:
    """Whether `assertion` states another stint of the placement `candidate` states."""
    if assertion.kind != "relation" or candidate.kind != "relation":
        return False
    if assertion.polarity != "positive" or candidate.polarity != "positive":
        return False
    a, c = assertion.window, candidate.window
    if assertion.phase in ("start", "state") and a.valid_until is None:
        start = a.valid_from or assertion.claim.asserted_at
        return c.valid_until is not None and start is not None and start >= c.valid_until
    if assertion.phase == "end" and a.valid_until is not None:
        said = [e.asserted_at for e in candidate.evidence if e.asserted_at is not None]
        undated = c.valid_from is None and c.valid_until is None
        return undated and bool(said) and min(said) > a.valid_until
    return False
