"""The synthetic query-benchmark loader: a consistent store with every index of the schema."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from bench.query_synthetic import describe, generate
from shared.db import to_asyncpg_dsn, upgrade_to_head

_INDEXES = "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'"


@pytest.fixture
async def scratch(database_url: str, db_engine: AsyncEngine) -> AsyncIterator[str]:
    name = f"qsynth_{uuid.uuid4().hex[:10]}"
    async with db_engine.connect() as connection:
        autocommit = await connection.execution_options(isolation_level="AUTOCOMMIT")
        await autocommit.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(database_url).set(database=name).render_as_string(hide_password=False)
    await upgrade_to_head(url)
    yield url
    async with db_engine.connect() as connection:
        autocommit = await connection.execution_options(isolation_level="AUTOCOMMIT")
        await autocommit.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))


async def test_load_rebuilds_every_index_and_writes_a_consistent_store(scratch: str) -> None:
    conn = await asyncpg.connect(to_asyncpg_dsn(scratch))
    try:
        before = dict(await conn.fetch(_INDEXES))
        timings: dict[str, float] = {}
        data = await generate(conn, "synth", 2000, timings=timings)
        # Indexes dropped for the load come back exactly as the migration declared them.
        assert dict(await conn.fetch(_INDEXES)) == before
        assert "copy" in timings and "index ix_facts_embedding_hnsw" in timings
        assert await conn.fetchval("SELECT count(*) FROM facts") == 2000
        # Foreign-key triggers were off during the load: the rows must still satisfy them.
        orphans = await conn.fetchval(
            "SELECT count(*) FROM facts f WHERE NOT EXISTS"
            " (SELECT 1 FROM entities e WHERE e.id = f.subject_entity_id)"
            " OR (f.superseded_by_fact_id IS NOT NULL AND NOT EXISTS"
            " (SELECT 1 FROM facts s WHERE s.id = f.superseded_by_fact_id))"
            " OR (f.contradiction_group_id IS NOT NULL AND NOT EXISTS"
            " (SELECT 1 FROM contradiction_groups g WHERE g.id = f.contradiction_group_id))"
        )
        assert orphans == 0
        assert (
            await conn.fetchval(
                "SELECT count(*) FROM facts WHERE superseded_by_fact_id IS NOT NULL"
            )
            > 0
        )
        assert (
            await conn.fetchval("SELECT count(*) FROM documents WHERE latest_version_id IS NULL")
            == 0
        )
        evidence = await conn.fetchval(
            "SELECT count(*) FROM fact_evidence fe JOIN claims c ON c.id = fe.claim_id"
        )
        assert evidence == 2000
        # `describe` rebuilds the handles of the loaded store from the seed alone.
        handles = describe("synth", 2000)
        assert handles.entity_ids == data.entity_ids
        stored = {row[0] for row in await conn.fetch("SELECT id FROM entities")}
        assert set(handles.entity_ids) == stored
    finally:
        await conn.close()
