"""SQL of the adjudicator's service and worker that is not candidates, entities or the writer's."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.models import Fact

__all__ = ["VERSION_SPEAKERS", "FactState", "fact_states"]

# `(version_id, key)` rows for the queue's least-overlap preference: the speakers of a
# version's claims, which its claims mostly resolve to (and so lock) as subject entities.
VERSION_SPEAKERS = (
    "SELECT vc.version_id, c.speaker AS key FROM version_claims vc"
    " JOIN claims c ON c.id = vc.claim_id WHERE c.speaker IS NOT NULL"
)

FactState = tuple[int, str, uuid.UUID]
"""A fact's `(evidence_count, support, subject_entity_id)`."""


async def fact_states(
    session: AsyncSession, namespace: str, fact_ids: Sequence[uuid.UUID] | None
) -> dict[uuid.UUID, FactState]:
    """The state of the given facts, or (None) of every believed fact of the namespace."""
    condition = [Fact.namespace == namespace]
    if fact_ids is not None:
        condition.append(Fact.id.in_(list(fact_ids)))
    else:
        condition.append(Fact.invalidated_at.is_(None))
    return {
        r.id: (r.evidence_count, r.support, r.subject_entity_id)
        for r in await session.execute(
            select(Fact.id, Fact.evidence_count, Fact.support, Fact.subject_entity_id).where(
                *condition
            )
        )
    }
