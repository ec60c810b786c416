"""Every request is checked before a servicer sees it: control characters, lengths, times."""

from __future__ import annotations

from google.protobuf.timestamp_pb2 import Timestamp
from rememberstack.v1 import common_pb2, graph_service_pb2, ingest_service_pb2, query_service_pb2

from shared.grpc.request_guard import inspect_request


def _fields(message) -> dict[str, str]:
    return {v.field: v.description for v in inspect_request(message).violations.items}


def test_nul_in_any_string_field_is_named():
    request = ingest_service_pb2.IngestDocumentRequest(
        namespace="a\x00b", media_type="text/plain\x00", title="ok", source_ref="r\x07"
    )
    assert set(_fields(request)) == {"namespace", "media_type", "source_ref"}
    assert "U+0000 at 1" in _fields(request)["namespace"]


def test_prose_fields_keep_tabs_and_newlines_but_not_other_controls():
    fine = query_service_pb2.FactsContextRequest(query="who\tworks\non\r\nbilling?")
    assert _fields(fine) == {}
    bad = query_service_pb2.FactsContextRequest(query="who\x1bworks", predicate="works_on\n")
    assert set(_fields(bad)) == {"query", "predicate"}


def test_nested_and_repeated_fields_have_their_paths():
    request = query_service_pb2.CombinedContextRequest(
        facts=query_service_pb2.FactsContextRequest(entity_ids=["ok", "x\x00"]),
    )
    assert set(_fields(request)) == {"facts.entity_ids[1]"}


def test_every_string_field_is_bounded():
    request = ingest_service_pb2.IngestDocumentRequest(media_type="text/" + "x" * 100_000)
    assert "at most 255" in _fields(request)["media_type"]
    request = ingest_service_pb2.GetDocumentRequest(document_id="a" * 65)
    assert set(_fields(request)) == {"document_id"}


def test_timestamps_outside_years_1_to_9999_or_bad_nanos_are_refused():
    request = graph_service_pb2.GraphNeighborhoodRequest(
        valid_at=Timestamp(seconds=253_402_300_800), believed_at=Timestamp(seconds=0, nanos=-1)
    )
    assert set(_fields(request)) == {"valid_at", "believed_at"}
    scope = common_pb2.TimeScope(at=common_pb2.AtScope(valid_at=Timestamp(seconds=-(10**12))))
    assert set(_fields(query_service_pb2.FactsContextRequest(time_scope=scope))) == {
        "time_scope.at.valid_at"
    }


def test_namespaces_are_collected_from_every_level_empty_included():
    request = query_service_pb2.CombinedContextRequest(
        namespace="", facts=query_service_pb2.FactsContextRequest(namespace="b")
    )
    assert inspect_request(request).namespaces == {"", "b"}


def test_an_empty_nested_namespace_is_its_enclosing_requests():
    request = query_service_pb2.CombinedContextRequest(
        namespace="a", facts=query_service_pb2.FactsContextRequest(query="x")
    )
    assert inspect_request(request).namespaces == {"a"}
