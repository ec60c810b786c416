"""Engine URLs (incl. pgserver's socket form) and the unit-of-work transaction boundary."""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest
from sqlalchemy import select, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.embedded import resolve_database_url
from shared.db.engine import create_engine, to_asyncpg_dsn, to_sqlalchemy_url, unit_of_work
from shared.db.models import Namespace


def test_socket_uri_becomes_asyncpg_url_keeping_socket_directory() -> None:
    url = make_url(to_sqlalchemy_url("postgresql://postgres:@/postgres?host=/tmp/x"))
    assert url.drivername == "postgresql+asyncpg"
    assert url.database == "postgres" and url.username == "postgres"
    assert url.query == {"host": "/tmp/x"}


@pytest.mark.parametrize(
    "given",
    ["postgres://u:p@db:5433/mem", "postgresql+psycopg://u:p@db:5433/mem"],
)
def test_tcp_uri_of_any_driver_becomes_asyncpg_url(given: str) -> None:
    assert to_sqlalchemy_url(given) == "postgresql+asyncpg://u:p@db:5433/mem"
    assert to_asyncpg_dsn(given) == "postgresql://u:p@db:5433/mem"


def test_libpq_sslmode_is_passed_to_asyncpg_as_ssl() -> None:
    url = make_url(to_sqlalchemy_url("postgresql://u@db/mem?sslmode=require"))
    assert url.query == {"ssl": "require"}


def test_non_postgres_url_is_refused() -> None:
    with pytest.raises(ValueError, match="not a PostgreSQL URL"):
        to_sqlalchemy_url("mysql://u:p@db/mem")


def test_configured_database_url_does_not_start_embedded_postgres(tmp_path: Path) -> None:
    url, embedded = resolve_database_url("postgresql://u:p@db/mem", tmp_path)
    assert (url, embedded) == ("postgresql://u:p@db/mem", None)
    assert not (tmp_path / "postgres").exists()


async def test_engine_and_raw_asyncpg_both_connect_over_the_socket_uri(database_url: str) -> None:
    engine = create_engine(database_url)
    try:
        async with engine.connect() as connection:
            assert (await connection.execute(text("SELECT 1"))).scalar_one() == 1
    finally:
        await engine.dispose()
    raw = await asyncpg.connect(to_asyncpg_dsn(database_url))
    try:
        assert await raw.fetchval("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
    finally:
        await raw.close()


async def test_unit_of_work_commits_on_success_and_rolls_back_on_error(
    session_factory: async_sessionmaker[AsyncSession], namespace: str
) -> None:
    async with unit_of_work(session_factory) as session:
        session.add(Namespace(namespace=namespace))
    with pytest.raises(RuntimeError):
        async with unit_of_work(session_factory) as session:
            session.add(Namespace(namespace=f"{namespace}-rolled-back"))
            await session.flush()
            raise RuntimeError("handler failed")
    async with session_factory() as session:
        stored = set(
            (
                await session.execute(
                    select(Namespace.namespace).where(Namespace.namespace.startswith(namespace))
                )
            ).scalars()
        )
    assert stored == {namespace}
