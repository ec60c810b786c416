"""Settings of the graph service: the shared ones plus the budgets of one graph walk."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from shared.config import Settings, settings_with

__all__ = ["GraphSettings", "load_settings"]


class GraphSettings(Settings):
    """Shared settings plus what only the graph service reads."""

    graph_max_edges: int = Field(default=2000, gt=0, description="Edges one graph walk may return.")
    graph_max_frontier: int = Field(
        default=1000, gt=0, description="Nodes one graph walk may hold in its frontier."
    )
    graph_time_budget_ms: int = Field(
        default=1000, gt=0, description="Wall-clock budget for one graph walk, in milliseconds."
    )


def load_settings(**overrides: Any) -> GraphSettings:
    """Read settings from the environment; keyword overrides win (tests, CLI flags), and those
    naming another service's knobs are left to that service."""
    return settings_with(GraphSettings, overrides)
