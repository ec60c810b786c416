"""Per-version pipeline stages and their statuses, as clients read them in `version_stages`."""

from __future__ import annotations

from typing import Final

__all__ = [
    "PIPELINE_STAGES",
    "SETTLED_STATUSES",
    "UNFINISHED_STATUSES",
    "failure_text",
]

PIPELINE_STAGES: Final = ("convert", "chunk", "extract", "embed", "adjudicate")
SETTLED_STATUSES: Final = frozenset({"succeeded", "skipped"})
UNFINISHED_STATUSES: Final = ("pending", "running", "failed", "dead_letter")
"""Statuses a worker may overwrite: a settled stage is never reopened by a late or retried item."""

_ERROR_CHARS = 2000


def failure_text(exc: BaseException) -> str:
    """What a stage row keeps of a failure (`last_error`)."""
    return f"{type(exc).__name__}: {exc}"[:_ERROR_CHARS]
