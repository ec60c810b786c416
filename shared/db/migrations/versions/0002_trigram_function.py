"""Alias trigram search as a plpgsql function whose plan is made once per connection.

The search (see `shared/entities/trigram_search.py`) binds arrays whose contents the planner
cannot see into: the trigrams are ranked inside the statement. A custom plan per execution
therefore buys nothing, yet PostgreSQL kept choosing one for small namespaces, and planning
the statement cost twice its execution (2.2 ms against 1.0 ms per search at 1,000 aliases).
Inside this function the statement runs with `plan_cache_mode = force_generic_plan`: plpgsql
keeps the plan for the connection's lifetime. At 100k aliases, where PostgreSQL already chose
the generic plan, nothing changes.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

# The statement and its plan are described in trigram_search.py; `p_` arguments in place of
# its binds, and the matching aliases' ids, best first, in place of their columns.
_CREATE = r"""
CREATE FUNCTION alias_trigram_matches(
    p_ns text, p_grams text[], p_cap int, p_q int, p_shortest int, p_max_len int[],
    p_need int[], p_cut int[], p_overlap int[], p_probe_max int, p_limit int
) RETURNS SETOF uuid
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
AS $fn$
BEGIN
RETURN QUERY
WITH q AS MATERIALIZED (SELECT g, row_number() OVER (ORDER BY (SELECT count(*) FROM
    (SELECT 1 FROM alias_trigrams t WHERE t.namespace = p_ns AND t.trigram = g
    LIMIT p_cap) x), g) AS r FROM unnest(p_grams) AS g),
  hits AS MATERIALIZED (SELECT t.alias_id, t.alias_grams AS a, count(*) AS c FROM q
    JOIN alias_trigrams t ON t.namespace = p_ns AND t.trigram = q.g
    AND t.alias_grams BETWEEN p_shortest AND p_max_len[q.r]
    GROUP BY t.alias_id, t.alias_grams
    HAVING count(*) >= p_need[t.alias_grams]),
  probed AS (SELECT h.alias_id, h.a, h.c + (SELECT count(*) FROM q JOIN alias_trigrams t
    ON t.namespace = p_ns AND t.trigram = q.g AND t.alias_grams = h.a
    AND t.alias_id = h.alias_id WHERE q.r > p_cut[h.a]) AS shared
    FROM hits h WHERE (SELECT count(*) FROM hits) <= p_probe_max),
  unread AS (SELECT t.alias_id, count(*) AS n FROM q JOIN alias_trigrams t
    ON t.namespace = p_ns AND t.trigram = q.g
    AND t.alias_grams > p_max_len[q.r]
    AND t.alias_grams <= (SELECT max(hits.a) FROM hits)
    WHERE (SELECT count(*) FROM hits) > p_probe_max
    AND t.alias_id IN (SELECT hits.alias_id FROM hits) GROUP BY t.alias_id),
  scanned AS (SELECT h.alias_id, h.a, h.c + coalesce(u.n, 0) AS shared
    FROM hits h LEFT JOIN unread u ON u.alias_id = h.alias_id
    WHERE (SELECT count(*) FROM hits) > p_probe_max),
  counted AS MATERIALIZED (SELECT * FROM probed UNION ALL SELECT * FROM scanned),
  scored AS (SELECT counted.alias_id, CAST(counted.shared AS float8)
    / (p_q + counted.a - counted.shared) AS sim,
    rank() OVER (ORDER BY CAST(counted.shared AS float8)
    / (p_q + counted.a - counted.shared) DESC) AS k
    FROM counted WHERE counted.shared >= p_overlap[counted.a])
SELECT al.id FROM entity_aliases al JOIN scored s ON s.alias_id = al.id WHERE s.k <= p_limit
ORDER BY s.sim DESC, al.mention_count DESC, al.normalized_alias COLLATE "C" LIMIT p_limit;
END
$fn$
"""
_DROP = (
    "DROP FUNCTION alias_trigram_matches(text, text[], int, int, int, int[], int[], int[],"
    " int[], int, int)"
)


def upgrade() -> None:
    op.execute(_CREATE)


def downgrade() -> None:
    op.execute(_DROP)
