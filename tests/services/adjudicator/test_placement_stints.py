"""A placement held twice (issue 17): "left Veldt Robotics" and, months later, "has rejoined
Veldt Robotics" are two stints, not one employment confirmed twice (which left him believed
gone), in either arrival order; a later source that the person holds it again reads alike."""

from __future__ import annotations

from typing import Any

import pytest

from services.adjudicator.service import AdjudicationService
from services.adjudicator.vocabulary import PredicateVocabulary
from tests.support.adjudication import day, run

_LEFT = day(2025, 2, 27)
_BACK = day(2025, 11, 3)


@pytest.mark.parametrize("back_first", [False, True], ids=["in order", "return first"])
@pytest.mark.parametrize(
    ("left", "back", "predicate"),
    [
        ("Tobias Brenner left Veldt Robotics today.",
         "Tobias Brenner has rejoined Veldt Robotics as Director of Hardware.", "rejoin"),
        ("Tobias Brenner has left Veldt Robotics.",
         "Tobias Brenner is back at Veldt Robotics.", "be back at"),
        ("Tobias Brenner left Veldt Robotics on 27 February.",
         "Tobias Brenner came back to Veldt Robotics this week.", "come back to"),
    ],
)  # fmt: skip
async def test_a_placement_taken_up_again_after_it_ended_is_another_stint(
    adj_service: AdjudicationService,
    corpus: Any,
    left: str,
    back: str,
    predicate: str,
    back_first: bool,
) -> None:
    ended = await corpus.document("Team news")
    await corpus.claim(
        ended, left, "Tobias Brenner", "leave", "Veldt Robotics", said=_LEFT,
        valid_from=_LEFT, valid_until=_LEFT, precision="day", kind="event_time",
    )  # fmt: skip
    returned = await corpus.document("Welcome back")
    await corpus.claim(returned, back, "Tobias Brenner", predicate, "Veldt Robotics", said=_BACK)
    await run(adj_service, corpus, *((returned, ended) if back_first else (ended, returned)))
    stints = [f for f in await corpus.facts() if f["invalidated_at"] is None]
    assert len(stints) == 2
    assert sorted(f["valid_until"] is None for f in stints) == [False, True]
    (first,) = [f for f in stints if f["valid_until"] is not None]
    assert first["valid_until"] <= day(2025, 2, 28)
    assert all(f["contradiction_group_id"] is None for f in stints)


@pytest.mark.parametrize(
    ("phrase", "phase"),
    [
        ("be out as", "end"),  # "Tom Egan is out as CTO of Lumio"
        ("be back at", "start"),
        ("come back to", "start"),
        ("rejoin", "start"),
    ],
)
def test_leaving_and_returning_phrases_end_or_start_the_employment(phrase: str, phase: str) -> None:
    directed = PredicateVocabulary().normalize_directed(phrase)
    assert directed is not None
    assert (directed.predicate, directed.phase, directed.placement) == ("works_for", phase, True)
