"""A full name completes the lone name met before it, so arrival order does not split a person
or company in two (issue 17; services/adjudicator/entities/completion.py)."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from tests.support.resolving import (
    DocumentClaims,
    entity_count,
    merge_proposals,
    resolve_in_document,
)


async def _names(session: AsyncSession, entity_id: uuid.UUID) -> tuple[str, str]:
    row = (
        await session.execute(
            text("SELECT canonical_name, normalized_name FROM entities WHERE id = :id"),
            {"id": entity_id},
        )
    ).one()
    return row.canonical_name, row.normalized_name


@pytest.mark.parametrize(
    ("lone", "full"),
    [
        ("Samantha", "Samantha Reyes"),  # given name first
        ("Reyes", "Samantha Reyes"),  # surname first
        ("Mel", "Melanie Ortiz"),  # listed nickname first
        ("Chris", "Christopher Dunmore"),  # clipped given name first
        ("Northwind", "Northwind Logistics"),  # a company's short name first
        ("Ana", "Ana de Souza"),  # a particle inside the name
        ("Search", "Search team"),  # a team's name, then with its head ("moved from Search")
        ("Payments", "Payments squad"),
        # A unit named by its function in lower case ("Support headcount grew", then "the
        # support team had 14 people"), as `sole_full_name` reads it the other way round.
        ("Support", "support team"),
        ("Marketing", "marketing department"),
        # A unit's name of several words, written without its head first.
        ("Search Relevance", "Search Relevance team"),
        ("Fraud Signals", "Fraud Signals squad"),
    ],
)
async def test_a_full_name_after_its_lone_form_is_the_same_entity_renamed(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
    lone: str,
    full: str,
) -> None:
    async with session_factory() as session, session.begin():
        first, _ = await resolve_in_document(
            session, namespace, document_claims, [lone, "Priya Shah"]
        )
        completed, _ = await resolve_in_document(
            session, namespace, document_claims, [full, "Omar Said"]
        )
        assert first.created and not completed.created
        assert completed.entity_id == first.entity_id and completed.canonical_name == full
        assert await _names(session, first.entity_id) == (full, full.lower())
        # Later mentions of either form land on it, as they would had the full name come first.
        again, _ = await resolve_in_document(session, namespace, document_claims, [lone, "Li Wu"])
        assert again.entity_id == first.entity_id
        rule = (
            await session.execute(
                text(
                    "SELECT scores->>'rule' FROM resolution_verdicts"
                    " WHERE claim_id = :claim AND mention_text = :full"
                ),
                {"claim": completed.mention.claim_id, "full": full},
            )
        ).scalar_one()
        assert rule == "completes_lone_name"


@pytest.mark.parametrize(
    ("lone", "other_full", "full"),
    [
        # "Dana" could be either: it completes neither.
        ("Dana", "Dana Kim", "Dana Ross"),
        # "Patel" could be Ravi Patel's surname as well as Priya Patel's.
        ("Patel", "Ravi Patel", "Priya Patel"),
        # "Sam" could be Samuel Okafor's short form as well as Samantha Reyes's.
        ("Sam", "Samuel Okafor", "Samantha Reyes"),
    ],
)
async def test_a_lone_name_that_could_stand_for_another_full_name_is_not_completed(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
    lone: str,
    other_full: str,
    full: str,
) -> None:
    async with session_factory() as session, session.begin():
        first, _ = await resolve_in_document(
            session, namespace, document_claims, [lone, "Priya Shah"]
        )
        # The other full name came after the lone one and completed it already, or (surname and
        # short form read differently) exists beside it: either way the lone word is taken.
        await resolve_in_document(session, namespace, document_claims, [other_full, "Tom Lee"])
        second, _ = await resolve_in_document(
            session, namespace, document_claims, [full, "Omar Said"]
        )
        assert second.created and second.entity_id != first.entity_id
        assert (await _names(session, second.entity_id))[0] == full


@pytest.mark.parametrize(
    ("lone", "one", "another"),
    [
        ("Dan", "Dan Moreau", "Dan Ishikawa"),
        ("Patel", "Ravi Patel", "Anjali Patel"),
        ("Orbis", "Orbis Logistics", "Orbis Health"),
    ],
)
async def test_a_lone_name_met_first_completes_neither_of_two_full_names_met_together(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
    lone: str,
    one: str,
    another: str,
) -> None:
    # Heard the other way round, the lone name finds two full names and takes neither: the
    # first of two full names in one document took it, so the order decided who "Dan" was.
    async with session_factory() as session, session.begin():
        first, _ = await resolve_in_document(
            session, namespace, document_claims, [lone, "Priya Shah"]
        )
        both = await resolve_in_document(session, namespace, document_claims, [one, another])
        assert all(r.created and r.entity_id != first.entity_id for r in both)


async def test_lowercase_phrases_and_names_of_other_words_complete_nothing(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        lone, _ = await resolve_in_document(
            session, namespace, document_claims, ["Harbor", "Priya Shah"]
        )
        phrase, other, _ = await resolve_in_document(
            session,
            namespace,
            document_claims,
            ["harbor migration", "Priya's Harbor", "Omar Said"],
        )
        assert phrase.entity_id != lone.entity_id and other.entity_id != lone.entity_id
        assert (await _names(session, lone.entity_id))[0] == "Harbor"


async def test_a_lone_word_written_in_lower_case_is_completed_by_no_unit(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        lone, _ = await resolve_in_document(
            session, namespace, document_claims, ["support", "Priya Shah"]
        )
        unit, _ = await resolve_in_document(
            session, namespace, document_claims, ["support team", "Omar Said"]
        )
        assert unit.created and unit.entity_id != lone.entity_id


async def test_of_two_lone_forms_met_first_the_most_named_takes_the_full_name_the_other_is_proposed(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        reyes, _ = await resolve_in_document(
            session, namespace, document_claims, ["Reyes", "Priya Shah"]
        )
        samantha, _ = await resolve_in_document(
            session, namespace, document_claims, ["Samantha", "Omar Said"]
        )
        again, _ = await resolve_in_document(
            session, namespace, document_claims, ["Samantha", "Omar Said"]
        )
        assert again.entity_id == samantha.entity_id
        full, _ = await resolve_in_document(
            session, namespace, document_claims, ["Samantha Reyes", "Li Wu"]
        )
        assert full.entity_id == samantha.entity_id
        pairs = {frozenset(pair) for pair in await merge_proposals(session, namespace)}
        assert pairs == {frozenset((samantha.entity_id, reyes.entity_id))}
        # "Priya Shah", "Omar Said", "Li Wu", Reyes and Samantha (Reyes).
        assert await entity_count(session, namespace) == 5


@pytest.mark.parametrize(
    "phrase", ["Platform status w/e 9 Jan", "Platform migration plan", "Platform team offsite"]
)
async def test_a_lone_word_is_no_abbreviation_of_a_phrase_that_is_not_a_name(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
    phrase: str,
) -> None:
    """The mirror of `test_lowercase_phrases_and_names_of_other_words_complete_nothing`: read
    after the phrase, "Platform" joined it; read before, it stayed apart (order dependence)."""
    async with session_factory() as session, session.begin():
        first, _ = await resolve_in_document(
            session, namespace, document_claims, [phrase, "Priya Shah"]
        )
        lone, _ = await resolve_in_document(
            session, namespace, document_claims, ["Platform", "Omar Said"]
        )
        assert lone.entity_id != first.entity_id


@pytest.mark.parametrize(
    "forms",
    [
        ("#platform-data", "Platform Data"),  # a channel's title and the team's page
        ("quillmark analytics", "Quillmark Analytics"),  # chat in lower case, then a wiki
        ("@halvorsen", "Halvorsen"),  # a handle, then the name
    ],
)
@pytest.mark.parametrize("better_first", [True, False], ids=["better first", "worse first"])
async def test_one_name_written_two_ways_is_named_by_the_better_form_in_any_order(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
    forms: tuple[str, str],
    better_first: bool,
) -> None:
    worse, better = forms
    async with session_factory() as session, session.begin():
        (first,) = await resolve_in_document(
            session, namespace, document_claims, [better if better_first else worse]
        )
        (second,) = await resolve_in_document(
            session, namespace, document_claims, [worse if better_first else better]
        )
        assert second.entity_id == first.entity_id
        assert (await _names(session, first.entity_id))[0] == better
