"""LookupRelations and LookupObservations: filtered fact lists inside one read snapshot."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncConnection

from services.query.domain import (
    FactListResult,
    FactView,
    LookupObservationsQuery,
    LookupRelationsQuery,
    unknown_entity_negative,
    untruncated,
)
from services.query.reads.contradictions import attach_contradictions
from services.query.sql import facts as fact_rows
from services.query.sql.entities import resolve_entities
from services.query.sql.time_scope import scope_params
from shared.answers import NegativeAnswer, TruncationInfo


async def lookup_relations(
    conn: AsyncConnection, q: LookupRelationsQuery, now: datetime
) -> FactListResult:
    entities = [e for e in (q.subject_entity_id, q.object_entity_id) if e is not None]
    known = await resolve_entities(conn, q.namespace, entities)
    missing = [e for e in entities if e not in known]
    if missing:
        return FactListResult([], untruncated(0), unknown_entity_negative(missing))

    def survivor(entity: UUID | None) -> UUID | None:
        # Redirects of merged entities are followed: filter on the survivors.
        return known[entity].entity_id if entity is not None else None

    params = scope_params(q.scope, now)
    facts, total, exact = await fact_rows.relations(
        conn,
        q.namespace,
        subject_entity_id=survivor(q.subject_entity_id),
        predicate=q.predicate,
        object_entity_id=survivor(q.object_entity_id),
        scope=q.scope,
        params=params,
        limit=q.k,
    )
    await attach_contradictions(conn, q.namespace, facts, q.scope, params)
    return _fact_list(facts, total, exact, "relation")


async def lookup_observations(
    conn: AsyncConnection, q: LookupObservationsQuery, vector: str | None, now: datetime
) -> FactListResult:
    known = await resolve_entities(conn, q.namespace, [q.entity_id])
    if q.entity_id not in known:
        return FactListResult([], untruncated(0), unknown_entity_negative([q.entity_id]))
    params = scope_params(q.scope, now)
    facts, total, exact = await fact_rows.observations(
        conn,
        q.namespace,
        known[q.entity_id].entity_id,
        vector,
        scope=q.scope,
        params=params,
        limit=q.k,
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
