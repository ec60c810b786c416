"""Settling slots: the facts whose windows the timeline places (see `timeline`).

A relation slot is every believed positive relation of one subject under one functional
predicate (an employer, a team, a manager, a location, an owner, the whole it is part of); an
observation slot is the facts sharing a `slot_id` (successive values of one attribute, grouped
by the adjudicator). `settle_slots` reads what each member's current supporting claims state,
places the whole slot with `timeline.place`, and writes only what changed: windows,
`superseded_by_fact_id`, contradiction groups, and one transcript row per change (method
`timeline`). The caller holds the subjects' entity locks, so one slot is settled by one writer
at a time. The statements are in `slot_repository`.
"""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from sqlalchemy.ext.asyncio import AsyncSession

from shared.beliefs import slot_repository
from shared.beliefs.timeline import Placement, SlotMember, place
from shared.text.cancellations import CALLED_OFF

__all__ = [
    "EMPLOYER_PREDICATE",
    "FUNCTIONAL_PREDICATES",
    "OWNED_BY_ESCAPE",
    "SlotKey",
    "settle_slots",
]

_NEVER = datetime.min.replace(tzinfo=UTC)
_ONE_DAY = timedelta(days=1)

# One object at a time unless a claim says otherwise ("also works part-time at …"): a
# different object later is a successor, at the same time a conflict. A project or team is
# part of one whole ("moved from the Harbor Foundation to Coastal Commons").
#
# An owner is the owned thing's slot ("billing is owned by the Payments team"): the work pack
# calls it `assigned_to`; without the pack the core vocabulary has no name for it, and it is
# stored under this escape rather than dropped, so a change of owner still supersedes.
OWNED_BY_ESCAPE = "other:owned_by"
EMPLOYER_PREDICATE = "works_for"
FUNCTIONAL_PREDICATES = frozenset(
    {
        "works_for",
        "member_of",
        "reports_to",
        "located_in",
        "assigned_to",
        "part_of",
        OWNED_BY_ESCAPE,
    }
)


@dataclass(frozen=True, slots=True)
class SlotKey:
    """A relation slot (subject, predicate) or an observation slot (its id)."""

    subject: UUID | None = None
    predicate: str | None = None
    slot_id: UUID | None = None


@dataclass
class _Stored:
    """A slot member as stored, with what its assertions state."""

    fact_id: UUID
    slot: SlotKey
    value: str
    label: str
    window: tuple[datetime | None, datetime | None, str]
    superseded_by: UUID | None
    group_id: UUID | None
    starts: list[tuple[datetime, str, datetime | None]]  # (start, precision, said on)
    ends: list[tuple[datetime, str, datetime | None]]  # (end, precision, said on)
    said: list[datetime]
    concurrent: bool = False
    announces_change: bool = False
    cancels: bool = False
    # When sources said the ending did not or will not happen ("is not leaving Acme after
    # all", "never left"): an end said before that is withdrawn, whichever arrived first.
    ending_denied: list[datetime] = field(default_factory=list)
    # A departure naming no employer, read as the employer slot's next value: nobody. It
    # places the others and is never written itself.
    vacancy: bool = False

    def member(self) -> SlotMember:
        standing = [
            e for e in self.ends if not any(e[2] is None or d > e[2] for d in self.ending_denied)
        ]
        end = min(standing)[:2] if standing else None
        # The start the latest testimony states: a later source that dates the same value
        # differently ("her start date was 7 April, not 1 April") corrects the earlier ones.
        # By said-on time, so arrival order does not matter; the earliest start breaks ties.
        # Only starts before the stated end count, so the window never turns inside out.
        before_end = [s for s in self.starts if end is None or s[0] < end[0]]
        start: tuple[datetime, str] | None
        if before_end:
            start = max(before_end, key=lambda s: (s[2] or _NEVER, -s[0].timestamp()))[:2]
        else:
            start = min(self.starts)[:2] if self.starts else None
        precision = (start or end or (None, "unknown"))[1]
        return SlotMember(
            fact_id=self.fact_id,
            value=self.value,
            stated_from=start[0] if start else None,
            stated_until=end[0] if end else None,
            precision=precision,
            said_first=min(self.said) if self.said else None,
            order_key=self.label,
            concurrent=self.concurrent,
            announces_change=self.announces_change,
            cancels=self.cancels,
        )


