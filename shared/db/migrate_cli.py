"""`python -m shared.db.migrate_cli upgrade|wait|current`: schema management for deployments.

`upgrade` is what the Kubernetes migration Job runs; `wait` is the services' init container: it
blocks until the database is at this build's head and fails fast on an unknown revision.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from shared.config import load_settings
from shared.db.engine import create_engine
from shared.db.migrate import (
    SchemaMismatchError,
    current_revision,
    ensure_schema_current,
    head_revision,
    upgrade_to_head,
)

__all__ = ["main"]


async def _wait(url: str, limit_seconds: float, interval: float) -> int:
    engine = create_engine(url)
    try:
        async with asyncio.timeout(limit_seconds):
            while True:
                try:
                    await ensure_schema_current(engine)
                    return 0
                except SchemaMismatchError as error:
                    revision = await current_revision(engine)
                    if revision is not None and revision != head_revision():
                        print(error, file=sys.stderr)
                        return 2
                except OSError as error:
                    print(f"database not reachable yet: {error}", file=sys.stderr)
                await asyncio.sleep(interval)
    except TimeoutError:
        message = f"schema did not reach {head_revision()} within {limit_seconds:.0f}s"
        print(message, file=sys.stderr)
        return 1
    finally:
        await engine.dispose()


async def _current(url: str) -> int:
    engine = create_engine(url)
    try:
        print(await current_revision(engine) or "not migrated")
        return 0
    finally:
        await engine.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="migrate", description=__doc__)
    parser.add_argument("command", choices=("upgrade", "wait", "current"))
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds `wait` may block")
    args = parser.parse_args(argv)
    settings = load_settings()
    if settings.database_url is None:
        print("REMEMBERSTACK_DATABASE_URL is not set", file=sys.stderr)
        return 2
    if args.command == "upgrade":
        asyncio.run(upgrade_to_head(settings.database_url))
        print(f"schema at {head_revision()}")
        return 0
    if args.command == "wait":
        return asyncio.run(_wait(settings.database_url, args.timeout, 2.0))
    return asyncio.run(_current(settings.database_url))


if __name__ == "__main__":
    sys.exit(main())
