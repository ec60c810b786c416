"""SQL predicates that decide whether a fact or claim qualifies for a time scope (SPEC §5).

Rules (documented for callers of every read):
- Belief: `as_of` keeps facts with `ingested_at <= believed_at` and `invalidated_at` null or after
  it, judged with today's windows; every other scope keeps facts not invalidated now.
- Records versus states: facts whose `valid_kind` is `event_time` or `measurement_period` are
  records of something that happened; at an instant (current, at, as_of) they qualify once their
  window began (or when it is unknown) and stay true as records afterwards. Every other fact is a
  state and qualifies only while its half-open window contains the instant (unknown ends are open).
- A superseded fact never qualifies at an instant at or after its closed `valid_until`, so
  `current` returns only the successor of a supersession.
- `overlap` keeps windows touching [from, to] (both ends included); `history` keeps every believed
  window that began by now. Unknown window ends never rule a fact out (temporal_match=possible).
- Claims use the same rules over their stated window, whose end is inclusive at its precision.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from shared.timescope import TimeScope

_RECORD_KINDS = "('event_time', 'measurement_period')"

# A claim's stated end is inclusive at its precision; widen it to an exclusive instant.
_CLAIM_END = (
    "(CASE {a}.claim_valid_precision"
    " WHEN 'day' THEN {a}.claim_valid_until + interval '1 day'"
    " WHEN 'month' THEN {a}.claim_valid_until + interval '1 month'"
    " WHEN 'quarter' THEN {a}.claim_valid_until + interval '3 months'"
    " WHEN 'year' THEN {a}.claim_valid_until + interval '1 year'"
    " ELSE {a}.claim_valid_until + interval '1 microsecond' END)"
)


def belief_clause(scope: TimeScope, alias: str = "f") -> str:
    """Belief-time predicate on a facts alias (uses the :believed_at parameter for as_of)."""
    if scope.kind == "as_of":
        return (
            f"({alias}.ingested_at <= :believed_at AND"
            f" ({alias}.invalidated_at IS NULL OR {alias}.invalidated_at > :believed_at))"
        )
    return f"{alias}.invalidated_at IS NULL"


def _window_clause(
    scope: TimeScope, start: str, end_exclusive: str, kind: str, superseded: str | None
) -> str:
    if scope.kind == "overlap":
        return (
            f"(({start} IS NULL OR {start} <= :scope_end)"
            f" AND ({end_exclusive} IS NULL OR {end_exclusive} > :scope_start))"
        )
    if scope.kind == "history":
        return f"({start} IS NULL OR {start} <= :now)"
    began = f"({start} IS NULL OR {start} <= :instant)"
    holds = f"({began} AND ({end_exclusive} IS NULL OR :instant < {end_exclusive}))"
    clause = f"((COALESCE({kind}, '') IN {_RECORD_KINDS} AND {began}) OR {holds})"
    if superseded is not None:
        clause = (
            f"({clause} AND ({superseded} IS NULL OR {end_exclusive} IS NULL"
            f" OR :instant < {end_exclusive}))"
        )
    return clause


def fact_scope_clause(scope: TimeScope, alias: str = "f") -> str:
    """Belief and world predicates for a facts alias."""
    world = _window_clause(
        scope,
        f"{alias}.valid_from",
        f"{alias}.valid_until",
        f"{alias}.valid_kind",
        f"{alias}.superseded_by_fact_id",
    )
    return f"({belief_clause(scope, alias)} AND {world})"


def claim_scope_clause(scope: TimeScope | None, alias: str = "c") -> str:
    """World-time (and for as_of, creation-time) predicate for a claims alias."""
    if scope is None:
        return "TRUE"
    end = _CLAIM_END.format(a=alias)
    world = _window_clause(
        scope, f"{alias}.claim_valid_from", end, f"{alias}.claim_valid_kind", None
    )
    if scope.kind == "as_of":
        return f"({alias}.created_at <= :believed_at AND {world})"
    return world


def scope_params(scope: TimeScope | None, now: datetime) -> dict[str, Any]:
    """Bind parameters the clauses above refer to."""
    params: dict[str, Any] = {"now": now}
    if scope is None:
        return params
    instant = scope.world_instant(now)
    if instant is not None:
        params["instant"] = instant
    if scope.kind == "overlap":
        params["scope_start"] = scope.start
        params["scope_end"] = scope.end
    if scope.kind == "as_of":
        params["believed_at"] = scope.believed_at
    return params
