"""Query and graph reading from a real streaming hot standby of a real primary.

The standby is built by `pg_basebackup` from pgserver's own binaries and replays the primary's
WAL (shared/db/standby.py). Replay is paused with `pg_wal_replay_pause()` to make the replica
lag on purpose: a read at a believed_at it has not replayed to must say so, not answer from
an older snapshot as if it were complete.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc.aio
import pytest
from rememberstack.v1 import (
    common_pb2,
    graph_service_pb2,
    graph_service_pb2_grpc,
    query_service_pb2,
    query_service_pb2_grpc,
)
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from services.graph.app import build_server as build_graph
from services.query.app import build_server as build_query
from services.query.config import load_settings
from shared.db import EmbeddedPostgres, create_engine, session_factory, upgrade_to_head
from shared.db.standby import EmbeddedStandby
from shared.embedding import Embedder
from tests.services.query.conftest import World

pytestmark = pytest.mark.slow

_WAIT = 0.3


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(primary URL, standby URL): a fresh primary, migrated, and its streaming standby."""
    root: Path = tmp_path_factory.mktemp("replica")
    primary = EmbeddedPostgres(root / "primary")
    primary_url = primary.start()
    asyncio.run(upgrade_to_head(primary_url))
    standby = EmbeddedStandby(primary_url, root / "standby")
    try:
        standby_url = standby.start()
        standby.wait_streaming()
        yield primary_url, standby_url
    finally:
        standby.stop()
        primary.stop()


@pytest.fixture(scope="module")
async def engines(servers: tuple[str, str]) -> AsyncIterator[tuple[AsyncEngine, AsyncEngine]]:
    primary, standby = (create_engine(url) for url in servers)
    yield primary, standby
    await primary.dispose()
    await standby.dispose()


@pytest.fixture(scope="module")
async def stubs(
    servers: tuple[str, str],
) -> AsyncIterator[
    tuple[query_service_pb2_grpc.QueryServiceStub, graph_service_pb2_grpc.GraphServiceStub]
]:
    primary, standby = servers
    settings = load_settings(
        database_url=primary,
        read_database_url=standby,
        read_replica_max_wait_seconds=_WAIT,
        port=0,
        log_json=False,
    )
    query = await build_query(settings)
    graph = await build_graph(settings)
    await query.start()
    await graph.start()
    async with (
        grpc.aio.insecure_channel(query.address) as q,
        grpc.aio.insecure_channel(graph.address) as g,
    ):
        yield query_service_pb2_grpc.QueryServiceStub(q), graph_service_pb2_grpc.GraphServiceStub(g)
    await query.stop(0)
    await graph.stop(0)


@pytest.fixture
def replica_world(engines: tuple[AsyncEngine, AsyncEngine], embedder: Embedder) -> World:
    """Writes go to the primary only."""
    return World(session_factory(engines[0]), f"test-{uuid.uuid4().hex[:12]}", embedder)


async def _standby(engines: tuple[AsyncEngine, AsyncEngine], sql: str) -> None:
    async with engines[1].connect() as conn:
        await conn.execute(text(sql))


async def _until_replayed(engines: tuple[AsyncEngine, AsyncEngine], fact_id: uuid.UUID) -> None:
    async with asyncio.timeout(30):
        while True:
            async with engines[1].connect() as conn:
                if (
                    await conn.execute(text("SELECT 1 FROM facts WHERE id = :f"), {"f": fact_id})
                ).first():
                    return
            await asyncio.sleep(0.05)


def _as_of(request: query_service_pb2.FactsContextRequest, believed_at: datetime) -> None:
    request.time_scope.as_of.valid_at.FromDatetime(datetime.now(UTC))
    request.time_scope.as_of.believed_at.FromDatetime(believed_at)


async def test_read_replica_serves_what_the_primary_wrote_once_replayed(
    replica_world: World, engines: tuple[AsyncEngine, AsyncEngine], stubs: tuple[object, ...]
) -> None:
    query, _ = stubs
    dana = await replica_world.entity("Dana")
    fact = await replica_world.fact(dana, "Dana leads the platform group")
    await _until_replayed(engines, fact)
    reply = await query.FactsContext(  # type: ignore[attr-defined]
        query_service_pb2.FactsContextRequest(
            namespace=replica_world.namespace, entity_ids=[str(dana)]
        )
    )
    assert [f.fact_id for f in reply.facts] == [str(fact)]
    async with engines[1].connect() as conn:
        assert (await conn.execute(text("SELECT pg_is_in_recovery()"))).scalar() is True


async def test_read_replica_behind_believed_at_answers_boundary_until_it_replays(
    replica_world: World, engines: tuple[AsyncEngine, AsyncEngine], stubs: tuple[object, ...]
) -> None:
    query, graph = stubs
    ns = replica_world.namespace
    dana = await replica_world.entity("Dana")
    ravi = await replica_world.entity("Ravi")
    old = await replica_world.fact(dana, "Dana leads the platform group")
    await _until_replayed(engines, old)
    async with engines[1].connect() as conn:
        replayed = (await conn.execute(text("SELECT pg_last_xact_replay_timestamp()"))).scalar()
    assert replayed is not None
    await _standby(engines, "SELECT pg_wal_replay_pause()")
    try:
        new = await replica_world.fact(dana, "Dana knows Ravi", predicate="knows", obj=ravi)
        written = datetime.now(UTC)

        request = query_service_pb2.FactsContextRequest(namespace=ns, entity_ids=[str(dana)])
        _as_of(request, written)
        lagging = await query.FactsContext(request)  # type: ignore[attr-defined]
        assert not lagging.facts
        assert lagging.negative.kind == common_pb2.NEGATIVE_KIND_BOUNDARY
        assert "replica" in lagging.negative.explanation
        assert lagging.truncation.truncated

        walk = graph_service_pb2.GraphNeighborhoodRequest(namespace=ns, entity_id=str(dana))
        walk.valid_at.FromDatetime(written)
        walk.believed_at.FromDatetime(written)
        page = await graph.GraphNeighborhood(walk)  # type: ignore[attr-defined]
        assert page.negative.kind == common_pb2.NEGATIVE_KIND_BOUNDARY
        assert not page.nodes

        # A belief instant the replica has replayed is answered in full, lag or not.
        earlier = query_service_pb2.FactsContextRequest(namespace=ns, entity_ids=[str(dana)])
        _as_of(earlier, replayed)
        answered = await query.FactsContext(earlier)  # type: ignore[attr-defined]
        assert [f.fact_id for f in answered.facts] == [str(old)]
    finally:
        await _standby(engines, "SELECT pg_wal_replay_resume()")

    await _until_replayed(engines, new)
    # The primary is idle now: its WAL position, not the standby's keep-alives, tells the
    # replica it has caught up, so the read goes ahead without waiting out the bound.
    caught_up = query_service_pb2.FactsContextRequest(namespace=ns, entity_ids=[str(dana)])
    _as_of(caught_up, datetime.now(UTC) - timedelta(milliseconds=1))
    reply = await query.FactsContext(caught_up)  # type: ignore[attr-defined]
    assert (
        not reply.HasField("negative") or reply.negative.kind != common_pb2.NEGATIVE_KIND_BOUNDARY
    )
    assert str(new) in {f.fact_id for f in reply.facts}
