"""The nomination channels of claims and chunks: nearest vectors (HNSW) and BM25 (GIN).

Each returns ids best first; hydration re-reads them from the authority tables
(sql/claims.py). A channel restricted to the entities a request names ranks exactly: the
restriction, not the index, decides the candidate set.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

import numpy as np
import numpy.typing as npt
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from services.query.sql.collection_sizes import CollectionSizes
from services.query.sql.snapshot import ef_search_for, use_ef_search

__all__ = [
    "BM25_B",
    "BM25_K1",
    "LEXICAL_RANKED_ROWS",
    "LEXICAL_TERM_ROW_CAP",
    "QVEC",
    "TSQUERY",
    "bm25_channel",
    "nearest_sql",
    "nominating",
    "query_terms",
    "selective_tsquery",
    "vector_channel",
    "vector_literal",
]

BM25_K1 = 1.2
BM25_B = 0.5
_LEXICAL_TABLES = frozenset({"claims", "chunks"})

# Tables with an embedding (HNSW) and a tsv (GIN) column.
SEARCHABLE = {"facts", "claims", "chunks"}

# Query terms OR-ed: natural-language questions rarely have every word in one passage.
TSQUERY = "to_tsquery('english', replace(plainto_tsquery('english', :q)::text, ' & ', ' | '))"


# Estimated matching rows the query's selective terms may bring in, rarest first; the pairs
# of common terms have a budget of their own of the same size. At 1M facts (4-word queries,
# bench/query_latency's store) 5,000 kept 98 % of exact BM25's top 50 claims and 79 % of its
# chunks (10,000: all of both) for 0.7-0.9x the time; 2,500 kept 79 % and 58 % for 0.5x.
LEXICAL_TERM_ROW_CAP = 5_000
# Matching rows a lexical channel ranks at most: estimates lag the table, and when even the
# rarest term is common the rows past this many (in scan order) are left to the vector
# channel.
LEXICAL_RANKED_ROWS = 2 * LEXICAL_TERM_ROW_CAP


def query_terms(table: str, rows: str = "CAST(:lexn AS float8)") -> str:
    """The query's lexemes (`:q`) as rows `(lexeme, f, n, selective)`: `f` is the share of
    `table`'s rows the planner's statistics give the lexeme (`most_common_elems` of the tsv
    column; for one not among them, half the least frequency listed, as the planner's own
    tsquery estimate takes it; 0 before the first ANALYZE), and `selective` marks the rarest
    lexemes while the rows they are estimated to match in the namespace (f times `rows`, the
    SQL of its row count, `n`) add up to at most `:lexcap`; the rarest is always selective. A
    namespace of up to `:lexcap` rows keeps every term, whatever other tenants store.

    Taking an unlisted lexeme as matching no rows kept every term of a 4-word query selective
    at 1M facts, where a word outside the 1,000 listed still matched ~1,600 claims: the match
    set then reached the row cap and was cut in scan order, not by what the terms cost.

    A term in a fifth of a million-row table matches 200,000 rows, and ranking a row costs
    microseconds: such terms should only score the rows the selective terms match (as Lucene's
    common-terms query does), and nominate only in pairs (`nominating`). Stores of up to about
    100,000 rows keep nearly every term selective. Statistics come from ANALYZE, which
    autovacuum and `shared/db/statistics.py` keep fresh."""
    if table not in SEARCHABLE:
        raise ValueError(f"not a searchable table: {table}")
    return (
        "(SELECT v.lexeme, v.f, v.n, (sum(v.f) OVER (ORDER BY v.f, v.lexeme) * v.n <= :lexcap"
        " OR v.n <= :lexcap OR row_number() OVER (ORDER BY v.f, v.lexeme) = 1) AS selective"
        f" FROM (SELECT ql.lexeme, coalesce(s.freqs[array_position(s.elems, ql.lexeme)],"
        f" s.freqs[cardinality(s.elems) + 1] / 2, 0) AS f, {rows} AS n"
        " FROM unnest(tsvector_to_array(to_tsvector('english', :q))) ql(lexeme)"
        " LEFT JOIN (SELECT s.most_common_elems::text::text[] AS elems,"
        " s.most_common_elem_freqs AS freqs FROM pg_stats s"
        f" WHERE s.schemaname = current_schema() AND s.tablename = '{table}'"
        " AND s.attname = 'tsv') s ON true) v)"
    )


def nominating(terms: str) -> str:
    """The tsquery that nominates rows, from the `query_terms` relation named `terms`: its
    selective lexemes OR-ed (as `TSQUERY`), and pairs of its common ones AND-ed, the least
    frequent pairs first while their estimated rows (f_a * f_b * n, as if independent) add up
    to at most `:lexcap`. Empty without any.

    A row holding two common query terms and none of the selective ones is what a lower cap
    would lose (BM25 ranks it above most rows holding one term), and GIN evaluates the AND
    inside the index, so such a pair costs only the rows that hold both."""
    return (
        "coalesce((SELECT string_agg(x.tsq, ' | ') FROM ("
        f"SELECT quote_literal(t.lexeme) AS tsq FROM {terms} t WHERE t.selective"
        " UNION ALL SELECT p.tsq FROM (SELECT quote_literal(a.lexeme) || ' & '"
        " || quote_literal(b.lexeme) AS tsq, sum(a.f * b.f * a.n) OVER (ORDER BY a.f * b.f,"
        f" a.lexeme, b.lexeme) AS est FROM {terms} a JOIN {terms} b ON a.lexeme < b.lexeme"
        " WHERE NOT a.selective AND NOT b.selective) p WHERE p.est <= :lexcap) x),"
        " '')::tsquery"
    )


def selective_tsquery(table: str) -> str:
    """The query's nominating tsquery over `table` (`nominating`). `ts_rank_cd` weighs every
    term alike, so a common term alone ranks nothing the rarer ones do not: two terms in one
    fact of a hundred made one FactsContext at 1M facts 130 ms."""
    return f"(WITH t AS MATERIALIZED {query_terms(table)} SELECT {nominating('t')})"


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
    mentioning: Sequence[UUID] = (),
) -> list[UUID]:
    """Nearest rows by cosine distance. Uses HNSW unless restricted to `mentioning` (rows about
    those entities, ranked exactly); short HNSW answers (a small namespace inside a large
    shared index) are completed by an exact scan of the namespace."""
    if table not in SEARCHABLE:
        raise ValueError(f"{table} has no search channels")
    where, params = _mentioning(table, mentioning)
    exact = bool(where)
    ef = ef_search_for(limit)
    bind = {"ns": namespace, "qvec": query_vector, "lim": limit, "ef": ef, **params}
    condition = "t.namespace = :ns" + (f" AND ({where})" if where else "")
    if not exact:
        await use_ef_search(conn, ef)
    sql = nearest_sql(table, "t.id", condition, ann=not exact, filtered=bool(where))
    rows = await conn.execute(text(sql), bind)
    return [row[0] for row in rows]


# Restricts a claims channel (alias `t`, binds :ns and :ents) to claims resolved to entities.
_CLAIM_MENTIONS = (
    "t.id IN (SELECT a.claim_id FROM assertions a WHERE a.namespace = :ns"
    " AND (a.subject_entity_id = ANY(CAST(:ents AS uuid[]))"
    " OR a.object_entity_id = ANY(CAST(:ents AS uuid[])))"
    " UNION SELECT rv.claim_id FROM resolution_verdicts rv WHERE rv.namespace = :ns"
    " AND rv.chosen_entity_id = ANY(CAST(:ents AS uuid[])) AND rv.claim_id IS NOT NULL)"
)
# A chunks channel (alias `t`) restricted to chunks holding claims about the entities.
_CHUNK_MENTIONS = (
    "t.id IN (SELECT t.chunk_id FROM claims t WHERE t.namespace = :ns AND " + _CLAIM_MENTIONS + ")"
)
_MENTIONS = {"claims": _CLAIM_MENTIONS, "chunks": _CHUNK_MENTIONS}


def _mentioning(table: str, entity_ids: Sequence[UUID]) -> tuple[str, dict[str, Any]]:
    """A channel over `table` restricted to rows about `entity_ids` (none: unrestricted)."""
    if not entity_ids:
        return "", {}
    return _MENTIONS[table], {"ents": list(entity_ids)}


# Okapi BM25 over the rows the nominating tsquery matches (`nominating`: any selective query
# lexeme, or two common ones together): the common lexemes add their scores to those rows but
# nominate none on their own. A selective lexeme's document frequency is exact: every row
# holding it is in the match set, so counting the set's rows per lexeme gives the namespace's
# (unless the set reached `:lexrows`); a common one's is the larger of that count and its
# statistics share of the collection. The collection size is one count, and the mean length
# is the match set's (a bounded stand-in for the namespace mean). Lengths are distinct lexemes
# (`length(tsvector)`). A row's query lexemes (with their
# positions, for tf) are cut out of its tsvector in C: weight A is set on them and everything
# else filtered out, instead of unnesting every lexeme of every matching row (560k rows for a
# 4-word query over 200k chunks: 650 of 1,100 ms); IDF is computed once per lexeme. The cut
# and the length are taken as the match set is read, so it keeps only those: keeping whole
# tsvectors (~1 kB a chunk) wrote 9,400 matched chunks to a temporary file, read twice.
_BM25_SQL = """
WITH terms AS MATERIALIZED (SELECT * FROM {terms} t),
q AS (SELECT {nominating} AS tsq, (SELECT array_agg(lexeme) FROM terms) AS lexemes),
m AS MATERIALIZED (
  SELECT t.id, length(t.tsv) AS dl, ts_filter(setweight(t.tsv, 'A', q.lexemes), '{{a}}') AS qtsv
  FROM {table} t, q WHERE t.namespace = :ns AND t.tsv @@ q.tsq{extra}
  LIMIT :lexrows),
