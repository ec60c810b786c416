"""Ingest → claims → facts on the synthetic corpus at three sizes, with a sequential baseline.

Every run starts the whole system the way `rememberstack up` does (`SystemLauncher`: embedded
Postgres, migrations, the four services as their own processes, gRPC on loopback), streams the
documents of `bench/synthetic_corpus.py` through `IngestDocuments`, and waits until every
version's `adjudicate.version` item is done. Per size it reports the counts (documents, claims,
facts, what the adjudicator decided), the wall time of each stage (extract, embed, adjudicate;
from its first item picked up to its last one finished, polled from the work queue), the time
the workers themselves spent (`work_items.result`), claims/s per stage, the end-to-end wall
time, and the peak memory of each service with its child processes (Postgres included).

The middle size runs twice: once as configured and once with a sequential adjudicator (one
process, one worker), so the parallel speed-up is a ratio measured on the same loaded machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import psutil
from rememberstack.v1 import ingest_service_pb2 as ingest_pb
from rememberstack.v1 import ingest_service_pb2_grpc as ingest_grpc
from rememberstack_client import open_aio_channel
from sqlalchemy import text

from bench.synthetic_corpus import SyntheticDocument, generate
from shared.cli.launcher import Endpoints, SystemLauncher
from shared.config import Settings
from shared.db.engine import create_engine
from shared.grpc.services import SERVICE_NAMES
from shared.proto_convert import timestamp

__all__ = ["FULL_SIZES", "QUICK_SIZES", "SEQUENTIAL_ADJUDICATOR", "main", "run_size"]

RESULTS = Path(__file__).resolve().parent / "results" / "pipeline_synthetic.json"
FULL_SIZES = (50, 200, 800)
QUICK_SIZES = (8,)
NAMESPACE = "synthetic"
BATCH = 50
# The baseline: the adjudicator alone forced to one process with one worker.
SEQUENTIAL_ADJUDICATOR = {
    "REMEMBERSTACK_WORKER_CONCURRENCY": "1",
    "REMEMBERSTACK_ADJUDICATOR_PROCESSES": "1",
}
_KINDS = {"extract": "ingest.extract", "embed": "ingest.embed", "adjudicate": "adjudicate.version"}
_TERMINAL = ("succeeded", "failed", "dead_letter")
_QUEUE = text(
    """
    SELECT kind,
           count(*) FILTER (WHERE status IN ('running', 'succeeded', 'failed', 'dead_letter'))
               AS started,
           count(*) FILTER (WHERE status = ANY(:terminal)) AS done,
           count(*) FILTER (WHERE status IN ('failed', 'dead_letter')) AS failed
    FROM work_items WHERE namespace = :ns GROUP BY kind
    """
)
_BUSY = text("SELECT kind, result FROM work_items WHERE namespace = :ns AND status = 'succeeded'")
_COUNTS = text(
    """
    SELECT (SELECT count(*) FROM claims WHERE namespace = :ns) AS claims,
           (SELECT count(DISTINCT claim_id) FROM assertions WHERE namespace = :ns) AS adjudicated,
           (SELECT count(*) FROM facts WHERE namespace = :ns) AS facts,
           (SELECT count(*) FROM facts WHERE namespace = :ns AND kind = 'relation') AS relations,
           (SELECT count(*) FROM facts WHERE namespace = :ns
              AND superseded_by_fact_id IS NOT NULL) AS superseded,
           (SELECT count(*) FROM facts WHERE namespace = :ns
              AND contradiction_group_id IS NOT NULL) AS in_contradiction_groups,
           (SELECT count(*) FROM entities WHERE namespace = :ns) AS entities,
           (SELECT json_object_agg(o, n) FROM (SELECT outcome AS o, count(*) AS n
              FROM decision_transcripts WHERE namespace = :ns GROUP BY outcome) x) AS outcomes
    """
)


class _Launcher(SystemLauncher):
    """`SystemLauncher` with extra environment for single services (the adjudicator baseline).

    The launcher hands every service a copy of this process's environment; the override is put
    in place only while one service's copy is taken, so the other services never see it.
    """

    def __init__(self, settings: Settings, extra_env: dict[str, dict[str, str]]) -> None:
        super().__init__(settings, base_port=0)
        self._extra_env = extra_env

    async def _spawn(self, name: str, endpoints: Endpoints) -> asyncio.subprocess.Process:
        saved = dict(os.environ)
        os.environ.update(self._extra_env.get(name, {}))
        try:
            return await super()._spawn(name, endpoints)
        finally:
            os.environ.clear()
            os.environ.update(saved)


def _memory_kib(pid: int) -> tuple[int, int, int]:
    """(RSS, PSS, VmHWM) of one process in KiB; PSS shares pages fairly between processes
    (Postgres backends map the same shared buffers), VmHWM is the kernel's own peak RSS."""
    rss = pss = hwm = 0
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Rss:"):
                rss = int(line.split()[1])
            elif line.startswith("Pss:"):
                pss = int(line.split()[1])
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                hwm = int(line.split()[1])
    except (OSError, ValueError):
        pass
    return rss, pss, hwm


