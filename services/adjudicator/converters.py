"""Wire ↔ domain conversion and request validation of the AdjudicatorService."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from rememberstack.v1 import adjudicator_service_pb2 as pb
from rememberstack.v1 import entity_pb2, fact_pb2

from services.adjudicator.entities.merges import MergeOutcome, ProposalPage, UndoOutcome
from services.adjudicator.service import ClaimsOutcome, EngineInfo, SupportReview
from services.adjudicator.writer import DecisionEntry
from shared.errors import Violations
from shared.namespaces import resolve_namespace
from shared.proto_convert import (
    ACTION,
    OUTCOME,
    bounded_int,
    parse_uuid,
    parse_uuids,
    timestamp,
    window_to_pb,
)

__all__ = [
    "AdjudicateClaimsInput",
    "MergeInput",
    "ProposalsInput",
    "UndoInput",
    "adjudicate_claims_from_pb",
    "adjudicate_claims_to_pb",
    "decision_to_pb",
    "engine_info_to_pb",
    "merge_from_pb",
    "merge_to_pb",
    "proposals_from_pb",
    "proposals_to_pb",
    "replay_from_pb",
    "review_from_pb",
    "review_to_pb",
    "undo_from_pb",
    "undo_to_pb",
]

MAX_CLAIMS = 100
MAX_FACTS = 1000
MAX_WORK_ITEMS = 1000
_MAX_ACTOR = 200


def _check_actor(value: str, field: str, violations: Violations) -> None:
    """``decided_by`` in a request is ignored (the caller's principal is recorded) but still
    refused when malformed, as every request field is."""
    if len(value) > _MAX_ACTOR:
        violations.add(field, f"must be at most {_MAX_ACTOR} characters")


@dataclass(frozen=True, slots=True)
class AdjudicateClaimsInput:
    namespace: str
    claim_ids: list[uuid.UUID]


def adjudicate_claims_from_pb(
    request: pb.AdjudicateClaimsRequest, default_namespace: str
) -> AdjudicateClaimsInput:
    violations = Violations()
    namespace = resolve_namespace(request.namespace, default_namespace, violations)
    ids = parse_uuids(
        list(request.claim_ids), "claim_ids", violations, max_items=MAX_CLAIMS, min_items=1
    )
    _check_actor(request.decided_by, "decided_by", violations)
    violations.raise_if_any()
    return AdjudicateClaimsInput(namespace, ids)


def decision_to_pb(entry: DecisionEntry) -> fact_pb2.DecisionRecord:
    record = fact_pb2.DecisionRecord(
        decision_id=str(entry.decision_id),
        fact_id=str(entry.fact_id),
        related_fact_id=str(entry.related_fact_id) if entry.related_fact_id else "",
        outcome=OUTCOME[entry.outcome],  # type: ignore[arg-type]
        method=entry.method,
        engine=entry.engine or "",
        model=entry.model or "",
        confidence=entry.confidence,
        rationale=entry.rationale,
        decided_by=entry.decided_by,
        decided_at=timestamp(entry.decided_at),
        claim_id=str(entry.claim_id) if entry.claim_id else "",
        action=ACTION.get(entry.action, 0),  # type: ignore[arg-type]
    )
    if entry.window_before is not None:
        w = entry.window_before
        record.window_before.CopyFrom(window_to_pb(w.valid_from, w.valid_until, w.precision))
    if entry.window_after is not None:
        w = entry.window_after
        record.window_after.CopyFrom(window_to_pb(w.valid_from, w.valid_until, w.precision))
    return record


def adjudicate_claims_to_pb(outcome: ClaimsOutcome) -> pb.AdjudicateClaimsResponse:
    return pb.AdjudicateClaimsResponse(
        decisions=[decision_to_pb(e) for e in outcome.decisions],
        dropped_predicates=list(dict.fromkeys(outcome.dropped_predicates)),
    )


def engine_info_to_pb(info: EngineInfo) -> pb.GetEngineInfoResponse:
    return pb.GetEngineInfoResponse(
        engine=info.engine,
        model=info.model,
        engine_version=info.engine_version,
        confidence_floor=info.confidence_floor,
        extension_packs=list(info.extension_packs),
        predicates=list(info.predicates),
        extractor=info.extractor,
    )


@dataclass(frozen=True, slots=True)
class MergeInput:
    namespace: str
    survivor: uuid.UUID
    absorbed: uuid.UUID


def merge_from_pb(request: pb.MergeEntitiesRequest, default_namespace: str) -> MergeInput:
    violations = Violations()
    namespace = resolve_namespace(request.namespace, default_namespace, violations)
    survivor = parse_uuid(request.survivor_entity_id, "survivor_entity_id", violations)
    absorbed = parse_uuid(request.absorbed_entity_id, "absorbed_entity_id", violations)
    if survivor is not None and survivor == absorbed:
        violations.add("absorbed_entity_id", "must differ from survivor_entity_id")
    _check_actor(request.decided_by, "decided_by", violations)
    violations.raise_if_any()
    assert survivor is not None and absorbed is not None
    return MergeInput(namespace, survivor, absorbed)


def merge_to_pb(outcome: MergeOutcome) -> pb.MergeEntitiesResponse:
    return pb.MergeEntitiesResponse(
        merge_id=str(outcome.merge_id),
        aliases_moved=outcome.aliases_moved,
        facts_moved=outcome.facts_moved,
    )


@dataclass(frozen=True, slots=True)
class UndoInput:
    namespace: str
    merge_id: uuid.UUID


def undo_from_pb(request: pb.UndoMergeRequest, default_namespace: str) -> UndoInput:
    violations = Violations()
    namespace = resolve_namespace(request.namespace, default_namespace, violations)
    merge_id = parse_uuid(request.merge_id, "merge_id", violations)
    _check_actor(request.decided_by, "decided_by", violations)
    violations.raise_if_any()
    assert merge_id is not None
    return UndoInput(namespace, merge_id)


def undo_to_pb(outcome: UndoOutcome) -> pb.UndoMergeResponse:
    return pb.UndoMergeResponse(
        restored_entity_id=str(outcome.restored_entity_id),
        aliases_restored=outcome.aliases_restored,
        facts_restored=outcome.facts_restored,
    )


@dataclass(frozen=True, slots=True)
class ProposalsInput:
    namespace: str
    page_size: int
    page_token: str


def proposals_from_pb(
    request: pb.ListMergeProposalsRequest, default_namespace: str
) -> ProposalsInput:
    violations = Violations()
    namespace = resolve_namespace(request.namespace, default_namespace, violations)
    size = bounded_int(request.page_size, "page_size", violations, default=50, low=1, high=200)
    violations.raise_if_any()
    return ProposalsInput(namespace, size, request.page_token)


def proposals_to_pb(page: ProposalPage) -> pb.ListMergeProposalsResponse:
    return pb.ListMergeProposalsResponse(
        proposals=[
            entity_pb2.MergeProposal(
                proposal_id=str(p.proposal_id),
                entity_a_id=str(p.entity_a_id),
                entity_a_name=p.entity_a_name,
                entity_b_id=str(p.entity_b_id),
                entity_b_name=p.entity_b_name,
                score=p.score,
                expected_impact=p.expected_impact,
                created_at=timestamp(p.created_at),
            )
            for p in page.proposals
        ],
        next_page_token=page.next_page_token,
    )


def review_from_pb(
    request: pb.ReviewSupportRequest, default_namespace: str
) -> tuple[str, list[uuid.UUID]]:
    violations = Violations()
    namespace = resolve_namespace(request.namespace, default_namespace, violations)
    ids = parse_uuids(list(request.fact_ids), "fact_ids", violations, max_items=MAX_FACTS)
    violations.raise_if_any()
    return namespace, ids


def review_to_pb(review: SupportReview) -> pb.ReviewSupportResponse:
    return pb.ReviewSupportResponse(
        reviewed=review.reviewed, changed_fact_ids=[str(f) for f in review.changed_fact_ids]
    )


def replay_from_pb(
    request: pb.ReplayDeadLettersRequest, default_namespace: str
) -> tuple[str, list[uuid.UUID]]:
    violations = Violations()
    namespace = resolve_namespace(request.namespace, default_namespace, violations)
    ids = parse_uuids(
        list(request.work_item_ids), "work_item_ids", violations, max_items=MAX_WORK_ITEMS
    )
    violations.raise_if_any()
    return namespace, ids
