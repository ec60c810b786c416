"""Driving the adjudication service in tests: world dates and adjudicating documents in order."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from services.adjudicator.service import AdjudicationService

__all__ = ["day", "run"]


def day(y: int, m: int, d: int = 1) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


async def run(service: AdjudicationService, corpus: Any, *docs: Any) -> None:
    """Adjudicate each document's latest version, in the order given."""
    for doc in docs:
        await service.adjudicate_version(corpus.namespace, doc.versions[-1], decided_by="test")
