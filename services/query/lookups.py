"""LookupRelations and LookupObservations: filtered fact lists inside one read snapshot."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncConnection

from services.query import repository as repo
from services.query.contradictions import attach_contradictions
from services.query.domain import (
    FactListResult,
    FactView,
    LookupObservationsQuery,
    LookupRelationsQuery,
    unknown_entity_negative,
    untruncated,
)
from services.query.temporal import scope_params
from shared.answers import NegativeAnswer, TruncationInfo


async def lookup_relations(
    conn: AsyncConnection, q: LookupRelationsQuery, now: datetime
) -> FactListResult:
    conditions = ["f.kind = 'relation'"]
    bind: dict[str, object] = {}
    for column, value in (
        ("subject_entity_id", q.subject_entity_id),
        ("predicate", q.predicate),
        ("object_entity_id", q.object_entity_id),
    ):
        if value is not None:
            conditions.append(f"f.{column} = :{column}")
            bind[column] = value
    entities = [e for e in (q.subject_entity_id, q.object_entity_id) if e is not None]
    known = await repo.resolve_entities(conn, q.namespace, entities)
    missing = [e for e in entities if e not in known]
    if missing:
        return FactListResult([], untruncated(0), unknown_entity_negative(missing))
    # Redirects of merged entities are followed: filter on the survivors.
    for column in ("subject_entity_id", "object_entity_id"):
        if column in bind:
            bind[column] = known[bind[column]].entity_id  # type: ignore[index]
    params = {**bind, **scope_params(q.scope, now)}
    facts, total, exact = await repo.lookup_facts(
        conn, q.namespace, " AND ".join(conditions), params, q.scope, q.k
    )
    await attach_contradictions(conn, q.namespace, facts, q.scope, params)
    return _fact_list(facts, total, exact, "relation")


async def lookup_observations(
    conn: AsyncConnection, q: LookupObservationsQuery, vector: str | None, now: datetime
) -> FactListResult:
    known = await repo.resolve_entities(conn, q.namespace, [q.entity_id])
    if q.entity_id not in known:
        return FactListResult([], untruncated(0), unknown_entity_negative([q.entity_id]))
    params: dict[str, object] = {
        "entity": known[q.entity_id].entity_id,
        **scope_params(q.scope, now),
    }
    order = repo.LOOKUP_ORDER
    if vector is not None:
        params["qvec"] = vector
        order = "f.embedding <=> CAST(CAST(:qvec AS text) AS vector) NULLS LAST, " + order
    facts, total, exact = await repo.lookup_facts(
        conn,
        q.namespace,
        "f.kind = 'observation' AND f.subject_entity_id = :entity",
        params,
        q.scope,
        q.k,
        order=order,
    )
    await attach_contradictions(conn, q.namespace, facts, q.scope, params)
    return _fact_list(facts, total, exact, "observation")


def _fact_list(facts: list[FactView], total: int, exact: bool, what: str) -> FactListResult:
    cut = total > len(facts)
    negative = None
    if not facts:
        negative = NegativeAnswer(
            kind="known_empty",
            explanation=f"no {what} matches the request in this time scope",
            workaround="widen the time scope (history) or relax the filters",
        )
    truncation = TruncationInfo(
        truncated=cut,
        returned=len(facts),
        estimated_total=total,
        total_is_exact=exact,
        reasons=("lookup_k_limit",) if cut else (),
    )
    return FactListResult(facts, truncation, negative)
