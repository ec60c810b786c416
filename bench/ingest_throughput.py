"""Ingest throughput: the LoCoMo corpus through the real ingest service to extracted + embedded.

Starts an embedded PostgreSQL, migrates it, runs `python -m services.ingest` as its own process
(so its peak memory is its own), sends every session as a conversation document through
`IngestDocuments`, and waits until every version's `embed` stage succeeded. No adjudicator
runs, so adjudication is not part of the number. Stage seconds come from what each work item
recorded (`work_items.result`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
from google.protobuf.timestamp_pb2 import Timestamp
from grpc_health.v1 import health_pb2, health_pb2_grpc
from rememberstack.v1 import document_pb2, ingest_service_pb2, ingest_service_pb2_grpc
from rememberstack_client import open_aio_channel
from sqlalchemy import text

from bench.locomo.corpus import load_sessions, to_document
from shared.db.embedded import EmbeddedPostgres
from shared.db.engine import create_engine
from shared.db.migrate import upgrade_to_head

RESULTS_PATH = Path(__file__).resolve().parent / "results" / "ingest_throughput.json"
ROOT = Path(__file__).resolve().parents[1]
NAMESPACE = "bench"
BATCH = 50
pb = ingest_service_pb2
STAGE_EMBED = document_pb2.STAGE_EMBED
SUCCEEDED = document_pb2.STAGE_STATUS_SUCCEEDED


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _peak_rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


async def _await_serving(address: str, process: asyncio.subprocess.Process) -> None:
    request = health_pb2.HealthCheckRequest(service="rememberstack.v1.IngestService")
    async with open_aio_channel(address, timeout=None) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        async with asyncio.timeout(120):
            while True:
                if process.returncode is not None:
                    raise RuntimeError(f"ingest exited with {process.returncode}")
                try:
                    reply = await stub.Check(request, timeout=2)
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        return
                except grpc.aio.AioRpcError:
                    pass
                await asyncio.sleep(0.2)


def _documents(limit: int | None) -> list[pb.IngestDocumentRequest]:
    sessions = load_sessions()
    if limit is not None:
        sessions = sessions[:limit]
    requests = []
    for session in sessions:
        source_ref, body = to_document(session)
        said_on = Timestamp()
        said_on.FromDatetime(session.said_on)
        requests.append(
            pb.IngestDocumentRequest(
                namespace=NAMESPACE,
                content=body.encode(),
                media_type="text/x-rememberstack-conversation",
                source_kind="locomo",
                source_ref=source_ref,
                title=f"LoCoMo conversation {session.conv_index} session {session.session_no}",
                source_modified_time=said_on,
            )
        )
    return requests


async def _ingest(
    stub: ingest_service_pb2_grpc.IngestServiceStub, documents: list[pb.IngestDocumentRequest]
) -> list[str]:
    version_ids: list[str] = []
    for start in range(0, len(documents), BATCH):

        async def batch(chunk: list[pb.IngestDocumentRequest]) -> AsyncIterator[Any]:
            for document in chunk:
                yield pb.IngestDocumentsRequest(document=document)

        reply = await stub.IngestDocuments(batch(documents[start : start + BATCH]))  # type: ignore[arg-type, misc]
        version_ids.extend(r.version_id for r in reply.results)
    return version_ids


async def _wait_embedded(
    stub: ingest_service_pb2_grpc.IngestServiceStub, version_ids: list[str]
) -> tuple[int, int]:
    """Poll readiness until every version's embed stage succeeded; (claims, dead letters)."""
    request = pb.GetReadinessRequest(namespace=NAMESPACE, version_ids=version_ids)
    while True:
        versions = (await stub.GetReadiness(request)).versions  # type: ignore[misc]
        dead = sum(1 for v in versions if v.dead_lettered)
        embedded = sum(
            1
            for v in versions
            for s in v.stages
            if s.stage == document_pb2.STAGE_EMBED
            and s.status == document_pb2.STAGE_STATUS_SUCCEEDED
        )
        if embedded + dead >= len(versions):
            return sum(v.claim_count for v in versions), dead
        await asyncio.sleep(0.5)


