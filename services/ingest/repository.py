"""SQL for documents, versions and readiness (claims: claims_repository; writing stage rows:
shared.pipeline.stage_repository)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, func, select, tuple_, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from services.ingest.domain import (
    DocumentPage,
    DocumentView,
    StageState,
    VersionReadiness,
    VersionView,
)
from shared.db.models import Document, DocumentVersion, Namespace, VersionClaim, VersionStage
from shared.db.queue import dead_lettered_versions
from shared.pipeline.stages import PIPELINE_STAGES

__all__ = [
    "add",
    "document_view",
    "document_view_by_id",
    "ensure_namespace",
    "find_document",
    "get_document",
    "get_version",
    "list_documents",
    "live_documents",
    "lock_identity",
    "mark_deleted",
    "next_version_number",
    "readiness",
    "reload",
    "set_latest_version",
    "version_view",
]


async def ensure_namespace(session: AsyncSession, namespace: str) -> None:
    await session.execute(
        insert(Namespace)
        .values(namespace=namespace)
        .on_conflict_do_nothing(index_elements=["namespace"])
    )


async def lock_identity(session: AsyncSession, namespace: str, identity: str) -> None:
    """Serialize every writer of one document identity until the transaction ends."""
    key = func.hashtextextended(f"{namespace}:{identity}", 0)
    await session.execute(select(func.pg_advisory_xact_lock(key)))


async def find_document(session: AsyncSession, namespace: str, identity: str) -> Document | None:
    result = await session.execute(
        select(Document).where(Document.namespace == namespace, Document.identity_key == identity)
    )
    return result.scalar_one_or_none()


async def get_document(
    session: AsyncSession, namespace: str, document_id: uuid.UUID
) -> Document | None:
    result = await session.execute(
        select(Document).where(Document.namespace == namespace, Document.id == document_id)
    )
    return result.scalar_one_or_none()


async def get_version(
    session: AsyncSession, namespace: str, version_id: uuid.UUID
) -> DocumentVersion | None:
    result = await session.execute(
        select(DocumentVersion).where(
            DocumentVersion.namespace == namespace, DocumentVersion.id == version_id
        )
    )
    return result.scalar_one_or_none()


async def add(session: AsyncSession, row: Document | DocumentVersion) -> None:
    """Insert a new document or version now, so its id and defaults can be read."""
    session.add(row)
    await session.flush()


async def reload(session: AsyncSession, row: Document | DocumentVersion) -> None:
    """Read the row again: what another writer committed before our identity lock was taken."""
    await session.refresh(row)


async def set_latest_version(
    session: AsyncSession, document: Document, version_id: uuid.UUID
) -> None:
    """Make the version the document's latest, with whatever else changed on the document."""
    document.latest_version_id = version_id
    await session.flush()


async def mark_deleted(session: AsyncSession, document_id: uuid.UUID) -> None:
    await session.execute(
        update(Document)
        .where(Document.id == document_id)
        .values(deleted_at=func.now())
        .execution_options(synchronize_session=False)
    )


async def live_documents(
    session: AsyncSession, namespace: str, document_ids: Sequence[uuid.UUID]
) -> list[Document]:
    """The namespace's documents that are not deleted (only `document_ids`, when given),
    oldest first."""
    query = select(Document).where(Document.namespace == namespace, Document.deleted_at.is_(None))
    if document_ids:
        query = query.where(Document.id.in_(list(document_ids)))
    return list((await session.execute(query.order_by(Document.created_at))).scalars())


async def next_version_number(session: AsyncSession, document_id: uuid.UUID) -> int:
    current = await session.scalar(
        select(func.max(DocumentVersion.version_number)).where(
            DocumentVersion.document_id == document_id
        )
    )
    return int(current or 0) + 1


def version_view(version: DocumentVersion) -> VersionView:
    return VersionView(
        version_id=version.id,
        version_number=version.version_number,
        content_sha256=version.content_sha256,
        media_type=version.media_type,
        source_modified_time=version.source_modified_time,
        source_version_ref=version.source_version_ref,
        ingested_at=version.ingested_at,
        parked=version.parked,
    )


