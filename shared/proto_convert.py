"""Conversions between wire messages and domain values shared by every servicer's converters."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from uuid import UUID

from google.protobuf.timestamp_pb2 import Timestamp
from rememberstack.v1 import common_pb2, document_pb2, evidence_pb2, fact_pb2

from shared.answers import NegativeAnswer, TruncationInfo
from shared.errors import Violations
from shared.timescope import TimeScope

__all__ = [
    "ACTION",
    "CLAIM_VALID_KIND",
    "CURRENCY_REASON",
    "FACT_KIND",
    "NEGATIVE_KIND",
    "OUTCOME",
    "POLARITY",
    "PRECISION",
    "STAGE",
    "STAGE_STATUS",
    "STANCE",
    "SUPPORT",
    "TEMPORAL_MATCH",
    "TRUNCATION_REASON",
    "VERSIONING_MODE",
    "bounded_int",
    "check_timestamp",
    "enum_name",
    "from_timestamp",
    "negative_to_pb",
    "parse_time_scope",
    "parse_uuid",
    "parse_uuids",
    "time_scope_to_pb",
    "timestamp",
    "to_timestamp",
    "truncation_to_pb",
    "window_to_pb",
]


# Domain values are lower-case strings (as in SPEC §8 and the database); the wire uses enums.
PRECISION: Mapping[str, int] = {
    "unknown": common_pb2.PRECISION_UNKNOWN,
    "instant": common_pb2.PRECISION_INSTANT,
    "day": common_pb2.PRECISION_DAY,
    "month": common_pb2.PRECISION_MONTH,
    "quarter": common_pb2.PRECISION_QUARTER,
    "year": common_pb2.PRECISION_YEAR,
    "open": common_pb2.PRECISION_OPEN,
}
TRUNCATION_REASON: Mapping[str, int] = {
    "resolve_candidate_limit": common_pb2.TRUNCATION_REASON_RESOLVE_CANDIDATE_LIMIT,
    "result_budget": common_pb2.TRUNCATION_REASON_RESULT_BUDGET,
    "expansion_budget": common_pb2.TRUNCATION_REASON_EXPANSION_BUDGET,
    "frontier_budget": common_pb2.TRUNCATION_REASON_FRONTIER_BUDGET,
    "time_budget": common_pb2.TRUNCATION_REASON_TIME_BUDGET,
    "depth_budget": common_pb2.TRUNCATION_REASON_DEPTH_BUDGET,
    "lookup_k_limit": common_pb2.TRUNCATION_REASON_LOOKUP_K_LIMIT,
}
NEGATIVE_KIND: Mapping[str, int] = {
    "unknown_entity": common_pb2.NEGATIVE_KIND_UNKNOWN_ENTITY,
    "known_empty": common_pb2.NEGATIVE_KIND_KNOWN_EMPTY,
    "boundary": common_pb2.NEGATIVE_KIND_BOUNDARY,
}
CLAIM_VALID_KIND: Mapping[str, int] = {
    "event_time": evidence_pb2.CLAIM_VALID_KIND_EVENT_TIME,
    "effective_period": evidence_pb2.CLAIM_VALID_KIND_EFFECTIVE_PERIOD,
    "measurement_period": evidence_pb2.CLAIM_VALID_KIND_MEASUREMENT_PERIOD,
    "proposition_validity": evidence_pb2.CLAIM_VALID_KIND_PROPOSITION_VALIDITY,
}
POLARITY: Mapping[str, int] = {
    "positive": evidence_pb2.POLARITY_POSITIVE,
    "negative": evidence_pb2.POLARITY_NEGATIVE,
}
CURRENCY_REASON: Mapping[str, int] = {
    "reextracted": evidence_pb2.CURRENCY_REASON_REEXTRACTED,
    "version_superseded": evidence_pb2.CURRENCY_REASON_VERSION_SUPERSEDED,
    "version_deleted": evidence_pb2.CURRENCY_REASON_VERSION_DELETED,
}
FACT_KIND: Mapping[str, int] = {
    "relation": fact_pb2.FACT_KIND_RELATION,
    "observation": fact_pb2.FACT_KIND_OBSERVATION,
}
TEMPORAL_MATCH: Mapping[str, int] = {
    "confirmed": fact_pb2.TEMPORAL_MATCH_CONFIRMED,
    "possible": fact_pb2.TEMPORAL_MATCH_POSSIBLE,
}
SUPPORT: Mapping[str, int] = {
    "current": fact_pb2.SUPPORT_CURRENT,
    "withdrawn": fact_pb2.SUPPORT_WITHDRAWN,
}
STANCE: Mapping[str, int] = {
    "supports": fact_pb2.STANCE_SUPPORTS,
    "contradicts": fact_pb2.STANCE_CONTRADICTS,
}
OUTCOME: Mapping[str, int] = {
    "add": fact_pb2.DECISION_OUTCOME_ADD,
    "noop": fact_pb2.DECISION_OUTCOME_NOOP,
    "update": fact_pb2.DECISION_OUTCOME_UPDATE,
    "contradict": fact_pb2.DECISION_OUTCOME_CONTRADICT,
    "retracted_source_removal": fact_pb2.DECISION_OUTCOME_RETRACTED_SOURCE_REMOVAL,
    "withdrawn": fact_pb2.DECISION_OUTCOME_WITHDRAWN,
    "restored": fact_pb2.DECISION_OUTCOME_RESTORED,
}
ACTION: Mapping[str, int] = {
    "add": fact_pb2.DECISION_ACTION_ADD,
    "confirm": fact_pb2.DECISION_ACTION_CONFIRM,
    "adjust": fact_pb2.DECISION_ACTION_ADJUST,
    "supersede": fact_pb2.DECISION_ACTION_SUPERSEDE,
    "contradict_evidence": fact_pb2.DECISION_ACTION_CONTRADICT_EVIDENCE,
    "contradict_group": fact_pb2.DECISION_ACTION_CONTRADICT_GROUP,
    "reopen": fact_pb2.DECISION_ACTION_REOPEN,
}
VERSIONING_MODE: Mapping[str, int] = {
    "snapshot": document_pb2.VERSIONING_MODE_SNAPSHOT,
    "living": document_pb2.VERSIONING_MODE_LIVING,
}
STAGE: Mapping[str, int] = {
    "convert": document_pb2.STAGE_CONVERT,
    "chunk": document_pb2.STAGE_CHUNK,
    "extract": document_pb2.STAGE_EXTRACT,
    "embed": document_pb2.STAGE_EMBED,
    "adjudicate": document_pb2.STAGE_ADJUDICATE,
}
STAGE_STATUS: Mapping[str, int] = {
    "pending": document_pb2.STAGE_STATUS_PENDING,
    "running": document_pb2.STAGE_STATUS_RUNNING,
    "succeeded": document_pb2.STAGE_STATUS_SUCCEEDED,
    "failed": document_pb2.STAGE_STATUS_FAILED,
    "dead_letter": document_pb2.STAGE_STATUS_DEAD_LETTER,
    "skipped": document_pb2.STAGE_STATUS_SKIPPED,
}


def enum_name(mapping: Mapping[str, int], value: int) -> str | None:
    """The domain name of a wire enum value, or None for unspecified/unknown values."""
    for name, number in mapping.items():
        if number == value:
            return name
    return None


def to_timestamp(value: datetime | None) -> Timestamp | None:
    """A wire timestamp for an aware datetime (None stays None)."""
    if value is None:
        return None
    ts = Timestamp()
    ts.FromDatetime(value.astimezone(UTC))
    return ts


def timestamp(value: datetime) -> Timestamp:
    """A wire timestamp for an aware datetime that is always present."""
    ts = Timestamp()
    ts.FromDatetime(value.astimezone(UTC))
    return ts


_MIN_SECONDS, _MAX_SECONDS = -62_135_596_800, 253_402_300_799  # 0001-01-01 .. 9999-12-31


def check_timestamp(ts: Timestamp, field: str, violations: Violations) -> bool:
    """Whether ``ts`` is a datetime Python can hold (years 1-9999, nanos in [0, 1e9)); records
    a violation otherwise, so converting it cannot raise."""
    if _MIN_SECONDS <= ts.seconds <= _MAX_SECONDS and 0 <= ts.nanos < 1_000_000_000:
        return True
    violations.add(field, "must be a UTC instant within years 1 to 9999 (nanos 0..999999999)")
    return False


def from_timestamp(ts: Timestamp) -> datetime:
    """A UTC datetime from a wire timestamp (Timestamps are UTC instants by definition)."""
    return ts.ToDatetime(tzinfo=UTC)


def parse_uuid(
    value: str, field: str, violations: Violations, *, required: bool = True
) -> UUID | None:
    """Parse an id, recording a violation for a missing or malformed one."""
    if not value:
        if required:
            violations.add(field, "is required")
        return None
    try:
        return UUID(value)
    except ValueError:
        violations.add(field, f"{value!r} is not a UUID")
        return None


def parse_uuids(
    values: Sequence[str],
    field: str,
    violations: Violations,
    *,
    max_items: int,
    min_items: int = 0,
) -> list[UUID]:
    """Parse a list of distinct ids within bounds, recording each bad element."""
    if len(values) < min_items:
        violations.add(field, f"needs at least {min_items} id(s)")
    if len(values) > max_items:
        violations.add(field, f"accepts at most {max_items} ids, got {len(values)}")
    parsed: list[UUID] = []
    seen: set[UUID] = set()
    for index, value in enumerate(values):
        uid = parse_uuid(value, f"{field}[{index}]", violations)
        if uid is None:
            continue
        if uid in seen:
            violations.add(f"{field}[{index}]", f"duplicate id {value}")
            continue
        seen.add(uid)
        parsed.append(uid)
    return parsed


def bounded_int(
    value: int, field: str, violations: Violations, *, default: int, low: int, high: int
) -> int:
    """Apply the proto3 convention 0 = default, and check the bounds of an explicit value."""
    if value == 0:
        return default
    if not low <= value <= high:
        violations.add(field, f"must be between {low} and {high}, got {value}")
        return default
    return value


def parse_time_scope(
    message: common_pb2.TimeScope, field: str, violations: Violations, *, has_field: bool
) -> TimeScope:
    """Validate a wire TimeScope; unset means current."""
    if not has_field:
        return TimeScope()
    which = message.WhichOneof("scope")
    if which is None or which == "current":
        return TimeScope()
    if which == "history":
        return TimeScope(kind="history")
    if which == "at":
        if not message.at.HasField("valid_at"):
            violations.add(f"{field}.at.valid_at", "is required")
            return TimeScope()
        return TimeScope(kind="at", valid_at=from_timestamp(message.at.valid_at))
    if which == "overlap":
        overlap = message.overlap
        missing = False
        for name in ("from", "to"):
            if not overlap.HasField(name):
                violations.add(f"{field}.overlap.{name}", "is required")
                missing = True
        if missing:
            return TimeScope()
        start = from_timestamp(getattr(overlap, "from"))
        end = from_timestamp(overlap.to)
        if end < start:
            violations.add(f"{field}.overlap.to", "must not be before overlap.from")
        return TimeScope(kind="overlap", start=start, end=end)
    as_of = message.as_of
    has_valid, has_believed = as_of.HasField("valid_at"), as_of.HasField("believed_at")
    if not has_valid:
        violations.add(f"{field}.as_of.valid_at", "is required together with believed_at")
    if not has_believed:
        violations.add(f"{field}.as_of.believed_at", "is required together with valid_at")
    if not (has_valid and has_believed):
        return TimeScope()
    return TimeScope(
        kind="as_of",
        valid_at=from_timestamp(as_of.valid_at),
        believed_at=from_timestamp(as_of.believed_at),
    )


def time_scope_to_pb(scope: TimeScope) -> common_pb2.TimeScope:
    """Echo a domain scope on the wire (responses carry the scope they were evaluated in)."""
    message = common_pb2.TimeScope()
    if scope.kind == "current":
        message.current.SetInParent()
    elif scope.kind == "history":
        message.history.SetInParent()
    elif scope.kind == "at" and scope.valid_at is not None:
        message.at.valid_at.CopyFrom(timestamp(scope.valid_at))
    elif scope.kind == "overlap" and scope.start is not None and scope.end is not None:
        getattr(message.overlap, "from").CopyFrom(timestamp(scope.start))
        message.overlap.to.CopyFrom(timestamp(scope.end))
    elif scope.kind == "as_of" and scope.valid_at is not None and scope.believed_at is not None:
        message.as_of.valid_at.CopyFrom(timestamp(scope.valid_at))
        message.as_of.believed_at.CopyFrom(timestamp(scope.believed_at))
    return message


def negative_to_pb(negative: NegativeAnswer | None) -> common_pb2.Negative | None:
    """Wire form of a negative (None when the read found something)."""
    if negative is None:
        return None
    return common_pb2.Negative(
        kind=NEGATIVE_KIND[negative.kind],  # type: ignore[arg-type]
        explanation=negative.explanation,
        workaround=negative.workaround,
    )


def truncation_to_pb(info: TruncationInfo) -> common_pb2.Truncation:
    """Wire form of a truncation block; the first reason is the primary one."""
    reasons = [TRUNCATION_REASON[r] for r in info.reasons]
    return common_pb2.Truncation(
        truncated=info.truncated,
        returned=info.returned,
        estimated_total=info.estimated_total,
        total_is_exact=info.total_is_exact,
        continuation=info.continuation,
        reason=reasons[0] if reasons else common_pb2.TRUNCATION_REASON_UNSPECIFIED,  # type: ignore[arg-type]
        additional_reasons=reasons[1:],  # type: ignore[arg-type]
    )


def window_to_pb(
    valid_from: datetime | None, valid_until: datetime | None, precision: str | None
) -> common_pb2.Window:
    """Wire form of a world-time window."""
    return common_pb2.Window(
        valid_from=to_timestamp(valid_from),
        valid_until=to_timestamp(valid_until),
        valid_precision=PRECISION.get(precision or "unknown", common_pb2.PRECISION_UNKNOWN),  # type: ignore[arg-type]
    )
