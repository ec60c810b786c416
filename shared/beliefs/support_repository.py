"""Statements of `support`: evidence counts, fact support and closure, retired testimony."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from sqlalchemy import Row, text
from sqlalchemy.ext.asyncio import AsyncSession

__all__ = [
    "close_facts",
    "facts_supported_by",
    "record_ingest_transcripts",
    "record_testimony_events",
    "recount_evidence",
    "resolve_dead_groups",
    "restore_withdrawn",
    "retire_claims",
    "unsupported_facts",
    "withdraw_facts",
]

_RECOUNT = text(
    """
    WITH counts AS (
        SELECT f.id,
               COUNT(DISTINCT fe.document_id) FILTER (
                   WHERE fe.stance = 'supports' AND c.is_current_testimony
               ) AS supporting
        FROM facts f
        LEFT JOIN fact_evidence fe ON fe.fact_id = f.id AND fe.namespace = f.namespace
        LEFT JOIN claims c ON c.id = fe.claim_id
        WHERE f.namespace = :namespace AND f.id = ANY(:fact_ids)
        GROUP BY f.id
    )
    UPDATE facts f
    SET evidence_count = counts.supporting,
        updated_at = now()
    FROM counts
    WHERE f.id = counts.id AND f.evidence_count IS DISTINCT FROM counts.supporting
    RETURNING f.id, f.evidence_count
    """
)

_RESTORE_WITHDRAWN = text(
    """
    UPDATE facts SET support = 'current', updated_at = now()
    WHERE namespace = :namespace AND id = ANY(:fact_ids)
      AND support = 'withdrawn' AND evidence_count > 0 AND invalidated_at IS NULL
    RETURNING id
    """
)

_TRANSCRIPT = text(
    """
    INSERT INTO decision_transcripts (
        namespace, fact_id, outcome, method, engine, confidence, rationale,
        window_before, window_after, decided_by
    )
    SELECT f.namespace, f.id, :outcome, :method, 'ingest', 1.0, :rationale,
           jsonb_build_object('valid_from', f.valid_from, 'valid_until', f.valid_until,
                              'valid_precision', f.valid_precision),
           jsonb_build_object('valid_from', f.valid_from, 'valid_until', f.valid_until,
                              'valid_precision', f.valid_precision),
           :decided_by
    FROM facts f WHERE f.namespace = :namespace AND f.id = ANY(:fact_ids)
    """
)

_RETIRE_CLAIMS = text(
    """
    UPDATE claims SET is_current_testimony = false, currency_reason = :reason
    WHERE namespace = :namespace AND id = ANY(:ids) AND is_current_testimony
    RETURNING id
    """
)

_TESTIMONY_EVENTS = text(
    """
    INSERT INTO testimony_events (namespace, claim_id, event, version_id)
    SELECT :namespace, unnest(CAST(:ids AS uuid[])), :reason, :version_id
    """
)

_SUPPORTED_BY = text(
    """
    SELECT DISTINCT f.id, f.subject_entity_id, f.kind, f.predicate, f.slot_id
    FROM fact_evidence fe JOIN facts f ON f.id = fe.fact_id
    WHERE fe.namespace = :namespace AND fe.claim_id = ANY(:ids)
      AND f.invalidated_at IS NULL
    """
)

_UNSUPPORTED = text(
    """
    SELECT f.id, f.kind, f.contradiction_group_id,
           bool_and(c.currency_reason = 'reextracted') AS only_reextraction
    FROM facts f
    JOIN fact_evidence fe ON fe.fact_id = f.id AND fe.stance = 'supports'
    JOIN claims c ON c.id = fe.claim_id
    WHERE f.namespace = :namespace AND f.id = ANY(:fact_ids)
      AND f.evidence_count = 0 AND f.invalidated_at IS NULL
    GROUP BY f.id
    """
)

_WITHDRAW = text(
    "UPDATE facts SET support = 'withdrawn', updated_at = now() "
    "WHERE namespace = :namespace AND id = ANY(:ids) AND support = 'current'"
)

_CLOSE = text(
    "UPDATE facts SET invalidated_at = now(), "
    "invalidation_reason = 'retracted_source_removal', updated_at = now() "
    "WHERE namespace = :namespace AND id = ANY(:ids)"
)

_RESOLVE_DEAD_GROUPS = text(
    """
    UPDATE contradiction_groups g SET resolved_at = now()
    WHERE g.namespace = :namespace AND g.id = ANY(:ids) AND g.resolved_at IS NULL
      AND (SELECT COUNT(*) FROM facts f
           WHERE f.contradiction_group_id = g.id AND f.invalidated_at IS NULL) < 2
    """
)


async def recount_evidence(
    session: AsyncSession, namespace: str, fact_ids: list[UUID]
) -> dict[UUID, int]:
    """Write each fact's count of supporting documents; returns those that changed."""
    rows = await session.execute(_RECOUNT, {"namespace": namespace, "fact_ids": fact_ids})
    return {row.id: row.evidence_count for row in rows}


