"""Entity profiles: a short text from the entity's strongest current facts, and its embedding."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from shared.embedding import Embedder, embed_async
from shared.entities.lookup import canonical_ids, vector_literal

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
    params = {"ns": namespace, "ids": live}
    rows = await session.execute(
        text("SELECT id, canonical_name FROM entities WHERE namespace = :ns AND id = ANY(:ids)"),
        params,
    )
    names: dict[UUID, str] = {r.id: r.canonical_name for r in rows}
    aliases: dict[UUID, list[str]] = defaultdict(list)
    for entity_id, alias in await session.execute(
        text(
            "SELECT entity_id, alias FROM entity_aliases WHERE namespace = :ns"
            " AND entity_id = ANY(:ids) ORDER BY mention_count DESC, alias"
        ),
        params,
    ):
        aliases[entity_id].append(alias)
    facts: dict[UUID, list[str]] = defaultdict(list)
    for entity_id, label in await session.execute(
        text(
            "SELECT e.id, f.label FROM unnest(CAST(:ids AS uuid[])) AS e(id)"
            " CROSS JOIN LATERAL (SELECT label, evidence_count, ingested_at FROM facts"
            "  WHERE namespace = :ns AND invalidated_at IS NULL AND support = 'current'"
            "  AND (subject_entity_id = e.id OR object_entity_id = e.id)"
            "  ORDER BY evidence_count DESC, ingested_at DESC LIMIT :k) f"
        ),
        params | {"k": PROFILE_FACTS},
    ):
        facts[entity_id].append(label)
    texts = [profile_text(names[i], aliases[i], facts[i]) for i in live]
    vectors = await embed_async(embedder, texts)
    for entity_id, profile, vector in zip(live, texts, vectors, strict=True):
        await session.execute(
            text(
                "UPDATE entities SET profile_text = :t, profile_embedding = CAST(:v AS vector),"
                " updated_at = now() WHERE id = :id"
            ),
            {"t": profile, "v": vector_literal(vector.tolist()), "id": entity_id},
        )
    return len(live)
