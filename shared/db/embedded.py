"""Embedded PostgreSQL (the pgserver wheel: PostgreSQL 16 + pgvector) for the default setup."""

from __future__ import annotations

import logging
import subprocess
import time
from pathlib import Path
from typing import Any

__all__ = ["EmbeddedPostgres", "EmbeddedPostgresUnavailable", "resolve_database_url"]

logger = logging.getLogger(__name__)
_START_ATTEMPTS = 3


class EmbeddedPostgresUnavailable(RuntimeError):
    """No database URL and no pgserver (the runtime image ships without it)."""


class EmbeddedPostgres:
    """A real PostgreSQL server in `data_dir`, reachable through a Unix socket.

    Other processes (the four services) connect with the socket URI `start()` returns; only the
    launcher that owns this object starts and stops the server. pgserver runs it as a dedicated
    system user when started as root.
    """

    def __init__(self, data_dir: Path) -> None:
        self._data_dir = data_dir
        self._server: Any = None

    @property
    def data_dir(self) -> Path:
        return self._data_dir

    def start(self) -> str:
        """Start the server (or attach to one already running there) and return its URI.

        Blocking (initdb on first use takes a few seconds); call it via `asyncio.to_thread`
        from async code.
        """
        if self._server is None:
            # Imported here: pgserver probes the system (users, runtime dirs) on import.
            try:
                from pgserver.postgres_server import get_server
            except ImportError as exc:
                raise EmbeddedPostgresUnavailable(
                    "no database configured and no embedded PostgreSQL installed: set "
                    "REMEMBERSTACK_DATABASE_URL, or install the embedded extra "
                    "(pip install 'rememberstack[embedded]'; `make install` does)"
                ) from exc

            self._data_dir.parent.mkdir(parents=True, exist_ok=True)
            # pgserver waits only 10 s for `pg_ctl start`; on a loaded machine the server may
            # still come up after that, and a second call attaches to it via postmaster.pid.
            for attempt in range(_START_ATTEMPTS):
                try:
                    self._server = get_server(self._data_dir, cleanup_mode="stop")
                    break
                except subprocess.SubprocessError:
                    if attempt == _START_ATTEMPTS - 1:
                        raise
                    logger.warning("embedded PostgreSQL slow to start; waiting for it again")
                    time.sleep(2.0)
        return self.url

    @property
    def url(self) -> str:
        """The socket URI, e.g. `postgresql://postgres:@/postgres?host=/data/pg`."""
        if self._server is None:
            raise RuntimeError("embedded PostgreSQL is not started")
        return str(self._server.get_uri())

    def stop(self) -> None:
        """Stop the server (a no-op when it was never started here)."""
        if self._server is not None:
            self._server.cleanup()
            self._server = None


def resolve_database_url(
    settings_database_url: str | None, data_dir: Path
) -> tuple[str, EmbeddedPostgres | None]:
    """Use the configured database, or start embedded PostgreSQL in `data_dir / "postgres"`.

    `data_dir` is the RememberStack data directory. The returned EmbeddedPostgres (None for a
    configured database) belongs to the caller, who stops it on shutdown.
    """
    if settings_database_url:
        return settings_database_url, None
    embedded = EmbeddedPostgres(data_dir / "postgres")
    return embedded.start(), embedded
