"""Claims-layer reads inside one snapshot: ClaimsAndSourcesContext, SearchClaims, SearchChunks."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
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


# Channel weights of the fused ranking. Once the speakers a question names are taken out of the
# lexical query (see lexical_query), its words are the content words, and both channels count
# alike.
VECTOR_WEIGHT = 1.0
LEXICAL_WEIGHT = 1.0
# The speaker ranking (candidates said by a person the query names, in fused order): "what did
# Dana say about the launch" is mostly answered by Dana's own turns and claims.
SPEAKER_WEIGHT = 0.5
# How much a candidate borrows from its partner layer: a claim from the chunk it was read from,
# a chunk from its best claim. A claim restates its turn with references resolved, a chunk keeps
# the words the claim paraphrased away, so each vouches for the other.
SUPPORT_WEIGHT = 0.25
# A turn's share of its better adjacent turn's score (see with_neighbours), and the larger share
# a reply takes from the turn before it when that turn ends with a question: the reply answers
# what the question asked, usually without repeating its words.
NEIGHBOUR_WEIGHT = 0.3
ANSWER_WEIGHT = 0.6

# A conversation line (SPEC §1): `[<turn-id> | <timestamp>] <speaker>: <text>`.
_TURN_SPEAKER = re.compile(r"^\[[^\]|\n]+\|[^\]\n]*\][ \t]*([^:\n]{1,80}):", re.MULTILINE)
# Trailing bracketed annotations ("[image: ...]") after what a turn says.
_TRAILING_NOTE = re.compile(r"(\s*\[[^\[\]]*\])+\s*$")


def weighted_rrf(rankings: Sequence[tuple[Sequence[UUID], float]]) -> dict[UUID, float]:
    """Reciprocal-rank fusion (the scale facts are fused on) where each ranking counts with
    its weight."""
    scores: dict[UUID, float] = {}
    for ranking, weight in rankings:
        for item, score in single_channel_scores(ranking):
            scores[item] = scores.get(item, 0.0) + weight * score
    return scores


def ends_with_question(chunk_text: str) -> bool:
    """The chunk's last words (bracketed annotations aside) ask a question."""
    return _TRAILING_NOTE.sub("", chunk_text).rstrip().endswith("?")


def with_neighbours(chunks: list[ChunkView]) -> list[ChunkView]:
    """Each chunk also counts a share of its better adjacent candidate's score, reordered.

    A reply rarely repeats the words of the question it answers, so the turn before it
    vouches for it (more when that turn asks a question), and a question turn for the reply
    that follows."""
    own = {(c.version_id, c.ordinal): c for c in chunks}
    lifts = []
    for chunk in chunks:
        before = own.get((chunk.version_id, chunk.ordinal - 1))
        after = own.get((chunk.version_id, chunk.ordinal + 1))
        answers = before is not None and ends_with_question(before.text)
        lifts.append(
            max(
                (ANSWER_WEIGHT if answers else NEIGHBOUR_WEIGHT)
                * (before.score if before else 0.0),
                NEIGHBOUR_WEIGHT * (after.score if after else 0.0),
            )
        )
    for chunk, lift in zip(chunks, lifts, strict=True):
        chunk.score += lift
    return sorted(chunks, key=lambda c: (-c.score, str(c.chunk_id)))


def chunk_speakers(chunk_text: str) -> set[str]:
    """Who speaks in a conversation chunk (nobody for prose)."""
    return {name.strip() for name in _TURN_SPEAKER.findall(chunk_text) if name.strip()}


def _name_words(name: str) -> list[str]:
    # Capitalised words only: a name is written capitalised, and "will" or "may" in a question
    # must not name a speaker called Will or May.
    return [w for w in re.findall(r"[^\W\d_][\w'-]*", name) if len(w) > 1 and w[0].isupper()]


def named_speakers(query: str, speakers: Iterable[str]) -> set[str]:
    """The speakers the query names: a word of the name appears in it as a whole word."""
    return {
        name
        for name in set(speakers)
        if any(re.search(rf"\b{re.escape(w)}\b", query) for w in _name_words(name))
    }


def lexical_query(query: str, speakers: Iterable[str]) -> str:
    """The query for the lexical channel without the names of the speakers it names.

    A speaker's name is in every line they say and in the other side's greetings, so as a term it
    ranks by talkativeness; the speaker ranking carries that part of the question instead."""
    words = {w for name in speakers for w in _name_words(name)}
    for word in sorted(words, key=len, reverse=True):
        query = re.sub(rf"\b{re.escape(word)}(?:'s)?\b", " ", query)
    return " ".join(query.split())


