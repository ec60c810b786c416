"""The embedded server's settings: sized from the machine, applied to the running server."""

from __future__ import annotations

import asyncpg

from shared.db.embedded import EmbeddedPostgres, server_settings
from shared.db.engine import to_asyncpg_dsn

_GB = 1024**3


def test_server_settings_give_a_quarter_of_memory_to_shared_buffers_within_bounds() -> None:
    assert server_settings(24 * _GB)["shared_buffers"] == "6144MB"
    assert server_settings(256 * _GB)["shared_buffers"] == "8192MB"
    assert server_settings(256 * 1024**2)["shared_buffers"] == "128MB"
    assert server_settings(24 * _GB)["effective_cache_size"] == "12288MB"


async def test_started_embedded_server_runs_with_the_sized_settings(
    embedded_postgres: EmbeddedPostgres,
) -> None:
    conn = await asyncpg.connect(to_asyncpg_dsn(embedded_postgres.url))
    try:
        settings = server_settings()
        running = await conn.fetchval(
            "SELECT pg_size_bytes(current_setting('shared_buffers'))"
            " = pg_size_bytes($1)"
            " AND current_setting('random_page_cost')::float8 = CAST($2::text AS float8)",
            settings["shared_buffers"],
            settings["random_page_cost"],
        )
    finally:
        await conn.close()
    assert running
