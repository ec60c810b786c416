"""A batch takes every name lock it may need in one sorted round, before anything else.

Two rounds (the batch's mentions, then the anchors of claims whose subject named no entity)
let two transactions each hold a name the other's second round wants; the LoCoMo pipeline
with two adjudicator processes hit that deadlock on speaker names."""

from __future__ import annotations

import asyncio

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.adjudicator.entities.resolver import EntityResolver, Mention, ResolutionContext
from shared.beliefs.locks import name_lock_key
from tests.services.adjudicator.entities.conftest import DocumentClaims

_TRY = text("SELECT pg_try_advisory_xact_lock(hashtextextended(:key, 0))")


async def _held_elsewhere(
    factory: async_sessionmaker[AsyncSession], namespace: str, name: str
) -> bool:
    async with factory() as other, other.begin():
        return not (await other.execute(_TRY, {"key": name_lock_key(namespace, name)})).scalar_one()


async def test_locks_taken_ahead_cover_every_later_resolver_call(
    session_factory: async_sessionmaker[AsyncSession],
    document_claims: DocumentClaims,
    namespace: str,
) -> None:
    resolver = EntityResolver(None)
    async with session_factory() as session, session.begin():
        doc, (first, second) = await document_claims(session, namespace, 2)
        context = ResolutionContext(session, namespace)
        await context.lock_names_ahead(["Ravi Patel", "the billing migration", "Evan"])
        ahead = set(context.locked)
        # A full name's lone forms too: it may complete the entity of one (completion.py).
        assert ahead == {"ravi patel", "ravi", "patel", "billing migration", "evan"}
        assert await _held_elsewhere(session_factory, namespace, "evan")
        for mentions in (
            [
                Mention("Ravi Patel", "subject", first, doc),
                Mention("the billing migration", "object", first, doc),
            ],
            [Mention("Evan", "subject", second, doc)],
        ):
            await resolver.resolve_mentions(session, namespace, mentions, context=context)
            assert context.locked == ahead  # no second round of name locks
    assert not await _held_elsewhere(session_factory, namespace, "evan")


async def test_two_batches_locking_ahead_in_opposite_order_both_finish(
    session_factory: async_sessionmaker[AsyncSession], namespace: str
) -> None:
    """Sorted in one round, overlapping name sets queue instead of deadlocking."""

    async def batch(names: list[str]) -> None:
        async with session_factory() as session, session.begin():
            await ResolutionContext(session, namespace).lock_names_ahead(names)
            await asyncio.sleep(0.2)

    # Taken in the order given, the second batch would hold "evan" and want "audrey" while
    # the first holds "audrey" and wants "evan": Postgres would abort one with a deadlock.
    await asyncio.wait_for(
        asyncio.gather(batch(["Andrew", "Audrey", "Evan"]), batch(["Evan", "Audrey"])), 10
    )
