"""Claims-layer reads inside one snapshot: ClaimsAndSourcesContext, SearchClaims, SearchChunks."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncConnection

from services.query import claims_repository as claims_repo
from services.query.domain import (
    Channel,
    ChunkView,
    ClaimsContextQuery,
    ClaimsContextResult,
    ClaimView,
    SearchChunksResult,
    SearchClaimsResult,
    SearchQuery,
)
from services.query.repository import resolve_entities
from services.query.retrieval import rrf, single_channel_scores, vector_channel
from services.query.temporal import scope_params
from shared.proto_convert import NegativeAnswer, TruncationInfo

# A chunks channel (alias `t`) restricted to chunks holding claims about the entities.
_CHUNK_MENTIONS = (
    "t.id IN (SELECT t.chunk_id FROM claims t WHERE t.namespace = :ns AND "
    + claims_repo.MENTIONS_ENTITIES
    + ")"
)


async def nominate(
    conn: AsyncConnection,
    table: str,
    namespace: str,
    query: str,
    query_vector: str | None,
    limit: int,
    channel: Channel,
    *,
    where: str = "",
    params: dict[str, Any] | None = None,
) -> tuple[list[tuple[UUID, float]], bool]:
    """Candidates of one table by channel, best first, and whether a channel hit `limit`.

    A filtered nomination ranks exactly: the filter, not the index, decides the candidate set."""
    rankings: list[list[UUID]] = []
    if channel in ("semantic", "fused") and query_vector is not None:
        rankings.append(
            await vector_channel(
                conn,
                table,
                namespace,
                query_vector,
                limit,
                where=where,
                params=params,
                exact=bool(where),
            )
        )
    if channel in ("lexical", "fused"):
        rankings.append(
            await claims_repo.bm25_channel(
                conn, table, namespace, query, limit, where=where, params=params
            )
        )
    saturated = any(len(ranking) >= limit for ranking in rankings)
    fused = (
        rrf(rankings)
        if len(rankings) > 1
        else single_channel_scores(rankings[0] if rankings else [])
    )
    return fused, saturated


def _in_order(fused: Sequence[tuple[UUID, float]], hydrated: dict[UUID, Any]) -> list[Any]:
    ordered = []
    for item, score in fused:
        view = hydrated.get(item)
        if view is not None:
            view.score = score
            ordered.append(view)
    return ordered


def _truncation(returned: int, qualified: int, k_hit: bool, saturated: bool) -> TruncationInfo:
    """k cut the ranked list, or a channel hit its candidate budget so more may exist."""
    cut = k_hit or saturated
    return TruncationInfo(
        truncated=cut,
        returned=returned,
        estimated_total=qualified,
        total_is_exact=not saturated,
        reasons=("result_budget",) if cut else (),
    )


def _empty(what: str) -> NegativeAnswer:
    return NegativeAnswer(
        kind="known_empty",
        explanation=f"no current {what} matches the query in this namespace",
        workaround="rephrase the query, widen the time scope, or wait for ingestion readiness",
    )


async def claims_context(
    conn: AsyncConnection, q: ClaimsContextQuery, query_vector: str | None, now: datetime
) -> ClaimsContextResult:
    where, bind, chunk_where = "", {}, ""
    if q.entity_ids:
        known = await resolve_entities(conn, q.namespace, q.entity_ids)
        if not known:
            return ClaimsContextResult(
                claims=[],
                chunks=[],
                scope=q.scope,
                truncation=_truncation(0, 0, False, False),
                dropped_by_hydration=0,
                negative=NegativeAnswer(
                    kind="unknown_entity",
                    explanation="none of the entity_ids exists in this namespace",
                    workaround="resolve the names with ResolveEntity first",
                ),
                evaluated_at=now,
            )
        where, chunk_where = claims_repo.MENTIONS_ENTITIES, _CHUNK_MENTIONS
        bind = {"ents": list({ref.entity_id for ref in known.values()})}

    fused, claims_saturated = await nominate(
        conn,
        "claims",
        q.namespace,
        q.query,
        query_vector,
        q.candidate_k,
        "fused",
        where=where,
        params=bind,
    )
    hydrated = await claims_repo.hydrate_claims(
        conn, q.namespace, [item for item, _ in fused], q.scope, scope_params(q.scope, now)
    )
    dropped = len(fused) - len(hydrated)
    shown: dict[tuple[object, ...], ClaimView] = {}
    for claim in _in_order(fused, hydrated):
        shown.setdefault(claim.group_key(), claim)
    claims = list(shown.values())[: q.k]
    await claims_repo.corroborate(conn, q.namespace, claims)

    fused_chunks, chunks_saturated = await nominate(
        conn,
        "chunks",
        q.namespace,
        q.query,
        query_vector,
        q.candidate_k,
        "fused",
        where=chunk_where,
        params=bind,
    )
    live_chunks = await claims_repo.hydrate_chunks(
        conn, q.namespace, [item for item, _ in fused_chunks]
    )
    dropped += len(fused_chunks) - len(live_chunks)
    ranked_chunks: list[ChunkView] = _in_order(fused_chunks, live_chunks)
    chunks = ranked_chunks[: q.k]

    k_hit = len(shown) > q.k or len(ranked_chunks) > q.k
    return ClaimsContextResult(
        claims=claims,
        chunks=chunks,
        scope=q.scope,
        truncation=_truncation(
            len(claims) + len(chunks),
            len(shown) + len(ranked_chunks),
            k_hit,
            claims_saturated or chunks_saturated,
        ),
        dropped_by_hydration=dropped,
        negative=_empty("claim or chunk") if not claims and not chunks else None,
        evaluated_at=now,
    )


def _search_pool(k: int) -> int:
    return min(max(2 * k, 50), 1000)


async def search_claims(
    conn: AsyncConnection, q: SearchQuery, query_vector: str | None
) -> SearchClaimsResult:
    fused, saturated = await nominate(
        conn, "claims", q.namespace, q.query, query_vector, _search_pool(q.k), q.channel
    )
    hydrated = await claims_repo.hydrate_claims(conn, q.namespace, [i for i, _ in fused], None, {})
    ranked: list[ClaimView] = _in_order(fused, hydrated)
    claims = ranked[: q.k]
    return SearchClaimsResult(
        claims=claims,
        truncation=_truncation(len(claims), len(ranked), len(ranked) > q.k, saturated),
        dropped_by_hydration=len(fused) - len(hydrated),
        negative=None if claims else _empty("claim"),
    )


async def search_chunks(
    conn: AsyncConnection, q: SearchQuery, query_vector: str | None
) -> SearchChunksResult:
    fused, saturated = await nominate(
        conn, "chunks", q.namespace, q.query, query_vector, _search_pool(q.k), q.channel
    )
    hydrated = await claims_repo.hydrate_chunks(conn, q.namespace, [i for i, _ in fused])
    ranked: list[ChunkView] = _in_order(fused, hydrated)
    chunks = ranked[: q.k]
    return SearchChunksResult(
        chunks=chunks,
        truncation=_truncation(len(chunks), len(ranked), len(ranked) > q.k, saturated),
        dropped_by_hydration=len(fused) - len(hydrated),
        negative=None if chunks else _empty("chunk"),
    )
