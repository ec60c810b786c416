"""The prefix- and length-filtered trigram search returns exactly what a full scan would."""

from __future__ import annotations

import random

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.adjudicator.entities import repository as repo
from shared.entities import lookup_repository
from shared.entities.normalize import phonetic_code, trigram_similarity, trigrams
from shared.entities.trigram_search import (
    NameSearch,
    TrigramRarity,
    trigram_hits,
    trigram_phonetic_hits,
)

_FIRST = ["ravi", "mel", "ethan", "ana", "li"]


def _names(count: int) -> list[str]:
    rng = random.Random(11)
    names: set[str] = set()
    while len(names) < count:
        surname = "".join(rng.choice("bdkr") + rng.choice("ae") for _ in range(rng.randint(1, 4)))
        # Most share one first name, so its trigrams have more postings than the rarity cap and
        # a bare "ravi" has more qualifying aliases than the probe limit.
        first = "ravi" if rng.random() < 0.8 else rng.choice(_FIRST)
        names.add(f"{first} {surname}")
    return sorted(names)


async def _load(session: AsyncSession, namespace: str, names: list[str]) -> None:
    await repo.ensure_namespace(session, namespace)
    await session.execute(
        text(
            "WITH e AS (INSERT INTO entities (namespace, canonical_name, normalized_name)"
            " SELECT :ns, n, n FROM unnest(CAST(:names AS text[])) AS n"
            " RETURNING id, normalized_name)"
            " INSERT INTO entity_aliases (namespace, entity_id, alias, normalized_alias,"
            " phonetic_code, mention_count) SELECT :ns, e.id, e.normalized_name,"
            " e.normalized_name, p.code, p.n FROM e JOIN unnest(CAST(:names AS text[]),"
            " CAST(:codes AS text[]), CAST(:counts AS int[])) AS p(name, code, n)"
            " ON p.name = e.normalized_name"
        ),
        {
            "ns": namespace,
            "names": names,
            "codes": [phonetic_code(n) for n in names],
            "counts": [1 + len(n) % 3 for n in names],
        },
    )
    rows = (
        await session.execute(
            text("SELECT id, normalized_alias FROM entity_aliases WHERE namespace = :ns"),
            {"ns": namespace},
        )
    ).all()
    postings = [
        (g, len(trigrams(r.normalized_alias)), r.id)
        for r in rows
        for g in trigrams(r.normalized_alias)
    ]
    await session.execute(
        text(
            "INSERT INTO alias_trigrams (namespace, trigram, alias_grams, alias_id)"
            " SELECT :ns, g, n, a FROM unnest(CAST(:g AS text[]), CAST(:n AS int2[]),"
            " CAST(:a AS uuid[])) AS t(g, n, a)"
        ),
        {
            "ns": namespace,
            "g": [p[0] for p in postings],
            "n": [p[1] for p in postings],
            "a": [p[2] for p in postings],
        },
    )


def _brute_force(
    names: list[str], query: str, threshold: float, limit: int
) -> list[tuple[float, int, str]]:
    grams = trigrams(query)
    scored = [(trigram_similarity(grams, trigrams(n)), 1 + len(n) % 3, n) for n in names]
    kept = [s for s in scored if s[0] >= threshold]
    return sorted(kept, key=lambda s: (-s[0], -s[1], s[2]))[:limit]


@pytest.mark.parametrize("threshold", [0.3, 0.5])
async def test_trigram_hits_equal_a_brute_force_ranking_over_every_alias(
    session_factory: async_sessionmaker[AsyncSession], namespace: str, threshold: float
) -> None:
    names = _names(600)
    rng = random.Random(5)
    queries = ["ravi", "mel", "li", "ravi zqxw", "ethan bakeda", "ana"]
    for name in rng.sample(names, 6):
        queries.append(name[:-2] + name[-1] + name[-2])  # a transposition typo
        queries.append(name + "r")
    async with session_factory() as session, session.begin():
        await _load(session, namespace, names)
        for query in queries:
            for limit in (10, 500):
                hits = await trigram_hits(session, namespace, query, threshold, limit)
                found = [(h.score, h.mention_count, h.normalized_alias) for h in hits]
                assert found == _brute_force(names, query, threshold, limit), (query, limit)


