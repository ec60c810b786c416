"""Wire <-> domain for the ingest service; every request check lives here."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

from google.protobuf.timestamp_pb2 import Timestamp
from rememberstack.v1 import document_pb2, ingest_service_pb2

from services.ingest.config import IngestSettings
from services.ingest.domain import (
    DocumentInput,
    DocumentView,
    IngestResult,
    VersioningMode,
    VersionReadiness,
    VersionView,
    stored_text,
)
from services.ingest.formats import (
    FormatKind,
    MalformedTurn,
    UndecodableText,
    classify,
    normalize_media_type,
    parse_turns,
)
from shared.errors import Violations
from shared.namespaces import resolve_namespace
from shared.proto_convert import (
    STAGE,
    STAGE_STATUS,
    VERSIONING_MODE,
    enum_name,
    from_timestamp,
    parse_uuid,
    parse_uuids,
    timestamp,
    to_timestamp,
)

__all__ = [
    "MAX_VERSION_IDS",
    "decode_page_token",
    "document_input",
    "document_to_pb",
    "encode_page_token",
    "ingest_result_to_pb",
    "namespaced_id",
    "namespaced_ids",
    "page_size_of",
    "readiness_to_pb",
]

MAX_VERSION_IDS = 1000
MAX_PAGE_SIZE = 500
DEFAULT_PAGE_SIZE = 50
_MAX_FIELD = 2048
# Wire timestamps are UTC by definition; outside these years they are mistakes, not dates.
_EARLIEST = int(datetime(1900, 1, 1, tzinfo=UTC).timestamp())
_LATEST = int(datetime(2200, 1, 1, tzinfo=UTC).timestamp())


def _time(ts: Timestamp, field: str, violations: Violations) -> datetime | None:
    if not 0 <= ts.nanos < 1_000_000_000:
        violations.add(field, f"nanos must be within 0..999999999, got {ts.nanos}")
        return None
    if not _EARLIEST <= ts.seconds < _LATEST:
        violations.add(field, "must be a UTC instant between 1900 and 2200")
        return None
    return from_timestamp(ts)


def _optional_text(value: str, field: str, violations: Violations) -> str | None:
    if len(value) > _MAX_FIELD:
        violations.add(field, f"must be at most {_MAX_FIELD} characters")
    return value.strip() or None


def document_input(
    request: ingest_service_pb2.IngestDocumentRequest,
    settings: IngestSettings,
    violations: Violations,
    prefix: str = "",
) -> DocumentInput | None:
    """Validate one document; every problem is recorded as `<prefix><field>`."""
    before = len(violations)
    namespace = resolve_namespace(
        request.namespace, settings.namespace, violations, prefix + "namespace"
    )
    content = request.content
    media_type = normalize_media_type(request.media_type)
    kind = classify(media_type) if media_type else "parked"
    if not content:
        violations.add(prefix + "content", "is empty")
    elif len(content) > settings.max_document_bytes:
        violations.add(
            prefix + "content",
            f"is {len(content)} bytes, over the limit of {settings.max_document_bytes}",
        )
    if not media_type:
        violations.add(prefix + "media_type", "is required")
    elif content and len(content) <= settings.max_document_bytes and kind != "parked":
        kind = _check_text(content, media_type, prefix, violations)
    source_kind = _optional_text(request.source_kind, prefix + "source_kind", violations)
    source_ref = _optional_text(request.source_ref, prefix + "source_ref", violations)
    if source_kind and not source_ref:
        violations.add(prefix + "source_ref", "is required when source_kind is set")
    if source_ref and not source_kind:
        violations.add(prefix + "source_kind", "is required when source_ref is set")
    mode: VersioningMode | None = None
    if request.versioning_mode != document_pb2.VERSIONING_MODE_UNSPECIFIED:
        name = enum_name(VERSIONING_MODE, request.versioning_mode)
        if name is None:
            violations.add(prefix + "versioning_mode", f"unknown value {request.versioning_mode}")
        mode = "living" if name == "living" else "snapshot" if name == "snapshot" else None
    if mode == "living" and not (source_kind and source_ref):
        violations.add(prefix + "versioning_mode", "living needs source_kind and source_ref")
    modified = None
    if request.HasField("source_modified_time"):
        modified = _time(request.source_modified_time, prefix + "source_modified_time", violations)
    title = _optional_text(request.title, prefix + "title", violations)
    version_ref = _optional_text(
        request.source_version_ref, prefix + "source_version_ref", violations
    )
    if len(violations) > before:
        return None
    return DocumentInput(
        namespace=namespace,
        content=content,
        media_type=media_type,
        format_kind=kind,
        content_sha256=hashlib.sha256(content).hexdigest(),
        source_kind=source_kind,
        source_ref=source_ref,
        title=title,
        source_modified_time=modified,
        source_version_ref=version_ref,
        versioning_mode=mode,
    )


def _check_text(content: bytes, media_type: str, prefix: str, violations: Violations) -> FormatKind:
    """The format of textual content, after checking it decodes (and parses, for turns)."""
    try:
        text = stored_text(content, media_type)
    except UndecodableText as exc:
        violations.add(prefix + "content", f"is not {media_type} text: {exc}")
        return "parked"
    if not text.strip():
        violations.add(prefix + "content", "holds no text")
        return "parked"
    if "\x00" in text:
        # PostgreSQL text cannot hold NUL: refused here rather than dead-lettered later.
        violations.add(
            prefix + "content", f"holds NUL characters (U+0000), which {media_type} cannot"
        )
        return "parked"
    kind = classify(media_type, text)
    if kind == "conversation":
        try:
            turns = parse_turns(text)
        except MalformedTurn as exc:
            violations.add(prefix + "content", f"is not a conversation in the turn format: {exc}")
            return "parked"
        if not turns:
            violations.add(prefix + "content", "holds no conversation turns")
    return kind


def namespaced_id(
    namespace: str, value: str, field: str, settings: IngestSettings
) -> tuple[str, uuid.UUID]:
    """A request's namespace and one required id; every bad field is named at once."""
    violations = Violations()
    resolved = resolve_namespace(namespace, settings.namespace, violations, "namespace")
    parsed = parse_uuid(value, field, violations)
    violations.raise_if_any()
    assert parsed is not None
    return resolved, parsed


