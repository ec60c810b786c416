"""End-to-end throughput: LoCoMo sessions through the launched system to adjudicated facts."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from rememberstack.v1 import ingest_service_pb2 as ingest_pb
from rememberstack.v1 import ingest_service_pb2_grpc as ingest_grpc
from rememberstack_client import open_aio_channel
from sqlalchemy import text

from bench.locomo.corpus import load_sessions, to_document
from shared.cli.launcher import SystemLauncher
from shared.config import Settings
from shared.db.engine import create_engine
from shared.proto_convert import timestamp

__all__ = ["main", "run"]

RESULTS = Path(__file__).resolve().parent / "results" / "pipeline_throughput.json"
_TERMINAL = ("succeeded", "failed", "dead_letter", "skipped")
_STAGES = ("convert", "chunk", "extract", "embed", "adjudicate")
_PROGRESS = text(
    """
    SELECT stage,
           count(*) FILTER (WHERE status = ANY(:terminal)) AS done,
           count(*) FILTER (WHERE status IN ('failed', 'dead_letter')) AS failed,
           count(*) AS total
    FROM version_stages WHERE namespace = :ns GROUP BY stage
    """
)
_COUNTS = text(
    """
    SELECT (SELECT count(*) FROM claims WHERE namespace = :ns) AS claims,
           (SELECT count(DISTINCT claim_id) FROM assertions WHERE namespace = :ns) AS adjudicated,
           (SELECT count(*) FROM facts WHERE namespace = :ns) AS facts,
           (SELECT count(*) FROM facts WHERE namespace = :ns AND kind = 'relation') AS relations,
           (SELECT count(*) FROM entities WHERE namespace = :ns) AS entities,
           (SELECT min(decided_at) FROM decision_transcripts WHERE namespace = :ns) AS first,
           (SELECT max(decided_at) FROM decision_transcripts WHERE namespace = :ns) AS last,
           (SELECT json_object_agg(m, n) FROM (SELECT method AS m, count(*) AS n
              FROM decision_transcripts WHERE namespace = :ns GROUP BY method) x) AS methods,
           (SELECT sum((result->>'seconds')::float) FROM work_items
              WHERE namespace = :ns AND kind = 'adjudicate.version'
                AND status = 'succeeded') AS adjudicate_busy
    """
)


_FAILED_ITEMS = text(
    "SELECT kind, status, attempts, left(last_error, 400) AS error FROM work_items"
    " WHERE namespace = :ns AND last_error IS NOT NULL ORDER BY updated_at LIMIT 20"
)


async def run(
    sessions_limit: int | None, workers: int, namespace: str, processes: int = 2
) -> dict[str, Any]:
    sessions = load_sessions()
    if sessions_limit is not None:
        sessions = sessions[:sessions_limit]
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["REMEMBERSTACK_WORKER_CONCURRENCY"] = str(workers)
        os.environ["REMEMBERSTACK_ADJUDICATOR_PROCESSES"] = str(processes)
        launcher = SystemLauncher(Settings(data_dir=Path(tmp), log_json=False), base_port=0)
        started = time.perf_counter()
        endpoints = await launcher.start()
        boot = time.perf_counter() - started
        engine = create_engine(endpoints.database_url)
        try:
            t0 = time.perf_counter()
            async with open_aio_channel(endpoints.ingest, timeout=None) as channel:
                stub = ingest_grpc.IngestServiceStub(channel)
                for session in sessions:
                    source_ref, body = to_document(session)
                    await stub.IngestDocument(
                        ingest_pb.IngestDocumentRequest(
                            namespace=namespace,
                            content=body.encode(),
                            media_type="text/x-rememberstack-conversation",
                            title=source_ref.replace("_", " "),
                            source_modified_time=timestamp(session.said_on),
                        )
                    )
            ingest_rpcs = time.perf_counter() - t0
            stage_done: dict[str, float] = {}
            while True:
                async with engine.connect() as conn:
                    rows = (
                        await conn.execute(
                            _PROGRESS, {"ns": namespace, "terminal": list(_TERMINAL)}
                        )
                    ).all()
                now = time.perf_counter() - t0
                for row in rows:
                    if row.total >= len(sessions) and row.done == row.total:
                        stage_done.setdefault(row.stage, now)
                if all(s in stage_done for s in _STAGES) or now > 1800:
                    break
                await asyncio.sleep(0.5)
            wall = time.perf_counter() - t0
            async with engine.connect() as conn:
                counts = (await conn.execute(_COUNTS, {"ns": namespace})).one()
                failed = {
                    r.stage: r.failed
                    for r in (
                        await conn.execute(
                            _PROGRESS, {"ns": namespace, "terminal": list(_TERMINAL)}
                        )
                    ).all()
                }
                # Why items failed: a failed version is a bug to chase, not a figure.
                errors = [
                    f"{r.kind} ({r.status}, {r.attempts} attempts): {r.error}"
                    for r in await conn.execute(_FAILED_ITEMS, {"ns": namespace})
                ]
        finally:
            await engine.dispose()
            await launcher.stop()
    busy = float(counts.adjudicate_busy or 0.0)
    adjudication_span = (
        (counts.last - counts.first).total_seconds() if counts.first and counts.last else 0.0
    )
    return {
        "sessions": len(sessions),
        "adjudicator_workers": workers,
        "adjudicator_processes": processes,
        "boot_seconds": round(boot, 1),
        "ingest_rpc_seconds": round(ingest_rpcs, 1),
        "stage_done_seconds": {
            k: round(v, 1) for k, v in sorted(stage_done.items(), key=lambda kv: kv[1])
        },
        "wall_seconds_ingest_to_facts": round(wall, 1),
        "claims": counts.claims,
        "claims_adjudicated": counts.adjudicated,
        "facts": counts.facts,
        "relations": counts.relations,
        "entities": counts.entities,
        "methods": counts.methods,
        "failed_versions": failed,
        "item_errors": errors,
        "adjudication_span_seconds": round(adjudication_span, 1),
        "claims_per_second_end_to_end": round(counts.claims / wall, 1) if wall else 0.0,
        "claims_per_second_adjudication": (
            round(counts.claims / adjudication_span, 1) if adjudication_span else 0.0
        ),
        # The span above is paced by the embed stage feeding it; the workers' own time is not.
        "adjudicate_busy_seconds": round(busy, 1),
        "claims_per_busy_second_per_worker": round(counts.claims / busy, 1) if busy else 0.0,
        "adjudicate_done_after_embed_seconds": round(
            stage_done.get("adjudicate", 0.0) - stage_done.get("embed", 0.0), 1
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="only the first 3 sessions")
    parser.add_argument("--workers", type=int, default=2, help="adjudicator worker concurrency")
    parser.add_argument(
        "--processes", type=int, default=2, help="adjudicator processes (serving + replicas)"
    )
    parser.add_argument("--namespace", default="locomo")
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args()
    report = asyncio.run(
        run(3 if args.quick else None, args.workers, args.namespace, args.processes)
    )
    print(json.dumps(report, indent=2, default=str))
    if not args.quick:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(report, indent=2, default=str))


if __name__ == "__main__":
    main()
