"""Dead-lettered work items: which there are, by version, and replaying them."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.models import WorkItem
from shared.db.queue.items import notify


async def dead_letters(
    session: AsyncSession,
    namespace: str,
    kinds: Collection[str],
    version_ids: Collection[uuid.UUID] | None = None,
) -> list[tuple[uuid.UUID, uuid.UUID | None]]:
    """`(item id, version id)` of the dead-lettered items of `kinds` (of those versions)."""
    conditions = [
        WorkItem.namespace == namespace,
        WorkItem.kind.in_(list(kinds)),
        WorkItem.status == "dead_letter",
    ]
    if version_ids is not None:
        conditions.append(WorkItem.version_id.in_(list(version_ids)))
    rows = await session.execute(select(WorkItem.id, WorkItem.version_id).where(*conditions))
    return [(row.id, row.version_id) for row in rows]


async def dead_lettered_versions(
    session: AsyncSession, namespace: str, version_ids: Collection[uuid.UUID]
) -> set[uuid.UUID]:
    """Which of `version_ids` have a dead-lettered item, of any kind."""
    rows = await session.execute(
        select(WorkItem.version_id).where(
            WorkItem.namespace == namespace,
            WorkItem.version_id.in_(list(version_ids)),
            WorkItem.status == "dead_letter",
        )
    )
    return {v for v in rows.scalars() if v is not None}


async def replay_dead_letters(
    session: AsyncSession,
    namespace: str,
    kinds: Sequence[str] | None = None,
    ids: Sequence[uuid.UUID] | None = None,
    *,
    kind_prefix: str | None = None,
) -> int:
    """Make dead-lettered items of `namespace` runnable again with fresh attempts.

    `kinds`, `kind_prefix` and `ids` narrow the selection when given. Returns how many were
    replayed.
    """
    conditions = [WorkItem.namespace == namespace, WorkItem.status == "dead_letter"]
    if kinds is not None:
        conditions.append(WorkItem.kind.in_(list(kinds)))
    if kind_prefix is not None:
        conditions.append(func.starts_with(WorkItem.kind, kind_prefix))
    if ids is not None:
        conditions.append(WorkItem.id.in_(list(ids)))
    result = await session.execute(
        update(WorkItem)
        .where(*conditions)
        .values(
            status="pending",
            attempts=0,
            run_after=func.now(),
            locked_by=None,
            locked_until=None,
            updated_at=func.now(),
        )
        .returning(WorkItem.kind)
        .execution_options(synchronize_session=False)
    )
    replayed = list(result.scalars())
    for kind in sorted(set(replayed)):
        await notify(session, kind)
    return len(replayed)
