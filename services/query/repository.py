"""SQL reads of the belief layer: fact hydration, anchor expansion, contradictions, evidence."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.engine import Row
from sqlalchemy.ext.asyncio import AsyncConnection

from services.query.domain import (
    MAX_INLINE_CO_MEMBERS,
    CoMemberView,
    ContradictionView,
    DecisionView,
    EntityRefView,
    EvidenceLink,
    FactView,
)
from services.query.temporal import belief_clause, fact_scope_clause
from shared.timescope import TimeScope, WindowRecord, temporal_match

_FACT_COLUMNS = (
    "f.id, f.kind, f.label, f.evidence_count, f.valid_from, f.valid_until, f.valid_precision,"
    " f.valid_kind, f.ingested_at, f.invalidated_at, f.support, f.subject_entity_id,"
    " se.canonical_name AS subject_name, f.predicate, f.object_entity_id,"
    " oe.canonical_name AS object_name, f.superseded_by_fact_id,"
    " CASE WHEN g.resolved_at IS NULL THEN g.id END AS live_group"
)
_FACT_FROM = (
    " FROM facts f JOIN entities se ON se.id = f.subject_entity_id"
    " LEFT JOIN entities oe ON oe.id = f.object_entity_id"
    " LEFT JOIN contradiction_groups g ON g.id = f.contradiction_group_id"
)
_MAX_REDIRECTS = 8


def _fact_from_row(row: Row[Any]) -> FactView:
    m = row._mapping
    fact = FactView(
        fact_id=m["id"],
        kind=m["kind"],
        label=m["label"],
        evidence_count=m["evidence_count"],
        valid_from=m["valid_from"],
        valid_until=m["valid_until"],
        valid_precision=m["valid_precision"],
        valid_kind=m["valid_kind"],
        ingested_at=m["ingested_at"],
        invalidated_at=m["invalidated_at"],
        support=m["support"],
        subject=EntityRefView(m["subject_entity_id"], m["subject_name"]),
        predicate=m["predicate"],
        object=(
            EntityRefView(m["object_entity_id"], m["object_name"] or "")
            if m["object_entity_id"] is not None
            else None
        ),
        superseded_by_fact_id=m["superseded_by_fact_id"],
        contradiction_group_id=m["live_group"],
    )
    fact.temporal_match = temporal_match(
        WindowRecord(fact.valid_from, fact.valid_until, fact.valid_precision)
    )
    return fact


async def hydrate_facts(
    conn: AsyncConnection,
    namespace: str,
    ids: Sequence[UUID],
    scope: TimeScope,
    params: dict[str, Any],
) -> dict[UUID, FactView]:
    """Re-read candidates from the authority table; only those qualifying for `scope` return."""
    if not ids:
        return {}
    sql = (
        f"SELECT {_FACT_COLUMNS}{_FACT_FROM} WHERE f.namespace = :ns"
        f" AND f.id = ANY(CAST(:ids AS uuid[])) AND {fact_scope_clause(scope)}"
    )
    rows = await conn.execute(text(sql), {"ns": namespace, "ids": list(ids), **params})
    return {fact.fact_id: fact for fact in map(_fact_from_row, rows)}


async def load_fact(conn: AsyncConnection, namespace: str, fact_id: UUID) -> FactView | None:
    """One fact whatever its belief state."""
    sql = f"SELECT {_FACT_COLUMNS}{_FACT_FROM} WHERE f.namespace = :ns AND f.id = :id"
    row = (await conn.execute(text(sql), {"ns": namespace, "id": fact_id})).first()
    return _fact_from_row(row) if row is not None else None


async def resolve_entities(
    conn: AsyncConnection, namespace: str, ids: Sequence[UUID]
) -> dict[UUID, EntityRefView]:
    """Known entities among `ids`, each mapped to its merge survivor (redirects followed)."""
    if not ids:
        return {}
    sql = (
        "WITH RECURSIVE chain(requested, id, redirect_to, depth) AS ("
        " SELECT e.id, e.id, e.redirect_to, 0 FROM entities e"
        " WHERE e.namespace = :ns AND e.id = ANY(CAST(:ids AS uuid[]))"
        " UNION ALL SELECT c.requested, e.id, e.redirect_to, c.depth + 1"
        " FROM chain c JOIN entities e ON e.id = c.redirect_to"
        f" WHERE c.depth < {_MAX_REDIRECTS})"
        " SELECT c.requested, e.id, e.canonical_name FROM chain c JOIN entities e ON e.id = c.id"
        " WHERE c.redirect_to IS NULL"
    )
    rows = await conn.execute(text(sql), {"ns": namespace, "ids": list(ids)})
    return {row[0]: EntityRefView(row[1], row[2]) for row in rows}


async def expand_anchors(
    conn: AsyncConnection,
    namespace: str,
    anchors: Sequence[UUID],
    hops: int,
    max_entities: int,
    scope: TimeScope,
    params: dict[str, Any],
) -> tuple[dict[UUID, int], bool]:
    """Entities reachable through qualifying relations, strongest links first, within budget.

    Returns entity -> hop distance and whether the entity budget cut the expansion."""
    distance: dict[UUID, int] = {anchor: 0 for anchor in anchors}
    frontier = list(anchors)
    cut = False
    clause = fact_scope_clause(scope)
    for hop in range(1, hops + 1):
        room = max_entities - len(distance)
        if room <= 0 or not frontier:
            break
        sql = (
            "SELECT nb, max(strength) AS strength FROM ("
            " SELECT f.object_entity_id AS nb, f.evidence_count AS strength FROM facts f"
            " WHERE f.namespace = :ns AND f.kind = 'relation'"
            f" AND f.subject_entity_id = ANY(CAST(:frontier AS uuid[])) AND {clause}"
            " UNION ALL SELECT f.subject_entity_id, f.evidence_count FROM facts f"
            " WHERE f.namespace = :ns AND f.kind = 'relation'"
            f" AND f.object_entity_id = ANY(CAST(:frontier AS uuid[])) AND {clause}) x"
            " WHERE nb <> ALL(CAST(:seen AS uuid[]))"
            " GROUP BY nb ORDER BY strength DESC, nb LIMIT :lim"
        )
        bind = {
            "ns": namespace,
            "frontier": frontier,
            "seen": list(distance),
            "lim": room + 1,
            **params,
        }
        neighbours = [row[0] for row in await conn.execute(text(sql), bind)]
        if len(neighbours) > room:
            cut = True
            neighbours = neighbours[:room]
        for entity in neighbours:
            distance[entity] = hop
        frontier = neighbours
    return distance, cut


async def entity_names(
    conn: AsyncConnection, namespace: str, ids: Sequence[UUID]
) -> dict[UUID, str]:
    rows = await conn.execute(
        text(
            "SELECT id, canonical_name FROM entities"
            " WHERE namespace = :ns AND id = ANY(CAST(:ids AS uuid[]))"
        ),
        {"ns": namespace, "ids": list(ids)},
    )
    return {row[0]: row[1] for row in rows}


async def profile_channel(
    conn: AsyncConnection, namespace: str, query_vector: str, limit: int
) -> list[UUID]:
    """Entities whose profile is nearest the query (HNSW, exact fallback for small namespaces)."""
    base = (
        "SELECT e.id FROM entities e WHERE e.namespace = :ns AND e.redirect_to IS NULL"
        " AND e.profile_embedding IS NOT NULL"
    )
    distance = "e.profile_embedding <=> CAST(CAST(:qvec AS text) AS vector)"
    bind = {"ns": namespace, "qvec": query_vector, "lim": limit}
    rows = await conn.execute(text(f"{base} ORDER BY {distance} LIMIT :lim"), bind)
    ids = [row[0] for row in rows]
    if len(ids) < limit:
        rows = await conn.execute(text(f"{base} ORDER BY ({distance}) + 0 LIMIT :lim"), bind)
        ids = [row[0] for row in rows]
    return ids


async def facts_of_entities(
    conn: AsyncConnection,
    namespace: str,
    entities: Sequence[UUID],
    predicate: str | None,
    limit: int,
) -> list[UUID]:
    """Facts about the given entities, in the entities' order, strongest evidence first."""
    if not entities:
        return []
    pred = " AND f.predicate = :pred" if predicate else ""
    sql = (
        "SELECT f.id FROM unnest(CAST(:ents AS uuid[])) WITH ORDINALITY AS e(id, pos)"
        " JOIN facts f ON f.subject_entity_id = e.id"
        f" WHERE f.namespace = :ns{pred}"
        " ORDER BY e.pos, f.evidence_count DESC, f.ingested_at DESC LIMIT :lim"
    )
    bind = {"ns": namespace, "ents": list(entities), "pred": predicate, "lim": limit}
    return [row[0] for row in await conn.execute(text(sql), bind)]


