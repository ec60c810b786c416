"""Read snapshots: one repeatable-read transaction per operation under its database budget."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

# pgvector 0.6 HNSW scans return at most ef_search rows before filters, and has no iterative
# scans: searches over-fetch ef_search rows from the index, filter them by namespace, and fall
# back to an exact scan of the namespace when the filtered answer is short.
_MAX_EF_SEARCH = 1000
_MIN_EF_SEARCH = 100
_QUERY_CANCELED = "57014"
_EF_KEY = "rememberstack.hnsw_ef_search"
# See read_snapshot: plans made for each execution's values.
PLAN_CACHE_MODE = "force_custom_plan"


class BudgetExhausted(Exception):
    """The operation's database budget ran out; the read answers with a boundary negative."""


class Budget:
    """Wall-clock database budget of one operation, enforced with `statement_timeout`."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._deadline = time.monotonic() + seconds

    def remaining_ms(self) -> int:
        """What is left of the budget; BudgetExhausted when nothing is."""
        remaining = int((self._deadline - time.monotonic()) * 1000)
        if remaining <= 0:
            raise BudgetExhausted
        return remaining


def ef_search_for(limit: int) -> int:
    """The HNSW candidate list a search for `limit` rows over-fetches."""
    return min(_MAX_EF_SEARCH, max(_MIN_EF_SEARCH, 2 * limit))


async def use_ef_search(conn: AsyncConnection, ef: int) -> None:
    """Set hnsw.ef_search for the rest of the transaction, skipping the round trip when set."""
    if conn.info.get(_EF_KEY) == ef:
        return
    await conn.execute(text("SELECT set_config('hnsw.ef_search', :ef, true)"), {"ef": str(ef)})
    conn.info[_EF_KEY] = ef


def is_query_canceled(error: DBAPIError) -> bool:
    """True when Postgres cancelled the statement for exceeding statement_timeout."""
    for candidate in (error.orig, getattr(error.orig, "__cause__", None)):
        code = getattr(candidate, "sqlstate", None) or getattr(candidate, "pgcode", None)
        if code == _QUERY_CANCELED:
            return True
    return False


@asynccontextmanager
async def read_snapshot(
    engine: AsyncEngine, budget: Budget, *, ef_search: int = _MIN_EF_SEARCH
) -> AsyncIterator[AsyncConnection]:
    """One repeatable-read, read-only transaction: every read of an operation sees one snapshot.

    BEGIN carries the isolation level, and one statement sets the budget and the HNSW search
    width, so a read starts in two round trips. Parallel plans are off: worker start-up costs
    more than these bounded reads gain, and a guarded exact-scan fallback would start workers
    even when it never runs. JIT is off for the same reason: the never-run fallback's cost
    estimate grows with the table and crosses `jit_above_cost` on large stores, and compiling
    costs more than any of these reads. Plans are made for each execution's values: asyncpg
    prepares every statement once per connection, and after five runs PostgreSQL may keep a
    generic plan; FactsContext at 1M facts ran p50 187 ms on kept plans against 157 ms planned
    for the actual query (requests alternated in one process, bench store of 1M facts).
    Raises BudgetExhausted when a statement was cancelled by the budget.
    """
    try:
        async with engine.connect() as plain:
            conn = await plain.execution_options(
                isolation_level="REPEATABLE READ", postgresql_readonly=True
            )
            async with conn.begin():
                await conn.execute(
                    text(
                        "SELECT set_config('statement_timeout', :timeout, true),"
                        " set_config('hnsw.ef_search', :ef, true),"
                        " set_config('max_parallel_workers_per_gather', '0', true),"
                        " set_config('jit', 'off', true),"
                        " set_config('plan_cache_mode', :plans, true)"
                    ),
                    {
                        "timeout": str(budget.remaining_ms()),
                        "ef": str(ef_search),
                        "plans": PLAN_CACHE_MODE,
                    },
                )
                conn.info[_EF_KEY] = ef_search
                try:
                    yield conn
                finally:
                    conn.info.pop(_EF_KEY, None)
    except DBAPIError as error:
        if is_query_canceled(error):
            raise BudgetExhausted from error
        raise
