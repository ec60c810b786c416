"""The single writer of facts, evidence links, contradiction groups and decision transcripts."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from services.adjudicator.domain import Assertion, CandidateFact, Decision, Stance, Window
from shared.beliefs.support import recount_facts
from shared.db.models import Assertion as AssertionRow
from shared.db.models import (
    ContradictionGroup,
    DecisionTranscript,
    Fact,
    FactEvidence,
    Namespace,
)

__all__ = ["DecisionEntry", "FactWriter", "assertion_dedupe_key", "window_json"]


@dataclass(frozen=True, slots=True)
class DecisionEntry:
    """One transcript row as written, for callers that report decisions."""

    decision_id: uuid.UUID
    fact_id: uuid.UUID
    related_fact_id: uuid.UUID | None
    claim_id: uuid.UUID | None
    outcome: str
    method: str
    engine: str | None
    model: str | None
    confidence: float
    rationale: str
    decided_by: str
    decided_at: datetime
    window_before: Window | None
    window_after: Window | None


def window_json(window: Window | None) -> dict[str, Any] | None:
    """Transcript form of a window: `{valid_from, valid_until, valid_precision}`."""
    if window is None:
        return None
    return {
        "valid_from": window.valid_from.isoformat() if window.valid_from else None,
        "valid_until": window.valid_until.isoformat() if window.valid_until else None,
        "valid_precision": window.precision,
    }


def assertion_dedupe_key(assertion: Assertion) -> str:
    """Stable key of one assertion of a claim, so re-processing a claim inserts nothing new."""
    raw = "|".join(
        (
            assertion.kind,
            assertion.subject_entity_id,
            assertion.predicate or "",
            assertion.object_entity_id or "",
            assertion.polarity,
            assertion.statement,
        )
    )
    return hashlib.sha256(raw.encode()).hexdigest()


def _outcome(decision: Decision) -> str:
    # The wire contract (DecisionOutcome.CONTRADICT) names "received contradicting evidence" as a
    # contradict outcome, so a contradicting link is not recorded as a noop.
    return {
        "add": "add",
        "confirm": "noop",
        "adjust": "update",
        "supersede": "update",
        "contradict_evidence": "contradict",
        "contradict_group": "contradict",
    }[decision.action]


# A transcript row to write once the assertion row exists:
# (fact, related fact, outcome, window before, window after).
_Pending = tuple[uuid.UUID, uuid.UUID | None, str, Window | None, Window | None]


class FactWriter:
    """Applies one decision inside the caller's transaction (the subject entity is locked).

    Per action (see `Decision`): add → new fact with the claim as supporting evidence;
    confirm → supporting evidence on the candidate; adjust → supporting evidence and the
    candidate's window replaced; supersede → the candidate closed at the successor's world start
    and pointed at the new fact, which is added; contradict_evidence → contradicting evidence on
    the candidate; contradict_group → a new fact in the candidate's contradiction group.
    Every evidence change is followed by `recount_facts`.
    """

    def __init__(self, session: AsyncSession, namespace: str, decided_by: str) -> None:
        self._session = session
        self._namespace = namespace
        self._decided_by = decided_by

    async def ensure_namespace(self) -> None:
        await self._session.execute(
            pg_insert(Namespace).values(namespace=self._namespace).on_conflict_do_nothing()
        )

    async def apply(
        self,
        assertion: Assertion,
        decision: Decision,
        candidates: Sequence[CandidateFact],
        embedding: Sequence[float] | None,
    ) -> list[DecisionEntry]:
        by_id = {c.fact_id: c for c in candidates}
        candidate = by_id.get(decision.candidate_id or "")
        claim_id = uuid.UUID(assertion.claim.claim_id)
        pending: list[_Pending] = []
        touched: list[uuid.UUID] = []
        action = decision.action
        if action == "add" or candidate is None:
            fact_id = await self._insert_fact(assertion, embedding)
            await self._link(fact_id, assertion, "supports")
            pending.append((fact_id, None, "add", None, assertion.window))
            touched.append(fact_id)
        elif action in ("confirm", "contradict_evidence"):
            fact_id = uuid.UUID(candidate.fact_id)
            stance: Stance = "supports" if action == "confirm" else "contradicts"
            await self._link(fact_id, assertion, stance)
            pending.append((fact_id, None, _outcome(decision), candidate.window, candidate.window))
            touched.append(fact_id)
        elif action == "adjust":
            fact_id = uuid.UUID(candidate.fact_id)
            new_window = decision.new_window or candidate.window
            await self._set_window(fact_id, new_window)
            await self._link(fact_id, assertion, "supports")
            pending.append((fact_id, None, "update", candidate.window, new_window))
            touched.append(fact_id)
        elif action == "supersede":
            earlier = uuid.UUID(candidate.fact_id)
            fact_id = await self._insert_fact(assertion, embedding)
            await self._link(fact_id, assertion, "supports")
            closed = decision.new_window or candidate.window
            await self._set_window(earlier, closed, superseded_by=fact_id)
            pending.append((earlier, fact_id, "update", candidate.window, closed))
            pending.append((fact_id, earlier, "add", None, assertion.window))
            touched.append(fact_id)
        else:  # contradict_group
            rival = uuid.UUID(candidate.fact_id)
            group = await self._group_of(rival)
            fact_id = await self._insert_fact(assertion, embedding, group=group)
            await self._link(fact_id, assertion, "supports")
            pending.append((fact_id, rival, "contradict", None, assertion.window))
            pending.append((rival, fact_id, "contradict", candidate.window, candidate.window))
            touched.append(fact_id)
        assertion_id = await self._record_assertion(assertion, fact_id, _outcome(decision))
        entries = [
            await self._transcript(assertion_id, claim_id, decision, *spec) for spec in pending
        ]
        await recount_facts(self._session, self._namespace, touched, decided_by=self._decided_by)
        return entries

    async def _insert_fact(
        self,
        assertion: Assertion,
        embedding: Sequence[float] | None,
        *,
        group: uuid.UUID | None = None,
    ) -> uuid.UUID:
        window = assertion.window
        fact_id: uuid.UUID = (
            await self._session.execute(
                insert(Fact)
                .values(
                    namespace=self._namespace,
                    kind=assertion.kind,
                    subject_entity_id=uuid.UUID(assertion.subject_entity_id),
                    predicate=assertion.predicate,
                    object_entity_id=(
                        uuid.UUID(assertion.object_entity_id)
                        if assertion.object_entity_id
                        else None
                    ),
                    statement=assertion.statement,
                    label=assertion.label or assertion.statement,
                    valid_from=window.valid_from,
                    valid_until=window.valid_until,
                    valid_precision=window.precision,
                    valid_kind=assertion.claim.window_kind,
                    embedding=list(embedding) if embedding is not None else None,
                    contradiction_group_id=group,
                )
                .returning(Fact.id)
            )
        ).scalar_one()
        return fact_id

    async def _link(self, fact_id: uuid.UUID, assertion: Assertion, stance: Stance) -> None:
        await self._session.execute(
            pg_insert(FactEvidence)
            .values(
                namespace=self._namespace,
                fact_id=fact_id,
                claim_id=uuid.UUID(assertion.claim.claim_id),
                document_id=uuid.UUID(assertion.claim.document_id),
                stance=stance,
            )
            .on_conflict_do_nothing(constraint="uq_fact_evidence_link")
        )

    async def _set_window(
        self, fact_id: uuid.UUID, window: Window, *, superseded_by: uuid.UUID | None = None
    ) -> None:
        values: dict[str, Any] = {
            "valid_from": window.valid_from,
            "valid_until": window.valid_until,
            "valid_precision": window.precision,
            "updated_at": func.now(),
        }
        if superseded_by is not None:
            values["superseded_by_fact_id"] = superseded_by
        await self._session.execute(
            update(Fact)
            .where(Fact.namespace == self._namespace, Fact.id == fact_id)
            .values(**values)
        )

    async def _group_of(self, fact_id: uuid.UUID) -> uuid.UUID:
        """The rival's live contradiction group, created (and the rival placed in it) if none."""
        row = (
            await self._session.execute(
                select(Fact.contradiction_group_id, ContradictionGroup.resolved_at)
                .outerjoin(ContradictionGroup, ContradictionGroup.id == Fact.contradiction_group_id)
                .where(Fact.namespace == self._namespace, Fact.id == fact_id)
            )
        ).one()
        if row.contradiction_group_id is not None and row.resolved_at is None:
            group: uuid.UUID = row.contradiction_group_id
            return group
        group = (
            await self._session.execute(
                insert(ContradictionGroup)
                .values(namespace=self._namespace)
                .returning(ContradictionGroup.id)
            )
        ).scalar_one()
        await self._session.execute(
            update(Fact)
            .where(Fact.namespace == self._namespace, Fact.id == fact_id)
            .values(contradiction_group_id=group, updated_at=func.now())
        )
        return group

    async def _record_assertion(
        self, assertion: Assertion, fact_id: uuid.UUID, outcome: str
    ) -> uuid.UUID:
        window = assertion.window
        key = assertion_dedupe_key(assertion)
        inserted = await self._session.execute(
            pg_insert(AssertionRow)
            .values(
                namespace=self._namespace,
                claim_id=uuid.UUID(assertion.claim.claim_id),
                kind=assertion.kind,
                subject_entity_id=uuid.UUID(assertion.subject_entity_id),
                predicate=assertion.predicate,
                object_entity_id=(
                    uuid.UUID(assertion.object_entity_id) if assertion.object_entity_id else None
                ),
                statement=assertion.statement,
                polarity=assertion.polarity,
                valid_from=window.valid_from,
                valid_until=window.valid_until,
                valid_precision=window.precision,
                fact_id=fact_id,
                outcome=outcome,
                dedupe_key=key,
            )
            .on_conflict_do_nothing(constraint="uq_assertions_dedupe")
            .returning(AssertionRow.id)
        )
        assertion_id = inserted.scalar_one_or_none()
        if assertion_id is None:
            # The claim repeated the same assertion; the first row stands for both.
            assertion_id = (
                await self._session.execute(
                    select(AssertionRow.id).where(
                        AssertionRow.namespace == self._namespace,
                        AssertionRow.claim_id == uuid.UUID(assertion.claim.claim_id),
                        AssertionRow.dedupe_key == key,
                    )
                )
            ).scalar_one()
        return assertion_id

    async def _transcript(
        self,
        assertion_id: uuid.UUID,
        claim_id: uuid.UUID,
        decision: Decision,
        fact_id: uuid.UUID,
        related: uuid.UUID | None,
        outcome: str,
        before: Window | None,
        after: Window | None,
    ) -> DecisionEntry:
        row = (
            await self._session.execute(
                insert(DecisionTranscript)
                .values(
                    namespace=self._namespace,
                    fact_id=fact_id,
                    related_fact_id=related,
                    assertion_id=assertion_id,
                    claim_id=claim_id,
                    outcome=outcome,
                    method=decision.method,
                    engine=decision.engine,
                    model=decision.model,
                    confidence=decision.confidence,
                    rationale=decision.rationale,
                    window_before=window_json(before),
                    window_after=window_json(after),
                    decided_by=self._decided_by,
                )
                .returning(DecisionTranscript.id, DecisionTranscript.decided_at)
            )
        ).one()
        return DecisionEntry(
            decision_id=row.id,
            fact_id=fact_id,
            related_fact_id=related,
            claim_id=claim_id,
            outcome=outcome,
            method=decision.method,
            engine=decision.engine,
            model=decision.model,
            confidence=decision.confidence,
            rationale=decision.rationale,
            decided_by=self._decided_by,
            decided_at=row.decided_at,
            window_before=before,
            window_after=after,
        )
