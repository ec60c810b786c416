"""Graph service settings: the shared settings already carry the graph budgets."""

from __future__ import annotations

from shared.config import Settings, load_settings

__all__ = ["Settings", "load_settings"]
