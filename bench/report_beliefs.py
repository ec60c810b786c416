"""The beliefs generalisation section of bench/REPORT.md (from bench/results/beliefs_quality.json).

Aggregates only: the holdout half's failures are never written anywhere, and the tune half's
are in the JSON, not in the report.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.report_sections import fmt

__all__ = ["SECTIONS"]

Section = Callable[[dict[str, Any], Path], list[str]]
_HALVES = ("tune", "holdout")


def _cell(half: dict[str, Any] | None, table: str, label: str) -> str:
    if half is None:
        return "–"
    row = half.get(table, {}).get(label)
    return "–" if row is None else f"{row['passed']}/{row['n']} ({fmt(row['rate'], 2)})"


def _labels(engines: dict[str, Any], table: str) -> list[str]:
    found: set[str] = set()
    for entry in engines.values():
        for half in _HALVES:
            found |= set(entry.get(half, {}).get(table, {}))
    return sorted(found)


def beliefs_quality(data: dict[str, Any], _plots: Path) -> list[str]:
    engines = {k: v for k, v in data.get("engines", {}).items() if isinstance(v, dict)}
    ran = {name: entry for name, entry in engines.items() if "skipped" not in entry}
    lines = [
        "End to end through the four services over gRPC, one namespace per case; a case passes",
        "when every expectation holds (suite: `tests/data/beliefs_generalisation.md`). Cases",
        f"per half: {data.get('cases')}. Reproduce: `{data.get('command')}`.",
        "",
    ]
    lines += [
        f"- {name}: skipped ({entry['skipped']})"
        for name, entry in engines.items()
        if name not in ran
    ]
    columns = [(name, half) for name in ran for half in _HALVES]
    header = "| | " + " | ".join(f"{name} {half}" for name, half in columns) + " |"
    lines += [header, "|---" * (len(columns) + 1) + "|"]
    lines.append(
        "| all cases | "
        + " | ".join(
            f"{ran[n].get(h, {}).get('passed', '–')}/{ran[n].get(h, {}).get('cases', '–')}"
            f" ({fmt(ran[n].get(h, {}).get('pass_rate'), 2)})"
            for n, h in columns
        )
        + " |"
    )
    for table, prefix in (("per_decision", ""), ("per_register", "register ")):
        for label in _labels(ran, table):
            cells = " | ".join(_cell(ran[n].get(h), table, label) for n, h in columns)
            lines.append(f"| {prefix}{label} | {cells} |")
    lines.append(
        "| summed case time (s) | "
        + " | ".join(str(ran[n].get(h, {}).get("seconds", "–")) for n, h in columns)
        + " |"
    )
    return lines


SECTIONS: dict[str, tuple[str, Section]] = {
    "beliefs_quality": ("Beliefs generalisation (issue 17)", beliefs_quality),
}
