"""The Postgres work queue: enqueue, claim with SKIP LOCKED, retry with back-off, and a Worker."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable, Collection, Sequence
from datetime import datetime, timedelta
from typing import Any

import asyncpg
from sqlalchemy import ColumnElement, and_, case, func, or_, select, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.engine import to_asyncpg_dsn
from shared.db.failures import is_unreachable
from shared.db.models import WorkItem
from shared.telemetry.propagation import with_trace_context
from shared.telemetry.work import WorkObservation, WorkObserver

__all__ = [
    "BACKOFF_BASE_SECONDS",
    "BACKOFF_CAP_SECONDS",
    "NOTIFY_CHANNEL",
    "Handler",
    "LeaseLostError",
    "Preference",
    "Worker",
    "backoff_seconds",
    "claim",
    "complete",
    "dead_lettered_versions",
    "dead_letters",
    "enqueue",
    "fail",
    "least_overlap_preference",
    "oldest_runnable",
    "record_result",
    "replay_dead_letters",
]

logger = logging.getLogger(__name__)

NOTIFY_CHANNEL = "rememberstack_work"
BACKOFF_BASE_SECONDS = 2.0
BACKOFF_CAP_SECONDS = 60.0

# What a lost or failing database connection raises; the worker logs these and carries on.
_DB_ERRORS = (OSError, SQLAlchemyError, asyncpg.PostgresError, asyncpg.InterfaceError)

Handler = Callable[[AsyncSession, WorkItem], Awaitable[None]]
# Which runnable item of `kinds` a worker would rather take next (None: no preference). A hint
# only: the item is still claimed with SKIP LOCKED, and the usual order applies when it is gone.
Preference = Callable[[AsyncSession, Collection[str]], Awaitable[uuid.UUID | None]]


class LeaseLostError(RuntimeError):
    """The item's lease expired and another worker took it; this worker's result is void."""


def backoff_seconds(attempts: int) -> float:
    """Delay before retry number `attempts` + 1: 2 s, 4 s, 8 s, ... capped at 60 s."""
    return float(min(BACKOFF_BASE_SECONDS * 2 ** max(attempts - 1, 0), BACKOFF_CAP_SECONDS))


async def _notify(session: AsyncSession, kind: str) -> None:
    # Delivered on commit, so a woken worker always finds the item.
    await session.execute(select(func.pg_notify(NOTIFY_CHANNEL, kind)))


async def enqueue(
    session: AsyncSession,
    namespace: str,
    kind: str,
    payload: dict[str, Any],
    dedupe_key: str | None = None,
    version_id: uuid.UUID | None = None,
    run_after: datetime | None = None,
) -> uuid.UUID | None:
    """Add a work item in the caller's transaction; None when `dedupe_key` already exists."""
    values: dict[str, Any] = {
        "namespace": namespace,
        "kind": kind,
        # The enqueuer's trace goes with the item, so its worker continues that trace.
        "payload": with_trace_context(payload),
        "dedupe_key": dedupe_key,
        "version_id": version_id,
    }
    if run_after is not None:
        values["run_after"] = run_after
    statement = insert(WorkItem).values(**values)
    if dedupe_key is not None:
        statement = statement.on_conflict_do_nothing(
            index_elements=["namespace", "kind", "dedupe_key"],
            index_where=WorkItem.dedupe_key.is_not(None),
        )
    item_id = (await session.execute(statement.returning(WorkItem.id))).scalar_one_or_none()
    if item_id is not None:
        await _notify(session, kind)
    return item_id


def _runnable() -> ColumnElement[bool]:
    # Pending or failed items whose time has come, and running items whose lease expired.
    now = func.now()
    return or_(
        and_(WorkItem.status.in_(("pending", "failed")), WorkItem.run_after <= now),
        and_(WorkItem.status == "running", WorkItem.locked_until < now),
    )


