"""GraphNeighborhood over real gRPC and Postgres: hops, filters, paging, paths, negatives."""

from __future__ import annotations

import uuid
from typing import Any

from rememberstack.v1 import common_pb2, graph_service_pb2
from rememberstack.v1.graph_service_pb2_grpc import GraphServiceStub

Request = graph_service_pb2.GraphNeighborhoodRequest


def hops_by_id(response: graph_service_pb2.GraphNeighborhoodResponse) -> dict[str, int]:
    return {node.entity_id: node.hop for node in response.nodes}


async def test_neighborhood_reports_hop_distance_within_requested_hops(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    a, b, c, d = await graph.entities("Ada", "Bob", "Cy", "Dee")
    await graph.chain([a, b, c, d])
    response = await graph_stub.GraphNeighborhood(Request(namespace=namespace, entity_id=str(a)))
    assert hops_by_id(response) == {str(a): 0, str(b): 1, str(c): 2}
    assert response.nodes[0].entity_id == str(a) and response.nodes[0].name == "Ada"
    # Dee lies one hop beyond the default depth, so the bound is disclosed.
    assert response.truncation.reason == common_pb2.TRUNCATION_REASON_DEPTH_BUDGET


async def test_neighborhood_traverses_relations_in_both_directions(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    a, b, c = await graph.entities("A", "B", "C")
    await graph.relation(b, "works_at", a)
    await graph.relation(c, "works_at", b)
    response = await graph_stub.GraphNeighborhood(
        Request(namespace=namespace, entity_id=str(a), hops=3)
    )
    assert hops_by_id(response) == {str(a): 0, str(b): 1, str(c): 2}
    assert not response.truncation.truncated
    assert response.truncation.total_is_exact


async def test_neighborhood_predicate_filter_skips_other_relations(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    a, b, c = await graph.entities("A", "B", "C")
    await graph.relation(a, "works_at", b)
    await graph.relation(a, "knows", c)
    response = await graph_stub.GraphNeighborhood(
        Request(namespace=namespace, entity_id=str(a), predicates=["works_at"])
    )
    assert hops_by_id(response) == {str(a): 0, str(b): 1}


async def test_neighborhood_pages_without_duplicates_or_gaps_despite_writes_between_pages(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    hub = await graph.entity("Hub")
    spokes = await graph.entities(*(f"S{i}" for i in range(7)))
    spoke_facts = [await graph.relation(hub, "knows", s) for s in spokes]
    first = await graph_stub.GraphNeighborhood(
        Request(namespace=namespace, entity_id=str(hub), page_size=3, hops=1)
    )
    assert first.truncation.continuation
    assert first.next_page_token == first.truncation.continuation
    assert first.truncation.reason == common_pb2.TRUNCATION_REASON_RESULT_BUDGET
    assert first.truncation.estimated_total == 8

    # Concurrent writes: a new spoke, and a retraction of an existing one.
    late = await graph.entity("Late")
    await graph.relation(hub, "knows", late)
    await graph.invalidate(spoke_facts[-1])

    seen = [n.entity_id for n in first.nodes]
    token = first.truncation.continuation
    while token:
        page = await graph_stub.GraphNeighborhood(
            Request(namespace=namespace, entity_id=str(hub), page_size=3, hops=1, page_token=token)
        )
        seen.extend(n.entity_id for n in page.nodes)
        assert page.next_page_token == page.truncation.continuation
        token = page.next_page_token
    assert len(seen) == len(set(seen))
    assert set(seen) == {str(hub), *(str(s) for s in spokes)}

    fresh = await graph_stub.GraphNeighborhood(
        Request(namespace=namespace, entity_id=str(hub), hops=1)
    )
    assert str(late) in hops_by_id(fresh) and str(spokes[-1]) not in hops_by_id(fresh)


async def test_neighborhood_include_paths_returns_edges_and_path_per_node(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    a, b, c = await graph.entities("A", "B", "C")
    ab = await graph.relation(a, "manages", b, evidence_count=3)
    bc = await graph.relation(c, "reports_to", b)
    response = await graph_stub.GraphNeighborhood(
        Request(namespace=namespace, entity_id=str(a), include_paths=True)
    )
    assert {e.fact_id for e in response.edges} == {str(ab), str(bc)}
    edge = next(e for e in response.edges if e.fact_id == str(ab))
    assert (edge.subject_entity_id, edge.predicate, edge.object_entity_id) == (
        str(a),
        "manages",
        str(b),
    )
    assert edge.evidence_count == 3 and edge.label
    assert edge.validity.HasField("ingested_at") and not edge.validity.HasField("invalidated_at")
    path_to_c = next(p for p in response.paths if p.entity_ids[-1] == str(c))
    assert list(path_to_c.entity_ids) == [str(a), str(b), str(c)]
    assert [e.fact_id for e in path_to_c.edges] == [str(ab), str(bc)]
    # The edge keeps its stored direction although the walk went against it.
    assert path_to_c.edges[1].subject_entity_id == str(c)


async def test_neighborhood_unknown_entity_returns_unknown_entity_negative(
    graph_stub: GraphServiceStub, namespace: str
) -> None:
    response = await graph_stub.GraphNeighborhood(
        Request(namespace=namespace, entity_id=str(uuid.uuid4()))
    )
    assert response.negative.kind == common_pb2.NEGATIVE_KIND_UNKNOWN_ENTITY
    assert not response.nodes


async def test_neighborhood_of_isolated_entity_is_known_empty(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    loner = await graph.entity("Loner")
    response = await graph_stub.GraphNeighborhood(
        Request(namespace=namespace, entity_id=str(loner))
    )
    assert response.negative.kind == common_pb2.NEGATIVE_KIND_KNOWN_EMPTY
    assert [n.entity_id for n in response.nodes] == [str(loner)]


async def test_neighborhood_bad_continuation_returns_boundary_negative(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    a, b = await graph.entities("A", "B")
    await graph.relation(a, "knows", b)
    for token in ("not-a-token", "eyJ2IjoxfQ"):
        response = await graph_stub.GraphNeighborhood(
            Request(namespace=namespace, entity_id=str(a), page_token=token)
        )
        assert response.negative.kind == common_pb2.NEGATIVE_KIND_BOUNDARY
        assert not response.nodes


async def test_neighborhood_continuation_from_another_request_is_refused_as_boundary(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    a, b, c = await graph.entities("A", "B", "C")
    await graph.relation(a, "knows", b)
    await graph.relation(a, "knows", c)
    first = await graph_stub.GraphNeighborhood(
        Request(namespace=namespace, entity_id=str(a), page_size=1)
    )
    other = await graph_stub.GraphNeighborhood(
        Request(namespace=namespace, entity_id=str(b), page_token=first.truncation.continuation)
    )
    assert other.negative.kind == common_pb2.NEGATIVE_KIND_BOUNDARY


async def test_neighborhood_follows_merge_redirects(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    a, b, b_dup, c = await graph.entities("A", "Bee", "B.", "C")
    await graph.relation(a, "knows", b)
    await graph.relation(b_dup, "works_at", c)
    await graph.merge(b_dup, b)
    from_start = await graph_stub.GraphNeighborhood(Request(namespace=namespace, entity_id=str(a)))
    assert hops_by_id(from_start) == {str(a): 0, str(b): 1, str(c): 2}
    # A start id that was merged away resolves to its survivor.
    from_absorbed = await graph_stub.GraphNeighborhood(
        Request(namespace=namespace, entity_id=str(b_dup), hops=1)
    )
    assert hops_by_id(from_absorbed) == {str(b): 0, str(a): 1, str(c): 1}


async def test_neighborhood_paged_with_paths_sends_each_edge_once_per_chain(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    a, b, c, d = await graph.entities("A", "B", "C", "D")
    facts = {
        await graph.relation(a, "knows", b),
        await graph.relation(a, "knows", c),
        await graph.relation(b, "knows", c),
        await graph.relation(c, "knows", d),
    }
    sent: list[str] = []
    paths: dict[str, list[str]] = {}
    token = ""
    while True:
        page = await graph_stub.GraphNeighborhood(
            Request(
                namespace=namespace,
                entity_id=str(a),
                page_size=1,
                include_paths=True,
                page_token=token,
            )
        )
        sent.extend(e.fact_id for e in page.edges)
        paths.update({p.entity_ids[-1]: list(p.entity_ids) for p in page.paths})
        token = page.truncation.continuation
        if not token:
            break
    assert sorted(sent) == sorted(str(f) for f in facts)
    assert paths[str(d)] == [str(a), str(c), str(d)]
    assert paths[str(a)] == [str(a)]


async def test_neighborhood_whose_last_hop_links_only_reached_nodes_reports_no_depth_budget(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    a, b, c = await graph.entities("A", "B", "C")
    await graph.chain([a, b, c, a])
    response = await graph_stub.GraphNeighborhood(
        Request(namespace=namespace, entity_id=str(a), hops=1)
    )
    assert hops_by_id(response) == {str(a): 0, str(b): 1, str(c): 1}
    assert not response.truncation.truncated


async def test_neighborhood_depth_probe_counts_only_relations_matching_predicates(
    graph: Any, graph_stub: GraphServiceStub, namespace: str
) -> None:
    a, b, c = await graph.entities("A", "B", "C")
    await graph.relation(a, "knows", b)
    await graph.relation(b, "works_at", c)
    filtered = await graph_stub.GraphNeighborhood(
        Request(namespace=namespace, entity_id=str(a), hops=1, predicates=["knows"])
    )
    unfiltered = await graph_stub.GraphNeighborhood(
        Request(namespace=namespace, entity_id=str(a), hops=1)
    )
    assert not filtered.truncation.truncated
    assert unfiltered.truncation.reason == common_pb2.TRUNCATION_REASON_DEPTH_BUDGET
