"""Read replica: replication lag while the pipeline writes, and reads on the standby vs primary.

    .venv/bin/python -m bench.read_replica                 # 60 LoCoMo sessions through the pipeline
    .venv/bin/python -m bench.read_replica --quick

Starts the system (embedded primary, four services), builds a streaming hot standby of the
primary with pgserver's `pg_basebackup` (shared/db/standby.py) and a second query service that
reads from it (`REMEMBERSTACK_READ_DATABASE_URL`). While the pipeline ingests and adjudicates
the sessions, it samples PostgreSQL's own lag measurements (`pg_stat_replication` write/flush/
replay lag, and the replay gap in WAL bytes) every 0.25 s, and readers alternate the same
FactsContext between the primary's and the replica's query service, plus `as_of` reads at
believed_at = now on the replica, which must wait for replay or answer with a boundary negative.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc
import numpy as np
from grpc_health.v1 import health_pb2, health_pb2_grpc
from rememberstack.v1 import common_pb2
from rememberstack.v1 import ingest_service_pb2_grpc as ingest_grpc
from rememberstack.v1 import query_service_pb2 as query_pb
from rememberstack.v1 import query_service_pb2_grpc as query_grpc
from sqlalchemy import text

from bench.load_mixed import NAMESPACE, _document, _until_drained
from bench.locomo.corpus import load_questions, load_sessions
from shared.cli.launcher import SystemLauncher
from shared.config import Settings
from shared.db.engine import create_engine
from shared.db.standby import EmbeddedStandby

__all__ = ["main", "run"]

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results" / "read_replica.json"
_LAG = text(
    "SELECT EXTRACT(epoch FROM write_lag) * 1000 AS write_ms,"
    " EXTRACT(epoch FROM flush_lag) * 1000 AS flush_ms,"
    " EXTRACT(epoch FROM replay_lag) * 1000 AS replay_ms,"
    " pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn) AS replay_gap_bytes"
    " FROM pg_stat_replication"
)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _replica_query_service(
    primary_url: str, standby_url: str, log: Path
) -> tuple[asyncio.subprocess.Process, str]:
    port = _free_port()
    env = {
        **os.environ,
        "REMEMBERSTACK_DATABASE_URL": primary_url,
        "REMEMBERSTACK_READ_DATABASE_URL": standby_url,
        "REMEMBERSTACK_PORT": str(port),
        "REMEMBERSTACK_SERVICE_NAME": "query-replica",
        "REMEMBERSTACK_LOG_LEVEL": "WARNING",
    }
    with log.open("ab") as out:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "services.query", env=env, cwd=REPO, stdout=out, stderr=out
        )
    address = f"127.0.0.1:{port}"
    request = health_pb2.HealthCheckRequest(service="rememberstack.v1.QueryService")
    async with grpc.aio.insecure_channel(address) as channel, asyncio.timeout(120):
        while True:
            if process.returncode is not None:
                raise RuntimeError(f"replica query service exited; see {log}")
            with contextlib.suppress(grpc.aio.AioRpcError):
                reply = await health_pb2_grpc.HealthStub(channel).Check(request, timeout=2)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return process, address
            await asyncio.sleep(0.2)


def _stats(values: list[float]) -> dict[str, float | int]:
    if not values:
        return {"n": 0}
    array = np.array(values)
    return {
        "n": len(values),
        "p50": round(float(np.percentile(array, 50)), 1),
        "p95": round(float(np.percentile(array, 95)), 1),
        "p99": round(float(np.percentile(array, 99)), 1),
        "max": round(float(array.max()), 1),
    }


async def _sample_lag(engine: Any, rows: list[dict[str, float]], stop: asyncio.Event) -> None:
    while not stop.is_set():
        async with engine.connect() as conn:
            row = (await conn.execute(_LAG)).first()
        if row is not None:
            rows.append({k: float(v) if v is not None else 0.0 for k, v in row._mapping.items()})
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.25)


async def _reads(
    primary: query_grpc.QueryServiceStub,
    replica: query_grpc.QueryServiceStub,
    questions: list[str],
    stop: asyncio.Event,
) -> dict[str, Any]:
    latency: dict[str, list[float]] = {"primary": [], "replica": [], "replica_as_of_now": []}
    boundaries = 0
    i = 0
    while not stop.is_set():
        request = query_pb.FactsContextRequest(namespace=NAMESPACE, query=questions[i % 300])
        i += 1
        for name, stub in (("primary", primary), ("replica", replica)):
            began = time.perf_counter()
            await stub.FactsContext(request)
            latency[name].append((time.perf_counter() - began) * 1000)
        as_of = query_pb.FactsContextRequest(namespace=NAMESPACE, query=request.query)
        now = datetime.now(UTC)
        as_of.time_scope.as_of.valid_at.FromDatetime(now)
        as_of.time_scope.as_of.believed_at.FromDatetime(now)
        began = time.perf_counter()
        reply = await replica.FactsContext(as_of)
        latency["replica_as_of_now"].append((time.perf_counter() - began) * 1000)
        if reply.negative.kind == common_pb2.NEGATIVE_KIND_BOUNDARY:
            boundaries += 1
    return {
        "latency_ms": {name: _stats(values) for name, values in latency.items()},
        "as_of_now_boundaries": boundaries,
        "as_of_now_reads": len(latency["replica_as_of_now"]),
    }


async def run(sessions_limit: int, preload: int) -> dict[str, Any]:
    sessions = load_sessions()[:sessions_limit]
    questions = [q.question for q in load_questions()]
    os.environ["REMEMBERSTACK_ADJUDICATOR_PROCESSES"] = "2"
    with tempfile.TemporaryDirectory(prefix="rs-replica-") as tmp:
        launcher = SystemLauncher(Settings(data_dir=Path(tmp), log_json=False), base_port=0)
        endpoints = await launcher.start()
        engine = create_engine(endpoints.database_url, pool_size=1)
        standby = EmbeddedStandby(endpoints.database_url, Path(tmp) / "standby")
        replica_process: asyncio.subprocess.Process | None = None
        try:
            async with grpc.aio.insecure_channel(endpoints.ingest) as channel:
                ingest = ingest_grpc.IngestServiceStub(channel)
                for session in sessions[:preload]:
                    await ingest.IngestDocument(_document(session))
                await _until_drained(engine)
                started = time.perf_counter()
                standby_url = await asyncio.to_thread(standby.start)
                await asyncio.to_thread(standby.wait_streaming)
                build_seconds = time.perf_counter() - started
                replica_process, address = await _replica_query_service(
                    endpoints.database_url, standby_url, Path(tmp) / "query-replica.log"
                )
                lag: list[dict[str, float]] = []
                stop = asyncio.Event()
                async with (
                    grpc.aio.insecure_channel(endpoints.query) as primary_channel,
                    grpc.aio.insecure_channel(address) as replica_channel,
                ):
                    sampler = asyncio.create_task(_sample_lag(engine, lag, stop))
                    readers = asyncio.create_task(
                        _reads(
                            query_grpc.QueryServiceStub(primary_channel),
                            query_grpc.QueryServiceStub(replica_channel),
                            questions,
                            stop,
                        )
                    )
                    began = time.perf_counter()
                    for session in sessions[preload:]:
                        await ingest.IngestDocument(_document(session))
                    await _until_drained(engine)
                    written = time.perf_counter() - began
                    stop.set()
                    reads = await readers
                    await sampler
        finally:
            if replica_process is not None and replica_process.returncode is None:
                replica_process.terminate()
                await replica_process.wait()
            await asyncio.to_thread(standby.stop)
            await engine.dispose()
            await launcher.stop()
    return {
        "sessions": len(sessions),
        "preloaded_sessions": preload,
        "standby_build_seconds": round(build_seconds, 1),
        "pipeline_seconds_while_sampled": round(written, 1),
        "lag_samples": len(lag),
        "replay_lag_ms": _stats([r["replay_ms"] for r in lag]),
        "write_lag_ms": _stats([r["write_ms"] for r in lag]),
        "replay_gap_kib": _stats([r["replay_gap_bytes"] / 1024 for r in lag]),
        **reads,
        "cpu_count": os.cpu_count(),
        "load_average_1m_after": round(os.getloadavg()[0], 2),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=60)
    parser.add_argument("--preload", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="6 sessions")
    args = parser.parse_args(argv)
    sessions, preload = (6, 2) if args.quick else (args.sessions, args.preload)
    result = asyncio.run(run(sessions, preload))
    print(json.dumps(result, indent=2))
    if not args.quick:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
