"""Claims layer: namespaces, documents, versions, stage status, chunks, claims, testimony."""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import (
    CheckConstraint,
    ForeignKey,
    Index,
    PrimaryKeyConstraint,
    UniqueConstraint,
)
from sqlalchemy import text as sql
from sqlalchemy.orm import Mapped, mapped_column

from shared.db.models.base import (
    CURRENCY_REASONS,
    POLARITIES,
    STAGE_STATUSES,
    STAGES,
    TESTIMONY_EVENTS,
    VALID_KINDS,
    VALID_PRECISIONS,
    VERSIONING_MODES,
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

__all__ = [
    "Chunk",
    "Claim",
    "Document",
    "DocumentVersion",
    "Namespace",
    "TestimonyEvent",
    "VersionChunk",
    "VersionClaim",
    "VersionStage",
    "claim_dedupe_key",
]


class Namespace(Base):
    """A tenant; every other table carries its name."""

    __tablename__ = "namespaces"

    namespace: Mapped[str] = mapped_column(primary_key=True)
    created_at: Mapped[datetime] = created_at_column()


class Document(Base):
    """A document identity (`source:<kind>:<ref>` or `sha256:<hex>`); versions hold the bytes."""

    __tablename__ = "documents"
    __table_args__ = (
        UniqueConstraint("namespace", "identity_key", name="uq_documents_identity"),
        check_in("versioning_mode", VERSIONING_MODES),
        CheckConstraint("(source_kind IS NULL) = (source_ref IS NULL)", name="source_pair"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    namespace: Mapped[str] = namespace_column()
    identity_key: Mapped[str]
    source_kind: Mapped[str | None]
    source_ref: Mapped[str | None]
    title: Mapped[str | None]
    media_type: Mapped[str | None]
    versioning_mode: Mapped[str] = mapped_column(server_default=sql("'snapshot'"))
    # use_alter: documents and document_versions reference each other.
    latest_version_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("document_versions.id", use_alter=True)
    )
    created_at: Mapped[datetime] = created_at_column()
    deleted_at: Mapped[datetime | None]


class DocumentVersion(Base):
    """Immutable bytes of one document version and the text derived from them."""

    __tablename__ = "document_versions"
    __table_args__ = (
        UniqueConstraint("document_id", "version_number", name="uq_document_versions_number"),
        Index("ix_document_versions_sha256", "namespace", "document_id", "content_sha256"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    namespace: Mapped[str] = namespace_column()
    document_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("documents.id"))
    version_number: Mapped[int]
    content: Mapped[bytes]
    # Null when the version is parked (unsupported media type) or binary.
    content_text: Mapped[str | None]
    media_type: Mapped[str]
    content_sha256: Mapped[str]
    source_modified_time: Mapped[datetime | None]
    source_version_ref: Mapped[str | None]
    ingested_at: Mapped[datetime] = created_at_column()
    parked: Mapped[bool] = mapped_column(server_default=sql("false"))
    extractor_name: Mapped[str | None]
    extractor_version: Mapped[str | None]


class VersionStage(Base):
    """Per-version, per-stage processing status shown to clients."""

    __tablename__ = "version_stages"
    __table_args__ = (
        PrimaryKeyConstraint("version_id", "stage"),
        check_in("stage", STAGES),
        check_in("status", STAGE_STATUSES),
        Index("ix_version_stages_namespace_status", "namespace", "status"),
    )

    namespace: Mapped[str] = namespace_column()
    version_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("document_versions.id"))
    stage: Mapped[str]
    status: Mapped[str] = mapped_column(server_default=sql("'pending'"))
    attempts: Mapped[int] = mapped_column(server_default=sql("0"))
    last_error: Mapped[str | None]
    updated_at: Mapped[datetime] = updated_at_column()


class Chunk(Base):
    """A run of whole paragraphs/turns, shared by every version that contains it unchanged."""

    __tablename__ = "chunks"
    __table_args__ = (
        UniqueConstraint(
            "namespace", "document_id", "content_sha256", "section_path", name="uq_chunks_content"
        ),
        hnsw_index("chunks"),
        tsv_index("chunks"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    namespace: Mapped[str] = namespace_column()
    document_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("documents.id"))
    content_sha256: Mapped[str]
    text: Mapped[str]
    # Not null (empty for no section) so the uniqueness above holds.
    section_path: Mapped[str] = mapped_column(server_default=sql("''"))
    embedding: Mapped[list[float] | None] = embedding_column()
    tsv: Mapped[str | None] = tsv_column("text")
    created_at: Mapped[datetime] = created_at_column()


class VersionChunk(Base):
    """Where a chunk sits in one version's text."""

    __tablename__ = "version_chunks"
    __table_args__ = (
        PrimaryKeyConstraint("version_id", "ordinal"),
        Index("ix_version_chunks_chunk", "namespace", "chunk_id"),
        CheckConstraint("char_start <= char_end", name="span"),
    )

    namespace: Mapped[str] = namespace_column()
    version_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("document_versions.id"))
    chunk_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("chunks.id"))
    ordinal: Mapped[int]
    char_start: Mapped[int]
    char_end: Mapped[int]


def claim_dedupe_key(
    chunk_id: uuid.UUID,
    extractor_version: str,
    chunk_char_start: int,
    chunk_char_end: int,
    claim_text: str,
) -> str:
    """Stable key of one extracted claim, so re-running extraction inserts nothing new."""
    text_hash = hashlib.sha256(claim_text.encode()).hexdigest()
    raw = f"{chunk_id}|{extractor_version}|{chunk_char_start}|{chunk_char_end}|{text_hash}"
    return hashlib.sha256(raw.encode()).hexdigest()


class Claim(Base):
    """One statement a source made; immutable except for its testimony currency."""

    __tablename__ = "claims"
    __table_args__ = (
        UniqueConstraint("namespace", "dedupe_key", name="uq_claims_dedupe"),
        Index("ix_claims_document_current", "namespace", "document_id", "is_current_testimony"),
        Index("ix_claims_chunk", "namespace", "chunk_id"),
        Index("ix_claims_normalized_text", "namespace", "normalized_text"),
        check_in("claim_valid_precision", VALID_PRECISIONS),
        check_in("claim_valid_kind", VALID_KINDS, nullable=True),
        check_in("polarity", POLARITIES),
        check_in("currency_reason", CURRENCY_REASONS, nullable=True),
        CheckConstraint("char_start <= char_end", name="span"),
        CheckConstraint("chunk_char_start <= chunk_char_end", name="chunk_span"),
        hnsw_index("claims"),
        tsv_index("claims"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    namespace: Mapped[str] = namespace_column()
    document_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("documents.id"))
    first_version_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("document_versions.id"))
    chunk_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("chunks.id"))
    claim_text: Mapped[str]
    normalized_text: Mapped[str]
    source_span: Mapped[str]
    # Half-open offsets into first_version's content_text.
    char_start: Mapped[int]
    char_end: Mapped[int]
    # The same span relative to the chunk, so a chunk reused by a later version maps it there.
    chunk_char_start: Mapped[int]
    chunk_char_end: Mapped[int]
    evidence_spans: Mapped[list[dict[str, Any]]] = mapped_column(server_default=sql("'[]'"))
    asserted_at: Mapped[datetime | None]
    claim_valid_from: Mapped[datetime | None]
    claim_valid_until: Mapped[datetime | None]
    claim_valid_precision: Mapped[str] = mapped_column(server_default=sql("'unknown'"))
    claim_valid_kind: Mapped[str | None]
    is_attributed: Mapped[bool] = mapped_column(server_default=sql("false"))
    holder: Mapped[str | None]
    polarity: Mapped[str] = mapped_column(server_default=sql("'positive'"))
    subject_text: Mapped[str | None]
    predicate_text: Mapped[str | None]
    object_text: Mapped[str | None]
    # Further (subject, predicate, object) phrases the statement makes (migration 0004).
    extra_relations: Mapped[list[dict[str, Any]]] = mapped_column(server_default=sql("'[]'"))
    speaker: Mapped[str | None]
    turn_id: Mapped[str | None]
    extractor_name: Mapped[str]
    extractor_version: Mapped[str]
    is_current_testimony: Mapped[bool] = mapped_column(server_default=sql("true"))
    currency_reason: Mapped[str | None]
    dedupe_key: Mapped[str]
    embedding: Mapped[list[float] | None] = embedding_column()
    tsv: Mapped[str | None] = tsv_column("claim_text")
    created_at: Mapped[datetime] = created_at_column()


class VersionClaim(Base):
    """Which versions contain a claim (a reused chunk carries its claims forward)."""

    __tablename__ = "version_claims"
    __table_args__ = (
        PrimaryKeyConstraint("version_id", "claim_id"),
        Index("ix_version_claims_claim", "namespace", "claim_id"),
    )

    namespace: Mapped[str] = namespace_column()
    version_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("document_versions.id"))
    claim_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("claims.id"))


class TestimonyEvent(Base):
    """Append-only history of a claim's testimony currency."""

    __tablename__ = "testimony_events"
    __test__ = False  # not a pytest test class despite the name
    __table_args__ = (
        check_in("event", TESTIMONY_EVENTS),
        Index("ix_testimony_events_claim", "namespace", "claim_id", "occurred_at"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    namespace: Mapped[str] = namespace_column()
    claim_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("claims.id"))
    event: Mapped[str]
    version_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("document_versions.id"))
    occurred_at: Mapped[datetime] = created_at_column()
