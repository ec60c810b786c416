"""SQL of the entity layer: alias lookups, the trigram index, entity creation and verdicts."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from shared.entities.normalize import phonetic_code, trigrams

__all__ = [
    "Verdict",
    "create_entity",
    "document_entities",
    "ensure_namespace",
    "insert_verdicts",
    "upsert_alias",
    "upsert_proposal",
    "write_mention",
]


async def ensure_namespace(session: AsyncSession, namespace: str) -> None:
    await session.execute(
        text("INSERT INTO namespaces (namespace) VALUES (:ns) ON CONFLICT DO NOTHING"),
        {"ns": namespace},
    )


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


@dataclass(frozen=True, slots=True)
class Verdict:
    """A verdict that chose no entity (the mention names none)."""

    claim_id: UUID | None
    mention_text: str
    role: str
    step: str
    scores: dict[str, Any]
    resolver_version: str


async def insert_verdicts(
    session: AsyncSession, namespace: str, verdicts: Sequence[Verdict]
) -> None:
    """Record verdicts that chose no entity, in one statement."""
    if not verdicts:
        return
    await session.execute(
        text(
            "INSERT INTO resolution_verdicts (namespace, claim_id, mention_text, role, step,"
            " scores, chosen_entity_id, created_new, resolver_version)"
            " SELECT :ns, claim, mention, role, step, CAST(scores AS jsonb), NULL, false, version"
            " FROM unnest(CAST(:claims AS uuid[]), CAST(:mentions AS text[]),"
            " CAST(:roles AS text[]), CAST(:steps AS text[]), CAST(:scores AS text[]),"
            " CAST(:versions AS text[])) AS v(claim, mention, role, step, scores, version)"
        ),
        {
            "ns": namespace,
            "claims": [v.claim_id for v in verdicts],
            "mentions": [v.mention_text for v in verdicts],
            "roles": [v.role for v in verdicts],
            "steps": [v.step for v in verdicts],
            "scores": [json.dumps(v.scores) for v in verdicts],
            "versions": [v.resolver_version for v in verdicts],
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
