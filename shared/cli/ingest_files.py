"""Client-side ingestion of files: media types, identities, and waiting for readiness."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from rememberstack.v1 import document_pb2, ingest_service_pb2

from shared.cli.client import Stubs
from shared.proto_convert import timestamp

__all__ = [
    "MANIFEST_NAME",
    "IngestOutcome",
    "ManifestError",
    "collect_files",
    "ingest_files",
    "load_manifest",
    "media_type_for",
    "parse_said_on",
    "watch_until_settled",
]

# A directory's said-on times (`samples/corpus/manifest.json`): read, never ingested.
MANIFEST_NAME = "manifest.json"

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


class ManifestError(ValueError):
    """A manifest or said-on time the CLI cannot read; the message says which and why."""


def parse_said_on(value: str, where: str = "--said-on") -> datetime:
    """An ISO-8601 instant (``2026-03-02T10:00:00Z``); a time without an offset is UTC."""
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise ManifestError(f"{where}: {value!r} is not an ISO-8601 time") from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def load_manifest(path: Path) -> dict[str, datetime]:
    """File name → said-on time from a JSON object; keys starting with ``_`` are comments."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ManifestError(f"{path}: not a readable JSON manifest ({exc})") from exc
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: a manifest is a JSON object of file name to time")
    return {
        name: parse_said_on(str(value), f"{path}: {name}")
        for name, value in data.items()
        if not name.startswith("_")
    }


def collect_files(paths: Iterable[Path]) -> tuple[list[Path], dict[str, datetime]]:
    """Files named directly plus every file under named directories, in a stable order, and
    the said-on times of the directories' ``manifest.json`` files (which are not documents).

    Hidden files and directories (``.git``, ``.DS_Store``) are skipped in directories.
    """
    files: list[Path] = []
    said_on: dict[str, datetime] = {}
    for path in paths:
        if not path.is_dir():
            files.append(path)
            continue
        for found in sorted(p for p in path.rglob("*") if p.is_file()):
            if any(part.startswith(".") for part in found.relative_to(path).parts):
                continue
            if found.name == MANIFEST_NAME:
                said_on |= load_manifest(found)
                continue
            files.append(found)
    return files, said_on


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

    The said-on time is ``said_on[name]`` (a manifest) or ``said_on["*"]`` (one time for every
    file, the ``--said-on`` flag), else the file's modification time.
    """

    async def requests() -> AsyncIterator[ingest_service_pb2.IngestDocumentsRequest]:
        for path in files:
            given = said_on or {}
            modified = (
                given.get(path.name)
                or given.get("*")
                or datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
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
