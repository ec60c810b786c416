"""Faults mid-ingest: kill -9 of each service and a PostgreSQL restart lose nothing, duplicate
nothing, leave evidence counts equal to a recount, and the backlog drains within 15 s of the
database's return.

The four services run as their own processes (`python -m services.<name>`) against a private
embedded PostgreSQL, so they can be killed and the database restarted under them.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import grpc.aio
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from pgserver._commands import pg_ctl
from rememberstack.v1 import ingest_service_pb2, ingest_service_pb2_grpc
from sqlalchemy import text

from shared.db.embedded import EmbeddedPostgres
from shared.db.engine import create_engine
from shared.db.migrate import upgrade_to_head

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ("ingest", "adjudicator", "query", "graph")
PEOPLE = ("Ravi Patel", "Dana Kim", "Mira Okafor", "Tomas Reyes", "Lena Park", "Omar Haddad")
PROJECTS = ("billing migration", "search revamp", "payments launch", "data warehouse")


def _documents(count: int) -> list[bytes]:
    docs = []
    for index in range(count):
        person, other = PEOPLE[index % len(PEOPLE)], PEOPLE[(index + 2) % len(PEOPLE)]
        project = PROJECTS[index % len(PROJECTS)]
        docs.append(
            (
                f"Status note {index}.\n\n{person} works on the {project}. {other} leads the"
                f" {PROJECTS[(index + 1) % len(PROJECTS)]}. In May 2026 {person} joined the"
                f" platform team.\n\n{other} said the {project} is late. {person} knows {other}."
            ).encode()
        )
    return docs


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Services:
    """The four services as child processes, each restartable after a kill."""

    def __init__(self, url: str, data_dir: Path, namespace: str) -> None:
        self.ports = {name: _free_port() for name in SERVICES}
        self.env = {
            **os.environ,
            "REMEMBERSTACK_DATABASE_URL": url,
            "REMEMBERSTACK_DATA_DIR": str(data_dir),
            "REMEMBERSTACK_NAMESPACE": namespace,
            "REMEMBERSTACK_WORKER_POLL_SECONDS": "0.2",
            "REMEMBERSTACK_WORKER_LEASE_SECONDS": "3",
            "REMEMBERSTACK_HEALTH_PROBE_SECONDS": "0.5",
            "REMEMBERSTACK_LOG_LEVEL": "WARNING",
            "PYTHONPATH": f"{ROOT}:{ROOT / 'gen'}",
        }
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.log_dir = data_dir

    def start(self, name: str) -> None:
        env = self.env | {"REMEMBERSTACK_PORT": str(self.ports[name])}
        log = (self.log_dir / f"{name}.log").open("ab")
        self.processes[name] = subprocess.Popen(
            [sys.executable, "-m", f"services.{name}"], cwd=ROOT, env=env, stdout=log, stderr=log
        )

    def kill(self, name: str) -> None:
        process = self.processes[name]
        process.send_signal(signal.SIGKILL)
        process.wait(10)

    def address(self, name: str) -> str:
        return f"127.0.0.1:{self.ports[name]}"

    async def wait_serving(self, name: str, seconds: float = 120.0) -> None:
        async with grpc.aio.insecure_channel(self.address(name)) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                assert self.processes[name].poll() is None, f"{name} exited"
                try:
                    reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=2)
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        return
                except grpc.aio.AioRpcError:
                    pass
                await asyncio.sleep(0.3)
        raise AssertionError(f"{name} did not come up")

    def report(self) -> None:
        """Print each service's state and last log lines (pytest shows them on a failure)."""
        for name, process in self.processes.items():
            log = (self.log_dir / f"{name}.log").read_text(errors="replace").splitlines()
            print(f"--- {name}: exit code {process.poll()}; last log lines:", *log[-8:], sep="\n")

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()


async def _count(engine: Any, sql: str, **params: Any) -> int:
    async with engine.connect() as connection:
        return int((await connection.execute(text(sql), params)).scalar_one())