class MemorySampler:
    """Samples each service's process tree (root and every descendant) once per interval."""

    def __init__(self, roots: dict[str, int], interval: float = 0.5) -> None:
        self._roots = roots
        self._interval = interval
        self.peaks: dict[str, dict[str, float]] = {
            name: {"peak_rss_mib": 0.0, "peak_pss_mib": 0.0, "root_hwm_mib": 0.0, "processes": 0}
            for name in roots
        }

    def sample(self) -> None:
        for name, pid in self._roots.items():
            try:
                root = psutil.Process(pid)
                tree = [root, *root.children(recursive=True)]
            except psutil.Error:
                continue
            figures = [_memory_kib(p.pid) for p in tree]
            peak = self.peaks[name]
            peak["peak_rss_mib"] = max(peak["peak_rss_mib"], sum(f[0] for f in figures) / 1024)
            peak["peak_pss_mib"] = max(peak["peak_pss_mib"], sum(f[1] for f in figures) / 1024)
            peak["root_hwm_mib"] = max(peak["root_hwm_mib"], figures[0][2] / 1024)
            peak["processes"] = max(peak["processes"], len(tree))

    async def run(self) -> None:
        while True:
            await asyncio.to_thread(self.sample)
            await asyncio.sleep(self._interval)


def _service_pids(data_dir: Path) -> dict[str, int]:
    """The launched services (children of this process) and the embedded Postgres postmaster,
    which pg_ctl detaches from us; its pid is the first line of postmaster.pid."""
    pids: dict[str, int] = {}
    for child in psutil.Process().children():
        try:
            command = child.cmdline()
        except psutil.Error:
            continue
        for name in SERVICE_NAMES:
            if f"services.{name}" in command:
                pids[name] = child.pid
    for pidfile in data_dir.rglob("postmaster.pid"):
        pids["postgres"] = int(pidfile.read_text().split()[0])
    return pids


async def _ingest(address: str, documents: list[SyntheticDocument]) -> None:
    async with open_aio_channel(address, timeout=None) as channel:
        stub = ingest_grpc.IngestServiceStub(channel)
        for start in range(0, len(documents), BATCH):

            async def batch(chunk: list[SyntheticDocument]) -> AsyncIterator[Any]:
                for doc in chunk:
                    yield ingest_pb.IngestDocumentsRequest(
                        document=ingest_pb.IngestDocumentRequest(
                            namespace=NAMESPACE,
                            content=doc.body.encode(),
                            media_type=doc.media_type,
                            source_kind="synthetic",
                            source_ref=doc.source_ref,
                            title=doc.title,
                            source_modified_time=timestamp(doc.said_on),
                        )
                    )

            await stub.IngestDocuments(batch(documents[start : start + BATCH]))


async def _watch_stages(engine: Any, expected: int, t0: float, limit: float) -> dict[str, Any]:
    """Poll the work queue until every stage finished `expected` items (or `limit` seconds)."""
    started: dict[str, float] = {}
    done: dict[str, float] = {}
    failed: dict[str, int] = {}
    while True:
        async with engine.connect() as conn:
            rows = (await conn.execute(_QUEUE, {"ns": NAMESPACE, "terminal": _TERMINAL})).all()
        now = time.perf_counter() - t0
        by_kind = {row.kind: row for row in rows}
        for stage, kind in _KINDS.items():
            row = by_kind.get(kind)
            if row is None:
                continue
            failed[stage] = int(row.failed)
            if row.started:
                started.setdefault(stage, now)
            if row.done >= expected:
                done.setdefault(stage, now)
        if len(done) == len(_KINDS) or now > limit:
            return {"started": started, "done": done, "failed": failed, "timed_out": now > limit}
        await asyncio.sleep(0.5)


