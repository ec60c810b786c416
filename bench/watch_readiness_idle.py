"""CPU of idle WatchReadiness streams: N streams on versions that never change, against the
same ingest process with no stream open, measured in one run.

The server runs in this process (embedded PostgreSQL in a temporary directory); the versions
are stored with pending stages and no work item, so nothing ever settles them. CPU is this
process's CPU time plus the database's (the server's reads cost it too), over a fixed window.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import grpc.aio
import psutil
from rememberstack.v1 import ingest_service_pb2, ingest_service_pb2_grpc

from services.ingest.app import build_server
from services.ingest.config import IngestSettings
from shared.db.embedded import EmbeddedPostgres
from shared.db.engine import create_engine, session_factory, unit_of_work
from shared.db.migrate import upgrade_to_head
from shared.db.models import Document, DocumentVersion, Namespace, VersionStage
from shared.pipeline.stages import PIPELINE_STAGES

RESULTS_PATH = Path(__file__).resolve().parent / "results" / "watch_readiness_idle.json"
NAMESPACE = "bench-watch"


def _cpu_seconds(processes: list[psutil.Process]) -> float:
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
            total += times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return total


def _postgres_processes(data_dir: Path) -> list[psutil.Process]:
    """The postmaster and its backends (their command lines name the data directory or are
    children of the postmaster)."""
    pid = int((data_dir / "postmaster.pid").read_text().split()[0])
    postmaster = psutil.Process(pid)
    return [postmaster, *postmaster.children(recursive=True)]


async def _idle_versions(url: str, count: int) -> list[str]:
    engine = create_engine(url)
    ids = []
    async with unit_of_work(session_factory(engine)) as session:
        session.add(Namespace(namespace=NAMESPACE))
        for index in range(count):
            document = Document(namespace=NAMESPACE, identity_key=f"idle-{uuid.uuid4()}")
            session.add(document)
            await session.flush()
            body = f"idle {index}".encode()
            version = DocumentVersion(
                namespace=NAMESPACE,
                document_id=document.id,
                version_number=1,
                content=body,
                content_sha256=hashlib.sha256(body).hexdigest(),
                media_type="text/plain",
            )
            session.add(version)
            await session.flush()
            for stage in PIPELINE_STAGES:
                session.add(VersionStage(namespace=NAMESPACE, version_id=version.id, stage=stage))
            ids.append(str(version.id))
    await engine.dispose()
    return ids


async def _measure(
    stub: Any, versions: list[str], streams: int, seconds: float, watched: list[psutil.Process]
) -> dict[str, float]:
    calls = [
        stub.WatchReadiness(
            ingest_service_pb2.WatchReadinessRequest(namespace=NAMESPACE, version_ids=[v])
        )
        for v in versions[:streams]
    ]
    for call in calls:
        await call.read()  # the first update: every stream is open and idle from here
    await asyncio.sleep(1.0)
    cpu_before, wall_before = _cpu_seconds(watched), time.perf_counter()
    await asyncio.sleep(seconds)
    cpu = _cpu_seconds(watched) - cpu_before
    wall = time.perf_counter() - wall_before
    for call in calls:
        call.cancel()
    return {"streams": streams, "cpu_seconds": round(cpu, 3), "cpu_share": round(cpu / wall, 4)}


async def run(streams: int, seconds: float, repeats: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="rs-watch-") as tmp:
        postgres = EmbeddedPostgres(Path(tmp) / "pg")
        url = await asyncio.to_thread(postgres.start)
        try:
            await upgrade_to_head(url)
            versions = await _idle_versions(url, streams)
            settings = IngestSettings(database_url=url, data_dir=Path(tmp), port=0)
            server = await build_server(settings)
            await server.start()
            watched = [psutil.Process(), *_postgres_processes(Path(tmp) / "pg")]
            try:
                async with grpc.aio.insecure_channel(server.address) as channel:
                    stub = ingest_service_pb2_grpc.IngestServiceStub(channel)
                    runs = []
                    for _ in range(repeats):
                        runs.append(await _measure(stub, versions, 0, seconds, watched))
                        runs.append(await _measure(stub, versions, streams, seconds, watched))
            finally:
                await server.stop(grace=1.0)
        finally:
            await asyncio.to_thread(postgres.stop)
    idle = [r["cpu_share"] for r in runs if r["streams"] == 0]
    busy = [r["cpu_share"] for r in runs if r["streams"] == streams]
    median = sorted(busy)[len(busy) // 2] - sorted(idle)[len(idle) // 2]
    return {
        "streams": streams,
        "window_seconds": seconds,
        "runs": runs,
        "baseline_cpu_share_median": sorted(idle)[len(idle) // 2],
        "with_streams_cpu_share_median": sorted(busy)[len(busy) // 2],
        "streams_cost_cores": round(median, 4),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--streams", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for CI")
    parser.add_argument("--label", default="", help="recorded with the result (e.g. polling)")
    parser.add_argument("--output", type=Path, default=RESULTS_PATH)
    args = parser.parse_args(argv)
    if args.quick:
        args.streams, args.seconds, args.repeats = 3, 1.0, 1
    result = asyncio.run(run(args.streams, args.seconds, args.repeats))
    result["label"] = args.label
    if not args.quick:
        existing = json.loads(args.output.read_text()) if args.output.exists() else {}
        existing[args.label or "latest"] = result
        args.output.write_text(json.dumps(existing, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
