"""Query service settings: the shared settings suffice (query_db_budget_seconds lives there)."""

from __future__ import annotations

from shared.config import Settings, load_settings

__all__ = ["Settings", "load_settings"]
