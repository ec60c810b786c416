"""What a queue worker reports about each work item: a span, a duration metric, one log line."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode, Tracer

from shared.telemetry.metrics import Metrics
from shared.telemetry.propagation import context_of

__all__ = ["Outcome", "WorkObservation", "WorkObserver"]

# One line per work item attempt, at INFO; filter on it with `logger == "rememberstack.work"`.
work_log = logging.getLogger("rememberstack.work")

Outcome = Literal["succeeded", "failed", "dead_letter", "lease_lost", "released"]
_ERROR_CHARS = 300


class _Item(Protocol):
    @property
    def id(self) -> Any: ...
    @property
    def kind(self) -> str: ...
    @property
    def namespace(self) -> str: ...
    @property
    def version_id(self) -> Any: ...
    @property
    def attempts(self) -> int: ...
    @property
    def max_attempts(self) -> int: ...
    @property
    def payload(self) -> dict[str, Any]: ...


@dataclass(slots=True)
class WorkObservation:
    """Filled in by the worker while it processes the item."""

    outcome: Outcome = "succeeded"
    error: str | None = None
    exception: BaseException | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class WorkObserver:
    """Continues the item's trace (the context its enqueuer stored in the payload), records
    `rememberstack.work_item.duration` and dead letters, and logs one line per attempt.

    A failed attempt logs its error in one line; the traceback is kept for the attempt that
    dead-letters the item (and for DEBUG), so a bad document costs one traceback, not three.
    """

    def __init__(self, tracer: Tracer | None = None, metrics: Metrics | None = None) -> None:
        self._tracer = tracer or trace.get_tracer("rememberstack.queue")
        self._metrics = metrics or Metrics.noop()

    @property
    def metrics(self) -> Metrics:
        return self._metrics

    @contextmanager
    def observe(self, item: _Item, worker_id: str) -> Iterator[WorkObservation]:
        observation = WorkObservation()
        attributes: dict[str, str | int] = {
            "messaging.system": "rememberstack.work_items",
            "messaging.operation.type": "process",
            "messaging.destination.name": item.kind,
            "messaging.message.id": str(item.id),
            "rememberstack.namespace": item.namespace,
            "rememberstack.version_id": str(item.version_id or ""),
            "rememberstack.work_item.attempt": item.attempts,
        }
        started = time.perf_counter()
        with self._tracer.start_as_current_span(
            f"{item.kind} process",
            context=context_of(item.payload),
            kind=SpanKind.CONSUMER,
            attributes=attributes,
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            try:
                yield observation
            finally:
                seconds = time.perf_counter() - started
                span.set_attribute("rememberstack.work_item.outcome", observation.outcome)
                if observation.outcome in ("failed", "dead_letter"):
                    span.set_status(Status(StatusCode.ERROR, (observation.error or "")[:200]))
                self._record(item, worker_id, observation, seconds)

    def dead_lettered(self, kind: str) -> None:
        """An item dead-lettered outside an attempt (its lease expired with no attempts left)."""
        self._metrics.dead_letters.add(1, {"rememberstack.work_item.kind": kind})

    def _record(
        self, item: _Item, worker_id: str, observation: WorkObservation, seconds: float
    ) -> None:
        outcome = observation.outcome
        self._metrics.work_item_duration.record(
            seconds, {"rememberstack.work_item.kind": item.kind, "rememberstack.outcome": outcome}
        )
        if outcome == "dead_letter":
            self.dead_lettered(item.kind)
        fields: dict[str, Any] = {
            "work_item_id": str(item.id),
            "kind": item.kind,
            "namespace": item.namespace,
            "version_id": str(item.version_id) if item.version_id else None,
            "attempt": item.attempts,
            "max_attempts": item.max_attempts,
            "outcome": outcome,
            "duration_ms": round(seconds * 1000.0, 1),
            "worker_id": worker_id,
        }
        if observation.error:
            fields["error"] = observation.error[:_ERROR_CHARS]
        fields |= observation.extra
        level = {
            "succeeded": logging.INFO,
            "released": logging.INFO,
            "failed": logging.WARNING,
            "lease_lost": logging.WARNING,
            "dead_letter": logging.ERROR,
        }[outcome]
        # One traceback per item, when it gives up (or at DEBUG): retries of a bad input would
        # otherwise log the same traceback on every attempt.
        exc_info = (
            observation.exception
            if level >= logging.ERROR or work_log.isEnabledFor(logging.DEBUG)
            else None
        )
        work_log.log(
            level,
            "work item %s %s (attempt %d/%d, %.0f ms)",
            item.kind,
            outcome,
            item.attempts,
            item.max_attempts,
            seconds * 1000.0,
            extra=fields,
            exc_info=exc_info,
        )
