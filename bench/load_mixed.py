"""Mixed load: reading clients against the real services while the pipeline ingests LoCoMo.

    .venv/bin/python -m bench.load_mixed                                 # 8 readers, 60 s
    .venv/bin/python -m bench.load_mixed --readers 16 --duration 90 --mix facts=3,claims=1
    .venv/bin/python -m bench.load_mixed --quick                         # CI smoke run

Starts the whole system on loopback like `rememberstack up` (embedded PostgreSQL, four service
processes), ingests the first `--preload` LoCoMo sessions and waits until they are facts, so
reads have something to find. Then, for `--duration` seconds, `--readers` closed-loop clients
send the `--mix` of reads (LoCoMo questions as query texts; `--think-ms` between requests,
0 = back to back) while one writer ingests the rest of the corpus as fast as ingest accepts
it, so the pipeline works at full speed throughout (`--no-writer`: the same reads with the
pipeline idle, the floor the machine's cores set for that many readers). Every second the
sampler records the queue backlog, the RSS of every service's process tree and what the
readers saw.

Results go to bench/results/load_mixed.json under `--label` (other labels are kept, so a run
of the code before a change sits next to the run after it), with a plot in bench/plots.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc
import numpy as np
import psutil
from rememberstack.v1 import ingest_service_pb2 as ingest_pb
from rememberstack.v1 import ingest_service_pb2_grpc as ingest_grpc
from rememberstack.v1 import query_service_pb2 as query_pb
from rememberstack.v1 import query_service_pb2_grpc as query_grpc
from sqlalchemy import text

from bench.load_mixed_plot import plot
from bench.locomo.corpus import Session, load_questions, load_sessions, to_document
from shared.cli.launcher import SystemLauncher
from shared.config import Settings
from shared.db.engine import create_engine
from shared.grpc.services import SERVICE_NAMES
from shared.proto_convert import timestamp

__all__ = ["main", "run"]

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results" / "load_mixed.json"
NAMESPACE = "locomo"
TARGET_P99_MS = {"FactsContext": 150.0, "ClaimsAndSourcesContext": 300.0}
_BACKLOG = text(
    "SELECT kind, count(*) AS n FROM work_items"
    " WHERE status IN ('pending', 'running', 'failed') GROUP BY kind"
)
_UNFINISHED = text(
    "SELECT count(*) FROM version_stages WHERE namespace = :ns"
    " AND status NOT IN ('succeeded', 'skipped', 'dead_letter')"
)
_FACTS = text("SELECT count(*) FROM facts WHERE namespace = :ns")

Call = Callable[[query_grpc.QueryServiceStub, str], Awaitable[Any]]
_CALLS: dict[str, Call] = {
    "facts": lambda stub, q: stub.FactsContext(
        query_pb.FactsContextRequest(namespace=NAMESPACE, query=q)
    ),
    "claims": lambda stub, q: stub.ClaimsAndSourcesContext(
        query_pb.ClaimsAndSourcesContextRequest(namespace=NAMESPACE, query=q)
    ),
}
_RPC_NAMES = {"facts": "FactsContext", "claims": "ClaimsAndSourcesContext"}


@dataclass
class Samples:
    """What the readers saw (one row per request) and what the sampler saw (one per second)."""

    started: float = field(default_factory=time.perf_counter)
    requests: list[tuple[float, str, float, str]] = field(default_factory=list)
    seconds: list[dict[str, Any]] = field(default_factory=list)

    def now(self) -> float:
        return time.perf_counter() - self.started


def _parse_mix(raw: str) -> dict[str, float]:
    mix: dict[str, float] = {}
    for part in raw.split(","):
        name, _, weight = part.partition("=")
        if name not in _CALLS:
            raise SystemExit(f"--mix: unknown read {name!r}; expected {sorted(_CALLS)}")
        mix[name] = float(weight or 1)
    return mix


def _document(session: Session) -> ingest_pb.IngestDocumentRequest:
    source_ref, body = to_document(session)
    return ingest_pb.IngestDocumentRequest(
        namespace=NAMESPACE,
        content=body.encode(),
        media_type="text/x-rememberstack-conversation",
        source_kind="locomo",
        source_ref=source_ref,
        title=source_ref.replace("_", " "),
        source_modified_time=timestamp(session.said_on),
    )


async def _ingest(stub: ingest_grpc.IngestServiceStub, sessions: list[Session]) -> None:
    for session in sessions:
        await stub.IngestDocument(_document(session))


async def _drained(engine: Any) -> bool:
    async with engine.connect() as conn:
        return int((await conn.execute(_UNFINISHED, {"ns": NAMESPACE})).scalar_one()) == 0


async def _until_drained(engine: Any) -> None:
    """Poll the stage table: the pipeline's own notifications are not ours to listen to."""
    async with asyncio.timeout(1800):
        while not await _drained(engine):  # noqa: ASYNC110
            await asyncio.sleep(0.5)


