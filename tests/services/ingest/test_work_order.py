"""Ingest workers take a runnable embed item before another extraction (real queue rows)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.ingest.pipeline import prefer_embedding
from shared.db.models import WorkItem
from shared.db.queue import claim, enqueue
from shared.pipeline.kinds import EMBED_KIND, EXTRACT_KIND, INGEST_KINDS

# Older than anything another test leaves behind, so "the oldest runnable" is this test's.
_LONG_AGO = datetime(2000, 1, 1, tzinfo=UTC)


async def test_oldest_runnable_embed_is_preferred_over_an_older_extraction(
    session_factory: async_sessionmaker[AsyncSession], namespace: str
) -> None:
    async with session_factory() as session, session.begin():
        extract = await enqueue(session, namespace, EXTRACT_KIND, {}, run_after=_LONG_AGO)
        later = await enqueue(
            session, namespace, EMBED_KIND, {}, run_after=_LONG_AGO + timedelta(days=1)
        )
        future = await enqueue(
            session, namespace, EMBED_KIND, {}, run_after=datetime.now(UTC) + timedelta(hours=1)
        )
        leased = await enqueue(session, namespace, EMBED_KIND, {}, run_after=_LONG_AGO)
        await session.execute(
            update(WorkItem)
            .where(WorkItem.id == leased)
            .values(status="running", locked_until=datetime.now(UTC) + timedelta(hours=1))
        )
    try:
        async with session_factory() as session:
            preferred = await prefer_embedding(session, INGEST_KINDS)
            # A worker of extraction only has no embed item to prefer.
            assert await prefer_embedding(session, (EXTRACT_KIND,)) is None
        # Not the extraction queued first, not the one leased to a live worker, not the one
        # whose retry time is still ahead.
        assert preferred == later
        assert preferred not in (extract, leased, future)
        item = await claim(session_factory, INGEST_KINDS, "test-worker", 60, item_id=preferred)
        assert item is not None and item.kind == EMBED_KIND
        # With the embed item taken, the queue's own order hands out the extraction.
        async with session_factory() as session:
            assert await prefer_embedding(session, INGEST_KINDS) != later
    finally:
        async with session_factory() as session, session.begin():
            await session.execute(delete(WorkItem).where(WorkItem.namespace == namespace))
