"""SQL for chunks, claims, their links to versions, testimony events and embeddings."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar, cast

from sqlalchemy import Table, bindparam, exists, select, text, tuple_, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from services.ingest.chunking import ChunkSpan
from shared.db.models import (
    Chunk,
    Claim,
    DocumentVersion,
    TestimonyEvent,
    VersionChunk,
    VersionClaim,
)

__all__ = [
    "add_testimony_events",
    "chunks_already_extracted",
    "current_claims_of_document",
    "insert_claims",
    "link_version_chunks",
    "link_version_claims",
    "reextracted_claims",
    "restore_superseded_claims",
    "set_embeddings",
    "superseded_claims",
    "unembedded_chunks",
    "unembedded_claims",
    "upsert_chunks",
    "version_chunk_rows",
]

T = TypeVar("T")

# PostgreSQL's protocol carries at most 32,767 bind parameters per statement, and a 10 MiB
# document has thousands of chunks and claims: multi-row statements go in slices that fit.
_MAX_PARAMETERS = 32_767
_MAX_ROWS = 1000


def _slices(items: Sequence[T], parameters_per_item: int) -> Iterator[Sequence[T]]:
    size = max(1, min(_MAX_ROWS, _MAX_PARAMETERS // max(parameters_per_item, 1)))
    for start in range(0, len(items), size):
        yield items[start : start + size]


# Every chunk of the document, matched to the new version's in Python. Joining the chunks
# table to an unnest of the version's keys planned from statistics taken before this
# transaction inserted them: for a large document the planner saw a tiny table and chose a
# nested loop of sequential scans (a 10 MiB document's lookup ran for minutes).
_CHUNK_IDS = text(
    """
    SELECT c.id, c.content_sha256, c.section_path FROM chunks c
     WHERE c.namespace = :namespace AND c.document_id = :document_id
    """
)


async def upsert_chunks(
    session: AsyncSession, namespace: str, document_id: uuid.UUID, chunks: Sequence[ChunkSpan]
) -> list[uuid.UUID]:
    """Ids of `chunks` in order; a chunk whose content and section the document already holds
    keeps its id (and so its claims)."""
    if not chunks:
        return []
    # executemany: one prepared statement however many chunks, never near the parameter cap.
    await session.execute(
        insert(Chunk).on_conflict_do_nothing(
            index_elements=["namespace", "document_id", "content_sha256", "section_path"]
        ),
        [
            {
                "namespace": namespace,
                "document_id": document_id,
                "content_sha256": c.content_sha256,
                "text": c.text,
                "section_path": c.section_path,
            }
            for c in chunks
        ],
    )
    rows = await session.execute(_CHUNK_IDS, {"namespace": namespace, "document_id": document_id})
    ids = {(row.content_sha256, row.section_path): row.id for row in rows}
    return [ids[(c.content_sha256, c.section_path)] for c in chunks]


async def link_version_chunks(
    session: AsyncSession,
    namespace: str,
    version_id: uuid.UUID,
    chunks: Sequence[ChunkSpan],
    chunk_ids: Sequence[uuid.UUID],
) -> None:
    if not chunks:
        return
    await session.execute(
        insert(VersionChunk).on_conflict_do_nothing(index_elements=["version_id", "ordinal"]),
        [
            {
                "namespace": namespace,
                "version_id": version_id,
                "chunk_id": chunk_id,
                "ordinal": c.ordinal,
                "char_start": c.char_start,
                "char_end": c.char_end,
            }
            for c, chunk_id in zip(chunks, chunk_ids, strict=True)
        ],
    )


async def version_chunk_rows(
    session: AsyncSession, namespace: str, version_id: uuid.UUID
) -> list[tuple[uuid.UUID, int, int]]:
    """(chunk_id, char_start, char_end) of a version's chunks in order."""
    rows = await session.execute(
        select(VersionChunk.chunk_id, VersionChunk.char_start, VersionChunk.char_end)
        .where(VersionChunk.namespace == namespace, VersionChunk.version_id == version_id)
        .order_by(VersionChunk.ordinal)
    )
    return [(r.chunk_id, r.char_start, r.char_end) for r in rows]


_ALREADY_EXTRACTED = text(
    """
    SELECT c.chunk_id FROM claims c
     WHERE c.namespace = :namespace AND c.chunk_id = ANY(:ids)
       AND c.extractor_name = :name AND c.extractor_version = :version
    UNION
    SELECT vc.chunk_id FROM version_chunks vc
      JOIN document_versions v ON v.id = vc.version_id
     WHERE vc.namespace = :namespace AND vc.chunk_id = ANY(:ids) AND vc.version_id != :version_id
       AND v.extractor_name = :name AND v.extractor_version = :version
    """
)


async def chunks_already_extracted(
    session: AsyncSession,
    namespace: str,
    version_id: uuid.UUID,
    chunk_ids: Sequence[uuid.UUID],
    extractor: tuple[str, str],
) -> set[uuid.UUID]:
    """Chunks the extractor already read: they hold its claims, or another version that
    contains them finished extraction with it (a chunk can rightly yield no claims)."""
    if not chunk_ids:
        return set()
    name, version = extractor
    rows = await session.execute(
        _ALREADY_EXTRACTED,
        {
            "namespace": namespace,
            "version_id": version_id,
            "ids": list(set(chunk_ids)),
            "name": name,
            "version": version,
        },
    )
    return set(rows.scalars())


