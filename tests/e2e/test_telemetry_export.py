"""Traces and metrics reach a real OTLP/gRPC receiver: one trace per document across services."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import grpc.aio
import pytest
from opentelemetry.proto.collector.metrics.v1 import (
    metrics_service_pb2,
    metrics_service_pb2_grpc,
)
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.trace.v1 import trace_pb2
from rememberstack.v1 import ingest_service_pb2, query_service_pb2

from shared.cli.client import connect
from shared.grpc.server import GrpcServer
from shared.proto_convert import timestamp
from shared.telemetry import Telemetry, telemetry_from_settings
from tests.e2e.conftest import BUILDERS

SERVICES = ("ingest", "adjudicator", "query")


@dataclass
class Received:
    """What the receiver got: spans with their resource's service.name, and metric names."""

    spans: list[tuple[str, trace_pb2.Span]] = field(default_factory=list)
    metrics: dict[str, set[str]] = field(default_factory=dict)

    def add_spans(self, request: trace_service_pb2.ExportTraceServiceRequest) -> None:
        for resource_spans in request.resource_spans:
            service = _attribute(resource_spans.resource.attributes, "service.name")
            for scope_spans in resource_spans.scope_spans:
                self.spans.extend((service, span) for span in scope_spans.spans)

    def add_metrics(self, request: metrics_service_pb2.ExportMetricsServiceRequest) -> None:
        for resource_metrics in request.resource_metrics:
            service = _attribute(resource_metrics.resource.attributes, "service.name")
            for scope_metrics in resource_metrics.scope_metrics:
                for metric in scope_metrics.metrics:
                    self.metrics.setdefault(metric.name, set()).add(service)

    def trace(self, trace_id: bytes) -> Iterator[tuple[str, trace_pb2.Span]]:
        return ((s, span) for s, span in self.spans if span.trace_id == trace_id)


def _attribute(attributes: Any, key: str) -> str:
    return next((a.value.string_value for a in attributes if a.key == key), "")


class _Traces(trace_service_pb2_grpc.TraceServiceServicer):
    def __init__(self, received: Received) -> None:
        self._received = received

    async def Export(
        self, request: trace_service_pb2.ExportTraceServiceRequest, context: Any
    ) -> trace_service_pb2.ExportTraceServiceResponse:
        self._received.add_spans(request)
        return trace_service_pb2.ExportTraceServiceResponse()


class _Metrics(metrics_service_pb2_grpc.MetricsServiceServicer):
    def __init__(self, received: Received) -> None:
        self._received = received

    async def Export(
        self, request: metrics_service_pb2.ExportMetricsServiceRequest, context: Any
    ) -> metrics_service_pb2.ExportMetricsServiceResponse:
        self._received.add_metrics(request)
        return metrics_service_pb2.ExportMetricsServiceResponse()