def _busy_seconds(rows: list[Any]) -> dict[str, float]:
    """Seconds the workers spent per stage, as each item recorded in its result."""
    # "<stage>_model": the part of the stage the model itself ran (spaCy, onnxruntime).
    busy = dict.fromkeys((*_KINDS, "extract_model", "embed_model"), 0.0)
    for row in rows:
        seconds = (row.result or {}).get("seconds")
        if row.kind == _KINDS["adjudicate"] and isinstance(seconds, int | float):
            busy["adjudicate"] += float(seconds)
        elif isinstance(seconds, dict):
            for stage, value in seconds.items():
                # convert and chunk run inside the extract item.
                key = "extract" if stage in ("convert", "chunk", "extract") else stage
                if key in busy:
                    busy[key] += float(value)
    return {k: round(v, 2) for k, v in busy.items()}


async def run_size(
    size: int, seed: int, adjudicator_env: dict[str, str], limit: float = 1800.0
) -> dict[str, Any]:
    """One full system run over `size` synthetic documents."""
    documents = generate(size, seed)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="pipeline-synthetic-") as tmp:
        settings = Settings(data_dir=Path(tmp), log_json=False, log_level="WARNING")
        launcher = _Launcher(settings, {"adjudicator": adjudicator_env})
        booted = time.perf_counter()
        try:
            # Generous: on the shared machine four services loading models can take minutes.
            endpoints = await launcher.start(ready_timeout=600.0)
        except BaseException:
            for log in sorted((Path(tmp) / "logs").glob("*.log")):
                print(f"--- {log.name}\n{log.read_text()[-1500:]}", flush=True)
            await launcher.stop()
            raise
        boot = time.perf_counter() - booted
        sampler = MemorySampler(_service_pids(Path(tmp)))
        sampling = asyncio.create_task(sampler.run())
        engine = create_engine(endpoints.database_url)
        try:
            t0 = time.perf_counter()
            await _ingest(endpoints.ingest, documents)
            accepted = time.perf_counter() - t0
            stages = await _watch_stages(engine, len(documents), t0, limit)
            wall = time.perf_counter() - t0
            await asyncio.to_thread(sampler.sample)
            async with engine.connect() as conn:
                counts = (await conn.execute(_COUNTS, {"ns": NAMESPACE})).one()
                busy = _busy_seconds(list((await conn.execute(_BUSY, {"ns": NAMESPACE})).all()))
        finally:
            sampling.cancel()
            # The services must stop even if the database connection is stuck mid-query.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(engine.dispose(), 10)
            await launcher.stop()
    claims = int(counts.claims)
    per_stage: dict[str, dict[str, float | None]] = {}
    for stage in _KINDS:
        start, end = stages["started"].get(stage), stages["done"].get(stage)
        span = end - start if start is not None and end is not None else None
        per_stage[stage] = {
            "started_at_seconds": None if start is None else round(start, 1),
            "done_at_seconds": None if end is None else round(end, 1),
            "wall_seconds": None if span is None else round(span, 1),
            "claims_per_second": round(claims / span, 1) if span else None,
            "busy_seconds": busy[stage],
            "model_seconds": busy.get(f"{stage}_model"),
            "claims_per_busy_second": round(claims / busy[stage], 1) if busy[stage] else None,
            "failed_items": stages["failed"].get(stage, 0),
        }
    return {
        "documents": len(documents),
        "characters": sum(len(d.body) for d in documents),
        "claims": claims,
        "claims_adjudicated": int(counts.adjudicated),
        "facts": int(counts.facts),
        "relations": int(counts.relations),
        "superseded_facts": int(counts.superseded),
        "facts_in_contradiction_groups": int(counts.in_contradiction_groups),
        "entities": int(counts.entities),
        "decisions": counts.outcomes or {},
        "boot_seconds": round(boot, 1),
        "ingest_rpc_seconds": round(accepted, 1),
        "stages": per_stage,
        "wall_seconds_end_to_end": round(wall, 1),
        # Near zero when the adjudicator keeps up with embedding (its stage is then paced by
        # ingest, not by its own speed); large when adjudication is the bottleneck.
        "adjudicate_done_after_embed_seconds": (
            round(stages["done"]["adjudicate"] - stages["done"]["embed"], 1)
            if {"adjudicate", "embed"} <= stages["done"].keys()
            else None
        ),
        "claims_per_second_end_to_end": round(claims / wall, 1) if wall else None,
        "timed_out": stages["timed_out"],
        "adjudicator_env": adjudicator_env,
        "memory": {k: {f: round(v, 1) for f, v in m.items()} for k, m in sampler.peaks.items()},
        "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }


def _env_pairs(values: list[str]) -> dict[str, str]:
    pairs = dict(v.split("=", 1) for v in values)
    bad = [k for k in pairs if not k.startswith("REMEMBERSTACK_")]
    if bad:
        raise SystemExit(f"--adjudicator-env takes REMEMBERSTACK_* variables, got {bad}")
    return pairs


def _ratio(ours: dict[str, Any], base: dict[str, Any], key: str, *path: str) -> float | None:
    for step in path:
        ours, base = ours[step], base[step]
    a, b = ours.get(key), base.get(key)
    return round(float(a) / float(b), 2) if a and b else None


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    sizes = QUICK_SIZES if args.quick else tuple(args.sizes)
    configured = _env_pairs(args.adjudicator_env)
    baseline_size = sizes[len(sizes) // 2]
    result: dict[str, Any] = {
        "corpus": {"generator": "bench.synthetic_corpus", "seed": args.seed},
        "sizes": {},
        "baseline": {
            "size": baseline_size,
            "description": "the same corpus with the adjudicator forced to one process, one worker",
        },
        "configured_adjudicator_env": configured,
        "mode": "quick" if args.quick else "full",
        "complete": False,
        "cpu_count": os.cpu_count(),
        "machine": platform.machine(),
        "memory_total_mib": round(psutil.virtual_memory().total / 2**20),
    }
    for size in sizes:
        print(f"size {size} …", flush=True)
        result["sizes"][str(size)] = measured = await run_size(size, args.seed, configured)
        print(json.dumps(measured["stages"]), flush=True)
        _save(args.output, result)
        # Quick mode (CI) keeps to one system start: the baseline is the same code path with
        # other settings.
        if size != baseline_size or args.quick:
            continue
        # Right after the configured run of the same size, so both see about the same load.
        print(f"size {size}, sequential adjudicator …", flush=True)
        baseline = await run_size(size, args.seed, SEQUENTIAL_ADJUDICATOR)
        result["baseline"] |= {
            "run": baseline,
            # > 1 means the configured system is faster than the sequential adjudicator.
            "speedup_adjudicate_claims_per_second": _ratio(
                measured, baseline, "claims_per_second", "stages", "adjudicate"
            ),
            "speedup_end_to_end_claims_per_second": _ratio(
                measured, baseline, "claims_per_second_end_to_end"
            ),
        }
        _save(args.output, result)
    result["complete"] = True
    _save(args.output, result)
    return result


def _save(path: Path, result: dict[str, Any]) -> None:
    """Written after every run, so a long benchmark that is stopped keeps what it measured."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2, default=str) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"sizes {QUICK_SIZES} (bench.run keeps the saved figures)",
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=list(FULL_SIZES))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--adjudicator-env",
        nargs="*",
        # One adjudicator process per core: the sequential baseline is one process, one worker,
        # so the ratio between them is what the replica processes buy.
        default=[f"REMEMBERSTACK_ADJUDICATOR_PROCESSES={os.cpu_count() or 1}"],
        metavar="REMEMBERSTACK_X=V",
        help="settings of the adjudicator in the measured runs (not the baseline)",
    )
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    result = asyncio.run(_run(args))
    print(json.dumps(result, indent=2, default=str))


if __name__ == "__main__":
    main()
