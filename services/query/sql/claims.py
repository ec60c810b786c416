"""SQL reads of the claims layer: claim and chunk hydration, corroboration, documents."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.engine import Row
from sqlalchemy.ext.asyncio import AsyncConnection

from services.query.domain import ChunkView, ClaimView, DocumentView
from services.query.sql.time_scope import claim_scope_clause
from shared.timescope import TimeScope

__all__ = [
    "adjacent_chunks",
    "claims_by_ids",
    "corroborate",
    "documents",
    "hydrate_chunks",
    "hydrate_claims",
]

_CLAIM_COLUMNS = (
    "c.id, c.document_id, c.first_version_id, c.chunk_id, c.claim_text, c.normalized_text,"
    " c.source_span, c.char_start, c.char_end, c.evidence_spans, c.is_attributed,"
    " c.is_current_testimony, c.asserted_at, c.claim_valid_from, c.claim_valid_until,"
    " c.claim_valid_precision, c.claim_valid_kind, c.holder, c.polarity, c.speaker, c.turn_id,"
    " c.currency_reason, c.extractor_name, c.extractor_version, d.title, d.source_kind"
)
_CLAIM_FROM = (
    " FROM claims c JOIN documents d ON d.namespace = c.namespace AND d.id = c.document_id"
)
_LIVE_CLAIM = "c.is_current_testimony AND d.deleted_at IS NULL"

# A chunk is served only through a version of a live document that is still testimony: any
# version of a snapshot document, only the latest of a living one. The latest such version
# gives the offsets.
_CHUNK_SQL = (
    "SELECT DISTINCT ON (ch.id) ch.id, ch.document_id, vc.version_id, vc.ordinal, vc.char_start,"
    " vc.char_end, ch.text, ch.section_path, d.title, d.source_kind, v.source_modified_time"
    " FROM chunks ch JOIN documents d ON d.namespace = ch.namespace AND d.id = ch.document_id"
    " JOIN version_chunks vc ON vc.namespace = ch.namespace AND vc.chunk_id = ch.id"
    " JOIN document_versions v ON v.namespace = ch.namespace AND v.id = vc.version_id"
    " WHERE ch.namespace = :ns AND ch.id = ANY(CAST(:ids AS uuid[])) AND d.deleted_at IS NULL"
    " AND (d.versioning_mode = 'snapshot' OR v.id = d.latest_version_id)"
    " ORDER BY ch.id, v.version_number DESC, vc.ordinal"
)


def _claim_from_row(row: Row[Any]) -> ClaimView:
    values: tuple[Any, ...] = tuple(row)
    return ClaimView(*values)


async def hydrate_claims(
    conn: AsyncConnection,
    namespace: str,
    ids: Sequence[UUID],
    scope: TimeScope | None,
    params: dict[str, Any],
) -> dict[UUID, ClaimView]:
    """Candidates that are still current testimony of a live document and fit the scope."""
    if not ids:
        return {}
    sql = (
        f"SELECT {_CLAIM_COLUMNS}{_CLAIM_FROM} WHERE c.namespace = :ns"
        f" AND c.id = ANY(CAST(:ids AS uuid[])) AND {_LIVE_CLAIM} AND {claim_scope_clause(scope)}"
    )
    rows = await conn.execute(text(sql), {"ns": namespace, "ids": list(ids), **params})
    return {claim.claim_id: claim for claim in map(_claim_from_row, rows)}


async def claims_by_ids(
    conn: AsyncConnection, namespace: str, ids: Sequence[UUID]
) -> dict[UUID, ClaimView]:
    """Claims whatever their testimony state (hydration of a fact shows everything)."""
    if not ids:
        return {}
    sql = (
        f"SELECT {_CLAIM_COLUMNS}{_CLAIM_FROM}"
        " WHERE c.namespace = :ns AND c.id = ANY(CAST(:ids AS uuid[]))"
    )
    rows = await conn.execute(text(sql), {"ns": namespace, "ids": list(ids)})
    return {claim.claim_id: claim for claim in map(_claim_from_row, rows)}


async def corroborate(conn: AsyncConnection, namespace: str, shown: Sequence[ClaimView]) -> None:
    """Fill corroboration_count (distinct documents) and grouped_claim_ids for each shown claim,
    over every current-testimony claim in the namespace with the same grouping key."""
    if not shown:
        return
    texts = list({claim.normalized_text for claim in shown})
    sql = (
        f"SELECT {_CLAIM_COLUMNS}{_CLAIM_FROM} WHERE c.namespace = :ns"
        f" AND c.normalized_text = ANY(CAST(:texts AS text[])) AND {_LIVE_CLAIM}"
        " ORDER BY c.id"
    )
    rows = await conn.execute(text(sql), {"ns": namespace, "texts": texts})
    groups: dict[tuple[object, ...], list[ClaimView]] = {}
    for claim in map(_claim_from_row, rows):
        groups.setdefault(claim.group_key(), []).append(claim)
    for claim in shown:
        members = groups.get(claim.group_key(), [claim])
        claim.corroboration_count = len({m.doc_id for m in members} | {claim.doc_id})
        claim.grouped_claim_ids = [m.claim_id for m in members if m.claim_id != claim.claim_id]


def _chunk_from_row(row: Row[Any]) -> ChunkView:
    values: tuple[Any, ...] = tuple(row)
    return ChunkView(*values)


async def hydrate_chunks(
    conn: AsyncConnection, namespace: str, ids: Sequence[UUID]
) -> dict[UUID, ChunkView]:
    """Candidates that still belong to a live document's current version set."""
    if not ids:
        return {}
    rows = await conn.execute(text(_CHUNK_SQL), {"ns": namespace, "ids": list(ids)})
    return {chunk.chunk_id: chunk for chunk in map(_chunk_from_row, rows)}