async def rank_facts_in_set(
    conn: AsyncConnection,
    namespace: str,
    entities: dict[UUID, int],
    predicate: str | None,
    scope: TimeScope,
    params: dict[str, Any],
    limit: int,
    *,
    query_vector: str | None = None,
    query: str | None = None,
) -> list[UUID]:
    """Qualifying facts touching the entity set, ranked exactly inside it.

    With a vector: by cosine distance; with a query: by text rank over rows matching any term;
    with neither: nearest hop, then evidence count, then most recently learned."""
    bind: dict[str, Any] = {
        "ns": namespace,
        "ents": list(entities),
        "hops": list(entities.values()),
        "pred": predicate,
        "lim": limit,
        **params,
    }
    where = (
        "f.namespace = :ns AND (f.subject_entity_id = ANY(CAST(:ents AS uuid[]))"
        " OR f.object_entity_id = ANY(CAST(:ents AS uuid[])))"
        f" AND {fact_scope_clause(scope)}"
    )
    if predicate:
        where += " AND f.predicate = :pred"
    if query_vector is not None:
        bind["qvec"] = query_vector
        sql = (
            f"SELECT f.id FROM facts f WHERE {where} AND f.embedding IS NOT NULL"
            " ORDER BY (f.embedding <=> CAST(CAST(:qvec AS text) AS vector)) + 0, f.id LIMIT :lim"
        )
    elif query is not None:
        bind["q"] = query
        sql = (
            "WITH q AS (SELECT to_tsquery('english',"
            " replace(plainto_tsquery('english', :q)::text, ' & ', ' | ')) AS tsq)"
            f" SELECT f.id FROM facts f, q WHERE {where} AND f.tsv @@ q.tsq"
            " ORDER BY ts_rank_cd(f.tsv, q.tsq, 1) DESC, f.id LIMIT :lim"
        )
    else:
        sql = (
            "WITH hop(id, hop) AS (SELECT * FROM unnest(CAST(:ents AS uuid[]),"
            " CAST(:hops AS int[])))"
            f" SELECT f.id FROM facts f WHERE {where} ORDER BY (SELECT min(h.hop) FROM hop h"
            " WHERE h.id IN (f.subject_entity_id, f.object_entity_id)),"
            " f.evidence_count DESC, f.ingested_at DESC, f.id LIMIT :lim"
        )
    return [row[0] for row in await conn.execute(text(sql), bind)]


