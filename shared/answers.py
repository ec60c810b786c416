"""How a bounded read says what it did not return: typed negatives and truncation blocks.

Pure values, shared by the core of every read service and by replica supervision; the wire
forms live in `shared.proto_convert` (negative_to_pb, truncation_to_pb), used by converters.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["NegativeAnswer", "TruncationInfo"]


@dataclass(frozen=True)
class NegativeAnswer:
    """A typed negative: an answer, never an error."""

    kind: str
    explanation: str
    workaround: str


@dataclass(frozen=True)
class TruncationInfo:
    """Every bound that applied to a read."""

    truncated: bool
    returned: int
    estimated_total: int
    total_is_exact: bool
    reasons: tuple[str, ...] = ()
    continuation: str = ""
