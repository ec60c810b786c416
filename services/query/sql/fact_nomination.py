"""FactsContext nomination and hydration, one statement per path.

Namespace path: the lexical (GIN), vector (HNSW over-fetch) and entity-profile (HNSW) channels
nominate inside one statement, which also re-reads every candidate from the authority table
with the scope predicate; candidates that no longer qualify come back without a fact and are
counted as dropped by hydration.

Anchor path: facts touching the anchor set are ranked exactly inside one candidate pool, in one
statement: the structural, vector and lexical orders are window functions over the same rows.
The pool holds up to `per_entity` qualifying facts per entity and direction (all of them for
ordinary entities; an index-order sample of a hub's), plus the facts of the set that the HNSW
over-fetch and the GIN index find, so a hub's most relevant facts still compete.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.engine import Row
from sqlalchemy.ext.asyncio import AsyncConnection

from services.query.domain import FactView
from services.query.sql.channels import (
    LEXICAL_RANKED_ROWS,
    LEXICAL_TERM_ROW_CAP,
    QVEC,
    TSQUERY,
    selective_tsquery,
)
from services.query.sql.facts import FACT_COLUMNS, FACT_FROM, fact_from_row
from services.query.sql.snapshot import ef_search_for, use_ef_search
from services.query.sql.time_scope import fact_scope_clause
from shared.timescope import TimeScope

__all__ = ["Nominated", "nominate_in_namespace", "nominate_in_set"]

# Facts read per profile-matched entity before ordering: bounds the work a hub can cost.
_PROFILE_SCAN = 1000
_IN_SET = (
    "({a}.subject_entity_id = ANY(CAST(:ents AS uuid[]))"
    " OR {a}.object_entity_id = ANY(CAST(:ents AS uuid[])))"
)


@dataclass
class Nominated:
    """Channel rankings (best first) and the re-read rows of the candidates that qualify, by
    id. Rows become FactViews only when asked: most candidates are never returned, and
    building a view costs more than the row itself."""

    rankings: list[list[UUID]] = field(default_factory=list)
    rows: dict[UUID, Row[Any]] = field(default_factory=dict)

    @property
    def candidates(self) -> int:
        return len({item for ranking in self.rankings for item in ranking})

    def qualifies(self, item: UUID) -> bool:
        return item in self.rows

    def view(self, item: UUID) -> FactView:
        return fact_from_row(self.rows[item])


def _rankings(ranks: dict[str, list[tuple[int, UUID]]], channels: list[str]) -> list[list[UUID]]:
    return [[item for _, item in sorted(ranks.get(ch, []))] for ch in channels]


async def nominate_in_namespace(
    conn: AsyncConnection,
    namespace: str,
    query: str,
    query_vector: str | None,
    predicate: str | None,
    scope: TimeScope,
    params: dict[str, Any],
    pool: int,
    profile_entities: int,
    namespace_facts: int,
) -> Nominated:
    """Lexical, vector and profile channels over the namespace, hydrated in the same statement.
    `namespace_facts` (its row count) prices the query's terms (`selective_tsquery`)."""
    pred = " AND t.predicate = :pred" if predicate else ""
    ef = ef_search_for(pool)
    ctes = [
        f"q AS (SELECT {selective_tsquery('facts')} AS tsq)",
        "lex AS (SELECT 'l' AS ch, s.id, row_number() OVER (ORDER BY s.score DESC, s.id) AS r"
        " FROM (SELECT t.id, ts_rank_cd(t.tsv, q.tsq, 1) AS score FROM (SELECT t.id, t.tsv"
        f" FROM facts t, q WHERE t.namespace = :ns AND t.tsv @@ q.tsq{pred} LIMIT :lexrows) t, q"
        " ORDER BY score DESC, t.id LIMIT :pool) s)",
    ]
    channels = ["l"]
    parts = ["SELECT * FROM lex"]
    if query_vector is not None:
        await use_ef_search(conn, ef)
        distance = f"t.embedding <=> {QVEC}"
        profile = f"t.profile_embedding <=> {QVEC}"
        live = "t.namespace = :ns AND t.redirect_to IS NULL"
        ctes += [
            # HNSW over-fetch, namespace filter after, exact scan only when that came up short.
            f"vann AS MATERIALIZED (SELECT t.id, t.d FROM (SELECT t.id, t.namespace, t.predicate,"
            f" {distance} AS d FROM facts t ORDER BY {distance} LIMIT :ef) t"
            f" WHERE t.namespace = :ns{pred} ORDER BY t.d LIMIT :pool)",
            "vec AS (SELECT 'v' AS ch, u.id, row_number() OVER (ORDER BY u.d, u.id) AS r FROM ("
            " SELECT * FROM vann WHERE (SELECT count(*) FROM vann) >= :pool UNION ALL"
            f" SELECT * FROM (SELECT t.id, {distance} AS d FROM facts t WHERE t.namespace = :ns"
            f" AND t.embedding IS NOT NULL{pred} AND (SELECT count(*) FROM vann) < :pool"
            f" ORDER BY ({distance}) + 0 LIMIT :pool) x) u)",
            f"pann AS MATERIALIZED (SELECT t.id, t.d FROM (SELECT t.id, t.namespace,"
            f" t.redirect_to, {profile} AS d FROM entities t ORDER BY {profile} LIMIT :ef) t"
            f" WHERE {live} ORDER BY t.d LIMIT :pk)",
            "prof AS (SELECT u.id, row_number() OVER (ORDER BY u.d, u.id) AS pos FROM ("
            " SELECT * FROM pann WHERE (SELECT count(*) FROM pann) >= :pk UNION ALL"
            f" SELECT * FROM (SELECT t.id, {profile} AS d FROM entities t WHERE {live}"
            " AND t.profile_embedding IS NOT NULL AND (SELECT count(*) FROM pann) < :pk"
            f" ORDER BY ({profile}) + 0 LIMIT :pk) x) u)",
            "pf AS (SELECT 'p' AS ch, s.id, row_number() OVER (ORDER BY s.pos, s.evidence_count"
            " DESC, s.ingested_at DESC, s.id) AS r FROM (SELECT p.pos, b.* FROM prof p, LATERAL"
            " (SELECT a.id, a.evidence_count, a.ingested_at FROM (SELECT t.id, t.evidence_count,"
            f" t.ingested_at FROM facts t WHERE t.namespace = :ns AND t.subject_entity_id = p.id"
            f"{pred} LIMIT :scan) a ORDER BY a.evidence_count DESC, a.ingested_at DESC, a.id"
            " LIMIT :pool) b ORDER BY p.pos, b.evidence_count DESC, b.ingested_at DESC, b.id"
            " LIMIT :pool) s)",
        ]
        channels = ["v", "l", "p"]
        parts += ["SELECT * FROM vec", "SELECT * FROM pf"]
    ctes.append(
        "cand AS (SELECT id, array_agg(ch) AS chs, array_agg(r) AS rs FROM ("
        + " UNION ALL ".join(parts)
        + ") c GROUP BY id)"
    )
    sql = (
        "WITH "
        + ", ".join(ctes)
        + " SELECT c.id AS cand_id, c.chs, c.rs, h.* FROM cand c LEFT JOIN LATERAL"
        f" (SELECT {FACT_COLUMNS}{FACT_FROM} WHERE f.id = c.id AND f.namespace = :ns"
        f" AND {fact_scope_clause(scope)}) h ON true"
    )
    bind = {
        **params,
        "ns": namespace,
        "q": query,
        "pool": pool,
        "pred": predicate,
        "qvec": query_vector,
        "ef": ef,
        "pk": profile_entities,
        "scan": _PROFILE_SCAN,
        "lexcap": LEXICAL_TERM_ROW_CAP,
        "lexrows": LEXICAL_RANKED_ROWS,
        "lexn": namespace_facts,
    }
    rows = await conn.execute(text(sql), bind)
    ranks: dict[str, list[tuple[int, UUID]]] = {}
    result = Nominated()
    for row in rows:
        for ch, rank in zip(row.chs, row.rs, strict=True):
            ranks.setdefault(ch, []).append((rank, row.cand_id))
        if row.id is not None:
            result.rows[row.id] = row
    result.rankings = _rankings(ranks, channels)
    return result


