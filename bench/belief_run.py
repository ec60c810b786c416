"""Feed an arrival order of documents through the public ingest API and wait for the beliefs.

Shared by the order-independence tests and `bench/entity_stress.py`: documents go in one
`IngestDocument` call at a time, in the order given (the order the system sees them arrive
in); a delete waits until its document's own processing is over, so that it removes beliefs
the document had formed (a delete of a document still in the pipeline would only skip it);
`wait_drained` returns once no work of the namespace is left in the queue.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from rememberstack.v1 import ingest_service_pb2 as ingest_pb
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from shared.proto_convert import timestamp

__all__ = [
    "Document",
    "DrainReport",
    "RunRecord",
    "apply_operations",
    "ingest_request",
    "wait_drained",
    "wait_version_settled",
]


class Document(Protocol):
    """What the ingest request needs of a generated document."""

    @property
    def source_ref(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def media_type(self) -> str: ...
    @property
    def body(self) -> str: ...
    @property
    def said_on(self) -> datetime: ...


class Operation(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def index(self) -> int: ...


_OPEN_ITEMS = text(
    "SELECT count(*) FROM work_items WHERE namespace = :ns"
    " AND status IN ('pending', 'running', 'failed')"
)
_OPEN_STAGES = text(
    "SELECT count(*) FROM version_stages WHERE namespace = :ns"
    " AND status IN ('pending', 'running', 'failed')"
)
_VERSION_OPEN = text(
    "SELECT count(*) FROM version_stages WHERE version_id = CAST(:v AS uuid)"
    " AND status IN ('pending', 'running', 'failed')"
)
_DEAD = text(
    "SELECT kind, last_error FROM work_items WHERE namespace = :ns AND status = 'dead_letter'"
)
_RETRIED = text(
    "SELECT count(*) FROM work_items WHERE namespace = :ns AND kind = 'adjudicate.version'"
    " AND attempts > 1"
)


@dataclass
class DrainReport:
    """How the namespace's backlog ended."""

    seconds: float
    dead_letters: list[tuple[str, str | None]] = field(default_factory=list)
    retried_adjudications: int = 0


@dataclass
class RunRecord:
    """Ids the ingest API gave each document of one run."""

    document_ids: dict[int, str] = field(default_factory=dict)
    version_ids: dict[int, str] = field(default_factory=dict)
    delete_counts: dict[int, tuple[int, int, int]] = field(default_factory=dict)


def ingest_request(namespace: str, doc: Document) -> ingest_pb.IngestDocumentRequest:
    return ingest_pb.IngestDocumentRequest(
        namespace=namespace,
        content=doc.body.encode(),
        media_type=doc.media_type,
        source_kind="generated",
        source_ref=doc.source_ref,
        title=doc.title,
        source_modified_time=timestamp(doc.said_on),
    )


async def wait_version_settled(engine: AsyncEngine, version_id: str, within_seconds: float) -> None:
    """Until every stage of one version finished (succeeded, skipped or dead-lettered)."""
    deadline = time.monotonic() + within_seconds
    while True:
        async with engine.connect() as conn:
            if not (await conn.execute(_VERSION_OPEN, {"v": version_id})).scalar_one():
                return
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"version {version_id} still in the pipeline after {within_seconds} s"
            )
        await asyncio.sleep(0.2)


async def apply_operations(
    ingest: Any,
    engine: AsyncEngine,
    namespace: str,
    documents: Sequence[Document],
    steps: Sequence[Operation],
    *,
    within_seconds: float = 600.0,
) -> RunRecord:
    """Send each step to the ingest stub (an `IngestServiceStub`) in order."""
    record = RunRecord()
    for step in steps:
        if step.kind == "ingest":
            reply = await ingest.IngestDocument(ingest_request(namespace, documents[step.index]))
            record.document_ids[step.index] = reply.document_id
            record.version_ids[step.index] = reply.version_id
            continue
        await wait_version_settled(engine, record.version_ids[step.index], within_seconds)
        deleted = await ingest.DeleteDocument(
            ingest_pb.DeleteDocumentRequest(
                namespace=namespace, document_id=record.document_ids[step.index]
            )
        )
        record.delete_counts[step.index] = (
            deleted.claims_retired,
            deleted.relations_closed,
            deleted.observations_closed,
        )
    return record


async def wait_drained(
    engine: AsyncEngine, namespace: str, within_seconds: float = 900.0
) -> DrainReport:
    """Until the namespace has no pending, running or retrying work item and no unfinished
    stage; raises TimeoutError past `within_seconds`."""
    started = time.monotonic()
    while True:
        async with engine.connect() as conn:
            items = (await conn.execute(_OPEN_ITEMS, {"ns": namespace})).scalar_one()
            stages = (await conn.execute(_OPEN_STAGES, {"ns": namespace})).scalar_one()
            if not items and not stages:
                dead = [
                    (r.kind, r.last_error) for r in await conn.execute(_DEAD, {"ns": namespace})
                ]
                retried = (await conn.execute(_RETRIED, {"ns": namespace})).scalar_one()
                return DrainReport(round(time.monotonic() - started, 1), dead, retried)
        if time.monotonic() - started > within_seconds:
            raise TimeoutError(f"{items} work items and {stages} stages still open in {namespace}")
        await asyncio.sleep(0.25)
