"""Evidence counts and support of facts, and what happens to facts when testimony is retired.

`evidence_count` is the number of distinct documents whose current testimony supports a fact
(spec/facts.md): repetition in one document, versions and re-extraction never inflate it. Every
writer that links or retires evidence calls `recount_facts` on the facts it touched; this module
(with its statements, in `support_repository`) is the only place the rule is written down.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncSession

from shared.beliefs import support_repository
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


async def recount_facts(
    session: AsyncSession, namespace: str, fact_ids: Sequence[UUID], *, decided_by: str = "system"
) -> dict[UUID, int]:
    """Recompute evidence counts; a withdrawn fact that regained support becomes current again.

    Returns the facts whose count changed, with the new count.
    """
    if not fact_ids:
        return {}
    ids = list(set(fact_ids))
    changed = await support_repository.recount_evidence(session, namespace, ids)
    restored = await support_repository.restore_withdrawn(session, namespace, ids)
    if restored:
        await support_repository.record_ingest_transcripts(
            session,
            namespace,
            restored,
            outcome="restored",
            method="reextraction",
            rationale="current testimony supports the fact again",
            decided_by=decided_by,
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
    retired = await support_repository.retire_claims(
        session, namespace, list(set(claim_ids)), reason
    )
    if not retired:
        return RetirementCounts()
    await support_repository.record_testimony_events(
        session, namespace, retired, reason, version_id
    )
    affected = await support_repository.facts_supported_by(session, namespace, retired)
    if not affected:
        return RetirementCounts(claims_retired=len(retired))
    await lock_entities(session, namespace, [row.subject_entity_id for row in affected])
    fact_ids = [row.id for row in affected]
    await recount_facts(session, namespace, fact_ids, decided_by=decided_by)
    unsupported = await support_repository.unsupported_facts(session, namespace, fact_ids)
    withdrawn = [row.id for row in unsupported if row.only_reextraction]
    closed = [row for row in unsupported if not row.only_reextraction]
    if withdrawn:
        await support_repository.withdraw_facts(session, namespace, withdrawn)
        await support_repository.record_ingest_transcripts(
            session,
            namespace,
            withdrawn,
            outcome="withdrawn",
            method="reextraction",
            rationale="re-extraction of an unchanged source no longer derives the claim",
            decided_by=decided_by,
        )
    if closed:
        closed_ids = [row.id for row in closed]
        await support_repository.record_ingest_transcripts(
            session,
            namespace,
            closed_ids,
            outcome="retracted_source_removal",
            method="source_removal",
            rationale=f"its only supporting source was removed ({reason})",
            decided_by=decided_by,
        )
        await support_repository.close_facts(session, namespace, closed_ids)
        groups = {row.contradiction_group_id for row in closed if row.contradiction_group_id}
        if groups:
            await support_repository.resolve_dead_groups(session, namespace, list(groups))
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
