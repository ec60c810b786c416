"""Builds the query service's gRPC server: engine, embedder, service, servicer."""

from __future__ import annotations

from contextlib import AsyncExitStack

from rememberstack.v1 import query_service_pb2_grpc
from sqlalchemy.ext.asyncio import AsyncEngine

from services.query.config import QuerySettings
from services.query.service import QueryService
from services.query.servicer import QueryServicer
from shared.db.engine import database_probe
from shared.db.open import open_database
from shared.embedding import create_embedder
from shared.grpc.server import GrpcServer, servicer_registration
from shared.grpc.services import QUERY
from shared.telemetry import Telemetry
from shared.telemetry.database import instrument_engine

__all__ = ["SERVICE_NAME", "build_server"]

SERVICE_NAME = QUERY.full_name


async def build_server(
    settings: QuerySettings,
    *,
    engine: AsyncEngine | None = None,
    telemetry: Telemetry | None = None,
) -> GrpcServer:
    """A ready-to-start server; the caller calls ``await server.start()``."""
    async with AsyncExitStack() as resources:
        database = await resources.enter_async_context(
            open_database(settings, engine=engine, read_replica=True)
        )
        instrument_engine(database.engine, telemetry, settings.service_name)
        embedder = create_embedder(
            settings.embedder,
            base_url=settings.embedding_base_url,
            model=settings.embedding_model,
            int8_compute=settings.embedder_int8_compute,
            api_key=settings.llm_api_key.get_secret_value() if settings.llm_api_key else None,
        )
        service = QueryService(
            database.engine,
            embedder,
            db_budget_seconds=settings.query_db_budget_seconds,
            replay_clock=database.replay_clock,
        )
        resources.callback(service.close)
        servicer = QueryServicer(service, settings.namespace)
        return GrpcServer.from_settings(
            settings,
            registrations=[
                servicer_registration(
                    query_service_pb2_grpc.add_QueryServiceServicer_to_server, servicer
                )
            ],
            service_names=[SERVICE_NAME],
            telemetry=telemetry,
            readiness_probe=database_probe(database.engine),
            on_stop=[resources.pop_all().aclose],
        )
