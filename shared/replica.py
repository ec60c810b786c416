"""Belief time on a read replica: how far the standby has replayed, and reads that outrun it.

A streaming standby shows the primary's commits in commit order, some time after they happen.
Its *replay point* is the latest primary instant T such that every transaction the primary
committed by T is visible on the standby: the commit time of the last transaction replayed
(`pg_last_xact_replay_timestamp()`), or, when the standby has replayed all the WAL the
primary last reported having written, the primary's clock at that report (the WAL receiver's
`latest_end_time`, advanced by the primary's keep-alives while it is idle).

Semantics (docs/architecture.md, "Read replicas"): a read whose `believed_at` is at or before
the replay point reads exactly what the primary would answer. A read whose `believed_at` is
later waits up to `read_replica_max_wait_seconds` for replay to pass it, then answers with a
`boundary` negative naming the replay point instead of a silently older answer. Reads with no
`believed_at` (`current`, `at`, `overlap`, `history`) are answered as believed at the snapshot
the standby holds, which trails the primary by the replication lag.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncEngine

from shared.answers import NegativeAnswer
from shared.config import Settings
from shared.db import replication
from shared.db.engine import create_engine

__all__ = ["ReplayClock", "replay_clock", "replica_behind_negative"]

_POLL_SECONDS = 0.02


def replica_behind_negative(
    replayed_through: datetime | None, believed_at: datetime
) -> NegativeAnswer:
    """The answer to a read at a belief instant the replica has not replayed to yet."""
    point = replayed_through.isoformat() if replayed_through else "nothing yet"
    return NegativeAnswer(
        kind="boundary",
        explanation=(
            f"this read replica has replayed the primary's writes through {point};"
            f" believed_at {believed_at.isoformat()} is later, so the answer could miss"
            " beliefs recorded in between"
        ),
        workaround="retry shortly, ask at a believed_at at or before the replay point,"
        " or read from the primary",
    )


class ReplayClock:
    """Tells whether the read engine has replayed the primary's writes up to an instant.

    On a primary every instant is covered. On a standby the replay point only moves forward,
    so the latest one seen answers most reads (any `believed_at` in the past) without a
    statement. A newer `believed_at` asks the primary, when one is configured, for its WAL
    position and clock, and waits for the standby to replay past that position: exact, and
    right on an idle primary too, where the standby's own view advances only with the
    primary's keep-alives (every `wal_sender_timeout / 2` without standby replies). Without a
    primary the standby's view alone decides. Either way the wait is `max_wait_seconds` at most.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        max_wait_seconds: float,
        primary: AsyncEngine | None = None,
    ) -> None:
        self._engine = engine
        self._primary = primary
        self._max_wait = max_wait_seconds
        self._standby: bool | None = None
        self._known: datetime | None = None

    @property
    def replayed_through(self) -> datetime | None:
        """The latest replay point seen (None before the first look, or on a primary)."""
        return self._known

    def _advance(self, point: datetime | None) -> None:
        if point is not None and (self._known is None or point > self._known):
            self._known = point

    async def look(self, lsn: str | None = None) -> tuple[datetime | None, bool]:
        """Ask the standby now: its replay point, and whether it replayed past `lsn`."""
        async with self._engine.connect() as conn:
            row = await replication.replay_point(conn, lsn)
            await conn.rollback()
        self._standby = bool(row.standby)
        self._advance(row.replayed_through)
        return self._known, bool(row.reached)

    async def _primary_position(self) -> tuple[str, datetime] | None:
        if self._primary is None:
            return None
        async with self._primary.connect() as conn:
            position = await replication.primary_wal_position(conn)
            await conn.rollback()
        return position

    async def behind(self, believed_at: datetime) -> NegativeAnswer | None:
        """None when a read at `believed_at` may go ahead; otherwise the boundary answer,
        after waiting up to the configured time for replay to pass `believed_at`."""
        if self._standby is False or (self._known is not None and self._known >= believed_at):
            return None
        deadline = time.monotonic() + self._max_wait
        position = await self._primary_position()
        while True:
            point, reached = await self.look(position[0] if position else None)
            if not self._standby or (point is not None and point >= believed_at):
                return None
            if position is not None and reached:
                # A believed_at past the primary's clock is as covered as on the primary.
                self._advance(position[1])
                return None
            if time.monotonic() >= deadline:
                return replica_behind_negative(point, believed_at)
            await asyncio.sleep(_POLL_SECONDS)


def replay_clock(
    settings: Settings, read_engine: AsyncEngine, on_stop: list[Callable[[], Awaitable[None]]]
) -> ReplayClock:
    """The clock of a read service reading from `read_engine`; with `database_url` set too,
    it asks the primary for its WAL position (one pooled connection, added to `on_stop`)."""
    primary = None
    if settings.database_url:
        primary = create_engine(settings.database_url, pool_size=1, max_overflow=1)
        on_stop.append(primary.dispose)
    return ReplayClock(
        read_engine, max_wait_seconds=settings.read_replica_max_wait_seconds, primary=primary
    )
