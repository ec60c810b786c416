"""SQL of the entity layer: alias lookups, the trigram index, entity creation and verdicts."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from services.adjudicator.entities.normalize import phonetic_code, trigrams

__all__ = [
    "ALIAS_COLUMNS",
    "AliasHit",
    "alias_hits",
    "canonical",
    "canonical_ids",
    "canonical_names",
    "create_entity",
    "document_entities",
    "embedding_hits",
    "ensure_namespace",
    "entity_neighbours",
    "exact_alias_hits",
    "insert_verdict",
    "phonetic_hits",
    "upsert_alias",
    "upsert_proposal",
    "vector_literal",
    "write_mention",
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


def alias_hits(rows: Iterable[Any]) -> list[AliasHit]:
    return [
        AliasHit(
            r.entity_id,
            r.canonical_name,
            r.normalized_name,
            r.alias,
            r.normalized_alias,
            r.mention_count,
        )
        for r in rows
    ]


async def ensure_namespace(session: AsyncSession, namespace: str) -> None:
    await session.execute(
        text("INSERT INTO namespaces (namespace) VALUES (:ns) ON CONFLICT DO NOTHING"),
        {"ns": namespace},
    )


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
    rows = await session.execute(
        text(
            "SELECT id AS entity_id, canonical_name, normalized_name,"
            " canonical_name AS alias, normalized_name AS normalized_alias, 0 AS mention_count,"
            " 1 - (profile_embedding <=> CAST(:v AS vector)) AS sim"
            " FROM entities WHERE namespace = :ns AND redirect_to IS NULL"
            " AND profile_embedding IS NOT NULL"
            " ORDER BY profile_embedding <=> CAST(:v AS vector) LIMIT :limit"
        ),
        {"ns": namespace, "v": vector_literal(vector), "limit": limit},
    )
    return [
        AliasHit(
            r.entity_id,
            r.canonical_name,
            r.normalized_name,
            r.alias,
            r.normalized_alias,
            r.mention_count,
            float(r.sim),
        )
        for r in rows
        if float(r.sim) >= min_similarity
    ]


async def document_entities(
    session: AsyncSession, namespace: str, document_ids: Sequence[UUID]
) -> list[tuple[UUID, str, UUID, str]]:
    """(document id, mention text, live entity id, its name) of every earlier verdict in these
    documents; merges move verdicts, so one redirect hop is all that can remain."""
    if not document_ids:
        return []
    rows = await session.execute(
        text(
            "SELECT c.document_id, v.mention_text, coalesce(r.id, e.id) AS entity_id,"
            " coalesce(r.canonical_name, e.canonical_name) AS name FROM claims c"
            " JOIN resolution_verdicts v ON v.namespace = c.namespace AND v.claim_id = c.id"
            " JOIN entities e ON e.id = v.chosen_entity_id"
            " LEFT JOIN entities r ON r.id = e.redirect_to"
            " WHERE c.namespace = :ns AND c.document_id = ANY(:docs)"
        ),
        {"ns": namespace, "docs": list(document_ids)},
    )
    return [(r.document_id, r.mention_text, r.entity_id, r.name) for r in rows]


async def entity_neighbours(
    session: AsyncSession, namespace: str, entity_ids: Sequence[UUID], limit: int = 2000
) -> dict[UUID, set[UUID]]:
    """Entities each of `entity_ids` shared a document with, or is linked to by a current
    relation: the context two same-named mentions are compared on."""
    result: dict[UUID, set[UUID]] = {entity_id: set() for entity_id in entity_ids}
    if not entity_ids:
        return result
    rows = await session.execute(
        text(
            "WITH docs AS (SELECT DISTINCT v.chosen_entity_id AS eid, c.document_id"
            "  FROM resolution_verdicts v JOIN claims c ON c.id = v.claim_id"
            "  WHERE v.namespace = :ns AND v.chosen_entity_id = ANY(:ids))"
            " (SELECT DISTINCT d.eid, v2.chosen_entity_id AS other FROM docs d"
            "  JOIN claims c2 ON c2.namespace = :ns AND c2.document_id = d.document_id"
            "  JOIN resolution_verdicts v2 ON v2.namespace = :ns AND v2.claim_id = c2.id"
            "  WHERE v2.chosen_entity_id IS NOT NULL AND v2.chosen_entity_id <> d.eid LIMIT :limit)"
            " UNION"
            " (SELECT subject_entity_id, object_entity_id FROM facts WHERE namespace = :ns"
            "  AND subject_entity_id = ANY(:ids) AND object_entity_id IS NOT NULL"
            "  AND invalidated_at IS NULL LIMIT :limit)"
            " UNION"
            " (SELECT object_entity_id, subject_entity_id FROM facts WHERE namespace = :ns"
            "  AND object_entity_id = ANY(:ids) AND invalidated_at IS NULL LIMIT :limit)"
        ),
        {"ns": namespace, "ids": list(entity_ids), "limit": limit},
    )
    for eid, other in rows:
        result.setdefault(eid, set()).add(other)
    return result


async def create_entity(
    session: AsyncSession, namespace: str, canonical_name: str, normalized_name: str
) -> UUID:
    row = await session.execute(
        text(
            "INSERT INTO entities (namespace, canonical_name, normalized_name)"
            " VALUES (:ns, :name, :norm) RETURNING id"
        ),
        {"ns": namespace, "name": canonical_name, "norm": normalized_name},
    )
    entity_id: UUID = row.scalar_one()
    return entity_id


async def upsert_alias(
    session: AsyncSession,
    namespace: str,
    entity_id: UUID,
    alias: str,
    normalized: str,
    phonetic: str,
) -> bool:
    """Count one more mention of `alias`; a new alias also gets its trigram postings.
    Returns True when the alias is new for the entity."""
    row = await session.execute(
        text(
            "INSERT INTO entity_aliases (namespace, entity_id, alias, normalized_alias,"
            " phonetic_code) VALUES (:ns, :eid, :alias, :norm, :phon)"
            " ON CONFLICT ON CONSTRAINT uq_entity_aliases DO UPDATE SET"
            " mention_count = entity_aliases.mention_count + 1, last_seen_at = now()"
            " RETURNING id, (xmax = 0) AS inserted"
        ),
        {"ns": namespace, "eid": entity_id, "alias": alias, "norm": normalized, "phon": phonetic},
    )
    alias_id, inserted = row.one()
    if inserted:
        await session.execute(
            text(
                "INSERT INTO alias_trigrams (namespace, trigram, alias_grams, alias_id)"
                " SELECT :ns, g, cardinality(CAST(:grams AS text[])), :aid"
                " FROM unnest(CAST(:grams AS text[])) AS g"
                " ON CONFLICT DO NOTHING"
            ),
            {"ns": namespace, "aid": alias_id, "grams": sorted(trigrams(normalized))},
        )
    return bool(inserted)


async def write_mention(
    session: AsyncSession,
    namespace: str,
    *,
    entity_id: UUID | None,
    new_name: str | None,
    alias: str,
    normalized: str,
    claim_id: UUID | None,
    role: str,
    step: str,
    scores: dict[str, Any],
    resolver_version: str,
) -> UUID:
    """In one statement: create the entity (when `new_name` is given, else use `entity_id`),
    count the alias (adding its trigram postings when new) and record the verdict."""
    create = new_name is not None
    row = await session.execute(
        text(
            "WITH e AS (INSERT INTO entities (namespace, canonical_name, normalized_name)"
            "  SELECT :ns, CAST(:name AS text), :norm WHERE :create RETURNING id),"
            " target AS (SELECT id FROM e UNION ALL"
            "  SELECT CAST(:eid AS uuid) WHERE NOT :create),"
            " a AS (INSERT INTO entity_aliases (namespace, entity_id, alias, normalized_alias,"
            "  phonetic_code) SELECT :ns, id, :alias, :norm, :phon FROM target"
            "  ON CONFLICT ON CONSTRAINT uq_entity_aliases DO UPDATE SET"
            "  mention_count = entity_aliases.mention_count + 1, last_seen_at = now()"
            "  RETURNING id, (xmax = 0) AS inserted),"
            " t AS (INSERT INTO alias_trigrams (namespace, trigram, alias_grams, alias_id)"
            "  SELECT :ns, g, cardinality(CAST(:grams AS text[])), a.id"
            "  FROM a, unnest(CAST(:grams AS text[])) AS g WHERE a.inserted"
            "  ON CONFLICT DO NOTHING),"
            " v AS (INSERT INTO resolution_verdicts (namespace, claim_id, mention_text, role,"
            "  step, scores, chosen_entity_id, created_new, resolver_version)"
            "  SELECT :ns, :claim, :alias, :role, :step, CAST(:scores AS jsonb), id, :create,"
            "  :version FROM target)"
            " SELECT id FROM target"
        ),
        {
            "ns": namespace,
            "name": new_name,
            "norm": normalized,
            "create": create,
            "eid": entity_id,
            "alias": alias,
            "phon": phonetic_code(normalized),
            "grams": sorted(trigrams(normalized)),
            "claim": claim_id,
            "role": role,
            "step": step,
            "scores": json.dumps(scores),
            "version": resolver_version,
        },
    )
    written: UUID = row.scalar_one()
    return written


async def insert_verdict(
    session: AsyncSession,
    namespace: str,
    *,
    claim_id: UUID | None,
    mention_text: str,
    role: str,
    step: str,
    scores: dict[str, Any],
    chosen_entity_id: UUID | None,
    created_new: bool,
    resolver_version: str,
) -> None:
    await session.execute(
        text(
            "INSERT INTO resolution_verdicts (namespace, claim_id, mention_text, role, step,"
            " scores, chosen_entity_id, created_new, resolver_version) VALUES (:ns, :claim,"
            " :text, :role, :step, CAST(:scores AS jsonb), :chosen, :created, :version)"
        ),
        {
            "ns": namespace,
            "claim": claim_id,
            "text": mention_text,
            "role": role,
            "step": step,
            "scores": json.dumps(scores),
            "chosen": chosen_entity_id,
            "created": created_new,
            "version": resolver_version,
        },
    )


async def upsert_proposal(
    session: AsyncSession,
    namespace: str,
    a: UUID,
    b: UUID,
    score: float,
    evidence: dict[str, Any],
) -> None:
    """Record (or strengthen) the proposal to merge a and b; expected impact is the number of
    mentions that would move, so the busiest uncertain pairs are reviewed first."""
    first, second = sorted((a, b))
    await session.execute(
        text(
            "INSERT INTO merge_proposals (namespace, entity_a_id, entity_b_id, score,"
            " expected_impact, evidence)"
            " SELECT :ns, :a, :b, CAST(:score AS float8),"
            " coalesce(sum(mention_count), 0) * CAST(:score AS float8),"
            " CAST(:evidence AS jsonb) FROM entity_aliases"
            " WHERE namespace = :ns AND entity_id IN (:a, :b)"
            " ON CONFLICT ON CONSTRAINT uq_merge_proposals_pair DO UPDATE SET"
            " score = greatest(merge_proposals.score, excluded.score),"
            " expected_impact = greatest(merge_proposals.expected_impact,"
            " excluded.expected_impact)"
        ),
        {
            "ns": namespace,
            "a": first,
            "b": second,
            "score": score,
            "evidence": json.dumps(evidence),
        },
    )


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
