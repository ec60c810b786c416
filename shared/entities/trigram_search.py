"""Trigram search over the writer-maintained postings (`alias_trigrams`, in place of pg_trgm)."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from shared.entities.lookup import ALIAS_COLUMNS, AliasHit, alias_hits
from shared.entities.normalize import trigram_similarity, trigrams

__all__ = ["trigram_hits", "trigram_phonetic_hits"]

# Rarity of a query trigram is read from at most this many of its postings: the order only
# decides which postings are read, never which aliases qualify, so a cap keeps it cheap.
_RARITY_CAP = 256
# Each alias length reads this many trigrams beyond its minimal prefix and must then share one
# more of them: reading a few extra postings drops most one-trigram candidates before their
# (far costlier) per-candidate verification.
_PREFIX_EXTRA = 1
# Above this many candidates their unread trigrams are counted by a scan instead of probes.
_PROBE_MAX = 400


@dataclass(frozen=True, slots=True)
class _LengthPlan:
    """For a query of q trigrams and a threshold: per alias length a = 1, 2, ... (SQL arrays
    start at 1) `overlap` the fewest shared trigrams that reach the threshold (q + 1: never),
    `cut` the last rarity rank the alias reads and `need` how many of those it must share; per
    rank 1..q, `max_len` the longest alias that still reads it."""

    shortest: int
    overlap: list[int]
    need: list[int]
    cut: list[int]
    max_len: list[int]


@functools.cache
def _length_plan(q: int, min_similarity: float) -> _LengthPlan | None:
    def reaches(shared: int, a: int) -> bool:
        # The exact expression of trigram_similarity, so no float edge disagrees with it.
        return shared / (q + a - shared) >= min_similarity

    lengths = range(1, math.floor(q / min_similarity) + 2)
    overlap = [next((c for c in range(1, min(q, a) + 1) if reaches(c, a)), q + 1) for a in lengths]
    reachable = [a for a in lengths if overlap[a - 1] <= q]
    if not reachable:
        return None
    # Prefix filter: an alias sharing >= o of q trigrams misses at most q - o of them, so it
    # holds one of any q - o + 1; reading E more of the rarest means it holds E + 1 of those.
    cut = [min(q, q - o + 1 + _PREFIX_EXTRA) for o in overlap]
    need = [min(o, 1 + _PREFIX_EXTRA) for o in overlap]
    max_len = [max((a for a in reachable if cut[a - 1] >= r), default=0) for r in range(1, q + 1)]
    return _LengthPlan(reachable[0], overlap, need, cut, max_len)


# One statement (the function `alias_trigram_matches`, migration 0002): rank the query trigrams
# by (capped) rarity; read the postings of each rank only for the alias lengths whose prefix
# includes it (the length bound too: similarity <= shorter / longer); keep aliases sharing
# enough of what was read; count the trigrams they did not read, by primary-key probes when
# they are few, else by one scan of those postings (a probe costs about as much as reading
# twenty postings); score exactly and return the best `limit` ids, best first.
# Plain joins, no optimisation fences: with current statistics the planner picks index probes
# for rare trigrams and bulk reads for common ones; forcing per-trigram probes made full-name
# searches at 100k aliases a hundred times slower. The function plans the statement once per
# connection: the trigrams are ranked inside it, so a plan per execution bought nothing but
# planning time (twice the execution at 1,000 aliases).
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
# The parameters one trigram search binds besides the namespace.
_OWN_PARAMS = re.compile(r":(grams|cap|q|shortest|max_len|need|cut|overlap|probe_max|limit)\b")
_PHONETIC_QUERY = (
    ALIAS_COLUMNS + " WHERE a.namespace = :ns AND a.phonetic_code = :code"
    " ORDER BY a.mention_count DESC, a.id LIMIT :phonetic_limit"
)


def _params(query: frozenset[str], plan: _LengthPlan, limit: int) -> dict[str, Any]:
    return {
        "grams": sorted(query),
        "cap": _RARITY_CAP,
        "q": len(query),
        "shortest": plan.shortest,
        "max_len": plan.max_len,
        "need": plan.need,
        "cut": plan.cut,
        "overlap": plan.overlap,
        "probe_max": _PROBE_MAX,
        "limit": limit,
    }


def _scored(query: frozenset[str], hits: list[AliasHit]) -> list[AliasHit]:
    scored = [
        replace(hit, score=trigram_similarity(query, trigrams(hit.normalized_alias)))
        for hit in hits
    ]
    scored.sort(key=lambda h: (-h.score, -h.mention_count, h.normalized_alias))
    return scored


async def trigram_hits(
    session: AsyncSession, namespace: str, normalized: str, min_similarity: float, limit: int
) -> list[AliasHit]:
    """The `limit` aliases most trigram-similar to `normalized` with similarity at least
    `min_similarity` (> 0), best first (ties: most mentioned, then alias)."""
    query = trigrams(normalized)
    plan = _length_plan(len(query), min_similarity) if query else None
    if plan is None:
        return []
    rows = await session.execute(_TRIGRAM_SQL, {"ns": namespace, **_params(query, plan, limit)})
    return _scored(query, alias_hits(rows))


async def trigram_phonetic_hits(
    session: AsyncSession,
    namespace: str,
    normalized: Sequence[str],
    phonetic_code: str,
    min_similarity: float,
    limit: int,
) -> tuple[list[list[AliasHit]], list[AliasHit]]:
    """In one statement, `trigram_hits` of each of `normalized` and the `limit` aliases sharing
    `phonetic_code`, most mentioned first (as `lookup.phonetic_hits`): a name that finds no
    trigram match is looked up phonetically next, so one round trip serves both."""
    params: dict[str, Any] = {"ns": namespace, "code": phonetic_code, "phonetic_limit": limit}
    parts: list[str] = []
    queries: dict[int, frozenset[str]] = {}
    for index, name in enumerate(normalized):
        query = trigrams(name)
        plan = _length_plan(len(query), min_similarity) if query else None
        if plan is None:
            continue
        queries[index] = query
        params |= {f"{k}_{index}": v for k, v in _params(query, plan, limit).items()}
        own = _OWN_PARAMS.sub(rf":\1_{index}", _TRIGRAM_QUERY)
        parts.append(f"SELECT {index} AS part, row_number() OVER () AS n, x.* FROM ({own}) x")
    parts.append(f"SELECT -1 AS part, row_number() OVER () AS n, y.* FROM ({_PHONETIC_QUERY}) y")
    result = await session.execute(text(" UNION ALL ".join(parts)), params)
    rows = sorted(result, key=lambda r: (r.part, r.n))
    trigram: list[list[AliasHit]] = [[] for _ in normalized]
    for index, query in queries.items():
        trigram[index] = _scored(query, alias_hits(r for r in rows if r.part == index))
    return trigram, alias_hits(r for r in rows if r.part == -1)
