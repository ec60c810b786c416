"""Query latency over gRPC on synthetic stores of 10k / 100k / 1M facts (p50/p95/p99).

    .venv/bin/python -m bench.query_latency --quick                       # 10k only
    .venv/bin/python -m bench.query_latency --sizes 10000 100000 1000000 \
        --pg-dir /tmp/qbench/pg --reuse

Each size lives in its own database (`bench_query_<size>`), so a small store is never searched
inside a larger one's HNSW index. Uses REMEMBERSTACK_DATABASE_URL's server when set, otherwise an
embedded pgserver in `--pg-dir` (kept, so `--reuse` skips reloading) or a temporary directory.
Results are merged into bench/results/query_latency.json under `--label`, with a
latency-versus-size plot next to it. `--against DIR` also serves the query service of another
checkout (e.g. the code before a change) and alternates every request between the two servers,
so both see the same machine load; that run is stored under `--against-label`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncpg
import numpy as np
from rememberstack.v1 import query_service_pb2 as pb
from rememberstack.v1 import query_service_pb2_grpc
from rememberstack_client import open_aio_channel
from sqlalchemy.engine import make_url

from bench.page_cache import warm_search_relations
from bench.query_synthetic import Dataset, describe, generate
from shared.db import EmbeddedPostgres, to_asyncpg_dsn, upgrade_to_head
from shared.embedding import create_embedder, embed_async

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results" / "query_latency.json"
# Both client modes and every recorded run (before/after), next to the report's summary plot.
PLOT = REPO / "bench" / "plots" / "query_latency_runs.png"
# Unmeasured requests per operation first: right after a 1M-fact load the vector indexes are
# not in memory yet, and the first operation measured paid for reading them in (p95 214 ms
# against 102 ms once warm, same store, same code). Figures are for a warm, serving system, so
# on an embedded server the size's search relations are also read into the page cache first
# (bench/page_cache.py): 50 requests touch a small part of a 1M-fact store's ~8 GB of them.
WARMUP_REQUESTS = 50
_PLOTTED = ("FactsContext(query)", "FactsContext(anchor+query)", "ClaimsAndSourcesContext")
TARGET_P95_MS = {100_000: 50.0, 1_000_000: 150.0}


def _percentiles(samples: list[float]) -> dict[str, float]:
    values = np.array(samples) * 1000
    return {
        "n": len(samples),
        "p50_ms": round(float(np.percentile(values, 50)), 2),
        "p95_ms": round(float(np.percentile(values, 95)), 2),
        "p99_ms": round(float(np.percentile(values, 99)), 2),
    }


def _requests(
    data: Dataset, rng: np.random.Generator
) -> dict[str, Callable[[Any], Awaitable[Any]]]:
    ns = data.namespace

    def query() -> str:
        return " ".join(rng.choice(data.words, 4))

    def anchor() -> str:
        return str(data.entity_ids[int(rng.choice(len(data.entity_ids), p=data.entity_weights))])

    return {
        "FactsContext(query)": lambda s: s.FactsContext(
            pb.FactsContextRequest(namespace=ns, query=query())
        ),
        "FactsContext(anchor+query)": lambda s: s.FactsContext(
            pb.FactsContextRequest(namespace=ns, entity_ids=[anchor()], query=query())
        ),
        "FactsContext(anchor)": lambda s: s.FactsContext(
            pb.FactsContextRequest(namespace=ns, entity_ids=[anchor()])
        ),
        "ClaimsAndSourcesContext": lambda s: s.ClaimsAndSourcesContext(
            pb.ClaimsAndSourcesContextRequest(namespace=ns, query=query())
        ),
        "LookupRelations": lambda s: s.LookupRelations(
            pb.LookupRelationsRequest(namespace=ns, subject_entity_id=anchor())
        ),
    }


async def _measure(
    stubs: list[Any], call: Callable[[Any], Awaitable[Any]], n: int, clients: int
) -> list[dict[str, float]]:
    """Each client sends `n // clients` requests to every stub, alternating between them."""
    samples: list[list[float]] = [[] for _ in stubs]

    async def client(count: int, first: int) -> None:
        for i in range(count * len(stubs)):
            which = (first + i) % len(stubs)
            start = time.perf_counter()
            await call(stubs[which])
            samples[which].append(time.perf_counter() - start)

    await asyncio.gather(*(client(n // clients, c) for c in range(clients)))
    return [_percentiles(taken) for taken in samples]


_SERVE = """
import asyncio, sys
from services.query.app import build_server
from services.query.config import load_settings

