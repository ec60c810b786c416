"""Statements of `trigram_search`: the postings search, rarity counts, batched name searches."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, text
from sqlalchemy.ext.asyncio import AsyncSession

from shared.entities.lookup_repository import ALIAS_COLUMNS

__all__ = ["name_search_rows", "posting_counts", "trigram_match_rows"]

# One statement (the function `alias_trigram_matches`, migrations 0002 and 0003): rank the
# query trigrams by (capped) rarity; read the postings of each rank only for the alias lengths
# whose prefix includes it (the length bound too: similarity <= shorter / longer); keep aliases
# sharing enough of what was read; count the trigrams they share, from their alias text when
# they are few (a query trigram is one of the alias's when it occurs in the alias with each
# word padded by a space on both sides), else by one scan of the postings they did not read;
# score exactly and return the best `limit` ids, best first.
# Plain joins, with one fence: with current statistics the planner picks index probes for rare
# trigrams and bulk reads for common ones; forcing per-trigram probes made full-name searches
# at 100k aliases a hundred times slower. The scan of unread postings is materialized, since a
# plan that probed it per candidate walked a length range per probe (a second per search). The
# function plans the statement once per connection: the trigrams are ranked inside it, so a
# plan per execution bought nothing but planning time (twice the execution at 1,000 aliases).
_MATCHES = (
    "alias_trigram_matches(:ns, CAST(:grams AS text[]), :cap, :q, :shortest,"
    " CAST(:max_len AS int[]), CAST(:need AS int[]), CAST(:cut AS int[]),"
    " CAST(:overlap AS int[]), :probe_max, :limit)"
)
_TRIGRAM_QUERY = (
    ALIAS_COLUMNS + " JOIN " + _MATCHES + " WITH ORDINALITY AS m(alias_id, n)"
    " ON m.alias_id = a.id ORDER BY m.n"
)
_TRIGRAM_SQL = text(_TRIGRAM_QUERY)


_RARITY_SQL = text(
    "SELECT g, (SELECT count(*) FROM (SELECT 1 FROM alias_trigrams t WHERE t.namespace = :ns"
    " AND t.trigram = g LIMIT :cap) x) AS n FROM unnest(CAST(:grams AS text[])) AS g"
)


# One statement, whatever the number of searches (so one prepared statement): a row of
# parameters per trigram query, each run through the search function, and a phonetic lookup
# per distinct code. The parts are numbered from 0 for trigram queries, from -1 down for codes.
# OFFSET 0 keeps each hit's alias and entity a probe: the planner guesses a thousand rows per
# function call and otherwise hashed all of `entities` (45 ms instead of 1 at 100k).
_SEARCHES_SQL = text(
    "SELECT s.part, m.n, x.* FROM jsonb_to_recordset(CAST(:specs AS jsonb))"
    " AS s(part int, grams text[], q int, shortest int, max_len int[], need int[], cut int[],"
    " overlap int[])"
    " CROSS JOIN LATERAL alias_trigram_matches(:ns, s.grams, :cap, s.q, s.shortest, s.max_len,"
    " s.need, s.cut, s.overlap, :probe_max, :limit) WITH ORDINALITY AS m(alias_id, n)"
    " CROSS JOIN LATERAL (" + ALIAS_COLUMNS + " WHERE a.id = m.alias_id OFFSET 0) x"
    " UNION ALL"
    " SELECT -c.k, p.* FROM unnest(CAST(:codes AS text[])) WITH ORDINALITY AS c(code, k)"
    " CROSS JOIN LATERAL (SELECT row_number() OVER () AS n, y.* FROM ("
    + ALIAS_COLUMNS
    + " WHERE a.namespace = :ns AND a.phonetic_code = c.code"
    " ORDER BY a.mention_count DESC, a.id LIMIT :limit) y) p"
)


async def trigram_match_rows(
    session: AsyncSession, namespace: str, params: dict[str, Any]
) -> Sequence[Row[Any]]:
    """Alias rows (ALIAS_COLUMNS) of one search, best first; `params` as the function takes."""
    return (await session.execute(_TRIGRAM_SQL, {"ns": namespace, **params})).all()


async def posting_counts(
    session: AsyncSession, namespace: str, grams: list[str], cap: int
) -> list[tuple[str, int]]:
    """(trigram, postings counted up to `cap`) for each of `grams`."""
    rows = await session.execute(_RARITY_SQL, {"ns": namespace, "grams": grams, "cap": cap})
    return [(g, n) for g, n in rows]


async def name_search_rows(
    session: AsyncSession,
    namespace: str,
    *,
    specs_json: str,
    codes: list[str],
    cap: int,
    probe_max: int,
    limit: int,
) -> Sequence[Row[Any]]:
    """Rows (part, n, ALIAS_COLUMNS) of every trigram search in `specs_json` (parts from 0)
    and phonetic lookup of `codes` (parts -1, -2, ...), in one statement."""
    rows = await session.execute(
        _SEARCHES_SQL,
        {
            "ns": namespace,
            "specs": specs_json,
            "codes": codes,
            "cap": cap,
            "probe_max": probe_max,
            "limit": limit,
        },
    )
    return rows.all()
