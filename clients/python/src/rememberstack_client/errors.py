"""Failed calls as typed exceptions carrying the google.rpc error details the server sends."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import grpc
import grpc.aio
from google.rpc import error_details_pb2, status_pb2
from rememberstack.v1 import errors_pb2

__all__ = [
    "ERROR_DOMAIN",
    "AlreadyExistsError",
    "DeadlineExceededError",
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
    "decode_error",
]

ERROR_DOMAIN = "rememberstack"
_DETAILS_KEY = "grpc-status-details-bin"
_REASON_PREFIX = "ERROR_REASON_"


@dataclass(frozen=True, slots=True)
class FieldViolation:
    """One bad request field: ``field`` is a dotted path such as ``time_scope.as_of.valid_at``."""

    field: str
    description: str


class RpcError(grpc.aio.AioRpcError):
    """A failed RememberStack call with its decoded ``google.rpc.Status`` details.

    It is an ``AioRpcError`` (so ``code()``, ``details()`` and ``trailing_metadata()`` work and
    code that catches ``grpc.RpcError`` keeps working), raised by sync and async clients alike.
    ``reason`` is ``ErrorInfo.reason`` (``"VERSION_NOT_PARKED"``); branch on it or on the code.
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        *,
        initial_metadata: grpc.aio.Metadata | None = None,
        trailing_metadata: grpc.aio.Metadata | None = None,
        debug_error_string: str | None = None,
        reason: str = "",
        domain: str = "",
        error_metadata: dict[str, str] | None = None,
        field_violations: tuple[FieldViolation, ...] = (),
        retry_delay_seconds: float | None = None,
    ) -> None:
        super().__init__(
            code,
            initial_metadata or grpc.aio.Metadata(),
            trailing_metadata or grpc.aio.Metadata(),
            message,
            debug_error_string,
        )
        self.reason = reason
        self.domain = domain
        self.error_metadata: dict[str, str] = dict(error_metadata or {})
        self.field_violations = field_violations
        self.retry_delay_seconds = retry_delay_seconds

    @property
    def message(self) -> str:
        """The human-readable status message (never branch on it)."""
        return self.details() or ""

    @property
    def reason_value(self) -> errors_pb2.ErrorReason.ValueType:
        """``reason`` as an ``ErrorReason`` value; ERROR_REASON_UNSPECIFIED when unknown to us."""
        try:
            return errors_pb2.ErrorReason.Value(_REASON_PREFIX + self.reason)
        except ValueError:
            return errors_pb2.ERROR_REASON_UNSPECIFIED

    def __str__(self) -> str:
        violations = "; ".join(f"{v.field}: {v.description}" for v in self.field_violations)
        reason = f" [{self.reason}]" if self.reason else ""
        tail = f" ({violations})" if violations and violations not in self.message else ""
        return f"{self.code().name}{reason}: {self.message}{tail}"


class InvalidArgumentError(RpcError):
    """INVALID_ARGUMENT: ``field_violations`` names every bad field."""


class NotFoundError(RpcError):
    """NOT_FOUND: the named resource does not exist in the namespace."""


class AlreadyExistsError(RpcError):
    """ALREADY_EXISTS: a create collided with an existing resource."""


class FailedPreconditionError(RpcError):
    """FAILED_PRECONDITION: the system's state does not allow the operation (see ``reason``)."""


class UnauthenticatedError(RpcError):
    """UNAUTHENTICATED: no, or an invalid, bearer credential."""


class PermissionDeniedError(RpcError):
    """PERMISSION_DENIED: the credential does not cover the scope or namespace."""


class ResourceExhaustedError(RpcError):
    """RESOURCE_EXHAUSTED: a limit was hit; ``retry_delay_seconds`` says when to retry, if ever."""


class UnavailableError(RpcError):
    """UNAVAILABLE: the service or its database is unreachable; retry with back-off."""


class DeadlineExceededError(RpcError):
    """DEADLINE_EXCEEDED: the call's deadline passed before an answer."""


class InternalError(RpcError):
    """INTERNAL: a server bug; ``error_metadata["incident"]`` identifies its log entry."""


class UnimplementedError(RpcError):
    """UNIMPLEMENTED: the method or option is not in this server build."""


_BY_CODE: dict[grpc.StatusCode, type[RpcError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgumentError,
    grpc.StatusCode.NOT_FOUND: NotFoundError,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExistsError,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPreconditionError,
    grpc.StatusCode.UNAUTHENTICATED: UnauthenticatedError,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDeniedError,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhaustedError,
    grpc.StatusCode.UNAVAILABLE: UnavailableError,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceededError,
    grpc.StatusCode.INTERNAL: InternalError,
    grpc.StatusCode.UNIMPLEMENTED: UnimplementedError,
}


def _metadata(pairs: Iterable[tuple[str, Any]] | None) -> grpc.aio.Metadata:
    return grpc.aio.Metadata(*(pairs or ()))


def decode_error(error: grpc.RpcError) -> RpcError:
    """The typed exception for a failed call (sync ``grpc.Call`` errors or ``AioRpcError``)."""
    if isinstance(error, RpcError):
        return error
    if isinstance(error, grpc.aio.AioRpcError):
        code, message = error.code(), error.details() or ""
        initial, trailing = error.initial_metadata(), error.trailing_metadata()
        debug = error.debug_error_string()
    elif isinstance(error, grpc.Call):
        code, message = error.code(), error.details() or ""
        initial, trailing = (
            _metadata(error.initial_metadata()),
            _metadata(error.trailing_metadata()),
        )
        debug = getattr(error, "debug_error_string", lambda: None)()
    else:
        return RpcError(grpc.StatusCode.UNKNOWN, str(error))
    fields: dict[str, Any] = {"field_violations": ()}
    for key, value in trailing:
        if key == _DETAILS_KEY and isinstance(value, bytes):
            fields = _details(status_pb2.Status.FromString(value))
    kind = _BY_CODE.get(code, RpcError)
    return kind(
        code,
        message,
        initial_metadata=initial,
        trailing_metadata=trailing,
        debug_error_string=debug,
        **fields,
    )


def _details(status: status_pb2.Status) -> dict[str, Any]:
    fields: dict[str, Any] = {"field_violations": ()}
    violations: list[FieldViolation] = []
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            fields.update(
                reason=info.reason, domain=info.domain, error_metadata=dict(info.metadata)
            )
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad_request = error_details_pb2.BadRequest()
            detail.Unpack(bad_request)
            violations += [
                FieldViolation(v.field, v.description) for v in bad_request.field_violations
            ]
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
            fields["retry_delay_seconds"] = retry.retry_delay.ToTimedelta().total_seconds()
    fields["field_violations"] = tuple(violations)
    return fields
