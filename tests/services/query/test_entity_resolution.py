"""Read-time ResolveEntity tiers, caps, context reordering and the unknown negative."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.adjudicator.entities import repository as repo
from services.adjudicator.entities.profiles import refresh_profiles
from services.query.reads.entity_resolution import resolve_entity
from shared.embedding import OnnxMiniLmEmbedder
from shared.entities.normalize import normalize_name, phonetic_code


@pytest.fixture(scope="module")
def minilm() -> OnnxMiniLmEmbedder:
    return OnnxMiniLmEmbedder.load(threads=1, batch_size=8)


async def _entity(session: AsyncSession, ns: str, name: str, *aliases: str) -> uuid.UUID:
    await repo.ensure_namespace(session, ns)
    entity_id = await repo.create_entity(session, ns, name, normalize_name(name))
    for alias in (name, *aliases):
        norm = normalize_name(alias)
        await repo.upsert_alias(session, ns, entity_id, alias, norm, phonetic_code(norm))
    return entity_id


async def _relate(session: AsyncSession, ns: str, subject: uuid.UUID, obj: uuid.UUID) -> None:
    await session.execute(
        text(
            "INSERT INTO facts (namespace, kind, subject_entity_id, predicate, object_entity_id,"
            " statement, label) VALUES (:ns, 'relation', :s, 'knows', :o, 'knows', 'knows')"
        ),
        {"ns": ns, "s": subject, "o": obj},
    )


async def test_exact_alias_tier_returns_every_match_uncapped(
    session_factory: async_sessionmaker[AsyncSession], namespace: str
) -> None:
    async with session_factory() as session, session.begin():
        ids = {await _entity(session, namespace, f"Sam {i}", "Sam") for i in range(6)}
        result = await resolve_entity(session, namespace, "SAM", [], 2, None)
        assert {c.entity_id for c in result.candidates} == ids
        assert {c.tier for c in result.candidates} == {"exact_alias"}
        assert not result.truncated and result.total == 6 and result.negative is None


async def test_trigram_tier_is_capped_and_says_truncated(
    session_factory: async_sessionmaker[AsyncSession], namespace: str
) -> None:
    async with session_factory() as session, session.begin():
        for surname in ("Ng", "Li", "Wu", "Ko", "Ma"):
            await _entity(session, namespace, f"Alexandra {surname}")
        result = await resolve_entity(session, namespace, "Alexandra", [], 3, None)
        assert len(result.candidates) == 3 and result.truncated and result.total == 5
        assert {c.tier for c in result.candidates} == {"trigram"}
        scores = [c.score for c in result.candidates]
        assert scores == sorted(scores, reverse=True)


async def test_context_entity_moves_a_related_candidate_first_without_dropping_others(
    session_factory: async_sessionmaker[AsyncSession], namespace: str
) -> None:
    async with session_factory() as session, session.begin():
        danas = [await _entity(session, namespace, f"Dana {s}", "Dana") for s in ("A", "B", "C")]
        marcus = await _entity(session, namespace, "Marcus Lee")
        await _relate(session, namespace, danas[2], marcus)
        plain = await resolve_entity(session, namespace, "Dana", [], 10, None)
        boosted = await resolve_entity(session, namespace, "Dana", [marcus], 10, None)
        assert {c.entity_id for c in boosted.candidates} == {c.entity_id for c in plain.candidates}
        assert boosted.candidates[0].entity_id == danas[2]
        assert [c.context_boosted for c in boosted.candidates] == [True, False, False]
        # A capped fuzzy tier brings the related candidate inside the cap.
        capped = await resolve_entity(session, namespace, "Dana Q", [marcus], 1, None)
        assert capped.candidates[0].entity_id == danas[2] and capped.truncated


async def test_phonetic_tier_finds_a_spelling_the_trigrams_miss(
    session_factory: async_sessionmaker[AsyncSession], namespace: str
) -> None:
    async with session_factory() as session, session.begin():
        kathryn = await _entity(session, namespace, "Kathryn")
        result = await resolve_entity(session, namespace, "Catherine", [], 5, None)
        assert [(c.entity_id, c.tier) for c in result.candidates] == [(kathryn, "phonetic")]


async def test_embedding_tier_matches_a_profile_when_no_name_does(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    minilm: OnnxMiniLmEmbedder,
) -> None:
    async with session_factory() as session, session.begin():
        acme = await _entity(session, namespace, "Acme Robotics")
        await session.execute(
            text(
                "INSERT INTO facts (namespace, kind, subject_entity_id, statement, label)"
                " VALUES (:ns, 'observation', :id, :l, :l)"
            ),
            {"ns": namespace, "id": acme, "l": "Acme Robotics builds warehouse robots"},
        )
        await refresh_profiles(session, namespace, [acme], minilm)
        result = await resolve_entity(
            session, namespace, "warehouse robot manufacturer", [], 5, minilm
        )
        assert [(c.entity_id, c.tier) for c in result.candidates] == [(acme, "embedding")]
        assert result.candidates[0].profile.startswith("Acme Robotics")


async def test_unknown_name_returns_unknown_entity_negative(
    session_factory: async_sessionmaker[AsyncSession], namespace: str
) -> None:
    async with session_factory() as session, session.begin():
        await _entity(session, namespace, "Priya Shah")
        result = await resolve_entity(session, namespace, "Zyxwvut", [], 5, None)
        assert result.candidates == [] and result.total == 0
        assert result.negative is not None and result.negative.kind == "unknown_entity"
