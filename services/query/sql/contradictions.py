"""SQL reads of contradiction groups: believed members in the group order, and their count."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from services.query.domain import CoMemberView
from services.query.sql.time_scope import belief_clause
from shared.timescope import TimeScope

__all__ = ["believed_members", "group_members"]

_MEMBER_COLUMNS = (
    "f.id, f.label, f.evidence_count, f.valid_from, f.valid_until, f.valid_precision,"
    " f.ingested_at, f.invalidated_at"
)
# The group order continuation tokens count offsets in (reads/contradictions.py).
_MEMBER_ORDER = "f.evidence_count DESC, f.ingested_at, f.id"


async def group_members(
    conn: AsyncConnection,
    namespace: str,
    group_ids: Sequence[UUID],
    per_group: int,
    scope: TimeScope,
    params: dict[str, Any],
) -> tuple[dict[UUID, list[CoMemberView]], dict[UUID, int]]:
    """The first `per_group` members of each group believed in `scope`, in the group order,
    and each group's believed-member count, in one statement for all groups."""
    sql = (
        "SELECT gid, total, m.* FROM unnest(CAST(:gids AS uuid[])) AS g(gid),"
        f" LATERAL (SELECT count(*) AS total FROM facts f WHERE f.namespace = :ns"
        f" AND f.contradiction_group_id = g.gid AND {belief_clause(scope)}) t,"
        f" LATERAL (SELECT {_MEMBER_COLUMNS} FROM facts f WHERE f.namespace = :ns"
        f" AND f.contradiction_group_id = g.gid AND {belief_clause(scope)}"
        f" ORDER BY {_MEMBER_ORDER} LIMIT :per_group) m"
    )
    bind = {"ns": namespace, "gids": list(group_ids), "per_group": per_group}
    rows = await conn.execute(text(sql), {**bind, **params})
    members: dict[UUID, list[CoMemberView]] = {}
    totals: dict[UUID, int] = {}
    for row in rows:
        totals[row[0]] = int(row[1])
        members.setdefault(row[0], []).append(CoMemberView(*row[2:]))
    return members, totals


async def believed_members(
    conn: AsyncConnection, namespace: str, group_id: UUID, offset: int, limit: int
) -> tuple[list[CoMemberView], int] | None:
    """Up to `limit` members believed now from `offset` in the group order, and how many are
    believed; None when the group does not exist."""
    exists = await conn.execute(
        text("SELECT 1 FROM contradiction_groups WHERE namespace = :ns AND id = :gid"),
        {"ns": namespace, "gid": group_id},
    )
    if exists.first() is None:
        return None
    scope = TimeScope(kind="current")
    where = f"f.namespace = :ns AND f.contradiction_group_id = :gid AND {belief_clause(scope)}"
    bind = {"ns": namespace, "gid": group_id, "off": offset, "lim": limit}
    rows = await conn.execute(
        text(
            f"SELECT {_MEMBER_COLUMNS}, count(*) OVER () FROM facts f WHERE {where}"
            f" ORDER BY {_MEMBER_ORDER} OFFSET :off LIMIT :lim"
        ),
        bind,
    )
    listed = [tuple(row) for row in rows]
    if listed:
        total = int(listed[0][-1])
    else:
        count = await conn.execute(text(f"SELECT count(*) FROM facts f WHERE {where}"), bind)
        total = int(count.scalar_one())
    return [CoMemberView(*row[:-1]) for row in listed], total
