"""Statements of `slots`: a slot's members as stored, and the writes that settle it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from sqlalchemy import Row, text
from sqlalchemy.ext.asyncio import AsyncSession

__all__ = [
    "departure_rows",
    "new_contradiction_group",
    "open_group_members",
    "record_timeline_transcripts",
    "resolve_groups",
    "set_contradiction_group",
    "slot_member_rows",
    "update_window",
]

# Every supporting, current assertion of the slots' believed facts: positive ones for a
# relation slot (a relation's negation is its end or a dispute, never a value of its own), any
# for an observation slot, where "no longer supports it from 1 March" is the value that
# followed "supports it" and closes it there.
_MEMBERS = text(
    """
    SELECT f.id, f.subject_entity_id, f.predicate, f.slot_id, f.object_entity_id, f.label,
           f.valid_from, f.valid_until, f.valid_precision, f.superseded_by_fact_id,
           f.contradiction_group_id,
           a.valid_from AS a_from, a.valid_until AS a_until, a.valid_precision AS a_precision,
           a.phase, a.concurrent, c.asserted_at, c.claim_valid_kind
    FROM facts f
    JOIN assertions a ON a.namespace = f.namespace AND a.fact_id = f.id
    JOIN fact_evidence fe ON fe.namespace = f.namespace AND fe.fact_id = f.id
         AND fe.claim_id = a.claim_id AND fe.stance = 'supports'
    JOIN claims c ON c.id = a.claim_id AND c.is_current_testimony
    WHERE f.namespace = :ns AND f.invalidated_at IS NULL
      AND (a.polarity = 'positive' OR f.kind = 'observation')
      AND (
        (f.kind = 'relation' AND (f.subject_entity_id, f.predicate) IN (
            SELECT s, p FROM unnest(CAST(:subjects AS uuid[]), CAST(:predicates AS text[]))
              AS k(s, p)))
        OR (f.slot_id = ANY(CAST(:slot_ids AS uuid[])))
      )
    ORDER BY f.id
    """
)
# Departures naming no employer ("has left the company"): observations stored with phase
# `end`, read as vacancies of their subjects' employer slots (see `slots`).
_DEPARTURES = text(
    """
    SELECT f.id, f.subject_entity_id, f.label,
           a.valid_from AS a_from, a.valid_until AS a_until, a.valid_precision AS a_precision,
           c.asserted_at
    FROM facts f
    JOIN assertions a ON a.namespace = f.namespace AND a.fact_id = f.id
    JOIN fact_evidence fe ON fe.namespace = f.namespace AND fe.fact_id = f.id
         AND fe.claim_id = a.claim_id AND fe.stance = 'supports'
    JOIN claims c ON c.id = a.claim_id AND c.is_current_testimony
    WHERE f.namespace = :ns AND f.invalidated_at IS NULL AND f.kind = 'observation'
      AND a.phase = 'end' AND f.subject_entity_id = ANY(CAST(:subjects AS uuid[]))
    ORDER BY f.id
    """
)
_UPDATE_WINDOW = text(
    """
    UPDATE facts SET valid_from = :valid_from, valid_until = :valid_until,
           valid_precision = :precision, superseded_by_fact_id = :superseded_by,
           updated_at = now()
    WHERE namespace = :ns AND id = :id
    """
)
_GROUP_MEMBERS = text(
    """
    SELECT f.contradiction_group_id AS group_id, f.id
    FROM facts f JOIN contradiction_groups g ON g.id = f.contradiction_group_id
    WHERE f.namespace = :ns AND g.resolved_at IS NULL
      AND f.contradiction_group_id = ANY(CAST(:groups AS uuid[])) AND f.invalidated_at IS NULL
    """
)
_NEW_GROUP = text("INSERT INTO contradiction_groups (namespace) VALUES (:ns) RETURNING id")
_SET_GROUP = text(
    "UPDATE facts SET contradiction_group_id = :group_id, updated_at = now()"
    " WHERE namespace = :ns AND id = ANY(CAST(:ids AS uuid[]))"
)
_RESOLVE_GROUPS = text(
    """
    UPDATE contradiction_groups g SET resolved_at = now()
    WHERE g.namespace = :ns AND g.id = ANY(CAST(:groups AS uuid[])) AND g.resolved_at IS NULL
      AND (SELECT count(*) FROM facts f WHERE f.namespace = g.namespace
           AND f.contradiction_group_id = g.id AND f.invalidated_at IS NULL) < 2
    """
)
_TRANSCRIPTS = text(
    """
    INSERT INTO decision_transcripts (id, namespace, fact_id, related_fact_id, outcome, action,
        method, engine, confidence, rationale, window_before, window_after, decided_by,
        decided_at)
    SELECT r.id, :ns, r.fact_id, r.related_fact_id, r.outcome, r.action, 'timeline', 'timeline',
           1.0, r.rationale, r.window_before, r.window_after, :decided_by, clock_timestamp()
    FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS r(id uuid, fact_id uuid,
        related_fact_id uuid, outcome text, action text, rationale text, window_before jsonb,
        window_after jsonb)
    """
)


async def slot_member_rows(
    session: AsyncSession,
    namespace: str,
    subjects: Sequence[UUID | None],
    predicates: Sequence[str | None],
    slot_ids: Sequence[UUID | None],
) -> Sequence[Row[Any]]:
    """One row per supporting, current assertion of the believed facts of the relation slots
    (subject, predicate pairs; positive assertions only) and observation slots, by fact id."""
    rows = await session.execute(
        _MEMBERS,
        {"ns": namespace, "subjects": subjects, "predicates": predicates, "slot_ids": slot_ids},
    )
    return rows.all()


async def departure_rows(
    session: AsyncSession, namespace: str, subjects: Sequence[UUID]
) -> Sequence[Row[Any]]:
    """One row per supporting, current assertion of the subjects' departures naming no
    employer (observations with phase `end`)."""
    if not subjects:
        return []
    rows = await session.execute(_DEPARTURES, {"ns": namespace, "subjects": list(subjects)})
    return rows.all()


async def update_window(
    session: AsyncSession,
    namespace: str,
    fact_id: UUID,
    *,
    valid_from: datetime | None,
    valid_until: datetime | None,
    precision: str,
    superseded_by: UUID | None,
) -> None:
    await session.execute(
        _UPDATE_WINDOW,
        {
            "ns": namespace,
            "id": fact_id,
            "valid_from": valid_from,
            "valid_until": valid_until,
            "precision": precision,
            "superseded_by": superseded_by,
        },
    )


async def record_timeline_transcripts(
    session: AsyncSession, namespace: str, decided_by: str, rows_json: str
) -> None:
    """Insert the transcript rows (a JSON array, method and engine `timeline`) in one statement."""
    await session.execute(
        _TRANSCRIPTS, {"ns": namespace, "decided_by": decided_by, "rows": rows_json}
    )


async def open_group_members(
    session: AsyncSession, namespace: str, group_ids: list[UUID]
) -> Sequence[Row[Any]]:
    """(group_id, id) of every believed fact in these unresolved contradiction groups."""
    return (await session.execute(_GROUP_MEMBERS, {"ns": namespace, "groups": group_ids})).all()


async def new_contradiction_group(session: AsyncSession, namespace: str) -> UUID:
    group_id: UUID = (await session.execute(_NEW_GROUP, {"ns": namespace})).scalar_one()
    return group_id


async def set_contradiction_group(
    session: AsyncSession, namespace: str, group_id: UUID | None, fact_ids: list[UUID]
) -> None:
    """Put the facts in the group (None: in none)."""
    await session.execute(_SET_GROUP, {"ns": namespace, "group_id": group_id, "ids": fact_ids})


async def resolve_groups(session: AsyncSession, namespace: str, group_ids: list[UUID]) -> None:
    """Resolve those of these groups left with fewer than two believed members."""
    await session.execute(_RESOLVE_GROUPS, {"ns": namespace, "groups": group_ids})
