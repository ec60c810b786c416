"""Initial schema: claims, entity, belief and pipeline layers, every table scoped by namespace.

Only the `vector` extension is required (the embedded pgserver build ships no pg_trgm,
fuzzystrmatch or btree_gist): alias trigrams live in `alias_trigrams` and phonetic codes in
`entity_aliases.phonetic_code`, both maintained by the writer.

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

UUID = sa.UUID()
TEXT = sa.Text()
TIMESTAMPTZ = sa.DateTime(timezone=True)
JSONB = postgresql.JSONB()

_RELATION_SHAPE = (
    "(kind = 'relation' AND predicate IS NOT NULL AND object_entity_id IS NOT NULL)"
    " OR (kind = 'observation' AND object_entity_id IS NULL)"
)

# Creation order (foreign keys point backwards); downgrade drops in reverse.
_TABLES = [
    "contradiction_groups",
    "documents",
    "entities",
    "namespaces",
    "chunks",
    "document_versions",
    "entity_aliases",
    "facts",
    "merge_events",
    "merge_proposals",
    "alias_trigrams",
    "claims",
    "version_chunks",
    "version_stages",
    "work_items",
    "assertions",
    "fact_evidence",
    "resolution_verdicts",
    "testimony_events",
    "version_claims",
    "decision_transcripts",
]


def _col(
    name: str, type_: Any, *, null: bool = False, default: str | None = None
) -> sa.Column[Any]:
    server_default = sa.text(default) if default is not None else None
    return sa.Column(name, type_, nullable=null, server_default=server_default)


# op.f marks names as final: env.py's target metadata carries a naming convention that would
# otherwise prefix them a second time.
def _check_in(
    table: str, column: str, values: Sequence[str], *, nullable: bool = False
) -> sa.CheckConstraint:
    allowed = ", ".join(f"'{value}'" for value in values)
    condition = f"{column} IN ({allowed})"
    if nullable:
        condition = f"{column} IS NULL OR {condition}"
    return sa.CheckConstraint(condition, name=op.f(f"ck_{table}_{column}"))


def upgrade() -> None:
    op.execute("CREATE EXTENSION IF NOT EXISTS vector")
    op.create_table(
        "contradiction_groups",
        _col("id", UUID, default="gen_random_uuid()"),
        _col("namespace", TEXT),
        _col("created_at", TIMESTAMPTZ, default="now()"),
        _col("resolved_at", TIMESTAMPTZ, null=True),
        sa.PrimaryKeyConstraint("id", name="pk_contradiction_groups"),
    )
    op.create_table(
        "documents",
        _col("id", UUID, default="gen_random_uuid()"),
        _col("namespace", TEXT),
        _col("identity_key", TEXT),
        _col("source_kind", TEXT, null=True),
        _col("source_ref", TEXT, null=True),
        _col("title", TEXT, null=True),
        _col("media_type", TEXT, null=True),
        _col("versioning_mode", TEXT, default="'snapshot'"),
        _col("latest_version_id", UUID, null=True),
        _col("created_at", TIMESTAMPTZ, default="now()"),
        _col("deleted_at", TIMESTAMPTZ, null=True),
        sa.CheckConstraint(
            "(source_kind IS NULL) = (source_ref IS NULL)", name=op.f("ck_documents_source_pair")
        ),
        _check_in("documents", "versioning_mode", ("snapshot", "living")),
        sa.PrimaryKeyConstraint("id", name="pk_documents"),
        sa.UniqueConstraint("namespace", "identity_key", name="uq_documents_identity"),
    )
    op.create_table(
        "entities",
        _col("id", UUID, default="gen_random_uuid()"),
        _col("namespace", TEXT),
        _col("canonical_name", TEXT),
        _col("normalized_name", TEXT),
        _col("profile_text", TEXT, null=True),
        _col("profile_embedding", Vector(384), null=True),
        _col("redirect_to", UUID, null=True),
        _col("created_at", TIMESTAMPTZ, default="now()"),
        _col("updated_at", TIMESTAMPTZ, default="now()"),
        sa.ForeignKeyConstraint(["redirect_to"], ["entities.id"], name="fk_entities_redirect_to"),
        sa.PrimaryKeyConstraint("id", name="pk_entities"),
    )
    op.create_index("ix_entities_normalized_name", "entities", ["namespace", "normalized_name"])
    op.create_index(
        "ix_entities_profile_embedding_hnsw",
        "entities",
        ["profile_embedding"],
        postgresql_using="hnsw",
        postgresql_ops={"profile_embedding": "vector_cosine_ops"},
    )
    op.create_table(
        "namespaces",
        _col("namespace", TEXT),
        _col("created_at", TIMESTAMPTZ, default="now()"),
        sa.PrimaryKeyConstraint("namespace", name="pk_namespaces"),
    )
    op.create_table(
        "chunks",
        _col("id", UUID, default="gen_random_uuid()"),
        _col("namespace", TEXT),
        _col("document_id", UUID),
        _col("content_sha256", TEXT),
        _col("text", TEXT),
        _col("section_path", TEXT, default="''"),
        _col("embedding", Vector(384), null=True),
        sa.Column(
            "tsv",
            postgresql.TSVECTOR(),
            sa.Computed("to_tsvector('english', text)", persisted=True),
        ),
        _col("created_at", TIMESTAMPTZ, default="now()"),
        sa.ForeignKeyConstraint(["document_id"], ["documents.id"], name="fk_chunks_document_id"),
        sa.PrimaryKeyConstraint("id", name="pk_chunks"),
        sa.UniqueConstraint(
            "namespace", "document_id", "content_sha256", "section_path", name="uq_chunks_content"
        ),
    )
    op.create_index(
        "ix_chunks_embedding_hnsw",
        "chunks",
        ["embedding"],
        postgresql_using="hnsw",
        postgresql_ops={"embedding": "vector_cosine_ops"},
    )
    op.create_index("ix_chunks_tsv", "chunks", ["tsv"], postgresql_using="gin")
    op.create_table(
        "document_versions",
        _col("id", UUID, default="gen_random_uuid()"),
        _col("namespace", TEXT),
        _col("document_id", UUID),
        _col("version_number", sa.Integer()),
        _col("content", sa.LargeBinary()),
        _col("content_text", TEXT, null=True),
        _col("media_type", TEXT),
        _col("content_sha256", TEXT),
        _col("source_modified_time", TIMESTAMPTZ, null=True),
        _col("source_version_ref", TEXT, null=True),
        _col("ingested_at", TIMESTAMPTZ, default="now()"),
        _col("parked", sa.Boolean(), default="false"),
        _col("extractor_name", TEXT, null=True),
        _col("extractor_version", TEXT, null=True),
        sa.ForeignKeyConstraint(
            ["document_id"], ["documents.id"], name="fk_document_versions_document_id"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_document_versions"),
        sa.UniqueConstraint("document_id", "version_number", name="uq_document_versions_number"),
    )
    op.create_index(
        "ix_document_versions_sha256",
        "document_versions",
        ["namespace", "document_id", "content_sha256"],
    )
    # documents and document_versions reference each other; close the loop now.
    op.create_foreign_key(
        "fk_documents_latest_version_id",
        "documents",
        "document_versions",
        ["latest_version_id"],
        ["id"],
    )
    op.create_table(
        "entity_aliases",
        _col("id", UUID, default="gen_random_uuid()"),
        _col("namespace", TEXT),
        _col("entity_id", UUID),
        _col("alias", TEXT),
        _col("normalized_alias", TEXT),
        _col("phonetic_code", TEXT, null=True),
        _col("mention_count", sa.Integer(), default="1"),
        _col("first_seen_at", TIMESTAMPTZ, default="now()"),
        _col("last_seen_at", TIMESTAMPTZ, default="now()"),
        sa.ForeignKeyConstraint(["entity_id"], ["entities.id"], name="fk_entity_aliases_entity_id"),
        sa.PrimaryKeyConstraint("id", name="pk_entity_aliases"),
        sa.UniqueConstraint("namespace", "entity_id", "normalized_alias", name="uq_entity_aliases"),
    )
    op.create_index(
        "ix_entity_aliases_normalized", "entity_aliases", ["namespace", "normalized_alias"]
    )
    op.create_index("ix_entity_aliases_phonetic", "entity_aliases", ["namespace", "phonetic_code"])
    op.create_table(
        "facts",
        _col("id", UUID, default="gen_random_uuid()"),
        _col("namespace", TEXT),
        _col("kind", TEXT),
        _col("subject_entity_id", UUID),
        _col("predicate", TEXT, null=True),
        _col("object_entity_id", UUID, null=True),
        _col("statement", TEXT),
        _col("label", TEXT),
        _col("valid_from", TIMESTAMPTZ, null=True),
        _col("valid_until", TIMESTAMPTZ, null=True),
        _col("valid_precision", TEXT, default="'unknown'"),
        _col("valid_kind", TEXT, null=True),
        _col("ingested_at", TIMESTAMPTZ, default="now()"),
        _col("invalidated_at", TIMESTAMPTZ, null=True),
        _col("invalidation_reason", TEXT, null=True),
        _col("support", TEXT, default="'current'"),
        _col("evidence_count", sa.Integer(), default="0"),
        _col("contradiction_group_id", UUID, null=True),
        _col("superseded_by_fact_id", UUID, null=True),
        _col("embedding", Vector(384), null=True),
        sa.Column(
            "tsv",
            postgresql.TSVECTOR(),
            sa.Computed("to_tsvector('english', label)", persisted=True),
        ),
        _col("created_at", TIMESTAMPTZ, default="now()"),
        _col("updated_at", TIMESTAMPTZ, default="now()"),
        sa.CheckConstraint("evidence_count >= 0", name=op.f("ck_facts_evidence_count")),
        _check_in("facts", "kind", ("relation", "observation")),
        sa.CheckConstraint(
            _RELATION_SHAPE,
            name=op.f("ck_facts_relation_shape"),
        ),
        _check_in("facts", "support", ("current", "withdrawn")),
        _check_in(
            "facts",
            "valid_kind",
            ("event_time", "effective_period", "measurement_period", "proposition_validity"),
        ),
        _check_in(
            "facts",
            "valid_precision",
            ("unknown", "instant", "day", "month", "quarter", "year", "open"),
        ),
        sa.ForeignKeyConstraint(
            ["contradiction_group_id"],
            ["contradiction_groups.id"],
            name="fk_facts_contradiction_group_id",
        ),
        sa.ForeignKeyConstraint(
            ["object_entity_id"], ["entities.id"], name="fk_facts_object_entity_id"
        ),
        sa.ForeignKeyConstraint(
            ["subject_entity_id"], ["entities.id"], name="fk_facts_subject_entity_id"
        ),
        sa.ForeignKeyConstraint(
            ["superseded_by_fact_id"], ["facts.id"], name="fk_facts_superseded_by_fact_id"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_facts"),
    )
    op.create_index(
        "ix_facts_contradiction_group", "facts", ["namespace", "contradiction_group_id"]
    )
    op.create_index(
        "ix_facts_current",
        "facts",
        ["namespace", "subject_entity_id", "predicate"],
        postgresql_where=sa.text("invalidated_at IS NULL"),
    )
    op.create_index(
        "ix_facts_embedding_hnsw",
        "facts",
        ["embedding"],
        postgresql_using="hnsw",
        postgresql_ops={"embedding": "vector_cosine_ops"},
    )
    op.create_index("ix_facts_kind", "facts", ["namespace", "kind"])
    op.create_index("ix_facts_object", "facts", ["namespace", "object_entity_id", "predicate"])
    for end, other in (("subject", "object"), ("object", "subject")):
        op.create_index(
            f"ix_facts_relation_{end}",
            "facts",
            ["namespace", f"{end}_entity_id", "predicate"],
            postgresql_include=[
                "id",
                "valid_from",
                "valid_until",
                "ingested_at",
                "invalidated_at",
                f"{other}_entity_id",
            ],
            postgresql_where=sa.text("kind = 'relation'::text"),
        )
        # LookupRelations' order, so a hub's first k stream off the index (no sort), with the
        # columns its filters read, so the capped total is an index-only count.
        op.create_index(
            f"ix_facts_relation_{end}_ranked",
            "facts",
            ["namespace", f"{end}_entity_id", "evidence_count", "ingested_at", "id"],
            postgresql_include=[
                "predicate",
                "valid_from",
                "valid_until",
                "valid_kind",
                "invalidated_at",
                "superseded_by_fact_id",
                f"{other}_entity_id",
            ],
            postgresql_where=sa.text("kind = 'relation'::text"),
        )
    op.create_index("ix_facts_subject", "facts", ["namespace", "subject_entity_id", "predicate"])
    op.create_index("ix_facts_tsv", "facts", ["tsv"], postgresql_using="gin")
    op.create_table(
        "merge_events",
        _col("id", UUID, default="gen_random_uuid()"),
        _col("namespace", TEXT),
        _col("survivor_id", UUID),
        _col("absorbed_id", UUID),
        _col("snapshot", JSONB),
        _col("decided_by", TEXT),
        _col("merged_at", TIMESTAMPTZ, default="now()"),
        _col("undone_at", TIMESTAMPTZ, null=True),
        sa.ForeignKeyConstraint(
            ["absorbed_id"], ["entities.id"], name="fk_merge_events_absorbed_id"
        ),
        sa.ForeignKeyConstraint(
            ["survivor_id"], ["entities.id"], name="fk_merge_events_survivor_id"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_merge_events"),
    )
    op.create_index("ix_merge_events_absorbed", "merge_events", ["namespace", "absorbed_id"])
    op.create_index("ix_merge_events_survivor", "merge_events", ["namespace", "survivor_id"])
    op.create_table(
        "merge_proposals",
        _col("id", UUID, default="gen_random_uuid()"),
        _col("namespace", TEXT),
        _col("entity_a_id", UUID),
        _col("entity_b_id", UUID),
        _col("score", sa.Double()),
        _col("expected_impact", sa.Double(), default="0"),
        _col("status", TEXT, default="'open'"),
        _col("evidence", JSONB, default="'{}'"),
        _col("created_at", TIMESTAMPTZ, default="now()"),
        sa.CheckConstraint(
            "entity_a_id < entity_b_id", name=op.f("ck_merge_proposals_ordered_pair")
        ),
        _check_in("merge_proposals", "status", ("open", "accepted", "rejected")),
        sa.ForeignKeyConstraint(
            ["entity_a_id"], ["entities.id"], name="fk_merge_proposals_entity_a_id"
        ),
        sa.ForeignKeyConstraint(
            ["entity_b_id"], ["entities.id"], name="fk_merge_proposals_entity_b_id"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_merge_proposals"),
        sa.UniqueConstraint(
            "namespace", "entity_a_id", "entity_b_id", name="uq_merge_proposals_pair"
        ),
    )
    op.create_index("ix_merge_proposals_status", "merge_proposals", ["namespace", "status"])
    op.create_table(
        "alias_trigrams",
        _col("namespace", TEXT),
        _col("trigram", TEXT),
        _col("alias_grams", sa.SmallInteger()),
        _col("alias_id", UUID),
        sa.ForeignKeyConstraint(
            ["alias_id"],
            ["entity_aliases.id"],
            name="fk_alias_trigrams_alias_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "namespace", "trigram", "alias_grams", "alias_id", name="pk_alias_trigrams"
        ),
    )
    op.create_index("ix_alias_trigrams_alias", "alias_trigrams", ["alias_id"])
    op.create_table(
        "claims",
        _col("id", UUID, default="gen_random_uuid()"),
        _col("namespace", TEXT),
        _col("document_id", UUID),
        _col("first_version_id", UUID),
        _col("chunk_id", UUID),
        _col("claim_text", TEXT),
        _col("normalized_text", TEXT),
        _col("source_span", TEXT),
        _col("char_start", sa.Integer()),
        _col("char_end", sa.Integer()),
        _col("chunk_char_start", sa.Integer()),
        _col("chunk_char_end", sa.Integer()),
        _col("evidence_spans", JSONB, default="'[]'"),
        _col("asserted_at", TIMESTAMPTZ, null=True),
        _col("claim_valid_from", TIMESTAMPTZ, null=True),
        _col("claim_valid_until", TIMESTAMPTZ, null=True),
        _col("claim_valid_precision", TEXT, default="'unknown'"),
        _col("claim_valid_kind", TEXT, null=True),
        _col("is_attributed", sa.Boolean(), default="false"),
        _col("holder", TEXT, null=True),
        _col("polarity", TEXT, default="'positive'"),
        _col("subject_text", TEXT, null=True),
        _col("predicate_text", TEXT, null=True),
        _col("object_text", TEXT, null=True),
        _col("speaker", TEXT, null=True),
        _col("turn_id", TEXT, null=True),
        _col("extractor_name", TEXT),
        _col("extractor_version", TEXT),
        _col("is_current_testimony", sa.Boolean(), default="true"),
        _col("currency_reason", TEXT, null=True),
        _col("dedupe_key", TEXT),
        _col("embedding", Vector(384), null=True),
        sa.Column(
            "tsv",
            postgresql.TSVECTOR(),
            sa.Computed("to_tsvector('english', claim_text)", persisted=True),
        ),
        _col("created_at", TIMESTAMPTZ, default="now()"),
        sa.CheckConstraint("chunk_char_start <= chunk_char_end", name=op.f("ck_claims_chunk_span")),
        _check_in(
            "claims",
            "claim_valid_kind",
            ("event_time", "effective_period", "measurement_period", "proposition_validity"),
            nullable=True,
        ),
        _check_in(
            "claims",
            "claim_valid_precision",
            ("unknown", "instant", "day", "month", "quarter", "year", "open"),
        ),
        _check_in(
            "claims",
            "currency_reason",
            ("reextracted", "version_superseded", "version_deleted"),
            nullable=True,
        ),
        _check_in("claims", "polarity", ("positive", "negative")),
        sa.CheckConstraint("char_start <= char_end", name=op.f("ck_claims_span")),
        sa.ForeignKeyConstraint(["chunk_id"], ["chunks.id"], name="fk_claims_chunk_id"),
        sa.ForeignKeyConstraint(["document_id"], ["documents.id"], name="fk_claims_document_id"),
        sa.ForeignKeyConstraint(
            ["first_version_id"], ["document_versions.id"], name="fk_claims_first_version_id"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_claims"),
        sa.UniqueConstraint("namespace", "dedupe_key", name="uq_claims_dedupe"),
    )
    op.create_index("ix_claims_chunk", "claims", ["namespace", "chunk_id"])
    op.create_index(
        "ix_claims_document_current", "claims", ["namespace", "document_id", "is_current_testimony"]
    )
    op.create_index(
        "ix_claims_embedding_hnsw",
        "claims",
        ["embedding"],
        postgresql_using="hnsw",
        postgresql_ops={"embedding": "vector_cosine_ops"},
    )
    op.create_index("ix_claims_normalized_text", "claims", ["namespace", "normalized_text"])
    op.create_index("ix_claims_tsv", "claims", ["tsv"], postgresql_using="gin")
    op.create_table(
        "version_chunks",
        _col("namespace", TEXT),
        _col("version_id", UUID),
        _col("chunk_id", UUID),
        _col("ordinal", sa.Integer()),
        _col("char_start", sa.Integer()),
        _col("char_end", sa.Integer()),
        sa.CheckConstraint("char_start <= char_end", name=op.f("ck_version_chunks_span")),
        sa.ForeignKeyConstraint(["chunk_id"], ["chunks.id"], name="fk_version_chunks_chunk_id"),
        sa.ForeignKeyConstraint(
            ["version_id"], ["document_versions.id"], name="fk_version_chunks_version_id"
        ),
        sa.PrimaryKeyConstraint("version_id", "ordinal", name="pk_version_chunks"),
    )
    op.create_index("ix_version_chunks_chunk", "version_chunks", ["namespace", "chunk_id"])
    op.create_table(
        "version_stages",
        _col("namespace", TEXT),
        _col("version_id", UUID),
        _col("stage", TEXT),
        _col("status", TEXT, default="'pending'"),
        _col("attempts", sa.Integer(), default="0"),
        _col("last_error", TEXT, null=True),
        _col("updated_at", TIMESTAMPTZ, default="now()"),
        _check_in(
            "version_stages", "stage", ("convert", "chunk", "extract", "embed", "adjudicate")
        ),
        _check_in(
            "version_stages",
            "status",
            ("pending", "running", "succeeded", "failed", "dead_letter", "skipped"),
        ),
        sa.ForeignKeyConstraint(
            ["version_id"], ["document_versions.id"], name="fk_version_stages_version_id"
        ),
        sa.PrimaryKeyConstraint("version_id", "stage", name="pk_version_stages"),
    )
    op.create_index("ix_version_stages_namespace_status", "version_stages", ["namespace", "status"])
    op.create_table(
        "work_items",
        _col("id", UUID, default="gen_random_uuid()"),
        _col("namespace", TEXT),
        _col("kind", TEXT),
        _col("payload", JSONB, default="'{}'"),
        _col("status", TEXT, default="'pending'"),
        _col("attempts", sa.Integer(), default="0"),
        _col("max_attempts", sa.Integer(), default="3"),
        _col("run_after", TIMESTAMPTZ, default="now()"),
        _col("locked_by", TEXT, null=True),
        _col("locked_until", TIMESTAMPTZ, null=True),
        _col("last_error", TEXT, null=True),
        _col("dedupe_key", TEXT, null=True),
        _col("version_id", UUID, null=True),
        _col("result", JSONB, null=True),
        _col("created_at", TIMESTAMPTZ, default="now()"),
        _col("updated_at", TIMESTAMPTZ, default="now()"),
        _check_in(
            "work_items", "status", ("pending", "running", "succeeded", "failed", "dead_letter")
        ),
        sa.ForeignKeyConstraint(
            ["version_id"], ["document_versions.id"], name="fk_work_items_version_id"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_work_items"),
    )
    op.create_index("ix_work_items_claimable", "work_items", ["status", "run_after"])
    op.create_index("ix_work_items_version", "work_items", ["namespace", "version_id"])
    op.create_index(
        "uq_work_items_dedupe",
        "work_items",
        ["namespace", "kind", "dedupe_key"],
        unique=True,
        postgresql_where=sa.text("dedupe_key IS NOT NULL"),
    )
    op.create_table(
        "assertions",
        _col("id", UUID, default="gen_random_uuid()"),
        _col("namespace", TEXT),
        _col("claim_id", UUID),
        _col("kind", TEXT),
        _col("subject_entity_id", UUID),
        _col("predicate", TEXT, null=True),
        _col("object_entity_id", UUID, null=True),
        _col("statement", TEXT),
        _col("polarity", TEXT, default="'positive'"),
        _col("valid_from", TIMESTAMPTZ, null=True),
        _col("valid_until", TIMESTAMPTZ, null=True),
        _col("valid_precision", TEXT, default="'unknown'"),
        _col("fact_id", UUID, null=True),
        _col("outcome", TEXT, null=True),
        _col("dedupe_key", TEXT),
        _col("created_at", TIMESTAMPTZ, default="now()"),
        _check_in("assertions", "kind", ("relation", "observation")),
        _check_in("assertions", "polarity", ("positive", "negative")),
        sa.CheckConstraint(
            _RELATION_SHAPE,
            name=op.f("ck_assertions_relation_shape"),
        ),
        _check_in(
            "assertions",
            "valid_precision",
            ("unknown", "instant", "day", "month", "quarter", "year", "open"),
        ),
        sa.ForeignKeyConstraint(["claim_id"], ["claims.id"], name="fk_assertions_claim_id"),
        sa.ForeignKeyConstraint(["fact_id"], ["facts.id"], name="fk_assertions_fact_id"),
        sa.ForeignKeyConstraint(
            ["object_entity_id"], ["entities.id"], name="fk_assertions_object_entity_id"
        ),
        sa.ForeignKeyConstraint(
            ["subject_entity_id"], ["entities.id"], name="fk_assertions_subject_entity_id"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_assertions"),
        sa.UniqueConstraint("namespace", "claim_id", "dedupe_key", name="uq_assertions_dedupe"),
    )
    op.create_index("ix_assertions_fact", "assertions", ["namespace", "fact_id"])
    op.create_index("ix_assertions_subject", "assertions", ["namespace", "subject_entity_id"])
    op.create_table(
        "fact_evidence",
        _col("id", UUID, default="gen_random_uuid()"),
        _col("namespace", TEXT),
        _col("fact_id", UUID),
        _col("claim_id", UUID),
        _col("document_id", UUID),
        _col("stance", TEXT),
        _col("linked_at", TIMESTAMPTZ, default="now()"),
        _check_in("fact_evidence", "stance", ("supports", "contradicts")),
        sa.ForeignKeyConstraint(["claim_id"], ["claims.id"], name="fk_fact_evidence_claim_id"),
        sa.ForeignKeyConstraint(
            ["document_id"], ["documents.id"], name="fk_fact_evidence_document_id"
        ),
        sa.ForeignKeyConstraint(["fact_id"], ["facts.id"], name="fk_fact_evidence_fact_id"),
        sa.PrimaryKeyConstraint("id", name="pk_fact_evidence"),
        sa.UniqueConstraint("fact_id", "claim_id", name="uq_fact_evidence_link"),
    )
    op.create_index("ix_fact_evidence_claim", "fact_evidence", ["namespace", "claim_id"])
    op.create_table(
        "resolution_verdicts",
        _col("id", UUID, default="gen_random_uuid()"),
        _col("namespace", TEXT),
        _col("claim_id", UUID, null=True),
        _col("mention_text", TEXT),
        _col("role", TEXT),
        _col("step", TEXT),
        _col("scores", JSONB, default="'{}'"),
        _col("chosen_entity_id", UUID, null=True),
        _col("created_new", sa.Boolean(), default="false"),
        _col("resolver_version", TEXT),
        _col("created_at", TIMESTAMPTZ, default="now()"),
        _check_in("resolution_verdicts", "role", ("subject", "object", "holder")),
        _check_in(
            "resolution_verdicts",
            "step",
            ("exact_alias", "trigram", "phonetic", "embedding", "model", "new"),
        ),
        sa.ForeignKeyConstraint(
            ["chosen_entity_id"], ["entities.id"], name="fk_resolution_verdicts_chosen_entity_id"
        ),
        sa.ForeignKeyConstraint(
            ["claim_id"], ["claims.id"], name="fk_resolution_verdicts_claim_id"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_resolution_verdicts"),
    )
    op.create_index(
        "ix_resolution_verdicts_claim", "resolution_verdicts", ["namespace", "claim_id"]
    )
    op.create_index(
        "ix_resolution_verdicts_entity", "resolution_verdicts", ["namespace", "chosen_entity_id"]
    )
    op.create_table(
        "testimony_events",
        _col("id", UUID, default="gen_random_uuid()"),
        _col("namespace", TEXT),
        _col("claim_id", UUID),
        _col("event", TEXT),
        _col("version_id", UUID, null=True),
        _col("occurred_at", TIMESTAMPTZ, default="now()"),
        _check_in(
            "testimony_events",
            "event",
            ("asserted", "reextracted", "version_superseded", "version_deleted"),
        ),
        sa.ForeignKeyConstraint(["claim_id"], ["claims.id"], name="fk_testimony_events_claim_id"),
        sa.ForeignKeyConstraint(
            ["version_id"], ["document_versions.id"], name="fk_testimony_events_version_id"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_testimony_events"),
    )
    op.create_index(
        "ix_testimony_events_claim", "testimony_events", ["namespace", "claim_id", "occurred_at"]
    )
    op.create_table(
        "version_claims",
        _col("namespace", TEXT),
        _col("version_id", UUID),
        _col("claim_id", UUID),
        sa.ForeignKeyConstraint(["claim_id"], ["claims.id"], name="fk_version_claims_claim_id"),
        sa.ForeignKeyConstraint(
            ["version_id"], ["document_versions.id"], name="fk_version_claims_version_id"
        ),
        sa.PrimaryKeyConstraint("version_id", "claim_id", name="pk_version_claims"),
    )
    op.create_index("ix_version_claims_claim", "version_claims", ["namespace", "claim_id"])
    op.create_table(
        "decision_transcripts",
        _col("id", UUID, default="gen_random_uuid()"),
        _col("namespace", TEXT),
        _col("fact_id", UUID),
        _col("related_fact_id", UUID, null=True),
        _col("assertion_id", UUID, null=True),
        _col("claim_id", UUID, null=True),
        _col("outcome", TEXT),
        _col("method", TEXT),
        _col("engine", TEXT, null=True),
        _col("model", TEXT, null=True),
        _col("confidence", sa.Double(), null=True),
        _col("rationale", TEXT, null=True),
        _col("window_before", JSONB, null=True),
        _col("window_after", JSONB, null=True),
        _col("decided_by", TEXT),
        _col("decided_at", TIMESTAMPTZ, default="now()"),
        _check_in(
            "decision_transcripts",
            "outcome",
            (
                "add",
                "noop",
                "update",
                "contradict",
                "retracted_source_removal",
                "withdrawn",
                "restored",
            ),
        ),
        sa.ForeignKeyConstraint(
            ["assertion_id"], ["assertions.id"], name="fk_decision_transcripts_assertion_id"
        ),
        sa.ForeignKeyConstraint(
            ["claim_id"], ["claims.id"], name="fk_decision_transcripts_claim_id"
        ),
        sa.ForeignKeyConstraint(["fact_id"], ["facts.id"], name="fk_decision_transcripts_fact_id"),
        sa.ForeignKeyConstraint(
            ["related_fact_id"], ["facts.id"], name="fk_decision_transcripts_related_fact_id"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_decision_transcripts"),
    )
    op.create_index(
        "ix_decision_transcripts_fact",
        "decision_transcripts",
        ["namespace", "fact_id", "decided_at"],
    )


def downgrade() -> None:
    # The extension stays: other schemas in the database may use it.
    op.drop_constraint("fk_documents_latest_version_id", "documents", type_="foreignkey")
    for table in reversed(_TABLES):
        op.drop_table(table)
