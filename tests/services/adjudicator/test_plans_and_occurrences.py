"""A plan and what happened (issue 17): "Helix 2.0 GA is planned for July" and "Helix 2.0 went
GA today" are two facts, the plan and the occurrence, in either arrival order (a regression
guard; a longer chain of slips of one launch still differs by arrival order)."""

from __future__ import annotations

from typing import Any

import pytest

from services.adjudicator.service import AdjudicationService
from tests.support.adjudication import day, run


@pytest.mark.parametrize("happened_first", [False, True], ids=["in order", "occurrence first"])
@pytest.mark.parametrize(
    ("plan", "happened", "thing"),
    [
        ("Helix 2.0 GA is planned for July.", "Helix 2.0 went GA today.", "Helix 2.0"),
        ("The Orchid app launch is scheduled for July.", "We launched the Orchid app today.",
         "Orchid app"),
        ("The Tarn offsite is planned for July.", "The Tarn offsite took place today.",
         "Tarn offsite"),
    ],
)  # fmt: skip
async def test_what_happened_is_no_repeat_of_the_plan_for_it(
    adj_service: AdjudicationService,
    corpus: Any,
    plan: str,
    happened: str,
    thing: str,
    happened_first: bool,
) -> None:
    planned = await corpus.document("Plan")
    await corpus.claim(
        planned, plan, thing, "be", None, said=day(2026, 5, 2), valid_from=day(2026, 7, 1),
        valid_until=day(2026, 7, 31), precision="month", kind="event_time",
    )  # fmt: skip
    done = await corpus.document("Update")
    await corpus.claim(
        done, happened, thing, "happen", None, said=day(2026, 7, 16), valid_from=day(2026, 7, 16),
        valid_until=day(2026, 7, 16), precision="day", kind="event_time",
    )  # fmt: skip
    await run(adj_service, corpus, *((done, planned) if happened_first else (planned, done)))
    facts = [f for f in await corpus.facts() if f["invalidated_at"] is None]
    assert len(facts) == 2
    assert {f["evidence_count"] for f in facts} == {1}
