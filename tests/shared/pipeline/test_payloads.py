"""Pipeline work-item payloads: one encoding each; decode rejects what is malformed."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest

from shared.pipeline.payloads import (
    AdjudicatePayload,
    EmbedPayload,
    ExtractPayload,
    MalformedPayload,
)

VERSION = uuid.UUID("6f1c1d2e-0000-4000-8000-000000000001")
CLAIMS = (
    uuid.UUID("6f1c1d2e-0000-4000-8000-00000000000b"),
    uuid.UUID("6f1c1d2e-0000-4000-8000-00000000000a"),
)


def test_extract_payload_names_reextract_only_when_set() -> None:
    assert ExtractPayload(VERSION).encode() == {"version_id": str(VERSION)}
    assert ExtractPayload(VERSION, reextract=True).encode() == {
        "version_id": str(VERSION),
        "reextract": True,
    }


def test_embed_payload_always_names_reextract() -> None:
    assert EmbedPayload(VERSION).encode() == {"version_id": str(VERSION), "reextract": False}


def test_adjudicate_payload_encodes_sorted_claims_and_their_reason() -> None:
    encoded = AdjudicatePayload(VERSION, CLAIMS, "version_superseded").encode()
    assert encoded == {
        "version_id": str(VERSION),
        "retire_claim_ids": sorted(str(c) for c in CLAIMS),
        "retire_reason": "version_superseded",
    }


def test_adjudicate_payload_without_claims_has_no_reason() -> None:
    assert AdjudicatePayload(VERSION).encode()["retire_reason"] is None


@pytest.mark.parametrize(
    "payload",
    [
        ExtractPayload(VERSION, reextract=True),
        EmbedPayload(VERSION, reextract=True),
        AdjudicatePayload(VERSION, CLAIMS, "reextracted"),
    ],
)
def test_decode_reads_back_what_encode_wrote_and_ignores_trace_context(
    payload: ExtractPayload | EmbedPayload | AdjudicatePayload,
) -> None:
    stored = payload.encode() | {"trace_context": {"traceparent": "00-abc-def-01"}}
    decoded = type(payload).decode(stored)
    assert decoded.encode() == payload.encode()


@pytest.mark.parametrize("decode", [ExtractPayload.decode, EmbedPayload.decode])
def test_ingest_payload_without_a_version_is_malformed(
    decode: Callable[[dict[str, object]], object],
) -> None:
    with pytest.raises(MalformedPayload, match="malformed ingest"):
        decode({})


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({}, "malformed adjudicate.version payload"),
        ({"version_id": "not-a-uuid"}, "malformed adjudicate.version payload"),
        (
            {"version_id": str(VERSION), "retire_claim_ids": ["x"], "retire_reason": "reextracted"},
            "malformed adjudicate.version payload",
        ),
        (
            {"version_id": str(VERSION), "retire_claim_ids": [], "retire_reason": "deleted"},
            "unknown retire_reason 'deleted'",
        ),
        (
            {"version_id": str(VERSION), "retire_claim_ids": [str(CLAIMS[0])]},
            "retire_claim_ids given without a retire_reason",
        ),
    ],
)
def test_malformed_adjudicate_payload_says_what_is_wrong(
    payload: dict[str, object], message: str
) -> None:
    with pytest.raises(MalformedPayload, match=message):
        AdjudicatePayload.decode(payload)
