"""Builds the AdjudicatorService server: engine, resolver, service, servicer and queue workers."""

from __future__ import annotations

import os
import socket

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
from shared.embedding import Embedder, create_embedder
from shared.grpc.server import GrpcServer, StopCallback, servicer_registration
from shared.telemetry import Telemetry

__all__ = ["PROMPT_ENGINE_VERSION", "SERVICE_NAME", "build_engine", "build_server"]

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
    )


async def build_server(
    settings: Settings,
    *,
    engine: AsyncEngine | None = None,
    telemetry: Telemetry | None = None,
) -> GrpcServer:
    """A ready-to-start server with its workers running; an engine passed in stays the
    caller's to dispose. Raises ConfigurationError for an engine that cannot run."""
    adjudication_engine, engine_version = build_engine(settings)
    normalizer = Normalizer(PredicateVocabulary(settings.extension_packs))
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
    factory = session_factory(engine)
    embedder = _embedder(settings)
    service = AdjudicationService(
        factory,
        engine=adjudication_engine,
        engine_version=engine_version,
        resolver=EntityResolver(embedder, chooser=_entity_chooser(settings)),
        embedder=embedder,
        normalizer=normalizer,
        confidence_floor=settings.fact_confidence_floor,
        extractor=settings.claim_extractor,
    )
    workers = AdjudicationWorkers(
        factory,
        service,
        concurrency=settings.worker_concurrency,
        worker_prefix=f"adjudicator-{socket.gethostname()}-{os.getpid()}",
        poll_seconds=settings.worker_poll_seconds,
        lease_seconds=settings.worker_lease_seconds,
        listen_url=engine.url.render_as_string(hide_password=False),
    )
    await workers.start()
    # Workers stop before the engine is disposed.
    on_stop.insert(0, workers.stop)
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
        on_stop=on_stop,
    )
