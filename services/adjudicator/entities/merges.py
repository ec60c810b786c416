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

from sqlalchemy.ext.asyncio import AsyncSession

from services.adjudicator.entities import merge_repository
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


async def merge_entities(
    session: AsyncSession, namespace: str, survivor_id: UUID, absorbed_id: UUID, decided_by: str
) -> MergeOutcome:
    """Make `absorbed_id` a redirect to `survivor_id`, moving everything that points at it."""
    if survivor_id == absorbed_id:
        raise InvalidArgument([FieldViolation("absorbed_id", "must differ from survivor_id")])
    await lock_entities(session, namespace, [survivor_id, absorbed_id])
    found = await merge_repository.entity_redirects(session, namespace, [survivor_id, absorbed_id])
    for name, entity_id in (("survivor_id", survivor_id), ("absorbed_id", absorbed_id)):
        if entity_id not in found:
            raise NotFound(f"unknown entity {name}={entity_id}")
        if found[entity_id] is not None:
            raise FailedPrecondition(f"{name}={entity_id} is already merged into another entity")
    aliases = await merge_repository.aliases_to_move(session, namespace, survivor_id, absorbed_id)
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
            await merge_repository.move_alias(session, row.id, survivor_id)
        else:
            # The survivor already has this spelling: fold the counts, drop the duplicate row.
            await merge_repository.fold_alias(
                session, row.id, row.into_id, row.mention_count, row.last_seen_at
            )
    moved = await merge_repository.move_references(session, namespace, survivor_id, absorbed_id)
    snapshot["refs"] = {key: sorted(str(i) for i in ids) for key, ids in moved.items()}
    await merge_repository.redirect_entity(session, absorbed_id, survivor_id)
    await merge_repository.accept_open_proposal(session, namespace, survivor_id, absorbed_id)
    merge_id = await merge_repository.record_merge(
        session, namespace, survivor_id, absorbed_id, json.dumps(snapshot), decided_by
    )
    facts = {
        ref for key, ids in snapshot["refs"].items() if key.startswith("facts.") for ref in ids
    }
    return MergeOutcome(merge_id, len(aliases), len(facts))


async def undo_merge(
    session: AsyncSession, namespace: str, merge_id: UUID, decided_by: str
) -> UndoOutcome:
    """Replay a merge's snapshot backwards; refused if undone already or a later merge
    involving either entity is still in force."""
    event = await merge_repository.merge_event(session, namespace, merge_id)
    if event is None:
        raise NotFound(f"unknown merge {merge_id}")
    if event.undone_at is not None:
        raise FailedPrecondition(f"merge {merge_id} was already undone")
    survivor_id, absorbed_id = event.survivor_id, event.absorbed_id
    await lock_entities(session, namespace, [survivor_id, absorbed_id])
    later = await merge_repository.later_merge_in_force(
        session, namespace, merge_id, event.merged_at, survivor_id, absorbed_id
    )
    if later is not None:
        raise FailedPrecondition(f"merge {later} depends on merge {merge_id}; undo it first")
    snapshot: dict[str, Any] = event.snapshot
    for alias in snapshot["aliases"]:
        if alias["folded_into"] is None:
            await merge_repository.move_back_alias(
                session, namespace, UUID(alias["id"]), survivor_id, absorbed_id
            )
            continue
        grams = sorted(trigrams(alias["normalized_alias"]))
        await merge_repository.recreate_folded_alias(session, namespace, absorbed_id, alias, grams)
    await merge_repository.move_back_references(
        session, namespace, survivor_id, absorbed_id, snapshot["refs"]
    )
    facts = {
        ref for key, ids in snapshot["refs"].items() if key.startswith("facts.") for ref in ids
    }
    await merge_repository.unredirect_entity(session, absorbed_id)
    await merge_repository.record_undo(session, merge_id, decided_by)
    return UndoOutcome(absorbed_id, len(snapshot["aliases"]), len(facts))


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
    rows = await merge_repository.open_proposals_page(
        session, namespace, impact, after, page_size + 1
    )
    views = [
        ProposalView(
            row.id,
            row.entity_a_id,
            row.a_name,
            row.entity_b_id,
            row.b_name,
            row.score,
            row.expected_impact,
            row.created_at,
        )
        for row in rows[:page_size]
    ]
    token = (
        _encode_token(views[-1].expected_impact, views[-1].proposal_id)
        if len(rows) > page_size
        else ""
    )
    return ProposalPage(views, token)