async def claim(
    session_factory: async_sessionmaker[AsyncSession],
    kinds: Collection[str],
    worker_id: str,
    lease_seconds: float,
    *,
    item_id: uuid.UUID | None = None,
    on_dead_letter: Callable[[str], None] | None = None,
) -> WorkItem | None:
    """Lease the next runnable item of `kinds` (or that item, if runnable) to `worker_id`, or
    return None.

    Runnable: pending or failed items whose `run_after` has passed, and running items whose
    lease expired (their worker died). Claiming counts an attempt; an expired item with no
    attempts left is dead-lettered instead of being handed out again.
    """
    now = func.now()
    conditions = [WorkItem.kind.in_(list(kinds)), _runnable()]
    if item_id is not None:
        conditions.append(WorkItem.id == item_id)
    candidate = (
        select(WorkItem.id)
        .where(*conditions)
        .order_by(WorkItem.run_after, WorkItem.created_at)
        .limit(1)
        .with_for_update(skip_locked=True)
    )
    exhausted = and_(WorkItem.status == "running", WorkItem.attempts >= WorkItem.max_attempts)
    statement = (
        update(WorkItem)
        .where(WorkItem.id.in_(candidate.scalar_subquery()))
        .values(
            status=case((exhausted, "dead_letter"), else_="running"),
            attempts=case((exhausted, WorkItem.attempts), else_=WorkItem.attempts + 1),
            locked_by=case((exhausted, None), else_=worker_id),
            locked_until=case((exhausted, None), else_=now + timedelta(seconds=lease_seconds)),
            last_error=case(
                (exhausted, func.concat("lease expired while held by ", WorkItem.locked_by)),
                else_=WorkItem.last_error,
            ),
            updated_at=now,
        )
        .returning(WorkItem)
        .execution_options(synchronize_session=False)
    )
    while True:
        async with session_factory() as session, session.begin():
            item = (await session.execute(statement)).scalar_one_or_none()
            if item is None:
                return None
            # Detach with its loaded state so it stays readable whatever the factory's
            # expire_on_commit setting.
            session.expunge(item)
        if item.status == "running":
            return item
        logger.warning("work item %s (%s) dead-lettered: lease expired", item.id, item.kind)
        if on_dead_letter is not None:
            on_dead_letter(item.kind)


async def complete(session: AsyncSession, item_id: uuid.UUID, worker_id: str) -> None:
    """Mark the item succeeded in the handler's transaction; LeaseLostError if no longer ours."""
    result = await session.execute(
        update(WorkItem)
        .where(
            WorkItem.id == item_id,
            WorkItem.locked_by == worker_id,
            WorkItem.status == "running",
        )
        .values(status="succeeded", locked_by=None, locked_until=None, updated_at=func.now())
        .returning(WorkItem.id)
        .execution_options(synchronize_session=False)
    )
    if result.scalar_one_or_none() is None:
        raise LeaseLostError(f"work item {item_id} is no longer leased to {worker_id}")


_FAIL = text(
    """
    UPDATE work_items
       SET status = CASE WHEN attempts >= max_attempts THEN 'dead_letter' ELSE 'failed' END,
           run_after = now() + make_interval(
               secs => LEAST(:base * power(2, GREATEST(attempts - 1, 0)), :cap)),
           last_error = :error,
           locked_by = NULL,
           locked_until = NULL,
           updated_at = now()
     WHERE id = :id AND locked_by = :worker_id AND status = 'running'
    RETURNING status
    """
)


async def fail(session: AsyncSession, item_id: uuid.UUID, worker_id: str, error: str) -> str | None:
    """Record a failed attempt: 'failed' with back-off, or 'dead_letter' once attempts run out.

    Returns the new status, or None when the item is no longer leased to `worker_id`.
    """
    result = await session.execute(
        _FAIL,
        {
            "id": item_id,
            "worker_id": worker_id,
            "error": error,
            "base": BACKOFF_BASE_SECONDS,
            "cap": BACKOFF_CAP_SECONDS,
        },
    )
    status: str | None = result.scalar_one_or_none()
    return status


async def _release(session: AsyncSession, item_id: uuid.UUID, worker_id: str) -> None:
    # A worker stopping mid-item hands it back without spending the attempt.
    await session.execute(
        update(WorkItem)
        .where(
            WorkItem.id == item_id,
            WorkItem.locked_by == worker_id,
            WorkItem.status == "running",
        )
        .values(
            status="pending",
            attempts=func.greatest(WorkItem.attempts - 1, 0),
            locked_by=None,
            locked_until=None,
            run_after=func.now(),
            updated_at=func.now(),
        )
        .execution_options(synchronize_session=False)
    )