async def adjacent_chunks(
    conn: AsyncConnection, namespace: str, chunk_id: UUID, window: int
) -> list[ChunkView] | None:
    """The chunk and up to `window` neighbours on each side in its serving version; None when
    the chunk is unknown or its document is deleted."""
    anchor = await hydrate_chunks(conn, namespace, [chunk_id])
    if chunk_id not in anchor:
        return None
    center = anchor[chunk_id]
    rows = await conn.execute(
        text(
            "SELECT ch.id, ch.document_id, vc.version_id, vc.ordinal, vc.char_start, vc.char_end,"
            " ch.text, ch.section_path, d.title, d.source_kind, v.source_modified_time"
            " FROM version_chunks vc"
            " JOIN chunks ch ON ch.namespace = vc.namespace AND ch.id = vc.chunk_id"
            " JOIN document_versions v ON v.namespace = vc.namespace AND v.id = vc.version_id"
            " JOIN documents d ON d.namespace = vc.namespace AND d.id = ch.document_id"
            " WHERE vc.namespace = :ns AND vc.version_id = :vid"
            " AND vc.ordinal BETWEEN :lo AND :hi ORDER BY vc.ordinal"
        ),
        {
            "ns": namespace,
            "vid": center.version_id,
            "lo": center.ordinal - window,
            "hi": center.ordinal + window,
        },
    )
    return [_chunk_from_row(row) for row in rows]


async def documents(
    conn: AsyncConnection, namespace: str, ids: Sequence[UUID]
) -> list[DocumentView]:
    if not ids:
        return []
    rows = await conn.execute(
        text(
            "SELECT id, title, source_kind, source_ref, deleted_at FROM documents"
            " WHERE namespace = :ns AND id = ANY(CAST(:ids AS uuid[])) ORDER BY created_at, id"
        ),
        {"ns": namespace, "ids": list(ids)},
    )
    return [DocumentView(*row) for row in rows]
