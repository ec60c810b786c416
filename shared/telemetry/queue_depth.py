"""Queue depth and age gauges: the work_items table sampled every few seconds."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Collection, Iterable

from opentelemetry.metrics import CallbackOptions, Observation
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from shared.db.queue_depth import queue_depth_rows
from shared.telemetry import Telemetry

__all__ = ["QUEUE_STATUSES", "QueueDepthSampler"]

logger = logging.getLogger(__name__)

# Every status but `succeeded`, which only grows and says nothing about a backlog.
QUEUE_STATUSES = ("pending", "running", "failed", "dead_letter")


class QueueDepthSampler:
    """Reads item counts per kind and status, and the age of the oldest runnable item per kind,
    every `interval` seconds; `rememberstack.queue.depth` and `rememberstack.queue.age` report
    the last sample. Each writing service samples the kinds it works on, so the figures are
    for the whole queue (all namespaces) and every replica reports the same ones: aggregate
    them with `max`, not `sum`.

    Runs only while metrics are exported; a failed sample keeps the previous figures.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        telemetry: Telemetry | None,
        kinds: Collection[str],
        interval: float = 10.0,
    ) -> None:
        self._engine = engine
        self._kinds = sorted(kinds)
        self._interval = interval
        self._enabled = telemetry is not None and telemetry.metrics_exported
        self._depth: dict[tuple[str, str], int] = {
            (k, s): 0 for k in self._kinds for s in QUEUE_STATUSES
        }
        self._age: dict[str, float] = dict.fromkeys(self._kinds, 0.0)
        self._task: asyncio.Task[None] | None = None
        if telemetry is not None and self._enabled:
            telemetry.meter.create_observable_gauge(
                "rememberstack.queue.depth",
                callbacks=[self._observe_depth],
                unit="{item}",
                description="Work items per kind and status (succeeded ones excluded).",
            )
            telemetry.meter.create_observable_gauge(
                "rememberstack.queue.age",
                callbacks=[self._observe_age],
                unit="s",
                description="How long the oldest runnable work item of a kind has waited.",
            )

    async def sample(self) -> None:
        """Read the queue once (also what the background loop does)."""
        async with self._engine.connect() as conn:
            rows = await queue_depth_rows(conn, list(QUEUE_STATUSES), self._kinds)
        depth = dict.fromkeys(self._depth, 0)
        age = dict.fromkeys(self._kinds, 0.0)
        for kind, status, items, oldest in rows:
            depth[(kind, status)] = int(items)
            age[kind] = max(age.get(kind, 0.0), float(oldest))
        self._depth, self._age = depth, age

    async def start(self) -> None:
        if self._enabled and self._interval > 0 and self._task is None:
            self._task = asyncio.create_task(self._run(), name="queue-depth-sampler")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            try:
                await self.sample()
            except (SQLAlchemyError, OSError) as exc:
                logger.warning("sampling the work queue failed: %s", exc)
            await asyncio.sleep(self._interval)

    def _observe_depth(self, _options: CallbackOptions) -> Iterable[Observation]:
        return [
            Observation(
                count, {"rememberstack.work_item.kind": kind, "rememberstack.work_item.status": st}
            )
            for (kind, st), count in self._depth.items()
        ]

    def _observe_age(self, _options: CallbackOptions) -> Iterable[Observation]:
        return [
            Observation(age, {"rememberstack.work_item.kind": kind})
            for kind, age in self._age.items()
        ]
