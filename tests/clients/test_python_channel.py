"""rememberstack-client channels against a small flaky server: retries, deadlines, auth, errors."""

from __future__ import annotations

import asyncio
import tomllib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from rememberstack.v1 import query_service_pb2
from rememberstack_client import (
    AsyncClient,
    Client,
    Endpoints,
    InvalidArgumentError,
    ResourceExhaustedError,
    UnavailableError,
)

from shared.errors import FieldViolation, InvalidArgument
from shared.grpc.errors import status_for_exception

ROOT = Path(__file__).resolve().parents[2]
RESOLVE = "/rememberstack.v1.QueryService/ResolveEntity"


class FlakyQuery:
    """ResolveEntity answers UNAVAILABLE ``failures`` times, then echoes what the call carried."""

    def __init__(self) -> None:
        self.failures = 0
        self.calls: list[tuple[str, float | None]] = []

    async def resolve(self, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        auth = dict(context.invocation_metadata() or ()).get("authorization", "")
        self.calls.append((str(auth), context.time_remaining()))
        if request.name == "bad":
            error = InvalidArgument([FieldViolation("name", "is bad"), FieldViolation("k", "no")])
            wire = rpc_status.to_status(status_for_exception(error))
            await context.abort(wire.code, wire.details, wire.trailing_metadata)
        if request.name == "busy":
            status = status_for_exception(InvalidArgument([]))
            status.code = grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
            status.details[0].Pack(error_details_pb2.ErrorInfo(reason="RESOURCE_EXHAUSTED"))
            retry = error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=2))
            status.details.add().Pack(retry)
            wire = rpc_status.to_status(status)
            await context.abort(wire.code, wire.details, wire.trailing_metadata)
        if self.failures:
            self.failures -= 1
            await context.abort(grpc.StatusCode.UNAVAILABLE, "warming up")
        return query_service_pb2.ResolveEntityResponse()


@pytest.fixture
async def flaky() -> AsyncIterator[tuple[FlakyQuery, str]]:
    fake = FlakyQuery()
    server = grpc.aio.server()
    handler = grpc.unary_unary_rpc_method_handler(
        fake.resolve,
        request_deserializer=query_service_pb2.ResolveEntityRequest.FromString,
        response_serializer=query_service_pb2.ResolveEntityResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                "rememberstack.v1.QueryService", {"ResolveEntity": handler}
            ),
        )
    )
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield fake, f"127.0.0.1:{port}"
    finally:
        await server.stop(None)


def test_client_package_depends_on_grpcio_protobuf_and_common_protos_only() -> None:
    project = tomllib.loads((ROOT / "clients/python/pyproject.toml").read_text())["project"]
    names = {d.split(">")[0].split("=")[0].split("<")[0].strip() for d in project["dependencies"]}
    assert names == {"grpcio", "protobuf", "googleapis-common-protos"}


async def test_unavailable_is_retried_per_service_config_with_auth_and_default_deadline(
    flaky: tuple[FlakyQuery, str],
) -> None:
    fake, address = flaky
    fake.failures = 2
    async with AsyncClient(Endpoints.single(address), bearer_token="k3y", timeout=7.0) as client:
        await client.query.ResolveEntity(query_service_pb2.ResolveEntityRequest(name="x"))
    assert len(fake.calls) == 3
    assert {auth for auth, _ in fake.calls} == {"Bearer k3y"}
    remaining = fake.calls[0][1]
    # The grpc-timeout header carries the deadline in coarse units rounded up, and the server
    # measures it on its own clock, so the server can see a hair more than the 7 s asked for.
    assert remaining is not None and 5.0 < remaining <= 7.0 + 0.1


async def test_retries_give_up_after_four_attempts_with_a_typed_unavailable(
    flaky: tuple[FlakyQuery, str],
) -> None:
    fake, address = flaky
    fake.failures = 10
    async with AsyncClient(Endpoints.single(address)) as client:
        with pytest.raises(UnavailableError) as raised:
            await client.query.ResolveEntity(query_service_pb2.ResolveEntityRequest(name="x"))
    assert len(fake.calls) == 4
    assert isinstance(raised.value, grpc.aio.AioRpcError)
    assert raised.value.code() == grpc.StatusCode.UNAVAILABLE


async def test_invalid_argument_is_decoded_into_reason_and_field_violations(
    flaky: tuple[FlakyQuery, str],
) -> None:
    _, address = flaky
    async with AsyncClient(Endpoints.single(address)) as client:
        with pytest.raises(InvalidArgumentError) as raised:
            await client.query.ResolveEntity(query_service_pb2.ResolveEntityRequest(name="bad"))
    error = raised.value
    assert (error.reason, error.domain) == ("INVALID_ARGUMENT", "rememberstack")
    assert [(v.field, v.description) for v in error.field_violations] == [
        ("name", "is bad"),
        ("k", "no"),
    ]


async def test_sync_client_decodes_retry_info_and_sends_no_auth_without_a_token(
    flaky: tuple[FlakyQuery, str],
) -> None:
    fake, address = flaky

    def call() -> None:  # blocking, so off the loop that serves the fake
        with Client(Endpoints.single(address)) as client:
            client.query.ResolveEntity(query_service_pb2.ResolveEntityRequest(name="busy"))

    with pytest.raises(ResourceExhaustedError) as raised:
        await asyncio.to_thread(call)
    assert raised.value.retry_delay_seconds == 2.0
    assert raised.value.reason == "RESOURCE_EXHAUSTED"
    assert fake.calls[0][0] == ""
