"""GraphService latency on synthetic power-law graphs (100k and 1M relations) over real gRPC."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import tempfile
import time
import uuid
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import numpy as np
from rememberstack.v1 import common_pb2, graph_service_pb2, graph_service_pb2_grpc
from rememberstack_client import open_aio_channel

from bench.graph_synthetic import PREDICATES, SyntheticGraph, generate, random_walk_pairs
from services.graph.app import build_server
from services.graph.config import load_settings
from shared.db import EmbeddedPostgres, create_engine, to_asyncpg_dsn, upgrade_to_head

RESULTS_PATH = Path(__file__).resolve().parent / "results" / "graph_latency.json"
_HUB_REASONS = {
    common_pb2.TRUNCATION_REASON_EXPANSION_BUDGET,
    common_pb2.TRUNCATION_REASON_FRONTIER_BUDGET,
    common_pb2.TRUNCATION_REASON_TIME_BUDGET,
}
_FACT_COLUMNS = [
    "id",
    "namespace",
    "kind",
    "subject_entity_id",
    "predicate",
    "object_entity_id",
    "statement",
    "label",
    "valid_from",
    "valid_until",
    "valid_precision",
    "ingested_at",
    "invalidated_at",
    "evidence_count",
    "support",
]


async def load(
    dsn: str, namespace: str, graph: SyntheticGraph
) -> tuple[list[uuid.UUID], dict[str, float]]:
    """COPY the graph into ``namespace``; returns the entity ids and seconds per step."""
    ids = [uuid.UUID(bytes=os.urandom(16), version=4) for _ in range(graph.nodes)]
    now = datetime.now(UTC)
    ingested = now - timedelta(days=30)
    past = (now - timedelta(days=400), now - timedelta(days=200))
    timings: dict[str, float] = {}
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(
            "INSERT INTO namespaces (namespace) VALUES ($1) ON CONFLICT DO NOTHING", namespace
        )
        started = time.perf_counter()
        await conn.copy_records_to_table(
            "entities",
            records=((ids[i], namespace, f"E{i}", f"e{i}") for i in range(graph.nodes)),
            columns=["id", "namespace", "canonical_name", "normalized_name"],
        )
        timings["entities_seconds"] = time.perf_counter() - started
        started = time.perf_counter()
        subjects, objects = graph.subjects.tolist(), graph.objects.tolist()
        predicates, expired = graph.predicates.tolist(), graph.expired.tolist()
        retracted = graph.retracted.tolist()
        evidence = np.random.default_rng(3).integers(1, 6, size=graph.edges).tolist()

        def records() -> Any:
            for i in range(graph.edges):
                s, o, p = subjects[i], objects[i], PREDICATES[predicates[i]]
                label = f"E{s} {p} E{o}"
                yield (
                    uuid.UUID(bytes=os.urandom(16), version=4),
                    namespace,
                    "relation",
                    ids[s],
                    p,
                    ids[o],
                    label,
                    label,
                    past[0] if expired[i] else None,
                    past[1] if expired[i] else None,
                    "day" if expired[i] else "unknown",
                    ingested,
                    now - timedelta(days=1) if retracted[i] else None,
                    evidence[i],
                    "current",
                )

        # Maintaining the HNSW/GIN/btree indexes row by row dominates a 1M-row COPY; building
        # them afterwards gives the same indexes several times faster. FK triggers are skipped
        # (session_replication_role) because every endpoint was just written above. One
        # transaction, so a failed load leaves the indexes as they were.
        async with conn.transaction():
            indexes = await conn.fetch(
                "SELECT i.indexname, i.indexdef FROM pg_indexes i WHERE i.tablename = 'facts'"
                " AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)"
            )
            for index in indexes:
                await conn.execute(f'DROP INDEX "{index["indexname"]}"')
            await conn.execute("SET LOCAL session_replication_role = replica")
            await conn.copy_records_to_table("facts", records=records(), columns=_FACT_COLUMNS)
            timings["facts_seconds"] = time.perf_counter() - started
            started = time.perf_counter()
            for index in indexes:
                await conn.execute(index["indexdef"])
            timings["index_seconds"] = time.perf_counter() - started
        started = time.perf_counter()
        # VACUUM sets the visibility map as autovacuum would after a bulk insert, so
        # index-only scans behave as on a settled database.
        await conn.execute("VACUUM ANALYZE entities")
        await conn.execute("VACUUM ANALYZE facts")
        await conn.execute("ANALYZE merge_events")
        timings["vacuum_analyze_seconds"] = time.perf_counter() - started
    finally:
        await conn.close()
    return ids, {k: round(v, 2) for k, v in timings.items()}


def summarize(latencies: list[float]) -> dict[str, Any]:
    if not latencies:
        return {"calls": 0}
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "calls": len(ordered),
        "p50_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(p95, 2),
        "max_ms": round(ordered[-1], 2),
    }


async def measure(
    stub: Any,  # the generated stub is typed for sync calls; on an aio channel it awaits
    namespace: str,
    graph: SyntheticGraph,
    ids: list[uuid.UUID],
    calls: int,
) -> dict[str, Any]:
    rng = np.random.default_rng(5)
    results: dict[str, Any] = {}
    for hops in (1, 2, 3):
        normal: list[float] = []
        truncated: list[float] = []
        for node in rng.integers(0, graph.nodes, size=calls).tolist():
            request = graph_service_pb2.GraphNeighborhoodRequest(
                namespace=namespace, entity_id=str(ids[node]), hops=hops
            )
            started = time.perf_counter()
            response = await stub.GraphNeighborhood(request)
            elapsed = (time.perf_counter() - started) * 1000
            reasons = {response.truncation.reason, *response.truncation.additional_reasons}
            (truncated if reasons & _HUB_REASONS else normal).append(elapsed)
        results[f"neighborhood_{hops}_hop"] = summarize(normal)
        results[f"neighborhood_{hops}_hop_hub_truncated"] = summarize(truncated)
    by_length: dict[int, list[float]] = defaultdict(list)
    path_truncated: list[float] = []
    for steps in (2, 3, 4):
        for start, end in random_walk_pairs(graph, calls, steps, seed=steps):
            path_request = graph_service_pb2.GraphPathRequest(
                namespace=namespace, from_entity_id=str(ids[start]), to_entity_id=str(ids[end])
            )
            started = time.perf_counter()
            path_response = await stub.GraphPath(path_request)
            elapsed = (time.perf_counter() - started) * 1000
            truncation = path_response.truncation
            if {truncation.reason, *truncation.additional_reasons} & _HUB_REASONS:
                path_truncated.append(elapsed)
            elif path_response.paths:
                by_length[len(path_response.paths[0].edges)].append(elapsed)
    for length in sorted(by_length):
        results[f"path_length_{length}"] = summarize(by_length[length])
    results["path_all_lengths_le_4"] = summarize(
        [v for length, values in by_length.items() if length <= 4 for v in values]
    )
    results["path_budget_truncated"] = summarize(path_truncated)
    return results


async def run(sizes: list[int], calls: int, database_url: str | None) -> dict[str, Any]:
    embedded: EmbeddedPostgres | None = None
    workdir = tempfile.TemporaryDirectory(prefix="graph-bench-")
    if database_url is None:
        embedded = EmbeddedPostgres(Path(workdir.name) / "pg")
        database_url = await asyncio.to_thread(embedded.start)
    try:
        await upgrade_to_head(database_url)
        engine = create_engine(database_url)
        settings = load_settings(database_url=database_url, port=0, log_json=False)
        server = await build_server(settings, engine=engine)
        await server.start()
        report: dict[str, Any] = {"sizes": {}}
        try:
            async with open_aio_channel(server.address, timeout=None) as channel:
                stub = graph_service_pb2_grpc.GraphServiceStub(channel)
                for size in sizes:
                    hubs = max(2, size // 250_000)
                    graph = generate(size, hubs=hubs, hub_degree=min(10_000, size // 10))
                    namespace = f"bench-graph-{uuid.uuid4().hex[:8]}"
                    ids, timings = await load(to_asyncpg_dsn(database_url), namespace, graph)
                    degree = np.bincount(
                        np.concatenate([graph.subjects, graph.objects]), minlength=graph.nodes
                    )
                    await measure(stub, namespace, graph, ids, 10)  # warm caches and plans
                    started = time.perf_counter()
                    results = await measure(stub, namespace, graph, ids, calls)
                    report["sizes"][str(size)] = {
                        "relations": graph.edges,
                        "entities": graph.nodes,
                        "hubs": int(hubs),
                        "max_degree": int(degree.max()),
                        "median_degree": float(np.median(degree)),
                        "load": timings,
                        "measure_seconds": round(time.perf_counter() - started, 1),
                        "results": results,
                    }
                    print(json.dumps({str(size): report["sizes"][str(size)]}, indent=1))
        finally:
            await server.stop(grace=0.5)
            await engine.dispose()
    finally:
        if embedded is not None:
            embedded.stop()
        workdir.cleanup()
    report["budgets"] = {
        "graph_max_edges": settings.graph_max_edges,
        "graph_max_frontier": settings.graph_max_frontier,
        "graph_time_budget_ms": settings.graph_time_budget_ms,
    }
    report["machine"] = {"cpus": os.cpu_count(), "python": platform.python_version()}
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="10k relations, few calls (<60 s)")
    parser.add_argument("--sizes", type=int, nargs="*", default=[100_000, 1_000_000])
    parser.add_argument("--calls", type=int, default=200, help="calls per measured category")
    parser.add_argument("--output", type=Path, default=RESULTS_PATH)
    args = parser.parse_args()
    sizes, calls = ([10_000], 30) if args.quick else (args.sizes, args.calls)
    report = asyncio.run(run(sizes, calls, load_settings().database_url))
    report["mode"] = "quick" if args.quick else "full"
    report["measured_at"] = datetime.now(UTC).isoformat()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.output}")
    for size, entry in report["sizes"].items():
        for name, stats in entry["results"].items():
            if stats.get("calls"):
                print(
                    f"{size:>8} {name:<40} n={stats['calls']:<4}"
                    f" p50={stats['p50_ms']:>7} ms p95={stats['p95_ms']:>7} ms"
                    f" max={stats['max_ms']:>7} ms"
                )


if __name__ == "__main__":
    main()
