"""Report sections for reads under write load (load_mixed) and the read replica (issue 22)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["SECTIONS"]

Section = Callable[[dict[str, Any], Path], list[str]]
_RPCS = ("FactsContext", "ClaimsAndSourcesContext")


def _cell(rpc: dict[str, Any]) -> str:
    if "p50_ms" not in rpc:
        return "–"
    errors = sum(rpc.get("errors", {}).values())
    return (
        f"{rpc['p50_ms']:,.0f} / {rpc['p95_ms']:,.0f} / {rpc['p99_ms']:,.0f}"
        f" ({rpc['per_second']:.1f}/s{f', {errors} errors' if errors else ''})"
    )


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def load_mixed(data: dict[str, Any], _plots: Path) -> list[str]:
    runs: dict[str, Any] = data.get("runs", {})
    lines = [
        "Reading clients (closed loop, LoCoMo questions) against the real query service while"
        " one writer ingests the rest of LoCoMo through the real pipeline (preloaded sessions"
        " adjudicated first). p50 / p95 / p99 in ms over the window, requests per second."
        " `before_*` runs are the code before issue 22, `after_*` this build, interleaved"
        " (before, after, before, after) so both see the same period of machine load.",
        "",
        "| run | readers | FactsContext | ClaimsAndSourcesContext | pipeline facts/s in window"
        " | load avg (1 min) |",
        "|---|---|---|---|---|---|",
    ]
    for label in sorted(runs):
        run = runs[label]
        pipeline = run.get("pipeline_in_window", {})
        load = pipeline.get("load_average_1m", ["?", "?"])
        lines.append(
            f"| {label} | {run['readers']} (think {run['think_ms']:g} ms) |"
            f" {_cell(run['rpcs'].get('FactsContext', {}))} |"
            f" {_cell(run['rpcs'].get('ClaimsAndSourcesContext', {}))} |"
            f" {pipeline.get('facts_per_second', '–')} | {load[0]} → {load[-1]} |"
        )
    pairs = [
        (runs[f"before_{i}"], runs[f"after_{i}"])
        for i in range(1, 10)
        if f"before_{i}" in runs and f"after_{i}" in runs
    ]
    if pairs:
        lines += ["", "| after / before (same period) | p50 | p99 |", "|---|---|---|"]
        for rpc in _RPCS:
            ratios = {
                p: [
                    after["rpcs"][rpc][f"{p}_ms"] / before["rpcs"][rpc][f"{p}_ms"]
                    for before, after in pairs
                    if f"{p}_ms" in after["rpcs"].get(rpc, {})
                    and f"{p}_ms" in before["rpcs"].get(rpc, {})
                ]
                for p in ("p50", "p99")
            }
            cells = [
                f"{_median(v):.2f} (runs: {', '.join(f'{x:.2f}' for x in v)})" if v else "–"
                for v in ratios.values()
            ]
            lines.append(f"| {rpc} | {cells[0]} | {cells[1]} |")
    lines += [
        "",
        "Targets (issue 22), 8 readers while LoCoMo ingests: FactsContext p99 ≤ 150 ms,"
        " ClaimsAndSourcesContext p99 ≤ 300 ms. What read priority costs the pipeline shows"
        " in the middle row of the plot: the writer's `IngestDocument` calls run in the niced"
        " ingest process, so under read load fewer sessions are accepted in the window, and"
        " facts per second in a 60 s window are low in every run because a new session needs"
        " all three stages before it yields a fact. The machine's load average (other work"
        " on it) is in the table: absolute figures are far above what the same code shows on"
        " a quiet machine, the same-period ratios are the comparison.",
        "",
        "![read latency, queue backlog and RSS over the mixed load](plots/load_mixed.png)",
        "",
        "Reproduce: `.venv/bin/python -m bench.load_mixed --label after_1` (this build), and"
        " from a checkout of the earlier code with this file copied in:"
        " `PYTHONPATH=. python -m bench.load_mixed --label before_1`.",
    ]
    return lines


def _stats(stats: dict[str, Any]) -> str:
    if not stats.get("n"):
        return "–"
    return f"{stats['p50']:,} / {stats['p95']:,} / {stats['max']:,} (n = {stats['n']})"


def read_replica(data: dict[str, Any], _plots: Path) -> list[str]:
    latency = data.get("latency_ms", {})
    return [
        "A streaming hot standby built by pgserver's `pg_basebackup` while the pipeline"
        f" ingests {data.get('sessions')} LoCoMo sessions ({data.get('preloaded_sessions')}"
        " adjudicated before the standby was built). Lag is PostgreSQL's own"
        " (`pg_stat_replication`, sampled every 0.25 s; NULL while idle counts as 0).",
        "",
        "| figure | p50 / p95 / max |",
        "|---|---|",
        f"| replay lag (ms) | {_stats(data.get('replay_lag_ms', {}))} |",
        f"| write lag (ms) | {_stats(data.get('write_lag_ms', {}))} |",
        f"| replay gap (KiB of WAL) | {_stats(data.get('replay_gap_kib', {}))} |",
        f"| FactsContext on the primary (ms) | {_stats(latency.get('primary', {}))} |",
        f"| FactsContext on the replica (ms) | {_stats(latency.get('replica', {}))} |",
        "| FactsContext as_of believed_at = now on the replica (ms) |"
        f" {_stats(latency.get('replica_as_of_now', {}))} |",
        "",
        f"Standby built in {data.get('standby_build_seconds')} s. Of"
        f" {data.get('as_of_now_reads')} `as_of` reads at believed_at = now,"
        f" {data.get('as_of_now_boundaries')} answered with a `boundary` negative (the replica"
        " had not replayed to them within the 1 s wait); the rest waited for replay and"
        " answered in full. Reproduce: `.venv/bin/python -m bench.read_replica`.",
    ]


SECTIONS: dict[str, tuple[str, Section]] = {
    "load_mixed": ("Reads under write load (issue 22)", load_mixed),
    "read_replica": ("Read replica (issue 22)", read_replica),
}