async def _extend_lease(
    session: AsyncSession, item_id: uuid.UUID, worker_id: str, lease_seconds: float
) -> None:
    await session.execute(
        update(WorkItem)
        .where(
            WorkItem.id == item_id,
            WorkItem.locked_by == worker_id,
            WorkItem.status == "running",
        )
        .values(locked_until=func.now() + timedelta(seconds=lease_seconds))
        .execution_options(synchronize_session=False)
    )


async def record_result(session: AsyncSession, item_id: uuid.UUID, result: dict[str, Any]) -> None:
    """Keep what the item did (counts, seconds) on the item, for benchmarks and operators."""
    await session.execute(
        update(WorkItem)
        .where(WorkItem.id == item_id)
        .values(result=result)
        .execution_options(synchronize_session=False)
    )


async def oldest_runnable(session: AsyncSession, kinds: Collection[str]) -> uuid.UUID | None:
    """The item of `kinds` that `claim` would take next (of any namespace), without taking it."""
    found: uuid.UUID | None = (
        await session.execute(
            select(WorkItem.id)
            .where(WorkItem.kind.in_(list(kinds)), _runnable())
            .order_by(WorkItem.run_after, WorkItem.created_at)
            .limit(1)
        )
    ).scalar_one_or_none()
    return found


def least_overlap_preference(version_keys: str, lookahead: int) -> Preference:
    """A `Preference`: among the next `lookahead` runnable items (in queue order), the first
    whose version shares the fewest keys with the versions of the items running right now.

    `version_keys` is fixed SQL text selecting `(version_id, key)` rows (for the adjudicator,
    the speakers of a version's claims). Only the window is reordered, so the queue's order
    still holds beyond it.
    """
    statement = text(
        f"""
        WITH next AS (
            SELECT w.id, w.version_id, w.run_after, w.created_at FROM work_items w
            WHERE w.kind = ANY(:kinds)
              AND ((w.status IN ('pending', 'failed') AND w.run_after <= now())
                   OR (w.status = 'running' AND w.locked_until < now()))
            ORDER BY w.run_after, w.created_at LIMIT {int(lookahead)}
        ), busy AS (
            SELECT DISTINCT k.key FROM work_items r
            JOIN ({version_keys}) k ON k.version_id = r.version_id
            WHERE r.kind = ANY(:kinds) AND r.status = 'running' AND r.locked_until >= now()
        )
        SELECT n.id FROM next n
        ORDER BY (SELECT count(*) FROM ({version_keys}) k
                  WHERE k.version_id = n.version_id AND k.key IN (SELECT key FROM busy)),
                 n.run_after, n.created_at
        LIMIT 1
        """
    )

    async def prefer(session: AsyncSession, kinds: Collection[str]) -> uuid.UUID | None:
        found: uuid.UUID | None = (
            await session.execute(statement, {"kinds": list(kinds)})
        ).scalar_one_or_none()
        return found

    return prefer


async def dead_letters(
    session: AsyncSession,
    namespace: str,
    kinds: Collection[str],
    version_ids: Collection[uuid.UUID] | None = None,
) -> list[tuple[uuid.UUID, uuid.UUID | None]]:
    """`(item id, version id)` of the dead-lettered items of `kinds` (of those versions)."""
    conditions = [
        WorkItem.namespace == namespace,
        WorkItem.kind.in_(list(kinds)),
        WorkItem.status == "dead_letter",
    ]
    if version_ids is not None:
        conditions.append(WorkItem.version_id.in_(list(version_ids)))
    rows = await session.execute(select(WorkItem.id, WorkItem.version_id).where(*conditions))
    return [(row.id, row.version_id) for row in rows]


