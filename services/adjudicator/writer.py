"""The single writer of facts, evidence links, contradiction groups and decision transcripts
(its statements: `facts_repository.py`)."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from services.adjudicator import facts_repository as facts_repo
from services.adjudicator.domain import (
    STATE_WINDOW_KINDS,
    Assertion,
    CandidateFact,
    Decision,
    Stance,
    Window,
)
from services.adjudicator.facts_repository import Write
from services.adjudicator.labels import settle_labels
from shared.beliefs.slots import EMPLOYER_PREDICATE, FUNCTIONAL_PREDICATES, SlotKey
from shared.beliefs.support import recount_facts

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
        # Facts that gained a supporting claim besides their first: only their window kind can
        # come from another claim than the one that created them (see `settle_labels`).
        self._corroborated: list[uuid.UUID] = []
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
        writes: list[Write] = []
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
            group = await facts_repo.contradiction_group_of(self._session, self._namespace, rival)
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
        await facts_repo.write_decision(self._session, self._namespace, writes)
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
        if action in ("confirm", "adjust"):
            self._corroborated.append(fact_id)
        if assertion.kind == "relation" and assertion.predicate in FUNCTIONAL_PREDICATES:
            self.slots.add(SlotKey(uuid.UUID(assertion.subject_entity_id), assertion.predicate))
        if assertion.kind == "observation" and assertion.phase == "end":
            # A departure naming no employer ends the employer slot's open value (departures.py).
            self.slots.add(SlotKey(uuid.UUID(assertion.subject_entity_id), EMPLOYER_PREDICATE))
        slot_id = candidate.slot_id if candidate is not None else None
        if slot_id is not None:
            self.slots.add(SlotKey(slot_id=uuid.UUID(slot_id)))

    def _slot_of(self, assertion: Assertion, candidate: CandidateFact) -> uuid.UUID | None:
        """The slot an observation joins when it rivals a state: the candidate's, or a new one.
        Relations need none (their slot is the subject and predicate). An event joins the
        slot of a state it rivals ("was completed on 31 January" after "is blocked"): it is
        the state's change on that day (see `shared.beliefs.slots`); rival events (two dates
        for one cutover) stay a contradiction."""
        if assertion.kind != "observation":
            return None
        # Either side a state, whichever arrived first: "Budget for Q2 is $80k" (a measured
        # value) and "Budget cut to $60k on 27 February" (an event) joined a slot when the
        # value arrived second and stayed a bare contradiction when it arrived first.
        candidate_state = candidate.is_state or (
            candidate.valid_kind is not None and candidate.valid_kind != "event_time"
        )
        # An undated side is a state as an undated candidate is (`is_state`): "the offsite
        # has been cancelled" joined the dated plan's slot only when it arrived first.
        assertion_state = (
            assertion.claim.window_kind in STATE_WINDOW_KINDS
            or assertion.window.valid_until is None
        )
        if not assertion_state and not candidate_state:
            return None
        slot = uuid.UUID(candidate.slot_id) if candidate.slot_id else uuid.uuid4()
        self.slots.add(SlotKey(slot_id=slot))
        return slot

    async def flush(self) -> list[DecisionEntry]:
        """Write the queued transcripts and recount the touched facts; the batch's entries."""
        entries, self._entries = self._entries, []
        rows, self._transcripts = self._transcripts, []
        touched, self._touched = self._touched, []
        corroborated, self._corroborated = self._corroborated, []
        if not rows:
            return entries
        decided = await facts_repo.insert_transcripts(
            self._session, self._namespace, self._decided_by, rows
        )
        await recount_facts(self._session, self._namespace, touched, decided_by=self._decided_by)
        await settle_labels(self._session, self._namespace, touched, corroborated)
        return [replace(entry, decided_at=decided[entry.decision_id]) for entry in entries]

    def _fact(
        self,
        fact_id: uuid.UUID,
        assertion: Assertion,
        vector: str | None,
        *,
        group: uuid.UUID | None = None,
        slot: uuid.UUID | None = None,
    ) -> Write:
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

    def _link(self, fact_id: uuid.UUID, assertion: Assertion, stance: Stance = "supports") -> Write:
        return "link", {
            "l_fact": fact_id,
            "l_claim": uuid.UUID(assertion.claim.claim_id),
            "l_document": uuid.UUID(assertion.claim.document_id),
            "l_stance": stance,
        }

    def _set_window(
        self, fact_id: uuid.UUID, window: Window, *, superseded_by: uuid.UUID | None = None
    ) -> Write:
        return "window", {
            "w_fact": fact_id,
            "w_from": window.valid_from,
            "w_until": window.valid_until,
            "w_precision": window.precision,
            "w_successor": superseded_by,
        }

    def _assertion(
        self, assertion: Assertion, fact_id: uuid.UUID, outcome: str
    ) -> tuple[uuid.UUID, Write | None]:
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
