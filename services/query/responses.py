"""Domain results to wire responses (SPEC §8 shapes)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rememberstack.v1 import (
    common_pb2,
    entity_pb2,
    evidence_pb2,
    fact_pb2,
    query_service_pb2,
)

from services.query.domain import (
    ChunkView,
    ClaimsContextResult,
    ClaimView,
    CoMemberView,
    DecisionView,
    DocumentView,
    FactListResult,
    FactsContextResult,
    FactView,
    ResolveEntityResult,
)
from shared.proto_convert import (
    ACTION,
    CLAIM_VALID_KIND,
    CURRENCY_REASON,
    FACT_KIND,
    OUTCOME,
    POLARITY,
    PRECISION,
    STANCE,
    SUPPORT,
    TEMPORAL_MATCH,
    negative_to_pb,
    time_scope_to_pb,
    timestamp,
    to_timestamp,
    truncation_to_pb,
    window_to_pb,
)

_TIERS = {
    "exact_alias": entity_pb2.RESOLVE_TIER_EXACT_ALIAS,
    "trigram": entity_pb2.RESOLVE_TIER_TRIGRAM,
    "phonetic": entity_pb2.RESOLVE_TIER_PHONETIC,
    "embedding": entity_pb2.RESOLVE_TIER_EMBEDDING,
}


def _precision(value: str | None) -> Any:
    return PRECISION.get(value or "unknown", common_pb2.PRECISION_UNKNOWN)


def _validity(item: FactView | CoMemberView) -> common_pb2.Validity:
    return common_pb2.Validity(
        valid_from=to_timestamp(item.valid_from),
        valid_until=to_timestamp(item.valid_until),
        valid_precision=_precision(item.valid_precision),
        ingested_at=to_timestamp(item.ingested_at),
        invalidated_at=to_timestamp(item.invalidated_at),
    )


def co_member_pb(member: CoMemberView) -> fact_pb2.CoMember:
    return fact_pb2.CoMember(
        fact_id=str(member.fact_id),
        label=member.label,
        evidence_count=member.evidence_count,
        validity=_validity(member),
    )


def fact_pb(fact: FactView) -> fact_pb2.FactResult:
    message = fact_pb2.FactResult(
        fact_id=str(fact.fact_id),
        kind=FACT_KIND[fact.kind],  # type: ignore[arg-type]
        label=fact.label,
        evidence_count=fact.evidence_count,
        validity=_validity(fact),
        temporal_match=TEMPORAL_MATCH[fact.temporal_match],  # type: ignore[arg-type]
        support=SUPPORT.get(fact.support, fact_pb2.SUPPORT_CURRENT),  # type: ignore[arg-type]
        subject=common_pb2.EntityRef(entity_id=str(fact.subject.entity_id), name=fact.subject.name),
        predicate=fact.predicate or "",
        superseded_by_fact_id=str(fact.superseded_by_fact_id or ""),
        score=fact.score,
    )
    if fact.object is not None:
        message.object.CopyFrom(
            common_pb2.EntityRef(entity_id=str(fact.object.entity_id), name=fact.object.name)
        )
    if fact.contradiction is not None:
        block = fact.contradiction
        message.contradiction_group = str(block.group_id)
        message.contradiction.CopyFrom(
            fact_pb2.Contradiction(
                group_id=str(block.group_id),
                co_members=[co_member_pb(m) for m in block.co_members],
                returned=block.returned,
                total=block.total,
                continuation=block.continuation,
            )
        )
    return message


def claim_pb(claim: ClaimView) -> evidence_pb2.Evidence:
    return evidence_pb2.Evidence(
        claim_id=str(claim.claim_id),
        doc_id=str(claim.doc_id),
        version_id=str(claim.version_id),
        chunk_id=str(claim.chunk_id),
        claim_text=claim.claim_text,
        source_span=claim.source_span,
        char_start=claim.char_start,
        char_end=claim.char_end,
        evidence_spans=[
            evidence_pb2.Span(
                char_start=int(span.get("char_start", 0)),
                char_end=int(span.get("char_end", 0)),
                text=str(span.get("text", "")),
            )
            for span in claim.evidence_spans
        ],
        is_attributed=claim.is_attributed,
        is_current_testimony=claim.is_current_testimony,
        asserted_at=to_timestamp(claim.asserted_at),
        claim_valid_from=to_timestamp(claim.claim_valid_from),
        claim_valid_until=to_timestamp(claim.claim_valid_until),
        claim_valid_precision=_precision(claim.claim_valid_precision),
        claim_valid_kind=CLAIM_VALID_KIND.get(claim.claim_valid_kind or "", 0),  # type: ignore[arg-type]
        document_title=claim.document_title or "",
        source_kind=claim.source_kind or "",
        corroboration_count=claim.corroboration_count,
        grouped_claim_ids=[str(i) for i in claim.grouped_claim_ids],
        holder=claim.holder or "",
        polarity=POLARITY.get(claim.polarity, 0),  # type: ignore[arg-type]
        speaker=claim.speaker or "",
        turn_id=claim.turn_id or "",
        currency_reason=CURRENCY_REASON.get(claim.currency_reason or "", 0),  # type: ignore[arg-type]
        extractor_name=claim.extractor_name,
        extractor_version=claim.extractor_version,
        score=claim.score,
    )


def chunk_pb(chunk: ChunkView) -> evidence_pb2.ChunkResult:
    return evidence_pb2.ChunkResult(
        chunk_id=str(chunk.chunk_id),
        doc_id=str(chunk.doc_id),
        version_id=str(chunk.version_id),
        ordinal=chunk.ordinal,
        char_start=chunk.char_start,
        char_end=chunk.char_end,
        text=chunk.text,
        section_path=chunk.section_path,
        document_title=chunk.document_title or "",
        source_kind=chunk.source_kind or "",
        asserted_at=to_timestamp(chunk.asserted_at),
        score=chunk.score,
    )


def facts_context_pb(result: FactsContextResult) -> query_service_pb2.FactsContextResponse:
    return query_service_pb2.FactsContextResponse(
        facts=[fact_pb(f) for f in result.facts],
        fact_evidence=[
            fact_pb2.FactEvidence(
                fact_id=str(link.fact_id),
                claim_id=str(link.claim_id),
                stance=STANCE[link.stance],  # type: ignore[arg-type]
            )
            for link in result.fact_evidence
        ],
        evidence_totals=[
            fact_pb2.EvidenceTotal(
                fact_id=str(t.fact_id),
                stance=STANCE[t.stance],  # type: ignore[arg-type]
                returned=t.returned,
                total=t.total,
            )
            for t in result.evidence_totals
        ],
        claims=[claim_pb(c) for c in result.claims],
        nodes=[
            query_service_pb2.GraphNode(entity_id=str(n.entity_id), name=n.name, hop=n.hop)
            for n in result.nodes
        ],
        temporal_scope=time_scope_to_pb(result.scope),
        truncation=truncation_to_pb(result.truncation),
        dropped_by_hydration=result.dropped_by_hydration,
        negative=negative_to_pb(result.negative),
        evaluated_at=timestamp(result.evaluated_at),
    )


def claims_context_pb(
    result: ClaimsContextResult,
) -> query_service_pb2.ClaimsAndSourcesContextResponse:
    return query_service_pb2.ClaimsAndSourcesContextResponse(
        claims=[claim_pb(c) for c in result.claims],
        chunks=[chunk_pb(c) for c in result.chunks],
        temporal_scope=time_scope_to_pb(result.scope) if result.scope is not None else None,
        truncation=truncation_to_pb(result.truncation),
        dropped_by_hydration=result.dropped_by_hydration,
        negative=negative_to_pb(result.negative),
        evaluated_at=timestamp(result.evaluated_at),
    )


def fact_list_parts(result: FactListResult) -> dict[str, Any]:
    """Fields shared by LookupRelations and LookupObservations responses."""
    return {
        "facts": [fact_pb(f) for f in result.facts],
        "truncation": truncation_to_pb(result.truncation),
        "negative": negative_to_pb(result.negative),
    }


def document_pb(doc: DocumentView) -> query_service_pb2.DocumentSummary:
    return query_service_pb2.DocumentSummary(
        document_id=str(doc.document_id),
        title=doc.title or "",
        source_kind=doc.source_kind or "",
        source_ref=doc.source_ref or "",
        deleted_at=to_timestamp(doc.deleted_at),
    )


def _window(raw: dict[str, Any] | None) -> common_pb2.Window | None:
    if raw is None:
        return None
    return window_to_pb(
        _parse_time(raw.get("valid_from")),
        _parse_time(raw.get("valid_until")),
        raw.get("valid_precision"),
    )


def _parse_time(value: Any) -> datetime | None:
    if not value:
        return None
    if isinstance(value, datetime):
        return value
    return datetime.fromisoformat(str(value).replace("Z", "+00:00"))


def decision_pb(d: DecisionView) -> fact_pb2.DecisionRecord:
    return fact_pb2.DecisionRecord(
        decision_id=str(d.decision_id),
        fact_id=str(d.fact_id),
        related_fact_id=str(d.related_fact_id or ""),
        outcome=OUTCOME.get(d.outcome, 0),  # type: ignore[arg-type]
        method=d.method,
        engine=d.engine or "",
        model=d.model or "",
        confidence=d.confidence or 0.0,
        rationale=d.rationale or "",
        decided_by=d.decided_by,
        decided_at=timestamp(d.decided_at),
        window_before=_window(d.window_before),
        window_after=_window(d.window_after),
        claim_id=str(d.claim_id or ""),
        action=ACTION.get(d.action or "", 0),  # type: ignore[arg-type]
    )


def resolve_pb(result: ResolveEntityResult) -> query_service_pb2.ResolveEntityResponse:
    return query_service_pb2.ResolveEntityResponse(
        candidates=[
            entity_pb2.EntityCandidate(
                entity_id=str(c.entity_id),
                canonical_name=c.canonical_name,
                matched_alias=c.matched_alias,
                tier=_TIERS.get(c.tier, entity_pb2.RESOLVE_TIER_UNSPECIFIED),
                score=c.score,
                profile=c.profile,
                context_boosted=c.context_boosted,
            )
            for c in result.candidates
        ],
        truncation=truncation_to_pb(result.truncation),
        negative=negative_to_pb(result.negative),
    )
