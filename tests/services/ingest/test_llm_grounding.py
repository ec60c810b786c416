"""The LLM extractor's deterministic grounding gate and claim conversion."""

from __future__ import annotations

from datetime import UTC, datetime

from services.ingest.extraction.base import ExtractionInput
from services.ingest.extraction.llm import CLAIMS_SCHEMA, ground_claims, to_claim

TEXT = "Dana believes the launch\nwill slip to  Q3 2026. Ravi left."


def _raw(span: str, **kw: object) -> dict[str, object]:
    base: dict[str, object] = {
        "claim_text": "Dana believes the launch will slip",
        "source_span": span,
    }
    base.update(kw)
    return base


def test_exact_quote_is_kept_with_its_offsets() -> None:
    kept, drops = ground_claims(TEXT, [_raw("Ravi left.")])
    assert drops == []
    assert TEXT[kept[0].start : kept[0].end] == "Ravi left."


def test_quote_differing_only_in_whitespace_is_kept_at_the_original_text() -> None:
    kept, _ = ground_claims(TEXT, [_raw("the launch will slip to Q3 2026.")])
    assert TEXT[kept[0].start : kept[0].end] == "the launch\nwill slip to  Q3 2026."


def test_paraphrased_or_missing_quote_is_dropped_with_reason() -> None:
    kept, drops = ground_claims(
        TEXT, [_raw("the launch will be late"), _raw(""), {"claim_text": "x"}]
    )
    assert kept == []
    assert [d.reason for d in drops] == ["span_not_in_text", "missing_span", "missing_span"]


def test_grounded_claim_uses_document_offsets_and_never_invents_time() -> None:
    inp = ExtractionInput(TEXT, datetime(2026, 1, 12, tzinfo=UTC), base_offset=100)
    kept, _ = ground_claims(
        TEXT,
        [
            _raw(
                "Ravi left",
                precision="day",
                valid_from=None,
                valid_until=None,
                is_attributed=True,
                holder=None,
            )
        ],
    )
    claim = to_claim(inp, kept[0])
    document = " " * 100 + TEXT
    assert document[claim.char_start : claim.char_end] == claim.source_span == "Ravi left"
    assert (claim.claim_valid_precision, claim.claim_valid_from) == ("unknown", None)
    assert (claim.is_attributed, claim.holder) == (False, None)


def test_schema_bounds_every_free_text_field() -> None:
    props = CLAIMS_SCHEMA["properties"]["claims"]["items"]["properties"]
    for name, spec in props.items():
        if "string" in spec["type"] and "enum" not in spec:
            assert spec["maxLength"] <= 600, name
