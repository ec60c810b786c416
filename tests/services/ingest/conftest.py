"""Fixtures of the ingest service tests: real models, in-process servers on port 0, and a
stand-in adjudicator that does what the real one does to testimony and stage rows."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from rememberstack.v1 import document_pb2, ingest_service_pb2, ingest_service_pb2_grpc
from sqlalchemy import text, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from services.ingest.app import build_server
from services.ingest.config import IngestSettings
from services.ingest.extraction.base import ClaimExtractor, ExtractedClaim, ExtractionInput
from services.ingest.extraction.rules import RulesExtractor, load_rules_extractor
from shared.beliefs.support import retire_testimony
from shared.db.models import VersionStage, WorkItem
from shared.db.queue import Worker
from shared.embedding import Embedder, OnnxMiniLmEmbedder
from shared.grpc.server import GrpcServer

FAIL_MARKER = "EXPLODE-IN-EXTRACTION"


class MarkerFailingExtractor:
    """The real extractor, except that it raises while armed and a passage holds FAIL_MARKER."""

    def __init__(self, inner: ClaimExtractor, version: str | None = None) -> None:
        self._inner = inner
        self.name = inner.name
        self.version = version or inner.version
        self.armed = True

    def extract_batch(self, inputs: Sequence[ExtractionInput]) -> list[list[ExtractedClaim]]:
        if self.armed and any(FAIL_MARKER in i.text for i in inputs):
            raise RuntimeError("marker text makes extraction fail")
        return self._inner.extract_batch(inputs)


@pytest.fixture(scope="session")
def rules_extractor() -> RulesExtractor:
    return load_rules_extractor()


@pytest.fixture(scope="session")
def extractor(rules_extractor: RulesExtractor) -> RulesExtractor:
    """The rules extractor the test modules read passages with (loaded once per session)."""
    return rules_extractor


@pytest.fixture(scope="session")
def minilm() -> Embedder:
    return OnnxMiniLmEmbedder.load(threads=1)


async def _stand_in_adjudicate(session: AsyncSession, item: WorkItem) -> None:
    payload = item.payload
    version_id = uuid.UUID(payload["version_id"])
    retire = [uuid.UUID(c) for c in payload.get("retire_claim_ids") or []]
    if retire:
        await retire_testimony(
            session, item.namespace, retire, payload["retire_reason"], version_id=version_id
        )
    await session.execute(
        update(VersionStage)
        .where(VersionStage.version_id == version_id, VersionStage.stage == "adjudicate")
        .values(status="succeeded", attempts=item.attempts)
    )


@dataclass
class Ingest:
    """A running ingest server with a channel to it and database access for assertions."""

    server: GrpcServer
    stub: ingest_service_pb2_grpc.IngestServiceStub
    factory: async_sessionmaker[AsyncSession]
    extractor: MarkerFailingExtractor

    async def ingest(self, namespace: str, content: str | bytes, **fields: Any) -> Any:
        fields.setdefault("media_type", "text/plain")
        body = content.encode() if isinstance(content, str) else content
        request = ingest_service_pb2.IngestDocumentRequest(
            namespace=namespace, content=body, **fields
        )
        return await self.stub.IngestDocument(request)

    async def settle(
        self, namespace: str, version_ids: Sequence[str]
    ) -> dict[str, document_pb2.VersionReadiness]:
        """Watch readiness until all_settled; the final state of every version."""
        latest: dict[str, document_pb2.VersionReadiness] = {}
        request = ingest_service_pb2.WatchReadinessRequest(
            namespace=namespace, version_ids=list(version_ids)
        )
        async with asyncio.timeout(60):
            async for update_ in self.stub.WatchReadiness(request):
                latest.update((v.version_id, v) for v in update_.versions)
                if update_.all_settled:
                    break
        return latest

    async def rows(self, sql: str, **params: Any) -> list[Any]:
        async with self.factory() as session:
            return list((await session.execute(text(sql), params)).all())


@asynccontextmanager
async def running_ingest(
    database_url: str,
    engine: AsyncEngine,
    factory: async_sessionmaker[AsyncSession],
    extractor: MarkerFailingExtractor,
    embedder: Embedder,
) -> AsyncIterator[Ingest]:
    settings = IngestSettings(
        database_url=database_url,
        port=0,
        worker_concurrency=2,
        worker_poll_seconds=0.2,
        max_document_bytes=64 * 1024,
        chunk_max_chars=400,
    )
    server = await build_server(settings, engine=engine, extractor=extractor, embedder=embedder)
    adjudicator = Worker(
        factory,
        ["adjudicate.version"],
        _stand_in_adjudicate,
        worker_id=f"stand-in-adjudicator-{uuid.uuid4().hex[:6]}",
        poll_seconds=0.2,
        listen_url=database_url,
    )
    await server.start()
    await adjudicator.start()
    channel = grpc.aio.insecure_channel(server.address)
    try:
        yield Ingest(server, ingest_service_pb2_grpc.IngestServiceStub(channel), factory, extractor)
    finally:
        await channel.close()
        await adjudicator.stop()
        await server.stop(grace=1)


@pytest.fixture(scope="module")
async def ingest(
    database_url: str,
    db_engine: AsyncEngine,
    session_factory: async_sessionmaker[AsyncSession],
    rules_extractor: RulesExtractor,
    minilm: Embedder,
) -> AsyncIterator[Ingest]:
    """One ingest server per test module, with the real rules extractor and ONNX embedder."""
    extractor = MarkerFailingExtractor(rules_extractor)
    async with running_ingest(
        database_url, db_engine, session_factory, extractor, minilm
    ) as running:
        yield running


IngestFactory = Callable[[str | None], AbstractAsyncContextManager[Ingest]]


@pytest.fixture
def ingest_factory(
    database_url: str,
    db_engine: AsyncEngine,
    session_factory: async_sessionmaker[AsyncSession],
    rules_extractor: RulesExtractor,
    minilm: Embedder,
) -> IngestFactory:
    """Starts a server whose rules extractor reports the given version (None: its own), for
    tests that need two extractor versions one after the other."""

    def start(version: str | None) -> AbstractAsyncContextManager[Ingest]:
        extractor = MarkerFailingExtractor(rules_extractor, version)
        return running_ingest(database_url, db_engine, session_factory, extractor, minilm)

    return start