async def _until(engine: Any, sql: str, seconds: float, **params: Any) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if await _count(engine, sql, **params):
                return
        except Exception:  # the database may be restarting
            pass
        await asyncio.sleep(0.2)
    raise AssertionError(
        f"never true within {seconds} s: {sql}\nqueue: {await _queue_state(engine)}"
    )


async def _queue_state(engine: Any) -> list[tuple[Any, ...]]:
    """What the queue holds, by namespace, kind, status and attempts: why a wait timed out."""
    async with engine.connect() as connection:
        rows = await connection.execute(
            text(
                "SELECT namespace, kind, status, attempts, count(*), max(last_error)"
                " FROM work_items GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"
            )
        )
        return [tuple(row) for row in rows]


_BACKLOG = (
    "SELECT count(*) FROM work_items WHERE namespace = :ns"
    " AND status IN ('pending', 'failed', 'running')"
)
_RECOUNT_MISMATCHES = """
    SELECT count(*) FROM (
        SELECT f.id, f.evidence_count,
               COUNT(DISTINCT fe.document_id) FILTER (
                   WHERE fe.stance = 'supports' AND c.is_current_testimony) AS supporting
          FROM facts f
          LEFT JOIN fact_evidence fe ON fe.fact_id = f.id
          LEFT JOIN claims c ON c.id = fe.claim_id
         WHERE f.namespace = :ns
         GROUP BY f.id, f.evidence_count
    ) recount WHERE evidence_count <> supporting
"""
_DUPLICATE_FACTS = """
    SELECT count(*) FROM (
        SELECT 1 FROM facts WHERE namespace = :ns AND invalidated_at IS NULL
         GROUP BY kind, subject_entity_id, predicate, object_entity_id, statement,
                  valid_from, valid_until
        HAVING count(*) > 1
    ) duplicates
"""


async def _ingest(
    services: Services, namespace: str, docs: list[bytes], first_index: int = 0
) -> None:
    async with grpc.aio.insecure_channel(services.address("ingest")) as channel:
        stub = ingest_service_pb2_grpc.IngestServiceStub(channel)
        requests = [
            ingest_service_pb2.IngestDocumentsRequest(
                document=ingest_service_pb2.IngestDocumentRequest(
                    namespace=namespace,
                    content=body,
                    media_type="text/plain",
                    source_kind="notes",
                    source_ref=f"note-{index}",
                )
            )
            for index, body in enumerate(docs, start=first_index)
        ]
        await stub.IngestDocuments(iter(requests), timeout=60)


async def _summary(engine: Any, namespace: str) -> dict[str, int]:
    queries = {
        "versions": "SELECT count(*) FROM document_versions WHERE namespace = :ns",
        "versions_not_ready": "SELECT count(DISTINCT version_id) FROM version_stages"
        " WHERE namespace = :ns AND status NOT IN ('succeeded', 'skipped')",
        "dead_letters": "SELECT count(*) FROM work_items WHERE namespace = :ns"
        " AND status = 'dead_letter'",
        "chunks": "SELECT count(*) FROM chunks WHERE namespace = :ns",
        "claims": "SELECT count(*) FROM claims WHERE namespace = :ns",
        "current_claims": "SELECT count(*) FROM claims WHERE namespace = :ns"
        " AND is_current_testimony",
        "evidence_mismatches": _RECOUNT_MISMATCHES,
        "duplicate_fact_groups": _DUPLICATE_FACTS,
    }
    return {name: await _count(engine, sql, ns=namespace) for name, sql in queries.items()}


