"""JSON output of the CLI uses SPEC §8's snake_case names and lower-case enum values."""

from __future__ import annotations

from datetime import UTC, datetime

from rememberstack.v1 import common_pb2, fact_pb2

from shared.cli.render import message_to_data
from shared.proto_convert import timestamp


def test_fact_result_renders_with_spec_names_and_enum_values() -> None:
    fact = fact_pb2.FactResult(
        fact_id="f1",
        kind=fact_pb2.FACT_KIND_OBSERVATION,
        label="The cutover is scheduled.",
        evidence_count=2,
        validity=common_pb2.Validity(
            valid_from=timestamp(datetime(2026, 6, 8, tzinfo=UTC)),
            valid_precision=common_pb2.PRECISION_DAY,
            ingested_at=timestamp(datetime(2026, 4, 1, tzinfo=UTC)),
        ),
        temporal_match=fact_pb2.TEMPORAL_MATCH_POSSIBLE,
        support=fact_pb2.SUPPORT_CURRENT,
    )
    data = message_to_data(fact)
    assert data["kind"] == "observation"
    assert data["temporal_match"] == "possible"
    assert data["support"] == "current"
    assert data["validity"]["valid_precision"] == "day"
    assert data["validity"]["valid_from"] == "2026-06-08T00:00:00Z"
    assert data["validity"]["valid_until"] is None
    assert data["contradiction"] is None
    assert data["evidence_count"] == 2


def test_unspecified_enum_values_render_as_null() -> None:
    data = message_to_data(common_pb2.Negative())
    assert data == {"kind": None, "explanation": "", "workaround": ""}
