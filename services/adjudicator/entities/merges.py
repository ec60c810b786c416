"""Merging entities (redirect + snapshot), undoing merges exactly, and listing proposals.

A merge moves the absorbed entity's aliases, the subject/object references of its facts and
assertions, and its resolution verdicts to the survivor, and records the ids of every moved row
in `merge_events.snapshot`. Undo moves exactly those rows back (aliases the survivor already had
are un-folded: the absorbed alias row is recreated with its id and its count is subtracted
again). Rows created after the merge stay on the survivor: their evidence was resolved to the
survivor, and deciding otherwise would need the model step again — a new merge proposal is
the way to move them.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from shared.beliefs.locks import lock_entities
from shared.entities.normalize import trigrams
from shared.errors import FailedPrecondition, FieldViolation, InvalidArgument, NotFound

__all__ = [
    "MergeOutcome",
    "ProposalPage",
    "ProposalView",
    "UndoOutcome",
    "list_merge_proposals",
    "merge_entities",
    "undo_merge",
]

# (table, column) pairs that point at an entity and move with it.
_REFERENCES = (
    ("facts", "subject_entity_id"),
    ("facts", "object_entity_id"),
    ("assertions", "subject_entity_id"),
    ("assertions", "object_entity_id"),
    ("resolution_verdicts", "chosen_entity_id"),
)


@dataclass(frozen=True)
class MergeOutcome:
    merge_id: UUID
    aliases_moved: int
    facts_moved: int


@dataclass(frozen=True)
class UndoOutcome:
    restored_entity_id: UUID
    aliases_restored: int
    facts_restored: int


@dataclass(frozen=True)
class ProposalView:
    proposal_id: UUID
    entity_a_id: UUID
    entity_a_name: str
    entity_b_id: UUID
    entity_b_name: str
    score: float
    expected_impact: float
    created_at: datetime


@dataclass(frozen=True)
class ProposalPage:
    proposals: list[ProposalView]
    next_page_token: str


async def _entities(session: AsyncSession, namespace: str, ids: list[UUID]) -> dict[UUID, Any]:
    rows = await session.execute(
        text("SELECT id, redirect_to FROM entities WHERE namespace = :ns AND id = ANY(:ids)"),
        {"ns": namespace, "ids": ids},
    )
    return {r.id: r.redirect_to for r in rows}


async def merge_entities(
    session: AsyncSession, namespace: str, survivor_id: UUID, absorbed_id: UUID, decided_by: str
) -> MergeOutcome:
    """Make `absorbed_id` a redirect to `survivor_id`, moving everything that points at it."""
    if survivor_id == absorbed_id:
        raise InvalidArgument([FieldViolation("absorbed_id", "must differ from survivor_id")])
    await lock_entities(session, namespace, [survivor_id, absorbed_id])
    found = await _entities(session, namespace, [survivor_id, absorbed_id])
    for name, entity_id in (("survivor_id", survivor_id), ("absorbed_id", absorbed_id)):
        if entity_id not in found:
            raise NotFound(f"unknown entity {name}={entity_id}")
        if found[entity_id] is not None:
            raise FailedPrecondition(f"{name}={entity_id} is already merged into another entity")
    params = {"ns": namespace, "s": survivor_id, "a": absorbed_id}
    aliases = (
        await session.execute(
            text(
                "SELECT a.id, a.alias, a.normalized_alias, a.phonetic_code, a.mention_count,"
                " a.first_seen_at, a.last_seen_at, s.id AS into_id FROM entity_aliases a"
                " LEFT JOIN entity_aliases s ON s.namespace = a.namespace AND s.entity_id = :s"
                " AND s.normalized_alias = a.normalized_alias"
                " WHERE a.namespace = :ns AND a.entity_id = :a ORDER BY a.id"
            ),
            params,
        )
    ).all()
    snapshot: dict[str, Any] = {"aliases": [], "refs": {}}
    for row in aliases:
        snapshot["aliases"].append(
            {
                "id": str(row.id),
                "alias": row.alias,
                "normalized_alias": row.normalized_alias,
                "phonetic_code": row.phonetic_code,
                "mention_count": row.mention_count,
                "first_seen_at": row.first_seen_at.isoformat(),
                "last_seen_at": row.last_seen_at.isoformat(),
                "folded_into": str(row.into_id) if row.into_id else None,
            }
        )
        if row.into_id is None:
            await session.execute(
                text("UPDATE entity_aliases SET entity_id = :s WHERE id = :id"),
                {"s": survivor_id, "id": row.id},
            )
        else:
            # The survivor already has this spelling: fold the counts, drop the duplicate row.
            await session.execute(
                text(
                    "UPDATE entity_aliases SET mention_count = mention_count + :n,"
                    " last_seen_at = greatest(last_seen_at, :seen) WHERE id = :into"
                ),
                {"n": row.mention_count, "seen": row.last_seen_at, "into": row.into_id},
            )
            await session.execute(text("DELETE FROM entity_aliases WHERE id = :id"), {"id": row.id})
    for table, column in _REFERENCES:
        moved = await session.execute(
            text(
                f"UPDATE {table} SET {column} = :s WHERE namespace = :ns AND {column} = :a"
                " RETURNING id"
            ),
            params,
        )
        snapshot["refs"][f"{table}.{column}"] = sorted(str(r[0]) for r in moved)
    await session.execute(
        text("UPDATE entities SET redirect_to = :s, updated_at = now() WHERE id = :a"), params
    )
    await session.execute(
        text(
            "UPDATE merge_proposals SET status = 'accepted' WHERE namespace = :ns"
            " AND entity_a_id = least(CAST(:s AS uuid), CAST(:a AS uuid))"
            " AND entity_b_id = greatest(CAST(:s AS uuid), CAST(:a AS uuid)) AND status = 'open'"
        ),
        params,
    )
    merge_id: UUID = (
        await session.execute(
            text(
                "INSERT INTO merge_events (namespace, survivor_id, absorbed_id, snapshot,"
                " decided_by, merged_at) VALUES (:ns, :s, :a, CAST(:snap AS jsonb), :by,"
                " clock_timestamp()) RETURNING id"
            ),
            params | {"snap": json.dumps(snapshot), "by": decided_by},
        )
    ).scalar_one()
    facts = {
        ref for key, ids in snapshot["refs"].items() if key.startswith("facts.") for ref in ids
    }
    return MergeOutcome(merge_id, len(aliases), len(facts))


async def undo_merge(
    session: AsyncSession, namespace: str, merge_id: UUID, decided_by: str
) -> UndoOutcome:
    """Replay a merge's snapshot backwards; refused if undone already or a later merge
    involving either entity is still in force."""
    event = (
        await session.execute(
            text(
                "SELECT id, survivor_id, absorbed_id, snapshot, merged_at, undone_at"
                " FROM merge_events WHERE namespace = :ns AND id = :id"
            ),
            {"ns": namespace, "id": merge_id},
        )
    ).one_or_none()
    if event is None:
        raise NotFound(f"unknown merge {merge_id}")
    if event.undone_at is not None:
        raise FailedPrecondition(f"merge {merge_id} was already undone")
    await lock_entities(session, namespace, [event.survivor_id, event.absorbed_id])
    later = (
        await session.execute(
            text(
                "SELECT id FROM merge_events WHERE namespace = :ns AND undone_at IS NULL"
                " AND merged_at > :at AND (survivor_id IN (:s, :a)"
                " OR absorbed_id IN (:s, :a)) LIMIT 1"
            ),
            {
                "ns": namespace,
                "id": merge_id,
                "at": event.merged_at,
                "s": event.survivor_id,
                "a": event.absorbed_id,
            },
        )
    ).scalar_one_or_none()
    if later is not None:
        raise FailedPrecondition(f"merge {later} depends on merge {merge_id}; undo it first")
    snapshot: dict[str, Any] = event.snapshot
    params = {"ns": namespace, "s": event.survivor_id, "a": event.absorbed_id}
    for alias in snapshot["aliases"]:
        if alias["folded_into"] is None:
            await session.execute(
                text("UPDATE entity_aliases SET entity_id = :a WHERE id = :id AND entity_id = :s"),
                params | {"id": UUID(alias["id"])},
            )
            continue
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
            params
            | {
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
            {
                "ns": namespace,
                "id": UUID(alias["id"]),
                "grams": sorted(trigrams(alias["normalized_alias"])),
            },
        )
    facts: set[str] = set()
    for table, column in _REFERENCES:
        ids = snapshot["refs"].get(f"{table}.{column}", [])
        if not ids:
            continue
        await session.execute(
            text(
                f"UPDATE {table} SET {column} = :a WHERE namespace = :ns AND {column} = :s"
                " AND id = ANY(:ids)"
            ),
            params | {"ids": [UUID(i) for i in ids]},
        )
        if table == "facts":
            facts.update(ids)
    await session.execute(
        text("UPDATE entities SET redirect_to = NULL, updated_at = now() WHERE id = :a"), params
    )
    await session.execute(
        text(
            "UPDATE merge_events SET undone_at = now(), snapshot = snapshot ||"
            " jsonb_build_object('undone_by', CAST(:by AS text)) WHERE id = :id"
        ),
        {"id": merge_id, "by": decided_by},
    )
    return UndoOutcome(event.absorbed_id, len(snapshot["aliases"]), len(facts))


def _encode_token(impact: float, proposal_id: UUID) -> str:
    raw = json.dumps([impact, str(proposal_id)]).encode()
    return base64.urlsafe_b64encode(raw).decode()


def _decode_token(token: str) -> tuple[float, UUID]:
    try:
        impact, proposal_id = json.loads(base64.urlsafe_b64decode(token.encode()))
        return float(impact), UUID(proposal_id)
    except (ValueError, TypeError, binascii.Error) as exc:
        raise InvalidArgument([FieldViolation("page_token", "malformed page token")]) from exc


async def list_merge_proposals(
    session: AsyncSession, namespace: str, page_size: int, page_token: str = ""
) -> ProposalPage:
    """Open proposals between live entities, highest expected impact first (keyset pages)."""
    if not 1 <= page_size <= 200:
        raise InvalidArgument([FieldViolation("page_size", "must be 1-200")])
    impact, after = _decode_token(page_token) if page_token else (float("inf"), None)
    rows = (
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
            {"ns": namespace, "impact": impact, "after": after, "limit": page_size + 1},
        )
    ).all()
    views = [ProposalView(*row) for row in rows[:page_size]]
    token = (
        _encode_token(views[-1].expected_impact, views[-1].proposal_id)
        if len(rows) > page_size
        else ""
    )
    return ProposalPage(views, token)
