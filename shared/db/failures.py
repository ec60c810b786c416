"""Which exceptions mean "the database is unreachable" (retry later) rather than a bug."""

from __future__ import annotations

import socket

import asyncpg.exceptions
from sqlalchemy import exc as sa_exc

__all__ = ["is_unreachable"]

# Plain OSErrors such as FileNotFoundError are bugs or misconfiguration; only network-shaped
# failures (and DatabaseUnreachable, a ConnectionError) mean a retry may succeed.
_UNREACHABLE: tuple[type[BaseException], ...] = (
    ConnectionError,
    TimeoutError,
    socket.gaierror,
    sa_exc.OperationalError,
    asyncpg.exceptions.PostgresConnectionError,
    asyncpg.exceptions.CannotConnectNowError,
    asyncpg.exceptions.TooManyConnectionsError,
    asyncpg.exceptions.AdminShutdownError,
    asyncpg.exceptions.CrashShutdownError,
    asyncpg.exceptions.ConnectionDoesNotExistError,
)


def is_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` (or anything in its cause chain) is a lost or refused connection."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, _UNREACHABLE):
            return True
        if isinstance(current, sa_exc.DBAPIError) and current.connection_invalidated:
            return True
        current = current.__cause__ or current.__context__
    return False
