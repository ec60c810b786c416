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
    "Proposal",
    "Verdict",
    "Written",
    "create_entity",
    "document_entities",
    "ensure_namespace",
    "upsert_alias",
    "upsert_proposal",
    "upsert_proposals",
    "write_mentions",
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
    documents; merges move verdicts, so one redirect hop is all that can remain. Verdicts are
    read per claim (behind OFFSET 0), so the cost follows the documents, not the namespace."""
    if not document_ids:
        return []
    rows = await session.execute(
        text(
            "SELECT c.document_id, v.mention_text, coalesce(r.id, e.id) AS entity_id,"
            " coalesce(r.canonical_name, e.canonical_name) AS name FROM claims c"
            " CROSS JOIN LATERAL (SELECT mention_text, chosen_entity_id"
            "  FROM resolution_verdicts WHERE namespace = c.namespace AND claim_id = c.id"
            "  OFFSET 0) v"
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


@dataclass(frozen=True, slots=True)
class Verdict:
    """A verdict that chose no entity (the mention names none)."""

    claim_id: UUID | None
    mention_text: str
    role: str
    step: str
    scores: dict[str, Any]
    resolver_version: str


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


@dataclass(frozen=True, slots=True)
class Written:
    """A verdict that chose (or, with `new_name`, created) an entity, waiting to be written."""

    entity_id: UUID
    new_name: str | None
    alias: str
    normalized: str
    claim_id: UUID | None
    role: str
    step: str
    scores: dict[str, Any]
    resolver_version: str
    # Not a column (the claim gives it): tells the resolver which reads this row could change.
    document_id: UUID | None = None


# One statement for a whole call: new entities (ids chosen by the caller, so later mentions
# can point at them before this runs), each (entity, alias) counted once with its number of
# mentions (an upsert may not touch one row twice), trigram postings of the aliases that are
# new, and every verdict. Foreign keys are checked at the end of the statement, so the rows
# may reference each other.
_WRITE_MENTIONS = text(
    "WITH e AS (INSERT INTO entities (id, namespace, canonical_name, normalized_name)"
    "  SELECT id, :ns, name, norm FROM unnest(CAST(:e_ids AS uuid[]),"
    "  CAST(:e_names AS text[]), CAST(:e_norms AS text[])) AS t(id, name, norm)),"
    " a AS (INSERT INTO entity_aliases (namespace, entity_id, alias, normalized_alias,"
    "  phonetic_code, mention_count) SELECT :ns, eid, alias, norm, phon, n"
    "  FROM unnest(CAST(:a_eids AS uuid[]), CAST(:a_aliases AS text[]),"
    "  CAST(:a_norms AS text[]), CAST(:a_phons AS text[]), CAST(:a_counts AS int[]))"
    "  AS t(eid, alias, norm, phon, n)"
    "  ON CONFLICT ON CONSTRAINT uq_entity_aliases DO UPDATE SET"
    "  mention_count = entity_aliases.mention_count + excluded.mention_count,"
    "  last_seen_at = now()"
    "  RETURNING id, entity_id, normalized_alias, (xmax = 0) AS inserted),"
    " t AS (INSERT INTO alias_trigrams (namespace, trigram, alias_grams, alias_id)"
    "  SELECT :ns, g.gram, g.n, a.id FROM a JOIN unnest(CAST(:g_eids AS uuid[]),"
    "  CAST(:g_norms AS text[]), CAST(:g_grams AS text[]), CAST(:g_counts AS int[]))"
    "  AS g(eid, norm, gram, n) ON g.eid = a.entity_id AND g.norm = a.normalized_alias"
    "  WHERE a.inserted ON CONFLICT DO NOTHING)"
    " INSERT INTO resolution_verdicts (namespace, claim_id, mention_text, role, step, scores,"
    "  chosen_entity_id, created_new, resolver_version)"
    " SELECT :ns, claim, mention, role, step, CAST(scores AS jsonb), eid, created, version"
    " FROM unnest(CAST(:v_claims AS uuid[]), CAST(:v_mentions AS text[]),"
    " CAST(:v_roles AS text[]), CAST(:v_steps AS text[]), CAST(:v_scores AS text[]),"
    " CAST(:v_eids AS uuid[]), CAST(:v_created AS bool[]), CAST(:v_versions AS text[]))"
    " AS v(claim, mention, role, step, scores, eid, created, version)"
)


async def write_mentions(
    session: AsyncSession,
    namespace: str,
    written: Sequence[Written],
    unlinked: Sequence[Verdict] = (),
) -> None:
    """What `write_mention` does for each of `written`, and `insert_verdicts` for `unlinked`,
    in one statement; verdicts keep their order."""
    if not written and not unlinked:
        return
    created = [w for w in written if w.new_name is not None]
    aliases: dict[tuple[UUID, str], list[Any]] = {}
    for w in written:
        # The first spelling of a normalized alias names it, as with one upsert per mention.
        aliases.setdefault((w.entity_id, w.normalized), [w.alias, 0])[1] += 1
    grams = [
        (eid, norm, gram, len(found))
        for eid, norm in aliases
        for found in [sorted(trigrams(norm))]
        for gram in found
    ]
    verdicts: list[tuple[Any, ...]] = [
        (
            w.claim_id,
            w.alias,
            w.role,
            w.step,
            json.dumps(w.scores),
            w.entity_id,
            w.new_name is not None,
            w.resolver_version,
        )
        for w in written
    ] + [
        (
            v.claim_id,
            v.mention_text,
            v.role,
            v.step,
            json.dumps(v.scores),
            None,
            False,
            v.resolver_version,
        )
        for v in unlinked
    ]
    columns = list(zip(*verdicts, strict=True))
    await session.execute(
        _WRITE_MENTIONS,
        {
            "ns": namespace,
            "e_ids": [w.entity_id for w in created],
            "e_names": [w.new_name for w in created],
            "e_norms": [w.normalized for w in created],
            "a_eids": [eid for eid, _ in aliases],
            "a_aliases": [alias for alias, _ in aliases.values()],
            "a_norms": [norm for _, norm in aliases],
            "a_phons": [phonetic_code(norm) for _, norm in aliases],
            "a_counts": [count for _, count in aliases.values()],
            "g_eids": [g[0] for g in grams],
            "g_norms": [g[1] for g in grams],
            "g_grams": [g[2] for g in grams],
            "g_counts": [g[3] for g in grams],
            **{
                f"v_{name}": list(column)
                for name, column in zip(
                    (
                        "claims",
                        "mentions",
                        "roles",
                        "steps",
                        "scores",
                        "eids",
                        "created",
                        "versions",
                    ),
                    columns,
                    strict=True,
                )
            },
        },
    )


@dataclass(frozen=True, slots=True)
class Proposal:
    """A merge proposal waiting to be written (see `upsert_proposal`)."""

    a: UUID
    b: UUID
    score: float
    evidence: dict[str, Any]


async def upsert_proposals(
    session: AsyncSession, namespace: str, proposals: Sequence[Proposal]
) -> None:
    """`upsert_proposal` of each, in one statement; call it after the aliases of the entities
    involved were written, since their mention counts give the expected impact. A pair proposed
    twice keeps its first evidence and its highest score, as two upserts would."""
    pairs: dict[tuple[UUID, UUID], Proposal] = {}
    for p in proposals:
        first, second = sorted((p.a, p.b))
        known = pairs.get((first, second))
        if known is None or p.score > known.score:
            evidence = known.evidence if known is not None else p.evidence
            pairs[(first, second)] = Proposal(first, second, p.score, evidence)
    if not pairs:
        return
    await session.execute(
        text(
            "INSERT INTO merge_proposals (namespace, entity_a_id, entity_b_id, score,"
            " expected_impact, evidence)"
            " SELECT :ns, p.a, p.b, p.score, coalesce((SELECT sum(mention_count)"
            "  FROM entity_aliases WHERE namespace = :ns AND entity_id IN (p.a, p.b)), 0)"
            "  * p.score, CAST(p.evidence AS jsonb)"
            " FROM unnest(CAST(:a AS uuid[]), CAST(:b AS uuid[]), CAST(:scores AS float8[]),"
            " CAST(:evidence AS text[])) AS p(a, b, score, evidence)"
            " ON CONFLICT ON CONSTRAINT uq_merge_proposals_pair DO UPDATE SET"
            " score = greatest(merge_proposals.score, excluded.score),"
            " expected_impact = greatest(merge_proposals.expected_impact,"
            " excluded.expected_impact)"
        ),
        {
            "ns": namespace,
            "a": [p.a for p in pairs.values()],
            "b": [p.b for p in pairs.values()],
            "scores": [p.score for p in pairs.values()],
            "evidence": [json.dumps(p.evidence) for p in pairs.values()],
        },
    )
