"""Rows per table and namespace (BM25's collection size N; what a common term would cost), kept
briefly."""

from __future__ import annotations

import time

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

__all__ = ["CollectionSizes"]

_TABLES = frozenset({"claims", "chunks", "facts"})


class CollectionSizes:
    """Counts of a namespace's claims and chunks, re-counted at most every `ttl_seconds`.

    IDF needs N, and counting a namespace of 200k chunks is an index-only scan of ~100 ms:
    a tenth of a ClaimsAndSourcesContext at 1M facts, paid by every request for a number that
    moves by a fraction of a percent a minute and changes an IDF by less. The statement that
    ranks uses whatever is kept here; only an entity-restricted channel (whose N is its own
    subset) still counts in SQL. At most `max_entries` namespaces are kept (oldest dropped)."""

    def __init__(self, ttl_seconds: float = 60.0, max_entries: int = 4096) -> None:
        self._ttl = ttl_seconds
        self._max = max_entries
        self._known: dict[tuple[str, str], tuple[float, int]] = {}

    async def size(self, conn: AsyncConnection, table: str, namespace: str) -> int:
        if table not in _TABLES:
            raise ValueError(f"{table} has no collection size")
        key = (table, namespace)
        now = time.monotonic()
        kept = self._known.get(key)
        if kept is not None and now - kept[0] < self._ttl:
            return kept[1]
        count = await conn.execute(
            text(f"SELECT count(*) FROM {table} WHERE namespace = :ns"), {"ns": namespace}
        )
        size = int(count.scalar_one())
        self._known.pop(key, None)
        self._known[key] = (now, size)
        if len(self._known) > self._max:
            del self._known[next(iter(self._known))]
        return size
