"""The one way a service process opens its database: configured or embedded, schema checked.

Every service's composition root (`services/<name>/app.py`) and the adjudicator's replica
processes open their database here, so start-up and clean-up cannot drift between them: what
`open_database` started (the embedded Postgres, the engines) it also stops, on a failed
schema check as on a normal exit.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from shared.config import Settings
from shared.db.embedded import resolve_database_url
from shared.db.engine import create_engine
from shared.db.migrate import ensure_schema_current
from shared.replica import ReplayClock, replay_clock

__all__ = ["Database", "open_database"]


@dataclass(frozen=True, slots=True)
class Database:
    """An open database: the engine a service uses, and (reading from a read replica) the
    clock that says how far the replica has replayed the primary's writes."""

    engine: AsyncEngine
    replay_clock: ReplayClock | None = None

    @property
    def url(self) -> str:
        """The engine's URL with its password, for connections outside the pool (LISTEN,
        replica processes)."""
        return self.engine.url.render_as_string(hide_password=False)


@asynccontextmanager
async def open_database(
    settings: Settings, *, engine: AsyncEngine | None = None, read_replica: bool = False
) -> AsyncIterator[Database]:
    """Open the configured database (the embedded one, started in `settings.data_dir`, when no
    `database_url` is set) and check that its schema is the one this build knows.

    `read_replica` marks a read-only service (query, graph): with `read_database_url` set it
    reads from that DSN and never opens the primary, except for the replay clock's one pooled
    connection. An `engine` passed in (tests, benchmarks) is only checked; it stays the
    caller's to dispose. Leaving the block, or a failure while opening, disposes the engines and
    stops the embedded database this call started.
    """
    async with AsyncExitStack() as opened:
        clock: ReplayClock | None = None
        if engine is None and read_replica and settings.read_database_url:
            engine = create_engine(settings.read_database_url)
            opened.push_async_callback(engine.dispose)
            primary_stops: list[Callable[[], Awaitable[None]]] = []
            clock = replay_clock(settings, engine, primary_stops)
            for stop in primary_stops:
                opened.push_async_callback(stop)
        elif engine is None:
            url, embedded = await asyncio.to_thread(
                resolve_database_url, settings.database_url, settings.data_dir
            )
            if embedded is not None:
                opened.push_async_callback(asyncio.to_thread, embedded.stop)
            engine = create_engine(url)
            opened.push_async_callback(engine.dispose)
        await ensure_schema_current(engine)
        yield Database(engine, clock)
