"""The four real services in-process on loopback port 0, against one embedded PostgreSQL.

`bench.beliefs_quality` drives them only through their public gRPC API with real channels, the
way a client would; each case uses a namespace of its own, so cases never see each other.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.adjudicator import config as adjudicator_config
from services.adjudicator.app import build_server as build_adjudicator
from services.graph import config as graph_config
from services.graph.app import build_server as build_graph
from services.ingest import config as ingest_config
from services.ingest.app import build_server as build_ingest
from services.query import config as query_config
from services.query.app import build_server as build_query
from shared.cli.client import Stubs, connect
from shared.db.embedded import EmbeddedPostgres
from shared.db.migrate import upgrade_to_head
from shared.grpc.server import GrpcServer

__all__ = ["EngineChoice", "embedded_database", "running_system"]

_BUILDERS: dict[str, tuple[Any, Any]] = {
    "ingest": (ingest_config.load_settings, build_ingest),
    "adjudicator": (adjudicator_config.load_settings, build_adjudicator),
    "query": (query_config.load_settings, build_query),
    "graph": (graph_config.load_settings, build_graph),
}


@dataclass(frozen=True)
class EngineChoice:
    """Which adjudication engine the adjudicator runs, and the chat model `prompt` needs."""

    name: str
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_timeout_seconds: float = 120.0

    def settings(self) -> dict[str, Any]:
        """Settings overrides of every service (all of them validate the engine choice)."""
        overrides: dict[str, Any] = {"fact_adjudication_engine": self.name}
        if self.name == "prompt":
            overrides |= {
                "llm_base_url": self.llm_base_url,
                "llm_model": self.llm_model,
                "llm_timeout_seconds": self.llm_timeout_seconds,
                "llm_max_retries": 0,
            }
        return overrides


@asynccontextmanager
async def embedded_database() -> AsyncIterator[str]:
    """A fresh embedded PostgreSQL in a temporary directory, migrated to head."""
    with tempfile.TemporaryDirectory(prefix="beliefs-pg-") as tmp:
        server = EmbeddedPostgres(Path(tmp) / "pg")
        url = await asyncio.to_thread(server.start)
        try:
            await upgrade_to_head(url)
            yield url
        finally:
            await asyncio.to_thread(server.stop)


@asynccontextmanager
async def running_system(database_url: str, engine: EngineChoice) -> AsyncIterator[Stubs]:
    """All four services started on port 0 and stubs over real channels to them."""
    with tempfile.TemporaryDirectory(prefix="beliefs-data-") as data_dir:
        started: dict[str, GrpcServer] = {}
        try:
            for name, (load_settings, build) in _BUILDERS.items():
                settings = load_settings(
                    database_url=database_url,
                    data_dir=Path(data_dir),
                    port=0,
                    service_name=name,
                    worker_poll_seconds=0.2,
                    worker_lease_seconds=300,
                    log_level="WARNING",
                    **engine.settings(),
                )
                server = await build(settings)
                await server.start()
                started[name] = server
            async with connect({n: s.address for n, s in started.items()}) as stubs:
                yield stubs
        finally:
            for server in started.values():
                await server.stop(grace=1.0)
