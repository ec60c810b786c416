"""Access log, read metrics, work-item spans and logs, and the OTEL_* settings."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind
from rememberstack.v1 import common_pb2, query_service_pb2
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.config import Settings, load_settings
from shared.db.engine import unit_of_work
from shared.db.models import WorkItem
from shared.db.queue import Worker, enqueue
from shared.errors import FieldViolation, InvalidArgument
from shared.grpc.channel import open_channel
from shared.grpc.observability import annotate_rpc, read_outcome
from shared.grpc.server import GrpcServer
from shared.logging import JsonFormatter
from shared.telemetry import ExportOptions, Telemetry, configure_telemetry
from shared.telemetry.metrics import Metrics
from shared.telemetry.propagation import TRACE_CONTEXT_KEY
from shared.telemetry.work import WorkObserver

Factory = async_sessionmaker[AsyncSession]
_BYTES: dict[str, Any] = {"request_serializer": lambda b: b, "response_deserializer": lambda b: b}


async def _ping(request: bytes, context: Any) -> bytes:
    annotate_rpc(principal="key:test-reader")
    return b"pong"


async def _refuse(request: bytes, context: Any) -> bytes:
    raise InvalidArgument([FieldViolation("k", "must be 1..30")])


def _register(server: grpc.aio.Server) -> None:
    handlers = {
        "Ping": grpc.unary_unary_rpc_method_handler(_ping),
        "Refuse": grpc.unary_unary_rpc_method_handler(_refuse),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("test.Obs", handlers),))


@pytest.fixture
async def traced_server() -> AsyncIterator[GrpcServer]:
    telemetry = configure_telemetry("test")
    server = GrpcServer(
        service_name="test", registrations=[_register], service_names=["test.Obs"],
        telemetry=telemetry,
    )  # fmt: skip
    await server.start()
    yield server
    await server.stop(0)
    telemetry.shutdown()


async def test_every_rpc_logs_one_line_with_method_status_duration_principal_and_trace_id(
    traced_server: GrpcServer,
) -> None:
    with _access_log() as lines:
        async with open_channel(traced_server.address) as channel:
            assert await channel.unary_unary("/test.Obs/Ping", **_BYTES)(b"x", timeout=5)
            with pytest.raises(grpc.aio.AioRpcError):
                await channel.unary_unary("/test.Obs/Refuse", **_BYTES)(b"x", timeout=5)
            await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    ok, refused = lines
    assert ok["rpc_method"] == "Ping" and ok["grpc_code"] == "OK" and ok["level"] == "INFO"
    assert ok["principal"] == "key:test-reader"
    assert ok["duration_ms"] >= 0 and len(ok["trace_id"]) == 32
    # A caller's mistake is one short line: its code and message, never a traceback.
    assert refused["grpc_code"] == "INVALID_ARGUMENT" and refused["level"] == "INFO"
    assert "exc_info" not in refused and refused["error"]
    # Health probes (every few seconds in Kubernetes) stay out of the INFO log.
    assert all(line["rpc_service"] != "grpc.health.v1.Health" for line in lines)


async def test_sample_ratio_zero_logs_only_failed_calls() -> None:
    server = GrpcServer(
        service_name="test", registrations=[_register], service_names=["test.Obs"],
        rpc_log_sample_ratio=0.0,
    )  # fmt: skip
    await server.start()
    try:
        with _access_log() as lines:
            async with open_channel(server.address) as channel:
                for _ in range(5):
                    await channel.unary_unary("/test.Obs/Ping", **_BYTES)(b"x", timeout=5)
                with pytest.raises(grpc.aio.AioRpcError):
                    await channel.unary_unary("/test.Obs/Refuse", **_BYTES)(b"x", timeout=5)
    finally:
        await server.stop(0)
    assert [line["rpc_method"] for line in lines] == ["Refuse"]


class _access_log:
    """Collect the access log's JSON lines inside a `with` block."""

    def __enter__(self) -> list[dict[str, Any]]:
        self._stream = io.StringIO()
        self._handler = logging.StreamHandler(self._stream)
        self._handler.setFormatter(JsonFormatter("test"))
        self._logger = logging.getLogger("rememberstack.rpc")
        self._previous = self._logger.level
        self._logger.addHandler(self._handler)
        self._logger.setLevel(logging.INFO)
        self.lines: list[dict[str, Any]] = []
        return self.lines

    def __exit__(self, *exc: object) -> None:
        self._logger.removeHandler(self._handler)
        self._logger.setLevel(self._previous)
        self.lines.extend(json.loads(line) for line in self._stream.getvalue().splitlines())


