"""CPU priority of background work: the pipeline yields the CPU to reads on a shared machine.

On one machine (the embedded default, or a small deployment) the ingest and adjudicator
workers and the query service compete for the same cores; a read waits behind model
inference and entity resolution that could just as well run a moment later. A writing
service's process, and the PostgreSQL backends its connections run on when the database is
on the same machine, get a lower scheduling priority (`nice`): when reads want the CPU they get
it, and when they do not the pipeline has every core. Nothing waits on a lock because of it:
the scheduler still gives a niced process a share (about a tenth at nice 10 against 0).
"""

from __future__ import annotations

import ipaddress
import logging
import os
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.pool import Pool

from shared.db.backend_identity import backend_pid_and_address

__all__ = ["run_as_background_work"]

logger = logging.getLogger(__name__)


def _is_local(address: Any) -> bool:
    """Unix socket (no server address) or loopback: the backend runs on this machine."""
    if address is None:
        return True
    try:
        return ipaddress.ip_interface(str(address)).ip.is_loopback
    except ValueError:
        return False


def _renice_backend(niceness: int, dbapi_connection: Any) -> None:
    pid, address = backend_pid_and_address(dbapi_connection)
    if not _is_local(address):
        return
    try:
        # The pid must be a PostgreSQL process of this machine, never someone else's.
        if Path(f"/proc/{pid}/comm").read_text().strip() != "postgres":
            return
        os.setpriority(os.PRIO_PROCESS, int(pid), niceness)
    except OSError as error:
        # Not permitted (another user's server and no privilege): reads keep only the
        # process's own lower priority.
        logger.debug("cannot renice database backend %s: %s", pid, error)


def _on_connect(dbapi_connection: Any, _record: Any) -> None:
    # The process's own niceness is the one to give its backends (0: an ordinary process).
    niceness = os.getpriority(os.PRIO_PROCESS, 0)
    if niceness > 0:
        _renice_backend(niceness, dbapi_connection)


def run_as_background_work(niceness: int) -> None:
    """Lower this process's CPU priority to `niceness` (0 leaves it), and that of every
    local database backend it connects to from now on. Idempotent."""
    if niceness <= 0:
        return
    try:
        os.setpriority(os.PRIO_PROCESS, 0, niceness)
    except OSError as error:
        logger.warning("cannot lower the process priority to nice %d: %s", niceness, error)
        return
    if not event.contains(Pool, "connect", _on_connect):
        event.listen(Pool, "connect", _on_connect)
    logger.info("background work runs at nice %d (process and local database backends)", niceness)
