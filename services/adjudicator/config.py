"""Settings of the adjudicator: the shared `Settings` already carries every field it reads."""

from __future__ import annotations

from shared.config import Settings, load_settings

__all__ = ["Settings", "load_settings"]
