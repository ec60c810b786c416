"""Maps domain exceptions to rich gRPC statuses (ErrorInfo, BadRequest) and parses them back."""

from __future__ import annotations

import inspect
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, NamedTuple

import grpc
import grpc.aio
from google.protobuf import any_pb2, duration_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from shared.db.failures import is_unreachable
from shared.errors import (
    AlreadyExists,
    FailedPrecondition,
    FieldViolation,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    RememberStackError,
    ResourceExhausted,
    Unauthenticated,
    Unavailable,
    Unimplemented,
)

__all__ = [
    "ERROR_DOMAIN",
    "MAX_VIOLATIONS",
    "ErrorMappingInterceptor",
    "RichError",
    "parse_rich_error",
    "retry_delay_seconds",
    "status_for_exception",
]

logger = logging.getLogger(__name__)

ERROR_DOMAIN = "rememberstack"
_STATUS_DETAILS_KEY = "grpc-status-details-bin"

_CODES: tuple[tuple[type[RememberStackError], grpc.StatusCode], ...] = (
    (InvalidArgument, grpc.StatusCode.INVALID_ARGUMENT),
    (NotFound, grpc.StatusCode.NOT_FOUND),
    (AlreadyExists, grpc.StatusCode.ALREADY_EXISTS),
    (FailedPrecondition, grpc.StatusCode.FAILED_PRECONDITION),
    (ResourceExhausted, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (Unavailable, grpc.StatusCode.UNAVAILABLE),
    (Unimplemented, grpc.StatusCode.UNIMPLEMENTED),
    (Unauthenticated, grpc.StatusCode.UNAUTHENTICATED),
    (PermissionDenied, grpc.StatusCode.PERMISSION_DENIED),
)

# A default client refuses more than 16 KiB of trailers (and reports RESOURCE_EXHAUSTED instead
# of the real status), and error details travel twice (grpc-message and the base64 status), so
# every echoed piece is clipped by its UTF-8 size and only the first violations are listed.
MAX_VIOLATIONS = 16
_MAX_MESSAGE_BYTES = 512
_MAX_FIELD_BYTES = 128
_MAX_DESCRIPTION_BYTES = 160
_MAX_METADATA_ENTRIES = 8
_MAX_METADATA_BYTES = 128


class RichError(NamedTuple):
    """What a client learns from a failed call."""

    code: grpc.StatusCode
    reason: str | None
    field_violations: tuple[FieldViolation, ...]


def _clip(text: str, max_bytes: int) -> str:
    """``text`` cut to at most ``max_bytes`` of UTF-8 on a character boundary, marked with …."""
    encoded = text.encode("utf-8")
    if len(encoded) <= max_bytes:
        return text
    return encoded[: max_bytes - 3].decode("utf-8", errors="ignore") + "…"


def _pack(message: Any) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def _status(
    code: grpc.StatusCode, message: str, reason: str, metadata: dict[str, str]
) -> status_pb2.Status:
    clipped = {
        _clip(key, _MAX_METADATA_BYTES): _clip(value, _MAX_METADATA_BYTES)
        for key, value in list(metadata.items())[:_MAX_METADATA_ENTRIES]
    }
    info = error_details_pb2.ErrorInfo(reason=reason, domain=ERROR_DOMAIN, metadata=clipped)
    return status_pb2.Status(
        code=code.value[0], message=_clip(message, _MAX_MESSAGE_BYTES), details=[_pack(info)]
    )


def status_for_exception(exc: Exception, method: str = "") -> status_pb2.Status:
    """The ``google.rpc.Status`` a caller should see for ``exc``; logs what it hides."""
    if isinstance(exc, RememberStackError):
        code = next(code for kind, code in _CODES if isinstance(exc, kind))
        metadata = dict(exc.metadata)
        if isinstance(exc, InvalidArgument) and len(exc.violations) > MAX_VIOLATIONS:
            metadata["violations_omitted"] = str(len(exc.violations) - MAX_VIOLATIONS)
        status = _status(code, exc.message, exc.reason, metadata)
        if isinstance(exc, InvalidArgument):
            bad_request = error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(
                        field=_clip(v.field, _MAX_FIELD_BYTES),
                        description=_clip(v.description, _MAX_DESCRIPTION_BYTES),
                    )
                    for v in exc.violations[:MAX_VIOLATIONS]
                ]
            )
            status.details.append(_pack(bad_request))
        if isinstance(exc, ResourceExhausted) and exc.retry_after_seconds is not None:
            delay = duration_pb2.Duration()
            delay.FromNanoseconds(max(int(exc.retry_after_seconds * 1e9), 1_000_000))
            status.details.append(_pack(error_details_pb2.RetryInfo(retry_delay=delay)))
        return status
    if is_unreachable(exc):
        # One line, no traceback: while the database is down every call lands here.
        logger.warning("dependency unavailable in %s: %r", method, exc)
        return _status(
            grpc.StatusCode.UNAVAILABLE,
            "a backend dependency is unavailable; retry later",
            "UNAVAILABLE",
            {},
        )
    incident = uuid.uuid4().hex[:16]
    logger.error("unhandled error in %s (incident %s)", method, incident, exc_info=exc)
    return _status(
        grpc.StatusCode.INTERNAL,
        f"internal error (incident {incident})",
        "INTERNAL",
        {"incident": incident},
    )


