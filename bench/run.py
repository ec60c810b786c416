"""`make bench` / `make bench-quick`: run every benchmark, then regenerate bench/REPORT.md.

Each benchmark is its own module that writes `bench/results/<name>.json`; this runner only
orders them, runs each in a fresh process (so one benchmark's memory or threads never colour the
next), and records how each run went in `bench/results/_runs.json`. Quick mode runs the same code
at tiny sizes so the benchmarks cannot rot; it asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.report import write_report

__all__ = ["BENCHMARKS", "Benchmark", "main"]

RESULTS = Path(__file__).resolve().parent / "results"
PLOTS = Path(__file__).resolve().parent / "plots"


@dataclass(frozen=True)
class Benchmark:
    """One benchmark module and its arguments in each mode."""

    name: str
    module: str
    quick: tuple[str, ...]
    full: tuple[str, ...]


BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark("locomo_bm25", "bench.locomo.run_bm25", (), ()),
    Benchmark("extraction_quality", "bench.extraction_quality", (), ("--locomo",)),
    Benchmark("embedding_speed", "bench.embedding_speed", ("--texts", "256", "--repeats", "1"), ()),
    Benchmark("entity_resolution", "bench.entity_resolution", ("--quick",), ()),
    Benchmark("adjudication_quality", "bench.adjudication_quality", (), ()),
    Benchmark("beliefs_quality", "bench.beliefs_quality", ("--quick",), ()),
    Benchmark("ingest_throughput", "bench.ingest_throughput", ("--quick",), ()),
    Benchmark("pipeline_throughput", "bench.pipeline_throughput", ("--quick",), ()),
    Benchmark("adjudication_throughput", "bench.adjudication_throughput", ("--quick",), ()),
    Benchmark("pipeline_synthetic", "bench.pipeline_synthetic", ("--quick",), ()),
    Benchmark("entity_stress", "bench.entity_stress", ("--quick",), ()),
    Benchmark("locomo_retrieval", "bench.locomo.run_retrieval", ("--quick",), ()),
    Benchmark("query_latency", "bench.query_latency", ("--quick",), ()),
    Benchmark("graph_latency", "bench.graph_latency", ("--quick",), ()),
    Benchmark("storage_size", "bench.storage_size", ("--quick",), ()),
    Benchmark("telemetry_overhead", "bench.telemetry_overhead", ("--quick",), ()),
    Benchmark("auth_overhead", "bench.auth_overhead", ("--quick",), ()),
    Benchmark("watch_readiness_idle", "bench.watch_readiness_idle", ("--quick",), ()),
    Benchmark("load_mixed", "bench.load_mixed", ("--quick",), ()),
    Benchmark("read_replica", "bench.read_replica", ("--quick",), ()),
)


def _run(benchmark: Benchmark, *, quick: bool, timeout: float) -> dict[str, object]:
    args = benchmark.quick if quick else benchmark.full
    started = time.monotonic()
    try:
        completed = subprocess.run(
            [sys.executable, "-m", benchmark.module, *args],
            timeout=timeout,
            capture_output=True,
            text=True,
        )
        status = "ok" if completed.returncode == 0 else f"exit {completed.returncode}"
        tail = (completed.stdout + completed.stderr)[-2000:]
    except subprocess.TimeoutExpired:
        status, tail = "timeout", ""
    return {
        "name": benchmark.name,
        "mode": "quick" if quick else "full",
        "status": status,
        "seconds": round(time.monotonic() - started, 1),
        "output_tail": tail,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--quick", action="store_true", help="tiny sizes, for CI")
    mode.add_argument("--full", action="store_true", help="the sizes the issues name")
    parser.add_argument("--only", nargs="*", help="run only these benchmark names")
    args = parser.parse_args(argv)
    RESULTS.mkdir(parents=True, exist_ok=True)
    timeout = 300.0 if args.quick else 3600.0
    # Quick runs must not replace the committed full-size figures or plots (some benchmarks
    # draw their own): keep a copy of both and put them back.
    backup = Path(tempfile.mkdtemp(prefix="bench-results-"))
    if args.quick:
        shutil.copytree(RESULTS, backup, dirs_exist_ok=True)
        shutil.copytree(PLOTS, backup / "_saved_plots", dirs_exist_ok=True)
    runs = []
    for benchmark in BENCHMARKS:
        if args.only and benchmark.name not in args.only:
            continue
        print(f"== {benchmark.name}", flush=True)
        run = _run(benchmark, quick=args.quick, timeout=timeout)
        print(f"   {run['status']} in {run['seconds']} s", flush=True)
        if run["status"] != "ok":
            print(run["output_tail"], flush=True)
        runs.append(run)
    (RESULTS / "_runs.json").write_text(json.dumps(runs, indent=2))
    report = Path(__file__).resolve().parent / "REPORT.md"
    if args.quick:
        write_report(RESULTS, backup / "QUICK_REPORT.md")
        shutil.rmtree(RESULTS)
        shutil.copytree(
            backup, RESULTS, ignore=shutil.ignore_patterns("QUICK_REPORT.md", "plots", "_saved_*")
        )
        shutil.copytree(backup / "_saved_plots", PLOTS, dirs_exist_ok=True)
        print(f"quick report (not committed): {backup / 'QUICK_REPORT.md'}")
    else:
        write_report(RESULTS, report)
    failed = [run["name"] for run in runs if run["status"] != "ok"]
    if failed:
        print(f"failed: {', '.join(map(str, failed))}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
