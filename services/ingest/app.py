"""Builds the ingest server: engine, models, service, servicer and the pipeline workers."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket

from rememberstack.v1 import ingest_service_pb2_grpc
from sqlalchemy.ext.asyncio import AsyncEngine

from services.ingest.config import IngestSettings
from services.ingest.extraction.base import ClaimExtractor
from services.ingest.pipeline import Pipeline, prefer_embedding
from services.ingest.runtime import ModelRuntime
from services.ingest.service import READINESS_CHANNEL, IngestService
from services.ingest.servicer import IngestServicer
from shared.db.change_feed import ChangeFeed
from shared.db.embedded import resolve_database_url
from shared.db.engine import create_engine, database_probe, session_factory
from shared.db.migrate import ensure_schema_current
from shared.db.queue import Worker
from shared.db.statistics import StatisticsRefresher
from shared.embedding import Embedder
from shared.grpc.server import GrpcServer, servicer_registration
from shared.pipeline.kinds import INGEST_KINDS
from shared.telemetry import Telemetry
from shared.telemetry.database import instrument_engine
from shared.telemetry.queue_depth import QueueDepthSampler
from shared.telemetry.work import WorkObserver

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
    instrument_engine(engine, telemetry, settings.service_name)
    metrics = telemetry.metrics if telemetry else None
    factory = session_factory(engine)
    runtime = ModelRuntime(settings, extractor=extractor, embedder=embedder)
    listen_url = engine.url.render_as_string(hide_password=False)
    readiness_feed = ChangeFeed(listen_url, READINESS_CHANNEL)
    await readiness_feed.start()
    service = IngestService(
        factory, runtime, readiness_feed, telemetry.tracer if telemetry else None
    )
    pipeline = Pipeline(factory, runtime, settings, metrics)
    observer = WorkObserver(telemetry.tracer if telemetry else None, metrics)
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
            observer=observer,
            prefer=prefer_embedding,
        )
        for index in range(settings.worker_concurrency)
    ]
    for worker in workers:
        await worker.start()
    statistics = StatisticsRefresher(engine, settings.statistics_refresh_seconds)
    await statistics.start()
    queue_depth = QueueDepthSampler(engine, telemetry, INGEST_KINDS)
    await queue_depth.start()
    # Loading spaCy and ONNX takes seconds; do it beside serving instead of before it.
    warm = asyncio.create_task(asyncio.to_thread(runtime.warm), name="ingest:warm-models")

    async def stop() -> None:
        await asyncio.gather(*(worker.stop() for worker in workers))
        await readiness_feed.stop()
        await statistics.stop()
        await queue_depth.stop()
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
        readiness_probe=database_probe(engine),
        on_stop=[stop],
    )
