"""Trace context carried by work items, so one trace follows a document through the queue.

The enqueuing transaction writes the current context (W3C ``traceparent``/``tracestate`` with
the default propagators; whatever ``OTEL_PROPAGATORS`` names otherwise) into the item's
payload under `TRACE_CONTEXT_KEY`; the worker that processes the item continues that trace.
Handlers ignore the key: it is not part of any kind's payload contract.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from opentelemetry import propagate, trace
from opentelemetry.context import Context
from opentelemetry.trace import Link, Span, SpanKind, Tracer

__all__ = [
    "TRACE_CONTEXT_KEY",
    "context_of",
    "new_trace_for",
    "with_trace_context",
]

TRACE_CONTEXT_KEY = "trace_context"


def with_trace_context(payload: Mapping[str, Any]) -> dict[str, Any]:
    """`payload` plus the current trace context, when a span is active (a copy either way)."""
    carried = dict(payload)
    if TRACE_CONTEXT_KEY in carried or not trace.get_current_span().get_span_context().is_valid:
        return carried
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    if carrier:
        carried[TRACE_CONTEXT_KEY] = carrier
    return carried


def context_of(payload: Mapping[str, Any] | None) -> Context | None:
    """The context a payload carries, or None (items enqueued without one, older items)."""
    carrier = (payload or {}).get(TRACE_CONTEXT_KEY)
    if not isinstance(carrier, Mapping) or not carrier:
        return None
    context = propagate.extract({str(k): str(v) for k, v in carrier.items()})
    return context if trace.get_current_span(context).get_span_context().is_valid else None


@contextmanager
def new_trace_for(tracer: Tracer, name: str, attributes: Mapping[str, Any]) -> Iterator[Span]:
    """A new trace for one item of a batch request, linked to the request's span.

    A batch of documents (IngestDocuments, ReextractDocuments) would otherwise put every
    document's whole pipeline into the request's one trace; each document gets its own trace
    instead, and the link still leads from it to the request that started it.
    """
    current = trace.get_current_span().get_span_context()
    links = [Link(current)] if current.is_valid else []
    with tracer.start_as_current_span(
        name, context=Context(), kind=SpanKind.INTERNAL, links=links, attributes=dict(attributes)
    ) as span:
        yield span
