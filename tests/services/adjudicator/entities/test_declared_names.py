"""A source's declaration of another name ("Northwind Robotics, formerly Nimbus Labs",
"Bluewater Analytics (BWA)", "Parcelo has been renamed Tessera Sensing") makes the two names
one entity, named by the name it goes by now, whichever arrived first; two entities that
already exist are only proposed for merging (services/adjudicator/entities/declared.py)."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.adjudicator.entities.declared import with_declarations
from services.adjudicator.entities.resolver import EntityResolver, Mention, ResolvedMention
from shared.entities import ALSO_KNOWN_AS
from tests.support.resolving import (
    DocumentClaims,
    entity_count,
    merge_proposals,
    resolve_in_document,
)

PAIRS = [
    ("Northwind Robotics", "Nimbus Labs"),  # a former name
    ("Bluewater Analytics", "BWA"),  # an abbreviation
    ("Lifecycle", "Growth team"),  # a renamed team
]


async def _declare(
    session: AsyncSession,
    namespace: str,
    document_claims: DocumentClaims,
    name: str,
    other: str,
    before: tuple[str, ...] = (),
) -> list[ResolvedMention]:
    """One document: claims naming `before`, then one claim declaring `other` a name of `name`."""
    doc, claims = await document_claims(session, namespace, len(before) + 1)
    mentions = [Mention(t, "subject", c, doc) for t, c in zip(before, claims, strict=False)]
    base = Mention("", "object", claims[-1], doc)
    declared = with_declarations([], [(name, ALSO_KNOWN_AS, other)], base)
    return await EntityResolver(None).resolve_mentions(session, namespace, [*mentions, *declared])


async def _name_of(session: AsyncSession, entity_id: uuid.UUID | None) -> str:
    found: str = (
        await session.execute(
            text("SELECT canonical_name FROM entities WHERE id = :id"), {"id": entity_id}
        )
    ).scalar_one()
    return found


@pytest.mark.parametrize(("name", "other"), PAIRS)
async def test_the_other_name_declared_first_is_an_alias_later_documents_find(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
    name: str,
    other: str,
) -> None:
    async with session_factory() as session, session.begin():
        named, aliased = await _declare(session, namespace, document_claims, name, other)
        assert named.entity_id == aliased.entity_id and named.created
        (later,) = await resolve_in_document(session, namespace, document_claims, [other])
        assert later.entity_id == named.entity_id and not later.created
        assert await _name_of(session, named.entity_id) == name
        assert await entity_count(session, namespace) == 1


@pytest.mark.parametrize(("name", "other"), PAIRS)
async def test_an_entity_known_by_the_other_name_takes_the_declared_name(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
    name: str,
    other: str,
) -> None:
    async with session_factory() as session, session.begin():
        (first,) = await resolve_in_document(session, namespace, document_claims, [other])
        named, aliased = await _declare(session, namespace, document_claims, name, other)
        assert named.entity_id == aliased.entity_id == first.entity_id
        assert not named.created
        # The same entity and name as had the declaration come first.
        assert await _name_of(session, first.entity_id) == name
        (later,) = await resolve_in_document(session, namespace, document_claims, [name])
        assert later.entity_id == first.entity_id
        assert await entity_count(session, namespace) == 1


async def test_a_mention_before_the_declaration_in_its_document_finds_the_same_entity(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    """ "Dara works at Nimbus Labs. … Northwind Robotics, formerly Nimbus Labs, …": one call
    resolves the declaration first, so the earlier mention does not mint an entity."""
    async with session_factory() as session, session.begin():
        early, named, aliased = await _declare(
            session,
            namespace,
            document_claims,
            "Northwind Robotics",
            "Nimbus Labs",
            ("Nimbus Labs",),
        )
        assert early.entity_id == named.entity_id == aliased.entity_id
        assert await entity_count(session, namespace) == 1


async def test_two_entities_already_known_are_proposed_for_merging_not_merged(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        (new,) = await resolve_in_document(session, namespace, document_claims, ["Halden Holdings"])
        (old,) = await resolve_in_document(session, namespace, document_claims, ["Halden Group"])
        named, aliased = await _declare(
            session, namespace, document_claims, "Halden Holdings", "Halden Group"
        )
        assert named.entity_id == new.entity_id and aliased.entity_id == old.entity_id
        assert await entity_count(session, namespace) == 2
        assert {frozenset(p) for p in await merge_proposals(session, namespace)} == {
            frozenset((new.entity_id, old.entity_id))
        }
