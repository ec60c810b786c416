"""Adjudication throughput: the LoCoMo backlog through real adjudicator processes, as a ratio.

The corpus goes once through the real ingest service (its own process) into a template
database, up to extracted + embedded claims and their pending `adjudicate.version` items. Each
measured configuration then gets its own copy of that database (`CREATE DATABASE … TEMPLATE`)
and real `python -m services.adjudicator` processes; once every process serves, the items are
released at one instant and the clock runs until every item succeeded. The sequential baseline
(one process, one worker) runs in the same invocation as the configured setup, so the ratio
between them is what a loaded, shared machine can still compare.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import socket
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from rememberstack_client import open_aio_channel
from sqlalchemy.engine import make_url

from bench.ingest_throughput import NAMESPACE, _await_serving, _documents, _ingest, _wait_embedded
from shared.db.embedded import EmbeddedPostgres
from shared.db.engine import to_asyncpg_dsn
from shared.db.migrate import upgrade_to_head

__all__ = ["main", "run"]

RESULTS = Path(__file__).resolve().parent / "results" / "adjudication_throughput.json"
ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = "locomo_ingested"
_HELD = datetime(2100, 1, 1, tzinfo=UTC)
_HEALTH = "rememberstack.v1.AdjudicatorService"

_SUMMARY = """
SELECT (SELECT count(*) FROM claims WHERE namespace = $1) AS claims,
       (SELECT count(DISTINCT claim_id) FROM assertions WHERE namespace = $1) AS adjudicated,
       (SELECT count(*) FROM facts WHERE namespace = $1) AS facts,
       (SELECT count(*) FROM facts WHERE namespace = $1 AND kind = 'relation') AS relations,
       (SELECT count(*) FROM facts WHERE namespace = $1 AND superseded_by_fact_id IS NOT NULL)
           AS superseded,
       (SELECT count(*) FROM facts WHERE namespace = $1 AND contradiction_group_id IS NOT NULL)
           AS in_groups,
       (SELECT count(*) FROM entities WHERE namespace = $1) AS entities,
       (SELECT coalesce(sum(evidence_count), 0) FROM facts WHERE namespace = $1) AS evidence,
       (SELECT json_object_agg(m, n) FROM (SELECT method AS m, count(*) AS n
          FROM decision_transcripts WHERE namespace = $1 GROUP BY method) x) AS methods
"""


_ACTIVITY = """
SELECT CASE WHEN state = 'active' AND wait_event_type = 'Lock' THEN 'lock_wait:' || wait_event
            WHEN state = 'active' THEN 'active' ELSE state END AS what
FROM pg_stat_activity
WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
  AND query NOT LIKE 'LISTEN%'
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _database(url: str, name: str) -> str:
    return make_url(url).set(database=name).render_as_string(hide_password=False)


async def _admin(url: str, *statements: str) -> None:
    connection = await asyncpg.connect(to_asyncpg_dsn(url))
    try:
        for statement in statements:
            await connection.execute(statement)
    finally:
        await connection.close()


async def _template_ready(url: str) -> bool:
    connection = await asyncpg.connect(to_asyncpg_dsn(url))
    try:
        found = await connection.fetchval(
            "SELECT 1 FROM pg_database WHERE datname = $1 AND"
            " shobj_description(oid, 'pg_database') = 'ready'",
            TEMPLATE,
        )
        return bool(found)
    finally:
        await connection.close()


