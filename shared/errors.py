"""Domain exceptions shared by every service; the gRPC layer maps them to rich statuses."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "AlreadyExists",
    "FailedPrecondition",
    "FieldViolation",
    "InvalidArgument",
    "NotFound",
    "PermissionDenied",
    "RememberStackError",
    "ResourceExhausted",
    "Unauthenticated",
    "Unavailable",
    "Unimplemented",
    "Violations",
]


class RememberStackError(Exception):
    """Base of every error a caller is meant to see.

    ``reason`` is the UPPER_SNAKE ``google.rpc.ErrorInfo.reason``; ``metadata`` becomes
    ``ErrorInfo.metadata`` and must hold only strings, because that is what the wire allows.
    """

    default_reason = "REMEMBERSTACK_ERROR"

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason or self.default_reason
        self.metadata: dict[str, str] = dict(metadata or {})


@dataclass(frozen=True, slots=True)
class FieldViolation:
    """One bad request field: ``field`` is a dotted path (``filter.entity_ids[2]``)."""

    field: str
    description: str


class InvalidArgument(RememberStackError):
    """The request itself is wrong; the message names every offending field."""

    default_reason = "INVALID_ARGUMENT"

    def __init__(
        self,
        violations: Sequence[FieldViolation],
        message: str | None = None,
        *,
        reason: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        self.violations: tuple[FieldViolation, ...] = tuple(violations)
        if message is None:
            details = "; ".join(f"{v.field}: {v.description}" for v in self.violations)
            message = f"invalid argument: {details}" if details else "invalid argument"
        super().__init__(message, reason=reason, metadata=metadata)


class NotFound(RememberStackError):
    """The named resource does not exist in this namespace."""

    default_reason = "NOT_FOUND"


class AlreadyExists(RememberStackError):
    """A create collided with an existing resource."""

    default_reason = "ALREADY_EXISTS"


class FailedPrecondition(RememberStackError):
    """The system is not in a state that allows the operation (e.g. unknown schema)."""

    default_reason = "FAILED_PRECONDITION"


class ResourceExhausted(RememberStackError):
    """A size, budget or quota limit was exceeded.

    ``retry_after_seconds`` (admission limits) becomes a ``google.rpc.RetryInfo`` telling the
    caller when a retry can succeed; None for limits that waiting does not lift.
    """

    default_reason = "RESOURCE_EXHAUSTED"

    def __init__(
        self,
        message: str,
        *,
        retry_after_seconds: float | None = None,
        reason: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message, reason=reason, metadata=metadata)
        self.retry_after_seconds = retry_after_seconds


class Unauthenticated(RememberStackError):
    """The call carries no credential, or one that is malformed, unknown, expired or forged."""

    default_reason = "UNAUTHENTICATED"


class PermissionDenied(RememberStackError):
    """The credential is valid but its scopes or namespaces do not cover the call.

    The message names only what the caller asked for, never what exists elsewhere.
    """

    default_reason = "PERMISSION_DENIED"


class Unavailable(RememberStackError):
    """A dependency (database, peer service, model server) cannot be reached; retryable."""

    default_reason = "UNAVAILABLE"


class Unimplemented(RememberStackError):
    """The operation or option exists in the contract but not in this build."""

    default_reason = "UNIMPLEMENTED"

    def __init__(
        self,
        what_is_missing: str,
        *,
        reason: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        self.what_is_missing = what_is_missing
        super().__init__(f"not implemented: {what_is_missing}", reason=reason, metadata=metadata)


class Violations:
    """Collects every bad field so a validator reports them all in one ``InvalidArgument``."""

    def __init__(self) -> None:
        self._items: list[FieldViolation] = []

    def add(self, field: str, description: str) -> None:
        self._items.append(FieldViolation(field, description))

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)

    @property
    def items(self) -> tuple[FieldViolation, ...]:
        return tuple(self._items)

    def raise_if_any(self, *, reason: str | None = None) -> None:
        if self._items:
            raise InvalidArgument(self._items, reason=reason)
