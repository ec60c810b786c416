"""The `prompt` engine: a chat model answers with a JSON-schema-constrained decision."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from openai import AsyncOpenAI

from services.adjudicator.domain import (
    ACTIONS,
    Assertion,
    CandidateFact,
    Decision,
    Precision,
    Window,
)
from services.adjudicator.engines.base import (
    AdjudicationEngine,
    ConfigurationError,
    EngineAnswerInvalid,
    EngineUnavailable,
)
from services.adjudicator.engines.jev import JevEngine, PlattCalibration
from shared.chat import ChatAnswerCut, ChatError, complete_json

__all__ = [
    "PromptEngine",
    "build_messages",
    "create_engine",
    "decision_schema",
    "parse_answer",
]

RATIONALE_MAX = 200
_SYSTEM = """You maintain a memory of facts. Compare the incoming assertion with the candidate \
facts about the same entity and choose exactly one action:
- add: a new proposition (no candidate is the same fact). candidate_id "none".
- confirm: it repeats a candidate. stance supports, window_action keep.
- adjust: the same fact with better or corrected dates. stance supports, window_action replace, \
new_valid_from/new_valid_until give the fact's new window.
- supersede: a successor of a candidate (the world changed, e.g. moved to another team). \
stance supports, window_action close, new_valid_until = the successor's start in the world \
(never the date the source spoke); only when that start is known.
- contradict_evidence: it directly disputes a candidate (same proposition, negated). stance \
contradicts, window_action keep.
- contradict_group: it states a different, incompatible value for the same thing at the same \
time. stance contradicts, window_action keep.
Distinct events stay distinct (the same tournament won in two different years is two facts). \
A correction of a date moves the fact's window; it does not create a new fact. When unsure, \
choose add with a low confidence. Dates are ISO 8601 UTC; windows are half-open [from, until)."""


def decision_schema(candidates: Sequence[CandidateFact]) -> dict[str, Any]:
    """The JSON schema of one answer; candidate ids are an enum, so none can be invented."""
    nullable_date = {"type": ["string", "null"], "description": "ISO 8601 UTC instant or null"}
    return {
        "type": "object",
        "additionalProperties": False,
        "required": [
            "action",
            "candidate_id",
            "stance",
            "window_action",
            "new_valid_from",
            "new_valid_until",
            "confidence",
            "rationale",
        ],
        "properties": {
            "action": {"type": "string", "enum": list(ACTIONS)},
            "candidate_id": {"type": "string", "enum": [c.fact_id for c in candidates] + ["none"]},
            "stance": {"type": "string", "enum": ["supports", "contradicts"]},
            "window_action": {"type": "string", "enum": ["keep", "replace", "close"]},
            "new_valid_from": nullable_date,
            "new_valid_until": nullable_date,
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "rationale": {"type": "string", "maxLength": RATIONALE_MAX},
        },
    }


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _window_json(window: Window) -> dict[str, Any]:
    return {
        "valid_from": _iso(window.valid_from),
        "valid_until": _iso(window.valid_until),
        "precision": window.precision,
    }


def build_messages(
    assertion: Assertion, candidates: Sequence[CandidateFact]
) -> list[dict[str, str]]:
    """The chat messages: fixed instructions, then the assertion and candidates as JSON."""
    payload = {
        "assertion": {
            "kind": assertion.kind,
            "subject": assertion.subject_name,
            "predicate": assertion.predicate,
            "object": assertion.object_name,
            "statement": assertion.statement,
            "claim_text": assertion.claim.claim_text,
            "polarity": assertion.polarity,
            "said_on": _iso(assertion.claim.asserted_at),
            "window": _window_json(assertion.window),
            "window_kind": assertion.claim.window_kind,
        },
        "candidates": [
            {
                "candidate_id": c.fact_id,
                "kind": c.kind,
                "predicate": c.predicate,
                "label": c.label,
                "statement": c.statement,
                "polarity": c.polarity,
                "window": _window_json(c.window),
                "evidence": [
                    {"text": e.claim_text, "stance": e.stance, "said_on": _iso(e.asserted_at)}
                    for e in list(c.evidence)[:5]
                ],
            }
            for c in candidates
        ],
    }
    return [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": json.dumps(payload, ensure_ascii=False)},
    ]


