"""One access-log line and the RPC metrics per call, for every service.

The interceptor sits inside the tracing one (so its log lines carry the call's trace id) and
outside the error mapping (so it sees the status the caller gets). A call's log fields can be
added while it runs with `annotate_rpc` — the authentication layer sets ``principal`` there.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterable
from typing import Any

import grpc
import grpc.aio
from grpc_health.v1 import health, health_pb2
from opentelemetry.metrics import CallbackOptions, Meter, Observation

from shared.telemetry.metrics import Metrics

__all__ = [
    "READ_SERVICES",
    "RpcObservabilityInterceptor",
    "annotate_rpc",
    "health_gauge",
    "read_outcome",
]

# The access log: one line per call; `LOG_LEVELS=rememberstack.rpc=WARNING` keeps failures only.
access_log = logging.getLogger("rememberstack.rpc")

# Whose calls are reads: they also get `rememberstack.read.*` (latency, negatives, truncations).
READ_SERVICES = frozenset({"rememberstack.v1.QueryService", "rememberstack.v1.GraphService"})
# Probes and tooling call these every few seconds; their successes log at DEBUG.
_QUIET_SERVICES = frozenset(
    {
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
        "grpc.reflection.v1.ServerReflection",
    }
)
# The caller's mistake or choice: one INFO line, never a traceback.
_CLIENT_CODES = frozenset(
    {
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.OUT_OF_RANGE,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.ABORTED,
    }
)
_TRANSIENT_CODES = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})

_call_fields: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "rememberstack_rpc_fields", default=None
)


def annotate_rpc(**fields: Any) -> None:
    """Add fields to the current call's access-log line, e.g. ``annotate_rpc(principal=...)``.

    A no-op outside a call. The hook for authentication: whoever authenticates the caller
    names the principal here, and the line shows who made the call.
    """
    current = _call_fields.get()
    if current is not None:
        current.update(fields)


def read_outcome(response: Any) -> tuple[str | None, list[str]]:
    """The typed negative kind (``unknown_entity``…) and the truncation reasons of a read
    response, by the shared `negative` / `truncation` fields; (None, []) for other messages."""
    fields = getattr(getattr(response, "DESCRIPTOR", None), "fields_by_name", {})
    negative: str | None = None
    reasons: list[str] = []
    if "negative" in fields and response.HasField("negative") and response.negative.kind:
        negative = _enum_name(
            fields["negative"].message_type.fields_by_name["kind"], response.negative.kind
        )
    if "truncation" in fields and response.HasField("truncation"):
        truncation = response.truncation
        if truncation.truncated:
            reason_field = fields["truncation"].message_type.fields_by_name["reason"]
            reasons = [
                _enum_name(reason_field, r)
                for r in (truncation.reason, *truncation.additional_reasons)
                if r
            ] or ["unspecified"]
    return negative, reasons


def _enum_name(field: Any, number: int) -> str:
    """`NEGATIVE_KIND_UNKNOWN_ENTITY` → `unknown_entity`."""
    enum = field.enum_type
    value = enum.values_by_number.get(number)
    if value is None:
        return str(number)
    prefix = "".join("_" + c if c.isupper() else c for c in enum.name).lstrip("_").upper() + "_"
    name: str = value.name
    return (name[len(prefix) :] if name.startswith(prefix) else name).lower()


def _final_code(context: grpc.aio.ServicerContext[Any, Any]) -> grpc.StatusCode:
    code = context.code()
    return code if isinstance(code, grpc.StatusCode) else grpc.StatusCode.OK


class RpcObservabilityInterceptor(grpc.aio.ServerInterceptor):
    """Records `rpc.server.duration` for every call and, for the services in
    `read_services`, `rememberstack.read.duration` with truncations and negatives; logs one
    structured line per call (successes sampled by `sample_ratio`, failures always)."""

    def __init__(
        self,
        metrics: Metrics,
        *,
        read_services: Collection[str] = READ_SERVICES,
        sample_ratio: float = 1.0,
        rng: random.Random | None = None,
    ) -> None:
        self._metrics = metrics
        self._read_services = frozenset(read_services)
        self._sample_ratio = sample_ratio
        self._rng = rng or random.Random()

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
        common = {
            "request_deserializer": handler.request_deserializer,
            "response_serializer": handler.response_serializer,
        }
        if handler.request_streaming and handler.response_streaming:
            return grpc.stream_stream_rpc_method_handler(
                self._wrap_stream(handler.stream_stream, method, streaming_request=True), **common
            )
        if handler.request_streaming:
            return grpc.stream_unary_rpc_method_handler(
                self._wrap_unary(handler.stream_unary, method, streaming_request=True), **common
            )
        if handler.response_streaming:
            return grpc.unary_stream_rpc_method_handler(
                self._wrap_stream(handler.unary_stream, method, streaming_request=False), **common
            )
        return grpc.unary_unary_rpc_method_handler(
            self._wrap_unary(handler.unary_unary, method, streaming_request=False), **common
        )

    def _wrap_unary(
        self, behavior: Any, method: str, *, streaming_request: bool
    ) -> Callable[[Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[Any]]:
        async def unary(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            fields = self._begin(request, streaming_request)
            token = _call_fields.set(fields)
            started = time.perf_counter()
            code, response = grpc.StatusCode.UNKNOWN, None
            try:
                result = behavior(request, context)
                response = await result if inspect.isawaitable(result) else result
                code = _final_code(context)
                return response
            except grpc.aio.AbortError:
                code = _final_code(context)
                raise
            except BaseException as exc:
                code = _code_of(exc)
                raise
            finally:
                _call_fields.reset(token)
                self._finish(method, code, started, fields, context, response)

        return unary

    def _wrap_stream(
        self, behavior: Any, method: str, *, streaming_request: bool
    ) -> Callable[[Any, grpc.aio.ServicerContext[Any, Any]], AsyncIterator[Any]]:
        writes_itself = inspect.iscoroutinefunction(behavior)

        async def stream(
            request: Any, context: grpc.aio.ServicerContext[Any, Any]
        ) -> AsyncIterator[Any]:
            fields = self._begin(request, streaming_request)
            token = _call_fields.set(fields)
            started = time.perf_counter()
            code = grpc.StatusCode.UNKNOWN
            messages = 0
            try:
                if writes_itself:
                    await behavior(request, context)
                else:
                    async for response in behavior(request, context):
                        messages += 1
                        yield response
                code = _final_code(context)
            except grpc.aio.AbortError:
                code = _final_code(context)
                raise
            except BaseException as exc:
                code = _code_of(exc)
                raise
            finally:
                _call_fields.reset(token)
                fields["messages_sent"] = messages
                self._finish(method, code, started, fields, context, None)

        return stream

    def _begin(self, request: Any, streaming_request: bool) -> dict[str, Any]:
        # The namespace the request names; a client stream's requests arrive later, one by one.
        namespace = None if streaming_request else getattr(request, "namespace", None)
        return {"namespace": namespace or None, "principal": None}

    def _finish(
        self,
        method: str,
        code: grpc.StatusCode,
        started: float,
        fields: dict[str, Any],
        context: grpc.aio.ServicerContext[Any, Any],
        response: Any,
    ) -> None:
        seconds = time.perf_counter() - started
        service, _, name = method.lstrip("/").rpartition("/")
        self._metrics.rpc_duration.record(
            seconds * 1000.0,
            {
                "rpc.system": "grpc",
                "rpc.service": service,
                "rpc.method": name,
                "rpc.grpc.status_code": code.value[0],
            },
        )
        negative: str | None = None
        if service in self._read_services:
            negative = self._record_read(name, code, seconds, response)
        self._log(service, name, code, seconds, fields, context, negative)

    def _record_read(
        self, operation: str, code: grpc.StatusCode, seconds: float, response: Any
    ) -> str | None:
        negative, reasons = read_outcome(response) if response is not None else (None, [])
        outcome = "error" if code != grpc.StatusCode.OK else ("negative" if negative else "ok")
        base = {"rememberstack.operation": operation}
        self._metrics.read_duration.record(seconds, base | {"rememberstack.outcome": outcome})
        if negative:
            self._metrics.read_negatives.add(1, base | {"rememberstack.negative.kind": negative})
        for reason in reasons:
            self._metrics.read_truncations.add(
                1, base | {"rememberstack.truncation.reason": reason}
            )
        return negative

    def _log(
        self,
        service: str,
        name: str,
        code: grpc.StatusCode,
        seconds: float,
        fields: dict[str, Any],
        context: grpc.aio.ServicerContext[Any, Any],
        negative: str | None,
    ) -> None:
        ok = code == grpc.StatusCode.OK
        if ok and service in _QUIET_SERVICES:
            level = logging.DEBUG
        elif ok or code in _CLIENT_CODES:
            level = logging.INFO
        elif code in _TRANSIENT_CODES:
            level = logging.WARNING
        else:
            level = logging.ERROR
        if not access_log.isEnabledFor(level):
            return
        if ok and self._sample_ratio < 1.0 and self._rng.random() >= self._sample_ratio:
            return
        line: dict[str, Any] = {
            "rpc_service": service,
            "rpc_method": name,
            "grpc_code": code.name,
            "duration_ms": round(seconds * 1000.0, 2),
            "peer": context.peer(),
        }
        line |= {k: v for k, v in fields.items() if v is not None}
        if negative:
            line["negative"] = negative
        if not ok:
            details = context.details() if hasattr(context, "details") else None
            if details:
                text = details.decode() if isinstance(details, bytes) else str(details)
                line["error"] = text[:300]
        access_log.log(
            level, "rpc %s/%s %s %.1f ms", service, name, code.name, seconds * 1000.0, extra=line
        )


def health_gauge(meter: Meter, servicer: health.aio.HealthServicer) -> None:
    """`rememberstack.health.serving`: 1 while a health name reports SERVING, else 0 — what
    the kubelet's probes see, exported so an alert can fire on NOT_SERVING."""

    def observe(_options: CallbackOptions) -> Iterable[Observation]:
        # The servicer keeps no public view of its statuses; whoever sets them (start, stop,
        # a database check) goes through it, so reading its table is always current.
        statuses: dict[str, int] = getattr(servicer, "_server_status", {})
        return [
            Observation(
                int(status == health_pb2.HealthCheckResponse.SERVING),
                {"grpc.health.service": name or "overall"},
            )
            for name, status in statuses.items()
        ]

    meter.create_observable_gauge(
        "rememberstack.health.serving",
        callbacks=[observe],
        # Not "1": Prometheus would name a unit-1 gauge `..._ratio`.
        unit="{status}",
        description="1 while the gRPC health status of a service name is SERVING, else 0.",
    )


def _code_of(exc: BaseException) -> grpc.StatusCode:
    if isinstance(exc, asyncio.CancelledError | GeneratorExit):
        return grpc.StatusCode.CANCELLED
    return grpc.StatusCode.UNKNOWN