def continuation_token(group_id: UUID, offset: int) -> str:
    """Opaque token naming the group and where the inline co-members stopped."""
    raw = json.dumps({"group_id": str(group_id), "offset": offset}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


async def attach_contradictions(
    conn: AsyncConnection,
    namespace: str,
    facts: Sequence[FactView],
    scope: TimeScope,
    params: dict[str, Any],
) -> None:
    """Give every fact in a live group its co-members (believed now, or at believed_at)."""
    groups = {f.contradiction_group_id for f in facts if f.contradiction_group_id is not None}
    if not groups:
        return
    sql = (
        "SELECT f.contradiction_group_id, f.id, f.label, f.evidence_count, f.valid_from,"
        " f.valid_until, f.valid_precision, f.ingested_at, f.invalidated_at FROM facts f"
        " WHERE f.namespace = :ns AND f.contradiction_group_id = ANY(CAST(:gids AS uuid[]))"
        f" AND {belief_clause(scope)}"
        " ORDER BY f.evidence_count DESC, f.ingested_at, f.id"
    )
    rows = await conn.execute(text(sql), {"ns": namespace, "gids": list(groups), **params})
    members: dict[UUID, list[CoMemberView]] = {}
    for row in rows:
        members.setdefault(row[0], []).append(CoMemberView(*row[1:]))
    for fact in facts:
        if fact.contradiction_group_id is None:
            continue
        others = [
            m for m in members.get(fact.contradiction_group_id, []) if m.fact_id != fact.fact_id
        ]
        inline = tuple(others[:MAX_INLINE_CO_MEMBERS])
        more = len(others) > len(inline)
        fact.contradiction = ContradictionView(
            group_id=fact.contradiction_group_id,
            co_members=inline,
            total=len(others),
            continuation=continuation_token(fact.contradiction_group_id, len(inline))
            if more
            else "",
        )


_LIVE_EVIDENCE = (
    " FROM fact_evidence fe JOIN claims c ON c.id = fe.claim_id"
    " JOIN documents d ON d.id = c.document_id"
    " WHERE fe.namespace = :ns AND fe.fact_id = ANY(CAST(:ids AS uuid[]))"
    " AND c.is_current_testimony AND d.deleted_at IS NULL"
)


async def evidence_totals(
    conn: AsyncConnection, namespace: str, fact_ids: Sequence[UUID]
) -> dict[tuple[UUID, str], int]:
    """Exact link counts per fact and stance, current testimony of live documents only."""
    if not fact_ids:
        return {}
    sql = f"SELECT fe.fact_id, fe.stance, count(*){_LIVE_EVIDENCE} GROUP BY 1, 2"
    rows = await conn.execute(text(sql), {"ns": namespace, "ids": list(fact_ids)})
    return {(row[0], row[1]): int(row[2]) for row in rows}


async def sample_evidence(
    conn: AsyncConnection, namespace: str, fact_ids: Sequence[UUID], per_stance: int
) -> list[EvidenceLink]:
    """Up to `per_stance` links per fact and stance: distinct documents first, newest said first."""
    if not fact_ids:
        return []
    sql = (
        "SELECT fact_id, claim_id, stance FROM (SELECT fact_id, claim_id, stance,"
        " row_number() OVER (PARTITION BY fact_id, stance ORDER BY doc_rank, asserted_at DESC"
        " NULLS LAST, claim_id) AS rn FROM (SELECT fe.fact_id, fe.claim_id, fe.stance,"
        " c.asserted_at, row_number() OVER (PARTITION BY fe.fact_id, fe.stance, c.document_id"
        f" ORDER BY c.asserted_at DESC NULLS LAST, c.id) AS doc_rank{_LIVE_EVIDENCE}) s) r"
        " WHERE rn <= :per ORDER BY fact_id, stance, rn"
    )
    rows = await conn.execute(
        text(sql), {"ns": namespace, "ids": list(fact_ids), "per": per_stance}
    )
    return [EvidenceLink(row[0], row[1], row[2]) for row in rows]


async def all_evidence(conn: AsyncConnection, namespace: str, fact_id: UUID) -> list[EvidenceLink]:
    """Every link of a fact, whatever the testimony state of its claims."""
    rows = await conn.execute(
        text(
            "SELECT fe.fact_id, fe.claim_id, fe.stance FROM fact_evidence fe"
            " WHERE fe.namespace = :ns AND fe.fact_id = :id ORDER BY fe.linked_at, fe.claim_id"
        ),
        {"ns": namespace, "id": fact_id},
    )
    return [EvidenceLink(row[0], row[1], row[2]) for row in rows]


async def lookup_facts(
    conn: AsyncConnection,
    namespace: str,
    where: str,
    bind: dict[str, Any],
    scope: TimeScope,
    limit: int,
    *,
    order: str = "f.evidence_count DESC, f.ingested_at DESC, f.id",
) -> tuple[list[FactView], int]:
    """Qualifying facts matching `where`, the first `limit` in `order`, and the exact total."""
    condition = f"f.namespace = :ns AND {where} AND {fact_scope_clause(scope)}"
    params = {"ns": namespace, "lim": limit, **bind}
    rows = await conn.execute(
        text(f"SELECT {_FACT_COLUMNS}{_FACT_FROM} WHERE {condition} ORDER BY {order} LIMIT :lim"),
        params,
    )
    facts = [_fact_from_row(row) for row in rows]
    if len(facts) < limit:
        return facts, len(facts)
    total = (
        await conn.execute(text(f"SELECT count(*) FROM facts f WHERE {condition}"), params)
    ).scalar_one()
    return facts, int(total)


async def transcript(
    conn: AsyncConnection, namespace: str, fact_id: UUID, limit: int
) -> tuple[list[DecisionView], int]:
    """The `limit` most recent decisions about a fact, oldest first, and how many exist."""
    rows = await conn.execute(
        text(
            "SELECT * FROM (SELECT id, fact_id, related_fact_id, outcome, method, engine, model,"
            " confidence, rationale, decided_by, decided_at, window_before, window_after,"
            " claim_id FROM decision_transcripts WHERE namespace = :ns AND fact_id = :id"
            " ORDER BY decided_at DESC, id DESC LIMIT :lim) recent ORDER BY decided_at, id"
        ),
        {"ns": namespace, "id": fact_id, "lim": limit},
    )
    decisions = [DecisionView(*row) for row in rows]
    total = (
        await conn.execute(
            text(
                "SELECT count(*) FROM decision_transcripts WHERE namespace = :ns AND fact_id = :id"
            ),
            {"ns": namespace, "id": fact_id},
        )
    ).scalar_one()
    return decisions, int(total)
