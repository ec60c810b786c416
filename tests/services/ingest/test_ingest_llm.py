"""The `llm` extractor against a real llama-server with a packaged GGUF model: the JSON-schema
response path, the grounding gate, and the ingest pipeline configured with `claim_extractor=llm`."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from rememberstack.v1 import ingest_service_pb2, ingest_service_pb2_grpc
from sqlalchemy import text

from services.ingest.app import build_server
from services.ingest.config import IngestSettings
from services.ingest.extraction.base import ExtractionInput
from services.ingest.extraction.llm import LlmExtractor
from tests.support.llama import LlamaServer

pytestmark = pytest.mark.llm

PASSAGE = "Dana moved to Lisbon in March 2025. Ravi leads the billing team at Acme."


def _client(base_url: str):  # type: ignore[no-untyped-def]
    from openai import OpenAI

    return OpenAI(base_url=base_url, api_key="unused")


async def test_llm_extractor_returns_only_claims_grounded_in_the_passage(
    llama_server: LlamaServer,
) -> None:
    extractor = LlmExtractor(
        lambda: _client(llama_server.base_url), llama_server.model, timeout=120, max_tokens=192
    )
    inp = ExtractionInput(text=PASSAGE, base_offset=100)
    [claims] = await asyncio.to_thread(extractor.extract_batch, [inp])
    # A 135M model often rambles past the token cap; a cut-off answer is a recorded drop.
    assert claims or extractor.last_drops
    for claim in claims:
        local = (claim.char_start - 100, claim.char_end - 100)
        assert PASSAGE[local[0] : local[1]] == claim.source_span
        assert claim.claim_text
    for drop in extractor.last_drops:
        assert drop.reason in {
            "missing_span",
            "missing_claim_text",
            "span_not_in_text",
            "invalid_json",
            "invalid_shape",
        }
        if drop.reason == "span_not_in_text":
            assert " ".join(drop.source_span.split()) not in " ".join(PASSAGE.split())
        if drop.reason == "invalid_json":
            assert drop.source_span.startswith("{")  # the schema-constrained shape began


async def test_ingest_with_llm_extractor_stores_grounded_claims(
    llama_server: LlamaServer, database_url: str, db_engine, namespace: str
) -> None:
    settings = IngestSettings(
        database_url=database_url,
        port=0,
        worker_poll_seconds=0.2,
        claim_extractor="llm",
        llm_base_url=llama_server.base_url,
        llm_model=llama_server.model,
        llm_timeout_seconds=120,
        llm_max_tokens=96,
    )
    server = await build_server(settings, engine=db_engine)
    await server.start()
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = ingest_service_pb2_grpc.IngestServiceStub(channel)
            result = await stub.IngestDocument(
                ingest_service_pb2.IngestDocumentRequest(
                    namespace=namespace, content=PASSAGE.encode(), media_type="text/plain"
                )
            )
            request = ingest_service_pb2.GetReadinessRequest(
                namespace=namespace, version_ids=[result.version_id]
            )
            async with asyncio.timeout(240):
                while True:
                    [state] = (await stub.GetReadiness(request)).versions
                    embed = next(s for s in state.stages if s.stage == 4)
                    if embed.status == 3 or state.dead_lettered:
                        break
                    await asyncio.sleep(0.5)
            assert not state.dead_lettered
        async with db_engine.connect() as connection:
            [(result_json,)] = (
                await connection.execute(
                    text(
                        "SELECT result FROM work_items WHERE namespace = :ns "
                        "AND kind = 'ingest.extract'"
                    ),
                    {"ns": namespace},
                )
            ).all()
            rows = (
                await connection.execute(
                    text(
                        "SELECT c.source_span, c.char_start, c.char_end, c.extractor_name, "
                        "v.content_text FROM claims c JOIN document_versions v "
                        "ON v.id = c.first_version_id WHERE c.namespace = :ns"
                    ),
                    {"ns": namespace},
                )
            ).all()
        # Every model claim is either stored, grounded, or recorded as a drop on the item.
        assert rows or result_json["grounding_drops"]
        for span, start, end, name, stored in rows:
            assert name == "llm"
            assert stored[start:end] == span
    finally:
        await server.stop(grace=1)