@pytest.fixture
async def receiver() -> AsyncIterator[tuple[str, Received]]:
    """An OTLP/gRPC receiver on loopback (the collector's own service definitions)."""
    received = Received()
    server = grpc.aio.server()
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(_Traces(received), server)
    metrics_service_pb2_grpc.add_MetricsServiceServicer_to_server(_Metrics(received), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield f"127.0.0.1:{port}", received
    finally:
        await server.stop(0)


@pytest.fixture
async def exporting_system(
    database_url: str,
    receiver: tuple[str, Received],
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[dict[str, GrpcServer], dict[str, Telemetry]]]:
    """Ingest, adjudicator and query in-process, each exporting under its own service name."""
    endpoint, _ = receiver
    data_dir = tmp_path_factory.mktemp("telemetry")
    servers: dict[str, GrpcServer] = {}
    telemetries: dict[str, Telemetry] = {}
    try:
        for name in SERVICES:
            load_settings, build = BUILDERS[name]
            settings = load_settings(
                database_url=database_url,
                data_dir=data_dir,
                port=0,
                service_name=f"rememberstack-{name}",
                otlp_endpoint=endpoint,
                worker_poll_seconds=0.2,
                worker_lease_seconds=30,
            )
            telemetries[name] = telemetry_from_settings(settings)
            server = await build(settings, telemetry=telemetries[name])  # type: ignore[operator]
            await server.start()
            servers[name] = server
        yield servers, telemetries
    finally:
        for server in servers.values():
            await server.stop(grace=1.0)
        # Off the loop: the final export goes to the receiver, which serves on this loop.
        for telemetry in telemetries.values():
            await asyncio.to_thread(telemetry.shutdown)


async def test_one_document_is_one_trace_across_services_and_the_metrics_arrive(
    exporting_system: tuple[dict[str, GrpcServer], dict[str, Telemetry]],
    receiver: tuple[str, Received],
) -> None:
    servers, telemetries = exporting_system
    _, received = receiver
    namespace = f"otlp-{uuid.uuid4().hex[:8]}"
    addresses = {name: server.address for name, server in servers.items()}
    addresses["graph"] = addresses["query"]  # not started; connect() wants every name
    async with connect(addresses) as stubs:
        ingested = await stubs.ingest.IngestDocument(
            ingest_service_pb2.IngestDocumentRequest(
                namespace=namespace,
                content=b"Ravi Patel leads the billing migration.\n\n"
                b"The billing migration cutover is scheduled for 2026-06-08.\n",
                media_type="text/plain",
                title="Billing spec",
                source_modified_time=timestamp(datetime(2026, 3, 2, 10, tzinfo=UTC)),
            )
        )
        for _ in range(600):
            readiness = await stubs.ingest.GetReadiness(
                ingest_service_pb2.GetReadinessRequest(
                    namespace=namespace, version_ids=[ingested.version_id]
                )
            )
            if readiness.versions[0].ready:
                break
            await asyncio.sleep(0.1)
        assert readiness.versions[0].ready
        facts = await stubs.query.FactsContext(
            query_service_pb2.FactsContextRequest(namespace=namespace, query="billing", k=5)
        )
        assert facts.facts
        unknown = await stubs.query.FactsContext(
            query_service_pb2.FactsContextRequest(
                namespace=namespace, entity_ids=[str(uuid.uuid4())], k=5
            )
        )
        assert unknown.HasField("negative")
    for telemetry in telemetries.values():
        await asyncio.to_thread(telemetry.force_flush)

    [(ingest_service, root)] = [
        (service, span)
        for service, span in received.spans
        if span.name == "/rememberstack.v1.IngestService/IngestDocument"
        and span.kind == trace_pb2.Span.SPAN_KIND_SERVER
    ]
    assert ingest_service == "rememberstack-ingest"
    in_trace = list(received.trace(root.trace_id))
    by_name = {span.name: (service, span) for service, span in in_trace}
    for kind, service in (
        ("ingest.extract", "rememberstack-ingest"),
        ("ingest.embed", "rememberstack-ingest"),
        ("adjudicate.version", "rememberstack-adjudicator"),
    ):
        assert by_name[f"{kind} process"][0] == service, sorted(by_name)
    # The chain is unbroken: extract under the RPC, embed under extract, adjudicate under embed.
    span_ids = {span.span_id: span for _, span in in_trace}

    def ancestors(span: trace_pb2.Span) -> list[str]:
        chain = []
        while span.parent_span_id in span_ids:
            span = span_ids[span.parent_span_id]
            chain.append(span.name)
        return chain

    adjudicate = by_name["adjudicate.version process"][1]
    assert ancestors(adjudicate)[:2] == ["ingest.embed process", "ingest.extract process"]
    assert ancestors(adjudicate)[-1] == root.name
    # Database statements of both writing services, down to the fact writes, in that trace.
    statements = [
        (service, _attribute(span.attributes, "db.statement"))
        for service, span in in_trace
        if _attribute(span.attributes, "db.system") == "postgresql"
    ]
    assert any(s == "rememberstack-ingest" and "INSERT INTO claims" in q for s, q in statements)
    fact_writes = [q for s, q in statements if "INSERT INTO facts" in q]
    assert fact_writes and all(
        s == "rememberstack-adjudicator" for s, q in statements if "INSERT INTO facts" in q
    )
    # Background polls are not traced: every statement span belongs to some traced call.
    all_ids = {span.span_id for _, span in received.spans}
    orphans = [
        span.name
        for _, span in received.spans
        if _attribute(span.attributes, "db.system") and span.parent_span_id not in all_ids
    ]
    assert orphans == []

    for name, services in {
        "rpc.server.duration": {"rememberstack-ingest", "rememberstack-query"},
        "rememberstack.stage.duration": {"rememberstack-ingest", "rememberstack-adjudicator"},
        "rememberstack.work_item.duration": {"rememberstack-ingest", "rememberstack-adjudicator"},
        "rememberstack.claims.extracted": {"rememberstack-ingest"},
        "rememberstack.adjudication.decisions": {"rememberstack-adjudicator"},
        "rememberstack.entity.resolutions": {"rememberstack-adjudicator"},
        "rememberstack.queue.depth": {"rememberstack-ingest", "rememberstack-adjudicator"},
        "rememberstack.queue.age": {"rememberstack-ingest", "rememberstack-adjudicator"},
        "rememberstack.read.duration": {"rememberstack-query"},
        "rememberstack.read.negatives": {"rememberstack-query"},
        "rememberstack.health.serving": set(telemetries_names(telemetries)),
        "db.client.connection.count": set(telemetries_names(telemetries)),
    }.items():
        assert services <= received.metrics.get(name, set()), (name, received.metrics.get(name))


def telemetries_names(telemetries: dict[str, Telemetry]) -> list[str]:
    return [t.service_name for t in telemetries.values()]
