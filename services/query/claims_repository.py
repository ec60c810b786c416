"""SQL reads of the claims layer: claim and chunk hydration, corroboration, documents."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.engine import Row
from sqlalchemy.ext.asyncio import AsyncConnection

from services.query.collection_sizes import CollectionSizes
from services.query.domain import ChunkView, ClaimView, DocumentView
from services.query.retrieval import TSQUERY
from services.query.temporal import claim_scope_clause
from shared.timescope import TimeScope

__all__ = [
    "BM25_B",
    "BM25_K1",
    "MENTIONS_ENTITIES",
    "adjacent_chunks",
    "bm25_channel",
    "claims_by_ids",
    "corroborate",
    "documents",
    "hydrate_chunks",
    "hydrate_claims",
]

BM25_K1 = 1.2
BM25_B = 0.5
_LEXICAL_TABLES = frozenset({"claims", "chunks"})

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


# Restricts a claims channel (alias `t`, binds :ns and :ents) to claims resolved to entities.
MENTIONS_ENTITIES = (
    "t.id IN (SELECT a.claim_id FROM assertions a WHERE a.namespace = :ns"
    " AND (a.subject_entity_id = ANY(CAST(:ents AS uuid[]))"
    " OR a.object_entity_id = ANY(CAST(:ents AS uuid[])))"
    " UNION SELECT rv.claim_id FROM resolution_verdicts rv WHERE rv.namespace = :ns"
    " AND rv.chosen_entity_id = ANY(CAST(:ents AS uuid[])) AND rv.claim_id IS NOT NULL)"
)


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


# Okapi BM25 over the rows matching any query lexeme. Every row holding a query lexeme is in
# that match set, so counting the set's rows per lexeme gives the exact namespace document
# frequency; the collection size is one count, and the mean length is the match set's (a
# bounded stand-in for the namespace mean). Lengths are distinct lexemes (`length(tsvector)`).
# A row's query lexemes (with their positions, for tf) are cut out of its tsvector in C:
# weight A is set on them and everything else filtered out, instead of unnesting every lexeme
# of every matching row (560k rows for a 4-word query over 200k chunks: 650 of 1,100 ms);
# IDF is computed once per lexeme, not once per (row, lexeme) in numeric arithmetic.
_BM25_SQL = """
WITH q AS (SELECT {tsquery} AS tsq),
terms AS (SELECT DISTINCT u.lexeme FROM unnest(to_tsvector('english', :q)) u),
m AS MATERIALIZED (
  SELECT t.id, t.tsv FROM {table} t, q WHERE t.namespace = :ns AND t.tsv @@ q.tsq{extra}),
hits AS MATERIALIZED (
  SELECT m.id, u.lexeme, coalesce(cardinality(u.positions), 1) AS tf, length(m.tsv) AS dl
  FROM m CROSS JOIN LATERAL unnest(ts_filter(
    setweight(m.tsv, 'A', (SELECT array_agg(lexeme) FROM terms)), '{{a}}')) u),
size AS (
  SELECT {collection_size} AS n,
         (SELECT greatest(avg(length(m.tsv)), 1) FROM m) AS avgdl),
idf AS (
  SELECT d.lexeme, ln(1 + (size.n - d.df + 0.5) / (d.df + 0.5)) AS idf
  FROM (SELECT lexeme, count(*) AS df FROM hits GROUP BY lexeme) d CROSS JOIN size)
SELECT h.id FROM hits h JOIN idf USING (lexeme) CROSS JOIN size
CROSS JOIN (SELECT CAST(:k1 AS float8) AS k1, CAST(:b AS float8) AS b) p
GROUP BY h.id
ORDER BY sum(idf.idf
  * h.tf * (p.k1 + 1) / (h.tf + p.k1 * (1 - p.b + p.b * h.dl / size.avgdl))) DESC, h.id
LIMIT :lim
"""


async def bm25_channel(
    conn: AsyncConnection,
    table: str,
    namespace: str,
    query: str,
    limit: int,
    *,
    where: str = "",
    params: dict[str, Any] | None = None,
    sizes: CollectionSizes | None = None,
) -> list[UUID]:
    """Rows of `table` (alias `t`) matching any query term, best BM25 score first.

    Unlike cover density, a term found in few rows of the namespace outweighs one found in
    many, so "adoption agencies" beats the speaker's name that occurs in half the rows.
    `sizes` supplies the namespace's row count (N) when there is no `where`."""
    if table not in _LEXICAL_TABLES:
        raise ValueError(f"{table} has no BM25 channel")
    extra = f" AND ({where})" if where else ""
    collection_size = f"(SELECT count(*) FROM {table} t WHERE t.namespace = :ns{extra})"
    size_bind: dict[str, int] = {}
    if sizes is not None and not where:
        collection_size = "CAST(:n AS bigint)"
        size_bind["n"] = await sizes.size(conn, table, namespace)
    sql = _BM25_SQL.format(
        tsquery=TSQUERY, table=table, extra=extra, collection_size=collection_size
    )
    bind = {
        "ns": namespace,
        "q": query,
        "lim": limit,
        "k1": BM25_K1,
        "b": BM25_B,
        **size_bind,
        **(params or {}),
    }
    rows = await conn.execute(text(sql), bind)
    return [row[0] for row in rows]
