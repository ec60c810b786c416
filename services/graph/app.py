"""Builds the graph service's gRPC server from settings."""

from __future__ import annotations

from rememberstack.v1.graph_service_pb2_grpc import add_GraphServiceServicer_to_server
from sqlalchemy.ext.asyncio import AsyncEngine

from services.graph.config import Settings
from services.graph.repository import GraphRepository
from services.graph.service import GraphService
from services.graph.servicer import GraphServicer
from shared.db import create_engine, ensure_schema_current, resolve_database_url
from shared.db.engine import database_probe
from shared.grpc.server import GrpcServer, StopCallback, servicer_registration
from shared.replica import ReplayClock, replay_clock
from shared.telemetry import Telemetry
from shared.telemetry.database import instrument_engine

__all__ = ["SERVICE_NAME", "build_server"]

SERVICE_NAME = "rememberstack.v1.GraphService"


async def build_server(
    settings: Settings,
    *,
    engine: AsyncEngine | None = None,
    telemetry: Telemetry | None = None,
) -> GrpcServer:
    """A ready-to-start server; an engine passed in stays the caller's to dispose."""
    on_stop: list[StopCallback] = []
    clock: ReplayClock | None = None
    if engine is None and settings.read_database_url:
        # Read-only: with a read DSN (a hot standby) the primary is never touched.
        engine = create_engine(settings.read_database_url)
        on_stop.append(engine.dispose)
        clock = replay_clock(settings, engine, on_stop)
    elif engine is None:
        url, embedded = resolve_database_url(settings.database_url, settings.data_dir)
        engine = create_engine(url)
        on_stop.append(engine.dispose)
        if embedded is not None:

            async def stop_embedded() -> None:
                embedded.stop()

            on_stop.append(stop_embedded)
    await ensure_schema_current(engine)
    instrument_engine(engine, telemetry, settings.service_name)
    service = GraphService(engine, GraphRepository(), settings, replay_clock=clock)
    servicer = GraphServicer(service, settings.namespace)
    return GrpcServer.from_settings(
        settings,
        registrations=[servicer_registration(add_GraphServiceServicer_to_server, servicer)],
        service_names=[SERVICE_NAME],
        telemetry=telemetry,
        readiness_probe=database_probe(engine),
        on_stop=on_stop,
    )
