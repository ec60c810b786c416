"""Documents up to the 10 MiB cap are processed: multi-row statements fit PostgreSQL's 32,767
parameters and over-long passages are cut before the extractor sees them."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import uuid
from collections.abc import Sequence

import grpc.aio
import pytest
from rememberstack.v1 import document_pb2, ingest_service_pb2, ingest_service_pb2_grpc
from sqlalchemy import func, select

from services.ingest import claims_repository as claims_repo
from services.ingest.app import build_server
from services.ingest.chunking import ChunkSpan
from services.ingest.config import IngestSettings
from services.ingest.extraction.base import ExtractedClaim, ExtractionInput
from services.ingest.segments import MAX_PASSAGE_CHARS, segments
from shared.db.engine import unit_of_work
from shared.db.models import Chunk, Document, DocumentVersion, Namespace, VersionChunk
from tests.services.ingest.conftest import MarkerFailingExtractor

_DONE = (document_pb2.STAGE_STATUS_SUCCEEDED, document_pb2.STAGE_STATUS_SKIPPED)
_UP_TO_EMBED = (
    document_pb2.STAGE_CONVERT,
    document_pb2.STAGE_CHUNK,
    document_pb2.STAGE_EXTRACT,
    document_pb2.STAGE_EMBED,
)


def test_segments_end_at_sentences_and_cover_the_text_exactly():
    text = "Ravi leads billing. " * 2000 + "x" * 50_000
    pieces = segments(text, 10_000)
    assert pieces[0][0] == 0 and pieces[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(pieces))
    assert all(0 < end - start <= 10_000 for start, end in pieces)
    assert text[pieces[0][0] : pieces[0][1]].endswith("billing. ")  # a sentence boundary
    assert segments("short", 10) == [(0, 5)]


async def test_forty_thousand_chunks_are_stored_in_statements_under_the_parameter_limit(
    session_factory, namespace
):
    chunks = [
        ChunkSpan(
            i, i * 10, i * 10 + 9, f"chunk {i:05d}", "", hashlib.sha256(b"%d" % i).hexdigest(), ()
        )
        for i in range(40_000)
    ]
    async with unit_of_work(session_factory) as session:
        session.add(Namespace(namespace=namespace))
        document = Document(namespace=namespace, identity_key=f"sha256:{uuid.uuid4().hex}")
        session.add(document)
        await session.flush()
        ids = await claims_repo.upsert_chunks(session, namespace, document.id, chunks)
        version = await _version(session, namespace, document)
        await claims_repo.link_version_chunks(session, namespace, version, chunks, ids)
        done = await claims_repo.chunks_already_extracted(
            session, namespace, version, ids, ("rules", "test")
        )
    assert len(set(ids)) == 40_000 and done == set()
    async with session_factory() as session:
        stored = await session.scalar(
            select(func.count()).select_from(VersionChunk).where(VersionChunk.version_id == version)
        )
        texts = await session.scalar(
            select(func.count()).select_from(Chunk).where(Chunk.document_id == document.id)
        )
    assert (stored, texts) == (40_000, 40_000)


async def _version(session, namespace: str, document: Document) -> uuid.UUID:
    version = DocumentVersion(
        namespace=namespace,
        document_id=document.id,
        version_number=1,
        content=b"x",
        content_sha256=hashlib.sha256(b"x").hexdigest(),
        media_type="text/plain",
    )
    session.add(version)
    await session.flush()
    return version.id


class LongestPassage:
    """The real extractor, recording the longest text it was handed."""

    def __init__(self, inner: MarkerFailingExtractor) -> None:
        self._inner = inner
        self.name, self.version = inner.name, inner.version
        self.longest = 0

    def extract_batch(self, inputs: Sequence[ExtractionInput]) -> list[list[ExtractedClaim]]:
        self.longest = max([self.longest, *(len(i.text) for i in inputs)])
        return self._inner.extract_batch(inputs)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("media_type", "body"),
    [
        # One turn of 1.1 million characters: spaCy alone refuses more than 1,000,000. Filler
        # without sentence ends keeps the model time (and the claims to embed) small.
        (
            "text/x-rememberstack-conversation",
            "[t1 | 2026-01-05T10:00:00Z] Ravi: Ravi leads billing. " + "lorem " * 180_000,
        ),
        # 8 MiB of Markdown, about 7,000 chunks: each multi-row statement would pass 35,000
        # parameters and more. Code blocks are chunked and embedded, not extracted.
        (
            "text/markdown",
            "# Notes\n\nRavi Patel leads the billing migration.\n\n"
            + "".join(
                f"```\n# block {i}\n" + "value = compute(value)\n" * 48 + "```\n\n"
                for i in range(7_200)
            ),
        ),
    ],
    ids=["one-huge-turn", "eight-mib-markdown"],
)
async def test_multi_mebibyte_document_is_extracted_and_embedded(
    database_url, db_engine, session_factory, rules_extractor, minilm, namespace, media_type, body
):
    extractor = LongestPassage(MarkerFailingExtractor(rules_extractor))
    settings = IngestSettings(database_url=database_url, port=0, worker_poll_seconds=0.2)
    server = await build_server(settings, engine=db_engine, extractor=extractor, embedder=minilm)
    await server.start()
    channel = grpc.aio.insecure_channel(server.address)
    stub = ingest_service_pb2_grpc.IngestServiceStub(channel)
    try:
        assert len(body.encode()) > 1_000_000
        response = await stub.IngestDocument(
            ingest_service_pb2.IngestDocumentRequest(
                namespace=namespace, content=body.encode(), media_type=media_type
            )
        )
        request = ingest_service_pb2.GetReadinessRequest(
            namespace=namespace, version_ids=[response.version_id]
        )
        async with asyncio.timeout(1500):
            while True:
                [state] = (await stub.GetReadiness(request)).versions
                stages = {s.stage: s.status for s in state.stages}
                if state.dead_lettered or all(stages[s] in _DONE for s in _UP_TO_EMBED):
                    break
                await asyncio.sleep(1.0)
        assert not state.dead_lettered, [s.last_error for s in state.stages]
        assert state.claim_count > 0
        assert extractor.longest <= MAX_PASSAGE_CHARS
    finally:
        await channel.close()
        await server.stop(grace=1)
