"""Fusion rules of ClaimsAndSourcesContext: weighted channels and neighbouring turns."""

from __future__ import annotations

import uuid

from services.query.claims_ranking import weighted_rrf, with_neighbours
from services.query.domain import ChunkView


def _chunk(version: uuid.UUID, ordinal: int, score: float) -> ChunkView:
    return ChunkView(
        chunk_id=uuid.uuid4(),
        doc_id=uuid.uuid4(),
        version_id=version,
        ordinal=ordinal,
        char_start=0,
        char_end=1,
        text="t",
        section_path="",
        document_title=None,
        source_kind=None,
        asserted_at=None,
        score=score,
    )


def test_weighted_rrf_heavier_channel_wins_a_rank_swap() -> None:
    a, b = uuid.uuid4(), uuid.uuid4()
    scores = weighted_rrf([([a, b], 1.0), ([b, a], 1.5)])
    assert scores[b] > scores[a]


def test_weighted_rrf_equal_weights_tie_a_rank_swap() -> None:
    a, b = uuid.uuid4(), uuid.uuid4()
    scores = weighted_rrf([([a, b], 1.0), ([b, a], 1.0)])
    assert scores[a] == scores[b]


def testwith_neighbours_lifts_the_reply_after_a_strong_turn_above_an_isolated_one() -> None:
    version = uuid.uuid4()
    question = _chunk(version, 4, 0.030)
    reply = _chunk(version, 5, 0.010)
    isolated = _chunk(version, 9, 0.012)
    ranked = with_neighbours([question, isolated, reply])
    assert [c.ordinal for c in ranked] == [4, 5, 9]


def testwith_neighbours_ignores_adjacent_ordinals_of_another_version() -> None:
    strong = _chunk(uuid.uuid4(), 4, 0.030)
    other = _chunk(uuid.uuid4(), 5, 0.010)
    with_neighbours([strong, other])
    assert other.score == 0.010
