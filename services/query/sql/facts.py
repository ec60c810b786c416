"""SQL reads of the belief layer: fact rows, filtered fact lists, evidence links, transcripts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.engine import Row
from sqlalchemy.ext.asyncio import AsyncConnection

from services.query.domain import DecisionView, EntityRefView, EvidenceLink, FactView
from services.query.sql.channels import QVEC
from services.query.sql.time_scope import fact_scope_clause
from shared.timescope import TimeScope, WindowRecord, temporal_match

FACT_COLUMNS = (
    "f.id, f.kind, f.label, f.evidence_count, f.valid_from, f.valid_until, f.valid_precision,"
    " f.valid_kind, f.ingested_at, f.invalidated_at, f.support, f.subject_entity_id,"
    " se.canonical_name AS subject_name, f.predicate, f.object_entity_id,"
    " oe.canonical_name AS object_name, f.superseded_by_fact_id,"
    " CASE WHEN g.resolved_at IS NULL THEN g.id END AS live_group"
)
FACT_FROM = (
    " FROM facts f JOIN entities se ON se.namespace = f.namespace AND se.id = f.subject_entity_id"
    " LEFT JOIN entities oe ON oe.namespace = f.namespace AND oe.id = f.object_entity_id"
    " LEFT JOIN contradiction_groups g"
    " ON g.namespace = f.namespace AND g.id = f.contradiction_group_id"
)
# Lookups list strongest first; the id breaks ties in the same direction, so the order is one
# backward scan of ix_facts_relation_{subject,object}_ranked.
LOOKUP_ORDER = "f.evidence_count DESC, f.ingested_at DESC, f.id DESC"
# Matching facts counted at most for a lookup's total: beyond it the total is a lower bound.
_COUNT_CAP = 5000


def fact_from_row(row: Row[Any]) -> FactView:
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


async def load_fact(conn: AsyncConnection, namespace: str, fact_id: UUID) -> FactView | None:
    """One fact whatever its belief state."""
    sql = f"SELECT {FACT_COLUMNS}{FACT_FROM} WHERE f.namespace = :ns AND f.id = :id"
    row = (await conn.execute(text(sql), {"ns": namespace, "id": fact_id})).first()
    return fact_from_row(row) if row is not None else None


_LIVE_EVIDENCE = (
    " FROM fact_evidence fe JOIN claims c ON c.namespace = fe.namespace AND c.id = fe.claim_id"
    " JOIN documents d ON d.namespace = fe.namespace AND d.id = c.document_id"
    " WHERE fe.namespace = :ns AND fe.fact_id = ANY(CAST(:ids AS uuid[]))"
    " AND c.is_current_testimony AND d.deleted_at IS NULL"
)


async def sampled_evidence(
    conn: AsyncConnection, namespace: str, fact_ids: Sequence[UUID], per_stance: int
) -> tuple[list[EvidenceLink], dict[tuple[UUID, str], int]]:
    """Up to `per_stance` links per fact and stance (distinct documents first, newest said first)
    and the exact link count per fact and stance, current testimony of live documents only."""
    if not fact_ids:
        return [], {}
    sql = (
        "SELECT fact_id, claim_id, stance, total FROM (SELECT fact_id, claim_id, stance,"
        " row_number() OVER (PARTITION BY fact_id, stance ORDER BY doc_rank, asserted_at DESC"
        " NULLS LAST, claim_id) AS rn, count(*) OVER (PARTITION BY fact_id, stance) AS total"
        " FROM (SELECT fe.fact_id, fe.claim_id, fe.stance, c.asserted_at, row_number() OVER"
        " (PARTITION BY fe.fact_id, fe.stance, c.document_id"
        f" ORDER BY c.asserted_at DESC NULLS LAST, c.id) AS doc_rank{_LIVE_EVIDENCE}) s) r"
        " WHERE rn <= :per ORDER BY fact_id, stance, rn"
    )
    rows = await conn.execute(
        text(sql), {"ns": namespace, "ids": list(fact_ids), "per": per_stance}
    )
    links: list[EvidenceLink] = []
    totals: dict[tuple[UUID, str], int] = {}
    for row in rows:
        links.append(EvidenceLink(row[0], row[1], row[2]))
        totals[(row[0], row[2])] = int(row[3])
    return links, totals


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
    order: str = LOOKUP_ORDER,
) -> tuple[list[FactView], int, bool]:
    """Qualifying facts matching `where`, the first `limit` in `order`, and the total with
    whether it is exact: counting stops at `_COUNT_CAP`, so a hub's lookup costs the same as
    anyone's (the total is then a lower bound, reported as not exact)."""
    condition = f"f.namespace = :ns AND {where} AND {fact_scope_clause(scope)}"
    params = {"ns": namespace, "lim": limit, "cap": _COUNT_CAP, **bind}
    rows = await conn.execute(
        text(f"SELECT {FACT_COLUMNS}{FACT_FROM} WHERE {condition} ORDER BY {order} LIMIT :lim"),
        params,
    )
    facts = [fact_from_row(row) for row in rows]
    if len(facts) < limit:
        return facts, len(facts), True
    total = (
        await conn.execute(
            text(f"SELECT count(*) FROM (SELECT 1 FROM facts f WHERE {condition} LIMIT :cap) n"),
            params,
        )
    ).scalar_one()
    return facts, int(total), int(total) < _COUNT_CAP


async def relations(
    conn: AsyncConnection,
    namespace: str,
    *,
    subject_entity_id: UUID | None,
    predicate: str | None,
    object_entity_id: UUID | None,
    scope: TimeScope,
    params: dict[str, Any],
    limit: int,
) -> tuple[list[FactView], int, bool]:
    """Qualifying relations with the given ends and predicate (None: any), strongest first,
    with their total as `lookup_facts` counts it."""
    conditions = ["f.kind = 'relation'"]
    bind: dict[str, Any] = {}
    for column, value in (
        ("subject_entity_id", subject_entity_id),
        ("predicate", predicate),
        ("object_entity_id", object_entity_id),
    ):
        if value is not None:
            conditions.append(f"f.{column} = :{column}")
            bind[column] = value
    return await lookup_facts(
        conn, namespace, " AND ".join(conditions), {**bind, **params}, scope, limit
    )


async def observations(
    conn: AsyncConnection,
    namespace: str,
    entity_id: UUID,
    query_vector: str | None,
    *,
    scope: TimeScope,
    params: dict[str, Any],
    limit: int,
) -> tuple[list[FactView], int, bool]:
    """Qualifying observations of an entity, nearest the query vector first when there is one,
    then strongest first, with their total as `lookup_facts` counts it."""
    bind: dict[str, Any] = {"entity": entity_id, **params}
    order = LOOKUP_ORDER
    if query_vector is not None:
        bind["qvec"] = query_vector
        order = f"f.embedding <=> {QVEC} NULLS LAST, " + order
    return await lookup_facts(
        conn,
        namespace,
        "f.kind = 'observation' AND f.subject_entity_id = :entity",
        bind,
        scope,
        limit,
        order=order,
    )


async def transcript(
    conn: AsyncConnection, namespace: str, fact_id: UUID, limit: int
) -> tuple[list[DecisionView], int]:
    """The `limit` most recent decisions about a fact, oldest first, and how many exist."""
    rows = await conn.execute(
        text(
            "SELECT * FROM (SELECT id, fact_id, related_fact_id, outcome, method, engine, model,"
            " confidence, rationale, decided_by, decided_at, window_before, window_after,"
            " claim_id, action FROM decision_transcripts WHERE namespace = :ns AND fact_id = :id"
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
