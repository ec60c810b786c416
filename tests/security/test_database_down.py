"""With the database down, calls answer UNAVAILABLE (never INTERNAL) and each service's own
health status is NOT_SERVING until the database is back."""

from __future__ import annotations

import asyncio
import uuid

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from rememberstack.v1 import (
    graph_service_pb2,
    graph_service_pb2_grpc,
    ingest_service_pb2,
    ingest_service_pb2_grpc,
)

from services.graph import config as graph_config
from services.graph.app import SERVICE_NAME as GRAPH
from services.graph.app import build_server as build_graph
from services.ingest import config as ingest_config
from services.ingest.app import SERVICE_NAME as INGEST
from services.ingest.app import build_server as build_ingest
from shared.db.embedded import EmbeddedPostgres
from shared.db.migrate import upgrade_to_head
from shared.grpc.errors import parse_rich_error

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def _status(channel: grpc.aio.Channel, service: str) -> int:
    reply = await health_pb2_grpc.HealthStub(channel).Check(
        health_pb2.HealthCheckRequest(service=service)
    )
    return reply.status


async def _until(channel: grpc.aio.Channel, service: str, wanted: int) -> None:
    for _ in range(150):
        if await _status(channel, service) == wanted:
            return
        await asyncio.sleep(0.1)
    pytest.fail(f"{service} never became {wanted}")


async def test_database_down_means_unavailable_and_not_serving_until_it_returns(tmp_path):
    postgres = EmbeddedPostgres(tmp_path / "pg")
    url = await asyncio.to_thread(postgres.start)
    await upgrade_to_head(url)
    common = {"database_url": url, "data_dir": tmp_path, "health_probe_seconds": 0.2}
    graph = await build_graph(graph_config.load_settings(**common))
    ingest = await build_ingest(ingest_config.load_settings(worker_poll_seconds=0.2, **common))
    servers = [graph, ingest]
    for server in servers:
        await server.start()
    graph_channel = grpc.aio.insecure_channel(graph.address)
    ingest_channel = grpc.aio.insecure_channel(ingest.address)
    walk = graph_service_pb2_grpc.GraphServiceStub(graph_channel).GraphNeighborhood
    store = ingest_service_pb2_grpc.IngestServiceStub(ingest_channel).IngestDocument
    neighbourhood = graph_service_pb2.GraphNeighborhoodRequest(entity_id=str(uuid.uuid4()))
    document = ingest_service_pb2.IngestDocumentRequest(
        content=b"Ravi works on billing.", media_type="text/plain"
    )
    try:
        await walk(neighbourhood)
        assert await _status(graph_channel, GRAPH) == SERVING

        await asyncio.to_thread(postgres.stop)
        for call, request in ((walk, neighbourhood), (store, document)):
            for _ in range(2):  # the first call may find a pooled connection dead, the next none
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await call(request)
                assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
                assert parse_rich_error(caught.value).reason == "UNAVAILABLE"
        await _until(graph_channel, GRAPH, NOT_SERVING)
        await _until(ingest_channel, INGEST, NOT_SERVING)
        assert await _status(graph_channel, "") == SERVING  # liveness: the process is fine

        postgres = EmbeddedPostgres(tmp_path / "pg")
        await asyncio.to_thread(postgres.start)
        await _until(graph_channel, GRAPH, SERVING)
        await _until(ingest_channel, INGEST, SERVING)
        await walk(neighbourhood)
        assert (await store(document)).version_id
    finally:
        await graph_channel.close()
        await ingest_channel.close()
        for server in servers:
            await server.stop(grace=1.0)
        await asyncio.to_thread(postgres.stop)
