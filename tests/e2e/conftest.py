"""The four services in-process on port 0 against the session database, with real channels."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from services.adjudicator import config as adjudicator_config
from services.adjudicator.app import build_server as build_adjudicator
from services.graph import config as graph_config
from services.graph.app import build_server as build_graph
from services.ingest import config as ingest_config
from services.ingest.app import build_server as build_ingest
from services.query import config as query_config
from services.query.app import build_server as build_query
from shared.cli.client import Stubs, connect
from shared.grpc.server import GrpcServer

# Each service reads its own settings class (ingest has extra fields).
BUILDERS = {
    "ingest": (ingest_config.load_settings, build_ingest),
    "adjudicator": (adjudicator_config.load_settings, build_adjudicator),
    "query": (query_config.load_settings, build_query),
    "graph": (graph_config.load_settings, build_graph),
}


@pytest.fixture(scope="module")
async def servers(
    database_url: str, db_engine: AsyncEngine, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[dict[str, GrpcServer]]:
    """All four services, each as its own GrpcServer, sharing the session database."""
    data_dir: Path = tmp_path_factory.mktemp("system")
    started: dict[str, GrpcServer] = {}
    try:
        for name, (load_settings, build) in BUILDERS.items():
            settings = load_settings(
                database_url=database_url,
                data_dir=data_dir,
                port=0,
                service_name=name,
                worker_poll_seconds=0.2,
                worker_lease_seconds=30,
            )
            server = await build(settings)  # type: ignore[operator]
            await server.start()
            started[name] = server
        yield started
    finally:
        for server in started.values():
            await server.stop(grace=1.0)


@pytest.fixture
async def stubs(servers: dict[str, GrpcServer]) -> AsyncIterator[Stubs]:
    async with connect({name: server.address for name, server in servers.items()}) as opened:
        yield opened
