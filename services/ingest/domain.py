"""Domain values of the ingest service: validated documents, views, readiness."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal
from uuid import UUID

from services.ingest.formats import FormatKind, decode_text, html_to_text, normalize_media_type
from shared.pipeline.stages import PIPELINE_STAGES, SETTLED_STATUSES

__all__ = [
    "DeleteResult",
    "DocumentInput",
    "DocumentPage",
    "DocumentView",
    "IngestResult",
    "ReadinessUpdate",
    "ReextractResult",
    "ReleaseResult",
    "StageState",
    "VersionReadiness",
    "VersionView",
    "VersioningMode",
    "identity_key",
    "initial_stage_statuses",
    "normalize_claim_text",
    "stored_text",
]

VersioningMode = Literal["snapshot", "living"]

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_SPACES = re.compile(r"\s+")
_TRAILING = re.compile(r"[\s.!?;,:]+$")


def identity_key(source_kind: str | None, source_ref: str | None, content_sha256: str) -> str:
    """`source:<kind>:<ref>` for a source pair, else `sha256:<hex>` of the bytes."""
    if source_kind is not None and source_ref is not None:
        return f"source:{source_kind}:{source_ref}"
    return f"sha256:{content_sha256}"


def normalize_claim_text(text: str) -> str:
    """Case, spacing and final punctuation folded, so equal statements group together."""
    return _TRAILING.sub("", _SPACES.sub(" ", text).strip().lower())


def initial_stage_statuses(kind: FormatKind) -> dict[str, str]:
    """Stage statuses of a new version: parked versions get no work at all (every stage is
    skipped until released), chunk-only formats skip extraction and adjudication."""
    if kind == "parked":
        return dict.fromkeys(PIPELINE_STAGES, "skipped")
    statuses = dict.fromkeys(PIPELINE_STAGES, "pending")
    if kind == "chunk_only":
        statuses["extract"] = statuses["adjudicate"] = "skipped"
    return statuses


@dataclass(frozen=True)
class DocumentInput:
    """One validated document of an ingest request."""

    namespace: str
    content: bytes
    media_type: str
    format_kind: FormatKind
    content_sha256: str
    source_kind: str | None
    source_ref: str | None
    title: str | None
    source_modified_time: datetime | None
    source_version_ref: str | None
    versioning_mode: VersioningMode | None

    @property
    def identity_key(self) -> str:
        return identity_key(self.source_kind, self.source_ref, self.content_sha256)


@dataclass(frozen=True)
class IngestResult:
    document_id: UUID
    version_id: UUID
    version_number: int
    created: bool
    parked: bool
    content_sha256: str


@dataclass(frozen=True)
class VersionView:
    version_id: UUID
    version_number: int
    content_sha256: str
    media_type: str
    source_modified_time: datetime | None
    source_version_ref: str | None
    ingested_at: datetime
    parked: bool


@dataclass(frozen=True)
class DocumentView:
    document_id: UUID
    source_kind: str | None
    source_ref: str | None
    title: str | None
    versioning_mode: VersioningMode
    created_at: datetime
    latest_version: VersionView | None
    version_count: int
    deleted_at: datetime | None


@dataclass(frozen=True)
class DocumentPage:
    documents: list[DocumentView]
    next_cursor: tuple[datetime, UUID] | None


@dataclass(frozen=True)
class DeleteResult:
    claims_retired: int
    relations_closed: int
    observations_closed: int


@dataclass(frozen=True)
class ReleaseResult:
    version_id: UUID
    parked: bool


@dataclass(frozen=True)
class ReextractResult:
    version_ids: list[UUID]
    extractor_version: str


@dataclass(frozen=True)
class StageState:
    stage: str
    status: str
    attempts: int
    last_error: str | None
    updated_at: datetime


@dataclass(frozen=True)
class VersionReadiness:
    version_id: UUID
    document_id: UUID
    stages: tuple[StageState, ...]
    claim_count: int

    @property
    def ready(self) -> bool:
        return all(stage.status in SETTLED_STATUSES for stage in self.stages)

    @property
    def dead_lettered(self) -> bool:
        return any(stage.status == "dead_letter" for stage in self.stages)

    @property
    def settled(self) -> bool:
        return self.ready or self.dead_lettered


@dataclass(frozen=True)
class ReadinessUpdate:
    versions: list[VersionReadiness] = field(default_factory=list)
    all_settled: bool = False


def stored_text(content: bytes, media_type: str) -> str:
    """The text a version's offsets refer to: decoded UTF-8, HTML reduced to paragraphs.

    Raises `UndecodableText` for bytes that are not text.
    """
    text = decode_text(content)
    if normalize_media_type(media_type) in _HTML_TYPES:
        return html_to_text(text)
    return text
