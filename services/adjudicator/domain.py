"""Pure value types of the adjudicator: windows, claims, assertions, candidate facts, decisions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal, NamedTuple

__all__ = [
    "ACTIONS",
    "PRECISIONS",
    "STATE_WINDOW_KINDS",
    "Action",
    "Assertion",
    "AssertionKind",
    "CandidateFact",
    "ClaimView",
    "Decision",
    "EntityRef",
    "EvidenceItem",
    "ExtraRelation",
    "Polarity",
    "Precision",
    "Stance",
    "Window",
    "WindowAction",
    "coarser_precision",
    "recorded_outcome",
]

Precision = Literal["unknown", "instant", "day", "month", "quarter", "year", "open"]
Polarity = Literal["positive", "negative"]
Stance = Literal["supports", "contradicts"]
AssertionKind = Literal["relation", "observation"]
# Claims of these window kinds state states or measured values: successive values of one
# attribute (a price, a headcount). Rival events (two dates for one cutover) stay a
# contradiction, never a chain.
STATE_WINDOW_KINDS = frozenset(
    {"effective_period", "proposition_validity", "measurement_period", None}
)
WindowAction = Literal["keep", "replace", "close"]
Action = Literal["add", "confirm", "adjust", "supersede", "contradict_evidence", "contradict_group"]

PRECISIONS: tuple[Precision, ...] = (
    "unknown",
    "instant",
    "day",
    "month",
    "quarter",
    "year",
    "open",
)
ACTIONS: tuple[Action, ...] = (
    "add",
    "confirm",
    "adjust",
    "supersede",
    "contradict_evidence",
    "contradict_group",
)
# Granularity order used when two windows with different precision are combined.
_GRAIN: dict[str, int] = {"instant": 0, "day": 1, "month": 2, "quarter": 3, "year": 4}


def coarser_precision(a: Precision, b: Precision) -> Precision:
    """The coarser of two precisions; `unknown`/`open` yield to any stated grain."""
    if a not in _GRAIN:
        return b
    if b not in _GRAIN:
        return a
    return a if _GRAIN[a] >= _GRAIN[b] else b


def _period_end(start: datetime, precision: Precision) -> datetime | None:
    """Exclusive end of the calendar period that starts at `start` with `precision`."""
    if precision == "day":
        return start + timedelta(days=1)
    if precision in ("month", "quarter"):
        months = 1 if precision == "month" else 3
        year, month = divmod(start.month - 1 + months, 12)
        return start.replace(year=start.year + year, month=month + 1, day=1)
    if precision == "year":
        return start.replace(year=start.year + 1, month=1, day=1)
    return None


@dataclass(frozen=True, slots=True)
class Window:
    """A half-open world-time window `valid_from <= t < valid_until`; None = unknown side."""

    valid_from: datetime | None = None
    valid_until: datetime | None = None
    precision: Precision = "unknown"

    @classmethod
    def from_claim_fields(
        cls,
        valid_from: datetime | None,
        valid_until_inclusive: datetime | None,
        precision: Precision,
        kind: str | None = None,
    ) -> Window:
        """Convert a claim's world-time fields (inclusive end, as stated) into a half-open window.

        Extractors state the inclusive end as the last day still covered, so the exclusive end is
        the start of the following day. An `event_time` claim with only a start covers just that
        period at its precision ("on 8 June" is the whole day, "in Q3" the quarter); any other
        open-ended claim stays open.
        """
        until: datetime | None = None
        if valid_until_inclusive is not None:
            until = (
                valid_until_inclusive
                if precision == "instant"
                else valid_until_inclusive.replace(hour=0, minute=0, second=0, microsecond=0)
                + timedelta(days=1)
            )
        elif kind == "event_time" and valid_from is not None:
            until = _period_end(valid_from, precision) or valid_from
        return cls(valid_from, until, precision)

    @property
    def is_unknown(self) -> bool:
        return self.valid_from is None and self.valid_until is None

    @property
    def is_complete(self) -> bool:
        """Both sides are known."""
        return self.valid_from is not None and self.valid_until is not None

    @property
    def is_well_formed(self) -> bool:
        if self.precision not in PRECISIONS:
            return False
        if self.valid_from is None or self.valid_until is None:
            return True
        return self.valid_from <= self.valid_until

    def contains(self, instant: datetime) -> bool:
        """Whether `instant` is inside the window; an unknown side does not exclude."""
        if self.valid_from is not None and instant < self.valid_from:
            return False
        return not (self.valid_until is not None and instant >= self.valid_until)

    def overlaps(self, other: Window) -> bool:
        """Whether the two windows can share an instant; unknown sides are treated as unbounded."""
        if (
            self.valid_until is not None
            and other.valid_from is not None
            and self.valid_until <= other.valid_from
        ):
            return False
        return not (
            other.valid_until is not None
            and self.valid_from is not None
            and other.valid_until <= self.valid_from
        )

    def closed_at(self, successor_start: datetime, successor_precision: Precision) -> Window:
        """This window ended at a successor's world start (supersession)."""
        precision: Precision = coarser_precision(
            "unknown" if self.precision == "open" else self.precision, successor_precision
        )
        return Window(self.valid_from, successor_start, precision)


