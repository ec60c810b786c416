"""The four services on their own event loop in a background thread, so synchronous tests
(hypothesis drives synchronous functions) can call them and read the store."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import grpc.aio
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from shared.db.engine import create_engine
from shared.db.models import Base
from shared.grpc.server import GrpcServer
from tests.e2e.conftest import BUILDERS

T = TypeVar("T")

_NAMESPACED = sorted(t.name for t in Base.metadata.sorted_tables if "namespace" in t.c)


class ServerThread:
    """Starts the services in ``start()``; ``run(coro)`` executes on their loop."""

    def __init__(self, database_url: str, data_dir: Path, **overrides: Any) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._database_url = database_url
        self._data_dir = data_dir
        self._overrides = overrides
        self.servers: dict[str, GrpcServer] = {}
        self.channels: dict[str, grpc.aio.Channel] = {}
        self.engine: AsyncEngine | None = None

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 300.0) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def start(self) -> None:
        self._thread.start()
        self.run(self._start())

    def stop(self) -> None:
        try:
            self.run(self._stop())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)

    async def _start(self) -> None:
        self.engine = create_engine(self._database_url)
        for name, (load_settings, build) in BUILDERS.items():
            settings = load_settings(
                database_url=self._database_url,
                data_dir=self._data_dir,
                port=0,
                service_name=name,
                worker_poll_seconds=0.2,
                **self._overrides,
            )
            server = await build(settings)  # type: ignore[operator]
            await server.start()
            self.servers[name] = server
            self.channels[name] = grpc.aio.insecure_channel(server.address)

    async def _stop(self) -> None:
        for channel in self.channels.values():
            await channel.close()
        for server in self.servers.values():
            await server.stop(grace=1.0)
        if self.engine is not None:
            await self.engine.dispose()

    async def snapshot(self, namespaces: set[str]) -> dict[str, str]:
        """A digest of every row of every table in ``namespaces``: equal digests, equal rows."""
        assert self.engine is not None
        digests: dict[str, str] = {}
        async with self.engine.connect() as connection:
            for table in _NAMESPACED:
                digests[table] = (
                    await connection.execute(
                        text(
                            f"SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), ''))"
                            f" FROM {table} t WHERE t.namespace = ANY(:namespaces)"
                        ),
                        {"namespaces": sorted(namespaces)},
                    )
                ).scalar_one()
        return digests

    async def queue_idle(self, namespaces: set[str], seconds: float = 180.0) -> None:
        """Wait until no work item of ``namespaces`` is pending, failed or running."""
        assert self.engine is not None
        async with asyncio.timeout(seconds):
            while True:
                async with self.engine.connect() as connection:
                    busy = (
                        await connection.execute(
                            text(
                                "SELECT count(*) FROM work_items WHERE namespace = ANY(:ns)"
                                " AND status IN ('pending', 'failed', 'running')"
                            ),
                            {"ns": sorted(namespaces)},
                        )
                    ).scalar_one()
                if not busy:
                    return
                await asyncio.sleep(0.3)
