"""A credential for tenant A can never see or change tenant B: not by naming B's namespace,
not by passing B's ids into its own namespace, not by replaying B's page tokens."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from rememberstack.v1 import ingest_service_pb2
from sqlalchemy import text

from tests.security.conftest import Secured
from tests.support.rpcs import ALL_RPCS, Rpc, invoke

B_SECRET = "Zanzibar"
B_TEXTS = [
    f"Mira Okafor runs the {B_SECRET} project. Mira Okafor hired Tomas Reyes in May 2026.",
    f"Tomas Reyes leads the {B_SECRET} launch. Tomas Reyes works with Mira Okafor.",
]
A_TEXT = "Ravi Patel works on the billing migration. Dana Kim leads payments."

# Which of B's ids goes into a request field, by the field's name.
_KIND_OF_FIELD = {
    "document_id": "documents",
    "document_ids": "documents",
    "version_id": "document_versions",
    "version_ids": "document_versions",
    "chunk_id": "chunks",
    "claim_ids": "claims",
    "fact_id": "facts",
    "fact_ids": "facts",
    "group_id": "contradiction_groups",
    "merge_id": "merge_events",
    "work_item_ids": "work_items",
}


async def _ingest(secured: Secured, key: str, namespace: str, body: str, ref: str) -> None:
    rpc = next(r for r in ALL_RPCS if r.name == "IngestDocument")
    request = ingest_service_pb2.IngestDocumentRequest(
        namespace=namespace,
        content=body.encode(),
        media_type="text/plain",
        source_kind="notes",
        source_ref=ref,
    )
    code, _, error = await invoke(secured.channels["ingest"], rpc, [request], token=key)
    assert code == grpc.StatusCode.OK, error


async def _settled(db_engine: Any, namespaces: list[str]) -> None:
    async with asyncio.timeout(300):
        while True:
            async with db_engine.connect() as connection:
                busy = (
                    await connection.execute(
                        text(
                            "SELECT count(*) FROM work_items WHERE namespace = ANY(:ns)"
                            " AND status IN ('pending', 'failed', 'running')"
                        ),
                        {"ns": namespaces},
                    )
                ).scalar_one()
            if not busy:
                return
            await asyncio.sleep(0.3)


async def _ids_of(db_engine: Any, namespace: str) -> dict[str, list[str]]:
    tables = sorted({*_KIND_OF_FIELD.values(), "entities"})
    ids: dict[str, list[str]] = {}
    async with db_engine.connect() as connection:
        for table in tables:
            rows = await connection.execute(
                text(f"SELECT id::text FROM {table} WHERE namespace = :ns ORDER BY id"),
                {"ns": namespace},
            )
            ids[table] = [row[0] for row in rows]
    return ids


async def _digest(db_engine: Any, namespace: str) -> dict[str, str]:
    from tests.security.server_thread import _NAMESPACED

    digests = {}
    async with db_engine.connect() as connection:
        for table in _NAMESPACED:
            digests[table] = (
                await connection.execute(
                    text(
                        f"SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), ''))"
                        f" FROM {table} t WHERE t.namespace = :ns"
                    ),
                    {"ns": namespace},
                )
            ).scalar_one()
    return digests


def _fill_ids(message: Any, b_ids: dict[str, list[str]], depth: int = 0) -> None:
    """Put one of B's ids into every id field of ``message`` (recursively)."""
    for fd in message.DESCRIPTOR.fields:
        if fd.type == fd.TYPE_MESSAGE and not fd.is_repeated and depth < 2:
            if fd.message_type.full_name != "google.protobuf.Timestamp":
                _fill_ids(getattr(message, fd.name), b_ids, depth + 1)
            continue
        if fd.type != fd.TYPE_STRING or not fd.name.endswith(("_id", "_ids")):
            continue
        kind = _KIND_OF_FIELD.get(fd.name, "entities")
        pool = b_ids.get(kind) or []
        if not pool:
            continue
        if fd.is_repeated:
            getattr(message, fd.name).extend(pool[:2])
        else:
            setattr(message, fd.name, pool[0])


