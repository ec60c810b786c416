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
from services.query.retrieval import single_channel_scores, vector_channel
from services.query.temporal import scope_params
from shared.proto_convert import NegativeAnswer, TruncationInfo

# A chunks channel (alias `t`) restricted to chunks holding claims about the entities.
_CHUNK_MENTIONS = (
    "t.id IN (SELECT t.chunk_id FROM claims t WHERE t.namespace = :ns AND "
    + claims_repo.MENTIONS_ENTITIES
    + ")"
)


# Channel weights of the fused ranking. A conversation turn is short: the rare words a question
# repeats (a place, an object, a name) find it more reliably than the embedding, which rates
# every turn on the same topic alike, so the lexical channel counts for more.
VECTOR_WEIGHT = 1.0
LEXICAL_WEIGHT = 1.5
# How much a candidate borrows from its partner layer: a claim from the chunk it was read from,
# a chunk from its best claim. A claim restates its turn with references resolved, a chunk keeps
# the words the claim paraphrased away, so each vouches for the other.
SUPPORT_WEIGHT = 0.25
# A turn's share of its better adjacent turn's score (see with_neighbours).
NEIGHBOUR_WEIGHT = 0.3


def weighted_rrf(rankings: Sequence[tuple[Sequence[UUID], float]]) -> dict[UUID, float]:
    """Reciprocal-rank fusion (the scale facts are fused on) where each ranking counts with
    its weight."""
    scores: dict[UUID, float] = {}
    for ranking, weight in rankings:
        for item, score in single_channel_scores(ranking):
            scores[item] = scores.get(item, 0.0) + weight * score
    return scores


def with_neighbours(chunks: list[ChunkView]) -> list[ChunkView]:
    """Each chunk also counts a share of its better adjacent candidate's score, reordered.

    A reply rarely repeats the words of the question it answers, so the turn before it
    vouches for it (and a question turn for the reply that follows)."""
    own = {(c.version_id, c.ordinal): c.score for c in chunks}
    for chunk in chunks:
        before = own.get((chunk.version_id, chunk.ordinal - 1), 0.0)
        after = own.get((chunk.version_id, chunk.ordinal + 1), 0.0)
        chunk.score += NEIGHBOUR_WEIGHT * max(before, after)
    return sorted(chunks, key=lambda c: (-c.score, str(c.chunk_id)))


def _ordered(scores: dict[UUID, float]) -> list[tuple[UUID, float]]:
    return sorted(scores.items(), key=lambda pair: (-pair[1], str(pair[0])))


async def channels(
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
) -> tuple[dict[UUID, float], bool]:
    """Weighted fused scores of one table's candidates, and whether a channel hit `limit`.

    A filtered nomination ranks exactly: the filter, not the index, decides the candidate set."""
    rankings: list[tuple[list[UUID], float]] = []
    if channel in ("semantic", "fused") and query_vector is not None:
        ranking = await vector_channel(
            conn,
            table,
            namespace,
            query_vector,
            limit,
            where=where,
            params=params,
            exact=bool(where),
        )
        rankings.append((ranking, VECTOR_WEIGHT))
    if channel in ("lexical", "fused"):
        ranking = await claims_repo.bm25_channel(
            conn, table, namespace, query, limit, where=where, params=params
        )
        rankings.append((ranking, LEXICAL_WEIGHT))
    saturated = any(len(ranking) >= limit for ranking, _ in rankings)
    return weighted_rrf(rankings), saturated


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

    claim_scores, claims_saturated = await channels(
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
    chunk_scores, chunks_saturated = await channels(
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
    hydrated = await claims_repo.hydrate_claims(
        conn, q.namespace, list(claim_scores), q.scope, scope_params(q.scope, now)
    )
    dropped = len(claim_scores) - len(hydrated)
    # Each layer borrows from the other: a chunk its best live claim's own score, then its
    # neighbours' share; a claim its chunk's resulting score (a chunk no channel named and
    # holding no candidate claim scores 0).
    best_claim: dict[UUID, float] = {}
    for claim in hydrated.values():
        own = claim_scores[claim.claim_id]
        best_claim[claim.chunk_id] = max(best_claim.get(claim.chunk_id, 0.0), own)
    fused_chunks = _ordered(
        {
            chunk_id: chunk_scores.get(chunk_id, 0.0)
            + SUPPORT_WEIGHT * best_claim.get(chunk_id, 0.0)
            for chunk_id in chunk_scores.keys() | best_claim.keys()
        }
    )
    live_chunks = await claims_repo.hydrate_chunks(
        conn, q.namespace, [item for item, _ in fused_chunks]
    )
    dropped += len(chunk_scores.keys() - live_chunks.keys())
    ranked_chunks = with_neighbours(_in_order(fused_chunks, live_chunks))
    chunks = ranked_chunks[: q.k]

    chunk_final = {chunk.chunk_id: chunk.score for chunk in ranked_chunks}
    fused = _ordered(
        {
            claim_id: score + SUPPORT_WEIGHT * chunk_final.get(hydrated[claim_id].chunk_id, 0.0)
            for claim_id, score in claim_scores.items()
            if claim_id in hydrated
        }
    )
    shown: dict[tuple[object, ...], ClaimView] = {}
    for claim in _in_order(fused, hydrated):
        shown.setdefault(claim.group_key(), claim)
    claims = list(shown.values())[: q.k]
    await claims_repo.corroborate(conn, q.namespace, claims)

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
    scores, saturated = await channels(
        conn, "claims", q.namespace, q.query, query_vector, _search_pool(q.k), q.channel
    )
    fused = _ordered(scores)
    hydrated = await claims_repo.hydrate_claims(conn, q.namespace, list(scores), None, {})
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
    scores, saturated = await channels(
        conn, "chunks", q.namespace, q.query, query_vector, _search_pool(q.k), q.channel
    )
    fused = _ordered(scores)
    hydrated = await claims_repo.hydrate_chunks(conn, q.namespace, list(scores))
    ranked: list[ChunkView] = _in_order(fused, hydrated)
    chunks = ranked[: q.k]
    return SearchChunksResult(
        chunks=chunks,
        truncation=_truncation(len(chunks), len(ranked), len(ranked) > q.k, saturated),
        dropped_by_hydration=len(fused) - len(hydrated),
        negative=None if chunks else _empty("chunk"),
    )
