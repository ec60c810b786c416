"""The headline table of bench/REPORT.md: every figure an issue names, its target, met or not."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.report_pipeline import headline_rows as pipeline_rows
from bench.report_sections import fmt as _f
from bench.report_sections import met as _met

__all__ = ["headline"]

Row = tuple[str, str, Any, Callable[[float], bool] | None]


def _at_most(limit: float) -> Callable[[float], bool]:
    return lambda value: value <= limit


def _get(data: dict[str, Any] | None, *path: Any) -> Any:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key, data.get(str(key)))  # JSON keys of sizes are strings
    return data


def load_rows(load: Callable[[str], dict[str, Any] | None]) -> list[Row]:
    """Issue 22: reads under write load (the latest `after_*` run), 1M claims, the replica."""
    rows: list[Row] = []
    mixed = _get(load("load_mixed"), "runs") or {}
    # The issue's setup: 8 readers of this build while the pipeline ingests; the newest run
    # of each think time (0 = back to back).
    latest: dict[float, dict[str, Any]] = {}
    for label in sorted(mixed, key=lambda name: (mixed[name].get("finished_at", ""), name)):
        run = mixed[label]
        if label.startswith("after") and run.get("writer", True) and run["readers"] == 8:
            latest[float(run["think_ms"])] = run
    for think, run in sorted(latest.items()):
        for rpc, target in (("FactsContext", 150.0), ("ClaimsAndSourcesContext", 300.0)):
            rows.append(
                (
                    "22",
                    f"{rpc} p99 under LoCoMo ingest, 8 readers, think {think:g} ms (ms)",
                    _get(run, "rpcs", rpc, "p99_ms"),
                    _at_most(target),
                )
            )
    runs = _get(load("query_latency"), "runs", "after") or {}
    for op, target in (("ClaimsAndSourcesContext", 150.0), ("FactsContext(query)", 50.0)):
        value = _get(runs, 1_000_000, op, "1_client", "p95_ms")
        rows.append(("22", f"{op} p95 at 1,000,000 facts (ms)", value, _at_most(target)))
    pipeline_ab = load("pipeline_ab") or {}
    settings = pipeline_ab.get("settings", {})
    for label, entry in (pipeline_ab.get("summary") or {}).items():
        if label == "before":
            continue
        named = ", ".join(
            f"{k.removeprefix('REMEMBERSTACK_')}={v}" for k, v in settings.get(label, {}).items()
        )
        setup = f"this build{f' ({named})' if named else ''}"
        rows.append(
            (
                "22",
                f"LoCoMo ingest → facts, {setup}, median (s)",
                entry["median_seconds"],
                _at_most(90.0),
            )
        )
        rows.append(
            (
                "22",
                "… / code before issue 22 in the same round, median",
                entry.get("ratio_to_before_median"),
                None,
            )
        )
    replica = load("read_replica")
    rows.append(
        (
            "22",
            "replica replay lag p95 under pipeline writes (ms)",
            _get(replica, "replay_lag_ms", "p95"),
            None,
        )
    )
    return rows


def headline(load: Callable[[str], dict[str, Any] | None]) -> list[str]:
    """One table of every figure an issue names, with its target and whether it was met."""
    rows: list[Row] = []
    ingest = load("ingest_throughput")
    rows.append(
        (
            "3",
            "LoCoMo extracted + embedded (s)",
            _get(ingest, "extracted_and_embedded_seconds"),
            lambda v: v < 180,
        )
    )
    pipeline = load("pipeline_throughput")
    rows.append(
        (
            "5",
            "LoCoMo ingest → facts (s)",
            _get(pipeline, "wall_seconds_ingest_to_facts"),
            lambda v: v < 240,
        )
    )
    rows.append(
        ("5", "LoCoMo claims/s end to end", _get(pipeline, "claims_per_second_end_to_end"), None)
    )
    backlog = load("adjudication_throughput")
    processes = _get(backlog, "configured", "processes")
    rows.append(
        (
            "5",
            f"claims/s adjudicated (LoCoMo backlog, {processes} processes)",
            _get(backlog, "claims_per_second_adjudicated"),
            lambda v: v >= 150,
        )
    )
    rows.append(
        (
            "5",
            "… vs one sequential adjudicator (same run)",
            _get(backlog, "speedup_over_sequential"),
            None,
        )
    )
    quality = load("adjudication_quality")
    rows.append(
        ("5", "jev decision accuracy (suite)", _get(quality, "jev", "decision_accuracy"), None)
    )
    rows.append(
        (
            "5",
            "prompt decision accuracy (SmolLM2-135M)",
            _get(quality, "prompt", "decision_accuracy"),
            None,
        )
    )
    entities = load("entity_resolution")
    rows.append(("4", "resolution F1", _get(entities, "quality", "f1"), lambda v: v >= 0.9))
    rows.append(("4", "wrong merges", _get(entities, "quality", "wrong_merges"), lambda v: v == 0))
    latency = _get(entities, "speed", "latency") or {}
    for kind in ("existing", "mixed", "new", "typo"):
        rows.append(
            (
                "4",
                f"resolve per mention, adjudicator batch of 32, {kind} names p50 (ms, 100k)",
                _get(latency, f"resolve_batch_{kind}_per_mention", "p50_ms"),
                lambda v: v <= 2,
            )
        )
    rows.append(
        (
            "4",
            "resolve one mention alone p50 (ms, 100k entities)",
            _get(latency, "resolve_mention", "p50_ms"),
            None,
        )
    )
    query = load("query_latency")
    runs = _get(query, "runs", "after") or {}
    for size, target in ((100_000, 50.0), (1_000_000, 150.0)):
        value = _get(runs, size, "FactsContext(query)", "1_client", "p95_ms")
        rows.append(("6", f"FactsContext p95 at {size:,} facts (ms)", value, _at_most(target)))
    retrieval = load("locomo_retrieval")
    ours = _get(retrieval, "claims_and_sources") or {}
    rows.append(
        ("6", "LoCoMo R@10 (cats 1–4)", _get(ours, "overall", "recall", 10), lambda v: v >= 0.75)
    )
    rows.append(("6", "LoCoMo MRR", _get(ours, "overall", "mrr"), lambda v: v >= 0.55))
    rows.append(
        ("6", "LoCoMo multi-hop R@10", _get(ours, "multi-hop", "recall", 10), lambda v: v >= 0.45)
    )
    rows.append(
        (
            "6",
            "BM25 R@10 / MRR (same run)",
            f"{_f(_get(retrieval, 'bm25', 'overall', 'recall', 10))} / "
            f"{_f(_get(retrieval, 'bm25', 'overall', 'mrr'))}",
            None,
        )
    )
    graph = load("graph_latency")
    rows.append(
        (
            "7",
            "2-hop neighbourhood p95 at 1M relations (ms)",
            _get(graph, "sizes", 1_000_000, "results", "neighborhood_2_hop", "p95_ms"),
            lambda v: v <= 30,
        )
    )
    rows.append(
        (
            "7",
            "GraphPath ≤ 4 hops p95 at 1M relations (ms)",
            _get(graph, "sizes", 1_000_000, "results", "path_all_lengths_le_4", "p95_ms"),
            lambda v: v <= 100,
        )
    )
    rows += pipeline_rows(load)
    rows += load_rows(load)
    storage = load("storage_size")
    rows.append(("8", "GiB per million facts", _get(storage, "gib_per_million_facts_net"), None))
    lines = ["| issue | figure | measured | target |", "|---|---|---|---|"]
    for issue, name, value, check in rows:
        verdict = "–"
        if check is not None and isinstance(value, int | float):
            verdict = _met(check(float(value)))
        elif check is not None:
            verdict = "not measured"
        lines.append(
            f"| {issue} | {name} | {_f(value, 3) if value is not None else '–'} | {verdict} |"
        )
    return lines
