"""Query latency over gRPC on synthetic stores of 10k / 100k / 1M facts (p50/p95/p99).

    .venv/bin/python -m bench.query_latency --quick          # 10k only
    .venv/bin/python -m bench.query_latency --sizes 10000 100000

Uses REMEMBERSTACK_DATABASE_URL when set (each size in its own namespace), otherwise an
embedded pgserver in a temporary directory. Results: bench/results/query_latency.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncpg
import grpc.aio
import numpy as np
from rememberstack.v1 import query_service_pb2 as pb
from rememberstack.v1 import query_service_pb2_grpc

from bench.query_synthetic import Dataset, generate
from services.query.app import build_server
from shared.config import load_settings
from shared.db import EmbeddedPostgres, create_engine, to_asyncpg_dsn, upgrade_to_head

RESULTS = Path(__file__).parent / "results" / "query_latency.json"


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
        "FactsContext(anchor)": lambda s: s.FactsContext(
            pb.FactsContextRequest(namespace=ns, entity_ids=[anchor()], query=query())
        ),
        "ClaimsAndSourcesContext": lambda s: s.ClaimsAndSourcesContext(
            pb.ClaimsAndSourcesContextRequest(namespace=ns, query=query())
        ),
        "LookupRelations": lambda s: s.LookupRelations(
            pb.LookupRelationsRequest(namespace=ns, subject_entity_id=anchor())
        ),
    }


async def _measure(
    stub: Any, call: Callable[[Any], Awaitable[Any]], n: int, clients: int
) -> dict[str, float]:
    samples: list[float] = []

    async def client(count: int) -> None:
        for _ in range(count):
            start = time.perf_counter()
            await call(stub)
            samples.append(time.perf_counter() - start)

    await asyncio.gather(*(client(n // clients) for _ in range(clients)))
    return _percentiles(samples)


async def run(sizes: list[int], requests: int) -> dict[str, Any]:
    database_url = os.environ.get("REMEMBERSTACK_DATABASE_URL")
    embedded = None
    tmp = tempfile.TemporaryDirectory(prefix="rs-bench-")
    if not database_url:
        embedded = EmbeddedPostgres(Path(tmp.name) / "pg")
        database_url = embedded.start()
    await upgrade_to_head(database_url)
    engine = create_engine(database_url, pool_size=12)
    settings = load_settings(database_url=database_url, port=0, log_json=False)
    server = await build_server(settings, engine=engine)
    await server.start()
    results: dict[str, Any] = {"sizes": {}}
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = query_service_pb2_grpc.QueryServiceStub(channel)
            for size in sizes:
                conn = await asyncpg.connect(to_asyncpg_dsn(database_url))
                started = time.perf_counter()
                data = await generate(conn, f"bench-{size}-{int(time.time())}", size)
                load_seconds = time.perf_counter() - started
                await conn.close()
                rng = np.random.default_rng(size)
                per_size: dict[str, Any] = {"load_seconds": round(load_seconds, 1)}
                for name, call in _requests(data, rng).items():
                    for _ in range(10):
                        await call(stub)
                    per_size[name] = {
                        "1_client": await _measure(stub, call, requests, 1),
                        "8_clients": await _measure(stub, call, requests, 8),
                    }
                    print(size, name, per_size[name], flush=True)
                results["sizes"][str(size)] = per_size
    finally:
        await server.stop(0)
        await engine.dispose()
        if embedded is not None:
            embedded.stop()
        tmp.cleanup()
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="10k facts only")
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--requests", type=int, default=200, help="requests per operation and mode")
    args = parser.parse_args(argv)
    sizes = [10_000] if args.quick else args.sizes
    results = asyncio.run(run(sizes, 80 if args.quick else args.requests))
    results["machine"] = f"{os.cpu_count()} cores"
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2))
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
