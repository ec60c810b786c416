"""Channels to RememberStack: retries per the service config, default deadlines, bearer auth."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Sequence
from importlib import resources
from typing import Any

import grpc
import grpc.aio

from rememberstack_client.errors import decode_error

__all__ = [
    "DEFAULT_TIMEOUT_SECONDS",
    "MAX_MESSAGE_BYTES",
    "channel_options",
    "open_aio_channel",
    "open_channel",
    "service_config",
]

MAX_MESSAGE_BYTES = 32 * 1024 * 1024
DEFAULT_TIMEOUT_SECONDS = 30.0
"""Deadline of unary and client-streaming calls that set none; streams of updates get none."""


def service_config() -> dict[str, Any]:
    """The gRPC service config every RememberStack client uses (``clients/service-config.json``).

    It retries UNAVAILABLE up to 4 attempts with exponential back-off, on reads and on writes
    that are safe to repeat (ingest is idempotent by content); deletes, releases and merges are
    not retried, since a repeat after a lost answer would report a misleading error.
    """
    text = resources.files("rememberstack_client").joinpath("service_config.json").read_text()
    config: dict[str, Any] = json.loads(text)
    return config


def channel_options(extra: Sequence[tuple[str, Any]] = ()) -> list[tuple[str, Any]]:
    """Message limits, keepalive and the retry service config; ``extra`` overrides by name."""
    options: dict[str, Any] = {
        "grpc.max_send_message_length": MAX_MESSAGE_BYTES,
        "grpc.max_receive_message_length": MAX_MESSAGE_BYTES,
        "grpc.enable_retries": 1,
        "grpc.service_config": json.dumps(service_config()),
        # Pings only while calls are open, so long streams notice a dead peer within ~80 s.
        "grpc.keepalive_time_ms": 60_000,
        "grpc.keepalive_timeout_ms": 20_000,
        "grpc.keepalive_permit_without_calls": 0,
        "grpc.http2.max_pings_without_data": 0,
    }
    options.update(extra)
    return list(options.items())


class _CallShaping:
    """Adds the bearer credential and a default deadline to every call's details."""

    def __init__(self, bearer_token: str | None, timeout: float | None) -> None:
        self._metadata = (("authorization", f"Bearer {bearer_token}"),) if bearer_token else ()
        self._timeout = timeout

    def _shape(self, details: Any, *, default_deadline: bool, aio: bool) -> Any:
        metadata = list(details.metadata or ()) + list(self._metadata)
        timeout = details.timeout
        if timeout is None and default_deadline:
            timeout = self._timeout
        if aio:
            return grpc.aio.ClientCallDetails(
                details.method,
                timeout,
                grpc.aio.Metadata(*metadata),
                details.credentials,
                details.wait_for_ready,
            )
        return _SyncCallDetails(details, timeout, metadata)


class _SyncCallDetails(grpc.ClientCallDetails):
    def __init__(self, original: Any, timeout: float | None, metadata: list[Any]) -> None:
        self.method = original.method
        self.timeout = timeout
        self.metadata = tuple(metadata)
        self.credentials = original.credentials
        self.wait_for_ready = original.wait_for_ready
        self.compression = original.compression


class _DecodedStreamUnaryCall:
    """A client-streaming call whose failure is raised as a typed ``RpcError``."""

    def __init__(self, call: Any) -> None:
        self._call = call

    def __getattr__(self, name: str) -> Any:
        return getattr(self._call, name)

    def __await__(self) -> Any:
        try:
            return (yield from self._call.__await__())
        except grpc.aio.AioRpcError as error:
            raise decode_error(error) from None


class _AioUnaryUnary(_CallShaping, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        call = await continuation(self._shape(details, default_deadline=True, aio=True), request)
        try:
            return await call
        except grpc.aio.AioRpcError as error:
            raise decode_error(error) from None


class _AioUnaryStream(_CallShaping, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        call = await continuation(self._shape(details, default_deadline=False, aio=True), request)

        async def responses() -> AsyncIterator[Any]:
            try:
                async for response in call:
                    yield response
            except grpc.aio.AioRpcError as error:
                raise decode_error(error) from None

        return responses()


class _AioStreamUnary(_CallShaping, grpc.aio.StreamUnaryClientInterceptor):
    async def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        shaped = self._shape(details, default_deadline=True, aio=True)
        return _DecodedStreamUnaryCall(await continuation(shaped, requests))


class _DecodedIterator:
    """A sync response stream whose failure is raised as a typed ``RpcError``."""

    def __init__(self, call: Any) -> None:
        self._call = call

    def __getattr__(self, name: str) -> Any:
        return getattr(self._call, name)

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        try:
            return next(self._call)
        except grpc.RpcError as error:
            raise decode_error(error) from None


class _SyncInterceptor(
    _CallShaping,
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
):
    def _finish(self, outcome: Any) -> Any:
        error = outcome.exception()
        if error is not None:
            raise decode_error(error) from None
        return outcome

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        shaped = self._shape(details, default_deadline=True, aio=False)
        return self._finish(continuation(shaped, request))

    def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        shaped = self._shape(details, default_deadline=True, aio=False)
        return self._finish(continuation(shaped, requests))

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        shaped = self._shape(details, default_deadline=False, aio=False)
        return _DecodedIterator(continuation(shaped, request))


def open_aio_channel(
    address: str,
    *,
    credentials: grpc.ChannelCredentials | None = None,
    bearer_token: str | None = None,
    timeout: float | None = DEFAULT_TIMEOUT_SECONDS,
    interceptors: Sequence[grpc.aio.ClientInterceptor] = (),
    options: Sequence[tuple[str, Any]] = (),
) -> grpc.aio.Channel:
    """An asyncio channel to ``host:port`` whose failed calls raise typed ``RpcError``\\ s.

    ``credentials`` makes it TLS (``grpc.ssl_channel_credentials()``); ``bearer_token`` is sent as
    ``authorization: Bearer <token>`` on every call (over plaintext only to loopback, please);
    ``timeout`` is the deadline of calls that set none (None: no default). ``interceptors`` run
    first, e.g. OpenTelemetry's ``aio_client_interceptors()``.
    """
    ours: list[grpc.aio.ClientInterceptor] = [
        _AioUnaryUnary(bearer_token, timeout),
        _AioUnaryStream(bearer_token, timeout),
        _AioStreamUnary(bearer_token, timeout),
    ]
    chain = [*interceptors, *ours]
    if credentials is None:
        return grpc.aio.insecure_channel(address, channel_options(options), interceptors=chain)
    return grpc.aio.secure_channel(
        address, credentials, channel_options(options), interceptors=chain
    )


def open_channel(
    address: str,
    *,
    credentials: grpc.ChannelCredentials | None = None,
    bearer_token: str | None = None,
    timeout: float | None = DEFAULT_TIMEOUT_SECONDS,
    options: Sequence[tuple[str, Any]] = (),
) -> grpc.Channel:
    """The blocking twin of ``open_aio_channel``."""
    base: grpc.Channel = (
        grpc.insecure_channel(address, channel_options(options))
        if credentials is None
        else grpc.secure_channel(address, credentials, channel_options(options))
    )
    return grpc.intercept_channel(base, _SyncInterceptor(bearer_token, timeout))