def test_read_outcome_names_the_negative_kind_and_every_truncation_reason() -> None:
    negative = query_service_pb2.FactsContextResponse(
        negative=common_pb2.Negative(kind=common_pb2.NEGATIVE_KIND_UNKNOWN_ENTITY)
    )
    assert read_outcome(negative) == ("unknown_entity", [])
    reasons = list(common_pb2.TruncationReason.values())[1:3]
    truncated = query_service_pb2.FactsContextResponse(
        truncation=common_pb2.Truncation(
            truncated=True, reason=reasons[0], additional_reasons=reasons[1:]
        )
    )
    names = read_outcome(truncated)[1]
    assert len(names) == 2 and all(n and not n.startswith("truncation_reason") for n in names)
    assert read_outcome(query_service_pb2.FactsContextResponse()) == (None, [])


async def _enqueue_traced(
    factory: Factory, telemetry: Telemetry, namespace: str, kind: str
) -> tuple[uuid.UUID, int, int]:
    with telemetry.tracer.start_as_current_span("IngestDocument") as span:
        async with unit_of_work(factory) as session:
            item_id = await enqueue(session, namespace, kind, {"version_id": "v"})
    assert item_id is not None
    context = span.get_span_context()
    return item_id, context.trace_id, context.span_id


def _in_memory(service: str) -> tuple[Telemetry, InMemorySpanExporter, InMemoryMetricReader]:
    telemetry = configure_telemetry(service)
    spans = InMemorySpanExporter()
    telemetry.tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    telemetry = Telemetry(
        service_name=service,
        tracer_provider=telemetry.tracer_provider,
        meter_provider=MeterProvider(metric_readers=[reader]),
        tracer=telemetry.tracer,
        meter=telemetry.meter,
        exporting=False,
    )
    return telemetry, spans, reader


async def test_worker_continues_the_enqueuers_trace_and_logs_one_line_per_attempt(
    session_factory: Factory, namespace: str, caplog: pytest.LogCaptureFixture
) -> None:
    telemetry, spans, reader = _in_memory("worker-test")
    metrics = Metrics.create(telemetry.meter_provider.get_meter("test"))
    kind = f"traced-{namespace}"
    item_id, trace_id, parent_span_id = await _enqueue_traced(
        session_factory, telemetry, namespace, kind
    )
    async with session_factory() as session:
        stored = await session.get(WorkItem, item_id)
    assert stored is not None and "traceparent" in stored.payload[TRACE_CONTEXT_KEY]
    done = []

    async def handler(session: AsyncSession, item: WorkItem) -> None:
        done.append(item.id)

    worker = Worker(
        session_factory, [kind], handler, "w-traced", poll_seconds=0.1,
        observer=WorkObserver(telemetry.tracer, metrics),
    )  # fmt: skip
    caplog.set_level(logging.INFO, logger="rememberstack.work")
    await worker.start()
    try:
        await _until(lambda: bool(done))
        await _until(lambda: any(s.name == f"{kind} process" for s in spans.get_finished_spans()))
    finally:
        await worker.stop()
    [process] = [s for s in spans.get_finished_spans() if s.name == f"{kind} process"]
    assert process.kind == SpanKind.CONSUMER
    assert process.context is not None and process.context.trace_id == trace_id
    assert process.parent is not None and process.parent.span_id == parent_span_id
    [line] = [r for r in caplog.records if r.name == "rememberstack.work"]
    assert (line.kind, line.outcome, line.attempt) == (kind, "succeeded", 1)  # type: ignore[attr-defined]
    data = reader.get_metrics_data()
    assert data is not None
    names = {m.name for rm in data.resource_metrics for sm in rm.scope_metrics for m in sm.metrics}
    assert "rememberstack.work_item.duration" in names


