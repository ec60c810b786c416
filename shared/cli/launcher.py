"""Start the whole system on one machine: embedded Postgres, migrations, four service processes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from shared.config import Settings
from shared.db.embedded import EmbeddedPostgres
from shared.db.migrate import upgrade_to_head

__all__ = ["SERVICES", "Endpoints", "SystemLauncher", "load_endpoints"]

logger = logging.getLogger(__name__)

SERVICES: tuple[str, ...] = ("ingest", "adjudicator", "query", "graph")
_HEALTH_NAMES = {
    "ingest": "rememberstack.v1.IngestService",
    "adjudicator": "rememberstack.v1.AdjudicatorService",
    "query": "rememberstack.v1.QueryService",
    "graph": "rememberstack.v1.GraphService",
}
ENDPOINTS_FILE = "endpoints.json"


@dataclass(frozen=True)
class Endpoints:
    """Where a running system listens; written to the data directory for other CLI commands."""

    ingest: str
    adjudicator: str
    query: str
    graph: str
    database_url: str

    def address(self, service: str) -> str:
        return str(getattr(self, service))


def load_endpoints(data_dir: Path) -> Endpoints | None:
    """The endpoints of a system started by `rememberstack up` in this data directory."""
    path = data_dir / ENDPOINTS_FILE
    if not path.exists():
        return None
    return Endpoints(**json.loads(path.read_text()))


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


class SystemLauncher:
    """Owns the embedded database and the service processes of one `rememberstack up`."""

    def __init__(self, settings: Settings, *, base_port: int = 50051) -> None:
        self._settings = settings
        self._base_port = base_port
        self._embedded: EmbeddedPostgres | None = None
        self._processes: dict[str, asyncio.subprocess.Process] = {}
        self.endpoints: Endpoints | None = None

    @property
    def data_dir(self) -> Path:
        return Path(self._settings.data_dir)

    async def start(self, *, ready_timeout: float = 120.0) -> Endpoints:
        """Start Postgres (unless a URL is configured), migrate, launch and await the services."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        database_url = self._settings.database_url
        if database_url is None:
            self._embedded = EmbeddedPostgres(self.data_dir / "postgres")
            database_url = await asyncio.to_thread(self._embedded.start)
            logger.info("embedded postgres started in %s", self.data_dir / "postgres")
        await upgrade_to_head(database_url)
        host = self._settings.host
        addresses = {
            name: f"{host}:{self._base_port + i if self._base_port else _free_port(host)}"
            for i, name in enumerate(SERVICES)
        }
        self.endpoints = Endpoints(database_url=database_url, **addresses)
        for name in SERVICES:
            self._processes[name] = await self._spawn(name, self.endpoints)
        async with asyncio.timeout(ready_timeout):
            await asyncio.gather(*(self._await_serving(n) for n in SERVICES))
        (self.data_dir / ENDPOINTS_FILE).write_text(json.dumps(asdict(self.endpoints), indent=2))
        return self.endpoints

    async def _spawn(self, name: str, endpoints: Endpoints) -> asyncio.subprocess.Process:
        env = dict(os.environ)
        env.update(
            {
                "REMEMBERSTACK_DATABASE_URL": endpoints.database_url,
                "REMEMBERSTACK_HOST": endpoints.address(name).rsplit(":", 1)[0],
                "REMEMBERSTACK_PORT": endpoints.address(name).rsplit(":", 1)[1],
                "REMEMBERSTACK_SERVICE_NAME": name,
                "REMEMBERSTACK_DATA_DIR": str(self.data_dir),
            }
        )
        for peer in SERVICES:
            env[f"REMEMBERSTACK_{peer.upper()}_ADDRESS"] = endpoints.address(peer)
        log_path = self.data_dir / "logs" / f"{name}.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with log_path.open("ab") as log:
            return await asyncio.create_subprocess_exec(
                sys.executable, "-m", f"services.{name}", env=env, stdout=log, stderr=log
            )

    async def _await_serving(self, name: str) -> None:
        assert self.endpoints is not None
        request = health_pb2.HealthCheckRequest(service=_HEALTH_NAMES[name])
        async with grpc.aio.insecure_channel(self.endpoints.address(name)) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while True:
                process = self._processes[name]
                if process.returncode is not None:
                    raise RuntimeError(
                        f"{name} exited with code {process.returncode} during start-up; "
                        f"see {self.data_dir / 'logs' / (name + '.log')}"
                    )
                with contextlib.suppress(grpc.aio.AioRpcError):
                    reply = await stub.Check(request, timeout=2.0)
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        return
                await asyncio.sleep(0.2)

    async def wait_for_exit(self) -> str:
        """Wait until any service process exits; returns its name (a crash ends the system)."""
        waits = {asyncio.create_task(p.wait()): n for n, p in self._processes.items()}
        done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        return waits[done.pop()]

    async def stop(self, *, grace: float = 15.0) -> None:
        """SIGTERM every service (they drain gracefully), then stop Postgres."""
        for process in self._processes.values():
            if process.returncode is None:
                process.terminate()
        for name, process in self._processes.items():
            try:
                await asyncio.wait_for(process.wait(), grace)
            except TimeoutError:
                logger.warning("%s did not stop within %.0fs; killing it", name, grace)
                process.kill()
                await process.wait()
        self._processes.clear()
        with contextlib.suppress(FileNotFoundError):
            (self.data_dir / ENDPOINTS_FILE).unlink()
        if self._embedded is not None:
            await asyncio.to_thread(self._embedded.stop)
            self._embedded = None
