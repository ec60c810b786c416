"""GraphService request validation: INVALID_ARGUMENT naming every bad field."""

from __future__ import annotations

import uuid

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from rememberstack.v1 import graph_service_pb2
from rememberstack.v1.graph_service_pb2_grpc import GraphServiceStub

from services.graph.converters import neighborhood_query, path_query
from shared.errors import InvalidArgument
from shared.grpc.errors import parse_rich_error

NOW = Timestamp(seconds=1_700_000_000)


def bad_fields(exc: InvalidArgument) -> set[str]:
    return {v.field for v in exc.violations}


@pytest.mark.parametrize(
    ("request_kwargs", "fields"),
    [
        ({"hops": 5}, {"hops"}),
        ({"hops": -1}, {"hops"}),
        ({"page_size": 501}, {"page_size"}),
        ({"predicates": [f"p{i}" for i in range(101)]}, {"predicates"}),
        ({"predicates": [""]}, {"predicates[0]"}),
        ({"valid_at": NOW}, {"believed_at"}),
        ({"believed_at": NOW}, {"valid_at"}),
        ({"entity_id": "not-a-uuid"}, {"entity_id"}),
        ({"entity_id": ""}, {"entity_id"}),
        ({"hops": 9, "page_size": 600, "entity_id": "x"}, {"hops", "page_size", "entity_id"}),
        # Outside years 1-9999 or with bad nanos, converting would raise (INTERNAL before).
        (
            {"valid_at": Timestamp(seconds=253_402_300_800), "believed_at": NOW},
            {"valid_at"},
        ),
        ({"valid_at": NOW, "believed_at": Timestamp(seconds=0, nanos=-1)}, {"believed_at"}),
    ],
)
def test_neighborhood_request_out_of_bounds_names_each_bad_field(
    request_kwargs: dict[str, object], fields: set[str]
) -> None:
    request = graph_service_pb2.GraphNeighborhoodRequest(
        **{"entity_id": str(uuid.uuid4()), **request_kwargs}  # type: ignore[arg-type]
    )
    with pytest.raises(InvalidArgument) as raised:
        neighborhood_query(request, "default")
    assert bad_fields(raised.value) == fields


def test_neighborhood_request_defaults_apply_for_zero_values() -> None:
    query = neighborhood_query(
        graph_service_pb2.GraphNeighborhoodRequest(entity_id=str(uuid.uuid4())), "tenant"
    )
    assert (query.namespace, query.hops, query.limit, query.clocks) == ("tenant", 2, 500, None)


@pytest.mark.parametrize(
    ("request_kwargs", "fields"),
    [
        ({"max_hops": 7}, {"max_hops"}),
        ({"from_entity_id": "nope"}, {"from_entity_id"}),
        ({"to_entity_id": ""}, {"to_entity_id"}),
        ({"valid_at": NOW}, {"believed_at"}),
    ],
)
def test_path_request_out_of_bounds_names_each_bad_field(
    request_kwargs: dict[str, object], fields: set[str]
) -> None:
    base = {"from_entity_id": str(uuid.uuid4()), "to_entity_id": str(uuid.uuid4())}
    request = graph_service_pb2.GraphPathRequest(**{**base, **request_kwargs})  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument) as raised:
        path_query(request, "default")
    assert bad_fields(raised.value) == fields


async def test_invalid_request_over_grpc_is_invalid_argument_with_field_violations(
    graph_stub: GraphServiceStub,
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await graph_stub.GraphNeighborhood(
            graph_service_pb2.GraphNeighborhoodRequest(entity_id="bad", hops=5, valid_at=NOW)
        )
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    details = parse_rich_error(raised.value)
    assert {v.field for v in details.field_violations} == {"entity_id", "hops", "believed_at"}


async def test_out_of_range_timestamp_over_grpc_is_invalid_argument_naming_it(
    graph_stub: GraphServiceStub,
) -> None:
    request = graph_service_pb2.GraphPathRequest(
        from_entity_id=str(uuid.uuid4()),
        to_entity_id=str(uuid.uuid4()),
        valid_at=Timestamp(seconds=-(10**12)),
        believed_at=NOW,
    )
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await graph_stub.GraphPath(request)
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert {v.field for v in parse_rich_error(raised.value).field_violations} == {"valid_at"}