async def test_a_failing_item_logs_its_traceback_once_when_it_dead_letters(
    session_factory: Factory, namespace: str, caplog: pytest.LogCaptureFixture
) -> None:
    kind = f"bad-input-{namespace}"
    async with unit_of_work(session_factory) as session:
        retried = await enqueue(session, namespace, kind, {"n": 1}, dedupe_key="retried")
        final = await enqueue(session, namespace, kind, {"n": 2}, dedupe_key="final")
        await session.execute(update(WorkItem).where(WorkItem.id == final).values(max_attempts=1))

    async def handler(session: AsyncSession, item: WorkItem) -> None:
        raise ValueError("malformed document")

    caplog.set_level(logging.INFO)
    worker = Worker(session_factory, [kind], handler, "w-bad", poll_seconds=0.1)
    await worker.start()
    try:
        await _until(
            lambda: (
                {getattr(r, "work_item_id", None) for r in caplog.records}
                >= {str(retried), str(final)}
            )
        )
    finally:
        await worker.stop()
    lines = {r.work_item_id: r for r in caplog.records if r.name == "rememberstack.work"}  # type: ignore[attr-defined]
    assert lines[str(retried)].outcome == "failed" and lines[str(retried)].exc_info is None  # type: ignore[attr-defined]
    assert lines[str(final)].outcome == "dead_letter" and lines[str(final)].exc_info  # type: ignore[attr-defined]
    assert lines[str(final)].error == "ValueError: malformed document"  # type: ignore[attr-defined]
    assert sum(1 for r in caplog.records if r.exc_info) == 1


async def _until(condition: Any, seconds: float = 10.0) -> None:
    async with asyncio.timeout(seconds):
        while not condition():  # noqa: ASYNC110 - the condition is another task's side effect
            await asyncio.sleep(0.05)


def test_standard_otel_variables_are_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://collector:4317")
    monkeypatch.setenv("OTEL_METRICS_EXPORTER", "none")
    monkeypatch.setenv("OTEL_SERVICE_NAME", "memory-query")
    settings = Settings()
    options = ExportOptions.from_settings(settings)
    assert options.standard_traces_endpoint and not options.standard_metrics_endpoint
    assert options.metrics_exporter == "none" and settings.otel_service_name == "memory-query"
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    assert ExportOptions.from_settings(Settings()).disabled


def test_our_endpoint_alias_exports_both_signals_and_sdk_disabled_wins() -> None:
    on = configure_telemetry("t", options=ExportOptions(otlp_endpoint="127.0.0.1:9"))
    off = configure_telemetry(
        "t", options=ExportOptions(otlp_endpoint="127.0.0.1:9", disabled=True)
    )
    try:
        assert on.traces_exported and on.metrics_exported
        assert not off.exporting and off.database_tracer_provider is None
    finally:
        on.shutdown()
        off.shutdown()


def test_log_levels_setting_parses_pairs_and_refuses_unknown_levels() -> None:
    settings = load_settings(log_levels="rememberstack.rpc=warning, sqlalchemy=ERROR")
    assert settings.log_levels == {"rememberstack.rpc": "WARNING", "sqlalchemy": "ERROR"}
    with pytest.raises(ValueError, match="log_levels"):
        load_settings(log_levels="rememberstack.rpc=LOUD")