def document_view(
    document: Document, latest: DocumentVersion | None, version_count: int
) -> DocumentView:
    return DocumentView(
        document_id=document.id,
        source_kind=document.source_kind,
        source_ref=document.source_ref,
        title=document.title,
        versioning_mode="living" if document.versioning_mode == "living" else "snapshot",
        created_at=document.created_at,
        latest_version=version_view(latest) if latest is not None else None,
        version_count=version_count,
        deleted_at=document.deleted_at,
    )


def _document_rows_query(namespace: str) -> Select[Any]:
    version_count = (
        select(func.count())
        .where(DocumentVersion.document_id == Document.id)
        .correlate(Document)
        .scalar_subquery()
    )
    return (
        select(Document, DocumentVersion, version_count)
        .outerjoin(DocumentVersion, DocumentVersion.id == Document.latest_version_id)
        .where(Document.namespace == namespace)
    )


async def document_view_by_id(
    session: AsyncSession, namespace: str, document_id: uuid.UUID
) -> DocumentView | None:
    row = (
        await session.execute(_document_rows_query(namespace).where(Document.id == document_id))
    ).one_or_none()
    return None if row is None else document_view(row[0], row[1], int(row[2]))


async def list_documents(
    session: AsyncSession,
    namespace: str,
    *,
    limit: int,
    after: tuple[datetime, uuid.UUID] | None,
    include_deleted: bool,
) -> DocumentPage:
    """Newest first by (created_at, id), which never changes, so the cursor is stable."""
    query = _document_rows_query(namespace)
    if not include_deleted:
        query = query.where(Document.deleted_at.is_(None))
    if after is not None:
        query = query.where(tuple_(Document.created_at, Document.id) < tuple_(*after))
    query = query.order_by(Document.created_at.desc(), Document.id.desc()).limit(limit + 1)
    rows = (await session.execute(query)).all()
    views = [document_view(r[0], r[1], int(r[2])) for r in rows[:limit]]
    cursor = None
    if len(rows) > limit:
        cursor = (views[-1].created_at, views[-1].document_id)
    return DocumentPage(views, cursor)


async def readiness(
    session: AsyncSession, namespace: str, version_ids: Sequence[uuid.UUID]
) -> dict[uuid.UUID, VersionReadiness]:
    """Readiness of the known versions among `version_ids` (unknown ones are absent)."""
    if not version_ids:
        return {}
    ids = list(version_ids)
    document_rows = await session.execute(
        select(DocumentVersion.id, DocumentVersion.document_id).where(
            DocumentVersion.namespace == namespace, DocumentVersion.id.in_(ids)
        )
    )
    documents = {row.id: row.document_id for row in document_rows}
    stage_rows = (
        await session.execute(
            select(VersionStage).where(
                VersionStage.namespace == namespace, VersionStage.version_id.in_(ids)
            )
        )
    ).scalars()
    stages: dict[uuid.UUID, dict[str, StageState]] = {}
    for row in stage_rows:
        stages.setdefault(row.version_id, {})[row.stage] = StageState(
            row.stage, row.status, row.attempts, row.last_error, row.updated_at
        )
    count_rows = await session.execute(
        select(VersionClaim.version_id, func.count().label("n"))
        .where(VersionClaim.namespace == namespace, VersionClaim.version_id.in_(ids))
        .group_by(VersionClaim.version_id)
    )
    counts = {row.version_id: int(row.n) for row in count_rows}
    # The queue dead-letters an item whose worker died holding its last attempt without running
    # any stage code, so the stage rows cannot say so themselves: derive it from the item.
    abandoned = await dead_lettered_versions(session, namespace, ids)
    result: dict[uuid.UUID, VersionReadiness] = {}
    for version_id, document_id in documents.items():
        by_stage = stages.get(version_id, {})
        if version_id in abandoned:
            by_stage = {
                name: state
                if state.status not in ("running", "failed")
                else StageState(
                    name,
                    "dead_letter",
                    state.attempts,
                    state.last_error or "work item dead-lettered",
                    state.updated_at,
                )
                for name, state in by_stage.items()
            }
        ordered = tuple(by_stage[s] for s in PIPELINE_STAGES if s in by_stage)
        result[version_id] = VersionReadiness(
            version_id, document_id, ordered, int(counts.get(version_id, 0))
        )
    return result
