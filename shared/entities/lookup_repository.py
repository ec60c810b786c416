"""Read-side entity lookups: aliases by exact, phonetic and embedding match, redirects, neighbours.

Used by the write-time resolver (adjudicator) and read-time ResolveEntity (query); none of these
functions writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

__all__ = [
    "ALIAS_COLUMNS",
    "AliasHit",
    "alias_hits",
    "any_profile_embedding",
    "canonical",
    "canonical_ids",
    "canonical_names",
    "embedding_hits",
    "embedding_hits_many",
    "entity_neighbours",
    "exact_alias_hits",
    "name_word_hits",
    "phonetic_hits",
    "vector_literal",
]


@dataclass(frozen=True, slots=True)
class AliasHit:
    """One alias row that matched, with its (redirect-followed) entity."""

    entity_id: UUID
    canonical_name: str
    normalized_name: str
    alias: str
    normalized_alias: str
    mention_count: int
    score: float = 1.0


ALIAS_COLUMNS = """
    SELECT coalesce(e.redirect_to, e.id) AS entity_id, e.canonical_name, e.normalized_name,
           a.alias, a.normalized_alias, a.mention_count
    FROM entity_aliases a JOIN entities e ON e.id = a.entity_id
"""


def alias_hit(r: Any, score: float = 1.0) -> AliasHit:
    """An AliasHit from a row with the names of ALIAS_COLUMNS."""
    return AliasHit(
        r.entity_id,
        r.canonical_name,
        r.normalized_name,
        r.alias,
        r.normalized_alias,
        r.mention_count,
        score,
    )


def alias_hits(rows: Iterable[Any]) -> list[AliasHit]:
    return [alias_hit(r) for r in rows]


async def exact_alias_hits(
    session: AsyncSession, namespace: str, normalized: Sequence[str]
) -> list[AliasHit]:
    """Aliases whose normalized form is one of `normalized` (T0 / cascade step 1)."""
    if not normalized:
        return []
    rows = await session.execute(
        text(ALIAS_COLUMNS + " WHERE a.namespace = :ns AND a.normalized_alias = ANY(:names)"),
        {"ns": namespace, "names": list(set(normalized))},
    )
    return alias_hits(rows)


async def name_word_hits(
    session: AsyncSession, namespace: str, words: Sequence[str], limit: int
) -> dict[str, list[AliasHit]]:
    """Per word, the multi-word aliases whose first or last word it is ("leo" finds "leo
    whitaker", "whitaker" too), most mentioned first, in one statement: the full names a lone
    word may stand for, which a short word's trigram search cannot reach (migration 0011).
    Each hit scores 1.0; the cascade scores it as the structural match it is."""
    found: dict[str, list[AliasHit]] = {w: [] for w in words}
    if not found:
        return found
    rows = await session.execute(
        text(
            "SELECT w.word, h.* FROM unnest(CAST(:words AS text[])) AS w(word)"
            " CROSS JOIN LATERAL (" + ALIAS_COLUMNS + " WHERE a.namespace = :ns"
            " AND position(' ' in a.normalized_alias) > 0"
            " AND (split_part(a.normalized_alias, ' ', 1) = w.word"
            " OR reverse(split_part(reverse(a.normalized_alias), ' ', 1)) = w.word)"
            " ORDER BY a.mention_count DESC, a.id LIMIT :limit) AS h"
        ),
        {"ns": namespace, "words": list(found), "limit": limit},
    )
    for r in rows:
        found[r.word].append(alias_hit(r))
    return found


async def phonetic_hits(
    session: AsyncSession, namespace: str, code: str, limit: int
) -> list[AliasHit]:
    """Aliases sharing the metaphone code, most mentioned first."""
    rows = await session.execute(
        text(
            ALIAS_COLUMNS + " WHERE a.namespace = :ns AND a.phonetic_code = :code"
            " ORDER BY a.mention_count DESC, a.id LIMIT :limit"
        ),
        {"ns": namespace, "code": code, "limit": limit},
    )
    return alias_hits(rows)


def vector_literal(vector: Sequence[float]) -> str:
    """pgvector's text form, which asyncpg sends for a type it has no codec for."""
    return "[" + ",".join(f"{float(x):.7g}" for x in vector) + "]"


async def embedding_hits(
    session: AsyncSession,
    namespace: str,
    vector: Sequence[float],
    min_similarity: float,
    limit: int,
) -> list[AliasHit]:
    """Live entities whose profile embedding is within `min_similarity` cosine of `vector`."""
    (hits,) = await embedding_hits_many(session, namespace, [vector], min_similarity, limit)
    return hits


async def embedding_hits_many(
    session: AsyncSession,
    namespace: str,
    vectors: Sequence[Sequence[float]],
    min_similarity: float,
    limit: int,
) -> list[list[AliasHit]]:
    """`embedding_hits` of each vector, in one statement."""
    if not vectors:
        return []
    rows = await session.execute(
        text(
            "SELECT q.n, h.* FROM unnest(CAST(:vs AS text[])) WITH ORDINALITY AS q(v, n)"
            " CROSS JOIN LATERAL (SELECT id AS entity_id, canonical_name, normalized_name,"
            " canonical_name AS alias, normalized_name AS normalized_alias, 0 AS mention_count,"
            " 1 - (profile_embedding <=> CAST(q.v AS vector)) AS sim"
            " FROM entities WHERE namespace = :ns AND redirect_to IS NULL"
            " AND profile_embedding IS NOT NULL"
            " ORDER BY profile_embedding <=> CAST(q.v AS vector) LIMIT :limit) h"
            " ORDER BY q.n, h.sim DESC"
        ),
        {"ns": namespace, "vs": [vector_literal(v) for v in vectors], "limit": limit},
    )
    found: list[list[AliasHit]] = [[] for _ in vectors]
    for r in rows:
        if float(r.sim) >= min_similarity:
            found[r.n - 1].append(alias_hit(r, float(r.sim)))
    return found


async def any_profile_embedding(session: AsyncSession) -> bool:
    """Whether any entity (of any namespace: a cheap, conservative answer) has a profile
    embedding. Read through the HNSW index, which holds only entities that have one (the
    probe vector is any of the column's dimension); an ordered scan of it stops at the first."""
    # No WHERE: "IS NOT NULL" makes the planner expect one row and scan the table instead.
    # Without the index (a small table) the sort puts entities without one last, so the
    # first row answers either way.
    row = await session.execute(
        text(
            "SELECT profile_embedding IS NOT NULL AS has FROM entities"
            " ORDER BY profile_embedding <=> CAST(array_fill(CAST(1 AS real),"
            " ARRAY[(SELECT atttypmod FROM pg_attribute WHERE attrelid ="
            " CAST('entities' AS regclass) AND attname = 'profile_embedding')]) AS vector)"
            " LIMIT 1"
        )
    )
    found = row.first()
    return found is not None and bool(found.has)


async def entity_neighbours(
    session: AsyncSession, namespace: str, entity_ids: Sequence[UUID], limit: int = 2000
) -> dict[UUID, set[UUID]]:
    """Entities each of `entity_ids` shared a document with, or is linked to by a current
    relation: the context two same-named mentions are compared on. At most `limit` of each
    kind per id, so what an id gets does not depend on which others are asked with it (a
    shared limit had cut 40 of 64 LoCoMo entities short, and which ones depended on the plan).
    Each id is read on its own (LATERAL): its verdicts' documents, then per document its
    claims and their verdicts (behind OFFSET 0: with statistics of a smaller table the planner
    hashed every claim and verdict of the namespace), and its facts behind OFFSET 0 fences
    (the object side filters on currency outside, where the partial index of current facts by
    subject cannot be picked), so a table grown since its last analyze is still read through
    the index of that id."""
    result: dict[UUID, set[UUID]] = {entity_id: set() for entity_id in entity_ids}
    if not entity_ids:
        return result
    rows = await session.execute(
        text(
            "SELECT i AS eid, n.other FROM unnest(CAST(:ids AS uuid[])) AS i CROSS JOIN LATERAL"
            " ((SELECT DISTINCT o.other FROM (SELECT DISTINCT c.document_id"
            "  FROM resolution_verdicts v CROSS JOIN LATERAL"
            "  (SELECT document_id FROM claims WHERE id = v.claim_id OFFSET 0) c"
            "  WHERE v.namespace = :ns AND v.chosen_entity_id = i) d CROSS JOIN LATERAL"
            "  (SELECT v2.chosen_entity_id AS other FROM claims c2 CROSS JOIN LATERAL"
            "  (SELECT chosen_entity_id FROM resolution_verdicts WHERE namespace = :ns"
            "  AND claim_id = c2.id OFFSET 0) v2"
            "  WHERE c2.namespace = :ns AND c2.document_id = d.document_id"
            "  AND v2.chosen_entity_id IS NOT NULL AND v2.chosen_entity_id <> i OFFSET 0) o"
            "  LIMIT :limit)"
            " UNION"
            " (SELECT f.other FROM (SELECT object_entity_id AS other FROM facts"
            "  WHERE namespace = :ns AND subject_entity_id = i AND object_entity_id IS NOT NULL"
            "  AND invalidated_at IS NULL OFFSET 0) f LIMIT :limit)"
            " UNION"
            " (SELECT f.other FROM (SELECT subject_entity_id AS other, invalidated_at FROM facts"
            "  WHERE namespace = :ns AND object_entity_id = i OFFSET 0) f"
            "  WHERE f.invalidated_at IS NULL LIMIT :limit)) n(other)"
        ),
        {"ns": namespace, "ids": list(entity_ids), "limit": limit},
    )
    for eid, other in rows:
        result.setdefault(eid, set()).add(other)
    return result


async def canonical_ids(
    session: AsyncSession, namespace: str, entity_ids: Iterable[UUID]
) -> dict[UUID, UUID]:
    """Each id mapped to the live entity its redirect chain ends at (itself if live)."""
    ids = list(set(entity_ids))
    if not ids:
        return {}
    rows = await session.execute(
        text(
            "WITH RECURSIVE chain(start, cur, hops) AS ("
            " SELECT id, id, 0 FROM entities WHERE namespace = :ns AND id = ANY(:ids)"
            " UNION ALL SELECT ch.start, e.redirect_to, ch.hops + 1 FROM chain ch"
            " JOIN entities e ON e.id = ch.cur WHERE e.redirect_to IS NOT NULL AND ch.hops < 32)"
            " SELECT DISTINCT ON (start) start, cur FROM chain ORDER BY start, hops DESC"
        ),
        {"ns": namespace, "ids": ids},
    )
    return {start: cur for start, cur in rows}


async def canonical(session: AsyncSession, namespace: str, entity_id: UUID) -> UUID | None:
    """The live entity `entity_id` redirects to (itself if not merged); None if unknown."""
    return (await canonical_ids(session, namespace, [entity_id])).get(entity_id)


async def canonical_names(
    session: AsyncSession, namespace: str, entity_ids: Sequence[UUID]
) -> dict[UUID, str]:
    rows = await session.execute(
        text("SELECT id, canonical_name FROM entities WHERE namespace = :ns AND id = ANY(:ids)"),
        {"ns": namespace, "ids": list(entity_ids)},
    )
    return {r.id: r.canonical_name for r in rows}
