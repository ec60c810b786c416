"""LoCoMo ingest → facts, before/after: the code of two checkouts and setting variants, interleaved.

    .venv/bin/python -m bench.pipeline_ab --before ../checkout-before --rounds 2 \
        --variant int8:REMEMBERSTACK_EMBEDDER_INT8_COMPUTE=true
    .venv/bin/python -m bench.pipeline_ab --summarize-only --before ../checkout-before \
        --variant int8:REMEMBERSTACK_EMBEDDER_INT8_COMPUTE=true     # the JSON again, no runs

Each round runs `bench.pipeline_throughput` (the whole corpus through the launched system) once
per entry, one after another: `before` (the other checkout's code, its own services), `after`
(this build, default settings), then every `--variant` (this build with those settings). On a
shared 2-core machine one run alone says little; entries of the same round ran minutes apart,
so the ratio within a round is the comparison, and the spread over rounds is reported next to
it. Every run's JSON is kept in `--runs`; the summary goes to bench/results/pipeline_ab.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["main", "summarize"]

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results" / "pipeline_ab.json"
TARGET_SECONDS = 90.0
_FIGURES = ("wall_seconds_ingest_to_facts", "facts", "claims")


def _run(label: str, tree: Path, env: dict[str, str], out: Path) -> None:
    """One pipeline_throughput run of the checkout at `tree`, its services from that tree."""
    started = time.strftime("%H:%M:%S")
    load = os.getloadavg()[0]
    subprocess.run(
        [sys.executable, "-m", "bench.pipeline_throughput", "--out", str(out)],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree), **env},
        check=True,
        stdout=subprocess.DEVNULL,
    )
    after = os.getloadavg()[0]
    # The machine is shared: the run's own record says how busy it was around the run.
    data = json.loads(out.read_text())
    data["load_average_1m"] = [round(load, 2), round(after, 2)]
    out.write_text(json.dumps(data, indent=2))
    print(f"{started} {label}: load {load:.2f} -> {after:.2f}", flush=True)


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def summarize(runs: Path, labels: list[str], settings: dict[str, dict[str, str]]) -> dict[str, Any]:
    """Per entry: every round's figures; per entry but `before`: its ratio to `before` in each
    round (same period of machine load), their median and range."""
    rounds: dict[str, list[dict[str, Any]]] = {label: [] for label in labels}
    for label in labels:
        for path in sorted(runs.glob(f"{label}_*.json"), key=lambda p: int(p.stem.rsplit("_")[-1])):
            data = json.loads(path.read_text())
            figures = {key: data[key] for key in _FIGURES}
            figures["embed_done_seconds"] = data["stage_done_seconds"].get("embed")
            figures["extract_done_seconds"] = data["stage_done_seconds"].get("extract")
            figures["load_average_1m"] = data.get("load_average_1m")
            rounds[label].append({"round": int(path.stem.rsplit("_")[-1]), **figures})
    summary: dict[str, Any] = {
        "target_seconds": TARGET_SECONDS,
        "cpu_count": os.cpu_count(),
        "settings": settings,
        "runs": rounds,
    }
    before = {r["round"]: r["wall_seconds_ingest_to_facts"] for r in rounds.get("before", [])}
    ratios: dict[str, Any] = {}
    for label in labels:
        walls = [r["wall_seconds_ingest_to_facts"] for r in rounds[label]]
        if not walls:
            continue
        entry: dict[str, Any] = {
            "median_seconds": round(_median(walls), 1),
            "min_seconds": min(walls),
            "max_seconds": max(walls),
        }
        paired = [
            r["wall_seconds_ingest_to_facts"] / before[r["round"]]
            for r in rounds[label]
            if r["round"] in before
        ]
        if label != "before" and paired:
            entry |= {
                "ratio_to_before_median": round(_median(paired), 3),
                "ratio_to_before_each_round": [round(x, 3) for x in paired],
            }
        ratios[label] = entry
    summary["summary"] = ratios
    return summary


def _variant(raw: str) -> tuple[str, dict[str, str]]:
    name, _, assignments = raw.partition(":")
    env = dict(item.split("=", 1) for item in assignments.split(",") if item)
    if not name or name in ("before", "after") or not env:
        raise SystemExit(f"--variant {raw!r}: expected NAME:REMEMBERSTACK_X=value[,…]")
    return name, env


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="checkout of the code before the change")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--first-round", type=int, default=1, help="number of the first round (add rounds later)"
    )
    parser.add_argument(
        "--after",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="run this build with default settings in each round (--no-after: variants only)",
    )
    parser.add_argument(
        "--variant", action="append", default=[], help="NAME:REMEMBERSTACK_X=value[,…]"
    )
    parser.add_argument("--runs", type=Path, default=REPO / "var" / "pipeline_ab")
    parser.add_argument("--summarize-only", action="store_true", help="no runs, only the JSON")
    args = parser.parse_args(argv)
    variants = dict(_variant(raw) for raw in args.variant)
    runs: Path = args.runs.resolve()  # the runs' working directory is their checkout
    entries: list[tuple[str, Path, dict[str, str]]] = []
    if args.before:
        entries.append(("before", args.before.resolve(), {}))
    if args.after:
        entries.append(("after", REPO, {}))
    entries += [(name, REPO, env) for name, env in variants.items()]
    if not args.summarize_only:
        runs.mkdir(parents=True, exist_ok=True)
        for round_ in range(args.first_round, args.first_round + args.rounds):
            for label, tree, env in entries:
                _run(label, tree, env, runs / f"{label}_{round_}.json")
    labels = [label for label, _, _ in entries]
    if not args.after and (runs / "after_1.json").exists():
        labels.insert(1 if args.before else 0, "after")  # rounds of an earlier invocation
    if args.summarize_only and not args.before:
        labels.insert(0, "before")  # summarize whatever the runs directory holds
    result = summarize(runs, labels, variants)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["summary"], indent=2))


if __name__ == "__main__":
    main()
