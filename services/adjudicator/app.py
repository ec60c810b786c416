"""Builds the AdjudicatorService server: engine, resolver, service, servicer and queue workers."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import sys
from contextlib import AsyncExitStack

from openai import AsyncOpenAI
from rememberstack.v1 import adjudicator_service_pb2_grpc as pb_grpc
from sqlalchemy.ext.asyncio import AsyncEngine

from services.adjudicator.config import AdjudicatorSettings, load_settings
from services.adjudicator.engines.base import AdjudicationEngine
from services.adjudicator.engines.jev import MODEL_VERSION as JEV_VERSION
from services.adjudicator.engines.prompt import create_engine as create_adjudication_engine
from services.adjudicator.entities.model_choice import ChatModelChooser
from services.adjudicator.entities.resolver import EntityResolver
from services.adjudicator.normalization import Normalizer, PredicateVocabulary
from services.adjudicator.service import AdjudicationService
from services.adjudicator.servicer import AdjudicatorServicer
from services.adjudicator.worker import AdjudicationWorkers
from shared.db.engine import database_probe, session_factory
from shared.db.open import open_database
from shared.db.statistics import StatisticsRefresher
from shared.embedding import Embedder, create_embedder
from shared.grpc.server import GrpcServer, servicer_registration
from shared.grpc.services import ADJUDICATOR
from shared.logging import configure_logging
from shared.pipeline.kinds import ADJUDICATE_KIND
from shared.priority import run_as_background_work
from shared.supervisor import StopRequest, Supervisor
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

SERVICE_NAME = ADJUDICATOR.full_name
PROMPT_ENGINE_VERSION = "prompt-json-schema-1"


def build_engine(settings: AdjudicatorSettings) -> tuple[AdjudicationEngine, str]:
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


def _entity_chooser(settings: AdjudicatorSettings) -> ChatModelChooser | None:
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


def _embedder(settings: AdjudicatorSettings) -> Embedder:
    return create_embedder(
        settings.embedder,
        base_url=settings.embedding_base_url,
        model=settings.embedding_model,
        timeout=settings.llm_timeout_seconds,
        int8_compute=settings.embedder_int8_compute,
    )


def _service(
    settings: AdjudicatorSettings, engine: AsyncEngine, telemetry: Telemetry | None
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
    settings: AdjudicatorSettings,
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


async def _start_work(
    settings: AdjudicatorSettings,
    engine: AsyncEngine,
    telemetry: Telemetry | None,
    resources: AsyncExitStack,
) -> AdjudicationService:
    """The service and its queue workers and statistics refresher, running; their stops are
    pushed on `resources` (so they stop before the engine they use is disposed)."""
    service = _service(settings, engine, telemetry)
    workers = _workers(settings, engine, service, telemetry)
    await workers.start()
    resources.push_async_callback(workers.stop)
    statistics = StatisticsRefresher(engine, settings.statistics_refresh_seconds)
    await statistics.start()
    resources.push_async_callback(statistics.stop)
    return service


async def build_server(
    settings: AdjudicatorSettings,
    *,
    engine: AsyncEngine | None = None,
    telemetry: Telemetry | None = None,
) -> GrpcServer:
    """A ready-to-start server with its workers (and replica processes) running; an engine
    passed in stays the caller's to dispose. Raises ConfigurationError for an engine that
    cannot run."""
    build_engine(settings)  # refuses an engine that cannot run before anything starts
    async with AsyncExitStack() as resources:
        database = await resources.enter_async_context(open_database(settings, engine=engine))
        instrument_engine(database.engine, telemetry, settings.service_name)
        service = await _start_work(settings, database.engine, telemetry, resources)
        queue_depth = QueueDepthSampler(database.engine, telemetry, (ADJUDICATE_KIND,))
        await queue_depth.start()
        resources.push_async_callback(queue_depth.stop)
        replicas = await start_replicas(
            settings, database.engine, settings.adjudicator_processes - 1
        )
        resources.push_async_callback(replicas.stop)
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
            readiness_probe=database_probe(database.engine),
            on_stop=[resources.pop_all().aclose],
        )


async def start_replicas(
    settings: AdjudicatorSettings, engine: AsyncEngine, count: int
) -> Supervisor:
    """Start `count` worker-only replica processes on the same database (the URL this process
    resolved, so an embedded database started here is shared); they inherit the environment.

    Each replica claims `adjudicate.version` items like the serving process's own workers do
    (SKIP LOCKED, one item per worker), so the processes share the queue without any other
    coordination; the per-subject advisory locks keep their decisions serial per entity.
    """
    replicas = Supervisor()
    if count < 1:
        return replicas
    env = dict(os.environ)
    env.update(
        {
            "REMEMBERSTACK_DATABASE_URL": engine.url.render_as_string(hide_password=False),
            "REMEMBERSTACK_ADJUDICATOR_PROCESSES": "1",
            "REMEMBERSTACK_SERVICE_NAME": f"{settings.service_name}-replica",
        }
    )
    code = "from services.adjudicator.app import run_replica; run_replica()"
    for index in range(count):
        await replicas.spawn(
            f"adjudicator replica {index + 1}", [sys.executable, "-c", code], env=env
        )
    pids = [process.pid for process in replicas.processes]
    logger.info("started %d adjudicator replica(s): %s", count, pids)
    return replicas


def run_replica() -> None:
    """Entry point of a replica: queue workers only, until SIGTERM or the parent is gone."""
    settings = load_settings()
    configure_logging(
        settings.log_level, settings.log_json, settings.service_name, settings.log_levels
    )
    run_as_background_work(settings.background_niceness)
    telemetry = telemetry_from_settings(settings)
    telemetry.install_global()
    try:
        asyncio.run(_replica(settings, telemetry, os.getppid()))
    finally:
        telemetry.shutdown()


async def _replica(settings: AdjudicatorSettings, telemetry: Telemetry, parent_pid: int) -> None:
    with StopRequest(parent_pid) as stop:
        async with AsyncExitStack() as resources:
            # The parent hands down the database it resolved (REMEMBERSTACK_DATABASE_URL), so
            # this never starts an embedded one of its own.
            database = await resources.enter_async_context(open_database(settings))
            instrument_engine(database.engine, telemetry, settings.service_name)
            await _start_work(settings, database.engine, telemetry, resources)
            await stop.wait()