@pytest.fixture(scope="module")
async def tenants(secured: Secured, db_engine: Any) -> dict[str, Any]:
    key_a, key_b = secured.key("tenant-a"), secured.key("tenant-b")
    await _ingest(secured, key_a, secured.tenant_a, A_TEXT, "a-1")
    for index, body in enumerate(B_TEXTS):
        await _ingest(secured, key_b, secured.tenant_b, body, f"b-{index}")
    await _settled(db_engine, [secured.tenant_a, secured.tenant_b])
    b_ids = await _ids_of(db_engine, secured.tenant_b)
    assert b_ids["entities"] and b_ids["claims"], "tenant B's documents were not processed"
    return {"a": key_a, "b": key_b, "b_ids": b_ids}


# Words of B's documents that no request of A's ever sends (an echo of what A sent is no leak).
B_UNSENT = ("Tomas", "Reyes", "hired")


def _leaks(response: Any, b_ids: dict[str, list[str]], request: Any = None) -> list[str]:
    shown, sent = str(response), str(request) if request is not None else ""
    every_b_id = [i for ids in b_ids.values() for i in ids]
    return [i for i in every_b_id if i in shown and i not in sent] + [
        word for word in B_UNSENT if word in shown
    ]


@pytest.mark.parametrize("rpc", ALL_RPCS, ids=lambda rpc: rpc.name)
async def test_tenant_a_passing_b_ids_in_its_own_namespace_sees_and_changes_nothing_of_b(
    secured, db_engine, tenants, rpc: Rpc
):
    before = await _digest(db_engine, secured.tenant_b)
    request = rpc.request_type()
    target = request
    if rpc.name == "IngestDocuments":
        target = request.document
        target.SetInParent()
    target.namespace = secured.tenant_a
    for half in ("facts", "claims_and_sources"):
        if half in rpc.request_type.DESCRIPTOR.fields_by_name:
            getattr(request, half).query = B_SECRET
    for name in ("query", "name", "property_query"):
        if name in rpc.request_type.DESCRIPTOR.fields_by_name:
            setattr(request, name, f"{B_SECRET} Mira Okafor")
    _fill_ids(target, tenants["b_ids"])
    code, response, _ = await invoke(
        secured.channels[rpc.service], rpc, [request], token=tenants["a"]
    )
    assert code != grpc.StatusCode.PERMISSION_DENIED  # its own namespace: allowed, finds nothing
    if response is not None:
        assert _leaks(response, tenants["b_ids"], request) == []
    await _settled(db_engine, [secured.tenant_a, secured.tenant_b])
    assert await _digest(db_engine, secured.tenant_b) == before


async def test_b_page_token_replayed_by_a_lists_only_a_documents(secured, tenants):
    rpc = next(r for r in ALL_RPCS if r.name == "ListDocuments")
    first = rpc.request_type(namespace=secured.tenant_b, page_size=1)
    code, page, _ = await invoke(secured.channels["ingest"], rpc, [first], token=tenants["b"])
    assert code == grpc.StatusCode.OK and page.next_page_token
    replay = rpc.request_type(namespace=secured.tenant_a, page_token=page.next_page_token)
    code, listed, _ = await invoke(secured.channels["ingest"], rpc, [replay], token=tenants["a"])
    assert code in (grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT)
    if listed is not None:
        assert _leaks(listed, tenants["b_ids"]) == []
        assert all(d.source_ref.startswith("a-") for d in listed.documents)


async def test_b_continuation_replayed_by_a_in_the_graph_reveals_nothing(secured, tenants):
    rpc = next(r for r in ALL_RPCS if r.name == "GraphNeighborhood")
    for entity in tenants["b_ids"]["entities"]:
        request = rpc.request_type(namespace=secured.tenant_b, entity_id=entity, page_size=1)
        code, page, _ = await invoke(secured.channels["graph"], rpc, [request], token=tenants["b"])
        if code == grpc.StatusCode.OK and page.truncation.continuation:
            break
    else:
        pytest.skip("tenant B's graph has no entity with more than one neighbour")
    replay = rpc.request_type(
        namespace=secured.tenant_a,
        entity_id=entity,
        page_size=1,
        page_token=page.truncation.continuation,
    )
    code, answer, _ = await invoke(secured.channels["graph"], rpc, [replay], token=tenants["a"])
    assert code in (grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND)
    if answer is not None:
        assert _leaks(answer, tenants["b_ids"]) == []
