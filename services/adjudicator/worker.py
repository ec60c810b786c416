"""Queue workers of the adjudicator: `adjudicate.version` items from the ingest service."""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Sequence

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.adjudicator.repository import VERSION_SPEAKERS
from services.adjudicator.service import AdjudicationService
from shared.beliefs.support import retire_testimony
from shared.db.models import WorkItem
from shared.db.queue import Handler, Worker, least_overlap_preference, record_result
from shared.pipeline.kinds import ADJUDICATE_KIND
from shared.pipeline.payloads import AdjudicatePayload, MalformedPayload
from shared.pipeline.stage_repository import record_stage
from shared.pipeline.stages import failure_text
from shared.telemetry.metrics import Metrics
from shared.telemetry.work import WorkObserver

__all__ = [
    "AdjudicationWorkers",
    "make_handler",
    "prefer_other_speakers",
    "record_adjudicate_failure",
]

logger = logging.getLogger(__name__)

# Among the next runnable items (in queue order), the first whose version shares the fewest
# speakers with the versions being adjudicated right now. Claims of one conversation mostly
# resolve to its speakers, and every batch locks its subject entities (and new names) until it
# commits, so two workers on conversations with the same speakers take turns on those locks
# while two on different conversations run side by side. Only the next `_LOOKAHEAD` items are
# considered, so the order of the queue still holds beyond that window.
_LOOKAHEAD = 64
prefer_other_speakers = least_overlap_preference(VERSION_SPEAKERS, _LOOKAHEAD)
"""The item a worker should claim next to keep clear of the other workers' speakers."""


def make_handler(
    service: AdjudicationService,
    worker_id: str,
    metrics: Metrics | None = None,
) -> Handler:
    """The handler of one worker: claims in their own transactions, then the item's own.

    The claims commit in batches (see `AdjudicationService`); retiring the testimony the new
    version replaced and marking the stage succeeded happen in the item's transaction, which
    also marks the item done. Retirement comes after adjudication so that a re-extracted claim
    first confirms its fact and the fact never looks unsupported in between.
    """

    stages = metrics or Metrics.noop()

    async def handle(session: AsyncSession, item: WorkItem) -> None:
        namespace = item.namespace
        payload = AdjudicatePayload.decode(item.payload)
        version_id = payload.version_id
        started = time.perf_counter()
        outcome = await service.adjudicate_version(namespace, version_id, decided_by=worker_id)
        stages.record_stages({"adjudicate": time.perf_counter() - started})
        # Kept on the item for benchmarks and operators: how long the claims took.
        await record_result(
            session,
            item.id,
            {
                "claims_adjudicated": outcome.claims_adjudicated,
                "decisions": len(outcome.decisions),
                "seconds": round(time.perf_counter() - started, 3),
            },
        )
        if payload.retire_claim_ids and payload.retire_reason is not None:
            await retire_testimony(
                session,
                namespace,
                payload.retire_claim_ids,
                payload.retire_reason,
                version_id=version_id,
                decided_by=worker_id,
            )
        await record_stage(session, namespace, version_id, "adjudicate", "succeeded", item.attempts)

    return handle


async def record_adjudicate_failure(
    session: AsyncSession, item: WorkItem, status: str, exc: BaseException
) -> None:
    """The queue worker's failure hook: the version's adjudicate stage says why, in the
    transaction that records the failed attempt on the item."""
    version_id = item.version_id
    if version_id is None:
        try:
            version_id = AdjudicatePayload.decode(item.payload).version_id
        except MalformedPayload:
            return  # no version to mark: the payload itself was what failed
    await record_stage(
        session, item.namespace, version_id, "adjudicate", status, item.attempts, failure_text(exc)
    )


class AdjudicationWorkers:
    """`concurrency` queue workers sharing one service; each has its own id and sessions."""

    def __init__(
        self,
        session_factory: async_sessionmaker[AsyncSession],
        service: AdjudicationService,
        *,
        concurrency: int,
        worker_prefix: str,
        poll_seconds: float,
        lease_seconds: float,
        listen_url: str | None = None,
        kinds: Collection[str] = (ADJUDICATE_KIND,),
        observer: WorkObserver | None = None,
    ) -> None:
        metrics = observer.metrics if observer else None
        self.workers: Sequence[Worker] = [
            Worker(
                session_factory,
                kinds,
                make_handler(service, f"{worker_prefix}-{index}", metrics),
                f"{worker_prefix}-{index}",
                poll_seconds=poll_seconds,
                lease_seconds=lease_seconds,
                listen_url=listen_url,
                prefer=prefer_other_speakers,
                observer=observer,
                on_failure=record_adjudicate_failure,
            )
            for index in range(concurrency)
        ]

    async def start(self) -> None:
        for worker in self.workers:
            await worker.start()

    async def stop(self, grace_seconds: float = 10.0) -> None:
        for worker in self.workers:
            await worker.stop(grace_seconds)