async def insert_claims(session: AsyncSession, rows: Sequence[dict[str, Any]]) -> list[uuid.UUID]:
    """Insert claims; a claim whose dedupe key exists is skipped. Returns the new ids."""
    if not rows:
        return []
    new_ids: list[uuid.UUID] = []
    for part in _slices(rows, max(len(row) for row in rows)):
        result = await session.execute(
            insert(Claim)
            .values(list(part))
            .on_conflict_do_nothing(index_elements=["namespace", "dedupe_key"])
            .returning(Claim.id)
        )
        new_ids.extend(result.scalars())
    return new_ids


async def link_version_claims(
    session: AsyncSession,
    namespace: str,
    version_id: uuid.UUID,
    chunk_ids: Sequence[uuid.UUID],
    extractor: tuple[str, str],
) -> None:
    """Link every claim the extractor made from these chunks to the version."""
    if not chunk_ids:
        return
    await session.execute(
        text(
            """
            INSERT INTO version_claims (namespace, version_id, claim_id)
            SELECT :namespace, :version_id, c.id FROM claims c
            WHERE c.namespace = :namespace AND c.chunk_id = ANY(:chunk_ids)
              AND c.extractor_name = :name AND c.extractor_version = :version
            ON CONFLICT DO NOTHING
            """
        ),
        {
            "namespace": namespace,
            "version_id": version_id,
            "chunk_ids": list(set(chunk_ids)),
            "name": extractor[0],
            "version": extractor[1],
        },
    )


async def add_testimony_events(
    session: AsyncSession,
    namespace: str,
    claim_ids: Sequence[uuid.UUID],
    event: str,
    version_id: uuid.UUID | None,
) -> None:
    if not claim_ids:
        return
    await session.execute(
        insert(TestimonyEvent),
        [
            {"namespace": namespace, "claim_id": c, "event": event, "version_id": version_id}
            for c in claim_ids
        ],
    )


async def restore_superseded_claims(
    session: AsyncSession, namespace: str, version_id: uuid.UUID
) -> list[uuid.UUID]:
    """A living document's version that brings back a superseded passage makes its claims
    current testimony again (recorded as a new `asserted` event)."""
    result = await session.execute(
        update(Claim)
        .where(
            Claim.namespace == namespace,
            Claim.currency_reason == "version_superseded",
            Claim.id.in_(
                select(VersionClaim.claim_id).where(
                    VersionClaim.namespace == namespace, VersionClaim.version_id == version_id
                )
            ),
        )
        .values(is_current_testimony=True, currency_reason=None)
        .returning(Claim.id)
        .execution_options(synchronize_session=False)
    )
    restored = list(result.scalars())
    await add_testimony_events(session, namespace, restored, "asserted", version_id)
    return restored


async def current_claims_of_document(
    session: AsyncSession, namespace: str, document_id: uuid.UUID
) -> list[uuid.UUID]:
    rows = await session.execute(
        select(Claim.id).where(
            Claim.namespace == namespace,
            Claim.document_id == document_id,
            Claim.is_current_testimony,
        )
    )
    return list(rows.scalars())


async def superseded_claims(
    session: AsyncSession, namespace: str, document_id: uuid.UUID, version_number: int
) -> list[uuid.UUID]:
    """Current claims of the document that neither this version nor a later one contains."""
    later_versions = select(DocumentVersion.id).where(
        DocumentVersion.document_id == document_id,
        DocumentVersion.version_number >= version_number,
    )
    linked = exists().where(
        VersionClaim.claim_id == Claim.id, VersionClaim.version_id.in_(later_versions)
    )
    rows = await session.execute(
        select(Claim.id).where(
            Claim.namespace == namespace,
            Claim.document_id == document_id,
            Claim.is_current_testimony,
            ~linked,
        )
    )
    return list(rows.scalars())


async def reextracted_claims(
    session: AsyncSession, namespace: str, version_id: uuid.UUID, extractor: tuple[str, str]
) -> list[uuid.UUID]:
    """Current claims of the version made by any other extractor (name or version)."""
    rows = await session.execute(
        select(Claim.id)
        .join(VersionClaim, VersionClaim.claim_id == Claim.id)
        .where(
            VersionClaim.namespace == namespace,
            VersionClaim.version_id == version_id,
            Claim.is_current_testimony,
            tuple_(Claim.extractor_name, Claim.extractor_version) != tuple_(*extractor),
        )
    )
    return list(rows.scalars())


async def unembedded_chunks(
    session: AsyncSession, namespace: str, version_id: uuid.UUID
) -> list[tuple[uuid.UUID, str]]:
    rows = await session.execute(
        select(Chunk.id, Chunk.text)
        .join(VersionChunk, VersionChunk.chunk_id == Chunk.id)
        .where(
            VersionChunk.namespace == namespace,
            VersionChunk.version_id == version_id,
            Chunk.embedding.is_(None),
        )
        .distinct()
    )
    return [(r.id, r.text) for r in rows]


async def unembedded_claims(
    session: AsyncSession, namespace: str, version_id: uuid.UUID
) -> list[tuple[uuid.UUID, str]]:
    rows = await session.execute(
        select(Claim.id, Claim.claim_text)
        .join(VersionClaim, VersionClaim.claim_id == Claim.id)
        .where(
            VersionClaim.namespace == namespace,
            VersionClaim.version_id == version_id,
            Claim.embedding.is_(None),
        )
    )
    return [(r.id, r.claim_text) for r in rows]


async def set_embeddings(
    session: AsyncSession,
    model: type[Chunk] | type[Claim],
    pairs: Sequence[tuple[uuid.UUID, list[float]]],
) -> None:
    if not pairs:
        return
    table = cast(Table, model.__table__)
    statement = (
        update(table)
        .where(table.c.id == bindparam("row_id"))
        .values(embedding=bindparam("vector", type_=table.c.embedding.type))
    )
    await session.execute(statement, [{"row_id": i, "vector": v} for i, v in pairs])
