"""Client interceptors adding ``authorization: Bearer …`` to every call of a channel.

Call credentials would do the same but gRPC refuses them on plaintext channels, and a loopback
server with credentials (tests, a local deployment) is plaintext.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc.aio

__all__ = ["bearer_interceptors"]


def _with_token(details: grpc.aio.ClientCallDetails, header: tuple[str, str]) -> Any:
    metadata = [(k, v) for k, v in (details.metadata or ()) if k != "authorization"]
    metadata.append(header)
    return grpc.aio.ClientCallDetails(
        details.method,
        details.timeout,
        grpc.aio.Metadata(*metadata),
        details.credentials,
        details.wait_for_ready,
    )


class _Bearer:
    def __init__(self, token: str) -> None:
        self._header = ("authorization", f"Bearer {token}")

    async def _call(self, continuation: Callable[..., Any], details: Any, request: Any) -> Any:
        return await continuation(_with_token(details, self._header), request)


class _UnaryUnary(_Bearer, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return await self._call(continuation, details, request)


class _UnaryStream(_Bearer, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return await self._call(continuation, details, request)


class _StreamUnary(_Bearer, grpc.aio.StreamUnaryClientInterceptor):
    async def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return await self._call(continuation, details, requests)


class _StreamStream(_Bearer, grpc.aio.StreamStreamClientInterceptor):
    async def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return await self._call(continuation, details, requests)


def bearer_interceptors(token: str) -> list[grpc.aio.ClientInterceptor]:
    """One interceptor per call shape (aio applies each only to its own shape)."""
    return [_UnaryUnary(token), _UnaryStream(token), _StreamUnary(token), _StreamStream(token)]
