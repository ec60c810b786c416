"""One LISTEN connection per process that wakes whoever waits on the keys a NOTIFY names."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Collection
from types import TracebackType

import asyncpg

from shared.db.engine import to_asyncpg_dsn

__all__ = ["ChangeFeed", "Subscription"]

logger = logging.getLogger(__name__)

WILDCARD = "*"
_DB_ERRORS = (OSError, asyncpg.PostgresError, asyncpg.InterfaceError)


class Subscription:
    """Waits for a notification naming one of ``keys`` (or ``*``); see ChangeFeed.subscribe."""

    def __init__(self, feed: ChangeFeed, keys: frozenset[str]) -> None:
        self._feed = feed
        self.keys = keys
        self._event = asyncio.Event()

    def notify(self) -> None:
        self._event.set()

    def clear(self) -> None:
        """Forget earlier wake-ups; call before reading the state the keys name."""
        self._event.clear()

    async def wait(self, seconds: float) -> bool:
        """True when woken by a notification, False after ``seconds`` without one."""
        try:
            await asyncio.wait_for(self._event.wait(), seconds)
        except TimeoutError:
            return False
        return True

    def __enter__(self) -> Subscription:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._feed.unsubscribe(self)


class ChangeFeed:
    """LISTENs on ``channel`` (payload: comma-separated keys, or ``*`` for all) with one
    connection, reconnecting when it is lost, and fans notifications out to subscriptions.

    Losing or regaining the connection wakes every subscriber, since notifications sent in
    between are gone; ``connected`` tells waiters whether to trust the feed or poll.
    """

    def __init__(self, url: str, channel: str, *, reconnect_seconds: float = 1.0) -> None:
        self._dsn = to_asyncpg_dsn(url)
        self._channel = channel
        self._reconnect_seconds = reconnect_seconds
        self._by_key: dict[str, set[Subscription]] = {}
        self._connection: asyncpg.Connection | None = None
        self._lost = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def connected(self) -> bool:
        return self._connection is not None and not self._connection.is_closed()

    async def start(self) -> None:
        await self._connect()
        self._task = asyncio.create_task(self._supervise(), name=f"listen:{self._channel}")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        connection, self._connection = self._connection, None
        if connection is not None and not connection.is_closed():
            with contextlib.suppress(*_DB_ERRORS):
                await connection.close()

    def subscribe(self, keys: Collection[str]) -> Subscription:
        """A subscription to ``keys``; use it as a context manager so it is removed."""
        subscription = Subscription(self, frozenset(keys))
        for key in subscription.keys:
            self._by_key.setdefault(key, set()).add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        for key in subscription.keys:
            waiting = self._by_key.get(key)
            if waiting is not None:
                waiting.discard(subscription)
                if not waiting:
                    del self._by_key[key]

    def _wake_all(self) -> None:
        for waiting in self._by_key.values():
            for subscription in waiting:
                subscription.notify()

    def _on_notification(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        if payload == WILDCARD:
            self._wake_all()
            return
        for key in payload.split(","):
            for subscription in self._by_key.get(key, ()):
                subscription.notify()

    def _on_termination(self, _conn: object) -> None:
        self._lost.set()

    async def _connect(self) -> None:
        try:
            connection = await asyncpg.connect(self._dsn)
            await connection.add_listener(self._channel, self._on_notification)
            connection.add_termination_listener(self._on_termination)
        except _DB_ERRORS as exc:
            logger.warning("LISTEN %s unavailable, waiters poll: %s", self._channel, exc)
            return
        self._connection = connection
        self._lost.clear()
        self._wake_all()

    async def _supervise(self) -> None:
        while True:
            if self.connected:
                # Termination is reported for a closed socket; an idle one that silently died
                # is found by the periodic check below.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._lost.wait(), 30.0)
                if not self._lost.is_set() and self._connection is not None:
                    # Still answering: keep it (the `continue` is skipped when it raises).
                    with contextlib.suppress(*_DB_ERRORS, TimeoutError):
                        await asyncio.wait_for(self._connection.execute("SELECT 1"), 5.0)
                        continue
            connection, self._connection = self._connection, None
            if connection is not None:
                connection.terminate()
                self._wake_all()
            await asyncio.sleep(self._reconnect_seconds)
            await self._connect()
