"""Claim extractor over an OpenAI-compatible chat endpoint, with a deterministic grounding gate."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, cast

from services.ingest.extraction.base import (
    ExtractedClaim,
    ExtractionInput,
    Span,
    ValidKind,
    ValidPrecision,
)

__all__ = [
    "CLAIMS_SCHEMA",
    "GroundedClaim",
    "GroundingDrop",
    "LlmExtractor",
    "ground_claims",
    "to_claim",
]

_PRECISIONS = ("unknown", "instant", "day", "month", "quarter", "year", "open")
_KINDS = ("event_time", "effective_period", "measurement_period", "proposition_validity")
_CONTEXT_CHARS = 1000


def _text(max_length: int, nullable: bool = False) -> dict[str, Any]:
    return {"type": ["string", "null"] if nullable else "string", "maxLength": max_length}


_CLAIM_PROPERTIES: dict[str, Any] = {
    "claim_text": _text(300),
    "source_span": _text(600),
    "valid_from": _text(10, nullable=True),
    "valid_until": _text(10, nullable=True),
    "precision": {"type": "string", "enum": list(_PRECISIONS)},
    "kind": {"type": ["string", "null"], "enum": [*_KINDS, None]},
    "is_attributed": {"type": "boolean"},
    "holder": _text(80, nullable=True),
    "polarity": {"type": "string", "enum": ["positive", "negative"]},
    "subject": _text(120, nullable=True),
    "predicate": _text(60, nullable=True),
    "object": _text(160, nullable=True),
}
CLAIMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "claims": {
            "type": "array",
            "maxItems": 20,
            "items": {
                "type": "object",
                "properties": _CLAIM_PROPERTIES,
                "required": list(_CLAIM_PROPERTIES),
                "additionalProperties": False,
            },
        }
    },
    "required": ["claims"],
    "additionalProperties": False,
}

_SYSTEM_PROMPT = """You extract claims from a passage. A claim is one self-contained statement
the passage makes. Rules:
- claim_text: the statement with pronouns, "I" (the speaker) and "this report" resolved.
- source_span: copy the supporting words VERBATIM from the passage (no paraphrase).
- Skip questions, advice, greetings, hypotheticals and opinions nobody holds.
- "X said/believes ..." or "I think ..." -> is_attributed true, holder X (or the speaker).
- Negated statements are claims with polarity "negative".
- Resolve relative dates against said_on as YYYY-MM-DD; valid_until is the inclusive end.
  No date in the passage -> valid_from and valid_until null, precision "unknown".