async def dead_lettered_versions(
    session: AsyncSession, namespace: str, version_ids: Collection[uuid.UUID]
) -> set[uuid.UUID]:
    """Which of `version_ids` have a dead-lettered item, of any kind."""
    rows = await session.execute(
        select(WorkItem.version_id).where(
            WorkItem.namespace == namespace,
            WorkItem.version_id.in_(list(version_ids)),
            WorkItem.status == "dead_letter",
        )
    )
    return {v for v in rows.scalars() if v is not None}


async def replay_dead_letters(
    session: AsyncSession,
    namespace: str,
    kinds: Sequence[str] | None = None,
    ids: Sequence[uuid.UUID] | None = None,
    *,
    kind_prefix: str | None = None,
) -> int:
    """Make dead-lettered items of `namespace` runnable again with fresh attempts.

    `kinds`, `kind_prefix` and `ids` narrow the selection when given. Returns how many were
    replayed.
    """
    conditions = [WorkItem.namespace == namespace, WorkItem.status == "dead_letter"]
    if kinds is not None:
        conditions.append(WorkItem.kind.in_(list(kinds)))
    if kind_prefix is not None:
        conditions.append(func.starts_with(WorkItem.kind, kind_prefix))
    if ids is not None:
        conditions.append(WorkItem.id.in_(list(ids)))
    result = await session.execute(
        update(WorkItem)
        .where(*conditions)
        .values(
            status="pending",
            attempts=0,
            run_after=func.now(),
            locked_by=None,
            locked_until=None,
            updated_at=func.now(),
        )
        .returning(WorkItem.kind)
        .execution_options(synchronize_session=False)
    )
    replayed = list(result.scalars())
    for kind in sorted(set(replayed)):
        await _notify(session, kind)
    return len(replayed)


