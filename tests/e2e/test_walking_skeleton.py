"""End to end across the four services: health, reflection, validation, ingest → facts, graph."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from rememberstack.v1 import (
    common_pb2,
    graph_service_pb2,
    ingest_service_pb2,
    query_service_pb2,
)

from shared.cli.client import Stubs
from shared.cli.ingest_files import watch_until_settled
from shared.grpc.errors import parse_rich_error
from shared.proto_convert import timestamp

SERVICE_NAMES = {
    "ingest": "rememberstack.v1.IngestService",
    "adjudicator": "rememberstack.v1.AdjudicatorService",
    "query": "rememberstack.v1.QueryService",
    "graph": "rememberstack.v1.GraphService",
}


@pytest.mark.parametrize("service", sorted(SERVICE_NAMES))
async def test_every_service_reports_serving_for_its_own_name(stubs: Stubs, service: str) -> None:
    health = health_pb2_grpc.HealthStub(stubs.channels[service])
    for name in ("", SERVICE_NAMES[service]):
        reply = await health.Check(health_pb2.HealthCheckRequest(service=name))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING


@pytest.mark.parametrize("service", sorted(SERVICE_NAMES))
async def test_reflection_lists_the_service(stubs: Stubs, service: str) -> None:
    reflection = reflection_pb2_grpc.ServerReflectionStub(stubs.channels[service])
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    async for reply in reflection.ServerReflectionInfo(iter([request])):
        names = {s.name for s in reply.list_services_response.service}
        assert SERVICE_NAMES[service] in names
        break


async def test_out_of_range_k_is_invalid_argument_naming_the_field(stubs: Stubs) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stubs.query.FactsContext(query_service_pb2.FactsContextRequest(query="x", k=31))
    code, _reason, violations = parse_rich_error(caught.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "k" in {violation.field for violation in violations}


async def test_empty_document_is_invalid_argument_naming_content(stubs: Stubs) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stubs.ingest.IngestDocument(
            ingest_service_pb2.IngestDocumentRequest(content=b"", media_type="text/plain")
        )
    code, _reason, violations = parse_rich_error(caught.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "content" in {violation.field for violation in violations}


async def test_ingested_text_becomes_claims_and_facts_with_evidence(stubs: Stubs) -> None:
    namespace = f"e2e-{uuid.uuid4().hex[:8]}"
    text = (
        "Ravi Patel works on the billing migration.\n\n"
        "The billing migration cutover is scheduled for 2026-06-08.\n"
    )
    ingested = await stubs.ingest.IngestDocument(
        ingest_service_pb2.IngestDocumentRequest(
            namespace=namespace,
            content=text.encode(),
            media_type="text/plain",
            title="Billing spec",
            source_modified_time=timestamp(datetime(2026, 3, 2, 10, tzinfo=UTC)),
        )
    )
    assert ingested.created
    states = await watch_until_settled(
        stubs, [ingested.version_id], namespace=namespace, on_update=lambda _s: None
    )
    assert states[0].ready, states[0]
    assert states[0].claim_count >= 2

    claims = await stubs.query.SearchClaims(
        query_service_pb2.SearchClaimsRequest(namespace=namespace, query="cutover date", k=5)
    )
    spans = {claim.source_span for claim in claims.claims}
    assert any("2026-06-08" in span for span in spans)
    for claim in claims.claims:
        assert text[claim.char_start : claim.char_end] == claim.source_span

    facts = await stubs.query.FactsContext(
        query_service_pb2.FactsContextRequest(
            namespace=namespace,
            query="billing migration cutover",
            time_scope=common_pb2.TimeScope(history=common_pb2.HistoryScope()),
        )
    )
    assert facts.facts, facts
    evidence_claims = {claim.claim_id: claim for claim in facts.claims}
    for fact in facts.facts:
        assert fact.evidence_count == 1
        linked = [link for link in facts.fact_evidence if link.fact_id == fact.fact_id]
        assert linked and all(link.claim_id in evidence_claims for link in linked)
        assert all(evidence_claims[link.claim_id].doc_id == ingested.document_id for link in linked)


async def test_graph_neighborhood_of_unknown_entity_is_unknown_entity_negative(
    stubs: Stubs,
) -> None:
    reply = await stubs.graph.GraphNeighborhood(
        graph_service_pb2.GraphNeighborhoodRequest(entity_id=str(uuid.uuid4()))
    )
    assert reply.negative.kind == common_pb2.NEGATIVE_KIND_UNKNOWN_ENTITY
    assert not reply.nodes
