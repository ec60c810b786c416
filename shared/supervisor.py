"""Child processes one parent starts, watches and stops together, and the child's side of it.

Two parents run children: `rememberstack up` (shared/cli/launcher.py) runs the four service
processes, and an adjudicator with `adjudicator_processes` > 1 runs worker-only replicas of
itself. Both stop their children the same way: SIGTERM to every one (each drains its work),
then SIGKILL to those still running after a grace period. A child started here ends on SIGTERM
or SIGINT, and ends by itself when its parent dies without stopping it (`StopRequest`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["DEFAULT_GRACE_SECONDS", "StopRequest", "Supervisor"]

logger = logging.getLogger(__name__)

DEFAULT_GRACE_SECONDS = 15.0
_ORPHAN_CHECK_SECONDS = 1.0


class Supervisor:
    """The named child processes of this process; nothing restarts them (a parent decides what
    a child's exit means: the launcher stops the whole system)."""

    def __init__(self) -> None:
        self._children: dict[str, asyncio.subprocess.Process] = {}

    @property
    def processes(self) -> list[asyncio.subprocess.Process]:
        """The children in start order (empty again once stopped)."""
        return list(self._children.values())

    def process(self, name: str) -> asyncio.subprocess.Process:
        return self._children[name]

    def running(self) -> list[str]:
        """Names of the children that have not exited."""
        return [name for name, process in self._children.items() if process.returncode is None]

    async def spawn(
        self,
        name: str,
        args: Sequence[str],
        *,
        env: Mapping[str, str],
        log_path: Path | None = None,
    ) -> asyncio.subprocess.Process:
        """Start `args` as child `name` with exactly `env`; its output goes to `log_path`
        (appended) when given, else to this process's own streams."""
        if name in self._children:
            raise ValueError(f"a child named {name!r} is already supervised")
        if log_path is None:
            process = await asyncio.create_subprocess_exec(*args, env=dict(env))
        else:
            log_path.parent.mkdir(parents=True, exist_ok=True)
            with log_path.open("ab") as log:
                process = await asyncio.create_subprocess_exec(
                    *args, env=dict(env), stdout=log, stderr=log
                )
        self._children[name] = process
        return process

    async def wait_for_exit(self) -> str:
        """Wait until any child exits; returns its name."""
        waits = {asyncio.create_task(p.wait()): name for name, p in self._children.items()}
        if not waits:
            raise RuntimeError("no child processes to wait for")
        try:
            done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in waits:
                task.cancel()
        return waits[done.pop()]

    async def stop(self, grace_seconds: float = DEFAULT_GRACE_SECONDS) -> None:
        """SIGTERM every child, wait up to `grace_seconds` for each, SIGKILL the rest."""
        for process in self._children.values():
            if process.returncode is None:
                process.terminate()
        for name, process in self._children.items():
            try:
                await asyncio.wait_for(process.wait(), grace_seconds)
            except TimeoutError:
                logger.warning(
                    "%s (pid %d) did not stop within %.0f s; killing it",
                    name,
                    process.pid,
                    grace_seconds,
                )
                process.kill()
                await process.wait()
        self._children.clear()


class StopRequest:
    """A child's reasons to stop, as one wait: SIGTERM or SIGINT, or its parent gone.

    A parent killed without a chance to stop its children leaves them orphaned: the new parent
    pid says so, and the child ends like on SIGTERM. The signal handlers are installed on
    entry, before the child starts its work, so a stop during start-up is graceful too; the
    parent pid is the one the child was started by (read it first thing). Use on the main
    thread's loop.
    """

    _SIGNALS = (signal.SIGTERM, signal.SIGINT)

    def __init__(self, parent_pid: int) -> None:
        self._parent_pid = parent_pid
        self._stop = asyncio.Event()

    def __enter__(self) -> StopRequest:
        loop = asyncio.get_running_loop()
        for sig in self._SIGNALS:
            loop.add_signal_handler(sig, self._stop.set)
        return self

    def __exit__(self, *_exc: object) -> None:
        loop = asyncio.get_running_loop()
        for sig in self._SIGNALS:
            loop.remove_signal_handler(sig)

    async def wait(self) -> None:
        """Return once a stop signal arrived or the parent is gone."""
        while not self._stop.is_set() and os.getppid() == self._parent_pid:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), _ORPHAN_CHECK_SECONDS)
