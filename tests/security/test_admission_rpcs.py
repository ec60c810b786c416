"""Admission limits over the wire: RESOURCE_EXHAUSTED with RetryInfo, per credential."""

from __future__ import annotations

from typing import Any

import grpc
import grpc.aio

from shared.auth.admission import AdmissionController, Limits
from shared.grpc.channel import open_channel
from shared.grpc.errors import parse_rich_error, retry_delay_seconds
from shared.grpc.security import ServerSecurity
from shared.grpc.server import GrpcServer

SERVICE = "test.Limited"


def _identity(payload: bytes) -> bytes:
    return payload


async def _echo(request: bytes, context: Any) -> bytes:
    return request


def _register(server: grpc.aio.Server) -> None:
    handlers = {"Echo": grpc.unary_unary_rpc_method_handler(_echo)}
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))


async def test_calls_past_the_rate_limit_are_resource_exhausted_with_retry_info():
    security = ServerSecurity.open()
    # An RPC missing from the policy table counts as a write (and needs admin).
    security.admission = AdmissionController(
        read=Limits(0, 0, 0), write=Limits(rps=1.0, burst=2, in_flight=0), watch_streams=0
    )
    server = GrpcServer(
        service_name="limited", registrations=[_register], service_names=[], security=security
    )
    await server.start()
    try:
        async with open_channel(server.address) as channel:
            echo = channel.unary_unary(
                f"/{SERVICE}/Echo", request_serializer=_identity, response_deserializer=_identity
            )
            assert [await echo(b"1"), await echo(b"2")] == [b"1", b"2"]
            try:
                await echo(b"3")
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert parse_rich_error(error).reason == "RESOURCE_EXHAUSTED"
                delay = retry_delay_seconds(error)
                assert delay is not None and 0 < delay <= 1.0
            else:
                raise AssertionError("the third call should have been refused")
    finally:
        await server.stop(0)
