"""The services are named once, from the proto contract, and everything agrees with it."""

from __future__ import annotations

import dataclasses

import pytest
from rememberstack.v1 import query_service_pb2

from shared.cli.launcher import Endpoints
from shared.grpc.services import QUERY, SERVICE_NAMES, SERVICES, service_spec


def test_the_four_services_come_from_the_descriptors_in_start_order() -> None:
    assert SERVICE_NAMES == ("ingest", "adjudicator", "query", "graph")
    assert [spec.full_name for spec in SERVICES] == [
        "rememberstack.v1.IngestService",
        "rememberstack.v1.AdjudicatorService",
        "rememberstack.v1.QueryService",
        "rememberstack.v1.GraphService",
    ]
    assert (
        QUERY.full_name == query_service_pb2.DESCRIPTOR.services_by_name["QueryService"].full_name
    )


def test_a_service_runs_as_the_package_of_its_short_name() -> None:
    assert service_spec("adjudicator").module == "services.adjudicator"


def test_an_unknown_service_name_is_refused_with_the_known_ones() -> None:
    with pytest.raises(KeyError, match="ingest, adjudicator, query, graph"):
        service_spec("ranking")


def test_the_endpoints_file_has_one_address_per_service() -> None:
    fields = [f.name for f in dataclasses.fields(Endpoints)]
    assert fields == [*SERVICE_NAMES, "database_url"]