hits AS MATERIALIZED (
  SELECT m.id, u.lexeme, coalesce(cardinality(u.positions), 1) AS tf, m.dl
  FROM m CROSS JOIN LATERAL unnest(m.qtsv) u),
size AS (
  SELECT {collection_size} AS n, (SELECT greatest(avg(m.dl), 1) FROM m) AS avgdl),
idf AS (
  SELECT d.lexeme, ln(1 + greatest(size.n - d.df + 0.5, 0.5) / (d.df + 0.5)) AS idf
  FROM (SELECT h.lexeme, CASE WHEN tm.selective THEN count(*)
               ELSE greatest(count(*), tm.f * (SELECT n FROM size)) END AS df
        FROM hits h JOIN terms tm USING (lexeme) GROUP BY h.lexeme, tm.selective, tm.f) d
  CROSS JOIN size)
SELECT h.id FROM hits h JOIN idf USING (lexeme) CROSS JOIN size
CROSS JOIN (SELECT CAST(:k1 AS float8) AS k1, CAST(:b AS float8) AS b) p
GROUP BY h.id
ORDER BY sum(idf.idf
  * h.tf * (p.k1 + 1) / (h.tf + p.k1 * (1 - p.b + p.b * h.dl / size.avgdl))) DESC, h.id
LIMIT :lim
"""


async def bm25_channel(
    conn: AsyncConnection,
    table: str,
    namespace: str,
    query: str,
    limit: int,
    *,
    mentioning: Sequence[UUID] = (),
    sizes: CollectionSizes | None = None,
) -> list[UUID]:
    """Rows of `table` (alias `t`) matching any query term, best BM25 score first.

    Unlike cover density, a term found in few rows of the namespace outweighs one found in
    many, so "adoption agencies" beats the speaker's name that occurs in half the rows.
    `sizes` supplies the namespace's row count (N) when the channel is not restricted to the
    rows `mentioning` entities (whose N is that subset's)."""
    if table not in _LEXICAL_TABLES:
        raise ValueError(f"{table} has no BM25 channel")
    where, params = _mentioning(table, mentioning)
    extra = f" AND ({where})" if where else ""
    collection_size = f"(SELECT count(*) FROM {table} t WHERE t.namespace = :ns{extra})"
    size_bind: dict[str, int] = {}
    if sizes is not None and not where:
        collection_size = "CAST(:n AS bigint)"
        size_bind["n"] = await sizes.size(conn, table, namespace)
    terms = query_terms(table, collection_size)
    sql = _BM25_SQL.format(
        terms=terms,
        nominating=nominating("terms"),
        table=table,
        extra=extra,
        collection_size=collection_size,
    )
    bind = {
        "ns": namespace,
        "q": query,
        "lim": limit,
        "k1": BM25_K1,
        "b": BM25_B,
        "lexcap": LEXICAL_TERM_ROW_CAP,
        "lexrows": LEXICAL_RANKED_ROWS,
        **size_bind,
        **params,
    }
    rows = await conn.execute(text(sql), bind)
    return [row[0] for row in rows]