async def _reader(
    stub: query_grpc.QueryServiceStub,
    mix: dict[str, float],
    questions: list[str],
    samples: Samples,
    stop_at: float,
    think: float,
    seed: int,
) -> None:
    rng = random.Random(seed)
    names, weights = list(mix), list(mix.values())
    while samples.now() < stop_at:
        name = rng.choices(names, weights)[0]
        began = samples.now()
        status = "OK"
        try:
            await _CALLS[name](stub, rng.choice(questions))
        except grpc.aio.AioRpcError as error:
            status = error.code().name
        samples.requests.append((began, _RPC_NAMES[name], samples.now() - began, status))
        if think:
            await asyncio.sleep(rng.uniform(0.5, 1.5) * think)


def _service_processes(launcher: SystemLauncher) -> dict[str, list[psutil.Process]]:
    """Every service's process tree, and PostgreSQL's (postmaster and backends)."""
    trees: dict[str, list[psutil.Process]] = {}
    for child in psutil.Process().children():
        with contextlib.suppress(psutil.Error):
            line = " ".join(child.cmdline())
            for name in SERVICE_NAMES:
                if f"services.{name}" in line:
                    trees[name] = [child, *child.children(recursive=True)]
    pid_file = launcher.data_dir / "postgres" / "postmaster.pid"
    with contextlib.suppress(OSError, psutil.Error, ValueError):
        master = psutil.Process(int(pid_file.read_text().split()[0]))
        trees["postgres"] = [master, *master.children()]
    return trees


def _rss_mib(processes: list[psutil.Process]) -> float:
    total = 0
    for process in processes:
        with contextlib.suppress(psutil.Error):
            total += process.memory_info().rss
    return round(total / 2**20, 1)


async def _sampler(engine: Any, launcher: SystemLauncher, samples: Samples, stop: asyncio.Event):
    seen = 0
    while not stop.is_set():
        second = samples.now()
        async with engine.connect() as conn:
            backlog = {row.kind: row.n for row in await conn.execute(_BACKLOG)}
            facts = int((await conn.execute(_FACTS, {"ns": NAMESPACE})).scalar_one())
        trees = _service_processes(launcher)
        fresh = samples.requests[seen:]
        seen += len(fresh)
        samples.seconds.append(
            {
                "t": round(second, 1),
                "backlog": backlog,
                "facts": facts,
                "rss_mib": {name: _rss_mib(tree) for name, tree in trees.items()},
                "load_1m": round(os.getloadavg()[0], 2),
                "latency_ms": {
                    rpc: [round(r[2] * 1000, 1) for r in fresh if r[1] == rpc and r[3] == "OK"]
                    for rpc in _RPC_NAMES.values()
                },
            }
        )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0)


def _pipeline_progress(seconds: list[dict[str, Any]]) -> dict[str, Any]:
    """How far the pipeline got while the readers read: facts written, backlog at the end."""
    if not seconds:
        return {}
    first, last = seconds[0], seconds[-1]
    span = max(last["t"] - first["t"], 1e-9)
    return {
        "facts_written": last["facts"] - first["facts"],
        "facts_per_second": round((last["facts"] - first["facts"]) / span, 2),
        "backlog_at_end": last["backlog"],
        "load_average_1m": [first["load_1m"], last["load_1m"]],
    }


def _summary(samples: Samples, window: tuple[float, float]) -> dict[str, Any]:
    """Per RPC over the measured window: throughput, percentiles, errors by status."""
    begin, end = window
    out: dict[str, Any] = {}
    for rpc in _RPC_NAMES.values():
        rows = [r for r in samples.requests if r[1] == rpc and begin <= r[0] < end]
        ok = np.array([r[2] for r in rows if r[3] == "OK"]) * 1000
        errors: dict[str, int] = {}
        for r in rows:
            if r[3] != "OK":
                errors[r[3]] = errors.get(r[3], 0) + 1
        entry: dict[str, Any] = {
            "requests": len(rows),
            "per_second": round(len(rows) / max(end - begin, 1e-9), 2),
            "errors": errors,
        }
        if len(ok):
            entry |= {f"p{p}_ms": round(float(np.percentile(ok, p)), 1) for p in (50, 95, 99)} | {
                "max_ms": round(float(ok.max()), 1)
            }
        if rpc in TARGET_P99_MS:
            entry["target_p99_ms"] = TARGET_P99_MS[rpc]
        out[rpc] = entry
    return out


