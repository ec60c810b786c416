"""REPORT.md sections of the security benchmarks: auth + TLS overhead, idle readiness streams."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["SECTIONS"]


def auth_overhead(data: dict[str, Any], _plots: Path) -> list[str]:
    lines = [
        f"FactsContext on {data['facts']:,} synthetic facts, {data['requests_per_server']} requests"
        " per server, one client alternating between three query servers (each its own"
        " process) on one store: the ratio is against the open plaintext server in the same"
        f" run (load average {data['load_average_1m']} on {data['cpu_count']} cores).",
        "",
        "| clients | server | p50 ms | p95 ms | p50 ratio | p95 ratio |",
        "|---|---|---|---|---|---|",
    ]
    for clients, per in data["latency"].items():
        for name, figures in per.items():
            ratio = data["ratio_to_open"][clients].get(name, {"p50": 1.0, "p95": 1.0})
            lines.append(
                f"| {clients.replace('_', ' ')} | {name} | {figures['p50_ms']:.2f} |"
                f" {figures['p95_ms']:.2f} | {ratio['p50']:.2f} | {ratio['p95']:.2f} |"
            )
    checks = data.get("per_call_check_microseconds", {})
    if checks:
        lines += [
            "",
            "What the interceptor adds per call, in process (µs): "
            + ", ".join(f"{name} {value:.1f}" for name, value in checks.items())
            + ".",
        ]
    lines += ["", "Reproduce: `.venv/bin/python -m bench.auth_overhead`."]
    return lines


def watch_readiness_idle(data: dict[str, Any], _plots: Path) -> list[str]:
    lines = [
        "CPU of idle WatchReadiness streams (ingest process plus PostgreSQL backends, cores),"
        " with the same process's no-stream baseline measured in the same run:",
        "",
        "| implementation | streams | baseline | with streams | streams cost |",
        "|---|---|---|---|---|",
    ]
    for label, run in data.items():
        lines.append(
            f"| {label} | {run['streams']} | {run['baseline_cpu_share_median']:.3f} |"
            f" {run['with_streams_cpu_share_median']:.3f} | {run['streams_cost_cores']:.3f} |"
        )
    lines += [
        "",
        "`polling_0.2s` is the code before LISTEN/NOTIFY (migration 0010), measured with the"
        " same script. Reproduce: `.venv/bin/python -m bench.watch_readiness_idle --label NAME`.",
    ]
    return lines


SECTIONS: dict[str, tuple[str, Any]] = {
    "auth_overhead": ("Authentication and TLS overhead (FactsContext)", auth_overhead),
    "watch_readiness_idle": ("Idle WatchReadiness streams", watch_readiness_idle),
}
