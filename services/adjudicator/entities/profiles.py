"""Entity profiles: a short text from the entity's strongest current facts, and its embedding."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncSession

from services.adjudicator.entities import profile_repository
from shared.embedding import Embedder, embed_async
from shared.entities.lookup_repository import canonical_ids, vector_literal

__all__ = ["PROFILE_FACTS", "PROFILE_MAX_CHARS", "profile_text", "refresh_profiles"]

PROFILE_FACTS = 5
PROFILE_ALIASES = 3
PROFILE_MAX_CHARS = 600


def profile_text(name: str, aliases: Sequence[str], facts: Sequence[str]) -> str:
    """ "Name (also: A, B). fact. fact." — aliases first, so short forms embed near the name."""
    head = name
    others = [a for a in aliases if a.casefold() != name.casefold()][:PROFILE_ALIASES]
    if others:
        head += f" (also: {', '.join(others)})"
    body = " ".join(f"{fact.rstrip('.')}." for fact in facts)
    return f"{head}. {body}".strip()[:PROFILE_MAX_CHARS]


async def refresh_profiles(
    session: AsyncSession, namespace: str, entity_ids: Sequence[UUID], embedder: Embedder
) -> int:
    """Rebuild and re-embed the profiles of these entities (redirects followed); returns how
    many were written. Call it after facts about them change."""
    live = sorted(set((await canonical_ids(session, namespace, entity_ids)).values()))
    if not live:
        return 0
    sources = await profile_repository.profile_sources(session, namespace, live, PROFILE_FACTS)
    texts = [
        profile_text(sources.names[i], sources.aliases.get(i, []), sources.facts.get(i, []))
        for i in live
    ]
    vectors = await embed_async(embedder, texts)
    for entity_id, profile, vector in zip(live, texts, vectors, strict=True):
        await profile_repository.write_profile(
            session, entity_id, profile, vector_literal(vector.tolist())
        )
    return len(live)
