"""Bad ingest input is refused with INVALID_ARGUMENT naming the field, and stores nothing."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from rememberstack.v1 import document_pb2, ingest_service_pb2

from shared.grpc.errors import parse_rich_error

pb = ingest_service_pb2
LIVING = document_pb2.VERSIONING_MODE_LIVING


def ts(seconds: int, nanos: int = 0) -> Timestamp:
    return Timestamp(seconds=seconds, nanos=nanos)


CASES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("empty content", {"content": b""}, ["content"]),
    ("over the size cap", {"content": b"a" * (64 * 1024 + 1)}, ["content"]),
    ("undecodable text", {"content": b"\xff\xfe\xfa bad"}, ["content"]),
    ("whitespace only", {"content": b" \n\n  "}, ["content"]),
    ("NUL in text", {"content": b"Ravi works\x00 on billing."}, ["content"]),
    ("NUL in the title", {"title": "Notes\x00"}, ["title"]),
    ("media type too long", {"media_type": "text/" + "x" * 100_000}, ["media_type"]),
    ("missing media type", {"media_type": ""}, ["media_type"]),
    ("source kind without ref", {"source_kind": "wiki"}, ["source_ref"]),
    ("source ref without kind", {"source_ref": "page-1"}, ["source_kind"]),
    ("living without source pair", {"versioning_mode": LIVING}, ["versioning_mode"]),
    ("unknown versioning mode", {"versioning_mode": 9}, ["versioning_mode"]),
    ("time before 1900", {"source_modified_time": ts(-2_300_000_000)}, ["source_modified_time"]),
    ("time after 2200", {"source_modified_time": ts(7_300_000_000)}, ["source_modified_time"]),
    ("nanos overflow", {"source_modified_time": ts(0, 1_000_000_000)}, ["source_modified_time"]),
    (
        "malformed conversation",
        {"content": b"Dana: hi there", "media_type": "text/x-rememberstack-conversation"},
        ["content"],
    ),
    (
        "several problems at once",
        {"content": b"", "source_kind": "wiki", "versioning_mode": LIVING},
        ["content", "source_ref", "versioning_mode"],
    ),
]


@pytest.mark.parametrize(("case", "fields", "expected"), CASES, ids=[c[0] for c in CASES])
async def test_bad_document_is_invalid_argument_naming_the_field_and_stores_nothing(
    ingest, namespace: str, case: str, fields: dict[str, Any], expected: list[str]
) -> None:
    request = {"namespace": namespace, "content": b"Valid text.", "media_type": "text/plain"}
    request.update(fields)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await ingest.stub.IngestDocument(pb.IngestDocumentRequest(**request))
    error = parse_rich_error(caught.value)
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert sorted({v.field for v in error.field_violations}) == sorted(expected)
    for table in ("documents", "document_versions", "work_items"):
        rows = await ingest.rows(f"SELECT 1 FROM {table} WHERE namespace = :ns", ns=namespace)
        assert rows == [], table


async def test_readiness_of_an_unknown_version_is_not_found(ingest, namespace: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await ingest.stub.GetReadiness(
            pb.GetReadinessRequest(
                namespace=namespace, version_ids=["00000000-0000-0000-0000-000000000001"]
            )
        )
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


async def test_readiness_without_ids_or_with_a_malformed_id_is_invalid(
    ingest, namespace: str
) -> None:
    for ids, field in (([], "version_ids"), (["nope"], "version_ids[0]")):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await ingest.stub.GetReadiness(
                pb.GetReadinessRequest(namespace=namespace, version_ids=ids)
            )
        error = parse_rich_error(caught.value)
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT
        assert [v.field for v in error.field_violations] == [field]


async def test_delete_of_an_unknown_document_is_not_found(ingest, namespace: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await ingest.stub.DeleteDocument(
            pb.DeleteDocumentRequest(
                namespace=namespace, document_id="00000000-0000-0000-0000-000000000002"
            )
        )
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
