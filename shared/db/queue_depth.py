"""Counts of the work queue per kind and status, and the age of its oldest runnable item."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

__all__ = ["queue_depth_rows"]

# Served by ix_work_items_claimable (status, run_after); succeeded items are never read.
_SAMPLE = text(
    """
    SELECT kind, status, count(*) AS items,
           COALESCE(EXTRACT(EPOCH FROM now() - min(run_after)
                    FILTER (WHERE status IN ('pending', 'failed') AND run_after <= now())), 0)
             AS oldest_runnable_seconds
      FROM work_items
     WHERE status = ANY(:statuses) AND kind = ANY(:kinds)
     GROUP BY kind, status
    """
)


async def queue_depth_rows(
    conn: AsyncConnection, statuses: list[str], kinds: list[str]
) -> list[tuple[str, str, int, float]]:
    """(kind, status, items, age of the oldest runnable item in seconds) for each kind and
    status that has items."""
    rows = await conn.execute(_SAMPLE, {"statuses": statuses, "kinds": kinds})
    return [(kind, status, int(items), float(oldest)) for kind, status, items, oldest in rows]
