"""What a read must return under each time scope, written from SPEC §5 alone (no product code).

World-time windows are half-open, `valid_from <= t < valid_until`, and an unknown end never
rules a fact out (`temporal_match=possible`). A returned fact or edge is consistent with its
scope when the window the response shows qualifies under these rules; a fact of the store
that qualifies must be returned (unless the response says it was truncated). Claims state an
inclusive end at their precision, which becomes exclusive here the same way the SPEC turns a
claim's end into a fact's.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

__all__ = [
    "RECORD_KINDS",
    "Scope",
    "Shown",
    "claim_end_exclusive",
    "expected_match",
    "is_record_after_window",
    "qualifies",
    "shown_reason",
    "widened_claim_end",
]

RECORD_KINDS = frozenset({"event_time", "measurement_period"})


@dataclass(frozen=True)
class Scope:
    """One time scope of a read, with the instant it was evaluated at (`now`)."""

    kind: Literal["current", "at", "overlap", "history", "as_of"]
    now: datetime
    valid_at: datetime | None = None
    start: datetime | None = None
    end: datetime | None = None
    believed_at: datetime | None = None

    def describe(self) -> str:
        if self.kind == "at":
            return f"at {self.valid_at:%Y-%m-%dT%H:%M:%S.%fZ}"
        if self.kind == "overlap":
            return f"overlap [{self.start:%Y-%m-%d %H:%M:%S}, {self.end:%Y-%m-%d %H:%M:%S}]"
        if self.kind == "as_of":
            return (
                f"as_of valid_at={self.valid_at:%Y-%m-%d %H:%M:%S} believed_at={self.believed_at}"
            )
        return self.kind


@dataclass(frozen=True)
class Shown:
    """A window and belief interval as a response shows them (or as the store holds them)."""

    valid_from: datetime | None
    valid_until: datetime | None
    precision: str
    ingested_at: datetime | None = None
    invalidated_at: datetime | None = None

    def render(self) -> str:
        def iso(value: datetime | None) -> str:
            return "null" if value is None else f"{value:%Y-%m-%dT%H:%M:%S.%f}"

        return (
            f"[{iso(self.valid_from)}, {iso(self.valid_until)}) {self.precision}"
            f" believed [{iso(self.ingested_at)}, {iso(self.invalidated_at)})"
        )


def _holds(window: Shown, instant: datetime) -> bool:
    began = window.valid_from is None or window.valid_from <= instant
    return began and (window.valid_until is None or instant < window.valid_until)


def _believed(window: Shown, scope: Scope) -> bool:
    if scope.kind != "as_of":
        return window.invalidated_at is None
    believed_at = scope.believed_at
    assert believed_at is not None
    started = window.ingested_at is None or window.ingested_at <= believed_at
    return started and (window.invalidated_at is None or believed_at < window.invalidated_at)


def shown_reason(window: Shown, scope: Scope) -> str | None:
    """Why `window` does not qualify for `scope`; None when it does."""
    if not _believed(window, scope):
        return "not believed at the scope's belief instant"
    if scope.kind == "overlap":
        assert scope.start is not None and scope.end is not None
        if window.valid_from is not None and window.valid_from > scope.end:
            return "window begins after the interval"
        if window.valid_until is not None and window.valid_until <= scope.start:
            return "window ended before the interval"
        return None
    if scope.kind == "history":
        if window.valid_from is not None and window.valid_from > scope.now:
            return "window has not begun by now"
        return None
    instant = scope.now if scope.kind == "current" else scope.valid_at
    assert instant is not None
    if window.valid_from is not None and instant < window.valid_from:
        return "instant before the window"
    if window.valid_until is not None and instant >= window.valid_until:
        return "instant at or after the window's end"
    return None


def qualifies(window: Shown, scope: Scope) -> bool:
    return shown_reason(window, scope) is None


def expected_match(window: Shown) -> Literal["confirmed", "possible"]:
    """Confirmed for a complete window (both ends, or a known start declared open)."""
    if window.valid_from is None:
        return "possible"
    if window.valid_until is not None or window.precision == "open":
        return "confirmed"
    return "possible"


def _add_months(value: datetime, months: int) -> datetime:
    month = value.month - 1 + months
    year, month = value.year + month // 12, month % 12 + 1
    day = min(value.day, calendar.monthrange(year, month)[1])
    return value.replace(year=year, month=month, day=day)


def claim_end_exclusive(until: datetime | None, precision: str) -> datetime | None:
    """A claim's stated end as an exclusive instant. Extractors state the inclusive end as the
    last day still covered ("until June 2026" ends 2026-06-30, precision month), so the
    exclusive end is the next day, whatever the precision; an instant covers itself."""
    if until is None:
        return None
    if precision in ("instant", "unknown", "open"):
        return until + timedelta(microseconds=1)
    return until.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)


def widened_claim_end(until: datetime | None, precision: str) -> datetime | None:
    """The end a read would use if it widened the last covered day by a whole period of the
    precision (a month after 30 June is 30 July): the misreading `is_claim_end_overshoot`
    names."""
    if until is None:
        return None
    months = {"month": 1, "quarter": 3, "year": 12}.get(precision)
    return _add_months(until, months) if months else claim_end_exclusive(until, precision)


def is_record_after_window(window: Shown, valid_kind: str | None, scope: Scope) -> bool:
    """A record of an event (or a measurement) returned at an instant after its window: the
    product keeps those as "true as records" (docs/architecture.md, Time), the SPEC's window
    rule and issue 17 (class 4) do not."""
    if scope.kind not in ("current", "at", "as_of") or valid_kind not in RECORD_KINDS:
        return False
    instant = scope.now if scope.kind == "current" else scope.valid_at
    assert instant is not None
    return window.valid_until is not None and instant >= window.valid_until