async def test_kill_each_service_and_restart_postgres_mid_ingest_loses_and_duplicates_nothing(
    tmp_path: Path,
) -> None:
    postgres = EmbeddedPostgres(tmp_path / "pg")
    url = await asyncio.to_thread(postgres.start)
    await upgrade_to_head(url)
    engine = create_engine(url)
    faulty, clean = "faults", "clean"
    services = Services(url, tmp_path, faulty)
    try:
        for name in SERVICES:
            services.start(name)
        for name in SERVICES:
            await services.wait_serving(name)
        docs = _documents(12)
        # Two documents are held back for the PostgreSQL crash below.
        first, held_back = docs[:-2], docs[-2:]
        await _ingest(services, faulty, first)

        # kill -9 ingest while it extracts, then adjudicator while it adjudicates.
        await _until(
            engine,
            "SELECT count(*) FROM work_items WHERE namespace = :ns AND"
            " kind = 'ingest.extract' AND status = 'running'",
            120,
            ns=faulty,
        )
        services.kill("ingest")
        services.start("ingest")
        await _until(
            engine,
            "SELECT count(*) FROM work_items WHERE namespace = :ns AND"
            " kind = 'adjudicate.version' AND status = 'running'",
            300,
            ns=faulty,
        )
        services.kill("adjudicator")
        services.start("adjudicator")
        for name in ("query", "graph"):
            services.kill(name)
            services.start(name)

        # Crash PostgreSQL while the held-back documents' items are queued or running: what
        # the 15 s bound measures is recovery of a small backlog, not how long this machine
        # takes over the corpus. Queueing them (rather than polling for a moment when the
        # first batch is nearly done) leaves no window for the poll to miss.
        await _until(engine, f"SELECT ({_BACKLOG}) = 0", 600, ns=faulty)
        await _ingest(services, faulty, held_back, first_index=len(first))
        await asyncio.sleep(0.5)  # woken by NOTIFY, a worker claims the first item at once
        backlog_at_restart = await _count(engine, _BACKLOG, ns=faulty)
        assert backlog_at_restart >= 1, await _queue_state(engine)
        await engine.dispose()
        # An immediate stop is a crash: sessions cut, in-flight transactions lost, recovery
        # on the next start.
        server = postgres._server
        await asyncio.to_thread(
            pg_ctl, ["-w", "stop", "-m", "immediate"], pgdata=server.pgdata, user=server.system_user
        )
        await asyncio.to_thread(postgres.stop)
        await asyncio.sleep(2.0)
        postgres = EmbeddedPostgres(tmp_path / "pg")
        await asyncio.to_thread(postgres.start)
        back_at = time.monotonic()
        deadline = back_at + 300
        while await _count(engine, _BACKLOG, ns=faulty):
            assert time.monotonic() < deadline, "the backlog never drained"
            await asyncio.sleep(0.2)
        drained_after = time.monotonic() - back_at
        print(f"fault test: {backlog_at_restart} items drained {drained_after:.1f} s after restart")
        for name in SERVICES:
            await services.wait_serving(name)

        # The same documents without faults, for what the counts must be.
        await _ingest(services, clean, docs)
        await _until(engine, "SELECT count(*) FROM work_items WHERE namespace = :ns", 60, ns=clean)
        deadline = time.monotonic() + 600
        while await _count(engine, _BACKLOG, ns=clean):
            assert time.monotonic() < deadline, "the clean run never drained"
            await asyncio.sleep(0.5)

        after_faults = await _summary(engine, faulty)
        without = await _summary(engine, clean)
        assert after_faults["versions"] == len(docs)
        assert after_faults["versions_not_ready"] == 0 and after_faults["dead_letters"] == 0
        assert after_faults["evidence_mismatches"] == 0
        for figure in ("chunks", "claims", "current_claims", "duplicate_fact_groups"):
            assert after_faults[figure] == without[figure], (figure, after_faults, without)
        assert drained_after <= 15.0, (
            f"{backlog_at_restart} items drained {drained_after:.1f} s after the restart"
        )
    finally:
        services.report()
        services.stop()
        await engine.dispose()
        await asyncio.to_thread(postgres.stop)
