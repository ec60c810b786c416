"""Read snapshots with a database budget, the two nomination channels and reciprocal-rank fusion."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any
from uuid import UUID

import numpy as np
import numpy.typing as npt
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from services.query.domain import RRF_CONSTANT

# pgvector 0.6 HNSW scans return at most ef_search rows before filters, and has no iterative
# scans: searches over-fetch ef_search rows from the index, filter them by namespace, and fall
# back to an exact scan of the namespace when the filtered answer is short.
_MAX_EF_SEARCH = 1000
_MIN_EF_SEARCH = 100
_QUERY_CANCELED = "57014"
_EF_KEY = "rememberstack.hnsw_ef_search"
# See read_snapshot: plans made for each execution's values.
PLAN_CACHE_MODE = "force_custom_plan"

# Tables with an embedding (HNSW) and a tsv (GIN) column.
SEARCHABLE = {"facts", "claims", "chunks"}

# Query terms OR-ed: natural-language questions rarely have every word in one passage.
TSQUERY = "to_tsquery('english', replace(plainto_tsquery('english', :q)::text, ' & ', ' | '))"


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


def vector_literal(vector: npt.NDArray[np.float32] | Sequence[float]) -> str:
    """pgvector's text form, sent as text and cast in SQL (asyncpg has no vector codec)."""
    return "[" + ",".join(f"{float(x):.6f}" for x in vector) + "]"


QVEC = "CAST(CAST(:qvec AS text) AS vector)"


def nearest_sql(
    table: str, columns: str, where: str, *, ann: bool = True, filtered: bool = True
) -> str:
    """Rows of `table` (alias `t`) nearest :qvec with their distance `d`, best first, at most
    :lim, in one statement: an HNSW over-fetch of :ef rows filtered by `where`, and an exact
    scan that runs only when the filtered index answer is short (or always, without `ann`)."""
    distance = f"t.embedding <=> {QVEC}"
    exact = (
        f"SELECT {columns}, {distance} AS d FROM {table} t WHERE t.embedding IS NOT NULL"
        f" AND {where}"
    )
    if not ann:
        return f"{exact} ORDER BY ({distance}) + 0, t.id LIMIT :lim"
    # Without an extra filter only the namespace is needed: keep the over-fetch narrow.
    fetched = "t.*" if filtered else "t.id, t.namespace"
    # Adding zero hides the expression from the HNSW index, forcing an exact ordering.
    return (
        f"WITH ann AS MATERIALIZED (SELECT * FROM (SELECT {fetched}, {distance} AS d"
        f" FROM {table} t ORDER BY {distance} LIMIT :ef) t WHERE {where} ORDER BY t.d LIMIT :lim)"
        f" SELECT * FROM (SELECT {columns}, t.d FROM ann t"
        " WHERE (SELECT count(*) FROM ann) >= :lim"
        f" UNION ALL SELECT * FROM ({exact} AND (SELECT count(*) FROM ann) < :lim"
        f" ORDER BY ({distance}) + 0 LIMIT :lim) x) u ORDER BY u.d, u.id"
    )


async def vector_channel(
    conn: AsyncConnection,
    table: str,
    namespace: str,
    query_vector: str,
    limit: int,
    *,
    where: str = "",
    params: dict[str, Any] | None = None,
    exact: bool = False,
) -> list[UUID]:
    """Nearest rows by cosine distance. Uses HNSW unless `exact`; short HNSW answers (a small
    namespace inside a large shared index) are completed by an exact scan of the namespace."""
    if table not in SEARCHABLE:
        raise ValueError(f"{table} has no search channels")
    ef = ef_search_for(limit)
    bind = {"ns": namespace, "qvec": query_vector, "lim": limit, "ef": ef, **(params or {})}
    condition = "t.namespace = :ns" + (f" AND ({where})" if where else "")
    if not exact:
        await use_ef_search(conn, ef)
    sql = nearest_sql(table, "t.id", condition, ann=not exact, filtered=bool(where))
    rows = await conn.execute(text(sql), bind)
    return [row[0] for row in rows]


def rrf(
    rankings: Sequence[Sequence[UUID]], constant: int = RRF_CONSTANT
) -> list[tuple[UUID, float]]:
    """Reciprocal-rank fusion: sum of 1/(constant + rank) over the lists naming an id."""
    scores: dict[UUID, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (constant + rank)
    return sorted(scores.items(), key=lambda pair: (-pair[1], str(pair[0])))


def single_channel_scores(ranking: Sequence[UUID]) -> list[tuple[UUID, float]]:
    """Scores for one channel on the same scale as fusion, so callers treat both alike."""
    return [(item, 1.0 / (RRF_CONSTANT + rank)) for rank, item in enumerate(ranking, start=1)]
