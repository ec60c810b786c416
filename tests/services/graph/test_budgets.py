"""Graph budgets: every bound that stops a walk is named in truncation.reason."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from rememberstack.v1 import common_pb2, graph_service_pb2
from rememberstack.v1.graph_service_pb2_grpc import GraphServiceStub
from sqlalchemy.ext.asyncio import AsyncEngine

from services.graph.domain import Clocks
from services.graph.repository import GraphRepository
from services.graph.traversal import Budget, Walker, search_paths, walk_neighborhood

Reason = common_pb2.TruncationReason


def reasons(truncation: common_pb2.Truncation) -> set[int]:
    return {truncation.reason, *truncation.additional_reasons}


async def test_hub_beyond_edge_budget_reports_expansion_budget_with_partial_nodes(
    graph: Any, small_budget_stub: GraphServiceStub, namespace: str
) -> None:
    hub = await graph.entity("Hub")
    for i in range(8):
        await graph.relation(hub, "knows", await graph.entity(f"S{i}"))
    response = await small_budget_stub.GraphNeighborhood(
        graph_service_pb2.GraphNeighborhoodRequest(namespace=namespace, entity_id=str(hub))
    )
    assert response.truncation.reason == common_pb2.TRUNCATION_REASON_EXPANSION_BUDGET
    assert response.truncation.truncated and not response.truncation.total_is_exact
    assert len(response.nodes) == 1 + 5


async def test_wide_frontier_reports_frontier_budget(
    graph: Any, small_budget_stub: GraphServiceStub, namespace: str
) -> None:
    start = await graph.entity("Start")
    for i in range(3):
        await graph.relation(start, "knows", await graph.entity(f"F{i}"))
    response = await small_budget_stub.GraphNeighborhood(
        graph_service_pb2.GraphNeighborhoodRequest(namespace=namespace, entity_id=str(start))
    )
    assert common_pb2.TRUNCATION_REASON_FRONTIER_BUDGET in reasons(response.truncation)
    assert len(response.nodes) == 4


async def test_path_search_cut_by_budget_is_boundary_not_known_empty(
    graph: Any, small_budget_stub: GraphServiceStub, namespace: str
) -> None:
    s, t = await graph.entities("S", "T")
    for i in range(8):
        await graph.relation(s, "knows", await graph.entity(f"S{i}"))
    far = await graph.entity("Far")
    await graph.relation(far, "knows", t)
    response = await small_budget_stub.GraphPath(
        graph_service_pb2.GraphPathRequest(
            namespace=namespace, from_entity_id=str(s), to_entity_id=str(t)
        )
    )
    assert not response.paths
    assert response.negative.kind == common_pb2.NEGATIVE_KIND_BOUNDARY
    assert reasons(response.truncation) & {
        common_pb2.TRUNCATION_REASON_EXPANSION_BUDGET,
        common_pb2.TRUNCATION_REASON_FRONTIER_BUDGET,
    }


class _Expired:
    """A clock whose every reading lies past any deadline set before it."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 10.0
        return self.now


async def test_walks_out_of_time_report_time_budget(
    graph: Any, db_engine: AsyncEngine, namespace: str
) -> None:
    a, b = await graph.entities("A", "B")
    await graph.relation(a, "knows", b)
    now = datetime.now(UTC)
    async with db_engine.connect() as conn:
        for search in ("neighborhood", "path"):
            budget = Budget(max_edges=100, max_frontier=100, time_budget_ms=1000, clock=_Expired())
            walker = Walker(
                GraphRepository(),
                conn,
                namespace=namespace,
                predicates=(),
                clocks=Clocks(valid_at=now, believed_at=now),
                budget=budget,
                statement_timeout_ms=1000,
            )
            if search == "neighborhood":
                walk = await walk_neighborhood(walker, a, 2)
                assert walk.hop == {a: 0}
            else:
                found = await search_paths(walker, a, b, 4, 10)
                assert found.paths == []
            assert budget.reasons == ["time_budget"]
