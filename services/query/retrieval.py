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
# scans; raise it for namespace-filtered searches and fall back to an exact scan when short.
_MAX_EF_SEARCH = 1000
_MIN_EF_SEARCH = 100
_QUERY_CANCELED = "57014"

# Tables with an embedding (HNSW) and a tsv (GIN) column.
SEARCHABLE = {"facts", "claims", "chunks"}


class BudgetExhausted(Exception):
    """The operation's database budget ran out; the read answers with a boundary negative."""


class Budget:
    """Wall-clock database budget of one operation, enforced with `statement_timeout`."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._deadline = time.monotonic() + seconds

    def remaining_ms(self) -> int:
        return int((self._deadline - time.monotonic()) * 1000)

    async def arm(self, conn: AsyncConnection) -> None:
        """Give the next statements only what is left of the budget."""
        remaining = self.remaining_ms()
        if remaining <= 0:
            raise BudgetExhausted
        await conn.execute(text(f"SET LOCAL statement_timeout = {max(remaining, 1)}"))


def is_query_canceled(error: DBAPIError) -> bool:
    """True when Postgres cancelled the statement for exceeding statement_timeout."""
    for candidate in (error.orig, getattr(error.orig, "__cause__", None)):
        code = getattr(candidate, "sqlstate", None) or getattr(candidate, "pgcode", None)
        if code == _QUERY_CANCELED:
            return True
    return False


@asynccontextmanager
async def read_snapshot(engine: AsyncEngine, budget: Budget) -> AsyncIterator[AsyncConnection]:
    """One repeatable-read, read-only transaction: every read of an operation sees one snapshot.

    Raises BudgetExhausted when a statement was cancelled by the budget.
    """
    try:
        async with engine.connect() as conn, conn.begin():
            await conn.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY"))
            await budget.arm(conn)
            yield conn
    except DBAPIError as error:
        if is_query_canceled(error):
            raise BudgetExhausted from error
        raise


def vector_literal(vector: npt.NDArray[np.float32] | Sequence[float]) -> str:
    """pgvector's text form, sent as text and cast in SQL (asyncpg has no vector codec)."""
    return "[" + ",".join(f"{float(x):.6f}" for x in vector) + "]"


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
    bind = {"ns": namespace, "qvec": query_vector, "lim": limit, **(params or {})}
    extra = f" AND ({where})" if where else ""
    base = f"SELECT t.id FROM {table} t WHERE t.namespace = :ns AND t.embedding IS NOT NULL{extra}"
    distance = "t.embedding <=> CAST(CAST(:qvec AS text) AS vector)"
    if not exact:
        ef = min(_MAX_EF_SEARCH, max(_MIN_EF_SEARCH, 2 * limit))
        await conn.execute(text(f"SET LOCAL hnsw.ef_search = {ef}"))
        rows = await conn.execute(text(f"{base} ORDER BY {distance} LIMIT :lim"), bind)
        ids = [row[0] for row in rows]
        if len(ids) >= limit:
            return ids
    # Adding zero hides the expression from the HNSW index, forcing an exact ordering.
    rows = await conn.execute(text(f"{base} ORDER BY ({distance}) + 0 LIMIT :lim"), bind)
    return [row[0] for row in rows]


async def lexical_channel(
    conn: AsyncConnection,
    table: str,
    namespace: str,
    query: str,
    limit: int,
    *,
    where: str = "",
    params: dict[str, Any] | None = None,
) -> list[UUID]:
    """Rows matching any query term, ranked by cover density (more and closer terms first).

    Natural-language questions rarely have every word in one passage, so the terms are OR-ed."""
    if table not in SEARCHABLE:
        raise ValueError(f"{table} has no search channels")
    bind = {"ns": namespace, "q": query, "lim": limit, **(params or {})}
    extra = f" AND ({where})" if where else ""
    sql = (
        "WITH q AS (SELECT to_tsquery('english',"
        " replace(plainto_tsquery('english', :q)::text, ' & ', ' | ')) AS tsq)"
        f" SELECT t.id FROM {table} t, q WHERE t.namespace = :ns AND t.tsv @@ q.tsq{extra}"
        " ORDER BY ts_rank_cd(t.tsv, q.tsq, 1) DESC, t.id LIMIT :lim"
    )
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
