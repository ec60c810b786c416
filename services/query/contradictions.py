"""Contradiction groups: the inline co-member block, its continuation token, and member pages.

The token names a group and an offset into the group's believed members in one stable order
(evidence count, then first learned, then id). The inline block lists a fact's co-members; its
token points just past the last inline co-member in that order, so paging from it yields every
remaining member exactly once (the fact itself included when it sorts later).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from services.query.domain import (
    MAX_INLINE_CO_MEMBERS,
    CoMemberView,
    ContradictionView,
    FactView,
)
from services.query.temporal import belief_clause
from shared.timescope import TimeScope

__all__ = [
    "MemberPage",
    "attach_contradictions",
    "continuation_token",
    "member_page",
    "parse_continuation",
]

_MEMBER_COLUMNS = (
    "f.id, f.label, f.evidence_count, f.valid_from, f.valid_until, f.valid_precision,"
    " f.ingested_at, f.invalidated_at"
)
_MEMBER_ORDER = "f.evidence_count DESC, f.ingested_at, f.id"
_MAX_TOKEN_CHARS = 512


def continuation_token(group_id: UUID, offset: int) -> str:
    """Opaque token naming the group and the offset of the next member to list."""
    raw = json.dumps({"group_id": str(group_id), "offset": offset}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def parse_continuation(token: str) -> tuple[UUID, int]:
    """The group and offset a token names; ValueError when it is not one of ours."""
    if len(token) > _MAX_TOKEN_CHARS:
        raise ValueError("is too long to be a continuation token")
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        payload = json.loads(raw)
        group_id = UUID(payload["group_id"])
        offset = payload["offset"]
    except (binascii.Error, ValueError, TypeError, KeyError, UnicodeDecodeError) as error:
        raise ValueError("is not a continuation token issued by this service") from error
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise ValueError("carries an invalid offset")
    return group_id, offset


async def attach_contradictions(
    conn: AsyncConnection,
    namespace: str,
    facts: Sequence[FactView],
    scope: TimeScope,
    params: dict[str, Any],
) -> None:
    """Give every fact in a live group its co-members (believed now, or at believed_at).

    One statement for all groups; each group returns at most enough members for the inline
    block (plus the fact itself) and its believed-member count."""
    groups = {f.contradiction_group_id for f in facts if f.contradiction_group_id is not None}
    if not groups:
        return
    sql = (
        "SELECT gid, total, m.* FROM unnest(CAST(:gids AS uuid[])) AS g(gid),"
        f" LATERAL (SELECT count(*) AS total FROM facts f WHERE f.namespace = :ns"
        f" AND f.contradiction_group_id = g.gid AND {belief_clause(scope)}) t,"
        f" LATERAL (SELECT {_MEMBER_COLUMNS} FROM facts f WHERE f.namespace = :ns"
        f" AND f.contradiction_group_id = g.gid AND {belief_clause(scope)}"
        f" ORDER BY {_MEMBER_ORDER} LIMIT :per_group) m"
    )
    bind = {"ns": namespace, "gids": list(groups), "per_group": MAX_INLINE_CO_MEMBERS + 1}
    rows = await conn.execute(text(sql), {**bind, **params})
    members: dict[UUID, list[CoMemberView]] = {}
    totals: dict[UUID, int] = {}
    for row in rows:
        totals[row[0]] = int(row[1])
        members.setdefault(row[0], []).append(CoMemberView(*row[2:]))
    for fact in facts:
        group = fact.contradiction_group_id
        if group is None:
            continue
        listed = members.get(group, [])
        others = [m for m in listed if m.fact_id != fact.fact_id]
        inline = tuple(others[:MAX_INLINE_CO_MEMBERS])
        believed = totals.get(group, 0)
        # The fact itself is among the believed members unless the scope rules it out.
        total = believed - _believed(fact, scope, params)
        # Offset in the group order just past the last inline co-member.
        offset = listed.index(inline[-1]) + 1 if inline else 0
        fact.contradiction = ContradictionView(
            group_id=group,
            co_members=inline,
            total=total,
            continuation=continuation_token(group, offset) if total > len(inline) else "",
        )


def _believed(fact: FactView, scope: TimeScope, params: dict[str, Any]) -> bool:
    """The Python twin of `belief_clause` for one fact."""
    if scope.kind != "as_of":
        return fact.invalidated_at is None
    believed_at = params["believed_at"]
    return fact.ingested_at <= believed_at and (
        fact.invalidated_at is None or fact.invalidated_at > believed_at
    )


@dataclass(frozen=True)
class MemberPage:
    members: list[CoMemberView]
    total: int
    continuation: str


async def member_page(
    conn: AsyncConnection, namespace: str, group_id: UUID, offset: int, page_size: int
) -> MemberPage | None:
    """One page of a group's members believed now; None when the group does not exist."""
    exists = await conn.execute(
        text("SELECT 1 FROM contradiction_groups WHERE namespace = :ns AND id = :gid"),
        {"ns": namespace, "gid": group_id},
    )
    if exists.first() is None:
        return None
    scope = TimeScope(kind="current")
    where = f"f.namespace = :ns AND f.contradiction_group_id = :gid AND {belief_clause(scope)}"
    bind = {"ns": namespace, "gid": group_id, "off": offset, "lim": page_size}
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
    members = [CoMemberView(*row[:-1]) for row in listed]
    after = offset + len(members)
    return MemberPage(members, total, continuation_token(group_id, after) if after < total else "")
