"""SQL for graph walks: entity redirects, bitemporal relation edges, statement timeouts.

Walks run on the asyncpg connection under the SQLAlchemy transaction: a hub hop returns
thousands of rows, and plain asyncpg records cost a fraction of ORM/Core row processing.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection

from services.graph.domain import Clocks, EdgeRecord

__all__ = ["MAX_REDIRECT_DEPTH", "EdgeKey", "EntityRow", "GraphRepository", "is_statement_timeout"]

# Redirect chains are short in practice; the cap only guards against a corrupt cycle.
MAX_REDIRECT_DEPTH = 8

# Parameters: $1 namespace, $2 ids, $3 valid_at, $4 believed_at, $5 limit, $6 redirect depth,
# $7 predicates. Merge events nominate ids merged into $2 (indexed by survivor); the redirect
# itself stays authoritative: callers resolve every endpoint and drop edges whose resolved
# ends are not in the frontier.
_MEMBERS = (
    "WITH RECURSIVE m(id, depth) AS ("
    " SELECT absorbed_id, 1 FROM merge_events"
    "  WHERE namespace = $1 AND survivor_id = ANY($2::uuid[]) AND undone_at IS NULL"
    " UNION"
    " SELECT me.absorbed_id, m.depth + 1 FROM merge_events me JOIN m ON me.survivor_id = m.id"
    "  WHERE me.namespace = $1 AND me.undone_at IS NULL AND m.depth < $6"
    "), members AS MATERIALIZED (SELECT $2::uuid[] || ARRAY(SELECT id FROM m) AS ids)"
)
_HOLDS = (
    " AND f.kind = 'relation'"
    " AND (f.valid_from IS NULL OR f.valid_from <= $3)"
    " AND (f.valid_until IS NULL OR $3 < f.valid_until)"
    " AND f.ingested_at <= $4 AND (f.invalidated_at IS NULL OR $4 < f.invalidated_at)"
)


def _side(column: str, with_predicates: bool) -> str:
    # One branch per direction so each uses its own (namespace, <end>_entity_id, predicate) index.
    predicate = " AND f.predicate = ANY($7::text[])" if with_predicates else ""
    return (
        "SELECT f.id, f.subject_entity_id, f.object_entity_id FROM facts f"
        f" WHERE f.namespace = $1 AND f.{column} = ANY((SELECT ids FROM members)::uuid[])"
        f"{predicate}{_HOLDS}"
    )


def _edges_sql(with_predicates: bool, ordered: bool) -> str:
    union = (
        f"{_side('subject_entity_id', with_predicates)}"
        f" UNION ALL {_side('object_entity_id', with_predicates)}"
    )
    if ordered:
        # The fence keeps the planner from walking the primary key in order to satisfy ORDER BY.
        return f"{_MEMBERS}, e AS MATERIALIZED ({union}) SELECT * FROM e ORDER BY id LIMIT $5"
    return f"{_MEMBERS} SELECT * FROM ({union}) e LIMIT $5"


_EDGES = {(p, o): _edges_sql(p, o) for p in (False, True) for o in (False, True)}

_EDGE_DETAILS = (
    "SELECT id, subject_entity_id, predicate, object_entity_id, label, evidence_count,"
    " valid_from, valid_until, valid_precision, ingested_at, invalidated_at, support"
    " FROM facts WHERE namespace = $1 AND id = ANY($2::uuid[])"
)

_ENTITIES = (
    "SELECT id, redirect_to, canonical_name FROM entities"
    " WHERE namespace = $1 AND id = ANY($2::uuid[])"
)

EdgeKey = tuple[UUID, UUID, UUID]
"""(fact id, subject id, object id): all a walk needs of a relation until it returns edges.
A plain tuple because a hub hop builds thousands of them."""


@dataclass(frozen=True)
class EntityRow:
    """An entity's id, its redirect (None for a survivor) and canonical name."""

    entity_id: UUID
    redirect_to: UUID | None
    name: str


def is_statement_timeout(exc: BaseException) -> bool:
    """True when a query was cancelled by ``statement_timeout`` (SQLSTATE 57014)."""
    if isinstance(exc, DBAPIError):
        exc = exc.orig or exc
    return isinstance(exc, asyncpg.exceptions.QueryCanceledError) or (
        getattr(exc, "sqlstate", None) == "57014"
    )


async def _driver(conn: AsyncConnection) -> Any:
    raw = await conn.get_raw_connection()
    return raw.driver_connection


class GraphRepository:
    """Read-only queries over ``entities``, ``merge_events`` and relation ``facts``."""

    async def begin_snapshot(self, conn: AsyncConnection, timeout_ms: int) -> datetime:
        """Start the transaction, bound its statements and return its start instant."""
        row = (
            await conn.execute(
                text("SELECT now(), set_config('statement_timeout', :ms, true)"),
                {"ms": str(max(timeout_ms, 1))},
            )
        ).one()
        snapshot: datetime = row[0]
        return snapshot

    async def set_timeout(self, conn: AsyncConnection, timeout_ms: int) -> None:
        """Bound the next statements by the time left in the walk's budget."""
        driver = await _driver(conn)
        await driver.execute(f"SET LOCAL statement_timeout = {max(int(timeout_ms), 1)}")

    async def entities(
        self, conn: AsyncConnection, namespace: str, ids: Collection[UUID]
    ) -> list[EntityRow]:
        """The rows of ``ids`` that exist in the namespace."""
        if not ids:
            return []
        driver = await _driver(conn)
        rows = await driver.fetch(_ENTITIES, namespace, list(ids))
        return [EntityRow(r[0], r[1], r[2]) for r in rows]

    async def edge_keys(
        self,
        conn: AsyncConnection,
        namespace: str,
        ids: Sequence[UUID],
        *,
        predicates: Sequence[str],
        clocks: Clocks,
        limit: int,
        ordered: bool,
    ) -> list[EdgeKey]:
        """Relations touching ``ids`` or ids merged into them that hold at ``clocks``.

        A relation between two of ``ids`` comes back twice; callers dedupe by fact id.
        ``ordered`` sorts by fact id so a truncated fetch is the same on every call.
        """
        if not ids:
            return []
        driver = await _driver(conn)
        args: list[Any] = [
            namespace,
            list(ids),
            clocks.valid_at,
            clocks.believed_at,
            limit,
            MAX_REDIRECT_DEPTH,
        ]
        if predicates:
            args.append(list(predicates))
        rows = await driver.fetch(_EDGES[(bool(predicates), ordered)], *args)
        return [(r[0], r[1], r[2]) for r in rows]

    async def edge_details(
        self, conn: AsyncConnection, namespace: str, fact_ids: Collection[UUID]
    ) -> dict[UUID, EdgeRecord]:
        """Full records of relations a walk returns, read in the walk's snapshot."""
        if not fact_ids:
            return {}
        driver = await _driver(conn)
        rows = await driver.fetch(_EDGE_DETAILS, namespace, list(fact_ids))
        return {r[0]: EdgeRecord(*r) for r in rows}
