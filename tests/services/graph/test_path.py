"""GraphPath over real gRPC and Postgres: shortest, equal-length, whole paths and negatives."""

from __future__ import annotations

import uuid
from typing import Any

from rememberstack.v1 import common_pb2, graph_service_pb2
from rememberstack.v1.graph_service_pb2_grpc import GraphServiceStub

Request = graph_service_pb2.GraphPathRequest


async def test_path_returns_every_shortest_path_and_no_longer_one(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    s, m1, m2, x, y, t = await graph.entities("S", "M1", "M2", "X", "Y", "T")
    for m in (m1, m2):
        await graph.relation(s, "knows", m)
        await graph.relation(m, "knows", t)
    await graph.chain([s, x, y, t])  # a longer detour that must not appear
    response = await graph_stub.GraphPath(
        Request(namespace=namespace, from_entity_id=str(s), to_entity_id=str(t))
    )
    paths = [list(p.entity_ids) for p in response.paths]
    assert sorted(paths) == sorted([[str(s), str(m1), str(t)], [str(s), str(m2), str(t)]])
    for path in response.paths:
        assert len(path.edges) == len(path.entity_ids) - 1
        for edge, (left, right) in zip(
            path.edges, zip(path.entity_ids, path.entity_ids[1:], strict=False), strict=True
        ):
            assert {edge.subject_entity_id, edge.object_entity_id} == {left, right}
    assert not response.HasField("negative")


async def test_path_caps_at_ten_paths_of_equal_length_and_says_more_exist(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    s, t = await graph.entities("S", "T")
    for i in range(12):
        middle = await graph.entity(f"M{i}")
        await graph.relation(s, "knows", middle)
        await graph.relation(middle, "knows", t)
    response = await graph_stub.GraphPath(
        Request(namespace=namespace, from_entity_id=str(s), to_entity_id=str(t))
    )
    assert len(response.paths) == 10
    assert {len(p.entity_ids) for p in response.paths} == {3}
    assert len({tuple(p.entity_ids) for p in response.paths}) == 10
    assert response.truncation.truncated
    assert response.truncation.reason == common_pb2.TRUNCATION_REASON_RESULT_BUDGET


async def test_path_with_filtered_edge_is_dropped_not_shortened(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    s, m, x, y, t = await graph.entities("S", "M", "X", "Y", "T")
    await graph.relation(s, "knows", m)
    await graph.relation(m, "likes", t)
    await graph.relation(s, "knows", x)
    await graph.relation(x, "knows", y)
    await graph.relation(y, "knows", t)
    response = await graph_stub.GraphPath(
        Request(
            namespace=namespace,
            from_entity_id=str(s),
            to_entity_id=str(t),
            predicates=["knows"],
        )
    )
    assert [list(p.entity_ids) for p in response.paths] == [[str(s), str(x), str(y), str(t)]]
    assert all(e.predicate == "knows" for e in response.paths[0].edges)


async def test_path_between_disconnected_entities_is_known_empty(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    a, b, c = await graph.entities("A", "B", "C")
    await graph.relation(a, "knows", b)
    response = await graph_stub.GraphPath(
        Request(namespace=namespace, from_entity_id=str(a), to_entity_id=str(c))
    )
    assert not response.paths
    assert response.negative.kind == common_pb2.NEGATIVE_KIND_KNOWN_EMPTY


async def test_path_longer_than_max_hops_is_known_empty_with_depth_budget(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    ids = await graph.entities(*(f"N{i}" for i in range(5)))
    await graph.chain(ids)
    response = await graph_stub.GraphPath(
        Request(
            namespace=namespace, from_entity_id=str(ids[0]), to_entity_id=str(ids[4]), max_hops=3
        )
    )
    assert response.negative.kind == common_pb2.NEGATIVE_KIND_KNOWN_EMPTY
    assert response.truncation.reason == common_pb2.TRUNCATION_REASON_DEPTH_BUDGET
    longer = await graph_stub.GraphPath(
        Request(namespace=namespace, from_entity_id=str(ids[0]), to_entity_id=str(ids[4]))
    )
    assert [len(p.edges) for p in longer.paths] == [4]


async def test_path_with_unknown_endpoint_returns_unknown_entity(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    a = await graph.entity("A")
    response = await graph_stub.GraphPath(
        Request(namespace=namespace, from_entity_id=str(a), to_entity_id=str(uuid.uuid4()))
    )
    assert response.negative.kind == common_pb2.NEGATIVE_KIND_UNKNOWN_ENTITY


async def test_path_crosses_a_merged_entity_through_its_survivor(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    a, b, b_dup, c = await graph.entities("A", "B", "B dup", "C")
    await graph.relation(a, "knows", b)
    await graph.relation(b_dup, "knows", c)
    await graph.merge(b_dup, b)
    response = await graph_stub.GraphPath(
        Request(namespace=namespace, from_entity_id=str(a), to_entity_id=str(c))
    )
    assert [list(p.entity_ids) for p in response.paths] == [[str(a), str(b), str(c)]]
