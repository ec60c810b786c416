"""GrpcServer on port 0 with real channels: health, reflection, binding and graceful stop."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio
import pytest
from google.protobuf import descriptor_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from shared.config import load_settings
from shared.grpc.channel import open_channel
from shared.grpc.server import GrpcServer
from shared.telemetry import configure_telemetry

NAMES = ("test.Alpha", "test.Beta")
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def _identity(payload: bytes) -> bytes:
    return payload


_BYTES: dict[str, Any] = {"request_serializer": _identity, "response_deserializer": _identity}


async def _ping(request: bytes, context: Any) -> bytes:
    return b"pong:" + request


def _register(server: grpc.aio.Server) -> None:
    for name in NAMES:
        handler: grpc.RpcMethodHandler[Any, Any] = grpc.unary_unary_rpc_method_handler(_ping)
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(name, {"Ping": handler}),)
        )


def _server(**kwargs: Any) -> GrpcServer:
    return GrpcServer(service_name="test", registrations=[_register], service_names=NAMES, **kwargs)


@pytest.fixture
async def server() -> AsyncIterator[GrpcServer]:
    srv = _server()
    await srv.start()
    yield srv
    await srv.stop(0)


async def _check(channel: grpc.aio.Channel, service: str) -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    response = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
    return int(response.status)


async def test_started_server_binds_a_real_port_and_answers_calls(server: GrpcServer) -> None:
    assert server.port > 0
    async with open_channel(server.address) as channel:
        assert await channel.unary_unary("/test.Beta/Ping", **_BYTES)(b"x", timeout=5) == b"pong:x"


async def test_health_reports_serving_for_server_and_each_service(server: GrpcServer) -> None:
    async with open_channel(server.address) as channel:
        for name in ("", *NAMES):
            assert await _check(channel, name) == SERVING


async def test_health_for_unregistered_service_returns_not_found(server: GrpcServer) -> None:
    async with open_channel(server.address) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await _check(channel, "test.Gamma")
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


async def test_reflection_lists_registered_health_and_reflection_services(
    server: GrpcServer,
) -> None:
    async with open_channel(server.address) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        responses = [r async for r in stub.ServerReflectionInfo(iter([request]), timeout=5)]
    listed = {s.name for s in responses[0].list_services_response.service}
    assert listed == {
        *NAMES,
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
        "grpc.reflection.v1.ServerReflection",
    }


async def test_reflection_v1_lists_services_and_describes_itself_and_health(
    server: GrpcServer,
) -> None:
    # Current grpcurl and most tools speak v1; its messages are v1alpha's field for field.
    requests = [
        reflection_pb2.ServerReflectionRequest(list_services=""),
        reflection_pb2.ServerReflectionRequest(
            file_containing_symbol="grpc.reflection.v1.ServerReflection"
        ),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="grpc.health.v1.Health"),
    ]
    async with open_channel(server.address) as channel:
        info = channel.stream_stream(
            "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
            request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
        )
        responses = [r async for r in info(iter(requests), timeout=5)]
    listed = {s.name for s in responses[0].list_services_response.service}
    assert {"grpc.reflection.v1.ServerReflection", "grpc.health.v1.Health"} <= listed
    described = []
    for response in responses[1:]:
        file = descriptor_pb2.FileDescriptorProto.FromString(
            response.file_descriptor_response.file_descriptor_proto[0]
        )
        described.append((file.package, [s.name for s in file.service]))
    assert described == [
        ("grpc.reflection.v1", ["ServerReflection"]),
        ("grpc.health.v1", ["Health"]),
    ]


async def test_port_before_start_raises() -> None:
    with pytest.raises(RuntimeError):
        _ = _server().port


async def test_binding_a_port_already_in_use_fails(server: GrpcServer) -> None:
    with pytest.raises(OSError):
        await _server(port=server.port).start()


async def test_stop_flips_health_to_not_serving_and_runs_on_stop_callbacks() -> None:
    stopped: list[str] = []

    async def dispose_engine() -> None:
        stopped.append("engine")

    srv = _server(on_stop=[dispose_engine])
    await srv.start()
    async with open_channel(srv.address) as channel:
        watch = health_pb2_grpc.HealthStub(channel).Watch(
            health_pb2.HealthCheckRequest(service=NAMES[0]), timeout=10
        )
        assert (await watch.read()).status == SERVING
        stopping = asyncio.create_task(srv.stop(grace=5))
        assert (await watch.read()).status == NOT_SERVING
        watch.cancel()
        await stopping
    assert stopped == ["engine"]
    assert not srv.is_serving


async def test_server_from_settings_traces_calls_across_client_and_server() -> None:
    settings = load_settings(service_name="query", host="127.0.0.1", port=0)
    telemetry = configure_telemetry(settings.service_name, settings.otlp_endpoint)
    spans = InMemorySpanExporter()
    telemetry.tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    srv = GrpcServer.from_settings(
        settings, registrations=[_register], service_names=NAMES, telemetry=telemetry
    )
    await srv.start()
    try:
        async with open_channel(srv.address, tracer_provider=telemetry.tracer_provider) as chan:
            assert (
                await chan.unary_unary("/test.Alpha/Ping", **_BYTES)(b"t", timeout=5) == b"pong:t"
            )
    finally:
        await srv.stop(0)
        telemetry.shutdown()
    assert srv.address.startswith("127.0.0.1:")
    by_kind = {span.kind: span for span in spans.get_finished_spans()}
    server_span, client_span = by_kind[SpanKind.SERVER], by_kind[SpanKind.CLIENT]
    assert server_span.name == client_span.name == "/test.Alpha/Ping"
    assert server_span.context is not None and client_span.context is not None
    assert server_span.context.trace_id == client_span.context.trace_id


async def test_serve_until_signal_stops_gracefully_on_sigterm() -> None:
    stopped = asyncio.Event()

    async def on_stop() -> None:
        stopped.set()

    srv = _server(on_stop=[on_stop])
    serving = asyncio.create_task(srv.serve_until_signal(grace=1))
    for _ in range(500):
        if srv.is_serving or serving.done():
            break
        await asyncio.sleep(0.01)
    assert srv.is_serving
    os.kill(os.getpid(), signal.SIGTERM)
    await asyncio.wait_for(serving, timeout=10)
    assert stopped.is_set()
    assert not srv.is_serving
