"""Statements of `profiles`: what an entity's profile is built from, and writing it."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

__all__ = ["ProfileSources", "profile_sources", "write_profile"]


@dataclass(frozen=True)
class ProfileSources:
    """Per entity: its canonical name, aliases (most mentioned first) and strongest fact labels."""

    names: dict[UUID, str]
    aliases: dict[UUID, list[str]]
    facts: dict[UUID, list[str]]


async def profile_sources(
    session: AsyncSession, namespace: str, entity_ids: list[UUID], facts_per_entity: int
) -> ProfileSources:
    """Names, aliases and the labels of the `facts_per_entity` current facts about each entity
    with the most evidence (then the latest ingested)."""
    params = {"ns": namespace, "ids": entity_ids}
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
        params | {"k": facts_per_entity},
    ):
        facts[entity_id].append(label)
    return ProfileSources(names, aliases, facts)


async def write_profile(
    session: AsyncSession, entity_id: UUID, profile: str, vector_literal: str
) -> None:
    """Store the profile text and its embedding (a pgvector literal)."""
    await session.execute(
        text(
            "UPDATE entities SET profile_text = :t, profile_embedding = CAST(:v AS vector),"
            " updated_at = now() WHERE id = :id"
        ),
        {"t": profile, "v": vector_literal, "id": entity_id},
    )
