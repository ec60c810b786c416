"""Builds the ingest server: engine, models, service, servicer and the pipeline workers."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from contextlib import AsyncExitStack

from rememberstack.v1 import ingest_service_pb2_grpc
from sqlalchemy.ext.asyncio import AsyncEngine

from services.ingest.config import IngestSettings
from services.ingest.extraction.base import ClaimExtractor
from services.ingest.pipeline import Pipeline, prefer_embedding
from services.ingest.runtime import ModelRuntime
from services.ingest.service import READINESS_CHANNEL, IngestService
from services.ingest.servicer import IngestServicer
from shared.db.change_feed import ChangeFeed
from shared.db.engine import database_probe, session_factory
from shared.db.open import open_database
from shared.db.queue import Worker
from shared.db.statistics import StatisticsRefresher
from shared.embedding import Embedder
from shared.grpc.server import GrpcServer, servicer_registration
from shared.grpc.services import INGEST
from shared.pipeline.kinds import INGEST_KINDS
from shared.telemetry import Telemetry
from shared.telemetry.database import instrument_engine
from shared.telemetry.queue_depth import QueueDepthSampler
from shared.telemetry.work import WorkObserver

__all__ = ["SERVICE_NAME", "build_server"]

SERVICE_NAME = INGEST.full_name


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
    async with AsyncExitStack() as resources:
        database = await resources.enter_async_context(open_database(settings, engine=engine))
        engine = database.engine
        instrument_engine(engine, telemetry, settings.service_name)
        metrics = telemetry.metrics if telemetry else None
        factory = session_factory(engine)
        runtime = ModelRuntime(settings, extractor=extractor, embedder=embedder)
        readiness_feed = ChangeFeed(database.url, READINESS_CHANNEL)
        await readiness_feed.start()
        resources.push_async_callback(readiness_feed.stop)
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
                listen_url=database.url,
                observer=observer,
                prefer=prefer_embedding,
                on_failure=pipeline.record_failure,
            )
            for index in range(settings.worker_concurrency)
        ]
        for worker in workers:
            await worker.start()
        resources.push_async_callback(_stop_all, workers)
        statistics = StatisticsRefresher(engine, settings.statistics_refresh_seconds)
        await statistics.start()
        resources.push_async_callback(statistics.stop)
        queue_depth = QueueDepthSampler(engine, telemetry, INGEST_KINDS)
        await queue_depth.start()
        resources.push_async_callback(queue_depth.stop)
        # Loading spaCy and ONNX takes seconds; do it beside serving instead of before it.
        warm = asyncio.create_task(asyncio.to_thread(runtime.warm), name="ingest:warm-models")
        resources.push_async_callback(_finished, warm)
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
            on_stop=[resources.pop_all().aclose],
        )


async def _stop_all(workers: list[Worker]) -> None:
    await asyncio.gather(*(worker.stop() for worker in workers))


async def _finished(task: asyncio.Task[None]) -> None:
    with contextlib.suppress(asyncio.CancelledError):
        await task