def namespaced_ids(
    namespace: str, values: Sequence[str], field: str, settings: IngestSettings, *, min_items: int
) -> tuple[str, list[uuid.UUID]]:
    """A request's namespace and a list of distinct ids (at most MAX_VERSION_IDS)."""
    violations = Violations()
    resolved = resolve_namespace(namespace, settings.namespace, violations, "namespace")
    ids = parse_uuids(values, field, violations, min_items=min_items, max_items=MAX_VERSION_IDS)
    violations.raise_if_any()
    return resolved, ids


def page_size_of(value: int, violations: Violations) -> int:
    if value == 0:
        return DEFAULT_PAGE_SIZE
    if not 1 <= value <= MAX_PAGE_SIZE:
        violations.add("page_size", f"must be between 1 and {MAX_PAGE_SIZE}, got {value}")
        return DEFAULT_PAGE_SIZE
    return value


def encode_page_token(cursor: tuple[datetime, uuid.UUID]) -> str:
    raw = json.dumps({"t": cursor[0].isoformat(), "id": str(cursor[1])})
    return base64.urlsafe_b64encode(raw.encode()).decode()


def decode_page_token(token: str, violations: Violations) -> tuple[datetime, uuid.UUID] | None:
    if not token:
        return None
    try:
        raw = json.loads(base64.urlsafe_b64decode(token.encode()))
        created = datetime.fromisoformat(raw["t"])
        if created.tzinfo is None:
            raise ValueError("naive time")
        return created, uuid.UUID(raw["id"])
    except (ValueError, KeyError, TypeError, binascii.Error):
        violations.add("page_token", "is not a token this service issued")
        return None


def ingest_result_to_pb(result: IngestResult) -> ingest_service_pb2.IngestDocumentResponse:
    return ingest_service_pb2.IngestDocumentResponse(
        document_id=str(result.document_id),
        version_id=str(result.version_id),
        version_number=result.version_number,
        created=result.created,
        parked=result.parked,
        content_sha256=result.content_sha256,
    )


def _version_to_pb(view: VersionView) -> document_pb2.DocumentVersion:
    return document_pb2.DocumentVersion(
        version_id=str(view.version_id),
        version_number=view.version_number,
        content_sha256=view.content_sha256,
        media_type=view.media_type,
        source_modified_time=to_timestamp(view.source_modified_time),
        source_version_ref=view.source_version_ref or "",
        ingested_at=timestamp(view.ingested_at),
        parked=view.parked,
    )


def document_to_pb(view: DocumentView) -> document_pb2.Document:
    return document_pb2.Document(
        document_id=str(view.document_id),
        source_kind=view.source_kind or "",
        source_ref=view.source_ref or "",
        title=view.title or "",
        versioning_mode=VERSIONING_MODE[view.versioning_mode],  # type: ignore[arg-type]
        created_at=timestamp(view.created_at),
        latest_version=_version_to_pb(view.latest_version) if view.latest_version else None,
        version_count=view.version_count,
        deleted_at=to_timestamp(view.deleted_at),
    )


def readiness_to_pb(view: VersionReadiness) -> document_pb2.VersionReadiness:
    return document_pb2.VersionReadiness(
        version_id=str(view.version_id),
        document_id=str(view.document_id),
        stages=[
            document_pb2.StageState(
                stage=STAGE[s.stage],  # type: ignore[arg-type]
                status=STAGE_STATUS[s.status],  # type: ignore[arg-type]
                attempts=s.attempts,
                last_error=s.last_error or "",
                updated_at=timestamp(s.updated_at),
            )
            for s in view.stages
        ],
        ready=view.ready,
        dead_lettered=view.dead_lettered,
        claim_count=view.claim_count,
    )
