"""Trigram search over the writer-maintained postings (`alias_trigrams`, in place of pg_trgm)."""

from __future__ import annotations

import functools
import json
import math
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from shared.entities import trigram_repository
from shared.entities.lookup_repository import AliasHit, alias_hits
from shared.entities.normalize import trigram_similarity, trigrams

__all__ = ["NameHits", "NameSearch", "TrigramRarity", "trigram_hits", "trigram_phonetic_hits"]

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
    rows = await trigram_repository.trigram_match_rows(
        session, namespace, _params(query, plan, limit)
    )
    return _scored(query, alias_hits(rows))


class TrigramRarity:
    """How many postings each trigram of a namespace has (counted up to the rarity cap), kept
    by one process for `max_age` seconds.

    The counts only order a search's reads, rarest first; they never decide what it finds. A
    stale count therefore costs time, not answers, and one read of the counts serves many
    searches, each of which would otherwise count up to 256 postings of each of its trigrams
    (a third of a full-name search at 100k aliases). At most `max_entries` are kept; past that
    the older half is forgotten."""

    def __init__(
        self,
        max_age: float = 600.0,
        max_entries: int = 200_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._max_age, self._max_entries, self._clock = max_age, max_entries, clock
        self._counts: dict[tuple[str, str], tuple[float, int]] = {}

    async def rank(
        self, session: AsyncSession, namespace: str, queries: Sequence[frozenset[str]]
    ) -> list[list[str]]:
        """Each query's trigrams, rarest first, reading the counts not known (or too old)
        in one statement."""
        now = self._clock()
        known = self._counts
        missing = sorted(
            g
            for g in {g for query in queries for g in query}
            if now - known.get((namespace, g), (-math.inf, 0))[0] > self._max_age
        )
        if missing:
            rows = await trigram_repository.posting_counts(session, namespace, missing, _RARITY_CAP)
            known.update({(namespace, g): (now, n) for g, n in rows})
            if len(known) > self._max_entries:
                by_age = sorted(known, key=lambda key: known[key][0])
                for key in by_age[: len(known) // 2]:
                    del known[key]
        return [sorted(query, key=lambda g: (known[(namespace, g)][1], g)) for query in queries]


@dataclass(frozen=True, slots=True)
class NameSearch:
    """What the cascade's trigram and phonetic steps look up for one name: the trigram search
    of each of `queries` (the name, then its short-form expansions) at `min_similarity`, and
    the aliases sharing `phonetic_code`."""

    queries: tuple[str, ...]
    phonetic_code: str
    min_similarity: float


@dataclass(frozen=True, slots=True)
class NameHits:
    """A NameSearch's answer: `trigram_hits` per query, and the phonetic hits most mentioned
    first (as `lookup_repository.phonetic_hits`)."""

    per_query: list[list[AliasHit]]
    phonetic: list[AliasHit]


_SPEC_KEYS = ("grams", "q", "shortest", "max_len", "need", "cut", "overlap")


async def trigram_phonetic_hits(
    session: AsyncSession,
    namespace: str,
    searches: Sequence[NameSearch],
    limit: int,
    rarity: TrigramRarity | None = None,
) -> list[NameHits]:
    """Every search's `limit` best trigram hits per query and `limit` phonetic hits, in one
    statement: a name that finds no trigram match is looked up phonetically next, and the
    names of one adjudicator batch are searched together, so one round trip serves them all.
    With `rarity` the trigrams are ranked from its counts instead of inside each search."""
    if not searches:
        return []
    specs: list[dict[str, Any]] = []
    grams: dict[int, frozenset[str]] = {}
    # Each distinct code is looked up once, as part -1, -2, ...
    code_parts = {
        code: -1 - n for n, code in enumerate(dict.fromkeys(s.phonetic_code for s in searches))
    }
    part = 0
    for search in searches:
        for query_text in search.queries:
            query = trigrams(query_text)
            plan = _length_plan(len(query), search.min_similarity) if query else None
            if plan is not None:
                grams[part] = query
                spec = _params(query, plan, limit)
                specs.append({k: spec[k] for k in _SPEC_KEYS} | {"part": part})
            part += 1
    if rarity is not None and specs:
        ranked = await rarity.rank(session, namespace, [grams[spec["part"]] for spec in specs])
        for spec, order in zip(specs, ranked, strict=True):
            spec["grams"] = order
    rows = await trigram_repository.name_search_rows(
        session,
        namespace,
        specs_json=json.dumps(specs),
        codes=list(code_parts),
        # 0: the trigrams come ranked (by `rarity`).
        cap=0 if rarity is not None else _RARITY_CAP,
        probe_max=_PROBE_MAX,
        limit=limit,
    )
    by_part: dict[int, list[Any]] = defaultdict(list)
    for row in sorted(rows, key=lambda r: (r.part, r.n)):
        by_part[row.part].append(row)
    answers = []
    part = 0
    for search in searches:
        per_query = []
        for _ in search.queries:
            searched = grams.get(part)
            per_query.append(_scored(searched, alias_hits(by_part[part])) if searched else [])
            part += 1
        answers.append(NameHits(per_query, alias_hits(by_part[code_parts[search.phonetic_code]])))
    return answers
