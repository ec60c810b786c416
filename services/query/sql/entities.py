"""SQL reads of entities for the reads: merge redirects, anchor expansion, profiles."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from services.query.domain import EntityRefView
from services.query.sql.time_scope import fact_scope_clause
from shared.timescope import TimeScope

__all__ = ["entity_profiles", "expand_anchors", "resolve_entities"]

_MAX_REDIRECTS = 8
# Relations read per frontier entity and direction: a hub's strongest links are looked for
# among this many (index order), so expanding from a hub costs the same as from anyone.
_EXPANSION_SCAN = 1000


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
        " FROM chain c JOIN entities e ON e.namespace = :ns AND e.id = c.redirect_to"
        f" WHERE c.depth < {_MAX_REDIRECTS})"
        " SELECT c.requested, e.id, e.canonical_name FROM chain c"
        " JOIN entities e ON e.namespace = :ns AND e.id = c.id"
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
) -> tuple[dict[UUID, tuple[int, str]], bool]:
    """Entities reachable through qualifying relations, strongest links first, within budget.

    Returns entity -> (hop distance, name) for the reached neighbours and whether the entity
    budget cut the expansion."""
    distance: dict[UUID, int] = {anchor: 0 for anchor in anchors}
    names: dict[UUID, str] = {}
    frontier = list(anchors)
    cut = False
    clause = fact_scope_clause(scope)
    for hop in range(1, hops + 1):
        room = max_entities - len(distance)
        if room <= 0 or not frontier:
            break
        sql = (
            "SELECT nb, max(strength) AS strength FROM ("
            " SELECT x.nb, x.strength FROM unnest(CAST(:frontier AS uuid[])) AS fr(id), LATERAL"
            " (SELECT f.object_entity_id AS nb, f.evidence_count AS strength FROM facts f"
            " WHERE f.namespace = :ns AND f.kind = 'relation'"
            f" AND f.subject_entity_id = fr.id AND {clause} LIMIT :scan) x"
            " UNION ALL SELECT x.nb, x.strength FROM unnest(CAST(:frontier AS uuid[])) AS fr(id),"
            " LATERAL (SELECT f.subject_entity_id AS nb, f.evidence_count AS strength FROM facts f"
            " WHERE f.namespace = :ns AND f.kind = 'relation'"
            f" AND f.object_entity_id = fr.id AND {clause} LIMIT :scan) x) x"
            " WHERE nb <> ALL(CAST(:seen AS uuid[]))"
            " GROUP BY nb ORDER BY strength DESC, nb LIMIT :lim"
        )
        sql = (
            f"SELECT n.nb, e.canonical_name FROM ({sql}) n"
            " JOIN entities e ON e.namespace = :ns AND e.id = n.nb"
            " ORDER BY n.strength DESC, n.nb"
        )
        bind = {
            "ns": namespace,
            "frontier": frontier,
            "seen": list(distance),
            "lim": room + 1,
            "scan": _EXPANSION_SCAN,
            **params,
        }
        rows = [tuple(row) for row in await conn.execute(text(sql), bind)]
        neighbours = [row[0] for row in rows]
        names.update((row[0], row[1]) for row in rows)
        if len(neighbours) > room:
            cut = True
            neighbours = neighbours[:room]
        for entity in neighbours:
            distance[entity] = hop
        frontier = neighbours
    return {e: (hop, names.get(e, "")) for e, hop in distance.items()}, cut


async def entity_profiles(
    session: AsyncSession, namespace: str, ids: list[UUID]
) -> dict[UUID, str]:
    """The profile text of each of `ids` (empty when it has none)."""
    rows = await session.execute(
        text(
            "SELECT id, coalesce(profile_text, '') AS profile FROM entities"
            " WHERE namespace = :ns AND id = ANY(:ids)"
        ),
        {"ns": namespace, "ids": ids},
    )
    return {r.id: r.profile for r in rows}