async def prepare_template(url: str, limit: int | None) -> dict[str, Any]:
    """Ingest the corpus into the template database (kept when it is already complete)."""
    if await _template_ready(url):
        # Kept from an earlier build: bring it to this build's schema, as a deploy would, or the
        # adjudicators refuse to start on it.
        await upgrade_to_head(_database(url, TEMPLATE))
        return {"reused_template": True}
    await _admin(url, f"DROP DATABASE IF EXISTS {TEMPLATE}", f"CREATE DATABASE {TEMPLATE}")
    template = _database(url, TEMPLATE)
    await upgrade_to_head(template)
    port = _free_port()
    env = dict(os.environ) | {
        "REMEMBERSTACK_DATABASE_URL": template,
        "REMEMBERSTACK_PORT": str(port),
        "REMEMBERSTACK_SERVICE_NAME": "ingest",
        "REMEMBERSTACK_WORKER_CONCURRENCY": "2",
        "REMEMBERSTACK_WORKER_POLL_SECONDS": "0.5",
        "REMEMBERSTACK_LOG_LEVEL": "WARNING",
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "services.ingest",
        env=env,
        cwd=ROOT,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    started = time.perf_counter()
    try:
        address = f"127.0.0.1:{port}"
        await _await_serving(address, process)
        from rememberstack.v1 import ingest_service_pb2_grpc

        async with open_aio_channel(address, timeout=None) as channel:
            stub = ingest_service_pb2_grpc.IngestServiceStub(channel)
            versions = await _ingest(stub, _documents(limit))
            claims, dead = await _wait_embedded(stub, versions)
    finally:
        if process.returncode is None:
            process.terminate()
            await process.wait()
    await _admin(url, f"COMMENT ON DATABASE {TEMPLATE} IS 'ready'")
    return {
        "reused_template": False,
        "ingest_seconds": round(time.perf_counter() - started, 1),
        "ingested_claims": claims,
        "ingest_dead_letters": dead,
    }


async def _await_health(address: str, process: asyncio.subprocess.Process) -> None:
    request = health_pb2.HealthCheckRequest(service=_HEALTH)
    async with open_aio_channel(address, timeout=None) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        async with asyncio.timeout(180):
            while True:
                if process.returncode is not None:
                    raise RuntimeError(f"adjudicator exited with {process.returncode}")
                with contextlib.suppress(grpc.aio.AioRpcError):
                    reply = await stub.Check(request, timeout=2)
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        return
                await asyncio.sleep(0.2)


async def adjudicate_copy(
    url: str, name: str, *, processes: int, workers: int, log_dir: Path, items: int | None
) -> dict[str, Any]:
    """Copy the template, start the adjudicator, release every item at once, time the drain."""
    await _admin(
        url, f"DROP DATABASE IF EXISTS {name}", f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}"
    )
    copy = _database(url, name)
    dsn = to_asyncpg_dsn(copy)
    connection = await asyncpg.connect(dsn)
    spawned: list[asyncio.subprocess.Process] = []
    try:
        # Held back until every process serves, so start-up (model loading) is not timed.
        await connection.execute(
            "UPDATE work_items SET run_after = $1 WHERE kind = 'adjudicate.version'",
            _HELD,
        )
        port = _free_port()
        env = dict(os.environ) | {
            "REMEMBERSTACK_DATABASE_URL": copy,
            "REMEMBERSTACK_PORT": str(port),
            "REMEMBERSTACK_SERVICE_NAME": "adjudicator",
            "REMEMBERSTACK_WORKER_CONCURRENCY": str(workers),
            "REMEMBERSTACK_ADJUDICATOR_PROCESSES": str(processes),
            "REMEMBERSTACK_WORKER_POLL_SECONDS": "0.5",
            "REMEMBERSTACK_LOG_LEVEL": "WARNING",
            "REMEMBERSTACK_LOG_JSON": "false",
        }
        log = (log_dir / f"{name}.log").open("ab")
        spawned.append(
            await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "services.adjudicator",
                env=env,
                cwd=ROOT,
                stdout=log,
                stderr=log,
            )
        )
        await _await_health(f"127.0.0.1:{port}", spawned[0])
        # Replica processes start after the primary serves and load their models then.
        await _await_listeners(connection, processes * workers)
        load_before = os.getloadavg()[0]
        started = time.perf_counter()
        # The first `items` versions in ingest order (all when None): the same in every copy.
        await connection.execute(
            "UPDATE work_items SET run_after = now() WHERE id IN (SELECT id FROM work_items"
            " WHERE kind = 'adjudicate.version' ORDER BY created_at, id LIMIT $1)",
            items,
        )
        await connection.execute("SELECT pg_notify('rememberstack_work', 'adjudicate.version')")
        waits: dict[str, int] = {}
        while True:
            # What the adjudicator's backends are doing: waiting for a lock another process
            # holds (contention) or not (working, or idle while the process computes).
            for row in await connection.fetch(_ACTIVITY):
                waits[row["what"]] = waits.get(row["what"], 0) + 1
            left = await connection.fetchval(
                "SELECT count(*) FROM work_items WHERE kind = 'adjudicate.version'"
                " AND run_after < $1 AND status NOT IN ('succeeded', 'dead_letter')",
                _HELD,
            )
            if left == 0:
                break
            await asyncio.sleep(0.2)
        seconds = time.perf_counter() - started
        load_after = os.getloadavg()[0]
        summary = dict(await connection.fetchrow(_SUMMARY, NAMESPACE))
        # Claims that went through the pipeline (also those that made no assertion).
        summary["claims"] = await connection.fetchval(
            "SELECT coalesce(sum((result->>'claims_adjudicated')::int), 0) FROM work_items"
            " WHERE kind = 'adjudicate.version' AND status = 'succeeded'"
        )
        summary["decisions_by_process"] = sorted(
            (
                row["n"]
                for row in await connection.fetch(
                    "SELECT regexp_replace(decided_by, '-[0-9]+$', '') AS process, count(*) AS n"
                    " FROM decision_transcripts WHERE namespace = $1 GROUP BY 1",
                    NAMESPACE,
                )
            ),
            reverse=True,
        )
        summary["backend_samples"] = waits
        dead = await connection.fetchval(
            "SELECT count(*) FROM work_items WHERE kind = 'adjudicate.version'"
            " AND status = 'dead_letter'"
        )
    finally:
        await connection.close()
        for process in spawned:
            if process.returncode is None:
                process.terminate()
                await process.wait()
        await _admin(url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    summary["methods"] = json.loads(summary["methods"] or "{}")
    return {
        "processes": processes,
        "workers_per_process": workers,
        "seconds": round(seconds, 1),
        "claims_per_second": round(summary["claims"] / seconds, 1),
        "dead_letters": dead,
        "load_average_1min_before": round(load_before, 2),
        "load_average_1min_after": round(load_after, 2),
        **summary,
    }


async def _await_listeners(connection: asyncpg.Connection, processes: int) -> None:
    """Wait until every worker (of every process) listens for work."""
    async with asyncio.timeout(180):
        while True:
            listening = await connection.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND query LIKE 'LISTEN%'"
            )
            if listening >= processes:
                return
            await asyncio.sleep(0.2)


