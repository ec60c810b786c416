"""A short lone word stands for the full name it is the first or last word of (issue 17).

"Leo" is 0.27 trigram-similar to "leo whitaker", under the spelling step's floor, and the
length filter drops the alias before it is scored: a three-letter given name or surname never
nominated its full name. Met after the full name it became an entity of its own, met before
it was completed into it, so the entities depended on arrival order.
"""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.adjudicator.entities.resolver import EntityResolver, Mention
from tests.support.resolving import DocumentClaims, entity_count, resolve_in_document


@pytest.mark.parametrize(
    ("full", "lone"),
    [("Leo Whitaker", "Leo"), ("Dana Kim", "Kim"), ("Ana Beltrán", "Ana"), ("Femi Ode", "Ode")],
)
async def test_a_short_lone_word_after_its_only_full_name_is_that_person(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
    full: str,
    lone: str,
) -> None:
    async with session_factory() as session, session.begin():
        (person, _) = await resolve_in_document(
            session, namespace, document_claims, [full, "Mobile team"]
        )
        (short, _) = await resolve_in_document(
            session, namespace, document_claims, [lone, "Sara Lind"]
        )
        assert short.entity_id == person.entity_id and not short.created


async def test_the_full_name_decided_earlier_in_the_same_call_is_found_too(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    """Two documents adjudicated in one batch: the full name is not written yet when the
    lone word of the other document is resolved."""
    async with session_factory() as session, session.begin():
        first_doc, (first_claim,) = await document_claims(session, namespace, 1)
        second_doc, (second_claim,) = await document_claims(session, namespace, 1)
        mentions = [
            Mention("Leo Whitaker", "subject", first_claim, first_doc),
            Mention("Leo", "subject", second_claim, second_doc, co_mentions=("Sara Lind",)),
        ]
        full, lone = await EntityResolver(None).resolve_mentions(session, namespace, mentions)
        assert lone.entity_id == full.entity_id
        assert await entity_count(session, namespace) == 1


async def test_a_short_lone_word_two_full_names_share_stays_apart(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    async with session_factory() as session, session.begin():
        await resolve_in_document(session, namespace, document_claims, ["Leo Whitaker"])
        await resolve_in_document(session, namespace, document_claims, ["Leo Marsh"])
        (short,) = await resolve_in_document(session, namespace, document_claims, ["Leo"])
        assert short.created  # ambiguous with no context: a new entity and proposals
