"""SQL for graph walks: entity redirects, bitemporal relation edges, statement timeouts."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from sqlalchemy import bindparam, text
from sqlalchemy.dialects.postgresql import ARRAY, TEXT
from sqlalchemy.dialects.postgresql import UUID as PG_UUID
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import TextClause

from services.graph.domain import Clocks, EdgeRecord

__all__ = ["EntityRow", "GraphRepository", "is_statement_timeout"]

_IDS = bindparam("ids", type_=ARRAY(PG_UUID(as_uuid=True)))
_PREDICATES = bindparam("preds", type_=ARRAY(TEXT))
_EDGE_COLUMNS = (
    "f.id, f.subject_entity_id, f.predicate, f.object_entity_id, f.label, f.evidence_count,"
    " f.valid_from, f.valid_until, f.valid_precision, f.ingested_at, f.invalidated_at, f.support"
)
# Redirect chains are short in practice; the cap only guards against a corrupt cycle.
MAX_REDIRECT_DEPTH = 8


def _side(column: str, with_predicates: bool) -> str:
    # One branch per direction so each uses its own (namespace, <end>_entity_id, predicate) index.
    predicate = " AND f.predicate = ANY(:preds)" if with_predicates else ""
    return (
        f"SELECT {_EDGE_COLUMNS} FROM facts f"
        f" WHERE f.namespace = :ns AND f.{column} = ANY(:ids){predicate}"
        " AND f.kind = 'relation'"
        " AND (f.valid_from IS NULL OR f.valid_from <= :va)"
        " AND (f.valid_until IS NULL OR :va < f.valid_until)"
        " AND f.ingested_at <= :ba AND (f.invalidated_at IS NULL OR :ba < f.invalidated_at)"
    )


def _edges_sql(with_predicates: bool, ordered: bool) -> TextClause:
    union = (
        f"{_side('subject_entity_id', with_predicates)}"
        f" UNION ALL {_side('object_entity_id', with_predicates)}"
    )
    if ordered:
        # The fence keeps the planner from walking the primary key in order to satisfy ORDER BY.
        sql = f"WITH e AS MATERIALIZED ({union}) SELECT * FROM e ORDER BY id LIMIT :lim"
    else:
        sql = f"SELECT * FROM ({union}) e LIMIT :lim"
    clause = text(sql).bindparams(_IDS)
    return clause.bindparams(_PREDICATES) if with_predicates else clause


_EDGES = {(p, o): _edges_sql(p, o) for p in (False, True) for o in (False, True)}

_ENTITIES = text(
    "SELECT id, redirect_to, canonical_name FROM entities WHERE namespace = :ns AND id = ANY(:ids)"
).bindparams(_IDS)

# Merge events nominate absorbed ids cheaply (indexed by survivor); the redirect itself stays
# authoritative, so callers confirm every candidate by resolving it.
_ABSORBED_CANDIDATES = text(
    "WITH RECURSIVE m(id, depth) AS ("
    " SELECT absorbed_id, 1 FROM merge_events"
    "  WHERE namespace = :ns AND survivor_id = ANY(:ids) AND undone_at IS NULL"
    " UNION"
    " SELECT me.absorbed_id, m.depth + 1 FROM merge_events me JOIN m ON me.survivor_id = m.id"
    "  WHERE me.namespace = :ns AND me.undone_at IS NULL AND m.depth < :depth"
    ") SELECT DISTINCT id FROM m"
).bindparams(_IDS)


@dataclass(frozen=True)
class EntityRow:
    """An entity's id, its redirect (None for a survivor) and canonical name."""

    entity_id: UUID
    redirect_to: UUID | None
    name: str


def is_statement_timeout(exc: BaseException) -> bool:
    """True when a query was cancelled by ``statement_timeout`` (SQLSTATE 57014)."""
    if not isinstance(exc, DBAPIError):
        return False
    orig = exc.orig
    return getattr(orig, "sqlstate", None) == "57014" or "57014" in str(getattr(orig, "pgcode", ""))


class GraphRepository:
    """Read-only queries over ``entities``, ``merge_events`` and relation ``facts``."""

    async def begin_snapshot(self, conn: AsyncConnection, timeout_ms: int) -> datetime:
        """Bound the transaction's statements and return its start instant (belief time)."""
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
        await conn.execute(
            text("SELECT set_config('statement_timeout', :ms, true)"),
            {"ms": str(max(timeout_ms, 1))},
        )

    async def entities(
        self, conn: AsyncConnection, namespace: str, ids: Collection[UUID]
    ) -> list[EntityRow]:
        """The rows of ``ids`` that exist in the namespace."""
        if not ids:
            return []
        result = await conn.execute(_ENTITIES, {"ns": namespace, "ids": list(ids)})
        return [EntityRow(r.id, r.redirect_to, r.canonical_name) for r in result]

    async def absorbed_candidates(
        self, conn: AsyncConnection, namespace: str, survivors: Collection[UUID]
    ) -> list[UUID]:
        """Ids recorded as merged (directly or transitively) into one of ``survivors``."""
        if not survivors:
            return []
        result = await conn.execute(
            _ABSORBED_CANDIDATES,
            {"ns": namespace, "ids": list(survivors), "depth": MAX_REDIRECT_DEPTH},
        )
        return [row[0] for row in result]

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
    ) -> list[EdgeRecord]:
        """Relations touching ``ids`` (either end) that hold at ``clocks``.

        A relation between two of ``ids`` comes back twice; callers dedupe by fact id.
        ``ordered`` sorts by fact id so a truncated fetch is the same on every call.
        """
        if not ids:
            return []
        params: dict[str, object] = {
            "ns": namespace,
            "ids": list(ids),
            "va": clocks.valid_at,
            "ba": clocks.believed_at,
            "lim": limit,
        }
        if predicates:
            params["preds"] = list(predicates)
        result = await conn.execute(_EDGES[(bool(predicates), ordered)], params)
        return [
            EdgeRecord(
                fact_id=r.id,
                subject_entity_id=r.subject_entity_id,
                predicate=r.predicate,
                object_entity_id=r.object_entity_id,
                label=r.label,
                evidence_count=r.evidence_count,
                valid_from=r.valid_from,
                valid_until=r.valid_until,
                valid_precision=r.valid_precision,
                ingested_at=r.ingested_at,
                invalidated_at=r.invalidated_at,
                support=r.support,
            )
            for r in result
        ]