async def main():
    server = await build_server(load_settings(database_url=sys.argv[1], port=0, log_json=False))
    await server.start()
    print(server.address, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop(0)

asyncio.run(main())
"""


def _serve(tree: Path, url: str) -> tuple[subprocess.Popen[str], str]:
    """The query service of the checkout at `tree`, in its own process; returns its address."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    process = subprocess.Popen(
        [sys.executable, "-c", _SERVE, url],
        cwd=tree,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


async def _embed_cost(data: Dataset, n: int) -> dict[str, float]:
    """The query-embedding share of a request: the same model the server loads, in process."""
    embedder = create_embedder("onnx")
    rng = np.random.default_rng(1)
    samples = []
    for _ in range(n):
        text = " ".join(rng.choice(data.words, 4))
        start = time.perf_counter()
        await embed_async(embedder, [text])
        samples.append(time.perf_counter() - start)
    return _percentiles(samples)


_SCHEMA_DB = "bench_query_schema"


async def _add_missing_indexes(server_url: str, url: str) -> None:
    """Give a reused store every index this build's migration declares (an index added since
    the store was loaded would otherwise be missing from the measurement)."""
    schema_url = make_url(server_url).set(database=_SCHEMA_DB).render_as_string(False)
    admin = await asyncpg.connect(to_asyncpg_dsn(server_url))
    try:
        await admin.execute(f"DROP DATABASE IF EXISTS {_SCHEMA_DB}")
        await admin.execute(f"CREATE DATABASE {_SCHEMA_DB}")
    finally:
        await admin.close()
    await upgrade_to_head(schema_url)
    query = "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'"
    schema = await asyncpg.connect(to_asyncpg_dsn(schema_url))
    try:
        wanted = dict(await schema.fetch(query))
    finally:
        await schema.close()
    conn = await asyncpg.connect(to_asyncpg_dsn(url))
    try:
        present = dict(await conn.fetch(query))
        missing = [definition for name, definition in wanted.items() if name not in present]
        if missing:
            await conn.execute("SET maintenance_work_mem = '4GB'")
            await conn.execute("SET max_parallel_maintenance_workers = 2")
            for definition in missing:
                print(f"adding to the reused store: {definition}", flush=True)
                await conn.execute(definition)
            await conn.execute("VACUUM ANALYZE")
    finally:
        await conn.close()


async def _prepare(
    server_url: str, size: int, reuse: bool, timings: dict[str, float]
) -> tuple[str, Dataset, float]:
    """The size's database, migrated and loaded (or reused when already loaded)."""
    name = f"bench_query_{size}"
    url = make_url(server_url).set(database=name).render_as_string(hide_password=False)
    namespace = f"bench-{size}"
    admin = await asyncpg.connect(to_asyncpg_dsn(server_url))
    try:
        exists = await admin.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name)
        loaded = False
        if exists and reuse:
            conn = await asyncpg.connect(to_asyncpg_dsn(url))
            try:
                count = await conn.fetchval(
                    "SELECT count(*) FROM facts WHERE namespace = $1", namespace
                )
                loaded = count == size
            finally:
                await conn.close()
        if loaded:
            await _add_missing_indexes(server_url, url)
            return url, describe(namespace, size), 0.0
        await admin.execute(f"DROP DATABASE IF EXISTS {name}")
        await admin.execute(f"CREATE DATABASE {name}")
    finally:
        await admin.close()
    await upgrade_to_head(url)
    conn = await asyncpg.connect(to_asyncpg_dsn(url))
    try:
        started = time.perf_counter()
        data = await generate(conn, namespace, size, timings=timings)
        print(f"loaded {size} facts: {timings}", flush=True)
        return url, data, time.perf_counter() - started
    finally:
        await conn.close()


