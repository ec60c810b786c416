"""Statements of `merges`: moving an entity's rows to a survivor and back, merge events, proposals.

Every statement here is one round trip of a merge, an undo or a proposal page; `merges` decides
which run, in what order, and what the snapshot records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from sqlalchemy import Row, text
from sqlalchemy.ext.asyncio import AsyncSession

__all__ = [
    "accept_open_proposal",
    "aliases_to_move",
    "entity_redirects",
    "fold_alias",
    "later_merge_in_force",
    "merge_event",
    "move_alias",
    "move_back_alias",
    "move_back_references",
    "move_references",
    "open_proposals_page",
    "record_merge",
    "record_undo",
    "recreate_folded_alias",
    "redirect_entity",
    "unredirect_entity",
]

# (table, column) pairs that point at an entity and move with it; the snapshot keys its moved
# row ids by "table.column".
_REFERENCES = (
    ("facts", "subject_entity_id"),
    ("facts", "object_entity_id"),
    ("assertions", "subject_entity_id"),
    ("assertions", "object_entity_id"),
    ("resolution_verdicts", "chosen_entity_id"),
)


async def entity_redirects(
    session: AsyncSession, namespace: str, ids: list[UUID]
) -> dict[UUID, UUID | None]:
    """Each known id with the entity it redirects to (None: live); unknown ids are absent."""
    rows = await session.execute(
        text("SELECT id, redirect_to FROM entities WHERE namespace = :ns AND id = ANY(:ids)"),
        {"ns": namespace, "ids": ids},
    )
    return {r.id: r.redirect_to for r in rows}


async def aliases_to_move(
    session: AsyncSession, namespace: str, survivor_id: UUID, absorbed_id: UUID
) -> Sequence[Row[Any]]:
    """The absorbed entity's alias rows by id, each with `into_id`: the survivor's alias of
    the same normalized spelling, if it has one."""
    rows = await session.execute(
        text(
            "SELECT a.id, a.alias, a.normalized_alias, a.phonetic_code, a.mention_count,"
            " a.first_seen_at, a.last_seen_at, s.id AS into_id FROM entity_aliases a"
            " LEFT JOIN entity_aliases s ON s.namespace = a.namespace AND s.entity_id = :s"
            " AND s.normalized_alias = a.normalized_alias"
            " WHERE a.namespace = :ns AND a.entity_id = :a ORDER BY a.id"
        ),
        {"ns": namespace, "s": survivor_id, "a": absorbed_id},
    )
    return rows.all()


async def move_alias(session: AsyncSession, alias_id: UUID, survivor_id: UUID) -> None:
    await session.execute(
        text("UPDATE entity_aliases SET entity_id = :s WHERE id = :id"),
        {"s": survivor_id, "id": alias_id},
    )


async def fold_alias(
    session: AsyncSession,
    alias_id: UUID,
    into_id: UUID,
    mention_count: int,
    last_seen_at: datetime,
) -> None:
    """Add the alias's counts to the survivor's row of the same spelling and drop it."""
    await session.execute(
        text(
            "UPDATE entity_aliases SET mention_count = mention_count + :n,"
            " last_seen_at = greatest(last_seen_at, :seen) WHERE id = :into"
        ),
        {"n": mention_count, "seen": last_seen_at, "into": into_id},
    )
    await session.execute(text("DELETE FROM entity_aliases WHERE id = :id"), {"id": alias_id})


async def move_references(
    session: AsyncSession, namespace: str, survivor_id: UUID, absorbed_id: UUID
) -> dict[str, list[UUID]]:
    """Point every reference to the absorbed entity at the survivor; returns the ids of the
    moved rows by "table.column"."""
    params = {"ns": namespace, "s": survivor_id, "a": absorbed_id}
    moved: dict[str, list[UUID]] = {}
    for table, column in _REFERENCES:
        rows = await session.execute(
            text(
                f"UPDATE {table} SET {column} = :s WHERE namespace = :ns AND {column} = :a"
                " RETURNING id"
            ),
            params,
        )
        moved[f"{table}.{column}"] = [r[0] for r in rows]
    return moved


async def redirect_entity(session: AsyncSession, absorbed_id: UUID, survivor_id: UUID) -> None:
    await session.execute(
        text("UPDATE entities SET redirect_to = :s, updated_at = now() WHERE id = :a"),
        {"s": survivor_id, "a": absorbed_id},
    )


async def accept_open_proposal(
    session: AsyncSession, namespace: str, survivor_id: UUID, absorbed_id: UUID
) -> None:
    """Mark the open proposal between the two entities (either order) accepted."""
    await session.execute(
        text(
            "UPDATE merge_proposals SET status = 'accepted' WHERE namespace = :ns"
            " AND entity_a_id = least(CAST(:s AS uuid), CAST(:a AS uuid))"
            " AND entity_b_id = greatest(CAST(:s AS uuid), CAST(:a AS uuid)) AND status = 'open'"
        ),
        {"ns": namespace, "s": survivor_id, "a": absorbed_id},
    )


async def record_merge(
    session: AsyncSession,
    namespace: str,
    survivor_id: UUID,
    absorbed_id: UUID,
    snapshot_json: str,
    decided_by: str,
) -> UUID:
    """Insert the merge event with its snapshot; returns its id."""
    merge_id: UUID = (
        await session.execute(
            text(
                "INSERT INTO merge_events (namespace, survivor_id, absorbed_id, snapshot,"
                " decided_by, merged_at) VALUES (:ns, :s, :a, CAST(:snap AS jsonb), :by,"
                " clock_timestamp()) RETURNING id"
            ),
            {
                "ns": namespace,
                "s": survivor_id,
                "a": absorbed_id,
                "snap": snapshot_json,
                "by": decided_by,
            },
        )
    ).scalar_one()
    return merge_id


async def merge_event(session: AsyncSession, namespace: str, merge_id: UUID) -> Row[Any] | None:
    """The merge event (survivor, absorbed, snapshot, merged_at, undone_at), None if unknown."""
    return (
        await session.execute(
            text(
                "SELECT id, survivor_id, absorbed_id, snapshot, merged_at, undone_at"
                " FROM merge_events WHERE namespace = :ns AND id = :id"
            ),
            {"ns": namespace, "id": merge_id},
        )
    ).one_or_none()


async def later_merge_in_force(
    session: AsyncSession,
    namespace: str,
    merge_id: UUID,
    merged_at: datetime,
    survivor_id: UUID,
    absorbed_id: UUID,
) -> UUID | None:
    """A merge after `merged_at`, not undone, involving either entity (None: there is none)."""
    later: UUID | None = (
        await session.execute(
            text(
                "SELECT id FROM merge_events WHERE namespace = :ns AND undone_at IS NULL"
                " AND merged_at > :at AND (survivor_id IN (:s, :a)"
                " OR absorbed_id IN (:s, :a)) LIMIT 1"
            ),
            {
                "ns": namespace,
                "id": merge_id,
                "at": merged_at,
                "s": survivor_id,
                "a": absorbed_id,
            },
        )
    ).scalar_one_or_none()
    return later


async def move_back_alias(
    session: AsyncSession, namespace: str, alias_id: UUID, survivor_id: UUID, absorbed_id: UUID
) -> None:
    """Give a moved alias back to the absorbed entity, if the survivor still has it."""
    await session.execute(
        text("UPDATE entity_aliases SET entity_id = :a WHERE id = :id AND entity_id = :s"),
        {"ns": namespace, "s": survivor_id, "a": absorbed_id, "id": alias_id},
    )


async def recreate_folded_alias(
    session: AsyncSession,
    namespace: str,
    absorbed_id: UUID,
    alias: Mapping[str, Any],
    grams: list[str],
) -> None:
    """Un-fold a snapshot alias: subtract its count from the row it was folded into, recreate
    its row (same id) on the absorbed entity, and its trigram postings `grams`."""
    await session.execute(
        text("UPDATE entity_aliases SET mention_count = mention_count - :n WHERE id = :into"),
        {"n": alias["mention_count"], "into": UUID(alias["folded_into"])},
    )
    await session.execute(
        text(
            "INSERT INTO entity_aliases (id, namespace, entity_id, alias, normalized_alias,"
            " phonetic_code, mention_count, first_seen_at, last_seen_at) VALUES (:id, :ns,"
            " :a, :alias, :norm, :phon, :n, CAST(CAST(:first AS text) AS timestamptz),"
            " CAST(CAST(:last AS text) AS timestamptz))"
        ),
        {
            "ns": namespace,
            "a": absorbed_id,
            "id": UUID(alias["id"]),
            "alias": alias["alias"],
            "norm": alias["normalized_alias"],
            "phon": alias["phonetic_code"],
            "n": alias["mention_count"],
            "first": alias["first_seen_at"],
            "last": alias["last_seen_at"],
        },
    )
    await session.execute(
        text(
            "INSERT INTO alias_trigrams (namespace, trigram, alias_grams, alias_id)"
            " SELECT :ns, g, cardinality(CAST(:grams AS text[])), :id"
            " FROM unnest(CAST(:grams AS text[])) AS g"
        ),
        {"ns": namespace, "id": UUID(alias["id"]), "grams": grams},
    )


async def move_back_references(
    session: AsyncSession,
    namespace: str,
    survivor_id: UUID,
    absorbed_id: UUID,
    moved: Mapping[str, Sequence[str]],
) -> None:
    """Point the snapshot's moved rows (ids by "table.column") back at the absorbed entity."""
    params = {"ns": namespace, "s": survivor_id, "a": absorbed_id}
    for table, column in _REFERENCES:
        ids = moved.get(f"{table}.{column}", [])
        if not ids:
            continue
        await session.execute(
            text(
                f"UPDATE {table} SET {column} = :a WHERE namespace = :ns AND {column} = :s"
                " AND id = ANY(:ids)"
            ),
            params | {"ids": [UUID(i) for i in ids]},
        )


