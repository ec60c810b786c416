"""Documents and versions over real gRPC and Postgres: identity, idempotency, revert, delete,
listing, parked media types and batch ingest."""

from __future__ import annotations

from datetime import UTC, datetime

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from rememberstack.v1 import document_pb2, ingest_service_pb2

from shared.grpc.errors import parse_rich_error

pb = ingest_service_pb2
NOTE = "Ravi approved the budget on 2026-01-12. Dana leads the billing team."


def stamp(year: int, month: int, day: int) -> Timestamp:
    ts = Timestamp()
    ts.FromDatetime(datetime(year, month, day, tzinfo=UTC))
    return ts


async def test_same_bytes_twice_creates_nothing_new(ingest, namespace: str) -> None:
    first = await ingest.ingest(namespace, NOTE)
    second = await ingest.ingest(namespace, NOTE)
    assert first.created and not second.created
    assert (second.document_id, second.version_id) == (first.document_id, first.version_id)
    assert second.version_number == 1


async def test_source_pair_identity_appends_versions_and_a_revert_is_a_new_version(
    ingest, namespace: str
) -> None:
    pair = {"source_kind": "wiki", "source_ref": "page-1"}
    v1 = await ingest.ingest(namespace, "First text of the page.", **pair)
    v2 = await ingest.ingest(namespace, "Second text of the page.", **pair)
    v3 = await ingest.ingest(namespace, "First text of the page.", **pair)
    assert v1.document_id == v2.document_id == v3.document_id
    assert [v1.version_number, v2.version_number, v3.version_number] == [1, 2, 3]
    assert v3.created and v3.version_id != v1.version_id
    assert v3.content_sha256 == v1.content_sha256


async def test_content_identity_makes_different_bytes_different_documents(
    ingest, namespace: str
) -> None:
    a = await ingest.ingest(namespace, "Alpha document body.")
    b = await ingest.ingest(namespace, "Beta document body.")
    assert a.document_id != b.document_id


async def test_get_document_returns_latest_version_and_its_fields(ingest, namespace: str) -> None:
    pair = {"source_kind": "drive", "source_ref": "doc-7", "title": "Plan"}
    await ingest.ingest(namespace, "One.", **pair)
    latest = await ingest.ingest(
        namespace,
        "Two.",
        source_modified_time=stamp(2026, 1, 15),
        source_version_ref="etag-2",
        **pair,
    )
    reply = await ingest.stub.GetDocument(
        pb.GetDocumentRequest(namespace=namespace, document_id=latest.document_id)
    )
    doc = reply.document
    assert (doc.source_kind, doc.source_ref, doc.title) == ("drive", "doc-7", "Plan")
    assert doc.version_count == 2
    assert doc.versioning_mode == document_pb2.VERSIONING_MODE_SNAPSHOT
    assert doc.latest_version.version_id == latest.version_id
    assert doc.latest_version.source_version_ref == "etag-2"
    assert doc.latest_version.source_modified_time.ToDatetime(UTC) == datetime(
        2026, 1, 15, tzinfo=UTC
    )
    assert not doc.HasField("deleted_at")


async def test_versioning_mode_is_fixed_at_creation(ingest, namespace: str) -> None:
    pair = {"source_kind": "wiki", "source_ref": "fixed"}
    await ingest.ingest(
        namespace, "Living text.", versioning_mode=document_pb2.VERSIONING_MODE_LIVING, **pair
    )
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await ingest.ingest(
            namespace, "Other text.", versioning_mode=document_pb2.VERSIONING_MODE_SNAPSHOT, **pair
        )
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    unchanged = await ingest.ingest(namespace, "Other text.", **pair)
    assert unchanged.version_number == 2  # an unspecified mode keeps the fixed one


async def test_delete_reports_retired_claims_and_second_delete_is_not_found(
    ingest, namespace: str
) -> None:
    result = await ingest.ingest(namespace, NOTE, source_modified_time=stamp(2026, 1, 15))
    states = await ingest.settle(namespace, [result.version_id])
    claims = states[result.version_id].claim_count
    assert claims >= 2
    request = pb.DeleteDocumentRequest(namespace=namespace, document_id=result.document_id)
    deleted = await ingest.stub.DeleteDocument(request)
    assert deleted.claims_retired == claims
    assert (deleted.relations_closed, deleted.observations_closed) == (0, 0)
    rows = await ingest.rows(
        "SELECT is_current_testimony, currency_reason FROM claims WHERE namespace = :ns",
        ns=namespace,
    )
    assert rows and all(r == (False, "version_deleted") for r in rows)
    events = await ingest.rows(
        "SELECT event, count(*) FROM testimony_events WHERE namespace = :ns GROUP BY event",
        ns=namespace,
    )
    assert dict(events) == {"asserted": claims, "version_deleted": claims}
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await ingest.stub.DeleteDocument(request)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND


async def test_ingesting_a_deleted_identity_revives_it_with_a_new_version(
    ingest, namespace: str
) -> None:
    first = await ingest.ingest(namespace, "Revived body.")
    await ingest.stub.DeleteDocument(
        pb.DeleteDocumentRequest(namespace=namespace, document_id=first.document_id)
    )
    again = await ingest.ingest(namespace, "Revived body.")
    assert again.created and again.document_id == first.document_id
    assert again.version_number == 2
    doc = await ingest.stub.GetDocument(
        pb.GetDocumentRequest(namespace=namespace, document_id=first.document_id)
    )
    assert not doc.document.HasField("deleted_at")