class Worker:
    """Claims items of `kinds` one at a time and runs `handler` on each.

    The handler's writes and the item's `succeeded` mark commit in one transaction; when the
    handler raises, that transaction rolls back and the failure is recorded in a separate one.
    Wake-ups come from LISTEN on `listen_url` (any PostgreSQL URL form); polling every
    `poll_seconds` covers missed notifications and a lost listener connection. Leases are
    short and renewed by a heartbeat (every third of `lease_seconds`) while a handler runs, so
    a killed worker's item is taken over within seconds and a live one's never. An item whose
    handler lost the database is handed back without spending an attempt.
    """

    def __init__(
        self,
        session_factory: async_sessionmaker[AsyncSession],
        kinds: Collection[str],
        handler: Handler,
        worker_id: str,
        poll_seconds: float = 5.0,
        lease_seconds: float = 10.0,
        listen_url: str | None = None,
        prefer: Preference | None = None,
        observer: WorkObserver | None = None,
    ) -> None:
        self._factory = session_factory
        self._observer = observer or WorkObserver()
        self._prefer = prefer
        self._kinds = frozenset(kinds)
        self._handler = handler
        self._worker_id = worker_id
        self._poll_seconds = poll_seconds
        self._lease_seconds = lease_seconds
        self._listen_dsn = to_asyncpg_dsn(listen_url) if listen_url else None
        self._wake = asyncio.Event()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self._listener: asyncpg.Connection | None = None

    @property
    def worker_id(self) -> str:
        return self._worker_id

    async def start(self) -> None:
        """Open the listener connection (if any) and start the claim loop."""
        if self._task is not None:
            raise RuntimeError("worker already started")
        self._stopping = False
        await self._connect_listener()
        self._task = asyncio.create_task(self._run(), name=f"worker:{self._worker_id}")

    async def stop(self, grace_seconds: float = 10.0) -> None:
        """Finish the current item (up to `grace_seconds`), then cancel and close everything."""
        self._stopping = True
        self._wake.set()
        task, self._task = self._task, None
        if task is not None:
            done, _ = await asyncio.wait({task}, timeout=grace_seconds)
            if not done:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._close_listener()

    def wake(self) -> None:
        """Claim again now instead of waiting for a notification or the next poll."""
        self._wake.set()

    def _on_notification(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        if payload in self._kinds:
            self._wake.set()

    async def _connect_listener(self) -> None:
        if self._listen_dsn is None:
            return
        try:
            connection = await asyncpg.connect(self._listen_dsn)
            await connection.add_listener(NOTIFY_CHANNEL, self._on_notification)
        except _DB_ERRORS as exc:
            logger.warning("worker %s: LISTEN unavailable, polling: %s", self._worker_id, exc)
            return
        self._listener = connection

    async def _close_listener(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None and not listener.is_closed():
            await listener.close()

    async def _run(self) -> None:
        while not self._stopping:
            if self._listen_dsn is not None and (
                self._listener is None or self._listener.is_closed()
            ):
                await self._connect_listener()
            # Cleared before claiming so a notification arriving mid-claim is not lost.
            self._wake.clear()
            try:
                item = await self._claim()
            except _DB_ERRORS as exc:
                logger.warning("worker %s: claim failed: %s", self._worker_id, exc)
                item = None
            if item is not None:
                await self._process(item)
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self._poll_seconds)

    async def _claim(self) -> WorkItem | None:
        if self._prefer is not None:
            async with self._factory() as session:
                preferred = await self._prefer(session, self._kinds)
            if preferred is not None:
                item = await claim(
                    self._factory,
                    self._kinds,
                    self._worker_id,
                    self._lease_seconds,
                    item_id=preferred,
                    on_dead_letter=self._observer.dead_lettered,
                )
                if item is not None:
                    return item
        return await claim(
            self._factory,
            self._kinds,
            self._worker_id,
            self._lease_seconds,
            on_dead_letter=self._observer.dead_lettered,
        )

    async def _heartbeat(self, item_id: uuid.UUID) -> None:
        while True:
            await asyncio.sleep(self._lease_seconds / 3)
            try:
                async with self._factory() as session, session.begin():
                    await _extend_lease(session, item_id, self._worker_id, self._lease_seconds)
            except _DB_ERRORS as exc:
                logger.warning("worker %s: lease extension failed: %s", self._worker_id, exc)

    async def _process(self, item: WorkItem) -> None:
        with self._observer.observe(item, self._worker_id) as observed:
            await self._process_observed(item, observed)

    async def _process_observed(self, item: WorkItem, observed: WorkObservation) -> None:
        heartbeat = asyncio.create_task(self._heartbeat(item.id))
        try:
            async with self._factory() as session, session.begin():
                await self._handler(session, item)
                await complete(session, item.id, self._worker_id)
        except asyncio.CancelledError:
            observed.outcome = "released"
            # Best effort: if the database is unreachable the lease simply expires.
            with contextlib.suppress(*_DB_ERRORS):
                async with self._factory() as session, session.begin():
                    await _release(session, item.id, self._worker_id)
            raise
        except LeaseLostError:
            observed.outcome = "lease_lost"
        except Exception as exc:
            if is_unreachable(exc):
                # The database went away, not the item's fault: hand it back unspent as soon
                # as the database answers again, so an outage cannot dead-letter work.
                logger.warning(
                    "worker %s: database lost during %s: %r", self._worker_id, item.id, exc
                )
                await self._release_when_reachable(item)
                observed.outcome = "released"
                return
            error = f"{type(exc).__name__}: {exc}"
            status = await self._record_failure(item, error)
            observed.outcome = "dead_letter" if status == "dead_letter" else "failed"
            observed.error, observed.exception = error, exc
        finally:
            heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await heartbeat

    async def _release_when_reachable(self, item: WorkItem) -> None:
        # Past the lease the item is anyone's again (a claim counts the attempt), so stop then.
        deadline = asyncio.get_running_loop().time() + self._lease_seconds
        while not self._stopping:
            try:
                async with self._factory() as session, session.begin():
                    await _release(session, item.id, self._worker_id)
                self._wake.set()
                return
            except _DB_ERRORS:
                if asyncio.get_running_loop().time() > deadline:
                    return
                await asyncio.sleep(min(0.5, self._poll_seconds))

    async def _record_failure(self, item: WorkItem, error: str) -> str | None:
        try:
            async with self._factory() as session, session.begin():
                status = await fail(session, item.id, self._worker_id, error)
        except _DB_ERRORS as exc:
            # The lease then expires and the item is retried, still counting the attempt.
            logger.warning("worker %s: could not record failure: %s", self._worker_id, exc)
            return None
        return status
