"""A streaming hot standby of an embedded primary, built from pgserver's own binaries.

PostgreSQL's physical replication does all the work: `pg_basebackup --write-recovery-conf`
copies the primary's data directory and writes `standby.signal` plus `primary_conninfo`, and
the standby's `postgres` streams and replays the primary's WAL from then on. Nothing here
copies rows. Used by the replica test and benchmark, and by anyone who wants a local replica
for the read services (`REMEMBERSTACK_READ_DATABASE_URL`).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

__all__ = ["EmbeddedStandby", "socket_dir_of"]

# pgserver runs PostgreSQL as this system user when it is started as root.
_SYSTEM_USER = "pgserver"
# Unix socket paths are limited to 107 bytes, ".s.PGSQL.5432" included.
_MAX_SOCKET_DIR = 90


def socket_dir_of(url: str) -> str:
    """The socket directory of a socket URI such as pgserver's `…/postgres?host=/dir`."""
    hosts = parse_qs(urlsplit(url).query).get("host")
    if not hosts:
        raise ValueError("the primary must be reached through a Unix socket (host=/dir)")
    return hosts[0]


def _bin(name: str) -> str:
    from pgserver._commands import POSTGRES_BIN_PATH

    return str(POSTGRES_BIN_PATH / name)


def _as_system_user() -> dict[str, str]:
    """`subprocess` arguments that run PostgreSQL's tools as the server's own user."""
    if os.geteuid() != 0:
        return {}
    return {"user": _SYSTEM_USER, "group": _SYSTEM_USER}


def _hand_to_system_user(path: Path) -> None:
    """Make `path` the server user's, reachable through its parents (as pgserver does)."""
    if os.geteuid() == 0:
        from pgserver.utils import ensure_prefix_permissions

        ensure_prefix_permissions(path)
        entry = pwd.getpwnam(_SYSTEM_USER)
        os.chown(path, entry.pw_uid, entry.pw_gid)


def _run(args: list[str], timeout: float) -> None:
    """Run a PostgreSQL tool as the server's user; its stderr is the error when it fails."""
    done = subprocess.run(
        args,
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
        **_as_system_user(),  # type: ignore[call-overload]
    )
    if done.returncode != 0:
        raise RuntimeError(f"{Path(args[0]).name} failed ({done.returncode}): {done.stderr}")


class EmbeddedStandby:
    """A hot standby in `data_dir` streaming from the embedded primary at `primary_url`."""

    def __init__(self, primary_url: str, data_dir: Path) -> None:
        self._primary_socket = socket_dir_of(primary_url)
        self._data_dir = data_dir
        self._socket_dir: Path | None = None
        self._owned_socket_dir: str | None = None

    @property
    def url(self) -> str:
        """The standby's socket URI (read-only: every write fails with SQLSTATE 25006)."""
        if self._socket_dir is None:
            raise RuntimeError("the standby is not started")
        return f"postgresql://postgres:@/postgres?host={self._socket_dir}"

    def start(self, *, timeout: float = 120.0, status_interval_s: int = 1) -> str:
        """Base-backup the primary (first start only), start streaming; returns the URI.

        Blocking; call it through `asyncio.to_thread` from async code. `status_interval_s`
        is how often the standby reports to the primary (`wal_receiver_status_interval`)."""
        if not (self._data_dir / "PG_VERSION").exists():
            self._base_backup(timeout)
        self._socket_dir = self._choose_socket_dir()
        options = (
            f"-h '' -k {self._socket_dir} -c hot_standby=on"
            f" -c wal_receiver_status_interval={status_interval_s}s"
            # A standby query that conflicts with replay waits this long, then is cancelled:
            # reads are bounded far below it, so replay never stalls behind a long read.
            " -c max_standby_streaming_delay=30s -c hot_standby_feedback=on"
        )
        _run(
            [
                _bin("pg_ctl"),
                "-D",
                str(self._data_dir),
                "-w",
                "-t",
                str(int(timeout)),
                "-o",
                options,
                "-l",
                str(self._data_dir / "log"),
                "start",
            ],
            timeout + 10,
        )
        return self.url

    def _base_backup(self, timeout: float) -> None:
        self._data_dir.mkdir(parents=True, exist_ok=True)
        self._data_dir.chmod(0o700)
        _hand_to_system_user(self._data_dir)
        _run(
            [
                _bin("pg_basebackup"),
                "--pgdata",
                str(self._data_dir),
                "--host",
                self._primary_socket,
                "--username",
                "postgres",
                "--wal-method",
                "stream",
                "--checkpoint",
                "fast",
                # standby.signal + primary_conninfo (the same socket) in postgresql.auto.conf
                "--write-recovery-conf",
                "--no-password",
            ],
            timeout,
        )
        # pgserver keeps its socket and log inside the data directory: the copy took the
        # primary's socket lock file (the standby would refuse to start on it) and its log.
        for leftover in [*self._data_dir.glob(".s.PGSQL.*.lock"), self._data_dir / "log"]:
            leftover.unlink(missing_ok=True)

    def _choose_socket_dir(self) -> Path:
        if len(str(self._data_dir)) <= _MAX_SOCKET_DIR:
            return self._data_dir
        self._owned_socket_dir = tempfile.mkdtemp(prefix="rs-standby-")
        Path(self._owned_socket_dir).chmod(0o777)
        return Path(self._owned_socket_dir)

    def stop(self) -> None:
        """Stop the standby server (its data directory stays)."""
        if self._socket_dir is None:
            return
        subprocess.run(
            [_bin("pg_ctl"), "-D", str(self._data_dir), "-w", "-m", "fast", "stop"],
            check=False,
            capture_output=True,
            timeout=60,
            **_as_system_user(),  # type: ignore[call-overload]
        )
        self._socket_dir = None
        if self._owned_socket_dir is not None:
            shutil.rmtree(self._owned_socket_dir, ignore_errors=True)
            self._owned_socket_dir = None

    def wait_streaming(self, timeout: float = 60.0) -> None:
        """Block until the standby's WAL receiver is streaming from the primary."""
        deadline = time.monotonic() + timeout
        while True:
            out = subprocess.run(
                [
                    _bin("psql"),
                    self.url,
                    "-Atc",
                    "SELECT status FROM pg_stat_wal_receiver",
                ],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
            if out.stdout.strip() == "streaming":
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"standby not streaming: {out.stdout!r} {out.stderr!r}")
            time.sleep(0.2)