class ExtraRelation(NamedTuple):
    """A further relation a claim states; `dated` is False for a role an apposition describes,
    which holds as of the telling rather than over the claim's window."""

    subject_text: str
    predicate_text: str
    object_text: str
    dated: bool = True


@dataclass(frozen=True, slots=True)
class ClaimView:
    """What the adjudicator needs of one claim; `window` is already half-open."""

    claim_id: str
    document_id: str
    claim_text: str
    asserted_at: datetime | None
    polarity: Polarity
    is_attributed: bool
    holder: str | None
    subject_text: str | None
    predicate_text: str | None
    object_text: str | None
    window: Window
    window_kind: str | None = None
    # Further (subject, predicate, object) phrases the claim states (see the extractor).
    extra_relations: tuple[ExtraRelation, ...] = ()


@dataclass(frozen=True, slots=True)
class EntityRef:
    """A resolved entity: its id and canonical name."""

    id: str
    name: str


@dataclass(frozen=True, slots=True)
class Assertion:
    """One relation or observation derived from a claim, with resolved entities."""

    kind: AssertionKind
    subject_entity_id: str
    predicate: str | None
    object_entity_id: str | None
    statement: str
    polarity: Polarity
    window: Window
    claim: ClaimView
    subject_name: str
    object_name: str | None = None
    label: str = ""
    # What a relation's phrase said of the state: it holds, it began ("joined") or ended.
    phase: Literal["state", "start", "end"] = "state"
    # The claim says the relation holds beside the subject's others ("also works at …").
    concurrent: bool = False


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    """One claim already linked to a candidate fact."""

    claim_id: str
    document_id: str
    stance: Stance
    asserted_at: datetime | None
    claim_text: str


@dataclass(frozen=True, slots=True)
class CandidateFact:
    """An existing fact about the assertion's subject, as shown to an engine.

    `similarity` is the embedding cosine between the assertion statement and the fact, computed
    by the caller. `polarity` is the polarity of the fact's own statement.
    """

    fact_id: str
    kind: AssertionKind
    subject_entity_id: str
    predicate: str | None
    object_entity_id: str | None
    statement: str
    label: str
    window: Window
    evidence: Sequence[EvidenceItem] = ()
    contradiction_group_id: str | None = None
    similarity: float = 0.0
    polarity: Polarity = "positive"
    # Successive values of one attribute share a slot (see shared/beliefs/timeline.py).
    slot_id: str | None = None
    # What the fact's window describes (`facts.valid_kind`, from its claims), None if unknown.
    valid_kind: str | None = None

    @property
    def is_state(self) -> bool:
        """Whether the fact is a value of a state: in a slot already, or without an end (an
        event has its day; an undated rival of a dated event is a state, "is blocked")."""
        return self.slot_id is not None or self.window.valid_until is None

    @property
    def latest_asserted_at(self) -> datetime | None:
        dates = [e.asserted_at for e in self.evidence if e.asserted_at is not None]
        return max(dates) if dates else None


@dataclass(frozen=True, slots=True)
class Decision:
    """One adjudication decision.

    Action → (stance, window_action, new_window):
    add (supports, keep, None; no candidate) · confirm (supports, keep, None) ·
    adjust (supports, replace, the candidate's new window) ·
    supersede (supports, close, the candidate's closed window; the assertion becomes a new fact) ·
    contradict_evidence (contradicts, keep, None; the claim attaches to the candidate) ·
    contradict_group (contradicts, keep, None; the assertion becomes a new fact grouped with
    the candidate).
    """

    action: Action
    candidate_id: str | None
    stance: Stance
    window_action: WindowAction
    new_window: Window | None
    confidence: float
    rationale: str
    method: str
    engine: str
    model: str | None = None
    scores: dict[str, float] = field(default_factory=dict, compare=False)


def recorded_outcome(action: Action) -> str:
    """The transcript outcome of an action on the fact it touches (spec/facts.md table).

    For `supersede` this is the outcome on the earlier fact; the successor is recorded as `add`.
    A contradicting evidence link changes nothing about the fact itself, so it is a `noop`.
    """
    return {
        "add": "add",
        "confirm": "noop",
        "adjust": "update",
        "supersede": "update",
        "contradict_evidence": "noop",
        "contradict_group": "contradict",
    }[action]
