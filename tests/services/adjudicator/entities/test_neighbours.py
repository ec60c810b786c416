"""The context a candidate entity is judged on: who it shared a document with."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.adjudicator.entities import repository as repo
from services.adjudicator.entities.resolver import EntityResolver, Mention, ResolutionContext
from shared.entities import lookup_repository

_NAMES = ("Ada Byron", "Grace Hopper", "Edsger Dijkstra")
DocumentClaims = Callable[[AsyncSession, str, int], Awaitable[tuple[uuid.UUID, list[uuid.UUID]]]]


async def test_each_entity_gets_its_own_neighbours_whichever_others_are_asked_along(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    resolver = EntityResolver(None)
    documents = [["Ada Byron", "Grace Hopper", "Alan Turing"], ["Ada Byron", "Edsger Dijkstra"]]
    ids: dict[str, uuid.UUID] = {}
    async with session_factory() as session, session.begin():
        for names in documents:
            doc, claims = await document_claims(session, namespace, len(names))
            mentions = [Mention(n, "subject", c, doc) for n, c in zip(names, claims, strict=True)]
            for r in await resolver.resolve_mentions(session, namespace, mentions):
                assert r.entity_id is not None
                ids[r.mention.text] = r.entity_id
        ada, grace, alan, edsger = (ids[n] for n in (*documents[0], documents[1][1]))
        alone = await lookup_repository.entity_neighbours(session, namespace, [ada])
        assert alone == {ada: {grace, alan, edsger}}
        together = await lookup_repository.entity_neighbours(
            session, namespace, [edsger, grace, ada]
        )
        assert together == {ada: {grace, alan, edsger}, grace: {ada, alan}, edsger: {ada}}
        # The limit is each entity's: a shared one would leave some of them with nothing.
        capped = await lookup_repository.entity_neighbours(
            session, namespace, [ada, grace, edsger], 1
        )
        assert all(len(others) == 1 for others in capped.values())
        assert capped[edsger] == {ada} and capped[ada] <= {grace, alan, edsger}


async def test_neighbours_read_ahead_are_read_again_when_a_verdict_since_changed_them(
    session_factory: async_sessionmaker[AsyncSession],
    namespace: str,
    document_claims: DocumentClaims,
) -> None:
    resolver = EntityResolver(None)
    async with session_factory() as session, session.begin():
        doc, claims = await document_claims(session, namespace, 3)
        ada, grace, edsger = await resolver.resolve_mentions(
            session,
            namespace,
            [Mention(n, "subject", c, doc) for n, c in zip(_NAMES, claims, strict=True)],
        )
        assert ada.entity_id and grace.entity_id and edsger.entity_id
        later_doc, claims = await document_claims(session, namespace, 2)
        context = ResolutionContext(session, namespace)
        await context.load_documents([later_doc])
        await context.load_neighbours_ahead([ada.entity_id, grace.entity_id])
        # Ada is named in a new document next to a new entity: her context changes, Grace's
        # does not (she was never chosen there).
        alan = uuid.uuid4()
        for written in (
            repo.Written(
                alan,
                "Alan Turing",
                "Alan Turing",
                "alan turing",
                claims[0],
                "subject",
                "new",
                {},
                "t",
                later_doc,
            ),
            repo.Written(
                ada.entity_id,
                None,
                "Ada",
                "ada",
                claims[1],
                "subject",
                "exact_alias",
                {},
                "t",
                later_doc,
            ),
        ):
            context.decide(written)
        await context.load_neighbours([grace.entity_id])
        assert context.written  # taken as read ahead: nothing needed writing first
        assert context.neighbours == {grace.entity_id: {ada.entity_id, edsger.entity_id}}
        await context.load_neighbours([ada.entity_id])
        assert not context.written  # written, then read again
        assert context.neighbours[ada.entity_id] == {grace.entity_id, edsger.entity_id, alan}
