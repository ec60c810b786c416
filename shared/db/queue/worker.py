"""The queue Worker: LISTEN/poll, claim, run the handler, keep the lease, record failures."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Collection

import asyncpg
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.engine import to_asyncpg_dsn
from shared.db.failures import is_unreachable
from shared.db.models import WorkItem
from shared.db.queue.items import (
    NOTIFY_CHANNEL,
    FailureHook,
    Handler,
    LeaseLostError,
    Preference,
    claim,
    complete,
    extend_lease,
    fail,
    release,
)
from shared.telemetry.work import WorkObservation, WorkObserver

logger = logging.getLogger(__name__)

# What a lost or failing database connection raises; the worker logs these and carries on.
_DB_ERRORS = (OSError, SQLAlchemyError, asyncpg.PostgresError, asyncpg.InterfaceError)


class Worker:
    """Claims items of `kinds` one at a time and runs `handler` on each.

    The handler's writes and the item's `succeeded` mark commit in one transaction; when the
    handler raises, that transaction rolls back and the failure is recorded in a separate one,
    together with whatever `on_failure` writes about it.
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
        on_failure: FailureHook | None = None,
    ) -> None:
        self._factory = session_factory
        self._on_failure = on_failure
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
                    await extend_lease(session, item_id, self._worker_id, self._lease_seconds)
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
                    await release(session, item.id, self._worker_id)
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
            status = await self._record_failure(item, error, exc)
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
                    await release(session, item.id, self._worker_id)
                self._wake.set()
                return
            except _DB_ERRORS:
                if asyncio.get_running_loop().time() > deadline:
                    return
                await asyncio.sleep(min(0.5, self._poll_seconds))

    async def _record_failure(self, item: WorkItem, error: str, exc: BaseException) -> str | None:
        try:
            async with self._factory() as session, session.begin():
                status = await fail(session, item.id, self._worker_id, error)
                if status is not None and self._on_failure is not None:
                    await self._run_failure_hook(session, item, status, exc)
        except _DB_ERRORS as db_exc:
            # The lease then expires and the item is retried, still counting the attempt.
            logger.warning("worker %s: could not record failure: %s", self._worker_id, db_exc)
            return None
        return status

    async def _run_failure_hook(
        self, session: AsyncSession, item: WorkItem, status: str, exc: BaseException
    ) -> None:
        assert self._on_failure is not None
        # In a savepoint: the item's failure is recorded even when the hook's writes are not,
        # and a faulty hook cannot stop the worker.
        try:
            async with session.begin_nested():
                await self._on_failure(session, item, status, exc)
        except Exception as hook_exc:
            logger.warning(
                "worker %s: failure hook for %s failed: %s", self._worker_id, item.id, hook_exc
            )
