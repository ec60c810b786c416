"""Fusion rules of ClaimsAndSourcesContext: weighted channels and neighbouring turns."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from services.query.domain import ChunkView, ClaimView
from services.query.ranking.claims import Nominated, rank, with_neighbours
from services.query.ranking.fusion import weighted_rrf
from services.query.ranking.time_cues import time_cues


def _chunk(
    version: uuid.UUID, ordinal: int, score: float, said: datetime | None = None
) -> ChunkView:
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
        asserted_at=said,
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


def test_with_neighbours_lifts_the_reply_after_a_strong_turn_above_an_isolated_one() -> None:
    version = uuid.uuid4()
    question = _chunk(version, 4, 0.030)
    reply = _chunk(version, 5, 0.010)
    isolated = _chunk(version, 9, 0.012)
    ranked = with_neighbours([question, isolated, reply])
    assert [c.ordinal for c in ranked] == [4, 5, 9]


def test_with_neighbours_ignores_adjacent_ordinals_of_another_version() -> None:
    strong = _chunk(uuid.uuid4(), 4, 0.030)
    other = _chunk(uuid.uuid4(), 5, 0.010)
    with_neighbours([strong, other])
    assert other.score == 0.010


def _tied(query: str, first_said: datetime, second_said: datetime) -> list[ChunkView]:
    """Two chunks the channels rank alike (each first in one channel), said at these times."""
    first = _chunk(uuid.uuid4(), 1, 0.0, first_said)
    second = _chunk(uuid.uuid4(), 1, 0.0, second_said)
    ids = [first.chunk_id, second.chunk_id]
    nominated = Nominated(
        claim_vector=[],
        claim_lexical=[],
        chunk_vector=ids,
        chunk_lexical=ids[::-1],
        claims={},
        chunks={c.chunk_id: c for c in (first, second)},
        when=time_cues(query),
    )
    return rank(nominated).chunks


def test_a_date_in_the_query_ranks_what_was_said_then_first() -> None:
    march, may = datetime(2023, 3, 14, tzinfo=UTC), datetime(2023, 5, 20, tzinfo=UTC)
    for query, said in (("in May 2023", [may, march]), ("in March 2023", [march, may])):
        ranked = _tied(f"What did Maria donate {query}?", *said[::-1])
        assert [c.asserted_at for c in ranked] == said
        assert ranked[0].score > ranked[1].score


def test_without_a_date_said_on_times_do_not_order() -> None:
    march, may = datetime(2023, 3, 14, tzinfo=UTC), datetime(2023, 5, 20, tzinfo=UTC)
    first, second = _tied("What did Maria donate?", march, may)
    assert first.score == second.score


def _claim(text: str, valid_from: datetime | None) -> ClaimView:
    return ClaimView(
        claim_id=uuid.uuid4(),
        doc_id=uuid.uuid4(),
        version_id=uuid.uuid4(),
        chunk_id=uuid.uuid4(),
        claim_text=text,
        normalized_text=text.lower(),
        source_span=text,
        char_start=0,
        char_end=len(text),
        evidence_spans=[],
        is_attributed=False,
        is_current_testimony=True,
        asserted_at=datetime(2023, 6, 1, tzinfo=UTC),
        claim_valid_from=valid_from,
        claim_valid_until=None,
        claim_valid_precision="day" if valid_from else "unknown",
        claim_valid_kind="event_time" if valid_from else None,
        holder=None,
        polarity="positive",
        speaker=None,
        turn_id=None,
        currency_reason=None,
        extractor_name="rules",
        extractor_version="1",
        document_title=None,
        source_kind=None,
    )


def test_a_question_asking_when_ranks_the_claim_that_states_a_time_first() -> None:
    talk = _claim("Dana is excited about the move", None)
    dated = _claim("Dana moved to Lisbon", datetime(2023, 5, 20, tzinfo=UTC))
    scores = {}
    for asks in (True, False):
        nominated = Nominated(
            claim_vector=[talk.claim_id, dated.claim_id],
            claim_lexical=[dated.claim_id, talk.claim_id],
            chunk_vector=[],
            chunk_lexical=[],
            claims={c.claim_id: c for c in (talk, dated)},
            chunks={},
            asks_when=asks,
        )
        scores[asks] = {c.claim_id: c.score for c in rank(nominated).claims}
    assert scores[True][dated.claim_id] > scores[True][talk.claim_id]
    # Without the cue the channels tie them.
    assert scores[False][dated.claim_id] == scores[False][talk.claim_id]
