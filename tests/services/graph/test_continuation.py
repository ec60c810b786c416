"""Continuation tokens: round trip, tamper detection, binding to the request."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import UTC, datetime

import pytest

from services.graph.continuation import Cursor, InvalidContinuation, decode_cursor, encode_cursor
from services.graph.domain import NeighborhoodQuery

QUERY = NeighborhoodQuery(
    namespace="ns",
    entity_id=uuid.uuid4(),
    hops=2,
    predicates=("knows",),
    clocks=None,
    limit=10,
    continuation="",
    include_paths=False,
)
CURSOR = Cursor(
    snapshot=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), last_hop=1, last_entity_id=uuid.uuid4()
)


def test_token_round_trips_to_the_same_cursor() -> None:
    assert decode_cursor(QUERY, encode_cursor(QUERY, CURSOR)) == CURSOR


def test_token_with_a_flipped_character_is_refused() -> None:
    token = encode_cursor(QUERY, CURSOR)
    flipped = token[:-3] + ("A" if token[-3] != "A" else "B") + token[-2:]
    with pytest.raises(InvalidContinuation):
        decode_cursor(QUERY, flipped)


@pytest.mark.parametrize(
    "change",
    [{"hops": 3}, {"predicates": ("owns",)}, {"namespace": "other"}, {"include_paths": True}],
)
def test_token_replayed_on_a_different_request_is_refused(change: dict[str, object]) -> None:
    token = encode_cursor(QUERY, CURSOR)
    with pytest.raises(InvalidContinuation):
        decode_cursor(dataclasses.replace(QUERY, **change), token)  # type: ignore[arg-type]


def test_token_survives_a_changed_page_size() -> None:
    token = encode_cursor(QUERY, CURSOR)
    assert decode_cursor(dataclasses.replace(QUERY, limit=500), token) == CURSOR
