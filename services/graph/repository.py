"""SQL for graph walks: read snapshots, entity redirects, bitemporal relation edges, timeouts.

Walks run on the asyncpg connection under the SQLAlchemy transaction: a hub hop returns
thousands of rows, and plain asyncpg records cost a fraction of ORM/Core row processing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from services.graph.domain import Clocks, EdgeRecord

__all__ = [
    "MAX_REDIRECT_DEPTH",
    "EdgeKey",
    "EdgeRow",
    "EntityRow",
    "GraphRepository",
    "is_statement_timeout",
]

# Redirect chains are short in practice; the cap only guards against a corrupt cycle.
MAX_REDIRECT_DEPTH = 8

# Parameters: $1 namespace, $2 ids, $3 valid_at, $4 believed_at, $5 limit (_BEYOND: known
# ids), $6 redirect depth, $7 predicates. Merge events nominate ids merged into $2 (indexed
# by survivor); the redirect itself stays authoritative: callers resolve every endpoint and
# drop edges whose resolved ends are not in the frontier.
_MEMBERS = (
    "WITH RECURSIVE m(id, depth) AS ("
    " SELECT absorbed_id, 1 FROM merge_events"
    "  WHERE namespace = $1 AND survivor_id = ANY($2::uuid[]) AND undone_at IS NULL"
    " UNION"
    " SELECT me.absorbed_id, m.depth + 1 FROM merge_events me JOIN m ON me.survivor_id = m.id"
    "  WHERE me.namespace = $1 AND me.undone_at IS NULL AND m.depth < $6"
    "), members AS MATERIALIZED (SELECT $2::uuid[] || ARRAY(SELECT id FROM m) AS ids)"
)
# kind = 'relation' also selects the partial covering indexes, so hops are index-only scans.
_HOLDS = (
    " AND f.kind = 'relation'"
    " AND (f.valid_from IS NULL OR f.valid_from <= $3)"
    " AND (f.valid_until IS NULL OR $3 < f.valid_until)"
    " AND f.ingested_at <= $4 AND (f.invalidated_at IS NULL OR $4 < f.invalidated_at)"
)


def _side(near: str, far: str, with_predicates: bool) -> str:
    # One branch per direction so each uses its own (namespace, <end>_entity_id, ...) index.
    predicate = " AND f.predicate = ANY($7::text[])" if with_predicates else ""
    return (
        f"SELECT f.id, f.subject_entity_id, f.object_entity_id, f.{far} AS far FROM facts f"
        f" WHERE f.namespace = $1 AND f.{near} = ANY((SELECT ids FROM members)::uuid[])"
        f"{predicate}{_HOLDS}"
    )


def _union(with_predicates: bool) -> str:
    return (
        f"{_side('subject_entity_id', 'object_entity_id', with_predicates)}"
        f" UNION ALL {_side('object_entity_id', 'subject_entity_id', with_predicates)}"
    )


def _edges_sql(with_predicates: bool, ordered: bool) -> str:
    # The far end's entity row comes with each edge, saving a round trip per hop; the join
    # runs after LIMIT so a hub pays it only for the edges it keeps.
    if ordered:
        # The fence keeps the planner from walking the primary key in order to satisfy ORDER BY;
        # the one-time filters sort only when the limit actually cuts (callers re-sort the
        # joined rows then, since a join need not keep the order).
        edges = f", e AS MATERIALIZED ({_union(with_predicates)}), n AS (SELECT count(*) FROM e)"
        page = (
            "(SELECT * FROM e WHERE (SELECT * FROM n) <= $5 UNION ALL"
            " (SELECT * FROM e WHERE (SELECT * FROM n) > $5 ORDER BY id LIMIT $5))"
        )
    else:
        edges, page = "", f"(SELECT * FROM ({_union(with_predicates)}) u LIMIT $5)"
    return (
        f"{_MEMBERS}{edges} SELECT p.id, p.subject_entity_id, p.object_entity_id, p.far,"
        " ent.id IS NOT NULL, ent.redirect_to, ent.canonical_name"
        f" FROM {page} p LEFT JOIN entities ent ON ent.namespace = $1 AND ent.id = p.far"
    )


def _beyond_sql(with_predicates: bool) -> str:
    # $5 is the known ids here. NOT IN over a subquery is planned as a hashed subplan, and
    # EXISTS stops at the first edge that leaves the known set.
    return (
        f"{_MEMBERS} SELECT EXISTS (SELECT 1 FROM ({_union(with_predicates)}) u"
        " WHERE u.far NOT IN (SELECT unnest($5::uuid[])))"
    )


_EDGES = {(p, o): _edges_sql(p, o) for p in (False, True) for o in (False, True)}
_BEYOND = {p: _beyond_sql(p) for p in (False, True)}

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

EdgeRow = tuple[UUID, UUID, UUID, UUID, bool, UUID | None, str | None]
"""An edge key, then its far end (the end not looked up from) with that entity's row:
id, whether it exists in the namespace, its redirect and canonical name."""


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

    @asynccontextmanager
    async def snapshot(
        self, engine: AsyncEngine, timeout_ms: int, namespace: str, ids: Collection[UUID] = ()
    ) -> AsyncIterator[tuple[AsyncConnection, datetime, list[EntityRow]]]:
        """A read-only snapshot, its start instant and the entity rows of ``ids``."""
        async with engine.connect() as conn:
            # Repeatable read: every hop of one call sees the same committed state.
            conn = await conn.execution_options(
                isolation_level="REPEATABLE READ", postgresql_readonly=True
            )
            now, rows = await self.begin_snapshot(conn, timeout_ms, namespace, ids)
            try:
                yield conn, now, rows
            finally:
                await conn.rollback()

    async def begin_snapshot(
        self, conn: AsyncConnection, timeout_ms: int, namespace: str, ids: Collection[UUID]
    ) -> tuple[datetime, list[EntityRow]]:
        """Start the transaction, bound its statements, return its start instant and the rows
        of ``ids`` (one statement, so resolving a walk's ends costs no extra round trip).

        Walk queries then run on generic plans: their shape is fixed by the covering indexes
        and CTE fences, so re-planning every statement for its arrays (~0.4 ms) buys nothing.
        """
        rows = (
            await conn.execute(
                text(
                    "SELECT now(), set_config('statement_timeout', :ms, true),"
                    " set_config('plan_cache_mode', 'force_generic_plan', true),"
                    " e.id, e.redirect_to, e.canonical_name FROM (SELECT 1) one"
                    " LEFT JOIN entities e"
                    " ON e.namespace = :ns AND e.id = ANY(CAST(:ids AS uuid[]))"
                ),
                {"ms": str(max(timeout_ms, 1)), "ns": namespace, "ids": list(ids)},
            )
        ).all()
        snapshot: datetime = rows[0][0]
        return snapshot, [EntityRow(r[3], r[4], r[5]) for r in rows if r[3] is not None]

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

    async def edges(
        self,
        conn: AsyncConnection,
        namespace: str,
        ids: Sequence[UUID],
        *,
        predicates: Sequence[str],
        clocks: Clocks,
        limit: int,
        ordered: bool,
    ) -> list[EdgeRow]:
        """Relations touching ``ids`` or ids merged into them that hold at ``clocks``.

        A relation between two of ``ids`` comes back twice; callers dedupe by fact id.
        ``ordered`` keeps the ``limit`` smallest fact ids when more match, so a truncated fetch
        is the same on every call; rows come in no particular order.
        """
        if not ids:
            return []
        driver = await _driver(conn)
        args = self._args(namespace, ids, predicates, clocks, limit)
        rows = await driver.fetch(_EDGES[(bool(predicates), ordered)], *args)
        # asyncpg records index and unpack like the tuples they stand for.
        edge_rows: list[EdgeRow] = rows
        return edge_rows

    async def leads_outside(
        self,
        conn: AsyncConnection,
        namespace: str,
        ids: Sequence[UUID],
        known: Collection[UUID],
        *,
        predicates: Sequence[str],
        clocks: Clocks,
    ) -> bool:
        """Whether a relation holding at ``clocks`` joins ``ids`` to an id not in ``known``."""
        if not ids:
            return False
        driver = await _driver(conn)
        args = self._args(namespace, ids, predicates, clocks, list(known))
        outside: bool = await driver.fetchval(_BEYOND[bool(predicates)], *args)
        return outside

    @staticmethod
    def _args(
        namespace: str, ids: Sequence[UUID], predicates: Sequence[str], clocks: Clocks, fifth: Any
    ) -> list[Any]:
        # $5 is the row limit for edges and the known ids for leads_outside.
        args: list[Any] = [
            namespace,
            list(ids),
            clocks.valid_at,
            clocks.believed_at,
            fifth,
            MAX_REDIRECT_DEPTH,
        ]
        if predicates:
            args.append(list(predicates))
        return args

    async def edge_details(
        self, conn: AsyncConnection, namespace: str, fact_ids: Collection[UUID]
    ) -> dict[UUID, EdgeRecord]:
        """Full records of relations a walk returns, read in the walk's snapshot."""
        if not fact_ids:
            return {}
        driver = await _driver(conn)
        rows = await driver.fetch(_EDGE_DETAILS, namespace, list(fact_ids))
        return {r[0]: EdgeRecord(*r) for r in rows}
