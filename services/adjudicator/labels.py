"""A fact's statement and label come from its first supporting claim in a canonical order.

A fact confirmed by differently worded claims ("Headcount is 64", "The office has 64 people")
was labelled by whichever claim arrived first, so the same documents in another order gave
another label. The canonical first claim is the earliest said, then the document's identity
(its source pair or content hash), then its position: a function of the evidence set. Its
embedding (the claim's, which an observation's label reuses) goes with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from services.adjudicator.normalization import observation_label

__all__ = ["settle_labels"]

_FIRST_CLAIMS = text(
    """
    SELECT DISTINCT ON (f.id) f.id, f.statement, f.label, a.statement AS first_statement,
           c.embedding IS NOT NULL AS has_vector, c.id AS claim_id
    FROM facts f
    JOIN assertions a ON a.namespace = f.namespace AND a.fact_id = f.id
    JOIN fact_evidence fe ON fe.namespace = f.namespace AND fe.fact_id = f.id
         AND fe.claim_id = a.claim_id AND fe.stance = 'supports'
    JOIN claims c ON c.id = a.claim_id AND c.is_current_testimony
    JOIN documents d ON d.id = c.document_id
    WHERE f.namespace = :ns AND f.id = ANY(CAST(:ids AS uuid[])) AND f.kind = 'observation'
    ORDER BY f.id, c.asserted_at NULLS LAST, d.identity_key, c.char_start, c.char_end,
             a.statement
    """
)
_SET_LABEL = text(
    """
    UPDATE facts f SET statement = :statement, label = :label, updated_at = now(),
           embedding = coalesce((SELECT c.embedding FROM claims c WHERE c.id = :claim_id),
                                f.embedding)
    WHERE f.namespace = :ns AND f.id = :id
    """
)


async def settle_labels(session: AsyncSession, namespace: str, fact_ids: Sequence[UUID]) -> None:
    """Give each observation among `fact_ids` the statement of its canonical first claim."""
    if not fact_ids:
        return
    rows = await session.execute(
        _FIRST_CLAIMS, {"ns": namespace, "ids": sorted(set(fact_ids), key=str)}
    )
    for row in rows:
        if row.first_statement == row.statement:
            continue
        await session.execute(
            _SET_LABEL,
            {
                "ns": namespace,
                "id": row.id,
                "statement": row.first_statement,
                "label": observation_label(row.first_statement),
                "claim_id": row.claim_id if row.has_vector else None,
            },
        )
