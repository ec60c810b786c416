"""Client channels to peer services, traced, secured and tuned the same way everywhere."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc.aio
from opentelemetry.instrumentation.grpc import aio_client_interceptors
from opentelemetry.trace import TracerProvider

from shared.auth.settings import SecuritySettings
from shared.grpc.bearer import bearer_interceptors
from shared.grpc.tls import ClientTls

__all__ = ["CHANNEL_OPTIONS", "MAX_MESSAGE_BYTES", "ClientSecurity", "open_channel"]

MAX_MESSAGE_BYTES = 32 * 1024 * 1024

CHANNEL_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    # Pings only while calls are open, so idle channels do not trip the server's ping policy
    # but long streams notice a dead peer (e.g. a rescheduled pod) within ~80 s.
    ("grpc.keepalive_time_ms", 60_000),
    ("grpc.keepalive_timeout_ms", 20_000),
    ("grpc.keepalive_permit_without_calls", 0),
    ("grpc.http2.max_pings_without_data", 0),
    # Spread reconnects after a peer restarts instead of hammering it in lockstep.
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 10_000),
)


@dataclass(frozen=True)
class ClientSecurity:
    """What a client presents: TLS (None: plaintext) and a bearer credential (None: none)."""

    tls: ClientTls | None = None
    token: str | None = None

    @classmethod
    def from_settings(cls, settings: SecuritySettings) -> ClientSecurity:
        """TLS when ``tls_ca_file`` (or a client certificate) is set; ``auth_token`` if set."""
        s = settings
        tls = None
        if s.tls_ca_file or s.tls_client_cert_file:
            tls = ClientTls(
                ca_file=s.tls_ca_file,
                cert_file=s.tls_client_cert_file,
                key_file=s.tls_client_key_file,
                server_name=s.tls_server_name,
            )
        token = s.auth_token.get_secret_value() if s.auth_token else None
        return cls(tls=tls, token=token)


def open_channel(
    address: str,
    *,
    security: ClientSecurity | None = None,
    tracer_provider: TracerProvider | None = None,
    options: Sequence[tuple[str, Any]] = (),
) -> grpc.aio.Channel:
    """An aio channel to ``host:port`` whose calls carry the current trace context and, with
    ``security``, go over TLS and carry a bearer credential.

    ``tracer_provider`` defaults to the global one; ``options`` override the defaults by name.
    """
    merged = dict(CHANNEL_OPTIONS)
    tls = security.tls if security else None
    if tls is not None and tls.server_name:
        merged["grpc.ssl_target_name_override"] = tls.server_name
    merged.update(options)
    interceptors: list[Any] = list(aio_client_interceptors(tracer_provider=tracer_provider))  # type: ignore[no-untyped-call]
    if security is not None and security.token:
        interceptors.extend(bearer_interceptors(security.token))
    if tls is None:
        return grpc.aio.insecure_channel(
            address, options=list(merged.items()), interceptors=interceptors
        )
    return grpc.aio.secure_channel(
        address, tls.credentials(), options=list(merged.items()), interceptors=interceptors
    )
