"""Typed payloads of the pipeline's work items, each with its one encoding.

`encode` gives the JSON object the queue stores; `decode` reads one back and raises
`MalformedPayload` (a `ValueError`, so the item fails and is retried or dead-lettered) naming
what is wrong. Keys a payload does not know (the queue's trace context) are ignored.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from shared.pipeline.kinds import ADJUDICATE_KIND, EMBED_KIND, EXTRACT_KIND
from shared.pipeline.retirement import RETIREMENT_REASONS, RetirementReason

__all__ = [
    "AdjudicatePayload",
    "EmbedPayload",
    "ExtractPayload",
    "MalformedPayload",
]


class MalformedPayload(ValueError):
    """A work item's payload does not say what its kind needs."""


def _version_id(kind: str, payload: Mapping[str, Any]) -> uuid.UUID:
    try:
        return uuid.UUID(str(payload["version_id"]))
    except (KeyError, ValueError, TypeError) as exc:
        raise MalformedPayload(f"malformed {kind} payload: {exc!r}") from exc


@dataclass(frozen=True, slots=True)
class ExtractPayload:
    """`ingest.extract {version_id, reextract?}`: `reextract` when a newer extractor reads a
    version again (its old claims are retired once the new ones are adjudicated)."""

    version_id: uuid.UUID
    reextract: bool = False

    def encode(self) -> dict[str, Any]:
        payload: dict[str, Any] = {"version_id": str(self.version_id)}
        if self.reextract:
            payload["reextract"] = True
        return payload

    @classmethod
    def decode(cls, payload: Mapping[str, Any]) -> ExtractPayload:
        return cls(_version_id(EXTRACT_KIND, payload), bool(payload.get("reextract")))


@dataclass(frozen=True, slots=True)
class EmbedPayload:
    """`ingest.embed {version_id, reextract}`: the extraction's `reextract`, passed on."""

    version_id: uuid.UUID
    reextract: bool = False

    def encode(self) -> dict[str, Any]:
        return {"version_id": str(self.version_id), "reextract": self.reextract}

    @classmethod
    def decode(cls, payload: Mapping[str, Any]) -> EmbedPayload:
        return cls(_version_id(EMBED_KIND, payload), bool(payload.get("reextract")))


@dataclass(frozen=True, slots=True)
class AdjudicatePayload:
    """`adjudicate.version {version_id, retire_claim_ids, retire_reason}`: adjudicate the
    version's claims, then retire the testimony it replaced (none: `retire_reason` is null)."""

    version_id: uuid.UUID
    retire_claim_ids: tuple[uuid.UUID, ...] = ()
    retire_reason: RetirementReason | None = None

    def __post_init__(self) -> None:
        if self.retire_claim_ids and self.retire_reason is None:
            raise MalformedPayload("retire_claim_ids given without a retire_reason")

    def encode(self) -> dict[str, Any]:
        return {
            "version_id": str(self.version_id),
            "retire_claim_ids": sorted(str(c) for c in self.retire_claim_ids),
            "retire_reason": self.retire_reason if self.retire_claim_ids else None,
        }

    @classmethod
    def decode(cls, payload: Mapping[str, Any]) -> AdjudicatePayload:
        version_id = _version_id(ADJUDICATE_KIND, payload)
        try:
            retire = tuple(uuid.UUID(str(c)) for c in payload.get("retire_claim_ids") or ())
        except (ValueError, TypeError) as exc:
            raise MalformedPayload(f"malformed {ADJUDICATE_KIND} payload: {exc!r}") from exc
        reason = payload.get("retire_reason")
        if reason is not None and reason not in RETIREMENT_REASONS:
            raise MalformedPayload(f"unknown retire_reason {reason!r}")
        return cls(version_id, retire, cast("RetirementReason | None", reason))
