"""Reading a local database's search relations into the page cache before a latency run.

A serving system's search indexes and the tables they rank sit in memory after its first
minutes of traffic; a benchmark's few dozen warm-up requests touch a small part of them. At 1M
facts they are ~8 GB (HNSW graphs of ~2 GB each for facts and claims), and a FactsContext that
found its pages on disk spent most of its time reading them one 8 kB page at a time (same
queries: nomination p50 383 ms cold, 80 ms once the files were read; issue 22).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg

from shared.db import to_asyncpg_dsn

__all__ = ["warm_search_relations"]

# Every HNSW and GIN index of the database and the heaps of the tables they index: what the
# vector and lexical channels and hydration read at random. TOAST (claim vectors, chunk text)
# is left to be read on demand.
_FILES = (
    "SELECT DISTINCT pg_relation_filepath(v.rel) FROM pg_index i"
    " JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam"
    " CROSS JOIN LATERAL (VALUES (i.indexrelid), (i.indrelid)) v(rel)"
    " WHERE a.amname IN ('hnsw', 'gin')"
)


async def warm_search_relations(url: str, data_dir: Path) -> int:
    """Read the files of the search relations of `url`'s database (a server whose data
    directory is `data_dir`, on this machine) through the page cache; returns bytes read."""
    conn = await asyncpg.connect(to_asyncpg_dsn(url))
    try:
        relative = [row[0] for row in await conn.fetch(_FILES)]
    finally:
        await conn.close()
    return await asyncio.to_thread(_read, [data_dir / path for path in relative])


def _read(paths: list[Path]) -> int:
    """Read each relation's segments (`path`, `path.1`, ... of 1 GB each) to the end."""
    total = 0
    buffer = bytearray(1 << 20)
    for first in paths:
        segment, number = first, 0
        while segment.exists():
            with segment.open("rb", buffering=0) as stream:
                while read := stream.readinto(buffer):
                    total += read
            number += 1
            segment = first.with_name(f"{first.name}.{number}")
    return total