async def run(
    *,
    readers: int,
    duration: float,
    mix: dict[str, float],
    preload: int,
    think_ms: float,
    sessions_limit: int | None,
    env: dict[str, str],
    writer: bool = True,
) -> dict[str, Any]:
    sessions = load_sessions()[:sessions_limit]
    questions = [q.question for q in load_questions()]
    os.environ.update({"REMEMBERSTACK_ADJUDICATOR_PROCESSES": "2", **env})
    with tempfile.TemporaryDirectory(prefix="rs-load-") as tmp:
        launcher = SystemLauncher(Settings(data_dir=Path(tmp), log_json=False), base_port=0)
        endpoints = await launcher.start()
        engine = create_engine(endpoints.database_url, pool_size=1)
        samples = Samples()
        stop = asyncio.Event()
        try:
            async with (
                grpc.aio.insecure_channel(endpoints.ingest) as ingest_channel,
                grpc.aio.insecure_channel(endpoints.query) as query_channel,
            ):
                ingest = ingest_grpc.IngestServiceStub(ingest_channel)
                query = query_grpc.QueryServiceStub(query_channel)
                await _ingest(ingest, sessions[:preload])
                await _until_drained(engine)
                for question in questions[:20]:  # warm the query service's caches and model
                    for call in _CALLS.values():
                        await call(query, question)
                samples = Samples()
                sampler = asyncio.create_task(_sampler(engine, launcher, samples, stop))
                writing = asyncio.create_task(_ingest(ingest, sessions[preload:] if writer else []))
                await asyncio.gather(
                    *(
                        _reader(query, mix, questions, samples, duration, think_ms / 1000, seed)
                        for seed in range(readers)
                    )
                )
                measured = samples.now()
                # The window is over: what the writer has not sent yet is not part of it.
                writing.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await writing
                stop.set()
                await sampler
        finally:
            stop.set()
            await engine.dispose()
            await launcher.stop()
    return {
        "readers": readers,
        "duration_seconds": duration,
        "think_ms": think_ms,
        "mix": mix,
        "preloaded_sessions": preload,
        "written_sessions": len(sessions) - preload if writer else 0,
        "writer": writer,
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "pipeline_in_window": _pipeline_progress(samples.seconds),
        "settings": env,
        "cpu_count": os.cpu_count(),
        "rpcs": _summary(samples, (0.0, measured)),
        "per_second": samples.seconds,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readers", type=int, default=8)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of mixed load")
    parser.add_argument("--mix", default="facts=1,claims=1", help="read=weight,…")
    parser.add_argument("--think-ms", type=float, default=0.0, help="mean pause between reads")
    parser.add_argument("--preload", type=int, default=40, help="sessions adjudicated first")
    parser.add_argument(
        "--writer",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="ingest the rest of the corpus during the window (--no-writer: reads alone)",
    )
    parser.add_argument("--label", default="after")
    parser.add_argument(
        "--results", type=Path, default=RESULTS, help="JSON to merge this run into (by label)"
    )
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a REMEMBERSTACK_* setting for every service (repeatable)",
    )
    parser.add_argument("--quick", action="store_true", help="8 sessions, 2 readers, 5 s")
    args = parser.parse_args(argv)
    env = dict(item.split("=", 1) for item in args.env)
    if args.quick:
        args.readers, args.duration, args.preload = 2, 5.0, 3
    result = asyncio.run(
        run(
            readers=args.readers,
            duration=args.duration,
            mix=_parse_mix(args.mix),
            preload=args.preload,
            think_ms=args.think_ms,
            sessions_limit=8 if args.quick else None,
            env=env,
            writer=args.writer,
        )
    )
    print(json.dumps(result["rpcs"], indent=2))
    if args.quick:
        return
    path: Path = args.results
    previous = json.loads(path.read_text()) if path.exists() else {}
    runs = previous.get("runs", {})
    runs[args.label] = result
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"runs": runs}, indent=1) + "\n")
    plot(runs)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