async def _bench_size(
    url: str, data: Dataset, requests: int, operations: list[str] | None, against: Path | None
) -> list[dict[str, Any]]:
    """Per operation and client count; with `against`, a second result for that checkout."""
    trees = [REPO] + ([against] if against else [])
    servers = [_serve(tree, url) for tree in trees]
    rng = np.random.default_rng(len(data.entity_ids))
    results: list[dict[str, Any]] = [{} for _ in trees]
    warmup = min(WARMUP_REQUESTS, requests // 4)  # quick runs (40 requests) warm up 10
    channels = [open_aio_channel(address, timeout=None) for _, address in servers]
    try:
        stubs = [query_service_pb2_grpc.QueryServiceStub(channel) for channel in channels]
        for name, call in _requests(data, rng).items():
            if operations and name not in operations:
                continue
            for stub in stubs:
                for _ in range(warmup):
                    await call(stub)
            one = await _measure(stubs, call, requests, 1)
            eight = await _measure(stubs, call, requests, 8)
            for index, result in enumerate(results):
                result[name] = {"1_client": one[index], "8_clients": eight[index]}
            print(len(data.entity_ids) * 4, name, [r[name] for r in results], flush=True)
    finally:
        for channel in channels:
            await channel.close()
        for process, _ in servers:
            assert process.stdin is not None
            process.stdin.close()
            process.wait(timeout=30)
    return results


async def _tune_for_bulk_load(server_url: str) -> None:
    """Checkpoint less often on the benchmark's own embedded server: a 1M-fact load writes
    tens of GB of WAL, and the 1 GB default checkpoints (full-page images) every few seconds."""
    admin = await asyncpg.connect(to_asyncpg_dsn(server_url))
    try:
        await admin.execute("ALTER SYSTEM SET max_wal_size = '16GB'")
        await admin.execute("ALTER SYSTEM SET checkpoint_timeout = '30min'")
        await admin.execute("SELECT pg_reload_conf()")
    finally:
        await admin.close()


async def run(
    sizes: list[int],
    requests: int,
    pg_dir: Path | None,
    reuse: bool,
    operations: list[str] | None,
    against: Path | None,
) -> list[dict[str, Any]]:
    server_url = os.environ.get("REMEMBERSTACK_DATABASE_URL")
    embedded = None
    tmp = tempfile.TemporaryDirectory(prefix="rs-bench-")
    if not server_url:
        embedded = EmbeddedPostgres(pg_dir or Path(tmp.name) / "pg")
        server_url = embedded.start()
        await _tune_for_bulk_load(server_url)
    results: list[dict[str, Any]] = [{}, {}]
    try:
        for size in sizes:
            timings: dict[str, float] = {}
            url, data, load_seconds = await _prepare(server_url, size, reuse, timings)
            # A reused store was loaded by an earlier run: no load time to report.
            per_size: dict[str, Any] = (
                {"load_seconds": round(load_seconds, 1), "load_phases_seconds": timings}
                if load_seconds
                else {}
            )
            if operations == []:
                results[0][str(size)] = per_size
                continue
            if embedded is not None:
                warmed = await warm_search_relations(url, embedded.data_dir)
                per_size["page_cache_warmed_gb"] = round(warmed / 1e9, 2)
            # The machine is shared: the load average next to each size's figures.
            load_before = os.getloadavg()[0]
            per_size["embed_query(onnx, in process)"] = await _embed_cost(data, 50)
            measured = await _bench_size(url, data, requests, operations, against)
            per_size["load_average_1m"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
            results[0][str(size)] = {**per_size, **measured[0]}
            if against:
                results[1][str(size)] = measured[1]
    finally:
        if embedded is not None and pg_dir is None:
            embedded.stop()
        tmp.cleanup()
    return results


def _plot(runs: dict[str, Any]) -> None:
    """p50 and p95 of FactsContext and ClaimsAndSourcesContext against store size (log-log)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, mode in zip(axes, ("1_client", "8_clients"), strict=True):
        for label, sizes in runs.items():
            style = "-" if label == "after" else ":"
            points = sorted((int(s), ops) for s, ops in sizes.items())
            for op in _PLOTTED:
                xs = [s for s, ops in points if op in ops]
                if not xs:
                    continue
                p95 = [ops[op][mode]["p95_ms"] for s, ops in points if op in ops]
                ax.plot(xs, p95, style, marker="o", label=f"{op} p95 ({label})")
        for size, target in TARGET_P95_MS.items():
            ax.scatter([size], [target], marker="x", color="red", zorder=5)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("facts in the store")
        ax.set_title(f"latency over gRPC, {mode.replace('_', ' ')} (x: FactsContext p95 target)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("ms")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(PLOT, dpi=110)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="2,000 facts only (CI smoke run)")
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--requests", type=int, default=200, help="requests per operation and mode")
    parser.add_argument("--pg-dir", type=Path, help="keep the embedded server's data here")
    parser.add_argument("--reuse", action="store_true", help="skip loading sizes already loaded")
    parser.add_argument("--label", default="after", help="name of this run in the results")
    parser.add_argument("--operations", nargs="*", help="only these operations")
    parser.add_argument("--load-only", action="store_true", help="load the stores, measure nothing")
    parser.add_argument("--against", type=Path, help="another checkout to measure alongside")
    parser.add_argument("--against-label", default="before", help="name of that checkout's run")
    args = parser.parse_args(argv)
    sizes = [2_000] if args.quick else args.sizes
    requests = 40 if args.quick else args.requests
    operations = [] if args.load_only else args.operations
    measured = asyncio.run(run(sizes, requests, args.pg_dir, args.reuse, operations, args.against))
    if args.load_only:
        print({size: m.get("load_seconds") for size, m in measured[0].items()})
        return
    previous = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    runs: dict[str, Any] = previous.get("runs", {})
    # Merge per size and operation: a partial re-run replaces only what it measured.
    for label, sizes in ((args.label, measured[0]), (args.against_label, measured[1])):
        for size, operations_measured in sizes.items():
            runs.setdefault(label, {}).setdefault(size, {}).update(operations_measured)
    results = {"machine": f"{os.cpu_count()} cores, shared with other work", "runs": runs}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2))
    _plot(runs)
    print(f"wrote {RESULTS} and {PLOT}")


if __name__ == "__main__":
    main()