async def unredirect_entity(session: AsyncSession, absorbed_id: UUID) -> None:
    await session.execute(
        text("UPDATE entities SET redirect_to = NULL, updated_at = now() WHERE id = :a"),
        {"a": absorbed_id},
    )


async def record_undo(session: AsyncSession, merge_id: UUID, decided_by: str) -> None:
    await session.execute(
        text(
            "UPDATE merge_events SET undone_at = now(), snapshot = snapshot ||"
            " jsonb_build_object('undone_by', CAST(:by AS text)) WHERE id = :id"
        ),
        {"id": merge_id, "by": decided_by},
    )


async def open_proposals_page(
    session: AsyncSession, namespace: str, impact: float, after: UUID | None, limit: int
) -> Sequence[Row[Any]]:
    """Up to `limit` open proposals between live entities after the keyset (impact, after),
    highest expected impact first."""
    return (
        await session.execute(
            text(
                "SELECT p.id, p.entity_a_id, ea.canonical_name AS a_name, p.entity_b_id,"
                " eb.canonical_name AS b_name, p.score, p.expected_impact, p.created_at"
                " FROM merge_proposals p JOIN entities ea ON ea.id = p.entity_a_id"
                " JOIN entities eb ON eb.id = p.entity_b_id"
                " WHERE p.namespace = :ns AND p.status = 'open'"
                " AND ea.redirect_to IS NULL AND eb.redirect_to IS NULL"
                " AND (p.expected_impact < :impact OR (p.expected_impact = :impact"
                "      AND (CAST(:after AS uuid) IS NULL OR p.id > :after)))"
                " ORDER BY p.expected_impact DESC, p.id LIMIT :limit"
            ),
            {"ns": namespace, "impact": impact, "after": after, "limit": limit},
        )
    ).all()