async def test_trigram_hits_of_a_name_sharing_no_trigram_are_empty(
    session_factory: async_sessionmaker[AsyncSession], namespace: str
) -> None:
    async with session_factory() as session, session.begin():
        await _load(session, namespace, ["ravi bake", "mel dara"])
        assert await trigram_hits(session, namespace, "zq xw", 0.3, 10) == []


async def test_trigram_phonetic_hits_equal_separate_trigram_and_phonetic_searches(
    session_factory: async_sessionmaker[AsyncSession], namespace: str
) -> None:
    names = _names(300)
    searches = [
        NameSearch((names[0], "zq xw"), phonetic_code(names[0]), 0.3),
        NameSearch(("mel", "ravi", names[1]), phonetic_code("mel"), 0.5),
        NameSearch((names[2],), phonetic_code(names[0]), 0.4),  # a code already asked for
        NameSearch(("",), phonetic_code("zq xw"), 0.3),  # nothing to search by trigrams
    ]
    async with session_factory() as session, session.begin():
        await _load(session, namespace, names)
        found = await trigram_phonetic_hits(session, namespace, searches, 10)
        for search, hits in zip(searches, found, strict=True):
            assert hits.per_query == [
                await trigram_hits(session, namespace, q, search.min_similarity, 10)
                for q in search.queries
            ]
            code = search.phonetic_code
            assert hits.phonetic == await lookup_repository.phonetic_hits(
                session, namespace, code, 10
            )
        assert found[0].phonetic and found[0].per_query[0] and found[0].per_query[1] == []
        assert found[1].per_query[2] and found[2].phonetic == found[0].phonetic
        assert await trigram_phonetic_hits(session, namespace, [], 10) == []


async def test_the_search_plans_once_per_connection(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    # Its trigrams are ranked inside the statement, so a plan per execution only costs
    # planning time (twice the execution at 1,000 aliases): the function forces a kept plan.
    async with session_factory() as session:
        config = await session.scalar(
            text("SELECT proconfig FROM pg_proc WHERE proname = 'alias_trigram_matches'")
        )
    assert config == ["plan_cache_mode=force_generic_plan"]


async def test_rarity_counts_read_before_the_aliases_existed_change_no_answer(
    session_factory: async_sessionmaker[AsyncSession], namespace: str
) -> None:
    names = _names(600)
    queries = ["ravi", "mel", "ravi zqxw", "ethan bakeda", names[3], names[7][:-1]]
    searches = [NameSearch((q,), phonetic_code(q), floor) for q in queries for floor in (0.3, 0.5)]
    now = [0.0]
    rarity = TrigramRarity(max_age=60.0, clock=lambda: now[0])
    async with session_factory() as session, session.begin():
        # Counted in an empty namespace: every trigram looks equally rare, ranked by spelling.
        stale = await rarity.rank(session, namespace, [trigrams("ravi bakeda")])
        assert stale == [sorted(trigrams("ravi bakeda"))]
        await _load(session, namespace, names)
        assert await rarity.rank(session, namespace, [trigrams("ravi bakeda")]) == stale
        expected = await trigram_phonetic_hits(session, namespace, searches, 10)
        assert await trigram_phonetic_hits(session, namespace, searches, 10, rarity) == expected
        now[0] = 61.0  # past max_age the counts are read again: "ravi" is the common part
        (fresh,) = await rarity.rank(session, namespace, [trigrams("ravi bakeda")])
        assert fresh != stale[0] and set(fresh[-4:]) == trigrams("ravi")
        assert await trigram_phonetic_hits(session, namespace, searches, 10, rarity) == expected


def test_a_trigram_is_an_aliases_exactly_when_it_occurs_in_the_padded_alias() -> None:
    # What the search function verifies few candidates by: strpos over the alias with each
    # word padded by a space on both sides (' ' || replace(alias, ' ', '  ') || ' ').
    rng = random.Random(3)
    words = ["r", "ra", "ravi", "avi", "vir", "ir", "a", "iv", "patel", "el", "tel"]
    for _ in range(2000):
        alias = " ".join(rng.choice(words) for _ in range(rng.randint(1, 3)))
        query = " ".join(rng.choice(words) for _ in range(rng.randint(1, 3)))
        padded = " " + alias.replace(" ", "  ") + " "
        found = {g for g in trigrams(query) if g in padded}
        assert found == trigrams(query) & trigrams(alias), (alias, query)
