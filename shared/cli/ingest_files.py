"""Client-side ingestion of files: media types, identities, and waiting for readiness."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from rememberstack.v1 import document_pb2, ingest_service_pb2

from shared.cli.client import Stubs
from shared.proto_convert import timestamp

__all__ = [
    "IngestOutcome",
    "collect_files",
    "ingest_files",
    "media_type_for",
    "watch_until_settled",
]

_MEDIA_TYPES = {
    ".txt": "text/plain",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".html": "text/html",
    ".htm": "text/html",
    ".conv": "text/x-rememberstack-conversation",
    ".json": "application/json",
    ".csv": "text/csv",
    ".pdf": "application/pdf",
}


def media_type_for(path: Path) -> str:
    """Media type by extension; unknown extensions are sent as octet-stream (and parked)."""
    return _MEDIA_TYPES.get(path.suffix.lower(), "application/octet-stream")


def collect_files(paths: Iterable[Path]) -> list[Path]:
    """Files named directly plus every file under named directories, in a stable order."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.is_file()))
        else:
            files.append(path)
    return files


@dataclass(frozen=True)
class IngestOutcome:
    """What ingesting one file did."""

    path: Path
    document_id: str
    version_id: str
    created: bool
    parked: bool


async def ingest_files(
    stubs: Stubs,
    files: Sequence[Path],
    *,
    namespace: str,
    living: bool = False,
    said_on: Mapping[str, datetime] | None = None,
) -> list[IngestOutcome]:
    """Send all files in one client-streaming batch; the file path is the source identity.

    The said-on time is the file's modification time unless ``said_on`` names the file.
    """

    async def requests() -> AsyncIterator[ingest_service_pb2.IngestDocumentsRequest]:
        for path in files:
            modified = (said_on or {}).get(path.name) or datetime.fromtimestamp(
                path.stat().st_mtime, tz=UTC
            )
            yield ingest_service_pb2.IngestDocumentsRequest(
                document=ingest_service_pb2.IngestDocumentRequest(
                    namespace=namespace,
                    content=path.read_bytes(),
                    media_type=media_type_for(path),
                    source_kind="file",
                    source_ref=str(path.resolve()),
                    title=path.stem.replace("_", " ").replace("-", " "),
                    source_modified_time=timestamp(modified),
                    versioning_mode=(
                        document_pb2.VERSIONING_MODE_LIVING
                        if living
                        else document_pb2.VERSIONING_MODE_SNAPSHOT
                    ),
                )
            )

    response = await stubs.ingest.IngestDocuments(requests())
    return [
        IngestOutcome(path, r.document_id, r.version_id, r.created, r.parked)
        for path, r in zip(files, response.results, strict=True)
    ]


async def watch_until_settled(
    stubs: Stubs,
    version_ids: Sequence[str],
    *,
    namespace: str,
    on_update: Callable[[Sequence[document_pb2.VersionReadiness]], None],
) -> list[document_pb2.VersionReadiness]:
    """Stream readiness until every version is ready or dead-lettered; returns the final states."""
    latest: dict[str, document_pb2.VersionReadiness] = {}
    if not version_ids:
        return []
    stream = stubs.ingest.WatchReadiness(
        ingest_service_pb2.WatchReadinessRequest(namespace=namespace, version_ids=version_ids)
    )
    async for update in stream:
        for version in update.versions:
            latest[version.version_id] = version
        on_update(list(latest.values()))
        if update.all_settled:
            break
    return list(latest.values())
