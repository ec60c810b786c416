"""Shared database layer: engine, sessions, models, migrations, embedded Postgres, work queue."""

from __future__ import annotations

from shared.db.embedded import EmbeddedPostgres, resolve_database_url
from shared.db.engine import (
    create_engine,
    session_factory,
    to_asyncpg_dsn,
    to_sqlalchemy_url,
    unit_of_work,
)
from shared.db.migrate import (
    SchemaMismatchError,
    current_revision,
    ensure_schema_current,
    head_revision,
    upgrade_to_head,
)
from shared.db.queue import (
    NOTIFY_CHANNEL,
    Handler,
    LeaseLostError,
    Worker,
    claim,
    complete,
    enqueue,
    fail,
    replay_dead_letters,
)

__all__ = [
    "NOTIFY_CHANNEL",
    "EmbeddedPostgres",
    "Handler",
    "LeaseLostError",
    "SchemaMismatchError",
    "Worker",
    "claim",
    "complete",
    "create_engine",
    "current_revision",
    "enqueue",
    "ensure_schema_current",
    "fail",
    "head_revision",
    "replay_dead_letters",
    "resolve_database_url",
    "session_factory",
    "to_asyncpg_dsn",
    "to_sqlalchemy_url",
    "unit_of_work",
    "upgrade_to_head",
]
