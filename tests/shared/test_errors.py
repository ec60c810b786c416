"""Domain errors reach clients as rich gRPC statuses, across all four RPC shapes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio
import pytest
from sqlalchemy import exc as sa_exc

from shared.errors import (
    FieldViolation,
    InvalidArgument,
    NotFound,
    ResourceExhausted,
    Unavailable,
    Unimplemented,
    Violations,
)
from shared.grpc.channel import open_channel
from shared.grpc.errors import (
    MAX_VIOLATIONS,
    parse_rich_error,
    retry_delay_seconds,
    status_for_exception,
)
from shared.grpc.server import GrpcServer

SERVICE = "test.Probe"


def _identity(payload: bytes) -> bytes:
    return payload


# Raw bytes on the wire, so the probe service needs no protos.
_BYTES: dict[str, Any] = {"request_serializer": _identity, "response_deserializer": _identity}


def _raise_for(request: bytes) -> None:
    """Each request names the failure the test wants the handler to raise."""
    if request == b"invalid":
        violations = Violations()
        violations.add("query", "must not be empty")
        violations.add("limit", "must be between 1 and 100")
        violations.raise_if_any(reason="BAD_QUERY")
    if request == b"not-found":
        raise NotFound(
            "entity 'e-42' not found", reason="ENTITY_NOT_FOUND", metadata={"id": "e-42"}
        )
    if request == b"unimplemented":
        raise Unimplemented("graph.Explain")
    if request == b"unavailable":
        raise Unavailable("model server down", reason="MODEL_UNAVAILABLE")
    if request == b"db-down":
        raise sa_exc.OperationalError("SELECT 1", {}, ConnectionRefusedError(111, "refused"))
    if request == b"huge":
        raise InvalidArgument(
            [FieldViolation(f"items[{i}]" + "é" * 500, "bad: " + "ü" * 10_000) for i in range(500)]
        )
    if request == b"throttled":
        raise ResourceExhausted("admission limit", retry_after_seconds=1.5)
    if request == b"bug":
        raise RuntimeError("password=hunter2 leaked from postgresql://db:5432")


async def _unary(request: bytes, context: Any) -> bytes:
    _raise_for(request)
    return b"ok:" + request


async def _server_stream(request: bytes, context: Any) -> AsyncIterator[bytes]:
    yield b"first"
    _raise_for(request)
    yield b"last"


async def _client_stream(requests: AsyncIterator[bytes], context: Any) -> bytes:
    received = [request async for request in requests]
    for request in received:
        _raise_for(request)
    return b"count:%d" % len(received)


async def _bidi(requests: AsyncIterator[bytes], context: Any) -> AsyncIterator[bytes]:
    async for request in requests:
        _raise_for(request)
        yield b"echo:" + request


def _register_probe(server: grpc.aio.Server) -> None:
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {
        "Unary": grpc.unary_unary_rpc_method_handler(_unary),
        "ServerStream": grpc.unary_stream_rpc_method_handler(_server_stream),
        "ClientStream": grpc.stream_unary_rpc_method_handler(_client_stream),
        "Bidi": grpc.stream_stream_rpc_method_handler(_bidi),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))


@pytest.fixture
async def channel() -> AsyncIterator[grpc.aio.Channel]:
    server = GrpcServer(
        service_name="probe", registrations=[_register_probe], service_names=[SERVICE]
    )
    await server.start()
    async with open_channel(server.address) as chan:
        yield chan
    await server.stop(0)


async def _call_unary(channel: grpc.aio.Channel, request: bytes) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await channel.unary_unary(f"/{SERVICE}/Unary", **_BYTES)(request)
    return caught.value


def test_violations_collects_every_field_before_raising() -> None:
    violations = Violations()
    violations.add("a", "bad a")
    violations.add("b.c", "bad c")
    with pytest.raises(InvalidArgument) as caught:
        violations.raise_if_any()
    assert caught.value.violations == (FieldViolation("a", "bad a"), FieldViolation("b.c", "bad c"))
    assert "a: bad a" in str(caught.value) and "b.c: bad c" in str(caught.value)


def test_violations_without_entries_does_not_raise() -> None:
    Violations().raise_if_any()


async def test_successful_unary_call_passes_through_interceptors(
    channel: grpc.aio.Channel,
) -> None:
    assert await channel.unary_unary(f"/{SERVICE}/Unary", **_BYTES)(b"fine") == b"ok:fine"


async def test_invalid_argument_returns_bad_request_with_every_field(
    channel: grpc.aio.Channel,
) -> None:
    error = await _call_unary(channel, b"invalid")
    code, reason, violations = parse_rich_error(error)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert reason == "BAD_QUERY"
    assert [v.field for v in violations] == ["query", "limit"]
    assert violations[1].description == "must be between 1 and 100"
    assert "query" in (error.details() or "") and "limit" in (error.details() or "")


async def test_not_found_returns_not_found_with_reason(channel: grpc.aio.Channel) -> None:
    error = await _call_unary(channel, b"not-found")
    assert parse_rich_error(error) == (grpc.StatusCode.NOT_FOUND, "ENTITY_NOT_FOUND", ())
    assert error.details() == "entity 'e-42' not found"


async def test_unimplemented_returns_unimplemented_naming_what_is_missing(
    channel: grpc.aio.Channel,
) -> None:
    error = await _call_unary(channel, b"unimplemented")
    assert parse_rich_error(error).code == grpc.StatusCode.UNIMPLEMENTED
    assert "graph.Explain" in (error.details() or "")


async def test_database_connection_failure_returns_unavailable_without_details(
    channel: grpc.aio.Channel,
) -> None:
    error = await _call_unary(channel, b"db-down")
    code, reason, _ = parse_rich_error(error)
    assert (code, reason) == (grpc.StatusCode.UNAVAILABLE, "UNAVAILABLE")
    assert "SELECT" not in (error.details() or "")


async def test_unexpected_exception_returns_internal_without_internals(
    channel: grpc.aio.Channel,
) -> None:
    error = await _call_unary(channel, b"bug")
    code, reason, _ = parse_rich_error(error)
    assert (code, reason) == (grpc.StatusCode.INTERNAL, "INTERNAL")
    details = error.details() or ""
    assert "hunter2" not in details and "postgresql" not in details
    assert "RuntimeError" not in details and "incident" in details


async def test_server_stream_error_after_first_message_still_maps_code(
    channel: grpc.aio.Channel,
) -> None:
    call = channel.unary_stream(f"/{SERVICE}/ServerStream", **_BYTES)(b"not-found")
    received: list[bytes] = []
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        async for message in call:
            received.append(message)
    assert received == [b"first"]
    assert parse_rich_error(caught.value).reason == "ENTITY_NOT_FOUND"


async def test_client_stream_invalid_argument_maps_to_invalid_argument(
    channel: grpc.aio.Channel,
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await channel.stream_unary(f"/{SERVICE}/ClientStream", **_BYTES)(
            iter([b"fine", b"invalid"])
        )
    assert parse_rich_error(caught.value).code == grpc.StatusCode.INVALID_ARGUMENT


async def test_bidi_stream_unavailable_maps_to_unavailable_after_echoes(
    channel: grpc.aio.Channel,
) -> None:
    call = channel.stream_stream(f"/{SERVICE}/Bidi", **_BYTES)(iter([b"one", b"unavailable"]))
    received: list[bytes] = []
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        async for message in call:
            received.append(message)
    assert received == [b"echo:one"]
    code, reason, _ = parse_rich_error(caught.value)
    assert (code, reason) == (grpc.StatusCode.UNAVAILABLE, "MODEL_UNAVAILABLE")


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (ConnectionResetError(104, "reset"), grpc.StatusCode.UNAVAILABLE),
        (
            sa_exc.DBAPIError("SELECT 1", {}, Exception("gone"), connection_invalidated=True),
            grpc.StatusCode.UNAVAILABLE,
        ),
        (FileNotFoundError("/models/x.onnx"), grpc.StatusCode.INTERNAL),
        (sa_exc.IntegrityError("INSERT", {}, Exception("dup")), grpc.StatusCode.INTERNAL),
    ],
)
def test_status_for_exception_separates_unreachable_dependencies_from_bugs(
    exc: Exception, code: grpc.StatusCode
) -> None:
    assert status_for_exception(exc).code == code.value[0]


async def test_huge_violations_are_capped_so_the_client_still_sees_invalid_argument(
    channel: grpc.aio.Channel,
) -> None:
    # Uncapped, these trailers would exceed a default client's 16 KiB and arrive as
    # RESOURCE_EXHAUSTED instead of the real status.
    error = await _call_unary(channel, b"huge")
    code, _, violations = parse_rich_error(error)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert len(violations) == MAX_VIOLATIONS
    assert all(len(v.description.encode()) <= 160 for v in violations)
    trailers = sum(len(k) + len(v) for k, v in error.trailing_metadata() or ())
    assert trailers < 12 * 1024


async def test_admission_refusal_carries_retry_info(channel: grpc.aio.Channel) -> None:
    error = await _call_unary(channel, b"throttled")
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert retry_delay_seconds(error) == 1.5
