"""Embedded PostgreSQL (the pgserver wheel: PostgreSQL 16 + pgvector) for the default setup."""

from __future__ import annotations

import logging
import os
import subprocess
import time
from pathlib import Path
from typing import Any

__all__ = [
    "EmbeddedPostgres",
    "EmbeddedPostgresUnavailable",
    "resolve_database_url",
    "server_settings",
]

logger = logging.getLogger(__name__)
_START_ATTEMPTS = 3
_MB = 1024 * 1024
# Settings that only a restart applies (the others a reload does).
_RESTART_SETTINGS = frozenset({"shared_buffers"})


def _memory_bytes() -> int:
    """Physical memory, or the container's cgroup limit when that is lower."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
    except OSError:
        return total
    return min(total, int(limit)) if limit.isdigit() else total


def server_settings(memory_bytes: int | None = None) -> dict[str, str]:
    """What the embedded server runs with instead of initdb's defaults, sized from the machine's
    memory (`memory_bytes`, read when not given).

    initdb leaves shared_buffers at 128 MB. At 1M facts the store is ~12 GB and one
    FactsContext walks HNSW graphs of ~2 GB (facts) and ~0.5 GB (entity profiles): with 128 MB
    most index pages of every search came from outside the buffer pool (EXPLAIN: 3,542 of
    13,314 buffers read in one nomination; the fact search alone 1,477 of 7,082). A quarter of
    memory (at most 8 GB) is the usual share for a dedicated server. random_page_cost 1.1 says
    what is true here (the working set is in memory or on SSD): at 4 the planner hash-joined
    all 50,000 documents of a 1M store to hydrate 600 chunks (40 ms) instead of 600 index
    probes (16 ms). effective_cache_size only informs the planner."""
    total = memory_bytes or _memory_bytes()
    shared = min(max(total // 4, 128 * _MB), 8 * 1024 * _MB)
    return {
        "shared_buffers": f"{shared // _MB}MB",
        "effective_cache_size": f"{max(total // 2, shared) // _MB}MB",
        "random_page_cost": "1.1",
    }


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
            self._server = self._get_server(get_server)
            self._configure(get_server)
        return self.url

    def _get_server(self, get_server: Any) -> Any:
        # pgserver waits only 10 s for `pg_ctl start`; on a loaded machine the server may
        # still come up after that, and a second call attaches to it via postmaster.pid.
        for attempt in range(_START_ATTEMPTS):
            try:
                return get_server(self._data_dir, cleanup_mode="stop")
            except subprocess.SubprocessError:
                if attempt == _START_ATTEMPTS - 1:
                    raise
                logger.warning("embedded PostgreSQL slow to start; waiting for it again")
                time.sleep(2.0)
        raise AssertionError("unreachable")

    def _configure(self, get_server: Any) -> None:
        """Apply `server_settings` when the server runs with others: ALTER SYSTEM, then a reload,
        or a restart for shared_buffers (once per data directory; a server this process only
        attached to keeps its buffers until its owner restarts it)."""
        from pgserver._commands import POSTGRES_BIN_PATH

        def sql(statement: str) -> str:
            command = [str(POSTGRES_BIN_PATH / "psql"), self.url, "-XAtc", statement]
            return subprocess.run(command, check=True, capture_output=True, text=True).stdout

        wanted = server_settings()
        # Compared by the server, in bytes for sizes: it shows 6144MB as 6GB.
        values = ", ".join(f"('{name}', '{value}')" for name, value in wanted.items())
        changed = set(
            sql(
                f"SELECT w.name FROM (VALUES {values}) w(name, value) JOIN pg_settings s"
                " USING (name) WHERE CASE WHEN s.unit LIKE '%B'"
                " THEN pg_size_bytes(current_setting(w.name)) <> pg_size_bytes(w.value)"
                " ELSE current_setting(w.name)::float8 <> w.value::float8 END"
            ).split()
        )
        if not changed:
            return
        for name in sorted(changed):
            sql(f"ALTER SYSTEM SET {name} = '{wanted[name]}'")
        sql("SELECT pg_reload_conf()")
        if changed & _RESTART_SETTINGS:
            logger.info("restarting embedded PostgreSQL to apply %s", sorted(changed))
            self._server.cleanup()
            self._server = self._get_server(get_server)

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
