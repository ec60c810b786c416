"""Merges, exact undo, proposal listing and profiles of the entity layer on a real Postgres."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.adjudicator.entities import repository as repo
from services.adjudicator.entities.merges import list_merge_proposals, merge_entities, undo_merge
from services.adjudicator.entities.profiles import refresh_profiles
from services.adjudicator.entities.resolver import EntityResolver, Mention
from shared.embedding import OnnxMiniLmEmbedder
from shared.entities import lookup_repository
from shared.entities.normalize import normalize_name, phonetic_code
from shared.errors import FailedPrecondition, InvalidArgument, NotFound

DocumentClaims = Callable[[AsyncSession, str, int], Awaitable[tuple[uuid.UUID, list[uuid.UUID]]]]


@pytest.fixture(scope="module")
def minilm() -> OnnxMiniLmEmbedder:
    return OnnxMiniLmEmbedder.load(threads=1, batch_size=8)


async def _entity(session: AsyncSession, ns: str, name: str, *aliases: str) -> uuid.UUID:
    entity_id = await repo.create_entity(session, ns, name, normalize_name(name))
    for alias in (name, *aliases):
        norm = normalize_name(alias)
        await repo.upsert_alias(session, ns, entity_id, alias, norm, phonetic_code(norm))
    return entity_id


async def _fact(
    session: AsyncSession,
    ns: str,
    claim: uuid.UUID,
    subject: uuid.UUID,
    obj: uuid.UUID,
    label: str,
    evidence: int = 1,
) -> uuid.UUID:
    fact_id: uuid.UUID = (
        await session.execute(
            text(
                "INSERT INTO facts (namespace, kind, subject_entity_id, predicate,"
                " object_entity_id, statement, label, evidence_count) VALUES (:ns, 'relation',"
                " :s, 'works_with', :o, :l, :l, :n) RETURNING id"
            ),
            {"ns": ns, "s": subject, "o": obj, "l": label, "n": evidence},
        )
    ).scalar_one()
    await session.execute(
        text(
            "INSERT INTO assertions (namespace, claim_id, kind, subject_entity_id, predicate,"
            " object_entity_id, statement, fact_id, dedupe_key) VALUES (:ns, :c, 'relation', :s,"
            " 'works_with', :o, :l, :f, :k)"
        ),
        {
            "ns": ns,
            "c": claim,
            "s": subject,
            "o": obj,
            "l": label,
            "f": fact_id,
            "k": uuid.uuid4().hex,
        },
    )
    return fact_id


async def _state(session: AsyncSession, ns: str) -> dict[str, Any]:
    """Every row a merge may touch, in a comparable form."""
    queries = {
        "entities": "SELECT id, redirect_to FROM entities",
        "aliases": "SELECT id, entity_id, alias, normalized_alias, phonetic_code, mention_count,"
        " first_seen_at, last_seen_at FROM entity_aliases",
        "trigrams": "SELECT trigram, alias_id FROM alias_trigrams",
        "facts": "SELECT id, subject_entity_id, object_entity_id FROM facts",
        "assertions": "SELECT id, subject_entity_id, object_entity_id FROM assertions",
        "verdicts": "SELECT id, chosen_entity_id FROM resolution_verdicts",
    }
    state = {}
    for key, sql in queries.items():
        rows = await session.execute(text(f"{sql} WHERE namespace = :ns"), {"ns": ns})
        state[key] = sorted(tuple(str(v) for v in row) for row in rows)
    return state


async def test_undo_merge_restores_every_moved_row_and_keeps_later_facts_on_the_survivor(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        doc, claims = await document_claims(session, namespace, 3)
        survivor = await _entity(session, namespace, "Ravi Patel", "Ravi")
        absorbed = await _entity(session, namespace, "R. Patel", "Ravi", "ravi")
        other = await _entity(session, namespace, "Priya Shah")
        await EntityResolver(None).resolve_mentions(
            session, namespace, [Mention("R. Patel", "subject", claims[0], doc)]
        )
        await _fact(session, namespace, claims[0], absorbed, other, "R. Patel works with Priya")
        await _fact(session, namespace, claims[1], other, absorbed, "Priya works with R. Patel")
        before = await _state(session, namespace)

        outcome = await merge_entities(session, namespace, survivor, absorbed, "reviewer:ann")
        assert (outcome.aliases_moved, outcome.facts_moved) == (2, 2)
        assert await lookup_repository.canonical(session, namespace, absorbed) == survivor
        merged = await _state(session, namespace)
        assert all(
            survivor_ref in (str(survivor), str(other))
            for row in merged["facts"]
            for survivor_ref in row[1:]
            if survivor_ref != "None"
        )
        ravi = [a for a in merged["aliases"] if a[3] == "ravi"]
        assert len(ravi) == 1 and ravi[0][5] == "3"  # folded: 1 + 2 mentions

        later = await _fact(session, namespace, claims[2], survivor, other, "Ravi works with Priya")
        undone = await undo_merge(session, namespace, outcome.merge_id, "reviewer:ann")
        assert undone.restored_entity_id == absorbed
        after = await _state(session, namespace)
        later_row = (str(later), str(survivor), str(other))
        assert later_row in after["facts"]
        after["facts"].remove(later_row)
        before_ids = {row[0] for row in before["assertions"]}
        after["assertions"] = [row for row in after["assertions"] if row[0] in before_ids]
        assert after == before

        with pytest.raises(FailedPrecondition):
            await undo_merge(session, namespace, outcome.merge_id, "reviewer:ann")


async def test_merge_refuses_same_unknown_and_already_merged_entities(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
) -> None:
    async with session_factory() as session, session.begin():
        a = await _entity(session, namespace, "Ada Byron")
        b = await _entity(session, namespace, "Ada Lovelace")
        c = await _entity(session, namespace, "Augusta Ada King")
        with pytest.raises(InvalidArgument):
            await merge_entities(session, namespace, a, a, "test")
        with pytest.raises(NotFound):
            await merge_entities(session, namespace, a, uuid.uuid4(), "test")
        first = await merge_entities(session, namespace, b, a, "test")
        with pytest.raises(FailedPrecondition):
            await merge_entities(session, namespace, c, a, "test")
        second = await merge_entities(session, namespace, c, b, "test")
        assert await lookup_repository.canonical(session, namespace, a) == c
        with pytest.raises(FailedPrecondition):
            await undo_merge(session, namespace, first.merge_id, "test")
        await undo_merge(session, namespace, second.merge_id, "test")
        await undo_merge(session, namespace, first.merge_id, "test")
        assert await lookup_repository.canonical(session, namespace, a) == a


async def test_merge_proposals_are_listed_by_expected_impact_in_pages(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
) -> None:
    async with session_factory() as session, session.begin():
        ids = [await _entity(session, namespace, f"Person {i}") for i in range(4)]
        for _ in range(5):  # the busiest entity makes its pair the most impactful
            await repo.upsert_alias(session, namespace, ids[3], "Person 3", "person 3", "PRSN")
        await repo.upsert_proposal(session, namespace, ids[0], ids[1], 0.5, {})
        await repo.upsert_proposal(session, namespace, ids[2], ids[3], 0.5, {})
        await repo.upsert_proposal(session, namespace, ids[1], ids[2], 0.9, {})
        first = await list_merge_proposals(session, namespace, 2)
        second = await list_merge_proposals(session, namespace, 2, first.next_page_token)
        pairs = [{p.entity_a_id, p.entity_b_id} for p in first.proposals + second.proposals]
        assert pairs == [{ids[2], ids[3]}, {ids[1], ids[2]}, {ids[0], ids[1]}]
        assert second.next_page_token == ""
        with pytest.raises(InvalidArgument):
            await list_merge_proposals(session, namespace, 2, "not-a-token")


async def test_profiles_are_built_from_strongest_facts_and_refresh_when_facts_change(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
    minilm: OnnxMiniLmEmbedder,
) -> None:
    async with session_factory() as session, session.begin():
        _, claims = await document_claims(session, namespace, 2)
        ravi = await _entity(session, namespace, "Ravi Patel", "Ravi")
        acme = await _entity(session, namespace, "Acme Robotics")
        await _fact(session, namespace, claims[0], ravi, acme, "Ravi Patel works at Acme", 3)
        assert await refresh_profiles(session, namespace, [ravi], minilm) == 1
        profile, has_vector = (
            await session.execute(
                text(
                    "SELECT profile_text, profile_embedding IS NOT NULL FROM entities"
                    " WHERE id = :id"
                ),
                {"id": ravi},
            )
        ).one()
        assert profile == "Ravi Patel (also: Ravi). Ravi Patel works at Acme."
        assert has_vector
        await _fact(session, namespace, claims[1], ravi, acme, "Ravi Patel leads robotics", 5)
        await refresh_profiles(session, namespace, [ravi], minilm)
        refreshed = (
            await session.execute(
                text("SELECT profile_text FROM entities WHERE id = :id"), {"id": ravi}
            )
        ).scalar_one()
        assert refreshed.startswith("Ravi Patel (also: Ravi). Ravi Patel leads robotics.")
