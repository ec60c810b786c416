"""Ingest use cases: documents and versions, deletes, parked releases, re-extraction, readiness."""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from datetime import datetime

from opentelemetry import trace
from opentelemetry.trace import Tracer
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.ingest import claims_repository as claims_repo
from services.ingest import repository as repo
from services.ingest.domain import (
    DeleteResult,
    DocumentInput,
    DocumentPage,
    DocumentView,
    IngestResult,
    ReadinessUpdate,
    ReextractResult,
    ReleaseResult,
    VersionReadiness,
    initial_stage_statuses,
    stored_text,
)
from services.ingest.formats import UndecodableText, classify, normalize_media_type
from services.ingest.pipeline import work_dedupe_key
from services.ingest.runtime import ModelRuntime
from shared.beliefs.support import retire_testimony
from shared.db.change_feed import ChangeFeed
from shared.db.engine import unit_of_work
from shared.db.models import Document, DocumentVersion
from shared.db.queue import dead_letters, enqueue, replay_dead_letters
from shared.errors import FailedPrecondition, FieldViolation, InvalidArgument, NotFound
from shared.pipeline.kinds import EXTRACT_KIND, INGEST_KINDS
from shared.pipeline.payloads import ExtractPayload
from shared.pipeline.stage_repository import create_stages, set_stages
from shared.telemetry.propagation import new_trace_for

__all__ = ["READINESS_CHANNEL", "IngestService"]

logger = logging.getLogger(__name__)

READINESS_CHANNEL = "rememberstack_readiness"
# Streams wake on NOTIFY (migration 0010); the timeouts only cover lost notifications, and
# polling takes over while the feed's connection is down.
_WATCH_SAFETY_SECONDS = 10.0
_WATCH_POLL_SECONDS = 0.5