async def test_list_documents_pages_newest_first_with_a_stable_cursor(
    ingest, namespace: str
) -> None:
    ids = [(await ingest.ingest(namespace, f"Document number {i}.")).document_id for i in range(5)]
    await ingest.stub.DeleteDocument(
        pb.DeleteDocumentRequest(namespace=namespace, document_id=ids[0])
    )
    seen: list[str] = []
    token = ""
    while True:
        page = await ingest.stub.ListDocuments(
            pb.ListDocumentsRequest(namespace=namespace, page_size=2, page_token=token)
        )
        seen.extend(d.document_id for d in page.documents)
        token = page.next_page_token
        if not token:
            break
    assert seen == list(reversed(ids[1:]))
    everything = await ingest.stub.ListDocuments(
        pb.ListDocumentsRequest(namespace=namespace, include_deleted=True)
    )
    assert [d.document_id for d in everything.documents] == list(reversed(ids))


async def test_list_documents_rejects_a_forged_page_token(ingest, namespace: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await ingest.stub.ListDocuments(
            pb.ListDocumentsRequest(namespace=namespace, page_token="not-a-token")
        )
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_unknown_media_type_is_parked_then_released_and_processed(
    ingest, namespace: str
) -> None:
    parked = await ingest.ingest(namespace, NOTE, media_type="application/x-mystery")
    assert parked.created and parked.parked
    states = await ingest.settle(namespace, [parked.version_id])
    assert states[parked.version_id].claim_count == 0
    assert {s.status for s in states[parked.version_id].stages} == {
        document_pb2.STAGE_STATUS_SKIPPED
    }
    still = await ingest.stub.ReleaseParkedVersion(
        pb.ReleaseParkedVersionRequest(namespace=namespace, version_id=parked.version_id)
    )
    assert still.parked
    released = await ingest.stub.ReleaseParkedVersion(
        pb.ReleaseParkedVersionRequest(
            namespace=namespace, version_id=parked.version_id, media_type="text/plain"
        )
    )
    assert not released.parked
    states = await ingest.settle(namespace, [parked.version_id])
    assert states[parked.version_id].ready and states[parked.version_id].claim_count >= 2
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await ingest.stub.ReleaseParkedVersion(
            pb.ReleaseParkedVersionRequest(namespace=namespace, version_id=parked.version_id)
        )
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION


async def test_chunk_only_format_is_chunked_and_embedded_without_claims(
    ingest, namespace: str
) -> None:
    result = await ingest.ingest(
        namespace, '{"owner": "Dana", "team": "billing"}', media_type="application/json"
    )
    states = await ingest.settle(namespace, [result.version_id])
    state = states[result.version_id]
    statuses = {s.stage: s.status for s in state.stages}
    assert state.ready and state.claim_count == 0
    assert statuses[document_pb2.STAGE_EXTRACT] == document_pb2.STAGE_STATUS_SKIPPED
    assert statuses[document_pb2.STAGE_EMBED] == document_pb2.STAGE_STATUS_SUCCEEDED
    chunks = await ingest.rows(
        "SELECT embedding IS NOT NULL FROM chunks WHERE namespace = :ns", ns=namespace
    )
    assert chunks == [(True,)]


async def test_batch_ingest_stores_every_document_in_order(ingest, namespace: str) -> None:
    bodies = ["Batch one says hello to Mia.", "Batch two: Omar moved to Lisbon.", NOTE]

    async def requests():  # type: ignore[no-untyped-def]
        for body in bodies:
            yield pb.IngestDocumentsRequest(
                document=pb.IngestDocumentRequest(
                    namespace=namespace, content=body.encode(), media_type="text/plain"
                )
            )

    reply = await ingest.stub.IngestDocuments(requests())
    assert [r.created for r in reply.results] == [True, True, True]
    states = await ingest.settle(namespace, [r.version_id for r in reply.results])
    assert all(s.ready for s in states.values())
    stored = await ingest.rows(
        "SELECT convert_from(content, 'UTF8') FROM document_versions WHERE namespace = :ns "
        "ORDER BY ingested_at",
        ns=namespace,
    )
    assert sorted(r[0] for r in stored) == sorted(bodies)


async def test_batch_with_one_bad_document_stores_nothing_and_names_it(
    ingest, namespace: str
) -> None:
    async def requests():  # type: ignore[no-untyped-def]
        yield pb.IngestDocumentsRequest(
            document=pb.IngestDocumentRequest(
                namespace=namespace, content=b"Fine text.", media_type="text/plain"
            )
        )
        yield pb.IngestDocumentsRequest(
            document=pb.IngestDocumentRequest(
                namespace=namespace, content=b"x", media_type="text/plain", source_kind="wiki"
            )
        )

    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await ingest.stub.IngestDocuments(requests())
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    fields = [v.field for v in parse_rich_error(caught.value).field_violations]
    assert fields == ["documents[1].source_ref"]
    assert await ingest.rows("SELECT 1 FROM documents WHERE namespace = :ns", ns=namespace) == []