async def run(
    limit: int | None,
    data_dir: Path,
    processes: int,
    workers: int,
    items: int | None,
    *,
    with_baseline: bool = True,
) -> dict[str, Any]:
    postgres = EmbeddedPostgres(data_dir / "postgres")
    url = await asyncio.to_thread(postgres.start)
    try:
        prepared = await prepare_template(url, limit)
        baseline = None
        if with_baseline:
            baseline = await adjudicate_copy(
                url, "adj_baseline", processes=1, workers=1, log_dir=data_dir, items=items
            )
        configured = await adjudicate_copy(
            url,
            "adj_configured",
            processes=processes,
            workers=workers,
            log_dir=data_dir,
            items=items,
        )
    finally:
        await asyncio.to_thread(postgres.stop)
    result = {
        **prepared,
        "sequential_single_worker": baseline,
        "configured": configured,
        "claims_per_second_adjudicated": configured["claims_per_second"],
        "target_claims_per_second": 150,
    }
    if baseline is not None:
        result["speedup_over_sequential"] = round(
            configured["claims_per_second"] / baseline["claims_per_second"], 2
        )
        result["same_fact_counts"] = all(
            baseline[k] == configured[k] for k in ("facts", "relations", "adjudicated")
        )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the first 3 sessions")
    parser.add_argument("--processes", type=int, default=2, help="adjudicator processes")
    parser.add_argument("--workers", type=int, default=1, help="workers per process")
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="keep the database here and reuse its ingested template across runs",
    )
    parser.add_argument(
        "--items", type=int, default=None, help="only the first N versions (default: all)"
    )
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()

    with contextlib.ExitStack() as stack:
        data_dir = args.data_dir or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        data_dir.mkdir(parents=True, exist_ok=True)
        result = asyncio.run(
            # Quick mode (CI) skips the sequential baseline: the same code with other settings.
            run(
                3 if args.quick else None,
                data_dir,
                args.processes,
                args.workers,
                args.items,
                with_baseline=not args.quick,
            )
        )
    result |= {
        "mode": "quick" if args.quick else ("full" if args.items is None else "items"),
        "items": args.items,
        "cpu_count": os.cpu_count(),
        "machine": platform.machine(),
    }
    print(json.dumps(result, indent=2, default=str))
    if not args.quick and args.items is None:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(result, indent=2, default=str) + "\n")


if __name__ == "__main__":
    main()
