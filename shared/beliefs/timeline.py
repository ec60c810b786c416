"""Where each value of one slot stands in world time: the successive values of an attribute.

A slot is a set of facts that are values of one thing that holds one value at a time: a
person's employer or team (a functional relation: same subject and predicate), or an
attribute's successive values (a price, a headcount, a stance; observations the adjudicator
found to be rivals). What each value's claims *state* is fixed: a start ("from 1 May", "joined
in March"), sometimes an end ("left in June"), the time the sources said it. Where the value
*stands* follows from the whole slot, so it is computed here from the set, never from the order
the facts arrived in (spec/contradictions-corroboration-supersession.md):

- A value with a stated start holds from it until the next later start of another value
  (supersession: its window is closed at the successor's world start) or its own stated end,
  whichever is first; a value that ended by itself is still succeeded by the next one (it
  names it), with its own end kept. The last value stays open.
- Values stated from the same start conflict: they form a contradiction group.
- A value with no stated start precedes the dated values said no earlier than it, and is
  closed at the first of their starts. Undated values said at different times succeed each
  other when the later one says the change ("joined", "moved to", "now") or was said weeks
  later (two sources in one week disagree; a month apart, the value changed); it then
  supersedes the earlier with an unknown end (or its own end, said with the change: "has left
  Finch. She is now at Lumen"). An undated value that has ended ("formerly at
  Birch Labs", "left Acme") does not conflict with one that holds. Otherwise undated rivals
  conflict.
- A value the claims say holds beside the others ("also", "part-time at") is outside the
  chain: its window is its own and it neither supersedes nor conflicts.
- An undated value that calls the others off ("the offsite has been cancelled"), said after a
  dated one, supersedes it: the dated value held only until it was called off, which is never
  when that came before its start or after its end.

Ties are broken by the value's identity and then by `order_key`, so the result is a function
of the set alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

__all__ = ["Placement", "SlotMember", "place"]

_GRAIN: dict[str, int] = {"instant": 0, "day": 1, "month": 2, "quarter": 3, "year": 4}


@dataclass(frozen=True, slots=True)
class SlotMember:
    """One value of a slot and what its supporting claims state."""

    fact_id: UUID
    value: str  # what the slot holds: an object entity id, or the fact itself for attributes
    stated_from: datetime | None
    stated_until: datetime | None
    precision: str  # the stated start's (or end's) precision
    said_first: datetime | None  # the earliest said-on time of its supporting claims
    order_key: str  # a stable tie-break (its label)
    concurrent: bool = False
    announces_change: bool = False  # a start phase or a transition cue ("joined", "now")
    cancels: bool = False  # it calls the other values off ("the offsite has been cancelled")


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a value stands: its half-open window, the value that closed it, the values it
    conflicts with (same period), in fact ids."""

    valid_from: datetime | None
    valid_until: datetime | None
    precision: str
    superseded_by: UUID | None
    rivals: frozenset[UUID]


def _coarser(a: str, b: str) -> str:
    if a not in _GRAIN:
        return b if b in _GRAIN else "unknown"
    if b not in _GRAIN:
        return a
    return a if _GRAIN[a] >= _GRAIN[b] else b


def _start_key(m: SlotMember) -> tuple[datetime, str, str]:
    assert m.stated_from is not None
    return m.stated_from, m.value, m.order_key


def _said_no_earlier(later: SlotMember, earlier: SlotMember) -> bool:
    if later.said_first is None or earlier.said_first is None:
        return True
    return later.said_first >= earlier.said_first


def _said_later(later: SlotMember, earlier: SlotMember) -> bool:
    if later.said_first is None or earlier.said_first is None:
        return False
    return later.said_first > earlier.said_first


# Undated values said this far apart describe different times, not the same one: "Acme has
# 120 seats" in February and "Acme has 200 seats" in April are a change, said or not. (Two
# sources giving two prices in one week disagree.)
_APART = timedelta(days=28)


