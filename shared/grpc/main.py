"""The one `__main__` every service runs: settings, logging, telemetry, serve until SIGTERM."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import ValidationError

from shared.auth.authenticator import CredentialSourceError
from shared.config import Settings, WriterSettings
from shared.db.embedded import EmbeddedPostgresUnavailable
from shared.db.migrate import SchemaMismatchError
from shared.grpc.security import InsecureBindRefused
from shared.grpc.server import GrpcServer
from shared.grpc.services import ServiceSpec
from shared.grpc.tls import TlsFilesError
from shared.logging import configure_logging
from shared.priority import run_as_background_work
from shared.telemetry import Telemetry, telemetry_from_settings

__all__ = ["run_service"]

S = TypeVar("S", bound=Settings)


def run_service(
    service: ServiceSpec,
    load_settings: Callable[[], S],
    build_server: Callable[..., Awaitable[GrpcServer]],
    *,
    refuse_to_start: tuple[type[Exception], ...] = (),
) -> None:
    """Serve one service until SIGTERM/SIGINT.

    A writing service (its settings are `WriterSettings`) runs its workers as background work
    that yields the CPU to reads (`background_niceness`, shared/priority.py).

    A schema this build does not know, an open bind to a non-loopback address, unusable TLS
    files, a key file without keys (and any of `refuse_to_start`, e.g. an engine without its
    model endpoint) end the process with exit code 2 and the message, before serving anything.
    """
    name = service.name
    try:
        settings = load_settings()
    except ValidationError as error:
        print(f"{name}: invalid settings (REMEMBERSTACK_* variables): {error}", file=sys.stderr)
        sys.exit(2)
    if settings.service_name == Settings.model_fields["service_name"].default:
        settings = settings.model_copy(update={"service_name": f"rememberstack-{name}"})
    configure_logging(
        settings.log_level, settings.log_json, settings.service_name, settings.log_levels
    )
    if isinstance(settings, WriterSettings):
        run_as_background_work(settings.background_niceness)
    fatal: tuple[type[Exception], ...] = (
        SchemaMismatchError,
        EmbeddedPostgresUnavailable,
        InsecureBindRefused,
        TlsFilesError,
        CredentialSourceError,
        *refuse_to_start,
    )
    try:
        asyncio.run(_serve(settings, build_server))
    except fatal as error:
        print(f"{name}: {error}", file=sys.stderr)
        sys.exit(2)


async def _serve(settings: Any, build_server: Callable[..., Awaitable[GrpcServer]]) -> None:
    telemetry: Telemetry = telemetry_from_settings(settings)
    telemetry.install_global()
    try:
        server = await build_server(settings, telemetry=telemetry)
        await server.serve_until_signal()
    finally:
        telemetry.shutdown()
