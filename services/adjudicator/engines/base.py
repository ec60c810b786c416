"""The adjudication engine interface and the checks every engine answer passes through."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from services.adjudicator.domain import (
    ACTIONS,
    Action,
    Assertion,
    CandidateFact,
    Decision,
    Stance,
    WindowAction,
)

__all__ = [
    "DEFAULT_CONFIDENCE_FLOOR",
    "AdjudicationEngine",
    "AdjudicationResult",
    "ConfigurationError",
    "EngineAnswerInvalid",
    "EngineError",
    "EngineUnavailable",
    "adjudicate",
    "apply_floor",
    "validate",
]

DEFAULT_CONFIDENCE_FLOOR = 0.75
# The stance and window action each action implies (see `Decision`).
_SHAPE: dict[Action, tuple[Stance, WindowAction]] = {
    "add": ("supports", "keep"),
    "confirm": ("supports", "keep"),
    "adjust": ("supports", "replace"),
    "supersede": ("supports", "close"),
    "contradict_evidence": ("contradicts", "keep"),
    "contradict_group": ("contradicts", "keep"),
}


class EngineError(Exception):
    """An engine could not produce a decision."""


class EngineAnswerInvalid(EngineError):
    """The engine answered, but the answer cannot be read as a decision."""


class EngineUnavailable(EngineError):
    """The engine could not be reached; the work item should be retried later."""


class ConfigurationError(Exception):
    """The selected engine cannot run with the given settings."""


class AdjudicationEngine(Protocol):
    """Decides how one assertion relates to the existing facts about its subject."""

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str | None: ...

    async def decide(
        self, assertion: Assertion, candidates: Sequence[CandidateFact]
    ) -> Decision: ...


def validate(
    decision: Decision, assertion: Assertion, candidates: Sequence[CandidateFact]
) -> list[str]:
    """Every reason the decision cannot be applied; an empty list means it may be written."""
    problems: list[str] = []
    if decision.action not in ACTIONS:
        return [f"unknown action {decision.action!r}"]
    if not 0.0 <= decision.confidence <= 1.0:
        problems.append(f"confidence {decision.confidence} outside [0, 1]")
    stance, window_action = _SHAPE[decision.action]
    if decision.stance != stance:
        problems.append(f"action {decision.action} needs stance {stance}, got {decision.stance}")
    if decision.window_action != window_action:
        problems.append(
            f"action {decision.action} needs window action {window_action}, "
            f"got {decision.window_action}"
        )
    if decision.new_window is not None and not decision.new_window.is_well_formed:
        problems.append("new window is inverted or has an unknown precision")
    if decision.action == "add":
        if decision.candidate_id is not None:
            problems.append("add must not name a candidate")
        return problems
    by_id = {c.fact_id: c for c in candidates}
    candidate = by_id.get(decision.candidate_id or "")
    if candidate is None:
        problems.append(f"unknown candidate id {decision.candidate_id!r}")
        return problems
    if candidate.kind != assertion.kind:
        problems.append(f"a {assertion.kind} cannot merge into a {candidate.kind}")
    if decision.action in ("adjust", "supersede") and decision.new_window is None:
        problems.append(f"{decision.action} needs a new window")
    if decision.action == "adjust" and decision.new_window and decision.new_window.is_unknown:
        problems.append("adjust must give at least one known date")
    if decision.action == "supersede":
        problems.extend(_supersession_problems(decision, assertion, candidate))
    return problems


def _supersession_problems(
    decision: Decision, assertion: Assertion, candidate: CandidateFact
) -> list[str]:
    start = assertion.window.valid_from
    if start is None:
        return ["supersede needs the successor's world start; the assertion has none"]
    problems: list[str] = []
    earlier = candidate.window.valid_from
    if earlier is not None and start <= earlier:
        problems.append("successor starts no later than the fact it would supersede")
    closed = decision.new_window
    if closed is not None and closed.valid_until != start:
        problems.append("supersede must close the earlier fact at the successor's world start")
    if closed is not None and closed.valid_from != earlier:
        problems.append("supersede must keep the earlier fact's start")
    return problems


def apply_floor(decision: Decision, floor: float = DEFAULT_CONFIDENCE_FLOOR) -> Decision:
    """Below the floor nothing merges: any decision touching a candidate becomes a new fact."""
    if decision.action == "add" or decision.confidence >= floor:
        return decision
    return replace(
        decision,
        action="add",
        candidate_id=None,
        stance="supports",
        window_action="keep",
        new_window=None,
        method="confidence_floor",
        rationale=_clip(
            f"confidence {decision.confidence:.2f} below floor {floor:.2f}; "
            f"would have been {decision.action}: {decision.rationale}"
        ),
    )


@dataclass(frozen=True, slots=True)
class AdjudicationResult:
    """The decision to write, plus what the engine proposed and why it was overruled."""

    decision: Decision
    proposed: Decision | None
    problems: tuple[str, ...] = ()


async def adjudicate(
    engine: AdjudicationEngine,
    assertion: Assertion,
    candidates: Sequence[CandidateFact],
    floor: float = DEFAULT_CONFIDENCE_FLOOR,
) -> AdjudicationResult:
    """No candidates → add without an engine call; else ask, validate, then apply the floor.

    An unreadable or invalid answer falls back to a separate new fact and is reported in
    `problems` so the writer can record it. `EngineUnavailable` propagates: the work item
    should be retried rather than decided without the engine.
    """
    if not candidates:
        return AdjudicationResult(
            _fallback_add(engine, "novelty_gate", "no existing facts about this entity", 1.0),
            None,
        )
    try:
        proposed = await engine.decide(assertion, candidates)
    except EngineAnswerInvalid as exc:
        problem = f"unreadable engine answer: {exc}"
        return AdjudicationResult(
            _fallback_add(engine, "validation_fallback", problem, 0.0), None, (problem,)
        )
    problems = validate(proposed, assertion, candidates)
    if problems:
        rationale = "engine answer rejected: " + "; ".join(problems)
        return AdjudicationResult(
            _fallback_add(engine, "validation_fallback", rationale, 0.0),
            proposed,
            tuple(problems),
        )
    return AdjudicationResult(apply_floor(proposed, floor), proposed)


def _fallback_add(
    engine: AdjudicationEngine, method: str, rationale: str, confidence: float
) -> Decision:
    # Confidence 1.0 for the novelty gate (nothing to merge with); 0.0 for a fallback, since
    # no usable judgement stands behind it.
    return Decision(
        action="add",
        candidate_id=None,
        stance="supports",
        window_action="keep",
        new_window=None,
        confidence=confidence,
        rationale=_clip(rationale),
        method=method,
        engine=engine.name,
        model=engine.model,
    )


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
