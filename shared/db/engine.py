"""Async engine, session factory and unit-of-work helpers for the shared Postgres database."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import URL, Dialect, make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

__all__ = [
    "DatabaseUnreachable",
    "create_engine",
    "database_probe",
    "session_factory",
    "to_asyncpg_dsn",
    "to_sqlalchemy_url",
    "unit_of_work",
]

_POSTGRES_SCHEMES = ("postgres", "postgresql")


class DatabaseUnreachable(ConnectionError):
    """Opening a database connection failed at the transport: the server is down or gone.

    asyncpg lets such failures out as plain OSErrors (a vanished Unix socket is a
    FileNotFoundError), which would otherwise read as bugs; as a ConnectionError they are
    answered UNAVAILABLE like every other unreachable dependency.
    """


def _parse(url: str) -> URL:
    parsed = make_url(url)
    backend = parsed.drivername.split("+", 1)[0]
    if backend not in _POSTGRES_SCHEMES:
        raise ValueError(f"not a PostgreSQL URL: {parsed.render_as_string(hide_password=True)}")
    query = dict(parsed.query)
    # asyncpg spells libpq's `sslmode` as `ssl` and rejects unknown keyword arguments.
    if "sslmode" in query:
        sslmode = query.pop("sslmode")
        query.setdefault("ssl", sslmode)
    return parsed.set(query=query)


def to_sqlalchemy_url(url: str) -> str:
    """Return `url` (any postgres:// or postgresql[+driver]:// form) as a postgresql+asyncpg URL.

    Socket URIs such as pgserver's `postgresql://postgres:@/postgres?host=/tmp/x` keep their
    `host` query parameter, which the asyncpg dialect passes through as the socket directory.
    """
    return _parse(url).set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)


def to_asyncpg_dsn(url: str) -> str:
    """Return `url` as a plain `postgresql://` DSN that `asyncpg.connect` accepts directly."""
    return _parse(url).set(drivername="postgresql").render_as_string(hide_password=False)


def create_engine(url: str, **engine_kwargs: Any) -> AsyncEngine:
    """Create an asyncpg-backed engine for `url`; extra keyword arguments go to SQLAlchemy.

    pgvector needs no connection-level registration here: the `Vector` column type sends and
    reads vectors in their text form, which asyncpg handles for types it has no codec for.

    No pre-ping: it costs a round trip on every checkout of the read path. A connection that died
    with its server fails its statement once (answered as UNAVAILABLE) and SQLAlchemy discards
    it and the rest of the stale pool; recycling bounds how old a pooled connection can get.
    """
    engine_kwargs.setdefault("pool_pre_ping", False)
    engine_kwargs.setdefault("pool_recycle", 600)
    engine = create_async_engine(to_sqlalchemy_url(url), **engine_kwargs)
    event.listen(engine.sync_engine, "do_connect", _connect_or_unreachable)
    return engine


def _connect_or_unreachable(
    dialect: Dialect, _record: Any, cargs: tuple[Any, ...], cparams: dict[str, Any]
) -> Any:
    try:
        return dialect.loaded_dbapi.connect(*cargs, **cparams)
    except ConnectionError:
        raise
    except OSError as exc:
        raise DatabaseUnreachable(f"cannot connect to the database: {exc}") from exc


def database_probe(engine: AsyncEngine) -> Callable[[], Awaitable[None]]:
    """A readiness probe: one ``SELECT 1``, raising when the database cannot be reached."""

    async def probe() -> None:
        async with engine.connect() as connection:
            await connection.execute(text("SELECT 1"))

    return probe


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Session factory whose objects stay readable after commit (async code cannot lazy-load)."""
    return async_sessionmaker(engine, expire_on_commit=False)


@asynccontextmanager
async def unit_of_work(
    factory: async_sessionmaker[AsyncSession],
) -> AsyncIterator[AsyncSession]:
    """One transaction: commit when the block succeeds, roll back when it raises."""
    async with factory() as session, session.begin():
        yield session
