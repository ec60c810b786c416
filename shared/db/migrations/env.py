"""Alembic environment: migrates the connection or URL it is given, never one from os.environ."""

from __future__ import annotations

import asyncio
from logging.config import fileConfig

from alembic import context
from sqlalchemy import pool
from sqlalchemy.engine import Connection

from shared.db.engine import create_engine, to_sqlalchemy_url
from shared.db.models import Base

config = context.config
target_metadata = Base.metadata

# Only the alembic CLI has an ini file; programmatic callers keep their own logging.
if config.config_file_name is not None:
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def _url() -> str:
    """The URL from `config.attributes["url"]`, `-x url=...`, or `sqlalchemy.url` in the ini."""
    url = config.attributes.get("url") or context.get_x_argument(as_dictionary=True).get("url")
    url = url or config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError(
            "no database URL: pass `-x url=postgresql://...` or use `rememberstack migrate`"
        )
    return str(url)


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        compare_server_default=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_with_url(url: str) -> None:
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_run)
    finally:
        await engine.dispose()


def _run_offline() -> None:
    context.configure(
        url=to_sqlalchemy_url(_url()),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def _run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
    else:
        asyncio.run(_run_with_url(_url()))


if context.is_offline_mode():
    _run_offline()
else:
    _run_online()
