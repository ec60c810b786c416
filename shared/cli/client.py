"""Connections from the CLI to a running system: addresses from settings or `rememberstack up`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc
from opentelemetry.instrumentation.grpc import aio_client_interceptors
from rememberstack.v1 import (
    adjudicator_service_pb2_grpc,
    graph_service_pb2_grpc,
    ingest_service_pb2_grpc,
    query_service_pb2_grpc,
)
from rememberstack_client import AsyncClient, Endpoints

from shared.cli.launcher import load_endpoints
from shared.config import Settings
from shared.grpc.channel import ClientSecurity
from shared.grpc.services import SERVICE_NAMES

__all__ = ["Stubs", "connect", "resolve_addresses"]

_DEFAULT_PORTS = {name: 50051 + i for i, name in enumerate(SERVICE_NAMES)}


def resolve_addresses(settings: Settings) -> dict[str, str]:
    """Explicit REMEMBERSTACK_<SERVICE>_ADDRESS wins, then a local `up`, then default ports."""
    started = load_endpoints(Path(settings.data_dir))
    addresses: dict[str, str] = {}
    for name in SERVICE_NAMES:
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
    addresses: dict[str, str],
    security: ClientSecurity | None = None,
    *,
    bearer_token: str | None = None,
) -> AsyncIterator[Stubs]:
    """Open the rememberstack-client channels (traced, retried, typed errors; TLS and a bearer
    credential with ``security``); close on exit.

    No default deadline: CLI commands such as a large ingest may legitimately run long.
    """
    tls = security.tls if security else None
    options = (
        [("grpc.ssl_target_name_override", tls.server_name)] if tls and tls.server_name else []
    )
    client = AsyncClient(
        Endpoints(**{name: addresses[name] for name in SERVICE_NAMES}),
        credentials=tls.credentials() if tls else None,
        bearer_token=(security.token if security else None) or bearer_token,
        timeout=None,
        interceptors=aio_client_interceptors(),  # type: ignore[no-untyped-call]
        options=options,
    )
    try:
        yield Stubs(
            ingest=client.ingest,
            adjudicator=client.adjudicator,
            query=client.query,
            graph=client.graph,
            channels=client.channels,
        )
    finally:
        await client.close()
