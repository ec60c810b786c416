"""Builds the AdjudicatorService server: engine, resolver, service, servicer and queue workers."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys

from openai import AsyncOpenAI
from rememberstack.v1 import adjudicator_service_pb2_grpc as pb_grpc
from sqlalchemy.ext.asyncio import AsyncEngine

from services.adjudicator.config import Settings
from services.adjudicator.engines.base import AdjudicationEngine
from services.adjudicator.engines.jev import MODEL_VERSION as JEV_VERSION
from services.adjudicator.engines.prompt import create_engine as create_adjudication_engine
from services.adjudicator.entities.model_choice import ChatModelChooser
from services.adjudicator.entities.resolver import EntityResolver
from services.adjudicator.normalization import Normalizer, PredicateVocabulary
from services.adjudicator.service import AdjudicationService
from services.adjudicator.servicer import AdjudicatorServicer
from services.adjudicator.worker import AdjudicationWorkers
from shared.db import create_engine, ensure_schema_current, resolve_database_url, session_factory
from shared.db.engine import database_probe
from shared.db.statistics import StatisticsRefresher
from shared.embedding import Embedder, create_embedder
from shared.grpc.server import GrpcServer, StopCallback, servicer_registration
from shared.logging import configure_logging
from shared.pipeline.kinds import ADJUDICATE_KIND
from shared.priority import run_as_background_work
from shared.telemetry import Telemetry, telemetry_from_settings
from shared.telemetry.database import instrument_engine
from shared.telemetry.queue_depth import QueueDepthSampler
from shared.telemetry.work import WorkObserver

__all__ = [
    "PROMPT_ENGINE_VERSION",
    "SERVICE_NAME",
    "build_engine",
    "build_server",
    "run_replica",
    "start_replicas",
]

logger = logging.getLogger(__name__)

SERVICE_NAME = "rememberstack.v1.AdjudicatorService"
PROMPT_ENGINE_VERSION = "prompt-json-schema-1"


def build_engine(settings: Settings) -> tuple[AdjudicationEngine, str]:
    """The configured engine and its version; ConfigurationError says what to set."""
    api_key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
    engine = create_adjudication_engine(
        settings.fact_adjudication_engine,
        llm_base_url=settings.llm_base_url,
        llm_model=settings.llm_model,
        llm_api_key=api_key,
        timeout=settings.llm_timeout_seconds,
        max_retries=settings.llm_max_retries,
    )
    version = JEV_VERSION if engine.name == "jev" else PROMPT_ENGINE_VERSION
    return engine, version


def _entity_chooser(settings: Settings) -> ChatModelChooser | None:
    """The chat-model final choice of entity resolution, when configured (else the rules)."""
    if settings.entity_resolver != "llm" or not settings.llm_base_url or not settings.llm_model:
        return None
    base_url = settings.llm_base_url
    api_key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None

    def client() -> AsyncOpenAI:
        # Local OpenAI-compatible servers accept any key; the client insists on one.
        return AsyncOpenAI(
            base_url=base_url,
            api_key=api_key or "unused",
            timeout=settings.llm_timeout_seconds,
            max_retries=0,
        )

    return ChatModelChooser(
        client, settings.llm_model, settings.llm_timeout_seconds, settings.llm_max_retries
    )


def _embedder(settings: Settings) -> Embedder:
    return create_embedder(
        settings.embedder,
        base_url=settings.embedding_base_url,
        model=settings.embedding_model,
        timeout=settings.llm_timeout_seconds,
        int8_compute=settings.embedder_int8_compute,
    )


def _service(
    settings: Settings, engine: AsyncEngine, telemetry: Telemetry | None
) -> AdjudicationService:
    adjudication_engine, engine_version = build_engine(settings)
    embedder = _embedder(settings)
    return AdjudicationService(
        session_factory(engine),
        engine=adjudication_engine,
        engine_version=engine_version,
        resolver=EntityResolver(embedder, chooser=_entity_chooser(settings)),
        embedder=embedder,
        normalizer=Normalizer(PredicateVocabulary(settings.extension_packs)),
        confidence_floor=settings.fact_confidence_floor,
        extractor=settings.claim_extractor,
        metrics=telemetry.metrics if telemetry else None,
    )


def _workers(
    settings: Settings,
    engine: AsyncEngine,
    service: AdjudicationService,
    telemetry: Telemetry | None,
) -> AdjudicationWorkers:
    return AdjudicationWorkers(
        session_factory(engine),
        service,
        concurrency=settings.worker_concurrency,
        worker_prefix=f"adjudicator-{socket.gethostname()}-{os.getpid()}",
        poll_seconds=settings.worker_poll_seconds,
        lease_seconds=settings.worker_lease_seconds,
        listen_url=engine.url.render_as_string(hide_password=False),
        observer=WorkObserver(
            telemetry.tracer if telemetry else None, telemetry.metrics if telemetry else None
        ),
    )


async def build_server(
    settings: Settings,
    *,
    engine: AsyncEngine | None = None,
    telemetry: Telemetry | None = None,
) -> GrpcServer:
    """A ready-to-start server with its workers (and replica processes) running; an engine
    passed in stays the caller's to dispose. Raises ConfigurationError for an engine that
    cannot run."""
    build_engine(settings)  # refuses an engine that cannot run before anything starts
    on_stop: list[StopCallback] = []
    if engine is None:
        url, embedded = resolve_database_url(settings.database_url, settings.data_dir)
        engine = create_engine(url)
        if embedded is not None:

            async def stop_embedded() -> None:
                embedded.stop()

            on_stop.append(stop_embedded)
        on_stop.insert(0, engine.dispose)
    await ensure_schema_current(engine)
    instrument_engine(engine, telemetry, settings.service_name)
    service = _service(settings, engine, telemetry)
    workers = _workers(settings, engine, service, telemetry)
    await workers.start()
    statistics = StatisticsRefresher(engine, settings.statistics_refresh_seconds)
    await statistics.start()
    queue_depth = QueueDepthSampler(engine, telemetry, (ADJUDICATE_KIND,))
    await queue_depth.start()
    # Workers, the refresher and replicas stop before the engine is disposed (and the
    # embedded database).
    on_stop.insert(0, queue_depth.stop)
    on_stop.insert(0, statistics.stop)
    on_stop.insert(0, workers.stop)
    replicas = await start_replicas(settings, engine, settings.adjudicator_processes - 1)
    on_stop.insert(0, replicas.stop)
    return GrpcServer.from_settings(
        settings,
        registrations=[
            servicer_registration(
                pb_grpc.add_AdjudicatorServiceServicer_to_server,
                AdjudicatorServicer(service, settings.namespace),
            )
        ],
        service_names=[SERVICE_NAME],
        telemetry=telemetry,
        readiness_probe=database_probe(engine),
        on_stop=on_stop,
    )


class Replicas:
    """Worker-only adjudicator processes started by the serving one, which also stops them.

    Each replica claims `adjudicate.version` items like the serving process's own workers do
    (SKIP LOCKED, one item per worker), so the processes share the queue without any other
    coordination; the per-subject advisory locks keep their decisions serial per entity.
    """

    def __init__(self, processes: list[asyncio.subprocess.Process]) -> None:
        self.processes = processes

    async def stop(self, grace_seconds: float = 15.0) -> None:
        for process in self.processes:
            if process.returncode is None:
                process.terminate()
        for process in self.processes:
            try:
                await asyncio.wait_for(process.wait(), grace_seconds)
            except TimeoutError:
                logger.warning("adjudicator replica %s did not stop; killing it", process.pid)
                process.kill()
                await process.wait()
        self.processes = []


async def start_replicas(settings: Settings, engine: AsyncEngine, count: int) -> Replicas:
    """Start `count` replica processes on the same database (the URL this process resolved,
    so an embedded database started here is shared); they inherit the environment."""
    if count < 1:
        return Replicas([])
    env = dict(os.environ)
    env.update(
        {
            "REMEMBERSTACK_DATABASE_URL": engine.url.render_as_string(hide_password=False),
            "REMEMBERSTACK_ADJUDICATOR_PROCESSES": "1",
            "REMEMBERSTACK_SERVICE_NAME": f"{settings.service_name}-replica",
        }
    )
    code = "from services.adjudicator.app import run_replica; run_replica()"
    processes = [
        await asyncio.create_subprocess_exec(sys.executable, "-c", code, env=env)
        for _ in range(count)
    ]
    logger.info("started %d adjudicator replica(s): %s", count, [p.pid for p in processes])
    return Replicas(processes)


def run_replica() -> None:
    """Entry point of a replica: queue workers only, until SIGTERM or the parent is gone."""
    settings = Settings()
    configure_logging(
        settings.log_level, settings.log_json, settings.service_name, settings.log_levels
    )
    run_as_background_work(settings.background_niceness)
    telemetry = telemetry_from_settings(settings)
    telemetry.install_global()
    try:
        asyncio.run(_replica(settings, telemetry))
    finally:
        telemetry.shutdown()


async def _replica(settings: Settings, telemetry: Telemetry) -> None:
    parent = os.getppid()
    engine = create_engine(settings.database_url or "")
    instrument_engine(engine, telemetry, settings.service_name)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    workers = _workers(settings, engine, _service(settings, engine, telemetry), telemetry)
    await workers.start()
    statistics = StatisticsRefresher(engine, settings.statistics_refresh_seconds)
    await statistics.start()
    try:
        # A parent killed without a chance to stop its replicas leaves them orphaned: the
        # new parent pid says so, and the replica ends like on SIGTERM.
        while not stop.is_set() and os.getppid() == parent:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 1.0)
    finally:
        await workers.stop()
        await statistics.stop()
        await engine.dispose()