def _window_json(window: tuple[datetime | None, datetime | None, str]) -> dict[str, Any]:
    start, end, precision = window
    return {
        "valid_from": start.isoformat() if start else None,
        "valid_until": end.isoformat() if end else None,
        "valid_precision": precision,
    }


async def _load(session: AsyncSession, namespace: str, keys: Iterable[SlotKey]) -> list[_Stored]:
    relation = sorted({(k.subject, k.predicate) for k in keys if k.subject}, key=str)
    observation = sorted({k.slot_id for k in keys if k.slot_id}, key=str)
    rows = await slot_repository.slot_member_rows(
        session,
        namespace,
        subjects=[s for s, _ in relation],
        predicates=[p for _, p in relation],
        slot_ids=observation,
    )
    stored: dict[UUID, _Stored] = {}
    for r in rows:
        item = stored.get(r.id)
        is_relation = r.object_entity_id is not None
        if item is None:
            slot = (
                SlotKey(r.subject_entity_id, r.predicate)
                if is_relation and r.slot_id is None
                else SlotKey(slot_id=r.slot_id)
            )
            value = str(r.object_entity_id if is_relation else r.id)
            window = (r.valid_from, r.valid_until, r.valid_precision)
            item = stored[r.id] = _Stored(
                r.id, slot, value, r.label, window, r.superseded_by_fact_id,
                r.contradiction_group_id, [], [], [],
            )  # fmt: skip
        if r.a_from is not None:
            item.starts.append((r.a_from, r.a_precision, r.asserted_at))
        # An event that is a value of an observation slot ("the migration was completed on
        # 31 January" after "is blocked") is the state's change on that day: it starts the
        # value, which holds on; the event's own day is no end. An event over a period
        # ("revenue came in at $3.8M in Q3") is that period's value, and ends with it.
        event_value = (
            not is_relation
            and r.claim_valid_kind == "event_time"
            and (r.a_from is None or r.a_until is None or r.a_until - r.a_from <= _ONE_DAY)
        )
        if r.a_until is not None and not event_value:
            item.ends.append((r.a_until, r.a_precision, r.asserted_at))
        elif r.phase == "end" and r.a_from is None and r.asserted_at is not None:
            item.ending_denied.append(r.asserted_at)  # "never left Acme": the normaliser's
        if r.asserted_at is not None:
            item.said.append(r.asserted_at)
        item.concurrent |= bool(r.concurrent)
        item.announces_change |= r.phase == "start"
        item.cancels = bool(CALLED_OFF.search(r.label))
    employers = sorted({s for s, p in relation if p == EMPLOYER_PREDICATE}, key=str)
    for r in await slot_repository.departure_rows(session, namespace, employers):
        # "Her last day was Friday" (a day's window) ends it at the day's end, an undated
        # "has left the company" by the time it was said.
        at = r.a_until or r.a_from or r.asserted_at
        if at is None:
            continue
        vacancy = stored.setdefault(
            r.id,
            _Stored(
                r.id, SlotKey(r.subject_entity_id, EMPLOYER_PREDICATE), f"left:{r.id}",
                r.label, (None, None, "unknown"), None, None, [], [], [],
                announces_change=True, vacancy=True,
            ),
        )  # fmt: skip
        precision = r.a_precision if r.a_until or r.a_from else "day"
        vacancy.starts.append((at, precision, r.asserted_at))
        if r.asserted_at is not None:
            vacancy.said.append(r.asserted_at)
    return list(stored.values())


def _transcript(
    item: _Stored, placed: Placement, new_window: tuple[datetime | None, datetime | None, str]
) -> dict[str, Any]:
    if placed.superseded_by is not None and placed.superseded_by != item.superseded_by:
        action = "supersede"
        why = (
            "a later value of the slot closes it at its start"
            if placed.valid_until is not None and new_window[1] != item.window[1]
            else "the slot's next value succeeds it"
        )
    elif placed.superseded_by is None and item.superseded_by is not None:
        action, why = "reopen", "no later value of the slot stands any more"
    else:
        action, why = "adjust", "the slot's values place it here"
    return {
        "id": str(uuid.uuid4()),
        "fact_id": str(item.fact_id),
        "related_fact_id": str(placed.superseded_by) if placed.superseded_by else None,
        "outcome": "update",
        "action": action,
        "rationale": f"{action}: {why}",
        "window_before": _window_json(item.window),
        "window_after": _window_json(new_window),
    }


