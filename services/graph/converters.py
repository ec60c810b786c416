"""GraphService wire <-> domain conversions; every request check lives here."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from google.protobuf.timestamp_pb2 import Timestamp
from rememberstack.v1 import common_pb2, graph_service_pb2

from services.graph.domain import (
    Clocks,
    EdgeRecord,
    NeighborhoodPage,
    NeighborhoodQuery,
    NodeRecord,
    PathAnswer,
    PathQuery,
    PathRecord,
)
from shared.errors import Violations
from shared.namespaces import resolve_namespace
from shared.proto_convert import (
    PRECISION,
    SUPPORT,
    bounded_int,
    check_timestamp,
    from_timestamp,
    negative_to_pb,
    parse_uuid,
    timestamp,
    to_timestamp,
    truncation_to_pb,
)

__all__ = [
    "MAX_PREDICATES",
    "neighborhood_query",
    "neighborhood_response",
    "path_query",
    "path_response",
]

MAX_PREDICATES = 100
_MAX_PREDICATE_CHARS = 64
_MAX_CONTINUATION_CHARS = 4096


def _predicates(values: Sequence[str], violations: Violations) -> tuple[str, ...]:
    if len(values) > MAX_PREDICATES:
        violations.add(
            "predicates", f"accepts at most {MAX_PREDICATES} predicates, got {len(values)}"
        )
    for index, value in enumerate(values):
        if not value.strip():
            violations.add(f"predicates[{index}]", "must not be empty")
        elif len(value) > _MAX_PREDICATE_CHARS:
            violations.add(
                f"predicates[{index}]", f"must be at most {_MAX_PREDICATE_CHARS} characters"
            )
    return tuple(dict.fromkeys(values))


def _clocks(
    valid_at: Timestamp | None, believed_at: Timestamp | None, violations: Violations
) -> Clocks | None:
    if valid_at is None and believed_at is None:
        return None
    if valid_at is None:
        violations.add("valid_at", "is required together with believed_at")
        return None
    if believed_at is None:
        violations.add("believed_at", "is required together with valid_at")
        return None
    valid = check_timestamp(valid_at, "valid_at", violations)
    if not (check_timestamp(believed_at, "believed_at", violations) and valid):
        return None
    return Clocks(valid_at=from_timestamp(valid_at), believed_at=from_timestamp(believed_at))


def neighborhood_query(
    request: graph_service_pb2.GraphNeighborhoodRequest, default_namespace: str
) -> NeighborhoodQuery:
    """Validate a GraphNeighborhood request, naming every bad field at once."""
    violations = Violations()
    namespace = resolve_namespace(request.namespace, default_namespace, violations)
    entity_id = parse_uuid(request.entity_id, "entity_id", violations)
    hops = bounded_int(request.hops, "hops", violations, default=2, low=1, high=4)
    predicates = _predicates(request.predicates, violations)
    clocks = _clocks(
        request.valid_at if request.HasField("valid_at") else None,
        request.believed_at if request.HasField("believed_at") else None,
        violations,
    )
    limit = bounded_int(request.page_size, "page_size", violations, default=500, low=1, high=500)
    if len(request.page_token) > _MAX_CONTINUATION_CHARS:
        violations.add("page_token", f"must be at most {_MAX_CONTINUATION_CHARS} characters")
    violations.raise_if_any()
    assert entity_id is not None
    return NeighborhoodQuery(
        namespace=namespace,
        entity_id=entity_id,
        hops=hops,
        predicates=predicates,
        clocks=clocks,
        limit=limit,
        continuation=request.page_token,
        include_paths=request.include_paths,
    )


def path_query(request: graph_service_pb2.GraphPathRequest, default_namespace: str) -> PathQuery:
    """Validate a GraphPath request, naming every bad field at once."""
    violations = Violations()
    namespace = resolve_namespace(request.namespace, default_namespace, violations)
    source = parse_uuid(request.from_entity_id, "from_entity_id", violations)
    target = parse_uuid(request.to_entity_id, "to_entity_id", violations)
    max_hops = bounded_int(request.max_hops, "max_hops", violations, default=4, low=1, high=6)
    predicates = _predicates(request.predicates, violations)
    clocks = _clocks(
        request.valid_at if request.HasField("valid_at") else None,
        request.believed_at if request.HasField("believed_at") else None,
        violations,
    )
    violations.raise_if_any()
    assert source is not None and target is not None
    return PathQuery(
        namespace=namespace,
        from_entity_id=source,
        to_entity_id=target,
        max_hops=max_hops,
        predicates=predicates,
        clocks=clocks,
    )


def _edge(edge: EdgeRecord) -> graph_service_pb2.GraphEdge:
    return graph_service_pb2.GraphEdge(
        fact_id=str(edge.fact_id),
        subject_entity_id=str(edge.subject_entity_id),
        predicate=edge.predicate,
        object_entity_id=str(edge.object_entity_id),
        label=edge.label,
        evidence_count=edge.evidence_count,
        validity=common_pb2.Validity(
            valid_from=to_timestamp(edge.valid_from),
            valid_until=to_timestamp(edge.valid_until),
            valid_precision=PRECISION.get(edge.valid_precision, common_pb2.PRECISION_UNKNOWN),  # type: ignore[arg-type]
            ingested_at=timestamp(edge.ingested_at),
            invalidated_at=to_timestamp(edge.invalidated_at),
        ),
        support=SUPPORT.get(edge.support, 0),  # type: ignore[arg-type]
    )


def _ids(ids: Sequence[UUID]) -> list[str]:
    return [str(i) for i in ids]


def _path(path: PathRecord) -> graph_service_pb2.GraphPathResult:
    return graph_service_pb2.GraphPathResult(
        entity_ids=_ids(path.entity_ids), edges=[_edge(e) for e in path.edges]
    )


def _node(node: NodeRecord) -> graph_service_pb2.GraphNodeResult:
    return graph_service_pb2.GraphNodeResult(
        entity_id=str(node.entity_id), name=node.name, hop=node.hop
    )


def neighborhood_response(page: NeighborhoodPage) -> graph_service_pb2.GraphNeighborhoodResponse:
    """Wire form of one neighbourhood page."""
    return graph_service_pb2.GraphNeighborhoodResponse(
        nodes=[_node(n) for n in page.nodes],
        edges=[_edge(e) for e in page.edges],
        paths=[_path(p) for p in page.paths],
        truncation=truncation_to_pb(page.truncation),
        negative=negative_to_pb(page.negative),
        next_page_token=page.truncation.continuation,
    )


def path_response(answer: PathAnswer) -> graph_service_pb2.GraphPathResponse:
    """Wire form of a path answer."""
    return graph_service_pb2.GraphPathResponse(
        paths=[_path(p) for p in answer.paths],
        truncation=truncation_to_pb(answer.truncation),
        negative=negative_to_pb(answer.negative),
    )