def speaker_ranking(
    fused: Sequence[tuple[UUID, float]], speakers: dict[UUID, set[str]], named: set[str]
) -> list[UUID]:
    """The fused candidates said by a named speaker, in fused order."""
    return [item for item, _ in fused if speakers.get(item, set()) & named]


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

    pool = q.candidate_k
    scope_bind = scope_params(q.scope, now)
    # The vector channels first: their candidates tell which speakers the question names, and
    # those names leave the lexical query (lexical_query).
    claim_vec: list[UUID] = []
    chunk_vec: list[UUID] = []
    if query_vector is not None:
        claim_vec = await vector_channel(
            conn,
            "claims",
            q.namespace,
            query_vector,
            pool,
            where=where,
            params=bind,
            exact=bool(where),
        )
        chunk_vec = await vector_channel(
            conn,
            "chunks",
            q.namespace,
            query_vector,
            pool,
            where=chunk_where,
            params=bind,
            exact=bool(chunk_where),
        )
    hydrated = await claims_repo.hydrate_claims(conn, q.namespace, claim_vec, q.scope, scope_bind)
    live_chunks = await claims_repo.hydrate_chunks(conn, q.namespace, chunk_vec)
    spoken = {c.speaker for c in hydrated.values() if c.speaker}
    for chunk in live_chunks.values():
        spoken |= chunk_speakers(chunk.text)
    named = named_speakers(q.query, spoken)
    words = lexical_query(q.query, named)
    claim_lex = await claims_repo.bm25_channel(
        conn, "claims", q.namespace, words, pool, where=where, params=bind
    )
    chunk_lex = await claims_repo.bm25_channel(
        conn, "chunks", q.namespace, words, pool, where=chunk_where, params=bind
    )
    hydrated |= await claims_repo.hydrate_claims(
        conn, q.namespace, [c for c in claim_lex if c not in hydrated], q.scope, scope_bind
    )
    live_chunks |= await claims_repo.hydrate_chunks(
        conn, q.namespace, [c for c in chunk_lex if c not in live_chunks]
    )
    saturated = any(len(r) >= pool for r in (claim_vec, chunk_vec, claim_lex, chunk_lex))
    claim_scores = _fused(
        [(claim_vec, VECTOR_WEIGHT), (claim_lex, LEXICAL_WEIGHT)],
        {c.claim_id: {c.speaker} for c in hydrated.values() if c.speaker},
        named,
    )
    chunk_scores = _fused(
        [(chunk_vec, VECTOR_WEIGHT), (chunk_lex, LEXICAL_WEIGHT)],
        {c.chunk_id: chunk_speakers(c.text) for c in live_chunks.values()},
        named,
    )
    dropped = len(claim_scores.keys() - hydrated.keys())
    dropped += len(chunk_scores.keys() - live_chunks.keys())
    claim_scores = {c: s for c, s in claim_scores.items() if c in hydrated}
    # Each layer borrows from the other: a chunk its best live claim's own score, then its
    # neighbours' share; a claim its chunk's resulting score (a chunk no channel named and
    # holding no candidate claim scores 0).
    best_claim: dict[UUID, float] = {}
    for claim_id, own in claim_scores.items():
        chunk_id = hydrated[claim_id].chunk_id
        best_claim[chunk_id] = max(best_claim.get(chunk_id, 0.0), own)
    missing = [c for c in best_claim if c not in chunk_scores and c not in live_chunks]
    live_chunks |= await claims_repo.hydrate_chunks(conn, q.namespace, missing)
    fused_chunks = _ordered(
        {
            chunk_id: chunk_scores.get(chunk_id, 0.0)
            + SUPPORT_WEIGHT * best_claim.get(chunk_id, 0.0)
            for chunk_id in chunk_scores.keys() | best_claim.keys()
        }
    )
    ranked_chunks = with_neighbours(_in_order(fused_chunks, live_chunks))
    chunks = ranked_chunks[: q.k]

    chunk_final = {chunk.chunk_id: chunk.score for chunk in ranked_chunks}
    fused = _ordered(
        {
            claim_id: score + SUPPORT_WEIGHT * chunk_final.get(hydrated[claim_id].chunk_id, 0.0)
            for claim_id, score in claim_scores.items()
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
            len(claims) + len(chunks), len(shown) + len(ranked_chunks), k_hit, saturated
        ),
        dropped_by_hydration=dropped,
        negative=_empty("claim or chunk") if not claims and not chunks else None,
        evaluated_at=now,
    )


def _fused(
    rankings: Sequence[tuple[Sequence[UUID], float]],
    speakers: dict[UUID, set[str]],
    named: set[str],
) -> dict[UUID, float]:
    """Weighted RRF of the channels, plus the speaker ranking when the query names a speaker."""
    scores = weighted_rrf(rankings)
    if not named:
        return scores
    by_speaker = speaker_ranking(_ordered(scores), speakers, named)
    return weighted_rrf([*rankings, (by_speaker, SPEAKER_WEIGHT)])


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
