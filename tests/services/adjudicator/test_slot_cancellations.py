"""A plan called off (issue 17): "planned for 14 June", "pushed to July", then "we have called
off the launch" end with the plan superseded by the cancellation (held never: it was called
off before it was due), in every arrival order, and no contradiction group."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from services.adjudicator.service import AdjudicationService
from tests.support.adjudication import day, run

_PLAN = [
    ("The Tarn 2.0 launch is planned for 14 June.", "is planned for", day(2026, 3, 1),
     day(2026, 6, 14), day(2026, 6, 14), "day"),
    ("The Tarn 2.0 launch has been pushed to July.", "has been pushed to", day(2026, 4, 10),
     day(2026, 7, 1), day(2026, 7, 31), "month"),
    ("We have called off the Tarn 2.0 launch.", "call off", day(2026, 5, 10), None, None,
     "unknown"),
]  # fmt: skip


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))), ids=str)
async def test_a_plan_called_off_is_superseded_by_the_cancellation_in_any_order(
    adj_service: AdjudicationService, corpus: Any, order: tuple[int, ...]
) -> None:
    docs = []
    for text, predicate, said, start, end, precision in _PLAN:
        doc = await corpus.document("Launch plan")
        await corpus.claim(
            doc, text, "Tarn 2.0 launch", predicate, None, said=said, valid_from=start,
            valid_until=end, precision=precision, kind="event_time",
        )  # fmt: skip
        docs.append(doc)
    await run(adj_service, corpus, *(docs[i] for i in order))
    facts = [f for f in await corpus.facts() if f["invalidated_at"] is None]
    (off,) = [f for f in facts if "called off" in f["label"]]
    plans = [f for f in facts if f is not off]
    assert len(plans) == 1  # the moved date is the same plan
    assert all(p["superseded_by_fact_id"] == off["id"] for p in plans)
    assert all(p["valid_until"] == p["valid_from"] for p in plans)  # it never held
    assert off["superseded_by_fact_id"] is None
    assert all(f["contradiction_group_id"] is None for f in facts)


@pytest.mark.parametrize("off_first", [False, True], ids=["in order", "cancellation first"])
@pytest.mark.parametrize(
    ("plan", "off"),
    [
        ("The leadership offsite will be held in Lisbon from 14 to 16 May.",
         "The leadership offsite has been cancelled because of the travel freeze."),
        ("The leadership offsite is booked for 14 May.",
         "The leadership offsite has been called off."),
        ("The leadership offsite is scheduled for 14 May.",
         "We are no longer going ahead with the leadership offsite."),
    ],
)  # fmt: skip
async def test_a_plan_and_its_cancellation_meet_whichever_arrives_first(
    adj_service: AdjudicationService, corpus: Any, plan: str, off: str, off_first: bool
) -> None:
    docs = []
    for text, said, start, end in (
        (plan, day(2026, 3, 2), day(2026, 5, 14), day(2026, 5, 16)),
        (off, day(2026, 4, 9), None, None),
    ):
        doc = await corpus.document("Offsite")
        await corpus.claim(
            doc, text, "leadership offsite", "is", None, said=said, valid_from=start,
            valid_until=end, precision="day" if start else "unknown", kind="effective_period",
        )  # fmt: skip
        docs.append(doc)
    await run(adj_service, corpus, *(reversed(docs) if off_first else docs))
    facts = {f["label"].rstrip("."): f for f in await corpus.facts() if f["invalidated_at"] is None}
    planned = next(f for label, f in facts.items() if label in plan)
    called_off = next(f for label, f in facts.items() if label in off)
    assert planned["superseded_by_fact_id"] == called_off["id"]
    assert planned["valid_until"] == planned["valid_from"]
    assert planned["contradiction_group_id"] is None
