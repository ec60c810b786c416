"""RememberStack's Python client: generated stubs plus channels with retries and typed errors.

The stubs are ``rememberstack.v1.*_pb2`` / ``*_pb2_grpc``; this package adds the connection
layer (``AsyncClient``, ``Client``, ``open_aio_channel``, ``open_channel``) and the typed
exceptions (``RpcError`` and one subclass per status code) decoded from ``google.rpc`` details.
"""

from __future__ import annotations

from rememberstack_client.channel import (
    DEFAULT_TIMEOUT_SECONDS,
    MAX_MESSAGE_BYTES,
    channel_options,
    open_aio_channel,
    open_channel,
    service_config,
)
from rememberstack_client.client import SERVICES, AsyncClient, Client, Endpoints
from rememberstack_client.errors import (
    ERROR_DOMAIN,
    AlreadyExistsError,
    DeadlineExceededError,
    FailedPreconditionError,
    FieldViolation,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    ResourceExhaustedError,
    RpcError,
    UnauthenticatedError,
    UnavailableError,
    UnimplementedError,
    decode_error,
)

__all__ = [
    "DEFAULT_TIMEOUT_SECONDS",
    "ERROR_DOMAIN",
    "MAX_MESSAGE_BYTES",
    "SERVICES",
    "AlreadyExistsError",
    "AsyncClient",
    "Client",
    "DeadlineExceededError",
    "Endpoints",
    "FailedPreconditionError",
    "FieldViolation",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
    "PermissionDeniedError",
    "ResourceExhaustedError",
    "RpcError",
    "UnauthenticatedError",
    "UnavailableError",
    "UnimplementedError",
    "channel_options",
    "decode_error",
    "open_aio_channel",
    "open_channel",
    "service_config",
]
