"""Read requests and results of the query service, free of wire and database types."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from shared.answers import NegativeAnswer, TruncationInfo
from shared.timescope import TimeScope

Channel = Literal["semantic", "lexical", "fused"]

# SPEC §7 bounds that are not request parameters.
MAX_ANCHOR_SET = 20
MAX_CLAIMS_PER_FACTS_RESULT = 60
MAX_INLINE_CO_MEMBERS = 25
MAX_TRANSCRIPT_DECISIONS = 40
RRF_CONSTANT = 60


@dataclass(frozen=True)
class FactsContextQuery:
    namespace: str
    query: str
    entity_ids: tuple[UUID, ...]
    k: int
    evidence_per_fact: int
    hops: int
    predicate: str | None
    scope: TimeScope


@dataclass(frozen=True)
class ClaimsContextQuery:
    namespace: str
    query: str
    entity_ids: tuple[UUID, ...]
    k: int
    candidate_k: int
    # None: no world-time filter (current testimony regardless of dates).
    scope: TimeScope | None


@dataclass(frozen=True)
class LookupRelationsQuery:
    namespace: str
    subject_entity_id: UUID | None
    predicate: str | None
    object_entity_id: UUID | None
    k: int
    scope: TimeScope


@dataclass(frozen=True)
class LookupObservationsQuery:
    namespace: str
    entity_id: UUID
    property_query: str
    k: int
    scope: TimeScope


@dataclass(frozen=True)
class SearchQuery:
    namespace: str
    query: str
    k: int
    channel: Channel


@dataclass(frozen=True)
class EntityRefView:
    entity_id: UUID
    name: str


@dataclass(frozen=True)
class CoMemberView:
    fact_id: UUID
    label: str
    evidence_count: int
    valid_from: datetime | None
    valid_until: datetime | None
    valid_precision: str
    ingested_at: datetime
    invalidated_at: datetime | None


@dataclass(frozen=True)
class ContradictionView:
    group_id: UUID
    co_members: tuple[CoMemberView, ...]
    total: int
    continuation: str

    @property
    def returned(self) -> int:
        return len(self.co_members)


@dataclass
class FactView:
    fact_id: UUID
    kind: str
    label: str
    evidence_count: int
    valid_from: datetime | None
    valid_until: datetime | None
    valid_precision: str
    valid_kind: str | None
    ingested_at: datetime
    invalidated_at: datetime | None
    support: str
    subject: EntityRefView
    predicate: str | None
    object: EntityRefView | None
    superseded_by_fact_id: UUID | None
    contradiction_group_id: UUID | None
    temporal_match: str = "possible"
    score: float = 0.0
    contradiction: ContradictionView | None = None


@dataclass
class ClaimView:
    claim_id: UUID
    doc_id: UUID
    version_id: UUID
    chunk_id: UUID
    claim_text: str
    normalized_text: str
    source_span: str
    char_start: int
    char_end: int
    evidence_spans: list[dict[str, Any]]
    is_attributed: bool
    is_current_testimony: bool
    asserted_at: datetime | None
    claim_valid_from: datetime | None
    claim_valid_until: datetime | None
    claim_valid_precision: str
    claim_valid_kind: str | None
    holder: str | None
    polarity: str
    speaker: str | None
    turn_id: str | None
    currency_reason: str | None
    extractor_name: str
    extractor_version: str
    document_title: str | None
    source_kind: str | None
    score: float = 0.0
    corroboration_count: int = 0
    grouped_claim_ids: list[UUID] = field(default_factory=list)

    def group_key(self) -> tuple[object, ...]:
        """Claims fold together only when text, said-on time, world time and attribution agree."""
        return (
            self.normalized_text,
            self.asserted_at,
            self.claim_valid_from,
            self.claim_valid_until,
            self.claim_valid_precision,
            self.claim_valid_kind,
            self.is_attributed,
            self.holder,
            self.polarity,
        )


@dataclass
class ChunkView:
    chunk_id: UUID
    doc_id: UUID
    version_id: UUID
    ordinal: int
    char_start: int
    char_end: int
    text: str
    section_path: str
    document_title: str | None
    source_kind: str | None
    asserted_at: datetime | None
    score: float = 0.0


@dataclass(frozen=True)
class EvidenceLink:
    fact_id: UUID
    claim_id: UUID
    stance: str


@dataclass(frozen=True)
class EvidenceTotalView:
    fact_id: UUID
    stance: str
    returned: int
    total: int


@dataclass(frozen=True)
class NodeView:
    entity_id: UUID
    name: str
    hop: int


@dataclass(frozen=True)
class FactsContextResult:
    facts: list[FactView]
    fact_evidence: list[EvidenceLink]
    evidence_totals: list[EvidenceTotalView]
    claims: list[ClaimView]
    nodes: list[NodeView]
    scope: TimeScope
    truncation: TruncationInfo
    dropped_by_hydration: int
    negative: NegativeAnswer | None
    evaluated_at: datetime


@dataclass(frozen=True)
class ClaimsContextResult:
    claims: list[ClaimView]
    chunks: list[ChunkView]
    scope: TimeScope | None
    truncation: TruncationInfo
    dropped_by_hydration: int
    negative: NegativeAnswer | None
    evaluated_at: datetime


@dataclass(frozen=True)
class CombinedResult:
    facts: FactsContextResult
    claims_and_sources: ClaimsContextResult
    evaluated_at: datetime


@dataclass(frozen=True)
class FactListResult:
    facts: list[FactView]
    truncation: TruncationInfo
    negative: NegativeAnswer | None


@dataclass(frozen=True)
class DocumentView:
    document_id: UUID
    title: str | None
    source_kind: str | None
    source_ref: str | None
    deleted_at: datetime | None


@dataclass(frozen=True)
class HydrateResult:
    fact: FactView
    fact_evidence: list[EvidenceLink]
    claims: list[ClaimView]
    documents: list[DocumentView]


@dataclass(frozen=True)
class DecisionView:
    decision_id: UUID
    fact_id: UUID
    related_fact_id: UUID | None
    outcome: str
    method: str
    engine: str | None
    model: str | None
    confidence: float | None
    rationale: str | None
    decided_by: str
    decided_at: datetime
    window_before: dict[str, Any] | None
    window_after: dict[str, Any] | None
    claim_id: UUID | None
    action: str | None = None


@dataclass(frozen=True)
class TranscriptResult:
    decisions: list[DecisionView]
    truncation: TruncationInfo


@dataclass(frozen=True)
class SearchClaimsResult:
    claims: list[ClaimView]
    truncation: TruncationInfo
    dropped_by_hydration: int
    negative: NegativeAnswer | None


@dataclass(frozen=True)
class SearchChunksResult:
    chunks: list[ChunkView]
    truncation: TruncationInfo
    dropped_by_hydration: int
    negative: NegativeAnswer | None


def untruncated(returned: int) -> TruncationInfo:
    """The truncation block of a read that returned everything that matched."""
    return TruncationInfo(
        truncated=False, returned=returned, estimated_total=returned, total_is_exact=True
    )


@dataclass(frozen=True)
class ResolvedCandidate:
    """One ResolveEntity candidate, as the entity-resolution module reports it."""

    entity_id: UUID
    canonical_name: str
    matched_alias: str
    tier: str
    score: float
    profile: str
    context_boosted: bool


@dataclass(frozen=True)
class ResolveEntityResult:
    candidates: list[ResolvedCandidate]
    truncation: TruncationInfo
    negative: NegativeAnswer | None


def unknown_entity_negative(missing: Sequence[UUID]) -> NegativeAnswer:
    """The typed negative for entity ids the namespace does not hold."""
    listed = ", ".join(str(entity) for entity in missing)
    return NegativeAnswer(
        kind="unknown_entity",
        explanation=f"no entity with id {listed} exists in this namespace",
        workaround="resolve the name with ResolveEntity and pass the returned entity_id",
    )
