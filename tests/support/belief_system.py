"""The services in-process on port 0 over the session database, with an adjudicator that can be
restarted with another number of processes (real replica processes, as in production).

Replica processes read their settings from the environment (`start_replicas` hands them a copy
of it), so the settings the tests need them to share are put there while the adjudicator
starts, and taken out again.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
from sqlalchemy.ext.asyncio import AsyncEngine

from services.adjudicator import config as adjudicator_config
from services.adjudicator.app import build_server as build_adjudicator
from services.adjudicator.app import start_replicas
from services.graph import config as graph_config
from services.graph.app import build_server as build_graph
from services.ingest import config as ingest_config
from services.ingest.app import build_server as build_ingest
from services.query import config as query_config
from services.query.app import build_server as build_query
from shared.grpc.server import GrpcServer

__all__ = [
    "Adjudicator",
    "adjudicator",
    "environment",
    "read_and_ingest_servers",
    "replica_adjudicators",
]

POLL_SECONDS = 0.2


@contextlib.contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextlib.asynccontextmanager
async def read_and_ingest_servers(
    database_url: str, data_dir: Path
) -> AsyncIterator[dict[str, GrpcServer]]:
    """Ingest (with its extract and embed workers), query and graph."""
    builders = {
        "ingest": (ingest_config.load_settings, build_ingest),
        "query": (query_config.load_settings, build_query),
        "graph": (graph_config.load_settings, build_graph),
    }
    started: dict[str, GrpcServer] = {}
    try:
        for name, (load_settings, build) in builders.items():
            settings = load_settings(
                database_url=database_url,
                data_dir=data_dir,
                port=0,
                service_name=name,
                worker_poll_seconds=POLL_SECONDS,
                worker_lease_seconds=30,
                log_json=False,
            )
            server = await build(settings)  # type: ignore[operator]
            await server.start()
            started[name] = server
        yield started
    finally:
        for server in started.values():
            await server.stop(grace=1.0)


@dataclass
class Adjudicator:
    server: GrpcServer
    # Replica processes this adjudicator started (its own process is not among them).
    replica_pids: list[int]


def _replicas() -> set[int]:
    found = set()
    for child in psutil.Process().children():
        with contextlib.suppress(psutil.Error):
            if any("run_replica" in part for part in child.cmdline()):
                found.add(child.pid)
    return found


def _replica_environment(data_dir: Path, lease_seconds: int) -> dict[str, str]:
    return {
        "REMEMBERSTACK_WORKER_POLL_SECONDS": str(POLL_SECONDS),
        "REMEMBERSTACK_WORKER_LEASE_SECONDS": str(lease_seconds),
        "REMEMBERSTACK_LOG_JSON": "false",
        "REMEMBERSTACK_LOG_LEVEL": "WARNING",
        "REMEMBERSTACK_DATA_DIR": str(data_dir),
    }


@contextlib.asynccontextmanager
async def replica_adjudicators(
    engine: AsyncEngine, data_dir: Path, count: int, *, lease_seconds: int = 30
) -> AsyncIterator[list[int]]:
    """`count` adjudicator replica processes and no adjudicator in this process: every item
    is adjudicated in a process a test may kill. Yields their pids."""
    with environment(_replica_environment(data_dir, lease_seconds)):
        settings = adjudicator_config.load_settings(
            database_url=engine.url.render_as_string(hide_password=False),
            data_dir=data_dir,
            service_name="adjudicator",
            worker_poll_seconds=POLL_SECONDS,
            worker_lease_seconds=lease_seconds,
            log_json=False,
        )
        replicas = await start_replicas(settings, engine, count)
    try:
        yield [process.pid for process in replicas.processes]
    finally:
        await replicas.stop()


@contextlib.asynccontextmanager
async def adjudicator(
    database_url: str, data_dir: Path, processes: int, *, lease_seconds: int = 30
) -> AsyncIterator[Adjudicator]:
    """An adjudicator with `processes` processes (this one plus `processes - 1` replicas)."""
    before = _replicas()
    with environment(_replica_environment(data_dir, lease_seconds)):
        settings = adjudicator_config.load_settings(
            database_url=database_url,
            data_dir=data_dir,
            port=0,
            service_name="adjudicator",
            worker_poll_seconds=POLL_SECONDS,
            worker_lease_seconds=lease_seconds,
            adjudicator_processes=processes,
            log_json=False,
        )
        server = await build_adjudicator(settings)
    await server.start()
    try:
        yield Adjudicator(server, sorted(_replicas() - before))
    finally:
        await server.stop(grace=1.0)
