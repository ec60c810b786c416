"""Every service's settings at once: what one ConfigMap shared by all pods configures.

A deployment hands the same `REMEMBERSTACK_*` variables to every service, and each service
reads its own class. Tests of that shared configuration (the k8s manifests, the settings
reference) validate against the union, so a variable no service reads fails there.
"""

from __future__ import annotations

from typing import Any

from services.adjudicator.config import AdjudicatorSettings
from services.graph.config import GraphSettings
from services.ingest.config import IngestSettings
from services.query.config import QuerySettings
from shared.config import settings_with

__all__ = ["SERVICE_SETTINGS", "SystemSettings", "load_system_settings"]

SERVICE_SETTINGS = {
    "ingest": IngestSettings,
    "adjudicator": AdjudicatorSettings,
    "query": QuerySettings,
    "graph": GraphSettings,
}


class SystemSettings(IngestSettings, AdjudicatorSettings, QuerySettings, GraphSettings):
    """The fields of all four services' settings, with all of their checks."""


def load_system_settings(**overrides: Any) -> SystemSettings:
    return settings_with(SystemSettings, overrides)
