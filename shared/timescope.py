"""Bitemporal time scopes of reads and how a fact's window matches them (SPEC §5)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

__all__ = [
    "ScopeKind",
    "TimeScope",
    "WindowRecord",
    "is_complete",
    "temporal_match",
]

ScopeKind = Literal["current", "at", "overlap", "history", "as_of"]


@dataclass(frozen=True)
class TimeScope:
    """A validated read scope. Instants are timezone-aware UTC datetimes.

    ``current`` and ``at`` ask what holds at one world instant as believed now; ``overlap`` asks
    for windows touching ``[start, end]`` (both ends included); ``history`` asks for every
    believed window that began by now; ``as_of`` asks what was believed at ``believed_at`` about
    ``valid_at``.
    """

    kind: ScopeKind = "current"
    valid_at: datetime | None = None
    start: datetime | None = None
    end: datetime | None = None
    believed_at: datetime | None = None

    def world_instant(self, now: datetime) -> datetime | None:
        """The world-time instant the scope asks about, if it asks about one."""
        if self.kind == "current":
            return now
        if self.kind in ("at", "as_of"):
            return self.valid_at
        return None

    def belief_instant(self, now: datetime) -> datetime:
        """The belief-time instant: ``believed_at`` for as_of, otherwise now."""
        return self.believed_at if self.kind == "as_of" and self.believed_at else now

    @property
    def expands_graph(self) -> bool:
        """Anchor expansion through relations is only defined for a single world instant now."""
        return self.kind in ("current", "at")


@dataclass(frozen=True)
class WindowRecord:
    """The parts of a fact's window that decide a temporal match."""

    valid_from: datetime | None
    valid_until: datetime | None
    valid_precision: str


def is_complete(window: WindowRecord) -> bool:
    """A window is complete when both ends are known, or a known start is declared open."""
    if window.valid_from is None:
        return False
    return window.valid_until is not None or window.valid_precision == "open"


def temporal_match(window: WindowRecord) -> Literal["confirmed", "possible"]:
    """Confirmed for complete windows; missing or partial ones cannot be ruled in or out."""
    return "confirmed" if is_complete(window) else "possible"
