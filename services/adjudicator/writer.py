"""The single writer of facts, evidence links, contradiction groups and decision transcripts."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from services.adjudicator.domain import Assertion, CandidateFact, Decision, Stance, Window
from services.adjudicator.labels import settle_labels
from shared.beliefs.slots import FUNCTIONAL_PREDICATES, SlotKey
from shared.beliefs.support import recount_facts
from shared.db.models import ContradictionGroup, Fact

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
    action: str = ""


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


# The writes of one decision, as fixed SQL text (see candidates_repository.py for why not SQLAlchemy
# constructs). Each fragment has its own parameter prefix so that several combine into one
# statement: the first is the statement, the others its CTEs, and foreign keys are checked at
# the end of the statement, when all of them are in.
_FACT = (
    "INSERT INTO facts (id, namespace, kind, subject_entity_id, predicate, object_entity_id,"
    " statement, label, valid_from, valid_until, valid_precision, valid_kind, embedding,"
    " contradiction_group_id, slot_id, created_at) VALUES (:f_id, :ns, :f_kind, :f_subject,"
    " :f_predicate, :f_object, :f_statement, :f_label, :f_from, :f_until, :f_precision,"
    " :f_valid_kind, CAST(:f_vector AS vector), :f_group, :f_slot, clock_timestamp())"
)
_LINK = (
    "INSERT INTO fact_evidence (namespace, fact_id, claim_id, document_id, stance, linked_at)"
    " VALUES (:ns, :l_fact, :l_claim, :l_document, :l_stance, clock_timestamp())"
    " ON CONFLICT ON CONSTRAINT uq_fact_evidence_link DO NOTHING"
)
_WINDOW = (
    "UPDATE facts SET valid_from = :w_from, valid_until = :w_until,"
    " valid_precision = :w_precision, updated_at = now(),"
    " superseded_by_fact_id = coalesce(:w_successor, superseded_by_fact_id)"
    " WHERE namespace = :ns AND id = :w_fact"
)
_ASSERTION = (
    "INSERT INTO assertions (id, namespace, claim_id, kind, subject_entity_id, predicate,"
    " object_entity_id, statement, polarity, valid_from, valid_until, valid_precision,"
    " fact_id, outcome, dedupe_key, phase, concurrent, created_at) VALUES (:a_id, :ns,"
    " :a_claim, :a_kind, :a_subject, :a_predicate, :a_object, :a_statement, :a_polarity,"
    " :a_from, :a_until, :a_precision, :a_fact, :a_outcome, :a_key, :a_phase, :a_concurrent,"
    " clock_timestamp())"
)
_SLOT = (
    "UPDATE facts SET slot_id = :s_slot, updated_at = now()"
    " WHERE namespace = :ns AND id = :s_fact AND slot_id IS NULL"
)
_FRAGMENTS = {
    "fact": _FACT,
    "link": _LINK,
    "window": _WINDOW,
    "assertion": _ASSERTION,
    "slot": _SLOT,
}
# Observations of these kinds are states or measured values: successive values of one
# attribute (a price, a headcount). Rival events (two dates for one cutover) stay a
# contradiction, never a chain.
_STATE_KINDS = frozenset({"effective_period", "proposition_validity", "measurement_period", None})
_STATEMENTS: dict[tuple[str, ...], Any] = {}
# The transcripts of a batch in one statement; clock_timestamp() per row keeps their order.
_TRANSCRIPTS = text(
    "INSERT INTO decision_transcripts (id, namespace, fact_id, related_fact_id, assertion_id,"
    " claim_id, outcome, action, method, engine, model, confidence, rationale, window_before,"
    " window_after, decided_by, decided_at)"
    " SELECT r.id, :ns, r.fact_id, r.related_fact_id, r.assertion_id, r.claim_id, r.outcome,"
    " r.action, r.method, r.engine, r.model, r.confidence, r.rationale,"
    # SQLAlchemy's JSON type stored None as JSON null, not SQL NULL; kept so for readers.
    " coalesce(r.window_before, 'null'), coalesce(r.window_after, 'null'),"
    " :decided_by, clock_timestamp() FROM jsonb_array_elements(CAST(:rows AS jsonb))"
    " WITH ORDINALITY AS e(row, n), jsonb_to_record(e.row) AS r(id uuid, fact_id uuid,"
    " related_fact_id uuid, assertion_id uuid, claim_id uuid, outcome text, action text,"
    " method text,"
    " engine text, model text, confidence float8, rationale text, window_before jsonb,"
    " window_after jsonb) ORDER BY e.n"
    " RETURNING id, decided_at"
)


def _statement(parts: tuple[str, ...]) -> Any:
    """The one statement of these fragments, built once per combination."""
    statement = _STATEMENTS.get(parts)
    if statement is None:
        main, *others = parts
        ctes = ", ".join(f"w{i} AS ({_FRAGMENTS[name]})" for i, name in enumerate(others))
        sql = f"WITH {ctes} {_FRAGMENTS[main]}" if ctes else _FRAGMENTS[main]
        statement = _STATEMENTS[parts] = text(sql)
    return statement


class FactWriter:
    """Applies the decisions of one batch of claims inside the caller's transaction.

    The subject entities are locked by the caller. Per action (see `Decision`): add → new fact
    with the claim as supporting evidence; confirm → supporting evidence on the candidate;
    adjust → supporting evidence and the candidate's window replaced; supersede → the candidate
    closed at the successor's world start and pointed at the new fact, which is added;
    contradict_evidence → contradicting evidence on the candidate; contradict_group → a new fact
    in the candidate's contradiction group.

    What later candidate lookups of the same batch read (facts, evidence links, assertions) is
    written at once, as one statement per decision; transcripts and `recount_facts` wait for
    `flush`, which the caller runs before committing. Rows carry `clock_timestamp()` so that
    their order inside one transaction is the order of the decisions.
    """

    def __init__(self, session: AsyncSession, namespace: str, decided_by: str) -> None:
        self._session = session
        self._namespace = namespace
        self._decided_by = decided_by
        self._assertion_ids: dict[tuple[str, str], uuid.UUID] = {}
        self._transcripts: list[dict[str, Any]] = []
        self._entries: list[DecisionEntry] = []
        self._touched: list[uuid.UUID] = []
        # Slots whose values this batch changed, for the timeline to place (settle_slots).
        self.slots: set[SlotKey] = set()

    async def apply(
        self,
        assertion: Assertion,
        decision: Decision,
        candidates: Sequence[CandidateFact],
        vector: str | None,
    ) -> None:
        """Write one decision; `vector` is the assertion's embedding as a pgvector literal."""
        by_id = {c.fact_id: c for c in candidates}
        candidate = by_id.get(decision.candidate_id or "")
        writes: list[tuple[str, dict[str, Any]]] = []
        # (fact, related fact, outcome, window before, window after) of each transcript row.
        pending: list[tuple[uuid.UUID, uuid.UUID | None, str, Window | None, Window | None]] = []
        action = decision.action
        if action == "add" or candidate is None:
            fact_id = uuid.uuid4()
            writes += [self._fact(fact_id, assertion, vector), self._link(fact_id, assertion)]
            pending.append((fact_id, None, "add", None, assertion.window))
        elif action in ("confirm", "contradict_evidence"):
            fact_id = uuid.UUID(candidate.fact_id)
            stance: Stance = "supports" if action == "confirm" else "contradicts"
            writes.append(self._link(fact_id, assertion, stance))
            pending.append((fact_id, None, _outcome(decision), candidate.window, candidate.window))
        elif action == "adjust":
            fact_id = uuid.UUID(candidate.fact_id)
            new_window = decision.new_window or candidate.window
            writes += [self._set_window(fact_id, new_window), self._link(fact_id, assertion)]
            pending.append((fact_id, None, "update", candidate.window, new_window))
        elif action == "supersede":
            earlier = uuid.UUID(candidate.fact_id)
            fact_id = uuid.uuid4()
            closed = decision.new_window or candidate.window
            slot = self._slot_of(assertion, candidate)
            writes += [
                self._fact(fact_id, assertion, vector, slot=slot),
                self._link(fact_id, assertion),
                self._set_window(earlier, closed, superseded_by=fact_id),
            ]
            if slot is not None:
                writes.append(("slot", {"s_slot": slot, "s_fact": earlier}))
            pending.append((earlier, fact_id, "update", candidate.window, closed))
            pending.append((fact_id, earlier, "add", None, assertion.window))
        else:  # contradict_group
            rival = uuid.UUID(candidate.fact_id)
            group = await self._group_of(rival)
            fact_id = uuid.uuid4()
            slot = self._slot_of(assertion, candidate)
            writes += [
                self._fact(fact_id, assertion, vector, group=group, slot=slot),
                self._link(fact_id, assertion),
            ]
            if slot is not None:
                writes.append(("slot", {"s_slot": slot, "s_fact": rival}))
            pending.append((fact_id, rival, "contradict", None, assertion.window))
            pending.append((rival, fact_id, "contradict", candidate.window, candidate.window))
        assertion_id, insert_assertion = self._assertion(assertion, fact_id, _outcome(decision))
        if insert_assertion is not None:
            writes.append(insert_assertion)
        # One round trip: the first write is the statement, the others its CTEs.
        params: dict[str, Any] = {"ns": self._namespace}
        for _, values in writes:
            params.update(values)
        await self._session.execute(_statement(tuple(name for name, _ in writes)), params)
        claim_id = uuid.UUID(assertion.claim.claim_id)
        for fact, related, outcome, before, after in pending:
            decision_id = uuid.uuid4()
            # The successor of a supersession and the new side of a group are added facts.
            action_of = "add" if outcome == "add" else decision.action
            self._transcripts.append(
                {
                    "id": str(decision_id),
                    "fact_id": str(fact),
                    "related_fact_id": str(related) if related else None,
                    "assertion_id": str(assertion_id),
                    "claim_id": str(claim_id),
                    "outcome": outcome,
                    "action": action_of,
                    "method": decision.method,
                    "engine": decision.engine,
                    "model": decision.model,
                    "confidence": decision.confidence,
                    "rationale": decision.rationale,
                    "window_before": window_json(before),
                    "window_after": window_json(after),
                }
            )
            self._entries.append(
                DecisionEntry(
                    decision_id=decision_id,
                    fact_id=fact,
                    related_fact_id=related,
                    claim_id=claim_id,
                    outcome=outcome,
                    method=decision.method,
                    engine=decision.engine,
                    model=decision.model,
                    confidence=decision.confidence,
                    rationale=decision.rationale,
                    decided_by=self._decided_by,
                    decided_at=datetime.min,  # the database's time, set by `flush`
                    window_before=before,
                    window_after=after,
                    action=action_of,
                )
            )
        self._touched.append(fact_id)
        if assertion.kind == "relation" and assertion.predicate in FUNCTIONAL_PREDICATES:
            self.slots.add(SlotKey(uuid.UUID(assertion.subject_entity_id), assertion.predicate))
        slot_id = candidate.slot_id if candidate is not None else None
        if slot_id is not None:
            self.slots.add(SlotKey(slot_id=uuid.UUID(slot_id)))

    def _slot_of(self, assertion: Assertion, candidate: CandidateFact) -> uuid.UUID | None:
        """The slot an observation joins when it rivals a state: the candidate's, or a new one.
        Relations need none (their slot is the subject and predicate)."""
        if assertion.kind != "observation" or assertion.claim.window_kind not in _STATE_KINDS:
            return None
        slot = uuid.UUID(candidate.slot_id) if candidate.slot_id else uuid.uuid4()
        self.slots.add(SlotKey(slot_id=slot))
        return slot

    async def flush(self) -> list[DecisionEntry]:
        """Write the queued transcripts and recount the touched facts; the batch's entries."""
        entries, self._entries = self._entries, []
        rows, self._transcripts = self._transcripts, []
        touched, self._touched = self._touched, []
        if not rows:
            return entries
        decided = {
            row.id: row.decided_at
            for row in await self._session.execute(
                _TRANSCRIPTS,
                {"ns": self._namespace, "decided_by": self._decided_by, "rows": json.dumps(rows)},
            )
        }
        await recount_facts(self._session, self._namespace, touched, decided_by=self._decided_by)
        await settle_labels(self._session, self._namespace, touched)
        return [replace(entry, decided_at=decided[entry.decision_id]) for entry in entries]

    def _fact(
        self,
        fact_id: uuid.UUID,
        assertion: Assertion,
        vector: str | None,
        *,
        group: uuid.UUID | None = None,
        slot: uuid.UUID | None = None,
    ) -> tuple[str, dict[str, Any]]:
        window = assertion.window
        return "fact", {
            "f_id": fact_id,
            "f_kind": assertion.kind,
            "f_subject": uuid.UUID(assertion.subject_entity_id),
            "f_predicate": assertion.predicate,
            "f_object": (
                uuid.UUID(assertion.object_entity_id) if assertion.object_entity_id else None
            ),
            "f_statement": assertion.statement,
            "f_label": assertion.label or assertion.statement,
            "f_from": window.valid_from,
            "f_until": window.valid_until,
            "f_precision": window.precision,
            "f_valid_kind": assertion.claim.window_kind,
            "f_vector": vector,
            "f_group": group,
            "f_slot": slot,
        }

    def _link(
        self, fact_id: uuid.UUID, assertion: Assertion, stance: Stance = "supports"
    ) -> tuple[str, dict[str, Any]]:
        return "link", {
            "l_fact": fact_id,
            "l_claim": uuid.UUID(assertion.claim.claim_id),
            "l_document": uuid.UUID(assertion.claim.document_id),
            "l_stance": stance,
        }

    def _set_window(
        self, fact_id: uuid.UUID, window: Window, *, superseded_by: uuid.UUID | None = None
    ) -> tuple[str, dict[str, Any]]:
        return "window", {
            "w_fact": fact_id,
            "w_from": window.valid_from,
            "w_until": window.valid_until,
            "w_precision": window.precision,
            "w_successor": superseded_by,
        }

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

    def _assertion(
        self, assertion: Assertion, fact_id: uuid.UUID, outcome: str
    ) -> tuple[uuid.UUID, tuple[str, dict[str, Any]] | None]:
        """The assertion row's id and its insert; None when the claim already made this one
        (a repeated assertion: the first row stands for both)."""
        key = (assertion.claim.claim_id, assertion_dedupe_key(assertion))
        known = self._assertion_ids.get(key)
        if known is not None:
            return known, None
        assertion_id = self._assertion_ids[key] = uuid.uuid4()
        window = assertion.window
        return assertion_id, (
            "assertion",
            {
                "a_id": assertion_id,
                "a_claim": uuid.UUID(assertion.claim.claim_id),
                "a_kind": assertion.kind,
                "a_subject": uuid.UUID(assertion.subject_entity_id),
                "a_predicate": assertion.predicate,
                "a_object": (
                    uuid.UUID(assertion.object_entity_id) if assertion.object_entity_id else None
                ),
                "a_statement": assertion.statement,
                "a_polarity": assertion.polarity,
                "a_from": window.valid_from,
                "a_until": window.valid_until,
                "a_precision": window.precision,
                "a_fact": fact_id,
                "a_outcome": outcome,
                "a_key": key[1],
                "a_phase": assertion.phase,
                "a_concurrent": assertion.concurrent,
            },
        )
