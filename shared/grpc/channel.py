"""Client channels to peer services, traced and tuned the same way everywhere."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import grpc.aio
from opentelemetry.instrumentation.grpc import aio_client_interceptors
from opentelemetry.trace import TracerProvider

__all__ = ["CHANNEL_OPTIONS", "MAX_MESSAGE_BYTES", "open_channel"]

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


def open_channel(
    address: str,
    *,
    tracer_provider: TracerProvider | None = None,
    options: Sequence[tuple[str, Any]] = (),
) -> grpc.aio.Channel:
    """An insecure aio channel to ``host:port`` whose calls carry the current trace context.

    ``tracer_provider`` defaults to the global one; ``options`` override the defaults by name.
    """
    merged = dict(CHANNEL_OPTIONS)
    merged.update(options)
    interceptors: Any = aio_client_interceptors(tracer_provider=tracer_provider)  # type: ignore[no-untyped-call]
    return grpc.aio.insecure_channel(
        address, options=list(merged.items()), interceptors=interceptors
    )
