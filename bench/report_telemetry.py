"""REPORT.md section of bench/telemetry_overhead.py: what exporting traces and metrics costs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.report_sections import fmt

__all__ = ["SECTIONS"]

Section = Callable[[dict[str, Any], Path], list[str]]


def telemetry_overhead(data: dict[str, Any], _plots: Path) -> list[str]:
    pipeline = data.get("pipeline", {})
    reads = data.get("facts_context", {})
    off, on = reads.get("off", {}), reads.get("on", {})
    lines = [
        f"`{data.get('command')}`: off is the default (no endpoint: spans made, nothing"
        " exported, no statement spans); on exports traces with a span per SQL statement and"
        " metrics every 5 s over OTLP/gRPC to a receiver in the benchmark process.",
        "",
        "| figure | off | on | on / off |",
        "|---|---|---|---|",
        f"| LoCoMo ingest → facts, {data.get('sessions')} sessions, mean wall (s) | "
        f"{fmt(pipeline.get('off_mean_seconds'), 1)} | {fmt(pipeline.get('on_mean_seconds'), 1)}"
        f" | {fmt(pipeline.get('ratio'))} |",
        f"| FactsContext p50 (ms), {reads.get('queries')} questions × {reads.get('repeats')} | "
        f"{fmt(off.get('p50_ms'), 1)} | {fmt(on.get('p50_ms'), 1)} | "
        f"{fmt(reads.get('ratio_p50'))} |",
        f"| FactsContext p95 (ms) | {fmt(off.get('p95_ms'), 1)} | {fmt(on.get('p95_ms'), 1)} | "
        f"{fmt(reads.get('ratio_p95'))} |",
        "",
        "| run | mode | wall (s) | claims | facts | spans received | metric points |",
        "|---|---|---|---|---|---|---|",
    ]
    runs = data.get("pipeline_runs", [])
    for index, run in enumerate(runs, 1):
        lines.append(
            f"| {index} | {run['mode']} | {fmt(run['wall_seconds'], 1)} | {run['claims']} | "
            f"{run['facts']} | {run['spans_received']} | {run['metric_points_received']} |"
        )
    off = [r["wall_seconds"] for r in runs if r["mode"] == "off"]
    if len(off) > 1:
        spread = (max(off) - min(off)) / min(off)
        lines += [
            "",
            f"Two runs of the same mode differ by {spread:.0%} here (the shared machine's load),"
            " more than any difference between the modes, so the pipeline ratio says only that"
            " the cost of exporting is below that noise. The FactsContext ratio, from two"
            " servers asked the same questions in turn in one process, is the sharper figure.",
        ]
    return lines


SECTIONS: dict[str, tuple[str, Section]] = {
    "telemetry_overhead": ("Telemetry overhead: exporting vs not (issue 19)", telemetry_overhead),
}
