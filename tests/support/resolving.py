"""Resolving names as the entity tests do: each list of names is one new document's mentions."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from services.adjudicator.entities.resolver import EntityResolver, Mention, ResolvedMention

__all__ = ["DocumentClaims", "entity_count", "merge_proposals", "resolve_in_document"]

DocumentClaims = Callable[[AsyncSession, str, int], Awaitable[tuple[uuid.UUID, list[uuid.UUID]]]]


async def resolve_in_document(
    session: AsyncSession,
    namespace: str,
    document_claims: DocumentClaims,
    texts: list[str],
    extra_context: tuple[str, ...] = (),
    speaker: str | None = None,
) -> list[ResolvedMention]:
    """Resolve `texts` as subjects of consecutive claims of one new document; each mention's
    co-mentions are the document's other names plus `extra_context`."""
    doc, claims = await document_claims(session, namespace, len(texts))
    mentions = [
        Mention(
            t,
            "subject",
            claim,
            doc,
            speaker=speaker,
            co_mentions=tuple(o for o in texts if o != t) + extra_context,
        )
        for t, claim in zip(texts, claims, strict=True)
    ]
    return await EntityResolver(None).resolve_mentions(session, namespace, mentions)


async def entity_count(session: AsyncSession, namespace: str) -> int:
    count: int = (
        await session.execute(
            text("SELECT count(*) FROM entities WHERE namespace = :ns"), {"ns": namespace}
        )
    ).scalar_one()
    return count


async def merge_proposals(
    session: AsyncSession, namespace: str
) -> list[tuple[uuid.UUID, uuid.UUID]]:
    rows = await session.execute(
        text("SELECT entity_a_id, entity_b_id FROM merge_proposals WHERE namespace = :ns"),
        {"ns": namespace},
    )
    return [(a, b) for a, b in rows]
