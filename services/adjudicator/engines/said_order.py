"""Which of two testimonies was said first: an assertion's claim against the latest claim
supporting a candidate fact. A later source corrects, ends or moves on from an earlier one, so
several of the engine's features turn on this order rather than on arrival order."""

from __future__ import annotations

from datetime import UTC, datetime

from services.adjudicator.domain import Assertion, CandidateFact
from services.adjudicator.engines.skeletons import NO_LONGER

__all__ = ["ended_since", "said_after", "said_before"]


def said_before(assertion: Assertion, candidate: CandidateFact) -> bool:
    """Whether the assertion was said before the fact's latest supporting claim."""
    said, latest = assertion.claim.asserted_at, candidate.latest_asserted_at
    return said is not None and latest is not None and _utc(said) < _utc(latest)


def said_after(assertion: Assertion, candidate: CandidateFact) -> bool:
    """Whether the assertion was said after every claim supporting the fact."""
    said, latest = assertion.claim.asserted_at, candidate.latest_asserted_at
    return said is not None and latest is not None and _utc(said) > _utc(latest)


def ended_since(assertion: Assertion, candidate: CandidateFact, a_low: str, c_low: str) -> bool:
    """ "Omar no longer thinks the plan is risky" said after "Omar thinks the plan is risky",
    whichever arrived first: the later one ends the earlier (the slot's timeline orders them),
    no dispute of it; undated both, so only the said-on order tells."""
    if assertion.polarity == candidate.polarity:
        return False
    if assertion.polarity == "negative":
        return said_after(assertion, candidate) and NO_LONGER.search(a_low) is not None
    return said_before(assertion, candidate) and NO_LONGER.search(c_low) is not None


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