Answer with JSON only."""


@dataclass(frozen=True)
class GroundedClaim:
    """A model claim whose quote was found at `start:end` (local offsets) in the passage."""

    raw: Mapping[str, Any]
    start: int
    end: int


@dataclass(frozen=True)
class GroundingDrop:
    """A model claim rejected by the gate, and why."""

    reason: str
    claim_text: str
    source_span: str


def _locate(text: str, quote: str) -> tuple[int, int] | None:
    at = text.find(quote)
    if at >= 0:
        return at, at + len(quote)
    words = quote.split()
    if not words:
        return None
    m = re.search(r"\s+".join(re.escape(w) for w in words), text)
    return (m.start(), m.end()) if m else None


def ground_claims(
    text: str, raw_claims: Sequence[Mapping[str, Any]]
) -> tuple[list[GroundedClaim], list[GroundingDrop]]:
    """Keep claims whose `source_span` occurs in `text` (exactly, else with whitespace
    normalised); drop the rest with a reason."""
    kept: list[GroundedClaim] = []
    drops: list[GroundingDrop] = []
    for raw in raw_claims:
        quote = raw.get("source_span")
        claim_text = str(raw.get("claim_text") or "")
        if not isinstance(quote, str) or not quote.strip():
            drops.append(GroundingDrop("missing_span", claim_text, str(quote or "")))
            continue
        if not claim_text.strip():
            drops.append(GroundingDrop("missing_claim_text", claim_text, quote))
            continue
        found = _locate(text, quote.strip())
        if found is None:
            drops.append(GroundingDrop("span_not_in_text", claim_text, quote))
            continue
        kept.append(GroundedClaim(raw, found[0], found[1]))
    return kept, drops


def _day(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        d = date.fromisoformat(value[:10])
    except ValueError:
        return None
    return datetime(d.year, d.month, d.day, tzinfo=UTC)


def _optional(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def to_claim(inp: ExtractionInput, grounded: GroundedClaim) -> ExtractedClaim:
    """Turn a grounded model claim into an ExtractedClaim, never inventing world time."""
    raw = grounded.raw
    valid_from, valid_until = _day(raw.get("valid_from")), _day(raw.get("valid_until"))
    precision = raw.get("precision") if raw.get("precision") in _PRECISIONS else "unknown"
    if valid_from is None and valid_until is None:
        precision = "unknown"
    elif precision == "unknown":
        valid_from = valid_until = None
    kind = raw.get("kind") if raw.get("kind") in _KINDS else None
    holder = _optional(raw.get("holder"))
    attributed = bool(raw.get("is_attributed")) and holder is not None
    start, end = inp.base_offset + grounded.start, inp.base_offset + grounded.end
    span_text = inp.text[grounded.start : grounded.end]
    return ExtractedClaim(
        claim_text=str(raw["claim_text"]).strip(),
        char_start=start,
        char_end=end,
        source_span=span_text,
        evidence_spans=(Span(start, end, span_text),),
        claim_valid_from=valid_from,
        claim_valid_until=valid_until,
        claim_valid_precision=cast(ValidPrecision, precision),
        claim_valid_kind=cast("ValidKind | None", kind),
        is_attributed=attributed,
        holder=holder if attributed else None,
        polarity="negative" if raw.get("polarity") == "negative" else "positive",
        subject_text=_optional(raw.get("subject")),
        predicate_text=_optional(raw.get("predicate")),
        object_text=_optional(raw.get("object")),
    )


class LlmExtractor:
    """One chat call per passage, schema-constrained; ungrounded claims land in `last_drops`."""

    name = "llm"
    version = "1.0.0"

    def __init__(
        self,
        client_factory: Callable[[], Any],
        model: str,
        timeout: float = 60.0,
        max_retries: int = 2,
        max_tokens: int = 1024,
    ) -> None:
        self._factory = client_factory
        self._client: Any | None = None
        self._model = model
        self._timeout = timeout
        self._max_retries = max_retries
        self._max_tokens = max_tokens
        self.last_drops: list[GroundingDrop] = []

    def _chat(self) -> Any:
        if self._client is None:
            self._client = self._factory().with_options(
                timeout=self._timeout, max_retries=self._max_retries
            )
        return self._client

    def extract_batch(self, inputs: Sequence[ExtractionInput]) -> list[list[ExtractedClaim]]:
        """Extract claims from each input; drops of the whole batch go to `last_drops`."""
        self.last_drops = []
        results = []
        for inp in inputs:
            raw_claims = self._ask(inp)
            kept, drops = ground_claims(inp.text, raw_claims)
            self.last_drops.extend(drops)
            results.append([to_claim(inp, g) for g in kept])
        return results

    def _ask(self, inp: ExtractionInput) -> list[Mapping[str, Any]]:
        payload = {
            "passage": inp.text,
            "said_on": inp.said_on.astimezone(UTC).date().isoformat() if inp.said_on else None,
            "speaker": inp.speaker,
            "document_title": inp.document_title,
            "preceding_text": (inp.context or "")[-_CONTEXT_CHARS:] or None,
        }
        response = self._chat().chat.completions.create(
            model=self._model,
            messages=[
                {"role": "system", "content": _SYSTEM_PROMPT},
                {"role": "user", "content": json.dumps(payload)},
            ],
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "claims", "schema": CLAIMS_SCHEMA, "strict": True},
            },
            max_tokens=self._max_tokens,
            temperature=0,
        )
        content = response.choices[0].message.content or ""
        try:
            parsed = json.loads(content)
        except json.JSONDecodeError:
            self.last_drops.append(GroundingDrop("invalid_json", "", content[:200]))
            return []
        claims = parsed.get("claims") if isinstance(parsed, dict) else None
        if not isinstance(claims, list):
            self.last_drops.append(GroundingDrop("invalid_shape", "", content[:200]))
            return []
        return [c for c in claims if isinstance(c, dict)]
