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
from shared.grpc.services import SERVICE_NAMES, service_spec
from shared.supervisor import Supervisor

__all__ = ["Endpoints", "LaunchError", "SystemLauncher", "load_endpoints"]

logger = logging.getLogger(__name__)

ENDPOINTS_FILE = "endpoints.json"
_LOG_TAIL_LINES = 15


class LaunchError(RuntimeError):
    """The system could not start; the message says why and what to do."""


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


def _port_is_taken(host: str, port: int) -> bool:
    """True when something already listens on ``host:port``: a health check there would be
    answered by that other process, and our service could not bind."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # Lingering TIME_WAIT connections of an earlier run do not make a port taken.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host.strip("[]"), port))
        except OSError:
            return True
    return False


class SystemLauncher:
    """Owns the embedded database and the service processes of one `rememberstack up`."""

    def __init__(self, settings: Settings, *, base_port: int = 50051) -> None:
        self._settings = settings
        self._base_port = base_port
        self._embedded: EmbeddedPostgres | None = None
        self._children = Supervisor()
        self.endpoints: Endpoints | None = None
        self._wrote_endpoints = False

    @property
    def data_dir(self) -> Path:
        return Path(self._settings.data_dir)

    async def start(self, *, ready_timeout: float = 120.0) -> Endpoints:
        """Start Postgres (unless a URL is configured), migrate, launch and await the services.

        Raises LaunchError, having stopped whatever it started, when a port is taken, a service
        exits during start-up or the services are not serving within `ready_timeout`.
        """
        try:
            return await self._start(ready_timeout)
        except BaseException:
            await self.stop(grace=5.0)
            raise

    async def _start(self, ready_timeout: float) -> Endpoints:
        host = self._settings.host
        if self._base_port:
            taken = [
                self._base_port + i
                for i in range(len(SERVICE_NAMES))
                if _port_is_taken(host, self._base_port + i)
            ]
            if taken:
                raise LaunchError(
                    f"port(s) {', '.join(map(str, taken))} on {host} are already in use (another "
                    "`rememberstack up`?). Stop that process, or pick other ports with "
                    "--base-port N (0 picks free ones)."
                )
        self.data_dir.mkdir(parents=True, exist_ok=True)
        database_url = self._settings.database_url
        if database_url is None:
            self._embedded = EmbeddedPostgres(self.data_dir / "postgres")
            database_url = await asyncio.to_thread(self._embedded.start)
            logger.info("embedded postgres started in %s", self.data_dir / "postgres")
        await upgrade_to_head(database_url)
        addresses = {
            name: f"{host}:{self._base_port + i if self._base_port else _free_port(host)}"
            for i, name in enumerate(SERVICE_NAMES)
        }
        self.endpoints = Endpoints(database_url=database_url, **addresses)
        for name in SERVICE_NAMES:
            await self._spawn(name, self.endpoints)
        try:
            async with asyncio.timeout(ready_timeout):
                await asyncio.gather(*(self._await_serving(n) for n in SERVICE_NAMES))
        except TimeoutError:
            waiting = self._children.running()
            raise LaunchError(
                f"services not serving after {ready_timeout:.0f} s: {', '.join(waiting)}; "
                f"see the logs in {self.data_dir / 'logs'}"
            ) from None
        (self.data_dir / ENDPOINTS_FILE).write_text(json.dumps(asdict(self.endpoints), indent=2))
        self._wrote_endpoints = True
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
                "REMEMBERSTACK_NAMESPACE": self._settings.namespace,
            }
        )
        for peer in SERVICE_NAMES:
            env[f"REMEMBERSTACK_{peer.upper()}_ADDRESS"] = endpoints.address(peer)
        return await self._children.spawn(
            name,
            [sys.executable, "-m", service_spec(name).module],
            env=env,
            log_path=self.data_dir / "logs" / f"{name}.log",
        )

    async def _await_serving(self, name: str) -> None:
        assert self.endpoints is not None
        request = health_pb2.HealthCheckRequest(service=service_spec(name).full_name)
        async with grpc.aio.insecure_channel(self.endpoints.address(name)) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while True:
                process = self._children.process(name)
                if process.returncode is not None:
                    raise LaunchError(
                        f"{name} exited with code {process.returncode} during start-up\n"
                        + self.failure_report(name)
                    )
                with contextlib.suppress(grpc.aio.AioRpcError):
                    reply = await stub.Check(request, timeout=2.0)
                    if reply.status == health_pb2.HealthCheckResponse.SERVING:
                        return
                await asyncio.sleep(0.2)

    def failure_report(self, name: str) -> str:
        """The last lines of a service's log, where its cause of death is."""
        path = self.data_dir / "logs" / f"{name}.log"
        try:
            lines = path.read_text(errors="replace").splitlines()[-_LOG_TAIL_LINES:]
        except OSError:
            return f"(no log at {path})"
        return f"last lines of {path}:\n" + "\n".join(f"  {line}" for line in lines)

    async def wait_for_exit(self) -> str:
        """Wait until any service process exits; returns its name (a crash ends the system)."""
        return await self._children.wait_for_exit()

    async def stop(self, *, grace: float = 15.0) -> None:
        """SIGTERM every service (they drain gracefully), then stop Postgres."""
        await self._children.stop(grace)
        # Only our own: a launch refused because another one runs here must not hide that one.
        if self._wrote_endpoints:
            with contextlib.suppress(FileNotFoundError):
                (self.data_dir / ENDPOINTS_FILE).unlink()
            self._wrote_endpoints = False
        if self._embedded is not None:
            await asyncio.to_thread(self._embedded.stop)
            self._embedded = None
