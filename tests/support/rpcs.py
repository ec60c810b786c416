"""Every RPC of the four services, callable generically over a channel (tests and fuzzing)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc
import grpc.aio
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from rememberstack.v1 import (
    adjudicator_service_pb2,
    graph_service_pb2,
    ingest_service_pb2,
    query_service_pb2,
)

SERVICE_OF = {
    "rememberstack.v1.IngestService": "ingest",
    "rememberstack.v1.AdjudicatorService": "adjudicator",
    "rememberstack.v1.QueryService": "query",
    "rememberstack.v1.GraphService": "graph",
}


@dataclass(frozen=True)
class Rpc:
    service: str  # ingest | adjudicator | query | graph
    method: str  # /rememberstack.v1.X/Y
    name: str
    request_type: type[Message]
    response_type: type[Message]
    client_streaming: bool
    server_streaming: bool


def _all() -> list[Rpc]:
    rpcs = []
    for module in (
        ingest_service_pb2,
        adjudicator_service_pb2,
        query_service_pb2,
        graph_service_pb2,
    ):
        for service in module.DESCRIPTOR.services_by_name.values():
            for method in service.methods:
                rpcs.append(
                    Rpc(
                        SERVICE_OF[service.full_name],
                        f"/{service.full_name}/{method.name}",
                        method.name,
                        GetMessageClass(method.input_type),
                        GetMessageClass(method.output_type),
                        method.client_streaming,
                        method.server_streaming,
                    )
                )
    return rpcs


ALL_RPCS: list[Rpc] = _all()


async def invoke(
    channel: grpc.aio.Channel,
    rpc: Rpc,
    requests: Sequence[Message],
    *,
    token: str | None = None,
    deadline_seconds: float = 30.0,
) -> tuple[grpc.StatusCode, list[Any] | Any | None, grpc.aio.AioRpcError | None]:
    """Call ``rpc`` with ``requests`` (one for unary requests); (code, responses, error).

    A server stream is read to its end, or for at most its first response when it would
    wait for work (WatchReadiness on an unsettled version): the code is then OK.
    """
    metadata = (("authorization", f"Bearer {token}"),) if token else None
    serialize, parse = rpc.request_type.SerializeToString, rpc.response_type.FromString
    try:
        if rpc.client_streaming:
            call = channel.stream_unary(rpc.method, serialize, parse)
            result = await call(iter(requests), metadata=metadata, timeout=deadline_seconds)
            return grpc.StatusCode.OK, result, None
        if rpc.server_streaming:
            stream = channel.unary_stream(rpc.method, serialize, parse)(
                requests[0], metadata=metadata, timeout=deadline_seconds
            )
            first = await stream.read()
            responses = [] if first is grpc.aio.EOF else [first]
            stream.cancel()
            return grpc.StatusCode.OK, responses, None
        call = channel.unary_unary(rpc.method, serialize, parse)
        result = await call(requests[0], metadata=metadata, timeout=deadline_seconds)
        return grpc.StatusCode.OK, result, None
    except grpc.aio.AioRpcError as error:
        return error.code(), None, error
