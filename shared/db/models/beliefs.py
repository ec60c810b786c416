"""Belief layer: assertions, facts, evidence links, contradiction groups, decision transcripts."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, Index, UniqueConstraint
from sqlalchemy import text as sql
from sqlalchemy.orm import Mapped, mapped_column

from shared.db.models.base import (
    ASSERTION_KINDS,
    DECISION_OUTCOMES,
    FACT_KINDS,
    FACT_SUPPORT,
    POLARITIES,
    STANCES,
    VALID_KINDS,
    VALID_PRECISIONS,
    Base,
    check_in,
    created_at_column,
    embedding_column,
    hnsw_index,
    namespace_column,
    tsv_column,
    tsv_index,
    updated_at_column,
    uuid_pk,
)

__all__ = ["Assertion", "ContradictionGroup", "DecisionTranscript", "Fact", "FactEvidence"]

# A relation links two entities by a predicate; an observation is anchored on one entity.
_RELATION_SHAPE = (
    "(kind = 'relation' AND predicate IS NOT NULL AND object_entity_id IS NOT NULL)"
    " OR (kind = 'observation' AND object_entity_id IS NULL)"
)

_HOP_COLUMNS = ("id", "valid_from", "valid_until", "ingested_at", "invalidated_at")
# Every column a lookup's predicate reads besides the ends (predicate, the time-scope clause).
_RANKED_INCLUDE = [
    "predicate",
    "valid_from",
    "valid_until",
    "valid_kind",
    "invalidated_at",
    "superseded_by_fact_id",
]


class ContradictionGroup(Base):
    """Facts that contradict each other and are therefore never returned alone."""

    __tablename__ = "contradiction_groups"

    id: Mapped[uuid.UUID] = uuid_pk()
    namespace: Mapped[str] = namespace_column()
    created_at: Mapped[datetime] = created_at_column()
    resolved_at: Mapped[datetime | None]


class Fact(Base):
    """What the memory holds true: world window, belief window, support and evidence count."""

    __tablename__ = "facts"
    __table_args__ = (
        check_in("kind", FACT_KINDS),
        check_in("valid_precision", VALID_PRECISIONS),
        check_in("support", FACT_SUPPORT),
        check_in("valid_kind", VALID_KINDS),
        CheckConstraint(_RELATION_SHAPE, name="relation_shape"),
        CheckConstraint("evidence_count >= 0", name="evidence_count"),
        Index("ix_facts_subject", "namespace", "subject_entity_id", "predicate"),
        Index("ix_facts_object", "namespace", "object_entity_id", "predicate"),
        Index("ix_facts_kind", "namespace", "kind"),
        Index(
            "ix_facts_current",
            "namespace",
            "subject_entity_id",
            "predicate",
            postgresql_where=sql("invalidated_at IS NULL"),
        ),
        Index("ix_facts_contradiction_group", "namespace", "contradiction_group_id"),
        Index(
            "ix_facts_slot",
            "namespace",
            "slot_id",
            postgresql_where=sql("slot_id IS NOT NULL"),
        ),
        # Graph hops read only these columns, so each hop is an index-only scan (one leaf page
        # per entity instead of one heap page per relation).
        Index(
            "ix_facts_relation_subject",
            "namespace",
            "subject_entity_id",
            "predicate",
            postgresql_include=[*_HOP_COLUMNS, "object_entity_id"],
            postgresql_where=sql("kind = 'relation'::text"),
        ),
        Index(
            "ix_facts_relation_object",
            "namespace",
            "object_entity_id",
            "predicate",
            postgresql_include=[*_HOP_COLUMNS, "subject_entity_id"],
            postgresql_where=sql("kind = 'relation'::text"),
        ),
        # LookupRelations' order (evidence count, then learned time, then id; all descending):
        # the first k of a hub stream off the index instead of sorting every relation it has,
        # and the included columns let its (capped) total be an index-only count.
        *(
            Index(
                f"ix_facts_relation_{end}_ranked",
                "namespace",
                f"{end}_entity_id",
                "evidence_count",
                "ingested_at",
                "id",
                postgresql_include=[*_RANKED_INCLUDE, f"{other}_entity_id"],
                postgresql_where=sql("kind = 'relation'::text"),
            )
            for end, other in (("subject", "object"), ("object", "subject"))
        ),
        hnsw_index("facts"),
        tsv_index("facts"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    namespace: Mapped[str] = namespace_column()
    kind: Mapped[str]
    subject_entity_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("entities.id"))
    predicate: Mapped[str | None]
    object_entity_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("entities.id"))
    statement: Mapped[str]
    label: Mapped[str]
    valid_from: Mapped[datetime | None]
    valid_until: Mapped[datetime | None]
    valid_precision: Mapped[str] = mapped_column(server_default=sql("'unknown'"))
    # What the window describes (event_time, effective_period, ...), from the claims.
    valid_kind: Mapped[str | None]
    # Belief time: when the memory started and stopped holding the fact.
    ingested_at: Mapped[datetime] = created_at_column()
    invalidated_at: Mapped[datetime | None]
    invalidation_reason: Mapped[str | None]
    support: Mapped[str] = mapped_column(server_default=sql("'current'"))
    # Distinct documents with current supporting testimony; kept by the single writer.
    evidence_count: Mapped[int] = mapped_column(server_default=sql("0"))
    contradiction_group_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("contradiction_groups.id")
    )
    superseded_by_fact_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("facts.id"))
    # Successive values of one attribute share a slot, placed by the timeline (migration 0005).
    slot_id: Mapped[uuid.UUID | None]
    embedding: Mapped[list[float] | None] = embedding_column()
    tsv: Mapped[str | None] = tsv_column("label")
    created_at: Mapped[datetime] = created_at_column()
    updated_at: Mapped[datetime] = updated_at_column()


class Assertion(Base):
    """A claim normalized into a relation or observation, before and after adjudication."""

    __tablename__ = "assertions"
    __table_args__ = (
        UniqueConstraint("namespace", "claim_id", "dedupe_key", name="uq_assertions_dedupe"),
        check_in("kind", ASSERTION_KINDS),
        check_in("polarity", POLARITIES),
        check_in("valid_precision", VALID_PRECISIONS),
        CheckConstraint(_RELATION_SHAPE, name="relation_shape"),
        check_in("phase", ("state", "start", "end")),
        Index("ix_assertions_fact", "namespace", "fact_id"),
        Index("ix_assertions_subject", "namespace", "subject_entity_id"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    namespace: Mapped[str] = namespace_column()
    claim_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("claims.id"))
    kind: Mapped[str]
    subject_entity_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("entities.id"))
    predicate: Mapped[str | None]
    object_entity_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("entities.id"))
    statement: Mapped[str]
    polarity: Mapped[str] = mapped_column(server_default=sql("'positive'"))
    valid_from: Mapped[datetime | None]
    valid_until: Mapped[datetime | None]
    valid_precision: Mapped[str] = mapped_column(server_default=sql("'unknown'"))
    fact_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("facts.id"))
    outcome: Mapped[str | None]
    dedupe_key: Mapped[str]
    # The phrase stated the state, its start or its end; the claim says it holds beside others.
    phase: Mapped[str] = mapped_column(server_default=sql("'state'"))
    concurrent: Mapped[bool] = mapped_column(server_default=sql("false"))
    created_at: Mapped[datetime] = created_at_column()


class FactEvidence(Base):
    """A claim linked to a fact as supporting or contradicting evidence."""

    __tablename__ = "fact_evidence"
    __table_args__ = (
        UniqueConstraint("fact_id", "claim_id", name="uq_fact_evidence_link"),
        check_in("stance", STANCES),
        Index("ix_fact_evidence_claim", "namespace", "claim_id"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    namespace: Mapped[str] = namespace_column()
    fact_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("facts.id"))
    claim_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("claims.id"))
    document_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("documents.id"))
    stance: Mapped[str]
    linked_at: Mapped[datetime] = created_at_column()


class DecisionTranscript(Base):
    """One adjudication decision about a fact, with the window before and after it."""

    __tablename__ = "decision_transcripts"
    __table_args__ = (
        check_in("outcome", DECISION_OUTCOMES),
        Index("ix_decision_transcripts_fact", "namespace", "fact_id", "decided_at"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    namespace: Mapped[str] = namespace_column()
    fact_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("facts.id"))
    related_fact_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("facts.id"))
    assertion_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("assertions.id"))
    claim_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("claims.id"))
    outcome: Mapped[str]
    method: Mapped[str]
    engine: Mapped[str | None]
    model: Mapped[str | None]
    confidence: Mapped[float | None]
    rationale: Mapped[str | None]
    window_before: Mapped[dict[str, Any] | None]
    window_after: Mapped[dict[str, Any] | None]
    decided_by: Mapped[str]
    decided_at: Mapped[datetime] = created_at_column()
    # The decision behind the outcome (add, confirm, adjust, supersede, …; migration 0005).
    action: Mapped[str | None]