async def restore_withdrawn(
    session: AsyncSession, namespace: str, fact_ids: list[UUID]
) -> list[UUID]:
    """Make the withdrawn facts among these that have support again current; returns them."""
    rows = await session.execute(_RESTORE_WITHDRAWN, {"namespace": namespace, "fact_ids": fact_ids})
    return [row.id for row in rows]


async def record_ingest_transcripts(
    session: AsyncSession,
    namespace: str,
    fact_ids: Sequence[UUID],
    *,
    outcome: str,
    method: str,
    rationale: str,
    decided_by: str,
) -> None:
    """One transcript row per fact (engine `ingest`), its window unchanged before and after."""
    await session.execute(
        _TRANSCRIPT,
        {
            "namespace": namespace,
            "fact_ids": fact_ids,
            "outcome": outcome,
            "method": method,
            "rationale": rationale,
            "decided_by": decided_by,
        },
    )


async def retire_claims(
    session: AsyncSession, namespace: str, claim_ids: list[UUID], reason: str
) -> list[UUID]:
    """Make the current claims among these non-current testimony; returns those retired."""
    rows = await session.execute(
        _RETIRE_CLAIMS, {"namespace": namespace, "ids": claim_ids, "reason": reason}
    )
    return [row.id for row in rows]


async def record_testimony_events(
    session: AsyncSession,
    namespace: str,
    claim_ids: list[UUID],
    reason: str,
    version_id: UUID | None,
) -> None:
    await session.execute(
        _TESTIMONY_EVENTS,
        {"namespace": namespace, "ids": claim_ids, "reason": reason, "version_id": version_id},
    )


async def facts_supported_by(
    session: AsyncSession, namespace: str, claim_ids: list[UUID]
) -> Sequence[Row[Any]]:
    """Believed facts these claims are evidence of: id, subject, kind, predicate, slot."""
    rows = await session.execute(_SUPPORTED_BY, {"namespace": namespace, "ids": claim_ids})
    return rows.all()


async def unsupported_facts(
    session: AsyncSession, namespace: str, fact_ids: list[UUID]
) -> Sequence[Row[Any]]:
    """Believed facts among these left with no supporting document, each with whether every
    support it lost was re-extraction (`only_reextraction`) and its contradiction group."""
    rows = await session.execute(_UNSUPPORTED, {"namespace": namespace, "fact_ids": fact_ids})
    return rows.all()


async def withdraw_facts(session: AsyncSession, namespace: str, fact_ids: list[UUID]) -> None:
    await session.execute(_WITHDRAW, {"namespace": namespace, "ids": fact_ids})


async def close_facts(session: AsyncSession, namespace: str, fact_ids: list[UUID]) -> None:
    """Close the facts in belief time, as retracted by the removal of their source."""
    await session.execute(_CLOSE, {"namespace": namespace, "ids": fact_ids})


async def resolve_dead_groups(session: AsyncSession, namespace: str, group_ids: list[UUID]) -> None:
    """A contradiction group with fewer than two believed members is no longer live."""
    await session.execute(_RESOLVE_DEAD_GROUPS, {"namespace": namespace, "ids": group_ids})
