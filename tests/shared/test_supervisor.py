"""Child processes are started, watched and stopped together; a child stops on SIGTERM."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from shared.supervisor import Supervisor

_SLEEPER = "import time; time.sleep(60)"
_STUBBORN = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"
_STOPPABLE = (
    "import asyncio, os\n"
    "from shared.supervisor import StopRequest\n"
    "async def main():\n"
    "    with StopRequest(os.getppid()) as stop:\n"
    "        print('waiting', flush=True)\n"
    "        await stop.wait()\n"
    "    print('stopped', flush=True)\n"
    "asyncio.run(main())\n"
)


async def test_stop_terminates_every_child_and_forgets_them() -> None:
    children = Supervisor()
    first = await children.spawn("a", [sys.executable, "-c", _SLEEPER], env=os.environ)
    second = await children.spawn("b", [sys.executable, "-c", _SLEEPER], env=os.environ)
    assert children.running() == ["a", "b"]
    await children.stop(grace_seconds=10)
    assert first.returncode is not None and second.returncode is not None
    assert children.processes == []


async def test_a_child_ignoring_sigterm_is_killed_after_the_grace_period() -> None:
    children = Supervisor()
    stubborn = await children.spawn("stubborn", [sys.executable, "-c", _STUBBORN], env=os.environ)
    await asyncio.sleep(0.5)  # let it install its handler
    await children.stop(grace_seconds=0.5)
    assert stubborn.returncode == -9


async def test_wait_for_exit_names_the_child_that_exited_first() -> None:
    children = Supervisor()
    await children.spawn("sleeper", [sys.executable, "-c", _SLEEPER], env=os.environ)
    await children.spawn("quitter", [sys.executable, "-c", "raise SystemExit(3)"], env=os.environ)
    try:
        assert await asyncio.wait_for(children.wait_for_exit(), 30) == "quitter"
        assert children.process("quitter").returncode == 3
        assert children.running() == ["sleeper"]
    finally:
        await children.stop(grace_seconds=10)


async def test_a_child_with_a_stop_request_ends_cleanly_on_sigterm(tmp_path: Path) -> None:
    children = Supervisor()
    log = tmp_path / "child.log"
    child = await children.spawn(
        "child", [sys.executable, "-c", _STOPPABLE], env=os.environ, log_path=log
    )
    for _ in range(200):
        if "waiting" in log.read_text():
            break
        await asyncio.sleep(0.05)
    await children.stop(grace_seconds=10)
    assert child.returncode == 0
    assert log.read_text().split() == ["waiting", "stopped"]
