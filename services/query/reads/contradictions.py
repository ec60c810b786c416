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

from sqlalchemy.ext.asyncio import AsyncConnection

from services.query.domain import (
    MAX_INLINE_CO_MEMBERS,
    CoMemberView,
    ContradictionView,
    FactView,
)
from services.query.sql.contradictions import believed_members, group_members
from shared.timescope import TimeScope

__all__ = [
    "MemberPage",
    "attach_contradictions",
    "continuation_token",
    "member_page",
    "parse_continuation",
]

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
    members, totals = await group_members(
        conn, namespace, list(groups), MAX_INLINE_CO_MEMBERS + 1, scope, params
    )
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
    """The Python twin of `sql.time_scope.belief_clause` for one fact."""
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
    page = await believed_members(conn, namespace, group_id, offset, page_size)
    if page is None:
        return None
    members, total = page
    after = offset + len(members)
    return MemberPage(members, total, continuation_token(group_id, after) if after < total else "")