async def settle_slots(
    session: AsyncSession, namespace: str, keys: Sequence[SlotKey], *, decided_by: str
) -> list[UUID]:
    """Place every member of the slots and write what changed; returns the changed facts."""
    if not keys:
        return []
    by_slot: dict[SlotKey, list[_Stored]] = defaultdict(list)
    for item in await _load(session, namespace, keys):
        by_slot[item.slot].append(item)
    changed: list[UUID] = []
    transcripts: list[dict[str, Any]] = []
    for items in by_slot.values():
        placements = place(item.member() for item in items)
        vacancies = {item.fact_id for item in items if item.vacancy}
        items = [item for item in items if not item.vacancy]
        for item in items:
            placed = placements[item.fact_id] = replace(
                placements[item.fact_id], rivals=placements[item.fact_id].rivals - vacancies
            )
            new_window = (placed.valid_from, placed.valid_until, placed.precision)
            if new_window == item.window and placed.superseded_by == item.superseded_by:
                continue
            await slot_repository.update_window(
                session,
                namespace,
                item.fact_id,
                valid_from=placed.valid_from,
                valid_until=placed.valid_until,
                precision=placed.precision,
                superseded_by=placed.superseded_by,
            )
            transcripts.append(_transcript(item, placed, new_window))
            changed.append(item.fact_id)
        transcripts += await _settle_groups(session, namespace, items, placements)
    if transcripts:
        await slot_repository.record_timeline_transcripts(
            session, namespace, decided_by, json.dumps(transcripts)
        )
    return changed


async def _settle_groups(
    session: AsyncSession,
    namespace: str,
    items: Sequence[_Stored],
    placements: dict[UUID, Placement],
) -> list[dict[str, Any]]:
    """Contradiction groups of one slot: the connected sets of rivals. A member that no longer
    conflicts leaves a group whose other members are all in this slot."""
    in_slot = {i.fact_id for i in items}
    components: list[set[UUID]] = []
    for fact_id in sorted(in_slot, key=str):
        if any(fact_id in c for c in components) or not placements[fact_id].rivals:
            continue
        component, frontier = {fact_id}, [fact_id]
        while frontier:
            for rival in placements[frontier.pop()].rivals:
                if rival not in component:
                    component.add(rival)
                    frontier.append(rival)
        components.append(component)
    grouped = {i.fact_id: i.group_id for i in items}
    groups = sorted({g for g in grouped.values() if g}, key=str)
    members: dict[UUID, set[UUID]] = defaultdict(set)
    for row in await slot_repository.open_group_members(session, namespace, groups):
        members[row.group_id].add(row.id)
    rows: list[dict[str, Any]] = []
    for component in components:
        existing = sorted({grouped[f] for f in component if grouped[f]}, key=str)
        if existing:
            group_id = existing[0]
        else:
            group_id = await slot_repository.new_contradiction_group(session, namespace)
        joining = sorted((f for f in component if grouped[f] != group_id), key=str)
        if joining:
            await slot_repository.set_contradiction_group(session, namespace, group_id, joining)
            rows += [_group_row(f, component) for f in joining]
    leaving = [
        i.fact_id
        for i in items
        if i.group_id and not placements[i.fact_id].rivals and members[i.group_id] <= in_slot
    ]
    if leaving:
        await slot_repository.set_contradiction_group(session, namespace, None, leaving)
        await slot_repository.resolve_groups(session, namespace, groups)
    return rows


def _group_row(fact_id: UUID, component: set[UUID]) -> dict[str, Any]:
    other = min((f for f in component if f != fact_id), key=str)
    return {
        "id": str(uuid.uuid4()),
        "fact_id": str(fact_id),
        "related_fact_id": str(other),
        "outcome": "contradict",
        "action": "contradict_group",
        "rationale": "contradict_group: another value of the slot is stated for the same time",
        "window_before": None,
        "window_after": None,
    }
