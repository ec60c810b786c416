"""Read-time ResolveEntity: the resolver's tiers without the model step; never picks one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncSession

from services.query.sql.entities import entity_profiles
from shared.answers import NegativeAnswer
from shared.embedding import Embedder, embed_async
from shared.entities import lookup_repository as lookup
from shared.entities.nicknames import short_form_expansions
from shared.entities.normalize import (
    normalize_name,
    phonetic_code,
    trigram_similarity,
    trigrams,
)
from shared.entities.trigram_search import trigram_hits

__all__ = ["FUZZY_SCAN", "Candidate", "ResolveResult", "Tier", "resolve_entity"]

Tier = Literal["exact_alias", "trigram", "phonetic", "embedding"]
# How many matches a fuzzy tier looks at before capping; `total` counts at most this many.
FUZZY_SCAN = 200
_TRIGRAM_FLOOR = 0.3
_EMBEDDING_FLOOR = 0.5


@dataclass(frozen=True)
class Candidate:
    entity_id: UUID
    canonical_name: str
    matched_alias: str
    tier: Tier
    score: float
    profile: str
    context_boosted: bool


@dataclass(frozen=True)
class ResolveResult:
    """Candidates best first; `truncated` when a fuzzy tier had more than `limit`; `total` is
    the number of distinct entities the tier found (at most FUZZY_SCAN for fuzzy tiers)."""

    candidates: list[Candidate]
    truncated: bool
    total: int
    negative: NegativeAnswer | None


async def _tier_hits(
    session: AsyncSession,
    namespace: str,
    tier: Tier,
    norm: str,
    name: str,
    embedder: Embedder | None,
) -> list[lookup.AliasHit]:
    if tier == "exact_alias":
        return await lookup.exact_alias_hits(session, namespace, [norm])
    if tier == "trigram":
        first, *rest = norm.split()
        queries = [norm] + [" ".join([full, *rest]) for full in short_form_expansions(first)]
        hits: list[lookup.AliasHit] = []
        for query in queries:
            hits += await trigram_hits(session, namespace, query, _TRIGRAM_FLOOR, FUZZY_SCAN)
        return hits
    if tier == "phonetic":
        grams = trigrams(norm)
        return [
            lookup.AliasHit(
                h.entity_id,
                h.canonical_name,
                h.normalized_name,
                h.alias,
                h.normalized_alias,
                h.mention_count,
                max(0.5, trigram_similarity(grams, trigrams(h.normalized_alias))),
            )
            for h in await lookup.phonetic_hits(session, namespace, phonetic_code(norm), FUZZY_SCAN)
        ]
    if embedder is None:
        return []
    vector = (await embed_async(embedder, [name]))[0]
    return await lookup.embedding_hits(
        session, namespace, vector.tolist(), _EMBEDDING_FLOOR, FUZZY_SCAN
    )


async def resolve_entity(
    session: AsyncSession,
    namespace: str,
    name: str,
    context_entity_ids: Sequence[UUID],
    limit: int,
    embedder: Embedder | None,
) -> ResolveResult:
    """Candidates of the first tier (T0 exact alias, T1 trigram, T2 phonetic, T3 profile
    embedding) that finds any. Exact matches are never capped; fuzzy tiers keep `limit`.
    Candidates related to a context entity (the entity itself, a current relation, or a shared
    document) move to the front, before the cap, and are never dropped for it."""
    norm = normalize_name(name)
    tiers: tuple[Tier, ...] = ("exact_alias", "trigram", "phonetic", "embedding")
    for tier in tiers if norm else ():
        hits = await _tier_hits(session, namespace, tier, norm, name, embedder)
        best: dict[UUID, lookup.AliasHit] = {}
        for hit in hits:
            if hit.entity_id not in best or hit.score > best[hit.entity_id].score:
                best[hit.entity_id] = hit
        if not best:
            continue
        boosted = await _boosted(session, namespace, list(best), context_entity_ids)
        ranked = sorted(
            best.values(),
            key=lambda h: (
                h.entity_id not in boosted,
                -h.score,
                -h.mention_count,
                h.canonical_name,
            ),
        )
        kept = ranked if tier == "exact_alias" else ranked[:limit]
        profiles = await entity_profiles(session, namespace, [h.entity_id for h in kept])
        candidates = [
            Candidate(
                h.entity_id,
                h.canonical_name,
                h.alias,
                tier,
                round(h.score, 6),
                profiles.get(h.entity_id, ""),
                h.entity_id in boosted,
            )
            for h in kept
        ]
        return ResolveResult(candidates, len(kept) < len(ranked), len(ranked), None)
    return ResolveResult(
        [],
        False,
        0,
        NegativeAnswer(
            kind="unknown_entity",
            explanation=f"no entity matches the name {name!r} by alias, trigram, phonetic code"
            " or profile",
            workaround="check the spelling, try a fuller or shorter form of the name, or search"
            " facts by text instead",
        ),
    )


async def _boosted(
    session: AsyncSession, namespace: str, candidates: list[UUID], context: Sequence[UUID]
) -> set[UUID]:
    if not context:
        return set()
    live = set((await lookup.canonical_ids(session, namespace, context)).values())
    neighbours = await lookup.entity_neighbours(session, namespace, candidates)
    return {c for c in candidates if c in live or neighbours.get(c, set()) & live}
