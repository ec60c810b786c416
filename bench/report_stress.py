"""REPORT.md section of the entity-cascade stress set (issue 17)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["SECTIONS"]

Section = Callable[[dict[str, Any], Path], list[str]]


def entity_stress(data: dict[str, Any], _plots: Path) -> list[str]:
    count = data.get("company_entities")
    met = "–" if count is None else ("met" if count == 1 else "**missed**")
    lines = [
        f"One company ({data.get('company')}, short name {data.get('short_name')}) named in "
        f"{data.get('documents')} generated documents (`bench/entity_stress_corpus.py`, seed "
        f"{data.get('seed')}), ingested in order through the API with "
        f"{data.get('adjudicator_processes')} adjudicator processes "
        f"(`python -m bench.entity_stress`, {data.get('mode')} mode).",
        "",
        "| figure | value | target |",
        "|---|---|---|",
        f"| entities holding the company's name | {count} | 1: {met} |",
        f"| … holding the full name / the short name / both | "
        f"{data.get('entities_with_full_name')} / {data.get('entities_with_short_name')} / "
        f"{data.get('entities_with_both_names')} | 1 / 1 / 1 |",
        f"| aliases of the largest of them | {data.get('largest_company_entity_aliases')} | |",
        f"| entities in the namespace | {data.get('entities_total')} | |",
        f"| dead letters | {data.get('dead_letters')} | 0 |",
        f"| wall time, ingest to drained (s) | {data.get('wall_seconds')} | |",
    ]
    sets = data.get("company_entity_alias_sets") or {}
    if len(sets) > 1 or any(count > 1 for count in sets.values()):
        lines += ["", "Alias sets of the company's entities, with how many entities have each:", ""]
        lines += [f"- {aliases} × {count}" for aliases, count in sets.items()]
    lines += [
        "",
        f"Measured with a 1-minute load average of {data.get('load_average_1min')} on the shared"
        " 2-core machine: the wall time is not a speed figure.",
    ]
    return lines


SECTIONS: dict[str, tuple[str, Section]] = {
    "entity_stress": (
        "Entity cascade stress: one company in many documents (issue 17)",
        entity_stress,
    ),
}
