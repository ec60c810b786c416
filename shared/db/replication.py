"""Replication positions: how far a standby has replayed, and the primary's WAL write position."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Row, text
from sqlalchemy.ext.asyncio import AsyncConnection

__all__ = ["primary_wal_position", "replay_point"]

# NULL on a primary (every commit is visible); on a standby the replay point, or NULL when
# nothing was replayed or reported yet. `latest_end_time` needs pg_read_all_stats (or a
# superuser); without it the column reads NULL and only replayed commits count. `reached` is
# whether replay passed a primary WAL position (:lsn, NULL when there is none to compare).
_REPLAY_POINT = text(
    "SELECT pg_is_in_recovery() AS standby, CASE WHEN pg_is_in_recovery() THEN greatest("
    " pg_last_xact_replay_timestamp(),"
    " (SELECT r.latest_end_time FROM pg_stat_wal_receiver r"
    "  WHERE r.latest_end_lsn IS NOT NULL AND pg_last_wal_replay_lsn() >= r.latest_end_lsn))"
    " END AS replayed_through,"
    " pg_last_wal_replay_lsn() >= CAST(CAST(:lsn AS text) AS pg_lsn) AS reached"
)
# The primary's WAL write position and clock: every transaction committed by `at` has its
# commit record before `lsn`, so a standby that replayed past `lsn` holds all of them.
_PRIMARY_POSITION = text("SELECT CAST(pg_current_wal_lsn() AS text), clock_timestamp()")


async def replay_point(conn: AsyncConnection, lsn: str | None) -> Row[Any]:
    """(standby, replayed_through, reached): whether the server is a standby, its replay point,
    and whether it replayed past the primary position `lsn`."""
    return (await conn.execute(_REPLAY_POINT, {"lsn": lsn})).one()


async def primary_wal_position(conn: AsyncConnection) -> tuple[str, datetime]:
    """The primary's current WAL write position and its clock."""
    lsn, at = (await conn.execute(_PRIMARY_POSITION)).one()
    return str(lsn), at
