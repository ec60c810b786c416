"""The scope oracle of the consistency property, on hand-made windows (pure)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.support.scope_oracle import (
    Scope,
    Shown,
    claim_end_exclusive,
    expected_match,
    is_record_after_window,
    shown_reason,
    widened_claim_end,
)

NOW = datetime(2026, 12, 1, tzinfo=UTC)
MAY = datetime(2026, 5, 1, tzinfo=UTC)
JUNE = datetime(2026, 6, 1, tzinfo=UTC)
BELIEVED = Shown(MAY, JUNE, "month", ingested_at=NOW - timedelta(days=1))


def test_an_instant_qualifies_inside_the_half_open_window_only() -> None:
    assert shown_reason(BELIEVED, Scope("at", NOW, valid_at=MAY)) is None
    assert (
        shown_reason(BELIEVED, Scope("at", NOW, valid_at=JUNE - timedelta(microseconds=1))) is None
    )
    assert shown_reason(BELIEVED, Scope("at", NOW, valid_at=JUNE)) == (
        "instant at or after the window's end"
    )
    assert shown_reason(BELIEVED, Scope("current", NOW)) is not None
    open_ended = Shown(MAY, None, "open")
    assert shown_reason(open_ended, Scope("current", NOW)) is None
    assert shown_reason(Shown(None, None, "unknown"), Scope("at", NOW, valid_at=MAY)) is None


def test_overlap_includes_both_ends_and_history_needs_a_begun_window() -> None:
    touching = Scope("overlap", NOW, start=JUNE - timedelta(days=3), end=MAY)
    assert shown_reason(BELIEVED, touching) is None
    after = Scope("overlap", NOW, start=JUNE, end=JUNE + timedelta(days=3))
    assert shown_reason(BELIEVED, after) == "window ended before the interval"
    future = Shown(NOW + timedelta(days=30), None, "open")
    assert shown_reason(future, Scope("history", NOW)) == "window has not begun by now"
    assert shown_reason(BELIEVED, Scope("history", NOW)) is None


def test_as_of_keeps_what_was_believed_at_the_belief_instant() -> None:
    retired = Shown(MAY, None, "open", ingested_at=MAY, invalidated_at=JUNE)
    at_may = Scope("as_of", NOW, valid_at=MAY, believed_at=MAY)
    assert shown_reason(retired, at_may) is None
    assert shown_reason(retired, Scope("as_of", NOW, valid_at=MAY, believed_at=JUNE)) is not None
    assert shown_reason(retired, Scope("at", NOW, valid_at=MAY)) is not None


def test_confirmed_needs_both_ends_or_a_declared_open_start() -> None:
    assert expected_match(BELIEVED) == "confirmed"
    assert expected_match(Shown(MAY, None, "open")) == "confirmed"
    assert expected_match(Shown(MAY, None, "day")) == "possible"
    assert expected_match(Shown(None, JUNE, "day")) == "possible"


def test_a_claims_inclusive_end_is_its_last_day_whatever_the_precision() -> None:
    june_30 = datetime(2026, 6, 30, tzinfo=UTC)
    july_1 = datetime(2026, 7, 1, tzinfo=UTC)
    assert claim_end_exclusive(june_30, "day") == july_1
    assert claim_end_exclusive(june_30, "month") == july_1
    assert claim_end_exclusive(june_30, "quarter") == july_1
    assert claim_end_exclusive(None, "day") is None
    # The misreading: a whole month more after the last covered day.
    assert widened_claim_end(june_30, "month") == datetime(2026, 7, 30, tzinfo=UTC)
    assert widened_claim_end(june_30, "day") == july_1


def test_only_records_after_their_window_are_the_known_class() -> None:
    later = Scope("at", NOW, valid_at=JUNE + timedelta(days=10))
    assert is_record_after_window(BELIEVED, "event_time", later)
    assert not is_record_after_window(BELIEVED, "effective_period", later)
    assert not is_record_after_window(BELIEVED, "event_time", Scope("at", NOW, valid_at=MAY))
