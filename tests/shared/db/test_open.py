"""open_database: the configured or embedded database, schema checked, and nothing left behind."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from shared.config import load_settings
from shared.db.migrate import SchemaMismatchError
from shared.db.open import open_database


async def _connections_to(engine: AsyncEngine, database: str) -> int:
    async with engine.connect() as conn:
        return int(
            (
                await conn.execute(
                    text("SELECT count(*) FROM pg_stat_activity WHERE datname = :db"),
                    {"db": database},
                )
            ).scalar_one()
        )


async def test_a_migrated_database_opens_on_its_configured_url(
    database_url: str, tmp_path: Path
) -> None:
    settings = load_settings(database_url=database_url, data_dir=tmp_path)
    async with open_database(settings) as database:
        async with database.engine.connect() as conn:
            assert (await conn.execute(text("SELECT 1"))).scalar_one() == 1
        assert database.replay_clock is None
    assert not (tmp_path / "postgres").exists()  # a configured database starts no embedded one


async def test_an_unmigrated_database_is_refused_and_its_connections_closed(
    database_url: str, db_engine: AsyncEngine, tmp_path: Path
) -> None:
    name = f"unmigrated_{uuid.uuid4().hex[:8]}"
    async with db_engine.connect() as conn:
        await conn.execution_options(isolation_level="AUTOCOMMIT")
        await conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(database_url).set(database=name).render_as_string(hide_password=False)
    settings = load_settings(database_url=url, data_dir=tmp_path)
    with pytest.raises(SchemaMismatchError, match="not migrated"):
        async with open_database(settings):
            pytest.fail("an unmigrated database must not open")
    assert await _connections_to(db_engine, name) == 0


async def test_an_engine_passed_in_is_checked_and_stays_open(
    db_engine: AsyncEngine, tmp_path: Path
) -> None:
    async with open_database(load_settings(data_dir=tmp_path), engine=db_engine) as database:
        assert database.engine is db_engine
    async with db_engine.connect() as conn:
        assert (await conn.execute(text("SELECT 1"))).scalar_one() == 1


async def test_a_failed_schema_check_stops_the_embedded_database_it_started(
    tmp_path: Path,
) -> None:
    settings = load_settings(database_url=None, data_dir=tmp_path)
    with pytest.raises(SchemaMismatchError):
        async with open_database(settings):
            pytest.fail("a fresh embedded database is not migrated")
    assert (tmp_path / "postgres").is_dir()
    assert not (tmp_path / "postgres" / "postmaster.pid").exists()
