"""Wire ↔ domain conversions shared by every servicer: time scopes, ids, bounds, enums."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from rememberstack.v1 import common_pb2, fact_pb2

from shared.answers import TruncationInfo
from shared.errors import InvalidArgument, Violations
from shared.proto_convert import (
    PRECISION,
    STANCE,
    bounded_int,
    enum_name,
    parse_time_scope,
    parse_uuids,
    time_scope_to_pb,
    timestamp,
    truncation_to_pb,
)
from shared.timescope import TimeScope, WindowRecord, temporal_match

T1 = datetime(2026, 6, 1, tzinfo=UTC)
T2 = datetime(2026, 7, 1, tzinfo=UTC)


def _scope(message: common_pb2.TimeScope) -> tuple[TimeScope, Violations]:
    violations = Violations()
    return parse_time_scope(message, "time_scope", violations, has_field=True), violations


def test_unset_time_scope_means_current() -> None:
    violations = Violations()
    scope = parse_time_scope(common_pb2.TimeScope(), "time_scope", violations, has_field=False)
    assert scope.kind == "current" and not violations


def test_as_of_without_believed_at_names_the_missing_field() -> None:
    message = common_pb2.TimeScope(as_of=common_pb2.AsOfScope(valid_at=timestamp(T1)))
    _scope_value, violations = _scope(message)
    assert [v.field for v in violations.items] == ["time_scope.as_of.believed_at"]


def test_overlap_with_end_before_start_is_rejected() -> None:
    overlap = common_pb2.OverlapScope(to=timestamp(T1))
    getattr(overlap, "from").CopyFrom(timestamp(T2))
    _scope_value, violations = _scope(common_pb2.TimeScope(overlap=overlap))
    assert [v.field for v in violations.items] == ["time_scope.overlap.to"]


@pytest.mark.parametrize(
    "message",
    [
        common_pb2.TimeScope(current=common_pb2.CurrentScope()),
        common_pb2.TimeScope(history=common_pb2.HistoryScope()),
        common_pb2.TimeScope(at=common_pb2.AtScope(valid_at=timestamp(T1))),
        common_pb2.TimeScope(
            as_of=common_pb2.AsOfScope(valid_at=timestamp(T1), believed_at=timestamp(T2))
        ),
    ],
)
def test_time_scope_round_trips_through_the_domain(message: common_pb2.TimeScope) -> None:
    scope, violations = _scope(message)
    assert not violations
    assert time_scope_to_pb(scope) == message


def test_duplicate_and_malformed_ids_are_each_named() -> None:
    same = str(uuid.uuid4())
    violations = Violations()
    parsed = parse_uuids([same, "not-a-uuid", same], "entity_ids", violations, max_items=19)
    assert len(parsed) == 1
    assert [v.field for v in violations.items] == ["entity_ids[1]", "entity_ids[2]"]
    with pytest.raises(InvalidArgument):
        violations.raise_if_any()


@pytest.mark.parametrize(("value", "expected_ok"), [(0, True), (1, True), (30, True), (31, False)])
def test_bounded_int_uses_default_for_zero_and_rejects_out_of_range(
    value: int, expected_ok: bool
) -> None:
    violations = Violations()
    result = bounded_int(value, "k", violations, default=15, low=1, high=30)
    assert bool(violations) is not expected_ok
    assert result == (15 if value in (0, 31) else value)


def test_enum_names_map_both_ways() -> None:
    assert enum_name(PRECISION, common_pb2.PRECISION_QUARTER) == "quarter"
    assert enum_name(STANCE, fact_pb2.STANCE_CONTRADICTS) == "contradicts"
    assert enum_name(STANCE, 99) is None


def test_truncation_lists_primary_and_additional_reasons() -> None:
    info = TruncationInfo(True, 15, 40, False, ("result_budget", "time_budget"), "tok")
    message = truncation_to_pb(info)
    assert message.reason == common_pb2.TRUNCATION_REASON_RESULT_BUDGET
    assert list(message.additional_reasons) == [common_pb2.TRUNCATION_REASON_TIME_BUDGET]
    assert message.continuation == "tok" and message.truncated


@pytest.mark.parametrize(
    ("window", "expected"),
    [
        (WindowRecord(T1, T2, "day"), "confirmed"),
        (WindowRecord(T1, None, "open"), "confirmed"),
        (WindowRecord(T1, None, "day"), "possible"),
        (WindowRecord(None, T2, "unknown"), "possible"),
        (WindowRecord(None, None, "unknown"), "possible"),
    ],
)
def test_temporal_match_is_confirmed_only_for_complete_windows(
    window: WindowRecord, expected: str
) -> None:
    assert temporal_match(window) == expected
