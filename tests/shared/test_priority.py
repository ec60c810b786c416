"""Background work yields the CPU: the process and its local database backends are niced."""

from __future__ import annotations

import subprocess
import sys

_CHILD = """
import asyncio, os, sys
from sqlalchemy import text
from shared.db.engine import create_engine
from shared.priority import run_as_background_work

run_as_background_work(int(sys.argv[2]))
run_as_background_work(int(sys.argv[2]))  # idempotent: one listener, same niceness

async def main():
    engine = create_engine(sys.argv[1])
    async with engine.connect() as conn:
        pid = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar()
        print(os.getpriority(os.PRIO_PROCESS, 0), os.getpriority(os.PRIO_PROCESS, pid))
    await engine.dispose()

asyncio.run(main())
"""


def _niceness(database_url: str, niceness: int) -> list[int]:
    # A child process: lowering the test process's own priority would outlive the test.
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, database_url, str(niceness)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return [int(x) for x in done.stdout.split()]


def test_background_work_nices_process_and_its_local_database_backends(database_url: str) -> None:
    assert _niceness(database_url, 7) == [7, 7]


def test_background_niceness_zero_leaves_priorities_alone(database_url: str) -> None:
    assert _niceness(database_url, 0) == [0, 0]
