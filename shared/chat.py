"""One JSON-schema chat completion against an OpenAI-compatible endpoint, with bounded retries.

The write path's model seats (the `prompt` adjudication engine, the entity resolver's optional
model choice) share this call so they fail the same way: transient errors are retried, a refused
request or an answer cut off at `max_tokens` is never parsed.
"""

from __future__ import annotations

from typing import Any

import openai

__all__ = ["ChatAnswerCut", "ChatError", "ChatRefused", "ChatUnreachable", "complete_json"]

_RETRYABLE = (
    openai.APITimeoutError,
    openai.APIConnectionError,
    openai.RateLimitError,
    openai.InternalServerError,
)


class ChatError(Exception):
    """The chat model gave no usable answer."""


class ChatUnreachable(ChatError):
    """Every attempt failed with a transient error."""


class ChatRefused(ChatError):
    """The endpoint rejected the request."""


class ChatAnswerCut(ChatError):
    """The answer is missing or was cut off at `max_tokens` (so it cannot be valid JSON)."""


async def complete_json(
    client: openai.AsyncOpenAI,
    *,
    model: str,
    messages: Any,
    schema_name: str,
    schema: dict[str, Any],
    max_tokens: int,
    request_timeout: float,
    max_retries: int,
) -> str:
    """The answer text of one schema-constrained completion at temperature 0."""
    response_format: Any = {
        "type": "json_schema",
        "json_schema": {"name": schema_name, "strict": True, "schema": schema},
    }
    last_error: Exception | None = None
    for _ in range(max_retries + 1):
        try:
            response = await client.chat.completions.create(
                model=model,
                messages=messages,
                response_format=response_format,
                max_tokens=max_tokens,
                temperature=0,
                timeout=request_timeout,
            )
        except _RETRYABLE as exc:
            last_error = exc
            continue
        except openai.APIError as exc:
            raise ChatRefused(f"chat model refused the request: {exc}") from exc
        first = response.choices[0] if response.choices else None
        if first is None or first.finish_reason == "length" or first.message.content is None:
            raise ChatAnswerCut("answer missing or cut off at max_tokens")
        return first.message.content
    raise ChatUnreachable(f"chat model unreachable: {last_error}")