async def _stage_seconds(database_url: str) -> dict[str, Any]:
    engine = create_engine(database_url)
    try:
        async with engine.connect() as connection:
            rows = (
                await connection.execute(
                    text(
                        "SELECT kind, result, created_at, updated_at FROM work_items "
                        "WHERE namespace = :ns AND kind IN ('ingest.extract', 'ingest.embed') "
                        "AND status = 'succeeded'"
                    ),
                    {"ns": NAMESPACE},
                )
            ).all()
            counts = (
                await connection.execute(
                    text(
                        "SELECT (SELECT count(*) FROM chunks WHERE namespace = :ns), "
                        "(SELECT count(*) FROM claims WHERE namespace = :ns)"
                    ),
                    {"ns": NAMESPACE},
                )
            ).one()
    finally:
        await engine.dispose()
    # "<stage>" is each stage's wall time (waits for the shared model included);
    # "<stage>_model" only the time the model itself ran.
    totals = dict.fromkeys(
        ("convert", "chunk", "extract", "extract_model", "embed", "embed_model"), 0.0
    )
    for row in rows:
        for stage, seconds in ((row.result or {}).get("seconds") or {}).items():
            totals[stage] = totals.get(stage, 0.0) + float(seconds)
    return {
        "stage_seconds_summed_over_items": {k: round(v, 2) for k, v in totals.items()},
        "chunks": int(counts[0]),
        "claims": int(counts[1]),
    }


async def run(limit: int | None, concurrency: int, embedder_threads: int) -> dict[str, Any]:
    documents = _documents(limit)
    with tempfile.TemporaryDirectory(prefix="ingest-bench-") as tmp:
        postgres = EmbeddedPostgres(Path(tmp) / "postgres")
        database_url = await asyncio.to_thread(postgres.start)
        process: asyncio.subprocess.Process | None = None
        try:
            await upgrade_to_head(database_url)
            port = _free_port()
            env = dict(os.environ)
            env.update(
                {
                    "REMEMBERSTACK_DATABASE_URL": database_url,
                    "REMEMBERSTACK_PORT": str(port),
                    "REMEMBERSTACK_SERVICE_NAME": "ingest",
                    "REMEMBERSTACK_WORKER_CONCURRENCY": str(concurrency),
                    "REMEMBERSTACK_EMBEDDER_THREADS": str(embedder_threads),
                    "REMEMBERSTACK_WORKER_POLL_SECONDS": "0.5",
                    "REMEMBERSTACK_LOG_LEVEL": "WARNING",
                }
            )
            log = (Path(tmp) / "ingest.log").open("wb")
            started = time.perf_counter()
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "services.ingest", env=env, cwd=ROOT, stdout=log, stderr=log
            )
            address = f"127.0.0.1:{port}"
            await _await_serving(address, process)
            startup = time.perf_counter() - started
            async with open_aio_channel(address, timeout=None) as channel:
                stub = ingest_service_pb2_grpc.IngestServiceStub(channel)
                started = time.perf_counter()
                version_ids = await _ingest(stub, documents)
                accepted = time.perf_counter() - started
                claims, dead = await _wait_embedded(stub, version_ids)
                elapsed = time.perf_counter() - started
            peak = _peak_rss_mib(process.pid)
            details = await _stage_seconds(database_url)
        finally:
            if process is not None and process.returncode is None:
                process.terminate()
                await process.wait()
            await asyncio.to_thread(postgres.stop)
    return {
        "documents": len(documents),
        "turns": sum(body.content.count(b"\n") + 1 for body in documents),
        "claims": claims,
        "dead_lettered_versions": dead,
        "startup_seconds": round(startup, 2),
        "ingest_rpc_seconds": round(accepted, 2),
        "extracted_and_embedded_seconds": round(elapsed, 2),
        "documents_per_second": round(len(documents) / elapsed, 2),
        "claims_per_second": round(claims / elapsed, 1),
        "peak_rss_mib_ingest_process": round(peak, 1) if peak else None,
        "concurrency": {"workers": concurrency, "embedder_threads": embedder_threads},
        **details,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the first 20 sessions")
    parser.add_argument("--workers", type=int, default=2, help="ingest worker concurrency")
    parser.add_argument("--embedder-threads", type=int, default=1)
    parser.add_argument("--output", type=Path, default=RESULTS_PATH)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    result = asyncio.run(run(20 if args.quick else None, args.workers, args.embedder_threads))
    result |= {
        "mode": "quick" if args.quick else "full",
        "target_seconds": 180,
        "cpu_count": os.cpu_count(),
        "machine": platform.machine(),
        "load_average_1min_before": round(load_before, 2),
        "load_average_1min_after": round(os.getloadavg()[0], 2),
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
