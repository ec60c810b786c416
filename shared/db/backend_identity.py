"""Which server process a raw driver connection talks to, and where that server listens."""

from __future__ import annotations

from typing import Any

__all__ = ["backend_pid_and_address"]


def backend_pid_and_address(dbapi_connection: Any) -> tuple[int, Any]:
    """The PostgreSQL backend's pid and the server's address (None over a Unix socket), read
    on a raw DBAPI connection (what a pool `connect` event hands over)."""
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("SELECT pg_backend_pid(), inet_server_addr()")
        pid, address = cursor.fetchone()
    finally:
        cursor.close()
    return pid, address
