"""One typed client over the four RememberStack services, asyncio or blocking."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import grpc
import grpc.aio
from rememberstack.v1 import (
    adjudicator_service_pb2_grpc,
    document_pb2,
    graph_service_pb2_grpc,
    ingest_service_pb2,
    ingest_service_pb2_grpc,
    query_service_pb2_grpc,
)

from rememberstack_client.channel import DEFAULT_TIMEOUT_SECONDS, open_aio_channel, open_channel

__all__ = ["SERVICES", "AsyncClient", "Client", "Endpoints"]

SERVICES = ("ingest", "adjudicator", "query", "graph")
"""Service keys, in the order of their default local ports (50051-50054)."""


@dataclass(frozen=True)
class Endpoints:
    """Where each service listens (``host:port``)."""

    ingest: str
    adjudicator: str
    query: str
    graph: str

    @classmethod
    def local(cls, host: str = "127.0.0.1", base_port: int = 50051) -> Endpoints:
        """The ports ``rememberstack up`` binds by default: ingest first, graph last."""
        return cls(*(f"{host}:{base_port + offset}" for offset in range(len(SERVICES))))

    @classmethod
    def single(cls, address: str) -> Endpoints:
        """Every service behind one address (a gateway or ingress that routes by service)."""
        return cls(address, address, address, address)

    def address(self, service: str) -> str:
        address: str = getattr(self, service)
        return address


class AsyncClient:
    """Asyncio stubs of every service over channels with retries, deadlines and typed errors.

    ``async with AsyncClient(Endpoints.local()) as client: await client.query.FactsContext(...)``.
    Failed calls raise ``rememberstack_client.RpcError`` subclasses (``InvalidArgumentError``
    with ``field_violations``, ``NotFoundError``, ...). See ``open_aio_channel`` for the options.
    """

    def __init__(
        self,
        endpoints: Endpoints,
        *,
        credentials: grpc.ChannelCredentials | None = None,
        bearer_token: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT_SECONDS,
        interceptors: Sequence[grpc.aio.ClientInterceptor] = (),
        options: Sequence[tuple[str, Any]] = (),
    ) -> None:
        self.endpoints = endpoints
        self.channels: dict[str, grpc.aio.Channel] = {}
        for service in SERVICES:
            address = endpoints.address(service)
            # Services sharing an address share a channel (one connection to a gateway).
            shared = next(
                (c for s, c in self.channels.items() if endpoints.address(s) == address), None
            )
            self.channels[service] = shared or open_aio_channel(
                address,
                credentials=credentials,
                bearer_token=bearer_token,
                timeout=timeout,
                interceptors=interceptors,
                options=options,
            )
        self.ingest = ingest_service_pb2_grpc.IngestServiceStub(self.channels["ingest"])
        self.adjudicator = adjudicator_service_pb2_grpc.AdjudicatorServiceStub(
            self.channels["adjudicator"]
        )
        self.query = query_service_pb2_grpc.QueryServiceStub(self.channels["query"])
        self.graph = graph_service_pb2_grpc.GraphServiceStub(self.channels["graph"])

    async def wait_until_settled(
        self, version_ids: Sequence[str], *, namespace: str = "", timeout_seconds: float = 300.0
    ) -> list[document_pb2.VersionReadiness]:
        """Follow WatchReadiness until every version is ready or dead-lettered; the last states.

        Raises ``DeadlineExceededError`` when ``timeout_seconds`` pass first.
        """
        latest: dict[str, document_pb2.VersionReadiness] = {}
        request = ingest_service_pb2.WatchReadinessRequest(
            namespace=namespace, version_ids=list(version_ids)
        )
        updates = self.ingest.WatchReadiness(request, timeout=timeout_seconds)
        try:
            async for update in updates:
                latest.update({v.version_id: v for v in update.versions})
                if update.all_settled:
                    break
        finally:
            updates.cancel()  # the server ends the stream too; this frees the call at once
        return [latest[v] for v in version_ids if v in latest]

    async def close(self) -> None:
        for channel in {id(c): c for c in self.channels.values()}.values():
            await channel.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()


class Client:
    """The blocking twin of ``AsyncClient`` (``with Client(Endpoints.local()) as client: ...``)."""

    def __init__(
        self,
        endpoints: Endpoints,
        *,
        credentials: grpc.ChannelCredentials | None = None,
        bearer_token: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT_SECONDS,
        options: Sequence[tuple[str, Any]] = (),
    ) -> None:
        self.endpoints = endpoints
        self.channels: dict[str, grpc.Channel] = {}
        for service in SERVICES:
            address = endpoints.address(service)
            shared = next(
                (c for s, c in self.channels.items() if endpoints.address(s) == address), None
            )
            self.channels[service] = shared or open_channel(
                address,
                credentials=credentials,
                bearer_token=bearer_token,
                timeout=timeout,
                options=options,
            )
        self.ingest = ingest_service_pb2_grpc.IngestServiceStub(self.channels["ingest"])
        self.adjudicator = adjudicator_service_pb2_grpc.AdjudicatorServiceStub(
            self.channels["adjudicator"]
        )
        self.query = query_service_pb2_grpc.QueryServiceStub(self.channels["query"])
        self.graph = graph_service_pb2_grpc.GraphServiceStub(self.channels["graph"])

    def wait_until_settled(
        self, version_ids: Sequence[str], *, namespace: str = "", timeout_seconds: float = 300.0
    ) -> list[document_pb2.VersionReadiness]:
        """Follow WatchReadiness until every version is ready or dead-lettered; the last states."""
        latest: dict[str, document_pb2.VersionReadiness] = {}
        request = ingest_service_pb2.WatchReadinessRequest(
            namespace=namespace, version_ids=list(version_ids)
        )
        updates = self.ingest.WatchReadiness(request, timeout=timeout_seconds)
        try:
            for update in updates:
                latest.update({v.version_id: v for v in update.versions})
                if update.all_settled:
                    break
        finally:
            updates.cancel()
        return [latest[v] for v in version_ids if v in latest]

    def close(self) -> None:
        for channel in {id(c): c for c in self.channels.values()}.values():
            channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
