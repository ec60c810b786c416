"""Settings of the query service: the shared ones, the embedder, and the database budget."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from shared.config import EmbeddingSettings, settings_with

__all__ = ["QuerySettings", "load_settings"]


class QuerySettings(EmbeddingSettings):
    """Shared settings and the embedder (queries are embedded like the stored text was) plus
    what only the query service reads."""

    query_db_budget_seconds: float = Field(
        default=25.0, gt=0, description="Database time budget for one query RPC."
    )


def load_settings(**overrides: Any) -> QuerySettings:
    """Read settings from the environment; keyword overrides win (tests, CLI flags), and those
    naming another service's knobs are left to that service."""
    return settings_with(QuerySettings, overrides)
