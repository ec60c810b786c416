"""Connections from the CLI to a running system: addresses from settings or `rememberstack up`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc
from rememberstack.v1 import (
    adjudicator_service_pb2_grpc,
    graph_service_pb2_grpc,
    ingest_service_pb2_grpc,
    query_service_pb2_grpc,
)

from shared.cli.launcher import SERVICES, load_endpoints
from shared.config import Settings
from shared.grpc.channel import ClientSecurity, open_channel

__all__ = ["Stubs", "connect", "resolve_addresses"]

_DEFAULT_PORTS = {name: 50051 + i for i, name in enumerate(SERVICES)}


def resolve_addresses(settings: Settings) -> dict[str, str]:
    """Explicit REMEMBERSTACK_<SERVICE>_ADDRESS wins, then a local `up`, then default ports."""
    started = load_endpoints(Path(settings.data_dir))
    addresses: dict[str, str] = {}
    for name in SERVICES:
        explicit = getattr(settings, f"{name}_address")
        if explicit:
            addresses[name] = explicit
        elif started is not None:
            addresses[name] = started.address(name)
        else:
            addresses[name] = f"{settings.host}:{_DEFAULT_PORTS[name]}"
    return addresses


@dataclass(frozen=True)
class Stubs:
    """One stub per service over open channels."""

    ingest: ingest_service_pb2_grpc.IngestServiceAsyncStub
    adjudicator: adjudicator_service_pb2_grpc.AdjudicatorServiceAsyncStub
    query: query_service_pb2_grpc.QueryServiceAsyncStub
    graph: graph_service_pb2_grpc.GraphServiceAsyncStub
    channels: dict[str, grpc.aio.Channel]


@asynccontextmanager
async def connect(
    addresses: dict[str, str], security: ClientSecurity | None = None
) -> AsyncIterator[Stubs]:
    """Open a channel per service (TLS and a bearer credential with ``security``) and close
    them all on exit."""
    channels = {name: open_channel(addresses[name], security=security) for name in SERVICES}
    try:
        yield Stubs(
            ingest=ingest_service_pb2_grpc.IngestServiceStub(channels["ingest"]),
            adjudicator=adjudicator_service_pb2_grpc.AdjudicatorServiceStub(
                channels["adjudicator"]
            ),
            query=query_service_pb2_grpc.QueryServiceStub(channels["query"]),
            graph=graph_service_pb2_grpc.GraphServiceStub(channels["graph"]),
            channels=channels,
        )
    finally:
        for channel in channels.values():
            await channel.close()
