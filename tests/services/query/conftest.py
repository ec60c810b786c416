"""Query-service fixtures: a store builder writing rows directly, and one in-process gRPC server.

The builder inserts documents, versions, chunks, claims (with real ONNX embeddings), entities,
facts, evidence, contradiction groups and transcripts the way the writers lay them out, so the
read path is tested without the ingest and adjudicator services.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import grpc.aio
import pytest
from rememberstack.v1 import query_service_pb2_grpc
from sqlalchemy import text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from services.query.app import build_server
from services.query.config import load_settings
from shared.db.models import (
    Chunk,
    Claim,
    ContradictionGroup,
    DecisionTranscript,
    Document,
    DocumentVersion,
    Entity,
    Fact,
    FactEvidence,
    Namespace,
    VersionChunk,
)
from shared.embedding import Embedder, OnnxMiniLmEmbedder
from shared.grpc.server import GrpcServer

SAID_ON = datetime(2026, 1, 15, 9, 0, tzinfo=UTC)


@dataclass
class Doc:
    id: uuid.UUID
    version_id: uuid.UUID
    chunk_ids: list[uuid.UUID]
    text: str
    said_on: datetime | None


@dataclass
class World:
    """Writes one namespace's store directly, committing each call."""

    factory: async_sessionmaker[AsyncSession]
    namespace: str
    embedder: Embedder
    _serial: int = 0
    docs: list[Doc] = field(default_factory=list)

    def _vectors(self, texts: Sequence[str]) -> list[list[float]]:
        return [list(map(float, row)) for row in self.embedder.embed(list(texts))]

    async def _add(self, *rows: Any) -> None:
        async with self.factory() as session, session.begin():
            await session.execute(
                insert(Namespace).values(namespace=self.namespace).on_conflict_do_nothing()
            )
            for row in rows:
                session.add(row)
                await session.flush()

    async def document(
        self,
        paragraphs: Sequence[str],
        *,
        title: str = "notes",
        said_on: datetime | None = SAID_ON,
        source_kind: str | None = None,
        versioning_mode: str = "snapshot",
    ) -> Doc:
        """One document with one version; each paragraph becomes a chunk."""
        body = "\n\n".join(paragraphs)
        self._serial += 1
        doc = Document(
            id=uuid.uuid4(),
            namespace=self.namespace,
            identity_key=f"sha256:{self._serial}:{hashlib.sha256(body.encode()).hexdigest()}",
            source_kind=source_kind,
            source_ref=f"ref-{self._serial}" if source_kind else None,
            title=title,
            media_type="text/plain",
            versioning_mode=versioning_mode,
        )
        version = DocumentVersion(
            id=uuid.uuid4(),
            namespace=self.namespace,
            document_id=doc.id,
            version_number=1,
            content=body.encode(),
            content_text=body,
            media_type="text/plain",
            content_sha256=hashlib.sha256(body.encode()).hexdigest(),
            source_modified_time=said_on,
        )
        rows: list[Any] = [doc, version]
        chunk_ids: list[uuid.UUID] = []
        offset = 0
        for ordinal, (paragraph, vector) in enumerate(
            zip(paragraphs, self._vectors(paragraphs), strict=True)
        ):
            chunk = Chunk(
                id=uuid.uuid4(),
                namespace=self.namespace,
                document_id=doc.id,
                content_sha256=hashlib.sha256(f"{ordinal}{paragraph}".encode()).hexdigest(),
                text=paragraph,
                embedding=vector,
            )
            rows.append(chunk)
            rows.append(
                VersionChunk(
                    namespace=self.namespace,
                    version_id=version.id,
                    chunk_id=chunk.id,
                    ordinal=ordinal,
                    char_start=offset,
                    char_end=offset + len(paragraph),
                )
            )
            chunk_ids.append(chunk.id)
            offset += len(paragraph) + 2
        await self._add(*rows)
        async with self.factory() as session, session.begin():
            await session.execute(
                text("UPDATE documents SET latest_version_id = :v WHERE id = :d"),
                {"v": version.id, "d": doc.id},
            )
        made = Doc(doc.id, version.id, chunk_ids, body, said_on)
        self.docs.append(made)
        return made

    async def claim(
        self,
        doc: Doc,
        claim_text: str,
        *,
        chunk: int = 0,
        asserted_at: datetime | None = None,
        valid_from: datetime | None = None,
        valid_until: datetime | None = None,
        precision: str = "unknown",
        valid_kind: str | None = None,
        holder: str | None = None,
        current: bool = True,
        turn_id: str | None = None,
        speaker: str | None = None,
    ) -> uuid.UUID:
        start = doc.text.find(claim_text)
        start = max(start, 0)
        claim = Claim(
            id=uuid.uuid4(),
            namespace=self.namespace,
            document_id=doc.id,
            first_version_id=doc.version_id,
            chunk_id=doc.chunk_ids[chunk],
            claim_text=claim_text,
            normalized_text=" ".join(claim_text.lower().split()),
            source_span=claim_text,
            char_start=start,
            char_end=start + len(claim_text),
            chunk_char_start=0,
            chunk_char_end=len(claim_text),
            asserted_at=asserted_at or doc.said_on,
            claim_valid_from=valid_from,
            claim_valid_until=valid_until,
            claim_valid_precision=precision,
            claim_valid_kind=valid_kind,
            is_attributed=holder is not None,
            holder=holder,
            turn_id=turn_id,
            speaker=speaker,
            extractor_name="test",
            extractor_version="1",
            is_current_testimony=current,
            currency_reason=None if current else "reextracted",
            dedupe_key=uuid.uuid4().hex,
            embedding=self._vectors([claim_text])[0],
        )
        await self._add(claim)
        return claim.id

    async def entity(self, name: str, profile: str | None = None) -> uuid.UUID:
        entity = Entity(
            id=uuid.uuid4(),
            namespace=self.namespace,
            canonical_name=name,
            normalized_name=name.lower(),
            profile_text=profile,
            profile_embedding=self._vectors([profile])[0] if profile else None,
        )
        await self._add(entity)
        return entity.id

    async def group(self, *, resolved: bool = False) -> uuid.UUID:
        group = ContradictionGroup(
            id=uuid.uuid4(),
            namespace=self.namespace,
            resolved_at=datetime.now(UTC) if resolved else None,
        )
        await self._add(group)
        return group.id

    async def fact(
        self,
        subject: uuid.UUID,
        label: str,
        *,
        predicate: str | None = None,
        obj: uuid.UUID | None = None,
        evidence: Sequence[tuple[uuid.UUID, str]] = (),
        valid_from: datetime | None = None,
        valid_until: datetime | None = None,
        precision: str = "unknown",
        valid_kind: str | None = None,
        group: uuid.UUID | None = None,
        invalidated_at: datetime | None = None,
        ingested_at: datetime | None = None,
        support: str = "current",
    ) -> uuid.UUID:
        fact = Fact(
            id=uuid.uuid4(),
            namespace=self.namespace,
            kind="relation" if obj is not None else "observation",
            subject_entity_id=subject,
            predicate=predicate,
            object_entity_id=obj,
            statement=label,
            label=label,
            valid_from=valid_from,
            valid_until=valid_until,
            valid_precision=precision,
            valid_kind=valid_kind,
            invalidated_at=invalidated_at,
            support=support,
            contradiction_group_id=group,
            embedding=self._vectors([label])[0],
        )
        if ingested_at is not None:
            fact.ingested_at = ingested_at
        rows: list[Any] = [fact]
        documents: set[uuid.UUID] = set()
        async with self.factory() as session:
            for claim_id, stance in evidence:
                doc_id = (
                    await session.execute(
                        text("SELECT document_id FROM claims WHERE id = :c"), {"c": claim_id}
                    )
                ).scalar_one()
                if stance == "supports":
                    documents.add(doc_id)
                rows.append(
                    FactEvidence(
                        namespace=self.namespace,
                        fact_id=fact.id,
                        claim_id=claim_id,
                        document_id=doc_id,
                        stance=stance,
                    )
                )
        fact.evidence_count = len(documents)
        await self._add(*rows)
        return fact.id

    async def decision(
        self, fact_id: uuid.UUID, outcome: str, decided_at: datetime, **extra: Any
    ) -> uuid.UUID:
        decision = DecisionTranscript(
            id=uuid.uuid4(),
            namespace=self.namespace,
            fact_id=fact_id,
            outcome=outcome,
            method=extra.pop("method", "jev"),
            decided_by="test",
            decided_at=decided_at,
            **extra,
        )
        await self._add(decision)
        return decision.id

    async def sql(self, statement: str, **params: Any) -> None:
        async with self.factory() as session, session.begin():
            await session.execute(text(statement), params)


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return OnnxMiniLmEmbedder.load()


@pytest.fixture
def world(
    session_factory: async_sessionmaker[AsyncSession], namespace: str, embedder: Embedder
) -> World:
    return World(session_factory, namespace, embedder)


@pytest.fixture(scope="module")
async def query_server(database_url: str, db_engine: AsyncEngine) -> AsyncIterator[GrpcServer]:
    """The real query server with the prompt engine selected and its chat endpoint unreachable:
    every read in these tests also proves no read calls a chat model."""
    settings = load_settings(
        database_url=database_url,
        port=0,
        fact_adjudication_engine="prompt",
        llm_model="unreachable-chat-model",
        llm_base_url="http://127.0.0.1:9/v1",
        llm_timeout_seconds=0.5,
    )
    server = await build_server(settings, engine=db_engine)
    await server.start()
    yield server
    await server.stop(0)


@pytest.fixture(scope="module")
async def stub(
    query_server: GrpcServer,
) -> AsyncIterator[query_service_pb2_grpc.QueryServiceStub]:
    async with grpc.aio.insecure_channel(query_server.address) as channel:
        yield query_service_pb2_grpc.QueryServiceStub(channel)
