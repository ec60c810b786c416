"""Builds the query service's gRPC server: engine, embedder, service, servicer."""

from __future__ import annotations

from rememberstack.v1 import query_service_pb2_grpc
from sqlalchemy.ext.asyncio import AsyncEngine

from services.query.config import Settings
from services.query.service import QueryService
from services.query.servicer import QueryServicer
from shared.db import create_engine, ensure_schema_current, resolve_database_url
from shared.db.engine import database_probe
from shared.embedding import create_embedder
from shared.grpc.server import GrpcServer, StopCallback, servicer_registration
from shared.replica import ReplayClock, replay_clock
from shared.telemetry import Telemetry
from shared.telemetry.database import instrument_engine

SERVICE_NAME = "rememberstack.v1.QueryService"


async def build_server(
    settings: Settings,
    *,
    engine: AsyncEngine | None = None,
    telemetry: Telemetry | None = None,
) -> GrpcServer:
    """A ready-to-start server; the caller calls ``await server.start()``."""
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
        owned = engine
        on_stop.append(owned.dispose)
        if embedded is not None:

            async def stop_embedded() -> None:
                embedded.stop()

            on_stop.append(stop_embedded)
    await ensure_schema_current(engine)
    instrument_engine(engine, telemetry, settings.service_name)
    embedder = create_embedder(
        settings.embedder,
        base_url=settings.embedding_base_url,
        model=settings.embedding_model,
        int8_compute=settings.embedder_int8_compute,
        api_key=settings.llm_api_key.get_secret_value() if settings.llm_api_key else None,
    )
    service = QueryService(
        engine,
        embedder,
        db_budget_seconds=settings.query_db_budget_seconds,
        replay_clock=clock,
    )

    async def close_service() -> None:
        service.close()

    on_stop.append(close_service)
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
        readiness_probe=database_probe(engine),
        on_stop=on_stop,
    )