async def nominate_in_set(
    conn: AsyncConnection,
    namespace: str,
    hops: dict[UUID, int],
    query: str,
    query_vector: str | None,
    predicate: str | None,
    scope: TimeScope,
    params: dict[str, Any],
    pool: int,
    per_entity: int,
) -> Nominated:
    """Qualifying facts touching the entity set, ranked exactly inside the candidate pool.

    With a query: by cosine distance, by text rank over rows matching any term, and by
    structure; without: by structure only (nearest hop, evidence count, most recently learned)."""
    pred = " AND f.predicate = :pred" if predicate else ""
    qualifies = f"f.namespace = :ns AND {fact_scope_clause(scope)}{pred}"
    sources = [
        f"SELECT s.id FROM ents e, LATERAL (SELECT f.id FROM facts f WHERE {qualifies}"
        f" AND f.{column} = e.id LIMIT :per) s"
        for column in ("subject_entity_id", "object_entity_id")
    ]
    ctes = ["ents(id, hop) AS (SELECT * FROM unnest(CAST(:ents AS uuid[]), CAST(:hops AS int[])))"]
    scores = [
        "(SELECT min(e.hop) FROM ents e WHERE e.id IN (f.subject_entity_id, f.object_entity_id))"
        " AS hop"
    ]
    windows = [
        "row_number() OVER (ORDER BY s.hop, s.evidence_count DESC, s.ingested_at DESC, s.id)"
        " AS r_struct"
    ]
    channels = ["struct"]
    from_q = ""
    ef = ef_search_for(pool)
    if query_vector is not None:
        await use_ef_search(conn, ef)
        distance = f"t.embedding <=> {QVEC}"
        sources.append(
            f"SELECT t.id FROM (SELECT t.id, t.namespace, t.subject_entity_id, t.object_entity_id"
            f" FROM facts t ORDER BY {distance} LIMIT :ef) t"
            f" WHERE t.namespace = :ns AND {_IN_SET.format(a='t')}"
        )
        scores.append(f"f.embedding <=> {QVEC} AS dist")
        windows.append(
            "CASE WHEN s.dist IS NOT NULL THEN row_number() OVER"
            " (ORDER BY s.dist NULLS LAST, s.id) END AS r_vec"
        )
        channels.append("vec")
    if query:
        ctes.append(f"q AS (SELECT {TSQUERY} AS tsq)")
        sources.append(
            "SELECT t.id FROM facts t, q WHERE t.namespace = :ns AND t.tsv @@ q.tsq"
            f" AND {_IN_SET.format(a='t')}"
        )
        scores.append("CASE WHEN f.tsv @@ q.tsq THEN ts_rank_cd(f.tsv, q.tsq, 1) END AS lex")
        windows.append(
            "CASE WHEN s.lex IS NOT NULL THEN row_number() OVER"
            " (ORDER BY s.lex DESC NULLS LAST, s.id) END AS r_lex"
        )
        channels.append("lex")
        from_q = ", q"
    ctes.append("cand AS (" + " UNION ".join(sources) + ")")
    ctes.append(
        # Materialized so the three window sorts move narrow rows, not embeddings and tsvs.
        f"scored AS MATERIALIZED (SELECT {FACT_COLUMNS}, {', '.join(scores)}{FACT_FROM}{from_q}"
        f" WHERE f.id IN (SELECT id FROM cand) AND {qualifies})"
    )
    ranked = f"SELECT s.*, {', '.join(windows)} FROM scored s"
    keep = " OR ".join(f"r.r_{ch} <= :pool" for ch in channels)
    sql = "WITH " + ", ".join(ctes) + f" SELECT * FROM ({ranked}) r WHERE {keep}"
    bind = {
        **params,
        "ns": namespace,
        "ents": list(hops),
        "hops": list(hops.values()),
        "pred": predicate,
        "per": per_entity,
        "pool": pool,
        "ef": ef,
        "qvec": query_vector,
        "q": query,
    }
    rows = await conn.execute(text(sql), bind)
    ranks: dict[str, list[tuple[int, UUID]]] = {}
    result = Nominated()
    for row in rows:
        mapping = row._mapping
        fact_id = mapping["id"]
        result.rows[fact_id] = row
        for ch in channels:
            rank = mapping[f"r_{ch}"]
            if rank is not None and rank <= pool:
                ranks.setdefault(ch, []).append((rank, fact_id))
    # Relevance leads when there is a query; the structural order then only breaks ties.
    order = [ch for ch in ("vec", "lex") if ch in channels] + ["struct"]
    result.rankings = _rankings(ranks, order)
    return result
