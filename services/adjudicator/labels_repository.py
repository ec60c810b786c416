"""Statements of `labels`: each observation's canonical first claim, and its relabelling."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from sqlalchemy import Row, text
from sqlalchemy.ext.asyncio import AsyncSession

__all__ = ["first_claims", "set_label", "settle_window_kinds"]

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


# What a fact's window describes (event time, effective period, ...) is its canonical first
# claim's, in the order `_FIRST_CLAIMS` uses: not the kind of whichever claim created it.
_SETTLE_WINDOW_KINDS = text(
    """
    UPDATE facts f SET valid_kind = first.kind, updated_at = now()
    FROM (
        SELECT DISTINCT ON (x.id) x.id, c.claim_valid_kind AS kind
        FROM facts x
        JOIN fact_evidence fe ON fe.namespace = x.namespace AND fe.fact_id = x.id
             AND fe.stance = 'supports'
        JOIN claims c ON c.id = fe.claim_id AND c.is_current_testimony
        JOIN documents d ON d.id = c.document_id
        WHERE x.namespace = :ns AND x.id = ANY(CAST(:ids AS uuid[]))
        ORDER BY x.id, c.asserted_at NULLS LAST, d.identity_key, c.char_start, c.char_end
    ) first
    WHERE f.namespace = :ns AND f.id = first.id AND f.valid_kind IS DISTINCT FROM first.kind
    """
)


async def first_claims(
    session: AsyncSession, namespace: str, fact_ids: list[UUID]
) -> Sequence[Row[Any]]:
    """Per observation among `fact_ids`: its statement, the statement of its canonical first
    claim (`first_statement`), that claim's id and whether it has an embedding."""
    return (await session.execute(_FIRST_CLAIMS, {"ns": namespace, "ids": fact_ids})).all()


async def set_label(
    session: AsyncSession,
    namespace: str,
    fact_id: UUID,
    *,
    statement: str,
    label: str,
    embedding_of_claim: UUID | None,
) -> None:
    """Relabel the fact; with `embedding_of_claim` it takes that claim's embedding too."""
    await session.execute(
        _SET_LABEL,
        {
            "ns": namespace,
            "id": fact_id,
            "statement": statement,
            "label": label,
            "claim_id": embedding_of_claim,
        },
    )


async def settle_window_kinds(session: AsyncSession, namespace: str, fact_ids: list[UUID]) -> None:
    """Give each of `fact_ids` the window kind of its canonical first supporting claim."""
    await session.execute(_SETTLE_WINDOW_KINDS, {"ns": namespace, "ids": fact_ids})
