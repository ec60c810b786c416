"""Builds the ingest server: engine, models, service, servicer and the pipeline workers."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket

from rememberstack.v1 import ingest_service_pb2_grpc
from sqlalchemy.ext.asyncio import AsyncEngine

from services.ingest.config import IngestSettings
from services.ingest.domain import INGEST_KINDS
from services.ingest.extraction.base import ClaimExtractor
from services.ingest.pipeline import Pipeline
from services.ingest.repository import prefer_embedding
from services.ingest.runtime import ModelRuntime
from services.ingest.service import IngestService
from services.ingest.servicer import IngestServicer
from shared.db.embedded import resolve_database_url
from shared.db.engine import create_engine, session_factory
from shared.db.migrate import ensure_schema_current
from shared.db.queue import Worker
from shared.db.statistics import StatisticsRefresher
from shared.embedding import Embedder
from shared.grpc.server import GrpcServer, servicer_registration
from shared.telemetry import Telemetry

__all__ = ["SERVICE_NAME", "build_server"]

SERVICE_NAME = "rememberstack.v1.IngestService"


async def build_server(
    settings: IngestSettings,
    *,
    engine: AsyncEngine | None = None,
    telemetry: Telemetry | None = None,
    extractor: ClaimExtractor | None = None,
    embedder: Embedder | None = None,
) -> GrpcServer:
    """The ingest server with its workers already running; the caller calls `start()`.

    `extractor` and `embedder` replace the configured models (tests, benchmarks).
    """
    embedded = None
    owns_engine = engine is None
    if engine is None:
        url, embedded = await asyncio.to_thread(
            resolve_database_url, settings.database_url, settings.data_dir
        )
        engine = create_engine(url)
    try:
        await ensure_schema_current(engine)
    except Exception:
        if owns_engine:
            await engine.dispose()
        if embedded is not None:
            await asyncio.to_thread(embedded.stop)
        raise
    factory = session_factory(engine)
    runtime = ModelRuntime(settings, extractor=extractor, embedder=embedder)
    service = IngestService(factory, runtime)
    pipeline = Pipeline(factory, runtime, settings)
    listen_url = engine.url.render_as_string(hide_password=False)
    prefix = f"ingest-{socket.gethostname()}-{os.getpid()}-{id(pipeline):x}"
    workers = [
        Worker(
            factory,
            INGEST_KINDS,
            pipeline.handle,
            worker_id=f"{prefix}-{index}",
            poll_seconds=settings.worker_poll_seconds,
            lease_seconds=settings.worker_lease_seconds,
            listen_url=listen_url,
            prefer=prefer_embedding,
        )
        for index in range(settings.worker_concurrency)
    ]
    for worker in workers:
        await worker.start()
    statistics = StatisticsRefresher(engine, settings.statistics_refresh_seconds)
    await statistics.start()
    # Loading spaCy and ONNX takes seconds; do it beside serving instead of before it.
    warm = asyncio.create_task(asyncio.to_thread(runtime.warm), name="ingest:warm-models")

    async def stop() -> None:
        await asyncio.gather(*(worker.stop() for worker in workers))
        await statistics.stop()
        with contextlib.suppress(asyncio.CancelledError):
            await warm
        if owns_engine:
            await engine.dispose()
        if embedded is not None:
            await asyncio.to_thread(embedded.stop)

    return GrpcServer.from_settings(
        settings,
        registrations=[
            servicer_registration(
                ingest_service_pb2_grpc.add_IngestServiceServicer_to_server,
                IngestServicer(service, settings),
            )
        ],
        service_names=[SERVICE_NAME],
        telemetry=telemetry,
        on_stop=[stop],
    )
