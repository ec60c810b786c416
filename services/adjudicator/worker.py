"""Queue workers of the adjudicator: `adjudicate.version` items from the ingest service."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.adjudicator.service import AdjudicationService
from shared.beliefs.support import RetirementReason, retire_testimony
from shared.db.models import VersionStage, WorkItem
from shared.db.queue import Handler, Worker
from shared.telemetry.metrics import Metrics
from shared.telemetry.work import WorkObserver

__all__ = [
    "ADJUDICATE_VERSION",
    "AdjudicationWorkers",
    "VersionPayload",
    "make_handler",
    "parse_payload",
    "prefer_other_speakers",
]

logger = logging.getLogger(__name__)

ADJUDICATE_VERSION = "adjudicate.version"
_REASONS: tuple[str, ...] = ("version_superseded", "reextracted", "version_deleted")
# Among the next runnable items (in queue order), the first whose version shares the fewest
# speakers with the versions being adjudicated right now. Claims of one conversation mostly
# resolve to its speakers, and every batch locks its subject entities (and new names) until it
# commits, so two workers on conversations with the same speakers take turns on those locks
# while two on different conversations run side by side. Only the next `_LOOKAHEAD` items are
# considered, so the order of the queue still holds beyond that window.
_LOOKAHEAD = 64
_PREFER = text(
    f"""
    WITH next AS (
        SELECT w.id, w.version_id, w.run_after, w.created_at FROM work_items w
        WHERE w.kind = ANY(:kinds)
          AND ((w.status IN ('pending', 'failed') AND w.run_after <= now())
               OR (w.status = 'running' AND w.locked_until < now()))
        ORDER BY w.run_after, w.created_at LIMIT {_LOOKAHEAD}
    ), busy AS (
        SELECT DISTINCT c.speaker FROM work_items r
        JOIN version_claims vc ON vc.version_id = r.version_id
        JOIN claims c ON c.id = vc.claim_id
        WHERE r.kind = ANY(:kinds) AND r.status = 'running' AND r.locked_until >= now()
          AND c.speaker IS NOT NULL
    )
    SELECT n.id FROM next n
    ORDER BY (SELECT count(*) FROM version_claims vc JOIN claims c ON c.id = vc.claim_id
              WHERE vc.version_id = n.version_id AND c.speaker IN (SELECT speaker FROM busy)),
             n.run_after, n.created_at
    LIMIT 1
    """
)


@dataclass(frozen=True, slots=True)
class VersionPayload:
    """`{"version_id", "retire_claim_ids", "retire_reason"}` as agreed with the ingest service."""

    version_id: uuid.UUID
    retire_claim_ids: tuple[uuid.UUID, ...]
    retire_reason: RetirementReason | None


def parse_payload(payload: dict[str, Any]) -> VersionPayload:
    """Read an item's payload; ValueError names what is wrong (the item then fails)."""
    try:
        version_id = uuid.UUID(str(payload["version_id"]))
        retire = tuple(uuid.UUID(str(c)) for c in payload.get("retire_claim_ids") or ())
    except (KeyError, ValueError, TypeError) as exc:
        raise ValueError(f"malformed adjudicate.version payload: {exc!r}") from exc
    reason = payload.get("retire_reason")
    if reason is not None and reason not in _REASONS:
        raise ValueError(f"unknown retire_reason {reason!r}")
    if retire and reason is None:
        raise ValueError("retire_claim_ids given without a retire_reason")
    return VersionPayload(version_id, retire, cast("RetirementReason | None", reason))


async def prefer_other_speakers(session: AsyncSession, kinds: Collection[str]) -> uuid.UUID | None:
    """The item a worker should claim next to keep clear of the other workers' speakers."""
    found: uuid.UUID | None = (
        await session.execute(_PREFER, {"kinds": list(kinds)})
    ).scalar_one_or_none()
    return found


async def _set_stage(
    session: AsyncSession,
    namespace: str,
    version_id: uuid.UUID,
    status: str,
    attempts: int,
    error: str | None = None,
) -> None:
    statement = insert(VersionStage).values(
        namespace=namespace,
        version_id=version_id,
        stage="adjudicate",
        status=status,
        attempts=attempts,
        last_error=error,
    )
    await session.execute(
        statement.on_conflict_do_update(
            index_elements=["version_id", "stage"],
            set_={
                "status": statement.excluded.status,
                "attempts": statement.excluded.attempts,
                "last_error": statement.excluded.last_error,
                "updated_at": statement.excluded.updated_at,
            },
        )
    )


def make_handler(
    service: AdjudicationService,
    session_factory: async_sessionmaker[AsyncSession],
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
        version_id: uuid.UUID | None = item.version_id
        try:
            payload = parse_payload(item.payload)
            version_id = payload.version_id
            started = time.perf_counter()
            outcome = await service.adjudicate_version(namespace, version_id, decided_by=worker_id)
            stages.record_stages({"adjudicate": time.perf_counter() - started})
            # Kept on the item for benchmarks and operators: how long the claims took.
            await session.execute(
                update(WorkItem)
                .where(WorkItem.id == item.id)
                .values(
                    result={
                        "claims_adjudicated": outcome.claims_adjudicated,
                        "decisions": len(outcome.decisions),
                        "seconds": round(time.perf_counter() - started, 3),
                    }
                )
                .execution_options(synchronize_session=False)
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
            await _set_stage(session, namespace, version_id, "succeeded", item.attempts)
        except Exception as exc:
            if version_id is not None:
                status = "dead_letter" if item.attempts >= item.max_attempts else "failed"
                await _record_stage_failure(
                    session_factory, namespace, version_id, status, item.attempts, exc
                )
            raise

    return handle


async def _record_stage_failure(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    version_id: uuid.UUID,
    status: str,
    attempts: int,
    exc: Exception,
) -> None:
    # Separate transaction: the item's own one is about to roll back.
    try:
        async with session_factory() as other, other.begin():
            error = f"{type(exc).__name__}: {exc}"[:2000]
            await _set_stage(other, namespace, version_id, status, attempts, error)
    except SQLAlchemyError as stage_exc:
        logger.warning("could not record adjudicate stage of %s: %s", version_id, stage_exc)


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
        kinds: Collection[str] = (ADJUDICATE_VERSION,),
        observer: WorkObserver | None = None,
    ) -> None:
        metrics = observer.metrics if observer else None
        self.workers: Sequence[Worker] = [
            Worker(
                session_factory,
                kinds,
                make_handler(service, session_factory, f"{worker_prefix}-{index}", metrics),
                f"{worker_prefix}-{index}",
                poll_seconds=poll_seconds,
                lease_seconds=lease_seconds,
                listen_url=listen_url,
                prefer=prefer_other_speakers,
                observer=observer,
            )
            for index in range(concurrency)
        ]

    async def start(self) -> None:
        for worker in self.workers:
            await worker.start()

    async def stop(self, grace_seconds: float = 10.0) -> None:
        for worker in self.workers:
            await worker.stop(grace_seconds)
