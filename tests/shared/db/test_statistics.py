"""Planner statistics refreshed for tables that outgrew them, on a real PostgreSQL.

Each test gets a database of its own: the refresher analyzes whatever in its schema is stale,
and the session database's tables are written by every other test. The tables are kept from
autovacuum, which would otherwise analyze them whenever it happens to visit."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from shared.db.engine import create_engine, to_asyncpg_dsn
from shared.db.statistics import MIN_CHANGES, StatisticsRefresher, analyze_stale_tables


@pytest.fixture
async def own_engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    name = f"stats_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(to_asyncpg_dsn(database_url))
    await admin.execute(f"CREATE DATABASE {name}")
    engine = create_engine(make_url(database_url).set(database=name).render_as_string(False))
    try:
        yield engine
    finally:
        await engine.dispose()
        await admin.execute(f"DROP DATABASE {name} WITH (FORCE)")
        await admin.close()


async def _grow(engine: AsyncEngine, table: str, rows: int) -> None:
    """Insert `rows` rows and make this backend report its table counters now (they are
    otherwise flushed at most once a second, and up to ten seconds late when idle)."""
    async with engine.begin() as conn:
        await conn.execute(
            text(f"CREATE TABLE IF NOT EXISTS {table} (id int) WITH (autovacuum_enabled = off)")
        )
        await conn.execute(text(f"INSERT INTO {table} SELECT generate_series(1, {rows})"))
        await conn.execute(text("SELECT pg_stat_force_next_flush()"))


async def _await_counted(engine: AsyncEngine, table: str, changes: int) -> None:
    async with asyncio.timeout(15):
        while True:
            async with engine.connect() as conn:
                counted = await conn.scalar(
                    text("SELECT n_mod_since_analyze FROM pg_stat_user_tables WHERE relname = :t"),
                    {"t": table},
                )
            if counted is not None and counted >= changes:
                return
            await asyncio.sleep(0.1)


async def _reltuples(engine: AsyncEngine, table: str) -> float:
    async with engine.connect() as conn:
        found = await conn.scalar(
            text("SELECT reltuples FROM pg_class WHERE relname = :t"), {"t": table}
        )
    return float(found)


async def test_a_table_that_outgrew_its_statistics_is_analyzed_once(
    own_engine: AsyncEngine,
) -> None:
    await _grow(own_engine, "grown", 3 * MIN_CHANGES)
    await _grow(own_engine, "small", 10)
    await _await_counted(own_engine, "grown", 3 * MIN_CHANGES)
    await _await_counted(own_engine, "small", 10)
    assert await _reltuples(own_engine, "grown") == -1  # never analyzed

    assert await analyze_stale_tables(own_engine) == ["grown"]
    assert await _reltuples(own_engine, "grown") == 3 * MIN_CHANGES
    assert await _reltuples(own_engine, "small") == -1  # too few changes to matter
    assert await analyze_stale_tables(own_engine) == []

    # Growing by less than its size is left to autovacuum; doubling again is not.
    await _grow(own_engine, "grown", 2 * MIN_CHANGES)
    await _await_counted(own_engine, "grown", 2 * MIN_CHANGES)
    assert await analyze_stale_tables(own_engine) == []
    await _grow(own_engine, "grown", 3 * MIN_CHANGES)
    await _await_counted(own_engine, "grown", 5 * MIN_CHANGES)
    assert await analyze_stale_tables(own_engine) == ["grown"]
    assert await _reltuples(own_engine, "grown") == 8 * MIN_CHANGES


async def test_only_one_refresher_analyzes_at_a_time(own_engine: AsyncEngine) -> None:
    await _grow(own_engine, "grown", 2 * MIN_CHANGES)
    await _await_counted(own_engine, "grown", 2 * MIN_CHANGES)
    async with own_engine.begin() as other:
        # What another refresher holds while it analyzes.
        await other.execute(
            text("SELECT pg_advisory_xact_lock(hashtextextended('rememberstack:analyze', 0))")
        )
        assert await analyze_stale_tables(own_engine) == []
    assert await analyze_stale_tables(own_engine) == ["grown"]


async def test_the_refresher_analyzes_in_the_background_until_stopped(
    own_engine: AsyncEngine,
) -> None:
    refresher = StatisticsRefresher(own_engine, interval=0.1)
    await refresher.start()
    try:
        await _grow(own_engine, "grown", 2 * MIN_CHANGES)
        async with asyncio.timeout(20):
            while True:
                if await _reltuples(own_engine, "grown") == 2 * MIN_CHANGES:
                    break
                await asyncio.sleep(0.1)
    finally:
        await refresher.stop()


async def test_interval_zero_leaves_statistics_to_autovacuum(own_engine: AsyncEngine) -> None:
    refresher = StatisticsRefresher(own_engine, interval=0)
    await refresher.start()
    await _grow(own_engine, "grown", 2 * MIN_CHANGES)
    await _await_counted(own_engine, "grown", 2 * MIN_CHANGES)
    await asyncio.sleep(0.3)
    await refresher.stop()
    assert await _reltuples(own_engine, "grown") == -1
