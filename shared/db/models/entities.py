"""Entity layer: entities, aliases, alias trigrams, resolution verdicts, merges and proposals."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import (
    CheckConstraint,
    ForeignKey,
    Index,
    PrimaryKeyConstraint,
    SmallInteger,
    UniqueConstraint,
)
from sqlalchemy import text as sql
from sqlalchemy.orm import Mapped, mapped_column

from shared.db.models.base import (
    MERGE_PROPOSAL_STATUSES,
    RESOLUTION_ROLES,
    RESOLUTION_STEPS,
    Base,
    check_in,
    created_at_column,
    embedding_column,
    hnsw_index,
    namespace_column,
    updated_at_column,
    uuid_pk,
)

__all__ = [
    "AliasTrigram",
    "Entity",
    "EntityAlias",
    "MergeEvent",
    "MergeProposal",
    "ResolutionVerdict",
]


class Entity(Base):
    """A typeless entity; a merged-away entity keeps its row and points at its survivor."""

    __tablename__ = "entities"
    __table_args__ = (
        Index("ix_entities_normalized_name", "namespace", "normalized_name"),
        hnsw_index("entities", "profile_embedding"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    namespace: Mapped[str] = namespace_column()
    canonical_name: Mapped[str]
    normalized_name: Mapped[str]
    profile_text: Mapped[str | None]
    profile_embedding: Mapped[list[float] | None] = embedding_column()
    redirect_to: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("entities.id"))
    created_at: Mapped[datetime] = created_at_column()
    updated_at: Mapped[datetime] = updated_at_column()


class EntityAlias(Base):
    """A surface form the sources used for an entity, with its phonetic code (computed in
    Python: the embedded Postgres ships no fuzzystrmatch)."""

    __tablename__ = "entity_aliases"
    __table_args__ = (
        UniqueConstraint("namespace", "entity_id", "normalized_alias", name="uq_entity_aliases"),
        Index("ix_entity_aliases_normalized", "namespace", "normalized_alias"),
        Index("ix_entity_aliases_phonetic", "namespace", "phonetic_code"),
        # A lone word looked up as a multi-word alias's first or last word (migration 0011).
        Index(
            "ix_entity_aliases_first_word",
            "namespace",
            sql("split_part(normalized_alias, ' '::text, 1)"),
            postgresql_where=sql("POSITION((' '::text) IN (normalized_alias)) > 0"),
        ),
        Index(
            "ix_entity_aliases_last_word",
            "namespace",
            sql("reverse(split_part(reverse(normalized_alias), ' '::text, 1))"),
            postgresql_where=sql("POSITION((' '::text) IN (normalized_alias)) > 0"),
        ),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    namespace: Mapped[str] = namespace_column()
    entity_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("entities.id"))
    alias: Mapped[str]
    normalized_alias: Mapped[str]
    phonetic_code: Mapped[str | None]
    mention_count: Mapped[int] = mapped_column(server_default=sql("1"))
    first_seen_at: Mapped[datetime] = created_at_column()
    last_seen_at: Mapped[datetime] = created_at_column()


class AliasTrigram(Base):
    """Trigram postings of an alias, maintained by the writer in place of pg_trgm (absent from
    the embedded Postgres). `alias_grams` is the alias's trigram count: keyed after the trigram,
    it lets a search read only the postings of aliases whose length can reach the threshold."""

    __tablename__ = "alias_trigrams"
    __table_args__ = (
        PrimaryKeyConstraint("namespace", "trigram", "alias_grams", "alias_id"),
        # The cascading foreign key looks rows up by alias alone.
        Index("ix_alias_trigrams_alias", "alias_id"),
    )

    namespace: Mapped[str] = namespace_column()
    trigram: Mapped[str]
    alias_grams: Mapped[int] = mapped_column(SmallInteger)
    alias_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("entity_aliases.id", ondelete="CASCADE"))


class ResolutionVerdict(Base):
    """How one mention was resolved: the deciding step, its scores and the resolver version."""

    __tablename__ = "resolution_verdicts"
    __table_args__ = (
        check_in("role", RESOLUTION_ROLES),
        check_in("step", RESOLUTION_STEPS),
        Index("ix_resolution_verdicts_claim", "namespace", "claim_id"),
        Index("ix_resolution_verdicts_entity", "namespace", "chosen_entity_id"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    namespace: Mapped[str] = namespace_column()
    # Null for mentions that reach the resolver without a claim (direct adjudication).
    claim_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("claims.id"))
    mention_text: Mapped[str]
    role: Mapped[str]
    step: Mapped[str]
    scores: Mapped[dict[str, Any]] = mapped_column(server_default=sql("'{}'"))
    chosen_entity_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("entities.id"))
    created_new: Mapped[bool] = mapped_column(server_default=sql("false"))
    resolver_version: Mapped[str]
    created_at: Mapped[datetime] = created_at_column()


class MergeEvent(Base):
    """A merge (absorbed redirects to survivor) with the snapshot that undoing it replays."""

    __tablename__ = "merge_events"
    __table_args__ = (
        Index("ix_merge_events_survivor", "namespace", "survivor_id"),
        Index("ix_merge_events_absorbed", "namespace", "absorbed_id"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    namespace: Mapped[str] = namespace_column()
    survivor_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("entities.id"))
    absorbed_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("entities.id"))
    snapshot: Mapped[dict[str, Any]]
    decided_by: Mapped[str]
    merged_at: Mapped[datetime] = created_at_column()
    undone_at: Mapped[datetime | None]


class MergeProposal(Base):
    """A suggested merge awaiting review; the pair is stored ordered so it is unique."""

    __tablename__ = "merge_proposals"
    __table_args__ = (
        UniqueConstraint("namespace", "entity_a_id", "entity_b_id", name="uq_merge_proposals_pair"),
        check_in("status", MERGE_PROPOSAL_STATUSES),
        CheckConstraint("entity_a_id < entity_b_id", name="ordered_pair"),
        Index("ix_merge_proposals_status", "namespace", "status"),
    )

    id: Mapped[uuid.UUID] = uuid_pk()
    namespace: Mapped[str] = namespace_column()
    entity_a_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("entities.id"))
    entity_b_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("entities.id"))
    score: Mapped[float]
    expected_impact: Mapped[float] = mapped_column(server_default=sql("0"))
    status: Mapped[str] = mapped_column(server_default=sql("'open'"))
    evidence: Mapped[dict[str, Any]] = mapped_column(server_default=sql("'{}'"))
    created_at: Mapped[datetime] = created_at_column()
