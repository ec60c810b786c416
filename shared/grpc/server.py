"""The one gRPC server every service runs: health, reflection, tracing, error mapping."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import grpc.aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from opentelemetry.instrumentation.grpc import aio_server_interceptor

from shared.grpc.channel import MAX_MESSAGE_BYTES
from shared.grpc.errors import ErrorMappingInterceptor
from shared.grpc.observability import RpcObservabilityInterceptor, health_gauge
from shared.grpc.reflection import enable_reflection
from shared.grpc.security import SecurityInterceptor, ServerSecurity
from shared.telemetry.metrics import Metrics

if TYPE_CHECKING:
    from shared.config import Settings
    from shared.telemetry import Telemetry

__all__ = [
    "DEFAULT_GRACE_SECONDS",
    "GrpcServer",
    "ReadinessProbe",
    "Registration",
    "StopCallback",
    "servicer_registration",
]

logger = logging.getLogger(__name__)

DEFAULT_GRACE_SECONDS = 5.0

Registration = Callable[[grpc.aio.Server], None]
"""Adds handlers to a server, e.g. ``partial(add_FooServicer_to_server, servicer)``."""

StopCallback = Callable[[], Awaitable[None]]
"""Runs after the server stopped: stop workers, dispose the DB engine."""

ReadinessProbe = Callable[[], Awaitable[None]]
"""Raises when a dependency the service cannot answer without (the database) is unreachable."""

PROBE_SECONDS = 2.0
_PROBE_TIMEOUT_SECONDS = 3.0

_SERVER_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    # Two processes silently sharing a port would split traffic; fail the bind instead.
    ("grpc.so_reuseport", 0),
    # Accept the keepalive pings our channels send (see shared.grpc.channel).
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
)


def servicer_registration(add_to_server: Callable[[Any, Any], None], servicer: Any) -> Registration:
    """Adapt a generated ``add_XServicer_to_server(servicer, server)`` to a ``Registration``."""

    def register(server: grpc.aio.Server) -> None:
        add_to_server(servicer, server)

    return register


class GrpcServer:
    """An aio server with standard health, reflection and interceptors.

    ``service_names`` are the full names (``rememberstack.v1.QueryService``) reported SERVING
    by health and listed by reflection. The port is bound in ``start()``; read ``port`` after.
    """

    def __init__(
        self,
        *,
        service_name: str,
        registrations: Sequence[Registration],
        service_names: Sequence[str],
        host: str = "127.0.0.1",
        port: int = 0,
        telemetry: Telemetry | None = None,
        on_stop: Sequence[StopCallback] = (),
        rpc_log_sample_ratio: float = 1.0,
        security: ServerSecurity | None = None,
        default_namespace: str = "default",
        readiness_probe: ReadinessProbe | None = None,
        probe_seconds: float = PROBE_SECONDS,
        health_port: int | None = None,
    ) -> None:
        self.service_name = service_name
        self._rpc_log_sample_ratio = rpc_log_sample_ratio
        self.host = host
        self._requested_port = port
        self._registrations = tuple(registrations)
        self._service_names = tuple(service_names)
        self._telemetry = telemetry
        self._on_stop: list[StopCallback] = list(on_stop)
        self._security = security or ServerSecurity.open()
        self._default_namespace = default_namespace
        self._readiness_probe = readiness_probe
        self._probe_seconds = probe_seconds
        self._probe_task: asyncio.Task[None] | None = None
        self._health_port = health_port
        self._health_server: grpc.aio.Server | None = None
        self._server: grpc.aio.Server | None = None
        self._health: health.aio.HealthServicer | None = None
        self._port: int | None = None
        self._stopped = False

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        registrations: Sequence[Registration],
        service_names: Sequence[str],
        telemetry: Telemetry | None = None,
        on_stop: Sequence[StopCallback] = (),
        readiness_probe: ReadinessProbe | None = None,
    ) -> GrpcServer:
        return cls(
            service_name=settings.service_name,
            registrations=registrations,
            service_names=service_names,
            host=settings.host,
            port=settings.port,
            telemetry=telemetry,
            on_stop=on_stop,
            rpc_log_sample_ratio=settings.log_rpc_sample_ratio,
            security=ServerSecurity.from_settings(settings),
            default_namespace=settings.namespace,
            readiness_probe=readiness_probe,
            probe_seconds=settings.health_probe_seconds,
            health_port=settings.health_port,
        )

    @property
    def port(self) -> int:
        """The port actually bound (the OS's pick when 0 was requested)."""
        if self._port is None:
            raise RuntimeError("GrpcServer.port is known only after start()")
        return self._port

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def is_serving(self) -> bool:
        return self._port is not None and not self._stopped

    def add_on_stop(self, callback: StopCallback) -> None:
        self._on_stop.append(callback)

    async def start(self) -> None:
        """Bind, mark every service SERVING and start accepting calls."""
        if self._server is not None:
            raise RuntimeError("GrpcServer.start() may be called only once")
        self._security.check_bind(self.host)
        tracer_provider = self._telemetry.tracer_provider if self._telemetry else None
        metrics = self._telemetry.metrics if self._telemetry else Metrics.noop()
        # First listed is outermost: the span wraps the mapped status, so traces show the code;
        # the access log and RPC metrics see that code too, inside the span (its trace id).
        server = grpc.aio.server(
            interceptors=[
                aio_server_interceptor(tracer_provider=tracer_provider),  # type: ignore[no-untyped-call]
                RpcObservabilityInterceptor(metrics, sample_ratio=self._rpc_log_sample_ratio),
                ErrorMappingInterceptor(),
                SecurityInterceptor(self._security, self._default_namespace),
            ],
            options=list(_SERVER_OPTIONS),
        )
        for register in self._registrations:
            register(server)
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        enable_reflection((*self._service_names, health.SERVICE_NAME), server)
        bind_to = f"{self.host}:{self._requested_port}"
        tls = self._security.tls
        credentials = tls.credentials() if tls is not None else None
        try:
            if credentials is None:
                port = server.add_insecure_port(bind_to)
            else:
                port = server.add_secure_port(bind_to, credentials)
        except RuntimeError as exc:
            raise OSError(f"{self.service_name}: cannot bind {bind_to}: {exc}") from exc
        if port == 0:
            raise OSError(f"{self.service_name}: cannot bind {bind_to}")
        authenticator = self._security.authenticator
        if authenticator is not None:
            await authenticator.start()
            self._on_stop.append(authenticator.stop)
        for name in ("", *self._service_names):
            await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
        await server.start()
        self._server, self._health, self._port = server, health_servicer, port
        if self._telemetry is not None:
            health_gauge(self._telemetry.meter, health_servicer)
        if self._health_port is not None:
            self._health_server = await self._start_health_port(health_servicer)
        if self._readiness_probe is not None:
            self._probe_task = asyncio.create_task(
                self._watch_readiness(health_servicer, self._readiness_probe),
                name=f"{self.service_name}:readiness",
            )
        logger.info(
            "%s serving %s on %s (%s, %s)",
            self.service_name,
            ", ".join(self._service_names) or "(no services)",
            self.address,
            "TLS" if tls else "plaintext",
            "credentials required" if authenticator else "open",
        )

    async def _start_health_port(
        self, health_servicer: health.aio.HealthServicer
    ) -> grpc.aio.Server:
        """The probe port: the same health statuses, nothing else, no TLS (kubelet's gRPC
        probes cannot do TLS; what they read here is public anyway)."""
        probes = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, probes)
        bind_to = f"{self.host}:{self._health_port}"
        try:
            bound = probes.add_insecure_port(bind_to)
        except RuntimeError as exc:
            raise OSError(f"{self.service_name}: cannot bind health port {bind_to}: {exc}") from exc
        if bound == 0:
            raise OSError(f"{self.service_name}: cannot bind health port {bind_to}")
        await probes.start()
        return probes

    async def _watch_readiness(
        self, health_servicer: health.aio.HealthServicer, probe: ReadinessProbe
    ) -> None:
        """Report the service names NOT_SERVING while ``probe`` fails (Kubernetes readiness
        takes the pod out of its Service), SERVING again once it passes. The overall ``""``
        status stays SERVING: liveness restarting pods would not bring a database back."""
        serving = True
        while True:
            await asyncio.sleep(self._probe_seconds)
            try:
                await asyncio.wait_for(probe(), _PROBE_TIMEOUT_SECONDS)
                healthy = True
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                healthy = False
                if serving:
                    logger.warning("%s: dependency unreachable: %r", self.service_name, exc)
            if healthy == serving or self._stopped:
                continue
            serving = healthy
            status = (
                health_pb2.HealthCheckResponse.SERVING
                if healthy
                else (health_pb2.HealthCheckResponse.NOT_SERVING)
            )
            for name in self._service_names:
                await health_servicer.set(name, status)
            logger.info("%s: %s", self.service_name, "serving again" if healthy else "not serving")

    async def wait_for_termination(self) -> None:
        if self._server is None:
            raise RuntimeError("GrpcServer.wait_for_termination() before start()")
        # grpc awaits its own shutdown future here; cancelling that would break a later stop(),
        # so a cancelled waiter must only abandon the wait.
        await asyncio.shield(self._server.wait_for_termination())

    async def stop(self, grace: float | None = DEFAULT_GRACE_SECONDS) -> None:
        """Report NOT_SERVING, drain calls for ``grace`` seconds, then run on-stop callbacks.

        Idempotent, so a signal handler and a ``finally`` block may both call it.
        """
        if self._stopped or self._server is None:
            return
        self._stopped = True
        if self._probe_task is not None:
            self._probe_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._probe_task
        assert self._health is not None
        await self._health.enter_graceful_shutdown()
        await self._server.stop(grace)
        if self._health_server is not None:
            await self._health_server.stop(0)
        for callback in self._on_stop:
            try:
                await callback()
            except Exception:
                logger.exception("%s: on-stop callback %r failed", self.service_name, callback)
        logger.info("%s stopped", self.service_name)

    async def serve_until_signal(self, grace: float | None = DEFAULT_GRACE_SECONDS) -> None:
        """Start (if needed), serve until SIGTERM/SIGINT or termination, then stop gracefully.

        Must run on the main thread's event loop, where signal handlers can be installed.
        """
        loop = asyncio.get_running_loop()
        stop_requested = asyncio.Event()
        signals = (signal.SIGTERM, signal.SIGINT)
        for sig in signals:
            loop.add_signal_handler(sig, stop_requested.set)
        try:
            if self._server is None:
                await self.start()
            waiters = {
                asyncio.create_task(stop_requested.wait()),
                asyncio.create_task(self.wait_for_termination()),
            }
            try:
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in waiters:
                    waiter.cancel()
            if stop_requested.is_set():
                logger.info("%s: stop signal received", self.service_name)
        finally:
            for sig in signals:
                loop.remove_signal_handler(sig)
            await self.stop(grace)