class IngestService:
    """Every ingest RPC's behaviour; one transaction per call."""

    def __init__(
        self,
        factory: async_sessionmaker[AsyncSession],
        runtime: ModelRuntime,
        readiness_feed: ChangeFeed,
        tracer: Tracer | None = None,
    ) -> None:
        self._factory = factory
        self._runtime = runtime
        self._feed = readiness_feed
        self._tracer = tracer or trace.get_tracer(__name__)

    async def ingest(self, documents: Sequence[DocumentInput]) -> list[IngestResult]:
        """Store every document in one transaction (all or nothing), in request order."""
        async with unit_of_work(self._factory) as session:
            for namespace in sorted({d.namespace for d in documents}):
                await repo.ensure_namespace(session, namespace)
            # Sorted, so two batches touching the same identities cannot deadlock.
            for namespace, identity in sorted({(d.namespace, d.identity_key) for d in documents}):
                await repo.lock_identity(session, namespace, identity)
            own_traces = len(documents) > 1
            return [await self._ingest_one(session, d, own_traces) for d in documents]

    async def _ingest_one(
        self, session: AsyncSession, doc: DocumentInput, own_trace: bool = False
    ) -> IngestResult:
        document = await repo.find_document(session, doc.namespace, doc.identity_key)
        if document is None:
            document = Document(
                namespace=doc.namespace,
                identity_key=doc.identity_key,
                source_kind=doc.source_kind,
                source_ref=doc.source_ref,
                title=doc.title,
                media_type=doc.media_type,
                versioning_mode=doc.versioning_mode or "snapshot",
            )
            await repo.add(session, document)
        else:
            if doc.versioning_mode and doc.versioning_mode != document.versioning_mode:
                raise FailedPrecondition(
                    f"document {document.id} is {document.versioning_mode}; its versioning mode "
                    f"was fixed at creation and cannot become {doc.versioning_mode}",
                    reason="VERSIONING_MODE_FIXED",
                )
            if document.deleted_at is not None:
                document.deleted_at = None
            elif document.latest_version_id is not None:
                latest = await repo.get_version(session, doc.namespace, document.latest_version_id)
                if latest is not None and latest.content_sha256 == doc.content_sha256:
                    return IngestResult(
                        document.id,
                        latest.id,
                        latest.version_number,
                        created=False,
                        parked=latest.parked,
                        content_sha256=latest.content_sha256,
                    )
            if doc.title:
                document.title = doc.title
            document.media_type = doc.media_type
        parked = doc.format_kind == "parked"
        version = DocumentVersion(
            namespace=doc.namespace,
            document_id=document.id,
            version_number=await repo.next_version_number(session, document.id),
            content=doc.content,
            media_type=doc.media_type,
            content_sha256=doc.content_sha256,
            source_modified_time=doc.source_modified_time,
            source_version_ref=doc.source_version_ref,
            parked=parked,
        )
        await repo.add(session, version)
        await repo.set_latest_version(session, document, version.id)
        await create_stages(
            session, doc.namespace, version.id, initial_stage_statuses(doc.format_kind)
        )
        if not parked:
            await self._enqueue_extract(
                session, doc.namespace, version.id, reextract=False, own_trace=own_trace
            )
        return IngestResult(
            document.id, version.id, version.version_number, True, parked, doc.content_sha256
        )

    async def _enqueue_extract(
        self,
        session: AsyncSession,
        namespace: str,
        version_id: uuid.UUID,
        *,
        reextract: bool,
        own_trace: bool = False,
    ) -> bool:
        """Queue the version's extraction. With `own_trace` (one of a batch request's many
        versions) its pipeline gets a trace of its own, linked to the request's span."""
        with contextlib.ExitStack() as scope:
            if own_trace:
                attributes = {
                    "rememberstack.namespace": namespace,
                    "rememberstack.version_id": str(version_id),
                }
                scope.enter_context(new_trace_for(self._tracer, "document version", attributes))
            item = await enqueue(
                session,
                namespace,
                EXTRACT_KIND,
                ExtractPayload(version_id, reextract).encode(),
                dedupe_key=work_dedupe_key(version_id, self._runtime.extractor_key),
                version_id=version_id,
            )
        return item is not None

    async def get_document(self, namespace: str, document_id: uuid.UUID) -> DocumentView:
        async with unit_of_work(self._factory) as session:
            view = await repo.document_view_by_id(session, namespace, document_id)
        if view is None:
            raise NotFound(f"document {document_id} not found")
        return view

    async def list_documents(
        self,
        namespace: str,
        *,
        page_size: int,
        after: tuple[datetime, uuid.UUID] | None,
        include_deleted: bool,
    ) -> DocumentPage:
        async with unit_of_work(self._factory) as session:
            return await repo.list_documents(
                session, namespace, limit=page_size, after=after, include_deleted=include_deleted
            )

    async def delete_document(
        self, namespace: str, document_id: uuid.UUID, *, decided_by: str
    ) -> DeleteResult:
        """Retire the document's testimony; ``decided_by`` (the caller) goes on the
        transcripts of the facts this closes or weakens."""
        async with unit_of_work(self._factory) as session:
            document = await repo.get_document(session, namespace, document_id)
            if document is None:
                raise NotFound(f"document {document_id} not found")
            await repo.lock_identity(session, namespace, document.identity_key)
            await repo.reload(session, document)
            if document.deleted_at is not None:
                raise NotFound(f"document {document_id} is already deleted")
            claim_ids = await claims_repo.current_claims_of_document(
                session, namespace, document.id
            )
            counts = await retire_testimony(
                session,
                namespace,
                claim_ids,
                "version_deleted",
                version_id=document.latest_version_id,
                decided_by=decided_by,
            )
            await repo.mark_deleted(session, document.id)
        return DeleteResult(
            counts.claims_retired, counts.relations_closed, counts.observations_closed
        )

    async def release_parked(
        self, namespace: str, version_id: uuid.UUID, media_type: str | None
    ) -> ReleaseResult:
        async with unit_of_work(self._factory) as session:
            version = await repo.get_version(session, namespace, version_id)
            if version is None:
                raise NotFound(f"version {version_id} not found")
            document = await repo.get_document(session, namespace, version.document_id)
            assert document is not None
            await repo.lock_identity(session, namespace, document.identity_key)
            await repo.reload(session, version)
            if not version.parked:
                raise FailedPrecondition(
                    f"version {version_id} is not parked", reason="VERSION_NOT_PARKED"
                )
            if document.deleted_at is not None:
                raise FailedPrecondition(
                    f"document {document.id} is deleted", reason="DOCUMENT_DELETED"
                )
            new_type = normalize_media_type(media_type) if media_type else version.media_type
            kind = classify(new_type)
            if kind != "parked":
                try:
                    text = stored_text(version.content, new_type)
                except UndecodableText as exc:
                    raise InvalidArgument(
                        [FieldViolation("media_type", f"content is not {new_type} text: {exc}")]
                    ) from exc
                kind = classify(new_type, text)
            version.media_type = new_type
            if kind == "parked":
                return ReleaseResult(version.id, parked=True)
            version.parked = False
            document.media_type = new_type
            await set_stages(session, namespace, version.id, initial_stage_statuses(kind))
            await self._enqueue_extract(session, namespace, version.id, reextract=False)
            return ReleaseResult(version.id, parked=False)

    async def reextract(self, namespace: str, document_ids: Sequence[uuid.UUID]) -> ReextractResult:
        """Queue the latest version of each document for extraction with the current extractor;
        versions already extracted with it are left alone (their item already exists)."""
        name, version_string = self._runtime.extractor_key
        async with unit_of_work(self._factory) as session:
            documents = await repo.live_documents(session, namespace, document_ids)
            missing = set(document_ids) - {d.id for d in documents}
            if missing:
                raise NotFound("documents not found: " + ", ".join(sorted(str(m) for m in missing)))
            queued: list[uuid.UUID] = []
            for document in documents:
                if document.latest_version_id is None:
                    continue
                version = await repo.get_version(session, namespace, document.latest_version_id)
                if version is None or version.parked or version.content_text is None:
                    continue
                if classify(version.media_type, version.content_text) not in (
                    "prose",
                    "conversation",
                ):
                    continue
                if await self._enqueue_extract(
                    session, namespace, version.id, reextract=True, own_trace=len(documents) > 1
                ):
                    await set_stages(
                        session,
                        namespace,
                        version.id,
                        {"extract": "pending", "embed": "pending", "adjudicate": "pending"},
                        attempts=0,
                    )
                    queued.append(version.id)
        return ReextractResult(queued, f"{name}/{version_string}")

    async def replay_dead_letters(self, namespace: str, version_ids: Sequence[uuid.UUID]) -> int:
        async with unit_of_work(self._factory) as session:
            items = await dead_letters(
                session, namespace, INGEST_KINDS, list(version_ids) if version_ids else None
            )
            ids: list[uuid.UUID] | None = None
            if version_ids:
                ids = [item_id for item_id, _ in items]
                if not ids:
                    return 0
            replayed_versions = {v for _, v in items if v is not None}
            count = await replay_dead_letters(session, namespace, kinds=INGEST_KINDS, ids=ids)
            for version_id in replayed_versions:
                await set_stages(
                    session,
                    namespace,
                    version_id,
                    {"convert": "pending", "chunk": "pending", "extract": "pending"}
                    | {"embed": "pending"},
                    attempts=0,
                    only_from=("dead_letter", "failed"),
                )
        return count

    async def readiness(
        self, namespace: str, version_ids: Sequence[uuid.UUID]
    ) -> list[VersionReadiness]:
        async with unit_of_work(self._factory) as session:
            found = await repo.readiness(session, namespace, version_ids)
        missing = [str(v) for v in version_ids if v not in found]
        if missing:
            raise NotFound("versions not found: " + ", ".join(missing))
        return [found[v] for v in version_ids]

    async def watch_readiness(
        self, namespace: str, version_ids: Sequence[uuid.UUID]
    ) -> AsyncIterator[ReadinessUpdate]:
        """Everything first, then only versions whose state changed, until all are settled.

        Reads again only when a stage row of one of these versions was written (or, as a
        safety net, every few seconds), so an idle stream costs nothing.
        """
        sent: dict[uuid.UUID, VersionReadiness] = {}
        with self._feed.subscribe([str(v) for v in version_ids]) as changes:
            while True:
                changes.clear()
                current = await self.readiness(namespace, version_ids)
                changed = [v for v in current if sent.get(v.version_id) != v]
                settled = all(v.settled for v in current)
                if changed or settled:
                    yield ReadinessUpdate(changed, all_settled=settled)
                    sent.update((v.version_id, v) for v in changed)
                if settled:
                    return
                await changes.wait(
                    _WATCH_SAFETY_SECONDS if self._feed.connected else _WATCH_POLL_SECONDS
                )
