"""Cost of tracing and metrics export: LoCoMo ingest → facts and FactsContext, on vs off.

*Off* is the default deployment: no endpoint, so spans are made (log lines carry trace ids) but
nothing is exported and statements get no spans. *On* exports traces (with a span per SQL
statement) and metrics over OTLP/gRPC to a receiver in this process, which only counts what
arrives, with the metric interval shortened to 5 s so metrics are exported during the run.

Pipeline: the launched system (four service processes, two adjudicator processes), runs in
ABBA order (off, on, on, off, …) on the first `--sessions` LoCoMo sessions, each from an empty
database; the ratio compares the mean wall time of the on runs with the off runs.
FactsContext: two query servers in this process on the last run's database, one exporting and
one not, asked the same questions alternately, so both see the same data, cache and load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import grpc.aio
import numpy as np
from opentelemetry.proto.collector.metrics.v1 import (
    metrics_service_pb2,
    metrics_service_pb2_grpc,
)
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from rememberstack.v1 import ingest_service_pb2 as ingest_pb
from rememberstack.v1 import ingest_service_pb2_grpc as ingest_grpc
from rememberstack.v1 import query_service_pb2 as query_pb
from rememberstack.v1 import query_service_pb2_grpc as query_grpc
from sqlalchemy import text

from bench.locomo.corpus import load_questions, load_sessions, to_document
from bench.pipeline_throughput import run as run_pipeline
from services.query import config as query_config
from services.query.app import build_server as build_query
from shared.cli.launcher import SystemLauncher
from shared.config import Settings
from shared.db.engine import create_engine
from shared.grpc.channel import open_channel
from shared.proto_convert import timestamp
from shared.telemetry import telemetry_from_settings

__all__ = ["main"]

RESULTS = Path(__file__).resolve().parent / "results" / "telemetry_overhead.json"
NAMESPACE = "locomo"


class Sink(trace_service_pb2_grpc.TraceServiceServicer):
    """Counts spans; its sibling `_MetricSink` counts metric data points."""

    def __init__(self) -> None:
        self.spans = 0
        self.points = 0

    async def Export(
        self, request: trace_service_pb2.ExportTraceServiceRequest, context: Any
    ) -> trace_service_pb2.ExportTraceServiceResponse:
        self.spans += sum(len(s.spans) for rs in request.resource_spans for s in rs.scope_spans)
        return trace_service_pb2.ExportTraceServiceResponse()


class _MetricSink(metrics_service_pb2_grpc.MetricsServiceServicer):
    def __init__(self, sink: Sink) -> None:
        self._sink = sink

    async def Export(
        self, request: metrics_service_pb2.ExportMetricsServiceRequest, context: Any
    ) -> metrics_service_pb2.ExportMetricsServiceResponse:
        for rm in request.resource_metrics:
            for sm in rm.scope_metrics:
                for metric in sm.metrics:
                    data = metric.WhichOneof("data")
                    self._sink.points += len(getattr(metric, data).data_points) if data else 0
        return metrics_service_pb2.ExportMetricsServiceResponse()


@asynccontextmanager
async def receiver() -> AsyncIterator[tuple[str, Sink]]:
    sink = Sink()
    server = grpc.aio.server()
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(sink, server)
    metrics_service_pb2_grpc.add_MetricsServiceServicer_to_server(_MetricSink(sink), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield f"127.0.0.1:{port}", sink
    finally:
        await server.stop(0)


@contextmanager
def environment(values: dict[str, str | None]) -> Iterator[None]:
    """Set (or remove) variables for the launched processes, restoring them afterwards."""
    saved = {k: os.environ.get(k) for k in values}
    try:
        for key, value in values.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


async def pipeline_runs(
    sessions: int, rounds: int, endpoint: str, sink: Sink
) -> list[dict[str, Any]]:
    runs: list[dict[str, Any]] = []
    # ABBA rounds; 0 rounds (quick mode) is one off and one on run, only so the code runs.
    order = ["off", "on", "on", "off"] * rounds or ["off", "on"]
    for mode in order:
        exporting = mode == "on"
        spans_before, points_before = sink.spans, sink.points
        with environment(
            {
                # The standard variable, as a deployment would set it.
                "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://{endpoint}" if exporting else None,
                "OTEL_METRIC_EXPORT_INTERVAL": "5000" if exporting else None,
                "REMEMBERSTACK_OTLP_ENDPOINT": None,
            }
        ):
            report = await run_pipeline(sessions, 2, NAMESPACE, 2)
        await asyncio.sleep(1.0)  # the last exports of the stopped processes
        runs.append(
            {
                "mode": mode,
                "wall_seconds": report["wall_seconds_ingest_to_facts"],
                "claims": report["claims"],
                "facts": report["facts"],
                "spans_received": sink.spans - spans_before,
                "metric_points_received": sink.points - points_before,
            }
        )
        print(json.dumps(runs[-1]), flush=True)
    return runs


async def facts_context(
    database_url: str, endpoint: str, queries: list[str], repeats: int, data_dir: Path
) -> dict[str, Any]:
    """Two query servers on one database, one exporting, asked the same questions in turn."""
    servers = {}
    telemetries = {}
    for mode in ("off", "on"):
        settings = query_config.load_settings(
            database_url=database_url,
            data_dir=data_dir,
            port=0,
            service_name=f"rememberstack-query-{mode}",
            otlp_endpoint=endpoint if mode == "on" else None,
        )
        telemetries[mode] = telemetry_from_settings(settings)
        servers[mode] = await build_query(settings, telemetry=telemetries[mode])
        await servers[mode].start()
    samples: dict[str, list[float]] = {"off": [], "on": []}
    try:
        channels = {m: open_channel(s.address) for m, s in servers.items()}
        stubs = {m: query_grpc.QueryServiceStub(c) for m, c in channels.items()}
        for query in queries[:20]:  # warm both: model, caches, statistics
            for stub in stubs.values():
                await stub.FactsContext(
                    query_pb.FactsContextRequest(namespace=NAMESPACE, query=query, k=15)
                )
        for round_no in range(repeats):
            for index, query in enumerate(queries):
                # Alternate which goes first, so neither always reads the other's warm pages.
                first = ("off", "on") if (index + round_no) % 2 == 0 else ("on", "off")
                for mode in first:
                    started = time.perf_counter()
                    await stubs[mode].FactsContext(
                        query_pb.FactsContextRequest(namespace=NAMESPACE, query=query, k=15)
                    )
                    samples[mode].append((time.perf_counter() - started) * 1000.0)
        for channel in channels.values():
            await channel.close()
    finally:
        for server in servers.values():
            await server.stop(grace=1.0)
        for telemetry in telemetries.values():
            await asyncio.to_thread(telemetry.shutdown)

    def summary(values: list[float]) -> dict[str, float]:
        return {
            "p50_ms": round(float(np.percentile(values, 50)), 2),
            "p95_ms": round(float(np.percentile(values, 95)), 2),
            "mean_ms": round(statistics.fmean(values), 2),
        }

    off, on = summary(samples["off"]), summary(samples["on"])
    return {
        "queries": len(queries),
        "repeats": repeats,
        "off": off,
        "on": on,
        "ratio_p50": round(on["p50_ms"] / off["p50_ms"], 3),
        "ratio_p95": round(on["p95_ms"] / off["p95_ms"], 3),
    }


async def run(sessions: int, rounds: int, queries: int, repeats: int) -> dict[str, Any]:
    async with receiver() as (endpoint, sink):
        runs = await pipeline_runs(sessions, rounds, endpoint, sink)
        # The FactsContext part needs a populated database of its own: one more (off) launch
        # whose database stays, served by the two in-process query servers.
        with tempfile.TemporaryDirectory() as tmp:
            launcher = SystemLauncher(Settings(data_dir=Path(tmp), log_json=False), base_port=0)
            endpoints = await launcher.start()
            try:
                await _ingest(endpoints.ingest, endpoints.database_url, sessions)
                questions = [q.question for q in load_questions() if q.conv_index == 0]
                random.Random(7).shuffle(questions)
                reads = await facts_context(
                    endpoints.database_url, endpoint, questions[:queries], repeats, Path(tmp)
                )
            finally:
                await launcher.stop()
    off = [r["wall_seconds"] for r in runs if r["mode"] == "off"]
    on = [r["wall_seconds"] for r in runs if r["mode"] == "on"]
    return {
        "sessions": sessions,
        "pipeline_runs": runs,
        "pipeline": {
            "off_mean_seconds": round(statistics.fmean(off), 1),
            "on_mean_seconds": round(statistics.fmean(on), 1),
            "ratio": round(statistics.fmean(on) / statistics.fmean(off), 3),
        },
        "facts_context": reads,
        "command": f"python -m bench.telemetry_overhead --sessions {sessions} --rounds {rounds}"
        f" --queries {queries} --repeats {repeats}",
    }


async def _ingest(ingest_address: str, database_url: str, sessions: int) -> None:
    """Ingest the sessions and wait for their facts (what `run_pipeline` does, on a launcher
    that stays up afterwards)."""
    async with open_channel(ingest_address) as channel:
        stub = ingest_grpc.IngestServiceStub(channel)
        for session in load_sessions()[:sessions]:
            source_ref, body = to_document(session)
            await stub.IngestDocument(
                ingest_pb.IngestDocumentRequest(
                    namespace=NAMESPACE,
                    content=body.encode(),
                    media_type="text/x-rememberstack-conversation",
                    title=source_ref.replace("_", " "),
                    source_modified_time=timestamp(session.said_on),
                )
            )
    engine = create_engine(database_url)
    pending = text(
        "SELECT count(*) FROM version_stages WHERE namespace = :ns"
        " AND status NOT IN ('succeeded', 'skipped', 'dead_letter')"
    )
    try:
        for _ in range(3600):
            async with engine.connect() as conn:
                if (await conn.execute(pending, {"ns": NAMESPACE})).scalar_one() == 0:
                    return
            await asyncio.sleep(0.5)
    finally:
        await engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="2 sessions, 2 runs, 10 queries")
    parser.add_argument("--sessions", type=int, default=40, help="LoCoMo sessions per run")
    parser.add_argument("--rounds", type=int, default=1, help="ABBA rounds (4 runs each)")
    parser.add_argument("--queries", type=int, default=100, help="FactsContext questions")
    parser.add_argument("--repeats", type=int, default=3, help="passes over the questions")
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args()
    if args.quick:
        args.sessions, args.rounds, args.queries, args.repeats = 2, 0, 10, 1
    report = asyncio.run(run(args.sessions, args.rounds, args.queries, args.repeats))
    print(json.dumps(report, indent=2))
    if not args.quick:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