def _parse_instant(value: Any, field: str) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise EngineAnswerInvalid(f"{field} is not a string")
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise EngineAnswerInvalid(f"{field} is not an ISO 8601 instant: {value!r}") from exc
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def parse_answer(
    text: str | None,
    assertion: Assertion,
    candidates: Sequence[CandidateFact],
    *,
    engine: str = "prompt",
    model: str | None = None,
) -> Decision:
    """Read one answer into a Decision; shape errors raise, meaning errors are left to validate."""
    if not text:
        raise EngineAnswerInvalid("empty answer")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise EngineAnswerInvalid(f"not JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise EngineAnswerInvalid("answer is not a JSON object")
    for key, allowed in (
        ("action", ACTIONS),
        ("stance", ("supports", "contradicts")),
        ("window_action", ("keep", "replace", "close")),
    ):
        if data.get(key) not in allowed:
            raise EngineAnswerInvalid(f"{key} {data.get(key)!r} is not one of {list(allowed)}")
    confidence = data.get("confidence")
    if not isinstance(confidence, int | float) or isinstance(confidence, bool):
        raise EngineAnswerInvalid("confidence is not a number")
    candidate_id = data.get("candidate_id")
    if not isinstance(candidate_id, str):
        raise EngineAnswerInvalid("candidate_id is not a string")
    start = _parse_instant(data.get("new_valid_from"), "new_valid_from")
    until = _parse_instant(data.get("new_valid_until"), "new_valid_until")
    by_id = {c.fact_id: c for c in candidates}
    new_window: Window | None = None
    if data["action"] == "supersede" and candidate_id in by_id:
        closing_at = until or assertion.window.valid_from
        if closing_at is not None:
            new_window = by_id[candidate_id].window.closed_at(
                closing_at, assertion.window.precision
            )
    elif start is not None or until is not None:
        precision: Precision = (
            assertion.window.precision if start == assertion.window.valid_from else "instant"
        )
        new_window = Window(start, until, precision)
    rationale = str(data.get("rationale") or "")[:RATIONALE_MAX]
    return Decision(
        action=data["action"],
        candidate_id=None if candidate_id == "none" else candidate_id,
        stance=data["stance"],
        window_action=data["window_action"],
        new_window=new_window,
        confidence=float(confidence),
        rationale=rationale,
        method="prompt",
        engine=engine,
        model=model,
    )


class PromptEngine:
    """Asks an OpenAI-compatible chat model for one structured decision."""

    def __init__(
        self,
        client: AsyncOpenAI,
        model: str,
        timeout: float = 30.0,
        max_retries: int = 2,
        max_tokens: int = 400,
    ) -> None:
        self._client = client
        self._model = model
        self._timeout = timeout
        self._max_retries = max_retries
        self._max_tokens = max_tokens

    @property
    def name(self) -> str:
        return "prompt"

    @property
    def model(self) -> str | None:
        return self._model

    async def decide(self, assertion: Assertion, candidates: Sequence[CandidateFact]) -> Decision:
        messages: Any = build_messages(assertion, candidates)
        try:
            answer = await complete_json(
                self._client,
                model=self._model,
                messages=messages,
                schema_name="adjudication_decision",
                schema=decision_schema(candidates),
                max_tokens=self._max_tokens,
                request_timeout=self._timeout,
                max_retries=self._max_retries,
            )
        except ChatAnswerCut as exc:
            raise EngineAnswerInvalid(str(exc)) from exc
        except ChatError as exc:
            raise EngineUnavailable(str(exc)) from exc
        return parse_answer(answer, assertion, candidates, engine=self.name, model=self._model)


def create_engine(
    name: str,
    *,
    llm_base_url: str | None = None,
    llm_model: str | None = None,
    llm_api_key: str | None = None,
    timeout: float = 30.0,
    max_retries: int = 2,
    calibration: PlattCalibration | None = None,
) -> AdjudicationEngine:
    """The engine selected by REMEMBERSTACK_FACT_ADJUDICATION_ENGINE."""
    if name == "jev":
        return JevEngine(calibration)
    if name == "prompt":
        if not llm_base_url or not llm_model:
            raise ConfigurationError(
                "the 'prompt' adjudication engine needs a chat model: set "
                "REMEMBERSTACK_LLM_BASE_URL and REMEMBERSTACK_LLM_MODEL, or select "
                "REMEMBERSTACK_FACT_ADJUDICATION_ENGINE=jev"
            )
        client = AsyncOpenAI(
            base_url=llm_base_url,
            # Local OpenAI-compatible servers accept any key; the client insists on one.
            api_key=llm_api_key or "unused",
            timeout=timeout,
            max_retries=0,
        )
        return PromptEngine(client, llm_model, timeout=timeout, max_retries=max_retries)
    raise ConfigurationError(f"unknown adjudication engine {name!r}; choose 'prompt' or 'jev'")
