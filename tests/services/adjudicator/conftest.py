"""Fixtures of the adjudication pipeline tests: a claim builder writing the ingest tables
directly (documents, versions, chunks, claims, version_claims) and a real service."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.adjudicator.engines.base import AdjudicationEngine
from services.adjudicator.engines.jev import JevEngine
from services.adjudicator.entities.resolver import EntityResolver
from services.adjudicator.normalization import Normalizer, PredicateVocabulary
from services.adjudicator.service import AdjudicationService
from shared.db.queue import enqueue
from shared.embedding import Embedder, OnnxMiniLmEmbedder
from shared.pipeline.kinds import ADJUDICATE_KIND


def day(y: int, m: int, d: int = 1) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


@pytest.fixture(scope="session")
def adj_embedder() -> Embedder:
    return OnnxMiniLmEmbedder.load(threads=1)


def make_service(
    factory: async_sessionmaker[AsyncSession],
    embedder: Embedder,
    *,
    engine: AdjudicationEngine | None = None,
    floor: float = 0.75,
    packs: Sequence[str] = (),
) -> AdjudicationService:
    return AdjudicationService(
        factory,
        engine=engine or JevEngine(),
        engine_version="test",
        resolver=EntityResolver(embedder),
        embedder=embedder,
        normalizer=Normalizer(PredicateVocabulary(packs)),
        confidence_floor=floor,
        extractor="rules",
    )


@pytest.fixture
def adj_service(
    session_factory: async_sessionmaker[AsyncSession], adj_embedder: Embedder
) -> AdjudicationService:
    return make_service(session_factory, adj_embedder)


@dataclass
class Doc:
    id: uuid.UUID
    title: str
    versions: list[uuid.UUID] = field(default_factory=list)
    chunk: uuid.UUID | None = None


class Corpus:
    """Writes what the ingest service would: one chunk per document, claims linked to versions."""

    def __init__(self, factory: async_sessionmaker[AsyncSession], namespace: str) -> None:
        self.factory = factory
        self.namespace = namespace
        self._offset = 0

    async def _exec(self, sql: str, **params: Any) -> Any:
        async with self.factory() as session, session.begin():
            result = await session.execute(text(sql), params)
            return result.scalar() if result.returns_rows else None

    async def document(self, title: str, *, speaker_doc: bool = False) -> Doc:
        await self._exec(
            "INSERT INTO namespaces (namespace) VALUES (:ns) ON CONFLICT DO NOTHING",
            ns=self.namespace,
        )
        doc_id = await self._exec(
            "INSERT INTO documents (namespace, identity_key, title) VALUES (:ns, :key, :title)"
            " RETURNING id",
            ns=self.namespace,
            key=f"sha256:{uuid.uuid4().hex}",
            title=title,
        )
        doc = Doc(doc_id, title)
        await self.version(doc)
        doc.chunk = await self._exec(
            "INSERT INTO chunks (namespace, document_id, content_sha256, text)"
            " VALUES (:ns, :doc, :sha, :text) RETURNING id",
            ns=self.namespace,
            doc=doc_id,
            sha=uuid.uuid4().hex,
            text=title,
        )
        return doc

    async def version(self, doc: Doc, *, carry: bool = False) -> uuid.UUID:
        """A new version; with `carry` every current claim of the last version is linked to it."""
        version_id = await self._exec(
            "INSERT INTO document_versions (namespace, document_id, version_number, content,"
            " content_text, media_type, content_sha256)"
            " VALUES (:ns, :doc, :n, :content, :txt, 'text/plain', :sha) RETURNING id",
            ns=self.namespace,
            doc=doc.id,
            n=len(doc.versions) + 1,
            content=doc.title.encode(),
            txt=doc.title,
            sha=hashlib.sha256(uuid.uuid4().bytes).hexdigest(),
        )
        if carry and doc.versions:
            await self._exec(
                "INSERT INTO version_claims (namespace, version_id, claim_id)"
                " SELECT namespace, :new, claim_id FROM version_claims WHERE version_id = :old",
                new=version_id,
                old=doc.versions[-1],
            )
        doc.versions.append(version_id)
        return version_id

    async def claim(
        self,
        doc: Doc,
        claim_text: str,
        subject: str | None = None,
        predicate: str | None = None,
        obj: str | None = None,
        *,
        said: datetime | None = None,
        valid_from: datetime | None = None,
        valid_until: datetime | None = None,
        precision: str = "unknown",
        kind: str | None = None,
        polarity: str = "positive",
        holder: str | None = None,
        speaker: str | None = None,
        extractor_version: str = "1",
        version: uuid.UUID | None = None,
    ) -> uuid.UUID:
        self._offset += 1
        claim_id: uuid.UUID = await self._exec(
            "INSERT INTO claims (namespace, document_id, first_version_id, chunk_id, claim_text,"
            " normalized_text, source_span, char_start, char_end, chunk_char_start,"
            " chunk_char_end, asserted_at, claim_valid_from, claim_valid_until,"
            " claim_valid_precision, claim_valid_kind, is_attributed, holder, polarity,"
            " subject_text, predicate_text, object_text, speaker, extractor_name,"
            " extractor_version, dedupe_key)"
            " VALUES (:ns, :doc, :ver, :chunk, :text, lower(:text), :text, :o, :o, 0, 0, :said,"
            " :vf, :vu, :prec, :kind, :attr, :holder, :pol, :subj, :pred, :obj, :speaker,"
            " 'rules', :xv, :key) RETURNING id",
            ns=self.namespace,
            doc=doc.id,
            ver=version or doc.versions[-1],
            chunk=doc.chunk,
            text=claim_text,
            o=self._offset,
            said=said,
            vf=valid_from,
            vu=valid_until,
            prec=precision,
            kind=kind,
            attr=holder is not None,
            holder=holder,
            pol=polarity,
            subj=subject,
            pred=predicate,
            obj=obj,
            speaker=speaker,
            xv=extractor_version,
            key=uuid.uuid4().hex,
        )
        await self._exec(
            "INSERT INTO version_claims (namespace, version_id, claim_id) VALUES (:ns, :v, :c)",
            ns=self.namespace,
            v=version or doc.versions[-1],
            c=claim_id,
        )
        return claim_id

    async def enqueue(
        self,
        version_id: uuid.UUID,
        retire: Sequence[uuid.UUID] = (),
        reason: str | None = None,
        *,
        kind: str = ADJUDICATE_KIND,
    ) -> uuid.UUID:
        async with self.factory() as session, session.begin():
            item = await enqueue(
                session,
                self.namespace,
                kind,
                {
                    "version_id": str(version_id),
                    "retire_claim_ids": [str(c) for c in retire],
                    "retire_reason": reason,
                },
                version_id=version_id,
            )
        assert item is not None
        return item

    async def facts(self) -> list[dict[str, Any]]:
        """Every fact of the namespace, ordered by label, with its window and counts."""
        async with self.factory() as session:
            rows = await session.execute(
                text(
                    "SELECT f.id, f.kind, f.label, f.predicate, f.valid_from, f.valid_until,"
                    " f.valid_precision, f.valid_kind, f.evidence_count, f.support,"
                    " f.invalidated_at, f.invalidation_reason, f.contradiction_group_id,"
                    " f.superseded_by_fact_id,"
                    " s.canonical_name AS subject,"
                    " (SELECT count(*) FROM fact_evidence e WHERE e.fact_id = f.id"
                    "  AND e.stance = 'contradicts') AS contradicting"
                    " FROM facts f JOIN entities s ON s.id = f.subject_entity_id"
                    " WHERE f.namespace = :ns ORDER BY f.label, f.created_at"
                ),
                {"ns": self.namespace},
            )
            return [dict(r._mapping) for r in rows]

    async def transcripts(self) -> list[dict[str, Any]]:
        async with self.factory() as session:
            rows = await session.execute(
                text(
                    "SELECT t.*, f.label FROM decision_transcripts t JOIN facts f"
                    " ON f.id = t.fact_id WHERE t.namespace = :ns ORDER BY t.decided_at, t.id"
                ),
                {"ns": self.namespace},
            )
            return [dict(r._mapping) for r in rows]


@pytest.fixture
def corpus(session_factory: async_sessionmaker[AsyncSession], namespace: str) -> Corpus:
    return Corpus(session_factory, namespace)


@pytest.fixture
def service_maker(session_factory: async_sessionmaker[AsyncSession], adj_embedder: Embedder) -> Any:
    """`service_maker(engine=..., floor=..., packs=...)` builds another real service."""

    def build(**kwargs: Any) -> AdjudicationService:
        return make_service(session_factory, adj_embedder, **kwargs)

    return build


async def drain_queue(
    factory: async_sessionmaker[AsyncSession],
    service: AdjudicationService,
    kind: str,
    worker_id: str = "test-worker",
) -> int:
    """Run every runnable item of `kind` through the real handler, as a Worker would."""
    from services.adjudicator.worker import make_handler, record_adjudicate_failure
    from shared.db.queue import claim, complete, fail

    handler = make_handler(service, worker_id)
    done = 0
    while (item := await claim(factory, [kind], worker_id, 60.0)) is not None:
        try:
            async with factory() as session, session.begin():
                await handler(session, item)
                await complete(session, item.id, worker_id)
        except Exception as exc:  # what Worker does: record the failure separately
            async with factory() as session, session.begin():
                status = await fail(session, item.id, worker_id, f"{type(exc).__name__}: {exc}")
                if status is not None:
                    await record_adjudicate_failure(session, item, status, exc)
            break
        done += 1
    return done


@pytest.fixture
def drain(session_factory: async_sessionmaker[AsyncSession]) -> Any:
    async def run(service: AdjudicationService, kind: str) -> int:
        return await drain_queue(session_factory, service, kind)

    return run


@pytest.fixture
def corpus_maker(session_factory: async_sessionmaker[AsyncSession]) -> Any:
    """`corpus_maker()` gives a Corpus in a fresh namespace of its own."""

    def build() -> Corpus:
        return Corpus(session_factory, f"test-{uuid.uuid4().hex[:12]}")

    return build