async def _abort(context: grpc.aio.ServicerContext[Any, Any], status: status_pb2.Status) -> None:
    wire = rpc_status.to_status(status)
    await context.abort(wire.code, wire.details, wire.trailing_metadata)


class ErrorMappingInterceptor(grpc.aio.ServerInterceptor):
    """Turns exceptions escaping a handler into rich statuses (latency and the access log are
    the observability interceptor's, outside this one).

    Works for all four RPC shapes; streaming handlers may be async generators or coroutines
    that write through ``context.write`` (as the async health ``Watch`` does).
    """

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method
        wrap_unary = self._wrap_unary_response
        wrap_stream = self._wrap_stream_response
        if handler.request_streaming and handler.response_streaming:
            return grpc.stream_stream_rpc_method_handler(
                wrap_stream(handler.stream_stream, method),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.request_streaming:
            return grpc.stream_unary_rpc_method_handler(
                wrap_unary(handler.stream_unary, method),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.response_streaming:
            return grpc.unary_stream_rpc_method_handler(
                wrap_stream(handler.unary_stream, method),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return grpc.unary_unary_rpc_method_handler(
            wrap_unary(handler.unary_unary, method),
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )

    def _wrap_unary_response(
        self, behavior: Any, method: str
    ) -> Callable[[Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[Any]]:
        async def unary_response(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            try:
                result = behavior(request, context)
                return await result if inspect.isawaitable(result) else result
            except Exception as exc:
                if isinstance(exc, grpc.aio.AbortError):
                    raise
                await _abort(context, status_for_exception(exc, method))
                raise  # abort() always raises; this only satisfies the type checker

        return unary_response

    def _wrap_stream_response(
        self, behavior: Any, method: str
    ) -> Callable[[Any, grpc.aio.ServicerContext[Any, Any]], AsyncIterator[Any]]:
        writes_itself = inspect.iscoroutinefunction(behavior)

        async def stream_response(
            request: Any, context: grpc.aio.ServicerContext[Any, Any]
        ) -> AsyncIterator[Any]:
            try:
                if writes_itself:
                    await behavior(request, context)
                else:
                    async for response in behavior(request, context):
                        yield response
            except Exception as exc:
                if isinstance(exc, grpc.aio.AbortError):
                    raise
                await _abort(context, status_for_exception(exc, method))
                raise

        return stream_response


def parse_rich_error(rpc_error: grpc.RpcError) -> RichError:
    """Code, ``ErrorInfo.reason`` and ``BadRequest`` violations from a failed call (aio or sync)."""
    if isinstance(rpc_error, grpc.aio.AioRpcError | grpc.Call):
        code = rpc_error.code()
        trailing = rpc_error.trailing_metadata() or ()
    else:
        return RichError(grpc.StatusCode.UNKNOWN, None, ())
    reason: str | None = None
    violations: list[FieldViolation] = []
    for key, value in trailing:
        if key != _STATUS_DETAILS_KEY or not isinstance(value, bytes):
            continue
        for detail in status_pb2.Status.FromString(value).details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason = info.reason
            elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad_request = error_details_pb2.BadRequest()
                detail.Unpack(bad_request)
                violations.extend(
                    FieldViolation(v.field, v.description) for v in bad_request.field_violations
                )
    return RichError(code, reason, tuple(violations))


def retry_delay_seconds(rpc_error: grpc.RpcError) -> float | None:
    """The ``google.rpc.RetryInfo`` delay of a failed call (admission limits), if it has one."""
    trailing: Any = None
    if isinstance(rpc_error, grpc.aio.AioRpcError | grpc.Call):
        trailing = rpc_error.trailing_metadata()
    for key, value in trailing or ():
        if key != _STATUS_DETAILS_KEY or not isinstance(value, bytes):
            continue
        for detail in status_pb2.Status.FromString(value).details:
            if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                retry_info = error_details_pb2.RetryInfo()
                detail.Unpack(retry_info)
                return float(retry_info.retry_delay.ToNanoseconds()) / 1e9
    return None
