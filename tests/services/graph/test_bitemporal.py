"""Graph reads at (valid_at, believed_at): supersession and retraction."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp
from rememberstack.v1 import graph_service_pb2
from rememberstack.v1.graph_service_pb2_grpc import GraphServiceStub

Request = graph_service_pb2.GraphNeighborhoodRequest


def ts(value: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(value)
    return stamp


async def neighbours(
    stub: GraphServiceStub, namespace: str, entity: Any, **clocks: Any
) -> set[str]:
    response = await stub.GraphNeighborhood(
        Request(namespace=namespace, entity_id=str(entity), hops=1, **clocks)
    )
    return {n.entity_id for n in response.nodes if n.hop == 1}


async def test_superseded_edge_leaves_current_but_returns_as_of_earlier_valid_time(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    ada, acme, globex = await graph.entities("Ada", "Acme", "Globex")
    switch = datetime(2024, 6, 1, tzinfo=UTC)
    old = await graph.relation(ada, "works_at", acme, valid_from=datetime(2020, 1, 1, tzinfo=UTC))
    await graph.relation(ada, "works_at", globex, valid_from=switch, precision="open")
    await graph.close_window(old, switch)

    assert await neighbours(graph_stub, namespace, ada) == {str(globex)}
    now = datetime.now(UTC)
    earlier = {"valid_at": ts(datetime(2022, 3, 1, tzinfo=UTC)), "believed_at": ts(now)}
    assert await neighbours(graph_stub, namespace, ada, **earlier) == {str(acme)}


async def test_retracted_edge_leaves_current_but_returns_as_of_earlier_belief_time(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    ada, acme = await graph.entities("Ada", "Acme")
    ingested = datetime.now(UTC) - timedelta(days=10)
    retracted = datetime.now(UTC) - timedelta(days=2)
    await graph.relation(ada, "works_at", acme, ingested_at=ingested, invalidated_at=retracted)

    assert await neighbours(graph_stub, namespace, ada) == set()
    now = ts(datetime.now(UTC))
    before = ts(retracted - timedelta(days=1))
    assert await neighbours(graph_stub, namespace, ada, valid_at=now, believed_at=before) == {
        str(acme)
    }
    # Not yet believed before it was ingested.
    too_early = ts(ingested - timedelta(days=1))
    assert (
        await neighbours(graph_stub, namespace, ada, valid_at=now, believed_at=too_early) == set()
    )


async def test_edge_outside_its_world_window_does_not_count(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    ada, acme = await graph.entities("Ada", "Acme")
    await graph.relation(
        ada,
        "works_at",
        acme,
        valid_from=datetime(2030, 1, 1, tzinfo=UTC),
        valid_until=datetime(2031, 1, 1, tzinfo=UTC),
        precision="year",
    )
    assert await neighbours(graph_stub, namespace, ada) == set()
    believed = ts(datetime.now(UTC))
    inside = ts(datetime(2030, 6, 1, tzinfo=UTC))
    at_end = ts(datetime(2031, 1, 1, tzinfo=UTC))
    assert await neighbours(graph_stub, namespace, ada, valid_at=inside, believed_at=believed) == {
        str(acme)
    }
    # Windows are half-open: valid_until itself is outside.
    assert (
        await neighbours(graph_stub, namespace, ada, valid_at=at_end, believed_at=believed) == set()
    )
