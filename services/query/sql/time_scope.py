"""SQL predicates that decide whether a fact or claim qualifies for a time scope (SPEC §5).

Rules (documented for callers of every read):
- Belief: `as_of` keeps facts with `ingested_at <= believed_at` and `invalidated_at` null or after
  it, judged with today's windows; every other scope keeps facts not invalidated now.
- At an instant (current, at, as_of) a fact qualifies only while its half-open window contains
  the instant; an unknown side never rules it out. This holds for events too: "shipped on 3
  March" is the fact of 3 March, returned for that day and by `history` or `overlap`, never
  shown with a window that does not contain the instant asked about.
- A superseded fact never qualifies at an instant at or after its closed `valid_until`, and it
  does qualify before it (a successor that starts next year leaves the old value current);
  when the predecessor's end is unknown (a change said later, undated) `current` returns only
  the successor.
- `overlap` keeps windows touching [from, to] (both ends included); `history` keeps every believed
  window that began by now. Unknown window ends never rule a fact out (temporal_match=possible).
- Claims use the same rules over their stated window, whose end is the last day it covers.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from shared.timescope import TimeScope

# A claim's stated end is the last day it covers (or the instant): the exclusive end is the
# next day. ("In June" ends on 30 June; adding a whole month would reach 30 July.)
_CLAIM_END = (
    "(CASE {a}.claim_valid_precision"
    " WHEN 'instant' THEN {a}.claim_valid_until + interval '1 microsecond'"
    " ELSE {a}.claim_valid_until + interval '1 day' END)"
)


def belief_clause(scope: TimeScope, alias: str = "f") -> str:
    """Belief-time predicate on a facts alias (uses the :believed_at parameter for as_of)."""
    if scope.kind == "as_of":
        return (
            f"({alias}.ingested_at <= :believed_at AND"
            f" ({alias}.invalidated_at IS NULL OR {alias}.invalidated_at > :believed_at))"
        )
    return f"{alias}.invalidated_at IS NULL"


def _window_clause(scope: TimeScope, start: str, end_exclusive: str, superseded: str | None) -> str:
    if scope.kind == "overlap":
        return (
            f"(({start} IS NULL OR {start} <= :scope_end)"
            f" AND ({end_exclusive} IS NULL OR {end_exclusive} > :scope_start))"
        )
    if scope.kind == "history":
        return f"({start} IS NULL OR {start} <= :now)"
    began = f"({start} IS NULL OR {start} <= :instant)"
    clause = f"({began} AND ({end_exclusive} IS NULL OR :instant < {end_exclusive}))"
    if superseded is not None and scope.kind == "current":
        # A successor said later with no date leaves the predecessor's end unknown: `current`
        # is the successor. A closed end (the successor's start, maybe still to come) decides.
        clause = f"({clause} AND ({superseded} IS NULL OR {end_exclusive} IS NOT NULL))"
    return clause


def fact_scope_clause(scope: TimeScope, alias: str = "f") -> str:
    """Belief and world predicates for a facts alias."""
    world = _window_clause(
        scope,
        f"{alias}.valid_from",
        f"{alias}.valid_until",
        f"{alias}.superseded_by_fact_id",
    )
    return f"({belief_clause(scope, alias)} AND {world})"


def claim_scope_clause(scope: TimeScope | None, alias: str = "c") -> str:
    """World-time (and for as_of, creation-time) predicate for a claims alias."""
    if scope is None:
        return "TRUE"
    end = _CLAIM_END.format(a=alias)
    world = _window_clause(scope, f"{alias}.claim_valid_from", end, None)
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
