"""The chat-model final choice "existing candidate or new", validated like the rule model's."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from openai import AsyncOpenAI

from services.adjudicator.entities.rules import Choice, Nominee
from shared.chat import ChatError, complete_json

__all__ = ["MODEL_CHOOSER_VERSION", "ChatModelChooser", "choice_schema", "parse_choice"]

MODEL_CHOOSER_VERSION = "entity-llm-2"
RATIONALE_MAX = 200
NEW = "new"
_SYSTEM = """You resolve a name mentioned in a text to an entity of a memory. Candidates are \
existing entities nominated by alias, spelling, sound or profile similarity, with their scores, \
how the name matches (exact, given_name, surname, initials, short_form, fuzzy, other_head, \
other_words) and whether the context supports them (same document, co-mentioned, related to a \
co-mentioned entity) or shares nothing with them (disjoint). Choose the candidate's entity_id \
the mention refers to, or "new" when it names someone or something else. Different people can \
share a first name: prefer "new" when the context does not support a candidate. Give a \
confidence in 0..1."""


class ChoiceInvalid(Exception):
    """The model's answer does not name a nominated candidate or "new"."""


def choice_schema(nominees: Sequence[Nominee]) -> dict[str, Any]:
    """The JSON schema of one answer; candidate ids are an enum, so none can be invented."""
    ids = list(dict.fromkeys(str(n.entity_id) for n in nominees))
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["choice", "confidence", "rationale"],
        "properties": {
            "choice": {"type": "string", "enum": [*ids, NEW]},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "rationale": {"type": "string", "maxLength": RATIONALE_MAX},
        },
    }


def build_messages(
    mention: str, context_names: Sequence[str], nominees: Sequence[Nominee]
) -> list[dict[str, str]]:
    """Fixed instructions, then the mention, its context and the candidates as JSON."""
    payload = {
        "mention": mention,
        "context_names": list(context_names),
        "candidates": [
            {
                "entity_id": str(n.entity_id),
                "name": n.canonical_name,
                "matched_alias": n.matched_alias,
                "step": n.step,
                "score": round(n.score, 4),
                "match": n.kind,
                "context_support": n.support,
                "context_disjoint": n.disjoint,
            }
            for n in nominees
        ],
    }
    return [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": json.dumps(payload, ensure_ascii=False)},
    ]


def parse_choice(
    text: str | None, nominees: Sequence[Nominee]
) -> tuple[Nominee | None, float, str]:
    """The chosen nominee (None = new), confidence and rationale; raises ChoiceInvalid."""
    if not text:
        raise ChoiceInvalid("empty answer")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ChoiceInvalid(f"not JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise ChoiceInvalid("answer is not a JSON object")
    confidence = data.get("confidence")
    if not isinstance(confidence, int | float) or isinstance(confidence, bool):
        raise ChoiceInvalid("confidence is not a number")
    if not 0 <= confidence <= 1:
        raise ChoiceInvalid(f"confidence {confidence} is outside 0..1")
    picked = data.get("choice")
    by_id = {str(n.entity_id): n for n in nominees}
    if picked != NEW and picked not in by_id:
        raise ChoiceInvalid(f"choice {picked!r} is neither a nominated candidate nor 'new'")
    rationale = str(data.get("rationale") or "")[:RATIONALE_MAX]
    return (None if picked == NEW else by_id[str(picked)]), float(confidence), rationale


class ChatModelChooser:
    """Asks an OpenAI-compatible chat model for the final choice; any answer that cannot be
    used (invalid, unreachable, below `min_confidence`) falls back to the rule model's."""

    def __init__(
        self,
        client_factory: Callable[[], AsyncOpenAI],
        model: str,
        timeout: float = 30.0,
        max_retries: int = 2,
        *,
        max_tokens: int = 200,
        min_confidence: float = 0.5,
    ) -> None:
        self._client_factory = client_factory
        self._client: AsyncOpenAI | None = None
        self._model = model
        self._timeout = timeout
        self._max_retries = max_retries
        self._max_tokens = max_tokens
        self._min_confidence = min_confidence

    @property
    def version(self) -> str:
        """The resolver version of verdicts this chooser was asked about."""
        return f"{MODEL_CHOOSER_VERSION}:{self._model}"

    async def choose(
        self,
        mention: str,
        context_names: Sequence[str],
        nominees: Sequence[Nominee],
        rule_choice: Choice,
    ) -> tuple[Choice, dict[str, Any]]:
        """The choice to apply and the record for the verdict's `scores["model"]`; the record
        carries `fallback` (the reason) when the rule model's choice was kept."""
        record: dict[str, Any] = {"model": self._model, "rule_choice": rule_choice.rule}
        try:
            text = await self._ask(mention, context_names, nominees)
            chosen, confidence, rationale = parse_choice(text, nominees)
        except ChoiceInvalid as exc:
            return rule_choice, record | {"fallback": str(exc)}
        record |= {
            "choice": "new" if chosen is None else str(chosen.entity_id),
            "confidence": confidence,
            "rationale": rationale,
        }
        if confidence < self._min_confidence:
            return rule_choice, record | {"fallback": "low confidence"}
        if chosen is not None:
            return Choice(chosen, "model"), record
        # A rejected candidate is still a possible duplicate: keep it as a merge proposal.
        return Choice(None, "model", rule_choice.propose or rule_choice.chosen), record

    async def _ask(
        self, mention: str, context_names: Sequence[str], nominees: Sequence[Nominee]
    ) -> str | None:
        if self._client is None:
            self._client = self._client_factory()
        messages: Any = build_messages(mention, context_names, nominees)
        try:
            return await complete_json(
                self._client,
                model=self._model,
                messages=messages,
                schema_name="entity_choice",
                schema=choice_schema(nominees),
                max_tokens=self._max_tokens,
                request_timeout=self._timeout,
                max_retries=self._max_retries,
            )
        except ChatError as exc:
            raise ChoiceInvalid(str(exc)) from exc
