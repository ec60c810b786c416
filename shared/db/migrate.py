"""Schema migrations: upgrade to head, and the start-up check that refuses an unknown schema."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import pool, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from shared.db.engine import create_engine

__all__ = [
    "SchemaMismatchError",
    "alembic_config",
    "current_revision",
    "ensure_schema_current",
    "head_revision",
    "upgrade_to_head",
]

_MIGRATIONS_DIR = Path(__file__).parent / "migrations"
# Arbitrary constant: concurrent `migrate` runs (several services, a k8s Job) serialize on it.
_MIGRATION_LOCK_KEY = 0x52454D454D42


class SchemaMismatchError(RuntimeError):
    """The database schema is missing or not the revision this build was written for."""


def alembic_config() -> Config:
    """Alembic configuration for this build's migrations (for programmatic alembic commands)."""
    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS_DIR))
    return config


def head_revision() -> str:
    """The newest revision this build ships (the history is linear: exactly one head)."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise RuntimeError(f"no migrations found in {_MIGRATIONS_DIR}")
    return head


def _known_revisions() -> set[str]:
    script = ScriptDirectory.from_config(alembic_config())
    return {revision.revision for revision in script.walk_revisions()}


def _upgrade(connection: Connection) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


async def upgrade_to_head(url: str) -> None:
    """Migrate the database at `url` to this build's head, in one transaction."""
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        async with engine.begin() as connection:
            await connection.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK_KEY}
            )
            await connection.run_sync(_upgrade)
    finally:
        await engine.dispose()


def _read_revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


async def current_revision(engine: AsyncEngine) -> str | None:
    """The revision stamped in the database, or None when it was never migrated."""
    async with engine.connect() as connection:
        return await connection.run_sync(_read_revision)


async def ensure_schema_current(engine: AsyncEngine) -> str:
    """Return the head revision, or raise SchemaMismatchError when the database is not at it."""
    head = head_revision()
    current = await current_revision(engine)
    if current == head:
        return head
    if current is None:
        raise SchemaMismatchError(
            f"database is not migrated (expected schema revision {head}); "
            "run `rememberstack migrate` before starting the services"
        )
    if current in _known_revisions():
        raise SchemaMismatchError(
            f"database schema revision {current} is older than this build's head {head}; "
            "run `rememberstack migrate` before starting the services"
        )
    raise SchemaMismatchError(
        f"database schema revision {current} is unknown to this build (expected head {head}); "
        "run `rememberstack migrate` with the build that matches the database, "
        "or deploy a build that knows revision " + current
    )