def _says_the_change(later: SlotMember, earlier: SlotMember) -> bool:
    """Whether the undated `later` is the value that followed the undated `earlier`: it says it
    is the change ("now", "joined") and was said later, or it was said weeks later."""
    if not _said_later(later, earlier):
        return False
    assert later.said_first is not None and earlier.said_first is not None
    return later.announces_change or later.said_first - earlier.said_first >= _APART


def _own(m: SlotMember) -> Placement:
    precision = m.precision if m.stated_until is not None else "open"
    if m.stated_from is None and m.stated_until is None:
        precision = "unknown"
    return Placement(m.stated_from, m.stated_until, precision, None, frozenset())


def _closed(m: SlotMember, successor: SlotMember | None) -> Placement:
    """`m`'s window, closed at `successor`'s start when that comes before its own end."""
    if successor is None or successor.stated_from is None:
        return _own(m)
    if m.stated_until is not None and m.stated_until < successor.stated_from:
        # It ended by itself before the next value began ("left Ostrander last week … starting
        # at Velloria on Monday"): its window is its own, and the next value still succeeds it.
        own_window = _own(m)
        return Placement(
            own_window.valid_from,
            own_window.valid_until,
            own_window.precision,
            successor.fact_id,
            frozenset(),
        )
    # An end at the successor's very start is the move itself ("moves from Customer Success
    # to Sales Engineering effective 14 October"): the successor supersedes it.
    own = "unknown" if m.stated_from is None else m.precision
    precision = _coarser(own, successor.precision)
    return Placement(
        m.stated_from, successor.stated_from, precision, successor.fact_id, frozenset()
    )


def _conflict(a: SlotMember, b: SlotMember) -> bool:
    """Whether two values of the slot can hold at the same time (a contradiction), symmetric."""
    if a.value == b.value or a.concurrent or b.concurrent:
        return False
    if (a.cancels and _said_later(a, b)) or (b.cancels and _said_later(b, a)):
        return False  # the later one called the other off
    if a.stated_from is not None and b.stated_from is not None:
        return a.stated_from == b.stated_from
    if a.stated_from is None and b.stated_from is None:
        if (a.stated_until is None) != (b.stated_until is None):
            # "Anya Roth, formerly of Birch Labs, leads research at Tessel": one value has
            # ended, the other holds; nothing says they ever held at the same time.
            return False
        return not _says_the_change(a, b) and not _says_the_change(b, a)
    dated, undated = (a, b) if a.stated_from is not None else (b, a)
    # An undated value said no later than a dated one precedes it; one said later conflicts
    # with it unless it says it is the change.
    return _said_later(undated, dated) and not undated.announces_change


def place(members: Iterable[SlotMember]) -> dict[UUID, Placement]:
    """The placement of every member of one slot (see the module docstring)."""
    everyone = sorted(members, key=lambda m: (m.value, m.order_key, str(m.fact_id)))
    placed: dict[UUID, Placement] = {m.fact_id: _own(m) for m in everyone if m.concurrent}
    chain = [m for m in everyone if not m.concurrent]
    dated = sorted((m for m in chain if m.stated_from is not None), key=_start_key)
    undated = [m for m in chain if m.stated_from is None]
    for m in chain:
        called_off = _called_off(m, undated)
        if called_off is not None:
            placed[m.fact_id] = called_off
            continue
        where = (
            _place_dated(m, dated, undated) if m.stated_from else _place_undated(m, dated, undated)
        )
        rivals = frozenset(n.fact_id for n in chain if _conflict(m, n))
        placed[m.fact_id] = Placement(
            where.valid_from, where.valid_until, where.precision, where.superseded_by, rivals
        )
    return placed


