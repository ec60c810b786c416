"""Builds the graph service's gRPC server from settings."""

from __future__ import annotations

from contextlib import AsyncExitStack

from rememberstack.v1.graph_service_pb2_grpc import add_GraphServiceServicer_to_server
from sqlalchemy.ext.asyncio import AsyncEngine

from services.graph.config import GraphSettings
from services.graph.repository import GraphRepository
from services.graph.service import GraphService
from services.graph.servicer import GraphServicer
from shared.db.engine import database_probe
from shared.db.open import open_database
from shared.grpc.server import GrpcServer, servicer_registration
from shared.grpc.services import GRAPH
from shared.telemetry import Telemetry
from shared.telemetry.database import instrument_engine

__all__ = ["SERVICE_NAME", "build_server"]

SERVICE_NAME = GRAPH.full_name


async def build_server(
    settings: GraphSettings,
    *,
    engine: AsyncEngine | None = None,
    telemetry: Telemetry | None = None,
) -> GrpcServer:
    """A ready-to-start server; an engine passed in stays the caller's to dispose."""
    async with AsyncExitStack() as resources:
        database = await resources.enter_async_context(
            open_database(settings, engine=engine, read_replica=True)
        )
        instrument_engine(database.engine, telemetry, settings.service_name)
        service = GraphService(
            database.engine, GraphRepository(), settings, replay_clock=database.replay_clock
        )
        servicer = GraphServicer(service, settings.namespace)
        return GrpcServer.from_settings(
            settings,
            registrations=[servicer_registration(add_GraphServiceServicer_to_server, servicer)],
            service_names=[SERVICE_NAME],
            telemetry=telemetry,
            readiness_probe=database_probe(database.engine),
            on_stop=[resources.pop_all().aclose],
        )
