"""Evidence counts and support of facts, and what happens to facts when testimony is retired.

`evidence_count` is the number of distinct documents whose current testimony supports a fact
(spec/facts.md): repetition in one document, versions and re-extraction never inflate it. Every
writer that links or retires evidence calls `recount_facts` on the facts it touched; this module
is the only place the rule is written down.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from shared.beliefs.locks import lock_entities
from shared.beliefs.slots import FUNCTIONAL_PREDICATES, SlotKey, settle_slots
from shared.pipeline.retirement import RetirementReason

__all__ = ["RetirementCounts", "recount_facts", "retire_testimony"]


@dataclass(frozen=True)
class RetirementCounts:
    """What retiring testimony did to the belief layer."""

    claims_retired: int = 0
    relations_closed: int = 0
    observations_closed: int = 0
    facts_withdrawn: int = 0
    facts_recounted: int = 0


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


async def recount_facts(
    session: AsyncSession, namespace: str, fact_ids: Sequence[UUID], *, decided_by: str = "system"
) -> dict[UUID, int]:
    """Recompute evidence counts; a withdrawn fact that regained support becomes current again.

    Returns the facts whose count changed, with the new count.
    """
    if not fact_ids:
        return {}
    ids = list(set(fact_ids))
    changed = {
        row.id: row.evidence_count
        for row in await session.execute(_RECOUNT, {"namespace": namespace, "fact_ids": ids})
    }
    restored = [
        row.id
        for row in await session.execute(
            _RESTORE_WITHDRAWN, {"namespace": namespace, "fact_ids": ids}
        )
    ]
    if restored:
        await session.execute(
            _TRANSCRIPT,
            {
                "namespace": namespace,
                "fact_ids": restored,
                "outcome": "restored",
                "method": "reextraction",
                "rationale": "current testimony supports the fact again",
                "decided_by": decided_by,
            },
        )
    return changed


async def retire_testimony(
    session: AsyncSession,
    namespace: str,
    claim_ids: Sequence[UUID],
    reason: RetirementReason,
    *,
    version_id: UUID | None = None,
    decided_by: str = "ingest",
) -> RetirementCounts:
    """Make claims non-current testimony and apply the consequences to the facts they supported.

    Runs in the caller's transaction. Facts left without current support are closed in belief
    time (`invalidated_at`, outcome `retracted_source_removal`) when a source removed the content,
    or flagged `withdrawn` when every lost support was only re-extraction of an unchanged file.
    World-time windows are never touched.
    """
    if not claim_ids:
        return RetirementCounts()
    retired = [
        row.id
        for row in await session.execute(
            text(
                """
                UPDATE claims SET is_current_testimony = false, currency_reason = :reason
                WHERE namespace = :namespace AND id = ANY(:ids) AND is_current_testimony
                RETURNING id
                """
            ),
            {"namespace": namespace, "ids": list(set(claim_ids)), "reason": reason},
        )
    ]
    if not retired:
        return RetirementCounts()
    await session.execute(
        text(
            """
            INSERT INTO testimony_events (namespace, claim_id, event, version_id)
            SELECT :namespace, unnest(CAST(:ids AS uuid[])), :reason, :version_id
            """
        ),
        {"namespace": namespace, "ids": retired, "reason": reason, "version_id": version_id},
    )
    affected = (
        await session.execute(
            text(
                """
                SELECT DISTINCT f.id, f.subject_entity_id, f.kind, f.predicate, f.slot_id
                FROM fact_evidence fe JOIN facts f ON f.id = fe.fact_id
                WHERE fe.namespace = :namespace AND fe.claim_id = ANY(:ids)
                  AND f.invalidated_at IS NULL
                """
            ),
            {"namespace": namespace, "ids": retired},
        )
    ).all()
    if not affected:
        return RetirementCounts(claims_retired=len(retired))
    await lock_entities(session, namespace, [row.subject_entity_id for row in affected])
    fact_ids = [row.id for row in affected]
    await recount_facts(session, namespace, fact_ids, decided_by=decided_by)
    unsupported = (
        await session.execute(
            text(
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
            ),
            {"namespace": namespace, "fact_ids": fact_ids},
        )
    ).all()
    withdrawn = [row.id for row in unsupported if row.only_reextraction]
    closed = [row for row in unsupported if not row.only_reextraction]
    if withdrawn:
        await session.execute(
            text(
                "UPDATE facts SET support = 'withdrawn', updated_at = now() "
                "WHERE namespace = :namespace AND id = ANY(:ids) AND support = 'current'"
            ),
            {"namespace": namespace, "ids": withdrawn},
        )
        await session.execute(
            _TRANSCRIPT,
            {
                "namespace": namespace,
                "fact_ids": withdrawn,
                "outcome": "withdrawn",
                "method": "reextraction",
                "rationale": "re-extraction of an unchanged source no longer derives the claim",
                "decided_by": decided_by,
            },
        )
    if closed:
        closed_ids = [row.id for row in closed]
        await session.execute(
            _TRANSCRIPT,
            {
                "namespace": namespace,
                "fact_ids": closed_ids,
                "outcome": "retracted_source_removal",
                "method": "source_removal",
                "rationale": f"its only supporting source was removed ({reason})",
                "decided_by": decided_by,
            },
        )
        await session.execute(
            text(
                "UPDATE facts SET invalidated_at = now(), "
                "invalidation_reason = 'retracted_source_removal', updated_at = now() "
                "WHERE namespace = :namespace AND id = ANY(:ids)"
            ),
            {"namespace": namespace, "ids": closed_ids},
        )
        groups = {row.contradiction_group_id for row in closed if row.contradiction_group_id}
        if groups:
            await _resolve_dead_groups(session, namespace, list(groups))
    # A value that lost its support no longer closes the one before it, nor conflicts.
    slots = {
        SlotKey(row.subject_entity_id, row.predicate)
        for row in affected
        if row.kind == "relation" and row.predicate in FUNCTIONAL_PREDICATES
    } | {SlotKey(slot_id=row.slot_id) for row in affected if row.slot_id}
    await settle_slots(session, namespace, sorted(slots, key=str), decided_by=decided_by)
    return RetirementCounts(
        claims_retired=len(retired),
        relations_closed=sum(1 for row in closed if row.kind == "relation"),
        observations_closed=sum(1 for row in closed if row.kind == "observation"),
        facts_withdrawn=len(withdrawn),
        facts_recounted=len(fact_ids),
    )


async def _resolve_dead_groups(
    session: AsyncSession, namespace: str, group_ids: list[UUID]
) -> None:
    """A contradiction group with fewer than two believed members is no longer live."""
    await session.execute(
        text(
            """
            UPDATE contradiction_groups g SET resolved_at = now()
            WHERE g.namespace = :namespace AND g.id = ANY(:ids) AND g.resolved_at IS NULL
              AND (SELECT COUNT(*) FROM facts f
                   WHERE f.contradiction_group_id = g.id AND f.invalidated_at IS NULL) < 2
            """
        ),
        {"namespace": namespace, "ids": group_ids},
    )