def _called_off(m: SlotMember, undated: Sequence[SlotMember]) -> Placement | None:
    """A dated value an undated cancellation said after it called off ("the offsite on 12 May"
    then "the offsite has been cancelled"): superseded by it, and held only until it was
    called off: never, when that was before its start or after its end (it did not happen),
    else until the cancellation was said (the latest it can have ended)."""
    if m.stated_from is None or m.cancels:
        return None
    calls = [u for u in undated if u.cancels and u.value != m.value and _said_later(u, m)]
    if not calls:
        return None
    first = min(calls, key=lambda u: (u.said_first, u.value, u.order_key))
    said = first.said_first
    assert said is not None  # said later than m
    during = m.stated_from < said and (m.stated_until is None or said < m.stated_until)
    until = said if during else m.stated_from
    return Placement(m.stated_from, until, m.precision, first.fact_id, frozenset())


def _announced_after(m: SlotMember, undated: Sequence[SlotMember]) -> SlotMember | None:
    """The first undated value said after `m` that says it is the change ("now at Globex").
    When `m` has ended, the change may be said with it ("has left Finch & Co. She is now a
    partner at Lumen"): the same said-on time is enough."""

    def follows(u: SlotMember) -> bool:
        if m.stated_from is None and m.stated_until is None and _says_the_change(u, m):
            return True  # an undated value said weeks after another undated one
        return u.announces_change and (
            _said_later(u, m) or (m.stated_until is not None and _said_no_earlier(u, m))
        )

    change = [u for u in undated if u.value != m.value and follows(u)]
    return min(change, key=lambda u: (u.said_first, u.value, u.order_key)) if change else None


def _place_dated(
    m: SlotMember, dated: Sequence[SlotMember], undated: Sequence[SlotMember]
) -> Placement:
    assert m.stated_from is not None
    start = m.stated_from
    later = [n for n in dated if n.value != m.value and n.stated_from and n.stated_from > start]
    successor = min(later, key=_start_key) if later else None
    placement = _closed(m, successor)
    after_end = _undated_after_end(m, undated)
    if after_end is not None and (successor is None or _said_before_start(after_end, successor)):
        # "In 2024 the plan was $15", and "the plan costs $20" said in 2026: the undated value
        # held when it was said, after this one ended, so it is the next value.
        return Placement(
            placement.valid_from,
            placement.valid_until,
            placement.precision,
            after_end.fact_id,
            frozenset(),
        )
    if placement.superseded_by is None and placement.valid_until is None:
        change = _announced_after(m, undated)
        if change is not None:  # ended by a change said later, when is unknown
            return Placement(start, None, placement.precision, change.fact_id, frozenset())
    return placement


def _said_before_start(undated: SlotMember, dated: SlotMember) -> bool:
    return (
        undated.said_first is not None
        and dated.stated_from is not None
        and undated.said_first < dated.stated_from
    )


def _ended_before_said(dated: SlotMember, undated: SlotMember) -> bool:
    """Whether `dated` had ended by the time `undated` was said: then it came before it ("in
    2024 the plan was $15", said after "the plan costs $20" was said in 2026), and cannot be
    the value that closed it."""
    return (
        dated.stated_until is not None
        and undated.said_first is not None
        and dated.stated_until <= undated.said_first
    )


def _undated_after_end(m: SlotMember, undated: Sequence[SlotMember]) -> SlotMember | None:
    """The first undated value said after `m` had ended, which held when it was said."""
    after = [
        u
        for u in undated
        if u.value != m.value and u.stated_until is None and _ended_before_said(m, u)
    ]
    return min(after, key=lambda u: (u.said_first, u.value, u.order_key)) if after else None


def _place_undated(
    m: SlotMember, dated: Sequence[SlotMember], undated: Sequence[SlotMember]
) -> Placement:
    successors = [
        n
        for n in dated
        if n.value != m.value and _said_no_earlier(n, m) and not _ended_before_said(n, m)
    ]
    if successors:
        return _closed(m, min(successors, key=_start_key))
    change = _announced_after(m, undated)
    if change is not None:
        return Placement(None, m.stated_until, "unknown", change.fact_id, frozenset())
    return _own(m)
